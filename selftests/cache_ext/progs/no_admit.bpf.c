// SPDX-License-Identifier: GPL-2.0
/*
 * no_admit: refuses admission to the folios of one inode (set by the
 * test), admits everything else, and otherwise leaves eviction to the
 * kernel.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

__u64 target_ino;
__u64 nr_refused;

bool CACHE_EXT_OP(no_admit_admit, struct cache_ext_admit_ctx *actx,
		  struct mem_cgroup *memcg)
{
	if (BPF_CORE_READ(actx, mapping, host, i_ino) != target_ino)
		return true;
	__sync_fetch_and_add(&nr_refused, 1);
	return false;
}

SEC(".struct_ops.link")
struct cache_ext_ops no_admit = {
	.admit_folio	= (void *)no_admit_admit,
	.name		= "no_admit",
};
