"""Issue 10's API from Python: sign methods and their confidence, contains, the mesh
diagnostics, reorient, and the SDF grid; analytic answers on the unit cube (flipped,
opened, doubled) and byte-identical to `prox closest --signed` and `prox sdf`."""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import prox
from conftest import CUBE_F, CUBE_V, tol

rng = np.random.default_rng(10)
METHODS = ("winding", "pseudonormal", "parity")

CLI = os.environ.get("PROX_CLI") or str(pathlib.Path(__file__).parents[2] / "build/apps/prox")
needs_cli = pytest.mark.skipif(not pathlib.Path(CLI).exists() and not os.environ.get("PROX_CLI"),
                               reason="no built prox command (set PROX_CLI)")


def run(*args):
    return subprocess.run([CLI, *map(str, args)], check=True, capture_output=True, text=True)


def cube_sd(p):
    """Exact signed distance to the unit cube (negative inside)."""
    out = np.linalg.norm(p - np.clip(p, 0, 1), axis=-1)
    inside = -np.min(np.minimum(p, 1 - p), axis=-1)
    return np.where(np.all((p > 0) & (p < 1), axis=-1), inside, out)


def points(n):
    return rng.uniform(-0.4, 1.4, size=(n, 3))


# ---- sign methods ------------------------------------------------------------------------

@pytest.mark.parametrize("method", METHODS + ("auto",))
def test_every_method_signs_the_cube(cube, dtype, method):
    p = points(600)
    r = cube.compute_signed_distance(p, method=method)
    np.testing.assert_allclose(r["signed_distance"], cube_sd(p.astype(dtype)), atol=tol(dtype),
                               rtol=8 * np.finfo(dtype).eps)
    want = "pseudonormal" if method == "auto" else method
    assert r["method"] == want == cube.sign_method(method)
    # Within rounding of the surface (2^10 eps of the scale, sign.hpp's
    # rounding_reach) pseudonormal and winding hand a point to the rays.
    rays = r["sign_method"] == prox.SIGN_METHODS.index("parity")
    if want != "parity":
        np.testing.assert_array_equal(r["sign_method"][~rays], prox.SIGN_METHODS.index(want))
        assert (np.abs(r["signed_distance"][rays]) <= 1024 * np.finfo(dtype).eps * 8).all()
        rays_only = rays
    else:
        rays_only = np.zeros(len(p), bool)
    np.testing.assert_array_equal(r["confidence"], 0)  # sure everywhere on a closed cube
    c = cube.compute_closest_points(p)
    np.testing.assert_array_equal(r["points"], c["points"])  # the same one traversal
    np.testing.assert_array_equal(r["primitive_ids"], c["primitive_ids"])
    np.testing.assert_array_equal(np.abs(r["signed_distance"]), c["distance"])
    if method == "parity":
        np.testing.assert_array_equal(r["votes"], 3)
        np.testing.assert_array_equal(r["inside_votes"], np.where(r["signed_distance"] < 0, 3, 0))
        assert np.isnan(r["winding_number"]).all()
    elif method == "winding":
        w = ~rays_only
        np.testing.assert_allclose(r["winding_number"][w], r["signed_distance"][w] < 0, atol=0.02)
        np.testing.assert_array_equal(r["votes"][w], 0)
    else:
        assert np.isnan(r["winding_number"]).all()


def test_parity_rays_and_bad_options(cube):
    p = points(200)
    r = cube.compute_signed_distance(p, method="parity", parity_rays=7)
    np.testing.assert_array_equal(r["votes"], 7)
    np.testing.assert_array_equal(r["signed_distance"] < 0, cube_sd(p) < 0)
    for bad in (2, 0, 17, 1.0, True):
        with pytest.raises(ValueError, match="parity_rays must be odd"):
            cube.compute_signed_distance(p, method="parity", parity_rays=bad)
    for bad in ("none", "Winding", None, 1):
        with pytest.raises(ValueError, match="method must be one of"):
            cube.compute_signed_distance(p, method=bad)
    # the first version's name still works
    assert cube.compute_signed_distance(p, method="winding_number")["method"] == "winding"


