# fio verify=crc32c on the disks QEMU emulates (make test's TEST_DEVICES),
# tags from the pool, then from sbitmap: the NVMe controller's two
# namespaces (one tag set; the second slow) and the virtio-scsi host's two
# LUNs (the host's tags), all four at once.  Each controller is bound to its
# driver again for each allocator, so that it gets a new tag set.  Data must
# verify, no tag be left handed out.
set -eu
. "$LAB_GUEST/lib.sh"

serials="labnvme0/1 labnvme0/2 labscsi0-0 labscsi0-1"
# shellcheck disable=SC2086 # a list of serials
lab_need_disk $serials
pids=''
trap 'kill $pids 2>/dev/null || true; wait; lab_restore_disks' EXIT

for mode in pool sbitmap; do
	echo "== tags from $mode"
	for s in labnvme0/1 labscsi0-0; do
		d=$(lab_find_disk "$s") || fail "no disk $s"
		lab_rebind_disk "$d" "$mode"
	done
	pids='' disks=''
	for s in $serials; do
		d=$(lab_wait_disk "$s") || fail "$s did not come back after the rebind"
		lab_expect_tag_alloc "$d" "$mode"
		disks="$disks $d"
		# The slow namespace serves 100 I/Os a second: 1 MB of 4k blocks
		# written and read back takes about 5 s.
		size=4M jobs=$(nproc)
		[ "$s" != labnvme0/2 ] || size=1M jobs=1
		FIO_DEV=/dev/$d FIO_JOBS=$jobs FIO_SIZE=$size FIO_NAME=$mode-$d \
			lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" &
		pids="$pids $!"
	done
	echo "disks:$disks"
	for p in $pids; do
		wait "$p" || fail "fio verify failed on one of$disks, tags from $mode"
	done
	pids=''
	for d in $disks; do
		lab_expect_no_lost_tags "$d"
	done
done
