// src/mesh/diagnostics.cpp — mesh diagnostics, pseudonormals and reorientation
// (see prox/mesh/diagnostics.hpp). Everything is sort-based over welded vertices.
#include "prox/mesh/diagnostics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "prox/bvh/traverse.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/flat_index.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/winding_number.hpp"
#include "prox/planar/orient.hpp"
#include "prox/primitives/expansion.hpp"

namespace prox {

std::string_view to_string(SignMethod m) {
  switch (m) {
    case SignMethod::automatic: return "auto";
    case SignMethod::winding: return "winding";
    case SignMethod::pseudonormal: return "pseudonormal";
    case SignMethod::parity: return "parity";
    case SignMethod::none: return "none";
  }
  return "?";
}

SignMethod parse_sign_method(std::string_view name) {
  for (SignMethod m : {SignMethod::automatic, SignMethod::winding, SignMethod::pseudonormal,
                       SignMethod::parity})
    if (name == to_string(m)) return m;
  throw std::invalid_argument("unknown sign method '" + std::string(name) +
                              "' (use auto, winding, pseudonormal or parity)");
}

SignMethod MeshDiagnostics::recommended_method() const {
  if (!has_inside()) return SignMethod::none;
  if (suits_pseudonormal()) return SignMethod::pseudonormal;
  if (closed() && consistently_oriented() && (components > 1 || self_intersecting_components > 0))
    return SignMethod::winding;
  if (closed()) return SignMethod::parity;
  return SignMethod::winding;
}

std::string MeshDiagnostics::verdict() const {
  if (triangles == 0) return "no inside: the mesh has no triangles (a point cloud?); only unsigned distance is defined";
  if (area == 0) return "no inside: every triangle has zero area (points or segments); only unsigned distance is defined";
  if (planar) return "no inside: every triangle lies in one plane (a flat sheet); only unsigned distance is defined";
  if (suits_pseudonormal())
    return components > 1
               ? "sign exact: closed, manifold, consistently oriented outward, its pieces "
                 "crossing none of the others and oriented as they nest (auto: pseudonormal)"
               : "sign exact: closed, manifold, consistently oriented outward (auto: pseudonormal)";
  if (closed() && consistently_oriented() && (components > 1 || self_intersecting_components > 0)) {
    std::string why;
    if (self_intersecting_components > 0)
      why = std::to_string(self_intersecting_components) + " of its " +
            std::to_string(components) + " pieces pass through themselves";
    if (crossing_components > 0)
      why += (why.empty() ? "" : ", ") + std::to_string(crossing_components) + " of its " + std::to_string(components) +
            " pieces cross or touch another";
    if (misnested_components > 0)
      why += (why.empty() ? "" : ", ") + std::to_string(misnested_components) + " of its " +
             std::to_string(components) +
             " pieces are oriented against how they nest (inside out, or inside a piece of the "
             "same orientation)";
    if (why.empty()) why = "its volume is not positive";
    return "sign exact by winding number: closed and consistently oriented, but " + why +
           ": inside is where the winding number is non-zero, the pieces' union (auto: "
           "winding; pseudonormals would be wrong near them)";
  }
  if (closed() && !consistently_oriented())
    return "sign exact by ray parity: closed, but " + std::to_string(inconsistent_edges) +
           " edges join triangles of opposite orientation (auto: parity; pseudonormals would be "
           "wrong; reorient to fix)";
  if (closed())
    return "sign exact by ray parity: closed but oriented inward, volume < 0 (auto: parity; "
           "reorient to flip it)";
  return "sign approximate near holes: " + std::to_string(boundary_edges) + " boundary and " +
         std::to_string(non_manifold_edges) +
         " non-manifold edges (auto: winding; answers near holes are marked unsure)";
}

const double* Pseudonormals::normal(std::size_t t, int feature) const {
  if (feature < 3) return &vertex[3 * std::size_t(welded[3 * t + std::size_t(feature)])];
  if (feature < 6) return &edge[9 * t + 3 * std::size_t(feature - 3)];
  return &face[3 * t];
}

namespace {

struct Topology {
  std::vector<std::uint32_t> welded;  // 3 per triangle
  std::size_t welded_count = 0;
  std::vector<Vec3d> points;          // per welded vertex
  std::vector<bool> proper;           // three distinct welded corners
  // Half-edges of proper triangles sorted by undirected key: (key, triangle*3 + k).
  std::vector<std::pair<std::uint64_t, std::uint32_t>> half;
};

template <class T>
Topology topology(const TriangleMesh<T>& mesh) {
  Topology g;
  const std::size_t nv = mesh.num_vertices(), nt = mesh.num_triangles();
  std::vector<std::uint32_t> order(nv);
  std::iota(order.begin(), order.end(), 0u);
  const auto& v = mesh.vertices();
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    for (int k = 0; k < 3; ++k)
      if (v[a][k] != v[b][k]) return v[a][k] < v[b][k];
    return a < b;
  });
  std::vector<std::uint32_t> id(nv);
  for (std::size_t i = 0; i < nv; ++i) {
    if (i == 0 || v[order[i]] != v[order[i - 1]]) {
      g.points.push_back(v[order[i]].template cast<double>());
      ++g.welded_count;
    }
    id[order[i]] = std::uint32_t(g.welded_count - 1);
  }
  g.welded.resize(3 * nt);
  g.proper.assign(nt, false);
  for (std::size_t t = 0; t < nt; ++t) {
    const auto& tri = mesh.triangles()[t];
    for (int k = 0; k < 3; ++k) g.welded[3 * t + std::size_t(k)] = id[tri[std::size_t(k)]];
    const std::uint32_t* w = &g.welded[3 * t];
    g.proper[t] = w[0] != w[1] && w[1] != w[2] && w[2] != w[0];
    if (!g.proper[t]) continue;
    for (int k = 0; k < 3; ++k) {
      const std::uint64_t a = w[k], b = w[(k + 1) % 3];
      g.half.push_back({a < b ? (a << 32) | b : (b << 32) | a, std::uint32_t(3 * t + std::size_t(k))});
    }
  }
  std::sort(g.half.begin(), g.half.end());
  return g;
}

