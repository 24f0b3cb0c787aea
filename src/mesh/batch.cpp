// src/mesh/batch.cpp — the thread pool behind prox/mesh/batch.hpp.
//
// A TBB arena of the requested size runs a parallel_for over fixed-size
// chunks; each output slot is written by exactly one task from its own input,
// so the results do not depend on the thread count or the schedule.
#include <algorithm>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "prox/mesh/batch.hpp"

namespace prox::detail {

void batch_for(std::size_t n, const BatchOptions& options,
               const std::function<void(std::size_t, std::size_t)>& body) {
  if (n == 0) return;
  const std::size_t grain = options.grain > 0 ? options.grain : 1;
  if (options.threads == 1 || n <= grain) {
    body(0, n);
    return;
  }
  auto run = [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, grain),
                      [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); });
  };
  if (options.threads > 0) {
    // More threads than the machine runs is capped quietly: TBB would ignore
    // the extra ones anyway, with a multi-line warning on stderr.
    tbb::task_arena arena(std::min(options.threads, tbb::this_task_arena::max_concurrency()));
    arena.execute(run);
  } else {
    run();
  }
}

}  // namespace prox::detail
