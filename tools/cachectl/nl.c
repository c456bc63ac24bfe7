// SPDX-License-Identifier: GPL-2.0
/* The "cache_ext" generic netlink family, through libmnl. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/genetlink.h>

#include "cachectl.h"
#include "nl.h"

/* Large enough for any dump batch the kernel sends (it uses 32 KiB at most). */
static char msg_buf[64 * 1024];

static struct nlmsghdr *put_request(struct nl *nl, uint16_t type,
				    uint16_t flags, uint8_t cmd,
				    uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(msg_buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

/* Sends @nlh and runs the replies through @cb until the ack or done. */
static int transact(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		    void *data)
{
	unsigned int portid = mnl_socket_get_portid(nl->sock);
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl->sock, msg_buf, sizeof(msg_buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(msg_buf, n, nlh->nlmsg_seq, portid, cb, data);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

/* ---- resolving the family ---- */

static int mcgrp_cb(const struct nlattr *grp, struct nl *nl)
{
	const struct nlattr *a, *id = NULL, *name = NULL;

	mnl_attr_for_each_nested(a, grp) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID)
			id = a;
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME)
			name = a;
	}
	if (id && name &&
	    !strcmp(mnl_attr_get_str(name), CACHE_EXT_GENL_MCGRP_EVENTS))
		nl->events_group = mnl_attr_get_u32(id);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl *nl = data;
	const struct nlattr *a, *grp;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			nl->family = mnl_attr_get_u16(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			mnl_attr_for_each_nested(grp, a)
				mcgrp_cb(grp, nl);
			break;
		}
	}
	return MNL_CB_OK;
}

int nl_open(struct nl *nl)
{
	struct nlmsghdr *nlh;
	int ret;

	memset(nl, 0, sizeof(*nl));
	nl->seq = time(NULL);
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock)
		return -errno;
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto fail;
	}
	nlh = put_request(nl, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, CACHE_EXT_GENL_NAME);
	ret = transact(nl, nlh, family_cb, nl);
	if (!ret && !nl->family)
		ret = -ENOENT;
	if (!ret)
		return 0;
fail:
	mnl_socket_close(nl->sock);
	nl->sock = NULL;
	return ret;
}

void nl_close(struct nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}

/* ---- messages of the family ---- */

struct msg_ctx {
	nl_msg_fn fn;
	void *data;
	int stop;
};

static int stat_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type <= CACHE_EXT_A_STAT_MAX &&
	    mnl_attr_validate(a, MNL_TYPE_U64) >= 0)
		tb[type] = a;
	return MNL_CB_OK;
}

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type <= CACHE_EXT_A_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

static int family_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct msg_ctx *c = data;
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct nl_msg msg;

	memset(&msg, 0, sizeof(msg));
	msg.cmd = g->cmd;
	mnl_attr_parse(nlh, sizeof(*g), attr_cb, msg.tb);
	if (msg.tb[CACHE_EXT_A_STATS])
		mnl_attr_parse_nested(msg.tb[CACHE_EXT_A_STATS], stat_attr_cb,
				      msg.stats);
	if (c->fn(&msg, c->data)) {
		c->stop = 1;
		return MNL_CB_STOP;
	}
	return MNL_CB_OK;
}

int nl_dump(struct nl *nl, uint8_t cmd, nl_msg_fn fn, void *data)
{
	struct msg_ctx c = { fn, data, 0 };
	struct nlmsghdr *nlh;

	nlh = put_request(nl, nl->family, NLM_F_DUMP, cmd,
			  CACHE_EXT_GENL_VERSION);
	return transact(nl, nlh, family_msg_cb, &c);
}

int nl_bind(struct nl *nl, const char *policy, uint64_t cgroup_id)
{
	struct nlmsghdr *nlh;

	nlh = put_request(nl, nl->family, NLM_F_ACK,
			  policy ? CACHE_EXT_CMD_BIND : CACHE_EXT_CMD_UNBIND,
			  CACHE_EXT_GENL_VERSION);
	if (policy)
		mnl_attr_put_strz(nlh, CACHE_EXT_A_POLICY, policy);
	mnl_attr_put_u64(nlh, CACHE_EXT_A_CGROUP_ID, cgroup_id);
	/* Only the ack matters: mnl_cb_run() takes errors without a callback. */
	return transact(nl, nlh, NULL, NULL);
}

int nl_join_events(struct nl *nl)
{
	unsigned int group = nl->events_group;

	if (!group)
		return -ENOENT;
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP, &group,
				  sizeof(group)) < 0)
		return -errno;
	return 0;
}

int nl_monitor(struct nl *nl, nl_msg_fn fn, void *data)
{
	struct msg_ctx c = { fn, data, 0 };
	ssize_t n;
	int ret;

	while (!c.stop) {
		n = mnl_socket_recvfrom(nl->sock, msg_buf, sizeof(msg_buf));
		if (n < 0)
			return errno == EINTR ? 0 : -errno;
		ret = mnl_cb_run(msg_buf, n, 0, 0, family_msg_cb, &c);
		if (ret < 0)
			return -errno;
	}
	return 0;
}

const char *nl_event_name(uint32_t event)
{
	static const char *const names[] = {
		[CACHE_EXT_EV_REGISTERED]	= "registered",
		[CACHE_EXT_EV_UNREGISTERED]	= "unregistered",
		[CACHE_EXT_EV_BOUND]		= "bound",
		[CACHE_EXT_EV_UNBOUND]		= "unbound",
		[CACHE_EXT_EV_EJECTED]		= "ejected",
	};

	return event < sizeof(names) / sizeof(names[0]) && names[event] ?
	       names[event] : "unknown";
}

const char *nl_stat_name(unsigned int stat)
{
	/* In attribute order, as the enum is made. */
	static const char *const names[] = {
		NULL,		/* CACHE_EXT_A_STAT_UNSPEC */
#define CACHE_EXT_STAT(ATTR, field) #field,
#define CACHE_EXT_STAT_PAD(...) NULL,
#include "cache_ext_nl_stats.h"
#undef CACHE_EXT_STAT
#undef CACHE_EXT_STAT_PAD
	};

	return stat < sizeof(names) / sizeof(names[0]) ? names[stat] : NULL;
}

uint64_t nl_stat_u64(const struct nl_msg *msg, unsigned int stat)
{
	return msg->stats[stat] ? mnl_attr_get_u64(msg->stats[stat]) : 0;
}

void effect_of(const struct nl_msg *msg, struct effect *e)
{
	e->accesses = nl_stat_u64(msg, CACHE_EXT_A_STAT_ACCESSES);
	e->misses = nl_stat_u64(msg, CACHE_EXT_A_STAT_MISSES);
	e->refaults = nl_stat_u64(msg, CACHE_EXT_A_STAT_REFAULTS);
}

const char *nl_attr_str(const struct nl_msg *msg, int type)
{
	return msg->tb[type] ? mnl_attr_get_str(msg->tb[type]) : "?";
}

uint64_t nl_attr_u64(const struct nl_msg *msg, int type)
{
	return msg->tb[type] ? mnl_attr_get_u64(msg->tb[type]) : 0;
}

int open_family(struct nl *nl)
{
	int ret;

	if (need_module())
		return -ENOENT;
	ret = nl_open(nl);
	if (ret)
		ctl_warn("the cache_ext netlink family is not available: %s (is %s loaded? see dmesg)",
			 strerror(-ret), CTL_MODULE);
	return ret;
}
