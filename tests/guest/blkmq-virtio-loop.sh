# blk-mq with its tags from the pool, then from the sbitmap, in one boot:
# fio verify=crc32c with twice as many jobs as vCPUs on the virtio-blk disk
# (bound again to the driver for each allocator, so that it gets a new tag
# set) and on a new loop device over a file in /tmp.
set -eu
. "$LAB_GUEST/lib.sh"

jobs=$(($(nproc) * 2))
vdev=$(basename "$(readlink -f /sys/block/vda/device 2>/dev/null)")
case $vdev in
virtio*) ;;
*) fail "no virtio-blk disk vda (make test attaches one; guest/run DISK=)" ;;
esac
trap 'losetup -D 2>/dev/null || true; lab_restore_disks' EXIT

# rebind_virtio MODE: drop the disk's tag set and make a new one from MODE.
rebind_virtio() {
	lab_rebind_disk vda "$1"
	lab_wait_blockdev vda ||
		fail "vda did not come back after binding $vdev to virtio_blk"
}

# new_loop MODE N: a new loop device N over a new file, its tags from MODE.
new_loop() {
	lab_tag_alloc "$1"
	[ -e "/dev/loop$2" ] || mknod "/dev/loop$2" b 7 "$2"
	truncate -s 64M "/tmp/loop$2.img"
	losetup "/dev/loop$2" "/tmp/loop$2.img" || fail "losetup /dev/loop$2 failed"
}

n=16
for mode in pool sbitmap; do
	echo "== virtio-blk, tags from $mode"
	rebind_virtio "$mode"
	lab_expect_tag_alloc vda "$mode"
	FIO_DEV=/dev/vda FIO_JOBS=$jobs FIO_SIZE=4M FIO_NAME=virtio-$mode \
		lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" ||
		fail "fio verify failed on virtio-blk, tags from $mode"
	lab_expect_no_lost_tags vda

	echo "== loop, tags from $mode"
	new_loop "$mode" "$n"
	lab_expect_tag_alloc "loop$n" "$mode"
	FIO_DEV=/dev/loop$n FIO_JOBS=$jobs FIO_SIZE=4M FIO_NAME=loop-$mode \
		lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" ||
		fail "fio verify failed on loop$n, tags from $mode"
	lab_expect_no_lost_tags "loop$n"
	losetup -d "/dev/loop$n"
	n=$((n + 1))
done
