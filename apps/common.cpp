// apps/common.cpp — shared pieces of the `prox` commands (see common.hpp).
#include "common.hpp"

#include <charconv>
#include <cmath>
#include <vector>
#include <filesystem>
#include <cstdlib>
#include <iostream>

#include <unistd.h>

#include <fmt/format.h>

#include "command.hpp"

namespace prox::cli {

namespace {
bool stderr_is_terminal() {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  return tty;
}
}  // namespace

Progress::~Progress() {
  // Clears the progress line; the command's summary line follows.
  if (shown_) std::cerr << "\r" << std::string(label_.size() + 60, ' ') << "\r" << std::flush;
}

void Progress::update(std::size_t done) {
  const double now = timer_.ms();
  if (!stderr_is_terminal() || now < 500 || now - last_ms_ < 250) return;
  last_ms_ = now;
  if (!shown_) std::cout.flush();  // keep stdout's report in order with this line
  shown_ = true;
  const double frac = total_ ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  std::string eta;
  if (frac > 0 && frac < 1) eta = fmt::format(", {:.0f} s left", now * (1 - frac) / frac / 1000);
  std::cerr << fmt::format("\r{}: {:.0f}% ({} of {}), {}{}   ", label_, 100 * frac,
                           with_commas(done), with_commas(total_), rate(done, now), eta)
            << std::flush;
}

void summary(const std::string& label, const std::string& what) {
  std::cout.flush();
  std::cerr << label << ": " << what << "\n";
}

void add_precision_option(CLI::App& app, std::string& precision) {
  app.add_option("--precision", precision,
                 "float or double: the index's numbers (float: the mesh and the queries rounded "
                 "to float, half the memory)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](const std::string& s) {
            return s == "float" || s == "double" ? std::string()
                                                 : "must be float or double, not '" + s + "'";
          },
          ""));
}

void add_positive_option(CLI::App& app, const std::string& name, double& value,
                         const std::string& help) {
  app.add_option(name, value, help)->check(number_check(false, true));
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
      ->check(CLI::Validator(
          [](const std::string& s) {
            char* end = nullptr;
            const long x = std::strtol(s.c_str(), &end, 10);
            if (end == s.c_str() || *end != '\0' || x < 0 || x > 4096)
              return "must be a whole number from 0 (all cores) to 4096, not '" + s + "'";
            return std::string();
          },
          ""))
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

template <class T>
io::LoadedIndex<T> load_mesh_as(const std::string& path, int threads, bool keep_data) {
  // Big files take a second or more to read and index: say so on stderr.
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  const bool big = !ec && bytes > (std::uintmax_t(32) << 20);
  if (big) std::cerr << "prox: reading " << path << " (" << human_bytes(bytes) << ")\n";
  io::LoadedIndex<T> m = io::load_index<T>(path, load_options(threads, keep_data));
  for (const std::string& w : m.warnings) std::cerr << "prox: warning: " << w << "\n";
  if (big) {
    std::cerr << fmt::format("prox: read {} triangles in {:.2f} s, built the index in {:.2f} s\n",
                             with_commas(m.triangles), m.read_ms / 1000, m.build_ms / 1000);
  }
  return m;
}

template io::LoadedIndex<float> load_mesh_as<float>(const std::string&, int, bool);
template io::LoadedIndex<double> load_mesh_as<double>(const std::string&, int, bool);

LoadedMesh load_mesh(const std::string& path, int threads, bool keep_data) {
  return load_mesh_as<double>(path, threads, keep_data);
}

Output::Output(const std::string& path) : path_(path) {
  if (path.empty() || path == "-") return;
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) &&
      !std::filesystem::is_directory(st)) {
    // /dev/null, a FIFO, a terminal: no temporary to rename over it.
    direct_ = std::make_unique<std::ofstream>(path, std::ios::out | std::ios::binary);
    if (!*direct_) throw std::runtime_error("cannot write '" + path + "'");
    return;
  }
  file_ = std::make_unique<io::AtomicFile>(path);
}

std::ostream& Output::stream() {
  if (file_) return file_->stream();
  if (direct_) return *direct_;
  return std::cout;
}

void Output::commit() {
  if (file_) {
    file_->commit();
  } else if (direct_) {
    direct_->flush();
    if (!*direct_) throw std::runtime_error("cannot write '" + path_ + "'");
  } else {
    std::cout.flush();
    if (!std::cout) throw std::runtime_error("cannot write to standard output");
  }
}

CLI::Validator number_check(bool zero_ok, bool inf_ok) {
  return CLI::Validator(
      [=](const std::string& t) {
        char* end = nullptr;
        const double x = std::strtod(t.c_str(), &end);
        const bool ok = end != t.c_str() && *end == '\0' && (zero_ok ? x >= 0 : x > 0) &&
                        (inf_ok || std::isfinite(x));
        if (ok) return std::string();
        return "must be a " + std::string(inf_ok ? "" : "finite ") + "number " +
               (zero_ok ? ">= 0" : "above 0") + ", not '" + t + "'";
      },
      "");
}

CLI::Validator count_check(std::uint64_t min, std::uint64_t max) {
  return CLI::Validator(
      [=](const std::string& t) {
        std::uint64_t x = 0;
        const char* b = t.data();
        const auto [p, ec] = std::from_chars(b, b + t.size(), x);
        if (t.empty() || t[0] == '-' || ec != std::errc() || p != b + t.size() || x < min ||
            x > max)
          return "must be a whole number from " + std::to_string(min) + " to " +
                 std::to_string(max) + ", not '" + t + "'";
        return std::string();
      },
      "");
}

void check_outputs(std::initializer_list<std::string> paths) {
  std::vector<std::filesystem::path> seen;
  for (const std::string& path : paths) {
    if (path.empty() || path == "-") continue;
    const std::filesystem::path p(path);
    const std::filesystem::path dir = p.parent_path();
    if (!dir.empty() && !std::filesystem::is_directory(dir))
      throw std::runtime_error("cannot write '" + path + "': the folder '" + dir.string() +
                               "' does not exist");
    if (std::filesystem::is_directory(p))
      throw std::runtime_error("cannot write '" + path + "': it is a folder");
    const std::filesystem::path norm = p.lexically_normal();
    for (const auto& q : seen)
      if (q == norm)
        throw std::runtime_error("cannot write '" + path +
                                 "' twice: two outputs of this command name it");
    seen.push_back(norm);
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
