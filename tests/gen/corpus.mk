# The sfu gen / sfu verify corpus: small freestanding static executables, with DWARF CFI from
# gcc, clang and hand-written assembly, and (x86_64, arm64) with SFrame V1 written by gas.
# Cases: tests/gen/README.md.
#
#   make gen-corpus                  everything below, in $(GEN_CORPUS_DIR)
#   make -f tests/gen/corpus.mk      the same, without the top-level Makefile
#
# Produced (ARCH in x86_64 arm64 s390x):
#   $(GEN_CORPUS_DIR)/ARCH/{gcc-O0,gcc-O2,gcc-Os,clang-O2}.elf      ET_EXEC, .eh_frame only
#   $(GEN_CORPUS_DIR)/{x86_64,arm64}/gcc-O2-pie.elf                   ET_DYN (-static-pie)
#   $(GEN_CORPUS_DIR)/{x86_64,arm64}/{gas-O0,gas-O2,gas-Os}.elf       + .sframe V1 from gas
#   $(GEN_CORPUS_DIR)/{x86_64,arm64}/gas-O2-pie.elf                   ET_DYN + .sframe V1
# Lists for test scripts:
#   GEN_CORPUS_ELFS       the executables without .sframe (input of sfu gen)
#   GEN_CORPUS_GAS_ELFS   the executables with gas's .sframe (input of sfu verify)
#   GEN_CORPUS_PIE_ELFS   the ET_DYN ones (in one of the two lists above)
#   GEN_CORPUS_ALL_ELFS   all of them; GEN_CORPUS_ELFS_<arch>, GEN_CORPUS_GAS_ELFS_<arch> per arch
#   GEN_CORPUS_READELF_<arch>, GEN_CORPUS_OBJDUMP_<arch>   the binutils for each architecture

# The directory of this file, wherever make runs from; computed before anything is included.
GEN_CORPUS_MK := $(lastword $(MAKEFILE_LIST))
GEN_CORPUS_SRC := $(patsubst %/,%,$(dir $(GEN_CORPUS_MK)))

BUILD ?= build
GEN_CORPUS_DIR ?= $(BUILD)/gen-corpus

# The first target when this file is the makefile; included after `all:`, it changes nothing.
.PHONY: gen-corpus clean-gen-corpus
gen-corpus:

GEN_CORPUS_ARCHS := x86_64 arm64 s390x
GEN_CORPUS_VARIANTS := gcc-O0 gcc-O2 gcc-Os clang-O2
# Debian's gas 2.40 writes SFrame for x86_64 and aarch64 only.
GEN_CORPUS_GAS_ARCHS := x86_64 arm64
GEN_CORPUS_GAS_VARIANTS := gas-O0 gas-O2 gas-Os
GEN_CORPUS_PIE_ARCHS := x86_64 arm64

# ---- Tools --------------------------------------------------------------------------------------
GEN_CORPUS_GCC_x86_64 := gcc
GEN_CORPUS_GCC_arm64 := aarch64-linux-gnu-gcc
GEN_CORPUS_GCC_s390x := s390x-linux-gnu-gcc
GEN_CORPUS_CLANG ?= clang
GEN_CORPUS_CLANG_x86_64 := $(GEN_CORPUS_CLANG) --target=x86_64-linux-gnu -fintegrated-as
GEN_CORPUS_CLANG_arm64 := $(GEN_CORPUS_CLANG) --target=aarch64-linux-gnu -fintegrated-as
GEN_CORPUS_CLANG_s390x := $(GEN_CORPUS_CLANG) --target=s390x-linux-gnu -fintegrated-as
GEN_CORPUS_READELF_x86_64 := readelf
GEN_CORPUS_READELF_arm64 := aarch64-linux-gnu-readelf
GEN_CORPUS_READELF_s390x := s390x-linux-gnu-readelf
GEN_CORPUS_OBJDUMP_x86_64 := objdump
GEN_CORPUS_OBJDUMP_arm64 := aarch64-linux-gnu-objdump
GEN_CORPUS_OBJDUMP_s390x := s390x-linux-gnu-objdump

# ---- Flags --------------------------------------------------------------------------------------
# Every C object: freestanding, asynchronous unwind tables (.eh_frame for every instruction),
# no stack protector (there is no __stack_chk_fail). -g for mapping verify reports to lines.
GEN_CORPUS_CFLAGS := -std=gnu11 -g -Wall -Wextra -Werror -ffreestanding -fno-stack-protector \
	-fasynchronous-unwind-tables
