// prox/mesh/sign.hpp — signed distance and inside/outside, said honestly.
//
// SignedMesh<Index> wraps a MeshIndex<T> or its BruteForce<T> twin (kept by
// reference: it must outlive the SignedMesh) with what signing needs, computed
// once: the mesh's diagnostics (prox/mesh/diagnostics.hpp), the method `auto`
// resolves to, and the pseudonormals when that method needs them.
//
// query(p) does one closest-point traversal and then signs it:
// - winding: generalized winding number w; inside when |w| >= 1/2. MeshIndex
//   uses the certified fast winding number (prox/mesh/fast_winding.hpp): a
//   far-field estimate with a rigorous error bound, refined until the bound
//   settles both |w| >= 1/2 and the unsure band, else the exact sum; so the
//   answer (sign and confidence) is the exact sum's. On a closed mesh (zero
//   boundary chain) w is an integer off the surface: a cell grid answers most
//   points at once, and the traversal stops once that integer is certain
//   (sure). Built once per index and shared (FastWindingNumber::shared). BruteForce always sums
//   exactly. Sure unless the deciding w lies in (0.3, 0.7) (near a hole, on a
//   sheet, an inconsistently oriented face). winding_error is the estimate's
//   bound (0 when the exact sum decided).
// - pseudonormal: sign of (p - closest) . n, n the angle-weighted pseudonormal of
//   the closest feature (vertex, edge or face; Bærentzen & Aanæs 2005): exact
//   for a closed, consistently and outward oriented mesh, one dot product.
//   Sure when the mesh is such and the product is non-zero; a zero product
//   (degenerate closest triangle) falls back to parity for that point.
// - parity: crossings of `parity_rays` fixed rays from p (exactly-once counting,
//   prox/mesh/ray_crossing.hpp); odd = inside; the majority decides, sure when
//   the rays agree. Exact for any closed mesh whatever its orientation.
// A point on the surface (distance 0) has signed distance +0, sure, and counts
// as inside for contains(). On a mesh without inside (MeshDiagnostics::
// has_inside false: point cloud, segments, flat sheet) nothing is signed:
// signed_distance is NaN and confidence is no_inside; contains() says unsure.
// Pseudonormal and parity answers are deterministic and equal bit for bit from
// MeshIndex and BruteForce; winding answers agree in sign where sure.
// All const member functions may be called from many threads at once.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <type_traits>
#include <stdexcept>
#include <string>

#include "prox/core/ray.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/diagnostics.hpp"
#include "prox/mesh/fast_winding.hpp"
#include "prox/mesh/results.hpp"
#include "prox/primitives/closest_point_triangle.hpp"

namespace prox {

/// How far a signed answer can be trusted.
enum class SignConfidence : std::uint8_t {
  sure,       ///< the method's own evidence is unambiguous
  unsure,     ///< winding near 1/2, split vote, or a method the mesh does not suit
  no_inside,  ///< the mesh has no inside: nothing was signed
};
constexpr const char* to_string(SignConfidence c) {
  switch (c) {
    case SignConfidence::sure: return "sure";
    case SignConfidence::unsure: return "unsure";
    case SignConfidence::no_inside: return "no_inside";
  }
  return "?";
}

/// contains(): where a point is.
enum class Containment : std::uint8_t { outside = 0, inside = 1, unsure = 2 };
constexpr const char* to_string(Containment c) {
  switch (c) {
    case Containment::outside: return "outside";
    case Containment::inside: return "inside";
    case Containment::unsure: return "unsure";
  }
  return "?";
}

/// A signed closest-point answer.
template <class T>
struct SignedClosestPoint {
  MeshClosestPoint<T> closest;                        ///< point, sq_distance, triangle, feature
  T signed_distance = ScalarTraits<T>::quiet_nan();   ///< negative inside; NaN: miss or no inside
  T winding_number = ScalarTraits<T>::quiet_nan();    ///< the deciding w (winding only)
  double winding_error = 0;                           ///< |true w - winding_number| bound (0: exact sum)
  std::uint8_t inside_votes = 0;                      ///< parity: rays that say inside
  std::uint8_t votes = 0;                             ///< parity: rays cast (0 otherwise)
  SignMethod method = SignMethod::none;               ///< the method that decided this point
  SignConfidence confidence = SignConfidence::unsure;
  bool found() const { return closest.found(); }
  bool inside() const { return signed_distance < T(0); }
};

/// What a SignedMesh is asked to do.
struct SignOptions {
  SignMethod method = SignMethod::automatic;  ///< automatic: MeshDiagnostics::recommended_method
  int parity_rays = 3;                        ///< odd, 1..15: rays cast by parity
};

template <class Index>
class SignedMesh {
 public:
  using T = typename Index::Scalar;

