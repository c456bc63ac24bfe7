/* SPDX-License-Identifier: GPL-2.0 */
/* Training rows from trace events: per eviction or per access, labelled by reuse. */
#ifndef LCTRAIN_DATASET_H
#define LCTRAIN_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "lclog.h"

struct model;

struct dataset {
	size_t nr;
	int64_t (*x)[LC_NR_FEATURES];	/* features at eviction */
	uint8_t *y;			/* 1: reinserted within the horizon */
	uint64_t *time;			/* eviction time, for the split */
	uint64_t horizon_ns;		/* the horizon used */
	uint64_t mean_residency_ns;	/* insertion to eviction, averaged */
	size_t positives;
};

/*
 * One row per eviction (the features the tracer recorded with it), in
 * time order, labelled 1 if the same page (device, inode, index) was
 * inserted again within @horizon_ns after the eviction.  @horizon_ns 0:
 * the mean residency, from each eviction's preceding insertion (how long
 * the cache takes to turn over).  Returns 0 or -ENOMEM / -ENODATA (no
 * evictions).
 */
int dataset_build(const struct lc_events *ev, uint64_t horizon_ns,
		  struct dataset *ds);
void dataset_free(struct dataset *ds);

/*
 * One row per access, as LearnedCache defines them: the page's features
 * just before the access (lc_features(), from the page and file state the
 * events so far give, as the tracer computes them), labelled 1 if the page
 * is accessed again before the horizon after its next eviction (or after
 * the access, for a page not evicted again).  File sizes come from the
 * evictions' features, else the highest index seen.  @horizon_ns 0: the
 * mean residency.  Returns 0, -ENOMEM, or -ENODATA (no evictions).
 */
int dataset_build_accesses(const struct lc_events *ev, uint64_t horizon_ns,
			   struct dataset *ds);

/* What dataset_check_file_features() found. */
struct file_check {
	size_t evictions;	/* of a file accessed at least three times before */
	size_t times_agree;	/* inode_dt1, inode_dt2 and distance equal */
	size_t ema_close;	/* inode_ema within 1% */
	double ema_median_err;	/* (recorded - replayed) / replayed, median */
	/* With a model: its logits with the recorded vs the stream's features */
	size_t logit_same;	/* evictions scored the same */
	size_t class_differs;	/* above the threshold on one side only */
	size_t pairs;		/* of evictions at most CHECK_PAIR_SPAN apart */
	size_t pairs_reordered;	/* whose order by logit differs */
};

/* ml_rank's oversampling order of magnitude: its default sample is 30. */
#define CHECK_PAIR_SPAN	32

/*
 * Whether the file features the evictions of @ev were recorded with are
 * those of the accesses before them, replayed as one stream in time
 * order.  The kernel keeps a file's state per CPU and merges it when it
 * computes features (bpf/include/lc_state.bpf.h): the merged file's last
 * accesses are the stream's, its EMA a close sum.  Evictions of files
 * accessed fewer than three times are not counted (their deltas are
 * LC_DT_NONE either way).  With model @m (may be NULL), also how
 * differently it scores those evictions with the stream's four file
 * features in place of the recorded ones: what the merge changes in
 * ml_protect's choices (the class) and ml_rank's (the order among
 * evictions close in time, as the folios of one sample are).
 * Returns 0 or -ENOMEM.
 */
int dataset_check_file_features(const struct lc_events *ev,
				const struct model *m, struct file_check *out);

/* The first @n rows of @ds (time order) and the rest, as views. */
void dataset_split(const struct dataset *ds, size_t n, struct dataset *head,
		   struct dataset *tail);

#endif /* LCTRAIN_DATASET_H */
