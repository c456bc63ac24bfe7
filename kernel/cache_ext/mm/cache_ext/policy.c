// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext policies: the list of registered policies, their registration
 * from the struct_ops glue, and the companion module's view of them.
 *
 * mm/cache_ext/, one concern per file:
 *  policy.c	registered policies, registration, the module's interface
 *  bind.c	bindings of a policy to memory cgroups: memory.cache_ext,
 *		inheritance, unbinding
 *  call.c	the callback running on a CPU or in init()/exit(), its
 *		budget checks and the loops that end past it (call.h)
 *  eject.c	ejection: time budgets, the watchdog, bad candidates
 *  hooks.c	the page cache hooks that call a bound policy
 *  registry.c	the folios a binding tracks (registry.h)
 *  lists.c	the policy's eviction lists and their kfuncs
 *  evict.c	reclaim asking the policy for candidates (reclaim.h)
 *  bpf_ops.c	the struct_ops and the kfunc sets
 *
 * Locking: cache_ext_mutex serialises registration, binding and
 * unbinding.  The hooks find a folio's binding through
 * &mem_cgroup.cache_ext under the RCU read lock (the removal hook, which
 * runs with interrupts off, under that implied read-side section until it
 * calls the policy); a binding is unpublished
 * under the mutex and its ->exit() runs only after a grace period, so no
 * callback of a binding can run concurrently with or after its ->exit().
 * cgroup_mutex is never held with cache_ext_mutex: a cgroup's online and
 * offline only queue &mem_cgroup.cache_ext_work, which binds and unbinds
 * (memcg_workfn() in bind.c).  Lock order: cache_ext_mutex ->
 * cpus_read_lock (hooks_get/put()); the mapping's
 * i_pages lock -> &cache_ext_binding.lock; &cache_ext_binding.evict_lock ->
 * &cache_ext_binding.lock, and -> the lruvec's lru_lock (taken by vmscan's
 * cache_ext_isolate_t, which cache_ext_begin_reclaim() calls).  The
 * notifier chain is called with cache_ext_mutex held.
 *
 * Lifetime of a policy (struct cache_ext_policy):
 *  - Every callback and every kfunc runs inside an RCU read-side section
 *    on a published binding (non-sleeping callbacks), or under
 *    cache_ext_mutex (init() and exit()).  cache_ext_eject() is only
 *    called from there, or under cache_ext_mutex for a policy that is on
 *    the list of registered policies.
 *  - Unregistration takes the policy off that list, unpublishes its
 *    bindings and waits for a grace period: after that nothing can eject
 *    it, so flushing @eject_work once more is final, and the policy can be
 *    freed.  An ejection that raced with it is reported (EJECTED) before
 *    the policy is (UNREGISTERED), with the name still valid.
 *  - A binding is freed after its ->exit(), which runs after the grace
 *    period that follows unpublishing it.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/cache_ext.h>
#include <linux/cgroup.h>
#include <linux/memcontrol.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/string.h>

#define CREATE_TRACE_POINTS
#include <trace/events/cache_ext.h>

#include "ctl.h"
#include "internal.h"

/* Serialises registration, binding and unbinding; see the top comment. */
DEFINE_MUTEX(cache_ext_mutex);

static LIST_HEAD(cache_ext_policies);

/* Registered, unregistered, bound, unbound, ejected: for cache_ext_ctl. */
static BLOCKING_NOTIFIER_HEAD(cache_ext_notifier);

EXPORT_TRACEPOINT_SYMBOL_GPL(cache_ext_evict);

void cache_ext_notify(enum cache_ext_event_type type, const char *policy,
		      u64 cgroup_id, enum cache_ext_eject_reason reason,
		      const char *msg)
{
	struct cache_ext_event ev = {
		.policy = policy,
		.cgroup_id = cgroup_id,
		.reason = reason,
		.msg = msg,
	};

	blocking_notifier_call_chain(&cache_ext_notifier, type, &ev);
}

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

