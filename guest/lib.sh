# Helpers for the guest tests; sourced, not run.
# LAB_MODROOT: the modules_install root of the booted kernel (set by the Makefile).
# LAB_KERNEL: which kernel is booted: test, rt or kasan (set by the Makefile).

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }

# lab_hotplug_cpus: set LAB_CPUS to every vCPU but the first (cpuN), the
# ones a CPU-hotplug test takes offline; skips the test on one vCPU.
lab_hotplug_cpus() {
	LAB_CPUS=$(cd /sys/devices/system/cpu && echo cpu[1-9]*)
	[ "$LAB_CPUS" != "cpu[1-9]*" ] || skip "one vCPU: nothing to take offline"
}

# lab_online_all: bring every vCPU of LAB_CPUS online again (EXIT traps).
lab_online_all() {
	local c
	for c in $LAB_CPUS; do
		echo 1 >"/sys/devices/system/cpu/$c/online" 2>/dev/null || true
	done
}

# lab_cpu_churn STOPFILE TIMES: until STOPFILE exists, take each vCPU of
# LAB_CPUS offline and back; each offline's time in ms, one a line, into
# TIMES.  Says how many cycles ran.
lab_cpu_churn() {
	local c t0 n=0
	while [ ! -e "$1" ]; do
		for c in $LAB_CPUS; do
			t0=$(date +%s%N)
			echo 0 >"/sys/devices/system/cpu/$c/online" || fail "cannot offline $c"
			echo $((($(date +%s%N) - t0) / 1000000)) >>"$2"
			echo 1 >"/sys/devices/system/cpu/$c/online" || fail "cannot online $c"
			n=$((n + 1))
		done
	done
	echo "$n CPU offline/online cycles"
}

# lab_sched_churn PID DISK NONE_MAX: while process PID runs, switch DISK's
# I/O scheduler round mq-deadline, kyber, bfq and none and write its
# nr_requests 4, 16, 128 and 64 under each (under none only those up to
# NONE_MAX, the tag set's depth: without a scheduler nr_requests cannot
# pass it), shrinking and growing its driver or scheduler tags under I/O.
# Sets LAB_ROUNDS to the number of full rounds.
lab_sched_churn() {
	local q=/sys/block/$2/queue sched nr
	LAB_ROUNDS=0
	while kill -0 "$1" 2>/dev/null; do
		for sched in mq-deadline kyber bfq none; do
			echo "$sched" >"$q/scheduler" || fail "cannot switch $2 to $sched"
			for nr in 4 16 128 64; do
				[ "$sched" = none ] && [ "$nr" -gt "$3" ] && continue
				echo "$nr" >"$q/nr_requests" ||
					fail "$2, $sched: writing nr_requests=$nr failed"
			done
		done
		LAB_ROUNDS=$((LAB_ROUNDS + 1))
	done
}

# lab_modprobe MODULE [PARAM=VALUE...]: load a module built for this kernel.
# Fails when it is loaded already: modprobe would keep the old parameters.
lab_modprobe() {
	if [ -e "/sys/module/$1/initstate" ]; then
		echo "lab_modprobe: $1 is loaded already (an earlier test left it?)" >&2
		return 1
	fi
	modprobe -d "$LAB_MODROOT" "$@"
}

# lab_rmmod MODULE: unload a module loaded with lab_modprobe.
lab_rmmod() {
	modprobe -d "$LAB_MODROOT" -r "$1"
}

# lab_fio JOBFILE [fio options...]: run fio under lab_watchdog (FIO_WATCHDOG
# seconds, default 240); JSON to $LAB_OUT/logs/<test>[-$FIO_NAME].fio.json.
lab_fio() {
	lab_watchdog "${FIO_WATCHDOG:-240}" fio --eta=never --output-format=json+ \
		--output="$LAB_OUT/logs/${LAB_TEST:-fio}${FIO_NAME:+-$FIO_NAME}.fio.json" "$@"
}

# lab_kunit MODULE SUITE: load a KUnit test module and read the KTAP
# results of SUITE (debugfs) with the kernel's own parser, kunit.py parse
# of the tree at $LAB_KSRC (its report goes to the test's log, its JSON to
# logs/kunit-SUITE.json): one result line per case in $LAB_RESULTS, and per
# parameter of a parameterized case ("pass kunit.SUITE.CASE[.PARAM]", "fail
# ...", "skip ...", as tests/run-tests records results).  Fails when the suite did not pass or left no
# results.  Debian's python3 (the Makefile's PACKAGES), not the caller's.
# Then re-arms the kernel's one-time warnings (debugfs clear_warn_once):
# the suites spend some on purpose (a double free), and a real one in a
# later test must still warn.
lab_kunit() {
	module=$1 suite=$2
	results=/sys/kernel/debug/kunit/$suite/results
	ktap=$LAB_OUT/logs/kunit-$suite.ktap json=$LAB_OUT/logs/kunit-$suite.json
	lab_modprobe "$module" || fail "cannot load $module"
	[ -r "$results" ] || fail "KUnit suite $suite left no results in debugfs"
	cp "$results" "$ktap"
	lab_rmmod "$module"
	echo 1 >/sys/kernel/debug/clear_warn_once ||
		fail "cannot re-arm the one-time warnings the suite may have spent"
	parsed=0
	/usr/bin/python3 "${LAB_KSRC:?}/tools/testing/kunit/kunit.py" parse --json="$json" "$ktap" ||
		parsed=$?
	[ -s "$json" ] || fail "kunit.py parse found no results in $ktap"
	/usr/bin/python3 -c '
import json, sys
def lines(group, name):
    for case in group["test_cases"]:
        st = case["status"]
        print({"PASS": "pass ", "SKIP": "skip "}.get(st, "fail ") + name + "." + case["name"])
    for sub in group["sub_groups"]:
        lines(sub, name + "." + sub["name"])
lines(json.load(open(sys.argv[1])), "kunit")' "$json" >>"$LAB_RESULTS"
	[ "$parsed" = 0 ] || fail "KUnit suite $suite failed"
}

