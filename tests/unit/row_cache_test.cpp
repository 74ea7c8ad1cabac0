// The per-PC row cache (CONFIG_SFU_ROW_CACHE, on by default): a PC's cached row is served only to
// walks in the registration it came from, also with walks filling the same entries on several
// threads while the text's module changes under them.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "config.h"
#include "support/fake_machine.h"
#include "support/sframe_builder.h"
#include "unwind/row_cache.h"

using namespace sfu::test;

namespace {

constexpr uint64_t kFunction = 0x500000, kOuter = 0x510000;
constexpr uint64_t kSp = 0x7f00;

// The walked function: CFA = rsp + cfa_offset, RA at CFA - 8.
TableSpec function_table(int32_t cfa_offset) {
  return table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kFunction, 0x100, {{0, {cfa_offset}}})});
}

// Its callers: an outermost row, so a walk ends cleanly at the second frame.
TableSpec outer_table() { return table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kOuter, 0x100, {{0, {}}})}); }

// Two return addresses, one where each table's rule finds it.
void put_both_return_addresses(FakeMemory &m) {
  m.add_stack(0x7000, 0x8000);
  m.put(kSp + 8, kOuter + 0x10);   // CFA = rsp + 16
  m.put(kSp + 24, kOuter + 0x20);  // CFA = rsp + 32
}

sfu_regs start() { return regs_with(kFunction + 0x10, {{SFU_X86_64_RSP, kSp}}); }

TEST(RowCache, AModuleRegisteredAgainWithAnotherTableIsNotServedItsOldRows) {
  static_assert(CONFIG_SFU_ROW_CACHE > 0, "the unit tests run with the default cache");
  Registered outer(outer_table(), kOuter, kOuter + 0x100, "outer");
  FakeMemory mem(false);
  put_both_return_addresses(mem);
  // The same struct sfu_module, at the same address, for the same text: only the registration
  // tells the cached row of the first table from the second's.
  std::optional<Registered> module;
  module.emplace(function_table(16), kFunction, kFunction + 0x100, "first");
  for (int i = 0; i < 2; i++) {  // the second walk takes the row from the cache
    Walked w = walk(start(), mem.config(SFU_ABI_AMD64_LE));
    EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{kFunction + 0x10, kOuter + 0x10}));
    EXPECT_EQ(w.stop, SFU_STOP_END);
  }
  const sfu_module *first = &module->module();
  module.reset();
  module.emplace(function_table(32), kFunction, kFunction + 0x100, "second");
  ASSERT_EQ(&module->module(), first);
  Walked w = walk(start(), mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{kFunction + 0x10, kOuter + 0x20}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
}

// Another module's text, for a registration that only moves the serial counter on.
constexpr uint64_t kElsewhere = 0x520000;

// Registers and unregisters a module elsewhere: the counter's next number is used up.
void use_up_a_serial() {
  Registered other(table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kElsewhere, 0x100, {{0, {}}})}), kElsewhere,
                   kElsewhere + 0x100, "other");
  ASSERT_EQ(other.error(), SFU_OK);
}

TEST(RowCache, ASerialGivenAgainAfterTheCounterWrapsMeetsNoRowOfItsLastHolder) {
  using namespace sfu::unwind;
  Registered outer(outer_table(), kOuter, kOuter + 0x100, "outer");
  FakeMemory mem(false);
  put_both_return_addresses(mem);
  // The first table registered as number 1, its row for the first frame's PC cached by a walk.
  set_last_registration_serial(0);
  std::optional<Registered> module;
  module.emplace(function_table(16), kFunction, kFunction + 0x100, "first");
  ASSERT_EQ(module->module().serial, 1u);
  for (int i = 0; i < 2; i++) {
    Walked w = walk(start(), mem.config(SFU_ABI_AMD64_LE));
    EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{kFunction + 0x10, kOuter + 0x10}));
  }
  module.reset();
  // 2^64 - 1 registrations later (the counter set to its last two numbers, one used up), the
  // second table at the same text is number 1 again: it must walk by its own row.
  set_last_registration_serial(~uint64_t(0) - 1);
  use_up_a_serial();
  module.emplace(function_table(32), kFunction, kFunction + 0x100, "second");
  ASSERT_EQ(module->module().serial, 1u);
  for (int i = 0; i < 2; i++) {
    Walked w = walk(start(), mem.config(SFU_ABI_AMD64_LE));
    EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{kFunction + 0x10, kOuter + 0x20})) << "walk " << i;
    EXPECT_EQ(w.stop, SFU_STOP_END);
  }
}

