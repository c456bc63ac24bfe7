// SPDX-License-Identifier: GPL-2.0
/* Data on disks whose reads cost a set latency; see slow_disk.h. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache_ext_util.h"
#include "run.h"
#include "slow_disk.h"
#include "workload.h"

#define CALIB_RECORDS	"20000"
#define CALIB_OPS	"20000"

double slow_disk_slowdown(const char *ycsb_bin, double host_us,
			  double *guest_us)
{
	char db[PATH_MAX], out[4096];
	char *load[] = { (char *)ycsb_bin, "load", "-d", db, "-n",
			 CALIB_RECORDS, NULL };
	char *run[] = { (char *)ycsb_bin, "run", "-d", db, "-w", "c", "-n",
			CALIB_RECORDS, "-o", CALIB_OPS, "-W", CALIB_OPS, "-t",
			"1", "-c", "0", NULL };
	double best = 0;
	int i;

	scratch_path(db, sizeof(db), "calibration-db");
	run_cmd(out, sizeof(out), "rm -rf %s", db);
	if (spawn(NULL, load, out, sizeof(out), NULL)) {
		fprintf(stderr, "eval: ycsb load for the calibration failed: %s\n",
			out);
		return -1;
	}
	/* The best of two: the machine is shared, and slower never lies less. */
	for (i = 0; i < 2; i++) {
		double ops;

		if (spawn(NULL, run, out, sizeof(out), NULL) ||
		    (ops = kv(out, "ops_per_s", 0)) <= 0) {
			fprintf(stderr, "eval: ycsb run for the calibration failed: %s\n",
				out);
			return -1;
		}
		if (!best || 1e6 / ops < best)
			best = 1e6 / ops;
	}
	run_cmd(out, sizeof(out), "rm -rf %s", db);
	*guest_us = best;
	return host_us > 0 ? best / host_us : -1;
}

/*
 * A memory-backed null_blk device of @mib MiB completing each request
 * after @ns ns, through configfs; its /dev path in @dev.  0 or -1.
 */
static int nullb_create(const char *name, long mib, long ns, char *dev,
			size_t len)
{
	char out[1024];
	int ret;

	ret = run_cmd(out, sizeof(out),
		      "set -e; c=/sys/kernel/config; "
		      "[ -d $c/nullb ] || mount -t configfs configfs $c; "
		      "d=$c/nullb/%1$s; mkdir $d; "
		      "echo %2$ld > $d/size; echo 1 > $d/memory_backed; "
		      "echo 4096 > $d/blocksize; echo 2 > $d/irqmode; "
		      "echo %3$ld > $d/completion_nsec; echo 1 > $d/power",
		      name, mib, ns);
	if (ret) {
		fprintf(stderr, "eval: cannot create the null_blk device %s (CONFIG_BLK_DEV_NULL_BLK and CONFIG_CONFIGFS_FS in the kernel?): %s\n",
			name, out);
		return -1;
	}
	/* A device made through configfs is named after its directory. */
	snprintf(dev, len, "/dev/%s", name);
	return 0;
}

int slow_disk_setup(int us, const char *data, const char *subdirs,
		    const char *mnt, const char *upper)
{
	char dev[64], updev[64], out[4096];
	long mib;

	if (run_cmd(out, sizeof(out), "cd %s && du -sm %s | awk '{ s += $1 } END { print s }'",
		    data, subdirs)) {
		fprintf(stderr, "eval: cannot size %s in %s: %s\n", subdirs,
			data, out);
		return -1;
	}
	/* ext4's own metadata and slack on top. */
	mib = atol(out) * 5 / 4 + 64;
	if (nullb_create("eval_data", mib, us * 1000L, dev, sizeof(dev)) ||
	    nullb_create("eval_upper", 1024, us * 1000L, updev, sizeof(updev)))
		return -1;
	if (run_cmd(out, sizeof(out),
		    "set -e; for d in %1$s %2$s; do "
		    "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 $d; done; "
		    "mkdir -p %3$s %4$s; mount %1$s %3$s; mount %2$s %4$s; "
		    "cd %5$s; cp -a %6$s %3$s/; sync",
		    dev, updev, mnt, upper, data, subdirs)) {
		fprintf(stderr, "eval: cannot put %s on %s: %s\n", subdirs, dev,
			out);
		return -1;
	}
	return 0;
}
