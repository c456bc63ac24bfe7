// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl preload: register the standard suite of policies (or the ones
 * named) from their objects, as cachectl attach does, so that they can be
 * bound by name.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "cache_ext_suite.h"
#include "cachectl.h"

static const char preload_usage[] =
"usage: cachectl preload [NAME...]\n"
"\n"
"Registers the policies NAME... (default: the standard suite, " CACHE_EXT_SUITE ")\n"
"from their objects (NAME.bpf.o in $CACHECTL_BPF_DIR, beside the build, in\n"
"../lib/cache_ext/bpf from cachectl's directory, or in\n"
"/usr/local/lib/cache_ext/bpf), each pinned as by 'cachectl attach', so\n"
"that 'echo NAME > memory.cache_ext' works.  Policies registered already are\n"
"left alone.  The cache_ext_ctl module runs this when it loads, or when its\n"
"helper parameter is written (its preload and helper parameters); it never\n"
"loads the module itself.\n"
"\n"
"Exit status: 0 all registered, 1 some could not be (the messages say which).\n";

int preload_policy(const char *name)
{
	struct attach_args a = { .preloading = 1 };
	char file[PATH_MAX], pin[PATH_MAX];

	if (!policy_name_valid(name)) {
		ctl_warn("preload: '%s' is not a policy name", name);
		return 1;
	}
	snprintf(pin, sizeof(pin), "%s/%s", CTL_PIN_DIR, name);
	if (!access(pin, F_OK)) {
		printf("%s: registered already\n", name);
		return 0;
	}
	if (find_bpf_object(name, file, sizeof(file))) {
		ctl_warn("preload: no %s.bpf.o (set CACHECTL_BPF_DIR to the directory of the policy objects)",
			 name);
		return 1;
	}
	a.file = file;
	return attach_one(&a) ? 1 : 0;
}

int cmd_preload(int argc, char **argv)
{
	char suite[] = CACHE_EXT_SUITE, *p = suite, *name;
	int i, failed = 0;

	if (wants_help(argc, argv, preload_usage))
		return 0;
	if (need_root("preload") || make_pin_dir())
		return EXIT_FAIL;
	if (argc > 1) {
		for (i = 1; i < argc; i++)
			failed += preload_policy(argv[i]);
	} else {
		while ((name = strsep(&p, ",")))
			failed += preload_policy(name);
	}
	return failed ? EXIT_FAIL : 0;
}
