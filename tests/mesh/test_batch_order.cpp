// The spatial (Morton) order of point batches (BatchOptions::spatial_order):
// the order is a deterministic permutation that keeps neighbours together and
// puts non-finite points last; the Morton code and the block sort are right;
// and every point batch form writes the same bytes with the order on or off,
// at any thread count, equal to the brute-force twin slot by slot; and a
// closest-point query started from any hint triangle (MeshIndex::
// closest_point_from, what the ordered batch passes) gives the same answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

#include "mesh_support.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;

std::vector<Vec3d> random_points(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-3, 5);
  std::vector<Vec3d> p(n);
  for (Vec3d& q : p) q = Vec3d{u(rng), u(rng), u(rng)};
  return p;
}

std::vector<std::size_t> order_of(const std::vector<Vec3d>& p, const BatchOptions& o = {}) {
  return detail::spatial_order(p.size(), o, [&](std::size_t i) { return p[i]; });
}

double mean_step(const std::vector<Vec3d>& p, const std::vector<std::size_t>& order) {
  double sum = 0;
  for (std::size_t k = 1; k < order.size(); ++k)
    sum += std::sqrt(squared_norm(p[order[k]] - p[order[k - 1]]));
  return sum / double(order.size() - 1);
}

TEST(SpatialOrder, IsADeterministicPermutationThatKeepsNeighboursTogether) {
  const std::vector<Vec3d> p = random_points(20000, 3);
  const std::vector<std::size_t> order = order_of(p);
  ASSERT_EQ(order.size(), p.size());
  std::vector<std::size_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], i);
  EXPECT_EQ(order_of(p), order);
  std::vector<std::size_t> given(p.size());
  std::iota(given.begin(), given.end(), std::size_t(0));
  // Random points in a box 8 wide: ~4.1 apart in the given order; along the
  // Z-curve about 0.39 (0.07x; a cell is 8/1024 wide here).
  const double step = mean_step(p, order), before = mean_step(p, given);
  EXPECT_LT(step, 0.15 * before) << step << " vs " << before;
  // The Morton codes along the order never decrease.
  double lo[3] = {-3, -3, -3}, scale[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = p[0][a];
    double hi = p[0][a];
    for (const Vec3d& q : p) lo[a] = std::min(lo[a], q[a]), hi = std::max(hi, q[a]);
    scale[a] = 1024.0 / (hi - lo[a]);
  }
  for (std::size_t k = 1; k < order.size(); ++k) {
    const Vec3d& a = p[order[k - 1]];
    const Vec3d& b = p[order[k]];
    ASSERT_LE(detail::morton_code(a[0], a[1], a[2], lo, scale),
              detail::morton_code(b[0], b[1], b[2], lo, scale));
  }
}

TEST(SpatialOrder, NonFinitePointsGoLastInInputOrder) {
  std::vector<Vec3d> p = random_points(4000, 5);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::size_t> bad = {7, 100, 2500, 3999};
  p[7] = Vec3d{nan, 0, 0};
  p[100] = Vec3d{0, inf, 0};
  p[2500] = Vec3d{0, 0, -inf};
  p[3999] = Vec3d{nan, nan, nan};
  const std::vector<std::size_t> order = order_of(p);
  ASSERT_EQ(order.size(), p.size());
  const std::vector<std::size_t> tail(order.end() - 4, order.end());
  EXPECT_EQ(tail, bad);
  // The non-finite points do not stretch the box: the finite ones still sort tightly.
  const std::vector<std::size_t> head(order.begin(), order.end() - 4);
  std::vector<std::size_t> given;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (std::find(bad.begin(), bad.end(), i) == bad.end()) given.push_back(i);
  EXPECT_LT(mean_step(p, head), 0.25 * mean_step(p, given));
}

