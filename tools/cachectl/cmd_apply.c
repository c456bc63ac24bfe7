// SPDX-License-Identifier: GPL-2.0
/*
 * cachectl apply and status: the policy configuration (policy_conf.h) made
 * true, and compared with what memory.cache_ext says.  apply --watch keeps
 * it true as cgroups come and go (a restarted service gets a new cgroup):
 * inotify on the directories the configured cgroups are created in, no
 * polling.  cache-ext.service runs it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "attach.h"
#include "cachectl.h"
#include "cgroup.h"
#include "policy_conf.h"

static const char apply_usage[] =
"usage: cachectl apply [--config FILE|DIR] [--watch]\n"
"\n"
"Binds every configured TARGET that exists to its POLICY (as echo POLICY >\n"
"CGROUP/memory.cache_ext does), registering first the policy lines' objects\n"
"(again, with --replace, so that changed knobs take effect) and any installed\n"
"policy a bind names that is not registered.  Cgroups already bound as\n"
"configured are left alone; a TARGET whose cgroup does not exist is waited for\n"
"with --watch, and only reported without.\n"
"\n"
"  -c, --config PATH     read PATH (a file, or a directory of *.conf) instead\n"
"  -w, --watch           keep running: bind each TARGET again whenever its\n"
"                        cgroup is created (a service restarted, a slice\n"
"                        started later), as inotify reports it; SIGHUP reads\n"
"                        the configuration again; SIGTERM ends.  Tells systemd\n"
"                        it is ready (sd_notify) after the first pass\n"
"\n"
CONF_FORMAT_HELP
"\n"
"Descendants that exist before their TARGET is bound keep their policy; those\n"
"created after it inherit it (see cache_ext(7)).\n"
"\n"
"Exit status: 0 every existing TARGET bound as configured, 1 some could not\n"
"be (the messages say which) or the configuration is wrong, 2 usage.\n";

static const char status_usage[] =
"usage: cachectl status [--config FILE|DIR]\n"
"\n"
"For each configured TARGET: its cgroup, the configured policy and the one its\n"
"memory.cache_ext names, and whether they agree: ok, differs, no cgroup (not\n"
"created yet; apply --watch binds it when it is), or no memory.cache_ext (no\n"
"memory controller there).\n"
"\n"
"  -c, --config PATH     read PATH (a file, or a directory of *.conf) instead\n"
"\n"
CONF_FORMAT_HELP
"\n"
"Exit status: 0 every existing TARGET agrees, 1 one differs or the\n"
"configuration is wrong, 2 usage.\n";

/* Where a bind line's TARGET is now. */
struct target {
	char path[PATH_MAX];	/* absolute, under the cgroup2 mount */
	int resolved;
};

/*
 * The cgroup of a systemd unit: systemctl's ControlGroup while it runs,
 * else where it will be created, from its Slice.  Path relative to the
 * cgroup2 root in @rel.
 */
static int unit_cgroup(const char *unit, char *rel, size_t len)
{
	char out[PATH_MAX], slice[256];
	char *show_cg[] = { "systemctl", "show", "-P", "ControlGroup", "--",
			    (char *)unit, NULL };
	char *show_slice[] = { "systemctl", "show", "-P", "Slice", "--",
			       (char *)unit, NULL };

	if (run_capture(show_cg, out, sizeof(out), 0) == 0) {
		out[strcspn(out, "\n")] = '\0';
		if (out[0] == '/') {
			snprintf(rel, len, "%s", out + 1);
			return 0;
		}
	}
	slice[0] = '\0';
	if (run_capture(show_slice, slice, sizeof(slice), 0) == 0)
		slice[strcspn(slice, "\n")] = '\0';
	return unit_cgroup_path(unit, slice, rel, len);
}

static int resolve(const struct conf_bind *b, const char *mnt,
		   struct target *t)
{
	char rel[PATH_MAX];
	struct ctl_err err;

	t->resolved = 0;
	if (b->is_unit) {
		if (unit_cgroup(b->target + 5, rel, sizeof(rel))) {
			ctl_warn("%s: no cgroup for %s", b->where, b->target);
			return -EINVAL;
		}
	} else {
		snprintf(rel, sizeof(rel), "%s", b->target);
	}
	if (cgroup_resolve(mnt, rel, t->path, sizeof(t->path), &err)) {
		ctl_warn("%s: %s", b->where, err.msg);
		return -EINVAL;
	}
	t->resolved = 1;
	return 0;
}