Vec3d corner(const Topology& g, std::size_t t, int k) {
  return g.points[g.welded[3 * t + std::size_t(k)]];
}

// Direction of half-edge h = 3t + k: true when it runs from the smaller welded id.
bool forward(const Topology& g, std::uint32_t h) {
  const std::size_t t = h / 3;
  const int k = int(h % 3);
  return g.welded[3 * t + std::size_t(k)] < g.welded[3 * t + std::size_t((k + 1) % 3)];
}

struct UnionFind {
  std::vector<std::uint32_t> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  std::uint32_t find(std::uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

double signed_volume_of(const Topology& g, std::size_t t, const Vec3d& o) {
  const Vec3d a = corner(g, t, 0) - o, b = corner(g, t, 1) - o, c = corner(g, t, 2) - o;
  return dot(a, cross(b, c)) / 6.0;
}

Vec3d box_centre(const Topology& g) {
  if (g.points.empty()) return Vec3d::zero();
  Vec3d lo = g.points[0], hi = g.points[0];
  for (const Vec3d& p : g.points)
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], p[k]);
      hi[k] = std::max(hi[k], p[k]);
    }
  return (lo + hi) * 0.5;
}

// The sign of det[a - o, b - o, c - o]: a floating-point filter (Shewchuk's
// orient3d bound, 7.8e-16 of the permanent), then the exact determinant
// (prox/primitives/expansion.hpp). Where the exact path could over- or
// underflow, 0 and *unsure set.
int orient_sign(const Vec3d& o, const Vec3d& a, const Vec3d& b, const Vec3d& c, bool* unsure) {
  const double ax = a[0] - o[0], ay = a[1] - o[1], az = a[2] - o[2];
  const double bx = b[0] - o[0], by = b[1] - o[1], bz = b[2] - o[2];
  const double cx = c[0] - o[0], cy = c[1] - o[1], cz = c[2] - o[2];
  const double det = ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
  const double perm = std::fabs(ax) * (std::fabs(by * cz) + std::fabs(bz * cy)) +
                      std::fabs(ay) * (std::fabs(bz * cx) + std::fabs(bx * cz)) +
                      std::fabs(az) * (std::fabs(bx * cy) + std::fabs(by * cx));
  const double bound = 7.7715611723761027e-16 * perm;
  if (det > bound) return 1;
  if (-det > bound) return -1;
  if (!(perm == 0 || (perm >= 1e-250 && perm <= 1e250))) {
    *unsure = true;
    return 0;
  }
  double rows[3][3][2];
  const Vec3d* v[3] = {&a, &b, &c};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) detail::xp::two_sum((*v[i])[j], -o[j], rows[i][j][1], rows[i][j][0]);
  const double e = detail::xp::det3(rows);
  return e > 0 ? 1 : e < 0 ? -1 : 0;
}

// The exact sign of the 2D orientation of a, b, p seen along axis k (the
// coordinates k + 1 and k + 2): prox::planar's orient2d on the projections.
int orient2(const Vec3d& a, const Vec3d& b, const Vec3d& p, int k) {
  const int i = (k + 1) % 3, j = (k + 2) % 3;
  return planar::orient2d(Vec2d{a[i], a[j]}, Vec2d{b[i], b[j]}, Vec2d{p[i], p[j]});
}

// An axis along which triangle (a, b, c) projects to a proper triangle (its
// float normal's largest component first), or -1 (collinear corners).
int projection_axis(const Vec3d& a, const Vec3d& b, const Vec3d& c) {
  const Vec3d n = cross(b - a, c - a);
  int order[3] = {0, 1, 2};
  std::sort(order, order + 3, [&](int x, int y) { return std::fabs(n[x]) > std::fabs(n[y]); });
  for (const int k : order)
    if (orient2(a, b, c, k) != 0) return k;
  return -1;
}

// Whether p lies on the closed segment a-b, given that the three are
// collinear (seen along any axis: each coordinate between the ends').
bool between(const Vec3d& a, const Vec3d& b, const Vec3d& p) {
  for (int i = 0; i < 3; ++i)
    if (p[i] < std::min(a[i], b[i]) || p[i] > std::max(a[i], b[i])) return false;
  return true;
}

