// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext folio registry: for every binding, the folios of its cgroup
 * that the policy may name, each mapped to its &struct cache_ext_node.
 *
 * The registry is what makes a folio pointer from BPF safe to act on: a
 * pointer the policy hands back is looked up, never dereferenced, until
 * it is found here.  A folio enters in the insertion hook and leaves in
 * the removal hook, so the registry holds exactly the bound cgroup's
 * cached file folios and its memory is proportional to them (32 bytes
 * per folio plus the hash table's buckets).
 *
 * All lookups and changes happen under &cache_ext_binding.lock, so a node
 * found is stable until the lock is dropped and can be freed at once.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>

#include "internal.h"

static struct kmem_cache *node_cache;

/* Registry entries alive in the system, for leak checks. */
static atomic_long_t nr_live_nodes = ATOMIC_LONG_INIT(0);

/**
 * cache_ext_registry_live - number of registry entries in the system
 *
 * Return: the count; zero when no binding tracks anything.
 */
long cache_ext_registry_live(void)
{
	return atomic_long_read(&nr_live_nodes);
}

/**
 * cache_ext_registry_bytes - memory a binding's registry uses
 * @binding: the binding
 *
 * Return: bytes of nodes plus the hash table's bucket array.
 */
long cache_ext_registry_bytes(struct cache_ext_binding *binding)
{
	const struct bucket_table *tbl;
	long bytes;

	rcu_read_lock();
	tbl = rcu_dereference(binding->registry.tbl);
	bytes = tbl->size * sizeof(tbl->buckets[0]);
	rcu_read_unlock();
	return bytes + cache_ext_registry_size(binding) *
		       (long)sizeof(struct cache_ext_node);
}

/**
 * cache_ext_registry_size - number of folios a binding tracks
 * @binding: the binding
 *
 * Return: the count.
 */
long cache_ext_registry_size(struct cache_ext_binding *binding)
{
	return atomic_read(&binding->registry.nelems);
}

static u32 registry_hash(const void *data, u32 len, u32 seed)
{
	return jhash(data, len, seed);
}

static u32 registry_obj_hash(const void *data, u32 len, u32 seed)
{
	const struct cache_ext_node *node = data;
	unsigned long folio = (unsigned long)node_folio(node);

	return jhash(&folio, sizeof(folio), seed);
}

static int registry_cmp(struct rhashtable_compare_arg *arg, const void *obj)
{
	const struct folio *const *key = arg->key;

	return node_folio(obj) != *key;
}

static const struct rhashtable_params registry_params = {
	.head_offset		= offsetof(struct cache_ext_node, hash),
	.key_len		= sizeof(struct folio *),
	.hashfn			= registry_hash,
	.obj_hashfn		= registry_obj_hash,
	.obj_cmpfn		= registry_cmp,
	.automatic_shrinking	= true,
};

int cache_ext_registry_init(struct cache_ext_binding *binding)
{
	return rhashtable_init(&binding->registry, &registry_params);
}

static void free_node(void *ptr, void *arg)
{
	cache_ext_node_free(ptr);
}

/* After the last hook for the binding has returned. */
void cache_ext_registry_destroy(struct cache_ext_binding *binding)
{
	rhashtable_free_and_destroy(&binding->registry, free_node, NULL);
}

/**
 * cache_ext_registry_lookup - find the node of a folio of this binding
 * @b: the binding, locked
 * @folio: any value; it is only compared, never dereferenced
 *
 * Return: the node, or NULL if @folio is not a tracked folio of @b.
 */
struct cache_ext_node *cache_ext_registry_lookup(struct cache_ext_binding *b,
						 const struct folio *folio)
{
	lockdep_assert_held(&b->lock);
	return rhashtable_lookup_fast(&b->registry, &folio, registry_params);
}

/**
 * cache_ext_node_alloc - allocate a node for cache_ext_registry_add()
 * @gfp: allocation context
 *
 * Return: the node, or NULL.
 */
struct cache_ext_node *cache_ext_node_alloc(gfp_t gfp)
{
	struct cache_ext_node *node;

	node = kmem_cache_alloc(node_cache, gfp | __GFP_NOWARN);
	if (node)
		atomic_long_inc(&nr_live_nodes);
	return node;
}

/**
 * cache_ext_node_free - free a node that was not added
 * @node: the node
 */
void cache_ext_node_free(struct cache_ext_node *node)
{
	kmem_cache_free(node_cache, node);
	atomic_long_dec(&nr_live_nodes);
}

/**
 * cache_ext_registry_add - start tracking a folio
 * @binding: binding of the folio's cgroup
 * @node: from cache_ext_node_alloc(); owned by the registry on success
 * @folio: a folio just inserted into the page cache, locked
 * @admitted: false to drop the folio after the read that brought it in
 *
 * Return: 0, or an error from rhashtable_lookup_insert_key().
 */
int cache_ext_registry_add(struct cache_ext_binding *binding,
			   struct cache_ext_node *node, struct folio *folio,
			   bool admitted)
{
	unsigned long flags;
	int ret;

	INIT_LIST_HEAD(&node->link);
	node->folio_tag = (unsigned long)folio;
	if (!admitted)
		node->folio_tag |= CACHE_EXT_NODE_NOADMIT;

	spin_lock_irqsave(&binding->lock, flags);
	ret = rhashtable_lookup_insert_key(&binding->registry, &folio,
					   &node->hash, registry_params);
	spin_unlock_irqrestore(&binding->lock, flags);
	return ret;
}

/**
 * cache_ext_registry_remove - stop tracking a folio
 * @binding: binding of the folio's cgroup, locked
 * @folio: the folio leaving the page cache
 *
 * Takes the folio off its list, if any.
 * Return: true if the folio was tracked.
 */
bool cache_ext_registry_remove(struct cache_ext_binding *binding,
			       struct folio *folio)
{
	struct cache_ext_node *node;

	node = cache_ext_registry_lookup(binding, folio);
	if (!node)
		return false;
	cache_ext_node_unlink(binding, node);
	rhashtable_remove_fast(&binding->registry, &node->hash,
			       registry_params);
	cache_ext_node_free(node);
	return true;
}

/**
 * cache_ext_registry_rekey - a tracked folio was replaced by a copy
 * @binding: binding of the folios' cgroup, locked
 * @old: the folio leaving the page cache
 * @new: the folio taking its place
 *
 * The entry, its place on its list and its flags move to @new.  If @new
 * cannot be inserted, @old's entry is dropped and @new is not tracked.
 */
void cache_ext_registry_rekey(struct cache_ext_binding *binding,
			      struct folio *old, struct folio *new)
{
	struct cache_ext_node *node;

	node = cache_ext_registry_lookup(binding, old);
	if (!node)
		return;
	rhashtable_remove_fast(&binding->registry, &node->hash,
			       registry_params);
	node->folio_tag = (unsigned long)new |
			  (node->folio_tag & CACHE_EXT_NODE_TAGS);
	if (rhashtable_lookup_insert_key(&binding->registry, &new, &node->hash,
					 registry_params)) {
		cache_ext_node_unlink(binding, node);
		cache_ext_node_free(node);
	}
}

int __init cache_ext_registry_setup(void)
{
	/* The list id and admission flag live in the folio pointer. */
	BUILD_BUG_ON(__alignof__(struct folio) <= CACHE_EXT_NODE_TAGS);
	BUILD_BUG_ON(CACHE_EXT_MAX_LISTS > CACHE_EXT_NODE_LIST);

	node_cache = KMEM_CACHE(cache_ext_node, 0);
	return node_cache ? 0 : -ENOMEM;
}
