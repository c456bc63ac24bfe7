// SPDX-License-Identifier: GPL-2.0
/*
 * Logistic regression on one-hot bins, trained with Adam in minibatches.
 * Each row activates exactly one bin per feature, so a row costs nine
 * weight reads and, on the backward pass, nine gradient adds: 10 million
 * rows an epoch take seconds.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lc_model.h"

const char *const lc_feature_names[LC_NR_FEATURES] = LC_FEATURE_NAMES;

#define NR_PARAMS (LC_NR_FEATURES * LC_MAX_BINS + 1)	/* bias last */

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

int64_t lc_logit_int(const struct lc_model *m, const int64_t x[LC_NR_FEATURES],
		     int64_t scale)
{
	int64_t z = llround(m->bias * scale);
	int f;

	for (f = 0; f < LC_NR_FEATURES; f++)
		z += llround(m->w[f][lc_bin_of(&m->bins[f], x[f])] * scale);
	return z;
}

int lc_train(const struct dataset *ds, const struct lc_train_opts *o,
	     struct lc_model *m)
{
	double grad[NR_PARAMS], mom[NR_PARAMS] = { 0 }, var[NR_PARAMS] = { 0 };
	const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
	uint8_t (*bin)[LC_NR_FEATURES];
	size_t *order, i, k, step = 0;
	uint64_t seed = o->seed ? o->seed : 1;
	int64_t *col;
	unsigned int e;
	int f;

	memset(m, 0, sizeof(*m));
	bin = malloc(ds->nr * sizeof(*bin));
	order = malloc(ds->nr * sizeof(*order));
	col = malloc(ds->nr * sizeof(*col));
	if (!bin || !order || !col) {
		free(bin);
		free(order);
		free(col);
		return -ENOMEM;
	}

	/* Bins per feature, then every row's bins once. */
	for (f = 0; f < LC_NR_FEATURES; f++) {
		for (i = 0; i < ds->nr; i++)
			col[i] = ds->x[i][f];
		lc_bins_fit(col, ds->nr, &m->bins[f]);
		for (i = 0; i < ds->nr; i++)
			bin[i][f] = lc_bin_of(&m->bins[f], ds->x[i][f]);
	}
	free(col);

	for (i = 0; i < ds->nr; i++)
		order[i] = i;
	for (e = 0; e < o->epochs; e++) {
		/* Fisher-Yates with the seeded generator: deterministic. */
		for (i = ds->nr; i > 1; i--) {
			size_t j = xorshift(&seed) % i, t = order[i - 1];

			order[i - 1] = order[j];
			order[j] = t;
		}
		for (i = 0; i < ds->nr; i += o->batch) {
			size_t end = i + o->batch < ds->nr ? i + o->batch : ds->nr;
			double c1, c2;

			memset(grad, 0, sizeof(grad));
			for (k = i; k < end; k++) {
				size_t r = order[k];
				double z = m->bias, g;

				for (f = 0; f < LC_NR_FEATURES; f++)
					z += m->w[f][bin[r][f]];
				g = 1.0 / (1.0 + exp(-z)) - ds->y[r];
				for (f = 0; f < LC_NR_FEATURES; f++)
					grad[f * LC_MAX_BINS + bin[r][f]] += g;
				grad[NR_PARAMS - 1] += g;
			}
			step++;
			c1 = 1.0 - pow(b1, step);
			c2 = 1.0 - pow(b2, step);
			for (k = 0; k < NR_PARAMS; k++) {
				double g = grad[k] / (end - i);
				double *p = k == NR_PARAMS - 1 ? &m->bias :
					    &m->w[k / LC_MAX_BINS][k % LC_MAX_BINS];

				mom[k] = b1 * mom[k] + (1 - b1) * g;
				var[k] = b2 * var[k] + (1 - b2) * g * g;
				*p -= o->lr * (mom[k] / c1) / (sqrt(var[k] / c2) + eps);
			}
		}
	}
	free(bin);
	free(order);
	return 0;
}
