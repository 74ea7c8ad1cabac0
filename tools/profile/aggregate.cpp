// Summing and naming profiles (aggregate.h).
#include "tools/profile/aggregate.h"

#include <map>

#include "sframe/format.h"
#include "tools/elf/functions.h"
#include "tools/text/format.h"

namespace sfu::tools::profile {
namespace {

// Where one profile's module ran: the image serving it and its bias; image -1 when none does.
struct Placed {
  int image = -1;
  uint64_t bias = 0;
};

std::string module_text(const PrintedModule &m) { return "module " + std::to_string(m.number) + " (" + m.name + ")"; }

class Summer {
 public:
  Summer(const std::vector<crash::CrashImage> &images, Summed &out, SumError &error)
      : images_(images), out_(out), error_(error) {
    out_.image_used.assign(images.size(), false);
  }

  bool add(const PrintedProfile &p) {
    if (out_.profiles == 0) {
      out_.abi = p.abi;
      out_.period = p.period;
      out_.unit = p.unit;
      first_line_ = p.first_line;
    } else if (p.abi != out_.abi || p.period != out_.period || p.unit != out_.unit) {
      return fail("profile-mismatch", p.first_line,
                  "this profile is of ABI " + std::to_string(p.abi) + ", period " + std::to_string(p.period) + " " +
                      p.unit + "; the one at line " + std::to_string(first_line_) + " of ABI " +
                      std::to_string(out_.abi) + ", period " + std::to_string(out_.period) + " " + out_.unit +
                      ": only profiles of one image sampled alike add up");
    }
    out_.profiles++;
    out_.samples += p.samples;
    out_.counted += p.counted;
    add_counts(out_.lost, p.lost);
    add_counts(out_.stopped, p.stopped);
    std::vector<Placed> placed;
    if (!place(p, placed)) return false;
    for (const PrintedStack &s : p.stacks) {
      std::vector<size_t> frames;
      for (uint64_t a : s.addrs) frames.push_back(frame(p, placed, a));
      if (frames.empty()) frames.push_back(pseudo("[no frames]"));
      auto it = stack_index_.find(frames);
      if (it == stack_index_.end()) {
        it = stack_index_.emplace(frames, out_.stacks.size()).first;
        out_.stacks.push_back({frames, 0});
      }
      out_.stacks[it->second].count += s.count;
    }
    return true;
  }

 private:
  bool fail(const std::string &name, size_t line, const std::string &detail, const std::string &image = "") {
    error_ = {name, line, image, detail};
    return false;
  }

  static void add_counts(std::vector<std::pair<std::string, uint64_t>> &to,
                         const std::vector<std::pair<std::string, uint64_t>> &from) {
    for (const auto &[name, n] : from) {
      bool found = false;
      for (auto &t : to)
        if (t.first == name) t.second += n, found = true;
      if (!found) to.emplace_back(name, n);
    }
  }

  // The module line holding a run-time address: the first that does, or -1.
  static int module_of(const PrintedProfile &p, uint64_t addr) {
    for (size_t i = 0; i < p.modules.size(); i++)
      if (addr >= p.modules[i].start && addr < p.modules[i].end) return int(i);
    return -1;
  }

  // Each module line's image and bias. Only modules that hold frames need one.
  bool place(const PrintedProfile &p, std::vector<Placed> &out) {
    out.assign(p.modules.size(), Placed{});
    std::vector<bool> holds(p.modules.size(), false);
    for (const PrintedStack &s : p.stacks)
      for (uint64_t a : s.addrs)
        if (int m = module_of(p, a); m >= 0) holds[m] = true;
    for (size_t i = 0; i < p.modules.size(); i++) {
      const PrintedModule &m = p.modules[i];
      for (size_t k = 0; k < images_.size(); k++) {
        if (m.build_id.empty() || images_[k].build_id != m.build_id) continue;
        out_.image_used[k] = true;
        if (out[i].image < 0 || crash::image_rank(images_[k]) > crash::image_rank(images_[out[i].image]))
          out[i].image = int(k);
      }
      if (out[i].image < 0) {
        if (!holds[i]) continue;
        if (m.build_id.empty())
          return fail("profile-no-image", p.first_line,
                      module_text(m) + " holds frames but was printed without a build-id: no image can be matched to it");
        return fail("profile-no-image", p.first_line,
                    module_text(m) + " holds frames and no --image has its build-id " +
                        hex_bytes(m.build_id.data(), m.build_id.size()));
      }
      const crash::CrashImage &img = images_[out[i].image];
      if (img.abi != p.abi)
        return fail("profile-image-abi", p.first_line,
                    img.path + " has " + module_text(m) + "'s build-id but is built for " + sfu_abi_name(img.abi) +
                        ", the profile for " + sfu_abi_name(uint8_t(p.abi)));
      LoadBias bias;
      std::string why;
      if (!crash::place_module(img, m.start, m.end, module_text(m), bias, why))
        return fail("profile-unplaced", p.first_line, why);
      out[i].bias = bias.bias;
    }
    return true;
  }

  size_t pseudo(const std::string &name) {
    auto it = pseudo_.find(name);
    if (it != pseudo_.end()) return it->second;
    Frame f;
    f.function = f.system_name = name;
    out_.frames.push_back(f);
    return pseudo_[name] = out_.frames.size() - 1;
  }

  size_t frame(const PrintedProfile &p, const std::vector<Placed> &placed, uint64_t addr) {
    int m = module_of(p, addr);
    if (m < 0) return pseudo("[unknown]");
    const Placed &where = placed[m];
    uint64_t link = addr - where.bias;
    auto key = std::make_pair(where.image, link);
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    Frame f;
    f.image = where.image;
    f.link = link;
    const crash::CrashImage &img = images_[where.image];
    if (const ImageFunction *fn = function_at(img.elf, link)) {
      f.function = dwarf::demangle(fn->name);
      f.system_name = fn->name;
      f.function_start = fn->start;
    } else {
      f.function = f.system_name = hex(link);
    }
    f.source = img.source.frames_at(link);
    out_.frames.push_back(std::move(f));
    return index_[key] = out_.frames.size() - 1;
  }

  const std::vector<crash::CrashImage> &images_;
  Summed &out_;
  SumError &error_;
  size_t first_line_ = 0;
  std::map<std::pair<int, uint64_t>, size_t> index_;  // (image, link address) -> frame
  std::map<std::string, size_t> pseudo_;               // "[unknown]", "[no frames]" -> frame
  std::map<std::vector<size_t>, size_t> stack_index_;  // frames -> stack
};

}  // namespace

bool sum_profiles(const std::vector<PrintedProfile> &profiles, const std::vector<crash::CrashImage> &images,
                  Summed &out, SumError &error) {
  out = Summed{};
  Summer s(images, out, error);
  for (const PrintedProfile &p : profiles)
    if (!s.add(p)) return false;
  for (size_t k = 0; k < images.size(); k++)
    if (!out.image_used[k]) {
      error = {"profile-wrong-image", 0, images[k].path,
               "its build-id " + crash::build_id_text(images[k].build_id) + " is none of the profile's modules"};
      return false;
    }
  return true;
}

}  // namespace sfu::tools::profile
