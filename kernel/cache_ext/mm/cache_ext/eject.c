// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext ejection: a policy that misbehaves (calls over their time
 * budget, by the call or by the second; a callback that does not return;
 * bad candidates; an administrator's kill; its own request) loses every
 * binding, and its cgroups go back to the kernel's LRU.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/btf.h>
#include <linux/cache_ext.h>
#include <linux/cgroup.h>
#include <linux/memcontrol.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include <trace/events/cache_ext.h>

#include "ctl.h"
#include "internal.h"

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
void cache_ext_eject_workfn(struct work_struct *work)
{
	struct cache_ext_policy *policy =
		container_of(work, struct cache_ext_policy, eject_work);
	struct cache_ext_binding *binding, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&cache_ext_mutex);
	cache_ext_notify(CACHE_EXT_EVENT_EJECTED, policy->ops->name, 0,
			 atomic_read(&policy->eject_reason), policy->eject_msg);
	list_for_each_entry_safe(binding, tmp, &policy->bindings, policy_node)
		cache_ext_unpublish_binding(binding, &dead);
	mutex_unlock(&cache_ext_mutex);

	synchronize_rcu();

	mutex_lock(&cache_ext_mutex);
	cache_ext_destroy_bindings(&dead);
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

/*
 * A call entered with interrupts off holds its CPU against everything,
 * interrupts included, and the i_pages lock of its mapping against every
 * other CPU that looks the file's pages up: its loops are ended, and its
 * kfuncs fail, past a millisecond, not past the event budget (which,
 * generous for emulated machines, would leave interrupts off for up to
 * twice 200 ms).  A policy's folio_removed() deletes what it kept of a
 * folio, microseconds even when emulated; one that overruns is ejected
 * like any other (cache_ext_note_time()).  The lower of this and the
 * callback's budget applies.
 */
#define DEFAULT_IRQS_OFF_BUDGET_US	1000

static unsigned int irqs_off_budget_us = DEFAULT_IRQS_OFF_BUDGET_US;
u64 cache_ext_irqs_off_budget __read_mostly =
	(u64)DEFAULT_IRQS_OFF_BUDGET_US * NSEC_PER_USEC;

static int irqs_off_budget_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint_minmax(val, kp, 1, UINT_MAX);

	if (ret)
		return ret;
	WRITE_ONCE(cache_ext_irqs_off_budget,
		   (u64)irqs_off_budget_us * NSEC_PER_USEC);
	return 0;
}

static const struct kernel_param_ops irqs_off_budget_ops = {
	.set = irqs_off_budget_set,
	.get = param_get_uint,
};

module_param_cb(irqs_off_budget_us, &irqs_off_budget_ops, &irqs_off_budget_us,
		0644);
MODULE_PARM_DESC(irqs_off_budget_us,
		 "us a callback called with interrupts off (folio_removed, ...) may take, if less than its budget");

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
 * rate_budget_ms of each of CACHE_EXT_RATE_WINDOWS windows in a row is
 * ejected.  A slow call is one that takes a
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

/*
 * Windows in a row over rate_budget_ms that eject a policy.  One is not
 * enough: a correct policy whose calls are short but take much of a CPU
 * has many of its host's stalls fall in them, and each stalled call
 * counts whole.  In an emulated 2-vCPU guest beside two CPU hogs on a
 * 2-CPU host, folio_stamp (test_migrate) was ejected in one run in six of
 * four readers inserting 256 MiB, its folio_added() calls over 500 ms of
 * one second on one CPU.  Stalls come in bursts; a policy slow on every
 * call is over in every window, and is ejected within a few seconds.
 */
