// SPDX-License-Identifier: GPL-2.0
/*
 * Misbehaving policies for the ejection selftests.  Each struct_ops map is
 * one kind of misbehaviour; a test attaches only the one it exercises.
 * All of them track folios on one FIFO list so that they have candidates.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

/* How long hostile_spin spins in evict_folios(), and on which calls. */
const volatile __u64 spin_ns = 500000000;
const volatile __u32 spin_every = 1;
/* How long hostile_slowrm spins in folio_removed(). */
const volatile __u64 removed_spin_ns = 20000000;
/* How long hostile_slowadd spins in folio_added(). */
const volatile __u64 added_spin_ns = 50000000;
/* How long hostile_slowacc spins in folio_accessed(). */
const volatile __u64 accessed_spin_ns = 3000000;
/* What hostile_init's init() returns. */
const volatile int init_error = -EPERM;

__u64 nr_evict_calls, nr_rejected, nr_spins, nr_removed, nr_added;
__u64 nr_accessed;
/*
 * What the kfuncs answered hostile_spin once it was past its budget:
 * the proposal's return, and what the iterator yielded after a refused
 * one.  The spin is in wall time, the budget leaves interrupts out: on a
 * busy host an interrupt may eat enough of the spin that the kernel does
 * not count it over (nr_spins_in_budget).
 */
int late_propose_ret;
__u32 late_yields;
__u64 nr_spins_refused, nr_spins_in_budget;
/*
 * What bpf_cache_ext_eject_self() answered hostile_quit: 0 once, to the
 * call that ejected it, -EINVAL to every later one (-EINVAL, ejected).
 */
__u32 nr_quit_ok, nr_quit_refused;

/* What exit() was told, for the ejection tests. */
__u32 exit_reason;
char exit_msg[sizeof(((struct cache_ext_exit_info *)0)->msg)];
__u32 nr_exits;

void CACHE_EXT_OP(record_exit, struct mem_cgroup *memcg,
		  const struct cache_ext_exit_info *info)
{
	exit_reason = info->reason;
	bpf_probe_read_kernel_str(exit_msg, sizeof(exit_msg), info->msg);
	__sync_fetch_and_add(&nr_exits, 1);
}

s32 CACHE_EXT_OP(list_init, struct mem_cgroup *memcg)
{
	return bpf_cache_ext_list_create(memcg) == 0 ? 0 : -EINVAL;
}

void CACHE_EXT_OP(list_added, struct folio *folio, struct mem_cgroup *memcg)
{
	bpf_cache_ext_list_add(memcg, 0, folio, CACHE_EXT_TAIL);
}

/* Proposes everything it sees, past the requested count. */
void CACHE_EXT_OP(too_many_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct folio *folio;

	__sync_fetch_and_add(&nr_evict_calls, 1);
	for_each_list_folio(folio, memcg, 0, CACHE_EXT_MAX_BATCH + 8) {
		if (bpf_cache_ext_propose(req, folio))
			__sync_fetch_and_add(&nr_rejected, 1);
	}
}

/* Proposes every candidate twice. */
void CACHE_EXT_OP(dup_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct folio *folio;

	__sync_fetch_and_add(&nr_evict_calls, 1);
	for_each_list_folio(folio, memcg, 0, req->nr_requested) {
		/* Leave room for the duplicate: this is not about too many. */
		if (req->nr_proposed + 1 >= req->nr_requested)
			break;
		bpf_cache_ext_propose(req, folio);
		if (bpf_cache_ext_propose(req, folio))
			__sync_fetch_and_add(&nr_rejected, 1);
	}
}

/*
 * The first spins, in bpf_ktime_get_ns() (CLOCK_MONOTONIC) and the CPU
 * each began and ended on, for conc.callbacks_preemptible: what another
 * task did on that CPU meanwhile; and the iterations each made, so that a
 * spin cut short tells whether the kernel ended its loop (fewer than
 * SPIN_ITERS) or the loop ran out.
 */
