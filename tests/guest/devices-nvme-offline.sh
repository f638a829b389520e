# CPU offline on NVMe with two namespaces on the controller's one tag set
# (no I/O scheduler, so both request queues share set->tags[i]), the second
# namespace slow (100 I/Os a second, make test's TEST_DEVICES), tags from
# the pool, then from sbitmap:
#  1. 128 reads of the slow namespace in flight from the last vCPU (512 in
#     all, about 5 s at 100 I/Os a second), then that vCPU goes offline:
#     the offline waits for those in flight (about 1.3 s) and the fast
#     namespace's hardware queue, which holds none, waits for nothing of
#     its own; the reads in flight just before the offline (at least 64)
#     and its time go to the log and logs/NAME.times, for both allocators;
#  2. fio verify=crc32c on both namespaces while every vCPU but the first
#     goes offline and online, again and again.
# No I/O may fail or hang, no tag be lost.
set -eu
. "$LAB_GUEST/lib.sh"

lab_need_disk labnvme0/1 labnvme0/2
lab_hotplug_cpus
last=${LAB_CPUS##* } ncpu=$(nproc)
stop=$LAB_OUT/$LAB_TEST.done pids=''
trap 'touch "$stop"; kill $pids 2>/dev/null || true; wait; lab_online_all; lab_restore_disks' EXIT
: >"$LAB_OUT/logs/$LAB_TEST.times"

for mode in pool sbitmap; do
	echo "== tags from $mode"
	d=$(lab_find_disk labnvme0/1) || fail "no disk labnvme0/1"
	lab_rebind_disk "$d" "$mode"
	fast=$(lab_wait_disk labnvme0/1) || fail "labnvme0/1 did not come back after the rebind"
	slow=$(lab_wait_disk labnvme0/2) || fail "labnvme0/2 did not come back after the rebind"
	lab_expect_tag_alloc "$fast" "$mode"
	lab_expect_tag_alloc "$slow" "$mode"

	# 1. One offline with the slow namespace's reads in flight.
	taskset -c "${last#cpu}" fio --name=hold --filename="/dev/$slow" --rw=randread \
		--bs=4k --direct=1 --ioengine=libaio --iodepth=128 --io_size=2M \
		--output="$LAB_OUT/logs/$LAB_TEST-$mode-hold.txt" &
	hold=$! pids=$!
	inflight=0
	for _ in $(seq 300); do
		read -r inflight _ <"/sys/block/$slow/inflight"
		[ "$inflight" -lt 64 ] || break
		sleep 0.05
	done
	[ "$inflight" -ge 64 ] || fail "only $inflight reads of $slow in flight"
	# The reads in flight, the offline and its time, in one shell.
	# shellcheck disable=SC2016 # the inner shell expands them
	out=$(lab_watchdog 60 sh -c '
		read -r n _ <"/sys/block/$1/inflight"
		t0=$(date +%s%N)
		echo 0 >"/sys/devices/system/cpu/$2/online" || exit 1
		echo "$n $((($(date +%s%N) - t0) / 1000000))"' - "$slow" "$last") ||
		fail "cannot offline $last"
	read -r inflight ms <<<"$out"
	echo 1 >"/sys/devices/system/cpu/$last/online"
	wait "$hold" || fail "the held reads of $slow failed across the offline of $last"
	pids=''
	[ "$inflight" -ge 64 ] || fail "only $inflight reads of $slow were in flight when $last went offline"
	echo "tags from $mode: offline of $last with $inflight reads of $slow in flight took $ms ms"
	echo "$mode offline_ms=$ms inflight=$inflight" >>"$LAB_OUT/logs/$LAB_TEST.times"

	# 2. Verify on both namespaces under CPU hotplug churn.
	times=$LAB_OUT/logs/$LAB_TEST-$mode-churn.times
	rm -f "$stop" "$times"
	lab_cpu_churn "$stop" "$times" &
	churner=$!
	FIO_DEV=/dev/$fast FIO_JOBS=$ncpu FIO_SIZE=4M FIO_NAME=$mode-fast \
		lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" &
	fio_fast=$!
	pids="$churner $fio_fast"
	FIO_DEV=/dev/$slow FIO_JOBS=1 FIO_SIZE=1M FIO_NAME=$mode-slow \
		lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" ||
		{ touch "$stop"; fail "fio verify failed on $slow under CPU hotplug, tags from $mode"; }
	wait "$fio_fast" ||
		{ touch "$stop"; fail "fio verify failed on $fast under CPU hotplug, tags from $mode"; }
	touch "$stop"
	wait "$churner" || fail "CPU hotplug churn failed"
	pids=''
	lab_online_all
	[ -s "$times" ] || fail "no CPU went offline while fio verified"
	sort -n "$times" | awk -v m="$mode" '{ t[NR] = $1 }
		END { if (NR) printf "tags from %s: %d offlines under verify, ms: median %d max %d\n",
			m, NR, t[int((NR + 1) / 2)], t[NR] }'
	lab_expect_no_lost_tags "$fast"
	lab_expect_no_lost_tags "$slow"
done
