// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl stats: every binding's counters since it was bound, its
 * decision time and the model store.
 */
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachectl.h"
#include "cgroup.h"
#include "hist.h"
#include "nl.h"

static const char stats_usage[] =
"usage: cachectl stats [CGROUP]\n"
"\n"
"Shows the counters of every binding, or of CGROUP's only, since it was\n"
"bound: the policy's decisions: evict_calls (evict_folios() calls),\n"
"requested (folios reclaim asked for), proposed (candidates the policy\n"
"proposed), accepted (candidates the kernel isolated for reclaim),\n"
"rejected (candidates it could not take: busy or gone), reclaimed (pages\n"
"reclaimed from accepted candidates), fallback (file pages the kernel's\n"
"own LRU reclaimed), errors (invalid, foreign or duplicate candidates),\n"
"untracked (folios not registered for lack of memory), not_admitted\n"
"(folios dropped after a read, admission refused); the registry\n"
"(tracked, registry_bytes), and the cgroup's page cache as its readers saw\n"
"it: accesses (reads of cached folios), misses (folios reads brought in,\n"
"readahead included), refaults (misses on folios the cgroup had evicted),\n"
"evict_busy (reclaim batches the kernel's LRU chose because another\n"
"reclaimer was asking the policy), mapped_accesses (uses through mmap\n"
"that reclaim or MGLRU's page-table walk found and told the policy of;\n"
"not in accesses or hits), prefetched (of the misses, folios readahead\n"
"brought in before anyone asked for them), prefetch_evicted (of those,\n"
"folios reclaim evicted before they were read: readahead wasted),\n"
"prefetch_refaults (of those, folios read in again: at least; the last\n"
"1,024 or so are remembered), lock_holds (acquisitions of the binding's\n"
"lock: insertions, removals, list kfuncs, evictions; a hit takes none\n"
"unless its policy moves the folio, and then one per 15 moves), hits\n"
"(accesses - misses, as cachestat counts them: a read that waited for\n"
"its folio counts the folio's one access against its insertion),\n"
"hit_ratio (hits / accesses) and policy_share (reclaimed / (reclaimed +\n"
"fallback): of the file pages reclaim evicted, the share the policy\n"
"chose; the rest the kernel's LRU chose, while the policy was busy or\n"
"after a batch of the policy's that freed nothing).  Readahead inserts\n"
"folios before their reads, so misses can exceed the reads that found\n"
"nothing cached; when prefetched folios are evicted unread, misses can\n"
"exceed accesses, and hits is then 0, never negative.  Then the median\n"
"and 99th\n"
"percentile of the policy's decision time (cachectl hist has the whole\n"
"histogram) and the models in the store with their versions and hold-out\n"
"AUC.  cachectl top shows the counters live.\n";

struct stats_ctx {
	uint64_t cgroup_id;	/* 0: all */
	int shown;
};

/* Median and p99 of the binding's evict_folios() time (debugfs). */
static void print_decision_time(uint64_t id)
{
	char path[PATH_MAX], text[4096];
	struct hist h;

	snprintf(path, sizeof(path), "%s/%" PRIu64 "/latency", CTL_DEBUGFS, id);
	if (read_text(path, text, sizeof(text)) <= 0 || hist_parse(text, &h) ||
	    !h.total)
		return;
	printf("%-16s < %" PRIu64 " ns\n%-16s < %" PRIu64 " ns\n", "decide_p50",
	       hist_quantile(&h, 0.5), "decide_p99", hist_quantile(&h, 0.99));
}

static int print_stats(const struct nl_msg *msg, void *data)
{
	struct stats_ctx *c = data;
	uint64_t id = nl_attr_u64(msg, CACHE_EXT_A_CGROUP_ID);
	char cgroup[PATH_MAX];
	unsigned int i;

	if (c->cgroup_id && id != c->cgroup_id)
		return 0;
	cgroup_name_of(id, cgroup, sizeof(cgroup));
	printf("%scgroup %s (id %" PRIu64 ")\npolicy %s\n", c->shown ? "\n" : "",
	       cgroup, id, nl_attr_str(msg, CACHE_EXT_A_POLICY));
	for (i = 1; i <= CACHE_EXT_A_STAT_MAX; i++)
		if (msg->stats[i] && nl_stat_name(i))
			printf("%-16s %" PRIu64 "\n", nl_stat_name(i),
			       mnl_attr_get_u64(msg->stats[i]));
	if (msg->stats[CACHE_EXT_A_STAT_ACCESSES]) {
		struct effect e;

		effect_of(msg, &e);
		printf("%-16s %" PRIu64 "\n", "hits", effect_hits(&e));
		if (e.accesses)
			printf("%-16s %.4f\n", "hit_ratio", effect_hit_ratio(&e));
		else
			printf("%-16s -\n", "hit_ratio");
	}
	if (msg->stats[CACHE_EXT_A_STAT_RECLAIMED] &&
	    msg->stats[CACHE_EXT_A_STAT_FALLBACK]) {
		uint64_t reclaimed = nl_stat_u64(msg, CACHE_EXT_A_STAT_RECLAIMED);
		uint64_t fallback = nl_stat_u64(msg, CACHE_EXT_A_STAT_FALLBACK);
		double share = policy_share(reclaimed, fallback);

		if (share < 0)
			printf("%-16s -\n", "policy_share");
		else
			printf("%-16s %.4f\n", "policy_share", share);
	}
	print_decision_time(id);
	c->shown++;
	return 0;
}

/* The models of the store: name, version and hold-out AUC, one per line. */
static void print_models(void)
{
	DIR *d = opendir(CTL_SYSFS "/models");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[PATH_MAX], text[4096], *v, *auc;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/models/%s/summary", CTL_SYSFS, de->d_name);
		if (read_text(path, text, sizeof(text)) <= 0)
			continue;
		v = strstr(text, "\nversion ");
		auc = strstr(text, "\nauc ");
		printf("%-16s %s version %llu auc %s\n", "model", de->d_name,
		       v ? strtoull(v + 9, NULL, 10) : 0ULL,
		       auc ? strtok(auc + 5, "\n") : "unknown");
	}
	if (d)
		closedir(d);
}

int cmd_stats(int argc, char **argv)
{
	struct stats_ctx c = { 0, 0 };
	char path[PATH_MAX];
	struct nl nl;
	int ret;

	if (wants_help(argc, argv, stats_usage))
		return 0;
	if (argc > 2) {
		fputs(stats_usage, stderr);
		return EXIT_USAGE;
	}
	if (argc == 2 &&
	    cgroup_open_arg(argv[1], path, sizeof(path), &c.cgroup_id))
		return EXIT_FAIL;
	if (open_family(&nl))
		return EXIT_FAIL;
	ret = nl_dump(&nl, CACHE_EXT_CMD_BINDING_GET, print_stats, &c);
	nl_close(&nl);
	if (ret) {
		ctl_warn("stats: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	if (argc == 2 && !c.shown) {
		ctl_warn("%s has no policy bound", path);
		return EXIT_FAIL;
	}
	print_models();
	return 0;
}