TEST(SpatialOrder, EmptyMeansGivenOrder) {
  EXPECT_TRUE(order_of(random_points(detail::kSpatialOrderMin - 1, 1)).empty());
  EXPECT_FALSE(order_of(random_points(detail::kSpatialOrderMin, 1)).empty());
  BatchOptions off;
  off.spatial_order = false;
  EXPECT_TRUE(order_of(random_points(5000, 1), off).empty());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(order_of(std::vector<Vec3d>(5000, Vec3d{nan, 1, 2})).empty());
  // All points in one spot (an empty box): a valid order all the same.
  const std::vector<std::size_t> same = order_of(std::vector<Vec3d>(3000, Vec3d{1, 2, 3}));
  ASSERT_EQ(same.size(), 3000u);
  for (std::size_t i = 0; i < same.size(); ++i) EXPECT_EQ(same[i], i);
  // Coordinates so far apart that the box's extent overflows to infinity.
  std::vector<Vec3d> huge = random_points(3000, 2);
  huge[0] = Vec3d{-1.7e308, -1.7e308, -1.7e308};
  huge[1] = Vec3d{1.7e308, 1.7e308, 1.7e308};
  std::vector<std::size_t> h = order_of(huge);
  std::sort(h.begin(), h.end());
  ASSERT_EQ(h.size(), huge.size());
  for (std::size_t i = 0; i < h.size(); ++i) ASSERT_EQ(h[i], i);
}

TEST(SpatialOrder, SortsInBlocks) {
  const std::size_t n = detail::kSpatialOrderBlock + 3000;
  const std::vector<Vec3d> p = random_points(n, 9);
  BatchOptions two;
  two.threads = 2;
  const std::vector<std::size_t> order = order_of(p, two);
  ASSERT_EQ(order.size(), n);
  for (std::size_t k = 0; k < n; ++k)
    ASSERT_EQ(order[k] < detail::kSpatialOrderBlock, k < detail::kSpatialOrderBlock) << k;
  BatchOptions one;
  one.threads = 1;
  EXPECT_EQ(order_of(p, one), order);
}

TEST(MortonCode, InterleavesClampsAndPutsNonFiniteLast) {
  const double lo[3] = {0, 0, 0}, scale[3] = {1, 1, 1};  // cell = unit cube
  EXPECT_EQ(detail::morton_code(0, 0, 0, lo, scale), 0u);
  EXPECT_EQ(detail::morton_code(1, 0, 0, lo, scale), 1u);
  EXPECT_EQ(detail::morton_code(0, 1, 0, lo, scale), 2u);
  EXPECT_EQ(detail::morton_code(0, 0, 1, lo, scale), 4u);
  EXPECT_EQ(detail::morton_code(3, 0, 0, lo, scale), 9u);  // 0b11 -> bits 0 and 3
  EXPECT_EQ(detail::morton_code(1023.5, 1023.5, 1023.5, lo, scale), (1u << 30) - 1);
  EXPECT_EQ(detail::morton_code(5000, 5000, 5000, lo, scale), (1u << 30) - 1);  // clamped
  EXPECT_EQ(detail::morton_code(-7, -7, -7, lo, scale), 0u);                    // clamped
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(detail::morton_code(nan, 0, 0, lo, scale), detail::kSpatialOrderLast);
  EXPECT_EQ(detail::morton_code(0, inf, 0, lo, scale), detail::kSpatialOrderLast);
  EXPECT_GT(detail::kSpatialOrderLast, (1u << 30) - 1);
  // Monotone along each axis with the other two fixed.
  for (int axis = 0; axis < 3; ++axis) {
    std::uint32_t prev = 0;
    for (int c = 0; c < 1024; ++c) {
      double q[3] = {17.5, 600.5, 3.5};
      q[axis] = c + 0.5;
      const std::uint32_t code = detail::morton_code(q[0], q[1], q[2], lo, scale);
      if (c > 0) {
        ASSERT_GT(code, prev) << axis << " " << c;
      }
      prev = code;
    }
  }
  // A zero scale (an infinite extent) puts everything in cell 0, NaN included.
  const double zero[3] = {0, 0, 0};
  EXPECT_EQ(detail::morton_code(1e308, -1e308, 5, lo, zero), 0u);
}

