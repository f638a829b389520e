/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim: the kernel API that lib/percpu_tags.c, lib/tag_ida.c and
 * lib/sbitmap.c use, in userspace, so that those files compile unchanged.
 * Every kernel header they include is generated as a one-line file that
 * includes this one (the list is in headers); the real include/linux/{sbitmap,tag_ida,
 * percpu_tags}.h are copied from the patched tree next to them.
 *
 * Two runtimes implement the out-of-line part (kshim_* functions):
 * - rt-native.c: POSIX threads pinned to real cores, one thread per CPU;
 * - rt-model.c: N simulated CPUs in one process, switched at memory accesses
 *   by a seeded scheduler; built with KSHIM_MODEL and clang's
 *   -fsanitize=thread, whose hooks it implements to count cache-line
 *   transfers (see rt-model.c).
 *
 * The inline parts (atomics, bit operations, spinlocks, wait queues, per-CPU
 * pointers) are compiled into the kernel files themselves, so in the model
 * every access they make to allocator memory is instrumented and counted.
 */
#ifndef _KSHIM_H
#define _KSHIM_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* ---- types ---------------------------------------------------------------- */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
#define U16_MAX			((u16)~0U)
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef unsigned int gfp_t;
typedef u64 ktime_t;
typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;

#define __bitwise
#define __user
#define __percpu
#define __rcu
#define __iomem
#define __force
#define __init
#define __exit
#define __read_mostly
#undef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#define noinline		__attribute__((__noinline__))
#define __must_check		__attribute__((__warn_unused_result__))
#define __maybe_unused		__attribute__((__unused__))
#define __cold			__attribute__((__cold__))
#define fallthrough		__attribute__((__fallthrough__))
#define __aligned(x)		__attribute__((__aligned__(x)))
#define __releases(...)
#define __acquires(...)
#define __must_hold(...)
#define __cond_acquires(...)
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)

#define CONFIG_SMP		1
#define CONFIG_64BIT		1
#define CONFIG_KUNIT		0
#define IS_ENABLED(option)	(option)
#define IS_BUILTIN(option)	(option)

#define SMP_CACHE_BYTES		64
#define L1_CACHE_BYTES		64
#define PAGE_SIZE		4096UL
#define ____cacheline_aligned		__aligned(SMP_CACHE_BYTES)
#define ____cacheline_aligned_in_smp	__aligned(SMP_CACHE_BYTES)
#define __cacheline_aligned_in_smp	__aligned(SMP_CACHE_BYTES)

#define BITS_PER_LONG		(__SIZEOF_LONG__ * 8)
#define BITS_PER_BYTE		8
#define BIT(nr)			(1UL << (nr))
#define BIT_ULL(nr)		(1ULL << (nr))
#define GENMASK(h, l)		(((~0UL) << (l)) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define BITS_TO_LONGS(n)	DIV_ROUND_UP(n, BITS_PER_LONG)
#define BITMAP_LAST_WORD_MASK(nbits)	(~0UL >> (-(nbits) & (BITS_PER_LONG - 1)))
#define round_up(x, y)		((((x) - 1) | ((__typeof__(x))((y) - 1))) + 1)
#define round_down(x, y)	((x) & ~((__typeof__(x))((y) - 1)))
#define ALIGN(x, a)		(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define struct_size(p, member, n) \
	(sizeof(*(p)) + sizeof((p)->member[0]) * (size_t)(n))
#define size_mul(a, b)		((size_t)(a) * (size_t)(b))
#define array_size(a, b)	size_mul(a, b)
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)
#define static_assert(expr, ...)	_Static_assert(expr, #expr)
#define BUILD_BUG_ON_ZERO(e)	0
#define EXPORT_SYMBOL(...)
#define EXPORT_SYMBOL_GPL(...)
#define EXPORT_SYMBOL_IF_KUNIT(...)
#define VISIBLE_IF_KUNIT	static
#define KUNIT_STATIC_STUB_REDIRECT(...)	do { } while (0)
#define MODULE_LICENSE(...)
#define THIS_MODULE		NULL
#define barrier()		__asm__ __volatile__("" ::: "memory")
#define data_race(expr)		(expr)
#define do_div(n, base) ({						\
	u32 __rem = (u32)((n) % (base));				\
	(n) /= (base);							\
	__rem;								\
})

/* Initcalls run when the program starts. */
#define core_initcall(fn)						\
	static void __attribute__((constructor)) __kshim_init_##fn(void) \
	{								\
		(void)fn();						\
	}

/* ---- min, max --------------------------------------------------------------- */
#define __kshim_cmp(a, b, op) ({					\
	__typeof__(a) __a = (a);					\
	__typeof__(b) __b = (b);					\
	__typeof__(__a + __b) __x = __a, __y = __b;			\
	__x op __y ? __x : __y;						\
})
#define min(a, b)		__kshim_cmp(a, b, <)
#define max(a, b)		__kshim_cmp(a, b, >)
#define min_t(type, a, b)	min((type)(a), (type)(b))
#define max_t(type, a, b)	max((type)(a), (type)(b))
#define max3(a, b, c)		max(max(a, b), c)
#define min3(a, b, c)		min(min(a, b), c)
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define clamp_t(type, v, lo, hi) clamp((type)(v), (type)(lo), (type)(hi))
#define clamp_val(v, lo, hi)	clamp_t(__typeof__(v), v, lo, hi)
#define swap(a, b) do {							\
	__typeof__(a) __t = (a);					\
	(a) = (b);							\
	(b) = __t;							\
} while (0)

/* ---- the runtime's side (rt-native.c or rt-model.c) ----------------------------- */
/* CPU the calling thread (native) or simulated CPU (model) runs as. */
extern __thread unsigned int kshim_cpu_id;
extern unsigned int nr_cpu_ids;
/* Per-CPU areas: CPU n's copy of a per-CPU object is n units further. */
extern unsigned long kshim_pcpu_unit;

