/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache_ext: BPF page cache eviction policies per memory cgroup.
 *
 * A policy is a BPF struct_ops map of type struct cache_ext_ops.  Once
 * registered it can be bound to memory cgroups; while a cgroup is bound,
 * the page cache tells the policy about every file folio of that cgroup
 * that is added, accessed or removed, and reclaim asks the policy which
 * folios to evict.  See Documentation/bpf/cache_ext.rst.
 *
 * This header is the policies' contract (struct cache_ext_ops and what it
 * names) and the page cache's hooks.  What reclaim and cache_ext say to
 * each other is in mm/cache_ext/reclaim.h, what the control module uses
 * in mm/cache_ext/ctl.h.
 */
#ifndef _LINUX_CACHE_EXT_H
#define _LINUX_CACHE_EXT_H

#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/types.h>

struct address_space;
struct folio;
struct mem_cgroup;

/**
 * enum cache_ext_consts - limits of the cache_ext interface
 * @CACHE_EXT_NAME_LEN: size of &cache_ext_ops.name, including the NUL
 * @CACHE_EXT_MAX_BATCH: most folios reclaim asks a policy for in one
 *	&cache_ext_ops.evict_folios call
 * @CACHE_EXT_MAX_LISTS: most eviction lists one binding can create
 * @CACHE_EXT_ITER_MAX: most folios one list iterator yields
 * @CACHE_EXT_ERROR_BUDGET: foreign or duplicate candidates a binding may
 *	have proposed recently (the count halves every second) before its
 *	policy is ejected
 * @CACHE_EXT_OVERRUN_LIMIT: consecutive calls of a binding's
 *	evict_folios(), or of its event callbacks, over their time budget
 *	that eject its policy; one call over budget (a machine that stalled)
 *	does not
 * @CACHE_EXT_MAX_REFS: most uses of a folio the kernel counts between two
 *	looks of its policy (%CACHE_EXT_OPS_COUNT_REFS); the count saturates
 */
enum cache_ext_consts {
	CACHE_EXT_NAME_LEN	= 16,
	CACHE_EXT_MAX_BATCH	= 32,
	CACHE_EXT_MAX_LISTS	= 7,
	CACHE_EXT_ITER_MAX	= 1 << 16,
	CACHE_EXT_ERROR_BUDGET	= 64,
	CACHE_EXT_OVERRUN_LIMIT	= 4,
	CACHE_EXT_MAX_REFS	= 255,
};

/**
 * enum cache_ext_eject_reason - why a policy was ejected
 * @CACHE_EXT_EJECT_NONE: the policy is not ejected
 * @CACHE_EXT_EJECT_EVENT_TIMEOUT: %CACHE_EXT_OVERRUN_LIMIT event callbacks
 *	(folio_added(), folio_accessed(), folio_removed(), admit_folio()) in
 *	a row overran their time budget
 * @CACHE_EXT_EJECT_FOREIGN_FOLIO: it proposed folios of another cgroup it
 *	is bound to, beyond %CACHE_EXT_ERROR_BUDGET
 * @CACHE_EXT_EJECT_DUPLICATE: it proposed a folio twice in one request,
 *	beyond %CACHE_EXT_ERROR_BUDGET
 * @CACHE_EXT_EJECT_TOO_MANY: it proposed more candidates than requested
 * @CACHE_EXT_EJECT_TIMEOUT: %CACHE_EXT_OVERRUN_LIMIT evict_folios() calls
 *	in a row overran their time budget
 * @CACHE_EXT_EJECT_INIT_FAILED: init() failed for a cgroup
 * @CACHE_EXT_EJECT_KILLED: an administrator asked for it
 * @CACHE_EXT_EJECT_SELF: the policy gave up: it called
 *	bpf_cache_ext_eject_self() with a message saying why
 * @CACHE_EXT_EJECT_NR: number of reasons
 */
enum cache_ext_eject_reason {
	CACHE_EXT_EJECT_NONE,
	CACHE_EXT_EJECT_EVENT_TIMEOUT,
	CACHE_EXT_EJECT_FOREIGN_FOLIO,
	CACHE_EXT_EJECT_DUPLICATE,
	CACHE_EXT_EJECT_TOO_MANY,
	CACHE_EXT_EJECT_TIMEOUT,
	CACHE_EXT_EJECT_INIT_FAILED,
	CACHE_EXT_EJECT_KILLED,
	CACHE_EXT_EJECT_SELF,
	CACHE_EXT_EJECT_NR,
};

