#include "support/corpus.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace sfu::test {
namespace fs = std::filesystem;

std::string corpus_dir() { return SFU_CORPUS_DIR; }

std::vector<std::string> corpus_case_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(corpus_dir(), ec))
    if (e.is_directory() && fs::exists(e.path() / "section.bin")) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

CorpusCase load_corpus_case(const std::string &name) {
  fs::path dir = fs::path(corpus_dir()) / name;
  CorpusCase c;
  c.name = name;

  std::ifstream bin(dir / "section.bin", std::ios::binary);
  if (!bin) throw std::runtime_error("cannot read " + (dir / "section.bin").string());
  c.section.assign(std::istreambuf_iterator<char>(bin), std::istreambuf_iterator<char>());

  std::ifstream base_file(dir / "section_base");
  std::string base;
  if (!(base_file >> base)) throw std::runtime_error("cannot read " + (dir / "section_base").string());
  size_t used = 0;
  try {
    c.section_base = std::stoull(base, &used, 16);  // accepts a 0x prefix
  } catch (const std::exception &) {
    used = 0;
  }
  if (used == 0 || used != base.size())
    throw std::runtime_error("section_base of " + name + " is not hex: '" + base + "'");
  return c;
}

}  // namespace sfu::test
