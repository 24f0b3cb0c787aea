// src/mesh/engine_hooks.cpp — the switch of prox/mesh/engine_hooks.hpp: a
// relaxed atomic (queries read it once each), initialised from the environment.
#include "prox/mesh/engine_hooks.hpp"
#include "engine.hpp"  // detail::simd_leaves

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace prox {
namespace {
bool env_scalar_leaves() {
  const char* v = std::getenv("PROX_SCALAR_LEAVES");
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}
std::atomic<bool>& scalar_flag() {
  static std::atomic<bool> flag{env_scalar_leaves()};
  return flag;
}
}  // namespace

namespace {
thread_local std::size_t packet_rays = 0;
}  // namespace

std::size_t packet_rays_this_thread() { return packet_rays; }

int packet_set_up_check(const Ray<float>* rays, float scale) {
  return detail::engine().packet_set_up_check(rays, scale);
}

void set_scalar_leaves(bool scalar) { scalar_flag().store(scalar, std::memory_order_relaxed); }
bool scalar_leaves() { return scalar_flag().load(std::memory_order_relaxed); }

namespace detail {
bool simd_leaves() { return !scalar_leaves(); }
void note_packet(unsigned rays) { packet_rays += rays; }
}  // namespace detail

}  // namespace prox
