// SPDX-License-Identifier: GPL-2.0
/*
 * The tag allocators under test, driven the way blk-mq drives them
 * (block/blk-mq-tag.c of the patched tree): an sbitmap_queue with
 * blk_mq_get_tag()'s wait loop and sbitmap_queue_clear() with the allocating
 * CPU, or a percpu_tag_pool with the loop blk-mq waits in for it
 * (blk_mq_wait_pool_tag()) and percpu_tag_free_to() with the allocating
 * CPU; blk_mq_get_tags()' and blk_mq_put_tags()' batches; and, for a tag set
 * shared among request queues, hctx_may_queue()'s fair share with each
 * queue's count of active requests.  Compiled with the kshim against the
 * patched tree's headers; in the model this file is instrumented like lib/,
 * so the wait loops' accesses (their entries on the stack included) count.
 *
 * The pool's API used here, all of it from include/linux/percpu_tags.h, is
 * what to adapt for a pool with another one:
 * - percpu_tag_pool_init(), percpu_tag_pool_destroy(), percpu_tag_pool_depth(),
 *   percpu_tag_pool_nr_free(), percpu_tag_pool_expect_users() (weak: absent
 *   before the second design);
 * - percpu_tag_alloc(pool, GFP_NOWAIT), percpu_tag_free_to() (weak: else
 *   percpu_tag_free()); before TAGS_POOL_API 3 percpu_tag_alloc_batch() and
 *   percpu_tag_free_batch() (since, blk_mq_get_tags() batches no pool tags
 *   and blk_mq_put_tags() frees them one by one);
 * - blk-mq's wait loop, in pool_get_wait() below, as the series has it:
 *   TAGS_POOL_API 2 (from the second design on) percpu_tag_init_wait(),
 *   _prepare_wait(), _alloc_queued(pool, limit), _take_raced(),
 *   _finish_wait(pool, w, keep), _account_wait(), a may_take() for the fair
 *   share, percpu_tag_pool_stats(); TAGS_POOL_API 1 (the first design)
 *   _prepare_wait(pool, entry, exclusive), _alloc_queued(pool),
 *   _finish_wait(pool, entry, pass_on), _account_wait().
 *   TAGS_POOL_API 3 (the series split for review): percpu_tag_pool_init()
 *   with the CPUs mapped to the queue, DEFINE_PERCPU_TAG_WAIT(),
 *   _prepare_wait(pool, w, exclusive), _finish_wait(pool, w, used_wakeup), and
 *   with CONFIG_PERCPU_TAGS_STATS percpu_tag_pool_stats() (KSHIM_PROFILE).
 * build.sh sets TAGS_POOL_API from the header: 3 if it declares
 * percpu_tag_add_waiter(), 2 if percpu_tag_take_raced(), else 1.
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/percpu_tags.h>
#include <linux/sbitmap.h>
#include <linux/slab.h>

#include "../kshim/runtime.h"
#include "alloc.h"

#ifndef TAGS_POOL_NAME
#define TAGS_POOL_NAME "pool"
#endif
#ifndef TAGS_POOL_API
#define TAGS_POOL_API 2
#endif
const char tags_pool_name[] = TAGS_POOL_NAME;

/*
 * Frees the tag into the allocating CPU's cache, as blk_mq_put_tag() does;
 * weak so that a pool built from an older series, which lacks it, is freed
 * with percpu_tag_free() instead.
 */
#pragma weak percpu_tag_free_to
void percpu_tag_free_to(struct percpu_tag_pool *pool, unsigned int tag,
			unsigned int cpu);

/*
 * Sizes the caches by the CPUs mapped to the queue, as blk-mq does; weak for
 * a pool built from a series that lacks it.
 */
#pragma weak percpu_tag_pool_expect_users
void percpu_tag_pool_expect_users(struct percpu_tag_pool *pool,
				  unsigned int nr_users);

/* Most tags blk_mq_get_tags() takes at once (block/blk-mq.h). */
#define BLK_MQ_MAX_TAG_BATCH	BITS_PER_LONG

