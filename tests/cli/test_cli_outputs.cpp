// tests/cli/test_cli_outputs.cpp — the `prox` outputs as users read them:
// .npz archives (read back member by member, CRCs checked, equal to the CSV of
// the same run), --columns, --float32, --precision float against the float
// index, prox sphere against the library, render's numeric buffers and camera
// rays against first_hit, -o - and /dev/null, the summary line and the absence
// of progress lines when stderr is a file, rays that cannot hit reported.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>

#include "cli_support.hpp"
#include "prox/image/annotate.hpp"
#include "prox/image/png.hpp"
#include "prox/io/mesh_topology.hpp"
#include "prox/io/npy.hpp"
#include "prox/io/read_mesh.hpp"
#include "prox/io/shapes.hpp"
#include "prox/io/write_mesh.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/sdf_grid.hpp"
#include "prox/mesh/sign.hpp"

using namespace prox;
using namespace prox::test;

namespace {

const std::string bunny = PROX_CGAL_DATA_DIR "/meshes/bunny00.off";

template <class T>
MeshIndex<T> index_of(const std::string& path) {
  io::MeshData d = io::read_mesh(path);
  std::vector<Vec3<T>> v;
  for (const Vec3d& p : d.vertices) v.push_back(Vec3<T>{T(p[0]), T(p[1]), T(p[2])});
  return MeshIndex<T>(TriangleMesh<T>(v, d.triangles));
}

std::uint32_t le32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (int k = 3; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(s[at + std::size_t(k)]);
  return v;
}
std::uint32_t le16(const std::string& s, std::size_t at) {
  return static_cast<unsigned char>(s[at]) | (std::uint32_t(static_cast<unsigned char>(s[at + 1])) << 8);
}

// A stored ZIP read from its central directory (what numpy.load does): name ->
// .npy bytes; every CRC and local header checked against the directory.
std::map<std::string, io::NpyArray> read_npz(const std::string& z) {
  std::map<std::string, io::NpyArray> out;
  EXPECT_GE(z.size(), 22u);
  const std::size_t eocd = z.size() - 22;
  EXPECT_EQ(le32(z, eocd), 0x06054b50u);
  const std::uint32_t entries = le16(z, eocd + 10);
  std::size_t at = le32(z, eocd + 16);
  EXPECT_EQ(at + le32(z, eocd + 12), eocd);
  for (std::uint32_t e = 0; e < entries; ++e) {
    EXPECT_EQ(le32(z, at), 0x02014b50u);
    EXPECT_EQ(le16(z, at + 10), 0u) << "stored, not compressed";
    const std::uint32_t crc = le32(z, at + 16), size = le32(z, at + 20);
    EXPECT_EQ(size, le32(z, at + 24));
    const std::uint32_t name_len = le16(z, at + 28), extra = le16(z, at + 30);
    const std::string name = z.substr(at + 46, name_len);
    const std::size_t local = le32(z, at + 42);
    EXPECT_EQ(le32(z, local), 0x04034b50u);
    EXPECT_EQ(le32(z, local + 14), crc);
    EXPECT_EQ(z.substr(local + 30, le16(z, local + 26)), name);
    const std::size_t data = local + 30 + le16(z, local + 26) + le16(z, local + 28);
    const std::string bytes = z.substr(data, size);
    EXPECT_EQ(io::crc32(bytes.data(), bytes.size()), crc) << name;
    EXPECT_EQ(name.substr(name.size() - 4), ".npy");
    out[name.substr(0, name.size() - 4)] = io::parse_npy(bytes, name);
    at += 46 + name_len + extra;
  }
  return out;
}

std::size_t col(const Csv& csv, const std::string& name) {
  for (std::size_t i = 0; i < csv.header.size(); ++i)
    if (csv.header[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

std::string random_points(const Box3<double>& box, int n, std::vector<Vec3d>& points) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-0.7, 0.7);
  std::string text;
  for (int i = 0; i < n; ++i) {
    const Vec3d p = box.center() + Vec3d{u(rng), u(rng), u(rng)} * std::sqrt(squared_norm(box.diagonal()));
    points.push_back(p);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.17g %.17g %.17g\n", p[0], p[1], p[2]);
    text += buf;
  }
  return text;
}

}  // namespace

TEST(CliOutputs, Crc32IsTheZipOne) {
  // The check value of CRC-32/ISO-HDLC.
  EXPECT_EQ(io::crc32("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(io::crc32("", 0), 0u);
}

TEST(CliOutputs, NpzHoldsOneArrayPerColumnEqualToTheCsv) {
  const MeshIndex<double> index = index_of<double>(bunny);
  std::vector<Vec3d> points;
  TempDir dir;
  spit(dir / "p.txt", random_points(index.mesh().bounds(), 300, points) + "nan 0 0\n");
  const RunResult csv_run = run_prox({"closest", bunny, dir / "p.txt", "--signed"});
  const RunResult npz_run = run_prox({"closest", bunny, dir / "p.txt", "--signed", "-o", dir / "c.npz"});
  ASSERT_EQ(csv_run.code, 0) << csv_run.err;
  ASSERT_EQ(npz_run.code, 0) << npz_run.err;
  const Csv csv = parse_csv(csv_run.out);
  const auto npz = read_npz(slurp(dir / "c.npz"));
  ASSERT_EQ(npz.size(), csv.header.size() - 1);  // inside_votes is text: CSV only
  const std::map<std::string, std::string> dtypes{
      {"query", "<i8"}, {"triangle", "<i8"}, {"feature", "|i1"}, {"distance", "<f8"}};
  for (const std::string& name : csv.header) {
    if (name == "inside_votes") continue;
    ASSERT_TRUE(npz.count(name)) << name;
    const io::NpyArray& a = npz.at(name);
    ASSERT_EQ(a.shape, std::vector<std::size_t>{csv.rows.size()}) << name;
    if (dtypes.count(name)) {
      EXPECT_EQ(a.descr, dtypes.at(name)) << name;
    }
    const std::size_t c = col(csv, name);
    for (std::size_t i = 0; i < csv.rows.size(); ++i) {
      const std::string& text = csv.rows[i][c];
      if (name == "feature" || name == "sign_method" || name == "confidence") {
        if (name != "feature") continue;  // labelled codes: checked in test_cli
        const double code = a.data[i];
        EXPECT_EQ(text, code < 0 ? "none" : to_string(static_cast<Feature>(int(code)))) << i;
      } else {
        ASSERT_TRUE(same(a.data[i], num(text))) << name << " row " << i;
      }
    }
  }
  EXPECT_EQ(npz.at("triangle").data.back(), -1.0);  // the NaN query: a miss
  // --float32 and --columns: only those arrays, as float32.
  const RunResult f32 = run_prox({"closest", bunny, dir / "p.txt", "-o", dir / "f.npz", "--float32",
                                  "--columns", "distance,triangle"});
  ASSERT_EQ(f32.code, 0) << f32.err;
  const auto small = read_npz(slurp(dir / "f.npz"));
  ASSERT_EQ(small.size(), 2u);
  EXPECT_EQ(small.at("distance").descr, "<f4");
  EXPECT_EQ(small.at("triangle").descr, "<i8");
  for (std::size_t i = 0; i < points.size(); ++i)
    ASSERT_EQ(small.at("distance").data[i],
              double(float(std::sqrt(index.closest_point(points[i]).sq_distance))));
}

TEST(CliOutputs, ColumnsOptionChoosesAndOrders) {
  TempDir dir;
  spit(dir / "p.txt", "0 0 0\n0.1 0.2 0.3\n");
  const RunResult r = run_prox({"closest", bunny, dir / "p.txt", "--columns", "triangle,query,distance"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Csv c = parse_csv(r.out);
  EXPECT_EQ(c.header, (std::vector<std::string>{"triangle", "query", "distance"}));
  EXPECT_EQ(c.rows[1][1], "1");
  const RunResult bad = run_prox({"closest", bunny, dir / "p.txt", "--columns", "distance,nope"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("no column 'nope'"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("closest_x"), std::string::npos) << "lists the known columns: " << bad.err;
  EXPECT_TRUE(bad.out.empty());
}

TEST(CliOutputs, FloatPrecisionGivesTheFloatIndexsAnswers) {
  const MeshIndex<float> index = index_of<float>(bunny);
  std::vector<Vec3d> points;
  TempDir dir;
  spit(dir / "p.txt", random_points(index_of<double>(bunny).mesh().bounds(), 200, points));
  const RunResult r = run_prox({"closest", bunny, dir / "p.txt", "--precision", "float"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("float index"), std::string::npos) << r.err;
  const Csv c = parse_csv(r.out);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Vec3f p{float(points[i][0]), float(points[i][1]), float(points[i][2])};
    const MeshClosestPoint<float> e = index.closest_point(p);
    ASSERT_EQ(num(c.rows[i][col(c, "distance")]), double(std::sqrt(e.sq_distance))) << i;
    ASSERT_EQ(c.rows[i][col(c, "triangle")], std::to_string(e.triangle)) << i;
  }
  // Rays too.
  spit(dir / "r.txt", "0 0 -2 0.01 0.02 1\n0.05 0.1 2 0 0 -1\n");
  const RunResult h = run_prox({"raycast", bunny, dir / "r.txt", "--precision", "float"});
  ASSERT_EQ(h.code, 0) << h.err;
  const Csv hc = parse_csv(h.out);
  const MeshRayHit<float> e0 = index.first_hit(Ray<float>{Vec3f{0, 0, -2}, Vec3f{0.01f, 0.02f, 1}});
  EXPECT_EQ(num(hc.rows[0][col(hc, "t")]), double(e0.t));
  EXPECT_EQ(hc.rows[0][col(hc, "triangle")], std::to_string(e0.triangle));
  EXPECT_EQ(run_prox({"closest", bunny, dir / "p.txt", "--precision", "half"}).code, 2);
}

TEST(CliOutputs, SphereGivesTheLibrarysTriangles) {
  const MeshIndex<double> index = index_of<double>(bunny);
  std::vector<Vec3d> centers;
  TempDir dir;
  const std::string text = random_points(index.mesh().bounds(), 60, centers);
  spit(dir / "c.txt", text);
  const double radius = 0.05;
  const RunResult r = run_prox({"sphere", bunny, dir / "c.txt", "--radius", "0.05"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Csv c = parse_csv(r.out);
  ASSERT_EQ(c.header, (std::vector<std::string>{"sphere", "overlaps", "count", "triangles"}));
  std::size_t overlapping = 0;
  for (std::size_t i = 0; i < centers.size(); ++i) {
    const std::vector<std::uint32_t> e = index.sphere_triangles(centers[i], radius);
    std::string ids;
    for (const std::uint32_t t : e) ids += (ids.empty() ? "" : " ") + std::to_string(t);
    ASSERT_EQ(c.rows[i][0], std::to_string(i));
    ASSERT_EQ(c.rows[i][1], index.sphere_overlaps(centers[i], radius) ? "1" : "0") << i;
    ASSERT_EQ(c.rows[i][2], std::to_string(e.size()));
    ASSERT_EQ(c.rows[i].size() > 3 ? c.rows[i][3] : "", ids) << i;
    overlapping += e.empty() ? 0 : 1;
  }
  EXPECT_GT(overlapping, 0u);
  EXPECT_LT(overlapping, centers.size());
  // A radius per row (4 columns), into .npz (CSR ids).
  std::string four;
  for (std::size_t i = 0; i < centers.size(); ++i) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.17g %.17g %.17g %.17g\n", centers[i][0], centers[i][1],
                  centers[i][2], 0.01 * double(i % 7));
    four += buf;
  }
  spit(dir / "c4.txt", four);
  const RunResult z = run_prox({"sphere", bunny, dir / "c4.txt", "-o", dir / "s.npz"});
  ASSERT_EQ(z.code, 0) << z.err;
  const auto npz = read_npz(slurp(dir / "s.npz"));
  const io::NpyArray& off = npz.at("triangle_offsets");
  const io::NpyArray& ids = npz.at("triangle_ids");
  ASSERT_EQ(off.shape, std::vector<std::size_t>{centers.size() + 1});
  for (std::size_t i = 0; i < centers.size(); ++i) {
    const std::vector<std::uint32_t> e = index.sphere_triangles(centers[i], 0.01 * double(i % 7));
    ASSERT_EQ(off.data[i + 1] - off.data[i], double(e.size())) << i;
    for (std::size_t k = 0; k < e.size(); ++k)
      ASSERT_EQ(ids.data[std::size_t(off.data[i]) + k], double(e[k]));
  }
  const RunResult none = run_prox({"sphere", bunny, dir / "c.txt"});
  EXPECT_NE(none.code, 0);
  EXPECT_NE(none.err.find("--radius"), std::string::npos) << none.err;
  EXPECT_TRUE(none.out.empty());
}

TEST(CliOutputs, RenderBuffersAndRaysAreTheFirstHitsThroughEachPixel) {
  const MeshIndex<double> index = index_of<double>(bunny);
  TempDir dir;
  const int w = 64, h = 48;
  const RunResult r = run_prox({"render", bunny, "--size", "64x48", "--eye", "2,1.5,3", "--fov", "35",
                                "--out-depth", dir / "d.npy", "--out-ids", dir / "i.npy",
                                "--out-normals", dir / "n.npy", "--rays", dir / "rays.npy"});
  ASSERT_EQ(r.code, 0) << r.err;
  const io::NpyArray d = io::parse_npy(slurp(dir / "d.npy"), "d");
  const io::NpyArray ids = io::parse_npy(slurp(dir / "i.npy"), "i");
  const io::NpyArray n = io::parse_npy(slurp(dir / "n.npy"), "n");
  const io::NpyArray rays = io::parse_npy(slurp(dir / "rays.npy"), "rays");
  ASSERT_EQ(d.shape, (std::vector<std::size_t>{std::size_t(h), std::size_t(w)}));
  EXPECT_EQ(ids.descr, "<i8");
  ASSERT_EQ(n.shape, (std::vector<std::size_t>{std::size_t(h), std::size_t(w), 3}));
  ASSERT_EQ(rays.shape, (std::vector<std::size_t>{std::size_t(w * h), 6}));
  std::size_t hits = 0;
  for (std::size_t i = 0; i < std::size_t(w * h); ++i) {
    const double* q = &rays.data[6 * i];
    const Ray<double> ray{Vec3d{q[0], q[1], q[2]}, Vec3d{q[3], q[4], q[5]}};
    EXPECT_EQ(ray.origin, (Vec3d{2, 1.5, 3}));
    const MeshRayHit<double> e = index.first_hit(ray);
    ASSERT_EQ(ids.data[i], double(e.triangle)) << i;
    ASSERT_EQ(d.data[i], e.t) << i;
    ASSERT_EQ(std::isnan(n.data[3 * i]), !e.found()) << i;
    hits += e.found() ? 1 : 0;
  }
  EXPECT_GT(hits, std::size_t(w * h) / 20);
  EXPECT_LT(hits, std::size_t(w * h));
  // The rays file feeds prox raycast: the same ids, pixel by pixel.
  const RunResult rc = run_prox({"raycast", bunny, dir / "rays.npy", "--columns", "triangle", "-o",
                                 dir / "t.npy"});
  ASSERT_EQ(rc.code, 0) << rc.err;
  EXPECT_EQ(io::parse_npy(slurp(dir / "t.npy"), "t").data, ids.data);
  // The picture to standard output is a PNG.
  const RunResult png = run_prox({"render", bunny, "--size", "32x24", "-o", "-"});
  ASSERT_EQ(png.code, 0) << png.err;
  EXPECT_EQ(png.out.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(run_prox({"render", bunny}).code, 2);  // nothing to write
  EXPECT_EQ(run_prox({"render", bunny, "-o", dir / "x.png", "--eye", "1,1,1", "--up", "1,1,1",
                      "--target", "0,0,0"})
                .code,
            2);
}

TEST(CliOutputs, StandardOutputDevNullSummaryAndNoProgressInLogs) {
  TempDir dir;
  std::vector<Vec3d> points;
  spit(dir / "p.txt", random_points(index_of<double>(bunny).mesh().bounds(), 50, points));
  const RunResult a = run_prox({"closest", bunny, dir / "p.txt", "-o", "-"});
  const RunResult b = run_prox({"closest", bunny, dir / "p.txt"});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  const RunResult null = run_prox({"closest", bunny, dir / "p.txt", "-o", "/dev/null"});
  EXPECT_EQ(null.code, 0) << null.err;
  EXPECT_TRUE(null.out.empty());
  // stderr is a file here: no carriage-return progress, one summary line.
  EXPECT_EQ(b.err.find('\r'), std::string::npos);
  EXPECT_NE(b.err.find("prox closest: 50 points, 50 found"), std::string::npos) << b.err;
  // Rays that cannot hit are counted, not silently missed.
  spit(dir / "r.txt", "0 0 -2 0 0 1 5 1\n0 0 -2 0 0 0\n0 0 -2 0 0 1\n");
  const RunResult rc = run_prox({"raycast", bunny, dir / "r.txt"});
  ASSERT_EQ(rc.code, 0) << rc.err;
  EXPECT_NE(rc.err.find("2 rays cannot hit"), std::string::npos) << rc.err;
  EXPECT_NE(rc.err.find("1 with t_min > t_max"), std::string::npos) << rc.err;
}

TEST(CliOutputs, OptionErrorsInProxsWords) {
  const RunResult t = run_prox({"closest", bunny, "-", "--threads", "99999"}, "0 0 0\n");
  EXPECT_EQ(t.code, 2);
  EXPECT_NE(t.err.find("from 0 (all cores) to 4096"), std::string::npos) << t.err;
  const RunResult m = run_prox({"closest", bunny, "-", "--max-distance", "-3"}, "0 0 0\n");
  EXPECT_EQ(m.code, 2);
  EXPECT_NE(m.err.find("above 0"), std::string::npos) << m.err;
  // No 300-digit range numbers anywhere, and no validator names in --help.
  for (const RunResult& r : {t, m, run_prox({"closest", "--help"}), run_prox({"raycast", "--help"})}) {
    EXPECT_EQ(r.err.find("1.79769"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("POSITIVE"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("INT in ["), std::string::npos) << r.out;
  }
}

TEST(CliOutputs, PicturesCarryACaptionAndAColourBar) {
  TempDir dir;
  const std::string png = dir / "d.png";
  const RunResult r = run_prox({"render", bunny, "-o", png, "--size", "200x150", "--mode",
                                "distance", "--signed", "--plane", "z=0.1"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Image img = read_png(png);
  EXPECT_GT(img.width, 200);   // the colour-bar panel
  EXPECT_GT(img.height, 150);  // the caption strip
  const Rgb8 panel = img.at(img.width - 1, img.height - 1);
  int caption_ink = 0, bar = 0;
  for (int y = 150; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) caption_ink += img.at(x, y) == panel ? 0 : 1;
  for (int y = 0; y < 150; ++y) bar += img.at(206, y) == panel ? 0 : 1;
  EXPECT_GT(caption_ink, 300) << "the caption names the mesh, mode and plane";
  EXPECT_GT(bar, 100) << "a colour bar beside the picture";
  // The summary no longer claims the plane is on the mesh.
  EXPECT_EQ(r.err.find("of pixels on the mesh"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("signed distance on the plane"), std::string::npos) << r.err;
  // --plain: exactly --size.
  const RunResult p = run_prox({"render", bunny, "-o", dir / "p.png", "--size", "64x48", "--plain"});
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(read_png(dir / "p.png").width, 64);
  // field2d too.
  const RunResult f = run_prox({"field2d", "-o", dir / "f.png", "--size", "300x210", "--signed"});
  ASSERT_EQ(f.code, 0) << f.err;
  const Image fi = read_png(dir / "f.png");
  EXPECT_GT(fi.width, 300);
  EXPECT_GT(fi.height, 210);
  EXPECT_EQ(run_prox({"render", bunny, "-o", dir / "x.png", "--signed"}).code, 2);  // not distance mode
}

// `prox info` on a file of points: described (exit 0), not refused; the query
// commands keep refusing it; a file with nothing in it stays an error.
TEST(CliInfo, APointCloudIsDescribedNotRefused) {
  const RunResult cloud = run_prox({"info", PROX_CGAL_DATA_DIR "/meshes/b9.ply"});
  ASSERT_EQ(cloud.code, 0) << cloud.err;
  EXPECT_NE(cloud.out.find("vertices      22,300\n"), std::string::npos) << cloud.out;
  EXPECT_NE(cloud.out.find("triangles     0\n"), std::string::npos) << cloud.out;
  EXPECT_NE(cloud.out.find("0 triangles, 22,300 points: prox answers nothing on it"),
            std::string::npos) << cloud.out;
  // Its bounds are the points' box, as read_mesh returns them.
  const io::MeshData d = io::read_mesh(PROX_CGAL_DATA_DIR "/meshes/b9.ply");
  Box3<double> box = Box3<double>::empty();
  for (const Vec3d& v : d.vertices) box.extend(v);
  char expect[200];
  std::snprintf(expect, sizeof expect, "bounds        min (%.6g, %.6g, %.6g)", box.lo[0],
                box.lo[1], box.lo[2]);
  EXPECT_NE(cloud.out.find(expect), std::string::npos) << cloud.out;
  TempDir dir;
  spit(dir / "pts.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 2 2 2\n");
  const RunResult five = run_prox({"info", dir / "pts.obj"});
  ASSERT_EQ(five.code, 0) << five.err;
  EXPECT_NE(five.out.find("0 triangles, 5 points"), std::string::npos) << five.out;
  EXPECT_NE(five.out.find("max (2, 2, 2)"), std::string::npos) << five.out;
  spit(dir / "p.txt", "0 0 0\n");
  const RunResult closest = run_prox({"closest", dir / "pts.obj", dir / "p.txt"});
  EXPECT_EQ(closest.code, 1);
  EXPECT_NE(closest.err.find("holds no triangles (5 vertices"), std::string::npos) << closest.err;
  spit(dir / "nothing.obj", "# nothing\n");
  const RunResult nothing = run_prox({"info", dir / "nothing.obj"});
  EXPECT_EQ(nothing.code, 1);
  EXPECT_NE(nothing.err.find("holds no mesh"), std::string::npos) << nothing.err;
}

namespace {
// "memory        double index X (B bytes per triangle), float index Y (F bytes per triangle"
std::pair<double, double> bytes_per_triangle(const std::string& out) {
  const std::size_t at = out.find("memory        double index ");
  EXPECT_NE(at, std::string::npos) << out;
  if (at == std::string::npos) return {0, 0};
  const std::size_t d = out.find('(', at), f = out.find("float index", at);
  const std::size_t fp = out.find('(', f);
  return {std::strtod(out.c_str() + d + 1, nullptr), std::strtod(out.c_str() + fp + 1, nullptr)};
}
}  // namespace

// Both memory figures are the built indexes' own (MeshIndex<T>::memory_bytes).
TEST(CliInfo, ReportsTheMemoryOfBothIndexes) {
  const RunResult r = run_prox({"info", bunny});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto [per_d, per_f] = bytes_per_triangle(r.out);
  const MeshIndex<double> di = index_of<double>(bunny);
  const MeshIndex<float> fi = index_of<float>(bunny);
  const double n = double(di.mesh().num_triangles());
  EXPECT_NEAR(per_d, double(di.memory_bytes()) / n, 0.051) << r.out;
  EXPECT_NEAR(per_f, double(fi.memory_bytes()) / n, 0.051) << r.out;
  EXPECT_LT(per_f, per_d);
}

// STL cracks: boundary edges after the exact merge, with a hint that tells
// rounding cracks (they close within a tolerance) from holes.
TEST(CliInfo, WarnsAboutStlCracks) {
  TempDir dir;
  const io::MeshData torus = io::make_torus(1, 0.35, 24, 12);  // closed
  io::write_mesh(dir / "clean.stl", torus);
  const RunResult clean = run_prox({"info", dir / "clean.stl"});
  ASSERT_EQ(clean.code, 0) << clean.err;
  EXPECT_EQ(clean.out.find("cracks"), std::string::npos) << clean.out;
  EXPECT_EQ(clean.err.find("crack"), std::string::npos) << clean.err;
  EXPECT_NE(clean.out.find("closed        yes"), std::string::npos) << clean.out;

  // One corner of one triangle moved by 1e-6 (kept by float32): a rounding crack.
  io::MeshData cracked = torus;
  cracked.vertices.push_back(cracked.vertices[cracked.triangles[5][1]] + Vec3d{1e-6, 0, 0});
  cracked.triangles[5][1] = std::uint32_t(cracked.vertices.size() - 1);
  const io::MeshTopology ct = io::analyze_topology(cracked);
  ASSERT_GT(ct.boundary_edges, 0u);
  io::write_mesh(dir / "cracked.stl", cracked);
  const RunResult r = run_prox({"info", dir / "cracked.stl"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("cracks        " + std::to_string(ct.boundary_edges) +
                       " boundary edges after merging exactly equal corners; 0 left"),
            std::string::npos) << r.out;
  EXPECT_NE(r.err.find("warning: " + (dir / "cracked.stl") + ": STL cracks"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("weld the vertices within a tolerance"), std::string::npos) << r.err;

  // A triangle removed: a hole, which no weld closes.
  io::MeshData holed = torus;
  holed.triangles.erase(holed.triangles.begin() + 7);
  io::write_mesh(dir / "holed.stl", holed);
  const RunResult h = run_prox({"info", dir / "holed.stl"});
  ASSERT_EQ(h.code, 0) << h.err;
  EXPECT_NE(h.out.find("cracks        3 boundary edges after merging exactly equal corners; 3 left"),
            std::string::npos) << h.out;
  EXPECT_NE(h.err.find("holes"), std::string::npos) << h.err;
  // The same hole in an OFF file is no STL crack: reported as boundary edges only.
  io::write_mesh(dir / "holed.off", holed);
  const RunResult off = run_prox({"info", dir / "holed.off"});
  EXPECT_EQ(off.out.find("cracks"), std::string::npos) << off.out;
  EXPECT_NE(off.out.find("(3 boundary, 0 non-manifold)"), std::string::npos) << off.out;
}

// The distance slice (neighbour-bounded searches) is, pixel for pixel and bit
// for bit, the unbounded closest-point query at the pixel's point on the plane
// (and SignedMesh's signed distance with --signed); the picture and the .npy
// come from one computation.
TEST(CliRender, DistanceSliceIsTheUnboundedQueryAtEveryPixel) {
  const MeshIndex<double> index = index_of<double>(bunny);
  const SignedMesh<MeshIndex<double>> signed_mesh(index);
  const Box3<double> b = index.mesh().bounds();
  const Vec3d target = b.center() + Vec3d{0.013, -0.007, 0.002};
  const Vec3d eye = target + Vec3d{0.09, 0.05, 0.25};
  char e[120], t[120];
  std::snprintf(e, sizeof e, "%.17g,%.17g,%.17g", eye[0], eye[1], eye[2]);
  std::snprintf(t, sizeof t, "%.17g,%.17g,%.17g", target[0], target[1], target[2]);
  const double depth = std::sqrt(squared_norm(target - eye));  // the camera's focus
  TempDir dir;
  for (const bool is_signed : {false, true}) {
    std::vector<std::string> args{"render", bunny, "--mode", "distance", "--size", "72x54",
                                  "--eye", e, "--target", t, "--rays", dir / "rays.npy",
                                  "--out-distance", dir / "d.npy", "-o", dir / "s.png"};
    if (is_signed) args.push_back("--signed");
    const RunResult r = run_prox(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const io::NpyArray d = io::parse_npy(slurp(dir / "d.npy"), "d");
    const io::NpyArray rays = io::parse_npy(slurp(dir / "rays.npy"), "rays");
    ASSERT_EQ(d.shape, (std::vector<std::size_t>{54, 72}));
    std::size_t inside = 0;
    for (std::size_t i = 0; i < 72 * 54; ++i) {
      const double* q = &rays.data[6 * i];
      const Ray<double> ray{Vec3d{q[0], q[1], q[2]}, Vec3d{q[3], q[4], q[5]}};
      const Vec3d p = ray.at(depth);
      const double expect = is_signed ? signed_mesh.query(p).signed_distance
                                      : std::sqrt(index.closest_point(p).sq_distance);
      ASSERT_EQ(d.data[i], expect) << "pixel " << i % 72 << "," << i / 72;
      inside += d.data[i] < 0 ? 1 : 0;
    }
    // The plane through the bunny: with --signed some pixels are inside.
    if (is_signed) {
      EXPECT_GT(inside, 50u);
    } else {
      EXPECT_EQ(inside, 0u);
    }
    const Image png = read_png(dir / "s.png");
    EXPECT_GT(png.width, 72);  // the picture and its colour-bar panel
  }
  // --out-distance alone, without a picture; and only in distance mode.
  EXPECT_EQ(run_prox({"render", bunny, "--mode", "distance", "--size", "8x6", "--out-distance",
                      dir / "only.npy"}).code, 0);
  EXPECT_EQ(io::parse_npy(slurp(dir / "only.npy"), "o").shape, (std::vector<std::size_t>{6, 8}));
  EXPECT_EQ(run_prox({"render", bunny, "--size", "8x6", "--out-distance", dir / "x.npy"}).code, 2);
  // --signed on a mesh without inside is refused.
  io::MeshData sheet;
  sheet.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  sheet.triangles = {{0, 1, 2}};
  io::write_mesh(dir / "sheet.off", sheet);
  const RunResult no = run_prox({"render", dir / "sheet.off", "--mode", "distance", "--signed",
                                 "--size", "8x6", "-o", dir / "n.png"});
  EXPECT_EQ(no.code, 1);
  EXPECT_NE(no.err.find("no inside"), std::string::npos) << no.err;
}

// prox sdf's .npz is io::NpzWriter's: members sdf, origin, spacing, dims, CRCs
// checked, sdf equal to the .npy of the same grid; its slice picture carries
// prox::image's colour bar (diverging ends, a zero mark) and a caption.
TEST(CliOutputs, SdfNpzAndSlicePicture) {
  TempDir dir;
  const std::string mesh = dir / "t.off";
  const io::MeshData torus = io::make_torus(1, 0.35, 24, 12);
  io::write_mesh(mesh, torus);
  ASSERT_EQ(run_prox({"sdf", mesh, "-o", dir / "g.npz", "--res", "9x7x5"}).code, 0);
  ASSERT_EQ(run_prox({"sdf", mesh, "-o", dir / "g.npy", "--res", "9x7x5", "--slice", "z=0.5"}).code, 0);
  std::map<std::string, io::NpyArray> z = read_npz(slurp(dir / "g.npz"));
  ASSERT_EQ(z.size(), 4u);
  const io::NpyArray g = io::parse_npy(slurp(dir / "g.npy"), "g");
  EXPECT_EQ(z["sdf"].shape, (std::vector<std::size_t>{5, 7, 9}));
  EXPECT_EQ(z["sdf"].data, g.data);
  EXPECT_EQ(z["dims"].descr, "<i4");
  EXPECT_EQ(z["dims"].data, (std::vector<double>{9, 7, 5}));
  const GridSpec spec = grid_over_box(
      MeshIndex<double>(TriangleMesh<double>(torus.vertices, torus.triangles)).mesh().bounds(), 0.1,
      std::array<std::size_t, 3>{9, 7, 5});
  EXPECT_EQ(z["origin"].data, (std::vector<double>{spec.origin[0], spec.origin[1], spec.origin[2]}));
  EXPECT_EQ(z["spacing"].data,
            (std::vector<double>{spec.spacing[0], spec.spacing[1], spec.spacing[2]}));
  // The slice: x right, y up, the longer side 512 px, then annotate's bar and caption.
  const Image pic = read_png(dir / "g.slice-z.png");
  const double wu = 8 * spec.spacing[0], wv = 6 * spec.spacing[1];
  const int pw = int(std::lround(512 * wu / std::max(wu, wv)));
  const int ph = int(std::lround(512 * wv / std::max(wu, wv)));
  ColourBar bar;
  const AnnotateLayout l = annotate_layout(make_image(pw, ph, Rgb8{0, 0, 0}), {"x"}, &bar);
  const int bx = (l.bar_x0 + l.bar_x1) / 2;
  EXPECT_GT(pic.width, pw);
  EXPECT_GT(pic.height, ph);
  EXPECT_EQ(pic.at(bx, l.bar_y0), diverging(1.0));   // +max: outside, orange
  EXPECT_EQ(pic.at(bx, l.bar_y1), diverging(-1.0));  // -max: inside, blue
  int ink = 0;
  for (int y = ph; y < pic.height; ++y)
    for (int x = 0; x < pw; ++x) ink += pic.at(x, y) != pic.at(pic.width - 1, pic.height - 1);
  EXPECT_GT(ink, 200);
}
