// bench/engine/peer_cgal_missing.cpp — compiled when CMake found no CGAL.
#include "peer.hpp"

namespace prox::bench {
std::unique_ptr<Peer> make_cgal_peer() { return nullptr; }
}  // namespace prox::bench
