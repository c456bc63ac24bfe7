// SPDX-License-Identifier: GPL-2.0
/*
 * cachesim: run cache_ext policies, built from their own BPF source, on
 * a trace; print the miss ratio of each policy at each cache size (a
 * miss-ratio curve) and how fast each ran.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/types.h>

#include "lc_trace.h"
#include "oracles.h"
#include "sim.h"

#ifndef CACHESIM_POLICY_DIR
#define CACHESIM_POLICY_DIR "."
#endif

#define MAX_SETUPS	64
#define MAX_SIZES	32
#define MAX_KNOBS	8

struct setup {
	char label[64];
	char path[4096];
	struct sim_knob knobs[MAX_KNOBS];
	unsigned int nr_knobs;
};

static struct setup setups[MAX_SETUPS];
static unsigned int nr_setups;
static struct sim_model_file models[8];
static unsigned int nr_models;
static struct sim_tid_map tid_maps[4];
static unsigned int nr_tid_maps;
static const char *every_prog;
static unsigned long every;
static const char *record;

static const char usage_text[] =
"usage: cachesim [options] TRACE\n"
"Runs cache_ext policies, built from their BPF source for the host, on a\n"
"trace and prints the miss ratio of each at each cache size.\n"
"\n"
"  -p, --policy LIST   policies, comma separated (repeatable): a name from\n"
"                      the policy directory, a path to a policy .so, 'lru'\n"
"                      (the kernel's LRU alone), 'belady' (MIN), 'oracle'\n"
"                      (keeps the pages the whole trace uses most),\n"
"                      'lfu_ideal' (LFU counting the whole past, evicted\n"
"                      pages included: the bound of online LFU) or\n"
"                      'all' (default: lru and every policy); knobs\n"
"                      follow the name: ml_rank:oversample=10:model=learned\n"
"  -s, --size LIST     cache sizes, comma separated: N pages, N% of the\n"
"                      trace's distinct pages, or N followed by K, M or G\n"
"                      (bytes); default 1%,5%,10%,25%\n"
"  -f, --format F      csv, text or lclog (default: told by the content)\n"
"  -b, --batch N       folios reclaim asks for per round, 1..32 (default 32)\n"
"  -t, --ns-per-request N  simulated time per reference of a trace without\n"
"                      timestamps (default 100000: 10,000 references/s)\n"
"  -m, --model NAME=FILE  a LearnedCache model (JSON) for the model kfuncs\n"
"  -r, --record LOG    write what the policy submits to its ring buffer to\n"
"                      LOG, as a cachectl trace log (the tracer's events,\n"
"                      for lctrain); one policy and one size only\n"
"  -T, --tids MAP=TID[,TID...]  put the threads TID... of the trace in the\n"
"                      policies' thread map MAP (get_scan_tids: the scan\n"
"                      threads of get_scan), as an application would\n"
"  -e, --every PROG=N  run program PROG of the policies that have one (a\n"
"                      SEC(\"syscall\") program, e.g. lhd_reconfigure) after\n"
"                      every N references, as a loader would\n"
"  -j, --jobs N        simulations in parallel (default: online CPUs)\n"
"  -a, --readahead N   a read that misses brings in N pages, itself and the\n"
"                      N-1 after it that are not cached (a fixed readahead\n"
"                      window, for csv and text traces, whose records are\n"
"                      the reads only; lclog traces hold the kernel's own\n"
"                      readahead insertions); 0 or 1: none (default).  The\n"
"                      policies see those pages as prefetched\n"
"                      (bpf_cache_ext_folio_prefetched(); tsv column\n"
"                      prefetch_evicted); belady, oracle and lfu_ideal\n"
"                      ignore it\n"
"  -o, --output F      table (default) or tsv\n"
"  --allow-drops       simulate an lclog that lost over 0.1% of its events\n"
"                      in recording (refused otherwise: not the workload's)\n"
"  --mapped-at WHEN    when an lclog's uses through mmap happened: earliest\n"
"                      (default: just after the page's previous reference)\n"
"                      or seen (when the traced kernel found the accessed\n"
"                      bit, a residency later under its LRU; every policy\n"
"                      then replays the traced LRU's timing)\n"
"  -h, --help          this text\n"
"\n"
"Traces: csv (time_us,R|W,offset_bytes,size_bytes), text (KEY [r|w|m\n"
"[THREAD]] per line; m is a use through mmap: a fault if the page is\n"
"missing, else only the page-table bit, which reclaim finds when it next\n"
"looks at the page, keeps it for and reports to the policy as\n"
"folio_mapped_accessed(); tsv columns mapped_accesses, mapped_kept) or\n"
"lclog (cachectl trace).\n"
"Policy directory: $CACHESIM_POLICIES, else " CACHESIM_POLICY_DIR ".\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

static const char *policy_dir(void)
{
	const char *d = getenv("CACHESIM_POLICIES");

	return d && *d ? d : CACHESIM_POLICY_DIR;
}

static int add_setup(const char *spec)
{
	struct setup *s;
	char *copy, *name, *knob, *save;

	if (nr_setups == MAX_SETUPS) {
		fprintf(stderr, "cachesim: at most %d policies\n", MAX_SETUPS);
		return -1;
	}
	s = &setups[nr_setups];
	memset(s, 0, sizeof(*s));
	snprintf(s->label, sizeof(s->label), "%s", spec);
	copy = strdup(spec);
	name = strtok_r(copy, ":", &save);
	if (!name) {
		fprintf(stderr, "cachesim: empty policy name\n");
		return -1;
	}
	if (!strcmp(name, SIM_LRU) || sim_is_reference(name))
		snprintf(s->path, sizeof(s->path), "%s", name);
	else if (strchr(name, '/'))
		snprintf(s->path, sizeof(s->path), "%s", name);
	else
		snprintf(s->path, sizeof(s->path), "%s/%s.so", policy_dir(), name);
	if (strchr(s->path, '/') && access(s->path, R_OK)) {
		fprintf(stderr, "cachesim: no policy '%s' (%s: %s); list them with -p all\n",
			name, s->path, strerror(errno));
		return -1;
	}
	while ((knob = strtok_r(NULL, ":", &save))) {
		char *eq = strchr(knob, '=');

		if (!eq || eq == knob || s->nr_knobs == MAX_KNOBS) {
			fprintf(stderr, "cachesim: '%s': knobs are VAR=VALUE, at most %d\n",
				spec, MAX_KNOBS);
			return -1;
		}
		*eq = '\0';
		s->knobs[s->nr_knobs].var = knob;
		s->knobs[s->nr_knobs++].value = eq + 1;
	}
	nr_setups++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 'all': lru, then every .so of the policy directory by name. */
