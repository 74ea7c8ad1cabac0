# A guest image built as a kernel adopts sfunwind (sfu.mk: its flags, its library) but linked
# with bare.ld, a script without sfunwind's fragments. tests/linker/pie.sh runs
#   make -f tests/linker/guest.mk ARCH=x86_64|arm64|s390x O=DIR SFU_BUILD=BUILD_DIR
# and gets O/guest-print.elf (calls only sfu_print_hex and sfu_print_str) and
# O/guest-shared.elf (guest.c -DGUEST_SHARES_INIT: holds and runs a call to sfu_register_image).
here := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
SFUNWIND := $(here)/../..
include $(SFUNWIND)/sfu.mk

CC := $(SFU_CROSS_COMPILE)gcc
LD := $(SFU_CROSS_COMPILE)ld
arch_cflags_x86_64 := -mno-red-zone -mgeneral-regs-only
arch_cflags_arm64 := -mgeneral-regs-only
arch_cflags_s390x := -msoft-float
CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-pie -fno-pic -fno-stack-protector \
	$(arch_cflags_$(SFU_ARCH)) $(SFU_CFLAGS) $(SFU_INCLUDE)

all: $(O)/guest-print.elf $(O)/guest-shared.elf
.PHONY: all

$(O)/guest-print.o: $(here)/guest.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@
$(O)/guest-shared.o: $(here)/guest.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DGUEST_SHARES_INIT -c $< -o $@

# No fragment in the script, no sfu_finish: the image has no table and wants none.
$(O)/guest-%.elf: $(O)/guest-%.o $(here)/bare.ld $(SFU_LIB)
	$(LD) --no-warn-rwx-segments $(SFU_LDFLAGS) -T $(here)/bare.ld -o $@ $< $(SFU_LIB)
