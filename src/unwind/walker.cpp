// The walk: from one frame's registers to its caller's, by the row that covers the PC and the
// architecture's frame rules (arch/<arch>/frame_rules.h), with every guard a corrupt stack
// needs: reads only inside declared stacks, CFA rising, one-way stack switches, a frame cap.
#include "call_levels.h"
#include "config.h"
#include "names.h"
#include "sframe/format.h"
#include "sfu/unwind.h"
#include "unwind/memory.h"
#include "unwind/row_cache.h"
#include "unwind/walk.h"
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
template <class Arch>
struct Walk {
  sfu_cursor &c;

  sfu_stop read(uint64_t addr, uint64_t &out) const {
    return read_stack_word(*c.config, addr, Arch::big_endian(c.abi), out, c.stack_index);
  }
  // The same for the common rows; `on` is the stack the walk is on, c.stack_index's.
  sfu_stop read_inline(const sfu_stack &on, uint64_t addr, uint64_t &out) const {
    return read_word_inline(*c.config, on, addr, Arch::big_endian(c.abi), out, c.stack_index)
               ? SFU_STOP_NONE
               : SFU_STOP_READ_REFUSED;
  }
  // A register of the current frame: SP always, FP where known; any other only in a topmost
  // frame, from the start registers or from the slot the entry frame crossed last saved it in.
  sfu_stop reg(uint32_t n, uint64_t &out) const {
    if (n == Arch::kSp) {
      out = c.sp;
      return SFU_STOP_NONE;
    }
    if (n == Arch::kFp) {
      out = c.fp;
      return c.fp_known ? SFU_STOP_NONE : SFU_STOP_REGISTER_UNKNOWN;
    }
    if (!c.topmost || n >= SFU_REGS_MAX) return SFU_STOP_REGISTER_UNKNOWN;
    if (const sfu_trap_layout *l = c.trap)
      return (l->saved >> n) & 1 ? read(c.trap_sp + uint64_t(int64_t(l->reg[n])), out) : SFU_STOP_REGISTER_UNKNOWN;
    if (!((c.start->valid >> n) & 1)) return SFU_STOP_REGISTER_UNKNOWN;
    out = c.start->r[n];
    return SFU_STOP_NONE;
  }
};

// What a step found: the caller's CFA, return address and (if known) frame pointer.
struct Caller {
  uint64_t cfa, ra, fp = 0;  // cfa and ra: set by every step that finds a caller
  bool fp_known = false;
  uint8_t source = SFU_SOURCE_TABLE;  // SFU_SOURCE_SIGNAL_FRAME: interrupted, not calling
};

// The value a rule gives: the CFA or a register, plus the offset (CFA_PLUS, REGISTER), or the word
// stored there (AT_CFA, AT_REGISTER). The decoder gives a CFA only register rules, computed in any
// frame from SP or FP; an RA or FP register rule holds only in the topmost frame: below it,
// registers are not tracked. Inline on s390x unless built for size (call_levels.h): as a call it
// puts a level, 168 bytes there, between a step and its reads.
template <class Arch>
SFU_S390X_INLINE sfu_stop rule_value(Walk<Arch> w, const sfu_rule &r, uint64_t cfa, uint64_t &out,
                                     bool any_frame = false) {
  uint64_t base = cfa;
  switch (r.kind) {
    case SFU_RULE_REGISTER:
      if (!any_frame && !w.c.topmost) return SFU_STOP_RA_NOT_RECOVERABLE;
      [[fallthrough]];
    case SFU_RULE_AT_REGISTER:
      if (sfu_stop s = w.reg(r.reg, base)) return s;
      break;
    case SFU_RULE_AT_CFA:
    case SFU_RULE_CFA_PLUS:
      break;
    default:
      return SFU_STOP_TABLE_ERROR;  // UNCHANGED and UNDEFINED are the callers' to handle
  }
  base += uint64_t(int64_t(r.offset));
  if (r.kind == SFU_RULE_AT_CFA || r.kind == SFU_RULE_AT_REGISTER) return w.read(base, out);
  out = base;
  return SFU_STOP_NONE;
}

