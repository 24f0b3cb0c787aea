// src/mesh/leaf_ray_simd.hpp — the watertight ray test on the four triangles of
// a LeafPack<float> at once (128-bit lanes), as a filter in front of the
// scalar kernel.
//
// Algorithm: the first half of Woop, Benthin and Wald (JCGT 2013) exactly as
// prox::ray_triangle_watertight<float> evaluates it — translate the corners by
// the ray origin, shear them (a[kx] - sx * a[kz], ...), the three 2D edge
// functions U, V, W — for four triangles in one register per quantity. Every
// lane performs the same IEEE float operations in the same order as the scalar
// kernel (prox builds with -ffp-contract=off, so neither side is fused on any
// ISA), hence gets the same U, V, W bits. The scalar kernel recomputes exactly
// every edge function within its rounding error of 0 (shear_triangle), so a
// lane is dropped only when the exact decision drops it too: one edge function
// above a bound e on every edge function's rounding error and another below
// -e (their exact values then have those signs, so the kernel's signs are
// mixed, whichever it recomputes). e is per lane, a few instructions, the
// kernel's own screen bound bit for bit (edge_error_bound: surely_outside8).
// Every other lane (a possible hit, an edge function near 0, a NaN) goes to
// the scalar kernel, whose answer is the answer, so results stay bit-identical
// to BruteForce.
// Why: a ray meets several triangles per leaf and hits at most one or two; the
// scalar kernel spent most of its time on branches and loads of triangles it
// rejects. The pack is structure-of-arrays, so no transposes.
#pragma once

#include <cstdint>
#include <limits>

#include "prox/bvh/simd8.hpp"
#include "prox/core/platform.hpp"
#include "prox/mesh/flat_index.hpp"
#include "prox/primitives/ray_triangle.hpp"

namespace prox::detail {

inline namespace PROX_ISA_NAMESPACE {

#if defined(PROX_SIMD_SSE2)
/// The ray, sheared, broadcast to eight lanes once per query (the four-lane
/// filter uses the low half).
struct RayLeafSimd {
  simd::F8 o[3];  // origin, permuted to (kx, ky, kz)
  int kx, ky, kz;
  simd::F8 sx, sy;

  template <class T>  // used for float; built for double only to keep callers simple
  explicit RayLeafSimd(const WatertightRay<T>& wr)
      : kx(wr.kx),
        ky(wr.ky),
        kz(wr.kz),
        sx(simd::set8(float(wr.sx))),
        sy(simd::set8(float(wr.sy))) {
    o[0] = simd::set8(float(wr.ray.origin[kx]));
    o[1] = simd::set8(float(wr.ray.origin[ky]));
    o[2] = simd::set8(float(wr.ray.origin[kz]));
  }
};

/// Lanes 0..3 of an F8 as one 128-bit register (free: no instruction).
PROX_FORCE_INLINE __m128 low4(const simd::F8& f) {
#if defined(PROX_SIMD_AVX2)
  return _mm256_castps256_ps128(f.v);
#else
  return f.a;
#endif
}

/// Lane mask: the exact edge decision rejects the lane (see the file comment):
/// an edge function above e and another below -e, e the kernel's own bound
/// (detail::edge_error_bound<float>: the same operations, so the same bits as
/// ShearedTriangle::err) from the largest |sheared coordinate| S and the
/// largest |corner - origin| along kz, Z. An overflow gives inf and a NaN
/// input NaN: then no edge counts as reliable and the lane goes to the scalar
/// kernel. One body for the 8-lane filter and the packet path.
PROX_FORCE_INLINE simd::F8 surely_outside8(const simd::F8 (&sx)[3], const simd::F8 (&sy)[3],
                                           const simd::F8 (&az)[3], const simd::F8& U,
                                           const simd::F8& V, const simd::F8& W) {
  using namespace simd;
  const F8 S = max8(max8(max8(abs8(sx[0]), abs8(sy[0])), max8(abs8(sx[1]), abs8(sy[1]))),
                    max8(abs8(sx[2]), abs8(sy[2])));
  const F8 Z = max8(max8(abs8(az[0]), abs8(az[1])), abs8(az[2]));
  const F8 N = add8(S, add8(Z, Z));
  const F8 e = add8(
      mul8(add8(mul8(set8(EdgeBound<float>::s), S), mul8(set8(EdgeBound<float>::n), N)), N),
      set8(std::numeric_limits<float>::min()));
  const F8 ne = sub8(set8(0.0f), e);
  // The largest edge function above e and the smallest below -e. max8 / min8
  // drop a NaN unless it is the last operand (then the compare fails): either
  // way the lanes left rejected have two other edges of reliable opposite
  // signs, which the kernel rejects whatever the NaN edge becomes.
  const F8 pos = gt8(max8(max8(U, V), W), e);
  const F8 neg = lt8(min8(min8(U, V), W), ne);
  return and8(pos, neg);
}
/// surely_outside8 on four lanes (128-bit registers).
PROX_FORCE_INLINE __m128 surely_outside4(const __m128 (&sx)[3], const __m128 (&sy)[3],
                                         const __m128 (&az)[3], __m128 U, __m128 V, __m128 W) {
  const __m128 m = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  const __m128 S =
      _mm_max_ps(_mm_max_ps(_mm_max_ps(_mm_and_ps(sx[0], m), _mm_and_ps(sy[0], m)),
                            _mm_max_ps(_mm_and_ps(sx[1], m), _mm_and_ps(sy[1], m))),
                 _mm_max_ps(_mm_and_ps(sx[2], m), _mm_and_ps(sy[2], m)));
  const __m128 Z =
      _mm_max_ps(_mm_max_ps(_mm_and_ps(az[0], m), _mm_and_ps(az[1], m)), _mm_and_ps(az[2], m));
  const __m128 N = _mm_add_ps(S, _mm_add_ps(Z, Z));
  const __m128 e = _mm_add_ps(
      _mm_mul_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(EdgeBound<float>::s), S),
                            _mm_mul_ps(_mm_set1_ps(EdgeBound<float>::n), N)),
                 N),
      _mm_set1_ps(std::numeric_limits<float>::min()));
  const __m128 ne = _mm_sub_ps(_mm_setzero_ps(), e);
  const __m128 pos = _mm_cmpgt_ps(_mm_max_ps(_mm_max_ps(U, V), W), e);
  const __m128 neg = _mm_cmplt_ps(_mm_min_ps(_mm_min_ps(U, V), W), ne);
  return _mm_and_ps(pos, neg);
}

