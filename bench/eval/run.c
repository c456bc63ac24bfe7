// SPDX-License-Identifier: GPL-2.0
/* The frame around every run of eval; see run.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup_util.h"
#include "run.h"
#include "workload.h"

int setup_is_kernel(const char *setup)
{
	return !strncmp(setup, "kernel-", 7);
}

static int drop_one(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	int fd;

	if (flag != FTW_F)
		return 0;
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
	return 0;
}

int drop_data_caches(void)
{
	const char *dirs[] = { getenv("CACHE_EXT_DATA"), scratch_dir(),
			       getenv("EVAL_SLOW_DATA"), getenv("EVAL_UPPER") };
	size_t i;

	sync();
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (dirs[i] && nftw(dirs[i], drop_one, 16, FTW_PHYS | FTW_MOUNT))
			return -1;
	return 0;
}

/*
 * Read a file whole from this (the root) cgroup: page cache is charged to
 * the cgroup that brings it in, so the pages stay charged here when a run's
 * cgroup maps them later.
 */
static void warm_file(const char *path)
{
	char buf[65536];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

/*
 * The programs runs start and the shared libraries they load: without
 * this, the first run in a cgroup would bring ~15 MiB of RocksDB's, rg's
 * and fio's code into the cgroup being measured, where the policy (any
 * policy manages every file folio of its cgroup) evicts and refaults it,
 * and the experiment would measure code thrashing, not the data's cache.
 */
static void warm_programs(void)
{
	static char files[64][PATH_MAX];
	static int nr = -1;
	const char *progs[] = { "ycsb", "replay", "/usr/bin/rg", "/usr/bin/fio" };
	char out[8192], path[PATH_MAX], *line, *p, *save;
	size_t i;
	int k;

	if (nr < 0) {
		nr = 0;
		for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
			if (progs[i][0] == '/')
				snprintf(path, sizeof(path), "%s", progs[i]);
			else
				snprintf(path, sizeof(path), "%s/%s",
					 getenv("EVAL_BIN") ?: ".", progs[i]);
			if (nr < 64)
				snprintf(files[nr++], PATH_MAX, "%s", path);
			if (run_cmd(out, sizeof(out), "ldd %s", path))
				continue;
			for (line = strtok_r(out, "\n", &save); line && nr < 64;
			     line = strtok_r(NULL, "\n", &save)) {
				p = strstr(line, "=> /");
				if (!p)
					continue;
				p += 3;
				p[strcspn(p, " ")] = '\0';
				snprintf(files[nr++], PATH_MAX, "%s", p);
			}
		}
	}
	for (k = 0; k < nr; k++)
		warm_file(files[k]);
}

int setup_begin(struct setup_run *r, const char *name, const char *full,
		long mem_kib)
{
	char setup[256], policy[64], knobs[256], max[32];
	const char *slash;
	char *k, *at;
	size_t n;
	int ret;

	memset(r, 0, sizeof(*r));
	snprintf(setup, sizeof(setup), "%s", full);
	at = strchr(setup, '@');
	if (at) {
		if (strcmp(at, "@nomap")) {
			fprintf(stderr, "eval: setup '%s': after '@' only nomap\n", full);
			return -1;
		}
		*at = '\0';
		/* The core's switch of folio_mapped_accessed() reports. */
		ret = set_core_param("mapped_accesses", 0);
		if (ret) {
			fprintf(stderr, "eval: setup '%s': cannot set cache_ext.mapped_accesses: %s (a kernel without the mapped-access reports?)\n",
				full, strerror(-ret));
			return -1;
		}
		r->nomap = 1;
	}
	slash = strchr(setup, '/');
	n = slash ? (size_t)(slash - setup) : strlen(setup);
	snprintf(policy, sizeof(policy), "%.*s", (int)n, setup);
	snprintf(knobs, sizeof(knobs), "%s", slash ? slash + 1 : "");
	for (k = knobs; *k; k++)
		if (*k == '/')
			*k = ' ';

	/* Failures from here on set the parameter back (setup_end()). */
	if (set_lru_gen(!strcmp(setup, "kernel-mglru")))
		goto fail;
	r->cg = memcg_create(name);
	if (!r->cg)
		goto fail;
	r->cg_id = cgroup_id_of(r->cg);
	snprintf(max, sizeof(max), "%ldK", mem_kib);
	if (cg_write(r->cg, "memory.max", max) || drop_data_caches()) {
		fprintf(stderr, "eval: cannot set up cgroup %s\n", r->cg);
		goto fail;
	}
	warm_programs();
	if (!setup_is_kernel(setup) &&
	    policy_attach(&r->p, policy, NULL, r->cg_id, knobs))
		goto fail;
	r->disk_before = disk_pages_read();
	return 0;
fail:
	setup_end(r);
	return -1;
}

