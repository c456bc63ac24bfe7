/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cache_ext

#if !defined(_TRACE_CACHE_EXT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_CACHE_EXT_H

#include <linux/tracepoint.h>

/* A policy was bound to a memory cgroup (its init() succeeded). */
TRACE_EVENT(cache_ext_bind,
	    TP_PROTO(const char *policy, u64 cgroup_id),
	    TP_ARGS(policy, cgroup_id),
	    TP_STRUCT__entry(__string(policy, policy)
			     __field(u64, cgroup_id)),
	    TP_fast_assign(__assign_str(policy);
			   __entry->cgroup_id = cgroup_id;),
	    TP_printk("policy=%s cgroup=%llu", __get_str(policy),
		      __entry->cgroup_id)
);

/*
 * A binding ended; the cgroup is back on the kernel's LRU.  @tracked is
 * the number of folios the binding still tracked and @bytes the memory
 * its registry used for them, @live the number of registry entries left
 * in the whole system once they were freed.
 */
TRACE_EVENT(cache_ext_unbind,
	    TP_PROTO(const char *policy, u64 cgroup_id, long tracked,
		     long bytes, long live),
	    TP_ARGS(policy, cgroup_id, tracked, bytes, live),
	    TP_STRUCT__entry(__string(policy, policy)
			     __field(u64, cgroup_id)
			     __field(long, tracked)
			     __field(long, bytes)
			     __field(long, live)),
	    TP_fast_assign(__assign_str(policy);
			   __entry->cgroup_id = cgroup_id;
			   __entry->tracked = tracked;
			   __entry->bytes = bytes;
			   __entry->live = live;),
	    TP_printk("policy=%s cgroup=%llu tracked=%ld bytes=%ld live=%ld",
		      __get_str(policy), __entry->cgroup_id, __entry->tracked,
		      __entry->bytes, __entry->live)
);

/* A policy was ejected from all its bindings. */
TRACE_EVENT(cache_ext_eject,
	    TP_PROTO(const char *policy, int reason, const char *reason_str),
	    TP_ARGS(policy, reason, reason_str),
	    TP_STRUCT__entry(__string(policy, policy)
			     __field(int, reason)
			     __string(reason_str, reason_str)),
	    TP_fast_assign(__assign_str(policy);
			   __entry->reason = reason;
			   __assign_str(reason_str);),
	    TP_printk("policy=%s reason=%d (%s)", __get_str(policy),
		      __entry->reason, __get_str(reason_str))
);

/*
 * One evict_folios() request: how many folios reclaim asked for, how many
 * the policy proposed, how many the kernel could isolate, how many pages it
 * reclaimed from them, how long the policy took to decide, and how many
 * folios the list iterator showed it meanwhile.
 */
TRACE_EVENT(cache_ext_evict,
	    TP_PROTO(u64 cgroup_id, u32 requested, u32 proposed, u32 accepted,
		     u32 reclaimed, u64 duration_ns, u32 sampled),
	    TP_ARGS(cgroup_id, requested, proposed, accepted, reclaimed,
		    duration_ns, sampled),
	    TP_STRUCT__entry(__field(u64, cgroup_id)
			     __field(u32, requested)
			     __field(u32, proposed)
			     __field(u32, accepted)
			     __field(u32, reclaimed)
			     __field(u64, duration_ns)
			     __field(u32, sampled)),
	    TP_fast_assign(__entry->cgroup_id = cgroup_id;
			   __entry->requested = requested;
			   __entry->proposed = proposed;
			   __entry->accepted = accepted;
			   __entry->reclaimed = reclaimed;
			   __entry->duration_ns = duration_ns;
			   __entry->sampled = sampled;),
	    TP_printk("cgroup=%llu requested=%u proposed=%u accepted=%u reclaimed=%u duration_ns=%llu sampled=%u",
		      __entry->cgroup_id, __entry->requested,
		      __entry->proposed, __entry->accepted,
		      __entry->reclaimed, __entry->duration_ns,
		      __entry->sampled)
);

/* The kernel's own LRU reclaimed pages of a bound cgroup (fallback). */
TRACE_EVENT(cache_ext_fallback,
	    TP_PROTO(u64 cgroup_id, unsigned long nr_reclaimed),
	    TP_ARGS(cgroup_id, nr_reclaimed),
	    TP_STRUCT__entry(__field(u64, cgroup_id)
			     __field(unsigned long, nr_reclaimed)),
	    TP_fast_assign(__entry->cgroup_id = cgroup_id;
			   __entry->nr_reclaimed = nr_reclaimed;),
	    TP_printk("cgroup=%llu reclaimed=%lu", __entry->cgroup_id,
		      __entry->nr_reclaimed)
);

#endif /* _TRACE_CACHE_EXT_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
