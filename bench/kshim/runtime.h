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

/* ---- rt-native.c only ---- */
/* Make the calling thread CPU @cpu (and pin it to host core @core if >= 0). */
int kshim_native_bind(unsigned int cpu, int core);

/* ---- rt-model.c only ---- */
#define KSHIM_MODEL_MAX_CPUS	256

/* Counted per CPU; read summed over CPUs by kshim_model_counts(). */
struct kshim_counts {
	uint64_t accesses;	/* loads and stores to allocator memory */
	uint64_t transfers;	/* cache-line transfers between CPUs */
	uint64_t transfers_read;/* ... of them, reads of a line another CPU modified */
	uint64_t locked_rmw;	/* atomic read-modify-writes (locked instructions) */
	uint64_t fences;	/* full barriers (smp_mb) */
	uint64_t contended_locks; /* spin_lock() calls that found the lock held */
	uint64_t irq_toggles;	/* local_irq_save() calls */
	uint64_t remote_touches;/* ops x other CPUs' per-CPU memory they touched */
	uint64_t switches;	/* scheduler switches */
};

/*
 * Run @fn(cpu, arg) on simulated CPUs 0 .. nr_running - 1 until all return.
 * Interleaved at loads and stores of allocator memory, quanta drawn from
 * @seed with mean @quantum.  Returns 0, or -1 when every unfinished CPU
 * sleeps (a lost wakeup, or a workload that waits for nothing).
 */
int kshim_model_run(unsigned int nr_running, uint64_t seed, unsigned int quantum,
		    void (*fn)(unsigned int cpu, void *arg), void *arg);
/* Give the rest of this quantum to another CPU. */
void kshim_model_yield(void);
/* Sleep until kshim_model_wake(cpu); for harness waits outside the allocator. */
void kshim_model_sleep(void);
void kshim_model_wake(unsigned int cpu);
/*
 * A spurious wake-up of CPU @cpu's task, as a late wake_q wake-up or any
 * wake_up_process() gives one: a task in schedule() runs again, one about to
 * call it returns from it at once.  Not a harness wait (kshim_model_sleep()).
 */
void kshim_model_wake_task(unsigned int cpu);
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
