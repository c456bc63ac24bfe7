// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl trace: record a workload's page cache history for LearnedCache.
 * Attaches the tracer policy to a cgroup (for as long as it runs, no pin)
 * and writes its ring buffer to a log file in the format of lc_trace.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/types.h>

#include "cachectl.h"
#include "cgroup.h"
#include "setvar.h"
#include "struct_ops.h"
#include "lc_trace.h"

static const char trace_usage[] =
"usage: cachectl trace --cgroup CGROUP -o LOG [--duration SEC] [--ring-kib N]\n"
"                      [--obj tracer.bpf.o] [--set VAR=VALUE]...\n"
"\n"
"Binds the tracer policy (an LFU-oversampled FIFO) to CGROUP and writes\n"
"every page cache insertion, access and eviction there, with the features\n"
"of LearnedCache, to LOG until Ctrl-C, SIGTERM or SEC seconds.  Events the\n"
"ring buffer could not hold are counted and recorded in the log.  Prints\n"
"'# tracing' once recording, and a summary at the end.  Train with lctrain.\n"
"  --ring-kib N   ring buffer size (a power of two, at least the page size;\n"
"                 default 8192 KiB)\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

struct recorder {
	FILE *out;
	unsigned long long written, dropped;
	int error;
};

static int on_event(void *ctx, void *data, size_t size)
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
	return 0;
}

/* Writes an LC_EV_DROPS record for the drops since the last one. */
static void record_drops(struct recorder *r, const volatile __u64 *nr_dropped)
{
	struct lc_event ev = { .type = LC_EV_DROPS };
	struct timespec ts;

	if (!nr_dropped || *nr_dropped == r->dropped)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ev.time_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	ev.index = *nr_dropped - r->dropped;
	r->dropped = *nr_dropped;
	if (fwrite(&ev, sizeof(ev), 1, r->out) != 1)
		r->error = -errno;
}

static long long memory_max(const char *cg)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), "%s/memory.max", cg);
	if (read_text(path, buf, sizeof(buf)) < 0 || !strncmp(buf, "max", 3))
		return 0;
	return atoll(buf);
}

