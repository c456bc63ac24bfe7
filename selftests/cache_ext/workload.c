// SPDX-License-Identifier: GPL-2.0
/* Workloads that tell policies apart; see workload.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "workload.h"

long long disk_pages_read(void)
{
	char line[128];
	long long kb = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "pgpgin %lld", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb / 4;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

int zipf_init(struct zipf *z, size_t n, double theta, uint64_t seed)
{
	double sum = 0;
	size_t i;

	z->cdf = malloc(n * sizeof(*z->cdf));
	if (!z->cdf)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		sum += 1.0 / pow(i + 1, theta);
	z->cdf[0] = 1.0 / sum;
	for (i = 1; i < n; i++)
		z->cdf[i] = z->cdf[i - 1] + 1.0 / pow(i + 1, theta) / sum;
	z->n = n;
	z->state = seed ? seed : 1;
	return 0;
}

size_t zipf_next(struct zipf *z)
{
	double u = (xorshift(&z->state) >> 11) * (1.0 / 9007199254740992.0);
	size_t lo = 0, hi = z->n - 1;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (z->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void zipf_free(struct zipf *z)
{
	free(z->cdf);
	z->cdf = NULL;
}

int zipf_reads(const char *path, size_t pages, size_t nr, double theta,
	       uint64_t seed)
{
	return zipf_reads_tick(path, pages, nr, theta, seed, 0, NULL, NULL);
}

struct zipf_reader {
	const char *path;
	size_t pages, reads;
	uint64_t seed;
};

static int zipf_reader(const char *cgroup, void *arg)
{
	const struct zipf_reader *r = arg;

	return zipf_reads(r->path, r->pages, r->reads, 0.99, r->seed) ?
	       EXIT_FAILURE : EXIT_SUCCESS;
}

int zipf_readers_start(const char *cgroup, const char *path, size_t pages,
		       int n, size_t reads, uint64_t seed, pid_t *pids)
{
	struct zipf_reader r = { path, pages, reads, 0 };
	int i;

	/* Each child gets its copy of @r, and so its own seed. */
	for (i = 0; i < n; i++) {
		r.seed = seed + i;
		pids[i] = cg_run_nowait(cgroup, zipf_reader, &r);
		if (pids[i] < 0)
			return -1;
	}
	return 0;
}

int readers_wait(const pid_t *pids, int n)
{
	int i, st, failed = 0;

	for (i = 0; i < n; i++)
		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			failed++;
	return failed;
}

int zipf_reads_tick(const char *path, size_t pages, size_t nr, double theta,
		    uint64_t seed, size_t every, void (*tick)(void *arg),
		    void *arg)
{
	char buf[PAGE_SZ];
	struct zipf z;
	size_t i, page;
	int fd, ret = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	if (zipf_init(&z, pages, theta, seed)) {
		close(fd);
		return -ENOMEM;
	}
	for (i = 0; i < nr && !ret; i++) {
		/* An odd multiplier permutes ranks over the file. */
		page = (zipf_next(&z) * 2654435761ULL) % pages;
		if (pread(fd, buf, PAGE_SZ, page * PAGE_SZ) != PAGE_SZ ||
		    check_page(buf, page))
			ret = -EIO;
		if (tick && every && (i + 1) % every == 0)
			tick(arg);
	}
	zipf_free(&z);
	close(fd);
	return ret;
}

int scan_reads(const char *path, int loops)
{
	int i, ret = 0;

	for (i = 0; i < loops && !ret; i++)
		ret = read_and_verify(path);
	return ret;
}

uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

int read_range(const char *path, size_t first, size_t nr)
{
	char buf[PAGE_SZ];
	size_t i;
	int fd, ret = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	for (i = first; i < first + nr && !ret; i++)
		if (pread(fd, buf, PAGE_SZ, i * PAGE_SZ) != PAGE_SZ ||
		    check_page(buf, i))
			ret = -EIO;
	close(fd);
	return ret;
}

int periodic_reads(const char *cgroup, void *arg)
{
	const struct periodic *w = arg;
	int r;

	for (r = 0; r < w->rounds; r++)
		if (read_range(w->p, 0, w->p_pages) ||
		    read_range(w->s, r * w->chunk, w->chunk))
			return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

static int run_traced_at(unsigned int stall_ms, const char *cachectl,
			 const char *cgroup, const char *log,
			 const char *knobs, unsigned int ring_kib,
			 int (*fn)(const char *cgroup, void *arg), void *arg,
			 char *summary, size_t len);

int run_traced(const char *cachectl, const char *cgroup, const char *log,
	       const char *knobs, unsigned int ring_kib,
	       int (*fn)(const char *cgroup, void *arg), void *arg,
	       char *summary, size_t len)
{
	return run_traced_at(0, cachectl, cgroup, log, knobs, ring_kib, fn,
			     arg, summary, len);
}

int run_traced_stalled(const char *cachectl, const char *cgroup,
		       const char *log, unsigned int ring_kib,
		       unsigned int stall_ms,
		       int (*fn)(const char *cgroup, void *arg), void *arg,
		       char *summary, size_t len)
{
	return run_traced_at(stall_ms, cachectl, cgroup, log, NULL, ring_kib,
			     fn, arg, summary, len);
}

/*
 * Stops @recorder with SIGSTOP for @stall_ms, STALL_AFTER_MS after it is
 * called, in a child of its own so that the workload runs meanwhile.
 * Returns the child's pid, or -1.
 */
#define STALL_AFTER_MS	200
static pid_t stall_recorder(pid_t recorder, unsigned int stall_ms)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	usleep(STALL_AFTER_MS * 1000);
	kill(recorder, SIGSTOP);
	usleep(stall_ms * 1000);
	kill(recorder, SIGCONT);
	_exit(0);
}

