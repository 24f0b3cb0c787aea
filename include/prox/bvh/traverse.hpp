// prox/bvh/traverse.hpp — traversal of a Bvh4, driven by a leaf callback.
//
// The BVH knows boxes only; the caller's leaf callback tests primitives (as in
// madmann91/bvh). Child boxes of a node are tested four at a time with SSE
// (x86-64 baseline; a scalar loop elsewhere).
//
// Nearest traversal (closest point, sphere): each child gets a lower bound
// (box distance^2) and an upper bound (farthest-corner distance^2: every point
// of the box, hence of its primitives, is at most that far); the search bound
// shrinks by the upper bounds before any leaf is reached (as FCPW does).
// Children are pushed farthest first with their lower bound; an entry is
// skipped on pop when its bound exceeds the current one.
// Ray traversal: slab test, nearest child first, entries skipped on pop when
// they start beyond the current hit.
//
// Conservative float arithmetic: the query point / ray origin is an interval
// [lo, hi] of floats around the caller's value (exact for float input), box
// lower bounds are shrunk and upper bounds grown by a relative 2^-20, far
// beyond the few float roundings involved, so a box is never pruned when one
// of its primitives is at the bound (ties keep working) and a ray never misses
// a box that holds its hit. The primitives' own test decides the answer.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "prox/bvh/build.hpp"
#include "prox/core/platform.hpp"
#include "prox/bvh/bvh4.hpp"
#include "prox/core/ray.hpp"

