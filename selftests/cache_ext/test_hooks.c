// SPDX-License-Identifier: GPL-2.0
/*
 * The page cache hooks of cache_ext, seen through the count_events policy:
 * every file folio event of a bound cgroup reaches the policy exactly once,
 * events of other cgroups never do, and registration, binding and
 * unbinding follow the documented rules.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "count_events.skel.h"
#include "tcp_ca.skel.h"

#define NR_PAGES 64

/* count_events.bpf.c's value. */
struct event_counts {
	__u64 added, accessed, removed, mapped, prefetched, accessed_prefetched;
};

/* Counts the policy saw for @path's inode in cgroup @cgroup_id. */
static struct event_counts counts_for(struct count_events *skel,
				      uint64_t cgroup_id, const char *path)
{
	struct event_counts c = {};
	struct {
		__u64 cgroup_id, ino;
	} key = { cgroup_id, 0 };
	struct stat st;

	if (stat(path, &st))
		return c;
	key.ino = st.st_ino;
	bpf_map__lookup_elem(skel->maps.counts, &key, sizeof(key), &c,
			     sizeof(c), 0);
	return c;
}

/* Sum of the events of every inode and cgroup. */
static __u64 all_events(struct count_events *skel)
{
	struct { __u64 cgroup_id, ino; } key, next, *prev = NULL;
	struct event_counts c;
	__u64 sum = 0;

	while (!bpf_map__get_next_key(skel->maps.counts, prev, &next,
				      sizeof(next))) {
		if (!bpf_map__lookup_elem(skel->maps.counts, &next,
					  sizeof(next), &c, sizeof(c), 0))
			sum += c.added + c.accessed + c.removed;
		key = next;
		prev = &key;
	}
	return sum;
}

static struct count_events *open_policy(const char *name, uint64_t cgroup_id)
{
	struct count_events *skel = count_events__open();

	if (!skel)
		return NULL;
	skel->struct_ops.count_events->cgroup_id = cgroup_id;
	if (struct_ops_set_name(skel->obj, skel->maps.count_events, name) ||
	    count_events__load(skel)) {
		count_events__destroy(skel);
		return NULL;
	}
	return skel;
}

static int read_file(const char *cgroup, void *path)
{
	return read_and_verify(path) ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int write_file(const char *cgroup, void *path)
{
	return make_file(path, NR_PAGES) ? EXIT_FAILURE : EXIT_SUCCESS;
}

FIXTURE(hooks) {
	char *cg, *other;
	uint64_t cg_id, other_id;
	struct count_events *skel;
	struct bpf_link *link;
	char file[PATH_MAX];
};

FIXTURE_SETUP(hooks)
{
	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");

	self->cg = memcg_create("cache_ext_hooks");
	ASSERT_NE(self->cg, NULL);
	self->other = memcg_create("cache_ext_hooks_other");
	ASSERT_NE(self->other, NULL);
	self->cg_id = cgroup_id_of(self->cg);
	self->other_id = cgroup_id_of(self->other);

	self->skel = open_policy("count_events", self->cg_id);
	ASSERT_NE(self->skel, NULL);
	self->link = bpf_map__attach_struct_ops(self->skel->maps.count_events);
	ASSERT_NE(self->link, NULL) TH_LOG("attach: %s", strerror(errno));
	ASSERT_EQ(self->skel->bss->nr_init, 1);

	scratch_path(self->file, sizeof(self->file), "hooks");
	ASSERT_EQ(make_file(self->file, NR_PAGES), 0);
	ASSERT_EQ(cached_pages(self->file), 0);
}

FIXTURE_TEARDOWN(hooks)
{
	bpf_link__destroy(self->link);
	count_events__destroy(self->skel);
	unlink(self->file);
	if (self->cg)
		cg_destroy(self->cg);
	if (self->other)
		cg_destroy(self->other);
	free(self->cg);
	free(self->other);
}

/* A read adds and accesses each folio once, a reread only accesses it. */
TEST_F(hooks, read_reread_delete)
{
	struct event_counts c;

	ASSERT_EQ(cg_run(self->cg, read_file, self->file), 0);
	c = counts_for(self->skel, self->cg_id, self->file);
	EXPECT_EQ(c.added, NR_PAGES);
	EXPECT_EQ(c.accessed, NR_PAGES);
	EXPECT_EQ(c.removed, 0);

	ASSERT_EQ(cg_run(self->cg, read_file, self->file), 0);
	c = counts_for(self->skel, self->cg_id, self->file);
	EXPECT_EQ(c.added, NR_PAGES);
	EXPECT_EQ(c.accessed, 2 * NR_PAGES);
	EXPECT_EQ(c.removed, 0);

	/* Removal is charged to the folio's cgroup, not to the caller's. */
	ASSERT_EQ(drop_file_cache(self->file), 0);
	c = counts_for(self->skel, self->cg_id, self->file);
	EXPECT_EQ(c.removed, NR_PAGES);
	EXPECT_EQ(self->skel->bss->nr_dropped, 0);
}

/* The file's pages read with readahead off (POSIX_FADV_RANDOM). */
static int read_file_random(const char *cgroup, void *path)
{
	char buf[PAGE_SZ];
	int fd = open(path, O_RDONLY), i, ret = EXIT_SUCCESS;

	if (fd < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM))
		return EXIT_FAILURE;
	for (i = 0; i < NR_PAGES && ret == EXIT_SUCCESS; i++)
		if (pread(fd, buf, PAGE_SZ, (off_t)i * PAGE_SZ) != PAGE_SZ ||
		    check_page(buf, i))
			ret = EXIT_FAILURE;
	close(fd);
	return ret;
}

