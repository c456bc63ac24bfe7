// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext hooks: the page cache's events (a folio added, used, read,
 * replaced, split or removed) handed to the bound policy of the folio's
 * cgroup, and the registry kept exact meanwhile.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/cache_ext.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/rcupdate.h>
#include <linux/swap.h>

#include <trace/events/cache_ext.h>

#include "../internal.h"
#include "internal.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "cache_ext."

/*
 * The hooks run on every page cache event, so each declares its struct
 * cache_ext_call in the block that calls the policy: with
 * CONFIG_INIT_STACK_ALL_ZERO (the default where the compiler has it)
 * every local is cleared when its scope is entered, and clearing the
 * call's 128 bytes on every event cost more than the rest of a hook.
 */

/*
 * The binding of @memcg, the cgroup of file folio @folio, or NULL,
 * whatever its state: the registry must stay exact even while a policy
 * is set up or ejected.  Anonymous and shmem folios are never a policy's
 * business.  Caller holds the RCU read lock, or has interrupts off (an
 * RCU read-side critical section too: synchronize_rcu() waits for it).
 */
static __always_inline struct cache_ext_binding *
memcg_any_binding(struct mem_cgroup *memcg, struct folio *folio)
{
	if (folio_test_anon(folio) || folio_test_swapbacked(folio))
		return NULL;
	return rcu_dereference_check(memcg->cache_ext,
				     rcu_read_lock_any_held());
}

/* memcg_any_binding() for a hook that has not looked the memcg up. */
static __always_inline struct cache_ext_binding *
folio_any_binding(struct folio *folio)
{
	struct mem_cgroup *memcg = folio_memcg(folio);

	return memcg ? memcg_any_binding(memcg, folio) : NULL;
}

/*
 * @folio's memcg if it may have a binding, else NULL: the first test of
 * the hooks that run on every page cache event, so that while any cgroup
 * is bound the others pay two loads per event, not a lookup in an RCU
 * read-side section (make bench-core's "off" against "unbound").  The
 * pointer is only tested, not followed, so no RCU read lock is needed;
 * the memcg is alive, its charge of @folio holding it (a page cache folio
 * its caller holds a reference to, or has locked in the i_pages lock), so
 * the hook hands it on to its lookup (memcg_any_binding()).  A hook that
 * finds a binding looks it up again under the read lock, and may find
 * none by then, as a lookup racing with unbinding always could; one that
 * finds none races with a binding's publication as the lookup did.
 */
static __always_inline struct mem_cgroup *
folio_bound_memcg(struct folio *folio)
{
	struct mem_cgroup *memcg = folio_memcg(folio);

	return memcg && rcu_access_pointer(memcg->cache_ext) ? memcg : NULL;
}

/* @binding if its policy may be called, else NULL. */
static __always_inline struct cache_ext_binding *
binding_if_active(struct cache_ext_binding *binding)
{
	if (!binding || READ_ONCE(binding->state) != CACHE_EXT_BINDING_ACTIVE ||
	    atomic_read(&binding->policy->eject_reason))
		return NULL;
	return binding;
}

/* The binding of a folio's cgroup if its policy may be called, or NULL. */
static __always_inline struct cache_ext_binding *
folio_binding(struct folio *folio)
{
	return binding_if_active(folio_any_binding(folio));
}

/*
 * @call is about @folio, node @idx of its binding: the policy's
 * bpf_cache_ext_folio_data() and the registry lookups of its kfuncs find
 * the folio without hashing (cache_ext_registry_find()).
 */
static void call_hold_folio(struct cache_ext_call *call, struct folio *folio,
			    u32 idx)
{
	call->folio = folio;
	call->index = idx;
	call->data = reg_data(&call->binding->registry, idx);
}

/*
 * Track @folio, whose node @idx is reserved, in @binding: tell the policy
 * that it entered its cgroup's page cache if it listens (a policy without
 * folio_added() is told nothing, and only the kernel lists its folios),
 * then commit the node where the policy put it.  The policy's list kfuncs
 * on @folio record where it goes, so that the commit hashes and links it
 * in one hold of the binding's lock.  Caller holds the RCU read lock.
 */
