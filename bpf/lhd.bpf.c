// SPDX-License-Identifier: GPL-2.0
/*
 * lhd: Least Hit Density (Beckmann et al., NSDI 2018), in scaled integers.
 *
 * A folio's value is its expected hits per unit of cache space-time: the
 * hit density of its class at its age.  Folios are grouped into classes by
 * how often they were hit (0, 1, 2, 3+ hits; the read that brought a
 * folio in, which the kernel reports as its first access, is no hit) and
 * ages are counted in coarse ticks of the cgroup's access clock since the
 * folio's last access.  Every hit and every eviction
 * is counted at the age it happened in its class (per CPU: see struct
 * lhd_local, so that a hit writes nothing another CPU writes, only its
 * own folio's state and its CPU's counts); from those histograms
 * the reconfiguration computes, for each class and age a,
 *
 *   density(a) = hits at ages >= a / sum over ages >= a of events beyond
 *
 * (expected hits over expected remaining lifetime), decays the histograms
 * (EWMA, 7/8, rounded so that counts do decay to zero), and re-chooses the
 * age tick so that a full turnover of the cache spans NR_AGES / 16 ticks:
 * ages reach 8-16 turnovers.  A folio at the oldest age has density 0, as
 * in LHD: without it, hits of the few folios that grow old make old age
 * look valuable, and then more folios grow old.  Eviction samples
 * sample_per_candidate folios per candidate of a full batch (as lfu: the
 * classic LRU may ask for a single folio) from the head of the list,
 * scores each with its density and lets the kernel evict the lowest
 * (batch scoring); sampled folios rotate to the tail.
 *
 * A folio's state is its 4 bytes of per-folio state: its class (hits,
 * saturated at 3), whether its first read was seen, and the low 29 bits
 * of the clock at its last access, so ages are right up to 2^29
 * accesses, far beyond the oldest age class.
 *
 * The reconfiguration runs on the cgroup's own clock, as LHD reconfigures
 * after a number of accesses: when the clock has advanced by
 * reconfigure_pct percent of the folios the cgroup holds (at least
 * RECONFIGURE_MIN ticks) since the last one, the access or insertion that
 * gets there reconfigures the cgroup (a few hundred additions and 64
 * divisions, once per period; one CPU does it, the others go on).  The
 * decisions are then the same for the same sequence of accesses however
 * fast they come, in the kernel and in cachesim, and nothing depends on a
 * timer or on the loader: a BPF timer dies with its map's last user
 * reference, and wall-clock periods span ten times fewer accesses under
 * emulation than on hardware.  lhd_reconfigure, a BPF_PROG_TYPE_SYSCALL
 * program, reconfigures every cgroup from user space (bpf_prog_test_run,
 * cachesim -e), as with reconfigure_pct=0 only it does.  Per-cgroup state
 * is keyed by cgroup.  Knobs: sample_per_candidate (1..32),
 * reconfigure_pct (0..10000; default 100: once per turnover of the cache).
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

#define LHD_LIST	0
#define NR_CLASSES	4
#define NR_AGES		64
#define DENSITY_SHIFT	24	/* density fixed point */

const volatile u32 sample_per_candidate = 8;
const volatile u32 reconfigure_pct = 100;

/* The shortest period, in clock ticks: a small cgroup has data to learn. */
#define RECONFIGURE_MIN	1024

#define STAMP_BITS	29
#define STAMP_SHIFT	3
#define STAMP_MASK	((1U << STAMP_BITS) - 1)
#define STATE_USED	(1U << 2)
#define STATE_CLASS	(NR_CLASSES - 1)

/* Per-folio state: clock at the last access << 3 | used << 2 | class. */
static u32 folio_state(u64 clock, u32 used, u32 class)
{
	return (u32)(clock & STAMP_MASK) << STAMP_SHIFT | used | class;
}

struct lhd_cgroup {
	u64 clock;		/* accesses and insertions so far */
	u64 nr_folios;		/* tracked folios */
	u64 next_reconfig;	/* the clock of the next reconfiguration */
	u32 age_shift;		/* one age tick = 2^age_shift clock ticks */
	u32 reconfigs;
	u32 slot;		/* its entry of lhd_locals */
	u32 hits[NR_CLASSES][NR_AGES];
	u32 evictions[NR_CLASSES][NR_AGES];
	u32 density[NR_CLASSES][NR_AGES];
};

CACHE_EXT_CGROUP_MAP(lhd_cgroups, struct lhd_cgroup);

/*
 * What an access, insertion or removal writes, per CPU and cgroup, so
 * that no hit writes a cacheline another CPU writes: the clock ticks this
 * CPU took that the cgroup's clock does not count yet (fewer than
 * CLOCK_BATCH), and the hits and evictions counted here since the last
 * reconfiguration, which folds them into the cgroup's histograms.
 */
