# QEMU boot tests and the demo. Included by tests/tests.mk.
#   make qemu-test            every kernel of every architecture (tests/qemu/README.md)
#   make demo [ARCH=...]      the demo kernel of one architecture, its trace symbolized
#
# Each tests/qemu/<arch>/kernel.mk builds its kernels under $(QEMU_DIR)/<arch>/ and adds:
#   QEMU_RUNS += "LABEL|ELF|QEMU COMMAND[|RUNNER OPTIONS]"   one per kernel qemu-test boots,
#                                              quotes included; -kernel ELF is added unless the
#                                              command has one; the options go to run.py (--crash,
#                                              --reloc)
#   QEMU_KERNELS += ELF                        what qemu-test needs built
#   QEMU_EVERY_RUNS += "ARCH|TABLE|ELF|QEMU COMMAND[|K]"   an every-instruction kernel
#                                              (build/qemu/ARCH/every-TABLE.elf, TABLE gas-v1,
#                                              gen-v2, gen-v3, pac-gen-v2, each also -no-cache),
#                                              booted with gdb attached (run.py --every; gdb compares
#                                              every K-th stepped walk, by default run.py's K for
#                                              ARCH): tests/qemu/README.md, "Every instruction"
#   QEMU_DEMO_<arch> := "LABEL|ELF|QEMU COMMAND"   the demo rule drops the double quotes
# using what this file defines:
#   QEMU_CFLAGS_<arch>   kernel C flags: -O2, no frame pointers, freestanding, the core's arch flags
#   QEMU_COMMON_SRCS     tests/qemu/common/*.c, to compile into every kernel (crash*.c: only into
#                        the crash kernels, the variants named crash*; smp*: the smp kernels';
#                        reloc.c: the reloc kernels'; profile.c: the profile kernels')
#   QEMU_CRASH_VARIANTS  those names; qemu_reset_command (below)
#   QEMU_CRASH_AREA_VARIANTS  every variant whose image has the crash area: those two, and the
#                        SMP ones an architecture builds (crash-smp: common/crash-smp.c, two CPUs
#                        panicking at once; crash-smp-nowait and crash-smp-nolock: the same
#                        built to forget sfu_crash_wait or the print lock, which must fail), and
#                        reloc, the crash kernel that moves itself (scenario 11)
#   qemu_common_objs, qemu_common_rule, qemu_sframe_finish   (below); qemu_reloc_cflags,
#                        qemu_reloc_ldflags, qemu_reloc_run for the reloc kernels (below)
#   $(BUILD)/<arch>/libsfu.a and $(TOOLS_DIR)/sfu (for `sfu gen` and `sfu verify`) as prerequisites

