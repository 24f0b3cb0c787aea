"""prox: exact, robust, fast geometric proximity queries on triangle meshes and 2D shapes.

    >>> import numpy as np, prox
    >>> mesh = prox.load("bunny.off")                     # or prox.Mesh(vertices, faces)
    >>> r = mesh.compute_closest_points(np.random.rand(64, 64, 3))
    >>> r["distance"].shape                                 # leading dimensions kept
    (64, 64)

Conventions (every query):

* Query arrays have shape ``(..., 3)`` (rays ``(..., 6)``: origin then direction;
  2D points ``(..., 2)``); results keep the leading dimensions ``...``. float32,
  float64 and integer inputs are accepted and converted to the mesh's dtype
  (no copy when they already have it; any strides are read in place).
* Queries run in the precision of the mesh's vertices (``Mesh.dtype``: float64
  unless built from float32 vertices or loaded with ``dtype=np.float32``), and
  floating-point results have that dtype. Triangle ids are int64, -1 for a miss.
* A query with a NaN or infinite coordinate is a miss in its own row (NaN, -1,
  False, inf for ``t_hit``); it never raises.
* Signed distances are negative inside.
* Barycentric coordinates: ``barycentrics`` are the weights of the triangle's
  corners 0, 1, 2; ``primitive_uvs`` (Open3D's name) are the weights of corners
  1 and 2 (so the point is ``(1-u-v) c0 + u c1 + v c2``).
* The GIL is released during each query; ``threads=None`` (or 0) uses every
  core; answers are bit for bit the same for any thread count.
* Bad input raises ``ValueError`` with a one-line message naming what is wrong.
"""

from __future__ import annotations

import os
import pickle
from typing import Any, Dict, Optional, Union

import numpy as np

from . import _prox

__all__ = [
    "Mesh", "load", "FEATURES", "SIGN_METHODS", "isa",
    "Segment", "Circle", "Box", "OrientedBox", "Capsule", "ConvexPolygon", "Polygon", "Polyline",
]
__version__ = "0.1.0"

#: Names of ``compute_closest_points(...)["feature"]`` values 0..6 (-1: a miss):
#: the corner, edge or face of the triangle that holds the closest point.
FEATURES = ("vertex0", "vertex1", "vertex2", "edge01", "edge12", "edge20", "face")

#: Sign methods of ``Mesh.compute_signed_distance(method=...)``, each a function
#: ``(mesh, rows, threads) -> dict`` of (N,) arrays with at least
#: ``signed_distance`` and ``confidence``. A new method is one entry here.
SIGN_METHODS: Dict[str, Any] = {}


def isa() -> str:
    """The CPU path (SSE2, AVX2, AVX-512) prox's hot queries run on, in words."""
    return _prox.isa()


def _threads(threads: Optional[int]) -> int:
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 0:
        raise ValueError(f"threads must be None or an integer >= 0 (0: all cores), got {threads!r}")
    return int(threads)


def _rows(a: Any, k: int, dtype: np.dtype, name: str):
    """(array as (N, k) rows of dtype, leading shape). No copy when already dtype."""
    x = np.asarray(a)
    if x.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be a float32 or float64 array of shape (..., {k}), "
                         f"got dtype {x.dtype}")
    if x.ndim == 0 or x.shape[-1] != k:
        raise ValueError(f"{name} must have shape (..., {k}), got shape {x.shape}")
    x = x.astype(dtype, copy=False)
    lead = x.shape[:-1]
    return x.reshape(-1, k), lead


