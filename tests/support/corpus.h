// The conformance corpus (SFU_CORPUS_DIR): real .sframe sections, one folder per case, each
// with section.bin, section_base (hex text) and objdump.txt. Loading only: what a test does
// with the bytes is its own business.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

namespace sfu::test {

struct CorpusCase {
  std::string name;
  std::vector<uint8_t> section;  // may be empty: the linker dropped a table with nothing in it
  uint64_t section_base = 0;     // the address the section was loaded at
};

// The corpus directory the tests were built against.
std::string corpus_dir();

// Names of every case (folders holding a section.bin), sorted. Empty if the directory is
// missing; callers that need cases should assert the list is not empty.
std::vector<std::string> corpus_case_names();

// Loads one case. Throws std::runtime_error if a file is missing or section_base is not hex,
// so a broken corpus fails the test that uses it instead of testing nothing.
CorpusCase load_corpus_case(const std::string &name);

}  // namespace sfu::test
