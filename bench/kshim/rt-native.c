// SPDX-License-Identifier: GPL-2.0
/*
 * The native runtime: one POSIX thread per CPU, pinned to a host core, so that
 * the kernel code's atomics and cache-line transfers happen for real.
 * Sleeping and waking use a futex on the task state, as the kernel's
 * scheduler would: a wake that comes before schedule() makes it return at
 * once.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "kshim.h"

#define PCPU_UNIT	(256UL << 10)

static char *pcpu_base;
static unsigned long pcpu_used;
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct task_struct *tasks;
static __thread uint64_t rng_state;

void kshim_setup(unsigned int nr_cpus)
{
	unsigned int i;

	nr_cpu_ids = nr_cpus;
	kshim_pcpu_unit = PCPU_UNIT;
	pcpu_base = mmap(NULL, PCPU_UNIT * nr_cpus, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	tasks = calloc(nr_cpus, sizeof(*tasks));
	if (pcpu_base == MAP_FAILED || !tasks) {
		perror("kshim native: setup");
		exit(1);
	}
	for (i = 0; i < nr_cpus; i++)
		tasks[i].cpu = i;
	/* Each CPU's unit starts with its spinlock queue nodes (kshim.h). */
	kshim_qnode_base = pcpu_base;
	pcpu_used = KSHIM_QNODES * SMP_CACHE_BYTES;
	kshim_cpu_id = 0;
}

int kshim_native_bind(unsigned int cpu, int core)
{
	cpu_set_t set;

	kshim_cpu_id = cpu;
	rng_state = 0x2545f4914f6cdd1dULL * (cpu + 1);
	if (core < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(core, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

void *kshim_alloc(size_t size, size_t align, gfp_t gfp, int kind)
{
	size_t bytes;
	void *p;

	pthread_mutex_lock(&alloc_lock);
	if (kind == KSHIM_PERCPU) {
		bytes = ALIGN(size, 4);
		pcpu_used = ALIGN(pcpu_used, max(align, (size_t)4));
		p = pcpu_base + pcpu_used;
		pcpu_used += bytes;
		if (pcpu_used > PCPU_UNIT)
			abort();
		for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
			memset((char *)p + cpu * PCPU_UNIT, 0, bytes);
	} else {
		bytes = kshim_slab_size(size);
		/* SLUB aligns power-of-two classes to their size, up to a page. */
		p = aligned_alloc(min(roundup_pow_of_two(bytes) == bytes ? bytes :
				      (size_t)8, PAGE_SIZE), ALIGN(bytes, 8));
		if (p && (gfp & __GFP_ZERO))
			memset(p, 0, bytes);
	}
	if (p)
		kshim_mem_note(p, bytes, kind);
	pthread_mutex_unlock(&alloc_lock);
	return p;
}

void kshim_free(const void *p, int kind)
{
	if (!p)
		return;
	pthread_mutex_lock(&alloc_lock);
	kshim_mem_forget(p);
	pthread_mutex_unlock(&alloc_lock);
	if (kind != KSHIM_PERCPU)
		free((void *)p);
}

struct task_struct *kshim_current(void)
{
	return &tasks[kshim_cpu_id];
}

void kshim_cpu_relax(void)
{
	__builtin_ia32_pause();
}

static long futex(unsigned int *addr, int op, unsigned int val)
{
	return syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

void kshim_schedule(void)
{
	struct task_struct *t = kshim_current();
	unsigned int state;

	while ((state = __atomic_load_n(&t->__state, __ATOMIC_ACQUIRE)) != TASK_RUNNING)
		futex(&t->__state, FUTEX_WAIT_PRIVATE, state);
}

int kshim_wake_task(struct task_struct *task, unsigned int state)
{
	if (!(__atomic_load_n(&task->__state, __ATOMIC_RELAXED) & state))
		return 0;
	__atomic_store_n(&task->__state, TASK_RUNNING, __ATOMIC_RELEASE);
	futex(&task->__state, FUTEX_WAKE_PRIVATE, 1);
	return 1;
}

void kshim_mark_blk_mq(const void *p, size_t size) { }
void kshim_note_contended_lock(void) { }
void kshim_note_irq_toggle(void) { }

u64 kshim_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

u32 kshim_random_u32(void)
{
	return kshim_rng_next(&rng_state) >> 32;
}
