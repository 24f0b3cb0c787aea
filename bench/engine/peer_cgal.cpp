// bench/engine/peer_cgal.cpp — CGAL's AABB_tree (Debian's libcgal-dev) as a peer.
//
// Its own translation unit because CGAL's headers take long to compile.
// Kernel Simple_cartesian<double> (the kernel CGAL's AABB-tree benchmarks and
// examples use for speed), AABB_triangle_primitive over a vector of Triangle_3.
// Closest point: closest_point_and_primitive after accelerate_distance_queries()
// (counted in the build, as it must run before concurrent queries). Rays:
// first_intersection; t = (hit point - origin) . d / (d . d).
// Memory: heap bytes (glibc mallinfo2) held after the build minus before it,
// including the Triangle_3 copies the tree points into.
#include <CGAL/AABB_traits.h>
#include <CGAL/AABB_tree.h>
#include <CGAL/AABB_triangle_primitive.h>
#include <CGAL/Simple_cartesian.h>
#include <CGAL/version_macros.h>
#include <malloc.h>

#include <cmath>
#include <memory>

#include "peer.hpp"

namespace prox::bench {
namespace {

using Kernel = CGAL::Simple_cartesian<double>;
using Point = Kernel::Point_3;
using Triangle = Kernel::Triangle_3;
using CgalRay = Kernel::Ray_3;
using Iterator = std::vector<Triangle>::const_iterator;
using Primitive = CGAL::AABB_triangle_primitive<Kernel, Iterator>;
using Tree = CGAL::AABB_tree<CGAL::AABB_traits<Kernel, Primitive>>;

std::size_t heap_bytes() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

Point to_point(const Vec3d& p) { return Point(p[0], p[1], p[2]); }

class CgalPeer final : public Peer {
 public:
  std::string name() const override { return "cgal"; }
  std::string description() const override {
    return std::string("CGAL ") + CGAL_VERSION_STR +
           " AABB_tree, Simple_cartesian<double>, accelerate_distance_queries()";
  }
  bool single_precision() const override { return false; }

  void build(const BenchMesh& mesh) override {
    tree_.reset();
    triangles_.clear();
    triangles_.shrink_to_fit();
    const std::size_t before = heap_bytes();
    triangles_.reserve(mesh.triangles.size());
    for (const auto& t : mesh.triangles) {
      triangles_.emplace_back(to_point(mesh.vertices[t[0]]), to_point(mesh.vertices[t[1]]),
                              to_point(mesh.vertices[t[2]]));
    }
    tree_ = std::make_unique<Tree>(triangles_.cbegin(), triangles_.cend());
    tree_->build();
    tree_->accelerate_distance_queries();
    const std::size_t after = heap_bytes();
    bytes_ = after > before ? after - before : 0;
  }
  std::size_t memory_bytes() const override { return bytes_; }
  std::string memory_method() const override { return "heap growth (mallinfo2)"; }

  void set_points(const std::vector<Vec3d>& points) override {
    points_.clear();
    points_.reserve(points.size());
    for (const Vec3d& p : points) points_.push_back(to_point(p));
    cp_.assign(points.size(), CpAnswer{});
  }
  void closest_points(int threads) override {
    parallel_blocks(points_.size(), threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        const auto [point, id] = tree_->closest_point_and_primitive(points_[i]);
        cp_[i].distance = std::sqrt(CGAL::squared_distance(points_[i], point));
        cp_[i].triangle = static_cast<std::int32_t>(id - triangles_.cbegin());
      }
    });
  }
  std::vector<CpAnswer> cp_answers() const override { return cp_; }

  void set_rays(const std::vector<Ray<double>>& rays) override {
    rays_.clear();
    rays_.reserve(rays.size());
    for (const Ray<double>& r : rays) {
      // CGAL rays start at their source: move it to t_min (0 in every workload).
      rays_.emplace_back(to_point(r.at(r.t_min)), Kernel::Vector_3(r.direction[0],
                                                                  r.direction[1],
                                                                  r.direction[2]));
    }
    hits_.assign(rays.size(), RayAnswer{});
  }
  void first_hits(int threads) override {
    parallel_blocks(rays_.size(), threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        const auto hit = tree_->first_intersection(rays_[i]);
        if (!hit) {
          hits_[i] = RayAnswer{};
          continue;
        }
        const Point* p = boost::get<Point>(&hit->first);
        // A ray in the plane of a triangle meets it in a segment: its near end.
        const Point q = p ? *p : nearest_end(rays_[i], boost::get<Kernel::Segment_3>(hit->first));
        const Kernel::Vector_3 d = rays_[i].to_vector();
        hits_[i].t = ((q - rays_[i].source()) * d) / d.squared_length();
        hits_[i].triangle = static_cast<std::int32_t>(hit->second - triangles_.cbegin());
      }
    });
  }
  std::vector<RayAnswer> ray_answers() const override { return hits_; }

 private:
  static Point nearest_end(const CgalRay& ray, const Kernel::Segment_3& s) {
    return CGAL::squared_distance(ray.source(), s.source()) <=
                   CGAL::squared_distance(ray.source(), s.target())
               ? s.source()
               : s.target();
  }

  std::vector<Triangle> triangles_;
  std::unique_ptr<Tree> tree_;
  std::size_t bytes_ = 0;
  std::vector<Point> points_;
  std::vector<CpAnswer> cp_;
  std::vector<CgalRay> rays_;
  std::vector<RayAnswer> hits_;
};

}  // namespace

std::unique_ptr<Peer> make_cgal_peer() { return std::make_unique<CgalPeer>(); }

}  // namespace prox::bench
