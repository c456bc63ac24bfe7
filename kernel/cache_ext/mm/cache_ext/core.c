// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext core: the registry of policies, their bindings to memory
 * cgroups, and the page cache hooks that call into a bound policy.
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
 * (memcg_workfn()).  Lock order: cache_ext_mutex -> cpus_read_lock
 * (hooks_get/put()); the mapping's
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

#include <linux/btf.h>
#include <linux/cache_ext.h>
#include <linux/cgroup.h>
#include <linux/hashtable.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/pagemap.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/swap.h>

#define CREATE_TRACE_POINTS
#include <trace/events/cache_ext.h>

#include "../internal.h"
#include "ctl.h"
#include "internal.h"
#include "reclaim.h"

DEFINE_STATIC_KEY_FALSE(cache_ext_bound);
/* Bindings whose policy has admit_folio(): the read hook is for them. */
DEFINE_STATIC_KEY_FALSE(cache_ext_admitting);

/*
 * Every tenth of a second while any binding exists, on whichever CPU is
 * free (an unbound workqueue: the CPU of a runaway callback is not):
 * see cache_ext_watchdog_fn().
 */
#define WATCHDOG_PERIOD		(HZ / 10 ?: 1)

static void cache_ext_watchdog_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(cache_ext_watchdog, cache_ext_watchdog_fn);
/* Held by each watchdog pass; binding_free() waits for the one running. */
static DEFINE_SPINLOCK(cache_ext_watchdog_lock);

/* Turn the hooks a binding of @ops needs on (cpus_read_lock inside). */
static void hooks_get(const struct cache_ext_ops *ops)
{
	static_branch_inc(&cache_ext_bound);
	queue_delayed_work(system_unbound_wq, &cache_ext_watchdog,
			   WATCHDOG_PERIOD);
	if (ops->admit_folio)
		static_branch_inc(&cache_ext_admitting);
}

/* Undo hooks_get(). */
static void hooks_put(const struct cache_ext_ops *ops)
{
	static_branch_dec(&cache_ext_bound);
	if (ops->admit_folio)
		static_branch_dec(&cache_ext_admitting);
}

/* Serialises registration, binding and unbinding; see the top comment. */
DEFINE_MUTEX(cache_ext_mutex);

static LIST_HEAD(cache_ext_policies);

DEFINE_PER_CPU(struct cache_ext_call *, cache_ext_running);
DEFINE_PER_CPU(struct cache_ext_watch, cache_ext_watch);

/* The init() or exit() that runs, and its task; cache_ext_mutex. */
static struct cache_ext_call sleeping_call;
static struct task_struct *sleeping_task;

static void set_sleeping(struct cache_ext_binding *b, struct task_struct *t)
{
	lockdep_assert_held(&cache_ext_mutex);
	sleeping_call.binding = b;
	sleeping_call.start = local_clock();
	sleeping_call.budget = U64_MAX;	/* init() and exit() are not timed */
	sleeping_call.folio = NULL;
	sleeping_call.check_from = jiffies + MAX_JIFFY_OFFSET;
	sleeping_call.over = false;
	WRITE_ONCE(sleeping_task, t);
}

/* init() of @b; the kfuncs it calls act on @b's policy. */
static int call_init(struct cache_ext_binding *b)
{
	int ret;

	/* Whatever init() does, no cgroup operation waits for it. */
	lockdep_assert_not_held(&cgroup_mutex);
	set_sleeping(b, current);
	ret = b->ops->init(b->memcg);
	set_sleeping(NULL, NULL);
	return ret;
}

/* exit() of @b, likewise. */
static void call_exit(struct cache_ext_binding *b)
{
	struct cache_ext_exit_info info = {
		.reason = atomic_read(&b->policy->eject_reason),
	};

	if (info.reason)
		strscpy(info.msg, b->policy->eject_msg, sizeof(info.msg));
	lockdep_assert_not_held(&cgroup_mutex);
	set_sleeping(b, current);
	b->ops->exit(b->memcg, &info);
	set_sleeping(NULL, NULL);
}

/* Registered, unregistered, bound, unbound, ejected: for cache_ext_ctl. */
static BLOCKING_NOTIFIER_HEAD(cache_ext_notifier);

EXPORT_TRACEPOINT_SYMBOL_GPL(cache_ext_evict);

