/* SPDX-License-Identifier: GPL-2.0 */
/* Loading a policy built for the simulator (a shared object). */
#ifndef CACHESIM_POLICY_H
#define CACHESIM_POLICY_H

#include <stddef.h>

#include "sim.h"

struct cache_ext_ops;

/*
 * Loads the policy at @path (built from its BPF source by the
 * Makefile), sets its knobs and returns its struct cache_ext_ops: the one
 * variable in its ".struct_ops.link" (or ".struct_ops") section.
 * Returns 0, or -errno with the reason in @err.
 */
int sim_policy_open(const char *path, const struct sim_knob *knobs,
		    unsigned int nr_knobs, const struct cache_ext_ops **ops,
		    char *err, size_t len);

/* The function @name of the policy sim_policy_open() loaded, or NULL. */
void *sim_policy_function(const char *name);

#endif /* CACHESIM_POLICY_H */
