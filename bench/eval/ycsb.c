// SPDX-License-Identifier: GPL-2.0
/*
 * ycsb: YCSB's CoreWorkload on RocksDB or LevelDB, through their C APIs
 * (bench/eval/kv.h; -E picks the store, RocksDB by default).
 *
 *   ycsb load -d DIR -n RECORDS [-v BYTES] [-E STORE]
 *       create a database of RECORDS records of BYTES (1000) bytes, keys
 *       "user<fnv64(i)>", uncompressed, fully compacted.  Run it where the
 *       data is prepared (make eval does it on the host, at native speed).
 *
 *   ycsb run -d DIR -w WORKLOAD -n RECORDS -o OPS [options]
 *       run OPS operations over THREADS threads against the database and
 *       print one line of key=value results (below).
 *
 * Workloads (YCSB's workloads/workload[a-f] mixes):
 *   a  read 50% update 50%, scrambled Zipfian(0.99)
 *   b  read 95% update 5%
 *   c  read 100%
 *   d  read 95% insert 5%, latest
 *   e  scan 95% insert 5%, scan length uniform 1-100
 *   f  read 50% read-modify-write 50%
 *   uniform     read 100%, uniform
 *   uniform-rw  read 50% update 50%, uniform
 *   getscan     GET threads reading as c, plus one SCAN thread doing
 *               scans of -L records so that scans are 0.05% of operations
 *
 * RocksDB reads go through pread() (mmap reads and direct I/O off) with a
 * block cache of -c MiB, so that the page cache does the caching; table
 * files are opened with POSIX_FADV_RANDOM (RocksDB's default).  LevelDB
 * reads its table files through mmap, as shipped (kv_leveldb.c).
 *
 * Options:
 *   -E STORE     rocksdb (default) or leveldb
 *   -t THREADS   client threads (2)
 *   -W OPS       warm-up operations before the measured ones (0): the same
 *                mix from another random stream, not reported
 *   -U           warm up (at least -W OPS) until steady: the cgroup full
 *                (reclaim has run in it) and the miss ratio of the last two
 *                cache-sizes worth of operations within -q of each other
 *   -T N         measure (at least -o OPS) until the window's misses reach
 *                N times the file pages the cgroup can hold (memory.max
 *                less its anonymous memory) as it starts: N cache
 *                turnovers.  0 (default): exactly -o OPS operations
 *   -M SECS      longest warm-up, longest window (1800); a phase cut short
 *                says so (warm_steady=0, window_reached=0)
 *   -q TOL       relative tolerance of the stability checks (0.03)
 *   -s SEED      seed of every random stream (1)
 *   -c MIB       the store's block cache (4); 0: none, every block read
 *                goes to the page cache
 *   -L LEN       getscan: records per scan (10000)
 *   -S MAP       getscan: add the SCAN thread's tid to this pinned BPF
 *                map (get_scan's /sys/fs/bpf/get_scan_tids)
 *   -F HINT      getscan: the SCAN thread gives the table files an fadvise
 *                hint: noreuse or sequential before each scan, dontneed
 *                after it.  RocksDB opens a table once for all threads,
 *                so the hint applies to the GET threads' reads as well:
 *                that is what an application gets from fadvise here.
 *   -B MAP       add RocksDB's own threads (flush, compaction: "rocksdb:*")
 *                to this pinned BPF map as they appear (admit_filter's
 *                /sys/fs/bpf/no_cache_tids; LevelDB's are not named)
 *
 * Output of run: workload, ops, secs, ops_per_s, disk_reads (pages read
 * from disk meanwhile, from pgpgin: meaningful on a machine doing nothing
 * else, like the test VM), and for each operation
 * type done (read, update, insert, scan, rmw) its count, p50_us, p99_us;
 * for getscan also get_ops_per_s and scan_ops_per_s; then the window's
 * steady-state evidence (bench/eval/steady.h): warm_ops, warm_secs,
 * warm_steady (-1 without -U), capacity (the file pages the cgroup can
 * hold: memory.max less its anonymous memory), file_pages_start,
 * file_pages_end, misses,
 * turnovers, mr_first, mr_second (disk reads per operation of each half),
 * half_diff, window_reached, steady (3 turnovers or -T's, halves within
 * -q), and series=OPS:MISSES,... (cumulative, at most 64 points, about
 * four per cache-size worth of operations).  A read of a loaded
 * record that finds nothing is an error (exit 1): the database is damaged.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>

#include "kv.h"
#include "steady.h"
#include "ycsb_gen.h"

enum op { OP_READ, OP_UPDATE, OP_INSERT, OP_SCAN, OP_RMW, NR_OPS };
static const char *const op_names[NR_OPS] = {
	"read", "update", "insert", "scan", "rmw"
};

struct workload {
	const char *name;
	double mix[NR_OPS];	/* proportions, summing to 1 */
	enum ycsb_dist dist;
};

