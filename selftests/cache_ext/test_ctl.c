// SPDX-License-Identifier: GPL-2.0
/*
 * The companion module cache_ext_ctl: sysfs listing, states, counters and
 * kill; debugfs latency histograms that count what the tracepoint saw;
 * unloading and reloading with a policy bound.  The module is loaded from
 * $CACHE_EXT_CTL_KO.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "fifo.skel.h"
#include "model_score.skel.h"
#include "tcp_ca.skel.h"
#include "progs/model_score.h"
#include "cache_ext_nl.h"
#include "cache_ext_suite.h"

#define SYSFS		"/sys/kernel/cache_ext"
#define DEBUGFS		"/sys/kernel/debug/cache_ext"
#define FILE_PAGES	4096
#define MEMCG_MAX	"8M"

/* Read a small file into @buf; -errno on failure. */
static int read_file(const char *path, char *buf, size_t len)
{
	return read_text(path, buf, len) < 0 ? -errno : 0;
}

/* Wait up to 2 s for @path to read exactly @want. */
static int wait_for(const char *path, const char *want)
{
	return wait_for_text(path, want, 2000);
}

static int read_file_loop(const char *cgroup, void *path)
{
	int i;

	for (i = 0; i < 2; i++)
		if (read_and_verify(path))
			return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

FIXTURE(ctl) {
	char *cg;
	uint64_t cg_id;
	struct fifo *skel;
	struct bpf_link *link;
	char file[PATH_MAX];
	char policy_dir[128];
};

FIXTURE_SETUP(ctl)
{
	char sel[PATH_MAX];

	if (!scratch_dir() || !getenv("CACHE_EXT_CTL_KO"))
		SKIP(return, "run in the VM with CACHE_EXT_CTL_KO set");
	ASSERT_EQ(ctl_module_load(), 0);
	ASSERT_EQ(trace_start(), 0);

	self->cg = memcg_create("cache_ext_ctl");
	ASSERT_NE(self->cg, NULL);
	ASSERT_EQ(cg_write(self->cg, "memory.max", MEMCG_MAX), 0);
	self->cg_id = cgroup_id_of(self->cg);
	scratch_path(self->file, sizeof(self->file), "ctl");
	ASSERT_EQ(make_file(self->file, FILE_PAGES), 0);

	self->skel = fifo__open();
	ASSERT_NE(self->skel, NULL);
	ASSERT_EQ(fifo__load(self->skel), 0);
	self->link = bpf_map__attach_struct_ops(self->skel->maps.fifo);
	ASSERT_NE(self->link, NULL);
	snprintf(self->policy_dir, sizeof(self->policy_dir),
		 SYSFS "/policies/fifo");
	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", self->cg);
	ASSERT_EQ(write_str(sel, "fifo"), 0);
}

FIXTURE_TEARDOWN(ctl)
{
	bpf_link__destroy(self->link);
	fifo__destroy(self->skel);
	unlink(self->file);
	if (self->cg) {
		cg_destroy(self->cg);
		free(self->cg);
	}
}

static void path_of(char *buf, const char *dir, const char *file)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, file);
}

/* The listing, the per-policy directory and its counters. */
TEST_F(ctl, sysfs_shows_policy_and_binding)
{
	char path[PATH_MAX], want[64], buf[1024];
	long calls;

	EXPECT_EQ(wait_for(SYSFS "/available_policies", "fifo\n"), 0);
	snprintf(want, sizeof(want), "%llu fifo\n",
		 (unsigned long long)self->cg_id);
	EXPECT_EQ(wait_for(SYSFS "/bindings", want), 0);
	path_of(path, self->policy_dir, "state");
	EXPECT_EQ(wait_for(path, "active\n"), 0);
	path_of(path, self->policy_dir, "cgroups");
	snprintf(want, sizeof(want), "%llu\n", (unsigned long long)self->cg_id);
	EXPECT_EQ(wait_for(path, want), 0);

	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);
	path_of(path, self->policy_dir, "stats");
	ASSERT_EQ(read_file(path, buf, sizeof(buf)), 0);
	TH_LOG("%s", buf);
	calls = atol(strstr(buf, "evict_calls ") + strlen("evict_calls "));
	EXPECT_GT(calls, 0);
	EXPECT_EQ(calls, trace_count("cache_ext_evict:", "cgroup=", NULL));
	EXPECT_GT(atol(strstr(buf, "\ntracked ") + strlen("\ntracked ")), 0);
}

