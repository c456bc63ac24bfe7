/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is a run at steady state?  A run of eval warms the cache until its
 * cgroup is full and the miss ratio has stopped moving, then measures a
 * window long enough for eviction decisions to dominate: at least a few
 * cache turnovers (the window's misses against the cgroup's file-page
 * capacity), with the miss ratio of its first and second halves close.
 * A miss is a page read from disk; the miss ratio is misses per operation
 * of the workload (a YCSB operation, a replayed page reference).
 *
 * The points are cumulative counts since the start of a phase, taken as
 * the run goes; nothing here reads the system.
 */
#ifndef __EVAL_STEADY_H
#define __EVAL_STEADY_H

#include <stdbool.h>
#include <stdint.h>

/* Operations done and pages read from disk since the phase began. */
struct steady_point {
	uint64_t ops;
	uint64_t misses;
};

/* Defaults of the criteria; bench/eval/eval's options change them. */
#define STEADY_TURNOVERS	3.0	/* window misses / file-page capacity */
#define STEADY_TOLERANCE	0.03	/* relative, half to half */

struct steady_verdict {
	double turnovers;	/* the window's misses / capacity */
	double mr;		/* misses per operation over the window */
	double mr_first, mr_second;	/* of the first and second half */
	double half_diff;	/* |second - first| / max(first, second) */
	bool enough_turnovers, stable, steady;
};

/*
 * Misses at @ops operations into the phase, interpolated linearly between
 * the two points around it (@pts ascending in ops, pts[0] the phase's
 * start).
 */
double steady_misses_at(const struct steady_point *pts, int n, double ops);

/*
 * Judge the window @pts[0..@n-1] (pts[0] its start) against a cache of
 * @capacity pages: turnovers >= @min_turnovers and half-to-half
 * difference <= @tolerance.  A window with no operation or no capacity
 * is not steady.
 */
void steady_judge(const struct steady_point *pts, int n, long capacity,
		  double min_turnovers, double tolerance,
		  struct steady_verdict *v);

/*
 * Has warm-up reached steady state?  The cache is full (@full, the caller's
 * reading of its cgroup) and the miss ratios of the last two intervals of
 * @stride points each differ by at most @tolerance, relative.
 */
bool steady_warm_done(const struct steady_point *pts, int n, int stride,
		      bool full, double tolerance);

/*
 * At most @max points of @pts (the first, the last, and evenly spaced
 * ones between), in place: the series a CSV row carries.  Returns the new
 * count.
 */
int steady_thin(struct steady_point *pts, int n, int max);

#endif
