# The map of the lab: every step, its inputs and where its outputs go.
# make help prints the lines below that start with "#:".
#
#: make               = make bench: packages, kernel source + our series, bench kernel,
#:                      our modules, the default benchmark -> results/ (about 40 min)
#: make test          packages, source, the test kernel, then every test; last line
#:                    "N passed, N failed" (about 42 min cold)
#: make test-rt       two tests on a PREEMPT_RT kernel (not part of make test)
#: make test-kasan    the guest tests on a KASAN kernel (not part of make test)
#: make kernel        the guest kernels (test, bench, PREEMPT_RT test)
#: make modules       our modules (drivers/*) for the test and bench kernels
#: make boot          an interactive shell in the guest (VCPUS=8 for 8 CPUs)
#: make bench BENCH=quick   the 3-point matrix (bench/matrix/quick, about 2 min)
#: make report        plots of every run, results/dashboard.html, README's status
#: make compare A=RUN B=RUN   two runs' pool/sbitmap ratios point by point
#: make check RUN=RUN a run's summaries made again from its raw files and checked
#: make bench-tags, bench-ida, bench-ida-native   allocator microbenchmarks
#: make bench-tags-native   the allocators on this machine's cores (host)
#: make bench-scale   the allocators on 1-256 simulated CPUs (host); it and
#:                    bench-tags-native measure beside the pool: with POOL_BASE=REV
#:                    the pool at REV, with POOL_WITHOUT=free_to the pool without
#:                    percpu_tag_free_to(), with POOL_STATS=1 the pool with its counters,
#:                    with POOL_WHATIF=NAME a what-if (bench/tags/pool-variant.sh)
#: make model-mutants  the pool with known bugs put back, each found by
#:                    the model's exhaustive cases (host; bench/tags/exhaust.c)
#: make checkpatch, fuzz    the kernel's checks on our code; longer fuzzing
#: make litmus        the pool's LKMM litmus tests with herd7 (host; in make test)
#: make series-check  every patch applied in turn: checkpatch --strict, W=1 builds (in make test)
#: make clean         build folders and test logs (keeps the unpacked source)
#: make print-ksrc    path of the prepared (patched) kernel source tree
#:
#: Variables: VCPUS (one count, default 4: the guest of boot, test and the
#: benchmark's full run), BENCH_VCPUS (the benchmark's vCPU sweep: default
#: "1 2 4 8" for the default matrix, VCPUS for the others), BENCH,
#: BENCH_REPS, BENCH_RUNTIME, BENCH_JOBS, BENCH_ONLY, BENCH_DIRTY=1 (measure
#: a tree with uncommitted changes), MEM, KCACHE (cache folder outside the
#: repository), KERNEL_FLAVOUR (boot: test or bench), JOBS (parallel kernel
#: build), GUEST_TESTS, TEST_TIMEOUT, GUEST_TIMEOUT.  Environment or command
#: line, the same.

SHELL := /bin/bash
.DEFAULT_GOAL := bench

