// SPDX-License-Identifier: GPL-2.0
/*
 * timer_tick: a policy whose only work is a BPF timer, started by init()
 * and re-armed every tick_ms, counting its runs in nr_ticks.  A timer
 * lives on its map's user references: test_cachectl attaches this with
 * cachectl, which exits, and checks that the ticks go on (cachectl pins
 * the policy's maps beside its link).
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

const volatile u32 tick_ms = 10;

struct tick_timer {
	struct bpf_timer timer;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct tick_timer);
} tick_timer SEC(".maps");

u64 nr_ticks;

static int tick(void *map, u32 *key, struct tick_timer *t)
{
	__sync_fetch_and_add(&nr_ticks, 1);
	bpf_timer_start(&t->timer, (u64)tick_ms * 1000000, 0);
	return 0;
}

s32 CACHE_EXT_OP(tick_init, struct mem_cgroup *memcg)
{
	struct tick_timer *t;
	u32 zero = 0;

	t = bpf_map_lookup_elem(&tick_timer, &zero);
	if (!t)
		return -ENOENT;
	/* -EBUSY once an earlier binding started it: it runs already. */
	if (bpf_timer_init(&t->timer, &tick_timer, 1 /* CLOCK_MONOTONIC */))
		return 0;
	bpf_timer_set_callback(&t->timer, tick);
	bpf_timer_start(&t->timer, (u64)tick_ms * 1000000, 0);
	return 0;
}

SEC(".struct_ops.link")
struct cache_ext_ops timer_tick = {
	.init		= (void *)tick_init,
	.name		= "timer_tick",
};
