// SPDX-License-Identifier: GPL-2.0
/*
 * Compaction moves cached folios to new pages behind the page cache's
 * back: the registry must follow them, with the policy's per-folio state,
 * so that the policy keeps what it knew of each folio and, once the files
 * leave the cache, not one entry is left.  Runs before the heavier tests:
 * compacting a fragmented 2 GiB guest under emulation takes minutes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "folio_stamp.skel.h"

#define NR_FILES	3
#define FILE_PAGES	4096

static int read_all(const char *cgroup, void *files)
{
	return read_files(files, NR_FILES) ? EXIT_FAILURE : EXIT_SUCCESS;
}

FIXTURE(migrate) {
	int unused;
};

FIXTURE_SETUP(migrate)
{
}

FIXTURE_TEARDOWN(migrate)
{
}

TEST_F_TIMEOUT(migrate, registry_follows_migration, 600)
{
	char files[NR_FILES][PATH_MAX];
	struct folio_stamp *skel;
	struct bpf_link *link;
	long migrated = 0;
	size_t hold_len;
	int i, tries;
	void *hold;
	char *cg;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	ASSERT_EQ(trace_start(), 0);
	cg = memcg_create("cache_ext_migrate");
	ASSERT_NE(cg, NULL);
	for (i = 0; i < NR_FILES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "migrate%d", i);
		scratch_path(files[i], PATH_MAX, name);
		ASSERT_EQ(make_file(files[i], FILE_PAGES), 0);
		/* Written pages are the writer's; read them into @cg. */
		ASSERT_EQ(drop_file_cache(files[i]), 0);
	}

	skel = folio_stamp__open();
	ASSERT_NE(skel, NULL);
	skel->struct_ops.folio_stamp->cgroup_id = cgroup_id_of(cg);
	ASSERT_EQ(folio_stamp__load(skel), 0);
	link = bpf_map__attach_struct_ops(skel->maps.folio_stamp);
	ASSERT_NE(link, NULL);
	ASSERT_EQ(cg_run(cg, read_all, files), 0);

	/*
	 * Compaction moves movable pages from the low end of the zone to
	 * free pages at the high end; with most of the VM's memory free,
	 * the files may all sit in the high end, and nothing of them moves.
	 * Compact, then read everything: an access at a new address with
	 * the stamp intact is a migrated folio that kept its state.  Until
	 * one is seen, read the files again into other pages (the freed
	 * ones held by an anonymous region meanwhile).
	 */
	for (tries = 0; tries < 8; tries++) {
		long before = vmstat("pgmigrate_success");

		ASSERT_GE(write_text("/proc/sys/vm/compact_memory", "1", 1), 0);
		migrated += vmstat("pgmigrate_success") - before;
		ASSERT_EQ(cg_run(cg, read_all, files), 0);
		if (skel->bss->nr_moved_ok || skel->bss->nr_wrong)
			break;
		for (i = 0; i < NR_FILES; i++)
			ASSERT_EQ(drop_file_cache(files[i]), 0);
		hold_len = (size_t)(tries + 1) << 26;	/* 64 MiB more each time */
		hold = mmap(NULL, hold_len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(hold, MAP_FAILED);
		memset(hold, 1, hold_len);
		ASSERT_EQ(cg_run(cg, read_all, files), 0);
		munmap(hold, hold_len);
	}
	TH_LOG("%ld pages migrated in %d tries; %llu accesses checked, %llu to migrated folios",
	       migrated, tries + 1, (unsigned long long)skel->bss->nr_checked,
	       (unsigned long long)skel->bss->nr_moved_ok);
	EXPECT_EQ(skel->bss->nr_wrong, 0)
		TH_LOG("per-folio state lost or changed (migration?)");
	EXPECT_EQ(skel->bss->nr_missing, 0);
	ASSERT_GT(skel->bss->nr_moved_ok, 0)
		TH_LOG("no folio of the files was migrated");

	/* Migrated folios still read right, then all leave the cache. */
	ASSERT_EQ(cg_run(cg, read_all, files), 0);
	for (i = 0; i < NR_FILES; i++) {
		ASSERT_EQ(drop_file_cache(files[i]), 0);
		unlink(files[i]);
	}
	bpf_link__destroy(link);
	EXPECT_EQ(trace_count("cache_ext_unbind: policy=folio_stamp ",
			      "tracked=0 ", NULL), 1);
	folio_stamp__destroy(skel);
	cg_destroy(cg);
	free(cg);
}

