# arm64 test kernels (included by tests/qemu/qemu.mk): the same code with different tables.
#   $(QEMU_DIR)/arm64/gas-v1.elf       SFrame V1 written by gas (-Wa,--gsframe), sfunwind.ld
#   $(QEMU_DIR)/arm64/gen-v2.elf       no gas table: sfunwind-reserve.ld, then `sfu gen` V2
#   $(QEMU_DIR)/arm64/gen-v3.elf       the same, V3, registered with the block index
#                                      (common/kernel.c, KERNEL_BLOCK_INDEX)
#   $(QEMU_DIR)/arm64/pac-gen-v2.elf   gen-v2 with return addresses signed (pac-ret+leaf)
#   $(QEMU_DIR)/arm64/demo.elf         make demo ARCH=arm64: one fault, its trace (demo.c)
#   $(QEMU_DIR)/arm64/nofault-nofixup.elf   gen-v2 without the fixup table: must fail (below)
#   $(QEMU_DIR)/arm64/crash.elf, crash-torn.elf   scenario 8 (common/crash.c): gen-v2 with
#                                      crash.c and the crash area; booted without -no-reboot
#   $(QEMU_DIR)/arm64/smp.elf          scenario 9 (smp/): gen-v2 with smp/main.c, booted with
#                                      -smp; loads smp-module.bin (smp-module.elf, its own table)
# libsfu.a carries its own table (gas's SFrame, built with --gsframe): every kernel, gas-v1 too,
# has rows for every function, the walker's own included (a fault inside sfunwind unwinds).

