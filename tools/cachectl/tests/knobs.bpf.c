// SPDX-License-Identifier: GPL-2.0
/*
 * Global variables of every kind a policy may have as knobs, for the
 * host tests of cachectl's --set.  Never loaded.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

enum knob_mode { MODE_FAST = 1, MODE_SLOW = 7, MODE_NEG = -3 };

const volatile __u32 sample_size = 20;		/* .rodata */
const volatile bool scan_resistant;		/* .rodata, zero */
__u8 small = 1;					/* .data */
__s16 offset = -1;				/* .data */
__s64 big;					/* .bss */
__u64 ubig;					/* .bss */
char label[8] = "none";				/* .data */
enum knob_mode mode = MODE_FAST;		/* .data */
struct { int a, b; } pair;			/* .bss: not settable */
int numbers[4];					/* .bss: not settable */

/* Keep every variable referenced so that none is optimized away. */
SEC("syscall")
int use_knobs(void *ctx)
{
	return sample_size + scan_resistant + small + offset + big + ubig +
	       label[0] + mode + pair.a + numbers[1];
}
