// SPDX-License-Identifier: GPL-2.0
/*
 * count_events: counts the page cache events a bound cgroup produces, per
 * (cgroup, inode), and tracks nothing else.  It proposes no eviction
 * candidates, so the kernel's own LRU keeps evicting.
 *
 * It is the first-contact policy: the selftests use it to check that
 * every hook fires exactly once per folio event, and only for bound
 * cgroups; `make run` uses it to show the events of a small workload.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

struct event_key {
	u64 cgroup_id;
	u64 ino;
};

struct event_counts {
	u64 added;
	u64 accessed;
	u64 removed;
	u64 mapped;	/* folio_mapped_accessed() reports */
	u64 prefetched;	/* folios added that readahead brought in */
	/* Accesses of folios still prefetched: the kernel clears it first. */
	u64 accessed_prefetched;
};

/* Sized for the tests and the demo; full means later inodes go uncounted. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct event_key);
	__type(value, struct event_counts);
} counts SEC(".maps");

/* Lifecycle and overflow counters, read by the tests. */
__u64 nr_init, nr_exit, nr_dropped;

static struct event_counts *counts_of(struct folio *folio,
				      struct mem_cgroup *memcg)
{
	struct event_key key = {
		.cgroup_id = cache_ext_memcg_id(memcg),
		.ino = cache_ext_folio_ino(folio),
	};
	struct event_counts zero = {}, *c;

	c = bpf_map_lookup_elem(&counts, &key);
	if (!c) {
		bpf_map_update_elem(&counts, &key, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&counts, &key);
		if (!c)
			__sync_fetch_and_add(&nr_dropped, 1);
	}
	return c;
}

s32 CACHE_EXT_OP_SLEEPABLE(count_init, struct mem_cgroup *memcg)
{
	__sync_fetch_and_add(&nr_init, 1);
	return 0;
}

void CACHE_EXT_OP_SLEEPABLE(count_exit, struct mem_cgroup *memcg)
{
	__sync_fetch_and_add(&nr_exit, 1);
}

void CACHE_EXT_OP(count_added, struct folio *folio, struct mem_cgroup *memcg)
{
	struct event_counts *c = counts_of(folio, memcg);

	if (!c)
		return;
	__sync_fetch_and_add(&c->added, 1);
	if (bpf_cache_ext_folio_prefetched(folio) > 0)
		__sync_fetch_and_add(&c->prefetched, 1);
}

void CACHE_EXT_OP(count_accessed, struct folio *folio,
		  struct mem_cgroup *memcg)
{
	struct event_counts *c = counts_of(folio, memcg);

	if (!c)
		return;
	__sync_fetch_and_add(&c->accessed, 1);
	if (bpf_cache_ext_folio_prefetched(folio) > 0)
		__sync_fetch_and_add(&c->accessed_prefetched, 1);
}

void CACHE_EXT_OP(count_removed, struct folio *folio,
		  struct mem_cgroup *memcg)
{
	struct event_counts *c = counts_of(folio, memcg);

	if (c)
		__sync_fetch_and_add(&c->removed, 1);
}

void CACHE_EXT_OP(count_mapped_accessed, struct folio *folio,
		  struct mem_cgroup *memcg, u32 nr_ptes)
{
	struct event_counts *c = counts_of(folio, memcg);

	if (c)
		__sync_fetch_and_add(&c->mapped, 1);
}

SEC(".struct_ops.link")
struct cache_ext_ops count_events = {
	.init		= (void *)count_init,
	.exit		= (void *)count_exit,
	.folio_added	= (void *)count_added,
	.folio_accessed	= (void *)count_accessed,
	.folio_removed	= (void *)count_removed,
	.folio_mapped_accessed = (void *)count_mapped_accessed,
	.name		= "count_events",
};
