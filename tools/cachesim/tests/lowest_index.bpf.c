// SPDX-License-Identifier: GPL-2.0
/*
 * A test policy for cachesim: scores every folio of its list with its
 * page index, so that the kernel's batch scoring evicts the lowest page
 * numbers in the cache, whatever the order of the list.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

s32 CACHE_EXT_OP_SLEEPABLE(lowest_init, struct mem_cgroup *memcg)
{
	return bpf_cache_ext_list_create(memcg) == 0 ? 0 : -EINVAL;
}

void CACHE_EXT_OP(lowest_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct folio *folio;

	for_each_list_folio(folio, memcg, 0, CACHE_EXT_ITER_MAX)
		bpf_cache_ext_propose_scored(req, folio,
					     cache_ext_folio_index(folio));
}

SEC(".struct_ops.link")
struct cache_ext_ops lowest_index = {
	.init		= (void *)lowest_init,
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST,
	.evict_folios	= (void *)lowest_evict,
	.name		= "lowest_index",
};
