/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MM_CACHE_EXT_INTERNAL_H
#define _MM_CACHE_EXT_INTERNAL_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/cache_ext.h>
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
 * that an ejection queued before (2) has run.  See core.c.
 */
struct cache_ext_policy {
	struct cache_ext_ops *ops;
	struct list_head node;
	struct list_head bindings;
	atomic_t eject_reason;
	struct work_struct eject_work;
	char eject_msg[CACHE_EXT_EXIT_MSG_LEN];
};

/**
 * struct cache_ext_list - one eviction list of a binding
 * @nr: number of folios on the list (cursors not counted)
 *
 * The list itself is a ring of registry nodes through a head node, see
 * &struct cache_ext_node.
 */
struct cache_ext_list {
	u32 nr;
};

/*
 * One tracked folio, list head or iterator cursor: 16 bytes.
 *
 * Nodes live in their binding's registry, in chunks of
 * CACHE_EXT_CHUNK_NODES, and name each other by a 28-bit index: @next and
 * @prev link the eviction lists (rings through a head node), @hnext the
 * hash chains.  Index 0 is no node; 1 .. CACHE_EXT_MAX_LISTS are the list
 * heads; up to CACHE_EXT_FIRST_FOLIO - 1 the iterator cursors.
 *
 * A folio is named by its pfn (40 bits: every architecture's physical
 * address space fits), so that 28 bits of index, 40 of pfn, 3 of list and
 * the admission flag pack into 16 bytes; CACHE_EXT_NO_PFN marks heads,
 * cursors and free nodes.  @list is the list's id + 1, 0 for none.
 *
 * Beside each node, in a chunk of its own, is the policy's u32 of the
 * folio (bpf_cache_ext_folio_data()).
 */
struct cache_ext_node {
	u64 next:28, prev:28, list:3, noadmit:1, pfn_hi:4;
	u64 hnext:28, pfn_lo:36;
};

#define CACHE_EXT_INDEX_BITS	28
#define CACHE_EXT_MAX_NODES	BIT(CACHE_EXT_INDEX_BITS)
#define CACHE_EXT_PFN_BITS	40
#define CACHE_EXT_NO_PFN	((1ULL << CACHE_EXT_PFN_BITS) - 1)
#define CACHE_EXT_CHUNK_SHIFT	8
#define CACHE_EXT_CHUNK_NODES	BIT(CACHE_EXT_CHUNK_SHIFT)
#define CACHE_EXT_FIRST_CURSOR	(CACHE_EXT_MAX_LISTS + 1)
#define CACHE_EXT_FIRST_FOLIO	64
/*
 * Most nodes a kernel walk of a list passes per hold of the binding's
 * lock, which is taken with interrupts off.
 */
#define CACHE_EXT_WALK_BATCH	256
/* Chunk tables double from at least 2 entries: at most this many growths. */
#define CACHE_EXT_TABLE_GROWTHS	(CACHE_EXT_INDEX_BITS - CACHE_EXT_CHUNK_SHIFT)

/**
 * struct cache_ext_data_chunk - the per-folio data of a chunk of nodes
 * @data: the policy's u32 of each node (bpf_cache_ext_folio_data())
 * @prefetched: the kernel's bit of each node: set while the folio, which
 *	readahead inserted, has not been accessed.  Atomic bit operations:
 *	a hit clears it without the binding's lock
 * @refs: the uses of each node's folio since its policy last took them,
 *	up to %CACHE_EXT_MAX_REFS, for a policy with
 *	%CACHE_EXT_OPS_COUNT_REFS.  A hit adds one with a cmpxchg, without
 *	the binding's lock, and only below the maximum, so that a hot folio
 *	stops writing; bpf_cache_ext_folio_take_refs() exchanges it for 0
 *
 * The chunk tables point at @data, the first member.
 */
struct cache_ext_data_chunk {
	u32 data[CACHE_EXT_CHUNK_NODES];
	DECLARE_BITMAP(prefetched, CACHE_EXT_CHUNK_NODES);
	u8 refs[CACHE_EXT_CHUNK_NODES];
};

/**
 * struct cache_ext_buckets - a hash table of folio pfn -> node index
 * @rcu: frees a table that a resize replaced, after a grace period
 * @bits: log2 of the number of buckets; fixed for the table's life
 * @head: the first node of each chain, 0 for none
 */
struct cache_ext_buckets {
	struct rcu_head rcu;
	u8 bits;
	u32 head[];
};

