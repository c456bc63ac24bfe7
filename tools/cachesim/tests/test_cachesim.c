// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of cachesim: every policy of bpf/ runs unchanged; the
 * kernel semantics it models (LRU fallback, batches, batch scoring,
 * ejection for too many candidates) against references written here; the
 * trace readers; knobs; a crashing policy; fidelity to libCacheSim's
 * reference miss ratios on the CloudPhysics trace (skipped without it);
 * and its speed.  TAP; exit 1 on any failure.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tap.h"
#include "lclog.h"
#include "sim.h"

#ifndef CACHESIM_POLICY_DIR
#error "CACHESIM_POLICY_DIR: the policies built for the simulator"
#endif
#ifndef TEST_POLICY_DIR
#error "TEST_POLICY_DIR: the test policies"
#endif
#ifndef BPF_SRC_DIR
#error "BPF_SRC_DIR: bpf/ of the repository"
#endif
#ifndef SHARED_TRACE_DIR
#define SHARED_TRACE_DIR ""
#endif

static char err[512];

static const char *policy(const char *name)
{
	static char path[8][4096];
	static int next;
	char *p = path[next++ % 8];

	snprintf(p, sizeof(path[0]), "%s/%s.so", CACHESIM_POLICY_DIR, name);
	return p;
}

static const char *test_policy(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s.so", TEST_POLICY_DIR, name);
	return path;
}

/* Zipf(@s) over @n pages, @nr references, hot pages placed by @seed. */
static void make_zipf(struct sim_trace *t, unsigned int n, size_t nr,
		      double s, unsigned long long seed)
{
	sim_trace_zipf(t, n, nr, s, seed, seed);
}

static int run(const struct sim_trace *t, const char *path, const struct sim_knob *knobs,
	       unsigned int nr_knobs, unsigned long long pages, unsigned int batch,
	       struct sim_result *res)
{
	struct sim_setup s = { .policy = path, .knobs = knobs, .nr_knobs = nr_knobs };
	struct sim_config cfg = {
		.cache_pages = pages, .batch = batch, .ns_per_request = 100000,
	};

	err[0] = '\0';
	return sim_run_isolated(t, &s, &cfg, res, err, sizeof(err));
}

/* The misses of @name at @pages, batch 32; -1 on error. */
static long long misses(const struct sim_trace *t, const char *path,
			unsigned long long pages)
{
	struct sim_result res;

	if (run(t, path, NULL, 0, pages, 32, &res))
		return -1;
	return res.misses;
}

/*
 * A reference LRU or FIFO of @pages, evicting @batch of the oldest when
 * a miss finds it full, as reclaim does: the simulator's model, written
 * without its kfuncs.
 */
static unsigned long long reference(const struct sim_trace *t,
				    unsigned long long pages, unsigned int batch,
				    int lru)
{
	size_t n = t->files[0].nr_pages + 1, i;
	unsigned int *prev = calloc(n, 4), *next = calloc(n, 4);
	unsigned char *in = calloc(n, 1);
	unsigned int head = n - 1, size = 0, b;	/* node n - 1: the head */
	unsigned long long miss = 0;

	prev[head] = head;
	next[head] = head;
	for (i = 0; i < t->nr; i++) {
		unsigned int p = t->req[i].index;

		if (in[p] && !lru)
			continue;
		if (in[p]) {
			next[prev[p]] = next[p];
			prev[next[p]] = prev[p];
		} else {
			miss++;
			if (size >= pages) {
				for (b = 0; b < batch && size; b++, size--) {
					unsigned int old = next[head];

					next[head] = next[old];
					prev[next[old]] = head;
					in[old] = 0;
				}
			}
			in[p] = 1;
			size++;
		}
		prev[p] = prev[head];
		next[p] = head;
		next[prev[head]] = p;
		prev[head] = p;
	}
	free(prev);
	free(next);
	free(in);
	return miss;
}

static void test_every_policy_runs(const struct sim_trace *t)
{
	unsigned int sources = 0, ran = 0;
	struct dirent *de;
	DIR *d = opendir(BPF_SRC_DIR);

	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct sim_result res;
		char name[256];
		int ret;

		if (len < 7 || strcmp(de->d_name + len - 6, ".bpf.c"))
			continue;
		sources++;
		snprintf(name, sizeof(name), "%.*s", (int)(len - 6), de->d_name);
		ret = run(t, policy(name), NULL, 0, 500, 32, &res);
		if (check(!ret && !res.ejected && !res.errors &&
			  res.accesses == t->nr_accesses,
			  "%s runs unchanged: %llu misses, %llu errors%s%s", name,
			  (unsigned long long)res.misses,
			  (unsigned long long)res.errors,
			  ret ? ": " : "", ret ? err : ""))
			ran++;
	}
	if (d)
		closedir(d);
	check(sources >= 12 && ran == sources,
	      "all %u policies of bpf/ built and ran in the simulator", sources);
}

