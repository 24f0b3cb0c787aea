"""prox.Mesh on the unit cube, whose answers are known analytically."""
import numpy as np
import pytest

import prox
from conftest import CUBE_F, CUBE_V, tol

rng = np.random.default_rng(7)


def outside_points(n):
    """Points of [-1, 2]^3 at least 0.01 outside the cube."""
    p = rng.uniform(-1, 2, size=(4 * n, 3))
    gap = np.max(np.maximum(-p, p - 1), axis=1)
    return p[gap > 0.01][:n]


def inside_points(n):
    return rng.uniform(0.02, 0.98, size=(n, 3))


# ---- construction, properties, errors --------------------------------------------------

def test_properties(cube, dtype):
    assert cube.dtype == dtype
    assert (cube.num_vertices, cube.num_triangles) == (8, 12)
    np.testing.assert_array_equal(cube.vertices, CUBE_V.astype(dtype))
    assert cube.vertices.dtype == dtype
    np.testing.assert_array_equal(cube.faces, CUBE_F)
    assert cube.faces.dtype == np.int64
    np.testing.assert_array_equal(cube.bounds, [[0, 0, 0], [1, 1, 1]])
    d = cube.diagnostics
    assert d["closed"] and d["edges"] == 18 and d["boundary_edges"] == 0
    assert d["degenerate_triangles"] == 0 and d["unused_vertices"] == 0
    assert d["bvh_nodes"] >= 1 and d["memory_bytes"] > 0 and isinstance(d["isa"], str)
    assert "12 triangles" in repr(cube)


def test_open_mesh_diagnostics():
    m = prox.Mesh(CUBE_V, CUBE_F[1:])
    d = m.diagnostics
    assert not d["closed"] and d["boundary_edges"] == 3


def test_empty_mesh_misses():
    m = prox.Mesh(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int32))
    assert m.num_triangles == 0 and np.isnan(m.bounds).all()
    r = m.compute_closest_points([[0.0, 0, 0]])
    assert r["primitive_ids"][0] == -1 and np.isnan(r["distance"][0])
    assert m.cast_rays([[0.0, 0, 0, 1, 0, 0]])["t_hit"][0] == np.inf


def test_inputs_are_copied():
    v = CUBE_V.copy()
    m = prox.Mesh(v, CUBE_F)
    v[:] = 100
    np.testing.assert_array_equal(m.vertices, CUBE_V)


def test_vertex_and_face_dtypes():
    for vd in (np.float32, np.float64, np.int32):
        for fd in (np.int32, np.int64, np.uint32, np.uint64):
            m = prox.Mesh(CUBE_V.astype(vd), CUBE_F.astype(fd))
            assert m.dtype == (np.float32 if vd == np.float32 else np.float64)
            assert m.num_triangles == 12


@pytest.mark.parametrize("vertices,faces,message", [
    (CUBE_V, [[0, 1, 8]], "triangle 0 has vertex index 8, but the mesh has 8 vertices"),
    (CUBE_V, [[0, 1, 2], [0, -1, 2]], "triangle 1 has vertex index -1"),
    (np.array([[0, 0, 0], [np.nan, 0, 1], [1, 0, 0]]), [[0, 1, 2]], "vertex 1 is not finite"),
    (np.array([[0, 0, 0], [np.inf, 0, 1], [1, 0, 0]]), [[0, 1, 2]], "vertex 1 is not finite"),
    (CUBE_V[:, :2], CUBE_F, r"vertices must have shape \(V, 3\), got shape \(8, 2\)"),
    (CUBE_V, CUBE_F[:, :2], r"faces must have shape \(F, 3\), got shape \(12, 2\)"),
    (CUBE_V, CUBE_F.astype(float), "faces must be an integer array"),
    (CUBE_V.astype(complex), CUBE_F, "vertices must be a float32 or float64 array"),
    (CUBE_V, np.array([[0, 1, 2**63 + 5]], dtype=np.uint64), "out of range"),
])
def test_construction_errors(vertices, faces, message):
    with pytest.raises(ValueError, match=message):
        prox.Mesh(vertices, faces)


