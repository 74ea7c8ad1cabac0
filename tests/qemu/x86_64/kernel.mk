# The x86_64 test kernels (tests/qemu/README.md), included by tests/qemu/qemu.mk.
# Each image under $(QEMU_DIR)/x86_64/ is built from its own objects:
#   gas-v1.elf   every object assembled with --gsframe (SFrame V1 from binutils 2.40), sfunwind.ld
#   gen-v2.elf   no --gsframe; sfunwind-reserve.ld, then `sfu gen --sframe-version 2`, `sfu verify`
#   gen-v3.elf   the same with version 3, registered with the block index (its walks read the
#                rows from the index's buckets: common/kernel.c, KERNEL_BLOCK_INDEX)
#   demo.elf     make demo: built as gen-v2, with demo.c's kernel_main
#   crash.elf, crash-torn.elf   scenario 8 (common/crash.c): built as gen-v2 with crash.c's
#                kernel_main and the crash area (sfunwind-crash.ld); booted without -no-reboot
#   smp.elf      scenario 9 (smp/, common/smp.c), booted with -smp 2
#   crash-smp.elf   scenario 8 on two CPUs (common/crash-smp.c, smp/crash.c); with
#                crash-smp-nowait.elf and crash-smp-nolock.elf, built to be wrong
# QEMU boots them as PVH kernels (boot.S); the debug-exit device ends the run. -icount makes the
# timer count instructions, which lets it interrupt any instruction (plain TCG delivers interrupts
# only where a translated block starts) and makes every run the same.

X86_SRC := tests/qemu/x86_64
X86_OUT := $(QEMU_DIR)/x86_64
X86_LIB := $(BUILD)/x86_64/libsfu.a
X86_QEMU := qemu-system-x86_64 -machine q35 -cpu max -m 128M -display none -nodefaults -no-reboot \
	-serial stdio -device isa-debug-exit,iobase=0xf4,iosize=0x04 -icount shift=0

# The machine, then either the scenarios or the demo.
X86_ARCH_SRCS := boot.S stacks.S vectors.S context.S serial.c exit.c cpu.c traps.c apic.c walk.c
X86_TEST_SRCS := main.c faults.c corrupt.c stackswitch.c step.c sampling.c workload.c reentry.c
X86_DEMO_SRCS := demo.c
X86_CRASH_SRCS := crash.c

X86_DEPS := $(X86_SRC)/x86.h $(X86_SRC)/kernel.mk $(QEMU_COMMON_HDRS)
X86_CFLAGS := $(QEMU_CFLAGS_x86_64) -I$(X86_SRC)
X86_ASFLAGS := -I$(X86_SRC)
X86_LDFLAGS := -nostdlib -static -z noexecstack -z max-page-size=4096 --build-id=sha1 -Llinker
# Per file: corrupt.c finds its frames through RBP; the workload and reentry.c make no tail calls.
X86_FLAGS_corrupt := -fno-omit-frame-pointer
X86_FLAGS_workload := -fno-optimize-sibling-calls
X86_FLAGS_reentry := -fno-optimize-sibling-calls

x86_comma := ,

# $(call x86_variant,NAME,TABLE,SFRAME_VERSION,SOURCES): TABLE is gas (from --gsframe) or gen
# (written by sfu gen after the link, then checked against the CFI by sfu verify).
define x86_variant
X86_OBJS_$(1) := $$(patsubst %,$(X86_OUT)/$(1)/%.o,$$(basename $(4))) \
	$$(call qemu_common_objs,$(X86_OUT)/$(1)) $$(X86_EXTRA_OBJS_$(1))
X86_GSFRAME_$(1) := $(if $(filter gas,$(2)),-Wa$$(x86_comma)--gsframe)

$(X86_OUT)/$(1)/%.o: $(X86_SRC)/%.c $$(X86_DEPS) | $$(DEPS_STAMP)
	@mkdir -p $$(@D)
	gcc $$(X86_CFLAGS) $$(X86_FLAGS_$$*) $$(X86_GSFRAME_$(1)) $$(X86_VFLAGS_$(1)) -c $$< -o $$@
