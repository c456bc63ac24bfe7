// SPDX-License-Identifier: GPL-2.0
/*
 * noop: registers, tracks nothing, proposes nothing.
 *
 * The overhead baseline: a cgroup bound to noop pays for the hooks and an
 * evict_folios() call per reclaim round, while the kernel's own LRU still
 * chooses every folio that is evicted (all of it fallback).  It has no
 * folio callback, so its binding tracks no folio (the registry would be
 * of no use to it); the cost of tracking is what a policy with empty
 * folio callbacks pays (selftests/cache_ext/progs/empty_hooks.bpf.c,
 * make bench-core).
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

void CACHE_EXT_OP(noop_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
}

SEC(".struct_ops.link")
struct cache_ext_ops noop = {
	.evict_folios	= (void *)noop_evict,
	.name		= "noop",
};
