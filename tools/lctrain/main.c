// SPDX-License-Identifier: GPL-2.0
/*
 * lctrain: train a LearnedCache model from trace logs (cachectl trace).
 *
 *   lctrain [-o model.json] [--horizon-ms MS] [--holdout FRACTION]
 *           [--epochs N] [--seed N] [--scale N] LOG...
 *   lctrain --synthetic ROWS      time training on generated rows
 *   lctrain --check-features LOG...  the evictions' file features against
 *                                 the accesses replayed in time order
 *
 * One row per eviction with the features recorded at that moment,
 * labelled "reinserted within the horizon" (default: the mean residency,
 * the time the cache takes to turn over), or with --rows access one per
 * access as LearnedCache defines them (dataset.h).  The last --holdout of the rows
 * in time (20%) is held out.  Prints the hold-out AUC, precision and
 * recall of the quantized model, and writes JSON for `cachectl model load`.
 * Deterministic for a given seed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lc_model.h"
#include "model.h"

static const char usage[] =
"usage: lctrain [-o model.json] [--rows eviction|access] [--horizon-ms MS]\n"
"               [--holdout F] [--epochs N] [--seed N] [--scale N]\n"
"               [--allow-drops] LOG...\n"
"       lctrain --synthetic ROWS [--epochs N]\n"
"       lctrain --check-features [--baseline FILE.json] LOG...\n"
"\n"
"Trains the LearnedCache perceptron on trace logs written by\n"
"'cachectl trace' and writes it for 'cachectl model load NAME model.json'.\n"
"  -o, --output FILE     the model (default model.json)\n"
"  --rows KIND           eviction (default): one row per eviction, its\n"
"                        features then, reused = inserted again within the\n"
"                        horizon; access: one per access, its features just\n"
"                        before, reused = accessed again before the horizon\n"
"                        after the page's next eviction (LearnedCache's rows)\n"
"  --horizon-ms MS       reuse horizon (default: mean residency in the log)\n"
"  --baseline FILE.json  also score the hold-out rows with this model (the\n"
"                        one in use) and print its AUC there, to compare;\n"
"                        with --check-features, say what the replayed file\n"
"                        features change in its scores of the evictions\n"
"  --holdout F           last fraction of rows, in time, held out (0.2)\n"
"  --epochs N            passes over the training rows (3)\n"
"  --seed N              order of the rows (1); same seed, same model\n"
"  --scale N             weight scale of the integer model (1000)\n"
"  --synthetic ROWS      train on ROWS generated rows and report the time\n"
"  --allow-drops         train on logs that lost over 0.1% of their events\n"
"                        in recording (refused otherwise: not the workload's)\n"
"  --check-features      train nothing: say how many evictions were recorded\n"
"                        with the file features (inode_dt1, inode_dt2,\n"
"                        distance; inode_ema within 1%, and its median\n"
"                        error) that the log's accesses before them give,\n"
"                        replayed in time order with the formulas of\n"
"                        --rows access.  The kernel\n"
"                        keeps a file's state per CPU and merges it for\n"
"                        features: this says how close the merge is\n"
"Exit status: 0 trained (or checked), 1 failed (bad log, too many drops,\n"
"no evictions), 2 usage.\n";

static double seconds(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Rows whose label depends on one feature, for timing at scale. */
static int synthetic(size_t rows, struct dataset *ds)
{
	uint64_t s = 12345;
	size_t i;
	int f;

	memset(ds, 0, sizeof(*ds));
	ds->x = malloc(rows * sizeof(*ds->x));
	ds->y = malloc(rows);
	ds->time = malloc(rows * sizeof(*ds->time));
	if (!ds->x || !ds->y || !ds->time)
		return -ENOMEM;
	for (i = 0; i < rows; i++) {
		for (f = 0; f < LC_NR_FEATURES; f++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			ds->x[i][f] = s % 1000000;
		}
		ds->y[i] = ds->x[i][LC_IDLE] < 300000;
		ds->time[i] = i;
		ds->positives += ds->y[i];
	}
	ds->nr = rows;
	return 0;
}

