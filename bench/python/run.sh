#!/usr/bin/env bash
# bench/python/run.sh [bench.py options] — the Python benchmark in its own venv
# (build/bench-venv: numpy, Open3D, trimesh, libigl and fcpw from PyPI, each skipped
# when it fails to install) with prox installed from the wheel that
# scripts/python-test.sh's build folder makes (`pip wheel .`: nothing is rebuilt
# when the module is up to date). Prints Markdown tables.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=$(cd "$(bench/python/setup-venv.sh build/bench-venv)" && pwd)
build_venv=$(scripts/python-venv.sh build/venv)
cmake_args=(-DPROX_WERROR=$([ "${CI:-}" = "true" ] && echo ON || echo OFF))
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' build/CMakeCache.txt 2>/dev/null || true)
[ -n "$cxx" ] && cmake_args+=(-DCMAKE_CXX_COMPILER="$cxx")
command -v ccache >/dev/null && cmake_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
rm -rf build/wheels
CMAKE_ARGS="${cmake_args[*]}" "$build_venv/bin/python" -m pip wheel -q --no-build-isolation \
  --no-deps --disable-pip-version-check -C build-dir=build-wheel -w build/wheels . >&2
"$venv/bin/python" -m pip install -q --no-deps --force-reinstall --disable-pip-version-check \
  build/wheels/prox-*.whl >&2
cd build  # so that `import prox` is the installed package
exec "$venv/bin/python" ../bench/python/bench.py --data cgal-data/data "$@"