/*
 * The head of struct blk_mq_tags (include/linux/blk-mq.h): active_queues,
 * which every hctx_may_queue() reads, shares its line with the head of the
 * embedded sbitmap_queue; with the pool both sbitmap_queues stay, unused.
 */
struct blk_tags {
	unsigned int nr_tags;
	unsigned int nr_reserved_tags;
	unsigned int active_queues;
	struct sbitmap_queue bitmap_tags;
	struct sbitmap_queue breserved_tags;
	struct percpu_tag_pool *pool;
	struct percpu_tag_pool *reserved_pool;
};

/*
 * What the tag paths touch of a request queue and its hardware queue: the
 * queue's requests in flight on a shared tag set
 * (nr_active_requests_shared_tags) and the hardware queue's wait_index
 * (bt_wait_ptr()), each on a line of its own in much larger structures.
 */
struct blk_queue {
	atomic_t nr_active ____cacheline_aligned_in_smp;
	atomic_t wait_index ____cacheline_aligned_in_smp;
};

struct tags {
	enum tags_kind kind;
	unsigned int depth;
	struct blk_tags *bt;
	struct sbitmap_queue *sbq;	/* &bt->bitmap_tags, for the sbitmap */
	struct percpu_tag_pool *pool;
	unsigned int nr_queues;		/* in queues[] */
	struct blk_queue **queues;
	bool shared;			/* nr_queues > 1, the fair share on */
	/* kmalloc()ed bytes of bt and of the queues, as the kernel counts them */
	unsigned long bt_bytes, queue_bytes;
	unsigned int null_next;
};

/* kmalloc()ed bytes since @before (the kernel's count of them). */
static unsigned long kmalloc_since(const struct kshim_mem *before)
{
	struct kshim_mem now;

	kshim_mem_read(&now);
	return now.kmalloc - before->kmalloc;
}

/* Make @t's queues @nr request queues; their memory counts in blk_bytes. */
static int alloc_queues(struct tags *t, unsigned int nr)
{
	struct kshim_mem before;
	unsigned int i;

	kshim_mem_read(&before);
	t->queues = calloc(nr, sizeof(*t->queues));
	if (!t->queues)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		t->queues[i] = kzalloc(sizeof(*t->queues[i]), GFP_KERNEL);
		if (!t->queues[i])
			return -ENOMEM;
		/* Both allocators pay it alike; wait_index is sbitmap's loop's. */
		kshim_mark_blk_mq(&t->queues[i]->nr_active, sizeof(atomic_t));
	}
	t->nr_queues = nr;
	t->queue_bytes = kmalloc_since(&before);
	return 0;
}

static void free_queues(struct tags *t)
{
	unsigned int i;

	for (i = 0; t->queues && i < t->nr_queues; i++)
		kfree(t->queues[i]);
	free(t->queues);
	t->queues = NULL;
}

struct tags *tags_create(enum tags_kind kind, unsigned int depth,
			 unsigned int users)
{
	struct tags *t = calloc(1, sizeof(*t));
	struct kshim_mem before;

	if (!t)
		return NULL;
	t->kind = kind;
	t->depth = depth;
	kshim_mem_read(&before);
	t->bt = kzalloc(sizeof(*t->bt), GFP_KERNEL);
	t->bt_bytes = kmalloc_since(&before);
	if (!t->bt || alloc_queues(t, 1))
		goto fail;
	t->bt->nr_tags = depth;
	if (kind == TAGS_SBITMAP) {
		t->sbq = &t->bt->bitmap_tags;
		if (sbitmap_queue_init_node(t->sbq, depth, -1, false, GFP_KERNEL,
					    NUMA_NO_NODE)) {
			t->sbq = NULL;
			goto fail;
		}
	} else if (kind == TAGS_POOL) {
#if TAGS_POOL_API >= 3
		struct cpumask cpus;
		unsigned int cpu;

		/* As blk-mq does: a cache for each CPU mapped to the queue. */
		cpumask_clear(&cpus);
		for (cpu = 0; cpu < (users ? users : nr_cpu_ids); cpu++)
			cpumask_set_cpu(cpu, &cpus);
		t->pool = kzalloc(sizeof(*t->pool), GFP_KERNEL);
		if (!t->pool || percpu_tag_pool_init(t->pool, depth, &cpus))
			goto fail;
		t->bt->pool = t->pool;
#else
		t->pool = kzalloc(sizeof(*t->pool), GFP_KERNEL);
		if (!t->pool || percpu_tag_pool_init(t->pool, depth))
			goto fail;
		t->bt->pool = t->pool;
		/* As blk-mq does, with the CPUs mapped to the queue. */
		if (users && percpu_tag_pool_expect_users)
			percpu_tag_pool_expect_users(t->pool, users);
#endif
	}
	return t;
fail:
	kfree(t->pool);
	kfree(t->bt);
	free_queues(t);
	free(t);
	return NULL;
}

