/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What reclaim (mm/vmscan.c) and cache_ext say to each other: a bound
 * cgroup's reclaim asks the policy for a batch, isolates it with reclaim's
 * own function while the binding's evict_lock keeps other reclaimers from
 * asking, and reports what came of it.  Private to mm/.
 */
#ifndef _MM_CACHE_EXT_RECLAIM_H
#define _MM_CACHE_EXT_RECLAIM_H

#include <linux/types.h>

struct folio;
struct lruvec;

/**
 * typedef cache_ext_isolate_t - reclaim's isolation of a policy's candidates
 * @lruvec: the lruvec being reclaimed
 * @folios: the candidates, each a file folio of @lruvec's cgroup that the
 *	policy chose and cache_ext validated, with a reference held.  The
 *	function sets the slot of every folio it isolates to NULL: that
 *	reference becomes the one an isolated folio carries.
 * @nr: number of @folios
 * @arg: the caller's, from cache_ext_begin_reclaim()
 *
 * Called by cache_ext_begin_reclaim() while no other reclaimer of the
 * binding can ask its policy, so that concurrent reclaimers do not get
 * the same candidates; it may take the lruvec's lru_lock.
 *
 * Return: the number of pages isolated.
 */
typedef unsigned long (*cache_ext_isolate_t)(struct lruvec *lruvec,
					     struct folio **folios,
					     unsigned int nr, void *arg);

/**
 * struct cache_ext_reclaim - one round of policy-driven reclaim
 * @nr_taken: pages the isolation function took
 * @nr_requested: folios the policy was asked for
 * @nr_proposed: candidates it proposed
 * @duration_ns: time the policy took to decide
 * @nr_sampled: folios the list iterator yielded to the policy meanwhile
 *
 * Filled by cache_ext_begin_reclaim() for mm/vmscan.c.
 */
struct cache_ext_reclaim {
	unsigned long nr_taken;
	u32 nr_requested;
	u32 nr_proposed;
	u64 duration_ns;
	u32 nr_sampled;
};

#ifdef CONFIG_CACHE_EXT

bool cache_ext_begin_reclaim(struct lruvec *lruvec, unsigned long nr,
			     cache_ext_isolate_t isolate, void *arg,
			     struct cache_ext_reclaim *rc);
void cache_ext_end_reclaim(struct lruvec *lruvec, struct cache_ext_reclaim *rc,
			   unsigned long nr_reclaimed);
void cache_ext_note_fallback(struct lruvec *lruvec, unsigned long nr_reclaimed);

#else /* !CONFIG_CACHE_EXT */

static inline bool cache_ext_begin_reclaim(struct lruvec *lruvec,
					   unsigned long nr,
					   cache_ext_isolate_t isolate,
					   void *arg,
					   struct cache_ext_reclaim *rc)
{
	return false;
}

static inline void cache_ext_end_reclaim(struct lruvec *lruvec,
					 struct cache_ext_reclaim *rc,
					 unsigned long nr_reclaimed) { }

static inline void cache_ext_note_fallback(struct lruvec *lruvec,
					   unsigned long nr_reclaimed) { }

#endif /* CONFIG_CACHE_EXT */

#endif /* _MM_CACHE_EXT_RECLAIM_H */
