// bench/engine/parallel.cpp — the thread pool every peer without a batch API runs on.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "peer.hpp"

namespace prox::bench {

void parallel_blocks(std::size_t n, int threads,
                     const std::function<void(std::size_t, std::size_t)>& body) {
  constexpr std::size_t grain = 256;  // queries per task: amortizes the std::function call
  if (threads <= 1) {
    for (std::size_t begin = 0; begin < n; begin += grain) body(begin, std::min(n, begin + grain));
    return;
  }
  tbb::task_arena arena(threads);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, grain),
                      [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); });
  });
}

}  // namespace prox::bench
