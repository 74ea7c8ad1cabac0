// sfu_crash_capture: claims the area with one compare-and-swap on the state word, then writes the
// record in place (docs/crash-record.md): header, registers, modules, frames as the walk gives
// them, stack windows; last the CRC, and the state "complete" with a release store. Writes only
// the area; reads stacks only through the walker's reader; no allocation, no lock.
#include "atomic.h"
#include "config.h"
#include "crash/layout.h"
#include "sframe/bytes.h"
#include "sframe/format.h"
#include "unwind/memory.h"
#include "unwind/registry.h"

namespace sfu::crash {
namespace {

// The record being written: the area, how far it may grow, and its byte order.
struct Writer {
  uint8_t *p;
  uint32_t size;  // bytes the record may use
  bool big;
  uint32_t end;   // bytes written so far (the record's length when done)

  bool room(uint32_t n) const { return n <= size - end; }
  void put(uint32_t off, uint64_t v, unsigned n) { crash::put(p + off, v, n, big); }
  void zero(uint32_t off, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) p[off + i] = 0;
  }
  // A string into a zeroed field of n bytes, cut to n - 1 bytes so its NUL stays.
  void text(uint32_t off, const char *s, uint32_t n) {
    for (uint32_t i = 0; s && i + 1 < n && s[i] != '\0'; i++) p[off + i] = uint8_t(s[i]);
  }
};

// The claim. Free, taken, or anything else (memory never written) may be claimed; a capture
// in progress or a complete record may not. A failed compare-and-swap means another CPU moved
// the word first: look again (a few times at most; only captures and takes move it).
sfu_error claim(uint32_t *state) {
  for (int attempt = 0; attempt < 4; attempt++) {
    uint32_t seen = __atomic_load_n(state, __ATOMIC_ACQUIRE);
    if (seen == kStateWriting) return SFU_E_CRASH_CAPTURE_BUSY;
    if (seen == kStateComplete) return SFU_E_CRASH_RECORD_KEPT;
    if (sfu::compare_and_swap(state, seen, kStateWriting))
      return SFU_OK;
  }
  return SFU_E_CRASH_CAPTURE_BUSY;
}

void write_header(Writer &w, uint8_t abi, const sfu_crash_info *info) {
  for (uint32_t i = 0; i < sizeof kMagic; i++) w.p[hdr::kMagic + i] = kMagic[i];
  w.zero(kCrcFrom, hdr::kSize - kCrcFrom);
  w.put(hdr::kVersion, kVersion, 2);
  w.put(hdr::kAbi, abi, 1);
  if (info) {
    w.put(hdr::kReason, info->reason, 4);
    w.put(hdr::kDetail, info->detail, 4);
    w.put(hdr::kFaultAddress, info->fault_address, 8);
    w.text(hdr::kMessage, info->message, SFU_CRASH_MESSAGE_MAX);
  }
  uint8_t options = (config::kFpFallback ? SFU_CRASH_WALKED_FP_FALLBACK : 0) |
                    (config::kBackChainFallback ? SFU_CRASH_WALKED_BACK_CHAIN : 0) |
                    (config::kArm64Tbi ? SFU_CRASH_WALKED_ARM64_TBI : 0);
  w.put(hdr::kWalkOptions, options, 1);
  w.end = hdr::kSize;
}

void write_regs(Writer &w, const sfu_regs &r) {
  w.put(regs::kAt + regs::kPc, r.pc, 8);
  for (uint32_t n = 0; n < SFU_REGS_MAX; n++) w.put(regs::kAt + regs::kR + 8 * n, r.r[n], 8);
  w.put(regs::kAt + regs::kValid, r.valid, 4);
  w.put(regs::kAt + regs::kPad, 0, 4);
  w.end = kFixedSize;
}

// Every registered module, in slot order, as many as fit. Returns how many were written.
uint32_t write_modules(Writer &w, uint8_t &flags) {
  uint32_t n = 0;
  for (unsigned slot = 0; slot < unwind::kModuleSlots; slot++) {
    const sfu_module *m = unwind::module_in_slot(slot);
    if (!m) continue;
    if (!w.room(module::kSize)) {
      flags |= kModulesTruncated;
      continue;
    }
    uint32_t at = w.end;
    w.zero(at, module::kSize);
    w.put(at + module::kTextStart, m->table.text_start, 8);
    w.put(at + module::kTextEnd, m->table.text_end, 8);
    // Registration refuses a build-id longer than SFU_BUILD_ID_MAX, which the record has room for.
    if (m->build_id_error == SFU_OK && m->build_id) {
      w.put(at + module::kBuildIdSize, m->build_id_size, 1);
      for (uint32_t i = 0; i < m->build_id_size; i++) w.p[at + module::kBuildId + i] = m->build_id[i];
    }
    w.text(at + module::kName, m->name, SFU_CRASH_NAME_MAX);
    w.end += module::kSize;
    n++;
  }
  return n;
}

// The recorded module whose text range is the frame module's (registered ranges never overlap),
// or kNoModule: none, or one registered after the modules were recorded.
uint16_t module_index(const Writer &w, uint32_t num_modules, const sfu_module *m) {
  if (!m) return frame::kNoModule;
  sframe::Bytes b{w.p, w.end, w.big};
  for (uint32_t i = 0; i < num_modules; i++) {
    uint64_t start = 0, end = 0;
    uint32_t at = modules_at() + i * module::kSize;
    b.u64(at + module::kTextStart, start);
    b.u64(at + module::kTextEnd, end);
    if (start == m->table.text_start && end == m->table.text_end) return uint16_t(i);
  }
  return frame::kNoModule;
}

// A stack the walk visited: which of the declared stacks, and the lowest SP seen on it.
struct Visit {
  uint32_t stack;
  uint64_t low_sp;
};

struct Visits {
  Visit v[kMaxWindows];
  uint32_t n = 0;
  bool dropped = false;  // a stack past the kMaxWindows-th

