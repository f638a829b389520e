/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tag allocators under test, as the benchmark harnesses see them: blk-mq's
 * use of an sbitmap_queue or of a percpu_tag_pool, compiled from the patched
 * kernel tree with the kshim (alloc.c).
 */
#ifndef _BENCH_TAGS_ALLOC_H
#define _BENCH_TAGS_ALLOC_H

#include <stdbool.h>

enum tags_kind { TAGS_SBITMAP, TAGS_POOL, TAGS_NULL };

struct tags;

/* Name of the pool's source, for the results ("pool" or as built). */
extern const char tags_pool_name[];

/*
 * A tag space of @depth tags; @users is the number of CPUs that will use it
 * (blk-mq knows the CPUs mapped to a hardware queue), 0 if unknown.
 */
struct tags *tags_create(enum tags_kind kind, unsigned int depth,
			 unsigned int users);
/*
 * Share the tag space among @nr_queues request queues, all active, as a
 * shared tag set is (BLK_MQ_F_TAG_QUEUE_SHARED): CPU c submits to queue
 * c % @nr_queues, and each queue keeps to its fair share of the tags
 * (hctx_may_queue()), counting its requests in an atomic of its own.
 * Below 2: one queue, no fair share (the default; after a run, so that one
 * CPU may take every tag).  Before the first tag, or with none handed out.
 */
int tags_set_queues(struct tags *t, unsigned int nr_queues);
void tags_destroy(struct tags *t);
/*
 * A tag, or -1 when none is free and !@wait.  With @wait, sleeps until one is
 * free, as blk_mq_get_tag() does (its sbitmap loop, or the pool's own wait).
 */
int tags_get(struct tags *t, bool wait);
/*
 * tags_get() for an allocation an I/O scheduler limits to a shallow depth
 * (blk_mq_alloc_data.shallow_depth, as kyber and bfq set it for async I/O):
 * together such allocations hold at most @shallow tags; 0 is tags_get().  It
 * waits non-exclusively on the pool, as blk-mq does.  Set the least shallow
 * depth first with tags_min_shallow_depth().
 */
int tags_get_shallow(struct tags *t, bool wait, unsigned int shallow);
/* blk_mq_tag_min_shallow_depth(): the least @shallow tags_get_shallow() gets. */
void tags_min_shallow_depth(struct tags *t, unsigned int shallow);
/* Free @tag, allocated on @alloc_cpu (blk-mq passes the request's ctx CPU). */
void tags_put(struct tags *t, unsigned int tag, unsigned int alloc_cpu);
/*
 * Up to @nr tags at once without sleeping, as blk_mq_get_tags() takes them
 * for a plug's batch: the number taken, 0 when none or when the tag space is
 * shared among queues (blk-mq does not batch those).
 */
unsigned int tags_get_batch(struct tags *t, unsigned int *tags, unsigned int nr);
/*
 * Free @nr tags allocated on @alloc_cpu's queue at once, on the calling CPU,
 * as blk_mq_end_request_batch() does through blk_mq_put_tags().
 */
void tags_put_batch(struct tags *t, unsigned int *tags, unsigned int nr,
		    unsigned int alloc_cpu);
/*
 * The pool's percpu_tag_pool_resize() to @depth, at most the depth it was
 * created with: 0, or negative (an error, or no pool of that API).
 */
int tags_resize(struct tags *t, unsigned int depth);
/* Tags that can be allocated now; exact when nothing runs concurrently. */
unsigned int tags_nr_free(struct tags *t);
/*
 * Bytes of what blk-mq has whichever allocator it uses (struct blk_mq_tags'
 * head with its embedded sbitmap_queues, the request queues' counters), to
 * be left out of the allocator's memory.
 */
unsigned long tags_blk_bytes(struct tags *t);

/*
 * The pool's counters summed over its CPUs into @count, their names into
 * @names; returns how many (at most TAGS_MAX_STATS), 0 if @t is no pool.
 */
#define TAGS_MAX_STATS 16
unsigned int tags_stats(struct tags *t, unsigned long long *count,
			const char *const **names);

#endif /* _BENCH_TAGS_ALLOC_H */
