/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Models exported by the LearnedCache trainer (JSON) and the text format of
 * the cache_ext_ctl model store (/sys/kernel/cache_ext/models/load).
 */
#ifndef CACHECTL_MODEL_H
#define CACHECTL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "ctl_err.h"
#include "lc_features.h"

/*
 * The rules of the module's model store: LearnedCache's nine features
 * (format version 1) or all ten of lc_features.h (version 2), in its
 * order, up to 10 bins each.
 */
#define MODEL_NAME_LEN		32
#define MODEL_MAX_FEATURES	LC_NR_FEATURES
#define MODEL_MAX_BINS		10

struct model_feature {
	char name[MODEL_NAME_LEN];
	unsigned int n_bins;
	int64_t edges[MODEL_MAX_BINS - 1];	/* n_bins - 1, increasing */
	int32_t weights[MODEL_MAX_BINS];	/* n_bins */
};

struct model {
	unsigned int n_features;
	struct model_feature features[MODEL_MAX_FEATURES];
	int64_t bias;
	int64_t threshold;
	int64_t weight_scale;
	int auc_permille;	/* hold-out AUC x 1000; -1: not given */
};

/*
 * A model whose hold-out AUC is below this (x 1000) is about as good as
 * chance: cachectl warns, and ml_rank and ml_protect, whose min_auc knob
 * defaults to it, evict in their base order instead of scoring with it.
 */
#define MODEL_MIN_AUC_PERMILLE	550

/* True if @name is a valid model or feature name for the module. */
int model_name_valid(const char *name);

/*
 * Parses a model in LearnedCache's JSON export:
 *
 *   { "features": [ { "index": I, "name": "...", "n_bins": N,
 *                     "bin_edges": [...], "weights_int": [...] }, ... ],
 *     "bias_int": B, "threshold_int": T, "weight_scale": S }
 *
 * Exactly the nine LearnedCache features, each once: "index" (0-8, default
 * the position in the array) says which, "name" (optional) must be that
 * feature's name (page_dt1 .. idle).  "bin_edges" holds the N - 1
 * interior edges, or N + 1 edges including the outer two (as a quantile
 * discretizer exports them); they must increase and be >= 0, and at most
 * LC_DT_NONE for the time features.  Fractional edges are rounded up: an
 * integer x is in the bin above edge e iff x >= ceil(e).  "threshold_int"
 * defaults to 0.  "holdout_auc" (0 to 1, optional; lctrain writes it) is
 * kept as auc_permille.  Other keys are ignored.  The features are stored
 * in index order.
 * Returns 0, or -EINVAL with the reason in @err.
 */
int model_from_json(const char *json, struct model *m, struct ctl_err *err);

/*
 * The logit of feature vector @x (m->n_features values) as the module
 * scores it (module/models.c): the bias plus, per feature, the weight of
 * the bin @x falls in (bin b holds edges[b - 1] <= x < edges[b]).
 */
int64_t model_logit(const struct model *m, const int64_t *x);

/*
 * Writes @m named @name in the module's text format into @buf.
 * Returns the length, or -ENOSPC if @len is too small.
 */
int model_to_text(const struct model *m, const char *name, char *buf,
		  size_t len);

#endif /* CACHECTL_MODEL_H */
