# blk-mq with its tags from the pool, then from the sbitmap: one tag for
# everything, 16 fio jobs verifying data.  First one hardware queue of depth
# 1, then one tag shared by one hardware queue per vCPU (shared_tag_bitmap)
# with mq-deadline in front.  Completions come from an hrtimer, so
# submitters really sleep for the tag.  A lost wakeup would hang: the
# watchdog (lab_watchdog, 120 s) fails the test instead, listing the
# blocked tasks in the kernel log.
set -eu
. "$LAB_GUEST/lib.sh"

trap 'lab_rmmod null_blk 2>/dev/null || true; lab_tag_alloc pool' EXIT

for mode in pool sbitmap; do
	for layout in "submit_queues=1" "submit_queues=$(nproc) shared_tag_bitmap=1"; do
		echo "== tags from $mode, hw_queue_depth=1, $layout"
		lab_tag_alloc "$mode"
		# shellcheck disable=SC2086 # layout is a list of module parameters
		lab_modprobe null_blk queue_mode=2 hw_queue_depth=1 irqmode=2 \
			completion_nsec=20000 memory_backed=1 gb=1 nr_devices=1 $layout ||
			fail "null_blk refused $layout"
		lab_expect_tag_alloc nullb0 "$mode"
		FIO_WATCHDOG=120 FIO_DEV=/dev/nullb0 FIO_JOBS=16 FIO_SIZE=256k \
			FIO_NAME="$mode-$(echo "$layout" | tr ' =' '_-')" \
			lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" ||
			fail "fio verify failed, tags from $mode, $layout"
		lab_expect_no_lost_tags nullb0
		lab_rmmod null_blk
	done
done
