// SPDX-License-Identifier: GPL-2.0
/*
 * tagpool_blk: a small blk-mq RAM/null block driver whose commands also take
 * a device-wide tag, to compare tag allocators end to end.
 *
 * Modeled on drivers/block/null_blk/main.c, without configfs, zoned devices,
 * bad blocks, throttling or fault injection.
 */

/*
 * DOC: tagpool_blk
 *
 * The module creates nr_devices block devices /dev/tagpool0.. at load time.
 * Each request is completed inline in ->queue_rq(), through blk-mq's
 * ->complete() (softirq), or from a per-command hrtimer (timer).  With
 * memory_backed=1 the data is kept in pages, one xarray per device keyed by
 * sector >> PAGE_SECTORS_SHIFT, allocated on first write and freed when the
 * device goes away; never written sectors read back as zeroes.  Like null_blk,
 * memory_backed=1 implies blocking=1, since pages are allocated with
 * GFP_NOIO from ->queue_rq().
 *
 * Request tags.  tag_alloc=pool or sbitmap picks where blk-mq takes this
 * driver's request tags from (BLK_MQ_TAG_ALLOC_POOL or
 * BLK_MQ_TAG_ALLOC_SBITMAP in the tag set's ->tag_alloc), whatever blk-mq's
 * default; tag_alloc=pool needs CONFIG_BLK_MQ_TAG_POOL.
 *
 * Device tags.  With device_tags=N, every command also takes one of N
 * device-wide tags, the way a host adapter hands out command slots, from
 * either the per-CPU tag pool (device_tag_alloc=pool) or an sbitmap_queue
 * (device_tag_alloc=sbitmap).  There is one tag space per device, or one for
 * all devices with shared_tags=1.  When no tag is free, ->queue_rq() returns
 * BLK_STS_DEV_RESOURCE; it first sets the tag space's "starved" flag and
 * tries once more, and a completion frees its tag, then tests and clears the
 * flag and re-runs the queues of every device using the tag space, so one of
 * the two sees the other.  The tag is freed exactly once, at completion,
 * before blk_mq_end_request().
 *
 * Telemetry.  /sys/kernel/debug/tagpool_blk/tagpool<N>/stats prints
 * "key value" lines: requests_completed and dev_resource (->queue_rq()
 * refusals for lack of a device tag) are per-CPU counters of the device;
 * device_tag_wait_ns is the time from the first refusal on a hardware queue
 * to the next device tag allocated on that queue, summed.  With
 * CONFIG_PERCPU_TAGS_STATS, the counters of the percpu tag pools follow,
 * named as the kernel's enum percpu_tag_stat (alloc_local, alloc_shared,
 * alloc_stolen, refills, returns, scarce_entries, waits, fails): with
 * tag_alloc=pool those of blk-mq's request tag pools, summed over the tag
 * set's hardware queues, as req.<counter>, then per CPU as
 * req.cpuN.<counter> (with shared_tags=1 they are the one tag set's); with
 * device_tag_alloc=pool those of the device tag pool, summed over CPUs as
 * <counter>, then per CPU as cpuN.<counter> (with a shared tag space, the
 * shared pool's).
 *
 * Writing anything to the file resets all of them.  The pools' counters
 * cannot be reset: the driver keeps a copy of them, per CPU, taken at the
 * reset and shows the difference.  Counters are read and reset without
 * stopping I/O, so a read during I/O is a snapshot of counters taken at
 * slightly different times, and a reset during I/O may lose a few of the
 * driver's own increments.  Once I/O is idle and with no reset in between,
 * alloc_local + alloc_shared + alloc_stolen == requests_completed for a
 * device with its own pool (every tag handed out counts in exactly one of
 * the three), and the same holds for the req.* counters of a tag set that
 * is not shared.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/percpu_tags.h>
#include <linux/sbitmap.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "lab_percpu_tag_stats.h"

#define TPB_MAX_DEVICES		16
#define TPB_MAX_DEPTH		4096
#define TPB_MAX_SIZE_MB		65536
#define TPB_MAX_DEVICE_TAGS	PERCPU_TAG_MAX_TAGS
/* Backstop re-run of a queue that was refused a device tag, see tpb_refuse(). */
#define TPB_STARVED_RERUN_MS	10

static int nr_devices = 1;
module_param(nr_devices, int, 0444);
MODULE_PARM_DESC(nr_devices, "Number of devices to create (1..16). Default: 1");

