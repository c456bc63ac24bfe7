// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of make eval's own parts: YCSB's generators and latency
 * histogram, the trace packer of replay, and report's medians and ratios.
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

/* report: medians, min-max and both ratios, and the best marked. */
static void test_report(const char *dir)
{
	char csv[512], cmd[2048], md[512];
	static char text[16384];
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
		   "ycsb,c,lfu,2,ops_per_s,1000\n");
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
	check(strstr(text, "| lfu | **250 (200-1000) 2.50x/2.00x** |") != NULL,
	      "report: median 250 of (250, 200, 1000), 2.50x kernel-lru's 100, 2.00x mglru's 125, best in bold");
	check(strstr(text, "| kernel-lru | 100 (90-110) 1.00x/0.80x |") != NULL,
	      "report: the baseline's own row");
	check(strstr(text, "| 1.37x | 2.00x | - | c, lfu | yes |") != NULL,
	      "report: LFU's claim (+37%%) held by 2.00x the better kernel policy");
	check(strstr(text, "GET-SCAN +70% GET throughput (cache_ext) | 1.70x | not measured |") != NULL,
	      "report: a claim without its experiment is \"not measured\"");
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
	test_replay_prepare(dir);
	test_report(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "test_eval: could not remove %s\n", dir);
	return tap_done();
}