long long setup_disk_reads(const struct setup_run *r)
{
	return disk_pages_read() - r->disk_before;
}

void setup_end(struct setup_run *r)
{
	policy_detach(&r->p);
	if (r->cg) {
		cg_destroy(r->cg);
		free(r->cg);
	}
	r->cg = NULL;
	if (r->nomap && set_core_param("mapped_accesses", 1))
		fprintf(stderr, "eval: cannot set cache_ext.mapped_accesses back to 1\n");
	r->nomap = 0;
}

static void enter_cgroup(const char *cg)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (cg && cg_write((char *)cg, "cgroup.procs", pid)) {
		fprintf(stderr, "eval: cannot enter %s\n", cg);
		_exit(127);
	}
}

pid_t spawn_bg(const char *cg, char *const argv[], const char *out)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		enter_cgroup(cg);
		execvp(argv[0], argv);
		fprintf(stderr, "eval: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	return pid;
}

int spawn_wait(pid_t pid, double *cpu_us)
{
	struct rusage ru;
	int status;

	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
		return -1;
	if (cpu_us)
		*cpu_us = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec +
			  ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int spawn(const char *cg, char *const argv[], char *out, size_t len,
	  double *cpu_us)
{
	char tmp[] = "/tmp/eval-out.XXXXXX";
	int fd = mkstemp(tmp), ret;
	ssize_t n;

	if (fd < 0)
		return -1;
	ret = spawn_wait(spawn_bg(cg, argv, tmp), cpu_us);
	n = read(fd, out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(tmp);
	return ret;
}

double kv(const char *line, const char *key, double def)
{
	size_t n = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[n] == '=')
			return strtod(p + n + 1, NULL);
		p += n;
	}
	return def;
}

static int run_sh(const char *cmd)
{
	char out[1024];

	if (run_cmd(out, sizeof(out), "%s", cmd)) {
		fprintf(stderr, "eval: '%s' failed: %s", cmd, out);
		return -1;
	}
	return 0;
}

/* Where the overlays' upper layers go: the slow disk's, or scratch. */
static const char *upper_dir(void)
{
	return getenv("EVAL_UPPER") ?: scratch_dir();
}

int overlay_mount(const char *sub, char *mnt, size_t len)
{
	const char *data = getenv("EVAL_SLOW_DATA") ?: getenv("CACHE_EXT_DATA");
	const char *scratch = scratch_dir(), *upper = upper_dir();
	char cmd[1024];

	if (!data || !scratch) {
		fprintf(stderr, "eval: no data disk (CACHE_EXT_DATA): run it through scripts/eval.sh\n");
		return -1;
	}
	snprintf(mnt, len, "%s/db", scratch);
	snprintf(cmd, sizeof(cmd),
		 "rm -rf %1$s/upper %1$s/work && mkdir -p %1$s/upper %1$s/work %2$s && "
		 "mount -t overlay overlay -o lowerdir=%3$s/%4$s,upperdir=%1$s/upper,workdir=%1$s/work %2$s",
		 upper, mnt, data, sub);
	return run_sh(cmd);
}

void overlay_umount(const char *mnt)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "umount %s && rm -rf %s/upper %s/work", mnt,
		 upper_dir(), upper_dir());
	run_sh(cmd);
}

void csv_row(const char *exp, const char *workload, const char *setup,
	     int rep, const char *metric, double value)
{
	printf("@csv %s,%s,%s,%d,%s,%.10g\n", exp, workload, setup, rep, metric,
	       value);
	fflush(stdout);
}
