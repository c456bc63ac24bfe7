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
	unsigned long long recorded;	/* events other than LC_EV_DROPS */
	unsigned int nr_logs;
};

/*
 * Appends the events of the log at @path to @out, each as a struct
 * lc_event (features 0 but for removals), and adds its drops and its
 * other events to @out's counts.  Returns 0, or -errno with a message
 * naming the problem in @err: not a log (magic), another version, a
 * header or record size this reader does not know, a file that ends
 * inside a record, an unknown event type.  Whether the drops are too many
 * is the caller's to say (lc_events_dropped_too_many()).
 */
int lclog_read(const char *path, struct lc_events *out, char *err, size_t len);

/* The same from a buffer (used by the fuzz test). */
int lclog_parse(const void *buf, size_t size, struct lc_events *out,
		char *err, size_t len);

void lc_events_free(struct lc_events *e);

/*
 * Whether @e lost more than LC_DROPS_MAX_PPM of its events; @ppm (may be
 * NULL) gets the drops per million events that reached the log or were
 * lost.
 */
int lc_events_dropped_too_many(const struct lc_events *e, double *ppm);

/*
 * Writes a log (tests, synthetic data) in @hdr's version: records of their
 * type's size in version 4, struct lc_event in earlier ones.  0 or -errno.
 */
int lclog_write(const char *path, const struct lc_log_header *hdr,
		const struct lc_event *ev, size_t nr);

/* A header as the recorder writes it. */
void lclog_header_init(struct lc_log_header *hdr);

#endif /* LCTRAIN_LCLOG_H */
