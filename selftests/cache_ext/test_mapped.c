// SPDX-License-Identifier: GPL-2.0
/*
 * Accesses through mmap reach the policy (folio_mapped_accessed()), on
 * the active/inactive LRU and on MGLRU:
 *
 *   mapped_use_reaches_the_policy  count_events hears of folios used
 *		through a mapping when reclaim looks at them, and nothing
 *		with cache_ext.mapped_accesses=0
 *   trace_records_mapped_uses_for_the_simulator  cachectl trace records
 *		them (LC_EV_MAPPED) and cachesim replays them as mapped uses
 *   trace_keeps_up_with_eight_mapped_readers  eight processes fault a
 *		file twice the cgroup through mappings beside eight
 *		that compute: the recording loses at most 0.1% of its events
 *   mapped_hot_set_beside_a_read_stream  a hot set used through mmap
 *		beside a cold stream read with read(), its data verified
 *		on every use while it is evicted and faulted back, under
 *		fifo, s3fifo, lfu and lhd: fifo and s3fifo, which requeue
 *		what reclaim keeps for its mapped use, miss no more of it
 *		than the kernel's LRU; lfu, which counts uses, misses it
 *		ten times less with the report than without (its
 *		readahead grace off, so that only the report differs); every
 *		policy's misses logged beside the kernel's (see
 *		mapped_policies[] for what was measured); the LRU evicts
 *		next to nothing for fifo and lfu when reclaim keeps their
 *		candidates for their mapped use (the policy is asked again)
 *   kept_candidates_do_not_wedge_reclaim  a mapped file used without
 *		pause beside a stream read in a cgroup smaller than both,
 *		under fifo (which requeues what reclaim keeps, so that
 *		reclaim asks it again and again): the stream is read, the
 *		mapped data stays right, no OOM kill, fifo stays bound
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "count_events.skel.h"
#include "workload.h"

#define MIB		256	/* pages */
#define HOT_PAGES	(4 * MIB)
#define STREAM_PAGES	(48 * MIB)
#define ROUNDS		12
#define WARM_ROUNDS	2

/* count_events.bpf.c's value. */
struct event_counts {
	__u64 added, accessed, removed, mapped, prefetched, accessed_prefetched;
};

FIXTURE(mapped) {
	char *cg;
	uint64_t cg_id;
	char hot[PATH_MAX], stream[PATH_MAX], result[PATH_MAX];
};

FIXTURE_VARIANT(mapped) {
	int lru_gen;
};

FIXTURE_VARIANT_ADD(mapped, lru) {
	.lru_gen = 0,
};

FIXTURE_VARIANT_ADD(mapped, mglru) {
	.lru_gen = 1,
};

FIXTURE_SETUP(mapped)
{
	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	ASSERT_EQ(set_lru_gen(variant->lru_gen), 0);
	self->cg = memcg_create("cache_ext_mapped");
	ASSERT_NE(self->cg, NULL);
	self->cg_id = cgroup_id_of(self->cg);
	scratch_path(self->hot, sizeof(self->hot), "mapped_hot");
	scratch_path(self->stream, sizeof(self->stream), "mapped_stream");
	scratch_path(self->result, sizeof(self->result), "mapped_result");
	ASSERT_EQ(make_file(self->hot, HOT_PAGES), 0);
}

FIXTURE_TEARDOWN(mapped)
{
	unlink(self->hot);
	unlink(self->stream);
	unlink(self->result);
	if (self->cg) {
		cg_destroy(self->cg);
		free(self->cg);
	}
	set_core_param("mapped_accesses", 1);
	set_lru_gen(1);
}

struct mapped_run {
	const char *hot, *stream, *result;
	int stream_pages;	/* read with pread() between touches */
	const char *reclaim;	/* memory.reclaim of the cgroup, or NULL */
	bool by_read;		/* the hot set read with pread(), not mapped */
};

/* Touch every page of @map, verifying it: -1 on a wrong byte. */
static int touch_all(const char *map, int pages)
{
	int i;

	for (i = 0; i < pages; i++)
		if (check_page(map + (size_t)i * PAGE_SZ, i))
			return -1;
	return 0;
}

