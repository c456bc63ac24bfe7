// SPDX-License-Identifier: GPL-2.0
/* Workloads that tell policies apart; see workload.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache_ext_util.h"
#include "workload.h"

long long disk_pages_read(void)
{
	char line[128];
	long long kb = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "pgpgin %lld", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb / 4;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

int zipf_init(struct zipf *z, size_t n, double theta, uint64_t seed)
{
	double sum = 0;
	size_t i;

	z->cdf = malloc(n * sizeof(*z->cdf));
	if (!z->cdf)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		sum += 1.0 / pow(i + 1, theta);
	z->cdf[0] = 1.0 / sum;
	for (i = 1; i < n; i++)
		z->cdf[i] = z->cdf[i - 1] + 1.0 / pow(i + 1, theta) / sum;
	z->n = n;
	z->state = seed ? seed : 1;
	return 0;
}

size_t zipf_next(struct zipf *z)
{
	double u = (xorshift(&z->state) >> 11) * (1.0 / 9007199254740992.0);
	size_t lo = 0, hi = z->n - 1;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (z->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void zipf_free(struct zipf *z)
{
	free(z->cdf);
	z->cdf = NULL;
}

int zipf_reads(const char *path, size_t pages, size_t nr, double theta,
	       uint64_t seed)
{
	char buf[PAGE_SZ];
	struct zipf z;
	size_t i, page;
	int fd, ret = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	if (zipf_init(&z, pages, theta, seed)) {
		close(fd);
		return -ENOMEM;
	}
	for (i = 0; i < nr && !ret; i++) {
		/* An odd multiplier permutes ranks over the file. */
		page = (zipf_next(&z) * 2654435761ULL) % pages;
		if (pread(fd, buf, PAGE_SZ, page * PAGE_SZ) != PAGE_SZ ||
		    check_page(buf, page))
			ret = -EIO;
	}
	zipf_free(&z);
	close(fd);
	return ret;
}

int scan_reads(const char *path, int loops)
{
	int i, ret = 0;

	for (i = 0; i < loops && !ret; i++)
		ret = read_and_verify(path);
	return ret;
}

uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}
