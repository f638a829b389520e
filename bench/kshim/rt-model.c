// SPDX-License-Identifier: GPL-2.0
/*
 * The N-CPU contention model: kernel code compiled unchanged with clang's
 * -fsanitize=thread runs on simulated CPUs in one process, and this file
 * implements the hooks the compiler inserted before every load, store and
 * atomic operation.  It does not time anything: it counts.
 *
 * - Memory: everything the kernel code allocates (kmalloc, kvmalloc, per-CPU)
 *   comes from one arena, laid out as the kernel would (SLUB size classes
 *   packed in slabs, per-CPU units one after the other); so do the simulated
 *   CPUs' stacks (where the kernel code keeps its wait entries) and their
 *   tasks (struct task_struct, a wake line, a runqueue line each).  Only
 *   accesses to the arena are counted: the harness's own data is not, and
 *   the harness code is not instrumented.
 * - Cache lines: a directory holds, per 64-byte line of the arena, the CPU
 *   that has it modified or the set of CPUs that share it (MESI without the
 *   exclusive state: a write to a line only this CPU shares is free), and
 *   the CPUs that held it and lost it to another CPU's write.  Caches are
 *   unlimited: a CPU loses a line only to a write.  An access that hits
 *   costs nothing; one that misses is counted in one class:
 *   - c2c: the line is modified in another CPU's cache (read or write);
 *   - reread: this CPU held the line and lost it; it comes from a clean copy
 *     in another cache or the last level (every reader after the first of a
 *     line just written is one);
 *   - cold: this CPU never held the line (since the memory was reset);
 *   - upgrade: a write to a line this CPU shares with others, which must be
 *     invalidated.
 *   Each miss is also weighted by where the line comes from (KSHIM_W_* in
 *   runtime.h), for one socket and for two (CPUs below nr_cpu_ids / 2 on
 *   the first): a modified line from the other socket weighs most, a write
 *   that invalidates copies there weighs as a remote fetch.  The former
 *   count, "transfers" (a read of a line another CPU modified, a write to a
 *   line any other CPU holds), is kept beside them.
 * - Wake-ups: a wake-up (kshim_wake_task(), which every kernel wake path
 *   here ends in) is charged as try_to_wake_up() touches memory: a locked
 *   RMW of the woken task's wake line (its pi_lock; on_rq and on_cpu share
 *   the line), a read and a write of its state, and a locked RMW of its
 *   CPU's runqueue line when it was asleep.  A task that goes to sleep in
 *   schedule() reads its state, takes its runqueue's lock and writes its
 *   wake line, and when it runs again takes the lock and writes the wake
 *   line (on_cpu).  A floor: the scheduler touches more lines than these.
 * - Scheduling: a simulated CPU runs until it has made a number of accesses
 *   (to any memory, from instrumented code) drawn from a seeded generator
 *   (mean: the quantum), then the scheduler picks a runnable CPU at random.  The same seed gives the same
 *   interleaving and the same counts.  A CPU that spins on a lock yields, so
 *   the holder runs; a lock stays held across switches.  (In the exhaustive
 *   mode, kshim_model_explore() in runtime.h, each access is instead a
 *   point where the CPU to run is a choice, and runs enumerate the choices
 *   depth-first.)
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
/* The CPUs' stacks, then their tasks, then the slabs. */
#define STACK_BYTES	(64UL << 10)
#define STACKS_START	PCPU_BYTES
#define STACKS_END	(STACKS_START + STACK_BYTES * KSHIM_MODEL_MAX_CPUS)
/* Per CPU: its task_struct, the task's wake line, its runqueue's line. */
#define TASK_BYTES	(4 * SMP_CACHE_BYTES)
#define TASK_WAKE_LINE	1
#define TASK_RQ_LINE	2
#define TASKS_START	STACKS_END
#define TASKS_END	(TASKS_START + TASK_BYTES * KSHIM_MODEL_MAX_CPUS)
#define SLABS_START	TASKS_END
#define STACK_CANARY	0x5ca1ab1e0ddba11ULL
#define SLAB_CHUNK	(64UL << 10)
#define NO_CPU		(-1)
#define SET_WORDS	(KSHIM_MODEL_MAX_CPUS / 64)