static void test_kernel_semantics(const struct sim_trace *t)
{
	unsigned long long ref;
	struct sim_result res;
	long long lru, noop;

	run(t, SIM_LRU, NULL, 0, 1000, 1, &res);
	ref = reference(t, 1000, 1, 1);
	check(res.misses == ref, "lru alone, batch 1, is exact LRU: %llu misses, reference %llu",
	      (unsigned long long)res.misses, ref);
	run(t, SIM_LRU, NULL, 0, 1000, 32, &res);
	ref = reference(t, 1000, 32, 1);
	check(res.misses == ref, "lru alone, batch 32: %llu misses, reference %llu",
	      (unsigned long long)res.misses, ref);
	run(t, policy("fifo"), NULL, 0, 1000, 1, &res);
	ref = reference(t, 1000, 1, 0);
	check(res.misses == ref && !res.fallback,
	      "fifo, batch 1, is exact FIFO: %llu misses, reference %llu, %llu by the fallback",
	      (unsigned long long)res.misses, ref, (unsigned long long)res.fallback);
	run(t, policy("fifo"), NULL, 0, 1000, 32, &res);
	ref = reference(t, 1000, 32, 0);
	check(res.misses == ref && res.evict_calls && res.accepted == res.requested,
	      "fifo, batch 32: %llu misses, reference %llu; %llu of %llu asked proposed",
	      (unsigned long long)res.misses, ref, (unsigned long long)res.accepted,
	      (unsigned long long)res.requested);
	/* A policy that proposes nothing leaves everything to the fallback. */
	lru = misses(t, SIM_LRU, 1000);
	noop = misses(t, policy("noop"), 1000);
	run(t, policy("noop"), NULL, 0, 1000, 32, &res);
	check(noop == lru && res.fallback && !res.accepted,
	      "noop: the kernel's LRU evicts all: %lld misses, lru %lld, fallback %llu",
	      noop, lru, (unsigned long long)res.fallback);
}

static void test_scored_and_ejection(void)
{
	struct sim_trace t;
	struct sim_result res;
	unsigned int i;
	int ret;

	/*
	 * Pages 0..99 into a cache of 64, then 99..0: batch scoring keeps
	 * the highest page numbers, whatever the list order.  The second
	 * pass hits exactly what is cached after the first.
	 */
	memset(&t, 0, sizeof(t));
	for (i = 0; i < 100; i++)
		sim_trace_add(&t, 0, 1, i, SIM_READ, 0);
	for (i = 100; i-- > 0;)
		sim_trace_add(&t, 0, 1, i, SIM_READ, 0);
	sim_trace_finish(&t);
	ret = run(&t, test_policy("lowest_index"), NULL, 0, 64, 32, &res);
	/*
	 * First pass: 100 misses; reclaims at 64 (evicts 0..31) and at 96
	 * (32..63): 64..99 cached.  Second pass: 99..64 hit, 63..0 miss.
	 */
	check(!ret && res.misses == 164 && !res.fallback,
	      "batch scoring evicts the lowest scores: %llu misses (164), %llu by the fallback",
	      (unsigned long long)res.misses, (unsigned long long)res.fallback);
	ret = run(&t, test_policy("too_many"), NULL, 0, 64, 32, &res);
	check(!ret && res.ejected && strstr(res.eject_msg, "proposed 64 folios, 32 asked for"),
	      "too many candidates eject: %s", res.eject_msg);
	ret = run(&t, test_policy("crash"), NULL, 0, 64, 32, &res);
	check(ret == -ECHILD && strstr(err, "signal 11"),
	      "a crashing policy is reported: %s", err);
	sim_trace_free(&t);
}

