/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LearnedCache feature state in BPF maps: bounded LRU hashes of pages and
 * files, updated on every access, read at eviction time.  Used by the
 * tracer and by ml_protect and ml_rank, with the formulas of
 * lc_features.h.  Each object has its own maps.
 */
#ifndef __LC_STATE_BPF_H
#define __LC_STATE_BPF_H

#include "cache_ext.bpf.h"
#include "lc_features.h"

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LC_MAX_PAGES);
	__type(key, struct lc_page_key);
	__type(value, struct lc_page_state);
} lc_pages SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LC_MAX_INODES);
	__type(key, struct lc_inode_key);
	__type(value, struct lc_inode_state);
} lc_inodes SEC(".maps");

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

/* An access to @folio now: update (or create) its page and file state. */
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
	f = bpf_map_lookup_elem(&lc_inodes, &ik);
	if (!f) {
		bpf_map_update_elem(&lc_inodes, &ik, &zero_inode, BPF_NOEXIST);
		f = bpf_map_lookup_elem(&lc_inodes, &ik);
	}
	if (p && f)
		lc_access(p, f, pk.index, lc_file_pages(folio), now);
}

/* The features of @folio at @now; pages never accessed get zeros. */
static __always_inline void lc_folio_features(struct folio *folio, u64 now,
					      s64 out[LC_NR_FEATURES])
{
	static const struct lc_page_state no_page;
	static const struct lc_inode_state no_inode;
	const struct lc_page_state *p;
	const struct lc_inode_state *f;
	struct lc_page_key pk;
	struct lc_inode_key ik;

	lc_keys(folio, &pk, &ik);
	p = bpf_map_lookup_elem(&lc_pages, &pk);
	f = bpf_map_lookup_elem(&lc_inodes, &ik);
	lc_features(p ?: &no_page, f ?: &no_inode, pk.index, now, out);
	if (!p)
		out[LC_FILE_PAGES] = lc_file_pages(folio);
}

#endif /* __LC_STATE_BPF_H */
