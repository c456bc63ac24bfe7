// SPDX-License-Identifier: GPL-2.0
/*
 * Training rows from trace events.  Events are ordered by (page, time) so
 * that each eviction finds the insertion before it (residency) and the one
 * after it (reuse) next to it; rows are then put back in time order.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"
#include "model.h"

static const struct lc_event *sort_base;

static int same_instant_rank(unsigned int type)
{
	return type == LC_EV_EVICT ? 0 : type == LC_EV_INSERT ? 1 : 2;
}

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
	/*
	 * Same instant: an eviction before the insertion that follows it,
	 * an insertion before the read that brought it in.
	 */
	return same_instant_rank(x->type) - same_instant_rank(y->type);
}

static int same_page(const struct lc_event *a, const struct lc_event *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->index == b->index;
}

/*
 * The mean time from a page's insertion to its eviction, over the events
 * @idx[0..@n) of @ev sorted by page and time (other events are passed
 * over); *@evictions gets the number of evictions.
 */
static uint64_t mean_residency(const struct lc_event *ev, const size_t *idx,
			       size_t n, size_t *evictions)
{
	uint64_t sum = 0, nr = 0, inserted_at = 0;
	bool inserted = false;
	size_t i;

	*evictions = 0;
	for (i = 0; i < n; i++) {
		const struct lc_event *e = &ev[idx[i]];

		if (i && !same_page(&ev[idx[i - 1]], e))
			inserted = false;
		if (e->type == LC_EV_INSERT) {
			inserted = true;
			inserted_at = e->time_ns;
		} else if (e->type == LC_EV_EVICT) {
			if (inserted) {
				sum += e->time_ns - inserted_at;
				nr++;
			}
			inserted = false;
			++*evictions;
		}
	}
	return nr ? sum / nr : 0;
}

static const uint64_t *time_base;

