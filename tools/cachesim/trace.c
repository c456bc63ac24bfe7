// SPDX-License-Identifier: GPL-2.0
/*
 * Traces for the simulator: the CloudPhysics CSV of ../shared/traces
 * (block requests split into 4 KiB pages), plain text (one key per
 * line), and the logs cachectl trace records (lc_trace.h).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lclog.h"
#include "sim.h"

#define PAGE_SHIFT	12

/* A set of 64-bit keys (open addressing; 0 is stored aside). */
struct keyset {
	uint64_t *slot;
	uint32_t *val;
	size_t mask, nr;
};

static int keyset_init(struct keyset *s, size_t expect)
{
	size_t size = 1024;

	while (size < 2 * expect)
		size <<= 1;
	s->slot = calloc(size, sizeof(*s->slot));
	s->val = calloc(size, sizeof(*s->val));
	s->mask = size - 1;
	s->nr = 0;
	return s->slot && s->val ? 0 : -ENOMEM;
}

static void keyset_free(struct keyset *s)
{
	free(s->slot);
	free(s->val);
}

/* Finds or adds @key (not 0); *@added says which.  NULL: no memory. */
static uint32_t *keyset_get(struct keyset *s, uint64_t key, int *added)
{
	size_t i;

	*added = 0;
	if (2 * (s->nr + 1) > s->mask + 1) {
		struct keyset bigger;

		if (keyset_init(&bigger, 2 * s->nr + 2))
			return NULL;
		for (i = 0; i <= s->mask; i++) {
			if (s->slot[i]) {
				int a;

				*keyset_get(&bigger, s->slot[i], &a) = s->val[i];
			}
		}
		keyset_free(s);
		*s = bigger;
	}
	for (i = sim_mix64(key) & s->mask; s->slot[i]; i = (i + 1) & s->mask)
		if (s->slot[i] == key)
			return &s->val[i];
	s->slot[i] = key;
	s->nr++;
	*added = 1;
	return &s->val[i];
}

static int file_of(struct sim_trace *t, uint32_t dev, uint64_t ino)
{
	uint32_t i;

	/* Traces name few files; the last one is the likely one. */
	for (i = t->nr_files; i-- > 0;)
		if (t->files[i].ino == ino && t->files[i].dev == dev)
			return i;
	if (t->nr_files == t->files_cap) {
		uint32_t cap = t->files_cap ? 2 * t->files_cap : 16;
		struct sim_file *f = realloc(t->files, cap * sizeof(*f));

		if (!f)
			return -ENOMEM;
		t->files = f;
		t->files_cap = cap;
	}
	t->files[t->nr_files] = (struct sim_file){ .dev = dev, .ino = ino };
	return t->nr_files++;
}

int sim_trace_add(struct sim_trace *t, uint32_t dev, uint64_t ino,
		  uint64_t index, enum sim_op op, uint64_t time_ns)
{
	int file = file_of(t, dev, ino);

	if (file < 0)
		return file;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 65536;
		struct sim_req *r = realloc(t->req, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		t->req = r;
		t->cap = cap;
	}
	t->req[t->nr++] = (struct sim_req){
		.time_ns = time_ns, .index = index, .file = file, .op = op,
	};
	if (t->files[file].nr_pages <= index)
		t->files[file].nr_pages = index + 1;
	if (op != SIM_INSERT)
		t->nr_accesses++;
	return 0;
}

int sim_trace_page_ids(const struct sim_trace *t, uint32_t *ids, uint32_t *nr)
{
	struct keyset seen;
	size_t i;

	if (keyset_init(&seen, t->nr / 4 + 1))
		return -ENOMEM;
	for (i = 0; i < t->nr; i++) {
		uint64_t key = sim_mix64(t->req[i].index) ^
			       ((uint64_t)t->req[i].file + 1) << 52;
		uint32_t *id;
		int added;

		id = keyset_get(&seen, key ? key : 1, &added);
		if (!id) {
			keyset_free(&seen);
			return -ENOMEM;
		}
		if (added)
			*id = seen.nr - 1;
		ids[i] = *id;
	}
	*nr = seen.nr;
	keyset_free(&seen);
	return 0;
}

void sim_trace_finish(struct sim_trace *t)
{
	uint32_t *ids = malloc((t->nr ? t->nr : 1) * sizeof(*ids)), nr = 0;

	t->nr_unique = ids && !sim_trace_page_ids(t, ids, &nr) ? nr : 0;
	free(ids);
}

void sim_trace_free(struct sim_trace *t)
{
	free(t->req);
	free(t->files);
	memset(t, 0, sizeof(*t));
}

