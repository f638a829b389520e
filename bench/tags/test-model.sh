#!/bin/bash
# Host test of the allocator instruments built in BUILD (bench/tags/build.sh):
# the model's known-answer cases, a 2-CPU run of every allocator and
# completion mode that must pass its own checks and give the same figures
# twice with one seed, two waiters racing two frees on 1000 seeds without a
# lost wakeup (on one wait queue, then on two; without and with spurious
# wake-ups of the waiters), and a short native run of each allocator.
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
done)
first=$(echo "$scenarios" | "$build/scale")
second=$(echo "$scenarios" | "$build/scale")
if [ "$first" != "$second" ]; then
	echo "test-model: the same seed gave different figures:"
	diff <(echo "$first") <(echo "$second") || true
	exit 1
fi
echo "$first" | cut -f1-9
echo "test-model: 2-CPU model runs pass their checks and repeat exactly"
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