// Modules take turns holding the same text, every other one with the other rule for the same
// PC; walks on two threads fill and read the same cache entry meanwhile. A walk whose first frame
// names a module must find the caller that module's rule finds: a row served across registrations
// gives the other caller (without the registration in the key, about a third of the walks do).
// An entry read while another thread writes it would too, but that window is a few stores wide:
// this test seldom opens it (the tests of the fill and the probe step by step, below, open it
// deterministically). With one_number, every registration is given number 1, as if the counter
// wrapped at each: only the unregistration's emptying of the cache (and of the fills still under
// way, fill_publish) keeps the rows apart. Then only the walks during which no module came or went
// are checked: a walk still running on a module as it goes probes with its number, and may take
// the rows of the next one under the same number (with real numbers, 64 bits, that takes 2^64
// registrations; and a kernel gives a module's text to another only after its walks ended). The
// rows such a walk leaves behind are what the walks checked must not be served.
void walks_while_modules_take_turns(bool one_number) {
  Registered outer(outer_table(), kOuter, kOuter + 0x100, "outer");
  TableSpec specs[2] = {function_table(16), function_table(32)};
  std::vector<uint8_t> bytes[2] = {build_section(specs[0]), build_section(specs[1])};
  constexpr int kModules = 8;
  sfu_module modules[kModules] = {};
  sfu_table_desc descs[kModules] = {};
  for (int i = 0; i < kModules; i++) {
    descs[i].section = bytes[i % 2].data();
    descs[i].size = bytes[i % 2].size();
    descs[i].section_addr = specs[i % 2].section_addr;
    descs[i].text_start = kFunction;
    descs[i].text_end = kFunction + 0x100;
  }
  FakeMemory mem(false);
  put_both_return_addresses(mem);
  const sfu_walk_config config = mem.config(SFU_ABI_AMD64_LE);
  // The freeing rule, as a kernel keeps it: a module is registered again (its table rewritten)
  // only once every walk that began before its unregistration has ended. Each walker shows the
  // epoch its walk began in, or -1 between walks; a module is reused kModules turns later, by
  // which time its grace period has almost always passed.
  constexpr int kWalkers = 2;
  std::atomic<long> epoch{0}, walking[kWalkers], unregistered_at[kModules];
  for (std::atomic<long> &w : walking) w = -1;
  for (std::atomic<long> &u : unregistered_at) u = 0;
  std::atomic<bool> stop{false};
  std::atomic<long> checked{0}, wrong{0};
  auto walker = [&](int self) {
    sfu_regs regs = start();
    while (!stop.load()) {
      long began = epoch.load();
      walking[self] = began;
      sfu_cursor c;
      sfu_frame f0, f1;
      sfu_walk_start(&c, &regs, &config);
      if (sfu_walk_next(&c, &f0) && f0.module) {  // else between two registrations
        int rule = int(f0.module - modules) % 2;
        bool ok = sfu_walk_next(&c, &f1) && f1.pc == (rule == 0 ? kOuter + 0x10 : kOuter + 0x20);
        if (!one_number || epoch.load() == began) {
          checked++;
          if (!ok) wrong++;
        }
      }
      walking[self] = -1;
    }
  };
  auto grace_passed = [&](int m) {
    for (std::atomic<long> &w : walking) {
      long began = w.load();
      if (began != -1 && began < unregistered_at[m].load()) return false;
    }
    return true;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kWalkers; t++) threads.emplace_back(walker, t);
  auto register_module = [&](int i) {
    if (one_number) sfu::unwind::set_last_registration_serial(0);
    return sfu_register(&modules[i], &descs[i], "m");
  };
  int current = 0;
  ASSERT_EQ(register_module(current), SFU_OK);
  long rounds = 0;
  // Bounded, so a walker that never runs fails the test instead of hanging it.
  for (; (rounds < 2000 || checked.load() < 20000) && rounds < 2000000; rounds++) {
    int next = (current + 1) % kModules;
    while (!grace_passed(next)) std::this_thread::yield();
    sfu_unregister(&modules[current]);
    unregistered_at[current] = ++epoch;
    ASSERT_EQ(register_module(next), SFU_OK);
    if (one_number) {
      ASSERT_EQ(modules[next].serial, 1u);
    }
    current = next;
  }
  stop = true;
  for (std::thread &t : threads) t.join();
  sfu_unregister(&modules[current]);
  EXPECT_GE(checked.load(), 20000);
  EXPECT_EQ(wrong.load(), 0);
}

