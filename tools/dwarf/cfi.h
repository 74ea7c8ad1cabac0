// DWARF call frame information (.eh_frame, .debug_frame) read into rows of rules: for every
// FDE, the CFA rule and the register rules at each address range, after running the CIE's
// initial instructions and the FDE's instructions. Host code; used by `sfu gen` and `sfu verify`.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sfu::tools::cfi {

// How the CFA is computed: register + offset, or a DWARF expression (DW_CFA_def_cfa_expression).
struct CfaRule {
  enum Kind : uint8_t { kRegOffset, kExpression } kind = kRegOffset;
  uint32_t reg = 0;
  int64_t offset = 0;
  std::vector<uint8_t> expr;  // kExpression: the expression's bytes
  bool operator==(const CfaRule &) const = default;
};

// One register's rule (DWARF 5, 6.4.1). Registers with no rule are absent from Row::regs
// ("unspecified"; by convention callee-saved registers then keep their value).
struct RegRule {
  enum Kind : uint8_t {
    kSameValue,      // DW_CFA_same_value
    kUndefined,      // DW_CFA_undefined
    kOffset,         // saved at CFA + value
    kValOffset,      // is CFA + value
    kRegister,       // is in register `value`
    kExpression,     // saved at the address the expression computes
    kValExpression,  // is the value the expression computes
  } kind = kSameValue;
  int64_t value = 0;          // offset (data-alignment factor applied) or register number
  std::vector<uint8_t> expr;  // the expression kinds
  bool operator==(const RegRule &) const = default;
};

using RuleMap = std::map<uint32_t, RegRule>;

// The register rules of a row: an immutable map, shared by every row with the same rules. The
// reader keeps each distinct set once, so a row costs its own fields, not a copy of every rule
// (real CFI repeats a few sets over and over: libLLVM-15's 888,000 rows hold 3.3 million rules,
// all of them in 12 sets). Reads like a const std::map; assigned from one.
class RuleSet {
 public:
  using const_iterator = RuleMap::const_iterator;
  using iterator = const_iterator;
  using value_type = RuleMap::value_type;
  using key_type = RuleMap::key_type;
  using mapped_type = RuleMap::mapped_type;

  RuleSet() = default;
  RuleSet(RuleMap rules) : rules_(std::make_shared<const RuleMap>(std::move(rules))) {}  // NOLINT: implicit
  explicit RuleSet(std::shared_ptr<const RuleMap> shared) : rules_(std::move(shared)) {}

  const RuleMap &map() const { return rules_ ? *rules_ : no_rules(); }
  const_iterator begin() const { return map().begin(); }
  const_iterator end() const { return map().end(); }
  const_iterator find(uint32_t reg) const { return map().find(reg); }
  size_t count(uint32_t reg) const { return map().count(reg); }
  size_t size() const { return map().size(); }
  bool empty() const { return map().empty(); }
  bool operator==(const RuleSet &o) const { return rules_ == o.rules_ || map() == o.map(); }
  bool operator==(const RuleMap &o) const { return map() == o; }

 private:
  static const RuleMap &no_rules() {
    static const RuleMap none;
    return none;
  }
  std::shared_ptr<const RuleMap> rules_;
};

// The rules from `start` (inclusive) to `end` (exclusive).
struct Row {
  uint64_t start = 0, end = 0;
  CfaRule cfa;
  RuleSet regs;
  bool ra_signed = false;  // AArch64: DW_CFA_AARCH64_negate_ra_state toggled an odd number of times
  uint64_t args_size = 0;  // DW_CFA_GNU_args_size (has no effect on the CFA; kept for completeness)

  // The rule of register `reg`, or nullptr when it has none (unspecified).
  const RegRule *rule(uint32_t reg) const {
    auto it = regs.find(reg);
    return it == regs.end() ? nullptr : &it->second;
  }
};