/* Folios tracked by all published bindings, for leak checks. */
long cache_ext_registry_live(void)
{
	struct cache_ext_policy *policy;
	struct cache_ext_binding *b;
	long n = 0;

	lockdep_assert_held(&cache_ext_mutex);
	list_for_each_entry(policy, &cache_ext_policies, node)
		list_for_each_entry(b, &policy->bindings, policy_node)
			n += cache_ext_registry_size(b);
	return n;
}

/* Log the names a write to memory.cache_ext may use, after a wrong one. */
static void log_unknown_name(const char *name)
{
	struct cache_ext_policy *policy;
	char names[256];
	int n = 0;

	lockdep_assert_held(&cache_ext_mutex);
	names[0] = '\0';
	list_for_each_entry(policy, &cache_ext_policies, node)
		n += scnprintf(names + n, sizeof(names) - n, " %s",
			       policy->ops->name);
	pr_info_ratelimited("no policy named '%.*s'; registered:%s (and \"default\" for the kernel's LRU)\n",
			    CACHE_EXT_NAME_LEN, name, n ? names : " none");
}

/**
 * cache_ext_policy_lookup - the registered policy a cgroup may be bound to
 * @name: the name the binder gave (memory.cache_ext, cache_ext_bind())
 *
 * Caller holds cache_ext_mutex.  A refusal is logged with what to do: an
 * unknown name with the names registered, an ejected policy with how to
 * register it again.
 *
 * Return: the policy; ERR_PTR(-ENOENT) if no policy is called @name,
 * ERR_PTR(-ESHUTDOWN) if it was ejected.
 */
struct cache_ext_policy *cache_ext_policy_lookup(const char *name)
{
	struct cache_ext_policy *policy;
	int reason;

	lockdep_assert_held(&cache_ext_mutex);

	policy = policy_find_by_name(name);
	if (!policy) {
		log_unknown_name(name);
		return ERR_PTR(-ENOENT);
	}
	reason = atomic_read(&policy->eject_reason);
	if (reason) {
		pr_info_ratelimited("policy %s was ejected (%s) and binds no cgroup; unregister it and register it again (cachectl attach --replace OBJ)\n",
				    name, cache_ext_eject_reason_str(reason));
		return ERR_PTR(-ESHUTDOWN);
	}
	return policy;
}

/* ------------------------------------------------------------------ */
/* Registration, called from the struct_ops glue                       */
/* ------------------------------------------------------------------ */

/**
 * cache_ext_policy_validate - the checks of registration that can be made
 *	before it
 * @ops: kernel copy of the policy's struct cache_ext_ops, complete
 *
 * Called when the policy's struct_ops map is updated, before a link can
 * be created, so that a policy that cannot be registered is refused
 * there, with the error its registration would give: its name is free,
 * and the cgroup of &cache_ext_ops.cgroup_id, if any, exists, has the
 * memory controller of its own and is not the root.  What these look at
 * can change before the link is created: cache_ext_policy_register()
 * checks again.  A cgroup that has a policy is left to registration:
 * -EBUSY from a map update tells libbpf that the map was updated before
 * (it then goes on to create the link), not that it was refused.
 *
 * Return: 0, -EINVAL (no name; a root cgroup, or one without the memory
 * controller), -EEXIST (a policy of that name is registered), -ENOENT (no
 * such cgroup).
 */
int cache_ext_policy_validate(const struct cache_ext_ops *ops)
{
	struct mem_cgroup *memcg;
	int ret = 0;

	if (!ops->name[0])
		return -EINVAL;
	mutex_lock(&cache_ext_mutex);
	if (policy_find_by_name(ops->name)) {
		ret = -EEXIST;
	} else if (ops->cgroup_id) {
		memcg = cache_ext_memcg_get(ops->cgroup_id);
		if (IS_ERR(memcg)) {
			ret = PTR_ERR(memcg);
		} else {
			if (mem_cgroup_is_root(memcg))
				ret = -EINVAL;
			css_put(&memcg->css);
		}
	}
	mutex_unlock(&cache_ext_mutex);
	return ret;
}

/**
 * cache_ext_policy_register - make a policy known and apply its binding
 * @ops: kernel copy of the policy's struct cache_ext_ops
 * @cgroup_id: if not zero, the cgroup to bind it to: its link's, or
 *	&cache_ext_ops.cgroup_id
 *
 * Return: 0, -EEXIST if the name is taken, or the error of binding to
 * @cgroup_id.
 */
