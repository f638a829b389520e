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
void tags_destroy(struct tags *t);
/*
 * A tag, or -1 when none is free and !@wait.  With @wait, sleeps until one is
 * free, as blk_mq_get_tag() does (its sbitmap loop, or the pool's own wait).
 */
int tags_get(struct tags *t, bool wait);
/* Free @tag, allocated on @alloc_cpu (blk-mq passes the request's ctx CPU). */
void tags_put(struct tags *t, unsigned int tag, unsigned int alloc_cpu);
/* Tags that can be allocated now; exact when nothing runs concurrently. */
unsigned int tags_nr_free(struct tags *t);

/*
 * The pool's counters summed over its CPUs into @count, their names into
 * @names; returns how many (at most TAGS_MAX_STATS), 0 if @t is no pool.
 */
#define TAGS_MAX_STATS 16
unsigned int tags_stats(struct tags *t, unsigned long long *count,
			const char *const **names);

#endif /* _BENCH_TAGS_ALLOC_H */