static void test_knobs(const struct sim_trace *t)
{
	struct sim_knob one = { "sample_per_candidate", "1" };
	struct sim_knob big = { "sample_per_candidate", "65" };
	struct sim_knob none = { "no_such_knob", "1" };
	struct sim_knob word = { "sample_per_candidate", "many" };
	struct sim_result res;
	long long dflt = misses(t, policy("lfu"), 1000);
	int ret;

	ret = run(t, policy("lfu"), &one, 1, 1000, 32, &res);
	check(!ret && res.misses != (unsigned long long)dflt,
	      "a knob changes the policy: lfu sample_per_candidate=1 %llu misses, default %lld",
	      (unsigned long long)res.misses, dflt);
	ret = run(t, policy("lfu"), &big, 1, 1000, 32, &res);
	check(ret == -EINVAL && strstr(err, "init() returned -22"),
	      "init() refusing a knob's value is an error: %s", err);
	ret = run(t, policy("lfu"), &none, 1, 1000, 32, &res);
	check(ret == -ENOENT && strstr(err, "no knob 'no_such_knob'"),
	      "an unknown knob is an error: %s", err);
	ret = run(t, policy("lfu"), &word, 1, 1000, 32, &res);
	check(ret == -EINVAL && strstr(err, "not a number"),
	      "a knob's value must fit its type: %s", err);
	{
		struct sim_knob rec = { "record", "true" };

		ret = run(t, policy("ml_rank"), &rec, 1, 1000, 32, &res);
		check(!ret, "a bool knob takes true/false as cachectl does (%s)", err);
	}
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_traces(void)
{
	char dir[] = "/tmp/cachesim-test.XXXXXX", path[256];
	struct lc_log_header hdr;
	struct lc_event ev[6];
	struct sim_trace t;
	int ret;

	if (!mkdtemp(dir)) {
		check(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/t.csv", dir);
	write_file(path, "time_us,op,offset_bytes,size_bytes\n"
			 "10,R,4096,8192\n20,W,0,512\n30,R,12288,4097\n");
	ret = sim_trace_read(path, NULL, &t, err, sizeof(err));
	check(!ret && !strcmp(t.format, "csv") && t.nr == 5 && t.nr_unique == 5 &&
	      t.req[0].index == 1 && t.req[1].index == 2 && t.req[2].op == SIM_WRITE &&
	      t.req[4].index == 4 && t.req[4].time_ns == 30000 && t.timed,
	      "csv: requests split into 4 KiB pages (%zu references, %llu pages)",
	      t.nr, (unsigned long long)t.nr_unique);
	sim_trace_free(&t);

	write_file(path, "time_us,op,offset_bytes,size_bytes\n10,X,0,1\n");
	ret = sim_trace_read(path, "csv", &t, err, sizeof(err));
	check(ret == -EINVAL && strstr(err, ":2: not time_us,R|W"),
	      "csv: a bad line is named: %s", err);

	snprintf(path, sizeof(path), "%s/t.txt", dir);
	write_file(path, "# keys\n7\nuser:42 w\n7 r\nuser:42\nuser:9\n");
	ret = sim_trace_read(path, NULL, &t, err, sizeof(err));
	check(!ret && !strcmp(t.format, "text") && t.nr == 5 && t.nr_unique == 3 &&
	      t.req[1].op == SIM_WRITE && t.req[1].file == t.req[3].file &&
	      t.req[1].index == t.req[3].index && t.req[0].file != t.req[1].file,
	      "text: numbers and names as keys, r/w (%zu references, %llu keys)",
	      t.nr, (unsigned long long)t.nr_unique);
	sim_trace_free(&t);

	write_file(path, "1 x\n");
	ret = sim_trace_read(path, "text", &t, err, sizeof(err));
	check(ret == -EINVAL && strstr(err, "expected r, w or m"), "text: bad mode: %s", err);

	write_file(path, "7 m\n7 mmap 2\n8 r\n");
	ret = sim_trace_read(path, "text", &t, err, sizeof(err));
	check(!ret && t.nr == 3 && t.req[0].op == SIM_MAPPED &&
	      t.req[1].op == SIM_MAPPED && t.req[1].tid == 2 &&
	      t.req[2].op == SIM_READ, "text: m is a use through a mapping");
	sim_trace_free(&t);

	write_file(path, "7 r 3\n8\n9 w 4000000000\n");
	ret = sim_trace_read(path, "text", &t, err, sizeof(err));
	check(!ret && t.nr == 3 && t.req[0].tid == 3 && t.req[1].tid == 0 &&
	      t.req[2].tid == 4000000000U && t.req[2].op == SIM_WRITE,
	      "text: a thread number after the mode");
	sim_trace_free(&t);
	write_file(path, "7 r 3\n8 r t2\n");
	ret = sim_trace_read(path, "text", &t, err, sizeof(err));
	check(ret == -EINVAL && strstr(err, ":2: 't2': expected a thread number"),
	      "text: a bad thread is named: %s", err);

	snprintf(path, sizeof(path), "%s/t.lclog", dir);
	lclog_header_init(&hdr);
	memset(ev, 0, sizeof(ev));
	ev[0] = (struct lc_event){ .type = LC_EV_INSERT,
				   .dev = 8, .ino = 12, .index = 5, .time_ns = 100 };
	ev[1] = (struct lc_event){ .type = LC_EV_ACCESS,
				   .dev = 8, .ino = 12, .index = 5, .time_ns = 200 };
	ev[2] = (struct lc_event){ .type = LC_EV_EVICT,
				   .dev = 8, .ino = 12, .index = 5, .time_ns = 300 };
	ev[3] = (struct lc_event){ .type = LC_EV_ACCESS,
				   .dev = 8, .ino = 13, .index = 5, .time_ns = 400 };
	ev[4] = (struct lc_event){ .type = LC_EV_MAPPED,
				   .dev = 8, .ino = 13, .index = 5, .time_ns = 500 };
	lclog_write(path, &hdr, ev, 5);
	ret = sim_trace_read(path, NULL, &t, err, sizeof(err));
	check(!ret && !strcmp(t.format, "lclog") && t.nr == 4 && t.nr_accesses == 3 &&
	      t.req[0].op == SIM_INSERT && t.req[1].op == SIM_READ &&
	      t.req[3].op == SIM_MAPPED && t.nr_files == 2 && t.nr_unique == 2,
	      "lclog: insertions, accesses and mapped uses of cachectl trace, evictions left out");
	sim_trace_free(&t);

	/*
	 * Demand insertions: one whose page is accessed next was a read's
	 * miss (one SIM_READ, at the insertion); one whose page is not was a
	 * fault's (a SIM_MAPPED).  Readahead stays SIM_INSERT.
	 */
	memset(ev, 0, sizeof(ev));
	ev[0] = (struct lc_event){ .type = LC_EV_INSERT, .flags = LC_REC_DEMAND,
				   .dev = 8, .ino = 20, .index = 1, .time_ns = 100 };
	ev[1] = (struct lc_event){ .type = LC_EV_INSERT,
				   .dev = 8, .ino = 20, .index = 2, .time_ns = 110 };
	ev[2] = (struct lc_event){ .type = LC_EV_ACCESS,
				   .dev = 8, .ino = 20, .index = 1, .time_ns = 120 };
	ev[3] = (struct lc_event){ .type = LC_EV_INSERT, .flags = LC_REC_DEMAND,
				   .dev = 8, .ino = 21, .index = 1, .time_ns = 200 };
	ev[4] = (struct lc_event){ .type = LC_EV_INSERT,
				   .dev = 8, .ino = 21, .index = 2, .time_ns = 210 };
	ev[5] = (struct lc_event){ .type = LC_EV_ACCESS,
				   .dev = 8, .ino = 21, .index = 2, .time_ns = 220 };
	lclog_write(path, &hdr, ev, 6);
	ret = sim_trace_read(path, NULL, &t, err, sizeof(err));
	check(!ret && t.nr == 5 && t.nr_accesses == 3 &&
	      t.req[0].op == SIM_READ && t.req[0].time_ns == 100 &&
	      t.req[1].op == SIM_INSERT && t.req[2].op == SIM_MAPPED &&
	      t.req[3].op == SIM_INSERT && t.req[4].op == SIM_READ,
	      "lclog: a demand insertion is a read's miss if an access follows, else a fault's (%zu references)",
	      t.nr);
	sim_trace_free(&t);

	/*
	 * Uses through a mapping are logged when the kernel saw them; moved
	 * to just after their page's previous reference, with its time, in
	 * their order.  One with no earlier reference stays.
	 */
	memset(ev, 0, sizeof(ev));
	ev[0] = (struct lc_event){ .type = LC_EV_INSERT,
				   .dev = 8, .ino = 30, .index = 1, .time_ns = 100 };
	ev[1] = (struct lc_event){ .type = LC_EV_INSERT,
				   .dev = 8, .ino = 30, .index = 2, .time_ns = 110 };
	ev[2] = (struct lc_event){ .type = LC_EV_ACCESS,
				   .dev = 8, .ino = 30, .index = 2, .time_ns = 120 };
	ev[3] = (struct lc_event){ .type = LC_EV_MAPPED,
				   .dev = 8, .ino = 30, .index = 1, .time_ns = 300 };
	ev[4] = (struct lc_event){ .type = LC_EV_MAPPED,
				   .dev = 8, .ino = 30, .index = 1, .time_ns = 400 };
	ev[5] = (struct lc_event){ .type = LC_EV_MAPPED,
				   .dev = 8, .ino = 30, .index = 9, .time_ns = 500 };
	lclog_write(path, &hdr, ev, 6);
	ret = sim_trace_read(path, NULL, &t, err, sizeof(err));
	check(!ret && t.nr == 6 && t.req[3].op == SIM_MAPPED &&
	      t.req[3].seen_late && t.req[3].time_ns == 300 && !t.req[2].seen_late,
	      "lclog: a mapped use is marked as seen late, at the time it was seen");
	ret = ret ?: sim_trace_mapped_earliest(&t);
	check(!ret && t.nr == 6 && t.nr_accesses == 4 &&
	      t.req[0].index == 1 && t.req[0].op == SIM_INSERT &&
	      t.req[1].index == 1 && t.req[1].op == SIM_MAPPED && t.req[1].time_ns == 100 &&
	      t.req[2].index == 1 && t.req[2].op == SIM_MAPPED && t.req[2].time_ns == 100 &&
	      t.req[3].index == 2 && t.req[3].op == SIM_INSERT &&
	      t.req[4].index == 2 && t.req[4].op == SIM_READ && t.req[4].time_ns == 120 &&
	      t.req[5].index == 9 && t.req[5].op == SIM_MAPPED && t.req[5].time_ns == 500,
	      "lclog: uses seen late move to just after their page's previous reference");
	sim_trace_free(&t);

	ret = sim_trace_read("zipf:100:1000:0.9:3", NULL, &t, err, sizeof(err));
	check(!ret && t.nr == 1000 && t.nr_unique <= 100 && t.nr_unique > 50 &&
	      !strcmp(t.format, "zipf"),
	      "zipf:PAGES:READS:THETA:SEED generates (%llu pages)",
	      (unsigned long long)t.nr_unique);
	sim_trace_free(&t);
	ret = sim_trace_read("zipf:100", NULL, &t, err, sizeof(err));
	check(ret == -EINVAL && strstr(err, "zipf:PAGES:READS"), "zipf: bad spec: %s", err);

	snprintf(path, sizeof(path), "%s/none", dir);
	ret = sim_trace_read(path, NULL, &t, err, sizeof(err));
	check(ret == -ENOENT && strstr(err, "No such file"), "a missing trace: %s", err);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path))
		check(0, "cleanup");
}

/* Misses of a reference on 7 page numbers in a cache of 2, batch 1. */
static long long by_hand(const char *which, const unsigned int refs[7])
{
	struct sim_trace t;
	struct sim_result res;
	unsigned int i;
	int ret;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < 7; i++)
		sim_trace_add(&t, 0, 1, refs[i], SIM_READ, 0);
	sim_trace_finish(&t);
	ret = run(&t, which, NULL, 0, 2, 1, &res);
	sim_trace_free(&t);
	return ret ? -1 : (long long)res.misses;
}