/* Directory entry of one cache line of the arena. */
struct line {
	int16_t owner;		/* CPU with the line modified, or NO_CPU */
	int16_t home;		/* CPU whose kmalloc()ed object this is, or NO_CPU */
	uint32_t misses : 31;	/* since the counts were reset (KSHIM_PROFILE) */
	uint32_t blk_mq : 1;	/* kshim_mark_blk_mq() */
	uint64_t sharers[SET_WORDS];	/* CPUs holding it shared */
	uint64_t lost[SET_WORDS];	/* CPUs that held it and lost it */
};

enum cpu_state { CPU_RUNNABLE, CPU_SLEEPING, CPU_PARKED, CPU_DONE };

struct mcpu {
	void *sp;
	char *stack;		/* in the arena: STACK_BYTES */
	enum cpu_state state;
	int quantum;
	int runq_pos;
	bool wake_token;
	struct task_struct *task;	/* in the arena: TASK_BYTES */
	struct kshim_counts counts;
	uint64_t rng;
	uint64_t op_remote[SET_WORDS];
	unsigned int id;
};

static char *arena;
static struct line *dir;
static unsigned long pcpu_used;
static unsigned int stacks_used;	/* stacks run on since the last reset */
static bool profiling;			/* KSHIM_PROFILE: misses per line and code */
static uint64_t socket1[SET_WORDS];	/* CPUs of the second socket */
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
static struct kshim_explore *explore;	/* exhaustive mode, else NULL */
static struct mcpu *next_cpu;		/* explore_pick()'s choice to run next */
static const void *explore_pc;		/* the access at the point, for the trace */
static uint64_t vclock;		/* counted accesses and think time: the clock */
static uint64_t nr_accesses;	/* counted accesses since kshim_setup() */

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
		profiling = getenv("KSHIM_PROFILE");
	} else {
		/* What the last run used: each per-CPU unit's start, the slabs. */
		for (cpu = 0; cpu < KSHIM_MODEL_MAX_CPUS; cpu++)
			arena_zero(cpu * PCPU_UNIT, cpu * PCPU_UNIT + pcpu_used);
		arena_zero(SLABS_START, slab_next - arena);
		/* The stacks' lines (not their bytes), the tasks. */
		memset(&dir[STACKS_START >> LINE_SHIFT], 0,
		       (stacks_used * STACK_BYTES >> LINE_SHIFT) * sizeof(*dir));
		arena_zero(TASKS_START, TASKS_END);
	}
	stacks_used = 0;
	for (cpu = 0; cpu < KSHIM_MODEL_MAX_CPUS; cpu++) {
		cpus[cpu].id = cpu;
		cpus[cpu].stack = arena + STACKS_START + cpu * STACK_BYTES;
		cpus[cpu].task = (struct task_struct *)(arena + TASKS_START +
							cpu * TASK_BYTES);
		cpus[cpu].task->cpu = cpu;
		cpus[cpu].task->__state = TASK_RUNNING;
	}
	/* Each CPU's unit starts with its spinlock queue nodes (kshim.h). */
	kshim_qnode_base = arena;
	pcpu_used = KSHIM_QNODES * SMP_CACHE_BYTES;
	slab_next = arena + SLABS_START;
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

/* The CPU whose per-CPU data or kmalloc()ed object @a is in, or NO_CPU. */
static inline int home_of(const char *a, const struct line *l)
{
	if (a < arena + PCPU_BYTES)
		return (a - arena) / PCPU_UNIT;
	if (a < arena + SLABS_START)
		return NO_CPU;	/* a stack or a task: not remote_touches */
	return line_home(l);
}

static inline bool set_any_other(const uint64_t *set, const uint64_t *mask,
				 unsigned int cpu, bool invert)
{
	unsigned int i;

	for (i = 0; i < SET_WORDS; i++) {
		uint64_t m = invert ? ~mask[i] : mask[i];

		if (i == cpu / 64)
			m &= ~(1ULL << (cpu % 64));
		if (set[i] & m)
			return true;
	}
	return false;
}

