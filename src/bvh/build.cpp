// src/bvh/build.cpp — binned SAH build of a Bvh8 (refit and validation: refit.cpp).
//
// Build (Wald 2007): a binary tree over primitive ranges, then collapsed into
// 8-wide nodes. A split takes its two children as the next free pair of binary
// nodes (an atomic counter), so parallel subtrees never share a node; which
// numbers they get depends on the threads, but the tree does not, and the
// collapse walks the tree, so the Bvh8 is the same for any thread count.
// Below kDepthLimit levels the SAH split is replaced by an object median, so a
// pathological distribution cannot make the tree (or the recursion) deep.
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_invoke.h>
#include <tbb/task_group.h>

#include "prox/bvh/build.hpp"
#include "prox/bvh/threads.hpp"
#include "prox/core/default_init.hpp"
#include "prox/core/platform.hpp"
#include "prox/core/pod_buffer.hpp"

namespace prox::bvh {
namespace {

using Box3f = Box3<float>;

constexpr int kDepthLimit = 48;
static_assert(kDepthLimit + 32 < kMaxTreeDepth, "median splits after kDepthLimit add <= 32 levels");
constexpr std::size_t kParallelThreshold = 4096;
// Ranges at least this long are partitioned by partition_parallel, in this
// many fixed blocks (fixed, so the order does not depend on the threads).
constexpr std::size_t kParallelPartition = std::size_t(1) << 18;
constexpr int kPartitionBlocks = 16;
// Boxes asked of a BoxSource at once (24 KB on the stack).
constexpr std::size_t kBoxRun = 1024;
constexpr int kMaxBins = 64;
// SAH: a node visit costs about 6 triangle tests now that leaf triangles are
// tested 4 at a time (SSE filters in src/mesh/leaf_*_simd.hpp). Measured with
// prox-bench on bunny and armadillo, 1 thread: 6 beats 3 by 5-15% on rays and
// cp-far and builds as fast; 1.5 loses 5-10%; 10 is the same as 6.
constexpr float kTraversalCost = 6;



// No member initialisers: the builder allocates 2n - 1 of them uninitialised
// and takes them in pairs as it splits, so only the pages of nodes it uses are
// ever touched (2 leaves - 1: about n / 3 on bunny-1m; zeroing 2n - 1 cost more
// than the binning of the top levels).
struct BinaryNode {
  Box3f box;
  std::uint32_t first;  // leaf: first primitive; inner: left child (right = first + 1)
  std::uint32_t count;  // > 0: leaf
};

// A box padded to two 16-byte rows, so that binning extends it with two SSE
// min/max (the hot loop of the build); the scalar path does the same per lane.
struct alignas(16) PBox {
  float lo[4], hi[4];
  static PBox empty() {
    const float inf = std::numeric_limits<float>::infinity();
    return PBox{{inf, inf, inf, inf}, {-inf, -inf, -inf, -inf}};
  }
  void extend(const PBox& b) {
#ifdef PROX_SIMD_SSE2
    _mm_store_ps(lo, _mm_min_ps(_mm_load_ps(lo), _mm_load_ps(b.lo)));
    _mm_store_ps(hi, _mm_max_ps(_mm_load_ps(hi), _mm_load_ps(b.hi)));
#else
    for (int a = 0; a < 4; ++a) {
      lo[a] = b.lo[a] < lo[a] ? b.lo[a] : lo[a];
      hi[a] = b.hi[a] > hi[a] ? b.hi[a] : hi[a];
    }
#endif
  }
  Box3f box() const { return Box3f{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}}; }
};

// Slots a leaf of n primitives fills: leaves start on multiples of
// kLeafAlign and are tested (and stored) that many at a time.
std::uint32_t leaf_slots(std::uint32_t n) { return (n + kLeafAlign - 1) / kLeafAlign * kLeafAlign; }

float half_area(const Box3f& b) {
  if (b.is_empty()) return 0.0f;
  const Vec3<float> d = b.diagonal();
  const float area = d[0] * d[1] + d[1] * d[2] + d[2] * d[0];
  if (area <= std::numeric_limits<float>::max()) return area;
  // Saturated at float's largest: boxes of a double mesh near 2^120 (prox's
  // range) have areas of 2^242, which as inf would make SAH costs inf or NaN.
  return std::numeric_limits<float>::max();
}

// The builder moves primitive references (box + id, 32 bytes) rather than
// ids into side arrays: every pass over a range (bounds, binning, partition)
// then reads memory in order, which is what a 1M-triangle build waits on.
// The id lives in the unused fourth lane of lo: its bits plus those of 1.0f
// (mod 2^32), never read as a float, but the SSE passes do arithmetic on all
// four lanes ((lo + hi) / 2 for centroids, then the bin scale). The bare id
// was a subnormal float for every id below 2^23, and each such operation on
// it took a microcode assist on Intel cores (not on AMD's): the binary build
// of bunny-1m at 1 thread ran 1.75 s on an Intel Xeon, 0.29 s with the
// subnormals flushed (measured with DAZ/FTZ set). Offset by 1.0f's bits the
// lane is a normal float from 1.0 up (or an inf / NaN from id 2^30 on: no
// assist either), and halving or scaling it by 0 gives no subnormal; the
// offset is a bijection, so any id decodes (the lanes 0..2, and so the tree,
// do not change).
constexpr std::uint32_t kIdOffset = 0x3f800000u;  // the bits of 1.0f
float ref_id_lane(std::uint32_t id) { return std::bit_cast<float>(id + kIdOffset); }
std::uint32_t ref_id(const PBox& r) { return std::bit_cast<std::uint32_t>(r.lo[3]) - kIdOffset; }
float ref_centroid(const PBox& r, int a) { return (r.lo[a] + r.hi[a]) * 0.5f; }

// The bin of centroid coordinate c among `bins` from lo, scale bins per unit.
// Clamped in float before the conversion, so no value (NaN or huge, from
// boxes at the edge of the float range) is converted out of int's range.
int bin_of(float c, float lo, float scale, int bins) {
  float t = (c - lo) * scale;
  t = t > 0.0f ? t : 0.0f;  // NaN -> 0
  const float top = float(bins - 1);
  return int(t < top ? t : top);
}

// A split's plane in bin terms: a reference goes left when its centroid's
// bin along `axis` (bin_of) is below `plane`.
struct SplitPlane {
  int axis;
  int plane;
  float lo, scale;
};

// Partitions [first, last) by the plane (std::partition: the same order for
// the same input) and returns the first reference on the right; lc and rc
// get the boxes of the two sides' centroids, on the way (min and max: exact
// in any order), instead of one more pass over each child's range.
PBox* partition_range(PBox* first, PBox* last, const SplitPlane& sp, int bins, PBox& lc,
                      PBox& rc) {
  auto goes_left = [&](float c) { return bin_of(c, sp.lo, sp.scale, bins) < sp.plane; };
#ifdef PROX_SIMD_SSE2
  // The centroid and the two boxes in SSE: the same float operations as
  // ref_centroid and Box3f::extend (min(c, lo) keeps lo on a tie, as
  // prox::min does), so the same boxes.
  const PBox none = PBox::empty();
  __m128 llo = _mm_load_ps(none.lo), lhi = _mm_load_ps(none.hi), rlo = llo, rhi = lhi;
  const __m128 half = _mm_set1_ps(0.5f);
  PBox* const mid = std::partition(first, last, [&](const PBox& r) {
    const __m128 c = _mm_mul_ps(_mm_add_ps(_mm_load_ps(r.lo), _mm_load_ps(r.hi)), half);
    const bool left = goes_left(ref_centroid(r, sp.axis));
    if (left) {
      llo = _mm_min_ps(c, llo);
      lhi = _mm_max_ps(c, lhi);
    } else {
      rlo = _mm_min_ps(c, rlo);
      rhi = _mm_max_ps(c, rhi);
    }
    return left;
  });
  _mm_store_ps(lc.lo, llo);
  _mm_store_ps(lc.hi, lhi);
  _mm_store_ps(rc.lo, rlo);
  _mm_store_ps(rc.hi, rhi);
#else
  Box3f lb = Box3f::empty(), rb = Box3f::empty();
  PBox* const mid = std::partition(first, last, [&](const PBox& r) {
    const Vec3<float> c{ref_centroid(r, 0), ref_centroid(r, 1), ref_centroid(r, 2)};
    const bool left = goes_left(c[sp.axis]);
    (left ? lb : rb).extend(c);
    return left;
  });
  lc = PBox{{lb.lo[0], lb.lo[1], lb.lo[2], 0.0f}, {lb.hi[0], lb.hi[1], lb.hi[2], 0.0f}};
  rc = PBox{{rb.lo[0], rb.lo[1], rb.lo[2], 0.0f}, {rb.hi[0], rb.hi[1], rb.hi[2], 0.0f}};
#endif
  return mid;
}

// The same partition of a large range on several threads: kPartitionBlocks
// fixed blocks are partitioned on their own (in parallel), then the right
// references before the split point trade places with the left ones after
// it, the k-th with the k-th. The blocks do not depend on the thread count,
// so neither does the order (it differs from one std::partition of the whole
// range, which only changes the order of slots within a leaf, never a set of
// references, a box or the tree). At the root of bunny-1m the serial
// partition was ~6 ms that one of two threads waited for.
PBox* partition_parallel(PBox* first, PBox* last, const SplitPlane& sp, int bins, PBox& lc,
                         PBox& rc) {
  constexpr int kBlocks = kPartitionBlocks;
  const std::size_t n = std::size_t(last - first);
  std::size_t start[kBlocks + 1];
  for (int j = 0; j <= kBlocks; ++j) start[j] = n * std::size_t(j) / kBlocks;
  std::size_t mid[kBlocks];
  PBox blc[kBlocks], brc[kBlocks];
  tbb::parallel_for(0, kBlocks, [&](int j) {
    mid[j] = std::size_t(
        partition_range(first + start[j], first + start[j + 1], sp, bins, blc[j], brc[j]) -
        first);
  });
  lc = PBox::empty();
  rc = PBox::empty();
  std::size_t m = 0;
  for (int j = 0; j < kBlocks; ++j) {
    lc.extend(blc[j]);
    rc.extend(brc[j]);
    m += mid[j] - start[j];
  }
  // Misplaced runs: right references in [0, m), left ones in [m, n), each in
  // position order; equal in total. Paired in order into swap segments.
  struct Run {
    std::size_t at, len;
  };
  Run wrong_right[kBlocks], wrong_left[kBlocks];
  int nr = 0, nl = 0;
  for (int j = 0; j < kBlocks; ++j) {
    const std::size_t rb = mid[j], re = std::min(start[j + 1], m);
    if (rb < re) wrong_right[nr++] = Run{rb, re - rb};
    const std::size_t lb = std::max(start[j], m), le = mid[j];
    if (lb < le) wrong_left[nl++] = Run{lb, le - lb};
  }
  struct Swap {
    std::size_t a, b, len;
  };
  std::vector<Swap> swaps;
  constexpr std::size_t kPiece = 16384;  // references a task swaps at most
  for (int i = 0, k = 0; i < nr && k < nl;) {
    const std::size_t len = std::min({wrong_right[i].len, wrong_left[k].len, kPiece});
    swaps.push_back(Swap{wrong_right[i].at, wrong_left[k].at, len});
    wrong_right[i].at += len;
    wrong_right[i].len -= len;
    wrong_left[k].at += len;
    wrong_left[k].len -= len;
    if (wrong_right[i].len == 0) ++i;
    if (wrong_left[k].len == 0) ++k;
  }
  tbb::parallel_for(std::size_t(0), swaps.size(), [&](std::size_t i) {
    std::swap_ranges(first + swaps[i].a, first + swaps[i].a + swaps[i].len, first + swaps[i].b);
  });
  return first + m;
}

struct Builder {
  PodBuffer<PBox> refs;                  // in build order; leaves are ranges of it
  std::unique_ptr<BinaryNode[]> nodes;   // root at 0; children taken in pairs
  std::atomic<std::uint32_t> next_node{1};
  int max_leaf = 8;
  int bins = 16;

