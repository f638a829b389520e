# null_blk's tag_alloc: the module parameter (for nr_devices and the
# shared tag set) and the configfs attribute choose the allocator of the
# device's tag set whatever blk_mq.tag_alloc says; default follows
# blk_mq.tag_alloc; a bad value is refused with a message naming it.
set -eu
. "$LAB_GUEST/lib.sh"

knob=/sys/module/blk_mq/parameters/tag_alloc
[ -w "$knob" ] || skip "no blk_mq.tag_alloc: CONFIG_BLK_MQ_TAG_POOL is off"
trap 'lab_nullb_del t0 2>/dev/null || true; lab_rmmod null_blk 2>/dev/null || true; lab_tag_alloc pool' EXIT

# The lab's test kernels make the pool blk-mq's default.
[ "$(cat "$knob")" = pool ] || fail "blk_mq.tag_alloc reads $(cat "$knob"), not pool"
if echo bogus >"$knob" 2>/dev/null; then fail "blk_mq.tag_alloc took bogus"; fi

other() { if [ "$1" = pool ]; then echo sbitmap; else echo pool; fi; }
for mode in pool sbitmap; do
	# The parameter wins over blk_mq.tag_alloc, for both tag set kinds.
	lab_tag_alloc "$(other "$mode")"
	for shared in 0 1; do
		lab_modprobe null_blk queue_mode=2 nr_devices=2 shared_tags=$shared \
			submit_queues="$(nproc)" tag_alloc="$mode" || fail "cannot load null_blk"
		for d in nullb0 nullb1; do
			lab_wait_blockdev "$d" || fail "/dev/$d did not appear"
			lab_expect_tag_alloc "$d" "$mode"
		done
		lab_rmmod null_blk
	done
	# default: blk_mq.tag_alloc's choice.
	lab_tag_alloc "$mode"
	lab_modprobe null_blk queue_mode=2 nr_devices=1 || fail "cannot load null_blk"
	lab_expect_tag_alloc nullb0 "$mode"
	lab_rmmod null_blk
done

msg="invalid tag_alloc value 'bogus'"
before=$(dmesg | grep -c "$msg" || true)
if lab_modprobe null_blk tag_alloc=bogus 2>/dev/null; then
	fail "null_blk loaded with tag_alloc=bogus"
fi
[ "$(dmesg | grep -c "$msg" || true)" -gt "$before" ] ||
	fail "no message naming tag_alloc=bogus: $(dmesg | tail -n 3)"

# configfs: the attribute, refused once the device is on.
lab_modprobe null_blk nr_devices=0 || fail "cannot load null_blk"
for mode in pool sbitmap; do
	lab_tag_alloc "$(other "$mode")"
	lab_nullb_add t0 tag_alloc="$mode" submit_queues="$(nproc)" ||
		fail "configfs refused tag_alloc=$mode"
	lab_wait_blockdev t0 || fail "/dev/t0 did not appear"
	lab_expect_tag_alloc t0 "$mode"
	[ "$(cat /sys/kernel/config/nullb/t0/tag_alloc)" = "$mode" ] ||
		fail "configfs tag_alloc reads $(cat /sys/kernel/config/nullb/t0/tag_alloc)"
	if echo default >/sys/kernel/config/nullb/t0/tag_alloc 2>/dev/null; then
		fail "configfs took tag_alloc while the device is on"
	fi
	lab_nullb_del t0
done
mkdir /sys/kernel/config/nullb/t0
if echo bogus >/sys/kernel/config/nullb/t0/tag_alloc 2>/dev/null; then
	fail "configfs took tag_alloc=bogus"
fi
grep -qw tag_alloc /sys/kernel/config/nullb/features || fail "features does not list tag_alloc"
rmdir /sys/kernel/config/nullb/t0