static inline unsigned int set_count_others(const uint64_t *set, unsigned int cpu)
{
	unsigned int i, n = 0;

	for (i = 0; i < SET_WORDS; i++)
		n += __builtin_popcountll(set[i] & ~(i == cpu / 64 ? 1ULL << (cpu % 64) : 0));
	return n;
}

static inline bool on_socket1(unsigned int cpu)
{
	return set_test(socket1, cpu);
}

enum { ACC_READ, ACC_WRITE, ACC_RMW };

/* KSHIM_PROFILE: misses by the code address of the access. */
#define PC_SLOTS	4096
static struct {
	const void *pc;
	uint32_t misses;
} pc_misses[PC_SLOTS];

static void pc_count(const void *pc)
{
	size_t i = ((uintptr_t)pc * 0x9e3779b97f4a7c15ULL) >> 52, probes;

	for (probes = 0; probes < PC_SLOTS; probes++, i = (i + 1) % PC_SLOTS) {
		if (pc_misses[i].pc && pc_misses[i].pc != pc)
			continue;
		pc_misses[i].pc = pc;
		pc_misses[i].misses++;
		return;
	}
}

enum miss_class { MISS_C2C, MISS_REREAD, MISS_COLD, MISS_UPGRADE };

/* Count one miss of @cpu on @l, of @class, weighing @w1 and @w2 tenths. */
static void miss(unsigned int cpu, struct line *l, enum miss_class class,
		 unsigned int w1, unsigned int w2, const void *pc)
{
	struct kshim_counts *c = &cpus[cpu].counts;

	c->misses++;
	switch (class) {
	case MISS_C2C: c->miss_c2c++; break;
	case MISS_REREAD: c->miss_reread++; break;
	case MISS_COLD: c->miss_cold++; break;
	case MISS_UPGRADE: c->miss_upgrade++; break;
	}
	c->wmiss_1n += w1;
	c->wmiss_2n += w2;
	if (l->blk_mq) {
		c->wmiss_blk_1n += w1;
		c->wmiss_blk_2n += w2;
	}
	if (profiling) {
		l->misses++;
		pc_count(pc);
	}
}

/*
 * A miss of @cpu on @l that fetches the line, not modified anywhere: from a
 * copy on its socket (or the last level), from the other socket, or from
 * memory when no cache holds it.  A write also waits for the copies it
 * invalidates: any on the other socket make it a remote miss.
 */
static void fetch_miss(unsigned int cpu, struct line *l, bool write, const void *pc)
{
	enum miss_class class = set_test(l->lost, cpu) ? MISS_REREAD : MISS_COLD;
	bool held = set_others(l->sharers, cpu);
	bool mine = set_any_other(l->sharers, socket1, cpu, !on_socket1(cpu));
	bool far = set_any_other(l->sharers, socket1, cpu, on_socket1(cpu));
	unsigned int w2;

	if (!held)
		w2 = KSHIM_W_MEMORY;
	else if (write ? far : !mine)
		w2 = KSHIM_W_REMOTE;
	else
		w2 = KSHIM_W_LLC;
	miss(cpu, l, class, held ? KSHIM_W_LLC : KSHIM_W_MEMORY, w2, pc);
}

