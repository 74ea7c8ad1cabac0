# The walk-only configuration's cost (configs/walk-only.config; docs/performance.md). Included by
# tests/tests.mk.
#   make walk-only-size    per architecture: bench/walk_only_probe.c (what a walk-only kernel calls)
#                          linked with --gc-sections against the walk-only core
#                          ($(BUILD)/walk-only/<arch>/libsfu.a, qemu.mk's rule), and the code and
#                          read-only data of sfunwind its map holds (bench/walk_only_size.py):
#                          "footprint: ARCH walk-only code N bytes, rodata N bytes"
#   make walk-only-stack   the same core built with -fstack-usage -fcallgraph-info=su into
#                          $(BUILD)/walk-only-su/<arch>/obj, for bench/footprint.cpp's stack reader
WALK_ONLY_ARCHS := x86_64 arm64 s390x
WALK_ONLY_PROBE := $(BUILD)/walk-only/probe
WALK_ONLY_PROBE_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -nostdlib -fno-pic -fno-pie \
	-fno-stack-protector -ffunction-sections -fdata-sections -Iinclude

# Linked at the default address, never run: only its map counts. The text range is the kernel's.
$(WALK_ONLY_PROBE)/%/probe.map: bench/walk_only_probe.c $(BUILD)/walk-only/%/libsfu.a | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CROSS_$*)gcc $(WALK_ONLY_PROBE_CFLAGS) $(ARCHFLAGS_$*) -c $< -o $(@D)/probe.o
	$(CROSS_$*)ld -static -nostdlib --gc-sections -e probe_start --defsym=probe_text_start=0 \
		--defsym=probe_text_end=0 -Map $@ -o $(@D)/probe.elf $(@D)/probe.o $(BUILD)/walk-only/$*/libsfu.a

.PHONY: walk-only-size walk-only-stack
walk-only-size: $(foreach a,$(WALK_ONLY_ARCHS),$(WALK_ONLY_PROBE)/$(a)/probe.map)
	@for a in $(WALK_ONLY_ARCHS); do $(PYTHON) bench/walk_only_size.py $(WALK_ONLY_PROBE)/$$a/probe.map $$a; done

walk-only-stack:
	@for a in $(WALK_ONLY_ARCHS); do \
		$(MAKE) --no-print-directory ARCH=$$a BUILD=$(BUILD)/walk-only-su KCONFIG_CONFIG=$(WALK_ONLY_CONFIG) \
			KCFLAGS='$(KCFLAGS) -fstack-usage -fcallgraph-info=su' SFU_INSTALL_DEPS=no lib >/dev/null || exit 1; \
	done
