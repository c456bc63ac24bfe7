// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext eviction, admission and ejection, seen from user space: a
 * memory cgroup with a small memory.max reads more than fits, and
 * cachestat(2) shows which files the bound policy kept.  Every test runs
 * with MGLRU on and with it off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "fifo.skel.h"
#include "noop.skel.h"
#include "evict_newest.skel.h"
#include "hostile.skel.h"
#include "forge_folio.skel.h"
#include "wrong_context.skel.h"
#include "no_admit.skel.h"
#include "list_misuse.skel.h"
#include "kernel_listed.skel.h"
#include "progs/list_misuse.h"

#define FILE_PAGES	4096		/* 16 MiB per file */
#define MEMCG_MAX	"32M"		/* two of the three files fit */
#define NR_FILES	3

FIXTURE(evict) {
	char *cg;
	uint64_t cg_id;
	char files[NR_FILES][PATH_MAX];
};

FIXTURE_VARIANT(evict) {
	int lru_gen;
};

FIXTURE_VARIANT_ADD(evict, lru) {
	.lru_gen = 0,
};

FIXTURE_VARIANT_ADD(evict, mglru) {
	.lru_gen = 1,
};

FIXTURE_SETUP(evict)
{
	int i;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	ASSERT_EQ(set_lru_gen(variant->lru_gen), 0);
	ASSERT_EQ(trace_start(), 0);

	self->cg = memcg_create("cache_ext_evict");
	ASSERT_NE(self->cg, NULL);
	ASSERT_EQ(cg_write(self->cg, "memory.max", MEMCG_MAX), 0);
	self->cg_id = cgroup_id_of(self->cg);

	for (i = 0; i < NR_FILES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "evict%c", 'A' + i);
		scratch_path(self->files[i], PATH_MAX, name);
		ASSERT_EQ(make_file(self->files[i], FILE_PAGES), 0);
	}
}

FIXTURE_TEARDOWN(evict)
{
	int i;

	for (i = 0; i < NR_FILES; i++)
		unlink(self->files[i]);
	if (self->cg) {
		cg_destroy(self->cg);
		free(self->cg);
	}
	set_lru_gen(1);
	set_core_param("evict_budget_ms", 200);
}

/* Read files A, B, C in that order, checking every page. */
static int read_all(const char *cgroup, void *files)
{
	return read_files(files, NR_FILES) ? EXIT_FAILURE : EXIT_SUCCESS;
}

static long cached(FIXTURE_DATA(evict) *self, int i)
{
	return cached_pages(self->files[i]);
}

#define ATTACH(skel_type, map, self)					\
({									\
	struct skel_type *__s = skel_type##__open();			\
	if (__s) {							\
		__s->struct_ops.map->cgroup_id = (self)->cg_id;		\
		if (skel_type##__load(__s)) {				\
			skel_type##__destroy(__s);			\
			__s = NULL;					\
		}							\
	}								\
	__s;								\
})

/*
 * With the policy of @ops (loaded, bound to the cgroup) attached, read A,
 * B, C: A, read first, goes first and C stays, and the policy, not the
 * fallback, did the evicting.
 */
static void expect_fifo_order(struct __test_metadata *_metadata,
			      FIXTURE_DATA(evict) *self, struct bpf_map *ops)
{
	struct bpf_link *link = bpf_map__attach_struct_ops(ops);

	ASSERT_NE(link, NULL);
	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);
	TH_LOG("cached A=%ld B=%ld C=%ld", cached(self, 0), cached(self, 1),
	       cached(self, 2));
	EXPECT_LT(cached(self, 0), FILE_PAGES / 4);
	EXPECT_GT(cached(self, 2), FILE_PAGES * 3 / 4);
	EXPECT_GT(trace_count("cache_ext_evict:", "proposed=32", NULL), 0);
	bpf_link__destroy(link);
}

static void expect_fifo_evicts_oldest(struct __test_metadata *_metadata,
				      FIXTURE_DATA(evict) *self)
{
	struct fifo *skel = ATTACH(fifo, fifo, self);

	ASSERT_NE(skel, NULL);
	expect_fifo_order(_metadata, self, skel->maps.fifo);
	fifo__destroy(skel);
}

TEST_F(evict, fifo_evicts_oldest)
{
	expect_fifo_evicts_oldest(_metadata, self);
}

