/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LearnedCache feature state in BPF maps: bounded LRU hashes of pages and
 * files, updated on every access, read at eviction time.  Used by the
 * tracer and by ml_protect and ml_rank, with the formulas of
 * lc_features.h.  Each object has its own maps.
 *
 * A page's state is written by the accesses to that page only.  A file's
 * is kept per CPU, so that readers of one file on several CPUs do not
 * all write one cacheline on every hit: an access updates its CPU's
 * copy, and the features read one state merged from every CPU's
 * (lc_inode_merge()).  The merged file's last three access times and the
 * page index of its last access are those of the one stream of accesses;
 * its EMA is the sum of the CPUs' EMAs, each decayed to the file's last
 * access, close to the one stream's but not equal to it, lc_ema_decay()
 * being piecewise (decaying by a and then b is not decaying by a + b).
 * On one CPU, and in cachesim, the merge is the state itself.  How close
 * it is on a recording, and what it changes in a model's choices:
 * lctrain --check-features (tools/README.rst).
 */
#ifndef __LC_STATE_BPF_H
#define __LC_STATE_BPF_H

#include "cache_ext.bpf.h"
#include "lc_features.h"

/* More than any machine has: the merge stops at the first CPU past the last. */
#define LC_MAX_CPUS		4096

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LC_MAX_PAGES);
	__type(key, struct lc_page_key);
	__type(value, struct lc_page_state);
} lc_pages SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__uint(max_entries, LC_MAX_INODES);
	__type(key, struct lc_inode_key);
	__type(value, struct lc_inode_state);
} lc_inodes SEC(".maps");

/*
 * A file's state as the features see it, merged from every CPU's copy;
 * kept by an eviction across the folios it scores, so that consecutive
 * folios of one file merge it once.  Zero it before first use.
 */
struct lc_file_view {
	struct lc_inode_key key;
	__u64 now;
	bool merged;			/* key, now and state are set */
	struct lc_inode_state state;	/* zeros for a file never accessed */
};

static __always_inline void lc_keys(struct folio *folio,
				    struct lc_page_key *pk,
				    struct lc_inode_key *ik)
{
	struct inode *host = folio->mapping->host;

	pk->dev = host->i_sb->s_dev;
	pk->pad = 0;
	pk->ino = host->i_ino;
	ik->dev = pk->dev;
	ik->pad = 0;
	ik->ino = pk->ino;
	pk->index = folio->index;
}

static __always_inline u64 lc_file_pages(struct folio *folio)
{
	return (u64)folio->mapping->host->i_size >> 12;
}

/* An access to @folio now: update (or create) its page's and its file's state. */
static __always_inline void lc_record_access(struct folio *folio, u64 now)
{
	struct lc_page_state zero_page = {}, *p;
	struct lc_inode_state zero_inode = {}, *f;
	struct lc_page_key pk;
	struct lc_inode_key ik;

	lc_keys(folio, &pk, &ik);
	p = bpf_map_lookup_elem(&lc_pages, &pk);
	if (!p) {
		bpf_map_update_elem(&lc_pages, &pk, &zero_page, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&lc_pages, &pk);
	}
	/* This CPU's copy; a new file's is zeroed on every CPU. */
	f = bpf_map_lookup_elem(&lc_inodes, &ik);
	if (!f) {
		bpf_map_update_elem(&lc_inodes, &ik, &zero_inode, BPF_NOEXIST);
		f = bpf_map_lookup_elem(&lc_inodes, &ik);
	}
	if (p && f)
		lc_access(p, f, pk.index, lc_file_pages(folio), now);
}

struct lc_merge_ctx {
	const struct lc_inode_key *key;
	struct lc_inode_state *out;
};

/* Put access time @t among @top, the three latest, latest first. */
static __always_inline void lc_top3_add(__u64 top[3], __u64 t)
{
	if (!t)
		return;
	if (t > top[0]) {
		top[2] = top[1];
		top[1] = top[0];
		top[0] = t;
	} else if (t > top[1]) {
		top[2] = top[1];
		top[1] = t;
	} else if (t > top[2]) {
		top[2] = t;
	}
}

/* First pass: CPU @cpu's last accesses, and the index of the latest. */
static long lc_merge_times(u64 cpu, struct lc_merge_ctx *ctx)
{
	const struct lc_inode_state *f;
	struct lc_inode_state *m = ctx->out;
	__u64 top[3] = { m->t.last, m->t.prev, m->t.prev2 };

	f = bpf_map_lookup_percpu_elem(&lc_inodes, ctx->key, cpu);
	if (!f)
		return 1;	/* an unknown file, or past the last CPU */
	if (f->t.last > m->t.last)
		m->last_index = f->last_index;
	lc_top3_add(top, f->t.last);
	lc_top3_add(top, f->t.prev);
	lc_top3_add(top, f->t.prev2);
	m->t.last = top[0];
	m->t.prev = top[1];
	m->t.prev2 = top[2];
	return 0;
}

/* Second pass: CPU @cpu's EMA, decayed to the file's last access. */
static long lc_merge_ema(u64 cpu, struct lc_merge_ctx *ctx)
{
	const struct lc_inode_state *f;
	struct lc_inode_state *m = ctx->out;

	f = bpf_map_lookup_percpu_elem(&lc_inodes, ctx->key, cpu);
	if (!f)
		return 1;
	if (f->t.last && m->t.last >= f->t.last)
		m->t.ema += lc_ema_decay(f->t.ema, m->t.last - f->t.last);
	return 0;
}

/*
 * The state of file @key merged from every CPU's copy into *@out: zeros
 * for a file no CPU has state of.  Two lookups per CPU.
 */
static __always_inline void lc_inode_merge(const struct lc_inode_key *key,
					   struct lc_inode_state *out)
{
	struct lc_merge_ctx ctx = { .key = key, .out = out };

	__builtin_memset(out, 0, sizeof(*out));
	bpf_loop(LC_MAX_CPUS, lc_merge_times, &ctx, 0);
	if (out->t.last)
		bpf_loop(LC_MAX_CPUS, lc_merge_ema, &ctx, 0);
}

/*
 * The features of @folio at @now; pages never accessed get zeros.  @file
 * keeps the merged state of the last file looked at, for the next folio
 * scored at the same @now.
 */
static __always_inline void lc_folio_features(struct folio *folio, u64 now,
					      struct lc_file_view *file,
					      s64 out[LC_NR_FEATURES])
{
	static const struct lc_page_state no_page;
	const struct lc_page_state *p;
	struct lc_page_key pk;
	struct lc_inode_key ik;

	lc_keys(folio, &pk, &ik);
	p = bpf_map_lookup_elem(&lc_pages, &pk);
	if (!file->merged || file->now != now || file->key.dev != ik.dev ||
	    file->key.ino != ik.ino) {
		file->key = ik;
		file->now = now;
		file->merged = true;
		lc_inode_merge(&ik, &file->state);
	}
	lc_features(p ?: &no_page, &file->state, pk.index, now, out);
	if (!p)
		out[LC_FILE_PAGES] = lc_file_pages(folio);
}

#endif /* __LC_STATE_BPF_H */
