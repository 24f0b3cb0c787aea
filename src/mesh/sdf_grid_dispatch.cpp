// src/mesh/sdf_grid_dispatch.cpp — the SDF grid's pruned search on the ISA
// path the mesh engine runs (prox/mesh/isa.hpp: the best built one the CPU
// runs, PROX_ISA, set_isa()); every path gives the same bits.
#include <algorithm>
#include <cmath>
#include <utility>
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
const LuneTable& path() {
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
                                               LuneStats* stats, const FloatBoundTable* table,
                                               std::uint32_t* slot, NearTriangles<float>* near,
                                               double reach) {
  return path().f(x, p, hint, h0, h1, h2, balls, scale, stats, table, slot, near, reach);
}
MeshClosestPoint<double> lune_closest_point_isa(const FlatIndex<double>& x, const Vec3<double>& p,
                                                std::uint32_t hint, const Vec3<double>& h0,
                                                const Vec3<double>& h1, const Vec3<double>& h2,
                                                std::span<const EmptyBall> balls, double scale,
                                                LuneStats* stats, const FloatBoundTable* table,
                                                std::uint32_t* slot, NearTriangles<double>* near,
                                                double reach) {
  return path().d(x, p, hint, h0, h1, h2, balls, scale, stats, table, slot, near, reach);
}

FloatBoundLanes float_bound8_isa(const FloatTerms8& t, const FloatBoundSetup& s, float r) {
  return path().bound(t, s, r);
}

template <class T>
FloatBoundTable float_bound_table(const FlatIndex<T>& x, std::size_t max_bytes, int threads) {
  FloatBoundTable table;
  // The leaves' chunks of up to 8 slots, and the triangles' box.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> chunks;  // first slot, slots
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (const bvh::Node8& node : x.nodes)
    for (int c = 0; c < bvh::kWidth; ++c) {
      const std::uint32_t n = node.count[c];
      if (n == 0) continue;
      for (std::uint32_t s = 0; s < n; s += 8) chunks.emplace_back(node.child[c] + s, std::min(8u, n - s));
      for (std::uint32_t s = node.child[c]; s < node.child[c] + n; ++s)
        for (int k = 0; k < 3; ++k)
          for (int a = 0; a < 3; ++a) {
            const double v = double(x.corner(s, k)[a]);
            lo[a] = std::min(lo[a], v);
            hi[a] = std::max(hi[a], v);
          }
    }
  if (chunks.empty() ||
      chunks.size() > max_bytes / (sizeof(FloatTerms8) + 4 * sizeof(std::uint32_t)))
    return table;
  for (int a = 0; a < 3; ++a) {
    table.origin[a] = 0.5 * lo[a] + 0.5 * hi[a];
    table.reach = std::max({table.reach, std::fabs(hi[a] - table.origin[a]),
                            std::fabs(lo[a] - table.origin[a])});
  }
  if (!std::isfinite(table.reach)) return table;
  table.chunk_of.assign(x.packs.size(), bvh::kInvalid);
  table.chunks.resize(chunks.size());
  for (std::size_t i = 0; i < chunks.size(); ++i)
    table.chunk_of[chunks[i].first / bvh::kLeafAlign] = std::uint32_t(i);
  BatchOptions options;
  options.threads = threads;
  options.grain = 256;
  batch_for_each(chunks.size(), options, [&](std::size_t i) {
    FloatTerms8& t = table.chunks[i];
    for (unsigned lane = 0; lane < 8; ++lane) {
      double c[3][3] = {};
      if (lane < chunks[i].second)
        for (int k = 0; k < 3; ++k)
          for (int a = 0; a < 3; ++a) c[k][a] = double(x.corner(chunks[i].first + lane, k)[a]);
      // Lanes past the leaf: degenerate (all zero), never pruned, never read.
      set_float_lane(t, lane, c, table.origin);
    }
  });
  return table;
}
template FloatBoundTable float_bound_table(const FlatIndex<float>&, std::size_t, int);
template FloatBoundTable float_bound_table(const FlatIndex<double>&, std::size_t, int);

}  // namespace prox::sdf_detail
