#include "support/test_names.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

std::set<std::string> test_names_under(const std::string &dir) {
  std::set<std::string> names;
  const std::regex test_re(R"(\bTEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\))");
  for (const auto &entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream f(entry.path());
    const std::string src{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    for (std::sregex_iterator it(src.begin(), src.end(), test_re), end; it != end; ++it)
      names.insert((*it)[1].str() + "." + (*it)[2].str());
  }
  return names;
}
