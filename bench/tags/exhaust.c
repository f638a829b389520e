// SPDX-License-Identifier: GPL-2.0
/*
 * Small cases of the pool's waits on the model (bench/kshim/rt-model.c),
 * every schedule up to a bound on preemptions (its exhaustive mode), or
 * random schedules by seed:
 *
 *   free1  2 CPUs, depth 1: CPU 0 frees the tag it holds, CPU 1 waits for one.
 *   free2  3 CPUs, depth 2: CPU 0 frees both tags it holds, a yield apart,
 *          into its cache; CPUs 1 and 2 wait (on wait queues 1 and 2), each
 *          keeping its tag until both have one, and steal them from CPU 0's
 *          cache (the pool is scarce): waitrace's case.
 *   nudge  free2 and CPU 3, which wakes CPU 1's task spuriously, once: the
 *          task runs with its entry queued, or before it sleeps.
 *   split  free2 with the second tag freed by CPU 3 into its own cache.
 *   grow   3 CPUs, a pool of 2 resized to depth 1: CPU 0 frees the tag it
 *          holds, CPU 1 waits for one, CPU 2 resizes the pool back to 2.
 *   same   split with the second tag freed by CPU 3 into CPU 0's cache, as
 *          percpu_tag_free_to() does for a tag allocated there.  Found a
 *          lost wake-up in the series of 2026-12-06 (two frees into one
 *          empty cache, the first delayed before it set the cache's summary
 *          bit, the second woke a waiter that could not see either tag
 *          yet): since then every put in scarce mode sets the bit.
 *   refill 2 CPUs, depth 8, no waits: CPU 1 refills its cache with the last
 *          tags but one of the shared allocator while CPU 0 takes three
 *          tags, the last of which finds nothing and enters scarce mode;
 *          afterwards, with nothing running, CPU 0 must be able to take
 *          every tag nobody holds, those in CPU 1's cache included.
 *   flush  3 CPUs, depth 5: CPU 0 frees the five tags it holds into its
 *          cache, a yield apart; the cache holds four (a word of slots), so
 *          the fifth free first gives them back to the shared allocator.
 *          CPUs 1 and 2 wait as in free2.  Found the series of 2026-12-07
 *          waking one waiter for the five tags: both waiters tried while
 *          the four moved, and one slept beside them.
 *
 * Each CPU is one task (the model has no other).  A schedule breaks an
 * invariant when every unfinished CPU sleeps (a lost wake-up: the cases
 * free enough tags for every waiter), a tag is handed out twice or outside
 * the depth, the kernel code warns, or at the end a tag is missing (not
 * free, or not allocatable).  Prints, per case, the schedules explored; on
 * the first that breaks one, its choice sequence (exhaustive) or how many
 * seeds did, and exits 1.  EXHAUST_TRACE=1 prints each choice of a replay.
 *
 * Scheduling points are before atomics (READ_ONCE(), WRITE_ONCE(), atomic
 * ops, the locks built on them) and the model's scheduler accesses: a plain
 * access that races with another CPU's is a data race the kernel forbids
 * (KCSAN's rule), and not looked for here; -a puts one before every access.
 *
 * usage: exhaust [-a] [-b BOUND] [-r CHOICES] [-s SEEDS] [CASE...]
 *   -b  preemptions per schedule (default: each case's, 1 or 2); -1: none,
 *       every schedule
 *   -r  replay the schedule CHOICES, as printed, of the first CASE named
 *   -s  SEEDS random schedules (quantum 2) instead of the exhaustive mode
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kshim/runtime.h"
#include "alloc.h"

struct scenario;

struct run {
	const struct scenario *sc;
	struct tags *tags;
	int held[8];		/* CPU 0's tags */
	int owner[8];		/* CPU + 1 holding each tag, 0 when free */
	unsigned int got;
	bool first_parked;
	const char *broke;	/* the invariant broken, or NULL */
};

struct scenario {
	const char *name;
	unsigned int cpus;
	unsigned int depth;	/* during the run; "grow" starts at 1 */
	unsigned int waiters;	/* CPUs 1 .. waiters wait for a tag */
	void (*other)(unsigned int cpu, struct run *r);	/* CPUs after them */
	unsigned int bound;	/* preemptions by default, within ~20 s */
	bool when_named;	/* a known failure: run only when named */
	const char *(*run)(const struct scenario *sc, uint64_t seed);	/* its own */
};

/* The kernel code's warnings so far, PREEMPT_RT lock warnings included. */
static unsigned long all_warnings(void)
{
	return kshim_warnings() + kshim_rt_lock_warnings();
}

static void fail(struct run *r, const char *what)
{
	if (!r->broke)
		r->broke = what;
}

