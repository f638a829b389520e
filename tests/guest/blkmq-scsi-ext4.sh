# SCSI, the other big user of tags, and a filesystem on top, tags from the
# pool and from the sbitmap: fio verify on a scsi_debug disk with a submit
# queue per vCPU and host-wide tags (host_max_queue), with every I/O
# scheduler; then ext4 on the scsi_debug disk and on a loop device, a fio
# verify on files in it, and fsck finds it clean.
set -eu
. "$LAB_GUEST/lib.sh"

mnt=$LAB_OUT/mnt
trap 'umount "$mnt" 2>/dev/null || true; losetup -D 2>/dev/null || true; lab_rmmod scsi_debug 2>/dev/null || true; lab_tag_alloc pool' EXIT
mkdir -p "$mnt"

# scsi_disk: the block device name of scsi_debug's disk.
scsi_disk() {
	for b in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
		[ -e "$b" ] && basename "$b" && return 0
	done
	return 1
}

# ext4_check DEV NAME: make ext4 on DEV, verify files written by fio in it,
# unmount, fsck -f must find nothing to fix.
ext4_check() {
	mkfs.ext4 -q -F "$1" || fail "mkfs.ext4 $1 failed"
	mount -t ext4 "$1" "$mnt" || fail "cannot mount ext4 on $1"
	lab_watchdog 180 fio --eta=never --output-format=json \
		--output="$LAB_OUT/logs/$LAB_TEST-$2.json" --name="$2" \
		--directory="$mnt" --rw=randwrite --bs=4k --size=4M --numjobs=4 \
		--ioengine=libaio --iodepth=16 --direct=1 --verify=crc32c \
		--verify_fatal=1 --verify_state_save=0 --group_reporting || fail "fio verify on ext4 ($2) failed"
	umount "$mnt"
	e2fsck -f -n "$1" || fail "e2fsck found errors on $1 ($2)"
}

n=40
for mode in pool sbitmap; do
	lab_tag_alloc "$mode"
	lab_modprobe scsi_debug dev_size_mb=128 submit_queues="$(nproc)" \
		host_max_queue=64 max_queue=64 delay=0 ||
		fail "cannot load scsi_debug"
	udevadm settle 2>/dev/null || true
	disk=
	for _ in $(seq 50); do disk=$(scsi_disk) && break; sleep 0.1; done
	if [ -z "$disk" ] || ! lab_wait_blockdev "$disk"; then
		fail "scsi_debug made no disk"
	fi
	lab_expect_tag_alloc "$disk" "$mode"
	for sched in none mq-deadline kyber bfq; do
		echo "== scsi_debug $disk, $sched, tags from $mode"
		echo "$sched" >"/sys/block/$disk/queue/scheduler"
		FIO_DEV=/dev/$disk FIO_JOBS=$(($(nproc) * 2)) FIO_SIZE=2M \
			FIO_NAME=$mode-$sched lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" ||
			fail "fio verify failed on scsi_debug with $sched, tags from $mode"
		lab_expect_no_lost_tags "$disk"
	done
	echo "== ext4 on scsi_debug, tags from $mode"
	echo mq-deadline >"/sys/block/$disk/queue/scheduler"
	ext4_check "/dev/$disk" "scsi-$mode"
	lab_expect_no_lost_tags "$disk"
	lab_rmmod scsi_debug

	echo "== ext4 on a new loop device, tags from $mode"
	n=$((n + 1))
	[ -e "/dev/loop$n" ] || mknod "/dev/loop$n" b 7 "$n"
	truncate -s 128M "/tmp/ext4-$mode.img"
	losetup "/dev/loop$n" "/tmp/ext4-$mode.img" || fail "losetup /dev/loop$n failed"
	lab_expect_tag_alloc "loop$n" "$mode"
	ext4_check "/dev/loop$n" "loop-$mode"
	losetup -d "/dev/loop$n"
	rm -f "/tmp/ext4-$mode.img"
done