/* memory.high reclaim asks the policy too. */
TEST_F(evict, fifo_under_memory_high)
{
	ASSERT_EQ(cg_write(self->cg, "memory.max", "max"), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.high", MEMCG_MAX), 0);
	expect_fifo_evicts_oldest(_metadata, self);
}

/*
 * CACHE_EXT_OPS_ADD_TO_LIST: with no init() and no folio_added(), the
 * kernel creates list 0 and appends every new folio: FIFO order again.
 */
TEST_F(evict, kernel_lists_new_folios)
{
	struct kernel_listed *skel = ATTACH(kernel_listed, kernel_listed, self);

	ASSERT_NE(skel, NULL);
	expect_fifo_order(_metadata, self, skel->maps.kernel_listed);
	kernel_listed__destroy(skel);
}

/* A flag this kernel does not know refuses the policy. */
TEST_F(evict, unknown_ops_flag_refused)
{
	struct fifo *skel = fifo__open();
	struct bpf_link *link;

	ASSERT_NE(skel, NULL);
	skel->struct_ops.fifo->flags |= 1ULL << 40;
	/* The kernel sees the flags when libbpf writes the map, at attach. */
	ASSERT_EQ(fifo__load(skel), 0);
	link = bpf_map__attach_struct_ops(skel->maps.fifo);
	EXPECT_EQ(link, NULL);
	EXPECT_EQ(errno, EINVAL);
	bpf_link__destroy(link);
	fifo__destroy(skel);
}

/* Evicting newest first keeps A, which the kernel's LRU would drop. */
TEST_F(evict, newest_first_keeps_oldest)
{
	struct evict_newest *skel = ATTACH(evict_newest, evict_newest, self);
	struct bpf_link *link;

	ASSERT_NE(skel, NULL);
	link = bpf_map__attach_struct_ops(skel->maps.evict_newest);
	ASSERT_NE(link, NULL);

	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);
	TH_LOG("cached A=%ld B=%ld C=%ld, proposed %llu", cached(self, 0),
	       cached(self, 1), cached(self, 2), skel->bss->nr_proposed);
	EXPECT_GT(cached(self, 0), FILE_PAGES * 3 / 4);
	EXPECT_LT(cached(self, 2), FILE_PAGES / 2);
	EXPECT_GT(skel->bss->nr_proposed, FILE_PAGES / 2);

	bpf_link__destroy(link);
	evict_newest__destroy(skel);
}

/*
 * Reclaim aimed at the root cgroup takes the global paths (shrink_node(),
 * MGLRU's shrink_many()), which must ask a bound cgroup's policy as well.
 */
TEST_F(evict, root_reclaim_asks_policy)
{
	struct evict_newest *skel = ATTACH(evict_newest, evict_newest, self);
	struct bpf_link *link;
	char id[32];

	ASSERT_NE(skel, NULL);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "max"), 0);
	link = bpf_map__attach_struct_ops(skel->maps.evict_newest);
	ASSERT_NE(link, NULL);

	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);
	EXPECT_EQ(cached(self, 0) + cached(self, 1) + cached(self, 2),
		  NR_FILES * FILE_PAGES);
	ASSERT_EQ(trace_start(), 0);

	/* A third of what the cgroup caches; reclaim spreads over all. */
	cg_write("/sys/fs/cgroup", "memory.reclaim", "16M");
	snprintf(id, sizeof(id), "cgroup=%llu ", (unsigned long long)self->cg_id);
	TH_LOG("cached A=%ld B=%ld C=%ld, evict calls %ld", cached(self, 0),
	       cached(self, 1), cached(self, 2),
	       trace_count("cache_ext_evict:", id, NULL));
	EXPECT_GT(trace_count("cache_ext_evict:", id, "accepted=32", NULL), 0);
	/* Newest first: C went before A. */
	EXPECT_LT(cached(self, 2), cached(self, 0));

	bpf_link__destroy(link);
	evict_newest__destroy(skel);
}

