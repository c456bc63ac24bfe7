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

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "fifo.skel.h"
#include "model_score.skel.h"
#include "progs/model_score.h"

#define SYSFS		"/sys/kernel/cache_ext"
#define DEBUGFS		"/sys/kernel/debug/cache_ext"
#define FILE_PAGES	4096
#define MEMCG_MAX	"8M"

static int load_module(void)
{
	const char *ko = getenv("CACHE_EXT_CTL_KO");
	int fd, ret;

	if (!access(SYSFS, F_OK))
		return 0;
	if (!ko)
		return -ENOENT;
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, "", 0);
	close(fd);
	return ret ? -errno : 0;
}

static int unload_module(void)
{
	return syscall(__NR_delete_module, "cache_ext_ctl", O_NONBLOCK) ?
	       -errno : 0;
}

/* Read a small file into @buf; -errno on failure. */
static int read_file(const char *path, char *buf, size_t len)
{
	return read_text(path, buf, len) < 0 ? -errno : 0;
}

/* Wait up to 2 s for @path to read exactly @want. */
static int wait_for(const char *path, const char *want)
{
	char buf[256];
	int i;

	for (i = 0; i < 200; i++) {
		if (!read_file(path, buf, sizeof(buf)) && !strcmp(buf, want))
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

static int write_file(const char *path, const char *val)
{
	return write_text(path, (char *)val, strlen(val)) < 0 ? -errno : 0;
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
	ASSERT_EQ(load_module(), 0);
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
	ASSERT_EQ(write_file(sel, "fifo"), 0);
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
	ASSERT_EQ(write_file(path, "0"), 0);
	ASSERT_EQ(read_file(path, buf, sizeof(buf)), 0);
	EXPECT_NE(strstr(buf, "# total 0\n"), NULL);
}

/* kill ejects, once; the cgroup is back on the kernel's LRU. */
TEST_F(ctl, kill_ejects)
{
	char path[PATH_MAX];

	path_of(path, self->policy_dir, "state");
	ASSERT_EQ(wait_for(path, "active\n"), 0);
	path_of(path, self->policy_dir, "kill");
	EXPECT_EQ(write_file(path, "0"), -EINVAL);
	EXPECT_EQ(write_file(path, "banana"), -EINVAL);
	ASSERT_EQ(write_file(path, "1"), 0);
	EXPECT_EQ(write_file(path, "1"), -EALREADY);

	path_of(path, self->policy_dir, "state");
	EXPECT_EQ(wait_for(path, "ejected: killed by an administrator\n"), 0);
	snprintf(path, sizeof(path), "%s/memory.cache_ext", self->cg);
	EXPECT_EQ(wait_for(path, "default\n"), 0);
	EXPECT_EQ(wait_for(SYSFS "/available_policies", "\n"), 0);
	EXPECT_EQ(trace_count("cache_ext_eject:", "policy=fifo ",
			      "(killed by an administrator)", NULL), 1);
}

/* Unload with a policy bound and used; reload: state is found again. */
TEST_F(ctl, unload_reload_while_bound)
{
	char path[PATH_MAX], want[64];

	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);
	ASSERT_EQ(unload_module(), 0);
	EXPECT_NE(access(SYSFS, F_OK), 0);
	/* The policy keeps working without the module. */
	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);

	ASSERT_EQ(load_module(), 0);
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

static const char test_model[] =
	"# three features, hand-checkable\n"
	"name test_model\n"
	"bias -100\n"
	"threshold 5\n"
	"weight_scale 1000\n"
	"feature f0 3 edges 10 20 weights -5 1 7\n"
	"feature f1 2 edges 0 weights 11 13   # trailing comment\n"
	"feature f2 4 edges 1 10 100 weights 1 2 3 4\n";

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

	ASSERT_EQ(write_file(MODELS "/load", test_model), 0);
	ASSERT_EQ(read_file(MODELS "/test_model/summary", buf, sizeof(buf)), 0);
	TH_LOG("%s", buf);
	EXPECT_NE(strstr(buf, "features 3\nbias -100\nthreshold 5\nweight_scale 1000\n"), NULL);
	version = model_version();
	EXPECT_GT(version, 0);
	ASSERT_EQ(read_file(DEBUGFS "/models", buf, sizeof(buf)), 0);
	EXPECT_NE(strstr(buf, "feature f0 3 edges 10 20 weights -5 1 7\n"
			      "feature f1 2 edges 0 weights 11 13\n"
			      "feature f2 4 edges 1 10 100 weights 1 2 3 4\n"), NULL)
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
	ASSERT_EQ(write_file(MODELS "/load", buf), 0);
	EXPECT_EQ(model_version(), version + 1);
	ASSERT_EQ(run_score(skel, 15, 0, 1000, &a), 0);
	EXPECT_EQ(a.logit, expected_logit(a.features, 900));

	ASSERT_EQ(write_file(MODELS "/unload", "test_model"), 0);
	EXPECT_NE(access(MODELS "/test_model", F_OK), 0);
	ASSERT_EQ(run_score(skel, 15, 0, 1000, &a), 0);
	EXPECT_EQ(a.ret, -ENOENT);
	EXPECT_EQ(write_file(MODELS "/unload", "test_model"), -ENOENT);
	model_score__destroy(skel);
}

/* Every malformed model is refused with its errno; nothing changes. */
TEST_F(ctl, model_bad_input_rejected)
{
	static const struct {
		const char *text;
		int err;
	} bad[] = {
		{ "bias 1\nname m\n", EINVAL },			/* name not first */
		{ "name bad/name\nbias 1\n", EINVAL },
		{ "name test_model\nthreshold 0\nweight_scale 1\n"
		  "feature f 1 edges weights 1\n", EINVAL },		/* no bias */
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n", EINVAL },
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n"
		  "feature f 11 edges 1 2 3 4 5 6 7 8 9 10 weights "
		  "1 1 1 1 1 1 1 1 1 1 1\n", ERANGE },		/* > 10 bins */
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n"
		  "feature f 3 edges 20 10 weights 1 2 3\n", EDOM },
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n"
		  "feature f 3 edges 10 20 weights 1 2\n", EINVAL },	/* truncated */
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n"
		  "feature f 2 edges 1 weights 1 99999999999\n", ERANGE },
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 0\n"
		  "feature f 1 edges weights 1\n", ERANGE },
		{ "name test_model\nbias 12abc\nthreshold 0\nweight_scale 1\n"
		  "feature f 1 edges weights 1\n", EINVAL },
		{ "name test_model\nfrobnicate 3\n", EINVAL },
		{ "name test_model\nbias 1 2\n", EINVAL },
	};
	char text[4096], before[1024], after[1024];
	size_t i;
	int n;

	ASSERT_EQ(write_file(MODELS "/load", test_model), 0);
	ASSERT_EQ(read_file(DEBUGFS "/models", before, sizeof(before)), 0);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(write_file(MODELS "/load", bad[i].text), -bad[i].err)
			TH_LOG("case %zu", i);

	/* 17 features: too many. */
	n = snprintf(text, sizeof(text),
		     "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n");
	for (i = 0; i < 17; i++)
		n += snprintf(text + n, sizeof(text) - n,
			      "feature f%zu 1 edges weights 1\n", i);
	EXPECT_EQ(write_file(MODELS "/load", text), -E2BIG);

	ASSERT_EQ(read_file(DEBUGFS "/models", after, sizeof(after)), 0);
	EXPECT_STREQ(before, after);
	write_file(MODELS "/unload", "test_model");
}

TEST_HARNESS_MAIN
