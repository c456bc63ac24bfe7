// SPDX-License-Identifier: GPL-2.0
/*
 * folio_stamp: a FIFO that writes a stamp of each folio's place (inode,
 * index) into its per-folio state when it is added, and checks the stamp
 * on every access.  The address each place was last seen at is kept, so
 * an access at a new address for a place never removed is a folio that
 * migration replaced: its stamp must have come along.
 */
#include "cache_ext.bpf.h"

char _license[] SEC("license") = "GPL";

#define LIST 0

struct place {
	u64 ino;
	u64 index;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct place);
	__type(value, u64);		/* folio address */
} seen_at SEC(".maps");

/* Accesses whose stamp was right, wrong, or that had no state at all. */
__u64 nr_checked, nr_wrong, nr_missing;
/* Right stamps at a new address: folios that migration replaced. */
__u64 nr_moved_ok;
/*
 * What exit() was told: a binding ejected (for its time, on a loaded
 * machine, say) stops calling the policy, and its test must say so
 * rather than count the accesses it no longer sees as lost.
 */
__u32 exit_reason, nr_exits;
char exit_msg[sizeof(((struct cache_ext_exit_info *)0)->msg)];

static u32 stamp(struct place *p)
{
	return (u32)(p->ino * 2654435761u + p->index * 40503u) | 1;
}

static void place_of(struct folio *folio, struct place *p)
{
	p->ino = cache_ext_folio_ino(folio);
	p->index = cache_ext_folio_index(folio);
}

s32 CACHE_EXT_OP_SLEEPABLE(stamp_init, struct mem_cgroup *memcg)
{
	return bpf_cache_ext_list_create(memcg) == LIST ? 0 : -EINVAL;
}

void CACHE_EXT_OP(stamp_added, struct folio *folio, struct mem_cgroup *memcg)
{
	u32 *st = cache_ext_folio_state(folio, u32);
	u64 addr = (u64)folio;
	struct place p;

	place_of(folio, &p);
	if (st)
		*st = stamp(&p);
	bpf_map_update_elem(&seen_at, &p, &addr, BPF_ANY);
	bpf_cache_ext_list_add(memcg, LIST, folio, CACHE_EXT_TAIL);
}

void CACHE_EXT_OP(stamp_accessed, struct folio *folio,
		  struct mem_cgroup *memcg)
{
	u32 *st = cache_ext_folio_state(folio, u32);
	u64 addr = (u64)folio, *at;
	struct place p;

	place_of(folio, &p);
	if (!st) {
		__sync_fetch_and_add(&nr_missing, 1);
		return;
	}
	if (*st != stamp(&p)) {
		__sync_fetch_and_add(&nr_wrong, 1);
		return;
	}
	__sync_fetch_and_add(&nr_checked, 1);
	at = bpf_map_lookup_elem(&seen_at, &p);
	if (at && *at != addr) {
		__sync_fetch_and_add(&nr_moved_ok, 1);
		*at = addr;
	}
}

void CACHE_EXT_OP(stamp_removed, struct folio *folio, struct mem_cgroup *memcg)
{
	struct place p;

	place_of(folio, &p);
	bpf_map_delete_elem(&seen_at, &p);
}

void CACHE_EXT_OP(stamp_exit, struct mem_cgroup *memcg,
		  const struct cache_ext_exit_info *info)
{
	exit_reason = info->reason;
	bpf_probe_read_kernel_str(exit_msg, sizeof(exit_msg), info->msg);
	__sync_fetch_and_add(&nr_exits, 1);
}

void CACHE_EXT_OP(stamp_evict, struct cache_ext_eviction_ctx *req,
		  struct mem_cgroup *memcg)
{
	/* Past the request, as fifo: see kernel_listed.bpf.c. */
	cache_ext_propose_from(req, memcg, LIST,
			       req->nr_requested + CACHE_EXT_MAX_BATCH);
}

SEC(".struct_ops.link")
struct cache_ext_ops folio_stamp = {
	.init		= (void *)stamp_init,
	.exit		= (void *)stamp_exit,
	.folio_added	= (void *)stamp_added,
	.folio_accessed	= (void *)stamp_accessed,
	.folio_removed	= (void *)stamp_removed,
	.evict_folios	= (void *)stamp_evict,
	.name		= "folio_stamp",
};