static void track_folio(struct cache_ext_binding *binding,
			struct folio *folio, u32 idx, bool admitted,
			bool tell)
{
	struct cache_ext_insert ins = {
		.folio = folio,
		.idx = idx,
		.list = binding->ops->flags & CACHE_EXT_OPS_ADD_TO_LIST ? 0 : -1,
		.tail = true,
		.admitted = admitted,
	};

	/*
	 * @call in the block that calls BPF: CONFIG_INIT_STACK_ALL_ZERO
	 * clears it where it is declared, and most policies have no
	 * folio_added() (fifo's kernel lists its folios).
	 */
	if (tell && binding->ops->folio_added) {
		struct cache_ext_call call;

		cache_ext_enter(&call, binding, CACHE_EXT_T_ADDED);
		call_hold_folio(&call, folio, idx);
		call.insert = &ins;
		binding->ops->folio_added(folio, binding->memcg);
		cache_ext_leave(&call);
	}
	/* Unless a list kfunc committed it already (insert_flush()). */
	if (!ins.done)
		cache_ext_registry_commit(binding, &ins);
}

/*
 * The ghost of a folio: a hash of its place in the page cache, never 0,
 * and the slot of &cache_ext_binding.ra_ghosts it goes to.
 */
static u32 ra_ghost_key(struct folio *folio, u32 **slot,
			struct cache_ext_binding *binding)
{
	u64 h = hash_64((unsigned long)folio->mapping ^
			(folio->index * GOLDEN_RATIO_64), 64);

	*slot = &binding->ra_ghosts[h & (CACHE_EXT_RA_GHOSTS - 1)];
	return (u32)(h >> 32) | 1;
}

/*
 * A folio is read in again: if reclaim evicted it unread after readahead
 * brought it in, count it (once).
 */
static void note_prefetch_refault(struct cache_ext_binding *binding,
				  struct folio *folio)
{
	u32 *slot, key = ra_ghost_key(folio, &slot, binding);

	if (READ_ONCE(*slot) == key && cmpxchg(slot, key, 0) == key)
		atomic_long_inc(&binding->stats.prefetch_refaults);
}

/*
 * Track @folio, just inserted, in @binding, whose policy is told of
 * folios: its registry node is reserved, allocating for the registry if
 * it must grow, and the policy asked to admit it and told of it.  Apart
 * from memcg_folio_added(), so that its large frame is set up only for a
 * binding that tracks folios.  Caller holds the RCU read lock,
 * which is dropped and taken again around an allocation.
 */
static noinline void folio_added(struct cache_ext_binding *binding,
				 struct folio *folio, gfp_t gfp,
				 bool prefetched)
{
	/* Set up by cache_ext_registry_needs() if it is used. */
	struct cache_ext_prealloc pre __uninitialized;
	bool admitted = true, need;
	u32 idx;

	need = cache_ext_registry_needs(&binding->registry, &pre);
	if (need) {
		/*
		 * Allocation may sleep: outside the RCU section, so look
		 * the binding up again; it may even be another one by now.
		 */
		rcu_read_unlock();
		cache_ext_prealloc_fill(&pre, folio_memcg(folio),
					gfp & GFP_RECLAIM_MASK & ~__GFP_NOFAIL);
		rcu_read_lock();
		binding = folio_binding(folio);
		if (!binding || !binding->tracks)
			goto out;
	}

	if (binding->ops->admit_folio && !(gfp & __GFP_WRITE)) {
		struct cache_ext_admit_ctx ctx = {
			.mapping = folio->mapping,
			.index = folio->index,
			.nr_pages = folio_nr_pages(folio),
		};
		struct cache_ext_call call;

		cache_ext_enter(&call, binding, CACHE_EXT_T_ADMIT);
		admitted = binding->ops->admit_folio(&ctx, binding->memcg);
		cache_ext_leave(&call);
	}

	idx = cache_ext_registry_reserve(binding, need ? &pre : NULL, folio,
					 admitted, prefetched);
	if (!idx) {
		atomic_long_inc(&binding->stats.untracked);
		goto out;
	}
	track_folio(binding, folio, idx, admitted, true);
out:
	if (need)
		cache_ext_prealloc_free(&pre);
}

/*
 * The work of __cache_ext_folio_added() in a cgroup that may have a
 * binding, @memcg: apart, so that the others' test sets up no frame.
 */
