/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated page cache of one memory cgroup with one binding, shared
 * by the files that model the kernel (cache.c: insertion, access,
 * reclaim; kfuncs.c: lists, iterator, proposals; maps.c: BPF maps and
 * helpers).  One simulation per process: the state is global.
 *
 * Node numbering: list heads are nodes 0 .. CACHE_EXT_MAX_LISTS - 1, the
 * folio in slot s is node CACHE_EXT_MAX_LISTS + s.  The kernel's own LRU
 * (the fallback, and the "lru" baseline) links slots in lru[], whose
 * head is lru[cap].
 */
#ifndef CACHESIM_INTERNAL_H
#define CACHESIM_INTERNAL_H

#include "vmlinux.h"
#include "sim.h"

#define SIM_NO_LIST	(-1)
#define SIM_MAX_ITERS	8
#define SIM_MAX_TIMERS	16

struct sim_folio {
	struct folio folio;	/* what the policy is given; first */
	u32 data;		/* the policy's u32 (bpf_cache_ext_folio_data) */
	s32 list;		/* SIM_NO_LIST, or the list it is on */
	u32 file;
	bool cached;
	bool young;		/* used through a mapping since last looked at */
	/* Inserted by readahead (SIM_INSERT), not accessed since. */
	bool prefetched;
	/* Uses since the policy last took them (CACHE_EXT_OPS_COUNT_REFS). */
	u8 refs;
};

struct sim_node {
	u32 prev, next;
};

enum sim_mode { SIM_PROPOSE_NONE, SIM_PROPOSE_PLAIN, SIM_PROPOSE_SCORED };

/* One evict_folios() call, as the kernel's struct cache_ext_evict_req. */
struct sim_evict_req {
	struct cache_ext_eviction_ctx ctx;
	enum sim_mode mode;
	u32 worst;
	u32 proposed;
	bool too_many;
	struct sim_folio *folios[CACHE_EXT_MAX_BATCH];
	s64 scores[CACHE_EXT_MAX_BATCH];
};

/* An open iterator (the kernel's cursor): the node it yields next. */
struct sim_iter {
	u32 list;
	u32 next;
	u32 remaining;
	bool open;
};

struct sim_cache {
	const struct cache_ext_ops *ops;	/* NULL: the kernel's LRU only */
	struct mem_cgroup memcg;
	struct cgroup cgroup;
	struct kernfs_node kn;

	/* Per file of the trace. */
	struct inode *inodes;
	struct address_space *mappings;
	struct super_block *sbs;

	/* Folios: cap slots, nr_cached in use, the free ones chained. */
	struct sim_folio *folios;
	u32 cap, nr_cached, free_head;
	u32 *free_next;

	/* The registry: (file, index) -> slot + 1, open addressing. */
	u32 *table;
	u32 table_mask;

	/* The policy's lists. */
	struct sim_node *nodes;
	u32 nr_lists;
	s64 list_size[CACHE_EXT_MAX_LISTS];
	struct sim_iter *iters[SIM_MAX_ITERS];
	bool in_init;

	/* The kernel's LRU: slot links, head at index cap. */
	struct sim_node *lru;

	/* The callback running: its request and folio (found without lookup). */
	struct sim_evict_req *req;
	struct sim_folio *call_folio;
	/* The folio folio_removed() is told of: no longer tracked. */
	struct sim_folio *removing;

	u64 now_ns;
	u32 tid;		/* the thread of the request replayed */
	struct sim_result *res;
};

extern struct sim_cache *sim;

static inline u32 sim_slot(const struct sim_folio *f)
{
	return (u32)(f - sim->folios);
}

static inline u32 sim_node_of(const struct sim_folio *f)
{
	return CACHE_EXT_MAX_LISTS + sim_slot(f);
}

static inline struct sim_folio *sim_folio_of_node(u32 node)
{
	return &sim->folios[node - CACHE_EXT_MAX_LISTS];
}

/* The tracked folio @folio points to, or NULL (not one of ours, or gone). */
struct sim_folio *sim_tracked(const struct folio *folio);

/* Lists (kfuncs.c). */
s32 bpf_cache_ext_list_create(struct mem_cgroup *memcg);
void sim_list_unlink(struct sim_folio *f);
void sim_list_link(struct sim_folio *f, u32 list, bool tail);
bool sim_memcg_ok(const struct mem_cgroup *memcg);

/* Timers (maps.c): fire those due at sim->now_ns; free all state. */
void sim_timers_run(void);
void sim_maps_reset(void);
/* Puts @m's threads in the policy's maps of that name; 0 or -errno. */
int sim_tid_maps_fill(const struct sim_tid_map *m, unsigned int nr,
		      char *err, size_t len);

/* Models (models.c): load NAME=FILE before the run. */
int sim_models_load(const struct sim_model_file *m, unsigned int nr,
		    char *err, size_t len);

#endif /* CACHESIM_INTERNAL_H */
