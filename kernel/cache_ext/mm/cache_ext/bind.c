// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext bindings: a registered policy bound to a memory cgroup, by
 * any interface (memory.cache_ext, the companion module, the policy's
 * link on the cgroup, &cache_ext_ops.cgroup_id) or by inheritance, and
 * its end.  Locking and lifetimes: see policy.c.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/cache_ext.h>
#include <linux/cgroup.h>
#include <linux/hashtable.h>
#include <linux/memcontrol.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <trace/events/cache_ext.h>

#include "../internal.h"
#include "ctl.h"
#include "internal.h"

DEFINE_STATIC_KEY_FALSE(cache_ext_bound);
/* Bindings whose policy has admit_folio(): the read hook is for them. */
DEFINE_STATIC_KEY_FALSE(cache_ext_admitting);

/*
 * Turn the hooks a binding of @ops needs on (cpus_read_lock inside), and
 * the preempt notifiers its calls register (cache_ext_enter()).
 */
static void hooks_get(const struct cache_ext_ops *ops)
{
	preempt_notifier_inc();
	static_branch_inc(&cache_ext_bound);
	cache_ext_watchdog_start();
	if (ops->admit_folio)
		static_branch_inc(&cache_ext_admitting);
}

/* Undo hooks_get(). */
static void hooks_put(const struct cache_ext_ops *ops)
{
	static_branch_dec(&cache_ext_bound);
	if (ops->admit_folio)
		static_branch_dec(&cache_ext_admitting);
	/* After a grace period: no call of the binding is registered. */
	preempt_notifier_dec();
}

/*
 * Every binding, by memcg pointer: lets kfuncs check a memcg pointer from
 * BPF without dereferencing it.  Changed under cache_ext_mutex, read
 * under RCU.
 */
static DEFINE_HASHTABLE(cache_ext_bindings, 6);

static struct cache_ext_binding *memcg_binding_locked(struct mem_cgroup *memcg)
{
	return rcu_dereference_protected(memcg->cache_ext,
					 lockdep_is_held(&cache_ext_mutex));
}

/*
 * Free a binding no hook can reach: never published, or unpublished and an
 * RCU grace period has passed.
 */
static void binding_free(struct cache_ext_binding *binding)
{
	/*
	 * No callback of @binding runs and every CPU's watch of it was
	 * cleared before the grace period ended; a watchdog pass that read
	 * one before that is over once it returns.
	 */
	cache_ext_watchdog_sync();
	free_percpu(binding->stats.effect);
	free_percpu(binding->stats.lock_holds);
	free_percpu(binding->stats.rate);
	free_percpu(binding->moves);
	kfree(binding->ra_ghosts);
	kfree(binding);
}

static void queue_memcg_work(struct mem_cgroup *memcg);

/*
 * Bind @policy to @memcg.  A failing init() refuses the binding; with
 * @eject_on_init_failure it also ejects the policy, as misbehaving.
 */
