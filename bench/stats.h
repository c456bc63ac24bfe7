/* SPDX-License-Identifier: GPL-2.0 */
/* Summaries of the rounds of a benchmark. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

/* qsort() comparison of doubles, ascending. */
int cmp_double(const void *a, const void *b);

/* The median of @v[0 .. @n - 1] (the upper one for even @n); @v is kept. */
double median(const double *v, int n);

/* Mean of @v and, in *@ci, the half-width of its 95% confidence interval. */
double mean_ci(const double *v, int n, double *ci);

#endif /* BENCH_STATS_H */
