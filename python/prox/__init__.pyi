# Type stubs of the prox package (python/prox/__init__.py holds the docstrings).
# Shapes: "..." is any leading shape, kept in every result; Dtype is the mesh's
# float32 or float64; ids are int64 with -1 for a miss.
import os
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
FEATURES: Tuple[str, ...]
SIGN_METHODS: Tuple[str, ...]   # ("auto", "winding", "pseudonormal", "parity", "none"): codes 0..4
CONFIDENCE: Tuple[str, ...]     # ("sure", "unsure", "no_inside"): codes 0..2, -1 a miss
CONTAINMENT: Tuple[str, ...]    # ("outside", "inside", "unsure"): contains() codes 0..2
OUTSIDE: int
INSIDE: int
UNSURE: int

def isa() -> str: ...
# The GPU of device="gpu": "NAME (TYPE, Vulkan X.Y.Z)"; RuntimeError (why) without one.
def gpu_device() -> str: ...

class Mesh:
    def __init__(self, vertices: npt.ArrayLike, faces: npt.ArrayLike, *,
                 drop_non_finite: bool = ...) -> None: ...
    @property
    def dtype(self) -> np.dtype: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_triangles(self) -> int: ...
    @property
    def vertices(self) -> np.ndarray: ...          # (V, 3) Dtype
    @property
    def faces(self) -> np.ndarray: ...             # (F, 3) int64
    @property
    def bounds(self) -> np.ndarray: ...            # (2, 3) Dtype: min, max
    @property
    def diagnostics(self) -> Dict[str, Any]: ...  # prox info's fields (see the docstring)
    @property
    def is_closed(self) -> bool: ...
    @property
    def is_manifold(self) -> bool: ...
    @property
    def is_oriented(self) -> bool: ...
    @property
    def is_outward(self) -> bool: ...
    @property
    def components(self) -> int: ...
    @property
    def area(self) -> float: ...
    @property
    def volume(self) -> float: ...               # signed: > 0 closed and outward
    @property
    def verdict(self) -> str: ...
    # "auto" -> "pseudonormal" | "parity" | "winding" | "none" (no inside)
    def sign_method(self, method: str = ..., *, parity_rays: int = ...) -> str: ...
    # -> (the reoriented Mesh, {"flipped": int, "conflicts": int})
    def reorient(self, *, threads: Optional[int] = ...) -> Tuple["Mesh", Dict[str, int]]: ...
    # points (..., 3) -> points (..., 3), distance (...), primitive_ids (...) int64,
    # primitive_uvs (..., 2), barycentrics (..., 3), feature (...) int8.
    # device "cpu" | "gpu" (float32 through prox::gpu: the float32 mesh's answers)
    def compute_closest_points(self, points: npt.ArrayLike, *, max_distance: float = ...,
                               threads: Optional[int] = ...,
                               device: str = ...) -> Dict[str, np.ndarray]: ...
    def compute_distance(self, points: npt.ArrayLike, *,
                         threads: Optional[int] = ...) -> np.ndarray: ...   # (...)
    # method "auto" | "winding" | "pseudonormal" | "parity" -> method (str: what auto chose),
    # signed_distance (...) negative inside, winding_number (...), confidence (...) int8
    # (CONFIDENCE, -1 a miss), sign_method (...) int8 (SIGN_METHODS, -1 a miss),
    # inside_votes (...) uint8, votes (...) uint8, points (..., 3), primitive_ids (...) int64
    def compute_signed_distance(self, points: npt.ArrayLike, *, method: str = ...,
                                parity_rays: int = ..., threads: Optional[int] = ...,
                                device: str = ...) -> Dict[str, Any]: ...
    def compute_winding_number(self, points: npt.ArrayLike, *, exact: bool = ...,
                               threads: Optional[int] = ...) -> np.ndarray: ...  # (...)
    # (...) int8: OUTSIDE 0, INSIDE 1 (on the surface too), UNSURE 2
    def contains(self, points: npt.ArrayLike, *, method: str = ..., parity_rays: int = ...,
                 threads: Optional[int] = ...) -> np.ndarray: ...
    # -> values (nx, ny, nz) Fortran order (node (i, j, k) at origin + (i, j, k) * spacing),
    # origin (3,) float64, spacing (3,) float64, method str, unsure int, sign_evaluations int;
    # z_planes=(k0, k1): only those z-planes, values (nx, ny, k1 - k0) (the whole grid's bits)
    def sdf_grid(self, *, res: Union[int, Tuple[int, int, int], None] = ...,
                 dx: Optional[float] = ..., padding: float = ..., band: float = ...,
                 method: str = ..., parity_rays: int = ..., float32: bool = ...,
                 z_planes: Optional[Tuple[int, int]] = ...,
                 threads: Optional[int] = ...) -> Dict[str, Any]: ...
    # symmetric: lower, upper, tolerance, diagonal, converged, forward / backward (dicts:
    # lower, upper, worst_point (3,), worst_closest (3,), worst_triangle,
    # worst_closest_triangle, converged, subtriangles, searches, point_queries, rounds);
    # one-sided: that side's dict plus tolerance, diagonal. float64 throughout.
    def hausdorff(self, other: "Mesh", *, tolerance: Optional[float] = ...,
                  relative: Optional[float] = ..., symmetric: bool = ...,
                  max_subtriangles: Optional[int] = ...,
                  threads: Optional[int] = ...) -> Dict[str, Any]: ...
    # -> points (n, 3) Dtype, primitive_ids (n,) int64, barycentrics (n, 3) Dtype
    def sample(self, n: int, *, seed: int = ..., method: str = ...,
               threads: Optional[int] = ...) -> Dict[str, np.ndarray]: ...
    # -> chamfer_l2, chamfer_l1, samples, diagonal, forward / backward (dicts: mean, rms,
    # mean_sq, max, argmax, distances (samples,) float64 with return_distances)
    def chamfer(self, other: "Mesh", *, samples: int = ..., seed: int = ..., method: str = ...,
                return_distances: bool = ...,
                threads: Optional[int] = ...) -> Dict[str, Any]: ...
    # rays (..., 6) or origins, directions (..., 3) -> t_hit (...) (inf: miss),
    # primitive_ids (...) int64, primitive_uvs (..., 2), front_face (...) bool,
    # primitive_normals (..., 3) (only with normals=True, the default)
    def cast_rays(self, rays: npt.ArrayLike, directions: Optional[npt.ArrayLike] = ..., *,
                  t_min: float = ..., t_max: float = ..., normals: bool = ...,
                  threads: Optional[int] = ...,
                  device: str = ...) -> Dict[str, np.ndarray]: ...
    def test_occlusions(self, rays: npt.ArrayLike, directions: Optional[npt.ArrayLike] = ...,
                        *, t_min: float = ..., t_max: float = ...,
                        threads: Optional[int] = ...,
                        device: str = ...) -> np.ndarray: ...  # (...) bool
    def count_intersections(self, rays: npt.ArrayLike,
                            directions: Optional[npt.ArrayLike] = ..., *, t_min: float = ...,
                            t_max: float = ...,
                            threads: Optional[int] = ...,
                            device: str = ...) -> np.ndarray: ...  # (...) int32
    # -> ray_splits (R+1,), ray_ids (H,), t_hit (H,), primitive_ids (H,), primitive_uvs (H, 2),
    # front_face (H,)
    def list_intersections(self, rays: npt.ArrayLike,
                           directions: Optional[npt.ArrayLike] = ..., *, t_min: float = ...,
                           t_max: float = ...,
                           threads: Optional[int] = ...) -> Dict[str, np.ndarray]: ...
    def sphere_overlap(self, centers: npt.ArrayLike, radii: npt.ArrayLike, *,
                       threads: Optional[int] = ...) -> np.ndarray: ...  # (...) bool
    # -> splits (S+1,) int64, primitive_ids (T,) int64
    def sphere_triangles(self, centers: npt.ArrayLike, radii: npt.ArrayLike, *,
                         threads: Optional[int] = ...) -> Dict[str, np.ndarray]: ...

