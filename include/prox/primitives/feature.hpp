// prox/primitives/feature.hpp — which part of a triangle a closest point lies on.
//
// The seven Voronoi regions of a triangle (a, b, c) = corners (0, 1, 2): three
// vertices, three edges, the face. Degenerate triangles report the feature of
// the segment or point they collapse to, named by the corners that realise it.
#pragma once

#include <cstdint>

namespace prox {

enum class Feature : std::uint8_t {
  v0,    ///< corner a
  v1,    ///< corner b
  v2,    ///< corner c
  e01,   ///< edge ab, open segment
  e12,   ///< edge bc, open segment
  e20,   ///< edge ca, open segment
  face,  ///< interior of the triangle
};

/// "v0", "v1", "v2", "e01", "e12", "e20", "face" — the names the CLI prints.
constexpr const char* to_string(Feature f) {
  switch (f) {
    case Feature::v0: return "v0";
    case Feature::v1: return "v1";
    case Feature::v2: return "v2";
    case Feature::e01: return "e01";
    case Feature::e12: return "e12";
    case Feature::e20: return "e20";
    case Feature::face: return "face";
  }
  return "?";
}

}  // namespace prox
