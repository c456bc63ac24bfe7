/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MM_CACHE_EXT_INTERNAL_H
#define _MM_CACHE_EXT_INTERNAL_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/cache_ext.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kernel_stat.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "call.h"
#include "ctl.h"
#include "registry.h"

/**
 * struct cache_ext_policy - a registered struct cache_ext_ops
 * @ops: the kernel copy of the struct_ops value, owned by its BPF map
 * @node: entry in the list of registered policies
 * @bindings: the policy's bindings, linked by &cache_ext_binding.policy_node
 * @eject_reason: an &enum cache_ext_eject_reason; set once, by cmpxchg
 * @eject_work: unbinds an ejected policy from process context
 * @eject_msg: what the policy did to be ejected, written once by the
 *	caller that set @eject_reason, before it queues @eject_work
 *
 * Lifetime: allocated by cache_ext_policy_register(), freed by
 * cache_ext_policy_unregister() once (1) it is off the list, so that
 * nothing can find it by name, (2) every binding is unpublished and an
 * RCU grace period has passed, so that no callback or kfunc of it runs
 * and nothing can eject it any more, and (3) @eject_work was flushed, so
 * that an ejection queued before (2) has run.  See policy.c.
 */
struct cache_ext_policy {
	struct cache_ext_ops *ops;
	struct list_head node;
	struct list_head bindings;
	atomic_t eject_reason;
	struct work_struct eject_work;
	char eject_msg[CACHE_EXT_EXIT_MSG_LEN];
};

struct cache_ext_rate;

/**
 * struct cache_ext_window - the time a binding's callbacks of one kind took
 *	in a one-second window (note_rate() in eject.c)
 * @start: cache_ext_clock() when the window began
 * @ns: nanoseconds its calls took, each call's share capped at its budget
 * @nr_over: windows in a row, this one included, whose calls took more
 *	than rate_budget_ms
 */
struct cache_ext_window {
	u64 start;
	u64 ns;
	unsigned int nr_over;
};

/**
 * struct cache_ext_stats - counters of one binding
 * @evict_calls: evict_folios() calls
 * @evict_busy: reclaim batches the LRU chose because another reclaimer
 *	was asking the policy (&cache_ext_binding.evict_lock taken)
 * @requested: folios reclaim asked the policy for
 * @proposed: candidates the policy proposed (scored ones included)
 * @accepted: candidates the kernel took for reclaim
 * @rejected: candidates it could not take (busy, gone, unevictable)
 * @reclaimed: pages reclaimed from the accepted candidates
 * @fallback: pages reclaim needed beyond what the policy supplied
 * @errors: invalid, foreign or duplicate candidates
 * @untracked: folios that could not be registered (no memory)
 * @not_admitted: folios dropped after a read because admit_folio() said no
 * @prefetch_evicted: folios readahead inserted that reclaim evicted before
 *	they were accessed
 * @prefetch_refaults: of those, folios read in again (at least: see
 *	&cache_ext_binding.ra_ghosts)
 * @effect: per CPU, what the cgroup's page cache did for its readers
 * @lock_holds: per CPU, acquisitions of &cache_ext_binding.lock; the cost
 *	the binding adds to the cgroup's page cache, not an effect of it
 * @rate: per CPU, the time the event callbacks took there this second
 * @evict_window: the time evict_folios() took this second, on any CPU;
 *	written under &cache_ext_binding.evict_lock
 */
struct cache_ext_stats {
	atomic_long_t evict_calls;
	atomic_long_t evict_busy;
	atomic_long_t requested;
	atomic_long_t proposed;
	atomic_long_t accepted;
	atomic_long_t rejected;
	atomic_long_t reclaimed;
	atomic_long_t fallback;
	atomic_long_t errors;
	atomic_long_t untracked;
	atomic_long_t not_admitted;
	atomic_long_t prefetch_evicted;
	atomic_long_t prefetch_refaults;
	struct cache_ext_effect __percpu *effect;
	unsigned long __percpu *lock_holds;
	struct cache_ext_rate __percpu *rate;
	struct cache_ext_window evict_window;
};

/**
 * struct cache_ext_effect - a bound cgroup's page cache, from its readers'
 *	side; per CPU, summed when read
 * @accesses: folio_mark_accessed() calls: each read of a folio
 * @misses: folios inserted by reads (readahead included)
 * @refaults: of those, folios this cgroup had evicted before (the page
 *	cache still held their shadow entry)
 * @mapped_accesses: accesses through page tables found by reclaim or by
 *	MGLRU's page-table walk (one per folio each time it is found)
 * @prefetched: of @misses, folios readahead inserted (the one a reader
 *	waits for included: it is accessed moments later)
 *
 * Hits are @accesses - @misses, as cachestat tools count them: a folio
 * read in is accessed once by the read that missed.
 */