/* By time, then by position: the order of a log's records at one instant. */
static int by_time(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	uint64_t x = time_base[i], y = time_base[j];

	if (x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j;
}

int dataset_build(const struct lc_events *ev, uint64_t horizon_ns,
		  struct dataset *ds)
{
	size_t *idx = NULL, *evict = NULL, *order = NULL, n = 0, i, j, evictions;
	uint64_t *next_insert = NULL, *evict_time = NULL, *later = NULL;
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
		next_insert[ds->nr] = later[i];
		evict_time[ds->nr] = e->time_ns;
		evict[ds->nr++] = idx[i];
	}
	ret = -ENODATA;
	if (!ds->nr)
		goto out;
	ds->mean_residency_ns = mean_residency(ev->ev, idx, n, &evictions);
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

/* Page and file states by key, for the replay of the accesses. */
struct state_map {
	uint64_t *keys;		/* 3 words per slot: dev, ino, index + 1 */
	uint32_t *val;		/* slot -> state index + 1 */
	size_t mask, nr;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static int map_init(struct state_map *m, size_t expect)
{
	size_t size = 1024;

	while (size < 2 * expect)
		size <<= 1;
	m->keys = calloc(3 * size, sizeof(*m->keys));
	m->val = calloc(size, sizeof(*m->val));
	m->mask = size - 1;
	m->nr = 0;
	return m->keys && m->val ? 0 : -ENOMEM;
}

static void map_free(struct state_map *m)
{
	free(m->keys);
	free(m->val);
}

static size_t map_slot(const struct state_map *m, uint64_t dev, uint64_t ino,
		       uint64_t index)
{
	size_t i = mix(mix(dev ^ ino << 20) ^ index) & m->mask;

	for (; m->val[i]; i = (i + 1) & m->mask) {
		const uint64_t *k = &m->keys[3 * i];

		if (k[0] == dev && k[1] == ino && k[2] == index + 1)
			break;
	}
	return i;
}

/* Twice the slots, the same states: kept at most half full. */
static int map_grow(struct state_map *m)
{
	struct state_map bigger;
	size_t i;

	if (map_init(&bigger, m->mask + 1))
		return -ENOMEM;
	for (i = 0; i <= m->mask; i++) {
		const uint64_t *k = &m->keys[3 * i];
		size_t j;

		if (!m->val[i])
			continue;
		j = map_slot(&bigger, k[0], k[1], k[2] - 1);
		memcpy(&bigger.keys[3 * j], k, 3 * sizeof(*k));
		bigger.val[j] = m->val[i];
	}
	bigger.nr = m->nr;
	map_free(m);
	*m = bigger;
	return 0;
}

/* The state index of (@dev, @ino, @index), a new one if none; -1: no memory. */
static int64_t map_get(struct state_map *m, uint64_t dev, uint64_t ino,
		       uint64_t index)
{
	size_t i;

	if (2 * (m->nr + 1) > m->mask + 1 && map_grow(m))
		return -1;
	i = map_slot(m, dev, ino, index);
	if (!m->val[i]) {
		m->keys[3 * i] = dev;
		m->keys[3 * i + 1] = ino;
		m->keys[3 * i + 2] = index + 1;
		m->val[i] = ++m->nr;
	}
	return m->val[i] - 1;
}

int dataset_build_accesses(const struct lc_events *ev, uint64_t horizon_ns,
			   struct dataset *ds)
{
	struct state_map pages = { 0 }, files = { 0 };
	struct lc_page_state *ps = NULL;
	struct lc_inode_state *fs = NULL;
	uint64_t *file_pages = NULL, *next_use = NULL, *next_evict = NULL;
	uint64_t *use_after = NULL, *evict_after = NULL;
	size_t *idx = NULL, n = 0, i, j, nr_access = 0, evictions;
	int ret = -ENOMEM;

	memset(ds, 0, sizeof(*ds));
	for (i = 0; i < ev->nr; i++)
		nr_access += lc_event_is_use(ev->ev[i].type);
	for (i = 0; i < ev->nr; i++)
		n += ev->ev[i].type != LC_EV_DROPS;
	idx = malloc((n + 1) * sizeof(*idx));
	next_use = malloc((n + 1) * sizeof(*next_use));
	next_evict = malloc((n + 1) * sizeof(*next_evict));
	use_after = malloc((n + 1) * sizeof(*use_after));
	evict_after = malloc((n + 1) * sizeof(*evict_after));
	if (!idx || !next_use || !next_evict || !use_after || !evict_after ||
	    map_init(&pages, 1024) || map_init(&files, 1024))
		goto out;

	/* Per page, in time order: the next use and next eviction after each. */
	for (i = 0, j = 0; i < ev->nr; i++)
		if (ev->ev[i].type != LC_EV_DROPS)
			idx[j++] = i;
	sort_base = ev->ev;
	qsort(idx, n, sizeof(*idx), by_page_time);
	/* The horizon: the mean residency, as for eviction rows. */
	ds->mean_residency_ns = mean_residency(ev->ev, idx, n, &evictions);
	ds->horizon_ns = horizon_ns ? horizon_ns : ds->mean_residency_ns;
	ret = -ENODATA;
	if (!evictions)
		goto out;
	ret = -ENOMEM;
	for (i = n; i-- > 0;) {
		const struct lc_event *e = &ev->ev[idx[i]];
		const struct lc_event *nx = i + 1 < n ? &ev->ev[idx[i + 1]] : NULL;
		int same = nx && same_page(nx, e);

		use_after[i] = !same ? 0 : nx->type != LC_EV_EVICT ? nx->time_ns :
			       use_after[i + 1];
		evict_after[i] = !same ? 0 : nx->type == LC_EV_EVICT ? nx->time_ns :
				 evict_after[i + 1];
		next_use[idx[i]] = use_after[i];
		next_evict[idx[i]] = evict_after[i];
	}

	/*
	 * Number the pages and files; file sizes from the evictions'
	 * features, else the highest index (bit 63: from a feature).
	 */
	file_pages = calloc(ev->nr + 1, sizeof(*file_pages));
	if (!file_pages)
		goto out;
	for (i = 0; i < ev->nr; i++) {
		const struct lc_event *e = &ev->ev[i];
		int64_t f;

		if (e->type == LC_EV_DROPS)
			continue;
		f = map_get(&files, e->dev, e->ino, 0);
		if (f < 0 || map_get(&pages, e->dev, e->ino, e->index) < 0)
			goto out;
		if (e->type == LC_EV_EVICT && e->features[LC_FILE_PAGES] > 0)
			file_pages[f] = e->features[LC_FILE_PAGES] | 1ULL << 63;
		else if (!(file_pages[f] >> 63) && file_pages[f] <= e->index)
			file_pages[f] = e->index + 1;
	}

	ps = calloc(pages.nr + 1, sizeof(*ps));
	fs = calloc(files.nr + 1, sizeof(*fs));
	ds->x = malloc((nr_access + 1) * sizeof(*ds->x));
	ds->y = malloc(nr_access + 1);
	ds->time = malloc((nr_access + 1) * sizeof(*ds->time));
	if (!ps || !fs || !ds->x || !ds->y || !ds->time)
		goto out;
	/* Replay the accesses in the order received, as the tracer saw them. */
	for (i = 0; i < ev->nr; i++) {
		const struct lc_event *e = &ev->ev[i];
		__s64 x[LC_NR_FEATURES];
		int64_t p, f;
		uint64_t limit;

		if (!lc_event_is_use(e->type))
			continue;
		p = map_get(&pages, e->dev, e->ino, e->index);
		f = map_get(&files, e->dev, e->ino, 0);

		lc_features(&ps[p], &fs[f], e->index, e->time_ns, x);
		for (j = 0; j < LC_NR_FEATURES; j++)
			ds->x[ds->nr][j] = x[j];
		if (!ps[p].t.last)
			ds->x[ds->nr][LC_FILE_PAGES] = file_pages[f] & ~(1ULL << 63);
		limit = (next_evict[i] ? next_evict[i] : e->time_ns) + ds->horizon_ns;
		ds->y[ds->nr] = next_use[i] && next_use[i] <= limit;
		ds->positives += ds->y[ds->nr];
		ds->time[ds->nr++] = e->time_ns;
		lc_access(&ps[p], &fs[f], e->index, file_pages[f] & ~(1ULL << 63),
			  e->time_ns);
	}
	ret = ds->nr ? 0 : -ENODATA;
out:
	map_free(&pages);
	map_free(&files);
	free(ps);
	free(fs);
	free(file_pages);
	free(idx);
	free(next_use);
	free(next_evict);
	free(use_after);
	free(evict_after);
	if (ret)
		dataset_free(ds);
	return ret;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* -1, 0 or 1: how @a compares with @b. */
static int cmp_s64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* The pairs of @n logits at most CHECK_PAIR_SPAN apart ordered differently. */
static void count_reordered(const int64_t *rec, const int64_t *stream,
			    size_t n, struct file_check *out)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n && j - i < CHECK_PAIR_SPAN; j++) {
			int a = cmp_s64(rec[i], rec[j]);
			int b = cmp_s64(stream[i], stream[j]);

			if (!a && !b)
				continue;
			out->pairs++;
			out->pairs_reordered += a != b;
		}
	}
}

