// SPDX-License-Identifier: GPL-2.0
/*
 * The policy suite, each policy proven by the behaviour that defines it,
 * against fifo (and the kernel) on the same workload:
 *
 *   mru       keeps the head of a file scanned cyclically
 *   lfu       keeps a hot file through a one-time scan
 *   s3fifo    the same, and readmits a ghost hit into the main queue
 *   lhd       fewer disk reads than fifo on Zipfian reads
 *   mglru     the same; its tiers and refaults are at work
 *   get_scan  the GET thread's hot set survives a concurrent scan thread
 *   admit_filter  a listed thread's reads stay out of the cache
 *
 * and every policy bound to two cgroups at once, and two cgroups bound to
 * different policies, each behaving as its own.  Cached pages are counted
 * with cachestat(2), disk reads with pgpgin; data is verified throughout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "workload.h"

#define MIB		256	/* pages */

FIXTURE(policy) {
	char *cg;
	uint64_t cg_id;
	char hot[PATH_MAX], big[PATH_MAX], third[PATH_MAX];
	struct policy p;
};

FIXTURE_SETUP(policy)
{
	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	ASSERT_EQ(set_lru_gen(0), 0);
	self->cg = memcg_create("cache_ext_policy");
	ASSERT_NE(self->cg, NULL);
	self->cg_id = cgroup_id_of(self->cg);
	scratch_path(self->hot, sizeof(self->hot), "hot");
	scratch_path(self->big, sizeof(self->big), "big");
	scratch_path(self->third, sizeof(self->third), "third");
}

FIXTURE_TEARDOWN(policy)
{
	policy_detach(&self->p);
	unlink(self->hot);
	unlink(self->big);
	unlink(self->third);
	if (self->cg) {
		cg_destroy(self->cg);
		free(self->cg);
	}
	set_lru_gen(1);
}

/* ---- mru ---- */

