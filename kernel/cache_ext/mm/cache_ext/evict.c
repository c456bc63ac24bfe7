// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext eviction: reclaim asks the bound policy for candidates, the
 * kernel validates them and hands them to reclaim, which isolates,
 * reclaims and accounts them as it does the folios of its own LRU scan
 * (mm/vmscan.c); whatever the policy does not supply is left to the
 * kernel's own LRU.
 *
 * A policy proposes candidates from evict_folios() in one of two modes:
 * plain, up to the requested count, or scored, where the kernel keeps the
 * requested count of lowest scores.  Every proposal is checked against the
 * binding's registry.  Proposing more than requested, overrunning the
 * time budget, or exceeding the error budget (a rate) with foreign or
 * duplicate folios ejects the policy.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/bpf.h>
#include <linux/hash.h>
#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/percpu.h>
#include <linux/swap.h>
#include <linux/workqueue.h>

#include <trace/events/cache_ext.h>

#include "../internal.h"
#include "internal.h"
#include "reclaim.h"

enum propose_mode {
	PROPOSE_NONE,
	PROPOSE_PLAIN,
	PROPOSE_SCORED,
};

/**
 * struct cache_ext_evict_req - kernel side of one evict_folios() call
 * @ctx: what the policy sees
 * @binding: the binding asked
 * @mode: an &enum propose_mode, set by the first proposal
 * @violation: a reason to eject the policy once it returns, or 0
 * @worst: in scored mode, once @folios is full, the slot of the highest
 *	score: the one a lower score replaces
 * @proposed: proposals so far, added to the binding's stats at the end
 * @waiting: folios found busy that were clean, unlocked and uptodate but
 *	off the LRU or held by another reference: what a per-CPU LRU batch
 *	does to a folio (folio_busy())
 * @nr_hashed: how many of @folios are in @slots: the walk of a list that
 *	begins the request adds its folios, all distinct, without hashing
 *	them, and the next proposal hashes them first
 * @slots: in plain mode, an open-addressed set of the candidates: slot
 *	hash(folio) or the next ones hold their index in @folios + 1
 * @folios: the candidates kept so far, @ctx.nr_proposed of them
 * @scores: their scores in scored mode
 *
 * Everything up to @folios starts zeroed; @folios and @scores are
 * written before they are read.
 */
struct cache_ext_evict_req {
	struct cache_ext_eviction_ctx ctx;
	struct cache_ext_binding *binding;
	enum propose_mode mode;
	enum cache_ext_eject_reason violation;
	u32 worst;
	u32 proposed;
	u32 waiting;
	u32 nr_hashed;
	u8 slots[2 * CACHE_EXT_MAX_BATCH];
	struct folio *folios[CACHE_EXT_MAX_BATCH];
	s64 scores[CACHE_EXT_MAX_BATCH];
};

/*
 * The request of the evict_folios() call running here, if @ctx is its
 * context: a ctx pointer from BPF is genuine exactly when it matches.
 */
static struct cache_ext_evict_req *req_of(struct cache_ext_eviction_ctx *ctx)
{
	struct cache_ext_call *call = cache_ext_current_call();
	struct cache_ext_evict_req *req = call ? call->req : NULL;

	return req && &req->ctx == ctx ? req : NULL;
}

/*
 * Folios wait in per-CPU batches (the LRU-add batch holds each new folio
 * off the LRU; the activation batch holds the folios it will move), with
 * a reference, until their CPU fills the batch or drains it, and reclaim
 * drains only its own CPU's (lru_add_drain()).  A CPU that a reader left
 * keeps the last folios it added for as long as nothing there drains
 * them, while they become the oldest of a FIFO's list: a policy walking
 * from the head then finds them busy round after round, proposes
 * nothing, and the LRU reclaims in its place (test_fidelity's fifo: 33
 * to 41 busy folios at the head for half a second, 26 to 2,476 pages
 * the LRU's in a run).  When a round's request was not filled and the
 * policy passed over such folios, every CPU's batches are drained, as
 * memory.reclaim drains them before its last try: from a work item, not
 * on the reclaimer's path (lru_add_drain_all() sleeps until every CPU
 * with a batch has drained it, which compaction avoids in reclaim too),
 * at most once per CACHE_EXT_DRAIN_INTERVAL for all bindings.  Folios
 * that wait for another reason (a reader between lookup and copy,
 * another reclaimer's isolation) are busy only for moments; a drain
 * then finds nothing to do.
 */
