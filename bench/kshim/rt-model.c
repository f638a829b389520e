// SPDX-License-Identifier: GPL-2.0
/*
 * The N-CPU contention model: kernel code compiled unchanged with clang's
 * -fsanitize=thread runs on simulated CPUs in one process, and this file
 * implements the hooks the compiler inserted before every load, store and
 * atomic operation.  It does not time anything: it counts.
 *
 * - Memory: everything the kernel code allocates (kmalloc, kvmalloc, per-CPU)
 *   comes from one arena, laid out as the kernel would (SLUB size classes
 *   packed in slabs, per-CPU units one after the other), and only accesses to
 *   the arena are counted: the harness's own data and stacks are not.
 * - Cache lines: a directory holds, per 64-byte line of the arena, the CPU
 *   that has it modified or the set of CPUs that share it (MESI without the
 *   exclusive state).  A read of a line another CPU has modified, or a write
 *   to a line any other CPU holds, is one transfer.  A line nobody holds yet
 *   costs nothing (cold misses are not transfers).
 * - Scheduling: a simulated CPU runs until it has made a number of accesses
 *   (to any memory, from instrumented code) drawn from a seeded generator
 *   (mean: the quantum), then the scheduler picks a runnable CPU at random.  The same seed gives the same
 *   interleaving and the same counts.  A CPU that spins on a lock yields, so
 *   the holder runs; a lock stays held across switches.
 * - Sleeping: schedule() with a task state other than TASK_RUNNING takes the
 *   CPU off the run queue until a wake-up function finds its task.  If every
 *   CPU that has not finished sleeps, the run stops with an error: the
 *   allocator lost a wake-up (or the workload waits for nothing).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"
#include "kshim.h"

#define LINE_SHIFT	6
#define ARENA_BYTES	(1UL << 30)
#define PCPU_UNIT	(128UL << 10)
#define PCPU_BYTES	(PCPU_UNIT * KSHIM_MODEL_MAX_CPUS)
#define SLAB_CHUNK	(64UL << 10)
#define NO_CPU		(-1)
#define SET_WORDS	(KSHIM_MODEL_MAX_CPUS / 64)

/* Directory entry of one cache line of the arena. */
struct line {
	int16_t owner;		/* CPU with the line modified, or NO_CPU */
	int16_t home;		/* CPU whose kmalloc()ed object this is, or NO_CPU */
	uint32_t transfers;	/* since the counts were reset (KSHIM_PROFILE) */
	uint64_t sharers[SET_WORDS];
};

enum cpu_state { CPU_RUNNABLE, CPU_SLEEPING, CPU_PARKED, CPU_DONE };

struct mcpu {
	void *sp;
	void *stack;
	enum cpu_state state;
	int quantum;
	int runq_pos;
	bool wake_token;
	struct task_struct task;
	struct kshim_counts counts;
	uint64_t rng;
	uint64_t op_remote[SET_WORDS];
	unsigned int id;
};

static char *arena;
static struct line *dir;
static unsigned long pcpu_used;
static char *slab_next;
static struct {
	char *chunk;
	size_t used;
} slabs[16];

static struct mcpu cpus[KSHIM_MODEL_MAX_CPUS];
static struct mcpu *cur;		/* CPU running now, NULL outside runs */
static struct mcpu *runq[KSHIM_MODEL_MAX_CPUS];
static unsigned int nr_runq;
static void *sched_sp;
static uint64_t sched_rng;
static unsigned int mean_quantum = 4;
static void (*run_fn)(unsigned int cpu, void *arg);
static void *run_arg;
static uint64_t vclock;

void kshim_ctx_switch(void **save_sp, void *load_sp);
__asm__(".text\n"
	".globl kshim_ctx_switch\n"
	".type kshim_ctx_switch,@function\n"
	"kshim_ctx_switch:\n"
	"	pushq %rbp\n	pushq %rbx\n	pushq %r12\n"
	"	pushq %r13\n	pushq %r14\n	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n	popq %r14\n	popq %r13\n"
	"	popq %r12\n	popq %rbx\n	popq %rbp\n"
	"	ret\n"
	".size kshim_ctx_switch, .-kshim_ctx_switch\n"
	/* First entry of a CPU: r12 = function, r13 = its argument. */
	".globl kshim_ctx_start\n"
	"kshim_ctx_start:\n"
	"	movq %r13, %rdi\n"
	"	callq *%r12\n"
	"	ud2\n");