struct task_struct;
void kshim_cpu_relax(void);
void kshim_schedule(void);
int kshim_wake_task(struct task_struct *task, unsigned int state);
struct task_struct *kshim_current(void);
void kshim_note_contended_lock(void);
void kshim_note_irq_toggle(void);
u64 kshim_clock_ns(void);
u32 kshim_random_u32(void);
void *kshim_alloc(size_t size, size_t align, gfp_t gfp, int kind);
void kshim_free(const void *p, int kind);
void kshim_warn(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

enum { KSHIM_KMALLOC, KSHIM_VMALLOC, KSHIM_PERCPU };

/* ---- warnings and bugs --------------------------------------------------- */
#define WARN(cond, fmt...) ({						\
	bool __c = !!(cond);						\
	if (unlikely(__c))						\
		kshim_warn(__FILE__, __LINE__, fmt);			\
	__c;								\
})
#define WARN_ONCE(cond, fmt...) ({					\
	static bool __warned;						\
	bool __c = !!(cond);						\
	if (unlikely(__c) && !__warned) {				\
		__warned = true;					\
		kshim_warn(__FILE__, __LINE__, fmt);			\
	}								\
	__c;								\
})
#define WARN_ON(cond)		WARN(cond, "%s", #cond)
#define WARN_ON_ONCE(cond)	WARN_ONCE(cond, "%s", #cond)
#define BUG_ON(cond) do {						\
	if (unlikely(cond)) {						\
		kshim_warn(__FILE__, __LINE__, "BUG: %s", #cond);	\
		__builtin_trap();					\
	}								\
} while (0)
#define BUG()			BUG_ON(1)
#define might_sleep()		do { } while (0)
#define might_sleep_if(c)	do { (void)(c); } while (0)
#define lockdep_assert_held(l)	do { (void)(l); } while (0)
#define lockdep_assert_irqs_disabled() do { } while (0)
#define pr_err(fmt...)		fprintf(stderr, fmt)
#define pr_warn(fmt...)		fprintf(stderr, fmt)
#define pr_info(fmt...)		do { } while (0)
#define pr_debug(fmt...)	do { } while (0)

/* ---- memory ordering and atomics --------------------------------------------
 * As in the kernel's memory model: value-returning read-modify-writes are
 * fully ordered, the others relaxed.  On x86 both compile to locked
 * instructions, as the kernel's do.
 */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb__before_atomic()	barrier()
#define smp_mb__after_atomic()	barrier()
#define smp_mb__after_spinlock() smp_mb()

#define xchg(p, v)		__atomic_exchange_n(p, v, __ATOMIC_SEQ_CST)
#define cmpxchg(p, o, n) ({						\
	__typeof__(*(p)) __old = (o);					\
	__atomic_compare_exchange_n(p, &__old, n, false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED); \
	__old;								\
})
#define try_cmpxchg(p, po, n)						\
	__atomic_compare_exchange_n(p, po, n, false,			\
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)
#define try_cmpxchg_relaxed(p, po, n)					\
	__atomic_compare_exchange_n(p, po, n, false,			\
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED)
#define cmpxchg_relaxed(p, o, n) ({					\
	__typeof__(*(p)) __old = (o);					\
	try_cmpxchg_relaxed(p, &__old, n);				\
	__old;								\
})

