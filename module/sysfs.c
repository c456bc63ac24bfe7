// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext_ctl: /sys/kernel/cache_ext/
 *
 *   available_policies       registered policies that can be bound
 *   bindings                 "<cgroup id> <policy>" per bound cgroup
 *   policies/<name>/state    "active", or "ejected: <reason>"
 *   policies/<name>/cgroups  ids of the cgroups the policy is bound to
 *   policies/<name>/stats    its counters, summed over its bindings
 *   policies/<name>/kill     write 1 to eject the policy
 *
 * A policy is selected for a cgroup in the cgroup itself:
 * echo NAME > /sys/fs/cgroup/<path>/memory.cache_ext.
 *
 * Policy directories follow the core's notifications from a work item,
 * never from the notifier itself: removing a directory waits for its
 * readers, and a reader may be waiting for the core's lock.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "internal.h"

struct policy_dir {
	struct kobject kobj;
	struct list_head node;
	char name[CACHE_EXT_NAME_LEN];
};

static struct kset *cache_ext_kset;
static struct kobject *policies_kobj;
static LIST_HEAD(policy_dirs);
static DEFINE_MUTEX(policy_dirs_lock);

static const char *kobj_policy(struct kobject *kobj)
{
	return container_of(kobj, struct policy_dir, kobj)->name;
}

/* ---- top-level files ---- */

struct emit_buf {
	int len;
	char *buf;
};

static int emit_policy_name(const struct cache_ext_policy_info *info,
			    void *data)
{
	struct emit_buf *e = data;

	if (info->eject_reason == CACHE_EXT_EJECT_NONE)
		e->len += sysfs_emit_at(e->buf, e->len, "%s%s",
					e->len ? " " : "", info->name);
	return 0;
}

static ssize_t available_policies_show(struct kobject *kobj,
				       struct kobj_attribute *attr, char *buf)
{
	struct emit_buf e = { 0, buf };

	cache_ext_walk_policies(emit_policy_name, &e);
	return e.len + sysfs_emit_at(buf, e.len, "\n");
}

static int emit_binding(const struct cache_ext_binding_info *info, void *data)
{
	struct emit_buf *e = data;

	e->len += sysfs_emit_at(e->buf, e->len, "%llu %s\n", info->cgroup_id,
				info->policy);
	return 0;
}

static ssize_t bindings_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct emit_buf e = { 0, buf };

	cache_ext_walk_bindings(NULL, emit_binding, &e);
	return e.len;
}

static struct kobj_attribute available_policies_attr =
	__ATTR_RO(available_policies);
static struct kobj_attribute bindings_attr = __ATTR_RO(bindings);

static struct attribute *top_attrs[] = {
	&available_policies_attr.attr,
	&bindings_attr.attr,
	NULL,
};

static const struct attribute_group top_group = {
	.attrs = top_attrs,
};

/* ---- per-policy files ---- */

const struct cache_ext_ctl_stat cache_ext_ctl_stats[] = {
#define CACHE_EXT_STAT(ATTR, field) {					\
	.name = #field,							\
	.offset = offsetof(struct cache_ext_stats_snapshot, field),	\
	.attr = CACHE_EXT_A_STAT_##ATTR,				\
},
#define CACHE_EXT_STAT_PAD(...)
#include "cache_ext_nl_stats.h"
#undef CACHE_EXT_STAT
#undef CACHE_EXT_STAT_PAD
};

const unsigned int cache_ext_ctl_nr_stats = ARRAY_SIZE(cache_ext_ctl_stats);

/* Every counter of the snapshot is in the table, and every attribute. */
static_assert(sizeof(struct cache_ext_stats_snapshot) ==
	      ARRAY_SIZE(cache_ext_ctl_stats) * sizeof(u64));
static_assert(ARRAY_SIZE(cache_ext_ctl_stats) == CACHE_EXT_A_STAT_MAX - 1);

/**
 * cache_ext_ctl_stats_text - a binding's counters as "<name> <value>" lines
 * @s: the counters
 * @buf: where to write
 * @len: size of @buf
 *
 * The one format of /sys/kernel/cache_ext/policies/<name>/stats and of
 * debugfs .../<cgroup id>/stats, in the order of cache_ext_ctl_stats[].
 *
 * Return: bytes written.
 */
int cache_ext_ctl_stats_text(const struct cache_ext_stats_snapshot *s,
			     char *buf, size_t len)
{
	const struct cache_ext_ctl_stat *stat;
	int n = 0;

	for (stat = cache_ext_ctl_stats;
	     stat < cache_ext_ctl_stats + cache_ext_ctl_nr_stats; stat++)
		n += scnprintf(buf + n, len - n, "%s %llu\n", stat->name,
			       cache_ext_ctl_stat_value(s, stat));
	return n;
}

struct state_query {
	const char *name;
	enum cache_ext_eject_reason reason;
	bool found;
};

static int find_state(const struct cache_ext_policy_info *info, void *data)
{
	struct state_query *q = data;

	if (strcmp(info->name, q->name))
		return 0;
	q->reason = info->eject_reason;
	q->found = true;
	return 1;
}

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct state_query q = { .name = kobj_policy(kobj) };

	cache_ext_walk_policies(find_state, &q);
	if (!q.found)
		return sysfs_emit(buf, "unregistered\n");
	if (q.reason == CACHE_EXT_EJECT_NONE)
		return sysfs_emit(buf, "active\n");
	return sysfs_emit(buf, "ejected: %s\n",
			  cache_ext_eject_reason_str(q.reason));
}

