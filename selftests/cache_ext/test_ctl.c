// SPDX-License-Identifier: GPL-2.0
/*
 * The companion module cache_ext_ctl: sysfs listing, states, counters and
 * kill; debugfs latency histograms that count what the tracepoint saw;
 * unloading and reloading with a policy bound.  The module is loaded from
 * $CACHE_EXT_CTL_KO.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "fifo.skel.h"
#include "model_score.skel.h"
#include "progs/model_score.h"
#include "cache_ext_nl.h"

#define SYSFS		"/sys/kernel/cache_ext"
#define DEBUGFS		"/sys/kernel/debug/cache_ext"
#define FILE_PAGES	4096
#define MEMCG_MAX	"8M"

/* Read a small file into @buf; -errno on failure. */
static int read_file(const char *path, char *buf, size_t len)
{
	return read_text(path, buf, len) < 0 ? -errno : 0;
}

/* Wait up to 2 s for @path to read exactly @want. */
static int wait_for(const char *path, const char *want)
{
	char buf[256];
	int i;

	for (i = 0; i < 200; i++) {
		if (!read_file(path, buf, sizeof(buf)) && !strcmp(buf, want))
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

static int read_file_loop(const char *cgroup, void *path)
{
	int i;

	for (i = 0; i < 2; i++)
		if (read_and_verify(path))
			return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

FIXTURE(ctl) {
	char *cg;
	uint64_t cg_id;
	struct fifo *skel;
	struct bpf_link *link;
	char file[PATH_MAX];
	char policy_dir[128];
};

FIXTURE_SETUP(ctl)
{
	char sel[PATH_MAX];

	if (!scratch_dir() || !getenv("CACHE_EXT_CTL_KO"))
		SKIP(return, "run in the VM with CACHE_EXT_CTL_KO set");
	ASSERT_EQ(ctl_module_load(), 0);
	ASSERT_EQ(trace_start(), 0);

	self->cg = memcg_create("cache_ext_ctl");
	ASSERT_NE(self->cg, NULL);
	ASSERT_EQ(cg_write(self->cg, "memory.max", MEMCG_MAX), 0);
	self->cg_id = cgroup_id_of(self->cg);
	scratch_path(self->file, sizeof(self->file), "ctl");
	ASSERT_EQ(make_file(self->file, FILE_PAGES), 0);

	self->skel = fifo__open();
	ASSERT_NE(self->skel, NULL);
	ASSERT_EQ(fifo__load(self->skel), 0);
	self->link = bpf_map__attach_struct_ops(self->skel->maps.fifo);
	ASSERT_NE(self->link, NULL);
	snprintf(self->policy_dir, sizeof(self->policy_dir),
		 SYSFS "/policies/fifo");
	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", self->cg);
	ASSERT_EQ(write_str(sel, "fifo"), 0);
}

FIXTURE_TEARDOWN(ctl)
{
	bpf_link__destroy(self->link);
	fifo__destroy(self->skel);
	unlink(self->file);
	if (self->cg) {
		cg_destroy(self->cg);
		free(self->cg);
	}
}

static void path_of(char *buf, const char *dir, const char *file)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, file);
}

/* The listing, the per-policy directory and its counters. */
TEST_F(ctl, sysfs_shows_policy_and_binding)
{
	char path[PATH_MAX], want[64], buf[1024];
	long calls;

	EXPECT_EQ(wait_for(SYSFS "/available_policies", "fifo\n"), 0);
	snprintf(want, sizeof(want), "%llu fifo\n",
		 (unsigned long long)self->cg_id);
	EXPECT_EQ(wait_for(SYSFS "/bindings", want), 0);
	path_of(path, self->policy_dir, "state");
	EXPECT_EQ(wait_for(path, "active\n"), 0);
	path_of(path, self->policy_dir, "cgroups");
	snprintf(want, sizeof(want), "%llu\n", (unsigned long long)self->cg_id);
	EXPECT_EQ(wait_for(path, want), 0);

	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);
	path_of(path, self->policy_dir, "stats");
	ASSERT_EQ(read_file(path, buf, sizeof(buf)), 0);
	TH_LOG("%s", buf);
	calls = atol(strstr(buf, "evict_calls ") + strlen("evict_calls "));
	EXPECT_GT(calls, 0);
	EXPECT_EQ(calls, trace_count("cache_ext_evict:", "cgroup=", NULL));
	EXPECT_GT(atol(strstr(buf, "\ntracked ") + strlen("\ntracked ")), 0);
}

