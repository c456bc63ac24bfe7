/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cache_ext offers its control module, cache_ext_ctl (mm/cache_ext/ctl/):
 * binding and unbinding by name, killing a policy, walks over policies
 * and bindings with their counters, and a notifier chain of what happens
 * to them.  Exported in the CACHE_EXT symbol namespace, for that module.
 */
#ifndef _MM_CACHE_EXT_CTL_H
#define _MM_CACHE_EXT_CTL_H

#include <linux/cache_ext.h>
#include <linux/types.h>

struct notifier_block;

/**
 * struct cache_ext_stats_snapshot - counters of one binding, as read
 * @evict_calls: evict_folios() calls
 * @requested: folios reclaim asked the policy for
 * @proposed: candidates the policy proposed (scored ones included)
 * @accepted: candidates the kernel took for reclaim
 * @rejected: candidates it could not take (busy, gone, unevictable)
 * @reclaimed: pages reclaimed from the accepted candidates
 * @fallback: file pages the kernel's own LRU reclaimed from the cgroup
 * @errors: invalid, foreign or duplicate candidates
 * @untracked: folios that could not be registered (no memory)
 * @not_admitted: folios dropped after a read because admit_folio() said no
 * @tracked: folios the binding tracks now
 * @registry_bytes: memory of the binding's registry now
 * @accesses: reads of the cgroup's cached folios (folio_mark_accessed())
 * @misses: folios reads inserted into the cgroup's page cache
 * @refaults: misses on folios the cgroup had evicted
 * @evict_busy: reclaim batches the kernel's LRU chose because another
 *	reclaimer of the cgroup was asking the policy at that moment
 * @mapped_accesses: accesses through page tables reported to the policy
 * @prefetched: of @misses, folios readahead inserted ahead of use
 * @prefetch_evicted: of those, folios reclaim evicted before any access
 *	(one whose accessed bit reclaim found was accessed)
 * @prefetch_refaults: of those, folios read in again (a lower bound: the
 *	last 1,024 or so are remembered)
 * @lock_holds: acquisitions of the binding's lock: insertions, removals,
 *	list kfuncs, eviction; a page cache hit only if its policy moves
 *	the folio, once per batch of such moves
 */
struct cache_ext_stats_snapshot {
	u64 evict_calls;
	u64 requested;
	u64 proposed;
	u64 accepted;
	u64 rejected;
	u64 reclaimed;
	u64 fallback;
	u64 errors;
	u64 untracked;
	u64 not_admitted;
	u64 tracked;
	u64 registry_bytes;
	u64 accesses;
	u64 misses;
	u64 refaults;
	u64 evict_busy;
	u64 mapped_accesses;
	u64 prefetched;
	u64 prefetch_evicted;
	u64 prefetch_refaults;
	u64 lock_holds;
};

/**
 * struct cache_ext_binding_info - one binding, as reported
 * @policy: the policy's name
 * @cgroup_id: the bound cgroup's id
 * @stats: its counters
 */
struct cache_ext_binding_info {
	char policy[CACHE_EXT_NAME_LEN];
	u64 cgroup_id;
	struct cache_ext_stats_snapshot stats;
};

/**
 * struct cache_ext_policy_info - one registered policy, as reported
 * @name: its name
 * @eject_reason: why it was ejected, or %CACHE_EXT_EJECT_NONE
 * @nr_bindings: cgroups it is bound to
 */
struct cache_ext_policy_info {
	char name[CACHE_EXT_NAME_LEN];
	enum cache_ext_eject_reason eject_reason;
	u32 nr_bindings;
};

/**
 * enum cache_ext_event_type - what cache_ext tells its notifier chain
 * @CACHE_EXT_EVENT_REGISTERED: a policy was registered
 * @CACHE_EXT_EVENT_UNREGISTERED: a policy was unregistered
 * @CACHE_EXT_EVENT_BOUND: a policy was bound to a cgroup
 * @CACHE_EXT_EVENT_UNBOUND: a binding ended
 * @CACHE_EXT_EVENT_EJECTED: a policy was ejected (its bindings then end)
 */
enum cache_ext_event_type {
	CACHE_EXT_EVENT_REGISTERED,
	CACHE_EXT_EVENT_UNREGISTERED,
	CACHE_EXT_EVENT_BOUND,
	CACHE_EXT_EVENT_UNBOUND,
	CACHE_EXT_EVENT_EJECTED,
};

/**
 * struct cache_ext_event - the data of a notifier call
 * @policy: the policy's name
 * @cgroup_id: the cgroup, for BOUND and UNBOUND; 0 otherwise
 * @reason: the reason, for EJECTED
 * @msg: for EJECTED, what the policy did (&cache_ext_exit_info.msg);
 *	NULL otherwise
 */
struct cache_ext_event {
	const char *policy;
	u64 cgroup_id;
	enum cache_ext_eject_reason reason;
	const char *msg;
};

/* Callbacks of cache_ext_walk_policies() and cache_ext_walk_bindings(). */
typedef int (*cache_ext_policy_fn)(const struct cache_ext_policy_info *info,
				   void *data);
typedef int (*cache_ext_binding_fn)(const struct cache_ext_binding_info *info,
				    void *data);

int cache_ext_bind(const char *policy, u64 cgroup_id);
int cache_ext_unbind(u64 cgroup_id);
int cache_ext_kill(const char *policy);
int cache_ext_walk_policies(cache_ext_policy_fn fn, void *data);
int cache_ext_walk_bindings(const char *policy, cache_ext_binding_fn fn,
			    void *data);
const char *cache_ext_eject_reason_str(enum cache_ext_eject_reason reason);
int cache_ext_register_notifier(struct notifier_block *nb);
int cache_ext_unregister_notifier(struct notifier_block *nb);

#endif /* _MM_CACHE_EXT_CTL_H */
