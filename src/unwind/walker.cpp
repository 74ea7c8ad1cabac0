// The walk: from one frame's registers to its caller's, by the row that covers the PC and the
// architecture's frame rules (arch/<arch>/frame_rules.h), with every guard a corrupt stack
// needs: reads only inside declared stacks, CFA rising, one-way stack switches, a frame cap.
#include "config.h"
#include "sframe/format.h"
#include "sfu/unwind.h"
#include "unwind/memory.h"
#if SFU_BUILDS_ARM64
#include "arm64/frame_rules.h"
#endif
#if SFU_BUILDS_S390X
#include "s390x/frame_rules.h"
#endif
#if SFU_BUILDS_X86_64
#include "x86_64/frame_rules.h"
#endif

namespace sfu::unwind {
namespace {

// The virtual address sizes arm64 has (Kconfig SFU_ARM64_VA_BITS takes the same range).
constexpr uint8_t kArm64VaBitsMin = 36, kArm64VaBitsMax = 52;

// arch/<arch>/capture.S stores registers at these offsets.
static_assert(__builtin_offsetof(sfu_regs, pc) == 0);
static_assert(__builtin_offsetof(sfu_regs, r) == 8);
static_assert(__builtin_offsetof(sfu_regs, valid) == 264);

// One step's view of the cursor: its registers and its stacks.
struct Walk {
  sfu_cursor &c;

