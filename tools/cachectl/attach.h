/* SPDX-License-Identifier: GPL-2.0 */
/* What cachectl attach, preload and detach share (attach.c). */
#ifndef CACHECTL_ATTACH_H
#define CACHECTL_ATTACH_H

struct attach_args {
	const char *file, *name, *cgroup;
	char **sets;		/* --set VAR=VALUE, nr_sets of them */
	int nr_sets;
	int replace;		/* --replace */
	int verbose;		/* -v: libbpf's debug messages, the verifier log */
	int preloading;		/* from cachectl preload: no module loading */
};

/*
 * Loads, registers and pins @a's policy (link at CTL_PIN_DIR/NAME, maps
 * under CTL_MAP_PIN_DIR/NAME/) and binds it to @a->cgroup if given; prints
 * what went wrong.  0 or -errno; nothing stays registered on failure.
 */
int attach_one(struct attach_args *a);

/*
 * Registers the installed policy @name (find_bpf_object()) as cachectl
 * preload does, unless it is pinned already; 0, or 1 if it failed (said).
 */
int preload_policy(const char *name);

/* Unregisters the policy pinned at CTL_PIN_DIR/@name and unpins it. */
int detach_pinned(const char *name);

/* @name can be a policy's name and a file name: 1 if so. */
int policy_name_valid(const char *name);

/* Mounts bpffs on /sys/fs/bpf if nothing is there yet, then the pin dir. */
int make_pin_dir(void);

#endif /* CACHECTL_ATTACH_H */