static const struct workload workloads[] = {
	{ "a", { [OP_READ] = 0.5, [OP_UPDATE] = 0.5 }, YCSB_SCRAMBLED },
	{ "b", { [OP_READ] = 0.95, [OP_UPDATE] = 0.05 }, YCSB_SCRAMBLED },
	{ "c", { [OP_READ] = 1 }, YCSB_SCRAMBLED },
	{ "d", { [OP_READ] = 0.95, [OP_INSERT] = 0.05 }, YCSB_LATEST },
	{ "e", { [OP_SCAN] = 0.95, [OP_INSERT] = 0.05 }, YCSB_SCRAMBLED },
	{ "f", { [OP_READ] = 0.5, [OP_RMW] = 0.5 }, YCSB_SCRAMBLED },
	{ "uniform", { [OP_READ] = 1 }, YCSB_UNIFORM },
	{ "uniform-rw", { [OP_READ] = 0.5, [OP_UPDATE] = 0.5 }, YCSB_UNIFORM },
	{ "getscan", { [OP_READ] = 1 }, YCSB_SCRAMBLED },
};

#define MAX_SCAN	100
#define SCAN_SHARE	0.0005	/* getscan: scans per operation */

static const char *dir;
static uint64_t records, nr_ops;
static int nr_threads = 2, value_bytes = 1000, cache_mib = 4;
static uint64_t seed = 1, getscan_len = 10000, warm_ops;
static const char *scan_map, *bg_map;
static int scan_advice = -1;
static bool advise_after;
static const struct workload *wl;

static const struct kv_engine *engine = &kv_rocksdb;
static struct kv *db;
static atomic_uint_fast64_t next_insert, inserted, gets_done, missing;
static atomic_uint_fast64_t ops_done, clients_done;
static atomic_bool stop;

/* Steady state (-U, -T): see steady.h. */
static bool warm_until_steady;
static double min_turnovers, tolerance = STEADY_TOLERANCE;
static double max_phase_secs = 1800;
#define MAX_POINTS	4096
#define SERIES_POINTS	64	/* at most, in the output */
#define POINTS_PER_CACHE 4	/* points per cache-size worth of operations */

struct thread {
	pthread_t pt;
	int index;
	uint64_t seed;
	uint64_t ops;
	struct ycsb_hist hist[NR_OPS];
	int err;
};

static void die(const char *fmt, const char *what)
{
	fprintf(stderr, "ycsb: ");
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	exit(1);
}