#define CACHE_EXT_RATE_WINDOWS	3

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
	u64 before;

	if (cb == CACHE_EXT_T_EVICT) {
		lockdep_assert_held(&binding->evict_lock);
		w = &binding->stats.evict_window;
	} else {
		w = &this_cpu_ptr(binding->stats.rate)->event[cb - 1];
	}
	/*
	 * A window begins where the call that opens it began, less the time
	 * it was preempted.  Calls that run one at a time then sum to no more
	 * than the second; but the calls of one CPU may be preempted by each
	 * other, and a window counts the whole time of a call that ends in
	 * it, some of which may have run before it began: two readers on a
	 * CPU, each in a folio_accessed() of 100 ms, summed past a second.
	 * So 1000 ms, no bound, is not left to the sum.  The evict_folios()
	 * window compares the clocks of the CPUs its calls ran on; their skew
	 * is small next to a second, and a negative one only restarts it.
	 */
	if (now - w->start >= NSEC_PER_SEC) {
		/*
		 * A window continues the row of windows over the budget if
		 * it was over too and the new one follows it: a second
		 * without a slow call between them breaks the row.
		 */
		if (w->ns <= budget || now - w->start >= 2 * NSEC_PER_SEC)
			w->nr_over = 0;
		w->start = now - took;
		w->ns = 0;
	}
	before = w->ns;
	w->ns += min(took, READ_ONCE(cache_ext_budget(cb)->ns));
	/* Each window counts once, when its calls go over the budget. */
	if (before > budget || w->ns <= budget || budget >= NSEC_PER_SEC ||
	    ++w->nr_over < CACHE_EXT_RATE_WINDOWS)
		return;
	if (cb == CACHE_EXT_T_EVICT)
		cache_ext_eject(binding->policy, CACHE_EXT_EJECT_TIMEOUT,
				"%s calls took over %llu us of one second in cgroup %llu, %u seconds in a row",
				timed_name(cb), budget / NSEC_PER_USEC,
				cgroup_id(binding->memcg->css.cgroup),
				CACHE_EXT_RATE_WINDOWS);
	else
		cache_ext_eject(binding->policy, CACHE_EXT_EJECT_EVENT_TIMEOUT,
				"%s calls took over %llu us of one second on CPU %d in cgroup %llu, %u seconds in a row",
				timed_name(cb), budget / NSEC_PER_USEC,
				smp_processor_id(),
				cgroup_id(binding->memcg->css.cgroup),
				CACHE_EXT_RATE_WINDOWS);
}

/**
 * cache_ext_note_time - charge a callback's time to its binding
 * @call: the call that returned: its binding, callback and budget, and
 *	whether the kernel cut it (&cache_ext_call.over: past its budget of
 *	its own time or of time on its CPU, cache_ext_call_over_budget())
 * @took: nanoseconds it ran, interrupts left out (cache_ext_leave())
 * @now: cache_ext_clock() when it returned, on the CPU it ran on
 *
 * A call over its budget, or cut, counts one overrun, a call within it
 * clears the count; %CACHE_EXT_OVERRUN_LIMIT overruns in a row eject the
 * policy.  A call cut at twice its budget of time on its CPU has run
 * less than its budget of its own time, yet only because the kernel
 * stopped it: it must not clear the count.
 * Overruns that overlap in time count once: a machine that stalls (a
 * virtual CPU the host did not run while it held a lock the others spin
 * on, an interrupt storm) stretches every call running at that moment,
 * and they all end together.  A policy that is slow every time makes
 * overruns one after the other, and is ejected.  Each callback is counted
 * apart, so that fast calls of one cannot hide a runaway other.  Slow
 * calls' time is also bounded per second (note_rate()).
 *
 * Called with preemption disabled, on the CPU the call ran on (its task
 * had migration disabled throughout); for evict_folios(), with the
 * binding's evict_lock held.
 */
void cache_ext_note_time(const struct cache_ext_call *call, u64 took,
			 u64 now)
{
	struct cache_ext_binding *binding = call->binding;
	enum cache_ext_timed cb = call->cb;
	atomic_t *overruns = &binding->overruns[cb];

	if (took >= rate_min_ns(cb))
		note_rate(binding, cb, took, now);
	if (took <= call->budget && !call->over) {
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
				"%s took %llu us, %s its %llu us budget%s, %d times in a row in cgroup %llu",
				timed_name(cb), took / NSEC_PER_USEC,
				took > call->budget ? "over" : "cut at twice",
				call->budget / NSEC_PER_USEC,
				call->irqs_off ? " with interrupts off" : "",
				CACHE_EXT_OVERRUN_LIMIT,
				cgroup_id(binding->memcg->css.cgroup));
}

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

/* Have the watchdog run while any binding exists (hooks_get() in bind.c). */
void cache_ext_watchdog_start(void)
{
	queue_delayed_work(system_unbound_wq, &cache_ext_watchdog,
			   WATCHDOG_PERIOD);
}

/*
 * Wait for the watchdog pass that is running, if any: after it, no pass
 * holds a binding it read from a CPU's watch before that was cleared
 * (binding_free() in bind.c).
 */
void cache_ext_watchdog_sync(void)
{
	spin_lock(&cache_ext_watchdog_lock);
	spin_unlock(&cache_ext_watchdog_lock);
}
