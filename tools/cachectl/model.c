// SPDX-License-Identifier: GPL-2.0
/*
 * LearnedCache JSON models to the text format of the module's model store.
 * Everything the module would reject is rejected here first, with a
 * message that names the feature and the field.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "model.h"

int model_name_valid(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= MODEL_NAME_LEN)
		return 0;
	for (; *name; name++)
		if (!isalnum((unsigned char)*name) && !strchr("_.-", *name))
			return 0;
	return 1;
}

/* An integer JSON number (an integral double is accepted) into @out. */
static int json_int(struct json_object *o, int64_t min, int64_t max,
		    int64_t *out)
{
	double d;

	if (json_object_is_type(o, json_type_int)) {
		errno = 0;
		*out = json_object_get_int64(o);
		if (errno)
			return -ERANGE;
	} else if (json_object_is_type(o, json_type_double)) {
		d = json_object_get_double(o);
		if (d != floor(d) || d < -9.2e18 || d > 9.2e18)
			return -EINVAL;
		*out = (int64_t)d;
	} else {
		return -EINVAL;
	}
	return *out < min || *out > max ? -ERANGE : 0;
}

/* A bin edge: any number, rounded up to the next integer. */
static int json_edge(struct json_object *o, int64_t *out)
{
	double d;

	if (json_object_is_type(o, json_type_int))
		return json_int(o, INT64_MIN, INT64_MAX, out);
	if (!json_object_is_type(o, json_type_double))
		return -EINVAL;
	d = ceil(json_object_get_double(o));
	if (!isfinite(d) || d < -9.2e18 || d > 9.2e18)
		return -ERANGE;
	*out = (int64_t)d;
	return 0;
}

static int get_int(struct json_object *obj, const char *key, int64_t min,
		   int64_t max, int64_t *out, int optional,
		   const char *where, struct ctl_err *err)
{
	struct json_object *o;
	int ret;

	if (!json_object_object_get_ex(obj, key, &o)) {
		if (optional)
			return 0;
		return ctl_errf(err, "%s: missing \"%s\"", where, key);
	}
	ret = json_int(o, min, max, out);
	if (ret == -ERANGE)
		return ctl_errf(err, "%s: \"%s\" out of range [%lld, %lld]",
				where, key, (long long)min, (long long)max);
	if (ret)
		return ctl_errf(err, "%s: \"%s\" must be an integer", where,
				key);
	return 0;
}

static struct json_object *get_array(struct json_object *obj, const char *key,
				     const char *where, struct ctl_err *err)
{
	struct json_object *o;

	if (!json_object_object_get_ex(obj, key, &o)) {
		ctl_errf(err, "%s: missing \"%s\"", where, key);
		return NULL;
	}
	if (!json_object_is_type(o, json_type_array)) {
		ctl_errf(err, "%s: \"%s\" must be an array", where, key);
		return NULL;
	}
	return o;
}

static const char *const lc_feature_names[LC_NR_FEATURES] = LC_FEATURE_NAMES;

/*
 * Parse the feature at position @pos of the array into its slot of @m, by
 * its "index" (below @m->n_features); @seen marks the slots filled so far.
 */
static int parse_feature(struct json_object *jf, unsigned int pos,
			 struct model *m, unsigned int *seen,
			 struct ctl_err *err)
{
	struct json_object *edges, *weights, *o;
	struct model_feature *f;
	size_t n_edges, skip, i;
	int64_t v, idx = pos, max_edge;
	char where[64];

	snprintf(where, sizeof(where), "feature %u", pos);
	if (!json_object_is_type(jf, json_type_object))
		return ctl_errf(err, "%s: must be an object", where);

	if (get_int(jf, "index", 0, m->n_features - 1, &idx, 1, where, err))
		return -EINVAL;
	if (*seen & (1u << idx))
		return ctl_errf(err, "%s: index %lld is used twice (each of the %u features once)",
				where, (long long)idx, m->n_features);
	*seen |= 1u << idx;
	f = &m->features[idx];
	strcpy(f->name, lc_feature_names[idx]);

	if (json_object_object_get_ex(jf, "name", &o) &&
	    (!json_object_is_type(o, json_type_string) ||
	     strcmp(json_object_get_string(o), f->name)))
		return ctl_errf(err, "%s: \"name\" must be \"%s\", the name of feature %lld",
				where, f->name, (long long)idx);
	snprintf(where, sizeof(where), "feature %lld (%s)", (long long)idx,
		 f->name);

	if (get_int(jf, "n_bins", 1, MODEL_MAX_BINS, &v, 0, where, err))
		return -EINVAL;
	f->n_bins = v;

	edges = get_array(jf, "bin_edges", where, err);
	weights = get_array(jf, "weights_int", where, err);
	if (!edges || !weights)
		return -EINVAL;

	n_edges = json_object_array_length(edges);
	if (n_edges == f->n_bins - 1)
		skip = 0;
	else if (n_edges == f->n_bins + 1)
		skip = 1;	/* outer edges included: drop them */
	else
		return ctl_errf(err, "%s: %zu bin edges for %u bins (want %u interior or %u with the outer two)",
				where, n_edges, f->n_bins, f->n_bins - 1,
				f->n_bins + 1);
	max_edge = lc_feature_is_time(idx) ? (int64_t)LC_DT_NONE : INT64_MAX;
	for (i = 0; i + 1 < f->n_bins; i++) {
		if (json_edge(json_object_array_get_idx(edges, i + skip),
			      &f->edges[i]))
			return ctl_errf(err, "%s: bin edge %zu is not a number in range",
					where, i + skip);
		if (f->edges[i] < 0 || f->edges[i] > max_edge)
			return ctl_errf(err, "%s: bin edge %zu = %lld is outside 0..%lld",
					where, i + skip, (long long)f->edges[i],
					(long long)max_edge);
		if (i && f->edges[i] <= f->edges[i - 1])
			return ctl_errf(err, "%s: bin edges must increase strictly (edge %zu = %lld after %lld, as integers)",
					where, i + skip, (long long)f->edges[i],
					(long long)f->edges[i - 1]);
	}