static void notify(enum cache_ext_event_type type, const char *policy,
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

/*
 * Every binding, by memcg pointer: lets kfuncs check a memcg pointer from
 * BPF without dereferencing it.  Changed under cache_ext_mutex, read
 * under RCU.
 */
static DEFINE_HASHTABLE(cache_ext_bindings, 6);

static const char * const eject_reasons[CACHE_EXT_EJECT_NR] = {
	[CACHE_EXT_EJECT_NONE]		= "none",
	[CACHE_EXT_EJECT_FOREIGN_FOLIO]	= "folios of another cgroup",
	[CACHE_EXT_EJECT_DUPLICATE]	= "duplicate candidates",
	[CACHE_EXT_EJECT_TOO_MANY]	= "more candidates than requested",
	[CACHE_EXT_EJECT_TIMEOUT]	= "evict_folios() over its time budget",
	[CACHE_EXT_EJECT_INIT_FAILED]	= "init() failed",
	[CACHE_EXT_EJECT_KILLED]	= "killed by an administrator",
	[CACHE_EXT_EJECT_EVENT_TIMEOUT]	= "an event callback over its time budget",
	[CACHE_EXT_EJECT_SELF]		= "the policy gave up",
};

/**
 * cache_ext_eject_reason_str - human-readable form of an eject reason
 * @reason: an &enum cache_ext_eject_reason
 *
 * Return: a static string.
 */
const char *cache_ext_eject_reason_str(enum cache_ext_eject_reason reason)
{
	if ((unsigned int)reason >= CACHE_EXT_EJECT_NR)
		return "unknown";
	return eject_reasons[reason];
}
EXPORT_SYMBOL_NS_GPL(cache_ext_eject_reason_str, CACHE_EXT);

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

/*
 * Free a binding no hook can reach: never published, or unpublished and an
 * RCU grace period has passed.
 */
static void binding_free(struct cache_ext_binding *binding)
{
	/*
	 * No callback of @binding runs and every CPU's watch of it was
	 * cleared before the grace period ended; a watchdog pass that read
	 * one before that is over once its lock is free.
	 */
	spin_lock(&cache_ext_watchdog_lock);
	spin_unlock(&cache_ext_watchdog_lock);
	free_percpu(binding->stats.effect);
	free_percpu(binding->stats.lock_holds);
	free_percpu(binding->stats.rate);
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
	int ret;

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
	binding->ra_ghosts = kcalloc(CACHE_EXT_RA_GHOSTS, sizeof(u32),
				     GFP_KERNEL);
	if (!binding->stats.effect || !binding->stats.lock_holds ||
	    !binding->stats.rate || !binding->ra_ghosts) {
		binding_free(binding);
		return -ENOMEM;
	}

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
	spin_lock_init(&binding->evict_lock);
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
		ret = call_init(binding);
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
	notify(CACHE_EXT_EVENT_BOUND, policy->ops->name,
	       cgroup_id(memcg->css.cgroup), CACHE_EXT_EJECT_NONE, NULL);
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
static void unpublish_binding(struct cache_ext_binding *binding,
			      struct list_head *dead)
{
	lockdep_assert_held(&cache_ext_mutex);

	RCU_INIT_POINTER(binding->memcg->cache_ext, NULL);
	hash_del_rcu(&binding->hash_node);
	list_move_tail(&binding->policy_node, dead);
}

/* Folios tracked by all published bindings, for leak checks. */
static long registry_live(void)
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

static void destroy_bindings(struct list_head *dead)
{
	struct cache_ext_binding *binding, *tmp;

	list_for_each_entry_safe(binding, tmp, dead, policy_node) {
		long tracked = cache_ext_registry_size(binding);
		long bytes = cache_ext_registry_bytes(binding);

		if (binding->ops->exit)
			call_exit(binding);
		cache_ext_registry_destroy(binding);
		trace_cache_ext_unbind(binding->ops->name,
				       cgroup_id(binding->memcg->css.cgroup),
				       tracked, bytes, registry_live());
		notify(CACHE_EXT_EVENT_UNBOUND, binding->ops->name,
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

/**
 * cache_ext_kfunc_binding - the binding a kfunc may act on
 * @memcg: the memcg argument the policy passed; compared, never
 *	dereferenced
 *
 * A kfunc acts only on bindings of the policy whose callback called it:
 * the binding of that callback, or another binding of the same policy.
 * The caller is the callback recorded for this CPU (cache_ext_enter()) or,
 * for init() and exit(), for this task (cache_ext_current_call()).  A
 * kfunc called from interrupt context (a BPF timer, say) has no caller
 * and acts on nothing.
 *
 * The result stays valid until the callback returns: non-sleeping
 * callbacks run in an RCU read-side section, and bindings are only freed
 * a grace period after they were unpublished; init() and exit() run under
 * cache_ext_mutex, which every unbinding takes.
 *
 * Return: the binding, or NULL (also once the calling policy is ejected).
 */
struct cache_ext_binding *cache_ext_kfunc_binding(struct mem_cgroup *memcg)
{
	struct cache_ext_call *call = cache_ext_current_call();
	struct cache_ext_binding *b;

	if (!call)
		return NULL;
	/*
	 * Ejected meanwhile (the watchdog may have found the call overdue):
	 * a callback's kfuncs fail at once, so that a loop calling them
	 * ends.  init() and exit() run on a binding being set up or torn
	 * down and keep theirs.
	 */
	if (call != &sleeping_call &&
	    unlikely(atomic_read(&call->binding->policy->eject_reason)))
		return NULL;
	rcu_read_lock();
	b = cache_ext_sibling_binding(call->binding, (unsigned long)memcg);
	rcu_read_unlock();
	return b;
}

/**
 * cache_ext_current_call - the callback running here, for its kfuncs
 *
 * Return: the call of the non-sleeping callback running on this CPU, or
 * of the init() or exit() this task runs; NULL in interrupt context and
 * outside callbacks.  See &struct cache_ext_call.
 */
struct cache_ext_call *cache_ext_current_call(void)
{
	struct cache_ext_call *call;

	if (!in_task())
		return NULL;
	/*
	 * A callback running on this CPU comes first: it may be nested in
	 * init() or exit() (a fault or reclaim there), and it acts on its
	 * own binding.  Its record cannot be another task's: a callback
	 * keeps preemption disabled until it returns.
	 */
	call = this_cpu_read(cache_ext_running);
	if (call)
		return call;
	if (READ_ONCE(sleeping_task) == current)
		return &sleeping_call;
	return NULL;
}

/**
 * cache_ext_lock_contended - wait for a binding's lock another CPU holds
 * @b: the binding
 * @irqsave: take it with interrupts off (cache_ext_lock_irqsave()); else
 *	the caller has them off already (cache_ext_lock())
 *
 * The slow path of cache_ext_lock_irqsave() and cache_ext_lock().  The
 * wait is not the running call's doing: the holder is kernel code on
 * another CPU, perhaps a vCPU its host has preempted, which the waiter
 * spins through.  It is left out of the call's time, so that a policy is
 * not ejected for its host's scheduling (a get_scan moving folios on two
 * vCPUs of an overcommitted host was, its folio_accessed() calls over the
 * per-second budget).  A wait in interrupt context is not counted: the
 * interrupted call leaves out the interrupt's time already.
 *
 * Return: the flags for spin_unlock_irqrestore() with @irqsave, else 0.
 */
unsigned long cache_ext_lock_contended(struct cache_ext_binding *b,
				       bool irqsave)
	__acquires(&b->lock)
{
	struct cache_ext_call *call = in_task() ?
				      this_cpu_read(cache_ext_running) : NULL;
	u64 start = cache_ext_clock();
	unsigned long flags = 0;

	if (irqsave)
		spin_lock_irqsave(&b->lock, flags);
	else
		spin_lock(&b->lock);
	if (call)
		call->lock_wait += cache_ext_clock() - start;
	return flags;
}

/*
 * Whether @call is over: past its budget, by the clock if @read_clock, or
 * of a policy ejected since it began (a loop that asks for work ends now).
 * Once over, it stays over.
 */
static bool call_past_budget(struct cache_ext_call *call, bool read_clock)
{
	if (call->over)
		return true;
	if (call->binding &&
	    unlikely(atomic_read(&call->binding->policy->eject_reason))) {
		call->over = true;
		return true;
	}
	if (!read_clock)
		return false;
	call->over = cache_ext_call_time(call, cache_ext_clock()) > call->budget;
	return call->over;
}

/**
 * cache_ext_call_over_budget - has a callback used its time?
 * @call: the running call, or NULL
 *
 * The iterator and the proposal kfuncs stop working for a callback past
 * its budget, or of a policy ejected since the call began, so that a policy
 * cannot stretch a call by asking for more; its BPF loops end
 * (__cache_ext_loop_cancelled()).
 * Reading the clock is a good part of a kfunc's cost, so it is read only
 * from the jiffy before the budget can end (&cache_ext_call.check_from).
 *
 * Return: true if @call is past its budget.
 */
bool cache_ext_call_over_budget(struct cache_ext_call *call)
{
	return call &&
	       call_past_budget(call, !time_before(jiffies, call->check_from));
}

/*
 * A loop reads the clock once in this many iterations: the budget check
 * reads it every time once the budget may be near.
 */
#define LOOP_CLOCK_EVERY	64

/**
 * __cache_ext_loop_cancelled - must the BPF loop running here end?
 *
 * See cache_ext_loop_cancelled().  A loop of a callback past its budget,
 * or of an ejected policy, ends: the callback then returns as it would
 * after its loop's last iteration, its kfuncs failing meanwhile
 * (cache_ext_call_over_budget()), and leaves the kernel's lists and
 * registry as consistent as any return does.  A loop of any other BPF
 * program, or one running in an interrupt that came in during a callback,
 * goes on.
 *
 * Return: true if the loop must end now.
 */
bool __cache_ext_loop_cancelled(void)
{
	struct cache_ext_call *call;

	if (!in_task())
		return false;
	/* Not another task's: a callback keeps preemption disabled. */
	call = this_cpu_read(cache_ext_running);
	/*
	 * The clock once in LOOP_CLOCK_EVERY, not jiffies: they stop while
	 * the CPU that advances them runs a callback with interrupts off.
	 */
	return call &&
	       call_past_budget(call, !(++call->loop_checks % LOOP_CLOCK_EVERY));
}

/* End every binding of @policy; returns after their exit()s. */
static void unbind_policy(struct cache_ext_policy *policy)
{
	struct cache_ext_binding *binding, *tmp;
	LIST_HEAD(dead);

	lockdep_assert_held(&cache_ext_mutex);

	list_for_each_entry_safe(binding, tmp, &policy->bindings, policy_node)
		unpublish_binding(binding, &dead);
	synchronize_rcu();
	destroy_bindings(&dead);
}

/*
 * Unbind an ejected policy everywhere; it stays registered until unloaded.
 *
 * The grace period that lets the policy's running calls end is waited
 * for without cache_ext_mutex: a call of a policy ejected for its time
 * may be the one that holds it back, and memory.cache_ext, cgroup
 * teardown and registration must not wait behind it.  Meanwhile the
 * unpublished bindings are on @dead only: no lookup finds them, the
 * ejected policy binds nothing new, and cache_ext_policy_unregister()
 * flushes this work before the policy is freed.
 */
static void eject_workfn(struct work_struct *work)
{
	struct cache_ext_policy *policy =
		container_of(work, struct cache_ext_policy, eject_work);
	struct cache_ext_binding *binding, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&cache_ext_mutex);
	notify(CACHE_EXT_EVENT_EJECTED, policy->ops->name, 0,
	       atomic_read(&policy->eject_reason), policy->eject_msg);
	list_for_each_entry_safe(binding, tmp, &policy->bindings, policy_node)
		unpublish_binding(binding, &dead);
	mutex_unlock(&cache_ext_mutex);

	synchronize_rcu();

	mutex_lock(&cache_ext_mutex);
	destroy_bindings(&dead);
	mutex_unlock(&cache_ext_mutex);
}

/**
 * cache_ext_eject - eject a misbehaving policy from all its bindings
 * @policy: the policy
 * @reason: why; the first reason given sticks
 * @fmt: printf format of what the policy did, for the log, user space and
 *	the policy's exit() (&cache_ext_exit_info.msg)
 *
 * May be called from any context, reclaim included.  The hooks and
 * reclaim stop using the policy at once; its bindings are torn down from
 * a work item, after which the cgroups use the kernel's LRU again.
 *
 * Return: true if this call ejected the policy, false if it was ejected
 * already (for another reason, which stays).
 */
bool cache_ext_eject(struct cache_ext_policy *policy,
		     enum cache_ext_eject_reason reason, const char *fmt, ...)
{
	va_list args;

	if (atomic_cmpxchg(&policy->eject_reason, CACHE_EXT_EJECT_NONE,
			   reason) != CACHE_EXT_EJECT_NONE)
		return false;
	va_start(args, fmt);
	vscnprintf(policy->eject_msg, sizeof(policy->eject_msg), fmt, args);
	va_end(args);
	pr_warn("policy %s ejected: %s (%s); its cgroups go back to the kernel's LRU, and it binds no cgroup until it is registered again (cachectl attach --replace)\n",
		policy->ops->name, cache_ext_eject_reason_str(reason),
		policy->eject_msg);
	trace_cache_ext_eject(policy->ops->name, reason,
			      cache_ext_eject_reason_str(reason));
	queue_work(system_unbound_wq, &policy->eject_work);
	return true;
}

/**
 * cache_ext_note_error - count a bad candidate against a binding's budget
 * @binding: the binding whose policy proposed it
 * @reason: what was wrong with it
 *
 * The budget is a rate: the binding's recent errors are counted in a level
 * that halves every second, and the policy is ejected for @reason when
 * the level exceeds %CACHE_EXT_ERROR_BUDGET.  A policy that errs now and
 * then, as any policy racing with truncation might, is never ejected for
 * it; one that keeps proposing bad candidates is, within a second.
 */
void cache_ext_note_error(struct cache_ext_binding *binding,
			  enum cache_ext_eject_reason reason)
{
	unsigned long flags, halves;
	bool over;

	atomic_long_inc(&binding->stats.errors);

	flags = cache_ext_lock_irqsave(binding);
	halves = (jiffies - binding->err_stamp) / HZ;
	if (halves) {
		binding->err_level = halves < 32 ?
				     binding->err_level >> halves : 0;
		binding->err_stamp += halves * HZ;
	}
	over = ++binding->err_level > CACHE_EXT_ERROR_BUDGET;
	spin_unlock_irqrestore(&binding->lock, flags);

	if (over)
		cache_ext_eject(binding->policy, reason,
				"more than %d bad candidates in a second in cgroup %llu",
				CACHE_EXT_ERROR_BUDGET,
				cgroup_id(binding->memcg->css.cgroup));
}

__bpf_kfunc_start_defs();

/**
 * bpf_cache_ext_eject_self - a policy gives up: eject it, saying why
 * @memcg: the cgroup of the running callback, or another cgroup bound to
 *	the same policy
 * @msg__str: why, a constant string
 *
 * For a policy that finds it cannot go on (a list it relies on is gone,
 * state it keeps is inconsistent, a limit of its own is reached) and
 * would rather hand its cgroups back to the kernel's LRU than keep
 * deciding, as sched_ext's scx_bpf_error() does for a scheduler.  The
 * ejection is the one the kernel makes for a misbehaving policy, with
 * reason %CACHE_EXT_EJECT_SELF and @msg__str (and the cgroup) as its
 * message: in the log, the cache_ext_eject tracepoint, the policy's
 * exit() and its cache_ext_ctl events.  The policy's kfuncs fail from
 * now on, the callback should return.
 *
 * Return: 0; -EINVAL if not called from a callback of a policy bound to
 * @memcg, or if the policy is ejected already.
 */
__bpf_kfunc int bpf_cache_ext_eject_self(struct mem_cgroup *memcg,
					 const char *msg__str)
{
	struct cache_ext_binding *b = cache_ext_kfunc_binding(memcg);

	if (!b || !cache_ext_eject(b->policy, CACHE_EXT_EJECT_SELF,
				   "%s (in cgroup %llu)", msg__str,
				   cgroup_id(memcg->css.cgroup)))
		return -EINVAL;
	return 0;
}

__bpf_kfunc_end_defs();

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "cache_ext."

/*
 * How long one evict_folios() call, and one event callback, may take.
 * Generous: software-emulated test machines run BPF a hundred times slower
 * than hardware.  Only CACHE_EXT_OVERRUN_LIMIT calls in a row over the
 * budget eject the policy (cache_ext_note_time()).  Calls are timed in
 * nanoseconds; the budget in jiffies tells when to start reading the
 * clock (&cache_ext_call.check_from) and the watchdog.
 */
#define DEFAULT_BUDGET_MS	200
#define DEFAULT_BUDGET	{ (u64)DEFAULT_BUDGET_MS * NSEC_PER_MSEC,		\
			  (unsigned long)DEFAULT_BUDGET_MS * HZ / MSEC_PER_SEC }

static unsigned int evict_budget_ms = DEFAULT_BUDGET_MS;
static unsigned int event_budget_ms = DEFAULT_BUDGET_MS;

struct cache_ext_budget cache_ext_budgets[2] __read_mostly = {
	DEFAULT_BUDGET,
	DEFAULT_BUDGET,
};

static int budget_set(const char *val, const struct kernel_param *kp)
{
	struct cache_ext_budget *b = &cache_ext_budgets[kp->arg != &evict_budget_ms];
	int ret = param_set_uint(val, kp);
	unsigned int ms = *(unsigned int *)kp->arg;

	if (ret)
		return ret;
	WRITE_ONCE(b->ns, (u64)ms * NSEC_PER_MSEC);
	WRITE_ONCE(b->jiffies, (unsigned long)ms * HZ / MSEC_PER_SEC);
	return 0;
}

static const struct kernel_param_ops budget_ops = {
	.set = budget_set,
	.get = param_get_uint,
};

module_param_cb(evict_budget_ms, &budget_ops, &evict_budget_ms, 0644);
MODULE_PARM_DESC(evict_budget_ms,
		 "ms one evict_folios() call may take; 4 calls in a row over it eject the policy");
module_param_cb(event_budget_ms, &budget_ops, &event_budget_ms, 0644);
MODULE_PARM_DESC(event_budget_ms,
		 "ms one event callback (folio_added, ...) may take; 4 in a row over it eject");

static const char *timed_name(enum cache_ext_timed cb)
{
	static const char *const names[CACHE_EXT_NR_TIMED] = {
		[CACHE_EXT_T_EVICT]	= "evict_folios()",
		[CACHE_EXT_T_ADDED]	= "folio_added()",
		[CACHE_EXT_T_ACCESSED]	= "folio_accessed()",
		[CACHE_EXT_T_REMOVED]	= "folio_removed()",
		[CACHE_EXT_T_ADMIT]	= "admit_folio()",
		[CACHE_EXT_T_MAPPED]	= "folio_mapped_accessed()",
	};

	return names[cb];
}

/*
 * Each call within its budget can still make every read, or every
 * eviction, slow: the time of a binding's slow calls is also counted over
 * one-second windows, and a binding whose calls of one kind take more than
 * rate_budget_ms of a window is ejected.  A slow call is one that takes a
 * two-hundredth of its per-call budget or more for an event callback (a
 * millisecond at the default 200 ms), a twentieth for evict_folios() (ten
 * milliseconds).  Not shorter calls: in an emulated machine under load,
 * correct policies' short calls can add up to half of a CPU that does
 * little but insert folios (get_scan under a scan was ejected for its
 * event callbacks' time in a test run beside a debug VM when every call
 * counted), and reclaim asks for evict_folios() as often as memory is
 * short, which in such a machine can keep a correct policy's eviction
 * running most of the time (lfu's make run moves pages at 0.41x the
 * kernel's rate, at about half a millisecond a call).  The kernel's own
 * LRU isolates a batch in microseconds; ten milliseconds for one is slow
 * in any machine.  The threshold follows the budget so that one knob
 * scales a slower machine: under KASAN and lockdep, in an emulated machine
 * beside a kernel build, get_scan's calls (a list move on every access)
 * took a millisecond often enough to be ejected at the default budget.
 *
 * The event callbacks are windowed per CPU, so that a hit or an insertion
 * writes no shared cacheline; their share of the machine is their share
 * of the busiest CPU.  evict_folios() runs one call at a time per binding
 * (&cache_ext_binding.evict_lock), so its window is the binding's, written
 * under that lock, whichever CPU a call runs on.  Time is the clock's, so
 * a stall of the machine (a virtual CPU the host did not run) stretches
 * the calls it falls in, but in proportion: a policy that spends a tenth
 * of a CPU in its callbacks has a tenth of the stalls fall in them.  Each
 * call counts at most its own budget, so that one long stall cannot eject
 * a correct policy.
 */
static unsigned int rate_budget_ms = 500;

static int rate_budget_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, MSEC_PER_SEC);
}

static const struct kernel_param_ops rate_budget_ops = {
	.set = rate_budget_set,
	.get = param_get_uint,
};

module_param_cb(rate_budget_ms, &rate_budget_ops, &rate_budget_ms, 0644);
MODULE_PARM_DESC(rate_budget_ms,
		 "ms of each second one kind of a policy's slow callbacks may take (1-1000; 1000: no bound)");

/* The shortest call note_rate() counts: a fraction of the call's budget. */
static inline u64 rate_min_ns(enum cache_ext_timed cb)
{
	return READ_ONCE(cache_ext_budget(cb)->ns) /
	       (cb == CACHE_EXT_T_EVICT ? 20 : 200);
}

static void note_rate(struct cache_ext_binding *binding,
		      enum cache_ext_timed cb, u64 took, u64 now)
{
	u64 budget = (u64)READ_ONCE(rate_budget_ms) * NSEC_PER_MSEC;
	struct cache_ext_window *w;

	if (cb == CACHE_EXT_T_EVICT) {
		lockdep_assert_held(&binding->evict_lock);
		w = &binding->stats.evict_window;
	} else {
		w = &this_cpu_ptr(binding->stats.rate)->event[cb - 1];
	}
	/*
	 * A window begins where the call that opens it began, so the calls
	 * counted in one all ran within it (nested calls aside): calls that
	 * run one at a time, on one CPU or under one lock, cannot sum to more
	 * than the second, and 1000 ms is no bound.  The evict_folios()
	 * window compares the clocks of the CPUs its calls ran on; their skew
	 * is small next to a second, and a negative one only restarts it.
	 */
	if (now - w->start >= NSEC_PER_SEC) {
		w->start = now - took;
		w->ns = 0;
	}
	w->ns += min(took, READ_ONCE(cache_ext_budget(cb)->ns));
	if (w->ns <= budget)
		return;
	if (cb == CACHE_EXT_T_EVICT)
		cache_ext_eject(binding->policy, CACHE_EXT_EJECT_TIMEOUT,
				"%s calls took over %llu us of one second in cgroup %llu",
				timed_name(cb), budget / NSEC_PER_USEC,
				cgroup_id(binding->memcg->css.cgroup));
	else
		cache_ext_eject(binding->policy, CACHE_EXT_EJECT_EVENT_TIMEOUT,
				"%s calls took over %llu us of one second on CPU %d in cgroup %llu",
				timed_name(cb), budget / NSEC_PER_USEC,
				smp_processor_id(),
				cgroup_id(binding->memcg->css.cgroup));
}

/**
 * cache_ext_note_time - charge a callback's time to its binding
 * @binding: the binding whose callback returned
 * @cb: which callback
 * @took: nanoseconds it ran, interrupts left out (cache_ext_leave())
 * @now: cache_ext_clock() when it returned, on the CPU it ran on
 *
 * A call over its budget counts one overrun, a call within it clears the
 * count; %CACHE_EXT_OVERRUN_LIMIT overruns in a row eject the policy.
 * Overruns that overlap in time count once: a machine that stalls (a
 * virtual CPU the host did not run while it held a lock the others spin
 * on, an interrupt storm) stretches every call running at that moment,
 * and they all end together.  A policy that is slow every time makes
 * overruns one after the other, and is ejected.  Each callback is counted
 * apart, so that fast calls of one cannot hide a runaway other.  Slow
 * calls' time is also bounded per second (note_rate()).
 *
 * Called with preemption disabled, on the CPU the call ran on; for
 * evict_folios(), with the binding's evict_lock held.
 */
void cache_ext_note_time(struct cache_ext_binding *binding,
			 enum cache_ext_timed cb, u64 took, u64 now)
{
	atomic_t *overruns = &binding->overruns[cb];

	if (took >= rate_min_ns(cb))
		note_rate(binding, cb, took, now);
	if (took <= READ_ONCE(cache_ext_budget(cb)->ns)) {
		if (atomic_read(overruns))
			atomic_set(overruns, 0);
		return;
	}
	/* Compared across CPUs: the clock that is, read only now. */
	now = local_clock();
	if (now - took < READ_ONCE(binding->overrun_end[cb]))
		return;		/* the same stall as the last overrun */
	WRITE_ONCE(binding->overrun_end[cb], now);
	if (atomic_inc_return(overruns) >= CACHE_EXT_OVERRUN_LIMIT)
		cache_ext_eject(binding->policy, cb == CACHE_EXT_T_EVICT ?
				CACHE_EXT_EJECT_TIMEOUT :
				CACHE_EXT_EJECT_EVENT_TIMEOUT,
				"%s took %llu us, over its %llu us budget, %d times in a row in cgroup %llu",
				timed_name(cb), took / NSEC_PER_USEC,
				READ_ONCE(cache_ext_budget(cb)->ns) / NSEC_PER_USEC,
				CACHE_EXT_OVERRUN_LIMIT,
				cgroup_id(binding->memcg->css.cgroup));
}

/*
 * A callback that does not return is ejected without waiting for it: once
 * a callback has run for four times its budget, and at least a second,
 * its policy is ejected.  The call itself ends long before that: past its
 * budget its kfuncs fail (cache_ext_kfunc_binding(),
 * cache_ext_call_over_budget()) and its BPF loops end, whether or not they
 * call a kfunc (__cache_ext_loop_cancelled()), and no reclaimer waits for
 * it meanwhile (cache_ext_begin_reclaim() only trylocks).  What is left
 * for the watchdog is a call whose budget check cannot run: a CPU that
 * stopped in the middle of one.  The second's floor keeps a stall of the
 * machine from ejecting a policy given a small budget; the per-call
 * budget deals with calls that return late.
 *
 * A binding read from a CPU's watch is alive: it is freed only after a
 * grace period that follows its unpublishing, by which time every watch
 * of it is cleared, and after the pass that might have read one before
 * (cache_ext_watchdog_lock, binding_free()).
 */
static void cache_ext_watchdog_fn(struct work_struct *work)
{
	int cpu;

	spin_lock(&cache_ext_watchdog_lock);
	for_each_online_cpu(cpu) {
		struct cache_ext_watch *w = per_cpu_ptr(&cache_ext_watch, cpu);
		struct cache_ext_binding *b;
		unsigned long start, limit;
		enum cache_ext_timed cb;

		/* Pairs with cache_ext_enter(): @start and @cb are its call's. */
		b = smp_load_acquire(&w->binding);

		if (!b)
			continue;
		start = READ_ONCE(w->start);
		cb = READ_ONCE(w->cb);
		limit = max(4 * READ_ONCE(cache_ext_budget(cb)->jiffies),
			    (unsigned long)HZ);
		if (time_before(jiffies, start + limit) ||
		    atomic_read(&b->policy->eject_reason))
			continue;
		cache_ext_eject(b->policy, cb == CACHE_EXT_T_EVICT ?
				CACHE_EXT_EJECT_TIMEOUT :
				CACHE_EXT_EJECT_EVENT_TIMEOUT,
				"%s has not returned after %u ms in cgroup %llu",
				timed_name(cb), jiffies_to_msecs(jiffies - start),
				cgroup_id(b->memcg->css.cgroup));
	}
	spin_unlock(&cache_ext_watchdog_lock);
	if (static_key_enabled(&cache_ext_bound))
		queue_delayed_work(system_unbound_wq, &cache_ext_watchdog,
				   WATCHDOG_PERIOD);
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
	unpublish_binding(binding, &dead);
	synchronize_rcu();
	destroy_bindings(&dead);
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
	struct cache_ext_policy *policy;
	int reason;

	lockdep_assert_held(&cache_ext_mutex);

	policy = policy_find_by_name(name);
	if (!policy) {
		log_unknown_name(name);
		return -ENOENT;
	}
	reason = atomic_read(&policy->eject_reason);
	if (reason) {
		pr_info_ratelimited("policy %s was ejected (%s) and binds no cgroup; unregister it and register it again (cachectl attach --replace OBJ)\n",
				    name, cache_ext_eject_reason_str(reason));
		return -ESHUTDOWN;
	}
	return bind_chosen(policy, memcg, true);
}

static int bind_cgroup_id(struct cache_ext_policy *policy, u64 id,
			  bool eject_on_init_failure)
{
	struct mem_cgroup *memcg;
	int ret;

	memcg = memcg_get_by_cgroup_id(id);
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
		memcg = memcg_get_by_cgroup_id(ops->cgroup_id);
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
	INIT_WORK(&policy->eject_work, eject_workfn);

	mutex_lock(&cache_ext_mutex);
	if (policy_find_by_name(ops->name)) {
		ret = -EEXIST;
		goto out_free;
	}
	/* Registered, then bound: the events come in that order. */
	list_add_tail(&policy->node, &cache_ext_policies);
	notify(CACHE_EXT_EVENT_REGISTERED, ops->name, 0, CACHE_EXT_EJECT_NONE,
	       NULL);
	if (cgroup_id) {
		ret = bind_cgroup_id(policy, cgroup_id, false);
		if (ret) {
			/* Never bound, never ejected: nothing else to wait for. */
			list_del(&policy->node);
			notify(CACHE_EXT_EVENT_UNREGISTERED, ops->name, 0,
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
	unbind_policy(policy);
	mutex_unlock(&cache_ext_mutex);

	/* An ejection queued before that runs now, and is the last. */
	flush_work(&policy->eject_work);

	mutex_lock(&cache_ext_mutex);
	notify(CACHE_EXT_EVENT_UNREGISTERED, ops->name, 0, CACHE_EXT_EJECT_NONE,
	       NULL);
	mutex_unlock(&cache_ext_mutex);
	kfree(policy);
}

/* ------------------------------------------------------------------ */
/* Interface for the companion module                                  */
/* ------------------------------------------------------------------ */

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

	memcg = memcg_get_by_cgroup_id(cgroup_id);
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

	memcg = memcg_get_by_cgroup_id(cgroup_id);
	if (IS_ERR(memcg))
		return PTR_ERR(memcg);

	mutex_lock(&cache_ext_mutex);
	unbind_memcg(memcg);
	mutex_unlock(&cache_ext_mutex);
	css_put(&memcg->css);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(cache_ext_unbind, CACHE_EXT);

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

/* ------------------------------------------------------------------ */
/* Page cache hooks                                                    */
/* ------------------------------------------------------------------ */

/*
 * The hooks run on every page cache event, so each declares its struct
 * cache_ext_call in the block that calls the policy: with
 * CONFIG_INIT_STACK_ALL_ZERO (the default where the compiler has it)
 * every local is cleared when its scope is entered, and clearing the
 * call's 128 bytes on every event cost more than the rest of a hook.
 */

/*
 * The binding of a file folio's cgroup, or NULL, whatever its state: the
 * registry must stay exact even while a policy is set up or ejected.
 * Anonymous and shmem folios are never a policy's business.  Caller
 * holds the RCU read lock, or has interrupts off (an RCU read-side
 * critical section too: synchronize_rcu() waits for it).
 */
static __always_inline struct cache_ext_binding *
folio_any_binding(struct folio *folio)
{
	struct mem_cgroup *memcg;

	if (folio_test_anon(folio) || folio_test_swapbacked(folio))
		return NULL;
	memcg = folio_memcg(folio);
	return memcg ? rcu_dereference_check(memcg->cache_ext,
					     rcu_read_lock_any_held()) : NULL;
}

/* The binding of a folio's cgroup if its policy may be called, or NULL. */
static __always_inline struct cache_ext_binding *
folio_binding(struct folio *folio)
{
	struct cache_ext_binding *binding = folio_any_binding(folio);

	if (!binding || READ_ONCE(binding->state) != CACHE_EXT_BINDING_ACTIVE ||
	    atomic_read(&binding->policy->eject_reason))
		return NULL;
	return binding;
}

/*
 * @call is about @folio, node @idx of its binding: the policy's
 * bpf_cache_ext_folio_data() and the registry lookups of its kfuncs find
 * the folio without hashing (cache_ext_registry_find()).
 */
static void call_hold_folio(struct cache_ext_call *call, struct folio *folio,
			    u32 idx)
{
	call->folio = folio;
	call->index = idx;
	call->data = reg_data(&call->binding->registry, idx);
}

/*
 * Track @folio, whose node @idx is reserved, in @binding: tell the policy
 * that it entered its cgroup's page cache if it listens (a policy without
 * folio_added() is told nothing, and only the kernel lists its folios),
 * then commit the node where the policy put it.  The policy's list kfuncs
 * on @folio record where it goes, so that the commit hashes and links it
 * in one hold of the binding's lock.  Caller holds the RCU read lock.
 */
static void track_folio(struct cache_ext_binding *binding,
			struct folio *folio, u32 idx, bool admitted,
			bool tell)
{
	struct cache_ext_insert ins = {
		.folio = folio,
		.idx = idx,
		.list = binding->ops->flags & CACHE_EXT_OPS_ADD_TO_LIST ? 0 : -1,
		.tail = true,
		.admitted = admitted,
	};

	/*
	 * @call in the block that calls BPF: CONFIG_INIT_STACK_ALL_ZERO
	 * clears it where it is declared, and most policies have no
	 * folio_added() (fifo's kernel lists its folios).
	 */
	if (tell && binding->ops->folio_added) {
		struct cache_ext_call call;

		cache_ext_enter(&call, binding, CACHE_EXT_T_ADDED);
		call_hold_folio(&call, folio, idx);
		call.insert = &ins;
		binding->ops->folio_added(folio, binding->memcg);
		cache_ext_leave(&call);
	}
	/* Unless a list kfunc committed it already (insert_flush()). */
	if (!ins.done)
		cache_ext_registry_commit(binding, &ins);
}

/*
 * The ghost of a folio: a hash of its place in the page cache, never 0,
 * and the slot of &cache_ext_binding.ra_ghosts it goes to.
 */
static u32 ra_ghost_key(struct folio *folio, u32 **slot,
			struct cache_ext_binding *binding)
{
	u64 h = hash_64((unsigned long)folio->mapping ^
			(folio->index * GOLDEN_RATIO_64), 64);

	*slot = &binding->ra_ghosts[h & (CACHE_EXT_RA_GHOSTS - 1)];
	return (u32)(h >> 32) | 1;
}

/*
 * A folio is read in again: if reclaim evicted it unread after readahead
 * brought it in, count it (once).
 */
static void note_prefetch_refault(struct cache_ext_binding *binding,
				  struct folio *folio)
{
	u32 *slot, key = ra_ghost_key(folio, &slot, binding);

	if (READ_ONCE(*slot) == key && cmpxchg(slot, key, 0) == key)
		atomic_long_inc(&binding->stats.prefetch_refaults);
}

/*
 * Called by filemap_add_folio() with the new folio locked.  @gfp is the
 * insertion's allocation context; reads pass no __GFP_WRITE, and only
 * those are asked about admission and counted as misses.  @refault: the
 * page cache held the shadow of a folio evicted from this index.  The
 * folio is prefetched if readahead inserts it (cache_ext_readahead_begin()).
 */
void __cache_ext_folio_added(struct folio *folio, gfp_t gfp, bool refault)
{
	/* Set up by cache_ext_registry_needs() if it is used. */
	struct cache_ext_prealloc pre __uninitialized;
	bool prefetched = current->in_cache_ext_readahead;
	struct cache_ext_binding *binding;
	bool admitted = true, need = false;
	u32 idx;

	rcu_read_lock();
	binding = folio_binding(folio);
	if (!binding)
		goto out;
	if (!(gfp & __GFP_WRITE)) {
		this_cpu_inc(binding->stats.effect->misses);
		if (refault) {
			this_cpu_inc(binding->stats.effect->refaults);
			note_prefetch_refault(binding, folio);
		}
		if (prefetched)
			this_cpu_inc(binding->stats.effect->prefetched);
	}
	if (!binding->tracks)
		goto out;
	need = cache_ext_registry_needs(binding, &pre);
	if (need) {
		/*
		 * Allocation may sleep: outside the RCU section, so look
		 * the binding up again; it may even be another one by now.
		 */
		rcu_read_unlock();
		cache_ext_prealloc_fill(&pre, folio_memcg(folio),
					gfp & GFP_RECLAIM_MASK & ~__GFP_NOFAIL);
		rcu_read_lock();
		binding = folio_binding(folio);
		if (!binding)
			goto out;
	}

	if (binding->ops->admit_folio && !(gfp & __GFP_WRITE)) {
		struct cache_ext_admit_ctx ctx = {
			.mapping = folio->mapping,
			.index = folio->index,
			.nr_pages = folio_nr_pages(folio),
		};
		struct cache_ext_call call;

		cache_ext_enter(&call, binding, CACHE_EXT_T_ADMIT);
		admitted = binding->ops->admit_folio(&ctx, binding->memcg);
		cache_ext_leave(&call);
	}

	idx = cache_ext_registry_reserve(binding, need ? &pre : NULL, folio,
					 admitted, prefetched);
	if (!idx) {
		atomic_long_inc(&binding->stats.untracked);
		goto out;
	}
	track_folio(binding, folio, idx, admitted, true);
out:
	rcu_read_unlock();
	if (need)
		cache_ext_prealloc_free(&pre);
}

/*
 * @folio of @binding was used: it is prefetched no more.  The page cache
 * hit path: no lock is taken and nothing shared is written, only the
 * folio's own prefetched bit, once (cache_ext_registry_lookup_rcu()).
 *
 * Return: the folio's node, if the binding tracks folios and it was
 * found, else 0.
 */
static u32 note_folio_used(struct cache_ext_binding *binding,
			   struct folio *folio)
{
	u32 idx;

	if (!binding->tracks)
		return 0;
	idx = cache_ext_registry_lookup_rcu(binding, folio);
	if (idx)
		reg_clear_prefetched(&binding->registry, idx);
	return idx;
}

/*
 * Tell @binding's policy that @folio was used: count the use if the
 * policy has the kernel count them, and call it if it listens.  @idx is
 * the folio's node if the caller found it (0 if not): the policy's
 * bpf_cache_ext_folio_data() then needs no lookup.  Caller holds the RCU
 * read lock.
 */
static void tell_folio_accessed(struct cache_ext_binding *binding,
				struct folio *folio, u32 idx)
{
	if (idx && binding->count_refs)
		reg_count_ref(&binding->registry, idx);
	if (binding->ops->folio_accessed) {
		struct cache_ext_call call;

		cache_ext_enter(&call, binding, CACHE_EXT_T_ACCESSED);
		if (idx)
			call_hold_folio(&call, folio, idx);
		binding->ops->folio_accessed(folio, binding->memcg);
		cache_ext_leave(&call);
	}
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
	if (!binding)
		goto out;
	this_cpu_inc(binding->stats.effect->accesses);
	tell_folio_accessed(binding, folio, note_folio_used(binding, folio));
out:
	rcu_read_unlock();
}

/* Off: measure what the mapped-access reports are worth (make eval). */
static bool report_mapped = true;
module_param_named(mapped_accesses, report_mapped, bool, 0644);
MODULE_PARM_DESC(mapped_accesses,
		 "tell policies of accesses through page tables (folio_mapped_accessed); default on");

/*
 * Called by reclaim (folio_check_references(), @folio locked) and by
 * MGLRU's page-table walk and look-around (under a page-table lock) for
 * a folio whose accessed bit they found set in @nr_ptes page-table
 * entries.  Anonymous and shmem folios have no binding's policy to tell.
 */
void __cache_ext_folio_mapped_accessed(struct folio *folio, int nr_ptes)
{
	struct cache_ext_binding *binding;
	u32 idx;

	if (!READ_ONCE(report_mapped) || folio_test_anon(folio) ||
	    folio_test_swapbacked(folio) || !READ_ONCE(folio->mapping))
		return;

	rcu_read_lock();
	binding = folio_binding(folio);
	if (!binding)
		goto out;
	this_cpu_inc(binding->stats.effect->mapped_accesses);
	idx = note_folio_used(binding, folio);
	if (binding->ops->folio_mapped_accessed) {
		struct cache_ext_call call;

		cache_ext_enter(&call, binding, CACHE_EXT_T_MAPPED);
		if (idx)
			call_hold_folio(&call, folio, idx);
		binding->ops->folio_mapped_accessed(folio, binding->memcg,
						    nr_ptes);
		cache_ext_leave(&call);
	} else {
		tell_folio_accessed(binding, folio, idx);
	}
out:
	rcu_read_unlock();
}

/*
 * Called under the mapping's i_pages lock for every folio leaving it.
 * The folio leaves the registry and its list even if the policy is being
 * ejected, so that no node outlives its folio.
 */
void __cache_ext_folio_removed(struct folio *folio)
{
	struct cache_ext_binding *binding;
	bool tracked, prefetched;
	u32 data = 0;

	/*
	 * The i_pages lock is held with interrupts off: the binding cannot
	 * be freed meanwhile (see folio_any_binding()).  rcu_read_lock() is
	 * taken only around the policy, which the BPF helpers expect.
	 */
	lockdep_assert_irqs_disabled();
	binding = folio_any_binding(folio);
	if (!binding || !binding->tracks)
		return;

	cache_ext_lock(binding);
	tracked = cache_ext_registry_remove(binding, folio,
					    binding->ops->folio_removed ?
					    &data : NULL, &prefetched);
	spin_unlock(&binding->lock);
	/* Reclaimers run with PF_MEMALLOC; truncation does not. */
	if (tracked && prefetched && (current->flags & PF_MEMALLOC)) {
		u32 *slot, key = ra_ghost_key(folio, &slot, binding);

		atomic_long_inc(&binding->stats.prefetch_evicted);
		WRITE_ONCE(*slot, key);
	}
	if (!tracked || !binding->ops->folio_removed)
		return;

	rcu_read_lock();
	if (binding == folio_binding(folio)) {
		struct cache_ext_call call;

		cache_ext_enter(&call, binding, CACHE_EXT_T_REMOVED);
		call.removed_data = data;
		call.folio = folio;
		call.index = 0;
		call.data = &call.removed_data;
		binding->ops->folio_removed(folio, binding->memcg);
		cache_ext_leave(&call);
	}
	rcu_read_unlock();
}

/*
 * Called by __folio_migrate_mapping() and replace_page_cache_folio() under
 * the i_pages lock, both folios locked, @new already in @old's place and
 * charged to @old's memory cgroup.  Neither goes through the removal and
 * insertion hooks, so the registry entry, with its place on the policy's
 * lists, moves to @new.  Like removal, this keeps the registry right even
 * while the policy is being ejected.
 */
void __cache_ext_folio_replaced(struct folio *old, struct folio *new)
{
	struct cache_ext_binding *binding;
	unsigned long flags;

	rcu_read_lock();
	binding = folio_any_binding(old);
	if (binding && binding->tracks) {
		flags = cache_ext_lock_irqsave(binding);
		cache_ext_registry_rekey(binding, old, new);
		spin_unlock_irqrestore(&binding->lock, flags);
	}
	rcu_read_unlock();
}

/*
 * Called by __split_huge_page() for each folio @tail split off @folio that
 * stays in the page cache, under the mapping's i_pages lock with
 * interrupts off, once the split is done (@folio is the first of the new
 * folios and keeps its node, its place and its policy data).  If @folio is
 * tracked, @tail is tracked from now on too, as if it had just been
 * inserted: its data starts at 0 and the policy's folio_added() is told,
 * but admission is not asked and no miss is counted; it is prefetched if
 * @folio is.  Memory for the
 * registry is allocated atomically; without it @tail stays untracked, and
 * is counted so.
 */
void __cache_ext_folio_split(struct folio *folio, struct folio *tail)
{
	struct cache_ext_prealloc pre __uninitialized;
	struct cache_ext_binding *binding;
	bool need, prefetched;
	u32 idx;

	lockdep_assert_irqs_disabled();
	binding = folio_any_binding(folio);
	if (!binding || !binding->tracks)
		return;
	idx = cache_ext_registry_lookup_rcu(binding, folio);
	prefetched = idx && reg_test_prefetched(&binding->registry, idx);
	if (!idx)
		return;

	need = cache_ext_registry_needs(binding, &pre);
	if (need)
		cache_ext_prealloc_fill(&pre, folio_memcg(folio), GFP_ATOMIC);
	idx = cache_ext_registry_reserve(binding, need ? &pre : NULL, tail,
					 true, prefetched);
	/* kmalloc()ed only: atomic allocations do not fall back to vmalloc. */
	if (need)
		cache_ext_prealloc_free(&pre);
	if (!idx) {
		atomic_long_inc(&binding->stats.untracked);
		return;
	}

	rcu_read_lock();
	track_folio(binding, tail, idx, true, binding == folio_binding(tail));
	rcu_read_unlock();
}

/*
 * Called by filemap_read() for each folio it copied from.  A folio the
 * policy did not admit is dropped now, if nobody else uses it: clean, not
 * under writeback, not mapped, and only the reader's reference besides
 * the page cache's.
 */
void __cache_ext_folio_read(struct folio *folio)
{
	struct cache_ext_binding *binding;
	struct address_space *mapping;
	struct mem_cgroup *memcg;
	bool drop = false;
	u32 idx;

	rcu_read_lock();
	binding = folio_binding(folio);
	if (binding && binding->ops->admit_folio) {
		/* Every read asks: no lock, and the node's word read once. */
		idx = cache_ext_registry_lookup_rcu(binding, folio);
		if (idx) {
			struct cache_ext_node n =
				node_read_once(reg_node(&binding->registry, idx));

			drop = n.noadmit;
		}
	}
	rcu_read_unlock();
	if (!drop || !folio_trylock(folio))
		return;
	/*
	 * A folio just read in may still wait in this CPU's LRU-add batch,
	 * whose reference would make mapping_evict_folio() refuse it.  If
	 * the reader moved since it added the folio, the batch is another
	 * CPU's; draining every CPU would sleep on a read path and disturb
	 * isolated CPUs, so the folio stays, still not admitted, for its
	 * next read (which asks again) or reclaim.
	 */
	if (!folio_test_lru(folio))
		lru_add_drain();
	if (!folio_test_lru(folio)) {
		folio_unlock(folio);
		return;
	}

	/* The reader's reference keeps the folio's memcg alive. */
	memcg = folio_memcg(folio);
	mapping = folio->mapping;
	drop = mapping && !folio_test_dirty(folio) &&
	       !folio_test_writeback(folio) && !folio_mapped(folio) &&
	       mapping_evict_folio(mapping, folio);
	folio_unlock(folio);

	if (drop) {
		rcu_read_lock();
		binding = rcu_dereference(memcg->cache_ext);
		if (binding)
			atomic_long_inc(&binding->stats.not_admitted);
		rcu_read_unlock();
	}
}