def _scalar(value: Any, name: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    return v


def _reshape(d: Dict[str, np.ndarray], lead) -> Dict[str, np.ndarray]:
    return {k: v.reshape(lead + v.shape[1:]) for k, v in d.items()}


class Mesh:
    """A triangle mesh with its BVH index, built once at construction.

    ``Mesh(vertices, faces)``: ``vertices`` (V, 3) float32 or float64 (the index is
    built in that precision; other real dtypes become float64), ``faces`` (F, 3)
    integer vertex indices. Both are copied and validated: an index out of range or
    a non-finite vertex raises ValueError naming the first one (with
    ``drop_non_finite=True`` triangles using a non-finite vertex are dropped
    instead). Degenerate triangles are kept (closest point: their segment or point;
    rays never hit them).

    A Mesh pickles without rebuilding its index (the index's own binary format,
    out of band with pickle protocol 5), so Dask ships it to each worker once.
    """

    __slots__ = ("_impl", "__weakref__")

    def __init__(self, vertices: Any, faces: Any, *, drop_non_finite: bool = False):
        v = np.asarray(vertices)
        if v.dtype.kind not in "fiu":
            raise ValueError(f"vertices must be a float32 or float64 array of shape (V, 3), "
                             f"got dtype {v.dtype}")
        if v.ndim != 2 or v.shape[1] != 3:
            raise ValueError(f"vertices must have shape (V, 3), got shape {v.shape}")
        f = np.asarray(faces)
        if f.dtype.kind not in "iu":
            raise ValueError(f"faces must be an integer array of shape (F, 3), got dtype {f.dtype}")
        if f.ndim != 2 or f.shape[1] != 3:
            raise ValueError(f"faces must have shape (F, 3), got shape {f.shape}")
        if f.dtype == np.uint64 and f.size and f.max() > np.iinfo(np.int64).max:
            raise ValueError(f"faces: vertex index {int(f.max())} is out of range "
                             f"(the mesh has {v.shape[0]} vertices)")
        f = f.astype(np.int64, copy=False)
        if v.dtype == np.float32:
            self._impl = _prox.MeshF32(v, f, bool(drop_non_finite))
        else:
            self._impl = _prox.MeshF64(v.astype(np.float64, copy=False), f, bool(drop_non_finite))

    @classmethod
    def _wrap(cls, impl) -> "Mesh":
        m = cls.__new__(cls)
        m._impl = impl
        return m

    # ---- pickling: the index's own bytes, no rebuild ------------------------
    def __reduce_ex__(self, protocol):
        data = self._impl.save()  # uint8 array: the index's versioned binary format
        if protocol >= 5:
            return (_from_bytes, (self.dtype.str, pickle.PickleBuffer(data)))
        return (_from_bytes, (self.dtype.str, data.tobytes()))

    # ---- properties ----------------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        """The precision of the vertices and of every query (float32 or float64)."""
        return np.dtype(np.float32 if isinstance(self._impl, _prox.MeshF32) else np.float64)

    @property
    def num_vertices(self) -> int:
        """Number of vertices V."""
        return self._impl.num_vertices

    @property
    def num_triangles(self) -> int:
        """Number of triangles F (after any dropped with drop_non_finite)."""
        return self._impl.num_triangles

    @property
    def vertices(self) -> np.ndarray:
        """(V, 3) copy of the vertices, in ``dtype``."""
        return self._impl.vertices

    @property
    def faces(self) -> np.ndarray:
        """(F, 3) int64 copy of the triangles' vertex indices."""
        return self._impl.faces

    @property
    def bounds(self) -> np.ndarray:
        """(2, 3): min and max corner of the triangles' vertices (NaN for no triangles)."""
        return self._impl.bounds

    @property
    def diagnostics(self) -> Dict[str, Any]:
        """What ``prox info`` reports: closed, edges, boundary_edges, non_manifold_edges,
        degenerate_triangles, unused_vertices, memory_bytes, bvh_nodes, bvh_leaves,
        bvh_depth, build_ms, isa. The edge statistics are computed on first access."""
        return self._impl.diagnostics()

    def __repr__(self) -> str:
        return (f"prox.Mesh({self.num_vertices} vertices, {self.num_triangles} triangles, "
                f"{self.dtype.name})")

    # ---- closest point and signed distance -----------------------------------
    def compute_closest_points(self, points: Any, *, max_distance: float = np.inf,
                               threads: Optional[int] = None) -> Dict[str, np.ndarray]:
        """Closest point of the mesh to each query point.

        points: (..., 3). Only triangles within ``max_distance`` count (a miss beyond).
        Returns a dict of arrays with leading shape ``...``:
          points (..., 3) dtype: the closest point (NaN on a miss);
          distance (...) dtype: its distance, sqrt of the squared distance in dtype
            (for float64, the same bits as ``prox closest``'s distance column);
          primitive_ids (...) int64: the triangle, lowest id on ties, -1 on a miss;
          primitive_uvs (..., 2) dtype: weights of corners 1 and 2;
          barycentrics (..., 3) dtype: weights of corners 0, 1, 2;
          feature (...) int8: index into prox.FEATURES, -1 on a miss.
        """
        rows, lead = _rows(points, 3, self.dtype, "points")
        md = _scalar(max_distance, "max_distance")
        if not md > 0:
            raise ValueError(f"max_distance must be > 0, got {max_distance!r}")
        p, d, ids, uv, bary, feat = self._impl.closest_points(rows, md, _threads(threads))
        return _reshape({"points": p, "distance": d, "primitive_ids": ids,
                         "primitive_uvs": uv, "barycentrics": bary, "feature": feat}, lead)

    def compute_distance(self, points: Any, *, threads: Optional[int] = None) -> np.ndarray:
        """(...) distance from each point to the mesh (NaN for a non-finite point)."""
        return self.compute_closest_points(points, threads=threads)["distance"]

    def compute_signed_distance(self, points: Any, *, method: str = "winding_number",
                                threads: Optional[int] = None) -> Dict[str, np.ndarray]:
        """Signed distance to the mesh, negative inside, for each point (..., 3).

        method: a key of prox.SIGN_METHODS. ``"winding_number"`` (robust on open
        and self-intersecting meshes): inside where |w| >= 0.5, w the generalized
        winding number (BVH-accelerated; the exact sum decides within 0.2 of 0.5).
        Returns (...) arrays in dtype: signed_distance (NaN for a non-finite point),
        winding_number, and confidence = min(1, 2 * abs(abs(w) - 0.5)): 1 far from
        the decision, 0 where the sign is a coin toss (w = 0.5, e.g. on a hole).
        """
        fn = SIGN_METHODS.get(method)
        if fn is None:
            raise ValueError(f"method must be one of {sorted(SIGN_METHODS)}, got {method!r}")
        rows, lead = _rows(points, 3, self.dtype, "points")
        return _reshape(fn(self, rows, _threads(threads)), lead)

    def compute_winding_number(self, points: Any, *, exact: bool = False,
                               threads: Optional[int] = None) -> np.ndarray:
        """(...) generalized winding number at each point (..., 3): ~1 inside a closed
        outward-oriented mesh, ~0 outside. exact=False: BVH far-field approximation
        (absolute error ~2e-3 mean, ~1.2e-2 max); exact=True: the O(F) exact sum."""
        rows, lead = _rows(points, 3, self.dtype, "points")
        return self._impl.winding_number(rows, bool(exact), _threads(threads)).reshape(lead)

    def contains(self, points: Any, *, threshold: float = 0.5,
                 threads: Optional[int] = None) -> np.ndarray:
        """(...) bool: whether each point (..., 3) is inside, i.e. |winding number| >=
        threshold (0 < threshold <= 1; 0.5 agrees with compute_signed_distance's
        sign off the surface). The exact winding number decides within 0.2 of the
        threshold. False for a non-finite point."""
        t = _scalar(threshold, "threshold")
        if not 0 < t <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
        rows, lead = _rows(points, 3, self.dtype, "points")
        return self._impl.contains(rows, t, _threads(threads)).reshape(lead)

    # ---- rays ------------------------------------------------------------------
    def _rays(self, rays, directions):
        if directions is None:
            r, lead = _rows(rays, 6, self.dtype, "rays")
            return r[:, :3], r[:, 3:], lead
        o, lead = _rows(rays, 3, self.dtype, "origins")
        d, lead_d = _rows(directions, 3, self.dtype, "directions")
        if lead != lead_d:
            raise ValueError(f"origins and directions must have the same shape, got "
                             f"{lead + (3,)} and {lead_d + (3,)}")
        return o, d, lead

    @staticmethod
    def _range(t_min, t_max):
        return _scalar(t_min, "t_min"), _scalar(t_max, "t_max")

    def cast_rays(self, rays: Any, directions: Any = None, *, t_min: float = 0.0,
                  t_max: float = np.inf, threads: Optional[int] = None) -> Dict[str, np.ndarray]:
        """Nearest hit of each ray: ``cast_rays(rays)`` with rays (..., 6) (origin,
        direction), or ``cast_rays(origins, directions)`` with two (..., 3) arrays.

        Directions are not normalised: t is in units of |direction|; only hits with
        t in [t_min, t_max] count. Watertight: a ray through a shared edge of a closed
        mesh hits. Returns (...)-shaped arrays:
          t_hit dtype: ray parameter of the hit, inf on a miss;
          primitive_ids int64: triangle hit (lowest id at equal t), -1 on a miss;
          primitive_uvs (..., 2) dtype: weights of corners 1 and 2 (NaN on a miss);
          front_face bool: the ray hit the side the normal (c1-c0)x(c2-c0) faces;
          primitive_normals (..., 3) dtype: that unit normal (NaN on a miss).
        """
        o, d, lead = self._rays(rays, directions)
        t0, t1 = self._range(t_min, t_max)
        t, ids, uv, front, nrm = self._impl.cast_rays(o, d, t0, t1, _threads(threads))
        return _reshape({"t_hit": t, "primitive_ids": ids, "primitive_uvs": uv,
                         "front_face": front, "primitive_normals": nrm}, lead)

    def test_occlusions(self, rays: Any, directions: Any = None, *, t_min: float = 0.0,
                        t_max: float = np.inf, threads: Optional[int] = None) -> np.ndarray:
        """(...) bool: whether each ray hits anything with t in [t_min, t_max]
        (shadow rays; stops at the first hit found). Rays as in cast_rays."""
        o, d, lead = self._rays(rays, directions)
        t0, t1 = self._range(t_min, t_max)
        return self._impl.any_hits(o, d, t0, t1, _threads(threads)).reshape(lead)

    def count_intersections(self, rays: Any, directions: Any = None, *, t_min: float = 0.0,
                            t_max: float = np.inf, threads: Optional[int] = None) -> np.ndarray:
        """(...) int32: how many times each ray crosses the surface in [t_min, t_max].
        A crossing through a shared edge or vertex counts once (consistent symbolic
        perturbation), so parity is reliable on closed meshes. Rays as in cast_rays."""
        o, d, lead = self._rays(rays, directions)
        t0, t1 = self._range(t_min, t_max)
        return self._impl.count_hits(o, d, t0, t1, _threads(threads)).reshape(lead)

    def list_intersections(self, rays: Any, directions: Any = None, *, t_min: float = 0.0,
                           t_max: float = np.inf,
                           threads: Optional[int] = None) -> Dict[str, np.ndarray]:
        """Every crossing of every ray (the same crossings count_intersections counts).

        Rays as in cast_rays, flattened in C order to R = prod(...) rays. Returns flat
        arrays (Open3D's layout): ray_splits (R+1,) int64, ray i's hits are
        [ray_splits[i], ray_splits[i+1]); ray_ids (H,) int64; t_hit (H,) dtype,
        sorted by t then triangle id within each ray; primitive_ids (H,) int64;
        primitive_uvs (H, 2) dtype; front_face (H,) bool.
        """
        o, d, _ = self._rays(rays, directions)
        t0, t1 = self._range(t_min, t_max)
        splits, rid, t, ids, uv, front = self._impl.all_hits(o, d, t0, t1, _threads(threads))
        return {"ray_splits": splits, "ray_ids": rid, "t_hit": t, "primitive_ids": ids,
                "primitive_uvs": uv, "front_face": front}

    # ---- spheres ---------------------------------------------------------------
    def _radii(self, radii, lead):
        r = np.asarray(radii)
        if r.dtype.kind not in "fiu":
            raise ValueError(f"radii must be a number or a real array, got dtype {r.dtype}")
        r = r.astype(self.dtype, copy=False)
        if r.ndim == 0:
            r = r.reshape(1)
        elif r.shape == lead:
            r = np.ascontiguousarray(r).reshape(-1)
        else:
            raise ValueError(f"radii must be a number or have shape {lead} (one per center), "
                             f"got shape {r.shape}")
        if np.any(r < 0):
            raise ValueError("radii must be >= 0")
        return r

    def sphere_overlap(self, centers: Any, radii: Any, *,
                       threads: Optional[int] = None) -> np.ndarray:
        """(...) bool: whether any triangle lies within distance radius of each center.
        centers (..., 3); radii a number or (...) (one per center)."""
        rows, lead = _rows(centers, 3, self.dtype, "centers")
        r = self._radii(radii, lead)
        return self._impl.sphere_overlaps(rows, r, _threads(threads)).reshape(lead)

    def sphere_triangles(self, centers: Any, radii: Any, *,
                         threads: Optional[int] = None) -> Dict[str, np.ndarray]:
        """Every triangle within distance radius of each center (flattened to S centers):
        splits (S+1,) int64, center i's triangles are primitive_ids[splits[i]:splits[i+1]]
        (sorted ids); primitive_ids (T,) int64."""
        rows, lead = _rows(centers, 3, self.dtype, "centers")
        r = self._radii(radii, lead)
        splits, ids = self._impl.sphere_triangles(rows, r, _threads(threads))
        return {"splits": splits, "primitive_ids": ids}


def _from_bytes(dtype: str, data) -> Mesh:
    buf = np.frombuffer(data, dtype=np.uint8)
    impl = _prox.MeshF32 if np.dtype(dtype) == np.float32 else _prox.MeshF64
    return Mesh._wrap(impl.from_bytes(buf))


def _sign_winding_number(mesh: Mesh, rows: np.ndarray, threads: int) -> Dict[str, np.ndarray]:
    sd, w = mesh._impl.signed_distance(rows, threads)
    with np.errstate(invalid="ignore"):
        confidence = np.minimum(1, 2 * np.abs(np.abs(w) - 0.5)).astype(w.dtype, copy=False)
    return {"signed_distance": sd, "winding_number": w, "confidence": confidence}


SIGN_METHODS["winding_number"] = _sign_winding_number


def load(path: Union[str, os.PathLike], *, dtype: Any = np.float64,
         drop_non_finite: bool = False) -> Mesh:
    """Reads a mesh file (OBJ, PLY ascii/binary, STL ascii/binary, OFF; format from the
    extension, else the content) and builds its index in ``dtype`` (float64 or float32).
    FileNotFoundError if the file does not exist; ValueError naming the file and the
    line or byte offset for a malformed one."""
    path = os.fspath(path)
    dt = np.dtype(dtype)
    if dt not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dt}")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file")
    impl = _prox.MeshF32 if dt == np.float32 else _prox.MeshF64
    return Mesh._wrap(impl.load(path, bool(drop_non_finite)))


