#include "support/crash_machines.h"

#include "sframe/format.h"
#include "support/sframe_builder.h"
#include "support/symbols_builder.h"

namespace sfu::test {
namespace {

constexpr uint64_t kStackLo = 0x7000, kStackHi = 0x8000;

void put32(std::vector<uint8_t> &b, uint32_t v, bool big) {
  for (int i = 0; i < 4; i++) b.push_back(uint8_t(v >> (big ? 8 * (3 - i) : 8 * i)));
}

}  // namespace

const std::vector<uint8_t> kCrashBuildId = {0x5a, 0x1f, 0x00, 0x9c, 0x42, 0xe7, 0x13, 0x88, 0x6d, 0x01,
                                            0xb4, 0x7e, 0x20, 0xc3, 0x99, 0x0a, 0x55, 0xf0, 0x3b, 0x61};

std::vector<uint8_t> gnu_build_id_note(bool big_endian, const std::vector<uint8_t> &id) {
  std::vector<uint8_t> n;
  put32(n, 4, big_endian);                 // namesz: "GNU\0"
  put32(n, uint32_t(id.size()), big_endian);
  put32(n, 3, big_endian);                 // NT_GNU_BUILD_ID
  for (char c : {'G', 'N', 'U', '\0'}) n.push_back(uint8_t(c));
  n.insert(n.end(), id.begin(), id.end());
  while (n.size() % 4) n.push_back(0);
  return n;
}

CrashMachine crash_machine(uint8_t abi, const CrashModuleOptions &options) {
  CrashMachine m;
  m.abi = abi;
  bool big = sframe::abi_big_endian(abi);
  m.mem = std::make_unique<FakeMemory>(big);
  m.mem->add_stack(kStackLo, kStackHi);
  TableSpec spec;
  const uint64_t kText = options.text, outer = kText, mid = kText + 0x100, leaf = kText + 0x300;
  if (abi == SFU_ABI_AMD64_LE) {
    // leaf after push %rbp <- mid (rbp-based frame) <- outer, returned to in its outermost row.
    spec = table_spec(3, abi,
                      {fde_spec(outer, 0x40, {{0, {8}}, {4, {40}}, {0x20, {}}}),
                       fde_spec(mid, 0x40, {{0, {8}}, {1, {16, -16}}, {4, {16, -16}, false}}),
                       fde_spec(leaf, 0x20, {{0, {8}}, {1, {16, -16}}})});
    m.mem->put(0x7f08, mid + 0x20);  // leaf: CFA = rsp + 16; RA at CFA - 8
    m.mem->put(0x7f00, 0x7fa0);      // leaf: saved rbp
    m.mem->put(0x7fa8, outer + 0x30);  // mid: CFA = rbp + 16
    m.start = regs_with(leaf + 0x10, {{SFU_X86_64_RSP, 0x7f00}, {SFU_X86_64_RBP, 0x7fa0}});
    m.pcs = {leaf + 0x10, mid + 0x20, outer + 0x30};
  } else if (abi == SFU_ABI_S390X_BE) {
    // leaf, RA still in r14 <- mid (RA and FP saved; CFA = sp + 320) <- outer (outermost row).
    spec = table_spec(2, abi,
                      {fde_spec(outer, 0x40, {{0, {0}}, {0x20, {}}}), fde_spec(mid, 0x40, {{0, {0}}, {6, {20, -48, -72}}}),
                       fde_spec(leaf, 0x10, {{0, {0}}})});
    m.mem->put(0x7d10, outer + 0x24);  // mid: CFA = 0x7c00 + 320; RA at CFA - 48
    m.mem->put(0x7cf8, 0x7e00);        // mid: FP at CFA - 72
    m.start = regs_with(leaf + 4, {{SFU_S390X_SP, 0x7c00}, {SFU_S390X_FP, 0x7c80}, {SFU_S390X_RA, mid + 0x10}});
    m.pcs = {leaf + 4, mid + 0x10, outer + 0x24};
  } else {
    // arm64: leaf, RA still in x30 <- mid (frame record) <- outer (outermost row).
    spec = table_spec(3, abi,
                      {fde_spec(outer, 0x40, {{0, {0}}, {4, {16, -8, -16}}, {0x20, {}}}),
                       fde_spec(mid, 0x40, {{0, {0}}, {4, {32, -24, -32}}}), fde_spec(leaf, 0x10, {{0, {0}}})});
    m.mem->put(0x7f08, outer + 0x24);  // mid: CFA = sp + 32; RA at CFA - 24
    m.mem->put(0x7f00, 0x7f40);        // mid: FP at CFA - 32
    m.start = regs_with(leaf + 4, {{SFU_ARM64_SP, 0x7f00}, {SFU_ARM64_FP, 0x7f00}, {SFU_ARM64_LR, mid + 0x14}});
    m.pcs = {leaf + 4, mid + 0x14, outer + 0x24};
  }
  ModuleExtras extras;
  if (!options.build_id.empty()) extras.build_id_note = gnu_build_id_note(big, options.build_id);
  if (options.names) {
    RawSymbols names = plain_symbols({{0, 0x40, codes("outer")}, {0x100, 0x40, codes("mid")}, {0x300, 0x20, codes("leaf")}});
    names.big = big;
    extras.symbols = build_symbols(names);
    extras.symbols_addr = kText;
  }
  spec.section_addr = kText + 0x100000;  // where table_spec puts it for the default text
  m.spec = spec;
  m.reg = std::make_unique<Registered>(spec, kText, kText + kCrashTextSize, "kernel", std::move(extras));
  return m;
}

}  // namespace sfu::test
