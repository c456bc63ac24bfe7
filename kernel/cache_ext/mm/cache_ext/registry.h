/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry of a binding: the folios it tracks, as 16-byte nodes in
 * chunks named by a 28-bit index, hashed by pfn and linked into the
 * policy's eviction lists (registry.c, lists.c).  The inline helpers
 * below take the registry; what takes the binding is in internal.h.
 */
#ifndef _MM_CACHE_EXT_REGISTRY_H
#define _MM_CACHE_EXT_REGISTRY_H

#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/cache_ext.h>
#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/seqlock.h>
#include <linux/types.h>

struct cache_ext_binding;
struct mem_cgroup;

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
 * @resize_seq: odd while a resize moves buckets from one table to the
 *	other or swaps the tables (written under the lock), so that a
 *	lockless walk that found nothing while a chain moved under it walks
 *	again (cache_ext_registry_lookup_rcu())
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
	seqcount_spinlock_t resize_seq;
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
 * @last_folio: the folio whose insertion this CPU committed last
 * @last_idx: its node then.  A read that missed marks the folio it
 *	brought in accessed right after inserting it:
 *	cache_ext_registry_lookup_rcu() finds that folio's node here, once
 *	it has checked the node still names it, instead of in the hash
 *
 * Used with preemption disabled: get_cpu_ptr(), or under the binding's
 * lock; but @last_folio and @last_idx, which are written under the lock
 * and read without it, from any CPU (a lookup may have been preempted
 * and moved), each with one access.
 */
struct cache_ext_stash {
	u32 nr;
	u32 idx[CACHE_EXT_STASH_NODES];
	u32 last_idx;
	struct folio *last_folio;
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
u32 cache_ext_call_node(struct cache_ext_binding *b, struct folio *folio);
/* Below this many free nodes, insertions bring a new chunk along. */
#define CACHE_EXT_LOW_FREE	8
/* Slots of &cache_ext_binding.ra_ghosts: a page of them. */
#define CACHE_EXT_RA_GHOSTS	1024

/**
 * cache_ext_registry_needs - what the next insertion may have to allocate
 * @reg: the binding's registry; read without its lock, so only a hint
 * @pre: set up if true is returned: zeroed, and its @max_chunks set if
 *	the chunk tables must grow; untouched otherwise
 *
 * Inline: every insertion asks, and almost every answer is no.
 *
 * Return: true if cache_ext_prealloc_fill() should run before insertion.
 */
static __always_inline bool
cache_ext_registry_needs(struct cache_ext_registry *reg,
			 struct cache_ext_prealloc *pre)
{
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
void cache_ext_moves_flush(struct cache_ext_binding *b);

/**
 * struct cache_ext_walk - a walk along one of a binding's lists
 * @b: the binding
 * @head: the list's head node
 * @cursor: the walk's cursor node, parked before the node its next piece
 *	starts at while the binding's lock is dropped; 0 for none, and the
 *	walk then starts at the head
 *
 * The iterator, bpf_cache_ext_propose_list() and
 * bpf_cache_ext_list_rotate() walk a list the same way: a piece per hold
 * of the binding's lock, from where the walk stands
 * (cache_ext_walk_start(), then cache_ext_walk_next() up to @head; a
 * walk that breaks out once it has looked at enough stands at the first
 * node it did not look at), passing over other walks' cursors
 * (cache_ext_walk_folio() is NULL for them), and, to go on after the lock
 * was dropped, parking the walk's cursor before the first node not looked
 * at (cache_ext_walk_park()); cache_ext_walk_end() gives the cursor back.
 * Nodes before the cursor may move or leave meanwhile; the walk goes on
 * from where it stood.
 */
struct cache_ext_walk {
	struct cache_ext_binding *b;
	u32 head;
	u32 cursor;
};

void cache_ext_walk_init(struct cache_ext_walk *w, struct cache_ext_binding *b,
			 u32 list);
bool cache_ext_walk_park(struct cache_ext_walk *w, u32 before);
void cache_ext_walk_end(struct cache_ext_walk *w);
struct folio *cache_ext_walk_folio(const struct cache_ext_walk *w, u32 pos);
u32 cache_ext_walk_start(const struct cache_ext_walk *w);
u32 cache_ext_walk_next(const struct cache_ext_walk *w, u32 pos);

#endif /* _MM_CACHE_EXT_REGISTRY_H */
