// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext lifetime and isolation: a policy unregistered while it is
 * being ejected, over and over, under a reader that verifies every page;
 * kfuncs that refuse a memcg the program was not handed, and act on their
 * own callback's binding when it runs inside another policy's init(); the
 * root cgroup that is never bound; an error budget that is a rate, not a
 * lifetime count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "fifo.skel.h"
#include "hostile.skel.h"
#include "intruder.skel.h"
#include "nested_init.skel.h"
#include "slow_errors.skel.h"

#define FILE_PAGES	4096		/* 16 MiB per file */
#define MEMCG_MAX	"32M"		/* two of the three files fit */
#define NR_FILES	3
#define ROUNDS		120
#define OVERRUN_LIMIT	4		/* CACHE_EXT_OVERRUN_LIMIT */

FIXTURE(lifetime) {
	char *cg;
	uint64_t cg_id;
	char files[NR_FILES][PATH_MAX];
	pid_t reader;
};

FIXTURE_SETUP(lifetime)
{
	int i;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	ASSERT_EQ(trace_start(), 0);
	self->cg = memcg_create("cache_ext_lifetime");
	ASSERT_NE(self->cg, NULL);
	ASSERT_EQ(cg_write(self->cg, "memory.max", MEMCG_MAX), 0);
	self->cg_id = cgroup_id_of(self->cg);
	for (i = 0; i < NR_FILES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "life%c", 'A' + i);
		scratch_path(self->files[i], PATH_MAX, name);
		ASSERT_EQ(make_file(self->files[i], FILE_PAGES), 0);
	}
}

FIXTURE_TEARDOWN(lifetime)
{
	int i;

	if (self->reader > 0) {
		kill(self->reader, SIGKILL);
		waitpid(self->reader, NULL, 0);
	}
	restore_core_params();
	for (i = 0; i < NR_FILES; i++)
		unlink(self->files[i]);
	if (self->cg) {
		cg_destroy(self->cg);
		free(self->cg);
	}
}

/* Read every file, verifying every page, until killed; exit 1 on bad data. */
static int read_forever(const char *cgroup, void *files)
{
	for (;;)
		if (read_files(files, NR_FILES))
			return EXIT_FAILURE;
}

static int read_all(const char *cgroup, void *files)
{
	return read_files(files, NR_FILES) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The reader is still running: it found no bad page. */
static int reader_alive(pid_t pid)
{
	return waitpid(pid, NULL, WNOHANG) == 0;
}

/* Start `cachectl monitor` into @log if CACHECTL is set; its pid or 0. */
static pid_t start_monitor(const char *log)
{
	const char *cachectl = getenv("CACHECTL");
	char line[256] = "";
	pid_t pid;
	FILE *f;
	int i;

	if (!cachectl || !getenv("CACHE_EXT_CTL_KO") || ctl_module_load())
		return 0;
	pid = fork();
	if (pid < 0)
		return 0;
	if (!pid) {
		if (!freopen(log, "w", stdout))
			_exit(127);
		execl(cachectl, "cachectl", "monitor", NULL);
		_exit(127);
	}
	/* It says "# monitoring" once it is subscribed. */
	for (i = 0; i < 1000 && !strstr(line, "# monitoring"); i++) {
		usleep(10000);
		f = fopen(log, "r");
		if (!f)
			continue;
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	return pid;
}

/*
 * Check the monitor's events: no event names an empty policy, and a
 * policy is never reported (ejected, bound, unbound) between its
 * "unregistered" and its next "registered".  Returns the number of
 * violations; @ejected receives the ejections seen.
 */
static int check_events(const char *log, int *ejected)
{
	char line[512], name[64], gone[8][64];
	int nr_gone = 0, bad = 0, i;
	FILE *f = fopen(log, "r");

	*ejected = 0;
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "policy=");

		if (!p)
			continue;
		if (sscanf(p, "policy=%63s", name) != 1 || p[7] == ' ' ||
		    p[7] == '\n') {
			fprintf(stderr, "# event without a name: %s", line);
			bad++;
			continue;
		}
		for (i = 0; i < nr_gone && strcmp(gone[i], name); i++)
			;
		if (!strncmp(line, "registered ", 11)) {
			if (i < nr_gone && i != --nr_gone)
				memcpy(gone[i], gone[nr_gone], sizeof(gone[i]));
		} else if (!strncmp(line, "unregistered ", 13)) {
			if (i == nr_gone && nr_gone < 8)
				strcpy(gone[nr_gone++], name);
		} else if (i < nr_gone) {
			fprintf(stderr, "# event after unregistration: %s", line);
			bad++;
		}
		*ejected += !strncmp(line, "ejected ", 8);
	}
	fclose(f);
	return bad;
}

