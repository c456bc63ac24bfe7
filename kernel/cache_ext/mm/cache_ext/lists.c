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
 * cache, while it iterates.  It takes a few folios per lock hold; one of
 * them may have left the page cache by the time it is yielded, which
 * the kfuncs given it find out.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/mm.h>

#include "internal.h"

/* Make list @id of @b empty.  Caller holds b->lock. */
static void list_init(struct cache_ext_binding *b, u32 id)
{
	struct cache_ext_node *head = reg_node(&b->registry,
					       list_head_index(id));

	head->next = list_head_index(id);
	head->prev = list_head_index(id);
	b->lists[id].nr = 0;
}

/**
 * cache_ext_node_unlink - take a folio's node off its list, if any
 * @b: the binding, locked
 * @idx: the node
 */
void cache_ext_node_unlink(struct cache_ext_binding *b, u32 idx)
{
	struct cache_ext_node *node = reg_node(&b->registry, idx);

	if (!node->list)
		return;
	node_remove(&b->registry, idx);
	b->lists[node->list - 1].nr--;
	node->list = 0;
}

/**
 * cache_ext_node_link - put a folio's node at one end of a list
 * @b: the binding, locked
 * @idx: the node, on no list
 * @id: an existing list of @b
 * @tail: true for the tail, false for the head
 */
void cache_ext_node_link(struct cache_ext_binding *b, u32 idx, u32 id,
			 bool tail)
{
	struct cache_ext_registry *reg = &b->registry;
	u32 head = list_head_index(id);

	node_insert_before(reg, idx, tail ? head : reg_node(reg, head)->next);
	b->lists[id].nr++;
	reg_node(reg, idx)->list = id + 1;
}

/**
 * cache_ext_walk_init - set up a walk of a list from its head
 * @w: the walk
 * @b: the binding
 * @list: an existing list of @b
 */
void cache_ext_walk_init(struct cache_ext_walk *w, struct cache_ext_binding *b,
			 u32 list)
{
	w->b = b;
	w->head = list_head_index(list);
	w->cursor = 0;
}

/**
 * cache_ext_walk_start - the first node of a walk's next piece
 * @w: the walk; the binding is locked
 *
 * Return: the node after the walk's cursor, or the list's first node.
 */
u32 cache_ext_walk_start(const struct cache_ext_walk *w)
{
	return reg_node(&w->b->registry, w->cursor ?: w->head)->next;
}

/**
 * cache_ext_walk_next - the node after another on a walk's list
 * @w: the walk; the binding is locked
 * @pos: a node on the list
 *
 * Return: the next node, the list's head after its last.
 */
u32 cache_ext_walk_next(const struct cache_ext_walk *w, u32 pos)
{
	return reg_node(&w->b->registry, pos)->next;
}

/**
 * cache_ext_walk_folio - the folio of a node a walk looks at
 * @w: the walk; the binding is locked
 * @pos: a node on the list
 *
 * Return: the folio, or NULL if @pos is another walk's cursor.
 */
struct folio *cache_ext_walk_folio(const struct cache_ext_walk *w, u32 pos)
{
	u64 pfn = node_pfn(reg_node(&w->b->registry, pos));

	return pfn == CACHE_EXT_NO_PFN ? NULL : pfn_folio(pfn);
}

/**
 * cache_ext_walk_park - stand before a node while the lock is dropped
 * @w: the walk; the binding is locked
 * @before: the node the next piece starts at (the head at the end)
 *
 * Return: true; false if the walk had no cursor and all
 * %CACHE_EXT_FIRST_FOLIO - %CACHE_EXT_FIRST_CURSOR are taken: it cannot
 * go on after the lock is dropped.
 */
bool cache_ext_walk_park(struct cache_ext_walk *w, u32 before)
{
	struct cache_ext_registry *reg = &w->b->registry;

	if (w->cursor)
		node_remove(reg, w->cursor);
	else
		w->cursor = cache_ext_cursor_get(w->b);
	if (!w->cursor)
		return false;
	node_insert_before(reg, w->cursor, before);
	return true;
}

