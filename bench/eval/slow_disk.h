/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Misses that cost: under TCG the guest's CPU is tens of times slower than
 * the hardware while the data disk's image sits in the host's page cache,
 * so a page cache miss costs the guest about what a hit costs.  eval puts
 * the data the runs read (the database, the source tree) and the upper
 * layers of their overlays on memory-backed null_blk devices whose
 * requests complete after a set latency (completion_nsec, timer
 * completions): a miss then costs what it costs on an SSD, scaled by how
 * much slower the guest is.
 *
 * Why null_blk: it gives a per-request latency with nanosecond resolution
 * to every request alike, concurrent ones overlapping as on an SSD;
 * dm-delay counts in milliseconds, and qemu's throttling limits a rate,
 * not a latency.
 */
#ifndef __EVAL_SLOW_DISK_H
#define __EVAL_SLOW_DISK_H

#include <stddef.h>

/*
 * The guest's slowdown against the host for work that hits the page
 * cache: microseconds per YCSB read of a small, fully cached database, in
 * the guest over the host's (@host_us, measured by scripts/eval.sh the
 * same way).  Returns the ratio, or -1.
 */
double slow_disk_slowdown(const char *ycsb_bin, double host_us,
			  double *guest_us);

/*
 * Copy @subdirs (space-separated, of @data) to a null_blk device with
 * @us microseconds per request, mounted at @mnt, and make a second such
 * device for the overlays' upper layers at @upper.  0 or -1 (and why on
 * stderr).
 */
int slow_disk_setup(int us, const char *data, const char *subdirs,
		    const char *mnt, const char *upper);

#endif
