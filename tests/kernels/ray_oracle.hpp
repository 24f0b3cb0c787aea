// tests/kernels/ray_oracle.hpp — case families and the exact-oracle driver for
// the two ray/triangle kernels.
//
// For each case the exact answer is computed once (Möller–Trumbore on
// mpq_class: with exact arithmetic its hit set is the closed triangle and
// closed [t_min, t_max]); every 8th case the watertight kernel on mpq_class
// must agree with it exactly (hit, t, u, v, front_face). Then both kernels in
// float and double are compared with it.
//
// Rounding band: a float/double answer may disagree with the exact hit/miss
// only when the exact case is within `band` (in ulps of the type) of a
// decision boundary, measured scale-free from exact values:
//   - an edge: |E_i| / (|d| L^2) <= band eps, E_i = d . ((v_j - o) x (v_k - o))
//     (the edge functions of the watertight test, before shearing);
//   - the plane direction: |d . n| / (|d| |n|) <= band eps (grazing rays);
//   - the t range: |t* - t_min| or |t* - t_max| times |d . n| / (|n| L) <= band eps;
// with L = max(|a - o|, |b - o|, |c - o|, longest edge). Disagreements outside
// the band fail the test. For hits on both sides the t error is reported as
// |t - t*| |d . n| / (|n| L) (the error of the hit point along the normal, in
// units of L) and, divided by the triangle's condition kappa = longest
// edge^2 / |n| (>= 1; Möller–Trumbore's t degrades as 1/sin of the smallest
// angle), bounded in ulps.
#pragma once

#include <gtest/gtest.h>

#include "exact_oracle.hpp"
#include "support/scale.hpp"