static int submit_queues;
module_param(submit_queues, int, 0444);
MODULE_PARM_DESC(submit_queues, "Hardware queues per device, 0 = one per possible CPU. Default: 0");

static int hw_queue_depth = 64;
module_param(hw_queue_depth, int, 0444);
MODULE_PARM_DESC(hw_queue_depth, "Queue depth of each hardware queue (1..4096). Default: 64");

static bool shared_tags;
module_param(shared_tags, bool, 0444);
MODULE_PARM_DESC(shared_tags, "One tag set and one device tag space for all devices. Default: false");

static char *completion = "inline";
module_param(completion, charp, 0444);
MODULE_PARM_DESC(completion, "Completion: inline, softirq or timer. Default: inline");

static int completion_nsec = 10000;
module_param(completion_nsec, int, 0444);
MODULE_PARM_DESC(completion_nsec, "Completion delay in ns for completion=timer. Default: 10000");

static bool memory_backed;
module_param(memory_backed, bool, 0444);
MODULE_PARM_DESC(memory_backed, "Keep written data in memory (implies blocking). Default: false");

static bool blocking;
module_param(blocking, bool, 0444);
MODULE_PARM_DESC(blocking, "Register as a blocking blk-mq driver (BLK_MQ_F_BLOCKING). Default: false");

static int size_mb = 1024;
module_param(size_mb, int, 0444);
MODULE_PARM_DESC(size_mb, "Size of each device in MiB (1..65536). Default: 1024");

static int device_tags;
module_param(device_tags, int, 0444);
MODULE_PARM_DESC(device_tags, "Device-wide tags per tag space, 0 = none (0..65535). Default: 0");

static char *tag_alloc = "pool";
module_param(tag_alloc, charp, 0444);
MODULE_PARM_DESC(tag_alloc, "Request tag allocator of blk-mq: pool (percpu tag pool) or sbitmap. Default: pool");

static char *device_tag_alloc = "pool";
module_param(device_tag_alloc, charp, 0444);
MODULE_PARM_DESC(device_tag_alloc, "Device tag allocator: pool (percpu tag pool) or sbitmap. Default: pool");

enum tpb_completion {
	TPB_COMPLETE_INLINE,
	TPB_COMPLETE_SOFTIRQ,
	TPB_COMPLETE_TIMER,
};

enum tpb_tag_alloc {
	TPB_TAGS_POOL,
	TPB_TAGS_SBITMAP,
};

static const char * const tpb_completion_names[] = {
	[TPB_COMPLETE_INLINE]	= "inline",
	[TPB_COMPLETE_SOFTIRQ]	= "softirq",
	[TPB_COMPLETE_TIMER]	= "timer",
};

static const char * const tpb_tag_alloc_names[] = {
	[TPB_TAGS_POOL]		= "pool",
	[TPB_TAGS_SBITMAP]	= "sbitmap",
};

/* The validated configuration, filled in by tpb_validate_params(). */
static enum tpb_completion tpb_completion_mode;
static enum tpb_tag_alloc tpb_device_tag_alloc_kind;
static enum tpb_tag_alloc tpb_tag_alloc_kind;
static unsigned int tpb_nr_hw_queues;

struct tpb_dev;

/* A device tag space, owned by one device or shared by all of them. */
struct tpb_tagspace {
	struct percpu_tag_pool pool;
	struct sbitmap_queue sbq;
	/* Set when ->queue_rq() was refused a tag; see tpb_put_dev_tag(). */
	atomic_t starved;
	/* The device using this space, or NULL when all devices share it. */
	struct tpb_dev *owner;
};

struct tpb_pcpu_stats {
	u64 completed;
	u64 dev_resource;
};

struct tpb_queue {
	struct tpb_dev *dev;
	/* ktime of the first refusal since the last allocated tag, or 0. */
	atomic64_t starved_since;
};

struct tpb_dev {
	unsigned int index;
	struct gendisk *disk;
	struct blk_mq_tag_set *set;
	struct blk_mq_tag_set __set;
	struct tpb_queue *queues;
	struct tpb_tagspace *ts;
	struct xarray pages;
	struct tpb_pcpu_stats __percpu *stats;
	atomic64_t device_tag_wait_ns;
	/*
	 * The pools' counters per possible CPU at the last reset, of the
	 * request tags and of the device tags.
	 */
	struct percpu_tag_stats *req_base;
	struct percpu_tag_stats *dev_base;
	/* Serializes reads and resets of the stats file (the bases). */
	struct mutex stats_lock;
	struct dentry *dbg_dir;
	bool added;
};

