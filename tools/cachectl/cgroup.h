/* SPDX-License-Identifier: GPL-2.0 */
/* Naming cgroups on the command line, and checking them. */
#ifndef CACHECTL_CGROUP_H
#define CACHECTL_CGROUP_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "cachectl.h"

/*
 * Turns a cgroup argument into a normalised absolute path under the
 * cgroup2 mount @mnt: "/sys/fs/cgroup/a/b", "a/b", "/a/b" and "a//b/" all
 * name @mnt/a/b; "/" or "" names the root.  "." and ".." components and
 * over-long paths are refused.  Returns 0, or -EINVAL / -ENAMETOOLONG with
 * the reason in @err.  Does not touch the file system.
 */
int cgroup_resolve(const char *mnt, const char *arg, char *out, size_t len,
		   struct ctl_err *err);

/* The cgroup2 mount point from /proc/self/mounts, or -ENOENT. */
int cgroup_mountpoint(char *out, size_t len);

/*
 * Resolves @arg and checks that the cgroup exists and can be given a
 * policy: it has the memory controller and this kernel has cache_ext.
 * Sets *@id to its cgroup id.  Prints what is wrong and returns -errno.
 */
int cgroup_open_arg(const char *arg, char *path, size_t len, uint64_t *id);

/* The path of the cgroup with @id, or its id in decimal if not found. */
void cgroup_name_of(uint64_t id, char *out, size_t len);

/*
 * The policy @cg's memory.cache_ext names ("lfu", "lfu (inherited)",
 * "default"), without the newline; 0 or -errno (-ENOENT: no such file).
 */
int cgroup_policy_read(const char *cg, char *name, size_t len);

/* echo @policy > @cg/memory.cache_ext; 0 or -errno (-ENOENT: no policy). */
int cgroup_policy_write(const char *cg, const char *policy);

#endif /* CACHECTL_CGROUP_H */
