#!/usr/bin/env bash
# Installs every Debian package prox needs to build, test and benchmark.
# Runs apt only when something is missing, so a second call costs nothing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev   # tests, micro-benchmarks
  libgmp-dev                                   # exact rational oracle in tests
  libtbb-dev                                   # thread pool for batches and builds
  libfmt-dev libcli11-dev                      # the prox command
  libpng-dev                                   # PNG pictures
  libtinyobjloader-dev                         # OBJ reader
  libembree-dev libcgal-dev                    # peers in the benchmark
  libcgal-demo                                 # ships data.tar.gz: real meshes for tests
  libsdl2-dev libsdl2-ttf-dev fonts-dejavu-core # prox magnet / prox view windows (optional)
  xvfb xdotool                                 # tests/gui: drive those windows as a person would
  glslc libvulkan-dev                          # prox::gpu: GLSL -> SPIR-V at build time, Vulkan headers
  mesa-vulkan-drivers vulkan-tools             # lavapipe (CPU Vulkan driver) for the GPU tests; vulkaninfo
  clang-14 libclang-rt-14-dev                  # libFuzzer + ASan/UBSan for the fuzz targets (scripts/fuzz.sh)
  python3-dev python3-venv                     # the Python module: headers, and the venv its build tools go in
  ccache                                       # the module's wheel build reuses the release build's objects
  libusb-1.0-0                                 # bench/python: Open3D's PyPI wheel links it (import fails without)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
fi
