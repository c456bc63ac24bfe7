// SPDX-License-Identifier: GPL-2.0
/*
 * kv on RocksDB: block-based tables with a bloom filter, no compression,
 * reads with pread() (mmap reads and direct I/O off), tables opened with
 * POSIX_FADV_RANDOM (RocksDB's default), so that the page cache does the
 * caching behind a block cache of cache_mib (0: none).
 */
#include <stdlib.h>

#include <rocksdb/c.h>

#include "kv.h"

struct kv {
	rocksdb_t *db;
	rocksdb_options_t *o;
	rocksdb_readoptions_t *r;
	rocksdb_writeoptions_t *w;
};

static struct kv *rdb_open(const struct kv_options *ko, char **err)
{
	struct kv *kv = calloc(1, sizeof(*kv));
	rocksdb_block_based_table_options_t *t =
		rocksdb_block_based_options_create();
	rocksdb_options_t *o = rocksdb_options_create();

	if (ko->cache_mib)
		rocksdb_block_based_options_set_block_cache(t,
			rocksdb_cache_create_lru((size_t)ko->cache_mib << 20));
	else
		rocksdb_block_based_options_set_no_block_cache(t, 1);
	rocksdb_block_based_options_set_filter_policy(t,
		rocksdb_filterpolicy_create_bloom(10));
	rocksdb_options_set_block_based_table_factory(o, t);
	rocksdb_options_set_compression(o, rocksdb_no_compression);
	rocksdb_options_set_allow_mmap_reads(o, 0);
	rocksdb_options_set_use_direct_reads(o, 0);
	rocksdb_options_set_advise_random_on_open(o, 1);
	rocksdb_options_set_max_background_jobs(o, 2);
	rocksdb_options_set_create_if_missing(o, ko->load);
	/*
	 * Small memtables in runs: writes reach the disk and compaction runs
	 * within a run, as on a database much larger than memory.
	 */
	rocksdb_options_set_write_buffer_size(o, (ko->load ? 64 : 4) << 20);
	if (ko->load)
		rocksdb_options_prepare_for_bulk_load(o);
	kv->o = o;
	kv->db = rocksdb_open(o, ko->dir, err);
	if (!kv->db) {
		rocksdb_options_destroy(o);
		free(kv);
		return NULL;
	}
	kv->r = rocksdb_readoptions_create();
	kv->w = rocksdb_writeoptions_create();
	if (ko->load)
		rocksdb_writeoptions_disable_WAL(kv->w, 1);
	return kv;
}

static int rdb_get(struct kv *kv, const char *key, size_t klen, bool *found,
		   size_t *len, char **err)
{
	char *v = rocksdb_get(kv->db, kv->r, key, klen, len, err);

	if (*err)
		return -1;
	*found = v != NULL;
	if (!v)
		*len = 0;
	rocksdb_free(v);
	return 0;
}

static int rdb_put(struct kv *kv, const char *key, size_t klen,
		   const char *val, size_t vlen, char **err)
{
	rocksdb_put(kv->db, kv->w, key, klen, val, vlen, err);
	return *err ? -1 : 0;
}

static uint64_t rdb_scan(struct kv *kv, const char *key, size_t klen,
			 uint64_t n)
{
	rocksdb_iterator_t *it = rocksdb_create_iterator(kv->db, kv->r);
	uint64_t i;

	rocksdb_iter_seek(it, key, klen);
	for (i = 0; i < n && rocksdb_iter_valid(it); i++) {
		size_t kl, vl;

		rocksdb_iter_key(it, &kl);
		rocksdb_iter_value(it, &vl);
		rocksdb_iter_next(it);
	}
	rocksdb_iter_destroy(it);
	return i;
}

static void rdb_compact(struct kv *kv)
{
	rocksdb_compact_range(kv->db, NULL, 0, NULL, 0);
}

static void rdb_close(struct kv *kv)
{
	rocksdb_close(kv->db);
	rocksdb_readoptions_destroy(kv->r);
	rocksdb_writeoptions_destroy(kv->w);
	rocksdb_options_destroy(kv->o);
	free(kv);
}

const struct kv_engine kv_rocksdb = {
	.name = "rocksdb",
	.bg_thread_prefix = "rocksdb:",
	.open = rdb_open,
	.get = rdb_get,
	.put = rdb_put,
	.scan = rdb_scan,
	.compact = rdb_compact,
	.close = rdb_close,
};
