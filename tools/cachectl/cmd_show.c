// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl bind / unbind / list / stats: bindings and counters through the
 * "cache_ext" generic netlink family.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>
#include <stdlib.h>

#include "cachectl.h"
#include "cgroup.h"
#include "hist.h"
#include "nl.h"

static const char bind_usage[] =
"usage: cachectl bind CGROUP POLICY\n"
"\n"
"Makes the registered POLICY evict the page cache of CGROUP (a path under the\n"
"cgroup2 mount, e.g. /sys/fs/cgroup/db or just db).  Same as\n"
"echo POLICY > CGROUP/memory.cache_ext.\n";

static const char unbind_usage[] =
"usage: cachectl unbind CGROUP\n"
"\n"
"Gives CGROUP back to the kernel's own eviction.\n";

static const char list_usage[] =
"usage: cachectl list\n"
"\n"
"Lists the registered policies (state, number of cgroups, pin of the policies\n"
"attached by cachectl) and the cgroups bound to them.\n";

static const char stats_usage[] =
"usage: cachectl stats [CGROUP]\n"
"\n"
"Shows the counters of every binding, or of CGROUP's only, since it was\n"
"bound: the policy's decisions (evict_calls .. not_admitted), the registry\n"
"(tracked, registry_bytes), and the cgroup's page cache as its readers saw\n"
"it: accesses (reads of cached folios), misses (folios reads brought in,\n"
"readahead included), refaults (misses on folios the cgroup had evicted),\n"
"evict_busy (reclaim batches the kernel's LRU chose because another\n"
"reclaimer was asking the policy), mapped_accesses (uses through mmap\n"
"that reclaim or MGLRU's page-table walk found and told the policy of;\n"
"not in accesses or hits), hits (accesses - misses) and\n"
"hit_ratio; then the median and 99th\n"
"percentile of the policy's decision time (cachectl hist has the whole\n"
"histogram) and the models in the store with their versions and hold-out\n"
"AUC.  cachectl top shows the counters live.\n";

int open_family(struct nl *nl)
{
	int ret;

	if (need_module())
		return -ENOENT;
	ret = nl_open(nl);
	if (ret)
		ctl_warn("the cache_ext netlink family is not available: %s (is %s loaded? see dmesg)",
			 strerror(-ret), CTL_MODULE);
	return ret;
}

static int bind_or_unbind(const char *cmd, const char *cgroup,
			  const char *policy)
{
	char path[PATH_MAX];
	uint64_t id;
	struct nl nl;
	int ret;

	if (need_root(cmd) || cgroup_open_arg(cgroup, path, sizeof(path), &id) ||
	    open_family(&nl))
		return EXIT_FAIL;
	ret = nl_bind(&nl, policy, id);
	nl_close(&nl);
	switch (ret) {
	case 0:
		if (policy)
			printf("%s: %s\n", path, policy);
		else
			printf("%s: default\n", path);
		return 0;
	case -ENOENT:
		if (policy)
			ctl_warn("no policy '%s' is registered (see cachectl list)",
				 policy);
		else
			ctl_warn("%s has no policy bound", path);
		break;
	case -EBUSY:
		ctl_warn("%s already has a policy; unbind it first", path);
		break;
	default:
		ctl_warn("%s %s: %s", cmd, path, strerror(-ret));
	}
	return EXIT_FAIL;
}

int cmd_bind(int argc, char **argv)
{
	if (wants_help(argc, argv, bind_usage))
		return 0;
	if (argc != 3) {
		fputs(bind_usage, stderr);
		return EXIT_USAGE;
	}
	return bind_or_unbind("bind", argv[1], argv[2]);
}

int cmd_unbind(int argc, char **argv)
{
	if (wants_help(argc, argv, unbind_usage))
		return 0;
	if (argc != 2) {
		fputs(unbind_usage, stderr);
		return EXIT_USAGE;
	}
	return bind_or_unbind("unbind", argv[1], NULL);
}

