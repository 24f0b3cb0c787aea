// src/mesh/engine_isa.cpp — the hot queries of one ISA path. This one source
// is compiled into one object per path (flags in CMakeLists.txt); the ISA's
// inline namespace (prox/core/platform.hpp) keeps their symbols apart.
// Entry points are flattened, so the shared kernels they call are inlined
// into them and compiled for this ISA here. Where the compiler still keeps an
// out-of-line call, kernel_instances.hpp makes it call the one baseline copy
// (explicit instantiation declarations), never a weak copy built here that
// the linker could pick for another path (a test checks the objects' symbols).
#include "engine.hpp"
#include "kernel_instances.hpp"
#include "queries.hpp"

namespace prox::detail {
inline namespace PROX_ISA_NAMESPACE {
namespace {

template <class T>
PROX_FLATTEN MeshClosestPoint<T> closest_point_entry(const FlatIndex<T>& x, const Vec3<T>& p,
                                                     T max_distance, bool simd) {
  return closest_point_query(x, p, max_distance, simd);
}
template <class T>
PROX_FLATTEN MeshRayHit<T> first_hit_entry(const FlatIndex<T>& x, const Ray<T>& ray, bool simd) {
  return first_hit_query(x, ray, simd);
}
template <class T>
PROX_FLATTEN bool any_hit_entry(const FlatIndex<T>& x, const Ray<T>& ray, bool simd) {
  return any_hit_query(x, ray, simd);
}

#if defined(PROX_SIMD_AVX512)
constexpr Isa kIsa = Isa::avx512;
#elif defined(PROX_SIMD_AVX2)
constexpr Isa kIsa = Isa::avx2;
#elif defined(PROX_SIMD_SSE2)
constexpr Isa kIsa = Isa::sse2;
#else
constexpr Isa kIsa = Isa::scalar;
#endif

constexpr EngineTable kTable{kIsa,
                             &closest_point_entry<float>,
                             &closest_point_entry<double>,
                             &first_hit_entry<float>,
                             &first_hit_entry<double>,
                             &any_hit_entry<float>,
                             &any_hit_entry<double>};
}  // namespace

const EngineTable& engine_table() { return kTable; }

}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::detail
