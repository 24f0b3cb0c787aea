// tests/gpu/gpu_support.hpp — the shared Vulkan context of a GPU test, or a skip.
//
// Tests skip, saying why, where no Vulkan device is usable; with
// PROX_REQUIRE_GPU=1 (the default of a build configured with CI set) they
// fail instead, so CI, which installs lavapipe, never skips silently.
// Lavapipe is forced through VK_ICD_FILENAMES / VK_DRIVER_FILES (unless set
// already) unless the build was configured with -DPROX_GPU_TEST_DRIVER=system
// (scripts/gpu-bench.sh).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "prox/gpu/gpu.hpp"

// LeakSanitizer (CI's ASan build): lavapipe's LLVM JIT registers unwind
// frames through libgcc_s and never frees them; not prox's memory. Defined
// here because each GPU test executable has exactly one source file.
extern "C" __attribute__((used)) const char* __lsan_default_suppressions() {
  return "leak:libgcc_s.so\nleak:libvulkan_lvp.so\nleak:libLLVM\n";
}

namespace prox::test {

/// The process's context, created once; nullptr (and the reason) when none.
inline gpu::Context* gpu_context(std::string* why = nullptr) {
  static std::string reason;
  // Never destroyed: the driver then stays mapped until exit, so a leak
  // report inside it (see above) names its module and is suppressed.
  static gpu::Context* ctx = []() -> gpu::Context* {
    // Lavapipe unless the caller chose a driver (tests/gpu/CMakeLists.txt).
    if (*PROX_GPU_TEST_ICD && !std::getenv("VK_ICD_FILENAMES") && !std::getenv("VK_DRIVER_FILES")) {
      setenv("VK_ICD_FILENAMES", PROX_GPU_TEST_ICD, 1);
      setenv("VK_DRIVER_FILES", PROX_GPU_TEST_ICD, 1);
    }
    try {
      auto* c = new gpu::Context();
      std::printf("gpu device: %s\n", c->device().summary().c_str());
      return c;
    } catch (const gpu::GpuError& e) {
      reason = e.what();
      return nullptr;
    }
  }();
  if (why) *why = reason;
  return ctx;
}

inline bool gpu_required() {
  const char* r = std::getenv("PROX_REQUIRE_GPU");
  if (r) return std::string(r) == "1";
  return PROX_GPU_TEST_REQUIRED != 0;
}

/// Sets ctx to the context, or leaves it null after marking the test skipped
/// (failed under PROX_REQUIRE_GPU=1):
///   gpu::Context* ctx = nullptr; gpu_or_skip(ctx); if (!ctx) return;
inline void gpu_or_skip(gpu::Context*& ctx) {
  std::string why;
  ctx = gpu_context(&why);
  if (ctx) return;
  if (gpu_required()) FAIL() << "PROX_REQUIRE_GPU=1 but " << why;
  GTEST_SKIP() << "no Vulkan device, GPU test skipped: " << why;
}

/// A SPIR-V file built next to the tests (tests/gpu/CMakeLists.txt).
inline std::vector<std::uint32_t> load_spirv(const std::string& name) {
  const std::string path = std::string(PROX_GPU_TEST_SPIRV_DIR) + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

}  // namespace prox::test