def test_drop_non_finite():
    v = np.vstack([CUBE_V, [[np.nan, 0, 0]]])
    f = np.vstack([CUBE_F, [[0, 1, 8]]])
    m = prox.Mesh(v, f, drop_non_finite=True)
    assert m.num_triangles == 12


# ---- closest points ----------------------------------------------------------------------

def test_closest_points_outside(cube, dtype):
    p = outside_points(2000)
    r = cube.compute_closest_points(p)
    expect = np.clip(p, 0, 1)
    np.testing.assert_allclose(r["points"], expect, rtol=0, atol=tol(dtype))
    pq = p.astype(dtype).astype(np.float64)
    np.testing.assert_allclose(r["distance"], np.linalg.norm(pq - expect, axis=1),
                               rtol=4 * np.finfo(dtype).eps, atol=tol(dtype))
    for k in ("points", "distance", "primitive_uvs", "barycentrics"):
        assert r[k].dtype == dtype
    assert r["primitive_ids"].dtype == np.int64 and r["feature"].dtype == np.int8
    # the reported triangle holds the point, with those barycentrics
    corners = CUBE_V[CUBE_F[r["primitive_ids"]]]  # (N, 3 corners, 3)
    rebuilt = np.einsum("nk,nkj->nj", r["barycentrics"].astype(np.float64), corners)
    np.testing.assert_allclose(rebuilt, r["points"], atol=4 * tol(dtype))
    np.testing.assert_array_equal(r["primitive_uvs"], r["barycentrics"][:, 1:])
    assert np.all((r["barycentrics"] >= 0) & (r["barycentrics"] <= 1))


def test_closest_feature():
    m = prox.Mesh(CUBE_V, CUBE_F)
    # beyond a corner: a vertex; beyond an edge's middle (not the face diagonals): an edge;
    # beyond a face at a point off its diagonal: the face.
    r = m.compute_closest_points([[2, 2, 2], [0.5, -1, -1], [0.2, 0.7, 3.0]])
    names = [prox.FEATURES[f] for f in r["feature"]]
    assert names[0].startswith("vertex") and names[1].startswith("edge") and names[2] == "face"
    np.testing.assert_array_equal(r["points"], [[1, 1, 1], [0.5, 0, 0], [0.2, 0.7, 1.0]])


def test_closest_points_inside(cube, dtype):
    p = inside_points(1000).astype(dtype)
    r = cube.compute_closest_points(p)
    expect = np.min(np.minimum(p, 1 - p), axis=1)
    np.testing.assert_allclose(r["distance"], expect, atol=tol(dtype))


def test_max_distance(cube):
    r = cube.compute_closest_points([[1.5, 0.5, 0.5], [3, 0.5, 0.5]], max_distance=1.0)
    np.testing.assert_array_equal(r["primitive_ids"] >= 0, [True, False])
    assert np.isnan(r["distance"][1]) and np.isnan(r["points"][1]).all()
    assert r["feature"][1] == -1
    with pytest.raises(ValueError, match="max_distance"):
        cube.compute_closest_points([[0, 0, 0]], max_distance=0)


def test_compute_distance(cube):
    p = outside_points(10)
    np.testing.assert_array_equal(cube.compute_distance(p),
                                  cube.compute_closest_points(p)["distance"])


# ---- signed distance, winding number, contains ---------------------------------------------

def test_signed_distance(cube, dtype):
    pin, pout = inside_points(500), outside_points(500)
    r = cube.compute_signed_distance(np.vstack([pin, pout]))
    assert r["signed_distance"].dtype == dtype
    expect_in = -np.min(np.minimum(pin, 1 - pin), axis=1)
    expect_out = np.linalg.norm(pout - np.clip(pout, 0, 1), axis=1)
    np.testing.assert_allclose(r["signed_distance"], np.concatenate([expect_in, expect_out]),
                               atol=tol(dtype), rtol=8 * np.finfo(dtype).eps)
    assert np.isnan(r["winding_number"]).all()  # pseudonormal: no winding number
    w = cube.compute_signed_distance(np.vstack([pin, pout]), method="winding")["winding_number"]
    np.testing.assert_allclose(w[:500], 1, atol=0.02)
    np.testing.assert_allclose(w[500:], 0, atol=0.02)
    assert r["method"] == "pseudonormal"  # auto on a closed, oriented, outward mesh
    assert r["confidence"].dtype == np.int8 and np.all(r["confidence"] == 0)  # sure
    np.testing.assert_array_equal(r["sign_method"], 2)
    with pytest.raises(ValueError, match="method must be one of"):
        cube.compute_signed_distance(pin, method="pseudonormal-typo")


