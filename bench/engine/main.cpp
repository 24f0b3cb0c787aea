// bench/engine/main.cpp — prox-bench: the peer benchmark of WORKLOADS.md.
//
// Exit status (docs/benchmark.md): 0; 1 if prox disagrees with its brute-force
// twin; 2 on bad options or unreadable data, with one line on stderr. Messages
// start with argv[0]'s file name, so run as `prox bench` (apps/commands/bench.cpp
// passes that name) they say "prox bench: ...".
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

#include "bench_cli.hpp"

int main(int argc, char** argv) {
  const std::string me =
      argc > 0 ? std::filesystem::path(argv[0]).filename().string() : std::string("prox-bench");
  prox::bench::Options options;
  CLI::App app("prox-bench: prox beside Embree and CGAL on WORKLOADS.md", me);
  prox::bench::add_cli_options(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::cerr << me << ": " << what << " (see '" << me << " --help')\n";
    return 2;
  }
  try {
    return prox::bench::run(options);
  } catch (const std::exception& e) {
    std::cerr << me << ": " << e.what() << "\n";
    return 2;
  }
}