/* A policy that proposes nothing: the kernel evicts, as fallback. */
TEST_F(evict, noop_falls_back)
{
	struct noop *skel = ATTACH(noop, noop, self);
	struct bpf_link *link;
	char id[32];

	ASSERT_NE(skel, NULL);
	link = bpf_map__attach_struct_ops(skel->maps.noop);
	ASSERT_NE(link, NULL);

	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);
	snprintf(id, sizeof(id), "cgroup=%llu ", (unsigned long long)self->cg_id);
	EXPECT_GT(trace_count("cache_ext_evict:", id, "proposed=0 ", NULL), 0);
	EXPECT_EQ(trace_count("cache_ext_evict:", id, "accepted=32", NULL), 0);
	EXPECT_GT(trace_count("cache_ext_fallback:", id, NULL), 0);
	/* Like the kernel's LRU: the oldest file went. */
	EXPECT_LT(cached(self, 0), FILE_PAGES / 4);

	bpf_link__destroy(link);
	noop__destroy(skel);
}

/* Bind fifo to the fixture's cgroup, retrying while it is still busy. */
static struct bpf_link *attach_fifo_when_free(FIXTURE_DATA(evict) *self,
					      struct fifo **skel)
{
	struct bpf_link *link = NULL;
	int i;

	for (i = 0; i < 200 && !link; i++) {
		*skel = ATTACH(fifo, fifo, self);
		if (!*skel)
			return NULL;
		link = bpf_map__attach_struct_ops((*skel)->maps.fifo);
		if (!link) {
			fifo__destroy(*skel);
			*skel = NULL;
			usleep(10000);
		}
	}
	return link;
}

/*
 * Attach one misbehaving policy, run the workload to completion with
 * intact data, and check that the policy was ejected for @reason and that
 * the cgroup is free for another policy.
 */
static void run_hostile(struct __test_metadata *_metadata,
			FIXTURE_DATA(evict) *self, const char *name,
			const char *reason, const char *why)
{
	struct bpf_link *link, *fifo_link;
	struct hostile *skel;
	struct fifo *fifo;
	char ejected[96];

	link = attach_hostile(self->cg_id, name, &skel);
	ASSERT_NE(link, NULL) TH_LOG("attach %s: %s", name, strerror(errno));

	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);
	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);

	snprintf(ejected, sizeof(ejected), "policy=%s reason=", name);
	EXPECT_EQ(trace_count("cache_ext_eject:", ejected, reason, NULL), 1)
		TH_LOG("evict calls %llu, rejected %llu",
		       skel->bss->nr_evict_calls, skel->bss->nr_rejected);

	/* The ejection unbinds from a work item: wait for the cgroup. */
	fifo_link = attach_fifo_when_free(self, &fifo);
	EXPECT_NE(fifo_link, NULL);
	/* exit() was told why, in words, and so was the log. */
	EXPECT_EQ(skel->bss->nr_exits, 1);
	EXPECT_NE(skel->bss->exit_reason, 0);
	EXPECT_NE(strstr(skel->bss->exit_msg, why), NULL)
		TH_LOG("exit() was told '%s'; want '%s'", skel->bss->exit_msg, why);
	EXPECT_EQ(kmsg_contains(skel->bss->exit_msg), 1);
	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);

	bpf_link__destroy(fifo_link);
	if (fifo_link)
		fifo__destroy(fifo);
	bpf_link__destroy(link);
	hostile__destroy(skel);
}

TEST_F(evict, eject_too_many)
{
	run_hostile(_metadata, self, "hostile_many",
		    "(more candidates than requested)",
		    "evict_folios() proposed ");
}

TEST_F(evict, eject_duplicates)
{
	run_hostile(_metadata, self, "hostile_dup", "(duplicate candidates)",
		    "bad candidates in a second in cgroup");
}

TEST_F(evict, eject_timeout)
{
	ASSERT_EQ(set_core_param("evict_budget_ms", 50), 0);
	run_hostile(_metadata, self, "hostile_spin",
		    "(evict_folios() over its time budget)",
		    "evict_folios() took ");
}

/* init() failing refuses the binding with its error; nothing stays bound. */
TEST_F(evict, failing_init_refused)
{
	struct bpf_link *link;
	struct hostile *skel;
	struct fifo *fifo;

	link = attach_hostile(self->cg_id, "hostile_init", &skel);
	EXPECT_EQ(link, NULL);
	EXPECT_EQ(errno, EPERM);
	hostile__destroy(skel);

	link = attach_fifo_when_free(self, &fifo);
	EXPECT_NE(link, NULL);
	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);
	bpf_link__destroy(link);
	if (link)
		fifo__destroy(fifo);
}

