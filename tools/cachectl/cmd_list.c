// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl list: the registered policies and the cgroups bound to them.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cachectl.h"
#include "cgroup.h"
#include "nl.h"

static const char list_usage[] =
"usage: cachectl list\n"
"\n"
"Lists the registered policies (state, number of cgroups, pin of the policies\n"
"attached by cachectl) and the cgroups bound to them.\n";

static int print_policy(const struct nl_msg *msg, void *data)
{
	const char *name = nl_attr_str(msg, CACHE_EXT_A_POLICY);
	uint32_t reason = msg->tb[CACHE_EXT_A_EJECT_REASON] ?
		mnl_attr_get_u32(msg->tb[CACHE_EXT_A_EJECT_REASON]) : 0;
	char pin[PATH_MAX], state[160];

	if (reason)
		snprintf(state, sizeof(state), "ejected (%s)",
			 nl_attr_str(msg, CACHE_EXT_A_EJECT_REASON_STR));
	else
		snprintf(state, sizeof(state), "active");
	snprintf(pin, sizeof(pin), "%s/%s", CTL_PIN_DIR, name);
	/* The state last: an ejection's reason can be long. */
	printf("%-16s %7u  %-36s %s\n", name,
	       msg->tb[CACHE_EXT_A_NR_BINDINGS] ?
	       mnl_attr_get_u32(msg->tb[CACHE_EXT_A_NR_BINDINGS]) : 0,
	       access(pin, F_OK) ? "-" : pin, state);
	(*(int *)data)++;
	return 0;
}

static int print_binding(const struct nl_msg *msg, void *data)
{
	char cgroup[PATH_MAX];

	cgroup_name_of(nl_attr_u64(msg, CACHE_EXT_A_CGROUP_ID), cgroup,
		       sizeof(cgroup));
	printf("%-40s %s\n", cgroup, nl_attr_str(msg, CACHE_EXT_A_POLICY));
	(*(int *)data)++;
	return 0;
}

int cmd_list(int argc, char **argv)
{
	int nr_policies = 0, nr_bindings = 0, ret;
	struct nl nl;

	if (wants_help(argc, argv, list_usage))
		return 0;
	if (argc != 1) {
		fputs(list_usage, stderr);
		return EXIT_USAGE;
	}
	if (open_family(&nl))
		return EXIT_FAIL;
	printf("%-16s %7s  %-36s %s\n", "POLICY", "CGROUPS", "PIN", "STATE");
	ret = nl_dump(&nl, CACHE_EXT_CMD_POLICY_GET, print_policy,
		      &nr_policies);
	if (!ret) {
		printf("\n%-40s %s\n", "CGROUP", "POLICY");
		ret = nl_dump(&nl, CACHE_EXT_CMD_BINDING_GET, print_binding,
			      &nr_bindings);
	}
	nl_close(&nl);
	if (ret) {
		ctl_warn("list: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	return 0;
}
