// Distance-field pictures of the seed's scene (both modes), sampled at known
// pixels; the scene text format and its errors; PNG files written and read back.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "prox/image/png.hpp"
#include "prox/planar/field.hpp"
#include "prox/planar/scene.hpp"

namespace {

using namespace prox;
using namespace prox::planar;
namespace fs = std::filesystem;

int luminance(Rgb8 c) { return c.r + c.g + c.b; }

const Rgb8 white{255, 255, 255};

/// Where pictures go: $PROX_PLANAR_PNG_DIR if set (to look at them), else a temp dir.
fs::path picture_dir() {
  const char* keep = std::getenv("PROX_PLANAR_PNG_DIR");
  fs::path dir = keep ? fs::path(keep) : fs::path(::testing::TempDir()) / "prox_planar";
  fs::create_directories(dir);
  return dir;
}

class PlanarSeedField : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const Scene scene = default_scene();
    FieldOptions o;
    for (int m = 0; m < 2; ++m) {
      o.part = m == 0 ? Part::boundary : Part::solid;
      const auto t0 = std::chrono::steady_clock::now();
      images_[m] = render_distance_field(scene, o);
      const auto t1 = std::chrono::steady_clock::now();
      std::printf("[ timing ] %s field 1000x700, seed scene, one core: %.1f ms\n",
                  m == 0 ? "unsigned (boundary)" : "signed (solid)",
                  std::chrono::duration<double, std::milli>(t1 - t0).count());
      fields_[m] = distance_field(scene, o);
    }
  }
  static const Image& image(Part p) { return images_[p == Part::solid]; }
  static double field(Part p, int x, int y) { return fields_[p == Part::solid][y * 1000 + x]; }

  static Image images_[2];
  static std::vector<double> fields_[2];
};
Image PlanarSeedField::images_[2];
std::vector<double> PlanarSeedField::fields_[2];

TEST_F(PlanarSeedField, SizeIsTheSeedsWindow) {
  for (Part p : {Part::boundary, Part::solid}) {
    EXPECT_EQ(image(p).width, 1000);
    EXPECT_EQ(image(p).height, 700);
    EXPECT_TRUE(image(p).consistent());
  }
}

TEST_F(PlanarSeedField, OutlinesAreTheBrightestPixels) {
  // Pixels exactly on an outline: box side, circle rim, segment middle, triangle corner.
  const int on[][2] = {{150, 500}, {815, 200}, {275, 140}, {560, 430}, {340, 420}};
  for (Part p : {Part::boundary, Part::solid}) {
    int brightest = 0;
    for (int y = 0; y < 700; ++y)
      for (int x = 0; x < 1000; ++x) brightest = std::max(brightest, luminance(image(p).at(x, y)));
    EXPECT_EQ(brightest, 765);
    for (const auto& xy : on) {
      EXPECT_EQ(field(p, xy[0], xy[1]), 0.0) << xy[0] << "," << xy[1];
      EXPECT_EQ(image(p).at(xy[0], xy[1]), white) << xy[0] << "," << xy[1];
    }
    // Nothing a pixel or more from every outline is white.
    for (int y = 0; y < 700; y += 3)
      for (int x = 0; x < 1000; x += 3)
        if (std::abs(field(p, x, y)) >= 1.0) {
          ASSERT_NE(image(p).at(x, y), white) << x << "," << y;
        }
  }
}

TEST_F(PlanarSeedField, BandsEveryTwentyFiveUnits) {
  // 50 left of the box's left side (a band), and 12 either side of it (no band).
  for (Part p : {Part::boundary, Part::solid}) {
    EXPECT_EQ(field(p, 100, 500), 50.0);
    EXPECT_EQ(field(p, 112, 500), 38.0);
    EXPECT_EQ(field(p, 88, 500), 62.0);
    EXPECT_GT(luminance(image(p).at(100, 500)), luminance(image(p).at(112, 500)) + 60);
    EXPECT_GT(luminance(image(p).at(100, 500)), luminance(image(p).at(88, 500)) + 60);
  }
  // Inside the box, 25 below its top side: a band in both modes (|d| = 25).
  EXPECT_EQ(field(Part::boundary, 245, 445), 25.0);
  EXPECT_EQ(field(Part::solid, 245, 445), -25.0);
  for (Part p : {Part::boundary, Part::solid})
    EXPECT_GT(luminance(image(p).at(245, 445)), luminance(image(p).at(245, 457)) + 60);
}

