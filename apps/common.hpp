// apps/common.hpp — what several `prox` commands share: loading a mesh and
// building its index (io::load_index, with progress), --threads, progress on stderr, output files that appear
// whole or not at all, and small parsers/formatters for options and reports.
#pragma once

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <initializer_list>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "prox/io/atomic_file.hpp"
#include "prox/io/load_index.hpp"
#include "prox/io/mesh_data.hpp"
#include "prox/mesh/mesh_index.hpp"

namespace prox::cli {

/// Wall-clock stopwatch.
class Timer {
 public:
  Timer() : start_(std::chrono::steady_clock::now()) {}
  double ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

class Progress {
 public:
  Progress(std::string label, std::size_t total) : label_(std::move(label)), total_(total) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress();
  void update(std::size_t done);

 private:
  std::string label_;
  std::size_t total_;
  Timer timer_;
  double last_ms_ = 0;
  bool shown_ = false;
};

/// "label: 45% (450,000 of 1,000,000), 1.2 M/s, 3 s left" on stderr, only when
/// stderr is a terminal (log files get no \r lines) and the work has run half
/// a second; updated four times a second.
/// Each block is one batch call, so results are those of a single call.
void in_blocks(std::size_t n, const std::string& label,
               const std::function<void(std::size_t, std::size_t)>& body);

/// Adds --threads N (0 = all cores) to a command.
void add_threads_option(CLI::App& app, int& threads);

/// A mesh file read and indexed (the library's io::load_index result).
using LoadedMesh = io::LoadedIndex<double>;

/// load_mesh in the precision T (float: the mesh rounded to float, half the memory).
template <class T>
io::LoadedIndex<T> load_mesh_as(const std::string& path, int threads, bool keep_data = false);
extern template io::LoadedIndex<float> load_mesh_as<float>(const std::string&, int, bool);
extern template io::LoadedIndex<double> load_mesh_as<double>(const std::string&, int, bool);

/// Adds --precision float|double (default double): the index's scalar type.
void add_precision_option(CLI::App& app, std::string& precision);
/// Adds a positive number option, with prox's own message for a bad value.
void add_positive_option(CLI::App& app, const std::string& name, double& value,
                         const std::string& help);
/// The final line of a command on stderr: "label: what" (always, terminal or not).
void summary(const std::string& label, const std::string& what);

/// io::load_index on `threads` threads, saying on stderr when a big file takes a while.
LoadedMesh load_mesh(const std::string& path, int threads, bool keep_data = false);
/// io::build_index on `threads` threads (errors name `name`).
std::unique_ptr<MeshIndex<double>> build_index(const io::MeshData& data, const std::string& name,
                                               int threads);

/// Standard output ("" or "-"), a file (by path) that appears only on commit(),
/// or, for a path that exists and is not a regular file (/dev/null, a FIFO),
/// that path written directly.
class Output {
 public:
  /// "" or "-": standard output.
  explicit Output(const std::string& path);
  std::ostream& stream();
  /// Flushes; for a file, renames the temporary over the target.
  void commit();
  bool is_file() const { return file_ != nullptr || direct_ != nullptr; }

 private:
  std::unique_ptr<io::AtomicFile> file_;
  std::unique_ptr<std::ofstream> direct_;
  std::string path_;
};

/// Fails before any work (UsageError-free runtime_error, exit 1) when an
/// output cannot be written where it is asked: its folder does not exist, the
/// path is a folder, or two outputs of one command name the same file (one
/// would be lost). "" and "-" (standard output) are skipped. A command that
/// writes several files calls it with all of them first, so that a failure
/// leaves neither a new file nor a replaced one behind.
void check_outputs(std::initializer_list<std::string> paths);
/// A check for a number option: finite unless inf_ok, > 0 (or >= 0 when
/// zero_ok), and never NaN (which CLI11's PositiveNumber / NonNegativeNumber
/// let through: every comparison with it is false); the message names the value.
CLI::Validator number_check(bool zero_ok, bool inf_ok);
/// A check for a count option: a whole number from min to max (a negative one
/// is named as such, not wrapped around to 2^64 - n).
CLI::Validator count_check(std::uint64_t min, std::uint64_t max);
/// ".csv", ".npy", ".png"... in lower case ("" when none).
std::string lower_extension(const std::string& path);
/// "WxH" (e.g. 800x600) -> {W, H}; UsageError unless 1 <= W, H <= 16384.
std::pair<int, int> parse_size(const std::string& text);
/// 1234567 -> "1,234,567".
std::string with_commas(std::size_t n);
/// 8912345 -> "8.5 MiB".
std::string human_bytes(std::size_t n);
/// Queries per second as "1.23 M/s".
std::string rate(std::size_t count, double ms);

}  // namespace prox::cli
