// The sampling profiler (sfu/profile.h) on the fake machine's synthetic stacks: exact printed
// lines (docs/profile-format.md, their CRCs computed here bit by bit), counts, every loss, init's
// refusals, and samples racing each other and a print. Built into build/tests/profile_tests
// against a core with CONFIG_SFU_PROFILE=y (configs/profile.config): the unit suite's core is
// built with the defaults, where the profiler is off (profile_disabled_test.cpp).
#include <gtest/gtest.h>

#include <stdint.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sfu/profile.h"
#include "support/crash_machines.h"
#include "support/fake_machine.h"
#include "support/x86_chain.h"

using namespace sfu::test;

namespace {

// CRC-32 (IEEE 802.3, reflected), one bit at a time: not the core's table-driven one.
uint32_t crc32_bits(const std::string &s) {
  uint32_t c = 0xffffffffu;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0xedb88320u : c >> 1;
  }
  return ~c;
}

std::string hex(uint64_t v, int digits = 0) {
  char buf[32];
  snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

// A line as the format prints it: its text, " 0x" and the CRC of the text, '\n'.
std::string line(const std::string &text) { return text + " " + hex(crc32_bits(text), 8) + "\n"; }

std::vector<std::string> split_lines(const std::string &text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// A profile and its memory (8-byte aligned: a vector of words).
struct Profile {
  std::vector<uint64_t> memory;
  sfu_profile p{};
  sfu_error error;
  explicit Profile(uint32_t stacks, uint32_t depth, uint64_t period = 0, const char *unit = nullptr)
      : memory(SFU_PROFILE_MEMORY_SIZE(stacks, depth) / 8, 0xa5a5a5a5a5a5a5a5ull) {
    sfu_profile_params params{stacks, depth, period, unit};
    error = sfu_profile_init(&p, memory.data(), memory.size() * 8, &params);
  }
  Profile(const Profile &) = delete;
  std::string printed() const {
    std::string s;
    sfu_sink sink{[](void *ctx, char c) { static_cast<std::string *>(ctx)->push_back(c); }, &s};
    sfu_profile_print(&sink, &p);
    return s;
  }
  uint64_t lost(sfu_profile_loss l) const { return sfu_profile_lost(&p, l); }
  uint64_t stopped(sfu_stop s) const { return sfu_profile_stopped(&p, s); }
};

// What a printed profile says, read back; every check of the format a reader makes, as failures.
struct Read {
  std::map<std::string, uint64_t> stacks;  // "STOP ADDR ..." -> count, duplicates added up
  uint64_t stack_lines = 0, counted_sum = 0;
  std::map<std::string, uint64_t> lost, stopped;
  uint64_t samples = 0, counted = 0, lines = 0;
};

Read read_profile(const std::string &text) {
  Read r;
  std::vector<std::string> lines = split_lines(text);
  EXPECT_GE(lines.size(), 2u);
  for (size_t i = 0; i < lines.size(); i++) {
    const std::string &l = lines[i];
    size_t at = l.rfind(" 0x");
    EXPECT_NE(at, std::string::npos) << l;
    if (at == std::string::npos) continue;
    std::string body = l.substr(0, at);
    EXPECT_EQ(l.substr(at + 1), hex(crc32_bits(body), 8)) << "CRC of line " << i << ": " << l;
    std::istringstream in(body);
    std::string kind;
    in >> kind;
    if (i == 0) {
      EXPECT_EQ(kind, "sfu-profile-begin");
    }
    if (kind == "sfu-profile-stack") {
      uint64_t count;
      in >> count;
      EXPECT_GE(count, 1u);
      std::string rest;
      std::getline(in, rest);
      r.stacks[rest.substr(1)] += count;
      r.stack_lines++;
      r.counted_sum += count;
    } else if (kind == "sfu-profile-lost" || kind == "sfu-profile-stopped") {
      std::string name;
      uint64_t count;
      in >> name >> count;
      EXPECT_GE(count, 1u);
      (kind == "sfu-profile-lost" ? r.lost : r.stopped)[name] = count;
    } else if (kind == "sfu-profile-end") {
      EXPECT_EQ(i + 1, lines.size()) << "the end line is the last";
      std::string n, c, L;
      in >> n >> c >> L;
      r.samples = std::stoull(n.substr(n.find('=') + 1));
      r.counted = std::stoull(c.substr(c.find('=') + 1));
      r.lines = std::stoull(L.substr(L.find('=') + 1));
    }
  }
  EXPECT_EQ(r.lines, lines.size());
  EXPECT_EQ(r.counted, r.counted_sum);
  return r;
}

// x86_64 recursion at kDeepText: A (an outermost row from A+0x20) called D, which called itself,
// every D frame 16 bytes (CFA = rsp + 16, return address at CFA - 8). A walk from D+leaf gives
// `frames` frames: D+leaf, D+0xf (the self-call's return address less one) frames - 2 times,
// A+0x2f, then end-of-stack.
constexpr uint64_t kDeepText = 0x200000, kDeepLo = 0x10000, kDeepHi = 0x20000;
struct Deep {
  const uint64_t A = kDeepText, D = kDeepText + 0x100;
  Registered reg{table_spec(3, SFU_ABI_AMD64_LE,
                            {fde_spec(A, 0x40, {{0, {8}}, {0x20, {}}}), fde_spec(D, 0x40, {{0, {16}}})}),
                 kDeepText, kDeepText + 0x1000, "deep"};
  FakeMemory mem{false};
  uint64_t sp = 0;
  explicit Deep(uint32_t frames) {
    mem.add_stack(kDeepLo, kDeepHi);
    sp = kDeepHi - 0x100 - 16 * uint64_t(frames);
    for (uint32_t i = 0; i + 1 < frames; i++) mem.put(sp + 16 * i + 8, i + 2 < frames ? D + 0x10 : A + 0x30);
  }
  sfu_regs start(uint64_t leaf = 8) const { return regs_with(D + leaf, {{SFU_X86_64_RSP, sp}}); }
  sfu_walk_config config() { return mem.config(SFU_ABI_AMD64_LE); }
  // The printed stack: stop name and lookup addresses, as a Read key.
  std::string stack(uint32_t frames, uint64_t leaf = 8, const char *stop = "end-of-stack") const {
    std::string s = stop + std::string(" ") + hex(D + leaf);
    for (uint32_t i = 1; i + 1 < frames; i++) s += " " + hex(D + 0xf);
    return s + " " + hex(A + 0x2f);
  }
};

// ---- printed text ---------------------------------------------------------------------------

TEST(Profile, PrintsEveryLineExactly) {
  X86Chain x("kernel", ModuleExtras{{}, 0, gnu_build_id_note(false, {0xde, 0xad, 0xbe, 0xef})});
  ASSERT_EQ(x.reg.error(), SFU_OK);
  Profile prof(1, 8, 1000000);
  ASSERT_EQ(prof.error, SFU_OK);
  sfu_walk_config config = x.mem.config(SFU_ABI_AMD64_LE);
  sfu_regs regs = x.start();
  sfu_profile_sample(&prof.p, &regs, &config);
  sfu_profile_sample(&prof.p, &regs, &config);
  sfu_regs in_b = regs_with(x.B + 0x20, {{SFU_X86_64_RSP, 0x7f10}, {SFU_X86_64_RBP, 0x7fa0}});
  sfu_profile_sample(&prof.p, &in_b, &config);  // another stack: the one entry is taken
  sfu_profile_sample(&prof.p, nullptr, &config);
  std::string want = line("sfu-profile-begin v1 3 period=1000000 unit=nanoseconds stacks=1 depth=8") +
                     line("sfu-profile-module 0 kernel 0x0000000000100000-0x0000000000101000 build-id deadbeef") +
                     line("sfu-profile-stack 2 end-of-stack 0x100210 0x10011f 0x10002f") +
                     line("sfu-profile-lost table-full 1") + line("sfu-profile-lost bad-regs 1") +
                     line("sfu-profile-stopped end-of-stack 2") +
                     line("sfu-profile-end samples=4 counted=2 lines=7");
  EXPECT_EQ(prof.printed(), want);
  EXPECT_EQ(sfu_profile_samples(&prof.p), 4u);
  EXPECT_EQ(prof.lost(SFU_PROFILE_LOST_TABLE_FULL), 1u);
  EXPECT_EQ(prof.lost(SFU_PROFILE_LOST_BAD_REGS), 1u);
  EXPECT_EQ(prof.lost(SFU_PROFILE_CUT_AT_DEPTH), 0u);
  EXPECT_EQ(prof.stopped(SFU_STOP_END), 2u);
}

TEST(Profile, IdenticalStacksCountedOnceDistinctOnesApart) {
  X86Chain x;  // registered without a build-id
  Profile prof(8, 4, 0, "cycles");
  sfu_walk_config config = x.mem.config(SFU_ABI_AMD64_LE);
  sfu_regs in_c = x.start(), in_b = regs_with(x.B + 0x20, {{SFU_X86_64_RSP, 0x7f10}, {SFU_X86_64_RBP, 0x7fa0}});
  for (int i = 0; i < 5; i++) sfu_profile_sample(&prof.p, &in_c, &config);
  for (int i = 0; i < 3; i++) sfu_profile_sample(&prof.p, &in_b, &config);
  std::vector<std::string> lines = split_lines(prof.printed());
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0] + "\n", line("sfu-profile-begin v1 3 period=0 unit=cycles stacks=8 depth=4"));
  EXPECT_EQ(lines[1] + "\n", line("sfu-profile-module 0 test 0x0000000000100000-0x0000000000101000 no build-id"));
  // Stack lines come in the table's order, which the hash decides: compared as a set.
  std::vector<std::string> stacks = {lines[2] + "\n", lines[3] + "\n"};
  std::sort(stacks.begin(), stacks.end());
  std::vector<std::string> want = {line("sfu-profile-stack 3 end-of-stack 0x100120 0x10002f"),
                                   line("sfu-profile-stack 5 end-of-stack 0x100210 0x10011f 0x10002f")};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(stacks, want);
  EXPECT_EQ(lines[4] + "\n", line("sfu-profile-stopped end-of-stack 8"));
  EXPECT_EQ(lines[5] + "\n", line("sfu-profile-end samples=8 counted=8 lines=6"));
}

