# transpose-bench Makefile
#
# Knobs (all optional, e.g. `make CUDA=0 V=1`):
#   V=1              print full command lines
#   DEVELOPER=1      strict warnings (-Werror and more)
#   SAN=1            build with AddressSanitizer + UndefinedBehaviorSanitizer
#   CUDA=0|1         leave out / force the kernel images (default: on when nvcc or clang-14+ is found)
#   CUDA_PATH=DIR    CUDA toolkit whose nvcc builds cubins (default /usr/local/cuda)
#   NVCC=PATH        that nvcc directly (e.g. /usr/local/cuda-10.2/bin/nvcc on JetPack 4)
#   CLANG=clang-19   the clang that builds PTX (default: the pinned clang-19, else the newest
#                    clang-N, N >= 14, with a loud warning: scripts/kernel-images.sh)
#   KERNEL_CC=auto|clang|nvcc   auto: nvcc's cubins where the board's driver loads them, else
#                    clang's PTX at the board's ISA; clang or nvcc: that compiler only
#   SMS="53 87"      GPU architectures (default: the board file's sms, else the GPUs this machine
#                    has, by nvidia-smi: none without a GPU); SMS=all (or make all-images): every
#                    architecture of ours, as make dist and cross builds take
#   NVIDIA_SMI=PATH  the nvidia-smi asked for this machine's GPUs (scripts/detect-sms.sh)
#   PTX_ISA=6.5      newest PTX ISA the target driver JIT-compiles (default: the board's ptx_isa)
#   BOARD=boards/X.cfg   build for that board (its sms, cuda, ptx_isa; `make dist` packs for it);
#                    without it (and SMS=, CROSS_COMPILE=), a Jetson's board is detected
#   TIER=quick       make test, test-valgrind, cross-test: the quick tier (not SLOW_TESTS)
#   IMAGE_CACHE=DIR  where each kernel image is kept once compiled, for every build folder
#                    (default build-images/ here; empty: none)
#   TB_ROOT=DIR      the root /proc/device-tree/model and /etc/nv_tegra_release are read under
#   CROSS_COMPILE=aarch64-linux-gnu-   cross toolchain prefix (pkg-config for the target too)
#   PREFIX, DESTDIR  install locations
#   CFLAGS, LDFLAGS  added to the project's own flags, never replace them
#
# Targets: all (default), all-images, run, test, test-suite, test-valgrind, native-test,
#   cross-test, fuzz, board-info, version, dist, dist-check, dist-repro, html-check,
#   readers-check, metrics-check, alert-rules-check, schema-check, meter-sim, alarm-sim,
#   fleet-test, fleet-lint,
#   structure-check, shipped-check, readme-picture, deps, deps-bundle, install, uninstall,
#   docs, docs-gen, docs-check, clean
#   (and each test program: make test_e2e runs that one).
#   (tests/native-build.sh checks this list against the .PHONY line.)

.DELETE_ON_ERROR:
.SUFFIXES:

PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
DATADIR   ?= $(PREFIX)/share/transpose-bench
MANDIR    ?= $(PREFIX)/share/man
CUDA_PATH ?= /usr/local/cuda
NVIDIA_SMI ?= nvidia-smi
CC        := $(CROSS_COMPILE)gcc
PKG_CONFIG ?= $(if $(CROSS_COMPILE),$(CROSS_COMPILE)pkg-config,pkg-config)
NVCC      ?= $(CUDA_PATH)/bin/nvcc
NVCC_CCBIN ?= g++
AR        := $(if $(filter command line environment,$(origin AR)),$(AR),$(CROSS_COMPILE)ar)

VERSION   := 0.1.0
# The revision of this project's own tree, never an enclosing repository's: git is asked only
# when its top level is this directory (a source tree unpacked inside another repository, or a
# tarball's tree under a home kept in git, would take that repository's hash); a tree without
# its own .git says so. `make version` prints it.
GIT_TOP   := $(shell git -C '$(CURDIR)' rev-parse --show-toplevel 2>/dev/null)
ifeq ($(if $(GIT_TOP),$(realpath $(GIT_TOP))),$(realpath $(CURDIR)))
  GIT_REV ?= $(shell git -C '$(CURDIR)' rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git -C '$(CURDIR)' diff --quiet HEAD -- 2>/dev/null && test -z "$$(git -C '$(CURDIR)' ls-files --others --exclude-standard -- src kernels boards conf 2>/dev/null)" || echo -dirty)
  # the build's date for lib/version.h: its commit's (the same bytes from two checkouts)
  BUILD_EPOCH ?= $(shell git -C '$(CURDIR)' log -1 --format=%ct HEAD 2>/dev/null)
else
  GIT_REV ?= none: not a git checkout
endif
BUILD_EPOCH := $(if $(filter-out 0,$(BUILD_EPOCH)),$(BUILD_EPOCH),$(if $(SOURCE_DATE_EPOCH),$(SOURCE_DATE_EPOCH),0))