namespace prox::bvh {

inline constexpr float kShrink = 1.0f - 1.0f / 1048576.0f;  ///< 1 - 2^-20
inline constexpr float kGrow = 1.0f + 1.0f / 1048576.0f;    ///< 1 + 2^-20
/// Whether ray traversal prefetches the inner children it will visit.
inline constexpr bool kRayPrefetch = true;
inline constexpr int kStackSize = 4 * kMaxTreeDepth;  ///< > 3 entries per level + 1
static_assert(kStackSize > 3 * kMaxTreeDepth + 4, "traversal stack too small");

/// A query point as a float interval (and, with SSE, the same broadcast to
/// registers once per query rather than once per node).
struct PointQuery {
  float lo[3], hi[3];
#ifdef PROX_SIMD_SSE2
  __m128 vlo[3], vhi[3];
#endif
  template <class T>
  explicit PointQuery(const Vec3<T>& p) {
    for (int k = 0; k < 3; ++k) {
      lo[k] = float_down(p[k]);
      hi[k] = float_up(p[k]);
#ifdef PROX_SIMD_SSE2
      vlo[k] = _mm_set1_ps(lo[k]);
      vhi[k] = _mm_set1_ps(hi[k]);
#endif
    }
  }
};

/// Scalar twin of box_distances4 (the fallback off x86; the tests compare).
inline void box_distances4_scalar(const Node4& n, const PointQuery& q, float lb[4],
                                  float ub[4]) {
  for (int k = 0; k < 4; ++k) {
    float l = 0, u = 0;
    for (int a = 0; a < 3; ++a) {
      const float d0 = n.lo[a][k] - q.hi[a], d1 = q.lo[a] - n.hi[a][k];
      float d = d0 > d1 ? d0 : d1;
      d = d > 0.0f ? d : 0.0f;
      l += d * d;
      const float f0 = n.hi[a][k] - q.lo[a], f1 = q.hi[a] - n.lo[a][k];
      const float f = f0 > f1 ? f0 : f1;
      u += f * f;
    }
    lb[k] = l * kShrink;
    ub[k] = u * kGrow;
  }
}

/// Lower and upper bounds of the squared distance from q to the four child boxes
/// (empty slots: +inf both).
inline void box_distances4(const Node4& n, const PointQuery& q, float lb[4], float ub[4]) {
#ifdef PROX_SIMD_SSE2
  __m128 l = _mm_setzero_ps(), u = _mm_setzero_ps();
  const __m128 zero = _mm_setzero_ps();
  for (int a = 0; a < 3; ++a) {
    const __m128 blo = _mm_load_ps(n.lo[a]);
    const __m128 bhi = _mm_load_ps(n.hi[a]);
    const __m128 plo = q.vlo[a];
    const __m128 phi = q.vhi[a];
    const __m128 d = _mm_max_ps(_mm_max_ps(_mm_sub_ps(blo, phi), _mm_sub_ps(plo, bhi)), zero);
    l = _mm_add_ps(l, _mm_mul_ps(d, d));
    const __m128 f = _mm_max_ps(_mm_sub_ps(bhi, plo), _mm_sub_ps(phi, blo));
    u = _mm_add_ps(u, _mm_mul_ps(f, f));
  }
  _mm_storeu_ps(lb, _mm_mul_ps(l, _mm_set1_ps(kShrink)));
  _mm_storeu_ps(ub, _mm_mul_ps(u, _mm_set1_ps(kGrow)));
#else
  box_distances4_scalar(n, q, lb, ub);
#endif
}

/// Lower bound of the squared distance from q to one box (scalar; the same
/// conservative arithmetic as box_distances4).
inline float box_lower_bound(const Box3<float>& b, const PointQuery& q) {
  float l = 0.0f;
  for (int a = 0; a < 3; ++a) {
    const float d0 = b.lo[a] - q.hi[a], d1 = q.lo[a] - b.hi[a];
    const float d = d0 > d1 ? d0 : d1;
    if (d > 0.0f) l += d * d;
  }
  return l * kShrink;
}

/// A ray prepared for slab tests: origin interval, finite inverse direction.
struct RayQuery {
  float o_near[3], o_far[3];  ///< origin bound used for the near / far plane
  float inv[3];
  int neg[3];                 ///< direction negative: near plane is hi
#ifdef PROX_SIMD_SSE2
  // Per axis: byte offsets of the near / far bound rows in a Node4, and the
  // origin bounds and inverse direction broadcast once per ray.
  unsigned near_off[3], far_off[3];
  __m128 v_near[3], v_far[3], v_inv[3];
#endif
  template <class T>
  explicit RayQuery(const Ray<T>& r) {
    for (int k = 0; k < 3; ++k) {
      const T d = r.direction[k];
      float iv = static_cast<float>(T(1) / d);
      if (!(std::fabs(iv) <= std::numeric_limits<float>::max()))
        iv = std::copysign(std::numeric_limits<float>::max(), iv);
      inv[k] = iv;
      neg[k] = std::signbit(iv) ? 1 : 0;
      const float olo = float_down(r.origin[k]), ohi = float_up(r.origin[k]);
      o_near[k] = neg[k] ? olo : ohi;
      o_far[k] = neg[k] ? ohi : olo;
#ifdef PROX_SIMD_SSE2
      const unsigned lo_off = unsigned(offsetof(Node4, lo)) + 16u * unsigned(k);
      const unsigned hi_off = unsigned(offsetof(Node4, hi)) + 16u * unsigned(k);
      near_off[k] = neg[k] ? hi_off : lo_off;
      far_off[k] = neg[k] ? lo_off : hi_off;
      v_near[k] = _mm_set1_ps(o_near[k]);
      v_far[k] = _mm_set1_ps(o_far[k]);
      v_inv[k] = _mm_set1_ps(inv[k]);
#endif
    }
  }
};

/// Scalar twin of ray_boxes4 (the fallback off x86; the tests compare).
inline void ray_boxes4_scalar(const Node4& n, const RayQuery& q, float t_min, float t_max,
                              float tnear[4]) {
  const float g = 1.0f / 1048576.0f;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int k = 0; k < 4; ++k) {
    float tn = -std::numeric_limits<float>::infinity();
    float tf = std::numeric_limits<float>::infinity();
    for (int a = 0; a < 3; ++a) {
      const float nb = q.neg[a] ? n.hi[a][k] : n.lo[a][k];
      const float fb = q.neg[a] ? n.lo[a][k] : n.hi[a][k];
      const float t0 = (nb - q.o_near[a]) * q.inv[a];
      const float t1 = (fb - q.o_far[a]) * q.inv[a];
      tn = t0 > tn ? t0 : tn;  // a NaN slab is ignored, as maxps does
      tf = t1 < tf ? t1 : tf;
    }
    tn = tn - std::fabs(tn) * g;
    tf = tf + std::fabs(tf) * g;
    tn = std::isnan(tn) ? nan : (t_min > tn ? t_min : tn);
    tf = std::isnan(tf) ? nan : (t_max < tf ? t_max : tf);
    tnear[k] = tn <= tf ? tn : nan;
  }
}

