"""bench/python/bench.py — prox from Python against prox in C++ and against the Python
libraries users pick instead (Open3D RaycastingScene, trimesh, libigl, fcpw).

    bench/python/run.sh [--meshes bunny,bunny-1m] [--points 1000000] [--rays 1000000]

Meshes as bench/engine makes them: bunny = CGAL's bunny00.off, bunny-1m = bunny00
midpoint-subdivided twice (x16 triangles); vertices rounded to float32 values (so every
library indexes the same geometry), queries float64 (float32 for float32-only peers).
Workloads: cp-near (points on the surface offset by N(0, 0.01 diagonal)) and
ray-primary (a pinhole camera at center + (0, 0, diagonal), 60 degree field of view,
1024x1024 for 1M rays). "prox C++" is the C++ batch API (prox::closest_points /
prox::first_hits) timed inside the extension, in this same process, on the same
arrays: the binding's cost is python/C++ - 1. Each figure is the best of --repeat
runs. Peers that are slow on 1M queries run on --peer-limit of them and report
queries per second (stated in the table). Every peer's answers are compared with
prox's (max |distance difference|; ray hit/miss agreement and max |t difference|).
"""
import argparse
import importlib
import os
import pathlib
import sys
import time

import numpy as np

import prox


def subdivide_midpoints(v, f):
    """Each triangle into 4 through its edge midpoints (shared between neighbours)."""
    edges = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
    uniq, inv = np.unique(edges, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    mid = (v[uniq[:, 0]] + v[uniq[:, 1]]) / 2
    m = len(f)
    a, b, c = (len(v) + inv[:m], len(v) + inv[m:2 * m], len(v) + inv[2 * m:])
    nf = np.concatenate([np.column_stack([f[:, 0], a, c]), np.column_stack([a, f[:, 1], b]),
                         np.column_stack([c, b, f[:, 2]]), np.column_stack([a, b, c])])
    return np.vstack([v, mid]), nf


def make_mesh(name, data_dir):
    base = prox.load(data_dir / "bunny00.off")
    v, f = base.vertices, base.faces
    if name == "bunny-1m":
        v, f = subdivide_midpoints(*subdivide_midpoints(v, f))
    elif name != "bunny":
        raise SystemExit(f"unknown mesh {name} (bunny, bunny-1m)")
    return v.astype(np.float32).astype(np.float64), f


def cp_near(v, f, n, rng):
    tri = v[f]
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    pick = rng.choice(len(f), size=n, p=area / area.sum())
    r1, r2 = rng.random(n), rng.random(n)
    flip = r1 + r2 > 1
    r1[flip], r2[flip] = 1 - r1[flip], 1 - r2[flip]
    t = tri[pick]
    s = t[:, 0] + (t[:, 1] - t[:, 0]) * r1[:, None] + (t[:, 2] - t[:, 0]) * r2[:, None]
    diag = np.linalg.norm(v.max(0) - v.min(0))
    return (s + rng.normal(0, 0.01 * diag, size=(n, 3))).astype(np.float32).astype(np.float64)


def ray_primary(v, n):
    side = max(1, round(1024 * np.sqrt(n / 1e6)))
    lo, hi = v.min(0), v.max(0)
    eye = (lo + hi) / 2 + [0, 0, np.linalg.norm(hi - lo)]
    half = np.tan(np.pi / 6)
    y, x = np.meshgrid(1 - 2 * (np.arange(side) + 0.5) / side,
                       2 * (np.arange(side) + 0.5) / side - 1, indexing="ij")
    d = np.stack([x * half, y * half, -np.ones_like(x)], axis=-1).reshape(-1, 3)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    o = np.broadcast_to(eye, d.shape)
    return np.hstack([o, d]).astype(np.float32).astype(np.float64)


def best(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e3, out


# ---- peers: each returns (name, build_ms, {workload: (ms, n, answers)}) or a skip note ----

def peer_open3d(v, f, pts, rays, args):
    o3d = importlib.import_module("open3d")
    t0 = time.perf_counter()
    scene = o3d.t.geometry.RaycastingScene()
    scene.add_triangles(o3d.core.Tensor(v.astype(np.float32)),
                        o3d.core.Tensor(f.astype(np.uint32)))
    p32 = o3d.core.Tensor(pts.astype(np.float32))
    r32 = o3d.core.Tensor(rays.astype(np.float32))
    scene.compute_distance(o3d.core.Tensor(pts[:1].astype(np.float32)))  # builds the BVH
    build = (time.perf_counter() - t0) * 1e3
    ms_cp, cp = best(lambda: scene.compute_closest_points(p32), args.repeat)
    d = np.linalg.norm(cp["points"].numpy().astype(np.float64) - pts, axis=1)
    ms_ray, hit = best(lambda: scene.cast_rays(r32), args.repeat)
    return build, {"cp-near": (ms_cp, len(pts), d),
                   "ray-primary": (ms_ray, len(rays), hit["t_hit"].numpy().astype(np.float64))}


def peer_trimesh(v, f, pts, rays, args):
    trimesh = importlib.import_module("trimesh")
    t0 = time.perf_counter()
    m = trimesh.Trimesh(v, f, process=False)
    build = (time.perf_counter() - t0) * 1e3
    k = min(args.peer_limit, len(pts))
    ms_cp, res = best(lambda: trimesh.proximity.closest_point(m, pts[:k]), 1)
    out = {"cp-near": (ms_cp, k, res[1])}
    kr = min(args.peer_limit, len(rays))
    intersector = m.ray  # embreex when installed, else trimesh's own
    def cast():
        loc, ray_idx, _ = intersector.intersects_location(rays[:kr, :3], rays[:kr, 3:],
                                                          multiple_hits=False)
        t = np.full(kr, np.inf)
        t[ray_idx] = np.linalg.norm(loc - rays[ray_idx, :3], axis=1)
        return t
    ms_ray, t = best(cast, 1)
    out["ray-primary"] = (ms_ray, kr, t)
    return build, out


def peer_libigl(v, f, pts, rays, args):
    igl = importlib.import_module("igl")
    k = min(args.peer_limit * 10, len(pts))
    fi = f.astype(np.int64)
    ms_cp, res = best(lambda: igl.point_mesh_squared_distance(pts[:k], v, fi), 1)
    sq = res[0]
    return 0.0, {"cp-near": (ms_cp, k, np.sqrt(sq))}  # AABB built inside each call


def peer_fcpw(v, f, pts, rays, args):
    fcpw = importlib.import_module("fcpw")
    t0 = time.perf_counter()
    scene = fcpw.scene_3D()
    scene.set_object_count(1)
    scene.set_object_vertices(np.asfortranarray(v, dtype=np.float32), 0)
    scene.set_object_triangles(np.asfortranarray(f, dtype=np.int32), 0)
    scene.build(fcpw.aggregate_type.bvh_surface_area, True)
    build = (time.perf_counter() - t0) * 1e3
    p32 = np.asfortranarray(pts, dtype=np.float32)
    radii = np.full(len(pts), np.inf, dtype=np.float32)
    inter = fcpw.interaction_3D_list()
    ms_cp, _ = best(lambda: (inter.clear(), scene.find_closest_points(p32, radii, inter)),
                    args.repeat)
    d = np.array([i.d for i in inter], dtype=np.float64)
    o32 = np.asfortranarray(rays[:, :3], dtype=np.float32)
    d32 = np.asfortranarray(rays[:, 3:], dtype=np.float32)
    bounds = np.full(len(rays), np.inf, dtype=np.float32)
    hits = fcpw.interaction_3D_list()
    ms_ray, _ = best(lambda: (hits.clear(), scene.intersect(o32, d32, bounds, hits)), args.repeat)
    # A miss is primitive_index -1 with d = FLT_MAX (finite: reading d alone counted every
    # miss as a hit at 3.4e38, the 21% "agreement" of the first run); d is the distance
    # along the unit direction, which is t here (the camera's directions are unit).
    t = np.array([h.d if h.primitive_index >= 0 else np.inf for h in hits], dtype=np.float64)
    return build, {"cp-near": (ms_cp, len(pts), d), "ray-primary": (ms_ray, len(rays), t)}


PEERS = {"open3d": peer_open3d, "trimesh": peer_trimesh, "libigl": peer_libigl,
         "fcpw": peer_fcpw}


def compare(work, ref, got, n):
    ref = ref[:n]
    if work == "cp-near":
        return f"max |d - prox| {np.nanmax(np.abs(got - ref)):.2e}"
    hit_ref, hit = np.isfinite(ref), np.isfinite(got)
    both = hit_ref & hit
    diff = np.max(np.abs(got[both] - ref[both])) if both.any() else 0.0
    return f"hit/miss agree {np.mean(hit_ref == hit) * 100:.3f}%, max |t - prox| {diff:.2e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--meshes", default="bunny,bunny-1m")
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--rays", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--peer-limit", type=int, default=20_000,
                    help="queries given to the slow peers (trimesh; libigl gets 10x)")
    ap.add_argument("--peers", default="open3d,trimesh,libigl,fcpw")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--data", default=os.environ.get("PROX_CGAL_DATA_DIR", "build/cgal-data/data"))
    args = ap.parse_args()
    data = pathlib.Path(args.data)
    data = data / "meshes" if (data / "meshes").is_dir() else data
    rng = np.random.default_rng(1)
    print(f"# prox {prox.__version__}, {prox.isa()}, numpy {np.__version__}, "
          f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    for name in args.meshes.split(","):
        v, f = make_mesh(name, data)
        pts, rays = cp_near(v, f, args.points, rng), ray_primary(v, args.rays)
        t0 = time.perf_counter()
        mesh = prox.Mesh(v, f)
        build = (time.perf_counter() - t0) * 1e3
        print(f"\n## {name}: {len(f):,} triangles, {len(pts):,} points, {len(rays):,} rays; "
              f"prox build {build:.0f} ms")
        th = args.threads
        ms_py_cp, cp = best(lambda: mesh.compute_closest_points(pts, threads=th), args.repeat)
        ms_cpp_cp = min(mesh._impl.cpp_closest_points_ms(pts, th) for _ in range(args.repeat))
        ms_py_ray, hit = best(lambda: mesh.cast_rays(rays, threads=th), args.repeat)
        ms_cpp_ray = min(mesh._impl.cpp_first_hits_ms(rays, th) for _ in range(args.repeat))
        print("| workload | prox Python ms | prox C++ ms | binding cost |")
        print("|---|---:|---:|---:|")
        for w, py, cpp in (("cp-near", ms_py_cp, ms_cpp_cp), ("ray-primary", ms_py_ray, ms_cpp_ray)):
            print(f"| {w} | {py:.1f} | {cpp:.1f} | {(py / cpp - 1) * 100:+.1f}% |")
        ref = {"cp-near": cp["distance"], "ray-primary": hit["t_hit"]}
        prox_rate = {"cp-near": len(pts) / ms_py_cp, "ray-primary": len(rays) / ms_py_ray}
        print("\n| library | workload | queries | ms | Mq/s | prox is x faster | answers vs prox |")
        print("|---|---|---:|---:|---:|---:|---|")
        for w in ("cp-near", "ray-primary"):
            ms = ms_py_cp if w == "cp-near" else ms_py_ray
            print(f"| prox | {w} | {len(ref[w]):,} | {ms:.1f} | {prox_rate[w] / 1e3:.2f} | 1.0 | - |")
        for peer in args.peers.split(","):
            try:
                pbuild, res = PEERS[peer](v, f, pts, rays, args)
            except ImportError as e:
                print(f"| {peer} | - | - | - | - | - | not installed ({e}) |")
                continue
            except Exception as e:  # a peer's own failure is reported, not fatal
                print(f"| {peer} | - | - | - | - | - | failed: {type(e).__name__}: {e} |")
                continue
            for w, (ms, n, ans) in res.items():
                rate = n / ms
                print(f"| {peer} | {w} | {n:,} | {ms:.1f} | {rate / 1e3:.3f} | "
                      f"{prox_rate[w] / rate:.1f} | {compare(w, ref[w], ans, n)} |")


if __name__ == "__main__":
    main()
