// bench/engine/hausdorff_cgal_missing.cpp — built when CGAL is not found.
#include <stdexcept>

#include "hausdorff_peer.hpp"

namespace prox::bench {

bool cgal_hausdorff_available() { return false; }
std::string cgal_hausdorff_version() { return ""; }
double cgal_hausdorff(const BenchMesh&, const BenchMesh&, double, bool, double*) {
  throw std::logic_error("CGAL was not found when prox-bench was built");
}

}  // namespace prox::bench
