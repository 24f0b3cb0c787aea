// tests/cli/test_cli_errors.cpp — the command on malformed input and wrong
// usage: exit 1 (bad input) or 2 (usage), one clear line on stderr naming the
// file, and no output file left behind (not even a temporary).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "cli_support.hpp"
#include "prox/io/shapes.hpp"
#include "prox/io/write_mesh.hpp"

using namespace prox;
using namespace prox::test;

namespace {

std::size_t lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

std::size_t files_in(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

struct BadFile {
  const char* name;
  std::string bytes;
  const char* expect;
};

std::string random_bytes(std::size_t n, unsigned seed) {
  std::string b(n, '\0');
  unsigned x = seed;
  for (char& c : b) {
    x = x * 1103515245u + 12345u;
    c = char((x >> 16) & 0xff);
    if (c == '\n' || c == '\r') c = ' ';  // one line: no OBJ statement can start
  }
  b[0] = '#';  // sniffed as OBJ whatever the bytes (OBJ has no magic)
  return b;
}

std::vector<BadFile> corpus() {
  std::ostringstream ply(std::ios::binary);
  io::write_ply(ply, io::make_torus(1, 0.3, 4, 3), io::PlyEncoding::binary_little_endian);
  std::ostringstream stl(std::ios::binary);
  io::write_stl(stl, io::make_torus(1, 0.3, 4, 3), io::StlEncoding::binary);
  const std::string p = ply.str(), s = stl.str();
  return {
      {"empty.off", "", "empty file"},
      {"empty.ply", "", "empty file"},
      {"truncated.ply", p.substr(0, p.size() - 7), "truncated"},
      {"header-only.ply", p.substr(0, p.find("end_header") + 11), "bytes are left"},
      {"truncated.stl", s.substr(0, s.size() - 1), "truncated"},
      {"huge.off", "OFF\n1000000000000 5 0\n0 0 0\n", "bytes follow"},
      {"nan.off", "OFF\n3 1 0\n0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n", "line 4: non-finite"},
      {"badnum.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0x\nf 1 2 3\n", "line 3: bad number"},
      {"negative.ply",
       "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
       "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
       "0 0 0\n1 0 0\n0 1 0\n3 0 -2 1\n",
       "negative vertex index -2"},
      {"range.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", "vertex index 3"},
      {"garbage.stl", std::string("\x01\x02garbage\xff\xfe", 11), "shorter than"},
      {"garbage.bin", std::string(100, '\x07'), "unknown mesh format"},
      // Files that parse but hold no mesh (issue 9): an error, not an empty mesh.
      {"hello.obj", "hello world\n", "holds no mesh"},
      {"random.obj", random_bytes(2048, 9), "holds no mesh"},
      {"comments.obj", "# nothing here\nusemtl x\n", "holds no mesh"},
      {"points.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n", "holds no triangles"},
      {"points.off", "OFF\n3 0 0\n0 0 0\n1 0 0\n0 1 0\n", "holds no triangles"},
      {"novertex.ply",
       "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\n"
       "property float z\nend_header\n",
       "holds no mesh"},
      {"empty.stl", std::string(80, ' ') + std::string(4, '\0'), "holds no mesh"},
      {"far.off", "OFF\n3 1 0\n0 0 0\n1e300 0 0\n0 1 0\n3 0 1 2\n", "outside prox's double range"},
  };
}

}  // namespace

TEST(CliErrors, MalformedMeshesExitOneWithOneLineAndNoOutput) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "out");
  spit(dir / "p.txt", "0 0 0\n1 1 1\n");
  spit(dir / "r.txt", "0 0 5 0 0 -1\n");
  for (const BadFile& b : corpus()) {
    const std::string mesh = dir / b.name;
    spit(mesh, b.bytes);
    const std::vector<std::vector<std::string>> commands = {
        {"info", mesh},
        {"closest", mesh, dir / "p.txt", "-o", (dir.path() / "out" / "c.csv").string()},
        {"raycast", mesh, dir / "r.txt", "-o", (dir.path() / "out" / "r.npy").string()},
        {"render", mesh, "-o", (dir.path() / "out" / "x.png").string(), "--size", "8x8"},
    };
    for (const auto& args : commands) {
      // A file of points is described by info (tests/cli/test_cli_outputs.cpp, CliInfo).
      if (args[0] == "info" && std::string(b.expect) == "holds no triangles") continue;
      const RunResult r = run_prox(args);
      EXPECT_EQ(r.code, 1) << b.name << " " << args[0] << ": " << r.err;
      EXPECT_EQ(lines(r.err), 1u) << b.name << ": " << r.err;
      EXPECT_NE(r.err.find(mesh), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(b.expect), std::string::npos) << b.name << ": " << r.err;
      EXPECT_EQ(r.err.rfind("prox " + args[0] + ": ", 0), 0u) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
      EXPECT_EQ(files_in(dir.path() / "out"), 0u) << b.name << " " << args[0];
    }
  }
}

