// `sfu profile --format pprof` (output.h): profile.proto written field by field (the field numbers
// of github.com/google/pprof/proto/profile.proto), then wrapped in gzip of stored deflate blocks:
// pprof reads gzip; stored blocks need no compressor, and the CRC-32 is the core's sfu_crc32.
#include <map>
#include <tuple>

#include "sfu/crash.h"
#include "tools/elf/elf_file.h"
#include "tools/profile/output.h"
#include "tools/text/format.h"

namespace sfu::tools::profile {
namespace {

// A protobuf message being written: fields appended in order.
class Message {
 public:
  void varint(uint32_t field, uint64_t v) {
    key(field, 0);
    raw_varint(v);
  }
  void bytes(uint32_t field, const std::string &b) {
    key(field, 2);
    raw_varint(b.size());
    out_ += b;
  }
  void message(uint32_t field, const Message &m) { bytes(field, m.out_); }
  // A packed repeated varint field (proto3's default for repeated scalars).
  void packed(uint32_t field, const std::vector<uint64_t> &vs) {
    Message m;
    for (uint64_t v : vs) m.raw_varint(v);
    bytes(field, m.out_);
  }
  const std::string &data() const { return out_; }

 private:
  void key(uint32_t field, unsigned wire) { raw_varint(uint64_t(field) << 3 | wire); }
  void raw_varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(char(v | 0x80));
      v >>= 7;
    }
    out_.push_back(char(v));
  }
  std::string out_;
};

// profile.proto's field numbers.
namespace pb {
constexpr uint32_t kSampleType = 1, kSample = 2, kMapping = 3, kLocation = 4, kFunction = 5, kStringTable = 6,
                   kPeriodType = 11, kPeriod = 12, kComment = 13, kDefaultSampleType = 14;
constexpr uint32_t kValueTypeType = 1, kValueTypeUnit = 2;
constexpr uint32_t kSampleLocationId = 1, kSampleValue = 2;
constexpr uint32_t kMappingId = 1, kMappingStart = 2, kMappingLimit = 3, kMappingFilename = 5, kMappingBuildId = 6,
                   kMappingHasFunctions = 7, kMappingHasFilenames = 8, kMappingHasLineNumbers = 9,
                   kMappingHasInlineFrames = 10;
constexpr uint32_t kLocationId = 1, kLocationMappingId = 2, kLocationAddress = 3, kLocationLine = 4;
constexpr uint32_t kLineFunctionId = 1, kLineLine = 2;
constexpr uint32_t kFunctionId = 1, kFunctionName = 2, kFunctionSystemName = 3, kFunctionFilename = 4;
}  // namespace pb

class Strings {
 public:
  Strings() { index(""); }
  uint64_t index(const std::string &s) {
    auto [it, added] = ids_.emplace(s, table_.size());
    if (added) table_.push_back(s);
    return it->second;
  }
  const std::vector<std::string> &table() const { return table_; }

 private:
  std::map<std::string, uint64_t> ids_;
  std::vector<std::string> table_;
};

// The gzip stream (RFC 1952) of `data` in stored deflate blocks (RFC 1951, BTYPE 00).
std::vector<uint8_t> gzip_stored(const std::string &data) {
  std::vector<uint8_t> out = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};  // deflate, no flags, no time, OS unknown
  size_t at = 0;
  do {
    size_t n = std::min<size_t>(data.size() - at, 65535);
    bool last = at + n == data.size();
    out.push_back(last ? 1 : 0);
    for (uint16_t v : {uint16_t(n), uint16_t(~n)}) {
      out.push_back(uint8_t(v));
      out.push_back(uint8_t(v >> 8));
    }
    out.insert(out.end(), data.begin() + long(at), data.begin() + long(at + n));
    at += n;
  } while (at < data.size());
  for (uint32_t v : {sfu_crc32(0, data.data(), data.size()), uint32_t(data.size())})
    for (int i = 0; i < 4; i++) out.push_back(uint8_t(v >> (8 * i)));
  return out;
}

// The span of an image's executable sections: its mapping's range.
std::pair<uint64_t, uint64_t> code_span(const ElfImage &elf) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const ElfSectionHeader &s : elf.sections)
    if ((s.flags & kShfExecinstr) && (s.flags & kShfAlloc) && s.size) {
      lo = std::min(lo, s.addr);
      hi = std::max(hi, s.addr + s.size);
    }
  return lo < hi ? std::make_pair(lo, hi) : std::make_pair(uint64_t(0), uint64_t(0));
}

}  // namespace

