"""Issue 14's API from Python: the certified Hausdorff interval (one-sided and
symmetric, with worst points), surface sampling, mean / RMS / Chamfer; analytic
answers on cubes and the same numbers as `prox hausdorff` and `prox sample`."""
import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

import prox
from conftest import CUBE_F, CUBE_V

rng = np.random.default_rng(14)

CLI = os.environ.get("PROX_CLI") or str(pathlib.Path(__file__).parents[2] / "build/apps/prox")
needs_cli = pytest.mark.skipif(not pathlib.Path(CLI).exists() and not os.environ.get("PROX_CLI"),
                               reason="no built prox command (set PROX_CLI)")


def run(*args):
    return subprocess.run([CLI, *map(str, args)], check=True, capture_output=True,
                          text=True).stdout


def cube(lo=0.0, size=1.0, dtype=np.float64):
    return prox.Mesh((CUBE_V * size + lo).astype(dtype), CUBE_F)


# ---- Hausdorff ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
def test_hausdorff_nested_cubes(dtype):
    """Inner cube [0.25, 0.75]^3 in the unit cube: h(inner, outer) = 0.25 (a face centre
    of the inner cube), h(outer, inner) = 0.25 sqrt(3) (an outer corner)."""
    inner, outer = cube(0.25, 0.5, dtype), cube(dtype=dtype)
    h = inner.hausdorff(outer, tolerance=1e-4)
    fwd, back = h["forward"], h["backward"]
    assert h["tolerance"] == 1e-4 and h["converged"]
    assert h["diagonal"] == pytest.approx(np.sqrt(3))
    for side, want in ((fwd, 0.25), (back, 0.25 * np.sqrt(3))):
        assert side["lower"] <= want <= side["upper"]
        assert side["upper"] - side["lower"] <= 1e-4 and side["converged"]
        assert side["subtriangles"] >= 12 and side["rounds"] >= 0 and side["point_queries"] > 0
    assert h["lower"] == max(fwd["lower"], back["lower"])
    assert h["upper"] == max(fwd["upper"], back["upper"])
    # the worst point of the outer cube is one of its corners, nearest the inner corner
    wp, wc = back["worst_point"], back["worst_closest"]
    assert np.all((np.abs(wp) < 1e-6) | (np.abs(wp - 1) < 1e-6))
    np.testing.assert_allclose(np.abs(wc - wp), 0.25, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(wp - wc), back["lower"], atol=2e-5)
    assert 0 <= back["worst_triangle"] < 12 and 0 <= back["worst_closest_triangle"] < 12
    # one-sided: the same side, with its tolerance and the joint diagonal
    one = inner.hausdorff(outer, tolerance=1e-4, symmetric=False)
    assert one["lower"] == fwd["lower"] and one["upper"] == fwd["upper"]
    assert one["tolerance"] == 1e-4 and one["diagonal"] == pytest.approx(np.sqrt(3))
    np.testing.assert_array_equal(one["worst_point"], fwd["worst_point"])


def test_hausdorff_tolerances_and_errors():
    a, b = cube(), cube(np.array([0.1, 0, 0]))
    h = a.hausdorff(b)  # default: 1e-4 of the joint diagonal
    assert h["tolerance"] == pytest.approx(1e-4 * np.linalg.norm([1.1, 1, 1]))
    assert h["lower"] <= 0.1 <= h["upper"] and h["upper"] - h["lower"] <= h["tolerance"]
    r = a.hausdorff(b, relative=1e-2)
    assert r["tolerance"] == pytest.approx(1e-2 * h["diagonal"])
    assert r["lower"] <= 0.1 <= r["upper"]
    one = a.hausdorff(b, threads=1)  # the same answer for any thread count
    assert (one["lower"], one["upper"]) == (h["lower"], h["upper"])
    assert one["backward"]["worst_point"].tobytes() == h["backward"]["worst_point"].tobytes()
    c, s_ = np.cos(0.3), np.sin(0.3)  # a turned cube: the worst points lie inside triangles
    turned = prox.Mesh((CUBE_V - 0.5) @ np.array([[c, -s_, 0], [s_, c, 0], [0, 0, 1]]).T + 0.5,
                       CUBE_F)
    capped = a.hausdorff(turned, tolerance=1e-12, max_subtriangles=50)
    assert not capped["converged"] and capped["lower"] <= capped["upper"]
    assert a.hausdorff(turned, tolerance=1e-6)["converged"]
    for kw, msg in (({"tolerance": 0}, "tolerance must be"), ({"tolerance": np.inf}, "tolerance"),
                    ({"relative": 1}, "relative must be"), ({"tolerance": 1, "relative": 0.1},
                                                            "not both"),
                    ({"max_subtriangles": 0}, "max_subtriangles")):
        with pytest.raises(ValueError, match=msg):
            a.hausdorff(b, **kw)
    with pytest.raises(ValueError, match="same dtype"):
        a.hausdorff(cube(dtype=np.float32))
    with pytest.raises(ValueError, match="other must be a prox.Mesh"):
        a.hausdorff("b.off")
    with pytest.raises(ValueError, match="need triangles"):
        a.hausdorff(prox.Mesh(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64)))


