/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LearnedCache perceptron: quantile bins per feature, one weight per
 * bin (one-hot input), a bias; trained as logistic regression with Adam,
 * then quantized to integers for the kernel.
 */
#ifndef LCTRAIN_LC_MODEL_H
#define LCTRAIN_LC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "dataset.h"

#define LC_MAX_BINS	10

struct lc_bins {
	unsigned int n_bins;			/* 1..LC_MAX_BINS */
	int64_t edges[LC_MAX_BINS - 1];		/* n_bins - 1, increasing */
};

struct lc_model {
	struct lc_bins bins[LC_NR_FEATURES];
	double w[LC_NR_FEATURES][LC_MAX_BINS];
	double bias;
};

struct lc_train_opts {
	unsigned int epochs;		/* passes over the training rows */
	unsigned int batch;		/* rows per Adam step */
	double lr;			/* Adam's step size */
	uint64_t seed;			/* row order */
};

/* The names of the features, in order. */
extern const char *const lc_feature_names[LC_NR_FEATURES];

/*
 * Quantile bins of @values (@n of them, reordered): edges at the 10%, 20%,
 * ... 90% quantiles, duplicates and the minimum dropped, so a feature with
 * fewer than 10 distinct values gets fewer bins.  x is in bin i when
 * edges[i-1] <= x < edges[i].
 */
void lc_bins_fit(int64_t *values, size_t n, struct lc_bins *b);
unsigned int lc_bin_of(const struct lc_bins *b, int64_t x);

/* Fits the bins of every feature on @ds, then the weights; 0 or -ENOMEM. */
int lc_train(const struct dataset *ds, const struct lc_train_opts *o,
	     struct lc_model *m);

/* The logit with the weights quantized by @scale, as the kernel sums it. */
int64_t lc_logit_int(const struct lc_model *m, const int64_t x[LC_NR_FEATURES],
		     int64_t scale);

struct lc_metrics {
	double auc, precision, recall, accuracy;
	size_t rows, positives;
};

/* Metrics of the integer model on @ds, "reused" meaning logit > @threshold. */
void lc_evaluate(const struct lc_model *m, const struct dataset *ds,
		 int64_t scale, int64_t threshold, struct lc_metrics *out);

/* AUC of @score against @label (ties count half); 0.5 if one class only. */
double lc_auc(const double *score, const uint8_t *label, size_t n);

/*
 * What the export says of the model beside its weights (optional keys a
 * loader may ignore): its hold-out AUC, by which cachectl and the learned
 * policies tell a model with signal from one without, and its rows.
 */
struct lc_model_info {
	double holdout_auc;
	const char *rows;	/* "eviction" or "access" */
};

/*
 * Writes the model as LearnedCache's JSON export (features[].{name,
 * n_bins, bin_edges, weights_int}, bias_int, threshold_int, weight_scale,
 * and from @info, if given, holdout_auc and rows) to @path; 0 or -errno.
 */
int lc_model_write_json(const struct lc_model *m, int64_t scale,
			int64_t threshold, const struct lc_model_info *info,
			const char *path);

#endif /* LCTRAIN_LC_MODEL_H */