/*
 * What a pass that follows each page's references through @t starts
 * from: *@ids, the page of every reference (sim_trace_page_ids()), and
 * *@per_page, a slot per distinct page, each SIZE_MAX.  0, or -ENOMEM
 * with both NULL.
 */
static int page_slots(const struct sim_trace *t, uint32_t **ids,
		      size_t **per_page)
{
	uint32_t nr = 0, i;

	*ids = malloc((t->nr ? t->nr : 1) * sizeof(**ids));
	*per_page = NULL;
	if (*ids && !sim_trace_page_ids(t, *ids, &nr))
		*per_page = malloc((nr ? nr : 1) * sizeof(**per_page));
	if (!*per_page) {
		free(*ids);
		*ids = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++)
		(*per_page)[i] = SIZE_MAX;
	return 0;
}

/*
 * The kernel reports a use through a mapping when reclaim finds the
 * accessed bit, and a recording made under its LRU holds each one about a
 * residency after the page's previous event (LevelDB C: p10-p90 11,610 to
 * 11,934 events after it).  Replayed there, every policy would see the
 * traced LRU's timing of the use instead of the use's; the page's
 * previous reference is the earliest the use can have been, and for a
 * page faulted or read ahead then used, the closest.
 */
int sim_trace_mapped_earliest(struct sim_trace *t)
{
	size_t n = t->nr ? t->nr : 1, i, out = 0;
	size_t *head = malloc(n * sizeof(size_t));
	size_t *tail = malloc(n * sizeof(size_t));
	size_t *next = malloc(n * sizeof(size_t));
	struct sim_req *req = malloc(n * sizeof(*req));
	uint32_t *ids = NULL;
	size_t *last = NULL;
	int ret = -ENOMEM;

	if (!head || !tail || !next || !req || page_slots(t, &ids, &last))
		goto out;
	/*
	 * Each moved use hangs, in order, on the chain of the reference it
	 * follows; later uses of the page seen late join the same chain.
	 */
	for (i = 0; i < t->nr; i++) {
		size_t prev = last[ids[i]];

		head[i] = SIZE_MAX;
		next[i] = SIZE_MAX;
		if (!t->req[i].seen_late || prev == SIZE_MAX) {
			last[ids[i]] = i;
			continue;
		}
		if (head[prev] == SIZE_MAX)
			head[prev] = i;
		else
			next[tail[prev]] = i;
		tail[prev] = i;
		t->req[i].seen_late = 2;	/* moved */
	}
	for (i = 0; i < t->nr; i++) {
		size_t m;

		if (t->req[i].seen_late == 2)
			continue;
		req[out++] = t->req[i];
		for (m = head[i]; m != SIZE_MAX; m = next[m]) {
			req[out] = t->req[m];
			req[out].time_ns = t->req[i].time_ns;
			req[out++].seen_late = 1;
		}
	}
	memcpy(t->req, req, t->nr * sizeof(*req));
	ret = 0;
out:
	free(ids);
	free(last);
	free(head);
	free(tail);
	free(next);
	free(req);
	return ret;
}

