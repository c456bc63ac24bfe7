// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl hist: a binding's decision-latency histogram from debugfs.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "cachectl.h"
#include "cgroup.h"
#include "hist.h"

static const char hist_usage[] =
"usage: cachectl hist CGROUP [--reset]\n"
"\n"
"Draws how long the policy bound to CGROUP took per evict_folios() call (log2\n"
"buckets of nanoseconds, from " CTL_DEBUGFS "/<cgroup id>/latency),\n"
"with the median and the 99th percentile.  --reset clears it after drawing.\n";

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
