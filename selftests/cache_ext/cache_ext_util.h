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
 * Directory on a block-backed filesystem for test files (page cache of
 * tmpfs is shmem, which cache_ext does not manage), or NULL if
 * $CACHE_EXT_SCRATCH is unset.
 */
const char *scratch_dir(void);

/* Path of a test file in the scratch directory, unique to this process. */
void scratch_path(char *buf, size_t len, const char *name);

/*
 * Create @path with @pages pages of a pattern derived from the page index,
 * write it back and drop it from the page cache.  Returns 0 or -errno.
 */
int make_file(const char *path, size_t pages);

/* Check page @index of a file made by make_file(); 0 if intact. */
int check_page(const void *buf, size_t index);

/* Read a file made by make_file() page by page and verify every page. */
int read_and_verify(const char *path);

/* read_and_verify() each of @nr files; 0 or the first error. */
int read_files(char (*paths)[PATH_MAX], int nr);

/* Pages of @path in the page cache (cachestat(2)), or -errno. */
long cached_pages(const char *path);

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

/* Write the string @val to @path: 0 or -errno (of the write itself). */
int write_str(const char *path, const char *val);

/* Write @val to /sys/module/cache_ext/parameters/@name. */
int set_core_param(const char *name, long val);

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

/* struct_ops_set_name(), shared with cachectl. */
#include "struct_ops.h"

#endif /* __CACHE_EXT_UTIL_H */
