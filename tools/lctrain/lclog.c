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

int lclog_parse(const void *buf, size_t size, struct lc_events *out,
		char *err, size_t len)
{
	const struct lc_log_header *hdr = buf;
	const struct lc_event *ev;
	size_t nr, i;

	if (size < sizeof(*hdr) || memcmp(hdr->magic, LC_LOG_MAGIC, sizeof(hdr->magic)))
		return fail(err, len, -EINVAL, "not a LearnedCache trace log (bad magic)");
	if (hdr->version == 1)
		return fail(err, len, -EINVAL, "log format version 1 (nine features); this reader knows version %d (ten): record the trace again with this cachectl",
			    LC_LOG_VERSION);
	/* Version 2 is version 3 without mapped uses. */
	if (hdr->version != LC_LOG_VERSION && hdr->version != 2)
		return fail(err, len, -EINVAL, "log format version %u; this reader knows versions 2 and %d",
			    hdr->version, LC_LOG_VERSION);
	if (hdr->header_size != sizeof(*hdr) || hdr->record_size != sizeof(*ev) ||
	    hdr->nr_features != LC_NR_FEATURES)
		return fail(err, len, -EINVAL, "header size %u, record size %u or %u features: not those of version %d",
			    hdr->header_size, hdr->record_size, hdr->nr_features,
			    LC_LOG_VERSION);
	if ((size - sizeof(*hdr)) % sizeof(*ev))
		return fail(err, len, -EINVAL, "truncated: the file ends inside record %zu",
			    (size - sizeof(*hdr)) / sizeof(*ev));
	ev = (const void *)((const char *)buf + sizeof(*hdr));
	nr = (size - sizeof(*hdr)) / sizeof(*ev);
	for (i = 0; i < nr; i++) {
		if (!ev[i].type || ev[i].type > LC_EV_MAX ||
		    (hdr->version == 2 && ev[i].type == LC_EV_MAPPED))
			return fail(err, len, -EINVAL, "record %zu has unknown event type %u",
				    i, ev[i].type);
		if (ev[i].type == LC_EV_DROPS)
			out->dropped += ev[i].index;
	}
	if (push(out, ev, nr))
		return fail(err, len, -ENOMEM, "out of memory for %zu events", nr);
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
	hdr->record_size = sizeof(struct lc_event);
	hdr->page_size = 4096;
	hdr->clock = LC_CLOCK_MONOTONIC;
	hdr->nr_features = LC_NR_FEATURES;
}

int lclog_write(const char *path, const struct lc_log_header *hdr,
		const struct lc_event *ev, size_t nr)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -errno;
	ok = fwrite(hdr, sizeof(*hdr), 1, f) == 1 &&
	     (!nr || fwrite(ev, sizeof(*ev), nr, f) == nr);
	return fclose(f) || !ok ? -EIO : 0;
}