/**
 * cache_ext_walk_end - end a walk, giving its cursor back
 * @w: the walk; the binding is locked
 */
void cache_ext_walk_end(struct cache_ext_walk *w)
{
	if (!w->cursor)
		return;
	node_remove(&w->b->registry, w->cursor);
	cache_ext_cursor_put(w->b, w->cursor);
	w->cursor = 0;
}

#define ITER_BATCH	8

/*
 * The kernel-side layout of struct bpf_iter_cache_ext_list.  The iterator
 * takes up to ITER_BATCH folios per lock hold, in @folios and @index, and
 * its walk's cursor stands after the last of them; @walk.b is NULL for an
 * iterator that yields nothing.
 */
struct cache_ext_list_iter {
	struct cache_ext_walk walk;
	u32 remaining;
	u8 nr;
	u8 pos;
	struct folio *folios[ITER_BATCH];
	u32 index[ITER_BATCH];
} __aligned(8);

/**
 * cache_ext_lists_ensure_first - create list 0 of a binding if it has none
 * @b: a binding being set up, after its init()
 */
void cache_ext_lists_ensure_first(struct cache_ext_binding *b)
{
	unsigned long flags;

	flags = cache_ext_lock_irqsave(b);
	if (!b->nr_lists) {
		b->nr_lists = 1;
		list_init(b, 0);
	}
	spin_unlock_irqrestore(&b->lock, flags);
}

/*
 * The insertion folio_added() is being told of, if it is @b's and its node
 * is not committed yet; else NULL.  folio_added() does not sleep: its call
 * is this CPU's running one, read here without cache_ext_current_call(),
 * since every list kfunc asks.
 */
static struct cache_ext_insert *pending_insert(struct cache_ext_binding *b)
{
	struct cache_ext_call *call;
	struct cache_ext_insert *ins;

	if (!in_task())
		return NULL;
	call = this_cpu_read(cache_ext_running);
	ins = call ? call->insert : NULL;
	if (!ins || ins->done || call->binding != b)
		return NULL;
	return ins;
}

/*
 * A kfunc about to walk or change @b's lists (not only the inserted
 * folio's place) commits the insertion folio_added() is told of first, so
 * that the policy sees the folio where it put it, as if it had been linked
 * at once.  Called without the binding's lock.  Returns the insertion if
 * it is @folio's and left pending, for the caller to record its place.
 */
static struct cache_ext_insert *insert_flush(struct cache_ext_binding *b,
					     struct folio *folio)
{
	struct cache_ext_insert *ins = pending_insert(b);

	if (!ins || ins->folio == folio)
		return ins;
	cache_ext_registry_commit(b, ins);
	return NULL;
}

/*
 * Make the moves queued in @m, whose lock the caller holds (interrupts
 * off), in one hold of @b's lock.  A move whose folio left its list or
 * the registry meanwhile (its node on no list, or naming another pfn) is
 * dropped, as a move asked for after that would have failed.
 */
static void moves_make(struct cache_ext_binding *b, struct cache_ext_moves *m,
		       int cpu)
{
	struct cache_ext_registry *reg = &b->registry;
	u32 i;

	lockdep_assert_held(&m->lock);
	if (!m->nr)
		return;
	cpumask_clear_cpu(cpu, &b->moves_cpus);
	cache_ext_lock(b);
	for (i = 0; i < m->nr; i++) {
		const struct cache_ext_move *mv = &m->move[i];
		struct cache_ext_node *node = reg_node(reg, mv->idx);

		if (!node_has_pfn(node, mv->pfn) || !node->list ||
		    mv->list >= b->nr_lists)
			continue;
		cache_ext_node_unlink(b, mv->idx);
		cache_ext_node_link(b, mv->idx, mv->list, mv->tail);
	}
	spin_unlock(&b->lock);
	m->nr = 0;
}

