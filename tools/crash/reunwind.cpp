// The host walk over a record's windows, and its comparison with the device's frames.
#include "tools/crash/reunwind.h"

#include <cstring>
#include <memory>

#include "config.h"
#include "sfu/unwind.h"
#include "tools/text/format.h"

namespace sfu::tools::crash {
namespace {

// The windows of the record being walked: what the hook may serve.
const std::vector<sfu_crash_window> *g_windows = nullptr;

const char *source_name(uint8_t source) {
  static const char *const names[] = {"regs", "table", "fp", "backchain", "trap", "signal"};
  static_assert(sizeof names / sizeof names[0] == SFU_SOURCE_SIGNAL_FRAME + 1, "a name per source");
  return source < sizeof names / sizeof names[0] ? names[source] : "unknown";
}

std::string frame_text(const sfu_frame &f) {
  return "pc " + hex(f.pc) + " sp " + hex(f.sp) + " [" + source_name(f.source) + "]" + (f.reliable ? "" : " ?");
}

bool stopped_by_memory(sfu_stop s) {
  return s == SFU_STOP_READ_REFUSED || s == SFU_STOP_CFA_OUTSIDE_STACK || s == SFU_STOP_BAD_START;
}

// The walk options this host build walks with, in the record's terms.
uint8_t host_options() {
  return (config::kFpFallback ? SFU_CRASH_WALKED_FP_FALLBACK : 0) |
         (config::kBackChainFallback ? SFU_CRASH_WALKED_BACK_CHAIN : 0) |
         (config::kArm64Tbi ? SFU_CRASH_WALKED_ARM64_TBI : 0);
}

void compare(const sfu_crash_view &view, const sfu_crash_summary &s, Reunwound &out) {
  std::vector<sfu_frame> device(view.num_frames);
  for (uint32_t i = 0; i < view.num_frames; i++) sfu_crash_get_frame(&view, i, &device[i], nullptr);
  size_t n = std::min(device.size(), out.frames.size());
  for (size_t i = 0; i < n; i++) {
    const sfu_frame &d = device[i], &h = out.frames[i];
    if (d.pc != h.pc || d.sp != h.sp || d.source != h.source || d.reliable != h.reliable ||
        d.stack_kind != h.stack_kind)
      out.differences.push_back("frame " + std::to_string(i) + ": device " + frame_text(d) + ", host " +
                                frame_text(h));
  }
  std::string host_stop = sfu_stop_name(out.stop), device_stop = sfu_stop_name(sfu_stop(s.stop));
  if (out.frames.size() < device.size()) {
    size_t k = out.frames.size();
    if (device[k].source == SFU_SOURCE_TRAP_FRAME)
      out.notes.push_back("frame " + std::to_string(k) +
                          " crossed a trap frame on the device; records do not carry the entry code's "
                          "layout, so the host walk stops before it (" + host_stop + ")");
    else if (stopped_by_memory(out.stop))
      out.notes.push_back("the stack windows end at frame " + std::to_string(k) + " (host: " + host_stop +
                          "); the device's walk went on to " + std::to_string(device.size()) + " frames");
    else
      out.differences.push_back("the host walk stops after " + std::to_string(k) + " frames (" + host_stop +
                                "); the device's gave " + std::to_string(device.size()) + " (" + device_stop + ")");
  } else if (out.frames.size() > device.size() && !s.frames_truncated) {
    out.differences.push_back("the host walk gives " + std::to_string(out.frames.size()) + " frames (" + host_stop +
                              "); the device's stopped after " + std::to_string(device.size()) + " (" +
                              device_stop + ")");
  } else if (out.frames.size() == device.size() && !s.frames_truncated && out.stop != sfu_stop(s.stop)) {
    if (stopped_by_memory(out.stop))
      out.notes.push_back("the stack windows end after the last frame (host: " + host_stop + ", device: " +
                          device_stop + ")");
    else
      out.differences.push_back("the walks stop differently: host " + host_stop + ", device " + device_stop);
  }
  if (s.walk_options != host_options())
    out.notes.push_back("the device walked with other fallback settings than this sfu was built with "
                        "(CONFIG_SFU_FP_FALLBACK, CONFIG_SFU_S390X_BACK_CHAIN, CONFIG_SFU_ARM64_TBI)");
}

}  // namespace

int read_window_memory(void *dst, uint64_t src, size_t len) {
  if (!g_windows) return -1;
  for (const sfu_crash_window &w : *g_windows) {
    if (src >= w.addr && len <= w.size && src - w.addr <= w.size - len) {
      memcpy(dst, w.bytes + (src - w.addr), len);
      return 0;
    }
  }
  return -1;
}

bool reunwind(const sfu_crash_view &view, const std::vector<const ModuleTable *> &tables,
              const std::vector<uint64_t> &biases, Reunwound &out) {
  sfu_crash_summary s;
  sfu_crash_get_summary(&view, &s);
  std::vector<sfu_crash_window> windows(view.num_windows);
  std::vector<sfu_stack> stacks(view.num_windows);
  for (uint32_t i = 0; i < view.num_windows; i++) {
    sfu_crash_get_window(&view, i, &windows[i]);
    stacks[i] = sfu_stack{windows[i].addr, windows[i].addr + windows[i].size, windows[i].kind};
  }

  std::vector<std::unique_ptr<sfu_module>> registered;
  auto unregister_all = [&] {
    for (auto &m : registered) sfu_unregister(m.get());
  };
  for (uint32_t i = 0; i < view.num_modules && i < tables.size(); i++) {
    if (!tables[i]) continue;
    sfu_crash_module m;
    sfu_crash_get_module(&view, i, &m);
    sfu_table_desc d{};
    d.section = tables[i]->section.data();
    d.size = tables[i]->section.size();
    d.section_addr = tables[i]->section_addr + (i < biases.size() ? biases[i] : 0);
    d.text_start = m.text_start;
    d.text_end = m.text_end;
    d.abi = view.abi;
    auto module = std::make_unique<sfu_module>();
    sfu_error e = sfu_register(module.get(), &d, "");
    if (e != SFU_OK) {
      unregister_all();
      out.error = std::string("module ") + std::to_string(i) + " (" + m.name + "): its image's table is refused: " +
                  sfu_error_name(e);
      return false;
    }
    registered.push_back(std::move(module));
  }

  sfu_regs regs;
  sfu_crash_get_regs(&view, &regs);
  sfu_walk_config c{};
  c.stacks = stacks.data();
  c.num_stacks = uint32_t(stacks.size());
  c.max_frames = s.max_frames;
  c.abi = view.abi;
  c.arm64_va_bits = s.arm64_va_bits;
  g_windows = &windows;
  sfu_cursor cursor;
  sfu_walk_start(&cursor, &regs, &c);
  sfu_frame f;
  while (sfu_walk_next(&cursor, &f)) out.frames.push_back(f);
  out.stop = sfu_walk_stop(&cursor);
  g_windows = nullptr;
  unregister_all();
  compare(view, s, out);
  return true;
}

}  // namespace sfu::tools::crash
