# The map of the lab: every step, its inputs and where its outputs go.
#
#   make            = make bench: packages, kernel source + our series,
#                     bench kernel, our modules, default benchmark -> results/
#                     (a vCPU sweep, about 20 minutes; BENCH=quick about 2)
#   make test       packages, source, test kernel, then every test;
#                   last line "N passed, N failed"
#   make kernel     the guest kernels (test, bench, PREEMPT_RT test)
#   make test-kasan the guest tests on a KASAN kernel (not part of make test)
#   make modules    our modules (drivers/*) for both kernels
#   make boot       an interactive shell in the guest (VCPUS=8 for 8 CPUs)
#   make bench BENCH=quick   the 3-point matrix (bench/matrix/)
#   make report     plots of every run and results/dashboard.html
#   make compare A=RUN B=RUN   B/A IOPS per point with a noise-aware verdict
#   make bench-tags, bench-ida, bench-ida-native   allocator microbenchmarks
#   make bench-tags-native   the allocators on this machine's cores (host)
#   make bench-scale         the allocators on 1-256 simulated CPUs (host)
#   make checkpatch, fuzz      the kernel's checks on our code; longer fuzzing
#   make litmus     the pool's LKMM litmus tests with herd7 (host; in make test)
#   make clean      build folders and test logs (keeps the unpacked source)
#   make print-ksrc path of the prepared (patched) kernel source tree
#
# Variables: KCACHE (cache folder outside the repository), VCPUS, MEM,
# KERNEL_FLAVOUR (for boot: test or bench), JOBS (parallel kernel build).

SHELL := /bin/bash
.DEFAULT_GOAL := bench

KCACHE   ?= $(HOME)/.cache/percpu-tags-lab
VCPUS    ?= 4
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

.PHONY: bench test test-kasan kernel kernel-test kernel-bench kernel-rt kernel-kasan \
	modules boot clean distclean \
	print-ksrc deps source drivers-test drivers-bench bench-tags bench-ida \
	bench-tags-native bench-scale \
	bench-ida-native fuzz checkpatch report compare bench-budget litmus

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

# --- 3. Kernel configs: tinyconfig + guest/config-common.frag + flavour. -----
$(KBUILD_test)/.config: guest/config-common.frag guest/config-test.frag guest/make-config.sh $(SERIES_STAMP)
	guest/make-config.sh test $(KSRC) $(KBUILD_test)
	@touch $@
$(KBUILD_bench)/.config: guest/config-common.frag guest/config-bench.frag guest/make-config.sh $(SERIES_STAMP)
	guest/make-config.sh bench $(KSRC) $(KBUILD_bench)
	@touch $@
$(KBUILD_rt)/.config: guest/config-common.frag guest/config-rt.frag guest/make-config.sh $(SERIES_STAMP)
	guest/make-config.sh rt $(KSRC) $(KBUILD_rt)
	@touch $@
# The KASAN kernel: the test kernel's fragment, then its own ("# base: test").
$(KBUILD_kasan)/.config: guest/config-common.frag guest/config-test.frag guest/config-kasan.frag \
			 guest/make-config.sh $(SERIES_STAMP)
	guest/make-config.sh kasan $(KSRC) $(KBUILD_kasan)
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
guest_env = env TEST_TIMEOUT=$(TEST_TIMEOUT) LAB_REPO=$(CURDIR) LAB_GUEST=$(CURDIR)/guest \
	LAB_KERNEL=$(1) LAB_MODROOT=$(KBUILD_$(1))/modroot LAB_DRIVERS=$(KBUILD_$(1))/lab-drivers LAB_KSRC=$(KSRC)

# --- 7. Tests: every guest/tests/*.sh in one test-kernel boot. ---------------
# $(call guest_tests,FLAVOUR,TIMEOUT,OUT [DISK=...],[VAR=... ]guest/run-tests TESTS):
# one boot of the FLAVOUR kernel with the tests' CPUs and memory.
guest_tests = KERNEL=$(KBUILD_$(1))/arch/x86/boot/bzImage VCPUS=$(VCPUS) MEM=$(MEM) \
	MAXCPUS=$(TEST_MAXCPUS) TIMEOUT=$(2) OUT=$(3) guest/run $(call guest_env,$(1)) $(4)
