// SPDX-License-Identifier: GPL-2.0
/* Hold-out metrics of a quantized model. */
#include <stdlib.h>

#include "lc_model.h"

static const double *auc_score;

static int by_score(const void *a, const void *b)
{
	double x = auc_score[*(const size_t *)a], y = auc_score[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

double lc_auc(const double *score, const uint8_t *label, size_t n)
{
	size_t *idx = malloc(n * sizeof(*idx)), i, j, pos = 0;
	double rank_sum = 0;

	if (!idx)
		return 0.5;
	for (i = 0; i < n; i++) {
		idx[i] = i;
		pos += label[i];
	}
	if (!pos || pos == n) {
		free(idx);
		return 0.5;
	}
	auc_score = score;
	qsort(idx, n, sizeof(*idx), by_score);
	/* Mann-Whitney: ranks of the positives, ties at their mean rank. */
	for (i = 0; i < n; i = j) {
		double mean_rank;
		size_t k;

		for (j = i + 1; j < n && score[idx[j]] == score[idx[i]]; j++)
			;
		mean_rank = (i + 1 + j) / 2.0;
		for (k = i; k < j; k++)
			if (label[idx[k]])
				rank_sum += mean_rank;
	}
	free(idx);
	return (rank_sum - pos * (pos + 1) / 2.0) / ((double)pos * (n - pos));
}

void lc_evaluate(const struct lc_model *m, const struct dataset *ds,
		 int64_t scale, int64_t threshold, struct lc_metrics *out)
{
	double *score = malloc((ds->nr + 1) * sizeof(*score));
	size_t i, tp = 0, fp = 0, fn = 0, tn = 0;

	out->rows = ds->nr;
	out->positives = 0;
	for (i = 0; i < ds->nr; i++) {
		int64_t z = lc_logit_int(m, ds->x[i], scale);
		int predicted = z > threshold;

		if (score)
			score[i] = z;
		out->positives += ds->y[i];
		tp += predicted && ds->y[i];
		fp += predicted && !ds->y[i];
		fn += !predicted && ds->y[i];
		tn += !predicted && !ds->y[i];
	}
	out->auc = score ? lc_auc(score, ds->y, ds->nr) : 0.5;
	out->precision = tp + fp ? (double)tp / (tp + fp) : 0;
	out->recall = tp + fn ? (double)tp / (tp + fn) : 0;
	out->accuracy = ds->nr ? (double)(tp + tn) / ds->nr : 0;
	free(score);
}
