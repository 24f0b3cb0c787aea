// src/mesh/ray_leaf_sse.hpp — the watertight ray test on four leaf triangles at
// once (float meshes, SSE2), as a filter in front of the scalar kernel.
//
// Algorithm: the first half of Woop, Benthin and Wald (JCGT 2013) exactly as
// prox::ray_triangle_watertight<float> evaluates it — translate the corners by
// the ray origin, shear them (a[kx] - sx * a[kz], ...), the three 2D edge
// functions U, V, W — for four triangles in one register per quantity. Every
// lane performs the same IEEE float operations in the same order as the scalar
// kernel (SSE2 has no FMA, so nothing is contracted), hence gets the same U, V,
// W bits. A lane is dropped only when the scalar kernel would drop it at the
// same step: no edge function is zero (the kernel would recompute those in
// double) and the signs are mixed. Every other lane (a possible hit, a zero
// edge, a NaN) goes to the scalar kernel, whose answer is the answer, so
// results stay bit-identical to BruteForce.
// Why: a ray meets ~4.5 triangles per leaf and hits at most one or two; the
// scalar kernel spent most of its time on branches and indexed loads of
// triangles it rejects.
//
// Data: a float leaf record is 36 bytes, corners at bytes 0, 12, 24; the
// 16-byte load at the last corner reads 4 bytes of the next record (the
// index keeps a spare record past the end for that).
#pragma once

#include <cstdint>

#include "prox/bvh/traverse.hpp"  // PROX_SIMD_SSE2
#include "prox/mesh/engine_hooks.hpp"
#include "prox/primitives/ray_triangle.hpp"


namespace prox::detail {

/// Whether the SIMD leaf filters run (not forced off by set_scalar_leaves).
bool simd_leaves();

// Every prox target compiles with -ffp-contract=off, so the scalar kernel's
// a - s * b is never fused, on any ISA, and these lanes match it bit for bit.
#if defined(PROX_SIMD_SSE2)
/// The ray, sheared, broadcast to registers once per query.
struct RayLeafSse {
  float o[3];   // origin, permuted to (kx, ky, kz)
  int kx, ky, kz;
  __m128 sx, sy;

  template <class T>  // used for float; built for double only to keep callers simple
  explicit RayLeafSse(const WatertightRay<T>& wr)
      : kx(wr.kx),
        ky(wr.ky),
        kz(wr.kz),
        sx(_mm_set1_ps(float(wr.sx))),
        sy(_mm_set1_ps(float(wr.sy))) {
    o[0] = float(wr.ray.origin[kx]);
    o[1] = float(wr.ray.origin[ky]);
    o[2] = float(wr.ray.origin[kz]);
  }
};

/// Bit i set: triangle tri[i] (i < n <= 4) may be hit and needs the scalar
/// kernel. `stride` is sizeof the leaf record; corners at byte offsets 0, 12, 24.
inline unsigned ray_leaf_candidates(const RayLeafSse& r, const char* tri, std::size_t stride,
                                    unsigned n) {
  // Rows beyond n repeat the last triangle (valid memory); masked out below.
  const char* rows[4];
  for (unsigned i = 0; i < 4; ++i) rows[i] = tri + stride * (i < n ? i : n - 1);
  __m128 sheared_x[3], sheared_y[3];
  for (int k = 0; k < 3; ++k) {
    __m128 c0 = _mm_loadu_ps(reinterpret_cast<const float*>(rows[0] + 12 * k));
    __m128 c1 = _mm_loadu_ps(reinterpret_cast<const float*>(rows[1] + 12 * k));
    __m128 c2 = _mm_loadu_ps(reinterpret_cast<const float*>(rows[2] + 12 * k));
    __m128 c3 = _mm_loadu_ps(reinterpret_cast<const float*>(rows[3] + 12 * k));
    _MM_TRANSPOSE4_PS(c0, c1, c2, c3);  // c0 = x of the 4 corners, c1 = y, c2 = z
    const __m128 xyz[3] = {c0, c1, c2};
    // A = corner - origin, per axis, as the scalar kernel does (all three axes).
    const __m128 ax = _mm_sub_ps(xyz[r.kx], _mm_set1_ps(r.o[0]));
    const __m128 ay = _mm_sub_ps(xyz[r.ky], _mm_set1_ps(r.o[1]));
    const __m128 az = _mm_sub_ps(xyz[r.kz], _mm_set1_ps(r.o[2]));
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
  return keep & ((1u << n) - 1u);
}
#endif

}  // namespace prox::detail
