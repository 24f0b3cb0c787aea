// bench/engine/peer_prox_missing.cpp — compiled instead of peer_prox.cpp while the
// mesh engine (target prox::mesh) is absent: prox rows and the oracle are skipped.
#include "peer.hpp"

namespace prox::bench {

std::unique_ptr<Peer> make_prox_peer(bool, bool) { return nullptr; }
bool brute_force_closest(const BenchMesh&, const std::vector<Vec3d>&, int,
                         std::vector<CpAnswer>&) {
  return false;
}
bool brute_force_first_hits(const BenchMesh&, const std::vector<Ray<double>>&, int,
                            std::vector<RayAnswer>&) {
  return false;
}

}  // namespace prox::bench