/* The references by hand, and their order on Zipf. */
/*
 * get_scan's scan threads come from its map of threads, filled as the
 * application fills the pinned map: thread 1 reads 150 hot pages, thread 2
 * scans new pages between its rounds.  With thread 2 named, the scans go
 * first and the hot pages stay; unnamed, get_scan is an LRU.
 */
static void test_tid_maps(void)
{
	struct sim_tid_map named = { .map = "get_scan_tids", .tids = { 2 }, .nr = 1 };
	struct sim_config cfg = { .cache_pages = 200, .batch = 32,
				  .ns_per_request = 100000 };
	struct sim_setup s = { .policy = policy("get_scan") };
	struct sim_result plain, with, fifo, fifo_named;
	unsigned long long x = 7, scan = 1000;
	struct sim_trace t;
	int i, j, ret;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < 50; i++) {
		for (j = 0; j < 300; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			sim_trace_add(&t, 0, 1, x % 150, SIM_READ, 0);
			t.req[t.nr - 1].tid = 1;
		}
		for (j = 0; j < 200; j++) {
			sim_trace_add(&t, 0, 1, scan++, SIM_READ, 0);
			t.req[t.nr - 1].tid = 2;
		}
	}
	sim_trace_finish(&t);
	ret = sim_run_isolated(&t, &s, &cfg, &plain, err, sizeof(err));
	s.tid_maps = &named;
	s.nr_tid_maps = 1;
	ret = ret ?: sim_run_isolated(&t, &s, &cfg, &with, err, sizeof(err));
	s.policy = policy("fifo");
	ret = ret ?: sim_run_isolated(&t, &s, &cfg, &fifo_named, err, sizeof(err));
	s.nr_tid_maps = 0;
	ret = ret ?: sim_run_isolated(&t, &s, &cfg, &fifo, err, sizeof(err));
	check(!ret && with.misses < plain.misses * 7 / 10 && with.misses >= 10150,
	      "--tids: get_scan evicts the named scan thread's pages first (%llu misses, %llu unnamed)",
	      (unsigned long long)with.misses, (unsigned long long)plain.misses);
	check(!ret && fifo_named.misses == fifo.misses,
	      "--tids: a policy without that map ignores it (fifo: %llu, %llu)",
	      (unsigned long long)fifo_named.misses, (unsigned long long)fifo.misses);
	sim_trace_free(&t);
}