/* time_us,op,offset_bytes,size_bytes; a header line is allowed. */
static int read_csv(FILE *f, const char *path, struct sim_trace *t,
		    char *err, size_t len)
{
	unsigned long long time_us, offset, size, page;
	char line[256], op;
	unsigned long lineno = 0;
	int ret;

	t->timed = 1;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (lineno == 1 && !isdigit((unsigned char)line[0]))
			continue;
		if (sscanf(line, "%llu,%c,%llu,%llu", &time_us, &op, &offset,
			   &size) != 4 || (op != 'R' && op != 'W') || !size) {
			snprintf(err, len, "%s:%lu: not time_us,R|W,offset_bytes,size_bytes",
				 path, lineno);
			return -EINVAL;
		}
		for (page = offset >> PAGE_SHIFT;
		     page <= (offset + size - 1) >> PAGE_SHIFT; page++) {
			ret = sim_trace_add(t, 0, 1, page,
					    op == 'R' ? SIM_READ : SIM_WRITE,
					    time_us * 1000);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * KEY [r|w|m [THREAD]] per line, '#' comments; a non-numeric key names a
 * page; m is a use through a mapping.
 */
static int read_text(FILE *f, const char *path, struct sim_trace *t,
		     char *err, size_t len)
{
	struct keyset names;
	char line[4096];
	unsigned long lineno = 0;
	int ret = keyset_init(&names, 1024);

	if (ret)
		return ret;
	while (!ret && fgets(line, sizeof(line), f)) {
		char *key, *mode, *thread, *end, *save;
		uint64_t index, tid = 0;
		enum sim_op op = SIM_READ;

		lineno++;
		key = strtok_r(line, " \t\r\n", &save);
		if (!key || key[0] == '#')
			continue;
		mode = strtok_r(NULL, " \t\r\n", &save);
		if (mode && (!strcasecmp(mode, "w") || !strcasecmp(mode, "write"))) {
			op = SIM_WRITE;
		} else if (mode && (!strcasecmp(mode, "m") || !strcasecmp(mode, "mmap"))) {
			op = SIM_MAPPED;
		} else if (mode && strcasecmp(mode, "r") && strcasecmp(mode, "read")) {
			snprintf(err, len, "%s:%lu: '%s': expected r, w or m after the key",
				 path, lineno, mode);
			ret = -EINVAL;
			break;
		}
		thread = mode ? strtok_r(NULL, " \t\r\n", &save) : NULL;
		if (thread) {
			errno = 0;
			tid = strtoull(thread, &end, 10);
			if (*end || errno || !isdigit((unsigned char)thread[0]) ||
			    tid > UINT32_MAX) {
				snprintf(err, len, "%s:%lu: '%s': expected a thread number after the mode",
					 path, lineno, thread);
				ret = -EINVAL;
				break;
			}
		}
		errno = 0;
		index = strtoull(key, &end, 10);
		if (*end || errno || !isdigit((unsigned char)key[0])) {
			/* A name: the n-th distinct name is page n of file 2. */
			uint64_t h = 1469598103934665603ULL;
			uint32_t *id;
			int added;

			for (end = key; *end; end++)
				h = (h ^ (unsigned char)*end) * 1099511628211ULL;
			id = keyset_get(&names, h ? h : 1, &added);
			if (!id) {
				ret = -ENOMEM;
				break;
			}
			if (added)
				*id = names.nr - 1;
			ret = sim_trace_add(t, 0, 2, *id, op, 0);
		} else {
			ret = sim_trace_add(t, 0, 1, index, op, 0);
		}
		if (!ret)
			t->req[t->nr - 1].tid = tid;
	}
	keyset_free(&names);
	return ret;
}

/*
 * What the kernel did on a demand insertion of the log (LC_REC_DEMAND,
 * marked in @demand): if the page's next event is an access, a read
 * missed and the access followed, so the two become one SIM_READ (a
 * miss, admission asked, not prefetched, as the kernel inserts it);
 * otherwise a fault inserted it and used it through a mapping, a
 * SIM_MAPPED (a miss that sets the accessed bit).  Without this, replay
 * counted a faulted page as unused readahead, which a policy could evict
 * for free.
 */
static int classify_demand(struct sim_trace *t, const unsigned char *demand)
{
	unsigned char *drop = calloc(t->nr ? t->nr : 1, 1);
	size_t *next = NULL, i, kept = 0;
	uint32_t *ids = NULL;
	int ret = -ENOMEM;

	if (!drop || page_slots(t, &ids, &next))
		goto out;
	for (i = t->nr; i-- > 0;) {
		size_t n = next[ids[i]];

		if (demand[i]) {
			if (n != SIZE_MAX && t->req[n].op == SIM_READ) {
				t->req[i].op = SIM_READ;
				drop[n] = 1;
			} else {
				t->req[i].op = SIM_MAPPED;
			}
		}
		next[ids[i]] = i;
	}
	t->nr_accesses = 0;
	for (i = 0; i < t->nr; i++) {
		if (drop[i])
			continue;
		t->req[kept++] = t->req[i];
		t->nr_accesses += t->req[i].op != SIM_INSERT;
	}
	t->nr = kept;
	ret = 0;
out:
	free(ids);
	free(next);
	free(drop);
	return ret;
}

static int read_lclog(const char *path, struct sim_trace *t, char *err,
		      size_t len)
{
	struct lc_events ev = { 0 };
	unsigned char *demand = NULL;
	size_t i, nr_demand = 0;
	int ret = lclog_read(path, &ev, err, len);

	t->timed = 1;
	t->dropped = ev.dropped;
	lc_events_dropped_too_many(&ev, &t->dropped_ppm);
	if (!ret) {
		demand = calloc(ev.nr ? ev.nr : 1, 1);
		if (!demand)
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < ev.nr; i++) {
		const struct lc_event *e = &ev.ev[i];

		/* Evictions and drops are the tracer's, not the workload's. */
		if (e->type != LC_EV_INSERT && !lc_event_is_use(e->type))
			continue;
		if (e->type == LC_EV_INSERT && (e->flags & LC_REC_DEMAND)) {
			demand[t->nr] = 1;
			nr_demand++;
		}
		ret = sim_trace_add(t, e->dev, e->ino, e->index,
				    e->type == LC_EV_INSERT ? SIM_INSERT :
				    e->type == LC_EV_MAPPED ? SIM_MAPPED :
				    SIM_READ, e->time_ns);
		if (!ret && e->type == LC_EV_MAPPED)
			t->req[t->nr - 1].seen_late = 1;
	}
	if (!ret && nr_demand)
		ret = classify_demand(t, demand);
	free(demand);
	lc_events_free(&ev);
	return ret;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dULL;
}

int sim_trace_zipf(struct sim_trace *t, uint32_t pages, size_t nr,
		   double theta, uint64_t seed, uint64_t perm_seed)
{
	double *cdf = malloc(pages * sizeof(*cdf)), sum = 0;
	uint32_t *perm = malloc(pages * sizeof(*perm)), i;
	uint64_t x = perm_seed * 0x9e3779b97f4a7c15ULL + 1;
	size_t k;
	int ret = -ENOMEM;

	memset(t, 0, sizeof(*t));
	if (!cdf || !perm || !pages)
		goto out;
	for (i = 0; i < pages; i++) {
		sum += 1 / pow(i + 1, theta);
		cdf[i] = sum;
		perm[i] = i;
	}
	for (i = pages - 1; i > 0; i--) {
		uint32_t j = (xorshift(&x) >> 11) % (i + 1), tmp = perm[i];

		perm[i] = perm[j];
		perm[j] = tmp;
	}
	x = seed * 0x9e3779b97f4a7c15ULL + 7;
	for (k = 0; k < nr; k++) {
		double u = (double)(xorshift(&x) >> 11) / (1ULL << 53) * sum;
		uint32_t lo = 0, hi = pages - 1;

		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;

			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (sim_trace_add(t, 0, 1, perm[lo], SIM_READ, 0))
			goto out;
	}
	snprintf(t->format, sizeof(t->format), "zipf");
	sim_trace_finish(t);
	ret = 0;
out:
	free(cdf);
	free(perm);
	return ret;
}

/* zipf:PAGES:READS:THETA:SEED[:PERM_SEED] */
static int read_zipf_spec(const char *spec, struct sim_trace *t, char *err,
			  size_t len)
{
	unsigned long pages, perm_seed;
	unsigned long long reads, seed;
	double theta;
	int n = sscanf(spec, "zipf:%lu:%llu:%lf:%llu:%lu", &pages, &reads, &theta,
		       &seed, &perm_seed);

	if (n < 4 || !pages || pages > UINT32_MAX || !reads || theta < 0) {
		snprintf(err, len, "'%s': zipf:PAGES:READS:THETA:SEED[:PERM_SEED]", spec);
		return -EINVAL;
	}
	if (sim_trace_zipf(t, pages, reads, theta, seed, n == 5 ? perm_seed : 1)) {
		snprintf(err, len, "%s: out of memory", spec);
		return -ENOMEM;
	}
	return 0;
}

int sim_trace_read(const char *path, const char *format, struct sim_trace *t,
		   char *err, size_t len)
{
	char head[16] = "";
	FILE *f;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!strncmp(path, "zipf:", 5))
		return read_zipf_spec(path, t, err, len);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!format) {
		size_t n = fread(head, 1, sizeof(head) - 1, f);

		head[n] = '\0';
		rewind(f);
		if (n >= sizeof(LC_LOG_MAGIC) &&
		    !memcmp(head, LC_LOG_MAGIC, sizeof(LC_LOG_MAGIC)))
			format = "lclog";
		else if (strchr(head, ','))
			format = "csv";
		else
			format = "text";
	}
	if (!strcmp(format, "csv")) {
		ret = read_csv(f, path, t, err, len);
	} else if (!strcmp(format, "text")) {
		ret = read_text(f, path, t, err, len);
	} else if (!strcmp(format, "lclog")) {
		ret = read_lclog(path, t, err, len);
	} else {
		snprintf(err, len, "unknown trace format '%s' (csv, text or lclog)",
			 format);
		ret = -EINVAL;
	}
	fclose(f);
	if (ret == -ENOMEM)
		snprintf(err, len, "%s: out of memory", path);
	if (ret) {
		sim_trace_free(t);
		return ret;
	}
	snprintf(t->format, sizeof(t->format), "%s", format);
	sim_trace_finish(t);
	return 0;
}