std::vector<uint8_t> pprof_bytes(const Summed &s, const std::vector<crash::CrashImage> &images) {
  Strings strings;
  Message profile;
  auto value_type = [&](const std::string &type, const std::string &unit) {
    Message m;
    m.varint(pb::kValueTypeType, strings.index(type));
    m.varint(pb::kValueTypeUnit, strings.index(unit));
    return m;
  };
  // Samples, and with a known period the time (or cycles, instructions) they stand for.
  profile.message(pb::kSampleType, value_type("samples", "count"));
  Message period_type = s.unit == "nanoseconds" ? value_type("cpu", "nanoseconds") : value_type(s.unit, "count");
  if (s.period) profile.message(pb::kSampleType, period_type);
  for (const Stack &st : s.stacks) {
    Message m;
    std::vector<uint64_t> ids;
    for (size_t f : st.frames) ids.push_back(f + 1);  // leaf first, as the format wants
    m.packed(pb::kSampleLocationId, ids);
    std::vector<uint64_t> values = {st.count};
    if (s.period) values.push_back(st.count * s.period);
    m.packed(pb::kSampleValue, values);
    profile.message(pb::kSample, m);
  }
  // A mapping per image, at its link addresses (the locations' addresses are link addresses: profiles
  // of several boots of a moved image sum there).
  for (size_t k = 0; k < images.size(); k++) {
    Message m;
    auto [lo, hi] = code_span(images[k].elf);
    m.varint(pb::kMappingId, k + 1);
    m.varint(pb::kMappingStart, lo);
    m.varint(pb::kMappingLimit, hi);
    m.varint(pb::kMappingFilename, strings.index(images[k].path));
    m.varint(pb::kMappingBuildId, strings.index(crash::build_id_text(images[k].build_id)));
    bool lines = images[k].source.has_debug_info();
    m.varint(pb::kMappingHasFunctions, 1);
    m.varint(pb::kMappingHasFilenames, lines);
    m.varint(pb::kMappingHasLineNumbers, lines);
    m.varint(pb::kMappingHasInlineFrames, lines);
    profile.message(pb::kMapping, m);
  }
  // A location per frame; its lines innermost first, the function it physically sits in last.
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> functions;
  std::vector<Message> function_messages;
  auto function_id = [&](const std::string &name, const std::string &system_name, const std::string &file) {
    auto [it, added] = functions.emplace(std::make_tuple(name, system_name, file), functions.size() + 1);
    if (added) {
      Message m;
      m.varint(pb::kFunctionId, it->second);
      m.varint(pb::kFunctionName, strings.index(name));
      m.varint(pb::kFunctionSystemName, strings.index(system_name));
      m.varint(pb::kFunctionFilename, strings.index(file));
      function_messages.push_back(m);
    }
    return it->second;
  };
  for (size_t i = 0; i < s.frames.size(); i++) {
    const Frame &f = s.frames[i];
    Message loc;
    loc.varint(pb::kLocationId, i + 1);
    if (f.image >= 0) {
      loc.varint(pb::kLocationMappingId, uint64_t(f.image) + 1);
      loc.varint(pb::kLocationAddress, f.link);
    }
    auto line = [&](uint64_t function, uint32_t number) {
      Message l;
      l.varint(pb::kLineFunctionId, function);
      if (number) l.varint(pb::kLineLine, number);
      loc.message(pb::kLocationLine, l);
    };
    if (f.source.empty()) {
      line(function_id(f.function, f.system_name, ""), 0);
    } else {
      for (size_t k = 0; k < f.source.size(); k++) {
        const dwarf::SourceFrame &sf = f.source[k];
        // The outermost is the function the address sits in: named as every other output names it.
        bool physical = k + 1 == f.source.size() && f.function_start;
        std::string name = physical ? f.function : dwarf::demangle(sf.function);
        std::string system = physical ? f.system_name : sf.function;
        line(function_id(name, system, sf.file == "??" ? "" : sf.file), sf.line);
      }
    }
    profile.message(pb::kLocation, loc);
  }
  for (const Message &m : function_messages) profile.message(pb::kFunction, m);
  // What was lost or cut, as comments (go tool pprof -comments).
  std::vector<uint64_t> comments;
  comments.push_back(strings.index("sfu profile: " + std::to_string(s.samples) + " samples taken, " +
                                   std::to_string(s.counted) + " counted, from " + std::to_string(s.profiles) +
                                   " profile(s)"));
  for (const auto &[name, n] : s.lost) comments.push_back(strings.index("lost: " + name + " " + std::to_string(n)));
  for (const auto &[name, n] : s.stopped) comments.push_back(strings.index("stopped: " + name + " " + std::to_string(n)));
  if (s.period) {
    profile.message(pb::kPeriodType, period_type);
    profile.varint(pb::kPeriod, s.period);
  }
  for (uint64_t c : comments) profile.varint(pb::kComment, c);
  profile.varint(pb::kDefaultSampleType, strings.index("samples"));
  // The string table last: every index above has been taken.
  for (const std::string &str : strings.table()) profile.bytes(pb::kStringTable, str);
  return gzip_stored(profile.data());
}

}  // namespace sfu::tools::profile
