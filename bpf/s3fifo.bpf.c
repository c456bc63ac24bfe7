// SPDX-License-Identifier: GPL-2.0
/*
 * s3fifo: S3-FIFO (Yang et al., SOSP 2023) - three static FIFO queues.
 *
 * New folios enter a small FIFO S, sized to small_percent (10%) of the
 * cgroup's folios; most one-hit wonders leave from there without
 * disturbing the main FIFO M.  A folio reused while in S moves to M when
 * it reaches the head of S; one that was not is evicted and remembered in
 * a ghost FIFO G of (device, inode, index), as many entries as M can hold
 * (90% of the cache).  A folio read again while its ghost entry is valid
 * is inserted straight into M.  M evicts in FIFO order but gives a folio
 * with hits another round (its count decremented: lazy promotion).  Hits
 * count accesses after the first use, capped at 3.  As S-3FIFO intends, a
 * hit does no queue work, and here it calls no BPF either: the kernel
 * counts each folio's uses (CACHE_EXT_OPS_COUNT_REFS) and the policy takes
 * them when the folio reaches the head of S or M (s3_take_uses()).
 *
 * Per-cgroup state (the ghost clock) is keyed by cgroup; ghost entries
 * carry their cgroup in the key.  Knobs: small_percent (1..50),
 * move_to_main_hits (1..3).
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

#define SMALL	0
#define MAIN	1
#define MAX_HITS 3

const volatile u32 small_percent = 10;
const volatile u32 move_to_main_hits = 1;

/* Per-folio state (the folio's 4 bytes in the registry). */
struct s3_folio {
	u8 queue;	/* SMALL or MAIN */
	u8 used;	/* first use seen */
	u8 hits;	/* accesses after the first use, <= MAX_HITS */
};

struct s3_cgroup {
	u64 ghost_clock;	/* ghost insertions so far */
};

CACHE_EXT_CGROUP_MAP(s3_cgroups, struct s3_cgroup);

/* Ghost FIFO: page -> ghost clock at insertion; older than |M| = gone. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CACHE_EXT_MAX_FOLIOS);
	__type(key, struct cache_ext_page_key);
	__type(value, u64);
} s3_ghosts SEC(".maps");

/* For tests and curious users. */
u64 nr_ghost_hits, nr_promoted, nr_reinserted;

s32 CACHE_EXT_OP_SLEEPABLE(s3fifo_init, struct mem_cgroup *memcg)
{
	struct s3_cgroup zero = {};
	u64 id = cache_ext_memcg_id(memcg);

	if (small_percent < 1 || small_percent > 50 ||
	    move_to_main_hits < 1 || move_to_main_hits > MAX_HITS)
		return -EINVAL;
	if (bpf_cache_ext_list_create(memcg) != SMALL ||
	    bpf_cache_ext_list_create(memcg) != MAIN)
		return -EINVAL;
	return bpf_map_update_elem(&s3_cgroups, &id, &zero, BPF_ANY);
}

void CACHE_EXT_OP_SLEEPABLE(s3fifo_exit, struct mem_cgroup *memcg)
{
	u64 id = cache_ext_memcg_id(memcg);

	bpf_map_delete_elem(&s3_cgroups, &id);
}

/* The ghost capacity: what M may hold, (100 - small_percent)% of all. */
static u64 ghost_capacity(struct mem_cgroup *memcg)
{
	s64 n = bpf_cache_ext_list_size(memcg, SMALL) +
		bpf_cache_ext_list_size(memcg, MAIN);

	return n > 0 ? n * (100 - small_percent) / 100 : 0;
}

void CACHE_EXT_OP(s3fifo_added, struct folio *folio, struct mem_cgroup *memcg)
{
	struct s3_folio *st = cache_ext_folio_state(folio, struct s3_folio);
	u64 id = cache_ext_memcg_id(memcg);
	struct cache_ext_page_key page;
	struct s3_cgroup *cg;
	u32 queue = SMALL;
	u64 *seen;

	cg = bpf_map_lookup_elem(&s3_cgroups, &id);
	cache_ext_page_key(&page, folio, memcg);
	seen = bpf_map_lookup_elem(&s3_ghosts, &page);
	if (seen && cg && cg->ghost_clock - *seen < ghost_capacity(memcg)) {
		queue = MAIN;
		__sync_fetch_and_add(&nr_ghost_hits, 1);
	}
	if (seen)
		bpf_map_delete_elem(&s3_ghosts, &page);
	if (st)
		st->queue = queue;
	bpf_cache_ext_list_add(memcg, queue, folio, CACHE_EXT_TAIL);
}

/* @uses uses of the folio: the first sets used, the rest count as hits. */
static __always_inline void s3_note_uses(struct s3_folio *st, u32 uses)
{
	cache_ext_note_uses(&st->used, &st->hits, uses, MAX_HITS);
}

