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
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
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
#include "may_goto.skel.h"
#include "no_admit.skel.h"
#include "list_misuse.skel.h"
#include "kernel_listed.skel.h"
#include "left_cache.skel.h"
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
	restore_core_params();
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
	TH_LOG("pages reclaimed: %ld from the policy's candidates, %ld by the LRU",
	       trace_sum("cache_ext_evict:", " reclaimed="),
	       trace_sum("cache_ext_fallback:", " reclaimed="));
	EXPECT_LT(cached(self, 0), FILE_PAGES / 4);
	EXPECT_GT(cached(self, 2), FILE_PAGES * 3 / 4);
	EXPECT_POLICY_EVICTED();
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
	if (!strcmp(name, "hostile_quit")) {
		/* Gave up once; every later call found it ejected. */
		EXPECT_EQ(skel->bss->nr_quit_ok, 1);
		EXPECT_GE(skel->bss->nr_quit_refused, 1);
	}
	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);

	bpf_link__destroy(fifo_link);
	if (fifo_link)
		fifo__destroy(fifo);
	detach_hostile(link, skel);
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

/*
 * A policy that gives up through bpf_cache_ext_eject_self() is ejected as
 * the kernel ejects one, with its own words; a second call finds it
 * ejected.
 */
TEST_F(evict, eject_self)
{
	run_hostile(_metadata, self, "hostile_quit", "(the policy gave up)",
		    "hostile_quit gives up on purpose (in cgroup ");
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
	EXPECT_POLICY_EVICTED();

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

	detach_hostile(init_link, failing);
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

/*
 * A may_goto loop (cond_break) is refused when the program loads, with the
 * verifier saying why: the kernel ends a cache_ext call's loops once it is
 * past its budget, and cannot end that one (its count restarts in every
 * call of a subprogram, so nested in two frames it runs 2^46 times).
 * Before, it loaded, and held its CPU until it ran out.
 */
TEST_F(evict, may_goto_refused_at_load)
{
	static char log[65536];
	struct may_goto *skel = may_goto__open();

	ASSERT_NE(skel, NULL);
	log[0] = '\0';
	bpf_program__set_log_buf(skel->progs.may_goto_evict, log, sizeof(log));
	bpf_program__set_log_level(skel->progs.may_goto_evict, 1);
	EXPECT_NE(may_goto__load(skel), 0);
	EXPECT_NE(strstr(log, "may_goto: the kernel cannot end it; use bpf_for()"),
		  NULL) TH_LOG("%s", log);
	may_goto__destroy(skel);
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
 * FIFO is dirty for a while, reclaim declines those candidates, the
 * flushers are woken and the LRU makes up the rest.  Regression test: the
 * policy's clean candidates once hid the dirty ones from MGLRU's flusher
 * wake-up, and the writer was OOM-killed within milliseconds; later, the
 * LRU pass after a batch of the policy's that freed nothing asked the
 * policy again, and the writer was OOM-killed within seconds.
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

static int read_first(const char *cgroup, void *files)
{
	return read_files(files, 1) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Pin the calling thread to @cpu, or let it run anywhere if -1: 0 or -errno. */
static int pin_to_cpu(int cpu)
{
	long i, n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	for (i = 0; i < n && i < CPU_SETSIZE; i++)
		if (cpu < 0 || i == cpu)
			CPU_SET(i, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/*
 * A folio that leaves the page cache between the policy seeing it and
 * proposing it is a race every policy runs, not its mistake: the
 * proposal fails with -ENOENT and counts no error.  left_cache holds a
 * folio of file A in evict_folios() while this test truncates A, then
 * proposes it; the iterator has yielded another folio since, so the
 * kernel must look the held one up (the path whose answer once depended
 * on CONFIG_SPARSEMEM_VMEMMAP).  The reclaimer and the truncation run on
 * different CPUs: evict_folios() does not sleep.
 */
TEST_F(evict, proposal_of_truncated_folio_is_no_error)
{
	struct left_cache *skel;
	struct bpf_link *link;
	struct timespec t0, t;
	pid_t pid;
	int status;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	/* The wait below must not run into the budget (-ETIME). */
	ASSERT_EQ(set_core_param("evict_budget_ms", 30000), 0);
	ASSERT_EQ(ctl_module_load(), 0);
	skel = ATTACH(left_cache, left_cache, self);
	ASSERT_NE(skel, NULL);
	link = bpf_map__attach_struct_ops(skel->maps.left_cache);
	ASSERT_NE(link, NULL);
	ASSERT_EQ(cg_run(self->cg, read_first, self->files), 0);
	ASSERT_EQ(cached(self, 0), FILE_PAGES);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		pin_to_cpu(0);
		_exit(cg_write(self->cg, "memory.reclaim", "1M") ? 1 : 0);
	}
	ASSERT_EQ(pin_to_cpu(1), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		usleep(1000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (__atomic_load_n(&skel->bss->stage, __ATOMIC_ACQUIRE) != 1 &&
		 t.tv_sec - t0.tv_sec < 30);
	EXPECT_EQ(skel->bss->stage, 1) TH_LOG("evict_folios() never held a folio");
	EXPECT_EQ(truncate(self->files[0], 0), 0);
	EXPECT_EQ(cached(self, 0), 0);
	__atomic_store_n(&skel->bss->stage, 2, __ATOMIC_RELEASE);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);

	TH_LOG("stage %d, propose() %d, waited %llu steps, errors %lld",
	       skel->bss->stage, skel->data->propose_ret, skel->bss->waited,
	       binding_stat(self->cg_id, "errors "));
	EXPECT_EQ(skel->bss->stage, 3);
	EXPECT_EQ(skel->data->propose_ret, -ENOENT);
	EXPECT_EQ(binding_stat(self->cg_id, "errors "), 0);
	EXPECT_EQ(trace_ejections("left_cache"), 0);
	EXPECT_EQ(cg_read_strcmp(self->cg, "memory.cache_ext", "left_cache\n"), 0);

	bpf_link__destroy(link);
	left_cache__destroy(skel);
	ctl_module_unload();
	pin_to_cpu(-1);
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
			detach_hostile(link, h);
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

/*
 * A swap file of @mib MiB at @path, switched on: the header mkswap(8)
 * writes (version 1, the last page's index, the magic at the end of the
 * first page), then swapon(2).  0 or -errno.
 */
static int swap_on(const char *path, int mib)
{
	static char page[4096];
	uint32_t hdr[3] = { 1, (uint32_t)(mib * 256 - 1), 0 };
	int fd, i, ret = 0;

	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0)
		return -errno;
	memset(page, 0, sizeof(page));
	for (i = 1; i < mib * 256 && !ret; i++)
		if (pwrite(fd, page, sizeof(page), (off_t)i * sizeof(page)) !=
		    sizeof(page))
			ret = -EIO;
	memcpy(page + 1024, hdr, sizeof(hdr));
	memcpy(page + sizeof(page) - 10, "SWAPSPACE2", 10);
	if (!ret && pwrite(fd, page, sizeof(page), 0) != sizeof(page))
		ret = -EIO;
	if (!ret && fsync(fd))
		ret = -errno;
	close(fd);
	if (!ret && swapon(path, 0))
		ret = -errno;
	return ret;
}

/*
 * The file generations MGLRU has for the cgroup, from
 * /sys/kernel/debug/lru_gen_full: its memcg id, and the oldest (a retired
 * one is marked 'x') and the youngest sequence number.  0 or -1.
 */
static int lru_gen_file_seqs(const char *cg, int *id, unsigned long *min_seq,
			     unsigned long *max_seq)
{
	const char *path = cg + strlen("/sys/fs/cgroup");
	char line[256], want[PATH_MAX + 16], anon_mark, file_mark;
	unsigned long seq, anon, file;
	int in_memcg = 0, found = 0;
	unsigned int age;
	FILE *f;

	f = fopen("/sys/kernel/debug/lru_gen_full", "r");
	if (!f)
		return -1;
	snprintf(want, sizeof(want), " %s\n", path);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "memcg ", 6)) {
			size_t n = strlen(line), w = strlen(want);

			in_memcg = n >= w && !strcmp(line + n - w, want) &&
				   sscanf(line, "memcg %d", id) == 1;
			continue;
		}
		/* A generation's line; its tiers' lines are indented more. */
		if (!in_memcg || strspn(line, " ") >= 11 ||
		    sscanf(line, " %lu %u %lu%c %lu%c", &seq, &age, &anon,
			   &anon_mark, &file, &file_mark) != 6 ||
		    file_mark == 'x')
			continue;
		if (!found++)
			*min_seq = seq;
		*max_seq = seq;
	}
	fclose(f);
	return found ? 0 : -1;
}

/*
 * Have MGLRU age the cgroup's lruvec @n times, as its own aging does over
 * time (forced: even if its generations are full).
 */
static int lru_gen_age(const char *cg, int n)
{
	unsigned long min_seq, max_seq;
	char cmd[64];
	int id;

	while (n--) {
		if (lru_gen_file_seqs(cg, &id, &min_seq, &max_seq))
			return -1;
		snprintf(cmd, sizeof(cmd), "+ %d 0 %lu 1 1", id, max_seq);
		if (write_str("/sys/kernel/debug/lru_gen", cmd))
			return -1;
	}
	return 0;
}

#define ANON_MIB	32

struct anon_reclaim {
	char file[PATH_MAX];
	int lru_gen;
	long file_before;
	long file_after;
	long swapped;
	int anon_intact;
};

/*
 * In the cgroup: fill ANON_MIB of anonymous memory, let it age, cache the
 * file (read twice, so that the kernel sees it used), then ask for
 * proactive reclaim of anonymous memory only, and see what is left of
 * the file.
 */
static int cache_file_then_reclaim_anon(const char *cgroup, void *arg)
{
	struct anon_reclaim *r = arg;
	size_t len = (size_t)ANON_MIB << 20, i;
	char *anon;

	anon = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		return EXIT_FAILURE;
	for (i = 0; i < len; i++)
		anon[i] = (char)(i * 7 + 1);
	/*
	 * MGLRU evicts anon from its oldest generation, and only while it
	 * has more than two: age it twice, as time would.
	 */
	if (r->lru_gen && lru_gen_age(cgroup, 2))
		return EXIT_FAILURE;
	if (read_and_verify(r->file) || read_and_verify(r->file))
		return EXIT_FAILURE;

	r->file_before = cached_pages(r->file);
	/* -EAGAIN if less than asked could be reclaimed: not an error. */
	cg_write((char *)cgroup, "memory.reclaim", "16M swappiness=200");
	r->file_after = cached_pages(r->file);
	r->swapped = cg_read_long((char *)cgroup, "memory.swap.current");

	r->anon_intact = 1;
	for (i = 0; i < len; i++)
		if (anon[i] != (char)(i * 7 + 1))
			r->anon_intact = 0;
	return EXIT_SUCCESS;
}

static long file_pages_lost(struct __test_metadata *_metadata,
			    FIXTURE_DATA(evict) *self, struct anon_reclaim *r,
			    const char *setup)
{
	ASSERT_EQ(drop_file_cache(r->file), 0);
	ASSERT_EQ(cg_run(self->cg, cache_file_then_reclaim_anon, r), 0);
	TH_LOG("%s: file pages %ld -> %ld, swap %ld KiB", setup,
	       r->file_before, r->file_after, r->swapped >> 10);
	EXPECT_GT(r->swapped, 0) TH_LOG("%s: no anonymous memory reclaimed", setup);
	EXPECT_EQ(r->anon_intact, 1);
	return r->file_before - r->file_after;
}

/*
 * Reclaim the kernel's scan balance aims at anonymous memory only
 * (memory.reclaim with swappiness=200 on MGLRU) does not ask the policy
 * for file folios: a cgroup with a policy keeps the file pages the kernel
 * keeps without one.  Before reclaim went through vmscan's scan balance, the
 * policy was asked for file folios whatever get_scan_count() said, and
 * most of the 16 MiB reclaimed came out of the file.
 */
TEST_F(evict, anon_only_reclaim_spares_file)
{
	struct anon_reclaim *r;
	char swapfile[PATH_MAX];
	long lost_unbound, lost_fifo;
	struct bpf_link *link;
	struct fifo *skel;
	int ret;

	/*
	 * MGLRU evicts anon only when swappiness is 200
	 * (get_type_to_evict()).  6.12's get_scan_count() has no such
	 * case: a swappiness=200 reclaim still scans file pages when there
	 * is inactive page cache (cache_trim_mode) or at priority 0, and
	 * whether it gets there depends on how fast swap writes complete,
	 * so what the kernel keeps is not fixed.  Measured in this test:
	 * the unbound cgroup lost 3555 of 4096 file pages in one run, none
	 * in others.
	 */
	if (!variant->lru_gen)
		SKIP(return, "the active/inactive LRU has no anonymous-only reclaim");
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(r, MAP_FAILED);
	snprintf(r->file, sizeof(r->file), "%s", self->files[0]);
	r->lru_gen = variant->lru_gen;
	scratch_path(swapfile, sizeof(swapfile), "swapfile");
	ret = swap_on(swapfile, 64);
	if (ret == -ENOSYS || ret == -EINVAL)
		SKIP(goto out, "no swap in this kernel (CONFIG_SWAP): %s",
		     strerror(-ret));
	ASSERT_EQ(ret, 0) TH_LOG("swap file: %s", strerror(-ret));
	ASSERT_EQ(cg_write(self->cg, "memory.max", "max"), 0);

	lost_unbound = file_pages_lost(_metadata, self, r, "unbound");

	skel = ATTACH(fifo, fifo, self);
	ASSERT_NE(skel, NULL);
	link = bpf_map__attach_struct_ops(skel->maps.fifo);
	ASSERT_NE(link, NULL);
	lost_fifo = file_pages_lost(_metadata, self, r, "fifo");
	bpf_link__destroy(link);
	fifo__destroy(skel);

	/* 1/16 of the file: the LRU's own choices vary a little. */
	EXPECT_LE(lost_fifo, lost_unbound + FILE_PAGES / 16);
	swapoff(swapfile);
	unlink(swapfile);
out:
	munmap(r, sizeof(*r));
}

static int read_two(const char *cgroup, void *files)
{
	return read_files(files, 2) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * Cache A and B, reclaim all of it, and see MGLRU's file generations
 * before and after: the emptied oldest ones are retired
 * (try_to_inc_min_seq(); logged only: other file pages of the cgroup may
 * keep the oldest one) and aging makes new ones.
 */
static void age_by_reclaim(struct __test_metadata *_metadata,
			   FIXTURE_DATA(evict) *self, const char *setup,
			   unsigned long *retired, unsigned long *made)
{
	unsigned long min0, max0, min1, max1;
	int id;

	ASSERT_EQ(drop_file_cache(self->files[0]), 0);
	ASSERT_EQ(drop_file_cache(self->files[1]), 0);
	ASSERT_EQ(cg_run(self->cg, read_two, self->files), 0);
	ASSERT_EQ(lru_gen_file_seqs(self->cg, &id, &min0, &max0), 0);
	/* More than is cached: -EAGAIN, once everything is gone. */
	cg_write(self->cg, "memory.reclaim", "64M");
	ASSERT_EQ(lru_gen_file_seqs(self->cg, &id, &min1, &max1), 0);
	TH_LOG("%s: file generations %lu-%lu -> %lu-%lu, A+B cached %ld",
	       setup, min0, max0, min1, max1,
	       cached(self, 0) + cached(self, 1));
	*retired = min1 - min0;
	*made = max1 - max0;
}

/*
 * With a policy choosing the evictions, MGLRU's generations still age as
 * they do without one.  Before reclaim went through evict_folios(), a
 * policy that supplied the folios kept the lruvec's generations where
 * they were: the emptied oldest generation was never retired, so aging
 * never had to make a new one.
 */
TEST_F(evict, generations_age_under_policy)
{
	unsigned long retired, made, retired_fifo, made_fifo;
	struct bpf_link *link;
	struct fifo *skel;

	if (!variant->lru_gen)
		SKIP(return, "the active/inactive LRU has no generations");
	ASSERT_EQ(cg_write(self->cg, "memory.max", "max"), 0);
	age_by_reclaim(_metadata, self, "unbound", &retired, &made);
	/* What the test relies on: MGLRU alone ages here. */
	EXPECT_GT(made, 0);

	skel = ATTACH(fifo, fifo, self);
	ASSERT_NE(skel, NULL);
	link = bpf_map__attach_struct_ops(skel->maps.fifo);
	ASSERT_NE(link, NULL);
	age_by_reclaim(_metadata, self, "fifo", &retired_fifo, &made_fifo);
	/* The policy did the evicting. */
	EXPECT_GT(trace_count("cache_ext_evict:", "accepted=32", NULL), 0);
	EXPECT_GT(made_fifo, 0);

	bpf_link__destroy(link);
	fifo__destroy(skel);
}

/*
 * Folios the cgroup wrote go when the policy says, like those it read.
 * ext4 leaves buffer heads on a folio written through write_begin, and
 * their reference made the kernel's busy test (which
 * bpf_cache_ext_propose_list() skips folios by) call every such folio
 * busy for good: fifo proposed none of them, they stayed at its head, and
 * once a request and 64 more were there it proposed nothing at all; the
 * LRU evicted in its place.  Measured before the fix: a 16 MiB file
 * written in the cgroup and then 32 MiB read, all of the written file's
 * 4096 pages evicted by the LRU (fallback), none by fifo.
 */
static int write_then_read(const char *cgroup, void *arg)
{
	char (*files)[PATH_MAX] = arg;

	if (write_file_cached(files[0], FILE_PAGES) ||
	    read_files(files + 1, NR_FILES - 1))
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

TEST_F(evict, written_folios_are_proposed)
{
	struct fifo *skel = ATTACH(fifo, fifo, self);
	struct bpf_link *link;
	long policy, fallback;

	ASSERT_NE(skel, NULL);
	link = bpf_map__attach_struct_ops(skel->maps.fifo);
	ASSERT_NE(link, NULL);
	ASSERT_EQ(cg_run(self->cg, write_then_read, self->files), 0);
	policy = trace_sum("cache_ext_evict:", " reclaimed=");
	fallback = trace_sum("cache_ext_fallback:", " reclaimed=");
	TH_LOG("16 MiB written, then 32 MiB read in 32 MiB: %ld pages reclaimed from fifo's candidates, %ld by the LRU",
	       policy, fallback);
	EXPECT_LT(fallback, FILE_PAGES / 16);
	EXPECT_POLICY_EVICTED();
	bpf_link__destroy(link);
	fifo__destroy(skel);
}

/*
 * The last folios a CPU added wait in its LRU-add batch, off the LRU,
 * until something drains the batch there.  A reader that moves to the
 * other CPU leaves them behind, and they become the oldest of a FIFO's
 * list.  kernel_listed with no lookahead looks at as many folios as
 * reclaim asks for: before the kernel drained the CPUs' batches for a
 * round they blocked, it proposed nothing or too little for as long as
 * the first CPU stayed idle, the LRU evicted in its place, and the
 * stranded folios, the oldest, stayed cached.  (fifo looks 32 folios
 * past the request, more than one batch holds; test_fidelity's fifo met
 * 33 to 41 busy folios at the head, batches of both kinds, in about one
 * run in ten.)
 */
#define STRANDED_PAGES	16

static int strand_then_read(const char *cgroup, void *arg)
{
	char (*files)[PATH_MAX] = arg;
	char buf[PAGE_SZ];
	int fd, i, failed = 0;

	if (pin_to_cpu(0))
		return EXIT_FAILURE;
	fd = open(files[0], O_RDONLY);
	if (fd < 0)
		return EXIT_FAILURE;
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);	/* a folio a read */
	for (i = 0; i < STRANDED_PAGES && !failed; i++)
		failed = pread(fd, buf, PAGE_SZ, (off_t)i * PAGE_SZ) != PAGE_SZ ||
			 check_page(buf, i);
	close(fd);
	if (failed || pin_to_cpu(1) ||
	    read_files(files + 1, NR_FILES - 1))
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

TEST_F(evict, folios_left_in_a_cpu_batch_do_not_block_the_head)
{
	struct kernel_listed *skel = kernel_listed__open();
	struct bpf_link *link;
	long policy, fallback;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_NE(skel, NULL);
	/* 32 MiB read through 16: about 4,000 evictions after the stranded. */
	ASSERT_EQ(cg_write(self->cg, "memory.max", "16M"), 0);
	skel->rodata->lookahead = 0;
	skel->struct_ops.kernel_listed->cgroup_id = self->cg_id;
	ASSERT_EQ(kernel_listed__load(skel), 0);
	link = bpf_map__attach_struct_ops(skel->maps.kernel_listed);
	ASSERT_NE(link, NULL);
	ASSERT_EQ(cg_run(self->cg, strand_then_read, self->files), 0);
	policy = trace_sum("cache_ext_evict:", " reclaimed=");
	fallback = trace_sum("cache_ext_fallback:", " reclaimed=");
	TH_LOG("%d pages read on CPU 0, then 32 MiB on CPU 1 in 16 MiB: %ld of them cached; %ld pages reclaimed from the policy's candidates, %ld by the LRU",
	       STRANDED_PAGES, cached(self, 0), policy, fallback);
	EXPECT_EQ(cached(self, 0), 0);
	EXPECT_LT(fallback, FILE_PAGES / 16);
	EXPECT_POLICY_EVICTED();
	bpf_link__destroy(link);
	kernel_listed__destroy(skel);
}

/*
 * Reclaim that may only free some zones takes no folio of the others:
 * the LRU skips them (isolate_lru_folios(), scan_folios()), and so must
 * isolation of a policy's candidates.  The VM boots with ZONE_MOVABLE
 * (movablecore=, scripts/vm.sh), where page cache goes first; pipe
 * buffers (GFP_HIGHUSER) can come only from the zones below it, so
 * filling them with more than those zones have free is reclaim with
 * reclaim_idx at ZONE_NORMAL, direct and by kswapd.  fifo proposes the
 * file's oldest folios, those in ZONE_MOVABLE: before isolation skipped
 * ineligible zones, reclaim took them, freed nothing it needed, and went
 * on until ZONE_MOVABLE held none of the file.
 */
/* ZONE_MOVABLE's pages and 128 MiB more, to spill below it. */
#define ZONED_SPILL_PAGES	(128 << 8)
#define PIPE_BYTES		(16 << 20)
#define MAX_PIPES		512

/* @key of zone @zone (as /proc/zoneinfo names it) of node 0, or -1. */
static long zone_stat(const char *zone, const char *key)
{
	char line[256], name[32], k[64];
	long val = -1, v;
	int in_zone = 0;
	FILE *f = fopen("/proc/zoneinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node 0, zone %31s", name) == 1) {
			in_zone = !strcmp(name, zone);
			continue;
		}
		/* "pages free N" is the one key of two words. */
		if (in_zone && sscanf(line, " pages free %ld", &v) == 1 &&
		    !strcmp(key, "free"))
			val = v;
		else if (in_zone && sscanf(line, " %63s %ld", k, &v) == 2 &&
			 !strcmp(k, key))
			val = v;
	}
	if (f)
		fclose(f);
	return val;
}

static long zone_file_pages(const char *zone)
{
	return zone_stat(zone, "nr_zone_inactive_file") +
	       zone_stat(zone, "nr_zone_active_file");
}

/*
 * Fill pipes with @bytes of data, @PIPE_BYTES a pipe; their fds go to
 * @fds.  Returns the number of pipes (both ends in @fds), or -errno.
 *
 * Every pipe is made and sized before any is written: sizing one to 16
 * MiB allocates its 4,096 buffer slots in one kmalloc of order 6, which
 * may fail (-ENOMEM, seen on the KASAN kernel) once the pipes' pages
 * have filled the memory below ZONE_MOVABLE.
 */
static int fill_pipes(long bytes, int *fds)
{
	static char chunk[1 << 16];
	int nr = 0, i, err = 0;

	memset(chunk, 0x3c, sizeof(chunk));
	for (; bytes > 0 && nr < MAX_PIPES; bytes -= PIPE_BYTES) {
		if (pipe2(&fds[2 * nr], O_NONBLOCK)) {
			err = -errno;
			goto fail;
		}
		nr++;
		if (fcntl(fds[2 * nr - 1], F_SETPIPE_SZ, PIPE_BYTES) < 0) {
			err = -errno;
			goto fail;
		}
	}
	for (i = 0; i < nr; i++) {
		long left = PIPE_BYTES;

		while (left > 0) {
			ssize_t n = write(fds[2 * i + 1], chunk, sizeof(chunk));

			if (n < 0) {
				err = -errno;
				goto fail;
			}
			left -= n;
		}
	}
	return nr;
fail:
	/* What was filled goes back now, not when the test ends. */
	for (i = 0; i < 2 * nr; i++)
		close(fds[i]);
	return err;
}

TEST_F_TIMEOUT(evict, zone_constrained_reclaim_spares_other_zones, 600)
{
	long movable_before, movable_after, dma32_before, dma32_after;
	static int fds[2 * MAX_PIPES];
	struct rlimit nofile = { 2 * MAX_PIPES + 64, 2 * MAX_PIPES + 64 };
	char file[1][PATH_MAX];
	struct bpf_link *link;
	struct fifo *skel;
	long free_low, file_pages;
	int nr, i;

	/*
	 * KASAN's shadow is allocated at the top of memory, where
	 * movablecore= puts ZONE_MOVABLE: the debug kernel keeps half of it.
	 */
	file_pages = zone_stat("Movable", "managed");
	ASSERT_GT(file_pages, 0)
		TH_LOG("no ZONE_MOVABLE: boot with movablecore= (scripts/vm.sh does)");
	file_pages += ZONED_SPILL_PAGES;
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &nofile), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "max"), 0);
	scratch_path(file[0], PATH_MAX, "zoned");
	ASSERT_EQ(make_file(file[0], file_pages), 0);
	skel = ATTACH(fifo, fifo, self);
	ASSERT_NE(skel, NULL);
	link = bpf_map__attach_struct_ops(skel->maps.fifo);
	ASSERT_NE(link, NULL);

	/* Room in ZONE_MOVABLE first: the file goes there, then below. */
	ASSERT_GE(write_text("/proc/sys/vm/drop_caches", "3", 1), 0);
	ASSERT_EQ(cg_run(self->cg, read_first, file), 0);
	movable_before = zone_file_pages("Movable");
	dma32_before = zone_file_pages("DMA32");
	free_low = zone_stat("DMA32", "free") + zone_stat("DMA", "free");
	TH_LOG("before: file pages Movable %ld, DMA32 %ld; %ld pages free below Movable",
	       movable_before, dma32_before, free_low);
	ASSERT_GT(movable_before, file_pages / 4)
		TH_LOG("the file did not go to ZONE_MOVABLE");

	/* Everything free below ZONE_MOVABLE and 64 MiB more. */
	nr = fill_pipes(free_low * PAGE_SZ + (64 << 20), fds);
	movable_after = zone_file_pages("Movable");
	dma32_after = zone_file_pages("DMA32");
	TH_LOG("after %d MiB of pipes: file pages Movable %ld, DMA32 %ld",
	       nr * (PIPE_BYTES >> 20), movable_after, dma32_after);
	for (i = 0; i < 2 * (nr > 0 ? nr : 0); i++)
		close(fds[i]);
	/*
	 * A failed setup fails the test but still drops the link and the
	 * file below: their cache would be the oldest the next tests'
	 * reclaim finds.
	 */
	EXPECT_GT(nr, 0) TH_LOG("pipes: %s", strerror(-nr));
	if (nr > 0) {
		/* The reclaim happened, below ZONE_MOVABLE ... */
		EXPECT_LT(dma32_after, dma32_before - (32 << 8));
		/* ... and took nothing of ZONE_MOVABLE (kswapd balancing it aside). */
		EXPECT_GT(movable_after, movable_before * 3 / 4);
	}

	bpf_link__destroy(link);
	fifo__destroy(skel);
	unlink(file[0]);
}

TEST_HARNESS_MAIN
