// SPDX-License-Identifier: GPL-2.0
/*
 * The model kfuncs of cache_ext_ctl's model store, on the host: models
 * are LearnedCache JSON exports (cachectl model load's input) named on
 * the command line, parsed by cachectl's own parser and scored as the
 * module scores them (module/models.c): per feature the weight of the
 * bin its value falls in, plus the bias.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "sim.h"

#define SIM_MAX_MODELS	8

struct named_model {
	char name[MODEL_NAME_LEN];
	struct model m;
};

static struct named_model models[SIM_MAX_MODELS];
static unsigned int nr_models;

static char *slurp(const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long size;

	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (size >= 0 && !fseek(f, 0, SEEK_SET))
		buf = malloc(size + 1);
	if (!buf || fread(buf, 1, size, f) != (size_t)size) {
		snprintf(err, len, "%s: cannot read", path);
		free(buf);
		buf = NULL;
	} else {
		buf[size] = '\0';
	}
	fclose(f);
	return buf;
}

int sim_models_load(const struct sim_model_file *files, unsigned int nr,
		    char *err, size_t len)
{
	struct ctl_err cerr;
	unsigned int i;

	nr_models = 0;
	if (nr > SIM_MAX_MODELS) {
		snprintf(err, len, "at most %d models", SIM_MAX_MODELS);
		return -E2BIG;
	}
	for (i = 0; i < nr; i++) {
		struct named_model *nm = &models[nr_models];
		char *json;
		int ret;

		if (!model_name_valid(files[i].name)) {
			snprintf(err, len, "'%s' is not a valid model name", files[i].name);
			return -EINVAL;
		}
		json = slurp(files[i].path, err, len);
		if (!json)
			return -ENOENT;
		ret = model_from_json(json, &nm->m, &cerr);
		free(json);
		if (ret) {
			snprintf(err, len, "%s: %s", files[i].path, cerr.msg);
			return ret;
		}
		snprintf(nm->name, sizeof(nm->name), "%s", files[i].name);
		nr_models++;
	}
	return 0;
}

static const struct model *find(const char *name)
{
	unsigned int i;

	for (i = 0; i < nr_models; i++)
		if (!strncmp(models[i].name, name, MODEL_NAME_LEN))
			return &models[i].m;
	return NULL;
}

int bpf_cache_ext_model_score(const char *name, const __s64 *features,
			      __u32 features__sz, __s64 *logit)
{
	const struct model *m = find(name);
	int64_t x[MODEL_MAX_FEATURES];

	if (!m)
		return -ENOENT;
	/* As the module: at least the model's features, the first scored. */
	if (features__sz < m->n_features * sizeof(*features))
		return -EINVAL;
	memcpy(x, features, m->n_features * sizeof(*features));
	*logit = model_logit(m, x);
	return 0;
}

int bpf_cache_ext_model_auc(const char *name, __u32 *permille)
{
	const struct model *m = find(name);

	if (!m)
		return -ENOENT;
	if (m->auc_permille < 0)
		return -ENODATA;
	*permille = m->auc_permille;
	return 0;
}

int bpf_cache_ext_model_threshold(const char *name, __s64 *threshold)
{
	const struct model *m = find(name);

	if (!m)
		return -ENOENT;
	*threshold = m->threshold;
	return 0;
}
