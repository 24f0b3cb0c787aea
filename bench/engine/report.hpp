// bench/engine/report.hpp — the benchmark's table: collects rows, prints them.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "bench_api.hpp"
#include "peer.hpp"

namespace prox::bench {

/// A peer's answers on the checked subsample against the brute-force twin.
struct Agreement {
  std::size_t checked = 0;   ///< 0: no check ran
  std::size_t agreed = 0;
  std::size_t hit_miss = 0;  ///< rays: hit where the oracle misses or the reverse
  double max_error = 0;      ///< largest |distance or t difference|
  double diagonal = 1;       ///< mesh bounding-box diagonal (errors print relative to it)
};

struct BuildRow {
  std::string mesh, peer;
  std::vector<double> ms;  ///< median per thread count
  std::size_t bytes = 0;
  std::string memory_method;
  std::size_t triangles = 0;
};

struct Row {
  std::string mesh, workload, peer;
  std::size_t queries = 0;
  std::vector<double> qps;  ///< median per thread count
  std::size_t hits = 0;
  double checksum = 0;      ///< sum of distances, or sum of t over hits
  Agreement agreement;
  Agreement versus_prox;    ///< every query against the first prox row (not for that row)
  bool is_ray = false;
  bool is_prox = false;
};

class Report {
 public:
  Report(const Options& options, std::ostream& out) : options_(options), out_(out) {}

  /// The title, compiler and machine lines; then, when the CPU table runs
  /// (cpu_table), its query count, timing rule, peers and column legend, else
  /// one line naming the rows that run instead (--gpu-only and the like).
  void header(const std::vector<std::unique_ptr<Peer>>& peers,
              const std::vector<std::string>& missing, bool cpu_table = true);
  void mesh_header(const BenchMesh& mesh);
  void add_build(const BuildRow& row) { builds_.push_back(row); }
  void print_builds(const std::string& mesh);
  void add_row(const Row& row) { rows_.push_back(row); }
  void print_workload(const std::string& mesh, const std::string& workload);
  /// The targets at 1 thread against Embree, one line per mesh.
  void print_targets();
  /// False if a prox row disagreed with the brute-force twin.
  bool prox_agrees() const;

 private:
  const Options& options_;
  std::ostream& out_;
  std::vector<BuildRow> builds_;
  std::vector<Row> rows_;
};

}  // namespace prox::bench
