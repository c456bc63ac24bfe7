// SPDX-License-Identifier: GPL-2.0
/*
 * LearnedCache end to end, in the VM: trace a workload with a learnable
 * reuse pattern (cachectl trace), train on the log (lctrain), load the
 * model (cachectl model load), and run ml_protect and ml_rank on a fresh
 * run of the same workload: both read less from disk than fifo.  Also:
 * without a model both behave as FIFO and say so.
 *
 * The workload, in a 16 MiB cgroup: six rounds of (read a 4 MiB file P,
 * then stream the next 16 MiB of a 96 MiB file S).  Under FIFO the stream
 * pushes P out every round; P's pages are reused, S's never.
 *
 * Also: the file features the tracer records when two CPUs read one file
 * are those of the one stream of their reads (the kernel keeps a file's
 * state per CPU and merges it).
 *
 * Needs $CACHECTL, $LCTRAIN and $CACHE_EXT_CTL_KO.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "workload.h"

#define MIB		256	/* pages */
#define ROUNDS		6
#define CHUNK		(16 * MIB)

FIXTURE(learned) {
	char *cg;
	uint64_t cg_id;
	char p[PATH_MAX], s[PATH_MAX];
	struct periodic w;
	char log[PATH_MAX], model[PATH_MAX];
	char out[16384];
	long long refaults;	/* prefetch_refaults of measure_wasted()'s run */
};

FIXTURE_SETUP(learned)
{
	if (!scratch_dir() || !getenv("CACHECTL") || !getenv("LCTRAIN") ||
	    !getenv("CACHE_EXT_CTL_KO"))
		SKIP(return, "run in the VM with CACHECTL, LCTRAIN and CACHE_EXT_CTL_KO set");
	setenv("CACHECTL_MODULE", getenv("CACHE_EXT_CTL_KO"), 1);
	ASSERT_EQ(ctl_module_load(), 0);
	ASSERT_EQ(set_lru_gen(0), 0);
	self->cg = memcg_create("cache_ext_learned");
	ASSERT_NE(self->cg, NULL);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "16M"), 0);
	self->cg_id = cgroup_id_of(self->cg);
	scratch_path(self->p, PATH_MAX, "periodic");
	scratch_path(self->s, PATH_MAX, "stream");
	self->w = (struct periodic){ self->p, self->s, 4 * MIB, CHUNK, ROUNDS };
	scratch_path(self->log, PATH_MAX, "trace.lclog");
	scratch_path(self->model, PATH_MAX, "model.json");
	ASSERT_EQ(make_file(self->p, 4 * MIB), 0);
	ASSERT_EQ(make_file(self->s, ROUNDS * CHUNK), 0);
}

FIXTURE_TEARDOWN(learned)
{
	char out[256];

	run_cmd(out, sizeof(out), "%s model unload learned", getenv("CACHECTL"));
	restore_core_params();
	unlink(self->p);
	unlink(self->s);
	unlink(self->log);
	unlink(self->model);
	if (self->cg) {
		cg_destroy(self->cg);
		free(self->cg);
	}
	set_lru_gen(1);
}

/*
 * Disk reads of one fresh run of the workload under @policy (NULL: the
 * kernel's own); *@wasted, if given, gets the binding's prefetch_evicted.
 */
static long long measure_wasted(struct __test_metadata *_metadata,
				FIXTURE_DATA(learned) *self, const char *policy,
				const char *knobs, unsigned long long *no_model,
				long long *wasted)
{
	struct policy p = {};
	long long before;

	EXPECT_EQ(drop_file_cache(self->p), 0);
	EXPECT_EQ(drop_file_cache(self->s), 0);
	if (policy)
		EXPECT_EQ(policy_attach(&p, policy, NULL, self->cg_id, knobs), 0);
	before = disk_pages_read();
	EXPECT_EQ(cg_run(self->cg, periodic_reads, &self->w), 0);
	before = disk_pages_read() - before;
	if (no_model) {
		unsigned long long *n = policy_var(&p, "nr_no_model");

		*no_model = n ? *n : ~0ULL;
	}
	if (wasted) {
		*wasted = binding_stat(self->cg_id, "prefetch_evicted ");
		self->refaults = binding_stat(self->cg_id, "prefetch_refaults ");
	}
	policy_detach(&p);
	return before;
}