#define ATOMIC_INIT(i)		{ (i) }
#define __KSHIM_ATOMIC(pfx, t, T)					\
static inline T pfx##_read(const t *v) { return READ_ONCE(v->counter); } \
static inline void pfx##_set(t *v, T i) { WRITE_ONCE(v->counter, i); } \
static inline void pfx##_add(T i, t *v)					\
{ __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##_sub(T i, t *v)					\
{ __atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##_inc(t *v) { pfx##_add(1, v); }			\
static inline void pfx##_dec(t *v) { pfx##_sub(1, v); }			\
static inline T pfx##_add_return(T i, t *v)				\
{ return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline T pfx##_sub_return(T i, t *v)				\
{ return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline T pfx##_inc_return(t *v) { return pfx##_add_return(1, v); } \
static inline T pfx##_dec_return(t *v) { return pfx##_sub_return(1, v); } \
static inline T pfx##_fetch_add(T i, t *v)				\
{ return __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline T pfx##_fetch_inc(t *v) { return pfx##_fetch_add(1, v); } \
static inline T pfx##_fetch_dec(t *v) { return pfx##_fetch_add(-1, v); } \
static inline bool pfx##_dec_and_test(t *v) { return !pfx##_dec_return(v); } \
static inline void pfx##_andnot(T i, t *v)				\
{ __atomic_fetch_and(&v->counter, ~i, __ATOMIC_RELAXED); }		\
static inline void pfx##_or(T i, t *v)					\
{ __atomic_fetch_or(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline T pfx##_xchg(t *v, T i) { return xchg(&v->counter, i); }	\
static inline T pfx##_cmpxchg(t *v, T o, T n)				\
{ return cmpxchg(&v->counter, o, n); }					\
static inline bool pfx##_try_cmpxchg(t *v, T *o, T n)			\
{ return try_cmpxchg(&v->counter, o, n); }
__KSHIM_ATOMIC(atomic, atomic_t, int)
__KSHIM_ATOMIC(atomic_long, atomic_long_t, long)
typedef struct { long long counter; } atomic64_t;
__KSHIM_ATOMIC(atomic64, atomic64_t, long long)
#define ATOMIC_LONG_INIT(i)	{ (i) }

/*
 * local_t: a counter only its CPU changes, safe against that CPU's
 * interrupts.  On x86 the kernel's local_inc() is one unlocked add; a plain
 * read-modify-write here.
 */
typedef struct { long counter; } local_t;
#define local_read(l)		READ_ONCE((l)->counter)
#define local_set(l, i)		WRITE_ONCE((l)->counter, (i))
#define local_add(i, l)		WRITE_ONCE((l)->counter, (l)->counter + (i))
#define local_inc(l)		local_add(1, l)
typedef local_t local64_t;
#define local64_read		local_read
#define local64_set		local_set
#define local64_add		local_add
#define local64_inc		local_inc

/* ---- bit operations ---------------------------------------------------------- */
#define BIT_WORD(nr)		((nr) / BITS_PER_LONG)
#define BIT_MASK(nr)		(1UL << ((nr) % BITS_PER_LONG))

static inline void set_bit(unsigned long nr, volatile unsigned long *addr)
{
	__atomic_fetch_or((unsigned long *)&addr[BIT_WORD(nr)], BIT_MASK(nr),
			  __ATOMIC_RELAXED);
}

static inline void clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	__atomic_fetch_and((unsigned long *)&addr[BIT_WORD(nr)], ~BIT_MASK(nr),
			   __ATOMIC_RELAXED);
}

static inline void clear_bit_unlock(unsigned long nr, volatile unsigned long *addr)
{
	__atomic_fetch_and((unsigned long *)&addr[BIT_WORD(nr)], ~BIT_MASK(nr),
			   __ATOMIC_RELEASE);
}

static inline bool test_and_set_bit(unsigned long nr, volatile unsigned long *addr)
{
	return __atomic_fetch_or((unsigned long *)&addr[BIT_WORD(nr)],
				 BIT_MASK(nr), __ATOMIC_SEQ_CST) & BIT_MASK(nr);
}

static inline bool test_and_set_bit_lock(unsigned long nr, volatile unsigned long *addr)
{
	return __atomic_fetch_or((unsigned long *)&addr[BIT_WORD(nr)],
				 BIT_MASK(nr), __ATOMIC_ACQUIRE) & BIT_MASK(nr);
}

static inline bool test_and_clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	return __atomic_fetch_and((unsigned long *)&addr[BIT_WORD(nr)],
				  ~BIT_MASK(nr), __ATOMIC_SEQ_CST) & BIT_MASK(nr);
}

static inline void __set_bit(unsigned long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] |= BIT_MASK(nr);
}

static inline void __clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}

static inline bool test_bit(unsigned long nr, const volatile unsigned long *addr)
{
	return (READ_ONCE(*(unsigned long *)&addr[BIT_WORD(nr)]) >>
		(nr % BITS_PER_LONG)) & 1;
}

static inline unsigned long __ffs(unsigned long w) { return __builtin_ctzl(w); }
static inline unsigned long ffz(unsigned long w) { return __builtin_ctzl(~w); }
#define ffs(x)			__builtin_ffs(x)
static inline unsigned long __fls(unsigned long w)
{
	return BITS_PER_LONG - 1 - __builtin_clzl(w);
}
static inline int fls(unsigned int x) { return x ? 32 - __builtin_clz(x) : 0; }
static inline int fls64(u64 x) { return x ? 64 - __builtin_clzll(x) : 0; }
static inline unsigned int hweight_long(unsigned long w)
{
	return __builtin_popcountl(w);
}
static inline unsigned int hweight64(u64 w) { return __builtin_popcountll(w); }
static inline unsigned int hweight32(u32 w) { return __builtin_popcount(w); }
#define ilog2(n)		((n) ? (int)__fls((unsigned long)(n)) : -1)
static inline bool is_power_of_2(unsigned long n)
{
	return n && !(n & (n - 1));
}
static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (BITS_PER_LONG - __builtin_clzl(n - 1));
}
static inline unsigned long rounddown_pow_of_two(unsigned long n)
{
	return 1UL << __fls(n);
}
#define order_base_2(n)		ilog2(roundup_pow_of_two(n))

static inline unsigned long _find_next_bit(const unsigned long *addr,
					   unsigned long size,
					   unsigned long offset, bool zero)
{
	while (offset < size) {
		unsigned long word = addr[BIT_WORD(offset)];

		if (zero)
			word = ~word;
		word &= ~0UL << (offset % BITS_PER_LONG);
		if (word) {
			offset = round_down(offset, BITS_PER_LONG) + __ffs(word);
			return min(offset, size);
		}
		offset = round_down(offset, BITS_PER_LONG) + BITS_PER_LONG;
	}
	return size;
}
#define find_next_bit(a, s, o)		_find_next_bit(a, s, o, false)
#define find_next_zero_bit(a, s, o)	_find_next_bit(a, s, o, true)
#define find_first_bit(a, s)		_find_next_bit(a, s, 0, false)
#define find_first_zero_bit(a, s)	_find_next_bit(a, s, 0, true)
static inline unsigned long find_next_bit_wrap(const unsigned long *addr,
					       unsigned long size, unsigned long offset)
{
	unsigned long bit = find_next_bit(addr, size, offset);

	if (bit < size || offset == 0)
		return bit;
	bit = find_first_bit(addr, offset);
	return bit < offset ? bit : size;
}
#define for_each_set_bit(bit, addr, size)				\
	for ((bit) = find_first_bit((addr), (size)); (bit) < (size);	\
	     (bit) = find_next_bit((addr), (size), (bit) + 1))
/* for_each_set_bit_wrap()'s next bit at or after @n, each bit once from @start. */
static inline unsigned long __for_each_wrap(const unsigned long *addr, unsigned long size,
					    unsigned long start, unsigned long n)
{
	unsigned long bit;

	if (n > start) {
		bit = find_next_bit(addr, size, n);
		if (bit < size)
			return bit;
		n = 0;
	}
	bit = find_next_bit(addr, start, n);
	return bit < start ? bit : size;
}
#define for_each_set_bit_wrap(bit, addr, size, start)			\
	for ((bit) = find_next_bit_wrap((addr), (size), (start)); (bit) < (size); \
	     (bit) = __for_each_wrap((addr), (size), (start), (bit) + 1))

static inline unsigned int bitmap_weight(const unsigned long *src,
					 unsigned int nbits)
{
	unsigned int i, w = 0;

	for (i = 0; i < nbits / BITS_PER_LONG; i++)
		w += hweight_long(src[i]);
	if (nbits % BITS_PER_LONG)
		w += hweight_long(src[i] & (~0UL >> (BITS_PER_LONG - nbits % BITS_PER_LONG)));
	return w;
}

/* ---- memory ------------------------------------------------------------------ */
#define __GFP_DIRECT_RECLAIM	0x400u
#define __GFP_KSWAPD_RECLAIM	0x800u
#define __GFP_IO		0x40u
#define __GFP_FS		0x80u
#define __GFP_ZERO		0x100u
#define __GFP_NOWARN		0x200u
#define __GFP_HIGH		0x20u
#define __GFP_NORETRY		0x1000u
#define __GFP_RECLAIM		(__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL		(__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_NOIO		(__GFP_RECLAIM)
#define GFP_NOWAIT		(__GFP_KSWAPD_RECLAIM | __GFP_NOWARN)
#define GFP_ATOMIC		(__GFP_HIGH | __GFP_KSWAPD_RECLAIM)
#define NUMA_NO_NODE		(-1)

static inline bool gfpflags_allow_blocking(gfp_t gfp)
{
	return gfp & __GFP_DIRECT_RECLAIM;
}

static inline void *kmalloc(size_t s, gfp_t g)
{
	return kshim_alloc(s, 0, g, KSHIM_KMALLOC);
}
#define kzalloc(s, g)			kmalloc(s, (g) | __GFP_ZERO)
#define kmalloc_node(s, g, n)		kmalloc(s, g)
#define kzalloc_node(s, g, n)		kzalloc(s, g)
#define cpu_to_node(cpu)		((void)(cpu), 0)
#define kmalloc_array(n, s, g)		kmalloc(size_mul(n, s), g)
#define kcalloc(n, s, g)		kzalloc(size_mul(n, s), g)
#define kcalloc_node(n, s, g, node)	kcalloc(n, s, g)
#define kfree(p)			kshim_free(p, KSHIM_KMALLOC)
#define kfree_rcu(p, f)			kfree(p)
static inline void *kvmalloc(size_t s, gfp_t g)
{
	return kshim_alloc(s, 0, g, KSHIM_VMALLOC);
}
#define kvzalloc(s, g)			kvmalloc(s, (g) | __GFP_ZERO)
#define kvmalloc_node(s, g, n)		kvmalloc(s, g)
#define kvzalloc_node(s, g, n)		kvzalloc(s, g)
#define kvmalloc_array(n, s, g)		kvmalloc(size_mul(n, s), g)
#define kvcalloc(n, s, g)		kvzalloc(size_mul(n, s), g)
#define kvfree(p)			kshim_free(p, KSHIM_VMALLOC)
#define vmalloc(s)			kvmalloc(s, GFP_KERNEL)
#define vzalloc(s)			kvzalloc(s, GFP_KERNEL)
#define vfree(p)			kvfree(p)
#define vfree_atomic(p)			kvfree(p)
static inline bool is_vmalloc_addr(const void *p) { (void)p; return false; }
#define bitmap_zalloc(n, g)		kcalloc(BITS_TO_LONGS(n), sizeof(long), g)
#define bitmap_zalloc_node(n, g, node)	bitmap_zalloc(n, g)
#define bitmap_free(p)			kfree(p)

/* ---- per-CPU data -------------------------------------------------------------- */
static inline void *__alloc_percpu_gfp(size_t size, size_t align, gfp_t gfp)
{
	return kshim_alloc(size, align, gfp | __GFP_ZERO, KSHIM_PERCPU);
}
#define __alloc_percpu(size, align)	__alloc_percpu_gfp(size, align, GFP_KERNEL)
#define alloc_percpu_gfp(type, gfp)					\
	((type *)__alloc_percpu_gfp(sizeof(type), __alignof__(type), gfp))
#define alloc_percpu(type)		alloc_percpu_gfp(type, GFP_KERNEL)
#define free_percpu(p)			kshim_free(p, KSHIM_PERCPU)
#define per_cpu_ptr(p, cpu)						\
	((__typeof__(p))((unsigned long)(p) + (unsigned long)(cpu) * kshim_pcpu_unit))
#define this_cpu_ptr(p)			per_cpu_ptr(p, kshim_cpu_id)
#define raw_cpu_ptr(p)			this_cpu_ptr(p)
#define per_cpu(var, cpu)		(*per_cpu_ptr(&(var), cpu))
#define this_cpu_read(var)		(*this_cpu_ptr(&(var)))
#define this_cpu_write(var, v)		(*this_cpu_ptr(&(var)) = (v))
#define this_cpu_add(var, v)		(*this_cpu_ptr(&(var)) += (v))
#define this_cpu_inc(var)		this_cpu_add(var, 1)
#define this_cpu_dec(var)		this_cpu_add(var, -1)
#define __this_cpu_read			this_cpu_read
#define __this_cpu_inc_return(var)	(++(*this_cpu_ptr(&(var))))
#define this_cpu_inc_return(var)	__this_cpu_inc_return(var)
#define __this_cpu_write		this_cpu_write
#define __this_cpu_add			this_cpu_add
#define __this_cpu_inc			this_cpu_inc
#define raw_cpu_read			this_cpu_read

/* ---- CPUs ------------------------------------------------------------------------ */
#define NR_CPUS			4096
#define CONFIG_NR_CPUS		NR_CPUS
#define raw_smp_processor_id()	(kshim_cpu_id)
#define smp_processor_id()	(kshim_cpu_id)
#define num_possible_cpus()	(nr_cpu_ids)
#define num_online_cpus()	(nr_cpu_ids)
#define cpu_possible(cpu)	((unsigned int)(cpu) < nr_cpu_ids)
#define cpu_online(cpu)		cpu_possible(cpu)
#define for_each_possible_cpu(cpu)					\
	for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)
#define for_each_online_cpu(cpu)	for_each_possible_cpu(cpu)
struct cpumask {
	unsigned long bits[NR_CPUS / BITS_PER_LONG];
};
#define cpumask_test_cpu(cpu, m)	(((m)->bits[(cpu) / BITS_PER_LONG] >> ((cpu) % BITS_PER_LONG)) & 1)
#define cpumask_set_cpu(cpu, m)		((m)->bits[(cpu) / BITS_PER_LONG] |= 1UL << ((cpu) % BITS_PER_LONG))
#define cpumask_clear(m)		memset((m), 0, sizeof(*(m)))
#define cpus_read_lock()	do { } while (0)
#define cpus_read_unlock()	do { } while (0)

/*
 * Preemption and interrupts.  In the kernel, turning preemption off writes
 * only the CPU's own counter; interrupt save/restore are pushf/cli and popf.
 * Natively, popf is what restore costs here too (cli is privileged, the
 * interrupt flag is left alone); the model counts the toggles.
 */
extern __thread int kshim_preempt_count;
#define preempt_disable()	do { kshim_preempt_count++; barrier(); } while (0)
#define preempt_enable()	do { barrier(); kshim_preempt_count--; } while (0)
#define preempt_enable_no_resched() preempt_enable()
#define migrate_disable()	preempt_disable()
#define migrate_enable()	preempt_enable()
#define get_cpu()		({ preempt_disable(); smp_processor_id(); })
#define put_cpu()		preempt_enable()
#define in_task()		(1)
#define in_interrupt()		(0)

#ifdef KSHIM_MODEL
#define kshim_irq_save()	({ kshim_note_irq_toggle(); 0UL; })
#define kshim_irq_restore(f)	do { (void)(f); barrier(); } while (0)
#else
static inline unsigned long kshim_irq_save(void)
{
	unsigned long f;

	__asm__ __volatile__("pushf; pop %0" : "=rm"(f) : : "memory");
	return f;
}
static inline void kshim_irq_restore(unsigned long f)
{
	__asm__ __volatile__("push %0; popf" : : "g"(f) : "memory", "cc");
}
#endif
#define local_irq_save(flags)	do { (flags) = kshim_irq_save(); } while (0)
#define local_irq_restore(flags) kshim_irq_restore(flags)
#define local_irq_disable()	do { (void)kshim_irq_save(); } while (0)
#define local_irq_enable()	do { } while (0)
#define irqs_disabled()		(0)

static inline void cpu_relax(void) { kshim_cpu_relax(); }

/*
 * ---- spinlocks: queued, as the kernel's qspinlock --------------------------
 * The lock word holds a locked byte and the tail of a queue of waiting CPUs.
 * Uncontended, lock is one compare-and-exchange and unlock one byte store.
 * A CPU that finds the lock held queues a node of its own (per CPU, four
 * for nesting) and spins on that node until it is first in the queue; only
 * the first spins on the lock word.  So waiters do not bounce the lock's
 * line between them, as they would not in the kernel.
 */
typedef struct { unsigned int val; } arch_spinlock_t;
typedef arch_spinlock_t spinlock_t;
typedef arch_spinlock_t raw_spinlock_t;
#define __SPIN_LOCK_UNLOCKED(name)	{ 0 }
#define __RAW_SPIN_LOCK_UNLOCKED(name)	{ 0 }
#define DEFINE_SPINLOCK(x)		spinlock_t x = { 0 }

#define KSHIM_QNODES		4	/* per CPU: task, softirq, hardirq, NMI */
#define KSHIM_Q_LOCKED		1U
#define KSHIM_Q_TAIL_SHIFT	8

/* A queue node; each on a line of its own in its CPU's per-CPU area. */
struct kshim_qnode {
	struct kshim_qnode *next;
	int locked;
};
/* CPU n's nodes are at kshim_qnode_base + n * kshim_pcpu_unit. */
extern char *kshim_qnode_base;
extern unsigned char kshim_qnode_depth[NR_CPUS];

static inline struct kshim_qnode *kshim_qnode(unsigned int id)
{
	return (struct kshim_qnode *)(kshim_qnode_base +
				      (id / KSHIM_QNODES) * kshim_pcpu_unit +
				      (id % KSHIM_QNODES) * SMP_CACHE_BYTES);
}

static inline bool spin_trylock(spinlock_t *l)
{
	unsigned int unlocked = 0;

	return !READ_ONCE(l->val) &&
	       __atomic_compare_exchange_n(&l->val, &unlocked, KSHIM_Q_LOCKED,
					   false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static inline void kshim_queued_lock(spinlock_t *l)
{
	unsigned int cpu = kshim_cpu_id;
	unsigned int id = cpu * KSHIM_QNODES + kshim_qnode_depth[cpu]++;
	unsigned int tail = (id + 1) << KSHIM_Q_TAIL_SHIFT, old, new;
	struct kshim_qnode *node = kshim_qnode(id), *next;

	WRITE_ONCE(node->next, NULL);
	WRITE_ONCE(node->locked, 0);
	old = READ_ONCE(l->val);
	do {
		new = (old & KSHIM_Q_LOCKED) | tail;
	} while (!__atomic_compare_exchange_n(&l->val, &old, new, false,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	if (old >> KSHIM_Q_TAIL_SHIFT) {
		WRITE_ONCE(kshim_qnode((old >> KSHIM_Q_TAIL_SHIFT) - 1)->next, node);
		while (!__atomic_load_n(&node->locked, __ATOMIC_ACQUIRE))
			cpu_relax();
	}
	/* First in the queue: wait for the holder, then take the lock. */
	for (;;) {
		old = READ_ONCE(l->val);
		if (old & KSHIM_Q_LOCKED) {
			cpu_relax();
			continue;
		}
		new = (old & ~KSHIM_Q_LOCKED) == tail ? KSHIM_Q_LOCKED :
		      old | KSHIM_Q_LOCKED;
		if (__atomic_compare_exchange_n(&l->val, &old, new, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
	}
	if (new != KSHIM_Q_LOCKED) {
		while (!(next = READ_ONCE(node->next)))
			cpu_relax();
		__atomic_store_n(&next->locked, 1, __ATOMIC_RELEASE);
	}
	kshim_qnode_depth[cpu]--;
}

static inline void kshim_raw_spin_lock(spinlock_t *l)
{
	unsigned int unlocked = 0;

	if (likely(__atomic_compare_exchange_n(&l->val, &unlocked, KSHIM_Q_LOCKED,
					       false, __ATOMIC_ACQUIRE,
					       __ATOMIC_RELAXED)))
		return;
	kshim_note_contended_lock();
	kshim_queued_lock(l);
}

/* The locked byte alone, as qspinlock's unlock stores it (little endian). */
static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n((unsigned char *)&l->val, 0, __ATOMIC_RELEASE);
}

/*
 * A spinlock_t is a sleeping lock on PREEMPT_RT: taking one with preemption
 * disabled is a bug there (DEBUG_ATOMIC_SLEEP's "sleeping function called
 * from invalid context"), so the model warns, as a debug RT kernel would:
 * every time in kshim_rt_lock_warnings(), on stderr the first time only
 * (bench-scale reads a model's stderr only when it dies).
 */
#ifdef KSHIM_MODEL
void kshim_warn_rt_lock(const char *file, int line);
#define kshim_rt_might_sleep()						\
	do {								\
		if (kshim_preempt_count > 0)				\
			kshim_warn_rt_lock(__FILE__, __LINE__);		\
	} while (0)
#else
#define kshim_rt_might_sleep()	do { } while (0)
#endif
static inline void spin_lock(spinlock_t *l)
{
	kshim_rt_might_sleep();
	kshim_raw_spin_lock(l);
}

static inline int spin_is_locked(spinlock_t *l)
{
	return READ_ONCE(l->val) & KSHIM_Q_LOCKED;
}
#define spin_lock_init(l)		do { (l)->val = 0; } while (0)
#define spin_lock_irq(l)		do { local_irq_disable(); spin_lock(l); } while (0)
#define spin_unlock_irq(l)		do { spin_unlock(l); local_irq_enable(); } while (0)
#define spin_lock_irqsave(l, f)		do { local_irq_save(f); spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f)	do { spin_unlock(l); local_irq_restore(f); } while (0)
#define spin_lock_bh(l)			spin_lock(l)
#define spin_unlock_bh(l)		spin_unlock(l)
#define raw_spin_lock_init		spin_lock_init
#define raw_spin_lock			kshim_raw_spin_lock
#define raw_spin_unlock			spin_unlock
#define raw_spin_lock_irqsave(l, f)	do { local_irq_save(f); kshim_raw_spin_lock(l); } while (0)
#define raw_spin_unlock_irqrestore	spin_unlock_irqrestore

/* guard(raw_spinlock_irqsave)(&lock): held until the end of the scope. */
struct kshim_guard { spinlock_t *lock; unsigned long flags; };
static inline void kshim_guard_release(struct kshim_guard *g)
{
	spin_unlock_irqrestore(g->lock, g->flags);
}
static inline struct kshim_guard kshim_guard_acquire(spinlock_t *l)
{
	struct kshim_guard g = { .lock = l };

	raw_spin_lock_irqsave(l, g.flags);
	return g;
}
#define __KSHIM_PASTE(a, b)	a##b
#define __KSHIM_UNIQUE(p, n)	__KSHIM_PASTE(p, n)
#define guard(type)							\
	struct kshim_guard __KSHIM_UNIQUE(__guard_, __COUNTER__)	\
	__attribute__((cleanup(kshim_guard_release), unused)) =	\
		kshim_guard_acquire

/* ---- lists ------------------------------------------------------------------------ */
struct list_head { struct list_head *next, *prev; };
struct hlist_node { struct hlist_node *next, **pprev; };
#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	WRITE_ONCE(l->next, l);
	l->prev = l;
}
static inline void __list_add(struct list_head *n, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	WRITE_ONCE(prev->next, n);
}
static inline void list_add(struct list_head *n, struct list_head *h)
{
	__list_add(n, h, h->next);
}
static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	__list_add(n, h->prev, h);
}
static inline void __list_del(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	WRITE_ONCE(prev->next, next);
}
static inline void list_del(struct list_head *e)
{
	__list_del(e->prev, e->next);
}
static inline void list_del_init(struct list_head *e)
{
	__list_del(e->prev, e->next);
	INIT_LIST_HEAD(e);
}
static inline void list_del_init_careful(struct list_head *e)
{
	__list_del(e->prev, e->next);
	e->prev = e;
	smp_store_release(&e->next, e);
}
static inline int list_empty(const struct list_head *h)
{
	return READ_ONCE(h->next) == h;
}
static inline int list_empty_careful(const struct list_head *h)
{
	struct list_head *next = smp_load_acquire(&h->next);

	return next == h && next == READ_ONCE(h->prev);
}
#define list_entry(p, type, member)	container_of(p, type, member)
#define list_first_entry(p, type, member) list_entry((p)->next, type, member)
#define list_next_entry(pos, member)					\
	list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, __typeof__(*pos), member);	\
	     &pos->member != (head); pos = list_next_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, __typeof__(*pos), member),	\
	     n = list_next_entry(pos, member);				\
	     &pos->member != (head);					\
	     pos = n, n = list_next_entry(n, member))
#define hlist_entry_safe(ptr, type, member)				\
	({ __typeof__(ptr) ____ptr = (ptr);				\
	   ____ptr ? container_of(____ptr, type, member) : NULL; })

/* ---- tasks and wait queues, as kernel/sched/wait.c has them ------------------ */
#define TASK_RUNNING		0x0000
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002
#define TASK_NORMAL		(TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)
#define WQ_FLAG_EXCLUSIVE	0x01
#define WQ_FLAG_WOKEN		0x02

struct task_struct {
	unsigned int __state;
	unsigned int cpu;
};
#define current			kshim_current()
#define __set_current_state(s)	WRITE_ONCE(current->__state, (s))
#define set_current_state(s)	do { __set_current_state(s); smp_mb(); } while (0)
#define schedule()		kshim_schedule()
#define io_schedule()		kshim_schedule()
#define cond_resched()		do { } while (0)
#define signal_pending_state(s, t) (0)

struct wait_queue_entry;
typedef int (*wait_queue_func_t)(struct wait_queue_entry *wq_entry,
				 unsigned int mode, int flags, void *key);
struct wait_queue_entry {
	unsigned int flags;
	void *private;
	wait_queue_func_t func;
	struct list_head entry;
};
typedef struct wait_queue_entry wait_queue_entry_t;
struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
};
typedef struct wait_queue_head wait_queue_head_t;

