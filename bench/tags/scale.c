// SPDX-License-Identifier: GPL-2.0
/*
 * bench-scale: tag allocation on N simulated CPUs (bench/kshim/rt-model.c),
 * counting per I/O what the allocator costs in cache-line transfers, locked
 * instructions, contended locks, interrupt toggles, remote per-CPU memory and
 * memory in bytes.
 *
 * Reads one scenario per line on stdin:
 *
 *	ALLOC POSSIBLE USERS DEPTH INFLIGHT COMPLETION IOS SEED
 *
 * ALLOC is sbitmap or pool; POSSIBLE the possible CPUs (nr_cpu_ids); USERS
 * the CPUs that submit I/O to this tag space (CPUs 0 .. USERS - 1: those
 * mapped to one hardware queue, or all of them for host-wide shared tags);
 * INFLIGHT the I/Os each keeps in flight; COMPLETION "self" (each CPU
 * completes its own I/Os), "irq" (CPU 0 completes every I/O, as the one
 * interrupt CPU of the queue) or "other" (CPU n's I/Os complete on CPU n + 1,
 * which never sleeps for a tag but retries: the native benchmark's "cross");
 * IOS the I/Os measured, after a warm-up: at least IOS / 4 I/Os, and until
 * every CPU completed twice its in-flight I/Os and 8 more (so that every
 * CPU has joined and filled what it keeps), but at most 16 x IOS I/Os: 256
 * CPUs joining a pool at once queue on its lock, and the model runs the
 * holder 1/256th of the time, so the last joins may come some 40000 I/Os
 * in.  Writes one tab-separated line per scenario, with a header first.
 *
 * Each scenario ends with checks that fail the run (exit status 1): no tag
 * handed out twice, every tag free again, and all DEPTH tags allocatable
 * from one CPU (none stranded).
 *
 * With KSHIM_PROFILE set, each scenario also prints on stderr the lines with
 * the most transfers, the code addresses that made most of them (give them
 * to addr2line -f -i -e OUT/scale) and the pool's counters
 * (percpu_tag_pool_stats()) per I/O measured.
 */
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
};

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
	bool parked;		/* waits for one of its I/Os to complete */
	bool done;
};

