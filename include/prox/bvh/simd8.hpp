// prox/bvh/simd8.hpp — eight float lanes, the one SIMD loader of the BVH.
//
// F8 is one __m256 under AVX2 / AVX-512 (this translation unit's ISA, see
// prox/core/platform.hpp), two __m128 under SSE2, eight floats otherwise.
// Every operation has the same IEEE result on every representation, including
// NaN: max_(a, b) and min_(a, b) return b when either is NaN (maxps/minps),
// compares are false on NaN. So a node test gives the same lanes on every ISA.
// (One exception, named as such: mul_add8_bound, fused where the ISA has FMA.)
// Everything here is in the ISA's inline namespace (no shared symbols).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "prox/core/platform.hpp"

namespace prox::simd {
inline namespace PROX_ISA_NAMESPACE {

struct F8 {
#if defined(PROX_SIMD_AVX2)
  __m256 v;
#elif defined(PROX_SIMD_SSE2)
  __m128 a, b;  // lanes 0..3, 4..7
#else
  float x[8];
#endif
};

/// Loads 8 floats from 32-byte aligned memory.
PROX_FORCE_INLINE F8 load8(const float* p) {
#if defined(PROX_SIMD_AVX2)
  return F8{_mm256_load_ps(p)};
#elif defined(PROX_SIMD_SSE2)
  return F8{_mm_load_ps(p), _mm_load_ps(p + 4)};
#else
  F8 r;
  for (int k = 0; k < 8; ++k) r.x[k] = p[k];
  return r;
#endif
}

/// Loads lanes 0..3 from lo and lanes 4..7 from hi (each 16-byte aligned):
/// two structure-of-arrays blocks of four side by side, one coordinate of
/// eight items (the ray leaf filter's two LeafPacks at once).
PROX_FORCE_INLINE F8 load8_halves(const float* lo, const float* hi) {
#if defined(PROX_SIMD_AVX2)
  return F8{_mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(lo)), _mm_load_ps(hi), 1)};
#elif defined(PROX_SIMD_SSE2)
  return F8{_mm_load_ps(lo), _mm_load_ps(hi)};
#else
  F8 r;
  for (int k = 0; k < 4; ++k) r.x[k] = lo[k], r.x[k + 4] = hi[k];
  return r;
#endif
}

PROX_FORCE_INLINE void store8(float* p, const F8& f) {
#if defined(PROX_SIMD_AVX2)
  _mm256_store_ps(p, f.v);
#elif defined(PROX_SIMD_SSE2)
  _mm_store_ps(p, f.a);
  _mm_store_ps(p + 4, f.b);
#else
  for (int k = 0; k < 8; ++k) p[k] = f.x[k];
#endif
}

PROX_FORCE_INLINE F8 set8(float s) {
#if defined(PROX_SIMD_AVX2)
  return F8{_mm256_set1_ps(s)};
#elif defined(PROX_SIMD_SSE2)
  return F8{_mm_set1_ps(s), _mm_set1_ps(s)};
#else
  F8 r;
  for (float& x : r.x) x = s;
  return r;
#endif
}

#if defined(PROX_SIMD_AVX2)
#define PROX_F8_BINARY(name, avx, sse, expr) \
  PROX_FORCE_INLINE F8 name(const F8& l, const F8& r) { return F8{avx(l.v, r.v)}; }
#elif defined(PROX_SIMD_SSE2)
#define PROX_F8_BINARY(name, avx, sse, expr) \
  PROX_FORCE_INLINE F8 name(const F8& l, const F8& r) { return F8{sse(l.a, r.a), sse(l.b, r.b)}; }
#else
#define PROX_F8_BINARY(name, avx, sse, expr)                                  \
  PROX_FORCE_INLINE F8 name(const F8& l, const F8& r) {                       \
    F8 o;                                                                     \
    for (int k = 0; k < 8; ++k) {                                             \
      const float a = l.x[k], b = r.x[k];                                     \
      o.x[k] = (expr);                                                        \
    }                                                                         \
    return o;                                                                 \
  }
#endif
PROX_F8_BINARY(add8, _mm256_add_ps, _mm_add_ps, a + b)
PROX_F8_BINARY(sub8, _mm256_sub_ps, _mm_sub_ps, a - b)
PROX_F8_BINARY(mul8, _mm256_mul_ps, _mm_mul_ps, a * b)
PROX_F8_BINARY(div8, _mm256_div_ps, _mm_div_ps, a / b)
/// l > r ? l : r (r when either is NaN).
PROX_F8_BINARY(max8, _mm256_max_ps, _mm_max_ps, a > b ? a : b)
/// l < r ? l : r (r when either is NaN).
PROX_F8_BINARY(min8, _mm256_min_ps, _mm_min_ps, a < b ? a : b)
#undef PROX_F8_BINARY