def test_flipped_cube():
    """Every triangle turned inward: auto takes parity (exact whatever the orientation);
    pseudonormal gets the sign wrong and says unsure; reorient repairs it."""
    m = prox.Mesh(CUBE_V, CUBE_F[:, ::-1])
    d = m.diagnostics
    assert d["welded_closed"] and d["oriented"] and not d["outward"] and d["volume"] < 0
    assert m.sign_method() == "parity"
    p = points(400)
    r = m.compute_signed_distance(p)
    assert r["method"] == "parity"
    np.testing.assert_allclose(r["signed_distance"], cube_sd(p), atol=tol(np.float64))
    np.testing.assert_array_equal(r["confidence"], 0)
    w = m.compute_signed_distance(p, method="winding")  # |w| >= 1/2: orientation-blind
    np.testing.assert_array_equal(w["signed_distance"], r["signed_distance"])
    pn = m.compute_signed_distance(p, method="pseudonormal")
    off = cube_sd(p) != 0
    np.testing.assert_array_equal(pn["signed_distance"][off], -r["signed_distance"][off])
    np.testing.assert_array_equal(pn["confidence"], 1)  # unsure: the mesh does not suit it
    fixed, info = m.reorient()
    assert info == {"flipped": 12, "conflicts": 0}
    assert fixed.is_outward and fixed.volume == pytest.approx(1)
    np.testing.assert_array_equal(fixed.vertices, m.vertices)
    assert fixed.sign_method() == "pseudonormal"
    np.testing.assert_array_equal(fixed.compute_signed_distance(p)["signed_distance"],
                                  r["signed_distance"])
    # A cube with a third of its triangles flipped is made whole too.
    mixed = CUBE_F.copy()
    mixed[::3] = mixed[::3, ::-1]
    half = prox.Mesh(CUBE_V, mixed)
    assert not half.is_oriented and half.diagnostics["inconsistent_edges"] > 0
    again, info = half.reorient(threads=1)
    assert info["flipped"] == 4 and again.is_oriented and again.is_outward


def test_diagnostics(dtype):
    cube = prox.Mesh(CUBE_V.astype(dtype), CUBE_F)
    d = cube.diagnostics
    assert d["welded_closed"] and d["manifold"] and d["oriented"] and d["outward"]
    assert d["components"] == 1 and d["duplicate_triangles"] == 0
    assert d["welded_degenerate_triangles"] == 0 and d["has_inside"] and not d["planar"]
    assert d["area"] == pytest.approx(6, abs=1e-12) and d["volume"] == pytest.approx(1, abs=1e-12)
    assert d["recommended_sign_method"] == "pseudonormal" and "pseudonormal" in d["verdict"]
    assert cube.is_closed and cube.is_manifold and cube.is_oriented and cube.is_outward
    assert cube.components == 1 and cube.area == d["area"] and cube.volume == d["volume"]
    assert cube.verdict == d["verdict"]
    assert d["crossing_components"] == 0 and d["self_intersecting_components"] == 0
    assert d["misnested_components"] == 0 and d["inward_components"] == 0
    # two cubes pushed into each other: closed, oriented, outward, yet their
    # union is signed by winding (the pseudonormal errs where they overlap)
    pushed = prox.Mesh(np.vstack([CUBE_V, CUBE_V + 0.5]).astype(dtype),
                       np.vstack([CUBE_F, CUBE_F + 8]))
    dp = pushed.diagnostics
    assert dp["welded_closed"] and dp["oriented"] and dp["outward"]
    assert dp["crossing_components"] == 2 and dp["recommended_sign_method"] == "winding"
    # two cubes, one triangle repeated, one degenerate triangle
    v = np.vstack([CUBE_V, CUBE_V + 3])
    f = np.vstack([CUBE_F, CUBE_F + 8, CUBE_F[:1], [[0, 0, 1]]])
    two = prox.Mesh(v.astype(dtype), f)
    d2 = two.diagnostics
    assert d2["components"] == 2 and d2["duplicate_triangles"] == 1
    assert d2["welded_degenerate_triangles"] == 1 and not d2["manifold"]
    assert d2["area"] == pytest.approx(12.5, abs=1e-12)  # 2 x 6, the repeat 1/2, the sliver 0
    # a triangle soup (every triangle with its own corners) welds into a closed cube
    soup = prox.Mesh(CUBE_V[CUBE_F.reshape(-1)].astype(dtype), np.arange(36).reshape(12, 3))
    assert not soup.diagnostics["closed"] and soup.is_closed
    assert soup.diagnostics["welded_vertices"] == 8 and soup.sign_method() == "pseudonormal"
    # open: one face removed
    top = [i for i, t in enumerate(CUBE_F) if np.all(CUBE_V[t][:, 2] == 1)]
    op = prox.Mesh(CUBE_V, np.delete(CUBE_F, top, axis=0))
    assert not op.is_closed and op.diagnostics["welded_boundary_edges"] == 4
    assert op.sign_method() == "winding"


