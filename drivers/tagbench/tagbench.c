// SPDX-License-Identifier: GPL-2.0
/*
 * tagbench: cost of tag allocation, percpu tag pool against sbitmap_queue,
 * measured in the same boot.
 *
 * On load, for each depth in @depths and each repetition, it runs the same
 * workload on the pool and on an sbitmap_queue (interleaved: pool, sbitmap,
 * pool, ...), and with the first depth the calibrations described at
 * &enum tagbench_alloc: one kthread per online CPU keeps up to @inflight tags in a
 * FIFO, allocating without sleeping while it has room and the allocation
 * succeeds, freeing the oldest tag otherwise, until it has freed @pairs
 * tags.  A thread's cost is its elapsed time divided by its frees; one
 * result line per run goes to the kernel log:
 *
 *   tagbench: alloc=pool depth=8 cpus=4 inflight=4 rep=1 ns_per_pair=812
 *     fails_per_mpair=10 alloc_local=... (pool counters)
 *
 * With CONFIG_PERCPU_TAGS_STATS the pool's lines end with its counters,
 * summed over CPUs, named as the kernel's enum percpu_tag_stat: alloc_local,
 * alloc_shared, alloc_stolen, refills, returns, scarce_entries, waits, fails.
 *
 * The module then refuses to stay loaded (-EAGAIN), like the kernel's
 * test modules, so that it can be loaded again with other parameters.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/percpu_tags.h>
#include <linux/sbitmap.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "lab_percpu_tag_stats.h"

static unsigned int depths[8] = { 8, 32, 128, 1024 };
static int nr_depths = 4;
module_param_array(depths, uint, &nr_depths, 0444);
MODULE_PARM_DESC(depths, "Tag depths to measure (default 8,32,128,1024)");

static unsigned int reps = 3;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "Repetitions of each measurement (default 3)");

static unsigned int pairs = 100000;
module_param(pairs, uint, 0444);
MODULE_PARM_DESC(pairs, "Alloc+free pairs per CPU per measurement (default 100000)");

static unsigned int inflight = 4;
module_param(inflight, uint, 0444);
MODULE_PARM_DESC(inflight, "Most tags a CPU holds at once, 1 to 64 (default 4)");

#define TAGBENCH_MAX_INFLIGHT	64

/*
 * The allocators, then calibrations that time one primitive per "alloc"
 * and per "free" with the same loop: an interrupt-disabling save/restore
 * pair, an uncontended spinlock, and an atomic bit operation on one word
 * shared by all CPUs.  They tell what the emulation charges for each.
 */
enum tagbench_alloc {
	TAGBENCH_POOL, TAGBENCH_SBITMAP,
	TAGBENCH_CALIB_IRQ, TAGBENCH_CALIB_LOCK, TAGBENCH_CALIB_ATOMIC,
	TAGBENCH_NR_KINDS,
};

static const char *const tagbench_names[TAGBENCH_NR_KINDS] = {
	"pool", "sbitmap", "calib-irqsave", "calib-spinlock", "calib-atomic",
};

struct tagbench_run {
	enum tagbench_alloc alloc;
	struct percpu_tag_pool pool;
	struct sbitmap_queue sbq;
	unsigned long shared_word;
};

struct tagbench_thread {
	struct tagbench_run *run;
	spinlock_t lock;			/* for the spinlock calibration */
	struct task_struct *task;
	struct completion done;
	u64 ns;
	u64 fails;
};

/* One primitive of a calibration; its "tag" is always 0. */
static unsigned int tagbench_calibrate(struct tagbench_thread *t)
{
	unsigned long flags;

	switch (t->run->alloc) {
	case TAGBENCH_CALIB_IRQ:
		local_irq_save(flags);
		local_irq_restore(flags);
		break;
	case TAGBENCH_CALIB_LOCK:
		spin_lock(&t->lock);
		spin_unlock(&t->lock);
		break;
	default:
		change_bit(raw_smp_processor_id() % BITS_PER_LONG,
			   &t->run->shared_word);
		break;
	}
	return 0;
}

static unsigned int tagbench_get(struct tagbench_thread *t)
{
	int tag;

	switch (t->run->alloc) {
	case TAGBENCH_POOL:
		return percpu_tag_alloc(&t->run->pool, GFP_NOWAIT);
	case TAGBENCH_SBITMAP:
		tag = __sbitmap_queue_get(&t->run->sbq);
		return tag < 0 ? TAG_FAIL : tag;
	default:
		return tagbench_calibrate(t);
	}
}

static void tagbench_put(struct tagbench_thread *t, unsigned int tag)
{
	switch (t->run->alloc) {
	case TAGBENCH_POOL:
		percpu_tag_free(&t->run->pool, tag);
		break;
	case TAGBENCH_SBITMAP:
		sbitmap_queue_clear(&t->run->sbq, tag, raw_smp_processor_id());
		break;
	default:
		tagbench_calibrate(t);
		break;
	}
}

static int tagbench_thread_fn(void *data)
{
	struct tagbench_thread *t = data;
	unsigned int fifo[TAGBENCH_MAX_INFLIGHT], head = 0, held = 0;
	unsigned int freed = 0, tag;
	u64 start = ktime_get_ns();

	while (freed < pairs) {
		if (held < inflight) {
			tag = tagbench_get(t);
			if (tag != TAG_FAIL) {
				fifo[(head + held++) % inflight] = tag;
				continue;
			}
			t->fails++;
			if (!held) {
				cpu_relax();
				continue;
			}
		}
		tagbench_put(t, fifo[head]);
		head = (head + 1) % inflight;
		held--;
		freed++;
		if (!(freed % 1024))
			cond_resched();
	}
	while (held--) {
		tagbench_put(t, fifo[head]);
		head = (head + 1) % inflight;
	}
	t->ns = ktime_get_ns() - start;
	complete(&t->done);
	return 0;
}

