"""device="gpu": prox::gpu through the module, against the CPU.

The oracle is the CPU on the float32 mesh (prox.Mesh(vertices.astype(float32),
faces)): the GPU's answers are MeshIndex<float>'s bit for bit on a device with
IEEE float/double rounding (docs/gpu.md), so a float32 mesh's device="gpu" arrays
must be its CPU arrays byte for byte, and a float64 mesh's the float32 mesh's CPU
arrays widened to float64. The tests run on Mesa's lavapipe, forced through
VK_ICD_FILENAMES as tests/gpu do (conftest.py); they skip, saying why, where no
Vulkan device exists, and fail there instead under CI (CI=true) or
PROX_REQUIRE_GPU=1, where lavapipe is installed and must run.
"""
import os
import pickle
import subprocess
import sys
import threading

import numpy as np
import pytest

import prox

rng = np.random.default_rng(17)


@pytest.fixture(scope="module")
def gpu():
    try:
        return prox.gpu_device()
    except RuntimeError as e:
        if os.environ.get("CI") == "true" or os.environ.get("PROX_REQUIRE_GPU") == "1":
            pytest.fail(f"no usable GPU under CI / PROX_REQUIRE_GPU=1: {e}")
        pytest.skip(str(e))


def float32_twin(m64):
    """The float32 mesh whose CPU answers the GPU's must equal (the oracle)."""
    return prox.Mesh(m64.vertices.astype(np.float32), m64.faces)


@pytest.fixture(scope="module")
def bunny(cgal_meshes):
    m64 = prox.load(cgal_meshes / "bunny00.off")
    return m64, float32_twin(m64)


@pytest.fixture(params=["f64", "f32"])
def bunny_and_oracle(request, bunny):
    """(the bunny queried on the GPU, float64 or float32; the float32 bunny, the oracle)."""
    m64, m32 = bunny
    return (m64 if request.param == "f64" else m32), m32


def same(got, want, key=""):
    """got equals want (the float32 CPU answer) byte for byte in got's dtype."""
    want = np.asarray(want)
    if want.dtype != got.dtype:
        want = want.astype(got.dtype)
    assert got.shape == want.shape, key
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes(), \
        f"{key}: {np.count_nonzero(got != want)} differ"


def same_dict(got, want):
    assert set(got) == set(want)
    for k in want:
        if isinstance(want[k], np.ndarray):
            same(got[k], want[k], k)
        else:
            assert got[k] == want[k], k


def queries(mesh, n):
    lo, hi = mesh.bounds.astype(np.float64)
    size = hi - lo
    far = rng.uniform(lo - 0.3 * size, hi + 0.3 * size, size=(n, 3))
    v = mesh.vertices.astype(np.float64)
    near = v[rng.integers(0, len(v), n)] + rng.normal(size=(n, 3)) * 0.01 * size
    p = np.vstack([far, near])
    p[3] = np.nan
    p[7] = [np.inf, 0, 0]
    return p


def rays(mesh, n):
    lo, hi = mesh.bounds.astype(np.float64)
    c, size = (lo + hi) / 2, hi - lo
    o = c + rng.normal(size=(n, 3)) * size * 2
    d = c + rng.normal(size=(n, 3)) * 0.3 * size - o
    # A camera's primary rays too (coherent: the CPU takes them in packets).
    u, w = np.meshgrid(np.linspace(-0.4, 0.4, 24), np.linspace(-0.4, 0.4, 24))
    cam = c + np.array([0, 0, 2.5 * size.max()])
    dirs = np.stack([u.ravel(), w.ravel(), -np.ones(u.size)], axis=1)
    r = np.vstack([np.hstack([o, d]), np.hstack([np.broadcast_to(cam, dirs.shape), dirs])])
    r[5] = np.nan
    r[9, 3:] = 0  # a zero direction: a miss
    return r


def test_device_name(gpu):
    assert isinstance(gpu, str) and "Vulkan" in gpu
    assert prox.gpu_device() == gpu  # one context for the process


def test_closest_points(gpu, bunny_and_oracle):
    mesh, m32 = bunny_and_oracle
    p = queries(mesh, 1500)
    want = m32.compute_closest_points(p)
    got = mesh.compute_closest_points(p, device="gpu")
    same_dict(got, want)
    assert (got["primitive_ids"] >= 0).sum() == len(p) - 2
    # A search radius; leading dimensions.
    r = 0.02 * float(np.ptp(m32.bounds.astype(np.float64), axis=0).max())
    same_dict(mesh.compute_closest_points(p, max_distance=r, device="gpu"),
              m32.compute_closest_points(p, max_distance=r))
    grid = p[:1200].reshape(30, 40, 3)
    g = mesh.compute_closest_points(grid, device="gpu")
    assert g["distance"].shape == (30, 40) and g["points"].shape == (30, 40, 3)
    same(g["distance"], want["distance"][:1200].reshape(30, 40))
    same(mesh.compute_distance(p), mesh.compute_closest_points(p)["distance"])


def test_cast_rays_occlusions_and_counts(gpu, bunny_and_oracle):
    mesh, m32 = bunny_and_oracle
    r = rays(mesh, 1200)
    want = m32.cast_rays(r)
    got = mesh.cast_rays(r, device="gpu")
    same_dict(got, want)
    assert (got["primitive_ids"] >= 0).sum() > 600
    same_dict(mesh.cast_rays(r, normals=False, device="gpu"), m32.cast_rays(r, normals=False))
    same_dict(mesh.cast_rays(r[:, :3], r[:, 3:], t_min=0.5, t_max=2.0, device="gpu"),
              m32.cast_rays(r[:, :3], r[:, 3:], t_min=0.5, t_max=2.0))
    same(mesh.test_occlusions(r, device="gpu"), m32.test_occlusions(r))
    same(mesh.test_occlusions(r, t_max=0.7, device="gpu"), m32.test_occlusions(r, t_max=0.7))
    same(mesh.count_intersections(r, device="gpu"), m32.count_intersections(r))
    same(mesh.count_intersections(r, t_min=0.5, t_max=2.0, device="gpu"),
         m32.count_intersections(r, t_min=0.5, t_max=2.0))


