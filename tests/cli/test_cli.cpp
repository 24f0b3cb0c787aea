// tests/cli/test_cli.cpp — every `prox` command on real meshes (CGAL data
// archive) and on generated files in every format, compared value for value
// (the CSV text must read back to the library's exact double) with the
// library's own answers; pictures checked for size and known pixels.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "../support/closed_mesh.hpp"
#include "cli_support.hpp"
#include "prox/image/png.hpp"
#include "prox/io/mesh_topology.hpp"
#include "prox/io/npy.hpp"
#include "prox/io/read_mesh.hpp"
#include "prox/io/shapes.hpp"
#include "prox/io/write_mesh.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/sdf_grid.hpp"
#include "prox/mesh/sign.hpp"
#include "prox/mesh/winding_number.hpp"

using namespace prox;
using namespace prox::test;

namespace {

const std::string bunny = PROX_CGAL_DATA_DIR "/meshes/bunny00.off";

MeshIndex<double> index_of(const std::string& path) {
  io::MeshData d = io::read_mesh(path);
  return MeshIndex<double>(TriangleMesh<double>(d.vertices, d.triangles));
}

// Random points around the mesh, as text (mixed separators, a comment, a blank line).
std::string points_text(const Box3<double>& box, int n, std::vector<Vec3d>& points) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-0.8, 0.8);
  const Vec3d c = box.center(), d = box.diagonal();
  std::string text = "# x y z\n\n";
  for (int i = 0; i < n; ++i) {
    const Vec3d p = c + Vec3d{u(rng) * d[0], u(rng) * d[1], u(rng) * d[2]};
    points.push_back(p);
    char buf[128];
    std::snprintf(buf, sizeof buf, i % 2 ? "%.17g, %.17g, %.17g\n" : "%.17g %.17g\t%.17g  # pt\n",
                  p[0], p[1], p[2]);
    text += buf;
  }
  return text;
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// The column of `name` in the header (fails the test when absent).
std::size_t col(const Csv& csv, const std::string& name) {
  for (std::size_t i = 0; i < csv.header.size(); ++i)
    if (csv.header[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

Vec3d face_normal(const TriangleMesh<double>& mesh, std::int32_t t) {
  if (t < 0) return Vec3d::splat(std::nan(""));
  const Vec3d a = mesh.corner(std::size_t(t), 0);
  const Vec3d g = cross(mesh.corner(std::size_t(t), 1) - a, mesh.corner(std::size_t(t), 2) - a);
  return g / std::sqrt(dot(g, g));
}

const std::vector<std::string> kClosestHeader{
    "query",    "distance", "closest_x", "closest_y", "closest_z",     "triangle",
    "u",        "v",        "w",         "feature",   "normal_x",      "normal_y",
    "normal_z", "face_normal_x", "face_normal_y", "face_normal_z"};

void expect_closest_csv(const std::string& csv_text, const MeshIndex<double>& index,
                        const std::vector<Vec3d>& points, bool with_sign, double max_distance) {
  const Csv csv = parse_csv(csv_text);
  std::vector<std::string> header = kClosestHeader;
  if (with_sign) {
    header.push_back("signed_distance");
    header.push_back("winding_number");
    header.push_back("inside_votes");
    header.push_back("sign_method");
    header.push_back("confidence");
  }
  ASSERT_EQ(csv.header, header);
  const SignedMesh<MeshIndex<double>> signer(index);
  ASSERT_EQ(csv.rows.size(), points.size());
  const std::size_t d = col(csv, "distance"), cx = col(csv, "closest_x"), tri = col(csv, "triangle"),
                    u = col(csv, "u"), feat = col(csv, "feature"), nx = col(csv, "normal_x"),
                    fx = col(csv, "face_normal_x");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& r = csv.rows[i];
    ASSERT_EQ(r.size(), header.size());
    ASSERT_EQ(r[col(csv, "query")], std::to_string(i));
    const MeshClosestPoint<double> e = index.closest_point(points[i], max_distance);
    ASSERT_TRUE(same(num(r[d]), std::sqrt(e.sq_distance))) << i << ": " << r[d];
    for (int k = 0; k < 3; ++k) ASSERT_TRUE(same(num(r[cx + k]), e.point[k])) << i;
    ASSERT_EQ(r[tri], std::to_string(e.triangle));
    for (int k = 0; k < 3; ++k) ASSERT_TRUE(same(num(r[u + k]), e.bary[k])) << i;
    ASSERT_EQ(r[feat], e.found() ? to_string(e.feature) : "none");
    // The face normal is the triangle's; the surface normal equals it on a
    // face and is a unit vector on the triangle's side elsewhere.
    const Vec3d fn = face_normal(index.mesh(), e.triangle);
    Vec3d sn;
    for (int k = 0; k < 3; ++k) {
      ASSERT_TRUE(same(num(r[fx + k]), fn[k])) << i;
      sn[k] = num(r[nx + k]);
    }
    if (e.found() && e.feature == Feature::face) {
      for (int k = 0; k < 3; ++k) ASSERT_TRUE(same(sn[k], fn[k])) << i;
    } else if (e.found()) {
      ASSERT_NEAR(dot(sn, sn), 1.0, 1e-12) << i;
    }
    if (with_sign) {
      const SignedClosestPoint<double> s = signer.query(points[i]);
      ASSERT_TRUE(same(num(r[col(csv, "signed_distance")]), s.signed_distance)) << i;
      ASSERT_TRUE(same(num(r[col(csv, "winding_number")]), s.winding_number)) << i;
      ASSERT_EQ(r[col(csv, "inside_votes")],
                s.votes ? std::to_string(s.inside_votes) + "/" + std::to_string(s.votes)
                        : std::string());
      ASSERT_EQ(r[col(csv, "sign_method")], to_string(s.method));
      ASSERT_EQ(r[col(csv, "confidence")], to_string(s.confidence));
    }
  }
}

}  // namespace

TEST(Cli, HelpForEveryCommand) {
  for (const char* c : {"info", "closest", "raycast", "sphere", "render", "field2d", "demo", "bench",
                        "sdf", "hausdorff", "sample"}) {
    const RunResult r = run_prox({c, "--help"});
    // `prox bench --help` is prox-bench's help, which needs prox-bench.
    const bool no_bench = r.code == 1 && r.err.find("was not built") != std::string::npos;
    if (c == std::string("bench") && no_bench) continue;
    EXPECT_EQ(r.code, 0) << c;
    EXPECT_NE(r.out.find("--threads"), std::string::npos) << c;
  }
  const RunResult top = run_prox({"--help"});
  EXPECT_EQ(top.code, 0);
  EXPECT_NE(top.out.find("closest"), std::string::npos);
}

TEST(Cli, InfoOnTheBunny) {
  const RunResult r = run_prox({"info", bunny});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("vertices      37,706"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("triangles     75,408"), std::string::npos) << r.out;
  const io::MeshTopology t = io::analyze_topology(io::read_mesh(bunny));
  EXPECT_NE(r.out.find(t.closed() ? "closed        yes" : "closed        no"), std::string::npos);
  EXPECT_NE(r.out.find("boundary"), std::string::npos);
  EXPECT_NE(r.out.find("index "), std::string::npos);
  EXPECT_NE(r.out.find("build "), std::string::npos);
}

TEST(Cli, RealFilesOfEveryKindFromTheCgalArchive) {
  const std::string dir = PROX_CGAL_DATA_DIR "/meshes/";
  const struct {
    const char* file;
    const char* triangles;
    const char* closed;
  } cases[] = {{"sphere.stl", "320", "yes"},
               {"pig.stl", "16,848", nullptr},
               {"sphere.ply", "320", "yes"},
               {"colored_tetra.ply", "4", "yes"},
               {"elephant-with-holes.off", nullptr, "no"},
               {"cube_quad.off", "12", "yes"}};  // quads, fan-triangulated
  // A point cloud (no faces): info describes it; the queries refuse it (below).
  const RunResult cloud = run_prox({"info", dir + "b9.ply"});
  EXPECT_EQ(cloud.code, 0) << cloud.err;
  EXPECT_NE(cloud.out.find("0 triangles, 22,300 points"), std::string::npos) << cloud.out;
  for (const auto& c : cases) {
    const RunResult r = run_prox({"info", dir + c.file});
    ASSERT_EQ(r.code, 0) << c.file << ": " << r.err;
    if (c.triangles) {
      EXPECT_NE(r.out.find(std::string("triangles     ") + c.triangles), std::string::npos)
          << c.file << "\n" << r.out;
    }
    if (c.closed) {
      EXPECT_NE(r.out.find(std::string("closed        ") + c.closed), std::string::npos)
          << c.file << "\n" << r.out;
    }
  }
  // A picture of a real mesh; closest points on a file with no triangles are an
  // error (issue 9: no table of misses from a file that holds nothing to query).
  TempDir tmp;
  const RunResult pic =
      run_prox({"render", bunny, "-o", tmp / "b.png", "--size", "120x90", "--view", "-x", "--plain"});
  ASSERT_EQ(pic.code, 0) << pic.err;
  EXPECT_EQ(read_png(tmp / "b.png").width, 120);
  const RunResult none = run_prox({"closest", dir + "b9.ply", "-"}, "1 2 3\n");
  EXPECT_EQ(none.code, 1) << none.err;
  EXPECT_TRUE(none.out.empty()) << none.out;
  EXPECT_NE(none.err.find("holds no triangles"), std::string::npos) << none.err;
}

TEST(Cli, ClosestMatchesTheLibraryExactly) {
  const MeshIndex<double> index = index_of(bunny);
  std::vector<Vec3d> points;
  const std::string text = points_text(index.mesh().bounds(), 400, points);
  TempDir dir;
  spit(dir / "points.txt", text);
  const RunResult r = run_prox({"closest", bunny, dir / "points.txt"});
  ASSERT_EQ(r.code, 0) << r.err;
  expect_closest_csv(r.out, index, points, false, ScalarTraits<double>::infinity());
  // --signed, to a file, reading the points from standard input.
  const RunResult s = run_prox({"closest", bunny, "-", "--signed", "-o", dir / "c.csv"}, text);
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_TRUE(s.out.empty());
  expect_closest_csv(slurp(dir / "c.csv"), index, points, true, ScalarTraits<double>::infinity());
  // --max-distance: misses print nan and triangle -1.
  const double rmax = 0.01;
  const RunResult m = run_prox({"closest", bunny, dir / "points.txt", "--max-distance", "0.01"});
  ASSERT_EQ(m.code, 0) << m.err;
  expect_closest_csv(m.out, index, points, false, rmax);
  EXPECT_NE(m.out.find(",-1,"), std::string::npos);
}

TEST(Cli, ClosestNpyInAndOut) {
  const MeshIndex<double> index = index_of(bunny);
  std::vector<Vec3d> points;
  points_text(index.mesh().bounds(), 100, points);
  points.push_back(Vec3d{std::nan(""), 0, 0});  // a non-finite query: a miss, nothing else disturbed
  TempDir dir;
  {
    std::ofstream f(dir / "p.npy", std::ios::binary);
    io::write_npy(f, &points[0][0], {points.size(), 3});
  }
  const RunResult r = run_prox({"closest", bunny, dir / "p.npy", "-o", dir / "out.npy"});
  ASSERT_EQ(r.code, 0) << r.err;
  const io::NpyArray a = io::parse_npy(slurp(dir / "out.npy"), "out.npy");
  const std::size_t k = kClosestHeader.size();
  ASSERT_EQ(a.shape, (std::vector<std::size_t>{points.size(), k}));
  EXPECT_EQ(a.descr, "<f8");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const MeshClosestPoint<double> e = index.closest_point(points[i]);
    const double* row = &a.data[k * i];
    ASSERT_EQ(row[0], double(i));
    ASSERT_TRUE(same(row[1], std::sqrt(e.sq_distance)));
    for (int j = 0; j < 3; ++j) ASSERT_TRUE(same(row[2 + j], e.point[j]));
    ASSERT_EQ(row[5], e.triangle);
    ASSERT_EQ(row[9], e.found() ? static_cast<double>(e.feature) : -1.0);
  }
  EXPECT_EQ(a.data[k * 100 + 5], -1.0);
  // One column to .npy: that array in its own dtype.
  const RunResult one = run_prox({"closest", bunny, dir / "p.npy", "-o", dir / "ids.npy",
                                  "--columns", "triangle"});
  ASSERT_EQ(one.code, 0) << one.err;
  const io::NpyArray ids = io::parse_npy(slurp(dir / "ids.npy"), "ids.npy");
  EXPECT_EQ(ids.descr, "<i8");
  ASSERT_EQ(ids.shape, (std::vector<std::size_t>{points.size()}));
  for (std::size_t i = 0; i < points.size(); ++i)
    ASSERT_EQ(ids.data[i], index.closest_point(points[i]).triangle);
}