def test_confidence_on_open_mesh():
    # Without its top face (two triangles) the winding number just below the hole is ~0.5:
    # the sign is uncertain and confidence says so.
    top = [i for i, f in enumerate(CUBE_F) if np.all(CUBE_V[f][:, 2] == 1)]
    m = prox.Mesh(CUBE_V, np.delete(CUBE_F, top, axis=0))
    r = m.compute_signed_distance([[0.5, 0.5, 0.999], [0.5, 0.5, 0.001]])
    assert r["method"] == "winding"  # auto on an open mesh
    assert list(r["confidence"]) == [1, 0]  # unsure under the hole, sure at the bottom
    assert 0.3 < r["winding_number"][0] < 0.7 and r["winding_number"][1] > 0.9
    np.testing.assert_array_equal(m.contains([[0.5, 0.5, 0.999], [0.5, 0.5, 0.001]]),
                                  [prox.UNSURE, prox.INSIDE])


def test_winding_number(cube):
    p = np.vstack([inside_points(200), outside_points(200)])
    exact = cube.compute_winding_number(p, exact=True)
    approx = cube.compute_winding_number(p)
    np.testing.assert_allclose(exact[:200], 1, atol=1e-5)
    np.testing.assert_allclose(exact[200:], 0, atol=1e-5)
    np.testing.assert_allclose(approx, exact, atol=0.02)


def test_contains(cube):
    pin, pout = inside_points(500), outside_points(500)
    got = cube.contains(np.vstack([pin, pout]))
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, np.where(np.arange(1000) < 500, prox.INSIDE, prox.OUTSIDE))
    sd = cube.compute_signed_distance(np.vstack([pin, pout]))["signed_distance"]
    np.testing.assert_array_equal(got == prox.INSIDE, sd < 0)
    for method in ("winding", "pseudonormal", "parity"):
        np.testing.assert_array_equal(cube.contains(np.vstack([pin, pout]), method=method), got)
    # on the surface: inside
    np.testing.assert_array_equal(cube.contains([[0.5, 0.5, 1.0], [0, 0, 0]]), [1, 1])
    with pytest.raises(ValueError, match="method must be one of"):
        cube.contains(pin, method="none")


# ---- rays ------------------------------------------------------------------------------------

def test_cast_rays_axis(cube, dtype):
    xy = rng.uniform(0.05, 0.95, size=(300, 2))
    o = np.column_stack([xy, np.full(300, -1.0)])
    d = np.tile([0.0, 0.0, 1.0], (300, 1))
    r = cube.cast_rays(np.hstack([o, d]))
    np.testing.assert_array_equal(r["t_hit"], np.ones(300, dtype))
    assert r["t_hit"].dtype == dtype and r["primitive_ids"].dtype == np.int64
    assert np.all(r["front_face"]) and r["front_face"].dtype == np.bool_
    np.testing.assert_allclose(r["primitive_normals"], np.tile([0, 0, -1], (300, 1)), atol=tol(dtype))
    tri = CUBE_V[CUBE_F[r["primitive_ids"]]]
    assert np.all(tri[:, :, 2] == 0)  # the bottom face
    u, v = r["primitive_uvs"][:, 0], r["primitive_uvs"][:, 1]
    hit = (1 - u - v)[:, None] * tri[:, 0] + u[:, None] * tri[:, 1] + v[:, None] * tri[:, 2]
    np.testing.assert_allclose(hit, np.column_stack([xy, np.zeros(300)]), atol=4 * tol(dtype))
    # the same rays as origins, directions; a direction of length 2 halves t
    r2 = cube.cast_rays(o, 2 * d)
    np.testing.assert_array_equal(r2["t_hit"], np.full(300, 0.5, dtype))
    # t range: t_max before the cube misses; t_min past the bottom hits the top from inside
    assert np.all(cube.cast_rays(o, d, t_max=0.5)["t_hit"] == np.inf)
    back = cube.cast_rays(o, d, t_min=1.5)
    np.testing.assert_array_equal(back["t_hit"], np.full(300, 2, dtype))
    assert not np.any(back["front_face"])


