// tests/kernels/closest_point_oracle.hpp — case families and the exact-oracle
// driver for the three closest-point-on-triangle methods.
//
// For each case: the exact answer once (Ericson on mpq_class); every
// `cross_every`-th case also Eberly and projection on mpq_class, which must
// agree with it exactly (point, squared distance, feature, and barycentrics
// when the triangle is not degenerate). Then Ericson, Eberly and projection in
// float and double are compared with the exact answer.
#pragma once

#include <gtest/gtest.h>

#include <array>

#include "exact_oracle.hpp"
#include "support/scale.hpp"

namespace prox::test {

enum class CpFamily {
  random, v0, v1, v2, e01, e12, e20, face, on_boundary, collinear, coincident, sliver, tiny, far,
};

inline const char* to_string(CpFamily f) {
  static const char* names[] = {"random",   "region v0",  "region v1",  "region v2",
                                "region e01", "region e12", "region e20", "region face",
                                "on edge/vertex", "collinear", "coincident", "sliver",
                                "tiny 1e-6", "far 1e6"};
  return names[int(f)];
}

/// p in the Voronoi region of `feature` of a random triangle (drawn in double, rounded).
inline TriCase region_case(Rng& rng, Feature feature) {
  TriCase k;
  k.a = rng.vec(-1, 1);
  k.b = rng.vec(-1, 1);
  k.c = rng.vec(-1, 1);
  const V3d C[3] = {to_d(k.a), to_d(k.b), to_d(k.c)};
  const V3d n = cross(C[1] - C[0], C[2] - C[0]);
  const double nl = std::sqrt(squared_norm(n));
  const V3d nh = nl > 0 ? n / nl : V3d{0, 0, 1};
  V3d p;
  const auto unit = [](const V3d& v) {
    const double l = std::sqrt(squared_norm(v));
    return l > 0 ? v / l : v;
  };
  if (feature == Feature::face) {
    const double u = rng.uniform(0, 1), v = rng.uniform(0, 1);
    const double s = u + v > 1 ? 1 - u : u, t = u + v > 1 ? 1 - v : v;
    p = C[0] + (C[1] - C[0]) * s + (C[2] - C[0]) * t + nh * rng.uniform(-1, 1);
  } else if (feature == Feature::e01 || feature == Feature::e12 || feature == Feature::e20) {
    const int i = feature == Feature::e01 ? 0 : feature == Feature::e12 ? 1 : 2;
    const int j = (i + 1) % 3, o = (i + 2) % 3;
    const V3d q = lerp(C[i], C[j], rng.uniform(0, 1));
    V3d m = unit(cross(C[j] - C[i], nh));
    if (dot(m, C[o] - C[i]) > 0) m = -m;
    p = q + m * rng.uniform(0, 1) + nh * rng.uniform(-1, 1);
  } else {
    const int i = int(feature);  // v0, v1, v2 are 0, 1, 2
    const V3d u = C[(i + 1) % 3] - C[i], w = C[(i + 2) % 3] - C[i];
    V3d d = nh;
    for (int tries = 0; tries < 64; ++tries) {
      const V3d r = to_d(random_dir(rng));
      if (dot(r, u) < 0 && dot(r, w) < 0) {
        d = r;
        break;
      }
    }
    p = C[i] + d * rng.uniform(0, 1.5);
  }
  k.p = p.cast<float>();
  return k;
}

inline TriCase draw_case(Rng& rng, CpFamily family) {
  TriCase k;
  switch (family) {
    case CpFamily::random:
      k = {rng.vec(-1, 1), rng.vec(-1, 1), rng.vec(-1, 1), rng.vec(-1, 1)};
      break;
    case CpFamily::v0: return region_case(rng, Feature::v0);
    case CpFamily::v1: return region_case(rng, Feature::v1);
    case CpFamily::v2: return region_case(rng, Feature::v2);
    case CpFamily::e01: return region_case(rng, Feature::e01);
    case CpFamily::e12: return region_case(rng, Feature::e12);
    case CpFamily::e20: return region_case(rng, Feature::e20);
    case CpFamily::face: return region_case(rng, Feature::face);
    case CpFamily::on_boundary: {  // dyadic, so that the point is exactly on the feature
      k.a = rng.dyadic(1024);
      k.b = rng.dyadic(1024);
      k.c = rng.dyadic(1024);
      const V3f C[3] = {k.a, k.b, k.c};
      const int i = rng.integer(0, 2), j = (i + 1) % 3, kind = rng.integer(0, 2);
      const float s = float(rng.integer(1, 7)) / 8.0f;
      if (kind == 0) {
        k.p = C[i];
      } else if (kind == 1) {
        k.p = C[i] + (C[j] - C[i]) * s;
      } else {  // in the face, in-plane (s = 7/8: t = 1/8, on the opposite edge)
        const float t = float(rng.integer(1, std::max(1, 7 - int(s * 8)))) / 8.0f;
        k.p = C[i] + (C[j] - C[i]) * s + (C[(i + 2) % 3] - C[i]) * t;
      }
      break;
    }
    case CpFamily::collinear: {  // exactly collinear (dyadic), in every order
      const V3f o = rng.dyadic(1024);
      V3f d = rng.dyadic(256);
      if (d == V3f::zero()) d = V3f{1.0f / 1024, 0, 0};
      k.a = o + d * float(rng.integer(-4, 4));
      k.b = o + d * float(rng.integer(-4, 4));
      k.c = o + d * float(rng.integer(-4, 4));
      k.p = rng.vec(-2, 2);
      break;
    }
    case CpFamily::coincident: {
      const V3f x = rng.vec(-1, 1), y = rng.vec(-1, 1);
      const int kind = rng.integer(0, 3);
      k.a = x;
      k.b = kind == 0 || kind == 1 ? x : y;
      k.c = kind == 0 || kind == 3 ? x : y;  // kind 2: b == c
      if (kind == 2) k.b = y;
      k.p = rng.integer(0, 7) == 0 ? x : rng.vec(-1.5, 1.5);
      break;
    }
    case CpFamily::sliver: {  // c within 1e-8..1e-3 (relative) of line ab, or on it up to rounding
      const V3d a = to_d(rng.vec(-1, 1)), b = to_d(rng.vec(-1, 1));
      const double t = rng.uniform(-0.5, 1.5);
      const double eps = rng.integer(0, 3) == 0 ? 0.0 : std::pow(10.0, rng.uniform(-8, -3));
      const V3d c = lerp(a, b, t) + to_d(random_dir(rng)) * (eps * std::sqrt(squared_distance(a, b)));
      k.a = a.cast<float>();
      k.b = b.cast<float>();
      k.c = c.cast<float>();
      k.p = rng.integer(0, 1) ? rng.vec(-1, 1) : (lerp(a, b, rng.uniform(0, 1)) +
                                                   to_d(random_dir(rng)) * 1e-3).cast<float>();
      break;
    }
    case CpFamily::tiny: {
      const V3d o = to_d(rng.vec(-1e-6, 1e-6));
      const TriCase u = rng.integer(0, 1) ? region_case(rng, Feature(rng.integer(0, 6)))
                                          : TriCase{rng.vec(-1, 1), rng.vec(-1, 1),
                                                    rng.vec(-1, 1), rng.vec(-1, 1)};
      const auto m = [&](const V3f& v) { return (o + to_d(v) * 1e-6).cast<float>(); };
      k = {m(u.p), m(u.a), m(u.b), m(u.c)};
      break;
    }
    case CpFamily::far: {
      const V3d o = to_d(random_dir(rng)) * 1e6;
      const TriCase u = rng.integer(0, 1) ? region_case(rng, Feature(rng.integer(0, 6)))
                                          : TriCase{rng.vec(-1, 1), rng.vec(-1, 1),
                                                    rng.vec(-1, 1), rng.vec(-1, 1)};
      const auto m = [&](const V3f& v) { return (o + to_d(v)).cast<float>(); };
      k = {m(u.p), m(u.a), m(u.b), m(u.c)};
      break;
    }
  }
  return k;
}

/// Worst errors of one family: [method][type], method 0..2 = Ericson, Eberly,
/// projection; type 0 = float, 1 = double. Point error / s, |d2 - d2*| / s^2.
struct CpStats {
  std::int64_t cases = 0;
  std::int64_t cross_checked = 0;
  std::int64_t degenerate = 0;  ///< exactly degenerate triangles
  Worst point[3][2];
  Worst sqd[3][2];
  /// Point error in ulps of s kappa, kappa = longest edge^2 / |n| >= 1 (the
  /// triangle's condition, ~1/sin of its smallest angle).
  Worst scaled_point[3][2];
  Worst scaled_sqd[3][2];  ///< |d2 - d2*| in ulps of s^2 kappa
  std::int64_t feature_mismatch[3][2] = {};
};

/// Bounds, per method (Ericson, Eberly, projection) and type (float, double),
/// on CpStats::scaled_point and scaled_sqd.
struct CpBounds {
  double point[3][2];
  double sqd[3][2];
};

namespace detail_oracle {

template <class T>
void compare(const ClosestPointTriangleResult<T>& r, const ClosestPointTriangleResult<Q>& ex,
             double s, double kappa, std::int64_t i, int method, CpStats& st) {
  constexpr int type = std::is_same_v<T, float> ? 0 : 1;
  const double eps = type == 0 ? std::numeric_limits<float>::epsilon()
                                : std::numeric_limits<double>::epsilon();
  const double cond = kappa;
  const double e = point_err(r.point, ex.point) / s;
  const double e2 = abs_err(r.sq_distance, ex.sq_distance) / (s * s);
  st.point[method][type].add(e, i);
  st.sqd[method][type].add(e2, i);
  st.scaled_point[method][type].add(e / (cond * eps), i);
  st.scaled_sqd[method][type].add(e2 / (cond * eps), i);
  if (r.feature != ex.feature) ++st.feature_mismatch[method][type];
}

inline bool same(const ClosestPointTriangleResult<Q>& x, const ClosestPointTriangleResult<Q>& y,
                 bool compare_bary) {
  return x.point == y.point && x.sq_distance == y.sq_distance && x.feature == y.feature &&
         (!compare_bary || x.bary == y.bary);
}

}  // namespace detail_oracle

/// Runs `count` cases of `family`; returns the worst errors. Exact cross-check
/// failures are reported through gtest at once.
inline CpStats run_closest_point_family(CpFamily family, std::int64_t count, std::uint64_t seed,
                                        int cross_every) {
  using detail_oracle::compare;
  Rng rng(seed * 1000003ULL + std::uint64_t(family));
  CpStats st;
  int cross_failures = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const TriCase k = draw_case(rng, family);
    const double s = k.scale();
    const V3q p = to_q(k.p), a = to_q(k.a), b = to_q(k.b), c = to_q(k.c);
    const ClosestPointTriangleResult<Q> ex = closest_point_triangle(p, a, b, c);
    const bool degenerate = squared_norm(cross(b - a, c - a)) == 0;
    st.degenerate += degenerate;
    if (i % cross_every == 0) {
      ++st.cross_checked;
      const auto eb = closest_point_triangle_eberly(p, a, b, c);
      const auto pr = closest_point_triangle_projection(p, a, b, c);
      if ((!detail_oracle::same(ex, eb, !degenerate) || !detail_oracle::same(ex, pr, !degenerate)) &&
          cross_failures++ < 5) {
        ADD_FAILURE() << to_string(family) << " case " << i << ": exact methods disagree: "
                      << "Ericson " << prox::to_string(ex.feature) << ", Eberly "
                      << prox::to_string(eb.feature) << ", projection "
                      << prox::to_string(pr.feature);
      }
    }
    const V3d pd = to_d(k.p), ad = to_d(k.a), bd = to_d(k.b), cd = to_d(k.c);
    const double longest =
        std::max({squared_distance(ad, bd), squared_distance(bd, cd), squared_distance(cd, ad)});
    // Exactly degenerate triangles take the edge path, whose error does not
    // depend on the shape: kappa = 1 there, so that their check is not vacuous.
    const double kappa =
        degenerate ? 1.0
                   : std::max(1.0, longest / std::sqrt(squared_norm(cross(bd - ad, cd - ad))));
    compare(closest_point_triangle(k.p, k.a, k.b, k.c), ex, s, kappa, i, 0, st);
    compare(closest_point_triangle_eberly(k.p, k.a, k.b, k.c), ex, s, kappa, i, 1, st);
    compare(closest_point_triangle_projection(k.p, k.a, k.b, k.c), ex, s, kappa, i, 2, st);
    compare(closest_point_triangle(pd, ad, bd, cd), ex, s, kappa, i, 0, st);
    compare(closest_point_triangle_eberly(pd, ad, bd, cd), ex, s, kappa, i, 1, st);
    compare(closest_point_triangle_projection(pd, ad, bd, cd), ex, s, kappa, i, 2, st);
    ++st.cases;
  }
  return st;
}