void kshim_ctx_start(void);

/* ---- memory ------------------------------------------------------------- */
static void *map_zeroed(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		perror("kshim model: mmap");
		exit(1);
	}
	return p;
}

/* Zero the arena bytes [@from, @to) and the directory of their lines. */
static void arena_zero(size_t from, size_t to)
{
	if (to <= from)
		return;
	memset(arena + from, 0, to - from);
	memset(&dir[from >> LINE_SHIFT], 0,
	       ((to - from + (1 << LINE_SHIFT) - 1) >> LINE_SHIFT) * sizeof(*dir));
}

void kshim_model_reset_memory(void)
{
	size_t lines = ARENA_BYTES >> LINE_SHIFT;
	unsigned int cpu;

	if (!arena) {
		arena = map_zeroed(ARENA_BYTES);
		dir = map_zeroed(lines * sizeof(*dir));
	} else {
		/* What the last run used: each per-CPU unit's start, the slabs. */
		for (cpu = 0; cpu < KSHIM_MODEL_MAX_CPUS; cpu++)
			arena_zero(cpu * PCPU_UNIT, cpu * PCPU_UNIT + pcpu_used);
		arena_zero(PCPU_BYTES, slab_next - arena);
	}
	/* Each CPU's unit starts with its spinlock queue nodes (kshim.h). */
	kshim_qnode_base = arena;
	pcpu_used = KSHIM_QNODES * SMP_CACHE_BYTES;
	slab_next = arena + PCPU_BYTES;
	memset(slabs, 0, sizeof(slabs));
	kshim_mem_clear();
	kshim_pcpu_unit = PCPU_UNIT;
}

/* Owner and home are stored plus one, so that a zeroed entry means none. */
static inline int line_owner(const struct line *l) { return l->owner - 1; }
static inline int line_home(const struct line *l) { return l->home - 1; }

static char *arena_take(size_t bytes, size_t align)
{
	char *p = (char *)ALIGN((uintptr_t)slab_next, align);

	slab_next = p + bytes;
	if (slab_next > arena + ARENA_BYTES) {
		fprintf(stderr, "kshim model: arena of %lu bytes exhausted\n", ARENA_BYTES);
		exit(1);
	}
	return p;
}

static void set_home(char *p, size_t bytes, int cpu)
{
	size_t first = (p - arena) >> LINE_SHIFT;
	size_t last = (p + bytes - 1 - arena) >> LINE_SHIFT;

	for (; first <= last; first++)
		dir[first].home = cpu + 1;
}

void *kshim_alloc(size_t size, size_t align, gfp_t gfp, int kind)
{
	size_t bytes, c;
	char *p;

	if (!size)
		size = 1;
	if (kind == KSHIM_PERCPU) {
		align = max(align, (size_t)4);
		pcpu_used = ALIGN(pcpu_used, align);
		p = arena + pcpu_used;
		pcpu_used += ALIGN(size, 4);
		if (pcpu_used > PCPU_UNIT) {
			fprintf(stderr, "kshim model: per-CPU unit exhausted\n");
			exit(1);
		}
		kshim_mem_note(p, ALIGN(size, 4), kind);
		return p;
	}
	/* kvmalloc() of what fits a slab or a page order is a kmalloc(). */
	bytes = kshim_slab_size(size);
	if (bytes > 8192) {
		p = arena_take(bytes, PAGE_SIZE);
	} else {
		c = __builtin_ctzl(roundup_pow_of_two(bytes));	/* slab per class */
		if (!slabs[c].chunk || slabs[c].used + bytes > SLAB_CHUNK) {
			slabs[c].chunk = arena_take(SLAB_CHUNK, PAGE_SIZE);
			slabs[c].used = 0;
		}
		p = slabs[c].chunk + slabs[c].used;
		slabs[c].used += bytes;
	}
	set_home(p, bytes, cur ? (int)cur->id : NO_CPU);
	kshim_mem_note(p, bytes, kind);
	return p;
}

void kshim_free(const void *p, int kind)
{
	kshim_mem_forget(p);
}

/* ---- cache lines -------------------------------------------------------------- */
static inline bool set_test(const uint64_t *set, unsigned int cpu)
{
	return set[cpu / 64] >> (cpu % 64) & 1;
}

static inline bool set_others(const uint64_t *set, unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < SET_WORDS; i++)
		if (set[i] & ~(i == cpu / 64 ? 1ULL << (cpu % 64) : 0))
			return true;
	return false;
}