/* Write @val to the cgroup's memory.cache_ext: 0 or -errno. */
static int select_policy(const char *cg, const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/memory.cache_ext", cg);
	return write_str(path, val);
}

/*
 * memory.cache_ext selects a registered policy by name and shows it;
 * every bad write gets its documented error and changes nothing.
 */
TEST_F(evict, select_through_cgroupfs)
{
	struct bpf_link *link, *init_link;
	struct hostile *failing;
	struct fifo *skel;
	char buf[64];

	skel = fifo__open();
	ASSERT_NE(skel, NULL);
	ASSERT_EQ(fifo__load(skel), 0);
	link = bpf_map__attach_struct_ops(skel->maps.fifo);
	ASSERT_NE(link, NULL);

	ASSERT_EQ(cg_read_strcmp(self->cg, "memory.cache_ext", "default\n"), 0);
	EXPECT_EQ(select_policy(self->cg, "no_such_policy"), -ENOENT);
	ASSERT_EQ(select_policy(self->cg, "fifo"), 0);
	ASSERT_EQ(cg_read(self->cg, "memory.cache_ext", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "fifo\n");
	EXPECT_EQ(select_policy(self->cg, "fifo"), -EBUSY);

	/* It is really in charge: the FIFO order shows. */
	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);
	EXPECT_LT(cached(self, 0), FILE_PAGES / 4);
	EXPECT_GT(trace_count("cache_ext_evict:", "proposed=32", NULL), 0);

	ASSERT_EQ(select_policy(self->cg, "default"), 0);
	EXPECT_EQ(cg_read_strcmp(self->cg, "memory.cache_ext", "default\n"), 0);
	EXPECT_EQ(select_policy(self->cg, "default"), 0);

	/* init() failing for a cgroup refuses it and ejects the policy. */
	self->cg_id = 0;	/* register hostile_init unbound */
	init_link = attach_hostile(self->cg_id, "hostile_init", &failing);
	ASSERT_NE(init_link, NULL);
	EXPECT_EQ(select_policy(self->cg, "hostile_init"), -EPERM);
	EXPECT_EQ(cg_read_strcmp(self->cg, "memory.cache_ext", "default\n"), 0);
	EXPECT_EQ(trace_count("cache_ext_eject:", "policy=hostile_init ",
			      "(init() failed)", NULL), 1);
	EXPECT_EQ(select_policy(self->cg, "hostile_init"), -ESHUTDOWN);

	bpf_link__destroy(init_link);
	hostile__destroy(failing);
	bpf_link__destroy(link);
	fifo__destroy(skel);
}

/* A forged folio pointer never reaches the kernel: the verifier refuses. */
TEST_F(evict, forged_pointer_rejected_at_load)
{
	struct forge_folio *skel = forge_folio__open();

	ASSERT_NE(skel, NULL);
	EXPECT_NE(forge_folio__load(skel), 0);
	forge_folio__destroy(skel);
}

/*
 * A kfunc of one callback called from another is refused when the program
 * loads, with the verifier saying which: load one map of wrong_context at
 * a time and read its log.
 */
static int load_wrong_context(bool propose_in_added, char *log, size_t len)
{
	struct wrong_context *skel = wrong_context__open();
	int ret;

	if (!skel)
		return -errno;
	log[0] = '\0';
	bpf_map__set_autocreate(propose_in_added ? skel->maps.create_in_evict :
				skel->maps.propose_in_added, false);
	bpf_program__set_log_buf(propose_in_added ? skel->progs.propose_added :
				 skel->progs.create_evict, log, len);
	bpf_program__set_log_level(propose_in_added ? skel->progs.propose_added :
				   skel->progs.create_evict, 1);
	ret = wrong_context__load(skel);
	wrong_context__destroy(skel);
	return ret;
}

TEST_F(evict, kfunc_in_wrong_callback_refused_at_load)
{
	static char log[65536];

	EXPECT_NE(load_wrong_context(true, log, sizeof(log)), 0);
	EXPECT_NE(strstr(log, "calling kernel function bpf_cache_ext_propose_list is not allowed"),
		  NULL) TH_LOG("%s", log);
	EXPECT_NE(load_wrong_context(false, log, sizeof(log)), 0);
	EXPECT_NE(strstr(log, "calling kernel function bpf_cache_ext_list_create is not allowed"),
		  NULL) TH_LOG("%s", log);
}

