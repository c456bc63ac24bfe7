/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache_ext: BPF page cache eviction policies per memory cgroup.
 *
 * A policy is a BPF struct_ops map of type struct cache_ext_ops.  Once
 * registered it can be bound to memory cgroups; while a cgroup is bound,
 * the page cache tells the policy about every file folio of that cgroup
 * that is added, accessed or removed, and reclaim asks the policy which
 * folios to evict.  See Documentation/bpf/cache_ext.rst.
 */
#ifndef _LINUX_CACHE_EXT_H
#define _LINUX_CACHE_EXT_H

#include <linux/jump_label.h>
#include <linux/types.h>

struct address_space;
struct folio;
struct mem_cgroup;

/**
 * enum cache_ext_consts - limits of the cache_ext interface
 * @CACHE_EXT_NAME_LEN: size of &cache_ext_ops.name, including the NUL
 * @CACHE_EXT_MAX_BATCH: most folios reclaim asks a policy for in one
 *	&cache_ext_ops.evict_folios call
 */
enum cache_ext_consts {
	CACHE_EXT_NAME_LEN	= 16,
	CACHE_EXT_MAX_BATCH	= 32,
};

/**
 * struct cache_ext_eviction_ctx - one eviction request to a policy
 * @nr_requested: number of folios reclaim would like the policy to propose,
 *	at most %CACHE_EXT_MAX_BATCH
 * @nr_proposed: number of candidates proposed so far in this request; kept
 *	by the kernel, read-only for the policy
 */
struct cache_ext_eviction_ctx {
	u32 nr_requested;
	u32 nr_proposed;
};

/**
 * struct cache_ext_admit_ctx - one admission question to a policy
 * @mapping: the file the folio is being read into
 * @index: page index of the folio in @mapping
 * @nr_pages: number of pages of the folio
 */
struct cache_ext_admit_ctx {
	struct address_space *mapping;
	pgoff_t index;
	u32 nr_pages;
};

/**
 * struct cache_ext_ops - a page cache eviction policy
 *
 * All callbacks are optional.  Folio callbacks see only file-backed page
 * cache folios (not shmem, not hugetlb) charged to a memory cgroup the
 * policy is bound to.  The @memcg argument of every callback is that
 * binding's cgroup; a policy bound to several cgroups keeps per-cgroup
 * state keyed by it.
 */
struct cache_ext_ops {
	/**
	 * @init: a binding of this policy to @memcg is being created.
	 *
	 * Called once per binding, before any other callback for @memcg,
	 * in process context; may sleep (``SEC("struct_ops.s/init")``).
	 * Return 0 or a negative errno; an error refuses the binding.
	 */
	s32 (*init)(struct mem_cgroup *memcg);

	/**
	 * @exit: the binding to @memcg has ended (unbound, policy
	 * unregistered, cgroup removed, or policy ejected).
	 *
	 * Called once per successful @init, after the last folio callback
	 * for @memcg has returned, in process context; may sleep.
	 */
	void (*exit)(struct mem_cgroup *memcg);

	/**
	 * @evict_folios: reclaim needs @ctx->nr_requested folios of @memcg.
	 *
	 * The policy proposes candidates with the candidate kfuncs.  Called
	 * from reclaim with the RCU read lock held: must not sleep.  Any
	 * shortfall is evicted by the kernel's own LRU.
	 */
	void (*evict_folios)(struct cache_ext_eviction_ctx *ctx,
			     struct mem_cgroup *memcg);

	/**
	 * @folio_added: @folio was inserted into the page cache.
	 *
	 * Called with @folio locked and charged to @memcg, before it is
	 * uptodate, from process context with the RCU read lock held:
	 * must not sleep.
	 */
	void (*folio_added)(struct folio *folio, struct mem_cgroup *memcg);

	/**
	 * @folio_accessed: @folio was read or written through a file
	 * descriptor (folio_mark_accessed()).
	 *
	 * @folio may or may not be locked.  Called with the RCU read lock
	 * held: must not sleep.  Accesses through mmap are not reported.
	 */
	void (*folio_accessed)(struct folio *folio, struct mem_cgroup *memcg);

	/**
	 * @folio_removed: @folio is leaving the page cache (eviction,
	 * truncation, invalidation, deletion of the file).
	 *
	 * Called with @folio locked and the mapping's i_pages lock held
	 * with interrupts disabled: must not sleep and should be short.
	 * The folio is still in the page cache when this is called.
	 */
	void (*folio_removed)(struct folio *folio, struct mem_cgroup *memcg);

	/**
	 * @admit_folio: a buffered read missed the page cache.
	 *
	 * Return true to cache the folio as usual, false to have the data
	 * read and handed to the reader but dropped from the page cache
	 * right after.  Called from process context with the RCU read lock
	 * held: must not sleep.
	 */
	bool (*admit_folio)(struct cache_ext_admit_ctx *ctx,
			    struct mem_cgroup *memcg);

	/**
	 * @cgroup_id: if not zero, the id of a cgroup (as returned by
	 * name_to_handle_at() on its cgroupfs directory) to bind to as soon
	 * as the policy is registered.  The cgroup must have the memory
	 * controller enabled.  Registration fails if the binding fails.
	 */
	u64 cgroup_id;

	/**
	 * @name: unique, non-empty name of the policy.  Registering a
	 * second policy with the same name fails with -EEXIST.
	 */
	char name[CACHE_EXT_NAME_LEN];
};

#ifdef CONFIG_CACHE_EXT

DECLARE_STATIC_KEY_FALSE(cache_ext_bound);

void __cache_ext_folio_added(struct folio *folio);
void __cache_ext_folio_accessed(struct folio *folio);
void __cache_ext_folio_removed(struct folio *folio);
void cache_ext_memcg_offline(struct mem_cgroup *memcg);

/*
 * Page cache hooks.  A kernel without bound cgroups pays one patched-out
 * branch for each.
 */
static inline void cache_ext_folio_added(struct folio *folio)
{
	if (static_branch_unlikely(&cache_ext_bound))
		__cache_ext_folio_added(folio);
}

static inline void cache_ext_folio_accessed(struct folio *folio)
{
	if (static_branch_unlikely(&cache_ext_bound))
		__cache_ext_folio_accessed(folio);
}

static inline void cache_ext_folio_removed(struct folio *folio)
{
	if (static_branch_unlikely(&cache_ext_bound))
		__cache_ext_folio_removed(folio);
}

#else /* !CONFIG_CACHE_EXT */

static inline void cache_ext_folio_added(struct folio *folio) { }
static inline void cache_ext_folio_accessed(struct folio *folio) { }
static inline void cache_ext_folio_removed(struct folio *folio) { }
static inline void cache_ext_memcg_offline(struct mem_cgroup *memcg) { }

#endif /* CONFIG_CACHE_EXT */

#endif /* _LINUX_CACHE_EXT_H */
