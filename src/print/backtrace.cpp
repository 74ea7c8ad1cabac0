// Backtrace lines: one per frame, a module line before the first frame of each module, and a stop
// line, in the format sfu/print.h documents. Built on the formatter's public calls; the walk runs
// on a cursor on this function's stack.
#include "config.h"
#include "print/module_line.h"
#include "sfu/print.h"
#include "unwind/walk.h"

namespace {

// Labels pre-padded to their column's width, so the columns line up without measuring. Kept as
// fixed-width rows, not pointers: 8 bytes a label less, and the same code to find one.
const char *kind_label(uint8_t kind) {
  static const char labels[][6] = {
      "task ",  // SFU_STACK_TASK
      "irq  ",  // SFU_STACK_IRQ
      "exc  ",  // SFU_STACK_EXCEPTION
      "other",  // SFU_STACK_OTHER
  };
  return labels[kind < sizeof(labels) / sizeof(labels[0]) ? kind : unsigned(SFU_STACK_OTHER)];
}

const char *source_label(uint8_t source) {
  static const char labels[][12] = {
      "[regs]     ",  // SFU_SOURCE_REGISTERS
      "[table]    ",  // SFU_SOURCE_TABLE
      "[fp]       ",  // SFU_SOURCE_FRAME_POINTER
      "[backchain]",  // SFU_SOURCE_BACK_CHAIN
      "[trap]     ",  // SFU_SOURCE_TRAP_FRAME
      "[signal]   ",  // SFU_SOURCE_SIGNAL_FRAME
      "[unknown]  ",  // any other value
  };
  static_assert(sizeof(labels) / sizeof(labels[0]) == SFU_SOURCE_SIGNAL_FRAME + 2, "a label per source");
  return labels[source <= SFU_SOURCE_SIGNAL_FRAME ? source : unsigned(SFU_SOURCE_SIGNAL_FRAME) + 1];
}

bool find_symbol(const sfu_module *m, uint64_t lookup_pc, sfu_symbol &sym) {
  return m && m->symbols_error == SFU_OK && sfu_symbols_find(&m->symbols, lookup_pc, &sym) == SFU_OK;
}

// "name+0xoff/0xsize", the offset that of pc; the name clean (print_clean's rule), as it goes by.
void print_symbol(const sfu_sink *sink, const sfu_module *m, const sfu_symbol &sym, uint64_t pc) {
  sfu::print::Cleaning clean(sink);
  sfu_symbol_print_name(&clean.sink, &m->symbols, &sym);
  sfu_print_str(sink, "+");
  sfu_print_hex(sink, pc - sym.start, 0);
  sfu_print_str(sink, "/");
  sfu_print_hex(sink, sym.size, 0);
}

// Where a frame's line is built. Where names are printed, frame_fields is a call of its own: its
// array is off the stack before a symbol is decoded, the deepest printing there is. Built for size
// without them, both fold into the backtrace's loop: the calls' code saved, the array on the stack
// under the walk (as stop_line's is there).
#if defined(CONFIG_SFU_SYMBOLS)
#define SFU_FRAME_FIELDS_FN [[gnu::noinline]]
#define SFU_FRAME_LINE_FN
#elif defined(CONFIG_SFU_OPTIMIZE_SIZE)
#define SFU_FRAME_FIELDS_FN [[gnu::always_inline]] inline
#define SFU_FRAME_LINE_FN [[gnu::always_inline]] inline
#else
#define SFU_FRAME_FIELDS_FN
#define SFU_FRAME_LINE_FN
#endif

// A frame's line up to its module (the fields print_line prints from an array), and the newline
// too where no symbol can follow.
SFU_FRAME_FIELDS_FN void frame_fields(const sfu_sink *sink, const sfu_frame *f, uint64_t index) {
  using namespace sfu::print;
  // The index left-aligned in 3 columns (wider ones push the line right), then the reliability
  // mark in 3 more: one string, the padding the index leaves and the mark.
  const unsigned skip = index >= 100 ? 2 : index >= 10 ? 1 : 0;  // a space less per digit past one
  const uint64_t values[] = {index,
                             value_of((f->reliable ? "     " : "   ? ") + skip),
                             f->pc,
                             f->sp,
                             value_of(kind_label(f->stack_kind)),
                             value_of(source_label(f->source)),
                             value_of(f->module ? f->module->name : "-"),
                             SFU_PRINT_STR_MAX};
#define SFU_FRAME_LINE \
  " #" SFU_L_DEC SFU_L_STR SFU_L_HEX16 "  sp " SFU_L_HEX16 "  " SFU_L_STR "  " SFU_L_STR "  " SFU_L_NAME
  print_line(sink, sfu::config::kSymbols ? SFU_FRAME_LINE : SFU_FRAME_LINE "\n", values);
#undef SFU_FRAME_LINE
}

SFU_FRAME_LINE_FN void frame_line(const sfu_sink *sink, const sfu_frame *f, uint64_t index) {
  frame_fields(sink, f, index);
  if constexpr (sfu::config::kSymbols) {
    sfu_symbol sym;
    if (find_symbol(f->module, sfu_frame_lookup_pc(f), sym)) {
      sfu_print_str(sink, "  ");
      print_symbol(sink, f->module, sym, f->pc);
    }
    sfu_print_str(sink, "\n");
  }
}

// The stop line. A call of its own but where the core is built for size, so that its array is
// not on the stack under the walk.
#ifndef CONFIG_SFU_OPTIMIZE_SIZE
[[gnu::noinline]]
#endif
void stop_line(const sfu_sink *sink, sfu_stop stop, bool reliable) {
  // Without the names, sfu_stop_name's code from the number (a walk's stop is always in the list).
  const uint64_t values[] = {sfu::config::kNames ? sfu::print::value_of(sfu_stop_name(stop)) : uint64_t(stop),
                             sfu::print::value_of(reliable ? "" : "un")};
  sfu::print::print_line(sink,
                         sfu::config::kNames ? "stop: " SFU_L_STR " (" SFU_L_STR "reliable)\n"
                                             : "stop: S" SFU_L_DEC " (" SFU_L_STR "reliable)\n",
                         values);
}

// The modules whose line this trace has printed: the last kModulesKept, which is every module of
// almost any trace; a module seen again after more than that is printed again, with a new number.
struct ModulesPrinted {
  static constexpr unsigned kModulesKept = 4;
  const sfu_module *kept[kModulesKept] = {};
  unsigned count = 0;  // lines printed

