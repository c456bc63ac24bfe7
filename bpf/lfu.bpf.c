// SPDX-License-Identifier: GPL-2.0
/*
 * lfu: evict the least frequently used folios, by sampling.
 *
 * Keeps a small hot set that a one-time scan of a large file would flush
 * out of FIFO or LRU: scanned folios are used once, hot ones many times.
 * Each folio's access count is its per-folio state (4 bytes in the
 * kernel's registry, no map).  A hit calls no BPF: the kernel counts each
 * folio's uses (CACHE_EXT_OPS_COUNT_REFS) and the policy folds them into
 * the count when it samples the folio (cache_ext_count_refs()), which
 * gives the count it would have had from a folio_accessed() on every hit.
 *
 * On eviction the policy scores folios from the head of its list with
 * bpf_cache_ext_propose_scored() (the kernel keeps the lowest counts of as
 * many as it asked for) and rotates them to the tail, so that the next
 * sample looks at folios not seen for the longest time
 * (cache_ext_score_by_count()).  The sample follows the request: it ends
 * once it holds sample_per_candidate folios per folio asked for and,
 * among them, as many used at most once as were asked for (none can score
 * lower), or at two full batches' samples (sample_per_candidate x 32 x 2,
 * 1,280 by default).  A run of folios used more than once at the head (a
 * hot file read before reclaim began) does not end it, so that such a run
 * loses no folio to a sample that held nothing colder.  lfu sampled a full
 * batch on every call before, whatever reclaim asked for (the classic LRU
 * asks for 7 folios a call on average on LevelDB): about 1,000 folios
 * looked at per call, and decisions took a vCPU (bench/README, "Where
 * LevelDB's CPU goes").
 *
 * A folio readahead brought in counts as used once until its first read
 * (cache_ext_count_added()): evicted first as unused, it would be read
 * again moments later.
 *
 * Knobs: sample_per_candidate (1..64), max_count (saturation; counts never
 * age, as in plain LFU), prefetch_grace (1; 0 counts a prefetched folio as
 * unused, as lfu did before it knew: to measure what the grace is worth).
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

#define LFU_LIST 0

const volatile u32 sample_per_candidate = 20;
const volatile u32 max_count = 1000000;
const volatile u32 prefetch_grace = 1;

s32 CACHE_EXT_OP_SLEEPABLE(lfu_init, struct mem_cgroup *memcg)
{
	if (sample_per_candidate < 1 || sample_per_candidate > 64)
		return -EINVAL;
	return bpf_cache_ext_list_create(memcg) == LFU_LIST ? 0 : -EINVAL;
}

void CACHE_EXT_OP(lfu_added, struct folio *folio, struct mem_cgroup *memcg)
{
	u32 *count = cache_ext_folio_state(folio, u32);

	if (count && prefetch_grace)
		cache_ext_count_added(folio, count);
	else if (count)
		*count = 0;
}

void CACHE_EXT_OP(lfu_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	cache_ext_score_by_count(req, memcg, LFU_LIST, sample_per_candidate,
				 2 * sample_per_candidate * CACHE_EXT_MAX_BATCH,
				 max_count);
}

SEC(".struct_ops.link")
struct cache_ext_ops lfu = {
	.init		= (void *)lfu_init,
	.folio_added	= (void *)lfu_added,
	.evict_folios	= (void *)lfu_evict,
	/*
	 * New folios at the tail of LFU_LIST, in the insertion's one lock
	 * hold; uses counted by the kernel.
	 */
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST | CACHE_EXT_OPS_COUNT_REFS,
	.name		= "lfu",
};
