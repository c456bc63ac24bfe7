// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mman.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cgroup_util.h"
#include "cache_ext_util.h"
#include "hostile.skel.h"
#include "setvar.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

#define CGROUP_ROOT "/sys/fs/cgroup"

const char *scratch_dir(void)
{
	const char *dir = getenv("CACHE_EXT_SCRATCH");

	return dir && *dir ? dir : NULL;
}

void scratch_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s.%d", scratch_dir(), name, getpid());
}

static void fill_page(char *buf, size_t index)
{
	uint64_t *w = (uint64_t *)buf;
	size_t i;

	for (i = 0; i < PAGE_SZ / sizeof(*w); i++)
		w[i] = (index << 20) ^ (i * 0x9e3779b97f4a7c15ull);
}

int check_page(const void *buf, size_t index)
{
	char want[PAGE_SZ];

	fill_page(want, index);
	return memcmp(buf, want, PAGE_SZ) ? -EIO : 0;
}

int drop_file_cache(const char *path)
{
	int fd, ret;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	ret = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return -ret;
}

int write_file_cached(const char *path, size_t pages)
{
	char buf[PAGE_SZ];
	size_t i;
	int fd, ret = 0;

	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		return -errno;
	for (i = 0; i < pages && !ret; i++) {
		fill_page(buf, i);
		if (write(fd, buf, PAGE_SZ) != PAGE_SZ)
			ret = -EIO;
	}
	if (!ret && fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

int make_file(const char *path, size_t pages)
{
	return write_file_cached(path, pages) ?: drop_file_cache(path);
}

int read_and_verify(const char *path)
{
	char buf[PAGE_SZ];
	size_t i;
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	for (i = 0; !ret; i++) {
		n = pread(fd, buf, PAGE_SZ, i * PAGE_SZ);
		if (n == 0)
			break;
		if (n != PAGE_SZ || check_page(buf, i))
			ret = -EIO;
	}
	close(fd);
	return ret;
}

int cg_read_file_once(const char *cgroup, void *path)
{
	return read_and_verify(path) ? EXIT_FAILURE : EXIT_SUCCESS;
}

int cg_read_file_twice(const char *cgroup, void *path)
{
	return read_and_verify(path) || read_and_verify(path) ?
	       EXIT_FAILURE : EXIT_SUCCESS;
}

int read_files(char (*paths)[PATH_MAX], int nr)
{
	int i, ret;

	for (i = 0; i < nr; i++) {
		ret = read_and_verify(paths[i]);
		if (ret)
			return ret;
	}
	return 0;
}

long vmstat(const char *name)
{
	char line[128], key[64];
	long val = -1, v;
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", key, &v) == 2 && !strcmp(key, name))
			val = v;
	if (f)
		fclose(f);
	return val;
}

long cached_pages(const char *path)
{
	return cached_range(path, 0, 0);
}

long cached_range(const char *path, size_t first, size_t nr)
{
	struct cachestat_range range = { first * PAGE_SZ, nr * PAGE_SZ };
	struct cachestat cs;
	int fd, ret;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	ret = syscall(__NR_cachestat, fd, &range, &cs, 0);
	close(fd);
	return ret ? -errno : (long)cs.nr_cache;
}

char *memcg_create(const char *name)
{
	char *path;

	if (cg_read_strstr(CGROUP_ROOT, "cgroup.subtree_control", "memory") &&
	    cg_write(CGROUP_ROOT, "cgroup.subtree_control", "+memory"))
		return NULL;

	path = cg_name(CGROUP_ROOT, name);
	if (!path)
		return NULL;
	cg_destroy(path);	/* left over by an earlier, killed run */
	if (cg_create(path)) {
		free(path);
		return NULL;
	}
	return path;
}

uint64_t cgroup_id_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

int set_lru_gen(int on)
{
	const char *path = "/sys/kernel/mm/lru_gen/enabled";
	char buf[32];

	if (write_text(path, on ? "y" : "n", 1) < 0)
		return -errno;
	if (read_text(path, buf, sizeof(buf)) < 0)
		return -errno;
	/* Reads back as a mask of MGLRU features: 0x0000 when off. */
	return (strtoul(buf, NULL, 16) != 0) == !!on ? 0 : -EIO;
}

#define TRACEFS "/sys/kernel/tracing"

/* Empty the trace buffer, as "echo > trace" does. */
static int trace_clear(void)
{
	int fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int trace_start(void)
{
	if (write_text(TRACEFS "/events/cache_ext/enable", "1", 1) < 0)
		return -errno;
	/* Big enough for a test's events. */
	if (write_text(TRACEFS "/buffer_size_kb", "8192", 4) < 0)
		return -errno;
	return trace_clear();
}

long trace_count(const char *first, ...)
{
	char line[1024];
	long count = 0;
	FILE *f;

	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *needle = first;
		bool all = true;
		va_list ap;

		va_start(ap, first);
		for (; needle && all; needle = va_arg(ap, const char *))
			all = strstr(line, needle);
		va_end(ap);
		count += all;
	}
	fclose(f);
	return count;
}

long trace_sum(const char *event, const char *field)
{
	char line[1024], *p;
	long sum = 0;
	FILE *f;

	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, event) ? strstr(line, field) : NULL;
		if (p)
			sum += strtol(p + strlen(field), NULL, 10);
	}
	fclose(f);
	return sum;
}