struct tpb_cmd {
	struct hrtimer timer;
	struct tpb_queue *nq;
	unsigned int dev_tag;
	blk_status_t error;
};

static struct tpb_dev *tpb_devs[TPB_MAX_DEVICES];
static unsigned int tpb_nr_devs;
static struct blk_mq_tag_set tpb_shared_set;
static struct tpb_tagspace *tpb_shared_ts;
static struct dentry *tpb_dbg_root;

static int tpb_parse_choice(const char *param, const char *val,
			    const char * const *names, unsigned int nr)
{
	int i = match_string(names, nr, val);

	if (i < 0)
		pr_err("%s=%s: unknown value\n", param, val);
	return i;
}

static bool tpb_check_range(const char *param, int val, int min, int max)
{
	if (val >= min && val <= max)
		return true;
	pr_err("%s=%d: must be between %d and %d\n", param, val, min, max);
	return false;
}

/* Checks every module parameter; called once, before anything is set up. */
static int tpb_validate_params(void)
{
	int i;

	if (!tpb_check_range("nr_devices", nr_devices, 1, TPB_MAX_DEVICES))
		return -EINVAL;
	if (submit_queues &&
	    !tpb_check_range("submit_queues", submit_queues, 1, nr_cpu_ids))
		return -EINVAL;
	if (!tpb_check_range("hw_queue_depth", hw_queue_depth, 1,
			     TPB_MAX_DEPTH))
		return -EINVAL;
	if (!tpb_check_range("size_mb", size_mb, 1, TPB_MAX_SIZE_MB))
		return -EINVAL;
	if (!tpb_check_range("device_tags", device_tags, 0,
			     TPB_MAX_DEVICE_TAGS))
		return -EINVAL;

	i = tpb_parse_choice("completion", completion, tpb_completion_names,
			     ARRAY_SIZE(tpb_completion_names));
	if (i < 0)
		return -EINVAL;
	tpb_completion_mode = i;

	if (completion_nsec < 0) {
		pr_err("completion_nsec=%d: must not be negative\n",
		       completion_nsec);
		return -EINVAL;
	}
	if (tpb_completion_mode == TPB_COMPLETE_TIMER && !completion_nsec) {
		pr_err("completion_nsec=0: must be positive with completion=timer\n");
		return -EINVAL;
	}

	i = tpb_parse_choice("device_tag_alloc", device_tag_alloc,
			     tpb_tag_alloc_names,
			     ARRAY_SIZE(tpb_tag_alloc_names));
	if (i < 0)
		return -EINVAL;
	tpb_device_tag_alloc_kind = i;

	i = tpb_parse_choice("tag_alloc", tag_alloc, tpb_tag_alloc_names,
			     ARRAY_SIZE(tpb_tag_alloc_names));
	if (i < 0)
		return -EINVAL;
	tpb_tag_alloc_kind = i;
	if (tpb_tag_alloc_kind == TPB_TAGS_POOL &&
	    !IS_ENABLED(CONFIG_BLK_MQ_TAG_POOL)) {
		pr_err("tag_alloc=pool: the kernel has no CONFIG_BLK_MQ_TAG_POOL\n");
		return -EINVAL;
	}

	tpb_nr_hw_queues = submit_queues ? submit_queues : num_possible_cpus();
	return 0;
}

/* --- Device tags ------------------------------------------------------ */

static struct tpb_tagspace *tpb_tagspace_create(struct tpb_dev *owner)
{
	struct tpb_tagspace *ts;
	int ret;

	ts = kzalloc(sizeof(*ts), GFP_KERNEL);
	if (!ts)
		return NULL;
	ts->owner = owner;
	atomic_set(&ts->starved, 0);
	if (tpb_device_tag_alloc_kind == TPB_TAGS_POOL)
		ret = percpu_tag_pool_init(&ts->pool, device_tags,
					   cpu_possible_mask);
	else
		ret = sbitmap_queue_init_node(&ts->sbq, device_tags, -1, false,
					      GFP_KERNEL, NUMA_NO_NODE);
	if (ret) {
		kfree(ts);
		return NULL;
	}
	return ts;
}

static void tpb_tagspace_destroy(struct tpb_tagspace *ts)
{
	if (!ts)
		return;
	if (tpb_device_tag_alloc_kind == TPB_TAGS_POOL)
		percpu_tag_pool_destroy(&ts->pool);
	else
		sbitmap_queue_free(&ts->sbq);
	kfree(ts);
}