static inline int home_of(const char *a, const struct line *l)
{
	if (a < arena + PCPU_BYTES)
		return (a - arena) / PCPU_UNIT;
	return line_home(l);
}

enum { ACC_READ, ACC_WRITE, ACC_RMW };

/* KSHIM_PROFILE: transfers by the code address of the access. */
#define PC_SLOTS	4096
static struct {
	const void *pc;
	uint32_t transfers;
} pc_transfers[PC_SLOTS];

static void pc_count(const void *pc)
{
	size_t i = ((uintptr_t)pc * 0x9e3779b97f4a7c15ULL) >> 52, probes;

	for (probes = 0; probes < PC_SLOTS; probes++, i = (i + 1) % PC_SLOTS) {
		if (pc_transfers[i].pc && pc_transfers[i].pc != pc)
			continue;
		pc_transfers[i].pc = pc;
		pc_transfers[i].transfers++;
		return;
	}
}

static void line_access(unsigned int cpu, const char *a, int kind,
			const void *pc)
{
	struct line *l = &dir[(a - arena) >> LINE_SHIFT];
	struct kshim_counts *c = &cpus[cpu].counts;
	int owner = line_owner(l), home = home_of(a, l);

	if (home != NO_CPU && home != (int)cpu &&
	    !set_test(cpus[cpu].op_remote, home)) {
		cpus[cpu].op_remote[home / 64] |= 1ULL << (home % 64);
		c->remote_touches++;
	}
	if (kind == ACC_READ) {
		if (owner == (int)cpu)
			return;
		if (owner != NO_CPU) {
			c->transfers++;
			c->transfers_read++;
			l->transfers++;
			pc_count(pc);
			l->sharers[owner / 64] |= 1ULL << (owner % 64);
			l->owner = 0;
		}
		l->sharers[cpu / 64] |= 1ULL << (cpu % 64);
		return;
	}
	if (owner == (int)cpu)
		return;
	if (owner != NO_CPU || set_others(l->sharers, cpu)) {
		c->transfers++;
		l->transfers++;
		pc_count(pc);
	}
	memset(l->sharers, 0, sizeof(l->sharers));
	l->owner = cpu + 1;
}

static void switch_out(void)
{
	struct mcpu *m = cur;

	m->counts.switches++;
	kshim_ctx_switch(&m->sp, sched_sp);
}

/*
 * Called before every load, store or atomic of instrumented code: switch CPUs
 * when the quantum is used up, then account the access.
 */
static __attribute__((always_inline)) inline void
access(const volatile void *addr, unsigned int size, int kind)
{
	/* The hook's caller: the access in instrumented code. */
	const void *pc = __builtin_return_address(0);
	const char *a = (const char *)addr;
	unsigned int cpu;

	/*
	 * Every access of instrumented code is a point where another CPU may
	 * run, its own stack included (a wait entry on it, say); only those
	 * to allocator memory are counted.
	 */
	if (cur && --cur->quantum <= 0)
		switch_out();
	if ((uintptr_t)(a - arena) >= ARENA_BYTES)
		return;
	cpu = kshim_cpu_id;
	vclock++;
	cpus[cpu].counts.accesses++;
	if (kind == ACC_RMW)
		cpus[cpu].counts.locked_rmw++;
	line_access(cpu, a, kind, pc);
	if (((uintptr_t)a ^ ((uintptr_t)a + size - 1)) >> LINE_SHIFT)
		line_access(cpu, a + size - 1, kind, pc);
}

/* ---- ThreadSanitizer's hooks ------------------------------------------------------ */
void __tsan_init(void) { }
void __tsan_func_entry(void *pc) { }
void __tsan_func_exit(void) { }
void __tsan_ignore_thread_begin(void) { }
void __tsan_ignore_thread_end(void) { }
void __tsan_vptr_update(void **p, void *v) { }
void __tsan_vptr_read(void **p) { }

