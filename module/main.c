// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext_ctl: the user interface of cache_ext.
 *
 * sysfs /sys/kernel/cache_ext/ lists the registered policies and their
 * bindings, states and counters, and holds the model store; debugfs
 * /sys/kernel/debug/cache_ext/ holds a decision-latency histogram per
 * binding, fed by the core's cache_ext_evict tracepoint, and a dump of
 * every model.  Policies score with the module's kfunc.  The generic
 * netlink family "cache_ext" dumps policies and bindings, binds and
 * unbinds, and multicasts the core's events.  The module learns of policies and bindings
 * through the core's notifier chain and only uses the core's exported
 * interface.  When it loads, it has the standard policies registered
 * (preload.c).  Selecting a cgroup's policy is done in the cgroup itself:
 * echo NAME > /sys/fs/cgroup/.../memory.cache_ext.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/module.h>
#include <linux/notifier.h>

#include "internal.h"

static int cache_ext_ctl_event(struct notifier_block *nb, unsigned long type,
			       void *data)
{
	const struct cache_ext_event *ev = data;

	switch (type) {
	case CACHE_EXT_EVENT_BOUND:
		cache_ext_ctl_hist_bound(ev->cgroup_id);
		break;
	case CACHE_EXT_EVENT_UNBOUND:
		cache_ext_ctl_hist_unbound(ev->cgroup_id);
		break;
	}
	cache_ext_ctl_nl_event(type, ev);
	/* Policies come and go, get ejected: refresh their directories. */
	cache_ext_ctl_sysfs_sync();
	return NOTIFY_OK;
}

static struct notifier_block cache_ext_ctl_nb = {
	.notifier_call = cache_ext_ctl_event,
};

static int bind_hist(const struct cache_ext_binding_info *info, void *data)
{
	cache_ext_ctl_hist_bound(info->cgroup_id);
	return 0;
}

static int __init cache_ext_ctl_init(void)
{
	int ret;

	ret = cache_ext_ctl_hist_init();
	if (ret)
		return ret;
	ret = cache_ext_ctl_sysfs_init();
	if (ret)
		goto err_hist;
	ret = cache_ext_ctl_models_init(cache_ext_ctl_sysfs_root(),
					cache_ext_ctl_debugfs_root());
	if (ret)
		goto err_sysfs;
	ret = cache_ext_ctl_nl_init();
	if (ret)
		goto err_models;
	ret = cache_ext_register_notifier(&cache_ext_ctl_nb);
	if (ret)
		goto err_nl;
	/* What existed before the module was loaded. */
	cache_ext_walk_bindings(NULL, bind_hist, NULL);
	cache_ext_ctl_sysfs_sync();
	/* Last: the helper's registrations reach the notifier above. */
	cache_ext_ctl_preload();
	return 0;

err_nl:
	cache_ext_ctl_nl_exit();
err_models:
	cache_ext_ctl_models_exit();
err_sysfs:
	cache_ext_ctl_sysfs_exit();
err_hist:
	cache_ext_ctl_hist_exit();
	return ret;
}

static void __exit cache_ext_ctl_exit(void)
{
	cache_ext_ctl_preload_exit();
	cache_ext_unregister_notifier(&cache_ext_ctl_nb);
	cache_ext_ctl_nl_exit();
	cache_ext_ctl_models_exit();
	cache_ext_ctl_sysfs_exit();
	cache_ext_ctl_hist_exit();
}

module_init(cache_ext_ctl_init);
module_exit(cache_ext_ctl_exit);
MODULE_DESCRIPTION("cache_ext policy selection, statistics and histograms");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(CACHE_EXT);
