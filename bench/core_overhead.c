// SPDX-License-Identifier: GPL-2.0
/*
 * core_overhead: what cache_ext costs, measured side by side in one boot.
 *
 * Workload: uniformly random 4 KiB pread()s over a 128 MiB file from a
 * memory cgroup limited to 32 MiB (the file is 4x the limit, so most reads
 * miss), timed after untimed reads have filled the cgroup, so that every
 * miss makes the cgroup reclaim.  The same seeded read
 * sequence runs in these setups:
 *
 *   off      no cgroup bound anywhere: every hook is a patched-out branch
 *   unbound  this cgroup unbound while other cgroups are bound
 *   noop     bound to noop (evict_folios() only, so it tracks no folio):
 *            hooks + an evict_folios() call per round, kernel LRU evicts
 *   hooks    bound to empty_hooks (every callback, empty): the registry
 *            tracks every folio and every event calls into BPF
 *   fifo     bound to fifo: the policy chooses every eviction
 *   fifo+ctl the same with cache_ext_ctl loaded ($CACHE_EXT_CTL_KO), whose
 *            tracepoint probe fills the latency histogram on every
 *            evict_folios() call
 *
 * make bench-core runs it in a VM whose clock counts instructions (qemu
 * -icount shift=0: one nanosecond per instruction), so that CPU time is
 * work done rather than how busy the host was: under plain TCG the same
 * run varies by 5-30% with the load of the machine, under -icount by a
 * fraction of a percent.
 *
 * Every round runs every setup once, back to back, in an order that
 * changes from round to round, so that drift of the machine (other VMs,
 * the host's frequency) hits all setups alike; each setup's cost is
 * taken relative to "unbound" of the same round, and the rounds' ratios
 * are summarised by their mean and its 95% confidence interval
 * (+-2 standard errors), the resolution of the measurement.  Tracing is
 * off while the reads are timed.  Reported per setup: CPU time
 * (user + system) per read, the median of the rounds; the ratio to
 * "unbound" with its interval; pages read from disk per read (pgpgin of
 * /proc/vmstat: the VM does nothing else meanwhile); and the registry's
 * memory per cached folio and as a share of the cgroup's memory, from
 * the cache_ext_unbind tracepoint.
 *
 * -p SETUP runs that setup alone, ROUNDS times, and prints only its CPU
 * time: the workload for a profiler that counts the whole VM's
 * instructions (scripts/insn-profile.sh), run once per setup and compared.
 *
 * -m uses the file through a shared read-only mapping instead: each
 * "read" loads a byte of the page (a fault if it is not cached, the
 * mmap read-around included), so that the cost of the mapped-access
 * reports (folio_mapped_accessed(), where reclaim and MGLRU's walks find
 * the accessed bits) is measured: make bench-core BENCH_ARGS=-m.
 *
 *   core_overhead [-m] [-r ROUNDS] [-n READS] [-p SETUP]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "stats.h"
#include "fifo.skel.h"
#include "noop.skel.h"
#include "empty_hooks.skel.h"

#define FILE_PAGES	32768		/* 128 MiB */
#define MEMCG_MAX	"32M"
#define MAX_ROUNDS	64

static int nr_reads = 10000;
static int rounds = 12;
static int profile_setup = -1;
static bool mapped;		/* -m: through a mapping, not pread() */

enum setup { OFF, UNBOUND, NOOP, HOOKS, FIFO, FIFO_CTL, NR_SETUPS };
static const char *const setup_names[NR_SETUPS] = {
	"off", "unbound", "noop", "hooks", "fifo", "fifo+ctl"
};

static char file[PATH_MAX];

struct result {
	double cpu_us_per_read;
	double misses_per_read;
};

/* Child: the reads; reports CPU time through the exit pipe. */
/* CPU time of this process so far, in microseconds. */
static double cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec +
	       ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
}

static long pgpgin(void);

/*
 * @n random page reads of @fd from @seed, or with @map (the file mapped)
 * a load of a byte of each page; 0 or -1.
 */
static int read_pages(int fd, const volatile char *map, unsigned int seed,
		      int n)
{
	char buf[PAGE_SZ];
	int i;

	for (i = 0; i < n; i++) {
		off_t page = rand_r(&seed) % FILE_PAGES;

		if (map)
			buf[0] = map[page * PAGE_SZ];
		else if (pread(fd, buf, PAGE_SZ, page * PAGE_SZ) != PAGE_SZ)
			return -1;
	}
	return 0;
}

/*
 * Child: fills the cgroup with reads that are not timed (FILE_PAGES / 2,
 * twice what it holds), so that every timed miss also evicts; then the
 * timed reads.  Reports CPU microseconds and KiB read from disk of the
 * timed part through the pipe.
 */