static int cyclic_scan(const char *cgroup, void *path)
{
	return scan_reads(path, 3) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Pages of the first quarter of a 24 MiB file cached after 3 loops in 16 MiB. */
static long mru_run(struct __test_metadata *_metadata,
		    FIXTURE_DATA(policy) *self, const char *policy)
{
	long head;

	EXPECT_EQ(make_file(self->big, 24 * MIB), 0);
	EXPECT_EQ(cg_write(self->cg, "memory.max", "16M"), 0);
	if (policy)
		EXPECT_EQ(policy_attach(&self->p, policy, NULL, self->cg_id, NULL), 0);
	EXPECT_EQ(cg_run(self->cg, cyclic_scan, self->big), 0);
	head = cached_range(self->big, 0, 6 * MIB);
	policy_detach(&self->p);
	return head;
}

TEST_F(policy, mru_keeps_head_of_cyclic_scan)
{
	long head = mru_run(_metadata, self, "mru");

	/* Most of the first 6 MiB stays; LRU and FIFO keep the tail. */
	EXPECT_GE(head, 6 * MIB * 8 / 10) TH_LOG("mru: %ld of %d cached", head, 6 * MIB);
}

TEST_F(policy, fifo_and_kernel_lose_head_of_cyclic_scan)
{
	long fifo = mru_run(_metadata, self, "fifo");
	long kernel = mru_run(_metadata, self, NULL);

	EXPECT_LE(fifo, 6 * MIB / 10) TH_LOG("fifo: %ld cached", fifo);
	EXPECT_LE(kernel, 6 * MIB / 10) TH_LOG("kernel: %ld cached", kernel);
}

/* ---- lfu, s3fifo: a hot file through a one-time scan ---- */

static int hot_then_scan(const char *cgroup, void *arg)
{
	FIXTURE_DATA(policy) *self = arg;

	if (scan_reads(self->hot, 5) || scan_reads(self->big, 1))
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

/* Pages of a 4 MiB file read 5 times still cached after a 48 MiB scan. */
static long hot_run(struct __test_metadata *_metadata,
		    FIXTURE_DATA(policy) *self, const char *policy)
{
	long hot;

	EXPECT_EQ(make_file(self->hot, 4 * MIB), 0);
	EXPECT_EQ(make_file(self->big, 48 * MIB), 0);
	EXPECT_EQ(cg_write(self->cg, "memory.max", "24M"), 0);
	EXPECT_EQ(policy_attach(&self->p, policy, NULL, self->cg_id, NULL), 0);
	EXPECT_EQ(cg_run(self->cg, hot_then_scan, self), 0);
	hot = cached_pages(self->hot);
	return hot;
}

TEST_F(policy, lfu_keeps_hot_file_under_scan)
{
	long hot = hot_run(_metadata, self, "lfu");

	EXPECT_GE(hot, 4 * MIB * 9 / 10) TH_LOG("lfu: %ld of %d cached", hot, 4 * MIB);
}

TEST_F(policy, fifo_loses_hot_file_under_scan)
{
	long hot = hot_run(_metadata, self, "fifo");

	EXPECT_LE(hot, 4 * MIB / 10) TH_LOG("fifo: %ld of %d cached", hot, 4 * MIB);
}

TEST_F(policy, s3fifo_keeps_hot_file_under_scan)
{
	long hot = hot_run(_metadata, self, "s3fifo");
	unsigned long long *promoted = policy_var(&self->p, "nr_promoted");

	EXPECT_GE(hot, 4 * MIB * 9 / 10) TH_LOG("s3fifo: %ld of %d cached", hot, 4 * MIB);
	ASSERT_NE(promoted, NULL);
	EXPECT_GE(*promoted, 4 * MIB * 9 / 10);
}

/*
 * A (4 MiB) read once, then B (32 MiB) pushes it out of S into the ghost
 * FIFO; A read again is a ghost hit and enters M, and a scan of another
 * file C (one-hit folios, evicted from S) leaves it alone.  (Scanning B
 * again would not do: B's own ghost hits would fill M.)
 */
static int ghost_workload(const char *cgroup, void *arg)
{
	FIXTURE_DATA(policy) *self = arg;

	if (scan_reads(self->hot, 1) || scan_reads(self->big, 1) ||
	    scan_reads(self->hot, 1) || scan_reads(self->third, 1))
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

TEST_F(policy, s3fifo_ghost_hit_enters_main)
{
	unsigned long long *ghost_hits;
	long hot;

	ASSERT_EQ(make_file(self->hot, 4 * MIB), 0);
	ASSERT_EQ(make_file(self->big, 32 * MIB), 0);
	ASSERT_EQ(make_file(self->third, 32 * MIB), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "32M"), 0);
	ASSERT_EQ(policy_attach(&self->p, "s3fifo", NULL, self->cg_id, NULL), 0);
	ASSERT_EQ(cg_run(self->cg, ghost_workload, self), 0);
	ghost_hits = policy_var(&self->p, "nr_ghost_hits");
	ASSERT_NE(ghost_hits, NULL);
	hot = cached_pages(self->hot);
	EXPECT_GE(*ghost_hits, 4 * MIB * 8 / 10) TH_LOG("ghost hits %llu", *ghost_hits);
	EXPECT_GE(hot, 4 * MIB * 9 / 10) TH_LOG("A: %ld of %d cached", hot, 4 * MIB);
}

/* ---- lhd, mglru: Zipfian reads ---- */

#define ZIPF_PAGES	(48 * MIB)
#define ZIPF_READS	30000

struct zipf_run {
	const char *path;
	struct policy *p;	/* lhd_reconfigure run from here, or NULL */
};

static void reconfigure(void *arg)
{
	policy_run(arg, "lhd_reconfigure");
}

static int zipf_workload(const char *cgroup, void *arg)
{
	struct zipf_run *r = arg;

	/*
	 * With reconfigure_pct=0, lhd's reconfiguration runs every 1000
	 * reads from user space (the syscall program, through the fd the
	 * child inherited).
	 */
	return zipf_reads_tick(r->path, ZIPF_PAGES, ZIPF_READS, 0.9, 42,
			       r->p ? 1000 : 0, reconfigure, r->p) ?
	       EXIT_FAILURE : EXIT_SUCCESS;
}

/* Disk reads of a Zipfian workload in a 16 MiB cgroup under @policy. */
static long long zipf_misses(struct __test_metadata *_metadata,
			     FIXTURE_DATA(policy) *self, const char *policy,
			     const char *knobs)
{
	int lhd = !strcmp(policy, "lhd");
	int from_user = lhd && knobs && strstr(knobs, "reconfigure_pct=0");
	struct zipf_run r = { self->big, from_user ? &self->p : NULL };
	long long before;

	EXPECT_EQ(drop_file_cache(self->big), 0);
	EXPECT_EQ(trace_start(), 0);
	EXPECT_EQ(policy_attach(&self->p, policy, NULL, self->cg_id, knobs), 0);
	before = disk_pages_read();
	EXPECT_EQ(cg_run(self->cg, zipf_workload, &r), 0);
	before = disk_pages_read() - before;
	/*
	 * A policy ejected mid-run leaves the rest to the kernel's LRU, and
	 * the count compares something else.  (A make check beside two
	 * busy VMs once counted 8744 pages for fifo, ~9200 in every other
	 * run; what happened in that run was not recorded.)
	 */
	EXPECT_EQ(trace_ejections(policy), 0) TH_LOG("%s was ejected", policy);
	if (lhd) {
		unsigned long long *n = policy_var(&self->p, "nr_reconfigs");

		/*
		 * From user space: one per 1000 reads, the child's counted in
		 * the map-backed variable too.  On its own clock: one per
		 * cache's worth of accesses and insertions, ~4,000 here.
		 */
		EXPECT_EQ(policy_run(&self->p, "lhd_reconfigure"), 0);
		EXPECT_GE(*n, from_user ? ZIPF_READS / 1000 : ZIPF_READS / 8000)
			TH_LOG("lhd reconfigured %llu times", *n);
	}
	policy_detach(&self->p);
	return before;
}

static void zipf_vs_fifo(struct __test_metadata *_metadata,
			 FIXTURE_DATA(policy) *self, const char *policy,
			 const char *knobs)
{
	long long fifo, mine;

	ASSERT_EQ(make_file(self->big, ZIPF_PAGES), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "16M"), 0);
	fifo = zipf_misses(_metadata, self, "fifo", NULL);
	mine = zipf_misses(_metadata, self, policy, knobs);
	TH_LOG("%d Zipfian reads: fifo %lld disk reads, %s %lld (%.3fx)",
	       ZIPF_READS, fifo, policy, mine, (double)mine / fifo);
	/* At least 3% fewer misses; runs repeat within ~1%. */
	EXPECT_LT(mine * 100, fifo * 97);
}

/* lhd as users attach it: it reconfigures on its own access clock. */
TEST_F(policy, lhd_beats_fifo_on_zipf)
{
	zipf_vs_fifo(_metadata, self, "lhd", NULL);
}

/* Reconfigured only from user space, through the syscall program. */
TEST_F(policy, lhd_reconfigured_from_user_space_beats_fifo)
{
	zipf_vs_fifo(_metadata, self, "lhd", "reconfigure_pct=0");
}

/*
 * lhd reconfigures once per reconfigure_pct of a cache turnover of
 * accesses and insertions (its clock), at least every 1,024 ticks: 10%
 * of a ~4,000-folio cgroup is under the floor, so the floor decides.
 * Nothing from user space, no timer.  Each reconfiguration sets the next
 * one period past the clock value its access saw: the period itself on
 * one CPU, but a CPU's view of the clock jumps by another CPU's batch of
 * LHD_CLOCK_BATCH ticks when that CPU adds it (lhd's clock_now()), so the
 * access that finds the period over may see it over by up to a batch per
 * other CPU.
 */
#define LHD_CLOCK_BATCH	64	/* lhd.bpf.c's CLOCK_BATCH */

TEST_F(policy, lhd_reconfigures_on_its_access_clock)
{
	/* The head of lhd's struct lhd_cgroup. */
	struct {
		unsigned long long clock, nr_folios, next_reconfig;
	} cg;
	struct bpf_map_info info = { };
	__u32 info_len = sizeof(info);
	unsigned long long *n, clock, late;
	uint64_t id = self->cg_id;
	struct zipf_run r;
	char *value;
	int fd;

	ASSERT_EQ(make_file(self->big, ZIPF_PAGES), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "16M"), 0);
	ASSERT_EQ(policy_attach(&self->p, "lhd", NULL, self->cg_id,
				"reconfigure_pct=10"), 0);
	r = (struct zipf_run){ self->big, NULL };
	ASSERT_EQ(cg_run(self->cg, zipf_workload, &r), 0);
	n = policy_var(&self->p, "nr_reconfigs");
	ASSERT_NE(n, NULL);
	fd = policy_map_fd(&self->p, "lhd_cgroups");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(bpf_map_get_info_by_fd(fd, &info, &info_len), 0);
	ASSERT_GE(info.value_size, sizeof(cg));
	value = calloc(1, info.value_size);
	ASSERT_NE(value, NULL);
	ASSERT_EQ(bpf_map_lookup_elem(fd, &id, value), 0);
	memcpy(&cg, value, sizeof(cg));
	free(value);
	clock = cg.clock;
	late = (sysconf(_SC_NPROCESSORS_ONLN) - 1) * LHD_CLOCK_BATCH;
	/* One per 1,024 ticks from tick 1,024 on, to within a period. */
	EXPECT_GE(*n, clock / (1024 + late) - 1)
		TH_LOG("%llu reconfigurations over %llu ticks", *n, clock);
	EXPECT_LE(*n, clock / 1024)
		TH_LOG("%llu reconfigurations over %llu ticks", *n, clock);
	EXPECT_GE(clock, ZIPF_READS / 2);
	EXPECT_GE(cg.next_reconfig, (*n + 1) * 1024);
	EXPECT_LE(cg.next_reconfig, (*n + 1) * (1024 + late))
		TH_LOG("next reconfiguration at %llu after %llu", cg.next_reconfig, *n);
}

