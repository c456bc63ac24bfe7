// SPDX-License-Identifier: GPL-2.0
/*
 * A test policy for cachesim: a bug a verifier would refuse (a write
 * through NULL), which on the host kills the simulation.  The simulator
 * must report it and go on with other runs.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

u32 *volatile nowhere;

void CACHE_EXT_OP(crash_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	*nowhere = 1;
}

SEC(".struct_ops.link")
struct cache_ext_ops crash = {
	.evict_folios	= (void *)crash_evict,
	.name		= "crash",
};
