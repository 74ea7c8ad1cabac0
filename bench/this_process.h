// What the walk benches ask of the process they run in: its own SFrame table, found as a kernel
// finds its image's, and a walk configuration for the calling thread's stack.
#pragma once

#include <elf.h>
#include <link.h>
#include <pthread.h>

#include <algorithm>
#include <vector>

#include "sfu/unwind.h"

#ifndef PT_GNU_SFRAME  // glibc before 2.39
#define PT_GNU_SFRAME 0x6474e554
#endif

// The table of the object holding `pc` (PT_GNU_SFRAME), for its executable segments' span.
inline bool table_holding(const void *pc, sfu_table_desc &desc) {
  struct Search {
    uint64_t pc;
    sfu_table_desc *desc;
  } search{uint64_t(uintptr_t(pc)), &desc};
  auto on_object = [](dl_phdr_info *info, size_t, void *arg) -> int {
    auto *s = static_cast<Search *>(arg);
    const ElfW(Phdr) *sframe = nullptr;
    uint64_t lo = ~uint64_t(0), hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
      const ElfW(Phdr) &p = info->dlpi_phdr[i];
      if (p.p_type == PT_GNU_SFRAME) sframe = &p;
      if (p.p_type == PT_LOAD && (p.p_flags & PF_X)) {
        lo = std::min<uint64_t>(lo, info->dlpi_addr + p.p_vaddr);
        hi = std::max<uint64_t>(hi, info->dlpi_addr + p.p_vaddr + p.p_memsz);
      }
    }
    if (!sframe || s->pc < lo || s->pc >= hi) return 0;
    s->desc->section = reinterpret_cast<const void *>(info->dlpi_addr + sframe->p_vaddr);
    s->desc->size = sframe->p_memsz;
    s->desc->section_addr = info->dlpi_addr + sframe->p_vaddr;
    s->desc->text_start = lo;
    s->desc->text_end = hi;
    s->desc->abi = SFU_ABI_AMD64_LE;
    return 1;
  };
  return dl_iterate_phdr(on_object, &search) != 0;
}

// The table registered as a kernel registers its image: with memory for the block index (kept
// for the process's life).
inline sfu_error register_indexed(sfu_module &module, const char *name, const sfu_table_desc &desc) {
  static std::vector<uint64_t> index;  // 8-byte aligned, as the index needs
  index.assign((sfu_index_size(&desc) + 7) / 8, 0);
  sfu_module_desc md{};
  md.table = desc;
  md.name = name;
  md.index = index.data();
  md.index_size = index.size() * 8;
  return sfu_register_module(&module, &md);
}

// A walk of at most max_frames over the calling thread's whole stack.
inline bool this_thread_walk(sfu_stack &stack, sfu_walk_config &cfg, int max_frames) {
  pthread_attr_t attr;
  void *addr;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &attr)) return false;
  bool got = pthread_attr_getstack(&attr, &addr, &size) == 0;
  pthread_attr_destroy(&attr);
  if (!got) return false;
  stack.lo = uint64_t(uintptr_t(addr));
  stack.hi = stack.lo + size;
  stack.kind = SFU_STACK_TASK;
  cfg.stacks = &stack;
  cfg.num_stacks = 1;
  cfg.max_frames = max_frames;
  cfg.abi = SFU_ABI_AMD64_LE;
  return true;
}