int cache_ext_policy_register(struct cache_ext_ops *ops, u64 cgroup_id)
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
	INIT_WORK(&policy->eject_work, cache_ext_eject_workfn);

	mutex_lock(&cache_ext_mutex);
	if (policy_find_by_name(ops->name)) {
		ret = -EEXIST;
		goto out_free;
	}
	/* Registered, then bound: the events come in that order. */
	list_add_tail(&policy->node, &cache_ext_policies);
	cache_ext_notify(CACHE_EXT_EVENT_REGISTERED, ops->name, 0,
			 CACHE_EXT_EJECT_NONE, NULL);
	if (cgroup_id) {
		ret = cache_ext_bind_cgroup_id(policy, cgroup_id, false);
		if (ret) {
			/* Never bound, never ejected: nothing else to wait for. */
			list_del(&policy->node);
			cache_ext_notify(CACHE_EXT_EVENT_UNREGISTERED, ops->name, 0,
					 CACHE_EXT_EJECT_NONE, NULL);
			goto out_free;
		}
	}
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
	struct cache_ext_policy *policy;

	mutex_lock(&cache_ext_mutex);
	policy = policy_find_by_ops(ops);
	if (WARN_ON_ONCE(!policy)) {
		mutex_unlock(&cache_ext_mutex);
		return;
	}
	/* Nothing finds it by name any more: no new binding, no kill. */
	list_del(&policy->node);
	/* No callback of it runs after this: nothing can eject it now. */
	cache_ext_unbind_policy(policy);
	mutex_unlock(&cache_ext_mutex);

	/* An ejection queued before that runs now, and is the last. */
	flush_work(&policy->eject_work);

	mutex_lock(&cache_ext_mutex);
	cache_ext_notify(CACHE_EXT_EVENT_UNREGISTERED, ops->name, 0,
			 CACHE_EXT_EJECT_NONE, NULL);
	mutex_unlock(&cache_ext_mutex);
	kfree(policy);
}

/* ------------------------------------------------------------------ */
/* Interface for the companion module                                  */
/* ------------------------------------------------------------------ */

/**
 * cache_ext_kill - eject a policy on an administrator's request
 * @name: the policy's name
 *
 * Return: 0; -ENOENT for an unknown policy; -EALREADY if it was ejected.
 */
