/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streaming the LearnedCache trace: insertions, accesses and removals of
 * folios, as struct lc_event (lc_trace.h), through the ring buffer
 * lc_events, which cachectl trace and cachectl learn write to a log.  The
 * tracer always records; ml_rank when cachectl learn sets its knob
 * record.  The loader sizes the ring buffer (it is one page until then);
 * events that do not fit are counted in nr_dropped and the recorder
 * writes the count into the log.
 */
#ifndef __LC_EMIT_BPF_H
#define __LC_EMIT_BPF_H

#include "lc_state.bpf.h"
#include "lc_trace.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} lc_events SEC(".maps");

u64 nr_events, nr_dropped;

/* One event of @type for @folio at @now; a removal carries its features. */
static void lc_emit(struct folio *folio, u32 type, u64 now)
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
	if (type == LC_EV_EVICT)
		lc_folio_features(folio, now, ev->features);
	bpf_ringbuf_submit(ev, 0);
	__sync_fetch_and_add(&nr_events, 1);
}

#endif /* __LC_EMIT_BPF_H */