static int bind_memcg(struct cache_ext_policy *policy, struct mem_cgroup *memcg,
		      bool eject_on_init_failure)
{
	struct cache_ext_binding *binding;
	int cpu, ret;

	lockdep_assert_held(&cache_ext_mutex);

	/* The root cgroup has no memory.cache_ext: one rule everywhere. */
	if (mem_cgroup_is_root(memcg))
		return -EINVAL;
	if (memcg_binding_locked(memcg))
		return -EBUSY;

	binding = kzalloc(sizeof(*binding), GFP_KERNEL);
	if (!binding)
		return -ENOMEM;
	binding->stats.effect = alloc_percpu(struct cache_ext_effect);
	binding->stats.lock_holds = alloc_percpu(unsigned long);
	binding->stats.rate = alloc_percpu(struct cache_ext_rate);
	binding->moves = alloc_percpu(struct cache_ext_moves);
	binding->ra_ghosts = kcalloc(CACHE_EXT_RA_GHOSTS, sizeof(u32),
				     GFP_KERNEL);
	if (!binding->stats.effect || !binding->stats.lock_holds ||
	    !binding->stats.rate || !binding->moves || !binding->ra_ghosts) {
		binding_free(binding);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu)
		spin_lock_init(&per_cpu_ptr(binding->moves, cpu)->lock);

	/*
	 * A cgroup that is going away gets no new binding: its css
	 * reference is killed before cache_ext_memcg_offline() runs, so
	 * either we see that here or the offline hook sees our binding.
	 */
	if (!css_tryget_online(&memcg->css)) {
		binding_free(binding);
		return -ENOENT;
	}

	binding->ops = policy->ops;
	binding->memcg = memcg;
	binding->policy = policy;
	binding->state = CACHE_EXT_BINDING_INIT;
	binding->tracks = policy->ops->folio_added ||
			  policy->ops->folio_accessed ||
			  policy->ops->folio_mapped_accessed ||
			  policy->ops->folio_removed ||
			  policy->ops->admit_folio ||
			  (policy->ops->flags & (CACHE_EXT_OPS_ADD_TO_LIST |
						 CACHE_EXT_OPS_COUNT_REFS));
	binding->count_refs = policy->ops->flags & CACHE_EXT_OPS_COUNT_REFS;
	binding->err_stamp = jiffies;
	spin_lock_init(&binding->lock);
	mutex_init(&binding->evict_lock);
	ret = cache_ext_registry_init(binding);
	if (ret)
		goto out_put;

	/*
	 * Visible to the kfuncs of init() (list creation), ignored by the
	 * hooks until it is active.
	 */
	hooks_get(policy->ops);
	hash_add_rcu(cache_ext_bindings, &binding->hash_node,
		     (unsigned long)memcg);
	rcu_assign_pointer(memcg->cache_ext, binding);
	/*
	 * Offline may have begun since the css_tryget_online() above, and
	 * found no binding to end (cache_ext_memcg_offline()): then this
	 * sees the cgroup dying and has the binding ended.  Paired with the
	 * barrier there.
	 */
	smp_mb();
	if (unlikely(css_is_dying(&memcg->css)))
		queue_memcg_work(memcg);

	if (policy->ops->init) {
		ret = cache_ext_call_init(binding);
		if (ret) {
			pr_warn("policy %s: init() failed for cgroup %llu: %d\n",
				policy->ops->name, cgroup_id(memcg->css.cgroup),
				ret);
			RCU_INIT_POINTER(memcg->cache_ext, NULL);
			hash_del_rcu(&binding->hash_node);
			synchronize_rcu();
			hooks_put(policy->ops);
			cache_ext_registry_destroy(binding);
			if (eject_on_init_failure)
				cache_ext_eject(policy,
						CACHE_EXT_EJECT_INIT_FAILED,
						"init() returned %d for cgroup %llu",
						ret, cgroup_id(memcg->css.cgroup));
			ret = ret > 0 ? -EINVAL : ret;
			goto out_put;
		}
	}

	if (policy->ops->flags & CACHE_EXT_OPS_ADD_TO_LIST)
		cache_ext_lists_ensure_first(binding);
	list_add_tail(&binding->policy_node, &policy->bindings);
	WRITE_ONCE(binding->state, CACHE_EXT_BINDING_ACTIVE);
	trace_cache_ext_bind(policy->ops->name, cgroup_id(memcg->css.cgroup));
	cache_ext_notify(CACHE_EXT_EVENT_BOUND, policy->ops->name,
			 cgroup_id(memcg->css.cgroup), CACHE_EXT_EJECT_NONE,
			 NULL);
	return 0;

out_put:
	css_put(&memcg->css);
	binding_free(binding);
	return ret;
}

/*
 * Take a binding out of the hooks' sight.  The caller must wait for an
 * RCU grace period before destroy_binding().
 */
void cache_ext_unpublish_binding(struct cache_ext_binding *binding,
				 struct list_head *dead)
{
	lockdep_assert_held(&cache_ext_mutex);

	RCU_INIT_POINTER(binding->memcg->cache_ext, NULL);
	hash_del_rcu(&binding->hash_node);
	list_move_tail(&binding->policy_node, dead);
}