TEST(Cli, RaycastEveryModeMatchesTheLibrary) {
  const MeshIndex<double> index = index_of(bunny);
  const Box3<double> box = index.mesh().bounds();
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-0.7, 0.7);
  std::normal_distribution<double> g;
  std::vector<Ray<double>> rays;
  std::string text;
  for (int i = 0; i < 300; ++i) {
    const Vec3d o = box.center() + Vec3d{u(rng), u(rng), u(rng)} * 0.2;
    Ray<double> ray{o, Vec3d{g(rng), g(rng), g(rng)}};
    char buf[256];
    if (i % 3 == 0) {
      ray.t_min = 0.01;
      ray.t_max = 0.5;
      std::snprintf(buf, sizeof buf, "%.17g %.17g %.17g %.17g %.17g %.17g 0.01 0.5\n", o[0], o[1],
                    o[2], ray.direction[0], ray.direction[1], ray.direction[2]);
    } else {
      std::snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", o[0], o[1], o[2],
                    ray.direction[0], ray.direction[1], ray.direction[2]);
    }
    rays.push_back(ray);
    text += buf;
  }
  TempDir dir;
  spit(dir / "rays.txt", text);
  const RunResult first = run_prox({"raycast", bunny, dir / "rays.txt"});
  ASSERT_EQ(first.code, 0) << first.err;
  const Csv f = parse_csv(first.out);
  const std::vector<std::string> hit_header{"ray",      "t",        "triangle", "u",
                                            "v",        "w",        "hit_x",    "hit_y",
                                            "hit_z",    "normal_x", "normal_y", "normal_z",
                                            "front_face"};
  ASSERT_EQ(f.header, hit_header);
  ASSERT_EQ(f.rows.size(), rays.size());
  std::size_t misses = 0;
  for (std::size_t i = 0; i < rays.size(); ++i) {
    const MeshRayHit<double> h = index.first_hit(rays[i]);
    const auto& r = f.rows[i];
    ASSERT_EQ(r[0], std::to_string(i));
    ASSERT_TRUE(same(num(r[1]), h.t));
    ASSERT_EQ(r[2], std::to_string(h.triangle));
    const Vec3d n = face_normal(index.mesh(), h.triangle);
    for (int k = 0; k < 3; ++k) {
      ASSERT_TRUE(same(num(r[6 + k]), h.found() ? rays[i].origin[k] + h.t * rays[i].direction[k]
                                                  : std::nan("")));
      ASSERT_TRUE(same(num(r[9 + k]), n[k]));
    }
    ASSERT_EQ(r[12], h.front_face ? "1" : "0");
    // front_face: the ray meets the side the normal points to.
    if (h.found()) {
      ASSERT_EQ(h.front_face, dot(rays[i].direction, n) < 0) << i;
    }
    if (h.found()) {
      ASSERT_EQ(num(r[3]), 1.0 - h.u - h.v);
      ASSERT_EQ(num(r[4]), h.u);
      ASSERT_EQ(num(r[5]), h.v);
    } else {
      ++misses;
      ASSERT_EQ(r[1], "inf");
    }
  }
  EXPECT_GT(misses, 0u);
  const RunResult all = run_prox({"raycast", bunny, dir / "rays.txt", "--all"});
  ASSERT_EQ(all.code, 0) << all.err;
  const Csv a = parse_csv(all.out);
  ASSERT_EQ(a.header, hit_header);
  std::size_t row = 0;
  for (std::size_t i = 0; i < rays.size(); ++i) {
    for (const MeshRayHit<double>& h : index.all_hits(rays[i])) {
      ASSERT_LT(row, a.rows.size());
      ASSERT_EQ(a.rows[row][0], std::to_string(i));
      ASSERT_EQ(num(a.rows[row][1]), h.t);
      ASSERT_EQ(a.rows[row][2], std::to_string(h.triangle));
      ++row;
    }
  }
  EXPECT_EQ(row, a.rows.size());
  const RunResult count = run_prox({"raycast", bunny, dir / "rays.txt", "--count", "--threads", "1"});
  const RunResult any = run_prox({"raycast", bunny, dir / "rays.txt", "--any"});
  ASSERT_EQ(count.code, 0);
  ASSERT_EQ(any.code, 0);
  const Csv c = parse_csv(count.out), y = parse_csv(any.out);
  ASSERT_EQ(c.header, (std::vector<std::string>{"ray", "count"}));
  ASSERT_EQ(y.header, (std::vector<std::string>{"ray", "hit"}));
  for (std::size_t i = 0; i < rays.size(); ++i) {
    ASSERT_EQ(c.rows[i][0], std::to_string(i));
    ASSERT_EQ(c.rows[i][1], std::to_string(index.count_hits(rays[i])));
    ASSERT_EQ(y.rows[i][1], index.any_hit(rays[i]) ? "1" : "0");
  }
}

