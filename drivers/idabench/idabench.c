// SPDX-License-Identifier: GPL-2.0
/*
 * idabench: tag_ida against the kernel's xarray-based IDA, in the same boot.
 *
 * On load, for each size in @sizes and each repetition (tag_ida and IDA
 * interleaved), it allocates ids 0..n-1 one call at a time from an empty
 * allocator, records the memory the allocator holds, then frees them in
 * order.  Then it allocates n ids 32 at a time with tag_ida_alloc_many()
 * and frees them 32 at a time with tag_ida_free_many().  One line per
 * measurement goes to the kernel log:
 *
 *   idabench: alloc=tag_ida n=1024 rep=1 ns_per_alloc=.. ns_per_free=..
 *     bytes=.. milli_bits_per_id=..
 *
 * Memory: for tag_ida, its tree array (layout.nr_nodes words).  For IDA,
 * its 128-byte bitmaps plus its xarray nodes, both counted from the indices
 * present in the xarray (slab rounding not included for either).
 *
 * The module then refuses to stay loaded (-EAGAIN).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/idr.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/tag_ida.h>
#include <linux/xarray.h>

static unsigned int sizes[4] = { 1024, 65536, 1048576 };
static int nr_sizes = 3;
module_param_array(sizes, uint, &nr_sizes, 0444);
MODULE_PARM_DESC(sizes, "Numbers of dense ids to allocate (default 1024,65536,1048576)");

static unsigned int reps = 3;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "Repetitions of each measurement (default 3)");

#define IDABENCH_GANG	32U

static void idabench_report(const char *alloc, unsigned int n, unsigned int rep,
			    u64 alloc_ns, u64 free_ns, u64 bytes)
{
	pr_info("alloc=%s n=%u rep=%u ns_per_alloc=%llu ns_per_free=%llu bytes=%llu milli_bits_per_id=%llu\n",
		alloc, n, rep, div_u64(alloc_ns, n), div_u64(free_ns, n), bytes,
		div_u64(bytes * 8 * 1000, n));
}

/* Memory of a dense IDA: bitmaps plus the xarray nodes above them. */
static u64 idabench_ida_bytes(struct ida *ida)
{
	unsigned long index, last[XA_CHUNK_SHIFT] = {};
	u64 nodes = 0, bitmaps = 0, max = 0;
	unsigned int level;
	void *entry;

	/* A node at level k covers 64^(k+1) indices; count distinct ones. */
	xa_for_each(&ida->xa, index, entry) {
		if (!xa_is_value(entry))
			bitmaps++;
		max = index;
		for (level = 0; level < XA_CHUNK_SHIFT; level++) {
			unsigned long node = (index >> (XA_CHUNK_SHIFT * (level + 1))) + 1;

			if (last[level] != node) {
				last[level] = node;
				nodes++;
			}
		}
	}
	/* Only the levels below the top: a lone index 0 needs no node. */
	for (level = 0; level < XA_CHUNK_SHIFT; level++)
		if (max < (1UL << (XA_CHUNK_SHIFT * level)))
			nodes--;
	return bitmaps * sizeof(struct ida_bitmap) + nodes * sizeof(struct xa_node);
}

/* Either allocator, behind the same four operations. */
union idabench_allocator {
	struct tag_ida tag_ida;
	struct ida ida;
};

struct idabench_ops {
	const char *name;
	void (*init)(union idabench_allocator *a);
	int (*alloc)(union idabench_allocator *a);
	void (*free)(union idabench_allocator *a, unsigned int id);
	u64 (*bytes)(union idabench_allocator *a);
	void (*destroy)(union idabench_allocator *a);
};

static void bench_tag_ida_init(union idabench_allocator *a)
{
	tag_ida_init(&a->tag_ida);
}

static int bench_tag_ida_alloc(union idabench_allocator *a)
{
	return tag_ida_alloc(&a->tag_ida, GFP_KERNEL);
}

static void bench_tag_ida_free(union idabench_allocator *a, unsigned int id)
{
	tag_ida_free(&a->tag_ida, id);
}

static void bench_tag_ida_destroy(union idabench_allocator *a)
{
	tag_ida_destroy(&a->tag_ida);
}

static u64 bench_tag_ida_bytes(union idabench_allocator *a)
{
	return (u64)a->tag_ida.layout.nr_nodes * sizeof(unsigned long);
}