/*
 * A sequential read brings the file in by readahead: the first page, which
 * the first read waits for, is not prefetched; the folios readahead brings
 * in ahead of the reads are, in folio_added()
 * (bpf_cache_ext_folio_prefetched()), and no longer when folio_accessed()
 * runs.  With readahead off, reads bring in what they ask for: nothing is
 * prefetched.
 */
TEST_F(hooks, readahead_folios_are_prefetched_until_read)
{
	struct event_counts c;
	__u64 first;

	ASSERT_EQ(cg_run(self->cg, read_file, self->file), 0);
	c = counts_for(self->skel, self->cg_id, self->file);
	TH_LOG("%llu of %d folios prefetched", c.prefetched, NR_PAGES);
	EXPECT_EQ(c.added, NR_PAGES);
	EXPECT_GE(c.prefetched, NR_PAGES / 2);
	EXPECT_LT(c.prefetched, NR_PAGES);
	EXPECT_EQ(c.accessed, NR_PAGES);
	EXPECT_EQ(c.accessed_prefetched, 0);
	first = c.prefetched;

	ASSERT_EQ(drop_file_cache(self->file), 0);
	ASSERT_EQ(cg_run(self->cg, read_file_random, self->file), 0);
	c = counts_for(self->skel, self->cg_id, self->file);
	EXPECT_EQ(c.added, 2 * NR_PAGES);
	EXPECT_EQ(c.prefetched, first);
	EXPECT_EQ(c.accessed, 2 * NR_PAGES);
	EXPECT_EQ(c.accessed_prefetched, 0);
}

/* Deleting a file removes its cached folios. */
TEST_F(hooks, unlink_removes)
{
	struct { __u64 cgroup_id, ino; } key = { self->cg_id, 0 };
	struct event_counts c = {};
	struct stat st;

	ASSERT_EQ(cg_run(self->cg, read_file, self->file), 0);
	ASSERT_EQ(stat(self->file, &st), 0);
	key.ino = st.st_ino;
	ASSERT_EQ(unlink(self->file), 0);
	ASSERT_EQ(bpf_map__lookup_elem(self->skel->maps.counts, &key,
				       sizeof(key), &c, sizeof(c), 0), 0);
	EXPECT_EQ(c.added, NR_PAGES);
	EXPECT_EQ(c.removed, NR_PAGES);
}

/* Writing creates folios; truncation removes exactly the cut-off ones. */
TEST_F(hooks, write_truncate)
{
	struct event_counts c;

	ASSERT_EQ(unlink(self->file), 0);
	ASSERT_EQ(cg_run(self->cg, write_file, self->file), 0);
	/* make_file() dropped the written pages after writeback. */
	c = counts_for(self->skel, self->cg_id, self->file);
	EXPECT_EQ(c.added, NR_PAGES);
	EXPECT_EQ(c.removed, NR_PAGES);

	ASSERT_EQ(cg_run(self->cg, read_file, self->file), 0);
	ASSERT_EQ(truncate(self->file, 16 * PAGE_SZ), 0);
	c = counts_for(self->skel, self->cg_id, self->file);
	EXPECT_EQ(c.added, 2 * NR_PAGES);
	EXPECT_EQ(c.removed, NR_PAGES + NR_PAGES - 16);
	EXPECT_EQ(cached_pages(self->file), 16);
}

/* Unbound cgroups, and the root cgroup, produce no events at all. */
TEST_F(hooks, other_cgroups_are_silent)
{
	ASSERT_EQ(cg_run(self->other, read_file, self->file), 0);
	ASSERT_EQ(read_and_verify(self->file), 0);
	ASSERT_EQ(drop_file_cache(self->file), 0);
	EXPECT_EQ(all_events(self->skel), 0);
	EXPECT_EQ(counts_for(self->skel, self->other_id, self->file).added, 0);
}

/* Names are unique, like tcp_congestion_ops. */
TEST_F(hooks, duplicate_name_rejected)
{
	struct count_events *dup = open_policy("count_events", 0);
	struct bpf_link *link;

	ASSERT_NE(dup, NULL);
	link = bpf_map__attach_struct_ops(dup->maps.count_events);
	EXPECT_EQ(link, NULL);
	EXPECT_EQ(errno, EEXIST);
	bpf_link__destroy(link);
	count_events__destroy(dup);
}

/* One policy per cgroup. */
TEST_F(hooks, bound_cgroup_is_busy)
{
	struct count_events *second = open_policy("count_events2", self->cg_id);
	struct bpf_link *link;

	ASSERT_NE(second, NULL);
	link = bpf_map__attach_struct_ops(second->maps.count_events);
	EXPECT_EQ(link, NULL);
	EXPECT_EQ(errno, EBUSY);
	EXPECT_EQ(second->bss->nr_init, 0);
	bpf_link__destroy(link);
	count_events__destroy(second);
}

/* One policy may serve several cgroups, each with its own init/exit. */
TEST_F(hooks, policy_serves_second_cgroup_by_name)
{
	struct count_events *second = open_policy("count_events2", self->other_id);
	struct bpf_link *link;

	ASSERT_NE(second, NULL);
	link = bpf_map__attach_struct_ops(second->maps.count_events);
	ASSERT_NE(link, NULL);
	ASSERT_EQ(cg_run(self->other, read_file, self->file), 0);
	EXPECT_EQ(counts_for(second, self->other_id, self->file).added, NR_PAGES);
	EXPECT_EQ(counts_for(self->skel, self->other_id, self->file).added, 0);
	bpf_link__destroy(link);
	EXPECT_EQ(second->bss->nr_exit, 1);
	count_events__destroy(second);
}