// The return address: "unchanged" means still in the link register, which only the topmost
// frame may rely on (a lower frame's link register was overwritten by the call it made).
template <class Arch>
sfu_stop eval_ra(Walk<Arch> w, const sfu_rule &r, uint64_t cfa, uint64_t &ra) {
  if (r.kind == SFU_RULE_UNDEFINED) return SFU_STOP_END;
  if (r.kind != SFU_RULE_UNCHANGED) return rule_value(w, r, cfa, ra);
  if (Arch::kLinkRegister < 0) return SFU_STOP_RA_NOT_RECOVERABLE;
  static constexpr sfu_rule kInLinkRegister = {SFU_RULE_REGISTER, uint8_t(Arch::kLinkRegister), 0};
  return rule_value(w, kInLinkRegister, cfa, ra);
}

// In an epilogue, after `pop %rbp` or `leave`, gcc's rows still name the save slot, which is now
// below SP: an interrupt may already have overwritten it, and the register holds the restored
// value. A slot below SP is dead; the live register, if known, is the caller's FP.
bool fp_slot_dead(bool fp_known, uint64_t sp, uint64_t slot) { return slot < sp && fp_known; }

// The frame pointer: where it cannot be known the walk goes on without it (a caller further up
// may not need it); only a refused read stops the walk.
template <class Arch>
sfu_stop eval_fp(Walk<Arch> w, const sfu_rule &r, uint64_t cfa, Caller &out) {
  if (r.kind == SFU_RULE_UNCHANGED ||
      (r.kind == SFU_RULE_AT_CFA && fp_slot_dead(w.c.fp_known, w.c.sp, cfa + uint64_t(int64_t(r.offset))))) {
    out.fp_known = w.c.fp_known;
    out.fp = w.c.fp;
    return SFU_STOP_NONE;
  }
  if (r.kind == SFU_RULE_UNDEFINED) return SFU_STOP_NONE;
  sfu_stop s = rule_value(w, r, cfa, out.fp);
  out.fp_known = s == SFU_STOP_NONE;
  return s == SFU_STOP_READ_REFUSED ? s : SFU_STOP_NONE;
}

// The stack the walk is on: always a declared one (sfu_walk_start and check_cfa give no other
// index, and a step runs only after a good start).
inline const sfu_stack &walk_stack(const sfu_cursor &c) { return c.config->stacks[c.stack_index]; }

// Where the caller's frame must be: its SP in a declared stack, the same one higher up or one
// declared later (an interrupt stack hands over to the task stack, never back). Checked before
// anything is read relative to the CFA, so a corrupt CFA is named as such. The current stack is
// asked first: the outermost CFA at its top stays on it where an earlier-declared stack begins.
// Inline: every step checks a CFA (a call per step cost 8% of a cached step's instructions).
template <class Arch>
SFU_HOT_INLINE sfu_stop check_cfa(const sfu_cursor &c, uint64_t cfa, int &stack) {
  uint64_t caller_sp = cfa + uint64_t(Arch::kSpFromCfa);
  if (holds(walk_stack(c), caller_sp, 0)) {
    stack = c.stack_index;
    return caller_sp < c.sp || cfa < c.prev_cfa ? SFU_STOP_WRONG_DIRECTION : SFU_STOP_NONE;
  }
  stack = first_stack_holding(*c.config, caller_sp, 0);  // not the current one
  if (stack < 0) return SFU_STOP_CFA_OUTSIDE_STACK;
  return stack < c.stack_index ? SFU_STOP_STACK_ORDER : SFU_STOP_NONE;
}

// The rows compilers write for nearly every instruction (plain_rules, row_cache.h), with the FP
// known where the CFA is computed from it. They are applied without the general evaluators (rule
// kinds, register numbers); the reads, their order, the checks and the stops are the same.
template <class Arch>
[[gnu::always_inline]] inline bool plain_row(bool fp_known, const sfu_row &row) {
  return plain_rules(row, Arch::kSp, Arch::kFp) && (row.cfa.reg == Arch::kSp || fp_known);
}

template <class Arch>
sfu_stop from_plain_row(Walk<Arch> w, const sfu_row &row, Caller &out, int &stack) {
  const sfu_cursor &c = w.c;
  out.cfa = (row.cfa.reg == Arch::kSp ? c.sp : c.fp) + uint64_t(int64_t(row.cfa.offset));
  if (sfu_stop s = check_cfa<Arch>(c, out.cfa, stack)) return s;
  const sfu_stack &on = walk_stack(c);
  if (sfu_stop s = w.read_inline(on, out.cfa + uint64_t(int64_t(row.ra.offset)), out.ra)) return s;
  out.ra = Arch::strip_ra(out.ra, row.flags & SFU_ROW_RA_SIGNED, c.arm64_va_bits);
  uint64_t fp_slot = out.cfa + uint64_t(int64_t(row.fp.offset));
  if (row.fp.kind == SFU_RULE_UNCHANGED || fp_slot_dead(c.fp_known, c.sp, fp_slot)) {
    out.fp = c.fp;
    out.fp_known = c.fp_known;
    return SFU_STOP_NONE;
  }
  out.fp_known = true;
  return w.read_inline(on, fp_slot, out.fp);
}

