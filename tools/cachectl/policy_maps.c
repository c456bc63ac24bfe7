// SPDX-License-Identifier: GPL-2.0
/*
 * A registered policy's maps, pinned beside its link: see policy_maps.h
 * for why.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cachectl.h"
#include "policy_maps.h"

/* The directory of @policy's map pins into @buf. */
static void policy_maps_dir(const char *policy, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", CTL_MAP_PIN_DIR, policy);
}

int policy_maps_unpin(const char *policy)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	policy_maps_dir(policy, dir, sizeof(dir));
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) && errno != ENOENT) {
			ret = -errno;
			ctl_warn("cannot remove %s: %s", path, strerror(errno));
		}
	}
	closedir(d);
	if (rmdir(dir) && errno != ENOENT) {
		ret = ret ?: -errno;
		ctl_warn("cannot remove %s: %s", dir, strerror(errno));
	}
	return ret;
}

/* @dir/@map, with '_' for '.': bpffs reserves names with dots (EPERM). */
static void pin_name(char *buf, size_t len, const char *dir, const char *map)
{
	char *p;

	snprintf(buf, len, "%s/%s", dir, map);
	for (p = buf + strlen(dir) + 1; *p; p++)
		if (*p == '.')
			*p = '_';
}

int policy_maps_pin(struct bpf_object *obj, const char *policy)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct bpf_map *map;
	int ret;

	ret = policy_maps_unpin(policy);
	if (ret)
		return ret;
	if (mkdir(CTL_MAP_PIN_DIR, 0700) && errno != EEXIST) {
		ret = -errno;
		ctl_warn("cannot create %s: %s", CTL_MAP_PIN_DIR, strerror(errno));
		return ret;
	}
	policy_maps_dir(policy, dir, sizeof(dir));
	if (mkdir(dir, 0700)) {
		ret = -errno;
		ctl_warn("cannot create %s: %s", dir, strerror(errno));
		return ret;
	}
	bpf_object__for_each_map(map, obj) {
		/* The link holds the struct_ops map; libbpf pinned the rest. */
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS ||
		    bpf_map__is_pinned(map))
			continue;
		pin_name(path, sizeof(path), dir, bpf_map__name(map));
		ret = bpf_obj_pin(bpf_map__fd(map), path);
		if (ret) {
			ret = -errno;
			ctl_warn("pinning map %s at %s failed: %s",
				 bpf_map__name(map), path, strerror(errno));
			policy_maps_unpin(policy);
			return ret;
		}
	}
	return 0;
}