# Kernel images (scripts/kernel-images.sh, doc/cross-compile.md): nvcc's cubins where the
# board's driver is guaranteed to load them, PTX from Debian's clang at the board's PTX ISA
# ceiling (or nvcc's PTX on a desktop). Device code only, so a cross build embeds the same.
CLANG_NAMES := clang-19 clang-18 clang-17 clang-16 clang-15 clang-14
HAVE_CLANG := $(firstword $(foreach c,$(CLANG_NAMES),$(shell command -v $(c) 2>/dev/null)))
ifeq ($(origin CUDA),undefined)
  CUDA := $(if $(or $(wildcard $(NVCC)),$(HAVE_CLANG)),1,0)
endif
KERNEL_CC ?= auto

# GPU architectures: the board file's `sms` (and its CUDA and PTX ISA ceiling) when BOARD= is
# given; on a Jetson with neither BOARD= nor SMS= (nor CROSS_COMPILE=), the board this machine
# is (scripts/detect-board.sh: the device-tree model under TB_ROOT, as `run` decides), with the
# CUDA and PTX ISA of its L4T release; else every architecture of our users' (Jetson 53 62 72
# 87, desktop 75..90), less those the compiler at hand cannot target, only when asked (SMS=all,
# make all-images) or for another CPU (CROSS_COMPILE=); otherwise the GPUs this machine has
# (scripts/detect-sms.sh: nvidia-smi's compute capability), none where it has none: a first
# `make` on a laptop or a CI host compiles no image it cannot run (ten images took 286 s of a
# 6 min first `make run` on a 2-core host, #52). `make board-info` shows the choice. L4T R28
# and older (JetPack 3) are refused here, with the reason.
board_setting = $(shell sed -n 's/^[[:space:]]*$(1)[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' $(BOARD) 2>/dev/null | head -n 1)
SMS_STRICT := 1
BOARD_FROM := given
ifeq ($(BOARD)$(CROSS_COMPILE),)
  ifeq ($(origin SMS),undefined)
    DETECTED := $(shell scripts/detect-board.sh '$(TB_ROOT)')
    ifeq ($(firstword $(DETECTED)),refused:)
      $(error $(DETECTED))
    endif
    ifneq ($(DETECTED),)
      BOARD := $(word 1,$(DETECTED))
      BOARD_FROM := detected
      ifneq ($(word 2,$(DETECTED)),-)
        BOARD_CUDA := $(word 2,$(DETECTED))
        PTX_ISA ?= $(word 3,$(DETECTED))
      endif
    endif
  endif
endif
ifneq ($(BOARD),)
  ifeq ($(origin SMS),undefined)
    SMS := $(call board_setting,sms)
  endif
  BOARD_CUDA ?= $(call board_setting,cuda)
  PTX_ISA ?= $(call board_setting,ptx_isa)
endif
ALL_SMS := 53 62 72 75 80 86 87 89 90
SMS_FROM := $(if $(BOARD),the board file,given)
ifeq ($(origin SMS),undefined)
  ifeq ($(CROSS_COMPILE),)
    SMS := $(shell NVIDIA_SMI='$(NVIDIA_SMI)' scripts/detect-sms.sh)
    SMS_FROM := this machine's GPUs (nvidia-smi)
  else
    SMS := all
  endif
  SMS_STRICT := 0
endif
ifeq ($(strip $(SMS)),all)
  override SMS := $(ALL_SMS)
  SMS_STRICT := 0
  SMS_FROM := every architecture (SMS=all)
endif
# No architecture (no GPU here, or a board file without sms): no image is compiled, and the
# binary says why (list; --device cuda refuses with it).
ifneq ($(CUDA),1)
  IMAGES_BUILT := 0
  NO_IMAGES_WHY := built with CUDA=0 (or neither clang nor nvcc was found)
else ifeq ($(strip $(SMS)),)
  IMAGES_BUILT := 0
  NO_IMAGES_WHY := $(if $(BOARD),$(BOARD) names no sms,no GPU on the build machine (nvidia-smi found none)): make all-images (or SMS=all) builds every image
else
  IMAGES_BUILT := 1
  NO_IMAGES_WHY :=
endif

WARN      := -Wall -Wextra -Wshadow -Wformat=2 -Wno-unused-parameter
ifeq ($(DEVELOPER),1)
  WARN    += -Werror -Wstrict-prototypes -Wmissing-prototypes -Wcast-align
endif
SANFLAGS  :=
ifeq ($(SAN),1)
  SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
OPT       ?= -O2 -g

DEP_CFLAGS := $(shell $(PKG_CONFIG) --cflags libconfig zlib 2>/dev/null)
DEP_LIBS   := $(shell $(PKG_CONFIG) --libs libconfig zlib 2>/dev/null || echo -lconfig -lz)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) $(SANFLAGS) -MMD -MP \
	-Isrc -Ikernels -Itests $(DEP_CFLAGS) \
	-DTB_VERSION='"$(VERSION)"' -DTB_DATADIR='"$(DATADIR)"' \
	$(CFLAGS)