static void check(char *err, const char *what)
{
	if (err) {
		fprintf(stderr, "ycsb: %s: %s\n", what, err);
		exit(1);
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The value of record @keynum, version @ver: the bytes say whose it is. */
static void fill_value(char *buf, uint64_t keynum, uint64_t ver)
{
	int i;

	for (i = 0; i < value_bytes; i++)
		buf[i] = 'a' + (keynum * 31 + ver * 7 + i) % 26;
}

/* Opens the database of -d, creating it when loading; exits on failure. */
static struct kv *open_db(bool load)
{
	struct kv_options o = { .dir = dir, .load = load, .cache_mib = cache_mib };
	char *err = NULL;
	struct kv *kv = engine->open(&o, &err);

	check(err, "open");
	return kv;
}

static int cmd_load(void)
{
	char key[32], *val = malloc(value_bytes), *err = NULL;
	uint64_t i;

	db = open_db(true);
	for (i = 0; i < records; i++) {
		int n = ycsb_key(key, sizeof(key), i);

		fill_value(val, i, 0);
		engine->put(db, key, n, val, value_bytes, &err);
		check(err, "put");
	}
	engine->compact(db);
	engine->close(db);
	free(val);
	printf("loaded %llu records of %d bytes into %s (%s)\n",
	       (unsigned long long)records, value_bytes, dir, engine->name);
	return 0;
}

static void map_add(int fd, pid_t tid)
{
	uint32_t key = tid;
	uint8_t one = 1;

	if (bpf_map_update_elem(fd, &key, &one, BPF_ANY))
		fprintf(stderr, "ycsb: adding tid %d to a map: %s\n", tid,
			strerror(errno));
}

static int map_open(const char *path)
{
	int fd = bpf_obj_get(path);

	if (fd < 0)
		die("cannot open the pinned map %s (is its policy attached?)",
		    path);
	return fd;
}

/* Add RocksDB's background threads to -B's map as they appear. */
static void *bg_watch(void *arg)
{
	int fd = map_open(bg_map);

	while (!atomic_load(&stop)) {
		DIR *d = opendir("/proc/self/task");
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char path[300], comm[32] = "";
			FILE *f;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
				 e->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(comm, sizeof(comm), f) &&
			    !strncmp(comm, engine->bg_thread_prefix,
				     strlen(engine->bg_thread_prefix)))
				map_add(fd, atoi(e->d_name));
			fclose(f);
		}
		if (d)
			closedir(d);
		usleep(20000);
	}
	close(fd);
	return NULL;
}

static enum op pick_op(struct ycsb_rng *r)
{
	double u = ycsb_rng_double(r), acc = 0;
	int i;

	for (i = 0; i < NR_OPS; i++) {
		acc += wl->mix[i];
		if (u < acc)
			return i;
	}
	return OP_READ;
}

static int do_read(uint64_t keynum)
{
	char key[32], *err = NULL;
	int n = ycsb_key(key, sizeof(key), keynum);
	bool found;
	size_t len;

	if (engine->get(db, key, n, &found, &len, &err)) {
		fprintf(stderr, "ycsb: get: %s\n", err);
		free(err);
		return -1;
	}
	if ((!found && keynum < records) || (found && (int)len != value_bytes))
		atomic_fetch_add(&missing, 1);
	return 0;
}

static int do_write(uint64_t keynum, uint64_t ver)
{
	char key[32], *err = NULL, val[value_bytes];
	int n = ycsb_key(key, sizeof(key), keynum);

	fill_value(val, keynum, ver);
	if (engine->put(db, key, n, val, value_bytes, &err)) {
		fprintf(stderr, "ycsb: put: %s\n", err);
		free(err);
		return -1;
	}
	return 0;
}

static int do_scan(uint64_t keynum, uint64_t len)
{
	char key[32];
	int n = ycsb_key(key, sizeof(key), keynum);

	engine->scan(db, key, n, len);
	return 0;
}

static int one_op(struct thread *t, struct ycsb_rng *r, struct ycsb_zipf *z,
		  enum op op)
{
	uint64_t count = records + atomic_load(&inserted), k;

	switch (op) {
	case OP_READ:
		return do_read(ycsb_next_key(wl->dist, z, r, count));
	case OP_UPDATE:
		return do_write(ycsb_next_key(wl->dist, z, r, count),
				ycsb_rng_next(r));
	case OP_INSERT:
		k = records + atomic_fetch_add(&next_insert, 1);
		if (do_write(k, 0))
			return -1;
		atomic_fetch_add(&inserted, 1);
		return 0;
	case OP_SCAN:
		return do_scan(ycsb_next_key(wl->dist, z, r, count),
			       ycsb_rng_range(r, 1, MAX_SCAN));
	case OP_RMW:
		k = ycsb_next_key(wl->dist, z, r, count);
		if (do_read(k))
			return -1;
		return do_write(k, ycsb_rng_next(r));
	default:
		return -1;
	}
}

