// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_ca: two TCP congestion controls that are not cache_ext policies.
 * plain_ca does nothing: attached on a cgroup's fd, it must be refused,
 * its struct_ops type not taking BPF_F_CGROUP_FD.  scoring_ca asks a
 * cache_ext_ctl model for a threshold: its program must fail to load, the
 * model kfuncs being for cache_ext policies (and SYSCALL programs).  The
 * tests load one or the other (autoload, autocreate).
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

/* Weak: plain_ca loads without cache_ext_ctl. */
extern int bpf_cache_ext_model_threshold(const char *name__str,
					 s64 *threshold) __ksym __weak;

SEC("struct_ops")
void BPF_PROG(plain_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
}

SEC("struct_ops")
void BPF_PROG(scoring_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	s64 threshold;

	bpf_cache_ext_model_threshold("test_model", &threshold);
}

SEC("struct_ops")
u32 BPF_PROG(ca_ssthresh, struct sock *sk)
{
	return 2;
}

SEC("struct_ops")
u32 BPF_PROG(ca_undo_cwnd, struct sock *sk)
{
	return 2;
}

SEC(".struct_ops.link")
struct tcp_congestion_ops plain_ca = {
	.cong_avoid	= (void *)plain_cong_avoid,
	.ssthresh	= (void *)ca_ssthresh,
	.undo_cwnd	= (void *)ca_undo_cwnd,
	.name		= "cache_ext_plain",
};

SEC(".struct_ops.link")
struct tcp_congestion_ops scoring_ca = {
	.cong_avoid	= (void *)scoring_cong_avoid,
	.ssthresh	= (void *)ca_ssthresh,
	.undo_cwnd	= (void *)ca_undo_cwnd,
	.name		= "cache_ext_score",
};
