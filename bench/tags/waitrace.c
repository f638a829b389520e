// SPDX-License-Identifier: GPL-2.0
/*
 * Two exclusive waiters and two frees racing their wake-ups, on the model
 * (bench/kshim/rt-model.c), once per seed: CPU 0 holds both tags of a pool
 * of two and frees them, one quantum apart or so; CPU 1 and CPU OTHER (2 if
 * not given) each sleep in a blocking allocation until they get a tag, and
 * keep it until both have one.  The pool's waiters of CPUs 1 and 2 share a
 * wait queue, those of CPUs 1 and 4 do not.  A wakeup lost between them
 * leaves a waiter asleep while a tag is free and the other asleep until it
 * gets one too: every CPU sleeps, which the model reports.  With NUDGES, one
 * more CPU gives each waiter's task that many spurious wake-ups, at random
 * points (a late wake_q wake-up, or any wake_up_process(), is one): a task
 * then runs with its entry still queued, and frees may race it while it
 * queues again.  Those runs look for what spurious wake-ups break: a wakeup
 * lost before the last nudge is made up by it, so they find only losses
 * after it.  Prints "SEEDS seeds, N lost a wakeup" and the first seeds that
 * did; exits 1 if any did.
 *
 * usage: waitrace SEEDS [OTHER [NUDGES]]
 */
#include <stdio.h>
#include <stdlib.h>

#include "../kshim/runtime.h"
#include "alloc.h"

struct race {
	struct tags *tags;
	unsigned int other;	/* the second waiter's CPU */
	unsigned int nudges;	/* spurious wake-ups of each waiter */
	int held[2];
	unsigned int got;
	bool first_parked;
};

/* Wake each waiter's task spuriously, r->nudges times, a quantum apart. */
static void nudge(struct race *r)
{
	unsigned int i;

	for (i = 0; i < r->nudges; i++) {
		kshim_model_yield();
		kshim_model_wake_task(1);
		kshim_model_yield();
		kshim_model_wake_task(r->other);
	}
}

static void cpu_main(unsigned int cpu, void *arg)
{
	struct race *r = arg;
	int tag;

	if (cpu == 0) {
		tags_put(r->tags, r->held[0], 0);
		tags_put(r->tags, r->held[1], 0);
		return;
	}
	if (cpu == r->other + 1) {
		nudge(r);
		return;
	}
	if (cpu != 1 && cpu != r->other)
		return;
	tag = tags_get(r->tags, true);
	if (tag < 0)
		return;
	/* Keep the tag until both waiters have one. */
	if (++r->got < 2) {
		r->first_parked = true;
		kshim_model_sleep();
	} else if (r->first_parked) {
		kshim_model_wake(cpu == 1 ? r->other : 1);
	}
	tags_put(r->tags, tag, cpu);
}

int main(int argc, char **argv)
{
	unsigned long seeds = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000, s;
	unsigned int other = argc > 2 ? strtoul(argv[2], NULL, 10) : 2;
	unsigned int nudges = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
	unsigned int nr_cpus = other + 1 + !!nudges;
	unsigned long lost = 0;

	if (other < 2 || other > 63) {
		fprintf(stderr, "waitrace: OTHER must be a CPU from 2 to 63\n");
		return 2;
	}
	for (s = 1; s <= seeds; s++) {
		struct race r = { .other = other, .nudges = nudges };

		kshim_setup(nr_cpus);
		r.tags = tags_create(TAGS_POOL, 2, 3);
		if (!r.tags)
			return 2;
		r.held[0] = tags_get(r.tags, false);
		r.held[1] = tags_get(r.tags, false);
		if (kshim_model_run(nr_cpus, s, 2, cpu_main, &r)) {
			if (lost++ < 5)
				printf("seed %lu: a waiter sleeps while a tag is free\n", s);
		} else {
			tags_destroy(r.tags);
		}
	}
	printf("%s: %lu seeds, waiters on CPUs 1 and %u, %u spurious wake-ups each, %lu lost a wakeup\n",
	       tags_pool_name, seeds, other, nudges, lost);
	return lost ? 1 : 0;
}
