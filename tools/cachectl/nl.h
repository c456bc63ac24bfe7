/* SPDX-License-Identifier: GPL-2.0 */
/* The "cache_ext" generic netlink family, through libmnl. */
#ifndef CACHECTL_NL_H
#define CACHECTL_NL_H

#include <stdint.h>

#include <libmnl/libmnl.h>

#include "cache_ext_nl.h"
#include "effect.h"

struct nl {
	struct mnl_socket *sock;
	uint16_t family;
	uint32_t events_group;
	uint32_t seq;
};

/* Attributes of one message, indexed by type. */
struct nl_msg {
	uint8_t cmd;
	const struct nlattr *tb[CACHE_EXT_A_MAX + 1];
	const struct nlattr *stats[CACHE_EXT_A_STAT_MAX + 1];
};

/* Called for every message of a dump or of the event group. */
typedef int (*nl_msg_fn)(const struct nl_msg *msg, void *data);

/* Attribute @type (CACHE_EXT_A_*) of a message: "?" or 0 if absent. */
const char *nl_attr_str(const struct nl_msg *msg, int type);
uint64_t nl_attr_u64(const struct nl_msg *msg, int type);

/* Counter @stat (CACHE_EXT_A_STAT_*) of a binding message, 0 if absent. */
uint64_t nl_stat_u64(const struct nl_msg *msg, unsigned int stat);

/* A binding message's struct effect (effect.h). */
void effect_of(const struct nl_msg *msg, struct effect *e);

/*
 * Opens the family, loading the module if needed (need_module()); prints
 * what is wrong.  0 or -errno.
 */
int open_family(struct nl *nl);

/* Opens a socket and resolves the family; -ENOENT if it is not there. */
int nl_open(struct nl *nl);
void nl_close(struct nl *nl);

/* Dumps @cmd (POLICY_GET or BINDING_GET); 0 or -errno. */
int nl_dump(struct nl *nl, uint8_t cmd, nl_msg_fn fn, void *data);

/* BIND @policy to @cgroup_id, or UNBIND (@policy NULL); 0 or -errno. */
int nl_bind(struct nl *nl, const char *policy, uint64_t cgroup_id);

/* Joins the events group; 0 or -errno. */
int nl_join_events(struct nl *nl);

/*
 * Calls @fn for every event received until @fn returns non-zero or a
 * signal interrupts; 0 or -errno.
 */
int nl_monitor(struct nl *nl, nl_msg_fn fn, void *data);

/* The names of the UAPI's events and counters. */
const char *nl_event_name(uint32_t event);
const char *nl_stat_name(unsigned int stat);

#endif /* CACHECTL_NL_H */
