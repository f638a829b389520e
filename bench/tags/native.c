// SPDX-License-Identifier: GPL-2.0
/*
 * bench-tags-native: the tag allocators compiled from the patched tree
 * (alloc.c with the kshim), on real cores.
 *
 *	native time ALLOC THREADS MODE DEPTH PAIRS
 *		ns per alloc+free pair; THREADS threads, thread i pinned to
 *		core i (modulo the cores this process may use); MODE "same"
 *		(each thread frees its own tags) or "cross" (thread i frees
 *		what thread i - 1 allocated: completion on another CPU, a ring
 *		of threads; the model's "other" completion).
 *	native icount ALLOC CPUS MODE DEPTH PAIRS
 *		the same pairs on one thread, which plays CPU 0 and CPU 1 in
 *		turn; measure_pairs() alone is what callgrind counts with
 *		--toggle-collect=measure_pairs, so Ir / PAIRS is instructions
 *		per pair, the same figure on every run.
 *
 * ALLOC is sbitmap, pool or null (no allocator: the harness's own cost).
 * Same: each thread keeps INFLIGHT (4) tags allocated and frees the oldest;
 * an allocation that finds no tag frees one it holds, or retries.  Cross:
 * each thread keeps up to half the depth (at most CROSS_INFLIGHT) handed to
 * the next, so that the hand-over between cores, which costs more than the
 * allocator on this machine's virtual cores, is not paid once per pair.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../kshim/runtime.h"
#include "alloc.h"

#define INFLIGHT	4
#define CROSS_INFLIGHT	32
#define RING		64	/* power of two, >= CROSS_INFLIGHT */

/* Tags one thread passes to the other to free (MODE cross). */
struct ring {
	unsigned int slot[RING];
	unsigned long head __attribute__((aligned(64)));	/* consumer */
	unsigned long tail __attribute__((aligned(64)));	/* producer */
};

struct thread {
	pthread_t id;
	unsigned int cpu;
	struct tags *tags;
	bool cross;
	unsigned int cross_inflight;
	unsigned long pairs, retries;
	struct ring *out, *in;	/* cross: to the next thread, from the previous */
	unsigned int from_cpu;	/* cross: the previous thread's CPU */
	unsigned int held[INFLIGHT], nr_held, oldest;
	double ns;
} __attribute__((aligned(64)));

static pthread_barrier_t start_line;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Producer: publish @nr tags written at slot[tail..] in one store. */
static void ring_publish(struct ring *r, unsigned long tail)
{
	__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
}

/* Tags the producer may write before the consumer frees some. */
static unsigned long ring_room(struct ring *r, unsigned long tail,
			       unsigned int window)
{
	unsigned long used = tail - __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

	return used >= window ? 0 : window - used;
}

/* Free the oldest tag this thread holds (same-thread mode). */
static void free_oldest(struct thread *t)
{
	tags_put(t->tags, t->held[t->oldest], t->cpu);
	t->oldest = (t->oldest + 1) % INFLIGHT;
	t->nr_held--;
}

static void same_pairs(struct thread *t, unsigned long pairs)
{
	unsigned long done = 0;
	int tag;

	while (done < pairs) {
		if (t->nr_held == INFLIGHT) {
			free_oldest(t);
			done++;
			continue;
		}
		tag = tags_get(t->tags, false);
		if (tag < 0) {
			t->retries++;
			if (t->nr_held) {
				free_oldest(t);
				done++;
			}
			continue;
		}
		t->held[(t->oldest + t->nr_held++) % INFLIGHT] = tag;
	}
	while (t->nr_held)
		free_oldest(t);
}

/*
 * Cross mode: allocate a burst of tags and hand them to the other thread with
 * one store, free the burst it handed over with one load and one store: the
 * hand-over costs a few line transfers per burst, not per pair.  In flight:
 * what this thread allocated and the other has not freed yet.
 */
static void cross_pairs(struct thread *t, unsigned long pairs)
{
	unsigned long sent = 0, freed = 0, tail = t->out->tail, head, end, room;
	int got;

	while (sent < pairs || freed < pairs) {
		head = t->in->head;
		end = __atomic_load_n(&t->in->tail, __ATOMIC_ACQUIRE);
		for (; head != end; head++, freed++)
			tags_put(t->tags, t->in->slot[head % RING], t->from_cpu);
		__atomic_store_n(&t->in->head, head, __ATOMIC_RELEASE);

		room = ring_room(t->out, tail, t->cross_inflight);
		for (; room && sent < pairs; room--, sent++, tail++) {
			got = tags_get(t->tags, false);
			if (got < 0) {
				t->retries++;
				break;
			}
			t->out->slot[tail % RING] = got;
		}
		ring_publish(t->out, tail);
	}
}

/* The core thread @cpu runs on: the @cpu-th this process may use, round robin. */
static int core_of(unsigned int cpu)
{
	cpu_set_t allowed;
	unsigned int n = 0, i, nr;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return cpu;
	nr = CPU_COUNT(&allowed);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &allowed) && n++ == cpu % nr)
			return i;
	return cpu;
}