int tags_set_queues(struct tags *t, unsigned int nr_queues)
{
	/* Back to one queue: the fair share off, the queues kept. */
	t->shared = false;
	if (nr_queues < 2)
		return 0;
	if (nr_queues != t->nr_queues) {
		free_queues(t);
		if (alloc_queues(t, nr_queues))
			return -ENOMEM;
	}
	t->shared = true;
	/* All active: __blk_mq_tag_busy(), and its wake batch for sbitmap. */
	WRITE_ONCE(t->bt->active_queues, nr_queues);
	if (t->sbq)
		sbitmap_queue_recalculate_wake_batch(t->sbq, nr_queues);
	return 0;
}

void tags_destroy(struct tags *t)
{
	if (t->sbq)
		sbitmap_queue_free(t->sbq);
	if (t->pool) {
		percpu_tag_pool_destroy(t->pool);
		kfree(t->pool);
	}
	kfree(t->bt);
	free_queues(t);
	free(t);
}

unsigned long tags_blk_bytes(struct tags *t)
{
	return t->bt_bytes + t->queue_bytes;
}

#if TAGS_POOL_API >= 3 && defined(CONFIG_PERCPU_TAGS_STATS)
/* Names of enum percpu_tag_stat's counters, in its order. */
static const char *const percpu_tag_stat_names[] = {
	"alloc_local", "alloc_shared", "alloc_stolen", "refills", "returns",
	"scarce_entries", "waits", "fails",
};
static_assert(ARRAY_SIZE(percpu_tag_stat_names) == PERCPU_TAG_NR_STATS);
#endif

unsigned int tags_stats(struct tags *t, unsigned long long *count,
			const char *const **names)
{
#if TAGS_POOL_API == 2 || (TAGS_POOL_API >= 3 && defined(CONFIG_PERCPU_TAGS_STATS))
	struct percpu_tag_stats sum;
	unsigned int i;

	if (t->kind != TAGS_POOL)
		return 0;
	BUILD_BUG_ON(PERCPU_TAG_NR_STATS > TAGS_MAX_STATS);
	percpu_tag_pool_stats(t->pool, &sum);
	for (i = 0; i < PERCPU_TAG_NR_STATS; i++)
		count[i] = sum.count[i];
	*names = percpu_tag_stat_names;
	return PERCPU_TAG_NR_STATS;
#else
	return 0;
#endif
}

/* The request queue of the CPU @cpu submits on (CPU c: queue c % nr). */
static struct blk_queue *queue_of(struct tags *t, unsigned int cpu)
{
	return t->queues[t->shared ? cpu % t->nr_queues : 0];
}

/*
 * hctx_may_queue(): on a tag set shared among active queues, a queue keeps
 * to its fair share of the depth, at least 4 tags.
 */
static bool may_queue(struct tags *t, struct blk_queue *q)
{
	unsigned int depth, users, tags_depth;

	if (!t->shared)
		return true;
	tags_depth = t->pool ? percpu_tag_pool_depth(t->pool) : t->sbq->sb.depth;
	if (tags_depth == 1)
		return true;
	users = READ_ONCE(t->bt->active_queues);
	if (!users)
		return true;
	depth = max((tags_depth + users - 1) / users, 4U);
	return atomic_read(&q->nr_active) < depth;
}

