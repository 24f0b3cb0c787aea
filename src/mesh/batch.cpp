// src/mesh/batch.cpp — the thread pool behind prox/mesh/batch.hpp.
//
// A TBB arena of the requested size runs a parallel_for over fixed-size
// chunks; each output slot is written by exactly one task from its own input,
// so the results do not depend on the thread count or the schedule.
//
// Arenas are cached (prox/bvh/threads.hpp): one per thread count, created on
// first use and kept for the process's life (at most one per core count,
// since larger requests are capped). Creating a tbb::task_arena per call
// costs its workers' start-up on every call, so a caller that runs many short
// batches (a Python loop, Hausdorff's rounds) would keep losing its workers;
// a cached arena keeps them. A call made from inside an arena of the
// requested size (a nested batch) runs there directly.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "prox/bvh/threads.hpp"
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
  run_with_threads(options.threads, run);
}

namespace {

/// The low 10 bits of v spread to every third bit (bit k -> bit 3k).
std::uint32_t spread3(std::uint32_t v) {
  v &= 0x3ffu;
  v = (v | (v << 16)) & 0x030000ffu;
  v = (v | (v << 8)) & 0x0300f00fu;
  v = (v | (v << 4)) & 0x030c30c3u;
  v = (v | (v << 2)) & 0x09249249u;
  return v;
}

/// The cell of a coordinate: [0, 1023], NaN (inf * 0 from an infinite extent) -> 0.
std::uint32_t cell(double q) {
  if (!(q >= 0)) return 0;
  if (q >= 1023) return 1023;
  return static_cast<std::uint32_t>(q);
}

}  // namespace

std::uint32_t morton_code(double x, double y, double z, const double lo[3],
                          const double scale[3]) {
  if (!(std::isfinite(x) && std::isfinite(y) && std::isfinite(z))) return kSpatialOrderLast;
  return spread3(cell((x - lo[0]) * scale[0])) | (spread3(cell((y - lo[1]) * scale[1])) << 1) |
         (spread3(cell((z - lo[2]) * scale[2])) << 2);
}

// A hand-written LSD radix sort, not std::stable_sort: keys are 31 bits and a
// block is at most 2^20, so three counting passes of 11/11/9 bits over
// (key, index) pairs cost about a third of a comparison sort, and they are
// stable, so equal keys keep their input order and the order is deterministic.
void sort_block(std::span<const std::uint32_t> keys, std::size_t first,
                std::span<std::size_t> order) {
  const std::size_t n = keys.size();
  if (n == 0) return;
  std::vector<std::uint32_t> a(n), b(n);  // local indices, ping-pong
  for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<std::uint32_t>(i);
  constexpr int kShift[3] = {0, 11, 22};
  constexpr std::uint32_t kMask[3] = {0x7ffu, 0x7ffu, 0x1ffu};
  for (int pass = 0; pass < 3; ++pass) {
    std::array<std::size_t, 2049> count{};
    for (std::size_t i = 0; i < n; ++i) ++count[((keys[i] >> kShift[pass]) & kMask[pass]) + 1];
    for (std::size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t idx = a[i];
      b[count[(keys[idx] >> kShift[pass]) & kMask[pass]]++] = idx;
    }
    a.swap(b);
  }
  for (std::size_t i = 0; i < n; ++i) order[i] = first + a[i];
}

}  // namespace prox::detail
