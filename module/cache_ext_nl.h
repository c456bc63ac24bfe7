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

/* The counters' attributes, made from cache_ext_nl_stats.h. */
enum cache_ext_nl_stat {
	CACHE_EXT_A_STAT_UNSPEC,
#define CACHE_EXT_STAT(ATTR, ...) CACHE_EXT_A_STAT_##ATTR,
#define CACHE_EXT_STAT_PAD(ATTR) CACHE_EXT_A_STAT_##ATTR,
#include "cache_ext_nl_stats.h"
#undef CACHE_EXT_STAT
#undef CACHE_EXT_STAT_PAD
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