  bool reg(uint32_t n, uint64_t &out) const {
    if (n >= SFU_REGS_MAX || !((c.regs.valid >> n) & 1)) return false;
    out = c.regs.r[n];
    return true;
  }
  sfu_stop read(uint64_t addr, uint64_t &out) const {
    return read_word(c.config, addr, sframe::abi_big_endian(c.config.abi), out, c.stack_index) ? SFU_STOP_NONE
                                                                                        : SFU_STOP_READ_REFUSED;
  }
};

// What a step found: the caller's CFA, return address and (if known) frame pointer.
struct Caller {
  uint64_t cfa = 0, ra = 0, fp = 0;
  bool fp_known = false;
  uint8_t source = SFU_SOURCE_TABLE;
  bool exact_pc = false;  // the caller was interrupted, not calling: look its PC up as is
};

sfu_stop eval_cfa(const Walk &w, const sfu_rule &r, uint64_t &cfa) {
  uint64_t base;
  if (!w.reg(r.reg, base)) return SFU_STOP_REGISTER_UNKNOWN;
  uint64_t at = base + uint64_t(int64_t(r.offset));
  if (r.kind == SFU_RULE_REGISTER) {
    cfa = at;
    return SFU_STOP_NONE;
  }
  if (r.kind == SFU_RULE_AT_REGISTER) return w.read(at, cfa);
  return SFU_STOP_TABLE_ERROR;  // the decoder gives only these two kinds for a CFA
}

// A value a rule gives, for rules that need no knowledge of which register it is.
// Register rules hold only in the topmost frame: below it, registers are not tracked.
sfu_stop eval_value(const Walk &w, const sfu_rule &r, uint64_t cfa, uint64_t &out) {
  uint64_t base;
  uint64_t off = uint64_t(int64_t(r.offset));
  switch (r.kind) {
    case SFU_RULE_AT_CFA:
      return w.read(cfa + off, out);
    case SFU_RULE_CFA_PLUS:
      out = cfa + off;
      return SFU_STOP_NONE;
    case SFU_RULE_REGISTER:
      if (!w.c.topmost) return SFU_STOP_RA_NOT_RECOVERABLE;
      if (!w.reg(r.reg, base)) return SFU_STOP_REGISTER_UNKNOWN;
      out = base + off;
      return SFU_STOP_NONE;
    case SFU_RULE_AT_REGISTER:
      if (!w.reg(r.reg, base)) return SFU_STOP_REGISTER_UNKNOWN;
      return w.read(base + off, out);
    default:
      return SFU_STOP_TABLE_ERROR;  // UNCHANGED and UNDEFINED are the callers' to handle
  }
}

// The return address: "unchanged" means still in the link register, which only the topmost
// frame may rely on (a lower frame's link register was overwritten by the call it made).
template <class Arch>
sfu_stop eval_ra(const Walk &w, const sfu_rule &r, uint64_t cfa, uint64_t &ra) {
  if (r.kind == SFU_RULE_UNDEFINED) return SFU_STOP_END;
  if (r.kind != SFU_RULE_UNCHANGED) return eval_value(w, r, cfa, ra);
  if (Arch::kLinkRegister < 0 || !w.c.topmost) return SFU_STOP_RA_NOT_RECOVERABLE;
  return w.reg(uint32_t(Arch::kLinkRegister), ra) ? SFU_STOP_NONE : SFU_STOP_REGISTER_UNKNOWN;
}

// The frame pointer: where it cannot be known the walk goes on without it (a caller further up
// may not need it); only a refused read stops the walk.
template <class Arch>
sfu_stop eval_fp(const Walk &w, const sfu_rule &r, uint64_t cfa, Caller &out) {
  if (r.kind == SFU_RULE_UNCHANGED) {
    out.fp_known = w.reg(Arch::kFp, out.fp);
    return SFU_STOP_NONE;
  }
  if (r.kind == SFU_RULE_UNDEFINED) return SFU_STOP_NONE;
  // In an epilogue, after `pop %rbp` or `leave`, gcc's rows still name the save slot, which is
  // now below SP: an interrupt may already have overwritten it, and the register holds the
  // restored value. A slot below SP is dead; the live register is the caller's FP.
  uint64_t sp = w.c.regs.r[Arch::kSp];
  if (r.kind == SFU_RULE_AT_CFA && cfa + uint64_t(int64_t(r.offset)) < sp && w.reg(Arch::kFp, out.fp)) {
    out.fp_known = true;
    return SFU_STOP_NONE;
  }
  sfu_stop s = eval_value(w, r, cfa, out.fp);
  out.fp_known = s == SFU_STOP_NONE;
  return s == SFU_STOP_READ_REFUSED ? s : SFU_STOP_NONE;
}

// Where the caller's frame must be: its SP in a declared stack, the same one higher up or one
// declared later (an interrupt stack hands over to the task stack, never back). Checked before
// anything is read relative to the CFA, so a corrupt CFA is named as such. The current stack is
// asked first: the outermost CFA at its top stays on it where an earlier-declared stack begins.
template <class Arch>
sfu_stop check_cfa(const sfu_cursor &c, uint64_t cfa, int &stack) {
  uint64_t caller_sp = cfa + uint64_t(Arch::kSpFromCfa);
  stack = stack_holding(c.config, caller_sp, 0, c.stack_index);
  if (stack < 0) return SFU_STOP_CFA_OUTSIDE_STACK;
  if (stack < c.stack_index) return SFU_STOP_STACK_ORDER;
  if (stack == c.stack_index && (caller_sp < c.regs.r[Arch::kSp] || cfa < c.prev_cfa))
    return SFU_STOP_WRONG_DIRECTION;
  return SFU_STOP_NONE;
}

template <class Arch>
sfu_stop from_row(const Walk &w, const sfu_row &row, Caller &out, int &stack) {
  if (row.flags & SFU_ROW_OUTERMOST) return SFU_STOP_END;
  if (sfu_stop s = eval_cfa(w, row.cfa, out.cfa)) return s;
  if (sfu_stop s = check_cfa<Arch>(w.c, out.cfa, stack)) return s;
  if (sfu_stop s = eval_ra<Arch>(w, row.ra, out.cfa, out.ra)) return s;
  out.ra = Arch::strip_ra(out.ra, row.flags & SFU_ROW_RA_SIGNED, w.c.config);
  if (sfu_stop s = eval_fp<Arch>(w, row.fp, out.cfa, out)) return s;
  out.exact_pc = row.flags & SFU_ROW_SIGNAL_FRAME;
  out.source = out.exact_pc ? SFU_SOURCE_SIGNAL_FRAME : SFU_SOURCE_TABLE;
  return SFU_STOP_NONE;
}

// Where no row covers the PC: one frame-record (x86_64, arm64) or back-chain (s390x) step, if
// configured. The frame is found, but not proven: the walk is marked unreliable from here on.
template <class Arch>
sfu_stop fallback(const Walk &w, Caller &out, int &stack) {
  uint64_t fp, sp;
  if constexpr (Arch::kFrameRecords) {
    if (!config::kFpFallback || !w.reg(Arch::kFp, fp)) return SFU_STOP_NO_UNWIND_INFO;
    if (fp == 0) return SFU_STOP_END;  // no frame record: the outermost frame (the ABIs' mark)
    // The caller's SP is just above the record: exact on x86_64 (push %rbp; mov %rsp, %rbp), a
    // lower bound on arm64 where the record may sit below the rest of the frame. Either way the
    // frame is marked unreliable.
    out.cfa = fp + 16;
    if (sfu_stop s = check_cfa<Arch>(w.c, out.cfa, stack)) return s;
    if (sfu_stop s = w.read(fp, out.fp)) return s;
    if (sfu_stop s = w.read(fp + 8, out.ra)) return s;
    out.ra = Arch::strip_ra(out.ra, true, w.c.config);
    out.source = SFU_SOURCE_FRAME_POINTER;
  } else {
    if (!config::kBackChainFallback || !w.reg(Arch::kSp, sp)) return SFU_STOP_NO_UNWIND_INFO;
    uint64_t chain;
    if (sfu_stop s = w.read(sp, chain)) return s;
    if (chain == 0) return SFU_STOP_END;  // the outermost frame's back chain is 0
    out.cfa = chain - uint64_t(Arch::kSpFromCfa);
    if (sfu_stop s = check_cfa<Arch>(w.c, out.cfa, stack)) return s;
    if (sfu_stop s = w.read(chain + Arch::kSaveAreaRa, out.ra)) return s;
    if (sfu_stop s = w.read(chain + Arch::kSaveAreaFp, out.fp)) return s;
    out.source = SFU_SOURCE_BACK_CHAIN;
  }
  out.fp_known = true;
  return SFU_STOP_NONE;
}

// A return address of 0 ends a walk cleanly only where a stack ends: the caller's CFA at the top
// of its declared stack (within the outermost frame's own few slots: kernels push a zero return
// address there before their first call), or, after a frame-record step, a record of zeros (the
// final frame record of AAPCS64, a zero saved RBP on x86_64). Anywhere else a saved return
// address was overwritten: the stack is damaged and the trace stops unreliable.
constexpr uint64_t kOutermostCfaSlack = 32;

sfu_stop zero_return_address(const sfu_walk_config &c, const Caller &caller, int stack) {
  if (caller.source == SFU_SOURCE_FRAME_POINTER && caller.fp == 0) return SFU_STOP_END;
  uint64_t top = c.stacks[stack].hi;
  return caller.cfa + kOutermostCfaSlack >= top ? SFU_STOP_END : SFU_STOP_ZERO_RETURN_ADDRESS;
}

const sfu_trap_entry *trap_for(const sfu_walk_config &c, uint64_t pc) {
  for (uint32_t i = 0; i < c.num_traps; i++)
    if (pc >= c.traps[i].start && pc < c.traps[i].end && c.traps[i].layout) return &c.traps[i];
  return nullptr;
}

// The module of the frame about to be shown, by the PC its rows are looked up with. A PC in no
// registered text (a caller without a table, a corrupted return address) is shown, but the walk
// ends at the next step and vouches for nothing from here on; entry code the config describes is
// crossed by its layout, not rows, so it needs no table.
void enter_module(sfu_cursor &c, uint64_t lookup) {
  // Most callers are in the module of their callee: its range is checked before the registry.
  const sfu_module *m = c.module;
  if (!m || lookup < m->table.text_start || lookup >= m->table.text_end) m = sfu_module_for_pc(lookup);
  c.module = m;
  if (!c.module && !trap_for(c.config, lookup)) c.reliable = 0;
}

// Crossing entry code: the interrupted registers, as the layout says the code saved them. They
// are read straight into the cursor (no second register file on the stack): a refused read or a
// failed check stops the walk for good, so a half-written register set is never used.
template <class Arch>
sfu_stop from_trap(sfu_cursor &c, const sfu_trap_layout &l) {
  Walk w{c};
  uint64_t sp = c.regs.r[Arch::kSp];
  if (!((l.saved >> Arch::kSp) & 1)) return SFU_STOP_REGISTER_UNKNOWN;
  uint64_t pc;
  if (sfu_stop s = w.read(sp + uint64_t(int64_t(l.pc)), pc)) return s;
  int stack;
  int entry_stack = c.stack_index;
  uint64_t new_sp = 0;
  for (uint32_t n = 0; n < SFU_REGS_MAX; n++) {
    uint64_t v = 0;
    if ((l.saved >> n) & 1)
      if (sfu_stop s = w.read(sp + uint64_t(int64_t(l.reg[n])), v)) return s;
    if (n == Arch::kSp)
      new_sp = v;  // the entry frame's SP stays until the checks are done
    else
      c.regs.r[n] = v;
  }
  // The interrupted SP must pass the same checks as a caller's; and entry code always pushes
  // something, so on the same stack it lies strictly above the entry frame.
  if (sfu_stop s = check_cfa<Arch>(c, new_sp - uint64_t(Arch::kSpFromCfa), stack)) return s;
  if (stack == entry_stack && new_sp == sp) return SFU_STOP_WRONG_DIRECTION;
  if (pc == 0) return SFU_STOP_END;
  c.regs.r[Arch::kSp] = new_sp;
  c.regs.pc = pc;
  c.regs.valid = l.saved;
  c.prev_cfa = 0;  // a new context: its first CFA is checked against its SP only
  c.stack_index = stack;
  c.topmost = 1;   // interrupted anywhere: RA and FP may still be in registers
  c.exact_pc = 1;
  enter_module(c, pc);
  c.last_source = SFU_SOURCE_TRAP_FRAME;
  return SFU_STOP_NONE;
}

// From the cursor's frame to its caller's; commits the caller into the cursor on success.
template <class Arch>
sfu_stop step(sfu_cursor &c) {
  Walk w{c};
  uint64_t pc = c.regs.pc;
  // A return address points after the call: the call itself is at pc - 1.
  uint64_t lookup = c.exact_pc ? pc : pc - 1;
  if (const sfu_trap_entry *t = trap_for(c.config, lookup)) return from_trap<Arch>(c, *t->layout);
  const sfu_module *m = c.module;  // found for this lookup PC when the frame was entered
  if (!m) return SFU_STOP_END;  // outside all known text: nothing more to say
  Caller caller;
  int stack = -1;
  sfu_row row;
  sfu_error e = sfu_table_find(&m->table, lookup, &row);
  if (e == SFU_E_NO_FUNCTION || e == SFU_E_NO_ROW) {
    if (sfu_stop s = fallback<Arch>(w, caller, stack)) return s;
  } else if (e != SFU_OK) {
    return SFU_STOP_TABLE_ERROR;
  } else if (sfu_stop s = from_row<Arch>(w, row, caller, stack)) {
    return s;
  }
  // A V1 repeating block (gas's .plt) does not record its size: rows are matched on the low byte
  // of the offset, as binutils 2.40 reads them, which is right only for 256-byte blocks (.plt
  // entries are 16). The caller found so is shown, not vouched for.
  bool guessed = e == SFU_OK && (row.flags & SFU_ROW_PCMASK) && m->table.version == sframe::kVersion1;
  if (caller.ra == 0) return zero_return_address(c.config, caller, stack);
  // A CFA equal to the last one is only allowed across a stack switch.
  if (stack == c.stack_index && caller.cfa == c.prev_cfa)
    return caller.ra == pc ? SFU_STOP_REPEATED_FRAME : SFU_STOP_WRONG_DIRECTION;
  c.prev_cfa = caller.cfa;
  c.regs.pc = caller.ra;
  c.regs.r[Arch::kSp] = caller.cfa + uint64_t(Arch::kSpFromCfa);
  c.regs.r[Arch::kFp] = caller.fp;
  // Below the topmost frame only SP and FP are known: callee-saved registers are not tracked.
  c.regs.valid = (1u << Arch::kSp) | (caller.fp_known ? 1u << Arch::kFp : 0);
  c.stack_index = stack;
  c.topmost = 0;
  c.exact_pc = caller.exact_pc;
  enter_module(c, caller.exact_pc ? caller.ra : caller.ra - 1);
  if ((caller.source != SFU_SOURCE_TABLE && caller.source != SFU_SOURCE_SIGNAL_FRAME) || guessed) c.reliable = 0;
  c.last_source = caller.source;
  return SFU_STOP_NONE;
}

sfu_stop step_for_abi(sfu_cursor &c) {
  switch (c.config.abi) {
#if SFU_BUILDS_X86_64
    case SFU_ABI_AMD64_LE:
      return step<arch::X86_64>(c);
#endif
#if SFU_BUILDS_ARM64
    case SFU_ABI_AARCH64_LE:
    case SFU_ABI_AARCH64_BE:
      return step<arch::Arm64>(c);
#endif
#if SFU_BUILDS_S390X
    case SFU_ABI_S390X_BE:
      return step<arch::S390x>(c);
#endif
    default:
      return SFU_STOP_BAD_START;
  }
}

bool abi_supported(uint8_t abi) {
#if defined(SFU_HOSTED)
  return abi >= SFU_ABI_AARCH64_BE && abi <= SFU_ABI_S390X_BE;
#else
  return abi == SFU_BUILD_ABI;
#endif
}

void fill_frame(const sfu_cursor &c, sfu_frame &f) {
  uint8_t sp_reg = sframe::abi_sp_reg(c.config.abi);
  f.pc = c.regs.pc;
  f.sp = c.regs.r[sp_reg];
  f.cfa = c.prev_cfa;
  f.module = c.module;
  f.source = c.last_source;
  f.reliable = c.reliable;
  f.stack_kind = uint8_t(c.config.stacks[c.stack_index].kind);
  f.index = uint8_t(c.frames < 255 ? c.frames : 255);
}

}  // namespace
}  // namespace sfu::unwind

