// SPDX-License-Identifier: GPL-2.0
/*
 * The cache_ext kfuncs, with the kernel's semantics (mm/cache_ext/lists.c
 * and evict.c): the same arguments validated, the same errors, the same
 * order of folios.  What the kernel does for concurrency (locks, the time
 * budget, folios that leave the cache mid-call) has no counterpart here:
 * a simulation is one thread and no folio is ever busy.
 *
 * Including the policies' header makes the compiler check these
 * definitions against the declarations policies are built with.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "cache_ext.bpf.h"

bool sim_memcg_ok(const struct mem_cgroup *memcg)
{
	return memcg == &sim->memcg;
}

static bool list_ok(const struct mem_cgroup *memcg, u32 list)
{
	return sim_memcg_ok(memcg) && list < sim->nr_lists;
}

/* An open iterator whose next node is @node steps past it. */
static void iters_skip(u32 node)
{
	unsigned int i;

	for (i = 0; i < SIM_MAX_ITERS; i++)
		if (sim->iters[i] && sim->iters[i]->next == node)
			sim->iters[i]->next = sim->nodes[node].next;
}

void sim_list_unlink(struct sim_folio *f)
{
	u32 node = sim_node_of(f);
	struct sim_node *n = &sim->nodes[node];

	if (f->list == SIM_NO_LIST)
		return;
	iters_skip(node);
	sim->nodes[n->prev].next = n->next;
	sim->nodes[n->next].prev = n->prev;
	sim->list_size[f->list]--;
	f->list = SIM_NO_LIST;
}

void sim_list_link(struct sim_folio *f, u32 list, bool tail)
{
	u32 node = sim_node_of(f), head = list;
	struct sim_node *n = &sim->nodes[node];

	if (tail) {
		n->prev = sim->nodes[head].prev;
		n->next = head;
	} else {
		n->prev = head;
		n->next = sim->nodes[head].next;
	}
	sim->nodes[n->prev].next = node;
	sim->nodes[n->next].prev = node;
	sim->list_size[list]++;
	f->list = list;
}

s32 bpf_cache_ext_list_create(struct mem_cgroup *memcg)
{
	u32 id;

	if (!sim_memcg_ok(memcg) || !sim->in_init)
		return -EINVAL;
	if (sim->nr_lists >= CACHE_EXT_MAX_LISTS)
		return -ENOSPC;
	id = sim->nr_lists++;
	sim->nodes[id].prev = id;
	sim->nodes[id].next = id;
	sim->list_size[id] = 0;
	return id;
}

static int list_put(struct mem_cgroup *memcg, u32 list, struct folio *folio,
		    bool tail, bool must_be_linked)
{
	struct sim_folio *f;

	if (!list_ok(memcg, list))
		return -EINVAL;
	f = sim_tracked(folio);
	if (!f)
		return -ENOENT;
	if (must_be_linked && f->list == SIM_NO_LIST)
		return -ENOENT;
	if (!must_be_linked && f->list != SIM_NO_LIST)
		return -EEXIST;
	sim_list_unlink(f);
	sim_list_link(f, list, tail);
	return 0;
}

int bpf_cache_ext_list_add(struct mem_cgroup *memcg, u32 list,
			   struct folio *folio, bool tail)
{
	return list_put(memcg, list, folio, tail, false);
}

int bpf_cache_ext_list_move(struct mem_cgroup *memcg, u32 list,
			    struct folio *folio, bool tail)
{
	return list_put(memcg, list, folio, tail, true);
}

int bpf_cache_ext_list_del(struct mem_cgroup *memcg, struct folio *folio)
{
	struct sim_folio *f;

	if (!sim_memcg_ok(memcg))
		return -EINVAL;
	f = sim_tracked(folio);
	if (!f || f->list == SIM_NO_LIST)
		return -ENOENT;
	sim_list_unlink(f);
	return 0;
}