// Points, segments and triangles of one plane, seen along axis k (along which
// the triangles are proper), exactly; closed sets.
struct InPlane {
  int k;
  // t in triangle (x, y, z).
  bool inside(const Vec3d& t, const Vec3d& x, const Vec3d& y, const Vec3d& z) const {
    const int s1 = orient2(x, y, t, k), s2 = orient2(y, z, t, k), s3 = orient2(z, x, t, k);
    return !((s1 < 0 || s2 < 0 || s3 < 0) && (s1 > 0 || s2 > 0 || s3 > 0));
  }
  // Segments p-q and a-b.
  bool segments_meet(const Vec3d& p, const Vec3d& q, const Vec3d& a, const Vec3d& b) const {
    const int d1 = orient2(a, b, p, k), d2 = orient2(a, b, q, k), d3 = orient2(p, q, a, k),
              d4 = orient2(p, q, b, k);
    if (d1 * d2 < 0 && d3 * d4 < 0) return true;
    return (d1 == 0 && between(a, b, p)) || (d2 == 0 && between(a, b, q)) ||
           (d3 == 0 && between(p, q, a)) || (d4 == 0 && between(p, q, b));
  }
  // Segment p-q and the edges of triangle (x, y, z).
  bool crosses_edges(const Vec3d& p, const Vec3d& q, const Vec3d& x, const Vec3d& y,
                     const Vec3d& z) const {
    return segments_meet(p, q, x, y) || segments_meet(p, q, y, z) || segments_meet(p, q, z, x);
  }
  // Segment p-q and triangle (x, y, z).
  bool segment_meets(const Vec3d& p, const Vec3d& q, const Vec3d& x, const Vec3d& y,
                     const Vec3d& z) const {
    return inside(p, x, y, z) || inside(q, x, y, z) || crosses_edges(p, q, x, y, z);
  }
  // Triangles (p1, q1, r1) and (p2, q2, r2): a corner of one inside the
  // other, or two edges that meet.
  bool triangles_meet(const Vec3d& p1, const Vec3d& q1, const Vec3d& r1, const Vec3d& p2,
                      const Vec3d& q2, const Vec3d& r2) const {
    return inside(p1, p2, q2, r2) || inside(q1, p2, q2, r2) || inside(r1, p2, q2, r2) ||
           inside(p2, p1, q1, r1) || inside(q2, p1, q1, r1) || inside(r2, p1, q1, r1) ||
           crosses_edges(p1, q1, p2, q2, r2) || crosses_edges(q1, r1, p2, q2, r2) ||
           crosses_edges(r1, p1, p2, q2, r2);
  }
};

// Closed segment p-q against closed triangle (x, y, z), exactly.
bool segment_meets(const Vec3d& p, const Vec3d& q, const Vec3d& x, const Vec3d& y,
                   const Vec3d& z, bool* unsure) {
  const int sp = orient_sign(x, y, z, p, unsure), sq = orient_sign(x, y, z, q, unsure);
  if (sp * sq > 0) return false;
  if (sp == 0 && sq == 0) {
    const int k = projection_axis(x, y, z);
    return k < 0 || InPlane{k}.segment_meets(p, q, x, y, z);
  }
  // The segment reaches the plane at one point: on the triangle when the line
  // p-q passes the three edges on one side (or on them).
  const int e1 = orient_sign(p, q, x, y, unsure), e2 = orient_sign(p, q, y, z, unsure),
            e3 = orient_sign(p, q, z, x, unsure);
  return !((e1 < 0 || e2 < 0 || e3 < 0) && (e1 > 0 || e2 > 0 || e3 > 0));
}

// Whether triangles (p1, q1, r1) and (p2, q2, r2) meet (closed sets), by
// orientation signs only (Guigue & Devillers, "Fast and robust
// triangle-triangle overlap test using orientation predicates", 2003): each
// triangle's corners against the other's plane, then the two intervals on
// the planes' common line; a coplanar pair by its edges, in 2D. Conservative
// where it cannot decide: an orientation out of the exact path's range counts
// as meeting.
bool triangles_meet(Vec3d p1, Vec3d q1, Vec3d r1, Vec3d p2, Vec3d q2, Vec3d r2) {
  bool unsure = false;
  auto o = [&](const Vec3d& a, const Vec3d& b, const Vec3d& c, const Vec3d& d) {
    return orient_sign(a, b, c, d, &unsure);  // det[b - a, c - a, d - a]
  };
  // d*1: T1's corners against T2's plane; d*2: T2's against T1's.
  int dp1 = o(r2, p2, q2, p1), dq1 = o(r2, p2, q2, q1), dr1 = o(r2, p2, q2, r1);
  if (unsure) return true;
  if (dp1 * dq1 > 0 && dp1 * dr1 > 0) return false;
  int dp2 = o(r1, p1, q1, p2), dq2 = o(r1, p1, q1, q2), dr2 = o(r1, p1, q1, r2);
  if (unsure) return true;
  if (dp2 * dq2 > 0 && dp2 * dr2 > 0) return false;
  if (dp1 == 0 && dq1 == 0 && dr1 == 0) {
    // In one plane: they meet where an edge of one meets the other (which
    // also finds one inside the other), seen along an axis where both are
    // proper. Before stop 43 every coplanar pair whose boxes met counted, so
    // a flat face tessellated into a grid was reported as passing through
    // itself (and lost the pseudonormal).
    const int k = projection_axis(p1, q1, r1);
    return k < 0 || InPlane{k}.triangles_meet(p1, q1, r1, p2, q2, r2);
  }
  // The two intervals on the common line overlap (corners in the canonical
  // order: p1 alone on its side of T2's plane, p2 alone on its side of T1's).
  auto check = [&](const Vec3d& a1, const Vec3d& b1, const Vec3d& c1, const Vec3d& a2,
                   const Vec3d& b2, const Vec3d& c2) {
    if (o(b1, a2, a1, b2) > 0) return false;
    if (o(a1, a2, c1, c2) > 0) return false;
    return true;
  };
  auto tri2 = [&](const Vec3d& a1, const Vec3d& b1, const Vec3d& c1, const Vec3d& a2,
                  const Vec3d& b2, const Vec3d& c2, int da, int db, int dc) {
    if (da > 0) {
      if (db > 0) return check(a1, c1, b1, c2, a2, b2);
      if (dc > 0) return check(a1, c1, b1, b2, c2, a2);
      return check(a1, b1, c1, a2, b2, c2);
    }
    if (da < 0) {
      if (db < 0) return check(a1, b1, c1, c2, a2, b2);
      if (dc < 0) return check(a1, b1, c1, b2, c2, a2);
      return check(a1, c1, b1, a2, b2, c2);
    }
    if (db < 0) {
      if (dc >= 0) return check(a1, c1, b1, b2, c2, a2);
      return check(a1, b1, c1, a2, b2, c2);
    }
    if (db > 0) {
      if (dc > 0) return check(a1, c1, b1, a2, b2, c2);
      return check(a1, b1, c1, b2, c2, a2);
    }
    if (dc > 0) return check(a1, b1, c1, c2, a2, b2);
    if (dc < 0) return check(a1, c1, b1, c2, a2, b2);
    return true;  // coplanar (not reached: caught above)
  };
  bool meet;
  if (dp1 > 0) {
    if (dq1 > 0) meet = tri2(r1, p1, q1, p2, r2, q2, dp2, dr2, dq2);
    else if (dr1 > 0) meet = tri2(q1, r1, p1, p2, r2, q2, dp2, dr2, dq2);
    else meet = tri2(p1, q1, r1, p2, q2, r2, dp2, dq2, dr2);
  } else if (dp1 < 0) {
    if (dq1 < 0) meet = tri2(r1, p1, q1, p2, q2, r2, dp2, dq2, dr2);
    else if (dr1 < 0) meet = tri2(q1, r1, p1, p2, q2, r2, dp2, dq2, dr2);
    else meet = tri2(p1, q1, r1, p2, r2, q2, dp2, dr2, dq2);
  } else if (dq1 < 0) {
    if (dr1 >= 0) meet = tri2(q1, r1, p1, p2, r2, q2, dp2, dr2, dq2);
    else meet = tri2(p1, q1, r1, p2, q2, r2, dp2, dq2, dr2);
  } else if (dq1 > 0) {
    if (dr1 > 0) meet = tri2(p1, q1, r1, p2, r2, q2, dp2, dr2, dq2);
    else meet = tri2(q1, r1, p1, p2, q2, r2, dp2, dq2, dr2);
  } else if (dr1 > 0) {
    meet = tri2(r1, p1, q1, p2, q2, r2, dp2, dq2, dr2);
  } else {
    meet = tri2(r1, p1, q1, p2, r2, q2, dp2, dr2, dq2);
  }
  return meet || unsure;
}