static void line_access(unsigned int cpu, const char *a, int kind,
			const void *pc)
{
	struct line *l = &dir[(a - arena) >> LINE_SHIFT];
	struct kshim_counts *c = &cpus[cpu].counts;
	int owner = line_owner(l), home = home_of(a, l);
	unsigned int i;

	if (home != NO_CPU && home != (int)cpu &&
	    !set_test(cpus[cpu].op_remote, home)) {
		cpus[cpu].op_remote[home / 64] |= 1ULL << (home % 64);
		c->remote_touches++;
	}
	if (owner == (int)cpu)
		return;
	if (kind == ACC_READ) {
		if (set_test(l->sharers, cpu))
			return;
		if (owner != NO_CPU) {
			c->transfers++;
			c->transfers_read++;
			miss(cpu, l, MISS_C2C, KSHIM_W_LOCAL_C2C,
			     on_socket1(owner) == on_socket1(cpu) ?
			     KSHIM_W_LOCAL_C2C : KSHIM_W_REMOTE_C2C, pc);
			l->sharers[owner / 64] |= 1ULL << (owner % 64);
			l->owner = 0;
		} else {
			fetch_miss(cpu, l, false, pc);
		}
		l->sharers[cpu / 64] |= 1ULL << (cpu % 64);
		l->lost[cpu / 64] &= ~(1ULL << (cpu % 64));
		return;
	}
	if (owner != NO_CPU) {
		c->transfers++;
		c->invalidations++;
		miss(cpu, l, MISS_C2C, KSHIM_W_LOCAL_C2C,
		     on_socket1(owner) == on_socket1(cpu) ?
		     KSHIM_W_LOCAL_C2C : KSHIM_W_REMOTE_C2C, pc);
		l->lost[owner / 64] |= 1ULL << (owner % 64);
	} else if (set_others(l->sharers, cpu)) {
		c->transfers++;
		c->invalidations += set_count_others(l->sharers, cpu);
		if (set_test(l->sharers, cpu))
			miss(cpu, l, MISS_UPGRADE, KSHIM_W_LLC,
			     set_any_other(l->sharers, socket1, cpu, on_socket1(cpu)) ?
			     KSHIM_W_REMOTE : KSHIM_W_LLC, pc);
		else
			fetch_miss(cpu, l, true, pc);
	} else if (!set_test(l->sharers, cpu)) {
		fetch_miss(cpu, l, true, pc);	/* in no cache */
	}
	for (i = 0; i < SET_WORDS; i++) {
		l->lost[i] |= l->sharers[i];
		l->sharers[i] = 0;
	}
	l->lost[cpu / 64] &= ~(1ULL << (cpu % 64));
	l->owner = cpu + 1;
}

/* Leave the CPU for the scheduler; its preemption count stays with it. */
static void switch_out(void)
{
	struct mcpu *m = cur;
	int preempt_count = kshim_preempt_count;

	m->counts.switches++;
	kshim_ctx_switch(&m->sp, sched_sp);
	kshim_preempt_count = preempt_count;
}

/*
 * Exhaustive mode: the CPU to run at a scheduling point of @kind, taken from
 * the choice sequence being replayed, or the first option past its end (and
 * recorded).  The options: at a preemption point or a harness's yield the
 * running CPU first (so that choice 0 switches nowhere), then the other
 * runnable CPUs by id; where the running CPU stops (sleeps, parks,
 * finishes) the runnable CPUs.  One option is no choice and is not
 * recorded.  A spin (cpu_relax(): a CPU waiting for a lock, or for what
 * another CPU is to write) is no choice either: it passes to the next
 * runnable CPU by id, round, so that spinning CPUs cannot pass the turn
 * between them forever while the holder waits.
 */
static struct mcpu *explore_pick(enum kshim_point kind)
{
	struct mcpu *opts[KSHIM_MODEL_MAX_CPUS];
	unsigned int n = 0, i, j, c, pos;
	struct kshim_explore *x = explore;