TEST(RowCache, WalksOnSeveralThreadsGetTheRowOfTheModuleTheyFound) { walks_while_modules_take_turns(false); }

TEST(RowCache, WalksOnSeveralThreadsGetTheRowOfTheModuleTheyFoundWhenEveryRegistrationHasOneNumber) {
  walks_while_modules_take_turns(true);
}

TEST(RowCache, EightPcsOfOneSetKeepAllTheirRowsANinthReplacesTheOldest) {
  // Nine PCs whose hash picks the same set (found by the cache's own hash), filled in turn, then
  // a tenth: each fill past the eighth replaces the oldest row left.
  using namespace sfu::unwind;
  static_assert(kRowCacheWays == 8, "the default cache has eight ways per set");
  sfu_module m{};
  m.serial = next_registration_serial();
  std::vector<uint64_t> pcs;
  for (uint64_t pc = 0x900000; pcs.size() < kRowCacheWays + 2; pc++)
    if (row_cache_set(pc) == row_cache_set(0x900000)) pcs.push_back(pc);
  RowCacheEntry *set = row_cache_set_of(pcs[0]);
  for (uint32_t w = 0; w < kRowCacheWays; w++) __atomic_store_n(&set[w].serial, 0, __ATOMIC_RELAXED);
  auto row_for = [](uint64_t pc) {
    sfu_row r{};
    r.cfa.kind = SFU_RULE_REGISTER;
    r.cfa.reg = SFU_X86_64_RSP;
    r.cfa.offset = int32_t(pc & 0xfff);
    r.ra.kind = SFU_RULE_AT_CFA;
    r.ra.offset = -8;
    return r;
  };
  auto cached_offset = [&](uint64_t pc) {
    sfu_row r{};
    return cached_row(m, pc, r) ? r.cfa.offset : -1;
  };
  // The plain word the walk's runs read, from whichever way holds the row.
  auto plain_offset = [&](uint64_t pc) {
    uint64_t w = cached_plain_word(m.serial, pc);
    return w ? int32_t(plain_cfa_offset(w)) : -1;
  };
  for (uint32_t i = 0; i < kRowCacheWays; i++) remember_row(m, pcs[i], row_for(pcs[i]));
  for (uint32_t i = 0; i < kRowCacheWays; i++) {
    EXPECT_EQ(cached_offset(pcs[i]), int32_t(pcs[i] & 0xfff)) << i;  // two ways would have kept two
    EXPECT_EQ(plain_offset(pcs[i]), int32_t(pcs[i] & 0xfff)) << i;
  }
  remember_row(m, pcs[8], row_for(pcs[8]));
  EXPECT_EQ(cached_offset(pcs[0]), -1);  // filled first, replaced first
  EXPECT_EQ(plain_offset(pcs[0]), -1);
  remember_row(m, pcs[9], row_for(pcs[9]));
  EXPECT_EQ(cached_offset(pcs[1]), -1);  // then the next oldest
  for (uint32_t i = 2; i < kRowCacheWays + 2; i++) EXPECT_EQ(cached_offset(pcs[i]), int32_t(pcs[i] & 0xfff)) << i;
  // A PC filled again (its row for another registration, say) takes its own way back, not the oldest.
  remember_row(m, pcs[5], row_for(pcs[5]));
  for (uint32_t i = 2; i < kRowCacheWays + 2; i++) EXPECT_EQ(cached_offset(pcs[i]), int32_t(pcs[i] & 0xfff)) << i;
}

// ---- The fill and the probe, step by step ----------------------------------------------------
// row_cache.h splits a fill into claim, key, row and publish, and a probe at its first read of the
// count (probe_as_seen), so that these tests can put between two steps what another CPU would.

// CFA = rsp + cfa_offset, RA at CFA - 8: a plain row.
sfu_row plain_row(int32_t cfa_offset) {
  sfu_row r{};
  r.cfa.kind = SFU_RULE_REGISTER;
  r.cfa.reg = SFU_X86_64_RSP;
  r.cfa.offset = cfa_offset;
  r.ra.kind = SFU_RULE_AT_CFA;
  r.ra.offset = -8;
  return r;
}

uint64_t plain_of(const sfu_row &r) {
  return sfu::unwind::plain_word(r, SFU_X86_64_RSP, SFU_X86_64_RBP);
}

