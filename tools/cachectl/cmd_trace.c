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
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/types.h>

#include "cachectl.h"
#include "cgroup.h"
#include "setvar.h"
#include "recorder.h"
#include "lc_trace.h"
#include "struct_ops.h"

static const char trace_usage[] =
"usage: cachectl trace --cgroup CGROUP -o LOG [--duration SEC] [--ring-kib N]\n"
"                      [--nice N] [--obj tracer.bpf.o] [--set VAR=VALUE]...\n"
"\n"
"Binds the tracer policy (an LFU-oversampled FIFO) to CGROUP and writes\n"
"every page cache insertion, access, use through a mapping (when the\n"
"kernel finds it: reclaim or MGLRU's walk) and eviction there, with the\n"
"features of LearnedCache, to LOG until Ctrl-C, SIGTERM or SEC seconds.\n"
"Events the ring buffer could not hold are counted and recorded in the log,\n"
"where they were lost; a log that lost over 0.1% of its events is refused\n"
"by lctrain and cachesim (not the workload's).\n"
"Prints '# tracing' once recording, and a summary at the end (events,\n"
"drops, uses through mappings).  Train with lctrain.\n"
"  --ring-kib N   ring buffer size (a power of two, at least the page size;\n"
"                 default 8192 KiB)\n"
"  --nice N       the recorder's nice value while it records (default -10:\n"
"                 it keeps up with a workload that keeps every CPU busy,\n"
"                 taking the CPU time the recording costs; 0: as others)\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
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
		{ "nice", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *cgroup = NULL, *output = NULL, *objpath = NULL;
	char cg_path[PATH_MAX], obj_buf[PATH_MAX];
	struct sigaction sa = { .sa_handler = on_signal };
	struct recorder rec = { 0 };
	struct ring_buffer *rb = NULL;
	struct bpf_object *obj = NULL;
	struct bpf_link *link = NULL;
	struct bpf_map *ops = NULL;
	volatile __u64 *drops_pending;
	unsigned long ring_kib = 0;
	long nice_value = -10;
	int nice_before = INT_MIN;
	char *end;
	double duration = 0;
	struct timespec ts;
	uint64_t cg_id, start_ns, end_ns = 0;
	char **sets;
	int c, nr_sets = 0, ret = EXIT_FAIL;

	if (wants_help(argc, argv, trace_usage))
		return 0;
	sets = calloc(argc, sizeof(*sets));
	if (!sets)
		return EXIT_FAIL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:o:d:b:s:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			nice_value = strtol(optarg, &end, 10);
			if (*end || end == optarg || nice_value < -20 || nice_value > 19) {
				ctl_warn("--nice wants a nice value from -20 to 19, not '%s'",
					 optarg);
				free(sets);
				return EXIT_USAGE;
			}
			break;
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
		case 'c':
			cgroup = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'd':
			duration = atof(optarg);
			break;
		case 'b':
			objpath = optarg;
			break;
		case 's':
			sets[nr_sets++] = optarg;
			break;
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

	obj = recording_policy_load(objpath, sets, nr_sets,
				    (ring_kib ? ring_kib : 8192) * 1024, &ops);
	if (!obj)
		goto out;
	if (recorder_open(&rec, output, cg_path))
		goto out;

	rb = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(obj, "lc_events")),
			      recorder_on_event, &rec, NULL);
	drops_pending = setvar_addr(obj, "drops_pending", NULL);
	link = struct_ops_attach(ops, cg_path);
	if (!rb || !link) {
		ctl_warn("attaching the tracer to %s failed: %s (a policy already bound?)",
			 cg_path, strerror(errno));
		goto out;
	}
	/*
	 * Measured on LevelDB reading through mmap with eight threads on two
	 * CPUs: at the workload's priority the recorder got too little CPU
	 * to drain what they produced and the ring buffer overflowed.
	 */
	errno = 0;
	nice_before = getpriority(PRIO_PROCESS, 0);
	if (errno)
		nice_before = 0;
	if (setpriority(PRIO_PROCESS, 0, nice_value))
		ctl_warn("cannot set the recorder's nice value to %ld: %s (recording as is)",
			 nice_value, strerror(errno));
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	start_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	if (duration > 0)
		end_ns = start_ns + (uint64_t)(duration * 1e9);
	printf("# tracing %s to %s\n", cg_path, output);
	fflush(stdout);

	while (!stop && !rec.error) {
		recorder_drain(&rec, rb, 10);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (end_ns && ts.tv_sec * 1000000000ULL + ts.tv_nsec >= end_ns)
			break;
	}
	/* Detach first, then take what is left in the ring buffer. */
	bpf_link__destroy(link);
	link = NULL;
	recorder_finish(&rec, rb, drops_pending);
	if (recorder_close(&rec, output))
		goto out;
	printf("recorded %llu events, %llu dropped, to %s (%llu uses through mappings)\n",
	       rec.written, rec.dropped, output, rec.mapped);
	ret = 0;
out:
	/* What runs after (cachectl advise's cachesim) runs as before. */
	if (nice_before != INT_MIN)
		setpriority(PRIO_PROCESS, 0, nice_before);
	bpf_link__destroy(link);
	ring_buffer__free(rb);
	if (rec.out)
		recorder_close(&rec, output);
	bpf_object__close(obj);
	free(sets);
	return ret;
}
