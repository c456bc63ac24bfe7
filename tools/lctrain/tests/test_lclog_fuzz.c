// SPDX-License-Identifier: GPL-2.0
/*
 * The log reader and the row builder under AddressSanitizer and UBSan:
 * 3000 mutations (bit flips, truncations, garbage) of valid logs, half of
 * version 3 (fixed records) and half of version 4 (sized by type), must
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

/*
 * A valid log of @nr events in @version's layout (3: every record a
 * struct lc_event; 4: a removal one, the others struct lc_record), in a
 * buffer of *@size bytes.
 */
static unsigned char *make_log(unsigned int version, size_t nr, size_t *size)
{
	unsigned char *log = calloc(1, sizeof(struct lc_log_header) +
				       nr * sizeof(struct lc_event));
	struct lc_log_header *hdr = (struct lc_log_header *)log;
	size_t off = sizeof(*hdr), i;

	if (!log)
		return NULL;
	lclog_header_init(hdr);
	hdr->version = version;
	if (version < 4)
		hdr->record_size = sizeof(struct lc_event);
	for (i = 0; i < nr; i++) {
		struct lc_event ev = {
			.type = 1 + i % 3, .ino = i % 5, .index = i % 7,
			.time_ns = i * 1000, .features = { (__s64)i },
		};
		size_t rec = version < 4 ? sizeof(ev) : lc_record_size(ev.type);

		memcpy(log + off, &ev, rec);
		off += rec;
	}
	*size = off;
	return log;
}

int main(void)
{
	size_t sizes[2], size;
	unsigned char *logs[2] = { make_log(3, 64, &sizes[0]),
				   make_log(4, 64, &sizes[1]) };
	unsigned char *good, *buf = malloc(sizeof(struct lc_log_header) +
					   64 * sizeof(struct lc_event));
	int i, accepted = 0, refused = 0, unexplained = 0, intact = 0;

	if (!logs[0] || !logs[1] || !buf)
		return 1;
	for (i = 0; i < 2; i++) {
		struct lc_events out = { 0 };
		char err[256] = "";

		intact += !lclog_parse(logs[i], sizes[i], &out, err, sizeof(err)) &&
			  out.nr == 64 && out.recorded == 64;
		lc_events_free(&out);
	}
	printf("TAP version 13\n");
	for (i = 0; i < 3000; i++) {
		size_t len, k, flips = 1 + next_rand() % 8;
		struct lc_events out = { 0 };
		struct dataset ds;
		char err[256] = "";
		int ret;

		good = logs[i % 2];
		size = sizes[i % 2];
		len = size;
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
	printf("%s 1 - the unmutated logs, versions 3 and 4, are read whole (%d of 2)\n",
	       intact == 2 ? "ok" : "not ok", intact);
	printf("%s 2 - 3000 mutated logs of versions 3 and 4: %d accepted, %d refused, none crashed\n",
	       "ok", accepted, refused);
	printf("%s 3 - every refusal explained (%d without a message)\n",
	       unexplained ? "not ok" : "ok", unexplained);
	printf("1..3\n");
	free(logs[0]);
	free(logs[1]);
	free(buf);
	return unexplained || intact != 2 ? 1 : 0;
}