static inline int default_wake_function(struct wait_queue_entry *w,
					unsigned int mode, int flags, void *key)
{
	return kshim_wake_task(w->private, mode);
}
static inline int autoremove_wake_function(struct wait_queue_entry *w,
					   unsigned int mode, int flags, void *key)
{
	int ret = default_wake_function(w, mode, flags, key);

	if (ret)
		list_del_init_careful(&w->entry);
	return ret;
}
#define DEFINE_WAIT_FUNC(name, function)				\
	struct wait_queue_entry name = {				\
		.private = current,					\
		.func = function,					\
		.entry = LIST_HEAD_INIT((name).entry),			\
	}
#define DEFINE_WAIT(name)	DEFINE_WAIT_FUNC(name, autoremove_wake_function)
#define init_wait(w) do {						\
	(w)->private = current;						\
	(w)->func = autoremove_wake_function;				\
	INIT_LIST_HEAD(&(w)->entry);					\
	(w)->flags = 0;							\
} while (0)

/* A wake_q: the tasks to wake once the waker dropped its locks. */
#define KSHIM_WAKE_Q_MAX	4
struct wake_q_head {
	struct task_struct *tasks[KSHIM_WAKE_Q_MAX];
	unsigned int nr;
};
#define DEFINE_WAKE_Q(name)	struct wake_q_head name = { .nr = 0 }
static inline void wake_q_init(struct wake_q_head *head)
{
	head->nr = 0;
}
static inline void wake_q_add(struct wake_q_head *head, struct task_struct *task)
{
	BUG_ON(head->nr == KSHIM_WAKE_Q_MAX);
	head->tasks[head->nr++] = task;
}
static inline void wake_up_q(struct wake_q_head *head)
{
	unsigned int i;

	for (i = 0; i < head->nr; i++)
		kshim_wake_task(head->tasks[i], TASK_NORMAL);
}