  /// Diagnoses index.mesh() and prepares `options.method` (auto resolved).
  /// Throws std::invalid_argument for an even or out-of-range parity_rays.
  explicit SignedMesh(const Index& index, const SignOptions& options = {})
      : index_(&index), diagnostics_(diagnose_index(index)), options_(options) {
    if (options.parity_rays < 1 || options.parity_rays > 15 || options.parity_rays % 2 == 0)
      throw std::invalid_argument("parity_rays must be odd, from 1 to 15 (got " +
                                  std::to_string(options.parity_rays) + ")");
    method_ = options.method == SignMethod::automatic ? diagnostics_.recommended_method()
                                                      : options.method;
    if (!diagnostics_.has_inside()) method_ = SignMethod::none;
    suits_pseudonormal_ = diagnostics_.suits_pseudonormal();
    suits_parity_ = diagnostics_.closed();
    // Whether parity (odd crossings) and the winding sign (w non-zero) agree
    // everywhere: w in {0, 1} or {0, -1}, i.e. no crossing or self-crossing
    // piece and no misnested one, or a single piece (inward or not). Where
    // pieces cross or nest alike, w = 2 inside their overlap: parity calls
    // that outside, the winding sign (their union) inside.
    parity_is_union_ = diagnostics_.crossing_components == 0 &&
                       diagnostics_.self_intersecting_components == 0 &&
                       (diagnostics_.misnested_components == 0 || diagnostics_.components == 1);
    if (method_ == SignMethod::pseudonormal) normals_ = pseudonormals(index.mesh());
    scale_ = kernel_scale(index.mesh().bounds());
    if constexpr (std::is_same_v<Index, MeshIndex<T>>)
      if (method_ == SignMethod::winding)
        fast_ = FastWindingNumber<T>::shared(index);  // built once per index
  }

  const Index& index() const { return *index_; }
  const MeshDiagnostics& diagnostics() const { return diagnostics_; }
  /// The method in use (auto resolved; none when the mesh has no inside).
  SignMethod method() const { return method_; }
  const SignOptions& options() const { return options_; }
  /// The pseudonormal table the pseudonormal method reads (empty for the
  /// other methods); prox::gpu uploads it to sign on the GPU.
  const Pseudonormals& normals() const { return normals_; }
  /// Whether signs are exact on this mesh with this method: a closed mesh and a
  /// method exact there (parity: any orientation; winding: consistent
  /// orientation, |w| is then an integer off the surface; pseudonormal:
  /// consistent and outward). The sign is then constant between surface crossings.
  bool sign_is_exact() const {
    return (method_ == SignMethod::pseudonormal && suits_pseudonormal_) ||
           (method_ == SignMethod::parity && suits_parity_) ||
           (method_ == SignMethod::winding && suits_parity_ &&
            diagnostics_.consistently_oriented());
  }

  /// Closest point within max_distance (a miss beyond) and its sign.
  SignedClosestPoint<T> query(const Vec3<T>& p,
                              T max_distance = ScalarTraits<T>::infinity()) const {
    return query_from(p, -1, max_distance);
  }

  /// query(p, max_distance), the search seeded with triangle `hint` (a nearby
  /// point's answer; negative: none) where the index takes hints: the same
  /// answer bit for bit, faster when the hint is near.
  SignedClosestPoint<T> query_from(const Vec3<T>& p, std::int32_t hint,
                                   T max_distance = ScalarTraits<T>::infinity()) const {
    if constexpr (requires(NearTriangles<T>& n) {
                    index_->closest_point_near(p, 0.0, n, hint, max_distance);
                  }) {
      if (reads_near()) {
        // One traversal: the closest point and the triangles the certificate
        // reads (pseudonormal_certain), the same ones sphere_triangles gives.
        NearTriangles<T> near;
        const MeshClosestPoint<T> cp =
            index_->closest_point_near(p, rounding_reach(p), near, hint, max_distance);
        return sign_with(p, cp, &near);
      }
      return sign(p, index_->closest_point_from(p, hint, max_distance));
    } else {
      return sign(p, index_->closest_point(p, max_distance));
    }
  }