static int reader(const char *cgroup, void *arg)
{
	int *pipefd = arg, fd;
	char *map = NULL;
	double out[2];
	long kib;

	fd = open(file, O_RDONLY);
	if (fd < 0)
		return EXIT_FAILURE;
	if (mapped) {
		map = mmap(NULL, (size_t)FILE_PAGES * PAGE_SZ, PROT_READ,
			   MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			return EXIT_FAILURE;
	}
	if (read_pages(fd, map, 7, FILE_PAGES / 2))
		return EXIT_FAILURE;
	kib = pgpgin();
	out[0] = cpu_us();
	if (read_pages(fd, map, 42, nr_reads))
		return EXIT_FAILURE;
	out[0] = cpu_us() - out[0];
	out[1] = pgpgin() - kib;
	if (map)
		munmap(map, (size_t)FILE_PAGES * PAGE_SZ);
	close(fd);
	return write(pipefd[1], out, sizeof(out)) == sizeof(out) ?
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
	int pipefd[2];
	double out[2];

	if (drop_file_cache(file) || pipe(pipefd))
		return -1;
	if (cg_run(cg, reader, pipefd) ||
	    read(pipefd[0], out, sizeof(out)) != sizeof(out))
		return -1;
	close(pipefd[0]);
	close(pipefd[1]);
	r->cpu_us_per_read = out[0] / nr_reads;
	r->misses_per_read = out[1] / (PAGE_SZ / 1024) / nr_reads;
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

static struct noop *noop;
static struct empty_hooks *hooks;
static struct fifo *fifo;
static struct bpf_link *noop_link, *hooks_link, *fifo_link;
static char *cg[NR_SETUPS];

static int attach_all(void)
{
	noop_link = bpf_map__attach_struct_ops(noop->maps.noop);
	hooks_link = bpf_map__attach_struct_ops(hooks->maps.empty_hooks);
	fifo_link = bpf_map__attach_struct_ops(fifo->maps.fifo);
	return noop_link && hooks_link && fifo_link ? 0 : -1;
}

static void detach_all(void)
{
	bpf_link__destroy(noop_link);
	bpf_link__destroy(hooks_link);
	bpf_link__destroy(fifo_link);
	noop_link = hooks_link = fifo_link = NULL;
}

/* One run of setup @s; the module is loaded around fifo+ctl. */
static int run_setup(int s, struct result *res, long *evict_calls)
{
	long before = 0;

	if (s == FIFO_CTL) {
		int err = ctl_module_load();

		if (err) {
			fprintf(stderr, "core_overhead: cannot load cache_ext_ctl from %s: %s (set CACHE_EXT_CTL_KO to the module built for this kernel, on a path the guest sees)\n",
				getenv("CACHE_EXT_CTL_KO") ?: "$CACHE_EXT_CTL_KO (unset)",
				strerror(-err));
			return -1;
		}
		before = fifo_evict_calls();
	}
	if (run_once(cg[s], res))
		return -1;
	if (s == FIFO_CTL) {
		*evict_calls += fifo_evict_calls() - before;
		ctl_module_unload();
	}
	return 0;
}

/* -p: setup @s alone, for a profiler; 0 or 1. */
static int profile(int s)
{
	struct result res;
	int r;

	if (s != OFF && attach_all())
		return 1;
	for (r = 0; r < rounds; r++) {
		if (run_once(cg[s], &res))
			return 1;
		printf("%s: %.3f us/read, %.3f disk reads/read\n",
		       setup_names[s], res.cpu_us_per_read,
		       res.misses_per_read);
	}
	detach_all();
	return 0;
}

int main(int argc, char **argv)
{
	static double cpu[NR_SETUPS][MAX_ROUNDS], misses[NR_SETUPS][MAX_ROUNDS];
	static double ratio[NR_SETUPS][MAX_ROUNDS];
	const char *cg_names[NR_SETUPS] = {
		"bench_off", "bench_unbound", "bench_noop", "bench_hooks",
		"bench_fifo", "bench_fifo"
	};
	const char *ko = getenv("CACHE_EXT_CTL_KO");
	int nr_setups = ko ? NR_SETUPS : FIFO_CTL;
	long evict_calls = 0;
	int s, r, i, opt;

	while ((opt = getopt(argc, argv, "mr:n:p:h")) != -1) {
		switch (opt) {
		case 'm':
			mapped = true;
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'n':
			nr_reads = atoi(optarg);
			break;
		case 'p':
			for (s = 0; s < FIFO_CTL; s++)
				if (!strcmp(optarg, setup_names[s]))
					profile_setup = s;
			if (profile_setup < 0) {
				fprintf(stderr, "core_overhead: -p takes off, unbound, noop, hooks or fifo\n");
				return 2;
			}
			break;
		default:
			printf("usage: %s [-m] [-r ROUNDS] [-n READS] [-p SETUP]\n\n-m: through a mapping, not pread().  Run in the cache_ext VM: make bench-core.\n",
			       argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	/* A ratio needs two rounds; a profile (-p) one. */
	if (rounds < (profile_setup < 0 ? 2 : 1) || rounds > MAX_ROUNDS ||
	    nr_reads < 1) {
		fprintf(stderr, "core_overhead: -r takes 2..%d rounds (1.. with -p), -n a positive count\n",
			MAX_ROUNDS);
		return 2;
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

	noop = noop__open();
	hooks = empty_hooks__open();
	fifo = fifo__open();
	if (!noop || !hooks || !fifo)
		return 1;
	noop->struct_ops.noop->cgroup_id = cgroup_id_of(cg[NOOP]);
	hooks->struct_ops.empty_hooks->cgroup_id = cgroup_id_of(cg[HOOKS]);
	fifo->struct_ops.fifo->cgroup_id = cgroup_id_of(cg[FIFO]);
	if (noop__load(noop) || empty_hooks__load(hooks) || fifo__load(fifo))
		return 1;

	printf("workload: %d random 4 KiB %s timed after %d filling ones, %d MiB file, memory.max=%s, %d rounds\n",
	       nr_reads, mapped ? "loads through a shared mapping" : "preads",
	       FILE_PAGES / 2, FILE_PAGES * PAGE_SZ >> 20, MEMCG_MAX, rounds);
	if (profile_setup >= 0)
		return profile(profile_setup);
	for (r = 0; r < rounds; r++) {
		struct result res[NR_SETUPS];
		int order[NR_SETUPS - 1], n = 0;

		/* "off" first in even rounds, last in odd ones. */
		if (r % 2 == 0 && run_once(cg[OFF], &res[OFF]))
			return 1;
		if (attach_all())
			return 1;
		/* The bound setups, rotated by one each round. */
		for (i = 0; i < nr_setups - 1; i++)
			order[n++] = UNBOUND + (i + r) % (nr_setups - 1);
		for (i = 0; i < n; i++)
			if (run_setup(order[i], &res[order[i]], &evict_calls))
				return 1;
		detach_all();
		if (r % 2 == 1 && run_once(cg[OFF], &res[OFF]))
			return 1;
		for (s = 0; s < nr_setups; s++) {
			cpu[s][r] = res[s].cpu_us_per_read;
			misses[s][r] = res[s].misses_per_read;
			ratio[s][r] = res[s].cpu_us_per_read /
				      res[UNBOUND].cpu_us_per_read;
		}
		fprintf(stderr, "round %d/%d: unbound %.2f noop %.2f hooks %.2f fifo %.2f us/read\n",
			r + 1, rounds, cpu[UNBOUND][r], cpu[NOOP][r],
			cpu[HOOKS][r], cpu[FIFO][r]);
	}

	printf("\n%-10s %12s %22s %16s\n", "setup", "cpu us/read",
	       "vs unbound (95% CI)", "disk reads/read");
	for (s = 0; s < nr_setups; s++) {
		double ci, m = mean_ci(ratio[s], rounds, &ci);

		printf("%-10s %12.2f %+13.2f%% +-%.2f%% %16.3f\n", setup_names[s],
		       median(cpu[s], rounds), (m - 1) * 100, ci * 100,
		       median(misses[s], rounds));
	}
	if (evict_calls) {
		double per_run = (double)evict_calls / rounds, ci, m;
		double d[MAX_ROUNDS];

		for (r = 0; r < rounds; r++)
			d[r] = (cpu[FIFO_CTL][r] - cpu[FIFO][r]) * 1000.0 *
			       nr_reads / per_run;
		m = mean_ci(d, rounds, &ci);
		printf("\nhistogram probe: %+.0f ns +-%.0f ns per evict_folios() call (fifo+ctl - fifo, %.0f calls per run)\n",
		       m, ci, per_run);
	}

	if (attach_all())
		return 1;
	/* Fill the fifo cgroup for the registry's size. */
	{
		struct result res;

		if (run_once(cg[FIFO], &res))
			return 1;
	}
	/* Registry size: unbind fifo while its cgroup is full. */
	if (trace_start())
		return 1;
	{
		long current = cg_read_long(cg[FIFO], "memory.current");
		long tracked = 0, bytes = 0;

		bpf_link__destroy(fifo_link);
		trace_unbind_registry("fifo", &tracked, &bytes);
		printf("\nregistry (fifo cgroup, full): %ld folios tracked, %ld bytes: %.1f bytes/folio, %.2f%% of the cgroup's %ld KiB\n",
		       tracked, bytes, tracked ? (double)bytes / tracked : 0.0,
		       current ? 100.0 * bytes / current : 0.0, current >> 10);
	}

	bpf_link__destroy(noop_link);
	bpf_link__destroy(hooks_link);
	noop__destroy(noop);
	empty_hooks__destroy(hooks);
	fifo__destroy(fifo);
	unlink(file);
	for (s = 0; s < FIFO_CTL; s++) {
		cg_destroy(cg[s]);
		free(cg[s]);
	}
	return 0;
}