static const char *attr_str(const struct nl_msg *msg, int type)
{
	return msg->tb[type] ? mnl_attr_get_str(msg->tb[type]) : "?";
}

static uint64_t attr_u64(const struct nl_msg *msg, int type)
{
	return msg->tb[type] ? mnl_attr_get_u64(msg->tb[type]) : 0;
}

static int print_policy(const struct nl_msg *msg, void *data)
{
	const char *name = attr_str(msg, CACHE_EXT_A_POLICY);
	uint32_t reason = msg->tb[CACHE_EXT_A_EJECT_REASON] ?
		mnl_attr_get_u32(msg->tb[CACHE_EXT_A_EJECT_REASON]) : 0;
	char pin[PATH_MAX], state[160];

	if (reason)
		snprintf(state, sizeof(state), "ejected (%s)",
			 attr_str(msg, CACHE_EXT_A_EJECT_REASON_STR));
	else
		snprintf(state, sizeof(state), "active");
	snprintf(pin, sizeof(pin), "%s/%s", CTL_PIN_DIR, name);
	/* The state last: an ejection's reason can be long. */
	printf("%-16s %7u  %-36s %s\n", name,
	       msg->tb[CACHE_EXT_A_NR_BINDINGS] ?
	       mnl_attr_get_u32(msg->tb[CACHE_EXT_A_NR_BINDINGS]) : 0,
	       access(pin, F_OK) ? "-" : pin, state);
	(*(int *)data)++;
	return 0;
}

static int print_binding(const struct nl_msg *msg, void *data)
{
	char cgroup[PATH_MAX];

	cgroup_name_of(attr_u64(msg, CACHE_EXT_A_CGROUP_ID), cgroup,
		       sizeof(cgroup));
	printf("%-40s %s\n", cgroup, attr_str(msg, CACHE_EXT_A_POLICY));
	(*(int *)data)++;
	return 0;
}

int cmd_list(int argc, char **argv)
{
	int nr_policies = 0, nr_bindings = 0, ret;
	struct nl nl;

	if (wants_help(argc, argv, list_usage))
		return 0;
	if (argc != 1) {
		fputs(list_usage, stderr);
		return EXIT_USAGE;
	}
	if (open_family(&nl))
		return EXIT_FAIL;
	printf("%-16s %7s  %-36s %s\n", "POLICY", "CGROUPS", "PIN", "STATE");
	ret = nl_dump(&nl, CACHE_EXT_CMD_POLICY_GET, print_policy,
		      &nr_policies);
	if (!ret) {
		printf("\n%-40s %s\n", "CGROUP", "POLICY");
		ret = nl_dump(&nl, CACHE_EXT_CMD_BINDING_GET, print_binding,
			      &nr_bindings);
	}
	nl_close(&nl);
	if (ret) {
		ctl_warn("list: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	return 0;
}

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
	uint64_t id = attr_u64(msg, CACHE_EXT_A_CGROUP_ID);
	char cgroup[PATH_MAX];
	unsigned int i;

	if (c->cgroup_id && id != c->cgroup_id)
		return 0;
	cgroup_name_of(id, cgroup, sizeof(cgroup));
	printf("%scgroup %s (id %" PRIu64 ")\npolicy %s\n", c->shown ? "\n" : "",
	       cgroup, id, attr_str(msg, CACHE_EXT_A_POLICY));
	for (i = 1; i <= CACHE_EXT_A_STAT_MAX; i++)
		if (msg->stats[i] && nl_stat_name(i))
			printf("%-16s %" PRIu64 "\n", nl_stat_name(i),
			       mnl_attr_get_u64(msg->stats[i]));
	if (msg->stats[CACHE_EXT_A_STAT_ACCESSES]) {
		struct effect e;

		effect_of(msg, &e);
		printf("%-16s %" PRIu64 "\n", "hits", effect_hits(&e));
		if (e.accesses)
			printf("%-16s %.4f\n", "hit_ratio",
			       (double)effect_hits(&e) / e.accesses);
		else
			printf("%-16s -\n", "hit_ratio");
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
