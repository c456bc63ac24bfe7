// SPDX-License-Identifier: GPL-2.0
/*
 * Training rows from trace events.  Events are ordered by (page, time) so
 * that each eviction finds the insertion before it (residency) and the one
 * after it (reuse) next to it; rows are then put back in time order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"

static const struct lc_event *sort_base;

static int by_page_time(const void *a, const void *b)
{
	const struct lc_event *x = &sort_base[*(const size_t *)a];
	const struct lc_event *y = &sort_base[*(const size_t *)b];

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	/* Same instant: an eviction before the insertion that follows it. */
	return (int)y->type - (int)x->type;
}

static int same_page(const struct lc_event *a, const struct lc_event *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->index == b->index;
}

static const uint64_t *time_base;

static int by_time(const void *a, const void *b)
{
	uint64_t x = time_base[*(const size_t *)a], y = time_base[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

int dataset_build(const struct lc_events *ev, uint64_t horizon_ns,
		  struct dataset *ds)
{
	size_t *idx = NULL, *evict = NULL, *order = NULL, n = 0, i, j;
	uint64_t *next_insert = NULL, *evict_time = NULL, *later = NULL;
	uint64_t residency_sum = 0, residency_nr = 0;
	int ret = -ENOMEM;

	memset(ds, 0, sizeof(*ds));
	for (i = 0; i < ev->nr; i++)
		if (ev->ev[i].type == LC_EV_INSERT || ev->ev[i].type == LC_EV_EVICT)
			n++;
	idx = malloc((n + 1) * sizeof(*idx));
	evict = malloc((n + 1) * sizeof(*evict));
	next_insert = malloc((n + 1) * sizeof(*next_insert));
	evict_time = malloc((n + 1) * sizeof(*evict_time));
	later = malloc((n + 1) * sizeof(*later));
	if (!idx || !evict || !next_insert || !evict_time || !later)
		goto out;
	for (i = 0, j = 0; i < ev->nr; i++)
		if (ev->ev[i].type == LC_EV_INSERT || ev->ev[i].type == LC_EV_EVICT)
			idx[j++] = i;
	sort_base = ev->ev;
	qsort(idx, n, sizeof(*idx), by_page_time);

	/*
	 * later[i]: time of the first insertion of the same page after
	 * event i, 0 if none.  One backward pass, so that a page evicted
	 * many times without being inserted in between costs no more than
	 * any other (the pass is linear after the sort).
	 */
	for (i = n; i-- > 0;) {
		const struct lc_event *e = &ev->ev[idx[i]];
		const struct lc_event *nx = i + 1 < n ? &ev->ev[idx[i + 1]] : NULL;

		if (!nx || !same_page(nx, e))
			later[i] = 0;
		else
			later[i] = nx->type == LC_EV_INSERT ? nx->time_ns :
							      later[i + 1];
	}

	/* Walk each page's history: insert, evict, insert, evict, ... */
	for (i = 0; i < n; i++) {
		const struct lc_event *e = &ev->ev[idx[i]];

		if (e->type != LC_EV_EVICT)
			continue;
		if (i > 0 && same_page(&ev->ev[idx[i - 1]], e) &&
		    ev->ev[idx[i - 1]].type == LC_EV_INSERT) {
			residency_sum += e->time_ns - ev->ev[idx[i - 1]].time_ns;
			residency_nr++;
		}
		next_insert[ds->nr] = later[i];
		evict_time[ds->nr] = e->time_ns;
		evict[ds->nr++] = idx[i];
	}
	ret = -ENODATA;
	if (!ds->nr)
		goto out;
	ds->mean_residency_ns = residency_nr ? residency_sum / residency_nr : 0;
	ds->horizon_ns = horizon_ns ? horizon_ns : ds->mean_residency_ns;

	ret = -ENOMEM;
	ds->x = malloc(ds->nr * sizeof(*ds->x));
	ds->y = malloc(ds->nr);
	ds->time = malloc(ds->nr * sizeof(*ds->time));
	order = malloc(ds->nr * sizeof(*order));
	if (!ds->x || !ds->y || !ds->time || !order)
		goto out;

	/* Back to time order. */
	for (i = 0; i < ds->nr; i++)
		order[i] = i;
	time_base = evict_time;
	qsort(order, ds->nr, sizeof(*order), by_time);
	for (i = 0; i < ds->nr; i++) {
		size_t r = order[i];
		uint64_t next = next_insert[r];

		memcpy(ds->x[i], ev->ev[evict[r]].features, sizeof(ds->x[i]));
		ds->time[i] = evict_time[r];
		ds->y[i] = next && next - evict_time[r] <= ds->horizon_ns;
		ds->positives += ds->y[i];
	}
	ret = 0;
out:
	free(idx);
	free(evict);
	free(next_insert);
	free(evict_time);
	free(later);
	free(order);
	if (ret)
		dataset_free(ds);
	return ret;
}

void dataset_free(struct dataset *ds)
{
	free(ds->x);
	free(ds->y);
	free(ds->time);
	memset(ds, 0, sizeof(*ds));
}

void dataset_split(const struct dataset *ds, size_t n, struct dataset *head,
		   struct dataset *tail)
{
	if (n > ds->nr)
		n = ds->nr;
	*head = *ds;
	head->nr = n;
	*tail = *ds;
	tail->nr = ds->nr - n;
	tail->x = ds->x + n;
	tail->y = ds->y + n;
	tail->time = ds->time + n;
}
