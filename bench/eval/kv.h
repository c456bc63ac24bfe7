/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The key-value stores ycsb runs on, behind one small interface: RocksDB
 * (reads with pread(), tables opened POSIX_FADV_RANDOM) and LevelDB as
 * Debian ships it (reads through mmap: the page cache sees them only as
 * page-table accessed bits).
 */
#ifndef __EVAL_KV_H
#define __EVAL_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kv;

struct kv_options {
	const char *dir;
	bool load;		/* create it, bulk-load settings */
	int cache_mib;		/* the store's own block cache; 0: none */
};

struct kv_engine {
	const char *name;	/* "rocksdb", "leveldb" */
	/*
	 * The prefix of the store's background threads' names (flush,
	 * compaction), or NULL if they have none of their own.
	 */
	const char *bg_thread_prefix;
	/* NULL and *@err (a message to free()) on failure. */
	struct kv *(*open)(const struct kv_options *o, char **err);
	/*
	 * 0 and *@len (0 if not found), or -1 and *@err; the value itself
	 * is not kept.
	 */
	int (*get)(struct kv *kv, const char *key, size_t klen, bool *found,
		   size_t *len, char **err);
	/* Written to the log too, but when loading. */
	int (*put)(struct kv *kv, const char *key, size_t klen,
		   const char *val, size_t vlen, char **err);
	/* Reads up to @n records from @key on; the number read. */
	uint64_t (*scan)(struct kv *kv, const char *key, size_t klen,
			 uint64_t n);
	/* Compacts everything (after a load). */
	void (*compact)(struct kv *kv);
	void (*close)(struct kv *kv);
};

extern const struct kv_engine kv_rocksdb, kv_leveldb;

/* The engine called @name, or NULL. */
const struct kv_engine *kv_engine_by_name(const char *name);

#endif /* __EVAL_KV_H */