/* The histogram counts exactly the evict_folios() calls traced. */
TEST_F(ctl, latency_histogram_counts_calls)
{
	char path[PATH_MAX], buf[4096], id[32], *total;

	snprintf(path, sizeof(path), DEBUGFS "/%llu/latency",
		 (unsigned long long)self->cg_id);
	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);
	ASSERT_EQ(read_file(path, buf, sizeof(buf)), 0);
	TH_LOG("%s", buf);
	total = strstr(buf, "# total ");
	ASSERT_NE(total, NULL);
	snprintf(id, sizeof(id), "cgroup=%llu ", (unsigned long long)self->cg_id);
	EXPECT_GT(atol(total + 8), 0);
	EXPECT_EQ(atol(total + 8), trace_count("cache_ext_evict:", id, NULL));

	/* Writing resets. */
	ASSERT_EQ(write_str(path, "0"), 0);
	ASSERT_EQ(read_file(path, buf, sizeof(buf)), 0);
	EXPECT_NE(strstr(buf, "# total 0\n"), NULL);
}

/* How many lines of the kernel log contain @what? */
static int dmesg_count(const char *what)
{
	char line[512];
	int found = 0;
	FILE *f = popen("dmesg", "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		found += !!strstr(line, what);
	pclose(f);
	return found;
}

/* Wait up to 2 s for @path to exist (@exist) or not. */
static int wait_exist(const char *path, int exist)
{
	int i;

	for (i = 0; i < 200; i++) {
		if ((access(path, F_OK) == 0) == exist)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/*
 * Rebinding a cgroup as fast as it can be written: every binding gets its
 * histogram directory (the old one is gone first, so the names never
 * collide), and the last one counts.
 */
TEST_F(ctl, fast_rebind_keeps_histograms)
{
	char sel[PATH_MAX], dir[128], path[PATH_MAX], buf[4096];
	int i, logged;

	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", self->cg);
	snprintf(dir, sizeof(dir), DEBUGFS "/%llu",
		 (unsigned long long)self->cg_id);
	path_of(path, dir, "latency");
	logged = dmesg_count("already present");
	ASSERT_GE(logged, 0);
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(write_str(sel, "default"), 0);
		ASSERT_EQ(write_str(sel, "fifo"), 0);
	}
	EXPECT_EQ(dmesg_count("already present"), logged);
	ASSERT_EQ(wait_exist(path, 1), 0);

	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);
	ASSERT_EQ(read_file(path, buf, sizeof(buf)), 0);
	EXPECT_EQ(strstr(buf, "# total 0\n"), NULL) TH_LOG("%s", buf);

	ASSERT_EQ(write_str(sel, "default"), 0);
	EXPECT_EQ(wait_exist(dir, 0), 0);
	ASSERT_EQ(write_str(sel, "fifo"), 0);
	EXPECT_EQ(wait_exist(path, 1), 0);
}

/* kill ejects, once; the cgroup is back on the kernel's LRU. */
TEST_F(ctl, kill_ejects)
{
	char path[PATH_MAX];

	path_of(path, self->policy_dir, "state");
	ASSERT_EQ(wait_for(path, "active\n"), 0);
	path_of(path, self->policy_dir, "kill");
	EXPECT_EQ(write_str(path, "0"), -EINVAL);
	EXPECT_EQ(write_str(path, "banana"), -EINVAL);
	/* kstrtobool took these for "yes"; only "1" kills. */
	EXPECT_EQ(write_str(path, "18446744073709551616"), -EINVAL);
	EXPECT_EQ(write_str(path, "yes please"), -EINVAL);
	EXPECT_EQ(write_str(path, "on fire"), -EINVAL);
	EXPECT_EQ(write_str(path, "y"), -EINVAL);
	EXPECT_EQ(write_str(path, "2"), -EINVAL);
	EXPECT_EQ(write_str(path, "1x"), -EINVAL);
	path_of(path, self->policy_dir, "state");
	EXPECT_EQ(wait_for(path, "active\n"), 0);
	path_of(path, self->policy_dir, "kill");
	ASSERT_EQ(write_str(path, "1\n"), 0);
	EXPECT_EQ(write_str(path, "1"), -EALREADY);

	path_of(path, self->policy_dir, "state");
	EXPECT_EQ(wait_for(path, "ejected: killed by an administrator\n"), 0);
	snprintf(path, sizeof(path), "%s/memory.cache_ext", self->cg);
	EXPECT_EQ(wait_for(path, "default\n"), 0);
	EXPECT_EQ(wait_for(SYSFS "/available_policies", "\n"), 0);
	EXPECT_EQ(trace_count("cache_ext_eject:", "policy=fifo ",
			      "(killed by an administrator)", NULL), 1);
	/* Ejected: its own errno, and the log says how to recover. */
	snprintf(path, sizeof(path), "%s/memory.cache_ext", self->cg);
	EXPECT_EQ(write_str(path, "fifo"), -ESHUTDOWN);
	EXPECT_EQ(kmsg_contains("cache_ext: policy fifo was ejected (killed by an administrator) "
				"and binds no cgroup"), 1);
}

/*
 * The cgroup's page cache as its readers see it: a 1 MiB file read twice
 * is 256 misses and 256 hits; what reclaim evicts and is read again is a
 * refault.  A few metadata blocks may be read into the cgroup too.
 */
TEST_F(ctl, effect_counts_hits_misses_refaults)
{
	long long acc, miss, refaults, evicted;
	char file[PATH_MAX];
	int ret;

	scratch_path(file, sizeof(file), "effect");
	ASSERT_EQ(make_file(file, 256), 0);
	ASSERT_EQ(cg_run(self->cg, cg_read_file_twice, file), 0);
	acc = binding_stat(self->cg_id, "accesses ");
	miss = binding_stat(self->cg_id, "misses ");
	TH_LOG("two reads of 256 pages: %lld accesses, %lld misses", acc, miss);
	EXPECT_GE(miss, 256);
	EXPECT_LE(miss, 256 + 16);
	EXPECT_GE(acc, 512);
	EXPECT_LE(acc, 512 + 16);
	EXPECT_EQ(binding_stat(self->cg_id, "refaults "), 0);

	/*
	 * Reclaim half: it evicts through the policy and leaves shadow
	 * entries.  (Emptying the cgroup would let its shadow-node shrinker
	 * drop them too: it keeps shadows in proportion to what is cached.)
	 */
	ret = cg_write(self->cg, "memory.reclaim", "512K");
	ASSERT_TRUE(ret == 0 || ret == -EAGAIN) TH_LOG("memory.reclaim: %d", ret);
	evicted = 256 - cached_pages(file);
	ASSERT_GT(evicted, 64) TH_LOG("reclaim evicted %lld of 256", evicted);
	ASSERT_EQ(cg_run(self->cg, cg_read_file_once, file), 0);
	refaults = binding_stat(self->cg_id, "refaults ");
	TH_LOG("%lld evicted, read again: %lld refaults, %lld more misses",
	       evicted, refaults, binding_stat(self->cg_id, "misses ") - miss);
	EXPECT_GE(refaults, evicted * 9 / 10);
	EXPECT_LE(refaults, binding_stat(self->cg_id, "misses ") - miss);
	unlink(file);
}

/* Unload with a policy bound and used; reload: state is found again. */
TEST_F(ctl, unload_reload_while_bound)
{
	char path[PATH_MAX], want[64];

	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);
	ASSERT_EQ(ctl_module_unload(), 0);
	EXPECT_NE(access(SYSFS, F_OK), 0);
	/* The policy keeps working without the module. */
	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);

	ASSERT_EQ(ctl_module_load(), 0);
	path_of(path, self->policy_dir, "state");
	EXPECT_EQ(wait_for(path, "active\n"), 0);
	snprintf(want, sizeof(want), "%llu fifo\n",
		 (unsigned long long)self->cg_id);
	EXPECT_EQ(wait_for(SYSFS "/bindings", want), 0);
	snprintf(path, sizeof(path), DEBUGFS "/%llu/latency",
		 (unsigned long long)self->cg_id);
	EXPECT_EQ(access(path, R_OK), 0);
}

