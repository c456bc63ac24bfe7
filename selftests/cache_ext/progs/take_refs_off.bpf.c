// SPDX-License-Identifier: GPL-2.0
/* take_refs without CACHE_EXT_OPS_COUNT_REFS: the kfunc must refuse. */
#define TAKE_REFS_FLAGS	0
#define TAKE_REFS_NAME	"take_refs_off"
#include "take_refs.bpf.c"
