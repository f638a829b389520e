// SPDX-License-Identifier: GPL-2.0
/*
 * native_ida: the kernel's xarray IDA (lib/idr.c over lib/xarray.c), timed
 * in userspace on the host, as the native counterpart of idabench's "ida"
 * rows.  It measures what tools/testing/tag_ida/bench.c measures for
 * tag_ida and prints its line format, so that the two can be matched per
 * size (make bench-ida-native builds it and runs it alternately with
 * bench.c; make bench-ida keeps that output as native.txt):
 *
 *       1024 ids ida        alloc   29.8 ns  free   19.9 ns  tree 1.000 bits/id (128 bytes)
 *
 * - ns per ida_alloc() and per ida_free() for 1k, 64k and 1M dense ids:
 *   ids 0..n-1 allocated one call at a time from an empty IDA, then freed
 *   in ascending order; best of ROUNDS, as bench.c does.  The IDA always
 *   grows from empty, so compare with bench.c's "grown" rows.
 * - bits of memory per id: the 128-byte ida_bitmaps (counted from the
 *   entries present) plus the 576-byte xa_nodes above them (counted by the
 *   shim's slab accounting, nr_allocated); like bench.c and idabench,
 *   neither malloc nor slab rounding is included.
 *
 * Not a module: it is built with the kernel's own lib/idr.c, lib/xarray.c
 * and lib/radix-tree.c and the userspace kernel shim of tools/testing/shared
 * (as tools/testing/radix-tree builds them), never by kbuild.
 *
 * What inflates the IDA's figures against the kernel:
 * - the shim's kmalloc() and kmem_cache_alloc() are malloc() plus atomic
 *   counters (uatomic_inc), and the node cache takes a pthread mutex;
 * - the shim fails every GFP_NOWAIT allocation, so each new bitmap and each
 *   new node costs a second trip round ida_alloc_range()'s lock (once per
 *   1024 ids and once per 64 bitmaps: small per id);
 * - a node freed by ida_free() goes through liburcu's call_rcu(), which
 *   queues it for a helper thread that frees it later, possibly on the other
 *   core during the timed loop; rcu_barrier() waits for it after each round,
 *   outside the timing.
 * The xa_lock is a pthread mutex here, as tag_ida's lock is in its shim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include "test.h"

#define ROUNDS		5

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "native_ida: %s failed\n", what);
		exit(1);
	}
}

/* Bitmaps present (value entries hold up to 62 ids inline, no bitmap). */
static unsigned long ida_bitmaps(struct ida *ida)
{
	unsigned long index, bitmaps = 0;
	void *entry;

	xa_for_each(&ida->xa, index, entry) {
		if (!xa_is_value(entry))
			bitmaps++;
	}
	return bitmaps;
}

/* Allocate ids 0..n-1, then free them in ascending order; best of ROUNDS. */
static void bench_dense(unsigned int n)
{
	double best_alloc = 1e30, best_free = 1e30, t;
	unsigned int i, round;
	size_t bytes = 0;
	struct ida ida;
	int nodes;

	for (round = 0; round < ROUNDS; round++) {
		check(nr_allocated == 0, "node accounting");
		ida_init(&ida);
		t = now_ns();
		for (i = 0; i < n; i++)
			check(ida_alloc(&ida, GFP_KERNEL) == (int)i, "alloc");
		best_alloc = min(best_alloc, (now_ns() - t) / n);
		nodes = nr_allocated;
		bytes = ida_bitmaps(&ida) * sizeof(struct ida_bitmap) +
			nodes * sizeof(struct xa_node);

		t = now_ns();
		for (i = 0; i < n; i++)
			ida_free(&ida, i);
		best_free = min(best_free, (now_ns() - t) / n);
		check(ida_is_empty(&ida), "free");
		ida_destroy(&ida);
		rcu_barrier();
	}
	printf("%8u ids %-9s  alloc %6.1f ns  free %6.1f ns  tree %.3f bits/id (%zu bytes)\n",
	       n, "ida", best_alloc, best_free, (double)bytes * 8 / n, bytes);
}

int main(void)
{
	static const unsigned int sizes[] = { 1024, 65536, 1 << 20 };
	unsigned int i;

	rcu_register_thread();
	radix_tree_init();
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		bench_dense(sizes[i]);
	rcu_barrier();
	rcu_unregister_thread();
	return 0;
}
