# NVMe controller resets under I/O that change the controller's queues
# (make test's TEST_DEVICES), tags from the pool, then from sbitmap: the
# controller is bound with two poll queues (nvme.poll_queues=2, so its tag
# set has a poll map), then, while fio verifies crc32c on its first
# namespace, reset through sysfs again and again with poll_queues switched
# between 0 and 2: each reset remaps the hardware queues
# (blk_mq_update_nr_hw_queues(): the poll map's queues go to 0 and back,
# the default map's the other way; the total stays the controller's).  Data
# must verify, no I/O hang, no tag be left handed out, and after each
# reset the poll map must have as many hardware queues as poll_queues
# said.  fio's I/O is not polled: this covers the remapping under I/O,
# not polled tags (blkmq-poll-queues.sh has those, on null_blk).
set -eu
. "$LAB_GUEST/lib.sh"

lab_need_disk labnvme0/1
param=/sys/module/nvme/parameters/poll_queues
[ -w "$param" ] || skip "$param is not writable"
polls=$(cat "$param")
fio_pid=''
trap 'kill $fio_pid 2>/dev/null || true; wait; echo "$polls" >"$param"; lab_restore_disks' EXIT

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
	d=$(lab_find_disk labnvme0/1) || fail "no disk labnvme0/1"
	lab_rebind_disk "$d" "$mode"
	ns=$(lab_wait_disk labnvme0/1) || fail "labnvme0/1 did not come back after the rebind"
	lab_expect_tag_alloc "$ns" "$mode"
	ctrl=$(basename "$(readlink -f "/sys/block/$ns/device")")
	FIO_DEV=/dev/$ns FIO_JOBS=$(nproc) FIO_SIZE=4M FIO_NAME=$mode \
		lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" &
	fio_pid=$!
	resets=0 counts=''
	while kill -0 "$fio_pid" 2>/dev/null; do
		want=$((resets % 2 * 2))
		echo "$want" >"$param"
		# Synchronous: returns once the reset work, remapping included, is done.
		echo 1 >"/sys/class/nvme/$ctrl/reset_controller" || fail "cannot reset $ctrl"
		live "$ctrl"
		resets=$((resets + 1))
		types=$(cat /sys/kernel/debug/block/"$ns"/hctx*/type) ||
			fail "$ns has no hardware queues in debugfs after reset $resets"
		n=$(grep -cx poll <<<"$types" || true)
		counts="$counts $n"
		[ "$n" = "$want" ] ||
			fail "reset $resets with poll_queues=$want left $n poll hardware queues (after each:$counts)"
	done
	wait "$fio_pid" || fail "fio verify failed on $ns across controller resets, tags from $mode"
	fio_pid=''
	[ "$resets" -ge 2 ] || fail "only $resets reset(s) ran while fio did"
	echo "tags from $mode: $resets resets of $ctrl; poll hardware queues after each:$counts"
	lab_expect_no_lost_tags "$ns"
done