static inline void init_waitqueue_head(struct wait_queue_head *wq)
{
	spin_lock_init(&wq->lock);
	INIT_LIST_HEAD(&wq->head);
}
static inline void init_waitqueue_func_entry(struct wait_queue_entry *w,
					     wait_queue_func_t func)
{
	w->flags = 0;
	w->private = NULL;
	w->func = func;
}
static inline int waitqueue_active(struct wait_queue_head *wq)
{
	return !list_empty(&wq->head);
}
static inline bool wq_has_sleeper(struct wait_queue_head *wq)
{
	smp_mb();
	return waitqueue_active(wq);
}
static inline void __add_wait_queue(struct wait_queue_head *wq,
				    struct wait_queue_entry *w)
{
	list_add(&w->entry, &wq->head);
}
static inline void __add_wait_queue_entry_tail(struct wait_queue_head *wq,
					       struct wait_queue_entry *w);
static inline void __add_wait_queue_entry_tail_exclusive(struct wait_queue_head *wq,
							 struct wait_queue_entry *w)
{
	w->flags |= WQ_FLAG_EXCLUSIVE;
	__add_wait_queue_entry_tail(wq, w);
}
static inline void __add_wait_queue_entry_tail(struct wait_queue_head *wq,
					       struct wait_queue_entry *w)
{
	list_add_tail(&w->entry, &wq->head);
}
static inline void __remove_wait_queue(struct wait_queue_head *wq,
				       struct wait_queue_entry *w)
{
	list_del(&w->entry);
}
static inline void add_wait_queue(struct wait_queue_head *wq,
				  struct wait_queue_entry *w)
{
	unsigned long flags;

