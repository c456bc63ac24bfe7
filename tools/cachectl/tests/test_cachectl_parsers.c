// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of cachectl's parsers: LearnedCache JSON models and
 * their text form, --set VAR=VALUE against a real object's BTF, cgroup
 * paths, the debugfs histogram and the hit arithmetic of stats and top.
 * TAP output; exit 1 on any failure.
 *
 *   test_cachectl_parsers [DIR_WITH_knobs.bpf.o_AND_fifo.bpf.o]
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "../../tap.h"
#include "cgroup.h"
#include "effect.h"
#include "hist.h"
#include "model.h"
#include "policy_conf.h"
#include "setvar.h"
#include "struct_ops.h"

#ifndef BPF_OBJ_DIR
#define BPF_OBJ_DIR "."
#endif

/* ---- models ---- */

/* One bin, weight @w: the filler of the features a case is not about. */
#define FILLER(idx, w) \
	"{\"index\":" #idx ",\"n_bins\":1,\"bin_edges\":[],\"weights_int\":[" #w "]}"

/*
 * The nine features, given out of order by "index": page_ema (6) first,
 * page_dt1 (0) in its place, one without a name.
 */
static const char good_model[] =
"{ \"features\": ["
"  { \"index\": 6, \"name\": \"page_ema\", \"n_bins\": 2,"
"    \"bin_edges\": [0.0, 2.5, 99.0], \"weights_int\": [-1, 1] },"
"  { \"index\": 0, \"name\": \"page_dt1\", \"n_bins\": 3, \"bin_edges\": [10, 100],"
"    \"weights_int\": [5, -2, -9] },"
"  { \"index\": 1, \"n_bins\": 1, \"bin_edges\": [], \"weights_int\": [4] },"
	FILLER(2, 0) "," FILLER(3, 0) "," FILLER(4, 0) "," FILLER(5, 0) ","
	FILLER(7, 0) "," FILLER(8, 0) "],"
"  \"bias_int\": -7, \"threshold_int\": 3, \"weight_scale\": 1000.0 }";

static const char good_text[] =
"name m1\nbias -7\nthreshold 3\nweight_scale 1000\n"
"feature page_dt1 3 edges 10 100 weights 5 -2 -9\n"
"feature page_dt2 1 edges weights 4\n"
"feature inode_dt1 1 edges weights 0\n"
"feature inode_dt2 1 edges weights 0\n"
"feature distance 1 edges weights 0\n"
"feature file_pages 1 edges weights 0\n"
"feature page_ema 2 edges 3 weights -1 1\n"
"feature inode_ema 1 edges weights 0\n"
"feature idle 1 edges weights 0\n";

/*
 * A JSON model: feature 0 is @f0 (without an "index", so it is feature 0),
 * features 1..@n-1 are fillers, then the top-level fields @tail.
 */
static const char *model_json(const char *f0, int n, const char *tail)
{
	static char json[4096];
	size_t pos;
	int i;

	pos = snprintf(json, sizeof(json), "{\"features\":[%s", f0);
	for (i = 1; i < n; i++)
		pos += snprintf(json + pos, sizeof(json) - pos,
				",{\"index\":%d,\"n_bins\":1,\"bin_edges\":[],\"weights_int\":[0]}",
				i);
	snprintf(json + pos, sizeof(json) - pos, "],%s}", tail);
	return json;
}

#define TAIL "\"bias_int\":0,\"weight_scale\":1"
#define ONE_BIN "{\"n_bins\":1,\"bin_edges\":[],\"weights_int\":[1]}"

