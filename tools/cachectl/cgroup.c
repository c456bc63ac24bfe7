// SPDX-License-Identifier: GPL-2.0
/* Naming cgroups on the command line, and checking them. */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "cgroup.h"

int cgroup_resolve(const char *mnt, const char *arg, char *out, size_t len,
		   struct ctl_err *err)
{
	size_t mlen = strlen(mnt), pos;
	const char *p = arg, *end;

	while (mlen > 1 && mnt[mlen - 1] == '/')
		mlen--;
	/* An absolute path into the mount: take the part below it. */
	if (!strncmp(arg, mnt, mlen) && (arg[mlen] == '/' || !arg[mlen]))
		p = arg + mlen;

	if (mlen + 1 > len) {
		ctl_errf(err, "cgroup path '%s' is too long", arg);
		return -ENAMETOOLONG;
	}
	memcpy(out, mnt, mlen);
	pos = mlen;
	out[pos] = '\0';

	for (; *p; p = end) {
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchrnul(p, '/');
		n = end - p;
		if ((n == 1 && *p == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return ctl_errf(err, "cgroup path '%s': '.' and '..' are not allowed; name the cgroup from the cgroup root",
					arg);
		if (pos + 1 + n + 1 > len) {
			ctl_errf(err, "cgroup path '%s' is too long", arg);
			return -ENAMETOOLONG;
		}
		out[pos++] = '/';
		memcpy(out + pos, p, n);
		pos += n;
		out[pos] = '\0';
	}
	return 0;
}

int cgroup_mountpoint(char *out, size_t len)
{
	struct mntent *m;
	FILE *f;
	int ret = -ENOENT;

	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return -errno;
	while ((m = getmntent(f))) {
		if (strcmp(m->mnt_type, "cgroup2"))
			continue;
		if (strlen(m->mnt_dir) < len) {
			strcpy(out, m->mnt_dir);
			ret = 0;
		} else {
			ret = -ENAMETOOLONG;
		}
		break;
	}
	endmntent(f);
	return ret;
}

static int file_exists(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

int cgroup_open_arg(const char *arg, char *path, size_t len, uint64_t *id)
{
	struct ctl_err err;
	char mnt[PATH_MAX];
	struct statfs sfs;
	struct stat st;

	if (cgroup_mountpoint(mnt, sizeof(mnt))) {
		ctl_warn("no cgroup2 file system is mounted; mount it with: mount -t cgroup2 none /sys/fs/cgroup");
		return -ENOENT;
	}
	if (cgroup_resolve(mnt, arg, path, len, &err)) {
		ctl_warn("%s", err.msg);
		return -EINVAL;
	}
	if (stat(path, &st) || statfs(path, &sfs)) {
		ctl_warn("cgroup %s: %s", path, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		ctl_warn("%s is not a cgroup (not a directory of the cgroup2 file system at %s)",
			 path, mnt);
		return -EINVAL;
	}
	if (!strcmp(path, mnt)) {
		ctl_warn("the root cgroup cannot be given a policy; create a child cgroup");
		return -EINVAL;
	}
	if (!file_exists(path, "memory.max")) {
		ctl_warn("cgroup %s has no memory controller; enable it in the parent's cgroup.subtree_control (echo +memory > .../cgroup.subtree_control)",
			 path);
		return -EINVAL;
	}
	if (!file_exists(path, "memory.cache_ext")) {
		ctl_warn("cgroup %s has no memory.cache_ext: this kernel was built without cache_ext (CONFIG_CACHE_EXT)",
			 path);
		return -EOPNOTSUPP;
	}
	/* On cgroup2 the inode number is the cgroup id. */
	*id = st.st_ino;
	return 0;
}

static uint64_t search_id;
static char *search_out;
static size_t search_len;

static int match_id(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	if (type != FTW_D || st->st_ino != search_id)
		return 0;
	snprintf(search_out, search_len, "%s", path);
	return 1;
}

void cgroup_name_of(uint64_t id, char *out, size_t len)
{
	char mnt[PATH_MAX];

	snprintf(out, len, "%llu", (unsigned long long)id);
	if (cgroup_mountpoint(mnt, sizeof(mnt)))
		return;
	search_id = id;
	search_out = out;
	search_len = len;
	nftw(mnt, match_id, 16, FTW_PHYS | FTW_MOUNT);
}

int cgroup_policy_read(const char *cg, char *name, size_t len)
{
	char path[PATH_MAX], buf[128];
	long n;

	snprintf(path, sizeof(path), "%s/memory.cache_ext", cg);
	n = read_text(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(name, len, "%s", buf);
	return 0;
}

int cgroup_policy_write(const char *cg, const char *policy)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/memory.cache_ext", cg);
	return write_text(path, policy);
}
