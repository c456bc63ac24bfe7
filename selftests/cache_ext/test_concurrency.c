// SPDX-License-Identifier: GPL-2.0
/*
 * Many tasks, one cgroup: eight readers reclaiming at once under every
 * shipped policy, and four busy cgroups at once, with no policy ejected
 * and every page verified; the time budget charging the policy's own
 * calls (one overrun in a row is forgiven, a policy slow every time is
 * not, an event callback included), and a call past its budget refused
 * more work.  A slow policy stalls no other task: reclaimers do not wait
 * for each other's policy call, and callbacks slow on every folio or
 * every eviction are ejected by their time per second.  A callback whose
 * loops never end on their own ends anyway, and nothing waits for it; one
 * that interrupts keep from running its budget ends at twice its budget of
 * time on its CPU.  A callback is preemptible where its call site is:
 * another task gets its CPU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "hostile.skel.h"
#include "workload.h"

#define FILE_PAGES	16384		/* 64 MiB */
#define MEMCG_MAX	"8M"
#define READERS		8
#define READS		3000		/* per reader */
#define NR_CGROUPS	4

FIXTURE(conc) {
	char *cg[NR_CGROUPS];
	uint64_t cg_id[NR_CGROUPS];
	char file[NR_CGROUPS][PATH_MAX];
	struct policy p[NR_CGROUPS];
};

FIXTURE_SETUP(conc)
{
	int i;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	/*
	 * The budgets these tests are written for, whatever the machine
	 * booted with (make check-debug raises them).
	 */
	ASSERT_EQ(set_core_param("evict_budget_ms", 200), 0);
	ASSERT_EQ(set_core_param("event_budget_ms", 200), 0);
	ASSERT_EQ(set_core_param("irqs_off_budget_us", 1000), 0);
	ASSERT_EQ(set_core_param("rate_budget_ms", 500), 0);
	ASSERT_EQ(trace_start(), 0);
	for (i = 0; i < NR_CGROUPS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "cache_ext_conc%d", i);
		self->cg[i] = memcg_create(name);
		ASSERT_NE(self->cg[i], NULL);
		ASSERT_EQ(cg_write(self->cg[i], "memory.max", MEMCG_MAX), 0);
		self->cg_id[i] = cgroup_id_of(self->cg[i]);
		snprintf(name, sizeof(name), "conc%d", i);
		scratch_path(self->file[i], PATH_MAX, name);
	}
}

/*
 * The files of the first @n cgroups, not cached: the pages a file is
 * written with are charged to the writer's (root) cgroup, and reads of
 * them would never make the test cgroups reclaim.
 */
static int make_files(FIXTURE_DATA(conc) *self, int n)
{
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++)
		ret = make_file(self->file[i], FILE_PAGES) ?:
		      drop_file_cache(self->file[i]);
	return ret;
}

FIXTURE_TEARDOWN(conc)
{
	int i;

	restore_core_params();
	for (i = 0; i < NR_CGROUPS; i++) {
		policy_detach(&self->p[i]);
		unlink(self->file[i]);
		if (self->cg[i]) {
			cg_destroy(self->cg[i]);
			free(self->cg[i]);
		}
	}
	unlink("/sys/fs/bpf/get_scan_tids");
}

static int start_readers(const char *cg, const char *file, int n, pid_t *pids,
			 uint64_t seed)
{
	return zipf_readers_start(cg, file, FILE_PAGES, n, READS, seed, pids);
}

