/* SPDX-License-Identifier: GPL-2.0 */
/* References: Belady's MIN, a frequency oracle, an ideal online LFU. */
#ifndef CACHESIM_ORACLES_H
#define CACHESIM_ORACLES_H

#include <string.h>

#include "sim.h"

/* Is @name one of the references, computed here rather than a policy? */
static inline int sim_is_reference(const char *name)
{
	return !strcmp(name, SIM_BELADY) || !strcmp(name, SIM_ORACLE) ||
	       !strcmp(name, SIM_LFU_IDEAL);
}

/*
 * Runs SIM_BELADY, SIM_ORACLE or SIM_LFU_IDEAL on @t; 0 or -ENOMEM (reason
 * in @err).
 */
int sim_oracle_run(const struct sim_trace *t, const char *which,
		   const struct sim_config *cfg, struct sim_result *res,
		   char *err, size_t len);

#endif /* CACHESIM_ORACLES_H */