struct cache_ext_effect {
	unsigned long accesses;
	unsigned long misses;
	unsigned long refaults;
	unsigned long mapped_accesses;
	unsigned long prefetched;
};

/**
 * enum cache_ext_binding_state - life of a binding
 * @CACHE_EXT_BINDING_INIT: published for the kfuncs of init(), hooks ignore it
 * @CACHE_EXT_BINDING_ACTIVE: the policy manages the cgroup
 */
enum cache_ext_binding_state {
	CACHE_EXT_BINDING_INIT,
	CACHE_EXT_BINDING_ACTIVE,
};

/*
 * One CPU's windows of a binding's event callbacks, [cb - 1] for each
 * &enum cache_ext_timed after CACHE_EXT_T_EVICT; evict_folios() calls, one
 * at a time, share &cache_ext_stats.evict_window.
 */
#define CACHE_EXT_NR_EVENTS	(CACHE_EXT_NR_TIMED - 1)

struct cache_ext_rate {
	struct cache_ext_window event[CACHE_EXT_NR_EVENTS];
};

/* Moves a CPU queues for a binding before it makes them (lists.c). */
#define CACHE_EXT_MOVE_BATCH	15

/**
 * struct cache_ext_move - a list move a page cache hit asked for
 * @pfn: the folio's pfn when it was asked for
 * @idx: the folio's node
 * @list: the list to move it to
 * @tail: to the tail, else to the head
 */
struct cache_ext_move {
	u64 pfn;
	u32 idx;
	u16 list;
	u16 tail;
};

/**
 * struct cache_ext_moves - one CPU's hit moves of a binding, not made yet
 * @lock: protects the rest; taken with interrupts off, by its CPU to queue
 *	and by any CPU to make the moves, before &cache_ext_binding.lock
 * @nr: moves queued
 * @move: the moves, in the order they were asked for
 *
 * See bpf_cache_ext_list_move(): a hit's move is queued here and made
 * under one hold of the binding's lock with the others, when the queue is
 * full, before the next list kfunc of this CPU, and before any walk or
 * size of the binding's lists on any CPU.
 */
struct cache_ext_moves {
	spinlock_t lock;	/* see @lock above */
	u32 nr;
	struct cache_ext_move move[CACHE_EXT_MOVE_BATCH];
};

/**
 * struct cache_ext_binding - a policy bound to one memory cgroup
 * @ops: the policy's callbacks, read locklessly by the hooks
 * @memcg: the bound cgroup; a css reference is held while bound
 * @policy: the policy this binding belongs to
 * @policy_node: entry in &cache_ext_policy.bindings
 * @hash_node: entry in the table that validates memcg pointers from BPF
 * @state: an &enum cache_ext_binding_state
 * @inherited: bound because the cgroup was created under a cgroup with
 *	this policy, not by a write of its own (cache_ext_memcg_online())
 * @tracks: the policy is told about folios (it has folio_added(),
 *	folio_accessed(), folio_removed() or admit_folio()) or has the kernel
 *	list or count them (%CACHE_EXT_OPS_ADD_TO_LIST,
 *	%CACHE_EXT_OPS_COUNT_REFS), so the registry tracks them;
 *	a policy without those never sees a folio, so it could name none,
 *	and its binding tracks nothing
 * @count_refs: the hits count each folio's uses for the policy
 *	(%CACHE_EXT_OPS_COUNT_REFS)
 * @registry: the tracked folios and the lists' nodes
 * @lock: protects the registry, the lists and every node; taken with
 *	interrupts disabled because folio removal runs under the i_pages
 *	lock.  A page cache hit does not take it (see
 *	cache_ext_registry_lookup_rcu()); every acquisition is counted in
 *	&cache_ext_stats.lock_holds (cache_ext_lock_irqsave()).  It starts
 *	a cacheline, after the registry's: a hit reads the fields before it
 *	and the registry's tables, and must not share a line with a lock
 *	that every insertion writes
 * @nr_lists: lists created so far; ids are 0 .. @nr_lists - 1
 * @lists: the eviction lists
 * @stats: counters
 * @moves: per CPU, the list moves page cache hits asked for, not made yet
 * @moves_cpus: the CPUs whose @moves queue holds any; a CPU's bit changes
 *	under its queue's lock, when the queue fills from empty or is emptied
 * @ra_ghosts: a hash (ra_ghost_key()) of each of the last prefetched
 *	folios reclaim evicted unread, CACHE_EXT_RA_GHOSTS slots, or NULL:
 *	a refault that finds its own hash counts in
 *	&cache_ext_stats.prefetch_refaults.  Direct-mapped: a later
 *	eviction overwrites its slot, so the count is a lower bound.
 *	Lockless: each slot is one word, read and written once.
 * @err_level: recent invalid, foreign or duplicate candidates; halves
 *	every second (under @lock)
 * @err_stamp: jiffies up to which @err_level has been decayed
 * @evict_lock: one evict_folios() call at a time, with the isolation of
 *	its candidates; taken before @lock, and only with mutex_trylock():
 *	a reclaimer never waits for another one's policy call.  A mutex,
 *	so that the call may be preempted
 * @overruns: consecutive calls over their time budget, for each timed
 *	callback (&enum cache_ext_timed)
 * @overrun_end: local_clock() when the last overrun counted in @overruns
 *	ended; an overrun that began before it overlapped that one
 *
 * Published in &mem_cgroup.cache_ext with RCU; freed only after a grace
 * period, once no hook can still be running one of its callbacks.
 */
