/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Workloads that tell policies apart, shared by the policy selftests and
 * the `make run` table: seeded Zipfian random reads, cyclic scans, and
 * counting what came from the disk.
 */
#ifndef __CACHE_EXT_WORKLOAD_H
#define __CACHE_EXT_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

/* Pages read from block devices so far (/proc/vmstat pgpgin / 4). */
long long disk_pages_read(void);

struct zipf {
	double *cdf;		/* cdf[i] = P(rank <= i) */
	size_t n;
	uint64_t state;		/* xorshift64* */
};

/* Ranks 0..n-1 with P(rank k) ~ 1 / (k + 1)^theta; 0 or -ENOMEM. */
int zipf_init(struct zipf *z, size_t n, double theta, uint64_t seed);
size_t zipf_next(struct zipf *z);
void zipf_free(struct zipf *z);

/*
 * @nr random 4 KiB preads of @path's @pages pages, page = a fixed
 * permutation of a Zipfian rank (hot pages spread over the file), with
 * readahead off; every page read is verified.  Returns 0 or -errno.
 */
int zipf_reads(const char *path, size_t pages, size_t nr, double theta,
	       uint64_t seed);

/* Reads @path sequentially @loops times, verifying it; 0 or -errno. */
int scan_reads(const char *path, int loops);

/* Microseconds of CLOCK_MONOTONIC. */
uint64_t now_us(void);

#endif /* __CACHE_EXT_WORKLOAD_H */