  Box3f range_box(std::uint32_t b, std::uint32_t e) const {
    PBox r = PBox::empty();
    for (std::uint32_t i = b; i < e; ++i) r.extend(refs[i]);
    return r.box();
  }

  struct Split {
    int axis = -1;
    int plane = 0;  // left = bins [0, plane)
    float cost = std::numeric_limits<float>::infinity();
    Box3f left, right;
  };

  struct Bins {
    PBox box[3][kMaxBins];
    std::uint32_t count[3][kMaxBins];
  };

  // Consecutive references usually fall into the same bins (the range was
  // partitioned by position, and the root's range is in the mesh's order), so
  // each bin update would wait on the previous one's store; four sets of bins,
  // taking references in turn, cut that chain to a quarter (two sets made
  // bin_range of 1M+ triangle builds about 1.5x faster than one; four
  // another 1.25x at the root of bunny-1m). Unions and counts are exact, so the merged bins are the same.
  void bin_range(std::uint32_t b, std::uint32_t e, const Box3f& cbox, const float* scale,
                 Bins& out) const {
    constexpr int kMaxSets = 4;
    const std::uint32_t n = e - b;
    const int sets = n >= 256 ? 4 : (n >= 64 ? 2 : 1);
    Bins extra[kMaxSets - 1];
    Bins* set[kMaxSets] = {&out, &extra[0], &extra[1], &extra[2]};
    for (int h = 0; h < sets; ++h)
      for (int a = 0; a < 3; ++a)
        for (int k = 0; k < bins; ++k) {
          set[h]->box[a][k] = PBox::empty();
          set[h]->count[a][k] = 0;
        }
#ifdef PROX_SIMD_SSE2
    // The three axes' bins at once: the same float operations as bin_of
    // (partition uses bin_of, and the two must agree exactly).
    const __m128 vlo = _mm_setr_ps(cbox.lo[0], cbox.lo[1], cbox.lo[2], 0.0f);
    const __m128 vscale = _mm_setr_ps(scale[0], scale[1], scale[2], 0.0f);
    const __m128 half = _mm_set1_ps(0.5f), zero = _mm_setzero_ps();
    const __m128 top = _mm_set1_ps(float(bins - 1));
    auto add = [&](const PBox& pb, Bins& to) {
      const __m128 lo = _mm_load_ps(pb.lo), hi = _mm_load_ps(pb.hi);
      __m128 t = _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(_mm_add_ps(lo, hi), half), vlo), vscale);
      t = _mm_min_ps(_mm_max_ps(t, zero), top);  // max(NaN, 0) = 0, as in bin_of
      alignas(16) std::int32_t k[4];
      _mm_store_si128(reinterpret_cast<__m128i*>(k), _mm_cvttps_epi32(t));
      for (int a = 0; a < 3; ++a) {
        PBox& bin = to.box[a][k[a]];
        _mm_store_ps(bin.lo, _mm_min_ps(_mm_load_ps(bin.lo), lo));
        _mm_store_ps(bin.hi, _mm_max_ps(_mm_load_ps(bin.hi), hi));
        ++to.count[a][k[a]];
      }
    };
#else
    auto add = [&](const PBox& pb, Bins& to) {
      for (int a = 0; a < 3; ++a) {
        const int k = bin_of(ref_centroid(pb, a), cbox.lo[a], scale[a]);
        to.box[a][k].extend(pb);
        ++to.count[a][k];
      }
    };
#endif
    std::uint32_t i = b;
    if (sets == 4) {
      for (; i + 3 < e; i += 4) {
        add(refs[i], out);
        add(refs[i + 1], extra[0]);
        add(refs[i + 2], extra[1]);
        add(refs[i + 3], extra[2]);
      }
    } else if (sets == 2) {
      for (; i + 1 < e; i += 2) {
        add(refs[i], out);
        add(refs[i + 1], extra[0]);
      }
    }
    for (; i < e; ++i) add(refs[i], out);
    for (int h = 1; h < sets; ++h)
      for (int a = 0; a < 3; ++a)
        for (int k = 0; k < bins; ++k) {
          out.box[a][k].extend(set[h]->box[a][k]);
          out.count[a][k] += set[h]->count[a][k];
        }
  }

  // Best SAH plane over all three axes (cost = area x slots summed over both
  // sides: leaf_slots, as Embree's builders count blocks, so a side of 5
  // costs what 8 cost; large sides barely change, near the leaves it prefers
  // sides that fill their packs: less padding, fewer partly empty packs). Large ranges are binned in parallel chunks, merged in a fixed
  // order (unions and counts are exact, so the result does not depend on it).
  Split find_split(std::uint32_t b, std::uint32_t e, const Box3f& cbox) const {
    Split best;
    float scale[3];
    for (int a = 0; a < 3; ++a) {
      const float ext = cbox.hi[a] - cbox.lo[a];
      scale[a] = ext > 0.0f ? float(bins) / ext : 0.0f;
    }
    Bins bin;
    const std::uint32_t n = e - b;
    if (n >= 4 * kParallelThreshold) {
      constexpr int kChunks = 8;
      std::vector<Bins> part(kChunks);
      tbb::task_group g;
      for (int c = 0; c < kChunks; ++c)
        g.run([&, c] {
          bin_range(b + std::uint32_t(std::uint64_t(n) * c / kChunks),
                    b + std::uint32_t(std::uint64_t(n) * (c + 1) / kChunks), cbox, scale,
                    part[c]);
        });
      g.wait();
      bin = part[0];
      for (int c = 1; c < kChunks; ++c)
        for (int a = 0; a < 3; ++a)
          for (int k = 0; k < bins; ++k) {
            bin.box[a][k].extend(part[c].box[a][k]);
            bin.count[a][k] += part[c].count[a][k];
          }
    } else {
      bin_range(b, e, cbox, scale, bin);
    }
    // The right side of every plane as a padded box (converted, and its area
    // taken, only for the planes evaluated). A plane after an empty bin has
    // the same two sides, so the same cost, as the plane before it, which the
    // strict < already preferred: it is skipped (the same split as testing it).
    PBox right_box[kMaxBins];
    std::uint32_t right_count[kMaxBins];
    for (int a = 0; a < 3; ++a) {
      if (scale[a] == 0.0f) continue;
      PBox acc = PBox::empty();
      std::uint32_t cnt = 0;
      for (int k = bins - 1; k > 0; --k) {
        acc.extend(bin.box[a][k]);
        cnt += bin.count[a][k];
        right_box[k] = acc;
        right_count[k] = cnt;
      }
      acc = PBox::empty();
      cnt = 0;
      for (int k = 1; k < bins; ++k) {
        if (bin.count[a][k - 1] == 0) continue;  // an empty bin: acc and cnt unchanged
        acc.extend(bin.box[a][k - 1]);
        cnt += bin.count[a][k - 1];
        if (right_count[k] == 0) continue;
        const Box3f left = acc.box(), right = right_box[k].box();
        const float cost = half_area(left) * float(leaf_slots(cnt)) +
                           half_area(right) * float(leaf_slots(right_count[k]));
        if (cost < best.cost) {
          best.cost = cost;
          best.axis = a;
          best.plane = k;
          best.left = left;
          best.right = right;
        }
      }
    }
    return best;
  }

  int bin_of(float c, float lo, float scale) const { return bvh::bin_of(c, lo, scale, bins); }

  Box3f centroid_box(std::uint32_t b, std::uint32_t e) const {
    Box3f r = Box3f::empty();
    for (std::uint32_t i = b; i < e; ++i)
      r.extend(Vec3<float>{ref_centroid(refs[i], 0), ref_centroid(refs[i], 1),
                           ref_centroid(refs[i], 2)});
    return r;
  }

  void make_leaf(std::uint32_t idx, std::uint32_t b, std::uint32_t e, const Box3f& box) {
    nodes[idx].box = box;
    nodes[idx].first = b;
    nodes[idx].count = e - b;
  }

  // Object median along the widest centroid axis (deterministic: ties by id).
  std::uint32_t median_split(std::uint32_t b, std::uint32_t e, const Box3f& cbox) {
    const Vec3<float> d = cbox.diagonal();
    const int a = d[0] >= d[1] && d[0] >= d[2] ? 0 : (d[1] >= d[2] ? 1 : 2);
    const std::uint32_t m = b + (e - b) / 2;
    PBox* const base = refs.data();
    std::nth_element(base + b, base + m, base + e,
                     [&](const PBox& x, const PBox& y) {
                       const float cx = ref_centroid(x, a), cy = ref_centroid(y, a);
                       return cx < cy || (cx == cy && ref_id(x) < ref_id(y));
                     });
    return m;
  }

  // cbox: the box of the range's centroids (the caller's partition measured it).
  void build(std::uint32_t idx, std::uint32_t b, std::uint32_t e, const Box3f& box,
             const Box3f& cbox, int depth) {
    const std::uint32_t n = e - b;
    // A leaf costs half_area(box) * leaf_slots(n); any split costs at least
    // kTraversalCost * half_area(box) (its sides' costs are >= 0), so when
    // leaf_slots(n) <= kTraversalCost (n <= 4: one pack) the test below
    // always keeps the leaf: skipping find_split gives the same tree, and
    // saves its binning and plane sweep on most of the bottom nodes.
    if (n == 1 || (n <= std::uint32_t(max_leaf) && float(leaf_slots(n)) <= kTraversalCost))
      return make_leaf(idx, b, e, box);
    std::uint32_t m = b;
    Box3f lbox, rbox;
    Box3f lcbox = Box3f::empty(), rcbox = Box3f::empty();
    bool have_boxes = false;
    if (depth < kDepthLimit) {
      const Split s = find_split(b, e, cbox);
      // A leaf costs its slots: its primitives are tested four at a time.
      const float leaf_cost = half_area(box) * float(leaf_slots(n));
      // Split cost: one traversal step (~ one primitive test) + the children.
      if (n <= std::uint32_t(max_leaf) &&
          (s.axis < 0 || leaf_cost <= s.cost + kTraversalCost * half_area(box)))
        return make_leaf(idx, b, e, box);
      if (s.axis >= 0) {
        const SplitPlane plane{s.axis, s.plane, cbox.lo[s.axis],
                               float(bins) / (cbox.hi[s.axis] - cbox.lo[s.axis])};
        PBox lc, rc;
        PBox* const base = refs.data();
        PBox* const mid = n >= kParallelPartition
                              ? partition_parallel(base + b, base + e, plane, bins, lc, rc)
                              : partition_range(base + b, base + e, plane, bins, lc, rc);
        lcbox = lc.box();
        rcbox = rc.box();
        m = std::uint32_t(mid - base);
        lbox = s.left;
        rbox = s.right;
        have_boxes = true;
      }
    } else if (n <= std::uint32_t(max_leaf)) {
      return make_leaf(idx, b, e, box);
    }
    if (m == b || m == e) {
      m = median_split(b, e, cbox);
      have_boxes = false;
    }
    if (!have_boxes) {
      lbox = range_box(b, m);
      rbox = range_box(m, e);
      lcbox = centroid_box(b, m);
      rcbox = centroid_box(m, e);
    }
    // (Node numbers depend on the threads' order; see the top of this file.)
    const std::uint32_t left = next_node.fetch_add(2, std::memory_order_relaxed), right = left + 1;
    nodes[idx].box = box;
    nodes[idx].count = 0;
    nodes[idx].first = left;
    if (n >= kParallelThreshold) {
      tbb::task_group g;
      g.run([&, left, b, m, lbox, lcbox] { build(left, b, m, lbox, lcbox, depth + 1); });
      build(right, m, e, rbox, rcbox, depth + 1);
      g.wait();
    } else {
      build(left, b, m, lbox, lcbox, depth + 1);
      build(right, m, e, rbox, rcbox, depth + 1);
    }
  }
};

