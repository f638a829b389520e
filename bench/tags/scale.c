// SPDX-License-Identifier: GPL-2.0
/*
 * bench-scale: tag allocation on N simulated CPUs (bench/kshim/rt-model.c),
 * counting per I/O what the allocator costs: cache-line misses by class and
 * weighted by where the line comes from, wake-ups, the old count of
 * transfers, locked instructions, contended locks, interrupt toggles, remote
 * per-CPU memory, accesses, and memory in bytes.
 *
 * Reads one scenario per line on stdin:
 *
 *	ALLOC POSSIBLE USERS DEPTH INFLIGHT COMPLETION IOS SEED [QUANTUM [THINK [QUEUES [BATCH [DEVICE [SHALLOW]]]]]]
 *
 * ALLOC is sbitmap or pool; POSSIBLE the possible CPUs (nr_cpu_ids); USERS
 * the CPUs that submit I/O to this tag space (CPUs 0 .. USERS - 1: those
 * mapped to one hardware queue, or all of them for host-wide shared tags);
 * INFLIGHT the I/Os each keeps in flight; COMPLETION "self" (each CPU
 * completes its own I/Os), "irq" (CPU 0 completes every I/O, as the one
 * interrupt CPU of the queue) or "other" (CPU n's I/Os complete on CPU n + 1,
 * which never sleeps for a tag but retries: the native benchmark's "cross");
 * IOS the I/Os measured, after a warm-up: at least IOS / 4 I/Os, and until
 * every CPU completed its in-flight I/Os and 2 more (so that every CPU has
 * joined and cycled what it keeps once; with irq, every CPU but the
 * interrupt CPU, whose own I/Os take only tags free at once), but at most
 * 16 x IOS I/Os: 256
 * CPUs joining a pool at once queue on its lock, and the model runs the
 * holder 1/256th of the time, so the last joins may come some 40000 I/Os
 * in.  Every scenario has a budget of 10000 x IOS counted accesses (not
 * think time): the warm-up ends when it has used a quarter, and counting
 * stops when it has used the budget, with fewer than IOS I/Os measured
 * (the ios column says how many); tasks woken in herds can take hours of
 * the host's time otherwise.  SEED seeds the interleaving and the kernel code's random draws
 * (sbitmap's hints), the same whatever ran before.  Optional, in order:
 * QUANTUM, the mean accesses a CPU makes before the scheduler may switch
 * (default 4); THINK, private accesses each CPU makes after submitting each
 * I/O (the work between I/Os: they use up quanta and touch no counted
 * line; default 0); QUEUES, request queues sharing the tag set, all active
 * (CPU c submits to queue c % QUEUES; 2 or more: hctx_may_queue()'s fair
 * share, blk-mq's BLK_MQ_F_TAG_QUEUE_SHARED; default 1); BATCH, tags taken
 * and freed per call of blk-mq's batch paths (blk_mq_get_tags(),
 * blk_mq_put_tags(); 1: none, the default; self or irq, one queue only);
 * DEVICE, private accesses the completing CPU makes before each completion
 * (the device's time, which the model otherwise takes as nil, so that the
 * completing CPU's speed alone sets the I/O rate; default 0); SHALLOW, the
 * shallow depth of the odd CPUs' allocations, as an I/O scheduler sets it
 * for async I/O (kyber, bfq): together they hold at most SHALLOW tags, the
 * run fails if they hold more, or if the pool hands them a tag below
 * DEPTH - SHALLOW; they take no batches and queue non-exclusively on the
 * pool (0: none, the default; below DEPTH, and with one queue only: a
 * scheduler's tags are no tag set shared among request queues).
 * An 8-field line is QUANTUM 4, THINK 0, QUEUES 1, BATCH 1, DEVICE 0, SHALLOW 0.
 *
 * Writes one tab-separated line per scenario, with a header first: the
 * scenario (alloc, source, possible, users, depth, inflight, completion,
 * ios, quantum, think, queues, batch), then per I/O measured: misses,
 * miss_c2c, miss_reread, miss_cold, miss_upgrade, invalidations, wmiss_1n
 * and wmiss_2n (weighted misses, one socket and two; runtime.h's weights),
 * wakeups, transfers and transfers_read (the former count), locked_rmw,
 * fences, contended_locks, irq_toggles, remote_touches, accesses (every
 * counted load and store, wait entries on stacks and the scheduler's lines
 * included), wmiss_blk_1n and wmiss_blk_2n (the part of wmiss_1n and
 * wmiss_2n on the request queues' counts of active requests, blk-mq's
 * fair share, which both allocators pay alike: kshim_mark_blk_mq()),
 * nowait_fails; then starved (CPUs that submit, but for the
 * interrupt CPU, which completed none of the I/Os counted: left without a
 * tag) and fairness (Jain's index of the I/Os counted per such CPU: 1 when
 * even, 1 / USERS when one CPU did all); warmed (CPUs that had completed their
 * warm-up share when counting began: USERS, or USERS - 1 with irq, unless
 * the warm-up hit its bound), mem_kmalloc and mem_percpu (bytes the allocator holds: blk-mq's
 * own structures, the same for both, left out), errors, device and shallow.
 *
 * Each scenario ends with checks that fail the run (exit status 1): no tag
 * handed out twice, every tag free again, and all DEPTH tags allocatable
 * from one CPU (none stranded).
 *
 * With KSHIM_PROFILE set, each scenario also prints on stderr the lines with
 * the most misses, the code addresses that made most of them (give them
 * to addr2line -f -i -e OUT/scale) and the pool's counters
 * (percpu_tag_pool_stats()) per I/O measured.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kshim/runtime.h"
#include "alloc.h"

enum completion { COMPLETE_SELF, COMPLETE_IRQ, COMPLETE_OTHER };
static const char *const completion_names[] = { "self", "irq", "other" };

struct scenario {
	char alloc[16];
	unsigned int possible, users, depth, inflight;
	enum completion completion;
	unsigned long ios;
	unsigned long long seed;
	unsigned int quantum;
	unsigned long think;
	unsigned int queues, batch;
	unsigned long device;
	unsigned int shallow;
};

/* Most tags one batch call takes or frees here (blk-mq: BITS_PER_LONG). */
#define MAX_BATCH	64