#define MODELS SYSFS "/models"

/*
 * Hand-checkable: three features with bins, the other six of the nine
 * with one bin of weight 0.
 */
static const char test_model[] =
	"# the nine LearnedCache features\n"
	"name test_model\n"
	"bias -100\n"
	"threshold 5\n"
	"weight_scale 1000\n"
	"feature page_dt1 3 edges 10 20 weights -5 1 7\n"
	"feature page_dt2 2 edges 0 weights 11 13   # trailing comment\n"
	"feature inode_dt1 4 edges 1 10 100 weights 1 2 3 4\n"
	"feature inode_dt2 1 edges weights 0\n"
	"feature distance 1 edges weights 0\n"
	"feature file_pages 1 edges weights 0\n"
	"feature page_ema 1 edges weights 0\n"
	"feature inode_ema 1 edges weights 0\n"
	"feature idle 1 edges weights 0\n";

/* The logit the kfunc must return for @x, computed here by hand. */
static long long expected_logit(const long long *x, long long bias)
{
	long long l = bias;

	l += x[0] < 10 ? -5 : x[0] < 20 ? 1 : 7;
	l += x[1] < 0 ? 11 : 13;
	l += x[2] < 1 ? 1 : x[2] < 10 ? 2 : x[2] < 100 ? 3 : 4;
	return l;
}