// One instruction's effect on the rules, for tools that translate CFI instruction by instruction
// rather than row by row (Breakpad's STACK CFI records follow the instructions). Kept only when
// Section::keep_events asks.
struct RuleEvent {
  enum Kind : uint8_t {
    kCfa,           // the CFA rule was set (def_cfa*, def_cfa_register, def_cfa_offset*, def_cfa_expression)
    kRegister,      // register `reg` was given a rule, or restored (has_rule false: none is left)
    kRemember,      // DW_CFA_remember_state
    kRestoreState,  // DW_CFA_restore_state
  } kind = kCfa;
  uint64_t address = 0;   // where it takes effect (the FDE start for the CIE's instructions)
  uint32_t reg = 0;
  bool has_rule = true;
  RegRule rule;           // kRegister: the register's rule after the instruction
  CfaRule cfa;            // kCfa: the CFA rule after it
};

struct Fde {
  uint64_t offset = 0;       // of the FDE in its section
  uint64_t start = 0, end = 0;
  uint32_t ra_reg = 0;       // the CIE's return address column
  bool signal_frame = false;  // augmentation 'S'
  bool pauth_key_b = false;   // augmentation 'B' (AArch64: RA signed with the B key)
  std::vector<Row> rows;      // in address order, covering [start, end) without gaps
  std::vector<RuleEvent> events;  // with Section::keep_events: the CIE's initial instructions'
                                  // effects, then the FDE's, in program order
};

// Every refusal read_cfi can give, as X(identifier, "name"). The offset in Error points at the
// field that is wrong (an opcode, an operand, an encoding byte, an augmentation letter), or at the
// record when the record as a whole is (its length, a range that wraps).
#define CFI_ERRORS(X)                                                                           \
  X(kTruncated, "truncated")                       /* a field or record passes its end */      \
  X(kBadLength, "bad-length")                      /* reserved length, or too short for an id */ \
  X(kBadCiePointer, "bad-cie-pointer")             /* lands on no record start */              \
  X(kCieIsFde, "cie-is-fde")                       /* lands on an FDE */                       \
  X(kBadCieVersion, "bad-cie-version")                                                         \
  X(kBadAugmentation, "bad-augmentation")          /* unknown, and no 'z' to skip it by */     \
  X(kBadPointerEncoding, "bad-pointer-encoding")   /* DW_EH_PE_* value not allowed there */     \
  X(kUnsupportedPointerBase, "unsupported-pointer-base") /* textrel, datarel: no base known */  \
  X(kBadAddressSize, "bad-address-size")           /* also a non-zero segment selector size */ \
  X(kUnknownCfaOpcode, "unknown-cfa-opcode")                                                   \
  X(kRestoreStateEmpty, "restore-state-empty")                                                 \
  X(kRememberStateTooDeep, "remember-state-too-deep") /* more than kMaxStateDepth */           \
  X(kAdvanceOutOfRange, "advance-out-of-range")    /* backwards, past the FDE end, in a CIE */ \
  X(kLeb128TooLong, "leb128-too-long")             /* more than 64 bits */                     \
  X(kBadRegister, "bad-register")                  /* number >= kRegisterLimit */              \
  X(kOffsetOverflow, "offset-overflow")            /* factored offset does not fit int64_t */  \
  X(kExpressionOutOfBounds, "expression-out-of-bounds")                                        \
  X(kFdeRangeOverflow, "fde-range-overflow")       /* start + length wraps the address space */ \
  X(kTooManyRules, "too-many-rules")               /* rows past a memory budget (hostile) */

enum class ErrorCode : uint8_t {
#define SFU_CFI_ENUM(id, name) id,
  CFI_ERRORS(SFU_CFI_ENUM)
#undef SFU_CFI_ENUM
};

inline constexpr const char *kErrorNames[] = {
#define SFU_CFI_NAME(id, name) name,
    CFI_ERRORS(SFU_CFI_NAME)
#undef SFU_CFI_NAME
};

inline const char *error_name(ErrorCode code) { return kErrorNames[static_cast<unsigned>(code)]; }

// Limits against hostile input: DWARF register numbers in use stay far below the first, and
// compilers nest DW_CFA_remember_state a few levels at most.
inline constexpr uint32_t kRegisterLimit = 1024;
inline constexpr unsigned kMaxStateDepth = 64;

