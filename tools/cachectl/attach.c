// SPDX-License-Identifier: GPL-2.0
/*
 * What cachectl attach, preload and detach share: load a policy object,
 * register it with a struct_ops link pinned under bpffs (its maps beside
 * it) so that it outlives this process, maybe bind it to a cgroup; unpin
 * it again.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "attach.h"
#include "cachectl.h"
#include "cgroup.h"
#include "policy_maps.h"
#include "setvar.h"
#include "struct_ops.h"

/* -v of the command being run: libbpf's debug messages too. */
static int verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int make_pin_dir(void)
{
	struct statfs sfs;

	if (statfs("/sys/fs/bpf", &sfs) || sfs.f_type != BPF_FS_MAGIC) {
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700")) {
			ctl_warn("no bpf file system at /sys/fs/bpf and mounting one failed: %s",
				 strerror(errno));
			return -errno;
		}
	}
	if (mkdir(CTL_PIN_DIR, 0700) && errno != EEXIST) {
		ctl_warn("cannot create %s: %s", CTL_PIN_DIR, strerror(errno));
		return -errno;
	}
	return 0;
}

/* libbpf's own error codes (4000 and up) have no strerror() text. */
static const char *libbpf_error(int err)
{
	static char buf[128];

	if (libbpf_strerror(err, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "error %d", err);
	return buf;
}

/* The object's one cache_ext_ops map. */
static struct bpf_map *find_ops_map(struct bpf_object *obj, const char *file)
{
	struct bpf_map *map, *found = NULL;
	const struct btf_type *t;
	const struct btf *btf;
	const char *type;

	bpf_object__for_each_map(map, obj) {
		if (bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		if (found) {
			ctl_warn("%s has more than one struct_ops map; a policy object has one struct cache_ext_ops",
				 file);
			return NULL;
		}
		found = map;
	}
	if (!found) {
		ctl_warn("%s has no struct_ops map: not a cache_ext policy (see Documentation/bpf/cache_ext.rst)",
			 file);
		return NULL;
	}
	btf = bpf_object__btf(obj);
	t = btf ? btf__type_by_id(btf, bpf_map__btf_value_type_id(found)) : NULL;
	type = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	if (!type || strcmp(type, "cache_ext_ops")) {
		ctl_warn("%s: its struct_ops map '%s' is a struct %s, not a struct cache_ext_ops: not a cache_ext policy",
			 file, bpf_map__name(found), type ? type : "of unknown type");
		return NULL;
	}
	return found;
}

int policy_name_valid(const char *name)
{
	const char *p;

	if (!*name)
		return 0;
	for (p = name; *p; p++)
		if (*p == '/' || *p < ' ')
			return 0;
	return strcmp(name, ".") && strcmp(name, "..");
}

/* Applies the --set arguments; all are checked before any error returns. */
static int apply_sets(struct bpf_object *obj, struct attach_args *a)
{
	struct ctl_err err;
	char *var, *value;
	int i, ret = 0;

	for (i = 0; i < a->nr_sets; i++) {
		if (setvar_split(a->sets[i], &var, &value, &err) ||
		    setvar_apply(obj, var, value, &err)) {
			ctl_warn("%s", err.msg);
			ret = -EINVAL;
		}
	}
	return ret;
}

/*
 * The state of a registered policy from the module's sysfs ("active",
 * "ejected: REASON"), or "" if the module or the policy is not there.
 */
static void policy_state(const char *name, char *state, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), CTL_SYSFS "/policies/%s/state", name);
	if (read_text(path, state, len) < 0)
		state[0] = '\0';
	state[strcspn(state, "\n")] = '\0';
}

int detach_pinned(const char *name)
{
	struct bpf_link *link;
	char pin[PATH_MAX];
	int ret;

	snprintf(pin, sizeof(pin), "%s/%s", CTL_PIN_DIR, name);
	link = bpf_link__open(pin);
	if (!link) {
		ctl_warn("no policy '%s' attached by cachectl (no %s); see cachectl list",
			 name, pin);
		return -ENOENT;
	}
	/* Unregister now, not when the last reference goes away. */
	ret = bpf_link__detach(link);
	if (ret && ret != -ENOLINK)
		ctl_warn("detaching '%s': %s; removing the pin unregisters it once nothing else holds it",
			 name, strerror(-ret));
	if (unlink(pin)) {
		ret = -errno;
		ctl_warn("cannot remove %s: %s", pin, strerror(errno));
	} else {
		ret = 0;
	}
	bpf_link__destroy(link);
	/* Unregistered first: its timers stop with the maps' last pins. */
	return policy_maps_unpin(name) ?: ret;
}

