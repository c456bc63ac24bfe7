/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LearnedCache features: the state kept per page and per file, and the
 * features computed from it: LearnedCache's nine, and a tenth that
 * remembers a page's reads over a long history.  Plain C, included by the BPF tracer and
 * policies and by the host trainer and its tests, so that trace-time and
 * eviction-time features are computed by the same code.
 *
 * Times are in nanoseconds of CLOCK_MONOTONIC (bpf_ktime_get_ns()).
 * Features are integers:
 *
 *   0 page_dt1     ns between the page's last two accesses
 *   1 page_dt2     ns between its second and third to last accesses
 *   2 inode_dt1    the same for the file
 *   3 inode_dt2
 *   4 distance     pages between this page and the file's last access
 *   5 file_pages   file size in pages
 *   6 page_ema     access-frequency EMA of the page (x1000)
 *   7 inode_ema    the same for the file
 *   8 idle         ns from the page's last access to now
 *   9 page_ema_long  the page's access-frequency EMA with a 1000 s
 *                  half-life (x1000): how often it is read over a long
 *                  history, the time it was not cached included; the
 *                  signal of LFU-like policies
 *
 * Models of format version 1 (LearnedCache's) have the first nine
 * (LC_NR_FEATURES_V1), of version 2 all ten.
 *
 * A delta that does not exist yet (fewer accesses) is LC_DT_NONE: longer
 * than any real one, so it bins with "long ago".
 */
#ifndef __LC_FEATURES_H
#define __LC_FEATURES_H

#define LC_NR_FEATURES		10
#define LC_NR_FEATURES_V1	9		/* LearnedCache's */
#define LC_MODEL_FORMAT		2		/* the model JSON lctrain writes */
#define LC_EMA_SCALE		1000		/* EMA fixed point */
#define LC_HALF_LIFE_NS		1000000000ULL	/* T = 1 s */
#define LC_LONG_HALF_LIFE_NS	(1000 * LC_HALF_LIFE_NS)	/* page_ema_long */
#define LC_DT_NONE		(10 * LC_HALF_LIFE_NS)
/* Map sizes: pages and files whose state is kept (LRU: oldest dropped). */
#define LC_MAX_PAGES		262144
#define LC_MAX_INODES		8192

enum lc_feature {
	LC_PAGE_DT1, LC_PAGE_DT2, LC_INODE_DT1, LC_INODE_DT2, LC_DISTANCE,
	LC_FILE_PAGES, LC_PAGE_EMA, LC_INODE_EMA, LC_IDLE, LC_PAGE_EMA_LONG,
};

/*
 * The features' names, in order: the names a model gives its features
 * (lctrain's export, cachectl, the cache_ext_ctl model store).
 */
#define LC_FEATURE_NAMES {						\
	"page_dt1", "page_dt2", "inode_dt1", "inode_dt2", "distance",	\
	"file_pages", "page_ema", "inode_ema", "idle", "page_ema_long",	\
}

/*
 * Every feature is >= 0.  The time features (deltas and idle time) are
 * at most LC_DT_NONE, so a bin edge above it would leave an empty bin.
 */
static inline int lc_feature_is_time(unsigned int f)
{
	return f <= LC_INODE_DT2 || f == LC_IDLE;
}

/* Timing of the last three accesses and the EMA; shared by page and file. */
struct lc_timing {
	__u64 last, prev, prev2;	/* 0: no such access */
	__u64 ema;			/* x LC_EMA_SCALE */
};

struct lc_page_key {
	__u32 dev;
	__u32 pad;
	__u64 ino;
	__u64 index;
};

struct lc_inode_key {
	__u32 dev;
	__u32 pad;
	__u64 ino;
};

struct lc_page_state {
	struct lc_timing t;
	__u64 first;		/* first access */
	__u64 file_pages;	/* file size at the last access */
	__u64 ema_long;		/* x LC_EMA_SCALE, LC_LONG_HALF_LIFE_NS */
};

struct lc_inode_state {
	struct lc_timing t;
	__u64 last_index;	/* page index of the last access */
};

