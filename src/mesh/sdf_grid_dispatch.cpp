// src/mesh/sdf_grid_dispatch.cpp — the SDF grid's pruned search on the ISA
// path the mesh engine runs (prox/mesh/isa.hpp: the best built one the CPU
// runs, PROX_ISA, set_isa()); every path gives the same bits.
#include "prox/mesh/isa.hpp"
#include "sdf_grid_isa.hpp"

namespace prox::sdf_detail {
#if defined(PROX_ENGINE_NATIVE)
namespace PROX_ISA_NAMESPACE { const LuneTable& lune_table(); }
#else
namespace sse2 { const LuneTable& lune_table(); }
#if defined(PROX_ENGINE_AVX2)
namespace avx2 { const LuneTable& lune_table(); }
#endif
#if defined(PROX_ENGINE_AVX512)
namespace avx512 { const LuneTable& lune_table(); }
#endif
#endif

namespace {
const LuneTable& table() {
#if defined(PROX_ENGINE_NATIVE)
  return PROX_ISA_NAMESPACE::lune_table();
#else
  switch (active_isa()) {
#if defined(PROX_ENGINE_AVX512)
    case Isa::avx512: return avx512::lune_table();
#endif
#if defined(PROX_ENGINE_AVX2)
    case Isa::avx2: return avx2::lune_table();
#endif
    default: return sse2::lune_table();
  }
#endif
}
}  // namespace

MeshClosestPoint<float> lune_closest_point_isa(const FlatIndex<float>& x, const Vec3<float>& p,
                                               std::uint32_t hint, const Vec3<float>& h0,
                                               const Vec3<float>& h1, const Vec3<float>& h2,
                                               std::span<const EmptyBall> balls, double scale,
                                               LuneStats* stats) {
  return table().f(x, p, hint, h0, h1, h2, balls, scale, stats);
}
MeshClosestPoint<double> lune_closest_point_isa(const FlatIndex<double>& x, const Vec3<double>& p,
                                                std::uint32_t hint, const Vec3<double>& h0,
                                                const Vec3<double>& h1, const Vec3<double>& h2,
                                                std::span<const EmptyBall> balls, double scale,
                                                LuneStats* stats) {
  return table().d(x, p, hint, h0, h1, h2, balls, scale, stats);
}

}  // namespace prox::sdf_detail
