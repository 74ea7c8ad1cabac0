// The synthetic-table benchmarks of `make bench` (bench/bench_tables.cpp).
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

struct BenchLine {
  std::string what;  // "scale", "cold", "worst-step"
  uint32_t functions;
  double ns;  // per frame; per step for worst-step
};

struct WorstCase {
  std::string table;
  double ns;
};

// Runs the scale, cold and worst-step measurements (rounds: of the warm scale walks).
void bench_tables(int rounds, std::vector<BenchLine> &lines, std::vector<WorstCase> &cases);

// The line `make bench` prints for one measurement.
std::string bench_line(const BenchLine &l);
