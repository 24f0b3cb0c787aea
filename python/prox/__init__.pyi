# Type stubs of the prox package (python/prox/__init__.py holds the docstrings).
# Shapes: "..." is any leading shape, kept in every result; Dtype is the mesh's
# float32 or float64; ids are int64 with -1 for a miss.
import os
from typing import Any, Callable, Dict, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
FEATURES: Tuple[str, ...]
SIGN_METHODS: Dict[str, Callable[["Mesh", np.ndarray, int], Dict[str, np.ndarray]]]

def isa() -> str: ...

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
    def diagnostics(self) -> Dict[str, Any]: ...
    # points (..., 3) -> points (..., 3), distance (...), primitive_ids (...) int64,
    # primitive_uvs (..., 2), barycentrics (..., 3), feature (...) int8
    def compute_closest_points(self, points: npt.ArrayLike, *, max_distance: float = ...,
                               threads: Optional[int] = ...) -> Dict[str, np.ndarray]: ...
    def compute_distance(self, points: npt.ArrayLike, *,
                         threads: Optional[int] = ...) -> np.ndarray: ...   # (...)
    # -> signed_distance (...) negative inside, winding_number (...), confidence (...) in [0, 1]
    def compute_signed_distance(self, points: npt.ArrayLike, *, method: str = ...,
                                threads: Optional[int] = ...) -> Dict[str, np.ndarray]: ...
    def compute_winding_number(self, points: npt.ArrayLike, *, exact: bool = ...,
                               threads: Optional[int] = ...) -> np.ndarray: ...  # (...)
    def contains(self, points: npt.ArrayLike, *, threshold: float = ...,
                 threads: Optional[int] = ...) -> np.ndarray: ...  # (...) bool
    # rays (..., 6) or origins, directions (..., 3) -> t_hit (...) (inf: miss),
    # primitive_ids (...) int64, primitive_uvs (..., 2), front_face (...) bool,
    # primitive_normals (..., 3)
    def cast_rays(self, rays: npt.ArrayLike, directions: Optional[npt.ArrayLike] = ..., *,
                  t_min: float = ..., t_max: float = ...,
                  threads: Optional[int] = ...) -> Dict[str, np.ndarray]: ...
    def test_occlusions(self, rays: npt.ArrayLike, directions: Optional[npt.ArrayLike] = ...,
                        *, t_min: float = ..., t_max: float = ...,
                        threads: Optional[int] = ...) -> np.ndarray: ...  # (...) bool
    def count_intersections(self, rays: npt.ArrayLike,
                            directions: Optional[npt.ArrayLike] = ..., *, t_min: float = ...,
                            t_max: float = ...,
                            threads: Optional[int] = ...) -> np.ndarray: ...  # (...) int32
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