/**
 * struct cache_ext_registry - the folios a binding tracks
 * @nodes: chunk table: @nodes[i] holds nodes i * CACHE_EXT_CHUNK_NODES ...
 * @data: the policy's u32 of each node, chunked like @nodes
 * @buckets: hash table of folio pfn -> node index; while it is resized,
 *	@buckets[1] is the new table and the first @moved buckets of
 *	@buckets[0] have been moved into it.  Changed under the lock, read
 *	under it or, by cache_ext_registry_lookup_rcu(), under RCU: a
 *	replaced table is freed after a grace period
 * @nr_chunks: chunks allocated; chunks are freed with the registry only,
 *	so a pointer into @data stays valid while its binding is published.
 *	Stored with release once the chunk is in the tables: a lockless
 *	reader that loads it with acquire may use any index below
 *	@nr_chunks * CACHE_EXT_CHUNK_NODES
 * @max_chunks: size of the chunk tables
 * @retired: chunk tables replaced by larger ones, kept until the registry
 *	is destroyed: reg_data() is evaluated outside the lock (see
 *	registry_grow())
 * @nr_retired: entries of @retired in use
 * @free: first free node (linked by &cache_ext_node.next), 0 for none
 * @nr_free: free nodes
 * @nr: tracked folios
 * @cursors: free cursor nodes, bit i for node i
 * @moved: see @buckets
 * @grow_at: more folios than this resize @buckets (twice its size)
 * @shrink_at: fewer folios than this resize @buckets (half its size, or
 *	0 at the smallest size); both are out of reach while a resize is
 *	queued or running
 * @resize_work: resizes @buckets to the number of folios
 * @stash: per CPU, free nodes taken off @free for the insertions made on
 *	that CPU, so that an insertion takes the lock once, after the
 *	policy's folio_added(), and not also before it
 *	(cache_ext_registry_reserve())
 *
 * Everything is changed under &cache_ext_binding.lock, but for the nodes
 * in a @stash and the one an insertion has reserved, which no lock holder
 * can reach (they are on no list, free list or hash chain).  Read without it:
 * the chunks of @data that the policy reads and writes through
 * bpf_cache_ext_folio_data(), the prefetched bits, and, on a page cache
 * hit, the hash chains, the nodes' hash-chain words and the chunk tables
 * (cache_ext_registry_lookup_rcu()).  That is why a chunk table, once
 * published, is never freed before the registry, and why every store a
 * lockless reader may see is a whole word.
 */
struct cache_ext_registry {
	struct cache_ext_node **nodes;
	u32 **data;
	struct cache_ext_buckets __rcu *buckets[2];
	u32 nr_chunks;
	u32 max_chunks;
	struct {
		struct cache_ext_node **nodes;
		u32 **data;
	} retired[CACHE_EXT_TABLE_GROWTHS];
	u32 nr_retired;
	u32 free;
	u32 nr_free;
	u32 nr;
	u64 cursors;
	u32 moved;
	u32 grow_at;
	u32 shrink_at;
	struct work_struct resize_work;
	struct cache_ext_stash __percpu *stash;
};

#define CACHE_EXT_STASH_NODES	16

/**
 * struct cache_ext_stash - free nodes of one CPU's insertions
 * @nr: nodes in @idx
 * @idx: their indices
 *
 * Used with preemption disabled: get_cpu_ptr(), or under the binding's
 * lock.
 */
struct cache_ext_stash {
	u32 nr;
	u32 idx[CACHE_EXT_STASH_NODES];
};

/**
 * struct cache_ext_insert - a folio being inserted into a binding
 * @folio: the folio, locked
 * @idx: its node, reserved (cache_ext_registry_reserve()), on no hash
 *	chain or list until cache_ext_registry_commit()
 * @list: the list it goes to at the commit, -1 for none: list 0 with
 *	%CACHE_EXT_OPS_ADD_TO_LIST, else what folio_added() asked for
 * @tail: at @list's tail, else its head
 * @admitted: as admit_folio() answered
 * @done: committed
 *
 * folio_added() runs between the reservation and the commit: the list
 * kfuncs record where it puts the folio in @list and @tail, and the one
 * lock hold of the commit both hashes and links it.  A kfunc that would
 * see the lists otherwise commits first (insert_flush() in lists.c).
 */
