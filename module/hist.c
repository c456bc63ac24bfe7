// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext_ctl: per-binding decision-latency histograms in debugfs.
 *
 * /sys/kernel/debug/cache_ext/<cgroup id>/latency is a log2 histogram of
 * how long the bound policy's evict_folios() took, in nanoseconds, built
 * from the core's cache_ext_evict tracepoint.  Buckets are per-CPU
 * counters summed on read; writing anything to the file resets them.
 * .../stats shows the binding's counters from the core.
 *
 * A histogram is counted into from the moment its binding is reported
 * (it is in the hash table at once), but its directory is created and
 * removed from one ordered work queue: removing waits for the files'
 * readers, a reader of "stats" may wait for the core's lock, and the core
 * holds that lock while it tells us of a binding.  Because the queue is
 * ordered, the directory of an ended binding is gone before the
 * directory of the cgroup's next binding is created, however fast a
 * cgroup is rebound: the names cannot collide.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <trace/events/cache_ext.h>

#include "internal.h"

/* Bucket i counts durations in [2^(i-1), 2^i) ns; bucket 0 counts 0 ns. */
#define NR_BUCKETS 40

struct latency_hist {
	u64 cgroup_id;
	struct hlist_node node;
	struct work_struct create_work;
	struct work_struct free_work;
	struct dentry *dir;
	u64 __percpu *buckets;	/* NR_BUCKETS each */
};

static DEFINE_HASHTABLE(hists, 6);
static struct workqueue_struct *dir_wq;	/* ordered: see the top */
static DEFINE_MUTEX(hists_lock);
static struct dentry *debugfs_root;

static struct latency_hist *hist_find(u64 cgroup_id)
{
	struct latency_hist *h;

	hash_for_each_possible_rcu(hists, h, node, cgroup_id)
		if (h->cgroup_id == cgroup_id)
			return h;
	return NULL;
}

static unsigned int bucket_of(u64 ns)
{
	return ns ? min_t(unsigned int, ilog2(ns) + 1, NR_BUCKETS - 1) : 0;
}

/* Runs in reclaim, for every evict_folios() call. */
static void probe_evict(void *data, u64 cgroup_id, u32 requested,
			u32 proposed, u32 accepted, u32 reclaimed,
			u64 duration_ns, u32 sampled)
{
	struct latency_hist *h;

	rcu_read_lock();
	h = hist_find(cgroup_id);
	if (h)
		this_cpu_inc(h->buckets[bucket_of(duration_ns)]);
	rcu_read_unlock();
}

static void sum_buckets(struct latency_hist *h, u64 *sum)
{
	int cpu, i;

	memset(sum, 0, NR_BUCKETS * sizeof(*sum));
	for_each_possible_cpu(cpu)
		for (i = 0; i < NR_BUCKETS; i++)
			sum[i] += per_cpu_ptr(h->buckets, cpu)[i];
}

static int latency_show(struct seq_file *m, void *v)
{
	struct latency_hist *h = m->private;
	u64 sum[NR_BUCKETS], total = 0;
	int i;

	sum_buckets(h, sum);
	seq_puts(m, "# evict_folios() decision time, ns: [from, to) count\n");
	for (i = 0; i < NR_BUCKETS; i++) {
		total += sum[i];
		if (!sum[i])
			continue;
		seq_printf(m, "%llu %llu %llu\n", i ? 1ULL << (i - 1) : 0,
			   1ULL << i, sum[i]);
	}
	seq_printf(m, "# total %llu\n", total);
	return 0;
}

static int latency_open(struct inode *inode, struct file *file)
{
	return single_open(file, latency_show, inode->i_private);
}

static ssize_t latency_reset(struct file *file, const char __user *buf,
			     size_t len, loff_t *ppos)
{
	struct latency_hist *h = file_inode(file)->i_private;
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(h->buckets, cpu), 0,
		       NR_BUCKETS * sizeof(u64));
	return len;
}

static const struct file_operations latency_fops = {
	.owner		= THIS_MODULE,
	.open		= latency_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.write		= latency_reset,
	.release	= single_release,
};

