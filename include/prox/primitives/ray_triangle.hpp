// prox/primitives/ray_triangle.hpp — ray against a triangle: Möller–Trumbore and
// the watertight test of Woop, Benthin and Wald (JCGT 2013).
//
// Both return a RayTriangleHit: `hit`, `t` (ray parameter, in units of the
// caller's direction, which is never normalised), `u`, `v` (weights of b and c;
// a's weight is 1 - u - v), `front_face` (the ray meets the side the normal
// n = (b - a) x (c - a) points to, i.e. dot(direction, n) < 0).
// A hit needs t in [ray.t_min, ray.t_max].
//
// Möller–Trumbore (seed 002; ray_triangle_moller_trumbore.hpp, included here):
// a parallel ray (determinant exactly 0) misses; culling is optional.
// Watertight: edge functions in a ray-aligned sheared frame; an edge or vertex
// shared by two triangles is hit by at least one of them, never neither.
// Float and double: an edge function within its rounding error of zero is
// recomputed exactly (floating-point expansions in double), so every edge's
// sign is the exact sign for the ray's shear: a hit or miss is never decided
// by rounding, however far the corners are from the origin. (The paper
// recomputes only exactly-zero edge functions, in double; that was float's
// rule up to issue 9.) The mesh engine's SIMD leaf filters reject a triangle
// only when an edge function is above and another below their error bound
// (src/mesh/leaf_ray_simd.hpp), and the GLSL kernel follows operation for
// operation (shaders/prox/ray_triangle.glsl).
//
// Degenerate triangles (no area) are never hit. Non-finite input: a miss.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "prox/core/ray.hpp"
#include "prox/primitives/expansion.hpp"
#include "prox/primitives/ray_triangle_hit.hpp"
#include "prox/primitives/ray_triangle_moller_trumbore.hpp"

namespace prox {

namespace detail {
/// NormalizedRay's scaling, in place: returns exp (0: the ray is unchanged but
/// for t_max's clip). In place so that WatertightRay scales its own member:
/// building a NormalizedRay and copying its ray over cost every ray a
/// store-forwarding stall (the scaled fields written one float at a time,
/// then the 32-byte ray read back at once: 6.5% of a random ray's time on
/// bunny, the largest single sample of the traversal).
template <class T>
int normalize_ray(Ray<T>& ray) {
  int exp = 0;
  if constexpr (ScalarTraits<T>::is_ieee) {
    using std::abs;
    const T m = std::max(abs(ray.direction[0]), std::max(abs(ray.direction[1]),
                                                          abs(ray.direction[2])));
    if (!(m > T(0)) || !std::isfinite(m)) return 0;  // invalid rays stay as given
    if (m >= std::numeric_limits<T>::min()) {  // normal: the exponent from the bits
      using U = std::conditional_t<std::is_same_v<T, double>, std::uint64_t, std::uint32_t>;
      constexpr int mant = std::numeric_limits<T>::digits - 1;
      constexpr int bias = std::numeric_limits<T>::max_exponent - 1;
      exp = int((std::bit_cast<U>(m) >> mant) & U((bias << 1) | 1)) - bias + 1;  // m in [2^(exp-1), 2^exp)
    } else {
      std::frexp(m, &exp);
    }
    const T top = std::numeric_limits<T>::max();
    if (exp == 0) {
      if (ray.t_max > top) ray.t_max = top;
      return 0;
    }
    for (int k = 0; k < 3; ++k) ray.direction[k] = times_pow2(ray.direction[k], -exp);
    ray.t_min = times_pow2(ray.t_min, exp);
    ray.t_max = times_pow2(std::min(ray.t_max, top), exp);
  }
  return exp;
}
}  // namespace detail

/// The ray with its direction scaled by a power of two 2^-exp so that its
/// largest component is in [0.5, 1), and its t range converted (t' = t 2^exp),
/// t_max first clipped to T's largest finite value. The line and the hits are
/// the same; every computation on the scaled ray is the original's scaled
/// exactly (when nothing overflows), so the answers' bits do not change, but a
/// direction of 1e-300 or 1e300 no longer overflows the watertight test's
/// 1/d_z or the box tests. A hit at t' is at t = to_t(t'); a hit whose t would
/// overflow T is no hit (t_max clipped). Exact types: unchanged, exp 0.
template <class T>
struct NormalizedRay {
  Ray<T> ray;
  int exp = 0;

