// fuzz/fuzz_obj.cpp — libFuzzer target: prox::io::parse_obj on arbitrary bytes.
#include "fuzz_common.hpp"
#include "prox/io/read_mesh.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const prox::io::MeshData m = prox::io::parse_mesh(prox::fuzz::bytes_of(data, size),
                                                      prox::io::MeshFormat::obj, "fuzz.obj");
    prox::fuzz::exercise(m);
  } catch (const prox::io::ReadError&) {
  }
  return 0;
}
