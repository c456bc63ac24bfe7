/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The request generators of YCSB's CoreWorkload, for the ycsb driver.
 *
 * Keys are record numbers 0..n-1 turned into "user<fnv64(n)>" strings, as
 * YCSB does (hashed, not ordered, inserts).  Generators:
 *
 *   zipfian    Gray et al.'s "Quickly generating billion-record synthetic
 *              databases" Zipfian, item 0 the most popular
 *   scrambled  a Zipfian item spread over the key space by FNV-1a, so the
 *              popular records are not neighbours (YCSB's default)
 *   latest     the most recently inserted records the most popular
 *              (workload D): newest - zipfian(count)
 *   uniform    every record alike
 *
 * Each thread has its own generator state and random stream, seeded from
 * the run's seed and the thread's index, so a run is repeatable.
 */
#ifndef __YCSB_GEN_H
#define __YCSB_GEN_H

#include <stddef.h>
#include <stdint.h>

#define YCSB_THETA	0.99

/* splitmix64: a small, good, seedable stream. */
struct ycsb_rng {
	uint64_t s;
};

void ycsb_rng_seed(struct ycsb_rng *r, uint64_t seed, uint64_t stream);
uint64_t ycsb_rng_next(struct ycsb_rng *r);
/* Uniform in [0, 1). */
double ycsb_rng_double(struct ycsb_rng *r);
/* Uniform in [lo, hi]. */
uint64_t ycsb_rng_range(struct ycsb_rng *r, uint64_t lo, uint64_t hi);

uint64_t ycsb_fnv64(uint64_t v);

/*
 * Zipfian over 0..n-1 with exponent theta; n may grow (latest), and the
 * zeta sum is then extended, not recomputed.
 */
struct ycsb_zipf {
	double theta, alpha, zeta2, zetan, eta;
	uint64_t n;
};

void ycsb_zipf_init(struct ycsb_zipf *z, uint64_t n, double theta);
uint64_t ycsb_zipf_next(struct ycsb_zipf *z, struct ycsb_rng *r, uint64_t n);

enum ycsb_dist { YCSB_ZIPFIAN, YCSB_SCRAMBLED, YCSB_LATEST, YCSB_UNIFORM };

/*
 * The record number for a request: @count records exist (0..count-1).
 */
uint64_t ycsb_next_key(enum ycsb_dist d, struct ycsb_zipf *z,
		       struct ycsb_rng *r, uint64_t count);

/* "user<fnv64(keynum)>" into @buf (at least 24 bytes); returns its length. */
int ycsb_key(char *buf, size_t len, uint64_t keynum);

/*
 * Latency histogram: 16 buckets per power of two of nanoseconds (quantiles
 * within 4.4%), 1 ns to ~73 s.
 */
#define YCSB_HIST_BUCKETS	(16 * 36)

struct ycsb_hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t b[YCSB_HIST_BUCKETS];
};

void ycsb_hist_add(struct ycsb_hist *h, uint64_t ns);
void ycsb_hist_merge(struct ycsb_hist *into, const struct ycsb_hist *h);
/* The upper edge of the bucket holding quantile @q (0..1); 0 if empty. */
uint64_t ycsb_hist_quantile(const struct ycsb_hist *h, double q);

#endif