TEST(SortBlock, IsAStableSortByKey) {
  std::mt19937_64 rng(11);
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(50000)}) {
    std::vector<std::uint32_t> keys(n);
    // Few distinct keys (many ties) spread over all 31 bits.
    for (auto& k : keys) k = std::uint32_t(rng() % 64) * 0x1234567u % (1u << 31);
    std::vector<std::size_t> order(n);
    detail::sort_block(keys, 1000, order);
    std::vector<std::size_t> want(n);
    std::iota(want.begin(), want.end(), std::size_t(0));
    std::stable_sort(want.begin(), want.end(),
                     [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    for (std::size_t& w : want) w += 1000;
    EXPECT_EQ(order, want) << n;
  }
}

// ---- every point batch form: the same bytes with the order on and off ----

template <class V>
std::vector<V> zeroed(std::size_t n) {
  std::vector<V> v(n);
  if (n) std::memset(static_cast<void*>(v.data()), 0, n * sizeof(V));
  return v;
}

template <class V>
bool same_bytes(const std::vector<V>& a, const std::vector<V>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0);
}

template <class V>
bool same_value(const V& a, const V& b) {
  return std::memcmp(&a, &b, sizeof(V)) == 0;
}

/// Field by field: SignedClosestPoint<float> has hidden padding before its double.
template <class T>
bool same_bytes(const std::vector<SignedClosestPoint<T>>& a,
                const std::vector<SignedClosestPoint<T>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!(same_value(a[i].closest, b[i].closest) &&
          same_value(a[i].signed_distance, b[i].signed_distance) &&
          same_value(a[i].winding_number, b[i].winding_number) &&
          same_value(a[i].winding_error, b[i].winding_error) &&
          a[i].inside_votes == b[i].inside_votes && a[i].votes == b[i].votes &&
          a[i].method == b[i].method && a[i].confidence == b[i].confidence))
      return false;
  }
  return true;
}