static int run_traced_at(unsigned int stall_ms, const char *cachectl,
			 const char *cgroup, const char *log,
			 const char *knobs, unsigned int ring_kib,
			 int (*fn)(const char *cgroup, void *arg), void *arg,
			 char *summary, size_t len)
{
	char set[128], ring[32], line[256] = "";
	int pipefd[2], st, ret = -1;
	pid_t pid, staller;
	FILE *out;

	snprintf(set, sizeof(set), "%s", knobs ?: "oversample=4");
	snprintf(ring, sizeof(ring), "%u", ring_kib ? ring_kib : 8192);
	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		execl(cachectl, "cachectl", "trace", "--cgroup", cgroup, "-o",
		      log, "--set", set, "--ring-kib", ring, NULL);
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	/* The recorder says "# tracing" once events are being recorded. */
	if (out && fgets(line, sizeof(line), out) && strstr(line, "# tracing")) {
		staller = stall_ms ? stall_recorder(pid, stall_ms) : 0;
		if (!cg_run(cgroup, fn, arg) && staller >= 0)
			ret = 0;
		/* The recorder must run again before it is told to stop. */
		if (staller > 0 && (waitpid(staller, &st, 0) != staller ||
				    !WIFEXITED(st) || WEXITSTATUS(st)))
			ret = -1;
	}
	kill(pid, SIGINT);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		ret = -1;
	if (out && fgets(line, sizeof(line), out))
		snprintf(summary, len, "%s", line);
	if (out)
		fclose(out);
	return ret;
}

int train_and_load(const char *who, const char *cachectl, const char *lctrain,
		   const char *log, const char *model, char *out, size_t len)
{
	char load[1024];
	int st;

	st = run_cmd(out, len, "%s -o %s %s", lctrain, model, log);
	if (st) {
		fprintf(stderr, "%s: lctrain failed (%d) on %s:\n%s", who, st, log,
			out);
		return -1;
	}
	if (run_cmd(load, sizeof(load), "%s model load learned %s", cachectl,
		    model)) {
		fprintf(stderr, "%s: cachectl model load failed:\n%s", who, load);
		return -1;
	}
	return 0;
}

int run_cmd(char *out, size_t len, const char *fmt, ...)
{
	char cmd[4096];
	size_t pos = 0;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
	va_end(ap);
	strcat(cmd, " 2>&1");
	out[0] = '\0';
	p = popen(cmd, "r");
	if (!p) {
		snprintf(out, len, "cannot run '%s': %s\n", cmd, strerror(errno));
		return -1;
	}
	while (pos + 1 < len && fgets(out + pos, len - pos, p))
		pos += strlen(out + pos);
	out[pos] = '\0';
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	if (st < 0) {
		snprintf(out + pos, len - pos, "'%s': %s\n", cmd, strerror(errno));
		return -1;
	}
	/*
	 * Say how it ended: a command killed by a signal prints nothing, and
	 * the shell reports its signal as an exit status above 128.
	 */
	if (WIFSIGNALED(st)) {
		snprintf(out + pos, len - pos, "'%s' was killed by signal %d (%s)\n",
			 cmd, WTERMSIG(st), strsignal(WTERMSIG(st)));
		return -1;
	}
	st = WEXITSTATUS(st);
	if (st > 128 && st < 128 + NSIG)
		snprintf(out + pos, len - pos, "'%s' was killed by signal %d (%s)\n",
			 cmd, st - 128, strsignal(st - 128));
	return st;
}

int write_model(const char *path, unsigned int feature, const char *bins,
		const char *members)
{
	static const char *const names[] = {
		"page_dt1", "page_dt2", "inode_dt1", "inode_dt2", "distance",
		"file_pages", "page_ema", "inode_ema", "idle", "page_ema_long",
	};
	unsigned int i, n = feature == 9 ? 10 : 9;
	FILE *f = fopen(path, "w");

	if (!f || feature >= n)
		return -1;
	fprintf(f, "{%s\"features\":[", n == 10 ? "\"format_version\":2," : "");
	for (i = 0; i < n; i++)
		fprintf(f, "%s{\"name\":\"%s\",%s}", i ? "," : "", names[i],
			i == feature ? bins :
			"\"n_bins\":1,\"bin_edges\":[],\"weights_int\":[0]");
	fprintf(f, "],\"bias_int\":0,\"weight_scale\":1%s}", members);
	return fclose(f) ? -1 : 0;
}

int cachesim_path(char *buf, size_t len)
{
	const char *sim = getenv("CACHESIM"), *ctl = getenv("CACHECTL");

	if (sim)
		snprintf(buf, len, "%s", sim);
	else if (ctl && strrchr(ctl, '/'))
		snprintf(buf, len, "%.*s/../cachesim/cachesim",
			 (int)(strrchr(ctl, '/') - ctl), ctl);
	else
		return -1;
	return access(buf, X_OK) ? -1 : 0;
}
