# s390x test kernels (included by tests/qemu/qemu.mk). Each is the same code with a different
# table: gas writes no s390x SFrame before binutils 2.45, so every variant links with
# sfunwind-reserve.ld and gets its table from `sfu gen`, checked by `sfu verify`.
#   $(QEMU_DIR)/s390x/gen-v2.elf   SFrame V2 (a return address in a register: the odd encoding)
#   $(QEMU_DIR)/s390x/gen-v3.elf   SFrame V3 (the same as a flexible FDE), registered with the
#                                  block index (common/kernel.c, KERNEL_BLOCK_INDEX)
#   $(QEMU_DIR)/s390x/demo.elf     make demo ARCH=s390x: one fault, its trace (demo.c)
#   $(QEMU_DIR)/s390x/crash.elf, crash-torn.elf   scenario 8 (common/crash.c): V2 with crash.c
#                                  and the crash area; booted without -no-reboot
#   $(QEMU_DIR)/s390x/smp.elf      scenario 9 on two CPUs (below)
#   $(QEMU_DIR)/s390x/crash-smp.elf (-nowait, -nolock)   scenario 8 on two CPUs (below)

S390X_SRC := tests/qemu/s390x
S390X_OUT := $(QEMU_DIR)/s390x
S390X_CC := s390x-linux-gnu-gcc
S390X_LD := s390x-linux-gnu-ld
S390X_CFLAGS := $(QEMU_CFLAGS_s390x) -I$(S390X_SRC)
S390X_ASFLAGS := -I$(S390X_SRC)
# Per-file extras, by source name: the sampled workload and the stepped chain make no tail calls,
# so every caller frame is a call the runner can check.
S390X_CFLAGS_sampling := -fno-optimize-sibling-calls
S390X_CFLAGS_stepping := -fno-optimize-sibling-calls
# Scenario 10's walks must cross only calls (@callers): its task, its handlers and its hook.
S390X_CFLAGS_reentry := -fno-optimize-sibling-calls
S390X_HDRS := $(wildcard $(S390X_SRC)/*.h) $(QEMU_COMMON_HDRS)
# Everything but the mains: main.c runs the scenarios, demo.c the demo, crash.c scenario 8;
# reentry.c (scenario 10) defines the kernel's sfu_hook_read_nofault, which the crash kernels
# define themselves: only the scenario kernels link it.
S390X_SRCS := $(filter-out $(S390X_SRC)/main.c $(S390X_SRC)/demo.c $(S390X_SRC)/crash.c \
	$(S390X_SRC)/reentry.c $(S390X_SRC)/every.c $(S390X_SRC)/every-work.c, \
	$(sort $(wildcard $(S390X_SRC)/*.c $(S390X_SRC)/*.S)))
# -action panic=exit-failure: a disabled wait other than the clean one (arch_exit) exits 1.
# -singlestep: one instruction per translation block. TCG takes interrupts only between blocks,
# so without it a timer tick lands only after branches; and QEMU 7.2 keeps the condition code
# across a PER event only at a block boundary (stepping.c).
# -icount shift=0: virtual time counts instructions, so every run samples the same points.
S390X_QEMU := qemu-system-s390x -machine s390-ccw-virtio -cpu qemu -m 128M -display none \
	-nodefaults -no-reboot -action panic=exit-failure -serial stdio -singlestep -icount shift=0

# $(call s390x_kernel,VARIANT,SFRAME_VERSION,MAIN): $(S390X_OUT)/VARIANT.elf from MAIN (one or
# more files of $(S390X_SRC)) and the rest, objects under $(S390X_OUT)/VARIANT/; with
# S390X_EXTRA_OBJS_VARIANT and S390X_VFLAGS_VARIANT (C flags) if set first.
define s390x_kernel
S390X_OBJS_$(1) := \
	$(patsubst $(S390X_SRC)/%,$(S390X_OUT)/$(1)/%.o,$(S390X_SRCS) $(addprefix $(S390X_SRC)/,$(3))) \
	$(call qemu_common_objs,$(S390X_OUT)/$(1)) $(S390X_EXTRA_OBJS_$(1))

$(S390X_OUT)/$(1)/%.c.o: $(S390X_SRC)/%.c $(S390X_HDRS) $(S390X_SRC)/kernel.mk | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$(S390X_CC) $(S390X_CFLAGS) $$(S390X_CFLAGS_$$*) $(S390X_VFLAGS_$(1)) -c $$< -o $$@

$(S390X_OUT)/$(1)/%.S.o: $(S390X_SRC)/%.S $(S390X_HDRS) $(S390X_SRC)/kernel.mk | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$(S390X_CC) $(S390X_ASFLAGS) $(S390X_AFLAGS_$(1)) -c $$< -o $$@

$(call qemu_common_rule,$(S390X_OUT)/$(1),$(S390X_CC) $(S390X_CFLAGS) $(S390X_VFLAGS_$(1)),$(S390X_HDRS))

# The linker script, through the C preprocessor: the crash kernels' has the crash area.
$(S390X_OUT)/$(1)/kernel.ld: $(or $(S390X_LDS_SRC_$(1)),$(S390X_SRC)/kernel.ld) $(S390X_SRC)/kernel.mk | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$(S390X_CC) -E -P -undef -x c $(if $(filter $(QEMU_CRASH_AREA_VARIANTS),$(1)),-DSFU_CRASH_AREA) \
		$(S390X_LDS_FLAGS_$(1)) $$< -o $$@

# Link, write the table into the reserved .sframe, and check every row against the CFI
# (qemu_sframe_finish: no mismatch, no function left without rows). A variant may give its own
# script source and flags, library, link and assembler flags (S390X_LDS_SRC_VARIANT,
# S390X_LDS_FLAGS_, S390X_LIB_, S390X_LDFLAGS_, S390X_AFLAGS_: the reloc kernel's).
$(S390X_OUT)/$(1).elf: $$(S390X_OBJS_$(1)) $(S390X_OUT)/$(1)/kernel.ld $(or $(S390X_LIB_$(1)),$(BUILD)/s390x/libsfu.a) \
		$(TOOLS_DIR)/sfu
	$(S390X_LD) -nostdlib --build-id=sha1 -Llinker $(S390X_LDFLAGS_$(1)) -T $(S390X_OUT)/$(1)/kernel.ld -o $$@.tmp \
		$$(S390X_OBJS_$(1)) $(or $(S390X_LIB_$(1)),$(BUILD)/s390x/libsfu.a)
	$$(call qemu_sframe_finish,$$@,$(2),all)
endef

$(eval $(call s390x_kernel,gen-v2,2,main.c reentry.c))
S390X_VFLAGS_gen-v3 := -DKERNEL_BLOCK_INDEX
$(eval $(call s390x_kernel,gen-v3,3,main.c reentry.c))
# Scenario 10 alone, built to fail: rst_entry not among the walker's trap entries, the no-fault
# loads not in the fixup table (runner_test.py boots it; qemu-test does not).
S390X_VFLAGS_reentry-wrong := -DREENTRY_WRONG
$(eval $(call s390x_kernel,reentry-wrong,2,main.c reentry.c))
QEMU_KERNELS += $(S390X_OUT)/reentry-wrong.elf
$(eval $(call s390x_kernel,demo,2,demo.c))
$(foreach v,$(QEMU_CRASH_VARIANTS),$(eval $(call s390x_kernel,$(v),2,crash.c)))

# Scenario 9 (common/smp.c; smp/ the s390x glue: SIGP SET PREFIX and RESTART, the CPUs) and its
# module (common/smp-module.c at 8 MiB, its own table). Without -icount and -singlestep: the
# CPUs run at once (MTTCG).
S390X_SMP_MODULE := $(S390X_OUT)/smp-module
$(eval $(call qemu_smp_module,$(S390X_SMP_MODULE),$(S390X_CC) $(S390X_CFLAGS),$(S390X_LD),s390x-linux-gnu-objcopy,0x800000))
S390X_EXTRA_OBJS_smp := $(call qemu_smp_objs,$(S390X_OUT)/smp)
S390X_VFLAGS_smp := -fno-optimize-sibling-calls -DMODULE_BIN='"$(S390X_SMP_MODULE).bin"'
$(eval $(call s390x_kernel,smp,2,smp/main.c smp/cpu.c smp/secondary.S))
$(S390X_OUT)/smp/common/smp-blob.S.o: $(S390X_SMP_MODULE).bin
S390X_SMP_QEMU := $(filter-out -singlestep -icount shift=0,$(S390X_QEMU)) -smp 2
QEMU_KERNELS += $(S390X_OUT)/smp.elf
QEMU_RUNS += "s390x smp|$(S390X_OUT)/smp.elf|$(S390X_SMP_QEMU)"

# Scenario 8 on two CPUs (common/crash-smp.c): both fault at once, one capture wins. The crash
# kernel's fault and handler (crash.c) with smp/crash.c's CPU glue; booted like smp.elf, without
# -no-reboot. crash-smp-nowait forgets sfu_crash_wait (a torn record), crash-smp-nolock the print
# lock (interleaved traces): their runs must fail (runner_test.py boots them; qemu-test does not).
S390X_CRASH_SMP_MAINS := crash.c smp/crash.c smp/cpu.c smp/secondary.S
S390X_CFLAGS_smp/crash := -fno-optimize-sibling-calls
S390X_VFLAGS_crash-smp-nowait := -DCRASH_SMP_NO_WAIT
S390X_VFLAGS_crash-smp-nolock := -DCRASH_SMP_NO_LOCK
$(foreach v,crash-smp crash-smp-nowait crash-smp-nolock,$(eval $(call s390x_kernel,$(v),2,$(S390X_CRASH_SMP_MAINS))))
QEMU_KERNELS += $(foreach v,crash-smp crash-smp-nowait crash-smp-nolock,$(S390X_OUT)/$(v).elf)
QEMU_RUNS += "s390x crash-smp|$(S390X_OUT)/crash-smp.elf|$(call qemu_reset_command,$(S390X_SMP_QEMU))|--crash smp"

# Scenario 11 (common/reloc.h; tests/qemu/README.md, "Images that move themselves"): reloc.elf,
# the crash kernel linked -pie at 0x20000 with reloc/kernel.ld, entered at reloc/start.S, which
# moves it to a page of [1 MiB, 64 MiB) the runner's seed picks, as firmware moves itself up
# storage. The seed is in the page below 1 MiB, written big-endian (data-be) as the CPU reads it,
# and again at each reset; the reset restarts the image as loaded (reloc/reset.c, through traps.c's
# arch_reset), which moves itself again. Its assembly is built with -g too, so every frame has a
# source line.
S390X_RELOC := 0x20000 0xff000 0x100000 0x4000000 0x1000
S390X_VFLAGS_reloc := $(call qemu_reloc_cflags,$(S390X_RELOC))
S390X_AFLAGS_reloc := -g
S390X_LDS_SRC_reloc := $(S390X_SRC)/reloc/kernel.ld
S390X_LDS_FLAGS_reloc := $(call qemu_reloc_ldsflags,$(S390X_RELOC))
S390X_LIB_reloc := $(BUILD)/pie/s390x/libsfu.a
S390X_LDFLAGS_reloc := $(call qemu_reloc_ldflags,$(S390X_RELOC))
$(eval $(call s390x_kernel,reloc,2,crash.c reloc/start.S reloc/reset.c))
QEMU_KERNELS += $(S390X_OUT)/reloc.elf
QEMU_RUNS += $(call qemu_reloc_run,s390x,$(S390X_OUT),$(S390X_QEMU),$(S390X_RELOC),$(qemu_comma)data-be=true)

# Scenario 1 against the walk-only core (qemu.mk), a V3 table (flexible rows): traces without names.
S390X_VFLAGS_walk-only := -DKERNEL_WALK_ONLY
S390X_LIB_walk-only := $(BUILD)/walk-only/s390x/libsfu.a
$(eval $(call s390x_kernel,walk-only,3,main.c reentry.c))
QEMU_KERNELS += $(S390X_OUT)/walk-only.elf
QEMU_RUNS += "s390x walk-only|$(S390X_OUT)/walk-only.elf|$(S390X_QEMU)|--no-names"

# Scenario 12 (common/profile.c; tests/qemu/README.md, "The profile kernels"): profile.elf, gen-v3
# with profile/main.c, linked against the core with the profiler (qemu.mk). Its run checks `sfu
# profile`'s shares and folded stacks (run.py --profile) and keeps the log and image in profile/.
# Without -singlestep: -icount alone delivers each tick at its instruction (the same 10,000
# samples, stack for stack, in 3 s instead of 5 to 7).
S390X_VFLAGS_profile := -DKERNEL_BLOCK_INDEX
S390X_LIB_profile := $(BUILD)/profile/s390x/libsfu.a
S390X_EXTRA_OBJS_profile := $(S390X_OUT)/profile/common/profile.c.o
$(eval $(call s390x_kernel,profile,3,profile/main.c))
QEMU_KERNELS += $(S390X_OUT)/profile.elf
QEMU_RUNS += "s390x profile|$(S390X_OUT)/profile.elf|$(filter-out -singlestep,$(S390X_QEMU))|--profile $(S390X_OUT)/profile"

# The every-instruction kernels (every.c, every-work.c; tests/qemu/README.md, "Every
# instruction"): the whole workload single-stepped by PER events, a checked walk at each
# instruction. every-TABLE with the defaults (row cache, block index: registered with index
# memory), every-TABLE-no-cache against the core without them (qemu.mk), registered without an
# index, and without the printed trace of every-work.c (EVERY_SELF_TRACE), which takes the most
# steps and does not touch the cache. every.c's exception path is made of calls; every-work.c
# keeps its tail calls.
S390X_CFLAGS_every := -fno-optimize-sibling-calls
S390X_EVERY_TABLES := gen-v2:2 gen-v3:3
s390x_every_field = $(word $(2),$(subst :, ,$(1)))
$(foreach t,$(S390X_EVERY_TABLES),\
	$(eval S390X_VFLAGS_every-$(call s390x_every_field,$(t),1) := -DKERNEL_BLOCK_INDEX -DEVERY_SELF_TRACE)\
	$(eval $(call s390x_kernel,every-$(call s390x_every_field,$(t),1),$(call s390x_every_field,$(t),2),every.c every-work.c))\
	$(eval S390X_LIB_every-$(call s390x_every_field,$(t),1)-no-cache := $(BUILD)/no-cache/s390x/libsfu.a)\
	$(eval $(call s390x_kernel,every-$(call s390x_every_field,$(t),1)-no-cache,$(call s390x_every_field,$(t),2),every.c every-work.c)))
# every-entry.elf: every-gen-v3 with the external new PSW's PER bit, so that ext_entry itself is
# stepped (EVERY_STEP_ENTRY; README.md, "Every instruction"): walks that start inside the entry
# code, which the walker steps by its rows, crossing the trap layout only from a return address.
S390X_VFLAGS_every-entry := -DKERNEL_BLOCK_INDEX -DEVERY_STEP_ENTRY
$(eval $(call s390x_kernel,every-entry,3,every.c every-work.c))
QEMU_KERNELS += $(S390X_OUT)/every-entry.elf
QEMU_EVERY_RUNS += "s390x|gen-v3-entry|$(S390X_OUT)/every-entry.elf|$(S390X_QEMU)"
S390X_EVERY := $(foreach t,$(S390X_EVERY_TABLES),every-$(call s390x_every_field,$(t),1) every-$(call s390x_every_field,$(t),1)-no-cache)
QEMU_KERNELS += $(foreach v,$(S390X_EVERY),$(S390X_OUT)/$(v).elf)
QEMU_EVERY_RUNS += $(foreach v,$(S390X_EVERY),"s390x|$(v:every-%=%)|$(S390X_OUT)/$(v).elf|$(S390X_QEMU)")

QEMU_KERNELS += $(S390X_OUT)/gen-v2.elf $(S390X_OUT)/gen-v3.elf $(S390X_OUT)/demo.elf
QEMU_RUNS += "s390x gen-v2|$(S390X_OUT)/gen-v2.elf|$(S390X_QEMU)" \
	"s390x gen-v3|$(S390X_OUT)/gen-v3.elf|$(S390X_QEMU)" \
	"s390x demo|$(S390X_OUT)/demo.elf|$(S390X_QEMU)"
QEMU_KERNELS += $(call qemu_crash_kernels,$(S390X_OUT))
QEMU_RUNS += $(call qemu_crash_runs,s390x,$(S390X_OUT),$(S390X_QEMU))
# qemu.mk's demo rule drops any double quotes and takes the ELF from the second '|' field.
QEMU_DEMO_s390x := s390x-demo|$(S390X_OUT)/demo.elf|$(S390X_QEMU)
