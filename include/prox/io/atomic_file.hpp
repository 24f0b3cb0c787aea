// prox/io/atomic_file.hpp — an output file that appears whole or not at all.
//
// Writes go to a temporary file beside the target (same directory, so the final
// rename is atomic on POSIX); commit() flushes and renames it over the target.
// If the object is destroyed without commit() — an exception, an early return —
// the temporary is removed and the target is left as it was.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>

namespace prox::io {

class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path target, bool binary = true)
      : target_(std::move(target)) {
    std::random_device rd;
    temp_ = target_;
    temp_ += ".tmp-" + std::to_string(rd()) + "~";
    out_.open(temp_, binary ? std::ios::out | std::ios::binary | std::ios::trunc
                            : std::ios::out | std::ios::trunc);
    if (!out_) {
      throw std::runtime_error("cannot write '" + target_.string() +
                               "': cannot create a file in its folder");
    }
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile() {
    if (!committed_) {
      out_.close();
      std::error_code ec;
      std::filesystem::remove(temp_, ec);
    }
  }

  std::ofstream& stream() { return out_; }
  const std::filesystem::path& temp_path() const { return temp_; }
  const std::filesystem::path& target() const { return target_; }

  /// Flushes, closes and renames the temporary over the target; throws on failure.
  void commit() {
    out_.flush();
    const bool ok = static_cast<bool>(out_);
    out_.close();
    if (!ok || out_.fail()) {
      throw std::runtime_error("cannot write '" + target_.string() + "': write failed (disk full?)");
    }
    std::error_code ec;
    std::filesystem::rename(temp_, target_, ec);
    if (ec) {
      throw std::runtime_error("cannot write '" + target_.string() + "': " + ec.message());
    }
    committed_ = true;
  }

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace prox::io
