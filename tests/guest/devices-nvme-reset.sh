# NVMe controller resets under I/O that change the controller's queues
# (make test's TEST_DEVICES), tags from the pool, then from sbitmap: the
# controller is bound with two poll queues (nvme.poll_queues=2, so its tag
# set has a poll map), then, while fio verifies crc32c on its first
# namespace, reset through sysfs again and again with poll_queues switched
# between 0 and 2: each reset remaps the hardware queues
# (blk_mq_update_nr_hw_queues(): the poll map's queues go to 0 and back,
# the default map's the other way; the total stays the controller's).  Data
# must verify, no I/O hang, no tag be left handed out, and the poll map
# must have changed.
set -eu
. "$LAB_GUEST/lib.sh"

lab_find_disk labnvme0/1 >/dev/null ||
	skip "no NVMe namespace labnvme0/1 (make test attaches TEST_DEVICES: nvme:...)"
param=/sys/module/nvme/parameters/poll_queues
[ -w "$param" ] || skip "$param is not writable"
polls=$(cat "$param")
trap 'echo "$polls" >"$param"; lab_tag_alloc pool' EXIT

# live CTRL: wait up to 60 s for the controller CTRL to be live again.
live() {
	for _ in $(seq 600); do
		[ "$(cat "/sys/class/nvme/$1/state")" = live ] && return 0
		sleep 0.1
	done
	fail "$1 is $(cat "/sys/class/nvme/$1/state") 60 s after a reset"
}

for mode in pool sbitmap; do
	echo "== tags from $mode"
	echo 2 >"$param"
	lab_rebind_disk "$(lab_find_disk labnvme0/1)" "$mode"
	ns=$(lab_wait_disk labnvme0/1) || fail "labnvme0/1 did not come back after the rebind"
	lab_expect_tag_alloc "$ns" "$mode"
	ctrl=$(basename "$(readlink -f "/sys/block/$ns/device")")
	FIO_DEV=/dev/$ns FIO_JOBS=$(nproc) FIO_SIZE=4M FIO_NAME=$mode \
		lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" &
	fio_pid=$!
	resets=0 counts=''
	while kill -0 "$fio_pid" 2>/dev/null; do
		echo $((resets % 2 * 2)) >"$param"
		echo 1 >"/sys/class/nvme/$ctrl/reset_controller" || fail "cannot reset $ctrl"
		live "$ctrl"
		resets=$((resets + 1))
		counts="$counts $(grep -lx poll /sys/kernel/debug/block/"$ns"/hctx*/type | wc -l)"
	done
	wait "$fio_pid" || fail "fio verify failed on $ns across controller resets, tags from $mode"
	[ "$resets" -ge 2 ] || fail "only $resets reset(s) ran while fio did"
	echo "tags from $mode: $resets resets of $ctrl; poll hardware queues after each:$counts"
	case " $counts " in
	*" 0 "*" 2 "*|*" 2 "*" 0 "*) ;;
	*) fail "the resets did not switch the poll queues between 0 and 2:$counts" ;;
	esac
	lab_expect_no_lost_tags "$ns"
done
