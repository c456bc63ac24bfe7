/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * The "cache_ext" generic netlink family of the cache_ext_ctl module.
 * See Documentation/netlink/specs/cache_ext.yaml.
 */
#ifndef _UAPI_LINUX_CACHE_EXT_NL_H
#define _UAPI_LINUX_CACHE_EXT_NL_H

#define CACHE_EXT_GENL_NAME		"cache_ext"
#define CACHE_EXT_GENL_VERSION		1
#define CACHE_EXT_GENL_MCGRP_EVENTS	"events"

enum cache_ext_nl_cmd {
	CACHE_EXT_CMD_UNSPEC,
	CACHE_EXT_CMD_POLICY_GET,	/* dump: registered policies */
	CACHE_EXT_CMD_BINDING_GET,	/* dump: bindings and counters */
	CACHE_EXT_CMD_BIND,		/* do: POLICY, CGROUP_ID */
	CACHE_EXT_CMD_UNBIND,		/* do: CGROUP_ID */
	CACHE_EXT_CMD_EVENT,		/* multicast on "events" */
	__CACHE_EXT_CMD_MAX,
};

#define CACHE_EXT_CMD_MAX (__CACHE_EXT_CMD_MAX - 1)

enum cache_ext_nl_attr {
	CACHE_EXT_A_UNSPEC,
	CACHE_EXT_A_POLICY,		/* string */
	CACHE_EXT_A_CGROUP_ID,		/* u64 */
	CACHE_EXT_A_EJECT_REASON,	/* u32, enum cache_ext_eject_reason */
	CACHE_EXT_A_EJECT_REASON_STR,	/* string */
	CACHE_EXT_A_NR_BINDINGS,	/* u32 */
	CACHE_EXT_A_EVENT,		/* u32, enum cache_ext_nl_event */
	CACHE_EXT_A_STATS,		/* nest of CACHE_EXT_A_STAT_* (u64) */
	CACHE_EXT_A_PAD,
	CACHE_EXT_A_EJECT_MSG,		/* string: what an ejected policy did */
	__CACHE_EXT_A_MAX,
};

#define CACHE_EXT_A_MAX (__CACHE_EXT_A_MAX - 1)

enum cache_ext_nl_stat {
	CACHE_EXT_A_STAT_UNSPEC,
	CACHE_EXT_A_STAT_EVICT_CALLS,
	CACHE_EXT_A_STAT_REQUESTED,
	CACHE_EXT_A_STAT_PROPOSED,
	CACHE_EXT_A_STAT_ACCEPTED,
	CACHE_EXT_A_STAT_REJECTED,
	CACHE_EXT_A_STAT_RECLAIMED,
	CACHE_EXT_A_STAT_FALLBACK,
	CACHE_EXT_A_STAT_ERRORS,
	CACHE_EXT_A_STAT_UNTRACKED,
	CACHE_EXT_A_STAT_NOT_ADMITTED,
	CACHE_EXT_A_STAT_TRACKED,
	CACHE_EXT_A_STAT_REGISTRY_BYTES,
	CACHE_EXT_A_STAT_PAD,
	CACHE_EXT_A_STAT_ACCESSES,
	CACHE_EXT_A_STAT_MISSES,
	CACHE_EXT_A_STAT_REFAULTS,
	CACHE_EXT_A_STAT_EVICT_BUSY,
	CACHE_EXT_A_STAT_MAPPED_ACCESSES,
	__CACHE_EXT_A_STAT_MAX,
};

#define CACHE_EXT_A_STAT_MAX (__CACHE_EXT_A_STAT_MAX - 1)

enum cache_ext_nl_event {
	CACHE_EXT_EV_REGISTERED,
	CACHE_EXT_EV_UNREGISTERED,
	CACHE_EXT_EV_BOUND,
	CACHE_EXT_EV_UNBOUND,
	CACHE_EXT_EV_EJECTED,
};

#endif /* _UAPI_LINUX_CACHE_EXT_NL_H */