  explicit NormalizedRay(const Ray<T>& r) : ray(r), exp(detail::normalize_ray(ray)) {}
  /// The caller's t of a hit at t' on the scaled ray.
  T to_t(const T& t) const {
    if constexpr (ScalarTraits<T>::is_ieee) {
      return exp == 0 ? t : detail::times_pow2(t, -exp);
    } else {
      return t;
    }
  }
};

/// Precomputed per-ray data of the watertight test: reuse it across triangles.
/// Works on the NormalizedRay (`ray` is the scaled ray; `t_exp` its exponent):
/// hits report t in the caller's units.
template <class T>
struct WatertightRay {
  int kx = 0, ky = 1, kz = 2;  ///< axes; kz is the direction's dominant axis
  T sx = T(0), sy = T(0), sz = T(1);  ///< shear: dx/dz, dy/dz, 1/dz
  Ray<T> ray;      ///< the normalized ray (NormalizedRay)
  int t_exp = 0;   ///< t = t' 2^-t_exp
  T to_caller = T(1);  ///< 2^-t_exp when normal (0: use ldexp)
  T to_scaled = T(1);  ///< 2^t_exp when normal (0: use ldexp)

  /// A hit's t on the normalized ray -> the caller's t, and back.
  T caller_t(const T& t) const {
    if constexpr (ScalarTraits<T>::is_ieee) {
      return to_caller != T(0) ? t * to_caller : std::ldexp(t, -t_exp);
    } else {
      return t;
    }
  }
  T scaled_t(const T& t) const {
    if constexpr (ScalarTraits<T>::is_ieee) {
      return to_scaled != T(0) ? t * to_scaled : std::ldexp(t, t_exp);
    } else {
      return t;
    }
  }

  /// A placeholder (storage that set() prepares in place; not for tests).
  WatertightRay() = default;
  explicit WatertightRay(const Ray<T>& input) { set(input); }
  /// Prepares this object for `input` (what the constructor does), in place:
  /// a packet's rays are set where they live, since assigning a temporary
  /// copied it back with one wide load over its fields' narrow stores (a
  /// store-forwarding stall per ray: 15% of bunny's primary-ray packets).
  void set(const Ray<T>& input) {
    ray = input;
    t_exp = detail::normalize_ray(ray);  // NormalizedRay's scaling, on the member
    if constexpr (ScalarTraits<T>::is_ieee) {
      to_caller = detail::pow2_or_zero<T>(-t_exp);
      to_scaled = detail::pow2_or_zero<T>(t_exp);
    }
    const Ray<T>& r = ray;
    using std::abs;
    kz = 0;
    T best = abs(r.direction[0]);
    for (int k = 1; k < 3; ++k) {
      T m = abs(r.direction[k]);
      if (m > best) {
        best = m;
        kz = k;
      }
    }
    kx = kz == 2 ? 0 : kz + 1;
    ky = kx == 2 ? 0 : kx + 1;
    // Swap kx and ky to keep the triangle's winding (and so front_face).
    if (r.direction[kz] < T(0)) {
      int tmp = kx;
      kx = ky;
      ky = tmp;
    }
    sz = T(1) / r.direction[kz];
    sx = r.direction[kx] * sz;
    sy = r.direction[ky] * sz;
  }
};

namespace detail {

/// The largest |sheared coordinate| (S of the edge error bounds below).
template <class W>
inline W sheared_extent(W ax, W ay, W bx, W by, W cx, W cy) {
  using std::abs;
  return std::max(std::max(std::max(abs(ax), abs(ay)), std::max(abs(bx), abs(by))),
                  std::max(abs(cx), abs(cy)));
}

/// A triangle in the ray's sheared frame: the corners relative to the origin,
/// their sheared x/y, and the edge functions U, V, W (weights of a, b, c, times
/// det). Shared by the watertight test and the mesh engine's crossing test
/// (prox/mesh/ray_crossing.hpp), so the two cannot drift apart.
template <class T>
struct ShearedTriangle {
  Vec3<T> A, B, C;
  T ax, ay, bx, by, cx, cy;
  T U, V, W;
  unsigned exact = 0;  ///< bits 0, 1, 2: U, V, W recomputed exactly (double)
  T err = T(0);        ///< edge_error_bound: each edge function's rounding error is below it

