// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext: struct cache_ext_ops as a BPF struct_ops type.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/bpf.h>
#include <linux/bpf_verifier.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/cache_ext.h>
#include <linux/init.h>

#include "internal.h"

static int cache_ext_ops_init(struct btf *btf)
{
	return 0;
}

static bool cache_ext_ops_is_valid_access(int off, int size,
					  enum bpf_access_type type,
					  const struct bpf_prog *prog,
					  struct bpf_insn_access_aux *info)
{
	return bpf_tracing_btf_ctx_access(off, size, type, prog, info);
}

/* Pointers handed to a policy are read-only: no btf_struct_access. */
static const struct bpf_verifier_ops cache_ext_verifier_ops = {
	.get_func_proto	= bpf_base_func_proto,
	.is_valid_access = cache_ext_ops_is_valid_access,
	/* A callback past its budget has its loops ended. */
	.cancellable_loops = true,
};

/* Only init() and exit() run where sleeping is allowed. */
static int cache_ext_ops_check_member(const struct btf_type *t,
				      const struct btf_member *member,
				      const struct bpf_prog *prog)
{
	u32 moff = __btf_member_bit_offset(t, member) / 8;

	switch (moff) {
	case offsetof(struct cache_ext_ops, init):
	case offsetof(struct cache_ext_ops, exit):
		return 0;
	default:
		return prog->sleepable ? -EINVAL : 0;
	}
}

static int cache_ext_ops_init_member(const struct btf_type *t,
				     const struct btf_member *member,
				     void *kdata, const void *udata)
{
	const struct cache_ext_ops *uops = udata;
	struct cache_ext_ops *ops = kdata;
	u32 moff = __btf_member_bit_offset(t, member) / 8;

	switch (moff) {
	case offsetof(struct cache_ext_ops, name):
		if (bpf_obj_name_cpy(ops->name, uops->name,
				     sizeof(ops->name)) <= 0)
			return -EINVAL;
		return 1;
	case offsetof(struct cache_ext_ops, flags):
		if (uops->flags & ~CACHE_EXT_OPS_ALL_FLAGS)
			return -EINVAL;
		ops->flags = uops->flags;
		return 1;
	case offsetof(struct cache_ext_ops, cgroup_id):
		ops->cgroup_id = uops->cgroup_id;
		return 1;
	}
	return 0;
}

/*
 * At the struct_ops map's update, before any link: a policy that could not
 * be registered is refused at load, with its registration's error.
 */
static int cache_ext_ops_validate(void *kdata)
{
	return cache_ext_policy_validate(kdata);
}

/*
 * The cgroup to bind to as the policy registers: the one whose fd created
 * the link (BPF_F_CGROUP_FD), or &cache_ext_ops.cgroup_id; both, the same.
 */
static int cache_ext_ops_reg(void *kdata, struct bpf_link *link)
{
	const struct cache_ext_ops *ops = kdata;
	u64 id = link ? bpf_struct_ops_link_cgroup_id(link) : 0;

	if (id && ops->cgroup_id && id != ops->cgroup_id)
		return -EINVAL;
	return cache_ext_policy_register(kdata, id ?: ops->cgroup_id);
}

static void cache_ext_ops_unreg(void *kdata, struct bpf_link *link)
{
	cache_ext_policy_unregister(kdata);
}

/* CFI stubs: one per callback, with the callback's exact prototype. */
static s32 cache_ext_init_stub(struct mem_cgroup *memcg)
{
	return 0;
}

static void cache_ext_exit_stub(struct mem_cgroup *memcg,
				const struct cache_ext_exit_info *info)
{
}

static void cache_ext_evict_folios_stub(struct cache_ext_eviction_ctx *ctx,
					struct mem_cgroup *memcg)
{
}

static void cache_ext_folio_added_stub(struct folio *folio,
				       struct mem_cgroup *memcg)
{
}

static void cache_ext_folio_accessed_stub(struct folio *folio,
					  struct mem_cgroup *memcg)
{
}

static void cache_ext_folio_removed_stub(struct folio *folio,
					 struct mem_cgroup *memcg)
{
}

static bool cache_ext_admit_folio_stub(struct cache_ext_admit_ctx *ctx,
				       struct mem_cgroup *memcg)
{
	return true;
}

static void cache_ext_folio_mapped_accessed_stub(struct folio *folio,
						 struct mem_cgroup *memcg,
						 u32 nr_ptes)
{
}

static struct cache_ext_ops __bpf_cache_ext_ops = {
	.init		= cache_ext_init_stub,
	.exit		= cache_ext_exit_stub,
	.evict_folios	= cache_ext_evict_folios_stub,
	.folio_added	= cache_ext_folio_added_stub,
	.folio_accessed	= cache_ext_folio_accessed_stub,
	.folio_removed	= cache_ext_folio_removed_stub,
	.admit_folio	= cache_ext_admit_folio_stub,
	.folio_mapped_accessed = cache_ext_folio_mapped_accessed_stub,
};