/* Disk reads of one fresh run of the workload under @policy. */
static long long measure(struct __test_metadata *_metadata,
			 FIXTURE_DATA(learned) *self, const char *policy,
			 const char *knobs, unsigned long long *no_model)
{
	return measure_wasted(_metadata, self, policy, knobs, no_model, NULL);
}

/* Trace the workload as plain FIFO, train on it and load the model. */
static void train_on_periodic(struct __test_metadata *_metadata,
			      FIXTURE_DATA(learned) *self)
{
	char *out = self->out, summary[256] = "";

	ASSERT_EQ(drop_file_cache(self->p), 0);
	ASSERT_EQ(drop_file_cache(self->s), 0);
	/* oversample=1: plain FIFO, so that P is evicted and comes back. */
	ASSERT_EQ(run_traced(getenv("CACHECTL"), self->cg, self->log, "oversample=1",
			     0, periodic_reads, &self->w, summary, sizeof(summary)), 0)
		TH_LOG("%s", summary);
	TH_LOG("%s", summary);
	ASSERT_EQ(run_cmd(out, sizeof(self->out), "%s -o %s %s", getenv("LCTRAIN"),
			  self->model, self->log), 0) TH_LOG("%s", out);
	TH_LOG("lctrain:\n%s", out);
	ASSERT_EQ(run_cmd(out, sizeof(self->out), "%s model load learned %s",
			  getenv("CACHECTL"), self->model), 0) TH_LOG("%s", out);
}

TEST_F_TIMEOUT(learned, trace_train_load_and_beat_fifo_and_lfu, 300)
{
	long long fifo, lfu, protect, rank10, rank40;
	unsigned long long no_model;

	train_on_periodic(_metadata, self);
	fifo = measure(_metadata, self, "fifo", NULL, NULL);
	lfu = measure(_metadata, self, "lfu", NULL, NULL);
	protect = measure(_metadata, self, "ml_protect", NULL, &no_model);
	EXPECT_EQ(no_model, 0);
	rank10 = measure(_metadata, self, "ml_rank", "oversample=10", &no_model);
	EXPECT_EQ(no_model, 0);
	rank40 = measure(_metadata, self, "ml_rank", "oversample=40", &no_model);
	EXPECT_EQ(no_model, 0);
	TH_LOG("disk reads: fifo %lld, lfu %lld, ml_protect %lld, ml_rank 10x %lld, 40x %lld (P: %d pages x %d rounds)",
	       fifo, lfu, protect, rank10, rank40, 4 * MIB, ROUNDS);
	/* P missed every round under FIFO; the models keep most of it. */
	EXPECT_LT(protect, fifo - 2 * 4 * MIB);
	EXPECT_LT(rank10, fifo - 2 * 4 * MIB);
	EXPECT_LT(rank40, fifo - 2 * 4 * MIB);
	/*
	 * Counts tell P from the stream only for the P pages that survive a
	 * round; the model knows P by its file from the first.  Measured:
	 * lfu 26,367-27,356 disk reads, ml_rank 40x 25,687-25,762.  (Before
	 * lfu gave prefetched folios a grace period it read 33,779-33,956,
	 * more than fifo: it evicted the stream's readahead before its
	 * reads; see sequential_rereads_read_no_more_than_the_kernel.)
	 */
	EXPECT_LT(rank40, lfu);
}