static unsigned int tpb_try_get_dev_tag(struct tpb_tagspace *ts)
{
	int tag;

	if (tpb_device_tag_alloc_kind == TPB_TAGS_POOL)
		return percpu_tag_alloc(&ts->pool, GFP_NOWAIT);
	tag = __sbitmap_queue_get(&ts->sbq);
	return tag < 0 ? TAG_FAIL : tag;
}

/*
 * Takes a device tag, or sets ts->starved and returns TAG_FAIL.  The
 * second try after setting the flag pairs with the barrier in
 * tpb_put_dev_tag(): either it sees the tag a completion freed, or that
 * completion sees the flag and re-runs the queues.
 */
static unsigned int tpb_get_dev_tag(struct tpb_tagspace *ts)
{
	unsigned int tag = tpb_try_get_dev_tag(ts);

	if (likely(tag != TAG_FAIL))
		return tag;
	atomic_set(&ts->starved, 1);
	/* Order setting the flag before the second try; pairs with the free. */
	smp_mb__after_atomic();
	return tpb_try_get_dev_tag(ts);
}

static void tpb_run_starved(struct tpb_tagspace *ts)
{
	unsigned int i, n = READ_ONCE(tpb_nr_devs);

	if (ts->owner) {
		blk_mq_run_hw_queues(ts->owner->disk->queue, true);
		return;
	}
	for (i = 0; i < n; i++) {
		struct tpb_dev *dev = READ_ONCE(tpb_devs[i]);

		if (dev && dev->disk)
			blk_mq_run_hw_queues(dev->disk->queue, true);
	}
}

static void tpb_put_dev_tag(struct tpb_tagspace *ts, unsigned int tag)
{
	if (tpb_device_tag_alloc_kind == TPB_TAGS_POOL)
		percpu_tag_free(&ts->pool, tag);
	else
		sbitmap_queue_clear(&ts->sbq, tag, raw_smp_processor_id());

	/* Order the free before the test of the flag, see tpb_get_dev_tag(). */
	smp_mb();
	if (atomic_read(&ts->starved) && atomic_xchg(&ts->starved, 0))
		tpb_run_starved(ts);
}

/*
 * Bookkeeping of a refusal.  device_tag_wait_ns is approximate: the
 * start of a wait is the first refusal on the hardware queue since its last
 * allocated tag, and the end is the next tag allocated on that queue, so
 * concurrent refusals on one queue count once.
 *
 * The re-run from tpb_put_dev_tag() can come after ->queue_rq() returned but
 * before blk-mq put the request back on hctx->dispatch, and then finds
 * nothing to run; if that was the last completion, blk-mq would wait for a
 * re-run forever.  The delayed re-run below is a backstop for that window.
 */
static void tpb_refuse(struct blk_mq_hw_ctx *hctx, struct tpb_queue *nq)
{
	this_cpu_inc(nq->dev->stats->dev_resource);
	if (!atomic64_read(&nq->starved_since))
		atomic64_cmpxchg(&nq->starved_since, 0, ktime_get_ns());
	blk_mq_delay_run_hw_queue(hctx, TPB_STARVED_RERUN_MS);
}

static void tpb_note_dev_tag(struct tpb_queue *nq)
{
	s64 since;

	if (likely(!atomic64_read(&nq->starved_since)))
		return;
	since = atomic64_xchg(&nq->starved_since, 0);
	if (since)
		atomic64_add(ktime_get_ns() - since,
			     &nq->dev->device_tag_wait_ns);
}

/* --- Data ------------------------------------------------------------- */

static struct page *tpb_get_page(struct tpb_dev *dev, pgoff_t idx)
{
	struct page *page, *old;

	page = xa_load(&dev->pages, idx);
	if (page)
		return page;
	page = alloc_page(GFP_NOIO | __GFP_ZERO);
	if (!page)
		return NULL;
	old = xa_cmpxchg(&dev->pages, idx, NULL, page, GFP_NOIO);
	if (!old)
		return page;
	__free_page(page);
	return xa_is_err(old) ? NULL : old;
}

