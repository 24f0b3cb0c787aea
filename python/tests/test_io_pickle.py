"""prox.load for every format prox reads, and pickling without a rebuild."""
import io
import pickle
import struct

import numpy as np
import pytest

import prox
from conftest import CUBE_F, CUBE_V

rng = np.random.default_rng(3)


def write_formats(tmp_path):
    files = {}
    off = tmp_path / "cube.off"
    off.write_text("OFF\n8 12 0\n" + "".join(f"{x} {y} {z}\n" for x, y, z in CUBE_V) +
                   "".join(f"3 {a} {b} {c}\n" for a, b, c in CUBE_F))
    files["off"] = off
    obj = tmp_path / "cube.obj"
    obj.write_text("".join(f"v {x} {y} {z}\n" for x, y, z in CUBE_V) +
                   "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in CUBE_F))
    files["obj"] = obj
    ply = tmp_path / "cube.ply"
    header = ("ply\nformat binary_little_endian 1.0\nelement vertex 8\nproperty double x\n"
              "property double y\nproperty double z\nelement face 12\n"
              "property list uchar int vertex_indices\nend_header\n").encode()
    body = b"".join(struct.pack("<3d", *v) for v in CUBE_V)
    body += b"".join(struct.pack("<B3i", 3, *f) for f in CUBE_F)
    ply.write_bytes(header + body)
    files["ply"] = ply
    stl = tmp_path / "cube.stl"
    s = "solid cube\n"
    for f in CUBE_F:
        s += "facet normal 0 0 0\nouter loop\n"
        s += "".join(f"vertex {x} {y} {z}\n" for x, y, z in CUBE_V[f]) + "endloop\nendfacet\n"
    stl.write_text(s + "endsolid cube\n")
    files["stl"] = stl
    return files


@pytest.mark.parametrize("fmt", ["off", "obj", "ply", "stl"])
@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_load_formats(tmp_path, fmt, dt):
    path = write_formats(tmp_path)[fmt]
    m = prox.load(path, dtype=dt)
    ref = prox.Mesh(CUBE_V.astype(dt), CUBE_F)
    assert m.dtype == dt and m.num_triangles == 12 and m.diagnostics["closed"]
    p = rng.uniform(-1, 2, size=(300, 3))
    # STL stores corners per triangle; prox merges equal corners, so the vertex order
    # may differ from the OFF's: compare what does not depend on it.
    got, want = m.compute_closest_points(p), ref.compute_closest_points(p)
    np.testing.assert_array_equal(got["distance"], want["distance"])
    np.testing.assert_array_equal(got["points"], want["points"])
    if fmt != "stl":
        np.testing.assert_array_equal(m.vertices, ref.vertices)
        np.testing.assert_array_equal(m.faces, CUBE_F)
    # str and PathLike both accepted
    assert prox.load(str(path)).num_triangles == 12


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.off"):
        prox.load(tmp_path / "nope.off")
    bad = tmp_path / "bad.off"
    bad.write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 x\n3 0 1 2\n")
    with pytest.raises(ValueError, match="bad.off"):
        prox.load(bad)
    idx = tmp_path / "idx.off"
    idx.write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n")
    with pytest.raises(ValueError, match="idx.off"):
        prox.load(idx)
    with pytest.raises(ValueError, match="dtype must be float32 or float64"):
        prox.load(bad, dtype=np.int32)


def test_load_takes_bytes_paths(tmp_path):
    p = tmp_path / "cube.off"
    p.write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    assert prox.load(bytes(p)).num_triangles == 1  # os.fspath accepts bytes (stop 40)


def test_load_warns_what_it_lets_through(tmp_path):
    # More face lines than the OFF header declares: read as the header says,
    # with a warning naming the line (stop 40).
    p = tmp_path / "extra.off"
    p.write_text("OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2\n3 0 1 3\n")
    with pytest.warns(UserWarning, match="line 8: 1 more face line after the header's 1"):
        m = prox.load(p)
    assert m.num_triangles == 1


def test_load_drop_non_finite(tmp_path):
    p = tmp_path / "nan.off"
    p.write_text("OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\nnan 0 1\n3 0 1 2\n3 0 1 3\n")
    with pytest.raises(ValueError):
        prox.load(p)
    assert prox.load(p, drop_non_finite=True).num_triangles == 1


@pytest.mark.parametrize("dt", [np.float64, np.float32])
@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_pickle_round_trip(dt, protocol):
    v = rng.normal(size=(500, 3)).astype(dt)
    f = rng.integers(0, 500, size=(800, 3))
    m = prox.Mesh(v, f)
    data = pickle.dumps(m, protocol=protocol)
    back = pickle.loads(data)
    assert back.dtype == dt and back.num_triangles == 800
    np.testing.assert_array_equal(back.vertices, m.vertices)
    np.testing.assert_array_equal(back.faces, m.faces)
    assert back.diagnostics["bvh_nodes"] == m.diagnostics["bvh_nodes"]
    # the same index, not a rebuilt one: saving it again gives the same bytes
    assert pickle.dumps(back, protocol=protocol) == data
    p = rng.normal(size=(2000, 3))
    for name in ("compute_closest_points", "compute_signed_distance"):
        a, b = getattr(m, name)(p), getattr(back, name)(p)
        for k in a:
            if k == "method":
                assert a[k] == b[k]
                continue
            assert a[k].tobytes() == b[k].tobytes(), (name, k)
    rays = np.hstack([p, rng.normal(size=(2000, 3))])
    assert m.cast_rays(rays)["t_hit"].tobytes() == back.cast_rays(rays)["t_hit"].tobytes()


def test_pickle_protocol5_out_of_band():
    m = prox.Mesh(CUBE_V, CUBE_F)
    buffers = []
    data = pickle.dumps(m, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(data) < 200  # the index travels out of band
    back = pickle.loads(data, buffers=buffers)
    np.testing.assert_array_equal(back.compute_distance([[2.0, 0.5, 0.5]]), [1.0])


def test_corrupt_pickle_is_an_error():
    m = prox.Mesh(CUBE_V, CUBE_F)
    fn, (dt, buf) = m.__reduce_ex__(4)
    with pytest.raises(ValueError):
        fn(dt, buf[:len(buf) // 2])
    with pytest.raises(ValueError):
        fn(dt, b"not an index at all")
