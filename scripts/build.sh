#!/usr/bin/env bash
# scripts/build.sh [release|asan] — configures and builds prox into build/ or build-asan/.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-release}
jobs=$(nproc)
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
case "$kind" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan)    dir=build-asan; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROX_SANITIZE=ON
                                  -DPROX_BUILD_BENCH=OFF) ;;
  *) echo "usage: scripts/build.sh [release|asan]" >&2; exit 2 ;;
esac
# ccache, when installed, makes a second tree's build (a git worktree) cost little;
# install-deps.sh installs it, so on CI the Python module's wheel build
# (scripts/python-test.sh, build-wheel/) gets this build's prox objects as hits.
command -v ccache >/dev/null && flags+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$dir" -G Ninja -DPROX_WERROR=$werror "${flags[@]}" >/dev/null
cmake --build "$dir" -j "$jobs"