static int take(struct run *r, unsigned int cpu, bool wait)
{
	int tag = tags_get(r->tags, wait);

	if (tag < 0)
		return tag;
	if (tag >= (int)r->sc->depth)
		fail(r, "a tag outside the depth handed out");
	else if (r->owner[tag])
		fail(r, "a tag handed out twice");
	else
		r->owner[tag] = cpu + 1;
	return tag;
}

static void give(struct run *r, unsigned int cpu, int tag, unsigned int alloc_cpu)
{
	if (tag >= 0 && tag < (int)r->sc->depth && r->owner[tag] == (int)cpu + 1)
		r->owner[tag] = 0;
	tags_put(r->tags, tag, alloc_cpu);
}

static void nudge(unsigned int cpu, struct run *r)
{
	kshim_model_wake_task(1);
}

/* The second tag, into CPU 3's cache ("split") or CPU 0's ("same"). */
static void free_second(unsigned int cpu, struct run *r)
{
	give(r, 0, r->held[1], 3);
}

static void free_second_same(unsigned int cpu, struct run *r)
{
	give(r, 0, r->held[1], 0);
}

static void grow(unsigned int cpu, struct run *r)
{
	if (tags_resize(r->tags, 2))
		fail(r, "the resize failed");
}

static void cpu_main(unsigned int cpu, void *arg)
{
	struct run *r = arg;
	const struct scenario *sc = r->sc;
	unsigned int i;
	int tag;

	if (cpu == 0) {
		/* The frees a yield apart: any CPU may run between them. */
		for (i = 0; i < (sc->cpus == 4 && sc->other != nudge ? 1 : sc->depth); i++) {
			if (r->held[i] < 0)
				continue;
			if (i)
				kshim_model_yield();
			give(r, 0, r->held[i], 0);
		}
		return;
	}
	if (cpu > sc->waiters) {
		sc->other(cpu, r);
		return;
	}
	tag = take(r, cpu, true);
	if (tag < 0) {
		fail(r, "a blocking allocation failed");
		return;
	}
	/* With two waiters, keep the tag until both have one. */
	if (sc->waiters == 2 && ++r->got < 2) {
		r->first_parked = true;
		kshim_model_sleep();
	} else if (sc->waiters == 2 && r->first_parked) {
		kshim_model_wake(cpu == 1 ? 2 : 1);
	}
	give(r, cpu, tag, cpu);
}

/* refill: CPU 1 takes one tag, CPU 0 three; none waits, none frees. */
static void refill_main(unsigned int cpu, void *arg)
{
	struct run *r = arg;
	unsigned int i;

	for (i = 0; i < (cpu ? 1 : 3); i++)
		take(r, cpu, false);
}

/* Tags CPU 0 can take now, nothing else running, given back afterwards. */
static unsigned int take_all(struct run *r, int *tags)
{
	unsigned int n = 0, i;

	while (n < r->sc->depth && (tags[n] = tags_get(r->tags, false)) >= 0)
		n++;
	for (i = 0; i < n; i++)
		tags_put(r->tags, tags[i], 0);
	return n;
}

static const char *run_refill(const struct scenario *sc, uint64_t seed)
{
	unsigned long warnings = all_warnings();
	struct run r = { .sc = sc };
	unsigned int i, held;
	int tags[8];

	kshim_setup(sc->cpus);
	r.tags = tags_create(TAGS_POOL, sc->depth, sc->cpus);
	if (!r.tags)
		return "no pool";
	/* Four tags held on CPU 0, its cache empty: the shared allocator has 4. */
	for (i = 0; i < 4; i++)
		if (tags_get(r.tags, false) < 0)
			return "no tag to set up";
	if (kshim_model_run(sc->cpus, seed, 2, refill_main, &r))
		return "a CPU sleeps in a case without waits";
	if (all_warnings() != warnings)
		fail(&r, "the kernel code warned");
	held = sc->depth - tags_nr_free(r.tags);
	if (take_all(&r, tags) != sc->depth - held)
		fail(&r, "a tag is lost: free but not allocatable");
	tags_destroy(r.tags);
	return r.broke;
}

static const struct scenario scenarios[] = {
	{ "free1", 2, 1, 1, NULL, 2 },
	{ "free2", 3, 2, 2, NULL, 2 },
	{ "nudge", 4, 2, 2, nudge, 1 },
	{ "split", 4, 2, 2, free_second, 1 },
	{ "grow", 3, 2, 1, grow, 2 },
	{ "same", 4, 2, 2, free_second_same, 1 },
	{ "refill", 2, 8, 0, NULL, 2, .run = run_refill },
	{ "flush", 3, 5, 2, NULL, 1 },
};