static int run_score(struct model_score *skel, long long f0, long long f1,
		     long long f2, struct model_score_args *args)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args,
		    .ctx_size_in = sizeof(*args));

	memset(args, 0, sizeof(*args));
	args->features[0] = f0;
	args->features[1] = f1;
	args->features[2] = f2;
	return bpf_prog_test_run_opts(bpf_program__fd(skel->progs.score),
				      &opts);
}

static long model_version(void)
{
	char buf[512], *v;

	if (read_file(MODELS "/test_model/summary", buf, sizeof(buf)))
		return -1;
	v = strstr(buf, "version ");
	return v ? atol(v + 8) : -1;
}

/* Upload, read back, score by hand and by kfunc; replace; unload. */
TEST_F(ctl, model_roundtrip_and_score)
{
	struct model_score_args a;
	struct model_score *skel;
	char buf[4096];
	long version;

	ASSERT_EQ(write_str(MODELS "/load", test_model), 0);
	ASSERT_EQ(read_file(MODELS "/test_model/summary", buf, sizeof(buf)), 0);
	TH_LOG("%s", buf);
	EXPECT_NE(strstr(buf, "features 9\nbias -100\nthreshold 5\nweight_scale 1000\n"), NULL);
	version = model_version();
	EXPECT_GT(version, 0);
	ASSERT_EQ(read_file(DEBUGFS "/models", buf, sizeof(buf)), 0);
	EXPECT_NE(strstr(buf, "feature page_dt1 3 edges 10 20 weights -5 1 7\n"
			      "feature page_dt2 2 edges 0 weights 11 13\n"
			      "feature inode_dt1 4 edges 1 10 100 weights 1 2 3 4\n"), NULL)
		TH_LOG("%s", buf);

	skel = model_score__open_and_load();
	ASSERT_NE(skel, NULL);
	ASSERT_EQ(run_score(skel, 15, 0, 1000, &a), 0);
	EXPECT_EQ(a.ret, 0);
	EXPECT_EQ(a.logit, -82);
	EXPECT_EQ(a.logit, expected_logit(a.features, -100));
	EXPECT_EQ(a.ret_threshold, 0);
	EXPECT_EQ(a.threshold, 5);
	EXPECT_EQ(a.ret_short, -EINVAL);
	EXPECT_EQ(a.ret_missing, -ENOENT);
	ASSERT_EQ(run_score(skel, -3, -1, 5, &a), 0);
	EXPECT_EQ(a.logit, expected_logit(a.features, -100));
	ASSERT_EQ(run_score(skel, 20, 7, 100, &a), 0);
	EXPECT_EQ(a.logit, expected_logit(a.features, -100));

	/* A new version replaces the old one as a whole. */
	strcpy(buf, test_model);
	memcpy(strstr(buf, "bias -100"), "bias +900", 9);
	ASSERT_EQ(write_str(MODELS "/load", buf), 0);
	EXPECT_EQ(model_version(), version + 1);
	ASSERT_EQ(run_score(skel, 15, 0, 1000, &a), 0);
	EXPECT_EQ(a.logit, expected_logit(a.features, 900));

	ASSERT_EQ(write_str(MODELS "/unload", "test_model"), 0);
	EXPECT_NE(access(MODELS "/test_model", F_OK), 0);
	ASSERT_EQ(run_score(skel, 15, 0, 1000, &a), 0);
	EXPECT_EQ(a.ret, -ENOENT);
	EXPECT_EQ(write_str(MODELS "/unload", "test_model"), -ENOENT);
	model_score__destroy(skel);
}

/*
 * The model kfuncs are for cache_ext policies: a TCP congestion control
 * calling one is refused when it loads, by the module's kfunc filter.
 */
TEST_F(ctl, model_kfuncs_refused_to_other_struct_ops)
{
	const char *refused =
		"calling kernel function bpf_cache_ext_model_threshold is not allowed";
	static char log[16384];
	struct tcp_ca *skel;

	skel = tcp_ca__open();
	ASSERT_NE(skel, NULL);
	bpf_program__set_log_buf(skel->progs.scoring_cong_avoid, log, sizeof(log));
	EXPECT_NE(tcp_ca__load(skel), 0);
	EXPECT_NE(strstr(log, refused), NULL) TH_LOG("verifier log: %s", log);
	tcp_ca__destroy(skel);
}

static const char *const lc_names[] = {
	"page_dt1", "page_dt2", "inode_dt1", "inode_dt2", "distance",
	"file_pages", "page_ema", "inode_ema", "idle", "page_ema_long",
};

/*
 * A model with the header @head, then feature 0 as the line @f0 (its
 * "feature" keyword included), then features 1 .. @n - 1 with one bin.
 */
