// libFuzzer target over the walker: a registered table (random from a seed, or the input's own
// bytes), declared stacks filled from the input, start registers, trap layouts and a walk
// configuration, for every ABI the host build walks. Each input is walked four ways: the cursor,
// sfu_backtrace, sfu_print_backtrace and sfu_crash_capture (read back with sfu_crash_open). Any
// breach of these aborts, which libFuzzer records as a crash with the input that caused it:
//   - no read leaves the declared stacks (FakeMemory behind the no-fault hook records strays),
//     and no crash-record stack window lies outside them;
//   - the walk ends within its frame cap with a named stop (frame-cap-reached iff the cap filled);
//   - every frame's SP is on a declared stack, its stack kind that stack's, and the stacks are
//     visited in the declared order (innermost first, never back);
//   - the cursor gives the same frames, every field, step by step (the row cache emptied before
//     each step) and through the cache (where the walker runs plain steps in a loop of its own);
//   - sfu_backtrace gives the cursor's PCs and stop (a prefix and no stop when its array is short);
//   - sfu_print_backtrace prints exactly the cursor's frames and the stop line they imply;
//   - the crash capture of the same walk opens and holds the same frames, stop and count;
//   - two profiler samples of it (sfu/profile.h, a profile one frame shallower than the cap) print
//     one stack counted twice: the walk's lookup addresses and stop, frame-cap-reached and
//     cut-at-depth iff the cap filled, and an end line with those counts (fuzz_walk's core has
//     the profiler on; fuzz_walk_unvalidated's has it off, and init must say profile-disabled).
//
// Input layout (bytes past the end read as 0). Words are 8 bytes little-endian, and "tagged": a
// top byte of 0xf0 makes a word an address inside a function (byte 4: which, bytes 0-3: offset),
// 0xf1 an 8-byte aligned address on a declared stack (byte 4: which, bytes 0-3: offset), 0xf2
// an address in a trap entry's code; anything else is taken as it is. So a few bytes name a
// return address or a saved SP whatever the table and stacks turned out to be.
//   flags    1 byte: bits 0-1 the ABI (x86_64, arm64 LE, arm64 BE, s390x); bit 2 the table is
//            the input's bytes (else random from a seed, in its own ABI unless bit 3 asks the
//            walk to use bits 0-1 anyway); bit 4 capture into a small area (frames cut short);
//            bit 5 fill stack words the input does not give with plausible words (else 0); bit 6
//            register the table with a block index (when its text needs at most 1 MiB of one);
//            bit 7 damage the random table (a valid one) with the edits that follow its seed
//   table    random: a seed (8 bytes), then with bit 7 a count of edits (1; 1 + n % 16) and per
//            edit an offset (2; modulo the section's size) and a byte to exclusive-or there (1; 0
//            flips every bit). bytes: section length (2), section address (8), text start as a
//            signed distance from it (4), text length (4), then the section
//   stacks   count (1; 1 + n % 3), then per stack kind (1), size in words (2; 1 + n % 512), gap
//            after it in pages (1; n % 3)
//   config   frame cap (1; 1 + n % 64), arm64 address size (1: < 0x80 none, < 0xf0 36..52,
//            else 50..65, most of them a bad start)
//   traps    count (1; n % 3), then per entry: start (tagged word), length (2; with bit 15 set
//            every offset is its low byte, signed, times 8), saved-PC offset (2, signed), saved
//            mask (4), and an offset (2, signed) per saved register
//   regs     PC (tagged word), valid mask (4), a tagged word per valid register, SP placement
//            (1: n % 16 != 0 puts the SP on stack (n >> 4) at the offset in 2 more bytes)
//   memory   the rest: tagged words for the stacks, innermost first, lowest address first
// Built twice: fuzz_walk in the default configuration, and fuzz_walk_unvalidated with
// CONFIG_SFU_VALIDATE_ON_REGISTER=n (tests/fuzz/unvalidated.config), where a table registers once
// its header and sub-section bounds are checked: walks then meet functions and rows validation
// would refuse (from the input's bytes, or a random table damaged by bit 7), and every breach
// above holds for them too.
// tests/fuzz/walk-seeds/ holds seeds in this layout. FUZZ_WALK_PRINT=1 in the environment prints
// each input's backtrace (fuzz_walk FILE... runs just those inputs).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz/fuzz_common.h"
#include "sframe/format.h"
#include "sfu/crash.h"
#include "sfu/print.h"
#include "sfu/profile.h"
#include "sfu/unwind.h"
#include "sfu_autoconf.h"
#include "support/crash_machines.h"
#include "support/fake_machine.h"
#include "support/random_tables.h"

