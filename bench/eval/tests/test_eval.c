// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of make eval's own parts: YCSB's generators and latency
 * histogram, the steady-state checks, the trace packer of replay, and
 * report's medians, ratios and steady-state marks.
 * The experiments themselves are checked end to end by make check
 * (scripts/eval-check.sh on a toy-size run).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../../tools/tap.h"
#include "../steady.h"
#include "../ycsb_gen.h"

#define SAMPLES 200000

static void test_zipfian(void)
{
	static uint32_t count[1000];
	struct ycsb_rng a, b;
	struct ycsb_zipf za, zb;
	int i, same = 1, in_range = 1;
	double ratio;

	ycsb_rng_seed(&a, 7, 0);
	ycsb_rng_seed(&b, 7, 0);
	ycsb_zipf_init(&za, 1000, YCSB_THETA);
	ycsb_zipf_init(&zb, 1000, YCSB_THETA);
	for (i = 0; i < SAMPLES; i++) {
		uint64_t x = ycsb_next_key(YCSB_ZIPFIAN, &za, &a, 1000);

		same &= x == ycsb_next_key(YCSB_ZIPFIAN, &zb, &b, 1000);
		in_range &= x < 1000;
		if (x < 1000)
			count[x]++;
	}
	check(same, "zipfian: the same seed gives the same sequence");
	check(in_range, "zipfian: every item in [0, n)");
	/* P(0) / P(1) = 2^theta for a Zipfian. */
	ratio = (double)count[0] / count[1];
	check(fabs(ratio - pow(2, YCSB_THETA)) < 0.15,
	      "zipfian: item 0 is %.2fx as popular as item 1 (2^0.99 = %.2f)",
	      ratio, pow(2, YCSB_THETA));
	check(count[0] > count[10] && count[10] > count[500],
	      "zipfian: popularity falls with rank (%u, %u, %u)", count[0],
	      count[10], count[500]);
}

static void test_scrambled_latest_uniform(void)
{
	static uint32_t count[1000];
	struct ycsb_rng r;
	struct ycsb_zipf z;
	uint64_t top = 0, sum = 0, newest = 0;
	int i, in_range = 1;

	ycsb_rng_seed(&r, 1, 0);
	ycsb_zipf_init(&z, 1000, YCSB_THETA);
	for (i = 0; i < SAMPLES; i++) {
		uint64_t x = ycsb_next_key(YCSB_SCRAMBLED, &z, &r, 1000);

		in_range &= x < 1000;
		if (x < 1000)
			count[x]++;
	}
	for (i = 1; i < 1000; i++)
		if (count[i] > count[top])
			top = i;
	check(in_range && top == ycsb_fnv64(0) % 1000,
	      "scrambled: the most popular record is fnv64(0) %% n (%llu)",
	      (unsigned long long)top);

	for (i = 0; i < SAMPLES; i++)
		newest += ycsb_next_key(YCSB_LATEST, &z, &r, 1000) == 999;
	check(newest > SAMPLES / 10, "latest: the newest record is the most read (%llu of %d)",
	      (unsigned long long)newest, SAMPLES);
	/* The zeta sum grows with the record count, as inserts add records. */
	ycsb_next_key(YCSB_LATEST, &z, &r, 2000);
	check(z.n == 2000, "latest: the generator follows a growing count");

	for (i = 0; i < SAMPLES; i++)
		sum += ycsb_next_key(YCSB_UNIFORM, &z, &r, 1000);
	check(fabs((double)sum / SAMPLES - 499.5) < 5,
	      "uniform: mean %.1f of [0, 999]", (double)sum / SAMPLES);
}

static void test_keys_and_hist(void)
{
	struct ycsb_hist h = {};
	char key[32];
	uint64_t p50, p99;
	int n, i;

	n = ycsb_key(key, sizeof(key), 12345);
	check(n == 24 && !strncmp(key, "user", 4),
	      "keys: \"user\" and 20 digits (%s)", key);
	for (i = 1; i <= 1000; i++)
		ycsb_hist_add(&h, (uint64_t)i * 1000);
	p50 = ycsb_hist_quantile(&h, 0.5);
	p99 = ycsb_hist_quantile(&h, 0.99);
	check(p50 >= 500000 && p50 < 500000 * 1.07,
	      "histogram: p50 of 1..1000 us is %llu ns", (unsigned long long)p50);
	check(p99 >= 990000 && p99 < 990000 * 1.07,
	      "histogram: p99 of 1..1000 us is %llu ns", (unsigned long long)p99);
	check(ycsb_hist_quantile(&(struct ycsb_hist){}, 0.5) == 0,
	      "histogram: an empty one has no quantiles");
}

