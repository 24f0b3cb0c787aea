// bench/engine/main.cpp — prox-bench: the peer benchmark of WORKLOADS.md.
#include <exception>
#include <iostream>

#include "bench_cli.hpp"

int main(int argc, char** argv) {
  prox::bench::Options options;
  CLI::App app("prox-bench: prox beside Embree and CGAL on WORKLOADS.md");
  prox::bench::add_cli_options(app, options);
  CLI11_PARSE(app, argc, argv);
  try {
    return prox::bench::run(options);
  } catch (const std::exception& e) {
    std::cerr << "prox-bench: " << e.what() << "\n";
    return 2;
  }
}