	w->flags &= ~WQ_FLAG_EXCLUSIVE;
	spin_lock_irqsave(&wq->lock, flags);
	__add_wait_queue(wq, w);
	spin_unlock_irqrestore(&wq->lock, flags);
}
static inline void remove_wait_queue(struct wait_queue_head *wq,
				     struct wait_queue_entry *w)
{
	unsigned long flags;

	spin_lock_irqsave(&wq->lock, flags);
	__remove_wait_queue(wq, w);
	spin_unlock_irqrestore(&wq->lock, flags);
}
static inline void prepare_to_wait(struct wait_queue_head *wq,
				   struct wait_queue_entry *w, int state)
{
	unsigned long flags;

	w->flags &= ~WQ_FLAG_EXCLUSIVE;
	spin_lock_irqsave(&wq->lock, flags);
	if (list_empty(&w->entry))
		__add_wait_queue(wq, w);
	set_current_state(state);
	spin_unlock_irqrestore(&wq->lock, flags);
}
static inline bool prepare_to_wait_exclusive(struct wait_queue_head *wq,
					     struct wait_queue_entry *w,
					     int state)
{
	unsigned long flags;
	bool was_empty = false;

	w->flags |= WQ_FLAG_EXCLUSIVE;
	spin_lock_irqsave(&wq->lock, flags);
	if (list_empty(&w->entry)) {
		was_empty = list_empty(&wq->head);
		__add_wait_queue_entry_tail(wq, w);
	}
	set_current_state(state);
	spin_unlock_irqrestore(&wq->lock, flags);
	return was_empty;
}
static inline void finish_wait(struct wait_queue_head *wq,
			       struct wait_queue_entry *w)
{
	unsigned long flags;

