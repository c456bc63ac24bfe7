// SPDX-License-Identifier: GPL-2.0
/*
 * hit_cost: what a page cache hit costs under each policy, side by side in
 * one boot.  The hit-only half of make bench-core (core_overhead measures
 * the miss path).
 *
 * Workload: each setup has a memory cgroup of its own, limited to
 * MEMCG_MAX (64 MiB), and a 16 MiB file of its own (a file's page cache is
 * charged to the cgroup that read it first), read once whole, untimed, so
 * that every page is cached and tracked; beside it, the first quarter of
 * a 4 MiB file is read in order, so that readahead leaves folios unread
 * in the cgroup, as sequential readers and mmap read-around almost
 * always do (the hit path then has prefetched marks to clear).  Then 1,
 * 2 and 4 reader
 * processes in the cgroup each make READS uniformly random 4 KiB preads
 * of the file: every read is a hit.  Setups:
 *
 *   unbound   this cgroup has no policy while the others are bound
 *   noop      evict_folios() only: the binding tracks no folio
 *   <policy>  every policy of the suite (CACHE_EXT_SUITE), and ml_protect
 *             and ml_rank (they need no model to record their accesses)
 *
 * Every round runs every (setup, readers) pair once, the setups rotated by
 * one from round to round, so that drift of the machine hits all alike.
 * Reported per pair: the time per read (wall time of all readers over
 * the reads they made, the median of the rounds), its ratio to "unbound"
 * with the same readers in the same round (mean of the rounds and its
 * 95% confidence interval), reads per second (median), and, with
 * $CACHE_EXT_CTL_KO, the acquisitions of the binding's lock per read
 * (lock_holds of its debugfs stats): 0 where the policy adds no shared
 * lock to a hit.
 *
 * make bench-core runs it after core_overhead in a VM whose clock counts
 * instructions (qemu -icount shift=0, one nanosecond per instruction):
 * the time is then work done, not how busy the host was.  The vCPUs run
 * in turn, so that more readers do not read faster; what they show is
 * the work each hit costs when readers share the cgroup (the per-process
 * CPU time, tick-sampled across vCPUs, is too coarse for that).
 *
 *   hit_cost [-r ROUNDS] [-n READS] [-p p1,p2,..]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "stats.h"
#include "cache_ext_suite.h"

#define FILE_PAGES	4096		/* 16 MiB */
#define MEMCG_MAX	"64M"
#define MAX_ROUNDS	32
#define MAX_SETUPS	16
#define NR_COUNTS	3

static const int reader_counts[NR_COUNTS] = { 1, 2, 4 };
static int nr_reads = 20000;
static int rounds = 5;

struct setup {
	char name[32];
	char *cg;
	uint64_t cg_id;
	char file[PATH_MAX];
	struct policy p;
	bool bound;
};

static struct setup setups[MAX_SETUPS];
static int nr_setups;

struct reader_arg {
	const char *file;
	unsigned int seed;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Child: the timed hits, every page checked. */
static int reader(const char *cgroup, void *data)
{
	struct reader_arg *a = data;
	unsigned int seed = a->seed;
	char buf[PAGE_SZ];
	int fd, i;

	fd = open(a->file, O_RDONLY);
	if (fd < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM))
		return EXIT_FAILURE;
	for (i = 0; i < nr_reads; i++) {
		off_t page = rand_r(&seed) % FILE_PAGES;

		if (pread(fd, buf, PAGE_SZ, page * PAGE_SZ) != PAGE_SZ ||
		    check_page(buf, page))
			return EXIT_FAILURE;
	}
	close(fd);
	return EXIT_SUCCESS;
}

struct result {
	double us_per_read;
	double reads_per_s;
	double locks_per_read;	/* -1 without the module */
};