/* Dirty data under an aggressive policy: nothing lost. */
static int write_all(const char *cgroup, void *arg)
{
	char (*files)[PATH_MAX] = arg;
	int i;

	for (i = 0; i < NR_FILES; i++)
		if (make_file(files[i], FILE_PAGES))
			return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

TEST_F(evict, dirty_data_survives)
{
	struct evict_newest *skel = ATTACH(evict_newest, evict_newest, self);
	struct bpf_link *link;
	int i;

	ASSERT_NE(skel, NULL);
	link = bpf_map__attach_struct_ops(skel->maps.evict_newest);
	ASSERT_NE(link, NULL);
	for (i = 0; i < NR_FILES; i++)
		ASSERT_EQ(unlink(self->files[i]), 0);

	/* make_file() writes, fsyncs and drops each file in turn. */
	ASSERT_EQ(cg_run(self->cg, write_all, self->files), 0);
	sync();
	ASSERT_GE(write_text("/proc/sys/vm/drop_caches", "3", 1), 0);
	for (i = 0; i < NR_FILES; i++)
		EXPECT_EQ(read_and_verify(self->files[i]), 0);

	bpf_link__destroy(link);
	evict_newest__destroy(skel);
}

/*
 * Writing more than memory.max while the policy is bound: the head of the
 * FIFO is dirty for a while, the core declines those candidates, the
 * flushers are woken and the LRU makes up the rest.  Regression test: the
 * policy's clean candidates once hid the dirty ones from MGLRU's flusher
 * wake-up, and the writer was OOM-killed within milliseconds.
 */
#define BURST_MIB	40

/* Writes @mib MiB of 0x5a in 1 MiB writes, as fast as dd would. */
static int write_burst(const char *path, int mib)
{
	static char buf[1 << 20];
	int fd, i, ret = 0;

	memset(buf, 0x5a, sizeof(buf));
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		return -errno;
	for (i = 0; i < mib && !ret; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			ret = -EIO;
	close(fd);
	return ret;
}

static int burst_reads_back(const char *path, int mib)
{
	static char buf[1 << 20];
	int fd, i, ret = 0;
	size_t j;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	for (i = 0; i < mib && !ret; i++) {
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			ret = -EIO;
		for (j = 0; j < sizeof(buf) && !ret; j++)
			if (buf[j] != 0x5a)
				ret = -EIO;
	}
	if (!ret && read(fd, buf, 1) != 0)
		ret = -EIO;
	close(fd);
	return ret;
}

static int read_then_write(const char *cgroup, void *arg)
{
	char (*files)[PATH_MAX] = arg;

	if (read_files(files, 1))
		return EXIT_FAILURE;
	return write_burst(files[1], BURST_MIB) ? EXIT_FAILURE : EXIT_SUCCESS;
}

TEST_F(evict, writeback_pressure_no_oom)
{
	struct fifo *skel = ATTACH(fifo, fifo, self);
	struct bpf_link *link;

	ASSERT_NE(skel, NULL);
	link = bpf_map__attach_struct_ops(skel->maps.fifo);
	ASSERT_NE(link, NULL);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "16M"), 0);

	/* 40 MiB written through a 16 MiB cgroup, after 16 MiB read. */
	EXPECT_EQ(cg_run(self->cg, read_then_write, self->files), 0);
	EXPECT_EQ(cg_read_key_long(self->cg, "memory.events", "oom_kill "), 0);
	sync();
	EXPECT_EQ(burst_reads_back(self->files[1], BURST_MIB), 0);

	bpf_link__destroy(link);
	fifo__destroy(skel);
}

/* A refused file reads back intact and leaves (almost) nothing cached. */
TEST_F(evict, admission_refused)
{
	struct no_admit *skel = ATTACH(no_admit, no_admit, self);
	struct bpf_link *link;
	struct stat st;

	ASSERT_NE(skel, NULL);
	ASSERT_EQ(stat(self->files[0], &st), 0);
	skel->bss->target_ino = st.st_ino;
	link = bpf_map__attach_struct_ops(skel->maps.no_admit);
	ASSERT_NE(link, NULL);

	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);
	TH_LOG("cached A=%ld B=%ld, refused %llu", cached(self, 0),
	       cached(self, 1), skel->bss->nr_refused);
	EXPECT_GE(skel->bss->nr_refused, FILE_PAGES);
	EXPECT_LT(cached(self, 0), FILE_PAGES / 16);
	EXPECT_GT(cached(self, 1), FILE_PAGES / 2);

	bpf_link__destroy(link);
	no_admit__destroy(skel);
}

