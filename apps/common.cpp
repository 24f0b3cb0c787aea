// apps/common.cpp — shared pieces of the `prox` commands (see common.hpp).
#include "common.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "command.hpp"

namespace prox::cli {

Progress::~Progress() {
  if (shown_) std::cerr << "\r" << label_ << ": done" << std::string(30, ' ') << "\n";
}

void Progress::update(std::size_t done) {
  const double now = timer_.ms();
  if (now < 1000 || now - last_ms_ < 250) return;
  last_ms_ = now;
  if (!shown_) std::cout.flush();  // keep stdout's report in order with this line
  shown_ = true;
  const double pct = total_ ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100;
  std::cerr << fmt::format("\r{}: {:.0f}% ({} of {})   ", label_, pct, with_commas(done),
                           with_commas(total_))
            << std::flush;
}

void in_blocks(std::size_t n, const std::string& label,
               const std::function<void(std::size_t, std::size_t)>& body) {
  Progress progress(label, n);
  const std::size_t block = 1 << 16;
  for (std::size_t b = 0; b < n; b += block) {
    const std::size_t e = std::min(n, b + block);
    body(b, e);
    progress.update(e);
  }
}

void add_threads_option(CLI::App& app, int& threads) {
  app.add_option("--threads", threads, "worker threads (0 = all cores; more than the cores is capped at the core count)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
}

namespace {

io::LoadOptions load_options(int threads, bool keep_data) {
  io::LoadOptions options;
  options.build.threads = threads;
  options.keep_data = keep_data;
  return options;
}

}  // namespace

std::unique_ptr<MeshIndex<double>> build_index(const io::MeshData& data, const std::string& name,
                                               int threads) {
  return io::build_index<double>(data, name, load_options(threads, false));
}

LoadedMesh load_mesh(const std::string& path, int threads, bool keep_data) {
  // Big files take a second or more to read and index: say so on stderr.
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  const bool big = !ec && bytes > (std::uintmax_t(32) << 20);
  if (big) std::cerr << "prox: reading " << path << " (" << human_bytes(bytes) << ")\n";
  LoadedMesh m = io::load_index<double>(path, load_options(threads, keep_data));
  if (big) {
    std::cerr << fmt::format("prox: read {} triangles in {:.2f} s, built the index in {:.2f} s\n",
                             with_commas(m.triangles), m.read_ms / 1000, m.build_ms / 1000);
  }
  return m;
}

Output::Output(const std::string& path) {
  if (!path.empty() && path != "-") file_ = std::make_unique<io::AtomicFile>(path);
}

std::ostream& Output::stream() {
  if (file_) return file_->stream();
  return std::cout;
}

void Output::commit() {
  if (file_) {
    file_->commit();
  } else {
    std::cout.flush();
    if (!std::cout) throw std::runtime_error("cannot write to standard output");
  }
}

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return ext;
}

std::pair<int, int> parse_size(const std::string& text) {
  const std::size_t x = text.find_first_of("xX");
  int w = 0, h = 0;
  try {
    std::size_t used_w = 0, used_h = 0;
    if (x == std::string::npos) throw std::invalid_argument("no x");
    w = std::stoi(text.substr(0, x), &used_w);
    h = std::stoi(text.substr(x + 1), &used_h);
    if (used_w != x || used_h != text.size() - x - 1) throw std::invalid_argument("junk");
  } catch (const std::exception&) {
    throw UsageError("--size must be WIDTHxHEIGHT, e.g. 800x600, not '" + text + "'");
  }
  if (w < 1 || h < 1 || w > 16384 || h > 16384) {
    throw UsageError("--size " + text + ": each side must be 1 to 16384 pixels");
  }
  return {w, h};
}

std::string with_commas(std::size_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  s.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

std::string human_bytes(std::size_t n) {
  const double b = static_cast<double>(n);
  if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
  if (b >= 1024.0) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} B", n);
}

std::string rate(std::size_t count, double ms) {
  if (ms <= 0) return "-";
  const double per_s = static_cast<double>(count) / (ms / 1000.0);
  if (per_s >= 1e6) return fmt::format("{:.2f} M/s", per_s / 1e6);
  if (per_s >= 1e3) return fmt::format("{:.1f} k/s", per_s / 1e3);
  return fmt::format("{:.0f} /s", per_s);
}

}  // namespace prox::cli
