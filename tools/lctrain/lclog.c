// SPDX-License-Identifier: GPL-2.0
/* Reading and writing LearnedCache trace logs. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lclog.h"

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return ret;
}

static int push(struct lc_events *out, const struct lc_event *ev, size_t nr)
{
	if (!nr)
		return 0;
	if (out->nr + nr > out->cap) {
		size_t cap = out->cap ? out->cap : 4096;
		struct lc_event *bigger;

		while (cap < out->nr + nr)
			cap *= 2;
		bigger = realloc(out->ev, cap * sizeof(*bigger));
		if (!bigger)
			return -ENOMEM;
		out->ev = bigger;
		out->cap = cap;
	}
	memcpy(out->ev + out->nr, ev, nr * sizeof(*ev));
	out->nr += nr;
	return 0;
}

/* Versions 2 and 3: every record a struct lc_event. */
static int parse_fixed(const struct lc_log_header *hdr, const void *recs,
		       size_t size, struct lc_events *out, char *err,
		       size_t len)
{
	const struct lc_event *ev = recs;
	size_t nr, i;

	if (size % sizeof(*ev))
		return fail(err, len, -EINVAL, "truncated: the file ends inside record %zu",
			    size / sizeof(*ev));
	nr = size / sizeof(*ev);
	for (i = 0; i < nr; i++) {
		if (!ev[i].type || ev[i].type > LC_EV_MAX ||
		    (hdr->version == 2 && ev[i].type == LC_EV_MAPPED))
			return fail(err, len, -EINVAL, "record %zu has unknown event type %u",
				    i, ev[i].type);
		if (ev[i].type == LC_EV_DROPS)
			out->dropped += ev[i].index;
		else
			out->recorded++;
	}
	if (push(out, ev, nr))
		return fail(err, len, -ENOMEM, "out of memory for %zu events", nr);
	return 0;
}

/* Version 4: removals with their features, other events without. */
static int parse_compact(const void *recs, size_t size,
			 struct lc_events *out, char *err, size_t len)
{
	const unsigned char *p = recs;
	size_t off, i;

	for (off = 0, i = 0; off < size; i++) {
		struct lc_event ev = { 0 };
		size_t rec;

		if (size - off < sizeof(struct lc_record))
			return fail(err, len, -EINVAL, "truncated: the file ends inside record %zu",
				    i);
		memcpy(&ev, p + off, sizeof(struct lc_record));
		if (!ev.type || ev.type > LC_EV_MAX)
			return fail(err, len, -EINVAL, "record %zu has unknown event type %u",
				    i, ev.type);
		rec = lc_record_size(ev.type);
		if (size - off < rec)
			return fail(err, len, -EINVAL, "truncated: the file ends inside record %zu",
				    i);
		memcpy(&ev, p + off, rec);
		if (ev.type == LC_EV_DROPS)
			out->dropped += ev.index;
		else
			out->recorded++;
		if (push(out, &ev, 1))
			return fail(err, len, -ENOMEM, "out of memory for %zu events", i);
		off += rec;
	}
	return 0;
}

int lclog_parse(const void *buf, size_t size, struct lc_events *out,
		char *err, size_t len)
{
	const struct lc_log_header *hdr = buf;
	struct lc_events before;
	size_t record_size;
	const void *recs;
	int ret;

	if (size < sizeof(*hdr) || memcmp(hdr->magic, LC_LOG_MAGIC, sizeof(hdr->magic)))
		return fail(err, len, -EINVAL, "not a LearnedCache trace log (bad magic)");
	if (hdr->version == 1)
		return fail(err, len, -EINVAL, "log format version 1 (nine features); this reader knows versions 2 to %d (ten): record the trace again with this cachectl",
			    LC_LOG_VERSION);
	if (hdr->version < 2 || hdr->version > LC_LOG_VERSION)
		return fail(err, len, -EINVAL, "log format version %u; this reader knows versions 2 to %d",
			    hdr->version, LC_LOG_VERSION);
	if (hdr->header_size != sizeof(*hdr) || hdr->nr_features != LC_NR_FEATURES)
		return fail(err, len, -EINVAL, "header size %u or %u features: not those of version %u",
			    hdr->header_size, hdr->nr_features, hdr->version);
	record_size = hdr->version == 4 ? sizeof(struct lc_record) :
					  sizeof(struct lc_event);
	if (hdr->record_size != record_size)
		return fail(err, len, -EINVAL, "record size %u: not that of version %u (%zu)",
			    hdr->record_size, hdr->version, record_size);
	recs = (const char *)buf + sizeof(*hdr);
	size -= sizeof(*hdr);
	before = *out;
	ret = hdr->version == 4 ? parse_compact(recs, size, out, err, len) :
				  parse_fixed(hdr, recs, size, out, err, len);
	if (ret) {
		/* All of a log or nothing: what it added is taken back. */
		out->nr = before.nr;
		out->dropped = before.dropped;
		out->recorded = before.recorded;
		return ret;
	}
	out->nr_logs++;
	return 0;
}

int lclog_read(const char *path, struct lc_events *out, char *err, size_t len)
{
	struct stat st;
	void *map;
	int fd, ret;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, len, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (!st.st_size) {
		close(fd);
		snprintf(err, len, "%s: empty file, not a LearnedCache trace log", path);
		return -EINVAL;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	ret = lclog_parse(map, st.st_size, out, err, len);
	munmap(map, st.st_size);
	if (ret) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, len, "%s: %s", path, msg);
	}
	return ret;
}

void lc_events_free(struct lc_events *e)
{
	free(e->ev);
	memset(e, 0, sizeof(*e));
}

void lclog_header_init(struct lc_log_header *hdr)
{
	memset(hdr, 0, sizeof(*hdr));
	memcpy(hdr->magic, LC_LOG_MAGIC, sizeof(hdr->magic));
	hdr->version = LC_LOG_VERSION;
	hdr->header_size = sizeof(*hdr);
	hdr->record_size = sizeof(struct lc_record);
	hdr->page_size = 4096;
	hdr->clock = LC_CLOCK_MONOTONIC;
	hdr->nr_features = LC_NR_FEATURES;
}

int lclog_write(const char *path, const struct lc_log_header *hdr,
		const struct lc_event *ev, size_t nr)
{
	FILE *f = fopen(path, "wb");
	size_t i;
	int ok;

	if (!f)
		return -errno;
	ok = fwrite(hdr, sizeof(*hdr), 1, f) == 1;
	for (i = 0; ok && i < nr; i++)
		ok = fwrite(&ev[i], hdr->version == 4 ?
			    lc_record_size(ev[i].type) : sizeof(*ev), 1, f) == 1;
	return fclose(f) || !ok ? -EIO : 0;
}

int lc_events_dropped_too_many(const struct lc_events *e, double *ppm)
{
	unsigned long long all = e->recorded + e->dropped;
	double v = all ? 1e6 * e->dropped / all : 0;

	if (ppm)
		*ppm = v;
	return v > LC_DROPS_MAX_PPM;
}
