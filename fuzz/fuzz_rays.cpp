// fuzz/fuzz_rays.cpp — libFuzzer target: the rays table (text or .npy, 6 or
// 8 columns, t_min/t_max filled), as `prox raycast` reads it.
#include <limits>

#include "fuzz_common.hpp"
#include "prox/io/mesh_data.hpp"
#include "prox/io/read_table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const double inf = std::numeric_limits<double>::infinity();
  try {
    const prox::io::Table t = prox::io::parse_table(prox::fuzz::bytes_of(data, size), "fuzz",
                                                    {6, 8}, {0, 0, 0, 0, 0, 0, 0.0, inf});
    if (t.columns != 8 || t.values.size() != t.rows * 8) std::abort();
  } catch (const prox::io::ReadError&) {
  }
  return 0;
}