QEMU_DIR := $(BUILD)/qemu
QEMU_TIMEOUT ?= 120
QEMU_COMMON_SRCS := $(filter-out tests/qemu/common/crash% tests/qemu/common/smp% tests/qemu/common/reloc% \
	tests/qemu/common/profile%,\
	$(sort $(wildcard tests/qemu/common/*.c)))
# Scenario 9's shared half, for the smp kernels: $(call qemu_smp_objs,DIR) (smp.c and the module
# blob, smp-blob.S, which needs -DMODULE_BIN='"PATH"' among the kernel's flags). The module
# itself is smp-module.c, linked alone at SMP_MODULE_BASE by smp-module.lds: $(call
# qemu_smp_module,OUT,CC FLAGS,LD,OBJCOPY,BASE) makes OUT.elf (its own table, verified) and the
# flat OUT.bin.
qemu_smp_objs = $(1)/common/smp.c.o $(1)/common/smp-blob.S.o
QEMU_CRASH_VARIANTS := crash crash-torn
QEMU_CRASH_SRCS_crash := tests/qemu/common/crash.c
QEMU_CRASH_SRCS_crash-torn := tests/qemu/common/crash.c tests/qemu/common/crash-torn.c
QEMU_CRASH_SRCS_crash-smp := tests/qemu/common/crash.c tests/qemu/common/crash-smp.c
QEMU_CRASH_SRCS_crash-smp-nowait := $(QEMU_CRASH_SRCS_crash-smp)
QEMU_CRASH_SRCS_crash-smp-nolock := $(QEMU_CRASH_SRCS_crash-smp)
QEMU_CRASH_AREA_VARIANTS := $(QEMU_CRASH_VARIANTS) crash-smp crash-smp-nowait crash-smp-nolock reloc
# Scenario 11 (common/reloc.h; tests/qemu/README.md, "Images that move themselves"): the reloc
# kernel of each architecture is the crash kernel linked position independent, which moves itself
# at boot by a bias the runner's seed decides. Each architecture describes it as five words,
# RELOC = LINK SEED LO HI ALIGN (LINK: the link address; SEED: where QEMU's generic loader writes
# the seed; [LO, HI): where the copy may go, ALIGN-aligned), builds its objects with
# $(call qemu_reloc_cflags,RELOC), preprocesses its script with $(call qemu_reloc_ldsflags,RELOC)
# and links with $(call qemu_reloc_ldflags,RELOC) against the core built -fpie
# ($(BUILD)/pie/<arch>/libsfu.a, below); the runner reads the window back from the image's
# absolute symbols. $(call qemu_reloc_run,ARCH,OUT,QEMU COMMAND,RELOC[,LOADER]) is its run: the
# crash run's two boots, the seed given by the loader at SEED ({seed}: run.py's; LOADER: more of
# the loader's options, such as ",data-be=true"), and run.py --reloc's checks, keeping the log,
# image, record and dumps in OUT/reloc/.
QEMU_CRASH_SRCS_reloc := tests/qemu/common/crash.c tests/qemu/common/reloc.c
qemu_reloc_cflags = -fpie -DRELOC_LINK_BASE=$(word 1,$(1)) -DRELOC_SEED_ADDR=$(word 2,$(1)) \
	-DRELOC_WINDOW_LO=$(word 3,$(1)) -DRELOC_WINDOW_HI=$(word 4,$(1)) -DRELOC_ALIGN=$(word 5,$(1))
qemu_reloc_ldsflags = -DRELOC_LINK_BASE=$(word 1,$(1))
qemu_reloc_ldflags = -pie --no-dynamic-linker -z text --defsym=__reloc_window_lo=$(word 3,$(1)) \
	--defsym=__reloc_window_hi=$(word 4,$(1)) --defsym=__reloc_align=$(word 5,$(1))
# Breakpad's minidump_stackwalk walks the reloc kernels' minidumps: built once with the kernels
# (qemu-kernels, so that runner_test.py finds it too), as the breakpad suite builds it
# (../shared/oracles/breakpad/build.sh, a few minutes).
QEMU_BREAKPAD := $(BUILD)/oracles/breakpad/bin
BREAKPAD_ORACLE_BUILD ?= ../shared/oracles/breakpad/build.sh
$(QEMU_BREAKPAD)/minidump_stackwalk:
	bash $(BREAKPAD_ORACLE_BUILD) $(BUILD)/oracles/breakpad
qemu_comma := ,
qemu_reloc_run = "$(1) reloc|$(2)/reloc.elf|$(call qemu_reset_command,$(3)) \
	-device loader,addr=$(word 2,$(4)),data={seed},data-len=8$(5)|--crash record --reloc \
	--keep $(2)/reloc --breakpad $(QEMU_BREAKPAD)"
QEMU_COMMON_HDRS := $(sort $(wildcard tests/qemu/common/*.h)) $(CORE_HDRS)
QEMU_CFLAGS_COMMON := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -nostdlib \
	-fno-stack-protector -fno-pic -fno-pie -fomit-frame-pointer -fasynchronous-unwind-tables \
	-fno-tree-loop-distribute-patterns -Iinclude -Itests/qemu/common
QEMU_CFLAGS_x86_64 := $(QEMU_CFLAGS_COMMON) $(ARCHFLAGS_x86_64)
QEMU_CFLAGS_arm64 := $(QEMU_CFLAGS_COMMON) $(ARCHFLAGS_arm64)
QEMU_CFLAGS_s390x := $(QEMU_CFLAGS_COMMON) $(ARCHFLAGS_s390x)

# $(call qemu_common_objs,DIR): the objects of QEMU_COMMON_SRCS under DIR/common/, and of the
# crash scenario's when DIR is a crash variant's (.../crash, .../crash-torn).
# $(call qemu_common_rule,DIR,COMPILE,DEPS): the rule that builds them with COMPILE (compiler and
# flags), to go in a template the caller $(eval)s once per DIR.
qemu_common_objs = $(patsubst tests/qemu/common/%,$(1)/common/%.o,$(QEMU_COMMON_SRCS) \
	$(QEMU_CRASH_SRCS_$(notdir $(1))))

# $(call qemu_reset_command,QEMU COMMAND): the command for a crash run, whose guest resets the
# machine: without -no-reboot, so that QEMU resets it instead of exiting.
qemu_reset_command = $(filter-out -no-reboot,$(1))

# $(call qemu_crash_kernels,OUT) and $(call qemu_crash_runs,ARCH,OUT,QEMU COMMAND): the crash
# kernels OUT/crash.elf and OUT/crash-torn.elf, and their runs: two boots each, without
# -no-reboot; the record run keeps its record and kernel in OUT/crash/ (record.bin, kernel.elf).
qemu_crash_kernels = $(foreach v,$(QEMU_CRASH_VARIANTS),$(1)/$(v).elf)
qemu_crash_runs = "$(1) crash|$(2)/crash.elf|$(call qemu_reset_command,$(3))|--crash record --keep $(2)/crash" \
	"$(1) crash-torn|$(2)/crash-torn.elf|$(call qemu_reset_command,$(3))|--crash torn"
define qemu_common_rule
$(1)/common/%.c.o: tests/qemu/common/%.c $(3) | $$(DEPS_STAMP)
	@mkdir -p $$(@D)
	$(2) -c $$< -o $$@
$(1)/common/%.S.o: tests/qemu/common/%.S $(3) | $$(DEPS_STAMP)
	@mkdir -p $$(@D)
	$(2) -c $$< -o $$@
endef

define qemu_smp_module
$(1)/smp-module.c.o: tests/qemu/common/smp-module.c tests/qemu/common/smp-module.h \
		tests/qemu/qemu.mk | $$(DEPS_STAMP)
	@mkdir -p $$(@D)
	$(2) -fno-optimize-sibling-calls -c $$< -o $$@
$(1).elf: $(1)/smp-module.c.o tests/qemu/common/smp-module.lds $$(TOOLS_DIR)/sfu
	$(3) -nostdlib --build-id=sha1 -Llinker -T tests/qemu/common/smp-module.lds \
		--defsym=SMP_MODULE_BASE=$(5) --defsym=SFU_SFRAME_RESERVE=0x1000 \
		--defsym=SFU_SYMBOLS_RESERVE=0x800 -o $$@.tmp $$<
	$$(call qemu_sframe_finish,$$@,2,all)
$(1).bin: $(1).elf
	$(4) -O binary -R .eh_frame $$< $$@
endef

# $(call qemu_symbols_only,ELF): `sfu gen --symbols-only` writes the names into ELF.tmp's reserved
# .sfu_symbols (gas-table images: sfunwind.ld and sfunwind-symbols.ld).
qemu_symbols_only = $(TOOLS_DIR)/sfu gen $(1).tmp -o $(1).tmp --symbols-only

# $(call qemu_sframe_finish,ELF,SFRAME_VERSION,ALL): the link recipe's end, once the linker has
# written ELF.tmp. With SFRAME_VERSION, `sfu gen` writes the table into the reserved .sframe, and
# the names into the reserved .sfu_symbols (sfunwind-reserve.ld reserves both); without, the table
# is gas's and gen writes the names only. Then `sfu verify` checks every row against the CFI: it must exit 0
# (1 is a mismatch) and its summary say 0 mismatches and, with ALL, no function left without
# rows. Only then ELF.tmp becomes ELF. For a recipe, expanded as it runs: $$(call ...) in a
# template.
define qemu_sframe_finish
$(if $(2),$(TOOLS_DIR)/sfu gen $(1).tmp -o $(1).tmp --sframe-version $(2),$(call qemu_symbols_only,$(1)))
$(TOOLS_DIR)/sfu verify $(1).tmp >$(1).verify || { cat $(1).verify; exit 1; }
@cat $(1).verify
@grep -q '^verify: .*, 0 mismatches, $(if $(3),0 not covered$$)' $(1).verify || \
	{ echo "$(1): sfu verify: mismatches$(if $(3), or functions without rows)" >&2; exit 1; }
@mv $(1).tmp $(1)
endef

# The core for each architecture, built by its own make (ARCH decides the flags); the sub-make
# runs every time and does nothing when the archive is current. (The Makefile's own rule covers
# $(BUILD)/$(ARCH)/libsfu.a; this pattern the other two.) The config header is made here first,
# so the sub-makes running side by side find it current instead of each writing it.
.PHONY: qemu-force
$(BUILD)/%/libsfu.a: qemu-force $(CONFIG_H)
	@$(MAKE) --no-print-directory ARCH=$* lib
# The same core compiled position independent (KCFLAGS=-fpie), for images linked -static-pie that
# move themselves at boot (firmware, KASLR): $(BUILD)/pie/<arch>/libsfu.a. Its config header
# (and the stamp the sub-makes check) is written here first, once, as for the other archives.
PIE_CONFIG_STAMP := $(BUILD)/pie/config/sfu_autoconf.h.stamp
$(PIE_CONFIG_STAMP): Kconfig scripts/kconfig.py $(wildcard $(KCONFIG_CONFIG)) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(PYTHON) scripts/kconfig.py header Kconfig $(KCONFIG_CONFIG) $(@:.stamp=)
	@touch $@
$(BUILD)/pie/%/libsfu.a: qemu-force $(PIE_CONFIG_STAMP)
	@$(MAKE) --no-print-directory ARCH=$* BUILD=$(BUILD)/pie KCFLAGS=-fpie SFU_INSTALL_DEPS=no lib

# The walk-only core (configs/walk-only.config: no names, no crash records, no index or row cache,
# built for size), for each architecture's walk-only.elf, scenario 1 against it (run.py
# --no-names): $(BUILD)/walk-only/<arch>/libsfu.a, its config header written here first, once.
WALK_ONLY_CONFIG := configs/walk-only.config
WALK_ONLY_CONFIG_STAMP := $(BUILD)/walk-only/config/sfu_autoconf.h.stamp
$(WALK_ONLY_CONFIG_STAMP): Kconfig scripts/kconfig.py $(WALK_ONLY_CONFIG) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(PYTHON) scripts/kconfig.py header Kconfig $(WALK_ONLY_CONFIG) $(@:.stamp=)
	@touch $@
$(BUILD)/walk-only/%/libsfu.a: qemu-force $(WALK_ONLY_CONFIG_STAMP)
	@$(MAKE) --no-print-directory ARCH=$* BUILD=$(BUILD)/walk-only KCONFIG_CONFIG=$(WALK_ONLY_CONFIG) \
		SFU_INSTALL_DEPS=no lib

# The core without its fast paths (configs/no-cache.config: no row cache, prefetch or block index),
# for the every-instruction kernels' second run: $(BUILD)/no-cache/<arch>/libsfu.a.
NO_CACHE_CONFIG := configs/no-cache.config
NO_CACHE_CONFIG_STAMP := $(BUILD)/no-cache/config/sfu_autoconf.h.stamp
$(NO_CACHE_CONFIG_STAMP): Kconfig scripts/kconfig.py $(NO_CACHE_CONFIG) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(PYTHON) scripts/kconfig.py header Kconfig $(NO_CACHE_CONFIG) $(@:.stamp=)
	@touch $@
$(BUILD)/no-cache/%/libsfu.a: qemu-force $(NO_CACHE_CONFIG_STAMP)
	@$(MAKE) --no-print-directory ARCH=$* BUILD=$(BUILD)/no-cache KCONFIG_CONFIG=$(NO_CACHE_CONFIG) \
		SFU_INSTALL_DEPS=no lib

# The default core with the profiler (configs/profile.config: CONFIG_SFU_PROFILE=y), for the
# profile kernels (docs/profiling.md): $(BUILD)/profile/<arch>/libsfu.a.
PROFILE_CONFIG := configs/profile.config
PROFILE_CONFIG_STAMP := $(BUILD)/profile/config/sfu_autoconf.h.stamp
$(PROFILE_CONFIG_STAMP): Kconfig scripts/kconfig.py $(PROFILE_CONFIG) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(PYTHON) scripts/kconfig.py header Kconfig $(PROFILE_CONFIG) $(@:.stamp=)
	@touch $@
$(BUILD)/profile/%/libsfu.a: qemu-force $(PROFILE_CONFIG_STAMP)
	@$(MAKE) --no-print-directory ARCH=$* BUILD=$(BUILD)/profile KCONFIG_CONFIG=$(PROFILE_CONFIG) \
		SFU_INSTALL_DEPS=no lib

QEMU_RUNS :=
QEMU_KERNELS :=
QEMU_EVERY_RUNS :=
-include $(sort $(wildcard tests/qemu/*/kernel.mk))

.PHONY: qemu-test qemu-kernels qemu-every demo
qemu-kernels: $(QEMU_KERNELS) $(QEMU_BREAKPAD)/minidump_stackwalk

# Each QEMU_RUNS entry carries its own double quotes (labels and commands hold spaces).
qemu-test: qemu-kernels tools
	@bash tests/qemu/run-all.sh $(TOOLS_DIR)/sfu $(QEMU_DIR)/logs $(QEMU_TIMEOUT) $(QEMU_RUNS) \
		--every $(QEMU_EVERY_RUNS)

# The every-instruction runs alone (make qemu-every [QEMU_EVERY_ARCH=arm64]: one architecture's).
QEMU_EVERY_ARCH ?=
qemu_every_elfs = $(foreach k,$(QEMU_KERNELS),$(if $(filter every-%,$(notdir $(k))),\
	$(if $(QEMU_EVERY_ARCH),$(filter $(QEMU_DIR)/$(QEMU_EVERY_ARCH)/%,$(k)),$(k))))
qemu-every: $(qemu_every_elfs) tools
	@QEMU_EVERY_ONLY=$(QEMU_EVERY_ARCH) bash tests/qemu/run-all.sh $(TOOLS_DIR)/sfu $(QEMU_DIR)/logs \
		$(QEMU_TIMEOUT) --every $(QEMU_EVERY_RUNS)

QEMU_DEMO_SPEC = $(subst ",,$(QEMU_DEMO_$(ARCH)))
demo: tools
	@test -n '$(QEMU_DEMO_SPEC)' || { echo "no demo kernel for $(ARCH) yet" >&2; exit 2; }
	@$(MAKE) --no-print-directory "$$(echo '$(QEMU_DEMO_SPEC)' | cut -d'|' -f2)"
	@python3 tests/qemu/demo.py $(TOOLS_DIR)/sfu '$(QEMU_DEMO_SPEC)'