static int scan_file(const char *cgroup, void *path)
{
	return read_and_verify(path) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * Eight readers in one cgroup, at the default budget, under every
 * shipped policy: none is ejected, the policy decides, every page read is
 * right.
 */
TEST_F_TIMEOUT(conc, eight_readers_every_policy, 600)
{
	static const char *const policies[] = {
		"fifo", "lfu", "mru", "s3fifo", "lhd", "mglru", "get_scan",
		"admit_filter", "noop", "tracer", "ml_protect", "ml_rank",
	};
	pid_t pids[READERS];
	char id[32], sel[32];
	size_t i;

	ASSERT_EQ(make_files(self, 1), 0);
	snprintf(id, sizeof(id), "cgroup=%llu ",
		 (unsigned long long)self->cg_id[0]);
	for (i = 0; i < ARRAY_SIZE(policies); i++) {
		long calls;

		ASSERT_EQ(drop_file_cache(self->file[0]), 0);
		ASSERT_EQ(trace_start(), 0);
		ASSERT_EQ(policy_attach(&self->p[0], policies[i], NULL,
					self->cg_id[0], NULL), 0);
		ASSERT_EQ(start_readers(self->cg[0], self->file[0], READERS,
					pids, 1 + i * READERS), 0);
		EXPECT_EQ(readers_wait(pids, READERS), 0) TH_LOG("%s", policies[i]);
		calls = trace_count("cache_ext_evict:", id, NULL);
		TH_LOG("%-12s %ld evict_folios() calls, %ld ejections",
		       policies[i], calls, trace_ejections(policies[i]));
		EXPECT_EQ(trace_ejections(policies[i]), 0) TH_LOG("%s", policies[i]);
		/* admit_filter only decides admission. */
		if (strcmp(policies[i], "admit_filter"))
			EXPECT_GT(calls, 0) TH_LOG("%s was never asked", policies[i]);
		snprintf(sel, sizeof(sel), "%s\n", policies[i]);
		EXPECT_EQ(cg_read_strcmp(self->cg[0], "memory.cache_ext", sel), 0);
		policy_detach(&self->p[0]);
		unlink("/sys/fs/bpf/get_scan_tids");
	}
}

/* Four cgroups, four policies, two readers each, all at once. */
TEST_F(conc, four_busy_cgroups)
{
	static const char *const policies[NR_CGROUPS] = {
		"fifo", "lfu", "s3fifo", "mglru",
	};
	pid_t pids[NR_CGROUPS][2];
	int i;

	ASSERT_EQ(make_files(self, NR_CGROUPS), 0);
	for (i = 0; i < NR_CGROUPS; i++)
		ASSERT_EQ(policy_attach(&self->p[i], policies[i], NULL,
					self->cg_id[i], NULL), 0);
	for (i = 0; i < NR_CGROUPS; i++)
		ASSERT_EQ(start_readers(self->cg[i], self->file[i], 2, pids[i],
					100 + 2 * i), 0);
	for (i = 0; i < NR_CGROUPS; i++) {
		char id[32];

		snprintf(id, sizeof(id), "cgroup=%llu ",
			 (unsigned long long)self->cg_id[i]);
		EXPECT_EQ(readers_wait(pids[i], 2), 0) TH_LOG("%s", policies[i]);
		EXPECT_EQ(trace_ejections(policies[i]), 0) TH_LOG("%s", policies[i]);
		EXPECT_GT(trace_count("cache_ext_evict:", id, NULL), 0)
			TH_LOG("%s was never asked", policies[i]);
	}
}

/*
 * Every other evict_folios() call spins past the budget: each overrun is
 * followed by a call within it, so the policy stays.  Past its budget, a
 * call gets -ETIME for a proposal and nothing more from the iterator.
 */
TEST_F(conc, occasional_overrun_forgiven)
{
	struct hostile *skel;
	struct bpf_link *link;
	pid_t pids[2];
	int round;

	ASSERT_EQ(make_files(self, 1), 0);
	ASSERT_EQ(set_core_param("evict_budget_ms", 20), 0);
	link = attach_hostile_spin(self->cg_id[0], "hostile_spin", 40000000, 2,
				   &skel);
	ASSERT_NE(link, NULL);
	/* The kernel's LRU makes up for what it does not propose: read on. */
	for (round = 0; round < 10 && skel->bss->nr_spins < 4; round++) {
		ASSERT_EQ(start_readers(self->cg[0], self->file[0], 2, pids,
					7 + 2 * round), 0);
		EXPECT_EQ(readers_wait(pids, 2), 0);
	}
	TH_LOG("%llu calls, %llu spun past the budget, %llu refused, %llu within it (interrupts left out)",
	       skel->bss->nr_evict_calls, skel->bss->nr_spins,
	       skel->bss->nr_spins_refused, skel->bss->nr_spins_in_budget);
	EXPECT_GE(skel->bss->nr_spins, 4);
	EXPECT_EQ(trace_ejections("hostile_spin"), 0);
	/* Refused past the budget, and the iterator gave nothing more. */
	EXPECT_GE(skel->bss->nr_spins_refused, 1);
	EXPECT_EQ(skel->bss->late_yields, 0);
	detach_hostile(link, skel);
}

/* A folio_removed() slow every time is ejected like a slow evict_folios(). */
TEST_F(conc, slow_event_callback_ejected)
{
	struct hostile *skel;
	struct bpf_link *link;

	ASSERT_EQ(make_files(self, 1), 0);
	ASSERT_EQ(set_core_param("event_budget_ms", 5), 0);
	link = attach_hostile(self->cg_id[0], "hostile_slowrm", &skel);
	ASSERT_NE(link, NULL);
	/* 64 MiB through 8: evictions from the start. */
	EXPECT_EQ(cg_run(self->cg[0], scan_file, self->file[0]), 0);
	TH_LOG("%llu folio_removed() calls", skel->bss->nr_removed);
	EXPECT_EQ(trace_count("cache_ext_eject:", "policy=hostile_slowrm ",
			      "(an event callback over its time budget)", NULL), 1);
	detach_hostile(link, skel);
}

/*
 * While the @n readers of @pids run, start a process from the test's own
 * (unbound) cgroup every 20 ms and wait for it, as a shell runs a command,
 * and return the longest that took, in ms: the time for the guest to
 * schedule two tasks and answer.  (Not a shell itself: exec of /bin/sh
 * over the guest's 9p root costs more than the property measured.)  Reaps
 * the readers: *@failed counts those that did not exit 0 (a page read
 * wrong, or killed).
 */
static int answer(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static double worst_answer_while_reading(pid_t *pids, int n, int *failed)
{
	double worst = 0;
	int left = n, i, status;

	*failed = 0;
	while (left) {
		uint64_t t0 = now_us();
		double took;

		if (answer() != 0)
			(*failed)++;
		took = (now_us() - t0) / 1000.0;
		if (took > worst)
			worst = took;
		usleep(20000);
		for (i = 0; i < n; i++) {
			if (!pids[i] || waitpid(pids[i], &status, WNOHANG) <= 0)
				continue;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				(*failed)++;
			pids[i] = 0;
			left--;
		}
	}
	return worst;
}

/* Keep task @pid (0: this one) on CPU @cpu; 0, or -1. */
static int pin_to_cpu(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

/*
 * Keep @n readers on CPU 0 and this task (the answering side) on CPU 1:
 * "the other vCPU" of a callback that holds its CPU.  Without it the
 * scheduler may queue the answer on the CPU the callback holds, and the
 * answer waits for the watchdog, however fast the rest of the guest is.
 * 0, or -1 if the guest has one CPU.
 */
static int split_cpus(const pid_t *pids, int n)
{
	int i;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return -1;
	for (i = 0; i < n; i++)
		if (pin_to_cpu(pids[i], 0))
			return -1;
	return pin_to_cpu(0, 1);
}

/* Let this task run anywhere again. */
static void any_cpu(void)
{
	cpu_set_t set;
	long i, n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&set);
	for (i = 0; i < n; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Evaluate @op, raising @worst to the ms it took if more; its value. */
#define TIMED_MS(worst, op) ({						\
	uint64_t __t0 = now_us();					\
	int __ret = (op);						\
	double __ms = (now_us() - __t0) / 1000.0;			\
									\
	if (__ms > (worst))						\
		(worst) = __ms;						\
	__ret;								\
})

/*
 * After the runaway of cgroup 0 was ejected: reading its memory.cache_ext,
 * binding fifo (registered beforehand) there, removing the cgroup and
 * creating it again each take less than a second: nothing waits for the
 * call that ran away.  The worst, in ms, or -1 if one failed.
 */
static double cgroup_ops_after_ejection(FIXTURE_DATA(conc) *self)
{
	double worst = 0;
	char buf[64];

	if (TIMED_MS(worst, cg_read(self->cg[0], "memory.cache_ext", buf,
				    sizeof(buf))) ||
	    TIMED_MS(worst, cg_write(self->cg[0], "memory.cache_ext",
				     "fifo")) ||
	    TIMED_MS(worst, rmdir(self->cg[0])) ||
	    TIMED_MS(worst, cg_create(self->cg[0])) ||
	    cg_write(self->cg[0], "memory.max", MEMCG_MAX))
		return -1;
	self->cg_id[0] = cgroup_id_of(self->cg[0]);
	return worst;
}

/*
 * What a run of read_until_ejected() saw: the worst a command took to
 * answer while the readers ran, in ms; the readers that failed; the worst
 * of the cgroup's operations after the ejection (-1 if one failed).
 */
struct ejection_run {
	double worst;
	int failed;
	double ops;
};

/*
 * Eight readers of cgroup 0's file on one CPU, this task answering on the
 * other, under the hostile policy @skel attached there, again until the
 * policy's exit() ran (at most 8 rounds: a preemptible runaway call lets
 * the readers finish in a few calls); then up to ten seconds for its
 * exit(), and cgroup_ops_after_ejection().  Fifo must be registered
 * (policy_attach() of cgroup 1).  Returns 0, or -1 if the readers did
 * not start.
 */
static int read_until_ejected(FIXTURE_DATA(conc) *self, struct hostile *skel,
			      uint64_t seed, struct ejection_run *run)
{
	pid_t pids[READERS];
	int i, round, failed;
	double worst;

	run->worst = 0;
	run->failed = 0;
	for (round = 0; round < 8 && !skel->bss->nr_exits; round++) {
		if (start_readers(self->cg[0], self->file[0], READERS, pids,
				  seed + 100 * round) ||
		    split_cpus(pids, READERS))
			return -1;
		worst = worst_answer_while_reading(pids, READERS, &failed);
		if (worst > run->worst)
			run->worst = worst;
		run->failed += failed;
	}
	any_cpu();
	for (i = 0; i < 100 && !skel->bss->nr_exits; i++)
		usleep(100000);
	run->ops = cgroup_ops_after_ejection(self);
	return 0;
}

/*
 * evict_folios() takes 150 ms, within its budget, on every call, with
 * eight readers reclaiming: no reclaimer waits for another one's call (the
 * busy binding is not asked, the batch is the LRU's), so the guest starts
 * and reaps a process within a second throughout and every page read is
 * right.  The bound per second is lifted (rate_budget_ms 1000), so that
 * the policy stays bound for the whole run; with it,
 * slow_every_evict_ejected_per_second.
 * Before reclaimers stopped waiting, they spun on the binding with
 * preemption off behind the call, on both virtual CPUs.
 */
TEST_F_TIMEOUT(conc, slow_evict_stalls_no_other_task, 600)
{
	struct hostile *skel;
	struct bpf_link *link;
	pid_t pids[READERS];
	double worst;
	int failed;

	ASSERT_EQ(make_files(self, 1), 0);
	/* Its debugfs stats count the batches that did not wait. */
	ASSERT_EQ(ctl_module_load(), 0);
	ASSERT_EQ(set_core_param("rate_budget_ms", 1000), 0);
	link = attach_hostile_spin(self->cg_id[0], "hostile_spin", 150000000,
				   1, &skel);
	ASSERT_NE(link, NULL);
	ASSERT_EQ(start_readers(self->cg[0], self->file[0], READERS, pids, 41),
		  0);
	worst = worst_answer_while_reading(pids, READERS, &failed);
	TH_LOG("%llu evict_folios() calls of 150 ms, %lld batches the LRU took while the policy was busy; a command answered within %.0f ms at worst",
	       skel->bss->nr_evict_calls,
	       binding_stat(self->cg_id[0], "evict_busy "), worst);
	EXPECT_EQ(failed, 0);
	EXPECT_LT(worst, 1000);
	EXPECT_GE(skel->bss->nr_spins, 1);
	EXPECT_GT(binding_stat(self->cg_id[0], "evict_busy "), 0);
	detach_hostile(link, skel);
}

/*
 * evict_folios() takes 190 ms, within its 200 ms budget, on every call,
 * with eight readers reclaiming on one CPU: its time per second ejects it
 * (calls run one at a time per binding, so its window is the binding's),
 * the other CPU answers within a second throughout, every page reads
 * right, and after the ejection the cgroup's file, binding, rmdir and
 * mkdir answer within a second.  Before, evict_folios() was bounded per
 * call only, and such a policy stayed bound.
 */
TEST_F_TIMEOUT(conc, slow_every_evict_ejected_per_second, 600)
{
	struct ejection_run run;
	struct hostile *skel;
	struct bpf_link *link;

	ASSERT_EQ(make_files(self, 1), 0);
	ASSERT_EQ(policy_attach(&self->p[1], "fifo", NULL, self->cg_id[1],
				NULL), 0);
	link = attach_hostile_spin(self->cg_id[0], "hostile_spin", 190000000,
				   1, &skel);
	ASSERT_NE(link, NULL);
	ASSERT_EQ(read_until_ejected(self, skel, 43, &run), 0);
	TH_LOG("%llu evict_folios() calls of 190 ms; a command answered within %.0f ms at worst, the cgroup's operations after the ejection within %.0f ms; exit() told '%s'",
	       skel->bss->nr_evict_calls, run.worst, run.ops,
	       skel->bss->exit_msg);
	EXPECT_EQ(run.failed, 0);
	EXPECT_LT(run.worst, 1000);
	EXPECT_GE(skel->bss->nr_spins, 3);
	EXPECT_EQ(trace_ejections("hostile_spin"), 1);
	EXPECT_NE(strstr(skel->bss->exit_msg,
			 "evict_folios() calls took over 500000 us of one second"),
		  NULL);
	EXPECT_GE(run.ops, 0);
	EXPECT_LT(run.ops, 1000);
	detach_hostile(link, skel);
}

/*
 * folio_added() or folio_removed() spinning 50 ms on every folio: each
 * call is within the 200 ms event budget (folio_removed(), which runs
 * with interrupts off, given that budget too), so only their time per
 * second can tell; the policy is ejected for it, the other CPU answers
 * within a second meanwhile (the eight readers on one), and every page
 * read is right.
 */
TEST_F_TIMEOUT(conc, per_folio_spinners_ejected, 600)
{
	static const char *const kinds[] = {
		"hostile_slowadd", "hostile_slowrm",
	};
	size_t k;

	ASSERT_EQ(make_files(self, 1), 0);
	ASSERT_EQ(set_core_param("irqs_off_budget_us", 200000), 0);
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		char sel[64];
		struct hostile *skel;
		struct bpf_link *link;
		pid_t pids[READERS];
		double worst;
		int failed;

		ASSERT_EQ(drop_file_cache(self->file[0]), 0);
		ASSERT_EQ(trace_start(), 0);
		link = attach_hostile_event_spin(self->cg_id[0], kinds[k],
						 50000000, &skel);
		ASSERT_NE(link, NULL) TH_LOG("%s", kinds[k]);
		ASSERT_EQ(start_readers(self->cg[0], self->file[0], READERS,
					pids, 61 + k), 0);
		ASSERT_EQ(split_cpus(pids, READERS), 0);
		worst = worst_answer_while_reading(pids, READERS, &failed);
		any_cpu();
		snprintf(sel, sizeof(sel), "policy=%s ", kinds[k]);
		TH_LOG("%s: %llu folio_added(), %llu folio_removed() calls; a command answered within %.0f ms at worst",
		       kinds[k], skel->bss->nr_added, skel->bss->nr_removed,
		       worst);
		EXPECT_EQ(failed, 0) TH_LOG("%s", kinds[k]);
		EXPECT_LT(worst, 1000) TH_LOG("%s", kinds[k]);
		EXPECT_EQ(trace_count("cache_ext_eject:", sel,
				      "(an event callback over its time budget)",
				      NULL), 1) TH_LOG("%s", kinds[k]);
		detach_hostile(link, skel);
	}
}

/*
 * folio_accessed() of 3 ms on every hit, within its budget: its time per
 * second on the readers' CPU ejects it (each call of 1 ms or more counts),
 * the other CPU answers within a second throughout and every page reads
 * right, and after the ejection the cgroup's file, binding, rmdir and
 * mkdir answer within a second.  Before, a callback shorter than two
 * ticks was never counted.
 */
TEST_F_TIMEOUT(conc, slow_every_hit_ejected_per_second, 600)
{
	struct ejection_run run;
	struct hostile *skel;
	struct bpf_link *link;

	ASSERT_EQ(make_files(self, 1), 0);
	ASSERT_EQ(policy_attach(&self->p[1], "fifo", NULL, self->cg_id[1],
				NULL), 0);
	link = attach_hostile_event_spin(self->cg_id[0], "hostile_slowacc",
					 3000000, &skel);
	ASSERT_NE(link, NULL);
	ASSERT_EQ(read_until_ejected(self, skel, 82, &run), 0);
	TH_LOG("%llu folio_accessed() calls; a command answered within %.0f ms at worst, the cgroup's operations after the ejection within %.0f ms; exit() told '%s'",
	       skel->bss->nr_accessed, run.worst, run.ops,
	       skel->bss->exit_msg);
	EXPECT_EQ(run.failed, 0);
	EXPECT_LT(run.worst, 1000);
	EXPECT_EQ(trace_ejections("hostile_slowacc"), 1);
	EXPECT_NE(strstr(skel->bss->exit_msg, "of one second on CPU"), NULL);
	EXPECT_GE(run.ops, 0);
	EXPECT_LT(run.ops, 1000);
	detach_hostile(link, skel);
}

/*
 * Whether this kernel preempts a task running kernel code: built with
 * CONFIG_PREEMPT (or PREEMPT_RT), which uname's version says; a
 * PREEMPT_DYNAMIC kernel when it runs in "full" mode (debugfs).
 */
static bool fully_preemptible(void)
{
	char mode[128] = "";
	struct utsname u;
	FILE *f;

	if (uname(&u))
		return false;
	if (!strstr(u.version, "PREEMPT_DYNAMIC"))
		return strstr(u.version, "PREEMPT ") ||
		       strstr(u.version, "PREEMPT_RT");
	f = fopen("/sys/kernel/debug/sched/preempt", "r");
	if (!f)
		return false;
	if (!fgets(mode, sizeof(mode), f))
		mode[0] = 0;
	fclose(f);
	return strstr(mode, "(full)");
}

/*
 * Callbacks that loop without end and call no kfunc: nested bpf_loop()
 * (which the verifier inlines for other programs), nested bpf_for()
 * (bpf_iter_num), nested bpf_for_each_map_elem(), each in evict_folios(),
 * and nested bpf_loop() in folio_removed() (interrupts off, under the
 * i_pages lock) and in folio_added().  With eight readers on one CPU:
 * every call keeps its CPU less than a second (its loops end once it is
 * past its budget): its task's run time where the kernel preempts it (it
 * shares its CPU with the other readers, and its wall time is theirs
 * too), its wall time where not; a call with interrupts off keeps it less
 * than 100 ms (its 1 ms budget, and whatever the host's scheduling of the
 * guest adds), and its policy is ejected for overruns with interrupts
 * off.  The policy is ejected, the other CPU answers within a second
 * throughout, every page read is right, no RCU stall is reported, and
 * then the cgroup's file, binding, rmdir and mkdir answer within a second.
 * Before, such a loop held its CPU with preemption off for good and the
 * guest reported an RCU stall every minute; and until calls with
 * interrupts off had a budget of their own, folio_removed()'s ran with
 * them off for its 200 ms event budget.
 */
TEST_F_TIMEOUT(conc, runaway_loops_ended, 900)
{
	static const char *const kinds[] = {
		"hostile_loop", "hostile_for", "hostile_mapeach",
		"hostile_looprm", "hostile_loopadd",
	};
	/* Interrupts off: no tick brings its run time up to date. */
	static const bool irqs_off[] = { false, false, false, true, false };
	bool preempts = fully_preemptible();
	size_t k;

	ASSERT_EQ(make_files(self, 1), 0);
	ASSERT_EQ(policy_attach(&self->p[1], "fifo", NULL, self->cg_id[1],
				NULL), 0);
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct ejection_run run;
		struct hostile *skel;
		struct bpf_link *link;
		uint64_t kept;

		ASSERT_EQ(drop_file_cache(self->file[0]), 0);
		ASSERT_EQ(trace_start(), 0);
		link = attach_hostile(self->cg_id[0], kinds[k], &skel);
		ASSERT_NE(link, NULL) TH_LOG("%s", kinds[k]);
		ASSERT_EQ(read_until_ejected(self, skel, 71 + k, &run), 0);
		kept = preempts && !irqs_off[k] ? skel->bss->max_runaway_ns :
						  skel->bss->max_runaway_wall_ns;
		TH_LOG("%s: %llu calls, %llu returned, the longest kept its CPU %.0f ms (%.0f ms in all); a command answered within %.0f ms at worst, the cgroup's operations after the ejection within %.0f ms; exit() told '%s'",
		       kinds[k], skel->bss->nr_runaway_calls,
		       skel->bss->nr_runaway_ended, kept / 1e6,
		       skel->bss->max_runaway_wall_ns / 1e6, run.worst, run.ops,
		       skel->bss->exit_msg);
		EXPECT_EQ(run.failed, 0) TH_LOG("%s", kinds[k]);
		EXPECT_LT(run.worst, 1000) TH_LOG("%s", kinds[k]);
		EXPECT_GE(skel->bss->nr_runaway_calls, 1) TH_LOG("%s", kinds[k]);
		EXPECT_EQ(skel->bss->nr_runaway_ended,
			  skel->bss->nr_runaway_calls) TH_LOG("%s", kinds[k]);
		EXPECT_LT(kept, 1000000000ULL) TH_LOG("%s", kinds[k]);
		if (irqs_off[k]) {
			EXPECT_LT(kept, 100000000ULL) TH_LOG("%s", kinds[k]);
			EXPECT_NE(strstr(skel->bss->exit_msg,
					 "with interrupts off"), NULL)
				TH_LOG("%s", kinds[k]);
		}
		EXPECT_EQ(trace_ejections(kinds[k]), 1) TH_LOG("%s", kinds[k]);
		EXPECT_EQ(skel->bss->nr_exits, 1) TH_LOG("%s", kinds[k]);
		EXPECT_GE(run.ops, 0) TH_LOG("%s", kinds[k]);
		EXPECT_LT(run.ops, 1000) TH_LOG("%s", kinds[k]);
		EXPECT_EQ(kmsg_contains("detected stall"), 0);
		EXPECT_EQ(kmsg_contains("self-detected stall"), 0);
		EXPECT_EQ(kmsg_contains("soft lockup"), 0);
		EXPECT_EQ(kmsg_contains("blocked for more than"), 0);
		detach_hostile(link, skel);
	}
}