/*
 * Touch @map's pages after a TLB flush, so that reclaim sees every use.
 * x86 clears a page's accessed bit without a TLB flush (see
 * ptep_clear_flush_young()): a use through a translation still cached
 * sets no bit again.  A hardware TLB loses the hot set's translations to
 * the stream's accesses between rounds; QEMU's emulated TLB (TCG: sized
 * to the working set, kernel and user accesses apart) can keep them, and
 * then a round's use goes unseen.  Changing the mapping's protection
 * flushes the TLB (more than 33 pages: all of this mm's) and leaves the
 * accessed bits as they are.  See mapped_policies[] for what it changed.
 */
static int flush_and_touch(char *map, int pages)
{
	size_t len = (size_t)pages * PAGE_SZ;

	if (mprotect(map, len, PROT_NONE) || mprotect(map, len, PROT_READ))
		return -1;
	return touch_all(map, pages);
}

/*
 * In the cgroup: ROUNDS times, use all of the hot file, through a mapping
 * (or with pread() if r->by_read), then read the next part of the stream
 * (or ask for reclaim).  Writes to r->result the hot pages that were not
 * cached at the start of a round, summed over the rounds after
 * WARM_ROUNDS: the hot set's misses, however it is read.
 */
static int mapped_workload(const char *cgroup, void *arg)
{
	struct mapped_run *r = arg;
	int hot = open(r->hot, O_RDONLY), round, ret = EXIT_FAILURE;
	char *map = MAP_FAILED;
	long missing = 0, cached;
	FILE *f;

	if (hot < 0)
		return EXIT_FAILURE;
	/*
	 * No MADV_RANDOM (nor MADV_SEQUENTIAL): reclaim ignores the accessed
	 * bits of such a mapping (vma_has_recency()), and so would the
	 * policy.
	 */
	if (!r->by_read) {
		map = mmap(NULL, (size_t)HOT_PAGES * PAGE_SZ, PROT_READ,
			   MAP_SHARED, hot, 0);
		if (map == MAP_FAILED)
			goto out;
	}
	for (round = 0; round < ROUNDS; round++) {
		int err;

		if (round >= WARM_ROUNDS) {
			cached = cached_range(r->hot, 0, HOT_PAGES);
			if (cached < 0)
				goto out;
			missing += HOT_PAGES - cached;
		}
		if (r->by_read ? read_range(r->hot, 0, HOT_PAGES) :
				 flush_and_touch(map, HOT_PAGES))
			goto out;
		/* -EAGAIN: less than asked for could be reclaimed. */
		err = r->reclaim ? write_str(r->reclaim, "2M") : 0;
		if (err && err != -EAGAIN)
			goto out;
		if (r->stream && read_range(r->stream, (size_t)round * r->stream_pages,
					    r->stream_pages))
			goto out;
	}
	f = fopen(r->result, "w");
	if (f && fprintf(f, "%ld\n", missing) > 0 && !fclose(f))
		ret = EXIT_SUCCESS;
out:
	if (map != MAP_FAILED)
		munmap(map, (size_t)HOT_PAGES * PAGE_SZ);
	close(hot);
	return ret;
}

