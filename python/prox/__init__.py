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
* Signed distances are negative inside. How the inside is decided is a sign
  method (``method=``: ``"auto"``, ``"winding"``, ``"pseudonormal"``,
  ``"parity"``; see ``docs/sign-and-sdf.md``); ``"auto"`` picks one from the
  mesh's diagnostics, and every signed answer says which one decided it and how
  sure it is (``prox.CONFIDENCE``).
* Barycentric coordinates: ``barycentrics`` are the weights of the triangle's
  corners 0, 1, 2; ``primitive_uvs`` (Open3D's name) are the weights of corners
  1 and 2 (so the point is ``(1-u-v) c0 + u c1 + v c2``).
* The GIL is released during each query; ``threads=None`` (or 0) uses every
  core; answers are bit for bit the same for any thread count.
* Bad input raises ``ValueError`` with a one-line message naming what is wrong.
* ``device="gpu"`` (compute_closest_points, compute_signed_distance, cast_rays,
  test_occlusions, count_intersections) answers through prox::gpu (Vulkan compute) in float32: the
  answers are those of the CPU on the float32 mesh, ``Mesh(vertices.astype(
  np.float32), faces)``, widened to the mesh's dtype (docs/gpu.md: bit for bit
  on a device with IEEE float/double rounding). Without a Vulkan device it raises
  RuntimeError naming the cause. See ``gpu_device()``.
"""

from __future__ import annotations

import os
import pickle
import operator
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from . import _prox

__all__ = [
    "Mesh", "load", "FEATURES", "SIGN_METHODS", "CONFIDENCE", "CONTAINMENT", "OUTSIDE", "INSIDE",
    "UNSURE", "isa", "gpu_device",
    "Segment", "Circle", "Box", "OrientedBox", "Capsule", "ConvexPolygon", "Polygon", "Polyline",
]
__version__ = "0.1.0"

#: Names of ``compute_closest_points(...)["feature"]`` values 0..6 (-1: a miss):
#: the corner, edge or face of the triangle that holds the closest point.
FEATURES = ("vertex0", "vertex1", "vertex2", "edge01", "edge12", "edge20", "face")

#: Sign methods, by code: ``compute_signed_distance(...)["sign_method"]`` holds the
#: index of the method that decided each point (1 winding, 2 pseudonormal, 3 parity;
#: 4 none: the mesh has no inside; -1 a miss). ``method=`` takes any name but "none".
SIGN_METHODS = ("auto", "winding", "pseudonormal", "parity", "none")

#: Names of ``compute_signed_distance(...)["confidence"]`` values (-1: a miss):
#: 0 sure (the method's evidence is unambiguous), 1 unsure (winding number near
#: 1/2, a split parity vote, or a method the mesh does not suit), 2 no_inside
#: (the mesh has no inside: nothing was signed).
CONFIDENCE = ("sure", "unsure", "no_inside")

#: Names of ``contains(...)`` values: 0 outside, 1 inside, 2 unsure.
CONTAINMENT = ("outside", "inside", "unsure")
OUTSIDE, INSIDE, UNSURE = 0, 1, 2


def _method(method: Any) -> str:
    if method == "winding_number":  # the name of the first version of the module
        method = "winding"
    if not isinstance(method, str) or method not in SIGN_METHODS[:4]:
        raise ValueError(f"method must be one of {SIGN_METHODS[:4]}, got {method!r}")
    return method


def _parity_rays(parity_rays: Any) -> int:
    if isinstance(parity_rays, bool) or not isinstance(parity_rays, (int, np.integer)) \
            or not (1 <= parity_rays <= 15 and parity_rays % 2 == 1):
        raise ValueError(f"parity_rays must be odd, from 1 to 15, got {parity_rays!r}")
    return int(parity_rays)


def isa() -> str:
    """The CPU path (SSE2, AVX2, AVX-512) prox's hot queries run on, in words."""
    return _prox.isa()