	if (json_object_array_length(weights) != f->n_bins)
		return ctl_errf(err, "%s: %zu weights for %u bins", where,
				json_object_array_length(weights), f->n_bins);
	for (i = 0; i < f->n_bins; i++) {
		if (json_int(json_object_array_get_idx(weights, i), INT32_MIN,
			     INT32_MAX, &v))
			return ctl_errf(err, "%s: weight %zu must be an integer in 32 bits",
					where, i);
		f->weights[i] = v;
	}
	return 0;
}

int model_from_json(const char *json, struct model *m, struct ctl_err *err)
{
	enum json_tokener_error jerr;
	struct json_object *root, *features, *auc;
	unsigned int i, n, want, seen = 0;
	int64_t version = 1;
	int ret = -EINVAL;

	memset(m, 0, sizeof(*m));
	root = json_tokener_parse_verbose(json, &jerr);
	if (!root)
		return ctl_errf(err, "not valid JSON: %s",
				json_tokener_error_desc(jerr));
	if (!json_object_is_type(root, json_type_object)) {
		ctl_errf(err, "the model must be a JSON object");
		goto out;
	}

	/*
	 * Format version 1, LearnedCache's (no "format_version"): its nine
	 * features; version 2, lctrain's: page_ema_long too.
	 */
	if (get_int(root, "format_version", 1, LC_MODEL_FORMAT, &version, 1, "model", err))
		goto out;
	want = version == 1 ? LC_NR_FEATURES_V1 : LC_NR_FEATURES;
	features = get_array(root, "features", "model", err);
	if (!features)
		goto out;
	n = json_object_array_length(features);
	if (n != want) {
		ctl_errf(err, "model: %u features, but a model of format version %lld has exactly %u (%s)",
			 n, (long long)version, want,
			 version == 1 ? "page_dt1 .. idle, LearnedCache's" :
					"page_dt1 .. page_ema_long, as lctrain exports them");
		goto out;
	}
	m->n_features = n;
	for (i = 0; i < n; i++)
		if (parse_feature(json_object_array_get_idx(features, i), i,
				  m, &seen, err))
			goto out;

	m->auc_permille = -1;
	if (json_object_object_get_ex(root, "holdout_auc", &auc)) {
		double v = json_object_get_double(auc);

		if (!json_object_is_type(auc, json_type_double) &&
		    !json_object_is_type(auc, json_type_int)) {
			ctl_errf(err, "model: holdout_auc must be a number");
			goto out;
		}
		if (!(v >= 0 && v <= 1)) {
			ctl_errf(err, "model: holdout_auc %g is not between 0 and 1", v);
			goto out;
		}
		m->auc_permille = (int)lround(v * 1000);
	}
	if (get_int(root, "bias_int", INT64_MIN, INT64_MAX, &m->bias, 0,
		    "model", err) ||
	    get_int(root, "threshold_int", INT64_MIN, INT64_MAX, &m->threshold,
		    1, "model", err) ||
	    get_int(root, "weight_scale", 1, INT64_MAX, &m->weight_scale, 0,
		    "model", err))
		goto out;
	ret = 0;
out:
	json_object_put(root);
	return ret;
}

/* snprintf at *@pos, failing for good once the buffer is full. */
__attribute__((format(printf, 4, 5)))
static int put(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= len)
		return -ENOSPC;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *pos) {
		*pos = len;
		return -ENOSPC;
	}
	*pos += n;
	return 0;
}

int model_to_text(const struct model *m, const char *name, char *buf,
		  size_t len)
{
	size_t pos = 0;
	unsigned int i, j;
	int ret;

	ret = put(buf, len, &pos, "name %s\nbias %lld\nthreshold %lld\nweight_scale %lld\n",
		  name, (long long)m->bias, (long long)m->threshold,
		  (long long)m->weight_scale);
	if (!ret && m->auc_permille >= 0)
		ret = put(buf, len, &pos, "auc %d\n", m->auc_permille);
	for (i = 0; !ret && i < m->n_features; i++) {
		const struct model_feature *f = &m->features[i];

		ret = put(buf, len, &pos, "feature %s %u edges", f->name,
			  f->n_bins);
		for (j = 0; !ret && j + 1 < f->n_bins; j++)
			ret = put(buf, len, &pos, " %lld",
				  (long long)f->edges[j]);
		ret = ret ?: put(buf, len, &pos, " weights");
		for (j = 0; !ret && j < f->n_bins; j++)
			ret = put(buf, len, &pos, " %d", f->weights[j]);
		ret = ret ?: put(buf, len, &pos, "\n");
	}
	return ret ?: (int)pos;
}

int64_t model_logit(const struct model *m, const int64_t *x)
{
	int64_t logit = m->bias;
	unsigned int i, bin;

	for (i = 0; i < m->n_features; i++) {
		const struct model_feature *f = &m->features[i];

		for (bin = 0; bin + 1 < f->n_bins && x[i] >= f->edges[bin]; bin++)
			;
		logit += f->weights[bin];
	}
	return logit;
}
