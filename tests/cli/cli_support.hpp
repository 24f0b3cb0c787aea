// tests/cli/cli_support.hpp — run the `prox` binary and read what it wrote.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace prox::test {

struct RunResult {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void spit(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

/// A fresh folder under the system temp dir, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("prox-cli-test-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string quote_arg(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

/// Runs `prox args...` through the shell; stdin from `input` when not empty.
inline RunResult run_prox(const std::vector<std::string>& args, const std::string& input = "") {
  static TempDir io;
  static int counter = 0;
  const std::string tag = std::to_string(counter++);
  const std::string out = io / ("out" + tag), err = io / ("err" + tag), in = io / ("in" + tag);
  std::string cmd = quote_arg(PROX_CLI_PATH);
  for (const std::string& a : args) cmd += " " + quote_arg(a);
  if (!input.empty()) {
    spit(in, input);
    cmd += " <" + quote_arg(in);
  } else {
    cmd += " </dev/null";
  }
  cmd += " >" + quote_arg(out) + " 2>" + quote_arg(err);
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

/// CSV text -> header names and rows of fields.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

inline Csv parse_csv(const std::string& text) {
  Csv csv;
  std::istringstream in(text);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::string f;
    std::istringstream ls(line);
    while (std::getline(ls, f, ',')) fields.push_back(f);
    if (first) csv.header = fields;
    else csv.rows.push_back(fields);
    first = false;
  }
  return csv;
}

/// The double a CSV field reads back as (strtod, as numpy/Python would).
inline double num(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

}  // namespace prox::test