/*
 * Register a policy that is ejected by its first evict_folios() calls and
 * unregister it at once, while the ejection may still be in flight; 120
 * times, rotating three kinds of misbehaviour, under a reader that
 * verifies every page.  hostile_spin is unregistered while it spins in
 * evict_folios(), over its time budget: its ejection is decided after
 * unregistration began, the case that used to free the policy under its
 * own ejection work.  The policy must never be used after it is freed
 * (KASAN in `make check-debug`; an oops otherwise), every event must
 * name it and come before its unregistration, no data may be lost, and
 * the cgroup must take a policy again afterwards.
 */
TEST_F_TIMEOUT(lifetime, unregister_while_ejecting, 600)
{
	static const char *const kinds[] = {
		"hostile_many", "hostile_dup", "hostile_spin",
	};
	char log[PATH_MAX];
	struct bpf_link *link;
	struct hostile *skel;
	struct fifo *fifo;
	int round, tries, want, raced = 0, ejected = 0;
	pid_t monitor;

	scratch_path(log, sizeof(log), "monitor.log");
	monitor = start_monitor(log);
	self->reader = cg_run_nowait(self->cg, read_forever, self->files);
	ASSERT_GT(self->reader, 0);

	/* hostile_spin: 30 ms a call, over a 5 ms budget. */
	ASSERT_EQ(set_core_param("evict_budget_ms", 5), 0);
	for (round = 0; round < ROUNDS; round++) {
		const char *kind = kinds[round % 3];

		/* An ejection unbinds from a work item: the cgroup frees up. */
		for (tries = 0; tries < 100; tries++) {
			link = attach_hostile_spin(self->cg_id, kind, 30000000,
						   1, &skel);
			if (link)
				break;
			hostile__destroy(skel);
			usleep(10000);
		}
		ASSERT_NE(link, NULL) TH_LOG("round %d: attach %s: %s", round,
					     kind, strerror(errno));
		/*
		 * Wait for the call that ejects it (hostile_spin: the one
		 * that makes CACHE_EXT_OVERRUN_LIMIT overruns in a row, while
		 * it spins), then unregister at once.
		 */
		want = round % 3 == 2 ? OVERRUN_LIMIT : 1;
		for (tries = 0; tries < 4000 && skel->bss->nr_evict_calls < want;
		     tries++)
			usleep(500);
		raced += skel->bss->nr_evict_calls >= want;
		detach_hostile(link, skel);
		ASSERT_TRUE(reader_alive(self->reader))
			TH_LOG("round %d: the reader saw bad data", round);
	}
	TH_LOG("%d of %d rounds unregistered right after the first call",
	       raced, ROUNDS);
	EXPECT_GT(raced, ROUNDS / 2);
	EXPECT_GT(trace_count("cache_ext_eject:", "policy=hostile_spin ",
			      "(evict_folios() over its time budget)", NULL), 0);
	ASSERT_EQ(restore_core_params(), 0);

	ASSERT_TRUE(reader_alive(self->reader));
	kill(self->reader, SIGKILL);
	waitpid(self->reader, NULL, 0);
	self->reader = 0;

	/* The cgroup takes a policy again, and it works. */
	fifo = fifo__open();
	ASSERT_NE(fifo, NULL);
	fifo->struct_ops.fifo->cgroup_id = self->cg_id;
	ASSERT_EQ(fifo__load(fifo), 0);
	link = bpf_map__attach_struct_ops(fifo->maps.fifo);
	ASSERT_NE(link, NULL);
	/* Count this policy's evictions only. */
	ASSERT_EQ(trace_start(), 0);
	ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);
	EXPECT_POLICY_EVICTED();
	bpf_link__destroy(link);
	fifo__destroy(fifo);

	if (monitor) {
		usleep(200000);
		kill(monitor, SIGINT);
		waitpid(monitor, NULL, 0);
		EXPECT_EQ(check_events(log, &ejected), 0);
		TH_LOG("the monitor saw %d ejections", ejected);
		EXPECT_GT(ejected, 0);
		unlink(log);
	}
}

