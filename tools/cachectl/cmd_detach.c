// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl detach: unregister a policy cachectl attached, and unpin it.
 */
#include <stdio.h>

#include "attach.h"
#include "cachectl.h"
#include "policy_maps.h"

static const char detach_usage[] =
"usage: cachectl detach NAME\n"
"\n"
"Unregisters the policy NAME attached by 'cachectl attach' (unbinding it from\n"
"all its cgroups, which go back to the kernel's own eviction) and removes\n"
"its pins " CTL_PIN_DIR "/NAME and " CTL_MAP_PIN_DIR "/NAME/.\n";

int cmd_detach(int argc, char **argv)
{
	if (wants_help(argc, argv, detach_usage))
		return 0;
	if (argc != 2 || !policy_name_valid(argv[1])) {
		fputs(detach_usage, stderr);
		return EXIT_USAGE;
	}
	if (need_root("detach") || detach_pinned(argv[1]))
		return EXIT_FAIL;
	printf("detached %s\n", argv[1]);
	return 0;
}
