#!/bin/bash
# Build the tag benchmarks against one kernel source tree: lib/percpu_tags.c,
# lib/tag_ida.c and lib/sbitmap.c compiled unchanged with the kshim, into
#   OUT/native-bench   (gcc, POSIX threads on real cores: bench-tags-native)
#   OUT/scale          (clang -fsanitize=thread on the model: bench-scale)
#   OUT/model-check    (the model's known-answer cases)
#   OUT/waitrace       (two waiters racing two frees, once per seed, on the model,
#                       with or without spurious wake-ups)
#   OUT/exhaust        (small cases of the pool's waits, every schedule up to a
#                       preemption bound, on the model)
# NAME labels the pool's source in the results ("pool", "pool@REV").
#
# TAGS_CFLAGS (environment) is added to the kernel files' flags, e.g.
# -DCONFIG_PERCPU_TAGS_STATS for the pool with its counters.
#
# usage: build.sh SRC OUT NAME
set -eu

src=$1 out=$2 name=$3
here=$(cd "$(dirname "$0")/.." && pwd)
kshim=$here/kshim
tags=$here/tags

rm -rf "$out.tmp"
mkdir -p "$out.tmp/include" "$out.tmp/native" "$out.tmp/model"
inc=$out.tmp/include
# The kernel headers the kshim stands in for, and the three real ones.
while read -ra names; do
	case ${names[0]:-#} in '#'*) continue ;; esac
	for h in "${names[@]}"; do
		mkdir -p "$inc/$(dirname "$h")"
		echo '#include "kshim.h"' >"$inc/$h"
	done
done <"$kshim/headers"
cp "$src"/include/linux/{sbitmap,percpu_tags,tag_ida}.h "$inc/linux/"

# The pool's API generation for alloc.c: 3 for the series split for review
# (percpu_tag_add_waiter()), 2 from the second design on (its wait steps
# with percpu_tag_take_raced()), 1 for the first design.
api=1
if grep -q 'percpu_tag_add_waiter' "$inc/linux/percpu_tags.h"; then api=3
elif grep -q 'percpu_tag_take_raced' "$inc/linux/percpu_tags.h"; then api=2; fi

# Warnings as the kernel's build has them (it turns off pointer signedness).
kflags=(-O2 -g -std=gnu11 -fno-strict-aliasing -Wall -Wno-pointer-sign
	-Wno-unused-function "-I$inc" "-I$kshim" "-DTAGS_POOL_NAME=\"$name\""
	"-DTAGS_POOL_API=$api")
# shellcheck disable=SC2206 # TAGS_CFLAGS is a list of flags
kflags+=(${TAGS_CFLAGS:-})
kernel_files=("$src/lib/percpu_tags.c" "$src/lib/tag_ida.c" "$src/lib/sbitmap.c" "$tags/alloc.c")
hflags=(-O2 -g -Wall -Werror "-I$kshim")

# link OUTPUT SOURCE... [-lLIB]: link the objects of the sources in $dir.
link() {
	local cc=$1 output=$2 f objs=()
	shift 2
	for f in "$@"; do
		case $f in -l*) objs+=("$f") ;; *) objs+=("$dir/$(basename "$f" .c).o") ;; esac
	done
	"$cc" -o "$output" "${objs[@]}"
}

dir=$out.tmp/native
# Every function on its own 64-byte line: the timings moved by a third with
# where the linker happened to put the pool's hot functions (NOTES.md,
# 2026-12-07, the lost wake-up); aligned, the layout no longer decides.
for f in "${kernel_files[@]}"; do
	gcc "${kflags[@]}" -falign-functions=64 -c "$f" -o "$dir/$(basename "$f" .c).o"
done
for f in "$kshim/common.c" "$kshim/rt-native.c" "$tags/native.c"; do
	gcc "${hflags[@]}" -c "$f" -o "$dir/$(basename "$f" .c).o"
done
link gcc "$out.tmp/native-bench" "${kernel_files[@]}" "$kshim/common.c" \
	"$kshim/rt-native.c" "$tags/native.c" -lpthread

dir=$out.tmp/model
# ThreadSanitizer leaves out a load that a store to the same address follows
# in the same basic block (x++ is one write to it); the model wants the load:
# it is a miss of its own when another CPU modified the line.
for f in "${kernel_files[@]}" "$tags/model-check-ops.c"; do
	clang "${kflags[@]}" -DKSHIM_MODEL -fsanitize=thread \
		-mllvm -tsan-instrument-read-before-write=1 \
		-c "$f" -o "$dir/$(basename "$f" .c).o"
done
for f in "$kshim/common.c" "$kshim/rt-model.c" "$tags/scale.c" "$tags/model-check.c" \
	 "$tags/waitrace.c" "$tags/exhaust.c"; do
	clang "${hflags[@]}" -DKSHIM_MODEL -c "$f" -o "$dir/$(basename "$f" .c).o"
done
link clang "$out.tmp/scale" "${kernel_files[@]}" "$kshim/common.c" \
	"$kshim/rt-model.c" "$tags/scale.c"
link clang "$out.tmp/model-check" "$tags/model-check-ops.c" \
	"$kshim/common.c" "$kshim/rt-model.c" "$tags/model-check.c"
link clang "$out.tmp/waitrace" "${kernel_files[@]}" "$kshim/common.c" \
	"$kshim/rt-model.c" "$tags/waitrace.c"
link clang "$out.tmp/exhaust" "${kernel_files[@]}" "$kshim/common.c" \
	"$kshim/rt-model.c" "$tags/exhaust.c"

rm -rf "$out"
mv "$out.tmp" "$out"