s64 bpf_cache_ext_list_size(struct mem_cgroup *memcg, u32 list)
{
	if (!list_ok(memcg, list))
		return -EINVAL;
	return sim->list_size[list];
}

_Static_assert(sizeof(struct sim_iter) <= sizeof(struct bpf_iter_cache_ext_list),
	       "the iterator's state fits the policy's stack slot");

int bpf_iter_cache_ext_list_new(struct bpf_iter_cache_ext_list *it,
				struct mem_cgroup *memcg, u32 list, u32 max)
{
	struct sim_iter *si = (struct sim_iter *)it;
	unsigned int i;

	memset(si, 0, sizeof(*si));
	if (!list_ok(memcg, list))
		return -EINVAL;
	for (i = 0; i < SIM_MAX_ITERS && sim->iters[i]; i++)
		;
	if (i == SIM_MAX_ITERS)
		return -EBUSY;
	si->list = list;
	si->next = sim->nodes[list].next;
	si->remaining = max < CACHE_EXT_ITER_MAX ? max : CACHE_EXT_ITER_MAX;
	si->open = true;
	sim->iters[i] = si;
	return 0;
}

struct folio *bpf_iter_cache_ext_list_next(struct bpf_iter_cache_ext_list *it)
{
	struct sim_iter *si = (struct sim_iter *)it;
	struct sim_folio *f;
	u32 node;

	if (!si->open || !si->remaining || si->next == si->list)
		return NULL;
	node = si->next;
	si->next = sim->nodes[node].next;
	si->remaining--;
	f = sim_folio_of_node(node);
	sim->call_folio = f;
	return &f->folio;
}

void bpf_iter_cache_ext_list_destroy(struct bpf_iter_cache_ext_list *it)
{
	struct sim_iter *si = (struct sim_iter *)it;
	unsigned int i;

	for (i = 0; i < SIM_MAX_ITERS; i++)
		if (sim->iters[i] == si)
			sim->iters[i] = NULL;
	si->open = false;
}

s64 bpf_cache_ext_list_rotate(struct mem_cgroup *memcg, u32 list, u32 nr)
{
	s64 moved = 0;

	if (!list_ok(memcg, list))
		return -EINVAL;
	if (nr > CACHE_EXT_ITER_MAX)
		nr = CACHE_EXT_ITER_MAX;
	if (nr > sim->list_size[list])
		nr = sim->list_size[list];
	/* One folio at a time: the open iterators' places stay right. */
	for (; moved < nr; moved++) {
		u32 node = sim->nodes[list].next;
		struct sim_folio *f = sim_folio_of_node(node);

		sim_list_unlink(f);
		sim_list_link(f, list, true);
	}
	return moved;
}

u32 *bpf_cache_ext_folio_data(struct folio *folio, int rdwr_buf_size)
{
	struct sim_folio *f;

	if (rdwr_buf_size != sizeof(u32))
		return NULL;
	f = sim->call_folio && &sim->call_folio->folio == folio ?
		sim->call_folio : sim_tracked(folio);
	return f ? &f->data : NULL;
}

int bpf_cache_ext_folio_prefetched(struct folio *folio)
{
	struct sim_folio *f;

	f = sim->call_folio && &sim->call_folio->folio == folio ?
		sim->call_folio : sim_tracked(folio);
	return f ? f->prefetched : -ENOENT;
}

/*
 * The kernel's test on the folio's flags; a simulated folio is never held
 * by another reference, nor locked, dirty or under writeback.
 */
int bpf_cache_ext_folio_busy(struct folio *folio)
{
	const unsigned long mask = (1UL << PG_locked) | (1UL << PG_writeback) |
				   (1UL << PG_dirty) | (1UL << PG_uptodate) |
				   (1UL << PG_lru);

	return (folio->flags & mask) != ((1UL << PG_uptodate) | (1UL << PG_lru));
}