static struct bpf_struct_ops bpf_cache_ext_ops = {
	.verifier_ops	= &cache_ext_verifier_ops,
	.init		= cache_ext_ops_init,
	.check_member	= cache_ext_ops_check_member,
	.init_member	= cache_ext_ops_init_member,
	.validate	= cache_ext_ops_validate,
	.reg		= cache_ext_ops_reg,
	.unreg		= cache_ext_ops_unreg,
	/*
	 * No .update (link_update gives -EOPNOTSUPP): replacing a live policy
	 * under its bindings would need every binding's state handed over;
	 * unregister and register a new policy instead.
	 */
	.cfi_stubs	= &__bpf_cache_ext_ops,
	.name		= "cache_ext_ops",
	.link_flags	= BPF_F_CGROUP_FD,
	.owner		= THIS_MODULE,
};

/*
 * The kfuncs of lists.c, evict.c and eject.c.  Every pointer they take
 * must be trusted: a callback's argument or a folio from the list
 * iterator.  A pointer walked to from elsewhere (task->mm->..., a cast) is
 * refused when the program loads.  Messages are constant strings.
 */
BTF_KFUNCS_START(cache_ext_kfunc_ids)
BTF_ID_FLAGS(func, bpf_cache_ext_list_create, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_cache_ext_list_add, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_cache_ext_list_move, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_cache_ext_list_del, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_cache_ext_list_size, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_iter_cache_ext_list_new, KF_ITER_NEW | KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_iter_cache_ext_list_next, KF_ITER_NEXT | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_iter_cache_ext_list_destroy, KF_ITER_DESTROY)
BTF_ID_FLAGS(func, bpf_cache_ext_propose, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_cache_ext_propose_scored, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_cache_ext_propose_list, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_cache_ext_list_rotate, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_cache_ext_folio_data, KF_TRUSTED_ARGS | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_cache_ext_folio_prefetched, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_cache_ext_folio_take_refs, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_cache_ext_folio_busy, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_cache_ext_eject_self, KF_TRUSTED_ARGS)
BTF_KFUNCS_END(cache_ext_kfunc_ids)

BTF_ID_LIST_SINGLE(cache_ext_ops_type_ids, struct, cache_ext_ops)

/* Kfuncs with a meaning in one callback only; sorted by the build. */
BTF_SET_START(cache_ext_init_only_ids)
BTF_ID(func, bpf_cache_ext_list_create)
BTF_SET_END(cache_ext_init_only_ids)

BTF_SET_START(cache_ext_evict_only_ids)
BTF_ID(func, bpf_cache_ext_propose)
BTF_ID(func, bpf_cache_ext_propose_scored)
BTF_ID(func, bpf_cache_ext_propose_list)
BTF_SET_END(cache_ext_evict_only_ids)

/*
 * Offset in struct cache_ext_ops of the callback @prog implements (its
 * member index is its expected_attach_type), or -1.
 */
static int prog_member_offset(const struct bpf_prog *prog)
{
	const struct btf *btf = prog->aux->attach_btf;
	const struct btf_type *t;

	if (!btf)
		return -1;
	t = btf_type_by_id(btf, prog->aux->attach_btf_id);
	if (!t || prog->expected_attach_type >= btf_type_vlen(t))
		return -1;
	return __btf_member_bit_offset(t, &btf_type_member(t)[prog->expected_attach_type]) / 8;
}

/*
 * The filter sees every kfunc call of every struct_ops program: allow
 * ours only in cache_ext policies, and leave the others alone.  The
 * kfuncs that only work in init() or in evict_folios() are refused in any
 * other callback when the program loads, as sched_ext and bpf_tcp_ca
 * refuse theirs; the kfuncs check their context again when called.
 */
static int cache_ext_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (!btf_id_set8_contains(&cache_ext_kfunc_ids, kfunc_id))
		return 0;
	if (prog->aux->attach_btf_id != cache_ext_ops_type_ids[0])
		return -EACCES;
	if (btf_id_set_contains(&cache_ext_init_only_ids, kfunc_id) &&
	    prog_member_offset(prog) != offsetof(struct cache_ext_ops, init))
		return -EACCES;
	if (btf_id_set_contains(&cache_ext_evict_only_ids, kfunc_id) &&
	    prog_member_offset(prog) != offsetof(struct cache_ext_ops,
						 evict_folios))
		return -EACCES;
	return 0;
}

static const struct btf_kfunc_id_set cache_ext_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &cache_ext_kfunc_ids,
	.filter	= cache_ext_kfunc_filter,
};

static int __init cache_ext_struct_ops_init(void)
{
	int ret;

	ret = register_btf_kfunc_id_set(BPF_PROG_TYPE_STRUCT_OPS,
					&cache_ext_kfunc_set);
	ret = ret ?: register_bpf_struct_ops(&bpf_cache_ext_ops, cache_ext_ops);
	if (ret)
		pr_err("registering struct cache_ext_ops failed: %d\n", ret);
	return ret;
}
late_initcall(cache_ext_struct_ops_init);