# ---- 2D shapes -----------------------------------------------------------------

class _Shape2D:
    """Common queries of the 2D shapes (float64). Points (..., 2); leading shape kept."""

    __slots__ = ("_impl",)

    def closest(self, points: Any, *, part: str = "boundary",
                threads: Optional[int] = None) -> Dict[str, np.ndarray]:
        """Closest point of the shape's outline (part="boundary": a point inside goes to
        the nearest edge) or solid (part="solid": a point inside is its own answer).
        Returns points (..., 2), distance (...), edge (...) int64 (the straight edge
        holding the point, -1 if none), t (...) (fraction along that edge)."""
        if part not in ("boundary", "solid"):
            raise ValueError(f"part must be 'boundary' or 'solid', got {part!r}")
        rows, lead = _rows(points, 2, np.dtype(np.float64), "points")
        p, d, e, t = self._impl.closest(rows, part == "solid", _threads(threads))
        return _reshape({"points": p, "distance": d, "edge": e, "t": t}, lead)

    def distance(self, points: Any, *, part: str = "boundary",
                 threads: Optional[int] = None) -> np.ndarray:
        """(...) distance to the outline or the solid (see closest)."""
        return self.closest(points, part=part, threads=threads)["distance"]

    def contains(self, points: Any, *, threads: Optional[int] = None) -> np.ndarray:
        """(...) bool: whether each point is in the shape (outline included; for a
        segment or polyline: on it). False for a non-finite point."""
        rows, lead = _rows(points, 2, np.dtype(np.float64), "points")
        return self._impl.contains(rows, _threads(threads)).reshape(lead)


