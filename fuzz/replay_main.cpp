// fuzz/replay_main.cpp — the fuzz targets without libFuzzer: a main() that
// any compiler builds (tests/fuzz/CMakeLists.txt links it with each target
// into the ordinary release and ASan/UBSan builds, so CI needs no clang).
//
//   fuzz_replay_NAME [--seconds S] [--seed N] [--crash-dir DIR] PATH...
//
// 1. Replays every file in PATH... (files, or folders read one level deep):
//    the seed corpus and the saved findings, each input once.
// 2. For S seconds (default 0) feeds the target random mutations of those
//    inputs (bit flips, byte edits, inserted/deleted/duplicated ranges,
//    splices of two inputs, tokens of the text formats, special 32-bit
//    values of the binary ones): fresh fuzzing without coverage guidance,
//    a cheap complement to scripts/fuzz.sh's libFuzzer runs.
// A finding is whatever ends the process (an abort from the target's own
// checks, an ASan/UBSan report, a crash): the input is written first to
// DIR/crash-NAME-SEED-RUN (default: the working folder) and its path printed
// ("finding: input written to ..."; replay it with fuzz_replay_NAME FILE, or
// with scripts/fuzz.sh's libFuzzer build); the exit status is not 0.
// The run is deterministic for a given --seed (PROX_FUZZ_SEED), which it prints.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#include <sanitizer/common_interface_defs.h>
#define PROX_HAVE_SANITIZER_CALLBACK 1
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

constexpr std::size_t kMaxLen = 65536;

// The input being run, for the death handlers (set before every run).
const std::uint8_t* g_data = nullptr;
std::size_t g_size = 0;
char g_crash_path[4096] = {};

void dump_current() {
  static volatile std::sig_atomic_t done = 0;
  if (done || g_data == nullptr) return;
  done = 1;
  const int fd = ::open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    std::size_t off = 0;
    while (off < g_size) {
      const ssize_t w = ::write(fd, g_data + off, g_size - off);
      if (w <= 0) break;
      off += std::size_t(w);
    }
    ::close(fd);
  }
  const char head[] = "\nfinding: input written to ";
  (void)!::write(2, head, sizeof head - 1);
  (void)!::write(2, g_crash_path, std::strlen(g_crash_path));
  (void)!::write(2, "\n", 1);
}

extern "C" void on_signal(int sig) {
  dump_current();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::vector<std::string> load_inputs(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  auto add = [&](const std::filesystem::path& f) {
    std::ifstream in(f, std::ios::binary);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (s.size() > kMaxLen) s.resize(kMaxLen);
    out.push_back(std::move(s));
  };
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());  // a fixed order: runs repeat for a seed
      for (const auto& f : files) add(f);
    } else if (std::filesystem::is_regular_file(p, ec)) {
      add(p);
    } else {
      std::fprintf(stderr, "fuzz replay: %s: no such file or folder\n", p.c_str());
      std::exit(2);
    }
  }
  return out;
}

/// Tokens of prox's text formats and numbers that parsers get wrong.
const char* const kTokens[] = {
    "0", "1", "-1", "3", "4294967295", "18446744073709551616", "1e308", "1e309", "-1e-320",
    "nan", "inf", "-0", "0x1p3", "1.5e", ".", " ", "\n", "\r\n", "\r", "#", "/", "v ", "f ",
    "vn ", "vt ", "solid ", "facet normal ", "outer loop", "vertex ", "endloop", "endfacet",
    "endsolid", "ply\n", "format ascii 1.0\n", "format binary_little_endian 1.0\n",
    "element vertex ", "element face ", "property float x\n", "property double y\n",
    "property list uchar int vertex_indices\n", "end_header\n", "OFF\n", "3 0 1 2\n",
    "\x93NUMPY", "{'descr': '<f8', 'fortran_order': False, 'shape': (", "), }", "<f4", ">f8",
    "circle ", "box ", "polygon ", "capsule ", "segment ", ",", ";"};

/// Special 32-bit words (counts, float bits) for the binary formats.
const std::uint32_t kWords[] = {0u,          1u,          3u,          0x7fffffffu, 0x80000000u,
                                0xffffffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000001u,
                                0x00800000u, 0x7f7fffffu, 0x5e000000u, 0x1e000000u, 0x40000000u};

class Mutator {
 public:
  Mutator(std::uint64_t seed, const std::vector<std::string>& pool) : rng_(seed), pool_(pool) {}

  std::string next() {
    std::string s = pool_.empty() ? std::string() : pool_[pick(pool_.size())];
    const int edits = 1 + int(pick(8));
    for (int i = 0; i < edits; ++i) edit(s);
    if (s.size() > kMaxLen) s.resize(kMaxLen);
    return s;
  }