static void test_model_good(void)
{
	struct ctl_err err = { "" };
	char text[1024];
	struct model m;
	int ret;

	ret = model_from_json(good_model, &m, &err);
	check(!ret, "model: a valid model parses (%s)", err.msg);
	check(m.n_features == 9 && m.bias == -7 && m.threshold == 3 &&
	      m.weight_scale == 1000, "model: header fields");
	check(m.features[0].n_bins == 3 && m.features[0].edges[1] == 100 &&
	      m.features[0].weights[2] == -9,
	      "model: interior edges and weights, placed by index");
	check(!strcmp(m.features[1].name, "page_dt2"),
	      "model: a feature without a name gets its LearnedCache name");
	check(m.features[6].edges[0] == 3,
	      "model: outer edges dropped, 2.5 rounded up to 3");
	ret = model_to_text(&m, "m1", text, sizeof(text));
	check(ret == (int)strlen(good_text) && !strcmp(text, good_text),
	      "model: text form for the module, in feature order");
	check(model_to_text(&m, "m1", text, 40) == -ENOSPC,
	      "model: a short buffer gives -ENOSPC");

	ret = model_from_json(model_json(ONE_BIN, 9, TAIL), &m, &err);
	check(!ret && m.threshold == 0, "model: threshold_int defaults to 0");
	check(!ret && m.auc_permille == -1 && model_to_text(&m, "m", text, sizeof(text)) > 0 &&
	      !strstr(text, "auc"), "model: without holdout_auc, no auc line (the paper's export)");
	ret = model_from_json(model_json(ONE_BIN, 9,
					 TAIL ",\"holdout_auc\":0.5004,\"rows\":\"access\""),
			      &m, &err);
	check(!ret && m.auc_permille == 500 && model_to_text(&m, "m", text, sizeof(text)) > 0 &&
	      strstr(text, "\nauc 500\n"), "model: holdout_auc kept as auc x 1000 (%s)", err.msg);
	/* Format version 2: lctrain's ten features, page_ema_long last. */
	ret = model_from_json(model_json(ONE_BIN, 10, TAIL ",\"format_version\":2"), &m, &err);
	check(!ret && m.n_features == 10 && !strcmp(m.features[9].name, "page_ema_long") &&
	      model_to_text(&m, "m", text, sizeof(text)) > 0 &&
	      strstr(text, "\nfeature page_ema_long 1 edges weights 0\n"),
	      "model: format version 2 has ten features (%s)", err.msg);
	ret = model_from_json(model_json(ONE_BIN, 9, TAIL ",\"format_version\":1"), &m, &err);
	check(!ret && m.n_features == 9, "model: format version 1 said aloud (%s)", err.msg);
	ret = model_from_json(model_json(ONE_BIN, 9, TAIL ",\"holdout_auc\":1.5"), &m, &err);
	check(ret == -EINVAL && strstr(err.msg, "holdout_auc 1.5 is not between 0 and 1"),
	      "model: holdout_auc out of range: %s", err.msg);
	ret = model_from_json(model_json(ONE_BIN, 9, TAIL ",\"holdout_auc\":\"high\""), &m, &err);
	check(ret == -EINVAL && strstr(err.msg, "holdout_auc must be a number"),
	      "model: holdout_auc not a number: %s", err.msg);
}

