"""prox.dask: prox queries over Dask arrays, chunk by chunk, on a cluster.

    >>> import dask.array as da, prox, prox.dask
    >>> from distributed import Client, LocalCluster
    >>> client = Client(LocalCluster(n_workers=2))
    >>> mesh = prox.load("bunny.off")
    >>> pts = da.random.random((10_000_000, 3), chunks=(1_000_000, 3))
    >>> r = prox.dask.compute_closest_points(mesh, pts)     # dict of lazy Dask arrays
    >>> d = r["distance"].compute()

Each function takes a Dask array of query rows (..., 3) (rays (..., 6)), or a NumPy
array (wrapped with ``chunks``), maps the Mesh method of the same name over its
chunks, and returns a dict of Dask arrays with the method's names, shapes and
dtypes (or one Dask array where the method returns one array). Leading dimensions
and their chunks are kept; the last axis is made one chunk.

The built index travels to the workers once: with a distributed Client (``client=``,
or the current default client) the Mesh is scattered to every worker
(``broadcast=True``) and each task refers to that one copy; without one (the local
threaded scheduler) the Mesh is a single task in the graph, shared by every chunk.
A Mesh pickles as its index's bytes (no rebuild on the worker). Each chunk's answer
is exactly what the Mesh method gives for those rows, so the results equal a single
process's bit for bit.

``sdf_grid`` splits a signed distance grid into slabs of z-planes, one task per
slab; the joined values are the local ``Mesh.sdf_grid``'s bit for bit.

The queries whose result length varies per row (list_intersections,
sphere_triangles) are not offered: their output is not an array of fixed shape.
"""

from __future__ import annotations

import operator
import os
from typing import Any, Dict, Optional, Tuple

import numpy as np

import dask
import dask.array as da

from . import Mesh

__all__ = ["compute_closest_points", "compute_signed_distance", "compute_winding_number",
           "contains", "cast_rays", "test_occlusions", "count_intersections", "sphere_overlap",
           "sdf_grid", "map_query", "distribute"]

# method -> (input width k, {output name: (trailing shape, dtype or None for the mesh's)}),
# with None as the name for methods returning one array.
_QUERIES: Dict[str, Tuple[int, Dict[Optional[str], Tuple[Tuple[int, ...], Any]]]] = {
    "compute_closest_points": (3, {"points": ((3,), None), "distance": ((), None),
                                   "primitive_ids": ((), np.int64),
                                   "primitive_uvs": ((2,), None),
                                   "barycentrics": ((3,), None), "feature": ((), np.int8)}),
    "compute_signed_distance": (3, {"signed_distance": ((), None), "winding_number": ((), None),
                                    "confidence": ((), np.int8), "sign_method": ((), np.int8),
                                    "inside_votes": ((), np.uint8), "votes": ((), np.uint8),
                                    "points": ((3,), None), "primitive_ids": ((), np.int64)}),
    "compute_winding_number": (3, {None: ((), None)}),
    "contains": (3, {None: ((), np.int8)}),
    "cast_rays": (6, {"t_hit": ((), None), "primitive_ids": ((), np.int64),
                      "primitive_uvs": ((2,), None), "front_face": ((), np.bool_),
                      "primitive_normals": ((3,), None)}),
    "test_occlusions": (6, {None: ((), np.bool_)}),
    "count_intersections": (6, {None: ((), np.int32)}),
    "sphere_overlap": (3, {None: ((), np.bool_)}),
}


def _client(client):
    if client is False:  # the caller's choice: no distributed client, even if one exists
        return None
    if client is not None:
        return client
    try:
        from distributed import default_client
        return default_client()
    except (ImportError, ValueError):
        return None


def distribute(mesh: Mesh, client=None):
    """The handle chunks use to reach ``mesh``: a Future of it scattered to every
    worker of ``client`` (default: the current distributed client), or, with no
    distributed client (or client=False), a dask.delayed of it (one task for the whole graph). Pass it
    as ``handle=`` to several queries to ship the index only once for all of them.
    Workers that join after the scatter fetch the mesh from a peer, once."""
    if not isinstance(mesh, Mesh):
        raise ValueError(f"mesh must be a prox.Mesh, got {type(mesh).__name__}")
    c = _client(client)
    if c is None:
        return dask.delayed(mesh, pure=True, traverse=False)
    return c.scatter(mesh, broadcast=True, hash=False)


