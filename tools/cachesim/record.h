/* SPDX-License-Identifier: GPL-2.0 */
/* Ring buffer records of a policy into a trace log (record.c). */
#ifndef CACHESIM_RECORD_H
#define CACHESIM_RECORD_H

#include <stddef.h>

int sim_record_open(const char *path, unsigned long long cache_pages,
		    char *err, size_t len);
/* One submitted record; a size other than its type's fails the log. */
void sim_record_write(const void *data, size_t size);
int sim_record_close(char *err, size_t len);

#endif /* CACHESIM_RECORD_H */
