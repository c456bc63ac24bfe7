// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl tids: name threads to a policy.  get_scan and admit_filter read
 * thread ids from hash maps pinned under /sys/fs/bpf (get_scan_tids,
 * no_cache_tids); this fills and shows them.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "cachectl.h"

static const char tids_usage[] =
"usage: cachectl tids add MAP TID...\n"
"       cachectl tids del MAP TID...\n"
"       cachectl tids list MAP\n"
"\n"
"MAP is a thread-id map pinned under /sys/fs/bpf by a policy (get_scan_tids\n"
"of get_scan: scan threads; no_cache_tids of admit_filter: threads whose\n"
"reads are not cached), by name or by path.  TIDs are thread ids, as\n"
"'ps -L' or 'pgrep -w' show them.\n";

static int open_tid_map(const char *name)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char path[PATH_MAX];
	int fd;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/sys/fs/bpf/%s", name);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		ctl_warn("no map pinned at %s: %s (is the policy attached?)", path,
			 strerror(errno));
		return -1;
	}
	if (bpf_map_get_info_by_fd(fd, &info, &len) ||
	    info.type != BPF_MAP_TYPE_HASH || info.key_size != 4 ||
	    info.value_size != 1) {
		ctl_warn("%s is not a thread-id map (a hash of u32 TIDs)", path);
		close(fd);
		return -1;
	}
	return fd;
}

static int parse_tid(const char *s, __u32 *tid)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !*s || !v || v > INT_MAX) {
		ctl_warn("'%s' is not a thread id", s);
		return -EINVAL;
	}
	*tid = v;
	return 0;
}

int cmd_tids(int argc, char **argv)
{
	__u32 tid, next, *prev = NULL;
	__u8 one = 1;
	int fd, i, ret = 0;

	if (wants_help(argc, argv, tids_usage))
		return 0;
	if (argc < 3 || (strcmp(argv[1], "list") && argc < 4) ||
	    (!strcmp(argv[1], "list") && argc != 3) ||
	    (strcmp(argv[1], "add") && strcmp(argv[1], "del") &&
	     strcmp(argv[1], "list"))) {
		fputs(tids_usage, stderr);
		return EXIT_USAGE;
	}
	for (i = 3; i < argc; i++)
		if (parse_tid(argv[i], &tid))
			return EXIT_USAGE;
	if (need_root("tids"))
		return EXIT_FAIL;
	fd = open_tid_map(argv[2]);
	if (fd < 0)
		return EXIT_FAIL;

	if (!strcmp(argv[1], "list")) {
		while (!bpf_map_get_next_key(fd, prev, &next)) {
			printf("%u\n", next);
			tid = next;
			prev = &tid;
		}
	}
	for (i = 3; i < argc; i++) {
		parse_tid(argv[i], &tid);
		if (!strcmp(argv[1], "add") &&
		    bpf_map_update_elem(fd, &tid, &one, BPF_ANY)) {
			ctl_warn("adding %u: %s", tid, strerror(errno));
			ret = EXIT_FAIL;
		} else if (!strcmp(argv[1], "del") &&
			   bpf_map_delete_elem(fd, &tid)) {
			ctl_warn("%u is not in %s", tid, argv[2]);
			ret = EXIT_FAIL;
		}
	}
	close(fd);
	return ret;
}
