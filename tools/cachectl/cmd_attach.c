// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl attach: register a policy object so that it outlives cachectl,
 * and optionally bind it to a cgroup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attach.h"
#include "cachectl.h"
#include "policy_maps.h"

static const char attach_usage[] =
"usage: cachectl attach OBJ.bpf.o [--name NAME] [--cgroup CGROUP] [--replace] [--set VAR=VALUE]...\n"
"\n"
"Loads the cache_ext policy in OBJ.bpf.o, registers it, and pins its link at\n"
CTL_PIN_DIR "/NAME and its maps under " CTL_MAP_PIN_DIR "/NAME/ so that it\n"
"stays registered, and works as it does while its loader runs (BPF timers\n"
"live as long as a map's user references), after cachectl exits.\n"
"\n"
"  -n, --name NAME       register under NAME instead of the name in the object\n"
"  -c, --cgroup CGROUP   bind the policy to CGROUP (path under the cgroup2 mount)\n"
"                        as it registers: its link is created on the cgroup\n"
"  -r, --replace         detach a policy of the same name first (one that was\n"
"                        ejected, or registered when the module loaded)\n"
"  -s, --set VAR=VALUE   set the policy's global variable VAR (a knob) before\n"
"                        loading; numbers, booleans, enums and strings\n"
"  -v, --verbose         show libbpf's messages, with the verifier log\n"
"\n"
"Exit status: 0 attached (and bound), 1 failed (nothing left attached), 2 usage.\n";

static int parse_attach(int argc, char **argv, struct attach_args *a)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 's' },
		{ "replace", no_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->sets = calloc(argc, sizeof(*a->sets));
	if (!a->sets)
		return -ENOMEM;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:c:s:rvh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			a->name = optarg;
			break;
		case 'c':
			a->cgroup = optarg;
			break;
		case 's':
			a->sets[a->nr_sets++] = optarg;
			break;
		case 'r':
			a->replace = 1;
			break;
		case 'v':
			a->verbose = 1;
			break;
		default:
			fputs(attach_usage, stderr);
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fputs(attach_usage, stderr);
		return -EINVAL;
	}
	a->file = argv[optind];
	if (a->name && !policy_name_valid(a->name)) {
		ctl_warn("'%s' is not a policy name", a->name);
		return -EINVAL;
	}
	return 0;
}

int cmd_attach(int argc, char **argv)
{
	struct attach_args a;
	int ret;

	if (wants_help(argc, argv, attach_usage))
		return 0;
	if (parse_attach(argc, argv, &a)) {
		free(a.sets);
		return EXIT_USAGE;
	}
	ret = attach_one(&a);
	free(a.sets);
	return ret ? EXIT_FAIL : 0;
}