// A module the cache knows by its number only (nothing registered): what fills and probes read.
struct CacheOnlyModule {
  sfu_module m{};
  CacheOnlyModule() {
    m.serial = sfu::unwind::next_registration_serial();
    m.table.abi = SFU_ABI_AMD64_LE;
  }
};

// Two PCs of one set, both ways of it emptied (other tests leave rows behind).
std::pair<uint64_t, uint64_t> two_pcs_of_one_set(uint64_t from) {
  using namespace sfu::unwind;
  uint64_t second = from + 1;
  while (row_cache_set(second) != row_cache_set(from)) second++;
  RowCacheEntry *set = row_cache_set_of(from);
  for (uint32_t w = 0; w < kRowCacheWays; w++) __atomic_store_n(&set[w].serial, 0, __ATOMIC_RELAXED);
  return {from, second};
}

// The way of pc's set that holds pc.
sfu::unwind::RowCacheEntry &entry_of(uint64_t pc) {
  using namespace sfu::unwind;
  RowCacheEntry *set = row_cache_set_of(pc);
  for (uint32_t w = 0; w < kRowCacheWays; w++)
    if (set[w].pc == pc) return set[w];
  ADD_FAILURE() << "no way holds 0x" << std::hex << pc;
  return set[0];
}

TEST(RowCache, AProbeUsesNothingAFillBegunAfterItReadTheCountWrote) {
  // CPU 0 probes for pc b and reads the entry's count, even; CPU 1 then starts filling the entry
  // with b's row and has written the key (b, this registration) but not the row, which is still
  // a's. CPU 0 reads on: the PC and the number are b's, the row a's. Only the count, read again
  // after the copy, tells it the row is not b's.
  using namespace sfu::unwind;
  CacheOnlyModule mod;
  auto [a, b] = two_pcs_of_one_set(0x940000);
  remember_row(mod.m, a, plain_row(16));
  RowCacheEntry &e = entry_of(a);
  uint32_t seen = __atomic_load_n(&e.seq, __ATOMIC_ACQUIRE);  // CPU 0's first read
  ASSERT_EQ(seen % 2, 0u);
  uint32_t seq;
  ASSERT_TRUE(fill_claim(e, seq));  // CPU 1
  fill_key(e, mod.m.serial, b);
  uint64_t copied = 0;
  auto copy_plain = [&](const RowCacheEntry &x) { copied = __atomic_load_n(&x.plain, __ATOMIC_RELAXED); };
  EXPECT_FALSE(probe_as_seen(e, seen, mod.m.serial, b, copy_plain));
  EXPECT_EQ(copied, plain_of(plain_row(16))) << "the copy held a's row: refused by the count alone";
  // A probe that begins now sees the count odd: nothing either, and no copy is made.
  copied = 0;
  EXPECT_FALSE(probe(e, mod.m.serial, b, copy_plain));
  EXPECT_EQ(copied, 0u);
  sfu_row r{};
  EXPECT_FALSE(cached_row(mod.m, b, r));
  // CPU 1 ends its fill: b's row, whole. The probe that began before it still takes nothing
  // (the count moved on), one that begins now takes the row.
  fill_row(e, plain_row(32), plain_of(plain_row(32)));
  fill_publish(e, seq, mod.m, mod.m.serial);
  EXPECT_EQ(e.seq, seen + 2);
  EXPECT_FALSE(probe_as_seen(e, seen, mod.m.serial, b, copy_plain));
  ASSERT_TRUE(cached_row(mod.m, b, r));
  EXPECT_EQ(r.cfa.offset, 32);
  EXPECT_FALSE(cached_row(mod.m, a, r));
}

TEST(RowCache, OfTwoFillsThatReadTheSameCountOnlyTheFirstToClaimTheEntryWritesIt) {
  using namespace sfu::unwind;
  CacheOnlyModule mod;
  auto [a, b] = two_pcs_of_one_set(0x950000);
  remember_row(mod.m, a, plain_row(16));
  RowCacheEntry &e = entry_of(a);
  uint32_t seen = __atomic_load_n(&e.seq, __ATOMIC_RELAXED);  // fill X (a's row again) reads the count
  uint32_t seq;
  ASSERT_TRUE(fill_claim(e, seq));  // fill Y claims the entry and writes b's row
  EXPECT_EQ(seq, seen);
  // Y interrupted after its claim: a fill that begins now (an interrupt's walk) claims nothing.
  uint32_t nested;
  EXPECT_FALSE(fill_claim(e, nested));
  EXPECT_EQ(e.seq, seen + 1);
  fill_key(e, mod.m.serial, b);
  fill_row(e, plain_row(48), plain_of(plain_row(48)));
  fill_publish(e, seq, mod.m, mod.m.serial);
  // X claims from the count it read: the entry moved on, X writes nothing.
  EXPECT_FALSE(fill_claim_as_seen(e, seen));
  EXPECT_EQ(e.seq, seen + 2);
  sfu_row r{};
  ASSERT_TRUE(cached_row(mod.m, b, r));
  EXPECT_EQ(r.cfa.offset, 48);
}

