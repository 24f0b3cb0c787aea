// src/mesh/leaf_ray_simd.hpp — the watertight ray test on eight triangles at
// once (two LeafPack<float>s, one F8 per quantity), or on one triangle and a
// packet's eight rays, in front of the scalar kernel.
//
// Algorithm: the first half of Woop, Benthin and Wald (JCGT 2013) exactly as
// prox::ray_triangle_watertight<float> evaluates it — translate the corners by
// the ray origin, shear them (a[kx] - sx * a[kz], ...), the three 2D edge
// functions U, V, W — for eight lanes in one register per quantity. Every
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
  float sz, t_min, t_max;  // 1 / d_kz and the t range, of the normalized ray

  template <class T>  // used for float; built for double only to keep callers simple
  explicit RayLeafSimd(const WatertightRay<T>& wr)
      : RayLeafSimd(wr.kx, wr.ky, wr.kz,
                    {float(wr.ray.origin[wr.kx]), float(wr.ray.origin[wr.ky]),
                     float(wr.ray.origin[wr.kz])},
                    float(wr.sx), float(wr.sy), float(wr.sz), float(wr.ray.t_min),
                    float(wr.ray.t_max)) {}
  /// From a ray's values already permuted to (kx, ky, kz) and sheared: a
  /// packet's lane (RayPacket), whose fields are its WatertightRay's bits.
  RayLeafSimd(int kx_, int ky_, int kz_, const float (&o_k)[3], float sx_, float sy_, float sz_,
              float t_min_, float t_max_)
      : kx(kx_),
        ky(ky_),
        kz(kz_),
        sx(simd::set8(sx_)),
        sy(simd::set8(sy_)),
        sz(sz_),
        t_min(t_min_),
        t_max(t_max_) {
    for (int k = 0; k < 3; ++k) o[k] = simd::set8(o_k[k]);
  }
};

/// e of every lane: the kernel's own bound on each edge function's rounding
/// error (detail::edge_error_bound<float>: the same operations, so the same
/// bits as ShearedTriangle::err) from the largest |sheared coordinate| S and
/// the largest |corner - origin| along kz, Z. An overflow gives inf and a NaN
/// input NaN: then no edge counts as reliable and the lane goes to the scalar
/// kernel. One body for the 8-lane filter and the packet path.
PROX_FORCE_INLINE simd::F8 edge_bound8(const simd::F8 (&sx)[3], const simd::F8 (&sy)[3],
                                      const simd::F8 (&az)[3]) {
  using namespace simd;
  const F8 S = max8(max8(max8(abs8(sx[0]), abs8(sy[0])), max8(abs8(sx[1]), abs8(sy[1]))),
                    max8(abs8(sx[2]), abs8(sy[2])));
  const F8 Z = max8(max8(abs8(az[0]), abs8(az[1])), abs8(az[2]));
  const F8 N = add8(S, add8(Z, Z));
  return add8(
      mul8(add8(mul8(set8(EdgeBound<float>::s), S), mul8(set8(EdgeBound<float>::n), N)), N),
      set8(std::numeric_limits<float>::min()));
}
/// Lane mask: the exact edge decision rejects the lane (see the file comment):
/// an edge function above e and another below -e, e from edge_bound8.
PROX_FORCE_INLINE simd::F8 surely_outside8(const simd::F8& e, const simd::F8& U,
                                           const simd::F8& V, const simd::F8& W) {
  using namespace simd;
  const F8 ne = sub8(set8(0.0f), e);
  // The largest edge function above e and the smallest below -e. max8 / min8
  // drop a NaN unless it is the last operand (then the compare fails): either
  // way the lanes left rejected have two other edges of reliable opposite
  // signs, which the kernel rejects whatever the NaN edge becomes.
  const F8 pos = gt8(max8(max8(U, V), W), e);
  const F8 neg = lt8(min8(min8(U, V), W), ne);
  return and8(pos, neg);
}
/// What the leaf filter decided for up to eight triangles (lanes 0..3 from
/// one pack, 4..7 from another): `kernel`, the lanes the scalar kernel must
/// decide; `hit`, the lanes it decided to be hits itself, with t = tn / det
/// (on the normalized ray), det, V and W (weights V / det and W / det: see
/// leaf_hit). Every other lane is a miss.
struct LeafDecision {
  unsigned kernel = 0, hit = 0;
  alignas(32) float t[8], det[8], v[8], w[8];
};

