// Micro-benchmark: ns per query of the three closest-point-on-triangle methods
// and the two ray/triangle kernels, in float and double.
//
// Each iteration answers a batch of 4096 precomputed random queries (triangle
// corners in [-1,1]^3, points in [-2,2]^3, rays from [-3,3]^3 towards the
// triangle's neighbourhood, about a quarter hitting), so branch prediction sees
// the real mix of regions; items/s is queries/s. Results are summed into a
// sink so that nothing is optimised away.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "prox/prox.hpp"

namespace {

constexpr int kBatch = 4096;

/// items/s, and its inverse as the "per_query" counter (printed like 14.2n = ns).
void count_queries(benchmark::State& state) {
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["per_query"] = benchmark::Counter(
      double(state.iterations()) * kBatch, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class T>
struct Data {
  std::vector<prox::Vec3<T>> p, a, b, c;
  std::vector<prox::Ray<T>> rays;
  Data() {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    const auto vec = [&](double s) { return prox::Vec3<T>{T(s * u(rng)), T(s * u(rng)), T(s * u(rng))}; };
    for (int i = 0; i < kBatch; ++i) {
      a.push_back(vec(1));
      b.push_back(vec(1));
      c.push_back(vec(1));
      p.push_back(vec(2));
      const prox::Vec3<T> o = vec(3);
      const prox::Vec3<T> target = (a.back() + b.back() + c.back()) / T(3) + vec(0.6);
      rays.push_back(prox::Ray<T>{o, target - o});
    }
  }
};

template <class T>
const Data<T>& data() {
  static const Data<T> d;
  return d;
}

enum class Cp { ericson, eberly, projection };

template <class T, Cp method>
void BM_closest_point(benchmark::State& state) {
  const Data<T>& d = data<T>();
  for (auto _ : state) {
    T sink = T(0);
    for (int i = 0; i < kBatch; ++i) {
      prox::ClosestPointTriangleResult<T> r;
      if constexpr (method == Cp::ericson) r = prox::closest_point_triangle(d.p[i], d.a[i], d.b[i], d.c[i]);
      if constexpr (method == Cp::eberly) r = prox::closest_point_triangle_eberly(d.p[i], d.a[i], d.b[i], d.c[i]);
      if constexpr (method == Cp::projection) r = prox::closest_point_triangle_projection(d.p[i], d.a[i], d.b[i], d.c[i]);
      sink += r.sq_distance;
    }
    benchmark::DoNotOptimize(sink);
  }
  count_queries(state);
}

template <class T, bool watertight>
void BM_ray(benchmark::State& state) {
  const Data<T>& d = data<T>();
  for (auto _ : state) {
    int hits = 0;
    T sink = T(0);
    for (int i = 0; i < kBatch; ++i) {
      prox::RayTriangleHit<T> h;
      if constexpr (watertight) h = prox::ray_triangle_watertight(d.rays[i], d.a[i], d.b[i], d.c[i]);
      else h = prox::ray_triangle_moller_trumbore(d.rays[i], d.a[i], d.b[i], d.c[i]);
      hits += h.hit;
      if (h.hit) sink += h.t;
    }
    benchmark::DoNotOptimize(hits);
    benchmark::DoNotOptimize(sink);
  }
  count_queries(state);
}

/// Watertight with the per-ray precompute hoisted out (the mesh traversal's use).
template <class T>
void BM_ray_watertight_precomputed(benchmark::State& state) {
  const Data<T>& d = data<T>();
  std::vector<prox::WatertightRay<T>> w;
  for (const auto& r : d.rays) w.emplace_back(r);
  for (auto _ : state) {
    int hits = 0;
    for (int i = 0; i < kBatch; ++i) hits += prox::ray_triangle_watertight(w[i], d.a[i], d.b[i], d.c[i]).hit;
    benchmark::DoNotOptimize(hits);
  }
  count_queries(state);
}

template <class T>
void BM_ray_box(benchmark::State& state) {
  const Data<T>& d = data<T>();
  std::vector<prox::Box<T, 3>> boxes;
  for (int i = 0; i < kBatch; ++i) {
    prox::Box<T, 3> box = prox::Box<T, 3>::empty();
    box.extend(d.a[i]);
    box.extend(d.b[i]);
    box.extend(d.c[i]);
    boxes.push_back(box);
  }
  for (auto _ : state) {
    int hits = 0;
    for (int i = 0; i < kBatch; ++i) hits += prox::ray_box(d.rays[i], boxes[i]).hit;
    benchmark::DoNotOptimize(hits);
  }
  count_queries(state);
}

}  // namespace

BENCHMARK(BM_closest_point<float, Cp::ericson>)->Name("closest_point/ericson/float");
BENCHMARK(BM_closest_point<double, Cp::ericson>)->Name("closest_point/ericson/double");
BENCHMARK(BM_closest_point<float, Cp::eberly>)->Name("closest_point/eberly/float");
BENCHMARK(BM_closest_point<double, Cp::eberly>)->Name("closest_point/eberly/double");
BENCHMARK(BM_closest_point<float, Cp::projection>)->Name("closest_point/projection/float");
BENCHMARK(BM_closest_point<double, Cp::projection>)->Name("closest_point/projection/double");
BENCHMARK(BM_ray<float, false>)->Name("ray/moller_trumbore/float");
BENCHMARK(BM_ray<double, false>)->Name("ray/moller_trumbore/double");
BENCHMARK(BM_ray<float, true>)->Name("ray/watertight/float");
BENCHMARK(BM_ray<double, true>)->Name("ray/watertight/double");
BENCHMARK(BM_ray_watertight_precomputed<float>)->Name("ray/watertight_precomputed/float");
BENCHMARK(BM_ray_watertight_precomputed<double>)->Name("ray/watertight_precomputed/double");
BENCHMARK(BM_ray_box<float>)->Name("ray/box/float");
BENCHMARK(BM_ray_box<double>)->Name("ray/box/double");

BENCHMARK_MAIN();
