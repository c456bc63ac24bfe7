// SPDX-License-Identifier: GPL-2.0
/* The hit arithmetic of cachectl stats and top (effect.h). */
#include "effect.h"

uint64_t effect_hits(const struct effect *e)
{
	return e->accesses > e->misses ? e->accesses - e->misses : 0;
}

double effect_hit_ratio(const struct effect *e)
{
	return e->accesses ? (double)effect_hits(e) / e->accesses : -1;
}

double policy_share(uint64_t reclaimed, uint64_t fallback)
{
	return reclaimed + fallback ?
	       (double)reclaimed / (reclaimed + fallback) : -1;
}

uint64_t counter_delta(uint64_t now, uint64_t then)
{
	return now >= then ? now - then : now;
}

struct effect effect_delta(const struct effect *now, const struct effect *then)
{
	return (struct effect){
		.accesses = counter_delta(now->accesses, then->accesses),
		.misses = counter_delta(now->misses, then->misses),
		.refaults = counter_delta(now->refaults, then->refaults),
	};
}