template <class Arch>
sfu_stop from_row(Walk<Arch> w, const sfu_row &row, Caller &out, int &stack) {
  // Built for size, the general path takes plain rows too: the same reads, checks and stops.
  if (!config::kForSize && plain_row<Arch>(w.c.fp_known, row)) return from_plain_row(w, row, out, stack);
  if (row.flags & SFU_ROW_OUTERMOST) return SFU_STOP_END;
  if (sfu_stop s = rule_value(w, row.cfa, 0, out.cfa, true)) return s;  // no CFA yet: a register rule
  if (sfu_stop s = check_cfa<Arch>(w.c, out.cfa, stack)) return s;
  if (sfu_stop s = eval_ra<Arch>(w, row.ra, out.cfa, out.ra)) return s;
  out.ra = Arch::strip_ra(out.ra, row.flags & SFU_ROW_RA_SIGNED, w.c.arm64_va_bits);
  if (sfu_stop s = eval_fp<Arch>(w, row.fp, out.cfa, out)) return s;
  out.source = row.flags & SFU_ROW_SIGNAL_FRAME ? SFU_SOURCE_SIGNAL_FRAME : SFU_SOURCE_TABLE;
  return SFU_STOP_NONE;
}

// Where a stack ends: a CFA within kOutermostCfaSlack bytes of the top of its declared stack,
// the outermost frame's own few slots (kernels push a zero return address or a zero frame record
// there before their first call, or start with SP at the top).
constexpr uint64_t kOutermostCfaSlack = 32;

inline bool at_stack_top(const sfu_stack &s, uint64_t cfa) { return cfa + kOutermostCfaSlack >= s.hi; }

