// `prox closest --device gpu` and `prox raycast --device gpu`: the tables equal
// MeshIndex<float>'s answers on the float-rounded mesh and queries (what the
// GPU path promises), and without a Vulkan device the command fails with one
// line naming the problem, exit 1, and writes no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "cli/cli_support.hpp"
#include "gpu_support.hpp"
#include "mesh/mesh_support.hpp"
#include "prox/mesh/sign.hpp"

namespace prox::test {
namespace {

std::string mesh_path() { return std::string(PROX_CGAL_DATA_DIR) + "/meshes/bunny00.off"; }

/// Points / rays as text, and the float index the GPU path answers with.
struct Inputs {
  std::vector<Vec3<float>> points;
  std::vector<Ray<float>> rays;
  std::string points_text, rays_text;
};

Inputs make_inputs(const TriangleMesh<float>& m) {
  Inputs in;
  in.points = query_points(m, 400, 3);
  in.rays = query_rays(m, 400, 4);
  std::ostringstream p, r;
  p.precision(9);
  r.precision(9);
  for (const auto& q : in.points) p << q[0] << " " << q[1] << " " << q[2] << "\n";
  for (const auto& q : in.rays)
    r << q.origin[0] << " " << q.origin[1] << " " << q.origin[2] << " " << q.direction[0] << " "
      << q.direction[1] << " " << q.direction[2] << "\n";
  in.points_text = p.str();
  in.rays_text = r.str();
  return in;
}

void use_test_driver() {
  // Under CI's ASan build the prox processes would report the Vulkan
  // driver's own leaks at exit (the driver is unloaded by then, so they
  // cannot be suppressed by module): leak checking is the other tests' job.
  const char* asan = std::getenv("ASAN_OPTIONS");
  setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":detect_leaks=0").c_str(), 1);
  if (*PROX_GPU_TEST_ICD && !std::getenv("VK_ICD_FILENAMES")) {
    setenv("VK_ICD_FILENAMES", PROX_GPU_TEST_ICD, 1);
    setenv("VK_DRIVER_FILES", PROX_GPU_TEST_ICD, 1);
  }
}