static void *client(void *arg)
{
	struct thread *t = arg;
	struct ycsb_rng r;
	struct ycsb_zipf z;
	uint64_t i;

	ycsb_rng_seed(&r, t->seed, t->index);
	ycsb_zipf_init(&z, records, YCSB_THETA);
	for (i = 0; i < t->ops && !t->err &&
		    !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
		enum op op = pick_op(&r);
		uint64_t start = now_ns();

		if (one_op(t, &r, &z, op))
			t->err = 1;
		ycsb_hist_add(&t->hist[op], now_ns() - start);
		if (op == OP_READ)
			atomic_fetch_add(&gets_done, 1);
		atomic_fetch_add_explicit(&ops_done, 1, memory_order_relaxed);
	}
	atomic_fetch_add(&clients_done, 1);
	return NULL;
}

/* Give every open table file of this process the fadvise hint @advice. */
static void advise_tables(int advice)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[300], target[4096];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 5)
			continue;
		target[n] = '\0';
		if (!strcmp(target + n - 4, ".sst"))
			posix_fadvise(atoi(e->d_name), 0, 0, advice);
	}
	if (d)
		closedir(d);
}

/* getscan's SCAN thread: a scan whenever scans fall below their share. */
static void *scanner(void *arg)
{
	struct thread *t = arg;
	struct ycsb_rng r;
	struct ycsb_zipf z;

	if (scan_map) {
		int fd = map_open(scan_map);

		map_add(fd, syscall(SYS_gettid));
		close(fd);
	}
	ycsb_rng_seed(&r, t->seed, 1000 + t->index);
	ycsb_zipf_init(&z, records, YCSB_THETA);
	while (!atomic_load(&stop)) {
		uint64_t start;

		if ((double)t->ops >= SCAN_SHARE * atomic_load(&gets_done)) {
			usleep(1000);
			continue;
		}
		start = now_ns();
		if (scan_advice >= 0 && !advise_after)
			advise_tables(scan_advice);
		do_scan(ycsb_rng_range(&r, 0, records - 1), getscan_len);
		if (scan_advice >= 0 && advise_after)
			advise_tables(scan_advice);
		ycsb_hist_add(&t->hist[OP_SCAN], now_ns() - start);
		t->ops++;
	}
	return NULL;
}

/* Pages read from disk so far (pgpgin, in KiB). */
static long long disk_pages(void)
{
	char line[128];
	long long kb = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "pgpgin %lld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb / 4;
}

/* This process's cgroup directory, for its memory.stat. */
static char cg_dir[4096];

static void find_cgroup(void)
{
	char line[2048];
	FILE *f = fopen("/proc/self/cgroup", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(cg_dir, sizeof(cg_dir), "/sys/fs/cgroup%s", line + 3);
	}
	if (f)
		fclose(f);
}

/* @key of the cgroup's memory.stat, or -1. */
static long long memstat(const char *key)
{
	char path[4200], line[256], k[64];
	long long v, val = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", cg_dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", k, &v) == 2 && !strcmp(k, key)) {
			val = v;
			break;
		}
	if (f)
		fclose(f);
	return val;
}

/* The cgroup's file pages now, or -1. */
static long file_pages_now(void)
{
	long long b = memstat("file");

	return b < 0 ? -1 : b / 4096;
}