TEST(Cli, EveryFormatGivesTheLibrarysAnswers) {
  // The same knot in every format and encoding: prox info reports the same
  // counts, prox closest the library's answers on that file; formats that keep
  // doubles exactly (all but binary STL) give byte-identical CSV.
  const io::MeshData knot = io::make_knot(0.45, 96, 12);
  TempDir dir;
  std::vector<std::string> files;
  const auto write = [&](const std::string& name, auto&& fn) {
    std::ofstream f(dir / name, std::ios::binary);
    fn(f);
    files.push_back(dir / name);
  };
  write("k.obj", [&](std::ostream& o) { io::write_obj(o, knot); });
  write("k.off", [&](std::ostream& o) { io::write_off(o, knot); });
  write("k_ascii.ply", [&](std::ostream& o) { io::write_ply(o, knot, io::PlyEncoding::ascii); });
  write("k_le.ply",
        [&](std::ostream& o) { io::write_ply(o, knot, io::PlyEncoding::binary_little_endian); });
  write("k_be.ply",
        [&](std::ostream& o) { io::write_ply(o, knot, io::PlyEncoding::binary_big_endian); });
  write("k_ascii.stl", [&](std::ostream& o) { io::write_stl(o, knot, io::StlEncoding::ascii); });
  write("k_bin.stl", [&](std::ostream& o) { io::write_stl(o, knot, io::StlEncoding::binary); });
  std::vector<Vec3d> points;
  const MeshIndex<double> reference(TriangleMesh<double>(knot.vertices, knot.triangles));
  spit(dir / "p.txt", points_text(reference.mesh().bounds(), 150, points));
  std::string exact_csv;
  for (const std::string& f : files) {
    const RunResult info = run_prox({"info", f});
    ASSERT_EQ(info.code, 0) << f << ": " << info.err;
    EXPECT_NE(info.out.find("triangles     2,304"), std::string::npos) << f << info.out;
    EXPECT_NE(info.out.find("vertices      1,152"), std::string::npos) << f << info.out;
    EXPECT_NE(info.out.find("closed        yes"), std::string::npos) << f;
    const RunResult c = run_prox({"closest", f, dir / "p.txt"});
    ASSERT_EQ(c.code, 0) << f << ": " << c.err;
    expect_closest_csv(c.out, index_of(f), points, false, ScalarTraits<double>::infinity());
    if (f.find("k_bin.stl") == std::string::npos) {
      if (exact_csv.empty()) exact_csv = c.out;
      EXPECT_EQ(c.out, exact_csv) << f;
    }
  }
}

