// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext core: the registry of policies, their bindings to memory
 * cgroups, and the page cache hooks that call into a bound policy.
 *
 * Locking: cache_ext_mutex serialises registration, binding and
 * unbinding.  The hooks find a folio's binding through
 * &mem_cgroup.cache_ext under the RCU read lock; a binding is unpublished
 * under the mutex and its ->exit() runs only after a grace period, so no
 * callback of a binding can run concurrently with or after its ->exit().
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/cache_ext.h>
#include <linux/cgroup.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

DEFINE_STATIC_KEY_FALSE(cache_ext_bound);
/* Serialises registration, binding and unbinding; see the top comment. */
DEFINE_MUTEX(cache_ext_mutex);

static LIST_HEAD(cache_ext_policies);

/* ------------------------------------------------------------------ */
/* Policies                                                            */
/* ------------------------------------------------------------------ */

static struct cache_ext_policy *policy_find_by_name(const char *name)
{
	struct cache_ext_policy *policy;

	lockdep_assert_held(&cache_ext_mutex);

	list_for_each_entry(policy, &cache_ext_policies, node)
		if (!strcmp(policy->ops->name, name))
			return policy;
	return NULL;
}

static struct cache_ext_policy *policy_find_by_ops(struct cache_ext_ops *ops)
{
	struct cache_ext_policy *policy;

	lockdep_assert_held(&cache_ext_mutex);

	list_for_each_entry(policy, &cache_ext_policies, node)
		if (policy->ops == ops)
			return policy;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Bindings                                                            */
/* ------------------------------------------------------------------ */

static struct cache_ext_binding *memcg_binding_locked(struct mem_cgroup *memcg)
{
	return rcu_dereference_protected(memcg->cache_ext,
					 lockdep_is_held(&cache_ext_mutex));
}

static int bind_memcg(struct cache_ext_policy *policy, struct mem_cgroup *memcg)
{
	struct cache_ext_binding *binding;
	int ret;

	lockdep_assert_held(&cache_ext_mutex);

	if (memcg_binding_locked(memcg))
		return -EBUSY;

	binding = kzalloc(sizeof(*binding), GFP_KERNEL);
	if (!binding)
		return -ENOMEM;

	/*
	 * A cgroup that is going away gets no new binding: its css
	 * reference is killed before cache_ext_memcg_offline() runs, so
	 * either we see that here or the offline hook sees our binding.
	 */
	if (!css_tryget_online(&memcg->css)) {
		kfree(binding);
		return -ENOENT;
	}

	binding->ops = policy->ops;
	binding->memcg = memcg;
	binding->policy = policy;

	if (policy->ops->init) {
		ret = policy->ops->init(memcg);
		if (ret) {
			pr_warn("policy %s: init() failed for cgroup %llu: %d\n",
				policy->ops->name, cgroup_id(memcg->css.cgroup),
				ret);
			css_put(&memcg->css);
			kfree(binding);
			return ret > 0 ? -EINVAL : ret;
		}
	}

	list_add_tail(&binding->policy_node, &policy->bindings);
	static_branch_inc(&cache_ext_bound);
	rcu_assign_pointer(memcg->cache_ext, binding);
	return 0;
}

/*
 * Take a binding out of the hooks' sight.  The caller must wait for an
 * RCU grace period before destroy_binding().
 */
static void unpublish_binding(struct cache_ext_binding *binding,
			      struct list_head *dead)
{
	lockdep_assert_held(&cache_ext_mutex);

	RCU_INIT_POINTER(binding->memcg->cache_ext, NULL);
	list_move_tail(&binding->policy_node, dead);
}

static void destroy_bindings(struct list_head *dead)
{
	struct cache_ext_binding *binding, *tmp;

	list_for_each_entry_safe(binding, tmp, dead, policy_node) {
		if (binding->ops->exit)
			binding->ops->exit(binding->memcg);
		static_branch_dec(&cache_ext_bound);
		css_put(&binding->memcg->css);
		list_del(&binding->policy_node);
		kfree(binding);
	}
}

/* Resolve a cgroup id to the memcg of that very cgroup, with a css ref. */
static struct mem_cgroup *memcg_get_by_cgroup_id(u64 id)
{
	struct cgroup_subsys_state *css;
	struct cgroup *cgrp;

	cgrp = cgroup_get_from_id(id);
	if (IS_ERR(cgrp))
		return ERR_CAST(cgrp);

