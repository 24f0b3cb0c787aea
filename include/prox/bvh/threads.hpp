// prox/bvh/threads.hpp — where prox's parallel work runs: one TBB arena per
// thread count, made on first use and kept for the process's life.
//
// Creating a tbb::task_arena per call costs its workers' start-up on every
// call, which a loop of short batches (Python, Hausdorff's rounds) kept
// paying. Batches (prox/mesh/batch.hpp), index builds and build_bvh8 share
// these (for builds no change in time was measured: it is one place for the
// arena logic, not a speed-up).
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