/*
 * One try at a tag without sleeping, at most @shallow of them if not 0
 * (blk_mq_tags_get()); or -1.  Only a pool of TAGS_POOL_API 3 is asked for a
 * limited allocation: tags_get_shallow() refuses @shallow for older ones.
 */
static int get_once(struct tags *t, unsigned int shallow)
{
	unsigned int tag;

	if (t->kind == TAGS_SBITMAP)
		return shallow ? sbitmap_queue_get_shallow(t->sbq, shallow) :
				 __sbitmap_queue_get(t->sbq);
#if TAGS_POOL_API >= 3
	if (shallow)
		tag = percpu_tag_alloc_limited(t->pool, shallow);
	else
#endif
		tag = percpu_tag_alloc(t->pool, GFP_NOWAIT);
	return tag == TAG_FAIL ? -1 : (int)tag;
}

/*
 * __blk_mq_get_tag(): a tag within the fair share, without sleeping, or -1;
 * @queued: the caller is on the pool's wait queue (percpu_tag_alloc_queued()
 * before TAGS_POOL_API 3); @shallow: as for get_once().
 */
static int get_nowait(struct tags *t, struct blk_queue *q, bool queued,
		      unsigned int shallow)
{
	if (t->shared && !may_queue(t, q))
		return -1;
#if TAGS_POOL_API <= 2
	if (t->kind == TAGS_POOL) {
		unsigned int tag;

#if TAGS_POOL_API == 2
		tag = queued ? percpu_tag_alloc_queued(t->pool, UINT_MAX) :
			       percpu_tag_alloc(t->pool, GFP_NOWAIT);
#else
		tag = queued ? percpu_tag_alloc_queued(t->pool) :
			       percpu_tag_alloc(t->pool, GFP_NOWAIT);
#endif
		return tag == TAG_FAIL ? -1 : (int)tag;
	}
#endif
	return get_once(t, shallow);
}

/* blk_mq_get_tag()'s loop for the sbitmap, without running the queue. */
static int sbitmap_get_wait(struct tags *t, struct blk_queue *q, unsigned int shallow)
{
	struct sbq_wait_state *ws = sbq_wait_ptr(t->sbq, &q->wait_index);
	DEFINE_SBQ_WAIT(wait);
	int tag;

	for (;;) {
		tag = get_nowait(t, q, false, shallow);
		if (tag >= 0)
			break;
		sbitmap_prepare_to_wait(t->sbq, ws, &wait, TASK_UNINTERRUPTIBLE);
		tag = get_nowait(t, q, false, shallow);
		if (tag >= 0)
			break;
		io_schedule();
		sbitmap_finish_wait(t->sbq, ws, &wait);
		ws = sbq_wait_ptr(t->sbq, &q->wait_index);
	}
	sbitmap_finish_wait(t->sbq, ws, &wait);
	return tag;
}

#if TAGS_POOL_API >= 3
/*
 * blk_mq_get_tag()'s loop for the pool, without running the queue or a
 * change of hardware queue: try, queue, try, sleep; a tag found by the try
 * that follows a sleep used the wake-up, one found before sleeping did not.
 */
static int pool_get_wait(struct tags *t, struct blk_queue *q, unsigned int shallow)
{
	DEFINE_PERCPU_TAG_WAIT(w);
	bool woke = false;
	int got;

	for (;;) {
		got = get_nowait(t, q, false, shallow);
		if (got >= 0)
			break;
		woke = false;
		/* blk_mq_get_tag(): limited allocations queue non-exclusively. */
#ifdef PERCPU_TAG_WAIT_LIMIT
		w.limit = shallow;	/* what-if limited_wake_filter */
#endif
		percpu_tag_prepare_wait(t->pool, &w, !shallow);
		got = get_nowait(t, q, true, shallow);
		if (got >= 0)
			break;
		io_schedule();
		woke = true;
	}
	percpu_tag_finish_wait(t->pool, &w, woke);
	return got;
}
#elif TAGS_POOL_API == 2
/* blk-mq's struct blk_mq_pool_wait: the entry and what its share is of. */
struct pool_wait {
	struct percpu_tag_wait wait;
	struct tags *t;
	struct blk_queue *q;
};

