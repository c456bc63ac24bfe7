// SPDX-License-Identifier: GPL-2.0
/*
 * fifo: evict folios in the order they entered the page cache.
 *
 * The reference policy: one list per cgroup; a new folio goes to the tail,
 * eviction takes folios from the head.  Accesses change nothing.  It shows
 * the whole contract in a few lines: create a list in init(), have the
 * kernel append every new folio to it (CACHE_EXT_OPS_ADD_TO_LIST: no
 * folio_added() call per insertion), propose from the list in
 * evict_folios().  The kernel takes removed folios off the list by itself.
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

SEC(".struct_ops.link")
struct cache_ext_ops fifo = {
	.init		= (void *)fifo_init,
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST,
	.evict_folios	= (void *)fifo_evict,
	.name		= "fifo",
};
