// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl monitor: the cache_ext family's events as they happen.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachectl.h"
#include "cgroup.h"
#include "nl.h"

static const char monitor_usage[] =
"usage: cachectl monitor [--count N]\n"
"\n"
"Prints cache_ext events as they happen, one line each:\n"
"  <event> policy=<name> [cgroup=<path>] [reason=<why>]\n"
"events: registered, unregistered, bound, unbound, ejected.  Stops on\n"
"Ctrl-C, or after N events with --count.  The first line, '# monitoring',\n"
"is printed once events are being received.\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

struct monitor_ctx {
	long left;	/* events until done; < 0: no limit */
};

static int print_event(const struct nl_msg *msg, void *data)
{
	struct monitor_ctx *c = data;
	const struct nlattr **tb = (const struct nlattr **)msg->tb;
	uint32_t ev;
	uint64_t id;
	char cgroup[PATH_MAX];

	if (msg->cmd != CACHE_EXT_CMD_EVENT || !tb[CACHE_EXT_A_EVENT])
		return stop;
	ev = mnl_attr_get_u32(tb[CACHE_EXT_A_EVENT]);
	printf("%s policy=%s", nl_event_name(ev),
	       nl_attr_str(msg, CACHE_EXT_A_POLICY));
	id = nl_attr_u64(msg, CACHE_EXT_A_CGROUP_ID);
	if (id) {
		cgroup_name_of(id, cgroup, sizeof(cgroup));
		printf(" cgroup=%s", cgroup);
	}
	if (ev == CACHE_EXT_EV_EJECTED && tb[CACHE_EXT_A_EJECT_REASON_STR])
		printf(" reason=%s",
		       mnl_attr_get_str(tb[CACHE_EXT_A_EJECT_REASON_STR]));
	printf("\n");
	/* What the policy did, on a line of its own. */
	if (ev == CACHE_EXT_EV_EJECTED && tb[CACHE_EXT_A_EJECT_MSG])
		printf("  why: %s\n", mnl_attr_get_str(tb[CACHE_EXT_A_EJECT_MSG]));
	fflush(stdout);
	if (c->left > 0 && !--c->left)
		return 1;
	return stop;
}

int cmd_monitor(int argc, char **argv)
{
	struct monitor_ctx c = { -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct nl nl;
	char *end;
	int ret;

	if (wants_help(argc, argv, monitor_usage))
		return 0;
	if (argc == 3 && !strcmp(argv[1], "--count")) {
		c.left = strtol(argv[2], &end, 10);
		if (*end || c.left <= 0) {
			ctl_warn("--count wants a positive number, not '%s'", argv[2]);
			return EXIT_USAGE;
		}
	} else if (argc != 1) {
		fputs(monitor_usage, stderr);
		return EXIT_USAGE;
	}
	if (need_module())
		return EXIT_FAIL;
	ret = nl_open(&nl);
	if (ret) {
		ctl_warn("the cache_ext netlink family is not available: %s",
			 strerror(-ret));
		return EXIT_FAIL;
	}
	/* No SA_RESTART: a signal ends the blocking receive. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = nl_join_events(&nl);
	if (!ret) {
		printf("# monitoring cache_ext events\n");
		fflush(stdout);
		ret = nl_monitor(&nl, print_event, &c);
	}
	nl_close(&nl);
	if (ret) {
		ctl_warn("monitor: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	return 0;
}