def gpu_device() -> str:
    """The GPU that ``device="gpu"`` runs on, as "NAME (TYPE, Vulkan X.Y.Z)".

    The process makes one Vulkan context on first use (this call or the first
    ``device="gpu"`` query) and keeps it. Device choice: ``PROX_GPU_DEVICE`` (an
    index or part of the name), else a discrete GPU, integrated, virtual, then a
    CPU driver (Mesa's lavapipe). Raises RuntimeError saying why when there is
    none ("gpu: no Vulkan loader ...", "gpu: no Vulkan device ...", or a module
    built without prox::gpu)."""
    return _prox.gpu_device()


def _device(device: Any) -> str:
    if device not in ("cpu", "gpu"):
        raise ValueError(f"device must be 'cpu' or 'gpu', got {device!r}")
    return device


def _threads(threads: Optional[int]) -> int:
    if threads is None:
        return 0
    if (isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 0
            or threads > 4096):
        raise ValueError(f"threads must be None or an integer from 0 (all cores) to 4096, "
                         f"got {threads!r}")
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
    if v != v:  # NaN: every comparison with it is false, so it would make every query a miss
        raise ValueError(f"{name} must be a number, not NaN")
    return v


def _reshape(d: Dict[str, np.ndarray], lead) -> Dict[str, np.ndarray]:
    return {k: v.reshape(lead + v.shape[1:]) for k, v in d.items()}


