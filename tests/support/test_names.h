// Every test the tree defines, for the checks that documents name only tests that exist.
#pragma once

#include <set>
#include <string>

// "Suite.Test" for every TEST, TEST_F and TEST_P in the .cpp files under dir.
std::set<std::string> test_names_under(const std::string &dir);