def _run_chunk(block, mesh, method, kwargs):
    return getattr(mesh, method)(block, **kwargs)


def _field(result, name):
    return result if name is None else result[name]


def map_query(mesh: Mesh, method: str, queries: Any, /, *, chunks: Any = "auto", client=None,
              handle=None, **kwargs):
    """Maps ``mesh.<method>(chunk, **kwargs)`` over the chunks of ``queries``
    (mesh, method and queries are positional, so kwargs may hold the query's own
    ``method=``, e.g. a sign method).

    queries: a Dask array (..., k), or array-like wrapped with ``chunks``.
    handle: what distribute(mesh) returned, to share one shipped copy of the index
    between several queries (default: distribute(mesh, client) for this query).
    Returns a dict of Dask arrays (or one Dask array), shaped as the method's result.
    """
    if method not in _QUERIES:
        raise ValueError(f"method must be one of {sorted(_QUERIES)}, got {method!r}")
    if not isinstance(mesh, Mesh):
        raise ValueError(f"mesh must be a prox.Mesh, got {type(mesh).__name__}")
    k, outputs = _QUERIES[method]
    dtype = mesh.dtype
    if handle is None:
        handle = distribute(mesh, client)
    x = queries if isinstance(queries, da.Array) else da.from_array(np.asarray(queries),
                                                                    chunks=chunks)
    if x.ndim == 0 or x.shape[-1] != k:
        raise ValueError(f"{method}: queries must have shape (..., {k}), got shape {x.shape}")
    if x.dtype.kind not in "fiu":
        raise ValueError(f"{method}: queries must be a float32 or float64 array, got {x.dtype}")
    if len(x.chunks[-1]) != 1:
        x = x.rechunk({x.ndim - 1: -1})
    if method == "cast_rays" and not kwargs.get("normals", True):
        outputs = {k: v for k, v in outputs.items() if k != "primitive_normals"}
    lead_axes = x.ndim - 1
    # One task per chunk computes the whole result (a dict); each output array
    # then takes its field from that task, so the query runs once per chunk.
    whole = da.map_blocks(_run_chunk, x, handle, method, kwargs, drop_axis=lead_axes,
                          dtype=object, meta=np.empty((0,) * lead_axes, dtype=object))
    result = {}
    for name, (trail, dt) in outputs.items():
        out_dtype = np.dtype(dt) if dt is not None else dtype
        new_axis = list(range(lead_axes, lead_axes + len(trail))) if trail else None
        chunks_out = whole.chunks + tuple((n,) for n in trail)
        result[name] = da.map_blocks(_field, whole, name, dtype=out_dtype, chunks=chunks_out,
                                     new_axis=new_axis,
                                     meta=np.empty((0,) * (lead_axes + len(trail)),
                                                   dtype=out_dtype))
    return result[None] if None in result else result


def _query(method):
    def run(mesh: Mesh, queries: Any, *args, chunks: Any = "auto", client=None, handle=None,
            **kwargs):
        if args:
            raise TypeError(f"prox.dask.{method}: pass options by keyword")
        return map_query(mesh, method, queries, chunks=chunks, client=client, handle=handle,
                         **kwargs)
    run.__name__ = method
    run.__qualname__ = method
    run.__doc__ = (f"Dask form of prox.Mesh.{method}: queries a Dask array (..., "
                   f"{_QUERIES[method][0]}) chunk by chunk; keyword options as for the method. "
                   f"Returns Dask arrays shaped as the method's result.")
    return run


compute_closest_points = _query("compute_closest_points")
compute_signed_distance = _query("compute_signed_distance")
compute_winding_number = _query("compute_winding_number")
contains = _query("contains")
cast_rays = _query("cast_rays")
test_occlusions = _query("test_occlusions")
count_intersections = _query("count_intersections")


