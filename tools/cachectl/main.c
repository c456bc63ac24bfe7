// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl: attach cache_ext eviction policies to cgroups and watch them.
 * One binary, one subcommand per job; see cachectl -h and
 * tools/cache_ext/README.rst.
 */
#include <stdio.h>
#include <string.h>

#include "cachectl.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "attach", cmd_attach,
	  "OBJ.bpf.o [--name N] [--cgroup CG] [--replace] [--set VAR=VAL]..\n"
	  "                                 load and register a policy" },
	{ "preload", cmd_preload,
	  "[NAME...]             register the standard policies (or NAME...)" },
	{ "detach", cmd_detach,
	  "NAME                  unregister a policy attached by cachectl" },
	{ "list", cmd_list,
	  "                      registered policies and bound cgroups" },
	{ "bind", cmd_bind,
	  "CGROUP POLICY         select POLICY for CGROUP" },
	{ "unbind", cmd_unbind,
	  "CGROUP                give CGROUP back to the kernel's eviction" },
	{ "apply", cmd_apply,
	  "[-c CONF] [--watch]   bind the configured cgroups and units" },
	{ "status", cmd_status,
	  "[-c CONF]             configured policies against memory.cache_ext" },
	{ "stats", cmd_stats,
	  "[CGROUP]              counters of the bindings, hit ratio" },
	{ "top", cmd_top,
	  "[-n COUNT] [-d SEC]   bound cgroups' hits, misses, refaults, live" },
	{ "hist", cmd_hist,
	  "CGROUP [--reset]      decision-latency histogram" },
	{ "monitor", cmd_monitor,
	  "[--count N]           print events as they happen" },
	{ "model", cmd_model,
	  "load|show|unload ..   the model store of the learned policies" },
	{ "trace", cmd_trace,
	  "--cgroup CG -o LOG    record page cache events for lctrain" },
	{ "advise", cmd_advise,
	  "CGROUP [--apply]      trace, simulate every policy, recommend one" },
	{ "learn", cmd_learn,
	  "CGROUP [--every SEC]  ml_rank, its model retrained as it runs" },
	{ "tids", cmd_tids,
	  "add|del|list MAP ..   thread ids for get_scan and admit_filter" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: cachectl COMMAND [ARGS]   (cachectl COMMAND -h for details)\n\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nExit status: 0 done, 1 failed (the message says why), 2 bad usage.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	ctl_warn("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