static long read_result(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Sum of @skel's counts for every inode of cgroup @cg_id. */
static struct event_counts cgroup_counts(struct count_events *skel,
					 uint64_t cg_id)
{
	struct { __u64 cgroup_id, ino; } key, next, *prev = NULL;
	struct event_counts sum = {}, c;

	while (!bpf_map__get_next_key(skel->maps.counts, prev, &next,
				      sizeof(next))) {
		if (next.cgroup_id == cg_id &&
		    !bpf_map__lookup_elem(skel->maps.counts, &next,
					  sizeof(next), &c, sizeof(c), 0)) {
			sum.added += c.added;
			sum.accessed += c.accessed;
			sum.mapped += c.mapped;
		}
		key = next;
		prev = &key;
	}
	return sum;
}

/*
 * The hot file, mapped and touched, with reclaim asked for 2 MiB after
 * each touch: count_events hears of the mapped use, with the report on.
 */
static struct event_counts count_mapped_use(struct __test_metadata *_metadata,
					    FIXTURE_DATA(mapped) *self,
					    int report)
{
	char reclaim[PATH_MAX];
	struct mapped_run r = { .hot = self->hot, .result = self->result,
				.reclaim = reclaim };
	struct event_counts c = {};
	struct count_events *skel;
	struct bpf_link *link;

	snprintf(reclaim, sizeof(reclaim), "%s/memory.reclaim", self->cg);
	EXPECT_EQ(set_core_param("mapped_accesses", report), 0);
	EXPECT_EQ(drop_file_cache(self->hot), 0);
	skel = count_events__open();
	if (!skel)
		return c;
	skel->struct_ops.count_events->cgroup_id = self->cg_id;
	if (!count_events__load(skel)) {
		link = bpf_map__attach_struct_ops(skel->maps.count_events);
		EXPECT_NE(link, NULL);
		EXPECT_EQ(cg_run(self->cg, mapped_workload, &r), 0);
		c = cgroup_counts(skel, self->cg_id);
		bpf_link__destroy(link);
	}
	count_events__destroy(skel);
	return c;
}

TEST_F(mapped, mapped_use_reaches_the_policy)
{
	struct event_counts on, off;

	on = count_mapped_use(_metadata, self, 1);
	off = count_mapped_use(_metadata, self, 0);
	TH_LOG("%d pages mapped, touched %d times: %llu reports (%llu added, %llu accessed); %llu with the report off",
	       HOT_PAGES, ROUNDS, on.mapped, on.added, on.accessed, off.mapped);
	/* Every touched folio reclaim looks at is reported; at least once. */
	EXPECT_GE(on.mapped, HOT_PAGES / 2);
	EXPECT_EQ(off.mapped, 0);
}

/* Pages reclaim took from a policy's candidates, and from the LRU. */
struct reclaimed {
	long policy, fallback;
};

/* Field @n (from 1) of the tab-separated @row; NULL if it has fewer. */
static const char *tsv_field(const char *row, int n)
{
	while (row && --n > 0) {
		row = strchr(row, '\t');
		if (row)
			row++;
	}
	return row;
}

/*
 * cachectl trace records the mapped uses it is told of (LC_EV_MAPPED; the
 * summary counts them), and cachesim replays them as uses through a
 * mapping, whose bits its reclaim finds and reports: what cachectl advise
 * compares policies on.  A log that recorded them as plain accesses would
 * replay with no mapped use at all.
 */
TEST_F_TIMEOUT(mapped, trace_records_mapped_uses_for_the_simulator, 300)
{
	const char *ctl = getenv("CACHECTL");
	char reclaim[PATH_MAX], log[PATH_MAX], summary[512], out[4096];
	char sim[PATH_MAX];
	struct mapped_run r = { .hot = self->hot, .result = self->result,
				.reclaim = reclaim };
	unsigned long long events, dropped, mapped, sim_mapped = 0, sim_uses;
	const char *col;
	char *line;
	int i;

	if (!ctl)
		SKIP(return, "CACHECTL is not set");
	/* $CACHESIM, or beside cachectl's build. */
	ASSERT_EQ(cachesim_path(sim, sizeof(sim)), 0)
		TH_LOG("no cachesim at %s", sim);
	snprintf(reclaim, sizeof(reclaim), "%s/memory.reclaim", self->cg);
	scratch_path(log, sizeof(log), "mapped_trace.lclog");
	ASSERT_EQ(drop_file_cache(self->hot), 0);
	ASSERT_EQ(run_traced(ctl, self->cg, log, "oversample=1", 0,
			     mapped_workload, &r, summary, sizeof(summary)), 0)
		TH_LOG("%s", summary);
	i = sscanf(summary, "recorded %llu events, %llu dropped, to %*s (%llu uses through mappings)",
		   &events, &dropped, &mapped);
	ASSERT_EQ(i, 3)
		TH_LOG("cachectl trace said: %s", summary);
	TH_LOG("%s", summary);
	EXPECT_GE(mapped, HOT_PAGES / 2);

	/* policy pages accesses ... ejected mapped_accesses (column 12) */
	ASSERT_EQ(run_cmd(out, sizeof(out), "%s -p lfu -s 256 -o tsv %s", sim, log), 0)
		TH_LOG("%s", out);
	line = strchr(out, '\n');
	ASSERT_NE(line, NULL) TH_LOG("%s", out);
	col = tsv_field(line + 1, 12);
	ASSERT_NE(col, NULL) TH_LOG("%s", out);
	sim_mapped = strtoull(col, NULL, 10);
	TH_LOG("cachesim (lfu, 256 pages) found and reported %llu mapped uses",
	       sim_mapped);
	EXPECT_GT(sim_mapped, 0);
	/*
	 * The workload reads through the mapping only, so its uses are the
	 * mapped ones the kernel reported and its faults: the insertions a
	 * fault waited for (LC_REC_DEMAND), which cachesim replays as uses.
	 * Without them a faulted page looked like unused readahead.
	 */
	col = tsv_field(line + 1, 3);
	ASSERT_NE(col, NULL) TH_LOG("%s", out);
	sim_uses = strtoull(col, NULL, 10);
	TH_LOG("cachesim replayed %llu uses, %llu of them reported mapped uses",
	       sim_uses, mapped);
	EXPECT_GT(sim_uses, mapped);
	unlink(log);
}

#define KEEPUP_READERS	8
#define KEEPUP_PASSES	3

/*
 * One of KEEPUP_READERS: KEEPUP_PASSES times through @path's STREAM_PAGES
 * through a shared mapping, from its own eighth of the file on: faults,
 * read-around and reclaim in the cgroup, as LevelDB's reads through mmap
 * make them.  Each page is checked by its first word, which names it
 * (make_file()'s pattern): checking all of it (check_page()) spent the
 * readers' CPU on memcmp() and halved the rate of events.
 */
static int keepup_reader(const char *path, int nr)
{
	size_t len = (size_t)STREAM_PAGES * PAGE_SZ;
	int fd = open(path, O_RDONLY), pass, i;
	char *map;

	if (fd < 0)
		return -1;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	for (pass = 0; pass < KEEPUP_PASSES; pass++) {
		for (i = 0; i < STREAM_PAGES; i++) {
			int page = (i + nr * STREAM_PAGES / KEEPUP_READERS) %
				   STREAM_PAGES;

			const uint64_t *first = (const void *)(map + (size_t)page * PAGE_SZ);

			if (*first != (uint64_t)page << 20) {
				munmap(map, len);
				return -1;
			}
		}
	}
	munmap(map, len);
	return 0;
}

/*
 * In the cgroup: the KEEPUP_READERS readers of the stream file @arg, and
 * as many processes that only compute, as LevelDB's threads do between
 * their reads: every CPU busy, the recorder one task among many.
 */
static int keepup_workload(const char *cgroup, void *arg)
{
	pid_t pids[KEEPUP_READERS], spinners[KEEPUP_READERS];
	int i, status, ret = EXIT_SUCCESS;

	for (i = 0; i < KEEPUP_READERS; i++) {
		spinners[i] = fork();
		if (!spinners[i])
			for (;;)
				;
	}
	for (i = 0; i < KEEPUP_READERS; i++) {
		pids[i] = fork();
		if (!pids[i])
			_exit(keepup_reader(arg, i) ? EXIT_FAILURE : EXIT_SUCCESS);
		if (pids[i] < 0)
			ret = EXIT_FAILURE;
	}
	for (i = 0; i < KEEPUP_READERS; i++)
		if (pids[i] > 0 && (waitpid(pids[i], &status, 0) != pids[i] ||
				    !WIFEXITED(status) || WEXITSTATUS(status)))
			ret = EXIT_FAILURE;
	for (i = 0; i < KEEPUP_READERS; i++) {
		if (spinners[i] <= 0) {
			ret = EXIT_FAILURE;
			continue;
		}
		kill(spinners[i], SIGKILL);
		waitpid(spinners[i], NULL, 0);
	}
	return ret;
}

/*
 * The recording of a workload like the evaluation's LevelDB runs (eight
 * threads reading through mmap, both CPUs busy, every miss an insertion,
 * an eviction and the mapped uses reclaim finds) loses at most 0.1% of its
 * events with the default ring buffer: the tracer's events it cannot
 * record would make the string not the workload's (lctrain and cachesim
 * refuse such a log).  It records 15,000-47,000 events a second here
 * (make eval-leveldb's YCSB C: 47,000).  What it does not reproduce: the
 * recorder before it kept up (version 3 records, a wakeup per event,
 * stdio's buffer, the workload's priority) lost 1.38 M of 2.77 M events
 * of make eval-leveldb's YCSB C and 0.68 M of 1.15 M of A, and none now;
 * on this test it lost none either, with or without the eight processes
 * that compute (its log on the scratch disk, or with everything on the
 * 9p share as eval's reference strings are).  So this test holds the
 * recorder to the rate, not to that cause, which was not isolated.
 */
TEST_F_TIMEOUT(mapped, trace_keeps_up_with_eight_mapped_readers, 600)
{
	const char *ctl = getenv("CACHECTL");
	char log[PATH_MAX], summary[512];
	unsigned long long events, dropped, mapped;
	struct timespec t0, t1;
	double secs;
	int n;

	if (!ctl)
		SKIP(return, "CACHECTL is not set");
	ASSERT_EQ(make_file(self->stream, STREAM_PAGES), 0);
	ASSERT_EQ(drop_file_cache(self->stream), 0);
	/*
	 * Room to spare: eight readers keep what they fault mapped, with
	 * young page table entries, until reclaim looks at it, and on MGLRU
	 * the kernel's own reclaim fails them in 15 MiB (2 runs in 7 ended
	 * in a memory cgroup OOM kill, none in 14 at 15.5 MiB or in 25 at
	 * 16 MiB, beside two other VMs).  A binding's registry is charged
	 * to the cgroup (0.2-0.3 MB more kernel memory at the kills), and
	 * at 16 MiB the tracer's runs were killed 4 times in 25, fifo's
	 * once in 13 (2026-12-07; all but the tracer's runs with a local
	 * variant of this test, see Documentation/bpf/cache_ext.rst).
	 * At 24 MiB: 38 runs under the tracer, no kill.  The readers are
	 * 6 MiB apart on a 48 MiB file: every use misses at either size.
	 */
	ASSERT_EQ(cg_write(self->cg, "memory.max", "24M"), 0);
	scratch_path(log, sizeof(log), "keepup.lclog");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(run_traced(ctl, self->cg, log, "oversample=1", 0,
			     keepup_workload, self->stream, summary,
			     sizeof(summary)), 0)
		TH_LOG("%s", summary);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	summary[strcspn(summary, "\n")] = '\0';
	n = sscanf(summary, "recorded %llu events, %llu dropped, to %*s (%llu uses through mappings)",
		   &events, &dropped, &mapped);
	ASSERT_EQ(n, 3)
		TH_LOG("cachectl trace said: %s", summary);
	TH_LOG("%s; %.0f events/s over %.1f s", summary,
	       (events + dropped) / secs, secs);
	/* The load it is about: every pass misses most of the file. */
	EXPECT_GE(events + dropped, (unsigned long long)KEEPUP_READERS *
				    STREAM_PAGES);
	EXPECT_LE(dropped * 1000, events + dropped);
	unlink(log);
}

/*
 * The hot set's misses after the warm-up under @policy (NULL: the
 * kernel's own), read through a mapping or, if @by_read, with pread();
 * what reclaim took from the policy and from the LRU in *@rec, if not NULL.
 */
static long hot_misses(struct __test_metadata *_metadata,
		       FIXTURE_DATA(mapped) *self, const char *policy,
		       const char *knobs, bool by_read, struct reclaimed *rec)
{
	struct mapped_run r = { .hot = self->hot, .stream = self->stream,
				.result = self->result,
				.stream_pages = STREAM_PAGES / ROUNDS,
				.by_read = by_read };
	struct policy p = {};
	long misses;

	EXPECT_EQ(drop_file_cache(self->hot), 0);
	EXPECT_EQ(drop_file_cache(self->stream), 0);
	if (policy && policy_attach(&p, policy, NULL, self->cg_id, knobs))
		return -1;
	EXPECT_EQ(trace_start(), 0);
	EXPECT_EQ(cg_run(self->cg, mapped_workload, &r), 0);
	misses = read_result(self->result);
	if (rec) {
		rec->policy = trace_sum("cache_ext_evict:", " reclaimed=");
		rec->fallback = trace_sum("cache_ext_fallback:", " reclaimed=");
	}
	policy_detach(&p);
	return misses;
}

/*
 * Measured on the hot set's misses, 10 rounds after 2 of warm-up, two
 * runs with 256 KiB preads (2026-12-02, classic LRU / MGLRU): the kernel's own policy 0 / 0
 * (0 / 191-255 with the hot set read with pread()).  With the report on,
 * off, and the hot set read instead:
 *
 *   fifo    752-787 / 2400-2528   746-754 / 2464-2475   755-855 / 736-896
 *   s3fifo  175-219 / 640-704     175-213 / 704           1 / 32
 *   lfu     109-315 / 53-125    8929-9071 / 7894-8143    0-32 / 0-2
 *   lhd   1388-1728 / 287-1425  990-2035 / 2102-2272 1901-2001 / 2479-2869
 *
 * and one with read_range()'s 4 KiB preads, as now (kernel 0 / 0, read
 * 0 / 127): fifo 362 / 2181, off 231 / 2336, read 496 / 368; s3fifo
 * 134 / 704, 88 / 672, 1 / 32; lfu 234 / 117, 8511 / 7727, 0 / 0; lhd
 * 228 / 1504, 605 / 2079, 2772 / 2768.
 *
 * So lfu, which ranks by use counts, is the policy the report changes:
 * without it a mapped hot set counts as used once and goes first; the
 * test holds it to a tenth of its misses without the report.  Since lfu
 * gives folios readahead brought in a grace period (their count starts
 * as if used once), the hot set's read-around folios no longer go first
 * without the report either (lfu 233-594 mapped, 929-1070 / 1698-2462
 * off, three runs): the report's own effect is measured with the grace
 * off (lfu/prefetch_grace=0, as lfu was when the rows above were
 * measured: 374 / 12 mapped, 8844 / 8029 off), and lfu as attached is
 * logged.  None
 * matches the kernel's 0 yet: a mapped use reaches the policy only when
 * the kernel next looks at the folio (see the BPF contract), after the
 * policy ranked it; fifo evicts by age whatever the use, and on MGLRU
 * loses three times more of the mapped set than of the read one; lhd
 * varies up to fivefold between runs.  Those rows are logged, with
 * the data of every policy verified on every use.
 *
 * Until reclaim asked the policy again when it kept a whole batch for its
 * mapped use, the LRU took the next batch and did part of the evicting:
 * 287-1600 pages for lfu against lfu's 9528-15916, and on MGLRU 6912 for
 * fifo against fifo's 6589 (one run each, 2026-12-03).  Now 0-6, and on
 * MGLRU fifo misses 448 of the hot set instead of 2240, s3fifo 128
 * instead of 768; asserted for fifo and lfu, which always propose a full
 * batch: the LRU evicts at most a fiftieth of what they do.
 *
 * Since fifo requeues at its tail what reclaim keeps for its mapped use,
 * and s3fifo gives such a folio in its small queue a second chance there
 * (2026-12-03, two runs each, classic LRU / MGLRU): fifo misses 0 / 0 of
 * the hot set mapped (368-384 before; 350-705 / 260-443 read, by age),
 * s3fifo 0 / 0 (126 / 128 before).  Their hot set reaches the head of
 * their list as one run of 32 batches that reclaim keeps whole: with 4
 * asks in a row the LRU took over after the fourth and evicted 921 / 448
 * pages for fifo; reclaim now asks up to 64 times (15 / 0).  Asserted:
 * fifo and s3fifo keep the mapped hot set as the kernel's LRU does,
 * within a tenth of its misses and one batch (32 pages of the 10240
 * uses).  lfu (381-471 / 379-396) and lhd (1355-2302 / 2262-2476) do
 * not: lfu counts a read-around folio's first report as the use readahead
 * expected, so a hot folio ties with the stream's folios (count 1) until
 * its second report, and lfu's sampling looks at every folio about six
 * times a round while the hot set is used once a round, so a hot folio
 * whose bit was just cleared is sampled and evicted as one of the stream;
 * lhd misses the hot set as much when it is read with pread() (1374-2886),
 * so it is lhd's ranking on this workload, not the report.  Logged.
 *
 * Without a TLB flush before each round's use (flush_and_touch()), that
 * fifo and s3fifo bound failed in 7 of 18 runs made after other programs
 * in the same boot (2026-12-03: CI's make check and make kselftest, 4 of
 * 13 runs after test_ctl, 1 of 2 with cache_ext_ctl loaded; one make
 * check passed), never in 9 runs of this program alone or after
 * test_hooks: one of the two lost 150-440 hot pages, in bursts of ~200 in
 * one round, while every requeue succeeded; fifo heard 3088-4114 mapped
 * uses instead of 6144 (each hot page at the head every second round, 6
 * times).  Uses were made and not seen: after reclaim cleared a page's
 * accessed bit, the next use went through the translation the emulated
 * TLB still held.
 * With the flush, 13 runs of 13 after test_ctl: fifo and s3fifo 0 misses,
 * fifo 6144 reports (6036 once).  The kernel's LRU missed nothing in
 * every run, flush or not: a folio must be found unused twice, on the
 * active and then the inactive list, before it goes, where fifo and
 * s3fifo evict at the first look that finds the bit clear.  The other
 * rows above were measured without the flush.
 */
static const struct {
	const char *name, *knobs;
} mapped_policies[] = {
	{ "fifo", NULL }, { "s3fifo", NULL }, { "lfu", NULL },
	{ "lfu", "prefetch_grace=0" }, { "lhd", NULL },
};

TEST_F_TIMEOUT(mapped, mapped_hot_set_beside_a_read_stream, 900)
{
	long kernel, kernel_read, mapped, read, off;
	struct reclaimed rec;
	size_t i;

	ASSERT_EQ(make_file(self->stream, STREAM_PAGES), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "12M"), 0);
	kernel = hot_misses(_metadata, self, NULL, NULL, false, NULL);
	kernel_read = hot_misses(_metadata, self, NULL, NULL, true, NULL);
	ASSERT_GE(kernel, 0);
	ASSERT_GE(kernel_read, 0);
	TH_LOG("kernel: %ld misses on the %d hot pages in %d rounds mapped, %ld read",
	       kernel, HOT_PAGES, ROUNDS - WARM_ROUNDS, kernel_read);
	for (i = 0; i < sizeof(mapped_policies) / sizeof(mapped_policies[0]); i++) {
		const char *name = mapped_policies[i].name;
		const char *knobs = mapped_policies[i].knobs;

		ASSERT_EQ(set_core_param("mapped_accesses", 0), 0);
		off = hot_misses(_metadata, self, name, knobs, false, NULL);
		ASSERT_EQ(set_core_param("mapped_accesses", 1), 0);
		mapped = hot_misses(_metadata, self, name, knobs, false, &rec);
		read = hot_misses(_metadata, self, name, knobs, true, NULL);
		TH_LOG("%s%s%s: %ld misses mapped, %ld with the report off, %ld read (kernel %ld, %ld); mapped: %ld pages reclaimed from its candidates, %ld by the LRU",
		       name, knobs ? "/" : "", knobs ?: "", mapped, off, read,
		       kernel, kernel_read, rec.policy, rec.fallback);
		/* -1: the workload failed, a wrong byte included. */
		EXPECT_GE(mapped, 0);
		EXPECT_GE(off, 0);
		EXPECT_GE(read, 0);
		if (!strcmp(name, "lfu") && knobs)
			EXPECT_LE(mapped * 10, off)
				TH_LOG("lfu does not see the mapped hot set's use");
		if (!strcmp(name, "fifo") || !strcmp(name, "s3fifo"))
			EXPECT_LE(mapped, kernel + kernel / 10 + 32)
				TH_LOG("%s loses more of the mapped hot set than the kernel's LRU",
				       name);
		/*
		 * fifo and lfu propose a full batch every time: when reclaim
		 * keeps all of it for its mapped use, the policy is asked
		 * again, and the LRU evicts next to nothing for them.
		 */
		if (strcmp(name, "fifo") && strcmp(name, "lfu"))
			continue;
		EXPECT_GT(rec.policy, 0);
		EXPECT_LE(rec.fallback * 50, rec.policy)
			TH_LOG("the LRU evicted %ld pages for %s, the policy %ld",
			       rec.fallback, name, rec.policy);
	}
}