/* blk_mq_pool_may_take(): a freed tag only within the queue's share. */
static bool pool_may_take(struct percpu_tag_wait *w, unsigned int tag)
{
	struct pool_wait *pw = container_of(w, struct pool_wait, wait);

	return may_queue(pw->t, pw->q);
}

/*
 * blk_mq_wait_pool_tag(), without running the queue or a change of
 * hardware queue; a shared tag set's waiter takes a tag only within its
 * queue's share (may_take).
 */
static int pool_get_wait(struct tags *t, struct blk_queue *q, unsigned int shallow)
{
	struct pool_wait pw = { .t = t, .q = q };
	u64 start = ktime_get_ns();
	bool slept = false;
	unsigned int tag;
	int got;

	percpu_tag_init_wait(&pw.wait, UINT_MAX);
	if (t->shared)
		pw.wait.may_take = pool_may_take;
	for (;;) {
		got = get_nowait(t, q, false, shallow);
		if (got >= 0)
			break;
		percpu_tag_prepare_wait(t->pool, &pw.wait);
		got = get_nowait(t, q, true, shallow);
		if (got >= 0)
			break;
		io_schedule();
		slept = true;
		/* Handed a tag, which took it off the queue? */
		if (READ_ONCE(pw.wait.tag) != TAG_FAIL) {
			if (!pw.wait.may_take || pw.wait.may_take(&pw.wait, pw.wait.tag))
				break;
			/* Over its share since the free: the next waiter's. */
			percpu_tag_finish_wait(t->pool, &pw.wait, false);
			continue;
		}
		tag = percpu_tag_take_raced(t->pool, &pw.wait);
		if (tag != TAG_FAIL) {
			got = tag;
			break;
		}
	}
	/* Keep a tag handed over unless one was found by trying. */
	if (got < 0)
		got = percpu_tag_finish_wait(t->pool, &pw.wait, true);
	else
		percpu_tag_finish_wait(t->pool, &pw.wait, false);
	if (slept)
		percpu_tag_account_wait(t->pool, ktime_get_ns() - start);
	return got;
}
#else
/*
 * The first design's blk_mq_wait_pool_tag() (kernel-patches/0004 of
 * 71e7af1), without running the queue: exclusive entries unless the tag set
 * is shared (blk_mq_alloc_is_limited()).
 */
static int pool_get_wait(struct tags *t, struct blk_queue *q, unsigned int shallow)
{
	u64 start = ktime_get_ns();
	bool slept = false;
	DEFINE_WAIT(wait);
	int got;

	for (;;) {
		got = get_nowait(t, q, false, shallow);
		if (got >= 0)
			break;
		percpu_tag_prepare_wait(t->pool, &wait, !t->shared);
		got = get_nowait(t, q, true, shallow);
		if (got >= 0) {
			percpu_tag_finish_wait(t->pool, &wait, true);
			break;
		}
		io_schedule();
		slept = true;
		percpu_tag_finish_wait(t->pool, &wait, false);
	}
	if (slept)
		percpu_tag_account_wait(t->pool, ktime_get_ns() - start);
	return got;
}
#endif