TEST(Profile, EveryRegisteredModuleHasALine) {
  X86Chain x("kernel", ModuleExtras{{}, 0, gnu_build_id_note(false, {1, 2, 3})});
  Deep d(3);
  Profile prof(4, 4);
  Read r = read_profile(prof.printed());
  std::vector<std::string> lines = split_lines(prof.printed());
  ASSERT_EQ(lines.size(), 4u);
  std::vector<std::string> modules = {lines[1] + "\n", lines[2] + "\n"};
  std::sort(modules.begin(), modules.end());  // in registry slot order
  EXPECT_EQ(modules[0], line("sfu-profile-module 0 kernel 0x0000000000100000-0x0000000000101000 build-id 010203"));
  EXPECT_EQ(modules[1], line("sfu-profile-module 1 deep 0x0000000000200000-0x0000000000201000 no build-id"));
  EXPECT_EQ(lines[3] + "\n", line("sfu-profile-end samples=0 counted=0 lines=4"));
  EXPECT_EQ(r.samples, 0u);
}

// ---- depth ------------------------------------------------------------------------------------

TEST(Profile, DeeperStacksAreCutAtTheDepth) {
  Deep d(10);
  sfu_walk_config config = d.config();
  sfu_regs regs = d.start();
  Profile prof(4, 4);
  sfu_profile_sample(&prof.p, &regs, &config);
  sfu_profile_sample(&prof.p, &regs, &config);
  Read r = read_profile(prof.printed());
  std::string cut = "frame-cap-reached " + hex(d.D + 8) + " " + hex(d.D + 0xf) + " " + hex(d.D + 0xf) + " " +
                    hex(d.D + 0xf);
  EXPECT_EQ(r.stacks, (std::map<std::string, uint64_t>{{cut, 2}}));
  EXPECT_EQ(r.lost, (std::map<std::string, uint64_t>{{"cut-at-depth", 2}}));
  EXPECT_EQ(r.stopped, (std::map<std::string, uint64_t>{{"frame-cap-reached", 2}}));
  EXPECT_EQ(prof.lost(SFU_PROFILE_CUT_AT_DEPTH), 2u);
  EXPECT_EQ(prof.stopped(SFU_STOP_FRAME_CAP), 2u);
  // The caller's frame cap does not apply: the profile's depth does.
  config.max_frames = 2;
  sfu_profile_sample(&prof.p, &regs, &config);
  EXPECT_EQ(prof.lost(SFU_PROFILE_CUT_AT_DEPTH), 3u);
  EXPECT_EQ(read_profile(prof.printed()).stacks, (std::map<std::string, uint64_t>{{cut, 3}}));
}