static blk_status_t tpb_transfer(struct tpb_dev *dev, struct page *bpage,
				 unsigned int boff, unsigned int len,
				 sector_t sector, bool is_write)
{
	while (len) {
		pgoff_t idx = sector >> PAGE_SECTORS_SHIFT;
		unsigned int off = (sector & (PAGE_SECTORS - 1)) << SECTOR_SHIFT;
		unsigned int chunk = min_t(unsigned int, len, PAGE_SIZE - off);
		struct page *page;

		if (is_write) {
			page = tpb_get_page(dev, idx);
			if (!page)
				return BLK_STS_RESOURCE;
			memcpy_page(page, off, bpage, boff, chunk);
		} else {
			page = xa_load(&dev->pages, idx);
			if (page)
				memcpy_page(bpage, boff, page, off, chunk);
			else
				memzero_page(bpage, boff, chunk);
		}
		boff += chunk;
		len -= chunk;
		sector += chunk >> SECTOR_SHIFT;
	}
	return BLK_STS_OK;
}

static blk_status_t tpb_handle_rq(struct tpb_dev *dev, struct request *rq)
{
	bool is_write = req_op(rq) == REQ_OP_WRITE;
	sector_t sector = blk_rq_pos(rq);
	struct req_iterator iter;
	struct bio_vec bv;
	blk_status_t sts;

	if (req_op(rq) != REQ_OP_READ && !is_write)
		return BLK_STS_NOTSUPP;
	if (!memory_backed)
		return BLK_STS_OK;

	rq_for_each_segment(bv, rq, iter) {
		sts = tpb_transfer(dev, bv.bv_page, bv.bv_offset, bv.bv_len,
				   sector, is_write);
		if (sts)
			return sts;
		if (!is_write)
			flush_dcache_page(bv.bv_page);
		sector += bv.bv_len >> SECTOR_SHIFT;
	}
	return BLK_STS_OK;
}

/* --- Completion ------------------------------------------------------- */

/*
 * Frees the device tag and ends the request.  The tag goes first: once the
 * last request has ended, the device may be deleted.
 */
static void tpb_end_cmd(struct tpb_cmd *cmd)
{
	struct tpb_dev *dev = cmd->nq->dev;

	if (cmd->dev_tag != TAG_FAIL)
		tpb_put_dev_tag(dev->ts, cmd->dev_tag);
	this_cpu_inc(dev->stats->completed);
	blk_mq_end_request(blk_mq_rq_from_pdu(cmd), cmd->error);
}

static void tpb_complete_rq(struct request *rq)
{
	tpb_end_cmd(blk_mq_rq_to_pdu(rq));
}

static enum hrtimer_restart tpb_cmd_timer_expired(struct hrtimer *timer)
{
	tpb_end_cmd(container_of(timer, struct tpb_cmd, timer));
	return HRTIMER_NORESTART;
}

static void tpb_complete_cmd(struct tpb_cmd *cmd)
{
	switch (tpb_completion_mode) {
	case TPB_COMPLETE_INLINE:
		tpb_end_cmd(cmd);
		break;
	case TPB_COMPLETE_SOFTIRQ:
		blk_mq_complete_request(blk_mq_rq_from_pdu(cmd));
		break;
	case TPB_COMPLETE_TIMER:
		hrtimer_start(&cmd->timer, ns_to_ktime(completion_nsec),
			      HRTIMER_MODE_REL);
		break;
	}
}

/* --- blk-mq ----------------------------------------------------------- */

static blk_status_t tpb_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct tpb_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct tpb_queue *nq = hctx->driver_data;
	struct tpb_dev *dev = nq->dev;

	might_sleep_if(hctx->flags & BLK_MQ_F_BLOCKING);

	cmd->nq = nq;
	cmd->dev_tag = TAG_FAIL;
	if (dev->ts) {
		cmd->dev_tag = tpb_get_dev_tag(dev->ts);
		if (cmd->dev_tag == TAG_FAIL) {
			tpb_refuse(hctx, nq);
			return BLK_STS_DEV_RESOURCE;
		}
		tpb_note_dev_tag(nq);
	}

	blk_mq_start_request(rq);
	cmd->error = tpb_handle_rq(dev, rq);
	tpb_complete_cmd(cmd);
	return BLK_STS_OK;
}

static int tpb_init_hctx(struct blk_mq_hw_ctx *hctx, void *driver_data,
			 unsigned int hctx_idx)
{
	struct tpb_dev *dev = hctx->queue->queuedata;
	struct tpb_queue *nq = &dev->queues[hctx_idx];

	nq->dev = dev;
	atomic64_set(&nq->starved_since, 0);
	hctx->driver_data = nq;
	return 0;
}

