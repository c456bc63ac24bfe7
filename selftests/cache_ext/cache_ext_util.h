/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the cache_ext selftests. */
#ifndef __CACHE_EXT_UTIL_H
#define __CACHE_EXT_UTIL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PAGE_SZ	4096

/*
 * The harness's per-test guard against hangs is 30 s.  These tests run
 * workloads in an emulated VM, three times slower again on the debug
 * kernel (make check-debug) or a loaded host: guard at 300 s.  TEST_F()
 * reads the value where it is used, so redefining it after the harness
 * is included is enough.
 */
#ifdef TEST_TIMEOUT_DEFAULT
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300
#endif

/*
 * Directory on a block-backed filesystem for test files (page cache of
 * tmpfs is shmem, which cache_ext does not manage), or NULL if
 * $CACHE_EXT_SCRATCH is unset.
 */
const char *scratch_dir(void);

/* Path of a test file in the scratch directory, unique to this process. */
void scratch_path(char *buf, size_t len, const char *name);

/*
 * Create @path with @pages pages of a pattern derived from the page index
 * and write it back; its folios stay in the page cache, charged to the
 * caller's cgroup.  Returns 0 or -errno.
 */
int write_file_cached(const char *path, size_t pages);
/* write_file_cached(), then drop @path from the page cache. */
int make_file(const char *path, size_t pages);

/* Check page @index of a file made by make_file(); 0 if intact. */
int check_page(const void *buf, size_t index);

/* Read a file made by make_file() page by page and verify every page. */
int read_and_verify(const char *path);
/* For cg_run(): read_and_verify() of the file @path, once or twice. */
int cg_read_file_once(const char *cgroup, void *path);
int cg_read_file_twice(const char *cgroup, void *path);

/* read_and_verify() each of @nr files; 0 or the first error. */
int read_files(char (*paths)[PATH_MAX], int nr);

/* The counter @name of /proc/vmstat, or -1. */
long vmstat(const char *name);

/* Pages of @path in the page cache (cachestat(2)), or -errno. */
long cached_pages(const char *path);
/* The same for pages [@first, @first + @nr) of @path (@nr 0: to the end). */
long cached_range(const char *path, size_t first, size_t nr);

/* Drop @path's clean pages from the page cache.  Returns 0 or -errno. */
int drop_file_cache(const char *path);

/*
 * Create a memory cgroup named @name under the cgroup2 root with the memory
 * controller enabled.  Returns its malloc()ed path, or NULL.
 */
char *memcg_create(const char *name);

/* The cgroup id of the cgroup at @path (the cgroupfs inode number). */
uint64_t cgroup_id_of(const char *path);

/*
 * Switch MGLRU on or off (/sys/kernel/mm/lru_gen/enabled).  Returns 0 or
 * -errno.
 */
int set_lru_gen(int on);

/* Enable the cache_ext:* tracepoints and empty the trace buffer. */
int trace_start(void);

/*
 * Count the lines of the trace buffer that contain every one of the
 * NULL-terminated strings; -errno if it cannot be read.
 */
long trace_count(const char *first, ...);

/* The sum of the numbers after @field in the trace's @event lines. */
long trace_sum(const char *event, const char *field);

/*
 * Did the policy do the evicting?  Pages reclaimed from its candidates
 * (cache_ext_evict) are most of what reclaim freed, the LRU's fallback
 * (cache_ext_fallback) the rest.
 */
#define EXPECT_POLICY_EVICTED()						\
	EXPECT_GT(trace_sum("cache_ext_evict:", " reclaimed="),		\
		  4 * trace_sum("cache_ext_fallback:", " reclaimed=") + 256)

/*
 * Ejections of @policy in the trace (trace_start() first), each printed
 * with its reason as a TAP comment.  Returns the count or -errno.
 */
long trace_ejections(const char *policy);

/*
 * The counter @key ("misses ", with its space) of the binding of cgroup
 * @cg_id, from the module's debugfs stats; -1 if there is none.
 */
long long binding_stat(uint64_t cg_id, const char *key);

/* 1 if the kernel log holds @text, 0 if not, -errno if unreadable. */
int kmsg_contains(const char *text);

