# What blk-mq promises about tags, the same with tags from the pool and from
# the sbitmap:
# (a) fair share: on two null_blk devices sharing 16 tags, while a light
#     job on one holds tags and a saturating one runs on the other, the
#     saturating device holds at most its share of 8 (debugfs' hctx
#     "active") in all but 5% of the samples taken while both hold
#     requests (blk-mq counts a request after the check of the share, so
#     racing submitters pass it now and then), it reaches its share (not
#     checked on the KASAN kernel, where its jobs are CPU-bound), and the
#     light job makes progress;
# (b) mq-deadline's async_depth=4: while async writers saturate a device
#     and a sync reader keeps going, at most 4 writes (plus the reader's one
#     read) hold scheduler tags in all but 5% of the samples of debugfs'
#     bitmap (taken while writes are in flight, showing tags held), which
#     is not read atomically, and the reader makes progress;
# (c) tags_bitmap: with all 32 tags of a device held by slow requests, the
#     debugfs tags_bitmap is the same for both (every bit set).
set -eu
. "$LAB_GUEST/lib.sh"

trap 'lab_rmmod null_blk 2>/dev/null || true; lab_tag_alloc pool' EXIT

# iops_of JSON: read + write IOPS of a fio JSON output, as an integer.
iops_of() {
	python3 -c 'import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"][0]
print(int(j["read"]["iops"] + j["write"]["iops"]))' "$1"
}

# busy_bits FILE: set bits in a debugfs *_bitmap file.
busy_bits() {
	python3 -c 'import sys
bits = 0
for line in open(sys.argv[1]):
    for word in line.split(":", 1)[-1].split():
        bits += bin(int(word, 16)).count("1")
print(bits)' "$1"
}

# sample_bits FILE INFLIGHT READY DONE LIMIT: create the file READY once
# started, then until the file DONE appears (at most 180 s) read a debugfs
# *_bitmap file every 20 ms, keeping the samples taken while the INFLIGHT
# file (/sys/block/DEV/inflight) showed writes in flight; print the most
# bits seen set in those, their number, the number with any bit set, the
# number with more than LIMIT and the number of all samples.  The file is
# not a snapshot: it reads word after word (sbitmap's word, then its cleared
# bits), so a tag freed and another taken while it is read count both, now
# and then.
sample_bits() {
	python3 -c 'import os, sys, time
def bits(path):
    n = 0
    for line in open(path):
        for word in line.split(":", 1)[-1].split():
            n += bin(int(word, 16)).count("1")
    return n
def writes(path):
    return int(open(path).read().split()[1])
open(sys.argv[3], "w").close()
most = kept = some = over = taken = 0
end = time.monotonic() + 180
while not os.path.exists(sys.argv[4]) and time.monotonic() < end:
    taken += 1
    if writes(sys.argv[2]):
        n = bits(sys.argv[1])
        kept += 1
        most, some = max(most, n), some + (n > 0)
        over += n > int(sys.argv[5])
    time.sleep(0.02)
print(most, kept, some, over, taken)' "$1" "$2" "$3" "$4" "$5"
}

# sample_share HEAVY LIGHT READY DONE SHARE: create the file READY once
# started, then until the file DONE appears (at most 180 s) read two
# debugfs hctx "active" files every 20 ms, keeping the samples in which
# both the light queue (LIGHT) and the heavy one (HEAVY) hold requests;
# print the most the heavy queue held in those, their number, the number
# with more than SHARE and the number of all samples.
sample_share() {
	python3 -c 'import os, sys, time
def active(path):
    return int(open(path).read())
open(sys.argv[3], "w").close()
most = kept = over = taken = 0
end = time.monotonic() + 180
while not os.path.exists(sys.argv[4]) and time.monotonic() < end:
    taken += 1
    n = active(sys.argv[1])
    if n and active(sys.argv[2]):
        kept += 1
        most = max(most, n)
        over += n > int(sys.argv[5])
    time.sleep(0.02)
print(most, kept, over, taken)' "$1" "$2" "$3" "$4" "$5"
}