#define GROW_READERS	4
#define GROW_PAGES	16384		/* 64 MiB each */
#define GROW_ROUNDS	5

static int read_one(const char *cgroup, void *path)
{
	return read_and_verify(path) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * Four readers insert folios into one fresh binding at once, so that its
 * registry grows its chunk tables (8 -> 256 chunks: five growths a round)
 * while the other readers' insertions hand the policy its folio data,
 * found after the binding's lock is dropped, and the policy writes it
 * (folio_stamp): no stamp may be lost or wrong, and on the KASAN kernel
 * (make check-debug) no access may touch a freed chunk table.  Five
 * rounds, each with a new binding and so a new registry.
 */
TEST_F_TIMEOUT(migrate, registry_grows_under_concurrent_insertions, 600)
{
	char files[GROW_READERS][PATH_MAX];
	unsigned long long checked = 0;
	int i, round, status;
	pid_t pids[GROW_READERS];
	char *cg;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	cg = memcg_create("cache_ext_grow");
	ASSERT_NE(cg, NULL);
	for (i = 0; i < GROW_READERS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "grow%d", i);
		scratch_path(files[i], PATH_MAX, name);
		ASSERT_EQ(make_file(files[i], GROW_PAGES), 0);
	}
	for (round = 0; round < GROW_ROUNDS; round++) {
		struct folio_stamp *skel;
		struct bpf_link *link;

		for (i = 0; i < GROW_READERS; i++)
			ASSERT_EQ(drop_file_cache(files[i]), 0);
		skel = folio_stamp__open();
		ASSERT_NE(skel, NULL);
		skel->struct_ops.folio_stamp->cgroup_id = cgroup_id_of(cg);
		ASSERT_EQ(folio_stamp__load(skel), 0);
		link = bpf_map__attach_struct_ops(skel->maps.folio_stamp);
		ASSERT_NE(link, NULL);
		/* Twice: the second pass checks every stamp the first wrote. */
		for (int pass = 0; pass < 2; pass++) {
			for (i = 0; i < GROW_READERS; i++) {
				pids[i] = cg_run_nowait(cg, read_one, files[i]);
				ASSERT_GT(pids[i], 0);
			}
			for (i = 0; i < GROW_READERS; i++) {
				ASSERT_EQ(waitpid(pids[i], &status, 0), pids[i]);
				EXPECT_TRUE(WIFEXITED(status) &&
					    !WEXITSTATUS(status));
			}
		}
		/* Unbound: exit() has been told why the binding ended. */
		bpf_link__destroy(link);
		TH_LOG("round %d: %llu stamps checked, binding ended: %s%s%s",
		       round, (unsigned long long)skel->bss->nr_checked,
		       skel->bss->exit_reason ? "ejected (" : "unbound",
		       skel->bss->exit_reason ? skel->bss->exit_msg : "",
		       skel->bss->exit_reason ? ")" : "");
		EXPECT_EQ(skel->bss->exit_reason, 0) TH_LOG("round %d", round);
		EXPECT_EQ(skel->bss->nr_wrong, 0) TH_LOG("round %d", round);
		EXPECT_EQ(skel->bss->nr_missing, 0) TH_LOG("round %d", round);
		EXPECT_GE(skel->bss->nr_checked, GROW_READERS * GROW_PAGES)
			TH_LOG("round %d", round);
		checked += skel->bss->nr_checked;
		folio_stamp__destroy(skel);
	}
	TH_LOG("%d rounds of %d readers: %llu stamps checked", GROW_ROUNDS,
	       GROW_READERS, checked);
	for (i = 0; i < GROW_READERS; i++)
		unlink(files[i]);
	cg_destroy(cg);
	free(cg);
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif
#define THP_SIZE	(2UL << 20)
#define COLLAPSE_PAGES	1024		/* 4 MiB: two PMD-sized folios */

/* In the cgroup: map @path read-only, fault it in, collapse it. */
static int map_and_collapse(const char *cgroup, void *path)
{
	size_t len = COLLAPSE_PAGES * 4096UL;
	volatile char sum = 0;
	char *area, *p;
	int fd, tries;
	size_t i;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 2;
	/* A 2 MiB aligned address, so that the large folios can be mapped. */
	area = mmap(NULL, len + THP_SIZE, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return 3;
	p = (char *)(((unsigned long)area + THP_SIZE - 1) & ~(THP_SIZE - 1));
	if (mmap(p, len, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) != p)
		return 4;
	for (i = 0; i < len; i += 4096)
		sum += p[i];
	for (tries = 0; tries < 10; tries++) {
		if (!madvise(p, len, MADV_COLLAPSE))
			return 0;
		if (errno != EAGAIN)
			return 5;
		usleep(100000);
	}
	return 6;
}

/* The cgroup's file folios: PMD-sized ones, and the 4 KiB others. */
static long file_folios(const char *cg)
{
	long file = cg_read_key_long(cg, "memory.stat", "file ");
	long thp = cg_read_key_long(cg, "memory.stat", "file_thp ");

	if (file < 0 || thp < 0)
		return -1;
	return thp / THP_SIZE + (file - thp) / 4096;
}

/*
 * MADV_COLLAPSE joins the small page cache folios of a read-only file
 * mapping into large ones (collapse_file()), and the split_huge_pages
 * debugfs file splits them again (__split_huge_page()): after each, the
 * registry tracks exactly the cgroup's file folios, the policy's data of
 * every folio it is told of is right, and reclaim through the policy's
 * list meets no folio that left (no error, no KASAN report on the debug
 * kernel).  Before cache_ext followed them, the registry kept the 1024
 * freed small folios and never knew the two large ones.
 */
TEST_F_TIMEOUT(migrate, registry_follows_collapse_and_split, 300)
{
	struct folio_stamp *skel;
	struct bpf_link *link;
	char file[PATH_MAX], split[PATH_MAX + 64];
	uint64_t id;
	long folios, tracked;
	char *cg;
	int ret;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	if (access("/sys/kernel/mm/transparent_hugepage", F_OK))
		SKIP(return, "the kernel has no CONFIG_TRANSPARENT_HUGEPAGE");
	ASSERT_EQ(ctl_module_load(), 0);
	cg = memcg_create("cache_ext_collapse");
	ASSERT_NE(cg, NULL);
	id = cgroup_id_of(cg);
	scratch_path(file, PATH_MAX, "collapse");
	ASSERT_EQ(make_file(file, COLLAPSE_PAGES), 0);
	ASSERT_EQ(drop_file_cache(file), 0);

	skel = folio_stamp__open();
	ASSERT_NE(skel, NULL);
	skel->struct_ops.folio_stamp->cgroup_id = id;
	ASSERT_EQ(folio_stamp__load(skel), 0);
	link = bpf_map__attach_struct_ops(skel->maps.folio_stamp);
	ASSERT_NE(link, NULL);

	ret = cg_run(cg, map_and_collapse, file);
	ASSERT_EQ(ret, 0) TH_LOG("map_and_collapse() failed at step %d", ret);
	folios = file_folios(cg);
	tracked = binding_stat(id, "tracked ");
	TH_LOG("collapsed: %ld file folios in the cgroup (%ld bytes in THPs), %ld tracked",
	       folios, cg_read_key_long(cg, "memory.stat", "file_thp "),
	       tracked);
	EXPECT_EQ(cg_read_key_long(cg, "memory.stat", "file_thp "),
		  2 * THP_SIZE);
	EXPECT_EQ(tracked, folios);

	snprintf(split, sizeof(split), "%s,0x0,0x%x", file, COLLAPSE_PAGES);
	ASSERT_GE(write_text("/sys/kernel/debug/split_huge_pages", split,
			     strlen(split)), 0);
	folios = file_folios(cg);
	tracked = binding_stat(id, "tracked ");
	TH_LOG("split: %ld file folios, %ld tracked", folios, tracked);
	EXPECT_EQ(cg_read_key_long(cg, "memory.stat", "file_thp "), 0);
	EXPECT_EQ(tracked, folios);

	/* Read through the registry once more, then evict it all. */
	ASSERT_EQ(cg_run(cg, read_one, file), 0);
	/* EAGAIN if less than asked was reclaimable: all the same here. */
	cg_write(cg, "memory.reclaim", "16M");
	EXPECT_LT(file_folios(cg), COLLAPSE_PAGES);
	EXPECT_EQ(binding_stat(id, "tracked "), file_folios(cg));
	EXPECT_EQ(binding_stat(id, "errors "), 0);
	EXPECT_EQ(skel->bss->nr_wrong, 0);
	EXPECT_EQ(skel->bss->nr_missing, 0);

	bpf_link__destroy(link);
	folio_stamp__destroy(skel);
	unlink(file);
	cg_destroy(cg);
	free(cg);
}

TEST_HARNESS_MAIN