def outward_bracket(text, label):
    m = re.search(re.escape(label) + r"\s+max\s+\[([^,]+), ([^\]]+)\]", text)
    return float(m.group(1)), float(m.group(2))


@needs_cli
def test_hausdorff_and_chamfer_match_cli(tmp_path, cgal_meshes):
    a_path = cgal_meshes / "bunny00.off"
    a = prox.load(a_path)
    v = a.vertices + rng.normal(scale=2e-3 * np.ptp(a.bounds, axis=0).max(), size=a.vertices.shape)
    b_path = tmp_path / "b.off"
    with open(b_path, "w") as f:
        f.write(f"OFF\n{len(v)} {a.num_triangles} 0\n")
        f.writelines(" ".join(f"{x:.17g}" for x in row) + "\n" for row in v)
        f.writelines("3 " + " ".join(map(str, t)) + "\n" for t in a.faces)
    b = prox.load(b_path)
    out = run("hausdorff", a_path, b_path, "--tolerance", "1e-4d", "--samples", 3000, "--seed", 5,
              "-o", tmp_path / "s.npy")
    h = a.hausdorff(b, relative=1e-4)
    for label, side in (("A -> B", h["forward"]), ("B -> A", h["backward"])):
        lo, hi = outward_bracket(out, label)  # 9 digits, rounded outward
        assert lo <= side["lower"] and side["upper"] <= hi
        assert side["lower"] - lo <= 1e-8 * hi and hi - side["upper"] <= 1e-8 * hi
    m = re.search(r"Hausdorff \(symmetric\)\s+\[([^,]+), ([^\]]+)\]", out)
    lo, hi = float(m.group(1)), float(m.group(2))
    assert lo <= h["lower"] <= h["upper"] <= hi
    c = a.chamfer(b, samples=3000, seed=5, return_distances=True)
    cli = np.load(tmp_path / "s.npy")  # A's samples: x y z triangle w0 w1 w2 distance
    assert cli[:, 7].tobytes() == c["forward"]["distances"].tobytes()
    l2 = float(re.search(r"Chamfer L2 = .* = (\S+) \(", out).group(1))
    l1 = float(re.search(r"Chamfer L1 = .* = (\S+) \(", out).group(1))
    assert c["chamfer_l2"] == pytest.approx(l2, rel=1e-5)
    assert c["chamfer_l1"] == pytest.approx(l1, rel=1e-5)
    means = re.findall(r"mean (\S+) \(", out)
    rms = re.findall(r"RMS  (\S+) \(", out)
    assert c["forward"]["mean"] == pytest.approx(float(means[0]), rel=1e-5)
    assert c["backward"]["rms"] == pytest.approx(float(rms[1]), rel=1e-5)
    # and against its own definition on the samples (sample + compute_distance)
    sa = a.sample(3000, seed=5, method="stratified")
    sb = b.sample(3000, seed=6, method="stratified")
    da, db = b.compute_distance(sa["points"]), a.compute_distance(sb["points"])
    assert da.tobytes() == c["forward"]["distances"].tobytes()
    assert db.tobytes() == c["backward"]["distances"].tobytes()
    assert c["chamfer_l2"] == pytest.approx(np.mean(da ** 2) + np.mean(db ** 2), rel=1e-12)
    assert c["chamfer_l1"] == pytest.approx(da.mean() + db.mean(), rel=1e-12)
    assert c["forward"]["rms"] == pytest.approx(np.sqrt(np.mean(da ** 2)), rel=1e-12)
    assert c["forward"]["max"] == da.max() and c["forward"]["argmax"] == int(np.argmax(da))
    assert c["forward"]["max"] <= h["forward"]["upper"]  # a sampled max is a lower bound


