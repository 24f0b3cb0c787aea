// src/mesh/kernel_instances.cpp — the one (baseline ISA) copy of the kernel
// instances declared in kernel_instances.hpp.
#include "kernel_instances.hpp"

namespace prox {
PROX_KERNEL_INSTANCES(, float)
PROX_KERNEL_INSTANCES(, double)
}  // namespace prox