def test_coherent_rays_and_normals_off(cgal_meshes, dtype):
    """A camera's primary rays (coherent: cast_rays takes them in packets of eight)
    give each single ray's answer bit for bit; normals=False leaves the normals out
    and changes nothing else."""
    mesh = prox.load(cgal_meshes / "bunny00.off", dtype=dtype)
    lo, hi = mesh.bounds.astype(np.float64)
    c, size = (lo + hi) / 2, (hi - lo).max()
    u, w = np.meshgrid(np.linspace(-0.3, 0.3, 40), np.linspace(-0.3, 0.3, 40))
    d = np.stack([u.ravel(), w.ravel(), -np.ones(u.size)], axis=1)
    rays = np.hstack([np.broadcast_to(c + [0, 0, 2 * size], d.shape), d]).astype(dtype)
    rays[100] = np.nan
    batch = mesh.cast_rays(rays, threads=1)
    assert (batch["primitive_ids"] >= 0).sum() > 400
    singles = [mesh.cast_rays(rays[i:i + 1]) for i in range(len(rays))]
    for key, a in batch.items():
        one = np.concatenate([s[key] for s in singles])
        assert a.tobytes() == one.tobytes(), key
    lean = mesh.cast_rays(rays, normals=False)
    assert set(lean) == set(batch) - {"primitive_normals"}
    for key, a in lean.items():
        assert a.tobytes() == batch[key].tobytes(), key
    assert mesh.cast_rays(rays.reshape(40, 40, 6), normals=False)["t_hit"].shape == (40, 40)


def test_ray_misses(cube):
    r = cube.cast_rays([[2, 2, -1, 0, 0, 1], [0.5, 0.5, -1, 0, 0, -1]])
    np.testing.assert_array_equal(r["t_hit"], [np.inf, np.inf])
    np.testing.assert_array_equal(r["primitive_ids"], [-1, -1])
    assert np.isnan(r["primitive_uvs"]).all() and np.isnan(r["primitive_normals"]).all()
    assert not r["front_face"].any()


def test_occlusion_count_list(cube):
    rays = np.array([[0.3, 0.6, -1, 0, 0, 1],    # through: 2 crossings at t 1, 2
                     [0.3, 0.6, 0.5, 0, 0, 1],   # from inside: 1 at t 0.5
                     [2, 2, -1, 0, 0, 1],        # miss
                     [0.5, 0.5, -1, 0, 0, 1]])   # through the face diagonals: still 2
    np.testing.assert_array_equal(cube.test_occlusions(rays), [True, True, False, True])
    np.testing.assert_array_equal(cube.test_occlusions(rays, t_max=0.4), [False] * 4)
    c = cube.count_intersections(rays)
    assert c.dtype == np.int32
    np.testing.assert_array_equal(c, [2, 1, 0, 2])
    lst = cube.list_intersections(rays)
    np.testing.assert_array_equal(lst["ray_splits"], [0, 2, 3, 3, 5])
    np.testing.assert_array_equal(lst["ray_ids"], [0, 0, 1, 3, 3])
    np.testing.assert_array_equal(lst["t_hit"], [1, 2, 0.5, 1, 2])
    np.testing.assert_array_equal(lst["front_face"], [True, False, False, True, False])
    assert lst["primitive_uvs"].shape == (5, 2) and lst["primitive_ids"].min() >= 0
    # t ranges apply to every form
    np.testing.assert_array_equal(cube.count_intersections(rays, t_min=1.5), [1, 0, 0, 1])