# gcc only: keeps support.c's loops from becoming calls to memset and memcpy.
GEN_CORPUS_GCC_CFLAGS := -fno-tree-loop-distribute-patterns

# Per variant: the compiler (gcc or clang), optimization, and the kind of hand-written objects.
GEN_CORPUS_CC_gcc-O0 := gcc
GEN_CORPUS_CC_gcc-O2 := gcc
GEN_CORPUS_CC_gcc-Os := gcc
GEN_CORPUS_CC_clang-O2 := clang
GEN_CORPUS_CC_gcc-O2-pie := gcc
GEN_CORPUS_CC_gas-O0 := gcc
GEN_CORPUS_CC_gas-O2 := gcc
GEN_CORPUS_CC_gas-Os := gcc
GEN_CORPUS_CC_gas-O2-pie := gcc
GEN_CORPUS_OPT_gcc-O0 := -O0
GEN_CORPUS_OPT_gcc-O2 := -O2 -fomit-frame-pointer
GEN_CORPUS_OPT_gcc-Os := -Os -fomit-frame-pointer
GEN_CORPUS_OPT_clang-O2 := -O2 -fomit-frame-pointer
GEN_CORPUS_OPT_gcc-O2-pie := -O2 -fomit-frame-pointer
GEN_CORPUS_OPT_gas-O0 := -O0 -Wa,--gsframe
GEN_CORPUS_OPT_gas-O2 := -O2 -fomit-frame-pointer -Wa,--gsframe
GEN_CORPUS_OPT_gas-Os := -Os -fomit-frame-pointer -Wa,--gsframe
GEN_CORPUS_OPT_gas-O2-pie := -O2 -fomit-frame-pointer -Wa,--gsframe
# The hand-written .S files and _start are assembled by gcc once per architecture, or once more
# with --gsframe for the gas variants.
GEN_CORPUS_ASM_gcc-O0 := asm
GEN_CORPUS_ASM_gcc-O2 := asm
GEN_CORPUS_ASM_gcc-Os := asm
GEN_CORPUS_ASM_clang-O2 := asm
GEN_CORPUS_ASM_gcc-O2-pie := asm
GEN_CORPUS_ASM_gas-O0 := asm-gsframe
GEN_CORPUS_ASM_gas-O2 := asm-gsframe
GEN_CORPUS_ASM_gas-Os := asm-gsframe
GEN_CORPUS_ASM_gas-O2-pie := asm-gsframe
GEN_CORPUS_ASFLAGS_asm :=
GEN_CORPUS_ASFLAGS_asm-gsframe := -Wa,--gsframe
# Position: ET_EXEC at a fixed address, or ET_DYN (static PIE, no interpreter) for *-pie.
GEN_CORPUS_PIC_CFLAGS = $(if $(filter %-pie,$(1)),-fPIE,-fno-pie)
GEN_CORPUS_LDFLAGS = -nostdlib -static$(if $(filter %-pie,$(1)),-pie,) \
	$(if $(filter %-pie,$(1)),,-no-pie)

