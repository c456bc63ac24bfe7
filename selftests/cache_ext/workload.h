/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Workloads that tell policies apart, shared by the policy selftests and
 * the `make run` table: seeded Zipfian random reads, cyclic scans, and
 * counting what came from the disk.
 */
#ifndef __CACHE_EXT_WORKLOAD_H
#define __CACHE_EXT_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Pages read from block devices so far (/proc/vmstat pgpgin / 4). */
long long disk_pages_read(void);

struct zipf {
	double *cdf;		/* cdf[i] = P(rank <= i) */
	size_t n;
	uint64_t state;		/* xorshift64* */
};

/* Ranks 0..n-1 with P(rank k) ~ 1 / (k + 1)^theta; 0 or -ENOMEM. */
int zipf_init(struct zipf *z, size_t n, double theta, uint64_t seed);
size_t zipf_next(struct zipf *z);
void zipf_free(struct zipf *z);

/*
 * @nr random 4 KiB preads of @path's @pages pages, page = a fixed
 * permutation of a Zipfian rank (hot pages spread over the file), with
 * readahead off; every page read is verified.  Returns 0 or -errno.
 */
int zipf_reads(const char *path, size_t pages, size_t nr, double theta,
	       uint64_t seed);

/* zipf_reads() that calls @tick(@arg) after every @every reads. */
int zipf_reads_tick(const char *path, size_t pages, size_t nr, double theta,
		    uint64_t seed, size_t every, void (*tick)(void *arg),
		    void *arg);

/* Reads @path sequentially @loops times, verifying it; 0 or -errno. */
int scan_reads(const char *path, int loops);

/*
 * Starts @n processes in @cgroup, each doing @reads zipf_reads() of
 * @path's @pages pages (theta 0.99), with seeds @seed, @seed + 1, ...;
 * their pids in @pids.  Returns 0, or -1 if one could not be started.
 */
int zipf_readers_start(const char *cgroup, const char *path, size_t pages,
		       int n, size_t reads, uint64_t seed, pid_t *pids);

/* Waits for @n processes; returns how many failed (bad data, I/O). */
int readers_wait(const pid_t *pids, int n);

/*
 * The periodic workload of the learned policies: @rounds times, read the
 * small file @p (@p_pages) whole, then the next @chunk pages of the
 * stream @s.  Reuse is learnable: @p's pages come back, @s's never.
 */
struct periodic {
	const char *p, *s;
	size_t p_pages, chunk;
	int rounds;
};

/* cg_run() function of struct periodic; EXIT_SUCCESS or EXIT_FAILURE. */
int periodic_reads(const char *cgroup, void *arg);

/* Reads pages [@first, @first + @nr) of @path, verifying them. */
int read_range(const char *path, size_t first, size_t nr);

/*
 * Runs @fn(@cgroup, @arg) in @cgroup while `@cachectl trace` records it to
 * @log (tracer knobs @knobs, e.g. "oversample=1", or NULL; ring buffer of
 * @ring_kib KiB, 0 for the default).  The recorder's last line ("recorded
 * N events, ...") goes to @summary.  Returns 0, or -1 if tracing or the
 * workload failed.
 */
int run_traced(const char *cachectl, const char *cgroup, const char *log,
	       const char *knobs, unsigned int ring_kib,
	       int (*fn)(const char *cgroup, void *arg), void *arg,
	       char *summary, size_t len);
/*
 * The same with the tracer's default knobs and the recorder stopped
 * (SIGSTOP) for @stall_ms from 200 ms into the workload: a recording
 * that loses events whatever the machine's load, as long as the workload
 * makes more events in @stall_ms than a @ring_kib ring buffer holds.  A
 * recorder merely starved of CPU (nice 19) kept up with a one-page ring
 * in some runs.
 */
int run_traced_stalled(const char *cachectl, const char *cgroup,
		       const char *log, unsigned int ring_kib,
		       unsigned int stall_ms,
		       int (*fn)(const char *cgroup, void *arg), void *arg,
		       char *summary, size_t len);

/*
 * Trains a model on the trace @log with @lctrain (into @model) and loads
 * it into the model store as "learned" with @cachectl.  What the trainer
 * printed goes to @out.  Returns 0, or -1 (and why on stderr, prefixed
 * with @who).
 */
int train_and_load(const char *who, const char *cachectl, const char *lctrain,
		   const char *log, const char *model, char *out, size_t len);

/*
 * Writes a model as lctrain exports it whose one weighted feature is
 * @feature (its index in lc_features.h) with @bins, the JSON of its bins
 * ("\"n_bins\":3,\"bin_edges\":[..],\"weights_int\":[..]"); the others
 * have one bin of weight 0.  Format version 2 (ten features) when the
 * feature is page_ema_long (9), else LearnedCache's version 1 (nine).
 * @members: more members of the model, each with its leading comma
 * (",\"holdout_auc\":0.9"), or "".  Returns 0 or -1.
 */
int write_model(const char *path, unsigned int feature, const char *bins,
		const char *members);

/*
 * cachesim's path into @buf: $CACHESIM, or beside $CACHECTL's build
 * (build/cachesim/cachesim next to build/cachectl/cachectl).  0 if it is
 * an executable there, -1 if not (or neither variable is set).
 */
int cachesim_path(char *buf, size_t len);

/*
 * Runs a shell command; stdout and stderr in @out; its exit status, or -1
 * if it could not run or was killed (then @out ends with how, in words).
 */
__attribute__((format(printf, 3, 4)))
int run_cmd(char *out, size_t len, const char *fmt, ...);

/* Microseconds of CLOCK_MONOTONIC. */
uint64_t now_us(void);

#endif /* __CACHE_EXT_WORKLOAD_H */
