// fuzz/fuzz_stl.cpp — libFuzzer target: prox::io::parse_stl on arbitrary bytes.
#include "fuzz_common.hpp"
#include "prox/io/read_mesh.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const prox::io::MeshData m = prox::io::parse_mesh(prox::fuzz::bytes_of(data, size),
                                                      prox::io::MeshFormat::stl, "fuzz.stl");
    prox::fuzz::exercise(m);
  } catch (const prox::io::ReadError&) {
  }
  return 0;
}