// Collapse the binary tree into Node8s in depth-first order; leaves get slots
// aligned to kLeafAlign, padded with kInvalid. Two passes: plan() walks the
// tree once, choosing each wide node's children and numbering nodes and slots
// (so both arrays are allocated at their exact size, with no growth or
// shrink copy), then fill() writes the nodes and slots in parallel.
struct Collapser {
  const BinaryNode* bin = nullptr;
  const PBox* refs = nullptr;  // the build's primitive order (leaf = a range of it)

  struct Plan {
    std::uint32_t kid[kWidth];    // binary nodes that become the children
    std::uint32_t child[kWidth];  // inner: wide node index; leaf: first slot
    int count = 0;
  };

  // Which binary nodes become each wide node's children: the SAH-optimal
  // choice (the collapse of Ylitie, Karras and Laine, HPG 2017, with the
  // binary tree's leaves kept as they are), not the greedy "open the largest
  // child until eight". cost[x][c - 1]: the least SAH cost of x's subtree
  // given as at most c children of a wide node (a leaf: its area times its
  // slots; an inner node as one child: kTraversalCost times its area plus its
  // own eight; opened: its two children sharing the c). split[x][c - 1]: the
  // children given to x's left child there (0: x is one child). Bottom up,
  // once per binary node; ties keep the first (fewest to the left), so the
  // tree does not depend on the thread count. The greedy collapse left bunny's
  // wide nodes 4.2 of 8 full.
  // Not zeroed on resize: solve writes every binary node's entries (a
  // serial memset of 40 bytes a node was ~4 ms of bunny-1m's 2-thread build).
  std::vector<std::array<float, kWidth>, DefaultInitAllocator<std::array<float, kWidth>>> cost;
  std::vector<std::array<std::uint8_t, kWidth>,
              DefaultInitAllocator<std::array<std::uint8_t, kWidth>>>
      split;

