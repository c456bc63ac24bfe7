// SPDX-License-Identifier: GPL-2.0
/*
 * The policy lab in the VM: each policy, run by the kernel on a Zipfian
 * workload, against cachesim running the same policy source on the same
 * sequence of reads; and cachectl advise recommending the policy that
 * wins on workloads whose best policy is known (a loop over a file larger
 * than the cgroup: MRU; Zipfian reads: a frequency policy).
 *
 * cachesim is $CACHESIM, or beside $CACHECTL's build.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
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
#define ZIPF_PAGES	(48 * MIB)
#define ZIPF_READS	30000
#define ZIPF_THETA	0.9
#define ZIPF_SEED	42

FIXTURE(sim) {
	char *cg;
	uint64_t cg_id;
	char file[PATH_MAX], trace[PATH_MAX], sim[PATH_MAX];
	struct policy p;
	char out[16384];
};

FIXTURE_SETUP(sim)
{
	const char *sim = getenv("CACHESIM"), *ctl = getenv("CACHECTL");

	if (!scratch_dir() || !ctl || !getenv("CACHE_EXT_CTL_KO"))
		SKIP(return, "run in the VM with CACHECTL and CACHE_EXT_CTL_KO set");
	setenv("CACHECTL_MODULE", getenv("CACHE_EXT_CTL_KO"), 1);
	if (sim)
		snprintf(self->sim, sizeof(self->sim), "%s", sim);
	else
		snprintf(self->sim, sizeof(self->sim), "%.*s/../cachesim/cachesim",
			 (int)(strrchr(ctl, '/') - ctl), ctl);
	ASSERT_EQ(access(self->sim, X_OK), 0) TH_LOG("no cachesim at %s", self->sim);
	self->cg = memcg_create("cache_ext_sim");
	ASSERT_NE(self->cg, NULL);
	self->cg_id = cgroup_id_of(self->cg);
	scratch_path(self->file, sizeof(self->file), "sim");
	scratch_path(self->trace, sizeof(self->trace), "sim.trace");
}

FIXTURE_TEARDOWN(sim)
{
	char out[256];

	policy_detach(&self->p);
	if (self->cg)
		cg_write(self->cg, "memory.cache_ext", "default");
	run_cmd(out, sizeof(out), "%s detach mru; %s detach lfu; %s detach s3fifo",
		getenv("CACHECTL"), getenv("CACHECTL"), getenv("CACHECTL"));
	unlink(self->file);
	unlink(self->trace);
	if (self->cg) {
		cg_destroy(self->cg);
		free(self->cg);
	}
}

/* The page cache of @cg in pages (memory.stat "file"). */
static long file_pages(const char *cg)
{
	char buf[8192], *p;

	if (cg_read(cg, "memory.stat", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "\nfile ");
	return p ? strtol(p + 6, NULL, 10) / 4096 : -1;
}

/* zipf_reads()'s sequence of pages, one per line, for cachesim. */
static int write_zipf_trace(const char *path)
{
	FILE *f = fopen(path, "w");
	struct zipf z;
	size_t i;

	if (!f || zipf_init(&z, ZIPF_PAGES, ZIPF_THETA, ZIPF_SEED))
		return -1;
	for (i = 0; i < ZIPF_READS; i++)
		fprintf(f, "%llu\n", (unsigned long long)
			((zipf_next(&z) * 2654435761ULL) % ZIPF_PAGES));
	zipf_free(&z);
	return fclose(f);
}

/* lhd reconfigures every RECONFIGURE_EVERY reads, in both. */
#define RECONFIGURE_EVERY	5000

struct zipf_run {
	const char *path;
	struct policy *p;	/* lhd: reconfigured from here */
};

static void reconfigure(void *p)
{
	policy_run(p, "lhd_reconfigure");
}

static int zipf_workload(const char *cgroup, void *arg)
{
	struct zipf_run *r = arg;

	return zipf_reads_tick(r->path, ZIPF_PAGES, ZIPF_READS, ZIPF_THETA,
			       ZIPF_SEED, r->p ? RECONFIGURE_EVERY : 0,
			       reconfigure, r->p) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* cachesim's misses for @policy (knobs after ':') at @pages, or -1. */
static long long sim_misses(FIXTURE_DATA(sim) *self, const char *policy,
			    long pages)
{
	char name[64];
	long long misses;
	char *line;

	if (run_cmd(self->out, sizeof(self->out),
		    "%s -o tsv -j 1 -e lhd_reconfigure=%d -p %s -s %ld %s",
		    self->sim, RECONFIGURE_EVERY, policy, pages, self->trace))
		return -1;
	line = strchr(self->out, '\n');
	if (!line || sscanf(line + 1, "%63s %*u %*u %lld", name, &misses) != 2)
		return -1;
	return misses;
}

/*
 * Each policy in the kernel and in cachesim, on one sequence of 30,000
 * Zipfian reads of 48 MiB in a 16 MiB cgroup (no readahead).  The
 * simulated cache is the cgroup's page cache at the end of the kernel's
 * run.  What the simulator leaves out: pages the kernel charges beside
 * the page cache (the cgroup holds a little less at some moments than at
 * the end), folios reclaim meets busy, and new folios in per-CPU LRU
 * batches, which MRU, evicting the newest, meets most.  lhd reconfigures
 * every 5,000 reads in both, from user space: its timer would tie the
 * kernel's result to the machine's speed.
 */
TEST_F(sim, policies_in_the_kernel_match_the_simulator)
{
	static const struct {
		const char *policy, *knobs, *sim;
		double tolerance;
	} cases[] = {
		{ "fifo", NULL, "fifo", 0.03 },
		{ "lfu", NULL, "lfu", 0.03 },
		{ "s3fifo", NULL, "s3fifo", 0.03 },
		{ "mglru", NULL, "mglru", 0.03 },
		{ "mru", NULL, "mru", 0.06 },
		{ "lhd", "reconfigure_ms=0", "lhd:reconfigure_ms=0", 0.03 },
	};
	unsigned int i, bad = 0;

	ASSERT_EQ(set_lru_gen(0), 0);
	ASSERT_EQ(make_file(self->file, ZIPF_PAGES), 0);
	ASSERT_EQ(write_zipf_trace(self->trace), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "16M"), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int lhd = !strcmp(cases[i].policy, "lhd");
		struct zipf_run r = { self->file, lhd ? &self->p : NULL };
		long long vm, sim;
		long pages;
		double rel;

		EXPECT_EQ(drop_file_cache(self->file), 0);
		EXPECT_EQ(trace_start(), 0);
		ASSERT_EQ(policy_attach(&self->p, cases[i].policy, NULL, self->cg_id,
					cases[i].knobs), 0);
		vm = disk_pages_read();
		EXPECT_EQ(cg_run(self->cg, zipf_workload, &r), 0);
		vm = disk_pages_read() - vm;
		pages = file_pages(self->cg);
		EXPECT_EQ(trace_ejections(cases[i].policy), 0);
		policy_detach(&self->p);
		sim = sim_misses(self, cases[i].sim, pages);
		EXPECT_GT(sim, 0) TH_LOG("cachesim: %s", self->out);
		rel = sim > 0 ? (double)(sim - vm) / vm : 1;
		TH_LOG("%-7s kernel %lld disk reads, cachesim %lld at %ld pages (%+.1f%%, tolerance %.0f%%)",
		       cases[i].policy, vm, sim, pages, rel * 100, cases[i].tolerance * 100);
		if (rel > cases[i].tolerance || -rel > cases[i].tolerance)
			bad++;
	}
	set_lru_gen(1);
	EXPECT_EQ(bad, 0);
}

/* Disk reads of the Zipfian workload under @policy (NULL: none). */
static long long zipf_disk_reads(struct __test_metadata *_metadata,
				 FIXTURE_DATA(sim) *self, const char *policy)
{
	struct zipf_run r = { self->file, NULL };
	long long n;

	EXPECT_EQ(drop_file_cache(self->file), 0);
	EXPECT_EQ(trace_start(), 0);
	if (policy)
		EXPECT_EQ(policy_attach(&self->p, policy, NULL, self->cg_id, NULL), 0);
	n = disk_pages_read();
	EXPECT_EQ(cg_run(self->cg, zipf_workload, &r), 0);
	n = disk_pages_read() - n;
	if (policy) {
		EXPECT_EQ(trace_ejections(policy), 0);
		policy_detach(&self->p);
	}
	return n;
}

/*
 * The mglru port against the kernel's MGLRU on the same reads: the
 * cache_ext paper's port lands within ~1%; reads repeat within ~1%.
 */
TEST_F(sim, mglru_port_tracks_the_kernels_mglru)
{
	long long kernel, port;

	ASSERT_EQ(set_lru_gen(1), 0);
	ASSERT_EQ(make_file(self->file, ZIPF_PAGES), 0);
	ASSERT_EQ(write_zipf_trace(self->trace), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "16M"), 0);
	kernel = zipf_disk_reads(_metadata, self, NULL);
	port = zipf_disk_reads(_metadata, self, "mglru");
	TH_LOG("%d Zipfian reads: kernel MGLRU %lld disk reads, the mglru policy %lld (%+.1f%%)",
	       ZIPF_READS, kernel, port, (double)(port - kernel) * 100 / kernel);
	EXPECT_LT(port * 100, kernel * 103);
}

