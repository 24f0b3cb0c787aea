"""bench/python/binding_cost.py — what the Python binding costs over prox's C++ batch
call, measured so that it holds on a noisy shared machine.

    build/venv/bin/python bench/python/binding_cost.py [--points 200000] [--pairs 41]
    build/venv/bin/python bench/python/binding_cost.py --callgrind [--points 20000]

The same batch (bunny00, cp-near points / primary rays, float64) goes through two
entry points of the same extension in the same process:
- C++: prox::closest_points / prox::first_hits / prox::signed_queries called on the
  NumPy buffer directly (Mesh._impl.cpp_*_ms, timed inside C++ around the batch
  call only: no output arrays, no Python);
- Python: the public method (mesh.compute_closest_points / cast_rays /
  compute_signed_distance; cast_rays also with normals=False, which leaves out the
  one output prox::first_hits does not make), timed around the whole call from Python: argument
  checks, output allocation, the batch, the dict and the reshapes.

Timing mode: the two alternate, C++ then Python, --pairs times, on one thread
(threads=1: a second core that other jobs take would otherwise add noise of its
own); each pair gives a ratio Python / C++, and the figure is the median ratio
(interquartile range beside it). Neighbouring runs see the same machine load, so
the ratio is stable even when the times are not.
Callgrind mode: instructions, not time. For each workload and entry point a child
process runs the call once and three times under valgrind --tool=callgrind; the
difference / 2 is the instructions of one call (Python start-up, the mesh build
and the query generation cancel). Deterministic; the machine's load does not enter.
"""
import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import prox

HERE = pathlib.Path(__file__).resolve()


def setup(data, n):
    sys.path.insert(0, str(HERE.parent))
    from bench import cp_near, make_mesh, ray_primary  # the benchmark's own workloads
    v, f = make_mesh("bunny", data)
    rng = np.random.default_rng(1)
    mesh = prox.Mesh(v, f)
    return mesh, cp_near(v, f, n, rng), ray_primary(v, n)


WORKLOADS = {
    # name: (C++ entry returning ms, Python call)
    "closest": (lambda m, p, r, t: m._impl.cpp_closest_points_ms(p, t),
                lambda m, p, r, t: m.compute_closest_points(p, threads=t)),
    "raycast": (lambda m, p, r, t: m._impl.cpp_first_hits_ms(r, t),
                lambda m, p, r, t: m.cast_rays(r, threads=t)),
    # cast_rays without its one output the C++ batch does not make (the hit's normal)
    "raycast-nonormals": (lambda m, p, r, t: m._impl.cpp_first_hits_ms(r, t),
                          lambda m, p, r, t: m.cast_rays(r, normals=False, threads=t)),
    "signed": (lambda m, p, r, t: m._impl.cpp_signed_ms(p, t),
               lambda m, p, r, t: m.compute_signed_distance(p, threads=t)),
}


def timing(args):
    mesh, pts, rays = setup(args.data, args.points)
    print(f"# binding cost by alternating timing: bunny00 ({mesh.num_triangles:,} triangles), "
          f"{args.points:,} queries per call, threads={args.threads}, {args.pairs} pairs, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print("| workload | C++ ms (median) | Python ms (median) | Python / C++ (median) | IQR |")
    print("|---|---:|---:|---:|---|")
    for name in args.workloads.split(","):
        cpp, py = WORKLOADS[name]
        cpp(mesh, pts, rays, args.threads), py(mesh, pts, rays, args.threads)  # warm
        c_ms, p_ms, ratios = [], [], []
        for _ in range(args.pairs):
            c = cpp(mesh, pts, rays, args.threads)
            t0 = time.perf_counter()
            py(mesh, pts, rays, args.threads)
            p = (time.perf_counter() - t0) * 1e3
            c_ms.append(c)
            p_ms.append(p)
            ratios.append(p / c)
        q = statistics.quantiles(ratios, n=4)
        print(f"| {name} | {statistics.median(c_ms):.2f} | {statistics.median(p_ms):.2f} | "
              f"{statistics.median(ratios):.4f} ({(statistics.median(ratios) - 1) * 100:+.2f}%) | "
              f"{q[0]:.4f} .. {q[2]:.4f} |")


def worker(args):
    mesh, pts, rays = setup(args.data, args.points)
    cpp, py = WORKLOADS[args.worker]
    fn = cpp if args.entry == "cpp" else py
    for _ in range(args.calls):
        fn(mesh, pts, rays, 1)


def callgrind(args):
    print(f"# binding cost in instructions (valgrind --tool=callgrind, one thread): bunny00, "
          f"{args.points:,} queries per call; per call = (I(3 calls) - I(1 call)) / 2")
    print("| workload | C++ instructions / call | Python instructions / call | Python / C++ |")
    print("|---|---:|---:|---:|")
    for name in args.workloads.split(","):
        per = {}
        for entry in ("cpp", "py"):
            total = {}
            for calls in (1, 3):
                with tempfile.TemporaryDirectory() as tmp:
                    out = pathlib.Path(tmp) / "cg.out"
                    # One hash seed for every child: Python's start-up then runs the same
                    # instructions in the 1-call and 3-call runs and cancels in the difference
                    # (with random seeds the C++ entry's count varied by ~4% between runs).
                    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                    sys.executable, str(HERE), "--data", str(args.data),
                                    "--points", str(args.points), "--worker", name, "--entry",
                                    entry, "--calls", str(calls)],
                                   check=True, capture_output=True,
                                   env=dict(os.environ, PYTHONHASHSEED="0"))
                    text = out.read_text(errors="replace")
                    total[calls] = int(re.search(r"^(?:summary|totals): (\d+)", text, re.M)
                                       .group(1))
            per[entry] = (total[3] - total[1]) / 2
        print(f"| {name} | {per['cpp']:,.0f} | {per['py']:,.0f} | {per['py'] / per['cpp']:.4f} "
              f"({(per['py'] / per['cpp'] - 1) * 100:+.2f}%) |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=pathlib.Path,
                    default=pathlib.Path(os.environ.get("PROX_CGAL_DATA_DIR",
                                                        "build/cgal-data/data")))
    ap.add_argument("--points", type=int, default=None)
    ap.add_argument("--pairs", type=int, default=41)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--workloads", default="closest,raycast,raycast-nonormals,signed")
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--entry", help=argparse.SUPPRESS)
    ap.add_argument("--calls", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.data = args.data / "meshes" if (args.data / "meshes").is_dir() else args.data
    if args.points is None:
        args.points = 20_000 if args.callgrind or args.worker else 200_000
    if args.worker:
        worker(args)
    elif args.callgrind:
        callgrind(args)
    else:
        timing(args)


if __name__ == "__main__":
    main()
