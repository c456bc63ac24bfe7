// SPDX-License-Identifier: GPL-2.0
/*
 * take_refs: reads the use counts the kernel keeps for a policy with
 * CACHE_EXT_OPS_COUNT_REFS.  New folios go to list 0 (the kernel puts
 * them there); there is no folio_accessed().  Every evict_folios() call
 * walks the whole list, takes each folio's count and adds it to @refs at
 * the folio's index if it belongs to the file user space named (@ino),
 * then proposes nothing: the kernel's LRU evicts.  folio_removed() checks
 * that a folio leaving is no longer counted.  take_refs_off.bpf.c is the
 * same policy without the flag.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

#ifndef TAKE_REFS_FLAGS
#define TAKE_REFS_FLAGS	CACHE_EXT_OPS_COUNT_REFS
#define TAKE_REFS_NAME	"take_refs"
#endif

#define LIST		0
#define NR_INDEXES	4096
#define WALK_MAX	8192

/* Set by user space: the inode whose folios are summed in @refs. */
__u64 ino;
__u32 refs[NR_INDEXES];
/* Calls, and what the kfunc answered. */
__u64 nr_calls, nr_taken, nr_unsupported, nr_other;
__u64 nr_removed_gone, nr_removed_other;
int other_err;

void CACHE_EXT_OP(take_refs_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct folio *folio;

	__sync_fetch_and_add(&nr_calls, 1);
	for_each_list_folio(folio, memcg, LIST, WALK_MAX) {
		int r = bpf_cache_ext_folio_take_refs(folio);
		u64 index;

		if (r == -EOPNOTSUPP) {
			__sync_fetch_and_add(&nr_unsupported, 1);
			continue;
		}
		if (r < 0) {
			other_err = r;
			__sync_fetch_and_add(&nr_other, 1);
			continue;
		}
		__sync_fetch_and_add(&nr_taken, 1);
		index = cache_ext_folio_index(folio);
		if (cache_ext_folio_ino(folio) == ino && index < NR_INDEXES)
			refs[index] += r;
	}
}

void CACHE_EXT_OP(take_refs_removed, struct folio *folio,
		  struct mem_cgroup *memcg)
{
	int r = bpf_cache_ext_folio_take_refs(folio);

	if (r == -ENOENT)
		__sync_fetch_and_add(&nr_removed_gone, 1);
	else
		__sync_fetch_and_add(&nr_removed_other, 1);
}

SEC(".struct_ops.link")
struct cache_ext_ops take_refs = {
	.evict_folios	= (void *)take_refs_evict,
	.folio_removed	= (void *)take_refs_removed,
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST | TAKE_REFS_FLAGS,
	.name		= TAKE_REFS_NAME,
};
