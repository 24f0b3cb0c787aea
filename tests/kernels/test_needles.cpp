// Needles: triangles far longer than they are wide, queried on and near
// their face, against the exact answer (the kernel on mpq_class). Ericson's
// region products (vc = d1 d4 - d3 d2 and the like) cancel there: before stop
// 40 a point on the face of the double triangle (0,0,0), (1e9,1,0),
// (1e9,-1,0) got vc = 0, the answer snapped to an edge 0.5 away (exact: 0),
// and a float needle 1 x 2e-4 gave 5e-5 for points on its face (found from
// outside). Now a product whose sign is within its rounding takes the
// face-or-edges path (region_product_unsure), and the error is tens of ulps
// of max(|p|, distance) at most, not a fraction of the needle's width.
#include <gmpxx.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <type_traits>

#include "prox/primitives/closest_point_triangle.hpp"

namespace prox {
namespace {

Vec3d normalize(const Vec3d& v) { return v * (1.0 / std::sqrt(squared_norm(v))); }

template <class T>
Vec3<mpq_class> exact(const Vec3<T>& v) {
  return {mpq_class(double(v[0])), mpq_class(double(v[1])), mpq_class(double(v[2]))};
}

// Measured worst (stop 40): 18.8 ulps in double (the plane's direction from
// the corners' cross product), 0.48 in float (the face path is in double);
// before the fix 4.6e7 and 1,265.
constexpr double kBound = 64;

template <class T>
void check_needles(double aspect_lo, double aspect_hi, int per_aspect) {
  std::mt19937_64 rng(40);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double eps = double(std::numeric_limits<T>::epsilon());
  double worst = 0;
  int count = 0;
  for (double aspect = aspect_lo; aspect <= aspect_hi; aspect *= 10) {
    for (int i = 0; i < per_aspect; ++i) {
      // Length 1 along a random direction (roughly), width 1 / aspect, apex at a.
      const double len = 1.0, w = len / aspect;
      const Vec3d dir = normalize(Vec3d{1.0, 0.3 * u(rng), 0.2 * u(rng)});
      const Vec3d side = normalize(cross(dir, Vec3d{0, 0, 1}));
      const Vec3d a{0.25 * u(rng), 0.25 * u(rng), 0.25 * u(rng)};
      const Vec3<T> ta = a.cast<T>();
      const Vec3<T> tb = (a + dir * len + side * w).cast<T>();
      const Vec3<T> tc = (a + dir * len - side * w).cast<T>();
      // On the face (rounded to T: within rounding of it), and a little off it
      // along the normal and sideways.
      const double s = 0.05 + 0.9 * u(rng), t = u(rng) - 0.5;
      const Vec3d on = a + dir * (s * len) + side * (t * s * w);
      const Vec3d n = normalize(cross(tb.template cast<double>() - a, tc.template cast<double>() - a));
      for (const double off : {0.0, 1e-3 * w, 3.0 * w}) {
        const Vec3<T> p = (on + n * off + side * (i % 2 ? off : 0.0)).cast<T>();
        const ClosestPointTriangleResult<T> r = closest_point_triangle(p, ta, tb, tc);
        const mpq_class want =
            closest_point_triangle(exact(p), exact(ta), exact(tb), exact(tc)).sq_distance;
        const double d = std::sqrt(double(r.sq_distance)), dx = std::sqrt(want.get_d());
        const double scale = std::max({std::fabs(double(p[0])), std::fabs(double(p[1])),
                                       std::fabs(double(p[2])), dx});
        const double err = std::fabs(d - dx) / (eps * scale);
        worst = std::max(worst, err);
        ++count;
        ASSERT_LE(err, kBound) << "aspect " << aspect << " case " << i << " offset " << off
                             << ": distance " << d << ", exact " << dx;
      }
    }
  }
  std::printf("needles (%s, aspect %.0e..%.0e): %d cases, worst %.2f ulps of max(|p|, d)\n",
              std::is_same_v<T, float> ? "float" : "double", aspect_lo, aspect_hi, count, worst);
}

TEST(Needles, DoubleOnAndNearTheFace) { check_needles<double>(1e3, 1e12, 200); }
TEST(Needles, FloatOnAndNearTheFace) { check_needles<float>(1e2, 1e5, 200); }

// The probe's case itself.
TEST(Needles, TheProbesTriangle) {
  const Vec3d a{0, 0, 0}, b{1e9, 1, 0}, c{1e9, -1, 0};
  const auto r = closest_point_triangle(Vec3d{5e8, 0, 0}, a, b, c);
  EXPECT_EQ(r.sq_distance, 0.0);
  EXPECT_EQ(r.feature, Feature::face);
  const auto f = closest_point_triangle(Vec3f{0.5f, 0.0f, 0.0f}, Vec3f{0, 0, 0},
                                        Vec3f{1.0f, 1e-4f, 0}, Vec3f{1.0f, -1e-4f, 0});
  EXPECT_EQ(f.sq_distance, 0.0f);
}

}  // namespace
}  // namespace prox