struct busy_toucher {
	const char *hot;
	volatile int *stop;	/* shared with the test, set when it is done */
};

/* Use all of the hot file through a mapping, again and again, until told. */
static int touch_until_stopped(const char *cgroup, void *arg)
{
	struct busy_toucher *t = arg;
	int fd = open(t->hot, O_RDONLY), ret = EXIT_FAILURE;
	char *map;

	if (fd < 0)
		return EXIT_FAILURE;
	map = mmap(NULL, (size_t)HOT_PAGES * PAGE_SZ, PROT_READ, MAP_SHARED,
		   fd, 0);
	if (map == MAP_FAILED)
		goto out;
	while (!*t->stop)
		if (touch_all(map, HOT_PAGES))
			goto unmap;
	ret = EXIT_SUCCESS;
unmap:
	munmap(map, (size_t)HOT_PAGES * PAGE_SZ);
out:
	close(fd);
	return ret;
}

/*
 * Reclaim keeps a candidate used through a mapping since it last looked,
 * and asks the policy again (up to 64 times in a row) when a whole batch
 * was kept.  fifo requeues what is kept, so with its hot set in use all
 * the time every ask can be another kept batch: the bound, then the LRU,
 * must still let reclaim free memory.  A hot file mapped and used without
 * pause, beside a stream read in an 8 MiB cgroup (4 MiB hot, 48 MiB
 * stream): the stream is read through, the mapped data is right on every
 * use, no OOM kill, fifo is still bound.
 */
