// SPDX-License-Identifier: GPL-2.0
/*
 * Setting a policy's global variables from the command line.  libbpf maps
 * each data section of the object (.data, .bss, .rodata) to an array map
 * whose initial value is writable until the object is loaded; the section's
 * BTF (a DATASEC) gives each variable's offset and type.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "setvar.h"

int setvar_split(char *arg, char **var, char **value, struct ctl_err *err)
{
	char *eq = strchr(arg, '=');
	char *p;

	if (!eq)
		return ctl_errf(err, "--set wants VAR=VALUE, not '%s'", arg);
	*eq = '\0';
	if (!*arg || isdigit((unsigned char)*arg))
		return ctl_errf(err, "--set: '%s' is not a variable name", arg);
	for (p = arg; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return ctl_errf(err, "--set: '%s' is not a variable name",
					arg);
	*var = arg;
	*value = eq + 1;
	return 0;
}

/* A settable variable: where its bytes are, and its resolved type. */
struct var_loc {
	const struct btf *btf;
	const struct btf_type *type;	/* modifiers and typedefs skipped */
	char *data;
	size_t size;
};

static bool section_is_data(const struct bpf_map *map)
{
	const char *name = bpf_map__name(map);
	const char *dot = strrchr(name, '.');

	/* libbpf names them "<obj prefix>.data", ".bss", ".rodata" */
	return bpf_map__is_internal(map) && dot &&
	       (!strcmp(dot, ".data") || !strcmp(dot, ".bss") ||
		!strcmp(dot, ".rodata") || !strncmp(dot, ".data.", 6) ||
		!strncmp(dot, ".rodata.", 8));
}

typedef int (*var_fn)(const char *name, struct var_loc *loc, void *ctx);

/* Calls @fn for every variable of every data section; stops on non-zero. */
static int walk_vars(struct bpf_object *obj, var_fn fn, void *ctx)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map;

	if (!btf)
		return 0;
	bpf_object__for_each_map(map, obj) {
		const struct btf_var_secinfo *vs;
		const struct btf_type *sec;
		size_t size;
		char *data;
		int i, ret;

		if (!section_is_data(map))
			continue;
		sec = btf__type_by_id(btf, bpf_map__btf_value_type_id(map));
		data = bpf_map__initial_value(map, &size);
		if (!sec || !btf_is_datasec(sec) || !data)
			continue;
		vs = btf_var_secinfos(sec);
		for (i = 0; i < btf_vlen(sec); i++, vs++) {
			const struct btf_type *var = btf__type_by_id(btf, vs->type);
			struct var_loc loc;

			if (!var || !btf_is_var(var) ||
			    vs->offset + vs->size > size)
				continue;
			loc.btf = btf;
			loc.type = btf__type_by_id(btf, btf__resolve_type(btf, var->type));
			loc.data = data + vs->offset;
			loc.size = vs->size;
			ret = fn(btf__name_by_offset(btf, var->name_off), &loc,
				 ctx);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]))
			return *out = true, 0;
		if (!strcasecmp(s, no[i]))
			return *out = false, 0;
	}
	return -EINVAL;
}

/*
 * Stores the low @size bytes of @v.  BPF objects have the byte order of
 * the machine they are loaded on, which is this one.
 */
static void store_raw(char *data, size_t size, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(data, &v, size);
#else
	memcpy(data, (char *)&v + sizeof(v) - size, size);
#endif
}

/* Parses an integer of @size bytes, signed or not, and stores it. */
static int store_int(const char *s, size_t size, bool is_signed, char *data)
{
	unsigned long long u;
	long long v;
	char *end;

	if (!*s || isspace((unsigned char)*s) || size < 1 || size > 8)
		return -EINVAL;
	errno = 0;
	if (is_signed) {
		long long max = size == 8 ? INT64_MAX :
				(long long)((1ULL << (size * 8 - 1)) - 1);

		v = strtoll(s, &end, 0);
		if (*end)
			return -EINVAL;
		if (errno || v > max || v < -max - 1)
			return -ERANGE;
		store_raw(data, size, (uint64_t)v);
		return 0;
	}
	if (*s == '-')
		return isdigit((unsigned char)s[1]) ? -ERANGE : -EINVAL;
	u = strtoull(s, &end, 0);
	if (*end)
		return -EINVAL;
	if (errno || (size < 8 && u >> (size * 8)))
		return -ERANGE;
	store_raw(data, size, u);
	return 0;
}

