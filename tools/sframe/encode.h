// SFrame writer: functions with their rows (in the decoder's own terms, `sfu_row`) encoded as an
// .sframe section of version 1, 2 or 3 for one ABI. The inverse of src/sframe/rules.cpp: what
// this writes, sfu_table_find reads back as the same rules. Host code; used by `sfu gen`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sfu/sframe.h"

namespace sfu::tools {

struct EncodeFunction {
  uint64_t start = 0;       // absolute address
  uint32_t size = 0;
  bool signal = false;      // V3 signal-frame bit (refused by V1/V2: see encode_refusal)
  bool pauth_key_b = false;  // AArch64 B key
  // 0: rows by offset in the function (PCINC). Else a repeating block (PCMASK, PLT-like): rows
  // by (pc - start) % repeat, every row_start below repeat; V2 and V3 only (repeat_refusal).
  uint8_t repeat = 0;
  // Rows in increasing row_start order, the first at 0. Each row uses cfa/ra/fp and, of the
  // flags, SFU_ROW_RA_SIGNED and SFU_ROW_OUTERMOST only; func_start/func_size are ignored.
  // An outermost row is CFA UNDEFINED, RA UNDEFINED, FP UNCHANGED (what the decoder reads back);
  // on AArch64 it may be RA_SIGNED. Fields a rule kind does not use are ignored: reg outside the
  // REGISTER kinds, offset of UNCHANGED and UNDEFINED.
  std::vector<sfu_row> rows;
};

struct EncodeOptions {
  uint8_t version = 2;           // 1, 2 or 3
  uint8_t abi = SFU_ABI_AMD64_LE;
  uint64_t section_addr = 0;     // where the section will be loaded (base of PC-relative starts)
};

// Why `row` of a function (`signal` as in EncodeFunction) cannot be written in this version and
// ABI, as one short phrase ("CFA based on r10 needs V3"); nullptr if it can.
const char *encode_refusal(const EncodeOptions &opt, const sfu_row &row, bool signal);

// Why a function of repeating `repeat`-byte blocks cannot be written in this version ("...
// needs V2"); nullptr if it can (and for 0, no repeat).
const char *repeat_refusal(const EncodeOptions &opt, uint8_t repeat);

// Encodes the functions (any order; the table is written sorted). Every row must be writable
// (encode_refusal is nullptr). On failure returns false and sets `error`.
bool encode_sframe(const EncodeOptions &opt, const std::vector<EncodeFunction> &functions,
                   std::vector<uint8_t> &out, std::string &error);

}  // namespace sfu::tools
