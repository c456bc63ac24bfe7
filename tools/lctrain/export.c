// SPDX-License-Identifier: GPL-2.0
/*
 * The model as LearnedCache's JSON export, read by `cachectl model load`:
 * format version 2, the paper's nine features and page_ema_long.
 */
#include <errno.h>
#include <math.h>

#include <json-c/json.h>

#include "lc_model.h"

int lc_model_write_json(const struct lc_model *m, int64_t scale,
			int64_t threshold, const struct lc_model_info *info,
			const char *path)
{
	struct json_object *root = json_object_new_object();
	struct json_object *features = json_object_new_array();
	unsigned int i;
	int f, ret;

	for (f = 0; f < LC_NR_FEATURES; f++) {
		struct json_object *jf = json_object_new_object();
		struct json_object *edges = json_object_new_array();
		struct json_object *weights = json_object_new_array();
		const struct lc_bins *b = &m->bins[f];

		for (i = 0; i + 1 < b->n_bins; i++)
			json_object_array_add(edges, json_object_new_int64(b->edges[i]));
		for (i = 0; i < b->n_bins; i++)
			json_object_array_add(weights,
					      json_object_new_int64(llround(m->w[f][i] * scale)));
		json_object_object_add(jf, "name", json_object_new_string(lc_feature_names[f]));
		json_object_object_add(jf, "n_bins", json_object_new_int(b->n_bins));
		json_object_object_add(jf, "bin_edges", edges);
		json_object_object_add(jf, "weights_int", weights);
		json_object_array_add(features, jf);
	}
	json_object_object_add(root, "format_version", json_object_new_int(LC_MODEL_FORMAT));
	json_object_object_add(root, "features", features);
	json_object_object_add(root, "bias_int", json_object_new_int64(llround(m->bias * scale)));
	json_object_object_add(root, "threshold_int", json_object_new_int64(threshold));
	json_object_object_add(root, "weight_scale", json_object_new_int64(scale));
	if (info) {
		json_object_object_add(root, "holdout_auc",
				       json_object_new_double(round(info->holdout_auc * 1e4) /
							      1e4));
		json_object_object_add(root, "rows", json_object_new_string(info->rows));
	}
	ret = json_object_to_file_ext(path, root, JSON_C_TO_STRING_PRETTY) ? -EIO : 0;
	json_object_put(root);
	return ret;
}