/* How long the tick spins, of its 4 ms (HZ=250), in interrupted_call_ended. */
#define IRQ_SPIN_NS	3500000

/*
 * Whether the scheduler leaves interrupt time out of a task's run time, as
 * the kernel leaves it out of a call's: this task spins 300 ms on CPU 0
 * while @skel's tick spins there, and must not have been charged for half
 * of the tick's spins.  Not where there is no CONFIG_IRQ_TIME_ACCOUNTING, or where
 * x86 turned it off on finding the TSC unstable (a loaded host can make a
 * guest's clocksource watchdog do that).
 */
static bool irq_time_apart(struct hostile *skel)
{
	uint64_t start, end, spun = skel->bss->irq_spun_ns;
	struct timespec t0, t1;
	double ran;

	if (pin_to_cpu(0, 0))
		return false;
	skel->bss->runaway_cpu = 1;
	skel->bss->irq_spin_ns = IRQ_SPIN_NS;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	start = now_us();
	do
		end = now_us();
	while (end - start < 300000);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	skel->bss->irq_spin_ns = 0;
	skel->bss->runaway_cpu = 0;
	any_cpu();
	ran = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	spun = skel->bss->irq_spun_ns - spun;
	return spun && ran < (end - start) / 1e3 - spun / 2e6;
}

