// bench/engine/hausdorff_rows_missing.cpp — built when the mesh engine (prox::mesh) is missing.
#include <stdexcept>

#include "hausdorff_peer.hpp"

namespace prox::bench {

void run_hausdorff_rows(const Options&, const std::string&, std::ostream&, std::ostream&) {
  throw std::runtime_error("the Hausdorff rows need the mesh engine (prox::mesh), not built");
}

}  // namespace prox::bench