/* Whether memory.cache_ext's @now names @policy, inherited or not. */
static int names_policy(const char *now, const char *policy)
{
	size_t n = strlen(policy);

	return !strncmp(now, policy, n) &&
	       (!now[n] || !strcmp(now + n, " (inherited)"));
}

/* The object of a policy line: a path, or an installed policy's name. */
static int policy_object(const struct conf_policy *p, char *file, size_t len)
{
	if (strchr(p->object, '/')) {
		snprintf(file, len, "%s", p->object);
		return 0;
	}
	if (find_bpf_object(p->object, file, len)) {
		ctl_warn("%s: no installed policy %s (%s.bpf.o); give the object's path",
			 p->where, p->object, p->object);
		return -ENOENT;
	}
	return 0;
}

/* Registers the policy lines' policies, replacing them; 0 or failures. */
static int register_policies(const struct policy_conf *conf)
{
	char file[PATH_MAX];
	int i, failed = 0;

	for (i = 0; i < conf->nr_policies; i++) {
		const struct conf_policy *p = &conf->policies[i];
		struct attach_args a = {
			.name = p->name, .sets = p->sets, .nr_sets = p->nr_sets,
			.replace = 1,
		};

		if (policy_object(p, file, sizeof(file))) {
			failed++;
			continue;
		}
		a.file = file;
		if (attach_one(&a)) {
			ctl_warn("%s: policy %s not registered", p->where,
				 p->name);
			failed++;
		}
	}
	return failed;
}

/*
 * Binds one existing target.  Returns 0 if it is bound as configured
 * (now or already), -errno otherwise; says what it did.
 */
static int bind_target(const struct conf_bind *b, const struct target *t)
{
	char now[128];
	int ret;

	ret = cgroup_policy_read(t->path, now, sizeof(now));
	if (ret == -ENOENT) {
		ctl_warn("%s: cgroup %s has no memory.cache_ext; enable the memory controller in its parent's cgroup.subtree_control",
			 b->where, t->path);
		return ret;
	}
	if (ret)
		return ret;
	if (names_policy(now, b->policy))
		return 0;
	ret = cgroup_policy_write(t->path, b->policy);
	if (ret == -ENOENT) {
		/* Not registered: an installed policy of that name? */
		if (preload_policy(b->policy)) {
			ctl_warn("%s: no policy %s is registered or installed",
				 b->where, b->policy);
			return ret;
		}
		ret = cgroup_policy_write(t->path, b->policy);
	}
	if (ret) {
		ctl_warn("%s: echo %s > %s/memory.cache_ext: %s", b->where,
			 b->policy, t->path, strerror(-ret));
		return ret;
	}
	printf("%s: bound %s (%s)\n", t->path, b->policy, b->target);
	fflush(stdout);
	return 0;
}

/* Where each bind's target is now: the number that cannot be found. */
static int resolve_all(const struct policy_conf *conf, const char *mnt,
		       struct target *targets)
{
	int i, failed = 0;

	for (i = 0; i < conf->nr_binds; i++)
		failed += !!resolve(&conf->binds[i], mnt, &targets[i]);
	return failed;
}

/*
 * Binds each resolved target whose cgroup exists (resolve_all() first);
 * the number that failed.
 */
static int bind_all(const struct policy_conf *conf, struct target *targets,
		    int quiet_missing)
{
	struct stat st;
	int i, failed = 0;

	for (i = 0; i < conf->nr_binds; i++) {
		const struct conf_bind *b = &conf->binds[i];

		if (!targets[i].resolved)
			continue;
		if (stat(targets[i].path, &st)) {
			if (!quiet_missing)
				printf("%s: no cgroup yet (%s)\n",
				       targets[i].path, b->target);
			continue;
		}
		failed += !!bind_target(b, &targets[i]);
	}
	return failed;
}

/* Reads the configuration; prints why not. */
static int read_conf(struct policy_conf *conf, const char *path)
{
	struct ctl_err err;
	int ret;

	memset(conf, 0, sizeof(*conf));
	ret = policy_conf_read(conf, path, &err);
	if (ret) {
		ctl_warn("%s", err.msg);
		policy_conf_free(conf);
	}
	return ret;
}