ALL_LDFLAGS := $(SANFLAGS) $(LDFLAGS)
LIBS := $(DEP_LIBS) -lpthread -ldl -lm

IMAGES = $(BUILD)/kernel_images.c
ifeq ($(IMAGES_BUILT),1)
  ALL_CFLAGS += -DTB_HAVE_CUDA=1
endif
IMAGE_ENV := SMS="$(SMS)" SMS_STRICT=$(SMS_STRICT) PTX_ISA="$(PTX_ISA)" BOARD_CUDA="$(BOARD_CUDA)" \
	NVCC="$(NVCC)" NVCC_CCBIN="$(NVCC_CCBIN)" CLANG="$(CLANG)" KERNEL_CC=$(KERNEL_CC) \
	KERNEL_FLAGS="$(KERNEL_FLAGS)" V=$(V)

ifeq ($(V),1)
  Q :=
  say :=
else
  Q := @
  say = @printf '  %-6s %s\n' $(1) $(2);
endif

BUILD ?= build
BIN ?= transpose-bench
# Host sources; main.c only links into the tool, not into the tests.
LIB_SRCS := $(filter-out src/main.c,$(wildcard src/*.c src/*/*.c)) $(wildcard kernels/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/kernel_images.o $(BUILD)/version_rev.o
TESTS    := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
TEST_BINS := $(TESTS:%=$(BUILD)/tests/%)

all: $(BIN)

# Every architecture's images (SMS=all), as before #52 made this machine's GPUs the default.
all-images:
	+@$(MAKE) --no-print-directory SMS=all $(BIN)

# Rebuild what the flags reach when they change, as git does with GIT-CFLAGS: each file
# changes only when its content would. .flags, the compiler's (CUDA=0 after CUDA=1, SAN=1):
# every object; .imgflags, the images' (SMS, PTX_ISA, the board's CUDA, the compilers of the
# kernels): the image table alone, so that boards of one CPU share their objects (make dist,
# scripts/dist.sh: one build folder a CPU, #59).
FLAGS_NOW := $(CC) $(ALL_CFLAGS) $(LIBS)
IMGFLAGS_NOW := $(filter-out V=%,$(IMAGE_ENV)) $(NO_IMAGES_WHY)
# (stamp TEXT: the target's file rewritten only when TEXT differs from it)
stamp = @mkdir -p $(BUILD); if [ "$$(cat $@ 2>/dev/null)" != '$(subst ','\'',$(1))' ]; then \
	echo '$(subst ','\'',$(1))' > $@; fi
$(BUILD)/.flags: FORCE
	$(call stamp,$(FLAGS_NOW))
$(BUILD)/.imgflags: FORCE
	$(call stamp,$(IMGFLAGS_NOW))
FORCE:

$(BIN): $(BUILD)/src/main.o $(BUILD)/libtb.a
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/libtb.a: $(LIB_OBJS)
	$(call say,AR,$@)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/%.o: %.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# src/config/internal.h is private to its folder: it refuses to build without this.
$(BUILD)/src/config/%.o: ALL_CFLAGS += -DTB_CONFIG_ROOM
# src/format/internal.h likewise, for the writers of src/format/.
$(BUILD)/src/format/%.o: ALL_CFLAGS += -DTB_FORMAT_ROOM

# The revision in a file of its own (lib/version.h: tb_git_rev, tb_version_line), not in the
# flags: a commit rewrites $(BUILD)/version_rev.c alone (only when its text changes), so it
# rebuilds that object and the links, never every object nor the kernel images.
REV_C_TEXT := $(subst ",\",$(subst \,\\,$(GIT_REV)))
$(BUILD)/version_rev.c: FORCE
	@mkdir -p $(BUILD)
	@printf '%s\n' '/* made by the Makefile from GIT_REV: see lib/version.h */' \
		'#include "lib/version.h"' \
		'const char tb_git_rev[] = "$(subst ','\'',$(REV_C_TEXT))";' \
		'const char tb_version_line[] = TB_VERSION " (git $(subst ','\'',$(REV_C_TEXT)))";' \
		'const long long tb_build_epoch = $(BUILD_EPOCH)LL;' > $@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi
$(BUILD)/version_rev.o: $(BUILD)/version_rev.c $(BUILD)/.flags
	$(call say,CC,$<)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The image table: built by the script when CUDA=1, an empty table otherwise.
# Every header of kernels/ (the .cu read bperm_geo.h and strip_geo.h unlisted here before #59);
# each image is compiled once per compiler, command line and source into IMAGE_CACHE and
# reused by every build folder of this checkout (scripts/kernel-images.sh: TB_IMAGE_CACHE).
IMAGE_CACHE ?= $(CURDIR)/build-images
$(IMAGES): $(wildcard kernels/*.cu kernels/*.h) scripts/kernel-images.sh $(BUILD)/.imgflags
	@mkdir -p $(BUILD)/images
ifeq ($(IMAGES_BUILT),1)
	$(call say,IMAGES,$(BUILD)/images)$(IMAGE_ENV) TB_IMAGE_CACHE='$(IMAGE_CACHE)' scripts/kernel-images.sh $(BUILD)/images
	@cp $(BUILD)/images/kernel_images.c $@
else
	$(if $(filter 1,$(CUDA)),@echo "make: no kernel images: $(NO_IMAGES_WHY)")
	@printf '%s\n' '/* no kernel images: the reason is tb_images_none_why */' '#include "cuda/images.h"' \
		'const struct tb_image tb_images[] = { { 0, TB_IMAGE_PTX, 0, 0, NULL, NULL, NULL, 0 } };' \
		'const char tb_images_sha256[] = "none";' \
		'const char tb_images_none_why[] = "$(subst ','\'',$(subst ",\",$(NO_IMAGES_WHY)))";' > $@
endif
$(BUILD)/kernel_images.o: $(IMAGES) $(BUILD)/.flags
	$(call say,CC,$<)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# kept (not removed as make's intermediates): a new revision relinks the test programs
# without compiling each again
.SECONDARY: $(TESTS:%=$(BUILD)/tests/%.o)
$(BUILD)/tests/%: $(BUILD)/tests/%.o $(BUILD)/tests/helpers.o $(BUILD)/tests/fake_clock.o \
		$(BUILD)/libtb.a
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(LIBS)

# test_meter_plan counts the sampler's calls energy makes and the feed's reads (#59): the
# linker routes them through the test's doubles, which pass each on to the real one. Every
# tb_sampler_* that power.h declares is wrapped (the list read from its prototypes, those
# taking a struct tb_sampler: one added there and
# called from what the test links has no double until the test gives it one, and the link
# fails), and the feed's spans, losses and timing (poll, cadence, device).
SAMPLER_WRAPS := $(shell sed -n 's/.*\<\(tb_sampler_[a-z_]*\).\(const \)\{0,1\}struct tb_sampler\>.*/\1/p' src/power/power.h | sort -u) \
	tb_feed_window tb_feed_lost tb_feed_poll_ms tb_feed_cadence tb_feed_device
$(BUILD)/tests/test_meter_plan: ALL_LDFLAGS += $(SAMPLER_WRAPS:%=-Wl,--wrap=%)

# A stand-in libnvidia-ml for the NVML source's tests (loaded through $TB_NVML_LIB).
$(BUILD)/tests/libfake-nvml.so: tests/fake_nvml.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) -shared -fPIC -O1 -o $@ $<

# A stand-in libcuda for the CUDA backend's tests (loaded through $TB_CUDA_LIB); the -old
# one lacks an entry point, as a driver older than CUDA 10.2 does.
$(BUILD)/tests/libfake-cuda.so: tests/fake_cuda.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) -shared -fPIC -O1 -o $@ $<
$(BUILD)/tests/libfake-cuda-old.so: tests/fake_cuda.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) -shared -fPIC -O1 -DFAKE_PRE_10_2 -o $@ $<
# The tool with test-only kernels (a deliberately wrong one: tests/wrong_kernel.c): the
# kernel table built with -DTB_TEST_KERNELS, linked ahead of libtb.a's own; the same for the
# table of power sources (-DTB_TEST_SOURCES: its row of tests/fake_meter.c); and a fake
# INA3221 driver on the tool's own clock when TB_TEST_INA_DRIVER says (tests/fake_ina_driver.c);
# and the fake clock (tests/fake_clock.c, TB_FAKE_CLOCK=1), which the shipped tool does not
# carry (make shipped-check). Tests only.
$(BUILD)/tests/kernel_table_hooks.o: kernels/kernel_table.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(ALL_CFLAGS) -DTB_TEST_KERNELS -c -o $@ $<
$(BUILD)/tests/sources_hooks.o: src/power/sources.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(ALL_CFLAGS) -DTB_TEST_SOURCES -c -o $@ $<
$(BUILD)/tests/transpose-bench-hooks: $(BUILD)/src/main.o $(BUILD)/tests/kernel_table_hooks.o \
		$(BUILD)/tests/sources_hooks.o $(BUILD)/tests/fake_meter.o \
		$(BUILD)/tests/wrong_kernel.o $(BUILD)/tests/fake_ina_driver.o $(BUILD)/tests/fake_clock.o \
		$(BUILD)/libtb.a
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# build/meter-sim: the real meter against the sensors as their datasheets describe them, on
# the fake clock (tests/sim/, doc/power.md); `make meter-sim` builds it.
meter-sim: $(BUILD)/meter-sim
$(BUILD)/meter-sim: $(BUILD)/tests/sim/meter_sim.o $(BUILD)/tests/fake_clock.o $(BUILD)/libtb.a
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# build/alarm-sim: a simulated fleet's nights through history's regression alarm (tests/sim/
# alarm_sim.c, doc/usage.md); `make alarm-sim` builds it.
alarm-sim: $(BUILD)/alarm-sim
$(BUILD)/alarm-sim: $(BUILD)/tests/sim/alarm_sim.o $(BUILD)/libtb.a
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
$(BUILD)/tests/test_alarm: | $(BUILD)/alarm-sim   # test_alarm runs it