static void test_model_bad(void)
{
	static const struct {
		const char *f0, *tail, *why, *msg;
		int n;
	} cases[] = {
		{ "{\"n_bins\":11,\"bin_edges\":[1,2,3,4,5,6,7,8,9,10],"
		  "\"weights_int\":[1,1,1,1,1,1,1,1,1,1,1]}", TAIL, "11 bins",
		  "\"n_bins\" out of range", 9 },
		{ "{\"n_bins\":3,\"bin_edges\":[5,5],\"weights_int\":[1,2,3]}",
		  TAIL, "equal edges", "increase strictly", 9 },
		{ "{\"n_bins\":3,\"bin_edges\":[9,2],\"weights_int\":[1,2,3]}",
		  TAIL, "decreasing edges", "increase strictly", 9 },
		{ "{\"n_bins\":3,\"bin_edges\":[1.2,1.7],\"weights_int\":[1,2,3]}",
		  TAIL, "edges equal once rounded", "as integers", 9 },
		{ "{\"n_bins\":3,\"bin_edges\":[-5,2],\"weights_int\":[1,2,3]}",
		  TAIL, "negative edge", "outside 0..", 9 },
		{ "{\"n_bins\":2,\"bin_edges\":[10000000001],\"weights_int\":[1,2]}",
		  TAIL, "time edge beyond LC_DT_NONE", "outside 0..10000000000", 9 },
		{ "{\"n_bins\":3,\"bin_edges\":[1],\"weights_int\":[1,2,3]}",
		  TAIL, "too few edges", "1 bin edges for 3 bins", 9 },
		{ "{\"n_bins\":2,\"bin_edges\":[1],\"weights_int\":[1]}",
		  TAIL, "too few weights", "1 weights for 2 bins", 9 },
		{ "{\"n_bins\":2,\"bin_edges\":[1],\"weights_int\":[1,3000000000]}",
		  TAIL, "weight beyond 32 bits", "weight 1 must be", 9 },
		{ "{\"n_bins\":2,\"bin_edges\":[1],\"weights_int\":[1,0.5]}",
		  TAIL, "fractional weight", "weight 1 must be", 9 },
		{ "{\"n_bins\":2,\"bin_edges\":[\"a\"],\"weights_int\":[1,2]}",
		  TAIL, "edge not a number", "bin edge 0", 9 },
		{ "{\"bin_edges\":[1],\"weights_int\":[1,2]}",
		  TAIL, "no n_bins", "missing \"n_bins\"", 9 },
		{ "{\"n_bins\":2,\"weights_int\":[1,2]}",
		  TAIL, "no bin_edges", "missing \"bin_edges\"", 9 },
		{ "{\"n_bins\":2,\"bin_edges\":[1]}",
		  TAIL, "no weights_int", "missing \"weights_int\"", 9 },
		{ "{\"n_bins\":1,\"bin_edges\":{},\"weights_int\":[1]}",
		  TAIL, "edges not an array", "must be an array", 9 },
		{ ONE_BIN, "\"weight_scale\":1", "no bias_int",
		  "missing \"bias_int\"", 9 },
		{ ONE_BIN, "\"bias_int\":0", "no weight_scale",
		  "missing \"weight_scale\"", 9 },
		{ ONE_BIN, "\"bias_int\":0,\"weight_scale\":0", "zero weight_scale",
		  "\"weight_scale\" out of range", 9 },
		{ ONE_BIN, "\"bias_int\":\"3\",\"weight_scale\":1", "bias a string",
		  "must be an integer", 9 },
		{ "{\"name\":\"page_dt2\",\"n_bins\":1,\"bin_edges\":[],\"weights_int\":[1]}",
		  TAIL, "another feature's name", "\"name\" must be \"page_dt1\"", 9 },
		{ "{\"name\":\"bad name\",\"n_bins\":1,\"bin_edges\":[],\"weights_int\":[1]}",
		  TAIL, "bad feature name", "\"name\" must be", 9 },
		{ "{\"index\":1,\"n_bins\":1,\"bin_edges\":[],\"weights_int\":[1]}",
		  TAIL, "a duplicated feature index", "index 1 is used twice", 9 },
		{ "{\"index\":9,\"n_bins\":1,\"bin_edges\":[],\"weights_int\":[1]}",
		  TAIL, "an index past the features", "\"index\" out of range", 9 },
		{ ONE_BIN, TAIL, "8 features", "8 features, but", 8 },
		{ ONE_BIN, TAIL, "10 features", "10 features, but", 10 },
		{ ONE_BIN, TAIL, "1 feature", "1 features, but", 1 },
		{ ONE_BIN, TAIL ",\"format_version\":2", "9 features in version 2",
		  "9 features, but a model of format version 2 has exactly 10", 9 },
		{ ONE_BIN, TAIL ",\"format_version\":3", "format version 3",
		  "\"format_version\" out of range", 10 },
		{ "{\"index\":10,\"n_bins\":1,\"bin_edges\":[],\"weights_int\":[1]}",
		  TAIL ",\"format_version\":2", "an index past version 2's features",
		  "\"index\" out of range", 10 },
		/* n = 0: f0 is the whole text. */
		{ "{\"features\": [", NULL, "truncated JSON", "not valid JSON", 0 },
		{ "[1, 2]", NULL, "not an object", "must be a JSON object", 0 },
		{ "{\"bias_int\":0,\"weight_scale\":1}", NULL, "no features",
		  "missing \"features\"", 0 },
		{ "{\"features\":[],\"bias_int\":0,\"weight_scale\":1}", NULL,
		  "zero features", "0 features", 0 },
	};
	struct ctl_err err;
	struct model m;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *json = cases[i].f0;

		if (cases[i].n)
			json = model_json(cases[i].f0, cases[i].n, cases[i].tail);

		err.msg[0] = '\0';
		check(model_from_json(json, &m, &err) == -EINVAL &&
		      strstr(err.msg, cases[i].msg),
		      "model: %s rejected: %s", cases[i].why, err.msg);
	}
}

