// SPDX-License-Identifier: GPL-2.0
/*
 * cache_ext_ctl: the "cache_ext" generic netlink family.
 *
 * Dumps of policies and of bindings with their counters, bind and unbind
 * (CAP_NET_ADMIN-style admin permission), and the "events" multicast
 * group announcing registered, unregistered, bound, unbound and ejected
 * (with the reason).  Spec: Documentation/netlink/specs/cache_ext.yaml.
 */

#define pr_fmt(fmt) "cache_ext: " fmt

#include <net/genetlink.h>

#include "cache_ext_nl.h"
#include "internal.h"

static struct genl_family cache_ext_genl;

static const struct nla_policy cache_ext_nl_policy[CACHE_EXT_A_MAX + 1] = {
	[CACHE_EXT_A_POLICY]	= { .type = NLA_NUL_STRING,
				    .len = CACHE_EXT_NAME_LEN - 1 },
	[CACHE_EXT_A_CGROUP_ID]	= { .type = NLA_U64 },
};

/* ---- dumps ---- */

struct dump_state {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	long idx, start;
};

/*
 * Add one message to a dump that may span several calls: messages sent in
 * an earlier call are skipped; a full buffer ends this call (return 1).
 */
static int dump_one(struct dump_state *d, u8 cmd,
		    int (*fill)(struct sk_buff *skb, const void *info),
		    const void *info)
{
	void *hdr;

	if (d->idx < d->start) {
		d->idx++;
		return 0;
	}
	hdr = genlmsg_put(d->skb, NETLINK_CB(d->cb->skb).portid,
			  d->cb->nlh->nlmsg_seq, &cache_ext_genl, NLM_F_MULTI,
			  cmd);
	if (!hdr)
		return 1;
	if (fill(d->skb, info)) {
		genlmsg_cancel(d->skb, hdr);
		return 1;
	}
	genlmsg_end(d->skb, hdr);
	d->idx++;
	return 0;
}

static int fill_policy(struct sk_buff *skb, const void *data)
{
	const struct cache_ext_policy_info *info = data;

	return nla_put_string(skb, CACHE_EXT_A_POLICY, info->name) ||
	       nla_put_u32(skb, CACHE_EXT_A_EJECT_REASON, info->eject_reason) ||
	       nla_put_string(skb, CACHE_EXT_A_EJECT_REASON_STR,
			      cache_ext_eject_reason_str(info->eject_reason)) ||
	       nla_put_u32(skb, CACHE_EXT_A_NR_BINDINGS, info->nr_bindings);
}

static int put_policy(const struct cache_ext_policy_info *info, void *data)
{
	return dump_one(data, CACHE_EXT_CMD_POLICY_GET, fill_policy, info);
}

static int put_stats(struct sk_buff *skb, const struct cache_ext_stats_snapshot *s)
{
	const struct cache_ext_ctl_stat *stat;
	struct nlattr *nest;

	nest = nla_nest_start(skb, CACHE_EXT_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (stat = cache_ext_ctl_stats;
	     stat < cache_ext_ctl_stats + cache_ext_ctl_nr_stats; stat++) {
		if (nla_put_u64_64bit(skb, stat->attr,
				      cache_ext_ctl_stat_value(s, stat),
				      CACHE_EXT_A_STAT_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int fill_binding(struct sk_buff *skb, const void *data)
{
	const struct cache_ext_binding_info *info = data;

	return nla_put_string(skb, CACHE_EXT_A_POLICY, info->policy) ||
	       nla_put_u64_64bit(skb, CACHE_EXT_A_CGROUP_ID, info->cgroup_id,
				 CACHE_EXT_A_PAD) ||
	       put_stats(skb, &info->stats);
}

static int put_binding(const struct cache_ext_binding_info *info, void *data)
{
	return dump_one(data, CACHE_EXT_CMD_BINDING_GET, fill_binding, info);
}

static int policy_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct dump_state d = { skb, cb, 0, cb->args[0] };

	cache_ext_walk_policies(put_policy, &d);
	cb->args[0] = d.idx;
	return skb->len;
}

static int binding_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct dump_state d = { skb, cb, 0, cb->args[0] };

	cache_ext_walk_bindings(NULL, put_binding, &d);
	cb->args[0] = d.idx;
	return skb->len;
}

/* ---- bind / unbind ---- */

static int bind_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, CACHE_EXT_A_POLICY) ||
	    GENL_REQ_ATTR_CHECK(info, CACHE_EXT_A_CGROUP_ID))
		return -EINVAL;
	return cache_ext_bind(nla_data(info->attrs[CACHE_EXT_A_POLICY]),
			      nla_get_u64(info->attrs[CACHE_EXT_A_CGROUP_ID]));
}