/// Bit i set: lane i (i < n <= 4) of the pack may be hit and needs the scalar
/// kernel.
PROX_FORCE_INLINE unsigned ray_pack_candidates(const RayLeafSimd& r, const LeafPack<float>& pk,
                                               unsigned n) {
  __m128 sheared_x[3], sheared_y[3], depth[3];
  for (int k = 0; k < 3; ++k) {
    // A = corner - origin, per axis, as the scalar kernel does (all three axes).
    const __m128 ax = _mm_sub_ps(_mm_load_ps(pk.c[k][r.kx]), low4(r.o[0]));
    const __m128 ay = _mm_sub_ps(_mm_load_ps(pk.c[k][r.ky]), low4(r.o[1]));
    const __m128 az = _mm_sub_ps(_mm_load_ps(pk.c[k][r.kz]), low4(r.o[2]));
    sheared_x[k] = _mm_sub_ps(ax, _mm_mul_ps(low4(r.sx), az));
    sheared_y[k] = _mm_sub_ps(ay, _mm_mul_ps(low4(r.sy), az));
    depth[k] = az;
  }
  const __m128 ax = sheared_x[0], ay = sheared_y[0];
  const __m128 bx = sheared_x[1], by = sheared_y[1];
  const __m128 cx = sheared_x[2], cy = sheared_y[2];
  const __m128 U = _mm_sub_ps(_mm_mul_ps(cx, by), _mm_mul_ps(cy, bx));
  const __m128 V = _mm_sub_ps(_mm_mul_ps(ax, cy), _mm_mul_ps(ay, cx));
  const __m128 W = _mm_sub_ps(_mm_mul_ps(bx, ay), _mm_mul_ps(by, ax));
  // Rejected only where the exact edge decision rejects (the file comment).
  const __m128 rejected = surely_outside4(sheared_x, sheared_y, depth, U, V, W);
  const unsigned keep = unsigned(~_mm_movemask_ps(rejected)) & 0xfu;
  return n >= 4 ? keep : keep & ((1u << n) - 1u);
}
/// The same filter on eight triangles: lanes 0..3 from pack p0, lanes 4..7
/// from pack p1, bit i set for lane i < n (4 < n <= 8) that needs the scalar
/// kernel. Each lane runs the four-lane filter's float operations in its order
/// (so the same bits); under AVX2 / AVX-512 one 256-bit register holds both
/// packs, which halves the arithmetic of a leaf of five to eight triangles.
PROX_FORCE_INLINE unsigned ray_pack_pair_candidates(const RayLeafSimd& r, const LeafPack<float>& p0,
                                                    const LeafPack<float>& p1, unsigned n) {
  using namespace simd;
  F8 sheared_x[3], sheared_y[3], depth[3];
  for (int k = 0; k < 3; ++k) {
    const F8 ax = sub8(load8_halves(p0.c[k][r.kx], p1.c[k][r.kx]), r.o[0]);
    const F8 ay = sub8(load8_halves(p0.c[k][r.ky], p1.c[k][r.ky]), r.o[1]);
    const F8 az = sub8(load8_halves(p0.c[k][r.kz], p1.c[k][r.kz]), r.o[2]);
    sheared_x[k] = sub8(ax, mul8(r.sx, az));
    sheared_y[k] = sub8(ay, mul8(r.sy, az));
    depth[k] = az;
  }
  const F8 ax = sheared_x[0], ay = sheared_y[0];
  const F8 bx = sheared_x[1], by = sheared_y[1];
  const F8 cx = sheared_x[2], cy = sheared_y[2];
  const F8 U = sub8(mul8(cx, by), mul8(cy, bx));
  const F8 V = sub8(mul8(ax, cy), mul8(ay, cx));
  const F8 W = sub8(mul8(bx, ay), mul8(by, ax));
  const F8 rejected = surely_outside8(sheared_x, sheared_y, depth, U, V, W);
  const unsigned keep = ~movemask8(rejected) & 0xffu;
  return n >= 8 ? keep : keep & ((1u << n) - 1u);
}
#endif

}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::detail