/* ---- --set ---- */

static void test_setvar_split(void)
{
	static const char *const bad[] = { "novalue", "=5", "9x=1", "a-b=1", "a b=1" };
	struct ctl_err err;
	char buf[64], *var, *value;
	size_t i;

	strcpy(buf, "sample_size=32");
	check(!setvar_split(buf, &var, &value, &err) &&
	      !strcmp(var, "sample_size") && !strcmp(value, "32"),
	      "--set: VAR=VALUE splits");
	strcpy(buf, "label=");
	check(!setvar_split(buf, &var, &value, &err) && !*value,
	      "--set: an empty value is a value");
	strcpy(buf, "expr=a=b");
	check(!setvar_split(buf, &var, &value, &err) && !strcmp(value, "a=b"),
	      "--set: the value may contain '='");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strcpy(buf, bad[i]);
		check(setvar_split(buf, &var, &value, &err) == -EINVAL,
		      "--set: '%s' rejected: %s", bad[i], err.msg);
	}
}

/* The bytes of variable @name after setvar_apply(), found by libbpf. */
static void *var_bytes(struct bpf_object *obj, const char *section,
		       size_t off)
{
	struct bpf_map *map;
	size_t size;

	bpf_object__for_each_map(map, obj) {
		const char *dot = strrchr(bpf_map__name(map), '.');

		if (bpf_map__is_internal(map) && dot && !strcmp(dot, section))
			return (char *)bpf_map__initial_value(map, &size) + off;
	}
	return NULL;
}

static void test_setvar_apply(void)
{
	static const struct {
		const char *var, *value;
		int ret;
	} cases[] = {
		{ "small", "255", 0 }, { "small", "256", -ERANGE },
		{ "small", "-1", -ERANGE }, { "small", "0x10", 0 },
		{ "small", "12abc", -EINVAL }, { "small", "", -EINVAL },
		{ "offset", "-32768", 0 }, { "offset", "-32769", -ERANGE },
		{ "offset", "32767", 0 }, { "offset", "32768", -ERANGE },
		{ "big", "-9223372036854775808", 0 },
		{ "big", "9223372036854775808", -ERANGE },
		{ "ubig", "18446744073709551615", 0 },
		{ "ubig", "18446744073709551616", -ERANGE },
		{ "sample_size", "4294967295", 0 },
		{ "sample_size", "4294967296", -ERANGE },
		{ "sample_size", " 5", -EINVAL },
		{ "scan_resistant", "yes", 0 }, { "scan_resistant", "maybe", -EINVAL },
		{ "mode", "MODE_SLOW", 0 }, { "mode", "MODE_NEG", 0 },
		{ "mode", "2", 0 }, { "mode", "MODE_NONE", -EINVAL },
		{ "label", "1234567", 0 }, { "label", "12345678", -EINVAL },
		{ "pair", "1", -EINVAL }, { "numbers", "1", -EINVAL },
		{ "nosuch", "1", -ENOENT },
	};
	struct bpf_object *obj;
	struct ctl_err err;
	char names[256];
	size_t i;
	int ret;

	obj = bpf_object__open_file(BPF_OBJ_DIR "/knobs.bpf.o", NULL);
	if (!check(!!obj, "--set: open knobs.bpf.o from %s", BPF_OBJ_DIR))
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err.msg[0] = '\0';
		ret = setvar_apply(obj, cases[i].var, cases[i].value, &err);
		check(ret == cases[i].ret, "--set %s=%s -> %d (want %d) %s",
		      cases[i].var, cases[i].value, ret, cases[i].ret, err.msg);
	}

	/* Values land where the program reads them. */
	setvar_apply(obj, "sample_size", "32", &err);
	setvar_apply(obj, "small", "0xff", &err);
	setvar_apply(obj, "offset", "-300", &err);
	setvar_apply(obj, "label", "lfu", &err);
	setvar_apply(obj, "mode", "MODE_NEG", &err);
	setvar_apply(obj, "scan_resistant", "on", &err);
	check(*(__u32 *)var_bytes(obj, ".rodata", 0) == 32 ||
	      *(__u32 *)var_bytes(obj, ".rodata", 4) == 32,
	      "--set: a const volatile (.rodata) knob is written");
	setvar_list(obj, names, sizeof(names));
	check(strstr(names, "sample_size") && strstr(names, "label") &&
	      strstr(names, "big"), "--set: the knobs are listed: %s", names);

	err.msg[0] = '\0';
	setvar_apply(obj, "nosuch", "1", &err);
	check(strstr(err.msg, "has no global variable 'nosuch'") &&
	      strstr(err.msg, "sample_size"),
	      "--set: an unknown name lists the knobs: %s", err.msg);
	bpf_object__close(obj);
}

