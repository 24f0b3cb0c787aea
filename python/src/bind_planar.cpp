// python/src/bind_planar.cpp — prox._prox.planar: the 2D shapes of prox/planar
// (float64), each with closest (the boundary/solid switch), contains and, for
// shapes with an inside, signed_distance, over (N, 2) NumPy rows.
//
// Each shape is validated once at construction (prox/planar/validate.hpp:
// finite points, convexity, simplicity, unit axis), so a bad shape is a
// ValueError there, never a wrong number later.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>

#include <array>
#include <cmath>
#include <vector>

#include "arrays.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/planar/closest.hpp"
#include "prox/planar/validate.hpp"

namespace prox::python {

namespace {

using P2 = std::array<double, 2>;

Vec2<double> vec(const P2& p) { return Vec2<double>{p[0], p[1]}; }

std::vector<Vec2<double>> points_of(const InArray<double>& a) {
  const Rows<double, 2> r(a, "points");
  std::vector<Vec2<double>> pts(r.size());
  for (std::size_t i = 0; i < r.size(); ++i) pts[i] = r[i];
  return pts;
}

template <class Shape>
nb::tuple closest(const Shape& s, const InArray<double>& points, bool solid, int threads) {
  const Rows<double, 2> p(points, "points");
  const std::size_t n = p.size();
  Out<double> pt({n, 2}), dist({n}), t({n});
  Out<std::int64_t> edge({n});
  const planar::Part part = solid ? planar::Part::solid : planar::Part::boundary;
  for_each_out(n, threads, [&](std::size_t i) {
    const planar::ClosestResult<double> r = planar::closest(p[i], s, part);
    pt.data[2 * i] = r.point[0];
    pt.data[2 * i + 1] = r.point[1];
    dist.data[i] = std::sqrt(r.sq_distance);
    edge.data[i] = r.edge;
    t.data[i] = r.t;
  });
  return nb::make_tuple(pt.array, dist.array, edge.array, t.array);
}

template <class Shape>
nb::object contains(const Shape& s, const InArray<double>& points, int threads) {
  const Rows<double, 2> p(points, "points");
  return map_out<bool>(p.size(), threads, [&](std::size_t i) {
    const Vec2<double> q = p[i];
    return all_finite(q) && planar::contains(q, s);
  });
}

template <class Shape>
nb::object signed_distance(const Shape& s, const InArray<double>& points, int threads) {
  const Rows<double, 2> p(points, "points");
  return map_out<double>(p.size(), threads, [&](std::size_t i) {
    const Vec2<double> q = p[i];
    return all_finite(q) ? planar::signed_distance(q, s) : ScalarTraits<double>::quiet_nan();
  });
}

/// closest and contains for every shape; signed_distance for those with an inside.
template <class Shape>
nb::class_<Shape> bind_queries(nb::module_& m, const char* name, bool closed) {
  nb::class_<Shape> c(m, name);
  c.def("closest", &closest<Shape>, nb::arg("points"), nb::arg("solid"), nb::arg("threads"));
  c.def("contains", &contains<Shape>, nb::arg("points"), nb::arg("threads"));
  if (closed)
    c.def("signed_distance", &signed_distance<Shape>, nb::arg("points"), nb::arg("threads"));
  return c;
}

template <class Shape>
Shape validated(Shape s) {
  planar::validate(s);
  return s;
}

}  // namespace

void bind_planar(nb::module_& parent) {
  using namespace planar;
  nb::module_ m = parent.def_submodule("planar", "prox's 2D shapes (float64)");
  bind_queries<Segment<double>>(m, "Segment", false)
      .def("__init__", [](Segment<double>* s, P2 a, P2 b) {
        new (s) Segment<double>(validated(Segment<double>{vec(a), vec(b)}));
      });
  bind_queries<Circle<double>>(m, "Circle", true)
      .def("__init__", [](Circle<double>* s, P2 c, double r) {
        new (s) Circle<double>(validated(Circle<double>{vec(c), r}));
      });
  bind_queries<Box<double, 2>>(m, "Box", true)
      .def("__init__", [](Box<double, 2>* s, P2 lo, P2 hi) {
        new (s) Box<double, 2>(validated(Box<double, 2>{vec(lo), vec(hi)}));
      });
  bind_queries<OrientedBox<double>>(m, "OrientedBox", true)
      .def("__init__", [](OrientedBox<double>* s, P2 c, P2 half, double angle) {
        new (s) OrientedBox<double>(
            validated(OrientedBox<double>::from_angle(vec(c), vec(half), angle)));
      });
  bind_queries<Capsule<double>>(m, "Capsule", true)
      .def("__init__", [](Capsule<double>* s, P2 a, P2 b, double r) {
        new (s) Capsule<double>(validated(Capsule<double>{vec(a), vec(b), r}));
      });
  bind_queries<ConvexPolygon<double>>(m, "ConvexPolygon", true)
      .def("__init__", [](ConvexPolygon<double>* s, const InArray<double>& pts) {
        new (s) ConvexPolygon<double>(validated(ConvexPolygon<double>{points_of(pts)}));
      });
  bind_queries<Polygon<double>>(m, "Polygon", true)
      .def("__init__", [](Polygon<double>* s, const InArray<double>& pts) {
        new (s) Polygon<double>(validated(Polygon<double>{points_of(pts)}));
      });
  bind_queries<Polyline<double>>(m, "Polyline", false)
      .def("__init__", [](Polyline<double>* s, const InArray<double>& pts) {
        new (s) Polyline<double>(validated(Polyline<double>{points_of(pts)}));
      });
}

}  // namespace prox::python
