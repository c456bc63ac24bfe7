// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF maps and helpers policies use, on the host: hash and LRU hash
 * (an exact LRU; the kernel's is approximate), array and per-CPU array
 * (one CPU), ring buffers (records are accepted and dropped), timers on
 * simulated time, bpf_ktime_get_ns() as the simulated clock.
 *
 * A map's state is created on its first use and kept in the first
 * pointer member of the policy's map variable (see bpf_helpers.h).
 * Values are 8-byte aligned and never move while the map exists, as
 * BPF's pointers to map values require.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "policy.h"
#include "record.h"
#include "bpf/bpf_helpers.h"

struct cachesim_map {
	struct cachesim_map_def def;
	void **home;		/* the map variable's first member */
	u32 vstride;		/* value size rounded up to 8 */
	char *keys, *values;
	/* Hash maps: open addressing of entry + 1; free entries chained. */
	u32 *table, mask;
	u32 *chain;		/* free list, then LRU links */
	u32 *lru_prev, *lru_next; /* LRU order, head at index max_entries */
	bool *used;
	u32 nr, free_head;
	struct cachesim_map *next_map;
};

static struct cachesim_map *all_maps;

/* Timers: the map value holding one, its callback and expiry. */
struct sim_timer {
	struct cachesim_map *map;
	u32 entry;
	void *cb;
	u64 expires;
	bool armed;
};

static struct sim_timer timers[SIM_MAX_TIMERS];
static unsigned int nr_timers;

static bool is_hash(const struct cachesim_map *m)
{
	return m->def.type == BPF_MAP_TYPE_HASH ||
	       m->def.type == BPF_MAP_TYPE_LRU_HASH ||
	       m->def.type == BPF_MAP_TYPE_PERCPU_HASH ||
	       m->def.type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static bool is_lru(const struct cachesim_map *m)
{
	return m->def.type == BPF_MAP_TYPE_LRU_HASH ||
	       m->def.type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static void die_nomem(void)
{
	abort();
}

static void *zalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die_nomem();
	return p;
}

struct cachesim_map *cachesim_map_of(void *map,
				     const struct cachesim_map_def *def)
{
	void **home = map;
	struct cachesim_map *m = *home;
	u32 n = def->max_entries, i, size = 1;

	if (m)
		return m;
	m = zalloc(1, sizeof(*m));
	m->def = *def;
	m->home = home;
	m->vstride = (def->value_size + 7) & ~7U;
	if (def->type == BPF_MAP_TYPE_RINGBUF) {
		m->values = zalloc(1, n);
	} else {
		m->keys = zalloc(n, def->key_size);
		m->values = zalloc(n, m->vstride);
	}
	if (is_hash(m)) {
		while (size < 2 * n)
			size <<= 1;
		m->mask = size - 1;
		m->table = zalloc(size, sizeof(u32));
		m->chain = zalloc(n, sizeof(u32));
		m->used = zalloc(n, sizeof(bool));
		m->lru_prev = zalloc(n + 1, sizeof(u32));
		m->lru_next = zalloc(n + 1, sizeof(u32));
		m->lru_prev[n] = n;
		m->lru_next[n] = n;
		for (i = 0; i < n; i++)
			m->chain[i] = i + 1;
	} else if (def->type != BPF_MAP_TYPE_RINGBUF) {
		/* Arrays: key i at entry i, for callbacks that get keys. */
		for (i = 0; i < n && def->key_size == sizeof(u32); i++)
			memcpy(m->keys + (size_t)i * 4, &i, 4);
	}
	m->next_map = all_maps;
	all_maps = m;
	*home = m;
	return m;
}

void sim_maps_reset(void)
{
	nr_timers = 0;
	while (all_maps) {
		struct cachesim_map *m = all_maps;

		all_maps = m->next_map;
		*m->home = NULL;
		free(m->keys);
		free(m->values);
		free(m->table);
		free(m->chain);
		free(m->used);
		free(m->lru_prev);
		free(m->lru_next);
		free(m);
	}
}

static u64 hash_bytes(const void *p, u32 n)
{
	const unsigned char *b = p;
	u64 h = 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= 8; b += 8, n -= 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (n) {
		w = 0;
		memcpy(&w, b, n);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

static char *key_at(struct cachesim_map *m, u32 e)
{
	return m->keys + (size_t)e * m->def.key_size;
}

static char *value_at(struct cachesim_map *m, u32 e)
{
	return m->values + (size_t)e * m->vstride;
}

/* The table position holding @key, or the free one where it would go. */
static u32 hash_pos(struct cachesim_map *m, const void *key)
{
	u32 i;

	for (i = hash_bytes(key, m->def.key_size) & m->mask; m->table[i];
	     i = (i + 1) & m->mask)
		if (!memcmp(key_at(m, m->table[i] - 1), key, m->def.key_size))
			break;
	return i;
}

static void lru_unlink(struct cachesim_map *m, u32 e)
{
	m->lru_next[m->lru_prev[e]] = m->lru_next[e];
	m->lru_prev[m->lru_next[e]] = m->lru_prev[e];
}

static void lru_push(struct cachesim_map *m, u32 e)
{
	u32 head = m->def.max_entries;

	m->lru_prev[e] = m->lru_prev[head];
	m->lru_next[e] = head;
	m->lru_next[m->lru_prev[head]] = e;
	m->lru_prev[head] = e;
}

static void hash_remove_at(struct cachesim_map *m, u32 i)
{
	u32 e = m->table[i] - 1, j = i;

	for (;;) {
		u32 home;

		j = (j + 1) & m->mask;
		if (!m->table[j])
			break;
		home = hash_bytes(key_at(m, m->table[j] - 1), m->def.key_size) &
		       m->mask;
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			m->table[i] = m->table[j];
			i = j;
		}
	}
	m->table[i] = 0;
	lru_unlink(m, e);
	m->used[e] = false;
	m->chain[e] = m->free_head;
	m->free_head = e;
	m->nr--;
}

void *cachesim_map_lookup(struct cachesim_map *m, const void *key)
{
	u32 i, e;

	if (!is_hash(m)) {
		memcpy(&i, key, sizeof(i));
		return i < m->def.max_entries ? value_at(m, i) : NULL;
	}
	i = hash_pos(m, key);
	if (!m->table[i])
		return NULL;
	e = m->table[i] - 1;
	if (is_lru(m)) {
		lru_unlink(m, e);
		lru_push(m, e);
	}
	return value_at(m, e);
}

long cachesim_map_update(struct cachesim_map *m, const void *key,
			 const void *value, unsigned long long flags)
{
	u32 i, e;

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (!is_hash(m)) {
		memcpy(&i, key, sizeof(i));
		if (i >= m->def.max_entries)
			return -E2BIG;
		if (flags == BPF_NOEXIST)
			return -EEXIST;
		memcpy(value_at(m, i), value, m->def.value_size);
		return 0;
	}
	i = hash_pos(m, key);
	if (m->table[i]) {
		if (flags == BPF_NOEXIST)
			return -EEXIST;
		e = m->table[i] - 1;
		memcpy(value_at(m, e), value, m->def.value_size);
		if (is_lru(m)) {
			lru_unlink(m, e);
			lru_push(m, e);
		}
		return 0;
	}
	if (flags == BPF_EXIST)
		return -ENOENT;
	if (m->nr == m->def.max_entries) {
		if (!is_lru(m))
			return -E2BIG;
		/* Evict the least recently used entry, then find our place. */
		e = m->lru_next[m->def.max_entries];
		hash_remove_at(m, hash_pos(m, key_at(m, e)));
		i = hash_pos(m, key);
	}
	e = m->free_head;
	m->free_head = m->chain[e];
	memcpy(key_at(m, e), key, m->def.key_size);
	memcpy(value_at(m, e), value, m->def.value_size);
	m->used[e] = true;
	m->table[i] = e + 1;
	lru_push(m, e);
	m->nr++;
	return 0;
}

long cachesim_map_delete(struct cachesim_map *m, const void *key)
{
	u32 i;

	if (!is_hash(m))
		return -EINVAL;
	i = hash_pos(m, key);
	if (!m->table[i])
		return -ENOENT;
	hash_remove_at(m, i);
	return 0;
}

typedef long (*each_cb)(void *map, void *key, void *value, void *ctx);

long cachesim_map_for_each(struct cachesim_map *m, void *cb, void *ctx,
			   unsigned long long flags)
{
	long n = 0;
	u32 e;

	if (flags)
		return -EINVAL;
	for (e = 0; e < m->def.max_entries; e++) {
		if (is_hash(m) && !m->used[e])
			continue;
		n++;
		if (((each_cb)cb)(m->home, key_at(m, e), value_at(m, e), ctx))
			break;
	}
	return n;
}

/* One record at a time: a policy submits or discards before the next. */
static size_t reserved;

void *cachesim_ringbuf_reserve(struct cachesim_map *m, unsigned long long size,
			       unsigned long long flags)
{
	if (flags || size > m->def.max_entries)
		return NULL;
	reserved = size;
	return m->values;
}

/* Written as submitted: the ring is always empty. */
unsigned long long cachesim_ringbuf_query(struct cachesim_map *m,
					  unsigned long long flags)
{
	return flags == BPF_RB_RING_SIZE ? m->def.max_entries : 0;
}

void bpf_ringbuf_submit(void *data, unsigned long long flags)
{
	sim_record_write(data, reserved);
}

void bpf_ringbuf_discard(void *data, unsigned long long flags)
{
}

unsigned long long bpf_ktime_get_ns(void)
{
	return sim->now_ns;
}

unsigned long long bpf_ktime_get_boot_ns(void)
{
	return sim->now_ns;
}

/* One process (tgid 1); the request's thread, 1 if the trace has none. */
unsigned long long bpf_get_current_pid_tgid(void)
{
	return 1ULL << 32 | (sim && sim->tid ? sim->tid : 1);
}

int sim_tid_maps_fill(const struct sim_tid_map *m, unsigned int nr,
		      char *err, size_t len)
{
	/* What CACHE_EXT_TID_MAP() declares (bpf/include/cache_ext.bpf.h). */
	static const struct cachesim_map_def tid_map = {
		.name = "tid map", .type = BPF_MAP_TYPE_HASH,
		.key_size = sizeof(u32), .value_size = sizeof(u8),
		.max_entries = 1024,
	};
	unsigned int i, j;
	u8 one = 1;

	for (i = 0; i < nr; i++) {
		void *home = sim_policy_function(m[i].map);
		struct cachesim_map *cm;

		if (!home)
			continue;	/* not this policy's */
		cm = cachesim_map_of(home, &tid_map);
		if (cm->def.key_size != sizeof(u32) ||
		    cm->def.value_size != sizeof(u8)) {
			snprintf(err, len, "%s is no map of threads (CACHE_EXT_TID_MAP)",
				 m[i].map);
			return -EINVAL;
		}
		for (j = 0; j < m[i].nr; j++)
			if (cachesim_map_update(cm, &m[i].tids[j], &one, BPF_ANY))
				return -ENOMEM;
	}
	return 0;
}

unsigned int bpf_get_smp_processor_id(void)
{
	return 0;
}

/* As the kernel's: up to @nr_loops calls, until one returns non-zero. */
long bpf_loop(unsigned int nr_loops, void *callback_fn, void *callback_ctx,
	      unsigned long long flags)
{
	long (*cb)(u64 index, void *ctx) = callback_fn;
	unsigned int i;

	if (flags)
		return -EINVAL;
	for (i = 0; i < nr_loops; i++)
		if (cb(i, callback_ctx))
			return i + 1;
	return i;
}

/* Deterministic, so that a simulation repeats exactly. */
unsigned int bpf_get_prandom_u32(void)
{
	static u64 state = 0x853c49e6748fea9bULL;

	state = state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (u32)(state >> 33);
}

static struct sim_timer *timer_of(struct bpf_timer *t)
{
	u64 id = t->__opaque[0];

	return id && id <= nr_timers ? &timers[id - 1] : NULL;
}

long bpf_timer_init(struct bpf_timer *timer, void *map,
		    unsigned long long flags)
{
	struct cachesim_map *m = *(struct cachesim_map **)map;
	struct sim_timer *st;
	u32 e;

	if (timer_of(timer))
		return -EBUSY;
	if (!m || (char *)timer < m->values ||
	    (char *)timer >= m->values + (size_t)m->vstride * m->def.max_entries)
		return -EINVAL;
	if (nr_timers == SIM_MAX_TIMERS)
		return -ENOMEM;
	e = ((char *)timer - m->values) / m->vstride;
	st = &timers[nr_timers++];
	memset(st, 0, sizeof(*st));
	st->map = m;
	st->entry = e;
	timer->__opaque[0] = nr_timers;
	return 0;
}

long bpf_timer_set_callback(struct bpf_timer *timer, void *callback_fn)
{
	struct sim_timer *st = timer_of(timer);

	if (!st)
		return -EINVAL;
	st->cb = callback_fn;
	return 0;
}

long bpf_timer_start(struct bpf_timer *timer, unsigned long long nsecs,
		     unsigned long long flags)
{
	struct sim_timer *st = timer_of(timer);

	if (!st || !st->cb)
		return -EINVAL;
	st->expires = sim->now_ns + nsecs;
	st->armed = true;
	return 0;
}

long bpf_timer_cancel(struct bpf_timer *timer)
{
	struct sim_timer *st = timer_of(timer);

	if (!st)
		return -EINVAL;
	st->armed = false;
	return 0;
}

typedef int (*timer_cb)(void *map, void *key, void *value);

void sim_timers_run(void)
{
	unsigned int i;

	for (i = 0; i < nr_timers; i++) {
		struct sim_timer *st = &timers[i];

		if (!st->armed || st->expires > sim->now_ns)
			continue;
		st->armed = false;
		((timer_cb)st->cb)(st->map->home, key_at(st->map, st->entry),
				   value_at(st->map, st->entry));
	}
}
