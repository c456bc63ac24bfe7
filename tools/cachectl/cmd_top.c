// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl top: every bound cgroup's page cache, refreshed once a second:
 * reads, misses, hit ratio and refaults over the last interval, the
 * policy's evictions, and the folios it tracks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cachectl.h"
#include "cgroup.h"
#include "nl.h"

static const char top_usage[] =
"usage: cachectl top [-n COUNT] [-d SECONDS]\n"
"\n"
"Shows every bound cgroup's page cache, refreshed every SECONDS (1): reads\n"
"of cached folios (ACCESS/s), folios reads brought in (MISS/s, readahead\n"
"included), the hit ratio over the interval (HIT%: (accesses - misses) /\n"
"accesses, 0 when readahead brought in more than was read; cachectl\n"
"stats says how much of it was evicted unread), refaults (REFAULT/s:\n"
"misses on folios the cgroup had evicted), pages the policy's candidates\n"
"freed (EVICT/s) and the\n"
"folios the binding tracks.  The first frame comes after the first\n"
"interval.  On a terminal each frame replaces the last; otherwise frames\n"
"follow each other, separated by a blank line.  cachectl stats CGROUP gives\n"
"the totals since binding.\n"
"\n"
"  -n, --count COUNT     stop after COUNT frames (default: until interrupted)\n"
"  -d, --delay SECONDS   seconds between frames, 1 to 3600\n";

#define MAX_ROWS	256

struct row {
	uint64_t cgroup_id;
	char policy[64];
	struct effect e;
	uint64_t reclaimed;
	uint64_t tracked;
};

struct frame {
	struct row rows[MAX_ROWS];
	int nr;
};

static int collect(const struct nl_msg *msg, void *data)
{
	struct frame *f = data;
	struct row *r;

	if (f->nr == MAX_ROWS || !msg->tb[CACHE_EXT_A_CGROUP_ID])
		return 0;
	r = &f->rows[f->nr++];
	r->cgroup_id = mnl_attr_get_u64(msg->tb[CACHE_EXT_A_CGROUP_ID]);
	snprintf(r->policy, sizeof(r->policy), "%s",
		 nl_attr_str(msg, CACHE_EXT_A_POLICY));
	effect_of(msg, &r->e);
	r->reclaimed = nl_stat_u64(msg, CACHE_EXT_A_STAT_RECLAIMED);
	r->tracked = nl_stat_u64(msg, CACHE_EXT_A_STAT_TRACKED);
	return 0;
}

/* The row of the same binding in the previous frame, or NULL. */
static const struct row *previous(const struct frame *prev,
				  const struct row *r)
{
	int i;

	for (i = 0; i < prev->nr; i++)
		if (prev->rows[i].cgroup_id == r->cgroup_id &&
		    !strcmp(prev->rows[i].policy, r->policy))
			return &prev->rows[i];
	return NULL;
}

static void print_frame(const struct frame *f, const struct frame *prev,
			double seconds)
{
	static const struct row zero;
	char cgroup[PATH_MAX];
	int i;

	printf("%-32s %-12s %9s %9s %6s %9s %9s %9s\n", "CGROUP", "POLICY",
	       "ACCESS/s", "MISS/s", "HIT%", "REFAULT/s", "EVICT/s",
	       "TRACKED");
	for (i = 0; i < f->nr; i++) {
		const struct row *r = &f->rows[i], *p = previous(prev, r);
		double secs = seconds;
		struct effect e;

		/* Bound during the interval: all it did, it did in it. */
		if (!p)
			p = &zero;
		e = effect_delta(&r->e, &p->e);
		cgroup_name_of(r->cgroup_id, cgroup, sizeof(cgroup));
		printf("%-32s %-12s %9.0f %9.0f ", cgroup, r->policy,
		       e.accesses / secs, e.misses / secs);
		if (e.accesses)
			printf("%6.1f", 100.0 * effect_hit_ratio(&e));
		else
			printf("%6s", "-");
		printf(" %9.0f %9.0f %9" PRIu64 "\n", e.refaults / secs,
		       counter_delta(r->reclaimed, p->reclaimed) / secs,
		       r->tracked);
	}
	if (!f->nr)
		printf("(no cgroup has a policy bound)\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	static struct frame frames[2];
	long count = -1, delay = 1, frame;
	int tty = isatty(STDOUT_FILENO), c, ret = 0;
	double then = 0, now;
	char *end;
	struct nl nl;

	while ((c = getopt_long(argc, argv, "n:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			count = strtol(optarg, &end, 10);
			if (*end || count < 1) {
				ctl_warn("top: --count wants a positive number, not '%s'",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd':
			delay = strtol(optarg, &end, 10);
			if (*end || delay < 1 || delay > 3600) {
				ctl_warn("top: --delay wants 1 to 3600 seconds, not '%s'",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(top_usage, stdout);
			return 0;
		default:
			fputs(top_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fputs(top_usage, stderr);
		return EXIT_USAGE;
	}
	if (open_family(&nl))
		return EXIT_FAIL;
	/* Frame 0 is the baseline; every printed frame is one interval. */
	for (frame = 0; count < 0 || frame <= count; frame++) {
		struct frame *f = &frames[frame & 1], *prev = &frames[!(frame & 1)];

		if (frame)
			sleep(delay);
		f->nr = 0;
		ret = nl_dump(&nl, CACHE_EXT_CMD_BINDING_GET, collect, f);
		if (ret) {
			ctl_warn("top: %s", strerror(-ret));
			break;
		}
		now = now_s();
		if (frame) {
			if (tty)
				printf("\033[H\033[2J");
			else if (frame > 1)
				printf("\n");
			print_frame(f, prev, now - then);
			fflush(stdout);
		}
		then = now;
	}
	nl_close(&nl);
	return ret ? EXIT_FAIL : 0;
}
