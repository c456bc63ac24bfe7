// SPDX-License-Identifier: GPL-2.0
/*
 * The counters of a binding are one table, cache_ext_nl_stats.h: the
 * netlink enum, the module's stats files and
 * cachectl's rows are made from it.  What is not made from it says the
 * same or this test fails: the netlink spec lists the attributes in the
 * table's order, the sysfs ABI document and "cachectl stats -h" explain
 * every counter.
 *
 *   test_stats_table [SRC_DIR CACHECTL]
 *
 * (the defaults are the checkout and the cachectl it was built with).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tap.h"
#include "cache_ext_nl.h"

static const char *const table[] = {
#define CACHE_EXT_STAT(ATTR, field) #field,
#define CACHE_EXT_STAT_PAD(...) "pad",
#include "cache_ext_nl_stats.h"
#undef CACHE_EXT_STAT
#undef CACHE_EXT_STAT_PAD
};

#define NR_TABLE (sizeof(table) / sizeof(table[0]))

/* What is left to read of @f, NUL-terminated, or NULL. */
static char *read_stream(FILE *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int c;

	if (!out)
		return NULL;
	while ((c = fgetc(f)) != EOF)
		fputc(c, out);
	fclose(out);
	return buf;
}

/* The whole of @path, or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;

	if (!f)
		return NULL;
	text = read_stream(f);
	fclose(f);
	return text;
}

/* @s with '_' as '-', as the netlink spec spells names. */
static const char *spec_name(const char *s)
{
	static char buf[64];
	size_t i;

	for (i = 0; s[i] && i < sizeof(buf) - 1; i++)
		buf[i] = s[i] == '_' ? '-' : s[i];
	buf[i] = '\0';
	return buf;
}

/*
 * The spec's "stats" attribute set: its "- { name: N, type: T }" lines,
 * in order, must be the table's.
 */
static void check_spec(const char *src)
{
	char path[4096], *text, *p;
	size_t i = 0;
	int same = 1;

	snprintf(path, sizeof(path), "%s/Documentation/netlink/specs/cache_ext.yaml",
		 src);
	text = slurp(path);
	if (!check(!!text, "the netlink spec %s is readable", path))
		return;
	p = strstr(text, "name-prefix: cache-ext-a-stat-");
	if (!check(!!p, "the spec has the stats attribute set"))
		goto out;
	p = strstr(p, "attributes:");
	for (p = p ? strchr(p, '\n') : NULL; p && same; p = strchr(p + 1, '\n')) {
		char name[64];

		if (sscanf(p + 1, " - { name: %63[a-z-],", name) != 1)
			break;
		if (i >= NR_TABLE || strcmp(name, spec_name(table[i]))) {
			check(0, "spec attribute %zu is %s, the table's is %s", i + 1,
			      name, i < NR_TABLE ? spec_name(table[i]) : "(none)");
			same = 0;
		}
		i++;
	}
	if (same)
		check(i == NR_TABLE,
		      "the spec lists the table's %zu attributes in its order (%zu)",
		      NR_TABLE, i);
out:
	free(text);
}

/* @text has @name as a word that starts a line (after blanks). */
static int names_at_line_start(const char *text, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = text; (p = strstr(p, name)); p += len) {
		const char *q = p;

		while (q > text && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		if ((q == text || q[-1] == '\n') && (p[len] == ' ' || p[len] == '\n'))
			return 1;
	}
	return 0;
}

/* @text has @name as a whole word. */
static int names_word(const char *text, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = text; (p = strstr(p, name)); p += len) {
		char before = p == text ? ' ' : p[-1];
		char after = p[len];

		if (!strchr("abcdefghijklmnopqrstuvwxyz_", before) &&
		    !strchr("abcdefghijklmnopqrstuvwxyz_", after ? after : ' '))
			return 1;
	}
	return 0;
}

static void check_docs(const char *src, const char *cachectl)
{
	char path[4096], cmd[4200], *abi, *help = NULL;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/Documentation/ABI/testing/sysfs-kernel-cache_ext",
		 src);
	abi = slurp(path);
	check(!!abi, "the sysfs ABI document %s is readable", path);

	snprintf(cmd, sizeof(cmd), "'%s' stats -h 2>&1", cachectl);
	f = popen(cmd, "r");
	if (f) {
		help = read_stream(f);
		pclose(f);
	}
	check(help && strstr(help, "usage: cachectl stats"),
	      "cachectl stats -h prints its help");

	for (i = 0; i < NR_TABLE; i++) {
		if (!strcmp(table[i], "pad"))
			continue;
		if (abi)
			check(names_at_line_start(abi, table[i]),
			      "the sysfs ABI document explains %s", table[i]);
		if (help)
			check(names_word(help, table[i]),
			      "cachectl stats -h explains %s", table[i]);
	}
	free(abi);
	free(help);
}

int main(int argc, char **argv)
{
	const char *src = SRC_DIR, *cachectl = CACHECTL_BIN;

	if (argc == 3) {
		src = argv[1];
		cachectl = argv[2];
	} else if (argc != 1) {
		fprintf(strcmp(argv[1], "-h") ? stderr : stdout,
			"usage: %s [SRC_DIR CACHECTL]\n"
			"Checks the netlink spec, the sysfs ABI document and\n"
			"cachectl's help against the counters' table.\n", argv[0]);
		return strcmp(argv[1], "-h") ? 2 : 0;
	}
	check(NR_TABLE == CACHE_EXT_A_STAT_MAX,
	      "the table has an entry for each of the %d attributes (%zu)",
	      CACHE_EXT_A_STAT_MAX, NR_TABLE);
	check_spec(src);
	check_docs(src, cachectl);
	return tap_done();
}
