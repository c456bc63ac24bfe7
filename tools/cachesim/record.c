// SPDX-License-Identifier: GPL-2.0
/*
 * What a policy submits to its ring buffers, written as a cachectl trace
 * log (bpf/include/lc_trace.h): the tracer run in the simulator records
 * the log lctrain trains on, as cachectl trace does in the kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lclog.h"
#include "record.h"

static FILE *out;
static int failed;

int sim_record_open(const char *path, unsigned long long cache_pages,
		    char *err, size_t len)
{
	struct lc_log_header hdr;

	lclog_header_init(&hdr);
	hdr.cgroup_limit = cache_pages * 4096;
	hdr.start_ns = 0;
	failed = 0;
	out = fopen(path, "wb");
	if (!out || fwrite(&hdr, sizeof(hdr), 1, out) != 1) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		if (out)
			fclose(out);
		out = NULL;
		return -EIO;
	}
	return 0;
}

void sim_record_write(const void *data, size_t size)
{
	const struct lc_record *rec = data;

	if (out && !failed && (size < sizeof(*rec) ||
			       size != lc_record_size(rec->type) ||
			       fwrite(data, size, 1, out) != 1))
		failed = 1;
}

int sim_record_close(char *err, size_t len)
{
	int ret = 0;

	if (!out)
		return 0;
	if (fclose(out) || failed) {
		snprintf(err, len, "writing the record failed (records of %zu bytes, removals of %zu, expected)",
			 sizeof(struct lc_record), sizeof(struct lc_event));
		ret = -EIO;
	}
	out = NULL;
	return ret;
}
