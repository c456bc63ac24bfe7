/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streaming the LearnedCache trace: insertions, accesses and removals of
 * folios, as records of lc_trace.h, through the ring buffer lc_events,
 * which cachectl trace and cachectl learn write to a log.  The tracer
 * always records; ml_rank when cachectl learn sets its knob record.  The
 * loader sizes the ring buffer (it is one page until then).
 *
 * What it costs the recorder is what decides whether it keeps up: a
 * record woke it (a wakeup, an epoll return, a context switch) whenever
 * it had caught up, which at LevelDB's event rate under TCG took most of
 * its CPU (sys time five times user).  A record wakes it only once the
 * ring is a quarter full; otherwise the recorder takes what has come in
 * every few milliseconds, in a batch.
 *
 * Events that do not fit are counted in drops_pending and said where they
 * were lost: the next event that fits is preceded by an LC_EV_DROPS
 * record of how many; what is pending when recording ends the recorder
 * takes from drops_pending (an atomic exchange on the mmaped .bss) and
 * writes.
 */
#ifndef __LC_EMIT_BPF_H
#define __LC_EMIT_BPF_H

#include "lc_state.bpf.h"
#include "lc_trace.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} lc_events SEC(".maps");

u64 drops_pending;

/* Wake the recorder only for a ring at least a quarter full. */
static __always_inline u64 lc_wakeup(void)
{
	u64 used = bpf_ringbuf_query(&lc_events, BPF_RB_AVAIL_DATA);
	u64 size = bpf_ringbuf_query(&lc_events, BPF_RB_RING_SIZE);

	return used >= size / 4 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* Say where events were lost: a drops record before the next event. */
static __always_inline void lc_emit_drops(u64 now)
{
	struct lc_record *rec;
	u64 lost;

	if (!*(volatile u64 *)&drops_pending)
		return;
	rec = bpf_ringbuf_reserve(&lc_events, sizeof(*rec), 0);
	if (!rec)
		return;
	lost = __sync_lock_test_and_set(&drops_pending, 0);
	if (!lost) {		/* the recorder took them meanwhile */
		bpf_ringbuf_discard(rec, BPF_RB_NO_WAKEUP);
		return;
	}
	__builtin_memset(rec, 0, sizeof(*rec));
	rec->type = LC_EV_DROPS;
	rec->time_ns = now;
	rec->index = lost;
	bpf_ringbuf_submit(rec, BPF_RB_NO_WAKEUP);
}

static __always_inline void lc_fill(struct lc_record *rec, struct folio *folio,
				    u32 type, u64 now)
{
	struct lc_page_key pk;
	struct lc_inode_key ik;

	lc_keys(folio, &pk, &ik);
	__builtin_memset(rec, 0, sizeof(*rec));
	rec->type = type;
	if (type == LC_EV_INSERT && !bpf_cache_ext_folio_prefetched(folio))
		rec->flags = LC_REC_DEMAND;
	rec->dev = pk.dev;
	rec->time_ns = now;
	rec->ino = pk.ino;
	rec->index = pk.index;
}

/*
 * One event of @type for @folio at @now: a struct lc_record, or for a
 * removal a struct lc_event, with the folio's features.
 */
static void lc_emit(struct folio *folio, u32 type, u64 now)
{
	struct lc_file_view file = {};
	struct lc_record *rec;
	struct lc_event *ev;

	lc_emit_drops(now);
	if (type == LC_EV_EVICT) {
		ev = bpf_ringbuf_reserve(&lc_events, sizeof(*ev), 0);
		if (!ev)
			goto lost;
		lc_fill((struct lc_record *)ev, folio, type, now);
		lc_folio_features(folio, now, &file, ev->features);
		bpf_ringbuf_submit(ev, lc_wakeup());
	} else {
		rec = bpf_ringbuf_reserve(&lc_events, sizeof(*rec), 0);
		if (!rec)
			goto lost;
		lc_fill(rec, folio, type, now);
		bpf_ringbuf_submit(rec, lc_wakeup());
	}
	return;
lost:
	__sync_fetch_and_add(&drops_pending, 1);
}

#endif /* __LC_EMIT_BPF_H */
