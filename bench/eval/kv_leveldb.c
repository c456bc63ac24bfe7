// SPDX-License-Identifier: GPL-2.0
/*
 * kv on LevelDB as Debian ships it (libleveldb-dev), unpatched: its table
 * files are read through mmap (up to 1000 of them on 64-bit; a database
 * of 2 MiB tables stays far below), so the page cache sees a read only as
 * a page fault on a missing page and as a page-table accessed bit on a
 * cached one: what a cache_ext policy learns of them is what the kernel
 * reports through folio_mapped_accessed().  Data blocks read from a
 * mapping are not copied into LevelDB's block cache; the cache is made
 * empty (capacity 0) when none is asked for.  Bloom filters, no
 * compression, the write buffer sizes of kv_rocksdb.
 */
#include <stdlib.h>

#include <leveldb/c.h>

#include "kv.h"

struct kv {
	leveldb_t *db;
	leveldb_options_t *o;
	leveldb_cache_t *cache;
	leveldb_filterpolicy_t *bloom;
	leveldb_readoptions_t *r;
	leveldb_writeoptions_t *w;
};

static struct kv *ldb_open(const struct kv_options *ko, char **err)
{
	struct kv *kv = calloc(1, sizeof(*kv));
	leveldb_options_t *o = leveldb_options_create();

	/* Without a cache of its own LevelDB makes one of 8 MiB. */
	kv->cache = leveldb_cache_create_lru((size_t)ko->cache_mib << 20);
	kv->bloom = leveldb_filterpolicy_create_bloom(10);
	leveldb_options_set_cache(o, kv->cache);
	leveldb_options_set_filter_policy(o, kv->bloom);
	leveldb_options_set_compression(o, leveldb_no_compression);
	leveldb_options_set_create_if_missing(o, ko->load);
	leveldb_options_set_write_buffer_size(o, (ko->load ? 64 : 4) << 20);
	kv->o = o;
	kv->db = leveldb_open(o, ko->dir, err);
	if (!kv->db) {
		leveldb_options_destroy(o);
		leveldb_cache_destroy(kv->cache);
		leveldb_filterpolicy_destroy(kv->bloom);
		free(kv);
		return NULL;
	}
	kv->r = leveldb_readoptions_create();
	kv->w = leveldb_writeoptions_create();
	return kv;
}

static int ldb_get(struct kv *kv, const char *key, size_t klen, bool *found,
		   size_t *len, char **err)
{
	char *v = leveldb_get(kv->db, kv->r, key, klen, len, err);

	if (*err)
		return -1;
	*found = v != NULL;
	if (!v)
		*len = 0;
	leveldb_free(v);
	return 0;
}

static int ldb_put(struct kv *kv, const char *key, size_t klen,
		   const char *val, size_t vlen, char **err)
{
	leveldb_put(kv->db, kv->w, key, klen, val, vlen, err);
	return *err ? -1 : 0;
}

static uint64_t ldb_scan(struct kv *kv, const char *key, size_t klen,
			 uint64_t n)
{
	leveldb_iterator_t *it = leveldb_create_iterator(kv->db, kv->r);
	uint64_t i;

	leveldb_iter_seek(it, key, klen);
	for (i = 0; i < n && leveldb_iter_valid(it); i++) {
		size_t kl, vl;

		leveldb_iter_key(it, &kl);
		leveldb_iter_value(it, &vl);
		leveldb_iter_next(it);
	}
	leveldb_iter_destroy(it);
	return i;
}

static void ldb_compact(struct kv *kv)
{
	leveldb_compact_range(kv->db, NULL, 0, NULL, 0);
}

static void ldb_close(struct kv *kv)
{
	leveldb_close(kv->db);
	leveldb_readoptions_destroy(kv->r);
	leveldb_writeoptions_destroy(kv->w);
	leveldb_options_destroy(kv->o);
	leveldb_cache_destroy(kv->cache);
	leveldb_filterpolicy_destroy(kv->bloom);
	free(kv);
}

const struct kv_engine kv_leveldb = {
	.name = "leveldb",
	.bg_thread_prefix = NULL,	/* its compaction thread is unnamed */
	.open = ldb_open,
	.get = ldb_get,
	.put = ldb_put,
	.scan = ldb_scan,
	.compact = ldb_compact,
	.close = ldb_close,
};