# ---- spheres ---------------------------------------------------------------------------------

def test_sphere_overlap_and_triangles(cube):
    c = [[1.5, 0.5, 0.5], [1.5, 0.5, 0.5], [0.5, 0.5, 0.5]]
    np.testing.assert_array_equal(cube.sphere_overlap(c, [0.4, 0.6, 0.4]), [False, True, False])
    np.testing.assert_array_equal(cube.sphere_overlap(c, 0.55), [True, True, True])
    s = cube.sphere_triangles(c, [0.4, 0.6, 0.4])
    np.testing.assert_array_equal(s["splits"], [0, 0, 2, 2])
    x1 = [i for i, f in enumerate(CUBE_F) if np.all(CUBE_V[f][:, 0] == 1)]
    np.testing.assert_array_equal(s["primitive_ids"], sorted(x1))
    with pytest.raises(ValueError, match="radii must be a number or have shape"):
        cube.sphere_overlap(c, [0.1, 0.2])
    with pytest.raises(ValueError, match="radii must be >= 0"):
        cube.sphere_overlap(c, -1)
    # NaN made every sphere overlap nothing, silently (found from outside, stop 40).
    with pytest.raises(ValueError, match="not NaN"):
        cube.sphere_overlap(c, np.nan)
    with pytest.raises(ValueError, match="not NaN"):
        cube.sphere_triangles(c, [0.1, np.nan, 0.2])


def test_nan_ray_range_is_refused(cube):
    # NaN t_min / t_max made every ray a miss, silently (found from outside, stop 40).
    rays = np.array([[0.5, 0.5, -1, 0, 0, 1]])
    for call_name in ("cast_rays", "test_occlusions", "count_intersections", "list_intersections"):
        for kw in ("t_min", "t_max"):
            with pytest.raises(ValueError, match=f"{kw} must be a number, not NaN"):
                getattr(cube, call_name)(rays, **{kw: np.nan})


# ---- shapes, dtypes, strides, NaN, threads ------------------------------------------------

QUERIES = {
    "compute_closest_points": 3, "compute_signed_distance": 3, "compute_winding_number": 3,
    "contains": 3, "cast_rays": 6, "test_occlusions": 6, "count_intersections": 6,
    "sphere_overlap": 3, "compute_distance": 3,
}


def call(mesh, name, q, **kw):
    if name == "sphere_overlap":
        return mesh.sphere_overlap(q, 0.3, **kw)
    return getattr(mesh, name)(q, **kw)


def as_dict(r):
    """The arrays of a result (a dict's non-array entries, such as the sign method's
    name, left out)."""
    if not isinstance(r, dict):
        return {"": r}
    return {k: v for k, v in r.items() if isinstance(v, np.ndarray)}


def queries(k, shape):
    q = rng.uniform(-0.5, 1.5, size=shape + (k,))
    if k == 6:
        q[..., 3:] = rng.normal(size=shape + (3,))
    return q


