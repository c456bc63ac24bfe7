// SPDX-License-Identifier: GPL-2.0
/*
 * evict_newest: FIFO turned around, for the selftests.  New folios go to
 * the head of the list and eviction takes from the head, so the most
 * recently cached folios go first: the opposite of fifo and of the
 * kernel's LRU, which proves that the policy, not the kernel, chose.
 * Folios still being read in are skipped, as any MRU-like policy must.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

__u64 nr_proposed;

s32 CACHE_EXT_OP(newest_init, struct mem_cgroup *memcg)
{
	return bpf_cache_ext_list_create(memcg) == 0 ? 0 : -EINVAL;
}

void CACHE_EXT_OP(newest_added, struct folio *folio, struct mem_cgroup *memcg)
{
	bpf_cache_ext_list_add(memcg, 0, folio, CACHE_EXT_HEAD);
}

void CACHE_EXT_OP(newest_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct folio *folio;

	for_each_list_folio(folio, memcg, 0, 64 + 4 * req->nr_requested) {
		if (req->nr_proposed >= req->nr_requested)
			break;
		if (bpf_cache_ext_folio_busy(folio))
			continue;
		if (!bpf_cache_ext_propose(req, folio))
			__sync_fetch_and_add(&nr_proposed, 1);
	}
}

SEC(".struct_ops.link")
struct cache_ext_ops evict_newest = {
	.init		= (void *)newest_init,
	.folio_added	= (void *)newest_added,
	.evict_folios	= (void *)newest_evict,
	.name		= "evict_newest",
};