int attach_one(struct attach_args *a)
{
	char name[64], pin[PATH_MAX], cg_path[PATH_MAX], state[160];
	struct bpf_object *obj = NULL;
	struct bpf_link *link = NULL;
	struct bpf_map *map;
	uint64_t cg_id = 0;
	int ret;

	if (need_root("attach") || (!a->preloading && need_module()))
		return -EPERM;
	verbose = a->verbose;
	if (a->cgroup && cgroup_open_arg(a->cgroup, cg_path, sizeof(cg_path),
					 &cg_id))
		return -EINVAL;
	libbpf_set_print(libbpf_print);

	obj = bpf_object__open_file(a->file, NULL);
	if (!obj) {
		ret = errno;
		if (ret >= __LIBBPF_ERRNO__START)
			ctl_warn("%s is not a BPF object file (%s); attach a policy built with clang -target bpf, such as build/bpf/fifo.bpf.o",
				 a->file, libbpf_error(ret));
		else
			ctl_warn("cannot open %s: %s", a->file, strerror(ret));
		return EXIT_FAIL;
	}
	ret = -EINVAL;
	map = find_ops_map(obj, a->file);
	if (!map)
		goto out;
	if (a->name) {
		ret = struct_ops_set_name(obj, map, a->name);
		if (ret) {
			ctl_warn("cannot name the policy '%s': %s", a->name,
				 ret == -ENAMETOOLONG ? "name too long" :
				 "the struct_ops map has no name member");
			goto out;
		}
	}
	ret = struct_ops_get_name(obj, map, name, sizeof(name));
	if (ret || !policy_name_valid(name)) {
		ctl_warn("%s: the policy has no usable name; give one with --name",
			 a->file);
		ret = -EINVAL;
		goto out;
	}
	ret = apply_sets(obj, a);
	if (ret)
		goto out;

	snprintf(pin, sizeof(pin), "%s/%s", CTL_PIN_DIR, name);
	ret = make_pin_dir();
	if (ret)
		goto out;
	if (!access(pin, F_OK) && a->replace) {
		ret = detach_pinned(name);
		if (ret)
			goto out;
		printf("detached the %s attached before\n", name);
	} else if (!access(pin, F_OK)) {
		policy_state(name, state, sizeof(state));
		if (!strncmp(state, "ejected", 7))
			ctl_warn("policy '%s' is attached (%s) but was %s; attach it again with --replace",
				 name, pin, state);
		else
			ctl_warn("a policy named '%s' is already attached (%s); bind it (cachectl bind CGROUP %s), replace it (--replace), or attach this one with --name",
				 name, pin, name);
		ret = -EEXIST;
		goto out;
	}

	ret = bpf_object__load(obj);
	if (ret) {
		ctl_warn("loading %s failed: %s%s", a->file, libbpf_error(-ret),
			 verbose ? "" : " (run with -v for the verifier log)");
		goto out;
	}
	/* Bound as it registers: the link is created on the cgroup's fd. */
	link = struct_ops_attach(map, a->cgroup ? cg_path : NULL);
	if (!link) {
		ret = -errno;
		if (a->cgroup && ret == -EBUSY)
			ctl_warn("cannot attach '%s' to %s: the cgroup has a policy; unbind it first (cachectl unbind %s)",
				 name, cg_path, cg_path);
		else
			ctl_warn("registering policy '%s'%s%s failed: %s%s", name,
				 a->cgroup ? " on " : "", a->cgroup ? cg_path : "",
				 strerror(-ret), ret == -EEXIST ?
				 " (a policy of that name is registered; see cachectl list)" :
				 " (see dmesg)");
		goto out;
	}
	ret = bpf_link__pin(link, pin);
	if (ret) {
		ctl_warn("pinning the link at %s failed: %s", pin,
			 strerror(-ret));
		goto out;
	}
	ret = policy_maps_pin(obj, name);
	if (ret) {
		ctl_warn("the policy '%s' was detached again", name);
		bpf_link__unpin(link);
		bpf_link__detach(link);
		goto out;
	}

	printf("attached %s (pinned at %s)", name, pin);
	if (a->cgroup)
		printf(", bound to %s", cg_path);
	printf("\n");
out:
	bpf_link__destroy(link);	/* the pin keeps it registered */
	bpf_object__close(obj);
	return ret;
}
