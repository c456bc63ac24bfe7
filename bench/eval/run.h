/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every experiment of eval does around a run: a fresh cgroup with a
 * setup (the kernel's LRU, MGLRU, or a cache_ext policy), cold caches, the
 * database as a throw-away overlay, a program started inside the cgroup
 * with its output and CPU time collected, and one CSV row per measurement.
 */
#ifndef __EVAL_RUN_H
#define __EVAL_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cache_ext_util.h"

/*
 * A setup: "kernel-lru", "kernel-mglru" or "policy[/knob=value...]", with
 * "@nomap" after it for a run with cache_ext.mapped_accesses=0 (the policy
 * is not told of uses through mmap; set back when the run ends).
 */
struct setup_run {
	char *cg;		/* the run's cgroup */
	uint64_t cg_id;
	struct policy p;
	long long disk_before;	/* pgpgin pages at the start */
	int nomap;		/* the run turned the reports off */
};

/*
 * A fresh cgroup @name of @mem_kib KiB under @setup, the data's caches
 * dropped.
 * 0 or -1 (and why on stderr).
 */
int setup_begin(struct setup_run *r, const char *name, const char *setup,
		long mem_kib);
/* Pages read from disk since setup_begin(). */
long long setup_disk_reads(const struct setup_run *r);
void setup_end(struct setup_run *r);

/* Is @setup one of the kernel's own policies? */
int setup_is_kernel(const char *setup);

/*
 * Runs @argv in cgroup @cg (NULL: here), its stdout into @out (NUL
 * terminated); the child's user + system CPU time in *@cpu_us (may be
 * NULL).  Returns its exit status, or -1.
 */
int spawn(const char *cg, char *const argv[], char *out, size_t len,
	  double *cpu_us);

/* Starts @argv in @cg without waiting; its stdout into the file @out. */
pid_t spawn_bg(const char *cg, char *const argv[], const char *out);
/* Waits for spawn_bg()'s @pid; exit status, or -1. */
int spawn_wait(pid_t pid, double *cpu_us);

/* The value of "key=value" in @line, or @def. */
double kv(const char *line, const char *key, double def);

/*
 * The database as an overlay: $CACHE_EXT_DATA/@sub read-only below (or
 * $EVAL_SLOW_DATA/@sub, its copy on a disk with a latency: slow_disk.h),
 * a fresh upper directory on the scratch disk (or $EVAL_UPPER), mounted
 * at @mnt.
 */
int overlay_mount(const char *sub, char *mnt, size_t len);
void overlay_umount(const char *mnt);

/*
 * Drop the page cache of every file on the data and scratch disks (the
 * programs' code, read once from the root cgroup, stays cached there).
 */
int drop_data_caches(void);

/*
 * One CSV row: experiment,workload,setup,rep,metric,value, marked for
 * scripts/eval.sh to collect from the console.
 */
void csv_row(const char *exp, const char *workload, const char *setup,
	     int rep, const char *metric, double value);

#endif
