// SPDX-License-Identifier: GPL-2.0
/*
 * tracer: records what a workload does to the page cache, for training
 * LearnedCache models (see tools/lctrain).
 *
 * Evicts like an LFU-oversampled FIFO: the oversample x requested oldest
 * folios are scored by their access counts and the kernel evicts the least
 * used (batch scoring; a folio readahead brought in counts as used once
 * until it is read, see cache_ext_count_added()); the sample goes on, up
 * to twice as far, until it holds as many folios used at most once as
 * were asked for (cache_ext_score_by_count()); the sampled folios
 * rotate to the tail.  Every
 * insertion, access, use through a mapping (as the kernel reports it:
 * when reclaim or MGLRU's walk finds the accessed bit, LC_EV_MAPPED) and
 * removal is streamed through the ring buffer
 * lc_events as a struct lc_event (lc_trace.h); a removal carries the nine
 * features of the folio at that moment, computed from the same state and
 * code as the learned policies use (lc_emit.bpf.h).  `cachectl trace`
 * attaches it, sizes the ring buffer and writes the log.
 *
 * Knob: oversample (1..64, default 4).
 */
#include "cache_ext.bpf.h"
#include "lc_emit.bpf.h"

char _license[] SEC("license") = "GPL";

#define TRACER_LIST 0

const volatile u32 oversample = 4;

s32 CACHE_EXT_OP_SLEEPABLE(tracer_init, struct mem_cgroup *memcg)
{
	if (oversample < 1 || oversample > 64)
		return -EINVAL;
	return bpf_cache_ext_list_create(memcg) == TRACER_LIST ? 0 : -EINVAL;
}

void CACHE_EXT_OP(tracer_added, struct folio *folio, struct mem_cgroup *memcg)
{
	u32 *count = cache_ext_folio_state(folio, u32);

	if (count)
		cache_ext_count_added(folio, count);
	bpf_cache_ext_list_add(memcg, TRACER_LIST, folio, CACHE_EXT_TAIL);
	lc_emit(folio, LC_EV_INSERT, bpf_ktime_get_ns());
}

/* A use of @folio, recorded as @type (LC_EV_ACCESS or LC_EV_MAPPED). */
static __always_inline void tracer_use(struct folio *folio, u8 type)
{
	u32 *count = cache_ext_folio_state(folio, u32);
	u64 now = bpf_ktime_get_ns();

	if (count)
		cache_ext_count_accessed(count, CACHE_EXT_COUNT_MASK);
	lc_record_access(folio, now);
	lc_emit(folio, type, now);
}

void CACHE_EXT_OP(tracer_accessed, struct folio *folio, struct mem_cgroup *memcg)
{
	tracer_use(folio, LC_EV_ACCESS);
}

void CACHE_EXT_OP(tracer_mapped, struct folio *folio, struct mem_cgroup *memcg,
		  int nr_ptes)
{
	tracer_use(folio, LC_EV_MAPPED);
}

void CACHE_EXT_OP(tracer_removed, struct folio *folio, struct mem_cgroup *memcg)
{
	lc_emit(folio, LC_EV_EVICT, bpf_ktime_get_ns());
}

void CACHE_EXT_OP(tracer_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	cache_ext_score_by_count(req, memcg, TRACER_LIST, oversample,
				 2 * oversample * req->nr_requested,
				 CACHE_EXT_COUNT_MASK);
}

SEC(".struct_ops.link")
struct cache_ext_ops tracer = {
	.init		= (void *)tracer_init,
	.folio_added	= (void *)tracer_added,
	.folio_accessed	= (void *)tracer_accessed,
	.folio_mapped_accessed = (void *)tracer_mapped,
	.folio_removed	= (void *)tracer_removed,
	.evict_folios	= (void *)tracer_evict,
	.name		= "tracer",
};