#define NR_SPANS 64
#define SPIN_ITERS (1 << 23)
struct {
	__u64 start, end;
	__u32 cpu_start, cpu_end;
	__u32 iters;
} spans[NR_SPANS];
__u32 nr_spans;

static void spin(__u64 ns)
{
	__u64 start = bpf_ktime_get_ns();
	__u32 cpu = bpf_get_smp_processor_id(), slot, n = 0;
	int i;

	bpf_for(i, 0, SPIN_ITERS) {
		n++;
		if (bpf_ktime_get_ns() - start > ns)
			break;
	}
	slot = __sync_fetch_and_add(&nr_spans, 1);
	if (slot < NR_SPANS) {
		spans[slot].start = start;
		spans[slot].end = bpf_ktime_get_ns();
		spans[slot].cpu_start = cpu;
		spans[slot].cpu_end = bpf_get_smp_processor_id();
		spans[slot].iters = n;
	}
}

/*
 * On every spin_every-th call, spins (a bounded loop) past the eviction
 * time budget holding the list's first folio, then tries to propose it and
 * to walk the list: both must be refused.
 */
void CACHE_EXT_OP(spin_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct folio *folio, *more;

	if (__sync_fetch_and_add(&nr_evict_calls, 1) % spin_every)
		return;
	for_each_list_folio(folio, memcg, 0, 1) {
		__sync_fetch_and_add(&nr_spins, 1);
		spin(spin_ns);
		late_propose_ret = bpf_cache_ext_propose(req, folio);
		if (late_propose_ret != -ETIME) {
			__sync_fetch_and_add(&nr_spins_in_budget, 1);
			continue;
		}
		__sync_fetch_and_add(&nr_spins_refused, 1);
		for_each_list_folio(more, memcg, 0, 8)
			late_yields++;
	}
}

/* Spins in every folio_removed(), past the event budget. */
void CACHE_EXT_OP(slow_removed, struct folio *folio, struct mem_cgroup *memcg)
{
	__sync_fetch_and_add(&nr_removed, 1);
	spin(removed_spin_ns);
}

/*
 * Runaway loops that call no kfunc and no helper but the clock's, nested
 * 2^23 x 2^23 deep (the verifier accepts them: each level is bounded):
 * only the kernel can end them, by ending the loops of a call past its
 * budget.  Each call records how long it ran: on its CPU (its task's
 * run time, which a tick brings up to date: good to a tick) and in all
 * (the clock's), other tasks' turns included where it was preempted.
 */
__u64 nr_runaway_calls, nr_runaway_ended, max_runaway_ns, runaway_iters;
__u64 max_runaway_wall_ns;

/* The current task's run time, as of its last tick or switch. */
static __u64 task_run_ns(void)
{
	return bpf_get_current_task_btf()->se.sum_exec_runtime;
}

static void raise_max(__u64 *max, __u64 val)
{
	__u64 old;
	int i;

	for (i = 0; i < 8; i++) {
		old = *max;
		if (val <= old ||
		    __sync_val_compare_and_swap(max, old, val) == old)
			break;
	}
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << 16);
	__type(key, __u32);
	__type(value, __u32);
} runaway_map SEC(".maps");

static long runaway_inner(__u64 i, void *ctx)
{
	runaway_iters++;
	return 0;
}

static long runaway_outer(__u64 i, void *ctx)
{
	bpf_loop(1 << 23, runaway_inner, NULL, 0);
	return 0;
}

static long runaway_elem(struct bpf_map *map, __u32 *key, __u32 *value,
			 void *ctx)
{
	runaway_iters++;
	return 0;
}

static long runaway_elems(struct bpf_map *map, __u32 *key, __u32 *value,
			  void *ctx)
{
	bpf_for_each_map_elem(&runaway_map, runaway_elem, NULL, 0);
	return 0;
}

/*
 * For conc.interrupted_call_ended: the CPU of the runaway bpf_loop() call
 * running, + 1 (0 for none), and how long the tick's interrupt spins
 * there, of its 1/HZ, while it runs (0: not at all); the time it spun.
 * Of those calls: the longest time on their CPU (their task's run time
 * and the interrupt's spins meanwhile).
 */