struct background {
	const char *file;
	int zipf;
};

/* Reads until killed: loops over the file, or Zipfian reads. */
static int read_until_killed(const char *cgroup, void *arg)
{
	struct background *b = arg;
	uint64_t seed = 1;

	for (;;) {
		if (b->zipf ? zipf_reads(b->file, 12 * MIB, 20000, 0.99, seed++) :
			      scan_reads(b->file, 1))
			return EXIT_FAILURE;
	}
}

/* cachectl advise with @b running in the cgroup; its exit status. */
static int advise(FIXTURE_DATA(sim) *self, struct background *b,
		  const char *args)
{
	pid_t pid = cg_run_nowait(self->cg, read_until_killed, b);
	int ret;

	if (pid < 0)
		return -1;
	sleep(1);	/* the cgroup's cache fills */
	ret = run_cmd(self->out, sizeof(self->out), "%s advise %s --duration 6 %s",
		      getenv("CACHECTL"), self->cg, args);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return ret;
}

static const char *recommended(const char *out)
{
	static char name[64];
	const char *p = strstr(out, "recommended: ");

	if (!p || sscanf(p + 13, "%63s", name) != 1)
		return "";
	return name;
}

/* A loop over 12 MiB in an 8 MiB cgroup: every policy but MRU misses all. */
TEST_F(sim, advise_recommends_mru_for_a_loop_and_applies_it)
{
	struct background b = { self->file, 0 };
	char cur[64] = "";

	ASSERT_EQ(make_file(self->file, 12 * MIB), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "8M"), 0);
	ASSERT_EQ(advise(self, &b, "--apply --policies fifo,lfu,mru,s3fifo,mglru"), 0)
		TH_LOG("%s", self->out);
	TH_LOG("%s", self->out);
	EXPECT_STREQ(recommended(self->out), "mru");
	cg_read(self->cg, "memory.cache_ext", cur, sizeof(cur));
	EXPECT_EQ(strncmp(cur, "mru", 3), 0) TH_LOG("memory.cache_ext: %s", cur);
}

