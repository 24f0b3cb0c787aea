"""prox.dask on a distributed.LocalCluster of 2 worker processes: every query equals
the single-process answer bit for bit, and the index is shipped to each worker once."""
import numpy as np
import pytest

import dask
import dask.array as da
import prox
import prox.dask
from conftest import CUBE_F, CUBE_V

distributed = pytest.importorskip("distributed")

rng = np.random.default_rng(13)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    c.wait_for_workers(2)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def mesh():
    return prox.Mesh(CUBE_V, CUBE_F)


def same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


CASES = [("compute_closest_points", 3), ("compute_signed_distance", 3),
         ("compute_winding_number", 3), ("contains", 3), ("cast_rays", 6),
         ("test_occlusions", 6), ("count_intersections", 6)]


@pytest.mark.parametrize("name,k", CASES)
def test_equals_one_process(client, mesh, name, k):
    q = rng.uniform(-0.5, 1.5, size=(3000, k))
    x = da.from_array(q, chunks=(700, k))
    got = getattr(prox.dask, name)(mesh, x, client=client)
    want = getattr(mesh, name)(q)
    if isinstance(want, dict):
        computed = dask.compute(got)[0]
        want = {k: v for k, v in want.items() if isinstance(v, np.ndarray)}
        assert set(computed) == set(want)
        for key in want:
            same(computed[key], want[key])
    else:
        same(got.compute(), want)


def test_leading_dims_chunks_and_kwargs(client, mesh):
    q = rng.uniform(-0.5, 1.5, size=(20, 30, 3))
    x = da.from_array(q, chunks=(7, 11, 1))  # the last axis is made one chunk
    got = prox.dask.compute_closest_points(mesh, x, client=client, max_distance=0.3, threads=1)
    assert got["points"].shape == (20, 30, 3) and got["distance"].chunks[:2] == x.chunks[:2]
    want = mesh.compute_closest_points(q, max_distance=0.3)
    for key, a in dask.compute(got)[0].items():
        same(a, want[key])
    s = prox.dask.sphere_overlap(mesh, q, 0.2, client=client)
    same(s.compute(), mesh.sphere_overlap(q, 0.2))


@pytest.mark.parametrize("method", ["winding", "pseudonormal", "parity"])
def test_sign_methods_and_contains(client, method):
    """Issue 10's signing through Dask: every method's per-point arrays and contains."""
    top = [i for i, f in enumerate(CUBE_F) if np.all(CUBE_V[f][:, 2] == 1)]
    opened = prox.Mesh(CUBE_V, np.delete(CUBE_F, top, axis=0))  # some answers unsure
    q = rng.uniform(-0.5, 1.5, size=(1200, 3))
    x = da.from_array(q, chunks=(400, 3))
    got = dask.compute(prox.dask.compute_signed_distance(opened, x, client=client, method=method,
                                                         parity_rays=5))[0]
    want = opened.compute_signed_distance(q, method=method, parity_rays=5)
    assert set(got) == set(want) - {"method"}
    for key, a in got.items():
        same(a, want[key])
    c = prox.dask.contains(opened, x, client=client, method=method).compute()
    same(c, opened.contains(q, method=method))
    assert c.dtype == np.int8


def test_float32_mesh_and_numpy_input(client):
    m32 = prox.Mesh(CUBE_V.astype(np.float32), CUBE_F)
    q = rng.uniform(-0.5, 1.5, size=(1000, 6))
    got = prox.dask.cast_rays(m32, q, chunks=(300, 6), client=client)
    assert got["t_hit"].dtype == np.float32
    want = m32.cast_rays(q)
    for key, a in dask.compute(got)[0].items():
        same(a, want[key])


