// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext eviction lists: the kfuncs a policy orders its folios with.
 *
 * Each binding owns up to CACHE_EXT_MAX_LISTS lists, created by the
 * policy's init() and numbered 0, 1, ... in creation order, so a policy
 * that creates its lists in the same order everywhere gets the same ids
 * in every cgroup.  A tracked folio is on at most one list at a time.
 *
 * Every kfunc names the binding by its memcg and the folio by pointer.
 * Both are validated before use: the memcg against the bindings of the
 * policy whose callback is running (cache_ext_kfunc_binding()), so that a
 * policy never reads or changes another policy's lists, and the folio
 * against the binding's registry.  The verifier only lets trusted
 * pointers through (KF_TRUSTED_ARGS): the callbacks' arguments and the
 * iterator's folios.  Misuse returns an error and changes nothing.
 *
 * The iterator yields folios from a list's head without holding the lock
 * between steps: a cursor node marks its place, so the policy may move,
 * delete or propose the current folio, and folios may leave the page
 * cache, while it iterates.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/mm.h>

#include "internal.h"

/* Caller holds b->lock. */
void cache_ext_node_unlink(struct cache_ext_binding *b,
			   struct cache_ext_node *node)
{
	struct cache_ext_list *list = node_list(b, node);

	if (!list)
		return;
	list_del_init(&node->link);
	list->nr--;
	node_set_list(node, 0);
}

static void node_link(struct cache_ext_binding *b, struct cache_ext_node *node,
		      u32 id, bool tail)
{
	struct cache_ext_list *list = &b->lists[id];

	if (tail)
		list_add_tail(&node->link, &list->head);
	else
		list_add(&node->link, &list->head);
	list->nr++;
	node_set_list(node, id + 1);
}

/* The kernel-side layout of struct bpf_iter_cache_ext_list. */
struct cache_ext_list_iter {
	struct cache_ext_node cursor;
	struct cache_ext_binding *binding;
	u32 list;
	u32 remaining;
} __aligned(8);

__bpf_kfunc_start_defs();

/**
 * bpf_cache_ext_list_create - create an eviction list for a binding
 * @memcg: the cgroup whose init() is running
 *
 * Only from init().
 *
 * Return: the new list's id, -EINVAL if @memcg is not the cgroup whose
 * init() is running, -ENOSPC after %CACHE_EXT_MAX_LISTS lists.
 */
