/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MM_CACHE_EXT_INTERNAL_H
#define _MM_CACHE_EXT_INTERNAL_H

#include <linux/cache_ext.h>
#include <linux/list.h>
#include <linux/mutex.h>

/**
 * struct cache_ext_policy - a registered struct cache_ext_ops
 * @ops: the kernel copy of the struct_ops value, owned by its BPF map
 * @node: entry in the list of registered policies
 * @bindings: the policy's bindings, linked by &cache_ext_binding.policy_node
 */
struct cache_ext_policy {
	struct cache_ext_ops *ops;
	struct list_head node;
	struct list_head bindings;
};

/**
 * struct cache_ext_binding - a policy bound to one memory cgroup
 * @ops: the policy's callbacks, read locklessly by the hooks
 * @memcg: the bound cgroup; a css reference is held while bound
 * @policy: the policy this binding belongs to
 * @policy_node: entry in &cache_ext_policy.bindings
 *
 * Published in &mem_cgroup.cache_ext with RCU; freed only after a grace
 * period, once no hook can still be running one of its callbacks.
 */
struct cache_ext_binding {
	struct cache_ext_ops *ops;
	struct mem_cgroup *memcg;
	struct cache_ext_policy *policy;
	struct list_head policy_node;
};

extern struct mutex cache_ext_mutex;

int cache_ext_policy_register(struct cache_ext_ops *ops);
void cache_ext_policy_unregister(struct cache_ext_ops *ops);

#endif /* _MM_CACHE_EXT_INTERNAL_H */