#define PLAIN_HOOKS(n)							\
void __tsan_read##n(void *a) { access(a, n, ACC_READ); }		\
void __tsan_write##n(void *a) { access(a, n, ACC_WRITE); }		\
void __tsan_unaligned_read##n(void *a) { access(a, n, ACC_READ); }	\
void __tsan_unaligned_write##n(void *a) { access(a, n, ACC_WRITE); }	\
void __tsan_volatile_read##n(void *a) { access(a, n, ACC_READ); }	\
void __tsan_volatile_write##n(void *a) { access(a, n, ACC_WRITE); }	\
void __tsan_read##n##_pc(void *a, void *pc) { access(a, n, ACC_READ); }	\
void __tsan_write##n##_pc(void *a, void *pc) { access(a, n, ACC_WRITE); }
PLAIN_HOOKS(1)
PLAIN_HOOKS(2)
PLAIN_HOOKS(4)
PLAIN_HOOKS(8)
PLAIN_HOOKS(16)

void __tsan_read_range(void *a, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i += 8)
		access((char *)a + i, min(8UL, n - i), ACC_READ);
}

void __tsan_write_range(void *a, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i += 8)
		access((char *)a + i, min(8UL, n - i), ACC_WRITE);
}

void *__tsan_memcpy(void *d, const void *s, unsigned long n)
{
	__tsan_read_range((void *)s, n);
	__tsan_write_range(d, n);
	return memcpy(d, s, n);
}

void *__tsan_memmove(void *d, const void *s, unsigned long n)
{
	__tsan_read_range((void *)s, n);
	__tsan_write_range(d, n);
	return memmove(d, s, n);
}

void *__tsan_memset(void *d, int c, unsigned long n)
{
	__tsan_write_range(d, n);
	return memset(d, c, n);
}

void __tsan_atomic_thread_fence(int mo)
{
	if (mo == __ATOMIC_SEQ_CST && cur)
		cpus[kshim_cpu_id].counts.fences++;
}

void __tsan_atomic_signal_fence(int mo) { }

/*
 * Atomics run here instead of in the caller; one simulated CPU runs at a
 * time, so a plain read-modify-write after the switch point is atomic.
 * Each hook does its own access(), so that the profile names its caller.
 */
#define ATOMIC_CAS(a, c, v, n) ({					\
	access(a, n / 8, ACC_RMW);					\
	*(a) == *(c) ? (*(a) = (v), 1) : (*(c) = *(a), 0);		\
})

#define ATOMIC_HOOKS(n, T)						\
T __tsan_atomic##n##_load(const volatile T *a, int mo)			\
{ access(a, n / 8, ACC_READ); return *a; }				\
void __tsan_atomic##n##_store(volatile T *a, T v, int mo)		\
{ access(a, n / 8, ACC_WRITE); *a = v; }				\
T __tsan_atomic##n##_exchange(volatile T *a, T v, int mo)		\
{ T o; access(a, n / 8, ACC_RMW); o = *a; *a = v; return o; }		\
T __tsan_atomic##n##_fetch_add(volatile T *a, T v, int mo)		\
{ T o; access(a, n / 8, ACC_RMW); o = *a; *a = o + v; return o; }	\
T __tsan_atomic##n##_fetch_sub(volatile T *a, T v, int mo)		\
{ T o; access(a, n / 8, ACC_RMW); o = *a; *a = o - v; return o; }	\
T __tsan_atomic##n##_fetch_and(volatile T *a, T v, int mo)		\
{ T o; access(a, n / 8, ACC_RMW); o = *a; *a = o & v; return o; }	\
T __tsan_atomic##n##_fetch_or(volatile T *a, T v, int mo)		\
{ T o; access(a, n / 8, ACC_RMW); o = *a; *a = o | v; return o; }	\
T __tsan_atomic##n##_fetch_xor(volatile T *a, T v, int mo)		\
{ T o; access(a, n / 8, ACC_RMW); o = *a; *a = o ^ v; return o; }	\
T __tsan_atomic##n##_fetch_nand(volatile T *a, T v, int mo)		\
{ T o; access(a, n / 8, ACC_RMW); o = *a; *a = ~(o & v); return o; }	\
int __tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, \
					       int mo, int fmo)		\
{ return ATOMIC_CAS(a, c, v, n); }					\
int __tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v,	\
					     int mo, int fmo)		\
{ return ATOMIC_CAS(a, c, v, n); }					\
T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v,	\
					  int mo, int fmo)		\
{ ATOMIC_CAS(a, &c, v, n); return c; }
ATOMIC_HOOKS(8, uint8_t)
ATOMIC_HOOKS(16, uint16_t)
ATOMIC_HOOKS(32, uint32_t)
ATOMIC_HOOKS(64, uint64_t)

