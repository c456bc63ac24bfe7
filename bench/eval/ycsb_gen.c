// SPDX-License-Identifier: GPL-2.0
/* The request generators of YCSB's CoreWorkload; see ycsb_gen.h. */
#include <math.h>
#include <stdio.h>

#include "ycsb_gen.h"

void ycsb_rng_seed(struct ycsb_rng *r, uint64_t seed, uint64_t stream)
{
	r->s = seed * 0x9e3779b97f4a7c15ULL + stream * 0xbf58476d1ce4e5b9ULL + 1;
}

uint64_t ycsb_rng_next(struct ycsb_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double ycsb_rng_double(struct ycsb_rng *r)
{
	return (ycsb_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t ycsb_rng_range(struct ycsb_rng *r, uint64_t lo, uint64_t hi)
{
	return lo + ycsb_rng_next(r) % (hi - lo + 1);
}

/* FNV-1a over the eight bytes of @v, as YCSB's Utils.fnvhash64(). */
uint64_t ycsb_fnv64(uint64_t v)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;

	for (i = 0; i < 8; i++) {
		h ^= v & 0xff;
		h *= 0x100000001b3ULL;
		v >>= 8;
	}
	return h;
}

static double zeta_add(double sum, uint64_t from, uint64_t to, double theta)
{
	uint64_t i;

	for (i = from; i < to; i++)
		sum += 1.0 / pow((double)(i + 1), theta);
	return sum;
}

static void zipf_set_n(struct ycsb_zipf *z, uint64_t n)
{
	z->zetan = zeta_add(z->zetan, z->n, n, z->theta);
	z->n = n;
	z->eta = (1 - pow(2.0 / n, 1 - z->theta)) / (1 - z->zeta2 / z->zetan);
}

void ycsb_zipf_init(struct ycsb_zipf *z, uint64_t n, double theta)
{
	z->theta = theta;
	z->alpha = 1.0 / (1.0 - theta);
	z->zeta2 = zeta_add(0, 0, 2, theta);
	z->zetan = 0;
	z->n = 0;
	zipf_set_n(z, n < 2 ? 2 : n);
}

uint64_t ycsb_zipf_next(struct ycsb_zipf *z, struct ycsb_rng *r, uint64_t n)
{
	double u, uz;
	uint64_t v;

	if (n > z->n)
		zipf_set_n(z, n);
	u = ycsb_rng_double(r);
	uz = u * z->zetan;
	if (uz < 1.0)
		return 0;
	if (uz < 1.0 + pow(0.5, z->theta))
		return n > 1;
	v = (uint64_t)(n * pow(z->eta * u - z->eta + 1, z->alpha));
	return v < n ? v : n - 1;
}

uint64_t ycsb_next_key(enum ycsb_dist d, struct ycsb_zipf *z,
		       struct ycsb_rng *r, uint64_t count)
{
	switch (d) {
	case YCSB_ZIPFIAN:
		return ycsb_zipf_next(z, r, count);
	case YCSB_SCRAMBLED:
		return ycsb_fnv64(ycsb_zipf_next(z, r, count)) % count;
	case YCSB_LATEST:
		return count - 1 - ycsb_zipf_next(z, r, count);
	case YCSB_UNIFORM:
	default:
		return ycsb_rng_range(r, 0, count - 1);
	}
}

int ycsb_key(char *buf, size_t len, uint64_t keynum)
{
	return snprintf(buf, len, "user%020llu",
			(unsigned long long)ycsb_fnv64(keynum));
}

static unsigned int hist_index(uint64_t ns)
{
	unsigned int e, idx;

	if (ns < 16)
		return ns;
	e = 63 - __builtin_clzll(ns);
	idx = 16 + (e - 4) * 16 + ((ns >> (e - 4)) & 15);
	return idx < YCSB_HIST_BUCKETS ? idx : YCSB_HIST_BUCKETS - 1;
}

static uint64_t hist_upper(unsigned int idx)
{
	unsigned int e, sub;

	if (idx < 16)
		return idx;
	e = (idx - 16) / 16 + 4;
	sub = (idx - 16) % 16;
	return ((uint64_t)(17 + sub) << (e - 4)) - 1;
}

void ycsb_hist_add(struct ycsb_hist *h, uint64_t ns)
{
	h->b[hist_index(ns)]++;
	h->count++;
	h->sum_ns += ns;
}

void ycsb_hist_merge(struct ycsb_hist *into, const struct ycsb_hist *h)
{
	unsigned int i;

	for (i = 0; i < YCSB_HIST_BUCKETS; i++)
		into->b[i] += h->b[i];
	into->count += h->count;
	into->sum_ns += h->sum_ns;
}

uint64_t ycsb_hist_quantile(const struct ycsb_hist *h, double q)
{
	uint64_t want, seen = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	want = (uint64_t)ceil(q * h->count);
	if (want < 1)
		want = 1;
	for (i = 0; i < YCSB_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want)
			return hist_upper(i);
	}
	return hist_upper(YCSB_HIST_BUCKETS - 1);
}
