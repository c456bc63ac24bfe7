// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl model load / show / unload: LearnedCache JSON models into the
 * module's model store (/sys/kernel/cache_ext/models/).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachectl.h"
#include "model.h"

static const char model_usage[] =
"usage: cachectl model load NAME FILE.json\n"
"       cachectl model show NAME [--full]\n"
"       cachectl model unload NAME\n"
"\n"
"load    checks FILE.json (LearnedCache's export: features[].{index, name,\n"
"        n_bins, bin_edges, weights_int}, bias_int, threshold_int,\n"
"        weight_scale) and puts it in the module's model store as NAME,\n"
"        replacing a model of that name at once for the policies that score\n"
"        with it.  A model has exactly the 9 features ml_protect and ml_rank\n"
"        score (page_dt1 .. idle, as lctrain exports them), each once, with\n"
"        increasing bin edges >= 0.  A model whose holdout_auc (lctrain\n"
"        writes it) is below 0.55 has no signal to speak of: load warns, and\n"
"        ml_rank and ml_protect evict in their base order (FIFO) with it\n"
"        unless their min_auc knob is lowered\n"
"show    the stored model's summary (version, features, bins); --full dumps\n"
"        edges and weights too (from debugfs)\n"
"unload  removes NAME from the store\n";

/* Reads a whole file; NULL with a message on failure. */
static char *slurp(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f || !buf) {
		ctl_warn("cannot read %s: %s", path, strerror(errno));
		goto fail;
	}
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			char *bigger = cap < (64 << 20) ? realloc(buf, cap * 2) : NULL;

			if (!bigger) {
				ctl_warn("%s is too large for a model", path);
				goto fail;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		ctl_warn("cannot read %s: %s", path, strerror(errno));
		goto fail;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
fail:
	if (f)
		fclose(f);
	free(buf);
	return NULL;
}

static int model_load(const char *name, const char *file)
{
	static char text[64 * 1024];
	struct ctl_err err;
	struct model m;
	char *json;
	int ret;

	if (!model_name_valid(name)) {
		ctl_warn("'%s' is not a model name (1-%d characters of [A-Za-z0-9_.-])",
			 name, MODEL_NAME_LEN - 1);
		return EXIT_USAGE;
	}
	json = slurp(file);
	if (!json)
		return EXIT_FAIL;
	ret = model_from_json(json, &m, &err);
	free(json);
	if (ret) {
		ctl_warn("%s: %s", file, err.msg);
		return EXIT_FAIL;
	}
	if (model_to_text(&m, name, text, sizeof(text)) < 0) {
		ctl_warn("%s: the model is too large", file);
		return EXIT_FAIL;
	}
	if (need_root("model load") || need_module())
		return EXIT_FAIL;
	ret = write_text(CTL_SYSFS "/models/load", text);
	if (ret) {
		ctl_warn("the module refused model '%s': %s (see dmesg)", name,
			 strerror(-ret));
		return EXIT_FAIL;
	}
	printf("loaded model %s: %u features", name, m.n_features);
	if (m.auc_permille >= 0)
		printf(", hold-out AUC %.3f", m.auc_permille / 1000.0);
	printf("\n");
	if (m.auc_permille >= 0 && m.auc_permille < MODEL_MIN_AUC_PERMILLE)
		ctl_warn("model %s: hold-out AUC %.3f is about chance: ml_rank and ml_protect will evict in FIFO order with it, not score (their min_auc knob, %d by default)",
			 name, m.auc_permille / 1000.0, MODEL_MIN_AUC_PERMILLE);
	return 0;
}

static int model_show(const char *name, int full)
{
	char path[PATH_MAX], text[64 * 1024], *line, *next;
	int in_model = 0;
	long n;

	if (!model_name_valid(name) || need_module())
		return !model_name_valid(name) ? EXIT_USAGE : EXIT_FAIL;
	snprintf(path, sizeof(path), "%s/models/%s/summary", CTL_SYSFS, name);
	if (!full) {
		n = read_text(path, text, sizeof(text));
		if (n < 0) {
			ctl_warn("no model '%s' is loaded", name);
			return EXIT_FAIL;
		}
		fputs(text, stdout);
		return 0;
	}
	n = read_text(CTL_DEBUGFS "/models", text, sizeof(text));
	if (n < 0) {
		ctl_warn("cannot read %s/models: %s (is debugfs mounted?)",
			 CTL_DEBUGFS, strerror(-n));
		return EXIT_FAIL;
	}
	/* The dump has every model, each starting with its "name" line. */
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "name ", 5))
			in_model = !strcmp(line + 5, name);
		if (in_model)
			puts(line);
	}
	return 0;
}

int cmd_model(int argc, char **argv)
{
	if (wants_help(argc, argv, model_usage))
		return 0;
	if (argc == 4 && !strcmp(argv[1], "load"))
		return model_load(argv[2], argv[3]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "show") &&
	    (argc == 3 || !strcmp(argv[3], "--full")))
		return model_show(argv[2], argc == 4);
	if (argc == 3 && !strcmp(argv[1], "unload")) {
		if (need_root("model unload") || need_module())
			return EXIT_FAIL;
		if (write_text(CTL_SYSFS "/models/unload", argv[2])) {
			ctl_warn("no model '%s' is loaded", argv[2]);
			return EXIT_FAIL;
		}
		printf("unloaded model %s\n", argv[2]);
		return 0;
	}
	fputs(model_usage, stderr);
	return EXIT_USAGE;
}
