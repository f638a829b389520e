// SPDX-License-Identifier: GPL-2.0
/*
 * tagbench: cost of tag allocation, percpu tag pool against sbitmap_queue,
 * measured in the same boot.
 *
 * On load, for each depth in @depths and each repetition, it runs the same
 * workload on the pool and on an sbitmap_queue (interleaved: pool, sbitmap,
 * pool, ...): one kthread per online CPU keeps up to @inflight tags in a
 * FIFO, allocating without sleeping while it has room and the allocation
 * succeeds, freeing the oldest tag otherwise, until it has freed @pairs
 * tags.  A thread's cost is its elapsed time divided by its frees; one
 * result line per run goes to the kernel log:
 *
 *   tagbench: alloc=pool depth=8 cpus=4 inflight=4 rep=1 ns_per_pair=812
 *     fails_per_pair=0.01 alloc_local=... (pool counters)
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

enum tagbench_alloc { TAGBENCH_POOL, TAGBENCH_SBITMAP };

struct tagbench_run {
	enum tagbench_alloc alloc;
	struct percpu_tag_pool pool;
	struct sbitmap_queue sbq;
};

struct tagbench_thread {
	struct tagbench_run *run;
	struct task_struct *task;
	struct completion done;
	u64 ns;
	u64 fails;
};

static unsigned int tagbench_get(struct tagbench_run *run)
{
	int tag;

	if (run->alloc == TAGBENCH_POOL)
		return percpu_tag_alloc(&run->pool, GFP_NOWAIT);
	tag = __sbitmap_queue_get(&run->sbq);
	return tag < 0 ? TAG_FAIL : tag;
}

static void tagbench_put(struct tagbench_run *run, unsigned int tag)
{
	if (run->alloc == TAGBENCH_POOL)
		percpu_tag_free(&run->pool, tag);
	else
		sbitmap_queue_clear(&run->sbq, tag, raw_smp_processor_id());
}

static int tagbench_thread_fn(void *data)
{
	struct tagbench_thread *t = data;
	unsigned int fifo[TAGBENCH_MAX_INFLIGHT], head = 0, held = 0;
	unsigned int freed = 0, tag;
	u64 start = ktime_get_ns();

	while (freed < pairs) {
		if (held < inflight) {
			tag = tagbench_get(t->run);
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
		tagbench_put(t->run, fifo[head]);
		head = (head + 1) % inflight;
		held--;
		freed++;
		if (!(freed % 1024))
			cond_resched();
	}
	while (held--) {
		tagbench_put(t->run, fifo[head]);
		head = (head + 1) % inflight;
	}
	t->ns = ktime_get_ns() - start;
	complete(&t->done);
	return 0;
}

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
	struct percpu_tag_stats s = {};
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
		percpu_tag_pool_stats(&run->pool, &s);
	pr_info("alloc=%s depth=%u cpus=%u inflight=%u rep=%u ns_per_pair=%llu fails_per_mpair=%llu alloc_local=%llu alloc_refill=%llu alloc_stolen=%llu refills=%llu steals=%llu returns=%llu\n",
		run->alloc == TAGBENCH_POOL ? "pool" : "sbitmap", depth,
		nr_threads, inflight, rep, ns[nr_threads / 2] / pairs,
		fails * 1000000 / ((u64)pairs * nr_threads), s.alloc_local,
		s.alloc_refill, s.alloc_stolen, s.refills, s.steals_taken,
		s.returns);
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
	if (alloc == TAGBENCH_POOL)
		ret = percpu_tag_pool_init(&run->pool, depth);
	else
		ret = sbitmap_queue_init_node(&run->sbq, depth, -1, false,
					      GFP_KERNEL, NUMA_NO_NODE);
	if (ret)
		goto out;

	for_each_online_cpu(cpu) {
		threads[i].run = run;
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
	else
		sbitmap_queue_free(&run->sbq);
out:
	kfree(threads);
	kfree(run);
	return ret;
}

static int __init tagbench_init(void)
{
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
		if (!depths[d] || depths[d] > INT_MAX) {
			pr_err("depth %u is not between 1 and INT_MAX\n", depths[d]);
			return -EINVAL;
		}
	}

	for (d = 0; d < nr_depths; d++) {
		for (rep = 1; rep <= reps; rep++) {
			ret = tagbench_measure(TAGBENCH_POOL, depths[d], rep);
			if (!ret)
				ret = tagbench_measure(TAGBENCH_SBITMAP, depths[d], rep);
			if (ret) {
				pr_err("measurement failed: %d\n", ret);
				return ret;
			}
		}
	}
	return -EAGAIN;
}
module_init(tagbench_init);

MODULE_DESCRIPTION("Tag allocation cost: percpu tag pool against sbitmap_queue");
MODULE_LICENSE("GPL");