/* Every list kfunc, used right and wrong. */
TEST_F(evict, list_kfuncs)
{
	struct list_misuse *skel = ATTACH(list_misuse, list_misuse, self);
	struct bpf_link *link;
	__s64 *r;

	ASSERT_NE(skel, NULL);
	link = bpf_map__attach_struct_ops(skel->maps.list_misuse);
	ASSERT_NE(link, NULL);
	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);

	r = skel->bss->results;
	ASSERT_EQ(r[R_DONE], 1);
	EXPECT_EQ(r[R_MAX_LISTS], 7);
	EXPECT_EQ(r[R_CREATE_LAST], r[R_MAX_LISTS] - 1);
	EXPECT_EQ(r[R_CREATE_TOO_MANY], -ENOSPC);
	EXPECT_EQ(r[R_ADD], 0);
	EXPECT_EQ(r[R_ADD_AGAIN], -EEXIST);
	EXPECT_EQ(r[R_ADD_BAD_LIST], -EINVAL);
	EXPECT_EQ(r[R_SIZE_0], 1);
	EXPECT_EQ(r[R_MOVE_TO_1_TAIL], 0);
	EXPECT_EQ(r[R_SIZE_0_AFTER], 0);
	EXPECT_EQ(r[R_SIZE_1_AFTER], 1);
	EXPECT_EQ(r[R_SIZE_BAD_LIST], -EINVAL);
	EXPECT_EQ(r[R_ITER_FIRST_IS_FOLIO], 1);
	EXPECT_EQ(r[R_ITER_BAD_LIST], 1);
	EXPECT_EQ(r[R_DEL], 0);
	EXPECT_EQ(r[R_DEL_AGAIN], -ENOENT);
	EXPECT_EQ(r[R_MOVE_UNLINKED], -ENOENT);
	EXPECT_EQ(r[R_SIZE_1_EMPTY], 0);
	ASSERT_EQ(r[R_PLIST_DONE], 1);
	EXPECT_EQ(r[R_PLIST_BAD_LIST], -EINVAL);
	EXPECT_EQ(r[R_PLIST_EMPTY], 0);
	EXPECT_EQ(r[R_PLIST_NOTHING], 0);

	bpf_link__destroy(link);
	list_misuse__destroy(skel);
}

/*
 * Bind, unbind and eject while two readers work under pressure, over and
 * over; at the end no registry entry is left anywhere.
 */
static int read_forever(const char *cgroup, void *arg)
{
	for (;;)
		if (read_all(cgroup, arg))
			return EXIT_FAILURE;
}

TEST_F(evict, churn_under_pressure)
{
	pid_t readers[2];
	int i, status;

	for (i = 0; i < 2; i++) {
		readers[i] = cg_run_nowait(self->cg, read_forever, self->files);
		ASSERT_GT(readers[i], 0);
	}

	for (i = 0; i < 6; i++) {
		struct fifo *fifo = ATTACH(fifo, fifo, self);
		struct bpf_link *link;

		ASSERT_NE(fifo, NULL);
		link = bpf_map__attach_struct_ops(fifo->maps.fifo);
		EXPECT_NE(link, NULL);
		usleep(200000);
		bpf_link__destroy(link);
		fifo__destroy(fifo);

		if (i % 2) {
			struct hostile *h;

			link = attach_hostile(self->cg_id, "hostile_many", &h);
			EXPECT_NE(link, NULL);
			usleep(200000);
			bpf_link__destroy(link);
			hostile__destroy(h);
		}
	}

	for (i = 0; i < 2; i++) {
		/* Still reading: no reader failed a checksum. */
		EXPECT_EQ(waitpid(readers[i], &status, WNOHANG), 0);
		kill(readers[i], SIGKILL);
		waitpid(readers[i], &status, 0);
	}

	/* Six fifo bindings, three ejected or unloaded hostile ones. */
	EXPECT_EQ(trace_count("cache_ext_unbind:", NULL), 9);
	/* Each unbind frees its binding's entries: none is left after it. */
	EXPECT_EQ(trace_count("cache_ext_unbind:", " live=0", NULL), 9);
}

TEST_HARNESS_MAIN