static const char *model_text(const char *head, const char *f0, int n)
{
	static char text[4096];
	int i, pos;

	pos = snprintf(text, sizeof(text), "%s%s\n", head, f0);
	for (i = 1; i < n; i++)
		pos += snprintf(text + pos, sizeof(text) - pos,
				"feature %s 1 edges weights 0\n",
				lc_names[i % 10]);
	return text;
}

#define HEAD "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n"
#define F0 "feature page_dt1 1 edges weights 1"

/* Every malformed model is refused with its errno; nothing changes. */
TEST_F(ctl, model_bad_input_rejected)
{
	static const struct {
		const char *head, *f0;
		int n, err;
	} bad[] = {
		{ "bias 1\nname m\n", "", 0, EINVAL },		/* name not first */
		{ "name bad/name\nbias 1\n", "", 0, EINVAL },
		{ "name test_model\nthreshold 0\nweight_scale 1\n", F0, 9,
		  EINVAL },						/* no bias */
		{ HEAD, "", 0, EINVAL },				/* no features */
		{ HEAD, "feature page_dt1 11 edges 1 2 3 4 5 6 7 8 9 10 weights "
		  "1 1 1 1 1 1 1 1 1 1 1", 9, ERANGE },		/* > 10 bins */
		{ HEAD, "feature page_dt1 3 edges 20 10 weights 1 2 3", 9, EDOM },
		{ HEAD, "feature page_dt1 3 edges 10 20 weights 1 2", 9,
		  EINVAL },						/* truncated */
		{ HEAD, "feature page_dt1 2 edges 1 weights 1 99999999999", 9,
		  ERANGE },
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 0\n", F0, 9,
		  ERANGE },
		{ "name test_model\nbias 12abc\nthreshold 0\nweight_scale 1\n",
		  F0, 9, EINVAL },
		{ "name test_model\nfrobnicate 3\n", "", 0, EINVAL },
		{ "name test_model\nbias 1 2\n", "", 0, EINVAL },
		/* What the learned policies cannot score. */
		{ HEAD, F0, 8, EINVAL },			/* 8 features */
		{ HEAD, F0, 11, E2BIG },			/* 11 */
		{ HEAD, "feature page_dt2 1 edges weights 1", 9,
		  EINVAL },				/* feature 1 twice */
		{ HEAD, "feature f0 1 edges weights 1", 9, EINVAL },
		{ HEAD, "feature page_dt1 3 edges -5 10 weights 1 2 3", 9,
		  ERANGE },				/* negative edge */
		{ HEAD, "feature page_dt1 2 edges 10000000001 weights 1 2", 9,
		  ERANGE },				/* past LC_DT_NONE */
	};
	char before[2048], after[2048];
	size_t i;

	ASSERT_EQ(write_str(MODELS "/load", test_model), 0);
	ASSERT_EQ(read_file(DEBUGFS "/models", before, sizeof(before)), 0);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(write_str(MODELS "/load",
				    model_text(bad[i].head, bad[i].f0, bad[i].n)),
			  -bad[i].err)
			TH_LOG("case %zu:\n%s", i,
			       model_text(bad[i].head, bad[i].f0, bad[i].n));

	/* The version and the model are untouched. */
	ASSERT_EQ(read_file(DEBUGFS "/models", after, sizeof(after)), 0);
	EXPECT_STREQ(before, after);
	write_str(MODELS "/unload", "test_model");
}

/*
 * Format version 2: LearnedCache's nine features and page_ema_long, as
 * lctrain exports them; the tenth out of its place is refused.
 */
TEST_F(ctl, model_with_ten_features_loads)
{
	char buf[4096], text[4096];

	ASSERT_EQ(write_str(MODELS "/load", model_text(HEAD, F0, 10)), 0);
	ASSERT_EQ(read_file(MODELS "/test_model/summary", buf, sizeof(buf)), 0);
	EXPECT_NE(strstr(buf, "features 10\n"), NULL) TH_LOG("%s", buf);
	ASSERT_EQ(write_str(MODELS "/unload", "test_model"), 0);

	snprintf(text, sizeof(text), "%s", model_text(HEAD, F0, 9));
	strcat(text, "feature idle 1 edges weights 0\n");
	EXPECT_EQ(write_str(MODELS "/load", text), -EINVAL);
	EXPECT_NE(access(MODELS "/test_model", F_OK), 0);
}

/* ---- the generic netlink family ---- */

struct nl {
	struct mnl_socket *sock;
	uint16_t family;
	uint32_t events_group;
	unsigned int seq;
};

