// src/mesh/sample_surface.cpp — surface samples and their statistics (prox/mesh/sample_surface.hpp).
#include "prox/mesh/sample_surface.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "prox/mesh/batch.hpp"
#include "prox/primitives/closest_point_triangle.hpp"

namespace prox {
namespace {

/// splitmix64 (Steele, Lea, Flood 2014): a tiny, well-mixed generator.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
};

/// Poisson-disk samples by dart throwing: candidates (uniform by area, from
/// `candidate(i, ...)`, i = 0, 1, ...) are taken in order, each kept when no
/// kept sample lies within r (Euclidean, in double), until n are kept. r
/// starts at sqrt(0.45 area / n) (random sequential adsorption of disks of
/// diameter r jams near 0.7 area / r^2 samples on a flat surface, so n is
/// reached well before jamming); when 20 n + 1000 candidates do not give n,
/// r shrinks by 10% and the throw starts again, the same candidates in the
/// same order. Serial, so the same for any thread count. A hash grid of
/// cells of side r finds the neighbours.
template <class T, class Candidate>
void poisson_disk(SurfaceSamples<T>& s, std::size_t n, double area, std::uint64_t seed,
                  Candidate&& candidate) {
  (void)seed;
  double r = std::sqrt(0.45 * area / static_cast<double>(n));
  const std::size_t budget = 20 * n + 1000;
  for (int attempt = 0;; ++attempt) {
    s.points.clear();
    s.triangles.clear();
    s.bary.clear();
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> grid;
    grid.reserve(2 * n);
    const double inv = 1 / r, r2 = r * r;
    auto cell = [&](double x) { return static_cast<std::int64_t>(std::floor(x * inv)); };
    auto key = [](std::int64_t x, std::int64_t y, std::int64_t z) {
      return (static_cast<std::uint64_t>(x) * 0x9e3779b97f4a7c15ULL) ^
             (static_cast<std::uint64_t>(y) * 0xc2b2ae3d27d4eb4fULL) ^
             (static_cast<std::uint64_t>(z) * 0x165667b19e3779f9ULL);
    };
    for (std::size_t i = 0; i < budget && s.points.size() < n; ++i) {
      Vec3<T> p, w;
      std::uint32_t tri = 0;
      candidate(i, p, tri, w);
      const double px = double(p[0]), py = double(p[1]), pz = double(p[2]);
      const std::int64_t cx = cell(px), cy = cell(py), cz = cell(pz);
      bool room = true;
      for (std::int64_t dx = -1; dx <= 1 && room; ++dx)
        for (std::int64_t dy = -1; dy <= 1 && room; ++dy)
          for (std::int64_t dz = -1; dz <= 1 && room; ++dz) {
            const auto it = grid.find(key(cx + dx, cy + dy, cz + dz));
            if (it == grid.end()) continue;
            for (std::uint32_t j : it->second) {
              const Vec3<T>& q = s.points[j];
              const double ex = double(q[0]) - px, ey = double(q[1]) - py, ez = double(q[2]) - pz;
              if (ex * ex + ey * ey + ez * ez < r2) {
                room = false;
                break;
              }
            }
          }
      if (!room) continue;
      grid[key(cx, cy, cz)].push_back(static_cast<std::uint32_t>(s.points.size()));
      s.points.push_back(p);
      s.triangles.push_back(tri);
      s.bary.push_back(w);
    }
    if (s.points.size() == n || attempt >= 60) break;
    r *= 0.9;
  }
  s.min_distance = r;
}

}  // namespace

