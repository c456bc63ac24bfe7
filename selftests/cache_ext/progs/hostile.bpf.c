// SPDX-License-Identifier: GPL-2.0
/*
 * Misbehaving policies for the ejection selftests.  Each struct_ops map is
 * one kind of misbehaviour; a test attaches only the one it exercises.
 * All of them track folios on one FIFO list so that they have candidates.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

/* How long hostile_spin spins in evict_folios(). */
const volatile __u64 spin_ns = 500000000;
/* What hostile_init's init() returns. */
const volatile int init_error = -EPERM;

__u64 nr_evict_calls, nr_rejected;

s32 CACHE_EXT_OP(list_init, struct mem_cgroup *memcg)
{
	return bpf_cache_ext_list_create(memcg) == 0 ? 0 : -EINVAL;
}

void CACHE_EXT_OP(list_added, struct folio *folio, struct mem_cgroup *memcg)
{
	bpf_cache_ext_list_add(memcg, 0, folio, CACHE_EXT_TAIL);
}

/* Proposes everything it sees, past the requested count. */
void CACHE_EXT_OP(too_many_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct folio *folio;

	__sync_fetch_and_add(&nr_evict_calls, 1);
	for_each_list_folio(folio, memcg, 0, CACHE_EXT_MAX_BATCH + 8) {
		if (bpf_cache_ext_propose(req, folio))
			__sync_fetch_and_add(&nr_rejected, 1);
	}
}

/* Proposes every candidate twice. */
void CACHE_EXT_OP(dup_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct folio *folio;

	__sync_fetch_and_add(&nr_evict_calls, 1);
	for_each_list_folio(folio, memcg, 0, req->nr_requested) {
		/* Leave room for the duplicate: this is not about too many. */
		if (req->nr_proposed + 1 >= req->nr_requested)
			break;
		bpf_cache_ext_propose(req, folio);
		if (bpf_cache_ext_propose(req, folio))
			__sync_fetch_and_add(&nr_rejected, 1);
	}
}

/* Spins (a bounded loop) well past the eviction time budget. */
void CACHE_EXT_OP(spin_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	u64 start = bpf_ktime_get_ns();
	int i;

	__sync_fetch_and_add(&nr_evict_calls, 1);
	bpf_for(i, 0, 1 << 23) {
		if (bpf_ktime_get_ns() - start > spin_ns)
			break;
	}
}

s32 CACHE_EXT_OP(failing_init, struct mem_cgroup *memcg)
{
	return init_error;
}

SEC(".struct_ops.link")
struct cache_ext_ops hostile_many = {
	.init		= (void *)list_init,
	.folio_added	= (void *)list_added,
	.evict_folios	= (void *)too_many_evict,
	.name		= "hostile_many",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_dup = {
	.init		= (void *)list_init,
	.folio_added	= (void *)list_added,
	.evict_folios	= (void *)dup_evict,
	.name		= "hostile_dup",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_spin = {
	.init		= (void *)list_init,
	.folio_added	= (void *)list_added,
	.evict_folios	= (void *)spin_evict,
	.name		= "hostile_spin",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_init = {
	.init		= (void *)failing_init,
	.name		= "hostile_init",
};