	if (kind == KSHIM_POINT_SPIN) {
		struct mcpu *m = cur;

		/* The next runnable CPU by id after this one, round: no choice. */
		for (i = 0; i < nr_runq; i++)
			if (runq[i] != cur &&
			    (m == cur || (runq[i]->id + nr_cpu_ids - cur->id) % nr_cpu_ids <
					 (m->id + nr_cpu_ids - cur->id) % nr_cpu_ids))
				m = runq[i];
		return m;
	}
	if (kind != KSHIM_POINT_STOP)
		opts[n++] = cur;
	for (i = 0; i < nr_runq; i++) {
		if (runq[i] == cur)
			continue;
		for (j = n; j > (kind != KSHIM_POINT_STOP) &&
			    opts[j - 1]->id > runq[i]->id; j--)
			opts[j] = opts[j - 1];
		opts[j] = runq[i];
		n++;
	}
	if (n == 1)
		return opts[0];
	pos = x->len++;
	if (pos >= KSHIM_EXPLORE_MAX) {
		x->overflow = true;
		return opts[0];
	}
	if (pos < x->prefix) {
		c = x->choice[pos];
		if (c >= n || (x->kind[pos] != KSHIM_POINT_ANY && x->kind[pos] != kind)) {
			fprintf(stderr, "kshim model: replay differs at choice %u\n", pos);
			exit(2);
		}
	} else {
		c = x->choice[pos] = 0;
	}
	x->options[pos] = n;
	x->kind[pos] = kind;
	if (x->trace)
		fprintf(stderr, "choice %u: %s of cpu%d: cpu%u of %u options%s %p\n", pos,
			kind == KSHIM_POINT_PREEMPT ? "access" :
			kind == KSHIM_POINT_YIELD ? "yield" : "stop",
			cur ? (int)cur->id : -1, opts[c]->id, n,
			kind == KSHIM_POINT_PREEMPT && c ? " (preemption)" : "",
			kind == KSHIM_POINT_PREEMPT ? explore_pc : NULL);
	return opts[c];
}

/* A preemption point before an access to the arena, in exhaustive mode. */
static void explore_point(void)
{
	struct mcpu *m = explore_pick(KSHIM_POINT_PREEMPT);

	if (m != cur) {
		next_cpu = m;
		switch_out();
	}
}

void kshim_model_explore(struct kshim_explore *x)
{
	explore = x;
	if (x)
		x->len = x->prefix = 0;
}

/*
 * The next choice sequence in depth-first order: the last choice that has an
 * option left within the preemption bound takes it, and what came after it
 * is forgotten (its first options are taken again and recorded).
 */
bool kshim_model_explore_next(struct kshim_explore *x)
{
	unsigned int used = 0, i;

	for (i = 0; i < x->len && i < KSHIM_EXPLORE_MAX; i++)
		used += x->kind[i] == KSHIM_POINT_PREEMPT && x->choice[i];
	for (i = min(x->len, (unsigned int)KSHIM_EXPLORE_MAX); i-- > 0;) {
		bool preempt = x->kind[i] == KSHIM_POINT_PREEMPT;

		used -= preempt && x->choice[i];
		if (x->choice[i] + 1u < x->options[i] && (!preempt || used < x->bound)) {
			x->choice[i]++;
			x->prefix = i + 1;
			x->len = 0;
			return true;
		}
	}
	return false;
}

/* The choice sequence of the last run, as kshim_model_explore_replay() reads it. */
void kshim_model_explore_print(const struct kshim_explore *x, FILE *f)
{
	unsigned int i, n = min(x->len, (unsigned int)KSHIM_EXPLORE_MAX);

	/* Trailing first options are what a replay takes anyway. */
	while (n && !x->choice[n - 1])
		n--;
	for (i = 0; i < n; i++)
		fputc('0' + x->choice[i], f);
	if (!n)
		fputc('-', f);
}

/* Replay the choices of @seq (digits, as printed; "-" for none) in the next run. */
int kshim_model_explore_replay(struct kshim_explore *x, const char *seq)
{
	unsigned int n = 0;

	for (; *seq && *seq != '-'; seq++) {
		if (*seq < '0' || *seq > '9' || n >= KSHIM_EXPLORE_MAX)
			return -1;
		x->choice[n++] = *seq - '0';
	}
	x->prefix = n;
	x->len = 0;
	/* Of no kind known yet: the run finds out. */
	memset(x->kind, KSHIM_POINT_ANY, n);
	return 0;
}

/*
 * Called before every load, store or atomic of instrumented code: switch CPUs
 * when the quantum is used up, then account the access.
 */