KCACHE   ?= $(HOME)/.cache/percpu-tags-lab
VCPUS    ?= 4
ifneq ($(words $(VCPUS)),1)
$(error VCPUS="$(VCPUS)" is one vCPU count; a benchmark's sweep is BENCH_VCPUS="$(VCPUS)")
endif
MEM      ?= 2G
JOBS     ?= 3
KERNEL_FLAVOUR ?= test

# Debian's kernel source and what building and running it needs.
KPKG      := linux-source-6.12
KTARBALL  := /usr/src/linux-source-6.12.tar.xz
PACKAGES  := $(KPKG) make gcc flex bison bc libelf-dev libssl-dev cpio kmod \
	     rsync git qemu-system-x86 fio busybox-static python3 clang \
	     libclang-rt-14-dev gnuplot-nox python3-ply python3-git liburcu-dev \
	     valgrind shellcheck

KSRC         := $(KCACHE)/linux-source-6.12
SERIES_STAMP := $(KSRC)/.git/lab-series-applied
PATCHES      := kernel-patches/series $(wildcard kernel-patches/*.patch)
KBUILD_test  := $(KCACHE)/build-test
BT           := $(KCACHE)/bench-tags
KBUILD_bench := $(KCACHE)/build-bench
KBUILD_rt    := $(KCACHE)/build-rt
KBUILD_kasan := $(KCACHE)/build-kasan
LOGS         := $(KCACHE)/logs

.PHONY: help bench test test-rt test-kasan kernel kernel-test kernel-bench kernel-rt kernel-kasan \
	modules boot clean distclean \
	print-ksrc deps source drivers-test drivers-bench bench-tags bench-ida \
	bench-tags-native bench-scale \
	bench-ida-native fuzz checkpatch report compare check bench-budget bench-tree litmus series-check

help:
	@sed -n 's/^#: \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

# --- 1. Packages: installed when root, otherwise the one line to run. ---------
deps:
	@missing=$$(for p in $(PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "deps: installing" $$missing; \
			apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
		else \
			echo "deps: missing Debian packages; run as root:"; \
			echo "  apt-get install" $$missing; exit 1; \
		fi; \
	fi

# --- 2. Kernel source: pristine Debian tarball + kernel-patches/series. ------
source: $(SERIES_STAMP)
$(SERIES_STAMP): $(PATCHES) $(KTARBALL) kernel-patches/prepare-source.sh | deps
	kernel-patches/prepare-source.sh $(KTARBALL) $(KSRC) kernel-patches
	@touch $@

$(KTARBALL): | deps

# --- 3. Kernel configs: tinyconfig + configs/common.config + flavour. -------
CONFIGS := configs/common.config configs/make-config.sh
$(KBUILD_test)/.config: $(CONFIGS) configs/test.config $(SERIES_STAMP)
	configs/make-config.sh test $(KSRC) $(KBUILD_test)
	@touch $@
$(KBUILD_bench)/.config: $(CONFIGS) configs/bench.config $(SERIES_STAMP)
	configs/make-config.sh bench $(KSRC) $(KBUILD_bench)
	@touch $@
$(KBUILD_rt)/.config: $(CONFIGS) configs/rt.config $(SERIES_STAMP)
	configs/make-config.sh rt $(KSRC) $(KBUILD_rt)
	@touch $@
# The KASAN kernel: the test kernel's fragment, then its own ("# base: test").
$(KBUILD_kasan)/.config: $(CONFIGS) configs/test.config configs/kasan.config $(SERIES_STAMP)
	configs/make-config.sh kasan $(KSRC) $(KBUILD_kasan)
	@touch $@

# --- 4. Kernels and their modules (installed under KBUILD/modroot). ----------
kernel: kernel-test kernel-bench kernel-rt
kernel-test: $(KBUILD_test)/.lab-built
kernel-bench: $(KBUILD_bench)/.lab-built
kernel-rt: $(KBUILD_rt)/.lab-built
kernel-kasan: $(KBUILD_kasan)/.lab-built
$(KCACHE)/build-%/.lab-built: $(KCACHE)/build-%/.config $(SERIES_STAMP)
	@echo "kernel: building the $* kernel in $(@D) (linux-source-6.12 $$(cat $(KSRC)/.git/lab-source-version))"
	$(MAKE) -s -C $(KSRC) O=$(@D) -j$(JOBS) bzImage modules
	rm -rf $(@D)/modroot
	$(MAKE) -s -C $(KSRC) O=$(@D) modules_install INSTALL_MOD_PATH=$(@D)/modroot >/dev/null
	@touch $@

# --- 5. Our modules (drivers/*), built per kernel in KBUILD/lab-drivers. -----
DRIVERS     := $(patsubst drivers/%/Makefile,%,$(wildcard drivers/*/Makefile))
# drivers/idabench/native_ida.c is a host program (bench-ida-native), not module code.
DRIVER_SRCS := $(filter-out drivers/idabench/native_ida.c, \
	       $(wildcard drivers/*/*.c drivers/*/*.h drivers/*/Makefile))
modules: drivers-test drivers-bench
drivers-test: $(KBUILD_test)/.lab-drivers
drivers-bench: $(KBUILD_bench)/.lab-drivers
$(KCACHE)/build-%/.lab-drivers: $(KCACHE)/build-%/.lab-built $(DRIVER_SRCS)
	rsync -a --delete --exclude='*.o' --exclude='*.ko' drivers/ $(@D)/lab-drivers/
	for d in $(DRIVERS); do \
		$(MAKE) -s -C $(@D) M=$(@D)/lab-drivers/$$d W=1 modules || exit 1; \
	done
	@touch $@

# --- 6. The guest: booted by guest/run, userland is the host's root over 9p. -
boot: kernel-$(KERNEL_FLAVOUR)
	KERNEL=$(KBUILD_$(KERNEL_FLAVOUR))/arch/x86/boot/bzImage VCPUS=$(VCPUS) MEM=$(MEM) \
		TIMEOUT=86400 guest/run

# Environment of every guest command: where the repository, the guest
# scripts, the booted kernel's modules and the kernel tree (its
# tools/testing/kunit/kunit.py reads KUnit's results) are.
guest_env = env TEST_TIMEOUT=$(TEST_TIMEOUT) LAB_REPO=$(CURDIR) LAB_GUEST=$(CURDIR)/guest LAB_TESTS=$(CURDIR)/tests \
	LAB_KERNEL=$(1) LAB_MODROOT=$(KBUILD_$(1))/modroot LAB_DRIVERS=$(KBUILD_$(1))/lab-drivers LAB_KSRC=$(KSRC)

# --- 7. Tests: every tests/guest/*.sh in one test-kernel boot. ---------------
# make test, make test-rt and make test-kasan run tests/test-suite (test, rt
# or kasan): the host tests, each the target host-test-NAME below, then the
# guest tests in one boot of the test kernel; GUEST_TESTS_RT in one boot of
# the PREEMPT_RT kernel; or GUEST_TESTS_KASAN in one boot of the KASAN
# kernel.  Last line "N passed, N failed"; the logs and results.tap in
# $(LOGS)/test[-rt|-kasan]-DATE/.
test_suite = env MAKE="$(MAKE)" KCACHE=$(KCACHE) KSRC=$(KSRC) LOGS=$(LOGS) VCPUS=$(VCPUS) MEM=$(MEM) \
	TEST_MAXCPUS=$(TEST_MAXCPUS) TEST_DISK_SIZE=$(TEST_DISK_SIZE) TEST_DEVICES="$(TEST_DEVICES)" TEST_TIMEOUT=$(TEST_TIMEOUT) \
	GUEST_TIMEOUT=$(GUEST_TIMEOUT) HOST_TESTS="$(HOST_TESTS)" GUEST_TESTS="$(GUEST_TESTS)" \
	GUEST_TESTS_RT="$(GUEST_TESTS_RT)" GUEST_TESTS_KASAN="$(GUEST_TESTS_KASAN)" \
	GUEST_TIMEOUT_KASAN=$(GUEST_TIMEOUT_KASAN) TEST_TIMEOUT_KASAN=$(TEST_TIMEOUT_KASAN) tests/test-suite
# Host tests first (userspace builds of our kernel code, from the patched
# tree), then every tests/guest/*.sh in one boot of the test kernel.
GUEST_TESTS  ?= $(sort $(wildcard tests/guest/*.sh))
HOST_TESTS   ?= tag_ida-model tag_ida-fuzz bench-tools bench-model model-exhaustive shellcheck runner-tools dmesg-clean litmus series-check
FUZZ_SECONDS ?= 60
TAG_IDA_TOOLS = $(KSRC)/tools/testing/tag_ida
host-test-tag_ida-model = $(MAKE) -s -C $(TAG_IDA_TOOLS) test
host-test-tag_ida-fuzz  = $(MAKE) -s -C $(TAG_IDA_TOOLS) fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_FLAGS=-seed=1
host-test-bench-tools   = env LAB_KSRC=$(KSRC) $(PY) -m labbench test
host-test-shellcheck    = shellcheck -f gcc $(SHELL_SCRIPTS)
host-test-runner-tools  = tests/test-runner
# tests/guest/zz-dmesg-clean.sh on made-up logs: passes announced KUnit warnings only.
host-test-dmesg-clean   = tests/test-dmesg-clean
# Every shell script: *.sh and files whose #! line runs bash or sh
# (shellcheck's settings: .shellcheckrc).
SHELL_SCRIPTS = $(shell find guest tests bench configs kernel-patches .ci -type f -not -path '*/fixtures/*' | sort | \
	xargs awk 'FNR == 1 { if (FILENAME ~ /\.sh$$/ || /^\#!.*\/(env )?(ba)?sh/) print FILENAME; nextfile }')
host-test-bench-model   = bench/tags/test-model.sh $(BT)/pool
# The pool's small wait cases, every schedule up to 1 or 2 preemptions
# (bench/tags/exhaust.c; make model-mutants shows it finding known bugs).
host-test-model-exhaustive = $(BT)/pool/exhaust
# The pool's litmus tests (kernel-patches/litmus/) with herd7 ($(HERD7), else
# herd7 on PATH, else ../shared/tools/herd7) against the patched tree's
# tools/memory-model; without herd7 it exits 77, recorded as skipped.
host-test-litmus        = kernel-patches/litmus/run.sh $(KSRC)
# The series bisects: each patch in turn on the pristine tree, checkpatch
# --strict on it and W=1 builds of the objects the series touched so far,
# configured as the test kernel (a scratch worktree and build folder).
host-test-series-check  = kernel-patches/series-check.sh $(KSRC) kernel-patches \
	$(KBUILD_test)/.config $(KCACHE)/series-check
host-test-%:
	@$(or $(host-test-$*),$(error no host test $*; HOST_TESTS= some of: tag_ida-model tag_ida-fuzz bench-tools bench-model model-exhaustive shellcheck runner-tools dmesg-clean litmus series-check))
test: drivers-test $(BT)/pool/.built
	@$(test_suite) test
GUEST_TIMEOUT ?= 1800

# GUEST_TESTS_RT, named rt-*, in a boot of the PREEMPT_RT kernel.  Not part
# of make test: the PREEMPT_RT kernel's cold build (11 min 5 s here on
# 2026-12-06) took a cold make test past 45 minutes, for 27 s of tests.  The
# test kernel is fully preemptible and runs lockdep's PREEMPT_RT nesting
# checks (configs/test.config) instead.
#   in: GUEST_TESTS_RT, the PREEMPT_RT kernel
#   out: $(LOGS)/test-rt-DATE/, last line "N passed, N failed"
GUEST_TESTS_RT ?= tests/guest/kunit-percpu_tags.sh tests/guest/null_blk-verify.sh
test-rt: $(KBUILD_rt)/.lab-built
	@$(test_suite) rt

# The guest tests again on the KASAN kernel, in one boot, but for the 100
# load/unload cycles under kmemleak and the in-tree IDA test.  Not part of
# make test: the KASAN kernel's cold build would take a cold make test past
# 40 minutes.
#   in: GUEST_TESTS_KASAN, the KASAN kernel and our modules built for it
#   out: $(LOGS)/test-kasan-DATE/, last line "N passed, N failed"
GUEST_TESTS_KASAN ?= $(filter-out %/tagpool_blk-leaks.sh %/test_ida.sh,$(GUEST_TESTS))
# The whole KASAN guest: its 17 tests took 45 minutes here (2026-12-05);
# on 2026-12-07 its 24 tests outgrew 3600 s (20 done in 3514 s).
GUEST_TIMEOUT_KASAN ?= 5400
# One test there: python3 alone starts in about 25 s on the KASAN guest (a
# second on the test kernel), and blkmq-semantics starts it 11 times.
TEST_TIMEOUT_KASAN ?= 1200
test-kasan: $(KBUILD_kasan)/.lab-drivers
	@$(test_suite) kasan
# The tests' guest has 64 possible CPUs, VCPUS of them online: the pool must
# size itself by the CPUs that use it, not the possible ones.
TEST_MAXCPUS  ?= 64
# A sparse scratch disk for the virtio-blk tests (tests/guest/blkmq-virtio-loop.sh).
TEST_DISK_SIZE ?= 256M
# The emulated disks of the test kernel's boot (guest/qemu-devices): an NVMe
# controller with two namespaces on one tag set, the second slow (100 I/Os
# a second), and a virtio-scsi host with two LUNs; file-backed for verify=
# (tests/guest/devices-*.sh).
TEST_DEVICES ?= nvme:ns=2,slow=100,file,size=256M virtio-scsi:luns=2,file,size=256M
TEST_TIMEOUT  ?= 420

# --- 8. Benchmarks: a matrix of fio points on the bench kernel -> results/. ---
# One rule names every run folder: results/DATE-TIME-COMMIT[-SUFFIX]
# ($(call run_dir,-SUFFIX), the date when the recipe starts).  Every make
# bench* refuses a tree with uncommitted changes (bench/tree-state) unless
# BENCH_DIRTY=1, and ends by adding the run to results/index.jsonl and
# packing its raw files into its raw.tar.xz (labbench index, pack).
run_dir = results/$(shell date +%Y-%m-%d-%H%M)-$(shell git rev-parse --short HEAD 2>/dev/null || echo nocommit)$(1)
finish_run = $(PY) -m labbench index results $(1) && $(PY) -m labbench pack $(1)
BENCH_DIRTY ?=
bench-tree:
	@[ "$$(bench/tree-state)" != dirty ] || [ -n "$(BENCH_DIRTY)" ] || { \
		echo "bench: the tree has uncommitted changes (git status): commit them, or measure"; \
		echo "bench: them anyway with BENCH_DIRTY=1 (the run is then marked dirty)"; exit 2; }

# BENCH names a matrix in bench/matrix/ (default: about 33 minutes;
# quick: about 2).  A run boots once per count of BENCH_VCPUS (default
# matrix: 1 2 4 8; the others: VCPUS): at BENCH_FULL_VCPUS (VCPUS when it
# is one of them, else the last) every point, at the other counts the
# matrix's sweep= points (bench/guest/bench-run BENCH_PART=sweep).  Its budget,
# points x reps x 2 allocators x runtime per count (labbench matrix), is
# the first line make bench prints; the guest prints it again when it
# starts.  BENCH_REPS, BENCH_RUNTIME (seconds of fio per run) and
# BENCH_JOBS (fio jobs of every point: N, or Nx for N per vCPU) override
# the matrix; BENCH_ONLY="NAME ..." runs only those points, at every count
# (make bench BENCH_ONLY=null-scarce BENCH_VCPUS=2 BENCH_REPS=9).
#   in:  bench/matrix/$(BENCH), fio-jobs/, the bench kernel and modules,
#        the emulated disks BENCH_DEVICES
#   out: results/DATE-TIME-COMMIT[-BENCH][-only]/ (results/README.md), the
#        full count's run there and each other count's in vcpus-N/:
#        points.tsv and runs.tsv (bench/guest/bench-run), summary.json and
#        summary.txt (labbench summary, checked by labbench check), with
#        several counts sweep.json and sweep.txt (labbench sweep); fio JSON,
#        telemetry and logs in raw.tar.xz
BENCH         ?= default
BENCH_MATRIX  := bench/matrix/$(BENCH)
BENCH_VCPUS   ?= $(if $(filter default,$(BENCH)),1 2 4 8,$(VCPUS))
BENCH_FULL_VCPUS ?= $(if $(filter $(VCPUS),$(BENCH_VCPUS)),$(VCPUS),$(lastword $(BENCH_VCPUS)))
BENCH_REPS    ?=
BENCH_RUNTIME ?=
BENCH_JOBS    ?=
BENCH_ONLY    ?=
BENCH_TIMEOUT ?= 3600
# The disks QEMU emulates for the matrix's emulated: points (guest/qemu-devices),
# on QEMU's null-co (no host I/O): NVMe with 4 namespaces, virtio-blk with
# one queue and with one per vCPU, virtio-scsi with 4 LUNs.
BENCH_DEVICES ?= nvme:ns=4 virtio-blk:queues=1 virtio-blk virtio-scsi:luns=4
bench: bench-tree bench-budget drivers-bench
	@run=$(call run_dir,$(if $(filter-out default,$(BENCH)),-$(BENCH))$(if $(BENCH_ONLY),-only)); \
	mkdir -p $$run; echo "bench: results in $$run"; \
	for v in $(BENCH_VCPUS); do \
		out=$$run part=full; \
		[ $$v = $(BENCH_FULL_VCPUS) ] || out=$$run/vcpus-$$v part=sweep; \
		echo "bench: $$v vCPUs ($$part) into $$out"; \
		bench/record-run $$out $$v bench; cp $(KBUILD_bench)/.config $$out/kernel.config; \
		KERNEL=$(KBUILD_bench)/arch/x86/boot/bzImage VCPUS=$$v MEM=$(MEM) OUT=$(CURDIR)/$$out \
			TIMEOUT=$(BENCH_TIMEOUT) DEVICES="$(BENCH_DEVICES)" guest/run $(call guest_env,bench) BENCH_MATRIX=$(CURDIR)/$(BENCH_MATRIX) \
			BENCH_PART=$$part BENCH_REPS=$(BENCH_REPS) BENCH_RUNTIME=$(BENCH_RUNTIME) BENCH_JOBS=$(BENCH_JOBS) \
			BENCH_ONLY="$(BENCH_ONLY)" bench/guest/bench-run || exit 1; \
		$(PY) -m labbench summary $$out && $(PY) -m labbench check $$out || exit 1; \
	done; \
	if [ $(words $(BENCH_VCPUS)) -gt 1 ]; then $(PY) -m labbench sweep $$run || exit 1; fi; \
	$(call finish_run,$$run)
bench-budget:
	@[ -f $(BENCH_MATRIX) ] || { echo "bench: no matrix $(BENCH_MATRIX); BENCH= one of: $$(cd bench/matrix && echo *)"; exit 2; }
	@case " $(BENCH_VCPUS) " in *" $(BENCH_FULL_VCPUS) "*) ;; \
		*) echo "bench: BENCH_FULL_VCPUS=$(BENCH_FULL_VCPUS) is not one of BENCH_VCPUS=$(BENCH_VCPUS)"; exit 2 ;; esac
	@if command -v python3 >/dev/null; then \
		$(PY) -m labbench matrix $(BENCH_MATRIX) $(BENCH_REPS:%=--reps %) $(BENCH_RUNTIME:%=--runtime %) \
			--vcpus "$(BENCH_VCPUS)" --full-vcpus $(BENCH_FULL_VCPUS) --only "$(BENCH_ONLY)" \
			$(if $(wildcard $(KBUILD_bench)/.lab-built),,--unbuilt); \
	else \
		echo "bench: the $(BENCH) matrix takes the time written at the top of $(BENCH_MATRIX)" \
			"(default: about 33 minutes; make bench BENCH=quick: about 2)"; \
	fi

# Plots of every run (RUN/report/*.svg, gnuplot; generated, ignored by
# git), one static page over all of them, results/dashboard.html (no
# server needed), from results/index.jsonl, and README's status block.
# BASELINE=<run> adds a column against that run.  Runs drawn already keep
# their plots; REDRAW=1 draws them all again.  Changes nothing when nothing
# was measured since.
#   in: results/index.jsonl, results/*/summary.json
#   out: results/*/report/, results/dashboard.html, README.md's status block
BASELINE ?=
REDRAW   ?=
report:
	REDRAW=$(REDRAW) $(PY) -m labbench report results --readme README.md $(BASELINE:%=--baseline %)

# A run's summaries made again from its raw files (raw.tar.xz unpacked to
# a temporary folder) and checked against fio's JSON and the telemetry.
#   in: results/RUN/   out: the terminal; exit 1 when anything disagrees
check:
	@[ -n "$(RUN)" ] || { echo "usage: make check RUN=<run> (a folder under results/)"; exit 2; }
	@$(PY) -m labbench check $(if $(wildcard $(RUN)/summary.json),$(RUN),results/$(notdir $(RUN)))

# Two runs point by point: each one's pool/sbitmap ratio and how it moved,
# by the verdict rule of labbench.stats.
#   in: results/A/summary.json, results/B/summary.json   out: the terminal
compare:
	@[ -n "$(A)" ] && [ -n "$(B)" ] || { echo "usage: make compare A=<run> B=<run> (folders under results/)"; exit 2; }
	@$(PY) -m labbench compare $(A) $(B)

# Allocator microbenchmark: pool against sbitmap_queue, one boot per vCPU
# count, every depth and repetition interleaved inside the boot.
#   in:  drivers/tagbench on the bench kernel
#   out: results/DATE-COMMIT-tags/: vcpus-N/tagbench.txt (bench/guest/load-bench),
#        summary.json and summary.md (labbench.tagbench)
BENCH_TAGS_VCPUS ?= 1 2 4 8
BENCH_TAGS_ARGS  ?= depths=8,32,128,1024 reps=5 pairs=100000 inflight=4
bench-tags: bench-tree drivers-bench
	@run=$(call run_dir,-tags); \
	mkdir -p $$run; echo "bench-tags: results in $$run"; \
	bench/record-run $$run "$(BENCH_TAGS_VCPUS)" bench-tags; cp $(KBUILD_bench)/.config $$run/kernel.config; \
	for v in $(BENCH_TAGS_VCPUS); do \
		echo "bench-tags: vcpus=$$v $(BENCH_TAGS_ARGS)"; \
		KERNEL=$(KBUILD_bench)/arch/x86/boot/bzImage VCPUS=$$v MEM=$(MEM) OUT=$(CURDIR)/$$run/vcpus-$$v \
			guest/run $(call guest_env,bench) bench/guest/load-bench tagbench $(BENCH_TAGS_ARGS) || exit 1; \
	done; \
	$(PY) -m labbench tagbench $$run && $(call finish_run,$$run)

# The kernel's own IDA natively: lib/idr.c, lib/xarray.c and lib/radix-tree.c
# from the patched tree with the userspace shim of tools/testing/shared (as
# tools/testing/radix-tree builds them, but with the kernel's 64-slot nodes),
# linked with drivers/idabench/native_ida.c; objects in $(IDA_NATIVE).
# The kernel's files are compiled without warnings (-w), ours with -Wextra;
# -isystem keeps the kernel's headers from warning in our file.
IDA_NATIVE       := $(KCACHE)/ida-native
IDA_NATIVE_KSRCS := $(addprefix $(KSRC)/,lib/idr.c lib/xarray.c lib/radix-tree.c \
		    tools/lib/slab.c tools/lib/find_bit.c tools/lib/bitmap.c \
		    tools/lib/hweight.c tools/lib/vsprintf.c tools/testing/shared/linux.c)
IDA_NATIVE_FLAGS := $(addprefix -isystem ,$(KSRC)/tools/testing/shared $(IDA_NATIVE) \
		    $(KSRC)/tools/include $(KSRC)/lib $(KSRC)/tools/testing/radix-tree) \
		    -D_LGPL_SOURCE -O2 -g -pthread
$(IDA_NATIVE)/native_ida: drivers/idabench/native_ida.c $(SERIES_STAMP)
	@mkdir -p $(@D)/generated
	@echo '#define XA_CHUNK_SHIFT 6' >$(@D)/generated/map-shift.h
	@echo '#define CONFIG_64BIT 1' >$(@D)/generated/bit-length.h
	@cp $(KSRC)/tools/testing/shared/autoconf.h $(@D)/generated/
	cd $(@D) && $(CC) $(IDA_NATIVE_FLAGS) -w -c $(IDA_NATIVE_KSRCS)
	$(CC) $(IDA_NATIVE_FLAGS) -Wall -Wextra -Werror -o $@ $< \
		$(addprefix $(@D)/,$(notdir $(IDA_NATIVE_KSRCS:.c=.o))) -lurcu
# Natively, tag_ida (tools/testing/tag_ida/bench) against the IDA
# (native_ida), BENCH_IDA_NATIVE_RUNS times each, alternating; same line
# format, "grown"/"prealloc" rows for tag_ida, "ida" rows for the IDA.
BENCH_IDA_NATIVE_RUNS ?= 3
bench-ida-native: $(IDA_NATIVE)/native_ida
	@for i in $$(seq $(BENCH_IDA_NATIVE_RUNS)); do \
		$(MAKE) -s -C $(TAG_IDA_TOOLS) bench || exit 1; \
		$(IDA_NATIVE)/native_ida || exit 1; \
	done

# ID allocator benchmark: tag_ida against the xarray IDA in one boot, then
# natively (bench-ida-native) into native.txt.
#   in:  drivers/idabench on the bench kernel, native_ida, tag_ida's bench
#   out: results/DATE-COMMIT-ida/: guest/idabench.txt (bench/guest/load-bench),
#        native.txt, summary.json and summary.md (labbench.idabench)
BENCH_IDA_ARGS ?= sizes=1024,65536,1048576 reps=5
bench-ida: bench-tree drivers-bench $(IDA_NATIVE)/native_ida
	@run=$(call run_dir,-ida); \
	mkdir -p $$run; echo "bench-ida: results in $$run"; \
	bench/record-run $$run 1 bench-ida; cp $(KBUILD_bench)/.config $$run/kernel.config; \
	KERNEL=$(KBUILD_bench)/arch/x86/boot/bzImage VCPUS=1 MEM=$(MEM) OUT=$(CURDIR)/$$run/guest \
		guest/run $(call guest_env,bench) bench/guest/load-bench idabench $(BENCH_IDA_ARGS) || exit 1; \
	$(MAKE) -s bench-ida-native >$$run/native.txt || exit 1; \
	$(PY) -m labbench idabench $$run && $(call finish_run,$$run)

# --- 9. The allocators on the host: native timing and the N-CPU model. ------
# lib/percpu_tags.c, lib/tag_ida.c and lib/sbitmap.c of the patched tree,
# compiled unchanged against bench/kshim (bench/tags/build.sh) into
# $(BT)/pool: native-bench (gcc, threads on real cores), scale (clang
# -fsanitize=thread hooks on simulated CPUs) and model-check.  POOL_BASE=REV
# also builds the pool as this repository's series had it at REV
# (bench/tags/pool-at-rev.sh), measured beside the current one.
# POOL_WITHOUT=FEATURE also builds the current pool with one optimisation
# taken out (bench/tags/pool-variant.sh; free_to: percpu_tag_free_to(), so
# frees go to the completing CPU's cache; free_to_rule: its rule, so every
# tag goes to the given CPU's cache), labelled pool-without-FEATURE.
# POOL_STATS=1 also builds the current pool with its contention counters
# compiled in (CONFIG_PERCPU_TAGS_STATS, as the lab's kernels have them;
# the other builds have them out, as the series' default), labelled
# pool-stats: their cost per alloc+free in make bench-tags-native.
# Results: results/DATE-COMMIT-native/ and -scale/ (results/README.md).
BT_SRCS     := $(wildcard bench/kshim/* bench/tags/*.c bench/tags/*.h) bench/tags/build.sh
POOL_BASE   ?=
POOL_WITHOUT ?=
POOL_WHATIF ?=
POOL_STATS  ?=
PY          := PYTHONPATH=$(CURDIR)/bench python3
$(BT)/pool/.built: $(SERIES_STAMP) $(BT_SRCS)
	bench/tags/build.sh $(KSRC) $(@D) pool
	@touch $@
$(BT)/base-%/.built: $(BT_SRCS) bench/tags/pool-at-rev.sh | source
	bench/tags/pool-at-rev.sh $* $(KSRC) $(BT)/src-$*
	bench/tags/build.sh $(BT)/src-$* $(@D) pool@$*
	@touch $@
$(BT)/without-%/.built: $(SERIES_STAMP) $(BT_SRCS) bench/tags/pool-variant.sh
	bench/tags/pool-variant.sh without-$* $(KSRC) $(BT)/src-without-$*
	bench/tags/build.sh $(BT)/src-without-$* $(@D) pool-without-$*
	@touch $@
$(BT)/whatif-%/.built: $(SERIES_STAMP) $(BT_SRCS) bench/tags/pool-variant.sh bench/tags/variants/whatif-%.diff
	bench/tags/pool-variant.sh whatif-$* $(KSRC) $(BT)/src-whatif-$*
	bench/tags/build.sh $(BT)/src-whatif-$* $(@D) pool-whatif-$*
	@touch $@
$(BT)/stats/.built: $(SERIES_STAMP) $(BT_SRCS)
	TAGS_CFLAGS=-DCONFIG_PERCPU_TAGS_STATS bench/tags/build.sh $(KSRC) $(@D) pool-stats
	@touch $@
# The pool with a known bug put back (bench/tags/pool-variant.sh): the
# exhaustive cases must find each, as a lost wake-up, a lost tag or a warning.
MUTANTS := finish_wait free_order refill_bit rt_wake wake_batch flush_one
$(BT)/mutant-%/.built: $(SERIES_STAMP) $(BT_SRCS) bench/tags/pool-variant.sh
	bench/tags/pool-variant.sh mutant-$* $(KSRC) $(BT)/src-mutant-$*
	bench/tags/build.sh $(BT)/src-mutant-$* $(@D) pool-mutant-$*
	@touch $@
model-mutants: $(foreach m,$(MUTANTS),$(BT)/mutant-$(m)/.built)
	@for m in $(MUTANTS); do \
		if $(BT)/mutant-$$m/exhaust free1 free2 refill flush 2>/dev/null; then \
			echo "model-mutants: $$m not found"; exit 1; fi; \
	done; echo "model-mutants: every mutant found"
.PHONY: model-mutants
BT_BUILT = $(BT)/pool/.built $(if $(POOL_BASE),$(BT)/base-$(POOL_BASE)/.built) \
	$(if $(POOL_WITHOUT),$(BT)/without-$(POOL_WITHOUT)/.built) $(if $(POOL_STATS),$(BT)/stats/.built) \
	$(if $(POOL_WHATIF),$(BT)/whatif-$(POOL_WHATIF)/.built)
BT_BINS  = --bin pool=$(BT)/pool $(if $(POOL_BASE),--bin pool@$(POOL_BASE)=$(BT)/base-$(POOL_BASE)) \
	$(if $(POOL_WITHOUT),--bin pool-without-$(POOL_WITHOUT)=$(BT)/without-$(POOL_WITHOUT)) \
	$(if $(POOL_STATS),--bin pool-stats=$(BT)/stats) \
	$(if $(POOL_WHATIF),--bin pool-whatif-$(POOL_WHATIF)=$(BT)/whatif-$(POOL_WHATIF))

# ns per alloc+free pair on 1, 2, 4, ... THREADS pinned threads (ABBA,
# BENCH_NATIVE_REPS; THREADS defaults to the cores), perf stat and perf c2c
# where there is a PMU, instructions per pair from callgrind, and the model's
# matching scenario beside each.  BENCH_NATIVE_ARGS=--quick: 2 reps.
BENCH_NATIVE_REPS ?= 5
BENCH_NATIVE_ARGS ?=
THREADS ?= $(shell nproc)
bench-tags-native: bench-tree $(BT_BUILT)
	@run=$(call run_dir,-native); ACCEL=none bench/record-run $$run $(THREADS) bench-tags-native; \
	$(PY) -m labbench tagsnative $$run $(BT_BINS) --reps $(BENCH_NATIVE_REPS) \
		--threads $(THREADS) $(BENCH_NATIVE_ARGS) && \
	$(call finish_run,$$run)

# Misses by class and weighted, wake-ups, accesses, memory per I/O on 1-256
# simulated CPUs at quanta 4, 64, 256 and duty cycles 100 % and 10 %, and
# the irq scenarios again with device time (8 minutes for the pool alone,
# 15-24 with POOL_BASE, on 2 cores); BENCH_SCALE_ARGS=--quick for
# fewer points.  The rank agreement and the native instruction counts come
# from the newest native run when there is one.
BENCH_SCALE_ARGS ?=
bench-scale: bench-tree $(BT_BUILT)
	@run=$(call run_dir,-scale); ACCEL=none bench/record-run $$run 256 bench-scale; \
	native=$$(ls -d results/*-native 2>/dev/null | tail -n1); \
	$(PY) -m labbench tagsscale $$run $(BT_BINS) $${native:+--native $$native} $(BENCH_SCALE_ARGS) && \
	$(call finish_run,$$run)

# Longer fuzzing of tag_ida than make test's smoke run (fixed seed there,
# random here).
fuzz: source
	$(MAKE) -C $(TAG_IDA_TOOLS) fuzz FUZZ_SECONDS=$(or $(FUZZ_LONG_SECONDS),600)

# The kernel's own checks on our code: checkpatch --strict on every patch
# and on our modules (Debian's python3 for its SPDX check).
# Run from the kernel tree, where checkpatch expects to be.  That tree has
# no upstream history (Debian's tarball): the commit of a Fixes: tag cannot
# be looked up there, so that one check is off.
checkpatch: source
	cd $(KSRC) && PATH=/usr/bin:$$PATH scripts/checkpatch.pl --strict --terse \
		--ignore UNKNOWN_COMMIT_ID $(addprefix $(CURDIR)/,$(filter-out %/0000-cover-letter.patch,$(wildcard kernel-patches/[0-9]*.patch)))
	cd $(KSRC) && PATH=/usr/bin:$$PATH scripts/checkpatch.pl --strict --terse --no-tree \
		-f $(addprefix $(CURDIR)/,$(wildcard drivers/*/*.c))

clean:
	rm -rf $(KBUILD_test) $(KBUILD_bench) $(KBUILD_rt) $(KBUILD_kasan) $(KCACHE)/build-*.config-scratch $(LOGS) $(IDA_NATIVE)
distclean: clean
	rm -rf $(KCACHE)

print-ksrc:
	@echo $(KSRC)

# The series bisects (also a host test of make test).
#   in: kernel-patches/, the test kernel's .config   out: $(KCACHE)/series-check/
series-check: $(KBUILD_test)/.config
	$(host-test-series-check)

# The litmus tests alone: one line per test (expected and observed result),
# then "litmus: N passed, N failed"; exit 77 without herd7.  The memory model
# is Debian's, unpatched: this does not prepare the tree (make source does).
#   in: kernel-patches/litmus/**/*.litmus, $(KSRC)/tools/memory-model
litmus:
	@kernel-patches/litmus/run.sh $(KSRC)