/* Reads back through a skeleton-free path: the object's section bytes. */
static void test_setvar_values(void)
{
	struct bpf_object *obj;
	struct ctl_err err;
	struct bpf_map *map;
	int found = 0;

	obj = bpf_object__open_file(BPF_OBJ_DIR "/knobs.bpf.o", NULL);
	if (!obj)
		return;
	setvar_apply(obj, "small", "200", &err);
	setvar_apply(obj, "offset", "-2", &err);
	setvar_apply(obj, "label", "abc", &err);
	bpf_object__for_each_map(map, obj) {
		const char *dot = strrchr(bpf_map__name(map), '.');
		size_t size, i;
		char *data;

		if (!bpf_map__is_internal(map) || !dot || strcmp(dot, ".data"))
			continue;
		data = bpf_map__initial_value(map, &size);
		/* small = 200 (0xc8), offset = -2 (0xfffe), label "abc" */
		for (i = 0; i + 1 < size; i++)
			found |= ((unsigned char)data[i] == 0xc8) << 0 |
				 (!memcmp(data + i, "\xfe\xff", 2)) << 1 |
				 (i + 4 <= size && !memcmp(data + i, "abc", 4)) << 2;
	}
	check(found == 7, "--set: the bytes in .data are the values set (%d)",
	      found);
	bpf_object__close(obj);
}

static void test_struct_ops_name(void)
{
	struct bpf_object *obj;
	struct bpf_map *map;
	char name[32];

	obj = bpf_object__open_file(BPF_OBJ_DIR "/fifo.bpf.o", NULL);
	if (!check(!!obj, "name: open fifo.bpf.o"))
		return;
	map = bpf_object__find_map_by_name(obj, "fifo");
	check(map && !struct_ops_get_name(obj, map, name, sizeof(name)) &&
	      !strcmp(name, "fifo"), "name: the object's own name is read");
	check(!struct_ops_set_name(obj, map, "fifo_b") &&
	      !struct_ops_get_name(obj, map, name, sizeof(name)) &&
	      !strcmp(name, "fifo_b"), "name: a new name is written");
	check(struct_ops_set_name(obj, map, "a_name_of_sixteen") == -ENAMETOOLONG,
	      "name: a name that does not fit is refused");
	bpf_object__close(obj);
}

/* ---- cgroup paths ---- */