/* An enum variable takes one of its enumerators' names, or a number. */
static int store_enum(const struct var_loc *loc, const char *s)
{
	const struct btf_type *t = loc->type;
	int i;

	for (i = 0; i < btf_vlen(t); i++) {
		const char *name;
		uint64_t v;

		if (btf_is_enum(t)) {
			name = btf__name_by_offset(loc->btf, btf_enum(t)[i].name_off);
			v = (int64_t)btf_enum(t)[i].val;
		} else {
			name = btf__name_by_offset(loc->btf, btf_enum64(t)[i].name_off);
			v = btf_enum64_value(&btf_enum64(t)[i]);
		}
		if (!strcmp(name, s)) {
			store_raw(loc->data, t->size, v);
			return 0;
		}
	}
	return store_int(s, t->size, btf_kflag(t), loc->data);
}

struct apply_ctx {
	const char *var, *value;
	struct ctl_err *err;
	int ret;
};

static int type_error(struct apply_ctx *c, const char *name)
{
	c->ret = ctl_errf(c->err, "--set %s: only numbers, booleans, enums and char arrays can be set",
			  name);
	return 1;
}

static int apply_one(const char *name, struct var_loc *loc, void *data)
{
	struct apply_ctx *c = data;
	const struct btf_type *t = loc->type;
	int ret;
	bool b;

	if (strcmp(name, c->var))
		return 0;	/* not this one: go on */

	if (t && btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_BOOL)) {
		if (parse_bool(c->value, &b)) {
			c->ret = ctl_errf(c->err, "--set %s: '%s' is not a boolean (true/false, 1/0, yes/no, on/off)",
					  name, c->value);
			return 1;
		}
		store_raw(loc->data, t->size, b);
		ret = 0;
	} else if (t && btf_is_int(t)) {
		ret = store_int(c->value, t->size,
				btf_int_encoding(t) & BTF_INT_SIGNED, loc->data);
	} else if (t && btf_is_any_enum(t)) {
		ret = store_enum(loc, c->value);
	} else if (t && btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		const struct btf_type *elem = btf__type_by_id(loc->btf,
				btf__resolve_type(loc->btf, a->type));
		size_t len = strlen(c->value);

		if (!elem || !btf_is_int(elem) || elem->size != 1)
			return type_error(c, name);
		if (len >= a->nelems) {
			c->ret = ctl_errf(c->err, "--set %s: '%s' is too long (at most %u characters)",
					  name, c->value, a->nelems - 1);
			return 1;
		}
		memset(loc->data, 0, a->nelems);
		memcpy(loc->data, c->value, len);
		ret = 0;
	} else {
		return type_error(c, name);
	}

	if (ret == -ERANGE) {
		ctl_errf(c->err, "--set %s: %s is out of range for %s %u-bit %s",
			 name, c->value,
			 btf_is_int(t) && !(btf_int_encoding(t) & BTF_INT_SIGNED) ?
			 "an unsigned" : "a", t->size * 8,
			 btf_is_any_enum(t) ? "enum" : "integer");
		c->ret = -ERANGE;
	} else if (ret) {
		c->ret = ctl_errf(c->err, "--set %s: '%s' is not %s", name,
				  c->value, btf_is_any_enum(t) ?
				  "an enumerator or a number" : "an integer");
	} else {
		c->ret = 0;
	}
	return 1;
}

int setvar_apply(struct bpf_object *obj, const char *var, const char *value,
		 struct ctl_err *err)
{
	struct apply_ctx c = { var, value, err, -ENOENT };
	char names[256];

	if (walk_vars(obj, apply_one, &c))
		return c.ret;
	setvar_list(obj, names, sizeof(names));
	if (*names)
		ctl_errf(err, "%s has no global variable '%s' (it has: %s)",
			 bpf_object__name(obj), var, names);
	else
		ctl_errf(err, "%s has no global variable '%s' (it has no knobs)",
			 bpf_object__name(obj), var);
	return -ENOENT;
}

struct addr_ctx {
	const char *var;
	void *addr;
	size_t size;
};

static int addr_one(const char *name, struct var_loc *loc, void *data)
{
	struct addr_ctx *c = data;

	if (strcmp(name, c->var))
		return 0;
	c->addr = loc->data;
	c->size = loc->size;
	return 1;
}

void *setvar_addr(struct bpf_object *obj, const char *var, size_t *size)
{
	struct addr_ctx c = { var, NULL, 0 };

	walk_vars(obj, addr_one, &c);
	if (size)
		*size = c.size;
	return c.addr;
}

struct list_ctx {
	char *buf;
	size_t len, pos;
};

static int list_one(const char *name, struct var_loc *loc, void *data)
{
	struct list_ctx *c = data;
	int n;

	if (c->pos >= c->len)
		return 1;
	n = snprintf(c->buf + c->pos, c->len - c->pos, "%s%s",
		     c->pos ? " " : "", name);
	c->pos += n > 0 ? n : 0;
	return 0;
}

void setvar_list(struct bpf_object *obj, char *buf, size_t len)
{
	struct list_ctx c = { buf, len, 0 };

	if (len)
		*buf = '\0';
	walk_vars(obj, list_one, &c);
}
