# blk-mq with its tags from the pool, then from the sbitmap: null_blk's
# timeout fault injection makes some requests time out (io_timeout 500 ms);
# fio reads on through the errors.  Every I/O must end, the timeouts must
# have happened, and no tag may be left handed out.
set -eu
. "$LAB_GUEST/lib.sh"

trap 'lab_rmmod null_blk 2>/dev/null || true; lab_tag_alloc pool' EXIT

for mode in pool sbitmap; do
	echo "== tags from $mode"
	lab_tag_alloc "$mode"
	before=$(dmesg | grep -c 'null_blk: rq .* timed out' || true)
	# timeout=interval,probability%,space,times: 20 timeouts, 5% of requests.
	lab_modprobe null_blk queue_mode=2 submit_queues="$(nproc)" hw_queue_depth=16 \
		irqmode=1 nr_devices=1 timeout=1,5,0,20 || fail "null_blk refused timeout="
	lab_expect_tag_alloc nullb0 "$mode"
	echo 500 >/sys/block/nullb0/queue/io_timeout
	FIO_WATCHDOG=120 FIO_DEV=/dev/nullb0 FIO_JOBS=$(($(nproc) * 2)) FIO_RUNTIME=5 \
		FIO_NAME=$mode lab_fio "$LAB_REPO/fio-jobs/errors-randread.fio" || true
	after=$(dmesg | grep -c 'null_blk: rq .* timed out' || true)
	[ "$after" -gt "$before" ] || fail "no request timed out: fault injection did not work"
	echo "$((after - before)) requests timed out"
	lab_expect_no_lost_tags nullb0
	lab_rmmod null_blk
done