static void test_cgroup_paths(void)
{
	static const struct {
		const char *mnt, *arg, *want;
	} good[] = {
		{ "/sys/fs/cgroup", "/sys/fs/cgroup/a/b", "/sys/fs/cgroup/a/b" },
		{ "/sys/fs/cgroup", "a/b", "/sys/fs/cgroup/a/b" },
		{ "/sys/fs/cgroup", "/a/b", "/sys/fs/cgroup/a/b" },
		{ "/sys/fs/cgroup", "a//b/", "/sys/fs/cgroup/a/b" },
		{ "/sys/fs/cgroup/", "db", "/sys/fs/cgroup/db" },
		{ "/sys/fs/cgroup", "", "/sys/fs/cgroup" },
		{ "/sys/fs/cgroup", "/", "/sys/fs/cgroup" },
		{ "/sys/fs/cgroup", "/sys/fs/cgroup", "/sys/fs/cgroup" },
		{ "/sys/fs/cgroup", "/sys/fs/cgroupx/a", "/sys/fs/cgroup/sys/fs/cgroupx/a" },
		{ "/sys/fs/cgroup", "a/..b/c.", "/sys/fs/cgroup/a/..b/c." },
	};
	static const char *const bad[] = { "..", "a/../b", "./a", "a/.", "/sys/fs/cgroup/.." };
	char out[64], lng[200];
	struct ctl_err err;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		check(!cgroup_resolve(good[i].mnt, good[i].arg, out, sizeof(out), &err) &&
		      !strcmp(out, good[i].want), "cgroup: '%s' -> %s",
		      good[i].arg, good[i].want);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check(cgroup_resolve("/sys/fs/cgroup", bad[i], out, sizeof(out), &err) == -EINVAL,
		      "cgroup: '%s' rejected: %s", bad[i], err.msg);
	memset(lng, 'x', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = '\0';
	check(cgroup_resolve("/sys/fs/cgroup", lng, out, sizeof(out), &err) == -ENAMETOOLONG,
	      "cgroup: a path longer than the buffer is refused");
	check(cgroup_resolve("/sys/fs/cgroup", "a/b/c", out, 20, &err) == -ENAMETOOLONG,
	      "cgroup: no truncated path is returned");
}

/* ---- histograms ---- */

static void test_hist(void)
{
	static const char text[] =
		"# evict_folios() decision time, ns: [from, to) count\n"
		"4096 8192 10\n16384 32768 89\n1048576 2097152 1\n# total 100\n";
	static const char *const bad[] = {
		"4096 8192 10\n# total 11\n",		/* sum differs */
		"4096 8000 10\n# total 10\n",		/* not a log2 bucket */
		"4096 8192 x\n# total 0\n",		/* not a number */
		"4096 8192 10\n",			/* no total */
		"4096 8192 5\n4096 8192 5\n# total 10\n",	/* bucket twice */
		"4096 8192 10 7\n# total 10\n",		/* extra field */
	};
	struct hist h;
	size_t i;

	check(!hist_parse(text, &h) && h.total == 100 && h.count[13] == 10 &&
	      h.count[15] == 89, "hist: the module's format parses");
	check(hist_quantile(&h, 0.5) == 32768 && hist_quantile(&h, 0.99) == 32768 &&
	      hist_quantile(&h, 1.0) == 2097152 && hist_quantile(&h, 0.05) == 8192,
	      "hist: median, p99, max, p5 are bucket upper bounds");
	check(!hist_parse("# total 0\n", &h) && hist_quantile(&h, 0.5) == 0,
	      "hist: an empty histogram");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check(hist_parse(bad[i], &h) == -EINVAL, "hist: malformed input %zu rejected", i);
}

/*
 * Hits and hit ratio as cachectl stats and top print them.  Readahead
 * makes misses count folios no read asked for: with enough of them
 * evicted unread, misses exceed accesses, and neither figure may go below
 * zero (make run once printed a hit ratio of -0.077).
 */
static void test_effect(void)
{
	struct effect cached = { .accesses = 1000, .misses = 250, .refaults = 9 };
	struct effect wasted = { .accesses = 30720, .misses = 33078 };
	struct effect none = { 0 }, then = { 400, 50, 4 }, d;

	check(effect_hits(&cached) == 750 && effect_hit_ratio(&cached) == 0.75,
	      "effect: hits are accesses - misses, the ratio over accesses");
	check(effect_hits(&wasted) == 0 && effect_hit_ratio(&wasted) == 0,
	      "effect: misses beyond accesses (readahead evicted unread) give 0, not a negative ratio");
	check(effect_hit_ratio(&none) == -1, "effect: no accesses, no ratio");
	/* LevelDB C under lfu: the LRU's fallback took most evictions. */
	check(policy_share(107987, 476554) > 0.1847 &&
	      policy_share(107987, 476554) < 0.1848 &&
	      policy_share(5, 0) == 1 && policy_share(0, 0) == -1,
	      "effect: the policy's share of the evictions, none before any");
	d = effect_delta(&cached, &then);
	check(d.accesses == 600 && d.misses == 200 && d.refaults == 5,
	      "effect: an interval is the difference of two readings");
	d = effect_delta(&then, &cached);
	check(d.accesses == 400 && d.misses == 50 && d.refaults == 4,
	      "effect: counters that went back are a new binding's, counted from 0");
}

/* ---- the policy configuration ---- */

static void test_conf_good(void)
{
	static const char text[] =
		"# the database\n"
		"bind unit:rocksdb.service lfu   # its cgroup\n"
		"\n"
		"policy lfu-big lfu sample=640 \tfreq_cap=15\n"
		"bind   /sys/fs/cgroup/search  mru\n"
		"bind db/readers lfu-big\n";
	struct policy_conf conf = { 0 };
	const struct conf_policy *p;
	struct ctl_err err;

	check(!policy_conf_parse(&conf, "a.conf", text, &err) &&
	      conf.nr_binds == 3 && conf.nr_policies == 1,
	      "conf: three binds and a policy read");
	check(conf.nr_binds == 3 && conf.binds[0].is_unit &&
	      !strcmp(conf.binds[0].target, "unit:rocksdb.service") &&
	      !strcmp(conf.binds[0].policy, "lfu") &&
	      !strcmp(conf.binds[0].where, "a.conf:2"),
	      "conf: a unit target, its policy and where it was written");
	check(conf.nr_binds == 3 && !conf.binds[1].is_unit &&
	      !strcmp(conf.binds[1].target, "search"),
	      "conf: a cgroup path target, from the root");
	p = policy_conf_policy(&conf, "lfu-big");
	check(p && !strcmp(p->object, "lfu") && p->nr_sets == 2 &&
	      !strcmp(p->sets[0], "sample=640") &&
	      !strcmp(p->sets[1], "freq_cap=15"),
	      "conf: a policy line's object and knobs");
	check(!policy_conf_policy(&conf, "lfu"),
	      "conf: no policy line is invented for a bind");
	check(!policy_conf_parse(&conf, "b.conf", "bind db/readers mru\n", &err) &&
	      conf.nr_binds == 3 && !strcmp(conf.binds[2].policy, "mru") &&
	      !strcmp(conf.binds[2].where, "b.conf:1"),
	      "conf: a later file's bind of the same target replaces it");
	check(!policy_conf_parse(&conf, "c.conf", "", &err) && conf.nr_binds == 3,
	      "conf: an empty file adds nothing");
	check(!policy_conf_parse(&conf, "d.conf", "bind search default\n", &err) &&
	      conf.nr_binds == 3 && !strcmp(conf.binds[1].policy, "default"),
	      "conf: a later file gives a cgroup back to the kernel's eviction");
	policy_conf_free(&conf);
}

static void test_conf_bad(void)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "bind db\n", "a:1: usage: bind TARGET POLICY" },
		{ "bind db lfu extra\n", "a:1: usage: bind TARGET POLICY" },
		{ "bnid db lfu\n", "a:1: unknown entry 'bnid'" },
		{ "\n\nbind ../x lfu\n", "a:3:" },
		{ "bind / lfu\n", "a:1: the root cgroup" },
		{ "bind unit:rocksdb lfu\n", "not a systemd unit name" },
		{ "bind unit:a/b.service lfu\n", "not a systemd unit name" },
		{ "bind db a/b\n", "not a policy name" },
		{ "bind db lfu\nbind /db mru\n", "a:2: db is bound at a:1 already" },
		{ "bind db/x lfu\nbind /sys/fs/cgroup/db//x/ mru\n",
		  "a:2: db/x is bound at a:1 already" },
		{ "bind db lfu\nbind db lfu\n", "a:2: db is bound at a:1 already" },
		{ "policy x\n", "usage: policy NAME OBJECT" },
		{ "policy default lfu\n", "'default' is not a policy name" },
		{ "policy x lfu knob\n", "'knob' is not VAR=VALUE" },
		{ "policy x lfu =1\n", "'=1' is not VAR=VALUE" },
		{ "policy x lfu\npolicy x mru\n", "a:2: policy x is defined at a:1" },
	};
	struct policy_conf conf;
	struct ctl_err err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&conf, 0, sizeof(conf));
		err.msg[0] = '\0';
		check(policy_conf_parse(&conf, "a", bad[i].text, &err) == -EINVAL &&
		      strstr(err.msg, bad[i].why),
		      "conf: refused with '%s': %s", bad[i].why, err.msg);
		policy_conf_free(&conf);
	}
}

