// tests/gui/test_gui_script.cpp — `prox magnet` and `prox view` in scripted
// mode (--script, --screenshot, --readout) on SDL's offscreen driver (no X
// server needed): the screenshots' pixels and the readout checked against the
// library (prox::planar closest points and distance-field colours,
// MeshIndex::first_hit), shape dragging, the field switch, script errors.
#include <gtest/gtest.h>

#include <cmath>

#include "gui_support.hpp"
#include "prox/image/png.hpp"
#include "prox/io/load_index.hpp"
#include "prox/planar/closest.hpp"
#include "prox/planar/field.hpp"
#include "prox/planar/scene.hpp"

namespace {

using namespace prox;
using namespace prox::test::gui;

const Rgb8 kAmber{232, 89, 12};
const Rgb8 kBlue{47, 111, 235};

struct Outcome {
  int code = -1;
  std::string out, err;
};

class Scripted : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("prox-gui-script-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }
  Outcome run(const std::string& args, const std::string& env = "") const {
    const std::string cmd = std::string("cd '") + dir_.string() + "' && env \"" + child_asan_options() + "\" " + env + " '" + PROX_CLI_PATH + "' " + args +
                            " >'" + path("out.txt") + "' 2>'" + path("err.txt") + "'";
    Outcome r;
    const int status = std::system(cmd.c_str());
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(path("out.txt"));
    r.err = slurp(path("err.txt"));
    return r;
  }
  std::filesystem::path dir_;
};

/// Whether a pixel within `r` of p has colour c (within tol).
bool colour_near(const Image& img, const Vec2d& p, Rgb8 c, int r = 0, int tol = 12) {
  const int cx = static_cast<int>(std::lround(p[0])), cy = static_cast<int>(std::lround(p[1]));
  for (int y = cy - r; y <= cy + r; ++y)
    for (int x = cx - r; x <= cx + r; ++x)
      if (x >= 0 && y >= 0 && x < img.width && y < img.height && near_colour(img.at(x, y), c, tol)) return true;
  return false;
}

/// The last readout block's line for shape i.
std::string last_shape_line(const std::string& out, int i) {
  std::istringstream s(out);
  std::string found;
  for (std::string line; std::getline(s, line);)
    if (line.rfind("magnet shape=" + std::to_string(i) + " ", 0) == 0) found = line;
  return found;
}

TEST_F(Scripted, MagnetBoundarySolidDragAndField) {
  write("steps.txt",
        "# seed 004's example: P inside the triangle\n"
        "move 660 480\n"
        "screenshot boundary.png\n"
        "key S\n"
        "screenshot solid.png\n"
        "key S\n"
        "drag 720 295 820 395   # the circle's lowest rim point, 100 right and 100 down\n"
        "move 900 470\n"
        "screenshot dragged.png\n"
        "key F\n");
  const Outcome r = run("magnet --hidden --readout --script steps.txt --screenshot field.png");
  ASSERT_EQ(r.code, 0) << r.err;
  const planar::Scene scene = planar::default_scene();
  const Vec2d p{660, 480};
  const Image boundary = read_png(path("boundary.png"));
  ASSERT_EQ(boundary.width, 1000);
  ASSERT_EQ(boundary.height, 700);
  for (std::size_t i = 0; i < scene.shapes.size(); ++i) {
    const Vec2d c = planar::closest(p, scene.shapes[i], planar::Part::boundary).point;
    EXPECT_TRUE(colour_near(boundary, c, kAmber)) << "shape " << i << ": no dot at its closest point";
  }
  const Vec2d tri_edge = planar::closest(p, scene.shapes[3], planar::Part::boundary).point;
  const Image solid = read_png(path("solid.png"));
  EXPECT_TRUE(colour_near(solid, p + Vec2d{3, 3}, kAmber)) << "solid: the triangle's dot is not on P";
  EXPECT_FALSE(colour_near(solid, tri_edge, kAmber)) << "solid: the boundary's dot is still drawn";
  // The box and the circle still give their outline points (P is outside them).
  for (int i : {1, 2})
    EXPECT_TRUE(colour_near(solid, planar::closest(p, scene.shapes[i], planar::Part::solid).point, kAmber));

  // The drag moved the circle by (100, 100): the readout and the drawn rim follow it.
  planar::Scene moved = scene;
  std::get<planar::Circle<double>>(moved.shapes[1]).center = Vec2d{820, 300};
  const std::string circle = last_shape_line(r.out, 1);
  const Vec2d q{900, 470};
  const Vec2d want = planar::closest(q, moved.shapes[1], planar::Part::boundary).point;
  const std::vector<double> got = numbers(field(circle, "point"));
  ASSERT_EQ(got.size(), 2u) << circle;
  EXPECT_NEAR(got[0], want[0], 1e-3) << circle;
  EXPECT_NEAR(got[1], want[1], 1e-3) << circle;
  const Image dragged = read_png(path("dragged.png"));
  EXPECT_TRUE(colour_near(dragged, Vec2d{820 - 95, 300}, kBlue, 1)) << "no rim at the moved circle's left";
  EXPECT_FALSE(colour_near(dragged, Vec2d{720 - 95, 200}, kBlue, 1)) << "the rim is still at the old place";

  // F: the background is the library's distance field of the moved scene.
  const Image field_png = read_png(path("field.png"));
  planar::FieldOptions fo;
  fo.width = 1000, fo.height = 700;
  const Image oracle = planar::render_distance_field(moved, fo);
  int checked = 0;
  for (const Vec2d spot : {Vec2d{980, 420}, Vec2d{960, 560}, Vec2d{500, 330}, Vec2d{60, 300}}) {
    const int x = static_cast<int>(spot[0]), y = static_cast<int>(spot[1]);
    EXPECT_EQ(field_png.at(x, y), oracle.at(x, y)) << "field pixel (" << x << ", " << y << ")";
    ++checked;
  }
  EXPECT_EQ(checked, 4);
  EXPECT_NE(dragged.at(980, 420), field_png.at(980, 420)) << "F did not change the background";
}

TEST_F(Scripted, MagnetSceneFileAndPin) {
  write("scene.txt", "canvas 400 300\nbox 100 100 200 200\npolyline 250 50 350 50 350 150\n");
  write("steps.txt", "move 150 120\nkey P\nmove 380 280\nscreenshot nohelp.png\nkey W\nkey H\n");
  const Outcome r = run("magnet scene.txt --hidden --readout --script steps.txt --screenshot pin.png");
  ASSERT_EQ(r.code, 0) << r.err;
  // Pinned at (150, 120): the mouse's later move leaves the probe there.
  EXPECT_NE(r.out.find("magnet probe=150.000,120.000 part=boundary pinned=1"), std::string::npos) << r.out;
  const std::string box = last_shape_line(r.out, 0);
  EXPECT_EQ(field(box, "point"), "150.000,100.000") << box;
  EXPECT_EQ(field(box, "feature"), "top-edge") << box;
  EXPECT_EQ(field(box, "signed"), "-20.000") << box;
  const std::string line = last_shape_line(r.out, 1);
  EXPECT_EQ(field(line, "point"), "250.000,50.000") << line;
  EXPECT_EQ(field(line, "feature"), "corner-0") << line;
  const Image img = read_png(path("pin.png"));
  EXPECT_EQ(img.width, 400);
  const Image nohelp = read_png(path("nohelp.png"));
  EXPECT_TRUE(colour_near(nohelp, Vec2d{150, 100}, kAmber));
  // W wrote a timestamped screenshot in the current folder; H drew the help panel.
  int shots = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    if (e.path().filename().string().rfind("prox-magnet-", 0) == 0 && e.path().extension() == ".png") {
      ++shots;
      EXPECT_EQ(read_png(e.path()).width, 400);
    }
  EXPECT_EQ(shots, 1);
  int changed = 0;
  for (int y = 100; y < 200; ++y)
    for (int x = 20; x < 380; ++x) changed += !(nohelp.at(x, y) == img.at(x, y));
  EXPECT_GT(changed, 20000) << "H did not draw the help panel";
}

TEST_F(Scripted, ErrorsNameTheFileAndLine) {
  write("bad.txt", "move 1 2\njump 3 4\n");
  Outcome r = run("magnet --hidden --script bad.txt");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("bad.txt:2: unknown step 'jump'"), std::string::npos) << r.err;
  write("bad2.txt", "move 1 x\n");
  r = run("magnet --hidden --script bad2.txt");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("bad2.txt:1: bad number 'x'"), std::string::npos) << r.err;
  r = run("magnet --hidden --screenshot out.jpg");
  EXPECT_EQ(r.code, 2) << r.err;
  r = run("magnet --hidden");
  EXPECT_EQ(r.code, 2) << r.err;
  r = run("view missing.off --hidden --screenshot a.png");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("missing.off"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("a.png")));
  // No display and no --hidden: an error, not an invisible window waiting forever.
  r = run("magnet", "env -u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("prox magnet: no display to open a window on"), std::string::npos) << r.err;
  r = run("--help");
  EXPECT_NE(r.out.find("magnet"), std::string::npos);
  EXPECT_NE(r.out.find("view"), std::string::npos);
}

