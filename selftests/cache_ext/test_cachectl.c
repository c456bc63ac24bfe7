// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl end to end, in the VM: attach with --cgroup, see the policy
 * work through list/stats/hist, detach; an inherited policy replaced by
 * each way to bind, alike; every refusal with its message and
 * exit status; models in and out; `cachectl monitor` reporting the
 * ejection of a hostile policy; and a configuration applied, compared and
 * kept true by apply --watch as cgroups come and go.  The tool is $CACHECTL, the module
 * $CACHE_EXT_CTL_KO (cachectl loads it itself through $CACHECTL_MODULE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
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
#include "hostile.skel.h"
/* The skeleton names its globals' types as the kernel does. */
typedef __u32 u32;
typedef __u64 u64;
#include "timer_tick.skel.h"
#include "workload.h"

#define FILE_PAGES	4096
#define MEMCG_MAX	"8M"

/*
 * Runs "$CACHECTL <args>" with stdout and stderr in @out; returns the
 * exit status, or -1 if it did not exit normally.
 */
__attribute__((format(printf, 3, 4)))
static int cachectl(char *out, size_t len, const char *fmt, ...)
{
	char args[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return run_cmd(out, len, "%s %s", getenv("CACHECTL"), args);
}

/*
 * Does the line of policy @name in cachectl list output @text end with
 * its state @state?
 */
static bool listed_as(const char *text, const char *name, const char *state)
{
	char head[80];
	const char *line, *end;
	size_t n = strlen(state);

	snprintf(head, sizeof(head), "\n%s ", name);
	line = strstr(text, head);
	if (!line)
		return false;
	end = strchr(line + 1, '\n');
	if (!end || end - line < (long)n + 1)
		return false;
	return end[-n - 1] == ' ' && !strncmp(end - n, state, n);
}

/* cachectl() as user nobody: an unprivileged user's view. */
static int run_unprivileged(char *out, size_t len, const char *args)
{
	return run_cmd(out, len, "setpriv --reuid=65534 --regid=65534 --clear-groups %s %s",
		       getenv("CACHECTL"), args);
}

/* The value of "key N" in cachectl stats output, or -1. */
static long long stat_of(const char *text, const char *key)
{
	const char *p = text;
	size_t n = strlen(key);

	while ((p = strstr(p, key))) {
		if ((p == text || p[-1] == '\n') && p[n] == ' ')
			return strtoll(p + n, NULL, 10);
		p += n;
	}
	return -1;
}

FIXTURE(cachectl) {
	char *cg;
	uint64_t cg_id;
	char file[PATH_MAX];
	char objs[PATH_MAX];
	char out[8192];
};

FIXTURE_SETUP(cachectl)
{
	if (!scratch_dir() || !getenv("CACHECTL") || !getenv("CACHE_EXT_CTL_KO"))
		SKIP(return, "run in the VM with CACHECTL and CACHE_EXT_CTL_KO set");
	setenv("CACHECTL_MODULE", getenv("CACHE_EXT_CTL_KO"), 1);
	snprintf(self->objs, sizeof(self->objs), "%s", getenv("BPF_OBJ_DIR") ?:
		 BPF_OBJ_DIR);
	self->cg = memcg_create("cache_ext_cachectl");
	ASSERT_NE(self->cg, NULL);
	ASSERT_EQ(cg_write(self->cg, "memory.max", MEMCG_MAX), 0);
	self->cg_id = cgroup_id_of(self->cg);
	scratch_path(self->file, sizeof(self->file), "cachectl");
	ASSERT_EQ(make_file(self->file, FILE_PAGES), 0);
}

FIXTURE_TEARDOWN(cachectl)
{
	char out[256];

	cachectl(out, sizeof(out), "detach cfifo");
	cachectl(out, sizeof(out), "detach cfifo2");
	cachectl(out, sizeof(out), "detach cfifo3");
	cachectl(out, sizeof(out), "detach ctick");
	unlink(self->file);
	if (self->cg) {
		cg_destroy(self->cg);
		free(self->cg);
	}
}

/*
 * What lives on a map's user references outlives cachectl: a policy's BPF
 * timer goes on ticking with the loader gone (its maps pinned beside the
 * link), and detach removes the pins.  timer_tick is a test policy that
 * only ticks; no policy of the suite uses a timer any more.
 */
TEST_F(cachectl, attached_policy_keeps_its_timer_and_maps)
{
	/* libbpf names it from the object's first 8 characters. */
	const char *bss = "/sys/fs/bpf/cache_ext_maps/ctick/timer_ti_bss";
	char *out = self->out;
	size_t len = sizeof(self->out);
	struct timer_tick__bss values = { };
	uint32_t zero = 0;
	int fd;

	ASSERT_EQ(cachectl(out, len, "attach %s/timer_tick.bpf.o --name ctick --set tick_ms=10 --cgroup %s",
			   self->objs, self->cg), 0) TH_LOG("%s", out);
	ASSERT_EQ(access(bss, F_OK), 0) TH_LOG("no %s", bss);
	usleep(300 * 1000);	/* 30 periods of the timer */
	fd = bpf_obj_get(bss);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(bpf_map_lookup_elem(fd, &zero, &values), 0);
	close(fd);
	/* Any tick at all: a loaded machine may run few of the 30. */
	EXPECT_GT(values.nr_ticks, 0);
	ASSERT_EQ(cachectl(out, len, "detach ctick"), 0) TH_LOG("%s", out);
	EXPECT_NE(access("/sys/fs/bpf/cache_ext_maps/ctick", F_OK), 0);
}

TEST_F(cachectl, attach_works_and_detaches)
{
	char *out = self->out;
	size_t len = sizeof(self->out);
	long long calls, accepted;
	char sel[PATH_MAX], buf[64];
	int fd;

	ASSERT_EQ(cachectl(out, len, "attach %s/fifo.bpf.o --name cfifo --cgroup %s",
			   self->objs, self->cg), 0) TH_LOG("%s", out);
	EXPECT_NE(strstr(out,
			 "attached cfifo (pinned at /sys/fs/bpf/cache_ext/cfifo), bound to"), NULL)
		TH_LOG("%s", out);
	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", self->cg);
	ASSERT_GE(read_text(sel, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "cfifo\n");
	/* Bound as upstream attaches: the link was created on the cgroup. */
	fd = bpf_obj_get("/sys/fs/bpf/cache_ext/cfifo");
	ASSERT_GE(fd, 0);
	EXPECT_EQ(link_cgroup_id(fd), cgroup_id_of(self->cg));
	close(fd);

	/* Outlives the tool, and evicts: the workload runs under it. */
	ASSERT_EQ(cg_run(self->cg, cg_read_file_twice, self->file), 0);
	ASSERT_EQ(cachectl(out, len, "stats %s", self->cg), 0) TH_LOG("%s", out);
	calls = stat_of(out, "evict_calls");
	accepted = stat_of(out, "accepted");
	EXPECT_GT(calls, 0) TH_LOG("%s", out);
	EXPECT_GT(accepted, FILE_PAGES) TH_LOG("%s", out);
	EXPECT_NE(strstr(out, "policy cfifo"), NULL);

	ASSERT_EQ(cachectl(out, len, "list"), 0) TH_LOG("%s", out);
	EXPECT_TRUE(listed_as(out, "cfifo", "active")) TH_LOG("%s", out);
	EXPECT_NE(strstr(out, "/sys/fs/bpf/cache_ext/cfifo"), NULL);
	EXPECT_NE(strstr(out, self->cg), NULL) TH_LOG("%s", out);

	/* The histogram counted every call the counters did. */
	ASSERT_EQ(cachectl(out, len, "hist %s", self->cg), 0) TH_LOG("%s", out);
	snprintf(buf, sizeof(buf), "total %lld calls", calls);
	EXPECT_NE(strstr(out, buf), NULL) TH_LOG("want '%s' in\n%s", buf, out);
	EXPECT_NE(strstr(out, "|#"), NULL);

	/* A second policy of the same name is refused, the first stays. */
	EXPECT_EQ(cachectl(out, len, "attach %s/fifo.bpf.o --name cfifo",
			   self->objs), 1);
	EXPECT_NE(strstr(out, "already attached"), NULL) TH_LOG("%s", out);

	ASSERT_EQ(cachectl(out, len, "detach cfifo"), 0) TH_LOG("%s", out);
	ASSERT_GE(read_text(sel, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "default\n");
	EXPECT_NE(access("/sys/fs/bpf/cache_ext/cfifo", F_OK), 0);
	ASSERT_GE(read_text("/sys/kernel/cache_ext/available_policies", buf,
			    sizeof(buf)), 0);
	EXPECT_EQ(strstr(buf, "cfifo"), NULL) TH_LOG("%s", buf);
	EXPECT_EQ(cachectl(out, len, "detach cfifo"), 1);
	EXPECT_NE(strstr(out, "no policy 'cfifo' attached"), NULL) TH_LOG("%s", out);
}

TEST_F(cachectl, bind_unbind_by_path)
{
	char *out = self->out;
	size_t len = sizeof(self->out);
	const char *rel = self->cg + strlen("/sys/fs/cgroup/");

	ASSERT_EQ(cachectl(out, len, "attach %s/fifo.bpf.o --name cfifo",
			   self->objs), 0) TH_LOG("%s", out);
	/* A path relative to the cgroup2 mount names the same cgroup. */
	ASSERT_EQ(cachectl(out, len, "bind %s cfifo", rel), 0) TH_LOG("%s", out);
	EXPECT_EQ(cachectl(out, len, "bind %s cfifo", self->cg), 1);
	EXPECT_NE(strstr(out, "already has a policy"), NULL) TH_LOG("%s", out);
	ASSERT_EQ(cachectl(out, len, "unbind /%s", rel), 0) TH_LOG("%s", out);
	/* Like echo default > memory.cache_ext: unbinding is idempotent. */
	EXPECT_EQ(cachectl(out, len, "unbind %s", self->cg), 0);
	EXPECT_NE(strstr(out, ": default"), NULL) TH_LOG("%s", out);
}

/*
 * One rule for every way to bind: a policy a cgroup inherited gives way
 * to one chosen for it, through memory.cache_ext, netlink (cachectl
 * bind) or a link on the cgroup (cachectl attach --cgroup), and the
 * inherited policy chosen by name becomes the cgroup's own; a policy set
 * on the cgroup itself refuses every one of them.
 */
TEST_F(cachectl, every_interface_replaces_an_inherited_policy)
{
	static const char *const kids[] = { "by_file", "by_netlink",
					    "same_name", "by_link" };
	char *out = self->out, sel[PATH_MAX], buf[64];
	size_t len = sizeof(self->out);
	char *kid[4];
	int i;

	ASSERT_EQ(cachectl(out, len, "attach %s/fifo.bpf.o --name cfifo --cgroup %s",
			   self->objs, self->cg), 0) TH_LOG("%s", out);
	ASSERT_EQ(cachectl(out, len, "attach %s/fifo.bpf.o --name cfifo2",
			   self->objs), 0) TH_LOG("%s", out);
	ASSERT_EQ(cg_write(self->cg, "cgroup.subtree_control", "+memory"), 0);
	for (i = 0; i < 4; i++) {
		kid[i] = cg_name(self->cg, kids[i]);
		ASSERT_NE(kid[i], NULL);
		ASSERT_EQ(cg_create(kid[i]), 0);
		ASSERT_EQ(wait_for_selection(kid[i], "cfifo (inherited)\n"), 0)
			TH_LOG("%s did not inherit cfifo", kid[i]);
	}

	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", kid[0]);
	EXPECT_EQ(write_str(sel, "cfifo2"), 0);
	ASSERT_GE(read_text(sel, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "cfifo2\n");

	EXPECT_EQ(cachectl(out, len, "bind %s cfifo2", kid[1]), 0) TH_LOG("%s", out);
	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", kid[1]);
	ASSERT_GE(read_text(sel, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "cfifo2\n");

	EXPECT_EQ(cachectl(out, len, "bind %s cfifo", kid[2]), 0) TH_LOG("%s", out);
	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", kid[2]);
	ASSERT_GE(read_text(sel, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "cfifo\n");

	EXPECT_EQ(cachectl(out, len, "attach %s/fifo.bpf.o --name cfifo3 --cgroup %s",
			   self->objs, kid[3]), 0) TH_LOG("%s", out);
	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", kid[3]);
	ASSERT_GE(read_text(sel, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "cfifo3\n");

	/* Set on the cgroup itself, a policy refuses all three. */
	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", kid[2]);
	EXPECT_EQ(write_str(sel, "cfifo2"), -EBUSY);
	EXPECT_EQ(cachectl(out, len, "bind %s cfifo2", kid[0]), 1);
	EXPECT_NE(strstr(out, "already has a policy"), NULL) TH_LOG("%s", out);
	EXPECT_EQ(cachectl(out, len, "detach cfifo3"), 0) TH_LOG("%s", out);
	EXPECT_EQ(cachectl(out, len, "attach %s/fifo.bpf.o --name cfifo3 --cgroup %s",
			   self->objs, kid[1]), 1);
	EXPECT_NE(strstr(out, "the cgroup has a policy"), NULL) TH_LOG("%s", out);

	for (i = 0; i < 4; i++) {
		cg_destroy(kid[i]);
		free(kid[i]);
	}
}

/* Thread ids for get_scan, through its pinned map. */
TEST_F(cachectl, tids_fill_the_policy_map)
{
	char *out = self->out;
	size_t len = sizeof(self->out);

	ASSERT_EQ(cachectl(out, len, "attach %s/get_scan.bpf.o --name cgs", self->objs), 0)
		TH_LOG("%s", out);
	EXPECT_EQ(cachectl(out, len, "tids add get_scan_tids 4242 77"), 0) TH_LOG("%s", out);
	ASSERT_EQ(cachectl(out, len, "tids list get_scan_tids"), 0);
	EXPECT_TRUE(strstr(out, "4242\n") && strstr(out, "77\n")) TH_LOG("%s", out);
	EXPECT_EQ(cachectl(out, len, "tids del /sys/fs/bpf/get_scan_tids 77"), 0);
	ASSERT_EQ(cachectl(out, len, "tids list get_scan_tids"), 0);
	EXPECT_STREQ(out, "4242\n");
	EXPECT_EQ(cachectl(out, len, "tids del get_scan_tids 77"), 1);
	EXPECT_NE(strstr(out, "77 is not in get_scan_tids"), NULL) TH_LOG("%s", out);
	EXPECT_EQ(cachectl(out, len, "tids add get_scan_tids 12x"), 2);
	EXPECT_NE(strstr(out, "'12x' is not a thread id"), NULL) TH_LOG("%s", out);
	EXPECT_EQ(cachectl(out, len, "tids add no_such_map 1"), 1);
	EXPECT_NE(strstr(out, "no map pinned at /sys/fs/bpf/no_such_map"), NULL) TH_LOG("%s", out);
	/* A pinned object of another kind (the policy's link) is refused. */
	EXPECT_EQ(cachectl(out, len, "tids list /sys/fs/bpf/cache_ext/cgs"), 1);
	EXPECT_NE(strstr(out, "is not a thread-id map"), NULL) TH_LOG("%s", out);
	EXPECT_EQ(cachectl(out, len, "detach cgs"), 0);
	unlink("/sys/fs/bpf/get_scan_tids");
}

TEST_F(cachectl, refusals_say_why)
{
	static const struct {
		const char *args, *msg;
		int status;
	} cases[] = {
		{ "", "usage: cachectl COMMAND", 2 },
		{ "frobnicate", "unknown command 'frobnicate'", 2 },
		{ "bind", "usage: cachectl bind", 2 },
		{ "attach", "usage: cachectl attach", 2 },
		{ "bind /sys/fs/cgroup/no_such_cgroup fifo", "No such file or directory", 1 },
		{ "bind ../x fifo", "'.' and '..' are not allowed", 1 },
		{ "bind / fifo", "root cgroup cannot be given a policy", 1 },
		{ "model load bad/name x.json", "is not a model name", 2 },
		{ "model load m /nonexistent.json", "cannot read /nonexistent.json", 1 },
		{ "monitor --count 0", "--count wants a positive number", 2 },
	};
	char *out = self->out;
	size_t len = sizeof(self->out), i;
	char nomem[PATH_MAX];

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		EXPECT_EQ(cachectl(out, len, "%s", cases[i].args), cases[i].status)
			TH_LOG("cachectl %s:\n%s", cases[i].args, out);
		EXPECT_NE(strstr(out, cases[i].msg), NULL)
			TH_LOG("cachectl %s:\n%s", cases[i].args, out);
	}

	EXPECT_EQ(cachectl(out, len, "bind %s no_such_policy", self->cg), 1);
	EXPECT_NE(strstr(out, "no policy 'no_such_policy' is registered"), NULL)
		TH_LOG("%s", out);
	EXPECT_EQ(cachectl(out, len, "attach %s/knobs.bpf.o", self->objs), 1);
	EXPECT_NE(strstr(out, "not a cache_ext policy"), NULL) TH_LOG("%s", out);
	EXPECT_EQ(cachectl(out, len, "attach /etc/passwd"), 1);
	EXPECT_NE(strstr(out, "/etc/passwd is not a BPF object file"), NULL)
		TH_LOG("%s", out);
	EXPECT_EQ(cachectl(out, len, "attach %s/fifo.bpf.o --name cfifo --set nosuch=1",
			   self->objs), 1);
	EXPECT_NE(strstr(out, "no global variable 'nosuch'"), NULL) TH_LOG("%s", out);
	EXPECT_NE(access("/sys/fs/bpf/cache_ext/cfifo", F_OK), 0);

	/* A child of a cgroup that does not delegate memory has none. */
	snprintf(nomem, sizeof(nomem), "%s/nomem", self->cg);
	ASSERT_EQ(cg_write(self->cg, "cgroup.subtree_control", "-memory"), 0);
	ASSERT_EQ(mkdir(nomem, 0755), 0);
	EXPECT_EQ(cachectl(out, len, "bind %s fifo", nomem), 1);
	EXPECT_NE(strstr(out, "has no memory controller; enable it"), NULL)
		TH_LOG("%s", out);
	rmdir(nomem);

	/* Not root. */
	EXPECT_EQ(run_unprivileged(out, len, "detach x"), 1) TH_LOG("%s", out);
	EXPECT_NE(strstr(out, "needs root"), NULL) TH_LOG("%s", out);
}

static int write_new_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(text, f) < 0;
	return fclose(f) || ret ? -EIO : 0;
}

TEST_F(cachectl, model_load_show_reject)
{
#define ONE_BIN(i) ",{\"index\":" #i ",\"n_bins\":1,\"bin_edges\":[],\"weights_int\":[0]}"
#define SEVEN_MORE ONE_BIN(2) ONE_BIN(3) ONE_BIN(4) ONE_BIN(5) ONE_BIN(6) \
		   ONE_BIN(7) ONE_BIN(8)
	static const char good[] =
		"{\"features\":[{\"name\":\"page_dt1\",\"n_bins\":3,\"bin_edges\":[10,100],"
		"\"weights_int\":[5,-2,-9]},{\"name\":\"page_dt2\",\"n_bins\":2,"
		"\"bin_edges\":[0.0,4.5,9.0],\"weights_int\":[1,2]}" SEVEN_MORE "],"
		"\"bias_int\":-7,\"threshold_int\":3,\"weight_scale\":1000}";
	static const char bad[] =
		"{\"features\":[{\"name\":\"page_dt1\",\"n_bins\":3,\"bin_edges\":[100,10],"
		"\"weights_int\":[5,-2,-9]}" ONE_BIN(1) SEVEN_MORE "],"
		"\"bias_int\":0,\"weight_scale\":1}";
	/* Two features: the learned policies score nine. */
	static const char two[] =
		"{\"features\":[{\"n_bins\":1,\"bin_edges\":[],\"weights_int\":[1]}"
		ONE_BIN(1) "],\"bias_int\":0,\"weight_scale\":1}";
	char *out = self->out;
	size_t len = sizeof(self->out);
	char good_path[PATH_MAX], bad_path[PATH_MAX], version[64];
	char *v;

	scratch_path(good_path, sizeof(good_path), "model.json");
	scratch_path(bad_path, sizeof(bad_path), "bad.json");
	ASSERT_EQ(write_new_file(good_path, good), 0);
	ASSERT_EQ(write_new_file(bad_path, bad), 0);

	ASSERT_EQ(cachectl(out, len, "model load ctl_test %s", good_path), 0)
		TH_LOG("%s", out);
	ASSERT_EQ(cachectl(out, len, "model show ctl_test"), 0) TH_LOG("%s", out);
	EXPECT_NE(strstr(out, "features 9\nbias -7\nthreshold 3\nweight_scale 1000\n"
			 "auc unknown\nfeature page_dt1 3 bins\nfeature page_dt2 2 bins\n"), NULL)
		TH_LOG("%s", out);
	v = strstr(out, "version ");
	ASSERT_NE(v, NULL);
	snprintf(version, sizeof(version), "%.*s", (int)strcspn(v, "\n"), v);

	ASSERT_EQ(cachectl(out, len, "model show ctl_test --full"), 0);
	EXPECT_NE(strstr(out, "feature page_dt2 2 edges 5 weights 1 2"), NULL)
		TH_LOG("%s", out);

	/* A model of format version 1 has nine features: two are refused. */
	ASSERT_EQ(write_new_file(bad_path, two), 0);
	EXPECT_EQ(cachectl(out, len, "model load ctl_test %s", bad_path), 1);
	EXPECT_NE(strstr(out, "2 features, but a model of format version 1 has exactly 9"), NULL)
		TH_LOG("%s", out);
	ASSERT_EQ(write_new_file(bad_path, bad), 0);

	/* A bad file changes nothing: same version. */
	EXPECT_EQ(cachectl(out, len, "model load ctl_test %s", bad_path), 1);
	EXPECT_NE(strstr(out, "bin edges must increase strictly"), NULL)
		TH_LOG("%s", out);
	ASSERT_EQ(cachectl(out, len, "model show ctl_test"), 0);
	EXPECT_NE(strstr(out, version), NULL) TH_LOG("%s", out);

	ASSERT_EQ(cachectl(out, len, "model unload ctl_test"), 0);
	EXPECT_EQ(cachectl(out, len, "model show ctl_test"), 1);
	EXPECT_NE(strstr(out, "no model 'ctl_test' is loaded"), NULL);
	unlink(good_path);
	unlink(bad_path);
}

/* Reads lines from @fd until one contains @want; 0, or -ETIMEDOUT. */
static int wait_line(int fd, const char *want, char *buf, size_t len,
		     int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t pos = 0;
	ssize_t n;

	buf[0] = '\0';
	while (poll(&pfd, 1, timeout_ms) > 0) {
		n = read(fd, buf + pos, len - 1 - pos);
		if (n <= 0)
			break;
		pos += n;
		buf[pos] = '\0';
		if (strstr(buf, want))
			return 0;
		if (pos + 1 >= len)
			break;
	}
	return -ETIMEDOUT;
}

TEST_F(cachectl, monitor_reports_ejection)
{
	struct hostile *skel = NULL;
	struct bpf_link *link;
	char want[PATH_MAX + 128];
	int pipefd[2], st;
	pid_t pid;

	ASSERT_EQ(pipe(pipefd), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		execl(getenv("CACHECTL"), "cachectl", "monitor", NULL);
		_exit(127);
	}
	close(pipefd[1]);
	ASSERT_EQ(wait_line(pipefd[0], "# monitoring", self->out,
			    sizeof(self->out), 10000), 0) TH_LOG("%s", self->out);

	link = attach_hostile(self->cg_id, "hostile_many", &skel);
	ASSERT_NE(link, NULL);
	ASSERT_EQ(cg_run(self->cg, cg_read_file_twice, self->file), 0);

	/* An ejection is the policy's; the unbinding that follows, the cgroup's. */
	snprintf(want, sizeof(want), "unbound policy=hostile_many cgroup=%s",
		 self->cg);
	EXPECT_EQ(wait_line(pipefd[0], want, self->out, sizeof(self->out),
			    20000), 0) TH_LOG("want '%s' in\n%s", want, self->out);
	EXPECT_NE(strstr(self->out, "ejected policy=hostile_many reason=more candidates than requested\n"
			 "  why: evict_folios() proposed "),
		  NULL) TH_LOG("%s", self->out);
	EXPECT_NE(strstr(self->out, "registered policy=hostile_many\n"), NULL);
	EXPECT_NE(strstr(self->out, "bound policy=hostile_many cgroup="), NULL);

	kill(pid, SIGINT);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(pipefd[0]);
	detach_hostile(link, skel);
}

/*
 * An ejected policy: list and attach say so, attach --replace puts a new
 * one in its place and binds it in one step, top shows the cgroup.
 */
TEST_F(cachectl, ejected_policy_replaced_in_one_step)
{
	char *out = self->out;
	size_t len = sizeof(self->out);
	char sel[PATH_MAX], buf[64];

	ASSERT_EQ(cachectl(out, len, "attach %s/fifo.bpf.o --name cfifo --cgroup %s",
			   self->objs, self->cg), 0) TH_LOG("%s", out);
	ASSERT_EQ(write_str("/sys/kernel/cache_ext/policies/cfifo/kill", "1"), 0);
	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", self->cg);
	ASSERT_EQ(wait_for_text(sel, "default\n", 2000), 0);

	ASSERT_EQ(cachectl(out, len, "list"), 0) TH_LOG("%s", out);
	EXPECT_TRUE(listed_as(out, "cfifo", "ejected (killed by an administrator)"))
		TH_LOG("%s", out);

	EXPECT_EQ(cachectl(out, len, "attach %s/fifo.bpf.o --name cfifo --cgroup %s",
			   self->objs, self->cg), 1);
	EXPECT_NE(strstr(out,
			 "but was ejected: killed by an administrator; "
			 "attach it again with --replace"), NULL) TH_LOG("%s", out);

	ASSERT_EQ(cachectl(out, len, "attach %s/fifo.bpf.o --name cfifo --replace --cgroup %s",
			   self->objs, self->cg), 0) TH_LOG("%s", out);
	EXPECT_NE(strstr(out, "attached cfifo"), NULL) TH_LOG("%s", out);
	ASSERT_GE(read_text(sel, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "cfifo\n");
	ASSERT_EQ(cachectl(out, len, "list"), 0) TH_LOG("%s", out);
	EXPECT_TRUE(listed_as(out, "cfifo", "active")) TH_LOG("%s", out);

	/* top: one frame, the cgroup and its policy in it. */
	ASSERT_EQ(cg_run(self->cg, cg_read_file_twice, self->file), 0);
	ASSERT_EQ(cachectl(out, len, "top -n 1 -d 1"), 0) TH_LOG("%s", out);
	EXPECT_NE(strstr(out, "HIT%"), NULL) TH_LOG("%s", out);
	EXPECT_NE(strstr(out, "cfifo"), NULL) TH_LOG("%s", out);
	EXPECT_EQ(cachectl(out, len, "top -n 0"), 2) TH_LOG("%s", out);
}

/* Writes @text to @path, replacing it. */
static int write_conf(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(text, f) < 0 ? -EIO : 0;
	return fclose(f) ? -errno : ret;
}

/*
 * cachectl apply and status with a configuration: a policy line registers
 * its object, a bind line binds an existing cgroup; status agrees with
 * memory.cache_ext and shows the target whose cgroup does not exist yet.
 * apply --watch binds again a cgroup removed and created again (a service
 * restarted) and one created later under a parent created later (a slice
 * started later), each within two seconds, without polling; SIGHUP reads
 * a changed configuration; SIGTERM ends it with status 0.
 */
TEST_F(cachectl, apply_binds_and_watch_rebinds)
{
	char conf[PATH_MAX], text[PATH_MAX * 2], sel[PATH_MAX], buf[64];
	const char *later = "/sys/fs/cgroup/cache_ext_later";
	const char *child = "/sys/fs/cgroup/cache_ext_later/child";
	const char *rel = self->cg + strlen("/sys/fs/cgroup/");
	char *out = self->out;
	size_t len = sizeof(self->out);
	int pipefd[2], st;
	pid_t pid;

	scratch_path(conf, sizeof(conf), "policies.conf");
	rmdir(child);
	rmdir(later);
	snprintf(text, sizeof(text),
		 "# a test configuration\n"
		 "policy cfifo %s/fifo.bpf.o\n"
		 "bind %s cfifo\n"
		 "bind cache_ext_later/child cfifo\n", self->objs, rel);
	ASSERT_EQ(write_conf(conf, text), 0);
	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", self->cg);

	ASSERT_EQ(cachectl(out, len, "apply --config %s", conf), 0)
		TH_LOG("%s", out);
	EXPECT_NE(strstr(out, "bound cfifo"), NULL) TH_LOG("%s", out);
	EXPECT_NE(strstr(out, "no cgroup yet (cache_ext_later/child)"), NULL)
		TH_LOG("%s", out);
	ASSERT_GE(read_text(sel, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "cfifo\n");
	ASSERT_EQ(cachectl(out, len, "status --config %s", conf), 0)
		TH_LOG("%s", out);
	EXPECT_NE(strstr(out, " cfifo "), NULL) TH_LOG("%s", out);
	EXPECT_NE(strstr(out, " ok\n"), NULL) TH_LOG("%s", out);
	EXPECT_NE(strstr(out, " no cgroup\n"), NULL) TH_LOG("%s", out);
	/* A cgroup bound otherwise differs, and status says so. */
	ASSERT_EQ(write_str(sel, "default"), 0);
	EXPECT_EQ(cachectl(out, len, "status --config %s", conf), 1)
		TH_LOG("%s", out);
	EXPECT_NE(strstr(out, "differs"), NULL) TH_LOG("%s", out);
	/* Mistakes are refused with their line, before anything is bound. */
	ASSERT_EQ(write_conf(conf, "bind db\n"), 0);
	EXPECT_EQ(cachectl(out, len, "apply --config %s", conf), 1);
	EXPECT_NE(strstr(out, ":1: usage: bind TARGET POLICY"), NULL)
		TH_LOG("%s", out);
	ASSERT_EQ(write_conf(conf, text), 0);

	ASSERT_EQ(pipe(pipefd), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		execl(getenv("CACHECTL"), "cachectl", "apply", "--config", conf,
		      "--watch", NULL);
		_exit(127);
	}
	close(pipefd[1]);
	ASSERT_EQ(wait_line(pipefd[0], "watching for the cgroups of 2 targets",
			    out, len, 20000), 0) TH_LOG("%s", out);
	EXPECT_EQ(wait_for_text(sel, "cfifo\n", 2000), 0);

	/* A restart: the cgroup goes and comes back, unbound. */
	ASSERT_EQ(rmdir(self->cg), 0);
	ASSERT_EQ(cg_create(self->cg), 0);
	EXPECT_EQ(wait_for_text(sel, "cfifo\n", 2000), 0);

	/* A slice started later, then its child. */
	ASSERT_EQ(cg_create(later), 0);
	ASSERT_EQ(cg_write(later, "cgroup.subtree_control", "+memory"), 0);
	ASSERT_EQ(cg_create(child), 0);
	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", child);
	EXPECT_EQ(wait_for_text(sel, "cfifo\n", 2000), 0);

	/* A changed configuration, read on SIGHUP. */
	snprintf(text, sizeof(text),
		 "policy cfifo %s/fifo.bpf.o\n"
		 "bind cache_ext_later/child default\n", self->objs);
	ASSERT_EQ(write_conf(conf, text), 0);
	kill(pid, SIGHUP);
	EXPECT_EQ(wait_for_text(sel, "default\n", 2000), 0);

	kill(pid, SIGTERM);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(pipefd[0]);
	rmdir(child);
	rmdir(later);
	unlink(conf);
}

TEST_HARNESS_MAIN