/* memory.max of the cgroup in pages; 0 if it has none. */
static long memory_max_pages(void)
{
	char path[4200], text[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.max", cg_dir);
	f = fopen(path, "r");
	if (!f || !fgets(text, sizeof(text), f))
		text[0] = '\0';
	if (f)
		fclose(f);
	return text[0] >= '0' && text[0] <= '9' ? atoll(text) / 4096 : 0;
}

/*
 * What the cgroup can hold of file pages: memory.max less its anonymous
 * memory, or the file pages it holds if it has no limit.  Not the file
 * pages it holds: a run that keeps dropping them (fadvise DONTNEED) would
 * count its misses against a cache it never lets fill.
 */
static long file_capacity(void)
{
	long max = memory_max_pages();
	long long anon = memstat("anon");

	if (!max || anon < 0)
		return file_pages_now();
	return max - anon / 4096;
}

/*
 * A phase of a run: a fixed number of operations (neither until_steady
 * nor turnovers), or at least min_ops and until its condition holds,
 * for at most max_phase_secs.
 */
struct phase {
	uint64_t min_ops;
	bool until_steady;	/* warm-up: cgroup full, miss ratio stable */
	double turnovers;	/* window: misses >= turnovers x capacity */
	long capacity;		/* file pages the cgroup can hold as it began */
	long file_start;	/* file pages it held then */
	struct steady_point pts[MAX_POINTS];
	int nr_pts;
	bool reached;		/* its condition held in time */
	uint64_t ns;
};

static bool phase_fixed(const struct phase *ph)
{
	return !ph->until_steady && ph->turnovers <= 0;
}

static bool phase_done(const struct phase *ph)
{
	const struct steady_point *last = &ph->pts[ph->nr_pts - 1];

	if (last->ops < ph->min_ops)
		return false;
	if (ph->until_steady)
		/* Reclaim has run in the cgroup: it is full. */
		return steady_warm_done(ph->pts, ph->nr_pts, POINTS_PER_CACHE,
					memstat("pgsteal") > 0, tolerance);
	return last->misses >= ph->turnovers * ph->capacity;
}

/*
 * Watch a phase: a point every @point_ops operations, until the clients
 * are done (a fixed phase) or the phase's condition holds; then stop the
 * clients.
 */
static void watch_phase(struct phase *ph, uint64_t point_ops, int clients)
{
	uint64_t start = now_ns(), next = point_ops;
	long long disk0 = disk_pages();

	ph->pts[0] = (struct steady_point){ 0, 0 };
	ph->nr_pts = 1;
	for (;;) {
		uint64_t ops = atomic_load(&ops_done);
		bool finished = atomic_load(&clients_done) == (uint64_t)clients;
		bool late = now_ns() - start > max_phase_secs * 1e9;

		if (ops >= next || finished || late) {
			if (ph->nr_pts == MAX_POINTS) {
				ph->nr_pts = steady_thin(ph->pts, ph->nr_pts,
							 MAX_POINTS / 2);
				point_ops *= 2;
			}
			ph->pts[ph->nr_pts++] = (struct steady_point){
				ops, disk_pages() - disk0 };
			next = ops + point_ops;
			if (finished && phase_fixed(ph)) {
				ph->reached = true;
				break;
			}
			if (!phase_fixed(ph) && phase_done(ph)) {
				ph->reached = true;
				break;
			}
			if (finished || late)
				break;
		}
		usleep(5000);
	}
	atomic_store(&stop, true);
}

/*
 * One phase over the client threads (and getscan's scanner), with random
 * streams from @phase_seed; their histograms in @th.  @point_ops: the
 * operations between points of the phase's series; 0: a quarter of the
 * cgroup's file pages as the phase begins.
 */
static void run_phase(struct thread *th, struct phase *ph, uint64_t point_ops,
		      uint64_t phase_seed)
{
	bool getscan = !strcmp(wl->name, "getscan");
	uint64_t start;
	int i;

	memset(th, 0, (nr_threads + 1) * sizeof(*th));
	atomic_store(&gets_done, 0);
	atomic_store(&ops_done, 0);
	atomic_store(&clients_done, 0);
	atomic_store(&stop, false);
	ph->capacity = file_capacity();
	ph->file_start = file_pages_now();
	if (!point_ops)
		point_ops = ph->capacity > 0 ? ph->capacity / POINTS_PER_CACHE :
			    ph->min_ops / 16;
	start = now_ns();
	for (i = 0; i <= nr_threads; i++) {
		th[i].index = i;
		th[i].seed = phase_seed;
	}
	for (i = 0; i < nr_threads; i++) {
		th[i].ops = !phase_fixed(ph) ? UINT64_MAX :
			    ph->min_ops / nr_threads +
			    (i < (int)(ph->min_ops % nr_threads));
		pthread_create(&th[i].pt, NULL, client, &th[i]);
	}
	if (getscan)
		pthread_create(&th[nr_threads].pt, NULL, scanner,
			       &th[nr_threads]);
	watch_phase(ph, point_ops ?: 1, nr_threads);
	for (i = 0; i < nr_threads; i++)
		pthread_join(th[i].pt, NULL);
	ph->ns = now_ns() - start;
	if (getscan)
		pthread_join(th[nr_threads].pt, NULL);
}

/* The window's steady-state evidence and its miss-ratio series. */
static void print_steady(struct phase *warm, struct phase *win,
			 long pages_end)
{
	struct steady_verdict v;
	int i, n;

	steady_judge(win->pts, win->nr_pts, win->capacity,
		     min_turnovers > 0 ? min_turnovers : STEADY_TURNOVERS,
		     tolerance, &v);
	printf(" warm_ops=%llu warm_secs=%.3f warm_steady=%d capacity=%ld file_pages_start=%ld file_pages_end=%ld",
	       (unsigned long long)warm->pts[warm->nr_pts - 1].ops,
	       warm->ns / 1e9, warm->until_steady ? warm->reached : -1,
	       win->capacity, win->file_start, pages_end);
	printf(" misses=%llu turnovers=%.3f mr_first=%.5f mr_second=%.5f half_diff=%.4f window_reached=%d steady=%d",
	       (unsigned long long)win->pts[win->nr_pts - 1].misses,
	       v.turnovers, v.mr_first, v.mr_second, v.half_diff,
	       win->reached, v.steady);
	n = steady_thin(win->pts, win->nr_pts, SERIES_POINTS);
	printf(" series=");
	for (i = 0; i < n; i++)
		printf("%s%llu:%llu", i ? "," : "",
		       (unsigned long long)win->pts[i].ops,
		       (unsigned long long)win->pts[i].misses);
}

static int cmd_run(void)
{
	static struct phase warm, win;
	struct thread *th = calloc(nr_threads + 1, sizeof(*th));
	struct ycsb_hist total[NR_OPS] = {};
	bool getscan = !strcmp(wl->name, "getscan");
	long max_pages, pages_end;
	pthread_t watcher;
	uint64_t ns, done = 0;
	long long disk;
	int i, j, failed = 0;

	find_cgroup();
	max_pages = memory_max_pages();
	if ((warm_until_steady || min_turnovers > 0) && !max_pages) {
		fprintf(stderr, "ycsb: -U and -T need a memory cgroup with memory.max set (this process is in %s)\n",
			cg_dir[0] ? cg_dir : "no cgroup");
		return 2;
	}
	if (bg_map && !engine->bg_thread_prefix) {
		fprintf(stderr, "ycsb: -B: %s's background threads have no name of their own\n",
			engine->name);
		return 2;
	}
	db = open_db(false);
	if (bg_map)
		pthread_create(&watcher, NULL, bg_watch, NULL);

	warm.min_ops = warm_ops;
	warm.until_steady = warm_until_steady;
	if (warm_ops || warm_until_steady) {
		run_phase(th, &warm, max_pages ? max_pages / POINTS_PER_CACHE :
				     warm_ops / 16, seed ^ 0x5eed5eed);
		for (i = 0; i <= nr_threads; i++)
			failed |= th[i].err;
	}
	win.min_ops = nr_ops;
	win.turnovers = min_turnovers;
	run_phase(th, &win, 0, seed);
	ns = win.ns;
	disk = win.pts[win.nr_pts - 1].misses;
	pages_end = file_pages_now();
	atomic_store(&stop, true);
	if (bg_map)
		pthread_join(watcher, NULL);

	for (i = 0; i <= nr_threads; i++) {
		failed |= th[i].err;
		for (j = 0; j < NR_OPS; j++)
			ycsb_hist_merge(&total[j], &th[i].hist[j]);
	}
	for (j = 0; j < NR_OPS; j++)
		if (!getscan || j != OP_SCAN)
			done += total[j].count;

	printf("workload=%s threads=%d ops=%llu secs=%.3f ops_per_s=%.1f disk_reads=%lld",
	       wl->name, nr_threads, (unsigned long long)done, ns / 1e9,
	       done / (ns / 1e9), disk);
	for (j = 0; j < NR_OPS; j++) {
		if (!total[j].count)
			continue;
		printf(" %s=%llu %s_p50_us=%.1f %s_p99_us=%.1f", op_names[j],
		       (unsigned long long)total[j].count, op_names[j],
		       ycsb_hist_quantile(&total[j], 0.5) / 1e3, op_names[j],
		       ycsb_hist_quantile(&total[j], 0.99) / 1e3);
	}
	if (getscan)
		printf(" get_ops_per_s=%.1f scan_ops_per_s=%.3f",
		       total[OP_READ].count / (ns / 1e9),
		       total[OP_SCAN].count / (ns / 1e9));
	print_steady(&warm, &win, pages_end);
	printf("\n");

	engine->close(db);
	if (atomic_load(&missing)) {
		fprintf(stderr, "ycsb: %llu reads of loaded records found nothing or a wrong size: the database in %s is damaged\n",
			(unsigned long long)atomic_load(&missing), dir);
		return 1;
	}
	return failed;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ycsb load -d DIR -n RECORDS [-v BYTES] [-E STORE]\n"
		"       ycsb run -d DIR -w WORKLOAD -n RECORDS -o OPS [-E STORE] [-W WARMUP_OPS] [-U] [-T TURNOVERS]\n"
		"                [-M MAX_SECS] [-q TOLERANCE] [-t THREADS] [-s SEED] [-c CACHE_MIB]\n"
		"                [-L SCAN_LEN] [-S SCAN_TID_MAP] [-F HINT] [-B BG_TID_MAP]\n"
		"workloads: a b c d e f uniform uniform-rw getscan; stores: rocksdb leveldb\n");
}