static int emit_cgroup(const struct cache_ext_binding_info *info, void *data)
{
	struct emit_buf *e = data;

	e->len += sysfs_emit_at(e->buf, e->len, "%llu\n", info->cgroup_id);
	return 0;
}

static ssize_t cgroups_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct emit_buf e = { 0, buf };

	cache_ext_walk_bindings(kobj_policy(kobj), emit_cgroup, &e);
	return e.len;
}

static int add_stats(const struct cache_ext_binding_info *info, void *data)
{
	struct cache_ext_stats_snapshot *sum = data;
	const struct cache_ext_ctl_stat *stat;

	for (stat = cache_ext_ctl_stats;
	     stat < cache_ext_ctl_stats + cache_ext_ctl_nr_stats; stat++)
		*(u64 *)((char *)sum + stat->offset) +=
			cache_ext_ctl_stat_value(&info->stats, stat);
	return 0;
}

static ssize_t stats_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct cache_ext_stats_snapshot s = {};

	cache_ext_walk_bindings(kobj_policy(kobj), add_stats, &s);
	return cache_ext_ctl_stats_text(&s, buf, PAGE_SIZE);
}

static ssize_t kill_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t count)
{
	unsigned int val;
	int ret;

	/* Exactly "1" (a trailing newline allowed): nothing else kills. */
	ret = kstrtouint(buf, 10, &val);
	if (ret || val != 1)
		return -EINVAL;
	ret = cache_ext_kill(kobj_policy(kobj));
	return ret ?: count;
}

static struct kobj_attribute state_attr = __ATTR_RO(state);
static struct kobj_attribute cgroups_attr = __ATTR_RO(cgroups);
static struct kobj_attribute stats_attr = __ATTR_RO(stats);
static struct kobj_attribute kill_attr = __ATTR_WO(kill);

static struct attribute *policy_attrs[] = {
	&state_attr.attr,
	&cgroups_attr.attr,
	&stats_attr.attr,
	&kill_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(policy);

static void policy_dir_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct policy_dir, kobj));
}

static const struct kobj_type policy_ktype = {
	.release	= policy_dir_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= policy_groups,
};

/* ---- keeping the directories in step with the core ---- */

struct name_list {
	unsigned int nr, max;
	char (*names)[CACHE_EXT_NAME_LEN];
};

static int collect_name(const struct cache_ext_policy_info *info, void *data)
{
	struct name_list *l = data;

	if (l->nr == l->max)
		return -ENOSPC;
	strscpy(l->names[l->nr++], info->name, CACHE_EXT_NAME_LEN);
	return 0;
}

static bool name_listed(struct name_list *l, const char *name)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->names[i], name))
			return true;
	return false;
}

static void sync_workfn(struct work_struct *work)
{
	struct name_list l = { .max = 256 };
	struct policy_dir *d, *tmp;
	unsigned int i;

	l.names = kcalloc(l.max, CACHE_EXT_NAME_LEN, GFP_KERNEL);
	if (!l.names)
		return;
	if (cache_ext_walk_policies(collect_name, &l))
		pr_warn_once("more than %u policies: some have no directory\n",
			     l.max);

	mutex_lock(&policy_dirs_lock);
	list_for_each_entry_safe(d, tmp, &policy_dirs, node) {
		if (name_listed(&l, d->name))
			continue;
		list_del(&d->node);
		kobject_put(&d->kobj);
	}
	for (i = 0; i < l.nr; i++) {
		bool have = false;

		list_for_each_entry(d, &policy_dirs, node)
			have |= !strcmp(d->name, l.names[i]);
		if (have)
			continue;
		d = kzalloc(sizeof(*d), GFP_KERNEL);
		if (!d)
			break;
		strscpy(d->name, l.names[i], sizeof(d->name));
		if (kobject_init_and_add(&d->kobj, &policy_ktype, policies_kobj,
					 "%s", d->name)) {
			kobject_put(&d->kobj);
			break;
		}
		list_add_tail(&d->node, &policy_dirs);
	}
	mutex_unlock(&policy_dirs_lock);
	kfree(l.names);
}

static DECLARE_WORK(sync_work, sync_workfn);

/**
 * cache_ext_ctl_sysfs_sync - bring policies/ in step with the core, soon
 */
void cache_ext_ctl_sysfs_sync(void)
{
	schedule_work(&sync_work);
}

/* The /sys/kernel/cache_ext directory. */
struct kobject *cache_ext_ctl_sysfs_root(void)
{
	return &cache_ext_kset->kobj;
}

int cache_ext_ctl_sysfs_init(void)
{
	int ret;

	cache_ext_kset = kset_create_and_add("cache_ext", NULL, kernel_kobj);
	if (!cache_ext_kset)
		return -ENOMEM;
	ret = sysfs_create_group(&cache_ext_kset->kobj, &top_group);
	if (ret)
		goto err;
	policies_kobj = kobject_create_and_add("policies",
					       &cache_ext_kset->kobj);
	if (!policies_kobj) {
		ret = -ENOMEM;
		goto err;
	}
	return 0;
err:
	kset_unregister(cache_ext_kset);
	return ret;
}

void cache_ext_ctl_sysfs_exit(void)
{
	struct policy_dir *d, *tmp;

	cancel_work_sync(&sync_work);
	mutex_lock(&policy_dirs_lock);
	list_for_each_entry_safe(d, tmp, &policy_dirs, node) {
		list_del(&d->node);
		kobject_put(&d->kobj);
	}
	mutex_unlock(&policy_dirs_lock);
	kobject_put(policies_kobj);
	kset_unregister(cache_ext_kset);
}
