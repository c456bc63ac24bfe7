// SPDX-License-Identifier: GPL-2.0
/*
 * report: tables and figures from the CSV files of make eval.
 *
 *   report -o OUTDIR [-t TRACE_README] [-T TITLE] RESULTS.csv...
 *
 * Each RESULTS.csv has rows experiment,workload,setup,rep,metric,value.
 * For every experiment it prints, and writes to OUTDIR/summary.md, one
 * table per metric it reports: a row per setup, a column per workload,
 * each cell the median over the repetitions with its min-max (one run: its
 * value), and the
 * ratio to kernel-lru and to the better of the kernel's two policies
 * measured in the same boot ("kernel" for isolation, whose setups are
 * pairs); '*' marks the best setup of a column.  For the trace experiment
 * it adds the reference miss ratios of ../shared/traces/README.md (the
 * page-level libCacheSim table) under the measured ones.  Figures are
 * written with gnuplot as OUTDIR/NAME.png: each experiment's main metric
 * normalised to the better kernel policy, clustered by workload, and
 * ml_rank's decision time against its oversampling factor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_NAMES	64

struct row {
	char exp[24], wl[32], setup[48], metric[40];
	int rep;
	double v;
};

static struct row *rows;
static size_t nr_rows, cap_rows;

/* What a metric means: its unit, and whether higher is better. */
struct metric_info {
	const char *exp, *metric, *title;
	int higher_better;
	int figure;	/* the experiment's figure shows this metric */
};

static const struct metric_info metrics[] = {
	{ "ycsb", "ops_per_s", "throughput (ops/s)", 1, 1 },
	{ "ycsb", "read_p99_us", "P99 read latency (us)", 0, 0 },
	{ "ycsb", "disk_reads_per_op", "pages read from disk per operation", 0, 0 },
	{ "ycsb", "cpu_ms_per_op", "CPU time of the workload per operation (ms, user + system, warm-up included)", 0, 0 },
	{ "leveldb", "disk_reads_per_op", "pages read from disk per operation (@nomap: without the mapped-access reports)", 0, 1 },
	{ "leveldb", "ops_per_s", "throughput (ops/s)", 1, 0 },
	{ "leveldb", "read_p99_us", "P99 read latency (us)", 0, 0 },
	{ "leveldb", "cpu_ms_per_op", "CPU time of the workload per operation (ms, user + system, warm-up included)", 0, 0 },
#define BINDING_METRICS(exp)						\
	{ exp, "policy_share", "of the file pages reclaim evicted, % the policy chose (the rest: the LRU's fallback, while the policy was busy or when its batch freed nothing)", 1, 0 }, \
	{ exp, "decide_p50_us", "median time of an evict_folios() call (us, the histogram bucket's bound)", 0, 0 }, \
	{ exp, "proposed_per_requested", "candidates the policy proposed per folio reclaim asked for", 0, 0 }
	BINDING_METRICS("ycsb"),
	BINDING_METRICS("leveldb"),
	{ "trace", "miss_ratio", "miss ratio (disk pages read / pages referenced)", 0, 1 },
	{ "search", "secs_per_search", "seconds per search", 0, 1 },
	{ "search", "disk_reads_per_search", "pages read from disk per search", 0, 0 },
	{ "search-mmap", "disk_reads_per_op", "pages read from disk per search (rg --mmap)", 0, 1 },
	{ "search-mmap", "secs_per_search", "seconds per search (rg --mmap)", 0, 0 },
	{ "get-scan", "get_ops_per_s", "GET throughput (ops/s)", 1, 1 },
	{ "get-scan", "read_p99_us", "GET P99 latency (us)", 0, 0 },
	{ "get-scan", "scan_ops_per_s", "SCAN throughput (scans/s)", 1, 0 },
	{ "get-scan", "disk_reads_per_op", "pages read from disk per GET", 0, 0 },
	{ "admit", "read_p99_us", "P99 read latency (us)", 0, 1 },
	{ "admit", "ops_per_s", "throughput (ops/s)", 1, 0 },
	{ "admit", "disk_reads_per_op", "pages read from disk per operation", 0, 0 },
	{ "isolation", "ops_per_s", "YCSB C throughput (ops/s)", 1, 1 },
	{ "isolation", "searches_per_s", "searches per second", 1, 1 },
	{ "overhead", "cpu_us_per_io", "CPU time per I/O (us)", 0, 1 },
	{ "overhead", "disk_reads", "pages read from disk", 0, 0 },
	{ "overhead", "bytes_per_folio", "registry bytes per cached folio", 0, 0 },
	{ "overhead", "pct_of_cgroup", "registry, % of the cgroup's memory", 0, 0 },
	{ "learned", "decide_p50_ns", "median decision time per evict_folios() (ns)", 0, 1 },
	{ "learned", "decide_p99_ns", "P99 decision time per evict_folios() (ns)", 0, 1 },
	{ "learned", "disk_reads_per_op", "pages read from disk per operation", 0, 0 },
	{ "learned", "ops_per_s", "throughput (ops/s)", 1, 0 },
};

#define NR_METRICS (sizeof(metrics) / sizeof(metrics[0]))

static int load(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f) {
		fprintf(stderr, "report: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct row r;

		if (sscanf(line, "%23[^,],%31[^,],%47[^,],%d,%39[^,],%lf",
			   r.exp, r.wl, r.setup, &r.rep, r.metric, &r.v) != 6)
			continue;	/* the header */
		if (nr_rows == cap_rows) {
			cap_rows = cap_rows ? 2 * cap_rows : 1024;
			rows = realloc(rows, cap_rows * sizeof(*rows));
			if (!rows)
				return -1;
		}
		rows[nr_rows++] = r;
		n++;
	}
	fclose(f);
	return n;
}

/* What compares disk reads in @exp: per operation where runs have it. */
static const char *reads_metric(const char *exp)
{
	size_t i;

	for (i = 0; i < nr_rows; i++)
		if (!strcmp(rows[i].exp, exp) &&
		    !strcmp(rows[i].metric, "disk_reads_per_op"))
			return "disk_reads_per_op";
	return "disk_reads";
}

/* Names of one column of @exp's rows, in order of first appearance. */
static int names(const char *exp, int col, const char **out)
{
	size_t i;
	int n = 0, j;

	for (i = 0; i < nr_rows; i++) {
		const char *s = col ? rows[i].setup : rows[i].wl;

		if (strcmp(rows[i].exp, exp))
			continue;
		for (j = 0; j < n && strcmp(out[j], s); j++)
			;
		if (j == n && n < MAX_NAMES)
			out[n++] = s;
	}
	return n;
}

