# QEMU boot tests and the demo. Included by tests/tests.mk.
#   make qemu-test            every kernel of every architecture (tests/qemu/README.md)
#   make demo [ARCH=...]      the demo kernel of one architecture, its trace symbolized
#
# Each tests/qemu/<arch>/kernel.mk builds its kernels under $(QEMU_DIR)/<arch>/ and adds:
#   QEMU_RUNS += "LABEL|ELF|QEMU COMMAND"     one per kernel qemu-test boots, quotes included;
#                                              -kernel ELF is added unless the command has one
#   QEMU_KERNELS += ELF                        what qemu-test needs built
#   QEMU_DEMO_<arch> := "LABEL|ELF|QEMU COMMAND"
# using what this file defines:
#   QEMU_CFLAGS_<arch>   kernel C flags: -O2, no frame pointers, freestanding, the core's arch flags
#   QEMU_COMMON_SRCS     tests/qemu/common/*.c, to compile into every kernel
#   $(BUILD)/<arch>/libsfu.a and $(TOOLS_DIR)/sfu (for `sfu gen`) as prerequisites

QEMU_DIR := $(BUILD)/qemu
QEMU_TIMEOUT ?= 120
QEMU_COMMON_SRCS := $(sort $(wildcard tests/qemu/common/*.c))
QEMU_COMMON_HDRS := $(sort $(wildcard tests/qemu/common/*.h)) $(CORE_HDRS)
QEMU_CFLAGS_COMMON := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -nostdlib \
	-fno-stack-protector -fno-pic -fno-pie -fomit-frame-pointer -fasynchronous-unwind-tables \
	-fno-tree-loop-distribute-patterns -Iinclude -Itests/qemu/common
QEMU_CFLAGS_x86_64 := $(QEMU_CFLAGS_COMMON) $(ARCHFLAGS_x86_64)
QEMU_CFLAGS_arm64 := $(QEMU_CFLAGS_COMMON) $(ARCHFLAGS_arm64)
QEMU_CFLAGS_s390x := $(QEMU_CFLAGS_COMMON) $(ARCHFLAGS_s390x)

# The core for each architecture, built by its own make (ARCH decides the flags); the sub-make
# runs every time and does nothing when the archive is current. (The Makefile's own rule covers
# $(BUILD)/$(ARCH)/libsfu.a; this pattern the other two.) The config header is made here first,
# so the sub-makes running side by side find it current instead of each writing it.
.PHONY: qemu-force
$(BUILD)/%/libsfu.a: qemu-force $(CONFIG_H)
	@$(MAKE) --no-print-directory ARCH=$* lib

QEMU_RUNS :=
QEMU_KERNELS :=
-include $(sort $(wildcard tests/qemu/*/kernel.mk))

.PHONY: qemu-test qemu-kernels demo
qemu-kernels: $(QEMU_KERNELS)

# Each QEMU_RUNS entry carries its own double quotes (labels and commands hold spaces).
qemu-test: qemu-kernels tools
	@bash tests/qemu/run-all.sh $(TOOLS_DIR)/sfu $(QEMU_DIR)/logs $(QEMU_TIMEOUT) $(QEMU_RUNS)

QEMU_DEMO_SPEC = $(subst ",,$(QEMU_DEMO_$(ARCH)))
demo: tools
	@test -n '$(QEMU_DEMO_SPEC)' || { echo "no demo kernel for $(ARCH) yet" >&2; exit 2; }
	@$(MAKE) --no-print-directory "$$(echo '$(QEMU_DEMO_SPEC)' | cut -d'|' -f2)"
	@python3 tests/qemu/demo.py $(TOOLS_DIR)/sfu '$(QEMU_DEMO_SPEC)'