  // The module's line, unless it was printed already.
  void print(const sfu_sink *sink, const sfu_module *m) {
    if (!m) return;
    for (const sfu_module *k : kept)
      if (k == m) return;
    kept[count % kModulesKept] = m;
    // Without CONFIG_SFU_BUILD_ID registration leaves every module without one.
    const bool id = sfu::config::kBuildId && m->build_id_error == SFU_OK;
    sfu::print::module_line(sink, count++, m->name, SFU_PRINT_STR_MAX, m->table.text_start, m->table.text_end,
                            id ? m->build_id : nullptr, id ? m->build_id_size : 0);
  }
};

}  // namespace

extern "C" int sfu_print_symbol(const struct sfu_sink *sink, const struct sfu_module *module,
                                uint64_t lookup_pc, uint64_t pc) {
  sfu_symbol sym;
  if (!find_symbol(module, lookup_pc, sym)) return 0;
  print_symbol(sink, module, sym, pc);
  return 1;
}

extern "C" void sfu_print_frame(const struct sfu_sink *sink, const struct sfu_frame *frame) {
  if (!frame) return;
  frame_line(sink, frame, frame->index);
}

extern "C" size_t sfu_print_backtrace(const struct sfu_sink *sink, const struct sfu_regs *regs,
                                      const struct sfu_walk_config *config) {
  sfu_cursor cursor;
  sfu_walk_start(&cursor, regs, config);
  size_t frames = 0;
  ModulesPrinted modules;
  // Bounded by the walk's frame cap. The frame read from the cursor where it is: no copy of
  // sfu_walk_next's to keep.
  while (sfu::unwind::next_frame(cursor)) {
    modules.print(sink, cursor.module);
    sfu_frame frame;
    sfu::unwind::frame_of(cursor, frame);
    frame_line(sink, &frame, frames);
    frames++;
  }
  const sfu_stop stop = sfu_stop(cursor.stop);  // sfu_walk_stop(&cursor), without a call: the cursor is here
  // A frame is reliable only if every frame before it is (sfu_frame): the last one speaks for all,
  // and a stopped walk's cursor still holds it.
  stop_line(sink, stop, frames > 0 && cursor.reliable && stop == SFU_STOP_END);
  return frames;
}
