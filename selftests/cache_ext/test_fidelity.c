// SPDX-License-Identifier: GPL-2.0
/*
 * Every policy of the suite, attached the way users attach it, against
 * cachesim running the same policy source on the same references.
 *
 * "The way users attach it": cachectl attach (or the module's preload and
 * a binding by name), after which the loader has exited and the policy
 * runs on what its link and pins keep alive.  A policy that depends on
 * something its loader held (a BPF timer lives only as long as a user
 * reference to its map) drifts from its simulated self here and nowhere
 * else: the simulator has no loader.
 *
 * Two workloads of different shape, each a fixed sequence of 4 KiB reads
 * (no readahead) written once as a cachesim trace and replayed in the
 * kernel read by read:
 *   zipf     Zipf(0.9) reads of 48 MiB from one thread;
 *   getscan  a GET thread reading Zipf(0.9) from 32 MiB and a scan
 *            thread reading 64 MiB in order, taking turns (1,000 GETs,
 *            then 500 pages of the scan): the shape of the cache_ext
 *            paper's GET-SCAN, with the scan thread named to get_scan.
 *            The scan is 4x the cgroup: with a scan loop of about the
 *            cgroup's size (16 MiB, measured) lfu sits on a cliff where
 *            cachesim's misses jump 15% between cache sizes 0.25% apart
 *            (25,621 at 4,000 pages, 29,859 at 4,010), which no
 *            comparison at one size can call agreement or not.
 * The cgroup is 16 MiB; the simulated cache is the cgroup's page cache at
 * the end of the kernel's run, and the simulator's clock runs at the
 * kernel run's reads per second (for policies that read the time).
 *
 * cachesim is $CACHESIM, or beside $CACHECTL's build.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "workload.h"

#define MIB		256	/* pages */
#define CGROUP_MAX	"16M"
#define TID_MAP_PIN	"/sys/fs/bpf/get_scan_tids"
#define GET_THREAD	1	/* the threads' numbers in the trace */
#define SCAN_THREAD	2

/* One read of the sequence: a page of the file, by one of two threads. */
struct ref {
	uint32_t page;
	uint8_t thread;
};

struct sequence {
	struct ref *refs;
	size_t nr;
	size_t file_pages;
	int threads;		/* 2: the scan thread is named to get_scan */
};

/* Zipf(0.9) reads of @pages pages, ranks spread over them. */
static size_t zipf_page(struct zipf *z, size_t pages)
{
	return (zipf_next(z) * 2654435761ULL) % pages;
}

static int make_zipf(struct sequence *s)
{
	struct zipf z;
	size_t i;

	s->file_pages = 48 * MIB;
	s->nr = 60000;
	s->threads = 1;
	s->refs = calloc(s->nr, sizeof(*s->refs));
	if (!s->refs || zipf_init(&z, s->file_pages, 0.9, 42))
		return -1;
	for (i = 0; i < s->nr; i++)
		s->refs[i] = (struct ref){ zipf_page(&z, s->file_pages), GET_THREAD };
	zipf_free(&z);
	return 0;
}

#define GS_GET_PAGES	(32 * MIB)
#define GS_SCAN_PAGES	(64 * MIB)
#define GS_ROUNDS	40
#define GS_GETS		1000	/* per round */
#define GS_SCANNED	500	/* per round */

static int make_getscan(struct sequence *s)
{
	size_t i, r, n = 0, next_scan = 0;
	struct zipf z;

	s->file_pages = GS_GET_PAGES + GS_SCAN_PAGES;
	s->nr = GS_ROUNDS * (GS_GETS + GS_SCANNED);
	s->threads = 2;
	s->refs = calloc(s->nr, sizeof(*s->refs));
	if (!s->refs || zipf_init(&z, GS_GET_PAGES, 0.9, 7))
		return -1;
	for (r = 0; r < GS_ROUNDS; r++) {
		for (i = 0; i < GS_GETS; i++)
			s->refs[n++] = (struct ref){ zipf_page(&z, GS_GET_PAGES),
						     GET_THREAD };
		for (i = 0; i < GS_SCANNED; i++) {
			s->refs[n++] = (struct ref){ GS_GET_PAGES + next_scan,
						     SCAN_THREAD };
			next_scan = (next_scan + 1) % GS_SCAN_PAGES;
		}
	}
	zipf_free(&z);
	return 0;
}

