// The sampling profiler (sfu/profile.h): a walk per sample, its stack counted in a fixed table of
// distinct stacks in the caller's memory, and the table printed as checksummed lines
// (docs/profile-format.md). Without CONFIG_SFU_PROFILE every call returns at once and none of the
// rest is built.
//
// A sample makes one atomic add in the common case, to its stack's count: the samples taken, the
// stop reasons and the stacks cut at the depth (those whose stop is frame-cap-reached) are all
// read from the table, and only the samples dropped (table-full, bad-regs) have counters.
//
// An entry: a 16-byte header (state, depth, stop, count) and max_depth frames. The state word is
// 0 (empty), kClaimed (a sample is writing it) or the stack's tag (published: its frames never
// change again, only its count). Nothing but the state is read before the state is a tag, so an
// entry a sample claimed and was interrupted before publishing is never compared, only passed by.
#include "atomic.h"
#include "config.h"
#include "print/checksummed_line.h"
#include "print/module_line.h"
#include "sfu/crash.h"  // sfu_crc32, shared with the crash records and built with or without them
#include "sfu/profile.h"
#include "unwind/registry.h"

namespace sfu::profile {
namespace {

constexpr uint32_t kMagic = 0x53465550;  // "SFUP"; set last by init
constexpr uint32_t kClaimed = 1;         // states 0 and 1 are no tag
constexpr uint32_t kMaxProbes = 16;
constexpr uint32_t kUnitMax = 32;  // a period unit's bytes

// The ABI printed in the begin line: the build's own; host builds (which walk every ABI) the
// machine's, as a kernel built for it would print.
constexpr unsigned kPrintedAbi =
#if SFU_BUILD_ABI != 0
    SFU_BUILD_ABI;
#elif defined(__x86_64__)
    SFU_ABI_AMD64_LE;
#elif defined(__aarch64__) && defined(__AARCH64EB__)
    SFU_ABI_AARCH64_BE;
#elif defined(__aarch64__)
    SFU_ABI_AARCH64_LE;
#else
    SFU_ABI_S390X_BE;
#endif

struct Header {
  uint32_t state;  // 0, kClaimed, or the tag
  uint16_t depth;  // frames kept
  uint8_t stop;    // enum sfu_stop of the walks counted here
  uint8_t reserved;
  uint64_t count;
};
static_assert(sizeof(Header) == 16, "sfu/profile.h's SFU_PROFILE_ENTRY_SIZE counts a 16-byte header");

Header *entry(const sfu_profile &p, uint32_t i) {
  return reinterpret_cast<Header *>(static_cast<uint8_t *>(p.memory) + uint64_t(i) * SFU_PROFILE_ENTRY_SIZE(p.max_depth));
}
uint64_t *frames_of(Header *e) { return reinterpret_cast<uint64_t *>(e + 1); }

// A counter's add: one atomic read-modify-write with CONFIG_SFU_SMP; without it (one CPU, no
// atomic read-modify-write: src/atomic.h) a plain load and store.
void add(uint64_t *counter, uint64_t n) {
  if constexpr (config::kSmp)
    __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
  else
    __atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

uint64_t load(const uint64_t *counter) { return __atomic_load_n(counter, __ATOMIC_RELAXED); }

// The stack's hash, one multiply per frame taken as the walk gives it (where it costs nothing:
// the next step's reads take longer), and a final mix with the depth and the stop reason.
constexpr uint64_t kHashStart = 0x9e3779b97f4a7c15ull;
inline uint64_t hash_frame(uint64_t h, uint64_t frame) { return (h ^ frame) * 0xff51afd7ed558ccdull; }
uint64_t hash_end(uint64_t h, uint32_t depth, uint8_t stop) {
  h = hash_frame(h, uint64_t(depth) << 8 | stop);
  return h ^ (h >> 29);
}

bool same_stack(Header *e, const uint64_t *frames, uint32_t depth, uint8_t stop) {
  if (e->depth != depth || e->stop != stop) return false;
  const uint64_t *f = frames_of(e);
  for (uint32_t i = 0; i < depth; i++)
    if (f[i] != frames[i]) return false;
  return true;
}

// Counts the stack: in its published entry, or in an empty one it claims, among at most
// kMaxProbes from the hash's. False when none was free: the table is full for it.
bool count_stack(sfu_profile &p, const uint64_t *frames, uint32_t depth, uint8_t stop, uint64_t h) {
  uint32_t tag = uint32_t(h >> 32);
  if (tag <= kClaimed) tag += 2;
  uint32_t at = uint32_t(h % p.max_stacks);
  uint32_t probes = p.max_stacks < kMaxProbes ? p.max_stacks : kMaxProbes;
  for (uint32_t k = 0; k < probes; k++, at = at + 1 == p.max_stacks ? 0 : at + 1) {
    Header *e = entry(p, at);
    uint32_t state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
      if (compare_and_swap(&e->state, state, kClaimed)) {
        uint64_t *f = frames_of(e);
        for (uint32_t i = 0; i < depth; i++) f[i] = frames[i];
        e->depth = uint16_t(depth);
        e->stop = stop;
        __atomic_store_n(&e->count, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&e->state, tag, __ATOMIC_RELEASE);  // the frames before the tag
        return true;
      }
      // Taken since the load: state now holds what took it (claimed, or published and acquired).
    }
    if (state == tag && same_stack(e, frames, depth, stop)) {
      add(&e->count, 1);
      return true;
    }
  }
  return false;
}

// "sfu-profile-<kind>" begins every line.
void begin_line(sfu::print::ChecksummedLine &l, const char *kind) {
  sfu_print_str(&l.sink, "sfu-profile-");
  sfu_print_str(&l.sink, kind);
}

bool unit_ok(const char *unit) {
  if (!unit) return true;
  uint32_t n = 0;
  for (; n <= kUnitMax && unit[n] != '\0'; n++)
    if (unit[n] <= ' ' || unit[n] > '~') return false;  // one printed field: no space, no control
  return n >= 1 && n <= kUnitMax;
}

void clear(sfu_profile &p) {
  p.memory = nullptr;
  p.max_stacks = p.max_depth = 0;
  p.period = 0;
  p.period_unit = nullptr;
  for (uint64_t &c : p.lost) __atomic_store_n(&c, 0, __ATOMIC_RELAXED);
}

bool live(const sfu_profile *p) { return p && __atomic_load_n(&p->magic, __ATOMIC_ACQUIRE) == kMagic; }

// One pass over the table: the counts of the published entries as read now, by stop reason.
struct Counted {
  uint64_t all = 0;
  uint64_t by_stop[SFU_STOP_COUNT];  // zeroed by each_stack's loop: `= {}` is a memset call on arm64
};

// Calls each(entry, count) for every published entry, and adds its count up.
template <class Each>
Counted each_stack(const sfu_profile &p, Each each) {
  Counted c;
  for (uint64_t &n : c.by_stop) n = 0;
  if (!live(&p)) return c;
  for (uint32_t i = 0; i < p.max_stacks; i++) {
    Header *e = entry(p, i);
    if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) <= kClaimed) continue;  // frames before count
    uint64_t count = load(&e->count);
    each(e, count);
    c.all += count;
    c.by_stop[e->stop < SFU_STOP_COUNT ? e->stop : 0] += count;
  }
  return c;
}

