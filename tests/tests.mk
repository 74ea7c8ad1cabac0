# Tests. Included by the Makefile.
#
# Suites (each a line in tests/check.sh):
#   unit          build/tests/unit_tests: GoogleTest, core built again with ASan + UBSan
#   variant       build/tests/variant_tests: the core built with tests/variant/minimal.config
#   walk-only     build/tests/walk_only_tests: the core built with configs/walk-only.config
#                 (tests/walk_only/walk_only.mk): codes for names, index memory ignored, its walks
#   profile       build/tests/profile_tests: the core built with configs/profile.config (the
#                 profiler on), tests/unit/profile_test.cpp; the unit suite's core has it off
#                 (tests/unit/profile_disabled_test.cpp)
#   cache-stats   build/tests/cache_stats_tests: the core built with the row cache's counters
#                 (tests/cache_stats/stats.config); the hits and misses a walk adds, exactly
#   target        build/tests/target_tests: the x86_64 library a kernel links (build/x86_64),
#                 linked into a host test: a target build refuses other ABIs' tables and walks
#   direct        build/tests/direct_tests: walks over real memory between inaccessible pages,
#                 without the no-fault hook; step by step and through the row cache alike
#   linker        build/tests/linked_image: a program linked with linker/sfunwind.ld walks itself
#   embed         tests/linker/embed.sh: the same built without SFrame, given a table by `sfu gen`
#   pie           tests/linker/pie.sh: position-independent images (ld -pie, -static-pie) against
#                 $(BUILD)/pie/<arch>/libsfu.a have only R_*_RELATIVE relocations, hook or none;
#                 images without the fragments link through sfu.mk; linked_image.c -static-pie runs
#                 at a random address and names its frames (make pie-check runs it alone)
#   gc            tests/linker/gc.sh: a kernel linked with --gc-sections keeps the functions it keeps
#                 without sfunwind, gas path (scripts/gc-link.sh) on x86_64 and arm64, gen path on all
#                 three, and its table covers exactly them (make gc-check runs it alone)
#   crash         tests/crash/check.sh: `sfu crash` on a record a real program captured and printed
#   moved         tests/crash/moved.sh: sfu crash, symbolize, minidump and stackwalk on the same program
#                 run where Linux's loader put it (-pie), and on logs moved by made-up biases
#   walk-x86      build/tests/x86_walk_tests: real gcc -O2 code walked, compared with libunwind
#   freestanding  nm -u on build/<arch>/libsfu.a for all three architectures; each public header
#                 alone under -nostdinc; no arm64 exclusives in the CONFIG_SFU_SMP=n build
#                 (build/uniprocessor/arm64, tests/variant/uniprocessor.config)
#   docs          tests/docs/check.py: the documents' C examples compiled and linked, their linker
#                 recipe run, the porting guide's quotes equal to the code they quote
#   gen           tests/gen/check.sh: sfu gen / verify / diff on the corpus of tests/gen; raw binaries
#                 cut by objcopy checked by sfu verify --raw (raw_image.sh); the crash area placed
#                 by --defsym=SFU_CRASH_AREA (crash_area.sh)
#   gen-real      bench/sframe_size.sh: the same on googletest built with gas's SFrame
#   dump          tests/dump/conformance.sh: sfu dump against every corpus case
#   v1-built      tests/dump/v1_built_here.sh: gas-written V1 tables, objdump vs sfu dump
#   runner        tests/qemu/runner_test.py: the QEMU runner's checks on made-up serial output
#   qemu          tests/qemu: the test kernels of every architecture under QEMU (make qemu-test)
#   adoption      tests/adoption/check.sh: tinyk, a third-party-style kernel adopting sfunwind through
#                 sfu.mk (docs/porting.md), built and booted on three architectures, its trace checked
#   addr2line     tests/addr2line/check.sh: sfu symbolize against binutils' addr2line (kernels, googletest)
#   sfu-profile   tests/profile/check.py: sfu profile on profiles written as a device prints them, for a
#                 program built there: exact top and folded output, every refusal by its message, pprof
#                 read by go tool pprof, the SVG rendered by headless Chromium; and end to end,
#                 build/tests/profile_program(_pie) sampling its own stacks (make profile-check alone)
#   breakpad      tests/breakpad/check.sh: sfu breakpad against Breakpad's dump_syms, minidumps and
#                 sfu stackwalk against its stackwalkers (the oracle built once into build/oracles/breakpad)
#   fuzz          the libFuzzer targets under ASan + UBSan, in FUZZ_CHECK_SECONDS together (2/3, 1/6, 1/6):
#                 fuzz_sframe (SFrame sections, crash records and logs, symbol tables, DWARF, Breakpad
#                 .sym files and microdumps), fuzz_walk (the walker: tables, stacks, registers, traps)
#                 and fuzz_walk_unvalidated (the same walker target, tables registered without validation)
#
# Shared test code lives in tests/support/ and is linked into every host test binary.

