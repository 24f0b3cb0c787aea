"""The module against the prox command: the same mesh and queries give byte-identical
float64 arrays (CTest sets PROX_CLI to the built `prox`)."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

import prox

CLI = os.environ.get("PROX_CLI")
if not CLI:
    CLI = str(pathlib.Path(__file__).parents[2] / "build/apps/prox")
if not pathlib.Path(CLI).exists():
    if os.environ.get("PROX_CLI"):
        raise RuntimeError(f"PROX_CLI={CLI} does not exist")
    pytest.skip("no built prox command (set PROX_CLI)", allow_module_level=True)

rng = np.random.default_rng(11)


def run(*args):
    subprocess.run([CLI, *map(str, args)], check=True, capture_output=True)


@pytest.mark.parametrize("name", ["bunny00.off", "cube-meshed.off", "blob.off"])
def test_closest_matches_cli(tmp_path, cgal_meshes, name):
    path = cgal_meshes / name
    mesh = prox.load(path)
    lo, hi = mesh.bounds
    pts = rng.uniform(lo - 0.2 * (hi - lo), hi + 0.2 * (hi - lo), size=(3000, 3))
    pts[5] = np.nan
    np.save(tmp_path / "p.npy", pts)
    run("closest", path, tmp_path / "p.npy", "-o", tmp_path / "c.npz", "--signed",
        "--sign-method", "winding")
    cli = np.load(tmp_path / "c.npz")  # one array per column
    r = mesh.compute_closest_points(pts)
    s = mesh.compute_signed_distance(pts, method="winding")
    cols = {"distance": r["distance"], "closest_x": r["points"][:, 0],
            "closest_y": r["points"][:, 1], "closest_z": r["points"][:, 2],
            "triangle": r["primitive_ids"], "u": r["barycentrics"][:, 0],
            "v": r["barycentrics"][:, 1], "w": r["barycentrics"][:, 2],
            "signed_distance": s["signed_distance"], "winding_number": s["winding_number"]}
    for c, a in cols.items():
        assert cli[c].dtype == a.dtype, c
        assert cli[c].tobytes() == np.ascontiguousarray(a).tobytes(), f"column {c}"
    np.testing.assert_array_equal(cli["feature"], r["feature"])


@pytest.mark.parametrize("name", ["bunny00.off", "cube-meshed.off"])
def test_raycast_matches_cli(tmp_path, cgal_meshes, name):
    path = cgal_meshes / name
    mesh = prox.load(path)
    c = mesh.bounds.mean(axis=0)
    o = c + rng.normal(size=(2000, 3)) * np.ptp(mesh.bounds, axis=0) * 2
    d = c + rng.normal(size=(2000, 3)) * 0.2 * np.ptp(mesh.bounds, axis=0) - o
    rays = np.hstack([o, d])
    (tmp_path / "r.txt").write_text("".join(" ".join(f"{x:.17g}" for x in row) + "\n"
                                            for row in rays))
    run("raycast", path, tmp_path / "r.txt", "-o", tmp_path / "h.npz")
    cli = np.load(tmp_path / "h.npz")  # ray, t, triangle, u, v, w, hit_*, normal_*, front_face
    r = mesh.cast_rays(rays)
    assert cli["t"].tobytes() == r["t_hit"].tobytes()
    assert cli["triangle"].tobytes() == r["primitive_ids"].tobytes()
    assert cli["v"].tobytes() == np.ascontiguousarray(r["primitive_uvs"][:, 0]).tobytes()
    assert cli["w"].tobytes() == np.ascontiguousarray(r["primitive_uvs"][:, 1]).tobytes()
    np.testing.assert_array_equal(cli["front_face"].astype(bool), r["front_face"])
    assert (r["primitive_ids"] >= 0).sum() > 100
    run("raycast", path, tmp_path / "r.txt", "--count", "-o", tmp_path / "n.npz")
    np.testing.assert_array_equal(np.load(tmp_path / "n.npz")["count"],
                                  mesh.count_intersections(rays))
    run("raycast", path, tmp_path / "r.txt", "--any", "-o", tmp_path / "a.npz")
    np.testing.assert_array_equal(np.load(tmp_path / "a.npz")["hit"].astype(bool),
                                  mesh.test_occlusions(rays))