/**
 * enum cache_ext_ops_flags - what a policy asks the kernel to do for it
 * @CACHE_EXT_OPS_ADD_TO_LIST: every new folio goes to the tail of the
 *	binding's list 0 before &cache_ext_ops.folio_added is called (which
 *	may then move it, or be left out); the kernel creates list 0 after
 *	&cache_ext_ops.init if init() did not.  It saves a policy whose new
 *	folios all go there a callback and a kfunc call per insertion.
 * @CACHE_EXT_OPS_COUNT_REFS: the kernel counts the uses of every tracked
 *	folio that &cache_ext_ops.folio_accessed would be told of, up to
 *	%CACHE_EXT_MAX_REFS, and the policy takes the count when it looks
 *	at the folio (bpf_cache_ext_folio_take_refs()).  A policy that only
 *	counts uses needs no folio_accessed() then, and a hit calls no BPF.
 * @CACHE_EXT_OPS_ALL_FLAGS: every flag this kernel knows
 */
enum cache_ext_ops_flags {
	CACHE_EXT_OPS_ADD_TO_LIST	= 1ULL << 0,
	CACHE_EXT_OPS_COUNT_REFS	= 1ULL << 1,
	CACHE_EXT_OPS_ALL_FLAGS		= CACHE_EXT_OPS_ADD_TO_LIST |
					  CACHE_EXT_OPS_COUNT_REFS,
};

/**
 * struct bpf_iter_cache_ext_list - opaque state of a list iterator
 * @__opaque: kernel-private, see mm/cache_ext/lists.c
 */
struct bpf_iter_cache_ext_list {
	u64 __opaque[16];
} __aligned(8);

/**
 * struct cache_ext_eviction_ctx - one eviction request to a policy
 * @nr_requested: number of folios reclaim would like the policy to propose,
 *	at most %CACHE_EXT_MAX_BATCH
 * @nr_proposed: number of candidates the kernel holds for this request so
 *	far; kept by the kernel, read-only for the policy
 *
 * A policy proposes candidates with bpf_cache_ext_propose() (at most
 * @nr_requested) or scores them with bpf_cache_ext_propose_scored(), in
 * which case the kernel keeps the @nr_requested lowest scores.
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

#define CACHE_EXT_EXIT_MSG_LEN	128

/**
 * struct cache_ext_exit_info - why a binding ended, for &cache_ext_ops.exit
 * @reason: the policy's ejection reason, or %CACHE_EXT_EJECT_NONE if the
 *	binding ended without one (unbound, unregistered, cgroup removed)
 * @msg: for an ejection, what the policy did, in words: the callback and
 *	how long it ran, how many candidates it proposed for how many asked,
 *	the error init() returned; empty otherwise
 */
struct cache_ext_exit_info {
	enum cache_ext_eject_reason reason;
	char msg[CACHE_EXT_EXIT_MSG_LEN];
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
	 * for @memcg has returned, in process context; may sleep.  @info
	 * says whether the policy was ejected, why, and what it did (a
	 * policy that has no use for it may leave the argument out).
	 */
	void (*exit)(struct mem_cgroup *memcg,
		     const struct cache_ext_exit_info *info);

	/**
	 * @evict_folios: reclaim needs @ctx->nr_requested folios of @memcg.
	 *
	 * The policy proposes candidates with bpf_cache_ext_propose() or
	 * bpf_cache_ext_propose_scored().  Called from reclaim (direct,
	 * kswapd or memcg limit) with the RCU read lock held and preemption
	 * disabled: must not sleep.  One call per binding runs at a time;
	 * concurrent reclaimers of the cgroup wait for their turn, and the
	 * wait is not charged to the policy.  A call should return within
	 * the eviction time budget: past it the iterator ends and proposals
	 * are refused, and %CACHE_EXT_OVERRUN_LIMIT calls in a row over it
	 * eject the policy.  The kernel re-checks and reclaims the
	 * candidates; any shortfall is evicted by its own LRU.
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
	 * held: must not sleep.  Accesses through page tables come to
	 * @folio_mapped_accessed instead, or here if the policy leaves that
	 * callback out.
	 *
	 * Called on every page cache hit, with no lock of the binding
	 * taken: bpf_cache_ext_folio_data() and
	 * bpf_cache_ext_folio_prefetched() on @folio take none either.  A
	 * list kfunc here takes the binding's lock on every hit; keep to
	 * @folio's own state where the algorithm allows.  A policy that
	 * only counts uses leaves this out and has the kernel count them
	 * (%CACHE_EXT_OPS_COUNT_REFS): a hit then calls no BPF at all.
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
	 * right after the read (if it is still clean, unmapped and unused).
	 * Called once per folio a buffered read or readahead inserts, just
	 * before @folio_added, from process context with the RCU read lock
	 * held: must not sleep.
	 */
	bool (*admit_folio)(struct cache_ext_admit_ctx *ctx,
			    struct mem_cgroup *memcg);