TEST_F(Scripted, ViewPickAndProbeMatchTheLibrary) {
  const std::string mesh = std::string(PROX_CGAL_DATA_DIR) + "/meshes/octahedron.off";
  const int w = 200, h = 150;
  write("steps.txt", "move 100 90\nclick 100 90\nwheel 4 shift\nkey 3\nscreenshot id.png\n"
                     "drag 10 10 60 20\nmove 100 90\n");
  const Outcome r = run("view '" + mesh + "' --hidden --size 200x150 --readout --script steps.txt --threads 1 --stats");
  ASSERT_EQ(r.code, 0) << r.err;
  const io::LoadedIndex<double> loaded = io::load_index<double>(mesh);
  const MeshIndex<double>& index = *loaded.index;
  const Box3<double> b = index.mesh().bounds();
  const double diag = std::sqrt(squared_norm(b.diagonal()));
  const Vec3d eye = b.center() + Vec3d{0, 0, 1} * diag;
  const double tan_half = std::tan(60 * 3.14159265358979323846 / 360.0);
  const double sx = 2.0 * (100 + 0.5) / w - 1.0, sy = 1.0 - 2.0 * (90 + 0.5) / h;
  const Ray<double> ray{eye, Vec3d{0, 0, -1} + Vec3d{tan_half * w / h, 0, 0} * sx + Vec3d{0, tan_half, 0} * sy};
  const MeshRayHit<double> hit = index.first_hit(ray);
  ASSERT_TRUE(hit.found());
  std::istringstream s(r.out);
  std::string pick, probe;
  for (std::string line; std::getline(s, line);) {
    if (line.rfind("view pick x=100 y=90 ", 0) == 0 && pick.empty()) pick = line;  // before the orbit
    if (line.rfind("view probe ", 0) == 0) probe = line;  // the last: after the wheel
  }
  ASSERT_FALSE(pick.empty()) << r.out;
  EXPECT_EQ(std::stoi(field(pick, "triangle")), hit.triangle) << pick;
  EXPECT_NEAR(std::stod(field(pick, "t")), hit.t, 1e-7 * hit.t) << pick;
  ASSERT_FALSE(probe.empty()) << r.out;
  EXPECT_NEAR(std::stod(field(probe, "offset")), 4 * diag / 200, 1e-9 * diag) << probe;
  const std::vector<double> q = numbers(field(probe, "point"));
  ASSERT_EQ(q.size(), 3u);
  const Vec3d pt{q[0], q[1], q[2]};
  EXPECT_NEAR(std::stod(field(probe, "distance")), std::sqrt(index.closest_point(pt).sq_distance), 1e-6 * diag);
  EXPECT_NEAR(std::stod(field(probe, "signed")), index.signed_distance(pt).signed_distance, 1e-6 * diag);
  const Image id = read_png(path("id.png"));
  EXPECT_EQ(id.width, w);
  EXPECT_EQ(id.height, h);
  // Progressive: the drag drew coarse frames, the end a full one (--stats on stderr).
  EXPECT_NE(r.err.find("prox view: 3 full frames (200x150)"), std::string::npos) << r.err;  // start, id, after the drag
  EXPECT_EQ(r.err.find(" 0 coarse frames"), std::string::npos) << r.err;

  const Outcome bench = run("view '" + mesh + "' --hidden --size 64x48 --bench 3 --threads 1");
  ASSERT_EQ(bench.code, 0) << bench.err;
  EXPECT_NE(bench.out.find("view bench mesh=octahedron.off triangles=8 size=64x48"), std::string::npos) << bench.out;
}

}  // namespace
