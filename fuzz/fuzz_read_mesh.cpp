// fuzz/fuzz_read_mesh.cpp — libFuzzer target: format sniffing
// (format_from_content) then the reader it picks, as read_mesh does for a file
// without a known extension.
#include "fuzz_common.hpp"
#include "prox/io/read_mesh.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = prox::fuzz::bytes_of(data, size);
  const auto format = prox::io::format_from_content(bytes);
  if (!format) return 0;
  try {
    prox::fuzz::exercise(prox::io::parse_mesh(bytes, *format, "fuzz.bin"));
  } catch (const prox::io::ReadError&) {
  }
  return 0;
}
