// SPDX-License-Identifier: GPL-2.0
/*
 * get_scan: application-informed eviction for mixed GET/SCAN workloads.
 *
 * A key-value store serves point lookups (GETs) from a hot working set
 * while other threads scan large ranges once.  Under LRU or FIFO the scan
 * flushes the hot set.  Here the application (or cachectl) puts the TIDs
 * of its scan threads into the map get_scan_tids, pinned at
 * /sys/fs/bpf/get_scan_tids.  Folios a scan thread brings in go to the
 * SCAN list, evicted first in FIFO order; all others go to the GET list,
 * kept in LRU order (an access by a non-scan thread moves a folio to its
 * tail, adopting a scanned folio that a GET needed).  Only when the SCAN
 * list has nothing left to give does eviction touch the GET list.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

#define GET_LIST	0
#define SCAN_LIST	1

CACHE_EXT_TID_MAP(get_scan_tids);

u64 nr_scan_added, nr_get_added;

static bool current_is_scan(void)
{
	return cache_ext_current_tid_in(&get_scan_tids);
}

s32 CACHE_EXT_OP_SLEEPABLE(get_scan_init, struct mem_cgroup *memcg)
{
	if (bpf_cache_ext_list_create(memcg) != GET_LIST ||
	    bpf_cache_ext_list_create(memcg) != SCAN_LIST)
		return -EINVAL;
	return 0;
}

void CACHE_EXT_OP(get_scan_added, struct folio *folio, struct mem_cgroup *memcg)
{
	if (current_is_scan()) {
		bpf_cache_ext_list_add(memcg, SCAN_LIST, folio, CACHE_EXT_TAIL);
		__sync_fetch_and_add(&nr_scan_added, 1);
	} else {
		bpf_cache_ext_list_add(memcg, GET_LIST, folio, CACHE_EXT_TAIL);
		__sync_fetch_and_add(&nr_get_added, 1);
	}
}

void CACHE_EXT_OP(get_scan_accessed, struct folio *folio,
		  struct mem_cgroup *memcg)
{
	if (!current_is_scan())
		bpf_cache_ext_list_move(memcg, GET_LIST, folio, CACHE_EXT_TAIL);
}

void CACHE_EXT_OP(get_scan_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	cache_ext_propose_from(req, memcg, SCAN_LIST, 64 + 4 * req->nr_requested);
	cache_ext_propose_from(req, memcg, GET_LIST, 64 + 4 * req->nr_requested);
}

SEC(".struct_ops.link")
struct cache_ext_ops get_scan = {
	.init		= (void *)get_scan_init,
	.folio_added	= (void *)get_scan_added,
	.folio_accessed	= (void *)get_scan_accessed,
	.evict_folios	= (void *)get_scan_evict,
	.name		= "get_scan",
};