/*
 * evict_folios() loops without end (nested bpf_loop(), no kfunc) in a
 * reader on CPU 0, and while it runs, the tick's interrupt there spins
 * 3.5 ms of its 4 (a BPF program on update_process_times()): seven
 * eighths of the call's time on its CPU is an interrupt's, which is not
 * its own.  Each call ends by twice its 200 ms budget of time on its CPU
 * (its task's run time and the interrupts meanwhile), at 400 ms: under
 * 900 ms, however late a busy host lets its loop look at the clock; such
 * a cut counts as an overrun, and four in a row eject the policy.  Before calls had
 * that bound, such a call kept its CPU until its own time reached the
 * budget, 1.6 s, or the watchdog ejected its policy, after a second.  On a
 * busy host the interrupt's share falls (the spins leave the call time
 * after delayed ticks), and calls may end at their own budget first.
 * Needs interrupt time accounted apart (irq_time_apart(); the test skips
 * without it) and kprobes (see config).
 */
TEST_F_TIMEOUT(conc, interrupted_call_ended, 300)
{
	struct bpf_link *link, *tick;
	struct hostile *skel;
	pid_t reader;
	int i;

	ASSERT_EQ(make_files(self, 1), 0);
	link = attach_hostile(self->cg_id[0], "hostile_loop", &skel);
	ASSERT_NE(link, NULL);
	tick = bpf_program__attach(skel->progs.irq_spin);
	ASSERT_NE(tick, NULL);
	if (!irq_time_apart(skel)) {
		bool tsc = kmsg_contains("Marking TSC unstable") == 1;

		bpf_link__destroy(tick);
		detach_hostile(link, skel);
		SKIP(return, "interrupt time is not accounted apart%s",
		     tsc ? " (the TSC was marked unstable)" : "");
	}
	skel->bss->irq_spin_ns = IRQ_SPIN_NS;
	reader = cg_run_nowait(self->cg[0], scan_file, self->file[0]);
	ASSERT_GT(reader, 0);
	ASSERT_EQ(split_cpus(&reader, 1), 0);
	for (i = 0; i < 1200 && !skel->bss->nr_exits; i++)
		usleep(50000);
	/* The interrupt spins until the reader's last call has ended. */
	kill(reader, SIGKILL);
	waitpid(reader, NULL, 0);
	skel->bss->irq_spin_ns = 0;
	any_cpu();
	TH_LOG("%llu runaway calls, %llu ended; the longest took %.0f ms, %.0f ms of it on its CPU, its task's %.0f ms at most; the tick spun %.0f ms in all; exit() told '%s'",
	       skel->bss->nr_runaway_calls, skel->bss->nr_runaway_ended,
	       skel->bss->max_runaway_wall_ns / 1e6,
	       skel->bss->max_runaway_cpu_ns / 1e6,
	       skel->bss->max_runaway_ns / 1e6, skel->bss->irq_spun_ns / 1e6,
	       skel->bss->exit_msg);
	EXPECT_GE(skel->bss->nr_runaway_ended, 4);
	EXPECT_EQ(skel->bss->nr_runaway_ended, skel->bss->nr_runaway_calls);
	EXPECT_LT(skel->bss->max_runaway_cpu_ns, 900000000ULL);
	EXPECT_EQ(trace_ejections("hostile_loop"), 1);
	EXPECT_NE(strstr(skel->bss->exit_msg, "evict_folios() took"), NULL);
	EXPECT_NE(strstr(skel->bss->exit_msg, "200000 us budget, 4 times in a row"),
		  NULL);
	bpf_link__destroy(tick);
	detach_hostile(link, skel);
}