// Where no row covers the PC: one frame-record (x86_64, arm64) or back-chain (s390x) step, if
// configured. The frame is found, but not proven: the walk is marked unreliable from here on.
// The ABIs' end mark (FP 0, back chain 0) is a register or stack value like any other: it ends
// the walk cleanly only in a frame where a stack ends (its lowest possible CFA, SP on x86_64 and
// arm64, SP + 160 on s390x, at the top as at_stack_top says). Anywhere else the code no row
// covers keeps no frame record (FP or back chain used for something else, or cleared by entry
// code with frames above): the walk cannot go on, and says so (no-unwind-info).
template <class Arch>
sfu_stop fallback(Walk<Arch> w, Caller &out, int &stack) {
  const bool top = at_stack_top(walk_stack(w.c), w.c.sp - uint64_t(Arch::kSpFromCfa));
  if constexpr (Arch::kFrameRecords) {
    uint64_t fp = w.c.fp;
    if (!config::kFpFallback || !w.c.fp_known) return SFU_STOP_NO_UNWIND_INFO;
    if (fp == 0) return top ? SFU_STOP_END : SFU_STOP_NO_UNWIND_INFO;  // no frame record
    // The caller's SP is just above the record: exact on x86_64 (push %rbp; mov %rsp, %rbp), a
    // lower bound on arm64 where the record may sit below the rest of the frame. Either way the
    // frame is marked unreliable.
    out.cfa = fp + 16;
    if (sfu_stop s = check_cfa<Arch>(w.c, out.cfa, stack)) return s;
    if (sfu_stop s = w.read(fp, out.fp)) return s;
    if (sfu_stop s = w.read(fp + 8, out.ra)) return s;
    out.ra = Arch::strip_ra(out.ra, true, w.c.arm64_va_bits);
    out.source = SFU_SOURCE_FRAME_POINTER;
  } else {
    if (!config::kBackChainFallback) return SFU_STOP_NO_UNWIND_INFO;
    uint64_t sp = w.c.sp, chain;
    if (sfu_stop s = w.read(sp, chain)) return s;
    if (chain == 0) return top ? SFU_STOP_END : SFU_STOP_NO_UNWIND_INFO;  // no caller's frame
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
// of its declared stack (at_stack_top), however the step found it (a row, a frame record, whose
// CFA is the record's end, a back chain, a link register). Anywhere else a saved return address
// was overwritten: the stack is damaged and the trace stops unreliable. (A frame record of zeros,
// AAPCS64's final record, is no exception: away from the top it is a damaged stack too.)
sfu_stop zero_return_address(const sfu_walk_config &c, const Caller &caller, int stack) {
  return at_stack_top(c.stacks[stack], caller.cfa) ? SFU_STOP_END : SFU_STOP_ZERO_RETURN_ADDRESS;
}

const sfu_trap_entry *trap_for(const sfu_walk_config &c, uint64_t pc) {
  if (!c.traps) return nullptr;  // a count without the array names no entry code
  for (uint32_t i = 0; i < c.num_traps; i++)
    if (pc >= c.traps[i].start && pc < c.traps[i].end && c.traps[i].layout) return &c.traps[i];
  return nullptr;
}

// The module of the frame about to be shown, by the PC its rows are looked up with. A PC in no
// registered text (a caller without a table, a corrupted return address) is shown, but the walk
// ends at the next step and vouches for nothing from here on; entry code the config describes is
// crossed by its layout, not rows, so at its call to C it needs no table (stopped anywhere else in
// it, it is stepped like any code: step()).
[[gnu::noinline]] void enter_other_module(sfu_cursor &c, uint64_t lookup) {
  c.module = sfu_module_for_pc(lookup);
  if (!c.module && (c.exact_pc || !trap_for(*c.config, lookup))) c.reliable = 0;
}

// Most callers are in the module of their callee: its range is checked inline, the registry
// searched only when the PC leaves it.
SFU_HOT_INLINE void enter_module(sfu_cursor &c, uint64_t lookup) {
  const sfu_module *m = c.module;
  if (!m || lookup < m->table.text_start || lookup >= m->table.text_end) enter_other_module(c, lookup);
}

// Crossing entry code: the interrupted context's PC, SP and FP, from where the layout says the
// code saved them; its other registers are read from their slots if a rule of its frame needs
// one (Walk::reg, once step() has committed the layout). A refused read or a failed check stops
// the walk. A PC of 0 is given like any other (a call through a NULL pointer: step() walks on).
template <class Arch>
sfu_stop from_trap(Walk<Arch> w, const sfu_trap_layout &l, Caller &out, int &stack) {
  const sfu_cursor &c = w.c;
  uint64_t sp = c.sp;  // the entry frame's
  if (!((l.saved >> Arch::kSp) & 1)) return SFU_STOP_REGISTER_UNKNOWN;
  uint64_t new_sp;
  if (sfu_stop s = w.read(sp + uint64_t(int64_t(l.pc)), out.ra)) return s;
  if (sfu_stop s = w.read(sp + uint64_t(int64_t(l.reg[Arch::kSp])), new_sp)) return s;
  if ((l.saved >> Arch::kFp) & 1) {
    out.fp_known = true;
    if (sfu_stop s = w.read(sp + uint64_t(int64_t(l.reg[Arch::kFp])), out.fp)) return s;
  }
  // The interrupted SP must pass the same checks as a caller's; and entry code always pushes
  // something, so on the same stack it lies strictly above the entry frame.
  out.cfa = new_sp - uint64_t(Arch::kSpFromCfa);
  if (sfu_stop s = check_cfa<Arch>(c, out.cfa, stack)) return s;
  if (stack == c.stack_index && new_sp == sp) return SFU_STOP_WRONG_DIRECTION;
  out.source = SFU_SOURCE_TRAP_FRAME;
  return SFU_STOP_NONE;
}

// A cold walk (a panic, the first after boot) of a module with a block index waits for one
// bucket per frame, each a miss in memory, one after the other: a caller's bucket is known only
// once its return address is read. The return addresses are on the stack already: the words up
// to CONFIG_SFU_INDEX_PREFETCH bytes above SP that point into the module's text have their
// buckets prefetched when a step misses the row cache, and the misses overlap. Each word is
// scanned once a walk (scanned_to), only on the stack the walk is on, never with the kernel's
// hook (every read goes through it then); a prefetch cannot fault and changes nothing.
template <class Arch>
void prefetch_buckets(sfu_cursor &c, const sfu_module &m) {
  if (config::kIndexPrefetchBytes == 0) return;  // no load of the index either
  const uint8_t *index = __atomic_load_n(&m.table.index, __ATOMIC_ACQUIRE);
  if (!index || sfu_hook_read_nofault) return;
  const uint64_t hi = walk_stack(c).hi, sp = c.sp;
  uint64_t from = c.scanned_to > sp && c.scanned_to <= hi ? c.scanned_to : sp + (8 - sp % 8) % 8;
  if (from < sp) return;  // an SP in the last word of the address space
  const uint64_t to = hi - sp > config::kIndexPrefetchBytes ? sp + config::kIndexPrefetchBytes : hi;
  const uint64_t text_start = m.table.text_start, text_size = m.table.text_end - text_start;
  const bool big = Arch::big_endian(c.abi);
  for (; from < to && to - from >= 8; from += 8) {
    uint64_t at = load_stack_word(from, big) - 1 - text_start;
    if (at < text_size) __builtin_prefetch(sframe::index_bucket(index, at));
  }
  c.scanned_to = from;
}

// The caller of a frame in code (not entry code the config names): by the row that covers its
// lookup PC, or by the fallback where none does. Stops where the caller found cannot be right.
template <class Arch>
[[gnu::always_inline]] inline sfu_stop from_code(Walk<Arch> w, uint64_t lookup, Caller &caller, int &stack,
                                                 bool &guessed) {
  sfu_cursor &c = w.c;
  const sfu_module *m = c.module;  // found for this lookup PC when the frame was entered
  sfu_row row;
  sfu_error e = SFU_OK;
  if (!m) {
    // Outside all known text: nothing more to say, except of a topmost frame (the start
    // registers, or a trap frame's) stopped at address 0 (PC 0; on s390x also the old PSW just
    // past an instruction at 0). Nothing runs there: the CPU jumped to 0, nearly always by a
    // call through a NULL function pointer, and faulted before the callee did anything, so the
    // rule of a function's first instruction finds the caller (x86_64: the return address at
    // SP; arm64: x30; s390x: r14). The frame was shown unreliable (its PC is in no text), and
    // so is everything after it: a jump through NULL, not a call, leaves no return address of
    // its own, and this rule then finds the caller's caller.
    if (!Arch::at_address_zero(c.pc) || !c.topmost) return SFU_STOP_END;
    row = Arch::kEntryRow;
  } else if (cached_row(*m, lookup, row)) {
    count_hits(1);
  } else {
    count_miss();
    prefetch_buckets<Arch>(c, *m);  // the table is read: the buckets of the frames ahead too
    e = find_and_keep_row(*m, lookup, row);
  }
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
  guessed = e == SFU_OK && (row.flags & SFU_ROW_PCMASK) && m && sframe::is_v1(m->table.version);
  if (caller.ra == 0) return zero_return_address(*c.config, caller, stack);
  // A CFA equal to the last one is only allowed across a stack switch.
  if (stack == c.stack_index && caller.cfa == c.prev_cfa)
    return caller.ra == c.pc ? SFU_STOP_REPEATED_FRAME : SFU_STOP_WRONG_DIRECTION;
  return SFU_STOP_NONE;
}

// From the cursor's frame to its caller's; commits the caller into the cursor on success.
template <class Arch>
[[gnu::noinline]] sfu_stop step(sfu_cursor &c) {
  Walk<Arch> w{c};
  // A return address points after the call: the call itself is at pc - 1.
  const uint64_t lookup = c.exact_pc ? c.pc : c.pc - 1;
  // The layout holds where the entry code has called C, which only a return address into it
  // vouches for. Stopped inside it (the start registers, an NMI over the entry), its frame may be
  // half built or already popped: its rows decide, like any code's.
  const sfu_trap_entry *t = c.exact_pc ? nullptr : trap_for(*c.config, lookup);
  Caller caller;
  int stack;  // set with the CFA
  bool guessed = false;
  if (t) {
    if (sfu_stop s = from_trap<Arch>(w, *t->layout, caller, stack)) return s;
    c.trap = t->layout;
    c.trap_sp = c.sp;
  } else if (sfu_stop s = from_code<Arch>(w, lookup, caller, stack, guessed)) {
    return s;
  }
  // One commit for both. The interrupted context behind entry code is a new one: its first CFA
  // is checked against its SP only, it was stopped anywhere (RA and FP may still be in registers;
  // its PC, like a signal frame's caller's, is looked up as is), and its layout vouches for it as
  // rows do. Below the topmost frame only SP and FP are known: callee-saved registers are not
  // tracked.
  c.prev_cfa = t ? 0 : caller.cfa;
  c.pc = caller.ra;
  c.sp = caller.cfa + uint64_t(Arch::kSpFromCfa);
  c.fp = caller.fp;
  c.fp_known = caller.fp_known;
  c.stack_index = stack;
  c.topmost = t != nullptr;
  c.exact_pc = t || caller.source == SFU_SOURCE_SIGNAL_FRAME;
  enter_module(c, c.exact_pc ? caller.ra : caller.ra - 1);
  // A fallback's caller (a frame record, a back chain) is found, not proven; so is a guessed row's.
  if (caller.source == SFU_SOURCE_FRAME_POINTER || caller.source == SFU_SOURCE_BACK_CHAIN || guessed)
    c.reliable = 0;
  c.last_source = caller.source;
  return SFU_STOP_NONE;
}

// To the next frame (the first: the start registers' own); false once the walk has stopped.
template <class Arch>
[[gnu::always_inline]] inline bool advance(sfu_cursor &c) {
  if (c.stop != SFU_STOP_NONE) return false;
  if (c.frames >= c.max_frames) {
    c.stop = SFU_STOP_FRAME_CAP;
    return false;
  }
  if (c.frames > 0) {
    if (sfu_stop s = step<Arch>(c)) {
      c.stop = uint8_t(s);
      return false;
    }
  }
  c.frames++;
  return true;
}

// A run of the steps nearly every frame takes: the row's plain word in the cache (row_cache.h),
// the FP known, the caller on the same stack above this frame, its slots between SP and the
// stack's top. The walk's state stays in registers for the run and is stored into the cursor
// once, at its end. Each step makes the reads, checks and commits step() makes for such a row,
// and stops the walk where step() would; at the first frame that needs anything else (a miss,
// another rule, a stack switch, entry code, a slot below SP) the run ends before that frame and
// step() takes it. Every check that needs no read comes first, so a word is read once, by the
// run or by step(), never both: with the kernel's hook the reads go through it, in step()'s
// order. Not inline: a call level of its own, beside step()'s, not on top of it (the stack a
// walk needs). Returns how many frames n counts after the run.
template <class Arch>
[[gnu::noinline]] size_t plain_run(sfu_cursor &c, uint64_t *pcs, size_t n, size_t max) {
  const sfu_module *m = c.module;
  if (n >= max || c.stop != SFU_STOP_NONE || !m || c.frames >= c.max_frames || !c.fp_known) return n;
  // A plain word names SP and FP by the table's ABI (remember_row): a host build may walk a table
  // as another ABI's, whose registers those numbers are not.
  if (m->table.abi != c.abi) return n;
  // A plain row leaves the FP known, and the previous CFA is where the SP came from (step() sets
  // both so; a walk's first step and the first after entry code have none yet): the checks
  // "CFA above the last" and "caller's SP not below this SP" become one on the SP, below.
  constexpr uint64_t kSpFromCfa = uint64_t(Arch::kSpFromCfa);
  if (c.prev_cfa != 0 && c.prev_cfa + kSpFromCfa != c.sp) return n;
  const sfu_walk_config &cfg = *c.config;
  // Copies, not references: the stores into pcs could alias anything the compiler would reload.
  // The current SP is on the stack the walk is on (a step commits no other), so an address from
  // it up to the stack's top is on it too.
  const uint64_t hi = walk_stack(c).hi;
  const uint64_t serial = module_serial(*m);  // 0: unregistered since the walk found it, no rows kept
  if (serial == 0) return n;
  const uint64_t text_start = m->table.text_start, text_size = m->table.text_end - text_start;
  uint64_t lookup = c.exact_pc ? c.pc : c.pc - 1;
  if (lookup - text_start >= text_size || hi < 8) return n;
  // The entry code the config names, as one range: a PC inside it ends the run, and step()
  // decides whether it is entry code. Without the hook the loop makes no call (the module of a
  // return address outside this one's text is found after it), so its state stays in registers.
  uint64_t trap_lo = ~uint64_t(0), trap_hi = 0;
  for (uint32_t i = 0; cfg.traps && i < cfg.num_traps; i++) {
    trap_lo = cfg.traps[i].start < trap_lo ? cfg.traps[i].start : trap_lo;
    trap_hi = cfg.traps[i].end > trap_hi ? cfg.traps[i].end : trap_hi;
  }
  const uint64_t trap_span = trap_hi > trap_lo ? trap_hi - trap_lo : 0;
  const bool big = Arch::big_endian(c.abi);
  const uint8_t va_bits = c.arm64_va_bits;
  const bool hook = sfu_hook_read_nofault;
  uint64_t sp = c.sp, fp = c.fp;
  sfu_stop stop = SFU_STOP_NONE;
  // Frames this run may give: the caller's array and the walk's cap, whichever ends first.
  size_t left = max - n < size_t(c.max_frames - c.frames) ? max - n : size_t(c.max_frames - c.frames);
  const size_t room = left;
  uint64_t *out = pcs ? pcs + n : nullptr;
  for (; left; left--) {
    if (lookup - trap_lo < trap_span) break;
    uint64_t w = cached_plain_word(serial, lookup);
    if (!(w & kPlainRow)) break;
    uint64_t base = (w & kPlainCfaOnFp) ? fp : sp;
    uint64_t cfa = base + uint64_t(plain_cfa_offset(w));
    uint64_t caller_sp = cfa + kSpFromCfa;
    // step() stops where the caller's SP is below this SP or the CFA not above the last one (a
    // CFA of 0 is not above a first step's "none"); here, both are the SP not rising.
    if (caller_sp <= sp || cfa == 0 || caller_sp > hi) break;
    uint64_t ra_at = base + uint64_t(plain_ra_offset(w));
    if (ra_at % 8 != 0 || ra_at < sp || ra_at > hi - 8) break;
    uint64_t fp_at = cfa + uint64_t(plain_fp_offset(w));
    bool fp_read = (w & kPlainFpSaved) && fp_at >= sp;  // a slot below SP is dead (fp_slot_dead)
    if (fp_read && (fp_at % 8 != 0 || fp_at > hi - 8)) break;
    uint64_t ra, caller_fp = fp;
    if (hook) [[unlikely]] {
      if (!read_word(cfg, ra_at, big, ra, c.stack_index) ||
          (fp_read && !read_word(cfg, fp_at, big, caller_fp, c.stack_index))) {
        stop = SFU_STOP_READ_REFUSED;
        break;
      }
    } else {
      ra = load_stack_word(ra_at, big);
      if (fp_read) caller_fp = load_stack_word(fp_at, big);
    }
    ra = Arch::strip_ra(ra, w & kPlainRaSigned, va_bits);
    if (ra == 0) {
      Caller caller;
      caller.cfa = cfa;
      stop = zero_return_address(cfg, caller, c.stack_index);
      break;
    }
    fp = caller_fp;
    sp = caller_sp;
    lookup = ra - 1;
    if (out) *out++ = ra;
    if (lookup - text_start >= text_size) {  // its module is found below
      left--;
      break;
    }
  }
  count_hits(room - left + (stop != SFU_STOP_NONE));  // a stop comes after its row was found too
  if (left != room) {
    n += room - left;
    c.pc = lookup + 1;
    c.sp = sp;
    c.fp = fp;
    c.prev_cfa = sp - kSpFromCfa;
    c.frames += uint32_t(room - left);
    c.topmost = 0;
    c.exact_pc = 0;
    c.last_source = SFU_SOURCE_TABLE;
    if (lookup - text_start >= text_size) enter_other_module(c, lookup);
  }
  c.stop = uint8_t(stop);
  return n;
}

// Up to max frames, each one's PC stored in pcs if given; how many. One loop per architecture:
// runs of plain steps (plain_run), step() for every other frame, so a backtrace makes no choice
// of architecture per frame and no call per plain one.
template <class Arch>
[[gnu::always_inline]] inline size_t advance_frames(sfu_cursor &c, uint64_t *pcs, size_t max) {
  size_t n = 0;
  while (n < max) {
    if (config::kRowCacheEntries && c.frames > 0)  // the runs read only the cache
      n = plain_run<Arch>(c, pcs, n, max);
    if (n >= max || !advance<Arch>(c)) break;
    if (pcs) pcs[n] = c.pc;
    n++;
  }
  return n;
}

[[gnu::always_inline]] inline size_t advance_for_abi(sfu_cursor &c, uint64_t *pcs, size_t max) {
  // A target build serves its own ABI only: sfu_walk_start stopped a cursor of any other, and a
  // stopped walk gives no frame (advance), so its ABI needs no test.
  switch (SFU_BUILD_ABI != 0 ? uint8_t(SFU_BUILD_ABI) : c.abi) {
#if SFU_BUILDS_X86_64
    case SFU_ABI_AMD64_LE:
      return advance_frames<arch::X86_64>(c, pcs, max);
#endif
#if SFU_BUILDS_ARM64
    case SFU_ABI_AARCH64_LE:
    case SFU_ABI_AARCH64_BE:
      return advance_frames<arch::Arm64>(c, pcs, max);
#endif
#if SFU_BUILDS_S390X
    case SFU_ABI_S390X_BE:
      return advance_frames<arch::S390x>(c, pcs, max);
#endif
    default:  // sfu_walk_start stopped such a walk already
      if (c.stop == SFU_STOP_NONE) c.stop = SFU_STOP_BAD_START;
      return 0;
  }
}

}  // namespace
}  // namespace sfu::unwind

