/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Policy knobs: global variables of a BPF object set by name before load,
 * checked against the object's BTF.
 */
#ifndef CACHECTL_SETVAR_H
#define CACHECTL_SETVAR_H

#include <stddef.h>

#include "ctl_err.h"

struct bpf_object;

/*
 * Splits "VAR=VALUE" in place.  VAR must be a C identifier; VALUE may be
 * empty only for strings.  Returns 0, or -EINVAL with the reason in @err.
 */
int setvar_split(char *arg, char **var, char **value, struct ctl_err *err);

/*
 * Sets global variable @var of the opened, not yet loaded @obj to @value:
 * integers (decimal, 0x hex, in the variable's range), bool (true/false,
 * 1/0, yes/no, on/off), enums (an enumerator or a number) and char arrays
 * (a string that fits with its NUL).  Variables in .data, .bss and .rodata
 * ("const volatile") are all settable.  Returns 0, or -ENOENT / -EINVAL /
 * -ERANGE with the reason in @err.
 */
int setvar_apply(struct bpf_object *obj, const char *var, const char *value,
		 struct ctl_err *err);

/*
 * The address and size of global variable @var of @obj: its initial value
 * before load, the live variable after (data sections are mmap()ed).
 * NULL if there is no such variable.
 */
void *setvar_addr(struct bpf_object *obj, const char *var, size_t *size);

/* Writes the names of @obj's settable variables, space separated. */
void setvar_list(struct bpf_object *obj, char *buf, size_t len);

#endif /* CACHECTL_SETVAR_H */
