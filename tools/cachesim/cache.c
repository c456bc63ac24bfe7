// SPDX-License-Identifier: GPL-2.0
/*
 * The page cache of one memory cgroup, as cache_ext sees it: a miss
 * inserts a folio (admission asked for reads, then folio_added()), every
 * read or write of a cached page is an access (folio_accessed(), as
 * folio_mark_accessed() reports it, the first read of a new folio
 * included), and when the cgroup is at its size, reclaim evicts a batch:
 * the policy's evict_folios() proposes, the kernel evicts the candidates
 * (folio_removed() first) and its own LRU evicts any shortfall.
 *
 * A use through a mapping (SIM_MAPPED) faults a missing page in and
 * otherwise only sets the page-table bit: no folio_accessed().  Reclaim
 * looks at the bit of each candidate and of each folio its LRU would
 * evict, keeps the folio if it is set, and tells the policy
 * (folio_mapped_accessed()), as the classic LRU's reclaim does; MGLRU's
 * aging walk, which also reports folios that are not candidates, is not
 * modelled.
 *
 * Differences from the kernel, all on purpose: one thread; no folio is
 * ever busy (locked, dirty, under writeback); no readahead beyond what a
 * trace records (SIM_INSERT); the cgroup holds page cache only, so its
 * size is exactly cache_pages; a policy is ejected only for proposing more
 * than it was asked (the kernel also ejects for time overruns and an
 * error budget, which a simulation reports as counts instead).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "oracles.h"
#include "policy.h"
#include "record.h"

struct sim_cache *sim;

static u32 page_hash(u32 file, u64 index)
{
	return (u32)sim_mix64(index ^ ((u64)file << 44));
}

/* The registry slot of (@file, @index) or of the free place for it. */
static u32 registry_pos(u32 file, u64 index)
{
	u32 i;

	for (i = page_hash(file, index) & sim->table_mask; sim->table[i];
	     i = (i + 1) & sim->table_mask) {
		struct sim_folio *f = &sim->folios[sim->table[i] - 1];

		if (f->folio.index == index && f->file == file)
			break;
	}
	return i;
}

static struct sim_folio *registry_find(u32 file, u64 index)
{
	u32 e = sim->table[registry_pos(file, index)];

	return e ? &sim->folios[e - 1] : NULL;
}

/* Backward-shift deletion: no tombstones, probes stay short. */
static void registry_remove(struct sim_folio *f)
{
	u32 i = registry_pos(f->file, f->folio.index), j = i;

	for (;;) {
		u32 home;

		j = (j + 1) & sim->table_mask;
		if (!sim->table[j])
			break;
		home = page_hash(sim->folios[sim->table[j] - 1].file,
				 sim->folios[sim->table[j] - 1].folio.index) &
		       sim->table_mask;
		/* Move j back to i unless its home lies in (i, j]. */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			sim->table[i] = sim->table[j];
			i = j;
		}
	}
	sim->table[i] = 0;
}

struct sim_folio *sim_tracked(const struct folio *folio)
{
	const struct sim_folio *f = (const struct sim_folio *)folio;

	if (f < sim->folios || f >= sim->folios + sim->cap ||
	    (const char *)f != (const char *)&sim->folios[f - sim->folios] ||
	    !f->cached)
		return NULL;
	return (struct sim_folio *)f;
}

static void lru_unlink(u32 slot)
{
	struct sim_node *n = &sim->lru[slot];

	sim->lru[n->prev].next = n->next;
	sim->lru[n->next].prev = n->prev;
}

static void lru_add_tail(u32 slot)
{
	u32 head = sim->cap;

	sim->lru[slot].prev = sim->lru[head].prev;
	sim->lru[slot].next = head;
	sim->lru[sim->lru[head].prev].next = slot;
	sim->lru[head].prev = slot;
}

static void eject(const char *fmt, u32 a, u32 b)
{
	if (sim->res->ejected)
		return;
	sim->res->ejected = 1;
	snprintf(sim->res->eject_msg, sizeof(sim->res->eject_msg), fmt, a, b);
}

/* @f leaves the page cache: the policy hears first, as in the kernel. */
static void evict(struct sim_folio *f)
{
	const struct cache_ext_ops *ops = sim->ops;
	u32 slot = sim_slot(f);

	if (f->prefetched)
		sim->res->prefetch_evicted++;
	if (ops && ops->folio_removed && !sim->res->ejected) {
		sim->call_folio = f;
		sim->removing = f;
		ops->folio_removed(&f->folio, &sim->memcg);
		sim->removing = NULL;
		sim->call_folio = NULL;
	}
	sim_list_unlink(f);
	registry_remove(f);
	lru_unlink(slot);
	f->cached = false;
	f->folio.mapping = NULL;
	sim->free_next[slot] = sim->free_head;
	sim->free_head = slot;
	sim->nr_cached--;
}