static int tpb_init_request(struct blk_mq_tag_set *set, struct request *rq,
			    unsigned int hctx_idx, unsigned int numa_node)
{
	struct tpb_cmd *cmd = blk_mq_rq_to_pdu(rq);

	hrtimer_init(&cmd->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	cmd->timer.function = tpb_cmd_timer_expired;
	return 0;
}

static const struct blk_mq_ops tpb_mq_ops = {
	.queue_rq	= tpb_queue_rq,
	.complete	= tpb_complete_rq,
	.init_hctx	= tpb_init_hctx,
	.init_request	= tpb_init_request,
};

static const struct block_device_operations tpb_fops = {
	.owner		= THIS_MODULE,
};

static int tpb_init_tag_set(struct blk_mq_tag_set *set, void *driver_data)
{
	set->ops = &tpb_mq_ops;
	set->nr_hw_queues = tpb_nr_hw_queues;
	set->queue_depth = hw_queue_depth;
	set->numa_node = NUMA_NO_NODE;
	set->cmd_size = sizeof(struct tpb_cmd);
	set->flags = BLK_MQ_F_SHOULD_MERGE;
	set->tag_alloc = tpb_tag_alloc_kind == TPB_TAGS_POOL ?
		BLK_MQ_TAG_ALLOC_POOL : BLK_MQ_TAG_ALLOC_SBITMAP;
	if (blocking || memory_backed)
		set->flags |= BLK_MQ_F_BLOCKING;
	set->driver_data = driver_data;
	return blk_mq_alloc_tag_set(set);
}

/* --- Telemetry -------------------------------------------------------- */

#ifdef CONFIG_PERCPU_TAGS_STATS
/* Adds the counters of @pool on @cpu to @s. */
static void tpb_add_pool_cpu(struct percpu_tag_pool *pool, unsigned int cpu,
			     struct percpu_tag_stats *s)
{
	const struct percpu_tag_stats *c = per_cpu_ptr(pool->stats, cpu);
	unsigned int i;

	for (i = 0; i < PERCPU_TAG_NR_STATS; i++)
		s->count[i] += READ_ONCE(c->count[i]);
}

/*
 * The counters on @cpu of @dev's request tag pools: one per hardware queue
 * of its tag set, or the one they share.  Returns false if the tag set
 * takes its tags from sbitmap queues.
 */
static bool tpb_req_pools_cpu(struct tpb_dev *dev, unsigned int cpu,
			      struct percpu_tag_stats *s)
{
	bool found = false;
#ifdef CONFIG_BLK_MQ_TAG_POOL
	struct blk_mq_tag_set *set = dev->set;
	struct blk_mq_tags *prev = NULL;
	unsigned int i;
#endif

	memset(s, 0, sizeof(*s));
#ifdef CONFIG_BLK_MQ_TAG_POOL
	for (i = 0; i < set->nr_hw_queues; i++) {
		struct blk_mq_tags *tags = set->tags[i];

		if (tags && tags != prev && tags->pool) {
			tpb_add_pool_cpu(tags->pool, cpu, s);
			found = true;
		}
		prev = tags;
	}
#endif
	return found;
}

/* The counters on @cpu of @dev's device tag pool; false if it has none. */
static bool tpb_dev_pool_cpu(struct tpb_dev *dev, unsigned int cpu,
			     struct percpu_tag_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (!dev->ts || tpb_device_tag_alloc_kind != TPB_TAGS_POOL)
		return false;
	tpb_add_pool_cpu(&dev->ts->pool, cpu, s);
	return true;
}

/*
 * Prints the counters that @get reads, less those of @base: summed over
 * CPUs as @prefix<counter>, then per CPU as @prefix"cpuN."<counter>.
 * Each CPU's counters are read once, so that the sums are those of the
 * per-CPU lines.
 */
static void tpb_show_pool_stats(struct seq_file *m, struct tpb_dev *dev,
				const char *prefix,
				bool (*get)(struct tpb_dev *dev, unsigned int cpu,
					    struct percpu_tag_stats *s),
				const struct percpu_tag_stats *base)
{
	struct percpu_tag_stats *delta, sum = {};
	unsigned int cpu, i;

	delta = kcalloc(nr_cpu_ids, sizeof(*delta), GFP_KERNEL);
	if (!delta)
		return;
	for_each_possible_cpu(cpu) {
		if (!get(dev, cpu, &delta[cpu]))
			goto out;
		for (i = 0; i < PERCPU_TAG_NR_STATS; i++) {
			delta[cpu].count[i] -= base[cpu].count[i];
			sum.count[i] += delta[cpu].count[i];
		}
	}
	for (i = 0; i < PERCPU_TAG_NR_STATS; i++)
		seq_printf(m, "%s%s %llu\n", prefix, lab_percpu_tag_stat_names[i],
			   sum.count[i]);
	for_each_possible_cpu(cpu)
		for (i = 0; i < PERCPU_TAG_NR_STATS; i++)
			seq_printf(m, "%scpu%u.%s %llu\n", prefix, cpu,
				   lab_percpu_tag_stat_names[i], delta[cpu].count[i]);
out:
	kfree(delta);
}

static void tpb_show_pools(struct seq_file *m, struct tpb_dev *dev)
{
	tpb_show_pool_stats(m, dev, "req.", tpb_req_pools_cpu, dev->req_base);
	tpb_show_pool_stats(m, dev, "", tpb_dev_pool_cpu, dev->dev_base);
}

/* Takes the pools' counters now as the zero of the stats file. */
static void tpb_reset_pools(struct tpb_dev *dev)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		tpb_req_pools_cpu(dev, cpu, &dev->req_base[cpu]);
		tpb_dev_pool_cpu(dev, cpu, &dev->dev_base[cpu]);
	}
}
#else
static void tpb_show_pools(struct seq_file *m, struct tpb_dev *dev) {}
static void tpb_reset_pools(struct tpb_dev *dev) {}
#endif /* CONFIG_PERCPU_TAGS_STATS */