/* The histogram counts exactly the evict_folios() calls traced. */
TEST_F(ctl, latency_histogram_counts_calls)
{
	char path[PATH_MAX], buf[4096], id[32], *total;

	snprintf(path, sizeof(path), DEBUGFS "/%llu/latency",
		 (unsigned long long)self->cg_id);
	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);
	ASSERT_EQ(read_file(path, buf, sizeof(buf)), 0);
	TH_LOG("%s", buf);
	total = strstr(buf, "# total ");
	ASSERT_NE(total, NULL);
	snprintf(id, sizeof(id), "cgroup=%llu ", (unsigned long long)self->cg_id);
	EXPECT_GT(atol(total + 8), 0);
	EXPECT_EQ(atol(total + 8), trace_count("cache_ext_evict:", id, NULL));

	/* Writing resets. */
	ASSERT_EQ(write_str(path, "0"), 0);
	ASSERT_EQ(read_file(path, buf, sizeof(buf)), 0);
	EXPECT_NE(strstr(buf, "# total 0\n"), NULL);
}

/* kill ejects, once; the cgroup is back on the kernel's LRU. */
TEST_F(ctl, kill_ejects)
{
	char path[PATH_MAX];

	path_of(path, self->policy_dir, "state");
	ASSERT_EQ(wait_for(path, "active\n"), 0);
	path_of(path, self->policy_dir, "kill");
	EXPECT_EQ(write_str(path, "0"), -EINVAL);
	EXPECT_EQ(write_str(path, "banana"), -EINVAL);
	ASSERT_EQ(write_str(path, "1"), 0);
	EXPECT_EQ(write_str(path, "1"), -EALREADY);

	path_of(path, self->policy_dir, "state");
	EXPECT_EQ(wait_for(path, "ejected: killed by an administrator\n"), 0);
	snprintf(path, sizeof(path), "%s/memory.cache_ext", self->cg);
	EXPECT_EQ(wait_for(path, "default\n"), 0);
	EXPECT_EQ(wait_for(SYSFS "/available_policies", "\n"), 0);
	EXPECT_EQ(trace_count("cache_ext_eject:", "policy=fifo ",
			      "(killed by an administrator)", NULL), 1);
}

/* Unload with a policy bound and used; reload: state is found again. */
TEST_F(ctl, unload_reload_while_bound)
{
	char path[PATH_MAX], want[64];

	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);
	ASSERT_EQ(ctl_module_unload(), 0);
	EXPECT_NE(access(SYSFS, F_OK), 0);
	/* The policy keeps working without the module. */
	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);

	ASSERT_EQ(ctl_module_load(), 0);
	path_of(path, self->policy_dir, "state");
	EXPECT_EQ(wait_for(path, "active\n"), 0);
	snprintf(want, sizeof(want), "%llu fifo\n",
		 (unsigned long long)self->cg_id);
	EXPECT_EQ(wait_for(SYSFS "/bindings", want), 0);
	snprintf(path, sizeof(path), DEBUGFS "/%llu/latency",
		 (unsigned long long)self->cg_id);
	EXPECT_EQ(access(path, R_OK), 0);
}

#define MODELS SYSFS "/models"

static const char test_model[] =
	"# three features, hand-checkable\n"
	"name test_model\n"
	"bias -100\n"
	"threshold 5\n"
	"weight_scale 1000\n"
	"feature f0 3 edges 10 20 weights -5 1 7\n"
	"feature f1 2 edges 0 weights 11 13   # trailing comment\n"
	"feature f2 4 edges 1 10 100 weights 1 2 3 4\n";

/* The logit the kfunc must return for @x, computed here by hand. */
static long long expected_logit(const long long *x, long long bias)
{
	long long l = bias;

	l += x[0] < 10 ? -5 : x[0] < 20 ? 1 : 7;
	l += x[1] < 0 ? 11 : 13;
	l += x[2] < 1 ? 1 : x[2] < 10 ? 2 : x[2] < 100 ? 3 : 4;
	return l;
}

static int run_score(struct model_score *skel, long long f0, long long f1,
		     long long f2, struct model_score_args *args)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args,
		    .ctx_size_in = sizeof(*args));

	memset(args, 0, sizeof(*args));
	args->features[0] = f0;
	args->features[1] = f1;
	args->features[2] = f2;
	return bpf_prog_test_run_opts(bpf_program__fd(skel->progs.score),
				      &opts);
}

static long model_version(void)
{
	char buf[512], *v;

	if (read_file(MODELS "/test_model/summary", buf, sizeof(buf)))
		return -1;
	v = strstr(buf, "version ");
	return v ? atol(v + 8) : -1;
}