template <class T>
SurfaceSamples<T> sample_surface(const TriangleMesh<T>& mesh, std::size_t n, std::uint64_t seed,
                                 SampleMethod method, int threads) {
  const std::size_t nt = mesh.num_triangles();
  std::vector<double> cdf(nt + 1, 0.0);  // cumulative area, in double
  for (std::size_t t = 0; t < nt; ++t) {
    const Vec3<T> a = mesh.corner(t, 0), b = mesh.corner(t, 1), c = mesh.corner(t, 2);
    const Vec3<double> e1{double(b[0]) - double(a[0]), double(b[1]) - double(a[1]),
                          double(b[2]) - double(a[2])};
    const Vec3<double> e2{double(c[0]) - double(a[0]), double(c[1]) - double(a[1]),
                          double(c[2]) - double(a[2])};
    cdf[t + 1] = cdf[t] + 0.5 * std::sqrt(squared_norm(cross(e1, e2)));
  }
  const double total = cdf[nt];
  if (!(total > 0) || !std::isfinite(total))
    throw std::invalid_argument("sample_surface: the mesh has no surface area (" +
                                std::to_string(nt) + " triangles) to sample");
  SurfaceSamples<T> s;
  // Sample i from its own generator; u (when >= 0) replaces its random triangle pick.
  auto make = [&](std::uint64_t stream, std::size_t i, double u, Vec3<T>& p, std::uint32_t& tri,
                  Vec3<T>& w) {
    SplitMix64 rng{stream * 0xd1342543de82ef95ULL + i * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL};
    rng.next();
    const double r = rng.uniform();
    if (!(u >= 0)) u = r;
    const double target = std::min(u * total, std::nextafter(total, 0.0));
    // First triangle whose cumulative area passes the target (never a zero-area one).
    std::size_t t = static_cast<std::size_t>(std::upper_bound(cdf.begin() + 1, cdf.end(), target) -
                                             (cdf.begin() + 1));
    t = std::min(t, nt - 1);
    const double r1 = std::sqrt(rng.uniform()), r2 = rng.uniform();
    const double w0 = 1 - r1, w1 = r1 * (1 - r2), w2 = r1 * r2;
    const Vec3<T> a = mesh.corner(t, 0), b = mesh.corner(t, 1), c = mesh.corner(t, 2);
    for (int k = 0; k < 3; ++k)
      p[k] = static_cast<T>(w0 * double(a[k]) + w1 * double(b[k]) + w2 * double(c[k]));
    tri = static_cast<std::uint32_t>(t);
    w = Vec3<T>{static_cast<T>(w0), static_cast<T>(w1), static_cast<T>(w2)};
  };
  if (method == SampleMethod::poisson) {
    poisson_disk(s, n, total, seed, [&](std::size_t i, Vec3<T>& p, std::uint32_t& tri, Vec3<T>& w) {
      make(seed ^ 0x2545f4914f6cdd1dULL, i, -1.0, p, tri, w);
    });
    return s;
  }
  s.points.resize(n);
  s.triangles.resize(n);
  s.bary.resize(n);
  BatchOptions batch;
  batch.threads = threads;
  batch.grain = 4096;
  // Stratified: one offset for all (systematic sampling), so each triangle's
  // count is n * area / total rounded up or down.
  const double offset = SplitMix64{seed ^ 0x5851f42d4c957f2dULL}.uniform();
  batch_for_each(n, batch, [&](std::size_t i) {
    const double u = method == SampleMethod::stratified
                         ? (static_cast<double>(i) + offset) / static_cast<double>(n)
                         : -1.0;
    make(seed, i, u, s.points[i], s.triangles[i], s.bary[i]);
  });
  return s;
}

template <class T>
std::vector<double> sample_distances(std::span<const Vec3<T>> points, const MeshIndex<T>& index,
                                     int threads) {
  std::vector<double> d(points.size());
  BatchOptions batch;
  batch.threads = threads;
  batch_for_each(points.size(), batch, [&](std::size_t i) {
    d[i] = std::sqrt(static_cast<double>(index.closest_point(points[i]).sq_distance));
  });
  return d;
}

std::vector<double> sample_distances(std::span<const Vec3<double>> points,
                                     const MeshIndex<float>& pick, const TriangleMesh<double>& mesh,
                                     int threads) {
  if (pick.mesh().num_triangles() != mesh.num_triangles())
    throw std::invalid_argument("sample_distances: the float index has " +
                                std::to_string(pick.mesh().num_triangles()) +
                                " triangles but the double mesh " +
                                std::to_string(mesh.num_triangles()) +
                                " (index a float copy of the same mesh: float_mesh)");
  std::vector<double> d(points.size());
  BatchOptions batch;
  batch.threads = threads;
  const auto& tris = mesh.triangles();
  const auto& verts = mesh.vertices();
  batch_for_each(points.size(), batch, [&](std::size_t i) {
    const Vec3<double>& p = points[i];
    const Vec3<float> pf{static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2])};
    const MeshClosestPoint<float> r = pick.closest_point(pf);
    if (!r.found()) {  // a non-finite point (or one float cannot hold): ask in double
      d[i] = std::numeric_limits<double>::quiet_NaN();
      return;
    }
    const auto& t = tris[std::size_t(r.triangle)];
    d[i] = std::sqrt(closest_point_triangle(p, verts[t[0]], verts[t[1]], verts[t[2]]).sq_distance);
  });
  return d;
}