__u32 runaway_cpu;
__u64 irq_spin_ns, irq_spun_ns, max_runaway_cpu_ns;
/* When the last spin ended. */
__u64 irq_spin_end;

struct irq_spin {
	__u64 start, ns;
};

static long irq_spin_step(__u64 i, void *ctx)
{
	struct irq_spin *spin = ctx;

	return bpf_ktime_get_ns() - spin->start > spin->ns;
}

/*
 * Every tick, in its interrupt: on the CPU of a runaway call, spin
 * irq_spin_ns, time the call sits through and is not charged for.  At
 * most seven times as long as the CPU ran other code since the last spin,
 * though: ticks that a busy host delayed come in a row (a periodic tick
 * catches up one by one), and each spinning in full would leave the call
 * no time at all.
 */
SEC("kprobe/update_process_times")
int irq_spin(struct pt_regs *ctx)
{
	struct irq_spin spin;
	__u64 start;

	if (!irq_spin_ns || runaway_cpu != bpf_get_smp_processor_id() + 1)
		return 0;
	start = bpf_ktime_get_ns();
	spin.start = start;
	spin.ns = 7 * (start - irq_spin_end);
	if (spin.ns > irq_spin_ns)
		spin.ns = irq_spin_ns;
	bpf_loop(1 << 22, irq_spin_step, &spin, 0);
	irq_spin_end = bpf_ktime_get_ns();
	__sync_fetch_and_add(&irq_spun_ns, irq_spin_end - start);
	return 0;
}

/*
 * Record that a runaway call that began at @start (bpf_ktime_get_ns()),
 * with its task's run time at @run, has returned.
 */
static void runaway_returned(__u64 start, __u64 run)
{
	__sync_fetch_and_add(&nr_runaway_ended, 1);
	raise_max(&max_runaway_ns, task_run_ns() - run);
	raise_max(&max_runaway_wall_ns, bpf_ktime_get_ns() - start);
}

/* A bpf_loop() in a bpf_loop(): the verifier would inline both. */
static void runaway_bpf_loop(void)
{
	__u64 start = bpf_ktime_get_ns(), run = task_run_ns();
	__u64 spun = irq_spun_ns, ran;

	__sync_fetch_and_add(&nr_runaway_calls, 1);
	runaway_cpu = bpf_get_smp_processor_id() + 1;
	bpf_loop(1 << 23, runaway_outer, NULL, 0);
	runaway_cpu = 0;
	ran = task_run_ns() - run;
	spun = irq_spun_ns - spun;
	raise_max(&max_runaway_cpu_ns, ran + spun);
	runaway_returned(start, run);
}

void CACHE_EXT_OP(loop_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	runaway_bpf_loop();
}

/* Open-coded: bpf_iter_num, as bpf_for() expands to. */
void CACHE_EXT_OP(for_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	__u64 start = bpf_ktime_get_ns(), run = task_run_ns();
	int i, j;

	__sync_fetch_and_add(&nr_runaway_calls, 1);
	bpf_for(i, 0, 1 << 23) {
		bpf_for(j, 0, 1 << 23)
			runaway_iters++;
	}
	runaway_returned(start, run);
}

/* bpf_for_each_map_elem() in bpf_for_each_map_elem(): 2^32 calls. */
void CACHE_EXT_OP(map_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	__u64 start = bpf_ktime_get_ns(), run = task_run_ns();

	__sync_fetch_and_add(&nr_runaway_calls, 1);
	bpf_for_each_map_elem(&runaway_map, runaway_elems, NULL, 0);
	runaway_returned(start, run);
}

/* Under the mapping's i_pages lock, interrupts off. */
void CACHE_EXT_OP(loop_removed, struct folio *folio, struct mem_cgroup *memcg)
{
	runaway_bpf_loop();
}

void CACHE_EXT_OP(loop_added, struct folio *folio, struct mem_cgroup *memcg)
{
	bpf_cache_ext_list_add(memcg, 0, folio, CACHE_EXT_TAIL);
	runaway_bpf_loop();
}

