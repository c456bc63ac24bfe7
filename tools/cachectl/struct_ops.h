/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The name and cgroup_id of a cache_ext_ops struct_ops map, read and
 * written in the map's initial value through BTF before the object is
 * loaded, and its registration on a cgroup.  Shared by cachectl and the
 * selftests.
 */
#ifndef CACHECTL_STRUCT_OPS_H
#define CACHECTL_STRUCT_OPS_H

#include <stddef.h>
#include <stdint.h>

struct bpf_object;
struct bpf_map;

/* 0, -ENAMETOOLONG if @name does not fit, -ENOENT/-EINVAL if no name. */
int struct_ops_set_name(struct bpf_object *obj, struct bpf_map *map,
			const char *name);
/* Copies the current name into @buf; 0 or -errno as above. */
int struct_ops_get_name(struct bpf_object *obj, struct bpf_map *map,
			char *buf, size_t len);

/* Sets cgroup_id: the policy binds to that cgroup when registered. */
int struct_ops_set_cgroup_id(struct bpf_object *obj, struct bpf_map *map,
			     uint64_t id);

/*
 * Registers the loaded policy of @map, bound to the cgroup directory
 * @cgroup_path if not NULL: its link is created on the cgroup's fd
 * (BPF_F_CGROUP_FD).  The link, or NULL with errno set: the errors of
 * registration and of binding.
 */
struct bpf_link *struct_ops_attach(struct bpf_map *map, const char *cgroup_path);

#endif /* CACHECTL_STRUCT_OPS_H */