/*
 * The workload's reads are sequential 4 KiB preads: readahead brings each
 * page in before it is read.  A policy that ranks those pages as unused
 * evicts them first and reads them again (lfu did: 1.14x the kernel's
 * reads in make run).  lfu, lhd and ml_rank read no more from disk than
 * the kernel's LRU, which misses every page of it.  lfu's grace for
 * prefetched folios halves at least what readahead wastes: without it
 * (prefetch_grace=0) its binding counts readahead folios evicted before
 * their reader got to them (prefetch_evicted) and read again
 * (prefetch_refaults).  Measured since lfu's sample follows the request:
 * 48-114 without the grace, 0-12 with it (nine runs); with a full batch's
 * sample on every call it reached the young, unread folios far more
 * often: ~35,000 without the grace.
 */
TEST_F_TIMEOUT(learned, sequential_rereads_read_no_more_than_the_kernel, 600)
{
	static const struct { const char *policy, *knobs; } runs[] = {
		{ "lfu", NULL }, { "lhd", NULL }, { "ml_rank", "oversample=10" },
	};
	long long kernel, reads, wasted, no_grace, no_grace_wasted, lfu_wasted = -1;
	size_t i;

	train_on_periodic(_metadata, self);
	kernel = measure(_metadata, self, NULL, NULL, NULL);
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		reads = measure_wasted(_metadata, self, runs[i].policy,
				       runs[i].knobs, NULL, &wasted);
		TH_LOG("%s: %lld disk reads (kernel-lru %lld), %lld readahead folios evicted unread",
		       runs[i].policy, reads, kernel, wasted);
		EXPECT_LE(reads, kernel) TH_LOG("%s reads more than the kernel",
						runs[i].policy);
		EXPECT_GE(wasted, 0);
		if (!i)
			lfu_wasted = wasted;
	}
	no_grace = measure_wasted(_metadata, self, "lfu", "prefetch_grace=0",
				  NULL, &no_grace_wasted);
	TH_LOG("lfu without the grace: %lld disk reads, %lld readahead folios evicted unread, %lld of them read again",
	       no_grace, no_grace_wasted, self->refaults);
	EXPECT_GT(no_grace_wasted, 2 * lfu_wasted);
	/* What it evicted unread, its reader read again from disk. */
	EXPECT_GE(self->refaults * 2, no_grace_wasted);
}

