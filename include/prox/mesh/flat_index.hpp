// prox/mesh/flat_index.hpp — the mesh index's flat layout, documented to the
// byte: what the CPU engine traverses, what the GPU backend uploads and what
// save/load and the Python module carry. One layout, one place.
//
// Three arrays (MeshIndex<T>::layout() gives views of them):
// - nodes: bvh::Node8[num_nodes], 256 bytes each (prox/bvh/bvh8.hpp), root 0.
//   A leaf child (count n > 0) covers slots [child, child + n); child is a
//   multiple of 4.
// - prims: u32[num_slots]: the triangle id of each slot; padding slots (after
//   a leaf whose size is not a multiple of 4) hold 0xffffffff.
// - packs: LeafPack<T>[num_slots / 4]: slot s is lane s % 4 of packs[s / 4].
//   A pack is structure-of-arrays: c[corner][axis][lane], i.e. for float
//     bytes   0..15  x of corner 0, lanes 0..3     bytes  16..31  y of corner 0
//     bytes  32..47  z of corner 0                 bytes  48..95  corner 1 (x, y, z)
//     bytes  96..143 corner 2 (x, y, z)
//   144 bytes per pack for float, 288 for double (the same with 8-byte values);
//   so one aligned 128-bit load fetches one coordinate of four triangles. The
//   corners are the mesh's own values in T (triangle corners 0, 1, 2 in the
//   mesh's order, so barycentrics and front faces mean the same as there).
//   Padding lanes repeat the leaf's last triangle (finite values, never
//   reported: queries only read lanes below the leaf's count).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "prox/bvh/bvh8.hpp"
#include "prox/core/vec.hpp"

namespace prox {

/// Four leaf triangles, structure of arrays (see the file comment).
template <class T>
struct alignas(sizeof(T) * 4) LeafPack {
  T c[3][3][4];  ///< c[corner][axis][lane]

  /// Corner k (0, 1, 2) of lane `lane`.
  Vec3<T> corner(unsigned lane, int k) const {
    return Vec3<T>{c[k][0][lane], c[k][1][lane], c[k][2][lane]};
  }
};
static_assert(sizeof(LeafPack<float>) == 144 && sizeof(LeafPack<double>) == 288,
              "LeafPack layout is documented to the byte");

/// Views of the three arrays of a built index (valid while the index lives
/// and is not refit).
template <class T>
struct FlatIndex {
  std::span<const bvh::Node8> nodes;
  std::span<const std::uint32_t> prims;  ///< triangle id per slot
  std::span<const LeafPack<T>> packs;    ///< leaf triangles, 4 slots per pack

  /// The pack holding slot s, and s's lane in it.
  const LeafPack<T>& pack_of(std::uint32_t s) const { return packs[s / bvh::kLeafAlign]; }
  static unsigned lane_of(std::uint32_t s) { return s % bvh::kLeafAlign; }
  /// Corner k (0, 1, 2) of slot s's triangle.
  Vec3<T> corner(std::uint32_t s, int k) const { return pack_of(s).corner(lane_of(s), k); }
};

}  // namespace prox
