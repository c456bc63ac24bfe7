// SPDX-License-Identifier: GPL-2.0
/*
 * insn_profile: a QEMU TCG plugin that counts the guest instructions
 * executed in kernel text, per translation block, and writes
 * "ADDRESS COUNT" lines (16 hex digits, decimal) to the file named by its
 * out= argument when QEMU exits.  scripts/insn-profile.sh sums them per
 * kernel function.
 *
 *   qemu-system-x86_64 ... -plugin libinsn_profile.so,out=FILE
 *
 * Debian ships no qemu-plugin.h: the few declarations of QEMU's plugin
 * API (version 1, QEMU 7.2) it uses are written here.  Counters are
 * added without atomics, so concurrent vCPUs may lose a few counts.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
	enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t id, void *userdata), void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

/* x86-64 kernel text; user space and the direct map are not counted. */
#define KERNEL_TEXT	0xffffffff80000000ULL
#define CHUNK		65536
#define MAX_CHUNKS	4096

/* One per translation: a block translated again gets a new slot. */
struct slot {
	uint64_t vaddr;
	uint64_t count;
};

static struct slot *chunks[MAX_CHUNKS];
static size_t nr_slots;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char out_path[4096] = "insn_profile.out";

static struct slot *new_slot(void)
{
	struct slot *s = NULL;

	pthread_mutex_lock(&lock);
	if (nr_slots < (size_t)CHUNK * MAX_CHUNKS) {
		if (!chunks[nr_slots / CHUNK])
			chunks[nr_slots / CHUNK] = calloc(CHUNK, sizeof(*s));
		if (chunks[nr_slots / CHUNK]) {
			s = &chunks[nr_slots / CHUNK][nr_slots % CHUNK];
			nr_slots++;
		}
	}
	pthread_mutex_unlock(&lock);
	return s;
}

static void tb_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct slot *s;

	if (vaddr < KERNEL_TEXT)
		return;
	s = new_slot();
	if (!s)
		return;
	s->vaddr = vaddr;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &s->count,
						 qemu_plugin_tb_n_insns(tb));
}

static void write_counts(qemu_plugin_id_t id, void *userdata)
{
	FILE *f = fopen(out_path, "w");
	size_t i;

	if (!f) {
		fprintf(stderr, "insn_profile: cannot write %s\n", out_path);
		return;
	}
	for (i = 0; i < nr_slots; i++) {
		struct slot *s = &chunks[i / CHUNK][i % CHUNK];

		if (s->count)
			fprintf(f, "%016" PRIx64 " %" PRIu64 "\n", s->vaddr,
				s->count);
	}
	fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
			       const struct qemu_info_t *info, int argc,
			       char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "out=", 4)) {
			fprintf(stderr, "insn_profile: unknown argument %s (takes out=FILE)\n",
				argv[i]);
			return -1;
		}
		snprintf(out_path, sizeof(out_path), "%s", argv[i] + 4);
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_translated);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