# lab_tag_alloc MODE: where blk-mq tag sets created from now on take their
# tags when their driver does not choose: pool or sbitmap.
lab_tag_alloc() {
	echo "$1" >/sys/module/blk_mq/parameters/tag_alloc ||
		fail "cannot set blk_mq.tag_alloc=$1"
}

# lab_nullb_add NAME [ATTR=VALUE...]: a null_blk device made through
# configfs (null_blk loaded): /sys/kernel/config/nullb/NAME, each ATTR
# written in order, then powered on, which creates /dev/NAME.  False, naming
# the attribute, when one is refused.
lab_nullb_add() {
	local dir=/sys/kernel/config/nullb/$1 a
	shift
	mkdir "$dir" || return 1
	for a in "$@"; do
		if ! echo "${a#*=}" >"$dir/${a%%=*}"; then
			echo "lab_nullb_add: $dir refused ${a%%=*}=${a#*=}" >&2
			return 1
		fi
	done
	echo 1 >"$dir/power"
}

# lab_nullb_del NAME: power off and remove the configfs null_blk device
# NAME if it exists; null_blk cannot be unloaded while it does.
lab_nullb_del() {
	local dir=/sys/kernel/config/nullb/$1
	[ -d "$dir" ] || return 0
	echo 0 >"$dir/power" || true
	rmdir "$dir"
}

# lab_wait_blockdev DISK: wait up to 5 s for /dev/DISK to appear; false if
# it does not.
lab_wait_blockdev() {
	for _ in $(seq 50); do
		[ -b "/dev/$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# lab_expect_tag_alloc DISK MODE: DISK's tags come from MODE (pool or
# sbitmap), as its first hardware queue's tags say in debugfs
# (allocator=pool or allocator=sbitmap).
lab_expect_tag_alloc() {
	tags=/sys/kernel/debug/block/$1/hctx0/tags
	grep -qx "allocator=$2" "$tags" ||
		fail "$1: tags do not come from $2: $(grep '^allocator=' "$tags" || echo 'no allocator= line')"
}

# lab_expect_no_lost_tags DISK: DISK is idle and no tag of its hardware
# queues (driver and scheduler tags) is left handed out: every pool has all
# its tags free (a pool's line of key=value pairs has nr_free=depth), every
# sbitmap none busy (busy=0).  Fails when no debugfs file had either
# figure: the check must not pass vacuously.
lab_expect_no_lost_tags() {
	local f n checked=0
	for f in /sys/kernel/debug/block/"$1"/hctx*/tags /sys/kernel/debug/block/"$1"/hctx*/sched_tags; do
		[ -r "$f" ] || continue
		n=$(awk -v f="$f" '
			/(^| )nr_free=/ { n++; delete kv
				for (i = 1; i <= NF; i++) { split($i, p, "="); kv[p[1]] = p[2] }
				if (kv["nr_free"] != kv["depth"]) {
					print f ": " kv["nr_free"] " of " kv["depth"] " pool tags free" > "/dev/stderr"; lost = 1 }
				next }
			/^busy=/ { n++; busy = substr($0, 6)
				if (busy != 0) { print f ": " busy " sbitmap tags busy" > "/dev/stderr"; lost = 1 } }
			END { print n + 0; exit lost }' "$f") || fail "$1 lost tags"
		checked=$((checked + n))
	done
	[ "$checked" -gt 0 ] || fail "$1: no tag counts in debugfs to check"
}

# lab_watchdog SECONDS CMD...: run CMD; if it has not finished after
# SECONDS, list the blocked tasks in the kernel log and fail, naming CMD.
lab_watchdog() {
	secs=$1
	shift
	timeout -k 5 "$secs" "$@" && return 0
	status=$?
	if [ $status = 124 ] || [ $status = 137 ]; then
		echo w >/proc/sysrq-trigger
		fail "hang: '$*' did not finish within ${secs}s (blocked tasks in dmesg)"
	fi
	return $status
}

# lab_find_disk SERIAL: the name of the emulated disk guest/run's DEVICES
# attached with SERIAL: labnvmeK/NSID (namespace NSID of NVMe controller
# labnvmeK), labvblkK (virtio-blk) or labscsiK-L (virtio-scsi LUN L); false
# when no disk has it.  Reads only the disks of SERIAL's kind: a virtio-blk
# disk's serial costs a request to the device (GET_ID) at each read.
lab_find_disk() {
	local d s kind
	case $1 in
	labnvme*) kind='nvme*' ;;
	labvblk*) kind='vd*' ;;
	labscsi*) kind='sd*' ;;
	*) return 1 ;;
	esac
	# shellcheck disable=SC2231 # $kind is a pattern
	for d in /sys/block/$kind; do
		[ -e "$d" ] || continue
		case ${d##*/} in
		nvme*) s=$(tr -d ' ' <"$d/device/serial")/$(cat "$d/nsid") ;;
		vd*) s=$(cat "$d/serial") ;;
		sd*) s=$(tail -c +5 "$d/device/vpd_pg80" | tr -d '\0 ') ;;
		*) continue ;;
		esac 2>/dev/null
		if [ "$s" = "$1" ]; then
			echo "${d##*/}"
			return 0
		fi
	done
	return 1
}

