// SPDX-License-Identifier: GPL-2.0
/* Steady-state arithmetic of eval's runs; see steady.h. */
#include <math.h>

#include "steady.h"

double steady_misses_at(const struct steady_point *pts, int n, double ops)
{
	int i;

	if (n <= 0)
		return 0;
	if (ops <= pts[0].ops)
		return pts[0].misses;
	for (i = 1; i < n; i++) {
		if (ops <= pts[i].ops) {
			double span = (double)pts[i].ops - pts[i - 1].ops;
			double f = span > 0 ? (ops - pts[i - 1].ops) / span : 1;

			return pts[i - 1].misses +
			       f * ((double)pts[i].misses - pts[i - 1].misses);
		}
	}
	return pts[n - 1].misses;
}

static double rel_diff(double a, double b)
{
	double m = fmax(a, b);

	return m > 0 ? fabs(a - b) / m : 0;
}

void steady_judge(const struct steady_point *pts, int n, long capacity,
		  double min_turnovers, double tolerance,
		  struct steady_verdict *v)
{
	double ops, misses, mid_ops, mid_misses;

	*v = (struct steady_verdict){ 0 };
	if (n < 2 || capacity <= 0 || pts[n - 1].ops <= pts[0].ops)
		return;
	ops = (double)pts[n - 1].ops - pts[0].ops;
	misses = (double)pts[n - 1].misses - pts[0].misses;
	mid_ops = pts[0].ops + ops / 2;
	mid_misses = steady_misses_at(pts, n, mid_ops);

	v->turnovers = misses / capacity;
	v->mr = misses / ops;
	v->mr_first = (mid_misses - pts[0].misses) / (ops / 2);
	v->mr_second = (pts[n - 1].misses - mid_misses) / (ops / 2);
	v->half_diff = rel_diff(v->mr_first, v->mr_second);
	v->enough_turnovers = v->turnovers >= min_turnovers;
	v->stable = v->half_diff <= tolerance;
	v->steady = v->enough_turnovers && v->stable;
}

/* Misses per operation between points @a and @b. */
static double interval_mr(const struct steady_point *a,
			  const struct steady_point *b)
{
	return b->ops > a->ops ?
	       ((double)b->misses - a->misses) / ((double)b->ops - a->ops) : 0;
}

bool steady_warm_done(const struct steady_point *pts, int n, int stride,
		      bool full, double tolerance)
{
	if (!full || stride < 1 || n < 2 * stride + 1)
		return false;
	return rel_diff(interval_mr(&pts[n - 1 - 2 * stride],
				    &pts[n - 1 - stride]),
			interval_mr(&pts[n - 1 - stride], &pts[n - 1])) <=
	       tolerance;
}

int steady_thin(struct steady_point *pts, int n, int max)
{
	int i;

	if (n <= max || max < 2)
		return n;
	for (i = 1; i < max - 1; i++)
		pts[i] = pts[(long)i * (n - 1) / (max - 1)];
	pts[max - 1] = pts[n - 1];
	return max;
}