/* Counted accesses a scenario may make, per I/O it is to measure. */
#define ACCESS_BUDGET	10000ULL

/* An I/O in flight: its tag and the CPU that submitted it. */
struct io {
	unsigned int tag, cpu;
};

/* A ring of I/Os, big enough for every tag. */
struct ring {
	struct io *io;
	unsigned int head, tail, size;
};

struct cpu_state {
	struct ring inflight;	/* self: own I/Os; other: those to complete */
	unsigned int nr_inflight;
	unsigned long completed;	/* its I/Os completed, by any CPU */
	unsigned long completed_before;	/* ... when counting began */
	bool parked;		/* waits for one of its I/Os to complete */
	bool done;
};

struct run {
	const struct scenario *s;
	enum tags_kind kind;
	struct tags *tags;
	struct cpu_state *cpu;
	struct ring device;	/* I/Os waiting for the interrupt CPU */
	bool irq_parked;
	unsigned char *owner;	/* per tag: handed out? */
	unsigned long completed, warm_min, warm_max, warm_each, stop_at;
	/* The access budget: the warm-up ends at a quarter, counting at all. */
	unsigned long long budget, counting_from;
	unsigned int nr_warm;	/* CPUs that completed warm_each I/Os */
	unsigned int warm_cpus;	/* nr_warm that ends the warm-up */
	unsigned int warmed;	/* nr_warm when counting began */
	unsigned int starved;	/* submitting CPUs that completed no I/O counted */
	double fairness;	/* Jain's index of the I/Os counted per CPU */
	bool measuring;
	unsigned long nr_inflight, nr_getting;
	bool stop;
	unsigned long nowait_fails;
	unsigned int limited_held;	/* tags the SHALLOW allocations hold */
	struct kshim_counts counts;
	unsigned long measured;
	int errors;
	/* KSHIM_PROFILE: the pool's counters when measuring starts and stops. */
	bool profile;
	unsigned int nr_stats;
	const char *const *stat_names;
	unsigned long long stats_start[TAGS_MAX_STATS], stats_stop[TAGS_MAX_STATS];
};

static void ring_init(struct ring *r, unsigned int size)
{
	r->io = calloc(size, sizeof(*r->io));
	r->size = size;
	r->head = r->tail = 0;
}

static void ring_push(struct ring *r, struct io io)
{
	r->io[r->tail++ % r->size] = io;
}

