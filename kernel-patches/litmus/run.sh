#!/bin/bash
# Run every litmus test under kernel-patches/litmus/ (percpu-tags/, its
# mutants/ and found/) with herd7 against the Linux-kernel memory model of
# a kernel tree, and compare each result with the "Result:" line of the
# test's header comment.  One line per test:
#   ok   percpu-tags/wait-free: expected Never, observed Never
#   FAIL percpu-tags/mutants/wait-free-no-mb: expected Sometimes, observed Never
# then "litmus: N passed, N failed".
#
# herd7: $HERD7 if set, else herd7 on PATH, else ../shared/tools/herd7 from
# the repository's root (../shared/tools/herdtools7/README.md says how it
# was built).  Without one it prints one line saying so and exits 77, which
# make test's host-test records as skipped (not run), not as passed.
#
# usage: run.sh KSRC [TEST.litmus...]   (KSRC: make -s print-ksrc; the tests
#        default to every *.litmus under this folder)
# exit:  0 every result as expected; 1 a mismatch or a herd7 error;
#        77 no herd7; 2 usage or no tools/memory-model in KSRC
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ $# -lt 1 ]; then
	echo "usage: $0 KSRC [TEST.litmus...]" >&2
	exit 2
fi
model=$1/tools/memory-model
shift
if [ ! -f "$model/linux-kernel.cfg" ]; then
	echo "litmus: no Linux-kernel memory model in $model (make source prepares the tree)" >&2
	exit 2
fi

herd7=${HERD7:-}
if [ -z "$herd7" ]; then
	if command -v herd7 >/dev/null 2>&1; then
		herd7=$(command -v herd7)
	elif [ -x "$root/../shared/tools/herd7" ]; then
		herd7=$root/../shared/tools/herd7
	fi
fi
if [ -z "$herd7" ] || [ ! -x "$herd7" ]; then
	echo "litmus: not run: no herd7 (set HERD7=, put herd7 on PATH, or build ../shared/tools/herd7 as ../shared/tools/herdtools7/README.md says: herdtools7 7.57 with Debian's ocaml-nox, ocaml-dune, menhir)"
	exit 77
fi

if [ $# -gt 0 ]; then
	tests=("$@")
else
	mapfile -t tests < <(find "$here" -name '*.litmus' | sort)
fi
if [ ${#tests[@]} -eq 0 ]; then
	echo "litmus: no tests found under $here" >&2
	exit 2
fi

passed=0 failed=0
for t in "${tests[@]}"; do
	file=$(cd "$(dirname "$t")" && pwd)/$(basename "$t")
	name=${file#"$here"/}
	name=${name%.litmus}
	expected=$(sed -n 's/^ \* Result: *\([A-Za-z]*\).*/\1/p' "$file" | head -n1)
	if out=$(cd "$model" && timeout 600 "$herd7" -conf linux-kernel.cfg "$file" 2>&1); then
		observed=$(echo "$out" | awk '$1 == "Observation" { print $3; exit }')
	else
		observed=
	fi
	if [ -z "$observed" ]; then
		observed="error: $(echo "$out" | grep -m1 -i -E 'warning|error' || echo "$out" | tail -n1)"
	fi
	if [ -n "$expected" ] && [ "$observed" = "$expected" ]; then
		status=ok passed=$((passed + 1))
	else
		status=FAIL failed=$((failed + 1))
	fi
	printf '%-4s %s: expected %s, observed %s\n' "$status" "$name" "${expected:-(no Result: line)}" "$observed"
done
echo "litmus: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