/* @n readers in setup @s at once. */
static int run_pair(struct setup *s, int n, int round, struct result *r)
{
	long long locks = binding_stat(s->cg_id, "lock_holds ");
	struct reader_arg a[4];
	int i, status, ret = 0;
	pid_t pid[4];
	double wall;

	wall = now_s();
	for (i = 0; i < n; i++) {
		a[i] = (struct reader_arg){ s->file, 1000 * round + i };
		pid[i] = cg_run_nowait(s->cg, reader, &a[i]);
		if (pid[i] <= 0)
			return -1;
	}
	for (i = 0; i < n; i++)
		if (waitpid(pid[i], &status, 0) != pid[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			ret = -1;
	wall = now_s() - wall;
	if (ret) {
		fprintf(stderr, "hit_cost: a reader of %s failed (read error or wrong data)\n",
			s->name);
		return -1;
	}
	r->us_per_read = wall * 1e6 / ((double)n * nr_reads);
	r->reads_per_s = (double)n * nr_reads / wall;
	r->locks_per_read = locks < 0 ? -1 :
		(binding_stat(s->cg_id, "lock_holds ") - locks) /
		((double)n * nr_reads);
	return 0;
}

#define RA_PAGES	1024	/* the side file readahead leaves unread */

/*
 * The whole file read once in the setup's cgroup: cached and tracked;
 * then the first quarter of the side file ("<file>.ra"), in order.
 */
static int warm(const char *cgroup, void *path)
{
	char ra[PATH_MAX + 8], buf[PAGE_SZ];
	int fd, i;

	if (read_and_verify(path))
		return EXIT_FAILURE;
	snprintf(ra, sizeof(ra), "%s.ra", (char *)path);
	fd = open(ra, O_RDONLY);
	if (fd < 0)
		return EXIT_FAILURE;
	for (i = 0; i < RA_PAGES / 4; i++)
		if (pread(fd, buf, PAGE_SZ, (off_t)i * PAGE_SZ) != PAGE_SZ)
			return EXIT_FAILURE;
	close(fd);
	return EXIT_SUCCESS;
}

static int add_setup(const char *name)
{
	struct setup *s = &setups[nr_setups];
	char cg_name[64], ra[PATH_MAX + 8];

	if (nr_setups == MAX_SETUPS) {
		fprintf(stderr, "hit_cost: more than %d setups\n", MAX_SETUPS);
		return -1;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(cg_name, sizeof(cg_name), "hit_cost_%s", name);
	s->cg = memcg_create(cg_name);
	if (!s->cg || cg_write(s->cg, "memory.max", MEMCG_MAX)) {
		fprintf(stderr, "hit_cost: cannot create cgroup %s\n", cg_name);
		return -1;
	}
	s->cg_id = cgroup_id_of(s->cg);
	scratch_path(s->file, sizeof(s->file), cg_name);
	snprintf(ra, sizeof(ra), "%s.ra", s->file);
	if (make_file(s->file, FILE_PAGES) || make_file(ra, RA_PAGES) ||
	    drop_file_cache(ra))
		return -1;
	if (strcmp(name, "unbound")) {
		if (policy_attach(&s->p, name, NULL, s->cg_id, NULL))
			return -1;
		s->bound = true;
	}
	if (drop_file_cache(s->file) || cg_run(s->cg, warm, s->file) ||
	    cached_pages(s->file) != FILE_PAGES) {
		fprintf(stderr, "hit_cost: %s: the file is not all cached after the warm pass\n",
			name);
		return -1;
	}
	nr_setups++;
	return 0;
}

static void usage(FILE *f, const char *argv0)
{
	fprintf(f, "usage: %s [-r ROUNDS] [-n READS] [-p p1,p2,..]\n\n"
		"The cost of a page cache hit under every policy of the suite, ml_protect and\n"
		"ml_rank (or those of -p), against an unbound cgroup.  Run in the cache_ext VM:\n"
		"make bench-core.\n",
		argv0);
}

int main(int argc, char **argv)
{
	static struct result res[MAX_SETUPS][NR_COUNTS][MAX_ROUNDS];
	static double v[MAX_ROUNDS], ratio[MAX_ROUNDS];
	char ra[PATH_MAX + 8];
	char list[256] = "noop," CACHE_EXT_SUITE ",ml_protect,ml_rank", *name, *save;
	bool with_locks;
	int opt, r, i, k, c;

	while ((opt = getopt(argc, argv, "r:n:p:h")) != -1) {
		switch (opt) {
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'n':
			nr_reads = atoi(optarg);
			break;
		case 'p':
			snprintf(list, sizeof(list), "%s", optarg);
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (rounds < 2 || rounds > MAX_ROUNDS || nr_reads < 1) {
		fprintf(stderr, "hit_cost: -r takes 2..%d rounds, -n a positive count\n",
			MAX_ROUNDS);
		return 2;
	}
	if (!scratch_dir()) {
		fprintf(stderr, "hit_cost: run it in the VM (make bench-core)\n");
		return 1;
	}
	with_locks = getenv("CACHE_EXT_CTL_KO") && !ctl_module_load();

	if (add_setup("unbound"))
		return 1;
	for (name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save))
		if (add_setup(name))
			return 1;

	printf("workload: %d random 4 KiB preads per reader, all hits, of a %d MiB file read once before, memory.max=%s, %d rounds, 1/2/4 readers\n",
	       nr_reads, FILE_PAGES * PAGE_SZ >> 20, MEMCG_MAX, rounds);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < nr_setups; i++) {
			k = (i + r) % nr_setups;
			for (c = 0; c < NR_COUNTS; c++)
				if (run_pair(&setups[k], reader_counts[c], r,
					     &res[k][c][r]))
					return 1;
		}
		fprintf(stderr, "round %d/%d done\n", r + 1, rounds);
	}

	printf("\n%-12s %7s %10s %24s %10s %11s\n", "setup", "readers",
	       "us/read", "vs unbound (95% CI)", "reads/s", "locks/read");
	for (i = 0; i < nr_setups; i++) {
		for (c = 0; c < NR_COUNTS; c++) {
			double mean, ci;

			for (r = 0; r < rounds; r++) {
				v[r] = res[i][c][r].us_per_read;
				ratio[r] = v[r] / res[0][c][r].us_per_read;
			}
			mean = mean_ci(ratio, rounds, &ci);
			printf("%-12s %7d %10.3f %15.4fx +-%.4f", setups[i].name,
			       reader_counts[c], median(v, rounds), mean, ci);
			for (r = 0; r < rounds; r++)
				v[r] = res[i][c][r].reads_per_s;
			printf(" %10.0f", median(v, rounds));
			if (with_locks && setups[i].bound &&
			    res[i][c][0].locks_per_read >= 0) {
				for (r = 0; r < rounds; r++)
					v[r] = res[i][c][r].locks_per_read;
				printf(" %11.3f\n", median(v, rounds));
			} else {
				printf(" %11s\n", "-");
			}
		}
	}
	for (i = 0; i < nr_setups; i++) {
		if (setups[i].bound)
			policy_detach(&setups[i].p);
		unlink(setups[i].file);
		snprintf(ra, sizeof(ra), "%s.ra", setups[i].file);
		unlink(ra);
		cg_destroy(setups[i].cg);
	}
	return 0;
}
