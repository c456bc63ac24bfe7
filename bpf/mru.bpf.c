// SPDX-License-Identifier: GPL-2.0
/*
 * mru: evict the most recently used folio first.
 *
 * Right for cyclic scans of a file larger than the cache, where LRU and
 * FIFO evict every page just before it is needed again and hit nothing:
 * MRU keeps the first part of the file and hits on it every loop.  One
 * list per cgroup, most recently used at the head: an accessed folio moves
 * to the head, eviction takes from the head.  A new folio enters at the
 * tail, as not used yet: readahead brings folios in before the reader gets
 * to them, and evicting those first would throw the read-ahead I/O away.
 * A demand-read folio is accessed at once and moves to the head.  Busy
 * folios (locked, dirty, under writeback) are skipped.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

#define MRU_LIST 0

s32 CACHE_EXT_OP_SLEEPABLE(mru_init, struct mem_cgroup *memcg)
{
	return bpf_cache_ext_list_create(memcg) == MRU_LIST ? 0 : -EINVAL;
}

void CACHE_EXT_OP(mru_accessed, struct folio *folio, struct mem_cgroup *memcg)
{
	bpf_cache_ext_list_move(memcg, MRU_LIST, folio, CACHE_EXT_HEAD);
}

void CACHE_EXT_OP(mru_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	cache_ext_propose_from(req, memcg, MRU_LIST, 64 + 4 * req->nr_requested);
}

SEC(".struct_ops.link")
struct cache_ext_ops mru = {
	.init		= (void *)mru_init,
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST,
	.folio_accessed	= (void *)mru_accessed,
	.evict_folios	= (void *)mru_evict,
	.name		= "mru",
};