/* Reads the model in @path (cachectl's JSON) into @m; 0 or -1, said why. */
static int read_model(const char *path, struct model *m)
{
	struct ctl_err cerr;
	char *json = NULL;
	long size;
	FILE *f = fopen(path, "r");
	int ret = -1;

	if (!f) {
		fprintf(stderr, "lctrain: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (size < 0) {
		fprintf(stderr, "lctrain: %s: %s\n", path, strerror(errno));
		goto out;
	}
	rewind(f);
	json = calloc(1, size + 1);
	if (!json)
		fprintf(stderr, "lctrain: %s: out of memory\n", path);
	else if (fread(json, 1, size, f) != (size_t)size)
		fprintf(stderr, "lctrain: %s: cannot read it\n", path);
	else if (model_from_json(json, m, &cerr))
		fprintf(stderr, "lctrain: %s: %s\n", path, cerr.msg);
	else
		ret = 0;
out:
	fclose(f);
	free(json);
	return ret;
}

static double percent(size_t part, size_t whole)
{
	return whole ? 100.0 * part / whole : 0;
}

/*
 * --check-features: what dataset_check_file_features() finds in @ev, and
 * with @model_path, what it changes in that model's scores.
 */
static int check_features(const struct lc_events *ev, const char *model_path)
{
	struct file_check fc;
	struct model m;

	if (model_path && read_model(model_path, &m))
		return 1;
	if (dataset_check_file_features(ev, model_path ? &m : NULL, &fc)) {
		fprintf(stderr, "lctrain: out of memory\n");
		return 1;
	}
	if (!fc.evictions) {
		fprintf(stderr, "lctrain: no eviction of a file accessed three times or more in the log: trace a workload that rereads a file larger than the cgroup's memory\n");
		return 1;
	}
	printf("evictions %zu of files accessed 3+ times: file times as replayed %zu (%.2f%%), inode_ema within 1%% %zu (%.2f%%), median inode_ema error %+.2f%%\n",
	       fc.evictions, fc.times_agree, percent(fc.times_agree, fc.evictions),
	       fc.ema_close, percent(fc.ema_close, fc.evictions),
	       100 * fc.ema_median_err);
	if (model_path)
		printf("model %s with the replayed file features: same logit %zu (%.2f%%), other side of the threshold %zu (%.2f%%); pairs of evictions under %d apart ordered differently %zu of %zu (%.2f%%)\n",
		       model_path, fc.logit_same,
		       percent(fc.logit_same, fc.evictions), fc.class_differs,
		       percent(fc.class_differs, fc.evictions), CHECK_PAIR_SPAN,
		       fc.pairs_reordered, fc.pairs,
		       percent(fc.pairs_reordered, fc.pairs));
	return 0;
}

/* Prints the AUC of the model in @path (cachectl's JSON) on @ds. */
static int baseline_auc(const char *path, const struct dataset *ds)
{
	struct model bm;
	double *score;
	size_t i;

	if (read_model(path, &bm))
		return -1;
	score = malloc((ds->nr + 1) * sizeof(*score));
	if (!score) {
		fprintf(stderr, "lctrain: out of memory\n");
		return -1;
	}
	for (i = 0; i < ds->nr; i++)
		score[i] = model_logit(&bm, ds->x[i]);
	printf("baseline %s: hold-out AUC %.4f on the same rows\n", path,
	       lc_auc(score, ds->y, ds->nr));
	free(score);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "horizon-ms", required_argument, NULL, 'H' },
		{ "rows", required_argument, NULL, 'R' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "holdout", required_argument, NULL, 'O' },
		{ "epochs", required_argument, NULL, 'e' },
		{ "seed", required_argument, NULL, 's' },
		{ "scale", required_argument, NULL, 'S' },
		{ "synthetic", required_argument, NULL, 'y' },
		{ "allow-drops", no_argument, NULL, 'D' },
		{ "check-features", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct lc_train_opts topts = { .epochs = 3, .batch = 256, .lr = 0.05, .seed = 1 };
	const char *output = "model.json";
	double holdout = 0.2, horizon_ms = 0, ppm;
	long long scale = 1000;
	int per_access = 0, allow_drops = 0, check = 0;
	const char *baseline = NULL;
	size_t synth = 0, n_train;
	struct lc_events ev = { 0 };
	struct dataset ds, train, test;
	struct lc_metrics mt, mh;
	struct timespec t0, t1;
	struct lc_model m;
	char err[512];
	char *end;
	int c, i;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'B':
			baseline = optarg;
			break;
		case 'R':
			if (strcmp(optarg, "eviction") && strcmp(optarg, "access"))
				goto bad;
			per_access = !strcmp(optarg, "access");
			break;
		case 'H':
			horizon_ms = strtod(optarg, &end);
			if (*end || horizon_ms < 0)
				goto bad;
			break;
		case 'O':
			holdout = strtod(optarg, &end);
			if (*end || holdout < 0 || holdout >= 1)
				goto bad;
			break;
		case 'e':
			topts.epochs = strtoul(optarg, &end, 10);
			if (*end || !topts.epochs)
				goto bad;
			break;
		case 's':
			topts.seed = strtoull(optarg, &end, 0);
			if (*end)
				goto bad;
			break;
		case 'S':
			scale = strtoll(optarg, &end, 10);
			if (*end || scale < 1)
				goto bad;
			break;
		case 'y':
			synth = strtoull(optarg, &end, 10);
			if (*end || !synth)
				goto bad;
			break;
		case 'D':
			allow_drops = 1;
			break;
		case 'C':
			check = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if ((!synth && optind == argc) || (synth && check))
		goto bad;

	if (synth) {
		if (synthetic(synth, &ds)) {
			fprintf(stderr, "lctrain: out of memory for %zu rows\n", synth);
			return 1;
		}
	} else {
		int (*build)(const struct lc_events *ev, uint64_t horizon_ns,
			     struct dataset *ds);

		for (i = optind; i < argc; i++) {
			if (lclog_read(argv[i], &ev, err, sizeof(err))) {
				fprintf(stderr, "lctrain: %s\n", err);
				return 1;
			}
		}
		if (lc_events_dropped_too_many(&ev, &ppm) && !allow_drops) {
			fprintf(stderr, "lctrain: events %zu from %u log(s), %llu dropped (%.2f%% of them, over %.1f%%): the recording is not the workload's; record it again (cachectl trace --ring-kib) or pass --allow-drops\n",
				ev.nr, ev.nr_logs, ev.dropped, ppm / 1e4,
				LC_DROPS_MAX_PPM / 1e4);
			return 1;
		}
		if (check)
			return check_features(&ev, baseline);
		build = per_access ? dataset_build_accesses : dataset_build;
		if (build(&ev, horizon_ms * 1e6, &ds)) {
			static const char lost[] = ", or record it again"
				" without losing events (the drops may hold them)";

			fprintf(stderr, "lctrain: events %zu from %u log(s), %llu dropped: no evictions in the log%s: trace a workload larger than the cgroup's memory%s\n",
				ev.nr, ev.nr_logs, ev.dropped,
				argc - optind > 1 ? "s" : "",
				ev.dropped ? lost : "");
			return 1;
		}
		printf("events %zu from %u log(s), %llu dropped; mean residency %.1f ms, horizon %.1f ms\n",
		       ev.nr, ev.nr_logs, ev.dropped, ds.mean_residency_ns / 1e6,
		       ds.horizon_ns / 1e6);
		lc_events_free(&ev);
	}
	n_train = ds.nr - (size_t)(ds.nr * holdout);
	dataset_split(&ds, n_train, &train, &test);
	printf("rows %zu (%zu reused), training on the first %zu, holding out %zu\n",
	       ds.nr, ds.positives, train.nr, test.nr);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (lc_train(&train, &topts, &m)) {
		fprintf(stderr, "lctrain: out of memory\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("trained in %.2f s (%u epochs, seed %llu)\n", seconds(&t0, &t1),
	       topts.epochs, (unsigned long long)topts.seed);

	lc_evaluate(&m, &train, scale, 0, &mt);
	lc_evaluate(&m, test.nr ? &test : &train, scale, 0, &mh);
	printf("train AUC %.4f; hold-out AUC %.4f precision %.4f recall %.4f accuracy %.4f (%zu rows, %zu reused)\n",
	       mt.auc, mh.auc, mh.precision, mh.recall, mh.accuracy, mh.rows,
	       mh.positives);
	if (baseline && baseline_auc(baseline, test.nr ? &test : &train))
		return 1;
	if (!synth) {
		struct lc_model_info info = {
			.holdout_auc = mh.auc,
			.rows = per_access ? "access" : "eviction",
		};

		if (lc_model_write_json(&m, scale, 0, &info, output)) {
			fprintf(stderr, "lctrain: cannot write %s\n", output);
			return 1;
		}
		printf("wrote %s\n", output);
	}
	dataset_free(&ds);
	return 0;
bad:
	fputs(usage, stderr);
	return 2;
}