/// Entry distance of the ray into each child box, or NaN where the box is
/// missed within [t_min, t_max] (NaN fails every comparison, even with an
/// infinite t_max).
inline void ray_boxes4(const Node4& n, const RayQuery& q, float t_min, float t_max,
                       float tnear[4]) {
#ifdef PROX_SIMD_SSE2
  const __m128 absmask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  const __m128 g = _mm_set1_ps(1.0f / 1048576.0f);
  __m128 tn = _mm_set1_ps(-std::numeric_limits<float>::infinity());
  __m128 tf = _mm_set1_ps(std::numeric_limits<float>::infinity());
  for (int a = 0; a < 3; ++a) {
    const char* base = reinterpret_cast<const char*>(&n);
    const __m128 nb = _mm_load_ps(reinterpret_cast<const float*>(base + q.near_off[a]));
    const __m128 fb = _mm_load_ps(reinterpret_cast<const float*>(base + q.far_off[a]));
    const __m128 iv = q.v_inv[a];
    const __m128 t0 = _mm_mul_ps(_mm_sub_ps(nb, q.v_near[a]), iv);
    const __m128 t1 = _mm_mul_ps(_mm_sub_ps(fb, q.v_far[a]), iv);
    // maxps/minps return the second operand when one is NaN: a NaN slab (only
    // from absurd inputs, |direction| > FLT_MAX) is ignored, which is conservative.
    tn = _mm_max_ps(t0, tn);
    tf = _mm_min_ps(t1, tf);
  }
  // Widen once: x -> x -+ |x| g is monotone, so it commutes with max / min.
  tn = _mm_sub_ps(tn, _mm_mul_ps(_mm_and_ps(tn, absmask), g));
  tf = _mm_add_ps(tf, _mm_mul_ps(_mm_and_ps(tf, absmask), g));
  // A box missed along an axis the ray does not move on gives tn = +inf or
  // tf = -inf, widened to NaN above; with NaN second, max/min keep the NaN and
  // the compare below culls the box.
  tn = _mm_max_ps(_mm_set1_ps(t_min), tn);
  tf = _mm_min_ps(_mm_set1_ps(t_max), tf);
  const __m128 hit = _mm_cmple_ps(tn, tf);
  const __m128 nan = _mm_set1_ps(std::numeric_limits<float>::quiet_NaN());
  _mm_storeu_ps(tnear, _mm_or_ps(_mm_and_ps(hit, tn), _mm_andnot_ps(hit, nan)));
#else
  ray_boxes4_scalar(n, q, t_min, t_max, tnear);
#endif
}

struct StackEntry {
  std::uint32_t child;
  std::uint32_t count;  // > 0: leaf
  float key;            // lower bound (nearest) or entry t (ray)
};

/// Sorts up to 4 entries by key, descending (so the nearest is popped first).
inline void sort_desc(StackEntry* e, int n) {
  for (int i = 1; i < n; ++i) {
    const StackEntry x = e[i];
    int j = i - 1;
    while (j >= 0 && e[j].key < x.key) {
      e[j + 1] = e[j];
      --j;
    }
    e[j + 1] = x;
  }
}

/// Children of n whose key passes (key <= limit; NaN fails), nearest last.
/// Returns how many; unused slots (child == kInvalid) never pass. Inner
/// children are prefetched: traversal time is mostly waiting for node lines.
template <bool kPrefetch = true>
inline int select_children(const Bvh4& bvh, const Node4& n, const float key[4], float limit,
                           StackEntry out[4]) {
  int nk = 0;
#ifdef PROX_SIMD_SSE2
  // One compare for the four keys, one for the unused slots; then only the
  // passing children are visited (fewer unpredictable branches).
  unsigned mask = unsigned(_mm_movemask_ps(_mm_cmple_ps(_mm_loadu_ps(key), _mm_set1_ps(limit))));
  const __m128i ch = _mm_load_si128(reinterpret_cast<const __m128i*>(n.child));
  mask &= ~unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(ch, _mm_set1_epi32(-1)))));
  while (mask != 0) {
    const int k = std::countr_zero(mask);
    mask &= mask - 1;
    out[nk++] = StackEntry{n.child[k], n.count[k], key[k]};
    if (kPrefetch && n.count[k] == 0) {
      const char* line = reinterpret_cast<const char*>(&bvh.nodes[n.child[k]]);
      _mm_prefetch(line, _MM_HINT_T0);
      _mm_prefetch(line + 64, _MM_HINT_T0);
    }
  }