/* Make the moves CPU @cpu queued for @b, taking its queue's lock. */
static void moves_flush_cpu(struct cache_ext_binding *b, int cpu)
{
	struct cache_ext_moves *m = per_cpu_ptr(b->moves, cpu);
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	moves_make(b, m, cpu);
	spin_unlock_irqrestore(&m->lock, flags);
}

/**
 * cache_ext_moves_flush - make every CPU's queued hit moves of a binding
 * @b: the binding, not locked
 *
 * Before a walk or a size of @b's lists, so that the policy sees every
 * move a hit asked for before it, from any CPU.  Only the CPUs of
 * &cache_ext_binding.moves_cpus are looked at: with no move queued, a
 * few words of a cpumask are read.  A CPU whose bit is set meanwhile
 * queued its move after the walk began.
 */
void cache_ext_moves_flush(struct cache_ext_binding *b)
{
	int cpu;

	for_each_cpu(cpu, &b->moves_cpus)
		moves_flush_cpu(b, cpu);
}

/*
 * Before a list kfunc of this CPU's running callback changes @b's lists,
 * make the moves this CPU queued, so that the callbacks of one CPU see
 * their changes in the order they asked for them.  Outside a non-sleeping
 * callback (init(), exit()) this CPU may have queued moves for another
 * task's callbacks, which keep their order among themselves.
 */
static void moves_flush_local(struct cache_ext_binding *b)
{
	int cpu;

	if (!in_task() || !this_cpu_read(cache_ext_running))
		return;
	cpu = smp_processor_id();
	if (cpumask_test_cpu(cpu, &b->moves_cpus))
		moves_flush_cpu(b, cpu);
}

/*
 * A move of the folio a page cache hit hands the policy (its
 * folio_accessed() or folio_mapped_accessed() is running on this CPU,
 * and the hook found the folio's node): queued on this CPU and made with
 * the CPU's other queued moves in one hold of the binding's lock, so that
 * a policy that moves a folio on every hit (mru, get_scan) does not take
 * a lock shared by every CPU on every hit.  Returns true with *@ret set
 * if the move was queued or refused, false if it is not a hit's (or the
 * hook's node no longer names the folio: the locked path finds out).
 * Whether the folio is on a list is read without the lock, as a hint; the
 * move is checked again when it is made.
 */
static bool hit_move(struct cache_ext_binding *b, u32 id, struct folio *folio,
		     bool tail, int *ret)
{
	struct cache_ext_call *call;
	struct cache_ext_moves *m;
	unsigned long flags;
	u32 idx;

	if (!in_task())
		return false;
	call = this_cpu_read(cache_ext_running);
	if (!call || (call->cb != CACHE_EXT_T_ACCESSED &&
		      call->cb != CACHE_EXT_T_MAPPED))
		return false;
	idx = cache_ext_call_node(b, folio);
	if (!idx)
		return false;
	if (id >= READ_ONCE(b->nr_lists)) {
		*ret = -EINVAL;
		return true;
	}
	if (!node_read_once(reg_node(&b->registry, idx)).list) {
		*ret = -ENOENT;
		return true;
	}
	m = this_cpu_ptr(b->moves);
	spin_lock_irqsave(&m->lock, flags);
	/* The first move of an empty queue: one shared write per batch. */
	if (!m->nr)
		cpumask_set_cpu(smp_processor_id(), &b->moves_cpus);
	m->move[m->nr++] = (struct cache_ext_move) {
		.pfn = folio_pfn(folio),
		.idx = idx,
		.list = id,
		.tail = tail,
	};
	if (m->nr == CACHE_EXT_MOVE_BATCH)
		moves_make(b, m, smp_processor_id());
	spin_unlock_irqrestore(&m->lock, flags);
	*ret = 0;
	return true;
}

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

	flags = cache_ext_lock_irqsave(b);
	if (b->nr_lists < CACHE_EXT_MAX_LISTS) {
		id = b->nr_lists++;
		list_init(b, id);
	} else {
		id = -ENOSPC;
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return id;
}

