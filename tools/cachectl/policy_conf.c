// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the policy configuration (policy_conf.h): bind and policy lines
 * from one file or a directory of them, checked as they are read so that
 * a mistake is reported with its file and line, not at boot's first bind.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cachectl.h"
#include "cgroup.h"
#include "policy_conf.h"

#define MAX_WORDS	64

/* A policy name: what memory.cache_ext takes (no '/', no blank). */
static int name_ok(const char *name)
{
	const char *p;

	if (!*name || strlen(name) >= CONF_NAME_MAX || !strcmp(name, "default"))
		return 0;
	for (p = name; *p; p++)
		if (*p == '/' || *p <= ' ')
			return 0;
	return strcmp(name, ".") && strcmp(name, "..");
}

static const char *const unit_types[] = {
	".service", ".slice", ".scope", ".socket", ".mount", ".swap",
};

/* The characters systemd allows in a unit name, and a known type. */
static int unit_name_ok(const char *unit)
{
	size_t i, n = strlen(unit), t;
	const char *p;

	for (p = unit; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(":-_.\\@", *p))
			return 0;
	for (i = 0; i < sizeof(unit_types) / sizeof(unit_types[0]); i++) {
		t = strlen(unit_types[i]);
		if (n > t && !strcmp(unit + n - t, unit_types[i]))
			return 1;
	}
	return 0;
}

int unit_cgroup_path(const char *unit, const char *slice, char *out,
		     size_t len)
{
	size_t n = strlen(unit), used = 0, i;
	int w;

	if (!unit_name_ok(unit))
		return -EINVAL;
	if (n > 6 && !strcmp(unit + n - 6, ".slice")) {
		/* -.slice is the root; a-b-c.slice is a.slice/a-b.slice/a-b-c.slice */
		if (!strcmp(unit, "-.slice")) {
			if (len < 1)
				return -EINVAL;
			*out = '\0';
			return 0;
		}
		for (i = 0; i < n - 6; i++) {
			if (unit[i] != '-')
				continue;
			w = snprintf(out + used, len - used, "%.*s.slice/",
				     (int)i, unit);
			if (w < 0 || (size_t)w >= len - used)
				return -EINVAL;
			used += w;
		}
		w = snprintf(out + used, len - used, "%s", unit);
		return w < 0 || (size_t)w >= len - used ? -EINVAL : 0;
	}
	if (!slice || !*slice)
		slice = "system.slice";
	if (strcmp(slice, "-.slice")) {
		if (unit_cgroup_path(slice, NULL, out, len))
			return -EINVAL;
		used = strlen(out);
		if (used + 1 >= len)
			return -EINVAL;
		out[used++] = '/';
	}
	w = snprintf(out + used, len - used, "%s", unit);
	return w < 0 || (size_t)w >= len - used ? -EINVAL : 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int add_policy(struct policy_conf *conf, char **word, int n,
		      const char *where, struct ctl_err *err)
{
	struct conf_policy *p, *grown;
	int i;

	if (n < 3)
		return ctl_errf(err, "%s: usage: policy NAME OBJECT [VAR=VALUE]...",
				where);
	if (!name_ok(word[1]))
		return ctl_errf(err, "%s: '%s' is not a policy name (no '/', no blanks, not 'default', under %d characters)",
				where, word[1], CONF_NAME_MAX);
	if (strlen(word[2]) >= PATH_MAX)
		return ctl_errf(err, "%s: the object's path is too long", where);
	for (i = 3; i < n; i++)
		if (!strchr(word[i], '=') || word[i][0] == '=')
			return ctl_errf(err, "%s: '%s' is not VAR=VALUE", where,
					word[i]);
	for (i = 0; i < conf->nr_policies; i++)
		if (!strcmp(conf->policies[i].name, word[1]))
			return ctl_errf(err, "%s: policy %s is defined at %s already",
					where, word[1], conf->policies[i].where);
	grown = realloc(conf->policies, (conf->nr_policies + 1) * sizeof(*p));
	if (!grown)
		return -ENOMEM;
	conf->policies = grown;
	p = &conf->policies[conf->nr_policies];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", word[1]);
	snprintf(p->object, sizeof(p->object), "%s", word[2]);
	snprintf(p->where, sizeof(p->where), "%s", where);
	if (n > 3) {
		p->sets = calloc(n - 3, sizeof(*p->sets));
		if (!p->sets)
			return -ENOMEM;
		for (i = 3; i < n; i++) {
			p->sets[p->nr_sets] = dup_or_null(word[i]);
			if (!p->sets[p->nr_sets]) {
				while (p->nr_sets--)
					free(p->sets[p->nr_sets]);
				free(p->sets);
				return -ENOMEM;
			}
			p->nr_sets++;
		}
	}
	conf->nr_policies++;
	return 0;
}

static int add_bind(struct policy_conf *conf, char **word, int n,
		    const char *file, const char *where, struct ctl_err *err)
{
	struct conf_bind *b, *grown;
	char path[PATH_MAX];
	const char *target;
	struct ctl_err why;
	int is_unit, i;

	if (n != 3)
		return ctl_errf(err, "%s: usage: bind TARGET POLICY", where);
	is_unit = !strncmp(word[1], "unit:", 5);
	if (is_unit) {
		if (unit_cgroup_path(word[1] + 5, NULL, path, sizeof(path)))
			return ctl_errf(err, "%s: '%s' is not a systemd unit name (NAME.service, NAME.slice, NAME.scope, ...)",
					where, word[1] + 5);
	} else if (cgroup_resolve(CONF_CGROUP_ROOT, word[1], path,
				  sizeof(path), &why)) {
		return ctl_errf(err, "%s: %s", where, why.msg);
	} else if (!strcmp(path, CONF_CGROUP_ROOT)) {
		return ctl_errf(err, "%s: the root cgroup has no memory.cache_ext; name a child",
				where);
	}
	/* One spelling of each cgroup: db, /db and CONF_CGROUP_ROOT/db are db. */
	target = is_unit ? word[1] : path + strlen(CONF_CGROUP_ROOT "/");
	if (!name_ok(word[2]) && strcmp(word[2], "default"))
		return ctl_errf(err, "%s: '%s' is not a policy name", where,
				word[2]);
	for (i = 0; i < conf->nr_binds; i++) {
		b = &conf->binds[i];
		if (strcmp(b->target, target))
			continue;
		/* Same file: a mistake.  A later file: an override. */
		if (!strncmp(b->where, file, strlen(file)) &&
		    b->where[strlen(file)] == ':')
			return ctl_errf(err, "%s: %s is bound at %s already",
					where, target, b->where);
		snprintf(b->policy, sizeof(b->policy), "%s", word[2]);
		snprintf(b->where, sizeof(b->where), "%s", where);
		return 0;
	}
	grown = realloc(conf->binds, (conf->nr_binds + 1) * sizeof(*b));
	if (!grown)
		return -ENOMEM;
	conf->binds = grown;
	b = &conf->binds[conf->nr_binds++];
	memset(b, 0, sizeof(*b));
	snprintf(b->target, sizeof(b->target), "%s", target);
	b->is_unit = is_unit;
	snprintf(b->policy, sizeof(b->policy), "%s", word[2]);
	snprintf(b->where, sizeof(b->where), "%s", where);
	return 0;
}

int policy_conf_parse(struct policy_conf *conf, const char *file,
		      const char *text, struct ctl_err *err)
{
	char *copy = strdup(text), *line, *next, *word[MAX_WORDS], *save;
	char where[PATH_MAX + 16];
	int lineno = 0, ret = 0, n;

	if (!copy)
		return -ENOMEM;
	for (line = copy; line && !ret; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (strchr(line, '#'))
			*strchr(line, '#') = '\0';
		snprintf(where, sizeof(where), "%s:%d", file, lineno);
		n = 0;
		for (word[n] = strtok_r(line, " \t\r", &save);
		     word[n] && n < MAX_WORDS - 1;
		     word[n] = strtok_r(NULL, " \t\r", &save))
			n++;
		if (!n)
			continue;
		if (word[n])
			ret = ctl_errf(err, "%s: more than %d words", where,
				       MAX_WORDS - 1);
		else if (!strcmp(word[0], "bind"))
			ret = add_bind(conf, word, n, file, where, err);
		else if (!strcmp(word[0], "policy"))
			ret = add_policy(conf, word, n, where, err);
		else
			ret = ctl_errf(err, "%s: unknown entry '%s' (bind or policy)",
				       where, word[0]);
	}
	free(copy);
	if (ret == -ENOMEM)
		ctl_errf(err, "%s: out of memory", file);
	return ret;
}

/* Reads one file; a missing one is an error only if @must. */
static int read_one(struct policy_conf *conf, const char *path, int must,
		    struct ctl_err *err)
{
	char *text;
	FILE *f = fopen(path, "r");
	long size;
	int ret;

	if (!f) {
		if (errno == ENOENT && !must)
			return 0;
		ret = -errno;
		ctl_errf(err, "cannot read %s: %s", path, strerror(errno));
		return ret;
	}
	size = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (size < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return ctl_errf(err, "cannot read %s", path);
	}
	text = calloc(1, size + 1);
	if (!text || fread(text, 1, size, f) != (size_t)size) {
		free(text);
		fclose(f);
		return ctl_errf(err, "cannot read %s", path);
	}
	fclose(f);
	ret = policy_conf_parse(conf, path, text, err);
	free(text);
	conf->nr_files += !ret;
	return ret;
}

static int conf_file_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".conf");
}

