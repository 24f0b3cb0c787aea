// src/mesh/mesh_index_io.cpp — MeshIndex refit, save, load, memory.
//
// File format (version 2), native byte order (a marker word rejects files
// from a machine of the other endianness):
//   "PROXMIDX" | u32 version | u32 0x01020304 | u32 sizeof(T) | u32 sizeof(Node8)
//   | u64 vertices | u64 triangles | u64 nodes | u64 leaves | i32 depth | u64 slots
//   | vertices (3 T each) | triangles (3 u32) | prims (u32 per slot) | nodes (256 B)
//   | u64 FNV-1a hash of everything before it.
// (prox/mesh/flat_index.hpp documents nodes and prims; the leaf packs are
// rebuilt from the vertices on load.)
// load() checks every field, reads arrays in bounded chunks (a forged count
// fails at end of file instead of allocating it), validates the mesh
// (TriangleMesh) and the tree (bvh::validate_bvh8), and recomputes every box
// from the vertices, so a damaged file cannot give wrong answers silently.
#include <chrono>
#include <cstring>
#include <string>

#include "prox/bvh/build.hpp"
#include "prox/mesh/fast_winding.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "query_common.hpp"

namespace prox {
namespace {

constexpr char kMagic[8] = {'P', 'R', 'O', 'X', 'M', 'I', 'D', 'X'};
constexpr std::uint32_t kVersion = 2;
constexpr std::uint32_t kEndian = 0x01020304u;

struct Hasher {
  std::uint64_t h = 1469598103934665603ull;
  void add(const void* p, std::size_t n) {
    const unsigned char* c = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
  }
};

struct Writer {
  std::ostream& out;
  Hasher hash;
  void bytes(const void* p, std::size_t n) {
    hash.add(p, n);
    out.write(static_cast<const char*>(p), std::streamsize(n));
  }
  template <class U>
  void value(const U& v) {
    bytes(&v, sizeof(U));
  }
};

struct Reader {
  std::istream& in;
  Hasher hash;
  void bytes(void* p, std::size_t n, const char* what) {
    in.read(static_cast<char*>(p), std::streamsize(n));
    if (std::size_t(in.gcount()) != n)
      throw MeshError(std::string("prox index: file ends inside ") + what);
    hash.add(p, n);
  }
  template <class U>
  U value(const char* what) {
    U v;
    bytes(&v, sizeof(U), what);
    return v;
  }
  template <class U>
  std::vector<U> array(std::uint64_t count, const char* what) {
    constexpr std::uint64_t kChunk = std::uint64_t(1) << 20;
    std::vector<U> v;
    for (std::uint64_t done = 0; done < count;) {
      const std::uint64_t n = std::min(kChunk, count - done);
      v.resize(std::size_t(done + n));
      bytes(v.data() + done, std::size_t(n) * sizeof(U), what);
      done += n;
    }
    return v;
  }
};

}  // namespace

template <class T>
void MeshIndex<T>::refit(std::vector<Vec3<T>> moved_vertices) {
  const auto t0 = std::chrono::steady_clock::now();
  detail::check_refit_count<T>(mesh_.num_vertices(), moved_vertices.size());
  std::vector<typename TriangleMesh<T>::Triangle> tris = mesh_.triangles();
  mesh_ = TriangleMesh<T>(std::move(moved_vertices), std::move(tris));
  const std::vector<Box3<float>> boxes = triangle_boxes();
  bvh::refit_bvh8(bvh_, boxes);
  rebuild_leaf_data();
  far_ = std::make_shared<FarField>();
  fast_.reset();
  bvh_.stats.build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <class T>
void MeshIndex<T>::save(std::ostream& out) const {
  Writer w{out, {}};
  w.bytes(kMagic, sizeof(kMagic));
  w.value(kVersion);
  w.value(kEndian);
  w.value(std::uint32_t(sizeof(T)));
  w.value(std::uint32_t(sizeof(bvh::Node8)));
  w.value(std::uint64_t(mesh_.num_vertices()));
  w.value(std::uint64_t(mesh_.num_triangles()));
  w.value(std::uint64_t(bvh_.nodes.size()));
  w.value(std::uint64_t(bvh_.stats.leaves));
  w.value(std::int32_t(bvh_.stats.depth));
  w.value(std::uint64_t(bvh_.prims.size()));
  w.bytes(mesh_.vertices().data(), mesh_.num_vertices() * sizeof(Vec3<T>));
  w.bytes(mesh_.triangles().data(),
          mesh_.num_triangles() * sizeof(typename TriangleMesh<T>::Triangle));
  w.bytes(bvh_.prims.data(), bvh_.prims.size() * sizeof(std::uint32_t));
  w.bytes(bvh_.nodes.data(), bvh_.nodes.size() * sizeof(bvh::Node8));
  const std::uint64_t h = w.hash.h;
  out.write(reinterpret_cast<const char*>(&h), sizeof(h));
  if (!out) throw MeshError("prox index: write failed");
}

template <class T>
MeshIndex<T> MeshIndex<T>::load(std::istream& in) {
  const auto t0 = std::chrono::steady_clock::now();
  Reader r{in, {}};
  char magic[8];
  r.bytes(magic, sizeof(magic), "the header");
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0)
    throw MeshError("prox index: not a prox index file (bad magic)");
  const auto version = r.value<std::uint32_t>("the header");
  if (version != kVersion)
    throw MeshError("prox index: version " + std::to_string(version) + ", this prox reads " +
                    std::to_string(kVersion));
  if (r.value<std::uint32_t>("the header") != kEndian)
    throw MeshError("prox index: written on a machine of the other byte order");
  const auto scalar = r.value<std::uint32_t>("the header");
  if (scalar != sizeof(T))
    throw MeshError(scalar == 4 || scalar == 8
                        ? "prox index: holds a " + std::string(scalar == 4 ? "float" : "double") +
                              " mesh, asked for " + std::string(sizeof(T) == 4 ? "float" : "double")
                        : "prox index: bad scalar size " + std::to_string(scalar) +
                              " (4: float, 8: double): not a prox index, or damaged");
  if (r.value<std::uint32_t>("the header") != sizeof(bvh::Node8))
    throw MeshError("prox index: node size mismatch");
  const auto nv = r.value<std::uint64_t>("the header");
  const auto nt = r.value<std::uint64_t>("the header");
  const auto nn = r.value<std::uint64_t>("the header");
  const auto leaves = r.value<std::uint64_t>("the header");
  const auto depth = r.value<std::int32_t>("the header");
  const auto slots = r.value<std::uint64_t>("the header");
  if (nv > UINT32_MAX || nt > std::uint64_t(INT32_MAX) || nn > nt + 1 || slots < nt ||
      slots > 4 * nt)
    throw MeshError("prox index: implausible counts");
  auto verts = r.array<Vec3<T>>(nv, "the vertices");
  auto tris = r.array<typename TriangleMesh<T>::Triangle>(nt, "the triangles");
  MeshIndex<T> idx;
  idx.bvh_.prims = r.array<std::uint32_t>(slots, "the primitive order");
  idx.bvh_.nodes = r.array<bvh::Node8>(nn, "the nodes");
  const std::uint64_t expect = r.hash.h;
  std::uint64_t stored = 0;
  in.read(reinterpret_cast<char*>(&stored), sizeof(stored));
  if (in.gcount() != sizeof(stored)) throw MeshError("prox index: file ends inside the hash");
  if (stored != expect) throw MeshError("prox index: checksum mismatch (damaged file)");
  idx.mesh_ = TriangleMesh<T>(std::move(verts), std::move(tris));
  const std::string problem = bvh::validate_bvh8(idx.bvh_, nt);
  if (!problem.empty()) throw MeshError("prox index: " + problem);
  bvh::refit_bvh8(idx.bvh_, idx.triangle_boxes());
  idx.rebuild_leaf_data();
  idx.far_ = std::make_shared<FarField>();
  idx.bvh_.stats.nodes = nn;
  idx.bvh_.stats.leaves = leaves;
  idx.bvh_.stats.primitives = nt;
  idx.bvh_.stats.depth = depth;
  idx.bvh_.stats.build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return idx;
}

template <class T>
std::size_t MeshIndex<T>::memory_bytes() const {
  return mesh_.vertices().capacity() * sizeof(Vec3<T>) +
         mesh_.triangles().capacity() * sizeof(typename TriangleMesh<T>::Triangle) +
         bvh_.memory_bytes() + packs_.capacity_bytes() +
         (far_->built.load(std::memory_order_acquire) ? far_->dipoles.capacity() * sizeof(Dipole)
                                                       : 0) +
         (fast_.built() ? fast_.built()->memory_bytes() : 0);
}

#define PROX_MESH_IO_MEMBERS(T)                                          \
  template void MeshIndex<T>::refit(std::vector<Vec3<T>>);              \
  template void MeshIndex<T>::save(std::ostream&) const;                \
  template MeshIndex<T> MeshIndex<T>::load(std::istream&);              \
  template std::size_t MeshIndex<T>::memory_bytes() const;
PROX_MESH_IO_MEMBERS(float)
PROX_MESH_IO_MEMBERS(double)
#undef PROX_MESH_IO_MEMBERS

}  // namespace prox