void cache_ext_destroy_bindings(struct list_head *dead)
{
	struct cache_ext_binding *binding, *tmp;

	list_for_each_entry_safe(binding, tmp, dead, policy_node) {
		long tracked = cache_ext_registry_size(binding);
		long bytes = cache_ext_registry_bytes(binding);

		if (binding->ops->exit)
			cache_ext_call_exit(binding);
		cache_ext_registry_destroy(binding);
		trace_cache_ext_unbind(binding->ops->name,
				       cgroup_id(binding->memcg->css.cgroup),
				       tracked, bytes, cache_ext_registry_live());
		cache_ext_notify(CACHE_EXT_EVENT_UNBOUND, binding->ops->name,
				 cgroup_id(binding->memcg->css.cgroup),
				 CACHE_EXT_EJECT_NONE, NULL);
		hooks_put(binding->ops);
		css_put(&binding->memcg->css);
		list_del(&binding->policy_node);
		binding_free(binding);
	}
}

/* The published binding of a memcg pointer.  Caller holds the RCU read lock. */
static struct cache_ext_binding *binding_by_memcg(unsigned long memcg)
{
	struct cache_ext_binding *binding;

	hash_for_each_possible_rcu(cache_ext_bindings, binding, hash_node,
				   memcg)
		if ((unsigned long)binding->memcg == memcg)
			return binding;
	return NULL;
}

/**
 * cache_ext_sibling_binding - another binding of the same policy
 * @b: a binding whose callback is running
 * @memcg: any value; it is only compared, never dereferenced
 *
 * Caller holds the RCU read lock or cache_ext_mutex.
 *
 * Return: the published binding of @memcg if it belongs to @b's policy
 * (@b itself included), or NULL.
 */
struct cache_ext_binding *cache_ext_sibling_binding(struct cache_ext_binding *b,
						    unsigned long memcg)
{
	struct cache_ext_binding *other;

	if ((unsigned long)b->memcg == memcg)
		return b;
	other = binding_by_memcg(memcg);
	return other && other->policy == b->policy ? other : NULL;
}

/* End every binding of @policy; returns after their exit()s. */
void cache_ext_unbind_policy(struct cache_ext_policy *policy)
{
	struct cache_ext_binding *binding, *tmp;
	LIST_HEAD(dead);

	lockdep_assert_held(&cache_ext_mutex);

	list_for_each_entry_safe(binding, tmp, &policy->bindings, policy_node)
		cache_ext_unpublish_binding(binding, &dead);
	synchronize_rcu();
	cache_ext_destroy_bindings(&dead);
}

/* Resolve a cgroup id to the memcg of that very cgroup, with a css ref. */
struct mem_cgroup *cache_ext_memcg_get(u64 id)
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

/* End @memcg's binding, if it has one; returns after its exit(). */
static void unbind_memcg(struct mem_cgroup *memcg)
{
	struct cache_ext_binding *binding;
	LIST_HEAD(dead);

	lockdep_assert_held(&cache_ext_mutex);

	memcg->cache_ext_inherit = false;
	binding = memcg_binding_locked(memcg);
	if (!binding)
		return;
	cache_ext_unpublish_binding(binding, &dead);
	synchronize_rcu();
	cache_ext_destroy_bindings(&dead);
}

/*
 * Bind @policy to @memcg as the cgroup's own choice, whatever the
 * interface (memory.cache_ext, cache_ext_bind(), the policy's link on the
 * cgroup, ops.cgroup_id): a policy the cgroup inherited
 * (cache_ext_memcg_online()) gives way to it, and becomes the cgroup's
 * own if it is the one chosen; a policy set on the cgroup itself refuses
 * it (-EBUSY from bind_memcg()).  If the new policy's init() then fails,
 * the cgroup is left with the kernel's LRU.
 */
static int bind_chosen(struct cache_ext_policy *policy,
		       struct mem_cgroup *memcg, bool eject_on_init_failure)
{
	struct cache_ext_binding *b = memcg_binding_locked(memcg);

	lockdep_assert_held(&cache_ext_mutex);

	/* A choice made here: the parent's is not inherited over it. */
	memcg->cache_ext_inherit = false;
	if (b && b->inherited) {
		if (b->policy == policy) {
			b->inherited = false;
			return 0;
		}
		unbind_memcg(memcg);
	}
	return bind_memcg(policy, memcg, eject_on_init_failure);
}