// Whether triangles (v, a, b) and (v, c, d), which share the corner v, meet
// anywhere else (a fold through a shared vertex). Their intersection is
// convex and holds v; if it holds another point, the far end of the segment
// from v through that point lies on an edge of one triangle, inside the
// other: on a-b or c-d (a segment against a triangle), or on an edge from v,
// which then lies in the other's plane and runs into its corner at v.
bool folded_at_vertex(const Vec3d& v, const Vec3d& a, const Vec3d& b, const Vec3d& c,
                      const Vec3d& d) {
  bool unsure = false;
  if (segment_meets(a, b, v, c, d, &unsure) || segment_meets(c, d, v, a, b, &unsure)) return true;
  // An edge v-e of one triangle into the other's corner at v (x, y its ends).
  auto into_corner = [&](const Vec3d& e, const Vec3d& x, const Vec3d& y) {
    if (orient_sign(v, x, y, e, &unsure) != 0) return false;
    const int k = projection_axis(v, x, y);
    if (k < 0) return true;
    const int s = orient2(v, x, y, k);
    return orient2(v, x, e, k) * s >= 0 && orient2(v, e, y, k) * s >= 0;
  };
  return into_corner(a, c, d) || into_corner(b, c, d) || into_corner(c, a, b) ||
         into_corner(d, a, b) || unsure;
}

// Whether triangles (u, v, a) and (u, v, b), which share the edge u-v, meet
// anywhere else: only when they lie in one plane on the same side of it (a
// fold flat onto itself); otherwise their intersection is the edge.
bool folded_at_edge(const Vec3d& u, const Vec3d& v, const Vec3d& a, const Vec3d& b) {
  bool unsure = false;
  if (orient_sign(u, v, a, b, &unsure) != 0) return unsure;
  const int k = projection_axis(u, v, a);
  if (k < 0) return true;
  return orient2(u, v, a, k) * orient2(u, v, b, k) > 0 || unsure;
}

// Node test of a box query: the children whose box meets the query box
// (closed boxes; the query's float box rounded outward, so no child holding a
// meeting triangle is culled; an unused slot's box is empty). No order.
struct BoxOverlapTest {
  static constexpr bool kUnordered = true;
  simd::F8 lo[3], hi[3];
  BoxOverlapTest(const Vec3d& l, const Vec3d& h) {
    for (int a = 0; a < 3; ++a) {
      lo[a] = simd::set8(bvh::float_down(l[a]));
      hi[a] = simd::set8(bvh::float_up(h[a]));
    }
  }
  float limit() const { return std::numeric_limits<float>::infinity(); }
  unsigned children(const bvh::Node8& n, float* key) {
    using namespace simd;
    F8 keep = le8(set8(0.0f), set8(0.0f));  // all lanes
    for (int a = 0; a < 3; ++a)
      keep = and8(keep, and8(le8(load8(n.lo[a]), hi[a]), le8(lo[a], load8(n.hi[a]))));
    store8(key, set8(0.0f));
    return movemask8(keep);
  }
};

// Calls f(u) for every triangle u of x whose box meets [lo, hi] (closed
// boxes): the shared traversal loop with BoxOverlapTest prunes, the
// triangle's own box from its corners decides.
template <class T, class F>
void for_each_box_overlap(const FlatIndex<T>& x, const Vec3d& lo, const Vec3d& hi, F&& f) {
  BoxOverlapTest test(lo, hi);
  bvh::traverse(x.nodes, test, [&](std::uint32_t first, std::uint32_t count) {
    for (std::uint32_t s = first; s < first + count; ++s) {
      const std::uint32_t u = x.prims[s];
      if (u == bvh::kInvalid) continue;
      bool tri_meets = true;
      for (int a = 0; a < 3; ++a) {
        const double c0 = double(x.corner(s, 0)[a]), c1 = double(x.corner(s, 1)[a]),
                     c2 = double(x.corner(s, 2)[a]);
        tri_meets = tri_meets && std::min({c0, c1, c2}) <= hi[a] && lo[a] <= std::max({c0, c1, c2});
      }
      if (tri_meets) f(u);
    }
    return false;
  });
}

