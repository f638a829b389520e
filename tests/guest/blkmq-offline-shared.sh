# CPU offline with two request queues on one tag set (null_blk shared_tags=1,
# no I/O scheduler), tags from the pool and from sbitmap: the offline wait of
# a hardware queue counts only its own queue's requests, as upstream's
# blk_mq_hctx_has_requests() does (rq->mq_hctx == hctx).
#
# nullb0 holds 8 reads on hardware queue H, the one the last CPU maps to
# (its only CPU with one submit queue per CPU), completed by null_blk's timer HOLD seconds after submission; nullb1 is
# idle.  Offlining that CPU runs the blk-mq offline callback of each
# hardware queue in turn, nullb1's first (the CPU hotplug instance list
# holds the newest first), each setting INACTIVE in its state before it
# waits.  nullb1's must return at once: nullb0's hardware queue goes
# INACTIVE well before nullb0's reads complete.  A check that counted every
# request on the tags of index H would keep nullb1's callback waiting
# for nullb0's reads, and nullb0's INACTIVE would come only once they
# completed.  The offline as a whole does wait for nullb0's own reads.
set -eu
. "$LAB_GUEST/lib.sh"

ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip "one vCPU: nothing to take offline"
last=$((ncpu - 1))
cpu=/sys/devices/system/cpu/cpu$last
[ -w "$cpu/online" ] || skip "cpu$last cannot go offline"
hold=6
trap 'echo 1 >"$cpu/online" 2>/dev/null || true; lab_rmmod null_blk 2>/dev/null || true; lab_tag_alloc pool' EXIT

for mode in pool sbitmap; do
	echo "== tags from $mode"
	lab_tag_alloc "$mode"
	lab_modprobe null_blk queue_mode=2 nr_devices=2 shared_tags=1 no_sched=1 \
		submit_queues="$ncpu" hw_queue_depth=64 irqmode=2 \
		completion_nsec=$((hold * 1000000000)) ||
		fail "cannot load null_blk"
	for d in nullb0 nullb1; do
		lab_wait_blockdev "$d" || fail "/dev/$d did not appear"
		lab_expect_tag_alloc "$d" "$mode"
	done
	# The hardware queue of the last CPU, and no other CPU's.
	h=$(cd /sys/kernel/debug/block/nullb0 && echo hctx*/cpu"$last")
	h=${h%%/*}
	[ -d "/sys/kernel/debug/block/nullb0/$h" ] || fail "no hctx maps cpu$last"
	[ "$(cd "/sys/kernel/debug/block/nullb0/$h" && echo cpu*)" = "cpu$last" ] ||
		fail "$h serves $(cd "/sys/kernel/debug/block/nullb0/$h" && echo cpu*)"
	s0=/sys/kernel/debug/block/nullb0/$h
	s1=/sys/kernel/debug/block/nullb1/$h

	# 8 reads on nullb0, submitted from the last CPU, all in flight; then
	# offline that CPU, noting when each hardware queue H goes INACTIVE.
	# One python3 does both: its start-up in the guest takes seconds.
	times=$(python3 -c '
import subprocess, sys, time
cpu, last, s0, s1, log = sys.argv[1:6]
def inflight():
    return int(open("/sys/block/nullb0/inflight").read().split()[0])
def busy(d):
    return sum(1 for line in open(d + "/busy") if line.strip())
def inactive(d):
    return "INACTIVE" in open(d + "/state").read()
hold = subprocess.Popen(["taskset", "-c", last, "fio", "--name=hold",
    "--filename=/dev/nullb0", "--rw=randread", "--bs=4k", "--direct=1",
    "--ioengine=libaio", "--iodepth=8", "--io_size=32k", "--output=" + log])
end = time.monotonic() + 30
while inflight() != 8 and time.monotonic() < end:
    time.sleep(0.01)
if inflight() != 8 or busy(s0) != 8 or busy(s1):
    sys.exit("not 8 reads of nullb0 on the hardware queue: in flight %d, on it %d, nullb1 %d"
             % (inflight(), busy(s0), busy(s1)))
t0 = time.monotonic()
off = subprocess.Popen(["sh", "-c", "echo 0 > %s/online" % cpu])
# nullb0 is read before nullb1 and both get the time of the poll: when
# nullb1 goes INACTIVE first, as it should, no poll sees nullb0 so without
# nullb1 (both may flip between two reads of one poll).
seen = {}
while off.poll() is None:
    now = time.monotonic() - t0
    for name, d in (("busy", s0), ("idle", s1)):
        if name not in seen and inactive(d):
            seen[name] = now
    time.sleep(0.005)
end = time.monotonic() - t0
if off.returncode or hold.wait():
    sys.exit("offline of %s or fio failed" % cpu)
print("%.3f %.3f %.3f" % (seen.get("idle", -1), seen.get("busy", -1), end))
' "$cpu" "$last" "$s0" "$s1" "$LAB_OUT/logs/$LAB_TEST-$mode-hold.txt") ||
		fail "tags from $mode: $times"
	read -r t_idle t_busy t_end <<<"$times"
	echo "tags from $mode: offline of cpu$last took ${t_end}s;" \
		"INACTIVE at ${t_idle}s (nullb1, idle), ${t_busy}s (nullb0, busy)"
	echo "$mode offline=${t_end} idle_inactive=${t_idle} busy_inactive=${t_busy}" \
		>>"$LAB_OUT/logs/$LAB_TEST.times"
	echo 1 >"$cpu/online"

	why=$(python3 - "$t_idle" "$t_busy" "$t_end" "$hold" 2>&1 <<'PY'
import sys
idle, busy, end, hold = map(float, sys.argv[1:])
# Both queues went inactive, nullb1's first (the order the test relies on).
if idle < 0 or busy < 0 or idle > busy:
    sys.exit("order: nullb1 INACTIVE at %s s, nullb0 at %s s" % (idle, busy))
# The offline waited for nullb0's own reads (they were on that hctx) ...
if end < 1.0:
    sys.exit("the offline took only %s s: nullb0's reads were not waited for" % end)
# ... and nullb1's wait did not: nullb0's queue was reached at once.
if busy - idle > 1.0:
    sys.exit("nullb0's hardware queue went INACTIVE %.3f s after nullb1's" % (busy - idle))
PY
) || fail "tags from $mode: $why"
	lab_expect_no_lost_tags nullb0
	lab_expect_no_lost_tags nullb1
	lab_rmmod null_blk
done