def sphere_overlap(mesh: Mesh, centers: Any, radius: float, *, chunks: Any = "auto",
                   client=None, handle=None, threads: Optional[int] = None):
    """Dask form of prox.Mesh.sphere_overlap with one radius for every center."""
    return map_query(mesh, "sphere_overlap", centers, chunks=chunks, client=client,
                     handle=handle, radii=float(radius), threads=threads)


def _sdf_slab(mesh, k0, k1, kwargs):
    r = mesh.sdf_grid(z_planes=(k0, k1), **kwargs)
    for key in ("unsure", "sign_evaluations"):  # 0-d arrays: the blocks of 0-d Dask arrays
        r[key] = np.array(r[key], dtype=np.int64)
    return r


def _slab_count(client, nz):
    if client is None:
        workers = os.cpu_count() or 1
    else:
        workers = max(1, sum(client.nthreads().values()))
    return max(1, min(nz, 4 * workers))


def sdf_grid(mesh: Mesh, *, res: Any = None, dx: Optional[float] = None, padding: float = 0.1,
             band: float = np.inf, method: str = "auto", parity_rays: int = 3,
             float32: bool = False, planes: Optional[int] = None, client=None, handle=None,
             threads: Optional[int] = None) -> Dict[str, Any]:
    """Dask form of prox.Mesh.sdf_grid: the same grid (res, dx, padding) and values
    (band, method, parity_rays, float32), split into slabs of ``planes`` z-planes
    each (default: about 4 slabs per worker thread), one task per slab
    (Mesh.sdf_grid(z_planes=...)); the index travels to the workers once, as for
    the queries.

    Returns a dict: ``values``, a Dask array (nx, ny, nz) chunked along z, which
    computes to the local call's values bit for bit (as a C-ordered array:
    ``np.asfortranarray`` gives the local layout); ``origin``, ``spacing`` (NumPy)
    and ``method`` (str), known at once; ``unsure`` and ``sign_evaluations``, 0-d
    Dask arrays (int64, the slabs' counts summed). Bad options, and a mesh with no
    inside, raise ValueError here, before anything is sent.
    """
    if not isinstance(mesh, Mesh):
        raise ValueError(f"mesh must be a prox.Mesh, got {type(mesh).__name__}")
    kwargs = dict(res=res, dx=dx, padding=padding, band=band, method=method,
                  parity_rays=parity_rays, float32=bool(float32), threads=threads)
    # Checks every option (and that the mesh has an inside) on no planes at all.
    head = mesh.sdf_grid(z_planes=(0, 0), **kwargs)
    dims, _, _ = mesh._grid_dims(res, dx, padding)
    nx, ny, nz = dims
    c = _client(client)
    if planes is None:
        planes = -(-nz // _slab_count(c, nz))
    if isinstance(planes, bool) or not isinstance(planes, (int, np.integer)) or planes < 1:
        raise ValueError(f"planes must be an integer >= 1, got {planes!r}")
    if handle is None:
        handle = distribute(mesh, client)
    dtype = np.dtype(np.float32) if float32 else mesh.dtype
    slab = dask.delayed(_sdf_slab, pure=True)
    blocks, unsure, evals = [], [], []
    for k0 in range(0, nz, int(planes)):
        k1 = min(nz, k0 + int(planes))
        r = slab(handle, k0, k1, kwargs)
        blocks.append(da.from_delayed(r["values"], shape=(nx, ny, k1 - k0), dtype=dtype,
                                      meta=np.empty((0, 0, 0), dtype=dtype)))
        unsure.append(da.from_delayed(r["unsure"], shape=(), dtype=np.int64))
        evals.append(da.from_delayed(r["sign_evaluations"], shape=(), dtype=np.int64))
    return {"values": da.concatenate(blocks, axis=2), "origin": head["origin"],
            "spacing": head["spacing"], "method": head["method"],
            "unsure": da.stack(unsure).sum(), "sign_evaluations": da.stack(evals).sum()}
