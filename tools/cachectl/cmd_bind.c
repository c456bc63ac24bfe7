// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl bind / unbind: give a cgroup's page cache to a registered policy
 * and back to the kernel, through the "cache_ext" generic netlink family.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cachectl.h"
#include "cgroup.h"
#include "nl.h"

static const char bind_usage[] =
"usage: cachectl bind CGROUP POLICY\n"
"\n"
"Makes the registered POLICY evict the page cache of CGROUP (a path under the\n"
"cgroup2 mount, e.g. /sys/fs/cgroup/db or just db).  Same as\n"
"echo POLICY > CGROUP/memory.cache_ext.\n";

static const char unbind_usage[] =
"usage: cachectl unbind CGROUP\n"
"\n"
"Gives CGROUP back to the kernel's own eviction.\n";

static int bind_or_unbind(const char *cmd, const char *cgroup,
			  const char *policy)
{
	char path[PATH_MAX];
	uint64_t id;
	struct nl nl;
	int ret;

	if (need_root(cmd) || cgroup_open_arg(cgroup, path, sizeof(path), &id) ||
	    open_family(&nl))
		return EXIT_FAIL;
	ret = nl_bind(&nl, policy, id);
	nl_close(&nl);
	switch (ret) {
	case 0:
		if (policy)
			printf("%s: %s\n", path, policy);
		else
			printf("%s: default\n", path);
		return 0;
	case -ENOENT:
		if (policy)
			ctl_warn("no policy '%s' is registered (see cachectl list)",
				 policy);
		else
			ctl_warn("%s has no policy bound", path);
		break;
	case -EBUSY:
		ctl_warn("%s already has a policy; unbind it first", path);
		break;
	default:
		ctl_warn("%s %s: %s", cmd, path, strerror(-ret));
	}
	return EXIT_FAIL;
}

int cmd_bind(int argc, char **argv)
{
	if (wants_help(argc, argv, bind_usage))
		return 0;
	if (argc != 3) {
		fputs(bind_usage, stderr);
		return EXIT_USAGE;
	}
	return bind_or_unbind("bind", argv[1], argv[2]);
}

int cmd_unbind(int argc, char **argv)
{
	if (wants_help(argc, argv, unbind_usage))
		return 0;
	if (argc != 2) {
		fputs(unbind_usage, stderr);
		return EXIT_USAGE;
	}
	return bind_or_unbind("unbind", argv[1], NULL);
}
