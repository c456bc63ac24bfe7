// SPDX-License-Identifier: GPL-2.0
/*
 * core_overhead: what cache_ext costs, measured side by side in one boot.
 *
 * Workload: uniformly random 4 KiB pread()s over a 128 MiB file from a
 * memory cgroup limited to 32 MiB (the file is 4x the limit, so most reads
 * miss and every miss makes the cgroup reclaim).  The same seeded read
 * sequence runs in four setups:
 *
 *   off      no cgroup bound anywhere: every hook is a patched-out branch
 *   unbound  this cgroup unbound while other cgroups are bound
 *   noop     bound to noop: hooks + registry, kernel LRU evicts
 *   fifo     bound to fifo: the policy chooses every eviction
 *   fifo+ctl the same with cache_ext_ctl loaded ($CACHE_EXT_CTL_KO), whose
 *            tracepoint probe fills the latency histogram on every
 *            evict_folios() call
 *
 * Tracing is off while the reads are timed.  Reported per setup: CPU time
 * (user + system) per read, the median of the rounds, and its ratio to
 * "off"; pages read from disk per read
 * (pgpgin of /proc/vmstat: the VM does nothing else meanwhile); and the
 * registry's memory per cached folio and as a share of the cgroup's
 * memory, from the cache_ext_unbind tracepoint.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "fifo.skel.h"
#include "noop.skel.h"

#define FILE_PAGES	32768		/* 128 MiB */
#define MEMCG_MAX	"32M"
#define NR_READS	20000
#define ROUNDS		5

enum setup { OFF, UNBOUND, NOOP, FIFO, FIFO_CTL, NR_SETUPS };
static const char *const setup_names[NR_SETUPS] = {
	"off", "unbound", "noop", "fifo", "fifo+ctl"
};

static char file[PATH_MAX];

struct result {
	double cpu_us_per_read;
	double misses_per_read;
};

/* Child: the reads; reports CPU time through the exit pipe. */
static int reader(const char *cgroup, void *arg)
{
	int *pipefd = arg, fd, i;
	unsigned int seed = 42;
	struct rusage ru;
	char buf[PAGE_SZ];
	double us;

	fd = open(file, O_RDONLY);
	if (fd < 0)
		return EXIT_FAILURE;
	for (i = 0; i < NR_READS; i++) {
		off_t page = rand_r(&seed) % FILE_PAGES;

		if (pread(fd, buf, PAGE_SZ, page * PAGE_SZ) != PAGE_SZ)
			return EXIT_FAILURE;
	}
	close(fd);
	getrusage(RUSAGE_SELF, &ru);
	us = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec +
	     ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
	return write(pipefd[1], &us, sizeof(us)) == sizeof(us) ?
	       EXIT_SUCCESS : EXIT_FAILURE;
}

/* KiB read from block devices since boot. */
static long pgpgin(void)
{
	char line[128];
	long val = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "pgpgin %ld", &val) == 1)
			break;
	if (f)
		fclose(f);
	return val;
}

static int run_once(const char *cg, struct result *r)
{
	long before, after;
	int pipefd[2];
	double us;

	if (drop_file_cache(file) || pipe(pipefd))
		return -1;
	before = pgpgin();
	if (cg_run(cg, reader, pipefd) ||
	    read(pipefd[0], &us, sizeof(us)) != sizeof(us))
		return -1;
	after = pgpgin();
	close(pipefd[0]);
	close(pipefd[1]);
	r->cpu_us_per_read = us / NR_READS;
	r->misses_per_read = (double)(after - before) / (PAGE_SZ / 1024) /
			     NR_READS;
	return 0;
}

