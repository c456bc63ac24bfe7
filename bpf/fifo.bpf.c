// SPDX-License-Identifier: GPL-2.0
/*
 * fifo: evict folios in the order they entered the page cache.
 *
 * The reference policy: one list per cgroup; a new folio goes to the tail,
 * eviction takes folios from the head.  Accesses through a file descriptor
 * change nothing.  It shows the whole contract in a few lines: create a
 * list in init(), have the kernel append every new folio to it
 * (CACHE_EXT_OPS_ADD_TO_LIST: no folio_added() call per insertion),
 * propose from the list in evict_folios().  The kernel takes removed
 * folios off the list by itself.
 *
 * One exception, which the kernel makes and fifo follows: a folio used
 * through a mapping since reclaim last looked is not evicted, whatever
 * the policy proposes (reclaim keeps it and reports the use, see
 * folio_mapped_accessed() in the BPF contract).  Left at the head, it
 * would be the next candidate again, and evicted then, its bit just
 * cleared, before its user comes back: fifo would lose a mapped hot set
 * one batch after keeping it.  So a reported folio is requeued at the
 * tail, as the kernel's own LRU puts back a folio it keeps for its
 * mapped use: FIFO with reinsertion (CLOCK) for mapped folios, plain FIFO
 * for the rest.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

/* List ids are per binding; creating one list first gives id 0 everywhere. */
#define FIFO_LIST 0

s32 CACHE_EXT_OP_SLEEPABLE(fifo_init, struct mem_cgroup *memcg)
{
	s32 list = bpf_cache_ext_list_create(memcg);

	return list == FIFO_LIST ? 0 : -EINVAL;
}

void CACHE_EXT_OP(fifo_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	/*
	 * Look a batch past the request: folios being written cannot be
	 * freed now and stay at the head until they are clean (the classic
	 * LRU may ask for a single folio).
	 */
	cache_ext_propose_from(req, memcg, FIFO_LIST,
			       req->nr_requested + CACHE_EXT_MAX_BATCH);
}

/* Used through a mapping: requeued at the tail (see above). */
void CACHE_EXT_OP(fifo_mapped_accessed, struct folio *folio,
		  struct mem_cgroup *memcg, u32 nr_ptes)
{
	bpf_cache_ext_list_move(memcg, FIFO_LIST, folio, CACHE_EXT_TAIL);
}

SEC(".struct_ops.link")
struct cache_ext_ops fifo = {
	.init		= (void *)fifo_init,
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST,
	.evict_folios	= (void *)fifo_evict,
	.folio_mapped_accessed = (void *)fifo_mapped_accessed,
	.name		= "fifo",
};