// The reader's budgets, per section, against CFI crafted to cost memory or time out of
// proportion to its size; too-many-rules past either, at the instruction (or record) where it
// is passed, so neither is passed by more than one rule set (at most kRegisterLimit rules).
//
// Memory: what the FDEs, rows, rule sets, CIEs and events read hold, in bytes, at most
// kMemoryBase + kMemoryPerByte per section byte. Counted: sizeof(Fde) an FDE, sizeof(Row) a
// row (a growth of an FDE's rows counted whole, old and new buffer, until the FDE ends), a CIE
// kCieBytes, each distinct rule set kSetBytes, a rule kRuleBytes, an expression its bytes and
// kHeapHeader, an event sizeof(RuleEvent). Real CFI holds 12 to 23 bytes per byte (libLLVM's
// 5 MB .eh_frame 16.5, qemu-system-aarch64's 17.9, the arm64 test kernels 23); a row per 2 bytes
// (the most an AArch64 FDE can ask for) about 44. Kept with its events (Section::keep_events,
// Breakpad's reading) it holds 39 to 50, so the budget is kEventMemoryPerByte per byte larger.
//
// Work: rules copied, hashed and compared, at most 2^kWorkBaseLog2 + kWorkPerByte per section
// byte; a set of rules costs a unit per rule and per 8 bytes of expression (its size, below).
// An FDE's start copies its CIE's rules and CFA (1 + size); DW_CFA_remember_state copies them
// (1 + size); a row is compared with the last (1 + size), and rules not the last row's are
// hashed (size), compared with each kept set of the same hash (size each) and, when new, copied
// (size); an event costs 1. Real CFI does 0.5 to 1.5 per byte.
inline constexpr uint64_t kMemoryBase = uint64_t(64) << 20, kMemoryPerByte = 48, kEventMemoryPerByte = 64;
inline constexpr unsigned kWorkBaseLog2 = 24;
inline constexpr uint64_t kWorkPerByte = 8;
inline constexpr uint64_t kHeapHeader = 16, kRuleBytes = sizeof(RuleMap::value_type) + 48,
                          kSetBytes = sizeof(RuleMap) + 64, kCieBytes = 512;

// What one read counted (read_cfi's `usage`): the most memory it held at a check, the work it
// did, and the limits it had.
struct Usage {
  uint64_t memory_peak = 0, work = 0;
  uint64_t memory_limit = 0, work_limit = 0;
};

// A refusal: a name from CFI_ERRORS, where in the section it was found, and a detail.
struct Error {
  std::string name;    // e.g. "unknown-cfa-opcode"
  uint64_t offset = 0; // section offset of the offending byte or record
  std::string detail;  // e.g. "opcode 0x3f"
};

struct Section {
  const uint8_t *bytes = nullptr;
  uint64_t size = 0;
  uint64_t addr = 0;         // sh_addr (the base of pc-relative pointers in .eh_frame)
  bool eh_frame = true;      // false: .debug_frame layout (CIE id 0xffffffff, absolute addresses)
  bool big_endian = false;
  uint16_t machine = 0;      // e_machine: decides what vendor opcodes mean (0x2d on AArch64)
  uint8_t address_size = 8;
  bool keep_events = false;         // fill Fde::events
  bool stop_at_terminator = false;  // .eh_frame: read nothing after the first zero length word, as
                                    // libgcc and Breakpad do (by default it is skipped like padding)
  // The budgets (above): 0 for the defaults from the section's size; tests give others.
  uint64_t memory_budget = 0, work_budget = 0;
};

// Reads every FDE of the section into `out` (cleared first; in section order). On malformed
// input returns false, sets `err` and leaves `out` holding the FDEs read before it.
// Zero length words (.eh_frame's terminator) are skipped wherever they appear. In .debug_frame
// an FDE starting at all ones (lld's tombstone for a discarded function) is left out. With
// `usage`, says what the read counted against its budgets (also when it fails).
bool read_cfi(const Section &section, std::vector<Fde> &out, Error &err, Usage *usage = nullptr);

// A DWARF expression of the one shape SFrame can say: DW_OP_bregN offset, optionally followed
// by DW_OP_deref. Returns false for anything else.
bool simple_expression(const std::vector<uint8_t> &expr, uint32_t &reg, int64_t &offset, bool &deref);

}  // namespace sfu::tools::cfi
