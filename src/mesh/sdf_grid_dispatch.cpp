// src/mesh/sdf_grid_dispatch.cpp — the SDF grid's pruned search on the ISA
// path the mesh engine runs (prox/mesh/isa.hpp: the best built one the CPU
// runs, PROX_ISA, set_isa()); every path gives the same bits.
#include <vector>

#include "prox/mesh/batch.hpp"
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
                                               LuneStats* stats, const TriangleTerms4* terms) {
  return table().f(x, p, hint, h0, h1, h2, balls, scale, stats, terms);
}
MeshClosestPoint<double> lune_closest_point_isa(const FlatIndex<double>& x, const Vec3<double>& p,
                                                std::uint32_t hint, const Vec3<double>& h0,
                                                const Vec3<double>& h1, const Vec3<double>& h2,
                                                std::span<const EmptyBall> balls, double scale,
                                                LuneStats* stats, const TriangleTerms4* terms) {
  return table().d(x, p, hint, h0, h1, h2, balls, scale, stats, terms);
}

template <class T>
std::vector<TriangleTerms4> triangle_terms_table(const FlatIndex<T>& x, std::size_t max_bytes,
                                                 int threads) {
  std::vector<TriangleTerms4> table;
  const std::size_t n = x.packs.size();
  if (n == 0 || n > max_bytes / sizeof(TriangleTerms4)) return table;
  table.resize(n);
  BatchOptions options;
  options.threads = threads;
  options.grain = 1024;
  batch_for_each(n, options, [&](std::size_t i) {
    const LeafPack<T>& pk = x.packs[i];
    for (unsigned lane = 0; lane < 4; ++lane) {
      // The edges as the search computes them: corners converted to double.
      double c[3][3];
      for (int k = 0; k < 3; ++k)
        for (int a = 0; a < 3; ++a) c[k][a] = double(pk.c[k][a][lane]);
      double ed[3][3];
      for (int a = 0; a < 3; ++a) {
        ed[0][a] = c[1][a] - c[0][a];
        ed[1][a] = c[2][a] - c[1][a];
        ed[2][a] = c[0][a] - c[2][a];
      }
      set_lane_terms(table[i], lane, triangle_terms(ed));
    }
  });
  return table;
}
template std::vector<TriangleTerms4> triangle_terms_table(const FlatIndex<float>&, std::size_t, int);
template std::vector<TriangleTerms4> triangle_terms_table(const FlatIndex<double>&, std::size_t, int);

}  // namespace prox::sdf_detail
