// SPDX-License-Identifier: GPL-2.0
/*
 * concurrency: many readers in one cgroup, side by side in one boot.
 *
 * Workload: Zipf(0.99) random 4 KiB pread()s (seeded, every page
 * verified) over a 64 MiB file from a memory cgroup limited to 16 MiB,
 * split over N readers (1, 2, 4, 8) that run at once; the same total
 * number of reads for every N.  Each policy runs with the default time
 * budget (cache_ext.evict_budget_ms).  Then four cgroups at once, two
 * readers each, each with its own policy.
 *
 * Reported per policy and N, from the cache_ext_evict tracepoint:
 * evict_folios() calls, their decision time (median and 99th
 * percentile), the p99 relative to the same policy's single reader,
 * candidates the kernel rejected, ejections; and pages read from disk per
 * read (pgpgin, disk_pages_read()), which is what the policy is for.
 *
 * Last, what a reader sees: two readers in the cgroup, each read timed,
 * under the kernel's LRU and under lfu, read latency median and 99th
 * percentile side by side.  `make bench-concurrency` runs it all beside
 * another VM that keeps the host busy (BUSY_VMS=0 for none).
 *
 *   concurrency [-r TOTAL_READS] [-p POLICY,...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "stats.h"
#include "workload.h"

#define FILE_PAGES	16384		/* 64 MiB */
#define MEMCG_MAX	"16M"
#define MAX_READERS	8
#define MAX_SAMPLES	200000
#define NR_CGROUPS	4

static char file[PATH_MAX];
static long total_reads = 48000;

/* Start @n readers of @path in @cg sharing @reads; 0 or -1. */
static int start(const char *cg, const char *path, int n, long reads,
		 uint64_t seed, pid_t *pids)
{
	return zipf_readers_start(cg, path, FILE_PAGES, n, reads / n, seed, pids);
}

struct stats {
	long calls, rejected, ejected;
	double p50_us, p99_us;
	double sum_ns, requested, sampled;	/* sums over the calls */
};

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* Decision times and counts of cgroup @id from the trace buffer. */
static void trace_stats(unsigned long long id, const char *policy,
			struct stats *s)
{
	static unsigned long long d[MAX_SAMPLES];
	char line[512], want[48], ej[48];
	unsigned int req, prop, acc, rec;
	unsigned long long ns;
	FILE *f = fopen("/sys/kernel/tracing/trace", "r");
	long n = 0;
	char *p;

	memset(s, 0, sizeof(*s));
	if (!f)
		return;
	snprintf(want, sizeof(want), "cgroup=%llu ", id);
	snprintf(ej, sizeof(ej), "policy=%s ", policy);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "cache_ext_eject:") && strstr(line, ej))
			s->ejected++;
		p = strstr(line, "cache_ext_evict: ");
		if (!p || !strstr(p, want))
			continue;
		p = strstr(p, "requested=");
		if (!p || sscanf(p, "requested=%u proposed=%u accepted=%u reclaimed=%u duration_ns=%llu",
				 &req, &prop, &acc, &rec, &ns) != 5)
			continue;
		s->calls++;
		s->rejected += prop - acc;
		s->sum_ns += ns;
		s->requested += req;
		p = strstr(p, "sampled=");
		if (p && sscanf(p, "sampled=%u", &req) == 1)
			s->sampled += req;
		if (n < MAX_SAMPLES)
			d[n++] = ns;
	}
	fclose(f);
	if (!n)
		return;
	qsort(d, n, sizeof(d[0]), cmp_u64);
	s->p50_us = d[n / 2] / 1000.0;
	s->p99_us = d[n * 99 / 100] / 1000.0;
}

