// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext_ctl: the model store and the scoring kfunc.
 *
 * A model is a perceptron over binned features (LearnedCache): for each
 * feature, the value's bin is found by the feature's bin edges and that
 * bin's integer weight is added; the bias is added; the sum is the logit.
 * Models are loaded as text through /sys/kernel/cache_ext/models/load,
 * validated completely, and swapped in under RCU, so that policies score
 * without locks while a model is replaced.  The text format (one item per
 * line, '#' starts a comment):
 *
 *   name <model name>                    first, [A-Za-z0-9_.-], < 32 chars
 *   bias <integer>
 *   threshold <integer>
 *   weight_scale <positive integer>
 *   auc <0..1000>                        optional: hold-out AUC x 1000
 *   feature <name> <n_bins> edges <e_1> .. <e_{n-1}> weights <w_1> .. <w_n>
 *
 * The store holds models for the LearnedCache policies (ml_protect,
 * ml_rank), which score the features of bpf/include/lc_features.h.  A
 * model has LearnedCache's nine (page_dt1 .. idle: format version 1) or
 * all ten (page_ema_long too: version 2), each once, named and ordered
 * as there; 1 to 10 bins each; edges strictly increasing, never
 * negative (no feature is), and at most LC_DT_NONE for the time features.
 * Value x falls in bin i when e_i <= x < e_{i+1} (e_0 = -inf,
 * e_n = +inf).  A model that breaks any rule is refused whole.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/kobject.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "internal.h"
#include "lc_features.h"

#define MODEL_NAME_LEN		32
#define MODEL_MAX_FEATURES	LC_NR_FEATURES
#define MODEL_MAX_BINS		10

static const char *const lc_feature_names[LC_NR_FEATURES] = LC_FEATURE_NAMES;

struct model_feature {
	char name[MODEL_NAME_LEN];
	u32 n_bins;
	s64 edges[MODEL_MAX_BINS - 1];
	s32 weights[MODEL_MAX_BINS];
};

struct model {
	struct list_head node;		/* on models, RCU */
	struct rcu_head rcu;
	char name[MODEL_NAME_LEN];
	u64 version;
	s64 bias;
	s64 threshold;
	s64 weight_scale;
	s32 auc;			/* hold-out AUC x 1000; -1: unknown */
	u32 n_features;
	struct model_feature features[MODEL_MAX_FEATURES];
};

/* A model's directory: models/<name>/summary. */
struct model_dir {
	struct kobject kobj;
	struct list_head node;
	char name[MODEL_NAME_LEN];
};

static LIST_HEAD(models);		/* RCU for readers, models_lock */
static LIST_HEAD(model_dirs);		/* models_lock */
static DEFINE_MUTEX(models_lock);
static u64 model_version;
static struct kobject *models_kobj;
static struct dentry *models_dump;

static struct model *model_find(const char *name)
{
	struct model *m;

