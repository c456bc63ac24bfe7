/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The standard policy suite: what the module's preload parameter registers
 * by default and what cachectl preload registers when given no names (one
 * list for both: cachectl includes this header).  The learned policies need
 * a model first, and the tracer is not a policy to select.
 */
#ifndef CACHE_EXT_SUITE_H
#define CACHE_EXT_SUITE_H

#define CACHE_EXT_SUITE	"fifo,lfu,mru,s3fifo,lhd,mglru,get_scan,admit_filter"

#endif /* CACHE_EXT_SUITE_H */