#define CACHE_EXT_DRAIN_INTERVAL	(HZ / 10)

static void drain_workfn(struct work_struct *work)
{
	lru_add_drain_all();
}

static DECLARE_WORK(drain_work, drain_workfn);
static unsigned long drain_jiffies;

static void drain_cpu_batches(void)
{
	unsigned long last = READ_ONCE(drain_jiffies);

	if (time_before(jiffies, last + CACHE_EXT_DRAIN_INTERVAL) ||
	    cmpxchg(&drain_jiffies, last, jiffies) != last)
		return;
	queue_work(system_unbound_wq, &drain_work);
}

/*
 * @folio is not a tracked folio of @b.  It is the policy's fault only if it
 * is a tracked folio of another binding of the same policy: proposed for
 * the wrong cgroup.  Anything else is a folio that left the page cache
 * since the policy saw it (and may already belong to someone else), or
 * that was cached before the binding existed.  The kfuncs take trusted
 * pointers only (KF_TRUSTED_ARGS), so @folio points into the memory map
 * and reading its memcg_data is safe even if it was freed meanwhile.
 */
static bool foreign_folio(struct cache_ext_binding *b, struct folio *folio)
{
	unsigned long memcg = READ_ONCE(folio->memcg_data) & ~OBJEXTS_FLAGS_MASK;
	struct cache_ext_binding *other;
	unsigned long flags;
	bool tracked;

	if (!memcg || memcg == (unsigned long)b->memcg)
		return false;
	other = cache_ext_sibling_binding(b, memcg);
	if (!other)
		return false;
	flags = cache_ext_lock_irqsave(other);
	tracked = cache_ext_registry_lookup(other, folio) != 0;
	spin_unlock_irqrestore(&other->lock, flags);
	return tracked;
}

/*
 * Is @folio a tracked folio of @req's binding?  0 or -errno.  The folio
 * the iterator yielded last to this call was on the binding's list a
 * moment ago and needs no lookup: if it has left since, isolation finds
 * it changed and rejects it, as for any candidate that leaves the cache
 * between proposal and isolation.
 */
static int check_tracked(struct cache_ext_evict_req *req, struct folio *folio)
{
	struct cache_ext_call *call = cache_ext_current_call();
	struct cache_ext_binding *b = req->binding;
	unsigned long flags;
	bool tracked = call->folio == folio;

	if (!tracked) {
		flags = cache_ext_lock_irqsave(b);
		tracked = cache_ext_registry_lookup(b, folio) != 0;
		spin_unlock_irqrestore(&b->lock, flags);
	}
	if (tracked)
		return 0;
	if (!foreign_folio(b, folio))
		return -ENOENT;
	cache_ext_note_error(b, CACHE_EXT_EJECT_FOREIGN_FOLIO);
	return -EINVAL;
}

/* Is @folio one of @req's candidates already?  Counts the error. */
static int check_duplicate(struct cache_ext_evict_req *req,
			   struct folio *folio)
{
	u32 i;

	for (i = 0; i < req->ctx.nr_proposed; i++) {
		if (req->folios[i] == folio) {
			cache_ext_note_error(req->binding,
					     CACHE_EXT_EJECT_DUPLICATE);
			return -EEXIST;
		}
	}
	return 0;
}

/*
 * The slot of @req->slots that holds @folio, or the free slot where it
 * would go.  The set is at most half full: a free slot is always found.
 */
