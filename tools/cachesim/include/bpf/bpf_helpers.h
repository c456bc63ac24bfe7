/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachesim's <bpf/bpf_helpers.h>: what libbpf's header gives a policy,
 * for building the policy's BPF source as host C.
 *
 * Map definitions keep libbpf's BTF-style syntax: __uint() and __type()
 * declare pointer members whose types carry the map's type, sizes and
 * capacity.  The helper calls are macros that read those back with
 * sizeof at the call site and hand the simulator a constant description
 * of the map with its address; the simulator keeps its state for the map
 * in the map variable's own first pointer member.
 *
 * kfuncs and helpers are functions of the simulator, resolved when the
 * policy's shared object is loaded into it.
 */
#ifndef __CACHESIM_BPF_HELPERS_H
#define __CACHESIM_BPF_HELPERS_H

#ifndef NULL
#define NULL ((void *)0)
#endif

#define SEC(name)		__attribute__((section(name), used))
#define __uint(name, val)	int (*name)[val]
#define __type(name, val)	typeof(val) *name
#define __array(name, val)	typeof(val) *name[]
#define __ksym
#define __kptr
#define __weak			__attribute__((weak))
#ifndef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#endif
#define __noinline		__attribute__((noinline))
#define barrier_var(var)	asm volatile("" : "+r"(var))
#define bpf_ksym_exists(sym)	((void *)&(sym) != NULL)
#define bpf_printk(fmt, args...) ({ 0; })

enum libbpf_pin_type {
	LIBBPF_PIN_NONE,
	LIBBPF_PIN_BY_NAME,
};

/* A map as its definition describes it; one per call site, constant. */
struct cachesim_map_def {
	const char *name;
	unsigned int type;
	unsigned int key_size;
	unsigned int value_size;
	unsigned int max_entries;
};

#define __cachesim_def(m)						\
	({								\
		static const struct cachesim_map_def __def = {		\
			.name = #m,					\
			.type = sizeof(*(m)->type) / sizeof(int),	\
			.key_size = sizeof(*(m)->key),			\
			.value_size = sizeof(*(m)->value),		\
			.max_entries = sizeof(*(m)->max_entries) /	\
				       sizeof(int),			\
		};							\
		&__def;							\
	})
/* Ring buffers have neither key nor value. */
#define __cachesim_rb_def(m)						\
	({								\
		static const struct cachesim_map_def __def = {		\
			.name = #m,					\
			.type = sizeof(*(m)->type) / sizeof(int),	\
			.max_entries = sizeof(*(m)->max_entries) /	\
				       sizeof(int),			\
		};							\
		&__def;							\
	})

struct cachesim_map;
struct cachesim_map *cachesim_map_of(void *map,
				     const struct cachesim_map_def *def);
void *cachesim_map_lookup(struct cachesim_map *m, const void *key);
long cachesim_map_update(struct cachesim_map *m, const void *key,
			 const void *value, unsigned long long flags);
long cachesim_map_delete(struct cachesim_map *m, const void *key);
long cachesim_map_for_each(struct cachesim_map *m, void *cb, void *ctx,
			   unsigned long long flags);
void *cachesim_ringbuf_reserve(struct cachesim_map *m, unsigned long long size,
			       unsigned long long flags);
unsigned long long cachesim_ringbuf_query(struct cachesim_map *m,
					  unsigned long long flags);

#define bpf_map_lookup_elem(map, key)					\
	cachesim_map_lookup(cachesim_map_of((map), __cachesim_def(map)), (key))
#define bpf_map_update_elem(map, key, value, flags)			\
	cachesim_map_update(cachesim_map_of((map), __cachesim_def(map)),	\
			    (key), (value), (flags))
/* One simulated CPU, CPU 0: its value, or none for any other. */
#define bpf_map_lookup_percpu_elem(map, key, cpu)			\
	((cpu) ? NULL : bpf_map_lookup_elem((map), (key)))
#define bpf_map_delete_elem(map, key)					\
	cachesim_map_delete(cachesim_map_of((map), __cachesim_def(map)), (key))
#define bpf_for_each_map_elem(map, cb, ctx, flags)			\
	cachesim_map_for_each(cachesim_map_of((map), __cachesim_def(map)),	\
			      (void *)(cb), (ctx), (flags))
#define bpf_ringbuf_reserve(map, size, flags)				\
	cachesim_ringbuf_reserve(cachesim_map_of((map), __cachesim_rb_def(map)), \
				 (size), (flags))

#define bpf_ringbuf_query(map, flags)					\
	cachesim_ringbuf_query(cachesim_map_of((map), __cachesim_rb_def(map)), \
			       (flags))

long bpf_loop(unsigned int nr_loops, void *callback_fn, void *callback_ctx,
	      unsigned long long flags);
void bpf_ringbuf_submit(void *data, unsigned long long flags);
void bpf_ringbuf_discard(void *data, unsigned long long flags);
unsigned long long bpf_ktime_get_ns(void);
unsigned long long bpf_ktime_get_boot_ns(void);
unsigned long long bpf_get_current_pid_tgid(void);
unsigned int bpf_get_smp_processor_id(void);
unsigned int bpf_get_prandom_u32(void);

struct bpf_timer;
long bpf_timer_init(struct bpf_timer *timer, void *map,
		    unsigned long long flags);
long bpf_timer_set_callback(struct bpf_timer *timer, void *callback_fn);
long bpf_timer_start(struct bpf_timer *timer, unsigned long long nsecs,
		     unsigned long long flags);
long bpf_timer_cancel(struct bpf_timer *timer);

/*
 * Open-coded iterators, as libbpf's bpf_for_each(): the iterator is
 * destroyed when the loop is left, by any way out.
 */
#define bpf_for_each(type, cur, args...)				\
	for (struct bpf_iter_##type ___it					\
		__attribute__((cleanup(bpf_iter_##type##_destroy))),	\
		*___p __attribute__((unused)) =				\
			(bpf_iter_##type##_new(&___it, ##args), &___it);	\
	     ((cur) = bpf_iter_##type##_next(&___it));)

#endif /* __CACHESIM_BPF_HELPERS_H */
