/* The loadable module of the SMP kernels (smp.c): linked apart at MODULE_BASE (smp-module.lds),
 * given its own table and names by `sfu gen`, and copied into the kernel image as a flat blob
 * (smp-blob.S). The kernel copies the blob to MODULE_BASE to load it; the blob starts with
 * this header, which says where everything is once loaded. */
#ifndef SFU_QEMU_SMP_MODULE_H
#define SFU_QEMU_SMP_MODULE_H

#include <stdint.h>

/* 8 MiB into RAM: far above the kernel image and its stacks (smp-module.lds gets the same
 * address as SMP_MODULE_BASE from each kernel.mk). */
#if defined(__aarch64__)
#define MODULE_BASE 0x40800000ul
#else
#define MODULE_BASE 0x800000ul
#endif
#define MODULE_SIZE 0x10000ul     /* the memory the kernel reserves for it (and poisons) */
#define MODULE_MAGIC 0x31656c75646f6d73ull /* "smodule1" */

struct module_header {
  uint64_t magic;
  uint64_t text_start, text_end;        /* [_stext, _etext) of the module */
  uint64_t sframe_start, sframe_end;    /* its table (sfu gen, sfunwind-reserve.ld) */
  uint64_t symbols_start, symbols_end;  /* its names */
  uint64_t build_id_start, build_id_end;
  uint64_t name;                        /* a string in the module */
  uint64_t (*entry)(uint64_t seed);     /* the work the other CPUs call */
  uint64_t end;                         /* the loaded image's end */
};

#endif /* SFU_QEMU_SMP_MODULE_H */
