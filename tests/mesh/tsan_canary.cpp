// tests/mesh/tsan_canary.cpp — built in the ThreadSanitizer build only (PROX_TSAN).
// `mesh_tsan_canary race`: every task of a batch adds to one plain counter, a real
// data race through prox's batch_for and TBB; CTest (TsanCanary.RaceIsReported)
// passes only when TSan reports it at this file, which shows that the TSan job,
// with TBB's synchronization modelled by tests/support/tsan_tbb.cpp and the
// suppressions, still catches a race between two tasks.
// `mesh_tsan_canary`: the same work race-free (each task writes its own slot; the
// sum is taken after the batch): must report nothing.
#include <tbb/global_control.h>

#include <cstdio>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "prox/mesh/batch.hpp"

int main(int argc, char** argv) {
  const bool race = argc > 1 && std::strcmp(argv[1], "race") == 0;
  // Let TBB really start 4 threads on a small machine (as tests/mesh/test_batch.cpp does).
  const tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 8);
  const std::size_t n = 1 << 16;
  std::vector<std::thread::id> ran_on(n);
  std::vector<long> input(n);
  for (std::size_t i = 0; i < n; ++i) input[i] = static_cast<long>(i % 7);
  long total = 0;
  std::vector<long> slot(n, 0);
  for (int round = 0; round < 4; ++round) {
    prox::batch_for_each(n, prox::BatchOptions{.threads = 4, .grain = 16}, [&](std::size_t i) {
      ran_on[i] = std::this_thread::get_id();
      volatile long work = 0;  // some work per item, so that the workers join in
      for (int k = 0; k < 200; ++k) work = work + k;
      if (race)
        total += input[i];  // the race: every task writes `total`
      else
        slot[i] += input[i];
    });
  }
  if (!race)
    for (long v : slot) total += v;
  // A race is only seen when it happens: with one thread there is none to report.
  const std::set<std::thread::id> threads(ran_on.begin(), ran_on.end());
  if (threads.size() < 2) {
    std::printf("tsan_canary: the batch ran on one thread only; no race could happen\n");
    return 2;
  }
  long expected = 0;
  for (long v : input) expected += 4 * v;
  std::printf("total %ld (expected %ld) on %zu threads\n", total, expected, threads.size());
  return 0;
}
