// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl learn: continuous learning.  Binds ml_rank to a cgroup with its
 * recording on, cuts what it records into windows of a few seconds, and
 * after every window retrains on the last few with lctrain.  The new model
 * replaces the one in use, by name in the model store (its version goes
 * up; ml_rank picks it up at its next eviction), when its hold-out AUC
 * beats the current model's on the same rows.  The policy stays bound
 * throughout: only the model changes.
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
#include "model.h"
#include "recorder.h"
#include "setvar.h"
#include "struct_ops.h"

static const char learn_usage[] =
"usage: cachectl learn CGROUP [--every SEC] [--windows N] [--duration SEC]\n"
"                      [--model NAME] [--rows access|eviction] [--min-gain G]\n"
"                      [--set VAR=VALUE]...\n"
"\n"
"Binds ml_rank to CGROUP (which must have no policy) with its recording on,\n"
"and every SEC seconds (default 30) retrains the model NAME (default\n"
"learned) with lctrain on the last N windows recorded (default 3).  The new\n"
"model replaces the one in use in the model store when its hold-out AUC\n"
"beats the current model's on the same rows by G (default 0.005) and has\n"
"signal (AUC >= 0.55); the first one that trains is loaded.  Rows are per\n"
"access by default: once a model works, the pages it keeps are no longer\n"
"evicted, and eviction rows lose the positives they learn from.  ml_rank\n"
"stays bound all along and scores\n"
"with each new version from its next eviction on.  One line per window;\n"
"stops on Ctrl-C, SIGTERM or after --duration, and the cgroup goes back to\n"
"the kernel's eviction.  --set passes knobs to ml_rank (oversample=10).\n"
"lctrain is $LCTRAIN, beside this build, or in PATH.\n";

#define MAX_WINDOWS	16

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* lctrain on @logs; its output in @out; exit status or -1. */
static int train(const char *lctrain, const char *rows, const char *baseline,
		 const char *model, char **logs, int nr_logs, char *out, size_t len)
{
	char *argv[8 + MAX_WINDOWS];
	int argc = 0, i;

	argv[argc++] = (char *)lctrain;
	argv[argc++] = "--rows";
	argv[argc++] = (char *)rows;
	argv[argc++] = "-o";
	argv[argc++] = (char *)model;
	if (baseline) {
		argv[argc++] = "--baseline";
		argv[argc++] = (char *)baseline;
	}
	for (i = 0; i < nr_logs; i++)
		argv[argc++] = logs[i];
	argv[argc] = NULL;
	return run_capture(argv, out, len, 1);
}

/* The number after @key in @text, or -1. */
static double number_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtod(p + strlen(key), NULL) : -1;
}

/* The store's version of model @name, or 0. */
static unsigned long long model_version(const char *name)
{
	char path[PATH_MAX], buf[4096];

	snprintf(path, sizeof(path), "%s/models/%s/summary", CTL_SYSFS, name);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return 0;
	return (unsigned long long)number_after(buf, "version ");
}

