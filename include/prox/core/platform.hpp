// prox/core/platform.hpp — the one place that looks at the compiler and the CPU.
//
// Every instruction-set macro and intrinsic include of prox lives here; other
// headers test only the PROX_ macros below. No public struct changes layout
// with any of them (the flat index layout is the same on every path).
//
// - PROX_X86_64: x86-64 (SSE2 is part of the architecture).
// - PROX_SIMD_SSE2: 128-bit SIMD code paths are compiled (x86-64, unless
//   PROX_FORCE_SCALAR is defined: the tests use that to check the scalar twins).
// - PROX_SIMD_AVX2: this translation unit is compiled for AVX2 + FMA + BMI2.
// - PROX_SIMD_AVX512: this translation unit is compiled for AVX-512 F/VL/DQ/BW.
// - PROX_ISA_NAMESPACE: the name of the inline namespace that holds code whose
//   machine code depends on the ISA (scalar, sse2, avx2, avx512), so that the
//   copies built for several ISAs in one binary never share a symbol.
// - PROX_FORCE_INLINE, PROX_FLATTEN: inlining control for the hot loops.
// - PROX_TARGET_ATTRIBUTES: x86-64 GCC or Clang, which can compile one function
//   for a wider ISA than its translation unit (__attribute__((target(...)))).
// - PROX_COMPILER_TARGET: what this translation unit was compiled for, in
//   words ("AVX-512", "AVX2", "SSE4.2", "x86-64 baseline (SSE2)", or "not
//   x86-64"): the benchmark's header prints it beside the engine's run-time path.
#pragma once

#if defined(__x86_64__) || defined(_M_X64)
#define PROX_X86_64 1
#include <immintrin.h>
#endif

#if defined(PROX_X86_64) && !defined(PROX_FORCE_SCALAR)
#define PROX_SIMD_SSE2 1
#if defined(__AVX2__) && defined(__FMA__) && defined(__BMI2__)
#define PROX_SIMD_AVX2 1
#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512DQ__) && \
    defined(__AVX512BW__)
#define PROX_SIMD_AVX512 1
#endif
#endif
#endif

#if defined(PROX_X86_64) && (defined(__GNUC__) || defined(__clang__))
#define PROX_TARGET_ATTRIBUTES 1
#endif

#if !defined(PROX_X86_64)
#define PROX_COMPILER_TARGET "not x86-64"
#elif defined(__AVX512F__)
#define PROX_COMPILER_TARGET "AVX-512"
#elif defined(__AVX2__)
#define PROX_COMPILER_TARGET "AVX2"
#elif defined(__SSE4_2__)
#define PROX_COMPILER_TARGET "SSE4.2"
#else
#define PROX_COMPILER_TARGET "x86-64 baseline (SSE2)"
#endif

#if defined(PROX_SIMD_AVX512)
#define PROX_ISA_NAMESPACE avx512
#elif defined(PROX_SIMD_AVX2)
#define PROX_ISA_NAMESPACE avx2
#elif defined(PROX_SIMD_SSE2)
#define PROX_ISA_NAMESPACE sse2
#else
#define PROX_ISA_NAMESPACE scalar
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PROX_FORCE_INLINE inline __attribute__((always_inline))
#define PROX_FLATTEN __attribute__((flatten))
#else
#define PROX_FORCE_INLINE inline
#define PROX_FLATTEN
#endif

namespace prox {

/// Hints the cache line at p into L1 (no-op without SSE). An asm statement
/// under GCC and Clang, not _mm_prefetch or __builtin_prefetch: GCC 12 drops
/// those in the callers that matter here (an _mm_prefetch reached from an
/// always_inline function through a plain inline one; a __builtin_prefetch in
/// a lambda a batch loop calls), so until 2026-12-04 the traversal's node and
/// leaf prefetches were compiled out: not one prefetcht0 in the engine's
/// objects. A volatile asm is never removed.
PROX_FORCE_INLINE void prefetch_l1(const void* p) {
#if defined(PROX_SIMD_SSE2) && (defined(__GNUC__) || defined(__clang__))
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#elif defined(PROX_SIMD_SSE2)
  _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0);
#else
  (void)p;
#endif
}

}  // namespace prox