static int unbind_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, CACHE_EXT_A_CGROUP_ID))
		return -EINVAL;
	return cache_ext_unbind(nla_get_u64(info->attrs[CACHE_EXT_A_CGROUP_ID]));
}

static const struct genl_small_ops cache_ext_nl_ops[] = {
	{
		.cmd		= CACHE_EXT_CMD_POLICY_GET,
		.validate	= GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.dumpit		= policy_dumpit,
	},
	{
		.cmd		= CACHE_EXT_CMD_BINDING_GET,
		.validate	= GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.dumpit		= binding_dumpit,
	},
	{
		.cmd		= CACHE_EXT_CMD_BIND,
		.flags		= GENL_ADMIN_PERM,
		.doit		= bind_doit,
	},
	{
		.cmd		= CACHE_EXT_CMD_UNBIND,
		.flags		= GENL_ADMIN_PERM,
		.doit		= unbind_doit,
	},
};

static const struct genl_multicast_group cache_ext_nl_mcgrps[] = {
	{ .name = CACHE_EXT_GENL_MCGRP_EVENTS, },
};

static struct genl_family cache_ext_genl __ro_after_init = {
	.name		= CACHE_EXT_GENL_NAME,
	.version	= CACHE_EXT_GENL_VERSION,
	.maxattr	= CACHE_EXT_A_MAX,
	.policy		= cache_ext_nl_policy,
	.module		= THIS_MODULE,
	.small_ops	= cache_ext_nl_ops,
	.n_small_ops	= ARRAY_SIZE(cache_ext_nl_ops),
	.resv_start_op	= CACHE_EXT_CMD_EVENT + 1,
	.mcgrps		= cache_ext_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(cache_ext_nl_mcgrps),
};

/* ---- events ---- */

/* The core's event types, as the UAPI numbers them. */
static const u32 nl_events[] = {
	[CACHE_EXT_EVENT_REGISTERED]	= CACHE_EXT_EV_REGISTERED,
	[CACHE_EXT_EVENT_UNREGISTERED]	= CACHE_EXT_EV_UNREGISTERED,
	[CACHE_EXT_EVENT_BOUND]		= CACHE_EXT_EV_BOUND,
	[CACHE_EXT_EVENT_UNBOUND]	= CACHE_EXT_EV_UNBOUND,
	[CACHE_EXT_EVENT_EJECTED]	= CACHE_EXT_EV_EJECTED,
};

/**
 * cache_ext_ctl_nl_event - announce a core event on the "events" group
 * @type: an &enum cache_ext_event_type
 * @ev: its data
 */
void cache_ext_ctl_nl_event(unsigned long type, const struct cache_ext_event *ev)
{
	struct sk_buff *skb;
	void *hdr;

	if (type >= ARRAY_SIZE(nl_events) ||
	    !genl_has_listeners(&cache_ext_genl, &init_net, 0))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &cache_ext_genl, 0, CACHE_EXT_CMD_EVENT);
	if (!hdr ||
	    nla_put_u32(skb, CACHE_EXT_A_EVENT, nl_events[type]) ||
	    nla_put_string(skb, CACHE_EXT_A_POLICY, ev->policy) ||
	    nla_put_u64_64bit(skb, CACHE_EXT_A_CGROUP_ID, ev->cgroup_id,
			      CACHE_EXT_A_PAD) ||
	    nla_put_u32(skb, CACHE_EXT_A_EJECT_REASON, ev->reason) ||
	    nla_put_string(skb, CACHE_EXT_A_EJECT_REASON_STR,
			   cache_ext_eject_reason_str(ev->reason)) ||
	    (ev->msg && nla_put_string(skb, CACHE_EXT_A_EJECT_MSG, ev->msg))) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&cache_ext_genl, skb, 0, 0, GFP_KERNEL);
}

int cache_ext_ctl_nl_init(void)
{
	return genl_register_family(&cache_ext_genl);
}

void cache_ext_ctl_nl_exit(void)
{
	genl_unregister_family(&cache_ext_genl);
}
