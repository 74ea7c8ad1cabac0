// Reading a record: sfu_crash_open's checks in their documented order, sfu_crash_take's hand-over,
// and the accessors. Every field is read one byte at a time in the record's byte order and
// bounds-checked, so a record may come from any architecture and sit at any alignment.
#include "atomic.h"
#include "crash/layout.h"
#include "crash/take.h"
#include "sframe/bytes.h"
#include "sframe/format.h"

namespace sfu::crash {
namespace {

uint32_t state_of(const uint8_t *p) {
  // A palindrome in every valid state: the byte order does not matter.
  return uint32_t(p[hdr::kState]) << 24 | uint32_t(p[hdr::kState + 1]) << 16 |
         uint32_t(p[hdr::kState + 2]) << 8 | p[hdr::kState + 3];
}

bool has_magic(const uint8_t *p, size_t size) {
  if (size < sizeof kMagic) return false;
  for (uint32_t i = 0; i < sizeof kMagic; i++)
    if (p[hdr::kMagic + i] != kMagic[i]) return false;
  return true;
}

bool all_zero(const sframe::Bytes &b, uint32_t at, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    uint8_t v;
    if (!b.u8(at + i, v) || v != 0) return false;
  }
  return true;
}

// A NUL-terminated string filling a field of n bytes: a NUL, and only zeros after it.
bool text_field(const sframe::Bytes &b, uint32_t at, uint32_t n) {
  uint32_t i = 0;
  uint8_t v = 1;
  while (i < n && b.u8(at + i, v) && v != 0) i++;
  return v == 0 && i < n && all_zero(b, at + i, n - i);
}

bool header_ok(const sframe::Bytes &b, uint32_t num_frames) {
  uint8_t flags = 0, options = 0, stop = 0, reliable = 0;
  uint32_t walk_frames = 0;
  b.u8(hdr::kFlags, flags);
  b.u8(hdr::kWalkOptions, options);
  b.u8(hdr::kStop, stop);
  b.u8(hdr::kReliable, reliable);
  b.u32(hdr::kWalkFrames, walk_frames);
  return (flags & ~kKnownFlags) == 0 && (options & ~kKnownWalkOptions) == 0 && stop < SFU_STOP_COUNT &&
         reliable <= 1 && walk_frames >= num_frames &&
         ((flags & kFramesTruncated) != 0) == (walk_frames > num_frames) &&
         all_zero(b, hdr::kReserved, hdr::kReservedSize) && text_field(b, hdr::kMessage, SFU_CRASH_MESSAGE_MAX) &&
         all_zero(b, regs::kAt + regs::kPad, 4);
}

bool module_ok(const sframe::Bytes &b, uint32_t at) {
  uint64_t start, end;
  uint8_t id_size;
  if (!b.u64(at + module::kTextStart, start) || !b.u64(at + module::kTextEnd, end) ||
      !b.u8(at + module::kBuildIdSize, id_size))
    return false;
  return start < end && id_size <= SFU_CRASH_BUILD_ID_MAX &&
         all_zero(b, at + module::kReserved, module::kBuildId - module::kReserved) &&
         all_zero(b, at + module::kBuildId + id_size, SFU_CRASH_BUILD_ID_MAX - id_size) &&
         text_field(b, at + module::kName, SFU_CRASH_NAME_MAX);
}

bool frame_ok(const sframe::Bytes &b, uint32_t at, uint32_t num_modules) {
  uint16_t m;
  uint8_t source, reliable;
  if (!b.u16(at + frame::kModule, m) || !b.u8(at + frame::kSource, source) || !b.u8(at + frame::kReliable, reliable))
    return false;
  return (m == frame::kNoModule || m < num_modules) && source <= SFU_SOURCE_SIGNAL_FRAME && reliable <= 1 &&
         all_zero(b, at + frame::kReserved, frame::kSize - frame::kReserved);
}

// The windows must fill the record exactly, each aligned, not wrapping the address space.
bool windows_ok(const sframe::Bytes &b, uint32_t at, uint32_t num_windows) {
  for (uint32_t i = 0; i < num_windows; i++) {
    uint64_t addr;
    uint32_t size;
    if (!b.u64(at + window::kAddr, addr) || !b.u32(at + window::kSize, size)) return false;
    if (addr % window::kAlign || size % window::kAlign || size == 0 || addr + size < addr) return false;
    if (!all_zero(b, at + window::kReserved, window::kHeader - window::kReserved)) return false;
    if (size > b.size - at - window::kHeader) return false;
    at += window::kHeader + size;
  }
  return at == b.size;
}

sfu_error open_record(sfu_crash_view &view, const uint8_t *p, size_t size) {
  if (!has_magic(p, size)) return SFU_E_CRASH_NO_RECORD;
  if (size < hdr::kState + 4) return SFU_E_CRASH_BAD_LENGTH;
  uint32_t state = state_of(p);
  if (state == kStateWriting) return SFU_E_CRASH_RECORD_TORN;
  if (state != kStateComplete && state != kStateTaken) return SFU_E_CRASH_NO_RECORD;
  if (size < kPrologueSize) return SFU_E_CRASH_BAD_LENGTH;
  uint8_t abi = p[hdr::kAbi];
  if (!sframe::abi_served(abi)) return SFU_E_CRASH_WRONG_ARCH;
  uint32_t avail = size < 0xffffffffu ? uint32_t(size) : 0xffffffffu;
  sframe::Bytes whole{p, avail, sframe::abi_big_endian(abi)};
  uint16_t version = 0;
  uint32_t length = 0, crc = 0;
  whole.u16(hdr::kVersion, version);
  if (version != kVersion) return SFU_E_CRASH_BAD_VERSION;
  if (!whole.u32(hdr::kLength, length) || length < kFixedSize || length > avail) return SFU_E_CRASH_BAD_LENGTH;
  whole.u32(hdr::kCrc, crc);
  if (sfu_crc32(0, p + kCrcFrom, length - kCrcFrom) != crc) return SFU_E_CRASH_BAD_CRC;

  sframe::Bytes b{p, length, whole.big_endian};
  uint16_t nf = 0, nm = 0, nw = 0;
  b.u16(hdr::kNumFrames, nf);
  b.u16(hdr::kNumModules, nm);
  b.u16(hdr::kNumWindows, nw);
  // 16-bit counts: the parts' offsets cannot overflow 32 bits.
  uint32_t fr = frames_at(nm), wi = windows_at(nm, nf);
  if (wi > length || !header_ok(b, nf)) return SFU_E_CRASH_BAD_LAYOUT;
  for (uint32_t i = 0; i < nm; i++)
    if (!module_ok(b, modules_at() + i * module::kSize)) return SFU_E_CRASH_BAD_LAYOUT;
  for (uint32_t i = 0; i < nf; i++)
    if (!frame_ok(b, fr + i * frame::kSize, nm)) return SFU_E_CRASH_BAD_LAYOUT;
  if (!windows_ok(b, wi, nw)) return SFU_E_CRASH_BAD_LAYOUT;

  view.rec = p;
  view.length = length;
  view.abi = abi;
  view.big_endian = whole.big_endian;
  view.num_frames = nf;
  view.num_modules = nm;
  view.num_windows = nw;
  view.regs_at = regs::kAt;
  view.modules_at = modules_at();
  view.frames_at = fr;
  view.windows_at = wi;
  return SFU_OK;
}

// The record a view was opened on, for the accessors.
sframe::Bytes bytes_of(const sfu_crash_view &v) { return sframe::Bytes{v.rec, v.length, v.big_endian != 0}; }

// Offset of window i: the windows vary in size, so walk to it (bounded by i).
bool window_at(const sfu_crash_view &v, uint32_t i, uint32_t &at) {
  sframe::Bytes b = bytes_of(v);
  uint64_t next = v.windows_at;
  for (uint32_t k = 0; k < i && next < v.length; k++) {
    uint32_t size;
    if (!b.u32(uint32_t(next) + window::kSize, size)) return false;
    next += window::kHeader + uint64_t(size);
  }
  at = uint32_t(next);
  return next + window::kHeader <= v.length;
}

}  // namespace