static bool ring_pop(struct ring *r, struct io *io)
{
	if (r->head == r->tail)
		return false;
	*io = r->io[r->head++ % r->size];
	return true;
}

static void fail(struct run *run, const char *what, unsigned int tag)
{
	if (!run->errors++)
		fprintf(stderr, "bench-scale: %s %u users %u depth %u: %s (tag %u)\n",
			run->s->alloc, run->s->possible, run->s->users,
			run->s->depth, what, tag);
}

/* A tag handed out: check that it was free, mark it handed out. */
static void hand_out(struct run *run, int tag)
{
	if ((unsigned int)tag >= run->s->depth || run->owner[tag])
		fail(run, "tag handed out twice or out of range", tag);
	else
		run->owner[tag] = 1;
}

/* Whether @cpu's allocations are held to SHALLOW tags. */
static bool limited(const struct run *run, unsigned int cpu)
{
	return run->s->shallow && cpu % 2;
}

static int get_tag(struct run *run, bool wait, unsigned int cpu)
{
	unsigned int shallow = limited(run, cpu) ? run->s->shallow : 0;
	int tag;

	kshim_model_op_begin();
	tag = tags_get_shallow(run->tags, wait, shallow);
	if (tag < 0) {
		if (wait)
			fail(run, "a waiting allocation returned no tag", 0);
		else
			run->nowait_fails++;
		return -1;
	}
	hand_out(run, tag);
	if (shallow && ++run->limited_held > shallow)
		fail(run, "SHALLOW allocations hold more than SHALLOW tags", tag);
	/* percpu_tag_alloc_limited() promises one of the SHALLOW highest tags. */
	if (shallow && run->kind == TAGS_POOL &&
	    (unsigned int)tag < run->s->depth - shallow)
		fail(run, "a SHALLOW allocation got a tag below DEPTH - SHALLOW", tag);
	return tag;
}

/* Up to @nr tags in one batch call into @tags (blk_mq_get_tags()). */
static unsigned int get_batch(struct run *run, unsigned int *tags, unsigned int nr)
{
	unsigned int got, i;

	kshim_model_op_begin();
	got = tags_get_batch(run->tags, tags, nr);
	for (i = 0; i < got; i++)
		hand_out(run, tags[i]);
	return got;
}

/* With KSHIM_PROFILE set: the pool's counters per I/O measured, on stderr. */
static void print_stats(struct run *run)
{
	unsigned int i;

	if (!run->measured)
		return;
	for (i = 0; i < run->nr_stats; i++)
		fprintf(stderr, "%s%s %.3f", i ? " " : "  pool counters per io: ",
			run->stat_names[i],
			(double)(run->stats_stop[i] - run->stats_start[i]) / run->measured);
	if (run->nr_stats)
		fputc('\n', stderr);
}

/* The tag of @io is about to be freed: check it was handed out. */
static void take_back(struct run *run, struct io io)
{
	if (!run->owner[io.tag])
		fail(run, "freeing a tag that is not handed out", io.tag);
	run->owner[io.tag] = 0;
	if (limited(run, io.cpu))
		run->limited_held--;
}

/*
 * How evenly the I/Os counted were spread over the CPUs that submit (with
 * irq completion, all but the interrupt CPU, which takes only free tags):
 * Jain's index, (sum x)^2 / (n sum x^2), 1 when even, 1/n when one CPU did
 * all; and the CPUs that completed none (starved of tags).
 */
static void fairness(struct run *run)
{
	unsigned int i, first = run->s->completion == COMPLETE_IRQ && run->s->users > 1;
	double sum = 0, squares = 0;

	run->starved = 0;
	for (i = first; i < run->s->users; i++) {
		double x = run->cpu[i].completed - run->cpu[i].completed_before;

		sum += x;
		squares += x * x;
		run->starved += !x;
	}
	run->fairness = squares ? sum * sum / ((run->s->users - first) * squares) : 0;
}