/*
 * test_mapped's workload (selftests/cache_ext) in the simulator, at its
 * ratios: a hot set of 100 pages used every round, through a mapping (@op
 * SIM_MAPPED) or with reads, then 100 new pages of a stream read once;
 * 300 cached.
 */
static void mapped_trace(struct sim_trace *t, enum sim_op op)
{
	unsigned long long stream = 1000;
	int round, i;

	memset(t, 0, sizeof(*t));
	for (round = 0; round < 20; round++) {
		for (i = 0; i < 100; i++)
			sim_trace_add(t, 0, 1, i, op, 0);
		for (i = 0; i < 100; i++)
			sim_trace_add(t, 0, 1, stream++, SIM_READ, 0);
	}
	sim_trace_finish(t);
}

static void test_mapped(void)
{
	struct sim_trace mapped, read;
	struct sim_result lru, lru_read, m, r;
	const unsigned long long pages = 300, stream = 20 * 100;
	int ret;

	mapped_trace(&mapped, SIM_MAPPED);
	mapped_trace(&read, SIM_READ);
	ret = run(&mapped, "lru", NULL, 0, pages, 32, &lru);
	ret = ret ?: run(&read, "lru", NULL, 0, pages, 32, &lru_read);
	/* The hot set faults in once; the stream misses once a page. */
	check(!ret && lru.misses <= stream + 100 + 32 && lru.mapped_accesses > 0 &&
	      !lru_read.mapped_accesses,
	      "mapped: the LRU keeps a hot set used through a mapping (%llu misses, %llu bits found; %llu read)",
	      (unsigned long long)lru.misses,
	      (unsigned long long)lru.mapped_accesses,
	      (unsigned long long)lru_read.misses);
	/*
	 * fifo evicts by age what is read, but requeues at its tail a
	 * candidate reclaim kept for its mapped use (the kernel's LRU
	 * puts it back the same way): the mapped hot set stays as under the
	 * LRU, the read one goes by age.  Before the requeue a kept
	 * candidate was proposed again before its next use and went
	 * (2768 misses mapped, as read).  s3fifo gives a kept candidate in
	 * its small queue the same second chance, and keeps the mapped hot
	 * set as it keeps a read one.
	 */
	ret = run(&mapped, policy("fifo"), NULL, 0, pages, 32, &m);
	ret = ret ?: run(&read, policy("fifo"), NULL, 0, pages, 32, &r);
	check(!ret && m.mapped_kept > 0 && m.misses <= lru.misses + 32 &&
	      r.misses > m.misses + 100,
	      "mapped: fifo requeues what reclaim keeps for its mapped use (%llu misses, %llu kept; %llu read, lru %llu)",
	      (unsigned long long)m.misses, (unsigned long long)m.mapped_kept,
	      (unsigned long long)r.misses, (unsigned long long)lru.misses);
	ret = run(&mapped, policy("s3fifo"), NULL, 0, pages, 32, &m);
	ret = ret ?: run(&read, policy("s3fifo"), NULL, 0, pages, 32, &r);
	check(!ret && m.mapped_kept > 0 && m.misses <= r.misses + 32 &&
	      m.misses <= lru.misses + 32,
	      "mapped: s3fifo keeps a mapped hot set as a read one (%llu misses, %llu kept; %llu read, lru %llu)",
	      (unsigned long long)m.misses, (unsigned long long)m.mapped_kept,
	      (unsigned long long)r.misses, (unsigned long long)lru.misses);
	ret = run(&mapped, policy("lfu"), NULL, 0, pages, 32, &m);
	ret = ret ?: run(&read, policy("lfu"), NULL, 0, pages, 32, &r);
	check(!ret && m.misses <= r.misses + r.misses / 10 + 32,
	      "mapped: lfu sees mapped use as it sees reads (%llu misses, %llu read; lru %llu)",
	      (unsigned long long)m.misses, (unsigned long long)r.misses,
	      (unsigned long long)lru.misses);
	ret = run(&mapped, policy("count_events"), NULL, 0, pages, 32, &m);
	check(!ret && m.mapped_accesses == lru.mapped_accesses,
	      "mapped: a policy that proposes nothing sees the LRU's looks (%llu, %llu)",
	      (unsigned long long)m.mapped_accesses,
	      (unsigned long long)lru.mapped_accesses);
	sim_trace_free(&mapped);
	sim_trace_free(&read);
}

