// prox/common.glsl — scalar helpers shared by prox's GLSL kernels.
//
// prox's C++ side compiles with -ffp-contract=off: every product and sum is
// rounded on its own. A GPU compiler may fuse a*b+c into one fma, which rounds
// once and so changes answers; every helper here and every kernel writes its
// results into `precise` variables, which forbids that fusion (SPIR-V
// NoContraction). dot/cross are spelled out in the C++ order (Vec's dot is
// ((x*x' + y*y') + z*z')), never the built-ins, whose order is the driver's.
//
// Division: SPIR-V only promises 2.5 ulp for a float OpFDiv (and some drivers
// use a reciprocal). prox_div divides in double and rounds to float: the
// double quotient is within a few double ulps of the exact one, and the exact
// quotient of two floats is never that close to a float rounding boundary,
// so the result is the correctly rounded float quotient, as in C++.
// Needs 64-bit floats (Vulkan feature shaderFloat64); every prox kernel does.
// Denormals: devices that flush float denormals (lavapipe does; Vulkan leaves
// it to the device unless shaderDenormPreserveFloat32) may differ from C++ on
// inputs or results below 2^-126; prox's tests state this where it shows.
#ifndef PROX_COMMON_GLSL
#define PROX_COMMON_GLSL

#extension GL_ARB_gpu_shader_fp64 : require

const uint PROX_INVALID = 0xffffffffu;

float prox_nan() { return uintBitsToFloat(0x7fc00000u); }
float prox_inf() { return uintBitsToFloat(0x7f800000u); }
const float PROX_FLT_MAX = 3.40282347e38;

/// Finite (not NaN, not +-inf), decided on the bits so no fast-math can fold it.
bool prox_finite(float x) { return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u; }
bool prox_finite3(vec3 v) { return prox_finite(v.x) && prox_finite(v.y) && prox_finite(v.z); }
bool prox_isnan(float x) {
  return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u;
}


float prox_dot(vec3 a, vec3 b) {
  precise float s = a.x * b.x;
  s += a.y * b.y;
  s += a.z * b.z;
  return s;
}
double prox_dot_d(dvec3 a, dvec3 b) {
  precise double s = a.x * b.x;
  s += a.y * b.y;
  s += a.z * b.z;
  return s;
}

vec3 prox_cross(vec3 a, vec3 b) {
  precise vec3 r;
  r.x = a.y * b.z - a.z * b.y;
  r.y = a.z * b.x - a.x * b.z;
  r.z = a.x * b.y - a.y * b.x;
  return r;
}
dvec3 prox_cross_d(dvec3 a, dvec3 b) {
  precise dvec3 r;
  r.x = a.y * b.z - a.z * b.y;
  r.y = a.z * b.x - a.x * b.z;
  r.z = a.x * b.y - a.y * b.x;
  return r;
}

/// |a - b|^2 summed as in C++ (0 + dx^2, then + dy^2, + dz^2).
float prox_sq_distance(vec3 a, vec3 b) {
  precise vec3 d = a - b;
  precise float s = 0.0;
  s += d.x * d.x;
  s += d.y * d.y;
  s += d.z * d.z;
  return s;
}

/// a + t (b - a), per component.
vec3 prox_lerp(vec3 a, vec3 b, float t) {
  precise vec3 r = a + t * (b - a);
  return r;
}
double prox_sq_distance_d(dvec3 a, dvec3 b) {
  precise dvec3 d = a - b;
  precise double s = 0.0LF;
  s += d.x * d.x;
  s += d.y * d.y;
  s += d.z * d.z;
  return s;
}
dvec3 prox_lerp_d(dvec3 a, dvec3 b, double t) {
  precise dvec3 r = a + t * (b - a);
  return r;
}

/// A double rounded to float (to nearest, ties to even) as C++'s float(x),
/// subnormal results included: below float's smallest normal the bits are
/// built from |x| 2^149 rounded to an integer (exact scaling), since a device
/// may flush a converted subnormal to zero; above float's range, +-inf.
const double PROX_FLT_MIN_D = 1.0LF / (4294967296.0LF * 4294967296.0LF * 4294967296.0LF *
                                       4294967296.0LF) * 4.0LF;  // 2^-126
const double PROX_TWO_149 = 4294967296.0LF * 4294967296.0LF * 4294967296.0LF * 4294967296.0LF *
                            2097152.0LF;                         // 2^149
const double PROX_FLT_OVERFLOW_D = 33554431.0LF * 4294967296.0LF * 4294967296.0LF *
                                   4294967296.0LF * 128.0LF;  // 2^128 - 2^103: rounds to inf
float prox_to_float(double x) {
  precise double ax = abs(x);
  if (!(ax < PROX_FLT_MIN_D)) {  // normal, +-inf, NaN
    if (ax >= PROX_FLT_OVERFLOW_D && ax == ax)  // overflows (said here, not left to the device)
      return (unpackDouble2x32(x).y & 0x80000000u) != 0u ? -prox_inf() : prox_inf();
    return float(x);
  }
  // 0 .. 2^23 (2^23: the smallest normal), rounded to nearest even by the
  // double addition itself (+ 2^52 leaves no fraction bits): lavapipe's
  // roundEven(double) rounds some halves down.
  precise double y = ax * PROX_TWO_149;
  precise double m = (y + 4503599627370496.0LF) - 4503599627370496.0LF;
  uint bits = uint(m) | (unpackDouble2x32(x).y & 0x80000000u);
  return uintBitsToFloat(bits);
}
vec3 prox_to_float3(dvec3 v) {
  return vec3(prox_to_float(v.x), prox_to_float(v.y), prox_to_float(v.z));
}

float prox_div(float a, float b) {
  precise double q = double(a) / double(b);
  return prox_to_float(q);
}

/// 2^e as a double (e in [-1022, 1023]), from its bits.
double prox_pow2_d(int e) { return packDouble2x32(uvec2(0u, uint(e + 1023) << 20)); }
/// x 2^e rounded to float as C++'s std::ldexp (or x * 2^e when 2^e is a
/// normal float) rounds it: the exact product in double, rounded once.
float prox_times_pow2(float x, int e) {
  precise double y = double(x) * prox_pow2_d(e);
  return prox_to_float(y);
}

#endif