int main(int argc, char **argv)
{
	const char *wname = NULL;
	bool load;
	size_t i;
	int c;

	if (argc < 2 || (strcmp(argv[1], "load") && strcmp(argv[1], "run"))) {
		usage(argc > 1 && !strcmp(argv[1], "-h") ? stdout : stderr);
		return argc > 1 && !strcmp(argv[1], "-h") ? 0 : 2;
	}
	load = !strcmp(argv[1], "load");
	optind = 2;
	while ((c = getopt(argc, argv, "d:n:v:w:o:t:s:c:L:S:B:W:F:UT:M:q:E:h")) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'E':
			engine = kv_engine_by_name(optarg);
			if (!engine) {
				fprintf(stderr, "ycsb: -E takes rocksdb or leveldb, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'n': records = strtoull(optarg, NULL, 0); break;
		case 'v': value_bytes = atoi(optarg); break;
		case 'w': wname = optarg; break;
		case 'o': nr_ops = strtoull(optarg, NULL, 0); break;
		case 't': nr_threads = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'c': cache_mib = atoi(optarg); break;
		case 'L': getscan_len = strtoull(optarg, NULL, 0); break;
		case 'S': scan_map = optarg; break;
		case 'B': bg_map = optarg; break;
		case 'F':
			if (!strcmp(optarg, "noreuse")) {
				scan_advice = POSIX_FADV_NOREUSE;
			} else if (!strcmp(optarg, "sequential")) {
				scan_advice = POSIX_FADV_SEQUENTIAL;
			} else if (!strcmp(optarg, "dontneed")) {
				scan_advice = POSIX_FADV_DONTNEED;
				advise_after = true;
			} else if (strcmp(optarg, "none")) {
				fprintf(stderr, "ycsb: -F takes none, noreuse, sequential or dontneed\n");
				return 2;
			}
			break;
		case 'W': warm_ops = strtoull(optarg, NULL, 0); break;
		case 'U': warm_until_steady = true; break;
		case 'T': min_turnovers = atof(optarg); break;
		case 'M': max_phase_secs = atof(optarg); break;
		case 'q': tolerance = atof(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!dir || records < 2 || value_bytes < 1 || value_bytes > 65536) {
		fprintf(stderr, "ycsb: -d DIR and -n RECORDS (at least 2) are needed; -v 1..65536\n");
		return 2;
	}
	if (load)
		return cmd_load();
	for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		if (wname && !strcmp(wname, workloads[i].name))
			wl = &workloads[i];
	if (!wl || !nr_ops || nr_threads < 1 || cache_mib < 0) {
		fprintf(stderr, "ycsb: -w takes a b c d e f uniform uniform-rw getscan; -o and -t positive\n");
		return 2;
	}
	if (min_turnovers < 0 || max_phase_secs <= 0 || tolerance <= 0) {
		fprintf(stderr, "ycsb: -T at least 0, -M and -q positive\n");
		return 2;
	}
	return cmd_run();
}
