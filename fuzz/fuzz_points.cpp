// fuzz/fuzz_points.cpp — libFuzzer target: the points table (text or .npy,
// 3 columns), as `prox closest` reads it.
#include "fuzz_common.hpp"
#include "prox/io/mesh_data.hpp"
#include "prox/io/read_table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const prox::io::Table t = prox::io::parse_table(prox::fuzz::bytes_of(data, size), "fuzz", {3});
    if (t.columns != 3 || t.values.size() != t.rows * 3) std::abort();
  } catch (const prox::io::ReadError&) {
  }
  return 0;
}