// The point of a fill at which the fill's module is unregistered on another CPU.
enum class UnregisteredAt { kBeforeClaim, kAfterClaim, kAfterKey, kAfterRow, kAfterPublish };

class RowCacheFillDuringUnregistration : public ::testing::TestWithParam<UnregisteredAt> {};

TEST_P(RowCacheFillDuringUnregistration, LeavesNoRowForTheNextHolderOfItsNumber) {
  // A walk that began before its module's unregistration may still fill an entry with the
  // module's row, at any point of the unregistration. Whatever the point, the entry must not keep
  // the row: after the counter wraps, the same number goes to another table at the same text,
  // whose walk would take it.
  using namespace sfu::unwind;
  Registered outer(outer_table(), kOuter, kOuter + 0x100, "outer");
  FakeMemory mem(false);
  put_both_return_addresses(mem);
  std::vector<uint8_t> first_bytes = build_section(function_table(16));
  sfu_table_desc first_desc{};
  first_desc.section = first_bytes.data();
  first_desc.size = first_bytes.size();
  first_desc.section_addr = function_table(16).section_addr;
  first_desc.text_start = kFunction;
  first_desc.text_end = kFunction + 0x100;
  sfu_module first{};  // outlives its unregistration, as the freeing rule keeps it for the walk
  set_last_registration_serial(0);
  ASSERT_EQ(sfu_register(&first, &first_desc, "first"), SFU_OK);
  ASSERT_EQ(first.serial, 1u);
  // The walk's fill for its first frame's PC, in the first way of its set.
  const uint64_t pc = kFunction + 0x10;
  sfu_row row;
  ASSERT_EQ(sfu_table_find(&first.table, pc, &row), SFU_OK);
  RowCacheEntry &e = row_cache_set_of(pc)[0];
  const uint64_t serial = module_serial(first);  // the walk read the number
  const UnregisteredAt at = GetParam();
  auto unregister_here = [&](UnregisteredAt point) {
    if (point == at) {
      EXPECT_EQ(sfu_unregister(&first), SFU_OK);
    }
  };
  unregister_here(UnregisteredAt::kBeforeClaim);
  uint32_t seq;
  ASSERT_TRUE(fill_claim(e, seq));
  unregister_here(UnregisteredAt::kAfterClaim);
  fill_key(e, serial, pc);
  unregister_here(UnregisteredAt::kAfterKey);
  fill_row(e, row, plain_of(row));
  unregister_here(UnregisteredAt::kAfterRow);
  fill_publish(e, seq, first, serial);
  unregister_here(UnregisteredAt::kAfterPublish);
  EXPECT_EQ(first.serial, 0u);
  EXPECT_EQ(e.serial, 0u) << "the entry still holds the unregistered module's row";
  // The counter wraps; number 1 goes to another table at the same text.
  set_last_registration_serial(~uint64_t(0) - 1);
  use_up_a_serial();
  Registered second(function_table(32), kFunction, kFunction + 0x100, "second");
  ASSERT_EQ(second.error(), SFU_OK);
  ASSERT_EQ(second.module().serial, 1u);
  Walked w = walk(start(), mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{kFunction + 0x10, kOuter + 0x20}));
}

std::string point_name(const ::testing::TestParamInfo<UnregisteredAt> &info) {
  static const char *const kNames[] = {"BeforeClaim", "AfterClaim", "AfterKey", "AfterRow", "AfterPublish"};
  return kNames[int(info.param)];
}

INSTANTIATE_TEST_SUITE_P(EachPoint, RowCacheFillDuringUnregistration,
                         ::testing::Values(UnregisteredAt::kBeforeClaim, UnregisteredAt::kAfterClaim,
                                           UnregisteredAt::kAfterKey, UnregisteredAt::kAfterRow,
                                           UnregisteredAt::kAfterPublish),
                         point_name);

}  // namespace
