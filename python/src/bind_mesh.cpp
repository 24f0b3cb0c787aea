// python/src/bind_mesh.cpp — prox._prox.MeshF32 / MeshF64: a MeshIndex<T> and
// its batch queries over (N, k) NumPy rows.
//
// Every query allocates its outputs with the GIL held, then releases the GIL and
// runs the batch on prox's TBB pool (batch_for_each: each output slot depends
// only on its own input, so answers are bit-identical for any `threads`). The
// per-query work is exactly MeshIndex's (the same calls as prox::closest_points
// and the CLI), so the float64 distance here is the CLI's `distance` column bit
// for bit. Shapes, dtypes and conventions are documented once, in the Python
// layer (python/prox/__init__.py) and its stubs; this layer only checks them.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <istream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <span>
#include <streambuf>
#include <string>
#include <type_traits>
#include <vector>

#include "arrays.hpp"
#include "gpu_device.hpp"
#include "prox/io/load_index.hpp"
#include "prox/io/mesh_topology.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/diagnostics.hpp"
#include "prox/mesh/hausdorff.hpp"
#include "prox/mesh/isa.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/sample_surface.hpp"
#include "prox/mesh/sdf_grid.hpp"
#include "prox/mesh/sign.hpp"

namespace prox::python {

namespace {

/// Reads bytes held elsewhere (a pickle buffer) as an istream, without a copy.
class MemoryBuf : public std::streambuf {
 public:
  MemoryBuf(const char* data, std::size_t size) {
    char* p = const_cast<char*>(data);  // get area only: never written through
    setg(p, p, p + size);
  }
};

/// The rays of a ray query: (N, 3) origins and directions read in place, one
/// [t_min, t_max] for all; `what` names the method in the size error.
template <class T>
class RayRows {
 public:
  RayRows(const InArray<T>& origins, const InArray<T>& directions, T t_min, T t_max,
          const char* what)
      : org_(origins, "origins"), dir_(directions, "directions"), t_min_(t_min), t_max_(t_max) {
    detail::check_batch_sizes(org_.size(), dir_.size(),
                              (std::string(what) + " (origins vs directions)").c_str());
  }
  std::size_t size() const { return org_.size(); }
  Ray<T> operator[](std::size_t i) const { return Ray<T>{org_[i], dir_[i], t_min_, t_max_}; }
  /// The rays rounded to float (the GPU's precision), in order.
  std::vector<Ray<float>> to_float() const {
    std::vector<Ray<float>> r(size());
    for (std::size_t i = 0; i < r.size(); ++i)
      r[i] = Ray<float>{org_[i].template cast<float>(), dir_[i].template cast<float>(),
                        float(t_min_), float(t_max_)};
    return r;
  }

