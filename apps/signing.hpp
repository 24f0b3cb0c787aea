// apps/signing.hpp — what `prox closest --signed` and `prox sdf` share: the
// --sign-method / --reorient options, reorienting the loaded mesh, and saying
// on stderr how far its sign can be trusted (refusing a mesh with no inside).
#pragma once

#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "common.hpp"
#include "prox/mesh/diagnostics.hpp"
#include "prox/mesh/sign.hpp"

namespace prox::cli {

struct SignChoice {
  std::string method = "auto";
  bool reorient = false;
};

inline void add_sign_options(CLI::App& app, SignChoice& c) {
  app.add_option("--sign-method", c.method,
                 "how inside is decided: auto (from the mesh's diagnostics, see prox info), "
                 "winding, pseudonormal, parity")
      ->check(CLI::IsMember({"auto", "winding", "pseudonormal", "parity"}));
  app.add_flag("--reorient", c.reorient,
               "first make every piece of the mesh consistently oriented, outward (cavities "
               "inward)");
}

/// The index to sign against (the loaded one, or a reoriented copy) and its SignedMesh.
struct Signer {
  std::unique_ptr<MeshIndex<double>> reoriented;
  std::unique_ptr<SignedMesh<MeshIndex<double>>> mesh;
};

/// Refuses (exit 1) a mesh with no inside; warns on stderr when the sign is
/// not exact (make_signer, and the GPU path's SignedMesh on the float index).
template <class Index>
void check_signable(const SignedMesh<Index>& sm, SignMethod requested, const std::string& path,
                    const std::string& command) {
  const MeshDiagnostics& d = sm.diagnostics();
  if (!d.has_inside())
    throw std::runtime_error(path + " has no inside to sign against (" + d.verdict() + ")");
  if (!sm.sign_is_exact()) {
    std::cerr << "prox " << command << ": warning: " << path << ": " << d.verdict();
    if (requested != SignMethod::automatic)
      std::cerr << "; --sign-method " << to_string(requested) << " is not exact on it";
    std::cerr << " (the confidence column says which answers are unsure)\n";
  }
}

/// Prepares signing on `m` for `command` (messages name `path`); refuses (exit 1)
/// a mesh with no inside, warns when the sign is not exact.
inline Signer make_signer(const LoadedMesh& m, const SignChoice& c, const std::string& path,
                          const std::string& command, int threads) {
  Signer s;
  const MeshIndex<double>* index = m.index.get();
  if (c.reorient) {
    Reoriented<double> r = reorient(index->mesh());
    std::cerr << "prox " << command << ": " << path << ": reoriented, " << r.flipped
              << " triangles flipped";
    if (r.conflicts) std::cerr << " (" << r.conflicts << " edges cannot agree: non-orientable)";
    std::cerr << "\n";
    BuildOptions b;
    b.threads = threads;
    s.reoriented = std::make_unique<MeshIndex<double>>(std::move(r.mesh), b);
    index = s.reoriented.get();
  }
  SignOptions o;
  o.method = parse_sign_method(c.method);
  s.mesh = std::make_unique<SignedMesh<MeshIndex<double>>>(*index, o);
  check_signable(*s.mesh, o.method, path, command);
  return s;
}

}  // namespace prox::cli
