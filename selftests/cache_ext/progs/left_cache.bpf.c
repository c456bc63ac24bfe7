// SPDX-License-Identifier: GPL-2.0
/*
 * left_cache: proposes a folio that left the page cache after the policy
 * saw it, and records what the kernel answered.
 *
 * The first evict_folios() call takes the first two folios of the list
 * and holds the first, so that the iterator's record of the folio it
 * yielded last names the other: the kernel must look the held one up.
 * It then says so in @stage (1) and waits, 20 s at most, until user
 * space has truncated the file and set @stage to 2; then it
 * proposes the held folio.  Later calls propose nothing (the kernel's
 * LRU evicts).  Such a folio is the race every policy runs: it must be
 * refused as gone (-ENOENT), not counted as the policy's error.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

#define LEFT_LIST 0

volatile int stage;
int propose_ret = 1;
__u64 waited;

s32 CACHE_EXT_OP_SLEEPABLE(left_init, struct mem_cgroup *memcg)
{
	return bpf_cache_ext_list_create(memcg) == LEFT_LIST ? 0 : -EINVAL;
}

/* Wait for user space, 20 s at most (a bounded loop). */
static void wait_for_truncation(void)
{
	__u64 start = bpf_ktime_get_ns();
	int i, j;

	bpf_for(i, 0, 64) {
		bpf_for(j, 0, 1 << 20) {
			if (stage == 2)
				return;
			waited++;
		}
		if (bpf_ktime_get_ns() - start > 20ULL * 1000 * 1000 * 1000)
			return;
	}
}

void CACHE_EXT_OP(left_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct folio *folio, *held = NULL;
	int seen = 0;

	if (stage)
		return;
	for_each_list_folio(folio, memcg, LEFT_LIST, 2) {
		if (!seen++)
			held = folio;
	}
	if (!held || seen < 2)
		return;
	stage = 1;
	wait_for_truncation();
	if (stage != 2)
		return;
	propose_ret = bpf_cache_ext_propose(req, held);
	stage = 3;
}

SEC(".struct_ops.link")
struct cache_ext_ops left_cache = {
	.init		= (void *)left_init,
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST,
	.evict_folios	= (void *)left_evict,
	.name		= "left_cache",
};