static int add_all(void)
{
	char *names[MAX_SETUPS];
	unsigned int n = 0, i;
	struct dirent *de;
	DIR *d = opendir(policy_dir());
	int ret = 0;

	if (!d) {
		fprintf(stderr, "cachesim: policy directory %s: %s (build it: make sim)\n",
			policy_dir(), strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) && n < MAX_SETUPS) {
		size_t len = strlen(de->d_name);

		if (len > 3 && !strcmp(de->d_name + len - 3, ".so")) {
			names[n] = strndup(de->d_name, len - 3);
			n++;
		}
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	ret = add_setup(SIM_LRU);
	for (i = 0; i < n; i++) {
		if (!ret)
			ret = add_setup(names[i]);
		free(names[i]);
	}
	return ret;
}

static int add_policies(char *list)
{
	char *p, *save;

	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save))
		if (!strcmp(p, "all") ? add_all() : add_setup(p))
			return -1;
	return 0;
}

/* "N", "N%", "NK|M|G": pages. */
static int parse_size(const char *arg, unsigned long long unique,
		      unsigned long long *pages)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || v <= 0)
		return -1;
	if (!strcmp(end, "%"))
		v = v * unique / 100;
	else if (!strcasecmp(end, "K"))
		v = v * 1024 / 4096;
	else if (!strcasecmp(end, "M"))
		v = v * 1024 * 1024 / 4096;
	else if (!strcasecmp(end, "G"))
		v = v * 1024 * 1024 * 1024 / 4096;
	else if (*end)
		return -1;
	*pages = (unsigned long long)v;
	return *pages ? 0 : -1;
}

