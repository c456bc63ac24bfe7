/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A callback of a binding while it runs: entered and left around each
 * call of a policy (inline here, on every page cache event), found by
 * its kfuncs (call.c), timed against its budget and charged to its
 * binding (eject.c).
 */
#ifndef _MM_CACHE_EXT_CALL_H
#define _MM_CACHE_EXT_CALL_H

#include <linux/compiler.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kernel_stat.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched/clock.h>
#include <linux/types.h>

struct cache_ext_binding;
struct cache_ext_insert;
struct folio;
struct mem_cgroup;

/**
 * enum cache_ext_timed - the callbacks whose time is charged, each apart
 * @CACHE_EXT_T_EVICT: evict_folios()
 * @CACHE_EXT_T_ADDED: folio_added()
 * @CACHE_EXT_T_ACCESSED: folio_accessed()
 * @CACHE_EXT_T_REMOVED: folio_removed()
 * @CACHE_EXT_T_ADMIT: admit_folio()
 * @CACHE_EXT_T_MAPPED: folio_mapped_accessed()
 * @CACHE_EXT_NR_TIMED: their number
 */
enum cache_ext_timed {
	CACHE_EXT_T_EVICT,
	CACHE_EXT_T_ADDED,
	CACHE_EXT_T_ACCESSED,
	CACHE_EXT_T_REMOVED,
	CACHE_EXT_T_ADMIT,
	CACHE_EXT_T_MAPPED,
	CACHE_EXT_NR_TIMED,
};

struct cache_ext_evict_req;

/**
 * struct cache_ext_call - a callback of a binding, while it runs
 * @binding: the binding whose callback it is
 * @start: cache_ext_clock() when the call was entered
 * @irq_start: cache_ext_irq_time() when the call was entered
 * @start_jiffies: jiffies when the callback was entered
 * @budget: nanoseconds it may run; past that, the iterator yields nothing
 *	more and proposals are refused, and on return the overrun is
 *	counted (cache_ext_note_time())
 * @prev: the call this one interrupted on this CPU, or NULL
 * @cb: which callback, for the charge of its time
 * @req: for evict_folios(), the request it answers (evict.c); else NULL
 * @sampled: folios the list iterator yielded to this call
 * @folio: the folio the call handled last (the hook's folio, the
 *	iterator's last), so that the kfuncs find its node without a hash
 *	lookup; NULL for none
 * @index: the registry node of @folio when it was recorded; the kfuncs
 *	check it still is before they change anything
 * @data: the policy's u32 of @folio
 * @removed_data: for folio_removed(), a copy of the removed folio's u32
 * @insert: for folio_added(), the insertion it is told of, whose node is
 *	hashed and linked when it returns; NULL for other callbacks
 * @check_from: jiffies from which the budget check reads the clock: the
 *	jiffy before the budget can end (cache_ext_call_over_budget())
 * @loop_checks: iterations of the call's BPF loops so far, so that they
 *	read the clock only once in a while (__cache_ext_loop_cancelled())
 * @lock_wait: ns the call waited for a binding's lock held by another
 *	CPU (cache_ext_lock_contended()), left out of its time
 * @away: ns its task was preempted meanwhile (interrupts on its CPU in
 *	that time left out: they are counted from @irq_start), left out of
 *	its time
 * @over: the call was found past its budget: its kfuncs fail and its BPF
 *	loops end
 * @irqs_off: it was entered with interrupts off (folio_removed(), a
 *	split's folio_added(): under the i_pages lock), and its budget is
 *	at most cache_ext_irqs_off_budget
 * @follow: for a task's outermost call, the notifier that follows the
 *	task off its CPU and back (cache_ext_enter())
 * @top: while the task is preempted, its innermost call
 * @off_clock: cache_ext_clock() when the task was last preempted
 * @off_irq: cache_ext_irq_time() then
 * @off_jiffies: jiffies then
 *
 * Which binding's callback is running is what the kfuncs act on.  A
 * non-sleeping callback runs with migration disabled and is recorded for
 * the CPU while its task runs there: when the task is preempted in a
 * callback, its calls are put aside until it runs again (@follow), so
 * that the record of a CPU is always the running task's.  The sleepable
 * init() and exit() run under cache_ext_mutex, one at a time, and are
 * recorded with the task that runs them.  Interrupts see neither: a kfunc
 * called from a BPF timer or any other interrupt finds no caller.
 */