 private:
  Rows<T, 3> org_, dir_;
  T t_min_, t_max_;
};

/// Rows of points rounded to float (the GPU's precision), in order.
template <class T>
std::vector<Vec3<float>> points_to_float(const Rows<T, 3>& p) {
  std::vector<Vec3<float>> v(p.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = p[i].template cast<float>();
  return v;
}

// The output arrays of the queries that fill several per query, in the mesh's
// dtype T; write(i, r) fills slot i from an answer in S (T on the CPU, float on
// the GPU, widened exactly), so both devices write the same arrays one way.

/// compute_closest_points: points, distance (sqrt in S), primitive_ids,
/// primitive_uvs, barycentrics, feature (-1 on a miss).
template <class T>
struct ClosestArrays {
  Out<T> pt, dist, uv, bary;
  Out<std::int64_t> id;
  Out<std::int8_t> feature;
  explicit ClosestArrays(std::size_t n)
      : pt({n, 3}), dist({n}), uv({n, 2}), bary({n, 3}), id({n}), feature({n}) {}
  template <class S>
  void write(std::size_t i, const MeshClosestPoint<S>& r) {
    for (int k = 0; k < 3; ++k) {
      pt.data[3 * i + k] = T(r.point[k]);
      bary.data[3 * i + k] = T(r.bary[k]);
    }
    dist.data[i] = T(std::sqrt(r.sq_distance));
    uv.data[2 * i] = T(r.bary[1]);
    uv.data[2 * i + 1] = T(r.bary[2]);
    id.data[i] = r.triangle;
    feature.data[i] = r.found() ? std::int8_t(r.feature) : std::int8_t(-1);
  }
  nb::tuple tuple() const {
    return nb::make_tuple(pt.array, dist.array, id.array, uv.array, bary.array, feature.array);
  }
};

/// compute_signed_distance: SignedClosestPoint's fields, -1 method and
/// confidence for a miss (as `prox closest --signed`'s columns).
template <class T>
struct SignedArrays {
  Out<T> sd, w, pt;
  Out<std::int64_t> id;
  Out<std::int8_t> used, conf;
  Out<std::uint8_t> inside_votes, votes;
  explicit SignedArrays(std::size_t n)
      : sd({n}), w({n}), pt({n, 3}), id({n}), used({n}), conf({n}), inside_votes({n}),
        votes({n}) {}
  template <class S>
  void write(std::size_t i, const SignedClosestPoint<S>& s) {
    sd.data[i] = T(s.signed_distance);
    w.data[i] = T(s.winding_number);
    for (int k = 0; k < 3; ++k) pt.data[3 * i + k] = T(s.closest.point[k]);
    id.data[i] = s.closest.triangle;
    used.data[i] = s.found() ? std::int8_t(s.method) : std::int8_t(-1);
    conf.data[i] = s.found() ? std::int8_t(s.confidence) : std::int8_t(-1);
    inside_votes.data[i] = s.inside_votes;
    votes.data[i] = s.votes;
  }
  nb::tuple tuple(const std::string& method) const {
    return nb::make_tuple(sd.array, w.array, conf.array, used.array, inside_votes.array,
                          votes.array, pt.array, id.array, method);
  }
};

/// cast_rays: t_hit, primitive_ids, primitive_uvs (NaN on a miss), front_face
/// and, only when asked, primitive_normals: the unit normal of the hit
/// triangle, computed in S from `mesh`'s corners (NaN on a miss or a
/// degenerate triangle).
template <class T>
struct HitArrays {
  Out<T> t, uv;
  Out<std::int64_t> id;
  Out<bool> front;
  std::optional<Out<T>> normal;
  HitArrays(std::size_t n, bool normals) : t({n}), uv({n, 2}), id({n}), front({n}) {
    if (normals) normal.emplace(std::initializer_list<std::size_t>{n, 3});
  }
  template <class S>
  void write(std::size_t i, const MeshRayHit<S>& h, const TriangleMesh<S>& mesh) {
    const bool hit = h.found();
    t.data[i] = T(h.t);
    uv.data[2 * i] = hit ? T(h.u) : ScalarTraits<T>::quiet_nan();
    uv.data[2 * i + 1] = hit ? T(h.v) : ScalarTraits<T>::quiet_nan();
    id.data[i] = h.triangle;
    front.data[i] = h.front_face;
    if (!normal) return;
    Vec3<S> nrm = Vec3<S>::splat(ScalarTraits<S>::quiet_nan());
    if (hit) {
      const std::size_t f = std::size_t(h.triangle);
      const Vec3<S> a = mesh.corner(f, 0);
      const Vec3<S> c = cross(mesh.corner(f, 1) - a, mesh.corner(f, 2) - a);
      const S len = std::sqrt(dot(c, c));
      if (len > S(0)) nrm = c * (S(1) / len);
    }
    for (int k = 0; k < 3; ++k) normal->data[3 * i + k] = T(nrm[k]);
  }
  nb::tuple tuple() const {
    return nb::make_tuple(t.array, id.array, uv.array, front.array,
                          normal ? normal->array : nb::none());
  }
};

/// Milliseconds fn() takes, the GIL released: the benchmark's C++ baseline. fn
/// allocates its output inside the clock, as a C++ caller must (and as the Python
/// method's arrays are), so both pay its first-touch page faults.
template <class Fn>
double timed_ms(Fn&& fn) {
  nb::gil_scoped_release release;
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
      .count();
}

/// The SignedMesh for (method, parity_rays) in `cache`, made on first use and
/// kept (the GIL released while the lock is waited on and the signer built).
template <class Index>
using SignerCache = std::map<std::pair<int, int>, std::unique_ptr<SignedMesh<Index>>>;

template <class Index>
const SignedMesh<Index>& cached_signer(SignerCache<Index>& cache, std::mutex& mutex,
                                       const Index& index, const std::string& method,
                                       int parity_rays) {
  SignOptions so;
  so.method = parse_sign_method(method);  // std::invalid_argument naming a bad name
  if (so.method == SignMethod::none)
    throw std::invalid_argument("sign method must be auto, winding, pseudonormal or parity, "
                                "not 'none'");
  so.parity_rays = parity_rays;
  const auto key = std::make_pair(int(so.method), parity_rays);
  nb::gil_scoped_release release;  // the lock is never waited on with the GIL held
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, std::make_unique<SignedMesh<Index>>(index, so)).first;
  return *it->second;
}

template <class T>
class PyMesh {
 public:
  PyMesh(const InArray<T>& vertices, const InArray<std::int64_t>& faces, bool drop_non_finite) {
    const Rows<T, 3> v(vertices, "vertices");
    const Rows<std::int64_t, 3> f(faces, "faces");
    std::vector<Vec3<T>> verts(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) verts[i] = v[i];
    std::vector<typename TriangleMesh<T>::Triangle> tris(f.size());
    for (std::size_t i = 0; i < f.size(); ++i) {
      const Vec<std::int64_t, 3> t = f[i];
      for (int k = 0; k < 3; ++k) {
        if (t[k] < 0 || std::uint64_t(t[k]) >= verts.size())
          throw MeshError("triangle " + std::to_string(i) + " has vertex index " +
                          std::to_string(t[k]) + ", but the mesh has " +
                          std::to_string(verts.size()) + " vertices");
        tris[i][k] = std::uint32_t(t[k]);
      }
    }
    nb::gil_scoped_release release;
    TriangleMesh<T> mesh(std::move(verts), std::move(tris),
                         drop_non_finite ? NonFinitePolicy::drop_triangles
                                         : NonFinitePolicy::reject);
    index_ = std::make_shared<MeshIndex<T>>(std::move(mesh));
  }