static int ctrl_attr_cb(const struct nlattr *attr, void *data)
{
	struct nl *nl = data;

	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID) {
		nl->family = mnl_attr_get_u16(attr);
	} else if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GROUPS) {
		const struct nlattr *grp, *a;

		mnl_attr_for_each_nested(grp, attr) {
			const char *name = NULL;
			uint32_t id = 0;

			mnl_attr_for_each_nested(a, grp) {
				if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME)
					name = mnl_attr_get_str(a);
				else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID)
					id = mnl_attr_get_u32(a);
			}
			if (name && !strcmp(name, CACHE_EXT_GENL_MCGRP_EVENTS))
				nl->events_group = id;
		}
	}
	return MNL_CB_OK;
}

static int ctrl_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), ctrl_attr_cb,
			      data);
}

static struct nlmsghdr *nl_request(struct nl *nl, char *buf, uint16_t type,
				   uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = type == GENL_ID_CTRL ? 1 : CACHE_EXT_GENL_VERSION;
	return nlh;
}

/* Send @nlh, run @cb on every answer; 0 or the request's -errno. */
static int nl_talk(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int n, ret;

	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(buf, n, nlh->nlmsg_seq,
				 mnl_socket_get_portid(nl->sock), cb, data);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

static int nl_open(struct nl *nl)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	memset(nl, 0, sizeof(*nl));
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock || mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID))
		return -errno;
	nlh = nl_request(nl, buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, CACHE_EXT_GENL_NAME);
	if (nl_talk(nl, nlh, ctrl_cb, nl) || !nl->family || !nl->events_group)
		return -ENOENT;
	return 0;
}

struct nl_msg {
	uint8_t cmd;
	char policy[32];
	uint64_t cgroup_id;
	uint32_t event, reason, nr_bindings;
	char reason_str[64];
	uint64_t evict_calls;
	int count;
};

static int msg_attr_cb(const struct nlattr *attr, void *data)
{
	struct nl_msg *m = data;
	const struct nlattr *s;

	switch (mnl_attr_get_type(attr)) {
	case CACHE_EXT_A_POLICY:
		snprintf(m->policy, sizeof(m->policy), "%s",
			 mnl_attr_get_str(attr));
		break;
	case CACHE_EXT_A_CGROUP_ID:
		m->cgroup_id = mnl_attr_get_u64(attr);
		break;
	case CACHE_EXT_A_EVENT:
		m->event = mnl_attr_get_u32(attr);
		break;
	case CACHE_EXT_A_EJECT_REASON:
		m->reason = mnl_attr_get_u32(attr);
		break;
	case CACHE_EXT_A_EJECT_REASON_STR:
		snprintf(m->reason_str, sizeof(m->reason_str), "%s",
			 mnl_attr_get_str(attr));
		break;
	case CACHE_EXT_A_NR_BINDINGS:
		m->nr_bindings = mnl_attr_get_u32(attr);
		break;
	case CACHE_EXT_A_STATS:
		mnl_attr_for_each_nested(s, attr)
			if (mnl_attr_get_type(s) == CACHE_EXT_A_STAT_EVICT_CALLS)
				m->evict_calls = mnl_attr_get_u64(s);
		break;
	}
	return MNL_CB_OK;
}

/* Keeps the last message; counts them. */
static int msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_msg *m = data;
	int count = m->count + 1;

	memset(m, 0, sizeof(*m));
	m->count = count;
	m->cmd = ((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd;
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), msg_attr_cb, m);
}

/* Wait up to 2 s for an event of @type on the events group. */
static int nl_wait_event(struct nl *nl, uint32_t type, struct nl_msg *m)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct timeval tv = { 2, 0 };
	int n;

	setsockopt(mnl_socket_get_fd(nl->sock), SOL_SOCKET, SO_RCVTIMEO, &tv,
		   sizeof(tv));
	for (;;) {
		n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		memset(m, 0, sizeof(*m));
		mnl_cb_run(buf, n, 0, 0, msg_cb, m);
		if (m->cmd == CACHE_EXT_CMD_EVENT && m->event == type)
			return 0;
	}
}