$(call qemu_common_rule,$(X86_OUT)/$(1),gcc $$(X86_CFLAGS) $$(X86_GSFRAME_$(1)) $$(X86_VFLAGS_$(1)),$$(X86_DEPS))
$(X86_OUT)/$(1)/%.o: $(X86_SRC)/%.S $$(X86_DEPS) | $$(DEPS_STAMP)
	@mkdir -p $$(@D)
	gcc $$(X86_ASFLAGS) $$(X86_GSFRAME_$(1)) $$(X86_AFLAGS_$(1)) -c $$< -o $$@
$(X86_OUT)/$(1)/kernel.lds: $(or $(X86_LDS_SRC_$(1)),$(X86_SRC)/kernel.lds.S) $(X86_SRC)/kernel.mk
	@mkdir -p $$(@D)
	gcc -E -P -undef -x c $(if $(filter gen,$(2)),-DSFU_TABLE_GENERATED) \
		$(if $(filter $(QEMU_CRASH_AREA_VARIANTS),$(1)),-DSFU_CRASH_AREA) $(X86_LDS_FLAGS_$(1)) $$< -o $$@

# gas's table is not verified: gas 2.40 writes ordinary rows for _start (V1 has no outermost row)
# and for the trap entry code, whose return address is in the trap frame, not at CFA-8 as x86_64
# rows must say (tests/gen/README.md). sfu gen leaves the entry code out instead. Walks end at
# _start's zero return address and cross the entry code by the trap layout, not rows.
# A variant may give its own script source and flags, library, link and assembler flags
# (X86_LDS_SRC_NAME, X86_LDS_FLAGS_, X86_LIB_, X86_LDFLAGS_, X86_AFLAGS_: the reloc kernel's).
$(X86_OUT)/$(1).elf: $$(X86_OBJS_$(1)) $(X86_OUT)/$(1)/kernel.lds $(or $(X86_LIB_$(1)),$(X86_LIB)) $(TOOLS_DIR)/sfu
	ld $$(X86_LDFLAGS) $(X86_LDFLAGS_$(1)) -T $(X86_OUT)/$(1)/kernel.lds -o $$@.tmp $$(X86_OBJS_$(1)) \
		$(or $(X86_LIB_$(1)),$(X86_LIB))
	$(if $(filter gen,$(2)),$$(call qemu_sframe_finish,$$@,$(3)),$$(call qemu_symbols_only,$$@) && mv $$@.tmp $$@)
endef

$(eval $(call x86_variant,gas-v1,gas,1,$(X86_ARCH_SRCS) $(X86_TEST_SRCS)))
$(eval $(call x86_variant,gen-v2,gen,2,$(X86_ARCH_SRCS) $(X86_TEST_SRCS)))
X86_VFLAGS_gen-v3 := -DKERNEL_BLOCK_INDEX
$(eval $(call x86_variant,gen-v3,gen,3,$(X86_ARCH_SRCS) $(X86_TEST_SRCS)))
$(eval $(call x86_variant,demo,gen,2,$(X86_ARCH_SRCS) $(X86_DEMO_SRCS)))
$(foreach v,$(QEMU_CRASH_VARIANTS),$(eval $(call x86_variant,$(v),gen,2,$(X86_ARCH_SRCS) $(X86_CRASH_SRCS))))

# Scenario 9 (common/smp.c; smp/ the x86_64 glue: the trampoline, the CPUs) and its module
# (common/smp-module.c at 8 MiB, its own table). No -icount: the CPUs run at once (MTTCG).
X86_SMP_SRCS := smp/main.c smp/start.c smp/trampoline.S
X86_SMP_MODULE := $(X86_OUT)/smp-module
$(eval $(call qemu_smp_module,$(X86_SMP_MODULE),gcc $(X86_CFLAGS),ld,objcopy,0x800000))
X86_EXTRA_OBJS_smp := $(call qemu_smp_objs,$(X86_OUT)/smp)
X86_VFLAGS_smp := -fno-optimize-sibling-calls -DMODULE_BIN='"$(X86_SMP_MODULE).bin"'
$(eval $(call x86_variant,smp,gen,2,$(X86_ARCH_SRCS) $(X86_SMP_SRCS)))
$(X86_OUT)/smp/common/smp-blob.S.o: $(X86_SMP_MODULE).bin
X86_SMP_QEMU := $(filter-out -icount shift=0,$(X86_QEMU)) -smp 2
QEMU_KERNELS += $(X86_OUT)/smp.elf
QEMU_RUNS += "x86_64 smp|$(X86_OUT)/smp.elf|$(X86_SMP_QEMU)"