def _grid_args(res: Any, dx: Any, padding: Any):
    """sdf_grid's grid options as (mode, (n, ny, nz), dx, padding) for the extension:
    mode 0 res=N (cubic cells), 1 res=(nx, ny, nz), 2 dx=h."""
    if res is not None and dx is not None:
        raise ValueError("give res or dx, not both")
    mode, dims, h = 0, (64, 0, 0), 0.0
    if dx is not None:
        h = _scalar(dx, "dx")
        if not (h > 0 and np.isfinite(h)):
            raise ValueError(f"dx must be a finite number > 0, got {dx!r}")
        mode = 2
    elif res is not None:
        r = np.asarray(res)
        if r.dtype.kind not in "iu" or r.shape not in ((), (3,)):
            raise ValueError(f"res must be an integer N or (nx, ny, nz), got {res!r}")
        if r.shape == ():
            if not 2 <= int(r) <= 100000:
                raise ValueError(f"res must be from 2 to 100000, got {int(r)}")
            dims = (int(r), 0, 0)
        else:
            if not all(1 <= int(x) <= 100000 for x in r):
                raise ValueError(f"res must have 1 to 100000 nodes per axis, got {tuple(r)}")
            mode, dims = 1, tuple(int(x) for x in r)
    pad = _scalar(padding, "padding")
    if not (pad >= 0 and np.isfinite(pad)):
        raise ValueError(f"padding must be a finite number >= 0, got {padding!r}")
    return mode, dims, h, pad


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
        """What ``prox info`` reports, as a dict (computed once, on first access).

        As stored (vertices as given): closed, edges, boundary_edges,
        non_manifold_edges, degenerate_triangles, unused_vertices; the index:
        memory_bytes, bvh_nodes, bvh_leaves, bvh_depth, build_ms, isa.
        The sign's view (vertices welded by exact position, so a triangle soup has
        the topology it draws; prox/mesh/diagnostics.hpp): welded_vertices,
        welded_closed, welded_boundary_edges, welded_non_manifold_edges,
        welded_degenerate_triangles, manifold, oriented (neighbouring triangles
        agree), inconsistent_edges, outward (signed volume > 0), components
        (edge-connected), inward_components, overlapping_components,
        crossing_components, self_intersecting_components and misnested_components
        (closed meshes: pieces facing inward, whose box meets another's, that cross
        or touch another, that pass through themselves, oriented against how they
        nest; the last three rule out the pseudonormal sign),
        duplicate_triangles, area, volume (signed; meaningful when
        closed), planar, has_inside, recommended_sign_method (what method="auto"
        picks), verdict (one line on how far a sign can be trusted).
        """
        return self._impl.diagnostics()

    @property
    def is_closed(self) -> bool:
        """Closed once vertices are welded by position: every edge shared by exactly
        two triangles (``diagnostics["welded_closed"]``)."""
        return self.diagnostics["welded_closed"]

    @property
    def is_manifold(self) -> bool:
        """No edge shared by three or more triangles (welded)."""
        return self.diagnostics["manifold"]

    @property
    def is_oriented(self) -> bool:
        """Neighbouring triangles agree on their orientation (welded)."""
        return self.diagnostics["oriented"]

    @property
    def is_outward(self) -> bool:
        """Signed volume > 0: the normals (c1-c0)x(c2-c0) point out (when closed)."""
        return self.diagnostics["outward"]

    @property
    def components(self) -> int:
        """Number of edge-connected pieces."""
        return self.diagnostics["components"]

    @property
    def area(self) -> float:
        """Total surface area (float64)."""
        return self.diagnostics["area"]

    @property
    def volume(self) -> float:
        """Signed volume (float64; > 0 for a closed outward mesh; an open mesh's
        depends on the origin)."""
        return self.diagnostics["volume"]

    @property
    def verdict(self) -> str:
        """One line on how reliable a sign is on this mesh, naming the method
        ``method="auto"`` picks (as ``prox info``'s sign line)."""
        return self.diagnostics["verdict"]

    def sign_method(self, method: str = "auto", *, parity_rays: int = 3) -> str:
        """The method ``method`` resolves to on this mesh: "auto" becomes
        pseudonormal (closed, oriented, outward), parity (other closed meshes) or
        winding (open, non-manifold, soups); "none" when the mesh has no inside."""
        return self._impl.resolve_sign_method(_method(method), _parity_rays(parity_rays))

    def reorient(self, *, threads: Optional[int] = None):
        """A copy made consistently oriented, outward (cavities inward), as
        ``prox closest --reorient``: every edge-connected piece made consistent by
        flipping triangles (corners 1 and 2 swapped), then turned so the solid has
        positive volume. Returns ``(mesh, info)``: the new Mesh (its index built;
        same vertices) and a dict with ``flipped`` (triangles flipped) and
        ``conflicts`` (edges that still disagree: a non-orientable piece)."""
        impl, flipped, conflicts = self._impl.reorient(_threads(threads))
        return Mesh._wrap(impl), {"flipped": int(flipped), "conflicts": int(conflicts)}

    def __repr__(self) -> str:
        return (f"prox.Mesh({self.num_vertices} vertices, {self.num_triangles} triangles, "
                f"{self.dtype.name})")

    # ---- closest point and signed distance -----------------------------------
    def compute_closest_points(self, points: Any, *, max_distance: float = np.inf,
                               threads: Optional[int] = None,
                               device: str = "cpu") -> Dict[str, np.ndarray]:
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
        device: "cpu", or "gpu": prox::gpu in float32, the answers of the float32
          mesh on the CPU widened to dtype (module docstring; distance is sqrt in
          float32); ``threads`` then applies to the CPU's part only.
        """
        dev = _device(device)
        rows, lead = _rows(points, 3, self.dtype, "points")
        md = _scalar(max_distance, "max_distance")
        if not md > 0:
            raise ValueError(f"max_distance must be > 0, got {max_distance!r}")
        p, d, ids, uv, bary, feat = self._impl.closest_points(rows, md, _threads(threads), dev)
        return _reshape({"points": p, "distance": d, "primitive_ids": ids,
                         "primitive_uvs": uv, "barycentrics": bary, "feature": feat}, lead)

    def compute_distance(self, points: Any, *, threads: Optional[int] = None) -> np.ndarray:
        """(...) distance from each point to the mesh (NaN for a non-finite point)."""
        return self.compute_closest_points(points, threads=threads)["distance"]

    def compute_signed_distance(self, points: Any, *, method: str = "auto",
                                parity_rays: int = 3, threads: Optional[int] = None,
                                device: str = "cpu") -> Dict[str, Any]:
        """Signed distance to the mesh, negative inside, for each point (..., 3): one
        closest-point traversal, then its sign by ``method`` (prox/mesh/sign.hpp):

        * "auto" (default): chosen from the mesh's diagnostics (see sign_method());
        * "winding": generalized winding number w, inside where |w| >= 1/2 (robust on
          open meshes and soups; unsure when the deciding |w| is in (0.3, 0.7));
        * "pseudonormal": the angle-weighted pseudonormal at the closest feature
          (exact on closed, consistently and outward oriented meshes);
        * "parity": ``parity_rays`` (odd, 1..15) fixed rays, odd crossings = inside,
          majority vote (exact on any closed mesh, any orientation).

        Returns a dict: ``method`` (str, the method "auto" resolved to; "none" on a
        mesh with no inside) and (...) arrays:
          signed_distance dtype: negative inside, 0 on the surface; NaN on a miss (a
            non-finite point) or on a mesh with no inside;
          winding_number dtype: the deciding w (winding only, else NaN);
          confidence int8: index into prox.CONFIDENCE (0 sure, 1 unsure, 2
            no_inside), -1 for a miss;
          sign_method int8: the method that decided this point (index into
            prox.SIGN_METHODS; pseudonormal hands a degenerate closest triangle to
            parity), -1 for a miss;
          inside_votes, votes uint8: parity rays that said inside, of those cast
            (0 and 0 unless parity decided);
          points (..., 3) dtype, primitive_ids int64: the closest point and triangle.
        For a float64 mesh the arrays are bit for bit ``prox closest --signed``'s
        columns (signed_distance, winding_number, sign_method, confidence).
        device: "cpu", or "gpu": the closest points from prox::gpu in float32, signed
          on the CPU (all cores) by the same method on the float32 mesh: the float32
          mesh's CPU answers, widened to dtype (``method`` resolves on that mesh).
        """
        dev = _device(device)
        m, pr = _method(method), _parity_rays(parity_rays)
        rows, lead = _rows(points, 3, self.dtype, "points")
        sd, w, conf, used, iv, v, p, ids, resolved = self._impl.signed_query(
            rows, m, pr, _threads(threads), dev)
        out = _reshape({"signed_distance": sd, "winding_number": w, "confidence": conf,
                        "sign_method": used, "inside_votes": iv, "votes": v, "points": p,
                        "primitive_ids": ids}, lead)
        out["method"] = resolved
        return out

    def compute_winding_number(self, points: Any, *, exact: bool = False,
                               threads: Optional[int] = None) -> np.ndarray:
        """(...) generalized winding number at each point (..., 3): ~1 inside a closed
        outward-oriented mesh, ~0 outside. exact=False: BVH far-field approximation
        (absolute error ~2e-3 mean, ~1.2e-2 max); exact=True: the O(F) exact sum."""
        rows, lead = _rows(points, 3, self.dtype, "points")
        return self._impl.winding_number(rows, bool(exact), _threads(threads)).reshape(lead)

    def contains(self, points: Any, *, method: str = "auto", parity_rays: int = 3,
                 threads: Optional[int] = None) -> np.ndarray:
        """(...) int8: where each point (..., 3) is, as prox::contains says it:
        0 outside, 1 inside (a point on the surface counts as inside), 2 unsure (the
        sign is not sure: see compute_signed_distance's confidence; a non-finite
        point; a mesh with no inside). Names in prox.CONTAINMENT; compare with
        prox.INSIDE / prox.OUTSIDE / prox.UNSURE (``mesh.contains(p) == prox.INSIDE``
        is a bool array with unsure points False). method, parity_rays: as
        compute_signed_distance."""
        m, pr = _method(method), _parity_rays(parity_rays)
        rows, lead = _rows(points, 3, self.dtype, "points")
        return self._impl.contains(rows, m, pr, _threads(threads)).reshape(lead)

    # ---- signed distance grid --------------------------------------------------
    def sdf_grid(self, *, res: Any = None, dx: Optional[float] = None, padding: float = 0.1,
                 band: float = np.inf, method: str = "auto", parity_rays: int = 3,
                 float32: bool = False, z_planes: Optional[Tuple[int, int]] = None,
                 threads: Optional[int] = None) -> Dict[str, Any]:
        """The signed distance on every node of a regular grid over the mesh's box,
        padded by ``padding`` x its longest side on every side, as ``prox sdf``
        (prox/mesh/sdf_grid.hpp: the exact distance at every node, signed by
        ``method``; each node equals compute_signed_distance at that node).

        The grid: ``res=N`` (default 64): cubic cells, N nodes along the longest
        padded axis, the others as many as cover their length (centred);
        ``res=(nx, ny, nz)``: that many nodes spanning the padded box exactly (cells
        need not be cubic); or ``dx=h``: cubic cells of side h. band: values with
        |d| > band are clamped to +-band (faster; the sign is still exact). float32:
        store float32 values (the default is the mesh's dtype).

        Returns a dict: ``values`` (nx, ny, nz) array, node (i, j, k) at
        ``values[i, j, k]`` (Fortran order, x fastest; ``values.T`` is the
        C-ordered (nz, ny, nx) array ``prox sdf`` writes, bit for bit for a float64
        mesh); ``origin`` (3,) float64, the position of node (0, 0, 0); ``spacing``
        (3,) float64, so node (i, j, k) is at origin + (i, j, k) * spacing;
        ``method`` (str, the sign method used); ``unsure`` (int, nodes whose sign
        is not sure); ``sign_evaluations`` (nodes signed by the method, the others
        copied from a neighbour where that is exact). ValueError on a mesh with no
        inside, a bad grid (1..100000 nodes per axis, 4e9 in all) or a bad option.

        z_planes=(k0, k1): only the z-planes k0 <= k < k1 of that grid (k1 clipped to
        nz): ``values`` is (nx, ny, k1 - k0), its [i, j, k] the whole grid's [i, j,
        k0 + k] bit for bit (each plane is computed on its own); origin and spacing
        are the whole grid's; unsure and sign_evaluations count those planes. How
        prox.dask.sdf_grid splits a grid across workers.
        """
        m, pr = _method(method), _parity_rays(parity_rays)
        mode, dims, h, pad = _grid_args(res, dx, padding)
        b = _scalar(band, "band")
        if not b > 0:
            raise ValueError(f"band must be > 0, got {band!r}")
        k0, k1 = 0, 2**63 - 1
        if z_planes is not None:
            try:
                k0, k1 = (int(operator.index(k)) for k in z_planes)
            except (TypeError, ValueError):
                raise ValueError(f"z_planes must be two integers (k0, k1), got {z_planes!r}") \
                    from None
            if not 0 <= k0 <= k1:
                raise ValueError(f"z_planes must have 0 <= k0 <= k1, got {z_planes!r}")
        values, origin, spacing, used, unsure, evals = self._impl.sdf_grid(
            mode, dims, h, pad, b, bool(float32), m, pr, k0, k1, _threads(threads))
        return {"values": values, "origin": origin, "spacing": spacing, "method": used,
                "unsure": int(unsure), "sign_evaluations": int(evals)}

    def _grid_dims(self, res=None, dx=None, padding=0.1):
        """(dims, origin, spacing) of sdf_grid's grid for these options."""
        dims, origin, spacing = self._impl.grid_dims(*_grid_args(res, dx, padding))
        return tuple(int(n) for n in dims), np.array(origin), np.array(spacing)

    # ---- two meshes: Hausdorff, sampling, Chamfer ------------------------------
    def _other(self, other, what):
        if not isinstance(other, Mesh):
            raise ValueError(f"{what}: other must be a prox.Mesh, got {type(other).__name__}")
        if other.dtype != self.dtype:
            raise ValueError(f"{what}: both meshes must have the same dtype, got {self.dtype} "
                             f"and {other.dtype}")
        if self.num_triangles == 0 or other.num_triangles == 0:
            raise ValueError(f"{what}: both meshes need triangles (got {self.num_triangles} "
                             f"and {other.num_triangles})")
        return other._impl

    def hausdorff(self, other: "Mesh", *, tolerance: Optional[float] = None,
                  relative: Optional[float] = None, symmetric: bool = True,
                  max_subtriangles: Optional[int] = None,
                  threads: Optional[int] = None) -> Dict[str, Any]:
        """Certified Hausdorff distance between this mesh (A) and ``other`` (B), as
        ``prox hausdorff`` (prox/mesh/hausdorff.hpp): an interval [lower, upper]
        that contains the true value, no wider than the tolerance.

        tolerance: wanted width, absolute (mesh units); relative: wanted width as a
        fraction of the diagonal of A and B's joint box (default 1e-4 when neither
        is given). symmetric=True: H(A, B) = max(h(A, B), h(B, A)); False: the one-
        sided h(A, B) = max over A's surface of the distance to B. max_subtriangles:
        stop refining past this many (then converged is False; default 2^23).

        Returns (float64 numbers) for symmetric: lower, upper, tolerance (absolute,
        used), diagonal, converged, and ``forward`` (h(A, B)) and ``backward``
        (h(B, A)), each a dict: lower, upper, worst_point (3,) (the point of the
        first mesh where its distance to the other is ``lower``), worst_closest
        (3,) (its closest point on the other), worst_triangle,
        worst_closest_triangle, converged, subtriangles, searches, point_queries,
        rounds. One-sided: that side's dict with tolerance and diagonal added.
        Both meshes need the same dtype.
        """
        o = self._other(other, "hausdorff")
        tol, rel = 0.0, 1e-4
        if tolerance is not None and relative is not None:
            raise ValueError("give tolerance or relative, not both")
        if tolerance is not None:
            tol, rel = _scalar(tolerance, "tolerance"), 0.0
            if not (tol > 0 and np.isfinite(tol)):
                raise ValueError(f"tolerance must be a finite number > 0, got {tolerance!r}")
        elif relative is not None:
            rel = _scalar(relative, "relative")
            if not 0 < rel < 1:
                raise ValueError(f"relative must be in (0, 1), got {relative!r}")
        cap = 0
        if max_subtriangles is not None:
            if isinstance(max_subtriangles, bool) or \
                    not isinstance(max_subtriangles, (int, np.integer)) or max_subtriangles < 1:
                raise ValueError(f"max_subtriangles must be an integer >= 1, got "
                                 f"{max_subtriangles!r}")
            cap = int(max_subtriangles)
        return self._impl.hausdorff(o, tol, rel, bool(symmetric), cap, _threads(threads))

    def sample(self, n: int, *, seed: int = 1, method: str = "uniform",
               threads: Optional[int] = None) -> Dict[str, np.ndarray]:
        """n area-weighted random points on the surface, as ``prox sample``
        (prox/mesh/sample_surface.hpp): a triangle with probability area / total,
        uniform inside it. method "uniform" (independent samples; sample i does not
        depend on n) or "stratified" (one per 1/n of the cumulative area: much less
        variance). Seeded: the same for any thread count.

        Returns points (n, 3) dtype, primitive_ids (n,) int64 (the triangle),
        barycentrics (n, 3) dtype (weights of its corners 0, 1, 2). ValueError on a
        mesh with no area.
        """
        n = self._count(n, "n")
        return dict(zip(("points", "primitive_ids", "barycentrics"),
                        self._impl.sample(n, self._seed(seed), self._sampling(method),
                                          _threads(threads))))

    def chamfer(self, other: "Mesh", *, samples: int = 100000, seed: int = 1,
                method: str = "stratified", return_distances: bool = False,
                threads: Optional[int] = None) -> Dict[str, Any]:
        """Mean, RMS and Chamfer distance between this mesh (A) and ``other`` (B) on
        area-weighted samples, as ``prox hausdorff`` reports them: ``samples``
        points of A (seed ``seed``) and of B (seed ``seed + 1``), each one's exact
        distance to the other surface.

        Returns (float64): chamfer_l2 = mean d(a,B)^2 + mean d(b,A)^2 (PyTorch3D's
        convention, but to the surface, not to its samples), chamfer_l1 = mean
        d(a,B) + mean d(b,A), samples, diagonal (of A and B's joint box), and
        ``forward`` (A's samples to B) and ``backward`` (B's to A), each a dict:
        mean, rms, mean_sq, max (the sampled max: a lower bound of the Hausdorff
        distance), argmax, and with return_distances=True ``distances`` (samples,)
        float64 (the samples are ``A.sample(samples, seed=seed, method=method)``).
        """
        o = self._other(other, "chamfer")
        n = self._count(samples, "samples")
        return self._impl.sample_distance_stats(o, n, self._seed(seed), self._sampling(method),
                                                bool(return_distances), _threads(threads))

    @staticmethod
    def _count(n, name):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 2**31:
            raise ValueError(f"{name} must be an integer from 1 to 2^31, got {n!r}")
        return int(n)

    @staticmethod
    def _seed(seed):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or \
                not 0 <= seed < 2**64 - 1:
            raise ValueError(f"seed must be an integer from 0 to 2^64-2, got {seed!r}")
        return int(seed)

    @staticmethod
    def _sampling(method):
        if method not in ("uniform", "stratified"):
            raise ValueError(f"method must be 'uniform' or 'stratified', got {method!r}")
        return method == "stratified"

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
                  t_max: float = np.inf, normals: bool = True, threads: Optional[int] = None,
                  device: str = "cpu") -> Dict[str, np.ndarray]:
        """Nearest hit of each ray: ``cast_rays(rays)`` with rays (..., 6) (origin,
        direction), or ``cast_rays(origins, directions)`` with two (..., 3) arrays.

        Directions are not normalised: t is in units of |direction|; only hits with
        t in [t_min, t_max] count. Watertight: a ray through a shared edge of a closed
        mesh hits. Returns (...)-shaped arrays:
          t_hit dtype: ray parameter of the hit, inf on a miss;
          primitive_ids int64: triangle hit (lowest id at equal t), -1 on a miss;
          primitive_uvs (..., 2) dtype: weights of corners 1 and 2 (NaN on a miss);
          front_face bool: the ray hit the side the normal (c1-c0)x(c2-c0) faces;
          primitive_normals (..., 3) dtype: that unit normal (NaN on a miss or a
            degenerate triangle); only with ``normals=True`` (the default; False
            leaves it out and saves its cost: a corner read, a cross product and a
            square root per hit).
        device: "cpu", or "gpu": prox::gpu in float32 (rays and t range rounded to
          float32), the float32 mesh's CPU answers widened to dtype.
        """
        dev = _device(device)
        o, d, lead = self._rays(rays, directions)
        t0, t1 = self._range(t_min, t_max)
        t, ids, uv, front, nrm = self._impl.cast_rays(o, d, t0, t1, bool(normals),
                                                      _threads(threads), dev)
        out = {"t_hit": t, "primitive_ids": ids, "primitive_uvs": uv, "front_face": front}
        if nrm is not None:
            out["primitive_normals"] = nrm
        return _reshape(out, lead)

    def test_occlusions(self, rays: Any, directions: Any = None, *, t_min: float = 0.0,
                        t_max: float = np.inf, threads: Optional[int] = None,
                        device: str = "cpu") -> np.ndarray:
        """(...) bool: whether each ray hits anything with t in [t_min, t_max]
        (shadow rays; stops at the first hit found). Rays and device as in cast_rays."""
        dev = _device(device)
        o, d, lead = self._rays(rays, directions)
        t0, t1 = self._range(t_min, t_max)
        return self._impl.any_hits(o, d, t0, t1, _threads(threads), dev).reshape(lead)

    def count_intersections(self, rays: Any, directions: Any = None, *, t_min: float = 0.0,
                            t_max: float = np.inf, threads: Optional[int] = None,
                            device: str = "cpu") -> np.ndarray:
        """(...) int32: how many times each ray crosses the surface in [t_min, t_max].
        A crossing through a shared edge or vertex counts once (consistent symbolic
        perturbation), so parity is reliable on closed meshes. Rays and device as in
        cast_rays."""
        dev = _device(device)
        o, d, lead = self._rays(rays, directions)
        t0, t1 = self._range(t_min, t_max)
        return self._impl.count_hits(o, d, t0, t1, _threads(threads), dev).reshape(lead)

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
        if not np.all(r >= 0):
            raise ValueError("radii must be >= 0 (not NaN)")
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


def load(path: Union[str, os.PathLike], *, dtype: Any = np.float64,
         drop_non_finite: bool = False) -> Mesh:
    """Reads a mesh file (OBJ, PLY ascii/binary, STL ascii/binary, OFF; format from the
    extension, else the content) and builds its index in ``dtype`` (float64 or float32).
    FileNotFoundError if the file does not exist; ValueError naming the file and the
    line or byte offset for a malformed one."""
    path = os.fsdecode(os.fspath(path))  # str, bytes or a path-like object
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
