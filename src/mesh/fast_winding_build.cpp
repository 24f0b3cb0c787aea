// src/mesh/fast_winding_build.cpp — FastWindingNumber's constructor: the
// far-field data of every cluster (centroid, N, M, T, area, radius, mu2, mu3;
// the derivation is in prox/mesh/fast_winding.hpp and docs/sign-and-sdf.md),
// and the grid of a closed mesh.
#include <algorithm>
#include <cmath>

#include "fast_winding_data.hpp"

namespace prox {

using namespace detail::fast_winding;

namespace {

/// The raw data of one cluster while building (full M, unscaled).
struct Raw {
  double c[3] = {0, 0, 0};
  double n[3] = {0, 0, 0};
  double m[3][3] = {};
  double t[3][3][3] = {};  // sum int n_i s_j s_k dA
  double area = 0, radius = 0, mu2 = 0, mu3 = 0;
  bool used = false;
};

}  // namespace

template <class T>
FastWindingNumber<T>::FastWindingNumber(const MeshIndex<T>& index) : index_(&index) {
  auto data = std::make_shared<Data>();
  std::vector<ClusterPack>& clusters_ = data->clusters;
  const bvh::Bvh8& bvh = index.bvh();
  const FlatIndex<T> flat = index.layout();
  max_triangles_ = std::max<std::size_t>(256, index.mesh().num_triangles() / 2);
  clusters_.assign(bvh.nodes.size(), ClusterPack{});
  std::vector<Raw> raw(bvh.nodes.size() * bvh::kWidth);
  auto corner = [&](std::uint32_t s, int k) { return flat.corner(s, k).template cast<double>(); };
  for (std::size_t i = bvh.nodes.size(); i-- > 0;) {  // children after parents
    const bvh::Node8& node = bvh.nodes[i];
    for (int k = 0; k < bvh::kWidth; ++k) {
      if (node.child[k] == bvh::kInvalid) continue;
      Raw d;
      d.used = true;
      const std::uint32_t first = node.child[k], count = node.count[k];
      if (count > 0) {
        for (std::uint32_t j = first; j < first + count; ++j) {
          const Vec3d a = corner(j, 0), b = corner(j, 1), c = corner(j, 2);
          const Vec3d n = cross(b - a, c - a) * 0.5;
          const double area = std::sqrt(squared_norm(n));
          const Vec3d g = (a + b + c) / 3.0;
          for (int q = 0; q < 3; ++q) {
            d.n[q] += n[q];
            d.c[q] += area * g[q];
          }
          d.area += area;
        }
        if (d.area > 0)
          for (double& x : d.c) x /= d.area;
        else
          for (int a = 0; a < 3; ++a) d.c[a] = 0.5 * (double(node.lo[a][k]) + double(node.hi[a][k]));
        const Vec3d cc{d.c[0], d.c[1], d.c[2]};
        for (std::uint32_t j = first; j < first + count; ++j) {
          const Vec3d a = corner(j, 0), b = corner(j, 1), c = corner(j, 2);
          const Vec3d n = cross(b - a, c - a) * 0.5;
          const double area = std::sqrt(squared_norm(n));
          const Vec3d off = (a + b + c) / 3.0 - cc;
          for (int q = 0; q < 3; ++q)
            for (int r = 0; r < 3; ++r) d.m[q][r] += n[q] * off[r];
          double far3 = 0;
          for (const Vec3d& v : {a, b, c}) {
            const double l = std::sqrt(squared_norm(v - cc));
            d.radius = std::max(d.radius, l);
            far3 = std::max(far3, l * l * l);
          }
          // int |y - c|^2 dA and int s_j s_k dA, exact for quadratics: area/3 *
          // sum over the edge midpoints; int |s|^3 <= area * max corner |s|^3.
          const Vec3d mids[3] = {(a + b) * 0.5 - cc, (b + c) * 0.5 - cc, (c + a) * 0.5 - cc};
          for (const Vec3d& m : mids) {
            d.mu2 += area / 3.0 * squared_norm(m);
            for (int q = 0; q < 3; ++q)
              for (int r = 0; r < 3; ++r)
                for (int z = 0; z < 3; ++z) d.t[q][r][z] += n[q] / 3.0 * m[r] * m[z];
          }
          d.mu3 += area * far3;
        }
      } else {
        const Raw* ch = &raw[std::size_t(first) * bvh::kWidth];
        for (int q = 0; q < bvh::kWidth; ++q) {
          if (!ch[q].used) continue;
          for (int a = 0; a < 3; ++a) {
            d.n[a] += ch[q].n[a];
            d.c[a] += ch[q].area * ch[q].c[a];
          }
          d.area += ch[q].area;
        }
        if (d.area > 0)
          for (double& x : d.c) x /= d.area;
        else
          for (int a = 0; a < 3; ++a) d.c[a] = 0.5 * (double(node.lo[a][k]) + double(node.hi[a][k]));
        for (int q = 0; q < bvh::kWidth; ++q) {
          if (!ch[q].used) continue;
          double shift2 = 0;
          for (int a = 0; a < 3; ++a) {
            const double s = ch[q].c[a] - d.c[a];
            shift2 += s * s;
            for (int r = 0; r < 3; ++r) d.m[a][r] += ch[q].m[a][r] + ch[q].n[a] * (ch[q].c[r] - d.c[r]);
          }
          const double dl[3] = {ch[q].c[0] - d.c[0], ch[q].c[1] - d.c[1], ch[q].c[2] - d.c[2]};
          // T' = T + M_ij dl_k + M_ik dl_j + N_i dl_j dl_k (s' = s + dl).
          for (int a = 0; a < 3; ++a)
            for (int r = 0; r < 3; ++r)
              for (int z = 0; z < 3; ++z)
                d.t[a][r][z] += ch[q].t[a][r][z] + ch[q].m[a][r] * dl[z] + ch[q].m[a][z] * dl[r] +
                                ch[q].n[a] * dl[r] * dl[z];
          const double shift = std::sqrt(shift2);
          d.radius = std::max(d.radius, ch[q].radius + shift);
          const double root = std::sqrt(ch[q].mu2) + std::sqrt(ch[q].area) * shift;
          d.mu2 += root * root;
          const double root3 = std::cbrt(ch[q].mu3) + std::cbrt(ch[q].area) * shift;
          d.mu3 += root3 * root3 * root3;
        }
      }
      // The slot's box also bounds the radius (its farthest corner).
      double box2 = 0;
      for (int a = 0; a < 3; ++a) {
        const double e = std::max(d.c[a] - double(node.lo[a][k]), double(node.hi[a][k]) - d.c[a]);
        box2 += e * e;
      }
      d.radius = std::min(d.radius, std::sqrt(box2)) * (1 + 1e-12);
      d.area *= 1 + 1e-12;
      d.mu2 = std::min(d.mu2, d.area * d.radius * d.radius) * (1 + 1e-10);
      d.mu3 = std::min(d.mu3, d.area * d.radius * d.radius * d.radius) * (1 + 1e-10);
      raw[i * bvh::kWidth + k] = d;
    }
    ClusterPack& pk = clusters_[i];
    for (int k = 0; k < bvh::kWidth; ++k) {
      const Raw& d = raw[i * bvh::kWidth + k];
      pk.cx[k] = d.c[0];
      pk.cy[k] = d.c[1];
      pk.cz[k] = d.c[2];
      pk.nx[k] = d.n[0] * kInv4Pi;
      pk.ny[k] = d.n[1] * kInv4Pi;
      pk.nz[k] = d.n[2] * kInv4Pi;
      pk.mxx[k] = d.m[0][0] * kInv4Pi;
      pk.myy[k] = d.m[1][1] * kInv4Pi;
      pk.mzz[k] = d.m[2][2] * kInv4Pi;
      pk.mxy[k] = (d.m[0][1] + d.m[1][0]) * kInv4Pi;
      pk.mxz[k] = (d.m[0][2] + d.m[2][0]) * kInv4Pi;
      pk.myz[k] = (d.m[1][2] + d.m[2][1]) * kInv4Pi;
      pk.trace[k] = (d.m[0][0] + d.m[1][1] + d.m[2][2]) * kInv4Pi;
      pk.radius[k] = d.used ? d.radius : -1.0;
      pk.mu2[k] = 3.0 * d.mu2 * kInv4Pi * (1 + 1e-12);
      pk.round[k] = 1e-13 * d.area * kInv4Pi;
      pk.mu3[k] = 4.0 * d.mu3 * kInv4Pi * (1 + 1e-12);
      // Second order: (1/2) T : (-D^3 psi), psi = 1/|r|, is
      //   (15/2) sum T_ijk r_i r_j r_k / |r|^7 - (3/2) (2 u + t).r / |r|^5
      // with u_k = sum_j T_jjk, t_i = sum_j T_ijj; the cubic form only sees T's
      // full symmetrization: 10 coefficients.
      const auto& t = d.t;
      auto sym = [&](int a, int b, int c) {  // sum over the distinct orderings
        double s3 = 0;
        const int o[6][3] = {{a, b, c}, {a, c, b}, {b, a, c}, {b, c, a}, {c, a, b}, {c, b, a}};
        for (const auto& x : o) s3 += t[x[0]][x[1]][x[2]];
        return s3;
      };
      const double h = 7.5 * kInv4Pi;
      pk.cxxx[k] = h * t[0][0][0];
      pk.cyyy[k] = h * t[1][1][1];
      pk.czzz[k] = h * t[2][2][2];
      pk.cxxy[k] = h * sym(0, 0, 1) / 2;
      pk.cxxz[k] = h * sym(0, 0, 2) / 2;
      pk.cyyx[k] = h * sym(1, 1, 0) / 2;
      pk.cyyz[k] = h * sym(1, 1, 2) / 2;
      pk.czzx[k] = h * sym(2, 2, 0) / 2;
      pk.czzy[k] = h * sym(2, 2, 1) / 2;
      pk.cxyz[k] = h * sym(0, 1, 2);
      for (int a = 0; a < 3; ++a) {
        double v = 0;
        for (int j = 0; j < 3; ++j) v += 2 * t[j][j][a] + t[a][j][j];
        (a == 0 ? pk.vx : a == 1 ? pk.vy : pk.vz)[k] = 1.5 * v * kInv4Pi;
      }
    }
  }
  data->closed = zero_boundary(index.mesh());
  if (data->closed) build_grid(index.mesh(), data->grid);
  data_ = std::move(data);
}

template FastWindingNumber<float>::FastWindingNumber(const MeshIndex<float>&);
template FastWindingNumber<double>::FastWindingNumber(const MeshIndex<double>&);

}  // namespace prox
