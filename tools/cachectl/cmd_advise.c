// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl advise: which policy should this cgroup run?  Records the
 * cgroup's page cache accesses with the tracer (cachectl trace), replays
 * them in cachesim for every policy at the cgroup's page cache size and at
 * half and twice it, prints the expected miss ratios and recommends one;
 * --apply binds it.  The learned policies take part with a model lctrain
 * trains on the same recording.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachectl.h"
#include "cgroup.h"

static const char advise_usage[] =
"usage: cachectl advise CGROUP [--duration SEC] [--apply] [--log FILE]\n"
"                       [--policies LIST] [--pages N]\n"
"\n"
"Records CGROUP's page cache accesses for SEC seconds (default 30; run the\n"
"workload meanwhile) with the tracer, simulates every policy on them with\n"
"cachesim (the policies' own BPF source) at the cgroup's page cache size\n"
"and at half and twice it, prints the expected miss ratios and recommends\n"
"the policy with the fewest misses at the current size, or the kernel's\n"
"own eviction (default) if no policy saves at least 1%.  A policy bound to\n"
"CGROUP is unbound while tracing and bound again after.\n"
"  --apply          bind the recommendation (for ml_rank or ml_protect,\n"
"                   load the model trained on the recording first)\n"
"  --log FILE       keep the recording (a cachectl trace log) in FILE\n"
"  --policies LIST  candidates, comma separated (default fifo,lfu,mru,\n"
"                   s3fifo,lhd,mglru and, if a model trains, ml_rank,\n"
"                   ml_protect)\n"
"  --pages N        simulate at N pages instead of the cgroup's file pages\n"
"cachesim and lctrain are found through $CACHESIM and $LCTRAIN, beside\n"
"this build, or in PATH.\n";

#define MAX_CANDIDATES	16
#define NR_SIZES	3
#define DEFAULT_POLICIES "fifo,lfu,mru,s3fifo,lhd,mglru"
#define LEARNED_MODEL	"learned"

struct candidate {
	char name[64];
	double miss_ratio[NR_SIZES];
	int have[NR_SIZES];
};