std::size_t column(const Csv& csv, const std::string& name) {
  for (std::size_t i = 0; i < csv.header.size(); ++i)
    if (csv.header[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(GpuCli, ClosestAndRaycastEqualTheFloatIndex) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  use_test_driver();
  const MeshIndex<float> index(to_float(cgal_mesh("bunny00.off")));
  const Inputs in = make_inputs(index.mesh());
  TempDir dir;
  spit(dir / "p.txt", in.points_text);
  spit(dir / "r.txt", in.rays_text);

  // --signed: every sign column is SignedMesh<MeshIndex<float>>'s, for auto
  // (pseudonormal on the closed bunny), pseudonormal and parity (signed on the
  // GPU) and winding (on the CPU); stderr says where.
  for (const char* method : {"auto", "pseudonormal", "winding", "parity"}) {
    const RunResult c = run_prox({"closest", mesh_path(), dir / "p.txt", "--device", "gpu",
                                  "--signed", "--sign-method", method});
    ASSERT_EQ(c.code, 0) << c.err;
    const std::string m = method;
    EXPECT_NE(c.err.find(m == "auto" || m == "pseudonormal" ? "sign by pseudonormal on the GPU"
                         : m == "parity"                    ? "sign by parity on the GPU"
                                                            : "sign by winding on the CPU"),
              std::string::npos)
        << c.err;
    const Csv cc = parse_csv(c.out);
    ASSERT_EQ(cc.rows.size(), in.points.size());
    const SignedMesh<MeshIndex<float>> sm(index, SignOptions{parse_sign_method(method), 3});
    std::size_t inside = 0;
    for (std::size_t i = 0; i < in.points.size(); ++i) {
      const auto r = index.closest_point(in.points[i]);
      const auto s = sm.query(in.points[i]);
      inside += s.inside();
      const auto& row = cc.rows[i];
      EXPECT_EQ(num(row[column(cc, "triangle")]), r.triangle) << "point " << i;
      EXPECT_EQ(num(row[column(cc, "closest_x")]), double(r.point[0])) << "point " << i;
      EXPECT_EQ(num(row[column(cc, "u")]), double(r.bary[0])) << "point " << i;
      EXPECT_EQ(row[column(cc, "feature")], to_string(r.feature)) << "point " << i;
      EXPECT_EQ(num(row[column(cc, "signed_distance")]), double(s.signed_distance))
          << method << " point " << i;
      EXPECT_EQ(row[column(cc, "sign_method")], to_string(s.method)) << method << " point " << i;
      EXPECT_EQ(row[column(cc, "confidence")], to_string(s.confidence)) << method << " point " << i;
      if (std::string(method) == "winding") {
        const double wn = num(row[column(cc, "winding_number")]);
        EXPECT_TRUE(wn == double(s.winding_number) || (std::isnan(wn) && std::isnan(s.winding_number)))
            << "point " << i << ": " << wn << " vs " << s.winding_number;
      }
      if (std::string(method) == "parity") {
        EXPECT_EQ(row[column(cc, "inside_votes")],
                  s.votes ? std::to_string(s.inside_votes) + "/" + std::to_string(s.votes) : "")
            << "point " << i;
      }
    }
    EXPECT_GT(inside, 0u) << method;
  }

  const RunResult h = run_prox({"raycast", mesh_path(), dir / "r.txt", "--device", "gpu"});
  ASSERT_EQ(h.code, 0) << h.err;
  const Csv hc = parse_csv(h.out);
  ASSERT_EQ(hc.rows.size(), in.rays.size());
  std::size_t hits = 0;
  for (std::size_t i = 0; i < in.rays.size(); ++i) {
    const auto r = index.first_hit(in.rays[i]);
    hits += r.found();
    EXPECT_EQ(num(hc.rows[i][column(hc, "triangle")]), r.triangle) << "ray " << i;
    if (r.found()) {
      EXPECT_EQ(num(hc.rows[i][column(hc, "t")]), double(r.t)) << "ray " << i;
    }
  }
  EXPECT_GT(hits, 0u);
  const RunResult a = run_prox({"raycast", mesh_path(), dir / "r.txt", "--device", "gpu", "--any"});
  ASSERT_EQ(a.code, 0) << a.err;
  const Csv ac = parse_csv(a.out);
  for (std::size_t i = 0; i < in.rays.size(); ++i)
    EXPECT_EQ(num(ac.rows[i][column(ac, "hit")]), index.any_hit(in.rays[i]) ? 1.0 : 0.0) << "ray " << i;
  const RunResult n = run_prox({"raycast", mesh_path(), dir / "r.txt", "--device", "gpu", "--count"});
  ASSERT_EQ(n.code, 0) << n.err;
  const Csv nc = parse_csv(n.out);
  ASSERT_EQ(nc.rows.size(), in.rays.size());
  std::size_t crossing = 0;
  for (std::size_t i = 0; i < in.rays.size(); ++i) {
    const std::size_t c = index.count_hits(in.rays[i]);
    crossing += c > 0;
    EXPECT_EQ(num(nc.rows[i][column(nc, "count")]), double(c)) << "ray " << i;
  }
  EXPECT_GT(crossing, 0u);
}

TEST(GpuCli, SignedOnUnreliableMeshesAsOnTheCpu) {
  // An open mesh asked for pseudonormal: signed on the GPU, a warning on
  // stderr, every found answer unsure, the columns SignedMesh's; a mesh with
  // no inside (a flat sheet): refused, exit 1, no file (as the CPU path).
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  use_test_driver();
  const std::string open_path = std::string(PROX_CGAL_DATA_DIR) + "/meshes/mesh_with_border.off";
  const MeshIndex<float> index(to_float(cgal_mesh("mesh_with_border.off")));
  const Inputs in = make_inputs(index.mesh());
  TempDir dir;
  spit(dir / "p.txt", in.points_text);
  const RunResult c = run_prox({"closest", open_path, dir / "p.txt", "--device", "gpu", "--signed",
                                "--sign-method", "pseudonormal"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.err.find("warning"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("sign by pseudonormal on the GPU"), std::string::npos) << c.err;
  const Csv cc = parse_csv(c.out);
  ASSERT_EQ(cc.rows.size(), in.points.size());
  const SignedMesh<MeshIndex<float>> sm(index, SignOptions{SignMethod::pseudonormal, 3});
  std::size_t unsure = 0;
  for (std::size_t i = 0; i < in.points.size(); ++i) {
    const auto s = sm.query(in.points[i]);
    const auto& row = cc.rows[i];
    EXPECT_EQ(num(row[column(cc, "signed_distance")]), double(s.signed_distance)) << "point " << i;
    EXPECT_EQ(row[column(cc, "sign_method")], to_string(s.method)) << "point " << i;
    EXPECT_EQ(row[column(cc, "confidence")], to_string(s.confidence)) << "point " << i;
    unsure += s.confidence == SignConfidence::unsure;
  }
  EXPECT_GT(unsure, in.points.size() / 2);
  spit(dir / "sheet.off", "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n3 0 1 2\n3 1 3 2\n");
  const RunResult r = run_prox({"closest", dir / "sheet.off", dir / "p.txt", "--device", "gpu",
                                "--signed", "-o", dir / "s.csv"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("has no inside"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "s.csv"));
}

TEST(GpuCli, NoDeviceIsOneLineExitOneAndNoFile) {
  use_test_driver();
  TempDir dir;
  spit(dir / "p.txt", "0 0 0\n");
  spit(dir / "r.txt", "0 0 -1 0 0 1\n");
  const char* old_icd = std::getenv("VK_ICD_FILENAMES");
  const std::string keep = old_icd ? old_icd : "";
  setenv("VK_ICD_FILENAMES", "/nonexistent/prox-no-driver.json", 1);
  setenv("VK_DRIVER_FILES", "/nonexistent/prox-no-driver.json", 1);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"closest", mesh_path(), dir / "p.txt", "--device", "gpu", "-o", dir / "c.csv"},
           {"raycast", mesh_path(), dir / "r.txt", "--device", "gpu", "-o", dir / "r.csv"}}) {
    const RunResult r = run_prox(args);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("--device gpu: gpu: no Vulkan device"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "c.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir / "r.csv"));
  const RunResult u = run_prox({"raycast", mesh_path(), dir / "r.txt", "--device", "gpu", "--all"});
  EXPECT_EQ(u.code, 2) << u.err;
  EXPECT_NE(u.err.find("not --all"), std::string::npos) << u.err;
  if (keep.empty()) {
    unsetenv("VK_ICD_FILENAMES");
    unsetenv("VK_DRIVER_FILES");
  } else {
    setenv("VK_ICD_FILENAMES", keep.c_str(), 1);
    setenv("VK_DRIVER_FILES", keep.c_str(), 1);
  }
}

}  // namespace
}  // namespace prox::test
