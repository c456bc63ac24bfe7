/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * The counters of a binding, in attribute order, one
 * CACHE_EXT_STAT(ATTR, field) per u64 attribute CACHE_EXT_A_STAT_<ATTR>
 * whose name, <field>, is also its line in the stats files (debugfs and
 * sysfs) and its row in "cachectl stats"; CACHE_EXT_STAT_PAD(PAD) where
 * the attribute that pads the others to eight bytes sits.
 *
 * The one table of them: cache_ext_nl.h makes the attribute enum from
 * it, the module its netlink attributes and stats files, cachectl its
 * names.  No include guard: each user defines both macros, includes this
 * file and undefines them, as <asm/kvm-x86-ops.h> is used.  Append only:
 * the attribute values are ABI.
 */
CACHE_EXT_STAT(EVICT_CALLS, evict_calls)
CACHE_EXT_STAT(REQUESTED, requested)
CACHE_EXT_STAT(PROPOSED, proposed)
CACHE_EXT_STAT(ACCEPTED, accepted)
CACHE_EXT_STAT(REJECTED, rejected)
CACHE_EXT_STAT(RECLAIMED, reclaimed)
CACHE_EXT_STAT(FALLBACK, fallback)
CACHE_EXT_STAT(ERRORS, errors)
CACHE_EXT_STAT(UNTRACKED, untracked)
CACHE_EXT_STAT(NOT_ADMITTED, not_admitted)
CACHE_EXT_STAT(TRACKED, tracked)
CACHE_EXT_STAT(REGISTRY_BYTES, registry_bytes)
CACHE_EXT_STAT_PAD(PAD)
CACHE_EXT_STAT(ACCESSES, accesses)
CACHE_EXT_STAT(MISSES, misses)
CACHE_EXT_STAT(REFAULTS, refaults)
CACHE_EXT_STAT(EVICT_BUSY, evict_busy)
CACHE_EXT_STAT(MAPPED_ACCESSES, mapped_accesses)
CACHE_EXT_STAT(PREFETCHED, prefetched)
CACHE_EXT_STAT(PREFETCH_EVICTED, prefetch_evicted)
CACHE_EXT_STAT(PREFETCH_REFAULTS, prefetch_refaults)
CACHE_EXT_STAT(LOCK_HOLDS, lock_holds)