/* Dumps, bind and unbind, events: everything the family offers. */
TEST_F(ctl, netlink_dump_bind_events)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], path[PATH_MAX];
	struct nlmsghdr *nlh;
	struct nl_msg m = {};
	struct nl nl, ev;

	ASSERT_EQ(nl_open(&nl), 0);
	ASSERT_EQ(nl_open(&ev), 0);
	ASSERT_EQ(mnl_socket_setsockopt(ev.sock, NETLINK_ADD_MEMBERSHIP,
					&ev.events_group, sizeof(int)), 0);
	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);

	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_POLICY_GET,
			 NLM_F_DUMP);
	ASSERT_EQ(nl_talk(&nl, nlh, msg_cb, &m), 0);
	EXPECT_EQ(m.count, 1);
	EXPECT_STREQ(m.policy, "fifo");
	EXPECT_EQ(m.nr_bindings, 1);
	EXPECT_STREQ(m.reason_str, "none");

	memset(&m, 0, sizeof(m));
	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_BINDING_GET,
			 NLM_F_DUMP);
	ASSERT_EQ(nl_talk(&nl, nlh, msg_cb, &m), 0);
	EXPECT_EQ(m.count, 1);
	EXPECT_EQ(m.cgroup_id, self->cg_id);
	EXPECT_GT(m.evict_calls, 0);

	/* Unbind and bind again over netlink; the events follow. */
	snprintf(path, sizeof(path), "%s/memory.cache_ext", self->cg);
	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_UNBIND, 0);
	mnl_attr_put_u64(nlh, CACHE_EXT_A_CGROUP_ID, self->cg_id);
	ASSERT_EQ(nl_talk(&nl, nlh, NULL, NULL), 0);
	EXPECT_EQ(wait_for(path, "default\n"), 0);
	ASSERT_EQ(nl_wait_event(&ev, CACHE_EXT_EV_UNBOUND, &m), 0);
	EXPECT_EQ(m.cgroup_id, self->cg_id);

	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_BIND, 0);
	mnl_attr_put_strz(nlh, CACHE_EXT_A_POLICY, "no_such_policy");
	mnl_attr_put_u64(nlh, CACHE_EXT_A_CGROUP_ID, self->cg_id);
	EXPECT_EQ(nl_talk(&nl, nlh, NULL, NULL), -ENOENT);
	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_BIND, 0);
	mnl_attr_put_u64(nlh, CACHE_EXT_A_CGROUP_ID, self->cg_id);
	EXPECT_EQ(nl_talk(&nl, nlh, NULL, NULL), -EINVAL);	/* no policy */
	/* The root cgroup (id 1) has no memory.cache_ext: never bound. */
	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_BIND, 0);
	mnl_attr_put_strz(nlh, CACHE_EXT_A_POLICY, "fifo");
	mnl_attr_put_u64(nlh, CACHE_EXT_A_CGROUP_ID, 1);
	EXPECT_EQ(nl_talk(&nl, nlh, NULL, NULL), -EINVAL);
	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_BIND, 0);
	mnl_attr_put_strz(nlh, CACHE_EXT_A_POLICY, "fifo");
	mnl_attr_put_u64(nlh, CACHE_EXT_A_CGROUP_ID, self->cg_id);
	ASSERT_EQ(nl_talk(&nl, nlh, NULL, NULL), 0);
	EXPECT_EQ(wait_for(path, "fifo\n"), 0);
	ASSERT_EQ(nl_wait_event(&ev, CACHE_EXT_EV_BOUND, &m), 0);
	EXPECT_STREQ(m.policy, "fifo");

	/* An ejection is announced with its reason. */
	ASSERT_EQ(write_str(SYSFS "/policies/fifo/kill", "1"), 0);
	ASSERT_EQ(nl_wait_event(&ev, CACHE_EXT_EV_EJECTED, &m), 0);
	EXPECT_STREQ(m.policy, "fifo");
	EXPECT_STREQ(m.reason_str, "killed by an administrator");

	mnl_socket_close(nl.sock);
	mnl_socket_close(ev.sock);
}

/*
 * A policy that cannot be registered is refused when its struct_ops map
 * is updated (the .validate of cache_ext_ops), before a link exists, with
 * the error registration gives: a taken name -EEXIST, a cgroup that is
 * gone -ENOENT.  It is never announced: before .validate the second was
 * registered, announced and unregistered again when its binding failed.
 */