uint64_t dropped(const sfu_profile &p) {
  return load(&p.lost[SFU_PROFILE_LOST_TABLE_FULL]) + load(&p.lost[SFU_PROFILE_LOST_BAD_REGS]);
}

}  // namespace
}  // namespace sfu::profile

using namespace sfu::profile;

extern "C" enum sfu_error sfu_profile_init(struct sfu_profile *profile, void *memory, size_t size,
                                           const struct sfu_profile_params *params) {
  if constexpr (!sfu::config::kProfile) return SFU_E_PROFILE_DISABLED;
  if (!profile) return SFU_E_BAD_PROFILE_PARAMS;
  __atomic_store_n(&profile->magic, 0, __ATOMIC_RELEASE);
  clear(*profile);
  if (!params || params->max_stacks == 0 || params->max_depth == 0 || params->max_depth > SFU_PROFILE_MAX_DEPTH ||
      !unit_ok(params->period_unit))
    return SFU_E_BAD_PROFILE_PARAMS;
  uint64_t need = SFU_PROFILE_MEMORY_SIZE(params->max_stacks, params->max_depth);
  if (!memory || (uintptr_t(memory) & 7) != 0 || uint64_t(size) < need) return SFU_E_BAD_PROFILE_MEMORY;
  // Word by word (the build keeps such loops as loops): the entries' states first of all.
  uint64_t *words = static_cast<uint64_t *>(memory);
  for (uint64_t i = 0; i < need / 8; i++) words[i] = 0;
  profile->memory = memory;
  profile->max_stacks = params->max_stacks;
  profile->max_depth = params->max_depth;
  profile->period = params->period;
  profile->period_unit = params->period_unit;
  __atomic_store_n(&profile->magic, kMagic, __ATOMIC_RELEASE);  // everything above before it
  return SFU_OK;
}