int trace_unbind_registry(const char *policy, long *tracked, long *bytes)
{
	char line[1024], event[64], *p;
	FILE *f;
	int ret = -ENOENT;

	snprintf(event, sizeof(event), "cache_ext_unbind: policy=%s ", policy);
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, event) ? strstr(line, "tracked=") : NULL;
		if (p && sscanf(p, "tracked=%ld bytes=%ld", tracked, bytes) == 2)
			ret = 0;
	}
	fclose(f);
	return ret;
}

int write_str(const char *path, const char *val)
{
	return write_text(path, (char *)val, strlen(val)) < 0 ? -errno : 0;
}

/* The parameters this process changed, with the values they had. */
static struct {
	char name[32];
	char was[32];
} saved_params[8];
static int nr_saved_params;

static void core_param_path(char path[PATH_MAX], const char *name)
{
	snprintf(path, PATH_MAX, "/sys/module/cache_ext/parameters/%.64s",
		 name);
}

static void save_core_param(const char *name)
{
	char path[PATH_MAX];
	FILE *f;
	int i;

	for (i = 0; i < nr_saved_params; i++)
		if (!strcmp(saved_params[i].name, name))
			return;
	if (nr_saved_params == (int)(sizeof(saved_params) / sizeof(saved_params[0])))
		return;
	core_param_path(path, name);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(saved_params[i].was, sizeof(saved_params[i].was), f)) {
		saved_params[i].was[strcspn(saved_params[i].was, "\n")] = '\0';
		snprintf(saved_params[i].name, sizeof(saved_params[i].name),
			 "%s", name);
		nr_saved_params++;
	}
	fclose(f);
}

int set_core_param(const char *name, long val)
{
	char path[PATH_MAX], buf[32];

	save_core_param(name);
	core_param_path(path, name);
	snprintf(buf, sizeof(buf), "%ld", val);
	return write_str(path, buf);
}

int restore_core_params(void)
{
	char path[PATH_MAX];
	int i, ret = 0, err;

	for (i = 0; i < nr_saved_params; i++) {
		core_param_path(path, saved_params[i].name);
		err = write_str(path, saved_params[i].was);
		ret = ret ?: err;
	}
	nr_saved_params = 0;
	return ret;
}

struct bpf_link *attach_hostile(uint64_t cgroup_id, const char *name,
				struct hostile **skel)
{
	return attach_hostile_spin(cgroup_id, name, 500000000, 1, skel);
}

static struct bpf_link *attach_opened_hostile(uint64_t cgroup_id,
					      const char *name,
					      struct hostile **skel);

void detach_hostile(struct bpf_link *link, struct hostile *skel)
{
	bpf_link__destroy(link);
	hostile__destroy(skel);
}

struct bpf_link *attach_hostile_spin(uint64_t cgroup_id, const char *name,
				     uint64_t spin_ns, unsigned int spin_every,
				     struct hostile **skel)
{
	*skel = hostile__open();
	if (!*skel)
		return NULL;
	(*skel)->rodata->spin_ns = spin_ns;
	(*skel)->rodata->spin_every = spin_every;
	return attach_opened_hostile(cgroup_id, name, skel);
}

struct bpf_link *attach_hostile_event_spin(uint64_t cgroup_id,
					   const char *name, uint64_t spin_ns,
					   struct hostile **skel)
{
	*skel = hostile__open();
	if (!*skel)
		return NULL;
	(*skel)->rodata->added_spin_ns = spin_ns;
	(*skel)->rodata->removed_spin_ns = spin_ns;
	(*skel)->rodata->accessed_spin_ns = spin_ns;
	return attach_opened_hostile(cgroup_id, name, skel);
}

/* Load the opened hostile skeleton with only map @name, and attach it. */
static struct bpf_link *attach_opened_hostile(uint64_t cgroup_id,
					      const char *name,
					      struct hostile **skel)
{
	struct bpf_map *map, *chosen = NULL;