#define PROBE_WAKES	16384

/*
 * What probe_run() saw, in CLOCK_MONOTONIC ns (now_us()'s, to the
 * microsecond): when it began and ended, and each of its wakes.
 */
struct probe_log {
	uint64_t start, end;
	unsigned int nr;
	uint64_t at[PROBE_WAKES];
};

/*
 * A real-time task on CPU 0 that wakes every millisecond for @ms and logs
 * when it ran into @log (shared memory): a SCHED_FIFO task that wakes
 * preempts an ordinary task at once, unless that task's CPU cannot be
 * preempted.  Returns its exit status, 0 if it ran as asked.
 */
static int probe_run(struct probe_log *log, unsigned int ms)
{
	struct sched_param prio = { .sched_priority = 50 };
	struct timespec tick = { .tv_nsec = 1000000 };
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		uint64_t until, now;

		if (pin_to_cpu(0, 0) ||
		    sched_setscheduler(0, SCHED_FIFO, &prio))
			_exit(2);
		log->start = now_us() * 1000;
		until = log->start + ms * 1000000ULL;
		do {
			nanosleep(&tick, NULL);
			now = now_us() * 1000;
			if (log->nr < PROBE_WAKES)
				log->at[log->nr++] = now;
		} while (now < until);
		log->end = now;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The probe's wakes during the spins of @skel that began and ended on
 * CPU 0 while it ran, and those spins' time in ms (*@spin_ms).
 */
static unsigned int wakes_in_spins(const struct hostile *skel,
				   const struct probe_log *log,
				   double *spin_ms)
{
	unsigned int i, j, n = skel->bss->nr_spans, wakes = 0;

	*spin_ms = 0;
	if (n > ARRAY_SIZE(skel->bss->spans))
		n = ARRAY_SIZE(skel->bss->spans);
	for (i = 0; i < n; i++) {
		const typeof(skel->bss->spans[0]) *s = &skel->bss->spans[i];

		if (s->cpu_start || s->cpu_end || s->start < log->start ||
		    s->end > log->end)
			continue;
		*spin_ms += (s->end - s->start) / 1e6;
		for (j = 0; j < log->nr && j < PROBE_WAKES; j++)
			wakes += log->at[j] > s->start && log->at[j] < s->end;
	}
	return wakes;
}

/*
 * The recorded spins of @skel that ended before @ns: their loops were cut.
 * Each is logged with its iterations: fewer than the loop's bound, the
 * kernel ended it.
 */
static unsigned int spins_cut(struct __test_metadata *_metadata,
			      const struct hostile *skel, uint64_t ns)
{
	unsigned int i, n = skel->bss->nr_spans, cut = 0;

	if (n > ARRAY_SIZE(skel->bss->spans))
		n = ARRAY_SIZE(skel->bss->spans);
	for (i = 0; i < n; i++) {
		uint64_t took = skel->bss->spans[i].end - skel->bss->spans[i].start;

		if (took >= ns)
			continue;
		TH_LOG("spin %u of %u cut after %.3f ms, %u iterations, CPU %u to %u",
		       i, n, took / 1e6, skel->bss->spans[i].iters,
		       skel->bss->spans[i].cpu_start, skel->bss->spans[i].cpu_end);
		cut++;
	}
	return cut;
}

/*
 * evict_folios(), folio_added() and folio_accessed() each spin 100 ms,
 * within their budgets (the bound per second lifted), in two readers on
 * CPU 0, while a real-time task on CPU 0 wakes every millisecond for 3 s
 * from the first spin on: it runs during the spins, at least a quarter
 * as often as its own rate over the run would have it (the callbacks run
 * with migration disabled, not preemption: each spin begins and ends on
 * CPU 0, and the task ran meanwhile); its rate falls on a loaded host,
 * the ratio does not.  Before, it never ran during one.  And no spin is
 * cut short, however often it is preempted: a budget check that read the
 * clock, was preempted, then read the time its task was away found more
 * time away than the call had run, and cut calls of a few milliseconds.
 * Needs a fully preemptible kernel; folio_removed() runs under the
 * i_pages lock, interrupts off, and is bounded by the budget of such calls
 * instead (runaway_loops_ended).
 */
TEST_F_TIMEOUT(conc, callbacks_preemptible, 600)
{
	static const char *const kinds[] = {
		"hostile_spin", "hostile_slowadd", "hostile_slowacc",
	};
	struct probe_log *log;
	size_t k;

	if (!fully_preemptible())
		SKIP(return, "the kernel does not preempt kernel code (CONFIG_PREEMPT)");
	ASSERT_EQ(make_files(self, 1), 0);
	ASSERT_EQ(set_core_param("rate_budget_ms", 1000), 0);
	log = mmap(NULL, sizeof(*log), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(log, MAP_FAILED);
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct hostile *skel;
		struct bpf_link *link;
		unsigned int wakes, cut;
		pid_t pids[2];
		double spin_ms, even;
		int i, probe;

		ASSERT_EQ(drop_file_cache(self->file[0]), 0);
		link = k ? attach_hostile_event_spin(self->cg_id[0], kinds[k],
						     100000000, &skel) :
			   attach_hostile_spin(self->cg_id[0], kinds[k],
					       100000000, 1, &skel);
		ASSERT_NE(link, NULL) TH_LOG("%s", kinds[k]);
		ASSERT_EQ(start_readers(self->cg[0], self->file[0], 2, pids,
					91 + k), 0);
		ASSERT_EQ(split_cpus(pids, 2), 0);
		/*
		 * From the first spin on: the readers fill the cgroup
		 * before evict_folios() is asked (seconds on the KASAN
		 * kernel).
		 */
		for (i = 0; i < 3000 && !skel->bss->nr_spans; i++)
			usleep(10000);
		log->nr = 0;
		probe = probe_run(log, 3000);
		for (i = 0; i < 2; i++) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
		any_cpu();
		wakes = wakes_in_spins(skel, log, &spin_ms);
		/* Its wakes inside spins had it woken as often there. */
		even = log->end > log->start ?
		       spin_ms * log->nr / ((log->end - log->start) / 1e6) : 0;
		cut = spins_cut(_metadata, skel, 100000000);
		TH_LOG("%s: %u spins (%u cut short), %.0f ms of them on CPU 0 (overlapping: the readers preempt each other); a real-time task on CPU 0 woke %u times, %u times inside a spin (counted for each spin it was inside; %.0f at its rate); %ld ejections%s%s",
		       kinds[k], skel->bss->nr_spans, cut, spin_ms, log->nr,
		       wakes, even, trace_ejections(kinds[k]),
		       skel->bss->nr_exits ? ": " : "",
		       skel->bss->nr_exits ? skel->bss->exit_msg : "");
		EXPECT_EQ(probe, 0) TH_LOG("%s", kinds[k]);
		EXPECT_GE(spin_ms, 200) TH_LOG("%s", kinds[k]);
		EXPECT_GE(wakes, even / 4) TH_LOG("%s", kinds[k]);
		EXPECT_EQ(cut, 0) TH_LOG("%s", kinds[k]);
		EXPECT_EQ(trace_ejections(kinds[k]), 0) TH_LOG("%s", kinds[k]);
		detach_hostile(link, skel);
	}
	munmap(log, sizeof(*log));
}

TEST_HARNESS_MAIN