using namespace sfu::unwind;

extern "C" const char *sfu_stop_name(enum sfu_stop stop) {
  const unsigned i = unsigned(stop) < unsigned(SFU_STOP_COUNT) ? unsigned(stop) : unsigned(SFU_STOP_COUNT);
  if constexpr (!sfu::config::kNames) {
    static constexpr sfu::Codes<SFU_STOP_COUNT> codes = sfu::make_codes<SFU_STOP_COUNT>('S');
    return codes.code[i];
  } else {
    static const char names[] =
#define SFU_STOP_NAME(name, text) text "\0"
        SFU_STOPS(SFU_STOP_NAME)
#undef SFU_STOP_NAME
        "unknown-stop";
    return sfu::nth_name(names, i);
  }
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
  c->config = config;
  c->start = regs;
  c->trap = nullptr;
  c->trap_sp = 0;
  c->scanned_to = 0;
  c->max_frames = config && config->max_frames ? config->max_frames : CONFIG_SFU_MAX_FRAMES;
  c->abi = config && config->abi ? config->abi : uint8_t(SFU_BUILD_ABI);
  c->arm64_va_bits = config && config->arm64_va_bits ? config->arm64_va_bits : uint8_t(CONFIG_SFU_ARM64_VA_BITS);
  // No stacks: no SP can be in one. A count without the array is refused here, so the walk
  // never indexes it.
  if (!regs || !config || !config->stacks) {
    c->stop = SFU_STOP_BAD_START;
    return;
  }
  uint8_t sp_reg = sfu::sframe::abi_sp_reg(c->abi), fp_reg = sfu::sframe::abi_fp_reg(c->abi);
  c->pc = regs->pc;
  c->sp = regs->r[sp_reg];
  c->fp_known = (regs->valid >> fp_reg) & 1;
  c->fp = c->fp_known ? regs->r[fp_reg] : 0;
  if (!sfu::sframe::abi_served(c->abi)) {
    c->stop = SFU_STOP_BAD_START;
    return;
  }
  // The PAC strip mask is 1 << va_bits: a size arm64 does not have is refused, never shifted.
  uint8_t va_bits = c->arm64_va_bits;
  if (sfu::sframe::abi_aarch64(c->abi) && (va_bits < kArm64VaBitsMin || va_bits > kArm64VaBitsMax)) {
    c->stop = SFU_STOP_BAD_START;
    return;
  }
  enter_module(*c, regs->pc);
  c->stack_index = ((regs->valid >> sp_reg) & 1) ? stack_holding(*config, regs->r[sp_reg], 0) : -1;
  if (c->stack_index < 0) c->stop = SFU_STOP_BAD_START;
}

bool sfu::unwind::next_frame(sfu_cursor &c) { return advance_for_abi(c, nullptr, 1) != 0; }

extern "C" int sfu_walk_next(struct sfu_cursor *c, struct sfu_frame *frame) {
  if (!c || !frame || !next_frame(*c)) return 0;
  frame_of(*c, *frame);
  return 1;
}

extern "C" enum sfu_stop sfu_walk_stop(const struct sfu_cursor *c) {
  return c ? sfu_stop(c->stop) : SFU_STOP_BAD_START;
}

extern "C" size_t sfu_backtrace(const struct sfu_regs *regs, const struct sfu_walk_config *config,
                                uint64_t *pcs, size_t max, enum sfu_stop *why) {
  sfu_cursor c;
  sfu_walk_start(&c, regs, config);
  size_t n = advance_for_abi(c, pcs, max);
  if (why) *why = sfu_walk_stop(&c);
  return n;
}
