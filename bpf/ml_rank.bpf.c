// SPDX-License-Identifier: GPL-2.0
/*
 * ml_rank: FIFO that oversamples and lets a learned model rank
 * (LearnedCache).
 *
 * For a request of n folios it takes oversample x n folios from the head
 * of the FIFO (10, 20, 30, 40: the paper's factors; 1..64 allowed), scores
 * each with the model named by the knob model, and lets the kernel evict
 * the n lowest logits (batch scoring); every sampled folio rotates to the
 * tail.  Without a model every score is the folio's position in the
 * sample: the oldest n go and the rest of the sample rotates to the tail
 * (FIFO but for that), and nr_no_model counts it.  With a model whose
 * hold-out AUC is below min_auc it evicts in FIFO order without sampling
 * or scoring (nr_no_signal counts the calls).
 *
 * With the knob record (set by `cachectl learn`), it streams the trace of
 * its cgroup as the tracer does (lc_emit.bpf.h), so that a model can be
 * retrained on what the policy sees while it keeps evicting.
 */
#include "cache_ext.bpf.h"
#include "lc_model.bpf.h"
#include "lc_emit.bpf.h"

char _license[] SEC("license") = "GPL";

#define FIFO_LIST 0

const volatile u32 oversample = 30;
const volatile bool record;

s32 CACHE_EXT_OP_SLEEPABLE(ml_rank_init, struct mem_cgroup *memcg)
{
	if (oversample < 1 || oversample > 64)
		return -EINVAL;
	return bpf_cache_ext_list_create(memcg) == FIFO_LIST ? 0 : -EINVAL;
}

void CACHE_EXT_OP(ml_rank_added, struct folio *folio, struct mem_cgroup *memcg)
{
	if (record)
		lc_emit(folio, LC_EV_INSERT, bpf_ktime_get_ns());
}

void CACHE_EXT_OP(ml_rank_accessed, struct folio *folio,
		  struct mem_cgroup *memcg)
{
	u64 now = bpf_ktime_get_ns();

	lc_record_access(folio, now);
	if (record)
		lc_emit(folio, LC_EV_ACCESS, now);
}

void CACHE_EXT_OP(ml_rank_removed, struct folio *folio,
		  struct mem_cgroup *memcg)
{
	if (record)
		lc_emit(folio, LC_EV_EVICT, bpf_ktime_get_ns());
}

void CACHE_EXT_OP(ml_rank_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	s64 size = bpf_cache_ext_list_size(memcg, FIFO_LIST), logit;
	u32 sample = oversample * req->nr_requested, pos = 0;
	u64 now = bpf_ktime_get_ns();
	struct lc_file_view file = {};
	struct folio *folio;

	if (lc_fifo_without_signal(req, memcg, FIFO_LIST))
		return;
	if (size < sample)
		sample = size > 0 ? size : 0;
	for_each_list_folio(folio, memcg, FIFO_LIST, sample) {
		pos++;
		if (bpf_cache_ext_folio_busy(folio))
			continue;
		if (!lc_score(folio, now, &file, &logit)) {
			__sync_fetch_and_add(&nr_no_model, 1);
			logit = pos;	/* oldest lowest: FIFO */
		}
		bpf_cache_ext_propose_scored(req, folio, logit);
	}
	bpf_cache_ext_list_rotate(memcg, FIFO_LIST, pos);
}

SEC(".struct_ops.link")
struct cache_ext_ops ml_rank = {
	.init		= (void *)ml_rank_init,
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST,
	.folio_added	= (void *)ml_rank_added,
	.folio_accessed	= (void *)ml_rank_accessed,
	.folio_removed	= (void *)ml_rank_removed,
	.evict_folios	= (void *)ml_rank_evict,
	.name		= "ml_rank",
};