namespace prox::test {

enum class RayFamily { random, edges, near_edges, vertices, grazing, parallel, tiny, far, far_corners };

inline const char* to_string(RayFamily f) {
  static const char* names[] = {"random",  "at edges", "near edges", "at vertices",
                                "grazing", "parallel", "tiny 1e-6",  "far 1e6",
                                "far corners"};
  return names[int(f)];
}

struct RayCase {
  V3f o, d, a, b, c;
  float t_max = std::numeric_limits<float>::infinity();
};

inline RayCase random_ray(Rng& rng, double tri, double origin) {
  RayCase k;
  k.a = rng.vec(-tri, tri);
  k.b = rng.vec(-tri, tri);
  k.c = rng.vec(-tri, tri);
  k.o = rng.vec(-origin, origin);
  const double u = rng.uniform(-0.3, 1.3), v = rng.uniform(-0.3, 1.3 - u);
  const V3d target = to_d(k.a) + (to_d(k.b) - to_d(k.a)) * u + (to_d(k.c) - to_d(k.a)) * v;
  double scale = std::pow(10.0, rng.uniform(-1, 1));
  if (rng.integer(0, 3) == 0) scale = -scale;  // pointing away: a miss by t range
  k.d = ((target - to_d(k.o)) * scale).cast<float>();
  return k;
}

inline RayCase draw_ray(Rng& rng, RayFamily family) {
  RayCase k;
  switch (family) {
    case RayFamily::random: return random_ray(rng, 1, 3);
    case RayFamily::edges:
    case RayFamily::vertices: {  // dyadic: the ray passes exactly through the target
      k.a = rng.dyadic(1024);
      k.b = rng.dyadic(1024);
      k.c = rng.dyadic(1024);
      const V3f C[3] = {k.a, k.b, k.c};
      const int i = rng.integer(0, 2), j = (i + 1) % 3;
      const V3f target = family == RayFamily::vertices
                             ? C[i]
                             : C[i] + (C[j] - C[i]) * (float(rng.integer(1, 7)) / 8.0f);
      k.o = rng.dyadic(4096);
      k.d = target - k.o;  // exact: dyadic with few bits
      if (rng.integer(0, 3) == 0) k.t_max = 1.0f;  // the hit is exactly at t_max
      break;
    }
    case RayFamily::near_edges: {  // through a point 1e-9..1e-3 (relative) inside or outside an edge
      k = random_ray(rng, 1, 3);
      const V3d C[3] = {to_d(k.a), to_d(k.b), to_d(k.c)};
      const int i = rng.integer(0, 2), j = (i + 1) % 3;
      const V3d n = cross(C[1] - C[0], C[2] - C[0]);
      const V3d m = cross(C[j] - C[i], n);  // in-plane, perpendicular to the edge
      const double ml = std::sqrt(squared_norm(m));
      if (ml == 0) break;
      const double off = std::pow(10.0, rng.uniform(-9, -3)) * (rng.integer(0, 1) ? 1 : -1);
      const V3d target = lerp(C[i], C[j], rng.uniform(0, 1)) +
                         m * (off * std::sqrt(squared_distance(C[i], C[j])) / ml);
      k.d = ((target - to_d(k.o)) * std::pow(10.0, rng.uniform(-1, 1))).cast<float>();
      break;
    }
    case RayFamily::grazing: {  // direction within 1e-7..1e-2 rad of the plane
      k = random_ray(rng, 1, 1);
      const V3d n = cross(to_d(k.b) - to_d(k.a), to_d(k.c) - to_d(k.a));
      const double nl = std::sqrt(squared_norm(n));
      if (nl == 0) break;
      const V3d nh = n / nl;
      V3d d = to_d(k.d);
      d = d - nh * dot(d, nh);  // in-plane
      const double dl = std::sqrt(squared_norm(d));
      if (dl == 0) break;
      const double angle = std::pow(10.0, rng.uniform(-7, -2)) * (rng.integer(0, 1) ? 1 : -1);
      const V3d target = to_d(k.o) + to_d(k.d);
      k.d = (d / dl + nh * angle).cast<float>();
      k.o = (target - to_d(k.d) * rng.uniform(0.5, 2)).cast<float>();
      break;
    }
    case RayFamily::parallel: {  // triangle in z = z0, direction with d.z == 0 exactly
      const float z0 = float(rng.integer(-1024, 1024)) / 1024.0f;
      const auto flat = [&] {
        V3f v = rng.dyadic(1024);
        v[2] = z0;
        return v;
      };
      k.a = flat();
      k.b = flat();
      k.c = flat();
      k.o = rng.dyadic(4096);
      if (rng.integer(0, 1)) k.o[2] = z0;  // in the plane
      k.d = rng.dyadic(1024);
      k.d[2] = 0;
      if (k.d == V3f::zero()) k.d[0] = 1;
      break;
    }
    case RayFamily::tiny: {
      const RayCase u = random_ray(rng, 1, 3);
      const V3d o = to_d(rng.vec(-1e-6, 1e-6));
      const auto m = [&](const V3f& v) { return (o + to_d(v) * 1e-6).cast<float>(); };
      k = {m(u.o), (to_d(u.d) * 1e-6).cast<float>(), m(u.a), m(u.b), m(u.c)};
      break;
    }
    case RayFamily::far: {
      const RayCase u = random_ray(rng, 1, 3);
      const V3d o = to_d(random_dir(rng)) * 1e6;
      const auto m = [&](const V3f& v) { return (o + to_d(v)).cast<float>(); };
      k = {m(u.o), u.d, m(u.a), m(u.b), m(u.c)};
      break;
    }
    case RayFamily::far_corners: {
      // Corners 10^2 .. 10^20 from an origin 0.1 .. 10 from their plane, in
      // three directions 120 degrees apart around a point of the plane near
      // the origin; the ray crosses the plane within ~50 of it, towards it or
      // away (t < 0: a miss). The watertight test's sheared t cancels there
      // (its far-corner path, detail::far_corner_t).
      const V3d o = to_d(rng.vec(-1, 1));
      const V3d n = to_d(random_dir(rng));
      V3d t1 = cross(n, to_d(random_dir(rng)));
      t1 = t1 * (1 / std::sqrt(squared_norm(t1)));
      const V3d t2 = cross(n, t1);
      const V3d p0 = o - n * std::pow(10.0, rng.uniform(-1, 1)) +
                     (t1 * rng.uniform(-1, 1) + t2 * rng.uniform(-1, 1)) * 5.0;
      const double a0 = rng.uniform(0, 6.283185307179586);
      V3f c[3];
      for (int i = 0; i < 3; ++i) {
        const double phi = a0 + i * 2.0943951023931953 + 0.5 * rng.uniform(-1, 1);
        c[i] = (p0 + (t1 * std::cos(phi) + t2 * std::sin(phi)) * std::pow(10.0, rng.uniform(2, 20)))
                   .cast<float>();
      }
      V3d d;
      do d = to_d(random_dir(rng)); while (std::abs(dot(d, n)) < 0.2);
      k = {o.cast<float>(), d.cast<float>(), c[0], c[1], c[2]};
      break;
    }
  }
  return k;
}

/// Per family: [kernel][type], kernel 0 = Möller–Trumbore, 1 = watertight.
struct RayStats {
  std::int64_t cases = 0;
  std::int64_t exact_hits = 0;
  std::int64_t in_band = 0;
  std::int64_t disagree_in_band[2][2] = {};
  std::int64_t disagree_outside[2][2] = {};
  std::int64_t front_mismatch[2][2] = {};
  Worst t_err[2][2];    ///< |t - t*| |d.n| / (|n| L), in ulps of the type
  Worst t_err_k[2][2];  ///< the same divided by kappa = longest edge^2 / |n| (>= 1)
  std::int64_t first_bad = -1;
};

namespace detail_oracle {

inline double dq(const Q& x) { return x.get_d(); }

template <class T>
void compare_ray(const RayTriangleHit<T>& h, const RayTriangleHit<Q>& ex, bool ambiguous,
                 double t_scale, double kappa, std::int64_t i, int kernel, RayStats& st) {
  constexpr int type = std::is_same_v<T, float> ? 0 : 1;
  const double eps = type == 0 ? std::numeric_limits<float>::epsilon()
                               : std::numeric_limits<double>::epsilon();
  if (h.hit != ex.hit) {
    if (ambiguous) {
      ++st.disagree_in_band[kernel][type];
    } else {
      ++st.disagree_outside[kernel][type];
      if (st.first_bad < 0) st.first_bad = i;
    }
    return;
  }
  if (!h.hit) return;
  if (h.front_face != ex.front_face) ++st.front_mismatch[kernel][type];
  const double e = abs_err(h.t, ex.t) * t_scale / eps;
  st.t_err[kernel][type].add(e, i);
  st.t_err_k[kernel][type].add(e / kappa, i);
}

}  // namespace detail_oracle

inline RayStats run_ray_family(RayFamily family, std::int64_t count, std::uint64_t seed,
                               double band_ulps[2]) {
  using detail_oracle::dq;
  Rng rng(seed * 7919ULL + std::uint64_t(family));
  RayStats st;
  int cross_failures = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const RayCase k = draw_ray(rng, family);
    const V3q o = to_q(k.o), d = to_q(k.d), a = to_q(k.a), b = to_q(k.b), c = to_q(k.c);
    Ray<Q> rq{o, d};
    if (std::isfinite(k.t_max)) rq.t_max = Q(double(k.t_max));
    const RayTriangleHit<Q> ex = ray_triangle_moller_trumbore(rq, a, b, c);
    st.exact_hits += ex.hit;
    if (i % 8 == 0) {
      const RayTriangleHit<Q> w = ray_triangle_watertight(rq, a, b, c);
      const bool same = w.hit == ex.hit &&
                        (!ex.hit || (w.t == ex.t && w.u == ex.u && w.v == ex.v &&
                                     w.front_face == ex.front_face));
      if (!same && cross_failures++ < 5)
        ADD_FAILURE() << to_string(family) << " case " << i
                      << ": exact watertight and Möller–Trumbore disagree";
    }
    // Scale-free distances to the decision boundaries, from exact values.
    const V3q n = cross(b - a, c - a);
    const double len_n = std::sqrt(dq(squared_norm(n)));
    const double len_d = std::sqrt(dq(squared_norm(d)));
    const V3d od = to_d(k.o);
    const double L = std::max({std::sqrt(squared_distance(to_d(k.a), od)),
                               std::sqrt(squared_distance(to_d(k.b), od)),
                               std::sqrt(squared_distance(to_d(k.c), od)),
                               std::sqrt(squared_distance(to_d(k.a), to_d(k.b))),
                               std::sqrt(squared_distance(to_d(k.b), to_d(k.c))),
                               std::sqrt(squared_distance(to_d(k.c), to_d(k.a)))});
    const Q dn = dot(d, n);
    const double sin_angle = len_n > 0 ? std::fabs(dq(dn)) / (len_n * len_d) : 0.0;
    double margin = sin_angle;  // smallest scale-free distance to a boundary
    const V3q A = a - o, B = b - o, C = c - o;
    const Q e[3] = {dot(d, cross(B, C)), dot(d, cross(C, A)), dot(d, cross(A, B))};
    for (const Q& ei : e) margin = std::min(margin, std::fabs(dq(ei)) / (len_d * L * L));
    if (len_n > 0 && dn != 0) {
      const Q t_plane = dot(n, A) / dn;  // ray parameter of the plane
      const double ts = std::fabs(dq(dn)) / (len_n * L);
      margin = std::min(margin, std::fabs(dq(t_plane)) * ts);
      if (std::isfinite(k.t_max)) margin = std::min(margin, std::fabs(dq(t_plane - rq.t_max)) * ts);
    }
    const double longest = std::max({squared_distance(to_d(k.a), to_d(k.b)),
                                     squared_distance(to_d(k.b), to_d(k.c)),
                                     squared_distance(to_d(k.c), to_d(k.a))});
    const double kappa = len_n > 0 ? std::max(1.0, longest / len_n) : 1.0;
    const double t_scale = len_n > 0 ? std::fabs(dq(dn)) / (len_n * L) : 0.0;
    const bool amb[2] = {margin <= band_ulps[0] * std::numeric_limits<float>::epsilon(),
                         margin <= band_ulps[1] * std::numeric_limits<double>::epsilon()};
    st.in_band += amb[0];

    const Rayf rf{k.o, k.d, 0.0f, k.t_max};
    const Rayd rd{to_d(k.o), to_d(k.d), 0.0, double(k.t_max)};
    const V3d ad = to_d(k.a), bd = to_d(k.b), cd = to_d(k.c);
    using detail_oracle::compare_ray;
    compare_ray(ray_triangle_moller_trumbore(rf, k.a, k.b, k.c), ex, amb[0], t_scale, kappa, i, 0, st);
    compare_ray(ray_triangle_watertight(rf, k.a, k.b, k.c), ex, amb[0], t_scale, kappa, i, 1, st);
    compare_ray(ray_triangle_moller_trumbore(rd, ad, bd, cd), ex, amb[1], t_scale, kappa, i, 0, st);
    compare_ray(ray_triangle_watertight(rd, ad, bd, cd), ex, amb[1], t_scale, kappa, i, 1, st);
    ++st.cases;
  }
  return st;
}