  void solve(std::uint32_t x, int depth) {
    const BinaryNode& n = bin[x];
    std::array<float, kWidth>& cx = cost[x];
    std::array<std::uint8_t, kWidth>& sx = split[x];
    const float area = half_area(n.box);
    if (n.count > 0) {
      const float leaf = area * float(leaf_slots(n.count));
      cx.fill(leaf);
      sx.fill(0);
      return;
    }
    const std::uint32_t l = n.first, r = n.first + 1;
    if (depth < 10) {
      tbb::parallel_invoke([&] { solve(l, depth + 1); }, [&] { solve(r, depth + 1); });
    } else {
      solve(l, depth + 1);
      solve(r, depth + 1);
    }
    const std::array<float, kWidth>& cl = cost[l];
    const std::array<float, kWidth>& cr = cost[r];
    float opened[kWidth];
    std::uint8_t take[kWidth];
    for (int c = 2; c <= kWidth; ++c) {
      float best = std::numeric_limits<float>::infinity();
      int bi = 1;
      for (int i = 1; i < c; ++i) {
        const float v = cl[i - 1] + cr[c - i - 1];
        if (v < best) {
          best = v;
          bi = i;
        }
      }
      opened[c - 1] = best;
      take[c - 1] = std::uint8_t(bi);
    }
    const float one = kTraversalCost * area + opened[kWidth - 1];
    cx[0] = one;
    sx[0] = 0;
    for (int c = 2; c <= kWidth; ++c) {
      // With all eight places x is always opened: its wide node's children
      // (expand from plan) must come from its two sides, whatever the costs
      // are (boxes near float's range give inf or NaN areas).
      const bool open = c == kWidth || opened[c - 1] < one;
      cx[c - 1] = open ? opened[c - 1] : one;
      sx[c - 1] = open ? take[c - 1] : 0;
    }
  }