	/**
	 * @folio_mapped_accessed: @folio was accessed through a mapping
	 * since the kernel last looked: its accessed bit was set in
	 * @nr_ptes page-table entries.
	 *
	 * An access through mmap sets only a page-table bit, which the
	 * kernel reads (and clears) in two places: when reclaim checks a
	 * folio it took, a policy's candidate or the LRU's, before evicting
	 * it (folio_referenced(); the candidate is then kept, and counts
	 * as neither an error nor a rejection), and, with MGLRU, when its
	 * page-table walk or look-around ages the cgroup.  So the report
	 * comes late: when the folio is next looked at, not when it is
	 * used, and several accesses in between are one report.  Called
	 * with @folio locked from reclaim, or unlocked under a page-table
	 * lock from MGLRU's walk, with the RCU read lock held: must not
	 * sleep.  If left out, folio_accessed() is called in its place.
	 */
	void (*folio_mapped_accessed)(struct folio *folio,
				      struct mem_cgroup *memcg, u32 nr_ptes);

	/**
	 * @flags: &enum cache_ext_ops_flags; registration fails with
	 * -EINVAL for a flag this kernel does not know.
	 */
	u64 flags;

	/**
	 * @cgroup_id: if not zero, the id of a cgroup (as returned by
	 * name_to_handle_at() on its cgroupfs directory) to bind to as soon
	 * as the policy is registered.  The cgroup must have the memory
	 * controller enabled.  Registration fails if the binding fails.
	 * The way to name the cgroup is its fd, at link creation
	 * (%BPF_F_CGROUP_FD, libbpf's bpf_map__attach_struct_ops_opts());
	 * this member stays for loaders whose libbpf has no way to pass
	 * it.  Given both, they must name the same cgroup (-EINVAL).
	 */
	u64 cgroup_id;

	/**
	 * @name: unique, non-empty name of the policy.  Registering a
	 * second policy with the same name fails with -EEXIST.
	 */
	char name[CACHE_EXT_NAME_LEN];
};

struct kernfs_open_file;
struct seq_file;

#ifdef CONFIG_CACHE_EXT

DECLARE_STATIC_KEY_FALSE(cache_ext_bound);
DECLARE_STATIC_KEY_FALSE(cache_ext_admitting);

void __cache_ext_folio_added(struct folio *folio, gfp_t gfp, bool refault);
void __cache_ext_folio_accessed(struct folio *folio);
void __cache_ext_folio_mapped_accessed(struct folio *folio, int nr_ptes);
void __cache_ext_folio_removed(struct folio *folio);
void __cache_ext_folio_read(struct folio *folio);
void __cache_ext_folio_replaced(struct folio *old, struct folio *new);
void __cache_ext_folio_split(struct folio *folio, struct folio *tail);
void cache_ext_memcg_online(struct mem_cgroup *memcg);
void cache_ext_memcg_offline(struct mem_cgroup *memcg);
bool __cache_ext_loop_cancelled(void);
int cache_ext_memcg_show(struct seq_file *m, void *v);
ssize_t cache_ext_memcg_write(struct kernfs_open_file *of, char *buf,
			      size_t nbytes, loff_t off);

/*
 * Page cache hooks.  A kernel without bound cgroups pays one patched-out
 * branch for each.
 */
static inline void cache_ext_folio_added(struct folio *folio, gfp_t gfp,
					 bool refault)
{
	if (static_branch_unlikely(&cache_ext_bound))
		__cache_ext_folio_added(folio, gfp, refault);
}

