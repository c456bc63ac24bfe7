// SPDX-License-Identifier: GPL-2.0
/* Members of a struct_ops map's initial value, found by BTF. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "struct_ops.h"

/* Points *@field at member @member of @map's value. */
static int find_member(struct bpf_object *obj, struct bpf_map *map,
		       const char *member, char **field, size_t *field_len)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_member *m;
	const struct btf_type *t;
	size_t size;
	char *data;
	int i;

	if (!btf)
		return -EINVAL;
	t = btf__type_by_id(btf, bpf_map__btf_value_type_id(map));
	data = bpf_map__initial_value(map, &size);
	if (!t || !btf_is_struct(t) || !data)
		return -EINVAL;

	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		size_t off = btf_member_bit_offset(t, i) / 8;
		long msize;

		if (strcmp(btf__name_by_offset(btf, m->name_off), member))
			continue;
		msize = btf__resolve_size(btf, m->type);
		if (msize <= 0 || off + msize > size)
			return -EINVAL;
		*field = data + off;
		*field_len = msize;
		return 0;
	}
	return -ENOENT;
}

int struct_ops_set_name(struct bpf_object *obj, struct bpf_map *map,
			const char *name)
{
	size_t len = strlen(name), field_len;
	char *field;
	int ret;

	ret = find_member(obj, map, "name", &field, &field_len);
	if (ret)
		return ret;
	if (len >= field_len)
		return -ENAMETOOLONG;
	memset(field, 0, field_len);
	memcpy(field, name, len);
	return 0;
}

int struct_ops_get_name(struct bpf_object *obj, struct bpf_map *map,
			char *buf, size_t len)
{
	size_t field_len;
	char *field;
	int ret;

	ret = find_member(obj, map, "name", &field, &field_len);
	if (ret)
		return ret;
	if (!len || strnlen(field, field_len) >= len)
		return -ENAMETOOLONG;
	memcpy(buf, field, strnlen(field, field_len));
	buf[strnlen(field, field_len)] = '\0';
	return 0;
}

int struct_ops_set_cgroup_id(struct bpf_object *obj, struct bpf_map *map,
			     uint64_t id)
{
	size_t field_len;
	char *field;
	int ret;

	ret = find_member(obj, map, "cgroup_id", &field, &field_len);
	if (ret)
		return ret;
	if (field_len != sizeof(id))
		return -EINVAL;
	memcpy(field, &id, sizeof(id));
	return 0;
}

struct bpf_link *struct_ops_attach(struct bpf_map *map, const char *cgroup_path)
{
	LIBBPF_OPTS(bpf_struct_ops_opts, opts, .flags = BPF_F_CGROUP_FD);
	struct bpf_link *link;
	int fd, err;

	if (!cgroup_path)
		return bpf_map__attach_struct_ops(map);
	fd = open(cgroup_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	opts.target_fd = fd;
	link = bpf_map__attach_struct_ops_opts(map, &opts);
	err = errno;
	close(fd);
	errno = err;
	return link;
}