struct cache_ext_insert {
	struct folio *folio;
	u32 idx;
	s8 list;
	bool tail;
	bool admitted;
	bool done;
};

/**
 * struct cache_ext_prealloc - memory the registry may need, allocated
 *	before its lock is taken
 * @nodes: a chunk of nodes, or NULL
 * @data: the matching chunk of policy data, or NULL
 * @node_tbl: a larger chunk table for nodes, or NULL; set to NULL when
 *	cache_ext_registry_reserve() publishes it
 * @data_tbl: the same for data
 * @max_chunks: size of @node_tbl and @data_tbl
 */
struct cache_ext_prealloc {
	struct cache_ext_node *nodes;
	u32 *data;
	struct cache_ext_node **node_tbl;
	u32 **data_tbl;
	u32 max_chunks;
};

struct cache_ext_rate;

/**
 * struct cache_ext_window - the time a binding's callbacks of one kind took
 *	in a one-second window (note_rate() in core.c)
 * @start: cache_ext_clock() when the window began
 * @ns: nanoseconds its calls took, each call's share capped at its budget
 */
struct cache_ext_window {
	u64 start;
	u64 ns;
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

/**
 * enum cache_ext_timed - the callbacks whose time is charged, each apart
 * @CACHE_EXT_T_EVICT: evict_folios()
 * @CACHE_EXT_T_ADDED: folio_added()
 * @CACHE_EXT_T_ACCESSED: folio_accessed()
 * @CACHE_EXT_T_REMOVED: folio_removed()
 * @CACHE_EXT_T_ADMIT: admit_folio()
 * @CACHE_EXT_T_MAPPED: folio_mapped_accessed()
 * @CACHE_EXT_NR_TIMED: their number
 */
enum cache_ext_timed {
	CACHE_EXT_T_EVICT,
	CACHE_EXT_T_ADDED,
	CACHE_EXT_T_ACCESSED,
	CACHE_EXT_T_REMOVED,
	CACHE_EXT_T_ADMIT,
	CACHE_EXT_T_MAPPED,
	CACHE_EXT_NR_TIMED,
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
 *	its candidates; taken before @lock, and only with spin_trylock():
 *	a reclaimer never waits for another one's policy call
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
	u32 *ra_ghosts;
	u32 err_level;
	unsigned long err_stamp;
	spinlock_t evict_lock;	/* see @evict_lock above */
	atomic_t overruns[CACHE_EXT_NR_TIMED];
	u64 overrun_end[CACHE_EXT_NR_TIMED];
};

/* core.c: the wait for @b's lock when another CPU holds it. */
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

/*
 * Node @idx.  The table is loaded once: a lockless reader
 * (cache_ext_registry_lookup_rcu()) may race with registry_grow()
 * replacing it, and a replaced table stays readable (see reg_data()).
 */
static __always_inline struct cache_ext_node *
reg_node(const struct cache_ext_registry *reg, u32 idx)
{
	return READ_ONCE(reg->nodes)[idx >> CACHE_EXT_CHUNK_SHIFT] +
	       (idx & (CACHE_EXT_CHUNK_NODES - 1));
}

/*
 * The policy data of node @idx.  Safe without the lock for a node the
 * caller found under it or by cache_ext_registry_lookup_rcu(): @idx's
 * chunk is in every table published since (registry_grow() copies, then
 * publishes), and a table that was replaced stays readable until the
 * registry is destroyed.
 */
static __always_inline u32 *reg_data(const struct cache_ext_registry *reg, u32 idx)
{
	return READ_ONCE(reg->data)[idx >> CACHE_EXT_CHUNK_SHIFT] +
	       (idx & (CACHE_EXT_CHUNK_NODES - 1));
}

/*
 * The prefetched bits of node @idx's chunk.  As reg_data(): under the lock,
 * or for a node found by cache_ext_registry_lookup_rcu().
 */
static __always_inline unsigned long *
reg_prefetched(const struct cache_ext_registry *reg, u32 idx)
{
	return ((struct cache_ext_data_chunk *)
		READ_ONCE(reg->data)[idx >> CACHE_EXT_CHUNK_SHIFT])->prefetched;
}

#define reg_bit(idx)	((idx) & (CACHE_EXT_CHUNK_NODES - 1))

/* Is node @idx's folio prefetched? */
static __always_inline bool reg_test_prefetched(const struct cache_ext_registry *reg,
						u32 idx)
{
	return test_bit(reg_bit(idx), reg_prefetched(reg, idx));
}

/*
 * Node @idx's folio is prefetched no more.  Lockless: a hit calls it.  The
 * test first, so that the hits after the first write nothing.
 */
static __always_inline void reg_clear_prefetched(struct cache_ext_registry *reg,
						 u32 idx)
{
	unsigned long *bits = reg_prefetched(reg, idx);

	if (test_bit(reg_bit(idx), bits))
		clear_bit(reg_bit(idx), bits);
}

/*
 * The use count of node @idx.  As reg_data(): under the lock, or for a
 * node found by cache_ext_registry_lookup_rcu().
 */
static __always_inline u8 *reg_refs(const struct cache_ext_registry *reg,
				    u32 idx)
{
	return ((struct cache_ext_data_chunk *)
		READ_ONCE(reg->data)[idx >> CACHE_EXT_CHUNK_SHIFT])->refs +
	       reg_bit(idx);
}

/*
 * One more use of node @idx's folio, unless the count is at its maximum.
 * Lockless: a hit calls it.  A cmpxchg, not a store, so that a use is
 * never added to a count its policy has just taken.
 */
static __always_inline void reg_count_ref(struct cache_ext_registry *reg,
					  u32 idx)
{
	u8 *refs = reg_refs(reg, idx), old = READ_ONCE(*refs);

	do {
		if (old >= CACHE_EXT_MAX_REFS)
			return;
	} while (!try_cmpxchg(refs, &old, old + 1));
}

/*
 * Make @prev and @next, the neighbours node @idx is to have on its ring,
 * point at it; @idx's own links are the caller's.  Caller holds the
 * binding's lock.
 */
static __always_inline void node_link_neighbours(struct cache_ext_registry *reg,
						 u32 idx, u32 prev, u32 next)
{
	struct cache_ext_node *p = reg_node(reg, prev);
	struct cache_ext_node *n = reg_node(reg, next);

	p->next = idx;
	n->prev = idx;
}

/*
 * Make the neighbours of node @idx point past it; @idx's own links are
 * left as they are.  Caller holds the binding's lock.
 */
static __always_inline void node_unlink_neighbours(struct cache_ext_registry *reg,
						   u32 idx)
{
	struct cache_ext_node *node = reg_node(reg, idx);
	u32 prev = node->prev, next = node->next;
	struct cache_ext_node *p = reg_node(reg, prev);
	struct cache_ext_node *n = reg_node(reg, next);

	/* Both links read first: the stores below may alias @node. */
	p->next = next;
	n->prev = prev;
}

/* Put node @idx before node @at.  Caller holds b->lock. */
static __always_inline void node_insert_before(struct cache_ext_registry *reg,
					       u32 idx, u32 at)
{
	struct cache_ext_node *node = reg_node(reg, idx);
	u32 prev = reg_node(reg, at)->prev;

	node->next = at;
	node->prev = prev;
	node_link_neighbours(reg, idx, prev, at);
}

/* Take node @idx out of its ring.  Caller holds b->lock. */
static __always_inline void node_remove(struct cache_ext_registry *reg,
					u32 idx)
{
	struct cache_ext_node *node = reg_node(reg, idx);

	node_unlink_neighbours(reg, idx);
	node->next = idx;
	node->prev = idx;
}

static __always_inline u64 node_pfn(const struct cache_ext_node *node)
{
	return node->pfn_lo | (u64)node->pfn_hi << 36;
}

/* Does @node name @pfn?  The low bits first: they almost always differ. */
static __always_inline bool node_has_pfn(const struct cache_ext_node *node,
					 u64 pfn)
{
	return node->pfn_lo == (pfn & GENMASK_ULL(35, 0)) &&
	       node->pfn_hi == pfn >> 36;
}

static __always_inline void node_set_pfn(struct cache_ext_node *node, u64 pfn)
{
	node->pfn_lo = pfn;
	node->pfn_hi = pfn >> 36;
}

/*
 * A node's two words, for the lockless hash walk: each loaded once, so
 * that a field is never read from two versions of its word.  The pfn
 * spans both, and may still be torn; the walk only compares it with the
 * pfn of a folio its caller holds, which no other node names.
 */
static __always_inline struct cache_ext_node
node_read_once(const struct cache_ext_node *node)
{
	struct cache_ext_node n;

	((u64 *)&n)[0] = READ_ONCE(((const u64 *)node)[0]);
	((u64 *)&n)[1] = READ_ONCE(((const u64 *)node)[1]);
	return n;
}

/*
 * Set node @node's hash-chain successor with one store of its word: a
 * lockless walk may be reading it.  Caller holds the lock.
 */
static __always_inline void node_set_hnext(struct cache_ext_node *node,
					   u32 hnext)
{
	struct cache_ext_node n = *node;

	n.hnext = hnext;
	WRITE_ONCE(((u64 *)node)[1], ((u64 *)&n)[1]);
}

/* The list head of list @id. */
static __always_inline u32 list_head_index(u32 id)
{
	return id + 1;
}

extern struct mutex cache_ext_mutex;

struct cache_ext_evict_req;

/**
 * struct cache_ext_call - a callback of a binding, while it runs
 * @binding: the binding whose callback it is
 * @start: cache_ext_clock() when the call was entered
 * @irq_start: cache_ext_irq_time() when the call was entered
 * @start_jiffies: jiffies when the callback was entered
 * @budget: nanoseconds it may run; past that, the iterator yields nothing
 *	more and proposals are refused, and on return the overrun is
 *	counted (cache_ext_note_time())
 * @prev: the call this one interrupted on this CPU, or NULL
 * @cb: which callback, for the charge of its time
 * @req: for evict_folios(), the request it answers (evict.c); else NULL
 * @sampled: folios the list iterator yielded to this call
 * @folio: the folio the call handled last (the hook's folio, the
 *	iterator's last), so that the kfuncs find its node without a hash
 *	lookup; NULL for none
 * @index: the registry node of @folio when it was recorded; the kfuncs
 *	check it still is before they change anything
 * @data: the policy's u32 of @folio
 * @removed_data: for folio_removed(), a copy of the removed folio's u32
 * @insert: for folio_added(), the insertion it is told of, whose node is
 *	hashed and linked when it returns; NULL for other callbacks
 * @check_from: jiffies from which the budget check reads the clock: the
 *	jiffy before the budget can end (cache_ext_call_over_budget())
 * @loop_checks: iterations of the call's BPF loops so far, so that they
 *	read the clock only once in a while (__cache_ext_loop_cancelled())
 * @lock_wait: ns the call waited for a binding's lock held by another
 *	CPU (cache_ext_lock_contended()), left out of its time
 * @over: the call was found past its budget: its kfuncs fail and its BPF
 *	loops end
 *
 * Which binding's callback is running is what the kfuncs act on.  A
 * non-sleeping callback runs with preemption disabled and is recorded per
 * CPU; the sleepable init() and exit() run under cache_ext_mutex, one at
 * a time, and are recorded with the task that runs them.  Interrupts see
 * neither: a kfunc called from a BPF timer or any other interrupt finds no
 * caller.
 */
struct cache_ext_call {
	struct cache_ext_binding *binding;
	u64 start;
	u64 irq_start;
	unsigned long start_jiffies;
	u64 budget;
	struct cache_ext_call *prev;
	enum cache_ext_timed cb;
	struct cache_ext_evict_req *req;
	u32 sampled;
	struct folio *folio;
	u32 index;
	u32 *data;
	u32 removed_data;
	struct cache_ext_insert *insert;
	unsigned long check_from;
	unsigned int loop_checks;
	u64 lock_wait;
	bool over;
};

DECLARE_PER_CPU(struct cache_ext_call *, cache_ext_running);

/**
 * struct cache_ext_watch - the outermost callback running on a CPU, as the
 *	watchdog sees it (cache_ext_watchdog_fn() in core.c)
 * @binding: its binding; NULL when none runs.  Written last on entry
 *	(release), cleared first on return
 * @start: jiffies when it was entered
 * @cb: which callback
 *
 * The watchdog reads these of other CPUs, never the &struct cache_ext_call
 * on the running task's stack.
 */
struct cache_ext_watch {
	struct cache_ext_binding *binding;
	unsigned long start;
	enum cache_ext_timed cb;
};

DECLARE_PER_CPU(struct cache_ext_watch, cache_ext_watch);

/**
 * struct cache_ext_budget - the time budget of a kind of callback
 * @ns: in nanoseconds
 * @jiffies: in whole jiffies, rounded down
 *
 * [0] for evict_folios() (cache_ext.evict_budget_ms), [1] for the event
 * callbacks (cache_ext.event_budget_ms); core.c keeps them.
 */
struct cache_ext_budget {
	u64 ns;
	unsigned long jiffies;
};

extern struct cache_ext_budget cache_ext_budgets[2];

static inline const struct cache_ext_budget *
cache_ext_budget(enum cache_ext_timed cb)
{
	return &cache_ext_budgets[cb != CACHE_EXT_T_EVICT];
}

/*
 * Nanoseconds this CPU has spent in hard and soft interrupts, counted by
 * CONFIG_IRQ_TIME_ACCOUNTING; 0 without it.  Preemption is disabled.
 */
static inline u64 cache_ext_irq_time(void)
{
#ifdef CONFIG_IRQ_TIME_ACCOUNTING
	const u64 *cpustat = kcpustat_this_cpu->cpustat;

	return READ_ONCE(cpustat[CPUTIME_IRQ]) +
	       READ_ONCE(cpustat[CPUTIME_SOFTIRQ]);
#else
	return 0;
#endif
}

/* core.c: charge a callback's time; preemption is disabled */
void cache_ext_note_time(struct cache_ext_binding *binding,
			 enum cache_ext_timed cb, u64 took, u64 now);

/*
 * The clock calls are timed with: this CPU's sched_clock(), which a call
 * reads on the CPU it runs on from start to end (preemption is disabled),
 * and so does one CPU's time window (note_rate()).  Not local_clock():
 * where sched_clock is unstable (a virtual machine whose TSC the
 * clocksource watchdog found skewed, as in the test guest seconds after
 * boot), it moves at most a tick past the last tick this CPU took, and
 * with interrupts off it takes none: such a call measured at most one
 * tick.  And the cheapest: a hit pays for two reads.
 */
static inline u64 cache_ext_clock(void)
{
	return sched_clock();
}

/*
 * Around a call of a callback that must not sleep:
 *	cache_ext_enter(&call, b, CACHE_EXT_T_...); b->ops->op(...);
 *	took = cache_ext_leave(&call);
 * cache_ext_leave() charges the time (cache_ext_note_time()).
 */
static inline void cache_ext_enter(struct cache_ext_call *call,
				   struct cache_ext_binding *b,
				   enum cache_ext_timed cb)
{
	call->binding = b;
	call->cb = cb;
	call->req = NULL;
	call->sampled = 0;
	call->folio = NULL;
	call->insert = NULL;
	call->loop_checks = 0;
	call->lock_wait = 0;
	call->over = false;
	call->budget = READ_ONCE(cache_ext_budget(cb)->ns);
	preempt_disable();
	call->prev = this_cpu_read(cache_ext_running);
	this_cpu_write(cache_ext_running, call);
	call->start_jiffies = jiffies;
	/*
	 * The budget check reads the clock from the jiffy before the
	 * budget can end; with interrupts off (folio_removed() runs under
	 * the i_pages lock) jiffies may not move, the tick that advances
	 * them being perhaps this CPU's, so it reads it from the start.
	 */
	if (irqs_disabled())
		call->check_from = call->start_jiffies - 1;
	else
		call->check_from = call->start_jiffies +
				   READ_ONCE(cache_ext_budget(cb)->jiffies) - 1;
	if (!call->prev) {
		struct cache_ext_watch *w = this_cpu_ptr(&cache_ext_watch);

		w->start = call->start_jiffies;
		w->cb = cb;
		/* Pairs with the watchdog's acquire (core.c). */
		smp_store_release(&w->binding, b);
	}
	call->start = cache_ext_clock();
	call->irq_start = cache_ext_irq_time();
}

/*
 * How long a call has run at @now, the interrupts it sat through and its
 * waits for a binding's lock left out.
 */
static inline u64 cache_ext_call_time(const struct cache_ext_call *call,
				      u64 now)
{
	u64 wall = now - call->start;
	u64 other = cache_ext_irq_time() - call->irq_start + call->lock_wait;

	return wall > other ? wall - other : 0;
}

/*
 * Returns the nanoseconds the call took, charged to its binding: its
 * time by cache_ext_clock(), less the time this CPU spent in
 * interrupts and waiting for a binding's lock meanwhile.
 */
static inline u64 cache_ext_leave(struct cache_ext_call *call)
{
	u64 now = cache_ext_clock();
	u64 took = cache_ext_call_time(call, now);

	if (!call->prev)
		WRITE_ONCE(this_cpu_ptr(&cache_ext_watch)->binding, NULL);
	this_cpu_write(cache_ext_running, call->prev);
	cache_ext_note_time(call->binding, call->cb, took, now);
	preempt_enable();
	return took;
}

/* core.c */
int cache_ext_policy_validate(const struct cache_ext_ops *ops);
int cache_ext_policy_register(struct cache_ext_ops *ops, u64 cgroup_id);
void cache_ext_policy_unregister(struct cache_ext_ops *ops);
struct cache_ext_call *cache_ext_current_call(void);
bool cache_ext_call_over_budget(struct cache_ext_call *call);
struct cache_ext_binding *cache_ext_kfunc_binding(struct mem_cgroup *memcg);
struct cache_ext_binding *cache_ext_sibling_binding(struct cache_ext_binding *b,
						    unsigned long memcg);
__printf(3, 4)
bool cache_ext_eject(struct cache_ext_policy *policy,
		     enum cache_ext_eject_reason reason, const char *fmt, ...);
void cache_ext_note_error(struct cache_ext_binding *binding,
			  enum cache_ext_eject_reason reason);

/* registry.c */
int cache_ext_registry_init(struct cache_ext_binding *binding);
void cache_ext_registry_destroy(struct cache_ext_binding *binding);
u32 cache_ext_registry_lookup(struct cache_ext_binding *b,
			      struct folio *folio);
u32 cache_ext_registry_find(struct cache_ext_binding *b, struct folio *folio);
u32 cache_ext_registry_lookup_rcu(struct cache_ext_binding *b,
				  struct folio *folio);
u32 cache_ext_registry_find_rcu(struct cache_ext_binding *b,
				struct folio *folio);
/* Below this many free nodes, insertions bring a new chunk along. */
#define CACHE_EXT_LOW_FREE	8
/* Slots of &cache_ext_binding.ra_ghosts: a page of them. */
#define CACHE_EXT_RA_GHOSTS	1024

/**
 * cache_ext_registry_needs - what the next insertion may have to allocate
 * @b: the binding; read without its lock, so only a hint
 * @pre: set up if true is returned: zeroed, and its @max_chunks set if
 *	the chunk tables must grow; untouched otherwise
 *
 * Inline: every insertion asks, and almost every answer is no.
 *
 * Return: true if cache_ext_prealloc_fill() should run before insertion.
 */
static __always_inline bool
cache_ext_registry_needs(struct cache_ext_binding *b,
			 struct cache_ext_prealloc *pre)
{
	struct cache_ext_registry *reg = &b->registry;
	u32 max;

