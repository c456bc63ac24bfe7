// SPDX-License-Identifier: GPL-2.0
/* Error messages of the helpers that do not print (shared with the selftests). */
#include <errno.h>
#include <stdio.h>

#include "ctl_err.h"

int ctl_errf(struct ctl_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}