static void folio_access(struct sim_folio *f);

/*
 * Reclaim looks at @f, used through a mapping since it last looked: it
 * clears the bit, tells the policy (folio_mapped_accessed(), or
 * folio_accessed() if the policy has none) and keeps @f, at the young end
 * of its LRU, as the kernel activates it.
 */
static void mapped_look(struct sim_folio *f)
{
	const struct cache_ext_ops *ops = sim->ops;
	u32 slot = sim_slot(f);

	f->young = false;
	f->prefetched = false;
	sim->res->mapped_accesses++;
	if (!ops || !ops->folio_mapped_accessed || sim->res->ejected) {
		folio_access(f);
		return;
	}
	lru_unlink(slot);
	lru_add_tail(slot);
	sim->call_folio = f;
	ops->folio_mapped_accessed(&f->folio, &sim->memcg, 1);
	sim->call_folio = NULL;
}

/*
 * Asks the policy for @want folios and evicts its candidates, but for
 * those used through a mapping since reclaim last looked (kept, and
 * reported).  Returns the folios evicted; *@kept gets the ones kept.
 */
static u32 reclaim_policy(u32 want, u32 *kept)
{
	const struct cache_ext_ops *ops = sim->ops;
	struct sim_result *res = sim->res;
	struct sim_evict_req req;
	u32 taken = 0, i;

	memset(&req, 0, sizeof(req));
	req.ctx.nr_requested = want;
	sim->req = &req;
	ops->evict_folios(&req.ctx, &sim->memcg);
	sim->req = NULL;
	sim->call_folio = NULL;
	res->evict_calls++;
	res->requested += want;
	res->proposed += req.proposed;
	if (req.too_many)
		eject("evict_folios() proposed %u folios, %u asked for",
		      req.proposed, want);
	*kept = 0;
	for (i = 0; i < req.ctx.nr_proposed; i++) {
		struct sim_folio *f = req.folios[i];

		if (!f->cached)
			continue;
		if (f->young) {
			mapped_look(f);
			res->mapped_kept++;
			(*kept)++;
			continue;
		}
		evict(f);
		taken++;
	}
	res->accepted += taken;
	return taken;
}

/*
 * Times a round asks the policy again after candidates were kept for
 * their mapped use, as the kernel's CACHE_EXT_REASK_KEPT (mm/vmscan.c).
 */
#define SIM_REASK_KEPT	64

/*
 * One reclaim round: @want folios, the policy's first.  As the kernel's
 * reclaim loop asks the policy again while it is short of its target, a
 * round asks again after candidates were kept for their mapped use (each
 * look clears the bit it kept them for, so the answer differs).  The
 * fallback LRU gives a folio used through a mapping a second chance.
 */
static void reclaim(u32 want)
{
	const struct cache_ext_ops *ops = sim->ops;
	u32 taken = 0, kept = 0, asks = 0;

	if (ops && ops->evict_folios) {
		do {
			if (sim->res->ejected)
				break;
			taken += reclaim_policy(want - taken, &kept);
		} while (taken < want && kept && ++asks < SIM_REASK_KEPT);
	}
	while (taken < want && sim->nr_cached) {
		struct sim_folio *f = &sim->folios[sim->lru[sim->cap].next];

		if (f->young) {
			mapped_look(f);
			continue;
		}
		evict(f);
		taken++;
		if (ops)
			sim->res->fallback++;
	}
}

/* A miss: cache the page.  *@admitted is what admit_folio() said. */
static struct sim_folio *insert(const struct sim_trace *t, u32 file,
				u64 index, enum sim_op op, u32 batch,
				bool *admitted)
{
	const struct cache_ext_ops *ops = sim->ops;
	struct sim_folio *f;
	u32 slot;

	if (sim->nr_cached >= sim->cap - CACHE_EXT_MAX_BATCH - 1)
		reclaim(batch < sim->nr_cached ? batch : sim->nr_cached);
	slot = sim->free_head;
	sim->free_head = sim->free_next[slot];
	f = &sim->folios[slot];
	f->folio.flags = (1UL << PG_uptodate) | (1UL << PG_lru);
	f->folio.mapping = &sim->mappings[file];
	f->folio.index = index;
	f->file = file;
	f->data = 0;
	f->list = SIM_NO_LIST;
	f->cached = true;
	f->young = false;
	f->prefetched = op == SIM_INSERT;
	f->refs = 0;
	sim->table[registry_pos(file, index)] = slot + 1;
	lru_add_tail(slot);
	sim->nr_cached++;
	sim->res->misses++;

	*admitted = true;
	if (!ops || sim->res->ejected)
		return f;
	if (ops->admit_folio && op == SIM_READ) {
		struct cache_ext_admit_ctx ctx = {
			.mapping = f->folio.mapping,
			.index = index,
			.nr_pages = 1,
		};

		*admitted = ops->admit_folio(&ctx, &sim->memcg);
	}
	if (ops->flags & CACHE_EXT_OPS_ADD_TO_LIST)
		sim_list_link(f, 0, true);
	if (ops->folio_added) {
		sim->call_folio = f;
		ops->folio_added(&f->folio, &sim->memcg);
		sim->call_folio = NULL;
	}
	return f;
}

