// SPDX-License-Identifier: GPL-2.0
/*
 * Known-answer cases of the N-CPU model (bench/kshim/rt-model.c), so that the
 * instrument cannot silently break: each case makes CPUs touch memory in a
 * fixed order (turns passed in harness memory, which is not counted) and
 * compares the model's counts with what MESI says they must be.  Prints one
 * TAP line per case with its counts; exits 1 if any count is wrong.
 *
 * Every expected figure is derived in the comment above its case.  R is
 * ROUNDS.  Weights are in tenths (runtime.h): a line from the last level (or
 * a clean copy on the socket) 10, modified in another core of the socket
 * 20, clean on the other socket only 45, modified there 55, in no cache 40.
 * With two sockets, CPUs below (n + 1) / 2 of n are on the first.
 */
#include <stdio.h>

#include "../kshim/runtime.h"
#include "model-check.h"

#define ROUNDS	1000
#define R	((long)ROUNDS)
#define NOT_CHECKED	(-1L)

static long *mem;		/* allocator memory: counted */
static volatile unsigned int turn;	/* harness memory: not counted */
static unsigned int nr_cpus;
static long *volatile stack_word;	/* a word on CPU 1's stack */

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

/*
 * Each CPU in turn increments one counter (a locked RMW): the first is a
 * cold miss from memory, every other finds the line modified by the CPU
 * before it: c2c.  R rounds of n CPUs: nR misses, nR - 1 of them c2c.
 */
static void inc_shared(unsigned int cpu, void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(cpu);
		check_inc(&mem[0]);
		pass_turn(cpu);
	}
}

/* Counters on lines of their own: one cold miss per CPU, then hits. */
static void inc_private(unsigned int cpu, void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(cpu);
		check_inc(&mem[cpu * 8]);	/* 64 bytes apart */
		pass_turn(cpu);
	}
}

/* Counters on one line: as inc_shared. */
static void inc_false_sharing(unsigned int cpu, void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(cpu);
		check_inc(&mem[cpu]);		/* same line */
		pass_turn(cpu);
	}
}

/*
 * As inc_shared on a line marked blk-mq's (kshim_mark_blk_mq()), and each
 * CPU increments a counter of its own: the shared counter's misses count
 * also as blk-mq's, the two cold misses of the private ones do not.
 */
static void inc_blk_and_private(unsigned int cpu, void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(cpu);
		check_inc(&mem[0]);
		check_inc(&mem[8 * (cpu + 1)]);
		pass_turn(cpu);
	}
}

/*
 * CPU 0 writes once (cold, memory); every CPU then reads the line R times:
 * CPU 1 finds it modified (c2c), CPUs 2-7 fetch a clean copy for the first
 * time (cold), then every read hits.  8 misses.  Two sockets (0-3, 4-7):
 * CPU 4 finds copies only on the other socket (45); 2, 3, 5, 6, 7 one on
 * theirs (10).
 */
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
 * Each round CPU 0 writes a line and CPUs 1-7 read it.  From round 2 on:
 * CPU 0 shares the line with 7 others: an upgrade that invalidates them;
 * CPU 1 finds it modified (c2c); CPUs 2-7 held it and lost it: 6 rereads.
 * 8 misses per round (the former count, transfers, saw 2).  Round 1: 7
 * cold misses and the c2c.  Two sockets: CPU 0's upgrade invalidates
 * copies on the other socket (45), CPU 1's c2c is local (20), CPU 4's
 * reread finds no copy on its socket (45), the others 10: 160 a round.
 */
static void writer_readers(unsigned int cpu, void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(cpu);
		if (cpu == 0)
			check_write(&mem[0], i);
		else
			check_read(&mem[0]);
		pass_turn(cpu);
	}
}

/*
 * A producer (CPU 0) and a consumer (CPU 1): each round the producer reads
 * the consumer's acknowledgement (line C), writes the data (line A) and
 * the index (line B); the consumer reads B and A and writes C.  From round
 * 2 on, 3 c2c (the reads of C, B and A) and 3 upgrades (the writes): 6 a
 * round.  Round 1: the producer's three accesses and the consumer's write
 * of C are cold (C shared by the producer, so 10, or 45 across sockets;
 * the others from memory, 40), its reads of B and A c2c.
 */
static void producer_consumer(unsigned int cpu, void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(cpu);
		if (cpu == 0) {
			check_read(&mem[16]);
			check_write(&mem[0], i);
			check_write(&mem[8], i);
		} else {
			check_read(&mem[8]);
			check_read(&mem[0]);
			check_write(&mem[16], i);
		}
		pass_turn(cpu);
	}
}

/*
 * A spinlock handed round 4 CPUs, never contended, guarding a counter on
 * another line that each holder increments with a load and a store.  Each
 * acquisition after the first: the lock's cmpxchg finds its line modified
 * by the last holder's unlock (c2c), the counter's load too (c2c), its
 * store shares the line with that holder (upgrade): 3 misses; the unlock
 * hits.  The first: the lock and the counter cold from memory.  4R - 1
 * hand-offs; two sockets (0-1, 2-3): 1 -> 2 and 3 -> 0 cross, 2 of 4.
 */