template <class T>
void forms_agree(const TriangleMesh<T>& mesh, const std::string& what) {
  const MeshIndex<T> index(mesh);
  const BruteForce<T> brute(mesh);
  const std::size_t n = std::size_t(test::scaled_count(6000, 2000));
  std::vector<Vec3<T>> points = test::query_points(mesh, n, 21);
  points[5] = Vec3<T>{std::numeric_limits<T>::quiet_NaN(), T(0), T(0)};
  points[n - 2] = Vec3<T>{T(0), std::numeric_limits<T>::infinity(), T(0)};
  const std::span<const Vec3<T>> pts(points);
  const T radius = T(0.02) * test::diagonal_length(mesh);
  const std::vector<T> radii(n, radius);
  std::vector<T> one_radius = {radius};
  const SignedMesh<MeshIndex<T>> sm(index, {SignMethod::winding});

  struct Outputs {
    std::vector<MeshClosestPoint<T>> cp;
    std::vector<MeshSignedDistance<T>> sd;
    std::vector<SignedClosestPoint<T>> sq;
    std::vector<Containment> in;
    std::vector<T> wn;
    std::vector<std::uint8_t> ov;
    BatchLists<std::uint32_t> st;
  };
  auto run = [&](bool ordered, int threads) {
    BatchOptions o;
    o.threads = threads;
    o.grain = 61;
    o.spatial_order = ordered;
    Outputs r;
    r.cp = zeroed<MeshClosestPoint<T>>(n);
    r.sd = zeroed<MeshSignedDistance<T>>(n);
    r.sq = zeroed<SignedClosestPoint<T>>(n);
    r.in = zeroed<Containment>(n);
    r.wn = zeroed<T>(n);
    r.ov = zeroed<std::uint8_t>(n);
    closest_points(index, pts, std::span(r.cp), ScalarTraits<T>::infinity(), o);
    signed_distances(index, pts, std::span(r.sd), o);
    signed_queries(sm, pts, std::span(r.sq), o);
    contains(sm, pts, std::span(r.in), o);
    winding_numbers(index, pts, std::span(r.wn), o);
    sphere_overlaps(index, pts, std::span<const T>(radii), std::span(r.ov), o);
    r.st = sphere_triangles(index, pts, std::span<const T>(one_radius), o);
    return r;
  };
  const Outputs given = run(false, 1);
  for (int threads : {1, 2}) {
    const Outputs o = run(true, threads);
    const std::string at = what + ", " + std::to_string(threads) + " thread(s)";
    EXPECT_TRUE(same_bytes(o.cp, given.cp)) << at;
    EXPECT_TRUE(same_bytes(o.sd, given.sd)) << at;
    EXPECT_TRUE(same_bytes(o.sq, given.sq)) << at;
    EXPECT_TRUE(same_bytes(o.in, given.in)) << at;
    EXPECT_TRUE(same_bytes(o.wn, given.wn)) << at;
    EXPECT_TRUE(same_bytes(o.ov, given.ov)) << at;
    EXPECT_EQ(o.st.offsets, given.st.offsets) << at;
    EXPECT_EQ(o.st.items, given.st.items) << at;
  }
  // The ordered batch against the brute-force twin, slot by slot.
  const Outputs o = run(true, 2);
  std::vector<MeshClosestPoint<T>> want = zeroed<MeshClosestPoint<T>>(n);
  BatchOptions off;
  off.spatial_order = false;
  closest_points(brute, pts, std::span(want), ScalarTraits<T>::infinity(), off);
  EXPECT_TRUE(same_bytes(o.cp, want)) << what;
  // The signed batch (each search started from its predecessor's triangle)
  // against single queries from no hint.
  std::vector<SignedClosestPoint<T>> single = zeroed<SignedClosestPoint<T>>(n);
  for (std::size_t i = 0; i < n; ++i) single[i] = sm.query(pts[i]);
  EXPECT_TRUE(same_bytes(o.sq, single)) << what;
  EXPECT_FALSE(o.cp[5].found());
  EXPECT_FALSE(o.cp[n - 2].found());
  std::size_t inside = 0, touching = 0;
  for (std::size_t i = 0; i < n; ++i) {
    inside += o.in[i] == Containment::inside;
    touching += o.ov[i];
  }
  EXPECT_GT(inside, 0u) << what;  // the forms did real work, not all misses
  EXPECT_GT(touching, n / 4) << what;
  EXPECT_GT(o.st.items.size(), n / 4) << what;
}

TEST(BatchOrder, EveryPointFormIsUnchangedElephantDouble) {
  forms_agree(test::cgal_mesh("elephant.off"), "elephant double");
}

TEST(BatchOrder, EveryPointFormIsUnchangedTorusFloat) {
  forms_agree(test::to_float(test::torus(1.0, 0.3, 48, 24)), "torus float");
}

TEST(BatchOrder, LooseFormsTakeAnOrder) {
  std::vector<int> out(5000, -1), visits;
  std::vector<std::size_t> order(out.size());
  std::iota(order.rbegin(), order.rend(), std::size_t(0));  // reversed
  BatchOptions one;
  one.threads = 1;
  batch_for_each_in(out.size(), order, one, [&](std::size_t i) {
    out[i] = int(i);
    visits.push_back(int(i));
  });
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], int(i));
  ASSERT_EQ(visits.size(), out.size());
  EXPECT_EQ(visits.front(), 4999);
  EXPECT_EQ(visits.back(), 0);
  EXPECT_THROW(batch_for_each_in(out.size(), std::span<const std::size_t>(order).subspan(1), one,
                                 [](std::size_t) {}),
               std::invalid_argument);
}

// ---- closest_point_from: any hint, the same answer ----