class _ClosedShape2D(_Shape2D):
    __slots__ = ()

    def signed_distance(self, points: Any, *, threads: Optional[int] = None) -> np.ndarray:
        """(...) distance to the outline, negative strictly inside (0 on it)."""
        rows, lead = _rows(points, 2, np.dtype(np.float64), "points")
        return self._impl.signed_distance(rows, _threads(threads)).reshape(lead)


def _pt(p, name):
    a = np.asarray(p, dtype=np.float64)
    if a.shape != (2,):
        raise ValueError(f"{name} must be a 2D point (2,), got shape {a.shape}")
    return (float(a[0]), float(a[1]))


def _pts(p, name="points"):
    a = np.asarray(p)
    if a.dtype.kind not in "fiu" or a.ndim != 2 or a.shape[1] != 2:
        raise ValueError(f"{name} must be a real array of shape (K, 2), got "
                         f"{a.dtype} {a.shape}")
    return np.ascontiguousarray(a, dtype=np.float64)


class Segment(_Shape2D):
    """The segment from a to b (no inside). a, b: (2,)."""
    __slots__ = ()

    def __init__(self, a: Any, b: Any):
        self._impl = _prox.planar.Segment(_pt(a, "a"), _pt(b, "b"))


class Circle(_ClosedShape2D):
    """The disc of radius >= 0 around center (2,)."""
    __slots__ = ()

    def __init__(self, center: Any, radius: float):
        self._impl = _prox.planar.Circle(_pt(center, "center"), _scalar(radius, "radius"))


