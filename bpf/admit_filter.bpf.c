// SPDX-License-Identifier: GPL-2.0
/*
 * admit_filter: keep some threads' reads out of the page cache.
 *
 * Background work such as LSM-tree compaction reads data once; caching it
 * evicts what the foreground will read again.  The TIDs of such threads go
 * into the map no_cache_tids, pinned at /sys/fs/bpf/no_cache_tids; their
 * reads are served as usual but the folios are not admitted (the kernel
 * drops them after the copy), so the rest of the cache stays.  Eviction is
 * left to the kernel: the policy has no evict_folios().
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

CACHE_EXT_TID_MAP(no_cache_tids);

u64 nr_refused;

bool CACHE_EXT_OP(admit_filter_admit, struct cache_ext_admit_ctx *actx,
		  struct mem_cgroup *memcg)
{
	if (!cache_ext_current_tid_in(&no_cache_tids))
		return true;
	__sync_fetch_and_add(&nr_refused, 1);
	return false;
}

SEC(".struct_ops.link")
struct cache_ext_ops admit_filter = {
	.admit_folio	= (void *)admit_filter_admit,
	.name		= "admit_filter",
};
