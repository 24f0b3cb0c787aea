// src/mesh/batch.cpp — the thread pool behind prox/mesh/batch.hpp.
//
// A TBB arena of the requested size runs a parallel_for over fixed-size
// chunks; each output slot is written by exactly one task from its own input,
// so the results do not depend on the thread count or the schedule.
//
// Arenas are cached: one per thread count, created on first use and kept for
// the process's life (at most one per core count, since larger requests are
// capped). Creating a tbb::task_arena per call costs its workers' start-up
// on every call, so a caller that runs many short batches (a Python loop,
// Hausdorff's rounds) would keep losing its workers; a cached arena keeps
// them. A call made from inside an arena of the requested size (a nested
// batch) runs there directly.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "prox/mesh/batch.hpp"

namespace prox::detail {

namespace {

/// The process-wide arena of `threads` threads (created once, never freed:
/// an arena destroyed at exit while a worker still runs would be a race).
tbb::task_arena& cached_arena(int threads) {
  static std::mutex mutex;
  static auto* arenas = new std::map<int, std::unique_ptr<tbb::task_arena>>();
  std::lock_guard lock(mutex);
  auto& slot = (*arenas)[threads];
  if (!slot) slot = std::make_unique<tbb::task_arena>(threads);
  return *slot;
}

}  // namespace

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
    const int want = std::min(options.threads, tbb::this_task_arena::max_concurrency());
    if (tbb::this_task_arena::current_thread_index() != tbb::task_arena::not_initialized &&
        tbb::this_task_arena::max_concurrency() == want) {
      run();
      return;
    }
    cached_arena(want).execute(run);
  } else {
    run();
  }
}

}  // namespace prox::detail
