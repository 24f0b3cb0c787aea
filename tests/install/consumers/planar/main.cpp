// A separate project that found prox::planar: a scene parsed and measured.
#include <cmath>
#include <cstdio>
#include <sstream>

#include <prox/planar/scene.hpp>

int main() {
  std::istringstream text("circle 0 0 10\nbox 20 -1 30 1\n");
  const prox::planar::Scene scene = prox::planar::parse_scene(text, "consumer");
  // (15, 0): 5 from the circle's outline and from the box's left side; the tie
  // goes to the lower shape index. Inside the circle the solid distance is negative.
  const auto near = prox::planar::scene_closest({15, 0}, scene, prox::planar::Part::boundary);
  const double inside = prox::planar::scene_distance({0, 4}, scene, prox::planar::Part::solid);
  std::printf("shapes=%zu nearest=%d inside=%g\n", scene.shapes.size(), near.shape, inside);
  return scene.shapes.size() == 2 && near.shape == 0 && inside == -6.0 ? 0 : 1;
}
