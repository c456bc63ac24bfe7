/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachectl: attach cache_ext policies, bind them to cgroups, and show what
 * they do.  Shared declarations of the subcommands and their helpers.
 */
#ifndef CACHECTL_H
#define CACHECTL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_err.h"

#define CTL_SYSFS	"/sys/kernel/cache_ext"
#define CTL_DEBUGFS	"/sys/kernel/debug/cache_ext"
#define CTL_PIN_DIR	"/sys/fs/bpf/cache_ext"
#define CTL_MODULE	"cache_ext_ctl"
/* Exit statuses: 0 success, 1 the request failed, 2 bad usage. */
#define EXIT_FAIL	1
#define EXIT_USAGE	2

__attribute__((format(printf, 1, 2)))
void ctl_warn(const char *fmt, ...);

/* Reads a whole small file into @buf (NUL-terminated); bytes or -errno. */
long read_text(const char *path, char *buf, size_t len);
/* Writes @text to @path in one write(); 0 or -errno. */
int write_text(const char *path, const char *text);

/* Preconditions of the commands; each prints what is missing. */
int need_root(const char *cmd);
int need_cache_ext_kernel(void);
int need_module(void);

/* Subcommands: argc/argv start at the subcommand's name. */
int cmd_attach(int argc, char **argv);
int cmd_preload(int argc, char **argv);
int cmd_detach(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_bind(int argc, char **argv);
int cmd_unbind(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_tids(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_learn(int argc, char **argv);

/*
 * Finds the policy object NAME.bpf.o: in $CACHECTL_BPF_DIR, next to the
 * build (../bpf from the binary), installed beside the binary
 * (../lib/cache_ext/bpf: /usr/sbin/cachectl finds /usr/lib/cache_ext/bpf),
 * or in /usr/local/lib/cache_ext/bpf.
 * Returns 0 or -ENOENT.
 */
int find_bpf_object(const char *name, char *path, size_t len);

/*
 * A helper program of the build (cachesim, lctrain): $@env if set, else
 * @file beside the build (build/@file) if executable, else @name, to be
 * found in PATH.  The result is in @path.
 */
void find_helper(const char *env, const char *file, const char *name,
		 char *path, size_t len);

/*
 * Runs @argv (argv[0] found in PATH if it has no '/'), with its standard
 * output (and, with @with_stderr, its standard error) into @out, up to
 * @len - 1 bytes and NUL-terminated; with no @out it shares ours.
 * Returns its exit status, or -1 (with the reason in @out if given) if it
 * could not run or was killed.
 */
int run_capture(char *const argv[], char *out, size_t len, int with_stderr);

/* True if argv[1..] asks for help; prints @usage to stdout then. */
int wants_help(int argc, char **argv, const char *usage);

#endif /* CACHECTL_H */
