// SPDX-License-Identifier: GPL-2.0
/*
 * mglru: the kernel's multi-generational LRU (mm/vmscan.c), ported to
 * cache_ext lists, for file pages read through file descriptors.
 *
 * Generations: up to four lists, one per sequence number between min_seq
 * (oldest) and max_seq (youngest), list id = seq % 4.  New folios enter the
 * second oldest generation; eviction takes from the oldest; when it is
 * empty min_seq advances, and when fewer than three generations remain a
 * new youngest one is created (aging; with no page tables to walk there is
 * nothing else to age).
 *
 * Tiers: accesses through file descriptors do not move folios between
 * generations; they raise the folio's reference count (the first use
 * sets a flag, as PG_referenced; later ones count, up to MAX_REFS as
 * LRU_REFS_WIDTH allows), and its tier is order_base_2(refs + 1), 0..3.
 * As the kernel counts them in the folio's flags without its LRU lock,
 * the kernel counts them here without calling the policy
 * (CACHE_EXT_OPS_COUNT_REFS); eviction folds them in when it looks at
 * the folio (mg_take_uses()).  A folio's ghost entry therefore has the
 * refs of that last look, which for a folio it evicts is the moment it
 * proposed it.
 *
 * Refaults: an evicted folio leaves a ghost entry (its refs, and min_seq
 * at eviction).  A folio read again before min_seq moves on is a refault
 * of its tier (lru_gen_test_recent()).  As in the kernel it enters the
 * second oldest generation like any new folio; one that had been used
 * often (refs >= MAX_REFS - 1) gets its refs back at the maximum, so that
 * it is protected once when it next reaches the oldest generation.
 *
 * Protection (the PID controller): per tier, refaults and evictions (plus
 * protections) are counted for the current generation and averaged over
 * the past ones.  Tier 0 is the set point; a higher tier whose refault
 * rate exceeds tier 0's (with gain 2 for the upper tiers, as the kernel's
 * positive_ctrl_err()) is protected, and so is a folio at MAX_REFS: it
 * moves to the next generation with its references cleared (the kernel's
 * folio_inc_gen()), instead of being evicted.
 *
 * Busy folios (in a CPU's LRU batch, locked) are not proposed; when only
 * they are left in the oldest generation, they move to the next one, as
 * the kernel's inc_min_seq() moves the rest of the oldest generation when
 * aging needs its slot.  Left there, a folio stranded in another CPU's
 * batch held min_seq back: the port proposed nothing and reclaim fell
 * back to the kernel's LRU for a fifth to half of the evictions (3,464 to
 * 8,151 pages of 12,000 in test_fidelity's zipf run, where the simulator,
 * which has no busy folios, fell back for 25-52), and the kernel read
 * 1.5-6% less than the simulated port.
 *
 * Per-cgroup state is keyed by cgroup.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

#define NR_GENS		4
#define MIN_NR_GENS	2
#define NR_TIERS	4
#define NR_HIST		2
#define MAX_REFS	4	/* BIT(LRU_REFS_WIDTH): the kernel's most */
#define MIN_LRU_BATCH	64

/* Per-folio state (the folio's 4 bytes in the registry). */
struct mg_folio {
	u8 used;	/* first use seen */
	u8 refs;	/* uses after the first, <= MAX_REFS */
};

struct mg_ghost {
	u64 seq;	/* min_seq when evicted */
	u32 refs;
};

struct mg_cgroup {
	u64 min_seq, max_seq;
	u64 avg_refaulted[NR_TIERS], avg_total[NR_TIERS];
	u64 refaulted[NR_HIST][NR_TIERS];
	u64 evicted[NR_HIST][NR_TIERS];
	u64 protected[NR_HIST][NR_TIERS];
};

CACHE_EXT_CGROUP_MAP(mg_cgroups, struct mg_cgroup);

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CACHE_EXT_MAX_FOLIOS);
	__type(key, struct cache_ext_page_key);
	__type(value, struct mg_ghost);
} mg_ghosts SEC(".maps");

static struct mg_cgroup zero_cgroup;

u64 nr_refaults, nr_protected, nr_aging, nr_min_seq_inc, nr_busy_moved;

static u32 tier_of(u32 refs)
{
	/* order_base_2(refs + 1) for refs <= MAX_REFS */
	return refs == 0 ? 0 : refs == 1 ? 1 : refs <= 3 ? 2 : 3;
}

static struct mg_cgroup *cgroup_of(struct mem_cgroup *memcg)
{
	u64 id = cache_ext_memcg_id(memcg);

