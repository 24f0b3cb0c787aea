// src/bvh/threads.cpp — the cached arenas of prox/bvh/threads.hpp.
#include "prox/bvh/threads.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include <tbb/task_arena.h>

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

void run_with_threads(int threads, const std::function<void()>& fn) {
  if (threads <= 0) {
    fn();
    return;
  }
  const int want = std::min(threads, tbb::this_task_arena::max_concurrency());
  if (tbb::this_task_arena::current_thread_index() != tbb::task_arena::not_initialized &&
      tbb::this_task_arena::max_concurrency() == want) {
    fn();
    return;
  }
  cached_arena(want).execute(fn);
}

}  // namespace prox::detail