int bpf_cache_ext_folio_take_refs(struct folio *folio)
{
	struct sim_folio *f;
	int refs;

	f = sim->call_folio && &sim->call_folio->folio == folio ?
		sim->call_folio : sim_tracked(folio);
	if (!f || f == sim->removing)
		return -ENOENT;
	if (!(sim->ops->flags & CACHE_EXT_OPS_COUNT_REFS))
		return -EOPNOTSUPP;
	refs = f->refs;
	f->refs = 0;
	return refs;
}

static struct sim_evict_req *req_of(struct cache_ext_eviction_ctx *ctx)
{
	return sim->req && &sim->req->ctx == ctx ? sim->req : NULL;
}

static bool is_candidate(const struct sim_evict_req *req,
			 const struct sim_folio *f)
{
	u32 i;

	for (i = 0; i < req->ctx.nr_proposed; i++)
		if (req->folios[i] == f)
			return true;
	return false;
}

int bpf_cache_ext_propose(struct cache_ext_eviction_ctx *ctx,
			  struct folio *folio)
{
	struct sim_evict_req *req = req_of(ctx);
	struct sim_folio *f;

	if (!req || req->mode == SIM_PROPOSE_SCORED)
		return -EINVAL;
	req->mode = SIM_PROPOSE_PLAIN;
	req->proposed++;
	if (req->ctx.nr_proposed >= req->ctx.nr_requested) {
		req->too_many = true;
		return -E2BIG;
	}
	f = sim_tracked(folio);
	if (!f)
		return -ENOENT;
	if (is_candidate(req, f)) {
		sim->res->errors++;
		return -EEXIST;
	}
	req->folios[req->ctx.nr_proposed++] = f;
	return 0;
}

int bpf_cache_ext_propose_list(struct cache_ext_eviction_ctx *ctx,
			       struct mem_cgroup *memcg, u32 list, u32 max)
{
	struct sim_evict_req *req = req_of(ctx);
	u32 node, seen = 0, taken = 0;

	if (!req || req->mode == SIM_PROPOSE_SCORED || !list_ok(memcg, list))
		return -EINVAL;
	req->mode = SIM_PROPOSE_PLAIN;
	if (max > CACHE_EXT_ITER_MAX)
		max = CACHE_EXT_ITER_MAX;
	for (node = sim->nodes[list].next;
	     node != list && seen < max &&
	     req->ctx.nr_proposed < req->ctx.nr_requested;
	     node = sim->nodes[node].next) {
		struct sim_folio *f = sim_folio_of_node(node);

		seen++;
		if (is_candidate(req, f))
			continue;
		req->folios[req->ctx.nr_proposed++] = f;
		taken++;
	}
	req->proposed += taken;
	return taken;
}

int bpf_cache_ext_propose_scored(struct cache_ext_eviction_ctx *ctx,
				 struct folio *folio, s64 score)
{
	struct sim_evict_req *req = req_of(ctx);
	struct sim_folio *f;
	u32 i, n;

	if (!req || req->mode == SIM_PROPOSE_PLAIN)
		return -EINVAL;
	req->mode = SIM_PROPOSE_SCORED;
	req->proposed++;
	f = sim_tracked(folio);
	if (!f)
		return -ENOENT;

	/* Fill the slots, then replace the highest score by lower ones. */
	n = req->ctx.nr_proposed;
	if (n < req->ctx.nr_requested) {
		if (is_candidate(req, f)) {
			sim->res->errors++;
			return -EEXIST;
		}
		req->folios[n] = f;
		req->scores[n] = score;
		req->ctx.nr_proposed = ++n;
		if (n < req->ctx.nr_requested)
			return 0;
	} else {
		if (score >= req->scores[req->worst])
			return 0;
		if (is_candidate(req, f)) {
			sim->res->errors++;
			return -EEXIST;
		}
		req->folios[req->worst] = f;
		req->scores[req->worst] = score;
	}
	for (req->worst = 0, i = 1; i < n; i++)
		if (req->scores[i] > req->scores[req->worst])
			req->worst = i;
	return 0;
}