TriangleMesh<float> float_mesh(const TriangleMesh<double>& mesh) {
  std::vector<Vec3<float>> v(mesh.num_vertices());
  for (std::size_t i = 0; i < v.size(); ++i)
    for (int k = 0; k < 3; ++k) v[i][k] = static_cast<float>(mesh.vertices()[i][k]);
  return TriangleMesh<float>(std::move(v), mesh.triangles());
}

double float_pick_error(const TriangleMesh<double>& mesh, double reach) {
  const Box3<double> box = mesh.bounds();
  double s = 0;
  for (int j = 0; j < 3; ++j)
    s = std::max({s, std::fabs(box.lo[j] - reach), std::fabs(box.hi[j] + reach),
                  std::fabs(box.lo[j]), std::fabs(box.hi[j])});
  double kappa = 1;
  for (std::size_t t = 0; t < mesh.num_triangles(); ++t) {
    const Vec3<double> c0 = mesh.corner(t, 0), c1 = mesh.corner(t, 1), c2 = mesh.corner(t, 2);
    const double n = std::sqrt(squared_norm(cross(c1 - c0, c2 - c0)));
    const double e = std::max({squared_distance(c0, c1), squared_distance(c1, c2),
                               squared_distance(c2, c0)});
    if (n > 0) kappa = std::max(kappa, 2 * e / n);  // |n| taken as the area: 2x safe
  }
  const double u = 0x1p-24;  // float's unit roundoff; an ulp is at most 2u
  // Rounding of the point and vertices (both sides), the kernel's point error
  // on both triangles, and the comparison of the two rounded distances.
  return 2 * (2 * std::sqrt(3.0) * u * s + 8 * (2 * u) * s * kappa) + 4 * (2 * u) * s;
}

DistanceStats distance_stats(std::span<const double> distances, int bins) {
  if (bins < 1) throw std::invalid_argument("distance_stats: bins must be >= 1, not " +
                                            std::to_string(bins));
  DistanceStats st;
  st.count = distances.size();
  st.histogram.assign(static_cast<std::size_t>(bins), 0);
  if (distances.empty()) return st;
  double sum = 0, sum_sq = 0;
  for (std::size_t i = 0; i < distances.size(); ++i) {
    const double d = distances[i];
    if (!(d >= 0) || !std::isfinite(d))
      throw std::invalid_argument("distance_stats: distance " + std::to_string(i) + " is " +
                                  std::to_string(d) + " (not a finite distance)");
    sum += d;
    sum_sq += d * d;
    if (d > st.max) {
      st.max = d;
      st.argmax = i;
    }
  }
  const double n = static_cast<double>(distances.size());
  st.mean = sum / n;
  st.rms = std::sqrt(sum_sq / n);
  st.bin_width = st.max / bins;
  for (double d : distances) {
    std::size_t b = st.max > 0 ? static_cast<std::size_t>(d / st.max * bins) : 0;
    st.histogram[std::min(b, st.histogram.size() - 1)] += 1;
  }
  return st;
}

ChamferDistance chamfer(std::span<const double> a_to_b, std::span<const double> b_to_a) {
  if (a_to_b.empty() || b_to_a.empty())
    throw std::invalid_argument("chamfer: both sides need samples (got " +
                                std::to_string(a_to_b.size()) + " and " +
                                std::to_string(b_to_a.size()) + ")");
  auto means = [](std::span<const double> d, double& mean, double& mean_sq) {
    double s = 0, s2 = 0;
    for (double x : d) {
      s += x;
      s2 += x * x;
    }
    mean = s / static_cast<double>(d.size());
    mean_sq = s2 / static_cast<double>(d.size());
  };
  ChamferDistance c;
  double fm = 0, bm = 0;
  means(a_to_b, fm, c.forward_mean_sq);
  means(b_to_a, bm, c.backward_mean_sq);
  c.chamfer_l1 = fm + bm;
  c.chamfer_l2 = c.forward_mean_sq + c.backward_mean_sq;
  return c;
}

template SurfaceSamples<float> sample_surface(const TriangleMesh<float>&, std::size_t,
                                              std::uint64_t, SampleMethod, int);
template SurfaceSamples<double> sample_surface(const TriangleMesh<double>&, std::size_t,
                                               std::uint64_t, SampleMethod, int);
template std::vector<double> sample_distances(std::span<const Vec3<float>>,
                                              const MeshIndex<float>&, int);
template std::vector<double> sample_distances(std::span<const Vec3<double>>,
                                              const MeshIndex<double>&, int);

}  // namespace prox