@pytest.mark.parametrize("name", sorted(QUERIES))
@pytest.mark.parametrize("shape", [(7,), (4, 5), (2, 3, 4), (1,), (0,), ()])
def test_leading_dimensions(cube, name, shape):
    k = QUERIES[name]
    q = queries(k, shape)
    flat = as_dict(call(cube, name, q.reshape(-1, k)))
    got = as_dict(call(cube, name, q))
    for key, a in got.items():
        assert a.shape == shape + flat[key].shape[1:], key
        np.testing.assert_array_equal(a.reshape(flat[key].shape), flat[key])


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_input_dtypes_and_strides(cube, name):
    k = QUERIES[name]
    q = queries(k, (50,)).astype(np.float32).astype(np.float64)  # exact in float32 too
    ref = as_dict(call(cube, name, q.astype(cube.dtype)))
    variants = [q.astype(np.float32).astype(cube.dtype),          # same values
                np.asfortranarray(q.astype(cube.dtype)),          # column-major
                np.repeat(q.astype(cube.dtype), 2, axis=0)[::2],  # row stride 2
                list(map(list, q.astype(cube.dtype)))]            # nested lists
    for v in variants:
        got = as_dict(call(cube, name, v))
        for key in ref:
            np.testing.assert_array_equal(got[key], ref[key], err_msg=f"{name} {key}")
    # integer inputs are converted
    as_dict(call(cube, name, np.ones((3, k), dtype=np.int32)))


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_bad_shapes_and_dtypes(cube, name):
    k = QUERIES[name]
    what = "rays" if k == 6 else ("centers" if name == "sphere_overlap" else "points")
    with pytest.raises(ValueError, match=rf"{what} must have shape \(\.\.\., {k}\), got shape \(5, {k - 1}\)"):
        call(cube, name, np.zeros((5, k - 1)))
    with pytest.raises(ValueError, match=rf"{what} must have shape \(\.\.\., {k}\)"):
        call(cube, name, 1.0)
    with pytest.raises(ValueError, match="float32 or float64"):
        call(cube, name, np.zeros((5, k), dtype=complex))
    with pytest.raises(ValueError, match="float32 or float64"):
        call(cube, name, np.array([["a"] * k]))
    with pytest.raises(ValueError, match="threads"):
        call(cube, name, np.zeros((5, k)), threads=-1)
    with pytest.raises(ValueError, match="threads"):  # was nanobind's TypeError (stop 40)
        call(cube, name, np.zeros((5, k)), threads=2**40)


def test_origins_directions_mismatch(cube):
    with pytest.raises(ValueError, match="same shape"):
        cube.cast_rays(np.zeros((4, 3)), np.zeros((5, 3)))
    with pytest.raises(ValueError, match=r"directions must have shape \(\.\.\., 3\)"):
        cube.cast_rays(np.zeros((4, 3)), np.zeros((4, 2)))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_queries_are_misses(cube, bad):
    p = outside_points(6)
    q = p.copy()
    q[2, 1] = bad
    r, ref = cube.compute_closest_points(q), cube.compute_closest_points(p)
    assert r["primitive_ids"][2] == -1 and r["feature"][2] == -1
    assert np.isnan(r["distance"][2]) and np.isnan(r["points"][2]).all()
    keep = np.arange(6) != 2
    for key in ref:
        np.testing.assert_array_equal(r[key][keep], ref[key][keep])
    sd = cube.compute_signed_distance(q)["signed_distance"]
    assert np.isnan(sd[2]) and not np.isnan(sd[keep]).any()
    assert cube.contains(q)[2] == prox.UNSURE
    rays = np.hstack([q, np.tile([0.0, 0, 1], (6, 1))])
    hits = cube.cast_rays(rays)
    assert hits["t_hit"][2] == np.inf and hits["primitive_ids"][2] == -1
    rays[3, 4] = bad  # a non-finite direction
    assert cube.cast_rays(rays)["primitive_ids"][3] == -1
    assert cube.count_intersections(rays)[3] == 0 and not cube.test_occlusions(rays)[3]
    assert not cube.sphere_overlap(q, 0.5)[2]


def test_threads_give_identical_bits(cube):
    p = rng.uniform(-1, 2, size=(20000, 3))
    rays = queries(6, (20000,))
    for name, q in (("compute_closest_points", p), ("compute_signed_distance", p),
                    ("cast_rays", rays), ("count_intersections", rays)):
        one = as_dict(getattr(cube, name)(q, threads=1))
        for t in (2, 3, None, 0):
            many = as_dict(getattr(cube, name)(q, threads=t))
            for key in one:
                assert one[key].tobytes() == many[key].tobytes(), (name, key, t)


def test_float32_mesh_rounds_queries():
    m32 = prox.Mesh(CUBE_V.astype(np.float32), CUBE_F)
    p = outside_points(100)
    r = m32.compute_closest_points(p)
    assert r["distance"].dtype == np.float32
    np.testing.assert_array_equal(r["distance"], m32.compute_closest_points(
        p.astype(np.float32))["distance"])
