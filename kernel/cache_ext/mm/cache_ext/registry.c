// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext folio registry: for every binding, the folios of its cgroup
 * that the policy may name, each with a 16-byte node (its place on an
 * eviction list) and a u32 the policy owns.
 *
 * The registry is what makes a folio pointer from BPF safe to act on: a
 * pointer the policy hands back is looked up by its pfn, never trusted,
 * until it is found here.  A folio enters in the insertion hook and
 * leaves in the removal hook, so the registry holds exactly the bound
 * cgroup's cached file folios; migration moves an entry, with its list
 * position and its policy data, to the new folio.
 *
 * Memory: nodes and data live in chunks of CACHE_EXT_CHUNK_NODES (a page
 * of nodes; a kilobyte of policy data, 32 bytes of the kernel's bits and
 * 256 of use counts, from a slab cache of their own), found through a
 * chunk table; a free list links the unused nodes.  Folios are found by a
 * hash table of u32 node indices chained through the nodes, kept between
 * one and two folios per bucket.  That is 21 bytes per folio plus 2-4 of
 * buckets.
 *
 * A folio's kernel bit (&struct cache_ext_data_chunk.prefetched) says
 * that readahead inserted it and nobody has accessed it since; the access
 * hooks clear it.  Its use count (&struct cache_ext_data_chunk.refs) is
 * what the access hooks count for a policy that asked for it.
 * Chunks are kept until the binding ends, so a pointer the policy got
 * into the data stays valid as long as the policy can run; a cgroup whose
 * cache shrinks keeps the peak's chunks (see cache_ext_registry_bytes()).
 *
 * Accounting: all of the registry's memory is charged to the cgroup it
 * serves (__GFP_ACCOUNT inside set_active_memcg() of the binding's
 * cgroup, or of the folio's at an insertion, which is the same cgroup),
 * whoever allocates it: the binder, the inserting task, the resize work
 * item.  It counts in that cgroup's memory.current and "kernel" in
 * memory.stat, and it is uncharged as it is freed, at the unbinding.
 * An insertion whose charge fails leaves its folio untracked.
 *
 * Locking: every change is under &cache_ext_binding.lock, taken with
 * interrupts off.  Allocations happen outside it: the insertion hook
 * fills a &struct cache_ext_prealloc first, and the hash table is resized
 * by a work item that moves a batch of buckets per lock hold.  An
 * insertion takes the lock once: its node comes from a per-CPU stash of
 * free nodes (cache_ext_registry_reserve()), is written without the lock
 * while nothing else can reach it, and is hashed and put on the list the
 * policy chose in one hold after folio_added() returns
 * (cache_ext_registry_commit()); the commit tops the stash up.
 *
 * A page cache hit takes no lock: cache_ext_registry_lookup_rcu() walks
 * the hash chain under RCU, as the page cache's own lookups walk the
 * xarray.  What makes that safe: chunks and chunk tables outlive every
 * reader (above); a replaced bucket table is freed after a grace period;
 * every index the walk follows is checked against the chunks published
 * (with release, loaded with acquire) before it is used; the walk is
 * bounded; and the stores it may see are whole words (bucket heads with
 * release, after the node they name is written).  A resize moves chains
 * from one table to the other, rewriting the hash-chain words of the
 * nodes it moves, so a walk may follow a moved node into the new table's
 * chain and miss its folio: each batch of moves is a write section of
 * &cache_ext_registry.resize_seq, and a walk that found nothing while one
 * ran walks again.  What it may still get wrong: a walk that races with
 * the removal of another folio of its chain (the removed node's word is
 * cleared) may miss its folio, which that hit then leaves unmarked.  It
 * never returns a node that names another folio.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "internal.h"

#define BUCKET_BITS_MIN		6
#define INIT_CHUNKS		8
#define RESIZE_BATCH		256
/*
 * Most nodes a lockless walk follows: chains hold one or two folios, and a
 * walk that a removal sent astray must end.
 */
#define RCU_WALK_MAX		64

static struct kmem_cache *data_chunks;

static int __init cache_ext_registry_setup(void)
{
	BUILD_BUG_ON(offsetof(struct cache_ext_data_chunk, data) != 0);
	data_chunks = KMEM_CACHE(cache_ext_data_chunk, SLAB_PANIC);
	return 0;
}
core_initcall(cache_ext_registry_setup);

/**
 * cache_ext_registry_size - number of folios a binding tracks
 * @binding: the binding
 *
 * Return: the count.
 */
long cache_ext_registry_size(struct cache_ext_binding *binding)
{
	return READ_ONCE(binding->registry.nr);
}

/**
 * cache_ext_registry_bytes - memory a binding's registry uses
 * @binding: the binding
 *
 * Return: bytes of node and data chunks, chunk tables and hash buckets.
 */
long cache_ext_registry_bytes(struct cache_ext_binding *binding)
{
	struct cache_ext_registry *reg = &binding->registry;
	struct cache_ext_buckets *t;
	u32 max_chunks;
	long bytes;
	int i;

	/*
	 * Without the lock: a report, not a hook, and each field is read
	 * once; a resize or growth meanwhile is seen before or after.
	 */
	bytes = (long)READ_ONCE(reg->nr_chunks) * CACHE_EXT_CHUNK_NODES *
		(sizeof(struct cache_ext_node) +
		 sizeof(struct cache_ext_data_chunk) / CACHE_EXT_CHUNK_NODES);
	/* With the retired tables: INIT_CHUNKS + ... + max_chunks / 2. */
	max_chunks = READ_ONCE(reg->max_chunks);
	bytes += (long)(max_chunks + (READ_ONCE(reg->nr_retired) ?
				      max_chunks - INIT_CHUNKS : 0)) *
		 (sizeof(*reg->nodes) + sizeof(*reg->data));
	rcu_read_lock();
	for (i = 0; i < 2; i++) {
		t = rcu_dereference(reg->buckets[i]);
		if (t)
			bytes += sizeof(u32) << t->bits;
	}
	rcu_read_unlock();
	return bytes;
}

static __always_inline u32 pfn_hash(u64 pfn)
{
	return hash_64(pfn, 32);
}

/*
 * Bucket table @i (0, or 1 during a resize).  Caller holds the lock, or is
 * the resize work, the only writer of the table pointers.
 */
static __always_inline struct cache_ext_buckets *
locked_table(struct cache_ext_registry *reg, int i)
{
	return rcu_dereference_protected(reg->buckets[i], true);
}

static __always_inline u32 *table_bucket(struct cache_ext_buckets *t, u32 h)
{
	return &t->head[h & ((1U << t->bits) - 1)];
}

/* The bucket that holds, or will hold, hash @h.  Caller holds the lock. */
static __always_inline u32 *bucket_of(struct cache_ext_registry *reg, u32 h)
{
	struct cache_ext_buckets *t0 = locked_table(reg, 0);
	struct cache_ext_buckets *t1 = locked_table(reg, 1);
	u32 i = h & ((1U << t0->bits) - 1);

	if (t1 && i < reg->moved)
		return table_bucket(t1, h);
	return &t0->head[i];
}

/*
 * Make node @idx, whose hash-chain word already names the first node of
 * @bucket, the first of its chain.  Release: a lockless walk that finds
 * @idx in @bucket finds the node written.
 */
static __always_inline void bucket_publish(u32 *bucket, u32 idx)
{
	/* Pairs with the acquire of chain_find_rcu(). */
	smp_store_release(bucket, idx);
}

/* Make node @idx the first of the chain of @bucket. */
static __always_inline void hash_insert(struct cache_ext_registry *reg,
					u32 *bucket, u32 idx)
{
	node_set_hnext(reg_node(reg, idx), *bucket);
	bucket_publish(bucket, idx);
}

/* Unlink node @idx from the chain of @bucket; @prev precedes it, or 0. */
static __always_inline void chain_unlink(struct cache_ext_registry *reg,
					 u32 *bucket, u32 prev, u32 idx)
{
	u32 next = reg_node(reg, idx)->hnext;

	if (prev)
		node_set_hnext(reg_node(reg, prev), next);
	else
		WRITE_ONCE(*bucket, next);
}

/* Unlink node @idx, which is on the chain of @bucket. */
static void hash_remove(struct cache_ext_registry *reg, u32 *bucket, u32 idx)
{
	u32 prev = 0, i;

	for (i = *bucket; i && i != idx; i = reg_node(reg, i)->hnext)
		prev = i;
	if (!WARN_ON_ONCE(!i))
		chain_unlink(reg, bucket, prev, idx);
}

/* The node of @pfn on the chain of @bucket, or 0. */
static __always_inline u32 chain_find(struct cache_ext_registry *reg,
				      u32 *bucket, u64 pfn)
{
	u32 i;

	for (i = *bucket; i; i = reg_node(reg, i)->hnext)
		if (node_has_pfn(reg_node(reg, i), pfn))
			return i;
	return 0;
}

static __always_inline u32 hash_find(struct cache_ext_registry *reg, u64 pfn)
{
	return chain_find(reg, bucket_of(reg, pfn_hash(pfn)), pfn);
}

/* The bucket of the folio node @idx names. */
static u32 *node_bucket(struct cache_ext_registry *reg, u32 idx)
{
	return bucket_of(reg, pfn_hash(node_pfn(reg_node(reg, idx))));
}

/**
 * cache_ext_registry_lookup - find the node of a folio of this binding
 * @b: the binding, locked
 * @folio: a folio: a hook's, or a trusted pointer from BPF (it points
 *	into the memory map, so its pfn can be computed)
 *
 * Return: the node's index, or 0 if @folio is not a tracked folio of @b.
 */
u32 cache_ext_registry_lookup(struct cache_ext_binding *b,
			      struct folio *folio)
{
	lockdep_assert_held(&b->lock);
	return hash_find(&b->registry, folio_pfn(folio));
}

/*
 * Whether node @idx names @pfn, read without the lock as chain_find_rcu()
 * reads each node of a chain: for an index remembered outside the hash
 * (the running call's, the CPU's last insertion).
 */
static bool node_names_pfn_rcu(struct cache_ext_registry *reg, u32 idx,
			       u64 pfn)
{
	struct cache_ext_node n;

	if (!idx)
		return false;
	/* Pairs with the release in registry_grow(). */
	if (idx >= smp_load_acquire(&reg->nr_chunks) * CACHE_EXT_CHUNK_NODES)
		return false;
	n = node_read_once(reg_node(reg, idx));
	return node_has_pfn(&n, pfn);
}

/**
 * cache_ext_call_node - the node the running call recorded for a folio
 * @b: the binding, locked or not
 * @folio: a folio a kfunc was given
 *
 * Under the lock or not: the node's words are read once, and a recorded
 * index was in a published chunk when it was recorded.
 *
 * Return: the node the running call recorded for @folio
 * (&cache_ext_call.folio), if the call is @b's and the node still names
 * @folio; else 0.
 */
u32 cache_ext_call_node(struct cache_ext_binding *b, struct folio *folio)
{
	struct cache_ext_call *call = cache_ext_current_call();

	if (!call || call->folio != folio || call->binding != b)
		return 0;
	return node_names_pfn_rcu(&b->registry, call->index,
				  folio_pfn(folio)) ? call->index : 0;
}

/**
 * cache_ext_registry_find - the node of a folio, using the running call's
 *	record of the folio it handled last
 * @b: the binding, locked
 * @folio: as for cache_ext_registry_lookup()
 *
 * The hooks and the iterator record the node of the folio they hand the
 * policy (&cache_ext_call.folio); a kfunc given that folio finds its node
 * without hashing, once it has checked the node still holds it.
 *
 * Return: the node's index, or 0 if @folio is not a tracked folio of @b.
 */
u32 cache_ext_registry_find(struct cache_ext_binding *b, struct folio *folio)
{
	lockdep_assert_held(&b->lock);
	return cache_ext_call_node(b, folio) ?: hash_find(&b->registry, folio_pfn(folio));
}

/*
 * The node of @pfn on the chain of hash @h in table @t, walked without the
 * lock; 0 if not found.  Every index is checked against the chunks
 * published before its node is read; the chunk count is loaded again
 * (acquire) only when an index is beyond the last one loaded.
 */
static u32 chain_find_rcu(struct cache_ext_registry *reg,
			  struct cache_ext_buckets *t, u32 h, u64 pfn)
{
	u32 end = 0, steps, idx;

	/*
	 * The node a head names is written: hash_insert(),
	 * cache_ext_registry_commit().
	 */
	idx = smp_load_acquire(table_bucket(t, h));

	for (steps = 0; idx && steps < RCU_WALK_MAX; steps++) {
		struct cache_ext_node n;

		if (idx >= end) {
			/* Pairs with the release in registry_grow(). */
			end = smp_load_acquire(&reg->nr_chunks) *
			      CACHE_EXT_CHUNK_NODES;
			if (idx >= end)
				return 0;
		}
		n = node_read_once(reg_node(reg, idx));
		if (node_has_pfn(&n, pfn))
			return idx;
		idx = n.hnext;
	}
	return 0;
}

/*
 * The node of @pfn, hash @h, in the tables of @reg, walked without the
 * lock: the first table, then the second while a resize fills it, then
 * the table that replaced the first if a resize ended meanwhile.  Caller
 * holds the RCU read lock.
 */
static u32 tables_find_rcu(struct cache_ext_registry *reg, u32 h, u64 pfn)
{
	struct cache_ext_buckets *t0, *t;
	u32 idx;

	t0 = rcu_dereference(reg->buckets[0]);
	idx = chain_find_rcu(reg, t0, h, pfn);
	if (idx)
		return idx;
	t = rcu_dereference(reg->buckets[1]);
	if (!t) {
		t = rcu_dereference(reg->buckets[0]);
		if (t == t0)
			return 0;
	}
	return chain_find_rcu(reg, t, h, pfn);
}

/**
 * cache_ext_registry_lookup_rcu - find the node of a folio without the lock
 * @b: a published binding
 * @folio: a folio the caller holds (a reference, its lock, or the page
 *	cache's hold under RCU), so that no other node can name its pfn
 *
 * For the hit path and the kfuncs that only read a node or its data.  The
 * table being resized is looked in too: first the old table, then the new
 * one, then, if the resize ended meanwhile, the table that replaced the
 * old one; a walk that found nothing while a resize moved buckets walks
 * again.  See the top of this file for what a racing change can do.
 *
 * First, though, the folio this CPU inserted last (&cache_ext_stash): a
 * read that missed marks the folio it brought in accessed right after
 * the insertion.  A stale record (the task moved to another CPU, the
 * folio removed since, its node reused) names a node that does not name
 * @folio's pfn, and costs the walk only.
 *
 * Return: the node's index, or 0 if it was not found.
 */
u32 cache_ext_registry_lookup_rcu(struct cache_ext_binding *b,
				  struct folio *folio)
{
	struct cache_ext_registry *reg = &b->registry;
	struct cache_ext_stash *stash = raw_cpu_ptr(reg->stash);
	u64 pfn = folio_pfn(folio);
	unsigned int seq;
	u32 h, idx;

	if (READ_ONCE(stash->last_folio) == folio) {
		idx = READ_ONCE(stash->last_idx);
		if (node_names_pfn_rcu(reg, idx, pfn))
			return idx;
	}

	h = pfn_hash(pfn);
	rcu_read_lock();
	do {
		/* Waits out a batch of moves: 256 buckets, under the lock. */
		seq = read_seqcount_begin(&reg->resize_seq);
		idx = tables_find_rcu(reg, h, pfn);
	} while (!idx && read_seqcount_retry(&reg->resize_seq, seq));
	rcu_read_unlock();
	return idx;
}

/**
 * cache_ext_registry_find_rcu - cache_ext_registry_find() without the lock
 * @b: a published binding
 * @folio: as for cache_ext_registry_lookup_rcu()
 *
 * Return: the node's index, or 0 if it was not found.
 */
u32 cache_ext_registry_find_rcu(struct cache_ext_binding *b,
				struct folio *folio)
{
	return cache_ext_call_node(b, folio) ?: cache_ext_registry_lookup_rcu(b, folio);
}

/* Link the nodes of chunk @c into the free list. */
static void chunk_free_nodes(struct cache_ext_registry *reg, u32 c, u32 first)
{
	u32 i;

	for (i = c * CACHE_EXT_CHUNK_NODES + CACHE_EXT_CHUNK_NODES; i-- > first;) {
		struct cache_ext_node *node = reg_node(reg, i);

		node_set_pfn(node, CACHE_EXT_NO_PFN);
		node->next = reg->free;
		reg->free = i;
		reg->nr_free++;
	}
}

/**
 * cache_ext_prealloc_fill - allocate what cache_ext_registry_needs() said
 * @pre: from cache_ext_registry_needs()
 * @memcg: the cgroup to charge: the inserted folio's
 * @gfp: the insertion's allocation context; may sleep if it allows
 *
 * What fails to allocate (or to be charged) stays NULL; the insertion
 * then may not track the folio.
 */
void cache_ext_prealloc_fill(struct cache_ext_prealloc *pre,
			     struct mem_cgroup *memcg, gfp_t gfp)
{
	struct mem_cgroup *old = set_active_memcg(memcg);

	gfp |= __GFP_NOWARN | __GFP_ACCOUNT;
	pre->nodes = kmalloc_array(CACHE_EXT_CHUNK_NODES,
				   sizeof(struct cache_ext_node), gfp);
	pre->data = kmem_cache_alloc(data_chunks, gfp);
	if (pre->max_chunks && pre->max_chunks <= CACHE_EXT_MAX_NODES /
						  CACHE_EXT_CHUNK_NODES) {
		pre->node_tbl = kvcalloc(pre->max_chunks,
					 sizeof(*pre->node_tbl), gfp);
		pre->data_tbl = kvcalloc(pre->max_chunks,
					 sizeof(*pre->data_tbl), gfp);
	}
	set_active_memcg(old);
}

/**
 * cache_ext_prealloc_free - free what an insertion did not use
 * @pre: the preallocation
 *
 * Not in an RCU read-side section: the tables may be vmalloc()ed.
 */
void cache_ext_prealloc_free(struct cache_ext_prealloc *pre)
{
	kfree(pre->nodes);
	if (pre->data)
		kmem_cache_free(data_chunks, pre->data);
	kvfree(pre->node_tbl);
	kvfree(pre->data_tbl);
}

/*
 * Add a chunk from @pre, growing the chunk tables from it if needed; with
 * nothing usable in @pre, do nothing.
 */
static void registry_grow(struct cache_ext_registry *reg,
			  struct cache_ext_prealloc *pre)
{
	u32 c = reg->nr_chunks;

	if (!pre->nodes || !pre->data)
		return;
	if (c == reg->max_chunks) {
		if (!pre->node_tbl || !pre->data_tbl ||
		    pre->max_chunks <= reg->max_chunks)
			return;
		if (WARN_ON_ONCE(reg->nr_retired == CACHE_EXT_TABLE_GROWTHS))
			return;
		memcpy(pre->node_tbl, reg->nodes, c * sizeof(*reg->nodes));
		memcpy(pre->data_tbl, reg->data, c * sizeof(*reg->data));
		/*
		 * A hook or the iterator may have loaded the old data table
		 * under the lock and index it after dropping it (reg_data()):
		 * the old tables are retired, not freed, until the registry
		 * is destroyed.  Each is at most half the next one's size, so
		 * together they take less than the live pair.  The copies
		 * are complete before the new tables are published.
		 */
		reg->retired[reg->nr_retired].nodes = reg->nodes;
		reg->retired[reg->nr_retired].data = reg->data;
		reg->nr_retired++;
		/* The copies above, before the tables: see reg_data(). */
		smp_store_release(&reg->nodes, pre->node_tbl);
		/* Likewise. */
		smp_store_release(&reg->data, pre->data_tbl);
		pre->node_tbl = NULL;
		pre->data_tbl = NULL;
		WRITE_ONCE(reg->max_chunks, pre->max_chunks);
	}
	reg->nodes[c] = pre->nodes;
	reg->data[c] = pre->data;
	pre->nodes = NULL;
	pre->data = NULL;
	/*
	 * The chunk in the tables before it counts: a lockless walk loads
	 * the count with acquire (chain_find_rcu()).
	 */
	smp_store_release(&reg->nr_chunks, c + 1);
	chunk_free_nodes(reg, c, c * CACHE_EXT_CHUNK_NODES);
}

/* Where the next resize starts, for the size of bucket table 0. */
static void set_resize_bounds(struct cache_ext_registry *reg)
{
	u8 bits = locked_table(reg, 0)->bits;
	u32 size = 1U << bits;

	reg->grow_at = 2 * size;
	reg->shrink_at = bits > BUCKET_BITS_MIN ? size / 2 : 0;
}

/* An empty bucket table of 1 << @bits buckets, or NULL. */
static struct cache_ext_buckets *table_alloc(u8 bits, gfp_t gfp)
{
	struct cache_ext_buckets *t;

	t = kvzalloc(struct_size(t, head, 1U << bits), gfp);
	if (t)
		t->bits = bits;
	return t;
}

/*
 * Queue a resize if the folios left one or two per bucket; until it has
 * run, no other is asked for.  Two compares: every insertion and removal
 * asks.
 */
static __always_inline void maybe_resize(struct cache_ext_binding *b)
{
	struct cache_ext_registry *reg = &b->registry;

	if (likely(reg->nr <= reg->grow_at && reg->nr >= reg->shrink_at))
		return;
	reg->grow_at = U32_MAX;
	reg->shrink_at = 0;
	queue_work(system_unbound_wq, &reg->resize_work);
}

/*
 * Move free nodes into @stash until it holds @want.  Caller holds the
 * binding's lock.
 */
static void stash_fill(struct cache_ext_registry *reg,
		       struct cache_ext_stash *stash, u32 want)
{
	while (stash->nr < want && reg->free) {
		u32 idx = reg->free;

		reg->free = reg_node(reg, idx)->next;
		reg->nr_free--;
		stash->idx[stash->nr++] = idx;
	}
}

/**
 * cache_ext_registry_reserve - take a node for a folio being inserted
 * @binding: binding of the folio's cgroup
 * @pre: memory the insertion may use (cache_ext_prealloc_fill()), or NULL
 *	if cache_ext_registry_needs() said none is needed; what it takes is
 *	set to NULL, what it replaces is put there
 * @folio: a folio just inserted into the page cache, locked
 * @admitted: false to drop the folio after the read that brought it in
 * @prefetched: readahead inserted the folio
 *
 * The node comes from this CPU's stash of free nodes, which the binding's
 * lock refills only when it is empty (the commits top it up).  It names
 * @folio but is on no hash chain and no list until
 * cache_ext_registry_commit(), so nothing else reaches it meanwhile: the
 * policy's folio_added() uses it through its call's record of the folio.
 * Its policy data starts at 0, its use count at 0, its prefetched bit at
 * @prefetched.
 *
 * Return: the node's index, or 0 if the folio cannot be tracked: no
 * memory, %CACHE_EXT_MAX_NODES reached, or a pfn beyond
 * %CACHE_EXT_PFN_BITS.
 */
u32 cache_ext_registry_reserve(struct cache_ext_binding *binding,
			       struct cache_ext_prealloc *pre,
			       struct folio *folio, bool admitted,
			       bool prefetched)
{
	struct cache_ext_registry *reg = &binding->registry;
	u64 pfn = folio_pfn(folio);
	struct cache_ext_stash *stash;
	unsigned long flags;
	u32 idx = 0;

	if (WARN_ON_ONCE(pfn >= CACHE_EXT_NO_PFN))
		return 0;

	stash = get_cpu_ptr(reg->stash);
	if (!stash->nr) {
		flags = cache_ext_lock_irqsave(binding);
		if (pre && reg->nr_free < CACHE_EXT_LOW_FREE)
			registry_grow(reg, pre);
		stash_fill(reg, stash, CACHE_EXT_STASH_NODES);
		spin_unlock_irqrestore(&binding->lock, flags);
	}
	if (stash->nr)
		idx = stash->idx[--stash->nr];
	put_cpu_ptr(reg->stash);
	if (!idx)
		return 0;

	/*
	 * Whole words: the fields are bitfields, and each one written alone
	 * is a read-modify-write.  A ring of one: on no list.
	 */
	*reg_node(reg, idx) = (struct cache_ext_node) {
		.next = idx,
		.prev = idx,
		.noadmit = !admitted,
		.pfn_lo = pfn,
		.pfn_hi = pfn >> 36,
	};
	*reg_data(reg, idx) = 0;
	/* A stale hit may count here meanwhile: lockless, as it does. */
	WRITE_ONCE(*reg_refs(reg, idx), 0);
	/*
	 * Chunks are not zeroed: every insertion sets its bit.  Atomic: a
	 * hit may clear another bit of the word without the lock.
	 */
	assign_bit(reg_bit(idx), reg_prefetched(reg, idx), prefetched);
	return idx;
}

/**
 * cache_ext_registry_commit - start tracking a folio whose node is reserved
 * @binding: as for cache_ext_registry_reserve()
 * @ins: the insertion, with the node cache_ext_registry_reserve() gave
 *
 * In one hold of the binding's lock: the node goes on its hash chain,
 * where hits and kfuncs find it, and to the list @ins names, and this
 * CPU's stash is topped up, so that the next insertions here take the
 * lock once each.
 */
void cache_ext_registry_commit(struct cache_ext_binding *binding,
			       struct cache_ext_insert *ins)
{
	struct cache_ext_registry *reg = &binding->registry;
	u64 pfn = folio_pfn(ins->folio);
	u32 *bucket, head, next, prev;
	struct cache_ext_stash *stash;
	unsigned long flags;

	flags = cache_ext_lock_irqsave(binding);
	ins->done = true;
	bucket = bucket_of(reg, pfn_hash(pfn));
	/*
	 * The page cache holds a folio once, and every folio leaving it
	 * passes the removal hook: a folio cannot be here already.  The
	 * check costs a chain walk per insertion, so only CONFIG_DEBUG_VM
	 * kernels make it.
	 */
	if (IS_ENABLED(CONFIG_DEBUG_VM) &&
	    WARN_ON_ONCE(chain_find(reg, bucket, pfn))) {
		reg_node(reg, ins->idx)->next = reg->free;
		node_set_pfn(reg_node(reg, ins->idx), CACHE_EXT_NO_PFN);
		reg->free = ins->idx;
		reg->nr_free++;
		goto out;
	}
	/*
	 * The node again, whole, with its links: one store per word, as
	 * cache_ext_registry_reserve() wrote it, rather than a
	 * read-modify-write per bitfield.
	 */
	next = ins->idx;
	prev = ins->idx;
	if (ins->list >= 0) {
		head = list_head_index(ins->list);
		next = ins->tail ? head : reg_node(reg, head)->next;
		prev = reg_node(reg, next)->prev;
		binding->lists[ins->list].nr++;
	}
	*reg_node(reg, ins->idx) = (struct cache_ext_node) {
		.next = next,
		.prev = prev,
		.list = ins->list + 1,
		.noadmit = !ins->admitted,
		.pfn_lo = pfn,
		.pfn_hi = pfn >> 36,
		.hnext = *bucket,
	};
	if (ins->list >= 0)
		node_link_neighbours(reg, ins->idx, prev, next);
	/* Last: the node is complete when a walk finds it. */
	bucket_publish(bucket, ins->idx);
	reg->nr++;
	stash = this_cpu_ptr(reg->stash);
	WRITE_ONCE(stash->last_folio, ins->folio);
	WRITE_ONCE(stash->last_idx, ins->idx);
	if (stash->nr < CACHE_EXT_STASH_NODES / 2)
		stash_fill(reg, stash, CACHE_EXT_STASH_NODES);
	maybe_resize(binding);
out:
	spin_unlock_irqrestore(&binding->lock, flags);
}

/* Free node @idx, already off its hash chain. */
static __always_inline void node_release(struct cache_ext_binding *b, u32 idx)
{
	struct cache_ext_registry *reg = &b->registry;
	struct cache_ext_node *node = reg_node(reg, idx);
	u32 list = node->list;

	if (list) {
		node_unlink_neighbours(reg, idx);
		b->lists[list - 1].nr--;
	}
	reg_clear_prefetched(reg, idx);
	/* One store per word, as in cache_ext_registry_commit(). */
	*node = (struct cache_ext_node) {
		.next = reg->free,
		.pfn_lo = CACHE_EXT_NO_PFN & GENMASK_ULL(35, 0),
		.pfn_hi = CACHE_EXT_NO_PFN >> 36,
	};
	reg->free = idx;
	reg->nr_free++;
	reg->nr--;
}

/**
 * cache_ext_registry_remove - stop tracking a folio
 * @binding: binding of the folio's cgroup, locked
 * @folio: the folio leaving the page cache
 * @data: receives the policy's u32 of the folio, unless NULL
 * @prefetched: set to whether the folio left before it was accessed,
 *	having come in by readahead
 *
 * Takes the folio off its list, if any.
 * Return: true if the folio was tracked.
 */
bool cache_ext_registry_remove(struct cache_ext_binding *binding,
			       struct folio *folio, u32 *data,
			       bool *prefetched)
{
	struct cache_ext_registry *reg = &binding->registry;
	u64 pfn = folio_pfn(folio);
	u32 *bucket = bucket_of(reg, pfn_hash(pfn));
	u32 idx, prev = 0;

	for (idx = *bucket; idx; prev = idx, idx = reg_node(reg, idx)->hnext)
		if (node_has_pfn(reg_node(reg, idx), pfn))
			break;
	if (!idx)
		return false;
	if (data)
		*data = *reg_data(reg, idx);
	*prefetched = reg_test_prefetched(reg, idx);
	chain_unlink(reg, bucket, prev, idx);
	node_release(binding, idx);
	maybe_resize(binding);
	return true;
}

/**
 * cache_ext_registry_rekey - a tracked folio was replaced by a copy
 * @binding: binding of the folios' cgroup, locked
 * @old: the folio leaving the page cache
 * @new: the folio taking its place
 *
 * The node, with its place on its list, its flags and the policy's data,
 * moves to @new.
 */
void cache_ext_registry_rekey(struct cache_ext_binding *binding,
			      struct folio *old, struct folio *new)
{
	struct cache_ext_registry *reg = &binding->registry;
	u32 idx = cache_ext_registry_lookup(binding, old);
	u64 pfn = folio_pfn(new);

	if (!idx)
		return;
	if (WARN_ON_ONCE(pfn >= CACHE_EXT_NO_PFN || hash_find(reg, pfn))) {
		/* Cannot happen; never leave a node that names no folio. */
		hash_remove(reg, node_bucket(reg, idx), idx);
		node_release(binding, idx);
		return;
	}
	/*
	 * @old is frozen by migration: no lockless walk looks for it, and
	 * none finds the node for @new before it is back in a chain.
	 */
	hash_remove(reg, node_bucket(reg, idx), idx);
	node_set_pfn(reg_node(reg, idx), pfn);
	hash_insert(reg, node_bucket(reg, idx), idx);
}

/**
 * cache_ext_cursor_get - a cursor node for a list iterator
 * @b: the binding, locked
 *
 * Return: its index, or 0 if all CACHE_EXT_FIRST_FOLIO -
 * CACHE_EXT_FIRST_CURSOR cursors are in use.
 */
u32 cache_ext_cursor_get(struct cache_ext_binding *b)
{
	struct cache_ext_registry *reg = &b->registry;
	u32 idx;

	lockdep_assert_held(&b->lock);
	if (!reg->cursors)
		return 0;
	idx = __ffs64(reg->cursors);
	reg->cursors &= ~BIT_ULL(idx);
	return idx;
}

/**
 * cache_ext_cursor_put - give back a cursor, off its list
 * @b: the binding, locked
 * @idx: from cache_ext_cursor_get()
 */
void cache_ext_cursor_put(struct cache_ext_binding *b, u32 idx)
{
	lockdep_assert_held(&b->lock);
	b->registry.cursors |= BIT_ULL(idx);
}

/*
 * Resize the hash table to one or two folios per bucket.  The new table
 * is allocated here, then filled a batch of buckets per lock hold while
 * the hooks go on using both (bucket_of()).  Each hold is a write section
 * of @resize_seq: a lockless walk that missed meanwhile walks again.
 */
static void resize_workfn(struct work_struct *work)
{
	struct cache_ext_binding *b =
		container_of(work, struct cache_ext_binding,
			     registry.resize_work);
	struct cache_ext_registry *reg = &b->registry;
	struct cache_ext_buckets *table, *old;
	struct mem_cgroup *memcg;
	unsigned long flags;
	u32 *from, *to;
	u8 bits;

	bits = max_t(u8, BUCKET_BITS_MIN,
		     order_base_2(max(READ_ONCE(reg->nr), 2U)) - 1);
	memcg = set_active_memcg(b->memcg);
	table = bits == locked_table(reg, 0)->bits ? NULL :
		table_alloc(bits, GFP_KERNEL_ACCOUNT);
	set_active_memcg(memcg);
	flags = cache_ext_lock_irqsave(b);
	if (!table) {
		/* No change needed, or no memory: the next hook asks again. */
		set_resize_bounds(reg);
		spin_unlock_irqrestore(&b->lock, flags);
		return;
	}
	old = locked_table(reg, 0);
	reg->moved = 0;
	write_seqcount_begin(&reg->resize_seq);
	rcu_assign_pointer(reg->buckets[1], table);
	for (;;) {
		u32 end = min(reg->moved + RESIZE_BATCH, 1U << old->bits);

		for (; reg->moved < end; reg->moved++) {
			from = &old->head[reg->moved];
			while (*from) {
				u32 idx = *from;
				u32 h = pfn_hash(node_pfn(reg_node(reg, idx)));

				to = table_bucket(table, h);
				WRITE_ONCE(*from, reg_node(reg, idx)->hnext);
				hash_insert(reg, to, idx);
			}
		}
		if (reg->moved == 1U << old->bits)
			break;
		write_seqcount_end(&reg->resize_seq);
		spin_unlock_irqrestore(&b->lock, flags);
		cond_resched();
		flags = cache_ext_lock_irqsave(b);
		write_seqcount_begin(&reg->resize_seq);
	}
	rcu_assign_pointer(reg->buckets[0], table);
	RCU_INIT_POINTER(reg->buckets[1], NULL);
	write_seqcount_end(&reg->resize_seq);
	set_resize_bounds(reg);
	spin_unlock_irqrestore(&b->lock, flags);
	/* A lockless walk may still be on it. */
	kvfree_rcu(old, rcu);
}

/**
 * cache_ext_registry_init - set up an empty registry
 * @binding: the new binding, not yet published
 *
 * Return: 0 or -ENOMEM.
 */
int cache_ext_registry_init(struct cache_ext_binding *binding)
{
	struct cache_ext_registry *reg = &binding->registry;
	struct mem_cgroup *memcg;
	u32 i;

	/* The list id and the pfn must fit their fields. */
	BUILD_BUG_ON(sizeof(struct cache_ext_node) != 16);
	BUILD_BUG_ON(CACHE_EXT_MAX_LISTS > 7);
	BUILD_BUG_ON((INIT_CHUNKS << CACHE_EXT_TABLE_GROWTHS) <
		     CACHE_EXT_MAX_NODES / CACHE_EXT_CHUNK_NODES);
	BUILD_BUG_ON(CACHE_EXT_FIRST_FOLIO > 64 ||
		     CACHE_EXT_FIRST_FOLIO > CACHE_EXT_CHUNK_NODES);
#ifdef MAX_PHYSMEM_BITS
	BUILD_BUG_ON(MAX_PHYSMEM_BITS - PAGE_SHIFT > CACHE_EXT_PFN_BITS);
#endif

	INIT_WORK(&reg->resize_work, resize_workfn);
	seqcount_spinlock_init(&reg->resize_seq, &binding->lock);
	memcg = set_active_memcg(binding->memcg);
	reg->stash = alloc_percpu_gfp(struct cache_ext_stash,
				      GFP_KERNEL_ACCOUNT);
	if (!reg->stash)
		goto fail;
	reg->max_chunks = INIT_CHUNKS;
	reg->nodes = kcalloc(INIT_CHUNKS, sizeof(*reg->nodes),
			     GFP_KERNEL_ACCOUNT);
	reg->data = kcalloc(INIT_CHUNKS, sizeof(*reg->data),
			    GFP_KERNEL_ACCOUNT);
	RCU_INIT_POINTER(reg->buckets[0],
			 table_alloc(BUCKET_BITS_MIN, GFP_KERNEL_ACCOUNT));
	if (!reg->nodes || !reg->data || !locked_table(reg, 0))
		goto fail;
	set_resize_bounds(reg);
	reg->nodes[0] = kmalloc_array(CACHE_EXT_CHUNK_NODES,
				      sizeof(struct cache_ext_node),
				      GFP_KERNEL_ACCOUNT);
	reg->data[0] = kmem_cache_zalloc(data_chunks, GFP_KERNEL_ACCOUNT);
	if (!reg->nodes[0] || !reg->data[0])
		goto fail;
	set_active_memcg(memcg);
	reg->nr_chunks = 1;

	/* Heads and cursors: rings of one, naming no folio. */
	for (i = 0; i < CACHE_EXT_FIRST_FOLIO; i++) {
		struct cache_ext_node *node = reg_node(reg, i);

		memset(node, 0, sizeof(*node));
		node->next = i;
		node->prev = i;
		node_set_pfn(node, CACHE_EXT_NO_PFN);
	}
	reg->cursors = GENMASK_ULL(CACHE_EXT_FIRST_FOLIO - 1,
				   CACHE_EXT_FIRST_CURSOR);
	chunk_free_nodes(reg, 0, CACHE_EXT_FIRST_FOLIO);
	return 0;
fail:
	set_active_memcg(memcg);
	cache_ext_registry_destroy(binding);
	return -ENOMEM;
}

/**
 * cache_ext_registry_destroy - free a registry
 * @binding: a binding no hook or callback can reach any more (unpublished,
 *	and an RCU grace period has passed)
 */
void cache_ext_registry_destroy(struct cache_ext_binding *binding)
{
	struct cache_ext_registry *reg = &binding->registry;
	u32 i;

	cancel_work_sync(&reg->resize_work);
	for (i = 0; i < reg->nr_chunks; i++) {
		kfree(reg->nodes[i]);
		kmem_cache_free(data_chunks, reg->data[i]);
	}
	for (i = 0; i < reg->nr_retired; i++) {
		kvfree(reg->retired[i].nodes);
		kvfree(reg->retired[i].data);
	}
	kvfree(reg->nodes);
	kvfree(reg->data);
	/* No reader is left: the binding is unpublished and a grace passed. */
	kvfree(locked_table(reg, 0));
	kvfree(locked_table(reg, 1));
	free_percpu(reg->stash);
	memset(reg, 0, sizeof(*reg));
}