/* The sequence as a cachesim text trace: "PAGE r THREAD" per line. */
static int write_trace(const struct sequence *s, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -1;
	for (i = 0; i < s->nr; i++)
		fprintf(f, "%u r %u\n", s->refs[i].page, s->refs[i].thread);
	return fclose(f);
}

/*
 * The kernel's replay: one thread per trace thread, taking turns in the
 * sequence's order so that the page cache sees exactly the trace.
 */
struct replay {
	const struct sequence *s;
	const char *path;
	int name_scan_thread;	/* put the scan thread in get_scan_tids */
	pthread_mutex_t lock;
	pthread_cond_t turn;
	size_t next;		/* the next read of the sequence */
	int failed;
};

struct reader {
	struct replay *r;
	uint8_t thread;
};

static int name_to_get_scan(void)
{
	uint32_t tid = syscall(SYS_gettid);
	uint8_t one = 1;
	int fd = bpf_obj_get(TID_MAP_PIN), ret;

	if (fd < 0)
		return -errno;
	ret = bpf_map_update_elem(fd, &tid, &one, BPF_ANY);
	close(fd);
	return ret;
}

static void *reader_fn(void *arg)
{
	struct reader *me = arg;
	struct replay *r = me->r;
	const struct ref *refs = r->s->refs;
	char buf[PAGE_SZ];
	int fd = open(r->path, O_RDONLY), failed = 0;
	size_t i;

	if (fd < 0 || (me->thread == SCAN_THREAD && r->name_scan_thread &&
		       name_to_get_scan()))
		failed = 1;
	if (fd >= 0)
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);	/* no readahead */
	pthread_mutex_lock(&r->lock);
	r->failed |= failed;
	for (;;) {
		while (r->next < r->s->nr && refs[r->next].thread != me->thread &&
		       !r->failed)
			pthread_cond_wait(&r->turn, &r->lock);
		if (r->next == r->s->nr || r->failed)
			break;
		/* This thread's run of reads; the other waits for r->next. */
		i = r->next;
		pthread_mutex_unlock(&r->lock);
		for (; i < r->s->nr && refs[i].thread == me->thread && !failed; i++)
			failed = pread(fd, buf, PAGE_SZ, refs[i].page * PAGE_SZ) != PAGE_SZ ||
				 check_page(buf, refs[i].page);
		pthread_mutex_lock(&r->lock);
		r->next = i;
		r->failed |= failed;
		pthread_cond_broadcast(&r->turn);
	}
	pthread_cond_broadcast(&r->turn);
	pthread_mutex_unlock(&r->lock);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* cg_run() function: the replay, in the cgroup. */
static int replay_fn(const char *cgroup, void *arg)
{
	struct replay *r = arg;
	struct reader readers[2] = { { r, GET_THREAD }, { r, SCAN_THREAD } };
	pthread_t t[2];
	int i, n = r->s->threads;

	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->turn, NULL);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, reader_fn, &readers[i]))
			return EXIT_FAILURE;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return r->failed || r->next != r->s->nr ? EXIT_FAILURE : EXIT_SUCCESS;
}

FIXTURE(fidelity) {
	char *cg;
	struct sequence seq;
	char file[PATH_MAX], trace[PATH_MAX], model[PATH_MAX], sim[PATH_MAX];
	char objs[PATH_MAX];
	char out[16384];
};