/// Prints one table row per family and checks the bounds.
inline void report_and_check(const std::vector<std::pair<CpFamily, CpStats>>& rows,
                             const CpBounds& bounds) {
  std::printf("\nclosest point on triangle: worst |point - exact| / s  (s = max(longest edge, "
              "max |coordinate|))\n");
  std::printf("%-15s %8s | %-9s %-9s %-9s | %-9s %-9s %-9s | %s\n", "family", "cases",
              "f Ericson", "f Eberly", "f proj", "d Ericson", "d Eberly", "d proj",
              "feature != exact (f/d, Ericson)");
  for (const auto& [family, st] : rows) {
    std::printf("%-15s %8lld |", to_string(family), (long long)st.cases);
    for (int type = 0; type < 2; ++type) {
      for (int m = 0; m < 3; ++m) std::printf(" %s", fmt_err(st.point[m][type].value).c_str());
      std::printf(" |");
    }
    std::printf(" %lld / %lld\n", (long long)st.feature_mismatch[0][0],
                (long long)st.feature_mismatch[0][1]);
  }
  std::printf("%-15s %8s |", "worst d2 err/s2", "");
  for (int type = 0; type < 2; ++type) {
    for (int m = 0; m < 3; ++m) {
      double w = 0;
      for (const auto& row : rows) w = std::max(w, row.second.sqd[m][type].value);
      std::printf(" %s", fmt_err(w).c_str());
    }
    std::printf(" |");
  }
  std::printf("\n");
  std::fflush(stdout);
  std::printf("%-15s %8s |", "ulps of s*k", "");
  for (int type = 0; type < 2; ++type) {
    for (int m = 0; m < 3; ++m) {
      double w = 0;
      for (const auto& row : rows) w = std::max(w, row.second.scaled_point[m][type].value);
      std::printf(" %9.3g", w);
    }
    std::printf(" |");
  }
  std::printf("  (k = longest edge^2/|n|)\n");
  std::printf("%-15s %8s |", "d2: ulps s2*k", "");
  for (int type = 0; type < 2; ++type) {
    for (int m = 0; m < 3; ++m) {
      double w = 0;
      for (const auto& row : rows) w = std::max(w, row.second.scaled_sqd[m][type].value);
      std::printf(" %9.3g", w);
    }
    std::printf(" |");
  }
  std::printf("\n");
  std::fflush(stdout);
  const char* method[3] = {"Ericson", "Eberly", "projection"};
  const char* type_name[2] = {"float", "double"};
  for (const auto& [family, st] : rows) {
    for (int m = 0; m < 3; ++m) {
      for (int type = 0; type < 2; ++type) {
        EXPECT_LE(st.scaled_point[m][type].value, bounds.point[m][type])
            << to_string(family) << ", " << method[m] << ", " << type_name[type]
            << ": worst point error at case " << st.scaled_point[m][type].index;
        EXPECT_LE(st.scaled_sqd[m][type].value, bounds.sqd[m][type])
            << to_string(family) << ", " << method[m] << ", " << type_name[type]
            << ": worst squared-distance error at case " << st.scaled_sqd[m][type].index;
      }
    }
  }
}

}  // namespace prox::test
