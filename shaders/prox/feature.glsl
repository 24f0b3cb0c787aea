// prox/feature.glsl — the seven regions of a triangle (a, b, c) = corners 0, 1, 2,
// with the numbers of prox::Feature (prox/primitives/feature.hpp).
#ifndef PROX_FEATURE_GLSL
#define PROX_FEATURE_GLSL
const uint PROX_FEATURE_V0 = 0u;    // corner a
const uint PROX_FEATURE_V1 = 1u;    // corner b
const uint PROX_FEATURE_V2 = 2u;    // corner c
const uint PROX_FEATURE_E01 = 3u;   // edge ab, open
const uint PROX_FEATURE_E12 = 4u;   // edge bc, open
const uint PROX_FEATURE_E20 = 5u;   // edge ca, open
const uint PROX_FEATURE_FACE = 6u;  // interior
#endif