	__set_current_state(TASK_RUNNING);
	if (!list_empty_careful(&w->entry)) {
		spin_lock_irqsave(&wq->lock, flags);
		list_del_init(&w->entry);
		spin_unlock_irqrestore(&wq->lock, flags);
	}
}
/* Returns how many exclusive waiters are left to wake of @nr_exclusive. */
static inline int __wake_up_common(struct wait_queue_head *wq,
				   unsigned int mode, int nr_exclusive,
				   int wake_flags, void *key)
{
	struct wait_queue_entry *curr, *next;

	list_for_each_entry_safe(curr, next, &wq->head, entry) {
		unsigned int flags = curr->flags;
		int ret = curr->func(curr, mode, wake_flags, key);

		if (ret < 0)
			break;
		if (ret && (flags & WQ_FLAG_EXCLUSIVE) && !--nr_exclusive)
			break;
	}
	return nr_exclusive;
}
static inline int __wake_up(struct wait_queue_head *wq, unsigned int mode,
			    int nr_exclusive, void *key)
{
	unsigned long flags;
	int remaining;

	spin_lock_irqsave(&wq->lock, flags);
	remaining = __wake_up_common(wq, mode, nr_exclusive, 0, key);
	spin_unlock_irqrestore(&wq->lock, flags);
	return nr_exclusive - remaining;
}
static inline void __wake_up_locked_key(struct wait_queue_head *wq,
					unsigned int mode, void *key)
{
	__wake_up_common(wq, mode, 1, 0, key);
}
static inline void __wake_up_locked(struct wait_queue_head *wq,
				    unsigned int mode, int nr)
{
	__wake_up_common(wq, mode, nr, 0, NULL);
}
#define wake_up(wq)		__wake_up(wq, TASK_NORMAL, 1, NULL)
#define wake_up_nr(wq, nr)	__wake_up(wq, TASK_NORMAL, nr, NULL)
#define wake_up_all(wq)		__wake_up(wq, TASK_NORMAL, 0, NULL)

