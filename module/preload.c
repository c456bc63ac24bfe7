// SPDX-License-Identifier: GPL-2.0
/*
 * Policies by name from the start: when the module loads, it has the
 * standard policy suite registered, so that
 * "echo lfu > /sys/fs/cgroup/CG/memory.cache_ext" works with no attach
 * step, as "echo bbr > tcp_congestion_control" does once tcp_bbr is there.
 *
 * Policies are BPF programs, loaded and verified from user space; the
 * module asks user space to do it the way request_module() asks modprobe:
 * it runs "HELPER preload NAME..." (HELPER is cachectl) and waits for it.
 * The helper pins each policy's struct_ops link in bpffs, so the policies
 * stay registered after it exits and after this module is unloaded; a
 * policy registered already is left alone.  A failing helper does not fail
 * the module: the log says what to run instead.
 *
 * The helper never loads this module (cachectl preload does not), which
 * would wait for this very initialisation to finish.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/umh.h>

#include "cache_ext_suite.h"
#include "internal.h"

#ifndef CACHE_EXT_CTL_HELPER
#define CACHE_EXT_CTL_HELPER "/usr/local/sbin/cachectl"
#endif

/* At most this many names; the suite has eight. */
#define PRELOAD_MAX	32

static char *preload = CACHE_EXT_SUITE;
module_param(preload, charp, 0444);
MODULE_PARM_DESC(preload,
		 "policies to register when the module loads, comma-separated; empty for none");

static char *helper = CACHE_EXT_CTL_HELPER;
module_param(helper, charp, 0444);
MODULE_PARM_DESC(helper,
		 "absolute path of cachectl, which registers them (cachectl preload)");

/**
 * cache_ext_ctl_preload - register the policies of the preload parameter
 *
 * Runs the helper and waits for it.  Called once the module's interfaces
 * are up, as the last step of its initialisation.
 */
void cache_ext_ctl_preload(void)
{
	char *argv[PRELOAD_MAX + 3], *envp[3], *names, *p, *name;
	int argc = 0, ret;

	if (!preload || !*preload)
		return;
	if (!helper || helper[0] != '/') {
		pr_warn("helper=%s is not an absolute path; no policy preloaded\n",
			helper ? helper : "(null)");
		return;
	}
	/* The allocator reports a failure; the module loads without them. */
	names = kstrdup(preload, GFP_KERNEL);
	if (!names)
		return;
	/* The environment request_module() gives modprobe. */
	envp[0] = "HOME=/";
	envp[1] = "PATH=/sbin:/bin:/usr/sbin:/usr/bin";
	envp[2] = NULL;
	argv[argc++] = helper;
	argv[argc++] = "preload";
	for (p = names; (name = strsep(&p, ",")) && argc < PRELOAD_MAX + 2;)
		if (*name)
			argv[argc++] = name;
	argv[argc] = NULL;

	ret = call_usermodehelper(helper, argv, envp, UMH_WAIT_PROC);
	if (ret < 0)
		pr_warn("could not run %s to preload policies (%d); set the module's helper parameter to cachectl's path, or run 'cachectl preload'\n",
			helper, ret);
	else if (ret)
		pr_warn("%s preload %s exited with status %d: some policies are not registered; see 'cachectl list', run 'cachectl preload' for its messages\n",
			helper, preload, ret >> 8);
	else
		pr_info("policies registered: %s\n", preload);
	kfree(names);
}