/*
 * make run's periodic workload in small: six rounds of a 256-page file P
 * read whole, then the next 1,024 pages of a stream, 1,024 pages cached,
 * every read miss bringing in 128 pages (-a 128; with 32, lfu without
 * the grace loses nothing at this size, and 0.9% more misses at make
 * run's).  The LRU misses every
 * page and wastes no readahead; lfu keeps P, and with its grace for
 * prefetched pages wastes none either.  Without it (prefetch_grace=0)
 * the pages readahead brought in have the lowest count, go first and are
 * read again: the bug of make run's first lfu (1.14x the kernel's reads).
 */
static void test_readahead(void)
{
	struct sim_setup lru = { .policy = "lru" };
	struct sim_knob no_grace = { "prefetch_grace", "0" };
	struct sim_config cfg = {
		.cache_pages = 1024, .batch = 32, .ns_per_request = 100000,
		.readahead = 128,
	};
	struct sim_result l, g, ng, plain;
	struct sim_setup lfu = { .policy = policy("lfu") };
	struct sim_trace t;
	int round, i, ret;

	memset(&t, 0, sizeof(t));
	for (round = 0; round < 6; round++) {
		for (i = 0; i < 256; i++)
			sim_trace_add(&t, 0, 1, i, SIM_READ, 0);
		for (i = 0; i < 1024; i++)
			sim_trace_add(&t, 0, 2, round * 1024 + i, SIM_READ, 0);
	}
	sim_trace_finish(&t);

	ret = sim_run_isolated(&t, &lru, &cfg, &l, err, sizeof(err));
	ret = ret ?: sim_run_isolated(&t, &lfu, &cfg, &g, err, sizeof(err));
	lfu.knobs = &no_grace;
	lfu.nr_knobs = 1;
	ret = ret ?: sim_run_isolated(&t, &lfu, &cfg, &ng, err, sizeof(err));
	check(!ret && l.misses == t.nr_accesses && l.prefetch_evicted == 0,
	      "readahead: the LRU misses every page and wastes no readahead (%llu misses of %llu, %llu wasted)",
	      (unsigned long long)l.misses, (unsigned long long)t.nr_accesses,
	      (unsigned long long)l.prefetch_evicted);
	check(!ret && g.misses < l.misses && g.prefetch_evicted <= 32,
	      "readahead: lfu keeps P and wastes no readahead (%llu misses, lru %llu, %llu wasted)",
	      (unsigned long long)g.misses, (unsigned long long)l.misses,
	      (unsigned long long)g.prefetch_evicted);
	check(!ret && ng.misses > g.misses && ng.prefetch_evicted > 10 * (g.prefetch_evicted + 1),
	      "readahead: lfu without the grace evicts prefetched pages first (%llu misses, %llu wasted; with it %llu, %llu)",
	      (unsigned long long)ng.misses,
	      (unsigned long long)ng.prefetch_evicted,
	      (unsigned long long)g.misses,
	      (unsigned long long)g.prefetch_evicted);
	/* Without -a nothing is prefetched, and the grace changes nothing. */
	cfg.readahead = 0;
	ret = sim_run_isolated(&t, &lfu, &cfg, &plain, err, sizeof(err));
	lfu.nr_knobs = 0;
	ret = ret ?: sim_run_isolated(&t, &lfu, &cfg, &g, err, sizeof(err));
	check(!ret && plain.misses == g.misses && !g.prefetch_evicted,
	      "readahead: off, lfu is the same with and without the grace (%llu, %llu misses)",
	      (unsigned long long)plain.misses, (unsigned long long)g.misses);
	sim_trace_free(&t);
}

static void test_oracles(const struct sim_trace *zipf)
{
	/* 1 2 3 (2 goes: used last) 1 4 (3 goes: never again) 1 2 */
	static const unsigned int min_refs[7] = { 1, 2, 3, 1, 4, 1, 2 };
	/*
	 * lfu_ideal remembers the uses of evicted pages: 1 1 2 3 (evicts 2,
	 * one use) 2 (evicts 3; 2 has two uses now) 4 evicts 1 (two uses as
	 * 2 has, less recent), and the last 2 hits.  An LFU that forgot 2's
	 * first use would evict 2 for 4 and miss it: 5 misses of 7, not 6.
	 */
	static const unsigned int lfu_refs[7] = { 1, 1, 2, 3, 2, 4, 2 };
	long long belady, oracle, ideal, lfu, lru, n;

	n = by_hand(SIM_BELADY, min_refs);
	check(n == 5, "belady by hand: 5 misses of 7, got %lld", n);
	n = by_hand(SIM_LFU_IDEAL, lfu_refs);
	check(n == 5, "lfu_ideal by hand: 5 misses of 7, got %lld", n);

	belady = misses(zipf, SIM_BELADY, 1000);
	oracle = misses(zipf, SIM_ORACLE, 1000);
	ideal = misses(zipf, SIM_LFU_IDEAL, 1000);
	lfu = misses(zipf, policy("lfu"), 1000);
	lru = misses(zipf, SIM_LRU, 1000);
	check(zipf->nr_unique <= (unsigned long long)belady && belady < oracle &&
	      oracle < ideal && ideal < lfu && ideal < lru,
	      "distinct pages %llu <= belady %lld < frequency oracle %lld < lfu_ideal %lld < lfu %lld, lru %lld",
	      (unsigned long long)zipf->nr_unique, belady, oracle, ideal, lfu, lru);
}