static __attribute__((always_inline)) inline void
access_at(const volatile void *addr, unsigned int size, int kind, bool marked)
{
	/* The hook's caller: the access in instrumented code. */
	const void *pc = __builtin_return_address(0);
	const char *a = (const char *)addr;
	unsigned int cpu;

	/*
	 * Every access of instrumented code is a point where another CPU may
	 * run; only those to the arena (allocator memory, the CPUs' stacks
	 * and tasks) are counted.
	 */
	if (explore) {
		if ((uintptr_t)(a - arena) >= ARENA_BYTES)
			return;
		if (cur && (marked || !explore->marked_only)) {
			explore_pc = pc;
			explore_point();
		}
	} else {
		if (cur && --cur->quantum <= 0)
			switch_out();
		if ((uintptr_t)(a - arena) >= ARENA_BYTES)
			return;
	}
	cpu = kshim_cpu_id;
	vclock++;
	nr_accesses++;
	cpus[cpu].counts.accesses++;
	if (kind == ACC_RMW)
		cpus[cpu].counts.locked_rmw++;
	line_access(cpu, a, kind, pc);
	if (((uintptr_t)a ^ ((uintptr_t)a + size - 1)) >> LINE_SHIFT)
		line_access(cpu, a + size - 1, kind, pc);
}

/* Atomics (READ_ONCE() and WRITE_ONCE() among them) and the scheduler's own. */
#define access(a, n, kind)	access_at(a, n, kind, true)
/* Plain loads and stores, volatile ones too (the kshim's are atomics). */
#define plain_access(a, n, kind) access_at(a, n, kind, false)

/* ---- ThreadSanitizer's hooks ------------------------------------------------------ */
void __tsan_init(void) { }
void __tsan_func_entry(void *pc) { }
void __tsan_func_exit(void) { }
void __tsan_ignore_thread_begin(void) { }
void __tsan_ignore_thread_end(void) { }
void __tsan_vptr_update(void **p, void *v) { }
void __tsan_vptr_read(void **p) { }

#define PLAIN_HOOKS(n)							\
void __tsan_read##n(void *a) { plain_access(a, n, ACC_READ); }		\
void __tsan_write##n(void *a) { plain_access(a, n, ACC_WRITE); }		\
void __tsan_unaligned_read##n(void *a) { plain_access(a, n, ACC_READ); }	\
void __tsan_unaligned_write##n(void *a) { plain_access(a, n, ACC_WRITE); }	\
void __tsan_volatile_read##n(void *a) { plain_access(a, n, ACC_READ); }	\
void __tsan_volatile_write##n(void *a) { plain_access(a, n, ACC_WRITE); }	\
void __tsan_read##n##_pc(void *a, void *pc) { plain_access(a, n, ACC_READ); }	\
void __tsan_write##n##_pc(void *a, void *pc) { plain_access(a, n, ACC_WRITE); }
PLAIN_HOOKS(1)
PLAIN_HOOKS(2)
PLAIN_HOOKS(4)
PLAIN_HOOKS(8)
PLAIN_HOOKS(16)

void __tsan_read_range(void *a, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i += 8)
		plain_access((char *)a + i, min(8UL, n - i), ACC_READ);
}

void __tsan_write_range(void *a, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i += 8)
		plain_access((char *)a + i, min(8UL, n - i), ACC_WRITE);
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
	kshim_model_reset_memory();
	memset(socket1, 0, sizeof(socket1));
	for (i = (nr_cpus + 1) / 2; i < KSHIM_MODEL_MAX_CPUS; i++)
		socket1[i / 64] |= 1ULL << (i % 64);
	kshim_model_seed(0);
	nr_accesses = 0;
	kshim_cpu_id = 0;
	kshim_model_reset_counts();
}

void kshim_model_seed(uint64_t seed)
{
	unsigned int i;

	for (i = 0; i < KSHIM_MODEL_MAX_CPUS; i++)
		cpus[i].rng = seed ^ (0x5851f42d4c957f2dULL * (i + 1));
}

struct task_struct *kshim_current(void)
{
	return cpus[kshim_cpu_id].task;
}

/* Line @line of CPU @m's task area (TASK_WAKE_LINE, TASK_RQ_LINE). */
static char *task_line(struct mcpu *m, unsigned int line)
{
	return (char *)m->task + line * SMP_CACHE_BYTES;
}