/* Upload, read back, score by hand and by kfunc; replace; unload. */
TEST_F(ctl, model_roundtrip_and_score)
{
	struct model_score_args a;
	struct model_score *skel;
	char buf[4096];
	long version;

	ASSERT_EQ(write_str(MODELS "/load", test_model), 0);
	ASSERT_EQ(read_file(MODELS "/test_model/summary", buf, sizeof(buf)), 0);
	TH_LOG("%s", buf);
	EXPECT_NE(strstr(buf, "features 3\nbias -100\nthreshold 5\nweight_scale 1000\n"), NULL);
	version = model_version();
	EXPECT_GT(version, 0);
	ASSERT_EQ(read_file(DEBUGFS "/models", buf, sizeof(buf)), 0);
	EXPECT_NE(strstr(buf, "feature f0 3 edges 10 20 weights -5 1 7\n"
			      "feature f1 2 edges 0 weights 11 13\n"
			      "feature f2 4 edges 1 10 100 weights 1 2 3 4\n"), NULL)
		TH_LOG("%s", buf);

	skel = model_score__open_and_load();
	ASSERT_NE(skel, NULL);
	ASSERT_EQ(run_score(skel, 15, 0, 1000, &a), 0);
	EXPECT_EQ(a.ret, 0);
	EXPECT_EQ(a.logit, -82);
	EXPECT_EQ(a.logit, expected_logit(a.features, -100));
	EXPECT_EQ(a.ret_threshold, 0);
	EXPECT_EQ(a.threshold, 5);
	EXPECT_EQ(a.ret_short, -EINVAL);
	EXPECT_EQ(a.ret_missing, -ENOENT);
	ASSERT_EQ(run_score(skel, -3, -1, 5, &a), 0);
	EXPECT_EQ(a.logit, expected_logit(a.features, -100));
	ASSERT_EQ(run_score(skel, 20, 7, 100, &a), 0);
	EXPECT_EQ(a.logit, expected_logit(a.features, -100));

	/* A new version replaces the old one as a whole. */
	strcpy(buf, test_model);
	memcpy(strstr(buf, "bias -100"), "bias +900", 9);
	ASSERT_EQ(write_str(MODELS "/load", buf), 0);
	EXPECT_EQ(model_version(), version + 1);
	ASSERT_EQ(run_score(skel, 15, 0, 1000, &a), 0);
	EXPECT_EQ(a.logit, expected_logit(a.features, 900));

	ASSERT_EQ(write_str(MODELS "/unload", "test_model"), 0);
	EXPECT_NE(access(MODELS "/test_model", F_OK), 0);
	ASSERT_EQ(run_score(skel, 15, 0, 1000, &a), 0);
	EXPECT_EQ(a.ret, -ENOENT);
	EXPECT_EQ(write_str(MODELS "/unload", "test_model"), -ENOENT);
	model_score__destroy(skel);
}

/* Every malformed model is refused with its errno; nothing changes. */
TEST_F(ctl, model_bad_input_rejected)
{
	static const struct {
		const char *text;
		int err;
	} bad[] = {
		{ "bias 1\nname m\n", EINVAL },			/* name not first */
		{ "name bad/name\nbias 1\n", EINVAL },
		{ "name test_model\nthreshold 0\nweight_scale 1\n"
		  "feature f 1 edges weights 1\n", EINVAL },		/* no bias */
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n", EINVAL },
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n"
		  "feature f 11 edges 1 2 3 4 5 6 7 8 9 10 weights "
		  "1 1 1 1 1 1 1 1 1 1 1\n", ERANGE },		/* > 10 bins */
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n"
		  "feature f 3 edges 20 10 weights 1 2 3\n", EDOM },
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n"
		  "feature f 3 edges 10 20 weights 1 2\n", EINVAL },	/* truncated */
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n"
		  "feature f 2 edges 1 weights 1 99999999999\n", ERANGE },
		{ "name test_model\nbias 1\nthreshold 0\nweight_scale 0\n"
		  "feature f 1 edges weights 1\n", ERANGE },
		{ "name test_model\nbias 12abc\nthreshold 0\nweight_scale 1\n"
		  "feature f 1 edges weights 1\n", EINVAL },
		{ "name test_model\nfrobnicate 3\n", EINVAL },
		{ "name test_model\nbias 1 2\n", EINVAL },
	};
	char text[4096], before[1024], after[1024];
	size_t i;
	int n;

	ASSERT_EQ(write_str(MODELS "/load", test_model), 0);
	ASSERT_EQ(read_file(DEBUGFS "/models", before, sizeof(before)), 0);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(write_str(MODELS "/load", bad[i].text), -bad[i].err)
			TH_LOG("case %zu", i);

	/* 17 features: too many. */
	n = snprintf(text, sizeof(text),
		     "name test_model\nbias 1\nthreshold 0\nweight_scale 1\n");
	for (i = 0; i < 17; i++)
		n += snprintf(text + n, sizeof(text) - n,
			      "feature f%zu 1 edges weights 1\n", i);
	EXPECT_EQ(write_str(MODELS "/load", text), -E2BIG);

	ASSERT_EQ(read_file(DEBUGFS "/models", after, sizeof(after)), 0);
	EXPECT_STREQ(before, after);
	write_str(MODELS "/unload", "test_model");
}