TEST_LIBS = $(BUILD)/tests/transpose-bench-hooks $(BUILD)/tests/libfake-nvml.so $(BUILD)/tests/libfake-cuda.so $(BUILD)/tests/libfake-cuda-old.so

# ---- the suite: each test program a target of its own --------------------------------
# `make test_e2e` builds and runs that program; `make test` runs the tier's programs side by
# side (-jN as given, else one per core), each printing its time, then the sum
# (scripts/run-tests.sh). TIER=quick leaves out SLOW_TESTS: the programs that cost 4 s or
# more alone, measured, not guessed (the measurements: doc/results/test-times-2026-11-26.md).
# `make test` prints each program's time and names the five slowest: move a program here
# when it grows past the line. The quick tier is for the passes that run the suite again
# under a slower lens (SAN=1, valgrind, qemu, CUDA=0: .ci/run); the full tier runs once.
TIER ?= full
SLOW_TESTS := test_rerun_calib test_meter_sim test_modes_e2e test_meter_past_track test_meter_night test_driver_faults \
	test_e2e_power test_nvml_hang test_nightly test_nvml
# The quick tier's slowest under valgrind and qemu (20-56 s there, 2-5 s plainly: .ci/run at
# da67c13), which started last in the name order and left a core idle at the pass's end
QUICK_FIRST := test_stepfit test_meter_truth test_probe test_power_rerun_logs test_night_pages \
	test_logread