/* Model @m's logits of @recorded and of it with the stream's file features. */
static void score_both(const struct model *m, const __s64 *recorded,
		       const __s64 *stream, int64_t *rec_logit,
		       int64_t *stream_logit, struct file_check *out)
{
	static const int file_features[] = {
		LC_INODE_DT1, LC_INODE_DT2, LC_DISTANCE, LC_INODE_EMA,
	};
	int64_t x[LC_NR_FEATURES];
	size_t k;

	for (k = 0; k < LC_NR_FEATURES; k++)
		x[k] = recorded[k];
	*rec_logit = model_logit(m, x);
	for (k = 0; k < sizeof(file_features) / sizeof(file_features[0]); k++)
		x[file_features[k]] = stream[file_features[k]];
	*stream_logit = model_logit(m, x);
	out->logit_same += *rec_logit == *stream_logit;
	/* ml_protect keeps a folio whose logit is above the threshold. */
	out->class_differs += (*rec_logit > m->threshold) !=
			      (*stream_logit > m->threshold);
}

int dataset_check_file_features(const struct lc_events *ev,
				const struct model *m, struct file_check *out)
{
	struct state_map files = { 0 };
	struct lc_inode_state *fs = NULL;
	int64_t *rec_logit = NULL, *stream_logit = NULL;
	struct lc_page_state page;
	double *ema_err = NULL;
	size_t nr_err = 0;
	uint64_t *times = NULL;
	size_t *order = NULL, i;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	order = malloc((ev->nr + 1) * sizeof(*order));
	times = malloc((ev->nr + 1) * sizeof(*times));
	ema_err = malloc((ev->nr + 1) * sizeof(*ema_err));
	if (m) {
		rec_logit = malloc((ev->nr + 1) * sizeof(*rec_logit));
		stream_logit = malloc((ev->nr + 1) * sizeof(*stream_logit));
		if (!rec_logit || !stream_logit)
			goto out;
	}
	if (!order || !times || !ema_err || map_init(&files, 1024))
		goto out;
	/* Number the files first: a state each, not one per event. */
	for (i = 0; i < ev->nr; i++) {
		order[i] = i;
		times[i] = ev->ev[i].time_ns;
		if (ev->ev[i].type != LC_EV_DROPS &&
		    map_get(&files, ev->ev[i].dev, ev->ev[i].ino, 0) < 0)
			goto out;
	}
	fs = calloc(files.nr + 1, sizeof(*fs));
	if (!fs)
		goto out;
	time_base = times;
	qsort(order, ev->nr, sizeof(*order), by_time);
	for (i = 0; i < ev->nr; i++) {
		const struct lc_event *e = &ev->ev[order[i]];
		__s64 x[LC_NR_FEATURES];
		struct lc_inode_state *f;
		uint64_t want, got;
		int64_t k;

		if (e->type == LC_EV_DROPS)
			continue;
		/* Numbered above (the lookup may still grow the table). */
		k = map_get(&files, e->dev, e->ino, 0);
		if (k < 0)
			goto out;
		f = &fs[k];
		if (lc_event_is_use(e->type)) {
			memset(&page, 0, sizeof(page));
			lc_access(&page, f, e->index, 0, e->time_ns);
			continue;
		}
		if (e->type != LC_EV_EVICT || !f->t.prev2)
			continue;
		memset(&page, 0, sizeof(page));
		lc_features(&page, f, e->index, e->time_ns, x);
		if (m)
			score_both(m, e->features, x, &rec_logit[out->evictions],
				   &stream_logit[out->evictions], out);
		out->evictions++;
		if (x[LC_INODE_DT1] == e->features[LC_INODE_DT1] &&
		    x[LC_INODE_DT2] == e->features[LC_INODE_DT2] &&
		    x[LC_DISTANCE] == e->features[LC_DISTANCE])
			out->times_agree++;
		want = x[LC_INODE_EMA];
		got = e->features[LC_INODE_EMA];
		if ((got > want ? got - want : want - got) * 100 <= want)
			out->ema_close++;
		if (want)
			ema_err[nr_err++] = ((double)got - (double)want) / want;
	}
	if (nr_err) {
		qsort(ema_err, nr_err, sizeof(*ema_err), by_value);
		out->ema_median_err = ema_err[nr_err / 2];
	}
	if (m)
		count_reordered(rec_logit, stream_logit, out->evictions, out);
	ret = 0;
out:
	map_free(&files);
	free(ema_err);
	free(stream_logit);
	free(rec_logit);
	free(fs);
	free(times);
	free(order);
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