int tags_get_shallow(struct tags *t, bool wait, unsigned int shallow)
{
	struct blk_queue *q;
	int tag = -1;

	if (shallow && t->kind == TAGS_POOL && TAGS_POOL_API < 3) {
		fprintf(stderr, "bench: a pool before TAGS_POOL_API 3 is not asked for limited allocations\n");
		abort();
	}
	/* Without sharing, the first try is the allocator's alone. */
	switch (t->shared ? TAGS_NULL + 1 : t->kind) {
	case TAGS_SBITMAP:
	case TAGS_POOL:
		tag = get_once(t, shallow);
		if (tag >= 0 || !wait)
			return tag;
		break;
	case TAGS_NULL:
		return t->null_next++ % t->depth;
	default:
		break;
	}
	q = queue_of(t, raw_smp_processor_id());
	if (t->shared)
		tag = get_nowait(t, q, false, shallow);
	/* As blk_mq_get_tag(): one try, then its own wait loop. */
	if (tag < 0 && wait)
		tag = t->kind == TAGS_SBITMAP ? sbitmap_get_wait(t, q, shallow) :
						pool_get_wait(t, q, shallow);
	/* blk_mq_inc_active_requests() */
	if (tag >= 0 && t->shared)
		atomic_inc(&q->nr_active);
	return tag;
}

int tags_get(struct tags *t, bool wait)
{
	return tags_get_shallow(t, wait, 0);
}

void tags_min_shallow_depth(struct tags *t, unsigned int shallow)
{
	if (t->sbq)
		sbitmap_queue_min_shallow_depth(t->sbq, shallow);
}

void tags_put(struct tags *t, unsigned int tag, unsigned int alloc_cpu)
{
	/* __blk_mq_free_request(): uncounted, then freed. */
	if (t->shared)
		atomic_dec(&queue_of(t, alloc_cpu)->nr_active);
	if (t->kind == TAGS_SBITMAP)
		sbitmap_queue_clear(t->sbq, tag, alloc_cpu);
	else if (t->kind == TAGS_POOL && percpu_tag_free_to)
		percpu_tag_free_to(t->pool, tag, alloc_cpu);
	else if (t->kind == TAGS_POOL)
		percpu_tag_free(t->pool, tag);
}

unsigned int tags_get_batch(struct tags *t, unsigned int *tags, unsigned int nr)
{
	unsigned int offset, got = 0, i;
	unsigned long mask;

	/* blk_mq_get_tags() does not batch for a shared tag set. */
	if (t->shared || !nr)
		return 0;
	nr = min(nr, (unsigned int)BLK_MQ_MAX_TAG_BATCH);
	switch (t->kind) {
	case TAGS_SBITMAP:
		mask = __sbitmap_queue_get_batch(t->sbq, nr, &offset);
		for_each_set_bit(i, &mask, BITS_PER_LONG)
			tags[got++] = offset + i;
		return got;
	case TAGS_POOL:
#if TAGS_POOL_API >= 3
		return 0;	/* blk_mq_get_tags() batches no pool tags */
#else
		return percpu_tag_alloc_batch(t->pool, tags, nr);
#endif
	default:
		for (; got < nr; got++)
			tags[got] = t->null_next++ % t->depth;
		return got;
	}
}

void tags_put_batch(struct tags *t, unsigned int *tags, unsigned int nr,
		    unsigned int alloc_cpu)
{
	/* blk_mq_flush_tag_batch(): uncounted, then freed. */
	if (t->shared)
		atomic_sub(nr, &queue_of(t, alloc_cpu)->nr_active);
	if (t->kind == TAGS_SBITMAP) {
		sbitmap_queue_clear_batch(t->sbq, 0, (int *)tags, nr);
	} else if (t->kind == TAGS_POOL) {
		/* blk_mq_put_tags(): percpu_tag_free() of each, or the older batch call. */
#if TAGS_POOL_API >= 3
		while (nr--)
			percpu_tag_free(t->pool, *tags++);
#else
		percpu_tag_free_batch(t->pool, tags, nr);
#endif
	}
}

int tags_resize(struct tags *t, unsigned int depth)
{
#if TAGS_POOL_API >= 3
	if (t->kind == TAGS_POOL)
		return percpu_tag_pool_resize(t->pool, depth);
#endif
	return -EOPNOTSUPP;
}

unsigned int tags_nr_free(struct tags *t)
{
	if (t->kind == TAGS_SBITMAP)
		return t->depth - sbitmap_weight(&t->sbq->sb);
	if (t->kind == TAGS_POOL)
		return percpu_tag_pool_nr_free(t->pool);
	return t->depth;
}
