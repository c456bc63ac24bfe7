// SPDX-License-Identifier: GPL-2.0
/* The module's log2 latency histograms: parsing and drawing. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

/* The index of log2 bucket [lo, hi), or -1 if it is not one. */
static int bucket_index(uint64_t lo, uint64_t hi)
{
	unsigned int i;

	for (i = 0; i < HIST_MAX_BUCKETS; i++)
		if (hist_lo(i) == lo && hist_hi(i) == hi)
			return i;
	return -1;
}

int hist_parse(const char *text, struct hist *h)
{
	const char *line = text;
	int have_total = 0;
	uint64_t sum = 0;

	memset(h, 0, sizeof(*h));
	while (*line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		unsigned long long a, b, c;
		char buf[128];
		int n = 0, i;

		if (len >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, line, len);
		buf[len] = '\0';
		line += len + !!eol;

		if (sscanf(buf, "# total %llu %n", &a, &n) == 1 && !buf[n]) {
			h->total = a;
			have_total = 1;
		} else if (buf[0] == '#' || !buf[0]) {
			continue;
		} else {
			i = -1;
			if (sscanf(buf, "%llu %llu %llu %n", &a, &b, &c, &n) == 3 && !buf[n])
				i = bucket_index(a, b);
			if (i < 0 || h->count[i])
				return -EINVAL;
			h->count[i] = c;
			sum += c;
		}
	}
	return have_total && sum == h->total ? 0 : -EINVAL;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t seen = 0, want;
	unsigned int i;

	if (!h->total)
		return 0;
	want = (uint64_t)(q * h->total + 0.999999);
	if (!want)
		want = 1;
	for (i = 0; i < HIST_MAX_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= want)
			return hist_hi(i);
	}
	return 0;
}

/* "512ns", "4us", "16ms", "2s" */
static void fmt_ns(uint64_t ns, char *buf, size_t len)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	unsigned int u = 0;

	while (u < 3 && ns >= 1000 && ns % 1000 == 0) {
		ns /= 1000;
		u++;
	}
	while (u < 3 && ns >= 10000) {
		ns /= 1000;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 "%s", ns, units[u]);
}

void hist_draw(const struct hist *h, unsigned int width, FILE *out)
{
	unsigned int i, first = HIST_MAX_BUCKETS, last = 0, bar;
	uint64_t max = 0;
	char lo[16], hi[16];

	for (i = 0; i < HIST_MAX_BUCKETS; i++) {
		if (!h->count[i])
			continue;
		if (first == HIST_MAX_BUCKETS)
			first = i;
		last = i;
		if (h->count[i] > max)
			max = h->count[i];
	}
	if (!max) {
		fprintf(out, "no evict_folios() calls recorded\n");
		return;
	}
	fprintf(out, "%21s %10s  %s\n", "latency", "calls", "distribution");
	for (i = first; i <= last; i++) {
		fmt_ns(hist_lo(i), lo, sizeof(lo));
		fmt_ns(hist_hi(i), hi, sizeof(hi));
		bar = (h->count[i] * width + max - 1) / max;
		fprintf(out, "%9s .. %-8s %10" PRIu64 "  |%-*.*s|\n", lo, hi,
			h->count[i], width, bar,
			"################################################################");
	}
	fmt_ns(hist_quantile(h, 0.5), lo, sizeof(lo));
	fmt_ns(hist_quantile(h, 0.99), hi, sizeof(hi));
	fprintf(out, "total %" PRIu64 " calls, median < %s, p99 < %s\n",
		h->total, lo, hi);
}
