# The in-tree null_blk, memory backed, one hardware queue per vCPU, tags
# from the pool (blk-mq's default): fio writes and verifies crc32c of every
# block from one job per vCPU.  make test runs it on the PREEMPT_RT kernel
# too.
set -eu
. "$LAB_GUEST/lib.sh"

lab_modprobe null_blk nr_devices=1 queue_mode=2 memory_backed=1 gb=1 \
	submit_queues="$(nproc)" hw_queue_depth=64 irqmode=0
trap 'lab_rmmod null_blk' EXIT
[ -b /dev/nullb0 ] || fail "null_blk loaded but /dev/nullb0 is missing"
lab_expect_tag_alloc nullb0 pool
FIO_DEV=/dev/nullb0 FIO_JOBS=$(nproc) FIO_SIZE=16M \
	lab_fio "$LAB_REPO/fio-jobs/verify-randwrite.fio" || fail "fio verify failed"
