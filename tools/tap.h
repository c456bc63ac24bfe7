/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP for the host unit tests of the tools: check() prints one "ok N - " or
 * "not ok N - " line; tap_done() the plan and "N passed, N failed" and
 * returns the exit status.
 */
#ifndef TOOLS_TAP_H
#define TOOLS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_nr, tap_failures;

__attribute__((format(printf, 2, 3)))
static inline int check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++tap_nr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	tap_failures += !ok;
	return ok;
}

static inline int tap_done(void)
{
	printf("1..%d\n# %d passed, %d failed\n", tap_nr, tap_nr - tap_failures,
	       tap_failures);
	return tap_failures ? 1 : 0;
}

#endif /* TOOLS_TAP_H */
