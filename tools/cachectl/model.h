/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Models exported by the LearnedCache trainer (JSON) and the text format of
 * the cache_ext_ctl model store (/sys/kernel/cache_ext/models/load).
 */
#ifndef CACHECTL_MODEL_H
#define CACHECTL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "ctl_err.h"

/* The limits of the module's model store. */
#define MODEL_NAME_LEN		32
#define MODEL_MAX_FEATURES	16
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
};

/* True if @name is a valid model or feature name for the module. */
int model_name_valid(const char *name);

/*
 * Parses a model in LearnedCache's JSON export:
 *
 *   { "features": [ { "name": "...", "n_bins": N,
 *                     "bin_edges": [...], "weights_int": [...] }, ... ],
 *     "bias_int": B, "threshold_int": T, "weight_scale": S }
 *
 * "bin_edges" holds the N - 1 interior edges, or N + 1 edges including the
 * outer two (as a quantile discretizer exports them).  Fractional edges are
 * rounded up: an integer x is in the bin above edge e iff x >= ceil(e).
 * "name" defaults to f<index>; "threshold_int" defaults to 0.
 * Returns 0, or -EINVAL with the reason in @err.
 */
int model_from_json(const char *json, struct model *m, struct ctl_err *err);

/*
 * Writes @m named @name in the module's text format into @buf.
 * Returns the length, or -ENOSPC if @len is too small.
 */
int model_to_text(const struct model *m, const char *name, char *buf,
		  size_t len);

#endif /* CACHECTL_MODEL_H */