int cache_ext_kill(const char *name)
{
	struct cache_ext_policy *policy;
	int ret = 0;

	mutex_lock(&cache_ext_mutex);
	policy = policy_find_by_name(name);
	if (!policy)
		ret = -ENOENT;
	else if (atomic_read(&policy->eject_reason))
		ret = -EALREADY;
	else
		cache_ext_eject(policy, CACHE_EXT_EJECT_KILLED,
				"killed by %s (pid %d)", current->comm,
				task_pid_nr(current));
	mutex_unlock(&cache_ext_mutex);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(cache_ext_kill, CACHE_EXT);

/**
 * cache_ext_walk_policies - report every registered policy
 * @fn: called for each, under cache_ext's lock: must not call back into
 *	cache_ext; a non-zero return stops the walk
 * @data: passed to @fn
 *
 * Return: the first non-zero return of @fn, or 0.
 */
int cache_ext_walk_policies(cache_ext_policy_fn fn, void *data)
{
	struct cache_ext_policy_info info;
	struct cache_ext_policy *policy;
	struct cache_ext_binding *b;
	int ret = 0;

	mutex_lock(&cache_ext_mutex);
	list_for_each_entry(policy, &cache_ext_policies, node) {
		memset(&info, 0, sizeof(info));
		strscpy(info.name, policy->ops->name, sizeof(info.name));
		info.eject_reason = atomic_read(&policy->eject_reason);
		list_for_each_entry(b, &policy->bindings, policy_node)
			info.nr_bindings++;
		ret = fn(&info, data);
		if (ret)
			break;
	}
	mutex_unlock(&cache_ext_mutex);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(cache_ext_walk_policies, CACHE_EXT);

static void snapshot_stats(struct cache_ext_binding *b,
			   struct cache_ext_stats_snapshot *s)
{
	const struct cache_ext_stats *st = &b->stats;
	int cpu;

	s->evict_calls = atomic_long_read(&st->evict_calls);
	s->evict_busy = atomic_long_read(&st->evict_busy);
	s->requested = atomic_long_read(&st->requested);
	s->proposed = atomic_long_read(&st->proposed);
	s->accepted = atomic_long_read(&st->accepted);
	s->rejected = atomic_long_read(&st->rejected);
	s->reclaimed = atomic_long_read(&st->reclaimed);
	s->fallback = atomic_long_read(&st->fallback);
	s->errors = atomic_long_read(&st->errors);
	s->untracked = atomic_long_read(&st->untracked);
	s->not_admitted = atomic_long_read(&st->not_admitted);
	s->prefetch_evicted = atomic_long_read(&st->prefetch_evicted);
	s->prefetch_refaults = atomic_long_read(&st->prefetch_refaults);
	s->tracked = cache_ext_registry_size(b);
	s->registry_bytes = cache_ext_registry_bytes(b);
	s->accesses = 0;
	s->misses = 0;
	s->refaults = 0;
	s->mapped_accesses = 0;
	s->prefetched = 0;
	s->lock_holds = 0;
	for_each_possible_cpu(cpu) {
		const struct cache_ext_effect *e = per_cpu_ptr(st->effect, cpu);

		s->lock_holds += READ_ONCE(*per_cpu_ptr(st->lock_holds, cpu));
		s->accesses += READ_ONCE(e->accesses);
		s->misses += READ_ONCE(e->misses);
		s->refaults += READ_ONCE(e->refaults);
		s->mapped_accesses += READ_ONCE(e->mapped_accesses);
		s->prefetched += READ_ONCE(e->prefetched);
	}
}

/**
 * cache_ext_walk_bindings - report bindings and their counters
 * @name: only this policy's bindings, or NULL for all
 * @fn: called for each, under cache_ext's lock: must not call back into
 *	cache_ext; a non-zero return stops the walk
 * @data: passed to @fn
 *
 * Return: the first non-zero return of @fn, -ENOENT if @name is not
 * registered, or 0.
 */
int cache_ext_walk_bindings(const char *name, cache_ext_binding_fn fn,
			    void *data)
{
	struct cache_ext_binding_info info;
	struct cache_ext_policy *policy;
	struct cache_ext_binding *b;
	int ret = name ? -ENOENT : 0;

	mutex_lock(&cache_ext_mutex);
	list_for_each_entry(policy, &cache_ext_policies, node) {
		if (name && strcmp(name, policy->ops->name))
			continue;
		ret = 0;
		list_for_each_entry(b, &policy->bindings, policy_node) {
			memset(&info, 0, sizeof(info));
			strscpy(info.policy, policy->ops->name,
				sizeof(info.policy));
			info.cgroup_id = cgroup_id(b->memcg->css.cgroup);
			snapshot_stats(b, &info.stats);
			ret = fn(&info, data);
			if (ret)
				goto out;
		}
	}
out:
	mutex_unlock(&cache_ext_mutex);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(cache_ext_walk_bindings, CACHE_EXT);

/**
 * cache_ext_register_notifier - be told of cache_ext events
 * @nb: called with an &enum cache_ext_event_type and a &struct
 *	cache_ext_event, in process context with cache_ext's lock held:
 *	it must not call back into cache_ext
 *
 * Return: 0.
 */
int cache_ext_register_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&cache_ext_notifier, nb);
}
EXPORT_SYMBOL_NS_GPL(cache_ext_register_notifier, CACHE_EXT);

/**
 * cache_ext_unregister_notifier - stop being told of cache_ext events
 * @nb: as registered
 *
 * Return: 0, or -ENOENT if @nb was not registered.
 */
int cache_ext_unregister_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_unregister(&cache_ext_notifier, nb);
}
EXPORT_SYMBOL_NS_GPL(cache_ext_unregister_notifier, CACHE_EXT);