/* The tracer in the simulator records the log lctrain reads. */
static void test_record(const struct sim_trace *zipf)
{
	char path[] = "/tmp/cachesim-record.XXXXXX";
	struct sim_setup s = { .policy = policy("tracer"), .record = path };
	struct sim_config cfg = { .cache_pages = 1000, .batch = 32, .ns_per_request = 100000 };
	struct lc_events ev = { 0 };
	struct sim_result res;
	size_t i, inserts = 0, accesses = 0, evictions = 0;
	int fd = mkstemp(path), ret;

	if (fd < 0) {
		check(0, "mkstemp: %s", strerror(errno));
		return;
	}
	close(fd);
	ret = sim_run_isolated(zipf, &s, &cfg, &res, err, sizeof(err));
	if (!ret)
		ret = lclog_read(path, &ev, err, sizeof(err));
	for (i = 0; !ret && i < ev.nr; i++) {
		inserts += ev.ev[i].type == LC_EV_INSERT;
		accesses += ev.ev[i].type == LC_EV_ACCESS;
		evictions += ev.ev[i].type == LC_EV_EVICT;
	}
	check(!ret && inserts == res.misses && accesses == res.accesses &&
	      evictions + 1000 >= res.misses && ev.ev[ev.nr - 1].time_ns > 0,
	      "--record: the tracer's log, %zu insertions, %zu accesses, %zu evictions%s%s",
	      inserts, accesses, evictions, ret ? ": " : "", ret ? err : "");
	lc_events_free(&ev);
	unlink(path);
}

/* A model that keeps the most recently used (idle time), with @auc. */
static const char *write_model(const char *path, const char *auc)
{
	static const char *const names[] = {
		"page_dt1", "page_dt2", "inode_dt1", "inode_dt2", "distance",
		"file_pages", "page_ema", "inode_ema", "idle",
	};
	FILE *f = fopen(path, "w");
	unsigned int i;

	if (!f)
		return NULL;
	fprintf(f, "{\"features\":[");
	for (i = 0; i < 9; i++)
		fprintf(f, "%s{\"name\":\"%s\",%s}", i ? "," : "", names[i],
			i == 8 ? "\"n_bins\":3,\"bin_edges\":[100000000,1000000000],"
				 "\"weights_int\":[9,3,0]" :
				 "\"n_bins\":1,\"bin_edges\":[],\"weights_int\":[0]");
	fprintf(f, "],\"bias_int\":0,\"weight_scale\":1%s%s}", auc ? ",\"holdout_auc\":" : "",
		auc ? auc : "");
	fclose(f);
	return path;
}

/* ml_rank scores only with a model that has signal (min_auc). */
static void test_model_signal(const struct sim_trace *t)
{
	char weak[] = "/tmp/cachesim-weak.XXXXXX", none[] = "/tmp/cachesim-noauc.XXXXXX";
	struct sim_model_file mw = { "learned", weak }, mn = { "learned", none };
	struct sim_knob any = { "min_auc", "0" };
	struct sim_setup s = { .policy = policy("ml_rank"), .models = &mw, .nr_models = 1 };
	struct sim_config cfg = { .cache_pages = 1000, .batch = 32, .ns_per_request = 100000 };
	struct sim_result weak_res, any_res, none_res;
	long long fifo = misses(t, policy("fifo"), 1000);
	int a, b, c;

	close(mkstemp(weak));
	close(mkstemp(none));
	write_model(weak, "0.51");
	write_model(none, NULL);
	a = sim_run_isolated(t, &s, &cfg, &weak_res, err, sizeof(err));
	s.knobs = &any;
	s.nr_knobs = 1;
	b = sim_run_isolated(t, &s, &cfg, &any_res, err, sizeof(err));
	s.knobs = NULL;
	s.nr_knobs = 0;
	s.models = &mn;
	c = sim_run_isolated(t, &s, &cfg, &none_res, err, sizeof(err));
	check(!a && (long long)weak_res.misses == fifo,
	      "ml_rank with a model of AUC 0.51 evicts as fifo does: %llu misses, fifo %lld",
	      (unsigned long long)weak_res.misses, fifo);
	check(!b && !c && (long long)any_res.misses != fifo && none_res.misses == any_res.misses,
	      "it scores with min_auc=0 (%llu misses) and with a model of no AUC (%llu)",
	      (unsigned long long)any_res.misses, (unsigned long long)none_res.misses);
	unlink(weak);
	unlink(none);
}

/*
 * lfu's sample follows the request: reclaim asking 8 folios at a time,
 * lfu looks at sample_per_candidate (20) folios per folio asked, and more
 * only past a run of folios used more than once.  A full batch's sample
 * on every call, as lfu took before, is 640 / 8 = 80 per folio asked;
 * the check allows half of that.
 */
static void test_lfu_sample(const struct sim_trace *t)
{
	struct sim_result res;
	int ret;

	ret = run(t, policy("lfu"), NULL, 0, 32768 * 30 / 100, 8, &res);
	check(!ret && res.requested && res.proposed < 40 * res.requested,
	      "lfu asked 8 at a time looks at 20 folios per folio asked, not a batch's 640: %.1f",
	      res.requested ? (double)res.proposed / res.requested : 0.0);
}

/* lhd and the mglru port against the algorithms they follow. */
static void test_algorithms(void)
{
	struct sim_trace t;
	long long lru, lfu, lhd, s3;

	make_zipf(&t, 32768, 300000, 0.99, 1);
	lru = misses(&t, SIM_LRU, 32768 * 30 / 100);
	lfu = misses(&t, policy("lfu"), 32768 * 30 / 100);
	s3 = misses(&t, policy("s3fifo"), 32768 * 30 / 100);
	lhd = misses(&t, policy("lhd"), 32768 * 30 / 100);
	/* On IRM accesses frequency is what counts: LHD is LFU-like. */
	check(lhd * 100 < lru * 97 && lhd * 100 < lfu * 106,
	      "lhd on Zipf(0.99), 30%% cached: %lld misses, lru %lld, lfu %lld, s3fifo %lld",
	      lhd, lru, lfu, s3);
	test_lfu_sample(&t);
	sim_trace_free(&t);
}

