// SPDX-License-Identifier: GPL-2.0
/*
 * empty_hooks: every callback, each doing nothing.  Its binding tracks
 * every folio (it has folio callbacks), so bench-core and the tests can
 * tell the cost of the registry and of calling into BPF from that of a
 * policy's own work.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

void CACHE_EXT_OP(empty_added, struct folio *folio, struct mem_cgroup *memcg)
{
}

void CACHE_EXT_OP(empty_accessed, struct folio *folio, struct mem_cgroup *memcg)
{
}

void CACHE_EXT_OP(empty_removed, struct folio *folio, struct mem_cgroup *memcg)
{
}

void CACHE_EXT_OP(empty_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
}

SEC(".struct_ops.link")
struct cache_ext_ops empty_hooks = {
	.folio_added	= (void *)empty_added,
	.folio_accessed	= (void *)empty_accessed,
	.folio_removed	= (void *)empty_removed,
	.evict_folios	= (void *)empty_evict,
	.name		= "empty_hooks",
};
