# sfunwind build.
#   make [ARCH=x86_64|arm64|s390x]   freestanding core: build/<arch>/libsfu.a
#   make host                         the same core for the host (PIC): build/host/libsfu.a
#   make tools                        build/tools/sfu
#   make check                        every test suite; ends with "N passed, M failed"
#   make fuzz [FUZZ_SECONDS=N]        the libFuzzer targets (fuzz_sframe, fuzz_walk, fuzz_walk_unvalidated),
#                                     each N seconds
#   make defconfig | menuconfig | olddefconfig
#   make lib ... SFU_INSTALL_DEPS=no  as sfu.mk asks: nothing installed (the default installs)
# Every target first installs missing Debian packages (scripts/install-deps.sh), unless
# SFU_INSTALL_DEPS=no (a kernel's build through sfu.mk). KCONFIG_CONFIG=- means no .config: the
# Kconfig defaults.

ARCH ?= x86_64
BUILD ?= build
KCONFIG_CONFIG ?= .config
# Extra flags for the freestanding core, e.g. KCFLAGS=-mcmodel=kernel for a higher-half kernel.
KCFLAGS ?=
FUZZ_SECONDS ?= 600

PYTHON := /usr/bin/python3
HOST_CXX ?= g++
CLANGXX ?= clang++
CLANG ?= clang

CROSS_x86_64 :=
CROSS_arm64 := aarch64-linux-gnu-
CROSS_s390x := s390x-linux-gnu-
ifeq ($(filter $(ARCH),x86_64 arm64 s390x),)
$(error ARCH must be x86_64, arm64 or s390x, not '$(ARCH)')
endif
CROSS := $(CROSS_$(ARCH))

# Kernel-code flags per architecture: no FP/SIMD registers, no red zone, no unaligned access.
ARCHFLAGS_x86_64 := -mno-red-zone -mgeneral-regs-only
ARCHFLAGS_arm64 := -mgeneral-regs-only -mstrict-align -mno-outline-atomics
ARCHFLAGS_s390x := -msoft-float
# The core's own code only (not the test kernels'): on x86_64 jump targets and loops are not
# padded to 16 bytes, as Linux builds its x86_64 code (about 580 bytes of nops in the core).
CORE_ARCHFLAGS_x86_64 := -falign-jumps=1 -falign-loops=1