  static PyMesh load(const std::string& path, bool drop_non_finite) {
    io::LoadOptions options;
    if (drop_non_finite) {
      options.read.allow_non_finite = true;
      options.non_finite = NonFinitePolicy::drop_triangles;
    }
    PyMesh m;
    std::vector<std::string> warnings;
    {
      nb::gil_scoped_release release;
      io::LoadedIndex<T> loaded = io::load_index<T>(path, options);
      m.index_ = std::shared_ptr<MeshIndex<T>>(loaded.index.release());
      warnings = std::move(loaded.warnings);
    }
    // What the reader let through (e.g. more OFF face lines than the header
    // declares): a Python warning each, as the CLI says them on stderr.
    for (const std::string& w : warnings)
      if (PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1) != 0) throw nb::python_error();
    return m;
  }

  /// The index's own save() bytes, as a uint8 array (pickle's out-of-band buffer).
  nb::object save() const {
    std::ostringstream os(std::ios::binary);
    {
      nb::gil_scoped_release release;
      index_->save(os);
    }
    const std::string s = std::move(os).str();
    Out<std::uint8_t> out({s.size()});
    std::memcpy(out.data, s.data(), s.size());
    return out.array;
  }

  static PyMesh from_bytes(const nb::ndarray<const std::uint8_t, nb::ndim<1>, nb::c_contig,
                                             nb::device::cpu>& bytes) {
    PyMesh m;
    nb::gil_scoped_release release;
    MemoryBuf buf(reinterpret_cast<const char*>(bytes.data()), bytes.shape(0));
    std::istream in(&buf);
    m.index_ = std::make_shared<MeshIndex<T>>(MeshIndex<T>::load(in));
    return m;
  }

  const MeshIndex<T>& index() const { return *index_; }

  nb::object vertices() const {
    const auto& v = index_->mesh().vertices();
    Out<T> out({v.size(), 3});
    std::memcpy(out.data, v.data(), v.size() * sizeof(Vec3<T>));
    return out.array;
  }

  nb::object faces() const {
    const auto& t = index_->mesh().triangles();
    Out<std::int64_t> out({t.size(), 3});
    for (std::size_t i = 0; i < t.size(); ++i)
      for (int k = 0; k < 3; ++k) out.data[3 * i + k] = t[i][k];
    return out.array;
  }

  nb::object bounds() const {
    const Box3<T> b = index_->mesh().bounds();
    Out<T> out({2, 3});
    const bool empty = index_->mesh().empty();
    for (int k = 0; k < 3; ++k) {
      out.data[k] = empty ? ScalarTraits<T>::quiet_nan() : b.lo[k];
      out.data[3 + k] = empty ? ScalarTraits<T>::quiet_nan() : b.hi[k];
    }
    return out.array;
  }

  nb::dict diagnostics() const {
    const io::MeshTopology& t = topology();
    const BuildStats s = index_->build_stats();
    nb::dict d;
    d["closed"] = t.closed();
    d["edges"] = t.edges;
    d["boundary_edges"] = t.boundary_edges;
    d["non_manifold_edges"] = t.non_manifold_edges;
    d["degenerate_triangles"] = t.degenerate_triangles;
    d["unused_vertices"] = t.unused_vertices;
    d["memory_bytes"] = index_->memory_bytes();
    d["bvh_nodes"] = s.nodes;
    d["bvh_leaves"] = s.leaves;
    d["bvh_depth"] = s.depth;
    d["build_ms"] = s.build_ms;
    d["isa"] = std::string(isa_name(active_isa()));
    // The sign's view (prox/mesh/diagnostics.hpp: vertices welded by position).
    const MeshDiagnostics& g = sign_diagnostics();
    d["welded_vertices"] = g.welded_vertices;
    d["manifold"] = g.manifold();
    d["oriented"] = g.consistently_oriented();
    d["inconsistent_edges"] = g.inconsistent_edges;
    d["outward"] = g.outward();
    d["components"] = g.components;
    d["inward_components"] = g.inward_components;
    d["overlapping_components"] = g.overlapping_components;
    d["crossing_components"] = g.crossing_components;
    d["misnested_components"] = g.misnested_components;
    d["self_intersecting_components"] = g.self_intersecting_components;
    d["duplicate_triangles"] = g.duplicate_triangles;
    d["welded_closed"] = g.closed();
    d["welded_boundary_edges"] = g.boundary_edges;
    d["welded_non_manifold_edges"] = g.non_manifold_edges;
    d["welded_degenerate_triangles"] = g.degenerate_triangles;
    d["area"] = g.area;
    d["volume"] = g.volume;
    d["planar"] = g.planar;
    d["has_inside"] = g.has_inside();
    d["recommended_sign_method"] = std::string(to_string(g.recommended_method()));
    d["verdict"] = g.verdict();
    return d;
  }

  /// A copy of the mesh made consistent and outward (prox::reorient), its index
  /// built; with the number of triangles flipped and of edges that cannot agree.
  nb::tuple reorient(int threads) const {
    const BatchOptions o = batch_options(threads);
    PyMesh m;
    std::size_t flipped = 0, conflicts = 0;
    {
      nb::gil_scoped_release release;
      Reoriented<T> r = prox::reorient(index_->mesh());
      flipped = r.flipped;
      conflicts = r.conflicts;
      BuildOptions b;
      b.threads = o.threads;
      m.index_ = std::make_shared<MeshIndex<T>>(std::move(r.mesh), b);
    }
    return nb::make_tuple(nb::cast(std::move(m)), flipped, conflicts);
  }

  /// The name `method` resolves to on this mesh ("none": no inside).
  std::string resolve_sign_method(const std::string& method, int parity_rays) const {
    return std::string(to_string(signer(method, parity_rays).method()));
  }