static void test_conf_files(void)
{
	char dir[] = "/tmp/conf_testXXXXXX", path[PATH_MAX];
	struct policy_conf conf = { 0 };
	struct ctl_err err;
	FILE *f;

	if (!check(!!mkdtemp(dir), "conf: a scratch directory"))
		return;
	snprintf(path, sizeof(path), "%s/20-later.conf", dir);
	f = fopen(path, "w");
	fputs("bind db mru\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/10-first.conf", dir);
	f = fopen(path, "w");
	fputs("bind db lfu\nbind web fifo\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/README", dir);
	f = fopen(path, "w");
	fputs("not a configuration\n", f);
	fclose(f);
	check(!policy_conf_read(&conf, dir, &err) && conf.nr_files == 2 &&
	      conf.nr_binds == 2 && !strcmp(conf.binds[0].policy, "mru"),
	      "conf: a directory's *.conf in name order, the later one winning");
	policy_conf_free(&conf);
	snprintf(path, sizeof(path), "%s/10-first.conf", dir);
	check(!policy_conf_read(&conf, path, &err) && conf.nr_files == 1 &&
	      !strcmp(conf.binds[0].policy, "lfu"), "conf: one file");
	policy_conf_free(&conf);
	snprintf(path, sizeof(path), "%s/missing.conf", dir);
	check(policy_conf_read(&conf, path, &err) == -ENOENT &&
	      strstr(err.msg, "missing.conf"),
	      "conf: a missing --config file is an error: %s", err.msg);
	policy_conf_free(&conf);
	snprintf(path, sizeof(path), "rm -r %s", dir);
	check(!system(path), "conf: scratch directory removed");
}