# the slow first (in SLOW_TESTS' order, the slowest first), then QUICK_FIRST: make starts jobs
# in this order
RUN_TESTS := $(if $(filter quick,$(TIER)),,$(foreach t,$(SLOW_TESTS),$(filter $(t),$(TESTS)))) \
	$(foreach t,$(QUICK_FIRST),$(filter $(t),$(TESTS))) \
	$(filter-out $(SLOW_TESTS) $(QUICK_FIRST),$(TESTS))
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_ENV = TB_BIN="$(or $(TB_BIN),$(CURDIR)/$(BIN))" TB_BUILD=$(BUILD)
# (the .run target is never made: a program runs each time; its counts go to .result)
$(TESTS): %: $(BUILD)/tests/%.run
$(BUILD)/tests/%.run: $(BUILD)/tests/% $(BIN) $(TEST_LIBS) FORCE
	@$(TEST_ENV) scripts/run-tests.sh --one $< $(BUILD)/tests/$*.result
# test-suite: the tool and the test libraries built (-jN as given, else one job per core: a
# fresh clone's plain `make test` compiled them one file at a time, #59), then the tier's
# programs built and run as jobs (-k: every one runs), each as soon as it is linked: the slow
# ones (test_meter_sim and test_rerun_calib: about 40 and 34 s of CPU alone, #59) run while
# the others compile; then the sum. What test, test-valgrind (TB_VALGRIND=1) and cross-test
# (TB_RUNNER=qemu-aarch64) run.
test-suite:
	+@$(MAKE) --no-print-directory $(if $(findstring -j,$(MAKEFLAGS)),,-j$(TEST_JOBS)) $(BIN) $(TEST_LIBS)
	@rm -f $(RUN_TESTS:%=$(BUILD)/tests/%.result)
	+@start=$$(date +%s.%N); \
	$(MAKE) --no-print-directory -k $(if $(findstring -j,$(MAKEFLAGS)),,-j$(TEST_JOBS)) \
		$(RUN_TESTS:%=$(BUILD)/tests/%.run) || true; \
	scripts/run-tests.sh --sum --since $$start $(RUN_TESTS:%=$(BUILD)/tests/%.result)

# ---- aarch64: the Jetsons' CPU, tested under qemu ----------------------------------
CROSS_BUILD := build-aarch64
cross-test:
	@scripts/ensure-deps.sh cross
	+@$(MAKE) --no-print-directory CROSS_COMPILE=aarch64-linux-gnu- BUILD=$(CROSS_BUILD) \
		BIN=$(CROSS_BUILD)/transpose-bench $(CROSS_BUILD)/transpose-bench
	@file $(CROSS_BUILD)/transpose-bench | cut -d, -f1,2
	+@$(MAKE) --no-print-directory CROSS_COMPILE=aarch64-linux-gnu- BUILD=$(CROSS_BUILD) \
		BIN=$(CROSS_BUILD)/transpose-bench TB_RUNNER=qemu-aarch64 \
		TB_BIN="qemu-aarch64 $(CURDIR)/$(CROSS_BUILD)/transpose-bench" test-suite

