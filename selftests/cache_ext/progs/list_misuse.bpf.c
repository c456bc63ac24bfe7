// SPDX-License-Identifier: GPL-2.0
/*
 * list_misuse: calls every list kfunc once correctly and once wrongly on
 * the first folio it sees, and bpf_cache_ext_propose_list() wrongly and
 * on nothing in its first evict_folios(), and records the return values
 * for the test.  It proposes nothing: the kernel's LRU evicts.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

#include "list_misuse.h"

__s64 results[NR_RESULTS];
int claimed, evict_claimed;

s32 CACHE_EXT_OP(misuse_init, struct mem_cgroup *memcg)
{
	s32 id = 0;
	int i;

	for (i = 0; i < CACHE_EXT_MAX_LISTS; i++)
		id = bpf_cache_ext_list_create(memcg);
	results[R_MAX_LISTS] = CACHE_EXT_MAX_LISTS;
	results[R_CREATE_LAST] = id;
	results[R_CREATE_TOO_MANY] = bpf_cache_ext_list_create(memcg);
	return 0;
}

void CACHE_EXT_OP(misuse_added, struct folio *folio, struct mem_cgroup *memcg)
{
	struct bpf_iter_cache_ext_list it;
	struct folio *first;

	if (__sync_val_compare_and_swap(&claimed, 0, 1))
		return;

	results[R_ADD] = bpf_cache_ext_list_add(memcg, 0, folio, CACHE_EXT_TAIL);
	results[R_ADD_AGAIN] = bpf_cache_ext_list_add(memcg, 0, folio,
						      CACHE_EXT_TAIL);
	results[R_ADD_BAD_LIST] = bpf_cache_ext_list_add(memcg, 99, folio,
							 CACHE_EXT_TAIL);
	results[R_SIZE_0] = bpf_cache_ext_list_size(memcg, 0);
	results[R_MOVE_TO_1_TAIL] = bpf_cache_ext_list_move(memcg, 1, folio,
							    CACHE_EXT_TAIL);
	results[R_SIZE_0_AFTER] = bpf_cache_ext_list_size(memcg, 0);
	results[R_SIZE_1_AFTER] = bpf_cache_ext_list_size(memcg, 1);
	results[R_SIZE_BAD_LIST] = bpf_cache_ext_list_size(memcg, 99);

	bpf_iter_cache_ext_list_new(&it, memcg, 1, 8);
	first = bpf_iter_cache_ext_list_next(&it);
	results[R_ITER_FIRST_IS_FOLIO] = first == folio;
	bpf_iter_cache_ext_list_destroy(&it);

	bpf_iter_cache_ext_list_new(&it, memcg, 99, 8);
	results[R_ITER_BAD_LIST] = !bpf_iter_cache_ext_list_next(&it);
	bpf_iter_cache_ext_list_destroy(&it);

	results[R_DEL] = bpf_cache_ext_list_del(memcg, folio);
	results[R_DEL_AGAIN] = bpf_cache_ext_list_del(memcg, folio);
	results[R_MOVE_UNLINKED] = bpf_cache_ext_list_move(memcg, 0, folio,
							   CACHE_EXT_HEAD);
	results[R_SIZE_1_EMPTY] = bpf_cache_ext_list_size(memcg, 1);
	results[R_DONE] = 1;
}

void CACHE_EXT_OP(misuse_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	if (__sync_val_compare_and_swap(&evict_claimed, 0, 1))
		return;
	results[R_PLIST_BAD_LIST] = bpf_cache_ext_propose_list(req, memcg, 99, 8);
	/* List 2 stays empty: folio_added only ever uses 0 and 1. */
	results[R_PLIST_EMPTY] = bpf_cache_ext_propose_list(req, memcg, 2, 8);
	results[R_PLIST_NOTHING] = bpf_cache_ext_propose_list(req, memcg, 0, 0);
	results[R_PLIST_DONE] = 1;
}

SEC(".struct_ops.link")
struct cache_ext_ops list_misuse = {
	.init		= (void *)misuse_init,
	.folio_added	= (void *)misuse_added,
	.evict_folios	= (void *)misuse_evict,
	.name		= "list_misuse",
};