extern "C" void sfu_profile_sample(struct sfu_profile *profile, const struct sfu_regs *regs,
                                   const struct sfu_walk_config *config) {
  if constexpr (!sfu::config::kProfile) return;
  if (!profile) return;
  if (!live(profile) || !regs || !config) {
    add(&profile->lost[SFU_PROFILE_LOST_BAD_REGS], 1);
    return;
  }
  sfu_profile &p = *profile;
  // One frame more than kept, to know a stack was cut; the caller's configuration otherwise.
  sfu_walk_config walk = *config;
  walk.max_frames = p.max_depth + 1;
  // On this stack, 8 bytes a frame kept: the frames must be known whole before an entry is
  // chosen (by their hash) and compared.
  uint64_t *frames = static_cast<uint64_t *>(__builtin_alloca(8 * size_t(p.max_depth)));
  sfu_cursor cursor;
  sfu_frame frame;
  sfu_walk_start(&cursor, regs, &walk);
  uint32_t n = 0;
  uint64_t h = kHashStart;
  while (n <= p.max_depth && sfu_walk_next(&cursor, &frame)) {
    if (n < p.max_depth) {
      frames[n] = sfu_frame_lookup_pc(&frame);
      h = hash_frame(h, frames[n]);
    }
    n++;
  }
  bool cut = n > p.max_depth;
  uint8_t stop = cut ? uint8_t(SFU_STOP_FRAME_CAP) : uint8_t(sfu_walk_stop(&cursor));
  if (cut) n = p.max_depth;
  if (!count_stack(p, frames, n, stop, hash_end(h, n, stop))) add(&p.lost[SFU_PROFILE_LOST_TABLE_FULL], 1);
}

extern "C" uint64_t sfu_profile_samples(const struct sfu_profile *profile) {
  if constexpr (!sfu::config::kProfile) return 0;
  if (!profile) return 0;
  uint64_t counted = each_stack(*profile, [](Header *, uint64_t) {}).all;
  return counted + dropped(*profile);
}

extern "C" uint64_t sfu_profile_lost(const struct sfu_profile *profile, enum sfu_profile_loss loss) {
  if constexpr (!sfu::config::kProfile) return 0;
  if (!profile || unsigned(loss) >= unsigned(SFU_PROFILE_LOSS_COUNT)) return 0;
  if (loss == SFU_PROFILE_CUT_AT_DEPTH)
    return each_stack(*profile, [](Header *, uint64_t) {}).by_stop[SFU_STOP_FRAME_CAP];
  return load(&profile->lost[loss]);
}

extern "C" uint64_t sfu_profile_stopped(const struct sfu_profile *profile, enum sfu_stop stop) {
  if constexpr (!sfu::config::kProfile) return 0;
  if (!profile || unsigned(stop) >= unsigned(SFU_STOP_COUNT)) return 0;
  return each_stack(*profile, [](Header *, uint64_t) {}).by_stop[stop];
}

