#!/usr/bin/env bash
# scripts/build.sh [release|asan|tsan] — configures and builds prox into build/, build-asan/
# or build-tsan/ (ThreadSanitizer: only the threaded tests, target threaded_tests).
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-release}
target=
jobs=$(nproc)
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
case "$kind" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  # -O1 -g1 (line tables: what ASan's and UBSan's stack traces need), not
  # RelWithDebInfo's -O2 -g: half the compile time (a test file: 28.6 s -> 14.4 s of
  # CPU), and the sanitizer build was CI's longest stage (1,842 s of 2,840 s).
  # No NDEBUG, and libstdc++'s assertions on (_GLIBCXX_ASSERTIONS: operator[] of
  # a vector or span checked against its size, front() of an empty one, ...):
  # ASan sees an index past the end only when it leaves the allocation.
  asan)    dir=build-asan; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROX_SANITIZE=ON
                                  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -D_GLIBCXX_ASSERTIONS"
                                  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1"
                                  -DPROX_BUILD_BENCH=OFF) ;;
  tsan)    dir=build-tsan; target=threaded_tests
           flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROX_TSAN=ON -DPROX_BUILD_BENCH=OFF
                  -DPROX_BUILD_APPS=OFF -DPROX_TEST_PYTHON=OFF) ;;
  *) echo "usage: scripts/build.sh [release|asan|tsan]" >&2; exit 2 ;;
esac
# ccache, when installed, makes a second tree's build (a git worktree) cost little;
# install-deps.sh installs it, so on CI the Python module's wheel build
# (scripts/python-test.sh, build-wheel/) gets this build's prox objects as hits.
command -v ccache >/dev/null && flags+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$dir" -G Ninja -DPROX_WERROR=$werror "${flags[@]}" >/dev/null
cmake --build "$dir" -j "$jobs" ${target:+--target "$target"}