/* Spins in every folio_added(), each call within the event budget. */
void CACHE_EXT_OP(slow_added, struct folio *folio, struct mem_cgroup *memcg)
{
	__sync_fetch_and_add(&nr_added, 1);
	bpf_cache_ext_list_add(memcg, 0, folio, CACHE_EXT_TAIL);
	spin(added_spin_ns);
}

/* Spins in every folio_accessed(): every hit is slow. */
void CACHE_EXT_OP(slow_accessed, struct folio *folio, struct mem_cgroup *memcg)
{
	__sync_fetch_and_add(&nr_accessed, 1);
	spin(accessed_spin_ns);
}

/* Gives up on its first eviction request, proposing nothing. */
void CACHE_EXT_OP(quit_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	const char *again = "and again";
	int ret;

	__sync_fetch_and_add(&nr_evict_calls, 1);
	ret = bpf_cache_ext_eject_self(memcg, "hostile_quit gives up on purpose");
	__sync_fetch_and_add(ret ? &nr_quit_refused : &nr_quit_ok, 1);
	ret = bpf_cache_ext_eject_self(memcg, again);
	__sync_fetch_and_add(ret ? &nr_quit_refused : &nr_quit_ok, 1);
}

s32 CACHE_EXT_OP(failing_init, struct mem_cgroup *memcg)
{
	return init_error;
}

SEC(".struct_ops.link")
struct cache_ext_ops hostile_many = {
	.init		= (void *)list_init,
	.exit		= (void *)record_exit,
	.folio_added	= (void *)list_added,
	.evict_folios	= (void *)too_many_evict,
	.name		= "hostile_many",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_dup = {
	.init		= (void *)list_init,
	.exit		= (void *)record_exit,
	.folio_added	= (void *)list_added,
	.evict_folios	= (void *)dup_evict,
	.name		= "hostile_dup",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_spin = {
	.init		= (void *)list_init,
	.exit		= (void *)record_exit,
	.folio_added	= (void *)list_added,
	.evict_folios	= (void *)spin_evict,
	.name		= "hostile_spin",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_slowrm = {
	.init		= (void *)list_init,
	.folio_added	= (void *)list_added,
	.folio_removed	= (void *)slow_removed,
	.name		= "hostile_slowrm",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_slowadd = {
	.init		= (void *)list_init,
	.folio_added	= (void *)slow_added,
	.name		= "hostile_slowadd",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_slowacc = {
	.init		= (void *)list_init,
	.exit		= (void *)record_exit,
	.folio_added	= (void *)list_added,
	.folio_accessed	= (void *)slow_accessed,
	.name		= "hostile_slowacc",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_loop = {
	.init		= (void *)list_init,
	.exit		= (void *)record_exit,
	.folio_added	= (void *)list_added,
	.evict_folios	= (void *)loop_evict,
	.name		= "hostile_loop",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_for = {
	.init		= (void *)list_init,
	.exit		= (void *)record_exit,
	.folio_added	= (void *)list_added,
	.evict_folios	= (void *)for_evict,
	.name		= "hostile_for",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_mapeach = {
	.init		= (void *)list_init,
	.exit		= (void *)record_exit,
	.folio_added	= (void *)list_added,
	.evict_folios	= (void *)map_evict,
	.name		= "hostile_mapeach",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_looprm = {
	.init		= (void *)list_init,
	.exit		= (void *)record_exit,
	.folio_added	= (void *)list_added,
	.folio_removed	= (void *)loop_removed,
	.name		= "hostile_looprm",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_loopadd = {
	.init		= (void *)list_init,
	.exit		= (void *)record_exit,
	.folio_added	= (void *)loop_added,
	.name		= "hostile_loopadd",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_quit = {
	.init		= (void *)list_init,
	.exit		= (void *)record_exit,
	.folio_added	= (void *)list_added,
	.evict_folios	= (void *)quit_evict,
	.name		= "hostile_quit",
};

SEC(".struct_ops.link")
struct cache_ext_ops hostile_init = {
	.init		= (void *)failing_init,
	.name		= "hostile_init",
};