namespace {

using sfu::fuzz::die;
using namespace sfu::test;

constexpr uint8_t kAbis[] = {SFU_ABI_AMD64_LE, SFU_ABI_AARCH64_LE, SFU_ABI_AARCH64_BE, SFU_ABI_S390X_BE};
constexpr uint64_t kStackBase = 0x10000;
constexpr size_t kAreaBytes = 64 * 1024, kSmallAreaBytes = 640;

struct Reader {
  const uint8_t *p;
  size_t n, at = 0;
  uint64_t take(unsigned bytes) {
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++, at++) v |= uint64_t(at < n ? p[at] : 0) << (8 * i);
    return v;
  }
  bool more() const { return at < n; }
};

struct Span {
  uint64_t start, size;
};

struct Machine {
  std::vector<Span> funcs;  // the table's functions (bytes: the whole text as one)
  std::vector<sfu_trap_entry> traps;
  const std::vector<sfu_stack> *stacks = nullptr;

  uint64_t untag(uint64_t w) const {
    uint64_t which = (w >> 32) & 0xff, off = w & 0xffffffff;
    switch (w >> 56) {
      case 0xf0:
        if (funcs.empty()) return w;
        return funcs[which % funcs.size()].start + off % (funcs[which % funcs.size()].size + 2);
      case 0xf1: {
        if (!stacks || stacks->empty()) return w;
        const sfu_stack &s = (*stacks)[which % stacks->size()];
        return (s.lo + off % (s.hi - s.lo + 1)) & ~uint64_t(7);
      }
      case 0xf2:
        if (traps.empty()) return w;
        return traps[which % traps.size()].start + off % (traps[which % traps.size()].end - traps[which % traps.size()].start + 1);
      default:
        return w;
    }
  }
  // A word a stack may hold when the input runs out: a return address, a stack address, noise.
  uint64_t plausible(Rng &rng) const {
    switch (rng.below(6)) {
      case 0: case 1: case 2: return untag(0xf0ull << 56 | rng.below(256) << 32 | rng.below(1u << 16));
      case 3: case 4: return untag(0xf1ull << 56 | rng.below(256) << 32 | rng.below(1u << 16));
      default: return rng.below(4) ? rng.below(64) : rng.next();
    }
  }
};

// The cursor walk, with every frame's stack index (greedy: the first declared stack from the
// previous frame's on that holds sp and has the frame's kind).
void check_frames(const Walked &w, const std::vector<sfu_stack> &stacks, uint32_t cap) {
  if (w.frames.size() > cap) die("walk gave more frames than its cap", w.frames.size(), SFU_OK);
  if (w.stop == SFU_STOP_NONE || int(w.stop) >= int(SFU_STOP_COUNT) ||
      !strcmp(sfu_stop_name(w.stop), "unknown-stop"))
    die("walk ended without a named stop", w.stop, SFU_OK);
  if ((w.stop == SFU_STOP_FRAME_CAP) != (w.frames.size() == cap))
    die("frame-cap-reached iff the cap filled: broken", w.frames.size(), SFU_OK);
  size_t at = 0;
  for (size_t i = 0; i < w.frames.size(); i++) {
    const sfu_frame &f = w.frames[i];
    while (at < stacks.size() &&
           !(f.sp >= stacks[at].lo && f.sp <= stacks[at].hi && f.stack_kind == uint8_t(stacks[at].kind)))
      at++;
    if (at == stacks.size()) die("frame SP off the declared stacks, or a stack switch backwards", f.sp, SFU_OK);
    if (f.index != std::min<size_t>(i, 255)) die("frame index", i, SFU_OK);
    if (i == 0 && (f.source != SFU_SOURCE_REGISTERS || f.cfa != 0)) die("first frame not the registers'", f.pc, SFU_OK);
    // The module is the one whose text holds the frame's lookup address (a return address: the
    // call before it, which may be a function's last instruction, so pc itself may be past it).
    if (f.module != sfu_module_for_pc(sfu_frame_lookup_pc(&f)))
      die("frame's module is not the one whose text holds its lookup address", f.pc, SFU_OK);
  }
}

