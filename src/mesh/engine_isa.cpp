// src/mesh/engine_isa.cpp — the hot queries of one ISA path. This one source
// is compiled into one object per path (flags in CMakeLists.txt); the ISA's
// inline namespace (prox/core/platform.hpp) keeps their symbols apart.
// Entry points are flattened, so the shared kernels they call are inlined
// into them and compiled for this ISA here. Where the compiler still keeps an
// out-of-line call, kernel_instances.hpp makes it call the one baseline copy
// (explicit instantiation declarations), never a weak copy built here that
// the linker could pick for another path (a test checks the objects' symbols).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>

#include "engine.hpp"
#include "kernel_instances.hpp"
#include "queries.hpp"
#include "queries_packet.hpp"

namespace prox::detail {
inline namespace PROX_ISA_NAMESPACE {
namespace {

template <class T>
PROX_FLATTEN MeshClosestPoint<T> closest_point_entry(const FlatIndex<T>& x, const Vec3<T>& p,
                                                     T max_distance, bool simd,
                                                     const Vec3<T>* hint, std::uint32_t hint_id) {
  return closest_point_query(x, p, max_distance, simd, hint, hint_id);
}
template <class T>
PROX_FLATTEN MeshClosestPoint<T> closest_point_near_entry(const FlatIndex<T>& x, const Vec3<T>& p,
                                                          T max_distance, bool simd,
                                                          const Vec3<T>* hint,
                                                          std::uint32_t hint_id, double reach,
                                                          NearTriangles<T>* near) {
  return closest_point_query<T, true>(x, p, max_distance, simd, hint, hint_id, near, reach);
}
template <class T>
PROX_FLATTEN MeshRayHit<T> first_hit_entry(const FlatIndex<T>& x, const Ray<T>& ray, bool simd) {
  return first_hit_query(x, ray, simd);
}
/// Extent of the root's box (the largest side), the scale of make_packet's
/// origin test.
inline float root_extent(const FlatIndex<float>& x) {
  float e = 0.0f;
  if (x.nodes.empty()) return e;
  const bvh::Node8& r = x.nodes[0];
  for (int a = 0; a < 3; ++a) {
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (int k = 0; k < bvh::kWidth; ++k) {
      if (r.child[k] == bvh::kInvalid) continue;
      lo = std::min(lo, r.lo[a][k]);
      hi = std::max(hi, r.hi[a][k]);
    }
    if (hi >= lo) e = std::max(e, hi - lo);
  }
  return e;
}

template <class T>
[[gnu::noinline]] MeshRayHit<T> first_hit_single(const FlatIndex<T>& x, const Ray<T>& ray,
                                                 bool simd) {
  return first_hit_entry(x, ray, simd);
}

template <class T>
PROX_FLATTEN void first_hits_entry(const FlatIndex<T>& x, const Ray<T>* rays, std::size_t n,
                                   MeshRayHit<T>* out, bool simd) {
  std::size_t i = 0;
#if defined(PROX_SIMD_SSE2)
  if constexpr (std::is_same_v<T, float>) {
    if (simd) {
      const float scale = root_extent(x);
      RayPacket packet;
      while (i + 2 <= n) {
        const int m = int(std::min<std::size_t>(kPacketSize, n - i));
        if (packet_of(rays + i, m, scale, packet)) {
          first_hits_packet(x, packet, out + i);
          note_packet(unsigned(m));
        } else {
          for (int k = 0; k < m; ++k) out[i + k] = first_hit_single(x, rays[i + k], simd);
        }
        i += std::size_t(m);
      }
    }
  }
#endif
  for (; i < n; ++i) out[i] = first_hit_single(x, rays[i], simd);
}
/// packet_set_up_check (prox/mesh/engine_hooks.hpp): -1 without an
/// eight-lane set-up (SSE2), else 2 when make_packet8 and make_packet build
/// the same packet of rays[0..8) (per-ray fields, the leaf test's inverses
/// included, byte for byte, packet-wide
/// bounds by value: see make_packet8), 1 when both decline them, 0 when they
/// differ.
PROX_FLATTEN int packet_set_up_check(const Ray<float>* rays, float scale) {
#if defined(PROX_SIMD_AVX2)
  RayPacket a, b;
  const bool made_a = make_packet(rays, kPacketSize, scale, a);
  const bool made_b = make_packet8(rays, scale, b);
  if (made_a != made_b) return 0;
  if (!made_a) return 1;
  auto same = [](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  bool ok = a.n == b.n && a.kx == b.kx && a.ky == b.ky && a.kz == b.kz && same(a.o, b.o) &&
            same(a.sx, b.sx) && same(a.sy, b.sy) && same(a.sz, b.sz) && same(a.t_max, b.t_max) &&
            same(a.ray_t_min, b.ray_t_min) && same(a.ray_t_max, b.ray_t_max) &&
            same(a.near_off, b.near_off) && same(a.far_off, b.far_off) && a.t_min == b.t_min &&
            a.limit == b.limit && same(a.inv, b.inv);
  for (int k = 0; k < 3; ++k)
    ok = ok && a.on[k] == b.on[k] && a.of[k] == b.of[k] && a.inv_lo[k] == b.inv_lo[k] &&
         a.inv_hi[k] == b.inv_hi[k];
  // The lazily made rays are the scalar set-up's.
  for (int i = 0; i < kPacketSize; ++i) {
    const WatertightRay<float>& x = a.ray(i);
    const WatertightRay<float>& y = b.ray(i);
    ok = ok && x.kx == y.kx && x.ky == y.ky && x.kz == y.kz && same(x.sx, y.sx) &&
         same(x.sy, y.sy) && same(x.sz, y.sz) && same(x.ray, y.ray) && x.t_exp == y.t_exp;
  }
  return ok ? 2 : 0;
#else
  (void)rays;
  (void)scale;
  return -1;
#endif
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
                             &closest_point_near_entry<float>,
                             &closest_point_near_entry<double>,
                             &first_hit_entry<float>,
                             &first_hit_entry<double>,
                             &any_hit_entry<float>,
                             &any_hit_entry<double>,
                             &first_hits_entry<float>,
                             &first_hits_entry<double>,
                             &packet_set_up_check};
}  // namespace

const EngineTable& engine_table() { return kTable; }

}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::detail