/* Every *.conf of @dir in name order; a missing @dir is an error if @must. */
static int read_dir(struct policy_conf *conf, const char *dir, int must,
		    struct ctl_err *err)
{
	struct dirent **names;
	char path[PATH_MAX];
	int n, i, ret = 0;

	n = scandir(dir, &names, conf_file_filter, alphasort);
	if (n < 0) {
		if (errno == ENOENT && !must)
			return 0;
		ret = -errno;
		ctl_errf(err, "cannot read %s: %s", dir, strerror(errno));
		return ret;
	}
	for (i = 0; i < n; i++) {
		if (!ret) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 names[i]->d_name);
			ret = read_one(conf, path, 1, err);
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

int policy_conf_read(struct policy_conf *conf, const char *path,
		     struct ctl_err *err)
{
	struct stat st;

	if (!path)
		return read_one(conf, CONF_FILE, 0, err) ?:
		       read_dir(conf, CONF_DIR, 0, err);
	if (stat(path, &st)) {
		int ret = -errno;

		ctl_errf(err, "cannot read %s: %s", path, strerror(errno));
		return ret;
	}
	return S_ISDIR(st.st_mode) ? read_dir(conf, path, 1, err) :
				     read_one(conf, path, 1, err);
}

const struct conf_policy *policy_conf_policy(const struct policy_conf *conf,
					     const char *name)
{
	int i;

	for (i = 0; i < conf->nr_policies; i++)
		if (!strcmp(conf->policies[i].name, name))
			return &conf->policies[i];
	return NULL;
}

void policy_conf_free(struct policy_conf *conf)
{
	int i, j;

	for (i = 0; i < conf->nr_policies; i++) {
		for (j = 0; j < conf->policies[i].nr_sets; j++)
			free(conf->policies[i].sets[j]);
		free(conf->policies[i].sets);
	}
	free(conf->policies);
	free(conf->binds);
	memset(conf, 0, sizeof(*conf));
}