static void lock_round(unsigned int cpu, void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(cpu);
		check_lock(mem);
		check_add_plain(&mem[8]);
		check_unlock(mem);
		pass_turn(cpu);
	}
}

/*
 * CPU 0 holds the lock while CPU 1 tries it: one contended acquisition.
 * CPU 0's lock is cold (memory).  CPU 1's cmpxchg finds the line modified
 * (c2c), it queues on its own node (cold, memory), spins on the line it
 * now holds, CPU 0's unlock finds it modified by CPU 1 (c2c), CPU 1's look
 * finds it modified (c2c) and its cmpxchg shares it (upgrade): 6 misses,
 * 4 of them transfers as the former count had them.
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

static void publish_word(long *word)
{
	stack_word = word;
}

static bool stack_rounds_started;

static void stack_between(void)
{
	if (stack_rounds_started)
		pass_turn(1);
	stack_rounds_started = true;
	take_turn(1);
}

/*
 * A word on CPU 1's stack (as a wait entry is), written by CPU 0 and read
 * by CPU 1 each round.  CPU 1's first write is cold (memory).  Round 1:
 * CPU 0's write finds it modified (c2c), CPU 1's read too (c2c); from
 * round 2 on, CPU 0's write shares it (upgrade), CPU 1's read is c2c.
 * 2R + 1 misses; before the stacks were counted memory, 0.
 */
static void word_on_stack(unsigned int cpu, void *arg)
{
	if (cpu == 1) {
		stack_rounds_started = false;
		check_stack_word(ROUNDS, publish_word, stack_between);
		pass_turn(1);
		return;
	}
	while (!stack_word)
		kshim_model_yield();
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(0);
		check_write(stack_word, i);
		pass_turn(0);
	}
}

static void sleep_between(void)
{
	take_turn(1);
	pass_turn(1);
}

/*
 * CPU 1 queues an entry on its stack on a wait queue and sleeps, R times;
 * CPU 0 wakes it each time, after CPU 1 queued: R wake-ups (misses,
 * weights and the wait-queue lock's contention as they come: the
 * scheduler's lines, the entry, the queue).
 */
static void sleep_wake(unsigned int cpu, void *arg)
{
	if (cpu == 1) {
		check_sleep_rounds(mem, ROUNDS, sleep_between);
		return;
	}
	for (int i = 0; i < ROUNDS; i++) {
		take_turn(0);
		check_wake(mem);
		pass_turn(0);
	}
}

struct expect {
	long misses, c2c, reread, cold, upgrade, transfers, contended, wakeups;
	long w1, w2;	/* weighted misses, tenths: one socket, two */
	long b1, b2;	/* ... of them on lines marked blk-mq's; 0 if not given */
};

struct check {
	const char *name;
	void (*fn)(unsigned int cpu, void *arg);
	unsigned int cpus, first_turn;
	struct expect e;
};