/* A setup of cachesim's on a recorded reference string ("sim:lfu")? */
static int is_simulated(const char *setup)
{
	return !strncmp(setup, "sim:", 4);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stat3 {
	int n;
	double med, min, max;
};

static struct stat3 stats(const char *exp, const char *wl, const char *setup,
			  const char *metric)
{
	struct stat3 s = {};
	double v[256];
	size_t i;

	for (i = 0; i < nr_rows && s.n < 256; i++)
		if (!strcmp(rows[i].exp, exp) && !strcmp(rows[i].wl, wl) &&
		    !strcmp(rows[i].setup, setup) &&
		    !strcmp(rows[i].metric, metric))
			v[s.n++] = rows[i].v;
	if (!s.n)
		return s;
	qsort(v, s.n, sizeof(v[0]), cmp_double);
	s.min = v[0];
	s.max = v[s.n - 1];
	s.med = s.n % 2 ? v[s.n / 2] : (v[s.n / 2 - 1] + v[s.n / 2]) / 2;
	return s;
}

/* The value of @metric in repetition @rep of a run, or @def. */
static double row_value(const char *exp, const char *wl, const char *setup,
			int rep, const char *metric, double def)
{
	size_t i;

	for (i = 0; i < nr_rows; i++)
		if (rows[i].rep == rep && !strcmp(rows[i].exp, exp) &&
		    !strcmp(rows[i].wl, wl) && !strcmp(rows[i].setup, setup) &&
		    !strcmp(rows[i].metric, metric))
			return rows[i].v;
	return def;
}

/* Appends @r to the rows. */
static int add_row(const struct row *r)
{
	if (nr_rows == cap_rows) {
		size_t cap = cap_rows ? 2 * cap_rows : 1024;
		struct row *more = realloc(rows, cap * sizeof(*rows));

		if (!more)
			return -1;
		rows = more;
		cap_rows = cap;
	}
	rows[nr_rows++] = *r;
	return 0;
}

/*
 * What a bound run's policy did, from its binding's counters (b_*, from
 * cachectl stats; bench/eval/eval.c): the share of the evicted file pages
 * it chose (cachectl's policy_share, in percent), its median decision
 * time, and its proposals per folio asked for.  Kernel setups have no
 * binding and no such rows.
 */
static int derive_binding(void)
{
	size_t i, n = nr_rows;

	for (i = 0; i < n; i++) {
		struct row r = rows[i];
		double other;

		if (!strcmp(r.metric, "b_policy_share")) {
			r.v *= 100;
			snprintf(r.metric, sizeof(r.metric), "policy_share");
		} else if (!strcmp(r.metric, "b_proposed")) {
			other = row_value(r.exp, r.wl, r.setup, r.rep,
					  "b_requested", 0);
			if (other <= 0)
				continue;
			r.v /= other;
			snprintf(r.metric, sizeof(r.metric), "proposed_per_requested");
		} else if (!strcmp(r.metric, "b_decide_p50")) {
			r.v /= 1000;
			snprintf(r.metric, sizeof(r.metric), "decide_p50_us");
		} else {
			continue;
		}
		if (add_row(&r))
			return -1;
	}
	return 0;
}

/*
 * disk_reads_per_op rows from each run's disk_reads and ops (the window's:
 * bench/eval/steady.h).  A window that ends at a number of turnovers ends
 * at about the same disk reads whatever the policy, so only the reads per
 * operation compare policies; runs without an ops row (fio, the search,
 * the trace) keep their own metrics.  cpu_ms_per_op rows from cpu_s, which
 * covers the warm-up too, over all the run's operations.
 */
static int derive_per_op(void)
{
	size_t i, n = nr_rows;

	for (i = 0; i < n; i++) {
		struct row r = rows[i];
		int cpu = !strcmp(r.metric, "cpu_s");
		double ops;

		if (!cpu && strcmp(r.metric, "disk_reads"))
			continue;
		ops = row_value(r.exp, r.wl, r.setup, r.rep, "ops", 0);
		if (cpu && ops > 0)
			ops += row_value(r.exp, r.wl, r.setup, r.rep, "warm_ops", 0);
		if (ops <= 0)
			continue;
		r.v = cpu ? 1000 * r.v / ops : r.v / ops;
		snprintf(r.metric, sizeof(r.metric), cpu ? "cpu_ms_per_op" :
			 "disk_reads_per_op");
		if (add_row(&r))
			return -1;
	}
	return 0;
}

/*
 * Runs of @exp/@wl/@setup that say whether they were at steady state
 * (bench/eval/steady.h), in *@runs, and how many were, returned.
 */
static int steady_runs(const char *exp, const char *wl, const char *setup,
		       int *runs)
{
	size_t i;
	int k = 0;

	*runs = 0;
	for (i = 0; i < nr_rows; i++)
		if (!strcmp(rows[i].metric, "steady") &&
		    !strcmp(rows[i].exp, exp) && !strcmp(rows[i].wl, wl) &&
		    !strcmp(rows[i].setup, setup)) {
			(*runs)++;
			k += rows[i].v > 0;
		}
	return k;
}

static int better(const struct metric_info *m, double a, double b)
{
	return m->higher_better ? a > b : a < b;
}

/*
 * The baselines of column @wl: kernel-lru and the better kernel policy
 * (for isolation, the pair "kernel" is both).
 */
static void baselines(const struct metric_info *m, const char *wl,
		      double *lru, double *best)
{
	struct stat3 a = stats(m->exp, wl, "kernel-lru", m->metric);
	struct stat3 b = stats(m->exp, wl, "kernel-mglru", m->metric);
	struct stat3 k = stats(m->exp, wl, "kernel", m->metric);

	*lru = a.n ? a.med : k.n ? k.med : 0;
	*best = *lru;
	if (b.n && (!a.n || better(m, b.med, a.med)))
		*best = b.med;
}

static void fmt(double v, char *buf, size_t len)
{
	if (fabs(v) >= 1000 || v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

/* The reference miss ratios of the trace README: algorithm -> 4 sizes. */
struct ref {
	char algo[32];
	double mr[4];
};

static struct ref refs[16];
static int nr_refs;

static void load_refs(const char *readme)
{
	char line[512];
	FILE *f = readme ? fopen(readme, "r") : NULL;

	while (f && fgets(line, sizeof(line), f) && nr_refs < 16) {
		struct ref r;

		if (sscanf(line, "| %31[^|] | %lf | %lf | %lf | %lf |", r.algo,
			   &r.mr[0], &r.mr[1], &r.mr[2], &r.mr[3]) != 5)
			continue;
		r.algo[strcspn(r.algo, " ")] = '\0';
		refs[nr_refs++] = r;
	}
	if (f)
		fclose(f);
}

/*
 * The column of the reference table for a cache of @pages pages: the
 * README's sizes (1, 5, 10, 25% of the whole trace's 269,210 pages), give
 * or take the rounding; -1 for any other size (a toy trace).
 */
static int ref_column(const char *pages)
{
	static const long sizes[] = { 2692, 13461, 26921, 67303 };
	long n = atol(pages);
	int k;

	for (k = 0; k < 4; k++)
		if (labs(n - sizes[k]) <= 1)
			return k;
	return -1;
}

/* Which reference row a setup of the trace experiment implements. */
static const char *ref_of(const char *setup)
{
	static const char *const map[][2] = {
		{ "kernel-lru", "LRU" }, { "fifo", "FIFO" }, { "lfu", "LFU" },
		{ "s3fifo", "S3-FIFO" }, { "lhd", "LHD" },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(setup, map[i][0]))
			return map[i][1];
	return NULL;
}

static void table(FILE *md, const struct metric_info *m)
{
	const char *wls[MAX_NAMES], *setups[MAX_NAMES];
	int nw = names(m->exp, 0, wls), ns = names(m->exp, 1, setups);
	int w, s, any = 0, reps = 0;
	char cell[160], a[32], b[32], c[32], range[72], how[48] = "one run";

	for (w = 0; w < nw; w++)
		for (s = 0; s < ns; s++) {
			struct stat3 st = stats(m->exp, wls[w], setups[s], m->metric);

			any |= st.n;
			if (st.n > reps)
				reps = st.n;
		}
	if (!any)
		return;
	if (reps > 1)
		snprintf(how, sizeof(how), "median of %d, min-max", reps);
	fprintf(md, "\n**%s: %s** (%s is better; %s; x = ratio to kernel-lru / to the better kernel policy)\n\n",
		m->exp, m->title, m->higher_better ? "higher" : "lower", how);
	printf("\n%s: %s (%s is better)\n", m->exp, m->title,
	       m->higher_better ? "higher" : "lower");
	fprintf(md, "| setup |");
	printf("  %-24s", "setup");
	for (w = 0; w < nw; w++) {
		fprintf(md, " %s |", wls[w]);
		printf(" %28s", wls[w]);
	}
	fprintf(md, "\n|---|");
	for (w = 0; w < nw; w++)
		fprintf(md, "---|");
	fprintf(md, "\n");
	printf("\n");
	for (s = 0; s < ns; s++) {
		int shown = 0;

		for (w = 0; w < nw; w++)
			shown |= stats(m->exp, wls[w], setups[s], m->metric).n;
		if (!shown)
			continue;
		fprintf(md, "| %s |", setups[s]);
		printf("  %-24s", setups[s]);
		for (w = 0; w < nw; w++) {
			struct stat3 st = stats(m->exp, wls[w], setups[s], m->metric);
			double lru, best;
			int top = 1, k, runs, steady;

			if (!st.n) {
				fprintf(md, " - |");
				printf(" %28s", "-");
				continue;
			}
			for (k = 0; k < ns; k++) {
				struct stat3 o = stats(m->exp, wls[w], setups[k],
						       m->metric);

				if (o.n && better(m, o.med, st.med))
					top = 0;
			}
			baselines(m, wls[w], &lru, &best);
			fmt(st.med, a, sizeof(a));
			fmt(st.min, b, sizeof(b));
			fmt(st.max, c, sizeof(c));
			/* A range only where there is one: "value (min-max)". */
			range[0] = '\0';
			if (st.n > 1)
				snprintf(range, sizeof(range), " (%s-%s)", b, c);
			if (lru > 0 && best > 0)
				snprintf(cell, sizeof(cell), "%s%s%s %.2fx/%.2fx",
					 top ? "**" : "", a, range, st.med / lru,
					 st.med / best);
			else
				snprintf(cell, sizeof(cell), "%s%s%s",
					 top ? "**" : "", a, range);
			steady = steady_runs(m->exp, wls[w], setups[s], &runs);
			fprintf(md, " %s%s%s |", cell, top ? "**" : "",
				steady < runs ? " †" : "");
			if (lru > 0 && best > 0)
				snprintf(cell, sizeof(cell), "%s%s %.2fx/%.2fx",
					 top ? "*" : "", a, st.med / lru,
					 st.med / best);
			else
				snprintf(cell, sizeof(cell), "%s%s",
					 top ? "*" : "", a);
			printf(" %28s", cell);
		}
		fprintf(md, "\n");
		printf("\n");
	}
	if (strcmp(m->exp, "trace") || !nr_refs)
		return;
	/* A trace of other sizes (make check's prefix) has no reference. */
	for (w = 0; w < nw && ref_column(wls[w]) < 0; w++)
		;
	if (w == nw)
		return;
	/* The reference rows, for the setups that implement one. */
	for (s = 0; s < ns; s++) {
		const char *algo = ref_of(setups[s]);
		int r;

		for (r = 0; algo && r < nr_refs; r++) {
			if (strcmp(refs[r].algo, algo))
				continue;
			fprintf(md, "| *%s, simulated* |", algo);
			printf("  %-24s", algo);
			for (w = 0; w < nw; w++) {
				int k = ref_column(wls[w]);

				if (k < 0) {
					fprintf(md, " - |");
					printf(" %28s", "-");
					continue;
				}
				fprintf(md, " %.4f |", refs[r].mr[k]);
				printf(" %28.4f", refs[r].mr[k]);
			}
			fprintf(md, "\n");
			printf("   (libCacheSim, page level)\n");
		}
	}
	for (s = 0; s < nr_refs; s++) {
		if (strncmp(refs[s].algo, "Belady", 6))
			continue;
		fprintf(md, "| *Belady (optimal), simulated* |");
		for (w = 0; w < nw; w++) {
			int k = ref_column(wls[w]);

			if (k < 0)
				fprintf(md, " - |");
			else
				fprintf(md, " %.4f |", refs[s].mr[k]);
		}
		fprintf(md, "\n");
	}
	fprintf(md, "\nSimulated rows: libCacheSim's page-level miss ratios for this trace, from ../shared/traces/README.md (cache sizes 1/5/10/25%% of its 269,210 distinct pages).\n");
}

static int gnuplot(const char *script)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "gnuplot '%s'", script);
	if (system(cmd)) {
		fprintf(stderr, "report: gnuplot failed on %s\n", script);
		return -1;
	}
	return 0;
}

/*
 * The figure of @m: its median per setup and workload, normalised to the
 * better kernel policy of the workload, as clustered bars.
 */
static int figure(const char *dir, const struct metric_info *m)
{
	const char *wls[MAX_NAMES], *setups[MAX_NAMES];
	int nw = names(m->exp, 0, wls), ns = names(m->exp, 1, setups);
	char dat[4096], gp[4096], png[4096];
	FILE *f;
	int w, s;

	snprintf(dat, sizeof(dat), "%s/%s-%s.dat", dir, m->exp, m->metric);
	snprintf(gp, sizeof(gp), "%s/%s-%s.gp", dir, m->exp, m->metric);
	snprintf(png, sizeof(png), "%s/%s-%s.png", dir, m->exp, m->metric);
	f = fopen(dat, "w");
	if (!f)
		return -1;
	/*
	 * The simulated setups have rows of their own metric only, and a
	 * setup without this metric anywhere would be a column gnuplot
	 * refuses ("No valid points").
	 */
	for (s = w = 0; s < ns; s++) {
		int k, any = 0;

		for (k = 0; k < nw; k++)
			any |= stats(m->exp, wls[k], setups[s], m->metric).n;
		if (any && !is_simulated(setups[s]))
			setups[w++] = setups[s];
	}
	ns = w;
	fprintf(f, "workload");
	for (s = 0; s < ns; s++)
		fprintf(f, " \"%s\"", setups[s]);
	fprintf(f, "\n");
	for (w = 0; w < nw; w++) {
		double lru, best;

		baselines(m, wls[w], &lru, &best);
		fprintf(f, "\"%s\"", wls[w]);
		for (s = 0; s < ns; s++) {
			struct stat3 st = stats(m->exp, wls[w], setups[s],
						m->metric);

			if (!st.n || best <= 0)
				fprintf(f, " NaN");
			else
				fprintf(f, " %.4f", st.med / best);
		}
		fprintf(f, "\n");
	}
	fclose(f);

	f = fopen(gp, "w");
	if (!f)
		return -1;
	fprintf(f, "set terminal png size 1200,500 noenhanced\n"
		   "set output '%s'\n"
		   "set title \"%s: %s, relative to the better kernel policy (%s is better)\"\n"
		   "set style data histogram\n"
		   "set style histogram cluster gap 1\n"
		   "set style fill solid border -1\n"
		   "set boxwidth 0.9\n"
		   "set key outside right\n"
		   "set yrange [0:*]\n"
		   "set offsets 0, 0, graph 0.08, 0\n"
		   "set grid ytics\n"
		   "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2\n"
		   "plot for [i=2:%d] '%s' using i:xtic(1) title columnheader(i)\n",
		png, m->exp, m->title, m->higher_better ? "higher" : "lower",
		ns + 1, dat);
	fclose(f);
	return gnuplot(gp);
}

/*
 * The miss-ratio series of repetition 0 of @exp/@wl/@setup into @f, one
 * line per interval: operations in cache sizes (the window's file pages
 * at its start), misses per operation over the interval.  Returns the
 * points written.
 */
static int write_series(FILE *f, const char *exp, const char *wl,
			const char *setup)
{
	double cap = row_value(exp, wl, setup, 0, "capacity",
			       row_value(exp, wl, setup, 0, "file_pages_start", 0));
	double po = 0, pm = 0;
	int i, n = 0;

	for (i = 0; cap > 0; i++) {
		char mo[32], mm[32];
		double o, m;

		snprintf(mo, sizeof(mo), "pt%d_ops", i);
		snprintf(mm, sizeof(mm), "pt%d_misses", i);
		o = row_value(exp, wl, setup, 0, mo, -1);
		m = row_value(exp, wl, setup, 0, mm, -1);
		if (o < 0 || m < 0)
			break;
		if (i && o > po) {
			fprintf(f, "%.3f %.5f\n", o / cap, (m - pm) / (o - po));
			n++;
		}
		po = o;
		pm = m;
	}
	return n;
}

/* The setup of @exp/@wl, not the kernel's, with the fewest disk reads. */
static const char *fewest_reads(const char *exp, const char *wl)
{
	const char *setups[MAX_NAMES], *best = NULL;
	int ns = names(exp, 1, setups), s;
	double least = 0;

	for (s = 0; s < ns; s++) {
		struct stat3 st = stats(exp, wl, setups[s], reads_metric(exp));

		if (!st.n || !strncmp(setups[s], "kernel", 6))
			continue;
		if (!best || st.med < least) {
			best = setups[s];
			least = st.med;
		}
	}
	return best;
}

/*
 * The steady-state evidence of @exp's runs (bench/eval/steady.h): per
 * setup and workload the window's turnovers, the difference of its
 * halves' miss ratios, the runs at steady state and the cgroup's file
 * pages at the window's start and end; then a figure of the miss-ratio
 * series of kernel-lru and of the setup that read least from disk.
 * Nothing if the runs carry no such evidence.
 */
static int steady_section(FILE *md, const char *dir, const char *exp)
{
	const char *wls[MAX_NAMES], *setups[MAX_NAMES];
	int nw = names(exp, 0, wls), ns = names(exp, 1, setups);
	char dat[4096], gp[4096], png[4096], plot[8192] = "";
	int w, s, any = 0, lines = 0;
	FILE *f, *g;

	for (w = 0; w < nw; w++)
		for (s = 0; s < ns; s++)
			any |= stats(exp, wls[w], setups[s], "steady").n;
	if (!any)
		return 0;
	fprintf(md, "\n**%s: steady state** (per run, the window's misses over the file pages the cgroup can hold, its memory.max less its anonymous memory: turnovers, at least 3; the difference of its halves' misses per operation, relative to the larger, at most 3%%; runs at steady state of all; file pages at the window's start -> end.  Medians.  † in the tables above: not every run of the cell was at steady state, and its numbers describe a cache still changing)\n\n| setup |",
		exp);
	for (w = 0; w < nw; w++)
		fprintf(md, " %s |", wls[w]);
	fprintf(md, "\n|---|");
	for (w = 0; w < nw; w++)
		fprintf(md, "---|");
	fprintf(md, "\n");
	for (s = 0; s < ns; s++) {
		if (is_simulated(setups[s]))
			continue;
		fprintf(md, "| %s |", setups[s]);
		for (w = 0; w < nw; w++) {
			struct stat3 t = stats(exp, wls[w], setups[s], "turnovers");
			struct stat3 h = stats(exp, wls[w], setups[s], "half_diff");
			struct stat3 a = stats(exp, wls[w], setups[s], "file_pages_start");
			struct stat3 b = stats(exp, wls[w], setups[s], "file_pages_end");
			int runs, k = steady_runs(exp, wls[w], setups[s], &runs);

			if (!t.n) {
				fprintf(md, " - |");
				continue;
			}
			fprintf(md, " %.1f, %.1f%%, %d/%d, %.0f->%.0f |", t.med,
				100 * h.med, k, runs, a.med, b.med);
		}
		fprintf(md, "\n");
	}

	snprintf(dat, sizeof(dat), "%s/%s-steady.dat", dir, exp);
	snprintf(gp, sizeof(gp), "%s/%s-steady.gp", dir, exp);
	snprintf(png, sizeof(png), "%s/%s-steady.png", dir, exp);
	f = fopen(dat, "w");
	if (!f)
		return -1;
	for (w = 0; w < nw; w++) {
		const char *two[2] = { "kernel-lru", fewest_reads(exp, wls[w]) };

		for (s = 0; s < 2; s++) {
			size_t len = strlen(plot);

			if (!two[s] || !write_series(f, exp, wls[w], two[s]))
				continue;
			fprintf(f, "\n\n");
			snprintf(plot + len, sizeof(plot) - len,
				 "%s'%s' index %d with linespoints title \"%s %s\"",
				 lines ? ", " : "", dat, lines, wls[w], two[s]);
			lines++;
		}
	}
	fclose(f);
	if (!lines)
		return 0;
	g = fopen(gp, "w");
	if (!g)
		return -1;
	fprintf(g, "set terminal png size 1200,500 noenhanced\n"
		   "set output '%s'\n"
		   "set title \"%s: misses per operation through the window (repetition 1), kernel-lru and the setup with the fewest disk reads\"\n"
		   "set xlabel \"operations, in cache sizes (the file pages the cgroup can hold)\"\n"
		   "set ylabel \"disk reads per operation\"\n"
		   "set key outside right\n"
		   "set yrange [0:*]\n"
		   "set grid\n"
		   "plot %s\n", png, exp, plot);
	fclose(g);
	if (gnuplot(gp))
		return -1;
	fprintf(md, "\n![%s steady state](%s-steady.png)\n", exp, exp);
	return 0;
}

/* Has any run of @exp a row of @metric? */
static int has_metric(const char *exp, const char *metric)
{
	size_t i;

	for (i = 0; i < nr_rows; i++)
		if (!strcmp(rows[i].exp, exp) && !strcmp(rows[i].metric, metric))
			return 1;
	return 0;
}

/* The first value of @exp's @metric, its setup in *@setup; or -1. */
static double first_value(const char *exp, const char *metric,
			  const char **setup)
{
	size_t i;

	for (i = 0; i < nr_rows; i++)
		if (!strcmp(rows[i].exp, exp) &&
		    !strcmp(rows[i].metric, metric)) {
			if (setup)
				*setup = rows[i].setup;
			return rows[i].v;
		}
	return -1;
}

/*
 * What a miss cost in these runs: the data disk's latency per request,
 * and what it was scaled from (bench/eval/slow_disk.h).
 */
static void print_machine(FILE *md)
{
	const char *how = "";
	double us = first_value("machine", "disk_us", &how);
	double guest = row_value("machine", "cached-read", "guest", 0,
				 "us_per_op", -1);
	double host = row_value("machine", "cached-read", "host", 0,
				"us_per_op", -1);
	double slowdown = first_value("machine", "slowdown", NULL);

	if (us < 0)
		return;
	fprintf(md, "\n**Misses that cost.** The data the runs read (the database, the source tree) and their overlays' upper layers sit on memory-backed null_blk disks completing each request after **%.0f us** (%s).",
		us, !strcmp(how, "scaled") ? "100 us, an NVMe read, times the guest's slowdown" :
		!strcmp(how, "EVAL_DISK_US") ? "EVAL_DISK_US" : "the scale's own, or --disk-us");
	if (slowdown > 0)
		fprintf(md, "  The slowdown, measured in this run: a cached YCSB read (RocksDB, no block cache, one thread) took %.1f us in the guest and %.2f us on the host, **%.1fx**.",
			guest, host, slowdown);
	else
		fprintf(md, "  The guest's slowdown was not measured in this run.");
	fprintf(md, "%s\n", us > 0 ? "" :
		"  Latency 0: misses cost the guest about what hits cost, and throughput says little.");
}

/* One of the papers' ratios, and this run's row of it (or -1: text only). */
static const struct paper_ratio {
	const char *what, *paper, *metric, *fmt;
} paper_ratios[] = {
	{ "database / cgroup (YCSB)", "10 (100 GiB / 10 GiB)", "db_over_cgroup", "%.1f" },
	{ "block cache, % of the cgroup", "0.08 (LevelDB's 8 MB / 10 GiB)", "block_cache_pct", "%.2f" },
	{ "YCSB client threads", "8", "threads", "%.0f" },
	{ "vCPUs", "not stated (a server)", "vcpus", "%.0f" },
	{ "records scanned per GET (GET-SCAN)", "5 (scans of 10,000 at 0.05% of operations)", "scanned_per_get", "%.1f" },
	{ "one scan, % of the cgroup (GET-SCAN)", "0.09 (10,000 records / 10 GiB)", "scan_pct_of_cgroup", "%.2f" },
	{ "search cgroup / source tree", "1 GiB / the Linux 6.6 tree (its size not stated)", "search_cgroup_over_tree", "%.2f" },
	{ "measured window", "45 s warm-up, 240 s measured (turnovers not stated)", "turnovers", "warm-up to steady state, then at least %.1f turnovers" },
};

/* The papers' ratios next to this run's (rows "machine,ratios,here"). */
static void print_ratios(FILE *md)
{
	size_t i;

	if (row_value("machine", "ratios", "here", 0, "db_over_cgroup", -1) < 0)
		return;
	fprintf(md, "\n**The papers' ratios, and these runs'.** Sizes scale by one factor where this VM allows; where they cannot, the table says so.\n\n| ratio | papers | here |\n|---|---|---|\n");
	for (i = 0; i < sizeof(paper_ratios) / sizeof(paper_ratios[0]); i++) {
		const struct paper_ratio *r = &paper_ratios[i];
		double v = row_value("machine", "ratios", "here", 0, r->metric, -1);
		char here[128];

		if (v < 0)
			continue;
		snprintf(here, sizeof(here), r->fmt, v);
		fprintf(md, "| %s | %s | %s |\n", r->what, r->paper, here);
	}
}

/*
 * The correlation, over every workload and setup but kernel-lru of @exp,
 * of log(ops/s over kernel-lru's) with log(kernel-lru's @metric over the
 * setup's), a cost per operation: 1 when that cost alone sets the
 * throughput.  The pairs counted in *@n; r is meaningless below three.
 */
static double follows_r(const char *exp, const char *metric, int *n)
{
	const char *wls[MAX_NAMES], *setups[MAX_NAMES];
	int nw = names(exp, 0, wls), ns = names(exp, 1, setups), w, k;
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;

	*n = 0;
	for (w = 0; w < nw; w++) {
		struct stat3 lo = stats(exp, wls[w], "kernel-lru", "ops_per_s");
		struct stat3 lm = stats(exp, wls[w], "kernel-lru", metric);

		for (k = 0; lo.n && lm.n && k < ns; k++) {
			struct stat3 o = stats(exp, wls[w], setups[k], "ops_per_s");
			struct stat3 m = stats(exp, wls[w], setups[k], metric);
			double x, y;

			if (!strcmp(setups[k], "kernel-lru") || !o.n || !m.n ||
			    o.med <= 0 || m.med <= 0 || lo.med <= 0 ||
			    lm.med <= 0)
				continue;
			x = log(lm.med / m.med);
			y = log(o.med / lo.med);
			sx += x;
			sy += y;
			sxx += x * x;
			syy += y * y;
			sxy += x * y;
			(*n)++;
		}
	}
	return (*n * sxy - sx * sy) /
	       sqrt(fmax(*n * sxx - sx * sx, 1e-300) *
		    fmax(*n * syy - sy * sy, 1e-300));
}

/*
 * Does throughput follow disk reads in @exp, or the setups' CPU per
 * operation?  See follows_r().
 */
static void print_follows(FILE *md, const char *exp)
{
	int n, nc;
	double r = follows_r(exp, reads_metric(exp), &n);
	double rc = follows_r(exp, "cpu_ms_per_op", &nc);

	if (n < 3)
		return;
	fprintf(md, "\n**Does throughput follow disk reads?** Over %d setup-workload pairs, the correlation of log(throughput / kernel-lru's) with log(kernel-lru's disk reads / the setup's) is **r = %.2f** (1: the misses alone set the throughput; near 0: something else, such as the policies' CPU cost, does).",
		n, r);
	if (nc >= 3)
		fprintf(md, "  With log(kernel-lru's CPU per operation / the setup's) in its place, over %d pairs: **r = %.2f**.",
			nc, rc);
	fputc('\n', md);
}

/* A setup's CPU per operation over kernel-lru's above this is costly. */
#define CPU_RATIO_BOUND	1.1

/*
 * Each setup of @experiment over kernel-lru, as geometric means over the
 * workloads both ran: throughput, disk reads and CPU per operation, and
 * in how many workloads the setup's CPU per operation was above
 * CPU_RATIO_BOUND times kernel-lru's (unrounded).  Only where CPU per
 * operation was measured.
 */
static void print_means(FILE *md, const char *experiment)
{
	const char *const metric[3] = {
		"ops_per_s", reads_metric(experiment), "cpu_ms_per_op",
	};
	const char *wls[MAX_NAMES], *setups[MAX_NAMES];
	int nw = names(experiment, 0, wls), ns = names(experiment, 1, setups);
	int w, k, i, header = 0;

	for (k = 0; k < ns; k++) {
		double sum[3] = { 0 };
		int n[3] = { 0 }, over = 0;

		if (!strcmp(setups[k], "kernel-lru"))
			continue;
		for (w = 0; w < nw; w++) {
			for (i = 0; i < 3; i++) {
				struct stat3 l = stats(experiment, wls[w],
						       "kernel-lru", metric[i]);
				struct stat3 s = stats(experiment, wls[w],
						       setups[k], metric[i]);

				if (!l.n || !s.n || l.med <= 0 || s.med <= 0)
					continue;
				sum[i] += log(s.med / l.med);
				n[i]++;
				if (i == 2 && s.med / l.med > CPU_RATIO_BOUND)
					over++;
			}
		}
		if (!n[2])
			continue;
		if (!header) {
			fprintf(md, "\n**%s: each setup over kernel-lru, the geometric mean over the workloads both ran** (of the medians of their runs; CPU per operation above %.1fx kernel-lru's: in how many workloads, unrounded)\n\n"
				    "| setup | workloads | throughput | disk reads per operation | CPU per operation | CPU above %.1fx |\n"
				    "|---|---|---|---|---|---|\n",
				experiment, CPU_RATIO_BOUND, CPU_RATIO_BOUND);
			header = 1;
		}
		fprintf(md, "| %s | %d |", setups[k], n[2]);
		for (i = 0; i < 3; i++) {
			if (n[i])
				fprintf(md, " %.3fx |", exp(sum[i] / n[i]));
			else
				fprintf(md, " - |");
		}
		fprintf(md, " %d of %d |\n", over, n[2]);
	}
}

/* Below this, Belady's misses are too close to LRU's for any policy to win. */
#define ROOM_MIN	0.05
/* A recording that lost more is not the workload's (LC_DROPS_MAX_PPM). */
#define ROOM_MAX_LOST	0.001
/* advise agrees with measurement when its pick reads this close to the best. */
#define ADVISE_WITHIN	0.03

/*
 * What the recording of @wl's reference string lost (rows of setup
 * "sim:recording": its events and drops, as cachectl trace counted them);
 * over LC_DROPS_MAX_PPM (0.1%) cachesim refuses it, and the row says so.
 */
static void recording_line(FILE *md, const char *exp, const char *wl)
{
	struct stat3 ev = stats(exp, wl, "sim:recording", "events");
	struct stat3 dr = stats(exp, wl, "sim:recording", "dropped");
	double lost;

	if (!ev.n || !dr.n)
		return;
	lost = ev.med + dr.med > 0 ? dr.med / (ev.med + dr.med) : 0;
	fprintf(md, "\n- %s: the recording holds %.0f events and lost %.0f (%.3f%%)%s\n",
		wl, ev.med, dr.med, 100 * lost,
		lost > ROOM_MAX_LOST ?
		": **not the workload's**, cachesim refused it" : "");
}

/*
 * What cachectl advise would pick for @wl (the policy of fewest simulated
 * misses, lru standing for kernel-lru) among the policies also measured
 * here, next to the one measured with the fewest disk reads, and whether
 * the pick is within ADVISE_WITHIN of it.
 */
static void advise_line(FILE *md, const char *exp, const char *wl,
			const char *const *setups, int ns)
{
	const char *pick = NULL, *best = NULL;
	double pick_sim = 0, pick_reads = 0, best_reads = 0;
	int s;

	for (s = 0; s < ns; s++) {
		const char *p = setups[s], *m;
		struct stat3 sp, mp;

		if (!is_simulated(p))
			continue;
		m = strcmp(p, "sim:lru") ? p + 4 : "kernel-lru";
		sp = stats(exp, wl, p, "sim_miss_ratio");
		mp = stats(exp, wl, m, reads_metric(exp));
		if (!sp.n || !mp.n)
			continue;
		if (!pick || sp.med < pick_sim) {
			pick = m;
			pick_sim = sp.med;
			pick_reads = mp.med;
		}
		if (!best || mp.med < best_reads) {
			best = m;
			best_reads = mp.med;
		}
	}
	if (!pick || best_reads <= 0)
		return;
	fprintf(md, "\n- %s: advise would pick **%s** (fewest simulated misses of the policies measured here); measured fewest disk reads: **%s**; %s's reads are %+.1f%% of %s's: %s\n",
		wl, pick, best, pick, 100 * (pick_reads / best_reads - 1), best,
		pick_reads <= best_reads * (1 + ADVISE_WITHIN) ?
		"advise agrees (within 3%)" : "**advise picks wrong**");
}

/*
 * The room each workload of @exp leaves (scripts/eval.sh ran cachesim on
 * its reference string at the cgroup's capacity: setups "sim:POLICY"):
 * per policy, its simulated misses over simulated LRU's next to its
 * measured disk reads over kernel-lru's; Belady's, the oracle's and
 * lfu_ideal's bounds; and where Belady is within ROOM_MIN of LRU, that no
 * policy can win.
 */
static void room_section(FILE *md, const char *exp)
{
	static const char *const bounds[] = { "belady", "oracle", "lfu_ideal" };
	const char *wls[MAX_NAMES], *setups[MAX_NAMES];
	int nw = names(exp, 0, wls), ns = names(exp, 1, setups), w, s, any = 0;
	size_t b;

	for (w = 0; w < nw; w++)
		any |= stats(exp, wls[w], "sim:lru", "sim_miss_ratio").n |
		       stats(exp, wls[w], "sim:recording", "events").n;
	if (!any)
		return;
	fprintf(md, "\n**%s: the room each workload leaves** (cachesim on the workload's page-reference string, recorded once on kernel-lru, at the cgroup's file-page capacity: each policy's simulated misses over simulated LRU's, then its measured disk reads over kernel-lru's; the bounds are Belady's MIN, an oracle keeping the pages the whole string uses most, and LFU counting the whole past. A simulated miss is a page inserted: readahead and pages created by writes count, so the per-access figure can exceed 1 on a workload that writes, and there the same written pages add to every policy's misses and bring the ratios towards 1)\n\n| policy |",
		exp);
	for (w = 0; w < nw; w++)
		fprintf(md, " %s sim / measured |", wls[w]);
	fprintf(md, "\n|---|");
	for (w = 0; w < nw; w++)
		fprintf(md, "---|");
	fprintf(md, "\n");
	for (s = 0; s < ns; s++) {
		const char *p = setups[s];

		if (!is_simulated(p) || !strcmp(p, "sim:belady") ||
		    !strcmp(p, "sim:oracle") || !strcmp(p, "sim:lfu_ideal") ||
		    !strcmp(p, "sim:recording"))
			continue;
		fprintf(md, "| %s |", p + 4);
		for (w = 0; w < nw; w++) {
			struct stat3 sl = stats(exp, wls[w], "sim:lru", "sim_miss_ratio");
			struct stat3 sp = stats(exp, wls[w], p, "sim_miss_ratio");
			const char *m = strcmp(p, "sim:lru") ? p + 4 : "kernel-lru";
			struct stat3 ml = stats(exp, wls[w], "kernel-lru", reads_metric(exp));
			struct stat3 mp = stats(exp, wls[w], m, reads_metric(exp));

			if (!sp.n || !sl.n || sl.med <= 0) {
				fprintf(md, " - |");
				continue;
			}
			fprintf(md, " %.3f / ", sp.med / sl.med);
			if (mp.n && ml.n && ml.med > 0)
				fprintf(md, "%.3f |", mp.med / ml.med);
			else
				fprintf(md, "- |");
		}
		fprintf(md, "\n");
	}
	for (b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++) {
		char name[32];

		snprintf(name, sizeof(name), "sim:%s", bounds[b]);
		fprintf(md, "| *%s* |", bounds[b]);
		for (w = 0; w < nw; w++) {
			struct stat3 sl = stats(exp, wls[w], "sim:lru", "sim_miss_ratio");
			struct stat3 sb = stats(exp, wls[w], name, "sim_miss_ratio");

			if (sb.n && sl.n && sl.med > 0)
				fprintf(md, " %.3f |", sb.med / sl.med);
			else
				fprintf(md, " - |");
		}
		fprintf(md, "\n");
	}
	for (w = 0; w < nw; w++) {
		struct stat3 sl = stats(exp, wls[w], "sim:lru", "sim_miss_ratio");
		struct stat3 sb = stats(exp, wls[w], "sim:belady", "sim_miss_ratio");
		double room;

		recording_line(md, exp, wls[w]);
		advise_line(md, exp, wls[w], setups, ns);
		if (!sl.n || !sb.n || sl.med <= 0)
			continue;
		room = 1 - sb.med / sl.med;
		fprintf(md, "\n- %s: LRU's simulated pages inserted per access %.4f, Belady's %.4f: %s",
			wls[w], sl.med, sb.med,
			room < ROOM_MIN ? "**no policy can win here** (Belady within 5% of LRU)" :
			"room for a policy");
		fprintf(md, " (%.0f%% fewer misses at best).\n", 100 * room);
	}
}

/* ml_rank's decision time against its oversampling factor. */
static int figure_learned(const char *dir)
{
	const char *setups[MAX_NAMES];
	int ns = names("learned", 1, setups), s, n = 0;
	char dat[4096], gp[4096], png[4096];
	FILE *f;

	snprintf(dat, sizeof(dat), "%s/learned-latency.dat", dir);
	snprintf(gp, sizeof(gp), "%s/learned-latency.gp", dir);
	snprintf(png, sizeof(png), "%s/learned-latency.png", dir);
	f = fopen(dat, "w");
	if (!f)
		return -1;
	fprintf(f, "# oversample p50_us p99_us %s\n", reads_metric("learned"));
	for (s = 0; s < ns; s++) {
		const char *x = strstr(setups[s], "oversample=");
		struct stat3 p50 = stats("learned", "c", setups[s], "decide_p50_ns");
		struct stat3 p99 = stats("learned", "c", setups[s], "decide_p99_ns");
		struct stat3 dr = stats("learned", "c", setups[s], reads_metric("learned"));

		if (!x || !p50.n)
			continue;
		fprintf(f, "%d %.3f %.3f %.4f\n", atoi(x + 11), p50.med / 1e3,
			p99.med / 1e3, dr.med);
		n++;
	}
	fclose(f);
	if (!n)
		return 0;
	f = fopen(gp, "w");
	if (!f)
		return -1;
	fprintf(f, "set terminal png size 900,500 noenhanced\n"
		   "set output '%s'\n"
		   "set title 'ml_rank: decision time per evict_folios() call vs oversampling (YCSB C)'\n"
		   "set xlabel 'oversampling factor'\n"
		   "set ylabel 'decision time (us, log2 bucket upper bound)'\n"
		   "set y2label 'pages read from disk (per operation)'\n"
		   "set y2tics\n"
		   "set yrange [0:*]\n"
		   "set y2range [0:*]\n"
		   "set key top left\n"
		   "set grid\n"
		   "plot '%s' using 1:2 with linespoints title 'median', "
		   "'' using 1:3 with linespoints title 'P99', "
		   "'' using 1:4 axes x1y2 with linespoints title 'disk reads'\n",
		png, dat);
	fclose(f);
	return gnuplot(gp);
}

/*
 * The papers' claims next to what this run measured.  Each compares a
 * setup's median with a baseline's median of the same workload: the
 * better kernel policy, kernel-lru, the "kernel" pair of isolation, or
 * the best heuristic policy (not kernel, not ml_*).  Over several
 * workloads the best ratio counts, as "up to" in the papers.
 */
enum base { BASE_KERNEL, BASE_LRU, BASE_HEURISTIC };

static const struct claim {
	const char *what, *exp, *workloads, *setup, *metric;
	enum base base;
	double paper;		/* the claimed ratio to the baseline */
} claims[] = {
	{ "LFU up to +37% YCSB throughput over the kernel (cache_ext)",
	  "ycsb", NULL, "lfu", "ops_per_s", BASE_KERNEL, 1.37 },
	{ "MRU about 2x faster on repeated ripgrep searches (cache_ext)",
	  "search", NULL, "mru", "secs_per_search", BASE_LRU, 0.5 },
	{ "GET-SCAN +70% GET throughput (cache_ext)",
	  "get-scan", NULL, "get_scan", "get_ops_per_s", BASE_KERNEL, 1.7 },
	{ "admission filter -17% P99 read latency on RocksDB (cache_ext)",
	  "admit", NULL, "admit_filter", "read_p99_us", BASE_KERNEL, 0.83 },
	{ "a policy per cgroup: +50% for the YCSB side (cache_ext)",
	  "isolation", "ycsb-c", "lfu+mru", "ops_per_s", BASE_LRU, 1.5 },
	{ "a policy per cgroup: +79% for the search side (cache_ext)",
	  "isolation", "search", "lfu+mru", "searches_per_s", BASE_LRU, 1.79 },
	{ "ml_rank +13% over the best heuristic on YCSB A and F (LearnedCache)",
	  "ycsb", "a,f", "ml_rank", "ops_per_s", BASE_HEURISTIC, 1.13 },
	{ "a no-op policy costs at most 1.7% CPU per I/O (cache_ext)",
	  "overhead", NULL, "noop", "cpu_us_per_io", BASE_LRU, 1.017 },
};

static int is_heuristic(const char *setup)
{
	return strncmp(setup, "kernel", 6) && strncmp(setup, "ml_", 3);
}

/* The median of @c's metric for the baseline of workload @wl, or 0. */
static double claim_base(const struct claim *c, const struct metric_info *m,
			 const char *wl)
{
	const char *setups[MAX_NAMES];
	int ns = names(c->exp, 1, setups), s;
	double lru, best, h = 0;

	baselines(m, wl, &lru, &best);
	if (c->base == BASE_LRU)
		return lru;
	if (c->base == BASE_KERNEL)
		return best;
	for (s = 0; s < ns; s++) {
		struct stat3 st = stats(c->exp, wl, setups[s], c->metric);

		if (st.n && is_heuristic(setups[s]) &&
		    (!h || better(m, st.med, h)))
			h = st.med;
	}
	return h;
}

static const struct metric_info *metric_of(const char *exp, const char *metric)
{
	size_t i;

	for (i = 0; i < NR_METRICS; i++)
		if (!strcmp(metrics[i].exp, exp) &&
		    !strcmp(metrics[i].metric, metric))
			return &metrics[i];
	return NULL;
}

/* The most repetitions any setup of @exp has for @metric. */
static int reps_of(const char *exp, const char *metric)
{
	const char *wls[MAX_NAMES], *setups[MAX_NAMES];
	int nw = names(exp, 0, wls), ns = names(exp, 1, setups), w, s, n = 0;

	for (w = 0; w < nw; w++)
		for (s = 0; s < ns; s++) {
			int k = stats(exp, wls[w], setups[s], metric).n;

			if (k > n)
				n = k;
		}
	return n;
}

/* Disk reads of @setup over its claim's baseline on @wl, or 0. */
static double disk_ratio(const struct claim *c, const char *wl,
			 const char *setup)
{
	const char *metric = !strcmp(c->exp, "search") ? "disk_reads_per_search" :
			     stats(c->exp, wl, setup, "disk_reads_per_op").n ?
			     "disk_reads_per_op" : "disk_reads";
	const struct metric_info *m = metric_of(c->exp, metric);
	struct claim d = *c;
	struct stat3 st;
	double base;

	if (!m)
		return 0;
	d.metric = metric;
	st = stats(c->exp, wl, setup, metric);
	base = claim_base(&d, m, wl);
	return st.n && base > 0 ? st.med / base : 0;
}

/* Median guest CPU time per operation of a run of @exp/@wl/@setup, or 0. */
static double cpu_per_op(const char *exp, const char *wl, const char *setup)
{
	struct stat3 cpu = stats(exp, wl, setup, "cpu_s");
	struct stat3 ops = stats(exp, wl, setup, "ops");
	struct stat3 warm = stats(exp, wl, setup, "warm_ops");

	if (!cpu.n || !ops.n || ops.med + (warm.n ? warm.med : 0) <= 0)
		return 0;
	return cpu.med / (ops.med + (warm.n ? warm.med : 0));
}

/*
 * What the cause of @c's result on @wl under @setup is read from: the
 * simulated misses and room, the CPU per operation, the steady runs.
 */
static void claim_cause(const struct claim *c, const char *wl,
			const char *setup, char *buf, size_t len)
{
	char sim_setup[64];
	const char *policy = strchr(setup, '+') ? NULL : setup;
	struct stat3 lru = stats(c->exp, wl, "sim:lru", "sim_miss_ratio");
	struct stat3 bel = stats(c->exp, wl, "sim:belady", "sim_miss_ratio");
	struct stat3 sp;
	double cpu = cpu_per_op(c->exp, wl, setup);
	double cpu_lru = cpu_per_op(c->exp, wl, "kernel-lru");
	size_t n = 0;
	int runs, k;

	buf[0] = '\0';
	if (policy && lru.n && lru.med > 0) {
		snprintf(sim_setup, sizeof(sim_setup), "sim:%.*s",
			 (int)strcspn(policy, "/"), policy);
		sp = stats(c->exp, wl, sim_setup, "sim_miss_ratio");
		if (sp.n)
			n += snprintf(buf + n, len - n, "simulated misses %.2fx LRU's; ",
				      sp.med / lru.med);
		if (bel.n)
			n += snprintf(buf + n, len - n, "Belady %.2fx%s; ",
				      bel.med / lru.med,
				      1 - bel.med / lru.med < ROOM_MIN ?
				      " (no room)" : "");
	}
	if (n < len && cpu > 0 && cpu_lru > 0)
		n += snprintf(buf + n, len - n, "CPU per operation %.2fx kernel-lru's; ",
			      cpu / cpu_lru);
	k = steady_runs(c->exp, wl, setup, &runs);
	if (n < len && runs)
		n += snprintf(buf + n, len - n, "steady %d/%d", k, runs);
	while (n > 0 && n < len && (buf[n - 1] == ' ' || buf[n - 1] == ';'))
		buf[--n] = '\0';
}

static void print_claims(FILE *md)
{
	size_t i;

	fprintf(md, "\n## The papers' claims, measured here\n\n"
		    "Ratio of the setup's median to the baseline's median in the same boot; over several workloads (or ml_rank's oversampling factors) the best, among those where every setup ran all its repetitions.  \"held\": the effect goes the claimed way and is at least half as large, and where disk reads were measured the setup read fewer per operation: the claims are about what a policy keeps cached, and an effect at as many reads or more is not the cache's doing (the best of several workloads' throughput from one run is the likeliest to be noise).  Times under TCG on a shared machine vary by 5-30%% from run to run; the disk reads of the same comparison (lower is better), which repeat within about 1%%, say whether a policy kept more of what was needed.\n\n"
		    "The last column gives what the cause is read from: the setup's misses in cachesim on the workload's reference string over LRU's, and Belady's (the room: below 5%%, no policy can win); its guest CPU time per operation over kernel-lru's (decisions cost 20-50x native under TCG); and its runs at steady state.\n\n"
		    "| claim | paper | measured | disk reads | where | held | cause, measured |\n|---|---|---|---|---|---|---|\n");
	printf("\nThe papers' claims, measured here\n");
	for (i = 0; i < sizeof(claims) / sizeof(claims[0]); i++) {
		const struct claim *c = &claims[i];
		const struct metric_info *m = metric_of(c->exp, c->metric);
		const char *wls[MAX_NAMES], *setups[MAX_NAMES];
		int nw = names(c->exp, 0, wls), ns = names(c->exp, 1, setups);
		double best = 0, claimed = c->paper - 1, got, disk = 0;
		char dr[32] = "-", verdict[64];
		char where[128] = "", why[256] = "";
		int w, s, held, reps;

		if (!m)
			continue;
		reps = reps_of(c->exp, c->metric);
		for (w = 0; w < nw; w++) {
			char item[40];

			snprintf(item, sizeof(item), ",%s,", wls[w]);
			if (c->workloads) {
				char list[64];

				snprintf(list, sizeof(list), ",%s,", c->workloads);
				if (!strstr(list, item))
					continue;
			}
			for (s = 0; s < ns; s++) {
				struct stat3 st;
				double base, r;

				if (strncmp(setups[s], c->setup, strlen(c->setup)))
					continue;
				st = stats(c->exp, wls[w], setups[s], c->metric);
				base = claim_base(c, m, wls[w]);
				if (!st.n || st.n < reps || base <= 0)
					continue;
				r = st.med / base;
				if (!best || better(m, r, best)) {
					best = r;
					snprintf(where, sizeof(where), "%s, %s",
						 wls[w], setups[s]);
					disk = disk_ratio(c, wls[w], setups[s]);
					claim_cause(c, wls[w], setups[s], why,
						    sizeof(why));
				}
			}
		}
		if (!best) {
			fprintf(md, "| %s | %.2fx | not measured | | | | |\n",
				c->what, c->paper);
			continue;
		}
		got = best - 1;
		/* The no-op claim is a bound, not an effect. */
		if (!strcmp(c->setup, "noop"))
			held = best <= c->paper;
		else
			held = claimed * got > 0 && fabs(got) >= fabs(claimed) / 2;
		if (disk > 0)
			snprintf(dr, sizeof(dr), "%.2fx", disk);
		snprintf(verdict, sizeof(verdict), "%s", held ? "yes" : "**no**");
		/* An effect the disk reads do not show is not the cache's. */
		if (held && disk > 0.99 && strcmp(c->setup, "noop")) {
			held = 0;
			snprintf(verdict, sizeof(verdict),
				 "**no**: as many disk reads (%.2fx)", disk);
		}
		fprintf(md, "| %s | %.2fx | %.2fx | %s | %s | %s | %s |\n", c->what,
			c->paper, best, dr, where, verdict, why[0] ? why : "-");
		printf("  %-68s paper %.2fx, here %.2fx (%s): %s\n", c->what,
		       c->paper, best, where, held ? "held" : "NOT reproduced");
	}
}

static int exp_rank(const char *exp)
{
	static const char *const order[] = {
		"machine", "ycsb", "leveldb", "trace", "search", "search-mmap",
		"get-scan", "admit", "isolation", "overhead", "learned",
	};
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(exp, order[i]))
			return i;
	return i;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: report -o OUTDIR [-t TRACE_README] [-T TITLE] RESULTS.csv...\n");
}