struct lhd_local {
	u32 ticks;
	u32 hits[NR_CLASSES][NR_AGES];
	u32 evictions[NR_CLASSES][NR_AGES];
};

/*
 * Indexed by the cgroup's slot (&lhd_cgroup.slot): an array, whose lookup
 * the verifier inlines, rather than a second hash lookup on every hit.
 */
#define NR_SLOTS	64	/* as many as lhd_cgroups holds */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NR_SLOTS);
	__type(key, u32);
	__type(value, struct lhd_local);
} lhd_locals SEC(".maps");

/* The slots of lhd_locals in use, a bit each. */
u64 slots_used;

/* A CPU adds its ticks to the cgroup's clock this many at a time. */
#define CLOCK_BATCH	64
/* The CPUs whose counts a reconfiguration folds in, at most. */
#define MAX_CPUS	4096

/* New per-cgroup entries are copied from this (too big for the stack). */
static struct lhd_cgroup zero_cgroup;

u64 nr_reconfigs;

/* The class of a folio of class @class just hit. */
static u32 class_after_hit(u32 class)
{
	return class + 1 < NR_CLASSES ? class + 1 : NR_CLASSES - 1;
}

/*
 * The clock as this CPU sees it: the cgroup's, plus the ticks this CPU
 * took that it does not count yet.  Behind the true count by the other
 * CPUs' pending ticks, fewer than CLOCK_BATCH each: far less than an age
 * tick (a turnover of the cache is NR_AGES / 16 of them), but a folio
 * another CPU stamped just now may be ahead of it (age_of()).  On one
 * CPU, and in cachesim, it is the true count.
 */
static u64 clock_now(struct lhd_cgroup *cg, struct lhd_local *loc)
{
	return cg->clock + loc->ticks;
}

/*
 * Take a tick of the clock for an access or insertion; returns its value.
 * Two calls on one CPU may interleave (a call is preemptible), so that
 * one's increment lands after the other's reset: flush at CLOCK_BATCH or
 * more, or the CPU's ticks would pass the batch and never be flushed.
 */
static u64 clock_tick(struct lhd_cgroup *cg, struct lhd_local *loc)
{
	u64 clock = clock_now(cg, loc);
	u32 ticks = ++loc->ticks;

	if (ticks >= CLOCK_BATCH) {
		__sync_fetch_and_add(&cg->clock, ticks);
		loc->ticks = 0;
	}
	return clock;
}

/*
 * Age class, at clock @now, of a folio whose state is @st.  A stamp ahead
 * of @now is a folio accessed moments ago on a CPU whose pending ticks
 * were more than this CPU's (clock_now()): age 0.  Taken modulo the
 * stamp's bits, its negative age would be the largest, the oldest class,
 * whose density is 0: another CPU's newest folios would be evicted first,
 * and hits counted at the oldest age.
 */
static u32 age_of(struct lhd_cgroup *cg, u64 now, u32 st)
{
	u32 shift = cg->age_shift & 31;
	u32 ticks = ((u32)now - (st >> STAMP_SHIFT)) & STAMP_MASK;
	u32 age;

	if (ticks > STAMP_MASK / 2)
		ticks = 0;
	age = ticks >> shift;
	if (age >= NR_AGES)
		age = NR_AGES - 1;
	/* Keep the mask: the verifier must see the index bounded. */
	barrier_var(age);
	return age & (NR_AGES - 1);
}

/* Before the first reconfiguration: younger is denser (LRU-like). */
static void lhd_cgroup_reset(struct lhd_cgroup *cg)
{
	u32 c, a;

	cg->age_shift = 6;
	cg->next_reconfig = RECONFIGURE_MIN;
	for (c = 0; c < NR_CLASSES; c++)
		for (a = 0; a < NR_AGES; a++)
			cg->density[c][a] = (NR_AGES - a) << 8;
}

/* This CPU's counts of @cg. */
static struct lhd_local *local_of(struct lhd_cgroup *cg)
{
	u32 slot = cg->slot;

	return bpf_map_lookup_elem(&lhd_locals, &slot);
}

struct fold_ctx {
	struct lhd_cgroup *cg;
	u32 slot;
};

/*
 * Move CPU @cpu's hits and evictions of slot @ctx->slot into the
 * histograms of @ctx->cg, or, without a cgroup, clear that CPU's counts.
 */
static long fold_cpu(u64 cpu, struct fold_ctx *ctx)
{
	struct lhd_cgroup *cg = ctx->cg;
	struct lhd_local *loc;
	u32 c, a;

	loc = bpf_map_lookup_percpu_elem(&lhd_locals, &ctx->slot, cpu);
	if (!loc)
		return 1;	/* past the last CPU */
	if (!cg)
		loc->ticks = 0;
	for (c = 0; c < NR_CLASSES; c++) {
		for (a = 0; a < NR_AGES; a++) {
			if (cg) {
				cg->hits[c][a] += loc->hits[c][a];
				cg->evictions[c][a] += loc->evictions[c][a];
			}
			loc->hits[c][a] = 0;
			loc->evictions[c][a] = 0;
		}
	}
	return 0;
}

