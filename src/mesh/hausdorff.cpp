// src/mesh/hausdorff.cpp — certified Hausdorff distance (prox/mesh/hausdorff.hpp).
//
// The search itself is in hausdorff_detail.hpp (shared declarations),
// hausdorff_bound.cpp (the bound of one sub-triangle, the float prefilter) and
// hausdorff_search.cpp (the rounds of subdivision); here: the checks, the
// tolerance, the arenas and the public entry points.

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include <tbb/task_arena.h>

#include "hausdorff_detail.hpp"
#include "prox/mesh/hausdorff.hpp"

namespace prox {
namespace {

using hausdorff_detail::OneSided;
using hausdorff_detail::to_d;

/// The largest |coordinate| of a mesh's (used) vertices, from its bounding
/// box: max |x| over a set is max(|min x|, |max x|), exactly.
template <class T>
double max_abs_coordinate(const Box3<T>& b) {
  double s = 0;
  for (int j = 0; j < 3; ++j) s = std::max({s, std::fabs(double(b.lo[j])), std::fabs(double(b.hi[j]))});
  return s;
}

template <class T>
Box3<T> joint_box(const Box3<T>& a, const Box3<T>& b) {
  Box3<T> box = a;
  box.extend(b.lo);
  box.extend(b.hi);
  return box;
}

template <class T>
double diagonal_of(const Box3<T>& box) {
  return std::sqrt(squared_norm(to_d(box.diagonal())));
}

double tolerance_for(const HausdorffOptions& o, double diagonal) {
  return o.tolerance > 0 ? o.tolerance : o.relative_tolerance * diagonal;
}

template <class T>
void check_inputs(const TriangleMesh<T>& a, const TriangleMesh<T>& b, const HausdorffOptions& o) {
  if (a.empty()) throw std::invalid_argument("hausdorff: mesh A has no triangles");
  if (b.empty()) throw std::invalid_argument("hausdorff: mesh B has no triangles");
  if (!(o.tolerance >= 0) || !(o.relative_tolerance >= 0) || std::isinf(o.tolerance) ||
      std::isinf(o.relative_tolerance))
    throw std::invalid_argument("hausdorff: the tolerance must be a finite number >= 0, not " +
                                std::to_string(o.tolerance) + " / relative " +
                                std::to_string(o.relative_tolerance));
  if (o.tolerance == 0 && o.relative_tolerance == 0)
    throw std::invalid_argument("hausdorff: give a tolerance > 0 (absolute or relative to the "
                                "diagonal); 0 can never be reached");
}

}  // namespace

/// Runs fn in one TBB arena of `threads` slots for the whole computation (0:
/// the caller's arena, 1: no pool at all). One arena per call, not one per
/// parallel loop: a fresh arena per loop makes the workers join every short
/// level anew, and on a busy machine the caller often finishes a loop before
/// they arrive (measured: 2 threads did 0.5% of the work on the worker).
template <class Fn>
void in_arena(int threads, Fn&& fn) {
  if (threads > 1) {
    tbb::task_arena arena(std::min(threads, tbb::this_task_arena::max_concurrency()));
    arena.execute(fn);
  } else {
    fn();
  }
}

namespace {
/// One direction against a prepared B, given A's box (each mesh's bounds() is
/// one pass over its triangles: done once per call, not once per use).
template <class T>
HausdorffSide one_sided(const TriangleMesh<T>& a, const typename HausdorffTarget<T>::Data& b,
                        const Box3<T>& box_a, double tol, const HausdorffOptions& options) {
  const double s = std::max(max_abs_coordinate(box_a), max_abs_coordinate(b.box));
  HausdorffSide side;
  in_arena(options.threads,
           [&] { side = OneSided<T>(a, b, joint_box(box_a, b.box), tol, s, options).run(); });
  return side;
}

template <class T>
HausdorffResult symmetric(const typename HausdorffTarget<T>::Data& a,
                          const typename HausdorffTarget<T>::Data& b, const HausdorffOptions& options) {
  check_inputs(a.bm, b.bm, options);
  HausdorffResult r;
  r.diagonal = diagonal_of(joint_box(a.box, b.box));
  r.tolerance = tolerance_for(options, r.diagonal);
  HausdorffOptions o = options;
  o.tolerance = r.tolerance;
  in_arena(options.threads, [&] {
    o.threads = options.threads == 1 ? 1 : 0;  // in this arena
    r.forward = one_sided(a.bm, b, a.box, r.tolerance, o);
    r.backward = one_sided(b.bm, a, b.box, r.tolerance, o);
  });
  r.lower = std::max(r.forward.lower, r.backward.lower);
  r.upper = std::max(r.forward.upper, r.backward.upper);
  return r;
}
}  // namespace

template <class T>
HausdorffTarget<T>::HausdorffTarget(const MeshIndex<T>& b) {
  if (b.mesh().empty()) throw std::invalid_argument("hausdorff: mesh B has no triangles");
  data_ = std::make_shared<const Data>(b);
}

template <class T>
const MeshIndex<T>& HausdorffTarget<T>::index() const {
  return data_->b;
}

template <class T>
std::size_t HausdorffTarget<T>::memory_bytes() const {
  return data_->memory_bytes();
}

template <class T>
double hausdorff_tolerance(const TriangleMesh<T>& a, const TriangleMesh<T>& b,
                           const HausdorffOptions& options) {
  check_inputs(a, b, options);
  if (options.tolerance > 0) return options.tolerance;
  return tolerance_for(options, diagonal_of(joint_box(a.bounds(), b.bounds())));
}

template <class T>
HausdorffSide hausdorff_one_sided(const TriangleMesh<T>& a, const HausdorffTarget<T>& b,
                                  const HausdorffOptions& options) {
  const auto& d = b.data();
  check_inputs(a, d.bm, options);
  const Box3<T> box_a = a.bounds();
  const double tol = tolerance_for(options, diagonal_of(joint_box(box_a, d.box)));
  return one_sided(a, d, box_a, tol, options);
}

template <class T>
HausdorffSide hausdorff_one_sided(const TriangleMesh<T>& a, const MeshIndex<T>& b,
                                  const HausdorffOptions& options) {
  check_inputs(a, b.mesh(), options);
  HausdorffSide side;
  // B's preparation is part of the call here (on the call's arena, like the rest).
  in_arena(options.threads, [&] {
    HausdorffOptions o = options;
    o.threads = options.threads == 1 ? 1 : 0;
    side = hausdorff_one_sided(a, HausdorffTarget<T>(b), o);
  });
  return side;
}

template <class T>
HausdorffResult hausdorff(const HausdorffTarget<T>& a, const HausdorffTarget<T>& b,
                          const HausdorffOptions& options) {
  return symmetric<T>(a.data(), b.data(), options);
}

template <class T>
HausdorffResult hausdorff(const MeshIndex<T>& a, const MeshIndex<T>& b,
                          const HausdorffOptions& options) {
  check_inputs(a.mesh(), b.mesh(), options);
  const typename HausdorffTarget<T>::Data ta(a), tb(b);
  return symmetric<T>(ta, tb, options);
}

template class HausdorffTarget<float>;
template class HausdorffTarget<double>;
template HausdorffSide hausdorff_one_sided(const TriangleMesh<float>&, const HausdorffTarget<float>&,
                                           const HausdorffOptions&);
template HausdorffSide hausdorff_one_sided(const TriangleMesh<double>&, const HausdorffTarget<double>&,
                                           const HausdorffOptions&);
template HausdorffResult hausdorff(const HausdorffTarget<float>&, const HausdorffTarget<float>&,
                                   const HausdorffOptions&);
template HausdorffResult hausdorff(const HausdorffTarget<double>&, const HausdorffTarget<double>&,
                                   const HausdorffOptions&);
template double hausdorff_tolerance(const TriangleMesh<float>&, const TriangleMesh<float>&,
                                    const HausdorffOptions&);
template double hausdorff_tolerance(const TriangleMesh<double>&, const TriangleMesh<double>&,
                                    const HausdorffOptions&);
template HausdorffSide hausdorff_one_sided(const TriangleMesh<float>&, const MeshIndex<float>&,
                                           const HausdorffOptions&);
template HausdorffSide hausdorff_one_sided(const TriangleMesh<double>&, const MeshIndex<double>&,
                                           const HausdorffOptions&);
template HausdorffResult hausdorff(const MeshIndex<float>&, const MeshIndex<float>&,
                                   const HausdorffOptions&);
template HausdorffResult hausdorff(const MeshIndex<double>&, const MeshIndex<double>&,
                                   const HausdorffOptions&);

}  // namespace prox