 private:
  std::size_t pick(std::size_t n) { return n == 0 ? 0 : std::size_t(rng_() % n); }

  void edit(std::string& s) {
    const std::size_t at = pick(s.size() + 1);
    switch (pick(9)) {
      case 0:  // flip a bit
        if (!s.empty()) s[pick(s.size())] ^= char(1u << pick(8));
        break;
      case 1:  // a random byte
        if (!s.empty()) s[pick(s.size())] = char(rng_());
        break;
      case 2: {  // insert random bytes
        std::string r(1 + pick(8), '\0');
        for (char& c : r) c = char(rng_());
        s.insert(at, r);
        break;
      }
      case 3:  // delete a range
        if (at < s.size()) s.erase(at, 1 + pick(std::min<std::size_t>(s.size() - at, 64)));
        break;
      case 4:  // duplicate a range
        if (at < s.size()) {
          const std::string r = s.substr(at, 1 + pick(std::min<std::size_t>(s.size() - at, 256)));
          s.insert(pick(s.size() + 1), r);
        }
        break;
      case 5:  // splice: a piece of another input
        if (!pool_.empty()) {
          const std::string& o = pool_[pick(pool_.size())];
          if (!o.empty()) {
            const std::size_t from = pick(o.size());
            s.insert(at, o.substr(from, 1 + pick(o.size() - from)));
          }
        }
        break;
      case 6:  // a token
        s.insert(at, kTokens[pick(std::size(kTokens))]);
        break;
      case 7:  // overwrite a 32-bit word
        if (s.size() >= 4) {
          const std::uint32_t w = kWords[pick(std::size(kWords))];
          std::memcpy(&s[pick(s.size() - 3)], &w, 4);
        }
        break;
      default: {  // replace a digit run by a token
        std::size_t b = at;
        while (b < s.size() && !(s[b] >= '0' && s[b] <= '9')) ++b;
        std::size_t e = b;
        while (e < s.size() && ((s[e] >= '0' && s[e] <= '9') || s[e] == '.' || s[e] == 'e'))
          ++e;
        if (b < s.size()) s.replace(b, e - b, kTokens[pick(std::size(kTokens))]);
        break;
      }
    }
  }

  std::mt19937_64 rng_;
  const std::vector<std::string>& pool_;
};

int usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s [--seconds S] [--seed N] [--crash-dir DIR] PATH...\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string name = std::filesystem::path(argv[0]).filename().string();
  double seconds = 0;
  std::uint64_t seed = 0;
  bool have_seed = false;
  std::string crash_dir = ".";
  std::vector<std::string> paths;
  if (const char* e = std::getenv("PROX_FUZZ_SEED")) {
    seed = std::strtoull(e, nullptr, 10);
    have_seed = true;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--seconds" || a == "--seed" || a == "--crash-dir") && i + 1 < argc) {
      const char* v = argv[++i];
      if (a == "--seconds") seconds = std::strtod(v, nullptr);
      if (a == "--seed") seed = std::strtoull(v, nullptr, 10), have_seed = true;
      if (a == "--crash-dir") crash_dir = v;
    } else if (!a.empty() && a[0] == '-') {
      return usage(argv[0]);
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) return usage(argv[0]);
  if (!have_seed) seed = std::random_device{}();

  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, on_signal);
#ifdef PROX_HAVE_SANITIZER_CALLBACK
  __sanitizer_set_death_callback(dump_current);
#endif

  const std::vector<std::string> inputs = load_inputs(paths);
  auto run = [&](const std::string& s, const std::string& tag) {
    std::snprintf(g_crash_path, sizeof g_crash_path, "%s/crash-%s-%s", crash_dir.c_str(),
                  name.c_str(), tag.c_str());
    g_data = reinterpret_cast<const std::uint8_t*>(s.data());
    g_size = s.size();
    LLVMFuzzerTestOneInput(g_data, g_size);
    g_data = nullptr;
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) run(inputs[i], "replay-" + std::to_string(i));

  std::size_t mutated = 0;
  const auto start = std::chrono::steady_clock::now();
  const std::string seed_tag = std::to_string(seed);
  if (seconds > 0) {
    Mutator mutator(seed, inputs);
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
           seconds) {
      const std::string s = mutator.next();
      run(s, seed_tag + "-" + std::to_string(mutated));
      ++mutated;
    }
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %zu inputs replayed, %zu mutated inputs in %.1f s (seed %s), no finding\n",
              name.c_str(), inputs.size(), mutated, took, seed_tag.c_str());
  return 0;
}
