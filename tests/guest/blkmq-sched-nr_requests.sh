# blk-mq with its tags from the pool, then from the sbitmap, in one boot:
# while fio verify=crc32c runs on null_blk, switch the I/O scheduler round
# none, mq-deadline, kyber and bfq and write nr_requests, shrinking and
# growing the driver or scheduler tags under I/O.  Data must verify, no tag
# may be left handed out, and at least one full round must have run.
set -eu
. "$LAB_GUEST/lib.sh"

trap 'lab_rmmod null_blk 2>/dev/null || true; lab_tag_alloc pool' EXIT
q=/sys/block/nullb0/queue

for mode in pool sbitmap; do
	echo "== tags from $mode"
	lab_tag_alloc "$mode"
	lab_modprobe null_blk queue_mode=2 submit_queues=2 hw_queue_depth=64 \
		memory_backed=1 gb=1 irqmode=1 nr_devices=1 || fail "null_blk refused"
	lab_expect_tag_alloc nullb0 "$mode"
	FIO_DEV=/dev/nullb0 FIO_JOBS=$(($(nproc) * 2)) FIO_SIZE=4M FIO_NAME=$mode \
		lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" &
	fio_pid=$!
	rounds=0
	while kill -0 "$fio_pid" 2>/dev/null; do
		for sched in mq-deadline kyber bfq none; do
			echo "$sched" >"$q/scheduler" || fail "cannot switch to $sched"
			# Without a scheduler, nr_requests cannot pass the tag set's depth.
			for nr in 4 16 128 64; do
				[ "$sched" = none ] && [ "$nr" -gt 64 ] && continue
				echo "$nr" >"$q/nr_requests" ||
					fail "$sched: writing nr_requests=$nr failed"
			done
		done
		rounds=$((rounds + 1))
	done
	wait "$fio_pid" || fail "fio verify failed while switching schedulers, tags from $mode"
	[ "$rounds" -ge 2 ] || fail "only $rounds round(s) of switches ran while fio did"
	echo "$rounds rounds of scheduler switches"
	lab_expect_no_lost_tags nullb0
	lab_rmmod null_blk
done
