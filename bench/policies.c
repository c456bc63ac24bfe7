// SPDX-License-Identifier: GPL-2.0
/*
 * policies: every policy against the kernel's own, on the same workloads,
 * side by side in one boot.  This is what `make run` shows.
 *
 * Each run gets a fresh memory cgroup limited to MEM MiB (16), a file
 * dropped from the page cache, and one setup:
 *
 *   kernel-lru    no policy, the active/inactive LRU
 *   kernel-mglru  no policy, MGLRU (lru_gen enabled)
 *   <policy>      a cache_ext policy from build/bpf, bound to the cgroup
 *                 (the kernel's LRU underneath, for what it does not pick)
 *
 * Workloads (all verify every page they read):
 *
 *   zipf      READS (30000) seeded Zipfian 4 KiB preads (theta 0.9, hot
 *             pages spread over the file) over a 48 MiB file, readahead off
 *   scan      a 24 MiB file (1.5x the limit) read sequentially 3 times
 *   periodic  6 rounds of: a 4 MiB file read whole, then the next 16 MiB
 *             of a 96 MiB stream (the learnable pattern of LearnedCache)
 *
 * A setup "policy/knob=value/knob=value" sets knobs, e.g.
 * ml_rank/oversample=10.  When a setup is a learned policy (ml_*), each
 * workload is first traced with `$CACHECTL trace` (tracer as plain FIFO),
 * a model is trained on the log with `$LCTRAIN`, and loaded as "learned";
 * the training time and hold-out AUC are printed with the table.
 *
 * Reported per run: disk reads (pages read from disk, from pgpgin) and
 * disk/read, the same per page the workload read: below 1 the cache served
 * the rest; above 1 readahead read more than the workload used, pages that
 * were evicted before their reader got to them and read again.  Not a hit
 * ratio: readahead makes misses and pages read two different counts.
 * Then throughput (pages per second of wall time, noisy under TCG), and
 * with $CACHE_EXT_CTL_KO the binding's prefetch_evicted/prefetch_refaults
 * (folios readahead brought in that reclaim evicted before anyone read
 * them / of those, folios read in again; "-" for the kernel's own
 * policies, which have no binding) and the policy's decision
 * time per evict_folios() call (median and p99 upper bounds from the
 * module's log2 histogram).  '*' marks the fewest disk reads per workload.
 *
 *   policies [-w w1,w2] [-p p1,p2,..] [-m MEM_MIB] [-n READS] [-t THETA]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "hist.h"
#include "workload.h"

#define MIB		256	/* pages */
#define MAX_SETUPS	16

static const char *const default_setups =
	"kernel-lru,kernel-mglru,fifo,lfu,mru,s3fifo,lhd,mglru,noop,ml_protect,ml_rank";

static int mem_mib = 16;
static size_t nr_reads = 30000;
static double theta = 0.9;
static int have_module;

#define NR_FILES	2

struct workload {
	const char *name;
	const char *desc;
	size_t pages[NR_FILES];	/* sizes of its files; 0: none */
	int (*run)(const char *cgroup, void *files);
	size_t (*pages_read)(void);
};

static char files[NR_FILES][PATH_MAX];

static int run_zipf(const char *cgroup, void *arg)
{
	return zipf_reads(files[0], 48 * MIB, nr_reads, theta, 42) ?
	       EXIT_FAILURE : EXIT_SUCCESS;
}

static size_t zipf_pages_read(void)
{
	return nr_reads;
}

static int run_scan(const char *cgroup, void *arg)
{
	return scan_reads(files[0], 3) ? EXIT_FAILURE : EXIT_SUCCESS;
}

static size_t scan_pages_read(void)
{
	return 3 * 24 * MIB;
}

static int run_periodic(const char *cgroup, void *arg)
{
	struct periodic w = { files[0], files[1], 4 * MIB, 16 * MIB, 6 };

	return periodic_reads(cgroup, &w);
}

static size_t periodic_pages_read(void)
{
	return 6 * (4 + 16) * MIB;
}

static const struct workload workloads[] = {
	{ "zipf", "Zipfian 4 KiB preads over 48 MiB", { 48 * MIB }, run_zipf,
	  zipf_pages_read },
	{ "scan", "24 MiB file read 3 times in a row", { 24 * MIB }, run_scan,
	  scan_pages_read },
	{ "periodic", "4 MiB re-read between 16 MiB streamed, 6 times",
	  { 4 * MIB, 96 * MIB }, run_periodic, periodic_pages_read },
};

static int drop_files(const struct workload *w)
{
	int i;

	for (i = 0; i < NR_FILES; i++)
		if (w->pages[i] && drop_file_cache(files[i]))
			return -1;
	return 0;
}

struct result {
	double disk_per_read, pages_per_s;
	long long disk_reads, prefetch_evicted, prefetch_refaults;
	uint64_t p50_ns, p99_ns;
	int ok;
};