inline void report_and_check(const std::vector<std::pair<RayFamily, RayStats>>& rows,
                             const double band_ulps[2], const double t_ulps[2]) {
  std::printf("\nray/triangle vs exact (band: float %g ulps, double %g ulps)\n", band_ulps[0],
              band_ulps[1]);
  std::printf("%-12s %8s %7s %7s | %-23s | %-23s | %-21s\n", "family", "cases", "hits",
              "in band", "disagree in band f/d", "disagree outside f/d",
              "worst t err (ulps) f/d");
  std::printf("%-12s %8s %7s %7s | %-11s %-11s | %-11s %-11s | %-10s %-10s\n", "", "", "", "",
              "MT", "WT", "MT", "WT", "MT", "WT");
  for (const auto& [family, st] : rows) {
    std::printf("%-12s %8lld %7lld %7lld |", to_string(family), (long long)st.cases,
                (long long)st.exact_hits, (long long)st.in_band);
    for (int kern = 0; kern < 2; ++kern)
      std::printf(" %5lld/%-5lld", (long long)st.disagree_in_band[kern][0],
                  (long long)st.disagree_in_band[kern][1]);
    std::printf(" |");
    for (int kern = 0; kern < 2; ++kern)
      std::printf(" %5lld/%-5lld", (long long)st.disagree_outside[kern][0],
                  (long long)st.disagree_outside[kern][1]);
    std::printf(" |");
    for (int kern = 0; kern < 2; ++kern)
      std::printf(" %4.3g/%-4.3g", st.t_err[kern][0].value, st.t_err[kern][1].value);
    std::printf("\n");
  }
  std::printf("%-12s %8s %7s %7s | %-23s | %-23s |", "t err/kappa", "", "", "", "", "");
  for (int kern = 0; kern < 2; ++kern) {
    double w[2] = {0, 0};
    for (const auto& row : rows)
      for (int type = 0; type < 2; ++type) w[type] = std::max(w[type], row.second.t_err_k[kern][type].value);
    std::printf(" %4.3g/%-4.3g", w[0], w[1]);
  }
  std::printf("  (kappa = longest edge^2/|n|)\n");
  std::fflush(stdout);
  const char* kernel[2] = {"Möller–Trumbore", "watertight"};
  const char* type_name[2] = {"float", "double"};
  for (const auto& [family, st] : rows) {
    for (int kern = 0; kern < 2; ++kern) {
      for (int type = 0; type < 2; ++type) {
        EXPECT_EQ(st.disagree_outside[kern][type], 0)
            << to_string(family) << ", " << kernel[kern] << ", " << type_name[type]
            << ": hit/miss differs from the exact answer outside the band (first case "
            << st.first_bad << ")";
        EXPECT_EQ(st.front_mismatch[kern][type], 0)
            << to_string(family) << ", " << kernel[kern] << ", " << type_name[type];
        EXPECT_LE(st.t_err_k[kern][type].value, t_ulps[type])
            << to_string(family) << ", " << kernel[kern] << ", " << type_name[type]
            << ": worst t error / kappa at case " << st.t_err_k[kern][type].index;
      }
    }
  }
}

}  // namespace prox::test
