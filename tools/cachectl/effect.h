/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a bound cgroup's page cache did for its readers, and the hit
 * arithmetic cachectl stats and cachectl top print.
 */
#ifndef CACHECTL_EFFECT_H
#define CACHECTL_EFFECT_H

#include <stdint.h>

/*
 * Since binding, or over an interval: reads of folios (accesses), folios
 * reads brought in (misses, readahead included), and misses on folios the
 * cgroup had evicted (refaults).
 */
struct effect {
	uint64_t accesses;
	uint64_t misses;
	uint64_t refaults;
};

/*
 * Hits, as cachestat tools count them: accesses - misses.  A read that
 * waits for its folio accesses it once, against the folio's insertion.
 * Readahead inserts folios before they are read, and those evicted unread
 * are misses without an access: when they outnumber the hits, misses
 * exceed accesses, and hits are 0, never negative.
 */
uint64_t effect_hits(const struct effect *e);

/* effect_hits() / accesses, in [0, 1]; -1 without accesses. */
double effect_hit_ratio(const struct effect *e);

/*
 * Of the file pages reclaim evicted from a bound cgroup, the share its
 * policy chose: @reclaimed / (@reclaimed + @fallback), the rest being the
 * kernel LRU's (while the policy was busy, or after a batch of the
 * policy's that freed nothing); -1 before any eviction.
 */
double policy_share(uint64_t reclaimed, uint64_t fallback);

/*
 * A counter's change from @then to @now; below its value in @then it is a
 * new binding's, which started from 0: its value is the change.
 */
uint64_t counter_delta(uint64_t now, uint64_t then);

/* @now - @then, counter by counter (counter_delta()). */
struct effect effect_delta(const struct effect *now, const struct effect *then);

#endif
