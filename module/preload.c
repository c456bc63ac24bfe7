// SPDX-License-Identifier: GPL-2.0
/*
 * Policies by name from the start: once the module has a helper to run, it
 * has the standard policy suite registered, so that
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
 * Where cachectl lives is the system's business, not the kernel's: the
 * helper parameter has no default.  It is given when the module is loaded
 * (cachectl passes its own path when it loads the module), or written to
 * /sys/module/cache_ext_ctl/parameters/helper later, which runs the
 * preload then.  A built-in module initialises before the root file
 * system is mounted, when no helper could run: it preloads when user
 * space writes the path (from an init script, say), whether or not the
 * command line gave one.
 *
 * The helper never loads this module (cachectl preload does not), which
 * would wait for this very initialisation to finish.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/umh.h>
#include <linux/workqueue.h>

#include "cache_ext_suite.h"
#include "internal.h"

/* At most this many names; the suite has eight. */
#define PRELOAD_MAX	32

static char *preload = CACHE_EXT_SUITE;
module_param(preload, charp, 0444);
MODULE_PARM_DESC(preload,
		 "policies to register when the module loads, comma-separated; empty for none");

static void preload_workfn(struct work_struct *work);
static DECLARE_WORK(preload_work, preload_workfn);
/*
 * Set once the module's interfaces are up, cleared before they go; under
 * the parameter lock, which a write of the parameter holds, so that no
 * write queues the work after cache_ext_ctl_preload_exit() flushed it.
 */
static bool preload_ready;

static char *helper;

/*
 * A helper written after initialisation preloads from a work item: the
 * writer holds the parameter lock, which the helper could need.
 */
static int helper_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_charp(val, kp);

	if (!ret && preload_ready)
		queue_work(system_unbound_wq, &preload_work);
	return ret;
}

static const struct kernel_param_ops helper_ops = {
	.set	= helper_set,
	.get	= param_get_charp,
	.free	= param_free_charp,
};
module_param_cb(helper, &helper_ops, &helper, 0644);
MODULE_PARM_DESC(helper,
		 "absolute path of cachectl, which registers them (cachectl preload); no default, writing it preloads");

/* Run the helper on the preload list and wait for it. */
static void run_helper(const char *path)
{
	char *argv[PRELOAD_MAX + 3], *envp[3], *names, *p, *name;
	int argc = 0, ret;

	if (path[0] != '/') {
		pr_warn("helper=%s is not an absolute path; no policy preloaded\n",
			path);
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
	argv[argc++] = (char *)path;
	argv[argc++] = "preload";
	for (p = names; (name = strsep(&p, ",")) && argc < PRELOAD_MAX + 2;)
		if (*name)
			argv[argc++] = name;
	argv[argc] = NULL;

	ret = call_usermodehelper(path, argv, envp, UMH_WAIT_PROC);
	if (ret < 0)
		pr_warn("could not run %s to preload policies (%d); write cachectl's path to /sys/module/cache_ext_ctl/parameters/helper, or run 'cachectl preload'\n",
			path, ret);
	else if (ret)
		pr_warn("%s preload %s exited with status %d: some policies are not registered; see 'cachectl list', run 'cachectl preload' for its messages\n",
			path, preload, ret >> 8);
	else
		pr_info("policies registered: %s\n", preload);
	kfree(names);
}

/*
 * Preload with the helper as it is now, read under the parameter lock (a
 * write frees the old string).  Return: false if there is none.
 */
static bool preload_now(void)
{
	bool given;
	char *path;

	kernel_param_lock(THIS_MODULE);
	given = helper && *helper;
	path = given ? kstrdup(helper, GFP_KERNEL) : NULL;
	kernel_param_unlock(THIS_MODULE);
	if (path)
		run_helper(path);
	kfree(path);
	return given;
}

static void preload_workfn(struct work_struct *work)
{
	if (preload && *preload)
		preload_now();
}

/**
 * cache_ext_ctl_preload - register the policies of the preload parameter
 *
 * Runs the helper, if one was given, and waits for it; from now on,
 * writing the helper parameter runs it again.  Called once the module's
 * interfaces are up, as the last step of its initialisation.
 */
void cache_ext_ctl_preload(void)
{
	kernel_param_lock(THIS_MODULE);
	preload_ready = true;
	kernel_param_unlock(THIS_MODULE);
	if (!preload || !*preload)
		return;
	if (system_state < SYSTEM_RUNNING) {
		pr_info("built in: policies are preloaded when user space writes cachectl's path to /sys/module/cache_ext_ctl/parameters/helper\n");
		return;
	}
	if (!preload_now())
		pr_info("no helper given: policies are not preloaded; load the module with helper=/path/to/cachectl, write that path to /sys/module/cache_ext_ctl/parameters/helper, or run 'cachectl preload'\n");
}

/**
 * cache_ext_ctl_preload_exit - stop preloading
 *
 * Waits for a preload a write of the helper parameter started.  Called
 * first when the module goes, while its interfaces are still up.
 */
void cache_ext_ctl_preload_exit(void)
{
	kernel_param_lock(THIS_MODULE);
	preload_ready = false;
	kernel_param_unlock(THIS_MODULE);
	flush_work(&preload_work);
}
