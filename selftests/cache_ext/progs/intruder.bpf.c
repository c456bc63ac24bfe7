// SPDX-License-Identifier: GPL-2.0
/*
 * intruder: tries every kfunc that names a binding on a memcg it was not
 * handed: the one of the current task's mm (bpf_get_current_task_btf()->
 * mm->lru_gen.memcg), which may be any cgroup's, bound to any policy.
 * The kfuncs take trusted pointers only, so each of these programs must
 * be refused at load; "own" uses its callback's memcg and must load.
 * A test creates one struct_ops map at a time.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

static __always_inline struct mem_cgroup *current_memcg(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return task->mm->lru_gen.memcg;
}

s32 CACHE_EXT_OP_SLEEPABLE(intrude_create, struct mem_cgroup *memcg)
{
	return bpf_cache_ext_list_create(current_memcg()) < 0 ? -EINVAL : 0;
}

void CACHE_EXT_OP(intrude_add, struct folio *folio, struct mem_cgroup *memcg)
{
	bpf_cache_ext_list_add(current_memcg(), 0, folio, CACHE_EXT_TAIL);
}

void CACHE_EXT_OP(intrude_move, struct folio *folio, struct mem_cgroup *memcg)
{
	bpf_cache_ext_list_move(current_memcg(), 0, folio, CACHE_EXT_TAIL);
}

void CACHE_EXT_OP(intrude_del, struct folio *folio, struct mem_cgroup *memcg)
{
	bpf_cache_ext_list_del(current_memcg(), folio);
}

__s64 size_seen;

void CACHE_EXT_OP(intrude_size, struct folio *folio, struct mem_cgroup *memcg)
{
	size_seen = bpf_cache_ext_list_size(current_memcg(), 0);
}

void CACHE_EXT_OP(intrude_iter, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	struct folio *folio;

	for_each_list_folio(folio, current_memcg(), 0, 32)
		bpf_cache_ext_list_del(memcg, folio);
}

s32 CACHE_EXT_OP_SLEEPABLE(own_init, struct mem_cgroup *memcg)
{
	return bpf_cache_ext_list_create(memcg) < 0 ? -EINVAL : 0;
}

void CACHE_EXT_OP(own_added, struct folio *folio, struct mem_cgroup *memcg)
{
	bpf_cache_ext_list_add(memcg, 0, folio, CACHE_EXT_TAIL);
	size_seen = bpf_cache_ext_list_size(memcg, 0);
}

SEC(".struct_ops.link")
struct cache_ext_ops intrude_create_ops = {
	.init		= (void *)intrude_create,
	.name		= "intrude_create",
};

SEC(".struct_ops.link")
struct cache_ext_ops intrude_add_ops = {
	.folio_added	= (void *)intrude_add,
	.name		= "intrude_add",
};

SEC(".struct_ops.link")
struct cache_ext_ops intrude_move_ops = {
	.folio_accessed	= (void *)intrude_move,
	.name		= "intrude_move",
};

SEC(".struct_ops.link")
struct cache_ext_ops intrude_del_ops = {
	.folio_removed	= (void *)intrude_del,
	.name		= "intrude_del",
};

SEC(".struct_ops.link")
struct cache_ext_ops intrude_size_ops = {
	.folio_accessed	= (void *)intrude_size,
	.name		= "intrude_size",
};

SEC(".struct_ops.link")
struct cache_ext_ops intrude_iter_ops = {
	.evict_folios	= (void *)intrude_iter,
	.name		= "intrude_iter",
};

SEC(".struct_ops.link")
struct cache_ext_ops own_ops = {
	.init		= (void *)own_init,
	.folio_added	= (void *)own_added,
	.name		= "own",
};
