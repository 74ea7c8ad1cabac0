// The one read-modify-write the core does: compare-and-swap, for claiming a registry slot, the
// crash record's state word and a row cache entry (a walk's only write outside its cursor).
// Everything else is a plain atomic load or store (acquire, release or sequentially consistent),
// which needs nothing special of memory on any architecture.
//
// CONFIG_SFU_SMP (the default): a real atomic, so several CPUs may register or capture at once.
// On arm64 without LSE it is a load/store-exclusive pair, and exclusives need normal cacheable
// memory: firmware running with the MMU off on one CPU says n, and gets a plain load, compare and
// store. Then nothing may run two of them at once: not two CPUs, not an interrupt handler that
// registers or captures while the code it interrupted does. Walks stay safe: a cache fill that
// interrupts another on the same CPU finishes before it resumes, and the entry's count ends even.
#pragma once

#include "config.h"

namespace sfu {

// Stores desired into *word if it holds expected, and returns true; otherwise returns false
// with what *word held in expected. Acquire-release on success, acquire on failure.
template <class T>
inline bool compare_and_swap(T *word, T &expected, T desired) {
  if constexpr (config::kSmp) {
    return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  } else {
    T seen = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    if (seen != expected) {
      expected = seen;
      return false;
    }
    __atomic_store_n(word, desired, __ATOMIC_RELEASE);
    return true;
  }
}

}  // namespace sfu
