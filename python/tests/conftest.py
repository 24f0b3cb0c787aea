"""Shared meshes for the prox Python tests.

The unit cube has analytic answers for every query (closest point = the clamp
of an outside point to the cube; rays along an axis hit at known t), so it is
the oracle for most tests; real meshes come from Debian's CGAL data archive
(PROX_CGAL_DATA_DIR, set by CTest) and are checked against the prox CLI.
"""
import glob
import os
import pathlib

import numpy as np
import pytest

import prox

# device="gpu" tests (test_gpu.py) run on Mesa's lavapipe, forced as tests/gpu force
# it, unless the caller chose a driver (VK_ICD_FILENAMES / VK_DRIVER_FILES) or
# PROX_GPU_TEST_DRIVER=system. Set before any test runs: the process's one Vulkan
# context is made on the first device="gpu" call.
if (os.environ.get("PROX_GPU_TEST_DRIVER", "lavapipe") == "lavapipe"
        and not os.environ.get("VK_ICD_FILENAMES") and not os.environ.get("VK_DRIVER_FILES")):
    _lvp = sorted(glob.glob("/usr/share/vulkan/icd.d/lvp_icd*.json"))  # the name carries the arch
    if _lvp:
        os.environ["VK_ICD_FILENAMES"] = os.environ["VK_DRIVER_FILES"] = _lvp[0]

# 8 corners of [0,1]^3, 12 triangles wound counter-clockwise seen from outside.
CUBE_V = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=np.float64)


def _cube_faces():
    idx = {tuple(v): i for i, v in enumerate(CUBE_V.astype(int))}
    faces = []
    for axis in range(3):
        for side in (0, 1):
            u, w = [a for a in range(3) if a != axis]
            quad = []
            for a, b in ((0, 0), (1, 0), (1, 1), (0, 1)):
                c = [0, 0, 0]
                c[axis], c[u], c[w] = side, a, b
                quad.append(idx[tuple(c)])
            q = [quad[0], quad[1], quad[2], quad[3]]
            # Orient outward: normal (c1-c0)x(c2-c0) must point along +axis on side 1.
            n = np.cross(CUBE_V[q[1]] - CUBE_V[q[0]], CUBE_V[q[2]] - CUBE_V[q[0]])
            if (n[axis] > 0) != (side == 1):
                q = q[::-1]
            faces += [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]
    return np.array(faces, dtype=np.int64)


CUBE_F = _cube_faces()


@pytest.fixture(params=[np.float64, np.float32], ids=["f64", "f32"])
def dtype(request):
    return np.dtype(request.param)


@pytest.fixture
def cube(dtype):
    return prox.Mesh(CUBE_V.astype(dtype), CUBE_F)


@pytest.fixture(scope="session")
def cgal_meshes():
    d = pathlib.Path(os.environ.get("PROX_CGAL_DATA_DIR",
                                    pathlib.Path(__file__).parents[2] / "build/cgal-data/data"))
    d = d / "meshes" if (d / "meshes").is_dir() else d
    if not (d / "bunny00.off").exists():
        if os.environ.get("PROX_CGAL_DATA_DIR"):  # CTest names it: it must be there
            pytest.fail(f"no CGAL data meshes in {d}")
        pytest.skip(f"no CGAL data meshes in {d} (set PROX_CGAL_DATA_DIR)")
    return d


def tol(dtype):
    """Absolute tolerance of answers on the unit cube: a few ulps of 1 in dtype."""
    return 8 * np.finfo(dtype).eps
