/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachesim: cache_ext policies, built from their own BPF source as host
 * code, run on traces against a model of the page cache of one memory
 * cgroup.  The public interface: traces, policies, one simulation.
 */
#ifndef CACHESIM_SIM_H
#define CACHESIM_SIM_H

#include <stddef.h>
#include <stdint.h>

/* One page reference of a trace. */
enum sim_op {
	SIM_READ,	/* a read: misses insert the page (admission asked) */
	SIM_WRITE,	/* a write: misses insert the page (no admission) */
	SIM_INSERT,	/* a page cached without an access (readahead) */
	/*
	 * A use through mmap: a fault on a miss, else only the page-table
	 * bit, seen when the kernel next looks (folio_mapped_accessed()).
	 */
	SIM_MAPPED,
};

struct sim_req {
	uint64_t time_ns;
	uint64_t index;		/* page index in its file */
	uint32_t file;		/* index into sim_trace.files */
	uint32_t tid;		/* the thread that made it; 0: the only one */
	uint8_t op;		/* enum sim_op */
	/*
	 * A SIM_MAPPED of an lclog's LC_EV_MAPPED: @time_ns is when the
	 * kernel found the accessed bit, not when the use was.
	 */
	uint8_t seen_late;
};

struct sim_file {
	uint32_t dev;
	uint64_t ino;
	uint64_t nr_pages;	/* highest page index seen + 1 */
};

struct sim_trace {
	struct sim_req *req;
	size_t nr, cap;
	struct sim_file *files;
	uint32_t nr_files, files_cap;
	uint64_t nr_accesses;	/* reads and writes (not SIM_INSERT) */
	uint64_t nr_unique;	/* distinct pages */
	int timed;		/* the trace has its own timestamps */
	/* An lclog's events lost in recording, and per million recorded. */
	unsigned long long dropped;
	double dropped_ppm;
	char format[8];		/* csv, text, lclog */
};

/*
 * Reads the trace at @path: @format "csv" (time_us,op,offset_bytes,
 * size_bytes; every 4 KiB page of a request is one reference), "text"
 * (one key per line: a page number, or any other word, which names a
 * page of its own), "lclog" (a log of cachectl trace: insertions and
 * accesses as the kernel reported them), or NULL to tell by the content.
 * A text line may name the thread that made the reference as a third
 * field, a number: "KEY r 2" (bpf_get_current_pid_tgid() returns it).
 * A @path of the form zipf:PAGES:READS:THETA:SEED[:PERM_SEED] is
 * generated instead (sim_trace_zipf()).
 * Returns 0, or -errno with the reason in @err.
 */
int sim_trace_read(const char *path, const char *format,
		   struct sim_trace *t, char *err, size_t len);
/*
 * A synthetic trace: @nr reads of @pages pages of one file, page ranks
 * Zipf(@theta)-distributed and spread over the file by a permutation that
 * depends on @perm_seed only (so that two traces of different @seed have
 * the same hot pages).  0 or -ENOMEM.
 */
int sim_trace_zipf(struct sim_trace *t, uint32_t pages, size_t nr,
		   double theta, uint64_t seed, uint64_t perm_seed);

/* Appends one reference (tests and generators); 0 or -ENOMEM. */
int sim_trace_add(struct sim_trace *t, uint32_t dev, uint64_t ino,
		  uint64_t index, enum sim_op op, uint64_t time_ns);
/* Counts the distinct pages once the trace is complete. */
void sim_trace_finish(struct sim_trace *t);
/*
 * Numbers the distinct pages 0, 1, ... in order of first reference:
 * @ids[i] is request i's page.  *@nr gets their number.  0 or -ENOMEM.
 */
int sim_trace_page_ids(const struct sim_trace *t, uint32_t *ids, uint32_t *nr);
void sim_trace_free(struct sim_trace *t);
/*
 * Moves every use seen late (sim_req.seen_late) to just after its page's
 * previous reference, the earliest time it can have been, with that
 * reference's time; each page's own order is kept.  0 or -ENOMEM.
 */
int sim_trace_mapped_earliest(struct sim_trace *t);

