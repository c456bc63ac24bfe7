/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LearnedCache trace: events streamed by the tracer policy through its
 * ring buffer, and the log file the recorder (cachectl trace) writes and
 * the trainer (lctrain) and cachesim read.  Plain C, shared by all.
 *
 * Log file, little endian:
 *
 *   struct lc_log_header            once
 *   records, in the order received
 *
 * Version 4: a removal (LC_EV_EVICT) is a struct lc_event, 32 + 8 x
 * nr_features bytes, with the folio's features; every other event is a
 * struct lc_record, record_size (32) bytes: the features are what made
 * version 3's fixed 112-byte records three times the data, and only a
 * removal has them.  Versions 2 and 3: every record a struct lc_event
 * (record_size 112; version 2 had no LC_EV_MAPPED).  Version 1 had 104,
 * with nine features; no reader takes it.  Readers must check magic,
 * version, header_size, record_size and nr_features, and reject a file
 * that ends inside a record.
 *
 * An LC_EV_DROPS record says that @index events were lost (ring buffer
 * full) just before it: the tracer writes one ahead of the first event
 * that fits again, the recorder one at the end for losses no event
 * followed.  A recording's drops over LC_DROPS_MAX_PPM of its events make
 * it not the workload's: readers refuse it unless told to take it.
 */
#ifndef __LC_TRACE_H
#define __LC_TRACE_H

#include "lc_features.h"

#define LC_LOG_MAGIC		"LCTRACE"	/* 8 bytes with the NUL */
#define LC_LOG_VERSION		4
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

/*
 * lc_record.flags of an LC_EV_INSERT: a caller waited for the folio (a
 * read's or a fault's miss; bpf_cache_ext_folio_prefetched() returned 0),
 * it did not come in ahead of use.  A read's miss is followed by its
 * access (LC_EV_ACCESS); a fault's use is not reported until the kernel
 * finds the accessed bit, if ever, so without this flag a faulted page
 * looks like unused readahead.  Recordings made before the flag have 0.
 */
#define LC_REC_DEMAND		0x1

/* An event without features (version 4: all but LC_EV_EVICT). */
struct lc_record {
	__u8 type;		/* enum lc_event_type */
	__u8 flags;		/* LC_REC_*, else 0 */
	__u8 pad[2];
	__u32 dev;
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__u64 ino;
	__u64 index;		/* page index; drop count for LC_EV_DROPS */
};

/*
 * An event with the features of its folio: a removal.  Its first fields
 * are a struct lc_record's; readers hold every event as one (features 0
 * for the others).
 */
struct lc_event {
	__u8 type;		/* enum lc_event_type */
	__u8 flags;		/* LC_REC_*, else 0 */
	__u8 pad[2];
	__u32 dev;
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__u64 ino;
	__u64 index;		/* page index; drop count for LC_EV_DROPS */
	__s64 features[LC_NR_FEATURES];	/* LC_EV_EVICT only, else 0 */
};

_Static_assert(sizeof(struct lc_record) == 32, "lc_record is 32 bytes");
_Static_assert(__builtin_offsetof(struct lc_event, features) ==
	       sizeof(struct lc_record), "lc_event begins with an lc_record");

/*
 * Drops, in events per million recorded, above which a recording is not
 * the workload's (0.1%).
 */
#define LC_DROPS_MAX_PPM	1000

/* The size of a version 4 record of @type. */
static inline unsigned int lc_record_size(unsigned int type)
{
	return type == LC_EV_EVICT ? sizeof(struct lc_event) :
				     sizeof(struct lc_record);
}

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
