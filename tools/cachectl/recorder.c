// SPDX-License-Identifier: GPL-2.0
/* The trace log of a recording policy's ring buffer (recorder.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
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
	hdr.version = LC_LOG_VERSION;
	hdr.header_size = sizeof(hdr);
	hdr.record_size = sizeof(struct lc_event);
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
	struct recorder *r = ctx;

	if (size != sizeof(struct lc_event)) {
		r->error = -EPROTO;
		return -EPROTO;
	}
	if (fwrite(data, size, 1, r->out) != 1) {
		r->error = -errno;
		return r->error;
	}
	r->written++;
	r->mapped += ((const struct lc_event *)data)->type == LC_EV_MAPPED;
	return 0;
}

void recorder_drops(struct recorder *r, const volatile __u64 *nr_dropped)
{
	struct lc_event ev = { .type = LC_EV_DROPS };

	if (!nr_dropped || *nr_dropped == r->drops_seen)
		return;
	ev.time_ns = now_ns();
	ev.index = *nr_dropped - r->drops_seen;
	r->dropped += ev.index;
	r->drops_seen = *nr_dropped;
	if (fwrite(&ev, sizeof(ev), 1, r->out) != 1)
		r->error = -errno;
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
