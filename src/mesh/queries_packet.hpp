// src/mesh/queries_packet.hpp — coherent rays: first hits of up to eight rays
// traced together (a packet), bit for bit the answers of eight single rays.
//
// A batch of rays (a camera's, in pixel order) is cut into runs of eight
// consecutive rays. A run becomes a packet when its rays are coherent: all
// valid, the same dominant axis and direction signs (so the same shear axes and
// the same near / far box planes), directions within about 3 degrees and
// origins close together (maybe_coherent, then make_packet). Anything else is traced ray by
// ray; the answers are the same either way, only the speed differs.
//
// Nodes: one interval slab test per node for the whole packet (PacketTest):
// the origins and inverse directions of the eight rays as float intervals, the
// entry t bounded below and the exit t above over every ray, widened like the
// single-ray test (prox/bvh/traverse.hpp). If any ray of the packet can enter a
// box within its own [t_min, t_max], the packet enters it (conservative for
// each ray; the packet's limit is the largest t_max of its rays).
// Leaf children: each lane's own ray against the child's box (the single-ray
// test's arithmetic, packet_lanes_in_box); a leaf no ray may enter is not
// entered, and the others carry their lanes to the leaf (PacketTest::count_tag).
// Leaves: with few lanes, each lane's ray through the single-ray filter (one
// ray, eight triangles a call); otherwise each triangle against the active
// rays at once, one ray per lane: the
// first half of the watertight test (shear, edge functions U, V, W) with the
// same IEEE float operations in the same order as the scalar kernel, so each
// lane's U, V, W are the scalar kernel's bits; a lane is dropped only where the
// kernel's exact edge decision drops it (an edge function above its rounding
// bound and another below minus it: surely_outside8, leaf_ray_simd.hpp). Every other lane
// runs the scalar kernel, whose answer is kept with the tie rule of
// offer_hit (smaller t, then lower id). Each ray's answer is therefore the
// minimum over every triangle the kernel hits, as for a single ray.
// Float meshes only (the double filter would need double lanes); double
// batches are traced ray by ray.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "prox/bvh/simd8.hpp"
#include "prox/bvh/traverse.hpp"
#include "prox/mesh/flat_index.hpp"
#include "queries.hpp"

