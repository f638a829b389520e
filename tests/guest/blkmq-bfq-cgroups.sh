# BFQ with cgroups, tags from the pool and from the sbitmap: writers in two
# cgroups of different weights plus one sync reader on a null_blk device.
# BFQ limits queues over their share with a shallow depth of one
# (bfqq_request_over_limit()); the reader must keep making progress, and
# every tag be free once the device is idle.
set -eu
. "$LAB_GUEST/lib.sh"

cg=/sys/fs/cgroup
trap 'lab_rmmod null_blk 2>/dev/null || true; lab_tag_alloc pool' EXIT
mountpoint -q "$cg" || mount -t cgroup2 none "$cg" || skip "no cgroup2"
grep -qw io "$cg/cgroup.controllers" || skip "no io controller in cgroup2"
echo +io >"$cg/cgroup.subtree_control"

# in_cgroup CG CMD...: run CMD in cgroup CG.
in_cgroup() {
	c=$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg/$c" "$@"
}

for mode in pool sbitmap; do
	echo "== tags from $mode"
	lab_tag_alloc "$mode"
	lab_modprobe null_blk queue_mode=2 nr_devices=1 submit_queues=1 \
		hw_queue_depth=32 irqmode=2 completion_nsec=500000 ||
		fail "cannot load null_blk"
	echo bfq >/sys/block/nullb0/queue/scheduler
	for c in light heavy; do mkdir -p "$cg/$c"; done
	echo 10 >"$cg/light/io.bfq.weight"
	echo 1000 >"$cg/heavy/io.bfq.weight"
	pids=
	for c in light heavy; do
		in_cgroup "$c" fio --eta=never --output-format=json \
			--output="$LAB_OUT/logs/$LAB_TEST-$mode-$c.json" --name="w-$c" \
			--filename=/dev/nullb0 --rw=randwrite --bs=4k --direct=1 \
			--ioengine=libaio --iodepth=64 --numjobs=2 --group_reporting \
			--time_based --runtime=8 &
		pids="$pids $!"
	done
	out=$LAB_OUT/logs/$LAB_TEST-$mode-reader.json
	lab_watchdog 60 fio --eta=never --output-format=json --output="$out" \
		--name=reader --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --time_based --runtime=8 || fail "the reader's fio failed"
	for p in $pids; do
		wait "$p" || fail "a writer's fio failed, tags from $mode"
	done
	reads=$(python3 -c 'import json, sys
t = open(sys.argv[1]).read()
print(json.loads(t[t.index("{"):])["jobs"][0]["read"]["total_ios"])' "$out")
	echo "the sync reader completed $reads reads beside the writers"
	[ "$reads" -ge 50 ] || fail "tags from $mode: the sync reader starved ($reads reads in 8 s)"
	lab_expect_no_lost_tags nullb0
	lab_rmmod null_blk
	rmdir "$cg/light" "$cg/heavy"
done
