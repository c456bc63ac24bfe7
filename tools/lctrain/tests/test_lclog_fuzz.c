// SPDX-License-Identifier: GPL-2.0
/*
 * The log reader and the row builder under AddressSanitizer and UBSan:
 * 3000 mutations (bit flips, truncations, garbage) of a valid log must
 * each be accepted or refused with a message, never crash or read out of
 * bounds.  TAP; exit 1 on any failure (the sanitizers abort on a bug).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"

static uint64_t rng = 2024;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(void)
{
	size_t nr = 64, size = sizeof(struct lc_log_header) + nr * sizeof(struct lc_event);
	unsigned char *good = calloc(1, size), *buf = malloc(size + 64);
	struct lc_event *ev;
	int i, accepted = 0, refused = 0, unexplained = 0;

	if (!good || !buf)
		return 1;
	lclog_header_init((struct lc_log_header *)good);
	ev = (struct lc_event *)(good + sizeof(struct lc_log_header));
	for (i = 0; i < (int)nr; i++) {
		ev[i].type = 1 + i % 3;
		ev[i].ino = i % 5;
		ev[i].index = i % 7;
		ev[i].time_ns = i * 1000;
	}
	printf("TAP version 13\n");
	for (i = 0; i < 3000; i++) {
		size_t len = size, k, flips = 1 + next_rand() % 8;
		struct lc_events out = { 0 };
		struct dataset ds;
		char err[256] = "";
		int ret;

		memcpy(buf, good, size);
		switch (next_rand() % 3) {
		case 0:		/* flip bits anywhere */
			for (k = 0; k < flips; k++)
				buf[next_rand() % size] ^= 1 << (next_rand() % 8);
			break;
		case 1:		/* truncate */
			len = next_rand() % size;
			break;
		default:	/* overwrite the tail with garbage */
			for (k = next_rand() % size; k < size; k++)
				buf[k] = next_rand();
		}
		ret = lclog_parse(buf, len, &out, err, sizeof(err));
		if (ret) {
			refused++;
			unexplained += !err[0];
		} else {
			accepted++;
			if (!dataset_build(&out, 0, &ds))
				dataset_free(&ds);
		}
		lc_events_free(&out);
	}
	printf("%s 1 - 3000 mutated logs: %d accepted, %d refused, none crashed\n",
	       "ok", accepted, refused);
	printf("%s 2 - every refusal explained (%d without a message)\n",
	       unexplained ? "not ok" : "ok", unexplained);
	printf("1..2\n");
	free(good);
	free(buf);
	return unexplained ? 1 : 0;
}
