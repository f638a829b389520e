# CPU hotplug under I/O with two request queues on one tag set (null_blk
# shared_tags=1, no I/O scheduler), tags from the pool and from sbitmap:
# while fio verifies crc32c on both devices, every vCPU but the first goes
# offline and online again, again and again.  No I/O may fail or hang, no
# tag be lost.  Each offline is timed (logs/NAME.times): the offline waits
# for the requests of the hardware queues that lose their last CPU.
set -eu
. "$LAB_GUEST/lib.sh"

lab_hotplug_cpus
trap 'lab_online_all; lab_rmmod null_blk 2>/dev/null || true' EXIT

for mode in pool sbitmap; do
	echo "== tags from $mode"
	# blocking=1: null_blk's shared tag set takes its flags from the module
	# parameters only; memory_backed=1 allocates pages in ->queue_rq().
	lab_modprobe null_blk queue_mode=2 nr_devices=2 shared_tags=1 no_sched=1 \
		blocking=1 submit_queues="$(nproc)" hw_queue_depth=32 \
		memory_backed=1 gb=1 irqmode=1 tag_alloc="$mode" ||
		fail "cannot load null_blk"
	for d in nullb0 nullb1; do
		lab_wait_blockdev "$d" || fail "/dev/$d did not appear"
		lab_expect_tag_alloc "$d" "$mode"
	done
	stop=$LAB_OUT/$LAB_TEST-$mode.done times=$LAB_OUT/logs/$LAB_TEST-$mode.times
	rm -f "$stop" "$times"
	lab_cpu_churn "$stop" "$times" &
	churner=$!
	pids=
	for d in nullb0 nullb1; do
		FIO_DEV=/dev/$d FIO_JOBS=$(nproc) FIO_SIZE=4M FIO_NAME=$mode-$d \
			lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || { touch "$stop"; fail "fio verify failed under CPU hotplug, tags from $mode"; }
	done
	touch "$stop"
	wait "$churner" || fail "CPU hotplug churn failed"
	lab_online_all
	sort -n "$times" | awk -v m="$mode" '{ t[NR] = $1; s += $1 }
		END { if (NR) printf "tags from %s: %d offlines, ms: min %d median %d mean %d max %d\n",
			m, NR, t[1], t[int((NR + 1) / 2)], s / NR, t[NR] }'
	lab_expect_no_lost_tags nullb0
	lab_expect_no_lost_tags nullb1
	lab_rmmod null_blk
done