# Host tests first (userspace builds of our kernel code, from the patched
# tree), then every guest/tests/*.sh in one boot of the test kernel.
GUEST_TESTS  ?= $(sort $(wildcard guest/tests/*.sh))
HOST_TESTS   ?= tag_ida-model tag_ida-fuzz bench-tools bench-model shellcheck runner-tools litmus
FUZZ_SECONDS ?= 60
TAG_IDA_TOOLS = $(KSRC)/tools/testing/tag_ida
host-test-tag_ida-model = $(MAKE) -s -C $(TAG_IDA_TOOLS) test
host-test-tag_ida-fuzz  = $(MAKE) -s -C $(TAG_IDA_TOOLS) fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_FLAGS=-seed=1
host-test-bench-tools   = env LAB_KSRC=$(KSRC) $(PY) -m labbench.test_tools
host-test-shellcheck    = shellcheck -f gcc $(SHELL_SCRIPTS)
host-test-runner-tools  = guest/test-runner
# Every shell script: *.sh and files whose #! line runs bash or sh
# (shellcheck's settings: .shellcheckrc).
SHELL_SCRIPTS = $(shell find guest bench kernel-patches .ci -type f -not -path '*/fixtures/*' | sort | \
	xargs awk 'FNR == 1 { if (FILENAME ~ /\.sh$$/ || /^\#!.*\/(env )?(ba)?sh/) print FILENAME; nextfile }')
host-test-bench-model   = bench/tags/test-model.sh $(BT)/pool
# The pool's litmus tests (kernel-patches/litmus/) with herd7 ($(HERD7), else
# herd7 on PATH, else ../shared/tools/herd7) against the patched tree's
# tools/memory-model; without herd7 it exits 77, recorded as skipped.
host-test-litmus        = kernel-patches/litmus/run.sh $(KSRC)
# Then GUEST_TESTS_RT, named rt-*, in a boot of the PREEMPT_RT kernel.
GUEST_TESTS_RT ?= guest/tests/kunit-percpu_tags.sh guest/tests/null_blk-verify.sh
test: drivers-test $(BT)/pool/.built $(if $(GUEST_TESTS_RT),$(KBUILD_rt)/.lab-built)
	@run=$(LOGS)/test-$$(date +%Y%m%d-%H%M%S); mkdir -p $$run/guest; \
	echo "test: logs in $$run"; guest/record-run $$run $(VCPUS) test; \
	for t in $(HOST_TESTS); do echo $$t; done >$$run/expected; \
	$(foreach t,$(HOST_TESTS),guest/host-test $$run/host $(t) $(host-test-$(t));) \
	for t in $(GUEST_TESTS); do basename $$t .sh; done >>$$run/expected; \
	for t in $(GUEST_TESTS_RT); do echo rt-$$(basename $$t .sh); done >>$$run/expected; \
	truncate -s $(TEST_DISK_SIZE) $$run/virtio-disk.img; \
	$(call guest_tests,test,$(GUEST_TIMEOUT),$$run/guest DISK=$$run/virtio-disk.img,guest/run-tests $(GUEST_TESTS)) \
		|| echo "test: the guest test run ended with status $$?"; \
	rm -f $$run/virtio-disk.img; \
	if [ -n "$(GUEST_TESTS_RT)" ]; then \
		echo "test: the PREEMPT_RT kernel"; \
		$(call guest_tests,rt,$(GUEST_TIMEOUT),$$run/guest-rt,LAB_TEST_PREFIX=rt- guest/run-tests $(GUEST_TESTS_RT)) \
			|| echo "test: the RT guest test run ended with status $$?"; \
	fi; \
	guest/summarize --tap $$run/results.tap $$run/expected \
		$$(ls $$run/host/results $$run/guest/results $$run/guest-rt/results 2>/dev/null)
GUEST_TIMEOUT ?= 1800

# The guest tests again on the KASAN kernel, in one boot, but for the 100
# load/unload cycles under kmemleak and the in-tree IDA test.  Not part of
# make test: the KASAN kernel's cold build would take a cold make test past
# 40 minutes.
#   in: GUEST_TESTS_KASAN, the KASAN kernel and our modules built for it
#   out: $(LOGS)/test-kasan-DATE/, last line "N passed, N failed"
GUEST_TESTS_KASAN ?= $(filter-out %/tagpool_blk-leaks.sh %/test_ida.sh,$(GUEST_TESTS))
# The whole KASAN guest: its 17 tests took 45 minutes here (2026-12-05).
GUEST_TIMEOUT_KASAN ?= 3600
# One test there: python3 alone starts in about 25 s on the KASAN guest (a
# second on the test kernel), and blkmq-semantics starts it 11 times.
TEST_TIMEOUT_KASAN ?= 1200
test-kasan: $(KBUILD_kasan)/.lab-drivers
	@run=$(LOGS)/test-kasan-$$(date +%Y%m%d-%H%M%S); mkdir -p $$run/guest; \
	echo "test-kasan: logs in $$run"; guest/record-run $$run $(VCPUS) test-kasan; \
	for t in $(GUEST_TESTS_KASAN); do basename $$t .sh; done >$$run/expected; \
	truncate -s $(TEST_DISK_SIZE) $$run/virtio-disk.img; \
	$(call guest_tests,kasan,$(GUEST_TIMEOUT_KASAN),$$run/guest DISK=$$run/virtio-disk.img,TEST_TIMEOUT=$(TEST_TIMEOUT_KASAN) guest/run-tests $(GUEST_TESTS_KASAN)) \
		|| echo "test-kasan: the guest test run ended with status $$?"; \
	rm -f $$run/virtio-disk.img; \
	guest/summarize --tap $$run/results.tap $$run/expected $$(ls $$run/guest/results 2>/dev/null)
# The tests' guest has 64 possible CPUs, VCPUS of them online: the pool must
# size itself by the CPUs that use it, not the possible ones.
TEST_MAXCPUS  ?= 64
# A sparse scratch disk for the virtio-blk tests (guest/tests/blkmq-virtio-loop.sh).
TEST_DISK_SIZE ?= 256M
TEST_TIMEOUT  ?= 420

# --- 8. Benchmarks: a matrix of fio points on the bench kernel -> results/. ---
# BENCH names a matrix in bench/matrix/ (default: about 20 minutes;
# quick: about 2).  The default matrix runs as a vCPU sweep, one boot per
# count of BENCH_VCPUS (1 2 4 8; VCPUS="..." on the command line sets it,
# and other matrices run at VCPUS only): at BENCH_FULL_VCPUS (4, or the
# last count when 4 is not among them) every point, at the other counts
# the matrix's sweep= points (guest/bench-run BENCH_PART=sweep).  Its
# budget, points x reps x 2 allocators x runtime per count
# (labbench.matrix), is the first line make bench prints; the guest prints
# it again when it starts.  BENCH_REPS, BENCH_RUNTIME (seconds of fio per
# run) and BENCH_JOBS (fio jobs of every point: N, or Nx for N per vCPU)
# override the matrix; BENCH_ONLY="NAME ..." runs only those points, at
# every count (make bench BENCH_ONLY=null-scarce VCPUS=2 BENCH_REPS=9).
#   in:  bench/matrix/$(BENCH), fio-jobs/, the bench kernel and modules
#   out: results/DATE-COMMIT[-BENCH][-only]/ (results/README.md), the full
#        count's run there and each other count's in vcpus-N/: fio JSON,
#        telemetry, points.tsv and runs.tsv (guest/bench-run); summary.json
#        and summary.txt (labbench.summary), checked against fio's JSON and
#        the telemetry (labbench.check); with several counts sweep.json
#        and sweep.txt (labbench.sweep)
BENCH         ?= default
BENCH_MATRIX  := bench/matrix/$(BENCH)
BENCH_VCPUS   ?= $(if $(filter command line,$(origin VCPUS)),$(VCPUS),$(if $(filter default,$(BENCH)),1 2 4 8,$(VCPUS)))
BENCH_FULL_VCPUS ?= $(if $(filter 4,$(BENCH_VCPUS)),4,$(lastword $(BENCH_VCPUS)))
BENCH_REPS    ?=
BENCH_RUNTIME ?=
BENCH_JOBS    ?=
BENCH_ONLY    ?=
BENCH_TIMEOUT ?= 3600
bench: bench-budget drivers-bench
	@run=results/$$(date +%Y-%m-%d-%H%M)-$$(git rev-parse --short HEAD 2>/dev/null || echo nocommit)$(if $(filter-out default,$(BENCH)),-$(BENCH))$(if $(BENCH_ONLY),-only); \
	mkdir -p $$run; echo "bench: results in $$run"; \
	for v in $(BENCH_VCPUS); do \
		out=$$run part=full; \
		[ $$v = $(BENCH_FULL_VCPUS) ] || out=$$run/vcpus-$$v part=sweep; \
		echo "bench: $$v vCPUs ($$part) into $$out"; \
		guest/record-run $$out $$v bench; cp $(KBUILD_bench)/.config $$out/kernel.config; \
		KERNEL=$(KBUILD_bench)/arch/x86/boot/bzImage VCPUS=$$v MEM=$(MEM) OUT=$(CURDIR)/$$out \
			TIMEOUT=$(BENCH_TIMEOUT) guest/run $(call guest_env,bench) BENCH_MATRIX=$(CURDIR)/$(BENCH_MATRIX) \
			BENCH_PART=$$part BENCH_REPS=$(BENCH_REPS) BENCH_RUNTIME=$(BENCH_RUNTIME) BENCH_JOBS=$(BENCH_JOBS) \
			BENCH_ONLY="$(BENCH_ONLY)" guest/bench-run || exit 1; \
		$(PY) -m labbench.summary $$out && $(PY) -m labbench.check $$out || exit 1; \
	done; \
	if [ $(words $(BENCH_VCPUS)) -gt 1 ]; then $(PY) -m labbench.sweep $$run; fi
bench-budget:
	@[ -f $(BENCH_MATRIX) ] || { echo "bench: no matrix $(BENCH_MATRIX); BENCH= one of: $$(cd bench/matrix && echo *)"; exit 2; }
	@case " $(BENCH_VCPUS) " in *" $(BENCH_FULL_VCPUS) "*) ;; \
		*) echo "bench: BENCH_FULL_VCPUS=$(BENCH_FULL_VCPUS) is not one of BENCH_VCPUS=$(BENCH_VCPUS)"; exit 2 ;; esac
	@if command -v python3 >/dev/null; then \
		$(PY) -m labbench.matrix $(BENCH_MATRIX) $(BENCH_REPS:%=--reps %) $(BENCH_RUNTIME:%=--runtime %) \
			--vcpus "$(BENCH_VCPUS)" --full-vcpus $(BENCH_FULL_VCPUS) --only "$(BENCH_ONLY)" \
			$(if $(wildcard $(KBUILD_bench)/.lab-built),,--unbuilt); \
	else \
		echo "bench: the $(BENCH) matrix takes the time written at the top of $(BENCH_MATRIX)" \
			"(default: about 20 minutes; make bench BENCH=quick: about 2)"; \
	fi

# Plots of every run with a bench summary.json (RUN/report/*.svg, gnuplot)
# and one static page over all of them, results/dashboard.html (no server
# needed); BASELINE=<run> adds a column against that run.  Runs drawn
# already keep their plots; REDRAW=1 draws them all again.
#   in: results/*/summary.json   out: results/*/report/, results/dashboard.html
BASELINE ?=
REDRAW   ?=
report:
	REDRAW=$(REDRAW) $(PY) -m labbench.report results $(BASELINE)

# Ratios of two runs per point, with a noise-aware verdict.
#   in: results/A/summary.json, results/B/summary.json   out: the terminal
compare:
	@[ -n "$(A)" ] && [ -n "$(B)" ] || { echo "usage: make compare A=<run> B=<run> (folders under results/)"; exit 2; }
	@$(PY) -m labbench.compare $(A) $(B)

# Allocator microbenchmark: pool against sbitmap_queue, one boot per vCPU
# count, every depth and repetition interleaved inside the boot.
#   in:  drivers/tagbench on the bench kernel
#   out: results/DATE-COMMIT-tags/: vcpus-N/tagbench.txt (guest/load-bench),
#        summary.json and summary.md (labbench.tagbench)
BENCH_TAGS_VCPUS ?= 1 2 4 8
BENCH_TAGS_ARGS  ?= depths=8,32,128,1024 reps=5 pairs=100000 inflight=4
bench-tags: drivers-bench
	@run=results/$$(date +%Y-%m-%d-%H%M)-$$(git rev-parse --short HEAD 2>/dev/null || echo nocommit)-tags; \
	mkdir -p $$run; echo "bench-tags: results in $$run"; \
	guest/record-run $$run "$(BENCH_TAGS_VCPUS)" bench-tags; cp $(KBUILD_bench)/.config $$run/kernel.config; \
	for v in $(BENCH_TAGS_VCPUS); do \
		echo "bench-tags: vcpus=$$v $(BENCH_TAGS_ARGS)"; \
		KERNEL=$(KBUILD_bench)/arch/x86/boot/bzImage VCPUS=$$v MEM=$(MEM) OUT=$(CURDIR)/$$run/vcpus-$$v \
			guest/run $(call guest_env,bench) guest/load-bench tagbench $(BENCH_TAGS_ARGS) || exit 1; \
	done; \
	$(PY) -m labbench.tagbench $$run

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
#   out: results/DATE-COMMIT-ida/: guest/idabench.txt (guest/load-bench),
#        native.txt, summary.json and summary.md (labbench.idabench)
BENCH_IDA_ARGS ?= sizes=1024,65536,1048576 reps=5
bench-ida: drivers-bench $(IDA_NATIVE)/native_ida
	@run=results/$$(date +%Y-%m-%d-%H%M)-$$(git rev-parse --short HEAD 2>/dev/null || echo nocommit)-ida; \
	mkdir -p $$run; echo "bench-ida: results in $$run"; \
	guest/record-run $$run 1 bench-ida; cp $(KBUILD_bench)/.config $$run/kernel.config; \
	KERNEL=$(KBUILD_bench)/arch/x86/boot/bzImage VCPUS=1 MEM=$(MEM) OUT=$(CURDIR)/$$run/guest \
		guest/run $(call guest_env,bench) guest/load-bench idabench $(BENCH_IDA_ARGS) || exit 1; \
	$(MAKE) -s bench-ida-native >$$run/native.txt || exit 1; \
	$(PY) -m labbench.idabench $$run

# --- 9. The allocators on the host: native timing and the N-CPU model. ------
# lib/percpu_tags.c, lib/tag_ida.c and lib/sbitmap.c of the patched tree,
# compiled unchanged against bench/kshim (bench/tags/build.sh) into
# $(BT)/pool: native-bench (gcc, threads on real cores), scale (clang
# -fsanitize=thread hooks on simulated CPUs) and model-check.  POOL_BASE=REV
# also builds the pool as this repository's series had it at REV
# (bench/tags/pool-at-rev.sh), measured beside the current one.
# Results: results/DATE-COMMIT-native/ and -scale/ (results/README.md).
BT_SRCS     := $(wildcard bench/kshim/* bench/tags/*.c bench/tags/*.h) bench/tags/build.sh
POOL_BASE   ?=
PY          := PYTHONPATH=$(CURDIR)/bench python3
$(BT)/pool/.built: $(SERIES_STAMP) $(BT_SRCS)
	bench/tags/build.sh $(KSRC) $(@D) pool
	@touch $@
$(BT)/base-%/.built: $(BT_SRCS) bench/tags/pool-at-rev.sh | source
	bench/tags/pool-at-rev.sh $* $(KSRC) $(BT)/src-$*
	bench/tags/build.sh $(BT)/src-$* $(@D) pool@$*
	@touch $@
BT_BUILT = $(BT)/pool/.built $(if $(POOL_BASE),$(BT)/base-$(POOL_BASE)/.built)
BT_BINS  = --bin pool=$(BT)/pool $(if $(POOL_BASE),--bin pool@$(POOL_BASE)=$(BT)/base-$(POOL_BASE))
host_run = results/$$(date +%Y-%m-%d-%H%M)-$$(git rev-parse --short HEAD 2>/dev/null || echo nocommit)-$(1)

# ns per alloc+free pair on 1 and 2 cores (ABBA, BENCH_NATIVE_REPS), and
# instructions per pair from callgrind.  BENCH_NATIVE_ARGS=--quick: 2 reps.
BENCH_NATIVE_REPS ?= 5
BENCH_NATIVE_ARGS ?=
bench-tags-native: $(BT_BUILT)
	@run=$(call host_run,native); ACCEL=none guest/record-run $$run $$(nproc) bench-tags-native; \
	$(PY) -m labbench.tagsnative $$run $(BT_BINS) --reps $(BENCH_NATIVE_REPS) $(BENCH_NATIVE_ARGS)

# Transfers, locked instructions, contended locks, memory per I/O on 1-256
# simulated CPUs; BENCH_SCALE_ARGS=--quick for fewer points.  The rank
# agreement with the newest native run is computed when there is one.
BENCH_SCALE_ARGS ?=
bench-scale: $(BT_BUILT)
	@run=$(call host_run,scale); ACCEL=none guest/record-run $$run 256 bench-scale; \
	native=$$(ls -d results/*-native 2>/dev/null | tail -n1); \
	$(PY) -m labbench.tagsscale $$run $(BT_BINS) $${native:+--native $$native} $(BENCH_SCALE_ARGS)

# Longer fuzzing of tag_ida than make test's smoke run (fixed seed there,
# random here).
fuzz: source
	$(MAKE) -C $(TAG_IDA_TOOLS) fuzz FUZZ_SECONDS=$(or $(FUZZ_LONG_SECONDS),600)

# The kernel's own checks on our code: checkpatch --strict on every patch
# and on our modules (Debian's python3 for its SPDX check).
# Run from the kernel tree, where checkpatch expects to be.  That tree has
# no upstream history (Debian's tarball): a commit id in a message could not
# be looked up, so messages name upstream commits by their titles.
checkpatch: source
	cd $(KSRC) && PATH=/usr/bin:$$PATH scripts/checkpatch.pl --strict --terse \
		$(addprefix $(CURDIR)/,$(wildcard kernel-patches/[0-9]*.patch))
	cd $(KSRC) && PATH=/usr/bin:$$PATH scripts/checkpatch.pl --strict --terse --no-tree \
		-f $(addprefix $(CURDIR)/,$(wildcard drivers/*/*.c))

clean:
	rm -rf $(KBUILD_test) $(KBUILD_bench) $(KBUILD_rt) $(KBUILD_kasan) $(KCACHE)/build-*.config-scratch $(LOGS) $(IDA_NATIVE)
distclean: clean
	rm -rf $(KCACHE)

print-ksrc:
	@echo $(KSRC)

# The litmus tests alone: one line per test (expected and observed result),
# then "litmus: N passed, N failed"; exit 77 without herd7.  The memory model
# is Debian's, unpatched: this does not prepare the tree (make source does).
#   in: kernel-patches/litmus/**/*.litmus, $(KSRC)/tools/memory-model
litmus:
	@kernel-patches/litmus/run.sh $(KSRC)