static int stats_one(const struct cache_ext_binding_info *info, void *data)
{
	struct seq_file *m = data;
	char buf[512];

	if (info->cgroup_id != (u64)(unsigned long)m->private)
		return 0;
	cache_ext_ctl_stats_text(&info->stats, buf, sizeof(buf));
	seq_printf(m, "policy %s\n%s", info->policy, buf);
	return 1;
}

static int stats_show(struct seq_file *m, void *v)
{
	/* The binding may have ended since the file was opened. */
	if (cache_ext_walk_bindings(NULL, stats_one, m) != 1)
		seq_puts(m, "policy default\n");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static void hist_create_workfn(struct work_struct *work)
{
	struct latency_hist *h = container_of(work, struct latency_hist,
					      create_work);
	char name[24];

	snprintf(name, sizeof(name), "%llu", h->cgroup_id);
	h->dir = debugfs_create_dir(name, debugfs_root);
	debugfs_create_file("latency", 0600, h->dir, h, &latency_fops);
	debugfs_create_file("stats", 0400, h->dir,
			    (void *)(unsigned long)h->cgroup_id, &stats_fops);
}

/* Queued after hist_create_workfn() of the same histogram. */
static void hist_free_workfn(struct work_struct *work)
{
	struct latency_hist *h = container_of(work, struct latency_hist,
					      free_work);

	debugfs_remove_recursive(h->dir);
	synchronize_rcu();
	free_percpu(h->buckets);
	kfree(h);
}

/* Caller holds hists_lock. */
static void hist_free(struct latency_hist *h)
{
	hash_del_rcu(&h->node);
	queue_work(dir_wq, &h->free_work);
}

/**
 * cache_ext_ctl_hist_bound - start a histogram for a new binding
 * @cgroup_id: the bound cgroup
 */
void cache_ext_ctl_hist_bound(u64 cgroup_id)
{
	struct latency_hist *h;

	mutex_lock(&hists_lock);
	if (hist_find(cgroup_id))
		goto out;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		goto out;
	h->buckets = __alloc_percpu(NR_BUCKETS * sizeof(u64), sizeof(u64));
	if (!h->buckets) {
		kfree(h);
		goto out;
	}
	h->cgroup_id = cgroup_id;
	INIT_WORK(&h->create_work, hist_create_workfn);
	INIT_WORK(&h->free_work, hist_free_workfn);
	hash_add_rcu(hists, &h->node, cgroup_id);
	queue_work(dir_wq, &h->create_work);
out:
	mutex_unlock(&hists_lock);
}

/**
 * cache_ext_ctl_hist_unbound - drop the histogram of an ended binding
 * @cgroup_id: the cgroup
 */
void cache_ext_ctl_hist_unbound(u64 cgroup_id)
{
	struct latency_hist *h;

	mutex_lock(&hists_lock);
	h = hist_find(cgroup_id);
	if (h)
		hist_free(h);
	mutex_unlock(&hists_lock);
}

/* The /sys/kernel/debug/cache_ext directory. */
struct dentry *cache_ext_ctl_debugfs_root(void)
{
	return debugfs_root;
}

int cache_ext_ctl_hist_init(void)
{
	int ret;

	dir_wq = alloc_ordered_workqueue("cache_ext_ctl", 0);
	if (!dir_wq)
		return -ENOMEM;
	debugfs_root = debugfs_create_dir("cache_ext", NULL);
	ret = register_trace_cache_ext_evict(probe_evict, NULL);
	if (ret) {
		debugfs_remove_recursive(debugfs_root);
		destroy_workqueue(dir_wq);
	}
	return ret;
}

void cache_ext_ctl_hist_exit(void)
{
	struct latency_hist *h;
	struct hlist_node *tmp;
	int bkt;

	unregister_trace_cache_ext_evict(probe_evict, NULL);
	tracepoint_synchronize_unregister();
	mutex_lock(&hists_lock);
	hash_for_each_safe(hists, bkt, tmp, h, node)
		hist_free(h);
	mutex_unlock(&hists_lock);
	destroy_workqueue(dir_wq);	/* waits for the frees */
	debugfs_remove_recursive(debugfs_root);
}
