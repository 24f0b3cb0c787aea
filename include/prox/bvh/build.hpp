// prox/bvh/build.hpp — binned SAH build of a Bvh8 over primitive boxes.
//
// Algorithm: top-down binned SAH (Wald 2007, "On fast construction of SAH-based
// bounding volume hierarchies"): centroids are binned along each axis into
// options.sah_bins bins, the cheapest of the bins-1 planes per axis is taken,
// and a node becomes a leaf when that is cheaper than splitting (or it is small
// enough and no split helps). Nodes larger than max_leaf_size are always split
// (at the median when every centroid coincides). Subtrees are built in
// parallel with TBB; the tree does not depend on the order in which threads
// split, so the result is identical for any thread count. The binary tree is then collapsed
// into 8-wide nodes (collapse opens the largest-surface child first). A leaf
// costs its slot count (rounded up to kLeafAlign) in the SAH, since leaf
// primitives are tested four at a time.
//
// Degenerate input: empty or flat boxes are fine; non-finite boxes are the
// caller's business (TriangleMesh rejects non-finite vertices).
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <type_traits>

#include "prox/bvh/bvh8.hpp"
#include "prox/core/box.hpp"
#include "prox/core/platform.hpp"
#include "prox/core/pod_buffer.hpp"

namespace prox::bvh {

/// Builds a Bvh8 over `boxes` (one per primitive; primitive id = index).
Bvh8 build_bvh8(std::span<const Box3<float>> boxes, const BuildOptions& options = {});

/// Writes the boxes of primitives [begin, end) to out[0 .. end - begin).
using BoxSource = std::function<void(std::size_t begin, std::size_t end, Box3<float>* out)>;

/// The same build over `count` primitives whose boxes come from `boxes`, called
/// on consecutive runs of at most 1024 primitives, from several threads at
/// once: the boxes are made where the builder first reads them, with no array
/// of all of them (MeshIndex: 24 bytes a triangle not written, read back and
/// freed). The tree is the one build_bvh8 gives for the same boxes.
///
/// With `spare`, the builder's working array of references (32 bytes a
/// primitive, every page of it written) is left there instead of freed, for
/// the caller's next large array to take over (PodBuffer::assign_uninitialized
/// grows it in place: MeshIndex's leaf packs reuse its pages instead of
/// faulting in fresh ones). Its contents are unspecified.
Bvh8 build_bvh8(std::size_t count, const BoxSource& boxes, const BuildOptions& options = {},
                RawBlock* spare = nullptr);

/// Recomputes every node box from new primitive boxes (same count, same tree).
void refit_bvh8(Bvh8& bvh, std::span<const Box3<float>> boxes);

/// Checks the structure (indices in range, leaves aligned, prims a permutation
/// plus padding, children after parents, leaf sizes, depth); returns an empty
/// string when valid, else the problem.
std::string validate_bvh8(const Bvh8& bvh, std::size_t num_prims);

/// The float after / before f (f not NaN): bit arithmetic, no libm call
/// (this runs several times per query).
inline float float_next_up(float f) {
  if (f == std::numeric_limits<float>::infinity()) return f;
  if (f == 0.0f) return std::numeric_limits<float>::denorm_min();
  const std::uint32_t b = std::bit_cast<std::uint32_t>(f);
  return std::bit_cast<float>(f > 0.0f ? b + 1 : b - 1);
}
inline float float_next_down(float f) { return -float_next_up(-f); }

/// Largest float <= x (x in float or double; NaN stays NaN).
template <class T>
inline float float_down(const T& x) {
  // A float is its own bound (NaN stays NaN, -0 stays -0). Said outright:
  // to_float's barrier kept the compiler from folding the round trip, which
  // cost every ray query a dozen instructions of set-up per axis.
  if constexpr (std::is_same_v<T, float>) return x;
  const float f = to_float(double(x));  // not folded away (see to_float)
  return static_cast<T>(f) > x ? float_next_down(f) : f;
}
/// Smallest float >= x.
template <class T>
inline float float_up(const T& x) {
  if constexpr (std::is_same_v<T, float>) return x;  // as float_down
  const float f = to_float(double(x));
  return static_cast<T>(f) < x ? float_next_up(f) : f;
}

#ifdef PROX_SIMD_SSE2
/// (float_down2 and float_up2's step.) f (lanes 0 and 1), with the next float down (`down`) or up in the lanes
/// where the 64-bit masks of `need` are set; lanes 2 and 3: 0. The steps of
/// float_next_down / float_next_up as masks: +-0 -> -+denorm_min; otherwise
/// the bits one step away from or towards zero (+-inf included: the rounding
/// tests never ask to step past them).
inline __m128 next_float_where(__m128 f, __m128d need, bool down) {
  const __m128i m = _mm_and_si128(
      _mm_shuffle_epi32(_mm_castpd_si128(need), _MM_SHUFFLE(3, 3, 2, 0)),
      _mm_setr_epi32(-1, -1, 0, 0));
  const __m128i b = _mm_castps_si128(f);
  const __m128i up = _mm_or_si128(_mm_srai_epi32(b, 31), _mm_set1_epi32(1));  // +1, or -1 below 0
  const __m128i step = down ? _mm_sub_epi32(_mm_setzero_si128(), up) : up;
  const __m128i zero = _mm_cmpeq_epi32(_mm_and_si128(b, _mm_set1_epi32(0x7fffffff)),
                                       _mm_setzero_si128());
  const __m128i tiny = _mm_set1_epi32(down ? std::int32_t(0x80000001u) : 1);
  const __m128i next =
      _mm_or_si128(_mm_and_si128(zero, tiny), _mm_andnot_si128(zero, _mm_add_epi32(b, step)));
  return _mm_castsi128_ps(_mm_or_si128(_mm_and_si128(m, next), _mm_andnot_si128(m, b)));
}

/// float_down of both lanes of x, in lanes 0 and 1 (lanes 2 and 3: 0),
/// without a branch: the same conversion (round to nearest), the same test
/// and the same step to the next float, as masks. float_down and float_up
/// branch on whether the conversion rounded up, which for box corners is a
/// coin toss.
inline __m128 float_down2(__m128d x) {
  const __m128 f = _mm_cvtpd_ps(x);
  return next_float_where(f, _mm_cmpgt_pd(_mm_cvtps_pd(f), x), true);
}
/// float_up of both lanes of x, as float_down2.
inline __m128 float_up2(__m128d x) {
  const __m128 f = _mm_cvtpd_ps(x);
  return next_float_where(f, _mm_cmplt_pd(_mm_cvtps_pd(f), x), false);
}
#endif

/// Float box that contains every point of a box in T (rounded outward).
template <class T>
inline Box3<float> outward_float_box(const Box3<T>& b) {
  Box3<float> r;
  for (int k = 0; k < 3; ++k) {
    r.lo[k] = float_down(b.lo[k]);
    r.hi[k] = float_up(b.hi[k]);
  }
  return r;
}

}  // namespace prox::bvh