CONFIG_H := $(BUILD)/config/sfu_autoconf.h
CORE_SRCS := $(sort $(wildcard src/*.cpp src/*/*.cpp))
CORE_HDRS := $(sort $(wildcard include/sfu/*.h src/*.h src/*/*.h arch/*/*.h))

WARN := -Wall -Wextra -Wshadow -Werror
CORE_COMMON := -std=c++20 -O2 -g $(WARN) -fno-exceptions -fno-rtti -fno-threadsafe-statics \
	-Iinclude -Isrc -Iarch -I$(BUILD)/config
# Registration only (open, validation, block index, registry; error names for printing) is built
# for size: it runs once per module, never in a walk. The walk path (walker, lookup, rules,
# decode, row cache, memory) keeps -O2. sfu.mk builds the library through these rules too.
CORE_SIZE_SRCS := src/sframe/table.cpp src/sframe/index.cpp src/sframe/error.cpp src/unwind/registry.cpp
# CONFIG_SFU_OPTIMIZE_SIZE (configs/walk-only.config): the whole core -Oz, a section per function
# and object, for kernels that link with --gc-sections; no jump tables (on s390x their entries are
# 8-byte addresses: a few compares are smaller for the switches the core has); no frame pointer
# (arm64 keeps one by default: about 200 bytes; the core's frames are unwound by its own table, and
# KCFLAGS=-fno-omit-frame-pointer gives it back to a kernel whose other unwinder needs it); no
# guessed branch probabilities and no shrink-wrapping, which lay out and copy code for the paths
# guessed hot (walk-only: about 130 bytes on s390x and arm64, 40 on x86_64). Read from the .config
# itself: it sets flags.
CORE_FOR_SIZE := $(if $(wildcard $(KCONFIG_CONFIG)),$(shell grep -qs '^CONFIG_SFU_OPTIMIZE_SIZE=y' $(KCONFIG_CONFIG) && echo y))
CORE_SIZE_FLAGS := -Oz -ffunction-sections -fdata-sections -fno-jump-tables -fomit-frame-pointer \
	-fno-guess-branch-probability -fno-shrink-wrap
core_opt = $(if $(CORE_FOR_SIZE),$(CORE_SIZE_FLAGS),$(if $(filter $(1),$(CORE_SIZE_SRCS)),-Os))
FREESTANDING := -ffreestanding -nostdlib -fno-stack-protector -fno-pic -fno-pie \
	-fno-tree-loop-distribute-patterns
# The library's own table, so that a fault inside sfunwind unwinds too: CFI for `sfu gen` always,
# and SFrame from gas where the assembler writes it (scripts/gas-sframe.mk).
include scripts/gas-sframe.mk
OWN_TABLE := -fasynchronous-unwind-tables $(if $(call sfu_gas_writes_sframe,$(CROSS)gcc),$(SFU_GSFRAME_FLAG))
# KCFLAGS come last, after the optimization choice (core_opt): the kernel's word is final.
TARGET_CXXFLAGS := $(CORE_COMMON) $(FREESTANDING) $(ARCHFLAGS_$(ARCH)) $(CORE_ARCHFLAGS_$(ARCH)) $(OWN_TABLE)
HOST_OWN_TABLE := -fasynchronous-unwind-tables $(if $(call sfu_gas_writes_sframe,$(HOST_CXX)),$(SFU_GSFRAME_FLAG))
HOST_CORE_CXXFLAGS := $(CORE_COMMON) $(HOST_OWN_TABLE) -fPIC -DSFU_HOSTED=1

# Assembly: the target's own; the host (x86_64) build uses arch/x86_64's.
TARGET_ASM := $(sort $(wildcard arch/$(ARCH)/*.S))
HOST_ASM := $(sort $(wildcard arch/x86_64/*.S))

TARGET_DIR := $(BUILD)/$(ARCH)
TARGET_OBJS := $(patsubst %.cpp,$(TARGET_DIR)/obj/%.o,$(CORE_SRCS)) \
	$(patsubst %.S,$(TARGET_DIR)/obj/%.o,$(TARGET_ASM))
HOST_DIR := $(BUILD)/host
HOST_OBJS := $(patsubst %.cpp,$(HOST_DIR)/obj/%.o,$(CORE_SRCS)) \
	$(patsubst %.S,$(HOST_DIR)/obj/%.o,$(HOST_ASM))

SFU_INSTALL_DEPS ?= yes
DEPS_STAMP := $(if $(filter no,$(SFU_INSTALL_DEPS)),,$(BUILD)/.deps-installed)

.PHONY: all lib host tools check fuzz deps defconfig menuconfig olddefconfig clean
all: lib
lib: $(TARGET_DIR)/libsfu.a
host: $(HOST_DIR)/libsfu.a

deps: $(DEPS_STAMP)
ifneq ($(DEPS_STAMP),)
$(DEPS_STAMP): scripts/install-deps.sh
	@bash scripts/install-deps.sh
	@mkdir -p $(@D) && touch $@
endif

# The config header: from .config when there is one, else from the Kconfig defaults. The
# script leaves an unchanged header alone (nothing rebuilds); the stamp records that it ran.
$(CONFIG_H).stamp: Kconfig scripts/kconfig.py $(wildcard $(KCONFIG_CONFIG)) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(PYTHON) scripts/kconfig.py header Kconfig $(KCONFIG_CONFIG) $(CONFIG_H)
	@touch $@
$(CONFIG_H): $(CONFIG_H).stamp ;

defconfig olddefconfig menuconfig: | $(DEPS_STAMP)
	$(PYTHON) scripts/kconfig.py $@ Kconfig $(KCONFIG_CONFIG)

$(TARGET_DIR)/obj/%.o: %.cpp $(CORE_HDRS) $(CONFIG_H) Makefile | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CROSS)g++ $(TARGET_CXXFLAGS) $(call core_opt,$<) $(KCFLAGS) -c $< -o $@

$(TARGET_DIR)/obj/%.o: %.S Makefile | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CROSS)gcc $(OWN_TABLE) -c $< -o $@

$(TARGET_DIR)/libsfu.a: $(TARGET_OBJS)
	@rm -f $@
	$(CROSS)ar rcs $@ $^

$(HOST_DIR)/obj/%.o: %.cpp $(CORE_HDRS) $(CONFIG_H) Makefile | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) $(HOST_CORE_CXXFLAGS) $(call core_opt,$<) -c $< -o $@

$(HOST_DIR)/obj/%.o: %.S Makefile | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) $(HOST_OWN_TABLE) -c $< -o $@

$(HOST_DIR)/libsfu.a: $(HOST_OBJS)
	@rm -f $@
	ar rcs $@ $^

include tools/tools.mk
include tests/tests.mk

clean:
	rm -rf $(BUILD)
