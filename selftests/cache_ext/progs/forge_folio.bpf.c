// SPDX-License-Identifier: GPL-2.0
/*
 * Tries to propose a forged folio pointer.  The kfuncs take typed
 * pointers, so the verifier must refuse to load this: the selftest checks
 * that it does.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

void CACHE_EXT_OP(forge_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct folio *forged;

	forged = bpf_rdonly_cast((void *)0xdead000000001000ULL,
				 bpf_core_type_id_kernel(struct folio));
	bpf_cache_ext_propose(req, forged);
}

SEC(".struct_ops.link")
struct cache_ext_ops forge_folio = {
	.evict_folios	= (void *)forge_evict,
	.name		= "forge_folio",
};
