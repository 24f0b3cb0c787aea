// tests/support/scale.hpp — how many random cases a test runs.
//
// PROX_TEST_SCALE (default 1) multiplies every random-case count, so the
// sanitizer build can run the same tests on fewer cases (run-tests sets 0.02).
#pragma once

#include <cstdlib>
#include <cstdint>

namespace prox::test {

inline double test_scale() {
  const char* s = std::getenv("PROX_TEST_SCALE");
  if (!s) return 1.0;
  const double v = std::atof(s);
  return v > 0 ? v : 1.0;
}

/// `full` scaled by PROX_TEST_SCALE, at least `floor`.
inline std::int64_t scaled_count(std::int64_t full, std::int64_t floor = 1000) {
  const auto n = static_cast<std::int64_t>(static_cast<double>(full) * test_scale());
  return n < floor ? floor : n;
}

}  // namespace prox::test
