// src/mesh/hausdorff_search.cpp — the one-sided search's rounds
// (OneSided::run): A's vertices evaluated (a guess each, the exact query where
// it can raise the lower bound), then level by level every sub-triangle
// bounded (hausdorff_bound.cpp), the settled ones retired, the others split in
// four at their edge midpoints. See prox/mesh/hausdorff.hpp for the method.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "hausdorff_detail.hpp"

namespace prox::hausdorff_detail {

template <class T>
std::size_t OneSided<T>::eval_points(const std::vector<V>& pts, std::vector<PointHit>& out,
                                     double floor, std::size_t top) const {
  out.assign(pts.size(), PointHit{});
  std::vector<double> guess(pts.size());
  batch_for_each(pts.size(), batch_, [&](std::size_t i) {
    out[i] = guess_point(pts[i]);
    guess[i] = out[i].guess + lower_margin_;
  });
  if (top > 0 && pts.size() > 0) {  // the floor from the largest guesses, evaluated first
    std::vector<std::size_t> order(pts.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    top = std::min(top, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                      [&](std::size_t x, std::size_t y) {
                        return guess[x] > guess[y] || (guess[x] == guess[y] && x < y);
                      });
    std::vector<PointHit> first(top);
    batch_for_each(top, batch_, [&](std::size_t j) {
      first[j] = eval_point(pts[order[j]], out[order[j]].guess);
    });
    for (std::size_t j = 0; j < top; ++j) {
      out[order[j]] = first[j];
      guess[order[j]] = -1;  // done
      floor = std::max(floor, first[j].lower);
    }
  }
  std::vector<std::size_t> exact;
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (guess[i] > floor) exact.push_back(i);
  batch_for_each(exact.size(), batch_, [&](std::size_t j) {
    out[exact[j]] = eval_point(pts[exact[j]], out[exact[j]].guess);
  });
  return exact.size() + top;
}

template <class T>
HausdorffSide OneSided<T>::run() {
  HausdorffSide side;
  const auto& tris = a_.triangles();
  const std::size_t nv = a_.num_vertices();
  // Round 0's points: every vertex used by a triangle (its first triangle names it).
  std::vector<std::int32_t> owner(nv, -1);
  for (std::size_t t = tris.size(); t-- > 0;)
    for (int k = 0; k < 3; ++k) owner[tris[t][k]] = static_cast<std::int32_t>(t);
  std::vector<std::uint32_t> used;
  std::vector<V> pts;
  for (std::size_t v = 0; v < nv; ++v)
    if (owner[v] >= 0) used.push_back(static_cast<std::uint32_t>(v));
  {
    // In Morton order of a 1024^3 grid over A's used vertices: consecutive
    // guesses descend to neighbouring leaves of B, found in cache.
    Box3<double> vb = Box3<double>::empty();
    for (std::uint32_t v : used) vb.extend(to_d(a_.vertices()[v]));
    auto spread = [](std::uint64_t x) {
      x &= 0x3ff;
      x = (x | (x << 16)) & 0x30000ff;
      x = (x | (x << 8)) & 0x300f00f;
      x = (x | (x << 4)) & 0x30c30c3;
      x = (x | (x << 2)) & 0x9249249;
      return x;
    };
    std::vector<std::uint32_t> code(used.size());
    for (std::size_t j = 0; j < used.size(); ++j) {
      const V p = to_d(a_.vertices()[used[j]]);
      std::uint64_t c = 0;
      for (int k = 0; k < 3; ++k) {
        const double ext = vb.hi[k] - vb.lo[k];
        const double f = ext > 0 ? (p[k] - vb.lo[k]) / ext * 1023.0 : 0.0;
        c |= spread(static_cast<std::uint64_t>(std::clamp(f, 0.0, 1023.0))) << k;
      }
      code[j] = static_cast<std::uint32_t>(c);  // 30 bits
    }
    // A stable LSD radix sort of the 30-bit codes, 10 bits a pass: `used` is
    // in increasing vertex order, so ties keep it (the order std::sort of
    // (code, vertex) pairs gives, for about a tenth of its instructions).
    std::vector<std::uint32_t> code2(used.size()), used2(used.size());
    for (int shift = 0; shift < 30; shift += 10) {
      std::uint32_t start[1025] = {};
      for (const std::uint32_t c : code) ++start[((c >> shift) & 1023) + 1];
      for (int d = 0; d < 1024; ++d) start[d + 1] += start[d];
      for (std::size_t j = 0; j < used.size(); ++j) {
        const std::uint32_t at = start[(code[j] >> shift) & 1023]++;
        code2[at] = code[j];
        used2[at] = used[j];
      }
      code.swap(code2);
      used.swap(used2);
    }
  }
  for (std::uint32_t v : used) pts.push_back(to_d(a_.vertices()[v]));
  std::vector<PointHit> hits;
  side.point_queries += eval_points(pts, hits, 0.0, 64);
  std::vector<PointHit> vh(nv);
  Worst worst;
  for (std::size_t j = 0; j < used.size(); ++j) {
    vh[used[j]] = hits[j];
    if (hits[j].lower >= 0) worst.offer(hits[j], pts[j], owner[used[j]]);
  }
  // The items in the order of B's leaf packs holding their first corner's near
  // triangle (a counting sort; those without one last): neighbouring items then
  // read the same packs of B, so the bound search finds them in cache (in A's
  // triangle order they were a random walk over B's packs). Sub-triangles
  // follow their parent, so every round keeps this order.
  std::vector<Item> items(tris.size());
  {
    const std::size_t packs = fpacks_.size();
    std::vector<std::uint32_t> start(packs + 2, 0), key(tris.size());
    for (std::size_t t = 0; t < tris.size(); ++t) {
      const std::int32_t n0 = vh[tris[t][0]].triangle;
      key[t] = n0 >= 0 ? slot_of_[std::size_t(n0)] / 4 : static_cast<std::uint32_t>(packs);
      ++start[key[t] + 1];
    }
    for (std::size_t q = 0; q <= packs; ++q) start[q + 1] += start[q];
    for (std::size_t t = 0; t < tris.size(); ++t) {
      Item& it = items[start[key[t]]++];
      for (int k = 0; k < 3; ++k) {
        it.p[k] = to_d(a_.vertices()[tris[t][k]]);
        it.near[k] = vh[tris[t][k]].triangle;
      }
      it.best = -1;
      it.source = static_cast<std::int32_t>(t);
    }
  }
  double settled = 0;
  std::vector<double> upper;
  std::vector<std::uint8_t> searched;
  std::vector<std::size_t> refine;
  std::vector<PointHit> mid;
  for (int round = 0;; ++round) {
    const double threshold = std::max(worst.lower, 0.0) + tol_;
    // tight: search on until a triangle bounds the item by the lower bound (+ tol / 64),
    // or the smallest bound over all of B; else stop at the first one within tolerance.
    const double target = opt_.tight ? std::max(worst.lower, 0.0) + tol_ / 64 : threshold;
    upper.assign(items.size(), 0);
    searched.assign(items.size(), 0);
    batch_for_each(items.size(), batch_, [&](std::size_t i) {
      bool s = false;
      upper[i] = bound_item_fast(items[i], threshold, target, s);
      searched[i] = s ? 1 : 0;
    });
    side.subtriangles += items.size();
    refine.clear();
    for (std::size_t i = 0; i < items.size(); ++i) {
      side.searches += searched[i];
      if (upper[i] <= threshold) {
        settled = std::max(settled, upper[i]);
      } else {
        refine.push_back(i);
      }
    }
    side.rounds = round;
    if (refine.empty()) {
      side.converged = true;
      break;
    }
    if (round >= kMaxRounds || side.subtriangles + 4 * refine.size() > opt_.max_subtriangles) {
      for (std::size_t i : refine) settled = std::max(settled, upper[i]);
      break;
    }
    // Split each remaining item at its edge midpoints; evaluate those points.
    pts.resize(3 * refine.size());
    for (std::size_t j = 0; j < refine.size(); ++j) {
      const Item& it = items[refine[j]];
      for (int k = 0; k < 3; ++k) pts[3 * j + k] = (it.p[k] + it.p[(k + 1) % 3]) * 0.5;
    }
    side.point_queries += eval_points(pts, mid, std::max(worst.lower, 0.0), 0);
    std::vector<Item> next(4 * refine.size());
    for (std::size_t j = 0; j < refine.size(); ++j) {
      const Item& it = items[refine[j]];
      V m[3];
      std::int32_t mn[3];
      for (int k = 0; k < 3; ++k) {
        m[k] = (it.p[k] + it.p[(k + 1) % 3]) * 0.5;  // m[0] on p0p1, m[1] on p1p2, m[2] on p2p0
        mn[k] = mid[3 * j + k].triangle;
        if (mid[3 * j + k].lower >= 0) worst.offer(mid[3 * j + k], m[k], it.source);
      }
      Item* c = &next[4 * j];
      c[0] = Item{{it.p[0], m[0], m[2]}, {it.near[0], mn[0], mn[2]}, it.best, it.source};
      c[1] = Item{{m[0], it.p[1], m[1]}, {mn[0], it.near[1], mn[1]}, it.best, it.source};
      c[2] = Item{{m[2], m[1], it.p[2]}, {mn[2], mn[1], it.near[2]}, it.best, it.source};
      c[3] = Item{{m[0], m[1], m[2]}, {mn[0], mn[1], mn[2]}, it.best, it.source};
    }
    items.swap(next);
  }
  side.lower = std::max(worst.lower, 0.0);
  side.upper = std::max(settled, side.lower);
  side.worst_point = worst.point;
  side.worst_closest = worst.closest;
  side.worst_triangle = worst.triangle;
  side.worst_closest_triangle = worst.closest_triangle;
  return side;
}


template class OneSided<float>;
template class OneSided<double>;

}  // namespace prox::hausdorff_detail