TEST_F_TIMEOUT(mapped, kept_candidates_do_not_wedge_reclaim, 600)
{
	struct busy_toucher t = { .hot = self->hot };
	struct policy p = {};
	long policy_pages, lru_pages;
	int status = -1;
	pid_t toucher;

	ASSERT_EQ(make_file(self->stream, STREAM_PAGES), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "8M"), 0);
	t.stop = mmap(NULL, sizeof(*t.stop), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(t.stop, MAP_FAILED);
	*t.stop = 0;
	ASSERT_EQ(policy_attach(&p, "fifo", NULL, self->cg_id, NULL), 0);
	EXPECT_EQ(trace_start(), 0);

	toucher = cg_run_nowait(self->cg, touch_until_stopped, &t);
	ASSERT_GT(toucher, 0);
	EXPECT_EQ(cg_run(self->cg, cg_read_file_once, self->stream), 0)
		TH_LOG("the stream was not read through beside the mapped hot set");
	*t.stop = 1;
	ASSERT_EQ(waitpid(toucher, &status, 0), toucher);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the mapped data was wrong, or the toucher died: status %#x",
		       status);

	policy_pages = trace_sum("cache_ext_evict:", " reclaimed=");
	lru_pages = trace_sum("cache_ext_fallback:", " reclaimed=");
	TH_LOG("%d-page stream beside %d mapped pages in use: %ld pages reclaimed from fifo's candidates, %ld by the LRU",
	       STREAM_PAGES, HOT_PAGES, policy_pages, lru_pages);
	EXPECT_GT(policy_pages, 0);
	EXPECT_EQ(trace_ejections("fifo"), 0);
	EXPECT_EQ(cg_read_key_long(self->cg, "memory.events", "oom_kill "), 0);
	EXPECT_EQ(cg_read_strcmp(self->cg, "memory.cache_ext", "fifo\n"), 0);
	policy_detach(&p);
	munmap((void *)t.stop, sizeof(*t.stop));
}

TEST_HARNESS_MAIN