void check_backtrace(const Walked &w, const sfu_regs &regs, const sfu_walk_config &config) {
  uint64_t pcs[256];
  sfu_stop why = SFU_STOP_COUNT;
  size_t n = sfu_backtrace(&regs, &config, pcs, 256, &why);
  if (n != w.frames.size() || why != w.stop) die("sfu_backtrace disagrees with the cursor", n, SFU_OK);
  for (size_t i = 0; i < n; i++)
    if (pcs[i] != w.frames[i].pc) die("sfu_backtrace gives another pc", pcs[i], SFU_OK);
  if (w.frames.size() >= 2) {
    size_t max = w.frames.size() / 2;
    n = sfu_backtrace(&regs, &config, pcs, max, &why);
    if (n != max || why != SFU_STOP_NONE) die("a short sfu_backtrace array: not a prefix and no stop", n, SFU_OK);
    for (size_t i = 0; i < n; i++)
      if (pcs[i] != w.frames[i].pc) die("short sfu_backtrace gives another pc", pcs[i], SFU_OK);
  }
}

void check_print(const Walked &w, const sfu_regs &regs, const sfu_walk_config &config) {
  PrintedText got, want;
  size_t n = sfu_print_backtrace(&got.sink, &regs, &config);
  bool reliable = !w.frames.empty() && w.stop == SFU_STOP_END;
  std::vector<const sfu_module *> printed;  // a module line before a module's first frame (one module here)
  for (const sfu_frame &f : w.frames) {
    if (f.module && std::find(printed.begin(), printed.end(), f.module) == printed.end()) {
      char line[160];
      snprintf(line, sizeof line, "module %zu ", printed.size());
      want.s += line + std::string(f.module->name && f.module->name[0] ? f.module->name : "(unnamed)");
      snprintf(line, sizeof line, " 0x%016llx-0x%016llx no build-id\n",
               (unsigned long long)f.module->table.text_start, (unsigned long long)f.module->table.text_end);
      want.s += line;
      printed.push_back(f.module);
    }
    sfu_print_frame(&want.sink, &f);
    reliable = reliable && f.reliable;
  }
  static const bool show = getenv("FUZZ_WALK_PRINT");  // to look at what an input walks
  if (show) fputs(got.s.c_str(), stderr);
  want.s += std::string("stop: ") + sfu_stop_name(w.stop) + (reliable ? " (reliable)\n" : " (unreliable)\n");
  if (n != w.frames.size() || got.s != want.s) {
    fprintf(stderr, "printed:\n%swanted:\n%s", got.s.c_str(), want.s.c_str());
    die("sfu_print_backtrace disagrees with the cursor", n, SFU_OK);
  }
}