def test_mesh_without_inside():
    """One flat triangle: nothing is signed (NaN, no_inside), contains is unsure, and a
    grid is an error."""
    m = prox.Mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    assert not m.diagnostics["has_inside"] and m.sign_method("auto") == "none"
    r = m.compute_signed_distance([[0.2, 0.2, 0.5], [np.nan, 0, 0]])
    assert r["method"] == "none" and np.isnan(r["signed_distance"]).all()
    assert list(r["confidence"]) == [prox.CONFIDENCE.index("no_inside"), -1]
    assert list(r["sign_method"]) == [prox.SIGN_METHODS.index("none"), -1]
    assert r["primitive_ids"][0] == 0
    np.testing.assert_array_equal(m.contains([[0.2, 0.2, 0.5]]), [prox.UNSURE])
    with pytest.raises(ValueError, match="no inside"):
        m.sdf_grid(res=8)


def test_contains_matches_signed_distance(cgal_meshes):
    m = prox.load(cgal_meshes / "bunny00.off")
    lo, hi = m.bounds
    p = rng.uniform(lo, hi, size=(4000, 3))
    for method in METHODS:
        r = m.compute_signed_distance(p, method=method)
        c = m.contains(p, method=method)
        want = np.where(r["confidence"] != 0, prox.UNSURE,
                        np.where(r["signed_distance"] <= 0, prox.INSIDE, prox.OUTSIDE))
        np.testing.assert_array_equal(c, want, err_msg=method)
        assert (c == prox.INSIDE).sum() > 100


@needs_cli
@pytest.mark.parametrize("name", ["bunny00.off", "cube-meshed.off", "blob.off"])
@pytest.mark.parametrize("method", ["auto"] + list(METHODS))
def test_signed_matches_cli(tmp_path, cgal_meshes, name, method):
    path = cgal_meshes / name
    mesh = prox.load(path)
    lo, hi = mesh.bounds
    pts = rng.uniform(lo - 0.2 * (hi - lo), hi + 0.2 * (hi - lo), size=(1500, 3))
    pts[3] = np.nan
    np.save(tmp_path / "p.npy", pts)
    run("closest", path, tmp_path / "p.npy", "-o", tmp_path / "c.npz", "--signed",
        "--sign-method", method)
    cli = np.load(tmp_path / "c.npz")
    r = mesh.compute_signed_distance(pts, method=method)
    for col in ("signed_distance", "winding_number", "sign_method", "confidence"):
        assert cli[col].dtype == r[col].dtype, col
        assert cli[col].tobytes() == r[col].tobytes(), col
    assert cli["triangle"].tobytes() == r["primitive_ids"].tobytes()
    assert r["method"] == (mesh.sign_method() if method == "auto" else method)


# ---- the SDF grid ------------------------------------------------------------------------

def test_sdf_grid_on_the_cube(cube, dtype):
    g = cube.sdf_grid(res=9, padding=0.25)
    v = g["values"]
    assert v.dtype == dtype and v.shape == (9, 9, 9) and v.flags.f_contiguous
    np.testing.assert_allclose(g["origin"], -0.25)  # padded box [-0.25, 1.25], 8 cells
    np.testing.assert_allclose(g["spacing"], 0.1875)
    assert g["method"] == "pseudonormal" and g["unsure"] == 0
    assert 0 < g["sign_evaluations"] <= v.size
    i, j, k = np.meshgrid(np.arange(9), np.arange(9), np.arange(9), indexing="ij")
    nodes = g["origin"] + np.stack([i, j, k], axis=-1) * g["spacing"]
    np.testing.assert_allclose(v, cube_sd(nodes), atol=tol(dtype))
    # every node is the independent signed query at that node, bit for bit
    q = cube.compute_signed_distance(nodes.astype(dtype))["signed_distance"]
    assert v.tobytes(order="F") == q.tobytes(order="F")