# ---- fuzzing: libFuzzer (clang) on every parser of outside input --------------------
FUZZERS := tegrastats sysfs config compare report
FUZZ_BUILD := build-fuzz
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
$(FUZZ_BUILD)/fuzz/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_BUILD)/libtb.a
	@mkdir -p $(dir $@)
	$(call say,FUZZ,$@)clang -fsanitize=fuzzer,address,undefined -o $@ $(filter %.o %.a,$^) $(LIBS)

fuzz:
	@command -v clang >/dev/null || { echo "make fuzz: clang not found; sudo apt-get install clang"; exit 1; }
	@$(MAKE) --no-print-directory CC=clang CUDA=0 BUILD=$(FUZZ_BUILD) OPT="-O1 -g" \
		CFLAGS="$(FUZZ_FLAGS)" $(FUZZERS:%=$(FUZZ_BUILD)/fuzz/fuzz_%)
	@scripts/fuzz.sh

# ---- one tarball per board: make dist BOARD=boards/<board>.cfg ----------------------
dist:
	@test -n "$(BOARD)" || { echo "make dist: name a board, e.g. make dist BOARD=boards/jetson-nano.cfg"; exit 2; }
	+@scripts/dist.sh $(BOARD)

# What CI checks of the tarballs: glibc 2.27, no library beyond glibc's, the kernel image;
# the licenses and the relink material inside each, relinked against this system's libconfig
# (tests/dist-relink.sh: LGPL-2.1 section 6);
# and that two checkouts build the same bytes (dist-repro: HEAD built in two paths, the second
# a clone built as another user, the first this checkout's own tarball when built from HEAD as
# committed, else a clone; sha256 compared; REPRO_BOARD=jetson-nano). Their makes are
# jobs of this one ('+'): `make -j2 dist-check` builds each tarball two files at a time.
REPRO_BOARD ?= jetson-nano
DIST_CHECKED := jetson-nano jetson-tx2 jetson-xavier-nx jetson-agx-orin jetson-orin-nano
dist-check:
	@scripts/ensure-deps.sh cross
	@scripts/ensure-deps.sh dist
	+@tests/dist-check.sh
	@tests/dist-relink.sh $(DIST_CHECKED:%=dist/transpose-bench-%.tar.gz) \
		$$(ls dist/transpose-bench-h100-sxm.tar.gz 2>/dev/null)
	+@tests/dist-repro.sh $(REPRO_BOARD)

dist-repro:
	@scripts/ensure-deps.sh dist
	+@tests/dist-repro.sh $(REPRO_BOARD)

# The --html pages of compare and history rendered in headless Chromium, checked for what
# they show (tests/html-check.sh).
html-check: $(BIN)
	@scripts/ensure-deps.sh html
	@BIN=$(BIN) tests/html-check.sh

# doc/img/pareto-front.png, the README's picture of compare --pareto --html's chart: a fake
# three-mode sweep on the CPU backend (the test-only executable: its fake sensor on virtual
# time), shot in headless Chromium (scripts/readme-picture.sh).
readme-picture: $(BUILD)/tests/transpose-bench-hooks
	@scripts/ensure-deps.sh html
	@BIN=$(BUILD)/tests/transpose-bench-hooks scripts/readme-picture.sh

# A real CPU night's `run --metrics` file through promtool check metrics (Debian's prometheus
# package; tests/metrics-check.sh).
metrics-check: $(BIN)
	@scripts/ensure-deps.sh metrics
	@BIN=$(BIN) tests/metrics-check.sh

# The alerting rules of doc/fleet/prometheus/ through promtool check rules and test rules,
# and a history --metrics file through promtool check metrics (tests/alert-rules-check.sh).
alert-rules-check: $(BIN)
	@scripts/ensure-deps.sh metrics
	@BIN=$(BIN) tests/alert-rules-check.sh

# --format json of real nights (a CPU night here, an H200 night's logs with energy figures)
# validated against doc/schema/night.schema.json by python3-jsonschema (tests/schema-check.sh).
schema-check: $(BIN)
	@scripts/ensure-deps.sh schema
	@BIN=$(BIN) tests/schema-check.sh

# DuckDB and pandas over a folder of logs, as doc/log-format.md says (tests/readers-check.sh).
readers-check: $(BIN)
	@BIN=$(BIN) tests/readers-check.sh

# doc/fleet's Ansible playbooks against six sshd hosts in network, UTS and mount namespaces
# (needs root; tests/fleet-test.sh, tests/fleet/). fleet-lint: ansible-lint's production profile.
fleet-test:
	@tests/fleet-test.sh