  // ---- signing (issue 10: prox/mesh/sign.hpp) --------------------------------

  /// SignedMesh::query for every point: one closest-point traversal, then the sign.
  /// device "gpu": the closest points from prox::gpu on the float index, signed
  /// on the CPU by a SignedMesh on that index (MeshIndexGpu::signed_closest_point).
  nb::tuple signed_query(const InArray<T>& points, const std::string& method, int parity_rays,
                         int threads, const std::string& device) const {
    const Rows<T, 3> p(points, "points");
    const std::size_t n = p.size();
    batch_options(threads);  // checked before any work
    if (parse_device(device)) {
      GpuIndex& g = gpu();
      const SignedMesh<MeshIndex<float>>& sm = float_signer(method, parity_rays);
      SignedArrays<T> out(n);
      {
        nb::gil_scoped_release release;
        const std::vector<Vec3<float>> q = points_to_float(p);
        std::vector<SignedClosestPoint<float>> r(n);
        g.signed_closest_point(sm, q, r);
        batch_for_each(n, batch_options(threads), [&](std::size_t i) { out.write(i, r[i]); });
      }
      return out.tuple(std::string(to_string(sm.method())));
    }
    const SignedMesh<MeshIndex<T>>& sm = signer(method, parity_rays);
    SignedArrays<T> out(n);
    {
      // As prox::signed_queries: each search starts from the triangle of the
      // point before it in the Morton order (the same answers as sm.query).
      const BatchOptions o = batch_options(threads);
      nb::gil_scoped_release release;
      batch_chain_points(
          n, o, [&](std::size_t i) { return p[i]; },
          [&](std::size_t i, std::int32_t hint) {
            const SignedClosestPoint<T> r = sm.sign(p[i], sm.index().closest_point_from(p[i], hint));
            out.write(i, r);
            return r.closest.triangle;
          });
    }
    return out.tuple(std::string(to_string(sm.method())));
  }

  /// SignedMesh::contains: 0 outside, 1 inside, 2 unsure (prox::Containment).
  nb::object contains(const InArray<T>& points, const std::string& method, int parity_rays,
                      int threads) const {
    const Rows<T, 3> p(points, "points");
    const SignedMesh<MeshIndex<T>>& sm = signer(method, parity_rays);
    return map_out_points<std::int8_t>(
        p, threads, [&](std::size_t i) { return std::int8_t(sm.contains(p[i])); });
  }

  /// The grid of `prox sdf` over the padded box: mode 0 cubic cells with res[0]
  /// nodes along the longest axis, 1 res = (nx, ny, nz), 2 cell size dx.
  GridSpec grid_spec(int mode, std::array<std::size_t, 3> res, double dx, double padding) const {
    if (index_->mesh().empty())
      throw std::invalid_argument("the mesh has no triangles: no distance grid");
    const Box3<T> bt = index_->mesh().bounds();
    Box3<double> box;
    for (int k = 0; k < 3; ++k) {
      box.lo[k] = double(bt.lo[k]);
      box.hi[k] = double(bt.hi[k]);
    }
    return mode == 2   ? grid_over_box_spacing(box, padding, dx)
           : mode == 0 ? grid_over_box(box, padding, res[0])
                       : grid_over_box(box, padding, res);
  }

  /// grid_spec's (dims, origin, spacing), for splitting a grid (prox.dask.sdf_grid).
  nb::tuple grid_dims(int mode, std::array<std::size_t, 3> res, double dx, double padding) const {
    const GridSpec g = grid_spec(mode, res, dx, padding);
    return nb::make_tuple(g.dims, g.origin, g.spacing);
  }

  /// prox::signed_distance_grid over grid_spec, as `prox sdf`, for the z-planes
  /// [z_begin, z_end) (clipped to the grid). Values come back as an (nx, ny, nz)
  /// array in Fortran order (node (i, j, k) at [i, j, k - z_begin]; the whole
  /// grid's transpose is `prox sdf`'s (nz, ny, nx) C array).
  nb::tuple sdf_grid(int mode, std::array<std::size_t, 3> res, double dx, double padding,
                     double band, bool float32, const std::string& method, int parity_rays,
                     std::size_t z_begin, std::size_t z_end, int threads) const {
    const BatchOptions o = batch_options(threads);
    const SignedMesh<MeshIndex<T>>& sm = signer(method, parity_rays);
    const GridSpec grid = grid_spec(mode, res, dx, padding);
    SdfOptions so;
    so.band = band;
    so.batch = o;
    so.z_begin = z_begin;
    so.z_end = z_end;
    SdfGrid<T> g;
    {
      nb::gil_scoped_release release;
      g = signed_distance_grid(sm, grid, so);
    }
    const std::size_t nx = grid.dims[0], ny = grid.dims[1], nz = g.values.size() / (nx * ny);
    nb::object values;
    if (float32 && !std::is_same_v<T, float>) {
      FortranOut<float> v(nx, ny, nz);
      for (std::size_t i = 0; i < g.values.size(); ++i) v.data[i] = float(g.values[i]);
      values = v.array;
    } else {
      FortranOut<T> v(nx, ny, nz);
      std::memcpy(v.data, g.values.data(), g.values.size() * sizeof(T));
      values = v.array;
    }
    Out<double> origin({3}), spacing({3});
    for (std::size_t a = 0; a < 3; ++a) {
      origin.data[a] = grid.origin[a];
      spacing.data[a] = grid.spacing[a];
    }
    return nb::make_tuple(values, origin.array, spacing.array, std::string(to_string(g.method)),
                          g.unsure, g.sign_evaluations);
  }