struct golden {
	const char *policy;
	const char *algorithm;
	double ref[4];		/* ../shared/traces/README.md */
	double tolerance;	/* relative */
};

/*
 * Tolerances: FIFO and LRU are the same algorithm with reclaim's batch
 * of 32 (the cache fills to its size, then loses 32): 0.5%.  S3-FIFO:
 * the ghost FIFO is an LRU hash of the same size, 2%.  lfu evicts
 * folios used at most once first, oldest first, else the lowest counts of
 * a sample from the head of a list it rotates, which on this trace evicts
 * old frequent pages that exact LFU keeps: up to 5% fewer misses.  lhd: LHD's densities are learned
 * online and libCacheSim's LHD reconfigures every 2^20 accesses, once on
 * this trace: ours may be better, at most 1% worse.
 */
static const struct golden goldens[] = {
	{ SIM_LRU, "LRU", { 0.8969, 0.8871, 0.8741, 0.7417 }, 0.005 },
	{ "fifo", "FIFO", { 0.8977, 0.8873, 0.8729, 0.7155 }, 0.005 },
	{ "s3fifo", "S3-FIFO", { 0.8932, 0.8654, 0.8110, 0.6988 }, 0.02 },
	{ "lfu", "LFU", { 0.9366, 0.8823, 0.8154, 0.7116 }, 0.05 },
	{ "lhd", "LHD", { 0.8969, 0.8868, 0.8655, 0.7184 }, 0.01 },
};

static const char *shared_trace(char *buf, size_t len)
{
	const char *dir = getenv("TRACE_DIR");

	snprintf(buf, len, "%s/cloudphysics-sample.csv",
		 dir && *dir ? dir : SHARED_TRACE_DIR);
	return access(buf, R_OK) ? NULL : buf;
}

static void test_fidelity(void)
{
	static const unsigned long long sizes[4] = { 2692, 13461, 26921, 67303 };
	char buf[4096];
	const char *path = shared_trace(buf, sizeof(buf));
	struct sim_trace t;
	unsigned int g, z;

	if (!path || sim_trace_read(path, "csv", &t, err, sizeof(err))) {
		for (g = 0; g < sizeof(goldens) / sizeof(goldens[0]); g++)
			printf("ok %d - %s vs libCacheSim %s # SKIP no CloudPhysics trace (set TRACE_DIR)\n",
			       ++tap_nr, goldens[g].policy, goldens[g].algorithm);
		return;
	}
	for (g = 0; g < sizeof(goldens) / sizeof(goldens[0]); g++) {
		const struct golden *gd = &goldens[g];
		const char *p = strcmp(gd->policy, SIM_LRU) ? policy(gd->policy) : SIM_LRU;
		char line[256] = "";
		int ok = 1;

		for (z = 0; z < 4; z++) {
			struct sim_result res;
			double mr, rel;
			int lower_ok = !strcmp(gd->policy, "lfu") || !strcmp(gd->policy, "lhd");

			if (run(&t, p, NULL, 0, sizes[z], 32, &res)) {
				ok = 0;
				continue;
			}
			mr = (double)res.misses / res.accesses;
			rel = (mr - gd->ref[z]) / gd->ref[z];
			if (rel > gd->tolerance || (!lower_ok && -rel > gd->tolerance))
				ok = 0;
			snprintf(line + strlen(line), sizeof(line) - strlen(line),
				 " %.4f/%.4f", mr, gd->ref[z]);
		}
		check(ok, "%s vs libCacheSim %s within %.1f%% (sim/ref):%s", gd->policy,
		      gd->algorithm, gd->tolerance * 100, line);
	}
	sim_trace_free(&t);
}

/*
 * Accesses per CPU second: a measure of work, less of the machine's load
 * than wall time, but not free of it: 1.9-2.0 million for mru beside a
 * make check VM on the other core (2026-12-02), where the floor of 2 made
 * the test fail.  The floor catches a slowdown by half, not noise.
 */
static void test_speed(void)
{
	static const char *const fifo_like[] = { "fifo", "mru", SIM_LRU };
	struct sim_trace t;
	unsigned int i;

	make_zipf(&t, 1 << 20, 2000000, 0.8, 3);
	for (i = 0; i < 3; i++) {
		const char *p = strcmp(fifo_like[i], SIM_LRU) ? policy(fifo_like[i]) : SIM_LRU;
		struct sim_result res;
		double rate = 0;

		if (!run(&t, p, NULL, 0, 1 << 18, 32, &res) && res.seconds > 0)
			rate = res.accesses / res.seconds;
		check(rate >= 1e6, "%s: %.1f million accesses per CPU second (>= 1)",
		      fifo_like[i], rate / 1e6);
	}
	sim_trace_free(&t);
}

int main(void)
{
	struct sim_trace zipf;

	make_zipf(&zipf, 4096, 40000, 0.9, 7);
	test_every_policy_runs(&zipf);
	test_kernel_semantics(&zipf);
	test_scored_and_ejection();
	test_knobs(&zipf);
	test_traces();
	test_tid_maps();
	test_mapped();
	test_readahead();
	test_oracles(&zipf);
	test_record(&zipf);
	test_model_signal(&zipf);
	test_algorithms();
	test_fidelity();
	test_speed();
	sim_trace_free(&zipf);
	return tap_done();
}