namespace prox::detail {
inline namespace PROX_ISA_NAMESPACE {

/// Rays per packet (one per F8 lane).
inline constexpr int kPacketSize = 8;

/// Up to eight coherent float rays, prepared once (see the file comment).
struct RayPacket {
  int n = 0;                       ///< rays in the packet (lanes >= n unused)
  int kx = 0, ky = 0, kz = 0;      ///< shear axes, shared
  /// Each ray's WatertightRay, for the scalar kernel and a hit's t: prepared
  /// on first use (ray(i)), since most rays of a camera never reach a
  /// candidate triangle; `ready` marks the lanes prepared.
  WatertightRay<float> wr[kPacketSize];
  const Ray<float>* src = nullptr;
  unsigned ready = 0;
  const WatertightRay<float>& ray(int i) {
    if (!(ready >> i & 1u)) {
      wr[i].set(src[i]);  // in place (see WatertightRay::set)
      ready |= 1u << i;
    }
    return wr[i];
  }
  // Lanes: per ray, the normalized origin permuted to (kx, ky, kz), the shear.
  alignas(32) float o[3][kPacketSize];
  alignas(32) float sx[kPacketSize], sy[kPacketSize];
  alignas(32) float t_max[kPacketSize];  ///< per ray, float, rounded up; shrinks on hits
  // Per ray, for the leaf's own decisions (decide_lanes): 1 / d_kz and the
  // normalized ray's t range, as the kernel reads them.
  alignas(32) float sz[kPacketSize], ray_t_min[kPacketSize], ray_t_max[kPacketSize];
  // Node test: per axis the conservative origin bound of the near / far plane
  // over the packet, the inverse direction interval, the plane rows.
  float on[3], of[3], inv_lo[3], inv_hi[3];
  unsigned near_off[3], far_off[3];
  float t_min = 0.0f;              ///< smallest t_min, rounded down
  float limit = 0.0f;              ///< largest t_max
  // Leaf children's test of each lane's ray (packet_lanes_in_box): per ray,
  // RayQuery's inverse of the normalized direction (bvh::slab_inverse),
  // permuted to (kx, ky, kz) like o.
  alignas(32) float inv[3][kPacketSize];
#if defined(PROX_SIMD_SSE2)
  /// Lane i's ray for the single-ray leaf filter (leaf_ray_simd.hpp): the
  /// values RayLeafSimd(ray(i)) would take, without making ray(i).
  RayLeafSimd lane_ray(int i) const {
    const float o_k[3] = {o[0][i], o[1][i], o[2][i]};
    return RayLeafSimd(kx, ky, kz, o_k, sx[i], sy[i], sz[i], ray_t_min[i], ray_t_max[i]);
  }
#endif
};

/// A cheap first look at rays[0..n): the same dominant axis, direction signs
/// and roughly the same direction (ratios to the dominant component within
/// 1/8). False rejects the run before make_packet prepares any ray (random
/// rays fail here, usually at the second ray).
inline bool maybe_coherent(const Ray<float>* rays, int n) {
  const Vec3<float>& d0 = rays[0].direction;
  int kz = 0;
  for (int a = 1; a < 3; ++a)
    if (std::fabs(d0[a]) > std::fabs(d0[kz])) kz = a;
  if (!(d0[kz] != 0.0f)) return false;
  const float r0[3] = {d0[0] / d0[kz], d0[1] / d0[kz], d0[2] / d0[kz]};
  for (int i = 1; i < n; ++i) {
    const Vec3<float>& d = rays[i].direction;
    if (!(std::fabs(d[kz]) > 0.0f)) return false;
    for (int a = 0; a < 3; ++a) {
      if (std::signbit(d[a]) != std::signbit(d0[a])) return false;
      if (!(std::fabs(d[a] / d[kz] - r0[a]) <= 0.125f)) return false;
    }
  }
  return true;
}

/// Prepares rays[0..n) (n <= 8) as a packet; false when they are not coherent
/// enough to gain from one (then each is traced alone). `scale` is the extent
/// of the index's root box: origins must lie within 2^-6 of it of each other.
inline bool make_packet(const Ray<float>* rays, int n, float scale, RayPacket& p) {
  if (n < 2) return false;
  p.n = n;
  p.src = rays;
  p.ready = (1u << n) - 1u;
  float sx_lo = 0, sx_hi = 0, sy_lo = 0, sy_hi = 0;
  float o_lo[3] = {0, 0, 0}, o_hi[3] = {0, 0, 0};
  int neg[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    if (!ray_is_valid(rays[i])) return false;
    p.wr[i].set(rays[i]);  // in place (see WatertightRay::set)
    const WatertightRay<float>& w = p.wr[i];
    const bvh::RayQuery q(w.ray);
    // An axis the slab test ignores (bvh::slab_inverse: a direction component
    // below about 2^-128 of the largest) has no packet interval: alone.
    if (std::isnan(q.inv[0]) || std::isnan(q.inv[1]) || std::isnan(q.inv[2])) return false;
    if (i == 0) {
      p.kx = w.kx;
      p.ky = w.ky;
      p.kz = w.kz;
      sx_lo = sx_hi = w.sx;
      sy_lo = sy_hi = w.sy;
      p.t_min = bvh::float_down(w.ray.t_min);
      for (int a = 0; a < 3; ++a) {
        neg[a] = q.neg[a];
        p.on[a] = q.o_near[a];
        p.of[a] = q.o_far[a];
        p.inv_lo[a] = p.inv_hi[a] = q.inv[a];
        p.near_off[a] = q.near_off[a];
        p.far_off[a] = q.far_off[a];
        o_lo[a] = o_hi[a] = w.ray.origin[a];
      }
    } else {
      if (w.kx != p.kx || w.ky != p.ky || w.kz != p.kz) return false;
      sx_lo = std::min(sx_lo, w.sx);
      sx_hi = std::max(sx_hi, w.sx);
      sy_lo = std::min(sy_lo, w.sy);
      sy_hi = std::max(sy_hi, w.sy);
      p.t_min = std::min(p.t_min, bvh::float_down(w.ray.t_min));
      for (int a = 0; a < 3; ++a) {
        if (q.neg[a] != neg[a]) return false;
        // The near plane's t is smallest with the origin farthest along the
        // direction, the far plane's t largest with it farthest back.
        p.on[a] = neg[a] ? std::min(p.on[a], q.o_near[a]) : std::max(p.on[a], q.o_near[a]);
        p.of[a] = neg[a] ? std::max(p.of[a], q.o_far[a]) : std::min(p.of[a], q.o_far[a]);
        p.inv_lo[a] = std::min(p.inv_lo[a], q.inv[a]);
        p.inv_hi[a] = std::max(p.inv_hi[a], q.inv[a]);
        o_lo[a] = std::min(o_lo[a], w.ray.origin[a]);
        o_hi[a] = std::max(o_hi[a], w.ray.origin[a]);
      }
    }
    p.o[0][i] = w.ray.origin[w.kx];
    p.o[1][i] = w.ray.origin[w.ky];
    p.o[2][i] = w.ray.origin[w.kz];
    p.inv[0][i] = q.inv[w.kx];
    p.inv[1][i] = q.inv[w.ky];
    p.inv[2][i] = q.inv[w.kz];
    p.sx[i] = w.sx;
    p.sy[i] = w.sy;
    p.t_max[i] = bvh::float_up(w.ray.t_max);
    p.sz[i] = w.sz;
    p.ray_t_min[i] = w.ray.t_min;
    p.ray_t_max[i] = w.ray.t_max;
  }
  // Coherence: shear spread (direction angle) and origin spread.
  if (!(sx_hi - sx_lo <= 0.0625f && sy_hi - sy_lo <= 0.0625f)) return false;
  for (int a = 0; a < 3; ++a)
    if (!(o_hi[a] - o_lo[a] <= scale * 0x1p-6f)) return false;
  // Unused lanes copy ray 0 with t_max = -inf: never a candidate that counts.
  for (int i = n; i < kPacketSize; ++i) {
    for (int a = 0; a < 3; ++a) {
      p.o[a][i] = p.o[a][0];
      p.inv[a][i] = p.inv[a][0];
    }
    p.sx[i] = p.sx[0];
    p.sy[i] = p.sy[0];
    p.sz[i] = p.sz[0];
    p.ray_t_min[i] = p.ray_t_min[0];
    p.ray_t_max[i] = p.ray_t_max[0];
    p.t_max[i] = -std::numeric_limits<float>::infinity();
  }
  p.limit = *std::max_element(p.t_max, p.t_max + n);
  return true;
}

#if defined(PROX_SIMD_AVX2)
/// make_packet for eight rays, in 8-lane AVX2 (lane i: ray i), and the same
/// packet: every per-ray field (origins, shears, 1 / d_kz, t ranges) has the
/// scalar set-up's bits, since each lane runs the same IEEE operations
/// (normalize_ray's power-of-two scaling, the dominant axis with its first-max
/// rule, the shear, RayQuery's inverses from bvh::slab_inverse); the
/// packet-wide bounds (near / far origins, inverse intervals, t_min, limit)
/// have its values, only the
/// sign of a zero may differ where lanes tie, and the node test only
/// subtracts and compares them (a zero key of either sign orders the same).
/// Test: Packets.SimdSetUpEqualsScalar. Rays of unusual magnitude (a direction
/// component of 2^126 or more, or a subnormal largest one), where the scalar
/// scaling takes ldexp, go to make_packet itself. The rays' WatertightRay
/// objects are made on first use (RayPacket::ray). Before, the set-up was
/// about half of a primary ray's instructions (seven divisions and about 350
/// instructions a ray).
inline bool make_packet8(const Ray<float>* rays, float scale, RayPacket& p) {
  static_assert(sizeof(Ray<float>) == 8 * sizeof(float) && alignof(Ray<float>) == alignof(float),
                "Ray<float> is eight floats: origin, direction, t_min, t_max");
  const float* f = reinterpret_cast<const float*>(rays);
  __m256 r[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(f + 8 * i);
  // 8 x 8 transpose: c[k] lane i = field k of ray i.
  __m256 t[8], u[8], c[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int h = 0; h < 8; h += 4) {
    u[h + 0] = _mm256_shuffle_ps(t[h], t[h + 2], 0x44);
    u[h + 1] = _mm256_shuffle_ps(t[h], t[h + 2], 0xEE);
    u[h + 2] = _mm256_shuffle_ps(t[h + 1], t[h + 3], 0x44);
    u[h + 3] = _mm256_shuffle_ps(t[h + 1], t[h + 3], 0xEE);
  }
  for (int k = 0; k < 4; ++k) {
    c[k] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x20);
    c[k + 4] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x31);
  }
  const __m256* o = c;      // origin x, y, z
  const __m256* d = c + 3;  // direction x, y, z
  const __m256 tmin = c[6], tmax = c[7];
  const __m256 sign = _mm256_set1_ps(-0.0f);
  auto abs8 = [&](__m256 x) { return _mm256_andnot_ps(sign, x); };
  auto all = [](__m256 m) { return _mm256_movemask_ps(m) == 0xff; };
  // ray_is_valid on every lane: origin within CoordinateRange, direction
  // finite and not zero, t range not NaN and not empty (ordered compares:
  // NaN fails each).
  const __m256 range = _mm256_set1_ps(CoordinateRange<float>::max_abs);
  const __m256 top = _mm256_set1_ps(std::numeric_limits<float>::max());
  __m256 ok = _mm256_cmp_ps(tmin, tmax, _CMP_LE_OQ);
  __m256 a[3];
  for (int k = 0; k < 3; ++k) {
    ok = _mm256_and_ps(ok, _mm256_cmp_ps(abs8(o[k]), range, _CMP_LE_OQ));
    a[k] = abs8(d[k]);
    ok = _mm256_and_ps(ok, _mm256_cmp_ps(a[k], top, _CMP_LE_OQ));
  }
  const __m256 m = _mm256_max_ps(a[0], _mm256_max_ps(a[1], a[2]));
  ok = _mm256_and_ps(ok, _mm256_cmp_ps(m, _mm256_setzero_ps(), _CMP_GT_OQ));
  if (!all(ok)) return false;  // an invalid ray: the run goes ray by ray
  // normalize_ray: exp from m's bits, m in [2^(exp-1), 2^exp); the scalar
  // path multiplies by 2^-exp and 2^exp (times_pow2) while both are normal
  // floats, i.e. exp in [-126, 126]: biased exponent in [1, 252].
  const __m256i biased = _mm256_srli_epi32(_mm256_castps_si256(m), 23);
  if (_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(
          _mm256_cmpgt_epi32(_mm256_set1_epi32(1), biased),
          _mm256_cmpgt_epi32(biased, _mm256_set1_epi32(252))))) != 0)
    return make_packet(rays, kPacketSize, scale, p);
  // 2^-exp = 2^(126 - biased), 2^exp = 2^(biased - 126).
  const __m256 down = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(253), biased), 23));
  const __m256 up = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(biased, _mm256_set1_epi32(1)), 23));
  __m256 dn[3], an[3];
  for (int k = 0; k < 3; ++k) {
    dn[k] = _mm256_mul_ps(d[k], down);
    an[k] = abs8(dn[k]);
  }
  const __m256 t_lo = _mm256_mul_ps(tmin, up);
  const __m256 t_hi = _mm256_mul_ps(_mm256_min_ps(tmax, top), up);
  // The dominant axis (first largest |d|, as WatertightRay::set), the same on
  // every lane, and every direction sign the same on every lane.
  const __m256 over0 = _mm256_cmp_ps(an[1], an[0], _CMP_GT_OQ);
  const __m256 best = _mm256_blendv_ps(an[0], an[1], over0);
  const int m2 = _mm256_movemask_ps(_mm256_cmp_ps(an[2], best, _CMP_GT_OQ));
  const int m1 = _mm256_movemask_ps(over0);
  int kz;
  if (m2 == 0xff) kz = 2;
  else if (m2 == 0 && m1 == 0xff) kz = 1;
  else if (m2 == 0 && m1 == 0) kz = 0;
  else return false;
  int neg[3];
  for (int k = 0; k < 3; ++k) {
    const int s = _mm256_movemask_ps(dn[k]);
    if (s != 0 && s != 0xff) return false;
    neg[k] = s != 0;
  }
  const int next = kz == 2 ? 0 : kz + 1;
  const int after = next == 2 ? 0 : next + 1;
  const int kx = neg[kz] ? after : next, ky = neg[kz] ? next : after;
  p.n = kPacketSize;
  p.src = rays;
  p.ready = 0;
  p.kx = kx;
  p.ky = ky;
  p.kz = kz;
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 sz = _mm256_div_ps(one, dn[kz]);
  const __m256 sx = _mm256_mul_ps(dn[kx], sz), sy = _mm256_mul_ps(dn[ky], sz);
  auto hmin = [](__m256 x) { return simd::hmin8(simd::F8{x}); };
  auto hmax = [](__m256 x) { return simd::hmax8(simd::F8{x}); };
  if (!(hmax(sx) - hmin(sx) <= 0.0625f && hmax(sy) - hmin(sy) <= 0.0625f)) return false;
  for (int k = 0; k < 3; ++k) {
    const float lo = hmin(o[k]), hi = hmax(o[k]);
    if (!(hi - lo <= scale * 0x1p-6f)) return false;
    // RayQuery: bvh::slab_inverse, 1 / d (d = +-0 gives +-inf); a lane
    // where d is not 0 but 1 / d overflows (the slab test would ignore the
    // axis) declines the packet, as make_packet does. The origin is its own
    // float bound.
    const __m256 inv = k == kz ? sz : _mm256_div_ps(one, dn[k]);
    if (_mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(abs8(inv), top, _CMP_GT_OQ),
                                         _mm256_cmp_ps(dn[k], _mm256_setzero_ps(), _CMP_NEQ_OQ))) != 0)
      return false;
    p.inv_lo[k] = hmin(inv);
    p.inv_hi[k] = hmax(inv);
    const int slot = k == kx ? 0 : k == ky ? 1 : 2;
    _mm256_store_ps(p.inv[slot], inv);
    // The near plane's t is smallest with the origin farthest along the
    // direction, the far plane's t largest with it farthest back.
    p.on[k] = neg[k] ? lo : hi;
    p.of[k] = neg[k] ? hi : lo;
    const unsigned lo_off = unsigned(offsetof(bvh::Node8, lo)) + 32u * unsigned(k);
    const unsigned hi_off = unsigned(offsetof(bvh::Node8, hi)) + 32u * unsigned(k);
    p.near_off[k] = neg[k] ? hi_off : lo_off;
    p.far_off[k] = neg[k] ? lo_off : hi_off;
  }
  _mm256_store_ps(p.o[0], o[kx]);
  _mm256_store_ps(p.o[1], o[ky]);
  _mm256_store_ps(p.o[2], o[kz]);
  _mm256_store_ps(p.sx, sx);
  _mm256_store_ps(p.sy, sy);
  _mm256_store_ps(p.sz, sz);
  _mm256_store_ps(p.t_max, t_hi);
  _mm256_store_ps(p.ray_t_min, t_lo);
  _mm256_store_ps(p.ray_t_max, t_hi);
  p.t_min = hmin(t_lo);
  p.limit = hmax(t_hi);
  return true;
}
#endif

