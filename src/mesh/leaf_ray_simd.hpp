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
// ISA), hence gets the same U, V, W bits. A lane is dropped only when the
// scalar kernel would drop it at the same step: no edge function is zero (the
// kernel would recompute those in double) and the signs are mixed. Every other
// lane (a possible hit, a zero edge, a NaN) goes to the scalar kernel, whose
// answer is the answer, so results stay bit-identical to BruteForce.
// Why: a ray meets several triangles per leaf and hits at most one or two; the
// scalar kernel spent most of its time on branches and loads of triangles it
// rejects. The pack is structure-of-arrays, so no transposes.
#pragma once

#include <cstdint>

#include "prox/core/platform.hpp"
#include "prox/mesh/flat_index.hpp"
#include "prox/primitives/ray_triangle.hpp"

namespace prox::detail {

inline namespace PROX_ISA_NAMESPACE {

#if defined(PROX_SIMD_SSE2)
/// The ray, sheared, broadcast to registers once per query.
struct RayLeafSimd {
  __m128 o[3];  // origin, permuted to (kx, ky, kz)
  int kx, ky, kz;
  __m128 sx, sy;

  template <class T>  // used for float; built for double only to keep callers simple
  explicit RayLeafSimd(const WatertightRay<T>& wr)
      : kx(wr.kx),
        ky(wr.ky),
        kz(wr.kz),
        sx(_mm_set1_ps(float(wr.sx))),
        sy(_mm_set1_ps(float(wr.sy))) {
    o[0] = _mm_set1_ps(float(wr.ray.origin[kx]));
    o[1] = _mm_set1_ps(float(wr.ray.origin[ky]));
    o[2] = _mm_set1_ps(float(wr.ray.origin[kz]));
  }
};

/// Bit i set: lane i (i < n <= 4) of the pack may be hit and needs the scalar
/// kernel.
PROX_FORCE_INLINE unsigned ray_pack_candidates(const RayLeafSimd& r, const LeafPack<float>& pk,
                                               unsigned n) {
  __m128 sheared_x[3], sheared_y[3];
  for (int k = 0; k < 3; ++k) {
    // A = corner - origin, per axis, as the scalar kernel does (all three axes).
    const __m128 ax = _mm_sub_ps(_mm_load_ps(pk.c[k][r.kx]), r.o[0]);
    const __m128 ay = _mm_sub_ps(_mm_load_ps(pk.c[k][r.ky]), r.o[1]);
    const __m128 az = _mm_sub_ps(_mm_load_ps(pk.c[k][r.kz]), r.o[2]);
    sheared_x[k] = _mm_sub_ps(ax, _mm_mul_ps(r.sx, az));
    sheared_y[k] = _mm_sub_ps(ay, _mm_mul_ps(r.sy, az));
  }
  const __m128 ax = sheared_x[0], ay = sheared_y[0];
  const __m128 bx = sheared_x[1], by = sheared_y[1];
  const __m128 cx = sheared_x[2], cy = sheared_y[2];
  const __m128 U = _mm_sub_ps(_mm_mul_ps(cx, by), _mm_mul_ps(cy, bx));
  const __m128 V = _mm_sub_ps(_mm_mul_ps(ax, cy), _mm_mul_ps(ay, cx));
  const __m128 W = _mm_sub_ps(_mm_mul_ps(bx, ay), _mm_mul_ps(by, ax));
  const __m128 zero = _mm_setzero_ps();
  const __m128 any_zero =
      _mm_or_ps(_mm_or_ps(_mm_cmpeq_ps(U, zero), _mm_cmpeq_ps(V, zero)), _mm_cmpeq_ps(W, zero));
  const __m128 any_neg =
      _mm_or_ps(_mm_or_ps(_mm_cmplt_ps(U, zero), _mm_cmplt_ps(V, zero)), _mm_cmplt_ps(W, zero));
  const __m128 any_pos =
      _mm_or_ps(_mm_or_ps(_mm_cmpgt_ps(U, zero), _mm_cmpgt_ps(V, zero)), _mm_cmpgt_ps(W, zero));
  // Rejected exactly when the kernel rejects: signs mixed and no zero to redo.
  const __m128 rejected = _mm_andnot_ps(any_zero, _mm_and_ps(any_neg, any_pos));
  const unsigned keep = unsigned(~_mm_movemask_ps(rejected)) & 0xfu;
  return n >= 4 ? keep : keep & ((1u << n) - 1u);
}
#endif

}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::detail