def test_sdf_grid_options(cube):
    g = cube.sdf_grid(res=(5, 7, 3), padding=0)
    assert g["values"].shape == (5, 7, 3)
    np.testing.assert_allclose(g["origin"], 0)
    np.testing.assert_allclose(g["spacing"], [1 / 4, 1 / 6, 1 / 2])
    g = cube.sdf_grid(dx=0.5, padding=0.1)  # 1.2 wide: ceil(2.4) + 1 = 4 nodes, centred
    assert g["values"].shape == (4, 4, 4)
    np.testing.assert_allclose(g["origin"], 0.5 - 0.75)
    b = cube.sdf_grid(res=12, band=0.1)
    full = cube.sdf_grid(res=12)
    np.testing.assert_array_equal(b["values"], np.clip(full["values"], -0.1, 0.1))
    f = cube.sdf_grid(res=12, float32=True)
    assert f["values"].dtype == np.float32
    np.testing.assert_array_equal(f["values"], full["values"].astype(np.float32))
    for m in METHODS:
        np.testing.assert_array_equal(cube.sdf_grid(res=12, method=m)["values"], full["values"])
    assert cube.sdf_grid(res=12, threads=1)["values"].tobytes() == full["values"].tobytes()
    for kw, msg in (({"res": 8, "dx": 0.1}, "res or dx"), ({"res": 1}, "res must be"),
                    ({"res": (4, 0, 4)}, "res must have"), ({"res": 2.5}, "res must be"),
                    ({"dx": -1}, "dx must be"), ({"padding": -0.1}, "padding must be"),
                    ({"band": 0}, "band must be"), ({"method": "x"}, "method must be"),
                    ({"res": (100000, 100000, 100)}, "too large")):
        with pytest.raises(ValueError, match=msg):
            cube.sdf_grid(**kw)


@needs_cli
@pytest.mark.parametrize("name,args", [
    ("bunny00.off", {"res": 20}),
    ("bunny00.off", {"res": (9, 14, 11), "method": "winding", "padding": 0.3}),
    ("cube-meshed.off", {"dx": 0.15, "band": 0.2, "method": "parity"}),
    ("blob.off", {"res": 16, "float32": True, "method": "pseudonormal"}),
])
def test_sdf_grid_matches_cli(tmp_path, cgal_meshes, name, args):
    path = cgal_meshes / name
    mesh = prox.load(path)
    flags = []
    if "res" in args:
        r = args["res"]
        flags += ["--res", r if isinstance(r, int) else "x".join(map(str, r))]
    for key, flag in (("dx", "--dx"), ("band", "--band"), ("padding", "--padding"),
                      ("method", "--sign-method")):
        if key in args:
            flags += [flag, args[key]]
    if args.get("float32"):
        flags.append("--float32")
    run("sdf", path, "-o", tmp_path / "g.npy", *flags)
    cli = np.load(tmp_path / "g.npy")
    meta = json.loads((tmp_path / "g.json").read_text())
    g = mesh.sdf_grid(**args)
    assert g["values"].T.shape == cli.shape and g["values"].dtype == cli.dtype
    assert g["values"].T.tobytes() == cli.tobytes()
    assert g["origin"].tolist() == meta["origin"] and g["spacing"].tolist() == meta["spacing"]
    assert g["method"] == meta["sign_method"] and g["unsure"] == meta["unsure_nodes"]


@pytest.mark.parametrize("args", [{"res": 14}, {"res": (9, 11, 13), "band": 0.2,
                                                 "method": "winding"},
                                  {"dx": 0.2, "float32": True, "method": "parity"}])
def test_sdf_grid_z_planes(cgal_meshes, args):
    """Slabs of z-planes joined are the whole grid bit for bit, with the same counts."""
    mesh = prox.load(cgal_meshes / "bunny00.off")
    whole = mesh.sdf_grid(**args)
    nz = whole["values"].shape[2]
    cuts = [0, 1, nz // 2, nz - 1, nz]
    slabs = [mesh.sdf_grid(z_planes=(a, b), **args) for a, b in zip(cuts, cuts[1:])]
    for (a, b), s in zip(zip(cuts, cuts[1:]), slabs):
        assert s["values"].shape == whole["values"].shape[:2] + (b - a,)
        assert s["values"].tobytes(order="F") == whole["values"][:, :, a:b].tobytes(order="F")
        assert s["origin"].tobytes() == whole["origin"].tobytes()
        assert s["spacing"].tobytes() == whole["spacing"].tobytes()
    assert sum(s["unsure"] for s in slabs) == whole["unsure"]
    assert sum(s["sign_evaluations"] for s in slabs) == whole["sign_evaluations"]
    assert mesh.sdf_grid(z_planes=(nz - 2, 10**6), **args)["values"].shape[2] == 2
    assert mesh.sdf_grid(z_planes=(3, 3), **args)["values"].shape[2] == 0
    for bad, msg in (((nz + 1, nz + 2), "not in the grid"), ((3, 2), "0 <= k0 <= k1"),
                     ((-1, 2), "0 <= k0 <= k1"), ((0.5, 2), "two integers"),
                     ((1,), "two integers")):
        with pytest.raises(ValueError, match=msg):
            mesh.sdf_grid(z_planes=bad, **args)