/* Decision-time quantiles of the cgroup's binding, from debugfs. */
static void read_latency(uint64_t cg_id, struct result *r)
{
	char path[128], text[4096];
	struct hist h;

	snprintf(path, sizeof(path), "/sys/kernel/debug/cache_ext/%" PRIu64 "/latency",
		 cg_id);
	if (read_text(path, text, sizeof(text)) < 0 || hist_parse(text, &h))
		return;
	r->p50_ns = hist_quantile(&h, 0.5);
	r->p99_ns = hist_quantile(&h, 0.99);
}

/* "ml_rank/oversample=10" -> policy "ml_rank", knobs "oversample=10". */
static void split_setup(const char *setup, char *policy, size_t plen,
			char *knobs, size_t klen)
{
	const char *slash = strchr(setup, '/');
	size_t n = slash ? (size_t)(slash - setup) : strlen(setup);
	char *k;

	snprintf(policy, plen, "%.*s", (int)n, setup);
	snprintf(knobs, klen, "%s", slash ? slash + 1 : "");
	for (k = knobs; *k; k++)
		if (*k == '/')
			*k = ' ';
}

static int run_one(const struct workload *w, const char *setup,
		   struct result *r)
{
	int kernel = !strncmp(setup, "kernel-", 7);
	char policy[64], knobs[256];
	struct policy p = {};
	long long before;
	uint64_t start, cg_id;
	char *cg, max[16];
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->prefetch_evicted = -1;
	if (set_lru_gen(!strcmp(setup, "kernel-mglru")))
		return -1;
	cg = memcg_create("cache_ext_bench");
	if (!cg)
		return -1;
	snprintf(max, sizeof(max), "%dM", mem_mib);
	cg_id = cgroup_id_of(cg);
	split_setup(setup, policy, sizeof(policy), knobs, sizeof(knobs));
	if (cg_write(cg, "memory.max", max) || drop_files(w))
		goto out;
	if (!kernel && policy_attach(&p, policy, NULL, cg_id, knobs))
		goto out;

	before = disk_pages_read();
	start = now_us();
	if (cg_run(cg, w->run, NULL))
		goto out;
	r->pages_per_s = w->pages_read() * 1e6 / (now_us() - start);
	r->disk_reads = disk_pages_read() - before;
	r->disk_per_read = (double)r->disk_reads / w->pages_read();
	if (!kernel && have_module) {
		read_latency(cg_id, r);
		r->prefetch_evicted = binding_stat(cg_id, "prefetch_evicted ");
		r->prefetch_refaults = binding_stat(cg_id, "prefetch_refaults ");
	}
	r->ok = 1;
	ret = 0;
out:
	policy_detach(&p);
	cg_destroy(cg);
	free(cg);
	return ret;
}

static void fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "-");
	else if (ns < 10000)
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	else
		snprintf(buf, len, "%" PRIu64 "us", ns / 1000);
}

static void print_table(const struct workload *w, char **setups, int n,
			struct result *res)
{
	int i, best = -1, base = -1;
	char p50[24], p99[24], wasted[48];

	for (i = 0; i < n; i++) {
		if (!res[i].ok)
			continue;
		if (best < 0 || res[i].disk_reads < res[best].disk_reads)
			best = i;
		if (!strcmp(setups[i], "kernel-lru"))
			base = i;
	}
	printf("\n%s: %s, %d MiB cgroup, %zu pages read\n", w->name, w->desc,
	       mem_mib, w->pages_read());
	printf("  %-22s %10s %9s %8s %13s %10s %10s %9s\n", "setup",
	       "disk reads", "disk/read", "vs lru", "ra wasted", "pages/s",
	       "decide p50", "p99");
	for (i = 0; i < n; i++) {
		if (!res[i].ok) {
			printf("  %-22s %9s\n", setups[i], "FAILED");
			continue;
		}
		fmt_ns(res[i].p50_ns, p50, sizeof(p50));
		fmt_ns(res[i].p99_ns, p99, sizeof(p99));
		if (res[i].prefetch_evicted < 0)
			snprintf(wasted, sizeof(wasted), "-");
		else
			snprintf(wasted, sizeof(wasted), "%lld/%lld",
				 res[i].prefetch_evicted,
				 res[i].prefetch_refaults);
		printf("%c %-22s %10lld %9.3f %7.2fx %13s %10.0f %10s %9s\n",
		       i == best ? '*' : ' ', setups[i], res[i].disk_reads,
		       res[i].disk_per_read,
		       base >= 0 && res[base].disk_reads ?
		       (double)res[i].disk_reads / res[base].disk_reads : 0.0,
		       wasted, res[i].pages_per_s, p50, p99);
	}
	printf("  (* fewest disk reads; disk/read = disk reads per page read; 'vs lru' =\n"
	       "   disk reads relative to kernel-lru; ra wasted = readahead pages evicted\n"
	       "   before anyone read them / of those, pages read again)\n");
}