  // Appends the children that x's subtree gives a wide node with c places.
  void expand(std::uint32_t x, int c, Plan& p) const {
    const std::uint8_t i = split[x][c - 1];
    if (i == 0) {
      p.kid[p.count++] = x;
      return;
    }
    expand(bin[x].first, i, p);
    expand(bin[x].first + 1, c - i, p);
  }

  // Wide nodes in the output order (depth first, children in order), with
  // the slots of their leaves numbered in that order too.
  struct PlanList {
    std::vector<Plan> plans;
    std::uint32_t slots = 0;
    int max_depth = 0;
    std::size_t leaves = 0;
  };
  PlanList tree;  // the whole tree's: one plan per wide node, in the output order

  // Plans the wide node made from binary node `root` and its subtree into
  // out, numbered from out's current counts; returns its index.
  std::uint32_t plan(std::uint32_t root, int depth, PlanList& out) const {
    // Children of the new node: the least-cost ones with eight places (an
    // inner node is always opened there; a leaf at the root is its only child).
    Plan p;
    expand(root, kWidth, p);
    const std::uint32_t me = std::uint32_t(out.plans.size());
    out.plans.push_back(p);
    out.max_depth = std::max(out.max_depth, depth);
    for (int k = 0; k < p.count; ++k) {
      const BinaryNode& c = bin[p.kid[k]];
      std::uint32_t child;
      if (c.count > 0) {
        child = out.slots;
        out.slots += leaf_slots(c.count);
        ++out.leaves;
      } else {
        child = plan(p.kid[k], depth + 1, out);
      }
      out.plans[me].child[k] = child;  // plan() may have reallocated
    }
    return me;
  }