  // ---- two meshes (issue 14: prox/mesh/hausdorff.hpp, sample_surface.hpp) -----

  /// Certified Hausdorff distance to `other`: symmetric, or h(this, other) only.
  nb::dict hausdorff(const PyMesh& other, double tolerance, double relative, bool symmetric,
                     std::size_t max_subtriangles, int threads) const {
    HausdorffOptions ho;
    ho.tolerance = tolerance;
    ho.relative_tolerance = relative;
    ho.threads = batch_options(threads).threads;
    if (max_subtriangles > 0) ho.max_subtriangles = max_subtriangles;
    nb::dict d;
    if (symmetric) {
      HausdorffResult h;
      {
        nb::gil_scoped_release release;
        h = prox::hausdorff(*index_, *other.index_, ho);
      }
      d["lower"] = h.lower;
      d["upper"] = h.upper;
      d["tolerance"] = h.tolerance;
      d["diagonal"] = h.diagonal;
      d["converged"] = h.forward.converged && h.backward.converged;
      d["forward"] = side_dict(h.forward);
      d["backward"] = side_dict(h.backward);
    } else {
      HausdorffSide s;
      double tol = 0;
      {
        nb::gil_scoped_release release;
        tol = hausdorff_tolerance(index_->mesh(), other.index_->mesh(), ho);
        s = hausdorff_one_sided(index_->mesh(), *other.index_, ho);
      }
      d = side_dict(s);
      d["tolerance"] = tol;
      d["diagonal"] = joint_diagonal(other);
    }
    return d;
  }

  /// Area-weighted samples: points, triangle ids, barycentrics.
  nb::tuple sample(std::size_t n, std::uint64_t seed, bool stratified, int threads) const {
    const BatchOptions o = batch_options(threads);
    SurfaceSamples<T> s;
    {
      nb::gil_scoped_release release;
      s = sample_surface(index_->mesh(), n, seed,
                         stratified ? SampleMethod::stratified : SampleMethod::uniform, o.threads);
    }
    Out<T> pt({n, 3}), bary({n, 3});
    Out<std::int64_t> id({n});
    for (std::size_t i = 0; i < n; ++i) {
      for (int k = 0; k < 3; ++k) {
        pt.data[3 * i + k] = s.points[i][k];
        bary.data[3 * i + k] = s.bary[i][k];
      }
      id.data[i] = s.triangles[i];
    }
    return nb::make_tuple(pt.array, id.array, bary.array);
  }

  /// Mean, RMS and Chamfer over `n` samples of each mesh (seeds seed and seed + 1,
  /// as `prox hausdorff`), with each side's distances when asked.
  nb::dict sample_distance_stats(const PyMesh& other, std::size_t n, std::uint64_t seed,
                                 bool stratified, bool keep, int threads) const {
    const BatchOptions o = batch_options(threads);
    const SampleMethod sm = stratified ? SampleMethod::stratified : SampleMethod::uniform;
    std::vector<double> da, db;
    {
      nb::gil_scoped_release release;
      const SurfaceSamples<T> sa = sample_surface(index_->mesh(), n, seed, sm, o.threads);
      const SurfaceSamples<T> sb = sample_surface(other.index_->mesh(), n, seed + 1, sm, o.threads);
      da = sample_distances(std::span<const Vec3<T>>(sa.points), *other.index_, o.threads);
      db = sample_distances(std::span<const Vec3<T>>(sb.points), *index_, o.threads);
    }
    const ChamferDistance c = chamfer(da, db);
    nb::dict d;
    d["chamfer_l2"] = c.chamfer_l2;
    d["chamfer_l1"] = c.chamfer_l1;
    d["samples"] = n;
    auto side = [&](const std::vector<double>& v, double mean_sq) {
      const DistanceStats st = distance_stats(v, 1);
      nb::dict s;
      s["mean"] = st.mean;
      s["rms"] = st.rms;
      s["mean_sq"] = mean_sq;
      s["max"] = st.max;
      s["argmax"] = st.argmax;
      if (keep) {
        Out<double> a({v.size()});
        std::memcpy(a.data, v.data(), v.size() * sizeof(double));
        s["distances"] = a.array;
      }
      return s;
    };
    d["forward"] = side(da, c.forward_mean_sq);
    d["backward"] = side(db, c.backward_mean_sq);
    d["diagonal"] = joint_diagonal(other);
    return d;
  }

  // ---- queries: (N, k) rows in, new arrays out --------------------------------

  /// device "gpu": prox::gpu on the float index (the mesh's own for float32, a
  /// float copy for float64), the points and max_distance rounded to float.
  nb::tuple closest_points(const InArray<T>& points, T max_distance, int threads,
                           const std::string& device) const {
    const Rows<T, 3> p(points, "points");
    const std::size_t n = p.size();
    batch_options(threads);  // checked before any work
    ClosestArrays<T> out(n);
    if (parse_device(device)) {
      GpuIndex& g = gpu();
      nb::gil_scoped_release release;
      const std::vector<Vec3<float>> q = points_to_float(p);
      std::vector<MeshClosestPoint<float>> r(n);
      g.closest_point(q, r, float(max_distance));
      batch_for_each(n, batch_options(threads), [&](std::size_t i) { out.write(i, r[i]); });
    } else {
      // As prox::closest_points: each point starts from the answer of the
      // point before it in the Morton order (the same answers).
      const BatchOptions o = batch_options(threads);
      nb::gil_scoped_release release;
      batch_chain_points(
          n, o, [&](std::size_t i) { return p[i]; },
          [&](std::size_t i, std::int32_t hint) {
            const MeshClosestPoint<T> r = index_->closest_point_from(p[i], hint, max_distance);
            out.write(i, r);
            return r.triangle;
          });
    }
    return out.tuple();
  }

