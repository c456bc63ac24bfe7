// SPDX-License-Identifier: GPL-2.0
/*
 * The policy lab in the VM: the mglru port against the kernel's MGLRU,
 * and cachectl advise recommending the policy that wins on workloads
 * whose best policy is known (a loop over a file larger than the cgroup:
 * MRU; Zipfian reads: a frequency policy).  Each policy against the
 * simulator: test_fidelity.
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
	char file[PATH_MAX], sim[PATH_MAX];
	struct policy p;
	char out[16384];
};

FIXTURE_SETUP(sim)
{
	if (!scratch_dir() || !getenv("CACHECTL") || !getenv("CACHE_EXT_CTL_KO"))
		SKIP(return, "run in the VM with CACHECTL and CACHE_EXT_CTL_KO set");
	setenv("CACHECTL_MODULE", getenv("CACHE_EXT_CTL_KO"), 1);
	ASSERT_EQ(cachesim_path(self->sim, sizeof(self->sim)), 0)
		TH_LOG("no cachesim at %s", self->sim);
	self->cg = memcg_create("cache_ext_sim");
	ASSERT_NE(self->cg, NULL);
	self->cg_id = cgroup_id_of(self->cg);
	scratch_path(self->file, sizeof(self->file), "sim");
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
	if (self->cg) {
		cg_destroy(self->cg);
		free(self->cg);
	}
}

static int zipf_workload(const char *cgroup, void *arg)
{
	return zipf_reads(arg, ZIPF_PAGES, ZIPF_READS, ZIPF_THETA, ZIPF_SEED) ?
	       EXIT_FAILURE : EXIT_SUCCESS;
}

/* Disk reads of the Zipfian workload under @policy (NULL: none). */
static long long zipf_disk_reads(struct __test_metadata *_metadata,
				 FIXTURE_DATA(sim) *self, const char *policy)
{
	long long n;

	EXPECT_EQ(drop_file_cache(self->file), 0);
	EXPECT_EQ(trace_start(), 0);
	if (policy)
		EXPECT_EQ(policy_attach(&self->p, policy, NULL, self->cg_id, NULL), 0);
	n = disk_pages_read();
	EXPECT_EQ(cg_run(self->cg, zipf_workload, self->file), 0);
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
