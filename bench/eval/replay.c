// SPDX-License-Identifier: GPL-2.0
/*
 * replay: a block trace replayed as preads over one file.
 *
 *   replay prepare TRACE.csv OUTDIR
 *       read a CloudPhysics CSV (time_us,op,offset_bytes,size_bytes, as in
 *       ../shared/traces) and write OUTDIR/trace.req (the requests in 4 KiB
 *       pages, the trace's sparse offsets packed densely: each page gets
 *       the next free page of the file the first time it is touched, so
 *       a request's pages stay neighbours) and OUTDIR/trace.dat, the file
 *       they are read from (every page a distinct, non-zero pattern).
 *
 *   replay run DIR
 *       every request, reads and writes alike, as one pread() of its pages
 *       from DIR/trace.dat, with readahead off (POSIX_FADV_RANDOM); prints
 *       "requests=N pages=N secs=S".  The page reference string is the
 *       one the reference miss ratios in ../shared/traces/README.md were
 *       computed on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096
#define MAX_REQ_PAGES	4096

/* One request in trace.req. */
struct req {
	uint32_t first;		/* page of trace.dat */
	uint32_t pages;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: replay prepare TRACE.csv OUTDIR\n"
		   "       replay run DIR\n");
}

/* Open-addressing map from trace page to file page. */
struct pagemap {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, nr;
};

static uint32_t pagemap_get(struct pagemap *m, uint64_t page)
{
	size_t i;

	if (2 * (m->nr + 1) > m->cap) {
		struct pagemap n = { .cap = m->cap ? 2 * m->cap : 1 << 16 };
		size_t j;

		n.keys = malloc(n.cap * sizeof(*n.keys));
		n.vals = malloc(n.cap * sizeof(*n.vals));
		if (!n.keys || !n.vals) {
			fprintf(stderr, "replay: out of memory\n");
			exit(1);
		}
		memset(n.keys, 0xff, n.cap * sizeof(*n.keys));
		for (j = 0; j < m->cap; j++) {
			if (m->keys[j] == UINT64_MAX)
				continue;
			for (i = (m->keys[j] * 0x9e3779b97f4a7c15ULL) >> 20;
			     n.keys[i % n.cap] != UINT64_MAX; i++)
				;
			n.keys[i % n.cap] = m->keys[j];
			n.vals[i % n.cap] = m->vals[j];
		}
		n.nr = m->nr;
		free(m->keys);
		free(m->vals);
		*m = n;
	}
	for (i = (page * 0x9e3779b97f4a7c15ULL) >> 20;; i++) {
		if (m->keys[i % m->cap] == page)
			return m->vals[i % m->cap];
		if (m->keys[i % m->cap] == UINT64_MAX)
			break;
	}
	m->keys[i % m->cap] = page;
	m->vals[i % m->cap] = m->nr;
	return m->nr++;
}

static int prepare(const char *csv, const char *out)
{
	char path[4096], line[256], buf[PAGE];
	struct pagemap map = {};
	unsigned long long t, off, size, refs = 0, nreq = 0;
	FILE *in = fopen(csv, "r"), *req;
	uint32_t p;
	char op;
	int fd;

	if (!in) {
		fprintf(stderr, "replay: %s: %s\n", csv, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/trace.req", out);
	req = fopen(path, "w");
	if (!req) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), in)) {
		struct req r;
		uint64_t first, last, pg;

		if (sscanf(line, "%llu,%c,%llu,%llu", &t, &op, &off, &size) != 4)
			continue;	/* the header */
		if (!size)
			continue;
		first = off / PAGE;
		last = (off + size - 1) / PAGE;
		/* Split where the packed pages stop being neighbours. */
		r.first = pagemap_get(&map, first);
		r.pages = 1;
		for (pg = first + 1; pg <= last; pg++) {
			p = pagemap_get(&map, pg);
			if (p == r.first + r.pages && r.pages < MAX_REQ_PAGES) {
				r.pages++;
				continue;
			}
			fwrite(&r, sizeof(r), 1, req);
			nreq++;
			refs += r.pages;
			r.first = p;
			r.pages = 1;
		}
		fwrite(&r, sizeof(r), 1, req);
		nreq++;
		refs += r.pages;
	}
	fclose(in);
	if (fclose(req)) {
		fprintf(stderr, "replay: writing %s: %s\n", path, strerror(errno));
		return 1;
	}

	snprintf(path, sizeof(path), "%s/trace.dat", out);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (p = 0; p < map.nr; p++) {
		size_t i;

		for (i = 0; i < PAGE; i += 8)
			*(uint64_t *)(buf + i) = (uint64_t)p << 20 | i | 1;
		if (write(fd, buf, PAGE) != PAGE) {
			fprintf(stderr, "replay: writing %s: %s\n", path,
				strerror(errno));
			return 1;
		}
	}
	close(fd);
	printf("requests=%llu pages=%llu unique=%zu\n", nreq, refs, map.nr);
	return 0;
}

static int run(const char *dir)
{
	char path[4096], *buf = aligned_alloc(PAGE, (size_t)MAX_REQ_PAGES * PAGE);
	unsigned long long nreq = 0, pages = 0;
	struct timespec a, b;
	struct req r;
	FILE *req;
	int fd;

	snprintf(path, sizeof(path), "%s/trace.req", dir);
	req = fopen(path, "r");
	snprintf(path, sizeof(path), "%s/trace.dat", dir);
	fd = open(path, O_RDONLY);
	if (!req || fd < 0 || !buf) {
		fprintf(stderr, "replay: %s: %s (run 'replay prepare' first)\n",
			dir, strerror(errno));
		return 1;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	clock_gettime(CLOCK_MONOTONIC, &a);
	while (fread(&r, sizeof(r), 1, req) == 1) {
		ssize_t want = (ssize_t)r.pages * PAGE;

		if (pread(fd, buf, want, (off_t)r.first * PAGE) != want ||
		    *(uint64_t *)buf != ((uint64_t)r.first << 20 | 1)) {
			fprintf(stderr, "replay: page %u of %s: short read or wrong data\n",
				r.first, path);
			return 1;
		}
		nreq++;
		pages += r.pages;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("requests=%llu pages=%llu secs=%.3f\n", nreq, pages,
	       (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "prepare"))
		return prepare(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "run"))
		return run(argv[2]);
	usage(argc > 1 && !strcmp(argv[1], "-h") ? stdout : stderr);
	return argc > 1 && !strcmp(argv[1], "-h") ? 0 : 2;
}