/* @io completed and its tag is freed: count it, start or stop counting. */
static void account(struct run *run, struct io io)
{
	unsigned int i;

	run->cpu[io.cpu].nr_inflight--;
	run->nr_inflight--;
	if (++run->cpu[io.cpu].completed == run->warm_each)
		run->nr_warm++;

	run->completed++;
	if (!run->measuring &&
	    ((run->completed >= run->warm_min &&
	      (run->nr_warm >= run->warm_cpus || run->completed >= run->warm_max)) ||
	     kshim_model_accesses() >= run->budget / 4)) {
		/* Read before the counts start: the reads move lines. */
		if (run->profile)
			run->nr_stats = tags_stats(run->tags, run->stats_start,
						   &run->stat_names);
		kshim_model_reset_counts();
		run->nowait_fails = 0;
		run->measuring = true;
		run->warmed = run->nr_warm;
		for (i = 0; i < run->s->users; i++)
			run->cpu[i].completed_before = run->cpu[i].completed;
		run->stop_at = run->completed + run->s->ios;
		run->counting_from = kshim_model_accesses();
	} else if (run->measuring && !run->stop &&
		   (run->completed == run->stop_at ||
		    kshim_model_accesses() - run->counting_from >= run->budget)) {
		kshim_model_counts(&run->counts);
		if (run->nr_stats)
			tags_stats(run->tags, run->stats_stop, &run->stat_names);
		run->measured = run->s->ios - (run->stop_at - run->completed);
		fairness(run);
		run->stop = true;
	}
}

/* The I/O of @io completes on the calling CPU. */
static void complete(struct run *run, struct io io)
{
	kshim_model_think(run->s->device);
	take_back(run, io);
	kshim_model_op_begin();
	tags_put(run->tags, io.tag, io.cpu);
	account(run, io);
}

/*
 * The I/Os of @ios complete on the calling CPU together, their tags freed
 * with one call (blk_mq_end_request_batch()); all from one queue.
 */
static void complete_batch(struct run *run, const struct io *ios, unsigned int nr)
{
	unsigned int tags[MAX_BATCH], i;

	kshim_model_think(run->s->device * nr);
	for (i = 0; i < nr; i++) {
		take_back(run, ios[i]);
		tags[i] = ios[i].tag;
	}
	kshim_model_op_begin();
	tags_put_batch(run->tags, tags, nr, ios[0].cpu);
	for (i = 0; i < nr; i++)
		account(run, ios[i]);
}

/*
 * Complete the oldest I/O of @r on the calling CPU, or with BATCH the
 * oldest BATCH at once, into @ios; returns how many it completed.
 */
static unsigned int complete_oldest(struct run *run, struct ring *r,
				    struct io ios[MAX_BATCH])
{
	unsigned int nr = 0;

	while (nr < run->s->batch && ring_pop(r, &ios[nr]))
		nr++;
	if (nr == 1)
		complete(run, ios[0]);
	else if (nr)
		complete_batch(run, ios, nr);
	return nr;
}

/* Submit an I/O with @tag from @cpu, then think until the next one. */
static void submit(struct run *run, unsigned int cpu, int tag)
{
	struct io io = { .tag = tag, .cpu = cpu };

	run->cpu[cpu].nr_inflight++;
	run->nr_inflight++;
	if (run->s->completion == COMPLETE_SELF) {
		ring_push(&run->cpu[cpu].inflight, io);
	} else if (run->s->completion == COMPLETE_OTHER) {
		ring_push(&run->cpu[(cpu + 1) % run->s->users].inflight, io);
	} else {
		ring_push(&run->device, io);
		if (run->irq_parked) {
			run->irq_parked = false;
			kshim_model_wake(0);
		}
	}
	kshim_model_think(run->s->think);
}

/*
 * With BATCH, take up to BATCH of the tags @cpu may still use in one call
 * and submit their I/Os; returns how many (0: take them one by one).
 */
static unsigned int submit_batch(struct run *run, unsigned int cpu)
{
	unsigned int tags[MAX_BATCH], got, i;

	/* blk_mq_get_tags() takes no batch with a shallow depth. */
	if (run->s->batch <= 1 || limited(run, cpu))
		return 0;
	got = run->s->inflight - run->cpu[cpu].nr_inflight;
	got = get_batch(run, tags, got < run->s->batch ? got : run->s->batch);
	for (i = 0; i < got; i++)
		submit(run, cpu, tags[i]);
	return got;
}

/*
 * Each CPU keeps INFLIGHT I/Os in flight and completes its oldest (BATCH at
 * once); when no tag is free it completes its own, and waits only with none
 * in flight.
 */