struct cache_ext_binding {
	struct cache_ext_ops *ops;
	struct mem_cgroup *memcg;
	struct cache_ext_policy *policy;
	struct list_head policy_node;
	struct hlist_node hash_node;
	int state;
	bool inherited;
	bool tracks;
	bool count_refs;
	struct cache_ext_registry registry;
	spinlock_t lock ____cacheline_aligned_in_smp;	/* see @lock above */
	u32 nr_lists;
	struct cache_ext_list lists[CACHE_EXT_MAX_LISTS];
	struct cache_ext_stats stats;
	struct cache_ext_moves __percpu *moves;
	struct cpumask moves_cpus;
	u32 *ra_ghosts;
	u32 err_level;
	unsigned long err_stamp;
	struct mutex evict_lock;	/* see @evict_lock above */
	atomic_t overruns[CACHE_EXT_NR_TIMED];
	u64 overrun_end[CACHE_EXT_NR_TIMED];
};

/* call.c: the wait for @b's lock when another CPU holds it. */
unsigned long cache_ext_lock_contended(struct cache_ext_binding *b,
				       bool irqsave);

/*
 * Take @b's lock with interrupts off, counting the acquisition in
 * &cache_ext_stats.lock_holds: the lock is what a binding adds to the page
 * cache's own locking, and the count is how a test or an administrator
 * sees where it is taken.  Returns the flags for spin_unlock_irqrestore().
 */
static __always_inline unsigned long
cache_ext_lock_irqsave(struct cache_ext_binding *b)
	__acquires(&b->lock)
{
	unsigned long flags;

	this_cpu_inc(*b->stats.lock_holds);
	if (unlikely(!spin_trylock_irqsave(&b->lock, flags)))
		flags = cache_ext_lock_contended(b, true);
	return flags;
}

/* The same, for a caller that runs with interrupts off already. */
static __always_inline void cache_ext_lock(struct cache_ext_binding *b)
	__acquires(&b->lock)
{
	lockdep_assert_irqs_disabled();
	this_cpu_inc(*b->stats.lock_holds);
	if (unlikely(!spin_trylock(&b->lock)))
		cache_ext_lock_contended(b, false);
}

extern struct mutex cache_ext_mutex;

/* policy.c */
int cache_ext_policy_validate(const struct cache_ext_ops *ops);
int cache_ext_policy_register(struct cache_ext_ops *ops, u64 cgroup_id);
void cache_ext_policy_unregister(struct cache_ext_ops *ops);
struct cache_ext_policy *cache_ext_policy_lookup(const char *name);
void cache_ext_notify(enum cache_ext_event_type type, const char *policy,
		      u64 cgroup_id, enum cache_ext_eject_reason reason,
		      const char *msg);
long cache_ext_registry_live(void);

/* bind.c */
struct mem_cgroup *cache_ext_memcg_get(u64 id);
int cache_ext_bind_cgroup_id(struct cache_ext_policy *policy, u64 id,
			     bool eject_on_init_failure);
void cache_ext_unbind_policy(struct cache_ext_policy *policy);
void cache_ext_unpublish_binding(struct cache_ext_binding *binding,
				 struct list_head *dead);
void cache_ext_destroy_bindings(struct list_head *dead);
struct cache_ext_binding *cache_ext_sibling_binding(struct cache_ext_binding *b,
						    unsigned long memcg);

/* call.c: init() and exit(), which the kfuncs they call act for */
int cache_ext_call_init(struct cache_ext_binding *b);
void cache_ext_call_exit(struct cache_ext_binding *b);

/* eject.c */
__printf(3, 4)
bool cache_ext_eject(struct cache_ext_policy *policy,
		     enum cache_ext_eject_reason reason, const char *fmt, ...);
void cache_ext_note_error(struct cache_ext_binding *binding,
			  enum cache_ext_eject_reason reason);
void cache_ext_eject_workfn(struct work_struct *work);
void cache_ext_watchdog_start(void);
void cache_ext_watchdog_sync(void);

#endif /* _MM_CACHE_EXT_INTERNAL_H */