  nb::object winding_number(const InArray<T>& points, bool exact, int threads) const {
    const Rows<T, 3> p(points, "points");
    return map_out_points<T>(p, threads, [&](std::size_t i) {
      return exact ? index_->exact_winding_number(p[i]) : index_->winding_number(p[i]);
    });
  }

  /// The nearest hits. On the CPU in blocks through MeshIndex::first_hits, as
  /// prox::first_hits does (coherent rays go in packets of eight, each answer
  /// bit for bit a single ray's); device "gpu": prox::gpu on the float index.
  nb::tuple cast_rays(const InArray<T>& origins, const InArray<T>& directions, T t_min, T t_max,
                      bool normals, int threads, const std::string& device) const {
    const RayRows<T> rays(origins, directions, t_min, t_max, "cast_rays");
    const std::size_t n = rays.size();
    const BatchOptions o = batch_options(threads);
    HitArrays<T> out(n, normals);
    if (parse_device(device)) {
      GpuIndex& g = gpu();
      nb::gil_scoped_release release;
      const std::vector<Ray<float>> r = rays.to_float();
      std::vector<MeshRayHit<float>> h(n);
      g.first_hit(r, h);
      const TriangleMesh<float>& mesh = g.index().mesh();
      batch_for_each(n, o, [&](std::size_t i) { out.write(i, h[i], mesh); });
    } else {
      nb::gil_scoped_release release;
      const TriangleMesh<T>& mesh = index_->mesh();
      detail::batch_for(n, o, [&](std::size_t b, std::size_t e) {
        constexpr std::size_t block = 256;
        std::array<Ray<T>, block> r;
        std::array<MeshRayHit<T>, block> h;
        for (std::size_t s = b; s < e; s += block) {
          const std::size_t m = std::min(block, e - s);
          for (std::size_t j = 0; j < m; ++j) r[j] = rays[s + j];
          index_->first_hits(std::span<const Ray<T>>(r.data(), m),
                             std::span<MeshRayHit<T>>(h.data(), m));
          for (std::size_t j = 0; j < m; ++j) out.write(s + j, h[j], mesh);
        }
      });
    }
    return out.tuple();
  }

  nb::object any_hits(const InArray<T>& origins, const InArray<T>& directions, T t_min, T t_max,
                      int threads, const std::string& device) const {
    const RayRows<T> rays(origins, directions, t_min, t_max, "test_occlusions");
    if (parse_device(device)) {
      batch_options(threads);
      GpuIndex& g = gpu();
      Out<bool> hit({rays.size()});
      {
        nb::gil_scoped_release release;
        const std::vector<Ray<float>> r = rays.to_float();
        std::vector<std::uint8_t> h(r.size());
        g.any_hit(r, h);
        for (std::size_t i = 0; i < h.size(); ++i) hit.data[i] = h[i] != 0;
      }
      return hit.array;
    }
    return map_out<bool>(rays.size(), threads,
                         [&](std::size_t i) { return index_->any_hit(rays[i]); });
  }

  nb::object count_hits(const InArray<T>& origins, const InArray<T>& directions, T t_min,
                        T t_max, int threads, const std::string& device) const {
    const RayRows<T> rays(origins, directions, t_min, t_max, "count_intersections");
    if (parse_device(device)) {
      batch_options(threads);
      GpuIndex& g = gpu();
      Out<std::int32_t> count({rays.size()});
      {
        nb::gil_scoped_release release;
        const std::vector<Ray<float>> r = rays.to_float();
        std::vector<std::uint32_t> c(r.size());
        g.count_hits(r, c);
        for (std::size_t i = 0; i < c.size(); ++i) count.data[i] = std::int32_t(c[i]);
      }
      return count.array;
    }
    return map_out<std::int32_t>(rays.size(), threads, [&](std::size_t i) {
      return std::int32_t(index_->count_hits(rays[i]));
    });
  }

  nb::tuple all_hits(const InArray<T>& origins, const InArray<T>& directions, T t_min, T t_max,
                     int threads) const {
    const RayRows<T> rays(origins, directions, t_min, t_max, "list_intersections");
    const BatchLists<MeshRayHit<T>> lists = lists_of<MeshRayHit<T>>(
        rays.size(), threads, [&](std::size_t i) { return index_->all_hits(rays[i]); });
    const std::size_t m = lists.items.size();
    Out<std::int64_t> ids({m});
    Out<T> t({m}), uv({m, 2});
    Out<bool> front({m});
    for (std::size_t j = 0; j < m; ++j) {
      const MeshRayHit<T>& h = lists.items[j];
      t.data[j] = h.t;
      ids.data[j] = h.triangle;
      uv.data[2 * j] = h.u;
      uv.data[2 * j + 1] = h.v;
      front.data[j] = h.front_face;
    }
    return nb::make_tuple(splits_of(lists), query_ids_of(lists), t.array, ids.array, uv.array,
                          front.array);
  }

