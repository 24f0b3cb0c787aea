// tests/gui/test_gui_live.cpp — `prox magnet` and `prox view` in a real X
// window (Xvfb), driven by xdotool as a person would drive them, checked on
// the window's pixels and on the program's --readout lines, against the
// library's own answers (prox::planar::closest, MeshIndex::first_hit and its
// BruteForce twin) and seed 004's worked numbers.
// Skips (with the reason) only where Xvfb or xdotool is not installed; CI
// installs both (scripts/install-deps.sh).
#include <gtest/gtest.h>

#include <cmath>

#include "gui_support.hpp"
#include "prox/io/load_index.hpp"
#include "prox/mesh/brute_force.hpp"
#include "prox/planar/closest.hpp"
#include "prox/planar/scene.hpp"

namespace {

using namespace prox;
using namespace prox::test::gui;

const Rgb8 kAmber{232, 89, 12};

class Live : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string missing = missing_tools();
    if (!missing.empty()) GTEST_SKIP() << "live window tests need " << missing << " (scripts/install-deps.sh installs them)";
    x_ = std::make_unique<XServer>();
    ASSERT_TRUE(x_->ok()) << "Xvfb did not start";
    dir_ = std::filesystem::temp_directory_path() / ("prox-gui-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    app_.reset();
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  unsigned long start(std::vector<std::string> args, const std::string& title) {
    args.insert(args.begin(), PROX_CLI_PATH);
    out_ = dir_ / "stdout.txt";
    app_ = std::make_unique<Child>(args, std::vector<std::string>{x_->env(), child_asan_options()}, out_.string());
    const unsigned long win = x_->find_window(title);
    if (win) x_->xdotool("windowfocus --sync " + std::to_string(win));
    return win;
  }
  void mouse(unsigned long win, int x, int y) {
    x_->xdotool("mousemove --sync --window " + std::to_string(win) + " " + std::to_string(x) + " " + std::to_string(y));
  }

  std::unique_ptr<XServer> x_;
  std::unique_ptr<Child> app_;
  std::filesystem::path dir_, out_;
};

/// The latest readout line of shape `i` (each readout writes its probe line and
/// its shape lines at once, so after its probe line is seen these are its lines).
std::string shape_line(const std::filesystem::path& out, int i) {
  return wait_line(out, "magnet shape=" + std::to_string(i) + " ", "");
}

bool amber_at(const Image& img, const Vec2d& p) {
  const int x = static_cast<int>(std::lround(p[0])), y = static_cast<int>(std::lround(p[1]));
  if (x < 0 || y < 0 || x >= img.width || y >= img.height) return false;
  return near_colour(img.at(x, y), kAmber, 12);
}

TEST_F(Live, MagnetShowsEveryClosestPointAndTheSolidSwitch) {
  const unsigned long win = start({"magnet", "--readout"}, "prox magnet");
  ASSERT_NE(win, 0u) << "no 'prox magnet' window appeared";
  const planar::Scene scene = planar::default_scene();

  // Seed 004, "Trying It Out": P inside the triangle at (660, 480), shapes as boundaries.
  mouse(win, 660, 480);
  ASSERT_FALSE(wait_line(out_, "magnet probe=660.000,480.000 part=boundary", "").empty())
      << "no readout for the mouse at (660, 480):\n" << slurp(out_);
  const Vec2d p{660, 480};
  std::vector<Vec2d> expected;
  for (std::size_t i = 0; i < scene.shapes.size(); ++i) {
    const auto r = planar::closest(p, scene.shapes[i], planar::Part::boundary);
    expected.push_back(r.point);
    const std::string line = shape_line(out_, static_cast<int>(i));
    const std::vector<double> got = numbers(field(line, "point"));
    ASSERT_EQ(got.size(), 2u) << line;
    EXPECT_NEAR(got[0], r.point[0], 1e-3) << line;
    EXPECT_NEAR(got[1], r.point[1], 1e-3) << line;
  }
  // The seed's numbers: t 1.79 clamped to 1; distances 444, 191, 320, 52.
  const std::string seg = shape_line(out_, 0);
  EXPECT_NEAR(std::stod(field(seg, "raw_t")), 1.79, 0.005) << seg;
  EXPECT_EQ(field(seg, "clamped_t"), "1.0000") << seg;
  EXPECT_EQ(field(seg, "feature"), "end-B") << seg;
  const long seed_d[] = {444, 191, 320, 52};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(std::lround(std::stod(field(shape_line(out_, i), "distance"))), seed_d[i]) << i;
  EXPECT_EQ(field(shape_line(out_, 3), "feature"), "edge-2");
  EXPECT_LT(std::stod(field(shape_line(out_, 3), "signed")), 0);
  // Pixels: an amber dot on every shape's closest point.
  Image img = grab_until(*x_, win, [&](const Image& im) {
    for (const Vec2d& e : expected)
      if (!amber_at(im, e)) return false;
    return true;
  });
  ASSERT_GT(img.width, 0);
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(amber_at(img, expected[i])) << "no amber dot at shape " << i << "'s closest point ("
                                            << expected[i][0] << ", " << expected[i][1] << ")";
  const Vec2d tri_boundary = expected[3];

  // S: solids. Inside the triangle P is its own closest point (the ball's overlap test).
  x_->xdotool("key s");
  ASSERT_FALSE(wait_line(out_, "magnet probe=660.000,480.000 part=solid", "").empty()) << slurp(out_);
  const std::string tri = shape_line(out_, 3);
  EXPECT_EQ(field(tri, "point"), "660.000,480.000") << tri;
  EXPECT_EQ(field(tri, "distance"), "0.000") << tri;
  EXPECT_EQ(field(tri, "feature"), "inside") << tri;
  img = grab_until(*x_, win, [&](const Image& im) {
    return amber_at(im, p + Vec2d{3, 3}) && !amber_at(im, tri_boundary);
  });
  EXPECT_TRUE(amber_at(img, p + Vec2d{3, 3})) << "solid: the triangle's dot is not on P";
  EXPECT_FALSE(amber_at(img, tri_boundary)) << "solid: the boundary's dot is still drawn";

  // Back to boundaries. The seed: the triangle's three creases meet at (677, 483), "64 pixels
  // from each" edge. The incentre (exact formula) rounds to that point and its radius to 64.
  x_->xdotool("key s");
  const auto& t = std::get<planar::Polygon<double>>(scene.shapes[3]);
  double perimeter = 0;
  Vec2d incentre{0, 0};
  for (int k = 0; k < 3; ++k) {
    const Vec2d d = t.points[(k + 1) % 3] - t.points[(k + 2) % 3];
    const double side = std::sqrt(dot(d, d));  // the side opposite corner k
    incentre = incentre + t.points[k] * side;
    perimeter += side;
  }
  incentre = incentre / perimeter;
  EXPECT_EQ(std::lround(incentre[0]), 677);
  EXPECT_EQ(std::lround(incentre[1]), 483);
  const Vec2d ab = t.points[1] - t.points[0], ac = t.points[2] - t.points[0];
  const double inradius = std::abs(ab[0] * ac[1] - ab[1] * ac[0]) / perimeter;  // 2 * area / perimeter
  EXPECT_EQ(std::lround(inradius), 64);
  mouse(win, 677, 483);
  ASSERT_FALSE(wait_line(out_, "magnet probe=677.000,483.000 part=boundary", "").empty()) << slurp(out_);
  double nearest = 1e300;
  for (int e = 0; e < 3; ++e) {
    const auto r = prox::closest_point_segment(Vec2d{677, 483}, t.points[e], t.points[(e + 1) % 3]);
    EXPECT_NEAR(std::sqrt(r.sq_distance), inradius, 0.7) << "edge " << e;  // (677, 483) is ~equidistant
    nearest = std::min(nearest, std::sqrt(r.sq_distance));
  }
  EXPECT_NEAR(std::stod(field(shape_line(out_, 3), "distance")), nearest, 1e-3);

  // Inside the box, (190, 460) is 40 from its top and left edges: the tie goes to the top (edge 0).
  mouse(win, 190, 460);
  ASSERT_FALSE(wait_line(out_, "magnet probe=190.000,460.000 part=boundary", "").empty()) << slurp(out_);
  const std::string box = shape_line(out_, 2);
  EXPECT_EQ(field(box, "point"), "190.000,420.000") << box;
  EXPECT_EQ(field(box, "feature"), "top-edge") << box;
  EXPECT_EQ(field(box, "distance"), "40.000") << box;
  img = grab_until(*x_, win, [&](const Image& im) { return amber_at(im, Vec2d{190, 420}); });
  EXPECT_TRUE(amber_at(img, Vec2d{190, 420}));

  // Esc quits.
  x_->xdotool("key Escape");
  EXPECT_EQ(app_->wait_exit(5000), std::optional<int>(0));
}

TEST_F(Live, ViewPicksTheLibrarysFirstHitAndPlacesAProbe) {
  const std::string mesh = std::string(PROX_CGAL_DATA_DIR) + "/meshes/icosahedron.off";
  const int w = 400, h = 300;
  const unsigned long win = start({"view", mesh, "--size", "400x300", "--readout", "--threads", "1"},
                                  "prox view: icosahedron.off");
  ASSERT_NE(win, 0u) << "no 'prox view' window appeared";
  const io::LoadedIndex<double> loaded = io::load_index<double>(mesh);
  const MeshIndex<double>& index = *loaded.index;
  const BruteForce<double> brute(index.mesh());
  // The first view's camera, as apps/render.hpp documents it (view +z, 60 degrees, +y up).
  const Box3<double> b = index.mesh().bounds();
  const Vec3d c = b.center();
  const double diag = std::sqrt(squared_norm(b.diagonal()));
  const Vec3d eye = c + Vec3d{0, 0, 1} * diag;
  const double tan_half = std::tan(60 * 3.14159265358979323846 / 360.0);
  auto ray = [&](int x, int y) {
    const double sx = 2.0 * (x + 0.5) / w - 1.0, sy = 1.0 - 2.0 * (y + 0.5) / h;
    return Ray<double>{eye, Vec3d{0, 0, -1} + Vec3d{tan_half * w / h, 0, 0} * sx + Vec3d{0, tan_half, 0} * sy};
  };
  // A pixel well inside one triangle (its 7x7 neighbourhood hits the same one), below the readout panel.
  int px = -1, py = -1;
  for (int y = 150; y < h - 40 && px < 0; y += 3)
    for (int x = 120; x < w - 60 && px < 0; x += 3) {
      const auto hit = brute.first_hit(ray(x, y));
      if (!hit.found()) continue;
      bool same = true;
      for (int dy = -3; dy <= 3 && same; ++dy)
        for (int dx = -3; dx <= 3 && same; ++dx) same = brute.first_hit(ray(x + dx, y + dy)).triangle == hit.triangle;
      if (same) px = x, py = y;
    }
  ASSERT_GE(px, 0) << "no pixel well inside a triangle";
  const MeshRayHit<double> oracle = index.first_hit(ray(px, py));
  ASSERT_EQ(oracle.triangle, brute.first_hit(ray(px, py)).triangle);

  // The picture without the highlight (mouse off the mesh), then with it.
  mouse(win, w - 3, h / 2);
  ASSERT_FALSE(wait_line(out_, "view pick x=" + std::to_string(w - 3) + " ", "triangle=-1").empty()) << slurp(out_);
  sleep_ms(300);
  const Image before = x_->grab(win);
  mouse(win, px, py);
  const std::string pick = wait_line(out_, "view pick x=" + std::to_string(px) + " y=" + std::to_string(py) + " ", "");
  ASSERT_FALSE(pick.empty()) << slurp(out_);
  EXPECT_EQ(std::stoi(field(pick, "triangle")), oracle.triangle) << pick;
  EXPECT_NEAR(std::stod(field(pick, "t")), oracle.t, 1e-7 * oracle.t) << pick;
  const std::vector<double> bary = numbers(field(pick, "bary"));
  ASSERT_EQ(bary.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(bary[k], oracle.bary()[k], 1e-5) << pick;
  EXPECT_EQ(field(pick, "face"), oracle.front_face ? "front" : "back");
  // The triangle is highlighted: a pixel beside the mouse is the picture blended with yellow.
  const int qx = px + 2, qy = py + 2;
  const Rgb8 under = before.at(qx, qy);
  auto blend = [](int dst, int src) { return static_cast<std::uint8_t>((src * 140 + dst * 115) / 255); };
  const Rgb8 want{blend(under.r, 255), blend(under.g, 220), blend(under.b, 0)};
  const Image after = grab_until(*x_, win, [&](const Image& im) { return near_colour(im.at(qx, qy), want, 6); });
  EXPECT_TRUE(near_colour(after.at(qx, qy), want, 6))
      << "pixel (" << qx << ", " << qy << ") is not highlighted: " << int(after.at(qx, qy).r) << ","
      << int(after.at(qx, qy).g) << "," << int(after.at(qx, qy).b);

  // Click: a probe on the surface (distance 0); Shift+wheel up 5 notches: 5 * diag / 200 along the normal.
  x_->xdotool("click 1");
  const std::string on = wait_line(out_, "view probe ", "offset=0 ");
  ASSERT_FALSE(on.empty()) << slurp(out_);
  EXPECT_LT(std::stod(field(on, "distance")), 1e-9 * diag) << on;
  x_->xdotool("keydown shift click --repeat 5 --delay 30 4 keyup shift");
  std::string off;
  for (int waited = 0; waited < 8000; waited += 50) {
    off = wait_line(out_, "view probe ", "");
    if (!off.empty() && std::abs(std::stod(field(off, "offset")) - 5 * diag / 200) < 1e-6 * diag) break;
    sleep_ms(50);
  }
  ASSERT_NEAR(std::stod(field(off, "offset")), 5 * diag / 200, 1e-6 * diag) << slurp(out_);
  const std::vector<double> q = numbers(field(off, "point"));
  ASSERT_EQ(q.size(), 3u);
  const Vec3d probe{q[0], q[1], q[2]};
  const auto cp = brute.closest_point(probe);
  EXPECT_NEAR(std::stod(field(off, "distance")), std::sqrt(cp.sq_distance), 1e-6 * diag) << off;
  EXPECT_NEAR(std::stod(field(off, "distance")), 5 * diag / 200, 1e-6 * diag) << off;  // convex: straight out
  EXPECT_EQ(std::stoi(field(off, "triangle")), oracle.triangle) << off;
  const double sd = std::stod(field(off, "signed"));
  EXPECT_NEAR(std::abs(sd), 5 * diag / 200, 1e-6 * diag) << off;
  EXPECT_EQ(sd < 0, std::abs(brute.winding_number(probe)) >= 0.5) << off;
  x_->xdotool("key q");
  EXPECT_EQ(app_->wait_exit(5000), std::optional<int>(0));
}

}  // namespace