/*
 * New densities from @cg's histograms, which decay; a new age tick.  The
 * counts the CPUs kept since the last time are folded in first; one that
 * a CPU adds while it is read may be lost, as any sample.
 */
static void reconfigure(struct lhd_cgroup *cg)
{
	struct fold_ctx ctx = { .cg = cg, .slot = cg->slot };
	u64 turnover = cg->nr_folios ? cg->nr_folios : 1;
	u32 c, shift = 0;
	int a;

	bpf_loop(MAX_CPUS, fold_cpu, &ctx, 0);
	for (c = 0; c < NR_CLASSES; c++) {
		u64 hits = 0, events = 0, lifetime = 0;

		for (a = NR_AGES - 1; a >= 0; a--) {
			hits += cg->hits[c][a];
			events += cg->hits[c][a] + cg->evictions[c][a];
			lifetime += events;
			/* The oldest age goes first, as in LHD. */
			cg->density[c][a] = lifetime && a < NR_AGES - 1 ?
				(hits << DENSITY_SHIFT) / lifetime : 0;
			cg->hits[c][a] -= (cg->hits[c][a] + 7) >> 3;
			cg->evictions[c][a] -= (cg->evictions[c][a] + 7) >> 3;
		}
	}
	/* A turnover of the cache spans NR_AGES / 16 ticks. */
	while (shift < STAMP_BITS && (turnover >> shift) > NR_AGES / 16)
		shift++;
	cg->age_shift = shift;
	cg->reconfigs++;
	__sync_fetch_and_add(&nr_reconfigs, 1);
}

static long reconfigure_one(struct bpf_map *map, u64 *id,
			    struct lhd_cgroup *cg, void *unused)
{
	reconfigure(cg);
	return 0;
}

static void reconfigure_all(void)
{
	bpf_for_each_map_elem(&lhd_cgroups, reconfigure_one, NULL, 0);
}

/* Run from user space: bpf_prog_test_run_opts() on this program. */
SEC("syscall")
int lhd_reconfigure(void *ctx)
{
	reconfigure_all();
	return 0;
}

/*
 * Called with the clock value an access or insertion took: reconfigures
 * @cg if its period is over.  Of the CPUs that see it over, the one whose
 * compare-and-exchange moves next_reconfig on does it.
 */
static void maybe_reconfigure(struct lhd_cgroup *cg, u64 clock)
{
	u64 next = cg->next_reconfig, period;

	if (!reconfigure_pct || clock < next)
		return;
	period = cg->nr_folios * reconfigure_pct / 100;
	if (period < RECONFIGURE_MIN)
		period = RECONFIGURE_MIN;
	if (__sync_val_compare_and_swap(&cg->next_reconfig, next,
					clock + period) != next)
		return;
	reconfigure(cg);
}

/*
 * Take a free slot of lhd_locals for a new cgroup, its counts cleared on
 * every CPU; 0, or -1 if all NR_SLOTS are taken.
 */
static int slot_get(u32 *slot)
{
	struct fold_ctx ctx = {};
	u32 i, tries;

	/* Another init() may take a slot meanwhile: try again. */
	for (tries = 0; tries < 16; tries++) {
		u64 used = slots_used;

		for (i = 0; i < NR_SLOTS; i++)
			if (!(used & (1ULL << i)))
				break;
		if (i == NR_SLOTS)
			return -1;
		if (__sync_val_compare_and_swap(&slots_used, used,
						used | (1ULL << i)) != used)
			continue;
		*slot = i;
		ctx.slot = i;
		bpf_loop(MAX_CPUS, fold_cpu, &ctx, 0);
		return 0;
	}
	return -1;
}

s32 CACHE_EXT_OP(lhd_init, struct mem_cgroup *memcg)
{
	u64 id = cache_ext_memcg_id(memcg);
	struct lhd_cgroup *cg;

	if (sample_per_candidate < 1 || sample_per_candidate > 32 ||
	    reconfigure_pct > 10000)
		return -EINVAL;
	if (bpf_cache_ext_list_create(memcg) != LHD_LIST)
		return -EINVAL;
	if (bpf_map_update_elem(&lhd_cgroups, &id, &zero_cgroup, BPF_ANY))
		return -ENOMEM;
	cg = bpf_map_lookup_elem(&lhd_cgroups, &id);
	if (!cg)
		return -ENOMEM;
	if (slot_get(&cg->slot)) {
		bpf_map_delete_elem(&lhd_cgroups, &id);
		return -ENOSPC;
	}
	lhd_cgroup_reset(cg);
	return 0;
}