#else
  (void)bvh;
  for (int k = 0; k < 4; ++k)
    if (key[k] <= limit && n.child[k] != kInvalid)
      out[nk++] = StackEntry{n.child[k], n.count[k], key[k]};
#endif
  if (nk == 2) {
    if (out[0].key < out[1].key) {
      const StackEntry t = out[0];
      out[0] = out[1];
      out[1] = t;
    }
  } else if (nk > 2) {
    sort_desc(out, nk);
  }
  return nk;
}

/// No-op leaf prefetch (the default).
struct NoPrefetch {
  void operator()(std::uint32_t) const {}
};

/// Prefetch callback for leaf records laid out by primitive slot: hints the
/// cache line of records[begin], the first record a selected leaf will read.
template <class Record>
struct PrefetchRecords {
  const Record* records;
  void operator()(std::uint32_t begin) const {
#ifdef PROX_SIMD_SSE2
    _mm_prefetch(reinterpret_cast<const char*>(records + begin), _MM_HINT_T0);
#else
    (void)begin;
#endif
  }
};

/// Nearest-first traversal. `bound` is the squared search radius in float
/// (rounded up); leaf(begin, count, bound) tests prims[begin, begin+count),
/// may lower bound, and returns true to stop. prefetch(begin) is called for
/// every leaf selected for a visit, so the caller can fetch its leaf data.
/// Upper bounds of visited boxes lower the bound too when `use_upper_bounds`
/// (closest point), not for range queries (sphere).
template <class LeafFn, class PrefetchFn = NoPrefetch>
void traverse_nearest(const Bvh4& bvh, const PointQuery& q, float bound, bool use_upper_bounds,
                      LeafFn&& leaf, PrefetchFn&& prefetch = PrefetchFn{}) {
  if (bvh.empty()) return;
  StackEntry stack[kStackSize];
  int top = 0;
  StackEntry cur{0, 0, 0.0f};
  for (;;) {
    if (cur.count > 0) {
      if (leaf(cur.child, cur.count, bound)) return;
    } else {
      const Node4& n = bvh.nodes[cur.child];
      alignas(16) float lb[4], ub[4];
      box_distances4(n, q, lb, ub);
      if (use_upper_bounds) {
        const float m01 = ub[0] < ub[1] ? ub[0] : ub[1];
        const float m23 = ub[2] < ub[3] ? ub[2] : ub[3];
        const float m = m01 < m23 ? m01 : m23;
        if (m < bound) bound = m;
      }
      // Children go straight onto the stack (sorted, nearest on top).
      StackEntry* kids = stack + top;
      const int nk = select_children(bvh, n, lb, bound, kids);
      for (int k = 0; k < nk; ++k)
        if (kids[k].count > 0) prefetch(kids[k].child);
      if (nk > 0) {
        top += nk - 1;
        cur = kids[nk - 1];
        continue;
      }
    }
    do {
      if (top == 0) return;
      cur = stack[--top];
    } while (cur.key > bound);
  }
}

