// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_listed: FIFO with no init() and no folio_added(), for the
 * selftests.  CACHE_EXT_OPS_ADD_TO_LIST has the kernel create list 0 and
 * append every new folio to it; eviction proposes from its head.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

/*
 * Folios looked at past the request, as fifo does: busy ones at the head
 * (written, locked, waiting in a CPU's LRU batch) are passed over.  The
 * selftest of the drained batches sets 0, so that such folios block the
 * head.
 */
const volatile __u32 lookahead = CACHE_EXT_MAX_BATCH;

void CACHE_EXT_OP(kernel_listed_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	cache_ext_propose_from(req, memcg, 0, req->nr_requested + lookahead);
}

SEC(".struct_ops.link")
struct cache_ext_ops kernel_listed = {
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST,
	.evict_folios	= (void *)kernel_listed_evict,
	.name		= "kernel_listed",
};
