/* SPDX-License-Identifier: GPL-2.0 */
/* The module's log2 latency histograms: parsing and drawing. */
#ifndef CACHECTL_HIST_H
#define CACHECTL_HIST_H

#include <stdint.h>
#include <stdio.h>

#define HIST_MAX_BUCKETS 64

/* Bucket 0 counts 0 ns, bucket i > 0 counts [2^(i-1), 2^i) ns. */
struct hist {
	uint64_t count[HIST_MAX_BUCKETS];
	uint64_t total;
};

/* The bounds of bucket @i, in ns: [hist_lo(i), hist_hi(i)). */
static inline uint64_t hist_lo(unsigned int i)
{
	return i ? 1ULL << (i - 1) : 0;
}

static inline uint64_t hist_hi(unsigned int i)
{
	return 1ULL << i;
}

/*
 * Parses the debugfs latency file: "from to count" lines for the
 * non-empty log2 buckets, '#' comments, and a "# total N" line.  Returns
 * 0, or -EINVAL if a line is malformed, a bucket is not a log2 bucket, or
 * the counts do not add up to the total.
 */
int hist_parse(const char *text, struct hist *h);

/* The upper bound of the bucket holding quantile @q (0..1); 0 if empty. */
uint64_t hist_quantile(const struct hist *h, double q);

/* Draws the non-empty range of @h as a bar chart @width columns wide. */
void hist_draw(const struct hist *h, unsigned int width, FILE *out);

#endif /* CACHECTL_HIST_H */