/*
 * Watches, for every resolved target, the deepest existing directory on
 * the way to it, below its own: the one its cgroup (or a missing parent)
 * will be created in.  The previous watches are dropped first.
 */
static int rewatch(int fd, const struct policy_conf *conf,
		   const struct target *targets, const char *mnt,
		   int *wds, int *nr_wds)
{
	char dir[PATH_MAX], *slash;
	struct stat st;
	int i, wd;

	while (*nr_wds)
		inotify_rm_watch(fd, wds[--*nr_wds]);
	for (i = 0; i < conf->nr_binds; i++) {
		if (!targets[i].resolved)
			continue;
		snprintf(dir, sizeof(dir), "%s", targets[i].path);
		do {
			slash = strrchr(dir, '/');
			if (!slash || slash == dir)
				break;
			*slash = '\0';
		} while (stat(dir, &st) && strlen(dir) > strlen(mnt));
		wd = inotify_add_watch(fd, dir, IN_CREATE | IN_ONLYDIR);
		if (wd < 0) {
			ctl_warn("cannot watch %s: %s", dir, strerror(errno));
			return -errno;
		}
		wds[(*nr_wds)++] = wd;	/* the same wd again is harmless */
	}
	return 0;
}

/* Tells systemd the service is ready, if it runs us as Type=notify. */
static void notify_ready(void)
{
	const char *sock = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd;

	if (!sock || (sock[0] != '/' && sock[0] != '@') ||
	    strlen(sock) >= sizeof(sa.sun_path))
		return;
	strcpy(sa.sun_path, sock);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	len = offsetof(struct sockaddr_un, sun_path) + strlen(sock);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, "READY=1", 7, 0, (struct sockaddr *)&sa, len) < 0)
		ctl_warn("cannot tell systemd we are ready: %s", strerror(errno));
	close(fd);
}

/*
 * SIGHUP: the configuration read again, its policy lines registered again;
 * on a mistake the old one stays.  The arrays grow to the new number of
 * binds (never shrink: the watches in @wds are dropped by the next
 * rewatch()).
 */
static void reload(const char *config, struct policy_conf *conf,
		   struct target **targets, int **wds, int *cap)
{
	struct policy_conf fresh;
	struct target *t;
	int *w;

	if (read_conf(&fresh, config))
		return;
	if (fresh.nr_binds > *cap) {
		t = realloc(*targets, fresh.nr_binds * sizeof(**targets));
		if (t)
			*targets = t;
		w = realloc(*wds, fresh.nr_binds * sizeof(**wds));
		if (w)
			*wds = w;
		if (!t || !w) {
			ctl_warn("apply --watch: out of memory; the configuration stays as it was");
			policy_conf_free(&fresh);
			return;
		}
		*cap = fresh.nr_binds;
	}
	policy_conf_free(conf);
	*conf = fresh;
	printf("configuration read again: %d binds\n", conf->nr_binds);
	register_policies(conf);
}

static int watch(const char *config, struct policy_conf *conf,
		 const char *mnt)
{
	int cap = conf->nr_binds ?: 1;
	struct target *targets = calloc(cap, sizeof(*targets));
	int *wds = calloc(cap, sizeof(*wds));
	char buf[sizeof(struct inotify_event) + NAME_MAX + 1]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	struct signalfd_siginfo si;
	struct pollfd pfd[2];
	int nr_wds = 0, ifd, sfd = -1, ret = 0;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	ifd = inotify_init1(IN_CLOEXEC);
	if (targets && wds && ifd >= 0 && !sigprocmask(SIG_BLOCK, &set, NULL))
		sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		ctl_warn("apply --watch: %s", strerror(errno ?: ENOMEM));
		if (ifd >= 0)
			close(ifd);
		free(targets);
		free(wds);
		return EXIT_FAIL;
	}
	/*
	 * Each pass is followed by another once the watches are in place: a
	 * cgroup created between the first pass and its watch is bound by
	 * the second, one created after it makes an event.  The targets are
	 * resolved once for both (a unit's costs a systemctl call).
	 */
	resolve_all(conf, mnt, targets);
	bind_all(conf, targets, 0);
	ret = rewatch(ifd, conf, targets, mnt, wds, &nr_wds);
	if (ret)
		goto out;
	bind_all(conf, targets, 1);
	printf("watching for the cgroups of %d targets\n", conf->nr_binds);
	fflush(stdout);
	notify_ready();
	pfd[0] = (struct pollfd){ .fd = ifd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (pfd[1].revents & POLLIN) {
			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo != SIGHUP)
				break;
			reload(config, conf, &targets, &wds, &cap);
		}
		if (pfd[0].revents & POLLIN) {
			/* What was created matters less than that something was. */
			while (read(ifd, buf, sizeof(buf)) > 0 &&
			       poll(&pfd[0], 1, 0) > 0)
				;
		}
		resolve_all(conf, mnt, targets);
		bind_all(conf, targets, 1);
		ret = rewatch(ifd, conf, targets, mnt, wds, &nr_wds);
		if (ret)
			break;
		bind_all(conf, targets, 1);
	}
