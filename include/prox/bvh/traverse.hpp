// prox/bvh/traverse.hpp — the one traversal loop of prox, and its node tests.
//
// traverse(nodes, test, leaf, prefetch) walks a Bvh8 depth first (as
// madmann91/bvh's traverse_top_down does): the node test says which of a
// node's eight children to enter and gives each a key; entered children are
// pushed nearest (smallest key) on top; an entry is skipped on pop when its key
// exceeds test.limit(), which the leaf callback may lower. A query is a node
// test plus a leaf function:
//   NearestTest  box distance^2 lower bounds; with upper bounds (closest point)
//                the farthest-corner distance^2 of every box visited shrinks
//                the search bound before any leaf is reached (as FCPW does);
//                without (sphere / range queries) the bound stays.
//   RayTest      slab test over [t_min, t_max], front to back; a leaf that
//                finds a hit lowers t_max (first hit) or stops (any hit).
// Conservative float arithmetic: the query point / ray origin is an interval
// [lo, hi] of floats around the caller's value (exact for float input), box
// lower bounds are shrunk and upper bounds grown by a relative 2^-20, far
// beyond the few float roundings involved, so a box is never pruned when one
// of its primitives is at the bound (ties keep working) and a ray never misses
// a box that holds its hit. The primitives' own test decides the answer, so
// the answer does not depend on the ISA path, only the speed does.
// Eight lanes at once through prox/bvh/simd8.hpp (AVX2 / AVX-512 / SSE2 /
// scalar, per translation unit); everything is in the ISA's inline namespace.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>

#include "prox/bvh/build.hpp"
#include "prox/bvh/bvh8.hpp"
#include "prox/bvh/simd8.hpp"
#include "prox/core/platform.hpp"
#include "prox/core/ray.hpp"

