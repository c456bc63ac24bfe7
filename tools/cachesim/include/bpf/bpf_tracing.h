/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachesim's <bpf/bpf_tracing.h>: BPF_PROG(name, args...) declares a
 * plain C function with those arguments.  The simulator calls a policy's
 * callbacks through struct cache_ext_ops with their real prototypes, so
 * the u64 context array that BPF programs unpack is not needed.
 */
#ifndef __CACHESIM_BPF_TRACING_H
#define __CACHESIM_BPF_TRACING_H

#define BPF_PROG(name, args...)	name(args)

#endif /* __CACHESIM_BPF_TRACING_H */