static void test_unit_paths(void)
{
	static const struct {
		const char *unit, *slice, *want;
	} good[] = {
		{ "rocksdb.service", "system.slice", "system.slice/rocksdb.service" },
		{ "rocksdb.service", "", "system.slice/rocksdb.service" },
		{ "x.service", "db-fast.slice", "db.slice/db-fast.slice/x.service" },
		{ "x.scope", "-.slice", "x.scope" },
		{ "search.slice", "ignored.slice", "search.slice" },
		{ "a-b-c.slice", NULL, "a.slice/a-b.slice/a-b-c.slice" },
		{ "-.slice", NULL, "" },
		{ "user@1000.service", "user.slice", "user.slice/user@1000.service" },
	};
	static const char *const bad[] = {
		"rocksdb", "a/b.service", "a b.service", ".service",
	};
	char out[128];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		check(!unit_cgroup_path(good[i].unit, good[i].slice, out,
					sizeof(out)) &&
		      !strcmp(out, good[i].want), "unit: %s in %s -> '%s'",
		      good[i].unit, good[i].slice ?: "(none)", good[i].want);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check(unit_cgroup_path(bad[i], NULL, out, sizeof(out)) == -EINVAL,
		      "unit: '%s' is not a unit", bad[i]);
	check(unit_cgroup_path("a-b.slice", NULL, out, 10) == -EINVAL,
	      "unit: no truncated path is returned");
}

int main(int argc, char **argv)
{
	libbpf_set_print(NULL);
	printf("TAP version 13\n");
	test_model_good();
	test_model_bad();
	test_setvar_split();
	test_setvar_apply();
	test_setvar_values();
	test_struct_ops_name();
	test_cgroup_paths();
	test_hist();
	test_effect();
	test_conf_good();
	test_conf_bad();
	test_conf_files();
	test_unit_paths();
	return tap_done();
}
