// SPDX-License-Identifier: GPL-2.0
/* Summaries of the rounds of a benchmark: see stats.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double median(const double *v, int n)
{
	double *s = malloc(n * sizeof(*s)), m;

	if (!s)
		return NAN;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	m = s[n / 2];
	free(s);
	return m;
}

double mean_ci(const double *v, int n, double *ci)
{
	double sum = 0, sq = 0, mean;
	int i;

	for (i = 0; i < n; i++)
		sum += v[i];
	mean = sum / n;
	for (i = 0; i < n; i++)
		sq += (v[i] - mean) * (v[i] - mean);
	*ci = n > 1 ? 2 * sqrt(sq / (n - 1) / n) : 0;
	return mean;
}
