// prox-bench-planar: the seed scene's 1000 x 700 distance field (one core,
// every pixel evaluated) and the single 2D queries it is made of.
#include <benchmark/benchmark.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "prox/planar/field.hpp"

namespace {

using namespace prox;
using namespace prox::planar;

void BM_Field(benchmark::State& state) {
  const Scene scene = default_scene();
  FieldOptions o;
  o.part = state.range(0) ? Part::solid : Part::boundary;
  for (auto _ : state) {
    Image img = render_distance_field(scene, o);
    benchmark::DoNotOptimize(img.pixels.data());
  }
  state.SetLabel(state.range(0) ? "signed 1000x700" : "unsigned 1000x700");
  state.counters["pixels/s"] = benchmark::Counter(1000.0 * 700.0, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Field)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

template <class T>
std::vector<Vec2<T>> points(int n) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-200, 200);
  std::vector<Vec2<T>> p(n);
  for (auto& v : p) v = Vec2<T>{T(u(rng)), T(u(rng))};
  return p;
}

template <class T>
Polygon<T> ngon(int n) {
  Polygon<T> poly;
  for (int i = 0; i < n; ++i) {
    const double a = 2 * std::numbers::pi * i / n;
    const double r = i % 2 ? 100 : 70;  // a star: concave
    poly.points.push_back(Vec2<T>{T(r * std::cos(a)), T(r * std::sin(a))});
  }
  return poly;
}

template <class T>
void BM_PolygonClosestOn(benchmark::State& state) {
  const Polygon<T> poly = ngon<T>(static_cast<int>(state.range(0)));
  const auto ps = points<T>(1024);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(closest_on(ps[i++ & 1023], poly));
  }
}
BENCHMARK_TEMPLATE(BM_PolygonClosestOn, float)->Arg(3)->Arg(16)->Arg(64);
BENCHMARK_TEMPLATE(BM_PolygonClosestOn, double)->Arg(3)->Arg(16)->Arg(64);

template <class T>
void BM_PolygonContains(benchmark::State& state) {
  const Polygon<T> poly = ngon<T>(static_cast<int>(state.range(0)));
  const auto ps = points<T>(1024);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(contains(ps[i++ & 1023], poly));
  }
}
BENCHMARK_TEMPLATE(BM_PolygonContains, double)->Arg(16)->Arg(64);

template <class T>
void BM_SimpleShapes(benchmark::State& state) {
  const auto ps = points<T>(1024);
  const Circle<T> c{{T(0), T(0)}, T(80)};
  const Box<T, 2> b{{T(-50), T(-30)}, {T(60), T(40)}};
  const Capsule<T> cap{{T(-50), T(-30)}, {T(60), T(40)}, T(12)};
  const OrientedBox<T> ob = OrientedBox<T>::from_angle({T(0), T(0)}, {T(50), T(20)}, T(0.5));
  std::size_t i = 0;
  for (auto _ : state) {
    const Vec2<T>& p = ps[i++ & 1023];
    benchmark::DoNotOptimize(closest_in(p, c));
    benchmark::DoNotOptimize(closest_on(p, b));
    benchmark::DoNotOptimize(closest_on(p, cap));
    benchmark::DoNotOptimize(closest_on(p, ob));
  }
  state.SetLabel("circle + box + capsule + turned box");
}
BENCHMARK_TEMPLATE(BM_SimpleShapes, float);
BENCHMARK_TEMPLATE(BM_SimpleShapes, double);

}  // namespace

BENCHMARK_MAIN();