# Scenario 8 on two CPUs (common/crash-smp.c): both fault at once, one capture wins. crash.c's
# fault and handler with smp/crash.c's CPU glue; CPU 1 starts as smp.elf's do (smp/start.c and
# the trampoline). Booted like smp.elf, without -no-reboot. crash-smp-nowait forgets
# sfu_crash_wait (a torn record), crash-smp-nolock the print lock (interleaved traces): their runs
# must fail (runner_test.py boots them; qemu-test does not).
X86_CRASH_SMP := crash-smp crash-smp-nowait crash-smp-nolock
X86_CRASH_SMP_SRCS := crash.c smp/crash.c smp/start.c smp/trampoline.S
X86_FLAGS_smp/crash := -fno-optimize-sibling-calls
# A pause after each character (serial.c): without it one CPU mostly printed its whole trace
# before the other printed anything, and crash-smp-nolock's lines mixed in 2 runs of 10; with it,
# in 10 of 10 (two busy host cores).
X86_VFLAGS_crash-smp := -DSERIAL_CHAR_SPINS=3000
X86_VFLAGS_crash-smp-nowait := $(X86_VFLAGS_crash-smp) -DCRASH_SMP_NO_WAIT
X86_VFLAGS_crash-smp-nolock := $(X86_VFLAGS_crash-smp) -DCRASH_SMP_NO_LOCK
$(foreach v,$(X86_CRASH_SMP),$(eval $(call x86_variant,$(v),gen,2,$(X86_ARCH_SRCS) $(X86_CRASH_SMP_SRCS))))
X86_CRASH_SMP_QEMU := $(call qemu_reset_command,$(X86_SMP_QEMU))
QEMU_KERNELS += $(foreach v,$(X86_CRASH_SMP),$(X86_OUT)/$(v).elf)
QEMU_RUNS += "x86_64 crash-smp|$(X86_OUT)/crash-smp.elf|$(X86_CRASH_SMP_QEMU)|--crash smp"

# Scenario 11 (common/reloc.h; tests/qemu/README.md, "Images that move themselves"): reloc.elf,
# the crash kernel linked -pie at 16 MiB (where Linux's x86_64 kernel is linked) with
# reloc/kernel.lds.S, booted by reloc/boot.S instead of boot.S, with crash.c (without the guard
# pages), which moves it, KASLR-style, to a page of [2 MiB, 96 MiB) the runner's
# seed picks: below its link address or above (a negative bias or a positive one). The seed lies
# just below 2 MiB, above the low memory SeaBIOS uses, and is written again at each reset; the copy
# stays below the top 17 MiB that SeaBIOS takes. Its assembly is built with -g too, so every frame
# has a source line.
X86_RELOC := 0x1000000 0x1ff000 0x200000 0x6000000 0x1000
X86_RELOC_SRCS := $(filter-out boot.S,$(X86_ARCH_SRCS)) reloc/boot.S $(X86_CRASH_SRCS)
X86_VFLAGS_reloc := $(call qemu_reloc_cflags,$(X86_RELOC))
X86_AFLAGS_reloc := -g $(call qemu_reloc_ldsflags,$(X86_RELOC))
X86_LDS_SRC_reloc := $(X86_SRC)/reloc/kernel.lds.S
X86_LDS_FLAGS_reloc := $(call qemu_reloc_ldsflags,$(X86_RELOC))
X86_LIB_reloc := $(BUILD)/pie/x86_64/libsfu.a
X86_LDFLAGS_reloc := $(call qemu_reloc_ldflags,$(X86_RELOC))
$(eval $(call x86_variant,reloc,gen,2,$(X86_RELOC_SRCS)))
QEMU_KERNELS += $(X86_OUT)/reloc.elf
QEMU_RUNS += $(call qemu_reloc_run,x86_64,$(X86_OUT),$(X86_QEMU),$(X86_RELOC))

# Scenario 1 against the walk-only core (qemu.mk), a V2 table: traces without names.
X86_VFLAGS_walk-only := -DKERNEL_WALK_ONLY
X86_LIB_walk-only := $(BUILD)/walk-only/x86_64/libsfu.a
$(eval $(call x86_variant,walk-only,gen,2,$(X86_ARCH_SRCS) $(X86_TEST_SRCS)))
QEMU_KERNELS += $(X86_OUT)/walk-only.elf
QEMU_RUNS += "x86_64 walk-only|$(X86_OUT)/walk-only.elf|$(X86_QEMU)|--no-names"