/* The cgroup's page cache in pages (memory.stat "file"), or 0. */
static unsigned long long file_pages(const char *cg)
{
	char path[PATH_MAX], buf[8192], *line;

	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return 0;
	for (line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (!strncmp(line, "file ", 5))
			return strtoull(line + 5, NULL, 10) / getpagesize();
	return 0;
}

static int set_policy(const char *cg, const char *policy)
{
	int ret = cgroup_policy_write(cg, policy);

	if (ret)
		ctl_warn("echo %s > %s/memory.cache_ext: %s", policy, cg,
			 strerror(-ret));
	return ret;
}

static struct candidate *candidate(struct candidate *c, unsigned int *nr,
				   const char *name)
{
	unsigned int i;

	for (i = 0; i < *nr; i++)
		if (!strcmp(c[i].name, name))
			return &c[i];
	if (*nr == MAX_CANDIDATES)
		return NULL;
	memset(&c[*nr], 0, sizeof(c[0]));
	snprintf(c[*nr].name, sizeof(c[0].name), "%s", name);
	return &c[(*nr)++];
}

/* cachesim -o tsv: policy pages accesses misses miss_ratio ... */
static int parse_tsv(char *tsv, const unsigned long long *sizes,
		     struct candidate *c, unsigned int *nr)
{
	char *line, *save;

	for (line = strtok_r(tsv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		unsigned long long pages, acc, miss;
		double ratio;
		struct candidate *cd;
		unsigned int z;

		if (sscanf(line, "%63s %llu %llu %llu %lf", name, &pages, &acc,
			   &miss, &ratio) != 5)
			continue;
		cd = candidate(c, nr, name);
		for (z = 0; cd && z < NR_SIZES; z++) {
			if (sizes[z] == pages) {
				cd->miss_ratio[z] = ratio;
				cd->have[z] = 1;
			}
		}
	}
	return *nr ? 0 : -ENOENT;
}

int cmd_advise(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "apply", no_argument, NULL, 'a' },
		{ "log", required_argument, NULL, 'l' },
		{ "policies", required_argument, NULL, 'p' },
		{ "pages", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *duration = "30", *log_arg = NULL, *policies = DEFAULT_POLICIES;
	int default_list = 1;
	char cg[PATH_MAX], dir[] = "/tmp/cachectl-advise.XXXXXX", log[PATH_MAX];
	char model[PATH_MAX], sim[PATH_MAX], trainer[PATH_MAX], prev[128];
	char list[1024], size_arg[96], model_arg[PATH_MAX + 16], *tsv = NULL;
	struct candidate cands[MAX_CANDIDATES];
	unsigned long long pages = 0, sizes[NR_SIZES];
	unsigned int nr = 0, i, best = 0, dflt = 0;
	int c, apply = 0, have_model = 0, ret = EXIT_FAIL, rebind = 0;
	uint64_t id;

	if (wants_help(argc, argv, advise_usage))
		return 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:al:p:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			duration = optarg;
			break;
		case 'a':
			apply = 1;
			break;
		case 'l':
			log_arg = optarg;
			break;
		case 'p':
			policies = optarg;
			default_list = 0;
			break;
		case 'n':
			pages = strtoull(optarg, NULL, 10);
			if (!pages) {
				ctl_warn("--pages wants a number of pages > 0, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			fputs(advise_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || atof(duration) <= 0) {
		fputs(advise_usage, stderr);
		return EXIT_USAGE;
	}
	if (need_root("advise") || cgroup_open_arg(argv[optind], cg, sizeof(cg), &id))
		return EXIT_FAIL;
	find_helper("CACHESIM", "cachesim/cachesim", "cachesim", sim, sizeof(sim));
	find_helper("LCTRAIN", "lctrain/lctrain", "lctrain", trainer, sizeof(trainer));
	if (!mkdtemp(dir)) {
		ctl_warn("mkdtemp: %s", strerror(errno));
		return EXIT_FAIL;
	}
	snprintf(log, sizeof(log), "%s", log_arg ? log_arg : "");
	if (!log_arg)
		snprintf(log, sizeof(log), "%s/trace.lclog", dir);
	snprintf(model, sizeof(model), "%s/model.json", dir);

	if (cgroup_policy_read(cg, prev, sizeof(prev))) {
		ctl_warn("%s has no memory.cache_ext (not a cache_ext kernel?)", cg);
		goto out;
	}
	if (strstr(prev, "(inherited)")) {
		ctl_warn("%s runs %s, inherited from its parent: advise the parent, or bind %s a policy of its own",
			 cg, prev, cg);
		goto out;
	}
	if (strcmp(prev, "default")) {
		printf("advise: unbinding %s from %s while tracing; bound again after\n", prev, cg);
		if (set_policy(cg, "default"))
			goto out;
		rebind = 1;
	}

	/* Record. */
	{
		char *targv[] = { "trace", "--cgroup", cg, "-o", log, "--duration",
				  (char *)duration, NULL };

		if (cmd_trace(7, targv))
			goto out;
	}
	if (rebind && !set_policy(cg, prev))
		rebind = 0;
	if (!pages)
		pages = file_pages(cg);
	if (pages < 64) {
		ctl_warn("%s holds %llu page cache pages: too few to advise on (run the workload while advising, or give --pages)",
			 cg, pages);
		goto out;
	}
	sizes[0] = pages / 2;
	sizes[1] = pages;
	sizes[2] = pages * 2;
	snprintf(size_arg, sizeof(size_arg), "%llu,%llu,%llu", sizes[0], sizes[1], sizes[2]);

	/* A model for the learned policies, from the same recording. */
	if (default_list || strstr(policies, "ml_")) {
		char *largv[] = { trainer, "-o", model, log, NULL };

		printf("advise: training a model for ml_rank and ml_protect (%s)\n", trainer);
		have_model = run_capture(largv, NULL, 0, 0) == 0;
		if (!have_model)
			printf("advise: no model (lctrain failed, see above): the learned policies are left out\n");
	}
	snprintf(list, sizeof(list), "lru,%s%s", policies,
		 have_model && default_list ?
		 ",ml_rank,ml_protect" : "");
	snprintf(model_arg, sizeof(model_arg), "%s=%s", LEARNED_MODEL, model);
	{
		char *sargv[] = { sim, "-o", "tsv", "-p", list, "-s", size_arg, log,
				  have_model ? "-m" : NULL, model_arg, NULL };

		tsv = malloc(1 << 16);
		if (!tsv)
			goto out;
		if (run_capture(sargv, tsv, 1 << 16, 0) != 0 ||
		    parse_tsv(tsv, sizes, cands, &nr)) {
			ctl_warn("cachesim %s failed (see above)", log);
			goto out;
		}
	}

	/* The table; best at the current size, default unless 1% better. */
	printf("\nadvise: %s, expected miss ratio (disk reads per access) by cachesim\n", cg);
	printf("%-12s %12llu %12llu %12llu  pages\n", "policy", sizes[0], sizes[1], sizes[2]);
	for (i = 0; i < nr; i++) {
		unsigned int z;

		printf("%-12s", strcmp(cands[i].name, "lru") ? cands[i].name : "default");
		for (z = 0; z < NR_SIZES; z++) {
			if (cands[i].have[z])
				printf(" %12.4f", cands[i].miss_ratio[z]);
			else
				printf(" %12s", "-");
		}
		printf("%s\n", i == 0 ? "  (the kernel's LRU, as cachesim models it)" : "");
		if (!strcmp(cands[i].name, "lru"))
			dflt = i;
		if (cands[i].have[1] && cands[i].miss_ratio[1] < cands[best].miss_ratio[1])
			best = i;
	}
	if (best != dflt && cands[best].miss_ratio[1] > cands[dflt].miss_ratio[1] * 0.99)
		best = dflt;
	printf("\nrecommended: %s (%.4f at %llu pages; default %.4f)\n",
	       best == dflt ? "default" : cands[best].name, cands[best].miss_ratio[1],
	       sizes[1], cands[dflt].miss_ratio[1]);

	ret = 0;
	if (apply) {
		const char *name = best == dflt ? "default" : cands[best].name;
		char cur[128];

		if (!strncmp(name, "ml_", 3)) {
			char *margv[] = { "model", "load", LEARNED_MODEL, model, NULL };

			if (cmd_model(4, margv))
				ret = EXIT_FAIL;
		}
		if (!ret && strcmp(name, "default")) {
			char *pargv[] = { "preload", (char *)name, NULL };

			if (cmd_preload(2, pargv))
				ret = EXIT_FAIL;
		}
		cgroup_policy_read(cg, cur, sizeof(cur));
		if (!ret && strcmp(cur, name) && strcmp(cur, "default") &&
		    set_policy(cg, "default"))
			ret = EXIT_FAIL;
		if (!ret && strcmp(cur, name) && set_policy(cg, name))
			ret = EXIT_FAIL;
		if (!ret)
			printf("applied: %s/memory.cache_ext: %s\n", cg, name);
	}
out:
	if (rebind && set_policy(cg, prev))
		ctl_warn("%s could not get %s back: bind it again with cachectl bind", cg, prev);
	free(tsv);
	if (!log_arg)
		unlink(log);
	unlink(model);
	rmdir(dir);
	return ret;
}
