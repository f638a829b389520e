/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark harnesses call of the kshim runtimes (rt-native.c, rt-model.c).
 * The harnesses do not include kshim.h: they see the kernel objects only
 * through the wrappers in the instrumented translation units.
 */
#ifndef _KSHIM_RUNTIME_H
#define _KSHIM_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Bytes the kernel code holds, as the kernel's allocators would count them. */
struct kshim_mem {
	uint64_t kmalloc;	/* kmalloc/kvmalloc, rounded to SLUB size classes */
	uint64_t percpu;	/* per-CPU allocations x possible CPUs */
};

/* Set the number of possible CPUs (all of them online) before anything else. */
void kshim_setup(unsigned int nr_cpus);
void kshim_mem_read(struct kshim_mem *mem);
/* Warnings the kernel code printed (WARN_ON and friends) since the start. */
unsigned long kshim_warnings(void);
/*
 * spinlock_t taken with preemption disabled (a sleeping lock on PREEMPT_RT)
 * since the start, in the model.  Apart from kshim_warnings(): exhaust's
 * cases fail on them, bench-scale does not (it also measures series from
 * before the rule was checked).
 */
unsigned long kshim_rt_lock_warnings(void);
/*
 * [@p, @p + @size) is blk-mq's, touched the same whichever allocator runs
 * (a request queue's count of active requests): the model counts its
 * misses also in wmiss_blk_1n and wmiss_blk_2n.  Nothing in rt-native.c.
 */
void kshim_mark_blk_mq(const void *p, size_t size);

/* ---- rt-native.c only ---- */
/* Make the calling thread CPU @cpu (and pin it to host core @core if >= 0). */
int kshim_native_bind(unsigned int cpu, int core);

/* ---- rt-model.c only ---- */
#define KSHIM_MODEL_MAX_CPUS	256

/*
 * Counted per CPU; read summed over CPUs by kshim_model_counts().  Every
 * member is a uint64_t (kshim_model_counts() sums them as an array).
 *
 * A miss is an access that needs the line from outside the CPU's own cache
 * or must invalidate other copies first; each is counted in exactly one of
 * miss_c2c, miss_reread, miss_cold and miss_upgrade (rt-model.c explains the
 * classes), and weighted by where the line comes from (KSHIM_W_* below) for
 * one socket (wmiss_1n) and for two, the model's CPUs split in two halves
 * (wmiss_2n).
 */
struct kshim_counts {
	uint64_t accesses;	/* loads and stores to counted memory */
	uint64_t transfers;	/* the old rule: reads of a line another CPU
				 * modified, writes to a line another CPU holds */
	uint64_t transfers_read;/* ... of them, reads of a line another CPU modified */
	uint64_t misses;	/* miss_c2c + miss_reread + miss_cold + miss_upgrade */
	uint64_t miss_c2c;	/* the line is modified in another CPU's cache */
	uint64_t miss_reread;	/* held before and lost to another CPU's write */
	uint64_t miss_cold;	/* never held by this CPU */
	uint64_t miss_upgrade;	/* a write to a line held shared with others */
	uint64_t invalidations;	/* other CPUs' copies a write removed */
	uint64_t wmiss_1n;	/* weighted misses, one socket, in tenths */
	uint64_t wmiss_2n;	/* weighted misses, two sockets, in tenths */
	uint64_t wmiss_blk_1n;	/* ... of them, on lines of kshim_mark_blk_mq() */
	uint64_t wmiss_blk_2n;
	uint64_t wakeups;	/* tasks woken (the waker's count) */
	uint64_t locked_rmw;	/* atomic read-modify-writes (locked instructions) */
	uint64_t fences;	/* full barriers (smp_mb) */
	uint64_t contended_locks; /* spin_lock() calls that found the lock held */
	uint64_t irq_toggles;	/* local_irq_save() calls */
	uint64_t remote_touches;/* ops x other CPUs' per-CPU memory they touched */
	uint64_t switches;	/* scheduler switches */
};

/*
 * Weights of a miss, in tenths of a hit in the shared last-level cache, by
 * where the line comes from; ratios of the latencies commonly published for
 * two-socket x86 servers (Intel MLC-style: last level ~20 ns, a line
 * modified in another core of the socket ~40-50 ns, a clean line from the
 * other socket ~90-100 ns, one modified there ~110-120 ns, memory ~80 ns).
 * Not measured here (no PMU); a guide to rank, not a latency.
 */
#define KSHIM_W_LLC		10	/* clean copy on this socket, or its last level */
#define KSHIM_W_LOCAL_C2C	20	/* modified in another core of this socket */
#define KSHIM_W_REMOTE		45	/* clean, only on the other socket */
#define KSHIM_W_REMOTE_C2C	55	/* modified in a core of the other socket */
#define KSHIM_W_MEMORY		40	/* in no cache (first touch of the line) */