sfu_error take_as_seen(sfu_crash_view &view, void *area, size_t size, uint32_t seen) {
  sfu_error e = open_record(view, static_cast<const uint8_t *>(area), size);
  if (e == SFU_OK && seen == kStateTaken) return SFU_E_CRASH_RECORD_TAKEN;
  // The state changes only from the one the checks saw: a capture that claimed the area since,
  // on another CPU, keeps it, and of two takes the second loses.
  uint32_t next = e == SFU_OK ? kStateTaken : kStateFree;
  if (sfu::compare_and_swap(state_word(area), seen, next))
    return e;
  return seen == kStateTaken ? SFU_E_CRASH_RECORD_TAKEN : SFU_E_CRASH_CAPTURE_BUSY;
}

}  // namespace sfu::crash

using namespace sfu::crash;

extern "C" enum sfu_error sfu_crash_open(struct sfu_crash_view *view, const void *bytes, size_t size) {
  if constexpr (!sfu::config::kCrashRecords) return SFU_E_CRASH_DISABLED;
  if (!view || !bytes) return SFU_E_NULL_ARGUMENT;
  return open_record(*view, static_cast<const uint8_t *>(bytes), size);
}

extern "C" enum sfu_error sfu_crash_take(struct sfu_crash_view *view, void *area, size_t size) {
  if constexpr (!sfu::config::kCrashRecords) return SFU_E_CRASH_DISABLED;
  if (!view || !area) return SFU_E_NULL_ARGUMENT;
  if (uintptr_t(area) % 8 != 0) return SFU_E_CRASH_AREA_MISALIGNED;
  if (size < hdr::kState + 4) return open_record(*view, static_cast<const uint8_t *>(area), size);
  uint32_t seen = __atomic_load_n(state_word(area), __ATOMIC_ACQUIRE);
  return take_as_seen(*view, area, size, seen);
}