  /// Signs an already computed closest point cp of p (as query() would).
  SignedClosestPoint<T> sign(const Vec3<T>& p, const MeshClosestPoint<T>& cp) const {
    return sign_with(p, cp, nullptr);
  }

  /// sign(p, cp) with the triangles near cp already listed, as
  /// MeshIndex::closest_point_near(p, rounding_reach(p), near) lists them
  /// (the SDF grid's search lists them the same way): the certificate then
  /// reads the list instead of a sphere query. The same answer.
  SignedClosestPoint<T> sign(const Vec3<T>& p, const MeshClosestPoint<T>& cp,
                             const NearTriangles<T>& near) const {
    return sign_with(p, cp, &near);
  }

  /// Whether sign() reads the triangles near the closest point (the
  /// pseudonormal method's certificate on a mesh that suits it): only then is
  /// a near list worth listing.
  bool reads_near() const { return method_ == SignMethod::pseudonormal && suits_pseudonormal_; }

 private:
  // A MeshIndex lends its boxes to the diagnosis (prox/mesh/diagnostics.hpp).
  static MeshDiagnostics diagnose_index(const Index& index) {
    if constexpr (std::is_same_v<Index, MeshIndex<T>>) return diagnose(index);
    else return diagnose(index.mesh());
  }
  /// sign(p, cp); beside: the triangles near cp (MeshIndex::closest_point_near)
  /// or null (pseudonormal_certain then asks sphere_triangles).
  SignedClosestPoint<T> sign_with(const Vec3<T>& p, const MeshClosestPoint<T>& cp,
                                  const NearTriangles<T>* beside) const {
    SignedClosestPoint<T> s;
    s.closest = cp;
    if (!cp.found()) return s;
    if (method_ == SignMethod::none) {
      s.confidence = SignConfidence::no_inside;
      return s;
    }
    const T d = std::sqrt(cp.sq_distance);
    s.method = method_;
    if (d == T(0)) {
      s.signed_distance = T(0);
      s.confidence = SignConfidence::sure;
      return s;
    }
    bool inside = false;
    bool sure = false;
    // Within rounding of the surface (d <= rounding_reach(p)) the closest
    // point, its feature and the solid angles near it are noise at the scale
    // of d: the pseudonormal and winding signs are then not evidence, and a
    // closed mesh is signed by the rays (exact predicates) instead.
    const bool near = double(d) <= rounding_reach(p);
    if (s.method == SignMethod::pseudonormal) {
      const double pr = pseudonormal_product(p, cp);
      if (pr != 0 && !(suits_pseudonormal_ && !pseudonormal_certain(p, cp, pr, beside))) {
        inside = pr < 0;
        sure = suits_pseudonormal_;
      } else {
        s.method = SignMethod::parity;  // no normal here, or a doubt: the rays decide
      }
    } else if (s.method == SignMethod::winding && near && suits_parity_ && parity_is_union_) {
      // (Where parity and the union differ, the winding estimate stays, and
      // within rounding of the surface it is never sure, below.)
      s.method = SignMethod::parity;
    }
    if (s.method == SignMethod::parity) {
      vote(p, s);
      inside = 2 * s.inside_votes > s.votes;
      sure = suits_parity_ && (s.inside_votes == 0 || s.inside_votes == s.votes);
    } else if (s.method == SignMethod::winding) {
      bool integral = false;
      s.winding_number = winding(p, s.winding_error, integral);
      const T aw = std::abs(s.winding_number);
      if (integral) {  // closed mesh, p off the surface: w is the integer near the estimate
        inside = std::nearbyint(aw) >= T(1);
        sure = true;
      } else {
        inside = aw >= T(0.5);
        sure = !(aw > T(0.3) && aw < T(0.7));
      }
      // A face oriented against its neighbours adds about -+1 to w near it,
      // whatever the estimate's certainty: never sure there. Nor within
      // rounding of an open surface (no rays to fall back on).
      sure = sure && diagnostics_.consistently_oriented() && !near;
    }
    s.signed_distance = inside ? -d : d;
    s.confidence = sure ? SignConfidence::sure : SignConfidence::unsure;
    return s;
  }

 public:

  /// (p - cp.point) . n, n the pseudonormal of cp's feature (pseudonormal method only).
  double pseudonormal_product(const Vec3<T>& p, const MeshClosestPoint<T>& cp) const {
    const double* n = normals_.normal(std::size_t(cp.triangle), int(cp.feature));
    return (double(p[0]) - double(cp.point[0])) * n[0] +
           (double(p[1]) - double(cp.point[1])) * n[1] +
           (double(p[2]) - double(cp.point[2])) * n[2];
  }

  /// Four times how far the computed closest point may be from the exact one:
  /// 4 * 2^8 eps_T S, S the mesh box's largest coordinate plus its diagonal,
  /// or p's largest coordinate if larger (docs/kernel-accuracy.md measures the
  /// kernel's error at a few eps_T S on ordinary triangles and up to ~10^3
  /// eps_T S on slivers). Below it a point is "within rounding of the surface".
  double rounding_reach(const Vec3<T>& p) const {
    const double s = std::max({scale_, std::fabs(double(p[0])), std::fabs(double(p[1])),
                               std::fabs(double(p[2]))});
    return 1024.0 * double(std::numeric_limits<T>::epsilon()) * s;
  }

  /// Whether the pseudonormal sign of cp at p (pr: pseudonormal_product) is
  /// certain on a closed, consistently and outward oriented mesh. Bærentzen &
  /// Aanæs's theorem holds at the exact closest point; the computed one is
  /// within rounding_reach / 4 of it, so the sign stands when (1) p is
  /// farther than rounding_reach from the surface, (2) |pr| exceeds what that
  /// error can change, and (3) every other triangle within d + rounding_reach
  /// of p (any of which may be the exact closest one: two sheets of a part
  /// thinner than the rounding, e.g. a plate 1e-14 thick seen from 1000 away)
  /// gives the same sign by the same test. Otherwise the caller signs by parity.
  /// The triangles within d + rounding_reach come from `near` (listed by the
  /// closest-point search itself, MeshIndex::closest_point_near: the same
  /// ones) when given and complete; otherwise from one sphere query
  /// (sphere_triangles) and a kernel call per triangle it returns (usually
  /// the closest feature's own star).
  bool pseudonormal_certain(const Vec3<T>& p, const MeshClosestPoint<T>& cp, double pr,
                            const NearTriangles<T>* near = nullptr) const {
    const double d = std::sqrt(double(cp.sq_distance));
    const double reach = rounding_reach(p);
    if (!(d > reach)) return false;
    const double margin = reach + 0x1p-40 * d;
    if (!(std::fabs(pr) > margin)) return false;
    const bool inside = pr < 0;
    auto agrees = [&](std::int32_t t, const Vec3<T>& point, Feature feature) {
      MeshClosestPoint<T> other;
      other.point = point;
      other.triangle = t;
      other.feature = feature;
      const double pt = pseudonormal_product(p, other);
      return std::fabs(pt) > margin && (pt < 0) == inside;
    };
    if (near != nullptr && !near->overflow) {
      for (std::size_t i = 0; i < near->count; ++i) {
        const auto& e = near->entries[i];
        if (!agrees(e.triangle, e.point, e.feature)) return false;
      }
      return true;
    }
    // r: as near_radius_sq's (prox/mesh/results.hpp), so the same triangles.
    const double w = d + reach;
    T r = T(w);
    if (double(r) < w) r = std::nextafter(r, ScalarTraits<T>::infinity());
    const auto& mesh = index_->mesh();
    for (const std::uint32_t t : index_->sphere_triangles(p, r)) {
      if (std::int32_t(t) == cp.triangle) continue;
      const ClosestPointTriangleResult<T> c =
          closest_point_triangle(p, mesh.corner(t, 0), mesh.corner(t, 1), mesh.corner(t, 2));
      if (!agrees(std::int32_t(t), c.point, c.feature)) return false;
    }
    return true;
  }

  /// Inside, outside, or unsure (not sure, a miss, or no inside); on the surface: inside.
  Containment contains(const Vec3<T>& p) const {
    const SignedClosestPoint<T> s = query(p);
    if (s.confidence != SignConfidence::sure || !s.found()) return Containment::unsure;
    return s.signed_distance <= T(0) ? Containment::inside : Containment::outside;
  }