TEST_F(ctl, unregistrable_policy_refused_before_its_link)
{
	static const struct {
		const char *name;
		bool gone_cgroup;
		int err;
	} cases[] = {
		{ "fifo", false, EEXIST },	/* the fixture's policy */
		{ "fifo_gone", true, ENOENT },
	};
	struct bpf_link *link;
	uint64_t gone_id;
	struct nl_msg m;
	struct fifo *dup;
	struct nl ev;
	char *gone;
	size_t i;

	gone = memcg_create("cache_ext_ctl_gone");
	ASSERT_NE(gone, NULL);
	gone_id = cgroup_id_of(gone);
	ASSERT_EQ(cg_destroy(gone), 0);
	free(gone);
	ASSERT_EQ(nl_open(&ev), 0);
	ASSERT_EQ(mnl_socket_setsockopt(ev.sock, NETLINK_ADD_MEMBERSHIP,
					&ev.events_group, sizeof(int)), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dup = fifo__open();
		ASSERT_NE(dup, NULL);
		if (cases[i].gone_cgroup)
			dup->struct_ops.fifo->cgroup_id = gone_id;
		ASSERT_EQ(struct_ops_set_name(dup->obj, dup->maps.fifo,
					      cases[i].name), 0);
		ASSERT_EQ(fifo__load(dup), 0);
		link = bpf_map__attach_struct_ops(dup->maps.fifo);
		EXPECT_EQ(link, NULL);
		EXPECT_EQ(errno, cases[i].err)
			TH_LOG("%s: %s", cases[i].name, strerror(errno));
		bpf_link__destroy(link);
		fifo__destroy(dup);
	}
	/* Nothing was registered, so nothing was announced. */
	EXPECT_EQ(nl_wait_event(&ev, CACHE_EXT_EV_REGISTERED, &m), -EAGAIN)
		TH_LOG("announced: %s", m.policy);
	mnl_socket_close(ev.sock);
}

/*
 * Policies by name: the module has no helper path of its own and preloads
 * nothing until it is given one; written to its helper parameter (as an
 * init script does for a built-in module), the cachectl under test
 * registers the standard suite, and memory.cache_ext takes their names
 * with no attach step; an unknown name logs the ones that exist.
 */
TEST(policies_by_name_after_module_load)
{
	char names[] = CACHE_EXT_SUITE, listed[sizeof(names)], *suite[16];
	const char *cachectl = getenv("CACHECTL");
	char sel[PATH_MAX], path[PATH_MAX], buf[128];
	size_t i, n = 0;
	char *cg, *p;
	int tries;

	/* The module's list, as it logs it: "fifo,lfu,..." and "fifo lfu ...". */
	for (p = strtok(names, ","); p && n < ARRAY_SIZE(suite); p = strtok(NULL, ","))
		suite[n++] = p;
	strcpy(listed, CACHE_EXT_SUITE);
	for (p = listed; *p; p++)
		if (*p == ',')
			*p = ' ';

	if (!scratch_dir() || !getenv("CACHE_EXT_CTL_KO") || !cachectl)
		SKIP(return, "run in the VM with CACHE_EXT_CTL_KO and CACHECTL set");
	if (!access(SYSFS, F_OK))
		ASSERT_EQ(ctl_module_unload(), 0);
	ASSERT_EQ(ctl_module_load_params(""), 0);
	EXPECT_EQ(kmsg_contains("cache_ext: no helper given: policies are not preloaded"), 1);
	snprintf(path, sizeof(path), SYSFS "/policies/%s/state", suite[0]);
	EXPECT_NE(access(path, F_OK), 0);

	/* The write returns at once; the preload runs from a work item. */
	ASSERT_EQ(write_str("/sys/module/cache_ext_ctl/parameters/helper", cachectl), 0);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), SYSFS "/policies/%s/state", suite[i]);
		for (tries = 0; tries < 600 && access(path, F_OK); tries++)
			usleep(100000);
		EXPECT_EQ(read_file(path, buf, sizeof(buf)), 0) TH_LOG("%s", suite[i]);
		EXPECT_STREQ(buf, "active\n");
	}
	for (tries = 0; tries < 100 &&
	     kmsg_contains("cache_ext: policies registered: " CACHE_EXT_SUITE) != 1; tries++)
		usleep(100000);
	EXPECT_EQ(kmsg_contains("cache_ext: policies registered: " CACHE_EXT_SUITE), 1);

	cg = memcg_create("cache_ext_byname");
	ASSERT_NE(cg, NULL);
	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", cg);
	EXPECT_EQ(write_str(sel, "lfu"), 0);
	EXPECT_EQ(read_file(sel, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "lfu\n");
	EXPECT_EQ(write_str(sel, "default"), 0);
	EXPECT_EQ(write_str(sel, "no_such_policy"), -ENOENT);
	snprintf(buf, sizeof(buf), "cache_ext: no policy named 'no_such_policy'; registered: %s",
		 listed);
	EXPECT_EQ(kmsg_contains(buf), 1) TH_LOG("want '%s' in the log", buf);
	cg_destroy(cg);
	free(cg);

	/* The next tests register these names themselves. */
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s detach %s >/dev/null", cachectl,
			 suite[i]);
		EXPECT_EQ(system(path), 0) TH_LOG("%s", path);
	}
	unlink("/sys/fs/bpf/get_scan_tids");
	unlink("/sys/fs/bpf/no_cache_tids");
	EXPECT_EQ(ctl_module_unload(), 0);
}

TEST_HARNESS_MAIN
