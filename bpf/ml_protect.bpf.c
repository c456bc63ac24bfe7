// SPDX-License-Identifier: GPL-2.0
/*
 * ml_protect: FIFO, with a learned model guarding the exit (LearnedCache).
 *
 * The folio at the head of the FIFO is scored by the model named by the
 * knob model (loaded with `cachectl model load`): a logit above the
 * threshold (the model's threshold_int, or the threshold knob when set)
 * means "will be reused" and the folio goes back to the tail; otherwise it
 * is evicted.  At most max_scan folios are looked at per requested one, so
 * a model that protects everything costs bounded work and leaves the rest
 * to the kernel.  Without a model it is plain FIFO and counts nr_no_model;
 * with a model whose hold-out AUC is below min_auc, too (nr_no_signal).
 *
 * Features come from lc_state.bpf.h, updated on every access exactly as
 * the tracer computed them for training.
 */
#include "cache_ext.bpf.h"
#include "lc_model.bpf.h"

char _license[] SEC("license") = "GPL";

#define FIFO_LIST 0

const volatile u32 max_scan = 4;
const volatile bool use_threshold_knob;
const volatile s64 threshold;

u64 nr_protected;

s32 CACHE_EXT_OP_SLEEPABLE(ml_protect_init, struct mem_cgroup *memcg)
{
	if (max_scan < 1 || max_scan > 64)
		return -EINVAL;
	return bpf_cache_ext_list_create(memcg) == FIFO_LIST ? 0 : -EINVAL;
}

void CACHE_EXT_OP(ml_protect_accessed, struct folio *folio,
		  struct mem_cgroup *memcg)
{
	lc_record_access(folio, bpf_ktime_get_ns());
}

void CACHE_EXT_OP(ml_protect_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	s64 size = bpf_cache_ext_list_size(memcg, FIFO_LIST), logit, limit = 0;
	u32 budget = max_scan * req->nr_requested;
	u64 now = bpf_ktime_get_ns();
	struct lc_file_view file = {};
	struct folio *folio;
	bool have_limit;

	if (lc_fifo_without_signal(req, memcg, FIFO_LIST))
		return;
	have_limit = use_threshold_knob ||
		     (bpf_ksym_exists(bpf_cache_ext_model_threshold) &&
		      !bpf_cache_ext_model_threshold((const char *)model, &limit));
	if (use_threshold_knob)
		limit = threshold;
	/* Protected folios go round to the tail: never see one twice. */
	if (size < budget)
		budget = size > 0 ? size : 0;
	for_each_list_folio(folio, memcg, FIFO_LIST, budget) {
		if (req->nr_proposed >= req->nr_requested)
			break;
		if (bpf_cache_ext_folio_busy(folio))
			continue;
		if (!have_limit || !lc_score(folio, now, &file, &logit)) {
			__sync_fetch_and_add(&nr_no_model, 1);
		} else if (logit > limit) {
			bpf_cache_ext_list_move(memcg, FIFO_LIST, folio, CACHE_EXT_TAIL);
			__sync_fetch_and_add(&nr_protected, 1);
			continue;
		}
		bpf_cache_ext_propose(req, folio);
	}
}

SEC(".struct_ops.link")
struct cache_ext_ops ml_protect = {
	.init		= (void *)ml_protect_init,
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST,
	.folio_accessed	= (void *)ml_protect_accessed,
	.evict_folios	= (void *)ml_protect_evict,
	.name		= "ml_protect",
};