  nb::object sphere_overlaps(const InArray<T>& centers, const nb::ndarray<const T, nb::ndim<1>,
                             nb::c_contig, nb::device::cpu>& radii, int threads) const {
    const Rows<T, 3> c(centers, "centers");
    detail::check_radii(c.size(), radii.shape(0), "sphere_overlap");
    const T* r = radii.data();
    const std::size_t step = radii.shape(0) == 1 ? 0 : 1;
    return map_out_points<bool>(c, threads, [&](std::size_t i) {
      return index_->sphere_overlaps(c[i], r[i * step]);
    });
  }

  nb::tuple sphere_triangles(const InArray<T>& centers, const nb::ndarray<const T, nb::ndim<1>,
                             nb::c_contig, nb::device::cpu>& radii, int threads) const {
    const Rows<T, 3> c(centers, "centers");
    detail::check_radii(c.size(), radii.shape(0), "sphere_triangles");
    const T* r = radii.data();
    const std::size_t step = radii.shape(0) == 1 ? 0 : 1;
    const BatchLists<std::uint32_t> lists = lists_of<std::uint32_t>(
        c.size(), threads, [&](std::size_t i) { return index_->sphere_triangles(c[i], r[i * step]); });
    Out<std::int64_t> ids({lists.items.size()});
    for (std::size_t j = 0; j < lists.items.size(); ++j) ids.data[j] = lists.items[j];
    return nb::make_tuple(splits_of(lists), ids.array);
  }

  // ---- the C++ batch API itself, timed in C++ (the benchmark's baseline: the
  // batch call into a freshly allocated std::vector, as a C++ caller makes it) ---

  double cpp_closest_points_ms(const InArray<T>& points, int threads) const {
    const Rows<T, 3> p(points, "points");
    const Vec3<T>* rows = p.contiguous();
    if (!rows) throw std::invalid_argument("points must be C-contiguous");
    const BatchOptions o = batch_options(threads);
    return timed_ms([&] {
      std::vector<MeshClosestPoint<T>> out(p.size());
      prox::closest_points(*index_, std::span<const Vec3<T>>(rows, p.size()),
                           std::span<MeshClosestPoint<T>>(out), ScalarTraits<T>::infinity(), o);
    });
  }

  double cpp_first_hits_ms(const InArray<T>& rays6, int threads) const {
    const Rows<T, 6> r(rays6, "rays");
    std::vector<Ray<T>> rays(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
      const Vec<T, 6> x = r[i];
      rays[i] = Ray<T>{Vec3<T>{x[0], x[1], x[2]}, Vec3<T>{x[3], x[4], x[5]}};
    }
    const BatchOptions o = batch_options(threads);
    return timed_ms([&] {
      std::vector<MeshRayHit<T>> out(rays.size());
      prox::first_hits(*index_, std::span<const Ray<T>>(rays), std::span<MeshRayHit<T>>(out), o);
    });
  }

  double cpp_signed_ms(const InArray<T>& points, int threads) const {
    const Rows<T, 3> p(points, "points");
    const Vec3<T>* rows = p.contiguous();
    if (!rows) throw std::invalid_argument("points must be C-contiguous");
    const SignedMesh<MeshIndex<T>>& sm = signer("auto", 3);
    const BatchOptions o = batch_options(threads);
    return timed_ms([&] {
      std::vector<SignedClosestPoint<T>> out(p.size());
      prox::signed_queries(sm, std::span<const Vec3<T>>(rows, p.size()),
                           std::span<SignedClosestPoint<T>>(out), o);
    });
  }

 private:
  PyMesh() = default;

  const io::MeshTopology& topology() const {
    // The GIL is released before call_once, so a second thread waits for the
    // first without holding it (the first never needs it inside).
    nb::gil_scoped_release release;
    std::call_once(topology_->once, [&] {
      io::MeshData data;
      const TriangleMesh<T>& mesh = index_->mesh();
      data.vertices.reserve(mesh.num_vertices());
      for (const Vec3<T>& v : mesh.vertices())
        data.vertices.push_back(Vec3d{double(v[0]), double(v[1]), double(v[2])});
      data.triangles = mesh.triangles();
      topology_->value = io::analyze_topology(data);
    });
    return topology_->value;
  }

  /// The SignedMesh for (method, parity_rays), made once per mesh and kept.
  const SignedMesh<MeshIndex<T>>& signer(const std::string& method, int parity_rays) const {
    return cached_signer(topology_->signers, topology_->sign_mutex, *index_, method, parity_rays);
  }

  /// This mesh on the GPU, uploaded on first use and kept: the mesh's own index
  /// for float32, else a float copy (vertices rounded to float once, an index
  /// built on them: what prox.Mesh(vertices.astype(float32), faces) builds).
  /// Released GIL while building and uploading; a failure is not kept.
  GpuIndex& gpu() const {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(gpu_->mutex);
    if (!gpu_->device) {
      std::shared_ptr<const MeshIndex<float>> f;
      if constexpr (std::is_same_v<T, float>) {
        f = index_;
      } else {
        std::vector<Vec3<float>> v;
        v.reserve(index_->mesh().num_vertices());
        for (const Vec3<T>& x : index_->mesh().vertices()) v.push_back(x.template cast<float>());
        try {
          f = std::make_shared<MeshIndex<float>>(
              TriangleMesh<float>(std::move(v), index_->mesh().triangles()));
        } catch (const std::exception& e) {
          throw std::invalid_argument(std::string("device='gpu': the mesh in float32: ") +
                                      e.what());
        }
      }
      gpu_->device = std::make_unique<GpuIndex>(std::move(f));
    }
    return *gpu_->device;
  }

