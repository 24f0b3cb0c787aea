// A separate project that found prox::bvh: builds a BVH over boxes and checks it.
#include <cstdio>
#include <string>
#include <vector>

#include <prox/bvh/build.hpp>

int main() {
  // 100 unit boxes in a row: the hierarchy must hold each primitive exactly once.
  std::vector<prox::Box3<float>> boxes;
  for (int i = 0; i < 100; ++i) {
    const float x = static_cast<float>(i);
    boxes.push_back(prox::Box3<float>{{x, 0, 0}, {x + 1, 1, 1}});
  }
  const auto bvh = prox::bvh::build_bvh8(boxes);
  const std::string problem = prox::bvh::validate_bvh8(bvh, boxes.size());
  std::vector<int> seen(boxes.size(), 0);
  for (const std::uint32_t id : bvh.prims)
    if (id < seen.size()) ++seen[id];
  bool each_once = true;
  for (const int n : seen) each_once = each_once && n == 1;
  std::printf("nodes=%zu primitives=%zu valid=%s each once=%s\n", bvh.nodes.size(),
              bvh.stats.primitives, problem.empty() ? "yes" : problem.c_str(),
              each_once ? "yes" : "no");
  return problem.empty() && each_once && bvh.stats.primitives == 100 ? 0 : 1;
}