// Whether proper triangles t (corners ct) and u meet. Two of one piece
// (same_piece) that share welded corners meet there by construction, so they
// count only where they also meet beyond them (folded_at_vertex,
// folded_at_edge); three shared corners are a duplicate, counted as such.
// Any other pair counts wherever it meets (two pieces touching at a corner
// do meet).
bool pair_meets(const Topology& g, std::size_t t, const Vec3d (&ct)[3], std::size_t u,
                bool same_piece) {
  const Vec3d cu[3] = {corner(g, u, 0), corner(g, u, 1), corner(g, u, 2)};
  if (same_piece) {
    const std::uint32_t* wt = &g.welded[3 * t];
    const std::uint32_t* wu = &g.welded[3 * u];
    int pt[3], pu[3], shared = 0;  // the shared corners' places in t and in u
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q)
        if (wt[p] == wu[q]) {
          pt[shared] = p;
          pu[shared] = q;
          ++shared;
        }
    if (shared >= 3) return false;
    if (shared == 1)
      return folded_at_vertex(ct[pt[0]], ct[(pt[0] + 1) % 3], ct[(pt[0] + 2) % 3],
                              cu[(pu[0] + 1) % 3], cu[(pu[0] + 2) % 3]);
    if (shared == 2)
      return folded_at_edge(ct[pt[0]], ct[pt[1]], ct[3 - pt[0] - pt[1]], cu[3 - pu[0] - pu[1]]);
  }
  return triangles_meet(ct[0], ct[1], ct[2], cu[0], cu[1], cu[2]);
}

// Calls meet(c, cu) (c, cu: the pieces, piece_of(t)) for pairs of proper
// triangles t < u whose boxes meet and that meet (pair_meets); in parallel (blocks of
// triangles, results merged in block order, so the calls are the same for
// any thread count). The boxes come from `given`, an index over the mesh's
// own triangles (SignedMesh's, the CLI's), or else from an index built here
// over the welded proper triangles. Either finds every pair whose boxes meet:
// a node's float box holds its triangles' exact boxes, and the leaf tests each
// triangle's box from its corners, which welding does not move.
template <class T, class PieceOf, class Meet>
void find_meeting_pairs(const Topology& g, const MeshIndex<T>* given, PieceOf&& piece_of,
                        Meet&& meet) {
  const std::size_t nt = g.proper.size();
  std::vector<std::uint32_t> source;  // the proper triangles (and the built index's order)
  for (std::size_t t = 0; t < nt; ++t)
    if (g.proper[t]) source.push_back(std::uint32_t(t));
  if (source.empty()) return;
  std::optional<MeshIndex<double>> own;
  if (given == nullptr) {
    std::vector<std::array<std::uint32_t, 3>> tris;
    tris.reserve(source.size());
    for (const std::uint32_t t : source)
      tris.push_back({g.welded[3 * t], g.welded[3 * t + 1], g.welded[3 * t + 2]});
    own.emplace(TriangleMesh<double>(g.points, std::move(tris)));
  }
  const FlatIndex<T> given_x = given != nullptr ? given->layout() : FlatIndex<T>{};
  const FlatIndex<double> own_x = own ? own->layout() : FlatIndex<double>{};
  // Calls f(u) for each proper triangle u whose box meets [lo, hi].
  auto each_overlap = [&](const Vec3d& lo, const Vec3d& hi, auto&& f) {
    if (given != nullptr) {
      for_each_box_overlap(given_x, lo, hi, [&](std::uint32_t u) {
        if (g.proper[u]) f(u);
      });
    } else {
      for_each_box_overlap(own_x, lo, hi, [&](std::uint32_t j) { f(source[j]); });
    }
  };
  constexpr std::size_t kBlock = 1024;
  const std::size_t blocks = (source.size() + kBlock - 1) / kBlock;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> found(blocks);
  BatchOptions options;
  options.grain = 1;
  batch_for_each(blocks, options, [&](std::size_t blk) {
    for (std::size_t i = blk * kBlock; i < std::min(source.size(), (blk + 1) * kBlock); ++i) {
      const std::size_t t = source[i];
      const std::uint32_t c = piece_of(t);
      const Vec3d a = corner(g, t, 0), b = corner(g, t, 1), e = corner(g, t, 2);
      Vec3d lo = a, hi = a;
      for (const Vec3d* p : {&b, &e})
        for (int k = 0; k < 3; ++k) {
          lo[k] = std::min(lo[k], (*p)[k]);
          hi[k] = std::max(hi[k], (*p)[k]);
        }
      const Vec3d ct[3] = {a, b, e};
      each_overlap(lo, hi, [&](std::uint32_t u) {
        if (u <= t) return;
        const std::uint32_t cu = piece_of(u);
        if (pair_meets(g, t, ct, u, cu == c)) found[blk].push_back({c, cu});
      });
    }
  });
  for (const auto& f : found)
    for (const auto& [c, cu] : f) meet(c, cu);
}