# ---- Sources ------------------------------------------------------------------------------------
GEN_CORPUS_C_SRCS := $(sort $(wildcard $(GEN_CORPUS_SRC)/*.c))
GEN_CORPUS_HDRS := $(sort $(wildcard $(GEN_CORPUS_SRC)/*.h))
GEN_CORPUS_ASM_SRCS_x86_64 := $(sort $(wildcard $(GEN_CORPUS_SRC)/x86_64/*.S))
GEN_CORPUS_ASM_SRCS_arm64 := $(sort $(wildcard $(GEN_CORPUS_SRC)/arm64/*.S))
GEN_CORPUS_ASM_SRCS_s390x := $(sort $(wildcard $(GEN_CORPUS_SRC)/s390x/*.S))

# ---- Rules --------------------------------------------------------------------------------------
# $(1) arch, $(2) asm or asm-gsframe: the hand-written objects.
define GEN_CORPUS_ASM_RULES
GEN_CORPUS_OBJS_$(1)_$(2) := $$(patsubst $(GEN_CORPUS_SRC)/$(1)/%.S,$(GEN_CORPUS_DIR)/$(1)/obj/$(2)/%.o,$$(GEN_CORPUS_ASM_SRCS_$(1)))
$$(GEN_CORPUS_OBJS_$(1)_$(2)): $(GEN_CORPUS_DIR)/$(1)/obj/$(2)/%.o: $(GEN_CORPUS_SRC)/$(1)/%.S $(GEN_CORPUS_MK) | $$(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(GEN_CORPUS_GCC_$(1)) $$(GEN_CORPUS_ASFLAGS_$(2)) -c $$< -o $$@
endef

# $(1) arch, $(2) variant: the C objects and the executable.
define GEN_CORPUS_VARIANT_RULES
GEN_CORPUS_OBJS_$(1)_$(2) := $$(patsubst $(GEN_CORPUS_SRC)/%.c,$(GEN_CORPUS_DIR)/$(1)/obj/$(2)/%.o,$$(GEN_CORPUS_C_SRCS))
$$(GEN_CORPUS_OBJS_$(1)_$(2)): $(GEN_CORPUS_DIR)/$(1)/obj/$(2)/%.o: $(GEN_CORPUS_SRC)/%.c $$(GEN_CORPUS_HDRS) $(GEN_CORPUS_MK) | $$(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(GEN_CORPUS_$(if $(filter clang,$(GEN_CORPUS_CC_$(2))),CLANG,GCC)_$(1)) $$(GEN_CORPUS_CFLAGS) \
		$(if $(filter gcc,$(GEN_CORPUS_CC_$(2))),$$(GEN_CORPUS_GCC_CFLAGS)) \
		$$(call GEN_CORPUS_PIC_CFLAGS,$(2)) $$(GEN_CORPUS_OPT_$(2)) -c $$< -o $$@
$(GEN_CORPUS_DIR)/$(1)/$(2).elf: $$(GEN_CORPUS_OBJS_$(1)_$(GEN_CORPUS_ASM_$(2))) $$(GEN_CORPUS_OBJS_$(1)_$(2))
	$$(GEN_CORPUS_GCC_$(1)) $$(call GEN_CORPUS_LDFLAGS,$(2)) -o $$@ $$^
endef

$(foreach a,$(GEN_CORPUS_ARCHS),$(eval $(call GEN_CORPUS_ASM_RULES,$(a),asm)))
$(foreach a,$(GEN_CORPUS_GAS_ARCHS),$(eval $(call GEN_CORPUS_ASM_RULES,$(a),asm-gsframe)))

GEN_CORPUS_VARIANTS_x86_64 := $(GEN_CORPUS_VARIANTS) gcc-O2-pie
GEN_CORPUS_VARIANTS_arm64 := $(GEN_CORPUS_VARIANTS) gcc-O2-pie
GEN_CORPUS_VARIANTS_s390x := $(GEN_CORPUS_VARIANTS)
GEN_CORPUS_GAS_VARIANTS_x86_64 := $(GEN_CORPUS_GAS_VARIANTS) gas-O2-pie
GEN_CORPUS_GAS_VARIANTS_arm64 := $(GEN_CORPUS_GAS_VARIANTS) gas-O2-pie
GEN_CORPUS_GAS_VARIANTS_s390x :=

$(foreach a,$(GEN_CORPUS_ARCHS),$(foreach v,$(GEN_CORPUS_VARIANTS_$(a)) $(GEN_CORPUS_GAS_VARIANTS_$(a)),\
	$(eval $(call GEN_CORPUS_VARIANT_RULES,$(a),$(v)))))

# ---- Lists --------------------------------------------------------------------------------------
$(foreach a,$(GEN_CORPUS_ARCHS),\
	$(eval GEN_CORPUS_ELFS_$(a) := $(patsubst %,$(GEN_CORPUS_DIR)/$(a)/%.elf,$(GEN_CORPUS_VARIANTS_$(a))))\
	$(eval GEN_CORPUS_GAS_ELFS_$(a) := $(patsubst %,$(GEN_CORPUS_DIR)/$(a)/%.elf,$(GEN_CORPUS_GAS_VARIANTS_$(a)))))
GEN_CORPUS_ELFS := $(foreach a,$(GEN_CORPUS_ARCHS),$(GEN_CORPUS_ELFS_$(a)))
GEN_CORPUS_GAS_ELFS := $(foreach a,$(GEN_CORPUS_ARCHS),$(GEN_CORPUS_GAS_ELFS_$(a)))
GEN_CORPUS_ALL_ELFS := $(GEN_CORPUS_ELFS) $(GEN_CORPUS_GAS_ELFS)
GEN_CORPUS_PIE_ELFS := $(filter %-pie.elf,$(GEN_CORPUS_ALL_ELFS))

gen-corpus: $(GEN_CORPUS_ALL_ELFS)

clean-gen-corpus:
	rm -rf $(GEN_CORPUS_DIR)
