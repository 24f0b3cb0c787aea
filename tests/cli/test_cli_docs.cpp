// tests/cli/test_cli_docs.cpp — the documented examples are what prox prints.
//
// In docs/cli.md and README.md, a fenced block right after the line
//   <!-- checked by tests/cli/test_cli_docs.cpp -->
// is a shell session: each "$ command" line is run by bash (in a fresh folder
// holding bunny00.off from the CGAL data archive, with `prox` on PATH), and
// the lines up to the next "$" are its standard output, compared exactly.
// Commands of one block share the folder, so a printf can make an input file.
// PROX_UPDATE_DOCS=1 rewrites the files with what prox printed (then review
// the diff): the docs are regenerated, and this test keeps them from going
// stale.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cli_support.hpp"

using namespace prox::test;

namespace {

const std::string kMarker = "<!-- checked by tests/cli/test_cli_docs.cpp -->";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string run_in(const std::string& dir, const std::string& command) {
  const std::string bin = std::filesystem::path(PROX_CLI_PATH).parent_path().string();
  const std::string script = dir + "/.cmd.sh";
  spit(script, "cd " + quote_arg(dir) + " && PATH=" + quote_arg(bin) + ":\"$PATH\" && " +
                   command + "\n");
  const std::string out = dir + "/.out";
  const int status = std::system(("bash " + quote_arg(script) + " >" + quote_arg(out) +
                                  " 2>/dev/null </dev/null").c_str());
  EXPECT_EQ(status, 0) << command;
  return slurp(out);
}

// Checks (or, with update, rewrites) every marked block of one file; returns the new text.
std::string check_file(const std::string& path, bool update, int& blocks) {
  const std::vector<std::string> in = lines_of(slurp(path));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    out.push_back(in[i]);
    if (in[i] != kMarker) continue;
    ++blocks;
    EXPECT_TRUE(i + 1 < in.size() && in[i + 1].rfind("```", 0) == 0) << path << ":" << i + 2;
    out.push_back(in[++i]);
    TempDir dir;
    std::filesystem::create_symlink(PROX_CGAL_DATA_DIR "/meshes/bunny00.off", dir / "bunny00.off");
    ++i;
    while (i < in.size() && in[i].rfind("```", 0) != 0) {
      EXPECT_EQ(in[i].rfind("$ ", 0), 0u) << path << ":" << i + 1 << ": expected a $ command";
      const std::string command = in[i].substr(2);
      out.push_back(in[i++]);
      std::string expected;
      while (i < in.size() && in[i].rfind("$ ", 0) != 0 && in[i].rfind("```", 0) != 0)
        expected += in[i++] + "\n";
      const std::string actual = run_in(dir.path().string(), command);
      if (update) {
        for (const std::string& l : lines_of(actual)) out.push_back(l);
      } else {
        EXPECT_EQ(actual, expected) << path << ": $ " << command
                                    << "\n(PROX_UPDATE_DOCS=1 ctest -R Docs rewrites the file)";
        for (const std::string& l : lines_of(expected)) out.push_back(l);
      }
    }
    if (i < in.size()) out.push_back(in[i]);
  }
  std::string text;
  for (const std::string& l : out) text += l + "\n";
  return text;
}

}  // namespace

TEST(Docs, EveryCheckedExampleIsWhatProxPrints) {
  const char* env = std::getenv("PROX_UPDATE_DOCS");
  const bool update = env && std::string(env) == "1";
  int blocks = 0;
  for (const char* file : {"/docs/cli.md", "/README.md"}) {
    const std::string path = std::string(PROX_SOURCE_DIR) + file;
    const std::string text = check_file(path, update, blocks);
    if (update) spit(path, text);
  }
  EXPECT_GE(blocks, 4) << "the marked examples went missing";
}