extern "C" void sfu_profile_print(const struct sfu_sink *sink, const struct sfu_profile *profile) {
  if constexpr (!sfu::config::kProfile) return;
  if (!sink || !sink->putc || !live(profile)) return;
  const sfu_profile &p = *profile;
  sfu::print::ChecksummedLine l(sink);
  const sfu_sink *s = &l.sink;

  begin_line(l, "begin v1 ");
  sfu_print_udec(s, kPrintedAbi);
  sfu_print_str(s, " period=");
  sfu_print_udec(s, p.period);
  sfu_print_str(s, " unit=");
  sfu_print_str(s, p.period_unit ? p.period_unit : "nanoseconds");
  sfu_print_str(s, " stacks=");
  sfu_print_udec(s, p.max_stacks);
  sfu_print_str(s, " depth=");
  sfu_print_udec(s, p.max_depth);
  l.end();
  uint64_t lines = 1;

  uint32_t modules = 0;
  for (unsigned slot = 0; slot < sfu::unwind::kModuleSlots; slot++) {
    const sfu_module *m = sfu::unwind::module_in_slot(slot);
    if (!m) continue;
    begin_line(l, "");
    bool id = m->build_id_error == SFU_OK;
    sfu::print::module_line(s, modules++, m->name, SFU_PRINT_STR_MAX, m->table.text_start, m->table.text_end,
                            id ? m->build_id : nullptr, id ? m->build_id_size : 0);
    l.end();
    lines++;
  }

  // Each published entry once, its count as read now: the end line's sum, the stop and
  // cut-at-depth lines are of these lines.
  Counted counted = each_stack(p, [&](Header *e, uint64_t count) {
    begin_line(l, "stack ");
    sfu_print_udec(s, count);
    sfu_print_str(s, " ");
    sfu_print_str(s, sfu_stop_name(sfu_stop(e->stop)));
    const uint64_t *f = frames_of(e);
    for (uint32_t k = 0; k < e->depth; k++) {
      sfu_print_str(s, " ");
      sfu_print_hex(s, f[k], 0);
    }
    l.end();
    lines++;
  });
  uint64_t lost[SFU_PROFILE_LOSS_COUNT];
  for (unsigned r = 0; r < SFU_PROFILE_LOSS_COUNT; r++) lost[r] = load(&p.lost[r]);
  lost[SFU_PROFILE_CUT_AT_DEPTH] = counted.by_stop[SFU_STOP_FRAME_CAP];

  static const char kLossNames[] =
#define SFU_PROFILE_LOSS_NAME(name, text) text "\0"
      SFU_PROFILE_LOSSES(SFU_PROFILE_LOSS_NAME)
#undef SFU_PROFILE_LOSS_NAME
      ;
  const char *name = kLossNames;
  for (unsigned r = 0; r < SFU_PROFILE_LOSS_COUNT; r++) {
    uint64_t v = lost[r];
    if (v) {
      begin_line(l, "lost ");
      sfu_print_str(s, name);
      sfu_print_str(s, " ");
      sfu_print_udec(s, v);
      l.end();
      lines++;
    }
    while (*name++) {
    }
  }
  for (unsigned r = 0; r < SFU_STOP_COUNT; r++) {
    uint64_t v = counted.by_stop[r];
    if (!v) continue;
    begin_line(l, "stopped ");
    sfu_print_str(s, sfu_stop_name(sfu_stop(r)));
    sfu_print_str(s, " ");
    sfu_print_udec(s, v);
    l.end();
    lines++;
  }

  // The samples: those the lines count, and those dropped.
  begin_line(l, "end samples=");
  sfu_print_udec(s, counted.all + lost[SFU_PROFILE_LOST_TABLE_FULL] + lost[SFU_PROFILE_LOST_BAD_REGS]);
  sfu_print_str(s, " counted=");
  sfu_print_udec(s, counted.all);
  sfu_print_str(s, " lines=");
  sfu_print_udec(s, lines + 1);
  l.end();
}