/* An access the scheduler makes for the kernel code, counted as one. */
static void charge(const void *addr, int kind)
{
	if (cur)
		access(addr, sizeof(long), kind);
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

/* A switch point of the harness (@kind YIELD) or a spin (SPIN). */
static void yield(enum kshim_point kind)
{
	struct mcpu *m;

	if (!cur)
		return;
	if (explore) {
		m = explore_pick(kind);
		if (m == cur)
			return;
		next_cpu = m;
	}
	switch_out();
}

void kshim_model_yield(void)
{
	yield(KSHIM_POINT_YIELD);
}

uint64_t kshim_model_accesses(void)
{
	return nr_accesses;
}

void kshim_model_think(unsigned long accesses)
{
	while (cur && accesses) {
		unsigned long step = min(accesses, (unsigned long)cur->quantum);

		accesses -= step;
		vclock += step;
		cur->quantum -= step;
		if (cur->quantum <= 0)
			switch_out();
	}
}

void kshim_cpu_relax(void)
{
	yield(KSHIM_POINT_SPIN);
}

/*
 * __schedule() of a task that set a sleeping state: it reads the state,
 * takes its runqueue's lock and dequeues itself (on_rq, the wake line);
 * when woken, the lock again and on_cpu.  A switch may come between the
 * charged accesses, so the state is looked at again before sleeping.
 */
void kshim_schedule(void)
{
	struct mcpu *m = cur;

	if (!m) {
		fprintf(stderr, "kshim model: schedule() outside a run\n");
		exit(1);
	}
	charge(m->task, ACC_READ);
	if (m->task->__state == TASK_RUNNING)
		return;
	charge(task_line(m, TASK_RQ_LINE), ACC_RMW);
	charge(task_line(m, TASK_WAKE_LINE), ACC_WRITE);
	if (m->task->__state == TASK_RUNNING)
		return;
	runq_del(m, CPU_SLEEPING);
	switch_out();
	charge(task_line(m, TASK_RQ_LINE), ACC_RMW);
	charge(task_line(m, TASK_WAKE_LINE), ACC_WRITE);
}

/*
 * try_to_wake_up(): the woken task's pi_lock (its wake line), its state read
 * and, if it matches, written; its runqueue's lock if it sleeps in
 * schedule().  The state changes with no switch between look and change.
 */
int kshim_wake_task(struct task_struct *task, unsigned int state)
{
	struct mcpu *m = &cpus[task->cpu];
	bool asleep;

	charge(task_line(m, TASK_WAKE_LINE), ACC_RMW);
	charge(task, ACC_READ);
	if (!(task->__state & state))
		return 0;
	task->__state = TASK_RUNNING;
	asleep = m->state == CPU_SLEEPING;
	if (asleep)
		runq_add(m);
	if (cur)
		cpus[kshim_cpu_id].counts.wakeups++;
	charge(task, ACC_WRITE);
	if (asleep)
		charge(task_line(m, TASK_RQ_LINE), ACC_RMW);
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
	kshim_wake_task(cpus[cpu].task, TASK_NORMAL);
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

void kshim_mark_blk_mq(const void *p, size_t size)
{
	size_t first = ((const char *)p - arena) >> LINE_SHIFT;
	size_t last = ((const char *)p + size - 1 - arena) >> LINE_SHIFT;

	if ((const char *)p < arena || last >= ARENA_BYTES >> LINE_SHIFT)
		return;
	while (first <= last)
		dir[first++].blk_mq = 1;
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
	if (!profiling)
		return;
	for (l = 0; l < (size_t)(slab_next - arena) >> LINE_SHIFT; l++)
		dir[l].misses = 0;
	memset(pc_misses, 0, sizeof(pc_misses));
}

/*
 * The code addresses with the most misses, as offsets in their object
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
			if (pc_misses[i].misses > pc_misses[best].misses)
				best = i;
		if (!pc_misses[best].misses)
			break;
		if (!dladdr(pc_misses[best].pc, &info))
			info.dli_fbase = NULL;
		fprintf(stderr, "  code %#lx: %.3f misses/io\n",
			(unsigned long)((const char *)pc_misses[best].pc -
					(const char *)info.dli_fbase),
			(double)pc_misses[best].misses / ios);
		pc_misses[best].misses = 0;
	}
}

/* What the arena's offset @off is, for the profile. */
static void describe_line(size_t off, char *buf, size_t len)
{
	const void *base;
	size_t bytes;

	if (off < PCPU_BYTES && off % PCPU_UNIT < KSHIM_QNODES * SMP_CACHE_BYTES) {
		snprintf(buf, len, "CPU %zu's spinlock queue nodes", off / PCPU_UNIT);
		return;
	}
	if (off >= STACKS_START && off < STACKS_END) {
		snprintf(buf, len, "CPU %zu's stack", (off - STACKS_START) / STACK_BYTES);
		return;
	}
	if (off >= TASKS_START && off < TASKS_END) {
		snprintf(buf, len, "CPU %zu's task, line %zu",
			 (off - TASKS_START) / TASK_BYTES,
			 (off - TASKS_START) % TASK_BYTES / SMP_CACHE_BYTES);
		return;
	}
	base = kshim_mem_find(arena + off, &bytes);
	snprintf(buf, len, "offset %ld in a %zu-byte object",
		 base ? (long)(arena + off - (char *)base) : -1L, bytes);
}

/*
 * With KSHIM_PROFILE set, print the lines with the most misses since the
 * counts were reset, each as what it is (the allocation it is in and the
 * offset in it, a stack, a task).
 */
void kshim_model_profile(unsigned long ios)
{
	size_t nr = (size_t)(slab_next - arena) >> LINE_SHIFT, l, best;
	unsigned int k;
	char what[96];

	if (!profiling || !ios)
		return;
	for (k = 0; k < 12; k++) {
		best = 0;
		for (l = 0; l < nr; l++)
			if (dir[l].misses > dir[best].misses)
				best = l;
		if (!dir[best].misses)
			break;
		describe_line(best << LINE_SHIFT, what, sizeof(what));
		fprintf(stderr, "  line %#zx: %.3f misses/io, %s\n",
			best << LINE_SHIFT, (double)dir[best].misses / ios, what);
		dir[best].misses = 0;
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
	void **sp;

	/* The lowest word of the stack: a stack that ran over it fails the run. */
	*(uint64_t *)m->stack = STACK_CANARY;
	sp = (void **)(m->stack + STACK_BYTES - 72);
	memset(sp, 0, 72);
	sp[2] = m;			/* r13 */
	sp[3] = (void *)cpu_main;	/* r12 */
	sp[6] = (void *)kshim_ctx_start;/* return address */
	m->sp = sp;
	m->wake_token = false;
	m->task->__state = TASK_RUNNING;
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
	stacks_used = max(stacks_used, nr_running);
	mean_quantum = quantum ? quantum : 1;
	sched_rng = seed;
	nr_runq = 0;
	cur = NULL;
	next_cpu = NULL;
	for (i = 0; i < nr_running; i++)
		cpu_prepare(&cpus[i], seed);

	while (nr_done < nr_running) {
		struct mcpu *m;
		uint64_t draw;

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
		if (explore) {
			/* The CPU that preempted or yielded, else a choice. */
			m = next_cpu ? next_cpu : explore_pick(KSHIM_POINT_STOP);
			next_cpu = NULL;
			m->quantum = INT_MAX;
		} else {
			/* One draw: the CPU from its high half, the quantum from its low. */
			draw = kshim_rng_next(&sched_rng);
			m = runq[(uint32_t)(draw >> 32) % nr_runq];
			m->quantum = 1 + (uint32_t)draw % (2 * mean_quantum - 1);
		}
		cur = m;
		kshim_cpu_id = m->id;
		kshim_preempt_count = 0;	/* a CPU that starts; one resumed restores its own */
		kshim_ctx_switch(&sched_sp, m->sp);
		if (m->state == CPU_DONE)
			nr_done++;
	}
	cur = NULL;
	kshim_cpu_id = 0;
	for (i = 0; i < nr_running; i++) {
		if (*(uint64_t *)cpus[i].stack != STACK_CANARY) {
			fprintf(stderr, "kshim model: CPU %u ran over its %lu-byte stack\n",
				i, STACK_BYTES);
			ret = -1;
		}
	}
	return ret;
}