/* ---- CPUs, tasks, the scheduler ------------------------------------------------- */
void kshim_setup(unsigned int nr_cpus)
{
	unsigned int i;

	if (nr_cpus < 1 || nr_cpus > KSHIM_MODEL_MAX_CPUS) {
		fprintf(stderr, "kshim model: %u CPUs, not 1 to %u\n", nr_cpus,
			KSHIM_MODEL_MAX_CPUS);
		exit(2);
	}
	nr_cpu_ids = nr_cpus;
	for (i = 0; i < KSHIM_MODEL_MAX_CPUS; i++) {
		cpus[i].id = i;
		cpus[i].task.cpu = i;
		cpus[i].task.__state = TASK_RUNNING;
	}
	kshim_cpu_id = 0;
	kshim_model_reset_memory();
	kshim_model_reset_counts();
}

struct task_struct *kshim_current(void)
{
	return &cpus[kshim_cpu_id].task;
}

static void runq_add(struct mcpu *m)
{
	m->state = CPU_RUNNABLE;
	m->runq_pos = nr_runq;
	runq[nr_runq++] = m;
}

static void runq_del(struct mcpu *m, enum cpu_state state)
{
	struct mcpu *last = runq[--nr_runq];

	runq[m->runq_pos] = last;
	last->runq_pos = m->runq_pos;
	m->state = state;
}

void kshim_model_yield(void)
{
	if (cur)
		switch_out();
}

void kshim_cpu_relax(void)
{
	kshim_model_yield();
}

void kshim_schedule(void)
{
	struct mcpu *m = cur;

	if (!m) {
		fprintf(stderr, "kshim model: schedule() outside a run\n");
		exit(1);
	}
	if (READ_ONCE(m->task.__state) == TASK_RUNNING)
		return;
	runq_del(m, CPU_SLEEPING);
	switch_out();
}

int kshim_wake_task(struct task_struct *task, unsigned int state)
{
	struct mcpu *m = &cpus[task->cpu];

	if (!(READ_ONCE(task->__state) & state))
		return 0;
	WRITE_ONCE(task->__state, TASK_RUNNING);
	if (m->state == CPU_SLEEPING)
		runq_add(m);
	return 1;
}

void kshim_model_sleep(void)
{
	struct mcpu *m = cur;

	if (m->wake_token) {
		m->wake_token = false;
		return;
	}
	runq_del(m, CPU_PARKED);
	switch_out();
}

void kshim_model_wake(unsigned int cpu)
{
	struct mcpu *m = &cpus[cpu];

	if (m->state == CPU_PARKED)
		runq_add(m);
	else
		m->wake_token = true;
}

void kshim_model_wake_task(unsigned int cpu)
{
	kshim_wake_task(&cpus[cpu].task, TASK_NORMAL);
}

void kshim_note_contended_lock(void)
{
	if (cur)
		cpus[kshim_cpu_id].counts.contended_locks++;
}

void kshim_note_irq_toggle(void)
{
	if (cur)
		cpus[kshim_cpu_id].counts.irq_toggles++;
}

u64 kshim_clock_ns(void)
{
	return vclock;
}

u32 kshim_random_u32(void)
{
	return kshim_rng_next(&cpus[kshim_cpu_id].rng) >> 32;
}

void kshim_model_op_begin(void)
{
	memset(cpus[kshim_cpu_id].op_remote, 0, sizeof(cpus[0].op_remote));
}

void kshim_model_counts(struct kshim_counts *sum)
{
	unsigned int i, j;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < KSHIM_MODEL_MAX_CPUS; i++)
		for (j = 0; j < sizeof(*sum) / sizeof(uint64_t); j++)
			((uint64_t *)sum)[j] += ((uint64_t *)&cpus[i].counts)[j];
}

void kshim_model_reset_counts(void)
{
	unsigned int i;
	size_t l;

	for (i = 0; i < KSHIM_MODEL_MAX_CPUS; i++)
		memset(&cpus[i].counts, 0, sizeof(cpus[i].counts));
	if (arena)
		for (l = 0; l < (size_t)(slab_next - arena) >> LINE_SHIFT; l++)
			dir[l].transfers = 0;
	memset(pc_transfers, 0, sizeof(pc_transfers));
}

/*
 * The code addresses with the most transfers, as offsets in their object
 * for addr2line -f -i -e.
 */
