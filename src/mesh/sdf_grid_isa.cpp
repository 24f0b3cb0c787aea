// src/mesh/sdf_grid_isa.cpp — the SDF grid's pruned closest-point search
// (prox/mesh/sdf_grid_lune.hpp) for one ISA path. Like engine_isa.cpp, this
// one source is compiled into one object per path (flags in CMakeLists.txt);
// the ISA's inline namespace keeps the symbols apart, the kernel is called
// through its tagged instance (kernel_instances.hpp), and a test
// (sdf_grid_isa_symbols) checks the objects for shared symbols.
// sdf_grid_dispatch.cpp calls the path the engine runs (prox/mesh/isa.hpp).
#include "kernel_instances.hpp"
#include "prox/mesh/sdf_grid_lune_impl.hpp"
#include "sdf_grid_isa.hpp"

namespace prox::sdf_detail {
inline namespace PROX_ISA_NAMESPACE {
namespace {

template <class T>
PROX_FLATTEN MeshClosestPoint<T> lune_entry(const FlatIndex<T>& x, const Vec3<T>& p,
                                            std::uint32_t hint, const Vec3<T>& h0,
                                            const Vec3<T>& h1, const Vec3<T>& h2,
                                            std::span<const EmptyBall> balls, double scale,
                                            LuneStats* stats, const FloatBoundTable* table,
                                            std::uint32_t* slot, NearTriangles<T>* near,
                                            double reach) {
  return lune_closest_point<T, detail::IsaTag>(x, p, hint, h0, h1, h2, balls, scale, stats,
                                               table, slot, near, reach);
}

FloatBoundLanes bound_entry(const FloatTerms8& t, const FloatBoundSetup& s, float r) {
  const FloatBound8 b = float_bound8(t, s);
  FloatBoundLanes out;
  simd::store8(out.all, b.all);
  simd::store8(out.reach, b.reach);
  out.above = float_above8(b, r, s.k);
  return out;
}

constexpr LuneTable kTable{&lune_entry<float>, &lune_entry<double>, &bound_entry};
}  // namespace

const LuneTable& lune_table() { return kTable; }

}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::sdf_detail
