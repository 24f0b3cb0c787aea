// prox/bvh/threads.hpp — where prox's parallel work runs: one TBB arena per
// thread count, made on first use and kept for the process's life.
//
// Creating a tbb::task_arena per call costs its workers' start-up on every
// call: a batch, a build of a small mesh (bunny, 75k triangles, builds in
// ~14 ms at 2 threads) or a loop of short calls from Python would keep paying
// it. Batches (prox/mesh/batch.hpp), index builds and build_bvh8 share these.
#pragma once

#include <functional>

namespace prox::detail {

/// Runs fn with `threads` threads: `threads` <= 0 in the caller's arena; else
/// in the process-wide arena of min(threads, what the machine runs) threads
/// (more is capped quietly: TBB would ignore the extra ones, with a warning on
/// stderr), or directly when the caller already runs in an arena of that
/// size (a nested call).
void run_with_threads(int threads, const std::function<void()>& fn);

}  // namespace prox::detail
