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
	fio --output-format=json+ --output="$LAB_OUT/logs/${LAB_TEST:-fio}.fio.json" "$@"
}
