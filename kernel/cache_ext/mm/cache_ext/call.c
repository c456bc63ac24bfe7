// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext calls: which callback runs here, for its kfuncs, and whether
 * it is past its budget (its kfuncs then fail and its BPF loops end).
 * Entering and leaving a call is inline, in call.h.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/cache_ext.h>
#include <linux/cgroup.h>
#include <linux/memcontrol.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#include "internal.h"

DEFINE_PER_CPU(struct cache_ext_call *, cache_ext_running);
DEFINE_PER_CPU(struct cache_ext_watch, cache_ext_watch);

/*
 * A task preempted in a callback: its calls leave the CPU's record and its
 * watch (the task that runs next has its own, or none), and the time it
 * is away begins.  Called in the context switch, interrupts off and the
 * runqueue locked: per-CPU data and the clock only.
 */
static void call_switched_out(struct preempt_notifier *follow,
			      struct task_struct *next)
{
	struct cache_ext_call *outer = container_of(follow,
						    struct cache_ext_call,
						    follow);

	outer->top = this_cpu_read(cache_ext_running);
	this_cpu_write(cache_ext_running, NULL);
	WRITE_ONCE(this_cpu_ptr(&cache_ext_watch)->binding, NULL);
	outer->off_clock = cache_ext_clock();
	outer->off_irq = cache_ext_irq_time();
	outer->off_jiffies = jiffies;
}

/*
 * The task runs again, on the same CPU (migration is disabled): each of
 * its calls leaves the time it was away out of its own, budget checks and
 * watchdog included, and the CPU's record is its calls again.
 */
static void call_switched_in(struct preempt_notifier *follow, int cpu)
{
	struct cache_ext_call *outer = container_of(follow,
						    struct cache_ext_call,
						    follow);
	u64 wall = cache_ext_clock() - outer->off_clock;
	/* Interrupts meanwhile are left out already, from @irq_start on. */
	u64 irq = cache_ext_irq_time() - outer->off_irq;
	u64 away = wall > irq ? wall - irq : 0;
	unsigned long away_jiffies = jiffies - outer->off_jiffies;
	struct cache_ext_call *call;

	for (call = outer->top; call; call = call->prev) {
		call->away += away;
		call->start_jiffies += away_jiffies;
		call->check_from += away_jiffies;
	}
	this_cpu_write(cache_ext_running, outer->top);
	cache_ext_watch_call(outer);
}

struct preempt_ops cache_ext_call_follow = {
	.sched_in = call_switched_in,
	.sched_out = call_switched_out,
};

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
int cache_ext_call_init(struct cache_ext_binding *b)
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
void cache_ext_call_exit(struct cache_ext_binding *b)
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
	 * own binding.  Its record cannot be another task's: the record of
	 * a CPU is the running task's (see &struct cache_ext_call).
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
 *
 * Its budget is of its own time, the interrupts it sat through, its waits
 * for a binding's lock and its time preempted left out
 * (cache_ext_call_time()), so that a policy is not charged for them.  But
 * the call keeps its CPU, from other tasks wherever its call site does not
 * let it be preempted, through interrupts and lock waits: on a CPU that
 * takes the interrupts of the cgroup's own I/O, in a guest its host runs
 * late, interrupts were seen to stretch a call cut at 200 ms of its own
 * time to 1.4 s.  So the call is also over at twice its budget of time on
 * its CPU; the overrun it is charged (cache_ext_note_time()) is still of
 * its own time only.
 */
static bool call_past_budget(struct cache_ext_call *call, bool read_clock)
{
	u64 now;

	if (call->over)
		return true;
	if (call->binding &&
	    unlikely(atomic_read(&call->binding->policy->eject_reason))) {
		call->over = true;
		return true;
	}
	if (!read_clock)
		return false;
	/*
	 * The clock and the time away are read together: switched out in
	 * between, the task would come back with time away after @now,
	 * more than the call has run (and a call of a few milliseconds
	 * would seem past twice its budget).
	 */
	preempt_disable();
	now = cache_ext_clock();
	/* Halved, not doubled: init() and exit() have a budget of U64_MAX. */
	call->over = cache_ext_call_time(call, now) > call->budget ||
		     (now - call->start - call->away) / 2 > call->budget;
	preempt_enable();
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
	/* Not another task's: the CPU's record is the running task's. */
	call = this_cpu_read(cache_ext_running);
	/*
	 * The clock once in LOOP_CLOCK_EVERY, not jiffies: they stop while
	 * the CPU that advances them runs a callback with interrupts off.
	 */
	return call &&
	       call_past_budget(call, !(++call->loop_checks % LOOP_CLOCK_EVERY));
}