static u32 slot_of(const struct cache_ext_evict_req *req,
		   const struct folio *folio)
{
	u32 i;

	for (i = hash_ptr(folio, ilog2(ARRAY_SIZE(req->slots)));
	     req->slots[i]; i = (i + 1) % ARRAY_SIZE(req->slots))
		if (req->folios[req->slots[i] - 1] == folio)
			break;
	return i;
}

/*
 * Add @folio to @req's candidates, unless it is one already (-EEXIST).
 * The caller checked that there is room.
 */
static int take_candidate(struct cache_ext_evict_req *req,
			  struct folio *folio)
{
	u32 i;

	/* The candidates a first list walk added, not hashed yet. */
	while (req->nr_hashed < req->ctx.nr_proposed) {
		i = slot_of(req, req->folios[req->nr_hashed]);
		req->slots[i] = ++req->nr_hashed;
	}

	i = slot_of(req, folio);
	if (req->slots[i])
		return -EEXIST;
	req->folios[req->ctx.nr_proposed++] = folio;
	req->slots[i] = req->ctx.nr_proposed;
	req->nr_hashed = req->ctx.nr_proposed;
	return 0;
}

__bpf_kfunc_start_defs();

/**
 * bpf_cache_ext_propose - propose a folio for eviction
 * @ctx: the evict_folios() context
 * @folio: a tracked folio of the cgroup being reclaimed
 *
 * Return: 0 if the folio is a candidate; -EINVAL for a bad @ctx, a
 * tracked folio of another cgroup the policy is bound to, or after
 * bpf_cache_ext_propose_scored(); -ENOENT if the folio is not tracked
 * (it left the page cache since the policy saw it, or was cached before
 * the binding); -EEXIST if it was proposed before; -E2BIG if the request
 * is full, which ejects the policy; -ETIME once the call is past its time
 * budget (the candidate is not taken).  Foreign and duplicate candidates
 * count against the binding's error budget (cache_ext_note_error()).
 */
__bpf_kfunc int bpf_cache_ext_propose(struct cache_ext_eviction_ctx *ctx,
				      struct folio *folio)
{
	struct cache_ext_evict_req *req = req_of(ctx);
	int ret;

	if (!req || req->mode == PROPOSE_SCORED)
		return -EINVAL;
	if (cache_ext_call_over_budget(cache_ext_current_call()))
		return -ETIME;
	req->mode = PROPOSE_PLAIN;
	req->proposed++;
	if (req->ctx.nr_proposed >= req->ctx.nr_requested) {
		req->violation = CACHE_EXT_EJECT_TOO_MANY;
		return -E2BIG;
	}
	ret = check_tracked(req, folio);
	if (ret)
		return ret;
	ret = take_candidate(req, folio);
	if (ret)
		cache_ext_note_error(req->binding, CACHE_EXT_EJECT_DUPLICATE);
	return ret;
}

/*
 * Can reclaim not free @folio now?  Policies ask bpf_cache_ext_folio_busy():
 * locked, under writeback, dirty, not uptodate or off the LRU, or, if
 * small, held: referenced beyond the page cache, its mappings and its
 * private data, which __remove_mapping() refuses.  A folio queued for
 * activation keeps PG_lru in the per-CPU batch that holds such a
 * reference until that CPU drains it; proposed round after round, it
 * would be isolated and put back unfreed each time while reclaim fell
 * back to the LRU.  A busy folio that may be waiting in such a batch is
 * counted in @req (if the caller is an evict_folios() call), so that a
 * round it blocked has the batches drained (drain_cpu_batches()).
 */
