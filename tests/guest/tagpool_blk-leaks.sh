# 100 load/unload cycles of drivers/tagpool_blk, each with I/O on a memory
# backed device and device tags alternating between pool and sbitmap, while
# fio keeps a second block device (null_blk) busy; then kmemleak must report
# nothing allocated by tagpool_blk, the percpu tag pool or tag_ida.
set -eu
. "$LAB_GUEST/lib.sh"

KO=$LAB_DRIVERS/tagpool_blk/tagpool_blk.ko
LEAKS=/sys/kernel/debug/kmemleak
[ -w "$LEAKS" ] || fail "kmemleak is not available ($LEAKS)"
echo clear >"$LEAKS"

lab_modprobe null_blk nr_devices=1 queue_mode=2 submit_queues="$(nproc)" irqmode=0
fio --eta=never --name=busy --filename=/dev/nullb0 --ioengine=io_uring --direct=1 \
	--bs=4k --rw=randread --iodepth=16 --time_based --runtime=600 \
	>"$LAB_OUT/logs/tagpool_blk-leaks.busy-fio.log" 2>&1 &
busy=$!
trap 'kill $busy 2>/dev/null || true; wait $busy 2>/dev/null || true; rmmod tagpool_blk 2>/dev/null || true; lab_rmmod null_blk || true' EXIT

for i in $(seq 1 100); do
	alloc=pool
	[ $((i % 2)) = 0 ] && alloc=sbitmap
	insmod "$KO" memory_backed=1 size_mb=16 device_tags=8 device_tag_alloc=$alloc ||
		fail "cycle $i: insmod failed"
	dd if=/dev/urandom of=/tmp/leak.in bs=64k count=4 status=none
	dd if=/tmp/leak.in of=/dev/tagpool0 bs=64k oflag=direct status=none ||
		fail "cycle $i: write failed"
	dd if=/dev/tagpool0 of=/tmp/leak.out bs=64k count=4 iflag=direct status=none ||
		fail "cycle $i: read failed"
	cmp -s /tmp/leak.in /tmp/leak.out || fail "cycle $i: data read back differs"
	rmmod tagpool_blk || fail "cycle $i: rmmod failed"
done
kill -0 $busy || fail "fio on the busy device stopped early"
echo "100 cycles done while null_blk was busy"

# Two scans: kmemleak reports an object once it stayed unreferenced.
echo scan >"$LEAKS"
sleep 1
echo scan >"$LEAKS"
cat "$LEAKS" >"$LAB_OUT/logs/kmemleak.txt"
echo "kmemleak: $(grep -c '^unreferenced object' "$LAB_OUT/logs/kmemleak.txt" || true) unreferenced objects in all"
if grep -E 'tagpool_blk|tpb_|percpu_tag|tag_ida' "$LAB_OUT/logs/kmemleak.txt"; then
	fail "kmemleak reports objects from our code (see logs/kmemleak.txt)"
fi
