// bench/engine/sign_rows.hpp — the signed distance, winding number and SDF grid
// rows of prox-bench (sign_rows.cpp; sign_rows_missing.cpp without prox::mesh).
#pragma once

#include <iosfwd>
#include <string>

#include "bench_api.hpp"

namespace prox::bench {

/// Prints the rows (see sign_rows.cpp) to out, progress to err.
void run_sign_rows(const Options& options, const std::string& data_dir, std::ostream& out,
                   std::ostream& err);

}  // namespace prox::bench