/* The cgroup a struct_ops link was created on (its fdinfo), or 0. */
unsigned long long link_cgroup_id(int link_fd);

/* Wait up to @ms milliseconds for @path to read exactly @want; 0 or -ETIMEDOUT. */
int wait_for_text(const char *path, const char *want, int ms);

/*
 * The registry's size when @policy was last unbound, from the
 * cache_ext_unbind tracepoint (trace_start() before the unbinding).
 * Returns 0, or -ENOENT if the trace has no such event.
 */
int trace_unbind_registry(const char *policy, long *tracked, long *bytes);

/* Write the string @val to @path: 0 or -errno (of the write itself). */
int write_str(const char *path, const char *val);

/*
 * Write @val to /sys/module/cache_ext/parameters/@name, remembering the
 * value it had the first time this process changed it.
 */
int set_core_param(const char *name, long val);
/*
 * Give every parameter set_core_param() changed back the value it had
 * (the boot's: make check-debug boots with larger budgets), for
 * teardowns.  Returns 0 or the first write's -errno.
 */
int restore_core_params(void);

struct bpf_map;
struct hostile;
struct bpf_link;

/*
 * Load hostile.bpf.o with only its struct_ops map @name, bound to
 * @cgroup_id, and attach it.  Returns the link, or NULL; *@skel must be
 * destroyed by the caller either way.
 */
struct bpf_link *attach_hostile(uint64_t cgroup_id, const char *name,
				struct hostile **skel);
/*
 * The same, with hostile_spin spinning @spin_ns in every @spin_every-th
 * evict_folios() call.
 */
struct bpf_link *attach_hostile_spin(uint64_t cgroup_id, const char *name,
				     uint64_t spin_ns, unsigned int spin_every,
				     struct hostile **skel);
/*
 * As attach_hostile(), with folio_added(), folio_accessed() and
 * folio_removed() spinning @spin_ns.
 */
struct bpf_link *attach_hostile_event_spin(uint64_t cgroup_id,
					   const char *name, uint64_t spin_ns,
					   struct hostile **skel);
/* Detach @link, a hostile policy's, and free its skeleton @skel. */
void detach_hostile(struct bpf_link *link, struct hostile *skel);

/*
 * A policy object loaded by file name from BPF_OBJ_DIR, the way cachectl
 * attaches one: any policy, knobs set by name.
 */
struct policy {
	struct bpf_object *obj;
	struct bpf_link *link;
};

/*
 * Opens BPF_OBJ_DIR/@file.bpf.o, sets the knobs in @knobs ("VAR=VALUE"
 * separated by spaces, or NULL), renames the policy to @name (NULL: keep
 * it), binds it at registration to @cgroup_id (0: none), loads and
 * attaches it.  Returns 0 or -errno (and prints why).
 */
int policy_attach(struct policy *p, const char *file, const char *name,
		  uint64_t cgroup_id, const char *knobs);
void policy_detach(struct policy *p);
/* The live global variable @var of an attached policy, or NULL. */
void *policy_var(struct policy *p, const char *var);
/* The fd of map @map of an attached policy, or -1. */
int policy_map_fd(struct policy *p, const char *map);
/* Runs the BPF_PROG_TYPE_SYSCALL program @prog once; 0 or -errno. */
int policy_run(struct policy *p, const char *prog);

/*
 * Load the companion module from $CACHE_EXT_CTL_KO unless it is loaded,
 * with no policy preloaded (the tests register their own).  Returns 0,
 * -ENOENT without the variable, or -errno.
 */
int ctl_module_load(void);

/* The same with module parameters @params ("" for the defaults). */
int ctl_module_load_params(const char *params);
/* Unload it; 0 or -errno (-EWOULDBLOCK while in use). */
int ctl_module_unload(void);

/* struct_ops_set_name(), shared with cachectl. */
#include "struct_ops.h"

/*
 * Wait up to 5 s for @cgroup's memory.cache_ext to read @want (a child's
 * inherited binding is set up by a work item).  0, -ETIMEDOUT or -errno.
 */
int wait_for_selection(const char *cgroup, const char *want);

#endif /* __CACHE_EXT_UTIL_H */
