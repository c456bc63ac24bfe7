/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by every cache_ext policy: the kernel's types, libbpf's helper
 * macros, and small helpers to name the folio and cgroup a callback is
 * about.  Policies include only this file.
 */
#ifndef __CACHE_EXT_BPF_H
#define __CACHE_EXT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#ifndef ENOENT
#define ENOENT		2
#define E2BIG		7
#define ENOMEM		12
#define EBUSY		16
#define EEXIST		17
#define EINVAL		22
#endif

/* Declare a struct_ops callback: CACHE_EXT_OP(name, args...). */
#define CACHE_EXT_OP(name, args...)					\
	SEC("struct_ops/" #name) BPF_PROG(name, ##args)
/* The same for callbacks that may sleep (init, exit). */
#define CACHE_EXT_OP_SLEEPABLE(name, args...)				\
	SEC("struct_ops.s/" #name) BPF_PROG(name, ##args)

/* cgroup id of a binding's memcg, as seen by name_to_handle_at(). */
static __always_inline u64 cache_ext_memcg_id(struct mem_cgroup *memcg)
{
	return BPF_CORE_READ(memcg, css.cgroup, kn, id);
}

/* Inode number of a folio's file; 0 once the folio has left the cache. */
static __always_inline u64 cache_ext_folio_ino(struct folio *folio)
{
	return BPF_CORE_READ(folio, mapping, host, i_ino);
}

#endif /* __CACHE_EXT_BPF_H */