static void cpu_self(struct run *run, unsigned int cpu)
{
	struct cpu_state *me = &run->cpu[cpu];
	struct io io, ios[MAX_BATCH];
	int tag;

	while (!run->stop) {
		if (me->nr_inflight == run->s->inflight) {
			complete_oldest(run, &me->inflight, ios);
			continue;
		}
		if (submit_batch(run, cpu))
			continue;
		tag = get_tag(run, false, cpu);
		if (tag < 0 && me->nr_inflight) {
			complete_oldest(run, &me->inflight, ios);
			continue;
		}
		if (tag < 0)
			tag = get_tag(run, true, cpu);
		if (tag >= 0)
			submit(run, cpu, tag);
	}
	while (ring_pop(&me->inflight, &io))
		complete(run, io);
}

/*
 * Complete the oldest I/Os of the device (BATCH at once) on the interrupt
 * CPU and wake the submitters that wait for them; returns how many.
 */
static unsigned int complete_oldest_woken(struct run *run)
{
	struct io ios[MAX_BATCH];
	unsigned int nr, i;

	nr = complete_oldest(run, &run->device, ios);
	for (i = 0; i < nr; i++) {
		unsigned int cpu = ios[i].cpu;

		if (run->cpu[cpu].parked) {
			run->cpu[cpu].parked = false;
			kshim_model_wake(cpu);
		}
	}
	return nr;
}

/* CPU 0 completes every I/O, and submits its own between completions. */
static void cpu_irq(struct run *run)
{
	struct cpu_state *me = &run->cpu[0];
	unsigned int cpu, busy;
	int tag;

	for (;;) {
		while (complete_oldest_woken(run))
			;
		if (!run->stop && me->nr_inflight < run->s->inflight) {
			if (submit_batch(run, 0))
				continue;
			tag = get_tag(run, false, 0);
			if (tag >= 0) {
				submit(run, 0, tag);
				continue;
			}
		}
		for (busy = 0, cpu = 1; cpu < run->s->users; cpu++)
			busy += !run->cpu[cpu].done;
		if (run->stop && !busy && !me->nr_inflight)
			return;
		/*
		 * Nothing to complete: sleep until a submission.  Harness code
		 * runs without switches, so none can come between this look
		 * and the sleep.
		 */
		if (run->device.head != run->device.tail)
			continue;
		run->irq_parked = true;
		kshim_model_sleep();
	}
}

static void cpu_submitter(struct run *run, unsigned int cpu)
{
	struct cpu_state *me = &run->cpu[cpu];
	int tag;

	while (!run->stop) {
		if (me->nr_inflight == run->s->inflight) {
			me->parked = true;
			kshim_model_sleep();
			continue;
		}
		if (submit_batch(run, cpu))
			continue;
		tag = get_tag(run, true, cpu);
		if (tag >= 0)
			submit(run, cpu, tag);
	}
	while (me->nr_inflight) {
		me->parked = true;
		kshim_model_sleep();
	}
	me->done = true;
	if (run->irq_parked) {
		run->irq_parked = false;
		kshim_model_wake(0);
	}
}

/*
 * Complete what the previous CPU submitted, then submit; a CPU that finds no
 * tag retries after the others ran, as the native benchmark's threads do.
 */
static void cpu_other(struct run *run, unsigned int cpu)
{
	struct cpu_state *me = &run->cpu[cpu];
	struct io io;
	int tag;

	for (;;) {
		while (ring_pop(&me->inflight, &io))
			complete(run, io);
		if (run->stop) {
			if (!run->nr_inflight && !run->nr_getting)
				return;
		} else if (me->nr_inflight < run->s->inflight) {
			/* Others must not finish while this may still submit. */
			run->nr_getting++;
			tag = get_tag(run, false, cpu);
			run->nr_getting--;
			if (tag >= 0) {
				submit(run, cpu, tag);
				continue;
			}
		}
		kshim_model_yield();
	}
}

static void cpu_main(unsigned int cpu, void *arg)
{
	struct run *run = arg;

	if (run->s->completion == COMPLETE_SELF)
		cpu_self(run, cpu);
	else if (run->s->completion == COMPLETE_OTHER)
		cpu_other(run, cpu);
	else if (cpu == 0)
		cpu_irq(run);
	else
		cpu_submitter(run, cpu);
}