template <class T>
void hints_agree(const TriangleMesh<T>& mesh, const std::string& what) {
  const MeshIndex<T> index(mesh);
  const std::size_t n = std::size_t(test::scaled_count(1500, 400));
  std::vector<Vec3<T>> points = test::query_points(mesh, n, 33);
  points[3] = Vec3<T>{std::numeric_limits<T>::quiet_NaN(), T(0), T(0)};
  const T diag = T(test::diagonal_length(mesh));
  for (std::size_t i = 10; i < 20; ++i) points[i] = points[i] * T(40);  // far points
  const auto tris = std::int32_t(mesh.num_triangles());
  std::mt19937 rng(5);
  std::size_t found = 0, misses = 0;
  for (const T max_distance : {ScalarTraits<T>::infinity(), T(0.01) * diag}) {
    for (std::size_t i = 0; i < n; ++i) {
      const MeshClosestPoint<T> want = index.closest_point(points[i], max_distance);
      found += want.found();
      misses += !want.found();
      const std::int32_t hints[] = {-1, 0, tris - 1, tris, std::numeric_limits<std::int32_t>::max(),
                                    std::int32_t(rng() % std::uint32_t(tris)),
                                    want.found() ? want.triangle : 1};
      for (const std::int32_t h : hints) {
        const MeshClosestPoint<T> got = index.closest_point_from(points[i], h, max_distance);
        ASSERT_TRUE(same_value(got, want)) << what << ", point " << i << ", hint " << h;
      }
    }
  }
  EXPECT_GT(found, n);  // every finite point within the unbounded search, some within 1%
  EXPECT_GT(misses, n / 10);
}

TEST(ClosestPointFrom, AnyHintGivesTheSameAnswerElephantDouble) {
  hints_agree(test::cgal_mesh("elephant.off"), "elephant double");
}

TEST(ClosestPointFrom, AnyHintGivesTheSameAnswerTorusFloat) {
  hints_agree(test::to_float(test::torus(1.0, 0.3, 48, 24)), "torus float");
}

TEST(ClosestPointFrom, TiedTrianglesKeepTheLowestId) {
  // Two copies of one triangle (ids 0 and 1) and a far one: whichever copy is
  // the hint, the answer is id 0, as without a hint.
  const TriangleMesh<double> mesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {5, 5, 5}, {6, 5, 5}, {5, 6, 5}},
                                  {{0, 1, 2}, {0, 1, 2}, {3, 4, 5}});
  const MeshIndex<double> index(mesh);
  for (const std::int32_t h : {-1, 0, 1, 2}) {
    const MeshClosestPoint<double> cp = index.closest_point_from(Vec3d{0.2, 0.2, 1}, h);
    EXPECT_EQ(cp.triangle, 0) << "hint " << h;
    EXPECT_EQ(cp.sq_distance, 1.0);
  }
}

TEST(BatchChainPoints, PassesThePreviousAnswerInSpatialOrderOnly) {
  const std::vector<Vec3d> p = random_points(5000, 8);
  for (const bool ordered : {true, false}) {
    BatchOptions o;
    o.threads = 1;
    o.spatial_order = ordered;
    std::vector<int> visits(p.size(), 0);
    std::vector<std::int32_t> got_hint(p.size(), -7);
    std::size_t last = 0;
    bool first = true;
    batch_chain_points(
        p.size(), o, [&](std::size_t i) { return p[i]; },
        [&](std::size_t i, std::int32_t hint) {
          ++visits[i];
          got_hint[i] = hint;
          if (ordered && !first) {  // one chunk at 1 thread
            EXPECT_EQ(hint, std::int32_t(last));
          }
          first = false;
          last = i;
          return std::int32_t(i);
        });
    for (std::size_t i = 0; i < p.size(); ++i) ASSERT_EQ(visits[i], 1) << i;
    if (ordered) {
      EXPECT_EQ(std::count(got_hint.begin(), got_hint.end(), -1), 1);
    } else {
      EXPECT_EQ(std::count(got_hint.begin(), got_hint.end(), -1), std::ptrdiff_t(p.size()));
    }
  }
}

}  // namespace
