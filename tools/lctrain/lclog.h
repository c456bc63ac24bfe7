/* SPDX-License-Identifier: GPL-2.0 */
/* Reading LearnedCache trace logs (format: bpf/include/lc_trace.h). */
#ifndef LCTRAIN_LCLOG_H
#define LCTRAIN_LCLOG_H

#include <stddef.h>
#include <linux/types.h>

#include "lc_trace.h"

struct lc_events {
	struct lc_event *ev;
	size_t nr, cap;
	unsigned long long dropped;	/* sum of LC_EV_DROPS records */
	unsigned int nr_logs;
};

/*
 * Appends the events of the log at @path to @out.  Returns 0, or -errno
 * with a message naming the problem in @err: not a log (magic), another
 * version, a header or record size this reader does not know, a file that
 * ends inside a record, an unknown event type.
 */
int lclog_read(const char *path, struct lc_events *out, char *err, size_t len);

/* The same from a buffer (used by the fuzz test). */
int lclog_parse(const void *buf, size_t size, struct lc_events *out,
		char *err, size_t len);

void lc_events_free(struct lc_events *e);

/* Writes a log (tests, synthetic data); 0 or -errno. */
int lclog_write(const char *path, const struct lc_log_header *hdr,
		const struct lc_event *ev, size_t nr);

/* A header as the recorder writes it. */
void lclog_header_init(struct lc_log_header *hdr);

#endif /* LCTRAIN_LCLOG_H */
