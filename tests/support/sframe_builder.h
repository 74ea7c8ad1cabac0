// Test helper: encodes SFrame V1/V2/V3 sections from a plain description, in the byte order of
// the ABI, so tests can build exactly the table a case needs and then damage one field of it.
#pragma once

#include <stdint.h>

#include <vector>

namespace sfu::test {

struct FreSpec {
  uint32_t start = 0;              // offset from the function start
  std::vector<int32_t> words;      // data words (flex control words too), in order
  bool base_sp = true;             // CFA base register bit (1 = SP)
  bool ra_signed = false;          // FRE info bit 7
  int word_size = 0;               // 1, 2 or 4 bytes; 0 = smallest that holds every word
};

struct FdeSpec {
  uint64_t start = 0;  // absolute function address
  uint32_t size = 0;
  int fre_type = -1;   // 0/1/2 (1/2/4-byte row starts); -1 = smallest that holds every start
  bool pcmask = false;
  uint8_t rep_size = 0;
  bool pauth_key_b = false;
  bool signal = false;  // V3
  bool flex = false;    // V3
  std::vector<FreSpec> fres;
};

struct TableSpec {
  uint8_t version = 3;
  uint8_t abi = 3;       // SFU_ABI_*
  int flags = -1;        // -1: sorted, plus PCREL for V3
  int8_t fixed_fp = 0;
  int8_t fixed_ra = -8;  // AMD64's; set 0 for the other ABIs
  uint8_t auxhdr_len = 0;
  uint64_t section_addr = 0x10000;
  std::vector<FdeSpec> fdes;
};

// Where things landed, so a test can patch one field.
struct Layout {
  uint32_t fdes_at = 0;             // section offset of the FDE array
  uint32_t fres_at = 0;             // section offset of the FRE sub-section
  uint32_t fde_size = 0;
  std::vector<uint32_t> chain_at;   // per FDE: section offset of its FRE data (V3: attributes)
  std::vector<uint32_t> fre_at;     // every FRE, in order: section offset
};

std::vector<uint8_t> build_section(const TableSpec &spec, Layout *layout = nullptr);

// Stores v in n bytes at off, in the byte order of the section (its magic says which).
void patch(std::vector<uint8_t> &sec, uint32_t off, uint64_t v, int n);

// One function with its rows, and a table of such functions: the header fields a producer for
// that ABI would write (AMD64's fixed RA offset), loaded at 0x200000.
FdeSpec fde_spec(uint64_t start, uint32_t size, std::vector<FreSpec> rows, bool signal = false);
TableSpec table_spec(uint8_t version, uint8_t abi, std::vector<FdeSpec> fdes);

// A small valid table for each ABI and version: two functions, a few rows each.
TableSpec sample_table(uint8_t version, uint8_t abi);

}  // namespace sfu::test
