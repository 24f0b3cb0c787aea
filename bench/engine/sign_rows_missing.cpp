// bench/engine/sign_rows_missing.cpp — built when the mesh engine (prox::mesh) is missing.
#include <ostream>

#include "sign_rows.hpp"

namespace prox::bench {

void run_sign_rows(const Options&, const std::string&, std::ostream& out, std::ostream&) {
  out << "\nSigned distance rows: not built (the mesh engine, prox::mesh, is missing)\n";
}

}  // namespace prox::bench