	css = cgroup_get_e_css(cgrp, &memory_cgrp_subsys);
	cgroup_put(cgrp);
	if (!css)
		return ERR_PTR(-EINVAL);
	/* The memory controller is not enabled in this cgroup itself. */
	if (css->cgroup != cgrp) {
		css_put(css);
		return ERR_PTR(-EINVAL);
	}
	return mem_cgroup_from_css(css);
}

static int bind_cgroup_id(struct cache_ext_policy *policy, u64 id)
{
	struct mem_cgroup *memcg;
	int ret;

	memcg = memcg_get_by_cgroup_id(id);
	if (IS_ERR(memcg))
		return PTR_ERR(memcg);

	ret = bind_memcg(policy, memcg);
	css_put(&memcg->css);
	return ret;
}

/**
 * cache_ext_memcg_offline - end the binding of a cgroup being removed
 * @memcg: the memory cgroup going offline
 *
 * Called from the memory controller's css_offline callback, in process
 * context.
 */
void cache_ext_memcg_offline(struct mem_cgroup *memcg)
{
	struct cache_ext_binding *binding;
	LIST_HEAD(dead);

	mutex_lock(&cache_ext_mutex);
	binding = memcg_binding_locked(memcg);
	if (binding) {
		unpublish_binding(binding, &dead);
		synchronize_rcu();
		destroy_bindings(&dead);
	}
	mutex_unlock(&cache_ext_mutex);
}

/* ------------------------------------------------------------------ */
/* Registration, called from the struct_ops glue                       */
/* ------------------------------------------------------------------ */

/**
 * cache_ext_policy_register - make a policy known and apply its binding
 * @ops: kernel copy of the policy's struct cache_ext_ops
 *
 * Return: 0, -EEXIST if the name is taken, or the error of binding to
 * &cache_ext_ops.cgroup_id.
 */
int cache_ext_policy_register(struct cache_ext_ops *ops)
{
	struct cache_ext_policy *policy;
	int ret = 0;

	if (!ops->name[0])
		return -EINVAL;

	policy = kzalloc(sizeof(*policy), GFP_KERNEL);
	if (!policy)
		return -ENOMEM;
	policy->ops = ops;
	INIT_LIST_HEAD(&policy->bindings);

	mutex_lock(&cache_ext_mutex);
	if (policy_find_by_name(ops->name)) {
		ret = -EEXIST;
		goto out_free;
	}
	if (ops->cgroup_id) {
		ret = bind_cgroup_id(policy, ops->cgroup_id);
		if (ret)
			goto out_free;
	}
	list_add_tail(&policy->node, &cache_ext_policies);
	mutex_unlock(&cache_ext_mutex);
	return 0;

out_free:
	mutex_unlock(&cache_ext_mutex);
	kfree(policy);
	return ret;
}

/**
 * cache_ext_policy_unregister - unbind a policy everywhere and forget it
 * @ops: kernel copy of the policy's struct cache_ext_ops
 *
 * Every cgroup the policy was bound to falls back to the kernel's own
 * eviction.  Returns after the last callback of the policy has finished.
 */
void cache_ext_policy_unregister(struct cache_ext_ops *ops)
{
	struct cache_ext_binding *binding, *tmp;
	struct cache_ext_policy *policy;
	LIST_HEAD(dead);

	mutex_lock(&cache_ext_mutex);
	policy = policy_find_by_ops(ops);
	if (WARN_ON_ONCE(!policy)) {
		mutex_unlock(&cache_ext_mutex);
		return;
	}
	list_del(&policy->node);
	list_for_each_entry_safe(binding, tmp, &policy->bindings, policy_node)
		unpublish_binding(binding, &dead);
	synchronize_rcu();
	destroy_bindings(&dead);
	mutex_unlock(&cache_ext_mutex);
	kfree(policy);
}

/* ------------------------------------------------------------------ */
/* Page cache hooks                                                    */
/* ------------------------------------------------------------------ */

/*
 * The binding of a file folio's cgroup, or NULL.  Anonymous and shmem
 * folios are never a policy's business.  Caller holds the RCU read lock.
 */
static struct cache_ext_binding *folio_binding(struct folio *folio)
{
	struct mem_cgroup *memcg;

	if (folio_test_anon(folio) || folio_test_swapbacked(folio))
		return NULL;
	memcg = folio_memcg(folio);
	if (!memcg)
		return NULL;
	return rcu_dereference(memcg->cache_ext);
}

/* Called by filemap_add_folio() with the new folio locked. */
void __cache_ext_folio_added(struct folio *folio)
{
	struct cache_ext_binding *binding;

	rcu_read_lock();
	binding = folio_binding(folio);
	if (binding && binding->ops->folio_added)
		binding->ops->folio_added(folio, binding->memcg);
	rcu_read_unlock();
}

/* Called by folio_mark_accessed(). */
void __cache_ext_folio_accessed(struct folio *folio)
{
	struct cache_ext_binding *binding;

	/* Already truncated: the policy has seen it leave. */
	if (!READ_ONCE(folio->mapping))
		return;

	rcu_read_lock();
	binding = folio_binding(folio);
	if (binding && binding->ops->folio_accessed)
		binding->ops->folio_accessed(folio, binding->memcg);
	rcu_read_unlock();
}

/* Called under the mapping's i_pages lock for every folio leaving it. */
void __cache_ext_folio_removed(struct folio *folio)
{
	struct cache_ext_binding *binding;

	rcu_read_lock();
	binding = folio_binding(folio);
	if (binding && binding->ops->folio_removed)
		binding->ops->folio_removed(folio, binding->memcg);
	rcu_read_unlock();
}
