// A separate project that found prox::bvh: builds a BVH over boxes and checks it.
#include <cstdio>
#include <vector>

#include <prox/bvh/build.hpp>

int main() {
  // 100 unit boxes in a row: the hierarchy must hold each primitive exactly once.
  std::vector<prox::Box3<float>> boxes;
  for (int i = 0; i < 100; ++i) {
    const float x = static_cast<float>(i);
    boxes.push_back(prox::Box3<float>{{x, 0, 0}, {x + 1, 1, 1}});
  }
  const prox::bvh::Bvh4 bvh = prox::bvh::build_bvh4(boxes);
  const std::string problem = prox::bvh::validate_bvh4(bvh, boxes.size());
  const float root_hi_x = bvh.empty() ? 0.0f : bvh.nodes[0].hi[0][0];
  std::printf("nodes=%zu prims=%zu valid=%s\n", bvh.nodes.size(), bvh.prims.size(),
              problem.empty() ? "yes" : problem.c_str());
  return problem.empty() && bvh.prims.size() == 100 && root_hi_x >= 1.0f ? 0 : 1;
}