static void usage(FILE *out)
{
	fprintf(out, "usage: policies [-w w1,w2] [-p p1,p2,..] [-m MEM_MIB] [-n READS] [-t THETA]\n"
		"  workloads: zipf, scan, periodic (default: all)\n"
		"  setups: kernel-lru, kernel-mglru, or a policy in BPF_OBJ_DIR,\n"
		"          with knobs as policy/knob=value (ml_rank/oversample=10)\n"
		"  learned policies (ml_*) need $CACHECTL and $LCTRAIN\n"
		"  default: -p %s\n", default_setups);
}

/* Is @name in the comma-separated @list (NULL: everything)? */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	if (!list)
		return 1;
	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ',') && (!p[n] || p[n] == ','))
			return 1;
		p += n;
	}
	return 0;
}

/*
 * Traces @w once (tracer as FIFO), trains a model on the log and loads it
 * as "learned", printing what the trainer said.  0 or -1.
 */
static int learn(const struct workload *w)
{
	const char *cachectl = getenv("CACHECTL"), *lctrain = getenv("LCTRAIN");
	char log[PATH_MAX], model[PATH_MAX], summary[256] = "", out[4096];
	char *cg, max[16], *line;
	int ret = -1;

	if (!cachectl || !lctrain) {
		fprintf(stderr, "policies: learned policies need CACHECTL and LCTRAIN\n");
		return -1;
	}
	scratch_path(log, sizeof(log), "trace.lclog");
	scratch_path(model, sizeof(model), "model.json");
	cg = memcg_create("cache_ext_trace");
	if (!cg)
		return -1;
	snprintf(max, sizeof(max), "%dM", mem_mib);
	if (set_lru_gen(0) || cg_write(cg, "memory.max", max) || drop_files(w) ||
	    run_traced(cachectl, cg, log, "oversample=1", 0, w->run, NULL,
		       summary, sizeof(summary)))
		goto out;
	if (train_and_load("policies", cachectl, lctrain, log, model, out,
			   sizeof(out)))
		goto out;
	summary[strcspn(summary, "\n")] = '\0';
	printf("\n%s: model learned from a trace of it (%s)\n", w->name, summary);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
		if (strstr(line, "trained in") || strstr(line, "hold-out AUC") ||
		    strstr(line, "rows "))
			printf("  lctrain: %s\n", line);
	ret = 0;
out:
	unlink(log);
	unlink(model);
	cg_destroy(cg);
	free(cg);
	return ret;
}

int main(int argc, char **argv)
{
	static char setup_buf[512];
	char *setups[MAX_SETUPS], *tok, *save;
	const char *only = NULL;
	struct result res[MAX_SETUPS];
	int c, n = 0, i, j, failed = 0, learned = 0;
	size_t wi;

	snprintf(setup_buf, sizeof(setup_buf), "%s", default_setups);
	while ((c = getopt(argc, argv, "w:p:m:n:t:h")) != -1) {
		switch (c) {
		case 'w': only = optarg; break;
		case 'p': snprintf(setup_buf, sizeof(setup_buf), "%s", optarg); break;
		case 'm': mem_mib = atoi(optarg); break;
		case 'n': nr_reads = strtoul(optarg, NULL, 10); break;
		case 't': theta = strtod(optarg, NULL); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	for (tok = strtok_r(setup_buf, ",", &save); tok && n < MAX_SETUPS;
	     tok = strtok_r(NULL, ",", &save))
		setups[n++] = tok;
	for (i = 0; i < n; i++)
		learned |= !strncmp(setups[i], "ml_", 3);
	if (!scratch_dir() || mem_mib < 4 || !nr_reads) {
		usage(stderr);
		fprintf(stderr, "policies: run in the VM (CACHE_EXT_SCRATCH)\n");
		return 2;
	}
	have_module = !ctl_module_load();

	for (wi = 0; wi < sizeof(workloads) / sizeof(workloads[0]); wi++) {
		const struct workload *w = &workloads[wi];

		if (!listed(only, w->name))
			continue;
		for (j = 0; j < NR_FILES; j++) {
			char name[32];

			snprintf(name, sizeof(name), "%s%d", w->name, j);
			scratch_path(files[j], sizeof(files[j]), name);
			if (w->pages[j] && make_file(files[j], w->pages[j])) {
				perror("policies: make_file");
				return 1;
			}
		}
		fprintf(stderr, "running %s under %d setups ...\n", w->name, n);
		if (learned && learn(w))
			failed++;
		for (i = 0; i < n; i++) {
			if (run_one(w, setups[i], &res[i]))
				failed++;
		}
		print_table(w, setups, n, res);
		for (j = 0; j < NR_FILES; j++)
			unlink(files[j]);
	}
	set_lru_gen(1);
	return failed ? 1 : 0;
}
