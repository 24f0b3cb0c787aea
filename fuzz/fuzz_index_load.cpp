// fuzz/fuzz_index_load.cpp — libFuzzer target: MeshIndex<T>::load (the saved
// index format of prox/mesh/mesh_index.hpp), float and double. The first byte
// picks the precision; an accepted index is queried against its BruteForce twin.
#include <sstream>
#include <string>

#include "fuzz_common.hpp"

template <class T>
void load(std::string_view bytes) {
  std::istringstream in{std::string(bytes)};
  try {
    const prox::MeshIndex<T> index = prox::MeshIndex<T>::load(in);
    const prox::BruteForce<T> brute(index.mesh());
    const prox::Vec3<T> p{T(0.25), T(-0.5), T(0.75)};
    if (index.closest_point(p).triangle != brute.closest_point(p).triangle) std::abort();
  } catch (const prox::MeshError&) {
  }
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes = prox::fuzz::bytes_of(data + 1, size - 1);
  if (data[0] & 1) {
    load<double>(bytes);
  } else {
    load<float>(bytes);
  }
  return 0;
}
