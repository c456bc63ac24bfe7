/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by every cache_ext policy: the kernel's types, libbpf's helper
 * macros, and small helpers to name the folio and cgroup a callback is
 * about.  Policies include only this file.
 */
#ifndef __CACHE_EXT_BPF_H
#define __CACHE_EXT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#ifndef ENOENT
#define EPERM		1
#define ENOENT		2
#define E2BIG		7
#define ENOMEM		12
#define EBUSY		16
#define EEXIST		17
#define EINVAL		22
#define ENOSPC		28
#define ETIME		62
#define EOPNOTSUPP	95
#endif

/*
 * Declare a struct_ops callback: CACHE_EXT_OP(name, args...).  BPF_PROG
 * names its own context "ctx": call the eviction context something else.
 */
#define CACHE_EXT_OP(name, args...)					\
	SEC("struct_ops/" #name) BPF_PROG(name, ##args)
/* The same for callbacks that may sleep (init, exit). */
#define CACHE_EXT_OP_SLEEPABLE(name, args...)				\
	SEC("struct_ops.s/" #name) BPF_PROG(name, ##args)

/*
 * kfuncs (mm/cache_ext/lists.c, evict.c, core.c).  Every memcg argument names a
 * binding, every folio argument a tracked folio of it; both are validated
 * and misuse returns a negative errno.
 */
extern s32 bpf_cache_ext_list_create(struct mem_cgroup *memcg) __ksym;
extern int bpf_cache_ext_list_add(struct mem_cgroup *memcg, u32 list,
				  struct folio *folio, bool tail) __ksym;
extern int bpf_cache_ext_list_move(struct mem_cgroup *memcg, u32 list,
				   struct folio *folio, bool tail) __ksym;
extern int bpf_cache_ext_list_del(struct mem_cgroup *memcg,
				  struct folio *folio) __ksym;
extern s64 bpf_cache_ext_list_size(struct mem_cgroup *memcg, u32 list) __ksym;
extern int bpf_iter_cache_ext_list_new(struct bpf_iter_cache_ext_list *it,
				       struct mem_cgroup *memcg, u32 list,
				       u32 max) __ksym;
extern struct folio *
bpf_iter_cache_ext_list_next(struct bpf_iter_cache_ext_list *it) __ksym;
extern void
bpf_iter_cache_ext_list_destroy(struct bpf_iter_cache_ext_list *it) __ksym;
extern int bpf_cache_ext_propose(struct cache_ext_eviction_ctx *ctx,
				 struct folio *folio) __ksym;
extern int bpf_cache_ext_propose_scored(struct cache_ext_eviction_ctx *ctx,
					struct folio *folio, s64 score) __ksym;
extern int bpf_cache_ext_propose_list(struct cache_ext_eviction_ctx *ctx,
				      struct mem_cgroup *memcg, u32 list,
				      u32 max) __ksym;
extern s64 bpf_cache_ext_list_rotate(struct mem_cgroup *memcg, u32 list,
				     u32 nr) __ksym;
extern u32 *bpf_cache_ext_folio_data(struct folio *folio,
				     int rdwr_buf_size) __ksym;
extern int bpf_cache_ext_folio_prefetched(struct folio *folio) __ksym;
/* With CACHE_EXT_OPS_COUNT_REFS: uses since the last call, then 0. */
extern int bpf_cache_ext_folio_take_refs(struct folio *folio) __ksym;
/*
 * Could reclaim not free @folio now (locked, dirty, under writeback, not
 * uptodate, off the LRU, or held by another reference)?  The kernel's own
 * test: proposing such a folio wastes a candidate slot.
 */
extern int bpf_cache_ext_folio_busy(struct folio *folio) __ksym;
/* Give up: the policy is ejected with @msg__str as the reason's text. */
extern int bpf_cache_ext_eject_self(struct mem_cgroup *memcg,
				    const char *msg__str) __ksym;

#define CACHE_EXT_HEAD	false
#define CACHE_EXT_TAIL	true

/*
 * for_each_list_folio(folio, memcg, list, max): walk up to @max folios
 * of a list from its head.  The body may move, delete or propose @folio.
 */
#define for_each_list_folio(folio, memcg, list, max)			\
	bpf_for_each(cache_ext_list, folio, memcg, list, max)

/* cgroup id of a binding's memcg, as seen by name_to_handle_at(). */
static __always_inline u64 cache_ext_memcg_id(struct mem_cgroup *memcg)
{
	return memcg->css.cgroup->kn->id;
}

/* Inode number of a folio's file; 0 once the folio has left the cache. */
static __always_inline u64 cache_ext_folio_ino(struct folio *folio)
{
	struct address_space *mapping = folio->mapping;

	return mapping ? mapping->host->i_ino : 0;
}

/* Page index of a folio in its file. */
static __always_inline u64 cache_ext_folio_index(struct folio *folio)
{
	return folio->index;
}

/*
 * Where a folio's data lives, independent of the folio: the key of ghost
 * (history) entries, which outlive the folio.  Valid until folio_removed()
 * returns.
 */
struct cache_ext_page_key {
	u64 cgroup;	/* the binding's cgroup: ghosts are per cgroup */
	u32 dev;
	u32 pad;
	u64 ino;
	u64 index;
};

static __always_inline void cache_ext_page_key(struct cache_ext_page_key *key,
					       struct folio *folio,
					       struct mem_cgroup *memcg)
{
	struct inode *host = folio->mapping->host;

	key->cgroup = cache_ext_memcg_id(memcg);
	key->dev = host->i_sb->s_dev;
	key->pad = 0;
	key->ino = host->i_ino;
	key->index = folio->index;
}

/*
 * Per-folio state of a policy: the folio's u32 in the registry
 * (bpf_cache_ext_folio_data()), viewed as @type (at most 4 bytes), or
 * NULL if the folio is not tracked.  Zero when the folio is added, kept
 * when migration replaces it, gone when it leaves the page cache (in
 * folio_removed() it is a copy).  The folio a callback is about and the
 * folio the iterator yielded last are found without a lookup.
 */
#define cache_ext_folio_state(folio, type)				\
({									\
	_Static_assert(sizeof(type) <= sizeof(u32),			\
		       "per-folio state is 4 bytes");			\
	(type *)bpf_cache_ext_folio_data(folio, sizeof(u32));		\
})

/* Ghost (history) entries a policy keeps: 512 MiB of 4 KiB pages. */
#define CACHE_EXT_MAX_FOLIOS	131072

/* Per-cgroup state of a policy bound to several cgroups. */
#define CACHE_EXT_CGROUP_MAP(map_name, value_type)			\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(max_entries, 64);				\
		__type(key, u64);					\
		__type(value, value_type);				\
	} map_name SEC(".maps")

/*
 * Propose folios from the head of @list until the request is full,
 * skipping busy ones, looking at @max folios at most: the eviction of
 * every FIFO-ordered list (fifo, mru, get_scan).  The kernel walks the
 * list in one call (bpf_cache_ext_propose_list()), which costs a fraction
 * of an iterator step and a proposal per folio.
 */
static __always_inline void
cache_ext_propose_from(struct cache_ext_eviction_ctx *req,
		       struct mem_cgroup *memcg, u32 list, u32 max)
{
	bpf_cache_ext_propose_list(req, memcg, list, max);
}

/*
 * Use counts and readahead.  Readahead brings folios in before anyone
 * asks for them (bpf_cache_ext_folio_prefetched()).  Counted as unused,
 * such a folio would have the lowest count of all and go first, to be
 * read again from disk a moment later, when its reader gets there.  So
 * a counting policy starts a prefetched folio's count one higher, as if
 * used once (the use readahead expects), and bit 31 of the count says
 * that its first access is that use, not a second one.  A folio nobody
 * reads then ranks with folios read once, by age: its grace period.
 */
#define CACHE_EXT_COUNT_PREFETCHED	(1U << 31)
#define CACHE_EXT_COUNT_MASK		(CACHE_EXT_COUNT_PREFETCHED - 1)

/*
 * In folio_added(): @count starts at 0, or as above.  The read or fault
 * that brought a folio in is its first use: the kernel counts it (or,
 * without CACHE_EXT_OPS_COUNT_REFS, calls folio_accessed() for it).
 */
static __always_inline void cache_ext_count_added(struct folio *folio,
						  u32 *count)
{
	if (bpf_cache_ext_folio_prefetched(folio) > 0)
		*count = 1 | CACHE_EXT_COUNT_PREFETCHED;
	else
		*count = 0;
}

/*
 * @uses more uses, up to @max: the first of a prefetched folio is the use
 * readahead expected and clears the mark; the others count.
 */
static __always_inline void cache_ext_count_uses(u32 *count, u32 uses,
						 u32 max)
{
	if (!uses)
		return;
	if (*count & CACHE_EXT_COUNT_PREFETCHED) {
		*count &= CACHE_EXT_COUNT_MASK;
		uses--;
	}
	if (*count < max)
		*count = max - *count > uses ? *count + uses : max;
}

/* In folio_accessed(): one more use, up to @max. */
static __always_inline void cache_ext_count_accessed(u32 *count, u32 max)
{
	cache_ext_count_uses(count, 1, max);
}

/*
 * Where a policy with CACHE_EXT_OPS_COUNT_REFS looks at @folio: the uses
 * the kernel counted since the last look, folded into @count as
 * cache_ext_count_accessed() would have folded them one by one.  Nothing
 * for a policy without the flag (the kfunc says -EOPNOTSUPP): its
 * folio_accessed() counts.
 */
static __always_inline void cache_ext_count_refs(struct folio *folio,
						 u32 *count, u32 max)
{
	int refs = bpf_cache_ext_folio_take_refs(folio);

	if (refs > 0)
		cache_ext_count_uses(count, refs, max);
}

/*
 * The same for a policy that keeps a first-use flag and a small count of
 * the uses after it (s3fifo's hits, the mglru port's refs): @uses uses of
 * the folio, the first sets *@used, the others add to *@count up to @max.
 */
static __always_inline void cache_ext_note_uses(u8 *used, u8 *count, u32 uses,
						u32 max)
{
	if (uses && !*used) {
		*used = 1;
		uses--;
	}
	*count = *count + uses < max ? *count + uses : max;
}

/*
 * LFU sampling: score folios from the head of @list with the u32 count of
 * uses each keeps in its per-folio state (0 when added, see
 * cache_ext_count_added()), then rotate them to the tail; the kernel
 * evicts the lowest counts.  The sample follows the request: it ends once
 * it holds @per_folio folios per folio asked for and, among them, as many
 * used at most once as were asked for (no folio scores lower), or at
 * @most folios.  A run of
 * folios used more than once (as at the head of a list that starts with
 * a hot file) does not end it, so that plain LFU's rule holds across such
 * a run as far as @most reaches: it does not evict a folio used five
 * times while one used once is cached, and a sample of the run alone
 * would.  Bounded by the list's length, so that no folio comes round
 * twice.
 *
 * What the sample found goes through a map, not variables of the loop: a
 * loop variable that a branch depends on keeps the verifier from folding
 * the iterations.  A call does not migrate, but it may be preempted, and
 * the call of another binding of the policy run on its CPU meanwhile: so
 * each call claims a slot of its CPU's value, and keeps it to itself.
 */
struct cache_ext_sample {
	u32 seen;	/* folios looked at */
	u32 once;	/* of them, used at most once */
};

/* Calls preempted on one CPU that can each hold a sample at once. */
#define CACHE_EXT_SAMPLE_SLOTS	4

struct cache_ext_samples {
	u32 busy;	/* a bit per slot held by a call */
	struct cache_ext_sample slot[CACHE_EXT_SAMPLE_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct cache_ext_samples);
} cache_ext_sample SEC(".maps");

static __always_inline void
cache_ext_score_by_count(struct cache_ext_eviction_ctx *req,
			 struct mem_cgroup *memcg, u32 list, u32 per_folio,
			 u32 most, u32 max)
{
	u32 want = req->nr_requested, key = 0, least, count, *state, i;
	struct cache_ext_samples *v;
	struct cache_ext_sample *s;
	struct folio *folio;

	v = bpf_map_lookup_elem(&cache_ext_sample, &key);
	if (!v)
		return;
	for (i = 0; i < CACHE_EXT_SAMPLE_SLOTS; i++)
		if (!(__sync_fetch_and_or(&v->busy, 1U << i) & (1U << i)))
			break;
	/* Every slot held by a call preempted here: the batch is the LRU's. */
	if (i >= CACHE_EXT_SAMPLE_SLOTS)
		return;
	s = &v->slot[i];
	if (want > CACHE_EXT_MAX_BATCH)
		want = CACHE_EXT_MAX_BATCH;
	least = per_folio * want;
	s->seen = 0;
	s->once = 0;
	for_each_list_folio(folio, memcg, list, most) {
		s->seen++;
		if (bpf_cache_ext_folio_busy(folio))
			goto next;
		state = cache_ext_folio_state(folio, u32);
		count = 0;
		if (state) {
			cache_ext_count_refs(folio, state, max);
			count = *state & CACHE_EXT_COUNT_MASK;
		}
		if (count <= 1)
			s->once++;
		bpf_cache_ext_propose_scored(req, folio, count);
next:
		if (s->seen >= least && s->once >= want)
			break;
	}
	bpf_cache_ext_list_rotate(memcg, list, s->seen);
	__sync_fetch_and_and(&v->busy, ~(1U << i));
}

/*
 * Threads named by user space: a hash of TIDs pinned by name under
 * /sys/fs/bpf, filled by the application or by an administrator.
 */
#define CACHE_EXT_TID_MAP(map_name)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(max_entries, 1024);				\
		__type(key, u32);					\
		__type(value, u8);					\
		__uint(pinning, LIBBPF_PIN_BY_NAME);			\
	} map_name SEC(".maps")

/* Is the current thread in a CACHE_EXT_TID_MAP? */
#define cache_ext_current_tid_in(map)					\
({									\
	u32 __tid = (u32)bpf_get_current_pid_tgid();			\
	!!bpf_map_lookup_elem(map, &__tid);				\
})

#endif /* __CACHE_EXT_BPF_H */