TEST_F(policy, mglru_beats_fifo_on_zipf)
{
	zipf_vs_fifo(_metadata, self, "mglru", NULL);
}

/* ---- get_scan: GET and SCAN threads in one process ---- */

struct get_scan_run {
	FIXTURE_DATA(policy) *self;
	int tids_fd;		/* the policy's TID map, or -1 */
	volatile int scan_done;
	int scan_ret;
};

static void *scan_thread(void *arg)
{
	struct get_scan_run *r = arg;
	uint32_t tid = syscall(SYS_gettid);
	uint8_t one = 1;

	if (r->tids_fd >= 0 && bpf_map_update_elem(r->tids_fd, &tid, &one, BPF_ANY))
		r->scan_ret = -errno;
	else
		r->scan_ret = scan_reads(r->self->big, 1);
	r->scan_done = 1;
	return NULL;
}

/* The GET thread reads its 4 MiB of hot keys until the scan is over. */
static int get_and_scan(const char *cgroup, void *arg)
{
	struct get_scan_run *r = arg;
	pthread_t scanner;

	if (scan_reads(r->self->hot, 2))
		return EXIT_FAILURE;
	if (pthread_create(&scanner, NULL, scan_thread, r))
		return EXIT_FAILURE;
	while (!r->scan_done)
		if (scan_reads(r->self->hot, 1))
			return EXIT_FAILURE;
	pthread_join(scanner, NULL);
	return r->scan_ret ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * Disk reads beyond the scan's own (64 MiB, each page once) while a 64 MiB
 * scan ran beside the GETs: the GET thread's misses.
 */
static long long get_scan_run(struct __test_metadata *_metadata,
			      FIXTURE_DATA(policy) *self, const char *policy)
{
	struct get_scan_run r = { self, -1, 0, 0 };
	long long before;

	EXPECT_EQ(make_file(self->hot, 4 * MIB), 0);
	EXPECT_EQ(make_file(self->big, 64 * MIB), 0);
	EXPECT_EQ(cg_write(self->cg, "memory.max", "16M"), 0);
	EXPECT_EQ(policy_attach(&self->p, policy, NULL, self->cg_id, NULL), 0);
	r.tids_fd = policy_map_fd(&self->p, "get_scan_tids");
	EXPECT_EQ(trace_start(), 0);
	before = disk_pages_read();
	EXPECT_EQ(cg_run(self->cg, get_and_scan, &r), 0);
	/* An ejected policy stops sorting folios: say so, with the reason. */
	EXPECT_EQ(trace_ejections(policy), 0);
	/* The first two passes over the hot keys miss: 4 MiB once. */
	return disk_pages_read() - before - 64 * MIB - 4 * MIB;
}

TEST_F(policy, get_scan_protects_gets_from_scan)
{
	unsigned long long *scanned, *gets;
	long long get_misses;

	get_misses = get_scan_run(_metadata, self, "get_scan");
	scanned = policy_var(&self->p, "nr_scan_added");
	gets = policy_var(&self->p, "nr_get_added");
	ASSERT_NE(scanned, NULL);
	ASSERT_NE(gets, NULL);
	TH_LOG("get_scan: GET misses during the scan: %lld; folios added: %llu by the scan, %llu by GETs",
	       get_misses, *scanned, *gets);
	EXPECT_LE(get_misses, MIB / 4);
	EXPECT_GE(cached_pages(self->hot), 4 * MIB * 95 / 100);
	/* The scan thread's folios were told apart: most of 64 MiB. */
	EXPECT_GE(*scanned, 64 * MIB * 9 / 10) TH_LOG("scan folios %llu", *scanned);
	unlink("/sys/fs/bpf/get_scan_tids");
}

TEST_F(policy, fifo_lets_scan_evict_gets)
{
	long long get_misses = get_scan_run(_metadata, self, "fifo");

	/* The hot keys were read from disk again, at least once over. */
	TH_LOG("fifo: GET misses during the scan: %lld", get_misses);
	EXPECT_GE(get_misses, 4 * MIB);
}

/* ---- admit_filter ---- */

struct admit_run {
	FIXTURE_DATA(policy) *self;
	int tids_fd;
	int ret;
};

static void *listed_reader(void *arg)
{
	struct admit_run *r = arg;
	uint32_t tid = syscall(SYS_gettid);
	uint8_t one = 1;

	r->ret = bpf_map_update_elem(r->tids_fd, &tid, &one, BPF_ANY) ? -errno :
		 scan_reads(r->self->big, 2);
	return NULL;
}

static int listed_and_unlisted(const char *cgroup, void *arg)
{
	struct admit_run *r = arg;
	pthread_t t;

	if (pthread_create(&t, NULL, listed_reader, r))
		return EXIT_FAILURE;
	pthread_join(t, NULL);
	if (r->ret || scan_reads(r->self->hot, 1))
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

TEST_F(policy, admit_filter_keeps_listed_reads_out)
{
	struct admit_run r = { self, -1, 0 };
	unsigned long long *refused;
	long big, hot;

	ASSERT_EQ(make_file(self->hot, 4 * MIB), 0);
	ASSERT_EQ(make_file(self->big, 8 * MIB), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "64M"), 0);
	ASSERT_EQ(policy_attach(&self->p, "admit_filter", NULL, self->cg_id, NULL), 0);
	r.tids_fd = policy_map_fd(&self->p, "no_cache_tids");
	ASSERT_GE(r.tids_fd, 0);
	/* Both files fit: only admission decides what stays. */
	ASSERT_EQ(cg_run(self->cg, listed_and_unlisted, &r), 0);
	big = cached_pages(self->big);
	hot = cached_pages(self->hot);
	refused = policy_var(&self->p, "nr_refused");
	EXPECT_LE(big, 8 * MIB / 20) TH_LOG("listed thread's file: %ld of %d cached", big, 8 * MIB);
	EXPECT_GE(hot, 4 * MIB * 95 / 100) TH_LOG("unlisted: %ld of %d cached", hot, 4 * MIB);
	EXPECT_GE(*refused, 2 * 8 * MIB * 9 / 10);
	EXPECT_EQ(read_and_verify(self->big), 0);
	unlink("/sys/fs/bpf/no_cache_tids");
}

/* ---- several cgroups ---- */

static int read_twice(const char *cgroup, void *path)
{
	return scan_reads(path, 2) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * Every policy that evicts, bound to two cgroups at once (the second
 * through memory.cache_ext): both run a workload larger than their limit
 * at the same time, both bindings make decisions, data stays intact.
 */
TEST_F(policy, every_policy_serves_two_cgroups)
{
	static const char *const policies[] = {
		"fifo", "lfu", "mru", "s3fifo", "lhd", "mglru", "get_scan",
	};
	char *cg2 = memcg_create("cache_ext_policy2");
	uint64_t cg2_id;
	size_t i;

	ASSERT_NE(cg2, NULL);
	if (ctl_module_load())
		SKIP(return, "needs cache_ext_ctl ($CACHE_EXT_CTL_KO) for the counters");
	cg2_id = cgroup_id_of(cg2);
	ASSERT_EQ(make_file(self->hot, 12 * MIB), 0);
	ASSERT_EQ(make_file(self->big, 12 * MIB), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "8M"), 0);
	ASSERT_EQ(cg_write(cg2, "memory.max", "8M"), 0);
	for (i = 0; i < ARRAY_SIZE(policies); i++) {
		char sel[PATH_MAX];
		int pid1, pid2;

		/* Verified below from this (root) cgroup: uncharge first. */
		ASSERT_EQ(drop_file_cache(self->hot), 0);
		ASSERT_EQ(drop_file_cache(self->big), 0);
		ASSERT_EQ(policy_attach(&self->p, policies[i], NULL, self->cg_id, NULL), 0);
		snprintf(sel, sizeof(sel), "%s/memory.cache_ext", cg2);
		ASSERT_EQ(write_str(sel, policies[i]), 0);
		pid1 = cg_run_nowait(self->cg, read_twice, self->hot);
		pid2 = cg_run_nowait(cg2, read_twice, self->big);
		EXPECT_EQ(waitpid(pid1, NULL, 0), pid1);
		EXPECT_EQ(waitpid(pid2, NULL, 0), pid2);
		EXPECT_GT(binding_stat(self->cg_id, "accepted "), 12 * MIB / 2)
			TH_LOG("%s, first cgroup", policies[i]);
		EXPECT_GT(binding_stat(cg2_id, "accepted "), 12 * MIB / 2)
			TH_LOG("%s, second cgroup", policies[i]);
		EXPECT_EQ(binding_stat(self->cg_id, "errors "), 0);
		EXPECT_EQ(binding_stat(cg2_id, "errors "), 0);
		EXPECT_EQ(read_and_verify(self->hot), 0);
		EXPECT_EQ(read_and_verify(self->big), 0);
		policy_detach(&self->p);
		unlink("/sys/fs/bpf/get_scan_tids");
	}
	cg_destroy(cg2);
	free(cg2);
}

/*
 * Isolation: lfu in one cgroup and mru in another, at the same time, each
 * showing its own defining behaviour.
 */
static int hot_then_scan_paths(const char *cgroup, void *arg)
{
	char (*paths)[PATH_MAX] = arg;

	if (scan_reads(paths[0], 5) || scan_reads(paths[1], 1))
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

TEST_F(policy, lfu_and_mru_side_by_side)
{
	char *cg2 = memcg_create("cache_ext_policy2");
	char lfu_files[2][PATH_MAX];
	struct policy mru = {};
	int pid1, pid2;
	long hot, head;

	ASSERT_NE(cg2, NULL);
	ASSERT_EQ(make_file(self->hot, 4 * MIB), 0);
	ASSERT_EQ(make_file(self->big, 48 * MIB), 0);
	ASSERT_EQ(make_file(self->third, 24 * MIB), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "24M"), 0);
	ASSERT_EQ(cg_write(cg2, "memory.max", "16M"), 0);
	ASSERT_EQ(policy_attach(&self->p, "lfu", NULL, self->cg_id, NULL), 0);
	ASSERT_EQ(policy_attach(&mru, "mru", NULL, cgroup_id_of(cg2), NULL), 0);
	strcpy(lfu_files[0], self->hot);
	strcpy(lfu_files[1], self->big);

	pid1 = cg_run_nowait(self->cg, hot_then_scan_paths, lfu_files);
	pid2 = cg_run_nowait(cg2, cyclic_scan, self->third);
	EXPECT_EQ(waitpid(pid1, NULL, 0), pid1);
	EXPECT_EQ(waitpid(pid2, NULL, 0), pid2);
	hot = cached_pages(self->hot);
	head = cached_range(self->third, 0, 6 * MIB);
	TH_LOG("lfu cgroup: hot %ld of %d; mru cgroup: head %ld of %d",
	       hot, 4 * MIB, head, 6 * MIB);
	/*
	 * A sample of lfu's goes on past a run of folios used more than
	 * once at the head of its list until it holds as many used at most
	 * once as were asked for, up to 1280 folios: the run of 1024 hot
	 * folios (used five times each) is shorter, so no batch comes out
	 * of it (measured: 1024 kept; with one sample of 640, 911-915;
	 * stopping at 640 when they held one, 972-983); one batch of
	 * slack.  fifo and the kernel lose all 1024.
	 */
	EXPECT_GE(hot, 4 * MIB - 32);
	EXPECT_GE(head, 6 * MIB * 8 / 10);

	policy_detach(&mru);
	cg_destroy(cg2);
	free(cg2);
}

TEST_HARNESS_MAIN