# lab_wait_disk SERIAL: lab_find_disk, waiting up to 60 s for the disk to
# be usable: NVMe and SCSI add their disks after the driver's probe
# returns, and a disk is named in sysfs before blk-mq's debugfs has it and
# before it can be opened; so also until hctx0/tags exists and one block
# reads.
lab_wait_disk() {
	local d
	for _ in $(seq 600); do
		if d=$(lab_find_disk "$1") && [ -e "/sys/kernel/debug/block/$d/hctx0/tags" ] &&
			dd if="/dev/$d" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; then
			echo "$d"
			return 0
		fi
		sleep 0.1
	done
	echo "lab_wait_disk: no usable disk with serial $1" >&2
	return 1
}

# lab_need_disk SERIAL...: skip the test when a disk is missing, unless
# the boot was to have it (LAB_DEVICES, make test's TEST_DEVICES): then
# wait for it as lab_wait_disk does (the test before may have bound its
# controller again: lab_restore_disks), and fail if it does not come.
lab_need_disk() {
	local s
	for s in "$@"; do
		if [ -n "${LAB_DEVICES:-}" ]; then
			lab_wait_disk "$s" >/dev/null ||
				fail "no disk $s, though the boot attached LAB_DEVICES=$LAB_DEVICES"
		else
			lab_find_disk "$s" >/dev/null ||
				skip "no disk $s (make test attaches TEST_DEVICES)"
		fi
	done
}

# lab_rebind_disk DISK MODE: unbind the driver of the device DISK hangs
# off (nvme, virtio_scsi or virtio_blk) and bind it again with blk-mq's tag
# allocation MODE, so that its tag set is made anew from MODE.  The disk's
# name may change: find it again by its serial.  Notes the device in
# LAB_REBOUND for lab_restore_disks.
lab_rebind_disk() {
	local dev drv
	[ -e "/sys/block/${1:-?}" ] || fail "lab_rebind_disk: no disk '$1'"
	dev=$(readlink -f "/sys/block/$1/device")
	while [ "$dev" != / ]; do
		drv=$(basename "$(readlink -f "$dev/driver" 2>/dev/null)")
		case $drv in
		nvme|virtio_scsi|virtio_blk) break ;;
		esac
		dev=$(dirname "$dev")
	done
	[ "$dev" != / ] || fail "$1 hangs off no nvme, virtio_scsi or virtio_blk device"
	case " ${LAB_REBOUND:-} " in
	*" $dev=$drv "*) ;;
	*) LAB_REBOUND="${LAB_REBOUND:-} $dev=$drv" ;;
	esac
	echo "${dev##*/}" >"$dev/driver/unbind" || fail "cannot unbind ${dev##*/} from $drv"
	lab_tag_alloc "$2"
	echo "${dev##*/}" >"$(readlink -f "$dev/subsystem")/drivers/$drv/bind" ||
		fail "cannot bind ${dev##*/} to $drv"
}

# lab_restore_disks: for a test's EXIT trap, after its I/O has stopped:
# bind every device lab_rebind_disk unbound again with tags from the pool,
# as the boot left it, whether or not the test got that far: a test that
# failed between an unbind and a bind leaves no controller without its
# driver, nor one on sbitmap, to the tests after it.
lab_restore_disks() {
	local e dev drv
	lab_tag_alloc pool
	for e in ${LAB_REBOUND:-}; do
		dev=${e%=*} drv=${e##*=}
		[ ! -e "$dev/driver" ] || echo "${dev##*/}" >"$dev/driver/unbind" || true
		echo "${dev##*/}" >"$(readlink -f "$dev/subsystem")/drivers/$drv/bind" ||
			echo "lab_restore_disks: cannot bind ${dev##*/} to $drv" >&2
	done
}