/* Bind the policy called @name to @memcg; see bind_chosen(). */
static int bind_by_name(const char *name, struct mem_cgroup *memcg)
{
	struct cache_ext_policy *policy = cache_ext_policy_lookup(name);

	if (IS_ERR(policy))
		return PTR_ERR(policy);
	return bind_chosen(policy, memcg, true);
}

int cache_ext_bind_cgroup_id(struct cache_ext_policy *policy, u64 id,
			     bool eject_on_init_failure)
{
	struct mem_cgroup *memcg;
	int ret;

	memcg = cache_ext_memcg_get(id);
	if (IS_ERR(memcg))
		return PTR_ERR(memcg);

	ret = bind_chosen(policy, memcg, eject_on_init_failure);
	css_put(&memcg->css);
	return ret;
}

/**
 * cache_ext_memcg_show - show memory.cache_ext: the cgroup's policy
 * @m: the seq_file of the cgroup's memory.cache_ext
 * @v: unused
 *
 * Return: 0.
 */
int cache_ext_memcg_show(struct seq_file *m, void *v)
{
	struct mem_cgroup *memcg = mem_cgroup_from_seq(m);
	struct cache_ext_binding *binding;

	mutex_lock(&cache_ext_mutex);
	binding = memcg_binding_locked(memcg);
	if (!binding)
		seq_puts(m, "default\n");
	else if (binding->inherited)
		seq_printf(m, "%s (inherited)\n", binding->ops->name);
	else
		seq_printf(m, "%s\n", binding->ops->name);
	mutex_unlock(&cache_ext_mutex);
	return 0;
}

/**
 * cache_ext_memcg_write - write memory.cache_ext: select the policy
 * @of: the cgroup's memory.cache_ext
 * @buf: a registered policy's name, or "default" for the kernel's LRU
 * @nbytes: length of @buf
 * @off: unused
 *
 * Return: @nbytes, or the error of cache_ext_bind(), whose rules it
 * follows: an inherited policy is replaced, one set on the cgroup is
 * -EBUSY (write "default" first).
 */
ssize_t cache_ext_memcg_write(struct kernfs_open_file *of, char *buf,
			      size_t nbytes, loff_t off)
{
	struct mem_cgroup *memcg = mem_cgroup_from_css(of_css(of));
	int ret = 0;

	buf = strstrip(buf);
	mutex_lock(&cache_ext_mutex);
	if (!strcmp(buf, "default"))
		unbind_memcg(memcg);
	else
		ret = bind_by_name(buf, memcg);
	mutex_unlock(&cache_ext_mutex);
	return ret ?: nbytes;
}

/*
 * Bring @memcg's binding in line with the cgroup: end it once the cgroup
 * is dying, else inherit the parent's policy if cache_ext_memcg_online()
 * asked for it and nothing was chosen since.  Runs from
 * &mem_cgroup.cache_ext_work, with the css reference queue_memcg_work()
 * took, so that a policy's init() and exit() and the grace period between
 * unpublishing and exit() run outside cgroup_mutex.
 */
static void memcg_workfn(struct work_struct *work)
{
	struct mem_cgroup *memcg = container_of(work, struct mem_cgroup,
						cache_ext_work);
	struct cache_ext_binding *pb;
	int ret;

	mutex_lock(&cache_ext_mutex);
	if (css_is_dying(&memcg->css)) {
		unbind_memcg(memcg);
	} else if (memcg->cache_ext_inherit) {
		memcg->cache_ext_inherit = false;
		pb = memcg_binding_locked(parent_mem_cgroup(memcg));
		if (pb && !atomic_read(&pb->policy->eject_reason) &&
		    !memcg_binding_locked(memcg)) {
			ret = bind_memcg(pb->policy, memcg, false);
			if (ret)
				pr_info("cgroup %llu does not inherit policy %s: %d\n",
					cgroup_id(memcg->css.cgroup),
					pb->ops->name, ret);
			else
				memcg_binding_locked(memcg)->inherited = true;
		}
	}
	mutex_unlock(&cache_ext_mutex);
	css_put(&memcg->css);
}

/* Have memcg_workfn() run for @memcg, unless it is pending already. */
static void queue_memcg_work(struct mem_cgroup *memcg)
{
	css_get(&memcg->css);
	if (!queue_work(system_unbound_wq, &memcg->cache_ext_work))
		css_put(&memcg->css);
}

