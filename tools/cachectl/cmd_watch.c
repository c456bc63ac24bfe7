// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl hist / monitor: a binding's decision-latency histogram from
 * debugfs, and the family's events as they happen.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "cachectl.h"
#include "cgroup.h"
#include "hist.h"
#include "nl.h"

static const char hist_usage[] =
"usage: cachectl hist CGROUP [--reset]\n"
"\n"
"Draws how long the policy bound to CGROUP took per evict_folios() call (log2\n"
"buckets of nanoseconds, from " CTL_DEBUGFS "/<cgroup id>/latency),\n"
"with the median and the 99th percentile.  --reset clears it after drawing.\n";

static const char monitor_usage[] =
"usage: cachectl monitor [--count N]\n"
"\n"
"Prints cache_ext events as they happen, one line each:\n"
"  <event> policy=<name> [cgroup=<path>] [reason=<why>]\n"
"events: registered, unregistered, bound, unbound, ejected.  Stops on\n"
"Ctrl-C, or after N events with --count.  The first line, '# monitoring',\n"
"is printed once events are being received.\n";

int cmd_hist(int argc, char **argv)
{
	char cg_path[PATH_MAX], file[PATH_MAX], text[4096];
	char sel_path[PATH_MAX + 20], sel[32];
	int reset = 0, i, tries, bound;
	const char *arg = NULL;
	struct statfs sfs;
	struct hist h;
	uint64_t id;
	long n;

	if (wants_help(argc, argv, hist_usage))
		return 0;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reset"))
			reset = 1;
		else if (!arg)
			arg = argv[i];
		else
			arg = NULL, i = argc;
	}
	if (!arg || argc > 3) {
		fputs(hist_usage, stderr);
		return EXIT_USAGE;
	}
	if (need_root("hist") || cgroup_open_arg(arg, cg_path, sizeof(cg_path), &id) ||
	    need_module())
		return EXIT_FAIL;
	if (statfs("/sys/kernel/debug", &sfs) || sfs.f_type != DEBUGFS_MAGIC) {
		ctl_warn("debugfs is not mounted; mount it with: mount -t debugfs none /sys/kernel/debug");
		return EXIT_FAIL;
	}
	snprintf(file, sizeof(file), "%s/%" PRIu64 "/latency", CTL_DEBUGFS, id);
	/*
	 * The module creates a new binding's directory from a work item: if
	 * the cgroup has a policy, give it a moment to appear.
	 */
	snprintf(sel_path, sizeof(sel_path), "%s/memory.cache_ext", cg_path);
	bound = read_text(sel_path, sel, sizeof(sel)) > 0 &&
		strcmp(sel, "default\n");
	for (tries = 0;; tries++) {
		n = read_text(file, text, sizeof(text));
		if (n != -ENOENT || !bound || tries == 20)
			break;
		usleep(50000);
	}
	if (n == -ENOENT) {
		ctl_warn("%s has no policy bound (no %s)", cg_path, file);
		return EXIT_FAIL;
	}
	if (n < 0) {
		ctl_warn("cannot read %s: %s", file, strerror(-n));
		return EXIT_FAIL;
	}
	if (hist_parse(text, &h)) {
		ctl_warn("%s is not in the expected format; is cachectl as new as the module?",
			 file);
		return EXIT_FAIL;
	}
	printf("%s: evict_folios() decision time\n", cg_path);
	hist_draw(&h, 40, stdout);
	if (reset && write_text(file, "0")) {
		ctl_warn("cannot reset %s", file);
		return EXIT_FAIL;
	}
	return 0;
}

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
	       tb[CACHE_EXT_A_POLICY] ? mnl_attr_get_str(tb[CACHE_EXT_A_POLICY]) : "?");
	id = tb[CACHE_EXT_A_CGROUP_ID] ? mnl_attr_get_u64(tb[CACHE_EXT_A_CGROUP_ID]) : 0;
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