def load(path: Union[str, os.PathLike], *, dtype: Any = ...,
         drop_non_finite: bool = ...) -> Mesh: ...

class _Shape2D:
    # points (..., 2) -> points (..., 2), distance (...), edge (...) int64, t (...)
    def closest(self, points: npt.ArrayLike, *, part: str = ...,
                threads: Optional[int] = ...) -> Dict[str, np.ndarray]: ...
    def distance(self, points: npt.ArrayLike, *, part: str = ...,
                 threads: Optional[int] = ...) -> np.ndarray: ...
    def contains(self, points: npt.ArrayLike, *,
                 threads: Optional[int] = ...) -> np.ndarray: ...  # (...) bool

class _ClosedShape2D(_Shape2D):
    def signed_distance(self, points: npt.ArrayLike, *,
                        threads: Optional[int] = ...) -> np.ndarray: ...

class Segment(_Shape2D):
    def __init__(self, a: npt.ArrayLike, b: npt.ArrayLike) -> None: ...
class Circle(_ClosedShape2D):
    def __init__(self, center: npt.ArrayLike, radius: float) -> None: ...
class Box(_ClosedShape2D):
    def __init__(self, lo: npt.ArrayLike, hi: npt.ArrayLike) -> None: ...
class OrientedBox(_ClosedShape2D):
    def __init__(self, center: npt.ArrayLike, half_size: npt.ArrayLike,
                 angle: float = ...) -> None: ...
class Capsule(_ClosedShape2D):
    def __init__(self, a: npt.ArrayLike, b: npt.ArrayLike, radius: float) -> None: ...
class ConvexPolygon(_ClosedShape2D):
    def __init__(self, points: npt.ArrayLike) -> None: ...
class Polygon(_ClosedShape2D):
    def __init__(self, points: npt.ArrayLike) -> None: ...
class Polyline(_Shape2D):
    def __init__(self, points: npt.ArrayLike) -> None: ...
