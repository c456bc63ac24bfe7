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
 * kfuncs (mm/cache_ext/lists.c, evict.c).  Every memcg argument names a
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
	return BPF_CORE_READ(memcg, css.cgroup, kn, id);
}

/* Inode number of a folio's file; 0 once the folio has left the cache. */
static __always_inline u64 cache_ext_folio_ino(struct folio *folio)
{
	return BPF_CORE_READ(folio, mapping, host, i_ino);
}

/*
 * Is the folio busy: still being read in, locked, dirty or under
 * writeback?  Reclaim cannot free it now (the kernel declines dirty and
 * writeback candidates and leaves them to the flushers), so proposing it
 * wastes a candidate slot.
 */
static __always_inline bool cache_ext_folio_busy(struct folio *folio)
{
	unsigned long flags = BPF_CORE_READ(folio, flags);

	return (flags & (1UL << PG_locked)) || (flags & (1UL << PG_writeback)) ||
	       (flags & (1UL << PG_dirty)) || !(flags & (1UL << PG_uptodate));
}

#endif /* __CACHE_EXT_BPF_H */
