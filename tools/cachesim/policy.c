// SPDX-License-Identifier: GPL-2.0
/*
 * A policy for the simulator is its BPF source built as a shared object
 * against cachesim's headers.  Its struct_ops variable and its knobs are
 * found by name in the object's symbol table (libelf), then by address
 * with dlsym().  Knobs are the policy's global variables, as cachectl
 * attach --set sets them before load; "const volatile" ones live in
 * read-only memory, made writable for the moment of the write.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "policy.h"

struct sym_info {
	char name[64];
	size_t size;
	bool found;
};

/* Walks @path's symbol table: the struct_ops variable, or knob @var. */
static int elf_find(const char *path, const char *var, struct sym_info *out,
		    char *err, size_t len)
{
	size_t shstrndx, nr_ops = 0, ops_sec = 0, ops_link_sec = 0;
	Elf_Scn *scn = NULL, *symtab = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	Elf *elf;
	int fd, ret = 0;
	size_t i;

	out->found = false;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return snprintf(err, len, "libelf: %s", elf_errmsg(-1)), -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return snprintf(err, len, "%s: %s", path, strerror(errno)), -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(err, len, "%s: not an ELF object", path);
		ret = -EINVAL;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		gelf_getshdr(scn, &sh);
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (name && !strcmp(name, ".struct_ops.link"))
			ops_link_sec = elf_ndxscn(scn);
		else if (name && !strcmp(name, ".struct_ops"))
			ops_sec = elf_ndxscn(scn);
	}
	if (!symtab) {
		snprintf(err, len, "%s: no symbol table (stripped?)", path);
		ret = -EINVAL;
		goto out;
	}
	gelf_getshdr(symtab, &sh);
	data = elf_getdata(symtab, NULL);
	for (i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *name;

		gelf_getsym(data, i, &sym);
		/* Not the linker's own markers (__TMC_END__ and the like). */
		if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || !sym.st_size ||
		    GELF_ST_BIND(sym.st_info) != STB_GLOBAL)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name)
			continue;
		if (var) {
			if (strcmp(name, var))
				continue;
		} else if (sym.st_shndx != ops_link_sec &&
			   sym.st_shndx != ops_sec) {
			continue;
		} else if (nr_ops++) {
			snprintf(err, len, "%s: more than one struct_ops variable (%s, %s)",
				 path, out->name, name);
			ret = -EINVAL;
			goto out;
		}
		snprintf(out->name, sizeof(out->name), "%s", name);
		out->size = sym.st_size;
		out->found = true;
		if (var)
			break;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* Writes @value into knob @addr of @size bytes: a number or a string. */
static int knob_write(void *addr, size_t size, const char *var,
		      const char *value, char *err, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)addr & ~(uintptr_t)(page - 1);
	size_t span = (uintptr_t)addr + size - start;
	unsigned long long v;
	char *end;
	bool number;

	errno = 0;
	v = strtoull(value, &end, 0);
	number = *value && !*end && !errno && value[0] != '-';
	/* Booleans as cachectl attach --set takes them. */
	if (!number && size == 1) {
		static const char *const yes[] = { "true", "yes", "on" };
		static const char *const no[] = { "false", "no", "off" };
		unsigned int i;

		for (i = 0; i < 3 && !number; i++) {
			if (!strcmp(value, yes[i]) || !strcmp(value, no[i])) {
				v = !strcmp(value, yes[i]);
				number = true;
			}
		}
	}
	if (!number && size <= 8 && size != 0 && (size & (size - 1)) == 0) {
		snprintf(err, len, "knob %s: '%s' is not a number", var, value);
		return -EINVAL;
	}
	if (number && size < 8 && v >> (8 * size)) {
		snprintf(err, len, "knob %s: %s does not fit in %zu bytes", var,
			 value, size);
		return -ERANGE;
	}
	if (!number && strlen(value) + 1 > size) {
		snprintf(err, len, "knob %s: '%s' is longer than %zu bytes", var,
			 value, size - 1);
		return -ERANGE;
	}
	if (mprotect((void *)start, span, PROT_READ | PROT_WRITE)) {
		snprintf(err, len, "knob %s: mprotect: %s", var, strerror(errno));
		return -errno;
	}
	if (number)
		memcpy(addr, &v, size);	/* little endian */
	else
		memcpy(addr, value, strlen(value) + 1);
	return 0;
}

static void *policy_dl;

void *sim_policy_function(const char *name)
{
	return policy_dl ? dlsym(policy_dl, name) : NULL;
}

int sim_policy_open(const char *path, const struct sim_knob *knobs,
		    unsigned int nr_knobs, const struct cache_ext_ops **ops,
		    char *err, size_t len)
{
	struct sym_info info;
	unsigned int i;
	void *dl;
	int ret;

	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		snprintf(err, len, "%s", dlerror());
		return -ENOENT;
	}
	policy_dl = dl;
	ret = elf_find(path, NULL, &info, err, len);
	if (ret)
		return ret;
	if (!info.found) {
		snprintf(err, len, "%s: no struct cache_ext_ops in SEC(\".struct_ops.link\")",
			 path);
		return -EINVAL;
	}
	*ops = dlsym(dl, info.name);
	if (!*ops) {
		snprintf(err, len, "%s: %s", path, dlerror());
		return -EINVAL;
	}
	for (i = 0; i < nr_knobs; i++) {
		void *addr;

		ret = elf_find(path, knobs[i].var, &info, err, len);
		if (ret)
			return ret;
		addr = info.found ? dlsym(dl, knobs[i].var) : NULL;
		if (!addr || !info.size) {
			snprintf(err, len, "%s has no knob '%s'", path, knobs[i].var);
			return -ENOENT;
		}
		ret = knob_write(addr, info.size, knobs[i].var, knobs[i].value,
				 err, len);
		if (ret)
			return ret;
	}
	return 0;
}
