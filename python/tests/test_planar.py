"""prox's 2D shapes: closest (boundary / solid), contains, signed_distance, against
analytic answers."""
import numpy as np
import pytest

import prox

rng = np.random.default_rng(5)
P = rng.uniform(-3, 3, size=(2000, 2))


def test_circle():
    c = prox.Circle([0.5, -0.25], 1.5)
    d = np.linalg.norm(P - [0.5, -0.25], axis=1)
    inside = d <= 1.5
    on = c.closest(P)
    np.testing.assert_allclose(on["distance"], np.abs(d - 1.5), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(on["points"] - [0.5, -0.25], axis=1), 1.5)
    solid = c.closest(P, part="solid")
    np.testing.assert_allclose(solid["distance"], np.maximum(d - 1.5, 0), atol=1e-12)
    np.testing.assert_array_equal(solid["points"][inside], P[inside])
    np.testing.assert_array_equal(c.contains(P), inside)
    np.testing.assert_allclose(c.signed_distance(P), d - 1.5, atol=1e-12)
    assert on["edge"].dtype == np.int64 and np.all(on["edge"] == -1)


def test_box_and_its_twins():
    b = prox.Box([-1, -0.5], [2, 1])
    q = np.clip(P, [-1, -0.5], [2, 1])
    inside = np.all((P >= [-1, -0.5]) & (P <= [2, 1]), axis=1)
    solid = b.closest(P, part="solid")
    np.testing.assert_array_equal(solid["points"], q)
    np.testing.assert_allclose(solid["distance"], np.linalg.norm(P - q, axis=1), atol=1e-12)
    edge = np.min(np.abs(np.column_stack([P[:, 0] + 1, 2 - P[:, 0], P[:, 1] + 0.5, 1 - P[:, 1]])),
                  axis=1)
    on = b.closest(P)
    np.testing.assert_allclose(on["distance"][inside], edge[inside], atol=1e-12)
    np.testing.assert_array_equal(b.contains(P), inside)
    sd = b.signed_distance(P)
    np.testing.assert_allclose(sd[inside], -edge[inside], atol=1e-12)
    # the same square as an oriented box (angle 0), a convex polygon and a polygon
    corners = [[-1, -0.5], [2, -0.5], [2, 1], [-1, 1]]
    for twin in (prox.OrientedBox([0.5, 0.25], [1.5, 0.75], 0.0), prox.ConvexPolygon(corners),
                 prox.Polygon(corners), prox.Polygon(corners[::-1])):
        np.testing.assert_allclose(twin.closest(P, part="solid")["distance"], solid["distance"],
                                   atol=1e-12)
        np.testing.assert_allclose(twin.distance(P), on["distance"], atol=1e-12)
        np.testing.assert_array_equal(twin.contains(P), inside)
        np.testing.assert_allclose(twin.signed_distance(P), sd, atol=1e-12)


def test_oriented_box_turned():
    ob = prox.OrientedBox([0, 0], [1, 0.5], np.pi / 2)  # now 1 wide in x, 2 tall in y
    np.testing.assert_array_equal(ob.contains([[0.45, 0.9], [0.6, 0], [0, 1.1]]),
                                  [True, False, False])


def test_concave_polygon():
    # an L shape: the notch [1,2]x[1,2] is outside
    L = prox.Polygon([[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]])
    np.testing.assert_array_equal(L.contains([[0.5, 0.5], [1.5, 1.5], [0.5, 1.5], [1.5, 0.5]]),
                                  [True, False, True, True])
    r = L.closest([[1.5, 1.5]], part="solid")
    np.testing.assert_allclose(r["distance"], [0.5])
    assert r["edge"][0] in (2, 3)


def test_segment_capsule_polyline():
    s = prox.Segment([0, 0], [2, 0])
    r = s.closest([[1, 1], [3, 0], [-1, -1]])
    np.testing.assert_allclose(r["distance"], [1, 1, np.sqrt(2)])
    np.testing.assert_allclose(r["t"], [0.5, 1, 0])
    np.testing.assert_array_equal(s.closest([[1, 1]], part="solid")["points"], [[1, 0]])
    cap = prox.Capsule([0, 0], [2, 0], 0.5)
    np.testing.assert_allclose(cap.signed_distance([[1, 1], [3, 0], [1, 0]]), [0.5, 0.5, -0.5])
    np.testing.assert_array_equal(cap.contains([[1, 0.4], [1, 0.6]]), [True, False])
    line = prox.Polyline([[0, 0], [1, 0], [1, 1]])
    r = line.closest([[2, 0.5], [0.5, 0.5]])
    np.testing.assert_allclose(r["distance"], [1, 0.5])
    np.testing.assert_array_equal(r["edge"], [1, 0])
    assert not hasattr(line, "signed_distance") and not hasattr(s, "signed_distance")


def test_leading_dimensions_and_nan():
    c = prox.Circle([0, 0], 1)
    grid = np.stack(np.meshgrid(np.linspace(-2, 2, 5), np.linspace(-2, 2, 4)), axis=-1)
    r = c.closest(grid)
    assert r["points"].shape == (4, 5, 2) and r["distance"].shape == (4, 5)
    assert c.contains(grid).shape == (4, 5) and c.signed_distance(grid).shape == (4, 5)
    assert c.contains([0.0, 0.0]).shape == ()
    r = c.closest([[np.nan, 0], [0.5, 0]])
    assert np.isnan(r["distance"][0]) and r["distance"][1] == 0.5
    assert not c.contains([[np.nan, 0]])[0] and np.isnan(c.signed_distance([[np.inf, 0]])[0])
    g32 = grid.astype(np.float32)  # converted to float64: the same answers as its float64 copy
    np.testing.assert_array_equal(c.closest(g32)["distance"],
                                  c.closest(g32.astype(np.float64))["distance"])


@pytest.mark.parametrize("make,message", [
    (lambda: prox.Circle([0, 0], -1), "radius"),
    (lambda: prox.Box([1, 0], [0, 1]), ""),
    (lambda: prox.ConvexPolygon([[0, 0], [2, 0], [1, 0.2], [2, 2], [0, 2]]), "convex"),
    (lambda: prox.Polygon([[0, 0], [1, 1], [1, 0], [0, 1]]), ""),
    (lambda: prox.Polygon(np.zeros((0, 2))), ""),
    (lambda: prox.Circle([0, np.nan], 1), ""),
    (lambda: prox.Segment([0, 0, 0], [1, 1]), r"a must be a 2D point"),
    (lambda: prox.Polygon([[0, 0, 0]]), r"shape \(K, 2\)"),
])
def test_invalid_shapes(make, message):
    with pytest.raises(ValueError, match=message or None):
        make()


def test_bad_queries():
    c = prox.Circle([0, 0], 1)
    with pytest.raises(ValueError, match=r"points must have shape \(\.\.\., 2\)"):
        c.closest(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="part must be"):
        c.closest(np.zeros((3, 2)), part="inside")
    with pytest.raises(ValueError, match="threads"):
        c.contains(np.zeros((3, 2)), threads=-2)
