/* SPDX-License-Identifier: GPL-2.0 */
/* cache_ext_ctl: the pieces of the module and how they call each other. */
#ifndef _CACHE_EXT_CTL_H
#define _CACHE_EXT_CTL_H

#include <linux/kobject.h>

/* mm/cache_ext/ctl.h: what cache_ext offers this module. */
#include "ctl.h"
#include "cache_ext_nl.h"

struct dentry;

/* sysfs.c: /sys/kernel/cache_ext/ */
int cache_ext_ctl_sysfs_init(void);
struct kobject *cache_ext_ctl_sysfs_root(void);
void cache_ext_ctl_sysfs_exit(void);
void cache_ext_ctl_sysfs_sync(void);

/*
 * sysfs.c: a binding's counters, one per line of cache_ext_nl_stats.h:
 * its name in the stats files, its netlink attribute and where the
 * snapshot keeps it.
 */
struct cache_ext_ctl_stat {
	const char *name;
	u16 offset;
	u16 attr;
};

extern const struct cache_ext_ctl_stat cache_ext_ctl_stats[];
extern const unsigned int cache_ext_ctl_nr_stats;

static inline u64 cache_ext_ctl_stat_value(const struct cache_ext_stats_snapshot *s,
					   const struct cache_ext_ctl_stat *stat)
{
	return *(const u64 *)((const char *)s + stat->offset);
}

int cache_ext_ctl_stats_text(const struct cache_ext_stats_snapshot *s,
			     char *buf, size_t len);

/* preload.c: the standard policies, registered by cachectl when we load. */
void cache_ext_ctl_preload(void);
void cache_ext_ctl_preload_exit(void);

/* hist.c: latency histograms and counters in debugfs */
int cache_ext_ctl_hist_init(void);
void cache_ext_ctl_hist_exit(void);
void cache_ext_ctl_hist_bound(u64 cgroup_id);
void cache_ext_ctl_hist_unbound(u64 cgroup_id);
struct dentry *cache_ext_ctl_debugfs_root(void);

/* models.c: the model store and the scoring kfunc */
int cache_ext_ctl_models_init(struct kobject *parent, struct dentry *debugfs);
void cache_ext_ctl_models_exit(void);

/* netlink.c: the "cache_ext" generic netlink family */
int cache_ext_ctl_nl_init(void);
void cache_ext_ctl_nl_exit(void);
void cache_ext_ctl_nl_event(unsigned long type, const struct cache_ext_event *ev);

#endif /* _CACHE_EXT_CTL_H */