// diagnose, with the boxes of `boxes` (an index over `mesh`) when given.
template <class T>
MeshDiagnostics diagnose_with(const TriangleMesh<T>& mesh, const MeshIndex<T>* boxes) {
  MeshDiagnostics d;
  const Topology g = topology(mesh);
  const std::size_t nt = mesh.num_triangles();
  d.triangles = nt;
  {
    std::vector<bool> used(g.welded_count, false);
    for (std::uint32_t w : g.welded) used[w] = true;
    d.welded_vertices = std::size_t(std::count(used.begin(), used.end(), true));
  }
  const Vec3d o = box_centre(g);
  // Degenerate triangles, area, volume, plane.
  Vec3d plane_n = Vec3d::zero(), plane_p = Vec3d::zero();
  double diag = 0;
  if (!g.points.empty()) {
    Vec3d lo = g.points[0], hi = g.points[0];
    for (const Vec3d& p : g.points)
      for (int k = 0; k < 3; ++k) {
        lo[k] = std::min(lo[k], p[k]);
        hi[k] = std::max(hi[k], p[k]);
      }
    diag = std::sqrt(squared_norm(hi - lo));
  }
  for (std::size_t t = 0; t < nt; ++t) {
    const Vec3d a = corner(g, t, 0), b = corner(g, t, 1), c = corner(g, t, 2);
    const Vec3d n = cross(b - a, c - a);
    const double len = std::sqrt(squared_norm(n));
    if (!g.proper[t] || len == 0) {
      ++d.degenerate_triangles;
      continue;
    }
    d.area += 0.5 * len;
    d.volume += signed_volume_of(g, t, o);
    if (plane_n == Vec3d::zero()) {
      plane_n = n / len;
      plane_p = a;
    }
  }
  if (plane_n != Vec3d::zero()) {
    const double tol = 1e-12 * diag;
    for (std::size_t t = 0; t < nt && d.planar; ++t) {
      if (!g.proper[t]) continue;
      for (int k = 0; k < 3; ++k)
        if (std::abs(dot(corner(g, t, k) - plane_p, plane_n)) > tol) d.planar = false;
    }
  }
  // Duplicates: sorted welded triples.
  {
    std::vector<std::array<std::uint32_t, 3>> keys;
    for (std::size_t t = 0; t < nt; ++t) {
      if (!g.proper[t]) continue;
      std::array<std::uint32_t, 3> k{g.welded[3 * t], g.welded[3 * t + 1], g.welded[3 * t + 2]};
      std::sort(k.begin(), k.end());
      keys.push_back(k);
    }
    std::sort(keys.begin(), keys.end());
    for (std::size_t i = 1; i < keys.size(); ++i)
      if (keys[i] == keys[i - 1]) ++d.duplicate_triangles;
  }
  // Edges, orientation, components.
  UnionFind uf(nt);
  for (std::size_t i = 0; i < g.half.size();) {
    std::size_t j = i + 1;
    while (j < g.half.size() && g.half[j].first == g.half[i].first) ++j;
    ++d.edges;
    const std::size_t uses = j - i;
    if (uses == 1) ++d.boundary_edges;
    if (uses >= 3) ++d.non_manifold_edges;
    if (uses == 2 && forward(g, g.half[i].second) == forward(g, g.half[i + 1].second))
      ++d.inconsistent_edges;
    for (std::size_t k = i + 1; k < j; ++k) uf.join(g.half[i].second / 3, g.half[k].second / 3);
    i = j;
  }
  for (std::size_t t = 0; t < nt; ++t)
    if (g.proper[t] && uf.find(std::uint32_t(t)) == t) ++d.components;
  // Pieces that face inward or may nest or cross (closed meshes only: what
  // the pseudonormal method needs, see MeshDiagnostics::suits_pseudonormal).
  if (!d.closed()) return d;
  if (d.components == 1) {
    d.inward_components = d.volume < 0 ? 1 : 0;
    d.misnested_components = d.inward_components;
    bool self = false;
    find_meeting_pairs(g, boxes, [](std::size_t) { return 0u; },
                       [&](std::uint32_t, std::uint32_t) { self = true; });
    d.self_intersecting_components = self ? 1 : 0;
  } else if (d.components > 1) {
    // Each piece's signed volume and box (proper triangles: a degenerate one
    // joins no piece).
    std::vector<std::uint32_t> index(nt, std::uint32_t(-1));
    std::vector<double> volume, magnitude;
    std::vector<Vec3d> lo, hi;
    for (std::size_t t = 0; t < nt; ++t) {
      if (!g.proper[t]) continue;
      const std::uint32_t root = uf.find(std::uint32_t(t));
      if (index[root] == std::uint32_t(-1)) {
        index[root] = std::uint32_t(volume.size());
        volume.push_back(0.0);
        magnitude.push_back(0.0);
        lo.push_back(corner(g, t, 0));
        hi.push_back(corner(g, t, 0));
      }
      const std::uint32_t c = index[root];
      for (int k = 0; k < 3; ++k) {
        const Vec3d p = corner(g, t, k);
        for (int a = 0; a < 3; ++a) {
          lo[c][a] = std::min(lo[c][a], p[a]);
          hi[c][a] = std::max(hi[c][a], p[a]);
        }
      }
    }
    // Each piece's volume about its own box centre (about the mesh's, a thin
    // part far from it drowns in the cancellation); its sign is trusted where
    // it exceeds 2^-30 of the terms' magnitudes summed (else: misnested, below).
    for (std::size_t t = 0; t < nt; ++t) {
      if (!g.proper[t]) continue;
      const std::uint32_t c = index[uf.find(std::uint32_t(t))];
      const double v = signed_volume_of(g, t, (lo[c] + hi[c]) * 0.5);
      volume[c] += v;
      magnitude[c] += std::abs(v);
    }
    for (std::size_t c = 0; c < volume.size(); ++c) {
      d.inward_components += volume[c] < 0 ? 1 : 0;
      if (!(std::abs(volume[c]) > 0x1p-30 * magnitude[c])) volume[c] = 0;  // orientation unknown
    }
    // Boxes that meet (touching counts): sorted by their low x, each box
    // against the later ones until their low x passes its high x.
    std::vector<std::uint32_t> order(volume.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return lo[a][0] < lo[b][0] || (lo[a][0] == lo[b][0] && a < b);
    });
    // Past 10^8 pairs looked at (many pieces in one slab of x), the rest
    // count as meeting: the answer only errs towards winding, never towards
    // the pseudonormal.
    std::vector<std::uint8_t> meets(volume.size(), 0);
    std::size_t looked = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::uint32_t a = order[i];
      if (looked > 100000000) {
        meets[a] = 1;
        continue;
      }
      for (std::size_t j = i + 1; j < order.size() && lo[order[j]][0] <= hi[a][0]; ++j) {
        ++looked;
        const std::uint32_t b = order[j];
        if (lo[b][1] <= hi[a][1] && lo[a][1] <= hi[b][1] && lo[b][2] <= hi[a][2] &&
            lo[a][2] <= hi[b][2])
          meets[a] = meets[b] = 1;
      }
    }
    for (const std::uint8_t m : meets) d.overlapping_components += m;
    const std::size_t pieces = volume.size();
    auto piece_of = [&](std::size_t t) { return index[uf.find(std::uint32_t(t))]; };
    // Crossing pieces, and pieces that pass through themselves: every pair
    // of triangles whose boxes meet, tested exactly (pair_meets: two
    // triangles of one piece that share corners only beyond them).
    std::vector<std::uint8_t> crossing(pieces, 0), self(pieces, 0);
    find_meeting_pairs(g, boxes, piece_of, [&](std::uint32_t c, std::uint32_t cu) {
      if (c == cu) self[c] = 1;
      else crossing[c] = crossing[cu] = 1;
    });
    for (const std::uint8_t x : self) d.self_intersecting_components += x;
    for (const std::uint8_t x : crossing) d.crossing_components += x;
    // Nesting, for pieces that cross no other: w, the other pieces' winding
    // numbers summed at a point of the piece (the centroid of its first
    // triangle; only pieces whose box holds it contribute, the others give
    // 0), must be 0 for an outward piece and 1 for an inward one. A piece
    // that crosses another has no one w (d.crossing_components rules the
    // pseudonormal out already).
    std::vector<Vec3d> probe(pieces);
    std::vector<std::uint8_t> probed(pieces, 0);
    std::vector<std::vector<std::uint32_t>> members(pieces);
    for (std::size_t t = 0; t < nt; ++t) {
      if (!g.proper[t]) continue;
      const std::uint32_t c = piece_of(t);
      members[c].push_back(std::uint32_t(t));
      if (!probed[c]) {
        probe[c] = (corner(g, t, 0) + corner(g, t, 1) + corner(g, t, 2)) / 3.0;
        probed[c] = 1;
      }
    }
    double work = 0;  // triangle solid angles summed; past 5e7 a piece counts as misnested
    for (std::size_t c = 0; c < pieces; ++c) {
      if (crossing[c] || self[c]) continue;
      double w = 0;
      bool known = true;
      for (std::size_t e = 0; e < pieces && known; ++e) {
        if (e == c) continue;
        bool inside_box = true;
        for (int a = 0; a < 3; ++a)
          inside_box = inside_box && lo[e][a] <= probe[c][a] && probe[c][a] <= hi[e][a];
        if (!inside_box) continue;
        work += double(members[e].size());
        if (work > 5e7) {
          known = false;
          break;
        }
        for (const std::uint32_t t : members[e])
          w += triangle_solid_angle(probe[c], corner(g, t, 0), corner(g, t, 1), corner(g, t, 2));
      }
      w *= inverse_four_pi<double>();
      const double k = std::nearbyint(w);
      const bool integral = known && std::abs(w - k) < 0.25;
      const bool fits = integral && ((volume[c] > 0 && k == 0) || (volume[c] < 0 && k == 1));
      if (!fits) ++d.misnested_components;
    }
  }
  return d;
}

}  // namespace