static void folio_access(struct sim_folio *f)
{
	const struct cache_ext_ops *ops = sim->ops;
	u32 slot = sim_slot(f);

	lru_unlink(slot);
	lru_add_tail(slot);
	f->prefetched = false;
	/* Counted before folio_accessed(), as the kernel does. */
	if (ops && (ops->flags & CACHE_EXT_OPS_COUNT_REFS) &&
	    !sim->res->ejected && f->refs < CACHE_EXT_MAX_REFS)
		f->refs++;
	if (ops && ops->folio_accessed && !sim->res->ejected) {
		sim->call_folio = f;
		ops->folio_accessed(&f->folio, &sim->memcg);
		sim->call_folio = NULL;
	}
}

static int setup(const struct sim_trace *t, const struct sim_config *cfg,
		 struct sim_result *res)
{
	u32 i, table_size = 1;

	sim = calloc(1, sizeof(*sim));
	if (!sim)
		return -ENOMEM;
	sim->res = res;
	sim->kn.id = 1;
	sim->cgroup.kn = &sim->kn;
	sim->memcg.css.cgroup = &sim->cgroup;
	/* Room for a batch above the size: reclaim runs before it is full. */
	sim->cap = (u32)cfg->cache_pages + CACHE_EXT_MAX_BATCH + 1;
	while (table_size < 2 * sim->cap)
		table_size <<= 1;
	sim->table_mask = table_size - 1;
	sim->folios = calloc(sim->cap, sizeof(*sim->folios));
	sim->free_next = calloc(sim->cap, sizeof(*sim->free_next));
	sim->table = calloc(table_size, sizeof(*sim->table));
	sim->nodes = calloc(CACHE_EXT_MAX_LISTS + sim->cap, sizeof(*sim->nodes));
	sim->lru = calloc(sim->cap + 1, sizeof(*sim->lru));
	sim->inodes = calloc(t->nr_files ? t->nr_files : 1, sizeof(*sim->inodes));
	sim->mappings = calloc(t->nr_files ? t->nr_files : 1, sizeof(*sim->mappings));
	sim->sbs = calloc(t->nr_files ? t->nr_files : 1, sizeof(*sim->sbs));
	if (!sim->folios || !sim->free_next || !sim->table || !sim->nodes ||
	    !sim->lru || !sim->inodes || !sim->mappings || !sim->sbs)
		return -ENOMEM;
	for (i = 0; i < sim->cap; i++)
		sim->free_next[i] = i + 1;
	sim->lru[sim->cap].prev = sim->cap;
	sim->lru[sim->cap].next = sim->cap;
	for (i = 0; i < t->nr_files; i++) {
		sim->sbs[i].s_dev = t->files[i].dev;
		sim->inodes[i].i_ino = t->files[i].ino;
		sim->inodes[i].i_size = (loff_t)t->files[i].nr_pages << 12;
		sim->inodes[i].i_sb = &sim->sbs[i];
		sim->mappings[i].host = &sim->inodes[i];
	}
	return 0;
}

static void teardown(void)
{
	if (!sim)
		return;
	free(sim->folios);
	free(sim->free_next);
	free(sim->table);
	free(sim->nodes);
	free(sim->lru);
	free(sim->inodes);
	free(sim->mappings);
	free(sim->sbs);
	free(sim);
	sim = NULL;
}

static int bind(const struct cache_ext_ops *ops, char *err, size_t len)
{
	int ret = 0;

	sim->ops = ops;
	if (!ops)
		return 0;
	sim->in_init = true;
	if (ops->init)
		ret = ops->init(&sim->memcg);
	sim->in_init = false;
	if (ret) {
		snprintf(err, len, "%s: init() returned %d (%s)", ops->name,
			 ret, strerror(-ret));
		return ret < 0 ? ret : -EINVAL;
	}
	if ((ops->flags & CACHE_EXT_OPS_ADD_TO_LIST) && !sim->nr_lists) {
		sim->in_init = true;
		bpf_cache_ext_list_create(&sim->memcg);
		sim->in_init = false;
	}
	return 0;
}

double sim_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef int (*syscall_prog)(void *ctx);

