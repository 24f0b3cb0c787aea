// apps/gpu_device.hpp — `--device gpu` of prox closest and prox raycast.
//
// The GPU path (prox::gpu) answers in float: the mesh and the queries are
// rounded to float once, and the answers are MeshIndex<float>'s (bit for bit
// on a device with IEEE float/double rounding; docs/gpu.md), widened back to
// double for the tables. gpu_device.cpp when prox::gpu is built, else
// gpu_device_missing.cpp, whose functions throw saying so.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/sign.hpp"
#include "signing.hpp"

namespace prox::cli {

/// Adds --device cpu|gpu (default cpu) to a command.
void add_device_option(CLI::App& app, std::string& device);

/// Closest points on the GPU; with `sign` (--signed) also signed, into sd, by
/// a SignedMesh on the float index with sign's method (and --reorient), through
/// gpu::SignedMeshGpu: pseudonormal and parity signs on the GPU, winding on
/// the CPU after the GPU's closest points (stderr says which).
/// `path` names the mesh in messages (no inside: an error; inexact: a warning).
void gpu_closest(const TriangleMesh<double>& mesh, std::span<const Vec3d> points,
                 double max_distance, std::span<MeshClosestPoint<double>> cp,
                 const SignChoice* sign, const std::string& path,
                 std::span<SignedClosestPoint<double>> sd);
/// First hits on the GPU.
void gpu_first_hits(const TriangleMesh<double>& mesh, std::span<const Ray<double>> rays,
                    std::span<MeshRayHit<double>> out);
/// Any hits (1 or 0) on the GPU.
void gpu_any_hits(const TriangleMesh<double>& mesh, std::span<const Ray<double>> rays,
                  std::span<std::uint8_t> out);
/// Surface crossings (MeshIndex<float>::count_hits) on the GPU.
void gpu_count_hits(const TriangleMesh<double>& mesh, std::span<const Ray<double>> rays,
                    std::span<std::uint32_t> out);

}  // namespace prox::cli
