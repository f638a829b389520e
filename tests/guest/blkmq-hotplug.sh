# CPU hotplug under I/O, tags from the pool and from the sbitmap: every vCPU
# but the first goes offline and online again, again and again, while fio
# verifies on null_blk with one hardware queue per vCPU, while the I/O
# scheduler is switched and nr_requests written.  Lockdep sees CPU hotplug
# beside blk-mq's queue freezes; no I/O may fail or hang, no tag be lost.
set -eu
. "$LAB_GUEST/lib.sh"

lab_hotplug_cpus
trap 'lab_online_all; lab_rmmod null_blk 2>/dev/null || true; lab_tag_alloc pool' EXIT

# churn STOPFILE: until STOPFILE exists, take each other vCPU offline and
# back, switching the scheduler and writing nr_requests in between.
churn() {
	local q=/sys/block/nullb0/queue i=0 c
	local scheds=(none mq-deadline kyber bfq)
	while [ ! -e "$1" ]; do
		for c in $LAB_CPUS; do
			echo 0 >"/sys/devices/system/cpu/$c/online" || fail "cannot offline $c"
			echo "${scheds[i % 4]}" >"$q/scheduler" || fail "cannot switch scheduler"
			echo $((8 << (i % 4))) >"$q/nr_requests" || fail "cannot write nr_requests"
			echo 1 >"/sys/devices/system/cpu/$c/online" || fail "cannot online $c"
			i=$((i + 1))
		done
	done
	echo "$i CPU offline/online cycles"
}

for mode in pool sbitmap; do
	echo "== tags from $mode"
	lab_tag_alloc "$mode"
	lab_modprobe null_blk queue_mode=2 submit_queues="$(nproc)" \
		hw_queue_depth=64 memory_backed=1 gb=1 irqmode=1 ||
		fail "cannot load null_blk"
	lab_expect_tag_alloc nullb0 "$mode"
	stop=$LAB_OUT/hotplug-$mode.done
	rm -f "$stop"
	churn "$stop" &
	churner=$!
	FIO_DEV=/dev/nullb0 FIO_JOBS=$(($(nproc) * 2)) FIO_SIZE=4M FIO_NAME=$mode \
		lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" ||
		{ touch "$stop"; fail "fio verify failed under CPU hotplug, tags from $mode"; }
	touch "$stop"
	wait "$churner" || fail "CPU hotplug churn failed"
	lab_online_all
	echo none >/sys/block/nullb0/queue/scheduler
	lab_expect_no_lost_tags nullb0
	lab_rmmod null_blk
done