/* ---- the generic netlink family ---- */

struct nl {
	struct mnl_socket *sock;
	uint16_t family;
	uint32_t events_group;
	unsigned int seq;
};

static int ctrl_attr_cb(const struct nlattr *attr, void *data)
{
	struct nl *nl = data;

	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID) {
		nl->family = mnl_attr_get_u16(attr);
	} else if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GROUPS) {
		const struct nlattr *grp, *a;

		mnl_attr_for_each_nested(grp, attr) {
			const char *name = NULL;
			uint32_t id = 0;

			mnl_attr_for_each_nested(a, grp) {
				if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME)
					name = mnl_attr_get_str(a);
				else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID)
					id = mnl_attr_get_u32(a);
			}
			if (name && !strcmp(name, CACHE_EXT_GENL_MCGRP_EVENTS))
				nl->events_group = id;
		}
	}
	return MNL_CB_OK;
}

static int ctrl_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), ctrl_attr_cb,
			      data);
}

static struct nlmsghdr *nl_request(struct nl *nl, char *buf, uint16_t type,
				   uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = type == GENL_ID_CTRL ? 1 : CACHE_EXT_GENL_VERSION;
	return nlh;
}

/* Send @nlh, run @cb on every answer; 0 or the request's -errno. */
static int nl_talk(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int n, ret;

	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(buf, n, nlh->nlmsg_seq,
				 mnl_socket_get_portid(nl->sock), cb, data);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

static int nl_open(struct nl *nl)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	memset(nl, 0, sizeof(*nl));
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock || mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID))
		return -errno;
	nlh = nl_request(nl, buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, CACHE_EXT_GENL_NAME);
	if (nl_talk(nl, nlh, ctrl_cb, nl) || !nl->family || !nl->events_group)
		return -ENOENT;
	return 0;
}

struct nl_msg {
	uint8_t cmd;
	char policy[32];
	uint64_t cgroup_id;
	uint32_t event, reason, nr_bindings;
	char reason_str[64];
	uint64_t evict_calls;
	int count;
};

static int msg_attr_cb(const struct nlattr *attr, void *data)
{
	struct nl_msg *m = data;
	const struct nlattr *s;

	switch (mnl_attr_get_type(attr)) {
	case CACHE_EXT_A_POLICY:
		snprintf(m->policy, sizeof(m->policy), "%s",
			 mnl_attr_get_str(attr));
		break;
	case CACHE_EXT_A_CGROUP_ID:
		m->cgroup_id = mnl_attr_get_u64(attr);
		break;
	case CACHE_EXT_A_EVENT:
		m->event = mnl_attr_get_u32(attr);
		break;
	case CACHE_EXT_A_EJECT_REASON:
		m->reason = mnl_attr_get_u32(attr);
		break;
	case CACHE_EXT_A_EJECT_REASON_STR:
		snprintf(m->reason_str, sizeof(m->reason_str), "%s",
			 mnl_attr_get_str(attr));
		break;
	case CACHE_EXT_A_NR_BINDINGS:
		m->nr_bindings = mnl_attr_get_u32(attr);
		break;
	case CACHE_EXT_A_STATS:
		mnl_attr_for_each_nested(s, attr)
			if (mnl_attr_get_type(s) == CACHE_EXT_A_STAT_EVICT_CALLS)
				m->evict_calls = mnl_attr_get_u64(s);
		break;
	}
	return MNL_CB_OK;
}

/* Keeps the last message; counts them. */
static int msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_msg *m = data;
	int count = m->count + 1;

	memset(m, 0, sizeof(*m));
	m->count = count;
	m->cmd = ((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd;
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), msg_attr_cb, m);
}

