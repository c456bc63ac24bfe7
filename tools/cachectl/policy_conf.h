/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy configuration: which cgroups and systemd units get which
 * policy, read by cachectl apply and status (policy_conf.c).  The format
 * is in conf_usage below and in cache_ext(7).
 */
#ifndef CACHECTL_POLICY_CONF_H
#define CACHECTL_POLICY_CONF_H

#include <limits.h>

#include "ctl_err.h"

/* The files read when no --config is given: the file, then the directory. */
#define CONF_FILE	"/etc/cache_ext/policies.conf"
#define CONF_DIR	"/etc/cache_ext/policies.d"
#define CONF_NAME_MAX	64
/* Where cgroup2 is mounted, for the paths written in full. */
#define CONF_CGROUP_ROOT	"/sys/fs/cgroup"

/* The format, for the -h texts of apply and status. */
#define CONF_FORMAT_HELP \
"The configuration is " CONF_FILE ", then every *.conf in\n" \
CONF_DIR "/ in name order (or --config FILE|DIR).  One entry a line;\n" \
"'#' starts a comment:\n" \
"\n" \
"  bind TARGET POLICY            TARGET's page cache is evicted by POLICY\n" \
"  policy NAME OBJECT [VAR=VALUE]...\n" \
"                                register OBJECT (a .bpf.o path, or the name\n" \
"                                of an installed policy) as NAME, with knobs\n" \
"\n" \
"TARGET is a cgroup path under the cgroup2 mount (db, system.slice/x.service)\n" \
"or unit:UNIT, the cgroup of a systemd unit (unit:rocksdb.service,\n" \
"unit:search.slice).  A later bind of the same TARGET, in a later file,\n" \
"replaces the earlier one; twice in one file is an error.  POLICY is a\n" \
"policy line's NAME, a registered or installed policy (lfu, mru, ...), or\n" \
"default, the kernel's own eviction.\n"

/* policy NAME OBJECT [VAR=VALUE]... */
struct conf_policy {
	char name[CONF_NAME_MAX];
	char object[PATH_MAX];
	char **sets;		/* VAR=VALUE, nr_sets of them */
	int nr_sets;
	char where[PATH_MAX + 16];	/* FILE:LINE */
};

/* bind TARGET POLICY */
struct conf_bind {
	/* unit:UNIT, or a cgroup's path from the root without the '/' */
	char target[PATH_MAX];
	int is_unit;		/* unit:UNIT; @target + 5 is the unit */
	char policy[CONF_NAME_MAX];
	char where[PATH_MAX + 16];
};

struct policy_conf {
	struct conf_policy *policies;
	int nr_policies;
	struct conf_bind *binds;
	int nr_binds;
	int nr_files;		/* files read */
};

/*
 * Adds the entries of @text, the contents of the file @file (named in
 * messages), to @conf.  On an error the reason with FILE:LINE is in @err
 * and -EINVAL (or -ENOMEM) is returned; the lines before it were added.
 */
int policy_conf_parse(struct policy_conf *conf, const char *file,
		      const char *text, struct ctl_err *err);

/*
 * Reads @path into @conf: a file, or every *.conf of a directory in name
 * order; NULL reads CONF_FILE and CONF_DIR, either of which may be
 * missing.  Returns 0 or -errno with the reason in @err.
 */
int policy_conf_read(struct policy_conf *conf, const char *path,
		     struct ctl_err *err);

/* The policy line named @name, or NULL. */
const struct conf_policy *policy_conf_policy(const struct policy_conf *conf,
					     const char *name);

void policy_conf_free(struct policy_conf *conf);

/*
 * The cgroup path of the systemd unit @unit under the cgroup2 root,
 * without the leading '/', had it been started in @slice (as systemctl
 * show -P Slice tells; ignored for a slice, whose path is its name's):
 * "a-b.slice" is a.slice/a-b.slice, "x.service" in system.slice is
 * system.slice/x.service.  Returns 0, or -EINVAL if @unit is not a unit
 * name or the result does not fit @len.
 */
int unit_cgroup_path(const char *unit, const char *slice, char *out,
		     size_t len);

#endif /* CACHECTL_POLICY_CONF_H */
