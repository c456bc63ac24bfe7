/* SPDX-License-Identifier: GPL-2.0 */
/* Error messages of the helpers that do not print (setvar, model, cgroup). */
#ifndef CACHECTL_CTL_ERR_H
#define CACHECTL_CTL_ERR_H

#include <stdarg.h>

struct ctl_err {
	char msg[512];
};

/* Formats the message into @err; returns -EINVAL. */
__attribute__((format(printf, 2, 3)))
int ctl_errf(struct ctl_err *err, const char *fmt, ...);

#endif /* CACHECTL_CTL_ERR_H */
