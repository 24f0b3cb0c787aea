// prox/planar.hpp — every header-only 2D query in prox: shapes, closest_on /
// closest_in / closest(p, shape, Part), contains, distance, signed_distance,
// validate. The scene file parser and distance-field renderer are the
// compiled module prox::planar (prox/planar/scene.hpp, prox/planar/field.hpp).
#pragma once

#include "prox/planar/closest.hpp"
#include "prox/planar/closest_box.hpp"
#include "prox/planar/closest_capsule.hpp"
#include "prox/planar/closest_circle.hpp"
#include "prox/planar/closest_polygon.hpp"
#include "prox/planar/closest_segment.hpp"
#include "prox/planar/orient.hpp"
#include "prox/planar/shapes.hpp"
#include "prox/planar/validate.hpp"
