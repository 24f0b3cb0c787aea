#!/usr/bin/env bash
# scripts/python-test.sh [BUILD_DIR] — builds the Python module the way a user
# does (`pip install .` into the venv of scripts/python-venv.sh, BUILD_DIR/venv)
# and runs its pytest suite (python/tests). CTest runs this as python_module.
# The wheel build reuses BUILD_DIR-wheel (only what changed is rebuilt) and
# ccache when installed; it builds only the extension's targets. BUILD_DIR-wheel
# sits beside BUILD_DIR, at its depth: ccache with base_dir rewrites the compile
# commands' paths relative to the build folder, so only a folder at the same depth
# gets the release build's objects as hits (one level deeper, every object missed).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
build=$(cd "${1:-build}" && pwd)
venv=$(scripts/python-venv.sh "$build/venv")
cmake_args=(-DPROX_WERROR=$([ "${CI:-}" = "true" ] && echo ON || echo OFF))
# The release build's compiler (not Python's sysconfig one), so ccache serves the
# prox libraries the release build compiled with the same flags.
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
[ -n "$cxx" ] && cmake_args+=(-DCMAKE_CXX_COMPILER="$cxx")
if command -v ccache >/dev/null; then
  cmake_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
start=$(date +%s)
CMAKE_ARGS="${cmake_args[*]}" CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} \
  "$venv/bin/python" -m pip install --no-build-isolation --no-deps -q --disable-pip-version-check \
  -C build-dir="$build-wheel" "$src"
echo "python-test: pip install . took $(( $(date +%s) - start )) s" >&2
# From the build folder, so `import prox` is the installed package, not python/prox.
cd "$build"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$src/python/tests"