# Both Debian's ansible-lint and the newest from PyPI (scripts/fleet-lint-pypi.sh: in
# build-tools/lint-venv, made when missing; 26.x adds var-naming[no-role-prefix]).
fleet-lint:
	@scripts/ensure-deps.sh fleet
	@echo "ansible-lint $$(ansible-lint --version 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | sed -n '1s/^ansible-lint \([0-9.]*\).*/\1/p') (Debian), production profile:"
	@cd doc/fleet && ansible-lint --offline --profile production --nocolor deploy.yml collect.yml roles
	@scripts/fleet-lint-pypi.sh

# The include graph of src/ and kernels/ (scripts/structure-check.sh): no circle of modules,
# across folders or inside one, no back-arrow between the folder view's nodes (each
# sub-folder of src/ and kernels/ one node, src/*.c modules their own), a folder's private
# headers (internal.h, NAME_internal.h, NAME_int.h) included from inside it only, and no
# comment of src/ or kernels/ or page of doc/ (but doc/results, history) naming a file that
# does not exist; the floors printed. With -M $(BUILD), what gcc read (the .d files of the last build,
# -MMD -MP): every header it read for a source reached by the checker's own reading, no
# private header read from outside its folder (even through the folder's public header), no
# circle or back-arrow on gcc's edges; no build there (a fresh clone, CI before its build):
# one line says so and that part is skipped; it never builds. The checker's own test first
# (tests/structure-check-test.sh). A name of a .c/.h/.cu file in any spelling (src/a/b.c,
# a/b.c, tests/t.c, b.c) names one that exists, or one scripts/outside-names.txt gives.
# Then the calls (scripts/call-check.sh, its test first): nm of $(BUILD)'s objects, no circle
# of modules by calls and no call that does not go down a floor, but those
# scripts/call-allow.txt names (a list that only shrinks), and by function (readelf) no
# crossing of the seams scripts/call-seams.txt draws (energy/ calls the sampler from
# tb_energy_plan_make alone, reads its feed from plan.c alone), a stale object in a seam's
# folder an error; no build there: skipped, said.
# Then the sizes (scripts/size-check.sh): no .c/.h of src/, kernels/ or tests/ over 700
# lines, no function over 80, but for the offenders scripts/size-allow.txt names.
structure-check:
	@tests/structure-check-test.sh
	@scripts/structure-check.sh -I kernels -D doc -X doc/results -O scripts/outside-names.txt -M $(BUILD) src
	@tests/call-check-test.sh $(BUILD)
	@scripts/call-check.sh -I kernels -B $(BUILD) src
	@tests/size-check-test.sh
	@scripts/size-check.sh src kernels tests

# What a native `make` here builds for, and from which revision (tests/native-build.sh reads
# these lines).
board-info:
	@echo "board: $(or $(BOARD),none) ($(if $(BOARD),$(BOARD_FROM),no BOARD= and no Jetson device tree))"
	@echo "sms: $(SMS)"
	@echo "sms from: $(SMS_FROM)$(if $(strip $(SMS)),,: no image is built, $(NO_IMAGES_WHY))"
	@echo "cuda: $(or $(BOARD_CUDA),any)"
	@echo "ptx_isa: $(or $(PTX_ISA),none)"
version:
	@echo "$(VERSION) (git $(GIT_REV))"

# The native build's choices (board detection under a fake root, nvcc 10.2's SMs, clang for
# the rest, JetPack 3 refused) and the revision's source, with stand-in compilers: make test
# runs it.
native-test:
	@tests/native-build.sh

# ---- user-facing targets ---------------------------------------------------
deps:
	@scripts/ensure-deps.sh

run: deps
	@$(MAKE) --no-print-directory $(if $(findstring -j,$(MAKEFLAGS)),,-j$(TEST_JOBS)) transpose-bench
	./transpose-bench run -c conf/default.cfg

test: deps
	+@$(MAKE) --no-print-directory test-suite
	+@$(MAKE) --no-print-directory shipped-check
	+@tests/native-build.sh
	+@$(MAKE) --no-print-directory docs-check

# The README's commands table and the man page's SYNOPSIS, OPTIONS and SETTINGS are printed by
# the tool from its option rows and settings schema (`help --doc`): docs-gen writes them in,
# docs-check (in make test) fails when they differ, so the docs cannot drift from --help.
docs-gen: $(BIN)
	@scripts/docs-gen.sh $(CURDIR)/$(BIN)
docs-check: $(BIN)
	@tests/docs-gen-test.sh $(CURDIR)/$(BIN)
	@scripts/docs-gen.sh --check $(CURDIR)/$(BIN)

test-valgrind: deps
	@scripts/ensure-deps.sh valgrind
	+@$(MAKE) --no-print-directory TB_VALGRIND=1 test-suite

# The shipped tool carries no test machinery (the fake clock, the fake INA3221 driver, the
# test kernel: tests/shipped-check.sh); the test-only executable carries each (make test runs it).
shipped-check: $(BIN) $(BUILD)/tests/transpose-bench-hooks
	@tests/shipped-check.sh $(BIN) $(BUILD)/tests/transpose-bench-hooks

