// SPDX-License-Identifier: GPL-2.0
/*
 * demo_events: what `make run` shows.  Binds the count_events policy to a
 * fresh memory cgroup, runs a small file workload in that cgroup and prints
 * the page cache events the policy received after each step.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "count_events.skel.h"

#define NR_PAGES 256

static const char *file_path;

static int read_file(const char *cgroup, void *arg)
{
	return read_and_verify(file_path) ? EXIT_FAILURE : EXIT_SUCCESS;
}

static void show(struct count_events *skel, uint64_t cg_id, __u64 ino,
		 const char *step)
{
	struct { __u64 cgroup_id, ino; } key = { cg_id, ino };
	struct { __u64 added, accessed, removed; } c = {};

	long cached = cached_pages(file_path);
	char cached_str[24] = "-";

	bpf_map__lookup_elem(skel->maps.counts, &key, sizeof(key), &c,
			     sizeof(c), 0);
	if (cached >= 0)
		snprintf(cached_str, sizeof(cached_str), "%ld", cached);
	printf("%-44s %8llu %9llu %8llu %7s\n", step, c.added, c.accessed,
	       c.removed, cached_str);
}

int main(int argc, char **argv)
{
	struct count_events *skel = NULL;
	struct bpf_link *link = NULL;
	char path[PATH_MAX], *cg;
	int ret = EXIT_FAILURE;
	uint64_t cg_id;
	struct stat st;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: %s\nRun as root inside the cache_ext VM "
		       "(make run).\n", argv[0]);
		return 0;
	}
	if (!scratch_dir()) {
		fprintf(stderr, "demo_events: CACHE_EXT_SCRATCH is not set; "
			"run it in the VM with 'make run'\n");
		return EXIT_FAILURE;
	}
	scratch_path(path, sizeof(path), "demo");
	file_path = path;

	cg = memcg_create("cache_ext_demo");
	if (!cg) {
		perror("demo_events: creating cgroup cache_ext_demo");
		return EXIT_FAILURE;
	}
	cg_id = cgroup_id_of(cg);

	skel = count_events__open();
	if (!skel)
		goto out;
	skel->struct_ops.count_events->cgroup_id = cg_id;
	if (count_events__load(skel)) {
		fprintf(stderr, "demo_events: loading count_events failed\n");
		goto out;
	}
	link = bpf_map__attach_struct_ops(skel->maps.count_events);
	if (!link) {
		fprintf(stderr, "demo_events: registering count_events: %s\n",
			strerror(errno));
		goto out;
	}
	if (make_file(path, NR_PAGES) || stat(path, &st))
		goto out;

	printf("policy count_events bound to %s (cgroup id %llu)\n", cg,
	       (unsigned long long)cg_id);
	printf("file %s: %d pages of 4 KiB, not cached\n", path, NR_PAGES);
	printf("events are counted per folio of the file charged to the "
	       "cgroup, whoever touches it\n\n");
	printf("%-44s %8s %9s %8s %7s\n", "step", "added", "accessed",
	       "removed", "cached");
	if (cg_run(cg, read_file, NULL))
		goto out;
	show(skel, cg_id, st.st_ino, "read once in the cgroup");
	if (cg_run(cg, read_file, NULL))
		goto out;
	show(skel, cg_id, st.st_ino, "read again in the cgroup");
	if (read_and_verify(path))
		goto out;
	/* Folios stay charged to the cgroup that brought them in. */
	show(skel, cg_id, st.st_ino, "read again from outside the cgroup");
	if (truncate(path, NR_PAGES / 2 * PAGE_SZ))
		goto out;
	show(skel, cg_id, st.st_ino, "truncated to half");
	if (unlink(path))
		goto out;
	show(skel, cg_id, st.st_ino, "deleted");
	ret = EXIT_SUCCESS;
out:
	if (ret)
		fprintf(stderr, "demo_events: failed\n");
	bpf_link__destroy(link);
	count_events__destroy(skel);
	unlink(path);
	cg_destroy(cg);
	free(cg);
	return ret;
}
