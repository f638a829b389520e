// SPDX-License-Identifier: GPL-2.0
/*
 * Known-answer cases of the N-CPU model (bench/kshim/rt-model.c), so that the
 * instrument cannot silently break: each case makes CPUs touch memory in a
 * fixed order and compares the model's counts with what MESI says they must
 * be.  Prints one TAP line per case; exits 1 if any is wrong.
 */
#include <stdio.h>
#include <string.h>

#include "../kshim/runtime.h"
#include "model-check.h"

#define ROUNDS 1000

static long *mem;		/* allocator memory: counted */
static volatile unsigned int turn;	/* harness memory: not counted */
static unsigned int nr_cpus;

/* Spin (yielding) until it is @cpu's turn, run, pass the turn on. */
static void take_turn(unsigned int cpu)
{
	while (turn != cpu)
		kshim_model_yield();
}

static void pass_turn(unsigned int cpu)
{
	turn = (cpu + 1) % nr_cpus;
}

static void inc_shared(unsigned int cpu, void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(cpu);
		check_inc(&mem[0]);
		pass_turn(cpu);
	}
}

static void inc_private(unsigned int cpu, void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(cpu);
		check_inc(&mem[cpu * 8]);	/* 64 bytes apart */
		pass_turn(cpu);
	}
}

static void inc_false_sharing(unsigned int cpu, void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(cpu);
		check_inc(&mem[cpu]);		/* same line */
		pass_turn(cpu);
	}
}

/* CPU 0 writes once; every CPU then reads the line ROUNDS times. */
static void one_write_many_reads(unsigned int cpu, void *arg)
{
	take_turn(cpu);
	if (cpu == 0)
		check_write(&mem[0], 42);
	pass_turn(cpu);
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(cpu);
		check_read(&mem[0]);
		pass_turn(cpu);
	}
}

/*
 * CPU 0 holds the lock while CPU 1 tries it: one contended acquisition, and
 * four transfers: CPU 1's first look, CPU 0's unlock, CPU 1's look that sees
 * it free and its compare-and-exchange.
 */
static void held_lock(unsigned int cpu, void *arg)
{
	if (cpu == 0) {
		check_lock(mem);
		pass_turn(0);
		for (int i = 0; i < 100; i++)
			kshim_model_yield();
		check_unlock(mem);
	} else {
		take_turn(1);
		check_lock(mem);
		check_unlock(mem);
	}
}

struct check {
	const char *name;
	void (*fn)(unsigned int cpu, void *arg);
	unsigned int cpus;
	unsigned long transfers, contended;
};

int main(void)
{
	static const struct check checks[] = {
		{ "two CPUs increment one counter: one transfer per increment",
		  inc_shared, 2, 2 * ROUNDS - 1, 0 },
		{ "two CPUs increment counters on their own lines: no transfer",
		  inc_private, 2, 0, 0 },
		{ "two CPUs increment counters on one line: one transfer each",
		  inc_false_sharing, 2, 2 * ROUNDS - 1, 0 },
		{ "eight CPUs read a line one of them wrote: one transfer",
		  one_write_many_reads, 8, 1, 0 },
		{ "a held lock taken by another CPU: one contended acquisition",
		  held_lock, 2, 4, 1 },
	};
	struct kshim_counts counts;
	int failed = 0;

	printf("TAP version 13\n1..%zu\n", sizeof(checks) / sizeof(checks[0]));
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		const struct check *c = &checks[i];
		bool ok;

		kshim_setup(c->cpus);
		mem = check_alloc(4096);
		nr_cpus = c->cpus;
		turn = 0;
		kshim_model_reset_counts();
		ok = !kshim_model_run(c->cpus, 1, 3, c->fn, NULL);
		kshim_model_counts(&counts);
		ok = ok && counts.transfers == c->transfers &&
		     counts.contended_locks == c->contended;
		printf("%sok %zu - %s (transfers %llu, contended locks %llu)\n",
		       ok ? "" : "not ", i + 1, c->name,
		       (unsigned long long)counts.transfers,
		       (unsigned long long)counts.contended_locks);
		failed += !ok;
	}
	return failed ? 1 : 0;
}