static int parse_uint(const char *arg, const char *what, unsigned long long min,
		      unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 0);
	if (errno || *end || !*arg || *out < min || *out > max) {
		fprintf(stderr, "cachesim: %s must be %llu..%llu, not '%s'\n",
			what, min, max, arg);
		return -1;
	}
	return 0;
}

struct outcome {
	int ret;
	struct sim_result res;
	char err[512];
};

/*
 * Every (setup, size) run, spread over @jobs worker processes; each
 * worker runs its share one after another, each in its own child.
 */
static int run_all(const struct sim_trace *t, const unsigned long long *sizes,
		   unsigned int nr_sizes, const struct sim_config *base,
		   unsigned int jobs, struct outcome *out)
{
	unsigned int nr = nr_setups * nr_sizes, w, i;
	int fds[64][2];
	pid_t pids[64];

	if (jobs > nr)
		jobs = nr;
	if (jobs > 64)
		jobs = 64;
	for (w = 0; w < jobs; w++) {
		if (pipe(fds[w]))
			return -1;
		fflush(NULL);
		pids[w] = fork();
		if (pids[w] < 0)
			return -1;
		if (!pids[w]) {
			close(fds[w][0]);
			for (i = w; i < nr; i += jobs) {
				const struct setup *s = &setups[i / nr_sizes];
				struct sim_setup ss = {
					.policy = s->path, .knobs = s->knobs,
					.nr_knobs = s->nr_knobs, .models = models,
					.nr_models = nr_models,
					.tid_maps = tid_maps,
					.nr_tid_maps = nr_tid_maps,
					.every_prog = every_prog, .every = every,
					.record = record,
				};
				struct sim_config cfg = *base;
				struct outcome o;

				memset(&o, 0, sizeof(o));
				cfg.cache_pages = sizes[i % nr_sizes];
				o.ret = sim_run_isolated(t, &ss, &cfg, &o.res, o.err,
							 sizeof(o.err));
				if (write(fds[w][1], &i, sizeof(i)) != sizeof(i) ||
				    write(fds[w][1], &o, sizeof(o)) != sizeof(o))
					_exit(1);
			}
			_exit(0);
		}
		close(fds[w][1]);
	}
	for (w = 0; w < jobs; w++) {
		FILE *f = fdopen(fds[w][0], "r");
		int status;

		while (f && fread(&i, sizeof(i), 1, f) == 1 && i < nr)
			if (fread(&out[i], sizeof(out[i]), 1, f) != 1)
				break;
		if (f)
			fclose(f);
		waitpid(pids[w], &status, 0);
	}
	return 0;
}

static void print_table(const struct sim_trace *t, const char *path,
			const unsigned long long *sizes, unsigned int nr_sizes,
			const struct outcome *out)
{
	unsigned int s, z;
	int failed = 0;

	printf("cachesim: %s (%s): %zu references, %llu accesses, %llu distinct pages\n",
	       path, t->format, t->nr, (unsigned long long)t->nr_accesses,
	       (unsigned long long)t->nr_unique);
	printf("miss ratio (pages inserted / accesses) at cache sizes in pages\n\n");
	printf("%-28s", "policy");
	for (z = 0; z < nr_sizes; z++)
		printf(" %9llu", sizes[z]);
	printf(" %10s\n", "Macc/s");
	for (s = 0; s < nr_setups; s++) {
		double acc = 0, secs = 0;

		printf("%-28s", setups[s].label);
		for (z = 0; z < nr_sizes; z++) {
			const struct outcome *o = &out[s * nr_sizes + z];

			if (o->ret) {
				printf(" %9s", "error");
				failed = 1;
				continue;
			}
			printf(" %8.4f%s", o->res.accesses ?
			       (double)o->res.misses / o->res.accesses : 0,
			       o->res.ejected ? "!" : " ");
			acc += o->res.accesses;
			secs += o->res.seconds;
		}
		printf(" %10.2f\n", secs > 0 ? acc / secs / 1e6 : 0);
	}
	for (s = 0; s < nr_setups * nr_sizes; s++) {
		const struct outcome *o = &out[s];

		if (o->ret)
			printf("\n%s at %llu pages: %s", setups[s / nr_sizes].label,
			       sizes[s % nr_sizes], o->err);
		else if (o->res.ejected)
			printf("\n! %s at %llu pages: the kernel would eject it: %s",
			       setups[s / nr_sizes].label, sizes[s % nr_sizes],
			       o->res.eject_msg);
	}
	if (failed)
		printf("\n");
	printf("\n");
}