out:
	close(ifd);
	close(sfd);
	free(targets);
	free(wds);
	return ret ? EXIT_FAIL : 0;
}

static int parse_opts(int argc, char **argv, const char *usage,
		      const char **config, int *watching)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "watch", no_argument, NULL, 'w' },
		{ }
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, watching ? "c:w" : "c:", opts,
				NULL)) != -1) {
		if (c == 'c') {
			*config = optarg;
		} else if (c == 'w' && watching) {
			*watching = 1;
		} else {
			fputs(usage, stderr);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		fputs(usage, stderr);
		return -EINVAL;
	}
	return 0;
}

int cmd_apply(int argc, char **argv)
{
	const char *config = NULL;
	char mnt[PATH_MAX];
	struct policy_conf conf;
	struct target *targets;
	int watching = 0, failed;

	if (wants_help(argc, argv, apply_usage))
		return 0;
	if (parse_opts(argc, argv, apply_usage, &config, &watching))
		return EXIT_USAGE;
	if (read_conf(&conf, config))
		return EXIT_FAIL;
	if (need_root("apply") || need_cache_ext_kernel() || make_pin_dir() ||
	    cgroup_mountpoint(mnt, sizeof(mnt))) {
		policy_conf_free(&conf);
		return EXIT_FAIL;
	}
	failed = register_policies(&conf);
	if (watching) {
		failed = watch(config, &conf, mnt);
		policy_conf_free(&conf);
		return failed;
	}
	targets = calloc(conf.nr_binds ?: 1, sizeof(*targets));
	if (!targets) {
		policy_conf_free(&conf);
		return EXIT_FAIL;
	}
	failed += resolve_all(&conf, mnt, targets) +
		  bind_all(&conf, targets, 0);
	free(targets);
	policy_conf_free(&conf);
	return failed ? EXIT_FAIL : 0;
}

int cmd_status(int argc, char **argv)
{
	const char *config = NULL, *state;
	char mnt[PATH_MAX], now[128];
	struct policy_conf conf;
	struct target t;
	struct stat st;
	int i, differ = 0;

	if (wants_help(argc, argv, status_usage))
		return 0;
	if (parse_opts(argc, argv, status_usage, &config, NULL))
		return EXIT_USAGE;
	if (read_conf(&conf, config))
		return EXIT_FAIL;
	if (cgroup_mountpoint(mnt, sizeof(mnt))) {
		ctl_warn("no cgroup2 file system is mounted");
		policy_conf_free(&conf);
		return EXIT_FAIL;
	}
	printf("%-32s %-40s %-12s %-22s %s\n", "TARGET", "CGROUP", "CONFIGURED",
	       "BOUND", "STATE");
	for (i = 0; i < conf.nr_binds; i++) {
		const struct conf_bind *b = &conf.binds[i];

		if (resolve(b, mnt, &t)) {
			differ++;
			continue;
		}
		if (stat(t.path, &st)) {
			snprintf(now, sizeof(now), "-");
			state = "no cgroup";
		} else if (cgroup_policy_read(t.path, now, sizeof(now))) {
			snprintf(now, sizeof(now), "-");
			state = "no memory.cache_ext";
			differ++;
		} else if (names_policy(now, b->policy)) {
			state = "ok";
		} else {
			state = "differs";
			differ++;
		}
		printf("%-32s %-40s %-12s %-22s %s\n", b->target,
		       t.path + strlen(mnt), b->policy, now, state);
	}
	policy_conf_free(&conf);
	return differ ? EXIT_FAIL : 0;
}