void check_crash(const Walked &w, const sfu_regs &regs, const sfu_walk_config &config, const sfu_module *module,
                 bool small, const std::vector<sfu_stack> &stacks) {
  Area area(small ? kSmallAreaBytes : kAreaBytes);
  sfu_crash_info info{SFU_CRASH_PANIC, 0, 0, "fuzz_walk"};
  sfu_error e = sfu_crash_capture(area.data(), area.size(), &info, &regs, &config);
  if (e != SFU_OK) die("sfu_crash_capture refused a walk", 0, e);
  sfu_crash_view view{};
  e = sfu_crash_open(&view, area.data(), area.size());
  if (e != SFU_OK) die("the captured record does not open", 0, e);
  sfu_crash_summary s;
  sfu_crash_get_summary(&view, &s);
  if (s.stop != w.stop || s.walk_frames != w.frames.size() || s.max_frames != config.max_frames)
    die("the record's stop or frame count is not the walk's", s.walk_frames, SFU_OK);
  if (view.num_frames > w.frames.size() || (view.num_frames < w.frames.size()) != bool(s.frames_truncated) ||
      (!small && s.frames_truncated))
    die("the record holds other frames than the walk gave", view.num_frames, SFU_OK);
  for (uint32_t i = 0; i < view.num_frames; i++) {
    sfu_frame f;
    int index = -2;
    if (!sfu_crash_get_frame(&view, i, &f, &index)) die("a record frame does not read", i, SFU_OK);
    const sfu_frame &g = w.frames[i];
    if (f.pc != g.pc || f.sp != g.sp || f.source != g.source || f.reliable != g.reliable ||
        f.stack_kind != g.stack_kind || f.index != g.index)
      die("a record frame is not the walk's", f.pc, SFU_OK);
    // Only this input's module is registered: the record names it or none, as the walk does.
    if (index != (g.module && g.module == module ? 0 : -1))
      die("a record frame names another module", f.pc, SFU_OK);
  }
  for (uint32_t i = 0; i < view.num_windows; i++) {
    sfu_crash_window win;
    if (!sfu_crash_get_window(&view, i, &win)) die("a record window does not read", i, SFU_OK);
    bool inside = false;
    for (const sfu_stack &st : stacks) inside |= win.addr >= st.lo && win.addr + win.size <= st.hi;
    if (!inside) die("a record window lies outside the declared stacks", win.addr, SFU_OK);
  }
}