static int zipf_workload(const char *cgroup, void *path)
{
	return zipf_reads(path, 12 * MIB, 30000, 0.9, 42) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Disk reads of the Zipfian workload on @self->s under @policy. */
static long long measure_zipf(struct __test_metadata *_metadata,
			      FIXTURE_DATA(learned) *self, const char *policy,
			      const char *knobs)
{
	struct policy p;
	long long n;

	EXPECT_EQ(drop_file_cache(self->s), 0);
	EXPECT_EQ(policy_attach(&p, policy, NULL, self->cg_id, knobs), 0);
	n = disk_pages_read();
	EXPECT_EQ(cg_run(self->cg, zipf_workload, self->s), 0);
	n = disk_pages_read() - n;
	policy_detach(&p);
	return n;
}

/*
 * On Zipfian reads (12 MiB of the stream file in a 4 MiB cgroup) the
 * signal is frequency, lfu's own: the model, traced and trained on the
 * same sequence, ties lfu or does better (within 3%, see below).  Its
 * hold-out AUC is 0.56-0.62, near min_auc: min_auc=0 keeps the test about
 * scoring.
 */
TEST_F_TIMEOUT(learned, ties_lfu_on_zipf, 900)
{
	const char *rank_knobs = "oversample=20 min_auc=0";
	char summary[256] = "";
	long long lfu, rank;

	ASSERT_EQ(cg_write(self->cg, "memory.max", "4M"), 0);
	ASSERT_EQ(drop_file_cache(self->s), 0);
	ASSERT_EQ(run_traced(getenv("CACHECTL"), self->cg, self->log, NULL, 0,
			     zipf_workload, self->s, summary, sizeof(summary)), 0)
		TH_LOG("%s", summary);
	ASSERT_EQ(run_cmd(self->out, sizeof(self->out), "%s -o %s %s", getenv("LCTRAIN"),
			  self->model, self->log), 0) TH_LOG("%s", self->out);
	TH_LOG("lctrain:\n%s", self->out);
	ASSERT_EQ(run_cmd(self->out, sizeof(self->out), "%s model load learned %s",
			  getenv("CACHECTL"), self->model), 0) TH_LOG("%s", self->out);
	/*
	 * What is compared is the decisions, not how fast they are made: on
	 * a loaded host a call of ml_rank 20x (or of lfu) can reach the
	 * 200 ms budget, and a call cut short decides from part of its
	 * sample.  With a budget no call reaches, the two runs are
	 * comparable however busy the host is.
	 */
	ASSERT_EQ(set_core_param("evict_budget_ms", 5000), 0);
	/*
	 * Each policy three times, in turns whose order alternates, summed.
	 * One run of either varies by up to 3% from the next with the same
	 * seeded reads, and later runs of a test read more than earlier ones
	 * (lfu 7465, 7520, 7638, 7709 in four turns); why was not found.
	 * Alternating the order keeps that drift off one policy; over two
	 * turns ml_rank came out -3.0% to +2.2% of lfu in eight runs, mean
	 * -0.8%, so a tie is within 3% over three.
	 */
	lfu = 0;
	rank = 0;
	for (int i = 0; i < 3; i++) {
		long long l, r;

		if (i % 2) {
			r = measure_zipf(_metadata, self, "ml_rank", rank_knobs);
			l = measure_zipf(_metadata, self, "lfu", NULL);
		} else {
			l = measure_zipf(_metadata, self, "lfu", NULL);
			r = measure_zipf(_metadata, self, "ml_rank", rank_knobs);
		}
		TH_LOG("turn %d: lfu %lld, ml_rank 20x %lld", i, l, r);
		lfu += l;
		rank += r;
	}
	restore_core_params();
	TH_LOG("disk reads, three runs each: lfu %lld, ml_rank 20x %lld (%+.1f%%)",
	       lfu, rank,
	       (double)(rank - lfu) * 100 / lfu);
	EXPECT_LE(rank * 100, lfu * 103);
}

TEST_F_TIMEOUT(learned, no_model_is_fifo_and_says_so, 600)
{
	unsigned long long no_model;
	long long fifo, protect;
	char out[256];

	run_cmd(out, sizeof(out), "%s model unload learned", getenv("CACHECTL"));
	fifo = measure(_metadata, self, "fifo", NULL, NULL);
	protect = measure(_metadata, self, "ml_protect", NULL, &no_model);
	EXPECT_GT(no_model, 0);
	/* The same decisions as fifo: disk reads within 2%. */
	EXPECT_LT(llabs(protect - fifo) * 50, fifo)
		TH_LOG("fifo %lld, ml_protect %lld", fifo, protect);
	measure(_metadata, self, "ml_rank", "oversample=20", &no_model);
	EXPECT_GT(no_model, 0);
}

/* A model that ranks by idle time alone, exported with @auc. */
static int write_idle_model(const char *path, const char *auc)
{
	char members[64];

	snprintf(members, sizeof(members), ",\"holdout_auc\":%s", auc);
	return write_model(path, 8, "\"n_bins\":3,\"bin_edges\":[100000000,1000000000],"
				    "\"weights_int\":[9,3,0]", members);
}

/* ml_rank's scorings and its calls without signal in one run. */
static long long rank_run(struct __test_metadata *_metadata,
			  FIXTURE_DATA(learned) *self, unsigned long long *scored,
			  unsigned long long *no_signal)
{
	struct policy p;
	void *nr;
	long long n;

	EXPECT_EQ(drop_file_cache(self->p), 0);
	EXPECT_EQ(drop_file_cache(self->s), 0);
	EXPECT_EQ(policy_attach(&p, "ml_rank", NULL, self->cg_id, "oversample=20"), 0);
	n = disk_pages_read();
	EXPECT_EQ(cg_run(self->cg, periodic_reads, &self->w), 0);
	n = disk_pages_read() - n;
	nr = policy_var(&p, "nr_scored");
	*scored = nr ? *(unsigned long long *)nr : ~0ULL;
	nr = policy_var(&p, "nr_no_signal");
	*no_signal = nr ? *(unsigned long long *)nr : ~0ULL;
	policy_detach(&p);
	return n;
}

/*
 * A model whose hold-out AUC says it is no better than chance: cachectl
 * warns, ml_rank evicts in FIFO order without paying for scoring; the
 * same weights with a good AUC are scored.
 */
TEST_F_TIMEOUT(learned, model_without_signal_is_not_scored, 600)
{
	unsigned long long scored, no_signal;
	long long fifo, rank;

	ASSERT_EQ(write_idle_model(self->model, "0.5"), 0);
	ASSERT_EQ(run_cmd(self->out, sizeof(self->out), "%s model load learned %s",
			  getenv("CACHECTL"), self->model), 0) TH_LOG("%s", self->out);
	EXPECT_NE(strstr(self->out, "hold-out AUC 0.500 is about chance"), NULL)
		TH_LOG("%s", self->out);
	fifo = measure(_metadata, self, "fifo", NULL, NULL);
	rank = rank_run(_metadata, self, &scored, &no_signal);
	EXPECT_EQ(scored, 0);
	EXPECT_GT(no_signal, 0);
	EXPECT_LT(llabs(rank - fifo) * 50, fifo) TH_LOG("fifo %lld, ml_rank %lld", fifo, rank);

	ASSERT_EQ(write_idle_model(self->model, "0.9"), 0);
	ASSERT_EQ(run_cmd(self->out, sizeof(self->out), "%s model load learned %s",
			  getenv("CACHECTL"), self->model), 0) TH_LOG("%s", self->out);
	EXPECT_EQ(strstr(self->out, "about chance"), NULL) TH_LOG("%s", self->out);
	rank_run(_metadata, self, &scored, &no_signal);
	EXPECT_GT(scored, 0);
	EXPECT_EQ(no_signal, 0);
}

/* Waits up to @ms for cachectl learn's last line in @path; 0 or -1. */
static int wait_for_text_prefix(const char *path, int ms)
{
	char text[16384];

	for (; ms > 0; ms -= 200) {
		if (read_text(path, text, sizeof(text)) > 0 &&
		    strstr(text, "ml_rank unbound after"))
			return 0;
		usleep(200000);
	}
	return -1;
}

/* Zipfian reads of the stream file until killed. */
static int zipf_forever(const char *cgroup, void *arg)
{
	uint64_t seed = 1;

	for (;;)
		if (zipf_reads(arg, 3 * CHUNK, 20000, 0.99, seed++))
			return EXIT_FAILURE;
}

/*
 * cachectl learn on Zipfian reads of 48 MiB in the 16 MiB cgroup (a
 * signal that stays in every window, unlike the periodic workload's,
 * whose reuse the first good model takes out of the evictions): ml_rank
 * bound and recording, its model retrained every
 * 5 s and, with --min-gain -1, replaced after every window whose model
 * has signal;
 * the cgroup's policy is ml_rank at every look, and the model store's
 * version of the model goes up mid-run.
 */
TEST_F_TIMEOUT(learned, continuous_learning_swaps_the_model_in_place, 600)
{
	char out_path[PATH_MAX], cmd[PATH_MAX * 2], sel[64], *p;
	unsigned long long version, last = 0;
	int looks = 0, bound = 0, swaps = 0;
	pid_t pid;

	scratch_path(out_path, sizeof(out_path), "learn.out");
	ASSERT_EQ(trace_start(), 0);
	pid = cg_run_nowait(self->cg, zipf_forever, self->s);
	ASSERT_GT(pid, 0);
	snprintf(cmd, sizeof(cmd), "%s learn %s --every 5 --duration 20 --min-gain -1 --set oversample=10 > %s 2>&1 &",
		 getenv("CACHECTL"), self->cg, out_path);
	ASSERT_EQ(system(cmd), 0);
	/*
	 * Loading ml_rank with record on (the verifier, under TCG) takes
	 * 8-14 s on an idle host: wait up to a minute, for a loaded one.
	 */
	for (looks = 0; looks < 300; looks++) {
		if (!cg_read(self->cg, "memory.cache_ext", sel, sizeof(sel)) &&
		    !strncmp(sel, "ml_rank", 7))
			break;
		usleep(200000);
	}
	ASSERT_LT(looks, 300) TH_LOG("ml_rank not bound within 60 s");
	/* Then every second for 8 of its 20 seconds: still bound. */
	for (looks = 0; looks < 8; looks++) {
		if (!cg_read(self->cg, "memory.cache_ext", sel, sizeof(sel)) &&
		    !strncmp(sel, "ml_rank", 7))
			bound++;
		sleep(1);
	}
	EXPECT_EQ(wait_for_text_prefix(out_path, 30000), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	read_text(out_path, self->out, sizeof(self->out));
	TH_LOG("%s", self->out);
	EXPECT_EQ(bound, looks) TH_LOG("ml_rank bound at %d of %d looks", bound, looks);
	for (p = self->out; (p = strstr(p, "version ")); p += 8) {
		if (!strstr(p - 30 > self->out ? p - 30 : self->out, "model learned"))
			continue;
		version = strtoull(p + 8, NULL, 10);
		if (version > last && last)
			swaps++;
		last = version;
	}
	EXPECT_GE(swaps, 1) TH_LOG("the model was not replaced mid-run");
	EXPECT_EQ(trace_ejections("ml_rank"), 0);
	cg_read(self->cg, "memory.cache_ext", sel, sizeof(sel));
	EXPECT_EQ(strncmp(sel, "default", 7), 0) TH_LOG("after learn: %s", sel);
}

/*
 * A recorder stopped for two seconds behind a one-page ring buffer loses
 * events: the drops are counted and written into the log where they
 * happened, the log stays well-formed, and the trainer refuses it (over
 * 0.1% of its events lost: not the workload's) unless told to take it,
 * then sums the same drops.
 */
TEST_F_TIMEOUT(learned, trace_counts_drops, 600)
{
	unsigned long long recorded = 0, dropped = 0, logged = 0;
	char *out = self->out, summary[256] = "", *p;
	int n;

	ASSERT_EQ(drop_file_cache(self->p), 0);
	ASSERT_EQ(drop_file_cache(self->s), 0);
	ASSERT_EQ(run_traced_stalled(getenv("CACHECTL"), self->cg, self->log, 4,
				     2000, periodic_reads, &self->w, summary,
				     sizeof(summary)), 0)
		TH_LOG("%s", summary);
	n = sscanf(summary, "recorded %llu events, %llu dropped", &recorded, &dropped);
	ASSERT_EQ(n, 2) TH_LOG("%s", summary);
	TH_LOG("one-page ring buffer, recorder stopped for 2 s: %s", summary);
	EXPECT_GT(recorded, 0);
	/* Two seconds of this workload are thousands of events, even under TCG. */
	EXPECT_GT(dropped * 1000, recorded + dropped) TH_LOG("%s", summary);

	EXPECT_NE(run_cmd(out, sizeof(self->out), "%s -o %s %s", getenv("LCTRAIN"),
			  self->model, self->log), 0) TH_LOG("%s", out);
	EXPECT_NE(strstr(out, "not the workload's"), NULL) TH_LOG("%s", out);
	/*
	 * Told to take it, lctrain reads the log and sums the same drops,
	 * whether or not what survived holds an eviction to train on (the
	 * stall may have taken all of them).
	 */
	run_cmd(out, sizeof(self->out), "%s --allow-drops -o %s %s",
		getenv("LCTRAIN"), self->model, self->log);
	p = strstr(out, "log(s), ");
	ASSERT_NE(p, NULL) TH_LOG("%s", out);
	n = sscanf(p, "log(s), %llu dropped", &logged);
	EXPECT_EQ(n, 1);
	EXPECT_EQ(logged, dropped) TH_LOG("%s", out);
}

#define SHARED_PAGES	(32 * MIB)
#define SHARED_READS	4000

/* Starts a reader of @path pinned to CPU @cpu; its pid, or -1. */
static pid_t pinned_reader(const char *path, int cpu)
{
	cpu_set_t set;
	pid_t pid = fork();

	if (pid)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(EXIT_FAILURE);
	_exit(zipf_reads(path, SHARED_PAGES, SHARED_READS, 0.3, 100 + cpu) ?
	      EXIT_FAILURE : EXIT_SUCCESS);
}

/* In the cgroup: a reader on CPU 0 and one on CPU 1, at once. */
static int two_cpu_reads(const char *cgroup, void *arg)
{
	pid_t pids[2] = { pinned_reader(arg, 0), pinned_reader(arg, 1) };

	if (pids[0] < 0 || pids[1] < 0)
		return -1;
	return readers_wait(pids, 2) ? -1 : 0;
}

/*
 * Two readers on two CPUs interleave their Zipf reads of one 32 MiB file
 * in the 16 MiB cgroup, traced.  The file's state is kept per CPU: if the
 * features at eviction were one CPU's, the file's last accesses, the
 * distance from its last read and its EMA would be wrong for most
 * evictions (the other CPU's reads missing).  lctrain --check-features
 * replays the log's reads as one stream in time order, as --rows access
 * does, and counts the evictions recorded with that stream's features.
 * A read racing an eviction on the other CPU can differ (stamped before
 * the eviction, its state not yet written when the eviction merges, or
 * the reverse): for the times, measured 0-1.5% of the evictions in seven
 * runs, five of them beside two busy VMs, and 0.6-1.7% on the debug
 * kernel beside busy VMs; 10% is allowed.  The EMA is a sum of the CPUs'
 * EMAs, each decayed over its own CPU's gaps between reads, which the
 * piecewise decay does not make the stream's: the sparser the reads, the
 * lower the sum.  How sparse depends on the machine's speed, so the EMA
 * is held to what speed cannot move: its median error within 25%, where
 * a merge that lost one of the two CPUs' copies is off by about half.
 * Measured: median -0.04% to -0.12% (within 1% for 99.8-100% of the
 * evictions) at normal speed, -0.54% and -3.0% (58% and 5% within 1%)
 * on the debug kernel beside three busy VMs.  Reading one CPU's copy only
 * agreed for 22% (times) and 1.4% (EMA within 1%).
 */
TEST_F_TIMEOUT(learned, file_features_are_one_stream_of_every_cpu, 600)
{
	char *out = self->out, summary[256] = "", path[PATH_MAX], *p;
	unsigned long long evictions = 0, times = 0;
	double median = 100;
	int n;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: nothing to merge");
	scratch_path(path, sizeof(path), "shared");
	ASSERT_EQ(make_file(path, SHARED_PAGES), 0);
	ASSERT_EQ(drop_file_cache(path), 0);
	ASSERT_EQ(run_traced(getenv("CACHECTL"), self->cg, self->log, NULL, 0,
			     two_cpu_reads, path, summary, sizeof(summary)), 0)
		TH_LOG("%s", summary);
	TH_LOG("%s", summary);
	unlink(path);
	ASSERT_EQ(run_cmd(out, sizeof(self->out), "%s --check-features %s",
			  getenv("LCTRAIN"), self->log), 0) TH_LOG("%s", out);
	TH_LOG("lctrain --check-features: %s", out);
	p = strstr(out, "evictions ");
	ASSERT_NE(p, NULL) TH_LOG("%s", out);
	n = sscanf(p, "evictions %llu of files accessed 3+ times: file times as replayed %llu (%*f%%), inode_ema within 1%% %*u (%*f%%), median inode_ema error %lf",
		   &evictions, &times, &median);
	ASSERT_EQ(n, 3) TH_LOG("%s", out);
	EXPECT_GE(evictions, 500);
	EXPECT_GE(times * 100, evictions * 90);
	EXPECT_LE(median, 25.0);
	EXPECT_GE(median, -25.0);
}

TEST_HARNESS_MAIN