  // The walk moves only to stacks declared later, so a stack's frames come together.
  void add(uint32_t stack, uint64_t sp) {
    if (n > 0 && v[n - 1].stack == stack) {
      if (sp < v[n - 1].low_sp) v[n - 1].low_sp = sp;
    } else if (n < kMaxWindows) {
      v[n++] = Visit{stack, sp};
    } else {
      dropped = true;
    }
  }
};

void write_frame(Writer &w, uint32_t num_modules, const sfu_frame &f) {
  uint32_t at = w.end;
  w.put(at + frame::kPc, f.pc, 8);
  w.put(at + frame::kSp, f.sp, 8);
  w.put(at + frame::kModule, module_index(w, num_modules, f.module), 2);
  w.put(at + frame::kSource, f.source, 1);
  w.put(at + frame::kReliable, f.reliable, 1);
  w.put(at + frame::kStackKind, f.stack_kind, 1);
  w.zero(at + frame::kReserved, frame::kSize - frame::kReserved);
  w.end += frame::kSize;
}

struct Walked {
  uint32_t frames = 0, recorded = 0;
  uint8_t stop = SFU_STOP_NONE;
  bool reliable = true;
};

// Walks and writes each frame as it comes, while there is room; counts the rest.
Walked write_frames(Writer &w, uint32_t num_modules, sfu_cursor &cursor, Visits &visits) {
  Walked out;
  sfu_frame f;
  // Bounded by the walk's frame cap.
  while (sfu_walk_next(&cursor, &f)) {
    out.frames++;
    out.reliable = out.reliable && f.reliable;
    int stack = cursor.stack_index;  // the frame's stack, as the walker placed it
    if (stack >= 0) visits.add(uint32_t(stack), f.sp);
    if (out.recorded < 0xffff && w.room(frame::kSize)) {
      write_frame(w, num_modules, f);
      out.recorded++;
    }
  }
  out.stop = uint8_t(sfu_walk_stop(&cursor));
  out.reliable = out.reliable && out.frames > 0 && out.stop == SFU_STOP_END;
  return out;
}

// One window: from the lowest SP (down to a multiple of 8) to the top of its stack, as much as
// budget and area allow, read a word at a time as the walk reads. Returns false when it is
// shorter than that (or not written at all).
bool write_window(Writer &w, const sfu_cursor &walk, const Visit &visit, uint32_t &budget,
                  uint32_t &count) {
  const sfu_stack &s = walk.config->stacks[visit.stack];
  uint64_t lo = visit.low_sp & ~uint64_t(window::kAlign - 1);
  uint64_t stack_lo = (s.lo + window::kAlign - 1) & ~uint64_t(window::kAlign - 1);
  if (lo < stack_lo) lo = stack_lo;
  uint64_t hi = s.hi & ~uint64_t(window::kAlign - 1);
  uint64_t want = hi > lo ? hi - lo : 0;
  if (want == 0) return true;
  uint64_t take = want < budget ? want : budget;
  uint32_t room = w.room(window::kHeader) ? w.size - w.end - window::kHeader : 0;
  if (take > room) take = room;
  take &= ~uint64_t(window::kAlign - 1);
  if (take == 0) return false;
  uint32_t at = w.end, bytes = at + window::kHeader;
  uint32_t got = 0;
  bool big = sframe::abi_big_endian(walk.abi);
  for (; got < take; got += 8) {
    uint64_t word;
    if (!unwind::read_word(*walk.config, lo + got, big, word)) break;
    w.put(bytes + got, word, 8);  // the walk's byte order is the record's: the bytes as in memory
  }
  if (got == 0) return false;
  w.put(at + window::kAddr, lo, 8);
  w.put(at + window::kSize, got, 4);
  w.put(at + window::kKind, s.kind, 1);
  w.zero(at + window::kReserved, window::kHeader - window::kReserved);
  w.end = bytes + got;
  budget -= got;
  count++;
  return got == want;
}

}  // namespace
}  // namespace sfu::crash