static int tpb_stats_show(struct seq_file *m, void *unused)
{
	struct tpb_dev *dev = m->private;
	u64 completed = 0, dev_resource = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct tpb_pcpu_stats *ps = per_cpu_ptr(dev->stats, cpu);

		completed += READ_ONCE(ps->completed);
		dev_resource += READ_ONCE(ps->dev_resource);
	}
	seq_printf(m, "requests_completed %llu\n", completed);
	seq_printf(m, "dev_resource %llu\n", dev_resource);
	seq_printf(m, "device_tag_wait_ns %lld\n",
		   atomic64_read(&dev->device_tag_wait_ns));
	mutex_lock(&dev->stats_lock);
	tpb_show_pools(m, dev);
	mutex_unlock(&dev->stats_lock);
	return 0;
}

static int tpb_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, tpb_stats_show, inode->i_private);
}

static ssize_t tpb_stats_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct tpb_dev *dev = ((struct seq_file *)file->private_data)->private;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct tpb_pcpu_stats *ps = per_cpu_ptr(dev->stats, cpu);

		WRITE_ONCE(ps->completed, 0);
		WRITE_ONCE(ps->dev_resource, 0);
	}
	atomic64_set(&dev->device_tag_wait_ns, 0);
	mutex_lock(&dev->stats_lock);
	tpb_reset_pools(dev);
	mutex_unlock(&dev->stats_lock);
	return count;
}