def test_index_shipped_once_to_each_worker(client, mesh):
    handle = prox.dask.distribute(mesh, client)
    assert len(client.who_has([handle])[handle.key]) == 2  # on both workers
    q = da.from_array(rng.uniform(-0.5, 1.5, size=(4000, 3)), chunks=(500, 3))
    r = prox.dask.compute_closest_points(mesh, q, handle=handle)
    graph = dict(r["distance"].__dask_graph__())
    assert not any(isinstance(v, prox.Mesh) for v in graph.values())  # no copies in tasks
    same(r["distance"].compute(), mesh.compute_closest_points(q.compute())["distance"])


def test_local_scheduler_without_client(mesh):
    q = rng.uniform(-0.5, 1.5, size=(1000, 3))
    with dask.config.set(scheduler="threads"):
        got = prox.dask.compute_signed_distance(mesh, da.from_array(q, chunks=250), client=False)
        out = dask.compute(got)[0]
    for key, a in mesh.compute_signed_distance(q).items():
        if key != "method":
            same(out[key], a)


def test_errors(mesh):
    with pytest.raises(ValueError, match=r"queries must have shape \(\.\.\., 6\)"):
        prox.dask.cast_rays(mesh, np.zeros((10, 3)), client=False)
    with pytest.raises(ValueError, match="mesh must be a prox.Mesh"):
        prox.dask.contains("bunny.off", np.zeros((10, 3)), client=False)
    with pytest.raises(ValueError, match="method must be one of"):
        prox.dask.map_query(mesh, "list_intersections", np.zeros((10, 6)), client=False)


@pytest.mark.parametrize("args", [{"res": 20}, {"res": (10, 12, 17), "method": "winding",
                                                 "band": 0.2, "float32": True}])
def test_sdf_grid_in_slabs(client, args):
    """sdf_grid split by z-slabs over the 2 workers: the local call's values bit for bit."""
    top = [i for i, f in enumerate(CUBE_F) if np.all(CUBE_V[f][:, 2] == 1)]
    mesh = prox.Mesh(CUBE_V, CUBE_F) if "band" not in args else \
        prox.Mesh(CUBE_V, np.delete(CUBE_F, top, axis=0))  # open: unsure nodes too
    want = mesh.sdf_grid(**args)
    got = prox.dask.sdf_grid(mesh, planes=3, client=client, **args)
    values, unsure, evals = dask.compute(got["values"], got["unsure"], got["sign_evaluations"])
    nz = want["values"].shape[2]
    assert got["values"].chunks[2] == (3,) * (nz // 3) + ((nz % 3,) if nz % 3 else ())
    assert values.dtype == want["values"].dtype and values.shape == want["values"].shape
    assert values.tobytes(order="F") == want["values"].tobytes(order="F")
    assert int(unsure) == want["unsure"] and int(evals) == want["sign_evaluations"]
    assert got["method"] == want["method"]
    assert got["origin"].tobytes() == want["origin"].tobytes()
    assert got["spacing"].tobytes() == want["spacing"].tobytes()
    # The default slab count and the local scheduler.
    with dask.config.set(scheduler="threads"):
        local = prox.dask.sdf_grid(mesh, client=False, **args)["values"].compute()
    assert local.tobytes(order="F") == want["values"].tobytes(order="F")


def test_sdf_grid_errors(mesh):
    flat = prox.Mesh(CUBE_V[:3], [[0, 1, 2]])
    with pytest.raises(ValueError, match="no inside"):
        prox.dask.sdf_grid(flat, client=False)
    with pytest.raises(ValueError, match="res must be"):
        prox.dask.sdf_grid(mesh, res=1, client=False)
    with pytest.raises(ValueError, match="planes must be"):
        prox.dask.sdf_grid(mesh, res=8, planes=0, client=False)


def test_cast_rays_without_normals(client, mesh):
    q = rng.uniform(-0.5, 1.5, size=(900, 6))
    got = dask.compute(prox.dask.cast_rays(mesh, q, chunks=(300, 6), client=client,
                                           normals=False))[0]
    want = mesh.cast_rays(q, normals=False)
    assert set(got) == set(want) and "primitive_normals" not in got
    for key, a in got.items():
        same(a, want[key])