/* After the run, on CPU 0: every tag free, and all allocatable from here. */
static void check_no_tag_lost(struct run *run)
{
	unsigned int depth = run->s->depth, i, got = 0;
	int *tags = calloc(depth + 1, sizeof(*tags)), tag;

	if (tags_nr_free(run->tags) != depth)
		fail(run, "tags still handed out after the run",
		     depth - tags_nr_free(run->tags));
	while (got <= depth && (tag = tags_get(run->tags, false)) >= 0)
		tags[got++] = tag;
	if (got != depth)
		fail(run, "one CPU could not allocate every tag; got", got);
	for (i = 0; i < got; i++)
		tags_put(run->tags, tags[i], 0);
	free(tags);
}

static enum tags_kind kind_of(const char *alloc)
{
	if (!strcmp(alloc, "sbitmap"))
		return TAGS_SBITMAP;
	if (!strcmp(alloc, "pool"))
		return TAGS_POOL;
	fprintf(stderr, "bench-scale: unknown allocator %s\n", alloc);
	exit(2);
}

/* The counts printed per I/O, in this order (weights in tenths). */
#define COLUMN(name, member, scale) { name, offsetof(struct kshim_counts, member), scale }
static const struct {
	const char *name;
	size_t offset;
	double scale;
} per_io_columns[] = {
	COLUMN("misses", misses, 1), COLUMN("miss_c2c", miss_c2c, 1),
	COLUMN("miss_reread", miss_reread, 1), COLUMN("miss_cold", miss_cold, 1),
	COLUMN("miss_upgrade", miss_upgrade, 1),
	COLUMN("invalidations", invalidations, 1),
	COLUMN("wmiss_1n", wmiss_1n, 0.1), COLUMN("wmiss_2n", wmiss_2n, 0.1),
	COLUMN("wakeups", wakeups, 1), COLUMN("transfers", transfers, 1),
	COLUMN("transfers_read", transfers_read, 1),
	COLUMN("locked_rmw", locked_rmw, 1), COLUMN("fences", fences, 1),
	COLUMN("contended_locks", contended_locks, 1),
	COLUMN("irq_toggles", irq_toggles, 1),
	COLUMN("remote_touches", remote_touches, 1),
	COLUMN("accesses", accesses, 1),
	COLUMN("wmiss_blk_1n", wmiss_blk_1n, 0.1),
	COLUMN("wmiss_blk_2n", wmiss_blk_2n, 0.1),
};