	list_for_each_entry_rcu(m, &models, node, lockdep_is_held(&models_lock))
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

/* ---- parsing ---- */

static bool valid_name(const char *s)
{
	size_t len = strlen(s);

	if (!len || len >= MODEL_NAME_LEN)
		return false;
	for (; *s; s++)
		if (!isalnum(*s) && *s != '_' && *s != '.' && *s != '-')
			return false;
	return true;
}

/* Next whitespace-separated token of *@pos, or NULL at the end. */
static char *next_token(char **pos)
{
	char *tok;

	do {
		tok = strsep(pos, " \t");
	} while (tok && !*tok);
	return tok;
}

static int parse_s64(char **pos, s64 *val)
{
	char *tok = next_token(pos);

	return tok ? kstrtos64(tok, 10, val) : -EINVAL;
}

/*
 * Parse feature number @idx.  Errors: -EINVAL for a syntax error or a name
 * other than the idx-th LearnedCache feature's (a duplicate, a missing or
 * a reordered feature), -ERANGE for a bin count or an edge out of range,
 * -EDOM for edges that do not increase.
 */
static int parse_feature(char *line, u32 idx, struct model_feature *f)
{
	char *tok, *pos = line;
	s64 val, max_edge;
	u32 i;
	int ret;

	tok = next_token(&pos);
	if (!tok || strcmp(tok, lc_feature_names[idx]))
		return -EINVAL;
	strscpy(f->name, tok, sizeof(f->name));
	tok = next_token(&pos);
	if (!tok || kstrtou32(tok, 10, &f->n_bins))
		return -EINVAL;
	if (f->n_bins < 1 || f->n_bins > MODEL_MAX_BINS)
		return -ERANGE;

	max_edge = lc_feature_is_time(idx) ? LC_DT_NONE : S64_MAX;
	tok = next_token(&pos);
	if (!tok || strcmp(tok, "edges"))
		return -EINVAL;
	for (i = 0; i + 1 < f->n_bins; i++) {
		ret = parse_s64(&pos, &f->edges[i]);
		if (ret)
			return ret;
		if (f->edges[i] < 0 || f->edges[i] > max_edge)
			return -ERANGE;
		if (i && f->edges[i] <= f->edges[i - 1])
			return -EDOM;	/* edges must increase */
	}
	tok = next_token(&pos);
	if (!tok || strcmp(tok, "weights"))
		return -EINVAL;
	for (i = 0; i < f->n_bins; i++) {
		ret = parse_s64(&pos, &val);
		if (ret)
			return ret;
		if (val < S32_MIN || val > S32_MAX)
			return -ERANGE;
		f->weights[i] = val;
	}
	return next_token(&pos) ? -EINVAL : 0;
}

/* Parse and validate a whole model; nothing is installed on error. */
static int parse_model(char *text, struct model *m)
{
	bool have_bias = false, have_thr = false, have_scale = false;
	char *line, *pos = text, *key;
	int ret;

	m->auc = -1;
	while ((line = strsep(&pos, "\n"))) {
		char *hash = strchr(line, '#');

		ret = 0;
		if (hash)
			*hash = '\0';
		line = strim(line);
		if (!*line)
			continue;
		key = next_token(&line);
		if (!m->name[0]) {
			char *name = next_token(&line);

			if (strcmp(key, "name") || !name || !valid_name(name) ||
			    next_token(&line))
				return -EINVAL;
			strscpy(m->name, name, sizeof(m->name));
		} else if (!strcmp(key, "bias")) {
			ret = parse_s64(&line, &m->bias);
			have_bias = !ret;
		} else if (!strcmp(key, "threshold")) {
			ret = parse_s64(&line, &m->threshold);
			have_thr = !ret;
		} else if (!strcmp(key, "weight_scale")) {
			ret = parse_s64(&line, &m->weight_scale);
			if (!ret && m->weight_scale <= 0)
				ret = -ERANGE;
			have_scale = !ret;
		} else if (!strcmp(key, "auc")) {
			s64 auc;

			ret = parse_s64(&line, &auc);
			if (!ret && (auc < 0 || auc > 1000))
				ret = -ERANGE;
			if (!ret)
				m->auc = auc;
		} else if (!strcmp(key, "feature")) {
			if (m->n_features == MODEL_MAX_FEATURES)
				return -E2BIG;
			ret = parse_feature(line, m->n_features,
					    &m->features[m->n_features]);
			m->n_features++;
			line = NULL;
		} else {
			return -EINVAL;
		}
		if (!m->name[0])
			return -EINVAL;
		if (ret)
			return ret;
		if (line && next_token(&line))
			return -EINVAL;
	}
	if (!m->name[0] || !have_bias || !have_thr || !have_scale ||
	    (m->n_features != LC_NR_FEATURES &&
	     m->n_features != LC_NR_FEATURES_V1))
		return -EINVAL;
	return 0;
}

/* ---- scoring ---- */

static s64 model_logit(const struct model *m, const s64 *x)
{
	s64 logit = m->bias;
	u32 i, bin;

	for (i = 0; i < m->n_features; i++) {
		const struct model_feature *f = &m->features[i];

		for (bin = 0; bin + 1 < f->n_bins && x[i] >= f->edges[bin]; bin++)
			;
		logit += f->weights[bin];
	}
	return logit;
}

__bpf_kfunc_start_defs();

/**
 * bpf_cache_ext_model_score - score a feature vector with a stored model
 * @name__str: the model's name, a constant string
 * @features: the feature values, in lc_features.h's order
 * @features__sz: size of @features in bytes: 8 per feature, at least the
 *	model's (a policy passes all ten; a nine-feature model scores the
 *	first nine)
 * @logit: receives bias + the weight of each feature's bin
 *
 * Lock-free: a model replaced meanwhile is scored old or new, whole.
 *
 * Return: 0; -ENOENT if no such model is loaded; -EINVAL if @features
 * holds fewer features than the model has.
 */
__bpf_kfunc int bpf_cache_ext_model_score(const char *name__str,
					  const s64 *features,
					  u32 features__sz, s64 *logit)
{
	const struct model *m;
	int ret = 0;

	rcu_read_lock();
	m = model_find(name__str);
	if (!m)
		ret = -ENOENT;
	else if (features__sz < m->n_features * sizeof(s64))
		ret = -EINVAL;
	else
		*logit = model_logit(m, features);
	rcu_read_unlock();
	return ret;
}

/**
 * bpf_cache_ext_model_auc - the hold-out AUC a model was loaded with
 * @name__str: the model's name, a constant string
 * @permille: receives the AUC x 1000 (500: chance)
 *
 * The learned policies skip scoring with a model whose AUC says it has
 * no signal, and evict in their base order instead.
 *
 * Return: 0; -ENOENT if no such model is loaded; -ENODATA if it was
 * loaded without an AUC.
 */
__bpf_kfunc int bpf_cache_ext_model_auc(const char *name__str, u32 *permille)
{
	const struct model *m;
	int ret = -ENOENT;

	rcu_read_lock();
	m = model_find(name__str);
	if (m && m->auc < 0) {
		ret = -ENODATA;
	} else if (m) {
		*permille = m->auc;
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

/**
 * bpf_cache_ext_model_threshold - the decision threshold of a model
 * @name__str: the model's name, a constant string
 * @threshold: receives the threshold; logits above it mean "reused"
 *
 * Return: 0, or -ENOENT if no such model is loaded.
 */
__bpf_kfunc int bpf_cache_ext_model_threshold(const char *name__str,
					      s64 *threshold)
{
	const struct model *m;
	int ret = -ENOENT;

	rcu_read_lock();
	m = model_find(name__str);
	if (m) {
		*threshold = m->threshold;
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(model_kfunc_ids)
BTF_ID_FLAGS(func, bpf_cache_ext_model_score)
BTF_ID_FLAGS(func, bpf_cache_ext_model_threshold)
BTF_ID_FLAGS(func, bpf_cache_ext_model_auc)
BTF_KFUNCS_END(model_kfunc_ids)

BTF_ID_LIST_SINGLE(model_ops_type_ids, struct, cache_ext_ops)

/*
 * Who may score: cache_ext policies (struct_ops programs of struct
 * cache_ext_ops), and SYSCALL programs, which run only when their loader
 * runs them (BPF_PROG_RUN, in process context) and through which a
 * model's kernel scoring is checked against lctrain's.  Any other
 * struct_ops (a TCP congestion control, a scheduler) is refused when it
 * loads: a model is loaded for the cache, and nothing else should come to
 * depend on its name or its weights.  The filter sees every kfunc call of
 * every program of both types and leaves the others' kfuncs alone.
 */
static int model_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (!btf_id_set8_contains(&model_kfunc_ids, kfunc_id))
		return 0;
	if (prog->type == BPF_PROG_TYPE_STRUCT_OPS &&
	    prog->aux->attach_btf_id != model_ops_type_ids[0])
		return -EACCES;
	return 0;
}

static const struct btf_kfunc_id_set model_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &model_kfunc_ids,
	.filter	= model_kfunc_filter,
};

/* ---- sysfs: models/load, models/unload, models/<name>/summary ---- */

static ssize_t summary_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	const char *name = container_of(kobj, struct model_dir, kobj)->name;
	const struct model *m;
	int len = 0;
	u32 i;

	rcu_read_lock();
	m = model_find(name);
	if (m) {
		len = sysfs_emit(buf, "name %s\nversion %llu\nfeatures %u\n"
				 "bias %lld\nthreshold %lld\nweight_scale %lld\n",
				 m->name, m->version, m->n_features, m->bias,
				 m->threshold, m->weight_scale);
		if (m->auc >= 0)
			len += sysfs_emit_at(buf, len, "auc %d\n", m->auc);
		else
			len += sysfs_emit_at(buf, len, "auc unknown\n");
		for (i = 0; i < m->n_features; i++)
			len += sysfs_emit_at(buf, len, "feature %s %u bins\n",
					     m->features[i].name,
					     m->features[i].n_bins);
	}
	rcu_read_unlock();
	return len;
}

static struct kobj_attribute summary_attr = __ATTR_RO(summary);
static struct attribute *model_attrs[] = {
	&summary_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(model);

static void model_dir_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct model_dir, kobj));
}