/// The decision of eight lanes, each a (ray, triangle) pair in the ray's
/// sheared frame: edge functions U, V, W, their bound e (edge_bound8), the
/// corners' depths along kz (corner - origin); rays.sz(), rays.t_min(),
/// rays.t_max(): each lane's ray's 1 / d_kz and normalized t range (asked for
/// only when a lane survives the edge test); `lanes` the lanes in use. See
/// ray_pack_pair_decide for what is decided here; the single-ray leaf and the
/// packet leaf share it.
template <class Rays>
PROX_FORCE_INLINE void decide_lanes(const simd::F8& U, const simd::F8& V, const simd::F8& W,
                                    const simd::F8& e, const simd::F8 (&depth)[3],
                                    const Rays& rays, unsigned lanes, LeafDecision& d) {
  using namespace simd;
  const unsigned keep = ~movemask8(surely_outside8(e, U, V, W)) & lanes;
  d.kernel = keep;
  d.hit = 0;
  if (keep == 0) return;
  // shear_triangle's screen passes with one sign: |U|, |V|, |W| > e (NaN fails).
  const F8 zero = set8(0.0f), ne = sub8(zero, e);
  const F8 sure = or8(and8(and8(gt8(U, e), gt8(V, e)), gt8(W, e)),
                      and8(and8(lt8(U, ne), lt8(V, ne)), lt8(W, ne)));
  // sheared_hit: det, the depths, tn, and its rescale test.
  const F8 det = add8(add8(U, V), W);
  const F8 sz = rays.sz();
  const F8 az = mul8(sz, depth[0]), bz = mul8(sz, depth[1]), cz = mul8(sz, depth[2]);
  const F8 pu = mul8(U, az), pv = mul8(V, bz), pw = mul8(W, cz);
  const F8 tn = add8(add8(pu, pv), pw);
  const F8 adet = abs8(det), atn = abs8(tn);
  const F8 normal = and8(and8(le8(set8(0x1p-80f), adet), le8(adet, set8(0x1p100f))),
                         le8(atn, set8(0x1p100f)));
  // t_unreliable<float>(e, U, V, W, az, bz, cz, tn, det), false where reliable.
  constexpr float ratio = FarCorners<float>::ratio;
  constexpr float tau = float(2 * std::numeric_limits<float>::epsilon()) / ratio;
  const F8 cancelled =
      lt8(atn, mul8(set8(ratio), add8(add8(abs8(pu), abs8(pv)), abs8(pw))));
  const F8 det_ok = le8(mul8(set8(6.0f), e), adet);
  const F8 t = div8(tn, det);
  const F8 spread = add8(add8(abs8(sub8(az, t)), abs8(sub8(bz, t))), abs8(sub8(cz, t)));
  const F8 t_ok = le8(mul8(mul8(set8(2.0f), e), spread), mul8(set8(tau), atn));
  const unsigned fast =
      movemask8(and8(and8(sure, normal), and8(andnot8(cancelled, det_ok), t_ok))) & keep;
  d.kernel = keep & ~fast;
  if (fast == 0) return;
  // The t range, without dividing (sheared_hit's test, both signs of det).
  const F8 lo = mul8(rays.t_min(), det), hi = mul8(rays.t_max(), det);
  const F8 pos = gt8(det, zero);
  const F8 miss = or8(and8(pos, or8(lt8(tn, lo), gt8(tn, hi))),
                      andnot8(pos, or8(gt8(tn, lo), lt8(tn, hi))));
  d.hit = fast & ~movemask8(miss);
  if (d.hit == 0) return;
  store8(d.t, t);  // tn / det, the kernel's t: not divided again per hit
  store8(d.det, det);
  store8(d.v, V);
  store8(d.w, W);
}

/// The leaf filter on eight triangles (p1 may repeat p0; lanes at or past n
/// are dropped). Each lane runs the scalar kernel's float operations in its
/// order (prox builds with -ffp-contract=off), so it has the kernel's bits:
///  - rejected where the exact edge decision rejects (the file comment);
///  - where every edge function is beyond the kernel's screen bound e with
///    one sign (shear_triangle keeps them as rounded: no exact recomputation)
///    and det and tn are in the normal range (no rescaling) and t is reliable
///    (t_unreliable false: no far-corner recomputation), the kernel's answer
///    is sheared_hit's normal path: the t range test tn against t_min det and
///    t_max det, then t = tn / det. The filter evaluates that path for all
///    eight lanes and reports its hits and misses itself;
///  - every other lane (an edge within e of 0, a NaN, a rescaled or
///    unreliable t) goes to the scalar kernel.
/// Why: a random ray's candidate is usually its hit (bunny: 0.45 kernel calls
/// a ray, 0.44 hits), and the scalar kernel ran its whole shear again for it.
/// Under AVX2 / AVX-512 one 256-bit register holds the eight lanes.
PROX_FORCE_INLINE void ray_pack_pair_decide(const RayLeafSimd& r, const LeafPack<float>& p0,
                                            const LeafPack<float>& p1, unsigned n,
                                            LeafDecision& d) {
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
  const F8 e = edge_bound8(sheared_x, sheared_y, depth);
  const unsigned lanes = n >= 8 ? 0xffu : (1u << n) - 1u;
  struct OneRay {
    const RayLeafSimd& r;
    F8 sz() const { return set8(r.sz); }
    F8 t_min() const { return set8(r.t_min); }
    F8 t_max() const { return set8(r.t_max); }
  };
  decide_lanes(U, V, W, e, depth, OneRay{r}, lanes, d);
}

/// The hit of lane i of d.hit, as sheared_hit's normal path returns it.
template <class T>
PROX_FORCE_INLINE RayTriangleHit<float> leaf_hit(const LeafDecision& d, unsigned i,
                                                 const WatertightRay<T>& wr) {
  RayTriangleHit<float> h;
  const float det = d.det[i];
  h.hit = true;
  h.t = float(wr.caller_t(T(d.t[i])));
  // + 0 turns an edge function's -0 into +0, as the kernel does.
  h.u = d.v[i] / det + 0.0f;
  h.v = d.w[i] / det + 0.0f;
  h.front_face = det > 0.0f;
  return h;
}
#endif

}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::detail