struct cache_ext_call {
	struct cache_ext_binding *binding;
	u64 start;
	u64 irq_start;
	unsigned long start_jiffies;
	u64 budget;
	struct cache_ext_call *prev;
	enum cache_ext_timed cb;
	struct cache_ext_evict_req *req;
	u32 sampled;
	struct folio *folio;
	u32 index;
	u32 *data;
	u32 removed_data;
	struct cache_ext_insert *insert;
	unsigned long check_from;
	unsigned int loop_checks;
	u64 lock_wait;
	u64 away;
	bool over;
	bool irqs_off;
	struct preempt_notifier follow;
	struct cache_ext_call *top;
	u64 off_clock;
	u64 off_irq;
	unsigned long off_jiffies;
};

DECLARE_PER_CPU(struct cache_ext_call *, cache_ext_running);

/**
 * struct cache_ext_watch - the outermost callback running on a CPU, as the
 *	watchdog sees it (cache_ext_watchdog_fn() in eject.c)
 * @binding: its binding; NULL when none runs.  Written last on entry
 *	(release), cleared first on return
 * @start: jiffies when it was entered
 * @cb: which callback
 *
 * The watchdog reads these of other CPUs, never the &struct cache_ext_call
 * on the running task's stack.
 */
struct cache_ext_watch {
	struct cache_ext_binding *binding;
	unsigned long start;
	enum cache_ext_timed cb;
};

DECLARE_PER_CPU(struct cache_ext_watch, cache_ext_watch);

/**
 * struct cache_ext_budget - the time budget of a kind of callback
 * @ns: in nanoseconds
 * @jiffies: in whole jiffies, rounded down
 *
 * [0] for evict_folios() (cache_ext.evict_budget_ms), [1] for the event
 * callbacks (cache_ext.event_budget_ms); eject.c keeps them.
 */
struct cache_ext_budget {
	u64 ns;
	unsigned long jiffies;
};

extern struct cache_ext_budget cache_ext_budgets[2];

/*
 * The budget, in nanoseconds, of a call entered with interrupts off
 * (cache_ext.irqs_off_budget_us; eject.c): its CPU takes no interrupt and
 * runs no other task meanwhile, so it is bounded far below the budget of
 * its kind of callback.
 */
extern u64 cache_ext_irqs_off_budget;

static inline const struct cache_ext_budget *
cache_ext_budget(enum cache_ext_timed cb)
{
	return &cache_ext_budgets[cb != CACHE_EXT_T_EVICT];
}

/*
 * Nanoseconds this CPU has spent in hard and soft interrupts, counted by
 * CONFIG_IRQ_TIME_ACCOUNTING; 0 without it.  Migration is disabled.
 */
static inline u64 cache_ext_irq_time(void)
{
#ifdef CONFIG_IRQ_TIME_ACCOUNTING
	const u64 *cpustat = kcpustat_this_cpu->cpustat;

	return READ_ONCE(cpustat[CPUTIME_IRQ]) +
	       READ_ONCE(cpustat[CPUTIME_SOFTIRQ]);
#else
	return 0;
#endif
}

/* eject.c: charge a callback's time; preemption is disabled */
void cache_ext_note_time(const struct cache_ext_call *call, u64 took,
			 u64 now);

/*
 * The clock calls are timed with: this CPU's sched_clock(), which a call
 * reads on the CPU it runs on from start to end (migration is disabled),
 * and so does one CPU's time window (note_rate()).  Not local_clock():
 * where sched_clock is unstable (a virtual machine whose TSC the
 * clocksource watchdog found skewed, as in the test guest seconds after
 * boot), it moves at most a tick past the last tick this CPU took, and
 * with interrupts off it takes none: such a call measured at most one
 * tick.  And the cheapest: a hit pays for two reads.
 */
static inline u64 cache_ext_clock(void)
{
	return sched_clock();
}

/*
 * Show @outer, the outermost call of the task running here, to the
 * watchdog: when it is entered, and when its task runs again after being
 * preempted in it.  Preemption is disabled.
 */