static void print_tsv(const unsigned long long *sizes, unsigned int nr_sizes,
		      const struct outcome *out)
{
	unsigned int i;

	printf("policy\tpages\taccesses\tmisses\tmiss_ratio\tseconds\tevict_calls\tfallback\terrors\tnot_admitted\tejected\tmapped_accesses\tmapped_kept\tprefetch_evicted\n");
	for (i = 0; i < nr_setups * nr_sizes; i++) {
		const struct outcome *o = &out[i];
		const struct sim_result *r = &o->res;

		if (o->ret) {
			fprintf(stderr, "cachesim: %s at %llu pages: %s\n",
				setups[i / nr_sizes].label, sizes[i % nr_sizes], o->err);
			continue;
		}
		printf("%s\t%llu\t%llu\t%llu\t%.6f\t%.4f\t%llu\t%llu\t%llu\t%llu\t%d\t%llu\t%llu\t%llu\n",
		       setups[i / nr_sizes].label, sizes[i % nr_sizes],
		       (unsigned long long)r->accesses,
		       (unsigned long long)r->misses,
		       r->accesses ? (double)r->misses / r->accesses : 0,
		       r->seconds, (unsigned long long)r->evict_calls,
		       (unsigned long long)r->fallback,
		       (unsigned long long)r->errors,
		       (unsigned long long)r->not_admitted, r->ejected,
		       (unsigned long long)r->mapped_accesses,
		       (unsigned long long)r->mapped_kept,
		       (unsigned long long)r->prefetch_evicted);
	}
}

