/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a LearnedCache trace log (bpf/include/lc_trace.h) from the ring
 * buffer of a recording policy: cachectl trace (the tracer) and cachectl
 * learn (ml_rank with record=1).
 */
#ifndef CACHECTL_RECORDER_H
#define CACHECTL_RECORDER_H

#include <stdint.h>
#include <stdio.h>

#include <linux/types.h>

struct bpf_map;
struct bpf_object;

struct ring_buffer;

struct recorder {
	FILE *out;
	unsigned long long written, dropped;	/* events, drops so far */
	unsigned long long mapped;		/* of @written, LC_EV_MAPPED */
	int error;				/* -errno of the first failure */
};

/*
 * Creates the log @path with its header (the cgroup @cg_path's memory.max,
 * now as start time); 0, or -errno with a message printed.
 */
int recorder_open(struct recorder *r, const char *path, const char *cg_path);

/*
 * ring_buffer__new() callback: one record (struct lc_record, or struct
 * lc_event for a removal) into the log; a drops record is counted.
 */
int recorder_on_event(void *ctx, void *data, size_t size);

/*
 * Waits up to @timeout_ms for the ring buffer @rb to fill to its wakeup
 * mark (lc_emit.bpf.h), then writes what it holds, at most 65,536
 * records, so that the caller's loop comes round.
 */
void recorder_drain(struct recorder *r, struct ring_buffer *rb, int timeout_ms);

/*
 * Once the policy is detached (or a window ends): writes what @rb still
 * holds, then takes the drops no event followed from @drops_pending (the
 * policy's drops_pending, mmaped; NULL: none) and writes them as a drops
 * record.
 */
void recorder_finish(struct recorder *r, struct ring_buffer *rb,
		     volatile __u64 *drops_pending);

/* Flushes and closes the log; 0, or -errno with a message printed. */
int recorder_close(struct recorder *r, const char *path);

/*
 * Opens the recording policy @objpath (one with an lc_events ring buffer),
 * sets its knobs (@sets: VAR=VALUE, split in place), sizes the ring
 * buffer to @ring_bytes and loads it; struct_ops_attach() then registers
 * it on the cgroup.  Returns the object with its struct_ops map in *@ops,
 * or NULL with a message printed.
 */
struct bpf_object *recording_policy_load(const char *objpath, char **sets,
					 int nr_sets, unsigned long ring_bytes,
					 struct bpf_map **ops);

#endif /* CACHECTL_RECORDER_H */
