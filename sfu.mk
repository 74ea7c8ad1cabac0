# sfu.mk: sfunwind in a Make-based kernel. Set what you need, include this file, use what it
# defines (docs/porting.md shows it in a kernel step by step).
#
# Before `include path/to/sfunwind/sfu.mk`, all optional:
#   SFU_ARCH            x86_64, arm64 or s390x. Default: from ARCH (x86_64 or x86, arm64 or aarch64,
#                       s390x or s390).
#   SFU_CROSS_COMPILE   prefix of the target's gcc/g++/ld/ar. Default: CROSS_COMPILE if set, else
#                       Debian's (aarch64-linux-gnu-, s390x-linux-gnu-; none for x86_64).
#   SFU_BUILD           where the library, the host tool and the config header go.
#                       Default: build/sfunwind.
#   SFU_CONFIG          a .config for sfunwind's Kconfig. Default: none, the Kconfig defaults.
#   SFU_KCFLAGS         extra flags for the library, e.g. your code model (-mcmodel=kernel), or
#                       -fpie for an image linked -pie or -static-pie (docs/porting.md). They
#                       come last, so they override the library's own choices.
#   SFU_SFRAME          gas: gas writes the tables (-Wa,--gsframe, binutils 2.40 or later on x86_64
#                       and arm64). gen: `sfu gen` writes them after the link from the DWARF CFI
#                       (any toolchain, every architecture). Default: gas where the assembler
#                       writes SFrame, else gen.
#
# Defined here:
#   SFU_INCLUDE   -I for <sfu/*.h>; the headers need nothing else, even under -nostdinc.
#   SFU_CFLAGS    for your 64-bit C and assembly, so that they get tables: -fasynchronous-unwind-
#                 tables (the CFI `sfu gen` reads), and -Wa,--gsframe on the gas path. Not for
#                 objects built -m16 or -m32 (x86 real-mode or 32-bit boot code), -mabi=ilp32 or
#                 -m31: gas writes SFrame only into 64-bit objects and stops such a build ("Error:
#                 .sframe not supported for target"); they need no table (a walk never runs there).
#   SFU_LDFLAGS   -L for the linker fragments. Give it BEFORE -T: ld reads the script, and the
#                 files it INCLUDEs, where -T stands.
#   SFU_LDS       the one fragment your linker script INCLUDEs: sfunwind-gas.ld (gas: the
#                 table kept, room for the names) or sfunwind-reserve.ld (gen: room for both).
#   SFU_LIB       the library, built for SFU_ARCH with its own table (link it after your objects).
#   SFU_TOOL      the host tool `sfu`.
#   SFU_GC_LINK   for images linked with --gc-sections: put it in front of the link command
#                 ($(SFU_GC_LINK) $(LD) --gc-sections ... -o $@ ...), and INCLUDE sfunwind-discard.ld
#                 first in the script's SECTIONS. On the gas path it links twice (scripts/gc-link.sh),
#                 so that the table's KEEP keeps no dead function alive, and fails if the two links
#                 disagree; on the gen path it is empty: ld's collection alone is right there.
#   sfu_finish    $(call sfu_finish,ELF) after the link: `sfu gen` writes into ELF, in place, the
#                 table (gen) and the function names (both paths). It fails with the size it
#                 needs if a reservation is too small (--defsym=SFU_SFRAME_RESERVE=N or
#                 SFU_SYMBOLS_RESERVE=N on the link line, anywhere).
# The library and the tool are built by sfunwind's own Makefile (a sub-make that does nothing
# when they are current). It needs the target's g++, the host's g++ and python3 with kconfiglib
# (Debian: python3-kconfiglib); it installs nothing.

SFU_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

sfu_arch_x86_64 := x86_64
sfu_arch_x86 := x86_64
sfu_arch_arm64 := arm64
sfu_arch_aarch64 := arm64
sfu_arch_s390x := s390x
sfu_arch_s390 := s390x
SFU_ARCH ?= $(sfu_arch_$(ARCH))
ifeq ($(filter $(SFU_ARCH),x86_64 arm64 s390x),)
$(error sfu.mk: set SFU_ARCH to x86_64, arm64 or s390x (ARCH is '$(ARCH)'))
endif

sfu_debian_cross_x86_64 :=
sfu_debian_cross_arm64 := aarch64-linux-gnu-
sfu_debian_cross_s390x := s390x-linux-gnu-
SFU_CROSS_COMPILE ?= $(if $(CROSS_COMPILE),$(CROSS_COMPILE),$(sfu_debian_cross_$(SFU_ARCH)))
SFU_BUILD ?= build/sfunwind
SFU_CONFIG ?=
SFU_KCFLAGS ?=

include $(SFU_DIR)/scripts/gas-sframe.mk
sfu_gas_sframe := $(call sfu_gas_writes_sframe,$(SFU_CROSS_COMPILE)gcc)
SFU_SFRAME ?= $(if $(sfu_gas_sframe),gas,gen)
ifeq ($(filter $(SFU_SFRAME),gas gen),)
$(error sfu.mk: SFU_SFRAME must be gas or gen, not '$(SFU_SFRAME)')
endif
ifeq ($(SFU_SFRAME)$(sfu_gas_sframe),gas)
$(error sfu.mk: $(SFU_CROSS_COMPILE)gcc's assembler cannot write SFrame; use SFU_SFRAME=gen)
endif

SFU_INCLUDE := -I$(SFU_DIR)/include
SFU_CFLAGS := -fasynchronous-unwind-tables $(if $(filter gas,$(SFU_SFRAME)),$(SFU_GSFRAME_FLAG))
SFU_LDFLAGS := -L$(SFU_DIR)/linker
SFU_LDS := $(if $(filter gas,$(SFU_SFRAME)),sfunwind-gas.ld,sfunwind-reserve.ld)
SFU_LIB := $(SFU_BUILD)/$(SFU_ARCH)/libsfu.a
SFU_TOOL := $(SFU_BUILD)/tools/sfu
SFU_GC_LINK := $(if $(filter gas,$(SFU_SFRAME)),bash $(SFU_DIR)/scripts/gc-link.sh --nm $(SFU_CROSS_COMPILE)nm --)

# The sub-make gets every setting on its command line (they win over what the kernel's own
# command line passes down), and no package installation.
sfu_submake = $(MAKE) --no-print-directory -C $(SFU_DIR) SFU_INSTALL_DEPS=no \
	ARCH=$(SFU_ARCH) BUILD=$(abspath $(SFU_BUILD)) KCONFIG_CONFIG=$(if $(SFU_CONFIG),$(abspath $(SFU_CONFIG)),-)

# Not the kernel's default goal: that stays the first target of its own Makefile.
sfu_default_goal := $(.DEFAULT_GOAL)

# Always asked (the sub-make knows what is current); the archive's time then tells the kernel's
# link whether to run again.
.PHONY: sfu-force
$(SFU_LIB): sfu-force
	+@$(sfu_submake) CROSS=$(SFU_CROSS_COMPILE) KCFLAGS='$(SFU_KCFLAGS)' lib
$(SFU_TOOL): sfu-force
	+@$(sfu_submake) tools

.DEFAULT_GOAL := $(sfu_default_goal)

sfu_finish = $(SFU_TOOL) gen $(1) -o $(1) $(if $(filter gas,$(SFU_SFRAME)),--symbols-only)