  /// True when the edge functions have mixed signs: the ray passes outside.
  bool outside() const {
    return (U < T(0) || V < T(0) || W < T(0)) && (U > T(0) || V > T(0) || W > T(0));
  }
};

/// The edge function of edge p -> q in the ray's sheared frame, exactly
/// (rounded once): qx py - qy px = -det[d'; P; Q], P = p - o and Q = q - o
/// exact (Two-Sum), d' = (sx, sy, 1) on the axes (kx, ky, kz): the ray's own
/// (rounded) shear, the same for every triangle, so a shared edge gets the
/// same value with the opposite sign from both of its triangles. Scaled by a
/// power of two so that no product over- or underflows within prox's
/// coordinate range. Static (internal linkage): each ISA object of the mesh
/// engine keeps its own copy (the engine_isa_symbols test).
/// Returns m with the edge function = m 2^e (m: the exact value, rounded
/// once, of the scaled determinant).
template <class T>
[[gnu::noinline]] static double exact_edge_scaled(const WatertightRay<T>& wr, const Vec3<T>& p,
                                                  const Vec3<T>& q, int& e) {
  double big = 0;
  for (const Vec3<T>* v : {&p, &q, &wr.ray.origin})
    for (int i = 0; i < 3; ++i) big = std::max(big, std::abs(double((*v)[i])));
  int j = 0;
  std::frexp(big, &j);
  const double f = std::ldexp(1.0, -j);
  const int axis[3] = {wr.kx, wr.ky, wr.kz};
  const double dn[3] = {double(wr.sx), double(wr.sy), 1.0};
  double r[3][3][2];
  for (int i = 0; i < 3; ++i) {
    const int k = axis[i];
    const double o = double(wr.ray.origin[k]) * f;
    r[0][i][1] = dn[i];
    r[0][i][0] = 0;
    xp::two_sum(double(p[k]) * f, -o, r[1][i][1], r[1][i][0]);
    xp::two_sum(double(q[k]) * f, -o, r[2][i][1], r[2][i][0]);
  }
  e = 2 * j;
  return -xp::det3(r);
}
/// The edge function, exactly, rounded to T, its sign kept: a nonzero value
/// below T's smallest normal becomes the smallest normal of its sign (an
/// exact 0 stays 0), since the test reads a 0 edge function as the ray on the
/// edge, and a device that flushes subnormals (the GLSL twin) would read a
/// subnormal one as 0 too. The change (below 2^-126 in float) is far below
/// every other term: sheared_hit answers in T only when |det| >= 2^-80
/// (2^-680 double), else sheared_hit_rescaled recomputes the exact edges.
/// Float: exact too. The expansions run in double on the float inputs
/// promoted (exact), scaled by the power of two 2^-j that brings the largest
/// |coordinate| into [0.5, 1) (j <= 128): every scaled coordinate and every
/// Two-Sum part is a multiple of 2^-277 (float's granularity 2^-149 times
/// 2^-128), the shear's sx, sy multiples of 2^-149, so each product of det3
/// and its Two-Product error term is a multiple of 2^-703, far above double's
/// underflow (2^-1022), and below 1: nothing is rounded, m is the exact scaled
/// determinant rounded once, and m 2^e is then rounded to float (a second
/// rounding, which keeps the sign and the value to within a float ulp).
template <class T>
static T exact_edge(const WatertightRay<T>& wr, const Vec3<T>& p, const Vec3<T>& q) {
  int e = 0;
  const double m = exact_edge_scaled(wr, p, q, e);
  const T r = T(std::ldexp(m, e));
  if (std::abs(r) < std::numeric_limits<T>::min() && m != 0.0) [[unlikely]]
    return m > 0.0 ? std::numeric_limits<T>::min() : -std::numeric_limits<T>::min();
  return r;
}

/// The bound on the rounding error of a sheared edge function, for the
/// scalar kernel's choice of which edges to recompute exactly. For edge
/// p -> q, whose function is E = qx py - qy px, with Mx = |P_kx| + |sx P_kz|
/// (My likewise) bounding a sheared coordinate and its rounding error (at
/// most 3 u Mx: the difference p - o, the product, the subtraction;
/// u = eps / 2), each coordinate's error is weighed by the other factor's
/// value, plus the products' and the subtraction's roundings:
///   |E - E*| <= 3 u (Mx_q |y_p| + |x_q| My_p + My_q |x_p| + |y_q| Mx_p)
///             + 2 u (|x_q y_p| + |y_q x_p|) + 9 u^2 (Mx_q My_p + My_q Mx_p)
///             + the smallest normal,
/// so for a triangle next to the ray (sheared coordinates small, magnitudes
/// ~ its distance D) it is ~ u D s rather than u D^2: exact recomputation
/// only for rays within a few ulps of D of an edge's line. It never exceeds
/// 5 eps (Mx_q My_p + My_q Mx_p) + the smallest normal.
template <class T>
inline T edge_error_bound_tight(const T& xq, const T& yq, const T& xp, const T& yp, const T& mxq,
                                const T& myq, const T& mxp, const T& myp) {
  using std::abs;
  constexpr T e = std::numeric_limits<T>::epsilon();
  const T cross = mxq * abs(yp) + abs(xq) * myp + myq * abs(xp) + abs(yq) * mxp;
  const T prod = abs(xq * yp) + abs(yq * xp);
  const T second = mxq * myp + myq * mxp;
  return T(1.51) * e * cross + T(1.01) * e * prod + T(2.5) * e * e * second +
         std::numeric_limits<T>::min();
}

/// One bound on the rounding error of all three edge functions of a sheared
/// triangle (T's rounding, evaluated in T), from the largest |sheared
/// coordinate| S and the largest |corner - origin| along kz, Z. From
/// edge_error_bound_tight: Mx = |P_kx| + |sx P_kz| <= (|x| + 2 |P_kz|)(1 + u)
/// (|sx| <= 1), so Mx, My <= N (1 + u) with N = S + 2 Z; then cross <= 4 N S,
/// prod <= 2 S^2 <= 2 N S, second <= 2 N^2, and the tight bound is at most
///   8.06 eps N S + 5 eps^2 N^2 + the smallest normal;
/// the constants 8.2 and 5.2 leave 1.7% for the (1 + u) factors and this
/// evaluation's six roundings. Used three ways, all by the same operations:
/// shear_triangle's screen (an edge function above it keeps its rounded
/// value), t_unreliable's e, and the mesh engine's SIMD leaf filters (a lane
/// is rejected when an edge function is above it and another below minus it:
/// src/mesh/leaf_ray_simd.hpp; the GLSL kernel's twin too). An overflow gives
/// inf: every edge then counts as near 0.
template <class T>
struct EdgeBound {
  static constexpr T s = T(8.2) * std::numeric_limits<T>::epsilon();
  static constexpr T n = T(5.2) * std::numeric_limits<T>::epsilon() *
                         std::numeric_limits<T>::epsilon();
};
template <class T>
inline T edge_error_bound(const T& S, const T& Z) {
  const T N = S + (Z + Z);
  return (EdgeBound<T>::s * S + EdgeBound<T>::n * N) * N + std::numeric_limits<T>::min();
}

template <class T>
ShearedTriangle<T> shear_triangle(const WatertightRay<T>& wr, const Vec3<T>& a, const Vec3<T>& b,
                                  const Vec3<T>& c) {
  ShearedTriangle<T> s;
  s.A = a - wr.ray.origin;
  s.B = b - wr.ray.origin;
  s.C = c - wr.ray.origin;
  const T pxa = wr.sx * s.A[wr.kz], pya = wr.sy * s.A[wr.kz];
  const T pxb = wr.sx * s.B[wr.kz], pyb = wr.sy * s.B[wr.kz];
  const T pxc = wr.sx * s.C[wr.kz], pyc = wr.sy * s.C[wr.kz];
  s.ax = s.A[wr.kx] - pxa;
  s.ay = s.A[wr.ky] - pya;
  s.bx = s.B[wr.kx] - pxb;
  s.by = s.B[wr.ky] - pyb;
  s.cx = s.C[wr.kx] - pxc;
  s.cy = s.C[wr.ky] - pyc;
  s.U = s.cx * s.by - s.cy * s.bx;  // weight of a; edge b -> c
  s.V = s.ax * s.cy - s.ay * s.cx;  // weight of b; edge c -> a
  s.W = s.bx * s.ay - s.by * s.ax;  // weight of c; edge a -> b
  if constexpr (ScalarTraits<T>::is_ieee) {
    // Float and double: an edge function within its rounding error of 0 (the
    // ray passes that close to the edge's line, or the edge's ends are far
    // from the origin compared with the ray's distance to the line) is
    // recomputed exactly, so that every edge's sign is the exact sign for the
    // ray's shear: no hit or miss is decided by rounding, however far the
    // corners are, and a shared edge still decides the same way for both of
    // its triangles (an edge function farther from 0 than its error bound has
    // the exact sign). Rare: rays within a few ulps of an edge's line. (Float
    // recomputed only exactly-zero edge functions, in double, up to issue 9.)
    using std::abs;
    // Screen first (most triangles a ray meets are far from its line): one
    // bound for the three edge functions (edge_error_bound), kept for
    // sheared_hit's t_unreliable.
    const T Z = std::max(std::max(abs(s.A[wr.kz]), abs(s.B[wr.kz])), abs(s.C[wr.kz]));
    s.err = edge_error_bound(sheared_extent(s.ax, s.ay, s.bx, s.by, s.cx, s.cy), Z);
    if (abs(s.U) > s.err && abs(s.V) > s.err && abs(s.W) > s.err) [[likely]]  // NaN: below
      return s;
    const T mxa = abs(s.A[wr.kx]) + abs(pxa), mya = abs(s.A[wr.ky]) + abs(pya);
    const T mxb = abs(s.B[wr.kx]) + abs(pxb), myb = abs(s.B[wr.ky]) + abs(pyb);
    const T mxc = abs(s.C[wr.kx]) + abs(pxc), myc = abs(s.C[wr.ky]) + abs(pyc);
    // U: edge b -> c; V: c -> a; W: a -> b.
    if (!(abs(s.U) > edge_error_bound_tight(s.cx, s.cy, s.bx, s.by, mxc, myc, mxb, myb)))
        [[unlikely]] {
      s.U = exact_edge(wr, b, c);
      s.exact |= 1u;
    }
    if (!(abs(s.V) > edge_error_bound_tight(s.ax, s.ay, s.cx, s.cy, mxa, mya, mxc, myc)))
        [[unlikely]] {
      s.V = exact_edge(wr, c, a);
      s.exact |= 2u;
    }
    if (!(abs(s.W) > edge_error_bound_tight(s.bx, s.by, s.ax, s.ay, mxb, myb, mxa, mya)))
        [[unlikely]] {
      s.W = exact_edge(wr, a, b);
      s.exact |= 4u;
    }
  }
  return s;
}

/// When sheared_hit's t counts as cancelled: |tn| below ratio times
/// |U az| + |V bz| + |W cz| (the sum t = tn / det averages; for a hit the
/// weights U, V, W share a sign). Outside the ratio the sum's and the
/// depths' rounding move t by at most about eps / ratio relative to t
/// (t_unreliable adds the edge functions' own rounding).
template <class T> struct FarCorners { static constexpr double ratio = 0x1p-20; };
template <> struct FarCorners<float> { static constexpr float ratio = 0x1p-10f; };

/// A bound on the rounding error of each of a sheared triangle's three edge
/// functions (T's rounding; evaluated in W, T or wider), from the largest
/// |sheared coordinate| S (every |x|, |y|) and the largest |depth| Z (|az|,
/// |bz|, |cz|, on the normalized ray). From edge_error_bound_tight: its Mx
/// = |P_kx| + |sx P_kz| with |P_kx| <= |x| + |sx P_kz| (1 + u) and |sx| <= 1,
/// |P_kz| = |z / sz| <= Z (1 + 3 u) (|1 / sz| = |d_kz| <= 1: the normalized
/// direction), so Mx, My <= N = (S + 2 Z)(1 + 4 u); then cross <= 4 N S,
/// prod <= 2 S^2, second <= 2 N^2, and
///   e <= eps (6.04 N S + 2.02 S^2) + 5 eps^2 N^2 + the smallest normal;
/// the constants below leave ~1% for N's and this sum's own rounding. An
/// edge recomputed exactly (rounded once) is within u |E| <= u S^2 of its value.
template <class T, class W>
inline W edge_error_bound_all(W S, W Z) {
  constexpr W e = W(std::numeric_limits<T>::epsilon());
  const W N = S + W(2) * Z;
  return e * (W(6.12) * N * S + W(2.05) * S * S) + W(5.1) * e * e * (N * N) +
         W(std::numeric_limits<T>::min());
}

/// Whether sheared_hit's t = tn / det may be off by more than about
/// 4 u / ratio relative (then far_corner_t recomputes it from the exact
/// coordinates). Two causes:
/// - tn cancelled: |tn| < ratio (|U az| + |V bz| + |W cz|) (the sum's and the
///   depths' rounding are a few u of that sum);
/// - the edge functions' own rounding: each within e of its exact value
///   (e: ShearedTriangle::err, or edge_error_bound_all on the rescaled
///   path; an edge recomputed exactly is within u |E| < e), the exact
///   t* = (tn + sum_i dE_i z_i) / (det + sum_i dE_i) (the depths z_i = az,
///   bz, cz held exact here: the first cause covers their rounding) gives
///     t* - t = sum_i dE_i (z_i - t) / (det + sum_i dE_i),
///   so |t* - t| <= 2 e sum_i |z_i - t| / |det| whenever 6 e <= |det|.
///   That is ~ eps D S s / s^2 for a triangle of size s at distance D (t
///   to ~ eps relative: the depth spread sum |z_i - t| ~ s), but large for
///   a sliver whose far corners' depths spread far beyond t (the fuzz
///   finding fuzz/findings/read_mesh_ray_count_4.stl: corners 1.7e29 away,
///   the plane crossed at t = -20, the sheared t 6.6e8 from edge functions
///   accurate to 1.4e-5 while tn did not cancel to below 2^-17 of its terms).
/// NaN or infinite bounds count as unreliable. Float tests the second cause
/// too since issue 9 (its edges are exact); with e computed once by
/// shear_triangle it costs a division and about 12 instructions per
/// candidate hit.
template <class T, class W>
inline bool t_unreliable(W e, W U, W V, W Wt, W az, W bz, W cz, W tn, W det) {
  using std::abs;
  constexpr W r = W(FarCorners<T>::ratio);
  if (abs(tn) < r * (abs(U * az) + abs(V * bz) + abs(Wt * cz))) return true;
  // Its edge decisions are exact (shear_triangle), so the exact t is that of a
  // point inside the triangle, as the BVH's box culling assumes. (Float kept
  // the cancellation test alone until issue 9 made its edges exact: a float
  // edge function within its rounding of 0 was not exact, and the exact plane
  // crossing of such a ray could lie outside the triangle's box, e.g. a ray
  // through a vertex of a steep triangle, 12 float ulps before the vertex the
  // sheared test reported, which made MeshIndex and BruteForce disagree.)
  if (!(W(6) * e <= abs(det))) return true;
  const W t = tn / det;
  const W spread = abs(az - t) + abs(bz - t) + abs(cz - t);
  // |t* - t| <= 2 e spread / |det| <= tau |t|, as 2 e spread <= tau |t| |det| = tau |tn|
  // (each side scales as size^3: a double answer still scales exactly by 2^k).
  constexpr W tau = W(2 * std::numeric_limits<T>::epsilon()) / r;  // 4 u / ratio
  return !(W(2) * e * spread <= tau * abs(tn));
}

/// The rare path of a hit whose t cancelled: the corners far from the ray's
/// origin compared with the distance along the ray to their plane (the
/// sheared t = (U az + V bz + W cz) / det is then a small average of large
/// values, accurate only to ~ eps times the corners' distance). t is
/// recomputed from the caller's exact coordinates as
/// det[a - o, b - o, c - o] / det[b - a, c - a, d] (o, d: the normalized ray),
/// both determinants exact expansions rounded once, after a common power of
/// two scaling: t within a few ulps, its sign exact. The edge decision (hit
/// inside the triangle, u, v, side) stays the sheared one, so the test stays
/// watertight. Returns NaN when the input is out of the exact range.
/// Static (internal linkage, no Tag): each ISA object of the mesh engine
/// keeps its own copy (the engine_isa_symbols test).
template <class T>
[[gnu::noinline]] static T far_corner_t(const WatertightRay<T>& wr, const Vec3<T>& a,
                                        const Vec3<T>& b, const Vec3<T>& c) {
  double big = 0;
  for (const Vec3<T>* v : {&a, &b, &c, &wr.ray.origin})
    for (int i = 0; i < 3; ++i) big = std::max(big, std::abs(double((*v)[i])));
  int j = 0;
  std::frexp(big, &j);
  const double f = std::ldexp(1.0, -j);  // big f in [0.5, 1); exact unless an input gets subnormal
  double rn[3][3][2], rd[3][3][2];
  const Vec3<T>* p[3] = {&a, &b, &c};
  for (int i = 0; i < 3; ++i) {
    const double o = double(wr.ray.origin[i]) * f;
    const double x[3] = {double((*p[0])[i]) * f, double((*p[1])[i]) * f, double((*p[2])[i]) * f};
    for (int k = 0; k < 3; ++k) {  // rn[k] = corner k - o
      xp::two_sum(x[k], -o, rn[k][i][1], rn[k][i][0]);
    }
    xp::two_sum(x[1], -x[0], rd[0][i][1], rd[0][i][0]);  // b - a
    xp::two_sum(x[2], -x[0], rd[1][i][1], rd[1][i][0]);  // c - a
    rd[2][i][1] = double(wr.ray.direction[i]);
    rd[2][i][0] = 0;
  }
  const double num = xp::det3(rn), den = xp::det3(rd);
  return T(std::ldexp(num / den, j));
}

/// The rare path of sheared_hit: a triangle whose det (~ size^2) or tn
/// (~ size^3) left T's normal range (a triangle or a distance far from 1).
/// Float: recomputed in double from the float sheared coordinates (their
/// products are exact there). Double: the nine sheared coordinates scaled by a
/// power of two (exact), t scaled back. A t that is not finite is no hit.
template <class T>
RayTriangleHit<T> sheared_hit_rescaled(const WatertightRay<T>& wr, const ShearedTriangle<T>& s,
                                       const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c) {
  using W = std::conditional_t<std::is_same_v<T, float>, double, T>;
  W v[9] = {W(s.ax), W(s.ay), W(s.bx), W(s.by), W(s.cx), W(s.cy),
            W(wr.sz) * W(s.A[wr.kz]), W(wr.sz) * W(s.B[wr.kz]), W(wr.sz) * W(s.C[wr.kz])};
  int j = 0;
  if constexpr (std::is_same_v<T, double>) {
    W m = 0;
    for (const W& x : v) m = std::max(m, std::abs(x));
    if (!(m > 0) || !std::isfinite(m)) return RayTriangleHit<T>{};
    std::frexp(m, &j);
    for (W& x : v) x = std::ldexp(x, -j);
  }
  // The edge functions with the signs of every other path (exact, or farther
  // from 0 than their rounding error), so shared edges stay watertight: the
  // edges shear_triangle recomputed exactly, again exactly (scaled, in
  // double); the others from the scaled coordinates (float: the float sheared
  // coordinates, whose products are exact in double; double: the same bits,
  // times 2^-2j, as an unscaled triangle's, since double answers scale exactly).
  auto edge = [&](const Vec3<T>& p, const Vec3<T>& q, W rounded, unsigned bit) {
    if (!(s.exact & bit)) return rounded;
    int e = 0;
    const double m = exact_edge_scaled(wr, p, q, e);
    return W(std::ldexp(m, e - 2 * j));
  };
  const W U = edge(b, c, v[4] * v[3] - v[5] * v[2], 1u);
  const W V = edge(c, a, v[0] * v[5] - v[1] * v[4], 2u);
  const W Wt = edge(a, b, v[2] * v[1] - v[3] * v[0], 4u);
  RayTriangleHit<T> r;
  if ((U < 0 || V < 0 || Wt < 0) && (U > 0 || V > 0 || Wt > 0)) return r;
  const W det = U + V + Wt;
  if (det == W(0)) return r;
  const W tn = U * v[6] + V * v[7] + Wt * v[8];
  W t = tn / det;
  if constexpr (std::is_same_v<T, double>) t = std::ldexp(t, j);
  T tt = T(t);
  const W e = edge_error_bound_all<T>(sheared_extent(v[0], v[1], v[2], v[3], v[4], v[5]),
                                      std::max(std::abs(v[6]), std::max(std::abs(v[7]),
                                                                        std::abs(v[8]))));
  if (t_unreliable<T>(e, U, V, Wt, v[6], v[7], v[8], tn, det))
    tt = far_corner_t(wr, a, b, c);
  if (!std::isfinite(tt) || !(tt >= wr.ray.t_min && tt <= wr.ray.t_max)) return r;
  r.hit = true;
  r.t = wr.caller_t(tt);
  if (!std::isfinite(r.t)) return RayTriangleHit<T>{};
  r.u = T(V / det) + T(0);
  r.v = T(Wt / det) + T(0);
  r.front_face = det > W(0);
  return r;
}

/// The hit of a sheared triangle whose edge functions passed: t in
/// [t_min, t_max] (compared without dividing), weights, side.
template <class T>
RayTriangleHit<T> sheared_hit(const WatertightRay<T>& wr, const ShearedTriangle<T>& s,
                              const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c) {
  RayTriangleHit<T> r;
  const T det = s.U + s.V + s.W;
  const T az = wr.sz * s.A[wr.kz];
  const T bz = wr.sz * s.B[wr.kz];
  const T cz = wr.sz * s.C[wr.kz];
  const T tn = s.U * az + s.V * bz + s.W * cz;
  if constexpr (ScalarTraits<T>::is_ieee) {
    // det ~ size^2 and tn ~ size^3 (size: the corners' offsets from the
    // origin, on the normalized ray). det below 2^-680 (double; 2^-80 float)
    // would leave tn = det t subnormal, and det or tn above 2^900 (2^100)
    // near overflow: rescaled (rare).
    constexpr T lo = std::is_same_v<T, float> ? T(0x1p-80) : T(0x1p-680);
    constexpr T hi = std::is_same_v<T, float> ? T(0x1p100) : T(0x1p900);
    using std::abs;
    if (!(abs(det) >= lo && abs(det) <= hi && abs(tn) <= hi))
      return sheared_hit_rescaled(wr, s, a, b, c);
  }
  if (det == T(0)) return r;  // no area in the ray's view: never hit
  if constexpr (ScalarTraits<T>::is_ieee) {
    // tn cancelled, or (double) the edge functions' rounding moves t (the
    // corners are far from the origin compared with the plane's distance
    // along the ray, or with the triangle's width: t_unreliable): t from the
    // exact coordinates.
    if (t_unreliable<T>(s.err, s.U, s.V, s.W, az, bz, cz, tn, det)) {
      const T t = far_corner_t(wr, a, b, c);
      if (!(t >= wr.ray.t_min && t <= wr.ray.t_max)) return r;
      r.hit = true;
      r.t = wr.caller_t(t);
      if (!std::isfinite(r.t)) return RayTriangleHit<T>{};
      r.u = s.V / det + T(0);
      r.v = s.W / det + T(0);
      r.front_face = det > T(0);
      return r;
    }
  }
  if (det > T(0)) {
    if (tn < wr.ray.t_min * det || tn > wr.ray.t_max * det) return r;
  } else {
    if (tn > wr.ray.t_min * det || tn < wr.ray.t_max * det) return r;
  }
  r.hit = true;
  r.t = tn / det;
  r.t = wr.caller_t(r.t);
  // + 0 turns an edge function's -0 into +0 (a weight prints as 0, not -0).
  r.u = s.V / det + T(0);
  r.v = s.W / det + T(0);
  // det = U + V + W is dot(-direction, n) times a positive factor (1/|d_kz|;
  // the kx/ky swap for a negative d_kz keeps that sign), so det > 0 is a front
  // face: the same side Möller–Trumbore reports (its det is -dot(direction, n)).
  r.front_face = det > T(0);
  return r;
}

}  // namespace detail

/// Woop–Benthin–Wald watertight test with precomputed ray data.
template <class T>
RayTriangleHit<T> ray_triangle_watertight(const WatertightRay<T>& wr, const Vec3<T>& a,
                                          const Vec3<T>& b, const Vec3<T>& c) {
  const detail::ShearedTriangle<T> s = detail::shear_triangle(wr, a, b, c);
  if (s.outside()) return RayTriangleHit<T>{};
  return detail::sheared_hit(wr, s, a, b, c);
}

/// Watertight ray/triangle test (Woop, Benthin, Wald 2013), both-sided.
template <class T>
RayTriangleHit<T> ray_triangle_watertight(const Ray<T>& ray, const Vec3<T>& a, const Vec3<T>& b,
                                          const Vec3<T>& c) {
  if (!detail::ray_inputs_finite(ray, a, b, c)) return RayTriangleHit<T>{};
  if (ray.direction == Vec3<T>::zero()) return RayTriangleHit<T>{};
  return ray_triangle_watertight(WatertightRay<T>(ray), a, b, c);
}

}  // namespace prox
