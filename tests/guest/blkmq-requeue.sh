# A driver that answers BLK_STS_RESOURCE: null_blk's requeue fault injection
# (every tenth request refused, alternately as BLK_STS_RESOURCE and as a
# driver requeue) on two devices sharing tags of depth 1 and 2, with
# mq-deadline, tags from the pool and from the sbitmap: every I/O completes,
# fio verify passes, nothing hangs and no tag is lost.
set -eu
. "$LAB_GUEST/lib.sh"

trap 'lab_rmmod null_blk 2>/dev/null || true; lab_tag_alloc pool' EXIT
for mode in pool sbitmap; do
	for depth in 1 2; do
		echo "== tags from $mode, hw_queue_depth=$depth, requeue every 10th"
		lab_tag_alloc "$mode"
		# blocking=1: see tests/blkmq/null_blk (shared tag set flags).
		lab_modprobe null_blk queue_mode=2 nr_devices=2 shared_tags=1 \
			blocking=1 submit_queues=2 hw_queue_depth="$depth" \
			memory_backed=1 gb=1 irqmode=1 requeue=1,10,0,-1 ||
			fail "cannot load null_blk with requeue injection"
		pids=
		for d in nullb0 nullb1; do
			lab_expect_tag_alloc "$d" "$mode"
			echo mq-deadline >"/sys/block/$d/queue/scheduler"
			FIO_DEV=/dev/$d FIO_JOBS=4 FIO_SIZE=1M FIO_NAME=$mode-$depth-$d \
				lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" &
			pids="$pids $!"
		done
		for p in $pids; do
			wait "$p" || fail "fio verify failed with requeues, tags from $mode, depth $depth"
		done
		for d in nullb0 nullb1; do
			lab_expect_no_lost_tags "$d"
		done
		lab_rmmod null_blk
	done
done
