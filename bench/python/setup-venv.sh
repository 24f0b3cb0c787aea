#!/usr/bin/env bash
# bench/python/setup-venv.sh [DIR] — the benchmark's own venv (default build/bench-venv):
# numpy, and the Python libraries a user would pick instead of prox, each from PyPI;
# one that fails to install is skipped (bench.py then says so). prox itself is
# installed into it by bench/python/run.sh (`pip install .`).
set -uo pipefail
cd "$(dirname "$0")/../.."
venv=${1:-build/bench-venv}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2
if [ -f "$venv/.prox-bench-ready" ]; then echo "$venv"; exit 0; fi  # set up before
"$venv/bin/python" -m pip install -q --disable-pip-version-check numpy "nanobind>=2.0" \
  "scikit-build-core>=0.10" >&2
for pkg in open3d "trimesh[easy]" libigl fcpw; do
  if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check "$pkg" >&2; then
    echo "setup-venv: $pkg failed to install; the benchmark skips it" >&2
  fi
done
touch "$venv/.prox-bench-ready"
echo "$venv"
