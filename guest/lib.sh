# Helpers for the guest tests; sourced, not run.
# LAB_MODROOT: the modules_install root of the booted kernel (set by the Makefile).

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }

# lab_modprobe MODULE [PARAM=VALUE...]: load a module built for this kernel.
lab_modprobe() {
	modprobe -d "$LAB_MODROOT" "$@"
}

# lab_rmmod MODULE: unload a module loaded with lab_modprobe.
lab_rmmod() {
	modprobe -d "$LAB_MODROOT" -r "$1"
}

# lab_fio JOBFILE [fio options...]: run fio; JSON to $LAB_OUT/logs/<test>.fio.json.
lab_fio() {
	fio --eta=never --output-format=json+ --output="$LAB_OUT/logs/${LAB_TEST:-fio}.fio.json" "$@"
}

# lab_kunit MODULE SUITE: load a KUnit test module, then turn the KTAP
# results of SUITE (debugfs) into one result line per case in $LAB_RESULTS:
# "ok kunit.SUITE.CASE" or "not ok kunit.SUITE.CASE".  Fails when the suite
# did not pass or left no results.
lab_kunit() {
	module=$1 suite=$2
	results=/sys/kernel/debug/kunit/$suite/results
	ktap=$LAB_OUT/logs/kunit-$suite.ktap
	lab_modprobe "$module" || fail "cannot load $module"
	[ -r "$results" ] || fail "KUnit suite $suite left no results in debugfs"
	cp "$results" "$ktap"
	cat "$ktap"
	awk -v suite="$suite" '
		/^    (not )?ok [0-9]+ / {
			name = $0; sub(/^ *(not )?ok [0-9]+ /, "", name); sub(/ #.*/, "", name)
			status = ($1 == "not") ? "not ok" : "ok"
			if ($0 ~ /# SKIP/) status = "skip"
			print status " kunit." suite "." name
		}' "$ktap" >>"$LAB_RESULTS"
	lab_rmmod "$module"
	grep -q "^ok [0-9]* $suite" "$ktap" || fail "KUnit suite $suite failed"
}