/// a * b + c, fused (one rounding) where the ISA has FMA (the AVX2 and
/// AVX-512 paths), a product and a sum elsewhere: the one operation here whose
/// result differs by ISA. Only for bounds whose margins cover two roundings
/// (a filter's decisions may then differ by path, never an answer).
PROX_FORCE_INLINE F8 mul_add8_bound(const F8& a, const F8& b, const F8& c) {
#if defined(PROX_SIMD_AVX2)
  return F8{_mm256_fmadd_ps(a.v, b.v, c.v)};
#else
  return add8(mul8(a, b), c);
#endif
}

/// |f| (sign bit cleared).
PROX_FORCE_INLINE F8 abs8(const F8& f) {
#if defined(PROX_SIMD_AVX2)
  return F8{_mm256_and_ps(f.v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)))};
#elif defined(PROX_SIMD_SSE2)
  const __m128 m = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  return F8{_mm_and_ps(f.a, m), _mm_and_ps(f.b, m)};
#else
  F8 r;
  for (int k = 0; k < 8; ++k) r.x[k] = std::fabs(f.x[k]);
  return r;
#endif
}

/// Bit k set where l[k] <= r[k] (false on NaN).
PROX_FORCE_INLINE unsigned le_mask8(const F8& l, const F8& r) {
#if defined(PROX_SIMD_AVX2)
  return unsigned(_mm256_movemask_ps(_mm256_cmp_ps(l.v, r.v, _CMP_LE_OQ)));
#elif defined(PROX_SIMD_SSE2)
  return unsigned(_mm_movemask_ps(_mm_cmple_ps(l.a, r.a))) |
         (unsigned(_mm_movemask_ps(_mm_cmple_ps(l.b, r.b))) << 4);
#else
  unsigned m = 0;
  for (int k = 0; k < 8; ++k) m |= (l.x[k] <= r.x[k] ? 1u : 0u) << k;
  return m;
#endif
}

/// Lane masks (all ones where the compare holds, false on NaN) and their
/// logic, for filters that combine several compares before one movemask.
#if defined(PROX_SIMD_AVX2)
#define PROX_F8_CMP(name, pred, ssefn, op)                                         \
  PROX_FORCE_INLINE F8 name(const F8& l, const F8& r) {                           \
    return F8{_mm256_cmp_ps(l.v, r.v, pred)};                                     \
  }
#elif defined(PROX_SIMD_SSE2)
#define PROX_F8_CMP(name, pred, ssefn, op)                                         \
  PROX_FORCE_INLINE F8 name(const F8& l, const F8& r) {                           \
    return F8{ssefn(l.a, r.a), ssefn(l.b, r.b)};                                  \
  }
#else
#define PROX_F8_CMP(name, pred, ssefn, op)                                         \
  PROX_FORCE_INLINE F8 name(const F8& l, const F8& r) {                           \
    F8 o;                                                                         \
    for (int k = 0; k < 8; ++k) o.x[k] = std::bit_cast<float>(l.x[k] op r.x[k] ? ~0u : 0u); \
    return o;                                                                     \
  }
#endif
PROX_F8_CMP(lt8, _CMP_LT_OQ, _mm_cmplt_ps, <)
PROX_F8_CMP(gt8, _CMP_GT_OQ, _mm_cmpgt_ps, >)
PROX_F8_CMP(eq8, _CMP_EQ_OQ, _mm_cmpeq_ps, ==)
PROX_F8_CMP(le8, _CMP_LE_OQ, _mm_cmple_ps, <=)
#undef PROX_F8_CMP

#if defined(PROX_SIMD_AVX2)
#define PROX_F8_LOGIC(name, avx, sse, op)                                          \
  PROX_FORCE_INLINE F8 name(const F8& l, const F8& r) { return F8{avx(l.v, r.v)}; }
#elif defined(PROX_SIMD_SSE2)
#define PROX_F8_LOGIC(name, avx, sse, op)                                          \
  PROX_FORCE_INLINE F8 name(const F8& l, const F8& r) {                           \
    return F8{sse(l.a, r.a), sse(l.b, r.b)};                                      \
  }