/* evict_folios() calls of the fifo binding, from cache_ext_ctl's sysfs. */
static long fifo_evict_calls(void)
{
	char line[128];
	long val = 0;
	FILE *f = fopen("/sys/kernel/cache_ext/policies/fifo/stats", "r");
	int i;

	/* The module creates the directory from a work item. */
	for (i = 0; !f && i < 200; i++) {
		usleep(10000);
		f = fopen("/sys/kernel/cache_ext/policies/fifo/stats", "r");
	}
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "evict_calls %ld", &val) == 1)
			break;
	if (f)
		fclose(f);
	return val;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	double cpu[NR_SETUPS][ROUNDS], misses[NR_SETUPS][ROUNDS];
	const char *cg_names[NR_SETUPS] = {
		"bench_off", "bench_unbound", "bench_noop", "bench_fifo",
		"bench_fifo"
	};
	const char *ko = getenv("CACHE_EXT_CTL_KO");
	long evict_calls = 0;
	char *cg[NR_SETUPS];
	struct bpf_link *noop_link, *fifo_link;
	struct noop *noop;
	struct fifo *fifo;
	double base;
	int s, r;

	if (argc > 1) {
		printf("usage: %s\n\nRun in the cache_ext VM: make bench-core.\n",
		       argv[0]);
		return strcmp(argv[1], "-h") ? 2 : 0;
	}
	if (!scratch_dir()) {
		fprintf(stderr, "core_overhead: run it in the VM (make bench-core)\n");
		return 1;
	}
	scratch_path(file, sizeof(file), "bench");
	if (make_file(file, FILE_PAGES))
		return 1;
	for (s = 0; s < FIFO_CTL; s++) {
		cg[s] = memcg_create(cg_names[s]);
		if (!cg[s] || cg_write(cg[s], "memory.max", MEMCG_MAX))
			return 1;
	}
	cg[FIFO_CTL] = cg[FIFO];

	/* "off": nothing bound anywhere yet. */
	for (r = 0; r < ROUNDS; r++) {
		struct result res;

		if (run_once(cg[OFF], &res))
			return 1;
		cpu[OFF][r] = res.cpu_us_per_read;
		misses[OFF][r] = res.misses_per_read;
	}

	noop = noop__open();
	fifo = fifo__open();
	if (!noop || !fifo)
		return 1;
	noop->struct_ops.noop->cgroup_id = cgroup_id_of(cg[NOOP]);
	fifo->struct_ops.fifo->cgroup_id = cgroup_id_of(cg[FIFO]);
	if (noop__load(noop) || fifo__load(fifo))
		return 1;
	noop_link = bpf_map__attach_struct_ops(noop->maps.noop);
	fifo_link = bpf_map__attach_struct_ops(fifo->maps.fifo);
	if (!noop_link || !fifo_link)
		return 1;

	/*
	 * The bound setups, interleaved so that drift hits all alike; the
	 * module is loaded for the fifo+ctl run of each round and unloaded
	 * after it.
	 */
	for (r = 0; r < ROUNDS; r++) {
		for (s = UNBOUND; s < NR_SETUPS; s++) {
			struct result res;
			long before = 0;

			if (s == FIFO_CTL) {
				if (!ko || ctl_module_load())
					break;
				before = fifo_evict_calls();
			}
			if (run_once(cg[s], &res))
				return 1;
			if (s == FIFO_CTL) {
				evict_calls += fifo_evict_calls() - before;
				ctl_module_unload();
			}
			cpu[s][r] = res.cpu_us_per_read;
			misses[s][r] = res.misses_per_read;
		}
	}

	printf("workload: %d random 4 KiB preads over a %d MiB file, memory.max=%s, %d rounds\n\n",
	       NR_READS, FILE_PAGES * PAGE_SZ >> 20, MEMCG_MAX, ROUNDS);
	printf("%-10s %16s %12s %16s\n", "setup", "cpu us/read", "vs off",
	       "disk reads/read");
	base = median(cpu[OFF], ROUNDS);
	for (s = 0; s < NR_SETUPS; s++) {
		double c;

		if (s == FIFO_CTL && !evict_calls)
			break;
		c = median(cpu[s], ROUNDS);
		printf("%-10s %16.2f %11.3fx %16.3f\n", setup_names[s], c,
		       c / base, median(misses[s], ROUNDS));
	}
	if (evict_calls) {
		double per_run = (double)evict_calls / ROUNDS;
		double diff = median(cpu[FIFO_CTL], ROUNDS) -
			      median(cpu[FIFO], ROUNDS);

		/* What 5% run-to-run noise of a read amounts to per call. */
		printf("\nhistogram probe: %+.0f ns per evict_folios() call (fifo+ctl - fifo, %.0f calls per run); resolution of this measurement: +-%.0f ns\n",
		       diff * 1000.0 * NR_READS / per_run, per_run,
		       0.05 * median(cpu[FIFO], ROUNDS) * 1000.0 * NR_READS /
		       per_run);
	}

	/* Registry size: unbind fifo while its cgroup is full. */
	if (trace_start())
		return 1;
	{
		long current = cg_read_long(cg[FIFO], "memory.current");
		char line[512] = "", *p;
		FILE *f;
		long tracked = 0, bytes = 0;

		bpf_link__destroy(fifo_link);
		f = fopen("/sys/kernel/tracing/trace", "r");
		while (f && fgets(line, sizeof(line), f))
			if (strstr(line, "cache_ext_unbind: policy=fifo") &&
			    (p = strstr(line, "tracked=")))
				sscanf(p, "tracked=%ld bytes=%ld", &tracked,
				       &bytes);
		if (f)
			fclose(f);
		printf("\nregistry (fifo cgroup, full): %ld folios tracked, %ld bytes: %.1f bytes/folio, %.2f%% of the cgroup's %ld KiB\n",
		       tracked, bytes, tracked ? (double)bytes / tracked : 0.0,
		       current ? 100.0 * bytes / current : 0.0, current >> 10);
	}

	bpf_link__destroy(noop_link);
	noop__destroy(noop);
	fifo__destroy(fifo);
	unlink(file);
	for (s = 0; s < FIFO_CTL; s++) {
		cg_destroy(cg[s]);
		free(cg[s]);
	}
	return 0;
}