# Headers and static libraries of libconfig and zlib, for machines that cannot install
# packages (a lent GPU machine): contrib/gpu-lab builds against them when pkg-config fails.
deps-bundle:
	@mkdir -p .deps/include .deps/lib
	cp $$($(PKG_CONFIG) --variable=includedir libconfig)/libconfig.h .deps/include/
	cp $$($(PKG_CONFIG) --variable=includedir zlib)/zlib.h $$($(PKG_CONFIG) --variable=includedir zlib)/zconf.h .deps/include/
	cp $$($(PKG_CONFIG) --variable=libdir libconfig)/libconfig.a $$($(PKG_CONFIG) --variable=libdir zlib)/libz.a .deps/lib/

# install copies what `make` built and never builds: `sudo make install` from a user's checkout
# would otherwise rebuild as root (files owned by root, git refusing the tree: "unknown-dirty").
# Sweep files: the shipped ones, not a tuned-*.cfg that `tune` wrote into this checkout.
# Every path is quoted (a PREFIX with a blank once made install write into the checkout and
# uninstall delete an unrelated file), and install lists each file it installed in
# DATADIR/installed-files (with the lists of earlier installs there); uninstall removes the
# listed files that install can install and nothing else, then the folders left empty.
INSTALL_DATA := $(wildcard boards/*.cfg) $(filter-out conf/tuned-%,$(wildcard conf/*.cfg))
INSTALL_LIST = $(DESTDIR)$(DATADIR)/installed-files
install:
	@test -x "$(BIN)" || { echo "make install: no $(BIN) here: run make first (as yourself), then make install"; exit 2; }
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(DATADIR)/boards" "$(DESTDIR)$(DATADIR)/conf" "$(DESTDIR)$(MANDIR)/man1"
	install -m 755 "$(BIN)" "$(DESTDIR)$(BINDIR)/transpose-bench"
	install -m 644 $(filter boards/%,$(INSTALL_DATA)) "$(DESTDIR)$(DATADIR)/boards/"
	install -m 644 $(filter conf/%,$(INSTALL_DATA)) "$(DESTDIR)$(DATADIR)/conf/"
	install -m 644 doc/transpose-bench.1 "$(DESTDIR)$(MANDIR)/man1/"
	@{ test -f "$(INSTALL_LIST)" && cat "$(INSTALL_LIST)"; \
	  printf '%s\n' "$(BINDIR)/transpose-bench" "$(MANDIR)/man1/transpose-bench.1"; \
	  for f in $(INSTALL_DATA); do printf '%s\n' "$(DATADIR)/$$f"; done; } | sort -u > "$(INSTALL_LIST).new" && \
	  mv -f "$(INSTALL_LIST).new" "$(INSTALL_LIST)"

# Without a list (an install before it had one), the files this checkout's install installs.
uninstall:
	@list="$(INSTALL_LIST)"; \
	if [ -f "$$list" ]; then cat "$$list"; else \
	  printf '%s\n' "$(BINDIR)/transpose-bench" "$(MANDIR)/man1/transpose-bench.1"; \
	  for f in $(INSTALL_DATA); do printf '%s\n' "$(DATADIR)/$$f"; done; fi | \
	while IFS= read -r f; do \
	  case "$$f" in */../*|*/./*) echo "make uninstall: '$$f' left (not a name install gives)"; continue;; esac; \
	  case "$$f" in "$(BINDIR)/transpose-bench"|"$(MANDIR)/man1/transpose-bench.1"|"$(DATADIR)"/boards/*.cfg|"$(DATADIR)"/conf/*.cfg) ;; \
	    *) echo "make uninstall: '$$f' left (not a file install installs)"; continue;; esac; \
	  if [ -f "$(DESTDIR)$$f" ] && [ ! -L "$(DESTDIR)$$f" ]; then rm -f -- "$(DESTDIR)$$f" && echo "removed $(DESTDIR)$$f"; fi; \
	done; \
	rm -f -- "$$list"; \
	for d in "$(DESTDIR)$(DATADIR)/boards" "$(DESTDIR)$(DATADIR)/conf" "$(DESTDIR)$(DATADIR)"; do \
	  if [ -d "$$d" ] && [ ! -L "$$d" ]; then rmdir -- "$$d" 2>/dev/null || echo "make uninstall: '$$d' kept (holds files install did not put there)"; fi; \
	done

docs:
	@if command -v doxygen >/dev/null; then doxygen doc/Doxyfile; \
	else echo "make docs: doxygen not found; install it with: sudo apt-get install doxygen"; exit 1; fi

clean:
	rm -rf build build-* transpose-bench

.PHONY: all-images metrics-check schema-check board-info version native-test structure-check shipped-check dist-repro html-check readme-picture readers-check fleet-test fleet-lint dist dist-check fuzz cross-test deps-bundle all deps run test test-suite test-valgrind install uninstall docs docs-gen docs-check clean FORCE meter-sim alarm-sim alert-rules-check

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