static const struct check checks[] = {
	{ "two CPUs increment one counter: one c2c per increment",
	  inc_shared, 2, 0,
	  { 2 * R, 2 * R - 1, 0, 1, 0, 2 * R - 1, 0, 0,
	    40 + 20 * (2 * R - 1), 40 + 55 * (2 * R - 1) } },
	{ "two CPUs increment a counter of blk-mq's and their own: only its misses are blk-mq's",
	  inc_blk_and_private, 2, 0,
	  { 2 * R + 2, 2 * R - 1, 0, 3, 0, 2 * R - 1, 0, 0,
	    40 + 20 * (2 * R - 1) + 80, 40 + 55 * (2 * R - 1) + 80,
	    40 + 20 * (2 * R - 1), 40 + 55 * (2 * R - 1) } },
	{ "two CPUs increment counters on their own lines: one cold miss each",
	  inc_private, 2, 0,
	  { 2, 0, 0, 2, 0, 0, 0, 0, 80, 80 } },
	{ "two CPUs increment counters on one line: one c2c each",
	  inc_false_sharing, 2, 0,
	  { 2 * R, 2 * R - 1, 0, 1, 0, 2 * R - 1, 0, 0,
	    40 + 20 * (2 * R - 1), 40 + 55 * (2 * R - 1) } },
	{ "eight CPUs read a line one of them wrote once: 8 misses",
	  one_write_many_reads, 8, 0,
	  { 8, 1, 0, 7, 0, 1, 0, 0, 40 + 20 + 6 * 10,
	    40 + 20 + 10 + 10 + 45 + 3 * 10 } },
	{ "one writer, seven readers: 8 misses per round",
	  writer_readers, 8, 0,
	  { 8 * R, R, 6 * (R - 1), 7, R - 1, 2 * R - 1, 0, 0,
	    40 + 6 * 10 + 20 * R + (10 + 6 * 10) * (R - 1),
	    40 + 10 + 10 + 45 + 3 * 10 + 20 * R + (45 + 2 * 10 + 45 + 3 * 10) * (R - 1) } },
	{ "eight CPUs increment one counter: one c2c per increment",
	  inc_shared, 8, 0,
	  { 8 * R, 8 * R - 1, 0, 1, 0, 8 * R - 1, 0, 0,
	    40 + 20 * (8 * R - 1), 40 + 6 * 20 + 55 + (6 * 20 + 2 * 55) * (R - 1) } },
	{ "a producer and a consumer: 3 c2c and 3 upgrades per item",
	  producer_consumer, 2, 0,
	  { 6 * R, 3 * R - 1, 0, 4, 3 * (R - 1), 6 * R - 3, 0, 0,
	    3 * 40 + 2 * 20 + 10 + (3 * 20 + 3 * 10) * (R - 1),
	    3 * 40 + 2 * 55 + 45 + (3 * 55 + 3 * 45) * (R - 1) } },
	{ "a lock handed round four CPUs: 3 misses per hand-off",
	  lock_round, 4, 0,
	  { 3 * (4 * R - 1) + 2, 2 * (4 * R - 1), 0, 2, 4 * R - 1, 3 * (4 * R - 1), 0, 0,
	    80 + (2 * 20 + 10) * (4 * R - 1),
	    80 + (2 * 20 + 10) * (2 * R) + (2 * 55 + 45) * (2 * R - 1) } },
	{ "a held lock taken by another CPU: one contended acquisition",
	  held_lock, 2, 0,
	  { 6, 3, 0, 2, 1, 4, 1, 0, 80 + 3 * 20 + 10, 80 + 3 * 55 + 45 } },
	{ "a word on CPU 1's stack written by CPU 0: 2 misses per round",
	  word_on_stack, 2, 0,
	  { 2 * R + 1, R + 1, 0, 1, R - 1, 2 * R, 0, 0,
	    40 + 20 * (R + 1) + 10 * (R - 1), 40 + 55 * (R + 1) + 45 * (R - 1) } },
	{ "a task put to sleep on a wait queue and woken: one wake-up per round",
	  sleep_wake, 2, 1,
	  { NOT_CHECKED, NOT_CHECKED, NOT_CHECKED, NOT_CHECKED, NOT_CHECKED,
	    NOT_CHECKED, NOT_CHECKED, R, NOT_CHECKED, NOT_CHECKED } },
};

static bool matches(long expected, uint64_t counted)
{
	return expected == NOT_CHECKED || (uint64_t)expected == counted;
}

int main(void)
{
	struct kshim_counts counts;
	int failed = 0;

	printf("TAP version 13\n1..%zu\n", sizeof(checks) / sizeof(checks[0]));
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		const struct check *c = &checks[i];
		const struct expect *e = &c->e;
		bool ok;

		kshim_setup(c->cpus);
		mem = check_alloc(4096);
		if (c->fn == sleep_wake)
			check_waitqueue_init(mem);
		if (c->fn == inc_blk_and_private)
			kshim_mark_blk_mq(mem, sizeof(*mem));
		nr_cpus = c->cpus;
		turn = c->first_turn;
		stack_word = NULL;
		kshim_model_reset_counts();
		ok = !kshim_model_run(c->cpus, 1, 3, c->fn, NULL);
		kshim_model_counts(&counts);
		ok = ok && matches(e->misses, counts.misses) &&
		     matches(e->c2c, counts.miss_c2c) &&
		     matches(e->reread, counts.miss_reread) &&
		     matches(e->cold, counts.miss_cold) &&
		     matches(e->upgrade, counts.miss_upgrade) &&
		     matches(e->transfers, counts.transfers) &&
		     matches(e->contended, counts.contended_locks) &&
		     matches(e->wakeups, counts.wakeups) &&
		     matches(e->w1, counts.wmiss_1n) &&
		     matches(e->w2, counts.wmiss_2n) &&
		     matches(e->b1, counts.wmiss_blk_1n) &&
		     matches(e->b2, counts.wmiss_blk_2n);
		printf("%sok %zu - %s (misses %llu: c2c %llu, reread %llu, cold %llu, upgrade %llu; weighted %.1f, two sockets %.1f, blk-mq's %.1f, %.1f; transfers %llu, contended locks %llu, wake-ups %llu)\n",
		       ok ? "" : "not ", i + 1, c->name,
		       (unsigned long long)counts.misses,
		       (unsigned long long)counts.miss_c2c,
		       (unsigned long long)counts.miss_reread,
		       (unsigned long long)counts.miss_cold,
		       (unsigned long long)counts.miss_upgrade,
		       counts.wmiss_1n / 10.0, counts.wmiss_2n / 10.0,
		       counts.wmiss_blk_1n / 10.0, counts.wmiss_blk_2n / 10.0,
		       (unsigned long long)counts.transfers,
		       (unsigned long long)counts.contended_locks,
		       (unsigned long long)counts.wakeups);
		failed += !ok;
	}
	return failed ? 1 : 0;
}