/* The root cgroup is never bound: not at registration either. */
TEST_F(lifetime, root_cgroup_refused)
{
	struct fifo *fifo;
	struct bpf_link *link;

	EXPECT_NE(access("/sys/fs/cgroup/memory.cache_ext", F_OK), 0);
	fifo = fifo__open();
	ASSERT_NE(fifo, NULL);
	fifo->struct_ops.fifo->cgroup_id = cgroup_id_of("/sys/fs/cgroup");
	ASSERT_EQ(fifo->struct_ops.fifo->cgroup_id, 1);
	ASSERT_EQ(fifo__load(fifo), 0);
	link = bpf_map__attach_struct_ops(fifo->maps.fifo);
	EXPECT_EQ(link, NULL);
	EXPECT_EQ(errno, EINVAL);
	bpf_link__destroy(link);
	fifo__destroy(fifo);
}

/*
 * Duplicates at 10 a second for 10 s: more errors than the budget of 64
 * in all, far fewer within any second.  The budget is a rate: no
 * ejection.
 */
TEST_F(lifetime, error_budget_is_a_rate)
{
	struct slow_errors *skel;
	struct bpf_link *link;
	struct timespec t0, t;

	skel = slow_errors__open();
	ASSERT_NE(skel, NULL);
	skel->struct_ops.slow_errors->cgroup_id = self->cg_id;
	ASSERT_EQ(slow_errors__load(skel), 0);
	link = bpf_map__attach_struct_ops(skel->maps.slow_errors);
	ASSERT_NE(link, NULL);

	/* 10 s, or up to 60 s on a slow machine until 80 errors were made. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		ASSERT_EQ(cg_run(self->cg, read_all, self->files), 0);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 10 ||
		 (skel->bss->nr_duplicates <= 80 && t.tv_sec - t0.tv_sec < 60));
	TH_LOG("%llu duplicates in %llu evict calls over %ld s",
	       skel->bss->nr_duplicates, skel->bss->nr_evict_calls,
	       (long)(t.tv_sec - t0.tv_sec));
	EXPECT_GT(skel->bss->nr_duplicates, 64);
	EXPECT_EQ(trace_count("cache_ext_eject:", "policy=slow_errors", NULL), 0);
	EXPECT_EQ(cg_read_strcmp(self->cg, "memory.cache_ext", "slow_errors\n"), 0);

	bpf_link__destroy(link);
	slow_errors__destroy(skel);
}

static char verifier_log[65536];
static size_t verifier_log_len;

static int capture_log(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	if (verifier_log_len < sizeof(verifier_log) - 1)
		verifier_log_len += vsnprintf(verifier_log + verifier_log_len,
					      sizeof(verifier_log) - verifier_log_len,
					      fmt, ap);
	return 0;
}

/* Load only struct_ops map @name of the intruder object: 0 or -errno. */
static int load_only(const char *name)
{
	struct intruder *skel = intruder__open();
	struct bpf_map *map;
	int ret;

	if (!skel)
		return -errno;
	bpf_object__for_each_map(map, skel->obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			bpf_map__set_autocreate(map, !strcmp(bpf_map__name(map), name));
	verifier_log_len = 0;
	verifier_log[0] = '\0';
	ret = intruder__load(skel);
	intruder__destroy(skel);
	return ret;
}

/*
 * A memcg reached by walking from the current task may be any cgroup's,
 * bound to any policy: every kfunc that names a binding refuses it when
 * the program loads.  The same calls on the callback's own memcg load.
 */
TEST(kfuncs_refuse_walked_memcg)
{
	static const char *const intruders[] = {
		"intrude_create_ops", "intrude_add_ops", "intrude_move_ops",
		"intrude_del_ops", "intrude_size_ops", "intrude_iter_ops",
	};
	libbpf_print_fn_t old = libbpf_set_print(capture_log);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(intruders); i++) {
		EXPECT_NE(load_only(intruders[i]), 0) TH_LOG("%s loaded", intruders[i]);
		EXPECT_NE(strstr(verifier_log, "must be referenced or trusted"), NULL)
			TH_LOG("%s: not refused for its pointer:\n%s", intruders[i],
			       verifier_log);
	}
	EXPECT_EQ(load_only("own_ops"), 0) TH_LOG("%s", verifier_log);
	libbpf_set_print(old);
}

#define NR_CHILDREN	200
#define NR_MKDIRS	100

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * In a child process: mkdir and rmdir an unrelated cgroup @n times, and
 * put each mkdir's latency (ms) in @lat (shared memory).
 */
static pid_t start_mkdirs(double *lat, int n, int tag)
{
	pid_t pid = fork();
	char path[PATH_MAX];
	int i;

	if (pid)
		return pid;
	for (i = 0; i < n; i++) {
		double t0;

		snprintf(path, sizeof(path),
			 "/sys/fs/cgroup/cache_ext_unrelated%d_%d", tag, i);
		t0 = mono_ms();
		if (mkdir(path, 0755))
			_exit(1);
		lat[i] = mono_ms() - t0;
		if (rmdir(path))
			_exit(1);
	}
	_exit(0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double p99(double *lat, int n)
{
	qsort(lat, n, sizeof(*lat), cmp_double);
	return lat[(n * 99) / 100 - (n >= 100)];
}

static int exited_ok(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

/*
 * A callback of one policy nested in another policy's init() acts on its
 * own binding.  The binder, in a cgroup bound to "nested", selects
 * "faulting" for another cgroup; faulting's init() reads the binder's
 * unfaulted mapping of a file, whose page comes in through the page cache
 * of the binder's cgroup, so nested's folio_added() runs inside that
 * init(), on the same task.  Its list_add() on its own memcg must work:
 * a kfunc that took init()'s binding for its caller would refuse it.
 */
TEST(callback_nested_in_init_acts_on_its_own_binding)
{
	struct bpf_link *faulting = NULL, *nested = NULL;
	struct nested_init *skel;
	char *bind_cg, *binder_cg, path[PATH_MAX], file[PATH_MAX];
	void *map;
	pid_t pid;
	int fd;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	bind_cg = memcg_create("cache_ext_nest_target");
	binder_cg = memcg_create("cache_ext_nest_binder");
	ASSERT_NE(bind_cg, NULL);
	ASSERT_NE(binder_cg, NULL);
	scratch_path(file, sizeof(file), "nested_init");
	ASSERT_EQ(make_file(file, 64), 0);	/* and out of the page cache */
	fd = open(file, O_RDONLY);
	ASSERT_GE(fd, 0);
	map = mmap(NULL, 64 * 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(map, MAP_FAILED);
	close(fd);
	ASSERT_EQ(cached_pages(file), 0);

	skel = nested_init__open();
	ASSERT_NE(skel, NULL);
	skel->struct_ops.nested->cgroup_id = cgroup_id_of(binder_cg);
	ASSERT_EQ(nested_init__load(skel), 0);
	skel->bss->fault_addr = (unsigned long)map + 4096;
	nested = bpf_map__attach_struct_ops(skel->maps.nested);
	faulting = bpf_map__attach_struct_ops(skel->maps.faulting);
	ASSERT_NE(nested, NULL);
	ASSERT_NE(faulting, NULL);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		skel->bss->binder_tgid = getpid();
		if (cg_enter_current(binder_cg))
			_exit(2);
		snprintf(path, sizeof(path), "%s/memory.cache_ext", bind_cg);
		_exit(write_str(path, "faulting") ? 1 : 0);
	}
	EXPECT_TRUE(exited_ok(pid));
	EXPECT_EQ(skel->bss->init_done, 1);
	EXPECT_GT(skel->bss->copy_ret, 0);
	/* The fault's folios were nested's, told of inside that init(). */
	EXPECT_GT(skel->bss->nested_added, 0);
	EXPECT_EQ(skel->bss->nested_failed, 0)
		TH_LOG("%llu of %llu list_add() calls failed, the last with %lld",
		       (unsigned long long)skel->bss->nested_failed,
		       (unsigned long long)skel->bss->nested_added,
		       (long long)skel->bss->nested_last_err);

	bpf_link__destroy(faulting);
	bpf_link__destroy(nested);
	nested_init__destroy(skel);
	munmap(map, 64 * 4096);
	unlink(file);
	cg_destroy(bind_cg);
	cg_destroy(binder_cg);
	free(bind_cg);
	free(binder_cg);
}

/*
 * 200 cgroups that inherited a policy removed in a loop, while another
 * task creates and removes unrelated cgroups: every binding ends (its
 * exit() and grace period run from a work item, not under cgroup_mutex,
 * which lockdep checks on the debug kernel), and the unrelated task's
 * mkdir latency is reported before and during the removals.
 */
FIXTURE(rmdir_storm) {
};

FIXTURE_SETUP(rmdir_storm)
{
}

FIXTURE_TEARDOWN(rmdir_storm)
{
}

TEST_F_TIMEOUT(rmdir_storm, bound_cgroups_removed_beside_other_cgroup_work,
	       600)
{
	struct policy p = { 0 };
	double *lat, before, during;
	char *parent, *child[NR_CHILDREN];
	pid_t pid;
	long ended = 0;
	int i;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	lat = mmap(NULL, 2 * NR_MKDIRS * sizeof(*lat), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(lat, MAP_FAILED);
	parent = memcg_create("cache_ext_rmdir");
	ASSERT_NE(parent, NULL);
	ASSERT_EQ(cg_write(parent, "cgroup.subtree_control", "+memory"), 0);
	ASSERT_EQ(policy_attach(&p, "fifo", NULL, cgroup_id_of(parent), NULL),
		  0);
	for (i = 0; i < NR_CHILDREN; i++) {
		char name[32];

		snprintf(name, sizeof(name), "c%d", i);
		child[i] = cg_name(parent, name);
		ASSERT_NE(child[i], NULL);
		ASSERT_EQ(cg_create(child[i]), 0);
	}
	for (i = 0; i < NR_CHILDREN; i++)
		ASSERT_EQ(wait_for_selection(child[i], "fifo (inherited)\n"), 0)
			TH_LOG("child %d", i);

	pid = start_mkdirs(lat, NR_MKDIRS, 0);
	ASSERT_EQ(exited_ok(pid), 1);
	before = p99(lat, NR_MKDIRS);

	ASSERT_EQ(trace_start(), 0);
	pid = start_mkdirs(lat + NR_MKDIRS, NR_MKDIRS, 1);
	for (i = 0; i < NR_CHILDREN; i++) {
		EXPECT_EQ(cg_destroy(child[i]), 0);
		free(child[i]);
	}
	ASSERT_EQ(exited_ok(pid), 1);
	during = p99(lat + NR_MKDIRS, NR_MKDIRS);
	/* css offlining, then the work item that ends the binding. */
	for (i = 0; i < 1000 && ended < NR_CHILDREN; i++) {
		ended = trace_count("cache_ext_unbind:", "policy=fifo ", NULL);
		usleep(10000);
	}
	TH_LOG("unrelated mkdir p99: %.1f ms before, %.1f ms while %d bound cgroups were removed; %ld bindings ended",
	       before, during, NR_CHILDREN, ended);
	EXPECT_EQ(ended, NR_CHILDREN);
	EXPECT_LT(during, 1000);

	policy_detach(&p);
	cg_destroy(parent);
	free(parent);
	munmap(lat, 2 * NR_MKDIRS * sizeof(*lat));
}

TEST_HARNESS_MAIN