  // The root's wide node, then each of its inner children's subtrees planned
  // on its own (in parallel: the serial walk was ~5 ms of bunny-1m's 2-thread
  // build) and appended in child order with its node and slot numbers moved
  // past what comes before it: the numbering of one depth-first walk.
  void plan_all(std::size_t reserve) {
    Plan root;
    expand(0, kWidth, root);
    PlanList sub[kWidth];
    tbb::parallel_for(0, root.count, [&](int k) {
      if (bin[root.kid[k]].count > 0) return;
      sub[k].plans.reserve(reserve / std::size_t(root.count) + 1);
      plan(root.kid[k], 2, sub[k]);
    });
    std::uint32_t node_base[kWidth], slot_base[kWidth];
    std::uint32_t nodes = 1;
    tree.max_depth = 1;
    for (int k = 0; k < root.count; ++k) {
      const BinaryNode& c = bin[root.kid[k]];
      if (c.count > 0) {
        root.child[k] = tree.slots;
        tree.slots += leaf_slots(c.count);
        ++tree.leaves;
        continue;
      }
      node_base[k] = nodes;
      slot_base[k] = tree.slots;
      root.child[k] = nodes;
      nodes += std::uint32_t(sub[k].plans.size());
      tree.slots += sub[k].slots;
      tree.leaves += sub[k].leaves;
      tree.max_depth = std::max(tree.max_depth, sub[k].max_depth);
    }
    tree.plans.resize(nodes);
    tree.plans[0] = root;
    tbb::parallel_for(0, root.count, [&](int k) {
      if (bin[root.kid[k]].count > 0) return;
      for (std::size_t i = 0; i < sub[k].plans.size(); ++i) {
        Plan p = sub[k].plans[i];
        for (int j = 0; j < p.count; ++j)
          p.child[j] += bin[p.kid[j]].count > 0 ? slot_base[k] : node_base[k];
        tree.plans[node_base[k] + i] = p;
      }
      decltype(sub[k].plans)().swap(sub[k].plans);
    });
  }