	return bpf_map_lookup_elem(&mg_cgroups, &id);
}

s32 CACHE_EXT_OP_SLEEPABLE(mglru_init, struct mem_cgroup *memcg)
{
	u64 id = cache_ext_memcg_id(memcg);
	struct mg_cgroup *cg;
	int i;

	for (i = 0; i < NR_GENS; i++)
		if (bpf_cache_ext_list_create(memcg) != i)
			return -EINVAL;
	if (bpf_map_update_elem(&mg_cgroups, &id, &zero_cgroup, BPF_ANY))
		return -ENOMEM;
	cg = bpf_map_lookup_elem(&mg_cgroups, &id);
	if (!cg)
		return -ENOMEM;
	cg->min_seq = 0;
	cg->max_seq = MIN_NR_GENS;	/* three generations: 0, 1, 2 */
	return 0;
}

void CACHE_EXT_OP_SLEEPABLE(mglru_exit, struct mem_cgroup *memcg)
{
	u64 id = cache_ext_memcg_id(memcg);

	bpf_map_delete_elem(&mg_cgroups, &id);
}

void CACHE_EXT_OP(mglru_added, struct folio *folio, struct mem_cgroup *memcg)
{
	struct mg_cgroup *cg = cgroup_of(memcg);
	struct mg_folio *st = cache_ext_folio_state(folio, struct mg_folio);
	struct cache_ext_page_key page;
	struct mg_ghost *ghost;
	u64 seq;

	if (!cg)
		return;
	seq = cg->min_seq + 1;
	if (st) {
		st->used = 0;
		st->refs = 0;
	}
	cache_ext_page_key(&page, folio, memcg);
	ghost = bpf_map_lookup_elem(&mg_ghosts, &page);
	if (ghost) {
		/* Evicted from the current oldest generation: a refault. */
		if (ghost->seq == cg->min_seq) {
			u32 tier = tier_of(ghost->refs) & (NR_TIERS - 1);

			__sync_fetch_and_add(&cg->refaulted[cg->min_seq % NR_HIST][tier], 1);
			__sync_fetch_and_add(&nr_refaults, 1);
			if (st && ghost->refs >= MAX_REFS - 1) {
				st->used = 1;
				st->refs = MAX_REFS;
			}
		}
		bpf_map_delete_elem(&mg_ghosts, &page);
	}
	bpf_cache_ext_list_add(memcg, seq % NR_GENS, folio, CACHE_EXT_TAIL);
}

/* The uses the kernel counted since the last look: a flag, then refs. */
static __always_inline void mg_take_uses(struct folio *folio,
					 struct mg_folio *st)
{
	int uses = bpf_cache_ext_folio_take_refs(folio);

	if (uses > 0)
		cache_ext_note_uses(&st->used, &st->refs, uses, MAX_REFS);
}

void CACHE_EXT_OP(mglru_removed, struct folio *folio, struct mem_cgroup *memcg)
{
	struct mg_cgroup *cg = cgroup_of(memcg);
	struct mg_folio *st = cache_ext_folio_state(folio, struct mg_folio);
	struct cache_ext_page_key page;
	struct mg_ghost ghost;

	if (cg && st) {
		ghost.refs = st->refs;
		ghost.seq = cg->min_seq;
		__sync_fetch_and_add(&cg->evicted[cg->min_seq % NR_HIST]
						 [tier_of(st->refs) & (NR_TIERS - 1)], 1);
		cache_ext_page_key(&page, folio, memcg);
		bpf_map_update_elem(&mg_ghosts, &page, &ghost, BPF_ANY);
	}
}

/* The kernel's read_ctrl_pos(): refaults and total of a tier. */
struct mg_ctrl_pos {
	u64 refaulted, total;
	u32 gain;
};

static void read_ctrl_pos(struct mg_cgroup *cg, u32 tier, u32 gain,
			  struct mg_ctrl_pos *pos)
{
	u32 hist = cg->min_seq % NR_HIST;

	tier &= NR_TIERS - 1;
	pos->refaulted = cg->avg_refaulted[tier] + cg->refaulted[hist][tier];
	pos->total = cg->avg_total[tier] + cg->evicted[hist][tier] +
		     cg->protected[hist][tier];
	pos->gain = gain;
}

static bool positive_ctrl_err(struct mg_ctrl_pos *sp, struct mg_ctrl_pos *pv)
{
	return pv->refaulted < MIN_LRU_BATCH ||
	       pv->refaulted * (sp->total + MIN_LRU_BATCH) * sp->gain <=
	       (sp->refaulted + 1) * pv->total * pv->gain;
}

