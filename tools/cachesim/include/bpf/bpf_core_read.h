/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachesim's <bpf/bpf_core_read.h>: included by cache_ext.bpf.h, which
 * uses none of CO-RE; the policies read the simulator's structures
 * directly.  A policy that needs BPF_CORE_READ() adds it here.
 */
#ifndef __CACHESIM_BPF_CORE_READ_H
#define __CACHESIM_BPF_CORE_READ_H
#endif /* __CACHESIM_BPF_CORE_READ_H */