/* One policy with @n readers; prints a row. */
static int run(const char *cg, unsigned long long id, const char *setup,
	       int n, double *p99_one)
{
	char name[32], *knobs;
	struct policy p;
	pid_t pids[MAX_READERS];
	struct stats s;
	long long before;
	int bad;

	snprintf(name, sizeof(name), "%s", setup);
	knobs = strchr(name, '/');
	if (knobs)
		*knobs++ = '\0';
	if (drop_file_cache(file) || trace_start())
		return -1;
	if (policy_attach(&p, name, NULL, id, knobs)) {
		fprintf(stderr, "concurrency: cannot attach %s\n", setup);
		return -1;
	}
	before = disk_pages_read();
	if (start(cg, file, n, total_reads, 1000 * n, pids))
		return -1;
	bad = readers_wait(pids, n);
	before = disk_pages_read() - before;
	trace_stats(id, name, &s);
	policy_detach(&p);
	unlink("/sys/fs/bpf/get_scan_tids");
	if (n == 1)
		*p99_one = s.p99_us;
	printf("%-22s %2d %7ld %9.1f %9.1f %7.2fx %8ld %7ld %10.3f %8.1f %6.1f %8.0f%s\n",
	       setup, n, s.calls, s.p50_us, s.p99_us,
	       *p99_one > 0 ? s.p99_us / *p99_one : 0.0, s.rejected, s.ejected,
	       (double)before / total_reads,
	       s.calls ? s.sum_ns / s.calls / 1000 : 0.0,
	       s.calls ? s.requested / s.calls : 0.0,
	       s.sampled ? s.sum_ns / s.sampled : 0.0, bad ? "  BAD DATA" : "");
	fflush(stdout);
	return bad ? -1 : 0;
}

/* Four cgroups, each its own policy, two readers each, at once. */
static int run_four(const char *const setups[NR_CGROUPS])
{
	char *cg[NR_CGROUPS], path[NR_CGROUPS][PATH_MAX], name[32];
	unsigned long long id[NR_CGROUPS];
	pid_t pids[NR_CGROUPS][2];
	struct policy p[NR_CGROUPS];
	int i, bad = 0;

	trace_start();
	for (i = 0; i < NR_CGROUPS; i++) {
		snprintf(name, sizeof(name), "cache_ext_bench_four%d", i);
		cg[i] = memcg_create(name);
		if (!cg[i] || cg_write(cg[i], "memory.max", MEMCG_MAX))
			return -1;
		id[i] = cgroup_id_of(cg[i]);
		snprintf(name, sizeof(name), "four%d", i);
		scratch_path(path[i], PATH_MAX, name);
		/* Written pages are the writer's: uncached, they are not. */
		if (make_file(path[i], FILE_PAGES) || drop_file_cache(path[i]) ||
		    policy_attach(&p[i], setups[i], NULL, id[i], NULL))
			return -1;
	}
	for (i = 0; i < NR_CGROUPS; i++)
		if (start(cg[i], path[i], 2, total_reads, 7 * i, pids[i]))
			return -1;
	for (i = 0; i < NR_CGROUPS; i++)
		bad += readers_wait(pids[i], 2);
	printf("\nfour cgroups at once, two readers each:\n");
	printf("%-18s %7s %9s %9s %8s %7s\n", "policy", "calls", "p50_us",
	       "p99_us", "rejected", "ejected");
	for (i = 0; i < NR_CGROUPS; i++) {
		struct stats s;

		trace_stats(id[i], setups[i], &s);
		printf("%-18s %7ld %9.1f %9.1f %8ld %7ld\n", setups[i], s.calls,
		       s.p50_us, s.p99_us, s.rejected, s.ejected);
		policy_detach(&p[i]);
		unlink(path[i]);
		cg_destroy(cg[i]);
		free(cg[i]);
	}
	return bad ? -1 : 0;
}

#define LAT_READERS	2

/*
 * One reader of the latency phase: @nr Zipf(0.99) 4 KiB preads of the
 * file (readahead off), each one's time in @lat (shared memory), in us.
 */
static int timed_reader(const char *cg, void *arg)
{
	double *lat = arg;
	long nr = total_reads / LAT_READERS, i;
	struct zipf z;
	char buf[4096];
	int fd;

	fd = open(file, O_RDONLY);
	if (fd < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM) ||
	    zipf_init(&z, FILE_PAGES, 0.99, (uint64_t)(uintptr_t)lat))
		return EXIT_FAILURE;
	for (i = 0; i < nr; i++) {
		/* A fixed permutation: the hot pages spread over the file. */
		size_t page = (zipf_next(&z) * 7919) % FILE_PAGES;
		uint64_t t0 = now_us();

		if (pread(fd, buf, sizeof(buf), page * 4096) != sizeof(buf))
			return EXIT_FAILURE;
		lat[i] = now_us() - t0;
	}
	zipf_free(&z);
	return EXIT_SUCCESS;
}

