// apps/commands/bench.cpp — `prox bench ARGS...`: runs the prox-bench program
// (bench/engine) with the same arguments, in place of this process, so its
// output and exit status are prox bench's. The benchmark is not linked into
// the prox command: it pulls in Embree and CGAL, which the command never needs.
//
// Where prox-bench is looked for: beside the running prox (an installed
// layout, bin/prox and bin/prox-bench), then where this build tree built it
// (PROX_BENCH_PATH, set at configure time when bench/engine is configured).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"

namespace prox::cli {

namespace {

std::vector<std::string> bench_candidates() {
  std::vector<std::string> paths;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) paths.push_back((self.parent_path() / "prox-bench").string());
#ifdef PROX_BENCH_PATH
  paths.push_back(PROX_BENCH_PATH);
#endif
  return paths;
}

// Replaces this process with prox-bench; returns only when none could be started.
int exec_bench(const std::vector<std::string>& args) {
  const std::vector<std::string> candidates = bench_candidates();
  for (const std::string& path : candidates) {
    if (::access(path.c_str(), X_OK) != 0) continue;
    // argv[0] "prox bench": prox-bench names itself so in its usage line and errors.
    std::string name = "prox bench";
    std::vector<char*> argv;
    argv.push_back(name.data());
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::cout.flush();
    ::execv(path.c_str(), argv.data());
    std::cerr << "prox bench: cannot run " << path << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  std::string looked;
  for (const std::string& p : candidates) looked += (looked.empty() ? "" : ", ") + p;
  std::cerr << "prox bench: the benchmark program prox-bench was not built or not found (looked "
            << "for " << looked << "; configure with -DPROX_BUILD_BENCH=ON)\n";
  return 1;
}

}  // namespace

Runner setup_bench(CLI::App& app) {
  // Every argument, --help included, is prox-bench's: this command parses nothing.
  app.set_help_flag();
  app.allow_extras();
  app.prefix_command();
  app.footer("Runs prox-bench with the same arguments; 'prox bench --help' shows its options.");
  return [&app]() { return exec_bench(app.remaining()); };
}

}  // namespace prox::cli
