// prox/mesh/diagnostics.hpp — what a mesh says about its own inside: closed,
// manifold, consistently oriented, outward, components, duplicates, degenerate
// triangles, area and volume; the sign method they call for; reorientation.
//
// Computed once per mesh (O(n log n), sort-based, no hashing: the same result on
// every platform). Vertices are welded by exact position first, so a triangle
// soup (every triangle with its own corners, as STL stores them) has the
// topology of the surface it draws. Definitions:
// - edge: an unordered pair of welded vertices of a triangle whose three welded
//   corners differ; boundary: used by one triangle; non-manifold: by three or more.
// - closed: at least one edge, no boundary and no non-manifold edge.
// - inconsistent edge: a two-triangle edge that both triangles run in the same
//   direction (one of them is flipped); consistently oriented: none.
// - components: triangles joined through shared edges (degenerate ones apart).
// - degenerate: a repeated welded corner or a zero cross product (in double);
//   duplicate: a triangle over the same three welded corners as an earlier one
//   (either orientation), counted once per extra copy.
// - volume: signed, sum of a.(b x c)/6 about the box centre (in double): > 0 for
//   a closed mesh whose normals (b-a)x(c-a) point out. area: the total.
// - has_inside: some triangle has area and they do not all lie in one plane
//   (a point cloud, a polyline or a flat sheet has no inside to sign against).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "prox/mesh/triangle_mesh.hpp"

namespace prox {

/// How the inside of a mesh is decided (prox/mesh/sign.hpp).
enum class SignMethod : std::uint8_t {
  automatic,     ///< chosen from the mesh's diagnostics (MeshDiagnostics::recommended_method)
  winding,       ///< generalized winding number, |w| >= 1/2 inside (robust to holes, soups, flips)
  pseudonormal,  ///< angle-weighted pseudonormal at the closest feature (closed, oriented meshes)
  parity,        ///< ray-crossing parity, several rays, majority (closed meshes, any orientation)
  none,          ///< no method applies: the mesh has no inside
};

/// "auto", "winding", "pseudonormal", "parity", "none".
std::string_view to_string(SignMethod m);
/// Parses the names above; throws std::invalid_argument naming the bad name.
SignMethod parse_sign_method(std::string_view name);

struct MeshDiagnostics {
  std::size_t triangles = 0;             ///< as given
  std::size_t welded_vertices = 0;       ///< distinct positions used by triangles
  std::size_t degenerate_triangles = 0;  ///< repeated welded corner or zero area
  std::size_t duplicate_triangles = 0;   ///< extra copies over the same three corners
  std::size_t edges = 0;                 ///< distinct welded edges
  std::size_t boundary_edges = 0;        ///< used by one triangle
  std::size_t non_manifold_edges = 0;    ///< used by three or more
  std::size_t inconsistent_edges = 0;    ///< two triangles run it the same way
  std::size_t components = 0;            ///< edge-connected pieces
  /// Pieces whose own signed volume is negative (facing inward: a cavity's
  /// shell, or a piece turned inside out); with one piece, volume < 0.
  std::size_t inward_components = 0;
  /// Pieces whose bounding box meets another piece's (closed boxes): pieces
  /// that may hold or cross one another. Disjoint boxes rule both out.
  std::size_t overlapping_components = 0;
  /// Pieces with a triangle that meets a triangle of another piece (exact
  /// orientation predicates, in 3D and, for a pair in one plane, in 2D;
  /// touching counts): two parts pushed into each other.
  std::size_t crossing_components = 0;
  /// Pieces that pass through themselves: two of their triangles meet
  /// (exactly, as above) where they share no corner, or meet beyond the
  /// corners they share (a fold through a shared vertex, or two triangles
  /// on one edge folded flat onto each other).
  std::size_t self_intersecting_components = 0;
  /// Pieces whose orientation does not fit how they nest: with w the sum of
  /// the other pieces' winding numbers along the piece (0 or 1 where the
  /// solid is well formed), an outward piece needs w = 0 and an inward one
  /// (a cavity's shell) w = 1; anything else (a piece turned inside out, a
  /// ball inside a ball of the same orientation) makes the winding number 2
  /// or -1 somewhere. Counted for pieces that cross no other; past a work
  /// cap, or where w is not clearly an integer, a piece counts as misnested.
  std::size_t misnested_components = 0;
  double area = 0;                       ///< total area
  double volume = 0;                     ///< signed volume (meaningful when closed)
  bool planar = true;                    ///< every triangle with area in one plane (or none)