extern "C" enum sfu_error sfu_crash_wait(const void *area, uint32_t max_spins) {
  if constexpr (!sfu::config::kCrashRecords) return SFU_E_CRASH_DISABLED;
  if (!area) return SFU_E_NULL_ARGUMENT;
  if (uintptr_t(area) % 8 != 0) return SFU_E_CRASH_AREA_MISALIGNED;
  const uint32_t *state = state_word(const_cast<void *>(area));
  // Bounded by max_spins.
  for (uint32_t spin = 0;; spin++) {
    uint32_t now = __atomic_load_n(state, __ATOMIC_ACQUIRE);
    if (now == kStateComplete) return SFU_OK;
    if (now != kStateWriting) return SFU_E_CRASH_NO_RECORD;
    if (spin >= max_spins) return SFU_E_CRASH_CAPTURE_BUSY;
  }
}

extern "C" void sfu_crash_get_summary(const struct sfu_crash_view *view, struct sfu_crash_summary *out) {
  if (!view || !out || !view->rec) return;
  sfu::sframe::Bytes b = bytes_of(*view);
  uint8_t flags = 0;
  b.u32(hdr::kReason, out->reason);
  b.u32(hdr::kDetail, out->detail);
  b.u64(hdr::kFaultAddress, out->fault_address);
  for (uint32_t i = 0; i < SFU_CRASH_MESSAGE_MAX; i++) out->message[i] = char(view->rec[hdr::kMessage + i]);
  out->message[SFU_CRASH_MESSAGE_MAX - 1] = '\0';
  b.u8(hdr::kStop, out->stop);
  b.u8(hdr::kReliable, out->reliable);
  b.u8(hdr::kFlags, flags);
  out->frames_truncated = (flags & kFramesTruncated) != 0;
  out->stack_truncated = (flags & kStackTruncated) != 0;
  out->modules_truncated = (flags & kModulesTruncated) != 0;
  b.u8(hdr::kVaBits, out->arm64_va_bits);
  b.u8(hdr::kWalkOptions, out->walk_options);
  b.u32(hdr::kWalkFrames, out->walk_frames);
  b.u32(hdr::kMaxFrames, out->max_frames);
}