/* Destroying the link unbinds: exit() runs, events stop, the cgroup is free. */
TEST_F(hooks, unload_unbinds)
{
	struct count_events *second;
	struct bpf_link *link;

	ASSERT_EQ(bpf_link__destroy(self->link), 0);
	self->link = NULL;
	EXPECT_EQ(self->skel->bss->nr_exit, 1);

	ASSERT_EQ(cg_run(self->cg, read_file, self->file), 0);
	EXPECT_EQ(all_events(self->skel), 0);

	second = open_policy("count_events2", self->cg_id);
	ASSERT_NE(second, NULL);
	link = bpf_map__attach_struct_ops(second->maps.count_events);
	EXPECT_NE(link, NULL) TH_LOG("rebind: %s", strerror(errno));
	bpf_link__destroy(link);
	count_events__destroy(second);
}

/* Removing the cgroup ends its binding. */
TEST_F(hooks, rmdir_unbinds)
{
	int i;

	ASSERT_EQ(cg_destroy(self->cg), 0);
	free(self->cg);
	self->cg = NULL;
	/* css offlining runs from a workqueue. */
	for (i = 0; i < 200 && !self->skel->bss->nr_exit; i++)
		usleep(10000);
	EXPECT_EQ(self->skel->bss->nr_exit, 1);
}

/*
 * A cgroup created under a bound cgroup gets its own binding of the same
 * policy, marked inherited, once the work item that sets it up has run; a
 * write replaces it; a later change of the parent leaves it alone.
 */