static noinline void memcg_folio_added(struct mem_cgroup *memcg,
				       struct folio *folio, gfp_t gfp,
				       bool refault)
{
	struct cache_ext_binding *binding;
	bool prefetched;

	rcu_read_lock();
	binding = binding_if_active(memcg_any_binding(memcg, folio));
	if (!binding)
		goto out;
	prefetched = current->in_cache_ext_readahead;
	if (!(gfp & __GFP_WRITE)) {
		this_cpu_inc(binding->stats.effect->misses);
		if (refault) {
			this_cpu_inc(binding->stats.effect->refaults);
			note_prefetch_refault(binding, folio);
		}
		if (prefetched)
			this_cpu_inc(binding->stats.effect->prefetched);
	}
	if (binding->tracks)
		folio_added(binding, folio, gfp, prefetched);
out:
	rcu_read_unlock();
}

/*
 * Called by filemap_add_folio() with the new folio locked.  @gfp is the
 * insertion's allocation context; reads pass no __GFP_WRITE, and only
 * those are asked about admission and counted as misses.  @refault: the
 * page cache held the shadow of a folio evicted from this index.  The
 * folio is prefetched if readahead inserts it (cache_ext_readahead_begin()).
 */
void __cache_ext_folio_added(struct folio *folio, gfp_t gfp, bool refault)
{
	struct mem_cgroup *memcg = folio_bound_memcg(folio);

	if (memcg)
		memcg_folio_added(memcg, folio, gfp, refault);
}

/*
 * @folio of @binding was used: it is prefetched no more.  The page cache
 * hit path: no lock is taken and nothing shared is written, only the
 * folio's own prefetched bit, once (cache_ext_registry_lookup_rcu()).
 *
 * Return: the folio's node, if the binding tracks folios and it was
 * found, else 0.
 */
static u32 note_folio_used(struct cache_ext_binding *binding,
			   struct folio *folio)
{
	u32 idx;

	if (!binding->tracks)
		return 0;
	idx = cache_ext_registry_lookup_rcu(binding, folio);
	if (idx)
		reg_clear_prefetched(&binding->registry, idx);
	return idx;
}

/*
 * Tell @binding's policy that @folio was used: count the use if the
 * policy has the kernel count them, and call it if it listens.  @idx is
 * the folio's node if the caller found it (0 if not): the policy's
 * bpf_cache_ext_folio_data() then needs no lookup.  Caller holds the RCU
 * read lock.
 */
static void tell_folio_accessed(struct cache_ext_binding *binding,
				struct folio *folio, u32 idx)
{
	if (idx && binding->count_refs)
		reg_count_ref(&binding->registry, idx);
	if (binding->ops->folio_accessed) {
		struct cache_ext_call call;

		cache_ext_enter(&call, binding, CACHE_EXT_T_ACCESSED);
		if (idx)
			call_hold_folio(&call, folio, idx);
		binding->ops->folio_accessed(folio, binding->memcg);
		cache_ext_leave(&call);
	}
}

/* Called by folio_mark_accessed(). */
void __cache_ext_folio_accessed(struct folio *folio)
{
	struct cache_ext_binding *binding;
	struct mem_cgroup *memcg;

	/* Already truncated: the policy has seen it leave. */
	if (!READ_ONCE(folio->mapping))
		return;
	memcg = folio_bound_memcg(folio);
	if (!memcg)
		return;

	rcu_read_lock();
	binding = binding_if_active(memcg_any_binding(memcg, folio));
	if (!binding)
		goto out;
	this_cpu_inc(binding->stats.effect->accesses);
	/* Told of no folio: a policy that only evicts (noop). */
	if (!binding->tracks)
		goto out;
	/*
	 * Referenced already: readahead inserts folios unreferenced, and
	 * the first access of one clears its prefetched bit here before the
	 * kernel marks it (reclaim and MGLRU report a use through a mapping
	 * before they mark it; the BPF contract names the uses no hook is
	 * told of), so a referenced folio has no prefetched bit to clear.
	 * A policy that neither counts uses nor listens needs nothing more
	 * of this hit: it costs no lookup.
	 */
	if (!binding->count_refs && !binding->ops->folio_accessed &&
	    folio_test_referenced(folio))
		goto out;
	tell_folio_accessed(binding, folio, note_folio_used(binding, folio));
out:
	rcu_read_unlock();
}

