# Queue counts changed under polled I/O: a null_blk device made through
# configfs, with poll queues, while io_uring hipri jobs read from it, gets
# its submit_queues and poll_queues rewritten again and again (each a
# blk_mq_update_nr_hw_queues() with the queue frozen), tags from the pool
# and from the sbitmap.  fio must end without error, no tag be lost.
set -eu
. "$LAB_GUEST/lib.sh"

cfg=/sys/kernel/config/nullb
dev=$cfg/nullb7
remove() {
	[ -d "$dev" ] || return 0
	echo 0 >"$dev/power" 2>/dev/null || true
	rmdir "$dev"
}
trap 'remove; lab_rmmod null_blk 2>/dev/null || true; lab_tag_alloc pool' EXIT

ncpu=$(nproc)
for mode in pool sbitmap; do
	echo "== tags from $mode"
	lab_tag_alloc "$mode"
	lab_modprobe null_blk nr_devices=0 poll_queues="$ncpu" || fail "cannot load null_blk"
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mkdir "$dev"
	echo 2 >"$dev/queue_mode"
	echo 64 >"$dev/hw_queue_depth"
	echo "$ncpu" >"$dev/submit_queues"
	echo 1 >"$dev/poll_queues"
	echo 1024 >"$dev/size"
	echo 1 >"$dev/power"
	lab_wait_blockdev nullb7 || fail "configfs null_blk did not appear"
	lab_expect_tag_alloc nullb7 "$mode"
	FIO_DEV=/dev/nullb7 FIO_JOBS=$ncpu FIO_DEPTH=8 FIO_RUNTIME=8 FIO_NAME=$mode \
		lab_fio "$LAB_REPO/fio-jobs/randread-4k-poll.fio" &
	fio=$!
	i=0
	while kill -0 "$fio" 2>/dev/null; do
		echo $((i % ncpu + 1)) >"$dev/submit_queues" || fail "submit_queues refused"
		echo $((i % ncpu + 1)) >"$dev/poll_queues" || fail "poll_queues refused"
		i=$((i + 1))
		sleep 0.2
	done
	wait "$fio" || fail "polled fio failed while queue counts changed, tags from $mode"
	echo "$i queue count changes"
	lab_expect_no_lost_tags nullb7
	remove
	lab_rmmod null_blk
done