TEST_F(hooks, child_inherits_policy)
{
	char *child = cg_name(self->cg, "child");
	char sel[PATH_MAX], buf[64];
	uint64_t child_id;
	int i;

	ASSERT_NE(child, NULL);
	ASSERT_EQ(cg_write(self->cg, "cgroup.subtree_control", "+memory"), 0);
	ASSERT_EQ(cg_create(child), 0);
	child_id = cgroup_id_of(child);
	/* Set up by a work item, outside cgroup_mutex: wait for it. */
	ASSERT_EQ(wait_for_selection(child, "count_events (inherited)\n"), 0);
	EXPECT_EQ(self->skel->bss->nr_init, 2);
	snprintf(sel, sizeof(sel), "%s/memory.cache_ext", child);

	/* Its own binding: its events are its own. */
	ASSERT_EQ(cg_run(child, read_file, self->file), 0);
	EXPECT_EQ(counts_for(self->skel, child_id, self->file).added, NR_PAGES);
	EXPECT_EQ(counts_for(self->skel, self->cg_id, self->file).added, 0);

	/* The parent's policy changes: the child keeps what it inherited. */
	snprintf(buf, sizeof(buf), "%s/memory.cache_ext", self->cg);
	ASSERT_EQ(write_str(buf, "default"), 0);
	ASSERT_GE(read_text(sel, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "count_events (inherited)\n");

	/* Written in the child, the same name is set there, not inherited. */
	ASSERT_EQ(write_str(sel, "count_events"), 0);
	ASSERT_GE(read_text(sel, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "count_events\n");
	ASSERT_EQ(write_str(sel, "default"), 0);
	ASSERT_GE(read_text(sel, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "default\n");

	/* Both bindings ended: exit() ran for each. */
	for (i = 0; i < 200 && self->skel->bss->nr_exit < 2; i++)
		usleep(10000);
	EXPECT_EQ(self->skel->bss->nr_exit, 2);
	EXPECT_EQ(cg_destroy(child), 0);
	free(child);
}

/* Binding needs an existing cgroup with its own memory controller. */
TEST(bad_cgroups_rejected)
{
	struct count_events *skel;
	struct bpf_link *link;
	char *parent, *child;

	parent = memcg_create("cache_ext_nomem");
	ASSERT_NE(parent, NULL);
	child = cg_name(parent, "child");
	ASSERT_EQ(cg_create(child), 0);

	skel = open_policy("count_events", cgroup_id_of(child));
	ASSERT_NE(skel, NULL);
	link = bpf_map__attach_struct_ops(skel->maps.count_events);
	EXPECT_EQ(link, NULL);
	EXPECT_EQ(errno, EINVAL);
	count_events__destroy(skel);

	skel = open_policy("count_events", UINT64_MAX - 1);
	ASSERT_NE(skel, NULL);
	link = bpf_map__attach_struct_ops(skel->maps.count_events);
	EXPECT_EQ(link, NULL);
	EXPECT_EQ(errno, ENOENT);
	count_events__destroy(skel);

	cg_destroy(child);
	cg_destroy(parent);
	free(child);
	free(parent);
}

/* Registers @skel's policy with its link created on @cgroup_fd. */
static struct bpf_link *attach_on_fd(struct count_events *skel, int cgroup_fd,
				     __u32 flags)
{
	LIBBPF_OPTS(bpf_struct_ops_opts, opts, .flags = flags,
		    .target_fd = cgroup_fd);

	return bpf_map__attach_struct_ops_opts(skel->maps.count_events, &opts);
}

/*
 * Attached as upstream attaches a struct_ops to a cgroup: the link is
 * created on the cgroup's fd (BPF_F_CGROUP_FD).  The policy is bound as it
 * registers, sees the cgroup's folios, and the link says which cgroup;
 * destroying the link unbinds it.
 */
TEST(attach_by_cgroup_fd)
{
	struct count_events *skel;
	struct bpf_link *link;
	char *cg, file[PATH_MAX], sel[64];
	uint64_t id;
	int fd;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	cg = memcg_create("cache_ext_by_fd");
	ASSERT_NE(cg, NULL);
	id = cgroup_id_of(cg);
	fd = open(cg, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(fd, 0);
	scratch_path(file, sizeof(file), "by_fd");
	ASSERT_EQ(make_file(file, NR_PAGES), 0);

	skel = open_policy("count_events", 0);
	ASSERT_NE(skel, NULL);
	link = attach_on_fd(skel, fd, BPF_F_CGROUP_FD);
	ASSERT_NE(link, NULL) TH_LOG("attach on the cgroup's fd: %s", strerror(errno));
	EXPECT_EQ(skel->bss->nr_init, 1);
	EXPECT_EQ(link_cgroup_id(bpf_link__fd(link)), id);
	ASSERT_EQ(cg_read(cg, "memory.cache_ext", sel, sizeof(sel)), 0);
	EXPECT_STREQ(sel, "count_events\n");
	ASSERT_EQ(cg_run(cg, read_file, file), 0);
	EXPECT_EQ(counts_for(skel, id, file).added, NR_PAGES);

	bpf_link__destroy(link);
	EXPECT_EQ(skel->bss->nr_exit, 1);
	ASSERT_EQ(cg_read(cg, "memory.cache_ext", sel, sizeof(sel)), 0);
	EXPECT_STREQ(sel, "default\n");
	count_events__destroy(skel);
	unlink(file);
	close(fd);
	cg_destroy(cg);
	free(cg);
}

/*
 * What a link on a cgroup's fd refuses, with nothing registered: an fd
 * that is no cgroup (EBADF), a cgroup without its own memory controller
 * or the root (EINVAL, as for cgroup_id), a cgroup_id naming another
 * cgroup (EINVAL), a flag cache_ext does not take (EINVAL), and the flag
 * on a struct_ops type that does not take it (EOPNOTSUPP); such a type
 * still ignores other flags.
 */
TEST(cgroup_fd_attach_refusals)
{
	LIBBPF_OPTS(bpf_struct_ops_opts, ca_opts, .flags = BPF_F_CGROUP_FD);
	struct count_events *skel;
	struct bpf_link *link;
	char *parent, *child, *other;
	struct tcp_ca *ca;
	int fd, cases[3];
	size_t i;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	parent = memcg_create("cache_ext_fd_nomem");
	ASSERT_NE(parent, NULL);
	child = cg_name(parent, "child");
	ASSERT_EQ(cg_create(child), 0);
	other = memcg_create("cache_ext_fd_other");
	ASSERT_NE(other, NULL);

	skel = open_policy("count_events", 0);
	ASSERT_NE(skel, NULL);
	fd = open("/proc/self/exe", O_RDONLY);
	ASSERT_GE(fd, 0);
	link = attach_on_fd(skel, fd, BPF_F_CGROUP_FD);
	EXPECT_EQ(link, NULL);
	EXPECT_EQ(errno, EBADF);
	close(fd);

	cases[0] = open(child, O_RDONLY | O_DIRECTORY);
	cases[1] = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY);
	cases[2] = open(parent, O_RDONLY | O_DIRECTORY);
	for (i = 0; i < 2; i++) {
		ASSERT_GE(cases[i], 0);
		link = attach_on_fd(skel, cases[i], BPF_F_CGROUP_FD);
		EXPECT_EQ(link, NULL) TH_LOG("case %zu", i);
		EXPECT_EQ(errno, EINVAL) TH_LOG("case %zu", i);
	}
	ASSERT_GE(cases[2], 0);
	link = attach_on_fd(skel, cases[2], BPF_F_CGROUP_FD | (1U << 20));
	EXPECT_EQ(link, NULL);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(skel->bss->nr_init, 0);
	count_events__destroy(skel);

	skel = open_policy("count_events", cgroup_id_of(other));
	ASSERT_NE(skel, NULL);
	link = attach_on_fd(skel, cases[2], BPF_F_CGROUP_FD);
	EXPECT_EQ(link, NULL);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(skel->bss->nr_init, 0);
	count_events__destroy(skel);

	/* The other congestion control calls a model kfunc: not loaded. */
	ca = tcp_ca__open();
	ASSERT_NE(ca, NULL);
	bpf_program__set_autoload(ca->progs.scoring_cong_avoid, false);
	bpf_map__set_autocreate(ca->maps.scoring_ca, false);
	ASSERT_EQ(tcp_ca__load(ca), 0);
	ca_opts.target_fd = cases[2];
	link = bpf_map__attach_struct_ops_opts(ca->maps.plain_ca, &ca_opts);
	EXPECT_EQ(link, NULL);
	EXPECT_EQ(errno, EOPNOTSUPP);
	/* A type that takes no link flags ignores the others, as it did. */
	ca_opts.flags = 1U << 20;
	ca_opts.target_fd = 0;
	link = bpf_map__attach_struct_ops_opts(ca->maps.plain_ca, &ca_opts);
	EXPECT_NE(link, NULL) TH_LOG("tcp_ca with an unknown link flag: %s",
				     strerror(errno));
	bpf_link__destroy(link);
	tcp_ca__destroy(ca);

	for (i = 0; i < 3; i++)
		close(cases[i]);
	cg_destroy(child);
	cg_destroy(parent);
	cg_destroy(other);
	free(child);
	free(parent);
	free(other);
}

/*
 * The registry tracks a bound cgroup's folios when its policy is told
 * about folios, and none when it has only evict_folios(): such a policy
 * can name no folio, and tracking would only cost.
 */
TEST(tracking_follows_folio_callbacks)
{
	static const struct {
		const char *policy;
		int tracked;
	} cases[] = {
		{ "empty_hooks", NR_PAGES },	/* every folio callback, empty */
		{ "noop", 0 },			/* evict_folios() only */
	};
	char file[PATH_MAX], who[48], id_str[48], want[48], *cg;
	struct policy p;
	uint64_t id;
	size_t i;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	ASSERT_EQ(trace_start(), 0);
	cg = memcg_create("cache_ext_tracking");
	ASSERT_NE(cg, NULL);
	id = cgroup_id_of(cg);
	snprintf(id_str, sizeof(id_str), "cgroup=%llu ", (unsigned long long)id);
	scratch_path(file, sizeof(file), "tracking");
	ASSERT_EQ(make_file(file, NR_PAGES), 0);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(policy_attach(&p, cases[i].policy, NULL, id, NULL), 0);
		ASSERT_EQ(drop_file_cache(file), 0);
		ASSERT_EQ(cg_run(cg, read_file, file), 0);
		EXPECT_EQ(cached_pages(file), NR_PAGES);
		policy_detach(&p);
		snprintf(who, sizeof(who), "cache_ext_unbind: policy=%s ",
			 cases[i].policy);
		snprintf(want, sizeof(want), "tracked=%d ", cases[i].tracked);
		EXPECT_EQ(trace_count(who, id_str, want, NULL), 1)
			TH_LOG("%s", cases[i].policy);
	}

	unlink(file);
	cg_destroy(cg);
	free(cg);
}

#define CHARGE_PAGES	32768	/* 128 MiB read: about 800 KiB of registry */

/* "kernel" of @cg's memory.stat, in bytes, once rstat has flushed. */
static long cg_kernel_bytes(const char *cg)
{
	sleep(3);	/* the periodic flush runs every 2 s */
	return cg_read_key_long(cg, "memory.stat", "kernel ");
}

/*
 * The registry's memory is charged to the cgroup it serves: a file read
 * into a cgroup whose policy tracks every folio raises the cgroup's kernel
 * memory by at least most of what the registry held (the unbind
 * tracepoint says how much) more than the same read with no policy.
 * Before, the registry was charged to no one.
 */
TEST(registry_charged_to_its_cgroup)
{
	long before, unbound, bound, tracked = 0, bytes = 0;
	char file[PATH_MAX], *cg;
	struct policy p;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	ASSERT_EQ(trace_start(), 0);
	cg = memcg_create("cache_ext_charge");
	ASSERT_NE(cg, NULL);
	scratch_path(file, sizeof(file), "charge");
	ASSERT_EQ(make_file(file, CHARGE_PAGES), 0);

	ASSERT_EQ(drop_file_cache(file), 0);
	before = cg_kernel_bytes(cg);
	ASSERT_EQ(cg_run(cg, read_file, file), 0);
	unbound = cg_kernel_bytes(cg) - before;

	ASSERT_EQ(drop_file_cache(file), 0);
	before = cg_kernel_bytes(cg);
	ASSERT_EQ(policy_attach(&p, "empty_hooks", NULL, cgroup_id_of(cg), NULL), 0);
	ASSERT_EQ(cg_run(cg, read_file, file), 0);
	bound = cg_kernel_bytes(cg) - before;
	policy_detach(&p);
	ASSERT_EQ(trace_unbind_registry("empty_hooks", &tracked, &bytes), 0);
	TH_LOG("kernel: +%ld bytes bound, +%ld unbound; registry %ld bytes, %ld folios",
	       bound, unbound, bytes, tracked);
	EXPECT_EQ(tracked, CHARGE_PAGES);
	EXPECT_GE(bound - unbound, bytes * 8 / 10);

	unlink(file);
	cg_destroy(cg);
	free(cg);
}

#define HIT_PAGES	1024	/* 4 MiB: what the readers hit */
#define MOVE_BATCH	15	/* CACHE_EXT_MOVE_BATCH: hit moves per lock hold */
#define HIT_FILE_PAGES	4096	/* the rest is left to readahead */
#define HIT_READERS	4
#define HIT_PASSES	3

/* HIT_PASSES reads of each of the first HIT_PAGES pages, checked. */
static int read_hits(const char *cgroup, void *path)
{
	char buf[PAGE_SZ];
	int fd = open(path, O_RDONLY), pass, i, ret = EXIT_SUCCESS;

	if (fd < 0)
		return EXIT_FAILURE;
	for (pass = 0; pass < HIT_PASSES && ret == EXIT_SUCCESS; pass++)
		for (i = 0; i < HIT_PAGES && ret == EXIT_SUCCESS; i++)
			if (pread(fd, buf, PAGE_SZ, (off_t)i * PAGE_SZ) != PAGE_SZ ||
			    check_page(buf, i))
				ret = EXIT_FAILURE;
	close(fd);
	return ret;
}

/* The first HIT_PAGES pages read once, in order: readahead runs ahead. */
static int read_head(const char *cgroup, void *path)
{
	char buf[PAGE_SZ];
	int fd = open(path, O_RDONLY), i, ret = EXIT_SUCCESS;

	if (fd < 0)
		return EXIT_FAILURE;
	for (i = 0; i < HIT_PAGES && ret == EXIT_SUCCESS; i++)
		if (pread(fd, buf, PAGE_SZ, (off_t)i * PAGE_SZ) != PAGE_SZ)
			ret = EXIT_FAILURE;
	close(fd);
	return ret;
}

/*
 * The binding's lock until its count stops moving: insertions may have
 * queued a resize of the registry's hash table, which takes the lock
 * from a work item.  -1 if it does not settle in 5 s.
 */
static long long settled_lock_holds(uint64_t cg_id)
{
	long long prev = binding_stat(cg_id, "lock_holds "), now;
	int i;

	for (i = 0; i < 50; i++) {
		usleep(100 * 1000);
		now = binding_stat(cg_id, "lock_holds ");
		if (now == prev)
			return now;
		prev = now;
	}
	return -1;
}

/*
 * A page cache hit takes no lock of the binding: HIT_READERS readers
 * hitting cached pages while readahead folios sit unread in the cgroup
 * (the hit path then clears prefetched marks and hands the policy its
 * per-folio state) leave the binding's lock count where it was.  A policy
 * that moves the folio on every hit (mru, get_scan) has its moves queued
 * per CPU and made MOVE_BATCH at a time: one hold per MOVE_BATCH hits at
 * most, a queue per reader's CPU left over.
 */
TEST(hits_take_no_binding_lock)
{
	static const char *const policies[] = {
		"fifo", "lfu", "s3fifo", "mglru", "mru", "get_scan",
	};
	const int first_moving = 4;
	long long holds, accesses, after, accessed;
	pid_t readers[HIT_READERS];
	char file[PATH_MAX], *cg;
	int i, r, status;
	struct policy p;
	uint64_t id;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	ASSERT_EQ(ctl_module_load(), 0);
	cg = memcg_create("cache_ext_hits");
	ASSERT_NE(cg, NULL);
	id = cgroup_id_of(cg);
	scratch_path(file, sizeof(file), "hits");
	ASSERT_EQ(make_file(file, HIT_FILE_PAGES), 0);

	for (i = 0; i < (int)(sizeof(policies) / sizeof(policies[0])); i++) {
		ASSERT_EQ(policy_attach(&p, policies[i], NULL, id, NULL), 0);
		ASSERT_EQ(drop_file_cache(file), 0);
		ASSERT_EQ(cg_run(cg, read_head, file), 0);
		/* Readahead went past what was read: unread, prefetched. */
		EXPECT_GT(cached_range(file, HIT_PAGES,
				       HIT_FILE_PAGES - HIT_PAGES), 0)
			TH_LOG("%s: no folio beyond the reads", policies[i]);

		holds = settled_lock_holds(id);
		accesses = binding_stat(id, "accesses ");
		ASSERT_GE(holds, 0) TH_LOG("%s: no lock_holds count, or it did not settle",
					   policies[i]);
		for (r = 0; r < HIT_READERS; r++) {
			readers[r] = cg_run_nowait(cg, read_hits, file);
			ASSERT_GT(readers[r], 0);
		}
		for (r = 0; r < HIT_READERS; r++) {
			ASSERT_EQ(waitpid(readers[r], &status, 0), readers[r]);
			EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
				TH_LOG("%s: reader %d's data", policies[i], r);
		}
		after = binding_stat(id, "lock_holds ");
		accessed = binding_stat(id, "accesses ") - accesses;
		TH_LOG("%s: %lld accesses, %lld lock holds", policies[i],
		       accessed, after - holds);
		EXPECT_GE(accessed, (long long)HIT_READERS * HIT_PASSES * HIT_PAGES);
		if (i < first_moving) {
			EXPECT_EQ(after - holds, 0) TH_LOG("%s", policies[i]);
		} else {
			EXPECT_LE(after - holds, accessed / MOVE_BATCH + HIT_READERS)
				TH_LOG("%s", policies[i]);
			/* The moves were made, a batch at a time. */
			EXPECT_GE(after - holds, accessed / MOVE_BATCH - HIT_READERS)
				TH_LOG("%s", policies[i]);
		}
		EXPECT_EQ(cached_range(file, 0, HIT_PAGES), HIT_PAGES);
		policy_detach(&p);
	}

	unlink(file);
	cg_destroy(cg);
	free(cg);
}

/*
 * Reclaim @amount (memory.reclaim's syntax) of @cg: its policy's
 * evict_folios() runs.  -EAGAIN: less was there to reclaim.
 */
static void reclaim(struct __test_metadata *_metadata, const char *cg,
		    char *amount)
{
	int ret = cg_write(cg, "memory.reclaim", amount);

	ASSERT_TRUE(ret == 0 || ret == -EAGAIN) TH_LOG("memory.reclaim: %d", ret);
}

/*
 * A folio readahead brought in counts as evicted unread (prefetch_evicted)
 * only if nothing read it, whether the hit path looks every hit up (lfu
 * counts uses) or skips the lookup for a folio the kernel marked
 * referenced (fifo: no use count, no folio_accessed()).  The first
 * HIT_PAGES pages are read in order, then again HIT_PASSES times (hits
 * on referenced folios), and the cgroup's page cache is reclaimed: the
 * count grows by the readahead folios beyond them that were evicted.
 */
TEST(prefetched_evicted_only_if_unread)
{
	static const char *const policies[] = { "fifo", "lfu" };
	long long unread, unread_after, before, evicted, read_left;
	char file[PATH_MAX], *cg;
	struct policy p;
	uint64_t id;
	int i;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	ASSERT_EQ(ctl_module_load(), 0);
	cg = memcg_create("cache_ext_unread");
	ASSERT_NE(cg, NULL);
	id = cgroup_id_of(cg);
	scratch_path(file, sizeof(file), "unread");
	ASSERT_EQ(make_file(file, HIT_FILE_PAGES), 0);

	for (i = 0; i < (int)(sizeof(policies) / sizeof(policies[0])); i++) {
		ASSERT_EQ(policy_attach(&p, policies[i], NULL, id, NULL), 0);
		ASSERT_EQ(drop_file_cache(file), 0);
		ASSERT_EQ(cg_run(cg, read_head, file), 0);
		ASSERT_EQ(cg_run(cg, read_hits, file), 0);
		unread = cached_range(file, HIT_PAGES,
				      HIT_FILE_PAGES - HIT_PAGES);
		before = binding_stat(id, "prefetch_evicted ");
		reclaim(_metadata, cg, "64M");
		unread_after = cached_range(file, HIT_PAGES,
					    HIT_FILE_PAGES - HIT_PAGES);
		evicted = binding_stat(id, "prefetch_evicted ") - before;
		read_left = cached_range(file, 0, HIT_PAGES);
		TH_LOG("%s: %lld readahead folios unread, %lld of them evicted, %lld counted; %lld of %d read ones left",
		       policies[i], unread, unread - unread_after, evicted,
		       read_left, HIT_PAGES);
		EXPECT_GT(unread, 0) TH_LOG("%s: no readahead", policies[i]);
		EXPECT_GT(unread - unread_after, 0)
			TH_LOG("%s: reclaim evicted none", policies[i]);
		EXPECT_EQ(evicted, unread - unread_after) TH_LOG("%s", policies[i]);
		EXPECT_LT(read_left, HIT_PAGES)
			TH_LOG("%s: no read folio evicted", policies[i]);
		policy_detach(&p);
	}

	unlink(file);
	cg_destroy(cg);
	free(cg);
}

#define INSERT_PAGES	2048

/*
 * An insertion takes the binding's lock once, whether the kernel lists
 * the new folio (fifo, lfu, mru, lhd) or the policy's folio_added() does
 * (s3fifo, mglru, get_scan: the list kfunc records the place and the
 * insertion's one lock hold links the folio).  A file read once into a
 * cgroup with room for it: the lock holds, less those of the registry's
 * hash resizes and of the per-CPU node stashes' first fills (a few tens),
 * per folio tracked.  mru and get_scan also move each folio when it is
 * read, one more hold per MOVE_BATCH accesses (see
 * hits_take_no_binding_lock).
 */
TEST(insertions_take_one_binding_lock)
{
	static const char *const policies[] = {
		"fifo", "lfu", "lhd", "s3fifo", "mglru", "mru", "get_scan",
	};
	const int first_moving = 5;
	long long holds, tracked, accesses, moves;
	char file[PATH_MAX], *cg;
	struct policy p;
	uint64_t id;
	int i;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	ASSERT_EQ(ctl_module_load(), 0);
	cg = memcg_create("cache_ext_inserts");
	ASSERT_NE(cg, NULL);
	id = cgroup_id_of(cg);
	scratch_path(file, sizeof(file), "inserts");
	ASSERT_EQ(make_file(file, INSERT_PAGES), 0);

	for (i = 0; i < (int)(sizeof(policies) / sizeof(policies[0])); i++) {
		ASSERT_EQ(drop_file_cache(file), 0);
		ASSERT_EQ(policy_attach(&p, policies[i], NULL, id, NULL), 0);
		holds = settled_lock_holds(id);
		accesses = binding_stat(id, "accesses ");
		ASSERT_GE(holds, 0);
		ASSERT_EQ(cg_run(cg, cg_read_file_once, file), 0);
		tracked = binding_stat(id, "tracked ");
		holds = settled_lock_holds(id) - holds;
		accesses = binding_stat(id, "accesses ") - accesses;
		moves = i >= first_moving ? accesses / MOVE_BATCH + 1 : 0;
		TH_LOG("%s: %lld folios tracked, %lld lock holds, %lld of them moves on access",
		       policies[i], tracked, holds, moves);
		EXPECT_GE(tracked, INSERT_PAGES * 9 / 10) TH_LOG("%s", policies[i]);
		EXPECT_LE(holds - moves, tracked + tracked / 10)
			TH_LOG("%s", policies[i]);
		policy_detach(&p);
	}

	unlink(file);
	cg_destroy(cg);
	free(cg);
}

#define REFS_PAGES	256
#define REFS_CYCLE	7	/* page i is read i % REFS_CYCLE + 1 times */
#define REFS_HOT_READS	300	/* more than CACHE_EXT_MAX_REFS */

/*
 * Page i read i % REFS_CYCLE + 1 times, in passes over the file: a read
 * that starts in the folio the last one ended in is not an access
 * (filemap_read()), so no page is read twice in a row.
 */
static int read_cycle(const char *cgroup, void *path)
{
	char buf[PAGE_SZ];
	int fd = open(path, O_RDONLY), pass, i, ret = EXIT_SUCCESS;

	if (fd < 0)
		return EXIT_FAILURE;
	for (pass = 0; pass < REFS_CYCLE && ret == EXIT_SUCCESS; pass++)
		for (i = 0; i < REFS_PAGES && ret == EXIT_SUCCESS; i++)
			if (i % REFS_CYCLE >= pass &&
			    (pread(fd, buf, PAGE_SZ, (off_t)i * PAGE_SZ) != PAGE_SZ ||
			     check_page(buf, i)))
				ret = EXIT_FAILURE;
	close(fd);
	return ret;
}

/* The last two pages, REFS_HOT_READS times each, alternately. */
static int read_last_two(const char *cgroup, void *path)
{
	char buf[PAGE_SZ];
	int fd = open(path, O_RDONLY), i, ret = EXIT_SUCCESS;

	if (fd < 0)
		return EXIT_FAILURE;
	for (i = 0; i < 2 * REFS_HOT_READS && ret == EXIT_SUCCESS; i++)
		if (pread(fd, buf, PAGE_SZ,
			  (off_t)(REFS_PAGES - 1 - i % 2) * PAGE_SZ) != PAGE_SZ)
			ret = EXIT_FAILURE;
	close(fd);
	return ret;
}

/*
 * CACHE_EXT_OPS_COUNT_REFS: with no folio_accessed(), the kernel counts
 * each folio's uses and bpf_cache_ext_folio_take_refs() hands the count
 * over once (a second look finds 0), saturated at CACHE_EXT_MAX_REFS; a
 * folio being removed is no longer counted (-ENOENT); a policy without
 * the flag is refused (-EOPNOTSUPP).
 */
TEST(take_refs_counts_each_use)
{
	unsigned long long sum = 0, expect = 0, calls;
	char file[PATH_MAX], *cg;
	__u32 *refs, hot[2];
	struct policy p;
	struct stat st;
	uint64_t id;
	int i, wrong = 0;

	if (!scratch_dir())
		SKIP(return, "CACHE_EXT_SCRATCH is not set (run in the VM)");
	ASSERT_EQ(ctl_module_load(), 0);
	cg = memcg_create("cache_ext_refs");
	ASSERT_NE(cg, NULL);
	id = cgroup_id_of(cg);
	scratch_path(file, sizeof(file), "refs");
	ASSERT_EQ(make_file(file, REFS_PAGES), 0);
	ASSERT_EQ(stat(file, &st), 0);
	ASSERT_EQ(drop_file_cache(file), 0);

	ASSERT_EQ(policy_attach(&p, "take_refs", NULL, id, NULL), 0);
	*(__u64 *)policy_var(&p, "ino") = st.st_ino;
	refs = policy_var(&p, "refs");
	ASSERT_NE(refs, NULL);
	ASSERT_EQ(cg_run(cg, read_cycle, file), 0);
	ASSERT_EQ(cached_range(file, 0, REFS_PAGES), REFS_PAGES);
	reclaim(_metadata, cg, "64K");
	calls = *(__u64 *)policy_var(&p, "nr_calls");
	ASSERT_GT(calls, 0) TH_LOG("memory.reclaim called no evict_folios()");
	for (i = 0; i < REFS_PAGES; i++) {
		sum += refs[i];
		expect += i % REFS_CYCLE + 1;
		if (refs[i] != (__u32)(i % REFS_CYCLE + 1) && wrong++ < 5)
			TH_LOG("page %d: %u uses counted, %d made", i, refs[i],
			       i % REFS_CYCLE + 1);
	}
	TH_LOG("%llu uses counted of %llu made, %llu evict_folios() calls",
	       sum, expect, calls);
	EXPECT_EQ(wrong, 0);
	EXPECT_EQ(*(__u64 *)policy_var(&p, "nr_other"), 0)
		TH_LOG("take_refs said %d", *(int *)policy_var(&p, "other_err"));

	/* Taken once: another look without reads finds nothing new. */
	reclaim(_metadata, cg, "64K");
	EXPECT_GT(*(__u64 *)policy_var(&p, "nr_calls"), calls);
	for (i = 0, expect = 0; i < REFS_PAGES; i++)
		expect += refs[i];
	EXPECT_EQ(expect, sum);

	/* Saturated: more uses than the count holds. */
	hot[0] = refs[REFS_PAGES - 1];
	hot[1] = refs[REFS_PAGES - 2];
	ASSERT_EQ(cg_run(cg, read_last_two, file), 0);
	reclaim(_metadata, cg, "64K");
	TH_LOG("after %d reads each: %u and %u more", REFS_HOT_READS,
	       refs[REFS_PAGES - 1] - hot[0], refs[REFS_PAGES - 2] - hot[1]);
	EXPECT_EQ(refs[REFS_PAGES - 1] - hot[0], 255);
	EXPECT_EQ(refs[REFS_PAGES - 2] - hot[1], 255);

	/* Leaving folios are not counted any more. */
	ASSERT_EQ(drop_file_cache(file), 0);
	EXPECT_GT(*(__u64 *)policy_var(&p, "nr_removed_gone"), 0);
	EXPECT_EQ(*(__u64 *)policy_var(&p, "nr_removed_other"), 0);
	policy_detach(&p);

	/* Without the flag: refused, and nothing counted. */
	ASSERT_EQ(policy_attach(&p, "take_refs_off", NULL, id, NULL), 0);
	ASSERT_EQ(cg_run(cg, read_cycle, file), 0);
	reclaim(_metadata, cg, "64K");
	EXPECT_GT(*(__u64 *)policy_var(&p, "nr_unsupported"), 0);
	EXPECT_EQ(*(__u64 *)policy_var(&p, "nr_taken"), 0);
	EXPECT_EQ(*(__u64 *)policy_var(&p, "nr_other"), 0);
	policy_detach(&p);

	unlink(file);
	cg_destroy(cg);
	free(cg);
}

TEST_HARNESS_MAIN
