# A virtio-scsi LUN (make test's TEST_DEVICES; its host's tags shared with a
# second LUN), tags from the pool, then from sbitmap: while fio verifies
# crc32c on both LUNs, the first LUN's I/O scheduler goes round none,
# mq-deadline, kyber and bfq and its nr_requests is written, shrinking and
# growing its driver or scheduler tags under I/O.  Data must verify, no tag
# be left handed out, and at least two full rounds must have run.
set -eu
. "$LAB_GUEST/lib.sh"

lab_need_disk labscsi0-0 labscsi0-1
pids=''
trap 'kill $pids 2>/dev/null || true; wait; lab_restore_disks' EXIT

for mode in pool sbitmap; do
	echo "== tags from $mode"
	d=$(lab_find_disk labscsi0-0) || fail "no disk labscsi0-0"
	lab_rebind_disk "$d" "$mode"
	lun0=$(lab_wait_disk labscsi0-0) || fail "labscsi0-0 did not come back after the rebind"
	lun1=$(lab_wait_disk labscsi0-1) || fail "labscsi0-1 did not come back after the rebind"
	lab_expect_tag_alloc "$lun0" "$mode"
	# The tag set's depth: nr_requests without a scheduler (with one
	# hardware queue, on 1 vCPU, the LUN starts with mq-deadline).
	echo none >"/sys/block/$lun0/queue/scheduler"
	depth=$(cat "/sys/block/$lun0/queue/nr_requests")
	FIO_DEV=/dev/$lun1 FIO_JOBS=$(nproc) FIO_SIZE=4M FIO_NAME=$mode-$lun1 \
		lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" &
	fio_other=$!
	FIO_DEV=/dev/$lun0 FIO_JOBS=$(($(nproc) * 2)) FIO_SIZE=4M FIO_NAME=$mode-$lun0 \
		lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" &
	fio_pid=$!
	pids="$fio_other $fio_pid"
	lab_sched_churn "$fio_pid" "$lun0" "$depth"
	wait "$fio_pid" || fail "fio verify failed on $lun0 while switching schedulers, tags from $mode"
	wait "$fio_other" || fail "fio verify failed on $lun1 while $lun0 switched schedulers, tags from $mode"
	pids=''
	[ "$LAB_ROUNDS" -ge 2 ] || fail "only $LAB_ROUNDS round(s) of switches ran while fio did"
	echo "tags from $mode: $LAB_ROUNDS rounds of scheduler switches on $lun0 (depth $depth)"
	lab_expect_no_lost_tags "$lun0"
	lab_expect_no_lost_tags "$lun1"
done