static inline void cache_ext_watch_call(const struct cache_ext_call *outer)
{
	struct cache_ext_watch *w = this_cpu_ptr(&cache_ext_watch);

	w->start = outer->start_jiffies;
	w->cb = outer->cb;
	/* Pairs with the watchdog's acquire (eject.c). */
	smp_store_release(&w->binding, outer->binding);
}

/* call.c: puts a preempted task's calls aside, and back */
extern struct preempt_ops cache_ext_call_follow;

/*
 * Around a call of a callback that must not sleep:
 *	cache_ext_enter(&call, b, CACHE_EXT_T_...); b->ops->op(...);
 *	took = cache_ext_leave(&call);
 * cache_ext_leave() charges the time (cache_ext_note_time()).
 *
 * The callback runs with migration disabled, preemptible where its call
 * site is: a task's outermost call registers a preempt notifier
 * (&cache_ext_call.follow) that clears the CPU's record of its calls when
 * the task is switched out and restores it, with the time it was away,
 * when the task runs again.  The record is changed with preemption
 * disabled, so that a switch sees it either before or after.
 */
static inline void cache_ext_enter(struct cache_ext_call *call,
				   struct cache_ext_binding *b,
				   enum cache_ext_timed cb)
{
	call->binding = b;
	call->cb = cb;
	call->req = NULL;
	call->sampled = 0;
	call->folio = NULL;
	call->insert = NULL;
	call->loop_checks = 0;
	call->lock_wait = 0;
	call->away = 0;
	call->over = false;
	call->budget = READ_ONCE(cache_ext_budget(cb)->ns);
	migrate_disable();
	preempt_disable();
	call->prev = this_cpu_read(cache_ext_running);
	this_cpu_write(cache_ext_running, call);
	call->start_jiffies = jiffies;
	/*
	 * The budget check reads the clock from the jiffy before the
	 * budget can end; with interrupts off (folio_removed() runs under
	 * the i_pages lock) jiffies may not move, the tick that advances
	 * them being perhaps this CPU's, so it reads it from the start.
	 */
	call->irqs_off = irqs_disabled();
	if (call->irqs_off) {
		call->budget = min(call->budget,
				   READ_ONCE(cache_ext_irqs_off_budget));
		call->check_from = call->start_jiffies - 1;
	} else {
		call->check_from = call->start_jiffies +
				   READ_ONCE(cache_ext_budget(cb)->jiffies) - 1;
	}
	if (!call->prev) {
		cache_ext_watch_call(call);
		/* An interrupt is not switched out before it returns. */
		if (in_task()) {
			preempt_notifier_init(&call->follow,
					      &cache_ext_call_follow);
			preempt_notifier_register(&call->follow);
		}
	}
	call->start = cache_ext_clock();
	call->irq_start = cache_ext_irq_time();
	preempt_enable();
}

/*
 * How long a call has run at @now, the interrupts it sat through, its
 * waits for a binding's lock and the time its task was preempted left out.
 */
static inline u64 cache_ext_call_time(const struct cache_ext_call *call,
				      u64 now)
{
	u64 wall = now - call->start;
	u64 other = cache_ext_irq_time() - call->irq_start + call->lock_wait +
		    call->away;

	return wall > other ? wall - other : 0;
}

/*
 * Returns the nanoseconds the call took, charged to its binding: its
 * time by cache_ext_clock(), less the time this CPU spent in
 * interrupts and waiting for a binding's lock meanwhile.
 */
static inline u64 cache_ext_leave(struct cache_ext_call *call)
{
	u64 now, took;

	preempt_disable();
	now = cache_ext_clock();
	took = cache_ext_call_time(call, now);
	if (!call->prev) {
		WRITE_ONCE(this_cpu_ptr(&cache_ext_watch)->binding, NULL);
		if (in_task())
			preempt_notifier_unregister(&call->follow);
	}
	this_cpu_write(cache_ext_running, call->prev);
	cache_ext_note_time(call, took, now);
	preempt_enable();
	migrate_enable();
	return took;
}

/* call.c */
struct cache_ext_call *cache_ext_current_call(void);
bool cache_ext_call_over_budget(struct cache_ext_call *call);
struct cache_ext_binding *cache_ext_kfunc_binding(struct mem_cgroup *memcg);

#endif /* _MM_CACHE_EXT_CALL_H */
