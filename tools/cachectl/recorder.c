// SPDX-License-Identifier: GPL-2.0
/* The trace log of a recording policy's ring buffer (recorder.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/types.h>

#include "cachectl.h"
#include "lc_trace.h"
#include "recorder.h"
#include "setvar.h"
#include "struct_ops.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long long memory_max(const char *cg)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), "%s/memory.max", cg);
	if (read_text(path, buf, sizeof(buf)) < 0 || !strncmp(buf, "max", 3))
		return 0;
	return strtoull(buf, NULL, 10);
}

int recorder_open(struct recorder *r, const char *path, const char *cg_path)
{
	struct lc_log_header hdr = { .magic = LC_LOG_MAGIC };

	memset(r, 0, sizeof(*r));
	r->out = fopen(path, "wb");
	if (!r->out) {
		ctl_warn("cannot create %s: %s", path, strerror(errno));
		return -errno;
	}
	/* Written a megabyte at a time: fewer system calls for the drain. */
	setvbuf(r->out, NULL, _IOFBF, 1 << 20);
	hdr.version = LC_LOG_VERSION;
	hdr.header_size = sizeof(hdr);
	hdr.record_size = sizeof(struct lc_record);
	hdr.page_size = getpagesize();
	hdr.clock = LC_CLOCK_MONOTONIC;
	hdr.nr_features = LC_NR_FEATURES;
	hdr.cgroup_limit = memory_max(cg_path);
	hdr.start_ns = now_ns();
	if (fwrite(&hdr, sizeof(hdr), 1, r->out) != 1) {
		ctl_warn("cannot write %s: %s", path, strerror(errno));
		fclose(r->out);
		r->out = NULL;
		return -EIO;
	}
	return 0;
}

int recorder_on_event(void *ctx, void *data, size_t size)
{
	const struct lc_record *rec = data;
	struct recorder *r = ctx;

	if (size < sizeof(*rec) || size != lc_record_size(rec->type)) {
		r->error = -EPROTO;
		return -EPROTO;
	}
	if (fwrite_unlocked(data, size, 1, r->out) != 1) {
		r->error = -errno;
		return r->error;
	}
	if (rec->type == LC_EV_DROPS) {
		r->dropped += rec->index;
		return 0;
	}
	r->written++;
	r->mapped += rec->type == LC_EV_MAPPED;
	return 0;
}

/* At most this many records a drain: the loop must come round to stop. */
#define DRAIN_MAX	(1 << 16)

void recorder_drain(struct recorder *r, struct ring_buffer *rb, int timeout_ms)
{
	struct epoll_event ev;

	/* Woken early only by a ring a quarter full: take it in a batch. */
	epoll_wait(ring_buffer__epoll_fd(rb), &ev, 1, timeout_ms);
	ring_buffer__consume_n(rb, DRAIN_MAX);
}

void recorder_finish(struct recorder *r, struct ring_buffer *rb,
		     volatile __u64 *drops_pending)
{
	struct lc_record rec = { .type = LC_EV_DROPS };

	ring_buffer__consume(rb);
	if (!drops_pending)
		return;
	rec.index = __atomic_exchange_n(drops_pending, 0, __ATOMIC_SEQ_CST);
	if (!rec.index)
		return;
	rec.time_ns = now_ns();
	recorder_on_event(r, &rec, sizeof(rec));
}

int recorder_close(struct recorder *r, const char *path)
{
	int ret = r->error;

	if (!r->out)
		return ret;
	if (fclose(r->out) && !ret)
		ret = -errno;
	r->out = NULL;
	if (ret)
		ctl_warn("writing %s failed: %s", path, strerror(-ret));
	return ret;
}

struct bpf_object *recording_policy_load(const char *objpath, char **sets,
					 int nr_sets, unsigned long ring_bytes,
					 struct bpf_map **ops)
{
	struct bpf_object *obj = bpf_object__open_file(objpath, NULL);
	struct bpf_map *map, *events;
	struct ctl_err err;
	char *var, *value;
	int i;

	*ops = NULL;
	if (!obj) {
		ctl_warn("cannot open %s: %s", objpath, strerror(errno));
		return NULL;
	}
	bpf_object__for_each_map(map, obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			*ops = map;
	events = bpf_object__find_map_by_name(obj, "lc_events");
	if (!*ops || !events) {
		ctl_warn("%s is not a recording policy (no lc_events ring buffer)", objpath);
		goto fail;
	}
	for (i = 0; i < nr_sets; i++) {
		if (setvar_split(sets[i], &var, &value, &err) ||
		    setvar_apply(obj, var, value, &err)) {
			ctl_warn("%s", err.msg);
			goto fail;
		}
	}
	/* The object's ring buffer is one page until the recorder sizes it. */
	if (bpf_map__set_max_entries(events, ring_bytes)) {
		ctl_warn("cannot size the ring buffer to %lu KiB", ring_bytes / 1024);
		goto fail;
	}
	if (bpf_object__load(obj)) {
		ctl_warn("loading %s failed (see dmesg; is the kernel a cache_ext kernel?)",
			 objpath);
		goto fail;
	}
	return obj;
fail:
	bpf_object__close(obj);
	*ops = NULL;
	return NULL;
}