template <class T>
MeshDiagnostics diagnose(const TriangleMesh<T>& mesh) {
  return diagnose_with(mesh, static_cast<const MeshIndex<T>*>(nullptr));
}

template <class T>
MeshDiagnostics diagnose(const MeshIndex<T>& index) {
  return diagnose_with(index.mesh(), &index);
}

template <class T>
Pseudonormals pseudonormals(const TriangleMesh<T>& mesh) {
  const Topology g = topology(mesh);
  const std::size_t nt = mesh.num_triangles();
  Pseudonormals p;
  p.welded = g.welded;
  p.vertex.assign(3 * g.welded_count, 0.0);
  p.edge.assign(9 * nt, 0.0);
  p.face.assign(3 * nt, 0.0);
  for (std::size_t t = 0; t < nt; ++t) {
    if (!g.proper[t]) continue;
    const Vec3d c[3] = {corner(g, t, 0), corner(g, t, 1), corner(g, t, 2)};
    const Vec3d n = cross(c[1] - c[0], c[2] - c[0]);
    const double len = std::sqrt(squared_norm(n));
    if (len == 0) continue;
    const Vec3d u = n / len;
    for (int a = 0; a < 3; ++a) p.face[3 * t + std::size_t(a)] = u[a];
    for (int k = 0; k < 3; ++k) {
      const Vec3d e1 = c[(k + 1) % 3] - c[k], e2 = c[(k + 2) % 3] - c[k];
      const double l1 = std::sqrt(squared_norm(e1)), l2 = std::sqrt(squared_norm(e2));
      const double cosine = std::clamp(dot(e1, e2) / (l1 * l2), -1.0, 1.0);
      const double angle = std::acos(cosine);
      double* vn = &p.vertex[3 * std::size_t(g.welded[3 * t + std::size_t(k)])];
      for (int a = 0; a < 3; ++a) vn[a] += angle * u[a];
    }
  }
  // Edge normals: the sum of the unit normals of every triangle on the edge.
  for (std::size_t i = 0; i < g.half.size();) {
    std::size_t j = i + 1;
    while (j < g.half.size() && g.half[j].first == g.half[i].first) ++j;
    double sum[3] = {0, 0, 0};
    for (std::size_t k = i; k < j; ++k)
      for (int a = 0; a < 3; ++a) sum[a] += p.face[3 * (g.half[k].second / 3) + std::size_t(a)];
    for (std::size_t k = i; k < j; ++k)
      for (int a = 0; a < 3; ++a) p.edge[3 * std::size_t(g.half[k].second) + std::size_t(a)] = sum[a];
    i = j;
  }
  return p;
}