static const struct kobj_type model_ktype = {
	.release	= model_dir_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= model_groups,
};

static int model_dir_add(const char *name)
{
	struct model_dir *d;
	int ret;

	list_for_each_entry(d, &model_dirs, node)
		if (!strcmp(d->name, name))
			return 0;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	strscpy(d->name, name, sizeof(d->name));
	ret = kobject_init_and_add(&d->kobj, &model_ktype, models_kobj, "%s",
				   name);
	if (ret) {
		kobject_put(&d->kobj);
		return ret;
	}
	list_add_tail(&d->node, &model_dirs);
	return 0;
}

static void model_dir_del(const char *name)
{
	struct model_dir *d;

	list_for_each_entry(d, &model_dirs, node) {
		if (!strcmp(d->name, name)) {
			list_del(&d->node);
			kobject_put(&d->kobj);
			return;
		}
	}
}

static ssize_t load_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t count)
{
	struct model *m, *old;
	char *text;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	text = kstrndup(buf, count, GFP_KERNEL);
	if (!m || !text) {
		ret = -ENOMEM;
		goto out;
	}
	ret = parse_model(text, m);
	if (ret)
		goto out;

	mutex_lock(&models_lock);
	ret = model_dir_add(m->name);
	if (!ret) {
		m->version = ++model_version;
		old = model_find(m->name);
		if (old) {
			list_replace_rcu(&old->node, &m->node);
			kfree_rcu(old, rcu);
		} else {
			list_add_tail_rcu(&m->node, &models);
		}
		m = NULL;
	}
	mutex_unlock(&models_lock);
out:
	kfree(text);
	kfree(m);
	return ret ?: count;
}