  /// The SignedMesh on gpu()'s float index (the CPU's own signer for float32).
  const SignedMesh<MeshIndex<float>>& float_signer(const std::string& method,
                                                   int parity_rays) const {
    if constexpr (std::is_same_v<T, float>) {
      return signer(method, parity_rays);
    } else {
      return cached_signer(gpu_->signers, gpu_->mutex, gpu().index(), method, parity_rays);
    }
  }

  const MeshDiagnostics& sign_diagnostics() const {
    nb::gil_scoped_release release;
    std::call_once(topology_->diag_once,
                   [&] { topology_->diagnostics = diagnose(*index_); });
    return topology_->diagnostics;
  }

  double joint_diagonal(const PyMesh& other) const {
    Box3<T> b = index_->mesh().bounds();
    b.extend(other.index_->mesh().bounds());
    const Vec3<T> d = b.diagonal();
    return std::sqrt(double(d[0]) * double(d[0]) + double(d[1]) * double(d[1]) +
                     double(d[2]) * double(d[2]));
  }

  static nb::dict side_dict(const HausdorffSide& s) {
    nb::dict d;
    d["lower"] = s.lower;
    d["upper"] = s.upper;
    Out<double> wp({3}), wc({3});
    for (int k = 0; k < 3; ++k) {
      wp.data[k] = s.worst_point[k];
      wc.data[k] = s.worst_closest[k];
    }
    d["worst_point"] = wp.array;
    d["worst_closest"] = wc.array;
    d["worst_triangle"] = s.worst_triangle;
    d["worst_closest_triangle"] = s.worst_closest_triangle;
    d["converged"] = s.converged;
    d["subtriangles"] = s.subtriangles;
    d["searches"] = s.searches;
    d["point_queries"] = s.point_queries;
    d["rounds"] = s.rounds;
    return d;
  }

  std::shared_ptr<MeshIndex<T>> index_;
  struct Topology {
    std::once_flag once;
    io::MeshTopology value;
    std::once_flag diag_once;
    MeshDiagnostics diagnostics;
    std::mutex sign_mutex;
    SignerCache<MeshIndex<T>> signers;
  };
  std::shared_ptr<Topology> topology_ = std::make_shared<Topology>();
  /// device="gpu": the uploaded float index and, for float64, its signers.
  /// Declared after index_, so a float32 mesh's index outlives its upload.
  struct Gpu {
    std::mutex mutex;
    std::unique_ptr<GpuIndex> device;
    SignerCache<MeshIndex<float>> signers;
  };
  std::shared_ptr<Gpu> gpu_ = std::make_shared<Gpu>();
};

template <class T>
void bind_mesh_class(nb::module_& m, const char* name) {
  using M = PyMesh<T>;
  nb::class_<M>(m, name)
      .def(nb::init<const InArray<T>&, const InArray<std::int64_t>&, bool>(), nb::arg("vertices"),
           nb::arg("faces"), nb::arg("drop_non_finite"))
      .def_static("load", &M::load, nb::arg("path"), nb::arg("drop_non_finite"))
      .def_static("from_bytes", &M::from_bytes, nb::arg("data"))
      .def("save", &M::save)
      .def_prop_ro("num_vertices", [](const M& s) { return s.index().mesh().num_vertices(); })
      .def_prop_ro("num_triangles", [](const M& s) { return s.index().mesh().num_triangles(); })
      .def_prop_ro("vertices", &M::vertices)
      .def_prop_ro("faces", &M::faces)
      .def_prop_ro("bounds", &M::bounds)
      .def("diagnostics", &M::diagnostics)
      .def("closest_points", &M::closest_points)
      .def("reorient", &M::reorient)
      .def("resolve_sign_method", &M::resolve_sign_method)
      .def("signed_query", &M::signed_query)
      .def("winding_number", &M::winding_number)
      .def("contains", &M::contains)
      .def("sdf_grid", &M::sdf_grid)
      .def("grid_dims", &M::grid_dims)
      .def("hausdorff", &M::hausdorff)
      .def("sample", &M::sample)
      .def("sample_distance_stats", &M::sample_distance_stats)
      .def("cast_rays", &M::cast_rays)
      .def("any_hits", &M::any_hits)
      .def("count_hits", &M::count_hits)
      .def("all_hits", &M::all_hits)
      .def("sphere_overlaps", &M::sphere_overlaps)
      .def("sphere_triangles", &M::sphere_triangles)
      .def("cpp_closest_points_ms", &M::cpp_closest_points_ms)
      .def("cpp_first_hits_ms", &M::cpp_first_hits_ms)
      .def("cpp_signed_ms", &M::cpp_signed_ms);
}

}  // namespace

void bind_mesh(nb::module_& m) {
  bind_mesh_class<float>(m, "MeshF32");
  bind_mesh_class<double>(m, "MeshF64");
  // The GIL is released: the context's lock is never waited on with it held.
  m.def("gpu_device", &gpu_device_summary, nb::call_guard<nb::gil_scoped_release>());
  m.def("gpu_built", &gpu_built);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const io::ReadError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

}  // namespace prox::python