using namespace sfu::unwind;

extern "C" const char *sfu_stop_name(enum sfu_stop stop) {
  static const char *const names[] = {
#define SFU_STOP_NAME(name, text) text,
      SFU_STOPS(SFU_STOP_NAME)
#undef SFU_STOP_NAME
  };
  unsigned i = unsigned(stop);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "unknown-stop";
}

extern "C" void sfu_walk_start(struct sfu_cursor *c, const struct sfu_regs *regs,
                               const struct sfu_walk_config *config) {
  if (!c) return;
  c->stop = SFU_STOP_NONE;
  c->frames = 0;
  c->prev_cfa = 0;
  c->topmost = 1;
  c->exact_pc = 1;  // the start PC is where the CPU stopped, not a return address
  c->reliable = 1;
  c->last_source = SFU_SOURCE_REGISTERS;
  c->stack_index = -1;
  c->module = nullptr;
  if (!regs || !config) {
    c->stop = SFU_STOP_BAD_START;
    return;
  }
  // Field by field: a struct copy of this size would become a call to memcpy.
  c->config.stacks = config->stacks;
  c->config.num_stacks = config->stacks ? config->num_stacks : 0;
  c->config.max_frames = config->max_frames ? config->max_frames : CONFIG_SFU_MAX_FRAMES;
  c->config.traps = config->traps;
  c->config.num_traps = config->traps ? config->num_traps : 0;
  c->config.abi = config->abi ? config->abi : uint8_t(SFU_BUILD_ABI);
  c->config.arm64_va_bits = config->arm64_va_bits ? config->arm64_va_bits : uint8_t(CONFIG_SFU_ARM64_VA_BITS);
  c->regs.pc = regs->pc;
  c->regs.valid = regs->valid;
  for (unsigned i = 0; i < SFU_REGS_MAX; i++) c->regs.r[i] = regs->r[i];
  if (!abi_supported(c->config.abi)) {
    c->stop = SFU_STOP_BAD_START;
    return;
  }
  // The PAC strip mask is 1 << va_bits: a size arm64 does not have is refused, never shifted.
  uint8_t va_bits = c->config.arm64_va_bits;
  if (sfu::sframe::abi_aarch64(c->config.abi) && (va_bits < kArm64VaBitsMin || va_bits > kArm64VaBitsMax)) {
    c->stop = SFU_STOP_BAD_START;
    return;
  }
  enter_module(*c, regs->pc);
  uint8_t sp_reg = sfu::sframe::abi_sp_reg(c->config.abi);
  c->stack_index = ((regs->valid >> sp_reg) & 1) ? stack_holding(c->config, regs->r[sp_reg], 0) : -1;
  if (c->stack_index < 0) c->stop = SFU_STOP_BAD_START;
}

extern "C" int sfu_walk_next(struct sfu_cursor *c, struct sfu_frame *frame) {
  if (!c || !frame || c->stop != SFU_STOP_NONE) return 0;
  if (c->frames >= c->config.max_frames) {
    c->stop = SFU_STOP_FRAME_CAP;
    return 0;
  }
  if (c->frames > 0) {
    if (sfu_stop s = step_for_abi(*c)) {
      c->stop = uint8_t(s);
      return 0;
    }
  }
  fill_frame(*c, *frame);
  c->frames++;
  return 1;
}

extern "C" enum sfu_stop sfu_walk_stop(const struct sfu_cursor *c) {
  return c ? sfu_stop(c->stop) : SFU_STOP_BAD_START;
}

extern "C" size_t sfu_backtrace(const struct sfu_regs *regs, const struct sfu_walk_config *config,
                                uint64_t *pcs, size_t max, enum sfu_stop *why) {
  sfu_cursor c;
  sfu_walk_start(&c, regs, config);
  sfu_frame f;
  size_t n = 0;
  while (n < max && sfu_walk_next(&c, &f)) pcs[n++] = f.pc;
  if (why) *why = sfu_walk_stop(&c);
  return n;
}