/*
 * A read of @r missed: bring in the pages after it as readahead would,
 * @cfg->readahead pages in all, up to the end of the file as the trace
 * knows it; pages already cached end the window, as in
 * page_cache_ra_unbounded().  Each is inserted without an access
 * (prefetched).  A fixed window: the kernel's grows on sequential reads
 * and shrinks on misses, which a page-reference trace cannot show.
 */
static void read_ahead(const struct sim_trace *t, const struct sim_req *r,
		       const struct sim_config *cfg)
{
	u64 end = r->index + cfg->readahead, i;
	bool admitted;

	if (end > t->files[r->file].nr_pages)
		end = t->files[r->file].nr_pages;
	for (i = r->index + 1; i < end; i++) {
		struct sim_folio *f;

		if (registry_find(r->file, i))
			break;
		f = insert(t, r->file, i, SIM_INSERT, cfg->batch, &admitted);
		if (!admitted) {
			sim->res->not_admitted++;
			evict(f);
		}
	}
}

static void replay(const struct sim_trace *t, const struct sim_config *cfg,
		   syscall_prog every_prog, unsigned long every)
{
	u64 t0 = t->nr ? t->req[0].time_ns : 0;
	u32 batch = cfg->batch;
	size_t i;

	for (i = 0; i < t->nr; i++) {
		const struct sim_req *r = &t->req[i];
		struct sim_folio *f;
		bool admitted = true, missed;

		sim->now_ns = t->timed ? r->time_ns - t0 :
					 (u64)i * cfg->ns_per_request;
		sim->tid = r->tid;
		sim_timers_run();
		if (every_prog && i && i % every == 0)
			every_prog(NULL);
		f = registry_find(r->file, r->index);
		if (r->op == SIM_INSERT) {
			if (f)
				continue;
			f = insert(t, r->file, r->index, r->op, batch, &admitted);
			if (!admitted) {
				sim->res->not_admitted++;
				evict(f);
			}
			continue;
		}
		sim->res->accesses++;
		missed = !f;
		if (missed)
			f = insert(t, r->file, r->index, r->op, batch, &admitted);
		/* A use through a mapping sets a bit, no call: see mapped_look(). */
		if (r->op == SIM_MAPPED)
			f->young = true;
		else
			folio_access(f);
		/* Not admitted: read, handed over, dropped. */
		if (!admitted) {
			sim->res->not_admitted++;
			evict(f);
		}
		if (missed && r->op == SIM_READ && cfg->readahead > 1)
			read_ahead(t, r, cfg);
	}
}

int sim_run(const struct sim_trace *t, const struct sim_setup *s,
	    const struct sim_config *cfg, struct sim_result *res,
	    char *err, size_t len)
{
	const struct cache_ext_ops *ops = NULL;
	syscall_prog every_prog = NULL;
	double start;
	int ret;

	memset(res, 0, sizeof(*res));
	if (cfg->cache_pages < 1 || cfg->batch < 1 ||
	    cfg->batch > CACHE_EXT_MAX_BATCH) {
		snprintf(err, len, "cache size must be >= 1 page, batch 1..%d",
			 CACHE_EXT_MAX_BATCH);
		return -EINVAL;
	}
	if (sim_is_reference(s->policy))
		return sim_oracle_run(t, s->policy, cfg, res, err, len);
	if (strcmp(s->policy, SIM_LRU)) {
		ret = sim_policy_open(s->policy, s->knobs, s->nr_knobs, &ops,
				      err, len);
		if (ret)
			return ret;
		if (s->every_prog && s->every)
			every_prog = (syscall_prog)sim_policy_function(s->every_prog);
	}
	ret = sim_models_load(s->models, s->nr_models, err, len);
	if (ret)
		return ret;
	ret = setup(t, cfg, res);
	if (ret) {
		snprintf(err, len, "out of memory for %llu pages",
			 (unsigned long long)cfg->cache_pages);
		teardown();
		return ret;
	}
	if (s->record)
		ret = sim_record_open(s->record, cfg->cache_pages, err, len);
	if (!ret && ops)
		ret = sim_tid_maps_fill(s->tid_maps, s->nr_tid_maps, err, len);
	if (!ret)
		ret = bind(ops, err, len);
	if (!ret) {
		start = sim_cpu_seconds();
		replay(t, cfg, every_prog, s->every);
		res->seconds = sim_cpu_seconds() - start;
		if (ops && ops->exit) {
			struct cache_ext_exit_info info = {
				.reason = CACHE_EXT_EJECT_NONE,
			};

			ops->exit(&sim->memcg, &info);
		}
	}
	if (sim_record_close(err, len) && !ret)
		ret = -EIO;
	teardown();
	sim_maps_reset();
	return ret;
}
