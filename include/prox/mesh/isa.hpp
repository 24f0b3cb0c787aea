// prox/mesh/isa.hpp — which instruction-set path the mesh engine runs.
//
// One binary carries the hot queries (closest point, first hit, any hit)
// compiled for SSE2 (the x86-64 baseline), AVX2 + FMA and AVX-512; the best
// one the CPU supports is chosen once, at the first query. The environment
// variable PROX_ISA=sse2|avx2|avx512 asks for one (a path the CPU or the build
// lacks falls back to the best available, and isa_description() says so);
// set_isa() switches at run time (tests, benchmarks). Answers are bit for bit
// the same on every path: SIMD only filters, the final answer comes from the
// shared scalar kernels, and prox compiles without FMA contraction.
// A -DPROX_NATIVE=ON build has a single path, compiled for the build machine.
#pragma once

#include <string>
#include <vector>

namespace prox {

enum class Isa { scalar = 0, sse2 = 1, avx2 = 2, avx512 = 3 };

/// "scalar", "sse2", "avx2", "avx512".
const char* isa_name(Isa isa);
/// Paths this binary has that this CPU can run, slowest first.
std::vector<Isa> available_isas();
/// The path queries use now.
Isa active_isa();
/// Switches every later query to `isa`; throws std::invalid_argument when it
/// is not available (not built, or the CPU lacks it).
void set_isa(Isa isa);
/// One line for reports, e.g. "avx2 (CPU: avx2; built: sse2 avx2 avx512)".
std::string isa_description();

}  // namespace prox