TEST_F(PlanarSeedField, SignedModeColoursTheInsideDifferently) {
  const Rgb8 in_box_boundary = image(Part::boundary).at(245, 500);  // d = +80
  const Rgb8 in_box_solid = image(Part::solid).at(245, 500);        // d = -80
  EXPECT_EQ(field(Part::boundary, 245, 500), 80.0);
  EXPECT_EQ(field(Part::solid, 245, 500), -80.0);
  EXPECT_GT(in_box_boundary.r, in_box_boundary.b);  // amber outside-style glow
  EXPECT_GT(in_box_solid.b, in_box_solid.r);        // blue inside glow
  // Inside the triangle at the seed's P (660, 480): 52 from the nearest edge.
  EXPECT_NEAR(field(Part::solid, 660, 480), -51.79, 0.01);
  // The segment has no inside: its distance is unsigned in both modes.
  EXPECT_EQ(field(Part::solid, 275, 150), field(Part::boundary, 275, 150));
  EXPECT_GT(field(Part::solid, 275, 150), 0.0);
  // Outside every shape the two modes agree.
  EXPECT_EQ(image(Part::solid).at(500, 350), image(Part::boundary).at(500, 350));
}

TEST_F(PlanarSeedField, EvaluatedPerPixelNotInSquares) {
  for (int x = 95; x < 105; ++x)
    EXPECT_EQ(field(Part::boundary, x, 500), 150.0 - x);  // one unit per pixel
}

TEST_F(PlanarSeedField, PngFilesRoundTrip) {
  const fs::path dir = picture_dir();
  for (Part p : {Part::boundary, Part::solid}) {
    const fs::path file = dir / (p == Part::solid ? "seed_field_signed.png" : "seed_field_unsigned.png");
    write_png(file, image(p));
    const Image back = read_png(file);
    EXPECT_EQ(back.width, 1000);
    EXPECT_EQ(back.height, 700);
    EXPECT_TRUE(back.pixels == image(p).pixels);
  }
  std::printf("[ pictures ] %s\n", dir.string().c_str());
}

TEST(PlanarPng, ErrorsNameTheProblemAndLeaveNoFile) {
  const fs::path dir = fs::path(::testing::TempDir()) / "prox_planar_png";
  fs::create_directories(dir);
  Image bad{4, 4, std::vector<std::uint8_t>(10)};
  EXPECT_THROW(write_png(dir / "bad.png", bad), std::invalid_argument);
  EXPECT_FALSE(fs::exists(dir / "bad.png"));
  const Image ok = make_image(3, 2, Rgb8{1, 2, 3});
  EXPECT_THROW(write_png(dir / "no" / "such" / "dir.png", ok), std::runtime_error);
  {
    std::ofstream junk(dir / "junk.png");
    junk << "not a png";
  }
  try {
    read_png(dir / "junk.png");
    FAIL() << "junk read as a PNG";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("junk.png"), std::string::npos) << e.what();
  }
  write_png(dir / "small.png", ok);
  const Image back = read_png(dir / "small.png");
  EXPECT_EQ(back.at(2, 1), (Rgb8{1, 2, 3}));
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
}