int main(int argc, char **argv)
{
	const char *out = NULL, *readme = NULL, *title = "cache_ext evaluation";
	const char *exps[MAX_NAMES];
	char path[4096];
	int c, i, ne = 0, failed = 0;
	size_t k, m;
	FILE *md;

	while ((c = getopt(argc, argv, "o:t:T:h")) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 't': readme = optarg; break;
		case 'T': title = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!out || optind == argc) {
		usage(stderr);
		return 2;
	}
	for (i = optind; i < argc; i++)
		if (load(argv[i]) < 0)
			return 1;
	if (derive_per_op() || derive_binding())
		return 1;
	load_refs(readme);

	for (k = 0; k < nr_rows; k++) {
		int j;

		for (j = 0; j < ne && strcmp(exps[j], rows[k].exp); j++)
			;
		if (j == ne && ne < MAX_NAMES)
			exps[ne++] = rows[k].exp;
	}
	/* In the order of make eval's experiments, whatever the files'. */
	for (i = 0; i < ne; i++) {
		int j;

		for (j = i + 1; j < ne; j++) {
			if (exp_rank(exps[j]) < exp_rank(exps[i])) {
				const char *t = exps[i];

				exps[i] = exps[j];
				exps[j] = t;
			}
		}
	}
	snprintf(path, sizeof(path), "%s/summary.md", out);
	md = fopen(path, "w");
	if (!md) {
		fprintf(stderr, "report: %s: %s\n", path, strerror(errno));
		return 1;
	}
	fprintf(md, "# %s\n", title);
	print_machine(md);
	print_ratios(md);
	for (i = 0; i < ne; i++) {
		if (!strcmp(exps[i], "machine"))
			continue;
		fprintf(md, "\n## %s\n", exps[i]);
		for (m = 0; m < NR_METRICS; m++) {
			if (strcmp(metrics[m].exp, exps[i]))
				continue;
			table(md, &metrics[m]);
			if (metrics[m].figure && strcmp(exps[i], "learned") &&
			    has_metric(exps[i], metrics[m].metric)) {
				if (figure(out, &metrics[m]))
					failed = 1;
				else
					fprintf(md, "\n![%s %s](%s-%s.png)\n",
						exps[i], metrics[m].metric,
						exps[i], metrics[m].metric);
			}
		}
		print_follows(md, exps[i]);
		print_means(md, exps[i]);
		room_section(md, exps[i]);
		if (steady_section(md, out, exps[i]))
			failed = 1;
		if (!strcmp(exps[i], "learned")) {
			if (figure_learned(out))
				failed = 1;
			else
				fprintf(md, "\n![learned latency](learned-latency.png)\n");
		}
	}
	print_claims(md);
	fclose(md);
	printf("\nsummary: %s\n", path);
	return failed;
}
