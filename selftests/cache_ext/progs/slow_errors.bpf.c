// SPDX-License-Identifier: GPL-2.0
/*
 * slow_errors: a FIFO that, at most once every gap_ns, proposes its first
 * candidate twice.  Each such duplicate counts against the error budget;
 * over a long run they add up to many more than the budget, but their
 * rate stays far below it, so the policy must not be ejected.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

const volatile __u64 gap_ns = 100000000;	/* 10 errors a second */

__u64 nr_evict_calls, nr_duplicates, last_error_ns;

s32 CACHE_EXT_OP_SLEEPABLE(slow_init, struct mem_cgroup *memcg)
{
	return bpf_cache_ext_list_create(memcg) == 0 ? 0 : -EINVAL;
}

void CACHE_EXT_OP(slow_added, struct folio *folio, struct mem_cgroup *memcg)
{
	bpf_cache_ext_list_add(memcg, 0, folio, CACHE_EXT_TAIL);
}

void CACHE_EXT_OP(slow_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	bool err_due = bpf_ktime_get_ns() - last_error_ns >= gap_ns;
	struct folio *folio;

	__sync_fetch_and_add(&nr_evict_calls, 1);
	for_each_list_folio(folio, memcg, 0, 256) {
		if (req->nr_proposed >= req->nr_requested)
			break;
		if (bpf_cache_ext_folio_busy(folio))
			continue;
		if (bpf_cache_ext_propose(req, folio))
			continue;
		if (err_due && req->nr_proposed < req->nr_requested &&
		    bpf_cache_ext_propose(req, folio) == -EEXIST) {
			err_due = false;
			last_error_ns = bpf_ktime_get_ns();
			__sync_fetch_and_add(&nr_duplicates, 1);
		}
	}
}

SEC(".struct_ops.link")
struct cache_ext_ops slow_errors = {
	.init		= (void *)slow_init,
	.folio_added	= (void *)slow_added,
	.evict_folios	= (void *)slow_evict,
	.name		= "slow_errors",
};