FIXTURE_VARIANT(fidelity) {
	int (*make)(struct sequence *s);
	/*
	 * mru's bound, or 0: logged, not held.  On Zipfian reads MRU misses
	 * nearly everything, and its count depends on which of the newest
	 * folios still sit in per-CPU LRU batches (busy: the kernel skips
	 * them, the simulator has no such batches): kernel vs cachesim
	 * measured +2.3% to +9.5% over four runs, loaded and quiet.  On
	 * getscan's scan it agrees within 0.2%.
	 */
	double mru_tolerance;
};

FIXTURE_VARIANT_ADD(fidelity, zipf) { .make = make_zipf, .mru_tolerance = 0 };
FIXTURE_VARIANT_ADD(fidelity, getscan) { .make = make_getscan, .mru_tolerance = 0.06 };

/*
 * A fixed model for ml_protect and ml_rank: the page's long-run access
 * frequency (page_ema_long, x1000) alone, so that what it decides does
 * not hang on the machine's speed as the time features would.
 */
static int write_frequency_model(const char *path)
{
	return write_model(path, 9, "\"n_bins\":4,\"bin_edges\":[1500,2500,4500],"
				    "\"weights_int\":[-4,1,3,6]",
			   ",\"threshold_int\":0,\"holdout_auc\":0.9");
}

FIXTURE_SETUP(fidelity)
{
	if (!scratch_dir() || !getenv("CACHECTL") || !getenv("CACHE_EXT_CTL_KO"))
		SKIP(return, "run in the VM with CACHECTL and CACHE_EXT_CTL_KO set");
	setenv("CACHECTL_MODULE", getenv("CACHE_EXT_CTL_KO"), 1);
	ASSERT_EQ(cachesim_path(self->sim, sizeof(self->sim)), 0)
		TH_LOG("no cachesim at %s", self->sim);
	snprintf(self->objs, sizeof(self->objs), "%s",
		 getenv("BPF_OBJ_DIR") ?: BPF_OBJ_DIR);
	setenv("CACHECTL_BPF_DIR", self->objs, 1);	/* cachectl preload */
	ASSERT_EQ(ctl_module_load(), 0);
	self->cg = memcg_create("cache_ext_fidelity");
	ASSERT_NE(self->cg, NULL);
	scratch_path(self->file, sizeof(self->file), "fidelity");
	scratch_path(self->trace, sizeof(self->trace), "fidelity.trace");
	scratch_path(self->model, sizeof(self->model), "fidelity.json");
	ASSERT_EQ(variant->make(&self->seq), 0);
	ASSERT_EQ(make_file(self->file, self->seq.file_pages), 0);
	ASSERT_EQ(write_trace(&self->seq, self->trace), 0);
	ASSERT_EQ(write_frequency_model(self->model), 0);
	ASSERT_EQ(cg_write(self->cg, "memory.max", CGROUP_MAX), 0);
	ASSERT_EQ(set_lru_gen(0), 0);
}

FIXTURE_TEARDOWN(fidelity)
{
	char out[512];

	if (self->cg)
		cg_write(self->cg, "memory.cache_ext", "default");
	/* What a failed case left registered; quietly, the rest is not there. */
	run_cmd(out, sizeof(out), "{ for p in fifo lfu mru s3fifo lhd mglru get_scan ml_protect ml_rank; do %s detach $p; done; %s model unload learned; } >/dev/null 2>&1",
		getenv("CACHECTL"), getenv("CACHECTL"));
	unlink(TID_MAP_PIN);
	unlink(self->file);
	unlink(self->trace);
	unlink(self->model);
	free(self->seq.refs);
	set_lru_gen(1);
	if (self->cg) {
		cg_destroy(self->cg);
		free(self->cg);
	}
}

/* The page cache of @cg in pages (memory.stat "file"). */
static long file_pages(const char *cg)
{
	long bytes = cg_read_key_long(cg, "memory.stat", "\nfile ");

	return bytes < 0 ? -1 : bytes / PAGE_SZ;
}

