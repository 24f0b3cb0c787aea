// Narrowing double -> float stays narrowed (prox::to_float, Vec::cast<float>,
// the BVH's outward float rounding), even with GCC's SLP vectorizer on: this
// file is compiled with -O3 -ftree-slp-vectorize (tests/kernels/CMakeLists.txt),
// the flags under which GCC 12.2 folds an inlined two-lane double -> float ->
// double round trip back to the unrounded double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "prox/bvh/build.hpp"
#include "prox/core/vec.hpp"
#include "support/scale.hpp"

namespace prox {
namespace {
using test::scaled_count;

// The compiler's own behaviour, for the record (not a prox property): a plain
// static_cast pair, in one function, as the vectorizer sees it.
[[gnu::noinline]] void plain_round_trip(const double* x, double* out) {
  float y[2];
  y[0] = static_cast<float>(x[0]);
  y[1] = static_cast<float>(x[1]);
  out[0] = y[0];
  out[1] = y[1];
}
[[gnu::noinline]] void prox_round_trip(const double* x, double* out) {
  float y[2];
  y[0] = to_float(x[0]);
  y[1] = to_float(x[1]);
  out[0] = y[0];
  out[1] = y[1];
}
[[gnu::noinline]] Vec3d vec_round_trip(const Vec3d& v) {
  return v.cast<float>().cast<double>();
}
[[gnu::noinline]] Box3<float> box_round(const Box3<double>& b) { return bvh::outward_float_box(b); }

/// The float nearest x, computed without the compiler seeing a round trip:
/// by bits (x finite, in float's normal range, positive or negative).
double nearest_float(double x) {
  volatile float f = static_cast<float>(x);
  return double(f);
}

TEST(Narrowing, CompilerRecord) {
  volatile double v0 = 0.1, v1 = 0.2;  // not constants the compiler could fold first
  const double x[2] = {v0, v1};
  double o[2];
  plain_round_trip(x, o);
  std::printf("this compiler %s a two-lane double -> float -> double round trip at -O3 + SLP\n",
              o[0] == nearest_float(x[0]) ? "keeps" : "FOLDS AWAY (prox::to_float guards it)");
}

TEST(Narrowing, ToFloatKeepsTheRounding) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  for (int i = 0; i < int(scaled_count(20000, 200)); ++i) {
    const double x[2] = {u(rng), u(rng)};
    double o[2];
    prox_round_trip(x, o);
    ASSERT_EQ(o[0], nearest_float(x[0])) << x[0];
    ASSERT_EQ(o[1], nearest_float(x[1])) << x[1];
  }
}

TEST(Narrowing, VecCastToFloatKeepsTheRounding) {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(-10, 10);
  for (int i = 0; i < int(scaled_count(20000, 200)); ++i) {
    const Vec3d v{u(rng), u(rng), u(rng)};
    const Vec3d r = vec_round_trip(v);
    for (int k = 0; k < 3; ++k) ASSERT_EQ(r[k], nearest_float(v[k])) << "component " << k;
  }
}

TEST(Narrowing, OutwardFloatBoxContainsTheDoubleBox) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-3, 3);
  int strict = 0;
  for (int i = 0; i < int(scaled_count(50000, 500)); ++i) {
    Box3<double> b;
    for (int k = 0; k < 3; ++k) {
      const double a = u(rng), c = u(rng);
      b.lo[k] = std::min(a, c);
      b.hi[k] = std::max(a, c);
    }
    const Box3<float> f = box_round(b);
    for (int k = 0; k < 3; ++k) {
      ASSERT_LE(double(f.lo[k]), b.lo[k]) << "box " << i << " axis " << k;
      ASSERT_GE(double(f.hi[k]), b.hi[k]) << "box " << i << " axis " << k;
      // The tightest such float: one float step inside would not contain it.
      ASSERT_GT(double(bvh::float_next_up(f.lo[k])), b.lo[k]);
      ASSERT_LT(double(bvh::float_next_down(f.hi[k])), b.hi[k]);
      strict += double(f.lo[k]) < b.lo[k];
    }
  }
  EXPECT_GT(strict, 0);  // the double corners were mostly not floats
}

}  // namespace
}  // namespace prox