static bool folio_busy(struct folio *folio, struct cache_ext_evict_req *req)
{
	const unsigned long mask = BIT(PG_locked) | BIT(PG_writeback) |
				   BIT(PG_dirty) | BIT(PG_uptodate) |
				   BIT(PG_lru);
	const unsigned long idle = BIT(PG_uptodate) | BIT(PG_lru);
	unsigned long flags = READ_ONCE(folio->flags) & mask;

	if (flags != idle) {
		/* Off the LRU, nothing else: in a CPU's LRU-add batch? */
		if (req && flags == BIT(PG_uptodate))
			req->waiting++;
		return true;
	}
	/*
	 * Private data (a filesystem's buffer heads, which stay on a folio
	 * written through write_begin after its writeback) holds a reference
	 * that reclaim drops (filemap_release_folio()), as
	 * mapping_evict_folio() counts it.
	 */
	if (folio_test_large(folio) ||
	    folio_ref_count(folio) <= folio_mapcount(folio) + 1 +
				      folio_has_private(folio))
		return false;
	if (req)
		req->waiting++;
	return true;
}

/**
 * bpf_cache_ext_folio_busy - could reclaim not free a folio now
 * @folio: a folio the callback was given or found on its lists
 *
 * The kernel's own test, the one bpf_cache_ext_propose_list() passes
 * folios over by: locked, under writeback, dirty, not uptodate or off the
 * LRU, or, if small, held by a reference beyond the page cache, its
 * mappings and its private data (a per-CPU LRU batch, a reader between
 * lookup and copy), which __remove_mapping() refuses.  A policy that
 * ranks its folios itself skips busy ones with it rather than proposing
 * folios reclaim would give back; the answer may change as soon as it is
 * given.
 *
 * Return: 1 if @folio is busy, 0 if not.
 */
__bpf_kfunc int bpf_cache_ext_folio_busy(struct folio *folio)
{
	struct cache_ext_call *call = cache_ext_current_call();

	return folio_busy(folio, call ? call->req : NULL);
}

/**
 * bpf_cache_ext_propose_list - propose the first folios of a list
 * @ctx: the evict_folios() context
 * @memcg: the cgroup being reclaimed (the callback's)
 * @list: one of its lists
 * @max: most folios to look at, from the head
 *
 * What a FIFO or LRU policy does in its evict_folios(), in one call: walk
 * @list from its head, %CACHE_EXT_WALK_BATCH nodes per hold of the
 * binding's lock (interrupts are off meanwhile), and propose
 * every folio that is not busy (locked, dirty, under writeback, not
 * uptodate, off the LRU, or held by another reference), until the
 * request is full or @max folios were
 * looked at (at most %CACHE_EXT_ITER_MAX, as for the iterator).  Folios
 * proposed already in this request are passed over.  If all iterator
 * cursors are taken, the walk ends after its first piece.
 *
 * Return: the number of folios proposed; -EINVAL for a bad @ctx, a @memcg
 * other than the one being reclaimed, an unknown @list, or after
 * bpf_cache_ext_propose_scored(); -ETIME once the call is past its time
 * budget.
 */
