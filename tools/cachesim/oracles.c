// SPDX-License-Identifier: GPL-2.0
/*
 * Two references no policy can reach, computed from the whole trace:
 * Belady's MIN ("belady": evict the cached page used again farthest in the
 * future, or never) and a frequency oracle ("oracle": keep the pages the
 * trace uses most, counted over all of it; of equal counts the least
 * recently used goes first).  And the bound of online frequency policies
 * ("lfu_ideal"): an LFU that knows nothing of the future but forgets
 * nothing of the past, evicting the cached page with the fewest
 * references so far, evicted pages' references included, without a limit
 * on its memory; of equal counts the least recently used goes first.
 * Same cache model as the policies: misses insert, a full cache loses a
 * batch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracles.h"

#define NEVER	UINT64_MAX

/* A heap of cached pages; the root is the next to evict (largest key). */
struct heap {
	uint32_t *page;		/* heap order */
	uint32_t *pos;		/* page -> index in @page, or UINT32_MAX */
	uint64_t *key;		/* page -> key */
	uint32_t n;
};

static void swap(struct heap *h, uint32_t a, uint32_t b)
{
	uint32_t pa = h->page[a], pb = h->page[b];

	h->page[a] = pb;
	h->page[b] = pa;
	h->pos[pb] = a;
	h->pos[pa] = b;
}

static void sift_up(struct heap *h, uint32_t i)
{
	while (i && h->key[h->page[(i - 1) / 2]] < h->key[h->page[i]]) {
		swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void sift_down(struct heap *h, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && h->key[h->page[l]] > h->key[h->page[m]])
			m = l;
		if (r < h->n && h->key[h->page[r]] > h->key[h->page[m]])
			m = r;
		if (m == i)
			return;
		swap(h, i, m);
		i = m;
	}
}

static void heap_set(struct heap *h, uint32_t page, uint64_t key)
{
	uint32_t i = h->pos[page];

	if (i == UINT32_MAX) {
		h->key[page] = key;
		h->page[h->n] = page;
		h->pos[page] = h->n;
		sift_up(h, h->n++);
		return;
	}
	if (key > h->key[page]) {
		h->key[page] = key;
		sift_up(h, i);
	} else {
		h->key[page] = key;
		sift_down(h, i);
	}
}

static void heap_pop(struct heap *h)
{
	uint32_t page = h->page[0];

	swap(h, 0, --h->n);
	h->pos[page] = UINT32_MAX;
	if (h->n)
		sift_down(h, 0);
}

int sim_oracle_run(const struct sim_trace *t, const char *which,
		   const struct sim_config *cfg, struct sim_result *res,
		   char *err, size_t len)
{
	int belady = !strcmp(which, SIM_BELADY);
	int online = !strcmp(which, SIM_LFU_IDEAL);
	uint32_t *ids = NULL, *count = NULL;
	uint64_t *next = NULL, *last_use = NULL;
	struct heap h = { 0 };
	uint32_t nr_pages;
	double start;
	size_t i;
	int ret = -ENOMEM;

	memset(res, 0, sizeof(*res));
	ids = malloc(t->nr * sizeof(*ids));
	if (!ids || sim_trace_page_ids(t, ids, &nr_pages))
		goto out;
	next = malloc(t->nr * sizeof(*next));
	last_use = malloc((size_t)nr_pages * sizeof(*last_use));
	count = calloc(nr_pages, sizeof(*count));
	h.page = malloc((size_t)nr_pages * sizeof(*h.page));
	h.pos = malloc((size_t)nr_pages * sizeof(*h.pos));
	h.key = calloc(nr_pages, sizeof(*h.key));
	if (!next || !last_use || !count || !h.page || !h.pos || !h.key)
		goto out;

	/*
	 * The next reference of each one's page, and the totals (online:
	 * counted as the references come, below).
	 */
	for (i = 0; i < nr_pages; i++)
		last_use[i] = NEVER;
	for (i = t->nr; i-- > 0;) {
		next[i] = last_use[ids[i]];
		last_use[ids[i]] = i;
		if (t->req[i].op != SIM_INSERT && !online)
			count[ids[i]]++;
	}
	memset(h.pos, 0xff, (size_t)nr_pages * sizeof(*h.pos));

	start = sim_cpu_seconds();
	for (i = 0; i < t->nr; i++) {
		uint32_t p = ids[i];
		uint64_t key;

		/*
		 * Belady: farthest next use first; oracle: fewest uses, then
		 * LRU; lfu_ideal: fewest uses so far, this one included.
		 */
		if (online && t->req[i].op != SIM_INSERT)
			count[p]++;
		key = belady ? next[i] :
		      ((uint64_t)(UINT32_MAX - count[p]) << 32) | (UINT32_MAX - (uint32_t)i);
		if (t->req[i].op != SIM_INSERT)
			res->accesses++;
		if (h.pos[p] == UINT32_MAX) {
			if (h.n >= cfg->cache_pages) {
				uint32_t b;

				for (b = 0; b < cfg->batch && h.n; b++)
					heap_pop(&h);
				res->evict_calls++;
			}
			res->misses++;
		}
		heap_set(&h, p, key);
	}
	res->seconds = sim_cpu_seconds() - start;
	ret = 0;
out:
	if (ret)
		snprintf(err, len, "%s: out of memory", which);
	free(ids);
	free(next);
	free(last_use);
	free(count);
	free(h.page);
	free(h.pos);
	free(h.key);
	return ret;
}