class Box(_ClosedShape2D):
    """The axis-aligned box lo <= x <= hi (lo, hi: (2,)); lo == hi is a point."""
    __slots__ = ()

    def __init__(self, lo: Any, hi: Any):
        self._impl = _prox.planar.Box(_pt(lo, "lo"), _pt(hi, "hi"))


class OrientedBox(_ClosedShape2D):
    """A box of half sizes (2,) around center (2,), turned by angle radians
    counter-clockwise."""
    __slots__ = ()

    def __init__(self, center: Any, half_size: Any, angle: float = 0.0):
        self._impl = _prox.planar.OrientedBox(_pt(center, "center"), _pt(half_size, "half_size"),
                                              _scalar(angle, "angle"))


class Capsule(_ClosedShape2D):
    """Points within radius of the segment a-b (a stadium)."""
    __slots__ = ()

    def __init__(self, a: Any, b: Any, radius: float):
        self._impl = _prox.planar.Capsule(_pt(a, "a"), _pt(b, "b"), _scalar(radius, "radius"))


class ConvexPolygon(_ClosedShape2D):
    """A convex polygon, points (K, 2) in order either way round (checked: convex,
    winding once). Edge i runs from point i to point i+1."""
    __slots__ = ()

    def __init__(self, points: Any):
        self._impl = _prox.planar.ConvexPolygon(_pts(points))


class Polygon(_ClosedShape2D):
    """A simple polygon (concave allowed; checked: does not cross itself), points
    (K, 2) in order either way round. Edge i runs from point i to point i+1."""
    __slots__ = ()

    def __init__(self, points: Any):
        self._impl = _prox.planar.Polygon(_pts(points))


class Polyline(_Shape2D):
    """An open chain of segments through points (K, 2); no inside."""
    __slots__ = ()

    def __init__(self, points: Any):
        self._impl = _prox.planar.Polyline(_pts(points))
