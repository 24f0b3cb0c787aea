"""bench/python/dask_run.py — prox.dask on a distributed.LocalCluster of 2 worker
processes against one process: time, and bit-for-bit equality.

    build/venv/bin/python bench/python/dask_run.py [--points 2000000] [--chunk 250000]
"""
import argparse
import os
import pathlib
import time

import numpy as np

import dask
import dask.array as da
import distributed
import prox
import prox.dask


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=2_000_000)
    ap.add_argument("--chunk", type=int, default=250_000)
    ap.add_argument("--data", default=os.environ.get("PROX_CGAL_DATA_DIR", "build/cgal-data/data"))
    args = ap.parse_args()
    data = pathlib.Path(args.data)
    mesh = prox.load((data / "meshes" if (data / "meshes").is_dir() else data) / "bunny00.off")
    lo, hi = mesh.bounds
    rng = np.random.default_rng(1)
    pts = rng.uniform(lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo), size=(args.points, 3))
    t0 = time.perf_counter()
    one = mesh.compute_signed_distance(pts)
    t_one = time.perf_counter() - t0
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    client = distributed.Client(cluster)
    client.wait_for_workers(2)
    x = da.from_array(pts, chunks=(args.chunk, 3))
    t0 = time.perf_counter()
    handle = prox.dask.distribute(mesh, client)
    t_ship = time.perf_counter() - t0
    t0 = time.perf_counter()
    got = dask.compute(prox.dask.compute_signed_distance(mesh, x, handle=handle))[0]
    t_dask = time.perf_counter() - t0
    equal = all(got[k].tobytes() == one[k].tobytes() for k in one)
    print(f"bunny00 ({mesh.num_triangles:,} triangles), {args.points:,} points, signed distance: "
          f"one process {t_one:.2f} s; LocalCluster 2 workers x 1 thread, {len(x.chunks[0])} "
          f"chunks: {t_dask:.2f} s (+ {t_ship:.2f} s scattering the index); "
          f"bit-identical: {equal}")
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