/* Tiers above the returned one are protected. */
static u32 get_tier_idx(struct mg_cgroup *cg)
{
	struct mg_ctrl_pos sp, pv;
	u32 tier;

	read_ctrl_pos(cg, 0, 1, &sp);
	for (tier = 1; tier < NR_TIERS; tier++) {
		read_ctrl_pos(cg, tier, 2, &pv);
		if (!positive_ctrl_err(&sp, &pv))
			break;
	}
	return tier - 1;
}

/* The oldest generation is empty: retire it, folding its counts in. */
static void inc_min_seq(struct mg_cgroup *cg)
{
	u32 old = cg->min_seq % NR_HIST, new = (cg->min_seq + 1) % NR_HIST;
	u32 tier;

	for (tier = 0; tier < NR_TIERS; tier++) {
		cg->avg_refaulted[tier] = (cg->avg_refaulted[tier] +
					   cg->refaulted[old][tier]) / 2;
		cg->avg_total[tier] = (cg->avg_total[tier] +
				       cg->evicted[old][tier] +
				       cg->protected[old][tier]) / 2;
		cg->refaulted[new][tier] = 0;
		cg->evicted[new][tier] = 0;
		cg->protected[new][tier] = 0;
	}
	cg->min_seq++;
	__sync_fetch_and_add(&nr_min_seq_inc, 1);
}

void CACHE_EXT_OP(mglru_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct mg_cgroup *cg = cgroup_of(memcg);
	struct folio *folio;
	u32 tier_idx, round, busy;

	if (!cg)
		return;
	for (round = 0; round < NR_GENS; round++) {
		u32 list = cg->min_seq % NR_GENS, next = (cg->min_seq + 1) % NR_GENS;
		s64 size = bpf_cache_ext_list_size(memcg, list);
		u32 budget = size > 0 ? (size < 1024 ? size : 1024) : 0;

		/* Aging: keep at least three generations. */
		if (cg->max_seq - cg->min_seq < MIN_NR_GENS) {
			cg->max_seq++;
			__sync_fetch_and_add(&nr_aging, 1);
		}
		if (!size) {
			inc_min_seq(cg);
			continue;
		}
		tier_idx = get_tier_idx(cg);
		busy = 0;
		for_each_list_folio(folio, memcg, list, budget) {
			struct mg_folio *st;
			u32 tier;

			if (req->nr_proposed >= req->nr_requested)
				break;
			st = cache_ext_folio_state(folio, struct mg_folio);
			if (st)
				mg_take_uses(folio, st);
			tier = st ? tier_of(st->refs) : 0;
			if (st && (tier > tier_idx || st->refs == MAX_REFS)) {
				__sync_fetch_and_add(&cg->protected[cg->min_seq % NR_HIST]
								   [tier & (NR_TIERS - 1)], 1);
				__sync_fetch_and_add(&nr_protected, 1);
				st->used = 0;
				st->refs = 0;
				bpf_cache_ext_list_move(memcg, next, folio, CACHE_EXT_TAIL);
				continue;
			}
			if (bpf_cache_ext_folio_busy(folio))
				busy++;
			else
				bpf_cache_ext_propose(req, folio);
		}
		if (req->nr_proposed >= req->nr_requested)
			break;
		size = bpf_cache_ext_list_size(memcg, list);
		if (size > busy)
			break;
		/*
		 * All protected, or busy: folios reclaim cannot take now (in
		 * another CPU's LRU batch, locked) would hold min_seq back,
		 * and with it every eviction, until they are released.  They
		 * go on with the next generation, as the kernel's
		 * inc_min_seq() moves what is left of the oldest generation
		 * when aging needs its slot; the next generation is the
		 * oldest.
		 */
		for_each_list_folio(folio, memcg, list, busy)
			bpf_cache_ext_list_move(memcg, next, folio, CACHE_EXT_TAIL);
		__sync_fetch_and_add(&nr_busy_moved, busy);
		if (bpf_cache_ext_list_size(memcg, list) == 0)
			inc_min_seq(cg);
		else
			break;
	}
}

SEC(".struct_ops.link")
struct cache_ext_ops mglru = {
	.init		= (void *)mglru_init,
	.exit		= (void *)mglru_exit,
	.folio_added	= (void *)mglru_added,
	.folio_removed	= (void *)mglru_removed,
	.evict_folios	= (void *)mglru_evict,
	.flags		= CACHE_EXT_OPS_COUNT_REFS,
	.name		= "mglru",
};