/*
 * Run @fn(cpu, arg) on simulated CPUs 0 .. nr_running - 1 until all return.
 * Interleaved at loads and stores of instrumented code, quanta drawn from
 * @seed with mean @quantum.  Returns 0, or -1 when every unfinished CPU
 * sleeps (a lost wakeup, or a workload that waits for nothing).  CPUs
 * below nr_cpu_ids / 2 are socket 0 for wmiss_2n, the others socket 1.
 */
int kshim_model_run(unsigned int nr_running, uint64_t seed, unsigned int quantum,
		    void (*fn)(unsigned int cpu, void *arg), void *arg);
/* Give the rest of this quantum to another CPU. */
void kshim_model_yield(void);
/* Counted accesses (not think time) of every CPU since kshim_setup(). */
uint64_t kshim_model_accesses(void);
/*
 * Think time: @accesses private accesses (the work between I/Os), which use
 * up quanta like any access but touch no counted line.
 */
void kshim_model_think(unsigned long accesses);
/*
 * Seed every CPU's random state (get_random_u32()) from @seed: what the
 * kernel code draws before a run (sbitmap's hints) is then the same whatever
 * ran before.  kshim_setup() seeds with 0.
 */
void kshim_model_seed(uint64_t seed);
/* Sleep until kshim_model_wake(cpu); for harness waits outside the allocator. */
void kshim_model_sleep(void);
void kshim_model_wake(unsigned int cpu);
/*
 * A spurious wake-up of CPU @cpu's task, as a late wake_q wake-up or any
 * wake_up_process() gives one: a task in schedule() runs again, one about to
 * call it returns from it at once.  Not a harness wait (kshim_model_sleep()).
 */
void kshim_model_wake_task(unsigned int cpu);
/*
 * Exhaustive mode (bounded): instead of random quanta, a scheduling point
 * before every access of instrumented code to the arena (the allocator's
 * memory, the CPUs' stacks and tasks; with @marked_only, before its atomics
 * only: READ_ONCE(), WRITE_ONCE(), the atomic ops and the locks built on
 * them), at every kshim_model_yield() and wherever a CPU stops running; at
 * each the CPU to run is a choice, replayed from @choice and recorded.
 * Choice 0 keeps the running CPU; another choice at an access is a
 * preemption, and a sequence with more than @bound of them is not explored.
 * A cpu_relax() passes to the next runnable CPU by id, with no choice.  kshim_model_explore(x)
 * before kshim_model_run() turns the mode on (NULL: off) and starts from the
 * all-first-options schedule; after each run, kshim_model_explore_next()
 * moves to the next sequence depth-first, false when none is left.
 */
#define KSHIM_EXPLORE_MAX	8192
enum kshim_point { KSHIM_POINT_PREEMPT, KSHIM_POINT_YIELD, KSHIM_POINT_STOP,
		   KSHIM_POINT_SPIN, KSHIM_POINT_ANY };
struct kshim_explore {
	unsigned int bound;	/* preemptions allowed in a schedule */
	unsigned int len;	/* choices the last run made */
	unsigned int prefix;	/* choices the next run replays */
	bool overflow;		/* a run made more than KSHIM_EXPLORE_MAX */
	bool marked_only;	/* points before atomics only, not plain accesses */
	bool trace;		/* print each choice on stderr */
	uint8_t choice[KSHIM_EXPLORE_MAX];	/* the option taken, 0 first */
	uint8_t options[KSHIM_EXPLORE_MAX];	/* how many there were */
	uint8_t kind[KSHIM_EXPLORE_MAX];	/* enum kshim_point */
};
void kshim_model_explore(struct kshim_explore *x);
bool kshim_model_explore_next(struct kshim_explore *x);
/* The last run's choices as digits ("-" for none), for a replay. */
void kshim_model_explore_print(const struct kshim_explore *x, FILE *f);
/* Replay @seq, printed so, in the next run (its choices past it: first options). */
int kshim_model_explore_replay(struct kshim_explore *x, const char *seq);
/* Brackets one allocator call, for the count of remote per-CPU memory touched. */
void kshim_model_op_begin(void);
void kshim_model_counts(struct kshim_counts *sum);
void kshim_model_reset_counts(void);
/*
 * With KSHIM_PROFILE set: the lines with most transfers per I/O, then the
 * code addresses with most (offsets for addr2line -f -i -e), on stderr.
 */
void kshim_model_profile(unsigned long ios);
/* Forget all allocator memory and its cache-line states (between runs). */
void kshim_model_reset_memory(void);

#endif /* _KSHIM_RUNTIME_H */