/* replay prepare on a small CSV: pages packed densely, requests split. */
static void test_replay_prepare(const char *dir)
{
	char csv[512], cmd[2048], req[512];
	uint32_t r[16][2];
	struct stat st;
	FILE *f;
	size_t n;

	snprintf(csv, sizeof(csv), "%s/t.csv", dir);
	f = fopen(csv, "w");
	fprintf(f, "time_us,op,offset_bytes,size_bytes\n"
		   "1,R,1048576,8192\n"		/* pages 256, 257 -> 0, 1 */
		   "2,W,4096,512\n"		/* page 1 -> 2 */
		   "3,R,1052672,8192\n"		/* pages 257, 258 -> 1, 3 */
		   "4,R,0,0\n");		/* empty: skipped */
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s prepare %s %s > /dev/null", REPLAY_BIN,
		 csv, dir);
	check(!system(cmd), "replay prepare runs");
	snprintf(req, sizeof(req), "%s/trace.req", dir);
	f = fopen(req, "r");
	n = f ? fread(r, sizeof(r[0]), 16, f) : 0;
	if (f)
		fclose(f);
	check(n == 4 && r[0][0] == 0 && r[0][1] == 2 && r[1][0] == 2 &&
	      r[1][1] == 1 && r[2][0] == 1 && r[2][1] == 1 && r[3][0] == 3 &&
	      r[3][1] == 1,
	      "replay prepare: pages numbered by first touch, a request split where they stop being neighbours (%zu requests)",
	      n);
	snprintf(req, sizeof(req), "%s/trace.dat", dir);
	check(!stat(req, &st) && st.st_size == 4 * 4096,
	      "replay prepare: the data file holds the 4 distinct pages");
	snprintf(cmd, sizeof(cmd), "%s run %s > /dev/null", REPLAY_BIN, dir);
	check(!system(cmd), "replay run reads them all back, verified");
}

/* A window of @n + 1 points every @step ops, misses per op @mr1 then @mr2. */
static int make_window(struct steady_point *p, int n, uint64_t step,
		       double mr1, double mr2)
{
	int i;

	p[0] = (struct steady_point){ 1000, 700 };	/* not from 0 */
	for (i = 1; i <= n; i++) {
		double mr = i <= n / 2 ? mr1 : mr2;

		p[i].ops = p[i - 1].ops + step;
		p[i].misses = p[i - 1].misses + (uint64_t)(mr * step + 0.5);
	}
	return n + 1;
}