struct run {
	const struct scenario *s;
	struct tags *tags;
	struct cpu_state *cpu;
	struct ring device;	/* I/Os waiting for the interrupt CPU */
	bool irq_parked;
	unsigned char *owner;	/* per tag: handed out? */
	unsigned long completed, warm_min, warm_max, warm_each, stop_at;
	unsigned int nr_warm;	/* CPUs that completed warm_each I/Os */
	bool measuring;
	unsigned long nr_inflight, nr_getting;
	bool stop;
	unsigned long nowait_fails;
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

static int get_tag(struct run *run, bool wait)
{
	int tag;

	kshim_model_op_begin();
	tag = tags_get(run->tags, wait);
	if (tag < 0) {
		if (wait)
			fail(run, "a waiting allocation returned no tag", 0);
		else
			run->nowait_fails++;
		return -1;
	}
	if ((unsigned int)tag >= run->s->depth || run->owner[tag])
		fail(run, "tag handed out twice or out of range", tag);
	else
		run->owner[tag] = 1;
	return tag;
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

/* The I/O of @io completes on the calling CPU. */
static void complete(struct run *run, struct io io)
{
	if (!run->owner[io.tag])
		fail(run, "freeing a tag that is not handed out", io.tag);
	run->owner[io.tag] = 0;
	kshim_model_op_begin();
	tags_put(run->tags, io.tag, io.cpu);
	run->cpu[io.cpu].nr_inflight--;
	run->nr_inflight--;
	if (++run->cpu[io.cpu].completed == run->warm_each)
		run->nr_warm++;

	run->completed++;
	if (!run->measuring && run->completed >= run->warm_min &&
	    (run->nr_warm == run->s->users || run->completed >= run->warm_max)) {
		/* Read before the counts start: the reads move lines. */
		if (run->profile)
			run->nr_stats = tags_stats(run->tags, run->stats_start,
						   &run->stat_names);
		kshim_model_reset_counts();
		run->nowait_fails = 0;
		run->measuring = true;
		run->stop_at = run->completed + run->s->ios;
	} else if (run->measuring && run->completed == run->stop_at) {
		kshim_model_counts(&run->counts);
		if (run->nr_stats)
			tags_stats(run->tags, run->stats_stop, &run->stat_names);
		run->measured = run->s->ios;
		run->stop = true;
	}
}

static void submit(struct run *run, unsigned int cpu, int tag)
{
	struct io io = { .tag = tag, .cpu = cpu };

	run->cpu[cpu].nr_inflight++;
	run->nr_inflight++;
	if (run->s->completion == COMPLETE_SELF) {
		ring_push(&run->cpu[cpu].inflight, io);
		return;
	}
	if (run->s->completion == COMPLETE_OTHER) {
		ring_push(&run->cpu[(cpu + 1) % run->s->users].inflight, io);
		return;
	}
	ring_push(&run->device, io);
	if (run->irq_parked) {
		run->irq_parked = false;
		kshim_model_wake(0);
	}
}

/*
 * Each CPU keeps INFLIGHT I/Os in flight and completes its oldest; when no tag
 * is free it completes one of its own, and waits only with none in flight.
 */
static void cpu_self(struct run *run, unsigned int cpu)
{
	struct cpu_state *me = &run->cpu[cpu];
	struct io io;
	int tag;

	while (!run->stop) {
		if (me->nr_inflight == run->s->inflight) {
			ring_pop(&me->inflight, &io);
			complete(run, io);
			continue;
		}
		tag = get_tag(run, false);
		if (tag < 0 && me->nr_inflight) {
			ring_pop(&me->inflight, &io);
			complete(run, io);
			continue;
		}
		if (tag < 0)
			tag = get_tag(run, true);
		if (tag >= 0)
			submit(run, cpu, tag);
	}
	while (ring_pop(&me->inflight, &io))
		complete(run, io);
}

/* CPU 0 completes every I/O, and submits its own between completions. */
static void cpu_irq(struct run *run)
{
	struct cpu_state *me = &run->cpu[0];
	unsigned int cpu, busy;
	struct io io;
	int tag;

	for (;;) {
		while (ring_pop(&run->device, &io)) {
			complete(run, io);
			if (run->cpu[io.cpu].parked) {
				run->cpu[io.cpu].parked = false;
				kshim_model_wake(io.cpu);
			}
		}
		if (!run->stop && me->nr_inflight < run->s->inflight) {
			tag = get_tag(run, false);
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
		tag = get_tag(run, true);
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
			tag = get_tag(run, false);
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
	run.tags = tags_create(kind_of(s->alloc), s->depth, s->users);
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
	run.warm_each = 2 * s->inflight + 8;

	run_ok = !kshim_model_run(s->users, s->seed, 4, cpu_main, &run);
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
	else
		check_no_tag_lost(&run);
	kshim_mem_read(&mem);
	if (kshim_warnings() != warnings)
		fail(&run, "the kernel code warned", 0);

	per_io = run.measured ? 1.0 / run.measured : 0;
	printf("%s\t%s\t%u\t%u\t%u\t%u\t%s\t%lu\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%llu\t%llu\t%d\n",
	       s->alloc, tags_pool_name, s->possible, s->users, s->depth,
	       s->inflight, completion_names[s->completion],
	       run.measured, c->transfers * per_io, c->transfers_read * per_io,
	       c->locked_rmw * per_io, c->fences * per_io,
	       c->contended_locks * per_io, c->irq_toggles * per_io,
	       c->remote_touches * per_io, c->accesses * per_io,
	       run.nowait_fails * per_io,
	       (unsigned long long)mem.kmalloc, (unsigned long long)mem.percpu,
	       run.errors);
	fflush(stdout);

	tags_destroy(run.tags);
	for (i = 0; i < s->users; i++)
		free(run.cpu[i].inflight.io);
	free(run.cpu);
	free(run.device.io);
	free(run.owner);
	return run.errors ? 1 : 0;
}

int main(void)
{
	struct scenario s;
	char completion[8], line[256];
	int status = 0;

	printf("alloc\tsource\tpossible\tusers\tdepth\tinflight\tcompletion\tios\ttransfers\ttransfers_read\tlocked_rmw\tfences\tcontended_locks\tirq_toggles\tremote_touches\taccesses\tnowait_fails\tmem_kmalloc\tmem_percpu\terrors\n");
	while (fgets(line, sizeof(line), stdin)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%15s %u %u %u %u %7s %lu %llu", s.alloc,
			   &s.possible, &s.users, &s.depth, &s.inflight,
			   completion, &s.ios, &s.seed) != 8)
			completion[0] = 0;
		for (s.completion = 0; s.completion < 3; s.completion++)
			if (!strcmp(completion, completion_names[s.completion]))
				break;
		if (!s.users || s.users > s.possible || !s.depth || !s.inflight ||
		    s.completion == 3) {
			fprintf(stderr, "bench-scale: bad scenario: %s", line);
			return 2;
		}
		status |= run_scenario(&s);
	}
	return status;
}
