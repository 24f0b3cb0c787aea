// prox-kernels-demo — runs every 3D kernel of prox on one built-in triangle
// and prints readable tables: closest points (three methods, one query per
// Voronoi region), rays (both kernels, front and back, edge, miss), and the
// small kernels (segment, box, plane, rectangle, normal, area, inside, sphere,
// ray/box). Deterministic; no input; exit status 0.
#include <cstdio>

#include "prox/prox.hpp"

namespace {

using prox::Vec3d;

const Vec3d kA{0, 0, 0}, kB{4, 0, 0}, kC{0, 3, 0};

void print_vec(const Vec3d& v) { std::printf("(%6.3f, %6.3f, %6.3f)", v[0], v[1], v[2]); }

void closest_points() {
  std::printf("Closest point on triangle a = (0,0,0), b = (4,0,0), c = (0,3,0)\n\n");
  std::printf("%-24s %-11s %-24s %9s %-7s %s\n", "query p", "method", "closest point",
              "distance2", "feature", "weights (a, b, c)");
  struct Query {
    Vec3d p;
    const char* region;
  };
  const Query queries[] = {{{1, 1, 2}, "face"},       {{-1, -1, 1}, "vertex a"},
                           {{6, -1, 0}, "vertex b"},  {{-1, 5, 0}, "vertex c"},
                           {{2, -2, 1}, "edge ab"},   {{3, 3, 0}, "edge bc"},
                           {{-2, 1, -1}, "edge ca"}};
  using Fn = prox::ClosestPointTriangleResult<double> (*)(const Vec3d&, const Vec3d&,
                                                          const Vec3d&, const Vec3d&);
  const Fn methods[] = {&prox::closest_point_triangle<double>,
                        &prox::closest_point_triangle_eberly<double>,
                        &prox::closest_point_triangle_projection<double>};
  const char* names[] = {"Ericson", "Eberly", "projection"};
  for (const Query& q : queries) {
    for (int m = 0; m < 3; ++m) {
      const auto r = methods[m](q.p, kA, kB, kC);
      if (m == 0) {
        print_vec(q.p);
      } else {
        std::printf("%24s", "");
      }
      std::printf(" %-11s ", names[m]);
      print_vec(r.point);
      std::printf(" %9.4f %-7s (%.3f, %.3f, %.3f)\n", r.sq_distance, prox::to_string(r.feature),
                  r.bary[0], r.bary[1], r.bary[2]);
    }
  }
  std::printf("\n");
}

void rays() {
  std::printf("Ray against the triangle (t in units of |direction|)\n\n");
  std::printf("%-24s %-24s %-17s %-4s %8s %7s %7s %s\n", "origin", "direction", "kernel", "hit",
              "t", "u", "v", "side");
  struct Case {
    Vec3d o, d;
  };
  const Case cases[] = {{{1, 1, 5}, {0, 0, -1}},  {{1, 1, -5}, {0, 0, 2}},
                        {{2, 0, 3}, {0, 0, -1}},  {{3, 3, 3}, {0, 0, -1}},
                        {{-1, 1, 0}, {1, 0, 0}},  {{1, 1, 5}, {0, 0, 1}}};
  for (const Case& c : cases) {
    const prox::Rayd ray{c.o, c.d};
    const prox::RayTriangleHit<double> hits[] = {
        prox::ray_triangle_moller_trumbore(ray, kA, kB, kC),
        prox::ray_triangle_watertight(ray, kA, kB, kC)};
    const char* names[] = {"Moller-Trumbore", "watertight"};
    for (int k = 0; k < 2; ++k) {
      if (k == 0) {
        print_vec(c.o);
        std::printf(" ");
        print_vec(c.d);
      } else {
        std::printf("%49s", "");
      }
      const auto& h = hits[k];
      if (h.hit) {
        std::printf(" %-17s %-4s %8.3f %7.3f %7.3f %s\n", names[k], "yes", h.t, h.u, h.v,
                    h.front_face ? "front" : "back");
      } else {
        std::printf(" %-17s %-4s\n", names[k], "no");
      }
    }
  }
  std::printf("\n");
}

void small_kernels() {
  std::printf("Other kernels\n\n");
  std::printf("%-48s %s\n", "query", "answer");
  const auto seg = prox::closest_point_segment(Vec3d{1, 2, 0}, kA, kB);
  std::printf("%-48s point (%g, %g, %g), t = %g, distance2 = %g\n",
              "closest_point_segment p=(1,2,0), [a,b]", seg.point[0], seg.point[1], seg.point[2],
              seg.t, seg.sq_distance);
  const prox::Box<double, 3> box{{0, 0, 0}, {1, 2, 3}};
  const auto bx = prox::closest_point_box(Vec3d{2, 1, -1}, box);
  std::printf("%-48s point (%g, %g, %g), distance2 = %g, inside = %s\n",
              "closest_point_box p=(2,1,-1), [0,1]x[0,2]x[0,3]", bx.point[0], bx.point[1],
              bx.point[2], bx.sq_distance, bx.inside ? "yes" : "no");
  const auto pl = prox::closest_point_plane(Vec3d{1, 2, 3}, Vec3d{0, 0, 1}, Vec3d{0, 0, 2});
  std::printf("%-48s point (%g, %g, %g), distance2 = %g, signed distance = %g\n",
              "plane z = 1 (normal (0,0,2)), p=(1,2,3)", pl.point[0], pl.point[1], pl.point[2],
              pl.sq_distance,
              prox::signed_distance_plane(Vec3d{1, 2, 3}, Vec3d{0, 0, 1}, Vec3d{0, 0, 2}));
  const auto rc = prox::closest_point_rectangle(Vec3d{3, 1, 1}, kA, Vec3d{2, 0, 0},
                                                Vec3d{0, 4, 0});
  std::printf("%-48s point (%g, %g, %g), s = %g, t = %g, distance2 = %g\n",
              "rectangle (0,0,0)+[0,1](2,0,0)+[0,1](0,4,0)", rc.point[0], rc.point[1],
              rc.point[2], rc.s, rc.t, rc.sq_distance);
  const Vec3d n = prox::triangle_normal(kA, kB, kC);
  std::printf("%-48s normal (%g, %g, %g), area = %g\n", "triangle_normal, triangle_area", n[0],
              n[1], n[2], prox::triangle_area(kA, kB, kC));
  std::printf("%-48s %s, %s\n", "point_in_triangle (1,1,7), (3,3,0)",
              prox::point_in_triangle(Vec3d{1, 1, 7}, kA, kB, kC) ? "over it" : "not over it",
              prox::point_in_triangle(Vec3d{3, 3, 0}, kA, kB, kC) ? "over it" : "not over it");
  std::printf("%-48s r = 1: %s, r = 0.9: %s\n", "sphere_triangle_overlap centre (1,1,1)",
              prox::sphere_triangle_overlap(Vec3d{1, 1, 1}, 1.0, kA, kB, kC) ? "touch" : "apart",
              prox::sphere_triangle_overlap(Vec3d{1, 1, 1}, 0.9, kA, kB, kC) ? "touch" : "apart");
  const auto rb = prox::ray_box(prox::Rayd{{-1, 1, 1}, {1, 0, 0}}, box);
  std::printf("%-48s hit = %s, t in [%g, %g]\n", "ray_box from (-1,1,1) along +x", rb.hit ? "yes" : "no",
              rb.t_near, rb.t_far);
}

}  // namespace

int main() {
  closest_points();
  rays();
  small_kernels();
  return 0;
}