#ifdef PROX_SIMD_SSE2
/// ray_boxes4 and select_children fused for rays (the same arithmetic, hence
/// the same children, keys and order): the hit mask comes straight from the
/// register compare, so no NaN blend, and the keys are stored once.
template <bool kPrefetch>
inline int ray_select4(const Bvh4& bvh, const Node4& n, const RayQuery& q, const __m128 t_min,
                       const __m128 t_max, StackEntry out[4]) {
  const __m128 absmask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  const __m128 g = _mm_set1_ps(1.0f / 1048576.0f);
  const char* base = reinterpret_cast<const char*>(&n);
  __m128 tn = _mm_set1_ps(-std::numeric_limits<float>::infinity());
  __m128 tf = _mm_set1_ps(std::numeric_limits<float>::infinity());
  for (int a = 0; a < 3; ++a) {
    const __m128 nb = _mm_load_ps(reinterpret_cast<const float*>(base + q.near_off[a]));
    const __m128 fb = _mm_load_ps(reinterpret_cast<const float*>(base + q.far_off[a]));
    const __m128 iv = q.v_inv[a];
    tn = _mm_max_ps(_mm_mul_ps(_mm_sub_ps(nb, q.v_near[a]), iv), tn);
    tf = _mm_min_ps(_mm_mul_ps(_mm_sub_ps(fb, q.v_far[a]), iv), tf);
  }
  tn = _mm_sub_ps(tn, _mm_mul_ps(_mm_and_ps(tn, absmask), g));
  tf = _mm_add_ps(tf, _mm_mul_ps(_mm_and_ps(tf, absmask), g));
  tn = _mm_max_ps(t_min, tn);  // NaN second: kept, and culled by the compare
  tf = _mm_min_ps(t_max, tf);
  unsigned mask = unsigned(_mm_movemask_ps(_mm_cmple_ps(tn, tf)));
  const __m128i ch = _mm_load_si128(reinterpret_cast<const __m128i*>(n.child));
  mask &= ~unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(ch, _mm_set1_epi32(-1)))));
  if (mask == 0) return 0;
  alignas(16) float key[4];
  _mm_store_ps(key, tn);
  int nk = 0;
  while (mask != 0) {
    const int k = std::countr_zero(mask);
    mask &= mask - 1;
    out[nk++] = StackEntry{n.child[k], n.count[k], key[k]};
    if (kPrefetch && n.count[k] == 0) {
      const char* line = reinterpret_cast<const char*>(&bvh.nodes[n.child[k]]);
      _mm_prefetch(line, _MM_HINT_T0);
      _mm_prefetch(line + 64, _MM_HINT_T0);
    }
  }
  if (nk == 2) {
    if (out[0].key < out[1].key) {
      const StackEntry t = out[0];
      out[0] = out[1];
      out[1] = t;
    }
  } else if (nk > 2) {
    sort_desc(out, nk);
  }
  return nk;
}
#endif

/// Front-to-back ray traversal over [t_min, t_max] (floats, rounded outward).
/// leaf(begin, count, t_max) tests primitives, may lower t_max (closest hit)
/// and returns true to stop (any hit); prefetch(begin) as in traverse_nearest.
template <class LeafFn, class PrefetchFn = NoPrefetch>
void traverse_ray(const Bvh4& bvh, const RayQuery& q, float t_min, float t_max, LeafFn&& leaf,
                  PrefetchFn&& prefetch = PrefetchFn{}) {
  if (bvh.empty()) return;
  StackEntry stack[kStackSize];
  int top = 0;
  StackEntry cur{0, 0, t_min};
#ifdef PROX_SIMD_SSE2
  const __m128 vt_min = _mm_set1_ps(t_min);
#endif
  for (;;) {
    if (cur.count > 0) {
      if (leaf(cur.child, cur.count, t_max)) return;
    } else {
      const Node4& n = bvh.nodes[cur.child];
      StackEntry* kids = stack + top;  // straight onto the stack, nearest on top
#ifdef PROX_SIMD_SSE2
      const int nk = ray_select4<kRayPrefetch>(bvh, n, q, vt_min, _mm_set1_ps(t_max), kids);
#else
      alignas(16) float tn[4];
      ray_boxes4(n, q, t_min, t_max, tn);
      const int nk = select_children(bvh, n, tn, t_max, kids);
#endif
      for (int k = 0; k < nk; ++k)
        if (kids[k].count > 0) prefetch(kids[k].child);
      if (nk > 0) {
        top += nk - 1;
        cur = kids[nk - 1];
        continue;
      }
    }
    do {
      if (top == 0) return;
      cur = stack[--top];
    } while (cur.key > t_max);
  }
}

}  // namespace prox::bvh