/// The packet of rays[0..n) (n <= 8), or false: runs of eight in AVX2 lanes
/// (make_packet8), after a first look at two rays (random rays fail there);
/// shorter runs, and the SSE2 path, through make_packet.
inline bool packet_of(const Ray<float>* rays, int n, float scale, RayPacket& p) {
#if defined(PROX_SIMD_AVX2)
  if (n == kPacketSize) return maybe_coherent(rays, 2) && make_packet8(rays, scale, p);
#endif
  return maybe_coherent(rays, n) && make_packet(rays, n, scale, p);
}

#if defined(PROX_SIMD_SSE2)
/// The lanes (of `lanes`) whose ray may enter the box whose near and far
/// planes (per permuted axis kx, ky, kz, picked by the packet's shared
/// direction signs, as near_off / far_off pick them) are near[j] and far[j],
/// within its own t range (up to its nearest hit so far): each lane's ray with
/// the single-ray node test's arithmetic (bvh::ray_boxes8: the planes' t from
/// the inverse, widened by 2^-20 of |t|, then clamped to the ray's range).
/// That test never culls a box holding a triangle the kernel hits (the node
/// traversal relies on it), so a lane left out has no hit in the box. Why:
/// the packet enters a box when any ray may (an interval test over the
/// packet), and on a fine mesh most of its rays then pass beside a leaf.
PROX_FORCE_INLINE unsigned packet_lanes_in_box(const RayPacket& p, const float (&near)[3],
                                               const float (&far)[3], unsigned lanes) {
  using namespace simd;
  F8 tn = set8(-std::numeric_limits<float>::infinity());
  F8 tf = set8(std::numeric_limits<float>::infinity());
  for (int j = 0; j < 3; ++j) {
    const F8 o = load8(p.o[j]), inv = load8(p.inv[j]);
    tn = max8(mul8(sub8(set8(near[j]), o), inv), tn);
    tf = min8(mul8(sub8(set8(far[j]), o), inv), tf);
  }
  return bvh::slab_enter8(tn, tf, load8(p.ray_t_min), load8(p.t_max)) & lanes;
}