/* Zipfian reads of 48 MiB in 16 MiB: frequency wins over recency. */
TEST_F(sim, advise_recommends_a_frequency_policy_for_zipf)
{
	struct background b = { self->file, 1 };
	const char *r;

	ASSERT_EQ(make_file(self->file, 12 * MIB), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "4M"), 0);
	ASSERT_EQ(advise(self, &b, "--policies fifo,lfu,mru,s3fifo,mglru"), 0)
		TH_LOG("%s", self->out);
	TH_LOG("%s", self->out);
	r = recommended(self->out);
	EXPECT_TRUE(!strcmp(r, "lfu") || !strcmp(r, "s3fifo")) TH_LOG("recommended %s", r);
}

/* A policy bound before advise is bound again after it. */
TEST_F(sim, advise_keeps_the_bound_policy)
{
	struct background b = { self->file, 1 };
	char out[256], cur[64] = "";

	ASSERT_EQ(make_file(self->file, 12 * MIB), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", "4M"), 0);
	ASSERT_EQ(run_cmd(out, sizeof(out), "%s preload lfu", getenv("CACHECTL")), 0)
		TH_LOG("%s", out);
	ASSERT_EQ(cg_write(self->cg, "memory.cache_ext", "lfu"), 0);
	ASSERT_EQ(advise(self, &b, "--policies fifo,lfu"), 0) TH_LOG("%s", self->out);
	EXPECT_NE(strstr(self->out, "unbinding lfu"), NULL) TH_LOG("%s", self->out);
	cg_read(self->cg, "memory.cache_ext", cur, sizeof(cur));
	EXPECT_EQ(strncmp(cur, "lfu", 3), 0) TH_LOG("memory.cache_ext: %s", cur);
}

TEST_HARNESS_MAIN
