// bench/engine/peer_embree_missing.cpp — compiled when CMake found no Embree 3.
#include "peer.hpp"

namespace prox::bench {
std::unique_ptr<Peer> make_embree_peer() { return nullptr; }
std::unique_ptr<Peer> make_embree16_peer() { return nullptr; }
}  // namespace prox::bench
