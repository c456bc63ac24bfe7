/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachesim's vmlinux.h: the few kernel types, constants and enums a
 * cache_ext policy touches, for building its BPF source for the host.
 *
 * Found first on the include path of a policy built for the simulator,
 * in place of the vmlinux.h that bpftool dumps from the kernel's BTF.
 * Only the members policies read are here; the simulator fills them in
 * as the kernel would (folio->mapping->host->i_ino, ->index, ->flags,
 * memcg->css.cgroup->kn->id).  A policy that reads a member not listed
 * fails to build for the simulator, and that is the place to add it.
 * The constants must match include/linux/cache_ext.h (the tests check
 * them against the kernel's BTF-derived vmlinux.h).
 */
#ifndef __CACHESIM_VMLINUX_H
#define __CACHESIM_VMLINUX_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef unsigned long pgoff_t;
typedef long loff_t;	/* as glibc has it on LP64 */
#ifndef __bool_true_false_are_defined
typedef _Bool bool;
#define true	1
#define false	0
#endif

enum bpf_map_type {
	BPF_MAP_TYPE_UNSPEC = 0,
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_LRU_PERCPU_HASH = 10,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
};

enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
};

enum {
	BPF_RB_AVAIL_DATA = 0,
	BPF_RB_RING_SIZE = 1,
};

/* Folio flags the simulator sets and bpf_cache_ext_folio_busy() tests. */
enum pageflags {
	PG_locked = 0,
	PG_writeback = 1,
	PG_referenced = 2,
	PG_uptodate = 3,
	PG_dirty = 4,
	PG_lru = 5,
};

struct super_block {
	u32 s_dev;
};

struct inode {
	unsigned long i_ino;
	loff_t i_size;
	struct super_block *i_sb;
};

struct address_space {
	struct inode *host;
};

struct folio {
	unsigned long flags;
	struct address_space *mapping;
	pgoff_t index;
};

struct kernfs_node {
	u64 id;
};

struct cgroup {
	struct kernfs_node *kn;
};

struct cgroup_subsys_state {
	struct cgroup *cgroup;
};

struct mem_cgroup {
	struct cgroup_subsys_state css;
};

/* From include/linux/cache_ext.h. */
enum {
	CACHE_EXT_MAX_BATCH = 32,
	CACHE_EXT_MAX_LISTS = 7,
	CACHE_EXT_ITER_MAX = 1 << 16,
	CACHE_EXT_NAME_LEN = 16,
	CACHE_EXT_MAX_REFS = 255,
};

enum cache_ext_ops_flags {
	CACHE_EXT_OPS_ADD_TO_LIST = 1ULL << 0,
	CACHE_EXT_OPS_COUNT_REFS = 1ULL << 1,
};

enum cache_ext_eject_reason {
	CACHE_EXT_EJECT_NONE = 0,
};

#define CACHE_EXT_EXIT_MSG_LEN	128

struct cache_ext_eviction_ctx {
	u32 nr_requested;
	u32 nr_proposed;
};

struct cache_ext_admit_ctx {
	struct address_space *mapping;
	pgoff_t index;
	u32 nr_pages;
};

struct cache_ext_exit_info {
	enum cache_ext_eject_reason reason;
	char msg[CACHE_EXT_EXIT_MSG_LEN];
};

struct cache_ext_ops {
	s32 (*init)(struct mem_cgroup *memcg);
	void (*exit)(struct mem_cgroup *memcg,
		     const struct cache_ext_exit_info *info);
	void (*evict_folios)(struct cache_ext_eviction_ctx *ctx,
			     struct mem_cgroup *memcg);
	void (*folio_added)(struct folio *folio, struct mem_cgroup *memcg);
	void (*folio_accessed)(struct folio *folio, struct mem_cgroup *memcg);
	void (*folio_removed)(struct folio *folio, struct mem_cgroup *memcg);
	bool (*admit_folio)(struct cache_ext_admit_ctx *ctx,
			    struct mem_cgroup *memcg);
	void (*folio_mapped_accessed)(struct folio *folio,
				      struct mem_cgroup *memcg, u32 nr_ptes);
	u64 flags;
	u64 cgroup_id;
	char name[CACHE_EXT_NAME_LEN];
};

/* Iterator state: the simulator's own layout, opaque to the policy. */
struct bpf_iter_cache_ext_list {
	u64 __opaque[16];
};

struct bpf_timer {
	u64 __opaque[2];
};

struct bpf_map;

#endif /* __CACHESIM_VMLINUX_H */