/* The uses the kernel counted since the policy last looked at @folio. */
static __always_inline void s3_take_uses(struct folio *folio,
					 struct s3_folio *st)
{
	int refs = bpf_cache_ext_folio_take_refs(folio);

	if (refs > 0)
		s3_note_uses(st, refs);
}

/*
 * A use through a mapping is a use as above, with one addition for a
 * folio in S.  Reclaim never evicts a folio used through a mapping since
 * it last looked: it keeps the candidate and reports the use, here.  The
 * folio is then at the head of S, used once as far as s3fifo can tell (a
 * fault is not reported: the report says the folio was used, at least
 * once, since it was mapped or last looked at), and would be proposed
 * again at once, its bit just cleared, and evicted before its user comes
 * back.  So it is requeued at the tail of S: the second chance the
 * kernel's LRU gives a mapped folio it keeps.  Reused while in S, it then
 * moves to M at the head as any folio does.
 */
void CACHE_EXT_OP(s3fifo_mapped_accessed, struct folio *folio,
		  struct mem_cgroup *memcg, u32 nr_ptes)
{
	struct s3_folio *st = cache_ext_folio_state(folio, struct s3_folio);

	if (!st)
		return;
	s3_take_uses(folio, st);
	s3_note_uses(st, 1);
	if (st->queue == SMALL && st->hits < move_to_main_hits)
		bpf_cache_ext_list_move(memcg, SMALL, folio, CACHE_EXT_TAIL);
}

void CACHE_EXT_OP(s3fifo_removed, struct folio *folio, struct mem_cgroup *memcg)
{
	struct s3_folio *st = cache_ext_folio_state(folio, struct s3_folio);
	u64 id = cache_ext_memcg_id(memcg);
	struct cache_ext_page_key page;
	struct s3_cgroup *cg;

	/* Leaving from S: remember it in the ghost FIFO. */
	cg = bpf_map_lookup_elem(&s3_cgroups, &id);
	if (st && st->queue == SMALL && cg) {
		u64 clock = __sync_fetch_and_add(&cg->ghost_clock, 1);

		cache_ext_page_key(&page, folio, memcg);
		bpf_map_update_elem(&s3_ghosts, &page, &clock, BPF_ANY);
	}
}

static bool small_too_big(s64 small, s64 main)
{
	return small > 0 && small * 100 > (small + main) * small_percent;
}

void CACHE_EXT_OP(s3fifo_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	s64 small = bpf_cache_ext_list_size(memcg, SMALL);
	s64 main = bpf_cache_ext_list_size(memcg, MAIN);
	struct folio *folio;
	u32 budget;

	/* S first, while it holds more than its share (or M is empty). */
	budget = small > 0 ? (small < 1024 ? small : 1024) : 0;
	for_each_list_folio(folio, memcg, SMALL, budget) {
		struct s3_folio *st;

		if (req->nr_proposed >= req->nr_requested ||
		    (main > 0 && !small_too_big(small, main)))
			break;
		st = cache_ext_folio_state(folio, struct s3_folio);
		if (st)
			s3_take_uses(folio, st);
		if (st && st->hits >= move_to_main_hits) {
			st->queue = MAIN;
			st->hits = 0;
			bpf_cache_ext_list_move(memcg, MAIN, folio, CACHE_EXT_TAIL);
			small--;
			main++;
			__sync_fetch_and_add(&nr_promoted, 1);
			continue;
		}
		if (!bpf_cache_ext_folio_busy(folio))
			bpf_cache_ext_propose(req, folio);
	}

	/* Then M: FIFO with reinsertion; a moved folio is not seen twice. */
	budget = main > 0 ? (main < 1024 ? main : 1024) : 0;
	for_each_list_folio(folio, memcg, MAIN, budget) {
		struct s3_folio *st;

		if (req->nr_proposed >= req->nr_requested)
			break;
		st = cache_ext_folio_state(folio, struct s3_folio);
		if (st)
			s3_take_uses(folio, st);
		if (st && st->hits) {
			st->hits--;
			bpf_cache_ext_list_move(memcg, MAIN, folio, CACHE_EXT_TAIL);
			__sync_fetch_and_add(&nr_reinserted, 1);
			continue;
		}
		if (!bpf_cache_ext_folio_busy(folio))
			bpf_cache_ext_propose(req, folio);
	}
}

SEC(".struct_ops.link")
struct cache_ext_ops s3fifo = {
	.init		= (void *)s3fifo_init,
	.exit		= (void *)s3fifo_exit,
	.folio_added	= (void *)s3fifo_added,
	.folio_mapped_accessed = (void *)s3fifo_mapped_accessed,
	.folio_removed	= (void *)s3fifo_removed,
	.evict_folios	= (void *)s3fifo_evict,
	.flags		= CACHE_EXT_OPS_COUNT_REFS,
	.name		= "s3fifo",
};
