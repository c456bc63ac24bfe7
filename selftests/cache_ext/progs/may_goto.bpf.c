// SPDX-License-Identifier: GPL-2.0
/*
 * A loop bounded by may_goto (what bpf_experimental.h's cond_break
 * expands to), in a subprogram called from another such loop: each call
 * of the subprogram starts its own count of 2^23, so the two loops run
 * 2^46 times, and no check of the kernel's is reached to end them.  The
 * verifier must refuse it in a cache_ext program: the selftest checks
 * that it does.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

__u64 spins, outer_done;

static __noinline int inner(int n)
{
	int i = 0;

	for (;;) {
		asm volatile goto("may_goto %l[out]" :::: out);
		spins++;
		i++;
	}
out:
	return i + n;
}

void CACHE_EXT_OP(may_goto_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	int i = 0;

	for (;;) {
		asm volatile goto("may_goto %l[out]" :::: out);
		spins += inner(i++);
	}
out:
	outer_done++;
}

SEC(".struct_ops.link")
struct cache_ext_ops may_goto = {
	.evict_folios	= (void *)may_goto_evict,
	.name		= "may_goto",
};
