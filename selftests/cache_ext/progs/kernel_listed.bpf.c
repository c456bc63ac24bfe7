// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_listed: FIFO with no init() and no folio_added(), for the
 * selftests.  CACHE_EXT_OPS_ADD_TO_LIST has the kernel create list 0 and
 * append every new folio to it; eviction proposes from its head.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

void CACHE_EXT_OP(kernel_listed_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	/*
	 * Look a batch past the request, as fifo does: the list's oldest
	 * folios may wait, off the LRU, in the per-CPU batch of a CPU the
	 * reader has left (seen: five of them at the head for as long as the
	 * reader ran on the other CPU), and the classic LRU asks for 1, 3
	 * and 7 folios, so a window of twice the request proposed nothing
	 * and those batches were the LRU's.
	 */
	cache_ext_propose_from(req, memcg, 0,
			       req->nr_requested + CACHE_EXT_MAX_BATCH);
}

SEC(".struct_ops.link")
struct cache_ext_ops kernel_listed = {
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST,
	.evict_folios	= (void *)kernel_listed_evict,
	.name		= "kernel_listed",
};