__bpf_kfunc int bpf_cache_ext_propose_list(struct cache_ext_eviction_ctx *ctx,
					   struct mem_cgroup *memcg, u32 list,
					   u32 max)
{
	struct cache_ext_evict_req *req = req_of(ctx);
	struct cache_ext_call *call = cache_ext_current_call();
	struct cache_ext_binding *b = cache_ext_kfunc_binding(memcg);
	u32 pos, seen = 0, taken = 0;
	struct cache_ext_walk w;
	unsigned long flags;
	bool first, more;

	if (!req || req->mode == PROPOSE_SCORED || b != req->binding ||
	    list >= READ_ONCE(b->nr_lists))
		return -EINVAL;
	if (cache_ext_call_over_budget(call))
		return -ETIME;
	req->mode = PROPOSE_PLAIN;
	cache_ext_moves_flush(b);
	cache_ext_walk_init(&w, b, list);
	max = min_t(u32, max, CACHE_EXT_ITER_MAX);

	/*
	 * A walk that begins the request meets each folio once (a ring, no
	 * wrap-around) and no earlier candidate: nothing to check for
	 * duplicates, as long as the lock is held.  The walk takes the lock
	 * for CACHE_EXT_WALK_BATCH nodes at a time, with a cursor after the
	 * last node it looked at in between; the later pieces check, since
	 * a folio passed may have moved after the cursor meanwhile.
	 */
	first = !req->ctx.nr_proposed;
	for (;;) {
		u32 piece = 0;

		flags = cache_ext_lock_irqsave(b);
		for (pos = cache_ext_walk_start(&w); pos != w.head;
		     pos = cache_ext_walk_next(&w, pos)) {
			struct folio *folio;

			if (seen >= max || piece >= CACHE_EXT_WALK_BATCH ||
			    req->ctx.nr_proposed >= req->ctx.nr_requested)
				break;
			piece++;
			/* The cursors of open iterators. */
			folio = cache_ext_walk_folio(&w, pos);
			if (!folio)
				continue;
			seen++;
			if (folio_busy(folio, req))
				continue;
			if (first)
				req->folios[req->ctx.nr_proposed++] = folio;
			else if (take_candidate(req, folio))
				continue;
			taken++;
		}
		more = pos != w.head && seen < max &&
		       req->ctx.nr_proposed < req->ctx.nr_requested &&
		       cache_ext_walk_park(&w, pos);
		if (!more)
			cache_ext_walk_end(&w);
		spin_unlock_irqrestore(&b->lock, flags);
		if (!more)
			break;
		first = false;
	}

	req->proposed += taken;
	call->sampled += seen;
	return taken;
}

/**
 * bpf_cache_ext_propose_scored - score a folio as an eviction candidate
 * @ctx: the evict_folios() context
 * @folio: a tracked folio of the cgroup being reclaimed
 * @score: lower is evicted first
 *
 * Any number of folios may be scored; the kernel keeps the
 * @ctx->nr_requested lowest scores (of equal scores, the first scored).
 *
 * Return: 0 if the folio was scored (kept or not); errors as for
 * bpf_cache_ext_propose(), which may not be mixed with this in one call.
 */
__bpf_kfunc int bpf_cache_ext_propose_scored(struct cache_ext_eviction_ctx *ctx,
					     struct folio *folio, s64 score)
{
	struct cache_ext_evict_req *req = req_of(ctx);
	u32 i, n;
	int ret;

	if (!req || req->mode == PROPOSE_PLAIN)
		return -EINVAL;
	if (cache_ext_call_over_budget(cache_ext_current_call()))
		return -ETIME;
	req->mode = PROPOSE_SCORED;
	req->proposed++;
	ret = check_tracked(req, folio);
	if (ret)
		return ret;

	/*
	 * Fill the slots, then replace the highest score while a lower one
	 * comes.  A folio scored twice is an error only if it would be kept
	 * twice; one that is not kept changes nothing.
	 */
	n = req->ctx.nr_proposed;
	if (n < req->ctx.nr_requested) {
		ret = check_duplicate(req, folio);
		if (ret)
			return ret;
		req->folios[n] = folio;
		req->scores[n] = score;
		req->ctx.nr_proposed = ++n;
		if (n == req->ctx.nr_requested)
			goto find_worst;
		return 0;
	}
	if (score >= req->scores[req->worst])
		return 0;
	ret = check_duplicate(req, folio);
	if (ret)
		return ret;
	req->folios[req->worst] = folio;
	req->scores[req->worst] = score;
find_worst:
	for (req->worst = 0, i = 1; i < n; i++)
		if (req->scores[i] > req->scores[req->worst])
			req->worst = i;
	return 0;
}

__bpf_kfunc_end_defs();

/*
 * Take a reference on each candidate, unless it changed since it was
 * proposed: freed, truncated, or no longer a file folio on an evictable
 * LRU (one that moved to another cgroup or node is for @isolate to
 * find).  What is left is handed to reclaim's @isolate; the references of
 * the folios it did not isolate are dropped here.
 *
 * Returns the pages @isolate took; the other candidates are counted as
 * rejected.
 */