# wait_for_file FILE SECONDS: wait until FILE exists, or fail.
wait_for_file() {
	for _ in $(seq "$2"); do
		[ ! -e "$1" ] || return 0
		sleep 1
	done
	fail "$1 did not appear within $2 s"
}

# wait_for_requests FILE SECONDS: wait until the debugfs hctx "active"
# FILE shows requests held, or fail.
wait_for_requests() {
	for _ in $(seq $(($2 * 5))); do
		[ "$(cat "$1")" -eq 0 ] || return 0
		sleep 0.2
	done
	fail "no request held in $1 within $2 s"
}

# run_fio NAME DEV RW DEPTH JOBS SECONDS [ENGINE]: a time-based fio run,
# its JSON in $LAB_OUT/logs.
run_fio() {
	out=$LAB_OUT/logs/$LAB_TEST-$1.json
	lab_watchdog 120 fio --eta=never --output-format=json --output="$out" \
		--name="$1" --filename="$2" --rw="$3" --bs=4k --direct=1 \
		--ioengine="${7:-libaio}" --iodepth="$4" --numjobs="$5" \
		--group_reporting --time_based --runtime="$6" || fail "fio $1 failed"
	echo "$out"
}

for mode in pool sbitmap; do
	lab_tag_alloc "$mode"

	echo "== (a) fair share of 16 shared tags, tags from $mode"
	lab_modprobe null_blk queue_mode=2 nr_devices=2 shared_tags=1 \
		submit_queues=1 hw_queue_depth=16 irqmode=2 completion_nsec=2000000 ||
		fail "cannot load null_blk"
	for d in nullb0 nullb1; do echo none >"/sys/block/$d/queue/scheduler"; done
	ready=$LAB_OUT/sampler.ready done=$LAB_OUT/sampler.done
	rm -f "$ready" "$done"
	sample_share /sys/kernel/debug/block/nullb1/hctx0/active \
		/sys/kernel/debug/block/nullb0/hctx0/active "$ready" "$done" 8 \
		>"$LAB_OUT/sampler.out" &
	sampler=$!
	wait_for_file "$ready" 120
	# The saturating job runs while the light one holds tags: a fio start
	# takes seconds, and on the KASAN kernel half a minute beside a
	# CPU-bound job, so the light job starts first and runs the longer.
	light_seconds=12
	[ "${LAB_KERNEL:-}" != kasan ] || light_seconds=60
	run_fio "$mode-light" /dev/nullb0 randread 4 1 "$light_seconds" >"$LAB_OUT/light.out" &
	light_job=$!
	wait_for_requests /sys/kernel/debug/block/nullb0/hctx0/active 60
	run_fio "$mode-heavy" /dev/nullb1 randread 64 4 8 >/dev/null
	touch "$done"
	wait "$sampler"
	wait "$light_job"
	light=$(iops_of "$(cat "$LAB_OUT/light.out")")
	read -r most kept over taken <"$LAB_OUT/sampler.out"
	echo "the saturating device held at most $most of 16 tags ($kept samples with both devices' tags held, $over with more than 8); the light job did $light IOPS"
	[ "$kept" -gt 0 ] ||
		fail "tags from $mode: no sample with both devices' tags held (of $taken taken)"
	[ $((over * 20)) -le "$kept" ] ||
		fail "tags from $mode: the saturating device held more than its 8 of 16 shared tags in $over of $kept samples (up to $most)"
	# Under KASAN its four jobs wait for the CPUs and may not fill it.
	if [ "${LAB_KERNEL:-}" = kasan ]; then
		echo "(the share reached not checked on the KASAN kernel: the jobs are CPU-bound)"
	elif [ "$most" -lt 8 ]; then
		fail "tags from $mode: the saturating device never held its 8 of 16 shared tags (at most $most)"
	fi
	[ "$light" -gt 0 ] || fail "tags from $mode: the light job made no progress"
	lab_expect_no_lost_tags nullb0
	lab_expect_no_lost_tags nullb1
	lab_rmmod null_blk

	echo "== (b) mq-deadline async_depth=4, tags from $mode"
	lab_modprobe null_blk queue_mode=2 nr_devices=1 submit_queues=1 \
		hw_queue_depth=32 irqmode=2 completion_nsec=2000000 ||
		fail "cannot load null_blk"
	echo mq-deadline >/sys/block/nullb0/queue/scheduler
	echo 4 >/sys/block/nullb0/queue/iosched/async_depth
	# A python3 start takes about a second on the test kernel and 25 s
	# on the KASAN one: the sampler starts first, and samples until the
	# writers are done.
	ready=$LAB_OUT/sampler.ready done=$LAB_OUT/sampler.done
	rm -f "$ready" "$done"
	sample_bits /sys/kernel/debug/block/nullb0/hctx0/sched_tags_bitmap \
		/sys/block/nullb0/inflight "$ready" "$done" 5 >"$LAB_OUT/sampler.out" &
	sampler=$!
	wait_for_file "$ready" 120
	run_fio "$mode-writers" /dev/nullb0 randwrite 32 4 15 >/dev/null &
	writers=$!
	run_fio "$mode-reader" /dev/nullb0 randread 1 1 15 psync >"$LAB_OUT/reader.out" &
	reader=$!
	wait "$writers"
	touch "$done"
	wait "$sampler"
	read -r max kept samples over taken <"$LAB_OUT/sampler.out"
	wait "$reader"
	reads=$(iops_of "$(cat "$LAB_OUT/reader.out")")
	echo "at most $max scheduler tags held ($kept samples with writes in flight, $samples with tags held, $over with more than 5); the reader did $reads IOPS"
	[ "$kept" -gt 0 ] ||
		fail "tags from $mode: no sample taken with writes in flight (of $taken taken while the writers ran)"
	[ "$samples" -gt 0 ] || fail "tags from $mode: no scheduler tag seen held while writers saturate the device"
	# A real excess holds while the writers run; a torn read comes and goes.
	[ $((over * 20)) -le "$samples" ] ||
		fail "tags from $mode: more than 5 scheduler tags held in $over of $samples samples (up to $max), async_depth=4 allows 4 writes and the reader's read"
	[ "$reads" -gt 0 ] || fail "tags from $mode: the sync reader made no progress"
	lab_expect_no_lost_tags nullb0
	lab_rmmod null_blk

	echo "== (c) tags_bitmap with every tag held, tags from $mode"
	lab_modprobe null_blk queue_mode=2 nr_devices=1 submit_queues=1 \
		hw_queue_depth=32 irqmode=2 completion_nsec=4000000000 ||
		fail "cannot load null_blk"
	echo none >/sys/block/nullb0/queue/scheduler
	run_fio "$mode-hold" /dev/nullb0 randread 32 1 1 >/dev/null &
	hold=$!
	# Each request takes 4 s (null_blk times out at 5): copy the bitmap
	# once fio has all 32 out (its start takes a second or more under TCG).
	for _ in $(seq 50); do
		cp /sys/kernel/debug/block/nullb0/hctx0/tags_bitmap "$LAB_OUT/tags_bitmap.$mode"
		! grep -q '^00000000: ffff ffff$' "$LAB_OUT/tags_bitmap.$mode" || break
		sleep 0.2
	done
	wait "$hold"
	cat "$LAB_OUT/tags_bitmap.$mode"
	lab_expect_no_lost_tags nullb0
	lab_rmmod null_blk
done
cmp "$LAB_OUT/tags_bitmap.pool" "$LAB_OUT/tags_bitmap.sbitmap" ||
	fail "tags_bitmap differs between the pool and the sbitmap with all tags held"
[ "$(busy_bits "$LAB_OUT/tags_bitmap.pool")" = 32 ] ||
	fail "tags_bitmap does not show the 32 tags held"
