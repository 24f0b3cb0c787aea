// src/mesh/fast_winding_shared.cpp — FastWindingNumber::shared: one object per
// index while any holder keeps it alive (a registry of weak pointers keyed by
// the index's address, checked against a fingerprint of its contents).
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "prox/mesh/fast_winding.hpp"

namespace prox {

namespace {

/// Two 64-bit hashes of the index's vertices, triangles and hierarchy.
struct Fingerprint {
  std::uint64_t a = 0, b = 0;
  std::size_t nv = 0, nt = 0, nn = 0;
  bool operator==(const Fingerprint&) const = default;
};

inline void mix_bytes(Fingerprint& f, const void* data, std::size_t bytes) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  std::uint64_t a = f.a, b = f.b;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t x;
    std::memcpy(&x, p + i, 8);
    a = (a ^ x) * 0x100000001b3ull;
    a ^= a >> 29;
    b = (b + x) * 0x9e3779b97f4a7c15ull;
    b ^= b >> 31;
  }
  for (; i < bytes; ++i) {
    a = (a ^ p[i]) * 0x100000001b3ull;
    b = (b + p[i]) * 0x9e3779b97f4a7c15ull;
  }
  f.a = a;
  f.b = b;
}

template <class T>
Fingerprint fingerprint(const MeshIndex<T>& index) {
  Fingerprint f{0xcbf29ce484222325ull, 0x243f6a8885a308d3ull};
  const auto& V = index.mesh().vertices();
  const auto& F = index.mesh().triangles();
  f.nv = V.size();
  f.nt = F.size();
  f.nn = index.bvh().nodes.size();
  for (const auto& v : V) {
    const T xyz[3] = {v[0], v[1], v[2]};
    mix_bytes(f, xyz, sizeof xyz);
  }
  mix_bytes(f, F.data(), F.size() * sizeof(F[0]));
  for (const bvh::Node8& n : index.bvh().nodes) {
    mix_bytes(f, n.child, sizeof n.child);
    mix_bytes(f, n.count, sizeof n.count);
    mix_bytes(f, n.lo, sizeof n.lo);
    mix_bytes(f, n.hi, sizeof n.hi);
  }
  return f;
}

}  // namespace

template <class T>
std::shared_ptr<const FastWindingNumber<T>> FastWindingNumber<T>::shared(
    const MeshIndex<T>& index) {
  struct Slot {
    Fingerprint print;
    std::weak_ptr<const FastWindingNumber<T>> fast;
  };
  static std::mutex mutex;
  static std::unordered_map<const MeshIndex<T>*, Slot> slots;
  const Fingerprint print = fingerprint(index);
  const std::lock_guard<std::mutex> lock(mutex);
  for (auto it = slots.begin(); it != slots.end();)
    it = it->second.fast.expired() ? slots.erase(it) : std::next(it);
  auto it = slots.find(&index);
  if (it != slots.end() && it->second.print == print)
    if (auto live = it->second.fast.lock()) return live;
  auto made = std::make_shared<const FastWindingNumber<T>>(index);
  slots[&index] = Slot{print, made};
  return made;
}

template std::shared_ptr<const FastWindingNumber<float>> FastWindingNumber<float>::shared(
    const MeshIndex<float>&);
template std::shared_ptr<const FastWindingNumber<double>> FastWindingNumber<double>::shared(
    const MeshIndex<double>&);

}  // namespace prox