static unsigned long hand_over_candidates(struct lruvec *lruvec,
					  struct cache_ext_evict_req *req,
					  cache_ext_isolate_t isolate,
					  void *arg)
{
	/* The candidates held go to the front of @req->folios. */
	struct folio **held = req->folios;
	u32 i, n = 0, rejected = 0;
	unsigned long taken;

	for (i = 0; i < req->ctx.nr_proposed; i++) {
		struct folio *folio = req->folios[i];

		if (!folio_try_get(folio)) {
			rejected++;
			continue;
		}
		/*
		 * The reference may be on memory that was freed and reused
		 * since the proposal, as a slab page say, whose slab_list
		 * overlays ->mapping.  On the LRU with a reference held, it is
		 * a folio that cannot be freed or reused under us: only then
		 * is folio_memcg() (reclaim's isolation) meaningful.  Reclaim
		 * checks the lruvec, under its lock.
		 */
		if (!folio_test_lru(folio) ||
		    folio_test_anon(folio) || folio_test_swapbacked(folio) ||
		    !READ_ONCE(folio->mapping) ||
		    folio_test_unevictable(folio)) {
			folio_put(folio);
			rejected++;
			continue;
		}
		held[n++] = folio;
	}

	taken = n ? isolate(lruvec, held, n, arg) : 0;

	/* Outside the lru_lock: a put may free the folio. */
	for (i = 0; i < n; i++) {
		if (held[i]) {
			folio_put(held[i]);
			rejected++;
		}
	}
	atomic_long_add(rejected, &req->binding->stats.rejected);
	return taken;
}

/**
 * cache_ext_begin_reclaim - have reclaim isolate what the bound policy picks
 * @lruvec: the lruvec being reclaimed
 * @nr: folios reclaim is after; the policy is asked for up to
 *	%CACHE_EXT_MAX_BATCH of them
 * @isolate: reclaim's isolation, given the validated candidates
 * @arg: passed to @isolate
 * @rc: receives the round's numbers
 *
 * Runs the policy's evict_folios(), validates the candidates it proposed
 * against the binding's registry and hands them, with a reference held,
 * to @isolate.  The caller (mm/vmscan.c) isolates, reclaims, puts back
 * and accounts them as it does the folios of its own LRU scan.
 *
 * Context: process context, no locks held; the caller drained the LRU
 * add batches, so new folios are on the LRU.  Takes the binding's
 * evict_lock around the policy and @isolate, if it is free.
 *
 * Return: true if @lruvec's cgroup has an active policy that was asked
 * (false also when another reclaimer is asking it: the binding is busy);
 * the caller then calls cache_ext_end_reclaim() once it knows how many
 * of the @rc->nr_taken pages it reclaimed.
 */
bool cache_ext_begin_reclaim(struct lruvec *lruvec, unsigned long nr,
			     cache_ext_isolate_t isolate, void *arg,
			     struct cache_ext_reclaim *rc)
{
	struct mem_cgroup *memcg = lruvec_memcg(lruvec);
	/*
	 * Not cleared on entry (CONFIG_INIT_STACK_ALL_ZERO would clear all
	 * of its 600 bytes on every batch): the head is cleared below, the
	 * arrays are written before they are read.
	 */
	struct cache_ext_evict_req req __uninitialized;
	struct cache_ext_binding *b;
	struct cache_ext_call call;

	rc->nr_taken = 0;
	if (!memcg)
		return false;

	rcu_read_lock();
	b = rcu_dereference(memcg->cache_ext);
	if (!b || READ_ONCE(b->state) != CACHE_EXT_BINDING_ACTIVE ||
	    atomic_read(&b->policy->eject_reason) || !b->ops->evict_folios) {
		rcu_read_unlock();
		return false;
	}