/* Off: measure what the mapped-access reports are worth (make eval). */
static bool report_mapped = true;
module_param_named(mapped_accesses, report_mapped, bool, 0644);
MODULE_PARM_DESC(mapped_accesses,
		 "tell policies of accesses through page tables (folio_mapped_accessed); default on");

/*
 * Called by reclaim (folio_check_references(), @folio locked) and by
 * MGLRU's page-table walk and look-around (under a page-table lock) for
 * a folio whose accessed bit they found set in @nr_ptes page-table
 * entries.  Anonymous and shmem folios have no binding's policy to tell.
 */
void __cache_ext_folio_mapped_accessed(struct folio *folio, int nr_ptes)
{
	struct cache_ext_binding *binding;
	struct mem_cgroup *memcg;
	u32 idx;

	if (!READ_ONCE(report_mapped) || !READ_ONCE(folio->mapping))
		return;
	memcg = folio_bound_memcg(folio);
	if (!memcg)
		return;

	rcu_read_lock();
	binding = binding_if_active(memcg_any_binding(memcg, folio));
	if (!binding)
		goto out;
	this_cpu_inc(binding->stats.effect->mapped_accesses);
	idx = note_folio_used(binding, folio);
	if (binding->ops->folio_mapped_accessed) {
		struct cache_ext_call call;

		cache_ext_enter(&call, binding, CACHE_EXT_T_MAPPED);
		if (idx)
			call_hold_folio(&call, folio, idx);
		binding->ops->folio_mapped_accessed(folio, binding->memcg,
						    nr_ptes);
		cache_ext_leave(&call);
	} else {
		tell_folio_accessed(binding, folio, idx);
	}
out:
	rcu_read_unlock();
}

/*
 * The work of __cache_ext_folio_removed() for a binding that tracks
 * folios, as folio_added()'s.  The i_pages lock is held with interrupts
 * off: @binding cannot be freed meanwhile (see folio_any_binding()).
 * rcu_read_lock() is taken only around the policy, which the BPF helpers
 * expect.
 */
static noinline void folio_removed(struct cache_ext_binding *binding,
				   struct folio *folio)
{
	bool tracked, prefetched;
	u32 data = 0;

	cache_ext_lock(binding);
	tracked = cache_ext_registry_remove(binding, folio,
					    binding->ops->folio_removed ?
					    &data : NULL, &prefetched);
	spin_unlock(&binding->lock);
	/* Reclaimers run with PF_MEMALLOC; truncation does not. */
	if (tracked && prefetched && (current->flags & PF_MEMALLOC)) {
		u32 *slot, key = ra_ghost_key(folio, &slot, binding);

		atomic_long_inc(&binding->stats.prefetch_evicted);
		WRITE_ONCE(*slot, key);
	}
	if (!tracked || !binding->ops->folio_removed)
		return;

	rcu_read_lock();
	if (binding == folio_binding(folio)) {
		struct cache_ext_call call;

		cache_ext_enter(&call, binding, CACHE_EXT_T_REMOVED);
		call.removed_data = data;
		call.folio = folio;
		call.index = 0;
		call.data = &call.removed_data;
		binding->ops->folio_removed(folio, binding->memcg);
		cache_ext_leave(&call);
	}
	rcu_read_unlock();
}

/*
 * Called under the mapping's i_pages lock for every folio leaving it.
 * The folio leaves the registry and its list even if the policy is being
 * ejected, so that no node outlives its folio.
 */
void __cache_ext_folio_removed(struct folio *folio)
{
	struct mem_cgroup *memcg = folio_bound_memcg(folio);
	struct cache_ext_binding *binding;

	lockdep_assert_irqs_disabled();
	if (!memcg)
		return;
	binding = memcg_any_binding(memcg, folio);
	if (binding && binding->tracks)
		folio_removed(binding, folio);
}

/*
 * Called by __folio_migrate_mapping() and replace_page_cache_folio() under
 * the i_pages lock, both folios locked, @new already in @old's place and
 * charged to @old's memory cgroup.  Neither goes through the removal and
 * insertion hooks, so the registry entry, with its place on the policy's
 * lists, moves to @new.  Like removal, this keeps the registry right even
 * while the policy is being ejected.
 */