/* Two timed readers under @setup ("kernel" for no policy). */
static int run_latency(const char *cg, unsigned long long id,
		       const char *setup, double *p99)
{
	long per = total_reads / LAT_READERS, n = per * LAT_READERS;
	size_t len = n * sizeof(double);
	pid_t pids[LAT_READERS];
	struct policy p = { 0 };
	long long disk;
	double *lat;
	int i, bad = 0, status;

	lat = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (lat == MAP_FAILED || drop_file_cache(file))
		return -1;
	if (strcmp(setup, "kernel") &&
	    policy_attach(&p, setup, NULL, id, NULL)) {
		fprintf(stderr, "concurrency: cannot attach %s\n", setup);
		return -1;
	}
	disk = disk_pages_read();
	for (i = 0; i < LAT_READERS; i++)
		pids[i] = cg_run_nowait(cg, timed_reader, lat + i * per);
	for (i = 0; i < LAT_READERS; i++)
		if (pids[i] <= 0 || waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	disk = disk_pages_read() - disk;
	if (strcmp(setup, "kernel"))
		policy_detach(&p);
	qsort(lat, n, sizeof(*lat), cmp_double);
	*p99 = lat[n * 99 / 100];
	printf("%-10s %2d %10.0f %10.0f %10.0f %10.3f%s\n", setup,
	       LAT_READERS, lat[n / 2], *p99, lat[n - 1],
	       (double)disk / n, bad ? "  (a reader failed)" : "");
	munmap(lat, len);
	return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const char *const four[NR_CGROUPS] = {
		"fifo", "lfu", "s3fifo", "mglru",
	};
	char *list = strdup("fifo,lfu,s3fifo,mglru,ml_rank/oversample=10,noop");
	static const int readers[] = { 1, 2, 4, 8 };
	double lru_p99 = 0, lfu_p99 = 0;
	char *setup, *save;
	unsigned long long id;
	int opt, ret = 0;
	size_t i;
	char *cg;

	while ((opt = getopt(argc, argv, "r:p:h")) != -1) {
		switch (opt) {
		case 'r':
			total_reads = atol(optarg);
			break;
		case 'p':
			list = strdup(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-r TOTAL_READS] [-p POLICY[/KNOB=V],...]\n",
				argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!scratch_dir()) {
		fprintf(stderr, "concurrency: run in the VM (make bench-concurrency)\n");
		return 2;
	}
	cg = memcg_create("cache_ext_bench_conc");
	if (!cg || cg_write(cg, "memory.max", MEMCG_MAX))
		return 1;
	id = cgroup_id_of(cg);
	scratch_path(file, sizeof(file), "conc");
	if (make_file(file, FILE_PAGES))
		return 1;

	printf("Zipf(0.99) 4 KiB reads, %ld in all per row, 64 MiB file, %s cgroup, evict_budget_ms default\n",
	       total_reads, MEMCG_MAX);
	printf("%-22s %2s %7s %9s %9s %8s %8s %7s %10s %8s %6s %8s\n", "policy",
	       "N", "calls", "p50_us", "p99_us", "p99/N=1", "rejected",
	       "ejected", "disk/read", "mean_us", "req", "ns/samp");
	for (setup = strtok_r(list, ",", &save); setup;
	     setup = strtok_r(NULL, ",", &save)) {
		double p99_one = 0;

		for (i = 0; i < sizeof(readers) / sizeof(readers[0]); i++)
			ret |= run(cg, id, setup, readers[i], &p99_one);
	}
	ret |= run_four(four);

	printf("\nwhat a reader sees: %d readers, %ld reads in all, read latency in us\n",
	       LAT_READERS, total_reads);
	printf("%-10s %2s %10s %10s %10s %10s\n", "policy", "N", "p50_us",
	       "p99_us", "max_us", "disk/read");
	ret |= run_latency(cg, id, "kernel", &lru_p99);
	ret |= run_latency(cg, id, "lfu", &lfu_p99);
	if (lru_p99 > 0)
		printf("lfu read p99 / kernel LRU read p99: %.2fx\n",
		       lfu_p99 / lru_p99);
	unlink(file);
	cg_destroy(cg);
	return ret ? 1 : 0;
}