static int run_scenario(const struct scenario *s)
{
	struct run run = { .s = s, .profile = getenv("KSHIM_PROFILE") };
	unsigned long warnings = kshim_warnings();
	struct kshim_mem mem;
	const struct kshim_counts *c = &run.counts;
	double per_io;
	unsigned int i;
	bool run_ok;

	kshim_setup(s->possible);
	kshim_model_seed(s->seed);
	run.kind = kind_of(s->alloc);
	run.tags = tags_create(run.kind, s->depth, s->users);
	if (run.tags && s->shallow)
		tags_min_shallow_depth(run.tags, s->shallow);
	if (run.tags && tags_set_queues(run.tags, s->queues)) {
		tags_destroy(run.tags);
		run.tags = NULL;
	}
	if (!run.tags) {
		fprintf(stderr, "bench-scale: cannot create %s of depth %u\n",
			s->alloc, s->depth);
		return 1;
	}
	run.cpu = calloc(s->users, sizeof(*run.cpu));
	for (i = 0; i < s->users; i++)
		ring_init(&run.cpu[i].inflight, s->inflight);
	ring_init(&run.device, s->users * s->inflight);
	run.owner = calloc(s->depth, 1);
	run.warm_min = s->ios / 4;
	run.warm_max = 16 * s->ios;
	run.warm_each = s->inflight + 2;
	run.budget = (unsigned long long)s->ios * ACCESS_BUDGET;
	/*
	 * The interrupt CPU submits only when a tag is there without waiting:
	 * it may never complete warm_each I/Os of its own.
	 */
	run.warm_cpus = s->users - (s->completion == COMPLETE_IRQ && s->users > 1);

	run_ok = !kshim_model_run(s->users, s->seed, s->quantum, cpu_main, &run);
	/* Lines of the I/Os measured, not of the checks below. */
	kshim_model_profile(run.measured);
	print_stats(&run);
	if (!run_ok) {
		unsigned long held = 0;

		for (i = 0; i < s->depth; i++)
			held += run.owner[i];
		fprintf(stderr, "bench-scale: asleep with %lu tags handed out, %u in the device queue, %u free by the allocator's count\n",
			held, run.device.tail - run.device.head, tags_nr_free(run.tags));
		fail(&run, "every CPU left sleeps", 0);
	}
	else if (!tags_set_queues(run.tags, 1))
		check_no_tag_lost(&run);
	kshim_mem_read(&mem);
	mem.kmalloc -= tags_blk_bytes(run.tags);
	if (kshim_warnings() != warnings)
		fail(&run, "the kernel code warned", 0);

	per_io = run.measured ? 1.0 / run.measured : 0;
	printf("%s\t%s\t%u\t%u\t%u\t%u\t%s\t%lu\t%u\t%lu\t%u\t%u",
	       s->alloc, tags_pool_name, s->possible, s->users, s->depth,
	       s->inflight, completion_names[s->completion], run.measured,
	       s->quantum, s->think, s->queues, s->batch);
	for (i = 0; i < sizeof(per_io_columns) / sizeof(per_io_columns[0]); i++)
		printf("\t%.4f", *(const uint64_t *)((const char *)c +
						     per_io_columns[i].offset) *
		       per_io_columns[i].scale * per_io);
	printf("\t%.4f\t%u\t%.4f\t%u\t%llu\t%llu\t%d\t%lu\t%u\n", run.nowait_fails * per_io,
	       run.starved, run.fairness, run.warmed, (unsigned long long)mem.kmalloc,
	       (unsigned long long)mem.percpu, run.errors, s->device, s->shallow);
	fflush(stdout);

	tags_destroy(run.tags);
	for (i = 0; i < s->users; i++)
		free(run.cpu[i].inflight.io);
	free(run.cpu);
	free(run.device.io);
	free(run.owner);
	return run.errors ? 1 : 0;
}

/* One scenario line into @s; false if it is not one. */
static bool parse_scenario(const char *line, struct scenario *s)
{
	char completion[8];
	int end = 0;

	s->quantum = 4;
	s->think = 0;
	s->queues = 1;
	s->batch = 1;
	s->device = 0;
	s->shallow = 0;
	if (sscanf(line, "%15s %u %u %u %u %7s %lu %llu%n", s->alloc,
		   &s->possible, &s->users, &s->depth, &s->inflight,
		   completion, &s->ios, &s->seed, &end) != 8)
		return false;
	/* The optional fields, in order; a short line keeps the defaults. */
	if (strchr(line + end, '-'))
		return false;
	if (sscanf(line + end, "%u %lu %u %u %lu %u", &s->quantum, &s->think,
		   &s->queues, &s->batch, &s->device, &s->shallow) < 0 &&
	    line[end] && line[end] != '\n')
		return false;
	for (s->completion = 0; s->completion < 3; s->completion++)
		if (!strcmp(completion, completion_names[s->completion]))
			break;
	return s->users && s->users <= s->possible && s->depth && s->inflight &&
	       s->completion < 3 && s->quantum && s->queues &&
	       (!s->shallow || (s->shallow < s->depth && s->queues == 1)) &&
	       s->queues <= s->users && s->batch && s->batch <= MAX_BATCH &&
	       (s->batch == 1 || (s->queues == 1 && s->completion != COMPLETE_OTHER));
}

int main(void)
{
	struct scenario s;
	char line[256];
	int status = 0;
	size_t i;

	printf("alloc\tsource\tpossible\tusers\tdepth\tinflight\tcompletion\tios\tquantum\tthink\tqueues\tbatch");
	for (i = 0; i < sizeof(per_io_columns) / sizeof(per_io_columns[0]); i++)
		printf("\t%s", per_io_columns[i].name);
	printf("\tnowait_fails\tstarved\tfairness\twarmed\tmem_kmalloc\tmem_percpu\terrors\tdevice\tshallow\n");
	fflush(stdout);	/* a driver may wait for the header before it writes */
	while (fgets(line, sizeof(line), stdin)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!parse_scenario(line, &s)) {
			fprintf(stderr, "bench-scale: bad scenario: %s", line);
			return 2;
		}
		status |= run_scenario(&s);
	}
	return status;
}