static void test_steady(void)
{
	struct steady_point p[130];
	struct steady_verdict v;
	int n, i, monotone = 1;

	/* 8 intervals of 1000 ops at 0.5 misses/op: 4000 misses, 4 turnovers. */
	n = make_window(p, 8, 1000, 0.5, 0.5);
	steady_judge(p, n, 1000, STEADY_TURNOVERS, STEADY_TOLERANCE, &v);
	check(fabs(v.turnovers - 4) < 1e-9 && v.steady,
	      "steady: 4000 misses over 1000 pages are 4 turnovers, flat: steady (%.3f)",
	      v.turnovers);
	check(fabs(v.mr - 0.5) < 1e-9 && v.half_diff < 1e-9,
	      "steady: misses per operation 0.5, halves equal");

	/* The same misses, 2 turnovers: too short, however flat. */
	steady_judge(p, n, 2000, STEADY_TURNOVERS, STEADY_TOLERANCE, &v);
	check(!v.enough_turnovers && v.stable && !v.steady,
	      "steady: 2 turnovers are too few (%.2f)", v.turnovers);

	/* Miss ratio 0.40 then 0.60: halves 33% apart. */
	n = make_window(p, 8, 1000, 0.4, 0.6);
	steady_judge(p, n, 500, STEADY_TURNOVERS, STEADY_TOLERANCE, &v);
	check(fabs(v.mr_first - 0.4) < 1e-9 && fabs(v.mr_second - 0.6) < 1e-9,
	      "steady: halves' miss ratios 0.40 and 0.60 (%.3f, %.3f)",
	      v.mr_first, v.mr_second);
	check(fabs(v.half_diff - 1.0 / 3) < 1e-9 && !v.stable && !v.steady,
	      "steady: halves 33%% apart are not stable");

	/* 2.9% apart is within 3%, 3.1% is not. */
	n = make_window(p, 8, 10000, 1.0, 0.971);
	steady_judge(p, n, 1000, STEADY_TURNOVERS, STEADY_TOLERANCE, &v);
	check(v.stable, "steady: halves 2.9%% apart are stable (%.4f)", v.half_diff);
	n = make_window(p, 8, 10000, 1.0, 0.969);
	steady_judge(p, n, 1000, STEADY_TURNOVERS, STEADY_TOLERANCE, &v);
	check(!v.stable, "steady: halves 3.1%% apart are not (%.4f)", v.half_diff);

	/* The middle between points is interpolated. */
	n = make_window(p, 3, 1000, 0.2, 0.8);
	check(fabs(steady_misses_at(p, n, 2500) - (700 + 200 + 400)) < 1e-9,
	      "steady: misses halfway through an interval are interpolated");
	/* An odd number of intervals: the half falls inside one. */
	steady_judge(p, n, 100, 1, 0.5, &v);
	check(fabs(v.mr_first - (200 + 400) / 1500.0) < 1e-9,
	      "steady: the first half ends inside an interval (%.4f)", v.mr_first);

	/* Nothing to judge: not steady. */
	steady_judge(p, 1, 1000, 1, 1, &v);
	check(!v.steady, "steady: one point is no window");
	steady_judge(p, n, 0, 1, 1, &v);
	check(!v.steady, "steady: no capacity, no verdict");

	/* Warm-up: full and the last two cache-sizes alike. */
	n = make_window(p, 8, 1000, 0.9, 0.5);
	check(steady_warm_done(p, n, 2, true, 0.03),
	      "steady: warm-up done once two intervals of 2 points agree");
	check(!steady_warm_done(p, n, 2, false, 0.03),
	      "steady: not while the cgroup has never reclaimed");
	check(!steady_warm_done(p, n, 3, true, 0.03),
	      "steady: not while the last two intervals of 3 points differ");
	check(!steady_warm_done(p, 4, 2, true, 0.03),
	      "steady: not before two intervals exist");

	/* Thinning keeps the ends and the order. */
	n = make_window(p, 127, 10, 0.5, 0.5);
	i = steady_thin(p, n, 64);
	check(i == 64 && p[0].ops == 1000 && p[63].ops == 1000 + 127 * 10,
	      "steady: 128 points thinned to 64, the first and last kept");
	for (n = 1; n < i; n++)
		monotone &= p[n].ops > p[n - 1].ops;
	check(monotone, "steady: thinned points stay in order");
	check(steady_thin(p, 10, 64) == 10, "steady: a short series is kept whole");
}

