// SPDX-License-Identifier: GPL-2.0
/* The key-value stores of kv.h, by name. */
#include <string.h>

#include "kv.h"

const struct kv_engine *kv_engine_by_name(const char *name)
{
	if (!strcmp(name, "rocksdb"))
		return &kv_rocksdb;
	if (!strcmp(name, "leveldb"))
		return &kv_leveldb;
	return NULL;
}
