// bench/engine/hausdorff_peer.hpp — CGAL's bounded-error Hausdorff distance as a
// peer of prox::hausdorff (hausdorff_cgal.cpp; hausdorff_cgal_missing.cpp when
// CGAL is not found).
#pragma once

#include <ostream>
#include <string>

#include "bench_api.hpp"
#include "workloads.hpp"

namespace prox::bench {

/// Whether CGAL was found at build time.
bool cgal_hausdorff_available();
/// CGAL's version string ("" when missing).
std::string cgal_hausdorff_version();
/// CGAL::Polygon_mesh_processing::bounded_error_Hausdorff_distance(a, b, error_bound)
/// (one-sided a -> b), or bounded_error_symmetric_Hausdorff_distance when
/// `symmetric`; Surface_mesh over Epick, Sequential_tag (CGAL 5.5 has no parallel
/// version). `build_ms` gets the time of building the two Surface_mesh copies
/// (not included in the call, which builds its own AABB trees inside).
/// Prints the Hausdorff and Chamfer tables (hausdorff_rows.cpp): bunny in data_dir
/// against a perturbed copy, prox on options.threads beside CGAL.
void run_hausdorff_rows(const Options& options, const std::string& data_dir, std::ostream& out,
                        std::ostream& err);
double cgal_hausdorff(const BenchMesh& a, const BenchMesh& b, double error_bound, bool symmetric,
                      double* call_ms);

}  // namespace prox::bench