	bpf_object__for_each_map(map, (*skel)->obj) {
		if (bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		if (strcmp(bpf_map__name(map), name)) {
			bpf_map__set_autocreate(map, false);
			continue;
		}
		chosen = map;
		/* All the maps share the skeleton's shadow layout. */
		((typeof((*skel)->struct_ops.hostile_dup))
			bpf_map__initial_value(map, NULL))->cgroup_id = cgroup_id;
	}
	if (!chosen || hostile__load(*skel))
		return NULL;
	return bpf_map__attach_struct_ops(chosen);
}

int policy_attach(struct policy *p, const char *file, const char *name,
		  uint64_t cgroup_id, const char *knobs)
{
	char path[PATH_MAX], buf[512], *knob, *save, *var, *value;
	struct bpf_map *map, *ops = NULL;
	struct ctl_err err;
	int ret = -EINVAL;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "%s/%s.bpf.o",
		 getenv("BPF_OBJ_DIR") ?: BPF_OBJ_DIR, file);
	p->obj = bpf_object__open_file(path, NULL);
	if (!p->obj) {
		ret = -errno;
		fprintf(stderr, "policy: cannot open %s: %s\n", path, strerror(errno));
		return ret;
	}
	bpf_object__for_each_map(map, p->obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			ops = map;
	if (!ops)
		goto fail;
	snprintf(buf, sizeof(buf), "%s", knobs ?: "");
	for (knob = strtok_r(buf, " ", &save); knob;
	     knob = strtok_r(NULL, " ", &save)) {
		if (setvar_split(knob, &var, &value, &err) ||
		    setvar_apply(p->obj, var, value, &err)) {
			fprintf(stderr, "policy %s: %s\n", file, err.msg);
			goto fail;
		}
	}
	if ((name && struct_ops_set_name(p->obj, ops, name)) ||
	    struct_ops_set_cgroup_id(p->obj, ops, cgroup_id))
		goto fail;
	ret = bpf_object__load(p->obj);
	if (ret) {
		fprintf(stderr, "policy %s: load: %s\n", file, strerror(-ret));
		goto fail;
	}
	p->link = bpf_map__attach_struct_ops(ops);
	if (!p->link) {
		ret = -errno;
		fprintf(stderr, "policy %s: attach: %s\n", file, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	bpf_object__close(p->obj);
	p->obj = NULL;
	return ret;
}

void policy_detach(struct policy *p)
{
	bpf_link__destroy(p->link);
	bpf_object__close(p->obj);
	p->link = NULL;
	p->obj = NULL;
}

void *policy_var(struct policy *p, const char *var)
{
	return p->obj ? setvar_addr(p->obj, var, NULL) : NULL;
}

int policy_map_fd(struct policy *p, const char *name)
{
	struct bpf_map *map = p->obj ?
		bpf_object__find_map_by_name(p->obj, name) : NULL;

	return map ? bpf_map__fd(map) : -1;
}

int policy_run(struct policy *p, const char *name)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct bpf_program *prog = p->obj ?
		bpf_object__find_program_by_name(p->obj, name) : NULL;

	if (!prog)
		return -ENOENT;
	return bpf_prog_test_run_opts(bpf_program__fd(prog), &opts) ? -errno :
	       opts.retval;
}

int ctl_module_load(void)
{
	/* Tests register their own policies: none preloaded under their names. */
	return ctl_module_load_params("preload=");
}

int ctl_module_load_params(const char *params)
{
	const char *ko = getenv("CACHE_EXT_CTL_KO");
	int fd, ret;

	if (!access("/sys/kernel/cache_ext", F_OK))
		return 0;
	if (!ko)
		return -ENOENT;
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, params, 0);
	close(fd);
	return ret ? -errno : 0;
}

int ctl_module_unload(void)
{
	return syscall(__NR_delete_module, "cache_ext_ctl", O_NONBLOCK) ?
	       -errno : 0;
}

long trace_ejections(const char *policy)
{
	char what[64], line[512];
	long n = 0;
	FILE *f;

	snprintf(what, sizeof(what), "policy=%s ", policy);
	f = fopen("/sys/kernel/tracing/trace", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "cache_ext_eject:") || !strstr(line, what))
			continue;
		fprintf(stderr, "# %s", line);
		n++;
	}
	fclose(f);
	return n;
}

long long binding_stat(uint64_t cg_id, const char *key)
{
	char path[128], text[2048], *p;

	snprintf(path, sizeof(path), "/sys/kernel/debug/cache_ext/%llu/stats",
		 (unsigned long long)cg_id);
	if (read_text(path, text, sizeof(text)) < 0)
		return -1;
	/* At the start of a line: "tracked " is also the end of "untracked ". */
	for (p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, strlen(key)))
			return strtoll(p + strlen(key), NULL, 10);
	return -1;
}

int kmsg_contains(const char *text)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf;
	int n, found;

	if (len <= 0)
		return -errno;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (n < 0) {
		free(buf);
		return -errno;
	}
	buf[n] = '\0';
	found = !!strstr(buf, text);
	free(buf);
	return found;
}

int wait_for_text(const char *path, const char *want, int ms)
{
	char buf[256];
	int i;

	for (i = 0; i < ms / 10; i++) {
		if (read_text(path, buf, sizeof(buf)) >= 0 && !strcmp(buf, want))
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

int wait_for_selection(const char *cgroup, const char *want)
{
	char path[PATH_MAX], buf[128];
	int i;

	snprintf(path, sizeof(path), "%s/memory.cache_ext", cgroup);
	for (i = 0; i < 500; i++) {
		if (read_text(path, buf, sizeof(buf)) < 0)
			return -errno;
		if (!strcmp(buf, want))
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

unsigned long long link_cgroup_id(int link_fd)
{
	unsigned long long id = 0;
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", link_fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cgroup_id: %llu", &id) == 1)
			break;
	fclose(f);
	return id;
}