struct measured {
	long long reads;	/* disk reads of the kernel's run */
	long fallback;		/* pages the kernel's LRU evicted for the policy */
	long rounds;		/* reclaim rounds the policy was asked in */
	long requested;		/* folios reclaim asked it for, in all */
	long proposed;		/* candidates it proposed, in all */
	long none_taken;	/* rounds reclaim took none of its candidates */
	long lru_batches;	/* batches the LRU took instead */
	long kswapd;		/* pages kswapd reclaimed meanwhile, any cgroup */
	long long busy;		/* batches the LRU took: the policy was busy */
	long long untracked;	/* insertions the registry could not track */
	long long rejected;	/* candidates reclaim could not take */
	long long tracked;	/* folios in the registry at the end */
	long pages;		/* the cgroup's page cache at its end */
	unsigned long long ns_per_read;
};

/*
 * Registers @policy as users do (@how: "attach": cachectl attach --cgroup;
 * "preload": cachectl preload, then memory.cache_ext), lets cachectl exit,
 * replays the sequence in the cgroup and detaches the policy again.
 */
static int kernel_run(struct __test_metadata *_metadata,
		      FIXTURE_DATA(fidelity) *self, const char *policy,
		      const char *how, struct measured *m)
{
	struct replay r = {
		.s = &self->seq, .path = self->file,
		.name_scan_thread = self->seq.threads == 2 &&
				    !strcmp(policy, "get_scan"),
	};
	const char *ctl = getenv("CACHECTL");
	uint64_t cg_id = cgroup_id_of(self->cg);
	uint64_t t0;
	int ret;

	if (drop_file_cache(self->file) || trace_start())
		return -1;
	if (!strcmp(how, "preload"))
		ret = run_cmd(self->out, sizeof(self->out), "%s preload %s", ctl, policy) ||
		      cg_write(self->cg, "memory.cache_ext", (char *)policy);
	else
		ret = run_cmd(self->out, sizeof(self->out), "%s attach %s/%s.bpf.o --cgroup %s",
			      ctl, self->objs, policy, self->cg);
	if (ret) {
		TH_LOG("%s %s: %s", how, policy, self->out);
		return -1;
	}
	m->reads = disk_pages_read();
	m->kswapd = vmstat("pgsteal_kswapd");
	t0 = now_us();
	ret = cg_run(self->cg, replay_fn, &r);
	m->ns_per_read = (now_us() - t0) * 1000 / self->seq.nr;
	m->reads = disk_pages_read() - m->reads;
	m->kswapd = vmstat("pgsteal_kswapd") - m->kswapd;
	m->pages = file_pages(self->cg);
	m->fallback = trace_sum("cache_ext_fallback:", " reclaimed=");
	/* When the LRU evicted for it: was the policy asked, did it answer? */
	m->rounds = trace_count("cache_ext_evict:", NULL);
	m->requested = trace_sum("cache_ext_evict:", " requested=");
	m->proposed = trace_sum("cache_ext_evict:", " proposed=");
	m->none_taken = trace_count("cache_ext_evict:", " accepted=0 ", NULL);
	m->lru_batches = trace_count("cache_ext_fallback:", NULL);
	m->busy = binding_stat(cg_id, "evict_busy ");
	m->untracked = binding_stat(cg_id, "untracked ");
	m->rejected = binding_stat(cg_id, "rejected ");
	m->tracked = binding_stat(cg_id, "tracked ");
	EXPECT_EQ(trace_ejections(policy), 0);
	cg_write(self->cg, "memory.cache_ext", "default");
	if (run_cmd(self->out, sizeof(self->out), "%s detach %s", ctl, policy))
		TH_LOG("detach %s: %s", policy, self->out);
	return ret;
}