/* --tids MAP=TID[,TID...] */
static int parse_tid_map(char *arg)
{
	char *eq = strchr(arg, '='), *tid, *save;
	struct sim_tid_map *m = &tid_maps[nr_tid_maps];
	unsigned long long v;

	if (!eq || eq == arg || nr_tid_maps == 4) {
		fprintf(stderr, "cachesim: --tids MAP=TID[,TID...] (at most 4 maps), not '%s'\n",
			arg);
		return -1;
	}
	*eq = '\0';
	m->map = arg;
	m->nr = 0;
	for (tid = strtok_r(eq + 1, ",", &save); tid; tid = strtok_r(NULL, ",", &save)) {
		if (m->nr == SIM_MAX_TIDS) {
			fprintf(stderr, "cachesim: --tids %s: at most %d threads\n",
				arg, SIM_MAX_TIDS);
			return -1;
		}
		if (parse_uint(tid, "--tids TID", 1, UINT32_MAX, &v))
			return -1;
		m->tids[m->nr++] = v;
	}
	if (!m->nr) {
		fprintf(stderr, "cachesim: --tids %s: no thread\n", arg);
		return -1;
	}
	nr_tid_maps++;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "batch", required_argument, NULL, 'b' },
		{ "ns-per-request", required_argument, NULL, 't' },
		{ "model", required_argument, NULL, 'm' },
		{ "every", required_argument, NULL, 'e' },
		{ "tids", required_argument, NULL, 'T' },
		{ "record", required_argument, NULL, 'r' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "readahead", required_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ "allow-drops", no_argument, NULL, 'D' },
		{ "mapped-at", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sim_config cfg = { .batch = 32, .ns_per_request = 100000 };
	const char *format = NULL, *output = "table", *size_arg = "1%,5%,10%,25%";
	unsigned long long sizes[MAX_SIZES], v;
	unsigned int nr_sizes = 0, failed = 0, i;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	struct sim_trace t;
	struct outcome *out;
	char err[512], *list, *p, *save;
	int c, allow_drops = 0, mapped_seen = 0;

	while ((c = getopt_long(argc, argv, "p:s:f:b:t:m:e:T:r:j:a:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (add_policies(optarg))
				return 2;
			break;
		case 's':
			size_arg = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		case 'b':
			if (parse_uint(optarg, "--batch", 1, 32, &v))
				return 2;
			cfg.batch = v;
			break;
		case 't':
			if (parse_uint(optarg, "--ns-per-request", 1, 1000000000000ULL, &v))
				return 2;
			cfg.ns_per_request = v;
			break;
		case 'm':
			p = strchr(optarg, '=');
			if (!p || p == optarg || nr_models == 8) {
				fprintf(stderr, "cachesim: --model NAME=FILE (at most 8), not '%s'\n",
					optarg);
				return 2;
			}
			*p = '\0';
			models[nr_models].name = optarg;
			models[nr_models++].path = p + 1;
			break;
		case 'e':
			p = strchr(optarg, '=');
			if (!p || p == optarg || parse_uint(p + 1, "--every N", 1, ~0UL, &v)) {
				fprintf(stderr, "cachesim: --every PROG=N, not '%s'\n", optarg);
				return 2;
			}
			*p = '\0';
			every_prog = optarg;
			every = v;
			break;
		case 'T':
			if (parse_tid_map(optarg))
				return 2;
			break;
		case 'r':
			record = optarg;
			break;
		case 'j':
			if (parse_uint(optarg, "--jobs", 1, 64, &v))
				return 2;
			jobs = v;
			break;
		case 'a':
			if (parse_uint(optarg, "--readahead", 0, 1024, &v))
				return 2;
			cfg.readahead = v;
			break;
		case 'o':
			if (strcmp(optarg, "table") && strcmp(optarg, "tsv")) {
				fprintf(stderr, "cachesim: --output is table or tsv\n");
				return 2;
			}
			output = optarg;
			break;
		case 'M':
			if (strcmp(optarg, "earliest") && strcmp(optarg, "seen")) {
				fprintf(stderr, "cachesim: --mapped-at is earliest or seen, not '%s'\n",
					optarg);
				return 2;
			}
			mapped_seen = !strcmp(optarg, "seen");
			break;
		case 'D':
			allow_drops = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (!nr_setups && add_all())
		return 2;
	if (sim_trace_read(argv[optind], format, &t, err, sizeof(err))) {
		fprintf(stderr, "cachesim: %s\n", err);
		return 1;
	}
	if (!mapped_seen && sim_trace_mapped_earliest(&t)) {
		fprintf(stderr, "cachesim: %s: out of memory\n", argv[optind]);
		return 1;
	}
	if (!t.nr_accesses) {
		fprintf(stderr, "cachesim: %s: no accesses in the trace\n", argv[optind]);
		return 1;
	}
	if (t.dropped_ppm > LC_DROPS_MAX_PPM && !allow_drops) {
		fprintf(stderr, "cachesim: %s lost %llu events in recording (%.2f%%, over %.1f%%): its string is not the workload's; record it again (cachectl trace --ring-kib) or pass --allow-drops\n",
			argv[optind], t.dropped, t.dropped_ppm / 1e4,
			LC_DROPS_MAX_PPM / 1e4);
		return 1;
	}
	if (t.dropped)
		fprintf(stderr, "cachesim: %s lost %llu events in recording (%.3f%%)\n",
			argv[optind], t.dropped, t.dropped_ppm / 1e4);
	list = strdup(size_arg);
	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (nr_sizes == MAX_SIZES || parse_size(p, t.nr_unique, &sizes[nr_sizes])) {
			fprintf(stderr, "cachesim: '%s' is not a cache size (N pages, N%%, N[KMG]; at most %d)\n",
				p, MAX_SIZES);
			return 2;
		}
		nr_sizes++;
	}
	if (record && nr_setups * nr_sizes != 1) {
		fprintf(stderr, "cachesim: --record takes one policy and one size\n");
		return 2;
	}
	out = calloc(nr_setups * nr_sizes, sizeof(*out));
	for (i = 0; out && i < nr_setups * nr_sizes; i++) {
		out[i].ret = -ECHILD;
		snprintf(out[i].err, sizeof(out[i].err), "the worker process died");
	}
	if (!out || run_all(&t, sizes, nr_sizes, &cfg, jobs > 0 ? jobs : 1, out)) {
		fprintf(stderr, "cachesim: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < nr_setups * nr_sizes; i++)
		failed += out[i].ret != 0;
	if (!strcmp(output, "tsv"))
		print_tsv(sizes, nr_sizes, out);
	else
		print_table(&t, argv[optind], sizes, nr_sizes, out);
	sim_trace_free(&t);
	return failed ? 1 : 0;
}