void __cache_ext_folio_replaced(struct folio *old, struct folio *new)
{
	struct cache_ext_binding *binding;
	unsigned long flags;

	rcu_read_lock();
	binding = folio_any_binding(old);
	if (binding && binding->tracks) {
		flags = cache_ext_lock_irqsave(binding);
		cache_ext_registry_rekey(binding, old, new);
		spin_unlock_irqrestore(&binding->lock, flags);
	}
	rcu_read_unlock();
}

/*
 * Called by __split_huge_page() for each folio @tail split off @folio that
 * stays in the page cache, under the mapping's i_pages lock with
 * interrupts off, once the split is done (@folio is the first of the new
 * folios and keeps its node, its place and its policy data).  If @folio is
 * tracked, @tail is tracked from now on too, as if it had just been
 * inserted: its data starts at 0 and the policy's folio_added() is told,
 * but admission is not asked and no miss is counted; it is prefetched if
 * @folio is.  Memory for the
 * registry is allocated atomically; without it @tail stays untracked, and
 * is counted so.
 */
void __cache_ext_folio_split(struct folio *folio, struct folio *tail)
{
	struct cache_ext_prealloc pre __uninitialized;
	struct cache_ext_binding *binding;
	bool need, prefetched;
	u32 idx;

	lockdep_assert_irqs_disabled();
	binding = folio_any_binding(folio);
	if (!binding || !binding->tracks)
		return;
	idx = cache_ext_registry_lookup_rcu(binding, folio);
	prefetched = idx && reg_test_prefetched(&binding->registry, idx);
	if (!idx)
		return;

	need = cache_ext_registry_needs(&binding->registry, &pre);
	if (need)
		cache_ext_prealloc_fill(&pre, folio_memcg(folio), GFP_ATOMIC);
	idx = cache_ext_registry_reserve(binding, need ? &pre : NULL, tail,
					 true, prefetched);
	/* kmalloc()ed only: atomic allocations do not fall back to vmalloc. */
	if (need)
		cache_ext_prealloc_free(&pre);
	if (!idx) {
		atomic_long_inc(&binding->stats.untracked);
		return;
	}

	rcu_read_lock();
	track_folio(binding, tail, idx, true, binding == folio_binding(tail));
	rcu_read_unlock();
}

/*
 * Called by filemap_read() for each folio it copied from.  A folio the
 * policy did not admit is dropped now, if nobody else uses it: clean, not
 * under writeback, not mapped, and only the reader's reference besides
 * the page cache's.
 */
void __cache_ext_folio_read(struct folio *folio)
{
	struct cache_ext_binding *binding;
	struct address_space *mapping;
	struct mem_cgroup *memcg;
	bool drop = false;
	u32 idx;

	rcu_read_lock();
	binding = folio_binding(folio);
	if (binding && binding->ops->admit_folio) {
		/* Every read asks: no lock, and the node's word read once. */
		idx = cache_ext_registry_lookup_rcu(binding, folio);
		if (idx) {
			struct cache_ext_node n =
				node_read_once(reg_node(&binding->registry, idx));

			drop = n.noadmit;
		}
	}
	rcu_read_unlock();
	if (!drop || !folio_trylock(folio))
		return;
	/*
	 * A folio just read in may still wait in this CPU's LRU-add batch,
	 * whose reference would make mapping_evict_folio() refuse it.  If
	 * the reader moved since it added the folio, the batch is another
	 * CPU's; draining every CPU would sleep on a read path and disturb
	 * isolated CPUs, so the folio stays, still not admitted, for its
	 * next read (which asks again) or reclaim.
	 */
	if (!folio_test_lru(folio))
		lru_add_drain();
	if (!folio_test_lru(folio)) {
		folio_unlock(folio);
		return;
	}

	/* The reader's reference keeps the folio's memcg alive. */
	memcg = folio_memcg(folio);
	mapping = folio->mapping;
	drop = mapping && !folio_test_dirty(folio) &&
	       !folio_test_writeback(folio) && !folio_mapped(folio) &&
	       mapping_evict_folio(mapping, folio);
	folio_unlock(folio);

	if (drop) {
		rcu_read_lock();
		binding = rcu_dereference(memcg->cache_ext);
		if (binding)
			atomic_long_inc(&binding->stats.not_admitted);
		rcu_read_unlock();
	}
}
