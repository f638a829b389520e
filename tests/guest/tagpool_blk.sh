# The tagpool_blk driver (drivers/tagpool_blk): fio crc32c verify in every
# completion mode, with and without shared tags, request tags (tag_alloc)
# and device tags (device_tag_alloc) from the percpu tag pool and from an
# sbitmap; the pools' allocation counters against the completed requests;
# refusal of bad parameters; 20 load/unload cycles.
set -eu
. "$LAB_GUEST/lib.sh"

KO=$LAB_DRIVERS/tagpool_blk/tagpool_blk.ko
DBG=/sys/kernel/debug/tagpool_blk
OUTDIR=${LAB_OUT:-/dev/shm}
FIO_OUT=$OUTDIR/tagpool_blk.fio.out
[ -r "$KO" ] || fail "module not built: $KO"
[ -d /sys/kernel/debug/block ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null || true

loaded() { lsmod | grep -q '^tagpool_blk '; }
cleanup() { if loaded; then rmmod tagpool_blk || true; fi; }
trap cleanup EXIT

load() {
	echo "insmod tagpool_blk $*"
	insmod "$KO" "$@" || fail "insmod tagpool_blk $* failed"
}
unload() {
	rmmod tagpool_blk || fail "rmmod tagpool_blk failed"
	! loaded || fail "tagpool_blk still listed after rmmod"
}

# counter DEV KEY: one counter from the device's debugfs stats file; use it
# in an assignment, so that a missing counter ends the test (set -e).
counter() {
	awk -v k="$2" '$1 == k { print $2; found = 1 } END { exit !found }' \
		"$DBG/tagpool$1/stats" || fail "no $2 in $DBG/tagpool$1/stats" >&2
}

# verify DEV...: fio 4 jobs x 8M random writes, then crc32c verify, on each
# device at the same time.
verify() {
	pids=
	for d in "$@"; do
		fio --eta=never --name=v --filename="/dev/tagpool$d" \
			--ioengine=io_uring --direct=1 --bs=4k --rw=randwrite \
			--size=8M --numjobs=4 --offset_increment=8M --iodepth=16 \
			--verify=crc32c --verify_fatal=1 --do_verify=1 \
			--group_reporting=1 >"$FIO_OUT.$d" 2>&1 &
		pids="$pids $!"
	done
	st=0
	for p in $pids; do wait "$p" || st=1; done
	for d in "$@"; do
		grep -E 'err=|IOPS' "$FIO_OUT.$d" | sed "s|^|  tagpool$d: |"
	done
	[ $st = 0 ] || fail "fio verify failed ($(cat "$FIO_OUT".*))"
}

# check_pool_invariant PREFIX DEV...: after a reset and idle I/O, the
# successful allocations of the pool whose counters start with PREFIX (""
# for device tags, "req." for request tags) equal the completed requests of
# its devices.
check_pool_invariant() {
	p=$1
	shift
	completed=0
	for d in "$@"; do
		n=$(counter "$d" requests_completed)
		completed=$((completed + n))
	done
	local_=$(counter "$1" "${p}alloc_local")
	shared_=$(counter "$1" "${p}alloc_shared")
	stolen=$(counter "$1" "${p}alloc_stolen")
	waits=$(counter "$1" "${p}waits")
	allocs=$((local_ + shared_ + stolen))
	echo "  ${p:-device }pool: requests_completed=$completed allocs=$allocs (local $local_, shared $shared_, stolen $stolen) ${p}waits=$waits"
	[ "$completed" -gt 0 ] || fail "requests_completed is 0 after fio"
	[ "$allocs" = "$completed" ] ||
		fail "${p}alloc_local+${p}alloc_shared+${p}alloc_stolen=$allocs != requests_completed=$completed"
}

echo "== (a), (b) fio verify, completion modes x shared tags x allocators"
for alloc in pool sbitmap; do
	for comp in inline softirq timer; do
		for shared in 0 1; do
			nr=$((shared + 1))
			devs=$(seq 0 $((nr - 1)))
			load nr_devices=$nr shared_tags=$shared completion=$comp \
				memory_backed=1 size_mb=64 device_tags=8 \
				device_tag_alloc=$alloc tag_alloc=$alloc
			for d in $devs; do
				[ -b "/dev/tagpool$d" ] || fail "/dev/tagpool$d missing"
				echo 1 >"$DBG/tagpool$d/stats"
			done
			# shellcheck disable=SC2086
			verify $devs
			# shellcheck disable=SC2086
			[ "$alloc" != pool ] || check_pool_invariant "" $devs
			# shellcheck disable=SC2086
			[ "$alloc" != pool ] || check_pool_invariant req. $devs
			if [ "$alloc" = sbitmap ] && grep -q '^req\.' "$DBG/tagpool0/stats"; then
				fail "req.* counters shown with tag_alloc=sbitmap"
			fi
			lab_expect_tag_alloc tagpool0 "$alloc"
			unload
		done
	done
done

echo "== (c) bad parameters are refused"
# Each entry: the parameter the error must name, then the parameters.
while read -r param args; do
	[ -n "$param" ] || continue
	echo "insmod tagpool_blk $args (must fail on $param)"
	# shellcheck disable=SC2086
	if insmod "$KO" $args 2>/dev/null; then
		rmmod tagpool_blk || true
		fail "insmod tagpool_blk $args succeeded"
	fi
	# shellcheck disable=SC2086
	want=$(printf '%s\n' $args | grep -m1 "^$param=")
	line=$(dmesg | tail -n 3 | grep -m1 -F "tagpool_blk: $want:") ||
		fail "no 'tagpool_blk: $want:' line at the end of dmesg for $args"
	echo "  ${line#*] }"
	[ ! -e /dev/tagpool0 ] || fail "/dev/tagpool0 exists after a refused load ($args)"
	! loaded || fail "lsmod lists tagpool_blk after a refused load ($args)"
done <<'EOF'
nr_devices nr_devices=0
nr_devices nr_devices=17
hw_queue_depth hw_queue_depth=0
hw_queue_depth hw_queue_depth=5000
completion completion=bogus
completion_nsec completion=timer completion_nsec=0
device_tag_alloc device_tag_alloc=bogus
tag_alloc tag_alloc=bogus
tag_alloc tag_alloc=
device_tags device_tags=70000
device_tags device_tags=-1
size_mb size_mb=0
size_mb size_mb=65537
submit_queues submit_queues=100000
submit_queues submit_queues=-1
EOF

echo "== (d) 20 load/unload cycles, memory backed, with dd"
for i in $(seq 1 20); do
	if [ $((i % 2)) = 0 ]; then alloc=sbitmap; else alloc=pool; fi
	insmod "$KO" memory_backed=1 size_mb=16 device_tags=4 \
		device_tag_alloc=$alloc || fail "cycle $i: insmod failed"
	[ -b /dev/tagpool0 ] || fail "cycle $i: /dev/tagpool0 missing"
	dd if=/dev/urandom of="$OUTDIR/tagpool_blk.dd" bs=64k count=16 status=none
	dd if="$OUTDIR/tagpool_blk.dd" of=/dev/tagpool0 bs=64k oflag=direct status=none ||
		fail "cycle $i: dd write failed"
	cmp -n $((64 * 1024 * 16)) "$OUTDIR/tagpool_blk.dd" /dev/tagpool0 ||
		fail "cycle $i: data read back differs"
	rmmod tagpool_blk || fail "cycle $i: rmmod failed"
	! loaded || fail "cycle $i: still loaded"
done
rm -f "$OUTDIR/tagpool_blk.dd" "$FIO_OUT".*
echo "20 cycles ok"
