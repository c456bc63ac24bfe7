/* SPDX-License-Identifier: GPL-2.0 */
/* Offline references: Belady's MIN and a frequency oracle. */
#ifndef CACHESIM_ORACLES_H
#define CACHESIM_ORACLES_H

#include "sim.h"

/* Runs SIM_BELADY or SIM_ORACLE on @t; 0 or -ENOMEM (reason in @err). */
int sim_oracle_run(const struct sim_trace *t, const char *which,
		   const struct sim_config *cfg, struct sim_result *res,
		   char *err, size_t len);

#endif /* CACHESIM_ORACLES_H */