  /// The fixed ray directions parity casts (the first parity_rays of them).
  static constexpr std::array<std::array<double, 3>, 15> kParityDirections = {{
      {1.0, 0.3183098861837907, 0.1415926535897932},
      {-0.2718281828459045, 1.0, 0.5772156649015329},
      {0.4142135623730950, -0.7320508075688772, 1.0},
      {-1.0, -0.6180339887498949, 0.3027756377319946},
      {0.2360679774997897, 0.1010101010101010, -1.0},
      {0.7071067811865476, -1.0, -0.2928932188134524},
      {-0.5, 0.8660254037844386, -0.7247179371870600},
      {1.0, -0.1234567890123457, -0.6931471805599453},
      {-0.3010299956639812, -1.0, -0.4771212547196624},
      {0.8414709848078965, 0.5403023058681398, 1.0},
      {-1.0, 0.4342944819032518, -0.2302585092994046},
      {0.1732050807568877, -0.9876543210987654, 0.6666666666666666},
      {-0.6366197723675814, -0.3678794411714423, 1.0},
      {1.0, 0.9092974268256817, -0.4161468365471424},
      {-0.1411200080598672, 1.0, -0.9899924966004454},
  }};

 private:
  void vote(const Vec3<T>& p, SignedClosestPoint<T>& s) const {
    s.votes = std::uint8_t(options_.parity_rays);
    s.inside_votes = 0;
    for (int r = 0; r < options_.parity_rays; ++r) {
      const auto& d = kParityDirections[std::size_t(r)];
      const Ray<T> ray{p, Vec3<T>{T(d[0]), T(d[1]), T(d[2])}, T(0),
                       ScalarTraits<T>::infinity()};
      if (index_->count_hits(ray) % 2 == 1) ++s.inside_votes;
    }
  }

  T winding(const Vec3<T>& p, double& error, bool& integral) const {
    error = 0;
    integral = false;
    if (fast_) {
      const CertifiedWinding<T> c = fast_->decide_sign(p);
      error = c.error_bound;
      integral = c.integral;
      return c.winding_number;
    }
    if constexpr (requires(const Index& i) { i.exact_winding_number(p); }) {
      return index_->exact_winding_number(p);
    } else {
      return index_->winding_number(p);
    }
  }

  const Index* index_;
  MeshDiagnostics diagnostics_;
  SignOptions options_;
  SignMethod method_ = SignMethod::none;
  bool suits_pseudonormal_ = false, suits_parity_ = false, parity_is_union_ = true;
  double scale_ = 0;  // S of rounding_reach (kernel_scale of the mesh box)
  Pseudonormals normals_;
  std::shared_ptr<const FastWindingNumber<T>> fast_;  // winding on a MeshIndex
};

/// out[i] = signed.query(points[i], max_distance) on the pool (identical for
/// any thread count).
template <class Index, class T>
void signed_queries(const SignedMesh<Index>& signed_mesh, std::span<const Vec3<T>> points,
                    std::span<SignedClosestPoint<T>> out, T max_distance,
                    const BatchOptions& options = {}) {
  detail::check_batch_sizes(points.size(), out.size(), "signed_queries");
  const Index& index = signed_mesh.index();
  if constexpr (requires { index.closest_point_from(points[0], std::int32_t(0), max_distance); }) {
    // As closest_points: each point's search starts from the triangle the
    // point before it in the spatial order found (the same closest point, so
    // the same signed answer as query(p, max_distance)).
    batch_chain_points(
        points.size(), options, [&](std::size_t i) { return points[i]; },
        [&](std::size_t i, std::int32_t hint) {
          out[i] = signed_mesh.query_from(points[i], hint, max_distance);
          return out[i].closest.triangle;
        },
        [&](std::size_t i) { detail::prefetch_slots(points, out, i); });
  } else {
    batch_map_points(points, out,
                     [&](std::size_t i) { return signed_mesh.query(points[i], max_distance); },
                     options);
  }
}

/// out[i] = signed.query(points[i]) on the pool (no distance limit).
template <class Index, class T>
void signed_queries(const SignedMesh<Index>& signed_mesh, std::span<const Vec3<T>> points,
                    std::span<SignedClosestPoint<T>> out, const BatchOptions& options = {}) {
  signed_queries(signed_mesh, points, out, ScalarTraits<T>::infinity(), options);
}

/// out[i] = signed.contains(points[i]) on the pool.
template <class Index, class T>
void contains(const SignedMesh<Index>& signed_mesh, std::span<const Vec3<T>> points,
              std::span<Containment> out, const BatchOptions& options = {}) {
  detail::check_batch_sizes(points.size(), out.size(), "contains");
  batch_map_points(points, out, [&](std::size_t i) { return signed_mesh.contains(points[i]); },
                   options);
}

}  // namespace prox