SFU_CORPUS ?= $(abspath ../shared/conformance/sframe)
FUZZ_CHECK_SECONDS ?= 60

SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_DIR := $(BUILD)/host-san
SAN_OBJS := $(patsubst %.cpp,$(SAN_DIR)/obj/%.o,$(CORE_SRCS)) $(patsubst %.S,$(HOST_DIR)/obj/%.o,$(HOST_ASM))

TEST_CXXFLAGS := -std=c++20 -O1 -g -Wall -Wextra -Wno-maybe-uninitialized -Iinclude -Isrc -Iarch -Itests -I. -I$(BUILD)/config \
	-DSFU_HOSTED=1 -DSFU_CORPUS_DIR='"$(SFU_CORPUS)"' -DSFU_SOURCE_DIR='"$(CURDIR)"' $(SAN)
SUPPORT_SRCS := $(sort $(wildcard tests/support/*.cpp))
SUPPORT_HDRS := $(sort $(wildcard tests/support/*.h))
# profile_test.cpp needs the profiler on: its own binary, below.
UNIT_SRCS := $(filter-out tests/unit/profile_test.cpp,$(sort $(wildcard tests/unit/*.cpp)))
# Unit tests also cover the host tools' library (tools/*.cpp but the command table).
UNIT_OBJS := $(patsubst %.cpp,$(BUILD)/tests/obj/%.o,$(UNIT_SRCS) $(SUPPORT_SRCS) $(TOOLS_LIB_SRCS))

$(SAN_DIR)/obj/%.o: %.cpp $(CORE_HDRS) $(CONFIG_H) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) $(HOST_CORE_CXXFLAGS) $(SAN) -c $< -o $@

$(BUILD)/tests/obj/%.o: %.cpp $(CORE_HDRS) $(SUPPORT_HDRS) $(TOOLS_HDRS) $(CONFIG_H) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) $(TEST_CXXFLAGS) -c $< -o $@

$(BUILD)/tests/unit_tests: $(UNIT_OBJS) $(SAN_OBJS)
	$(HOST_CXX) $(SAN) -o $@ $^ -lgtest -lgtest_main -pthread

include tests/gen/corpus.mk
include tests/qemu/qemu.mk
include tests/walk_only/walk_only.mk

# The fuzzer: core, support and target compiled by clang with libFuzzer, ASan and UBSan.
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SAN := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_DWARF_SRCS := $(addprefix tools/dwarf/,debug_info.cpp line_table.cpp ranges.cpp source.cpp source_index.cpp \
	addr2line.cpp) tools/elf/elf_file.cpp tools/elf/symbol_table.cpp tools/elf/functions.cpp tools/text/format.cpp
FUZZ_BREAKPAD_SRCS := $(addprefix tools/breakpad/,postfix.cpp cfi_rules.cpp sym_file.cpp stackwalk.cpp microdump.cpp \
	minidump.cpp dump.cpp module_id.cpp)
FUZZ_SRCS := $(CORE_SRCS) $(filter-out tests/fuzz/fuzz_walk.cpp,$(sort $(wildcard tests/fuzz/*.cpp))) \
	tools/crash/records.cpp $(FUZZ_DWARF_SRCS) $(FUZZ_BREAKPAD_SRCS)
FUZZ_HDRS := $(sort $(wildcard tests/support/*.h tests/fuzz/*.h)) tools/crash/records.h $(TOOLS_HDRS)
$(FUZZ_DIR)/fuzz_sframe: $(FUZZ_SRCS) $(FUZZ_HDRS) $(CORE_HDRS) $(CONFIG_H) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CLANGXX) -std=c++20 -O1 -g -I. -Iinclude -Isrc -Iarch -Itests -I$(BUILD)/config -DSFU_HOSTED=1 $(FUZZ_SAN) \
		-o $@ $(FUZZ_SRCS)

# The core with the profiler (configs/profile.config): the profile suite's, and fuzz_walk's.
PROFILE_TEST_DIR := $(BUILD)/variant-profile
PROFILE_TEST_CONFIG_H := $(PROFILE_TEST_DIR)/config/sfu_autoconf.h

# The second target, over the walker (tests/fuzz/fuzz_walk.cpp): random or given tables, fake
# stacks behind the no-fault hook (tests/support/fake_machine.cpp), registers and trap layouts;
# the defaults with the profiler on, so that it samples each walk too.
FUZZ_WALK_SRCS := $(CORE_SRCS) tests/fuzz/fuzz_walk.cpp $(addprefix tests/support/,fake_machine.cpp random_tables.cpp \
	sframe_builder.cpp walks.cpp)
$(FUZZ_DIR)/fuzz_walk: $(FUZZ_WALK_SRCS) $(FUZZ_HDRS) $(CORE_HDRS) $(PROFILE_TEST_CONFIG_H) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CLANGXX) -std=c++20 -O1 -g -I. -Iinclude -Isrc -Iarch -Itests -I$(PROFILE_TEST_DIR)/config -DSFU_HOSTED=1 \
		$(FUZZ_SAN) -o $@ $(FUZZ_WALK_SRCS)

# The same target over tables registered without validation: the core and the target built with
# tests/fuzz/unvalidated.config (CONFIG_SFU_VALIDATE_ON_REGISTER=n), its own config header.
FUZZ_UNVALIDATED_CONFIG_H := $(FUZZ_DIR)/unvalidated/config/sfu_autoconf.h
$(FUZZ_UNVALIDATED_CONFIG_H): Kconfig scripts/kconfig.py tests/fuzz/unvalidated.config | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(PYTHON) scripts/kconfig.py header Kconfig tests/fuzz/unvalidated.config $@
$(FUZZ_DIR)/fuzz_walk_unvalidated: $(FUZZ_WALK_SRCS) $(FUZZ_HDRS) $(CORE_HDRS) $(FUZZ_UNVALIDATED_CONFIG_H) \
		| $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CLANGXX) -std=c++20 -O1 -g -I. -Iinclude -Isrc -Iarch -Itests -I$(FUZZ_DIR)/unvalidated/config -DSFU_HOSTED=1 \
		$(FUZZ_SAN) -o $@ $(FUZZ_WALK_SRCS)

# The core again, built with a second configuration (tests/variant/minimal.config).
VARIANT_DIR := $(BUILD)/variant-minimal
VARIANT_CONFIG_H := $(VARIANT_DIR)/config/sfu_autoconf.h
VARIANT_OBJS := $(patsubst %.cpp,$(VARIANT_DIR)/obj/%.o,$(CORE_SRCS)) $(patsubst %.S,$(HOST_DIR)/obj/%.o,$(HOST_ASM))
VARIANT_TEST_OBJS := $(patsubst %.cpp,$(BUILD)/tests/obj/%.o,$(sort $(wildcard tests/variant/*.cpp)) $(SUPPORT_SRCS))

$(VARIANT_CONFIG_H): Kconfig scripts/kconfig.py tests/variant/minimal.config | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(PYTHON) scripts/kconfig.py header Kconfig tests/variant/minimal.config $@

$(VARIANT_DIR)/obj/%.o: %.cpp $(CORE_HDRS) $(VARIANT_CONFIG_H) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) -I$(VARIANT_DIR)/config $(HOST_CORE_CXXFLAGS) $(SAN) -c $< -o $@

$(BUILD)/tests/variant_tests: $(VARIANT_TEST_OBJS) $(VARIANT_OBJS)
	$(HOST_CXX) $(SAN) -o $@ $^ -lgtest -lgtest_main -pthread

# The core again with the row cache's counters (tests/cache_stats/stats.config): the counts exact.
STATS_TEST_DIR := $(BUILD)/variant-stats
STATS_CONFIG_H := $(STATS_TEST_DIR)/config/sfu_autoconf.h
STATS_OBJS := $(patsubst %.cpp,$(STATS_TEST_DIR)/obj/%.o,$(CORE_SRCS)) $(patsubst %.S,$(HOST_DIR)/obj/%.o,$(HOST_ASM))
STATS_TEST_OBJS := $(patsubst %.cpp,$(BUILD)/tests/obj/%.o,$(sort $(wildcard tests/cache_stats/*.cpp)) $(SUPPORT_SRCS))
$(STATS_CONFIG_H): Kconfig scripts/kconfig.py tests/cache_stats/stats.config | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(PYTHON) scripts/kconfig.py header Kconfig tests/cache_stats/stats.config $@
$(STATS_TEST_DIR)/obj/%.o: %.cpp $(CORE_HDRS) $(STATS_CONFIG_H) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) -I$(STATS_TEST_DIR)/config $(HOST_CORE_CXXFLAGS) $(SAN) -c $< -o $@
$(BUILD)/tests/cache_stats_tests: $(STATS_TEST_OBJS) $(STATS_OBJS)
	$(HOST_CXX) $(SAN) -o $@ $^ -lgtest -lgtest_main -pthread

# The core again with the profiler (configs/profile.config, as the QEMU profile kernels build it).
PROFILE_TEST_CORE_OBJS := $(patsubst %.cpp,$(PROFILE_TEST_DIR)/obj/%.o,$(CORE_SRCS)) $(patsubst %.S,$(HOST_DIR)/obj/%.o,$(HOST_ASM))
PROFILE_TEST_OBJS := $(patsubst %.cpp,$(BUILD)/tests/obj/%.o,tests/unit/profile_test.cpp $(SUPPORT_SRCS))
$(PROFILE_TEST_CONFIG_H): Kconfig scripts/kconfig.py configs/profile.config | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(PYTHON) scripts/kconfig.py header Kconfig configs/profile.config $@
$(PROFILE_TEST_DIR)/obj/%.o: %.cpp $(CORE_HDRS) $(PROFILE_TEST_CONFIG_H) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) -I$(PROFILE_TEST_DIR)/config $(HOST_CORE_CXXFLAGS) $(SAN) -c $< -o $@
$(BUILD)/tests/profile_tests: $(PROFILE_TEST_OBJS) $(PROFILE_TEST_CORE_OBJS)
	$(HOST_CXX) $(SAN) -o $@ $^ -lgtest -lgtest_main -pthread

# The x86_64 core as a kernel links it (freestanding, the build's own ABI only), linked into a
# host test: the host is x86_64, and the library needs nothing from a libc.
TARGET_TEST_OBJS := $(patsubst %.cpp,$(BUILD)/tests/obj/%.o,$(sort $(wildcard tests/target/*.cpp)) $(SUPPORT_SRCS))
.PHONY: target-x86_64-lib
target-x86_64-lib:
	@$(MAKE) --no-print-directory ARCH=x86_64 SFU_INSTALL_DEPS=no lib >/dev/null
$(BUILD)/tests/target_tests: $(TARGET_TEST_OBJS) target-x86_64-lib
	$(HOST_CXX) $(SAN) -no-pie -o $@ $(TARGET_TEST_OBJS) $(BUILD)/x86_64/libsfu.a -lgtest -lgtest_main -pthread

# Walks over stacks in real memory without the no-fault hook (tests/direct): the host core as a
# kernel without the hook runs it, with only the support that needs no fake memory.
DIRECT_TEST_OBJS := $(patsubst %.cpp,$(BUILD)/tests/obj/%.o,$(sort $(wildcard tests/direct/*.cpp)) \
	tests/support/walks.cpp tests/support/random_tables.cpp)
$(BUILD)/tests/direct_tests: $(DIRECT_TEST_OBJS) $(HOST_DIR)/libsfu.a
	$(HOST_CXX) $(SAN) -o $@ $^ -lgtest -lgtest_main -pthread

include tests/x86_64/x86_64.mk

# A host program linked with linker/sfunwind.ld, registering and walking its own table.
$(BUILD)/tests/linked_image: tests/linker/linked_image.c tests/linker/insert.ld linker/sfunwind.ld \
		linker/sfunwind-build-id.ld include/sfu/image.h $(HOST_DIR)/libsfu.a
	@mkdir -p $(@D)
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Wa,--gsframe -Iinclude -Llinker \
		-Wl,-T,tests/linker/insert.ld -o $@ $< $(HOST_DIR)/libsfu.a -lpthread

# The same program built without SFrame (gcc and clang) and linked with sfunwind-reserve.ld:
# tests/linker/embed.sh gives it its table with `sfu gen`.
$(BUILD)/tests/reserve_image_%: tests/linker/linked_image.c tests/linker/insert-reserve.ld \
		linker/sfunwind-reserve.ld linker/sfunwind-symbols.ld linker/sfunwind-build-id.ld include/sfu/image.h \
		$(HOST_DIR)/libsfu.a
	@mkdir -p $(@D)
	$(if $(filter clang,$*),$(CLANG),gcc) -std=gnu11 -O2 -Wall -Wextra -Werror -Iinclude -Llinker \
		-Wl,-T,tests/linker/insert-reserve.ld -o $@ $< $(HOST_DIR)/libsfu.a -lpthread

# The gas-table program once more, with room for the names `sfu gen --symbols-only` writes
# (sfunwind.ld and sfunwind-symbols.ld): embed.sh gives it its names.
$(BUILD)/tests/symbols_image_gas: tests/linker/linked_image.c tests/linker/insert-symbols.ld linker/sfunwind.ld \
		linker/sfunwind-symbols.ld linker/sfunwind-build-id.ld include/sfu/image.h $(HOST_DIR)/libsfu.a
	@mkdir -p $(@D)
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Wa,--gsframe -Iinclude -Llinker \
		-Wl,-T,tests/linker/insert-symbols.ld -o $@ $< $(HOST_DIR)/libsfu.a -lpthread

# A program that captures a crash record into its own area and prints it; tests/crash/check.sh
# decodes both with `sfu crash`. gas's table, names from `sfu gen --symbols-only`, DWARF and a
# build-id; linked at a fixed address (no PIE), so the record's addresses are the image's. The
# _pie one is the same program linked -pie: Linux runs it at a random address, an image that ran
# away from its link address (tests/crash/moved.sh).
CRASH_PROGRAM_FLAGS_crash_program := -no-pie
CRASH_PROGRAM_FLAGS_crash_program_pie := -pie -fpie
$(BUILD)/tests/crash_program $(BUILD)/tests/crash_program_pie: tests/crash/crash_program.c tests/crash/insert.ld \
		linker/sfunwind.ld linker/sfunwind-symbols.ld linker/sfunwind-crash.ld linker/sfunwind-build-id.ld \
		include/sfu/crash.h include/sfu/image.h $(HOST_DIR)/libsfu.a $(TOOLS_DIR)/sfu
	@mkdir -p $(@D)
	gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wa,--gsframe $(CRASH_PROGRAM_FLAGS_$(@F)) -Wl,--build-id \
		-Iinclude -Llinker -Wl,-T,tests/crash/insert.ld -o $@.tmp $< $(HOST_DIR)/libsfu.a -lpthread
	$(TOOLS_DIR)/sfu gen $@.tmp -o $@.tmp --symbols-only
	mv $@.tmp $@

# The sfu-profile suite's end-to-end program (tests/profile/program.c): the host core built with
# the profiler (configs/profile.config) into $(BUILD)/host-profile/host/libsfu.a, gas's table and a
# build-id; linked -no-pie (where it was linked) and -pie (moved by the loader: named through its
# module line's bias). `make profile-check` runs the suite alone.
PROFILE_HOST_LIB := $(BUILD)/host-profile/host/libsfu.a
.PHONY: profile-host-lib profile-check
profile-host-lib:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/host-profile KCONFIG_CONFIG=configs/profile.config \
		SFU_INSTALL_DEPS=no host >/dev/null
PROFILE_PROGRAM_FLAGS_profile_program := -no-pie
PROFILE_PROGRAM_FLAGS_profile_program_pie := -pie -fpie
$(BUILD)/tests/profile_program $(BUILD)/tests/profile_program_pie: tests/profile/program.c tests/linker/insert.ld \
		linker/sfunwind.ld linker/sfunwind-build-id.ld include/sfu/profile.h include/sfu/image.h profile-host-lib
	@mkdir -p $(@D)
	gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wa,--gsframe $(PROFILE_PROGRAM_FLAGS_$(@F)) -Wl,--build-id \
		-Iinclude -Llinker -Wl,-T,tests/linker/insert.ld -o $@ $< $(PROFILE_HOST_LIB) -lpthread
PROFILE_CHECK_DEPS := tools $(BUILD)/tests/profile_program $(BUILD)/tests/profile_program_pie
profile-check: $(PROFILE_CHECK_DEPS)
	$(PYTHON) tests/profile/check.py $(BUILD)/tools/sfu $(BUILD)/check/profile $(BUILD)/tests/profile_program \
		$(BUILD)/tests/profile_program_pie

# The same program linked -static-pie against the position-independent core, with and without
# the no-fault hook, built for `sfu gen` (sfunwind-reserve.ld: the whole image's table, glibc's
# functions included, so its walks end at _start) and with -g (file:line for `sfu symbolize`):
# tests/linker/pie.sh runs it where Linux loads it, a random address.
$(BUILD)/tests/static_pie_image $(BUILD)/tests/static_pie_image-hook: $(BUILD)/tests/static_pie_image%: \
		tests/linker/linked_image.c tests/linker/insert-reserve.ld linker/sfunwind-reserve.ld \
		linker/sfunwind-symbols.ld linker/sfunwind-build-id.ld include/sfu/image.h $(BUILD)/pie/x86_64/libsfu.a
	@mkdir -p $(@D)
	gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -static-pie -Wl,--build-id -Iinclude -Llinker \
		$(if $(filter -hook,$*),-DLINKED_IMAGE_HOOK) -Wl,-T,tests/linker/insert-reserve.ld -o $@ $< \
		$(BUILD)/pie/x86_64/libsfu.a -lpthread

# What the pie suite reads, and the suite alone.
PIE_CHECK_DEPS := $(BUILD)/pie/x86_64/libsfu.a $(BUILD)/pie/arm64/libsfu.a $(BUILD)/tests/static_pie_image \
	$(BUILD)/tests/static_pie_image-hook tools
.PHONY: pie-check
pie-check: $(PIE_CHECK_DEPS)
	bash tests/linker/pie.sh $(BUILD)

# The gc suite alone: the tool and the library of each architecture.
.PHONY: gc-check
gc-check: tools
	@$(MAKE) --no-print-directory ARCH=x86_64 lib
	@$(MAKE) --no-print-directory ARCH=arm64 lib
	@$(MAKE) --no-print-directory ARCH=s390x lib
	bash tests/linker/gc.sh $(BUILD)

# The breakpad suite's STACK CFI comparer: a symbol file's rules applied by the .sym reader's
# evaluator against another file's, or against the image's SFrame or DWARF CFI rows.
TOOLS_LIB_OBJS := $(patsubst tools/%.cpp,$(TOOLS_DIR)/obj/%.o,$(TOOLS_LIB_SRCS))
$(BUILD)/tests/sym_cfi_equal: tests/breakpad/sym_cfi_equal.cpp $(TOOLS_LIB_OBJS) $(HOST_DIR)/libsfu.a
	@mkdir -p $(@D)
	$(HOST_CXX) $(TOOLS_CXXFLAGS) -o $@ $< $(TOOLS_LIB_OBJS) $(HOST_DIR)/libsfu.a

.PHONY: unit-tests fuzz-build
unit-tests: $(BUILD)/tests/unit_tests $(BUILD)/tests/variant_tests $(BUILD)/tests/target_tests $(BUILD)/tests/direct_tests \
	$(BUILD)/tests/cache_stats_tests $(BUILD)/tests/profile_tests
FUZZ_TARGETS := $(FUZZ_DIR)/fuzz_sframe $(FUZZ_DIR)/fuzz_walk $(FUZZ_DIR)/fuzz_walk_unvalidated
fuzz-build: $(FUZZ_TARGETS)

# Every target, each for FUZZ_SECONDS.
fuzz: $(FUZZ_TARGETS)
	bash tests/fuzz/run.sh $(FUZZ_DIR)/fuzz_sframe $(FUZZ_SECONDS) $(SFU_CORPUS) $(FUZZ_DIR)/fuzz_walk $(FUZZ_SECONDS) \
		$(FUZZ_DIR)/fuzz_walk_unvalidated $(FUZZ_SECONDS)

check: $(BUILD)/tests/unit_tests $(BUILD)/tests/variant_tests $(BUILD)/tests/target_tests $(BUILD)/tests/direct_tests \
		$(BUILD)/tests/cache_stats_tests $(BUILD)/tests/profile_tests \
		$(BUILD)/tests/linked_image \
		$(BUILD)/tests/reserve_image_gcc $(BUILD)/tests/reserve_image_clang $(BUILD)/tests/symbols_image_gas \
		$(BUILD)/tests/crash_program $(BUILD)/tests/crash_program_pie $(PIE_CHECK_DEPS) $(PROFILE_CHECK_DEPS) \
		gen-corpus qemu-kernels \
		$(BUILD)/tests/x86_walk_tests $(FUZZ_TARGETS) tools $(BUILD)/tests/sym_cfi_equal
	@$(MAKE) --no-print-directory ARCH=x86_64 lib
	@$(MAKE) --no-print-directory ARCH=arm64 lib
	@$(MAKE) --no-print-directory ARCH=s390x lib
	@$(MAKE) --no-print-directory ARCH=arm64 BUILD=$(BUILD)/uniprocessor \
		KCONFIG_CONFIG=tests/variant/uniprocessor.config SFU_INSTALL_DEPS=no lib
	@BUILD=$(BUILD) SFU_CORPUS=$(SFU_CORPUS) FUZZ_CHECK_SECONDS=$(FUZZ_CHECK_SECONDS) \
		bash tests/check.sh