  void fill(Bvh8& bvh) const {
    bvh.nodes.resize(tree.plans.size());
    bvh.prims.resize(tree.slots);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, tree.plans.size(), 256),
                      [&](const tbb::blocked_range<std::size_t>& range) {
      for (std::size_t i = range.begin(); i < range.end(); ++i) {
        const Plan& p = tree.plans[i];
        Node8& node = bvh.nodes[i];
        for (int k = 0; k < kWidth; ++k) {
          if (k >= p.count) {
            for (int a = 0; a < 3; ++a) {
              node.lo[a][k] = std::numeric_limits<float>::infinity();
              node.hi[a][k] = -std::numeric_limits<float>::infinity();
            }
            node.child[k] = kInvalid;
            node.count[k] = 0;
            continue;
          }
          const BinaryNode& c = bin[p.kid[k]];
          for (int a = 0; a < 3; ++a) {
            node.lo[a][k] = c.box.lo[a];
            node.hi[a][k] = c.box.hi[a];
          }
          node.child[k] = p.child[k];
          node.count[k] = c.count;
          if (c.count > 0) {
            std::uint32_t* slot = bvh.prims.data() + p.child[k];
            std::uint32_t j = 0;
            for (; j < c.count; ++j) slot[j] = ref_id(refs[c.first + j]);
            for (; j % kLeafAlign != 0; ++j) slot[j] = kInvalid;
          }
        }
      }
    });
  }
};

