// prox/prox.hpp — everything header-only in prox: core types, 3D kernels.
#pragma once

#include "prox/core/box.hpp"
#include "prox/core/ray.hpp"
#include "prox/core/scalar.hpp"
#include "prox/core/vec.hpp"
#include "prox/primitives/closest_point_triangle.hpp"
#include "prox/primitives/feature.hpp"
#include "prox/primitives/ray_triangle.hpp"