#endif

/// Node test of a packet: key = the packet's entry t lower bound; a box is
/// entered when some ray of the packet may enter it (see the file comment).
struct PacketTest {
  /// Unused slots (empty boxes) never pass (see bvh::entered_children): the
  /// products with the interval's ends are +inf / -inf as in ray_boxes8.
  static constexpr bool kCullsEmptyBoxes = true;
  RayPacket& p;
  float limit() const { return p.limit; }
  PROX_FORCE_INLINE unsigned children(const bvh::Node8& node, float* key) {
    using namespace simd;
    const char* base = reinterpret_cast<const char*>(&node);
    F8 tn = set8(-std::numeric_limits<float>::infinity());
    F8 tf = set8(std::numeric_limits<float>::infinity());
    for (int a = 0; a < 3; ++a) {
      const F8 dn = sub8(load8(reinterpret_cast<const float*>(base + p.near_off[a])), set8(p.on[a]));
      const F8 df = sub8(load8(reinterpret_cast<const float*>(base + p.far_off[a])), set8(p.of[a]));
      const F8 il = set8(p.inv_lo[a]), ih = set8(p.inv_hi[a]);
      // t = d * inv over an interval of inv of one sign: the extremes are at its ends.
      tn = max8(min8(mul8(dn, il), mul8(dn, ih)), tn);
      tf = min8(max8(mul8(df, il), mul8(df, ih)), tf);
    }
    unsigned mask = bvh::slab_enter8(tn, tf, set8(p.t_min), set8(p.limit), key);
#if defined(PROX_SIMD_SSE2)
    // A leaf child: which lanes' rays may enter its box (packet_lanes_in_box,
    // from the node's box, which holds the leaf's triangles); none, and the
    // leaf is not entered; else the lanes ride to the leaf in its stack
    // entry's count (count_tag, bits 8 and up).
    const int axis[3] = {p.kx, p.ky, p.kz};
    const unsigned lanes = (1u << p.n) - 1u;
    for (unsigned m = mask; m != 0; m &= m - 1) {
      const int c = std::countr_zero(m);
      tags[c] = 0;
      if (node.count[c] == 0) continue;
      float near[3], far[3];
      for (int j = 0; j < 3; ++j) {
        near[j] = reinterpret_cast<const float*>(base + p.near_off[axis[j]])[c];
        far[j] = reinterpret_cast<const float*>(base + p.far_off[axis[j]])[c];
      }
      const unsigned active = packet_lanes_in_box(p, near, far, lanes);
      if (active == 0) mask &= ~(1u << c);
      tags[c] = active << kLaneShift;
    }
#endif
    return mask;
  }
#if defined(PROX_SIMD_SSE2)
  static constexpr int kLaneShift = 8;
  static_assert(bvh::kMaxLeafSize < (1u << kLaneShift), "a leaf's count must fit below the lanes");
  std::uint32_t tags[8] = {};
  std::uint32_t count_tag(int c) const { return tags[c]; }
#endif
};