int cmd_learn(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "every", required_argument, NULL, 'e' },
		{ "windows", required_argument, NULL, 'w' },
		{ "duration", required_argument, NULL, 'd' },
		{ "model", required_argument, NULL, 'm' },
		{ "rows", required_argument, NULL, 'R' },
		{ "min-gain", required_argument, NULL, 'g' },
		{ "set", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *model = "learned", *rows = "access";
	double every = 30, duration = 0, min_gain = 0.005, current_auc = -1;
	char cg[PATH_MAX], objpath[PATH_MAX], lctrain[PATH_MAX];
	char dir[] = "/tmp/cachectl-learn.XXXXXX", current[PATH_MAX], cand[PATH_MAX];
	char *logs[MAX_WINDOWS] = { 0 }, **sets, *out = NULL;
	char record_set[] = "record=true", model_set[MODEL_NAME_LEN + 8];
	struct sigaction sa = { .sa_handler = on_signal };
	struct bpf_map *ops = NULL;
	struct bpf_object *obj = NULL;
	struct bpf_link *link = NULL;
	struct ring_buffer *rb = NULL;
	volatile __u64 *drops_pending;
	unsigned long long start, window_end, end = 0;
	int c, nr_windows = 3, nr_logs = 0, nr_sets = 0, i, window = 0;
	int ret = EXIT_FAIL;
	struct recorder rec = { 0 };
	uint64_t cg_id;

	if (wants_help(argc, argv, learn_usage))
		return 0;
	sets = calloc(argc + 2, sizeof(*sets));
	if (!sets)
		return EXIT_FAIL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "e:w:d:m:R:g:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			every = atof(optarg);
			break;
		case 'w':
			nr_windows = atoi(optarg);
			break;
		case 'd':
			duration = atof(optarg);
			break;
		case 'm':
			model = optarg;
			break;
		case 'R':
			rows = optarg;
			break;
		case 'g':
			min_gain = atof(optarg);
			break;
		case 's':
			sets[nr_sets++] = optarg;
			break;
		default:
			fputs(learn_usage, stderr);
			free(sets);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || every < 1 || nr_windows < 1 ||
	    nr_windows > MAX_WINDOWS || duration < 0 ||
	    (strcmp(rows, "eviction") && strcmp(rows, "access"))) {
		fputs(learn_usage, stderr);
		free(sets);
		return EXIT_USAGE;
	}
	if (!model_name_valid(model)) {
		ctl_warn("'%s' is not a model name", model);
		free(sets);
		return EXIT_USAGE;
	}
	if (need_root("learn") || cgroup_open_arg(argv[optind], cg, sizeof(cg), &cg_id) ||
	    need_module())
		goto out_free;
	if (find_bpf_object("ml_rank", objpath, sizeof(objpath))) {
		ctl_warn("ml_rank.bpf.o not found; set CACHECTL_BPF_DIR");
		goto out_free;
	}
	find_helper("LCTRAIN", "lctrain/lctrain", "lctrain", lctrain, sizeof(lctrain));
	if (!mkdtemp(dir)) {
		ctl_warn("mkdtemp: %s", strerror(errno));
		goto out_free;
	}
	snprintf(current, sizeof(current), "%s/current.json", dir);
	snprintf(cand, sizeof(cand), "%s/candidate.json", dir);
	out = malloc(1 << 16);
	if (!out)
		goto out;

	/* Recording on and the model named, before the user's knobs. */
	snprintf(model_set, sizeof(model_set), "model=%s", model);
	memmove(sets + 2, sets, nr_sets * sizeof(*sets));
	sets[0] = record_set;
	sets[1] = model_set;
	obj = recording_policy_load(objpath, sets, nr_sets + 2, 8 << 20, &ops);
	if (!obj)
		goto out;
	drops_pending = setvar_addr(obj, "drops_pending", NULL);
	rb = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(obj, "lc_events")),
			      recorder_on_event, &rec, NULL);
	link = rb ? struct_ops_attach(ops, cg) : NULL;
	if (!link) {
		ctl_warn("binding ml_rank to %s failed: %s (does it have a policy? unbind it first)",
			 cg, strerror(errno));
		goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	start = now_ns();
	if (duration > 0)
		end = start + (unsigned long long)(duration * 1e9);
	printf("# learning %s: ml_rank bound, model %s, retrained every %.0f s on the last %d windows (%s rows)\n",
	       cg, model, every, nr_windows, rows);
	fflush(stdout);

	while (!stop) {
		char path[PATH_MAX];
		int st;

		snprintf(path, sizeof(path), "%s/window.%d.lclog", dir, window);
		if (recorder_open(&rec, path, cg))
			goto out;
		window_end = now_ns() + (unsigned long long)(every * 1e9);
		if (end && window_end > end)
			window_end = end;
		while (!stop && !rec.error && now_ns() < window_end)
			recorder_drain(&rec, rb, 10);
		recorder_finish(&rec, rb, drops_pending);
		if (recorder_close(&rec, path))
			goto out;

		/* The sliding window: the last nr_windows logs. */
		if (nr_logs == nr_windows) {
			unlink(logs[0]);
			free(logs[0]);
			memmove(logs, logs + 1, (nr_logs - 1) * sizeof(*logs));
			nr_logs--;
		}
		logs[nr_logs++] = strdup(path);
		st = train(lctrain, rows, current_auc >= 0 ? current : NULL, cand,
			   logs, nr_logs, out, 1 << 16);
		if (st) {
			printf("window %d: %llu events, nothing trained (%s)\n", window,
			       rec.written, st < 0 ? out : "lctrain found no evictions to learn from");
		} else {
			double auc = number_after(out, "hold-out AUC ");
			double base = current_auc >= 0 ?
				number_after(strstr(out, "baseline ") ?: "", "hold-out AUC ") : -1;

			if (current_auc < 0 ||
			    (auc > base + min_gain && auc * 1000 >= MODEL_MIN_AUC_PERMILLE)) {
				char *margv[] = { "model", "load", (char *)model, cand, NULL };

				if (cmd_model(4, margv))
					goto out;
				rename(cand, current);
				current_auc = auc;
				printf("window %d: %llu events; model %s version %llu in use: hold-out AUC %.4f%s",
				       window, rec.written, model, model_version(model), auc,
				       base >= 0 ? "" : "\n");
				if (base >= 0)
					printf(" (the previous one: %.4f on the same rows)\n",
					       base);
			} else {
				printf("window %d: %llu events; kept version %llu: new hold-out AUC %.4f, current %.4f\n",
				       window, rec.written, model_version(model), auc, base);
			}
		}
		fflush(stdout);
		window++;
		if (end && now_ns() >= end)
			break;
	}
	ret = 0;
out:
	bpf_link__destroy(link);
	if (link)
		printf("# %s: ml_rank unbound after %d windows\n", cg, window);
	ring_buffer__free(rb);
	if (rec.out)
		recorder_close(&rec, "the window");
	bpf_object__close(obj);
	for (i = 0; i < nr_logs; i++) {
		unlink(logs[i]);
		free(logs[i]);
	}
	unlink(current);
	unlink(cand);
	rmdir(dir);
	free(out);
out_free:
	free(sets);
	return ret;
}