/* One run of @sc on the schedule set up (seed, or the explore state). */
static const char *run_one(const struct scenario *sc, uint64_t seed)
{
	struct run r = { .sc = sc, .held = { -1, -1, -1, -1, -1, -1, -1, -1 } };
	unsigned int i, nr_held = sc->depth, got = 0;
	unsigned long warnings;
	int tags[8];

	if (sc->run)
		return sc->run(sc, seed);
	warnings = all_warnings();
	kshim_setup(sc->cpus);
	r.tags = tags_create(TAGS_POOL, sc->depth, sc->cpus);
	if (!r.tags)
		return "no pool";
	if (sc->other == grow) {
		if (tags_resize(r.tags, 1))
			return "no resize (a pool before the series' percpu_tag_pool_resize())";
		nr_held = 1;
	}
	for (i = 0; i < nr_held; i++)
		r.held[i] = take(&r, 0, false);
	if (kshim_model_run(sc->cpus, seed, 2, cpu_main, &r))
		return tags_nr_free(r.tags) ? "a waiter sleeps while a tag is free" :
		       "every CPU sleeps, no tag free";
	if (all_warnings() != warnings)
		fail(&r, "the kernel code warned");
	if (!r.broke && tags_nr_free(r.tags) != sc->depth)
		fail(&r, "a tag is lost: not free at the end");
	while (!r.broke && got < sc->depth && (tags[got] = take(&r, 0, false)) >= 0)
		got++;
	if (!r.broke && got != sc->depth)
		fail(&r, "a tag is lost: free but not allocatable");
	tags_destroy(r.tags);
	return r.broke;
}

static struct kshim_explore x;

/* Every schedule of @sc within @bound; 1 if one broke an invariant. */
static int explore_all(const struct scenario *sc, int bound)
{
	unsigned long n = 0;
	const char *broke;

	x.bound = bound < 0 ? ~0u : (unsigned int)bound;
	kshim_model_explore(&x);
	do {
		n++;
		broke = run_one(sc, 0);
		if (x.overflow) {
			fprintf(stderr, "exhaust: %s: a schedule of over %u choices\n",
				sc->name, KSHIM_EXPLORE_MAX);
			return 2;
		}
		if (broke) {
			printf("%s: %s: schedule %lu: %s; replay: exhaust%s -r ",
			       tags_pool_name, sc->name, n, broke,
			       x.marked_only ? "" : " -a");
			kshim_model_explore_print(&x, stdout);
			printf(" %s\n", sc->name);
			break;
		}
	} while (kshim_model_explore_next(&x));
	kshim_model_explore(NULL);
	printf("%s: %s: %u CPUs, depth %u, preemption bound %d: %lu schedules explored, %s\n",
	       tags_pool_name, sc->name, sc->cpus, sc->depth, bound, n,
	       broke ? "one broke an invariant" : "none broke an invariant");
	return broke ? 1 : 0;
}

static int random_seeds(const struct scenario *sc, unsigned long seeds)
{
	unsigned long s, bad = 0;
	const char *broke;

	for (s = 1; s <= seeds; s++) {
		broke = run_one(sc, s);
		if (broke && bad++ < 3)
			printf("%s: %s: seed %lu: %s\n", tags_pool_name, sc->name, s, broke);
	}
	printf("%s: %s: %u CPUs, depth %u: %lu random schedules, %lu broke an invariant\n",
	       tags_pool_name, sc->name, sc->cpus, sc->depth, seeds, bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *replay = NULL;
	unsigned long seeds = 0;
	int bound = -2, opt, ret = 0, i;
	size_t k;

	setvbuf(stdout, NULL, _IOLBF, 0);
	x.marked_only = true;
	x.trace = getenv("EXHAUST_TRACE") != NULL;
	while ((opt = getopt(argc, argv, "ab:r:s:")) != -1) {
		switch (opt) {
		case 'a': x.marked_only = false; break;
		case 'b': bound = atoi(optarg); break;
		case 'r': replay = optarg; break;
		case 's': seeds = strtoul(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: exhaust [-a] [-b BOUND] [-r CHOICES] [-s SEEDS] [CASE...]\n");
			return 2;
		}
	}
	for (k = 0; k < sizeof(scenarios) / sizeof(scenarios[0]); k++) {
		const struct scenario *sc = &scenarios[k];
		bool chosen = optind == argc && !sc->when_named;
		const char *broke;

		for (i = optind; i < argc; i++)
			chosen |= !strcmp(argv[i], sc->name);
		if (!chosen)
			continue;
		if (replay) {
			kshim_model_explore(&x);
			if (kshim_model_explore_replay(&x, replay)) {
				fprintf(stderr, "exhaust: bad choices '%s'\n", replay);
				return 2;
			}
			broke = run_one(sc, 0);
			printf("%s: %s: schedule %s: %s\n", tags_pool_name, sc->name,
			       replay, broke ? broke : "no invariant broken");
			return broke ? 1 : 0;
		}
		ret |= seeds ? random_seeds(sc, seeds) :
		       explore_all(sc, bound == -2 ? (int)sc->bound : bound);
	}
	return ret;
}
