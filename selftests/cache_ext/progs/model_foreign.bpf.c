// SPDX-License-Identifier: GPL-2.0
/*
 * model_foreign: a TCP congestion control that asks a cache_ext_ctl
 * model for a score.  The model kfuncs are for cache_ext policies (and
 * SYSCALL programs): this object must fail to load.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

extern int bpf_cache_ext_model_threshold(const char *name__str,
					 s64 *threshold) __ksym;

SEC("struct_ops")
void BPF_PROG(foreign_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	s64 threshold;

	bpf_cache_ext_model_threshold("test_model", &threshold);
}

SEC("struct_ops")
u32 BPF_PROG(foreign_ssthresh, struct sock *sk)
{
	return 2;
}

SEC("struct_ops")
u32 BPF_PROG(foreign_undo_cwnd, struct sock *sk)
{
	return 2;
}

SEC(".struct_ops")
struct tcp_congestion_ops model_foreign = {
	.cong_avoid	= (void *)foreign_cong_avoid,
	.ssthresh	= (void *)foreign_ssthresh,
	.undo_cwnd	= (void *)foreign_undo_cwnd,
	.name		= "model_foreign",
};