static void bench_ida_init(union idabench_allocator *a)
{
	ida_init(&a->ida);
}

static int bench_ida_alloc(union idabench_allocator *a)
{
	return ida_alloc(&a->ida, GFP_KERNEL);
}

static void bench_ida_free(union idabench_allocator *a, unsigned int id)
{
	ida_free(&a->ida, id);
}

static u64 bench_ida_bytes(union idabench_allocator *a)
{
	return idabench_ida_bytes(&a->ida);
}

static void bench_ida_destroy(union idabench_allocator *a)
{
	ida_destroy(&a->ida);
}

static const struct idabench_ops idabench_allocators[] = {
	{ "tag_ida", bench_tag_ida_init, bench_tag_ida_alloc, bench_tag_ida_free,
	  bench_tag_ida_bytes, bench_tag_ida_destroy },
	{ "ida", bench_ida_init, bench_ida_alloc, bench_ida_free,
	  bench_ida_bytes, bench_ida_destroy },
};

/* Allocate ids 0..n-1 one call at a time, note the memory, free them in order. */
static int idabench_dense(const struct idabench_ops *ops, unsigned int n,
			  unsigned int rep)
{
	union idabench_allocator *a = kzalloc(sizeof(*a), GFP_KERNEL);
	u64 t0, t1, t2, bytes;
	int ret = 0, id;
	unsigned int i;

	if (!a)
		return -ENOMEM;
	ops->init(a);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		id = ops->alloc(a);
		if (id != i) {
			pr_err("%s handed out %d, expected %u\n", ops->name, id, i);
			ret = -EIO;
			n = i;
			break;
		}
	}
	t1 = ktime_get_ns();
	bytes = ops->bytes(a);
	for (i = 0; i < n; i++)
		ops->free(a, i);
	t2 = ktime_get_ns();
	ops->destroy(a);
	kfree(a);
	if (!ret)
		idabench_report(ops->name, n, rep, t1 - t0, t2 - t1, bytes);
	return ret;
}

static int idabench_tag_ida_ganged(unsigned int n, unsigned int rep)
{
	unsigned int ids[IDABENCH_GANG], done;
	struct tag_ida ida;
	u64 t0, t1, t2;
	int got;

	tag_ida_init(&ida);
	t0 = ktime_get_ns();
	for (done = 0; done < n; done += got) {
		got = tag_ida_alloc_many(&ida, ids, min_t(unsigned int, IDABENCH_GANG, n - done),
					 0, 0, GFP_KERNEL);
		if (got <= 0) {
			pr_err("tag_ida_alloc_many failed: %d\n", got);
			tag_ida_destroy(&ida);
			return -EIO;
		}
	}
	t1 = ktime_get_ns();
	for (done = 0; done < n; done += IDABENCH_GANG) {
		for (got = 0; got < IDABENCH_GANG && done + got < n; got++)
			ids[got] = done + got;
		tag_ida_free_many(&ida, ids, got);
	}
	t2 = ktime_get_ns();
	idabench_report("tag_ida_many32", n, rep, t1 - t0, t2 - t1,
			(u64)ida.layout.nr_nodes * sizeof(unsigned long));
	tag_ida_destroy(&ida);
	return 0;
}

static int __init idabench_init(void)
{
	unsigned int s, rep, a;
	int ret = 0;

	for (s = 0; s < nr_sizes; s++) {
		if (!sizes[s] || sizes[s] > (1U << 24)) {
			pr_err("size %u is not between 1 and 16M\n", sizes[s]);
			return -EINVAL;
		}
	}
	if (!reps) {
		pr_err("reps must be at least 1\n");
		return -EINVAL;
	}
	for (s = 0; s < nr_sizes && !ret; s++) {
		for (rep = 1; rep <= reps && !ret; rep++) {
			for (a = 0; a < ARRAY_SIZE(idabench_allocators) && !ret; a++)
				ret = idabench_dense(&idabench_allocators[a], sizes[s], rep);
			if (!ret)
				ret = idabench_tag_ida_ganged(sizes[s], rep);
			cond_resched();
		}
	}
	return ret ?: -EAGAIN;
}
module_init(idabench_init);

MODULE_DESCRIPTION("tag_ida against the xarray IDA: time and memory per id");
MODULE_LICENSE("GPL");