# Scenario 12 (common/profile.c; tests/qemu/README.md, "The profile kernels"): profile.elf, gen-v3
# with profile/main.c, linked against the core with the profiler (qemu.mk). Its run checks `sfu
# profile`'s shares and folded stacks (run.py --profile) and keeps the log and image in profile/.
X86_VFLAGS_profile := -DKERNEL_BLOCK_INDEX
X86_LIB_profile := $(BUILD)/profile/x86_64/libsfu.a
X86_EXTRA_OBJS_profile := $(X86_OUT)/profile/common/profile.c.o
$(eval $(call x86_variant,profile,gen,3,$(X86_ARCH_SRCS) profile/main.c))
QEMU_KERNELS += $(X86_OUT)/profile.elf
QEMU_RUNS += "x86_64 profile|$(X86_OUT)/profile.elf|$(X86_QEMU)|--profile $(X86_OUT)/profile"

# The every-instruction kernels (every.c; tests/qemu/README.md, "Every instruction"): the whole
# body single-stepped, a checked walk at each instruction, sampled walks compared with gdb's.
# every-TABLE with the defaults (row cache, block index: registered with index memory), then
# every-TABLE-no-cache against the core without them (qemu.mk), registered without an index.
X86_EVERY_SRCS := $(X86_ARCH_SRCS) every.c step.c workload.c
X86_EVERY_TABLES := gas-v1:gas:1 gen-v2:gen:2 gen-v3:gen:3
x86_every_field = $(word $(2),$(subst :, ,$(1)))
$(foreach t,$(X86_EVERY_TABLES),\
	$(eval X86_VFLAGS_every-$(call x86_every_field,$(t),1) := -DKERNEL_BLOCK_INDEX)\
	$(eval $(call x86_variant,every-$(call x86_every_field,$(t),1),$(call x86_every_field,$(t),2),$(call x86_every_field,$(t),3),$(X86_EVERY_SRCS)))\
	$(eval X86_LIB_every-$(call x86_every_field,$(t),1)-no-cache := $(BUILD)/no-cache/x86_64/libsfu.a)\
	$(eval $(call x86_variant,every-$(call x86_every_field,$(t),1)-no-cache,$(call x86_every_field,$(t),2),$(call x86_every_field,$(t),3),$(X86_EVERY_SRCS))))
X86_EVERY := $(foreach t,$(X86_EVERY_TABLES),every-$(call x86_every_field,$(t),1) every-$(call x86_every_field,$(t),1)-no-cache)
# every-wrong.elf: every-gen-v2 handing gdb a caller one byte off (common/oracle.c, ORACLE_WRONG),
# which runner_test.py boots: the oracle must tell every walk it compares apart.
X86_VFLAGS_every-wrong := -DKERNEL_BLOCK_INDEX -DORACLE_WRONG
$(eval $(call x86_variant,every-wrong,gen,2,$(X86_EVERY_SRCS)))
QEMU_KERNELS += $(foreach v,$(X86_EVERY) every-wrong,$(X86_OUT)/$(v).elf)
QEMU_EVERY_RUNS += $(foreach v,$(X86_EVERY),"x86_64|$(v:every-%=%)|$(X86_OUT)/$(v).elf|$(X86_QEMU)")

X86_VARIANTS := gas-v1 gen-v2 gen-v3 demo
QEMU_KERNELS += $(foreach v,$(X86_VARIANTS),$(X86_OUT)/$(v).elf)
QEMU_RUNS += $(foreach v,$(X86_VARIANTS),"x86_64 $(v)|$(X86_OUT)/$(v).elf|$(X86_QEMU)")
QEMU_KERNELS += $(call qemu_crash_kernels,$(X86_OUT))
QEMU_RUNS += $(call qemu_crash_runs,x86_64,$(X86_OUT),$(X86_QEMU))
# qemu.mk's demo rule drops any double quotes and takes the ELF from the second '|' field.
QEMU_DEMO_x86_64 := x86_64-demo|$(X86_OUT)/demo.elf|$(X86_QEMU)