TEST(CliErrors, BadPointsAndRays) {
  TempDir dir;
  const std::string mesh = dir / "t.off";
  io::write_mesh(mesh, io::make_torus(1, 0.3, 8, 6));
  const struct {
    const char* command;
    const char* text;
    const char* expect;
  } cases[] = {
      {"closest", "0 0 0\n1 2\n", "line 2: expected 3 numbers, found 2"},
      {"closest", "0 0 0\n1 2 zz\n", "line 2: bad number 'zz'"},
      {"closest", "0 0 0\n1 2 3 4\n", "found 4"},
      {"raycast", "0 0 0 1 0 0 5\n", "line 1: expected 6 or 8 numbers, found 7"},
      {"raycast", "0 0 0 1 0\n", "found 5"},
      {"closest", "\x93NUMPY\x01", "truncated .npy header"},
      {"closest", "\x93NUMPY\x01\x01\x10", "truncated .npy header"},
  };
  for (const auto& c : cases) {
    spit(dir / "q.txt", c.text);
    const std::string out = dir / "o.csv";
    const RunResult r = run_prox({c.command, mesh, dir / "q.txt", "-o", out});
    EXPECT_EQ(r.code, 1) << c.text;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(dir / "q.txt"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  const RunResult missing = run_prox({"closest", mesh, dir / "nope.txt"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos) << missing.err;
  const RunResult no_mesh = run_prox({"info", dir / "nope.ply"});
  EXPECT_EQ(no_mesh.code, 1);
  EXPECT_NE(no_mesh.err.find("nope.ply: cannot open"), std::string::npos) << no_mesh.err;
}

TEST(CliErrors, WrongUsageExitsTwo) {
  TempDir dir;
  const std::string mesh = dir / "t.off";
  io::write_mesh(mesh, io::make_torus(1, 0.3, 8, 6));
  spit(dir / "p.txt", "0 0 0\n");
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"frobnicate"},
      {"closest", mesh},
      {"closest", mesh, dir / "p.txt", "--bogus"},
      {"closest", mesh, dir / "p.txt", "-o", dir / "x.txt"},
      {"closest", mesh, dir / "p.txt", "--max-distance", "-1"},
      {"closest", mesh, dir / "p.txt", "--threads", "-2"},
      {"raycast", mesh, dir / "p.txt", "--any", "--all"},
      {"render", mesh, "-o", dir / "x.png", "--size", "100"},
      {"render", mesh, "-o", dir / "x.png", "--size", "0x10"},
      {"render", mesh, "-o", dir / "x.png", "--mode", "xray"},
      {"render", mesh, "-o", dir / "x.png", "--view", "0,0,0"},
      {"render", mesh, "-o", dir / "x.jpg"},
      {"render", mesh},
      {"field2d", "-o", dir / "f.bmp"},
      // Found from outside (stop 40): a NaN radius given, and a text column
      // asked for in an array file.
      {"sphere", mesh, dir / "p.txt", "--radius", "nan"},
      {"hausdorff", mesh, mesh, "--samples", "-5"},
      {"sample", mesh, "-n", "-5", "-o", dir / "s.npy"},
      {"field2d", "-o", dir / "f.png", "--band", "-1"},
      {"field2d", "-o", dir / "f.png", "--band", "nan"},
      {"closest", mesh, dir / "p.txt", "--signed", "--columns", "inside_votes", "-o",
       dir / "x.npy"},
  };
  for (const auto& args : cases) {
    const RunResult r = run_prox(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.code, 2) << joined << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << joined << ": " << r.err;
    EXPECT_NE(r.err.find("--help"), std::string::npos) << r.err;
  }
  EXPECT_EQ(files_in(dir.path()), 2u);  // only t.off and p.txt
}

// Values CLI11's own checks let through (NaN compares false with everything)
// and grids whose nodes leave the coordinate range (found from outside,
// stop 40: --dx nan wrote the default grid, --padding 1e150 a grid of +inf).
TEST(CliErrors, SdfRefusesNanValuesAndNodesOutOfRange) {
  TempDir dir;
  const std::string mesh = dir / "t.off";
  io::write_mesh(mesh, io::make_torus(1, 0.3, 8, 6));
  for (const char* flag : {"--dx", "--padding", "--band"}) {
    const RunResult r = run_prox({"sdf", mesh, "-o", dir / "g.npy", flag, "nan"});
    EXPECT_EQ(r.code, 2) << flag << ": " << r.err;
    EXPECT_NE(r.err.find("nan"), std::string::npos) << r.err;
  }
  const RunResult far = run_prox({"sdf", mesh, "-o", dir / "g.npy", "--res", "8", "--padding", "1e150"});
  EXPECT_EQ(far.code, 1) << far.err;
  EXPECT_NE(far.err.find("beyond the coordinates"), std::string::npos) << far.err;
  EXPECT_EQ(files_in(dir.path()), 1u);  // only t.off
}

// A command writing several files checks every output before the work: a
// bad later output leaves neither a new earlier file nor a replaced one
// (found from outside, stop 40: the grid was written, then --surface failed).
TEST(CliErrors, EveryOutputIsCheckedBeforeAnyIsWritten) {
  TempDir dir;
  const std::string mesh = dir / "t.off";
  io::write_mesh(mesh, io::make_torus(1, 0.3, 8, 6));
  spit(dir / "old.npz", "keep me");
  std::filesystem::create_directory(dir / "folder.png");
  std::filesystem::create_directory(dir / "x.json");
  const std::vector<std::vector<std::string>> cases = {
      {"sdf", mesh, "-o", dir / "old.npz", "--res", "8", "--surface", dir / "none/s.ply"},
      {"sdf", mesh, "-o", dir / "old.npz", "--res", "8", "--slice", "z=0.5", "--slice-out",
       dir / "folder.png"},
      {"sdf", mesh, "-o", dir / "x.npy", "--res", "8"},  // its sidecar x.json is a folder
      {"render", mesh, "-o", dir / "r.png", "--size", "16x16", "--out-depth", dir / "d.npy",
       "--out-ids", dir / "d.npy"},
      {"render", mesh, "-o", dir / "folder.png", "--size", "16x16", "--out-depth", dir / "d.npy"},
      {"hausdorff", mesh, mesh, "-o", dir / "old.npz", "--picture", dir / "folder.png"},
  };
  for (const auto& args : cases) {
    const RunResult r = run_prox(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.code, 1) << joined << ": " << r.err;
    EXPECT_NE(r.err.find("cannot write"), std::string::npos) << joined << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << joined << ": " << r.err;
  }
  EXPECT_EQ(slurp(dir / "old.npz"), "keep me");
  EXPECT_EQ(files_in(dir.path()), 4u);  // t.off, old.npz and the two folders
}
