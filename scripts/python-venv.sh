#!/usr/bin/env bash
# scripts/python-venv.sh [DIR] — creates (once) the virtual environment the Python
# module is built and tested in (default build/venv), with its build and test tools
# from PyPI: nanobind and scikit-build-core (the wheel build), numpy, pytest,
# dask[array] and distributed (prox.dask and its tests). Never touches the system
# Python; a second call only checks that the packages are there. Prints the venv's path.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-build/venv}
requirements=(
  "nanobind>=2.0" "scikit-build-core>=0.9"  # the wheel build (pyproject.toml)
  "numpy>=1.24" "pytest>=7"                 # the module and its tests
  "dask[array]>=2023.1" "distributed>=2023.1"  # prox.dask and its LocalCluster test
)
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi
stamp="$venv/.prox-requirements"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "${requirements[*]}" ]; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${requirements[@]}" >&2
  echo "${requirements[*]}" > "$stamp"
fi
echo "$venv"