/*
 * The relative EMA decayed by @dt with half-life @hl: x0.5 per whole
 * half-life (a shift), x(1 - dt/2hl) within one, zero after ten.  Within
 * one the product is taken in units of @unit ns, so that it cannot
 * overflow for the long half-life.
 *
 * In BPF (__noinline: libbpf's bpf_helpers.h, which BPF programs include
 * first) it is a global function, which the verifier checks once: inlined,
 * its three outcomes at each of lc_features()'s three decays multiplied
 * the paths to verify, and ml_rank took four times as long to load.
 */
#ifdef __bpf__
__noinline __u64 lc_ema_decay_by(__u64 ema, __u64 dt, __u64 hl, __u64 unit)
#else
static inline __u64 lc_ema_decay_by(__u64 ema, __u64 dt, __u64 hl, __u64 unit)
#endif
{
	__u64 halves = dt / hl;

	if (halves >= 10)
		return 0;
	if (halves)
		return ema >> halves;
	return ema - ema * (dt / unit) / (2 * (hl / unit));
}

static inline __u64 lc_ema_decay(__u64 ema, __u64 dt)
{
	return lc_ema_decay_by(ema, dt, LC_HALF_LIFE_NS, 1);
}

/*
 * page_ema_long's, the product in ms: an EMA of up to 2^44 (17 billion
 * reads in a half-life) times 10^6 ms.
 */
static inline __u64 lc_ema_decay_long(__u64 ema, __u64 dt)
{
	return lc_ema_decay_by(ema, dt, LC_LONG_HALF_LIFE_NS, 1000000);
}

/* An access at @now: decay, then count it. */
static inline void lc_timing_access(struct lc_timing *t, __u64 now)
{
	__u64 dt = t->last && now > t->last ? now - t->last : 0;

	t->ema = (t->last ? lc_ema_decay(t->ema, dt) : 0) + LC_EMA_SCALE;
	t->prev2 = t->prev;
	t->prev = t->last;
	t->last = now;
}

static inline __u64 lc_dt(__u64 later, __u64 earlier)
{
	if (!later || !earlier || later < earlier)
		return LC_DT_NONE;
	return later - earlier < LC_DT_NONE ? later - earlier : LC_DT_NONE;
}

/* Updates both states for an access to page @index of a @file_pages file. */
static inline void lc_access(struct lc_page_state *p, struct lc_inode_state *f,
			     __u64 index, __u64 file_pages, __u64 now)
{
	__u64 dt = p->t.last && now > p->t.last ? now - p->t.last : 0;

	if (!p->first)
		p->first = now;
	p->file_pages = file_pages;
	p->ema_long = (p->t.last ? lc_ema_decay_long(p->ema_long, dt) : 0) +
		      LC_EMA_SCALE;
	lc_timing_access(&p->t, now);
	lc_timing_access(&f->t, now);
	f->last_index = index;
}

/*
 * The features of page @index at @now (eviction time), from its state
 * and its file's.  Call before lc_access() when scoring an access.
 */
static inline void lc_features(const struct lc_page_state *p,
			       const struct lc_inode_state *f, __u64 index,
			       __u64 now, __s64 out[LC_NR_FEATURES])
{
	__u64 dist = index > f->last_index ? index - f->last_index :
					     f->last_index - index;

	out[LC_PAGE_DT1] = lc_dt(p->t.last, p->t.prev);
	out[LC_PAGE_DT2] = lc_dt(p->t.prev, p->t.prev2);
	out[LC_INODE_DT1] = lc_dt(f->t.last, f->t.prev);
	out[LC_INODE_DT2] = lc_dt(f->t.prev, f->t.prev2);
	out[LC_DISTANCE] = dist;
	out[LC_FILE_PAGES] = p->file_pages;
	out[LC_PAGE_EMA] = p->t.last ?
		lc_ema_decay(p->t.ema, now > p->t.last ? now - p->t.last : 0) : 0;
	out[LC_INODE_EMA] = f->t.last ?
		lc_ema_decay(f->t.ema, now > f->t.last ? now - f->t.last : 0) : 0;
	out[LC_IDLE] = lc_dt(now, p->t.last);
	out[LC_PAGE_EMA_LONG] = p->t.last ?
		lc_ema_decay_long(p->ema_long, now > p->t.last ? now - p->t.last : 0) : 0;
}

#endif /* __LC_FEATURES_H */