TEST(Profile, AStackOfExactlyTheDepthIsWhole) {
  Deep d(4);
  sfu_walk_config config = d.config();
  sfu_regs regs = d.start();
  Profile prof(4, 4);
  sfu_profile_sample(&prof.p, &regs, &config);
  Read r = read_profile(prof.printed());
  EXPECT_EQ(r.stacks, (std::map<std::string, uint64_t>{{d.stack(4), 1}}));
  EXPECT_TRUE(r.lost.empty());
  EXPECT_EQ(prof.lost(SFU_PROFILE_CUT_AT_DEPTH), 0u);
  Profile shallow(4, 3);  // one frame fewer kept: cut
  sfu_profile_sample(&shallow.p, &regs, &config);
  EXPECT_EQ(shallow.lost(SFU_PROFILE_CUT_AT_DEPTH), 1u);
  Profile deepest(4, SFU_PROFILE_MAX_DEPTH);
  Deep big(SFU_PROFILE_MAX_DEPTH + 1);
  sfu_walk_config big_config = big.config();
  sfu_regs big_regs = big.start();
  sfu_profile_sample(&deepest.p, &big_regs, &big_config);
  EXPECT_EQ(deepest.lost(SFU_PROFILE_CUT_AT_DEPTH), 1u);
  Read rb = read_profile(deepest.printed());
  ASSERT_EQ(rb.stacks.size(), 1u);
  std::istringstream in(rb.stacks.begin()->first);
  std::vector<std::string> fields{std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
  EXPECT_EQ(fields.size(), 1u + SFU_PROFILE_MAX_DEPTH);
}

// ---- losses -----------------------------------------------------------------------------------

TEST(Profile, ANewStackFindingNoFreeEntryIsDroppedAsTableFull) {
  Deep d(5);
  sfu_walk_config config = d.config();
  Profile prof(2, 8);
  for (uint64_t leaf = 1; leaf <= 3; leaf++) {
    sfu_regs regs = d.start(leaf);
    for (uint64_t k = 0; k < leaf; k++) sfu_profile_sample(&prof.p, &regs, &config);
  }
  Read r = read_profile(prof.printed());
  // Two entries, both probed: the first two stacks fill them, the third finds none.
  EXPECT_EQ(r.stacks, (std::map<std::string, uint64_t>{{d.stack(5, 1), 1}, {d.stack(5, 2), 2}}));
  EXPECT_EQ(r.lost, (std::map<std::string, uint64_t>{{"table-full", 3}}));
  EXPECT_EQ(r.stopped, (std::map<std::string, uint64_t>{{"end-of-stack", 3}}));  // counted samples only
  EXPECT_EQ(r.samples, 6u);
  // A stack already in the table is still counted.
  sfu_regs first = d.start(1);
  sfu_profile_sample(&prof.p, &first, &config);
  EXPECT_EQ(read_profile(prof.printed()).stacks[d.stack(5, 1)], 2u);
  EXPECT_EQ(prof.lost(SFU_PROFILE_LOST_TABLE_FULL), 3u);
}

// Every entry but one claimed (their state words, the headers' first 4 bytes, set by hand): the
// stack is counted only where the free one lies within the 16 entries from its hash's, wrapping.
TEST(Profile, AProbeLooksAtSixteenEntriesAtMost) {
  Deep d(3);
  sfu_walk_config config = d.config();
  sfu_regs regs = d.start();
  constexpr uint32_t kStacks = 40, kDepth = 4, kWords = (16 + 8 * kDepth) / 8;
  std::vector<uint32_t> counted_at;
  for (uint32_t free = 0; free < kStacks; free++) {
    Profile prof(kStacks, kDepth);
    for (uint32_t i = 0; i < kStacks; i++)
      if (i != free) prof.memory[i * kWords] = 1;
    sfu_profile_sample(&prof.p, &regs, &config);
    uint64_t full = prof.lost(SFU_PROFILE_LOST_TABLE_FULL);
    Read r = read_profile(prof.printed());
    EXPECT_EQ(r.counted + full, 1u);
    if (r.counted) counted_at.push_back(free);
  }
  ASSERT_EQ(counted_at.size(), 16u);
  // Sixteen in a row, from the stack's home (perhaps wrapping past the last entry).
  uint32_t home = counted_at[0];
  for (uint32_t k = 1; k < counted_at.size(); k++)
    if (counted_at[k] != counted_at[k - 1] + 1) home = counted_at[k];
  for (uint32_t k = 0; k < 16; k++)
    EXPECT_NE(std::find(counted_at.begin(), counted_at.end(), (home + k) % kStacks), counted_at.end()) << k;
}

TEST(Profile, BadRegistersOrConfigAreDropped) {
  X86Chain x;
  sfu_walk_config config = x.mem.config(SFU_ABI_AMD64_LE);
  sfu_regs regs = x.start();
  Profile prof(4, 4);
  sfu_profile_sample(&prof.p, nullptr, &config);
  sfu_profile_sample(&prof.p, &regs, nullptr);
  sfu_profile_sample(&prof.p, nullptr, nullptr);
  sfu_profile_sample(nullptr, &regs, &config);  // nothing to count in
  EXPECT_EQ(sfu_profile_samples(&prof.p), 3u);
  EXPECT_EQ(prof.lost(SFU_PROFILE_LOST_BAD_REGS), 3u);
  Read r = read_profile(prof.printed());
  EXPECT_TRUE(r.stacks.empty());
  EXPECT_EQ(r.lost, (std::map<std::string, uint64_t>{{"bad-regs", 3}}));
  EXPECT_TRUE(r.stopped.empty());
  EXPECT_EQ(sfu_profile_samples(nullptr), 0u);
  EXPECT_EQ(sfu_profile_lost(nullptr, SFU_PROFILE_LOST_BAD_REGS), 0u);
  EXPECT_EQ(sfu_profile_lost(&prof.p, SFU_PROFILE_LOSS_COUNT), 0u);
  EXPECT_EQ(sfu_profile_stopped(&prof.p, SFU_STOP_COUNT), 0u);
}

TEST(Profile, EveryStopReasonIsCountedWithItsStack) {
  X86Chain x;
  Profile prof(16, 2);
  sfu_walk_config config = x.mem.config(SFU_ABI_AMD64_LE);
  struct Case {
    sfu_regs regs;
    sfu_stop stop;
    std::string stack;
  };
  std::vector<Case> cases = {
      {x.start(), SFU_STOP_FRAME_CAP, "frame-cap-reached 0x100210 0x10011f"},  // 3 frames, 2 kept
      {regs_with(x.B + 0x20, {{SFU_X86_64_RSP, 0x7f10}, {SFU_X86_64_RBP, 0x7fa0}}), SFU_STOP_END,
       "end-of-stack 0x100120 0x10002f"},
      {regs_with(x.C + 0x10, {{SFU_X86_64_RSP, kStackHi - 8}, {SFU_X86_64_RBP, 0}}), SFU_STOP_CFA_OUTSIDE_STACK,
       "cfa-outside-stacks 0x100210"},
      {regs_with(x.C + 0x10, {{SFU_X86_64_RBP, 0x7fa0}}), SFU_STOP_BAD_START, "bad-start"},  // no SP: no frame
      {regs_with(x.A + 0x800, {{SFU_X86_64_RSP, 0x7f00}}), SFU_STOP_NO_UNWIND_INFO, "no-unwind-info 0x100800"},
  };
  for (const Case &c : cases) {
    Walked w = walk(c.regs, config);  // the walker agrees on the reason (the cap aside)
    if (c.stop != SFU_STOP_FRAME_CAP) {
      ASSERT_EQ(w.stop, c.stop) << c.stack;
    }
    sfu_profile_sample(&prof.p, &c.regs, &config);
  }
  Read r = read_profile(prof.printed());
  std::map<std::string, uint64_t> stacks, stopped;
  for (const Case &c : cases) {
    stacks[c.stack] = 1;
    stopped[sfu_stop_name(c.stop)] = 1;
    EXPECT_EQ(prof.stopped(c.stop), 1u) << sfu_stop_name(c.stop);
  }
  EXPECT_EQ(r.stacks, stacks);
  EXPECT_EQ(r.stopped, stopped);
  EXPECT_EQ(r.lost, (std::map<std::string, uint64_t>{{"cut-at-depth", 1}}));
  // The read-refused walk: the same chain with its second return address unreadable.
  x.mem.poison(0x7fa8);
  sfu_regs regs = x.start();
  ASSERT_EQ(walk(regs, config).stop, SFU_STOP_READ_REFUSED);
  Profile more(4, 8);
  sfu_profile_sample(&more.p, &regs, &config);
  EXPECT_EQ(read_profile(more.printed()).stacks,
            (std::map<std::string, uint64_t>{{"read-refused 0x100210 0x10011f", 1}}));
  EXPECT_EQ(more.stopped(SFU_STOP_READ_REFUSED), 1u);
}

// ---- init -------------------------------------------------------------------------------------

TEST(Profile, InitRefusesBadParamsAndMemoryByName) {
  std::vector<uint64_t> mem(SFU_PROFILE_MEMORY_SIZE(4, 8) / 8 + 1);
  size_t need = SFU_PROFILE_MEMORY_SIZE(4, 8);
  EXPECT_EQ(need, 4u * (16 + 64));
  sfu_profile p{};
  auto init = [&](sfu_profile_params params, void *m, size_t size, sfu_profile *prof) {
    return std::string(sfu_error_name(sfu_profile_init(prof, m, size, &params)));
  };
  sfu_profile_params ok{4, 8, 0, nullptr};
  EXPECT_EQ(init(ok, mem.data(), need, &p), "ok");
  EXPECT_EQ(init(ok, mem.data(), need, nullptr), "profile-bad-params");
  EXPECT_EQ(sfu_error_name(sfu_profile_init(&p, mem.data(), need, nullptr)), std::string("profile-bad-params"));
  EXPECT_EQ(init({0, 8, 0, nullptr}, mem.data(), need, &p), "profile-bad-params");
  EXPECT_EQ(init({4, 0, 0, nullptr}, mem.data(), need, &p), "profile-bad-params");
  std::vector<uint64_t> big(SFU_PROFILE_MEMORY_SIZE(1, SFU_PROFILE_MAX_DEPTH + 1) / 8);
  EXPECT_EQ(init({1, SFU_PROFILE_MAX_DEPTH + 1, 0, nullptr}, big.data(), big.size() * 8, &p), "profile-bad-params");
  EXPECT_EQ(init({1, SFU_PROFILE_MAX_DEPTH, 0, nullptr}, big.data(), big.size() * 8, &p), "ok");
  EXPECT_EQ(init({4, 8, 0, ""}, mem.data(), need, &p), "profile-bad-params");
  EXPECT_EQ(init({4, 8, 0, "cpu cycles"}, mem.data(), need, &p), "profile-bad-params");
  EXPECT_EQ(init({4, 8, 0, "cycles\n"}, mem.data(), need, &p), "profile-bad-params");
  EXPECT_EQ(init({4, 8, 0, "\x80"}, mem.data(), need, &p), "profile-bad-params");
  EXPECT_EQ(init({4, 8, 0, "abcdefghijklmnopqrstuvwxyz0123456"}, mem.data(), need, &p), "profile-bad-params");
  EXPECT_EQ(init({4, 8, 0, "abcdefghijklmnopqrstuvwxyz012345"}, mem.data(), need, &p), "ok");  // 32 bytes
  EXPECT_EQ(init(ok, nullptr, need, &p), "profile-bad-memory");
  EXPECT_EQ(init(ok, reinterpret_cast<uint8_t *>(mem.data()) + 4, need, &p), "profile-bad-memory");
  EXPECT_EQ(init(ok, mem.data(), need - 1, &p), "profile-bad-memory");
  EXPECT_EQ(init(ok, mem.data(), 0, &p), "profile-bad-memory");
  EXPECT_EQ(init(ok, mem.data(), need, &p), "ok");
}

TEST(Profile, InitClearsOnlyItsBytes) {
  std::vector<uint64_t> mem(SFU_PROFILE_MEMORY_SIZE(2, 2) / 8 + 2, ~0ull);
  sfu_profile p;
  sfu_profile_params params{2, 2, 0, nullptr};
  ASSERT_EQ(sfu_profile_init(&p, mem.data(), mem.size() * 8, &params), SFU_OK);
  for (size_t i = 0; i + 2 < mem.size(); i++) EXPECT_EQ(mem[i], 0u) << i;
  EXPECT_EQ(mem[mem.size() - 2], ~0ull);
  EXPECT_EQ(mem[mem.size() - 1], ~0ull);
}

TEST(Profile, ARefusedProfileDropsSamplesAndPrintsNothing) {
  X86Chain x;
  sfu_walk_config config = x.mem.config(SFU_ABI_AMD64_LE);
  sfu_regs regs = x.start();
  Profile prof(4, 4);
  ASSERT_EQ(prof.error, SFU_OK);
  sfu_profile_sample(&prof.p, &regs, &config);
  sfu_profile_params bad{0, 4, 0, nullptr};
  EXPECT_EQ(sfu_profile_init(&prof.p, prof.memory.data(), prof.memory.size() * 8, &bad), SFU_E_BAD_PROFILE_PARAMS);
  EXPECT_EQ(sfu_profile_samples(&prof.p), 0u);  // its counters cleared
  sfu_profile_sample(&prof.p, &regs, &config);
  EXPECT_EQ(sfu_profile_samples(&prof.p), 1u);
  EXPECT_EQ(prof.lost(SFU_PROFILE_LOST_BAD_REGS), 1u);
  EXPECT_EQ(prof.printed(), "");
}

TEST(Profile, ASampleIntoAnUninitialisedProfileIsDropped) {
  X86Chain x;
  sfu_walk_config config = x.mem.config(SFU_ABI_AMD64_LE);
  sfu_regs regs = x.start();
  sfu_profile p{};  // zeroed, never initialised: no memory to count stacks in
  sfu_profile_sample(&p, &regs, &config);
  EXPECT_EQ(sfu_profile_samples(&p), 1u);
  EXPECT_EQ(sfu_profile_lost(&p, SFU_PROFILE_LOST_BAD_REGS), 1u);
  EXPECT_EQ(sfu_profile_stopped(&p, SFU_STOP_END), 0u);
  std::string s;
  sfu_sink sink{[](void *ctx, char c) { static_cast<std::string *>(ctx)->push_back(c); }, &s};
  sfu_profile_print(&sink, &p);
  EXPECT_EQ(s, "");
  sfu_profile_print(&sink, nullptr);
  sfu_sink no_putc{nullptr, nullptr};
  Profile prof(1, 1);
  sfu_profile_print(&no_putc, &prof.p);  // prints nothing, and does not crash
  sfu_profile_print(nullptr, &prof.p);
  EXPECT_EQ(s, "");
}

// A claimed entry that was never published (its sample interrupted for good): passed over, never
// compared or printed, whatever its frames hold.
TEST(Profile, AClaimedEntryIsNeverComparedNorPrinted) {
  X86Chain x;
  sfu_walk_config config = x.mem.config(SFU_ABI_AMD64_LE);
  sfu_regs regs = x.start();
  Profile prof(1, 4);
  prof.memory[0] = 1;  // the state word (the header's first 4 bytes): claimed
  sfu_profile_sample(&prof.p, &regs, &config);
  EXPECT_EQ(prof.lost(SFU_PROFILE_LOST_TABLE_FULL), 1u);
  Read r = read_profile(prof.printed());
  EXPECT_TRUE(r.stacks.empty());
  Profile two(2, 4);
  two.memory[0] = 1;
  two.memory[(16 + 8 * 4) / 8] = 1;
  sfu_profile_sample(&two.p, &regs, &config);
  EXPECT_EQ(two.lost(SFU_PROFILE_LOST_TABLE_FULL), 1u);
  two.memory[(16 + 8 * 4) / 8] = 0;  // one freed: the stack takes it
  sfu_profile_sample(&two.p, &regs, &config);
  EXPECT_EQ(read_profile(two.printed()).stacks,
            (std::map<std::string, uint64_t>{{"end-of-stack 0x100210 0x10011f 0x10002f", 1}}));
}

// ---- concurrency ------------------------------------------------------------------------------

// Threads sampling one profile at once, as CPUs would: every sample is in exactly one count.
TEST(Profile, ManyThreadsSamplingOneProfileAddUpExactly) {
  constexpr int kThreads = 8, kSamples = 8000, kLeaves = 4;  // few stacks: their counts contended
  Deep d(6);
  sfu_walk_config config = d.config();
  std::vector<sfu_regs> starts;
  for (int l = 0; l < kLeaves; l++) starts.push_back(d.start(uint64_t(l)));
  // Room for all, then too few entries; a few rounds, as a lost count shows only when two adds
  // meet (about every other round with plain adds in place of the atomic ones, on two CPUs).
  for (uint32_t stacks : {64u, 2u, 64u, 2u, 64u, 64u}) {
    SCOPED_TRACE(stacks);
    Profile prof(stacks, 8);
    std::atomic<int> go{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++)
      threads.emplace_back([&, t] {
        go.fetch_add(1);
        while (go.load() < kThreads) {
        }
        for (int i = 0; i < kSamples; i++) sfu_profile_sample(&prof.p, &starts[size_t(i + t) % kLeaves], &config);
      });
    for (std::thread &t : threads) t.join();
    Read r = read_profile(prof.printed());
    const uint64_t all = uint64_t(kThreads) * kSamples;
    EXPECT_EQ(r.samples, all);
    EXPECT_EQ(r.counted + prof.lost(SFU_PROFILE_LOST_TABLE_FULL), all);
    EXPECT_EQ(prof.stopped(SFU_STOP_END), r.counted);
    EXPECT_EQ(prof.lost(SFU_PROFILE_LOST_BAD_REGS), 0u);
    if (stacks == 64) {
      EXPECT_EQ(r.counted, all);
      EXPECT_EQ(r.stacks.size(), size_t(kLeaves));  // duplicate lines, if any, added up
      for (int l = 0; l < kLeaves; l++) EXPECT_EQ(r.stacks[d.stack(6, uint64_t(l))], all / kLeaves) << l;
    } else {
      EXPECT_LE(r.stack_lines, 2u);
      EXPECT_GT(prof.lost(SFU_PROFILE_LOST_TABLE_FULL), 0u);
    }
  }
}

// A sample from inside the sink's putc: a timer interrupt on the CPU that prints. The print stays
// whole: every CRC good, the end line's counts those of the lines printed.
TEST(Profile, SamplesInterruptingAPrintLeaveItConsistent) {
  Deep d(4);
  sfu_walk_config config = d.config();
  std::vector<sfu_regs> starts;
  for (int l = 0; l < 16; l++) starts.push_back(d.start(uint64_t(l)));
  Profile prof(32, 8);
  for (int l = 0; l < 4; l++) sfu_profile_sample(&prof.p, &starts[size_t(l)], &config);
  struct Interrupting {
    std::string text;
    Profile *prof;
    std::vector<sfu_regs> *starts;
    sfu_walk_config *config;
    size_t n = 0;
  } ctx{"", &prof, &starts, &config};
  sfu_sink sink{[](void *c, char ch) {
                  auto *i = static_cast<Interrupting *>(c);
                  i->text.push_back(ch);
                  if (i->n++ % 7 == 0)  // new stacks and old ones, while lines are half written
                    sfu_profile_sample(&i->prof->p, &(*i->starts)[(i->n / 7) % i->starts->size()], i->config);
                },
                &ctx};
  sfu_profile_print(&sink, &prof.p);
  Read r = read_profile(ctx.text);
  EXPECT_GE(r.samples, r.counted);
  EXPECT_GT(sfu_profile_samples(&prof.p), 4u + 50u);
  EXPECT_LE(r.samples, sfu_profile_samples(&prof.p));
  // Afterwards, a quiet print has every sample.
  Read after = read_profile(prof.printed());
  EXPECT_EQ(after.samples, sfu_profile_samples(&prof.p));
  EXPECT_EQ(after.counted, after.samples);
  EXPECT_EQ(after.stacks.size(), 16u);
}

}  // namespace
