// SPDX-License-Identifier: GPL-2.0
/*
 * tracer: records what a workload does to the page cache, for training
 * LearnedCache models (see tools/lctrain).
 *
 * Evicts like an LFU-oversampled FIFO: the oversample x requested oldest
 * folios are scored by their access counts and the kernel evicts the least
 * used (batch scoring); the sampled folios rotate to the tail.  Every
 * insertion, access and removal is streamed through the ring buffer
 * lc_events as a struct lc_event (lc_trace.h); a removal carries the nine
 * features of the folio at that moment, computed from the same state and
 * code as the learned policies use.  Events that do not fit in the ring
 * buffer are counted in nr_dropped, which the recorder writes into the
 * log.  `cachectl trace` attaches it and writes the log.
 *
 * Knob: oversample (1..64, default 4).
 */
#include "cache_ext.bpf.h"
#include "lc_state.bpf.h"
#include "lc_trace.h"

char _license[] SEC("license") = "GPL";

#define TRACER_LIST 0

const volatile u32 oversample = 4;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} lc_events SEC(".maps");

u64 nr_events, nr_dropped;

static void emit(struct folio *folio, u32 type, u64 now, bool features)
{
	struct lc_page_key pk;
	struct lc_inode_key ik;
	struct lc_event *ev;

	ev = bpf_ringbuf_reserve(&lc_events, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&nr_dropped, 1);
		return;
	}
	lc_keys(folio, &pk, &ik);
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->dev = pk.dev;
	ev->time_ns = now;
	ev->ino = pk.ino;
	ev->index = pk.index;
	if (features)
		lc_folio_features(folio, now, ev->features);
	bpf_ringbuf_submit(ev, 0);
	__sync_fetch_and_add(&nr_events, 1);
}

s32 CACHE_EXT_OP_SLEEPABLE(tracer_init, struct mem_cgroup *memcg)
{
	if (oversample < 1 || oversample > 64)
		return -EINVAL;
	return bpf_cache_ext_list_create(memcg) == TRACER_LIST ? 0 : -EINVAL;
}

void CACHE_EXT_OP(tracer_added, struct folio *folio, struct mem_cgroup *memcg)
{
	bpf_cache_ext_list_add(memcg, TRACER_LIST, folio, CACHE_EXT_TAIL);
	emit(folio, LC_EV_INSERT, bpf_ktime_get_ns(), false);
}

void CACHE_EXT_OP(tracer_accessed, struct folio *folio, struct mem_cgroup *memcg)
{
	u32 *count = cache_ext_folio_state(folio, u32);
	u64 now = bpf_ktime_get_ns();

	if (count)
		(*count)++;
	lc_record_access(folio, now);
	emit(folio, LC_EV_ACCESS, now, false);
}

void CACHE_EXT_OP(tracer_removed, struct folio *folio, struct mem_cgroup *memcg)
{
	emit(folio, LC_EV_EVICT, bpf_ktime_get_ns(), true);
}

void CACHE_EXT_OP(tracer_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	cache_ext_score_by_count(req, memcg, TRACER_LIST,
				 oversample * req->nr_requested);
}

SEC(".struct_ops.link")
struct cache_ext_ops tracer = {
	.init		= (void *)tracer_init,
	.folio_added	= (void *)tracer_added,
	.folio_accessed	= (void *)tracer_accessed,
	.folio_removed	= (void *)tracer_removed,
	.evict_folios	= (void *)tracer_evict,
	.name		= "tracer",
};
