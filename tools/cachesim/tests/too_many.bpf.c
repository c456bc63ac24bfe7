// SPDX-License-Identifier: GPL-2.0
/*
 * A test policy for cachesim: proposes every folio of its list, more than
 * the kernel asks for, for which the kernel ejects a policy.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

s32 CACHE_EXT_OP_SLEEPABLE(too_many_init, struct mem_cgroup *memcg)
{
	return bpf_cache_ext_list_create(memcg) == 0 ? 0 : -EINVAL;
}

void CACHE_EXT_OP(too_many_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct folio *folio;

	for_each_list_folio(folio, memcg, 0, 2 * CACHE_EXT_MAX_BATCH)
		bpf_cache_ext_propose(req, folio);
}

SEC(".struct_ops.link")
struct cache_ext_ops too_many = {
	.init		= (void *)too_many_init,
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST,
	.evict_folios	= (void *)too_many_evict,
	.name		= "too_many",
};