using namespace sfu::crash;

extern "C" enum sfu_error sfu_crash_capture(void *area, size_t size, const struct sfu_crash_info *info,
                                            const struct sfu_regs *regs,
                                            const struct sfu_walk_config *config) {
  if constexpr (!sfu::config::kCrashRecords) return SFU_E_CRASH_DISABLED;
  if (!area || !regs || !config) return SFU_E_NULL_ARGUMENT;
  if (uintptr_t(area) % 8 != 0) return SFU_E_CRASH_AREA_MISALIGNED;
  if (size < kFixedSize) return SFU_E_CRASH_AREA_TOO_SMALL;
  // The windows are read, and the header written, with the walk's view of the configuration
  // (its defaults applied).
  sfu_cursor walk;
  sfu_walk_start(&walk, regs, config);
  if (!sfu::sframe::abi_served(walk.abi)) return SFU_E_CRASH_WRONG_ARCH;

  uint32_t *state = state_word(area);
  if (sfu_error e = claim(state)) return e;

  Writer w{static_cast<uint8_t *>(area), size < 0xfffffff8u ? uint32_t(size) : 0xfffffff8u,
           sfu::sframe::abi_big_endian(walk.abi), 0};
  write_header(w, walk.abi, info);
  write_regs(w, *regs);
  uint8_t flags = 0;
  uint32_t num_modules = write_modules(w, flags);
  Visits visits;
  Walked walked = write_frames(w, num_modules, walk, visits);
  if (walked.recorded < walked.frames) flags |= kFramesTruncated;
  uint32_t budget = sfu::config::kCrashStackBytes, num_windows = 0;
  if (budget > 0) {  // 0: no stack bytes wanted, so none are missing
    if (visits.dropped) flags |= kStackTruncated;
    for (uint32_t i = 0; i < visits.n; i++)
      if (!write_window(w, walk, visits.v[i], budget, num_windows)) flags |= kStackTruncated;
  }

  w.put(hdr::kLength, w.end, 4);
  w.put(hdr::kFlags, flags, 1);
  w.put(hdr::kStop, walked.stop, 1);
  w.put(hdr::kReliable, walked.reliable ? 1 : 0, 1);
  w.put(hdr::kNumFrames, walked.recorded, 2);
  w.put(hdr::kNumModules, num_modules, 2);
  w.put(hdr::kNumWindows, num_windows, 2);
  w.put(hdr::kWalkFrames, walked.frames, 4);
  w.put(hdr::kMaxFrames, walk.max_frames, 4);
  w.put(hdr::kVaBits, sfu::sframe::abi_aarch64(walk.abi) ? walk.arm64_va_bits : 0, 1);
  w.put(hdr::kCrc, sfu_crc32(0, w.p + kCrcFrom, w.end - kCrcFrom), 4);
  // Everything above is visible before the state says so.
  __atomic_store_n(state, kStateComplete, __ATOMIC_RELEASE);
  return SFU_OK;
}
