// A separate project that found prox::image: a PNG written and read back.
#include <cstdio>
#include <filesystem>

#include <prox/image/png.hpp>

int main() {
  prox::Image image = prox::make_image(5, 3, {10, 20, 30});
  image.set(4, 2, {255, 0, 7});
  const std::filesystem::path path = "consumer-image.png";  // in the working directory
  prox::write_png(path, image);
  const prox::Image back = prox::read_png(path);
  std::filesystem::remove(path);
  const bool same = back.width == 5 && back.height == 3 && back.pixels == image.pixels;
  std::printf("read back %dx%d, %s\n", back.width, back.height, same ? "same pixels" : "DIFFERENT");
  return same ? 0 : 1;
}