#ifdef CONFIG_PERCPU_TAGS_STATS
/* " name=value" for each counter of @pool, summed over CPUs, into @buf. */
static void tagbench_pool_counters(struct percpu_tag_pool *pool, char *buf,
				   size_t size)
{
	struct percpu_tag_stats s;
	unsigned int i;
	int n = 0;

	percpu_tag_pool_stats(pool, &s);
	for (i = 0; i < PERCPU_TAG_NR_STATS; i++)
		n += scnprintf(buf + n, size - n, " %s=%llu",
			       lab_percpu_tag_stat_names[i], s.count[i]);
}
#else
static void tagbench_pool_counters(struct percpu_tag_pool *pool, char *buf,
				   size_t size)
{
}
#endif

static int tagbench_cmp_u64(const void *a, const void *b)
{
	const u64 *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static void tagbench_report(struct tagbench_run *run, unsigned int depth,
			    unsigned int rep, struct tagbench_thread *threads,
			    unsigned int nr_threads)
{
	u64 *ns = kcalloc(nr_threads, sizeof(*ns), GFP_KERNEL);
	char counters[256] = "";
	u64 fails = 0;
	unsigned int i;

	if (!ns)
		return;
	for (i = 0; i < nr_threads; i++) {
		ns[i] = threads[i].ns;
		fails += threads[i].fails;
	}
	sort(ns, nr_threads, sizeof(*ns), tagbench_cmp_u64, NULL);
	if (run->alloc == TAGBENCH_POOL)
		tagbench_pool_counters(&run->pool, counters, sizeof(counters));
	pr_info("alloc=%s depth=%u cpus=%u inflight=%u rep=%u ns_per_pair=%llu fails_per_mpair=%llu%s\n",
		tagbench_names[run->alloc], depth,
		nr_threads, inflight, rep, ns[nr_threads / 2] / pairs,
		fails * 1000000 / ((u64)pairs * nr_threads), counters);
	kfree(ns);
}

static int tagbench_measure(enum tagbench_alloc alloc, unsigned int depth,
			    unsigned int rep)
{
	unsigned int nr_threads = num_online_cpus(), cpu, i = 0;
	struct tagbench_thread *threads;
	struct tagbench_run *run;
	int ret = -ENOMEM;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	threads = kcalloc(nr_threads, sizeof(*threads), GFP_KERNEL);
	if (!run || !threads)
		goto out;
	run->alloc = alloc;
	ret = 0;
	if (alloc == TAGBENCH_POOL)
		ret = percpu_tag_pool_init(&run->pool, depth,
					   cpu_possible_mask);
	else if (alloc == TAGBENCH_SBITMAP)
		ret = sbitmap_queue_init_node(&run->sbq, depth, -1, false,
					      GFP_KERNEL, NUMA_NO_NODE);
	if (ret)
		goto out;

	for_each_online_cpu(cpu) {
		threads[i].run = run;
		spin_lock_init(&threads[i].lock);
		init_completion(&threads[i].done);
		threads[i].task = kthread_create_on_cpu(tagbench_thread_fn,
							&threads[i], cpu,
							"tagbench/%u");
		if (IS_ERR(threads[i].task)) {
			ret = PTR_ERR(threads[i].task);
			break;
		}
		i++;
	}
	/* Created first, started together, so that they overlap. */
	for (cpu = 0; cpu < i; cpu++)
		wake_up_process(threads[cpu].task);
	for (cpu = 0; cpu < i; cpu++)
		wait_for_completion(&threads[cpu].done);
	if (!ret)
		tagbench_report(run, depth, rep, threads, i);

	if (alloc == TAGBENCH_POOL)
		percpu_tag_pool_destroy(&run->pool);
	else if (alloc == TAGBENCH_SBITMAP)
		sbitmap_queue_free(&run->sbq);
out:
	kfree(threads);
	kfree(run);
	return ret;
}

static int __init tagbench_init(void)
{
	enum tagbench_alloc kind;
	unsigned int d, rep;
	int ret;

	if (!inflight || inflight > TAGBENCH_MAX_INFLIGHT) {
		pr_err("inflight=%u is not between 1 and %u\n", inflight,
		       TAGBENCH_MAX_INFLIGHT);
		return -EINVAL;
	}
	if (!pairs || !reps) {
		pr_err("pairs and reps must be at least 1\n");
		return -EINVAL;
	}
	for (d = 0; d < nr_depths; d++) {
		if (!depths[d] || depths[d] > PERCPU_TAG_MAX_TAGS) {
			pr_err("depth %u is not between 1 and %u\n", depths[d],
			       PERCPU_TAG_MAX_TAGS);
			return -EINVAL;
		}
	}

	for (d = 0; d < nr_depths; d++) {
		for (rep = 1; rep <= reps; rep++) {
			/* Calibrations once per repetition, with the first depth. */
			for (kind = 0; kind < TAGBENCH_NR_KINDS; kind++) {
				if (kind > TAGBENCH_SBITMAP && d)
					break;
				ret = tagbench_measure(kind, depths[d], rep);
				if (ret) {
					pr_err("measurement failed: %d\n", ret);
					return ret;
				}
			}
		}
	}
	return -EAGAIN;
}
module_init(tagbench_init);

MODULE_DESCRIPTION("Tag allocation cost: percpu tag pool against sbitmap_queue");
MODULE_LICENSE("GPL");