/* cachesim's misses and fallback evictions for @policy at @m's size and speed. */
static int simulate(FIXTURE_DATA(fidelity) *self, const char *policy,
		    const struct measured *m, long long *misses, long long *fallback)
{
	char name[64];
	char *line;

	if (run_cmd(self->out, sizeof(self->out),
		    "%s -o tsv -j 1 -t %llu -T get_scan_tids=%d -m learned=%s -p %s -s %ld %s",
		    self->sim, m->ns_per_read, SCAN_THREAD, self->model, policy,
		    m->pages, self->trace))
		return -1;
	/* policy pages accesses misses miss_ratio seconds evict_calls fallback */
	line = strchr(self->out, '\n');
	if (!line || sscanf(line + 1, "%63s %*u %*u %lld %*f %*f %*u %lld", name,
			    misses, fallback) != 3)
		return -1;
	return 0;
}

/*
 * lhd had 5%: its timer fired every 500 ms of wall-clock time in the
 * kernel and at the run's average rate of reads in the simulator, so its
 * reconfigurations fell on other reads (kernel -3.5% to +0.5% of cachesim
 * over 18 runs of the zipf workload).  It reconfigures on its own access
 * clock now, at the same accesses in both, and has the 3% of the others.
 */

/*
 * What the simulator leaves out: pages the kernel charges beside the page
 * cache (the cgroup holds a little less at some moments than at the end),
 * folios reclaim meets busy, and new folios in per-CPU LRU batches, which
 * MRU, evicting the newest, meets most: hence its 6%.
 */
TEST_F_TIMEOUT(fidelity, policies_attached_as_users_do_match_the_simulator, 900)
{
	static const struct {
		const char *policy, *how;
		double tolerance;
	} cases[] = {
		{ "fifo", "attach", 0.03 },
		{ "lfu", "attach", 0.03 },
		{ "s3fifo", "attach", 0.03 },
		{ "mglru", "attach", 0.03 },
		{ "mru", "attach", 0.06 },
		{ "lhd", "attach", 0.03 },
		{ "lhd", "preload", 0.03 },
		{ "get_scan", "attach", 0.03 },
		{ "ml_protect", "attach", 0.03 },
		{ "ml_rank", "attach", 0.03 },
	};
	unsigned int i, bad = 0;

	ASSERT_EQ(run_cmd(self->out, sizeof(self->out), "%s model load learned %s",
			  getenv("CACHECTL"), self->model), 0) TH_LOG("%s", self->out);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long long sim = -1, sim_fallback = -1;
		struct measured m;
		double rel, tol;

		ASSERT_EQ(kernel_run(_metadata, self, cases[i].policy, cases[i].how, &m), 0);
		EXPECT_EQ(simulate(self, cases[i].policy, &m, &sim, &sim_fallback), 0)
			TH_LOG("cachesim: %s", self->out);
		tol = strcmp(cases[i].policy, "mru") ? cases[i].tolerance :
		      variant->mru_tolerance;
		rel = sim > 0 ? (double)(sim - m.reads) / m.reads : 1;
		TH_LOG("%-10s (%-7s) kernel %lld disk reads, cachesim %lld at %ld pages, %llu ns a read (%+.1f%%, tolerance %.0f%%%s); fallback evictions %ld, %lld",
		       cases[i].policy, cases[i].how, m.reads, sim, m.pages,
		       m.ns_per_read, rel * 100, tol * 100,
		       tol > 0 ? "" : ": not held", m.fallback, sim_fallback);
		if (m.fallback > sim_fallback)
			TH_LOG("%-10s (%-7s) asked in %ld reclaim rounds for %ld folios, %ld candidates proposed (%lld rejected), none taken in %ld rounds; %ld batches the LRU's, %lld of them for a busy policy; %lld insertions untracked, %lld tracked of %ld at the end; kswapd reclaimed %ld pages meanwhile",
			       cases[i].policy, cases[i].how, m.rounds,
			       m.requested, m.proposed, m.rejected,
			       m.none_taken, m.lru_batches, m.busy,
			       m.untracked, m.tracked, m.pages, m.kswapd);
		if (tol > 0 && (rel > tol || -rel > tol))
			bad++;
	}
	EXPECT_EQ(bad, 0);
}

TEST_HARNESS_MAIN
