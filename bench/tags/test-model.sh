#!/bin/bash
# Host test of the allocator instruments built in BUILD (bench/tags/build.sh):
# the model's known-answer cases (model-check: each count derived by hand,
# one writer and seven readers 8 misses a round), a 2-CPU run of every
# allocator and completion mode that must pass its own checks and give the
# same figures twice with one seed, the optional fields (quantum, think
# time, queues sharing the tags, batches, a shallow depth) on small runs, the same line
# giving the same figures whatever ran before it, device time that makes
# every allocation wait, two waiters racing two frees on 1000 seeds
# without a lost wakeup (on one wait queue, then on two; without and with
# spurious wake-ups of the waiters), and a short native run of each
# allocator.
#
# usage: test-model.sh BUILD
set -eu

build=$1
"$build/model-check"

scenarios=$(for alloc in sbitmap pool; do
	for completion in self irq other; do
		echo "$alloc 2 2 8 4 $completion 2000 7"
		echo "$alloc 4 2 64 1 $completion 2000 7"
	done
	# quantum 64 with think time; 2 queues sharing 16 tags; batches of 4
	echo "$alloc 4 4 64 4 self 2000 7 64 200"
	echo "$alloc 4 4 16 4 irq 2000 7 4 0 2"
	echo "$alloc 4 4 64 8 irq 2000 7 4 0 1 4"
	echo "$alloc 4 4 64 8 self 2000 7 16 50 1 4"
	# the odd CPUs' allocations held to 4 of 16 tags (an I/O scheduler's
	# shallow depth): scale fails the run if together they hold more
	echo "$alloc 4 4 16 8 self 2000 7 4 0 1 1 0 4"
	echo "$alloc 4 4 16 8 irq 2000 7 4 0 1 1 0 4"
	echo "$alloc 8 8 32 4 self 2000 7 64 0 1 1 0 8"
done)
first=$(echo "$scenarios" | "$build/scale")
second=$(echo "$scenarios" | "$build/scale")
if [ "$first" != "$second" ]; then
	echo "test-model: the same seed gave different figures:"
	diff <(echo "$first") <(echo "$second") || true
	exit 1
fi
echo "$first" | cut -f1-13,19-21
echo "test-model: 2-CPU and 4-CPU model runs pass their checks and repeat exactly"

# sbitmap's hints and the interleaving depend on the line alone.
line="sbitmap 8 8 32 4 self 2000 3"
alone=$(echo "$line" | "$build/scale" | tail -n1)
after=$(printf '%s\n%s\n' "sbitmap 16 16 1023 1 irq 1000 5" "$line" | "$build/scale" | tail -n1)
if [ "$alone" != "$after" ]; then
	echo "test-model: a scenario gave other figures after another one:"
	printf '%s\n%s\n' "$alone" "$after"
	exit 1
fi
echo "test-model: a scenario gives the same figures whatever ran before it"

# DEVICE: three submitters keep 24 I/Os in flight on 16 tags.  Completed
# as fast as the interrupt CPU runs, the sbitmap's allocations find free
# tags; with 1000 accesses of device time per completion, every one waits
# for a completion and is woken once.
wakeups() {
	echo "sbitmap 4 4 16 8 irq 2000 7 4 0 1 1 $1" | "$build/scale" |
		awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wakeups") c = i }
			     NR == 2 { print $c }'
}
fast=$(wakeups 0) slow=$(wakeups 1000)
if ! awk -v f="$fast" -v s="$slow" 'BEGIN { exit !(f < 0.1 && s == 1) }'; then
	echo "test-model: wake-ups per I/O $fast without device time and $slow with, want < 0.1 and 1"
	exit 1
fi
echo "test-model: device time makes every allocation wait ($fast wake-ups per I/O without, $slow with)"

# SHALLOW with queues sharing the tags, or not below DEPTH, is no scenario.
for line in "sbitmap 4 4 16 4 self 100 1 4 0 2 1 0 4" "pool 4 4 16 4 self 100 1 4 0 1 1 0 16"; do
	if echo "$line" | "$build/scale" >/dev/null 2>&1; then
		echo "test-model: took the scenario '$line'"
		exit 1
	fi
done

# A negative THINK or DEVICE is no scenario (it would think for ever).
if echo "sbitmap 2 2 8 4 irq 100 1 4 0 1 1 -5" | "$build/scale" >/dev/null 2>&1; then
	echo "test-model: a negative DEVICE was taken"
	exit 1
fi

# Waiters that share a wait queue, then waiters on two; then both again
# with spurious wake-ups of the waiters' tasks.
"$build/waitrace" 1000 2>/dev/null
"$build/waitrace" 1000 4 2>/dev/null
"$build/waitrace" 1000 2 10 2>/dev/null
"$build/waitrace" 1000 4 10 2>/dev/null

for alloc in sbitmap pool; do
	"$build/native-bench" time "$alloc" 2 cross 8 20000 >/dev/null
	"$build/native-bench" time "$alloc" 1 same 32 20000 >/dev/null
done
echo "test-model: native runs of both allocators complete"