#else
#define PROX_F8_LOGIC(name, avx, sse, op)                                          \
  PROX_FORCE_INLINE F8 name(const F8& l, const F8& r) {                           \
    F8 o;                                                                         \
    for (int k = 0; k < 8; ++k) {                                                 \
      const unsigned a = std::bit_cast<unsigned>(l.x[k]), b = std::bit_cast<unsigned>(r.x[k]); \
      o.x[k] = std::bit_cast<float>(op);                                          \
    }                                                                             \
    return o;                                                                     \
  }
#endif
PROX_F8_LOGIC(or8, _mm256_or_ps, _mm_or_ps, a | b)
PROX_F8_LOGIC(and8, _mm256_and_ps, _mm_and_ps, a & b)
/// ~l & r.
PROX_F8_LOGIC(andnot8, _mm256_andnot_ps, _mm_andnot_ps, ~a & b)
#undef PROX_F8_LOGIC

/// mask ? a : b lane by lane (mask: a lane mask of the compares above).
PROX_FORCE_INLINE F8 select8(const F8& mask, const F8& a, const F8& b) {
#if defined(PROX_SIMD_AVX2)
  return F8{_mm256_blendv_ps(b.v, a.v, mask.v)};
#else
  return or8(and8(mask, a), andnot8(mask, b));
#endif
}

/// Bit k set where lane k's sign bit is set (a lane mask's lanes).
PROX_FORCE_INLINE unsigned movemask8(const F8& f) {
#if defined(PROX_SIMD_AVX2)
  return unsigned(_mm256_movemask_ps(f.v));
#elif defined(PROX_SIMD_SSE2)
  return unsigned(_mm_movemask_ps(f.a)) | (unsigned(_mm_movemask_ps(f.b)) << 4);
#else
  unsigned m = 0;
  for (int k = 0; k < 8; ++k) m |= (std::signbit(f.x[k]) ? 1u : 0u) << k;
  return m;
#endif
}

/// A horizontal reduction of the eight lanes by a min or max (Max: max):
/// the one body of hmax8 and hmin8.
#if defined(PROX_SIMD_SSE2)
template <bool Max>
PROX_FORCE_INLINE __m128 minmax4(__m128 x, __m128 y) {
  if constexpr (Max) return _mm_max_ps(x, y);
  else return _mm_min_ps(x, y);
}
#endif
template <bool Max>
PROX_FORCE_INLINE float hreduce8(const F8& f) {
#if defined(PROX_SIMD_SSE2)
  constexpr auto op = minmax4<Max>;
#if defined(PROX_SIMD_AVX2)
  __m128 m = op(_mm256_castps256_ps128(f.v), _mm256_extractf128_ps(f.v, 1));
#else
  __m128 m = op(f.a, f.b);
#endif
  m = op(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
  m = op(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtss_f32(m);
#else
  float m = f.x[0];
  for (int k = 1; k < 8; ++k) m = (Max ? f.x[k] > m : f.x[k] < m) ? f.x[k] : m;
  return m;
#endif
}

/// The largest lane (lanes are never NaN where this is used).
PROX_FORCE_INLINE float hmax8(const F8& f) { return hreduce8<true>(f); }

/// The smallest lane (lanes are never NaN where this is used).
PROX_FORCE_INLINE float hmin8(const F8& f) { return hreduce8<false>(f); }

/// Bit k set where words[k] != 0xffffffff (8 u32, 32-byte aligned).
PROX_FORCE_INLINE unsigned valid_mask8(const std::uint32_t* words) {
#if defined(PROX_SIMD_AVX2)
  const __m256i w = _mm256_load_si256(reinterpret_cast<const __m256i*>(words));
  return ~unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(
             _mm256_cmpeq_epi32(w, _mm256_set1_epi32(-1))))) & 0xffu;
#elif defined(PROX_SIMD_SSE2)
  const __m128i m1 = _mm_set1_epi32(-1);
  const __m128i a = _mm_load_si128(reinterpret_cast<const __m128i*>(words));
  const __m128i b = _mm_load_si128(reinterpret_cast<const __m128i*>(words + 4));
  const unsigned inv = unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a, m1)))) |
                       (unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(b, m1)))) << 4);
  return ~inv & 0xffu;
#else
  unsigned m = 0;
  for (int k = 0; k < 8; ++k) m |= (words[k] != 0xffffffffu ? 1u : 0u) << k;
  return m;
#endif
}

}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::simd
