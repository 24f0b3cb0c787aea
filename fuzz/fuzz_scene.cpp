// fuzz/fuzz_scene.cpp — libFuzzer target: the 2D scene format
// (prox::planar::parse_scene); an accepted scene must format and parse back.
#include <sstream>
#include <stdexcept>
#include <string>

#include "fuzz_common.hpp"
#include "prox/planar/scene.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(prox::fuzz::bytes_of(data, size))};
  prox::planar::Scene s;
  try {
    s = prox::planar::parse_scene(in, "fuzz.txt");
  } catch (const std::runtime_error&) {
    return 0;
  }
  // format_scene is documented to read back: a throw here is a finding.
  std::istringstream again{prox::planar::format_scene(s)};
  (void)prox::planar::parse_scene(again, "formatted");
  return 0;
}