	memset(&req, 0, offsetof(struct cache_ext_evict_req, folios));
	req.binding = b;
	req.ctx.nr_requested = clamp_t(unsigned long, nr, 1, CACHE_EXT_MAX_BATCH);

	/*
	 * One call per binding at a time, up to the isolation of its
	 * candidates: concurrent reclaimers of the cgroup would otherwise be
	 * handed the same folios and take them from each other.  No
	 * reclaimer waits for another one's policy call, however long that
	 * runs: a busy binding is not asked, and this batch is the LRU's.
	 */
	if (!mutex_trylock(&b->evict_lock)) {
		atomic_long_inc(&b->stats.evict_busy);
		rcu_read_unlock();
		return false;
	}
	cache_ext_enter(&call, b, CACHE_EXT_T_EVICT);
	call.req = &req;
	b->ops->evict_folios(&req.ctx, memcg);
	rc->duration_ns = cache_ext_leave(&call);
	rc->nr_sampled = call.sampled;

	if (req.violation)
		cache_ext_eject(b->policy, req.violation,
				"evict_folios() proposed %u folios, %u asked for, in cgroup %llu",
				req.proposed, req.ctx.nr_requested,
				cgroup_id(memcg->css.cgroup));

	if (req.ctx.nr_proposed < req.ctx.nr_requested && req.waiting)
		drain_cpu_batches();
	rc->nr_requested = req.ctx.nr_requested;
	rc->nr_proposed = req.ctx.nr_proposed;
	if (req.ctx.nr_proposed)
		rc->nr_taken = hand_over_candidates(lruvec, &req, isolate, arg);
	mutex_unlock(&b->evict_lock);

	atomic_long_inc(&b->stats.evict_calls);
	atomic_long_add(req.proposed, &b->stats.proposed);
	atomic_long_add(req.ctx.nr_requested, &b->stats.requested);
	atomic_long_add(rc->nr_taken, &b->stats.accepted);
	rcu_read_unlock();
	return true;
}

/**
 * cache_ext_end_reclaim - account a round started by cache_ext_begin_reclaim()
 * @lruvec: the lruvec reclaimed
 * @rc: the round
 * @nr_reclaimed: pages reclaimed from @rc's candidates
 */
void cache_ext_end_reclaim(struct lruvec *lruvec, struct cache_ext_reclaim *rc,
			   unsigned long nr_reclaimed)
{
	struct mem_cgroup *memcg = lruvec_memcg(lruvec);
	struct cache_ext_binding *b;

	rcu_read_lock();
	b = rcu_dereference(memcg->cache_ext);
	if (b)
		atomic_long_add(nr_reclaimed, &b->stats.reclaimed);
	rcu_read_unlock();

	trace_cache_ext_evict(cgroup_id(memcg->css.cgroup), rc->nr_requested,
			      rc->nr_proposed, rc->nr_taken, nr_reclaimed,
			      rc->duration_ns, rc->nr_sampled);
}

/**
 * cache_ext_note_fallback - account file pages the kernel's LRU reclaimed
 * @lruvec: the lruvec reclaimed
 * @nr_reclaimed: file pages reclaimed by the kernel's own policy
 *
 * Called by reclaim for every batch of file folios it took from its own
 * LRU; counts only for bound cgroups.
 */
void cache_ext_note_fallback(struct lruvec *lruvec, unsigned long nr_reclaimed)
{
	struct mem_cgroup *memcg = lruvec_memcg(lruvec);
	struct cache_ext_binding *b;

	if (!memcg || !nr_reclaimed)
		return;
	rcu_read_lock();
	b = rcu_dereference(memcg->cache_ext);
	if (b) {
		atomic_long_add(nr_reclaimed, &b->stats.fallback);
		trace_cache_ext_fallback(cgroup_id(memcg->css.cgroup),
					 nr_reclaimed);
	}
	rcu_read_unlock();
}
