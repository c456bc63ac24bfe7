/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scoring a folio with a LearnedCache model from cache_ext_ctl's model
 * store.  The kfuncs are the module's: declared weak, so a policy loads
 * without the module and then behaves as FIFO (and counts that).
 */
#ifndef __LC_MODEL_BPF_H
#define __LC_MODEL_BPF_H

#include "lc_state.bpf.h"

extern int bpf_cache_ext_model_score(const char *name__str,
				     const s64 *features, u32 features__sz,
				     s64 *logit) __ksym __weak;
extern int bpf_cache_ext_model_threshold(const char *name__str,
					 s64 *threshold) __ksym __weak;
extern int bpf_cache_ext_model_auc(const char *name__str,
				   u32 *permille) __ksym __weak;

/* The model to score with: cachectl attach ... --set model=NAME */
const volatile char model[32] = "learned";

/*
 * A model whose hold-out AUC (x 1000) is below min_auc has no signal to
 * pay for: the policy evicts in its base order (FIFO) without scoring and
 * counts the call in nr_no_signal.  0 scores with any model.  A model
 * loaded without an AUC (the paper's pipeline exports none) is used.
 */
const volatile u32 min_auc = 550;

/* Scorings done, and evictions decided without a model (as FIFO). */
u64 nr_scored, nr_no_model, nr_no_signal;

/* Is the model worth scoring with? */
static __always_inline bool lc_model_has_signal(void)
{
	u32 auc;

	if (!min_auc || !bpf_ksym_exists(bpf_cache_ext_model_auc) ||
	    bpf_cache_ext_model_auc((const char *)model, &auc))
		return true;
	if (auc >= min_auc)
		return true;
	__sync_fetch_and_add(&nr_no_signal, 1);
	return false;
}

/*
 * Without signal, the policies evict in their base order: FIFO from the
 * head of @list.  True if the model has none and that was done.
 */
static __always_inline bool
lc_fifo_without_signal(struct cache_ext_eviction_ctx *req,
		       struct mem_cgroup *memcg, u32 list)
{
	if (lc_model_has_signal())
		return false;
	cache_ext_propose_from(req, memcg, list,
			       req->nr_requested + CACHE_EXT_MAX_BATCH);
	return true;
}

/*
 * The logit of @folio at @now into *@logit; false if there is no model.
 * @file: the eviction's view of the last file scored (lc_folio_features()).
 */
static __always_inline bool lc_score(struct folio *folio, u64 now,
				     struct lc_file_view *file, s64 *logit)
{
	s64 features[LC_NR_FEATURES];

	if (!bpf_ksym_exists(bpf_cache_ext_model_score))
		return false;
	lc_folio_features(folio, now, file, features);
	if (bpf_cache_ext_model_score((const char *)model, features,
				      sizeof(features), logit))
		return false;
	__sync_fetch_and_add(&nr_scored, 1);
	return true;
}

#endif /* __LC_MODEL_BPF_H */