static inline void cache_ext_folio_accessed(struct folio *folio)
{
	if (static_branch_unlikely(&cache_ext_bound))
		__cache_ext_folio_accessed(folio);
}

/*
 * Reclaim or MGLRU's page-table walk found @folio's accessed bit set in
 * @nr_ptes page-table entries.  Page cache folios only: anonymous memory
 * is never reported.
 */
static inline void cache_ext_folio_mapped_accessed(struct folio *folio,
						   int nr_ptes)
{
	if (static_branch_unlikely(&cache_ext_bound) && nr_ptes > 0)
		__cache_ext_folio_mapped_accessed(folio, nr_ptes);
}

static inline void cache_ext_folio_removed(struct folio *folio)
{
	if (static_branch_unlikely(&cache_ext_bound))
		__cache_ext_folio_removed(folio);
}

/*
 * @new took @old's place in the page cache: migration, or
 * replace_page_cache_folio().
 */
static inline void cache_ext_folio_replaced(struct folio *old,
					    struct folio *new)
{
	if (static_branch_unlikely(&cache_ext_bound))
		__cache_ext_folio_replaced(old, new);
}

/*
 * @tail was split off @folio and stays in the page cache, in @folio's
 * memcg: __split_huge_page(), under the mapping's i_pages lock.
 */
static inline void cache_ext_folio_split(struct folio *folio,
					 struct folio *tail)
{
	if (static_branch_unlikely(&cache_ext_bound))
		__cache_ext_folio_split(folio, tail);
}

/*
 * A buffered read is done with @folio: drop it if it was not admitted.
 * Only policies with admit_folio() refuse folios, so only while one is
 * bound does a read pay for the look.
 */
static inline void cache_ext_folio_read(struct folio *folio)
{
	if (static_branch_unlikely(&cache_ext_admitting))
		__cache_ext_folio_read(folio);
}

/*
 * Must the BPF loop running here end now?  Yes when it runs in a policy's
 * callback that is past its time budget, or whose policy was ejected:
 * bpf_loop(), bpf_iter_num_next() and the maps' for-each helpers ask on
 * every iteration, so that no callback outlives its budget by more than
 * one iteration of its innermost loop.  While no cgroup is bound, one
 * patched-out branch.
 */
static inline bool cache_ext_loop_cancelled(void)
{
	if (static_branch_unlikely(&cache_ext_bound))
		return __cache_ext_loop_cancelled();
	return false;
}

/* Is any cgroup bound?  Reclaim asks before cache_ext_begin_reclaim(). */
static inline bool cache_ext_enabled(void)
{
	return static_branch_unlikely(&cache_ext_bound);
}

/*
 * Readahead brackets the insertion of a folio no caller waits for with
 * these (ra_add_folio() in mm/readahead.c), so that the insertion hook
 * can mark the folio as brought in ahead of use
 * (bpf_cache_ext_folio_prefetched()).  The mark is the task's, so it
 * holds across the insertion's sleeps; insertions do not nest.
 */
static inline void cache_ext_readahead_begin(void)
{
	current->in_cache_ext_readahead = 1;
}

static inline void cache_ext_readahead_end(void)
{
	current->in_cache_ext_readahead = 0;
}

#else /* !CONFIG_CACHE_EXT */

static inline void cache_ext_folio_added(struct folio *folio, gfp_t gfp,
					 bool refault) { }
static inline void cache_ext_folio_accessed(struct folio *folio) { }
static inline void cache_ext_folio_mapped_accessed(struct folio *folio,
						   int nr_ptes) { }
static inline void cache_ext_folio_removed(struct folio *folio) { }
static inline void cache_ext_folio_read(struct folio *folio) { }
static inline void cache_ext_folio_replaced(struct folio *old,
					    struct folio *new) { }
static inline void cache_ext_folio_split(struct folio *folio,
					 struct folio *tail) { }
static inline void cache_ext_memcg_online(struct mem_cgroup *memcg) { }
static inline void cache_ext_memcg_offline(struct mem_cgroup *memcg) { }
static inline bool cache_ext_enabled(void)
{
	return false;
}

static inline bool cache_ext_loop_cancelled(void)
{
	return false;
}

static inline void cache_ext_readahead_begin(void) { }
static inline void cache_ext_readahead_end(void) { }

#endif /* CONFIG_CACHE_EXT */

#endif /* _LINUX_CACHE_EXT_H */