struct sim_config {
	uint64_t cache_pages;	/* the cgroup's page cache, in pages */
	uint32_t batch;		/* folios reclaim asks for per round, 1..32 */
	uint64_t ns_per_request; /* simulated time of untimed traces */
	/* Pages a read miss brings in, itself included (0, 1: none; -a). */
	uint32_t readahead;
};

struct sim_result {
	uint64_t accesses;	/* reads and writes */
	uint64_t misses;	/* pages inserted: what the disk would read */
	uint64_t evict_calls;
	uint64_t requested;	/* folios asked of the policy */
	uint64_t proposed;	/* candidates it proposed */
	uint64_t accepted;	/* candidates evicted */
	uint64_t fallback;	/* pages the fallback LRU evicted */
	uint64_t errors;	/* invalid, duplicate or foreign candidates */
	uint64_t not_admitted;	/* reads dropped after admit_folio() said no */
	uint64_t mapped_accesses; /* page-table bits reclaim found and reported */
	uint64_t mapped_kept;	/* candidates kept for them, not evicted */
	uint64_t prefetch_evicted; /* readahead pages evicted before any use */
	double seconds;		/* CPU time of the simulation */
	int ejected;		/* the kernel would have ejected the policy */
	char eject_msg[128];
};

/* A policy setting: VAR=VALUE for a global variable (knob) of it. */
struct sim_knob {
	const char *var;
	const char *value;
};

/*
 * Threads named to a policy: the TIDs to put in a map the policy declares
 * with CACHE_EXT_TID_MAP() (get_scan_tids, no_cache_tids), as an
 * application does with the pinned map.
 */
#define SIM_MAX_TIDS	16
struct sim_tid_map {
	const char *map;
	uint32_t tids[SIM_MAX_TIDS];
	unsigned int nr;
};

/* A model for the model kfuncs: NAME=FILE (LearnedCache JSON). */
struct sim_model_file {
	const char *name;
	const char *path;
};

struct sim_setup {
	const char *policy;	/* path of a policy .so, or "lru" */
	const struct sim_knob *knobs;
	unsigned int nr_knobs;
	const struct sim_model_file *models;
	unsigned int nr_models;
	/* Maps of threads; a policy without such a map ignores it. */
	const struct sim_tid_map *tid_maps;
	unsigned int nr_tid_maps;
	/*
	 * A program of the policy (a SEC("syscall") one, such as
	 * lhd_reconfigure) to run after every @every references, as a
	 * loader would with bpf_prog_test_run_opts(); ignored for policies
	 * that have no such program.
	 */
	const char *every_prog;
	unsigned long every;
	/*
	 * Write what the policy submits to its ring buffers to this file, as
	 * a cachectl trace log (lc_trace.h): the tracer's events, for lctrain.
	 */
	const char *record;
};

/* The kernel's LRU alone, with no policy: the baseline. */
#define SIM_LRU		"lru"
/*
 * References (oracles.c): Belady's MIN and a frequency oracle, offline;
 * an LFU that counts every reference of the past, the bound of online
 * frequency policies.
 */
#define SIM_BELADY	"belady"
#define SIM_ORACLE	"oracle"
#define SIM_LFU_IDEAL	"lfu_ideal"

/*
 * Runs one simulation in a child process (a policy's globals start from
 * their initial values; a crash of the policy is reported, not shared).
 * Returns 0 with @res filled, or -errno with the reason in @err.
 */
int sim_run_isolated(const struct sim_trace *t, const struct sim_setup *s,
		     const struct sim_config *cfg, struct sim_result *res,
		     char *err, size_t len);

/* Runs it in this process; sim_run_isolated()'s child does this. */
int sim_run(const struct sim_trace *t, const struct sim_setup *s,
	    const struct sim_config *cfg, struct sim_result *res,
	    char *err, size_t len);

/* A 64-bit mixer (murmur3's finalizer): the simulator's hash tables. */
static inline uint64_t sim_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* CPU time of this process, in seconds: what a simulation's speed is in. */
double sim_cpu_seconds(void);

#endif /* CACHESIM_SIM_H */