/**
 * cache_ext_memcg_online - give a new cgroup its parent's policy
 * @memcg: the memory cgroup coming online; cgroup_mutex is held
 *
 * A cgroup created under a cgroup with a policy gets its own binding of
 * the same policy, marked inherited (memory.cache_ext reads "NAME
 * (inherited)").  It is inherited once, at creation: a later change of the
 * parent's policy leaves existing children alone, and a write to the
 * child's memory.cache_ext replaces what it inherited.  If the policy's
 * init() refuses the new cgroup, the cgroup keeps the kernel's LRU and the
 * policy is not ejected for it.
 *
 * The binding is set up by a work item, not under cgroup_mutex: until it
 * is published, usually within milliseconds, the new cgroup uses the
 * kernel's LRU and its memory.cache_ext reads "default".  A policy chosen
 * for it meanwhile (memory.cache_ext, netlink) wins over the inherited
 * one.
 */
void cache_ext_memcg_online(struct mem_cgroup *memcg)
{
	struct mem_cgroup *parent = parent_mem_cgroup(memcg);

	INIT_WORK(&memcg->cache_ext_work, memcg_workfn);
	/* A parent bound from now on is not inherited: as before creation. */
	if (!parent || !rcu_access_pointer(parent->cache_ext))
		return;
	memcg->cache_ext_inherit = true;
	queue_memcg_work(memcg);
}

/**
 * cache_ext_memcg_offline - end the binding of a cgroup being removed
 * @memcg: the memory cgroup going offline
 *
 * Called from the memory controller's css_offline callback, under
 * cgroup_mutex: the binding is ended by a work item, so that no cgroup
 * operation of the machine waits for a grace period or the policy's
 * exit().  Until then the binding goes on serving the dying cgroup's
 * page cache.  A binding published while offline began is ended by
 * bind_memcg(), which then sees the cgroup dying.
 */
void cache_ext_memcg_offline(struct mem_cgroup *memcg)
{
	/* Paired with the barrier in bind_memcg(), after it publishes. */
	smp_mb();
	if (rcu_access_pointer(memcg->cache_ext) ||
	    READ_ONCE(memcg->cache_ext_inherit))
		queue_memcg_work(memcg);
}

/**
 * cache_ext_bind - bind a registered policy to a memory cgroup
 * @name: the policy's name
 * @cgroup_id: the cgroup's id; it must have the memory controller
 *
 * The same operation as a write to the cgroup's memory.cache_ext: a
 * policy the cgroup inherited from its parent is replaced (the same
 * policy becomes the cgroup's own), one set on the cgroup itself is not.
 * An init() that fails refuses the binding, leaves the cgroup with the
 * kernel's LRU and ejects the policy.
 *
 * Return: 0; -ENOENT for an unknown policy or cgroup; -EINVAL if the
 * cgroup has no memory controller of its own; -EBUSY if a policy was set
 * on it; -ESHUTDOWN if the policy was ejected; or init()'s error.
 */
int cache_ext_bind(const char *name, u64 cgroup_id)
{
	struct mem_cgroup *memcg;
	int ret;

	memcg = cache_ext_memcg_get(cgroup_id);
	if (IS_ERR(memcg))
		return PTR_ERR(memcg);

	mutex_lock(&cache_ext_mutex);
	ret = bind_by_name(name, memcg);
	mutex_unlock(&cache_ext_mutex);
	css_put(&memcg->css);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(cache_ext_bind, CACHE_EXT);

/**
 * cache_ext_unbind - give a cgroup back to the kernel's LRU
 * @cgroup_id: the cgroup's id
 *
 * Return: 0, also if the cgroup was not bound; -ENOENT for an unknown
 * cgroup; -EINVAL if it has no memory controller of its own.
 */
int cache_ext_unbind(u64 cgroup_id)
{
	struct mem_cgroup *memcg;

	memcg = cache_ext_memcg_get(cgroup_id);
	if (IS_ERR(memcg))
		return PTR_ERR(memcg);

	mutex_lock(&cache_ext_mutex);
	unbind_memcg(memcg);
	mutex_unlock(&cache_ext_mutex);
	css_put(&memcg->css);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(cache_ext_unbind, CACHE_EXT);