  bool closed() const { return edges > 0 && boundary_edges == 0 && non_manifold_edges == 0; }
  bool manifold() const { return non_manifold_edges == 0; }
  bool consistently_oriented() const { return inconsistent_edges == 0; }
  bool outward() const { return volume > 0; }
  bool has_inside() const { return area > 0 && !planar; }
  /// Whether the pseudonormal sign holds: closed, consistently oriented, and
  /// no two pieces crossing, every piece oriented as it nests (outward, or
  /// inward inside one other: a cavity), so that the winding number is 0 or 1
  /// everywhere (Bærentzen & Aanæs's theorem needs a surface that bounds a
  /// solid). Crossing pieces (two parts of a model pushed into each other), a
  /// piece turned inside out, or a ball inside a ball of the same orientation
  /// break it, and so does a piece that passes through itself: near them the
  /// nearest surface's normal faces the wrong way.
  bool suits_pseudonormal() const {
    return closed() && consistently_oriented() && outward() && crossing_components == 0 &&
           self_intersecting_components == 0 && misnested_components == 0;
  }
  /// What `auto` picks: none without an inside; pseudonormal where it holds
  /// (suits_pseudonormal: exact and cheapest); winding for any other closed,
  /// consistently oriented mesh of several pieces (nested, crossing or inward
  /// pieces: inside is where the pieces' winding numbers sum to non-zero, their
  /// union; exact, as w is an integer off the surface); parity for any other
  /// closed mesh (exact whatever the orientation); winding otherwise (open,
  /// non-manifold, soups: degrades gracefully, says unsure near holes).
  SignMethod recommended_method() const;
  /// One line on how reliable a sign is on this mesh, naming the method auto picks.
  std::string verdict() const;
};

/// Diagnostics of a mesh (computed in double whatever T is).
template <class T>
MeshDiagnostics diagnose(const TriangleMesh<T>& mesh);

template <class T>
class MeshIndex;
/// Diagnostics of index.mesh(), the same as diagnose(index.mesh()): the
/// crossing and self-intersection checks walk this index's boxes instead of
/// building an index of their own (about 15 ms on a 75k-triangle mesh).
template <class T>
MeshDiagnostics diagnose(const MeshIndex<T>& index);

/// The data the pseudonormal method needs, per mesh (Bærentzen & Aanæs 2005):
/// angle-weighted vertex normals, edge normals (sum of the unit normals of the
/// triangles on the edge) and unit face normals, over welded vertices.
struct Pseudonormals {
  std::vector<std::uint32_t> welded;      ///< 3 per triangle: welded vertex of each corner
  std::vector<double> vertex;             ///< 3 per welded vertex
  std::vector<double> edge;               ///< 9 per triangle: edges 01, 12, 20
  std::vector<double> face;               ///< 3 per triangle: unit normal (0 if degenerate)
  /// The pseudonormal of `feature` (0..6 = v0 v1 v2 e01 e12 e20 face) of triangle t.
  const double* normal(std::size_t t, int feature) const;
};

template <class T>
Pseudonormals pseudonormals(const TriangleMesh<T>& mesh);

/// A mesh reoriented: every edge-connected piece made consistent (by flipping
/// triangles, breadth first from the piece's lowest triangle id), then each
/// piece turned outward, or inward when it lies inside an odd number of the
/// other closed pieces (a cavity), so the solid has positive volume.
template <class T>
struct Reoriented {
  TriangleMesh<T> mesh;              ///< same vertices, triangles with corners 1 and 2 swapped where flipped
  std::size_t flipped = 0;           ///< triangles flipped
  std::size_t conflicts = 0;         ///< edges still inconsistent (a non-orientable piece: Möbius)
};

template <class T>
Reoriented<T> reorient(const TriangleMesh<T>& mesh);

extern template MeshDiagnostics diagnose<float>(const TriangleMesh<float>&);
extern template MeshDiagnostics diagnose<double>(const TriangleMesh<double>&);
extern template MeshDiagnostics diagnose<float>(const MeshIndex<float>&);
extern template MeshDiagnostics diagnose<double>(const MeshIndex<double>&);
extern template Pseudonormals pseudonormals<float>(const TriangleMesh<float>&);
extern template Pseudonormals pseudonormals<double>(const TriangleMesh<double>&);
extern template Reoriented<float> reorient<float>(const TriangleMesh<float>&);
extern template Reoriented<double> reorient<double>(const TriangleMesh<double>&);

}  // namespace prox