	/* This CPU's stash, read as a hint: a node there needs no memory. */
	if (likely(READ_ONCE(reg->nr_free) >= CACHE_EXT_LOW_FREE ||
		   this_cpu_read(reg->stash->nr)))
		return false;
	memset(pre, 0, sizeof(*pre));
	max = READ_ONCE(reg->max_chunks);
	if (READ_ONCE(reg->nr_chunks) >= max)
		pre->max_chunks = max * 2;
	return true;
}

void cache_ext_prealloc_fill(struct cache_ext_prealloc *pre,
			     struct mem_cgroup *memcg, gfp_t gfp);
void cache_ext_prealloc_free(struct cache_ext_prealloc *pre);
u32 cache_ext_registry_reserve(struct cache_ext_binding *binding,
			       struct cache_ext_prealloc *pre,
			       struct folio *folio, bool admitted,
			       bool prefetched);
void cache_ext_registry_commit(struct cache_ext_binding *binding,
			       struct cache_ext_insert *ins);
bool cache_ext_registry_remove(struct cache_ext_binding *binding,
			       struct folio *folio, u32 *data,
			       bool *prefetched);
void cache_ext_registry_rekey(struct cache_ext_binding *binding,
			      struct folio *old, struct folio *new);
u32 cache_ext_cursor_get(struct cache_ext_binding *b);
void cache_ext_cursor_put(struct cache_ext_binding *b, u32 idx);
long cache_ext_registry_size(struct cache_ext_binding *binding);
long cache_ext_registry_bytes(struct cache_ext_binding *binding);

/* lists.c */
void cache_ext_node_unlink(struct cache_ext_binding *b, u32 idx);
void cache_ext_node_link(struct cache_ext_binding *b, u32 idx, u32 id,
			 bool tail);
void cache_ext_lists_ensure_first(struct cache_ext_binding *b);

#endif /* _MM_CACHE_EXT_INTERNAL_H */
