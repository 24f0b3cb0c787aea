// src/mesh/sample_surface.cpp — surface samples and their statistics (prox/mesh/sample_surface.hpp).
#include "prox/mesh/sample_surface.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "prox/mesh/batch.hpp"

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
    SplitMix64 rng{seed * 0xd1342543de82ef95ULL + i * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL};
    rng.next();
    double u = rng.uniform();
    if (method == SampleMethod::stratified) u = (static_cast<double>(i) + offset) / static_cast<double>(n);
    const double target = std::min(u * total, std::nextafter(total, 0.0));
    // First triangle whose cumulative area passes the target (never a zero-area one).
    std::size_t t = static_cast<std::size_t>(std::upper_bound(cdf.begin() + 1, cdf.end(), target) -
                                             (cdf.begin() + 1));
    t = std::min(t, nt - 1);
    const double r1 = std::sqrt(rng.uniform()), r2 = rng.uniform();
    const double w0 = 1 - r1, w1 = r1 * (1 - r2), w2 = r1 * r2;
    const Vec3<T> a = mesh.corner(t, 0), b = mesh.corner(t, 1), c = mesh.corner(t, 2);
    Vec3<T> p;
    for (int k = 0; k < 3; ++k)
      p[k] = static_cast<T>(w0 * double(a[k]) + w1 * double(b[k]) + w2 * double(c[k]));
    s.points[i] = p;
    s.triangles[i] = static_cast<std::uint32_t>(t);
    s.bary[i] = Vec3<T>{static_cast<T>(w0), static_cast<T>(w1), static_cast<T>(w2)};
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