extern "C" void sfu_crash_get_regs(const struct sfu_crash_view *view, struct sfu_regs *out) {
  if (!view || !out || !view->rec) return;
  sfu::sframe::Bytes b = bytes_of(*view);
  b.u64(view->regs_at + regs::kPc, out->pc);
  for (uint32_t n = 0; n < SFU_REGS_MAX; n++) b.u64(view->regs_at + regs::kR + 8 * n, out->r[n]);
  b.u32(view->regs_at + regs::kValid, out->valid);
}

extern "C" int sfu_crash_get_frame(const struct sfu_crash_view *view, uint32_t i, struct sfu_frame *out,
                               int *module_index) {
  if (!view || !out || !view->rec || i >= view->num_frames) return 0;
  sfu::sframe::Bytes b = bytes_of(*view);
  uint32_t at = view->frames_at + i * frame::kSize;
  uint16_t m = frame::kNoModule;
  if (!b.u16(at + frame::kModule, m)) return 0;
  b.u64(at + frame::kPc, out->pc);
  b.u64(at + frame::kSp, out->sp);
  out->cfa = 0;
  out->module = nullptr;
  b.u8(at + frame::kSource, out->source);
  b.u8(at + frame::kReliable, out->reliable);
  b.u8(at + frame::kStackKind, out->stack_kind);
  out->index = uint8_t(i < 255 ? i : 255);
  if (module_index) *module_index = m == frame::kNoModule ? -1 : int(m);
  return 1;
}

extern "C" int sfu_crash_get_module(const struct sfu_crash_view *view, uint32_t i, struct sfu_crash_module *out) {
  if (!view || !out || !view->rec || i >= view->num_modules) return 0;
  sfu::sframe::Bytes b = bytes_of(*view);
  uint32_t at = view->modules_at + i * module::kSize;
  uint64_t start, end;
  uint8_t id_size;
  if (!b.u64(at + module::kTextStart, start) || !b.u64(at + module::kTextEnd, end) ||
      !b.u8(at + module::kBuildIdSize, id_size) || at + module::kSize > view->length)
    return 0;
  out->text_start = start;
  out->text_end = end;
  out->build_id_size = id_size;
  out->build_id = id_size ? view->rec + at + module::kBuildId : nullptr;
  for (uint32_t k = 0; k < SFU_CRASH_NAME_MAX; k++) out->name[k] = char(view->rec[at + module::kName + k]);
  out->name[SFU_CRASH_NAME_MAX - 1] = '\0';
  return 1;
}

extern "C" int sfu_crash_get_window(const struct sfu_crash_view *view, uint32_t i, struct sfu_crash_window *out) {
  if (!view || !out || !view->rec || i >= view->num_windows) return 0;
  sfu::sframe::Bytes b = bytes_of(*view);
  uint32_t at, size;
  uint64_t addr;
  uint8_t kind;
  if (!window_at(*view, i, at) || !b.u64(at + window::kAddr, addr) || !b.u32(at + window::kSize, size) ||
      !b.u8(at + window::kKind, kind) || size > view->length - at - window::kHeader)
    return 0;
  out->addr = addr;
  out->size = size;
  out->bytes = view->rec + at + window::kHeader;
  out->kind = kind;
  return 1;
}