#if defined(PROX_SIMD_SSE2)
/// First hits of a packet's rays into out[0..p.n).
PROX_FORCE_INLINE void first_hits_packet(const FlatIndex<float>& x, RayPacket& p,
                                         MeshRayHit<float>* out) {
  using namespace simd;
  MeshRayHit<float> best[kPacketSize];
  const F8 o0 = load8(p.o[0]), o1 = load8(p.o[1]), o2 = load8(p.o[2]);
  const F8 vsx = load8(p.sx), vsy = load8(p.sy);
  struct PacketRays {
    const RayPacket& p;
    F8 sz() const { return load8(p.sz); }
    F8 t_min() const { return load8(p.ray_t_min); }
    F8 t_max() const { return load8(p.ray_t_max); }
  };
  PacketTest test{p};
  // Ray i's hit h on slot s, if nearer than its best (offer_hit's rule).
  auto take = [&](int i, std::uint32_t s, const RayTriangleHit<float>& h,
                  const WatertightRay<float>& wr) {
    if (h.hit && offer_hit(best[i], h, x.prims[s])) {
      const float t = bvh::float_up(wr.scaled_t(h.t));
      if (t < p.t_max[i]) p.t_max[i] = t;
    }
  };
  bvh::traverse(
      x.nodes, test,
      [&](std::uint32_t b, std::uint32_t count) {
        // The lanes whose rays may enter the leaf's box, found at its parent
        // (PacketTest::children; never empty).
        const std::uint32_t n = count & ((1u << PacketTest::kLaneShift) - 1u);
        const unsigned active = count >> PacketTest::kLaneShift;
        // Ray by ray (the single-ray filter: one ray, eight triangles a call)
        // when that takes fewer eight-lane tests than triangle by triangle
        // (one triangle, the packet's eight rays a call).
        if (unsigned(std::popcount(active)) * ((n + 7) / 8) < n) {
          for (unsigned m = active; m != 0; m &= m - 1) {
            const int i = std::countr_zero(m);
            ray_leaf_filter(
                x, p.lane_ray(i), b, n,
                [&](std::uint32_t s) {
                  const WatertightRay<float>& wr = p.ray(i);
                  take(i, s, slot_watertight(x, wr, s), wr);
                  return false;
                },
                [&](std::uint32_t s, const LeafDecision& d, unsigned k) {
                  const WatertightRay<float>& wr = p.ray(i);
                  take(i, s, leaf_hit(d, k, wr), wr);
                  return false;
                });
          }
        } else {
          for (std::uint32_t s = b; s < b + n; ++s) {
            const LeafPack<float>& pk = x.pack_of(s);
            const unsigned lane = FlatIndex<float>::lane_of(s);
            F8 shx[3], shy[3], depth[3];
            for (int k = 0; k < 3; ++k) {
              const F8 ax = sub8(set8(pk.c[k][p.kx][lane]), o0);
              const F8 ay = sub8(set8(pk.c[k][p.ky][lane]), o1);
              const F8 az = sub8(set8(pk.c[k][p.kz][lane]), o2);
              shx[k] = sub8(ax, mul8(vsx, az));
              shy[k] = sub8(ay, mul8(vsy, az));
              depth[k] = az;
            }
            const F8 U = sub8(mul8(shx[2], shy[1]), mul8(shy[2], shx[1]));
            const F8 V = sub8(mul8(shx[0], shy[2]), mul8(shy[0], shx[2]));
            const F8 W = sub8(mul8(shx[1], shy[0]), mul8(shy[1], shx[0]));
            // Plain hits and misses decided in SIMD, the rest by the kernel
            // (leaf_ray_simd.hpp: the same bits either way).
            LeafDecision d;
            decide_lanes(U, V, W, edge_bound8(shx, shy, depth), depth, PacketRays{p}, active, d);
            for (unsigned all = d.kernel | d.hit; all != 0; all &= all - 1) {
              const int i = std::countr_zero(all);
              const WatertightRay<float>& wr = p.ray(i);
              take(i, s,
                   d.hit >> i & 1u ? leaf_hit(d, unsigned(i), wr) : slot_watertight(x, wr, s),
                   wr);
            }
          }
        }
        p.limit = hmax8(load8(p.t_max));
        return false;
      },
      PrefetchPacks<float>{x.packs.data(), x.prims.data()});
  for (int i = 0; i < p.n; ++i) out[i] = best[i];
}
#endif  // PROX_SIMD_SSE2

}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::detail