def test_chamfer_nested_cubes():
    inner, outer = cube(0.25, 0.5), cube()
    c = inner.chamfer(outer, samples=2000)
    assert c["samples"] == 2000 and "distances" not in c["forward"]
    # every inner point is 0.25 from the outer surface along its face normal, or nearer
    assert 0 < c["forward"]["max"] <= 0.25 + 1e-12
    assert c["backward"]["max"] <= 0.25 * np.sqrt(3) + 1e-12
    assert c["chamfer_l1"] == pytest.approx(c["forward"]["mean"] + c["backward"]["mean"])
    assert c["chamfer_l2"] == pytest.approx(c["forward"]["mean_sq"] + c["backward"]["mean_sq"])
    for kw, msg in (({"samples": 0}, "samples must be"), ({"method": "grid"}, "uniform"),
                    ({"seed": -1}, "seed must be")):
        with pytest.raises(ValueError, match=msg):
            inner.chamfer(outer, **kw)


# ---- sampling ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("method", ["uniform", "stratified"])
def test_sample_on_the_cube(dtype, method):
    m = cube(dtype=dtype)
    s = m.sample(6000, seed=3, method=method)
    p, ids, w = s["points"], s["primitive_ids"], s["barycentrics"]
    assert p.shape == (6000, 3) and p.dtype == dtype and ids.dtype == np.int64
    assert w.shape == (6000, 3) and w.dtype == dtype
    assert np.all(w >= 0) and np.allclose(w.sum(axis=1), 1, atol=1e-6)
    corners = m.vertices[m.faces[ids]]  # (n, 3 corners, 3)
    np.testing.assert_allclose(np.einsum("nc,ncx->nx", w, corners), p, atol=1e-6)
    np.testing.assert_allclose(m.compute_distance(p), 0, atol=1e-6)  # on the surface
    counts = np.bincount(ids, minlength=12)  # all 12 triangles have area 1/2
    if method == "stratified":
        assert counts.min() >= 499 and counts.max() <= 501
    else:
        assert counts.min() > 350 and counts.max() < 650
    again = m.sample(6000, seed=3, method=method, threads=1)
    for k in s:
        assert s[k].tobytes() == again[k].tobytes()
    assert m.sample(6000, seed=4, method=method)["points"].tobytes() != p.tobytes()
    if method == "uniform":  # sample i does not depend on n
        np.testing.assert_array_equal(m.sample(10, seed=3)["points"], p[:10])


def test_sample_errors():
    m = cube()
    for n in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="n must be"):
            m.sample(n)
    with pytest.raises(ValueError, match="uniform"):
        m.sample(5, method="poisson")
    flat = prox.Mesh([[0, 0, 0], [1, 0, 0], [2, 0, 0]], [[0, 1, 2]])
    with pytest.raises(ValueError, match="area"):
        flat.sample(5)


@needs_cli
@pytest.mark.parametrize("method", ["uniform", "stratified"])
def test_sample_matches_cli(tmp_path, cgal_meshes, method):
    path = cgal_meshes / "bunny00.off"
    run("sample", path, "-n", 2500, "--seed", 9, "--method", method, "-o", tmp_path / "s.npy")
    cli = np.load(tmp_path / "s.npy")
    s = prox.load(path).sample(2500, seed=9, method=method)
    assert cli[:, :3].copy().tobytes() == s["points"].tobytes()
    np.testing.assert_array_equal(cli[:, 3], s["primitive_ids"])
    assert cli[:, 4:].copy().tobytes() == s["barycentrics"].tobytes()