static void *thread_main(void *arg)
{
	struct thread *t = arg;
	double start;

	if (kshim_native_bind(t->cpu, core_of(t->cpu)))
		fprintf(stderr, "bench-tags-native: cannot pin to core %d\n", core_of(t->cpu));
	/* Warm up: lists filled, lines in place. */
	if (t->cross)
		cross_pairs(t, t->pairs / 10);
	else
		same_pairs(t, t->pairs / 10);
	pthread_barrier_wait(&start_line);
	start = now_ns();
	if (t->cross)
		cross_pairs(t, t->pairs);
	else
		same_pairs(t, t->pairs);
	t->ns = now_ns() - start;
	return NULL;
}

static enum tags_kind kind_of(const char *alloc)
{
	if (!strcmp(alloc, "sbitmap"))
		return TAGS_SBITMAP;
	if (!strcmp(alloc, "pool"))
		return TAGS_POOL;
	if (!strcmp(alloc, "null"))
		return TAGS_NULL;
	fprintf(stderr, "bench-tags-native: unknown allocator %s\n", alloc);
	exit(2);
}

static int run_time(struct tags *tags, unsigned int nr, bool cross,
		    unsigned int depth, unsigned long pairs)
{
	struct ring *rings = aligned_alloc(64, nr * sizeof(*rings));
	struct thread *t = aligned_alloc(64, nr * sizeof(*t));
	double ns = 0;
	unsigned long retries = 0;
	unsigned int i;

	memset(t, 0, nr * sizeof(*t));
	memset(rings, 0, nr * sizeof(*rings));
	pthread_barrier_init(&start_line, NULL, nr);
	for (i = 0; i < nr; i++) {
		t[i] = (struct thread){ .cpu = i, .tags = tags, .cross = cross,
					.pairs = pairs, .out = &rings[i],
					.in = &rings[(i + nr - 1) % nr],
					.from_cpu = (i + nr - 1) % nr };
		t[i].cross_inflight = depth / 2 < 1 ? 1 :
				      depth / 2 > CROSS_INFLIGHT ? CROSS_INFLIGHT :
				      depth / 2;
		pthread_create(&t[i].id, NULL, thread_main, &t[i]);
	}
	for (i = 0; i < nr; i++) {
		pthread_join(t[i].id, NULL);
		ns = ns > t[i].ns ? ns : t[i].ns;
		retries += t[i].retries;
	}
	printf("%.2f\t%.4f\n", ns / pairs, (double)retries / (pairs * nr));
	free(t);
	free(rings);
	return 0;
}

/*
 * PAIRS alloc+free pairs on one thread playing CPUs 0 to nr - 1 in turn
 * (same: each CPU frees its own; cross: CPU 0 allocates, CPU 1 frees).
 */
static void __attribute__((noinline)) run_pairs(struct tags *tags,
						 unsigned int nr, bool cross,
						 unsigned long pairs)
{
	unsigned long i;
	int tag;

	for (i = 0; i < pairs; i++) {
		kshim_native_bind(cross ? 0 : i % nr, -1);
		tag = tags_get(tags, false);
		if (tag < 0)
			abort();
		if (cross)
			kshim_native_bind(1 % nr, -1);
		tags_put(tags, tag, cross ? 0 : i % nr);
	}
}

/* What callgrind counts (--toggle-collect=measure_pairs). */
static void __attribute__((noinline)) measure_pairs(struct tags *tags,
						     unsigned int nr, bool cross,
						     unsigned long pairs)
{
	run_pairs(tags, nr, cross, pairs);
}

int main(int argc, char **argv)
{
	unsigned int nr, depth;
	unsigned long pairs;
	struct tags *tags;
	bool cross;

	if (argc != 7 || (strcmp(argv[1], "time") && strcmp(argv[1], "icount")) ||
	    (strcmp(argv[4], "same") && strcmp(argv[4], "cross"))) {
		fprintf(stderr, "usage: %s time|icount sbitmap|pool|null THREADS same|cross DEPTH PAIRS\n",
			argv[0]);
		return 2;
	}
	nr = atoi(argv[3]);
	cross = !strcmp(argv[4], "cross");
	depth = atoi(argv[5]);
	pairs = strtoul(argv[6], NULL, 10);
	if (nr < 1 || nr > KSHIM_MODEL_MAX_CPUS || (cross && nr < 2) || !depth || !pairs) {
		fprintf(stderr, "bench-tags-native: 1 to %u threads, cross needs 2, depth and pairs > 0\n",
			KSHIM_MODEL_MAX_CPUS);
		return 2;
	}
	kshim_setup(nr);
	tags = tags_create(kind_of(argv[2]), depth, nr);
	if (!tags)
		return 1;
	if (!strcmp(argv[1], "time")) {
		run_time(tags, nr, cross, depth, pairs);
	} else {
		run_pairs(tags, nr, cross, pairs / 10);	/* warm up */
		measure_pairs(tags, nr, cross, pairs);
	}
	tags_destroy(tags);
	return kshim_warnings() ? 1 : 0;
}