def test_count_intersections_through_edges_and_corners(gpu):
    # The unit cube (exact corners) and axis-aligned / diagonal rays from a grid
    # of k/8 points: many pass exactly through edges and corners, where the
    # crossing rule decides. The GPU's counts are the CPU's, and their parity is
    # the origin's exact containment (odd strictly inside, even strictly outside).
    v = np.array([[i & 1, (i >> 1) & 1, (i >> 2) & 1] for i in range(8)], dtype=np.float64)
    f = [[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4],
         [2, 6, 3], [3, 6, 7], [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]]
    cube = prox.Mesh(v, f)
    g = np.arange(-1, 10) / 8.0
    o = np.stack(np.meshgrid(g, g, g, indexing="ij"), axis=-1).reshape(-1, 3)
    dirs = np.array([[0, 0, 1], [0, -1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1], [-1, 0.25, 0.5]])
    orig = np.repeat(o, len(dirs), axis=0)
    d = np.tile(dirs, (len(o), 1))
    got = cube.count_intersections(orig, d, device="gpu")
    same(got, cube.count_intersections(orig, d))
    inside = np.all((orig > 0) & (orig < 1), axis=1)
    outside = np.any((orig < 0) | (orig > 1), axis=1)
    assert inside.sum() > 1000 and outside.sum() > 1000
    assert np.all(got[inside] % 2 == 1)
    assert np.all(got[outside] % 2 == 0)


@pytest.mark.parametrize("method", ["auto", "winding", "pseudonormal", "parity"])
def test_signed_distance(gpu, bunny, method):
    m64, m32 = bunny
    p = queries(m64, 400)
    want = m32.compute_signed_distance(p, method=method)
    for mesh in (m64, m32):
        same_dict(mesh.compute_signed_distance(p, method=method, device="gpu"), want)
    assert np.isin(want["confidence"][8:], [0, 1]).all()


def test_open_mesh_and_threads(gpu, cgal_meshes):
    # An open mesh (auto signs by winding); concurrent callers share the context.
    m64 = prox.load(cgal_meshes / "elephant-with-holes.off")
    m32 = float32_twin(m64)
    p = queries(m64, 300)
    want = m32.compute_signed_distance(p)
    assert want["method"] == "winding"
    same_dict(m64.compute_signed_distance(p, device="gpu"), want)
    cp = m32.compute_closest_points(p)
    results = [None] * 4

    def work(i):
        results[i] = m64.compute_closest_points(p, device="gpu", threads=1)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        same_dict(r, cp)


def test_pickled_mesh_uploads_again(gpu, bunny):
    m64, m32 = bunny
    p = queries(m64, 100)
    m64.compute_closest_points(p, device="gpu")  # uploaded
    back = pickle.loads(pickle.dumps(m64, protocol=5))
    same_dict(back.compute_closest_points(p, device="gpu"), m32.compute_closest_points(p))


def test_mesh_beyond_float_range():
    # A float64 mesh beyond prox's float range (2^62) has no float32 copy to upload:
    # the float32 mesh's own error, named as the GPU's.
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1e20, 0]], dtype=np.float64)
    m = prox.Mesh(v, [[0, 1, 2]])
    with pytest.raises(ValueError, match=r"device='gpu': the mesh in float32: vertex 2 .* "
                                         r"outside prox's float range"):
        m.compute_closest_points([[0.0, 0, 0]], device="gpu")
    assert m.compute_closest_points([[0.0, 0, 0]])["distance"][0] == 0  # the CPU still answers


def test_bad_device():
    m = prox.Mesh([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    for call in (lambda d: m.compute_closest_points([[0.0, 0, 0]], device=d),
                 lambda d: m.compute_signed_distance([[0.0, 0, 0]], device=d),
                 lambda d: m.cast_rays([[0.0, 0, 1, 0, 0, -1]], device=d),
                 lambda d: m.test_occlusions([[0.0, 0, 1, 0, 0, -1]], device=d),
                 lambda d: m.count_intersections([[0.0, 0, 1, 0, 0, -1]], device=d)):
        with pytest.raises(ValueError, match="device must be 'cpu' or 'gpu', got 'cuda'"):
            call("cuda")


def test_no_vulkan_device_is_a_runtime_error():
    # A process whose Vulkan loader finds no driver: a RuntimeError naming the cause
    # (prox::gpu's own words), for the query and for gpu_device(); the CPU still works.
    code = (
        "import prox\n"
        "m = prox.Mesh([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])\n"
        "for f in (lambda: m.compute_closest_points([[0.0, 0, 1]], device='gpu'),\n"
        "          prox.gpu_device):\n"
        "    try:\n"
        "        f()\n"
        "        print('no error')\n"
        "    except RuntimeError as e:\n"
        "        print(e)\n"
        "print(m.compute_closest_points([[0.0, 0, 1]])['distance'][0])\n")
    env = dict(os.environ, VK_ICD_FILENAMES="/nonexistent/prox-no-driver.json",
               VK_DRIVER_FILES="/nonexistent/prox-no-driver.json")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert len(out) == 3, out
    for line in out[:2]:
        if prox._prox.gpu_built():
            assert line.startswith("device='gpu': gpu: no Vulkan device"), line
        else:
            assert line.startswith("device='gpu': this prox module was built without prox::gpu")
    assert out[2] == "1.0"