static void profile_code(unsigned long ios)
{
	unsigned int k;
	size_t i, best;
	Dl_info info;

	for (k = 0; k < 16; k++) {
		best = 0;
		for (i = 0; i < PC_SLOTS; i++)
			if (pc_transfers[i].transfers > pc_transfers[best].transfers)
				best = i;
		if (!pc_transfers[best].transfers)
			break;
		if (!dladdr(pc_transfers[best].pc, &info))
			info.dli_fbase = NULL;
		fprintf(stderr, "  code %#lx: %.3f transfers/io\n",
			(unsigned long)((const char *)pc_transfers[best].pc -
					(const char *)info.dli_fbase),
			(double)pc_transfers[best].transfers / ios);
		pc_transfers[best].transfers = 0;
	}
}

/*
 * With KSHIM_PROFILE set, print the lines with the most transfers since the
 * counts were reset, each as the allocation it is in and the offset in it.
 */
void kshim_model_profile(unsigned long ios)
{
	size_t nr = (size_t)(slab_next - arena) >> LINE_SHIFT, l, best;
	unsigned int k;

	if (!getenv("KSHIM_PROFILE") || !ios)
		return;
	for (k = 0; k < 12; k++) {
		const void *base;
		size_t bytes;

		best = 0;
		for (l = 0; l < nr; l++)
			if (dir[l].transfers > dir[best].transfers)
				best = l;
		if (!dir[best].transfers)
			break;
		base = kshim_mem_find(arena + (best << LINE_SHIFT), &bytes);
		fprintf(stderr, "  line %#zx: %.3f transfers/io, offset %ld in a %zu-byte object\n",
			best << LINE_SHIFT, (double)dir[best].transfers / ios,
			base ? (long)(arena + (best << LINE_SHIFT) - (char *)base) : -1L,
			bytes);
		dir[best].transfers = 0;
	}
	profile_code(ios);
}

static void cpu_main(struct mcpu *m)
{
	run_fn(m->id, run_arg);
	runq_del(m, CPU_DONE);
	kshim_ctx_switch(&m->sp, sched_sp);
	abort();	/* a finished CPU is never picked again */
}

static void cpu_prepare(struct mcpu *m, uint64_t seed)
{
	const size_t stack_bytes = 256 << 10;
	void **sp;

	if (!m->stack)
		m->stack = map_zeroed(stack_bytes);
	sp = (void **)((char *)m->stack + stack_bytes - 72);
	memset(sp, 0, 72);
	sp[2] = m;			/* r13 */
	sp[3] = (void *)cpu_main;	/* r12 */
	sp[6] = (void *)kshim_ctx_start;/* return address */
	m->sp = sp;
	m->wake_token = false;
	m->task.__state = TASK_RUNNING;
	m->rng = seed ^ (0x5851f42d4c957f2dULL * (m->id + 1));
	runq_add(m);
}

int kshim_model_run(unsigned int nr_running, uint64_t seed, unsigned int quantum,
		    void (*fn)(unsigned int cpu, void *arg), void *arg)
{
	unsigned int i, nr_done = 0;
	int ret = 0;

	if (nr_running > nr_cpu_ids) {
		fprintf(stderr, "kshim model: %u running CPUs of %u possible\n",
			nr_running, nr_cpu_ids);
		return -1;
	}
	run_fn = fn;
	run_arg = arg;
	mean_quantum = quantum ? quantum : 1;
	sched_rng = seed;
	nr_runq = 0;
	for (i = 0; i < nr_running; i++)
		cpu_prepare(&cpus[i], seed);

	while (nr_done < nr_running) {
		struct mcpu *m;

		if (!nr_runq) {
			fprintf(stderr, "kshim model: every unfinished CPU sleeps:");
			for (i = 0; i < nr_running; i++)
				if (cpus[i].state != CPU_DONE)
					fprintf(stderr, " cpu%u(%s)", i,
						cpus[i].state == CPU_SLEEPING ?
						"in schedule()" : "parked");
			fprintf(stderr, "\n");
			ret = -1;
			break;
		}
		m = runq[kshim_rng_next(&sched_rng) % nr_runq];
		m->quantum = 1 + kshim_rng_next(&sched_rng) % (2 * mean_quantum - 1);
		cur = m;
		kshim_cpu_id = m->id;
		kshim_ctx_switch(&sched_sp, m->sp);
		if (m->state == CPU_DONE)
			nr_done++;
	}
	cur = NULL;
	kshim_cpu_id = 0;
	return ret;
}