/*
 * Common part of add and move: validate, then link @folio at the head or
 * tail of list @id.  @must_be_linked: true for move, false for add.  The
 * folio folio_added() is told of is not linked now but where its commit
 * will link it (&struct cache_ext_insert): no lock is taken.
 */
static int list_place(struct mem_cgroup *memcg, u32 id, struct folio *folio,
		      bool tail, bool must_be_linked)
{
	struct cache_ext_binding *b = cache_ext_kfunc_binding(memcg);
	struct cache_ext_insert *ins;
	unsigned long flags;
	int ret = 0;
	u32 idx;

	if (!b)
		return -EINVAL;
	if (must_be_linked && hit_move(b, id, folio, tail, &ret))
		return ret;
	ins = insert_flush(b, folio);
	if (ins) {
		if (id >= READ_ONCE(b->nr_lists))
			return -EINVAL;
		if (must_be_linked && ins->list < 0)
			return -ENOENT;
		if (!must_be_linked && ins->list >= 0)
			return -EEXIST;
		ins->list = id;
		ins->tail = tail;
		return 0;
	}

	moves_flush_local(b);
	flags = cache_ext_lock_irqsave(b);
	idx = cache_ext_registry_find(b, folio);
	if (id >= b->nr_lists)
		ret = -EINVAL;
	else if (!idx)
		ret = -ENOENT;
	else if (!!reg_node(&b->registry, idx)->list != must_be_linked)
		ret = must_be_linked ? -ENOENT : -EEXIST;
	if (!ret) {
		cache_ext_node_unlink(b, idx);
		cache_ext_node_link(b, idx, id, tail);
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
 * Called by folio_accessed() or folio_mapped_accessed() for the folio it
 * is told of, the move is queued on this CPU and made later, with up to
 * %CACHE_EXT_MOVE_BATCH - 1 others in one hold of the binding's lock: when
 * the queue is full, before this CPU's next list kfunc of the binding, and
 * before any iteration, proposal walk, rotation or size of its lists on
 * any CPU.  So a policy that moves a folio on every hit takes no lock
 * shared by every CPU on every hit, and sees every move when it looks.
 * An insertion on this CPU meanwhile may be linked before the moves.
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
	struct cache_ext_insert *ins;
	unsigned long flags;
	int ret = -ENOENT;
	u32 idx;

	if (!b)
		return -EINVAL;
	ins = insert_flush(b, folio);
	if (ins) {
		if (ins->list < 0)
			return -ENOENT;
		ins->list = -1;
		return 0;
	}

	moves_flush_local(b);
	flags = cache_ext_lock_irqsave(b);
	idx = cache_ext_registry_find(b, folio);
	if (idx && reg_node(&b->registry, idx)->list) {
		cache_ext_node_unlink(b, idx);
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
	struct cache_ext_insert *ins;

	if (!b || list >= READ_ONCE(b->nr_lists))
		return -EINVAL;
	cache_ext_moves_flush(b);
	/* With the folio folio_added() put on @list, not linked yet. */
	ins = pending_insert(b);
	return READ_ONCE(b->lists[list].nr) + (ins && ins->list == list);
}

/**
 * bpf_iter_cache_ext_list_new - start iterating a list from its head
 * @it: iterator state, on the BPF stack
 * @memcg: the binding's cgroup
 * @list: list id
 * @max: most folios to yield; at most %CACHE_EXT_ITER_MAX
 *
 * Return: 0; -EINVAL for an unknown @list or a @memcg not bound to the
 * calling policy; -EBUSY if the binding has %CACHE_EXT_FIRST_FOLIO -
 * %CACHE_EXT_FIRST_CURSOR iterations open already.  The iterator then
 * yields nothing.
 */
__bpf_kfunc int bpf_iter_cache_ext_list_new(struct bpf_iter_cache_ext_list *it,
					    struct mem_cgroup *memcg, u32 list,
					    u32 max)
{
	struct cache_ext_list_iter *kit = (void *)it;
	struct cache_ext_binding *b = cache_ext_kfunc_binding(memcg);
	unsigned long flags;
	bool parked;

	BUILD_BUG_ON(sizeof(*kit) > sizeof(*it));
	BUILD_BUG_ON(__alignof__(*kit) != __alignof__(*it));

	kit->walk.b = NULL;
	if (!b || list >= READ_ONCE(b->nr_lists))
		return -EINVAL;
	insert_flush(b, NULL);
	cache_ext_moves_flush(b);

	cache_ext_walk_init(&kit->walk, b, list);
	kit->remaining = min_t(u32, max, CACHE_EXT_ITER_MAX);
	kit->nr = 0;
	kit->pos = 0;
	flags = cache_ext_lock_irqsave(b);
	parked = cache_ext_walk_park(&kit->walk,
				     cache_ext_walk_start(&kit->walk));
	spin_unlock_irqrestore(&b->lock, flags);
	if (!parked) {
		kit->walk.b = NULL;
		return -EBUSY;
	}
	return 0;
}

/* Take the next folios after the cursor; false at the end of the list. */
static bool iter_refill(struct cache_ext_list_iter *kit)
{
	struct cache_ext_walk *w = &kit->walk;
	u32 want = min_t(u32, kit->remaining, ITER_BATCH), last = 0, pos;
	struct folio *folio;
	unsigned long flags;

	kit->nr = 0;
	kit->pos = 0;
	flags = cache_ext_lock_irqsave(w->b);
	for (pos = cache_ext_walk_start(w); pos != w->head;
	     pos = cache_ext_walk_next(w, pos)) {
		if (kit->nr >= want)
			break;
		folio = cache_ext_walk_folio(w, pos);
		if (!folio)
			continue;
		kit->folios[kit->nr] = folio;
		kit->index[kit->nr++] = pos;
		last = pos;
	}
	/* The walk has its cursor: parking it cannot fail. */
	if (last)
		cache_ext_walk_park(w, cache_ext_walk_next(w, last));
	spin_unlock_irqrestore(&w->b->lock, flags);
	return kit->nr;
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
	struct cache_ext_binding *b = kit->walk.b;
	struct cache_ext_call *call = cache_ext_current_call();
	struct folio *folio;
	u32 idx;

	if (!b || !kit->remaining)
		return NULL;
	/* A callback past its time budget gets no more work. */
	if (cache_ext_call_over_budget(call) ||
	    (kit->pos == kit->nr && !iter_refill(kit))) {
		kit->remaining = 0;
		return NULL;
	}

	folio = kit->folios[kit->pos];
	idx = kit->index[kit->pos++];
	kit->remaining--;
	if (call && call->binding == b) {
		call->sampled++;
		call->folio = folio;
		call->index = idx;
		call->data = reg_data(&b->registry, idx);
	}
	return folio;
}

/**
 * bpf_iter_cache_ext_list_destroy - end an iteration
 * @it: iterator state
 */
__bpf_kfunc void bpf_iter_cache_ext_list_destroy(struct bpf_iter_cache_ext_list *it)
{
	struct cache_ext_list_iter *kit = (void *)it;
	struct cache_ext_binding *b = kit->walk.b;
	unsigned long flags;

	if (!b)
		return;
	flags = cache_ext_lock_irqsave(b);
	cache_ext_walk_end(&kit->walk);
	spin_unlock_irqrestore(&b->lock, flags);
	kit->walk.b = NULL;
}

/**
 * bpf_cache_ext_list_rotate - move folios from the head of a list to its
 *	tail
 * @memcg: the binding's cgroup
 * @list: list id
 * @nr: how many folios
 *
 * What a sampling policy does with the folios it looked at, in one step
 * rather than one bpf_cache_ext_list_move() each.  Iterator cursors among
 * them move along.  At most as many folios as the list holds are moved,
 * %CACHE_EXT_WALK_BATCH nodes per hold of the binding's lock.
 *
 * Return: the number of folios moved, or -EINVAL for an unknown @list or
 * a @memcg not bound to the calling policy.
 */
__bpf_kfunc s64 bpf_cache_ext_list_rotate(struct mem_cgroup *memcg, u32 list,
					  u32 nr)
{
	struct cache_ext_binding *b = cache_ext_kfunc_binding(memcg);
	struct cache_ext_registry *reg;
	u32 head, first, last, pos, tail;
	struct cache_ext_walk w;
	unsigned long flags;
	s64 moved = 0;

	if (!b || list >= READ_ONCE(b->nr_lists))
		return -EINVAL;
	insert_flush(b, NULL);
	cache_ext_moves_flush(b);
	reg = &b->registry;
	/* Always from the head: each piece moves away from it. */
	cache_ext_walk_init(&w, b, list);
	head = w.head;
	nr = min_t(u32, nr, CACHE_EXT_ITER_MAX);

	/*
	 * CACHE_EXT_WALK_BATCH nodes per hold of the lock (interrupts are
	 * off meanwhile): each piece cut from the head goes after the tail.
	 * Moving every folio of the list changes nothing, so no more than
	 * the list held when the rotation began are moved.
	 */
	flags = cache_ext_lock_irqsave(b);
	nr = min_t(u32, nr, b->lists[list].nr);
	for (;;) {
		u32 piece = 0;

		first = cache_ext_walk_start(&w);
		/* @last: the last node to move; the walk stops before the head. */
		last = head;
		for (pos = cache_ext_walk_start(&w); pos != w.head;
		     pos = cache_ext_walk_next(&w, pos)) {
			if (moved >= nr || piece >= CACHE_EXT_WALK_BATCH)
				break;
			if (cache_ext_walk_folio(&w, pos))
				moved++;
			piece++;
			last = pos;
		}
		if (last == head || pos == head)
			break;
		/* Cut first..last out, then hang it after the tail. */
		tail = reg_node(reg, head)->prev;
		reg_node(reg, head)->next = pos;
		reg_node(reg, pos)->prev = head;
		reg_node(reg, tail)->next = first;
		reg_node(reg, first)->prev = tail;
		reg_node(reg, last)->next = head;
		reg_node(reg, head)->prev = last;
		if (moved >= nr)
			break;
		spin_unlock_irqrestore(&b->lock, flags);
		flags = cache_ext_lock_irqsave(b);
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return moved;
}

/**
 * bpf_cache_ext_folio_data - the policy's u32 of a folio
 * @folio: a tracked folio of the cgroup whose callback runs
 * @rdwr_buf_size: sizeof(u32); the verifier takes it as the size of the
 *	memory returned
 *
 * Every tracked folio has a u32 that only its policy uses, zero when the
 * folio is added, kept when migration replaces the folio.  The folio a
 * hook passes and the folio the iterator yielded last are found without a
 * lookup, any other by a lookup that takes no lock
 * (cache_ext_registry_lookup_rcu()); in folio_removed(), the pointer is to
 * a copy.  The pointer is
 * valid until the callback returns; a folio that leaves the page cache
 * meanwhile gives its u32 to the next folio added, so a write through a
 * stale pointer can only mislead the policy.
 *
 * Return: a pointer to the u32, or NULL if @folio is not tracked by the
 * binding whose callback runs or @rdwr_buf_size is not 4.
 */
__bpf_kfunc u32 *bpf_cache_ext_folio_data(struct folio *folio,
					  int rdwr_buf_size)
{
	struct cache_ext_call *call = cache_ext_current_call();
	struct cache_ext_binding *b;
	u32 idx;

	if (!call || rdwr_buf_size != sizeof(u32))
		return NULL;
	if (call->folio == folio)
		return call->data;
	b = call->binding;
	idx = cache_ext_registry_lookup_rcu(b, folio);
	if (!idx)
		return NULL;
	call->folio = folio;
	call->index = idx;
	call->data = reg_data(&b->registry, idx);
	return call->data;
}

/*
 * The node of @folio in the registry of the binding whose callback runs,
 * found without the lock, and that binding in *@b; -EINVAL outside a
 * callback, -ENOENT if the binding does not track @folio.
 */
static int current_folio_node(struct folio *folio,
			      struct cache_ext_binding **b)
{
	struct cache_ext_call *call = cache_ext_current_call();

	if (!call)
		return -EINVAL;
	*b = call->binding;
	return cache_ext_registry_find_rcu(*b, folio) ?: -ENOENT;
}

/**
 * bpf_cache_ext_folio_prefetched - did readahead bring a folio in ahead of use
 * @folio: a tracked folio of the cgroup whose callback runs
 *
 * A folio is prefetched from its insertion by readahead ahead of use
 * until its first access: a read or write (folio_mark_accessed()) or an
 * accessed bit reclaim or MGLRU finds in a page table.  Ahead of use means
 * that no caller waits for it: an asynchronous readahead's folios, and
 * those of a synchronous one beyond the pages its read asked for, or
 * around the page its fault needs (page_cache_ra_unbounded(),
 * page_cache_ra_order(), readahead_expand(); see ra_set_demand()).  The
 * %PG_readahead mark, which starts the next asynchronous readahead, is on
 * one folio of a window and says nothing more here.  Folios a read or
 * fault waits for, folios created by writes or by reads with readahead
 * off, and splits of folios that were not prefetched are never
 * prefetched.
 *
 * Return: 1 if @folio is prefetched, 0 if not, -ENOENT if it is not
 * tracked by the binding whose callback runs, -EINVAL outside a callback.
 */
__bpf_kfunc int bpf_cache_ext_folio_prefetched(struct folio *folio)
{
	struct cache_ext_binding *b;
	int idx = current_folio_node(folio, &b);

	if (idx < 0)
		return idx;
	return reg_test_prefetched(&b->registry, idx);
}

/**
 * bpf_cache_ext_folio_take_refs - the uses of a folio since the last look
 * @folio: a tracked folio of the cgroup whose callback runs
 *
 * For a policy with %CACHE_EXT_OPS_COUNT_REFS, the kernel counts every use
 * of a tracked folio that &cache_ext_ops.folio_accessed would be told of
 * (a read or write through a file descriptor, and an accessed bit found
 * in a page table unless the policy has &cache_ext_ops.folio_mapped_accessed),
 * from 0 at its insertion up to %CACHE_EXT_MAX_REFS, without a lock and
 * without calling the policy.  This returns the count and starts it again
 * at 0: the policy folds it into its own state where it looks at the
 * folio, typically in evict_folios(), as CLOCK reads and clears a
 * reference bit.  Migration keeps the count; a hit whose lockless lookup
 * races with a removal may go uncounted.  In folio_removed() the folio is
 * no longer tracked: take the count before proposing a folio.
 *
 * Return: the count (0 to %CACHE_EXT_MAX_REFS), -ENOENT if @folio is not
 * tracked by the binding whose callback runs, else -EOPNOTSUPP if its
 * policy does not have %CACHE_EXT_OPS_COUNT_REFS; -EINVAL outside a
 * callback.
 */
__bpf_kfunc int bpf_cache_ext_folio_take_refs(struct folio *folio)
{
	struct cache_ext_binding *b;
	int idx = current_folio_node(folio, &b);

	if (idx < 0)
		return idx;
	if (!b->count_refs)
		return -EOPNOTSUPP;
	return xchg(reg_refs(&b->registry, idx), 0);
}

__bpf_kfunc_end_defs();