namespace prox::bvh {

inline constexpr float kShrink = 1.0f - 1.0f / 1048576.0f;  ///< 1 - 2^-20
inline constexpr float kGrow = 1.0f + 1.0f / 1048576.0f;    ///< 1 + 2^-20
/// Entries on a traversal stack: at most 7 per level pushed, plus one.
inline constexpr int kStackSize = kWidth * kMaxTreeDepth;

inline namespace PROX_ISA_NAMESPACE {

using simd::F8;

/// A query point as a float interval, broadcast to lanes once per query.
struct PointQuery {
  float lo[3], hi[3];
  F8 vlo[3], vhi[3];
  template <class T>
  explicit PointQuery(const Vec3<T>& p) {
    for (int k = 0; k < 3; ++k) {
      lo[k] = float_down(p[k]);
      hi[k] = float_up(p[k]);
      vlo[k] = simd::set8(lo[k]);
      vhi[k] = simd::set8(hi[k]);
    }
  }
};

/// Lower (lb) and upper (ub) bounds of the squared distance from q to the
/// eight child boxes of n (unused slots: +inf both).
PROX_FORCE_INLINE void box_distances8(const Node8& n, const PointQuery& q, F8& lb, F8& ub) {
  using namespace simd;
  const F8 zero = set8(0.0f);
  F8 l = zero, u = zero;
  for (int a = 0; a < 3; ++a) {
    const F8 blo = load8(n.lo[a]), bhi = load8(n.hi[a]);
    const F8 d = max8(max8(sub8(blo, q.vhi[a]), sub8(q.vlo[a], bhi)), zero);
    l = add8(l, mul8(d, d));
    const F8 f = max8(sub8(bhi, q.vlo[a]), sub8(q.vhi[a], blo));
    u = add8(u, mul8(f, f));
  }
  lb = mul8(l, set8(kShrink));
  // At least 2^-120: squares of subnormal extents (the float boxes of a double
  // mesh far below 1e-38) round to 0 or lose their relative accuracy, and an
  // upper bound of 0 would prune the nearest triangle. Above 2^-120 kGrow
  // covers the rounding; the floor changes nothing there.
  ub = max8(mul8(u, set8(kGrow)), set8(0x1p-120f));
}

/// Lower bound of the squared distance from q to one box (scalar; the same
/// conservative arithmetic as box_distances8).
inline float box_lower_bound(const Box3<float>& b, const PointQuery& q) {
  float l = 0.0f;
  for (int a = 0; a < 3; ++a) {
    const float d0 = b.lo[a] - q.hi[a], d1 = q.lo[a] - b.hi[a];
    const float d = d0 > d1 ? d0 : d1;
    if (d > 0.0f) l += d * d;
  }
  return l * kShrink;
}

/// Node test of nearest-point and range queries: key = box distance^2 lower
/// bound, entered while key <= bound (squared, float, rounded up).
template <bool kUseUpperBounds>
struct NearestTest {
  const PointQuery& q;
  float bound;
  bool upper = true;  ///< with kUseUpperBounds: whether they still shrink the bound
  float limit() const { return bound; }
  /// Lowers the bound (a leaf found something at most this far, squared).
  void shrink(float b) { bound = b < bound ? b : bound; }
  PROX_FORCE_INLINE unsigned children(const Node8& n, float* key) {
    F8 lb, ub;
    box_distances8(n, q, lb, ub);
    if constexpr (kUseUpperBounds) {
      if (upper) shrink(simd::hmin8(ub));
    }
    simd::store8(key, lb);
    return simd::le_mask8(lb, simd::set8(bound));
  }
};

/// The inverse of a direction component for the slab tests: 1 / d rounded
/// to float; +-inf for d = +-0, so that a plane the ray runs in (plane - o =
/// 0) gives 0 * inf = NaN, which max8 / min8 ignore (the ray stays inside the
/// closed slab for every t), and any other plane +-inf (never reached, or
/// always passed); NaN where d is not 0 but 1 / d overflows float (|d| below
/// about 2^-128 of the ray's largest component after normalization): that
/// axis is then ignored, which keeps the test conservative (the true t,
/// (plane - o) / d, has no float bound of fixed relative error there).
/// Before, the inverse was clamped to +-FLT_MAX, so a ray with d = 0 running
/// exactly in a box's far plane got 0 * FLT_MAX = 0 as its exit and missed
/// every box it ran along (an axis-aligned ray through a row of vertices
/// lost the triangles on one side).
template <class T>
inline float slab_inverse(T d) {
  const float iv = static_cast<float>(T(1) / d);
  if (d != T(0) && !(std::fabs(iv) <= std::numeric_limits<float>::max()))
    return std::numeric_limits<float>::quiet_NaN();
  return iv;
}

/// A ray prepared for slab tests: origin interval, inverse direction
/// (slab_inverse), and per axis the byte offsets of the near / far bound rows
/// of a Node8 (the ray's octant), broadcast to lanes once per ray.
struct RayQuery {
  float o_near[3], o_far[3];  ///< origin bound used for the near / far plane
  float inv[3];
  int neg[3];                 ///< direction negative: near plane is hi
  unsigned near_off[3], far_off[3];
  F8 v_near[3], v_far[3], v_inv[3];
  template <class T>
  explicit RayQuery(const Ray<T>& r) {
    for (int k = 0; k < 3; ++k) {
      const T d = r.direction[k];
      inv[k] = slab_inverse(d);
      neg[k] = std::signbit(d) ? 1 : 0;
      const float olo = float_down(r.origin[k]), ohi = float_up(r.origin[k]);
      o_near[k] = neg[k] ? olo : ohi;
      o_far[k] = neg[k] ? ohi : olo;
      const unsigned lo_off = unsigned(offsetof(Node8, lo)) + 32u * unsigned(k);
      const unsigned hi_off = unsigned(offsetof(Node8, hi)) + 32u * unsigned(k);
      near_off[k] = neg[k] ? hi_off : lo_off;
      far_off[k] = neg[k] ? lo_off : hi_off;
      v_near[k] = simd::set8(o_near[k]);
      v_far[k] = simd::set8(o_far[k]);
      v_inv[k] = simd::set8(inv[k]);
    }
  }
};

/// The last step of a slab test: entry tn and exit tf (max / min over the
/// axes) widened by 2^-20 of their size, then clamped to [t_min, t_max]; the
/// mask of lanes entered (tn <= tf), the entry stored as key (if given). x -> x -+ |x| g
/// is monotone, so widening once commutes with the max / min over the axes.
/// A box missed along an axis the ray does not move on gives tn = +inf or tf
/// = -inf, widened to NaN; with NaN second, max / min keep the NaN and the
/// compare culls the box. One body for a ray against eight boxes (ray_boxes8)
/// and eight rays against one box (a packet's leaves).
PROX_FORCE_INLINE unsigned slab_enter8(F8 tn, F8 tf, const F8& t_min, const F8& t_max,
                                       float* key = nullptr) {
  using namespace simd;
  const F8 g = set8(1.0f / 1048576.0f);
  tn = sub8(tn, mul8(abs8(tn), g));
  tf = add8(tf, mul8(abs8(tf), g));
  tn = max8(t_min, tn);
  tf = min8(t_max, tf);
  if (key) store8(key, tn);
  return le_mask8(tn, tf);
}

/// Entry distance of the ray into each child box of n (widened outward), and
/// the mask of boxes entered within [t_min, t_max].
PROX_FORCE_INLINE unsigned ray_boxes8(const Node8& n, const RayQuery& q, const F8& t_min,
                                      float t_max, float* tnear) {
  using namespace simd;
  const char* base = reinterpret_cast<const char*>(&n);
  F8 tn = set8(-std::numeric_limits<float>::infinity());
  F8 tf = set8(std::numeric_limits<float>::infinity());
  for (int a = 0; a < 3; ++a) {
    const F8 nb = load8(reinterpret_cast<const float*>(base + q.near_off[a]));
    const F8 fb = load8(reinterpret_cast<const float*>(base + q.far_off[a]));
    // max/min return the second operand when one is NaN: a NaN slab (the
    // ray runs in that plane, d = 0, or slab_inverse gave NaN) is ignored:
    // conservative.
    tn = max8(mul8(sub8(nb, q.v_near[a]), q.v_inv[a]), tn);
    tf = min8(mul8(sub8(fb, q.v_far[a]), q.v_inv[a]), tf);
  }
  return slab_enter8(tn, tf, t_min, set8(t_max), tnear);
}

/// Node test of ray queries: key = entry t, entered while key <= t_max.
struct RayTest {
  /// Unused slots (empty boxes) never pass ray_boxes8 (see entered_children).
  static constexpr bool kCullsEmptyBoxes = true;
  const RayQuery& q;
  F8 t_min;
  float t_max;
  RayTest(const RayQuery& rq, float lo, float hi) : q(rq), t_min(simd::set8(lo)), t_max(hi) {}
  float limit() const { return t_max; }
  /// Lowers t_max (a leaf found a hit at t, rounded up).
  void shrink(float t) { t_max = t < t_max ? t : t_max; }
  PROX_FORCE_INLINE unsigned children(const Node8& n, float* key) {
    return ray_boxes8(n, q, t_min, t_max, key);
  }
};

/// The children of n that test enters, and their keys. A test whose boxes
/// test already culls every unused slot (it declares kCullsEmptyBoxes) skips
/// the slot check: unused slots hold the empty box lo = +inf, hi = -inf (the
/// builder, refit and load all write it), and a slab test gives it t_near =
/// +inf, t_far = -inf, widened to NaN, which no compare enters.
template <class Test>
PROX_FORCE_INLINE unsigned entered_children(Test& test, const Node8& n, float* key) {
  if constexpr (requires { Test::kCullsEmptyBoxes; }) {
    static_assert(Test::kCullsEmptyBoxes);
    return test.children(n, key);
  } else {
    return test.children(n, key) & simd::valid_mask8(n.child);
  }
}

/// A traversal stack entry: a node or a leaf (count > 0) and its key.
struct StackEntry {
  std::uint32_t child;
  std::uint32_t count;
  float key;
};

/// The count a stack entry carries for child c of n: n.count[c], with the
/// bits test.count_tag(c) adds where the test has one (a packet's active
/// lanes for a leaf, in bits 8 and up; a leaf has at most kMaxLeafSize
/// triangles). Tags are 0 for inner children, whose count stays 0.
template <class Test>
PROX_FORCE_INLINE std::uint32_t entry_count(const Test& test, const Node8& n, int c) {
  if constexpr (requires { test.count_tag(c); }) return n.count[c] | test.count_tag(c);
  else return n.count[c];
}

/// No-op leaf prefetch (the default).
struct NoPrefetch {
  void operator()(std::uint32_t) const {}
};

/// One depth-first walk, one step at a time: step() visits the current node
/// or leaf, then moves to the next entry (the nearest entered child, or the
/// first stack entry whose key is within test.limit()), and returns false once
/// the walk has ended. traverse() runs one walk to its end; a batch may run
/// several walks in turn (interleaved rays), so that one walk's node loads are
/// in flight while another computes. Either way the nodes and leaves visited,
/// and their order, are those of this one loop body.
///
/// test.children(node, key) returns the mask of children to enter and writes
/// their keys; leaf(first_slot, count) tests a leaf's primitives, may lower
/// test.limit() and returns true to stop; prefetch(first_slot) is called for
/// every leaf as soon as it is selected. Unused slots are never entered.
/// The stack is the caller's (kStackSize entries), so that the walk's own
/// state (cur, top) stays in registers.
struct Walk {
  StackEntry* stack;
  int top = 0;
  StackEntry cur{0, 0, 0.0f};

  template <class Test, class LeafFn, class PrefetchFn>
  PROX_FORCE_INLINE bool step(const Node8* base, Test& test, LeafFn&& leaf,
                              PrefetchFn&& prefetch) {
    if (cur.count > 0) {
      if (leaf(cur.child, cur.count)) return false;
    } else {
      const Node8& n = base[cur.child];
      alignas(32) float key[kWidth];
      unsigned mask = entered_children(test, n, key);
      if (mask != 0) {
        int k = std::countr_zero(mask);
        mask &= mask - 1;
        StackEntry e{n.child[k], entry_count(test, n, k), key[k]};
        if (mask == 0) {  // one child: straight in, no stack (most steps of a ray)
          if (e.count > 0) prefetch(e.child);
          cur = e;
          return true;
        }
        if constexpr (requires { Test::kUnordered; }) {
          // Several, for a test that needs only the nearest child first (its
          // bound rarely shrinks after the first leaves): the nearest entered
          // now (the lowest lane among equal keys), the others onto the stack
          // in lane order, unsorted.
          static_assert(Test::kUnordered);
          StackEntry* kids = stack + top;
          int nk = 0;
          StackEntry near = e;
          for (unsigned m = mask; m != 0; m &= m - 1) {
            const int c = std::countr_zero(m);
            const StackEntry o{n.child[c], entry_count(test, n, c), key[c]};
            const bool closer = o.key < near.key;
            kids[nk++] = closer ? near : o;
            near = closer ? o : near;
          }
          top += nk;
          cur = near;
          return true;
        }
        // Several: straight onto the stack, keys descending so that the
        // nearest ends on top (equal keys in lane order, the later higher).
        // Each child's place is the number of entered children with a larger
        // key, or an equal one in an earlier lane: a permutation, since
        // entered keys are never NaN (they passed a <= compare). One
        // broadcast and two compares a child, where the insertion sort this
        // replaces cost ~65 instructions a node (callgrind, bunny cp-far).
        // Inner children are prefetched (traversal time is mostly waiting
        // for node lines), leaves through the caller's prefetch.
        StackEntry* kids = stack + top;
        const unsigned all = mask | (1u << k);
        const int nk = std::popcount(all);
        const F8 kv = simd::load8(key);
        for (unsigned m = all; m != 0; m &= m - 1) {
          const int c = std::countr_zero(m);
          const F8 kc = simd::set8(key[c]);
          const unsigned le = simd::le_mask8(kv, kc), ge = simd::le_mask8(kc, kv);
          const unsigned before = (ge & ((1u << c) - 1u)) | ~le;
          kids[std::popcount(all & before)] =
              StackEntry{n.child[c], entry_count(test, n, c), key[c]};
          if (n.count[c] == 0) {
            const char* line = reinterpret_cast<const char*>(base + n.child[c]);
            prefetch_l1(line);
            prefetch_l1(line + 64);
            prefetch_l1(line + 128);
            prefetch_l1(line + 192);
          } else {
            prefetch(n.child[c]);
          }
        }
        top += nk - 1;
        cur = kids[nk - 1];
        return true;
      }
    }
    do {
      if (top == 0) return false;
      cur = stack[--top];
    } while (!(cur.key <= test.limit()));
    return true;
  }
};

/// The traversal loop over the subtree under inner node `start`: one Walk
/// from it to its end (see Walk). The node itself is visited whatever its key.
template <class Test, class LeafFn, class PrefetchFn = NoPrefetch>
PROX_FORCE_INLINE void traverse_from(std::span<const Node8> nodes, std::uint32_t start, Test& test,
                                     LeafFn&& leaf, PrefetchFn&& prefetch = PrefetchFn{}) {
  if (nodes.empty()) return;
  StackEntry stack[kStackSize];
  Walk walk{stack};
  walk.cur = StackEntry{start, 0, 0.0f};
  const Node8* base = nodes.data();
  while (walk.step(base, test, leaf, prefetch)) {
  }
}

/// The traversal loop: one Walk from the root to its end (see Walk).
template <class Test, class LeafFn, class PrefetchFn = NoPrefetch>
PROX_FORCE_INLINE void traverse(std::span<const Node8> nodes, Test& test, LeafFn&& leaf,
                                PrefetchFn&& prefetch = PrefetchFn{}) {
  traverse_from(nodes, 0, test, std::forward<LeafFn>(leaf), std::forward<PrefetchFn>(prefetch));
}

/// One greedy path from the root: enters the child with the smallest key at
/// every level, down to a leaf, and calls leaf(first_slot, count) on it (the
/// node test may lower its limit on the way, as in traverse). Nothing is
/// entered that traverse would not enter.
template <class Test, class LeafFn>
PROX_FORCE_INLINE void descend_nearest(std::span<const Node8> nodes, Test& test, LeafFn&& leaf) {
  if (nodes.empty()) return;
  std::uint32_t at = 0;
  for (int level = 0; level < kMaxTreeDepth; ++level) {
    const Node8& n = nodes[at];
    alignas(32) float key[kWidth];
    unsigned mask = entered_children(test, n, key);
    if (mask == 0) return;
    int best = std::countr_zero(mask);
    for (mask &= mask - 1; mask != 0; mask &= mask - 1) {
      const int k = std::countr_zero(mask);
      if (key[k] < key[best]) best = k;
    }
    if (n.count[best] > 0) {
      leaf(n.child[best], n.count[best]);
      return;
    }
    at = n.child[best];
  }
}

}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::bvh