__bpf_kfunc s32 bpf_cache_ext_list_create(struct mem_cgroup *memcg)
{
	struct cache_ext_binding *b = cache_ext_kfunc_binding(memcg);
	unsigned long flags;
	s32 id;

	if (!b || READ_ONCE(b->state) != CACHE_EXT_BINDING_INIT)
		return -EINVAL;

	spin_lock_irqsave(&b->lock, flags);
	if (b->nr_lists < CACHE_EXT_MAX_LISTS) {
		id = b->nr_lists++;
		INIT_LIST_HEAD(&b->lists[id].head);
		b->lists[id].nr = 0;
	} else {
		id = -ENOSPC;
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return id;
}

/*
 * Common part of add and move: validate, then link @folio at the head or
 * tail of list @id.  @must_be_linked: true for move, false for add.
 */
static int list_place(struct mem_cgroup *memcg, u32 id, struct folio *folio,
		      bool tail, bool must_be_linked)
{
	struct cache_ext_binding *b = cache_ext_kfunc_binding(memcg);
	struct cache_ext_node *node;
	unsigned long flags;
	int ret = 0;

	if (!b)
		return -EINVAL;

	spin_lock_irqsave(&b->lock, flags);
	node = cache_ext_registry_lookup(b, folio);
	if (id >= b->nr_lists)
		ret = -EINVAL;
	else if (!node)
		ret = -ENOENT;
	else if (!!node_list(b, node) != must_be_linked)
		ret = must_be_linked ? -ENOENT : -EEXIST;
	if (!ret) {
		cache_ext_node_unlink(b, node);
		node_link(b, node, id, tail);
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return ret;
}

/**
 * bpf_cache_ext_list_add - put a folio that is on no list onto a list
 * @memcg: the binding's cgroup
 * @list: list id
 * @folio: a tracked folio of @memcg
 * @tail: true to add at the tail, false at the head
 *
 * Return: 0; -EINVAL for an unknown @list or a @memcg not bound to the
 * calling policy; -ENOENT if @folio is not a tracked folio of @memcg;
 * -EEXIST if it is already on a list.
 */
__bpf_kfunc int bpf_cache_ext_list_add(struct mem_cgroup *memcg, u32 list,
				       struct folio *folio, bool tail)
{
	return list_place(memcg, list, folio, tail, false);
}

/**
 * bpf_cache_ext_list_move - move a folio to the head or tail of a list
 * @memcg: the binding's cgroup
 * @list: list id; the same list or another one
 * @folio: a tracked folio of @memcg that is on a list
 * @tail: true to move to the tail, false to the head
 *
 * Return: 0; -EINVAL for an unknown @list or a @memcg not bound to the
 * calling policy; -ENOENT if @folio is not tracked or on no list.
 */
__bpf_kfunc int bpf_cache_ext_list_move(struct mem_cgroup *memcg, u32 list,
					struct folio *folio, bool tail)
{
	return list_place(memcg, list, folio, tail, true);
}

/**
 * bpf_cache_ext_list_del - take a folio off its list
 * @memcg: the binding's cgroup
 * @folio: a tracked folio of @memcg that is on a list
 *
 * The folio stays tracked and can be added again.
 *
 * Return: 0; -EINVAL for a @memcg not bound to the calling policy;
 * -ENOENT if @folio is not tracked or on no list.
 */
__bpf_kfunc int bpf_cache_ext_list_del(struct mem_cgroup *memcg,
				       struct folio *folio)
{
	struct cache_ext_binding *b = cache_ext_kfunc_binding(memcg);
	struct cache_ext_node *node;
	unsigned long flags;
	int ret = -ENOENT;

	if (!b)
		return -EINVAL;

	spin_lock_irqsave(&b->lock, flags);
	node = cache_ext_registry_lookup(b, folio);
	if (node && node_list(b, node)) {
		cache_ext_node_unlink(b, node);
		ret = 0;
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return ret;
}

/**
 * bpf_cache_ext_list_size - number of folios on a list
 * @memcg: the binding's cgroup
 * @list: list id
 *
 * Return: the size, or -EINVAL for an unknown @list or a @memcg not
 * bound to the calling policy.
 */
__bpf_kfunc s64 bpf_cache_ext_list_size(struct mem_cgroup *memcg, u32 list)
{
	struct cache_ext_binding *b = cache_ext_kfunc_binding(memcg);

	if (!b || list >= READ_ONCE(b->nr_lists))
		return -EINVAL;
	return READ_ONCE(b->lists[list].nr);
}

/**
 * bpf_iter_cache_ext_list_new - start iterating a list from its head
 * @it: iterator state, on the BPF stack
 * @memcg: the binding's cgroup
 * @list: list id
 * @max: most folios to yield; at most %CACHE_EXT_ITER_MAX
 *
 * Return: 0, or -EINVAL for an unknown @list or a @memcg not bound to
 * the calling policy (the iterator then yields nothing).
 */
__bpf_kfunc int bpf_iter_cache_ext_list_new(struct bpf_iter_cache_ext_list *it,
					    struct mem_cgroup *memcg, u32 list,
					    u32 max)
{
	struct cache_ext_list_iter *kit = (void *)it;
	struct cache_ext_binding *b = cache_ext_kfunc_binding(memcg);
	unsigned long flags;

	BUILD_BUG_ON(sizeof(*kit) > sizeof(*it));
	BUILD_BUG_ON(__alignof__(*kit) != __alignof__(*it));

	kit->binding = NULL;
	if (!b || list >= READ_ONCE(b->nr_lists))
		return -EINVAL;

	kit->cursor.folio_tag = 0;
	kit->list = list;
	kit->remaining = min_t(u32, max, CACHE_EXT_ITER_MAX);
	spin_lock_irqsave(&b->lock, flags);
	list_add(&kit->cursor.link, &b->lists[list].head);
	spin_unlock_irqrestore(&b->lock, flags);
	kit->binding = b;
	return 0;
}

/**
 * bpf_iter_cache_ext_list_next - the next folio of the list
 * @it: iterator state
 *
 * Return: the folio after the previous one (or the head's first), or NULL
 * at the end of the list, after @max folios, or once the running callback
 * is past its time budget.  The folio may leave the
 * page cache at any time; kfuncs given it then return -ENOENT.
 */
__bpf_kfunc struct folio *
bpf_iter_cache_ext_list_next(struct bpf_iter_cache_ext_list *it)
{
	struct cache_ext_list_iter *kit = (void *)it;
	struct cache_ext_binding *b = kit->binding;
	struct folio *folio = NULL;
	struct list_head *head, *pos;
	unsigned long flags;

	if (!b || !kit->remaining)
		return NULL;
	/* A callback past its time budget gets no more work. */
	if (cache_ext_call_over_budget()) {
		kit->remaining = 0;
		return NULL;
	}

	spin_lock_irqsave(&b->lock, flags);
	head = &b->lists[kit->list].head;
	for (pos = kit->cursor.link.next; pos != head; pos = pos->next) {
		struct cache_ext_node *node =
			list_entry(pos, struct cache_ext_node, link);

		/* Skip the cursors of other iterators. */
		if (node->folio_tag) {
			folio = node_folio(node);
			list_move(&kit->cursor.link, pos);
			kit->remaining--;
			break;
		}
	}
	if (!folio)
		kit->remaining = 0;
	spin_unlock_irqrestore(&b->lock, flags);
	return folio;
}

/**
 * bpf_iter_cache_ext_list_destroy - end an iteration
 * @it: iterator state
 */
__bpf_kfunc void bpf_iter_cache_ext_list_destroy(struct bpf_iter_cache_ext_list *it)
{
	struct cache_ext_list_iter *kit = (void *)it;
	struct cache_ext_binding *b = kit->binding;
	unsigned long flags;

	if (!b)
		return;
	spin_lock_irqsave(&b->lock, flags);
	list_del(&kit->cursor.link);
	spin_unlock_irqrestore(&b->lock, flags);
	kit->binding = NULL;
}

__bpf_kfunc_end_defs();
