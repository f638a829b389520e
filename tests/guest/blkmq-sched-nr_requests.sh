# blk-mq with its tags from the pool, then from the sbitmap, in one boot:
# while fio verify=crc32c runs on null_blk, switch the I/O scheduler round
# none, mq-deadline, kyber and bfq and write nr_requests, shrinking and
# growing the driver or scheduler tags under I/O.  Data must verify, no tag
# may be left handed out, and at least one full round must have run.
set -eu
. "$LAB_GUEST/lib.sh"

trap 'lab_rmmod null_blk 2>/dev/null || true; lab_tag_alloc pool' EXIT

for mode in pool sbitmap; do
	echo "== tags from $mode"
	lab_tag_alloc "$mode"
	lab_modprobe null_blk queue_mode=2 submit_queues=2 hw_queue_depth=64 \
		memory_backed=1 gb=1 irqmode=1 nr_devices=1 || fail "null_blk refused"
	lab_expect_tag_alloc nullb0 "$mode"
	FIO_DEV=/dev/nullb0 FIO_JOBS=$(($(nproc) * 2)) FIO_SIZE=4M FIO_NAME=$mode \
		lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" &
	fio_pid=$!
	lab_sched_churn "$fio_pid" nullb0 64
	wait "$fio_pid" || fail "fio verify failed while switching schedulers, tags from $mode"
	[ "$LAB_ROUNDS" -ge 2 ] || fail "only $LAB_ROUNDS round(s) of switches ran while fio did"
	echo "$LAB_ROUNDS rounds of scheduler switches"
	lab_expect_no_lost_tags nullb0
	lab_rmmod null_blk
done