double sah_cost(const Bvh8& bvh) {
  if (bvh.empty()) return 0;
  Box3f root = Box3f::empty();
  double cost = 0;
  for (std::size_t i = 0; i < bvh.nodes.size(); ++i) {
    const Node8& n = bvh.nodes[i];
    for (int k = 0; k < kWidth; ++k) {
      Box3f b;
      for (int a = 0; a < 3; ++a) {
        b.lo[a] = n.lo[a][k];
        b.hi[a] = n.hi[a][k];
      }
      if (i == 0) root.extend(b);
      if (n.count[k] > 0) cost += double(half_area(b)) * n.count[k];
      else if (n.child[k] != kInvalid) cost += double(half_area(b));
    }
  }
  const double ra = half_area(root);
  return ra > 0 ? cost / ra : 0;
}

}  // namespace

Bvh8 build_bvh8(std::span<const Box3f> boxes, const BuildOptions& options) {
  return build_bvh8(
      boxes.size(),
      [boxes](std::size_t begin, std::size_t end, Box3f* out) {
        std::copy(boxes.begin() + std::ptrdiff_t(begin), boxes.begin() + std::ptrdiff_t(end), out);
      },
      options);
}

Bvh8 build_bvh8(std::size_t n, const BoxSource& boxes, const BuildOptions& options,
                RawBlock* spare) {
  const auto t0 = std::chrono::steady_clock::now();
  Bvh8 out;
  if (n > 0) {
    Builder b;
    b.max_leaf = std::clamp(options.max_leaf_size, 1, int(kMaxLeafSize));
    b.bins = std::clamp(options.sah_bins, 4, kMaxBins);
    b.refs.assign_uninitialized(n);  // written once, in run
    b.nodes.reset(new BinaryNode[2 * n - 1]);  // uninitialised; see BinaryNode
    Collapser c;
    c.bin = b.nodes.get();
    c.refs = b.refs.data();
    auto run = [&] {
      // The references, the root's box and its centroid box in one parallel
      // pass (it was two serial passes over every primitive: ~15 ms of
      // bunny-1m's build at 2 threads, while one core idled). Fixed blocks
      // and a deterministic reduction; min and max are exact, so the boxes
      // are the serial loop's.
      struct Acc {
        PBox box = PBox::empty();
        Box3f cbox = Box3f::empty();
      };
      const Acc acc = tbb::parallel_deterministic_reduce(
          tbb::blocked_range<std::size_t>(0, n, 16384), Acc{},
          [&](const tbb::blocked_range<std::size_t>& r, Acc a) {
            Box3f box[kBoxRun];
            for (std::size_t first = r.begin(); first < r.end(); first += kBoxRun) {
              const std::size_t end = std::min(r.end(), first + kBoxRun);
              boxes(first, end, box);
              for (std::size_t i = first; i < end; ++i) {
                const Box3f& bx = box[i - first];
                PBox& ref = b.refs[i];
                ref = PBox{{bx.lo[0], bx.lo[1], bx.lo[2], ref_id_lane(std::uint32_t(i))},
                           {bx.hi[0], bx.hi[1], bx.hi[2], 0.0f}};
                a.box.extend(ref);
                a.cbox.extend(Vec3<float>{ref_centroid(ref, 0), ref_centroid(ref, 1),
                                          ref_centroid(ref, 2)});
              }
            }
            return a;
          },
          [](Acc x, const Acc& y) {
            x.box.extend(y.box);
            x.cbox.extend(y.cbox);
            return x;
          });
      b.build(0, 0, std::uint32_t(n), acc.box.box(), acc.cbox, 0);
      c.cost.resize(b.next_node.load());
      c.split.resize(b.next_node.load());
      c.solve(0, 0);
      c.plan_all(2 * n / 7 + 1);
      // 40 bytes per binary node, not needed by fill: freed before the output
      // arrays are allocated, so they do not add to the build's peak.
      decltype(c.cost)().swap(c.cost);
      decltype(c.split)().swap(c.split);
      c.fill(out);
    };
    // The cached arena of that many threads (prox/bvh/threads.hpp), or the
    // caller's when it is one (MeshIndex's build calls from inside it).
    detail::run_with_threads(options.threads, run);
    out.stats.depth = c.tree.max_depth;
    out.stats.leaves = c.tree.leaves;
    if (spare != nullptr) *spare = b.refs.release();
  }
  out.stats.nodes = out.nodes.size();
  out.stats.primitives = n;
  out.stats.sah_cost = sah_cost(out);
  out.stats.build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace prox::bvh
