// SPDX-License-Identifier: GPL-2.0
/*
 * nested_init: a callback of one policy that runs inside another policy's
 * init().  "faulting" reads user memory in its init(): the binder's
 * unfaulted mapping of a file, so the read faults the file's page in and
 * the page cache hands the new folios to the policy of the binder's own
 * cgroup, "nested", while init() still runs.  nested's folio_added() puts
 * each folio on its own list: its kfuncs must act on nested's binding,
 * not on the binding faulting's init() is setting up (they would refuse
 * the memcg then, as a memcg of another policy).
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz,
				  const void *unsafe_ptr__ign,
				  __u64 flags) __ksym;

/* Set by the test: the mapping to read, and the binder's thread group. */
__u64 fault_addr;
__u32 binder_tgid;

/* What faulting's init() read: the bytes copied, or an error. */
__s64 copy_ret;
__u32 init_done;

/* nested's folio_added() calls made by the binder, and how many failed. */
__u64 nested_added;
__u64 nested_failed;
__s64 nested_last_err;

s32 CACHE_EXT_OP_SLEEPABLE(faulting_init, struct mem_cgroup *memcg)
{
	char buf[16];

	copy_ret = bpf_copy_from_user_str(buf, sizeof(buf),
					  (const void *)fault_addr, 0);
	init_done = 1;
	return 0;
}

s32 CACHE_EXT_OP_SLEEPABLE(nested_init, struct mem_cgroup *memcg)
{
	return bpf_cache_ext_list_create(memcg) < 0 ? -EINVAL : 0;
}

void CACHE_EXT_OP(nested_folio_added, struct folio *folio,
		  struct mem_cgroup *memcg)
{
	int ret;

	if (bpf_get_current_pid_tgid() >> 32 != binder_tgid)
		return;
	nested_added++;
	ret = bpf_cache_ext_list_add(memcg, 0, folio, CACHE_EXT_TAIL);
	if (ret) {
		nested_failed++;
		nested_last_err = ret;
	}
}

SEC(".struct_ops.link")
struct cache_ext_ops faulting = {
	.init		= (void *)faulting_init,
	.name		= "faulting",
};

SEC(".struct_ops.link")
struct cache_ext_ops nested = {
	.init		= (void *)nested_init,
	.folio_added	= (void *)nested_folio_added,
	.name		= "nested",
};