/* ---- time, random ---------------------------------------------------------------- */
#define NSEC_PER_SEC		1000000000ULL
#define NSEC_PER_MSEC		1000000ULL
#define HZ			1000
static inline u64 ktime_get_ns(void) { return kshim_clock_ns(); }
static inline u64 local_clock(void) { return kshim_clock_ns(); }
static inline u32 get_random_u32(void) { return kshim_random_u32(); }
static inline u32 get_random_u32_below(u32 ceil)
{
	return (u32)(((u64)kshim_random_u32() * ceil) >> 32);
}
#define prandom_u32_max		get_random_u32_below

/* ---- CPU hotplug, debugfs, seq_file: present, inert ------------------------------ */
enum cpuhp_state { CPUHP_INVALID = -1, CPUHP_BP_PREPARE_DYN = 1, CPUHP_AP_ONLINE_DYN = 2 };
static inline int cpuhp_setup_state_multi(enum cpuhp_state s, const char *name,
					  int (*up)(unsigned int, struct hlist_node *),
					  int (*down)(unsigned int, struct hlist_node *))
{
	return 100;
}
static inline int cpuhp_state_add_instance_nocalls(enum cpuhp_state s,
						   struct hlist_node *n)
{
	return 0;
}
static inline int cpuhp_state_remove_instance_nocalls(enum cpuhp_state s,
						      struct hlist_node *n)
{
	return 0;
}

struct dentry;
struct inode { void *i_private; };
struct seq_file { void *private; FILE *out; };
struct file { void *private_data; };
struct file_operations {
	void *owner;
	int (*open)(struct inode *, struct file *);
	ssize_t (*read)(struct file *, char __user *, size_t, loff_t *);
	ssize_t (*write)(struct file *, const char __user *, size_t, loff_t *);
	loff_t (*llseek)(struct file *, loff_t, int);
	int (*release)(struct inode *, struct file *);
};
#define seq_read	NULL
#define seq_lseek	NULL
static inline int single_open(struct file *f, int (*show)(struct seq_file *, void *),
			      void *data)
{
	return 0;
}
#define single_release		NULL
static inline struct dentry *debugfs_create_file(const char *name, unsigned int mode,
						 struct dentry *parent, void *data,
						 const struct file_operations *fops)
{
	return NULL;
}
#define seq_printf(m, fmt...)	((m)->out ? (void)fprintf((m)->out, fmt) : (void)0)
#define seq_puts(m, s)		seq_printf(m, "%s", s)
#define seq_putc(m, c)		seq_printf(m, "%c", c)

/*
 * memcpy and memset as loops of volatile accesses (a word at a time when
 * aligned), so that the model sees them and the compiler does not turn them
 * back into library calls.
 */
#ifdef KSHIM_MODEL
static inline void *kshim_memcpy(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;

	if (!(((uintptr_t)d | (uintptr_t)s | n) % sizeof(long))) {
		for (; n; n -= sizeof(long), d += sizeof(long), s += sizeof(long))
			*(volatile long *)d = *(const volatile long *)s;
		return dst;
	}
	while (n--)
		*(volatile char *)d++ = *(const volatile char *)s++;
	return dst;
}
static inline void *kshim_memset(void *dst, int c, size_t n)
{
	char *d = dst;

	if (!c && !(((uintptr_t)d | n) % sizeof(long))) {
		for (; n; n -= sizeof(long), d += sizeof(long))
			*(volatile long *)d = 0;
		return dst;
	}
	while (n--)
		*(volatile char *)d++ = (char)c;
	return dst;
}
#define memcpy			kshim_memcpy
#define memset			kshim_memset
#endif

#endif /* _KSHIM_H */
