// SPDX-License-Identifier: GPL-2.0
/*
 * Kfuncs called from a callback they have no meaning in: a proposal from
 * folio_added() (with the only eviction context a policy can name there,
 * none) and a list created from evict_folios().  The verifier must refuse
 * each when it loads ("calling kernel function ... is not allowed"); the
 * selftest loads one map at a time and reads the log.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

void CACHE_EXT_OP(propose_added, struct folio *folio, struct mem_cgroup *memcg)
{
	bpf_cache_ext_propose_list(NULL, memcg, 0, 1);
}

void CACHE_EXT_OP(create_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	bpf_cache_ext_list_create(memcg);
}

SEC(".struct_ops.link")
struct cache_ext_ops propose_in_added = {
	.folio_added	= (void *)propose_added,
	.name		= "propose_in_added",
};

SEC(".struct_ops.link")
struct cache_ext_ops create_in_evict = {
	.evict_folios	= (void *)create_evict,
	.name		= "create_in_evict",
};
