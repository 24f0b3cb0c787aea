// apps/commands/bench.cpp — `prox bench`: the peer benchmark (bench/engine), when it was built.
#include <iostream>
#include <memory>

#include "command.hpp"

#if PROX_HAVE_BENCH
#include "bench_api.hpp"
#include "bench_cli.hpp"
#endif

namespace prox::cli {

Runner setup_bench(CLI::App& app) {
#if PROX_HAVE_BENCH
  auto o = std::make_shared<bench::Options>();
  bench::add_cli_options(app, *o);
  app.footer("Example: prox bench --quick    (--threads takes the thread counts to measure, e.g. 1,2)");
  return [o]() {
    if (o->quick) bench::apply_quick(*o);
    return bench::run(*o);
  };
#else
  // Accept the benchmark's options, so scripts that pass them get the clear message below.
  app.add_option("--threads", "thread counts to measure, e.g. 1,2 (benchmark not built)");
  app.allow_extras();
  return []() {
    std::cerr << "prox bench: the benchmark was not built (configure with -DPROX_BUILD_BENCH=ON)\n";
    return 1;
  };
#endif
}

}  // namespace prox::cli
