// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of the kshim runtime that rt-native.c and rt-model.c share: CPU
 * numbers, memory accounting with SLUB's size classes, warnings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "kshim.h"

__thread unsigned int kshim_cpu_id;
__thread int kshim_preempt_count;
unsigned int nr_cpu_ids = 1;
unsigned long kshim_pcpu_unit;
char *kshim_qnode_base;
unsigned char kshim_qnode_depth[NR_CPUS];

static unsigned long nr_warnings;

void kshim_warn(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	nr_warnings++;
	fprintf(stderr, "WARNING: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (fmt[strlen(fmt) - 1] != '\n')
		fputc('\n', stderr);
}

static unsigned long nr_rt_lock_warnings;

void kshim_warn_rt_lock(const char *file, int line)
{
	static bool told;

	nr_rt_lock_warnings++;
	if (!told)
		fprintf(stderr, "WARNING: %s:%d: spinlock_t taken with preemption disabled: sleeps on PREEMPT_RT (told once)\n",
			file, line);
	told = true;
}

unsigned long kshim_rt_lock_warnings(void)
{
	return nr_rt_lock_warnings;
}

unsigned long kshim_warnings(void)
{
	return nr_warnings;
}

/* SLUB's kmalloc caches (x86-64, 6.12): 8 .. 8192, with 96 and 192. */
size_t kshim_slab_size(size_t size)
{
	static const size_t classes[] = {
		8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
	};
	size_t pages = 1;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(classes); i++)
		if (size <= classes[i])
			return classes[i];
	while (pages * PAGE_SIZE < size)
		pages *= 2;
	return pages * PAGE_SIZE;
}

/* Open-addressing table of live allocations: address -> bytes, kind. */
struct mem_entry {
	const void *p;
	size_t bytes;
	int kind;
};
static struct mem_entry *mem_table;
static size_t mem_slots, mem_used;
static struct kshim_mem mem_live;

static size_t mem_slot(const void *p, size_t slots)
{
	return ((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ULL % slots;
}

static void mem_grow(void)
{
	struct mem_entry *old = mem_table;
	size_t old_slots = mem_slots, i, j;

	mem_slots = mem_slots ? 2 * mem_slots : 1024;
	mem_table = calloc(mem_slots, sizeof(*mem_table));
	if (!mem_table)
		abort();
	for (i = 0; i < old_slots; i++) {
		if (!old[i].p)
			continue;
		for (j = mem_slot(old[i].p, mem_slots); mem_table[j].p;
		     j = (j + 1) % mem_slots)
			;
		mem_table[j] = old[i];
	}
	free(old);
}

static uint64_t *mem_counter(int kind)
{
	return kind == KSHIM_PERCPU ? &mem_live.percpu : &mem_live.kmalloc;
}

void kshim_mem_note(const void *p, size_t bytes, int kind)
{
	size_t i;

	if (2 * (mem_used + 1) > mem_slots)
		mem_grow();
	for (i = mem_slot(p, mem_slots); mem_table[i].p; i = (i + 1) % mem_slots)
		;
	mem_table[i] = (struct mem_entry){ p, bytes, kind };
	mem_used++;
	*mem_counter(kind) += kind == KSHIM_PERCPU ? bytes * nr_cpu_ids : bytes;
}

size_t kshim_mem_forget(const void *p)
{
	size_t i, j, bytes;

	if (!p || !mem_slots)
		return 0;
	for (i = mem_slot(p, mem_slots); mem_table[i].p != p; i = (i + 1) % mem_slots)
		if (!mem_table[i].p)
			return 0;
	bytes = mem_table[i].bytes;
	*mem_counter(mem_table[i].kind) -= mem_table[i].kind == KSHIM_PERCPU ?
					   bytes * nr_cpu_ids : bytes;
	mem_table[i].p = NULL;
	mem_used--;
	/* Re-insert the rest of the cluster so that lookups still find it. */
	for (j = (i + 1) % mem_slots; mem_table[j].p; j = (j + 1) % mem_slots) {
		struct mem_entry e = mem_table[j];

		mem_table[j].p = NULL;
		mem_used--;
		kshim_mem_note(e.p, e.bytes, e.kind);
		*mem_counter(e.kind) -= e.kind == KSHIM_PERCPU ?
					e.bytes * nr_cpu_ids : e.bytes;
	}
	return bytes;
}

const void *kshim_mem_find(const void *addr, size_t *bytes)
{
	size_t i;

	for (i = 0; i < mem_slots; i++) {
		const char *p = mem_table[i].p;
		size_t n = mem_table[i].bytes;

		if (p && (const char *)addr >= p &&
		    (const char *)addr < p + ALIGN(n, SMP_CACHE_BYTES)) {
			*bytes = n;
			return p;
		}
	}
	*bytes = 0;
	return NULL;
}

void kshim_mem_clear(void)
{
	free(mem_table);
	mem_table = NULL;
	mem_slots = mem_used = 0;
	memset(&mem_live, 0, sizeof(mem_live));
}

void kshim_mem_read(struct kshim_mem *mem)
{
	*mem = mem_live;
}

uint64_t kshim_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