template <class T>
Reoriented<T> reorient(const TriangleMesh<T>& mesh) {
  const Topology g = topology(mesh);
  const std::size_t nt = mesh.num_triangles();
  std::vector<std::uint8_t> flip(nt, 0), seen(nt, 0);
  std::vector<std::uint32_t> piece(nt, std::uint32_t(-1));
  // Neighbours through two-triangle edges: for half-edge h, its partner.
  std::vector<std::uint32_t> partner(3 * nt, std::uint32_t(-1));
  for (std::size_t i = 0; i < g.half.size();) {
    std::size_t j = i + 1;
    while (j < g.half.size() && g.half[j].first == g.half[i].first) ++j;
    if (j - i == 2) {
      partner[g.half[i].second] = g.half[i + 1].second;
      partner[g.half[i + 1].second] = g.half[i].second;
    }
    i = j;
  }
  Reoriented<T> r;
  std::vector<std::uint32_t> pieces;  // first triangle of each piece
  std::deque<std::uint32_t> queue;
  for (std::size_t s = 0; s < nt; ++s) {
    if (seen[s] || !g.proper[s]) continue;
    const std::uint32_t id = std::uint32_t(pieces.size());
    pieces.push_back(std::uint32_t(s));
    seen[s] = 1;
    piece[s] = id;
    queue.push_back(std::uint32_t(s));
    while (!queue.empty()) {
      const std::uint32_t t = queue.front();
      queue.pop_front();
      for (int k = 0; k < 3; ++k) {
        const std::uint32_t h = partner[3 * t + std::uint32_t(k)];
        if (h == std::uint32_t(-1)) continue;
        const std::uint32_t u = h / 3;
        // Consistent when the two run the shared edge in opposite directions.
        const bool same = forward(g, 3 * t + std::uint32_t(k)) == forward(g, h);
        const std::uint8_t want = std::uint8_t(flip[t] ^ (same ? 1 : 0));
        if (!seen[u]) {
          seen[u] = 1;
          flip[u] = want;
          piece[u] = id;
          queue.push_back(u);
        } else if (flip[u] != want && t < u) {
          ++r.conflicts;
        }
      }
    }
  }
  // Each piece's volume with the flips applied, and whether it is closed.
  const Vec3d o = box_centre(g);
  std::vector<double> volume(pieces.size(), 0.0);
  std::vector<std::uint8_t> open(pieces.size(), 0);
  for (std::size_t t = 0; t < nt; ++t) {
    if (piece[t] == std::uint32_t(-1)) continue;
    const double v = signed_volume_of(g, t, o);
    volume[piece[t]] += flip[t] ? -v : v;
    for (int k = 0; k < 3; ++k)
      if (partner[3 * t + std::size_t(k)] == std::uint32_t(-1)) open[piece[t]] = 1;
  }
  // Nesting: how many other closed pieces hold piece c (exact winding number of
  // their triangles at a point of c). Quadratic in pieces: only when affordable.
  std::vector<std::uint32_t> depth(pieces.size(), 0);
  if (pieces.size() > 1 && double(pieces.size()) * double(nt) <= 5e7) {
    std::vector<Vec3d> probe(pieces.size());
    for (std::size_t c = 0; c < pieces.size(); ++c) {
      const std::size_t t = pieces[c];
      probe[c] = (corner(g, t, 0) + corner(g, t, 1) + corner(g, t, 2)) / 3.0;
    }
    std::vector<std::vector<double>> w(pieces.size(), std::vector<double>(pieces.size(), 0.0));
    for (std::size_t t = 0; t < nt; ++t) {
      if (piece[t] == std::uint32_t(-1) || open[piece[t]]) continue;
      for (std::size_t c = 0; c < pieces.size(); ++c) {
        if (c == piece[t]) continue;
        w[c][piece[t]] += triangle_solid_angle(probe[c], corner(g, t, 0), corner(g, t, 1),
                                               corner(g, t, 2));
      }
    }
    for (std::size_t c = 0; c < pieces.size(); ++c)
      for (std::size_t d = 0; d < pieces.size(); ++d)
        if (d != c && std::abs(w[c][d] * inverse_four_pi<double>()) >= 0.5) ++depth[c];
  }
  std::vector<typename TriangleMesh<T>::Triangle> tris = mesh.triangles();
  for (std::size_t t = 0; t < nt; ++t) {
    if (piece[t] == std::uint32_t(-1)) continue;
    const std::uint32_t c = piece[t];
    const bool inward = depth[c] % 2 == 1;
    const bool turn = (volume[c] < 0) != inward;  // open pieces: by their volume too
    if (flip[t] ^ std::uint8_t(turn ? 1 : 0)) {
      std::swap(tris[t][1], tris[t][2]);
      ++r.flipped;
    }
  }
  r.mesh = TriangleMesh<T>(mesh.vertices(), std::move(tris));
  return r;
}

template MeshDiagnostics diagnose<float>(const TriangleMesh<float>&);
template MeshDiagnostics diagnose<double>(const TriangleMesh<double>&);
template MeshDiagnostics diagnose<float>(const MeshIndex<float>&);
template MeshDiagnostics diagnose<double>(const MeshIndex<double>&);
template Pseudonormals pseudonormals<float>(const TriangleMesh<float>&);
template Pseudonormals pseudonormals<double>(const TriangleMesh<double>&);
template Reoriented<float> reorient<float>(const TriangleMesh<float>&);
template Reoriented<double> reorient<double>(const TriangleMesh<double>&);

}  // namespace prox