int cmd_trace(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cgroup", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "obj", required_argument, NULL, 'b' },
		{ "set", required_argument, NULL, 's' },
		{ "ring-kib", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *cgroup = NULL, *output = NULL, *objpath = NULL;
	char cg_path[PATH_MAX], obj_buf[PATH_MAX], *var, *value;
	struct sigaction sa = { .sa_handler = on_signal };
	struct lc_log_header hdr = { .magic = LC_LOG_MAGIC };
	struct recorder rec = { 0 };
	struct ring_buffer *rb = NULL;
	struct bpf_object *obj = NULL;
	struct bpf_link *link = NULL;
	struct bpf_map *ops = NULL, *map;
	const volatile __u64 *nr_dropped;
	unsigned long ring_kib = 0;
	double duration = 0;
	struct timespec ts;
	struct ctl_err err;
	uint64_t cg_id, end_ns = 0;
	char **sets;
	int c, nr_sets = 0, i, ret = EXIT_FAIL;

	if (wants_help(argc, argv, trace_usage))
		return 0;
	sets = calloc(argc, sizeof(*sets));
	if (!sets)
		return EXIT_FAIL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:o:d:b:s:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			ring_kib = strtoul(optarg, NULL, 10);
			if (ring_kib * 1024 < (unsigned long)getpagesize() ||
			    (ring_kib & (ring_kib - 1))) {
				ctl_warn("--ring-kib wants a power of two of at least %d, not '%s'",
					 getpagesize() / 1024, optarg);
				free(sets);
				return EXIT_USAGE;
			}
			break;
		case 'c': cgroup = optarg; break;
		case 'o': output = optarg; break;
		case 'd': duration = atof(optarg); break;
		case 'b': objpath = optarg; break;
		case 's': sets[nr_sets++] = optarg; break;
		default:
			fputs(trace_usage, stderr);
			free(sets);
			return EXIT_USAGE;
		}
	}
	if (!cgroup || !output || optind != argc || duration < 0) {
		fputs(trace_usage, stderr);
		free(sets);
		return EXIT_USAGE;
	}
	if (!objpath) {
		if (find_bpf_object("tracer", obj_buf, sizeof(obj_buf))) {
			ctl_warn("tracer.bpf.o not found; give it with --obj or set CACHECTL_BPF_DIR");
			goto out;
		}
		objpath = obj_buf;
	}
	if (need_root("trace") || cgroup_open_arg(cgroup, cg_path, sizeof(cg_path), &cg_id))
		goto out;

	obj = bpf_object__open_file(objpath, NULL);
	if (!obj) {
		ctl_warn("cannot open %s: %s", objpath, strerror(errno));
		goto out;
	}
	bpf_object__for_each_map(map, obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			ops = map;
	if (!ops || !bpf_object__find_map_by_name(obj, "lc_events")) {
		ctl_warn("%s is not the tracer policy (no lc_events ring buffer)", objpath);
		goto out;
	}
	for (i = 0; i < nr_sets; i++) {
		if (setvar_split(sets[i], &var, &value, &err) ||
		    setvar_apply(obj, var, value, &err)) {
			ctl_warn("%s", err.msg);
			goto out;
		}
	}
	if (ring_kib &&
	    bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "lc_events"),
				     ring_kib * 1024)) {
		ctl_warn("cannot size the ring buffer to %lu KiB", ring_kib);
		goto out;
	}
	if (struct_ops_set_cgroup_id(obj, ops, cg_id) || bpf_object__load(obj)) {
		ctl_warn("loading %s failed (see dmesg; is the kernel a cache_ext kernel?)",
			 objpath);
		goto out;
	}
	rec.out = fopen(output, "wb");
	if (!rec.out) {
		ctl_warn("cannot create %s: %s", output, strerror(errno));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	hdr.version = LC_LOG_VERSION;
	hdr.header_size = sizeof(hdr);
	hdr.record_size = sizeof(struct lc_event);
	hdr.page_size = getpagesize();
	hdr.clock = LC_CLOCK_MONOTONIC;
	hdr.nr_features = LC_NR_FEATURES;
	hdr.cgroup_limit = memory_max(cg_path);
	hdr.start_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	if (fwrite(&hdr, sizeof(hdr), 1, rec.out) != 1) {
		ctl_warn("cannot write %s: %s", output, strerror(errno));
		goto out;
	}

	rb = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(obj, "lc_events")),
			      on_event, &rec, NULL);
	nr_dropped = setvar_addr(obj, "nr_dropped", NULL);
	link = bpf_map__attach_struct_ops(ops);
	if (!rb || !link) {
		ctl_warn("attaching the tracer to %s failed: %s (a policy already bound?)",
			 cg_path, strerror(errno));
		goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (duration > 0)
		end_ns = hdr.start_ns + (uint64_t)(duration * 1e9);
	printf("# tracing %s to %s\n", cg_path, output);
	fflush(stdout);

	while (!stop && !rec.error) {
		ring_buffer__poll(rb, 100);
		record_drops(&rec, nr_dropped);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (end_ns && ts.tv_sec * 1000000000ULL + ts.tv_nsec >= end_ns)
			break;
	}
	/* Detach first, then take what is left in the ring buffer. */
	bpf_link__destroy(link);
	link = NULL;
	ring_buffer__consume(rb);
	record_drops(&rec, nr_dropped);
	if (rec.error || fflush(rec.out)) {
		ctl_warn("writing %s failed: %s", output, strerror(rec.error ? -rec.error : errno));
		goto out;
	}
	printf("recorded %llu events, %llu dropped, to %s\n", rec.written,
	       rec.dropped, output);
	ret = 0;
out:
	bpf_link__destroy(link);
	ring_buffer__free(rb);
	if (rec.out && fclose(rec.out) && !ret) {
		ctl_warn("writing %s failed: %s", output, strerror(errno));
		ret = EXIT_FAIL;
	}
	bpf_object__close(obj);
	free(sets);
	return ret;
}
