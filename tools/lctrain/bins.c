// SPDX-License-Identifier: GPL-2.0
/* Quantile binning of one feature. */
#include <stdlib.h>

#include "lc_model.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

void lc_bins_fit(int64_t *values, size_t n, struct lc_bins *b)
{
	unsigned int q;

	b->n_bins = 1;
	if (!n)
		return;
	qsort(values, n, sizeof(*values), cmp_i64);
	for (q = 1; q < LC_MAX_BINS; q++) {
		int64_t e = values[(size_t)((double)q * n / LC_MAX_BINS)];

		/* An edge at the minimum would make an empty first bin. */
		if (e <= values[0])
			continue;
		if (b->n_bins > 1 && e <= b->edges[b->n_bins - 2])
			continue;
		b->edges[b->n_bins - 1] = e;
		b->n_bins++;
	}
}

unsigned int lc_bin_of(const struct lc_bins *b, int64_t x)
{
	unsigned int i = 0;

	while (i + 1 < b->n_bins && x >= b->edges[i])
		i++;
	return i;
}