ARM64_SRC := tests/qemu/arm64
ARM64_OUT := $(QEMU_DIR)/arm64
ARM64_CC := $(CROSS_arm64)gcc
ARM64_LD := $(CROSS_arm64)ld
ARM64_CFLAGS := $(QEMU_CFLAGS_arm64) -I$(ARM64_SRC)
ARM64_ASFLAGS := -I$(ARM64_SRC)
# Per-file extras, by source name: the sampled workload and the stepped chain make no tail calls,
# so every caller frame is a call the runner can check.
ARM64_CFLAGS_workload := -fno-optimize-sibling-calls
ARM64_CFLAGS_step := -fno-optimize-sibling-calls
ARM64_HDRS := $(wildcard $(ARM64_SRC)/*.h) $(QEMU_COMMON_HDRS)
# The scenarios (main.c runs them) and what every kernel needs; the demo is demo.c and the latter.
# (kernel.lds.S is the linker script, run through cpp.)
ARM64_SCENARIO_SRCS := $(addprefix $(ARM64_SRC)/,main.c corrupt.c nofault.c pac.c sampling.c \
	stackswitch.c step.c workload.c)
ARM64_BASE_SRCS := $(filter-out $(ARM64_SCENARIO_SRCS) $(ARM64_SRC)/demo.c $(ARM64_SRC)/crash.c \
	$(ARM64_SRC)/every.c $(ARM64_SRC)/every-work.c \
	$(ARM64_SRC)/kernel.lds.S,$(sort $(wildcard $(ARM64_SRC)/*.c $(ARM64_SRC)/*.S)))
# -icount shift=0: the timer counts instructions, so a tick can land on any instruction (not only
# where a translated block starts) and every run interrupts the same places. pauth-impdef: QEMU's
# own PAC function, four times faster to emulate than QARMA5, and signatures still differ.
# -semihosting: the exit status (exit.c).
ARM64_QEMU := qemu-system-aarch64 -machine virt,gic-version=2 -cpu max,pauth-impdef=on -m 128M \
	-display none -nodefaults -no-reboot -icount shift=0 -semihosting -serial stdio

# Per variant: the compiler flags (both C and assembly), the linker fragment, the table.
ARM64_FLAGS_gas := -Wa,--gsframe -DARM64_NO_OUTERMOST_ROWS
ARM64_FLAGS_gen :=
ARM64_FLAGS_pac := -mbranch-protection=pac-ret+leaf -DSFU_PAC
ARM64_LDS_gas := sfunwind.ld
ARM64_LDS_gen := sfunwind-reserve.ld

# $(call arm64_kernel,VARIANT,FLAGS,TABLE,SFRAME_VERSION,SRCS): $(ARM64_OUT)/VARIANT.elf from SRCS
# and the base, objects under $(ARM64_OUT)/VARIANT/. TABLE is gas or gen; SFRAME_VERSION is for
# gen.
define arm64_kernel
ARM64_OBJS_$(1) := $(patsubst $(ARM64_SRC)/%,$(ARM64_OUT)/$(1)/%.o,$(ARM64_BASE_SRCS) $(5)) \
	$(call qemu_common_objs,$(ARM64_OUT)/$(1)) $(ARM64_EXTRA_OBJS_$(1))

$(ARM64_OUT)/$(1)/%.c.o: $(ARM64_SRC)/%.c $(ARM64_HDRS) $(ARM64_SRC)/kernel.mk | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$(ARM64_CC) $(ARM64_CFLAGS) $(2) -DVARIANT='"$(1)"' $$(ARM64_CFLAGS_$$*) -c $$< -o $$@

$(ARM64_OUT)/$(1)/%.S.o: $(ARM64_SRC)/%.S $(ARM64_HDRS) $(ARM64_SRC)/kernel.mk | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$(ARM64_CC) $(ARM64_ASFLAGS) $(2) -c $$< -o $$@

$(call qemu_common_rule,$(ARM64_OUT)/$(1),$(ARM64_CC) $(ARM64_CFLAGS) $(2),$(ARM64_HDRS))

$(ARM64_OUT)/$(1)/kernel.lds: $(or $(ARM64_LDS_SRC_$(1)),$(ARM64_SRC)/kernel.lds.S) $(ARM64_SRC)/kernel.mk | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$(ARM64_CC) -E -P -undef -x c -DSFU_TABLE_LD=$(ARM64_LDS_$(3)) \
		$(if $(filter $(QEMU_CRASH_AREA_VARIANTS),$(1)),-DSFU_CRASH_AREA) \
		$(if $(filter gas,$(3)),-DSFU_GAS_TABLE) $(ARM64_LDS_FLAGS_$(1)) $$< -o $$@

# Link; for gen, write the table into the reserved .sframe. Then check every row against the CFI,
# and that no function is left without rows (libsfu.a's included, on both paths). A variant may
# give its own script source, script flags, library and link flags (ARM64_LDS_SRC_VARIANT,
# ARM64_LDS_FLAGS_, ARM64_LIB_, ARM64_LDFLAGS_: the reloc kernel's).
$(ARM64_OUT)/$(1).elf: $$(ARM64_OBJS_$(1)) $(ARM64_OUT)/$(1)/kernel.lds $(or $(ARM64_LIB_$(1)),$(BUILD)/arm64/libsfu.a) \
		$(TOOLS_DIR)/sfu
	$(ARM64_LD) -nostdlib --build-id=sha1 -Llinker -T $(ARM64_OUT)/$(1)/kernel.lds --no-warn-rwx-segments \
		$(ARM64_LDFLAGS_$(1)) -o $$@.tmp $$(ARM64_OBJS_$(1)) $(or $(ARM64_LIB_$(1)),$(BUILD)/arm64/libsfu.a)
	$$(call qemu_sframe_finish,$$@,$(if $(filter gen,$(3)),$(4)),all)
endef

$(eval $(call arm64_kernel,gas-v1,$(ARM64_FLAGS_gas),gas,1,$(ARM64_SCENARIO_SRCS)))
$(eval $(call arm64_kernel,gen-v2,$(ARM64_FLAGS_gen),gen,2,$(ARM64_SCENARIO_SRCS)))
$(eval $(call arm64_kernel,gen-v3,$(ARM64_FLAGS_gen) -DKERNEL_BLOCK_INDEX,gen,3,$(ARM64_SCENARIO_SRCS)))
$(eval $(call arm64_kernel,pac-gen-v2,$(ARM64_FLAGS_pac),gen,2,$(ARM64_SCENARIO_SRCS)))
$(eval $(call arm64_kernel,demo,$(ARM64_FLAGS_gen),gen,2,$(ARM64_SRC)/demo.c))
# Scenario 10's faulting read built to be wrong: the abort handler ignores the fixup table, so the
# hook's aborted load ends the run. runner_test.py boots it and expects that; qemu-test does not.
$(eval $(call arm64_kernel,nofault-nofixup,$(ARM64_FLAGS_gen) -DARM64_NO_FIXUP,gen,2,$(ARM64_SCENARIO_SRCS)))
$(foreach v,$(QEMU_CRASH_VARIANTS),$(eval $(call arm64_kernel,$(v),$(ARM64_FLAGS_gen),gen,2,$(ARM64_SRC)/crash.c)))

# Scenario 9 (common/smp.c, with smp/ the arm64 glue) and its module (common/smp-module.c:
# linked on its own at MODULE_BASE, its table and names by `sfu gen`, checked by verify like the
# kernels', made a flat blob the SMP kernel includes).
ARM64_SMP_SRCS := $(addprefix $(ARM64_SRC)/smp/,main.c reentry.c secondary.S psci.c) $(ARM64_SRC)/workload.c
ARM64_CFLAGS_smp/main := -fno-optimize-sibling-calls
ARM64_CFLAGS_smp/reentry := -fno-optimize-sibling-calls
ARM64_SMP_MODULE := $(ARM64_OUT)/smp-module
$(eval $(call qemu_smp_module,$(ARM64_SMP_MODULE),$(ARM64_CC) $(ARM64_CFLAGS),$(ARM64_LD),$(CROSS_arm64)objcopy,0x40800000))
ARM64_EXTRA_OBJS_smp := $(call qemu_smp_objs,$(ARM64_OUT)/smp)
$(eval $(call arm64_kernel,smp,$(ARM64_FLAGS_gen) -fno-optimize-sibling-calls -DMODULE_BIN='"$(ARM64_SMP_MODULE).bin"',gen,2,$(ARM64_SMP_SRCS)))
$(ARM64_OUT)/smp/common/smp-blob.S.o: $(ARM64_SMP_MODULE).bin
# No -icount: the CPUs run at once, each in its own host thread (MTTCG), so registrations and walks
# really race.
ARM64_SMP_QEMU := $(filter-out -icount shift=0,$(ARM64_QEMU)) -smp 2

# Scenario 8 on two CPUs (common/crash-smp.c): both fault at once, one capture wins. The crash
# kernel's fault and handler (crash.c) with smp/crash.c's CPU glue; booted like smp.elf, without
# -no-reboot. crash-smp-nowait forgets sfu_crash_wait (a torn record), crash-smp-nolock the print
# lock (interleaved traces): their runs must fail (runner_test.py boots them; qemu-test does not).
ARM64_CRASH_SMP_SRCS := $(ARM64_SRC)/crash.c $(addprefix $(ARM64_SRC)/smp/,crash.c secondary.S psci.c)
ARM64_CFLAGS_smp/crash := -fno-optimize-sibling-calls
$(eval $(call arm64_kernel,crash-smp,$(ARM64_FLAGS_gen),gen,2,$(ARM64_CRASH_SMP_SRCS)))
$(eval $(call arm64_kernel,crash-smp-nowait,$(ARM64_FLAGS_gen) -DCRASH_SMP_NO_WAIT,gen,2,$(ARM64_CRASH_SMP_SRCS)))
$(eval $(call arm64_kernel,crash-smp-nolock,$(ARM64_FLAGS_gen) -DCRASH_SMP_NO_LOCK,gen,2,$(ARM64_CRASH_SMP_SRCS)))
ARM64_CRASH_SMP_QEMU := $(call qemu_reset_command,$(ARM64_SMP_QEMU))

# Scenario 11 (common/reloc.h; tests/qemu/README.md, "Images that move themselves"): reloc.elf,
# the crash kernel linked -pie at 0x40080000 with reloc/kernel.lds.S and entered at
# reloc/start.S, which moves it to a page of [2 MiB into RAM, the seed's page) that the runner's
# seed picks, as firmware moves itself up RAM. The seed is the last page of the 128 MiB (the QEMU
# command's generic loader writes it there again at each reset); the DTB QEMU puts at the base of
# RAM stays below the window. Its assembly is built with -g too, so every frame has a source line.
ARM64_RELOC := 0x40080000 0x47fff000 0x40200000 0x47fff000 0x1000
ARM64_LDS_SRC_reloc := $(ARM64_SRC)/reloc/kernel.lds.S
ARM64_LDS_FLAGS_reloc := $(call qemu_reloc_ldsflags,$(ARM64_RELOC))
ARM64_LIB_reloc := $(BUILD)/pie/arm64/libsfu.a
ARM64_LDFLAGS_reloc := $(call qemu_reloc_ldflags,$(ARM64_RELOC))
$(eval $(call arm64_kernel,reloc,$(ARM64_FLAGS_gen) -g $(call qemu_reloc_cflags,$(ARM64_RELOC)),gen,2,\
	$(ARM64_SRC)/crash.c $(ARM64_SRC)/reloc/start.S))
QEMU_KERNELS += $(ARM64_OUT)/reloc.elf
QEMU_RUNS += $(call qemu_reloc_run,arm64,$(ARM64_OUT),$(ARM64_QEMU),$(ARM64_RELOC))

# Scenario 1 against the walk-only core (qemu.mk), a V3 table: traces without names.
ARM64_LIB_walk-only := $(BUILD)/walk-only/arm64/libsfu.a
$(eval $(call arm64_kernel,walk-only,$(ARM64_FLAGS_gen) -DKERNEL_WALK_ONLY,gen,3,$(ARM64_SCENARIO_SRCS)))
QEMU_KERNELS += $(ARM64_OUT)/walk-only.elf
QEMU_RUNS += "arm64 walk-only|$(ARM64_OUT)/walk-only.elf|$(ARM64_QEMU)|--no-names"

# Scenario 12 (common/profile.c; tests/qemu/README.md, "The profile kernels"): profile.elf, gen-v3
# with profile/main.c, linked against the core with the profiler (qemu.mk). Its run checks `sfu
# profile`'s shares and folded stacks (run.py --profile) and keeps the log and image in profile/.
ARM64_LIB_profile := $(BUILD)/profile/arm64/libsfu.a
ARM64_EXTRA_OBJS_profile := $(ARM64_OUT)/profile/common/profile.c.o
$(eval $(call arm64_kernel,profile,$(ARM64_FLAGS_gen) -DKERNEL_BLOCK_INDEX,gen,3,$(ARM64_SRC)/profile/main.c))
QEMU_KERNELS += $(ARM64_OUT)/profile.elf
QEMU_RUNS += "arm64 profile|$(ARM64_OUT)/profile.elf|$(ARM64_QEMU)|--profile $(ARM64_OUT)/profile"

ARM64_VARIANTS := gas-v1 gen-v2 gen-v3 pac-gen-v2
QEMU_KERNELS += $(foreach v,$(ARM64_VARIANTS),$(ARM64_OUT)/$(v).elf) $(ARM64_OUT)/demo.elf \
	$(ARM64_OUT)/nofault-nofixup.elf
QEMU_RUNS += $(foreach v,$(ARM64_VARIANTS) demo,"arm64 $(v)|$(ARM64_OUT)/$(v).elf|$(ARM64_QEMU)")
QEMU_KERNELS += $(call qemu_crash_kernels,$(ARM64_OUT))
QEMU_RUNS += $(call qemu_crash_runs,arm64,$(ARM64_OUT),$(ARM64_QEMU))
QEMU_KERNELS += $(ARM64_OUT)/smp.elf
QEMU_RUNS += "arm64 smp|$(ARM64_OUT)/smp.elf|$(ARM64_SMP_QEMU)"
QEMU_KERNELS += $(foreach v,crash-smp crash-smp-nowait crash-smp-nolock,$(ARM64_OUT)/$(v).elf)
QEMU_RUNS += "arm64 crash-smp|$(ARM64_OUT)/crash-smp.elf|$(ARM64_CRASH_SMP_QEMU)|--crash smp"
QEMU_DEMO_arm64 := "arm64 demo|$(ARM64_OUT)/demo.elf|$(ARM64_QEMU)"

# The every-instruction kernels (README.md, "Every instruction"): every.c's kernel_main steps
# every instruction of every-work.c and workload.c (and of the handlers they trap into, and of
# the library they call) and checks a walk at each. One per table path, and each again against
# the core without row cache, prefetch or block index ($(BUILD)/no-cache/arm64/libsfu.a,
# registered without index memory): every-TABLE.elf and every-TABLE-no-cache.elf. Booted by the
# every-instruction runs (QEMU_EVERY_RUNS, "arm64|TABLE|ELF|QEMU COMMAND"), under gdb.
ARM64_EVERY_SRCS := $(addprefix $(ARM64_SRC)/,every.c every-work.c workload.c pac.c)
ARM64_EVERY_TABLES := gas-v1 gen-v2 gen-v3 pac-gen-v2
$(eval $(call arm64_kernel,every-gas-v1,$(ARM64_FLAGS_gas),gas,1,$(ARM64_EVERY_SRCS)))
$(eval $(call arm64_kernel,every-gen-v2,$(ARM64_FLAGS_gen),gen,2,$(ARM64_EVERY_SRCS)))
$(eval $(call arm64_kernel,every-gen-v3,$(ARM64_FLAGS_gen) -DKERNEL_BLOCK_INDEX,gen,3,$(ARM64_EVERY_SRCS)))
$(eval $(call arm64_kernel,every-pac-gen-v2,$(ARM64_FLAGS_pac),gen,2,$(ARM64_EVERY_SRCS)))
$(foreach t,$(ARM64_EVERY_TABLES),$(eval ARM64_LIB_every-$(t)-no-cache := $(BUILD)/no-cache/arm64/libsfu.a))
$(eval $(call arm64_kernel,every-gas-v1-no-cache,$(ARM64_FLAGS_gas),gas,1,$(ARM64_EVERY_SRCS)))
$(eval $(call arm64_kernel,every-gen-v2-no-cache,$(ARM64_FLAGS_gen),gen,2,$(ARM64_EVERY_SRCS)))
$(eval $(call arm64_kernel,every-gen-v3-no-cache,$(ARM64_FLAGS_gen),gen,3,$(ARM64_EVERY_SRCS)))
$(eval $(call arm64_kernel,every-pac-gen-v2-no-cache,$(ARM64_FLAGS_pac),gen,2,$(ARM64_EVERY_SRCS)))
ARM64_EVERY_RUNS := $(foreach t,$(ARM64_EVERY_TABLES),$(t) $(t)-no-cache)
QEMU_KERNELS += $(foreach t,$(ARM64_EVERY_RUNS),$(ARM64_OUT)/every-$(t).elf)
QEMU_EVERY_RUNS += $(foreach t,$(ARM64_EVERY_RUNS),"arm64|$(t)|$(ARM64_OUT)/every-$(t).elf|$(ARM64_QEMU)")
