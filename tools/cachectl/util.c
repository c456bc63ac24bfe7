// SPDX-License-Identifier: GPL-2.0
/* Messages, small files, and the preconditions every command checks. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "cachectl.h"

void ctl_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("cachectl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

long read_text(const char *path, char *buf, size_t len)
{
	size_t pos = 0;
	ssize_t n = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (pos + 1 < len && (n = read(fd, buf + pos, len - 1 - pos)) > 0)
		pos += n;
	n = n < 0 ? -errno : 0;
	close(fd);
	buf[pos] = '\0';
	return n ? n : (long)pos;
}

int write_text(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	n = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	close(fd);
	return n;
}

int wants_help(int argc, char **argv, const char *usage)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 1;
		}
	}
	return 0;
}

int need_root(const char *cmd)
{
	if (!geteuid())
		return 0;
	ctl_warn("'%s' needs root (CAP_SYS_ADMIN and CAP_BPF); run it with sudo",
		 cmd);
	return -EPERM;
}

int need_cache_ext_kernel(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int found;

	if (!btf) {
		ctl_warn("cannot read this kernel's BTF (/sys/kernel/btf/vmlinux): boot a kernel built with CONFIG_DEBUG_INFO_BTF and cache_ext");
		return -ENOENT;
	}
	found = btf__find_by_name_kind(btf, "cache_ext_ops",
				       BTF_KIND_STRUCT) >= 0;
	btf__free(btf);
	if (found)
		return 0;
	ctl_warn("this kernel has no cache_ext (no struct cache_ext_ops in its BTF): boot a kernel with the cache_ext patches and CONFIG_CACHE_EXT=y");
	return -EOPNOTSUPP;
}

/* The path of this cachectl's executable in @buf; 0 or -ENOENT. */
static int self_exe(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	return 0;
}

/*
 * @file relative to the build directory the binary runs from (the parent
 * of its own directory: build/cachectl/cachectl -> build/), in @path;
 * 0 if access(@mode) allows it there.
 */
static int beside_build_mode(const char *file, int mode, char *path, size_t len)
{
	char exe[PATH_MAX], *slash;

	if (self_exe(exe, sizeof(exe)))
		return -ENOENT;
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	snprintf(path, len, "%s/../%s", exe, file);
	return access(path, mode) ? -ENOENT : 0;
}

static int beside_build(const char *file, char *path, size_t len)
{
	return beside_build_mode(file, R_OK, path, len);
}

void find_helper(const char *env, const char *file, const char *name,
		 char *path, size_t len)
{
	const char *e = getenv(env);

	if (e && *e)
		snprintf(path, len, "%s", e);
	else if (beside_build_mode(file, X_OK, path, len))
		snprintf(path, len, "%s", name);
}

/* Where the module may be: $CACHECTL_MODULE, next to the build, installed. */
static int find_module(char *path, size_t len)
{
	const char *env = getenv("CACHECTL_MODULE");
	char file[64];
	struct utsname u;

	if (env) {
		snprintf(path, len, "%s", env);
		return 0;
	}
	/* build/cachectl/cachectl -> build/extmod/module/ */
	snprintf(file, sizeof(file), "extmod/module/%s.ko", CTL_MODULE);
	if (!beside_build(file, path, len))
		return 0;
	if (!uname(&u)) {
		snprintf(path, len, "/lib/modules/%s/extra/%s.ko", u.release,
			 CTL_MODULE);
		if (!access(path, R_OK))
			return 0;
	}
	return -ENOENT;
}

/*
 * The parameters to load the module with: $CACHECTL_MODULE_PARAMS, and
 * this cachectl as the helper that preloads the standard suite unless they
 * name one (the module has no default path for it).
 */
static const char *module_params(char *buf, size_t len)
{
	const char *params = getenv("CACHECTL_MODULE_PARAMS");
	char self[PATH_MAX];

	if (!params)
		params = "";
	if (strstr(params, "helper=") || self_exe(self, sizeof(self)))
		return params;
	snprintf(buf, len, "%s%shelper=\"%s\"", params, *params ? " " : "", self);
	return buf;
}

int need_module(void)
{
	char path[PATH_MAX], self_params[PATH_MAX + 256];
	const char *params;
	int fd, ret;

	if (!access(CTL_SYSFS, F_OK))
		return 0;
	ret = need_cache_ext_kernel();
	if (ret)
		return ret;
	if (find_module(path, sizeof(path))) {
		ctl_warn("the %s module is not loaded and was not found; load it (insmod %s.ko) or set CACHECTL_MODULE=/path/to/%s.ko",
			 CTL_MODULE, CTL_MODULE, CTL_MODULE);
		return -ENOENT;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		ctl_warn("cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	params = module_params(self_params, sizeof(self_params));
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	if (ret == -EEXIST)
		ret = 0;
	if (ret == -EPERM)
		ctl_warn("loading %s needs root; run cachectl with sudo", path);
	else if (ret)
		ctl_warn("loading %s failed: %s (see dmesg)", path,
			 strerror(-ret));
	return ret;
}

int find_bpf_object(const char *name, char *path, size_t len)
{
	const char *env = getenv("CACHECTL_BPF_DIR");
	char file[128];

	if (env) {
		snprintf(path, len, "%s/%s.bpf.o", env, name);
		return access(path, R_OK) ? -ENOENT : 0;
	}
	/* build/cachectl/cachectl -> build/bpf/ */
	snprintf(file, sizeof(file), "bpf/%s.bpf.o", name);
	if (!beside_build(file, path, len))
		return 0;
	/* /usr/sbin/cachectl -> /usr/lib/cache_ext/bpf/ */
	snprintf(file, sizeof(file), "lib/cache_ext/bpf/%s.bpf.o", name);
	if (!beside_build(file, path, len))
		return 0;
	snprintf(path, len, "/usr/local/lib/cache_ext/bpf/%s.bpf.o", name);
	return access(path, R_OK) ? -ENOENT : 0;
}

extern char **environ;

int run_capture(char *const argv[], char *out, size_t len, int with_stderr)
{
	posix_spawn_file_actions_t fa;
	int fds[2] = { -1, -1 }, status, err;
	size_t got = 0;
	ssize_t r = 0;
	pid_t pid;

	fflush(NULL);
	if (out && pipe(fds))
		return -1;
	posix_spawn_file_actions_init(&fa);
	if (out) {
		posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
		if (with_stderr)
			posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
		posix_spawn_file_actions_addclose(&fa, fds[0]);
	}
	err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (out)
		close(fds[1]);
	if (err) {
		if (out) {
			snprintf(out, len, "cannot run %s: %s", argv[0], strerror(err));
			close(fds[0]);
		}
		return -1;
	}
	while (out && got + 1 < len && (r = read(fds[0], out + got, len - 1 - got)) > 0)
		got += r;
	if (out) {
		out[got] = '\0';
		/* Drain the rest, so that the child never blocks on a full pipe. */
		while (r > 0) {
			char sink[4096];

			r = read(fds[0], sink, sizeof(sink));
		}
		close(fds[0]);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