TEST(Cli, ThreadCountDoesNotChangeAnswers) {
  std::vector<Vec3d> points;
  TempDir dir;
  spit(dir / "p.txt", points_text(index_of(bunny).mesh().bounds(), 2000, points));
  const RunResult one = run_prox({"closest", bunny, dir / "p.txt", "--threads", "1", "--signed"});
  const RunResult two = run_prox({"closest", bunny, dir / "p.txt", "--threads", "2", "--signed"});
  ASSERT_EQ(one.code, 0);
  EXPECT_EQ(one.out, two.out);
}

TEST(Cli, RenderPicturesHaveTheirSizeAndKnownPixels) {
  // Unit sphere: from +z the eye is sqrt(12) away; 60 degree field of view.
  TempDir dir;
  const std::string sphere = dir / "sphere.ply";
  io::write_mesh(sphere, io::make_sphere(1.0, 48, 96));
  const Rgb8 background{22, 24, 31};
  for (const char* mode : {"depth", "normal", "id", "distance"}) {
    const std::string png = dir / (std::string(mode) + ".png");
    const RunResult r =
        run_prox({"render", sphere, "-o", png, "--size", "80x60", "--mode", mode, "--plain"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Image img = read_png(png);
    ASSERT_EQ(img.width, 80);
    ASSERT_EQ(img.height, 60);
    const Rgb8 centre = img.at(40, 30);
    EXPECT_NE(centre, background) << mode;
    if (std::string(mode) == "distance") {
      // The plane z = 0 cuts the sphere in a circle of radius 1 = 60/4 = 15 pixels:
      // the outline blends to white there (blue channel > 150; the amber glow
      // and bands stay below ~110), and the centre, 1 away, is glow.
      EXPECT_LT(centre.b, 110);
      bool outline = false;
      for (int x = 53; x <= 57; ++x) outline |= img.at(x, 30).b > 150;
      EXPECT_TRUE(outline) << "no outline pixel at radius 15";
      for (int x = 30; x <= 50; ++x) EXPECT_LT(img.at(x, 30).b, 150) << x;
    } else {
      EXPECT_EQ(img.at(0, 0), background) << mode;
      EXPECT_EQ(img.at(79, 59), background) << mode;
    }
    if (std::string(mode) == "depth") {
      EXPECT_GE(centre.r, 250);  // the nearest point is (nearly) white
    }
    if (std::string(mode) == "normal") {
      // Facing the eye: normal (0, 0, 1) -> blue channel brightest.
      EXPECT_GT(centre.b, centre.r);
      EXPECT_GT(centre.b, centre.g);
    }
  }
  // --view -x: the eye on the -x side; a silhouette of the same size.
  const RunResult side =
      run_prox({"render", sphere, "-o", dir / "side.png", "--size", "80x60", "--view", "-x", "--plain"});
  ASSERT_EQ(side.code, 0) << side.err;
  EXPECT_EQ(read_png(dir / "side.png").at(40, 30).r, read_png(dir / "side.png").at(40, 30).r);
}

TEST(Cli, Field2dPicture) {
  TempDir dir;
  const RunResult r = run_prox({"field2d", "-o", dir / "f.png", "--size", "500x350", "--plain"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Image img = read_png(dir / "f.png");
  ASSERT_EQ(img.width, 500);
  ASSERT_EQ(img.height, 350);
  // Default scene: circle at (720, 200), radius 95, drawn at half scale: its
  // outline crosses row 100 near x = (720 + 95) / 2 = 407.5; its centre is far from any outline.
  // Outline pixels blend to white (blue > 150); the amber glow has blue < 110.
  bool outline = false;
  for (int x = 405; x <= 410; ++x) outline |= img.at(x, 100).b > 150;
  EXPECT_TRUE(outline);
  EXPECT_LT(img.at(360, 100).b, 110);
  const RunResult s = run_prox({"field2d", "-o", dir / "s.png", "--signed", "--plain"});
  ASSERT_EQ(s.code, 0) << s.err;
  const Image signed_img = read_png(dir / "s.png");
  EXPECT_EQ(signed_img.width, 1000);
  EXPECT_EQ(signed_img.height, 700);
  EXPECT_NE(signed_img.at(720, 200), img.at(360, 100));  // inside is coloured differently
}

TEST(Cli, Field2dSceneFile) {
  TempDir dir;
  spit(dir / "scene.txt", "canvas 200 100\ncircle 50 50 30\nbox 120 20 180 80\n");
  const RunResult r = run_prox({"field2d", dir / "scene.txt", "-o", dir / "s.png", "--band", "0", "--plain"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Image img = read_png(dir / "s.png");
  ASSERT_EQ(img.width, 200);
  ASSERT_EQ(img.height, 100);
  EXPECT_GT(img.at(80, 50).b, 150);   // on the circle's outline (x = 50 + 30)
  EXPECT_GT(img.at(120, 50).b, 150);  // on the box's left side
  EXPECT_LT(img.at(100, 50).b, 110);  // between them
  spit(dir / "bad.txt", "circle 1 2\n");
  const RunResult bad = run_prox({"field2d", dir / "bad.txt", "-o", dir / "b.png"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("bad.txt:1:"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "b.png"));
}

TEST(Cli, DemoWritesEveryPictureItNames) {
  TempDir dir;
  const RunResult r = run_prox({"demo", "-o", dir / "d", "--queries", "2000", "--size", "64x48"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* f : {"sphere-normal.png", "torus-normal.png", "knot-normal.png",
                        "knot-depth.png", "knot-id.png", "knot-distance.png", "knot-slice.vti",
                        "field2d.png", "field2d-signed.png"}) {
    EXPECT_NE(r.out.find(f), std::string::npos) << f;
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "d" / f)) << f;
  }
  EXPECT_EQ(read_png(dir.path() / "d" / "knot-normal.png").width, 64);
  EXPECT_NE(r.out.find("300/300 = brute force"), std::string::npos) << r.out;
  // Nothing but the named files (no temporaries left behind).
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path() / "d")) ++n;
  EXPECT_EQ(n, 9u);
}

TEST(Cli, BenchRunsTheBenchmarkProgram) {
  const RunResult r = run_prox({"bench", "--quick", "--workloads", "cp-near", "--threads", "1",
                                "--peers", "cgal", "--data", PROX_CGAL_DATA_DIR "/meshes"});
  if (r.code == 1 && r.err.find("was not built") != std::string::npos) {
    GTEST_SKIP() << "benchmark not built";
  }
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("bunny"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cp-near"), std::string::npos) << r.out;
}

TEST(Cli, BenchRunsProxBenchBesideItWithTheSameArgumentsAndStatus) {
  // An installed layout: bin/prox and bin/prox-bench. The stand-in prox-bench
  // prints its arguments one per line and exits 7; prox bench must pass every
  // argument unchanged (spaces, --help) and exit with its status.
  const TempDir dir;
  const std::filesystem::path prox = dir.path() / "prox", bench = dir.path() / "prox-bench";
  std::filesystem::copy_file(PROX_CLI_PATH, prox);
  spit(bench, "#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done\nexit 7\n");
  std::filesystem::permissions(bench, std::filesystem::perms::owner_all);
  const std::string out = dir / "out";
  const std::string cmd = quote_arg(prox.string()) + " bench --quick 'two words' --help >" +
                          quote_arg(out) + " 2>&1 </dev/null";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
  EXPECT_EQ(slurp(out), "[--quick]\n[two words]\n[--help]\n");
}

namespace {
// The tetrahedron: closed, one face flipped; its centre (0.2, 0.2, 0.2) is inside.
io::MeshData flipped_tetra() {
  io::MeshData d;
  d.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  d.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 3, 2}};
  return d;
}
}  // namespace

TEST(Cli, SignIsSaidHonestly) {
  TempDir dir;
  io::write_mesh(dir / "tet.off", flipped_tetra());
  const RunResult info = run_prox({"info", dir / "tet.off"});
  ASSERT_EQ(info.code, 0) << info.err;
  EXPECT_NE(info.out.find("closed        yes"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("oriented      no (3 edges"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("sign          sign exact by ray parity"), std::string::npos) << info.out;
  // auto: parity, right and sure.
  const RunResult a = run_prox({"closest", dir / "tet.off", "-", "--signed"}, "0.2 0.2 0.2\n");
  ASSERT_EQ(a.code, 0) << a.err;
  Csv c = parse_csv(a.out);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(num(c.rows[0][col(c, "signed_distance")]), -0.2);
  EXPECT_EQ(c.rows[0][col(c, "inside_votes")], "3/3");
  EXPECT_EQ(c.rows[0][col(c, "sign_method")], "parity");
  EXPECT_EQ(c.rows[0][col(c, "confidence")], "sure");
  // winding on it: marked unsure, with a warning.
  const RunResult w = run_prox(
      {"closest", dir / "tet.off", "-", "--signed", "--sign-method", "winding"}, "0.2 0.2 0.2\n");
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_NE(w.err.find("warning"), std::string::npos) << w.err;
  c = parse_csv(w.out);
  EXPECT_EQ(c.rows[0][col(c, "confidence")], "unsure");
  EXPECT_GT(num(c.rows[0][col(c, "winding_number")]), 0.3);
  EXPECT_LT(num(c.rows[0][col(c, "winding_number")]), 0.7);
  // --reorient: fixed, pseudonormal, sure, no warning.
  const RunResult r = run_prox({"closest", dir / "tet.off", "-", "--signed", "--reorient"},
                               "0.2 0.2 0.2\n");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("1 triangles flipped"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  c = parse_csv(r.out);
  EXPECT_EQ(num(c.rows[0][col(c, "signed_distance")]), -0.2);
  EXPECT_EQ(c.rows[0][col(c, "sign_method")], "pseudonormal");
  EXPECT_EQ(c.rows[0][col(c, "confidence")], "sure");
  // A sheet: --signed refused; a point cloud: warned.
  io::MeshData sheet;
  sheet.vertices = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}};
  sheet.triangles = {{0, 1, 2}};
  io::write_mesh(dir / "sheet.off", sheet);
  const RunResult s = run_prox({"closest", dir / "sheet.off", "-", "--signed"}, "0 0 1\n");
  EXPECT_EQ(s.code, 1);
  EXPECT_NE(s.err.find("no inside"), std::string::npos) << s.err;
  EXPECT_TRUE(s.out.empty());
  const RunResult sd = run_prox({"sdf", dir / "sheet.off", "-o", dir / "s.npy"});
  EXPECT_EQ(sd.code, 1);
  EXPECT_FALSE(std::filesystem::exists(dir / "s.npy"));
  const RunResult cloud =
      run_prox({"closest", PROX_CGAL_DATA_DIR "/meshes/b9.ply", "-"}, "1 2 3\n");
  EXPECT_EQ(cloud.code, 1);  // a file with no triangles cannot be queried (issue 9)
  EXPECT_NE(cloud.err.find("no triangles"), std::string::npos) << cloud.err;
  EXPECT_TRUE(cloud.out.empty());
  EXPECT_EQ(run_prox({"closest", dir / "tet.off", "-", "--reorient"}, "0 0 0\n").code, 2);
}

TEST(Cli, SdfGridFiles) {
  TempDir dir;
  const std::string mesh = PROX_CGAL_DATA_DIR "/meshes/elephant.off";
  const RunResult one = run_prox({"sdf", mesh, "-o", dir / "g1.npy", "--res", "20", "--threads", "1"});
  ASSERT_EQ(one.code, 0) << one.err;
  const RunResult two = run_prox({"sdf", mesh, "-o", dir / "g2.npy", "--res", "20", "--threads", "2"});
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_EQ(slurp(dir / "g1.npy"), slurp(dir / "g2.npy"));
  const std::string json = slurp(dir / "g1.json");
  EXPECT_NE(json.find("\"dims_xyz\""), std::string::npos) << json;
  EXPECT_NE(json.find("x fastest"), std::string::npos) << json;
  // Every node against the library's independent query.
  const MeshIndex<double> index = index_of(mesh);
  const SignedMesh<MeshIndex<double>> sm(index);
  const GridSpec g = grid_over_box(index.mesh().bounds(), 0.1, 20);
  const io::NpyArray a = io::parse_npy(slurp(dir / "g1.npy"), "g1.npy");
  ASSERT_EQ(a.shape, (std::vector<std::size_t>{g.dims[2], g.dims[1], g.dims[0]}));
  for (std::size_t k = 0; k < g.dims[2]; ++k)
    for (std::size_t j = 0; j < g.dims[1]; ++j)
      for (std::size_t i = 0; i < g.dims[0]; ++i)
        ASSERT_TRUE(same(a.data[g.index(i, j, k)], sm.query(g.node(i, j, k)).signed_distance))
            << i << " " << j << " " << k;
  // .npz: a ZIP whose members are .npy files; .vti: XML.
  ASSERT_EQ(run_prox({"sdf", mesh, "-o", dir / "g.npz", "--res", "8x6x5", "--float32"}).code, 0);
  const std::string z = slurp(dir / "g.npz");
  EXPECT_EQ(z.substr(0, 4), std::string("PK\x03\x04", 4));
  EXPECT_NE(z.find("sdf.npy"), std::string::npos);
  EXPECT_NE(z.find("spacing.npy"), std::string::npos);
  ASSERT_EQ(run_prox({"sdf", mesh, "-o", dir / "g.vti", "--dx", "0.2", "--band", "0.05"}).code, 0);
  EXPECT_NE(slurp(dir / "g.vti").find("ImageData"), std::string::npos);
  // A slice picture: blue inside, orange outside, a black zero contour.
  ASSERT_EQ(run_prox({"sdf", mesh, "-o", dir / "s.npy", "--res", "24", "--slice", "z=0.5"}).code, 0);
  const Image pic = read_png(dir / "s.slice-z.png");
  int blue = 0, orange = 0, black = 0;
  for (int y = 0; y < pic.height; ++y)
    for (int x = 0; x < pic.width; ++x) {
      const Rgb8 c = pic.at(x, y);
      blue += c.b > c.r + 20;
      orange += c.r > c.b + 60;
      black += c.r == 0 && c.g == 0 && c.b == 0;
    }
  EXPECT_GT(blue, 1000);
  EXPECT_GT(orange, 1000);
  EXPECT_GT(black, 100);
  EXPECT_EQ(run_prox({"sdf", mesh, "-o", dir / "s.npy", "--slice", "w=0.5"}).code, 2);
  EXPECT_EQ(run_prox({"sdf", mesh, "-o", dir / "s.npy", "--slice", "z=1.5"}).code, 2);
  // Wrong usage.
  EXPECT_EQ(run_prox({"sdf", mesh, "-o", dir / "g.txt"}).code, 2);
  EXPECT_EQ(run_prox({"sdf", mesh, "-o", dir / "g.npy", "--res", "12x3"}).code, 2);
  EXPECT_EQ(run_prox({"sdf", mesh, "-o", dir / "g.npy", "--res", "1"}).code, 2);
  EXPECT_EQ(run_prox({"sdf", mesh, "-o", dir / "g.npy", "--res", "8", "--dx", "0.1"}).code, 2);
}

// --surface: the zero level set as a closed, outward mesh, read back by prox's
// own reader; from an open mesh (elephant-with-holes, signed by winding) it is
// closed, and its volume is the closed elephant's.
TEST(Cli, SdfSurfaceIsClosed) {
  TempDir dir;
  const std::string holes = PROX_CGAL_DATA_DIR "/meshes/elephant-with-holes.off";
  const RunResult r = run_prox({"sdf", holes, "-o", dir / "h.npy", "--res", "32", "--surface",
                                dir / "h.ply"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("surface"), std::string::npos) << r.out;
  const io::MeshData m = io::read_mesh(dir / "h.ply");
  ASSERT_GT(m.triangles.size(), 500u);
  EXPECT_EQ(prox::test::unpaired_directed_edges(m.triangles), 0u)
      << "not closed and consistently oriented";
  auto volume = [](const std::vector<Vec3d>& v, const auto& tris) {
    double s = 0;
    for (const auto& t : tris) s += dot(v[t[0]], cross(v[t[1]], v[t[2]])) / 6;
    return s;
  };
  const io::MeshData closed = io::read_mesh(PROX_CGAL_DATA_DIR "/meshes/elephant.off");
  const double want = volume(closed.vertices, closed.triangles);
  EXPECT_GT(want, 0);
  EXPECT_NEAR(volume(m.vertices, m.triangles), want, 0.1 * want);
  // Other formats; a wrong extension is a usage error and writes nothing.
  ASSERT_EQ(run_prox({"sdf", holes, "-o", dir / "h.npy", "--res", "12", "--surface",
                      dir / "h.obj"}).code, 0);
  EXPECT_GT(io::read_mesh(dir / "h.obj").triangles.size(), 10u);
  EXPECT_EQ(run_prox({"sdf", holes, "-o", dir / "x.npy", "--surface", dir / "h.txt"}).code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir / "x.npy"));
}
