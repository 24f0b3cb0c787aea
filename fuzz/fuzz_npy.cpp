// fuzz/fuzz_npy.cpp — libFuzzer target: prox::io::parse_npy on arbitrary bytes.
#include "fuzz_common.hpp"
#include "prox/io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const prox::io::NpyArray a = prox::io::parse_npy(prox::fuzz::bytes_of(data, size), "fuzz.npy");
    std::size_t n = 1;
    for (std::size_t d : a.shape) n *= d;
    if (n != a.data.size()) std::abort();
  } catch (const prox::io::ReadError&) {
  }
  return 0;
}