std::string parse_error(const std::string& text) {
  std::istringstream in(text);
  try {
    parse_scene(in, "scene.txt");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(PlanarSceneFormat, ErrorsNameTheLineAndWhatIsWrong) {
  EXPECT_EQ(parse_error("# c\n\ncircle 1 2\n"),
            "scene.txt:3: circle needs 3 numbers (center x, center y, radius), got 2");
  EXPECT_EQ(parse_error("circel 1 2 3"),
            "scene.txt:1: unknown shape 'circel' (expected canvas, segment, circle, box, obox, "
            "capsule, convex, polygon or polyline)");
  EXPECT_EQ(parse_error("segment 0 0 1 1\nbox 0 0 1x 2"), "scene.txt:2: '1x' is not a number");
  EXPECT_EQ(parse_error("circle 0 0 nan"), "scene.txt:1: 'nan' is not a finite number");
  EXPECT_EQ(parse_error("circle 0 0 -1"),
            "scene.txt:1: circle radius must be >= 0 (got a negative or NaN radius)");
  EXPECT_NE(parse_error("box 5 0 1 2").find("scene.txt:1: box needs x0 <= x1"), std::string::npos);
  EXPECT_EQ(parse_error("polygon 0 0 1 1 2"),
            "scene.txt:1: polygon needs x y pairs (an even count, at least 2 numbers), got 5");
  EXPECT_EQ(parse_error("polygon 0 0 4 4 4 0 0 4"),
            "scene.txt:1: polygon is not simple: edges 0 and 2 touch");
  EXPECT_EQ(parse_error("convex 0 0 6 0 6 6 3 1 0 6"),
            "scene.txt:1: convex polygon is not convex (use Polygon for concave shapes)");
  EXPECT_EQ(parse_error("canvas 10.5 7"), "scene.txt:1: canvas needs whole sizes from 1 to 32768");
}

TEST(PlanarSceneFormat, DefaultSceneRoundTrips) {
  const Scene s = default_scene();
  const std::string text = format_scene(s);
  EXPECT_EQ(text,
            "canvas 1000 700\nsegment 150 160 400 120\ncircle 720 200 95\nbox 150 420 340 580\n"
            "polygon 560 430 780 410 690 610\n");
  std::istringstream in(text);
  const Scene back = parse_scene(in, "default");
  EXPECT_EQ(format_scene(back), text);
}

TEST(PlanarSceneFormat, EveryShapeParsesAndRenders) {
  std::istringstream in(
      "canvas 200 120  # small\n"
      "segment 10 10 60 20\n"
      "circle 100 30 15\n"
      "box 20 60 50 100\n"
      "obox 100 90 20 10 30\n"
      "capsule 150 20 180 50 8\n"
      "convex 140 70 190 70 165 110\n"
      "polygon 60 40 90 40 90 70 75 55 60 70  # a notch: concave\n"
      "polyline 5 115 50 110 95 118\n"
      "circle 10 60 0   # zero radius: a point\n"
      "polygon 0 0 0 0 5 0   # repeated point, no area\n");
  const Scene s = parse_scene(in, "all.txt");
  ASSERT_EQ(s.shapes.size(), 10u);
  EXPECT_EQ(s.width, 200);
  EXPECT_EQ(shape_keyword(s.shapes[3]), "obox");
  for (Part p : {Part::boundary, Part::solid}) {
    FieldOptions o;
    o.part = p;
    const Image img = render_distance_field(s, o);
    EXPECT_EQ(img.width, 200);
    EXPECT_EQ(img.at(100, 15), white);  // top of the circle's rim
    EXPECT_EQ(img.at(10, 60), white);   // the zero-radius circle is its center
    write_png(picture_dir() / (p == Part::solid ? "all_shapes_signed.png" : "all_shapes_unsigned.png"), img);
  }
  // The turned box: its center is inside, 10 (its half height) from its long sides.
  EXPECT_NEAR(scene_distance(Vec2d{100, 90}, s, Part::solid), -10.0, 1e-12);
  // The notch point of the concave polygon is outside it, its floor inside.
  const auto& notch = std::get<Polygon<double>>(s.shapes[6]);
  EXPECT_FALSE(contains(Vec2d{75, 65}, notch));
  EXPECT_TRUE(contains(Vec2d{75, 50}, notch));
  std::istringstream again(format_scene(s));
  EXPECT_EQ(parse_scene(again, "again").shapes.size(), 10u);
}

TEST(PlanarSceneFormat, SceneClosestPicksTheNearestShapeLowestIndexOnTies) {
  const Scene s = default_scene();
  // The seed's P (660, 480): the triangle (index 3) as a boundary, 52 away; as a solid, P itself.
  auto r = scene_closest(Vec2d{660, 480}, s, Part::boundary);
  EXPECT_EQ(r.shape, 3);
  EXPECT_EQ(std::lround(std::sqrt(r.closest.sq_distance)), 52);
  r = scene_closest(Vec2d{660, 480}, s, Part::solid);
  EXPECT_EQ(r.shape, 3);
  EXPECT_EQ(r.closest.point, (Vec2d{660, 480}));
  // (720, 200) is the circle's center: the rim point to +x, 95 away.
  r = scene_closest(Vec2d{720, 200}, s, Part::boundary);
  EXPECT_EQ(r.shape, 1);
  EXPECT_EQ(r.closest.point, (Vec2d{815, 200}));
  // Two equal circles, equally near: the first one wins.
  Scene twins;
  twins.shapes = {Circle<double>{{0, 0}, 1}, Circle<double>{{10, 0}, 1}};
  EXPECT_EQ(scene_closest(Vec2d{5, 3}, twins, Part::boundary).shape, 0);
  EXPECT_EQ(scene_closest(Vec2d{5, 3}, Scene{}, Part::boundary).shape, -1);
  EXPECT_EQ(scene_closest(Vec2d{std::nan(""), 3}, s, Part::boundary).shape, -1);
}

TEST(PlanarFieldOptionsCheck, BadOptionsThrow) {
  FieldOptions o;
  o.scale = 0;
  EXPECT_THROW(render_distance_field(default_scene(), o), std::invalid_argument);
  o = FieldOptions{};
  o.width = -3;
  EXPECT_THROW(render_distance_field(default_scene(), o), std::invalid_argument);
  Scene tiny = default_scene();
  tiny.width = 0;
  EXPECT_THROW(render_distance_field(tiny, FieldOptions{}), std::invalid_argument);
  o = FieldOptions{};
  o.width = 40;
  o.height = 30;
  o.scale = 25;  // the whole 1000 x 700 scene in 40 x 30 pixels
  const Image small = render_distance_field(default_scene(), o);
  EXPECT_EQ(small.width, 40);
  EXPECT_EQ(small.at(6, 20), white);  // (150, 500): on the box's left side
}

}  // namespace