static const struct file_operations tpb_stats_fops = {
	.owner		= THIS_MODULE,
	.open		= tpb_stats_open,
	.read		= seq_read,
	.write		= tpb_stats_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* --- Devices ---------------------------------------------------------- */

static void tpb_free_pages(struct tpb_dev *dev)
{
	struct page *page;
	unsigned long idx;

	xa_for_each(&dev->pages, idx, page)
		__free_page(page);
	xa_destroy(&dev->pages);
}

/* Frees a device whose disk is deleted (or was never added). */
static void tpb_free_dev(struct tpb_dev *dev)
{
	if (dev->disk)
		put_disk(dev->disk);
	if (dev->set == &dev->__set)
		blk_mq_free_tag_set(dev->set);
	if (dev->ts != tpb_shared_ts)
		tpb_tagspace_destroy(dev->ts);
	tpb_free_pages(dev);
	free_percpu(dev->stats);
	mutex_destroy(&dev->stats_lock);
	kfree(dev->req_base);
	kfree(dev->dev_base);
	kfree(dev->queues);
	kfree(dev);
}

static int tpb_create_dev(unsigned int index)
{
	struct queue_limits lim = {
		.logical_block_size	= SECTOR_SIZE,
		.physical_block_size	= SECTOR_SIZE,
		.max_hw_sectors		= 1024,
	};
	struct tpb_dev *dev;
	struct gendisk *disk;
	char name[16];
	int ret = -ENOMEM;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->index = index;
	xa_init(&dev->pages);
	atomic64_set(&dev->device_tag_wait_ns, 0);
	dev->stats = alloc_percpu(struct tpb_pcpu_stats);
	dev->queues = kcalloc(tpb_nr_hw_queues, sizeof(*dev->queues),
			      GFP_KERNEL);
	dev->req_base = kcalloc(nr_cpu_ids, sizeof(*dev->req_base), GFP_KERNEL);
	dev->dev_base = kcalloc(nr_cpu_ids, sizeof(*dev->dev_base), GFP_KERNEL);
	mutex_init(&dev->stats_lock);
	if (!dev->stats || !dev->queues || !dev->req_base || !dev->dev_base)
		goto err;

	if (device_tags) {
		dev->ts = shared_tags ? tpb_shared_ts : tpb_tagspace_create(dev);
		if (!dev->ts)
			goto err;
	}

	if (shared_tags) {
		dev->set = &tpb_shared_set;
	} else {
		ret = tpb_init_tag_set(&dev->__set, dev);
		if (ret)
			goto err;
		dev->set = &dev->__set;
	}

	disk = blk_mq_alloc_disk(dev->set, &lim, dev);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto err;
	}
	dev->disk = disk;
	disk->fops = &tpb_fops;
	disk->private_data = dev;
	snprintf(disk->disk_name, DISK_NAME_LEN, "tagpool%u", index);
	set_capacity(disk, (sector_t)size_mb << (20 - SECTOR_SHIFT));

	/* Visible to tpb_run_starved() from here: I/O starts in add_disk(). */
	WRITE_ONCE(tpb_devs[index], dev);
	WRITE_ONCE(tpb_nr_devs, index + 1);
	ret = add_disk(disk);
	if (ret)
		goto err;
	dev->added = true;

	snprintf(name, sizeof(name), "tagpool%u", index);
	dev->dbg_dir = debugfs_create_dir(name, tpb_dbg_root);
	debugfs_create_file("stats", 0600, dev->dbg_dir, dev, &tpb_stats_fops);
	return 0;

err:
	WRITE_ONCE(tpb_devs[index], NULL);
	tpb_free_dev(dev);
	return ret;
}

/*
 * Deletes every disk before freeing any device: with a shared tag space a
 * completion on one device re-runs the queues of all of them.
 */
static void tpb_destroy_all(void)
{
	unsigned int i;

	debugfs_remove_recursive(tpb_dbg_root);
	tpb_dbg_root = NULL;
	for (i = 0; i < tpb_nr_devs; i++)
		if (tpb_devs[i] && tpb_devs[i]->added)
			del_gendisk(tpb_devs[i]->disk);
	for (i = 0; i < tpb_nr_devs; i++) {
		struct tpb_dev *dev = tpb_devs[i];

		if (!dev)
			continue;
		WRITE_ONCE(tpb_devs[i], NULL);
		tpb_free_dev(dev);
	}
	tpb_nr_devs = 0;
	if (tpb_shared_set.ops) {
		blk_mq_free_tag_set(&tpb_shared_set);
		tpb_shared_set.ops = NULL;
	}
	tpb_tagspace_destroy(tpb_shared_ts);
	tpb_shared_ts = NULL;
}

static int __init tpb_init(void)
{
	unsigned int i;
	int ret;

	ret = tpb_validate_params();
	if (ret)
		return ret;

	tpb_dbg_root = debugfs_create_dir(KBUILD_MODNAME, NULL);

	if (shared_tags) {
		ret = tpb_init_tag_set(&tpb_shared_set, NULL);
		if (ret) {
			tpb_shared_set.ops = NULL;
			goto err;
		}
		if (device_tags) {
			ret = -ENOMEM;
			tpb_shared_ts = tpb_tagspace_create(NULL);
			if (!tpb_shared_ts)
				goto err;
		}
	}

	for (i = 0; i < nr_devices; i++) {
		ret = tpb_create_dev(i);
		if (ret)
			goto err;
	}

	pr_info("%d device(s), %u queue(s) of depth %d, completion=%s, device_tags=%d (%s)%s%s\n",
		nr_devices, tpb_nr_hw_queues, hw_queue_depth,
		tpb_completion_names[tpb_completion_mode], device_tags,
		tpb_tag_alloc_names[tpb_device_tag_alloc_kind],
		shared_tags ? ", shared tags" : "",
		memory_backed ? ", memory backed" : "");
	return 0;

err:
	tpb_destroy_all();
	return ret;
}

static void __exit tpb_exit(void)
{
	tpb_destroy_all();
}

module_init(tpb_init);
module_exit(tpb_exit);

MODULE_DESCRIPTION("Block driver with device tags from a per-CPU tag pool or an sbitmap");
MODULE_LICENSE("GPL");
