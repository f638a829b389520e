// SPDX-License-Identifier: GPL-2.0
/*
 * The tag allocators under test, driven the way blk-mq drives them: an
 * sbitmap_queue with blk_mq_get_tag()'s wait loop and sbitmap_queue_clear()
 * with the allocating CPU, or a percpu_tag_pool with the loop blk-mq waits
 * in for it (blk_mq_wait_pool_tag()) and percpu_tag_free_to() with the
 * allocating CPU.  Compiled with the kshim
 * against the patched tree's headers; in the model this file is instrumented
 * like lib/, so the wait loop's accesses count too.
 */
#include <stdlib.h>

#include <linux/percpu_tags.h>
#include <linux/sbitmap.h>
#include <linux/slab.h>

#include "alloc.h"

#ifndef TAGS_POOL_NAME
#define TAGS_POOL_NAME "pool"
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

struct tags {
	enum tags_kind kind;
	unsigned int depth;
	struct sbitmap_queue *sbq;
	struct percpu_tag_pool *pool;
	atomic_t wait_index;
	unsigned int null_next;
};

struct tags *tags_create(enum tags_kind kind, unsigned int depth,
			 unsigned int users)
{
	struct tags *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->kind = kind;
	t->depth = depth;
	if (kind == TAGS_SBITMAP) {
		t->sbq = kzalloc(sizeof(*t->sbq), GFP_KERNEL);
		if (!t->sbq || sbitmap_queue_init_node(t->sbq, depth, -1, false,
						       GFP_KERNEL, NUMA_NO_NODE))
			goto fail;
	} else if (kind == TAGS_POOL) {
		t->pool = kzalloc(sizeof(*t->pool), GFP_KERNEL);
		if (!t->pool || percpu_tag_pool_init(t->pool, depth))
			goto fail;
		/* As blk-mq does, with the CPUs mapped to the queue. */
		if (users && percpu_tag_pool_expect_users)
			percpu_tag_pool_expect_users(t->pool, users);
	}
	return t;
fail:
	kfree(t->sbq);
	kfree(t->pool);
	free(t);
	return NULL;
}

void tags_destroy(struct tags *t)
{
	if (t->sbq) {
		sbitmap_queue_free(t->sbq);
		kfree(t->sbq);
	}
	if (t->pool) {
		percpu_tag_pool_destroy(t->pool);
		kfree(t->pool);
	}
	free(t);
}

unsigned int tags_stats(struct tags *t, unsigned long long *count,
			const char *const **names)
{
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
}

/* blk_mq_get_tag()'s loop for the sbitmap, without running the queue. */
static int sbitmap_get_wait(struct tags *t)
{
	struct sbq_wait_state *ws = sbq_wait_ptr(t->sbq, &t->wait_index);
	DEFINE_SBQ_WAIT(wait);
	int tag;

	for (;;) {
		tag = __sbitmap_queue_get(t->sbq);
		if (tag >= 0)
			break;
		sbitmap_prepare_to_wait(t->sbq, ws, &wait, TASK_UNINTERRUPTIBLE);
		tag = __sbitmap_queue_get(t->sbq);
		if (tag >= 0)
			break;
		io_schedule();
		sbitmap_finish_wait(t->sbq, ws, &wait);
		ws = sbq_wait_ptr(t->sbq, &t->wait_index);
	}
	sbitmap_finish_wait(t->sbq, ws, &wait);
	return tag;
}

/*
 * blk_mq_get_tag()'s loop for the pool (blk_mq_wait_pool_tag()), without
 * running the queue, a fair share or a change of hardware queue.
 */
static unsigned int pool_get_wait(struct tags *t)
{
	u64 start = ktime_get_ns();
	struct percpu_tag_wait w;
	bool slept = false;
	unsigned int tag;

	percpu_tag_init_wait(&w, UINT_MAX);
	for (;;) {
		tag = percpu_tag_alloc(t->pool, GFP_NOWAIT);
		if (tag != TAG_FAIL)
			break;
		percpu_tag_prepare_wait(t->pool, &w);
		tag = percpu_tag_alloc_queued(t->pool, UINT_MAX);
		if (tag != TAG_FAIL)
			break;
		io_schedule();
		slept = true;
		if (READ_ONCE(w.tag) != TAG_FAIL)
			break;
		tag = percpu_tag_take_raced(t->pool, &w);
		if (tag != TAG_FAIL)
			break;
	}
	/* Keep a tag handed over unless one was found by trying. */
	if (tag == TAG_FAIL)
		tag = percpu_tag_finish_wait(t->pool, &w, true);
	else
		percpu_tag_finish_wait(t->pool, &w, false);
	if (slept)
		percpu_tag_account_wait(t->pool, ktime_get_ns() - start);
	return tag;
}

int tags_get(struct tags *t, bool wait)
{
	unsigned int tag;
	int nr;

	switch (t->kind) {
	case TAGS_SBITMAP:
		nr = __sbitmap_queue_get(t->sbq);
		if (nr < 0 && wait)
			nr = sbitmap_get_wait(t);
		return nr;
	case TAGS_POOL:
		/* As blk_mq_get_tag(): one try, then its own wait loop. */
		tag = percpu_tag_alloc(t->pool, GFP_NOWAIT);
		if (tag == TAG_FAIL && wait)
			tag = pool_get_wait(t);
		return tag == TAG_FAIL ? -1 : (int)tag;
	default:
		return t->null_next++ % t->depth;
	}
}

void tags_put(struct tags *t, unsigned int tag, unsigned int alloc_cpu)
{
	if (t->kind == TAGS_SBITMAP)
		sbitmap_queue_clear(t->sbq, tag, alloc_cpu);
	else if (t->kind == TAGS_POOL && percpu_tag_free_to)
		percpu_tag_free_to(t->pool, tag, alloc_cpu);
	else if (t->kind == TAGS_POOL)
		percpu_tag_free(t->pool, tag);
}

unsigned int tags_nr_free(struct tags *t)
{
	if (t->kind == TAGS_SBITMAP)
		return t->depth - sbitmap_weight(&t->sbq->sb);
	if (t->kind == TAGS_POOL)
		return percpu_tag_pool_nr_free(t->pool);
	return t->depth;
}
