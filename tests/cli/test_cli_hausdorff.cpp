// tests/cli/test_cli_hausdorff.cpp — `prox hausdorff` and `prox sample` against
// the library and known answers: a UV sphere and its shifted copy (closed,
// convex: the Hausdorff distance is the shift's length exactly), the PLY's
// per-vertex quality and the .npy's distances equal to the library's, the
// picture's size, `prox sample` equal to sample_surface bit for bit, and clear
// errors with no output left behind.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "cli_support.hpp"
#include "prox/image/annotate.hpp"
#include "prox/image/png.hpp"
#include "prox/io/npy.hpp"
#include "prox/io/shapes.hpp"
#include "prox/io/write_mesh.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/sample_surface.hpp"

using namespace prox;
using namespace prox::test;

namespace {

struct Pair {
  TempDir dir;
  std::string a, b;
  io::MeshData da, db;
  Vec3d shift{0.05, -0.02, 0.03};
  Pair() {
    da = io::make_sphere(1.0, 12, 24);
    db = da;
    for (Vec3d& v : db.vertices) v = v + shift;
    a = dir / "a.off";
    b = dir / "b.ply";
    io::write_mesh(a, da);
    io::write_mesh(b, db);
  }
};

/// The two numbers of "label  [lower, upper]" in the report.
std::pair<double, double> interval(const std::string& report, const std::string& label) {
  const std::size_t at = report.find(label);
  EXPECT_NE(at, std::string::npos) << label;
  if (at == std::string::npos) return {NAN, NAN};
  const std::size_t open = report.find('[', at);
  double lo = NAN, hi = NAN;
  std::sscanf(report.c_str() + open, "[%lf, %lf]", &lo, &hi);
  return {lo, hi};
}

TEST(CliHausdorff, ShiftedSphereReportAndOutputs) {
  Pair p;
  const std::string ply = p.dir / "a_coloured.ply", png = p.dir / "a.png";
  const RunResult r = run_prox({"hausdorff", p.a, p.b, "--tolerance", "1e-6", "--samples", "2000",
                                "-o", ply, "--picture", png, "--size", "160x120"});
  ASSERT_EQ(r.code, 0) << r.err;
  const double truth = std::sqrt(squared_norm(p.shift));
  for (const char* label : {"A -> B  max", "B -> A  max", "Hausdorff (symmetric)"}) {
    const auto [lo, hi] = interval(r.out, label);
    EXPECT_LE(lo, truth) << label;
    EXPECT_GE(hi, truth) << label;
    EXPECT_LE(hi - lo, 1e-6) << label;
  }
  EXPECT_NE(r.out.find("Chamfer L2 = mean d(a,B)^2 + mean d(b,A)^2"), std::string::npos);
  EXPECT_NE(r.out.find("histogram"), std::string::npos);
  EXPECT_NE(r.out.find("mean"), std::string::npos);
  EXPECT_NE(r.out.find("RMS"), std::string::npos);
  // PLY: per-vertex quality = the vertex's distance to B (as float).
  const std::string bytes = slurp(ply);
  const std::size_t end = bytes.find("end_header\n");
  ASSERT_NE(end, std::string::npos);
  EXPECT_NE(bytes.find("property float quality"), std::string::npos);
  EXPECT_NE(bytes.find("property uchar red"), std::string::npos);
  const MeshIndex<double> ib(TriangleMesh<double>(p.db.vertices, p.db.triangles));
  const char* v = bytes.data() + end + 11;
  ASSERT_GE(bytes.size(), end + 11 + 19 * p.da.vertices.size());
  for (std::size_t i = 0; i < p.da.vertices.size(); ++i) {
    float q;
    std::memcpy(&q, v + 19 * i + 15, 4);
    const double d = std::sqrt(ib.closest_point(p.da.vertices[i]).sq_distance);
    EXPECT_EQ(q, static_cast<float>(d)) << i;
  }
  // The picture: 160x120 rendered, then prox::image's caption strip and colour
  // bar (annotate's layout): the bar's ends are viridis(0) and viridis(1).
  const Image img = read_png(png);
  EXPECT_GT(img.height, 120);  // the caption strip
  EXPECT_GT(img.width, 160);   // the colour bar panel
  const auto [lo_h, hi_h] = interval(r.out, "A -> B  max");
  (void)lo_h;
  ColourBar bar;
  bar.lo = 0;
  bar.hi = hi_h;
  const AnnotateLayout l = annotate_layout(make_image(160, 120, Rgb8{0, 0, 0}), {"x"}, &bar);
  const int bx = (l.bar_x0 + l.bar_x1) / 2;
  EXPECT_EQ(img.at(bx, l.bar_y0), viridis(1.0));
  EXPECT_EQ(img.at(bx, l.bar_y1), viridis(0.0));
  int ink = 0;
  for (int y = 120; y < img.height; ++y)
    for (int x = 0; x < 160; ++x) ink += img.at(x, y) != img.at(0, img.height - 1);
  EXPECT_GT(ink, 100);  // the caption is written
}

TEST(CliHausdorff, NpyHoldsTheSamplesAndTheirDistances) {
  Pair p;
  const std::string npy = p.dir / "d.npy";
  const RunResult r = run_prox({"hausdorff", p.a, p.b, "--samples", "500", "--seed", "9", "-o", npy});
  ASSERT_EQ(r.code, 0) << r.err;
  const io::NpyArray arr = io::parse_npy(slurp(npy), npy);
  ASSERT_EQ(arr.shape, (std::vector<std::size_t>{500, 8}));
  const TriangleMesh<double> ma(p.da.vertices, p.da.triangles);
  const MeshIndex<double> ib(TriangleMesh<double>(p.db.vertices, p.db.triangles));
  const auto s = sample_surface(ma, 500, 9, SampleMethod::stratified, 1);
  for (std::size_t i = 0; i < 500; ++i) {
    const double* row = &arr.data[8 * i];
    EXPECT_EQ(row[0], s.points[i][0]);
    EXPECT_EQ(row[3], double(s.triangles[i]));
    EXPECT_EQ(row[4], s.bary[i][0]);
    EXPECT_EQ(row[7], std::sqrt(ib.closest_point(s.points[i]).sq_distance));
  }
  // --columns picks and orders the sample columns; .npz and .csv come too.
  const std::string two = p.dir / "two.npy";
  const RunResult c = run_prox({"hausdorff", p.a, p.b, "--samples", "500", "--seed", "9", "-o", two,
                                "--columns", "distance,triangle"});
  ASSERT_EQ(c.code, 0) << c.err;
  const io::NpyArray t = io::parse_npy(slurp(two), two);
  ASSERT_EQ(t.shape, (std::vector<std::size_t>{500, 2}));
  for (std::size_t i = 0; i < 500; ++i) {
    EXPECT_EQ(t.data[2 * i], arr.data[8 * i + 7]);
    EXPECT_EQ(t.data[2 * i + 1], arr.data[8 * i + 3]);
  }
  const std::string one = p.dir / "one.npy";
  ASSERT_EQ(run_prox({"hausdorff", p.a, p.b, "--samples", "500", "--seed", "9", "-o", one,
                      "--columns", "triangle"}).code, 0);
  const io::NpyArray ids = io::parse_npy(slurp(one), one);
  EXPECT_EQ(ids.descr, "<i8");  // one column: its own dtype
  EXPECT_EQ(ids.data[17], double(s.triangles[17]));
  const RunResult csv = run_prox({"hausdorff", p.a, p.b, "--samples", "50", "--seed", "9", "-o",
                                  p.dir / "s.csv", "--columns", "x,distance"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  const std::string text = slurp(p.dir / "s.csv");
  EXPECT_EQ(text.substr(0, text.find('\n')), "x,distance");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 51);
  const RunResult bad = run_prox({"hausdorff", p.a, p.b, "-o", p.dir / "b.npy", "--columns", "t"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("distance"), std::string::npos) << bad.err;  // lists the known ones
  EXPECT_FALSE(std::filesystem::exists(p.dir / "b.npy"));
  EXPECT_EQ(run_prox({"hausdorff", p.a, p.b, "--columns", "x"}).code, 2);  // no table output
}

TEST(CliHausdorff, SampleEqualsTheLibrary) {
  Pair p;
  const std::string npy = p.dir / "s.npy";
  ASSERT_EQ(run_prox({"sample", p.a, "-n", "300", "-o", npy, "--seed", "4"}).code, 0);
  const io::NpyArray arr = io::parse_npy(slurp(npy), npy);
  ASSERT_EQ(arr.shape, (std::vector<std::size_t>{300, 7}));
  const auto s = sample_surface(TriangleMesh<double>(p.da.vertices, p.da.triangles), 300, 4);
  for (std::size_t i = 0; i < 300; ++i)
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(arr.data[7 * i + k], s.points[i][k]);
      EXPECT_EQ(arr.data[7 * i + 4 + k], s.bary[i][k]);
    }
  const RunResult csv = run_prox({"sample", p.a, "-n", "3", "-o", "-", "--method", "stratified"});
  ASSERT_EQ(csv.code, 0);
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')), "x,y,z,triangle,w0,w1,w2");
  // --columns and .npz (triangle int64), as the other prox tables.
  const RunResult w = run_prox({"sample", p.a, "-n", "300", "--seed", "4", "-o", "-", "--columns",
                                "triangle,w2"});
  ASSERT_EQ(w.code, 0) << w.err;
  const Csv t = parse_csv(w.out);
  ASSERT_EQ(t.header, (std::vector<std::string>{"triangle", "w2"}));
  ASSERT_EQ(t.rows.size(), 300u);
  EXPECT_EQ(num(t.rows[42][0]), double(s.triangles[42]));
  EXPECT_EQ(num(t.rows[42][1]), s.bary[42][2]);
  // Poisson-disk: the library's samples, and its radius on standard error.
  const RunResult pd = run_prox({"sample", p.a, "-n", "200", "-o", npy, "--method", "poisson", "--seed", "3"});
  ASSERT_EQ(pd.code, 0) << pd.err;
  const auto ps = sample_surface(TriangleMesh<double>(p.da.vertices, p.da.triangles), 200, 3,
                                 SampleMethod::poisson);
  const io::NpyArray parr = io::parse_npy(slurp(npy), npy);
  ASSERT_EQ(parr.shape, (std::vector<std::size_t>{200, 7}));
  for (std::size_t i = 0; i < 200; ++i)
    for (int k = 0; k < 3; ++k) EXPECT_EQ(parr.data[7 * i + k], ps.points[i][k]);
  EXPECT_NE(pd.err.find("every two at least"), std::string::npos) << pd.err;
  // In prox hausdorff too, with the Chamfer convention stated.
  const RunResult h = run_prox({"hausdorff", p.a, p.b, "--samples", "500", "--sampling", "poisson"});
  ASSERT_EQ(h.code, 0) << h.err;
  EXPECT_NE(h.out.find("poisson: every two samples at least"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("Chamfer (two-sided, point-to-surface"), std::string::npos) << h.out;
}

TEST(CliHausdorff, ErrorsAreOneLineAndLeaveNothing) {
  Pair p;
  const std::string out = p.dir / "never.ply";
  struct Case {
    std::vector<std::string> args;
    int code;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{"hausdorff", p.a, p.b, "--tolerance", "1e-4x", "-o", out}, 2, "--tolerance"},
      {{"hausdorff", p.a, p.b, "--tolerance", "-1", "-o", out}, 2, "--tolerance"},
      {{"hausdorff", p.a, p.b, "--tolerance", "1.5d", "-o", out}, 2, "--tolerance"},
      {{"hausdorff", p.a, p.b, "-o", p.dir / "x.txt"}, 2, "-o must name"},
      {{"hausdorff", p.a, p.b, "--picture", p.dir / "x.jpg"}, 2, "--picture"},
      {{"hausdorff", p.a, p.dir / "missing.off", "-o", out}, 1, "missing.off"},
      // An output folder that does not exist: said before the work, not after the report.
      {{"hausdorff", p.a, p.b, "-o", p.dir / "no-such-folder/d.ply"}, 1, "no-such-folder"},
      {{"hausdorff", p.a, p.b, "--picture", p.dir / "no-such-folder/d.png"}, 1, "no-such-folder"},
      {{"sample", p.a, "-n", "0", "-o", p.dir / "s.npy"}, 2, "--count: must be a whole number from 1"},
      {{"sample", p.a, "-n", "5", "-o", p.dir / "s.txt"}, 2, "-o must name"},
      {{"sample", p.a, "-n", "5", "-o", p.dir / "s.npy", "--method", "blue"}, 2, "--method"},
  };
  for (const Case& c : cases) {
    const RunResult r = run_prox(c.args);
    EXPECT_EQ(r.code, c.code) << c.args[0] << " " << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "") << c.says;  // no report before the error
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(p.dir / "s.npy"));
}

}  // namespace