void check_profile(const Walked &w, const sfu_regs &regs, const sfu_walk_config &config, uint32_t cap) {
  if (cap < 2) return;  // a profile one frame shallower than the walk's cap: it knows a cut exactly
  const uint32_t depth = cap - 1;
  std::vector<uint64_t> memory(SFU_PROFILE_MEMORY_SIZE(2, depth) / 8);
  sfu_profile profile;
  sfu_profile_params params{2, depth, 0, nullptr};
  sfu_error e = sfu_profile_init(&profile, memory.data(), memory.size() * 8, &params);
#ifndef CONFIG_SFU_PROFILE
  if (e != SFU_E_PROFILE_DISABLED) die("sfu_profile_init without the profiler", 0, e);
  return;
#endif
  if (e != SFU_OK) die("sfu_profile_init refused", 0, e);
  sfu_profile_sample(&profile, &regs, &config);
  sfu_profile_sample(&profile, &regs, &config);
  bool cut = w.frames.size() == cap;
  std::string want = std::string("sfu-profile-stack 2 ") + sfu_stop_name(cut ? SFU_STOP_FRAME_CAP : w.stop);
  for (size_t i = 0; i < w.frames.size() && i < depth; i++) {
    char addr[24];
    snprintf(addr, sizeof addr, " 0x%llx", (unsigned long long)sfu_frame_lookup_pc(&w.frames[i]));
    want += addr;
  }
  PrintedText got;
  sfu_profile_print(&got.sink, &profile);
  std::vector<std::string> stacks;
  std::string end;
  for (size_t at = 0, nl; (nl = got.s.find('\n', at)) != std::string::npos; at = nl + 1) {
    std::string line = got.s.substr(at, nl - at);
    size_t crc_at = line.rfind(" 0x");
    if (crc_at == std::string::npos) die("a profile line without its CRC", 0, SFU_OK);
    std::string body = line.substr(0, crc_at);
    char crc[16];
    snprintf(crc, sizeof crc, "0x%08x", sfu_crc32(0, body.data(), body.size()));
    if (line.substr(crc_at + 1) != crc) die("a profile line's CRC", 0, SFU_OK);
    if (body.rfind("sfu-profile-stack ", 0) == 0) stacks.push_back(body);
    if (body.rfind("sfu-profile-end ", 0) == 0) end = body;
  }
  if (stacks.size() != 1 || stacks[0] != want) {
    fprintf(stderr, "printed:\n%swanted:\n%s\n", got.s.c_str(), want.c_str());
    die("the profile's stack is not the walk's", w.frames.size(), SFU_OK);
  }
  if (end != "sfu-profile-end samples=2 counted=2 lines=" + std::to_string(std::count(got.s.begin(), got.s.end(), '\n')))
    die("the profile's end line", 0, SFU_OK);
  if (sfu_profile_lost(&profile, SFU_PROFILE_CUT_AT_DEPTH) != (cut ? 2u : 0u) || sfu_profile_samples(&profile) != 2)
    die("the profile's counts", 0, SFU_OK);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Reader in{data, size};
  uint8_t flags = uint8_t(in.take(1));
  uint8_t abi = kAbis[flags & 3];
  Machine m;

  // The table, registered through the public API (validated as this build's configuration says).
  std::vector<uint8_t> section;
  sfu_table_desc desc{};
  Rng rng(0);
  if (flags & 4) {
    size_t len = in.take(2);
    desc.section_addr = in.take(8);
    desc.text_start = desc.section_addr + uint64_t(int64_t(int32_t(uint32_t(in.take(4)))));
    desc.text_end = desc.text_start + in.take(4);
    for (size_t i = 0; i < len && in.more(); i++) section.push_back(uint8_t(in.take(1)));
    m.funcs.push_back({desc.text_start, desc.text_end - desc.text_start});
    rng = Rng(desc.section_addr ^ len);
  } else {
    uint64_t seed = in.take(8);
    rng = Rng(seed);
    GenTable gen = generate(rng);
    section = encode(gen, rng);
    if (flags & 0x80) {
      // A valid table, damaged: what a build that validates refuses (most of the time) and one
      // that does not (fuzz_walk_unvalidated, CONFIG_SFU_VALIDATE_ON_REGISTER=n) walks.
      unsigned edits = 1 + unsigned(in.take(1) % 16);
      for (unsigned i = 0; i < edits; i++) {
        size_t at = size_t(in.take(2));
        uint8_t x = uint8_t(in.take(1));
        if (!section.empty()) section[at % section.size()] ^= x ? x : 0xff;
      }
    }
    if (!(flags & 8)) abi = gen.abi;
    desc.section_addr = gen.sec_addr;
    desc.text_start = ~0ull;
    for (const GenFunc &f : gen.funcs) {
      m.funcs.push_back({f.start, f.size});
      desc.text_start = std::min(desc.text_start, f.start);
      desc.text_end = std::max(desc.text_end, f.start + f.size + 1);
    }
    if (gen.funcs.empty()) desc.text_start = 0;
  }
  // Exactly the section's size, so ASan sees a read past it.
  uint8_t *bytes = new uint8_t[section.size()];
  if (!section.empty()) memcpy(bytes, section.data(), section.size());
  desc.section = bytes;
  desc.size = section.size();
  sfu_module module{};
  std::vector<uint64_t> index_memory;
  size_t index_bytes = sfu_index_size(&desc);
  if ((flags & 0x40) && index_bytes && index_bytes <= (1u << 20)) index_memory.assign((index_bytes + 7) / 8, 0);
  sfu_module_desc module_desc{};
  module_desc.table = desc;
  module_desc.name = "fuzz";
  module_desc.index = index_memory.data();
  module_desc.index_size = index_memory.size() * 8;
  sfu_error reg = index_memory.empty() ? sfu_register(&module, &desc, "fuzz") : sfu_register_module(&module, &module_desc);
  sfu::fuzz::require_named(reg, "sfu_register");

  // The stacks.
  FakeMemory mem(sfu::sframe::abi_big_endian(abi));
  uint64_t base = kStackBase + in.take(1) * 0x1000;
  unsigned nstacks = 1 + unsigned(in.take(1) % 3);
  for (unsigned i = 0; i < nstacks; i++) {
    uint32_t kind = uint32_t(in.take(1) % 4);
    uint64_t bytes_size = (1 + in.take(2) % 512) * 8;
    mem.add_stack(base, base + bytes_size, kind);
    base += bytes_size + (in.take(1) % 3) * 0x1000;
  }
  m.stacks = &mem.stacks();

  // The configuration.
  uint32_t cap = 1 + uint32_t(in.take(1) % 64);
  sfu_walk_config config = mem.config(abi, cap);
  uint8_t va = uint8_t(in.take(1));
  config.arm64_va_bits = va < 0x80 ? 0 : va < 0xf0 ? uint8_t(36 + va % 17) : uint8_t(50 + (va - 0xf0));

  // Trap entries, each with its own layout.
  unsigned ntraps = unsigned(in.take(1) % 3);
  std::vector<sfu_trap_layout> layouts(ntraps);
  for (unsigned i = 0; i < ntraps; i++) {
    uint64_t start = m.untag(in.take(8));
    uint64_t len = in.take(2);
    sfu_trap_layout &l = layouts[i];
    l.pc = int16_t(in.take(2));
    l.saved = uint32_t(in.take(4));
    for (int r = 0; r < SFU_REGS_MAX; r++)
      if (l.saved & (1u << r)) l.reg[r] = int16_t(in.take(2));
    // Mostly slot-aligned offsets near the entry frame, where a layout's reads meet a stack's end.
    if (len & 0x8000)
      for (int r = -1; r < SFU_REGS_MAX; r++) (r < 0 ? l.pc : l.reg[r]) = int8_t((r < 0 ? l.pc : l.reg[r]) & 0xff) * 8;
    m.traps.push_back({start, start + len, &l});
  }
  config.traps = m.traps.data();
  config.num_traps = ntraps;

  // The start registers.
  sfu_regs regs{};
  regs.pc = m.untag(in.take(8));
  regs.valid = uint32_t(in.take(4));
  for (int r = 0; r < SFU_REGS_MAX; r++)
    if (regs.valid & (1u << r)) regs.r[r] = m.untag(in.take(8));
  uint8_t sp_mode = uint8_t(in.take(1));
  if (sp_mode % 16) {
    const sfu_stack &s = mem.stacks()[(sp_mode >> 4) % nstacks];
    uint8_t sp = sfu::sframe::abi_sp_reg(abi);
    regs.r[sp] = (s.lo + in.take(2) % (s.hi - s.lo)) & ~uint64_t(7);
    regs.valid |= 1u << sp;
  }

  // The stack memory.
  for (const sfu_stack &s : mem.stacks())
    for (uint64_t a = s.lo; a + 8 <= s.hi; a += 8) {
      uint64_t w = in.more() ? m.untag(in.take(8)) : (flags & 0x20) ? m.plausible(rng) : 0;
      if (w) mem.put(a, w);
    }

  // Step by step first: the reference. Then twice through the row cache (the first walk fills
  // it, the second finds every row it filled): the walker's runs of plain steps must give the
  // same frames, and so must everything below, which walks through the cache too.
  Walked w;
  try {
    w = walk_checked(regs, config);
  } catch (const std::logic_error &e) {
    die(e.what(), 0, SFU_OK);
  }
  check_frames(w, mem.stacks(), cap);
  check_backtrace(w, regs, config);
  check_print(w, regs, config);
  check_crash(w, regs, config, reg == SFU_OK ? &module : nullptr, flags & 0x10, mem.stacks());
  check_profile(w, regs, config, cap);
  if (!mem.stray_reads().empty()) die("a read outside the declared stacks", mem.stray_reads().front(), SFU_OK);

  if (reg == SFU_OK) sfu_unregister(&module);
  delete[] bytes;
  return 0;
}