static ssize_t unload_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	char name[MODEL_NAME_LEN];
	struct model *m;

	if (strscpy(name, buf, sizeof(name)) < 0)
		return -EINVAL;
	strim(name);
	mutex_lock(&models_lock);
	m = model_find(name);
	if (m) {
		list_del_rcu(&m->node);
		model_dir_del(name);
		kfree_rcu(m, rcu);
	}
	mutex_unlock(&models_lock);
	return m ? count : -ENOENT;
}

static struct kobj_attribute load_attr = __ATTR_WO(load);
static struct kobj_attribute unload_attr = __ATTR_WO(unload);
static struct attribute *models_attrs[] = {
	&load_attr.attr,
	&unload_attr.attr,
	NULL,
};

static const struct attribute_group models_group = {
	.attrs = models_attrs,
};

/* ---- debugfs: every model, in the load format ---- */

static int models_dump_show(struct seq_file *s, void *v)
{
	const struct model *m;
	u32 i, j;

	rcu_read_lock();
	list_for_each_entry_rcu(m, &models, node) {
		seq_printf(s, "name %s\n# version %llu\nbias %lld\nthreshold %lld\nweight_scale %lld\n",
			   m->name, m->version, m->bias, m->threshold,
			   m->weight_scale);
		for (i = 0; i < m->n_features; i++) {
			const struct model_feature *f = &m->features[i];

			seq_printf(s, "feature %s %u edges", f->name, f->n_bins);
			for (j = 0; j + 1 < f->n_bins; j++)
				seq_printf(s, " %lld", f->edges[j]);
			seq_puts(s, " weights");
			for (j = 0; j < f->n_bins; j++)
				seq_printf(s, " %d", f->weights[j]);
			seq_putc(s, '\n');
		}
		seq_putc(s, '\n');
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(models_dump);

int cache_ext_ctl_models_init(struct kobject *parent, struct dentry *debugfs)
{
	int ret;

	models_kobj = kobject_create_and_add("models", parent);
	if (!models_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(models_kobj, &models_group);
	if (ret)
		goto err;
	ret = register_btf_kfunc_id_set(BPF_PROG_TYPE_STRUCT_OPS,
					&model_kfunc_set);
	ret = ret ?: register_btf_kfunc_id_set(BPF_PROG_TYPE_SYSCALL,
					       &model_kfunc_set);
	if (ret)
		goto err;
	models_dump = debugfs_create_file("models", 0400, debugfs, NULL,
					  &models_dump_fops);
	return 0;
err:
	kobject_put(models_kobj);
	return ret;
}

void cache_ext_ctl_models_exit(void)
{
	struct model *m, *tmp;

	debugfs_remove(models_dump);
	mutex_lock(&models_lock);
	list_for_each_entry_safe(m, tmp, &models, node) {
		list_del_rcu(&m->node);
		model_dir_del(m->name);
		kfree_rcu(m, rcu);
	}
	mutex_unlock(&models_lock);
	kobject_put(models_kobj);
	rcu_barrier();	/* the kfree_rcu()s above, before the code goes */
}