/* report: medians, min-max and both ratios, and the best marked. */
static void test_report(const char *dir)
{
	char csv[512], cmd[2048], md[512];
	static char text[32768];
	FILE *f;
	size_t n;

	snprintf(csv, sizeof(csv), "%s/results.csv", dir);
	f = fopen(csv, "w");
	fprintf(f, "experiment,workload,setup,rep,metric,value\n"
		   "ycsb,c,kernel-lru,0,ops_per_s,100\n"
		   "ycsb,c,kernel-lru,1,ops_per_s,110\n"
		   "ycsb,c,kernel-lru,2,ops_per_s,90\n"
		   "ycsb,c,kernel-mglru,0,ops_per_s,125\n"
		   "ycsb,c,lfu,0,ops_per_s,250\n"
		   "ycsb,c,lfu,1,ops_per_s,200\n"
		   "ycsb,c,lfu,2,ops_per_s,1000\n"
		   "ycsb,c,kernel-lru,0,steady,1\n"
		   "ycsb,c,kernel-lru,0,turnovers,3.5\n"
		   "ycsb,c,kernel-lru,0,half_diff,0.01\n"
		   "ycsb,c,kernel-lru,0,file_pages_start,1000\n"
		   "ycsb,c,kernel-lru,0,file_pages_end,990\n"
		   "ycsb,c,kernel-lru,0,pt0_ops,0\n"
		   "ycsb,c,kernel-lru,0,pt0_misses,0\n"
		   "ycsb,c,kernel-lru,0,pt1_ops,1000\n"
		   "ycsb,c,kernel-lru,0,pt1_misses,600\n"
		   "ycsb,c,kernel-lru,0,pt2_ops,2000\n"
		   "ycsb,c,kernel-lru,0,pt2_misses,1150\n"
		   "ycsb,c,lfu,0,steady,1\n"
		   "ycsb,c,lfu,1,steady,0\n"
		   "ycsb,c,lfu,2,steady,1\n"
		   "ycsb,c,lfu,0,turnovers,3\n"
		   "ycsb,c,lfu,1,turnovers,2\n"
		   "ycsb,c,lfu,2,turnovers,4\n"
		   "ycsb,c,lfu,0,half_diff,0.02\n"
		   "ycsb,c,lfu,0,disk_reads,500\n"
		   /* Three times the throughput at more reads: not the cache. */
		   "ycsb,e,kernel-lru,0,ops_per_s,100\n"
		   "ycsb,e,kernel-lru,1,ops_per_s,100\n"
		   "ycsb,e,kernel-lru,2,ops_per_s,100\n"
		   "ycsb,e,kernel-lru,0,disk_reads,1000\n"
		   "ycsb,e,kernel-lru,0,ops,1000\n"
		   "ycsb,e,lfu,0,ops_per_s,300\n"
		   "ycsb,e,lfu,1,ops_per_s,300\n"
		   "ycsb,e,lfu,2,ops_per_s,300\n"
		   "ycsb,e,lfu,0,disk_reads,1100\n"
		   "ycsb,e,lfu,0,ops,1000\n"
		   "machine,data-disk,scaled,0,disk_us,4127\n"
		   "machine,ratios,here,0,db_over_cgroup,8\n"
		   "machine,ratios,here,0,threads,8\n"
		   "machine,cached-read,guest,0,us_per_op,106\n"
		   "machine,cached-read,host,0,us_per_op,2.6\n"
		   "machine,cached-read,guest/host,0,slowdown,40.8\n"
		   "admit,u,kernel-lru,0,ops_per_s,100\n"
		   "admit,u,kernel-lru,0,disk_reads,1000\n"
		   "admit,u,lfu,0,ops_per_s,200\n"
		   "admit,u,lfu,0,disk_reads,500\n"
		   "admit,u,fifo,0,ops_per_s,50\n"
		   "admit,u,fifo,0,disk_reads,2000\n"
		   "admit,u,s3fifo,0,ops_per_s,125\n"
		   "admit,u,s3fifo,0,disk_reads,800\n"
		   "admit,u,kernel-lru,0,read_p99_us,100\n"
		   "admit,u,kernel-mglru,0,read_p99_us,120\n"
		   "admit,u,admit_filter,0,read_p99_us,80\n"
		   "admit,u,admit_filter,0,disk_reads,900\n"
		   "admit,u,sim:lru,0,sim_miss_ratio,0.5\n"
		   "admit,u,sim:lfu,0,sim_miss_ratio,0.25\n"
		   "admit,u,sim:belady,0,sim_miss_ratio,0.49\n"
		   "admit,u,sim:recording,0,events,1000000\n"
		   "admit,u,sim:recording,0,dropped,0\n"
		   /* A recording that lost 0.5%, simulated anyway. */
		   "admit,v,kernel-lru,0,disk_reads,1000\n"
		   "admit,v,lfu,0,disk_reads,1100\n"
		   "admit,v,sim:lru,0,sim_miss_ratio,0.5\n"
		   "admit,v,sim:lfu,0,sim_miss_ratio,0.4\n"
		   "admit,v,sim:recording,0,events,995000\n"
		   "admit,v,sim:recording,0,dropped,5000\n"
		   "ycsb,c,sim:lru,0,sim_miss_ratio,0.8\n"
		   "ycsb,c,sim:belady,0,sim_miss_ratio,0.4\n"
		   /* Windows of equal disk reads, of different lengths. */
		   "get-scan,g,kernel-lru,0,disk_reads,3000\n"
		   "get-scan,g,kernel-lru,0,ops,1000\n"
		   "get-scan,g,get_scan,0,disk_reads,3000\n"
		   "get-scan,g,get_scan,0,ops,2000\n"
		   /* CPU over the warm-up's and the window's operations. */
		   "leveldb,c,kernel-lru,0,cpu_s,3\n"
		   "leveldb,c,kernel-lru,0,ops,1000\n"
		   "leveldb,c,kernel-lru,0,warm_ops,2000\n"
		   "leveldb,c,lfu,0,cpu_s,4.5\n"
		   "leveldb,c,lfu,0,ops,1000\n"
		   "leveldb,c,lfu,0,warm_ops,500\n"
		   /* What the policy did: its binding's counters. */
		   "leveldb,c,lfu,0,b_policy_share,0.25\n"
		   "leveldb,c,lfu,0,b_proposed,6400\n"
		   "leveldb,c,lfu,0,b_requested,200\n"
		   "leveldb,c,lfu,0,b_decide_p50,1048576\n"
		   /* Throughput in proportion to 1 / CPU, not to 1 / reads. */
		   "leveldb,a,kernel-lru,0,ops_per_s,100\n"
		   "leveldb,a,kernel-lru,0,cpu_s,1\n"
		   "leveldb,a,kernel-lru,0,ops,1000\n"
		   "leveldb,a,kernel-lru,0,disk_reads,1000\n"
		   "leveldb,a,lfu,0,ops_per_s,200\n"
		   "leveldb,a,lfu,0,cpu_s,0.5\n"
		   "leveldb,a,lfu,0,ops,1000\n"
		   "leveldb,a,lfu,0,disk_reads,1000\n"
		   "leveldb,a,s3fifo,0,ops_per_s,50\n"
		   "leveldb,a,s3fifo,0,cpu_s,2\n"
		   "leveldb,a,s3fifo,0,ops,1000\n"
		   "leveldb,a,s3fifo,0,disk_reads,500\n"
		   "leveldb,a,mru,0,ops_per_s,125\n"
		   "leveldb,a,mru,0,cpu_s,0.8\n"
		   "leveldb,a,mru,0,ops,1000\n"
		   "leveldb,a,mru,0,disk_reads,2000\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -o %s %s > /dev/null", REPORT_BIN, dir,
		 csv);
	check(!system(cmd), "report runs and draws its figure");
	snprintf(md, sizeof(md), "%s/summary.md", dir);
	f = fopen(md, "r");
	n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	check(strstr(text, "| lfu | **250 (200-1000) 2.50x/2.00x** † |") != NULL,
	      "report: median 250 of (250, 200, 1000), 2.50x kernel-lru's 100, 2.00x mglru's 125, best in bold, marked: a run not at steady state");
	check(strstr(text, "| kernel-lru | 100 (90-110) 1.00x/0.80x |") != NULL,
	      "report: the baseline's own row, steady");
	check(strstr(text, "| lfu | 3.0, 2.0%, 2/3, ") != NULL &&
	      strstr(text, "| kernel-lru | 3.5, 1.0%, 1/1, 1000->990 |") != NULL,
	      "report: the steady-state table: turnovers, half difference, runs steady, file pages");
	check(strstr(text, "![ycsb steady state](ycsb-steady.png)") != NULL,
	      "report: the miss-ratio series figure is in the summary");
	check(strstr(text, "after **4127 us** (100 us, an NVMe read, times the guest's slowdown)") != NULL &&
	      strstr(text, "106.0 us in the guest and 2.60 us on the host, **40.8x**") != NULL,
	      "report: the disk latency and the slowdown it was scaled from");
	check(strstr(text, "| database / cgroup (YCSB) | 10 (100 GiB / 10 GiB) | 8.0 |") != NULL &&
	      strstr(text, "| YCSB client threads | 8 | 8 |") != NULL &&
	      strstr(text, "| vCPUs |") == NULL,
	      "report: the papers' ratios next to the run's, those it has");
	check(strstr(text, "## machine") == NULL,
	      "report: the machine's rows are no experiment of their own");
	check(strstr(text, "Over 3 setup-workload pairs") != NULL &&
	      strstr(text, "**r = 1.00**") != NULL,
	      "report: throughput in proportion to 1 / disk reads correlates at 1.00");
	check(strstr(text, "is **r = -0.65** (1: the misses") != NULL &&
	      strstr(text, "in its place, over 3 pairs: **r = 1.00**.") != NULL,
	      "report: throughput in proportion to 1 / CPU per operation correlates at 1.00 with it, -0.65 with the reads");
	check(strstr(text, "| lfu | 2 | 2.000x | 1.000x | 1.225x | 1 of 2 |") != NULL &&
	      strstr(text, "| s3fifo | 1 | 0.500x | 0.500x | 2.000x | 1 of 1 |") != NULL &&
	      strstr(text, "| mru | 1 | 1.250x | 2.000x | 0.800x | 0 of 1 |") != NULL,
	      "report: geometric means over the workloads each ran (CPU 3x and 0.5x: 1.225x), CPU above 1.1x counted");
	check(strstr(text, "| lfu | 0.500 / 0.500 |") != NULL,
	      "report: lfu's simulated misses next to its measured disk reads, both over LRU's");
	check(strstr(text, "- u: LRU's simulated pages inserted per access 0.5000, Belady's 0.4900: **no policy can win here**") != NULL,
	      "report: Belady within 5%% of LRU: no room");
	check(strstr(text, "- c: LRU's simulated pages inserted per access 0.8000, Belady's 0.4000: room for a policy (50% fewer") != NULL,
	      "report: Belady half of LRU: room");
	check(strstr(text, "- u: the recording holds 1000000 events and lost 0 (0.000%)\n") != NULL &&
	      strstr(text, "- v: the recording holds 995000 events and lost 5000 (0.500%): **not the workload's**, cachesim refused it") != NULL,
	      "report: what each recording lost, over 0.1%% not the workload's");
	check(strstr(text, "- u: advise would pick **lfu** (fewest simulated misses of the policies measured here); measured fewest disk reads: **lfu**; lfu's reads are +0.0% of lfu's: advise agrees (within 3%)") != NULL,
	      "report: advise's pick is the policy measured with the fewest disk reads");
	check(strstr(text, "- v: advise would pick **lfu** (fewest simulated misses of the policies measured here); measured fewest disk reads: **kernel-lru**; lfu's reads are +10.0% of kernel-lru's: **advise picks wrong**") != NULL,
	      "report: advise's pick reads 10%% more than the best: wrong");
	check(strstr(text, "| 1.37x | 3.00x | 1.10x | e, lfu | **no**: as many disk reads (1.10x) |") != NULL,
	      "report: three times the throughput at 1.10x the disk reads is not a held claim");
	check(strstr(text, "| 0.83x | 0.80x | - | u, admit_filter | yes |") != NULL,
	      "report: a P99 0.80x holds the admission claim where no disk reads were measured");
	check(strstr(text, "GET-SCAN +70% GET throughput (cache_ext) | 1.70x | not measured |") != NULL,
	      "report: a claim without its experiment is \"not measured\"");
	check(strstr(text, "| get_scan | **1.5 0.50x/0.50x** |") != NULL &&
	      strstr(text, "| kernel-lru | 3 1.00x/1.00x |") != NULL,
	      "report: disk reads compared per operation (equal reads, twice the operations: half)");
	check(strstr(text, "CPU time of the workload per operation") != NULL &&
	      strstr(text, "| kernel-lru | **1 1.00x") != NULL &&
	      strstr(text, "| lfu | 3 3.00x") != NULL,
	      "report: CPU per operation over the warm-up's and the window's operations (1 ms, and 3 ms: 3.00x)");
	check(strstr(text, "% the policy chose") != NULL &&
	      strstr(text, "| lfu | **25** |") != NULL &&
	      strstr(text, "| lfu | **32** |") != NULL &&
	      strstr(text, "| lfu | **1049** |") != NULL,
	      "report: the policy's share of the evictions (cachectl's 0.25: 25%%), proposals per folio asked for (32), median decision (1049 us)");
	snprintf(md, sizeof(md), "%s/ycsb-ops_per_s.dat", dir);
	f = fopen(md, "r");
	n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	check(n && !strstr(text, "sim:"),
	      "report: the simulated setups are not bars of the measured figure");
	snprintf(md, sizeof(md), "%s/ycsb-ops_per_s.png", dir);
	f = fopen(md, "r");
	n = f ? fread(text, 1, 8, f) : 0;
	if (f)
		fclose(f);
	check(n == 8 && !memcmp(text, "\x89PNG", 4), "report: the figure is a PNG");
}

int main(void)
{
	char dir[] = "/tmp/test_eval.XXXXXX";
	char cmd[64];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_zipfian();
	test_scrambled_latest_uniform();
	test_keys_and_hist();
	test_steady();
	test_replay_prepare(dir);
	test_report(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "test_eval: could not remove %s\n", dir);
	return tap_done();
}
