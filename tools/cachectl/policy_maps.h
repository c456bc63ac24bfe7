/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A registered policy's maps, pinned beside its link.
 *
 * A struct_ops link keeps the policy's programs and, through them, its
 * maps alive, but only as kernel references.  What the kernel ties to a
 * map's *user* references dies with the loader's last file descriptor:
 * a BPF timer or work queue in the map is cancelled and cannot be armed
 * again (bpf_timer_init() returns -EPERM), a program array is emptied.
 * Pinning a map is a user reference that outlives the loader, so
 * cachectl pins every map of a policy it attaches under
 * CTL_MAP_PIN_DIR/NAME/, and removes them when it detaches the policy.
 * The pins also let an administrator read the policy's state:
 * "bpftool map dump pinned /sys/fs/bpf/cache_ext_maps/lhd/lhd_bss".
 */
#ifndef CACHECTL_POLICY_MAPS_H
#define CACHECTL_POLICY_MAPS_H

#include <stddef.h>

struct bpf_object;

#define CTL_MAP_PIN_DIR	"/sys/fs/bpf/cache_ext_maps"

/*
 * Pins each map of the loaded @obj but its struct_ops map and the maps
 * libbpf pinned itself (LIBBPF_PIN_BY_NAME) under CTL_MAP_PIN_DIR/@policy/,
 * named as libbpf names them with '_' for '.' (lhd_bss: bpffs refuses
 * names with dots), first removing what an earlier attach of that name
 * left there.
 * 0, or -errno with nothing left pinned; prints what failed.
 */
int policy_maps_pin(struct bpf_object *obj, const char *policy);

/*
 * Removes @policy's map pins and their directory; nothing pinned is no
 * error (a policy attached by an older cachectl).  0 or -errno.
 */
int policy_maps_unpin(const char *policy);

#endif /* CACHECTL_POLICY_MAPS_H */
