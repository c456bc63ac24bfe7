/* SPDX-License-Identifier: GPL-2.0 */
/* Result slots of list_misuse.bpf.c, shared with test_evict.c. */
#ifndef __LIST_MISUSE_H
#define __LIST_MISUSE_H

enum {
	R_MAX_LISTS,		/* CACHE_EXT_MAX_LISTS */
	R_CREATE_LAST,		/* last list: its id */
	R_CREATE_TOO_MANY,	/* one more: -ENOSPC */
	R_ADD,			/* 0 */
	R_ADD_AGAIN,		/* -EEXIST */
	R_ADD_BAD_LIST,		/* -EINVAL */
	R_SIZE_0,		/* 1 */
	R_MOVE_TO_1_TAIL,	/* 0 */
	R_SIZE_0_AFTER,		/* 0 */
	R_SIZE_1_AFTER,		/* 1 */
	R_SIZE_BAD_LIST,	/* -EINVAL */
	R_ITER_FIRST_IS_FOLIO,	/* 1 */
	R_ITER_BAD_LIST,	/* NULL -> 1 */
	R_DEL,			/* 0 */
	R_DEL_AGAIN,		/* -ENOENT */
	R_MOVE_UNLINKED,	/* -ENOENT */
	R_SIZE_1_EMPTY,		/* 0 */
	R_DONE,
	R_PLIST_BAD_LIST,	/* bpf_cache_ext_propose_list() on list 99: -EINVAL */
	R_PLIST_EMPTY,		/* on an empty list: 0 proposed */
	R_PLIST_NOTHING,	/* max 0: 0 proposed */
	R_PLIST_DONE,
	NR_RESULTS,
};

#endif /* __LIST_MISUSE_H */
