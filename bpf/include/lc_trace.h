/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LearnedCache trace: events streamed by the tracer policy through its
 * ring buffer, and the log file the recorder (cachectl trace) writes and
 * the trainer (lctrain) reads.  Plain C, shared by all three.
 *
 * Log file, little endian:
 *
 *   struct lc_log_header            once
 *   struct lc_event                 repeated, in the order received
 *
 * Readers must check magic, version, header_size and record_size, and
 * reject a file that ends inside a record.  Version 3 records are 112
 * bytes, with LC_NR_FEATURES (10) features, as in version 2, which had
 * no LC_EV_MAPPED (readers take both); version 1 had 104, with nine.  An
 * LC_EV_DROPS record says that @index events were lost (ring buffer
 * full) just before it.
 */
#ifndef __LC_TRACE_H
#define __LC_TRACE_H

#include "lc_features.h"

#define LC_LOG_MAGIC		"LCTRACE"	/* 8 bytes with the NUL */
#define LC_LOG_VERSION		3
#define LC_CLOCK_MONOTONIC	1

enum lc_event_type {
	LC_EV_INSERT = 1,	/* a folio entered the page cache */
	LC_EV_ACCESS = 2,	/* a cached folio was accessed */
	LC_EV_EVICT = 3,	/* a folio left; features at that moment */
	LC_EV_DROPS = 4,	/* @index events were dropped */
	/*
	 * A cached folio was used through a mapping: the kernel found the
	 * accessed bit (reclaim or MGLRU's page-table walk) at @time_ns,
	 * the use was before it (folio_mapped_accessed()).
	 */
	LC_EV_MAPPED = 5,
	LC_EV_MAX = LC_EV_MAPPED,
};

struct lc_event {
	__u8 type;		/* enum lc_event_type */
	__u8 pad[3];
	__u32 dev;
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__u64 ino;
	__u64 index;		/* page index; drop count for LC_EV_DROPS */
	__s64 features[LC_NR_FEATURES];	/* LC_EV_EVICT only, else 0 */
};

struct lc_log_header {
	char magic[8];
	__u32 version;
	__u32 header_size;	/* sizeof(struct lc_log_header) */
	__u32 record_size;	/* sizeof(struct lc_event) */
	__u32 page_size;
	__u32 clock;		/* LC_CLOCK_MONOTONIC */
	__u32 nr_features;	/* LC_NR_FEATURES */
	__u64 cgroup_limit;	/* memory.max of the traced cgroup; 0: none */
	__u64 start_ns;		/* when tracing began */
};

/* An access or a mapped use: what the trainer learns from. */
static inline int lc_event_is_use(unsigned int type)
{
	return type == LC_EV_ACCESS || type == LC_EV_MAPPED;
}

#endif /* __LC_TRACE_H */