/* Wait up to 2 s for an event of @type on the events group. */
static int nl_wait_event(struct nl *nl, uint32_t type, struct nl_msg *m)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct timeval tv = { 2, 0 };
	int n;

	setsockopt(mnl_socket_get_fd(nl->sock), SOL_SOCKET, SO_RCVTIMEO, &tv,
		   sizeof(tv));
	for (;;) {
		n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		memset(m, 0, sizeof(*m));
		mnl_cb_run(buf, n, 0, 0, msg_cb, m);
		if (m->cmd == CACHE_EXT_CMD_EVENT && m->event == type)
			return 0;
	}
}

/* Dumps, bind and unbind, events: everything the family offers. */
TEST_F(ctl, netlink_dump_bind_events)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], path[PATH_MAX];
	struct nlmsghdr *nlh;
	struct nl_msg m = {};
	struct nl nl, ev;

	ASSERT_EQ(nl_open(&nl), 0);
	ASSERT_EQ(nl_open(&ev), 0);
	ASSERT_EQ(mnl_socket_setsockopt(ev.sock, NETLINK_ADD_MEMBERSHIP,
					&ev.events_group, sizeof(int)), 0);
	ASSERT_EQ(cg_run(self->cg, read_file_loop, self->file), 0);

	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_POLICY_GET,
			 NLM_F_DUMP);
	ASSERT_EQ(nl_talk(&nl, nlh, msg_cb, &m), 0);
	EXPECT_EQ(m.count, 1);
	EXPECT_STREQ(m.policy, "fifo");
	EXPECT_EQ(m.nr_bindings, 1);
	EXPECT_STREQ(m.reason_str, "none");

	memset(&m, 0, sizeof(m));
	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_BINDING_GET,
			 NLM_F_DUMP);
	ASSERT_EQ(nl_talk(&nl, nlh, msg_cb, &m), 0);
	EXPECT_EQ(m.count, 1);
	EXPECT_EQ(m.cgroup_id, self->cg_id);
	EXPECT_GT(m.evict_calls, 0);

	/* Unbind and bind again over netlink; the events follow. */
	snprintf(path, sizeof(path), "%s/memory.cache_ext", self->cg);
	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_UNBIND, 0);
	mnl_attr_put_u64(nlh, CACHE_EXT_A_CGROUP_ID, self->cg_id);
	ASSERT_EQ(nl_talk(&nl, nlh, NULL, NULL), 0);
	EXPECT_EQ(wait_for(path, "default\n"), 0);
	ASSERT_EQ(nl_wait_event(&ev, CACHE_EXT_EV_UNBOUND, &m), 0);
	EXPECT_EQ(m.cgroup_id, self->cg_id);

	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_BIND, 0);
	mnl_attr_put_strz(nlh, CACHE_EXT_A_POLICY, "no_such_policy");
	mnl_attr_put_u64(nlh, CACHE_EXT_A_CGROUP_ID, self->cg_id);
	EXPECT_EQ(nl_talk(&nl, nlh, NULL, NULL), -ENOENT);
	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_BIND, 0);
	mnl_attr_put_u64(nlh, CACHE_EXT_A_CGROUP_ID, self->cg_id);
	EXPECT_EQ(nl_talk(&nl, nlh, NULL, NULL), -EINVAL);	/* no policy */
	nlh = nl_request(&nl, buf, nl.family, CACHE_EXT_CMD_BIND, 0);
	mnl_attr_put_strz(nlh, CACHE_EXT_A_POLICY, "fifo");
	mnl_attr_put_u64(nlh, CACHE_EXT_A_CGROUP_ID, self->cg_id);
	ASSERT_EQ(nl_talk(&nl, nlh, NULL, NULL), 0);
	EXPECT_EQ(wait_for(path, "fifo\n"), 0);
	ASSERT_EQ(nl_wait_event(&ev, CACHE_EXT_EV_BOUND, &m), 0);
	EXPECT_STREQ(m.policy, "fifo");

	/* An ejection is announced with its reason. */
	ASSERT_EQ(write_str(SYSFS "/policies/fifo/kill", "1"), 0);
	ASSERT_EQ(nl_wait_event(&ev, CACHE_EXT_EV_EJECTED, &m), 0);
	EXPECT_STREQ(m.policy, "fifo");
	EXPECT_STREQ(m.reason_str, "killed by an administrator");

	mnl_socket_close(nl.sock);
	mnl_socket_close(ev.sock);
}

TEST_HARNESS_MAIN
