// A CFA that DWARF computes from the PC, as linkers describe PLT entries: evaluated at one PC,
// for `sfu verify` (checking PLT-like rows at every address) and `sfu gen` (writing them).
#pragma once

#include <cstdint>
#include <vector>

namespace sfu::tools {

// A CFA expression evaluated at `pc` (the PC register: rip 16 on AMD64, 32 on AArch64), when its
// value is one register plus an offset there, as the .plt's standard expression is
// (rsp + 8 + ((rip & 15) >= 11) << 3). Literals, arithmetic, comparisons and register reads only:
// false for memory loads, branches, or a value that is not register + offset.
bool cfa_expression_at(const std::vector<uint8_t> &expr, uint8_t abi, uint64_t pc, uint32_t &reg,
                       int64_t &offset);

}  // namespace sfu::tools