void CACHE_EXT_OP(lhd_exit, struct mem_cgroup *memcg)
{
	u64 id = cache_ext_memcg_id(memcg);
	struct lhd_cgroup *cg = bpf_map_lookup_elem(&lhd_cgroups, &id);

	if (cg)
		__sync_fetch_and_and(&slots_used, ~(1ULL << (cg->slot & 63)));
	bpf_map_delete_elem(&lhd_cgroups, &id);
}

void CACHE_EXT_OP(lhd_added, struct folio *folio, struct mem_cgroup *memcg)
{
	u64 id = cache_ext_memcg_id(memcg);
	struct lhd_cgroup *cg = bpf_map_lookup_elem(&lhd_cgroups, &id);
	struct lhd_local *loc = cg ? local_of(cg) : NULL;
	u32 *st = cache_ext_folio_state(folio, u32);
	u64 clock;

	if (!cg || !loc || !st)
		return;
	clock = clock_tick(cg, loc);
	*st = folio_state(clock, 0, 0);
	__sync_fetch_and_add(&cg->nr_folios, 1);
	maybe_reconfigure(cg, clock);
}

void CACHE_EXT_OP(lhd_accessed, struct folio *folio, struct mem_cgroup *memcg)
{
	u64 id = cache_ext_memcg_id(memcg);
	struct lhd_cgroup *cg = bpf_map_lookup_elem(&lhd_cgroups, &id);
	struct lhd_local *loc = cg ? local_of(cg) : NULL;
	u32 *st = cache_ext_folio_state(folio, u32);
	u64 clock;
	u32 c, a;

	if (!cg || !loc || !st)
		return;
	/* The read that brought the folio in is no hit. */
	if (!(*st & STATE_USED)) {
		*st |= STATE_USED;
		return;
	}
	c = *st & STATE_CLASS;
	a = age_of(cg, clock_now(cg, loc), *st) & (NR_AGES - 1);
	loc->hits[c][a]++;
	clock = clock_tick(cg, loc);
	*st = folio_state(clock, STATE_USED, class_after_hit(c));
	maybe_reconfigure(cg, clock);
}

void CACHE_EXT_OP(lhd_removed, struct folio *folio, struct mem_cgroup *memcg)
{
	u64 id = cache_ext_memcg_id(memcg);
	struct lhd_cgroup *cg = bpf_map_lookup_elem(&lhd_cgroups, &id);
	struct lhd_local *loc = cg ? local_of(cg) : NULL;
	u32 *st = cache_ext_folio_state(folio, u32);
	u32 c, a;

	if (cg && loc && st) {
		c = *st & STATE_CLASS;
		a = age_of(cg, clock_now(cg, loc), *st) & (NR_AGES - 1);
		loc->evictions[c][a]++;
		__sync_fetch_and_sub(&cg->nr_folios, 1);
	}
}

void CACHE_EXT_OP(lhd_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	u64 id = cache_ext_memcg_id(memcg);
	struct lhd_cgroup *cg = bpf_map_lookup_elem(&lhd_cgroups, &id);
	struct lhd_local *loc = cg ? local_of(cg) : NULL;
	s64 size = bpf_cache_ext_list_size(memcg, LHD_LIST);
	u32 sample = sample_per_candidate * CACHE_EXT_MAX_BATCH, seen = 0;
	struct folio *folio;
	u64 now;

	if (!cg || !loc)
		return;
	now = clock_now(cg, loc);
	if (size < sample)
		sample = size > 0 ? size : 0;
	for_each_list_folio(folio, memcg, LHD_LIST, sample) {
		u32 *st, density = 0;

		seen++;
		if (bpf_cache_ext_folio_busy(folio))
			continue;
		st = cache_ext_folio_state(folio, u32);
		if (st)
			density = cg->density[*st & STATE_CLASS]
					     [age_of(cg, now, *st) & (NR_AGES - 1)];
		bpf_cache_ext_propose_scored(req, folio, density);
	}
	bpf_cache_ext_list_rotate(memcg, LHD_LIST, seen);
}

SEC(".struct_ops.link")
struct cache_ext_ops lhd = {
	.init		= (void *)lhd_init,
	.exit		= (void *)lhd_exit,
	.folio_added	= (void *)lhd_added,
	.folio_accessed	= (void *)lhd_accessed,
	.folio_removed	= (void *)lhd_removed,
	.evict_folios	= (void *)lhd_evict,
	/* New folios at the tail of LHD_LIST, in the insertion's one lock hold. */
	.flags		= CACHE_EXT_OPS_ADD_TO_LIST,
	.name		= "lhd",
};
