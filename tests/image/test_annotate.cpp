// tests/image/test_annotate.cpp — annotate(): the picture kept pixel for
// pixel, a colour bar whose ends are the map's ends, tick labels and caption
// text actually drawn, long captions wrapped, the font's glyphs.
#include <gtest/gtest.h>

#include "prox/image/annotate.hpp"

using namespace prox;

namespace {

int ink_pixels(const Image& img, int x0, int y0, int x1, int y1, Rgb8 background) {
  int n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) n += img.at(x, y) == background ? 0 : 1;
  return n;
}

}  // namespace

TEST(Annotate, TextIsDrawnInTheBuiltInFont) {
  EXPECT_EQ(text_width("abc"), 3 * kGlyphWidth);
  EXPECT_EQ(text_width("a\xC2\xB7" "b"), 3 * kGlyphWidth);  // the middle dot is one glyph
  EXPECT_EQ(text_width("x", 2), 2 * kGlyphWidth);
  Image img = make_image(40, 20, Rgb8{0, 0, 0});
  draw_text(img, 1, 1, " ", Rgb8{255, 255, 255});
  EXPECT_EQ(ink_pixels(img, 0, 0, 40, 20, Rgb8{0, 0, 0}), 0);
  draw_text(img, 1, 1, "A8", Rgb8{255, 255, 255});
  const int a = ink_pixels(img, 1, 1, 1 + kGlyphWidth, 1 + kGlyphHeight, Rgb8{0, 0, 0});
  const int eight = ink_pixels(img, 7, 1, 7 + kGlyphWidth, 1 + kGlyphHeight, Rgb8{0, 0, 0});
  EXPECT_GT(a, 10);
  EXPECT_GT(eight, 10);
  draw_text(img, 35, 15, "WWWW", Rgb8{255, 255, 255});  // clipped, no crash
}

TEST(Annotate, ColourMapsHaveTheirEnds) {
  EXPECT_EQ(viridis(0), (Rgb8{68, 1, 84}));
  EXPECT_EQ(viridis(1), (Rgb8{253, 231, 37}));
  EXPECT_EQ(viridis(7), viridis(1));
  EXPECT_EQ(diverging(0), (Rgb8{247, 247, 247}));
  EXPECT_GT(diverging(-1).b, diverging(-1).r);  // inside blue
  EXPECT_GT(diverging(1).r, diverging(1).b);    // outside orange
  EXPECT_EQ(label_number(0), "0");
  EXPECT_EQ(label_number(0.0125), "0.0125");
  EXPECT_EQ(label_number(1.5e-7), "1.5e-07");
}

TEST(Annotate, PictureBarAndCaption) {
  Image pic = make_image(200, 120, Rgb8{10, 20, 30});
  pic.set(7, 9, Rgb8{1, 2, 3});
  ColourBar bar;
  bar.title = "distance (mesh units)";
  bar.lo = -2;
  bar.hi = 3;
  bar.colour = [](double v) { return diverging(v / 3); };
  bar.marks = {0};
  const std::vector<std::string> caption{"bunny00 \xC2\xB7 signed distance on the plane z = 0.012"};
  const Image out = annotate(pic, caption, &bar);
  const AnnotateLayout l = annotate_layout(pic, caption, &bar);
  ASSERT_EQ(out.width, l.width);
  ASSERT_EQ(out.height, l.height);
  EXPECT_GT(out.width, pic.width);
  EXPECT_GT(out.height, pic.height);
  for (int y = 0; y < pic.height; ++y)
    for (int x = 0; x < pic.width; ++x) ASSERT_EQ(out.at(x, y), pic.at(x, y)) << x << "," << y;
  // The bar's ends are the colours of hi (top) and lo (bottom).
  const int xm = (l.bar_x0 + l.bar_x1) / 2;
  EXPECT_EQ(out.at(xm, l.bar_y0), bar.colour(bar.hi));
  EXPECT_EQ(out.at(xm, l.bar_y1), bar.colour(bar.lo));
  // Tick labels beside the bar, and the caption strip, hold text.
  const Rgb8 panel = out.at(out.width - 1, out.height - 1);
  EXPECT_GT(ink_pixels(out, l.bar_x1 + 4, 0, out.width, pic.height, panel), 50);
  EXPECT_GT(ink_pixels(out, 0, l.caption_y0, out.width, out.height, panel), 200);
  // A caption longer than the picture is wrapped, not cut.
  const std::vector<std::string> long_caption{std::string(300, 'x') + " end"};
  const AnnotateLayout wrapped = annotate_layout(pic, long_caption, nullptr);
  EXPECT_GE(wrapped.height - pic.height, 4 * 16);
  // No bar, no caption: the picture itself.
  const Image same = annotate(pic, {}, nullptr);
  EXPECT_EQ(same.width, pic.width);
  EXPECT_EQ(same.height, pic.height);
}
