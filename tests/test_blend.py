"""Pose blending against scipy's rotations and plain NumPy; the additive
identities; ozz's N-way blend rules; every bad-input branch."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from animcore import Transforms
from animcore.blend import apply_additive, blend_many, blend_poses, make_additive


def random_pose(rng, *shape):
    q = rng.normal(size=shape + (4,))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    return Transforms(rng.normal(size=shape + (3,)), q, rng.uniform(0.5, 2.0, shape + (3,)))


def same_rotation(a, b, tol):
    """q and -q are one rotation."""
    d = np.abs(np.einsum("...i,...i->...", a, b))
    assert np.all(np.abs(d - 1.0) < tol), np.abs(d - 1.0).max()


def scipy_slerp(a, b, t):
    """a (a^-1 b)^t through scipy's rotation vectors (angle <= pi: the short arc)."""
    ra, rb = Rotation.from_quat(a.reshape(-1, 4)), Rotation.from_quat(b.reshape(-1, 4))
    rel = (ra.inv() * rb).as_rotvec() * np.reshape(t, (-1, 1))
    return (ra * Rotation.from_rotvec(rel)).as_quat().reshape(a.shape)


def test_blend_poses_against_scipy_and_numpy():
    rng = np.random.default_rng(1)
    a, b = random_pose(rng, 20, 6), random_pose(rng, 20, 6)
    w = rng.uniform(0, 1, (20, 1))
    mask = rng.uniform(0, 1, 6)
    got = blend_poses(a, b, w, mask=mask)
    ww = (w * mask)[..., None]
    np.testing.assert_allclose(got.translation, (1 - ww) * a.translation + ww * b.translation,
                               atol=1e-14)
    np.testing.assert_allclose(got.scale, (1 - ww) * a.scale + ww * b.scale, atol=1e-14)
    same_rotation(got.rotation, scipy_slerp(a.rotation, b.rotation, w * mask), 1e-12)


def test_blend_poses_broadcasts_a_rest_pose_and_scalar_weight():
    rng = np.random.default_rng(2)
    a, b = random_pose(rng, 4, 3), random_pose(rng, 3)
    got = blend_poses(a, b, 0.25)
    assert got.rotation.shape == (4, 3, 4)
    np.testing.assert_allclose(got.translation, 0.75 * a.translation + 0.25 * b.translation,
                               atol=1e-14)
    rest = np.broadcast_to(b.rotation, a.rotation.shape)
    same_rotation(got.rotation, scipy_slerp(a.rotation, rest, np.full((4, 3), 0.25)), 1e-12)


def test_weight_zero_and_zero_mask_give_a_bit_for_bit():
    rng = np.random.default_rng(3)
    a, b = random_pose(rng, 5, 4), random_pose(rng, 5, 4)
    for got in (blend_poses(a, b, 0.0), blend_poses(a, b, 0.9, mask=np.zeros(4))):
        for x, y in zip(got, a):
            assert np.array_equal(x, y)
    got = blend_poses(a, b, 0.5, mask=[1, 0, 1, 0])
    assert np.array_equal(got.rotation[:, 1], a.rotation[:, 1])


def test_additive_round_trip_to_1e12():
    rng = np.random.default_rng(4)
    pose, ref = random_pose(rng, 30, 8), random_pose(rng, 8)
    for convention in ("local", "threejs", "blender_combine"):
        delta = make_additive(pose, ref, convention=convention)
        back = apply_additive(ref, delta, 1.0, convention=convention)
        for x, y in zip(back, pose):
            np.testing.assert_allclose(x, y, atol=1e-12, rtol=0)


def test_additive_formulas_against_scipy():
    rng = np.random.default_rng(5)
    pose, ref, base = random_pose(rng, 10, 3), random_pose(rng, 3), random_pose(rng, 10, 3)
    delta = make_additive(pose, ref)
    np.testing.assert_allclose(delta.translation, pose.translation - ref.translation)
    np.testing.assert_allclose(delta.scale, pose.scale / ref.scale)
    expected = Rotation.from_quat(ref.rotation[None].repeat(10, 0).reshape(-1, 4)).inv() * \
        Rotation.from_quat(pose.rotation.reshape(-1, 4))
    same_rotation(delta.rotation, expected.as_quat().reshape(10, 3, 4), 1e-12)
    for w in (0.3, 1.7, -0.5):  # outside [0, 1] continues the formulas
        got = apply_additive(base, delta, w)
        np.testing.assert_allclose(got.translation, base.translation + w * delta.translation,
                                   atol=1e-13)
        np.testing.assert_allclose(got.scale, base.scale * delta.scale ** w, rtol=1e-13)
        ident = np.tile([0, 0, 0, 1.0], (10, 3, 1))
        step = scipy_slerp(ident, delta.rotation, np.full((10, 3), w))
        expected = Rotation.from_quat(base.rotation.reshape(-1, 4)) * \
            Rotation.from_quat(step.reshape(-1, 4))
        same_rotation(got.rotation, expected.as_quat().reshape(10, 3, 4), 1e-11)
    three = apply_additive(base, make_additive(pose, ref, convention="three.js"), 0.5,
                           convention="threejs")
    np.testing.assert_allclose(three.scale, base.scale + 0.5 * (pose.scale - ref.scale),
                               atol=1e-14)


def test_additive_weight_zero_and_mask_zero_give_base():
    rng = np.random.default_rng(6)
    base, delta = random_pose(rng, 7, 5), random_pose(rng, 7, 5)
    for convention in ("local", "blender_combine"):
        for got in (apply_additive(base, delta, 0.0, convention=convention),
                    apply_additive(base, delta, 3.0, mask=np.zeros(5), convention=convention)):
            for x, y in zip(got, base):
                assert np.array_equal(x, y)


def test_reference_frame_conventions():
    rng = np.random.default_rng(7)
    clip = random_pose(rng, 6, 2)
    first = make_additive(clip)  # ozz: the first frame
    np.testing.assert_allclose(first.translation[0], 0.0)
    third = make_additive(clip, 2)  # three.js referenceFrame
    np.testing.assert_allclose(third.translation[2], 0.0)
    np.testing.assert_allclose(third.rotation[2], [[0, 0, 0, 1]] * 2, atol=1e-15)


def test_blender_power_takes_the_long_way():
    # a delta with w < 0 is a turn of more than pi: Blender's power halves
    # that angle, the slerp the short one
    angle = 1.5 * np.pi
    d = np.array([0, 0, np.sin(angle / 2), np.cos(angle / 2)])
    half = np.array([0, 0, np.sin(angle / 4), np.cos(angle / 4)])
    ident = Transforms(np.zeros((1, 3)), np.array([[0, 0, 0, 1.0]]), np.ones((1, 3)))
    delta = Transforms(np.zeros((1, 3)), d[None], np.ones((1, 3)))
    blender = apply_additive(ident, delta, 0.5, convention="blender_combine").rotation[0]
    local = apply_additive(ident, delta, 0.5).rotation[0]
    np.testing.assert_allclose(blender, half, atol=1e-15)
    same_rotation(local, np.array([0, 0, -np.sin(np.pi / 8), np.cos(np.pi / 8)]), 1e-14)


def test_blender_combine_power_against_numpy():
    # q * d^w with d^w about d's own half-angle acos(d_w) (both hemispheres),
    # any finite weight
    rng = np.random.default_rng(12)
    base, delta = random_pose(rng, 40, 3), random_pose(rng, 40, 3)
    w = rng.uniform(-1.5, 2.5, (40, 3))
    got = apply_additive(base, delta, w, convention="blender_combine").rotation
    d = delta.rotation
    half = np.arccos(np.clip(d[..., 3], -1, 1)) * w
    axis = d[..., :3] / np.linalg.norm(d[..., :3], axis=-1, keepdims=True)
    power = np.concatenate([axis * np.sin(half)[..., None], np.cos(half)[..., None]], -1)
    expected = Rotation.from_quat(base.rotation.reshape(-1, 4)) * \
        Rotation.from_quat(power.reshape(-1, 4))
    same_rotation(got, expected.as_quat().reshape(40, 3, 4), 1e-12)
    assert (d[..., 3] < 0).any()


def numpy_ozz_blend(poses, weights, rest, threshold):
    """ozz BlendingJob, one joint at a time in plain Python."""
    out = []
    for j in range(poses[0].translation.shape[0]):
        t, s, q, total = np.zeros(3), np.zeros(3), np.zeros(4), 0.0
        layers = [(w[j] if np.ndim(w) else w, p) for w, p in zip(weights, poses)]
        layers = [(w, p) for w, p in layers if w > 0]
        if threshold - sum(w for w, _ in layers) > 0 and rest is not None:
            layers.append((threshold - sum(w for w, _ in layers), rest))
        for w, p in layers:
            r = p.rotation[j] if q @ p.rotation[j] >= 0 else -p.rotation[j]
            t, s, q, total = t + w * p.translation[j], s + w * p.scale[j], q + w * r, total + w
        out.append((t / total, q / np.linalg.norm(q), s / total))
    return [np.array(x) for x in zip(*out)]


def test_blend_many_matches_ozz_rules():
    rng = np.random.default_rng(8)
    poses = [random_pose(rng, 4) for _ in range(3)]
    rest = random_pose(rng, 4)
    for weights in ([0.5, 0.2, 0.3], [0.02, -1.0, 0.05], [0.0, 0.0, 0.0],
                    np.array([[0.5, 0, 0.01, 1], [0.1, 0, 0.02, 0], [0, 0, 0, 2]])):
        got = blend_many(poses, weights, rest=rest, threshold=0.1)
        ref = numpy_ozz_blend(poses, list(weights), rest, 0.1)
        for x, y in zip(got, ref):
            np.testing.assert_allclose(x, y, atol=1e-13)


def test_blend_many_near_the_double_range_with_a_rest_pose():
    # the sums overflow, so the scaled form gives the means; the rest pose's fill
    # (one weight per joint) and the poses' weights (one per pose) have other shapes
    rng = np.random.default_rng(15)
    rest = random_pose(rng, 2)
    poses = [random_pose(rng, 2) for _ in range(2)]
    for p in poses:
        p.translation[:] = 1e308
    got = blend_many(poses, [2.0, 3.0], rest=rest, threshold=10.0)
    # joint by joint: 1e308 at weights 2 and 3, the rest at 5 (of 10)
    expected = (0.5 * rest.translation.astype(object) + 0.5 * 1e308).astype(float)
    np.testing.assert_allclose(got.translation, expected, rtol=1e-15)
    np.testing.assert_allclose(got.translation, numpy_ozz_blend(
        [p._replace(translation=p.translation / 1e308) for p in poses], [2.0, 3.0],
        rest._replace(translation=rest.translation / 1e308), 10.0)[0] * 1e308, rtol=1e-13)


# ------------------------------------------------------------------ errors

def test_mismatched_joints():
    rng = np.random.default_rng(9)
    with pytest.raises(ValueError, match=r"blend_poses: b has 3 joints and a has 4"):
        blend_poses(random_pose(rng, 4), random_pose(rng, 3), 0.5)
    with pytest.raises(ValueError, match=r"blend_poses: mask has shape \(3,\) .*\(4,\)"):
        blend_poses(random_pose(rng, 4), random_pose(rng, 4), 0.5, mask=np.ones(3))
    bad = Transforms(np.zeros((4, 3)), np.tile([0, 0, 0, 1.0], (3, 1)), np.ones((4, 3)))
    with pytest.raises(ValueError, match=r"make_additive: pose's translation, rotation"):
        make_additive(bad, random_pose(rng, 4))
    with pytest.raises(ValueError, match=r"apply_additive: base.rotation has shape"):
        apply_additive(Transforms(np.zeros((4, 3)), np.zeros((4, 3)), np.ones((4, 3))),
                       random_pose(rng, 4))
    with pytest.raises(ValueError, match=r"blend_many: rest has 2 joints"):
        blend_many([random_pose(rng, 4)], [1.0], rest=random_pose(rng, 2))


def test_weights_outside_unit_interval_are_refused_by_blend_poses():
    rng = np.random.default_rng(10)
    a, b = random_pose(rng, 3, 2), random_pose(rng, 3, 2)
    out = Transforms(np.full((3, 2, 3), 7.0), np.full((3, 2, 4), 7.0), np.full((3, 2, 3), 7.0))
    with pytest.raises(ValueError, match=r"blend_poses: weight at index \(1, 0\) is 1.5 "
                                         r"\(must lie in \[0, 1\]\)"):
        blend_poses(a, b, [[0.5], [1.5], [0.2]], out=out)
    assert np.all(out.translation == 7.0)  # nothing half-written
    with pytest.raises(ValueError, match=r"blend_poses: mask at index \(0, 1\) is -0.5"):
        blend_poses(a, b, 0.5, mask=[1.0, -0.5])
    with pytest.raises(ValueError, match=r"apply_additive: mask at index \(0, 1\) is 2"):
        apply_additive(a, b, 0.5, mask=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"apply_additive: weight at index \(0, 0\) is nan"):
        apply_additive(a, b, np.nan)


def test_non_unit_rotation():
    rng = np.random.default_rng(11)
    a, b = random_pose(rng, 3, 2), random_pose(rng, 3, 2)
    b.rotation[2, 1] *= 1.01
    with pytest.raises(ValueError, match=r"blend_poses: b.rotation at index \(2, 1\) is "
                                         r"1.00999.* unit quaternion"):
        blend_poses(a, b, 0.5)
    with pytest.raises(ValueError, match=r"make_additive: reference.rotation at index \(2, 1\)"):
        make_additive(a, b)
    with pytest.raises(ValueError, match=r"apply_additive: delta.rotation at index \(2, 1\)"):
        apply_additive(a, b)


def test_bad_scales_and_non_finite():
    rng = np.random.default_rng(12)
    a, b = random_pose(rng, 2), random_pose(rng, 2)
    b.scale[1, 2] = 0.0
    with pytest.raises(ValueError, match=r"make_additive: reference.scale at index \(1,\) is 0"):
        make_additive(a, b)
    b.scale[1, 2] = -2.0
    with pytest.raises(ValueError, match=r"apply_additive: delta.scale at index \(1,\) is -2"):
        apply_additive(a, b, 0.5)
    whole = apply_additive(a, b, 1.0)  # a mirror applies whole
    np.testing.assert_allclose(whole.scale, a.scale * b.scale, rtol=1e-15)
    np.testing.assert_allclose(whole.translation, a.translation + b.translation, atol=1e-15)
    a.translation[0, 0] = np.inf
    with pytest.raises(ValueError, match=r"blend_poses: a.translation at index \(0,\) is inf"):
        blend_poses(a, b, 0.5)
    big = Transforms(np.full((1, 3), 1e308), np.array([[0, 0, 0, 1.0]]), np.ones((1, 3)))
    with pytest.raises(OverflowError, match=r"apply_additive: weight"):
        apply_additive(big, big, 1.0)


def test_unknown_convention_suggests():
    rng = np.random.default_rng(13)
    a = random_pose(rng, 2)
    with pytest.raises(ValueError, match=r"make_additive: convention is 'threjs' .*did you "
                                         r"mean 'threejs'"):
        make_additive(a, a, convention="threjs")
    with pytest.raises(ValueError, match=r"apply_additive: convention is 'lokal'"):
        apply_additive(a, a, convention="lokal")


def test_blend_many_bad_input():
    rng = np.random.default_rng(14)
    p = random_pose(rng, 3)
    with pytest.raises(ValueError, match=r"blend_many: poses is empty"):
        blend_many([], [])
    with pytest.raises(ValueError, match=r"blend_many: weights has shape \(3,\)"):
        blend_many([p, p], [1, 2, 3])
    with pytest.raises(ValueError, match=r"blend_many: weights at index \(1,\) is nan"):
        blend_many([p, p], [1, np.nan])
    with pytest.raises(ValueError, match=r"blend_many: threshold is -1"):
        blend_many([p], [1.0], threshold=-1)
    with pytest.raises(ValueError, match=r"blend_many: weights at index \(0,\) sum to 0"):
        blend_many([p], [0.0])
    with pytest.raises(ValueError, match=r"make_additive: reference is frame 5"):
        make_additive(random_pose(rng, 2, 3), 5)
    # frame k of a pose whose properties broadcast: one rotation and scale for
    # every frame (the joint axis was indexed once), or a leading axis of 1
    moving = random_pose(rng, 5, 3)
    for rotation in (moving.rotation[0], moving.rotation[:1]):
        pose = Transforms(moving.translation, rotation, moving.scale[0])
        whole = Transforms(moving.translation, np.broadcast_to(rotation, (5, 3, 4)),
                           np.broadcast_to(moving.scale[0], (5, 3, 3)))
        for a, b in zip(make_additive(pose, 2), make_additive(whole, 2)):
            np.testing.assert_array_equal(a, b)
    # a pose's values are summed in NumPy: checked there, even at weight 0
    bad = Transforms(p.translation.copy(), p.rotation.copy(), p.scale)
    bad.translation[1, 2] = np.nan
    for weights in ([0.5, 0.5], [1.0, 0.0]):
        with pytest.raises(ValueError, match=r"blend_many: poses\[1\]\.translation at index "
                                             r"\(1, 2\) is nan \(must be finite\)"):
            blend_many([p, bad], weights)
    bad.translation[1, 2] = 0.0
    bad.rotation[2] = 0.0
    with pytest.raises(ValueError, match=r"blend_many: poses\[1\]\.rotation at index \(2,\) "
                                         r"is \(0, 0, 0, 0\)"):
        blend_many([p, bad], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"blend_many: threshold must be"):
        blend_many([p, p], [1, 1], threshold="a")
    with pytest.raises(ValueError, match=r"blend_many: weights must be real numbers"):
        blend_many([p, p], ["x", "y"])
    with pytest.raises(ValueError, match=r"^blend_many: cannot broadcast .*poses\[0\]\."
                                         r"translation \(3,\).* weights\[0\] \(4,\) together$"):
        blend_many([p, p], np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"blend_poses: a\.translation must be real numbers, "
                                         r"got an array of dtype complex128"):
        blend_poses(Transforms(p.translation + 5j, p.rotation, p.scale), p, 0.5)
    with pytest.raises(ValueError, match=r"blend_poses: mask must be real numbers"):
        blend_poses(p, p, 0.5, mask=["a", "b", "c"])


# ------------------------------------------------------------------ blend spaces

from animcore.blend import BlendSpace, delaunay  # noqa: E402


@pytest.mark.parametrize("nx, ny", [(3, 3), (4, 4), (5, 5), (3, 5), (2, 6), (6, 6)])
def test_delaunay_of_a_grid_tiles_it_once(nx, ny):
    # every cell's four corners lie on one circle: two triangles per cell, no overlap
    grid = np.array([[x, y] for y in range(ny) for x in range(nx)], dtype=np.float64)
    for points in (grid, grid * [1.5, 0.3] + [2.0, -1.0]):
        corners = points[delaunay(points)]
        u, v = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
        area = 0.5 * (u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0])
        cell = abs(np.linalg.det([points[1] - points[0], points[nx] - points[0]]))
        assert len(area) == 2 * (nx - 1) * (ny - 1) and (area > 0).all()
        assert area.sum() == pytest.approx((nx - 1) * (ny - 1) * cell, rel=1e-12)


def test_delaunay_matches_scipy():
    from scipy.spatial import Delaunay

    rng = np.random.default_rng(20)
    for n in (3, 5, 12, 20):
        p = rng.uniform(-3, 3, (n, 2))
        ours = sorted(tuple(sorted(t)) for t in delaunay(p))
        theirs = sorted(tuple(sorted(t)) for t in Delaunay(p).simplices)
        assert ours == theirs


def test_cocircular_points_give_one_triangulation():
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1.0]])
    tri = delaunay(square)
    assert len(tri) == 2  # not four overlapping triangles
    space = BlendSpace(square, list("abcd"))
    grid = np.stack(np.meshgrid(np.linspace(0, 1, 9), np.linspace(0, 1, 9)), -1).reshape(-1, 2)
    w = space.weights(grid)
    np.testing.assert_allclose(w @ square, grid, atol=1e-12)  # barycentric reproduces p


def test_barycentric_weights_against_scipy():
    from scipy.spatial import Delaunay

    rng = np.random.default_rng(21)
    p = rng.uniform(-1, 1, (10, 2))
    space = BlendSpace(p, list(range(10)))
    d = Delaunay(p)
    q = rng.uniform(-0.3, 0.3, (50, 2))
    s = d.find_simplex(q)
    inside = s >= 0
    b = np.einsum("qij,qj->qi", d.transform[s[inside], :2], q[inside] - d.transform[s[inside], 2])
    bary = np.column_stack([b, 1 - b.sum(1)])
    expected = np.zeros((inside.sum(), 10))
    for row, (simplex, lam) in enumerate(zip(d.simplices[s[inside]], bary)):
        expected[row, simplex] = lam
    np.testing.assert_allclose(space.weights(q[inside]), expected, atol=1e-12)


def exact_blend_weights(points, x, simplices):
    """The docstring's barycentric weights in exact rational arithmetic: in
    the triangle of ``simplices`` that holds x, else at the nearest point of
    the hull's boundary (the nearest point of any segment between two points)."""
    from fractions import Fraction

    p = [(Fraction(a), Fraction(b)) for a, b in points]
    x = (Fraction(x[0]), Fraction(x[1]))
    w = np.zeros(len(p))

    def cross(u, v):
        return u[0] * v[1] - u[1] * v[0]

    def sub(u, v):
        return (u[0] - v[0], u[1] - v[1])

    for i, j, k in simplices:
        det = cross(sub(p[j], p[i]), sub(p[k], p[i]))
        l1 = cross(sub(x, p[i]), sub(p[k], p[i])) / det
        l2 = cross(sub(p[j], p[i]), sub(x, p[i])) / det
        if min(l1, l2, 1 - l1 - l2) >= 0:
            w[[i, j, k]] = [float(1 - l1 - l2), float(l1), float(l2)]
            return w
    best = None
    for i in range(len(p)):
        for j in range(i + 1, len(p)):
            d = sub(p[j], p[i])
            u = min(max((sub(x, p[i])[0] * d[0] + sub(x, p[i])[1] * d[1])
                        / (d[0] ** 2 + d[1] ** 2), Fraction(0)), Fraction(1))
            r = sub(x, (p[i][0] + u * d[0], p[i][1] + u * d[1]))
            dist = r[0] ** 2 + r[1] ** 2
            if best is None or dist < best[0]:
                best = (dist, i, j, u)
    _, i, j, u = best
    w[i], w[j] = float(1 - u), float(u)
    return w


BIG = np.finfo(np.float64).max


@pytest.mark.parametrize("scale", [1.0, 2.0**-1030, 2.0**-600, 2.0**600, 2.0**1022])
def test_barycentric_weights_at_any_parameter_against_exact_arithmetic(scale):
    """Inside (scipy's triangle, exact barycentric coordinates) and outside up
    to the double range (the exact nearest point of the hull), for point sets
    from subnormal to the double range: no warning, the exact weights."""
    import warnings

    from scipy.spatial import Delaunay

    rng = np.random.default_rng(40)
    unit = rng.uniform(-1, 1, (12, 2))
    p = unit * scale
    space = BlendSpace(p, list(range(12)))
    simplices = Delaunay(unit).simplices  # general position: the one Delaunay triangulation
    inside = rng.uniform(-0.4, 0.4, (30, 2))
    directions = rng.normal(size=(30, 2))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    near = directions * rng.uniform(1.05, 3.0, (30, 1))
    far = [d * r for d in directions[:8] for r in (1e10, 1e200, 1e300, BIG / 2)]
    q = np.concatenate([inside * scale, near * scale, np.clip(far, -BIG, BIG),
                        [[BIG, -BIG], [-BIG, -BIG], [BIG, 0.5], [0.0, -BIG]]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = space.weights(q)
    expected = np.array([exact_blend_weights(p, x, simplices) for x in q])
    np.testing.assert_allclose(got, expected, atol=1e-9)
    np.testing.assert_allclose(got.sum(1), 1.0, atol=1e-12)


def test_barycentric_weights_where_the_nearest_edge_ties_in_floating_point():
    """Far beyond an edge of a square (or of a thin triangle) the distances to
    the edge and to its corners are one double: the edge is still the nearest."""
    import warnings

    square = BlendSpace([[0, 0], [1, 0], [0, 1], [1, 1]], list("abcd"))
    thin = BlendSpace([[0, 0], [1, 0], [0.5, 1e-12]], list("abc"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(
            square.weights([[1e200, 0.5], [0.25, -1e308], [-BIG, 0.75], [1e308, 1e308],
                            [-1e308, 1e308], [0.5, BIG]]),
            [[0, 0.5, 0, 0.5], [0.75, 0.25, 0, 0], [0.25, 0, 0.75, 0], [0, 0, 0, 1],
             [0, 0, 1, 0], [0, 0, 0.5, 0.5]])
        np.testing.assert_array_equal(
            thin.weights([[0.25, -1e300], [1e300, 1e-13], [0.5, 1e300], [0.25, 1e300]]),
            [[0.75, 0.25, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]])
        np.testing.assert_allclose(thin.weights([0.5, 5e-13]), [0.25, 0.25, 0.5], atol=1e-12)


def gradient_band_reference(points, x):
    """Johansen's gradient band weights, one point at a time in plain Python."""
    h = []
    for i, pi in enumerate(points):
        values = [1.0 - np.dot(x - pi, pj - pi) / np.dot(pj - pi, pj - pi)
                  for j, pj in enumerate(points) if j != i]
        h.append(max(0.0, min(values)))
    h = np.array(h)
    return h / h.sum()


def exact_gradient_band(points, x):
    """Johansen's gradient band weights in exact rational arithmetic."""
    from fractions import Fraction

    p = [[Fraction(c) for c in pi] for pi in points]
    x = [Fraction(c) for c in x]
    h = []
    for i, pi in enumerate(p):
        values = []
        for j, pj in enumerate(p):
            if j != i:
                d = [b - a for a, b in zip(pi, pj)]
                values.append(1 - sum((xc - a) * dc for xc, a, dc in zip(x, pi, d))
                              / sum(dc * dc for dc in d))
        h.append(max(Fraction(0), min(values)))
    return np.array([float(hi / sum(h)) for hi in h])


@pytest.mark.parametrize("scale", [1.0, 2.0**-1030, 2.0**-600, 2.0**600, 2.0**1022])
def test_gradient_band_weights_at_any_scale_against_exact_arithmetic(scale):
    """The points and parameters at any scale, parameters up to the double
    range: no warning, the exact weights (a point far out has all the weight
    where its h overflows)."""
    import warnings

    rng = np.random.default_rng(41)
    p = rng.uniform(-1, 1, (8, 2)) * scale
    space = BlendSpace(p, list(range(8)), method="gradient_band")
    directions = rng.normal(size=(12, 2))
    q = np.concatenate([rng.uniform(-1.5, 1.5, (30, 2)) * scale,
                        np.clip([d * r for d in directions for r in (1e10 * scale, 1e300)],
                                -BIG, BIG), [[BIG, -BIG], [0.0, BIG]]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = space.weights(q)
    expected = np.array([exact_gradient_band(p, x) for x in q])
    np.testing.assert_allclose(got, expected, atol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tiny = BlendSpace([[0, 0], [1e-310, 0], [0, 1e-310]], list("abc"),
                          method="gradient_band")
        np.testing.assert_array_equal(tiny.weights([1.0, 0.5]), [0, 1, 0])
        square = BlendSpace([[0, 0], [1, 0], [0, 1], [1, 1]], list("abcd"),
                            method="gradient_band")
        np.testing.assert_array_equal(square.weights([1e200, 0.5]), [0, 0.5, 0, 0.5])


@pytest.mark.parametrize("method", ["barycentric", "gradient_band"])
def test_parameters_beyond_2_500_move_in_along_their_direction(method):
    """Beyond 2**500 times the points' scale a parameter moves in to 2**500:
    the weights are the same further in and further out along one direction
    (and exact), and a coordinate within the points' range keeps its place
    along the side the parameter faces (a grid's side, a point in its middle)."""
    import warnings

    rng = np.random.default_rng(42)
    grid = np.stack(np.meshgrid([-1.0, 0, 1], [-1.0, 0, 1]), -1).reshape(-1, 2)
    for unit in (rng.uniform(-1, 1, (10, 2)), grid):
        for scale in (1.0, 2.0**-1060, 2.0**100):
            p = unit * scale
            space = BlendSpace(p, list(range(len(p))), method=method)
            directions = rng.normal(size=(30, 2))
            side = np.column_stack([rng.choice([-1.0, 1.0], 30), rng.uniform(-1, 1, 30)])
            for far in (lambda j: directions * 2.0**j, lambda j: side * [2.0**j, 1.0],
                        lambda j: side[:, ::-1] * [1.0, 2.0**j]):
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    got = [space.weights(far(j) * scale) for j in (460, 500, 501, 540, 900)]
                for w in got[1:]:
                    np.testing.assert_allclose(w, got[0], rtol=0, atol=1e-15)
            if method == "gradient_band":
                expected = [exact_gradient_band(p, x) for x in directions[:10] * 2.0**900 * scale]
            elif unit is not grid:  # (exact_blend_weights takes any two points as a side)
                expected = [exact_blend_weights(p, x, space.triangles)
                            for x in directions[:10] * 2.0**900 * scale]
            else:
                continue
            np.testing.assert_allclose(space.weights(directions[:10] * 2.0**900 * scale), expected,
                                       rtol=0, atol=1e-15)
    space = BlendSpace(grid, list(range(9)), method=method)
    np.testing.assert_array_equal(space.weights([[1e300, 0.5], [1e200, 1e-300], [-0.25, BIG]]),
                                  [[0, 0, 0, 0, 0, 0.5, 0, 0, 0.5], [0, 0, 0, 0, 0, 1, 0, 0, 0],
                                   [0, 0, 0, 0, 0, 0, 0.25, 0.75, 0]])


@pytest.mark.parametrize("method", ["barycentric", "gradient_band"])
def test_weights_sum_to_one_are_continuous_and_one_hot_at_points(method):
    rng = np.random.default_rng(22)
    p = rng.uniform(-1, 1, (8, 2))
    space = BlendSpace(p, list(range(8)), method=method)
    line = np.linspace([-2.0, -1.5], [2.0, 1.7], 4001)
    w = space.weights(line)
    np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-12)
    assert (w >= 0).all()
    step = np.abs(np.diff(w, axis=0)).max()
    assert step < 0.05  # no jumps along a fine line
    np.testing.assert_allclose(space.weights(p), np.eye(8), atol=1e-12)
    if method == "gradient_band":
        for x in rng.uniform(-2, 2, (20, 2)):
            np.testing.assert_allclose(space.weights(x), gradient_band_reference(p, x),
                                       atol=1e-12)


def test_one_dimensional_weights_interpolate_and_clamp():
    space = BlendSpace([2.0, 0.0, 5.0], ["b", "a", "c"])
    x = np.array([-1.0, 0.0, 1.0, 2.0, 3.5, 9.0])
    eye = np.eye(3)[[1, 0, 2]]  # the rows in sorted point order
    expected = np.stack([np.interp(x, [0.0, 2.0, 5.0], eye[:, k]) for k in range(3)], -1)
    np.testing.assert_allclose(space.weights(x), expected, atol=1e-15)


def test_blend_space_samples_fox_clips():
    import os

    from animcore.gltf import load_scene

    scene = load_scene(os.path.join(os.path.dirname(__file__), "data", "gltf", "Fox",
                                    "Fox.glb"))
    walk, run = scene.clip("Walk"), scene.clip("Run")
    space = BlendSpace([1.0, 3.0], [walk, run])
    t = np.linspace(0, 0.5, 6)
    mixed = space.sample(1.5, t)
    a, b = walk.sample(t), run.sample(t)
    key = next(k for k in a if k[1] == "translation")
    np.testing.assert_allclose(mixed[key], 0.75 * a[key] + 0.25 * b[key], atol=1e-12)
    rot = next(k for k in a if k[1] == "rotation")
    np.testing.assert_allclose(np.linalg.norm(mixed[rot], axis=-1), 1.0, atol=1e-12)
    pose = space.sample(1.0, t, scene=scene)
    np.testing.assert_allclose(pose.translation, scene.pose(walk, t).translation, atol=1e-12)
    synced = space.sample(2.0, t, scene=scene, sync=True)
    assert synced.rotation.shape == (6, len(scene.nodes), 4)
    # halfway: each clip at t d_i / D with D the mean duration, weights 1/2 each
    total = 0.5 * (walk.duration + run.duration)
    pw, pr = scene.pose(walk, t * walk.duration / total), scene.pose(run, t * run.duration / total)
    np.testing.assert_allclose(synced.translation, 0.5 * (pw.translation + pr.translation),
                               atol=1e-12)
    sign = np.where(np.sum(pw.rotation * pr.rotation, -1, keepdims=True) < 0, -1.0, 1.0)
    q = pw.rotation + sign * pr.rotation
    same_rotation(synced.rotation, q / np.linalg.norm(q, axis=-1, keepdims=True), 1e-12)
    assert "2 clips, 1-D" in repr(space)


def test_blend_space_keeps_its_own_points():
    # it kept the caller's array and handed it out writeable: a change of
    # either changed its weights
    import animcore

    walk = animcore.load(animcore.gltf.sample_path()).clips[0]
    points = np.array([0.0, 1.0, 2.0])
    space = BlendSpace(points, [walk] * 3)
    before = space.weights(0.5)
    points[1] = 10.0
    np.testing.assert_array_equal(space.weights(0.5), before)
    with pytest.raises(ValueError, match="read-only"):
        space.points[1] = 10.0


def test_blend_space_bad_input():
    with pytest.raises(ValueError, match=r"BlendSpace: points has shape \(2, 3\)"):
        BlendSpace(np.zeros((2, 3)), [0, 1])
    with pytest.raises(ValueError, match=r"BlendSpace: points at index \(1, 0\) is nan"):
        BlendSpace([[0, 0], [np.nan, 1], [1, 1]], [0, 1, 2])
    with pytest.raises(ValueError, match=r"BlendSpace: 2 clips for 3 points"):
        BlendSpace([0, 1, 2], [0, 1])
    with pytest.raises(ValueError, match=r"BlendSpace: points at index \(2,\) repeats"):
        BlendSpace([0, 1, 0], [0, 1, 2])
    with pytest.raises(ValueError, match=r"BlendSpace: the points are collinear"):
        BlendSpace([[0, 0], [1, 1], [2, 2]], [0, 1, 2])
    with pytest.raises(ValueError, match=r"BlendSpace: method is 'gradient' .*did you mean "
                                         r"'gradient_band'"):
        BlendSpace([[0, 0], [1, 0], [0, 1]], [0, 1, 2], method="gradient")
    space = BlendSpace([[0, 0], [1, 0], [0, 1]], [0, 1, 2])
    with pytest.raises(ValueError, match=r"BlendSpace.weights: parameters has shape \(3,\)"):
        space.weights([0, 0, 0])
    with pytest.raises(ValueError, match=r"BlendSpace.weights: parameters at index \(1,\) is "
                                         r"inf"):
        space.weights([0, np.inf])


# ------------------------------------------------------------------ array contract

def test_out_is_returned_inputs_untouched_non_contiguous_and_empty():
    rng = np.random.default_rng(30)
    a, b = random_pose(rng, 6, 5), random_pose(rng, 6, 5)
    copies = [x.copy() for x in (*a, *b)]
    out = Transforms(np.empty((6, 5, 3)), np.empty((6, 5, 4)), np.empty((6, 5, 3)))
    got = blend_poses(a, b, 0.3, out=out)
    assert all(g is o for g, o in zip(got, out))
    assert all(np.array_equal(x, y) for x, y in zip((*a, *b), copies))
    # every other frame, read in place by strides
    strided = Transforms(*(x[::2] for x in a))
    np.testing.assert_array_equal(
        blend_poses(strided, Transforms(*(x[::2] for x in b)), 0.3).rotation, got.rotation[::2])
    empty = Transforms(np.zeros((0, 5, 3)), np.zeros((0, 5, 4)), np.zeros((0, 5, 3)))
    assert blend_poses(empty, Transforms(*(x[:0] for x in b)), 0.5).rotation.shape == (0, 5, 4)
    out = Transforms(np.empty((6, 5, 3)), np.empty((6, 5, 4)), np.empty((6, 5, 3)))
    got = apply_additive(a, make_additive(b, a), 0.5, out=out)
    assert all(g is o for g, o in zip(got, out))
    got = apply_additive(a, make_additive(b, a), 0.5, out=out, convention="blender_combine")
    assert all(g is o for g, o in zip(got, out))


def test_float32_and_integer_inputs():
    rng = np.random.default_rng(31)
    a, b = random_pose(rng, 4), random_pose(rng, 4)
    a32 = Transforms(*(x.astype(np.float32) for x in a))
    got = blend_poses(a32, b, 0.0)
    assert got.translation.dtype == np.float64
    np.testing.assert_array_equal(got.translation, a32.translation.astype(np.float64))
    ints = Transforms(np.ones((4, 3), int), np.tile([0, 0, 0, 1], (4, 1)), np.ones((4, 3), int))
    np.testing.assert_allclose(blend_poses(ints, ints, 1.0).translation, 1.0)


# -- long inputs: the vector lanes against the scalar path ------------------------------------

def long_poses(n, rng):
    """n frames of one joint: zeros of both signs, rotations with a component
    below the lanes' range (their blocks take the scalar path), |q|^2 off 1
    by up to 8e-7 (within the tolerance, deltas too), weights of exactly 0
    and 1."""
    a, b = random_pose(rng, n, 1), random_pose(rng, n, 1)
    a.translation[::7, 0, 1], b.translation[::11, 0, 2] = -0.0, 0.0
    for q in (a.rotation, b.rotation):
        q[::97, 0, 0] = 1e-170
        q[::97, 0, 1:] /= np.linalg.norm(q[::97, 0, 1:], axis=-1, keepdims=True)
        q *= 1 + rng.uniform(-2e-7, 2e-7, (n, 1, 1))
    w = rng.uniform(0.0, 1.0, (n, 1))
    w[::9], w[::10] = 0.0, 1.0
    return a, b, w


def item(pose, i):
    return Transforms(*(x[i] for x in pose))


def assert_items(whole, parts):
    """Bit for bit (zeros' signs included)."""
    for k in range(3):
        np.testing.assert_array_equal(whole[k].view(np.int64),
                                      np.stack([p[k] for p in parts]).view(np.int64))


@pytest.mark.parametrize("n", [9, 203, 1030])
def test_long_poses_equal_the_scalar_path_bit_for_bit(n):
    # One item at a time always takes the scalar path: item by item, it is the reference.
    rng = np.random.default_rng(n)
    a, b, w = long_poses(n, rng)
    shared = item(b, 3)  # read with step 0 by every item
    assert_items(blend_poses(a, b, w), [blend_poses(item(a, i), item(b, i), w[i])
                                        for i in range(n)])
    assert_items(blend_poses(a, shared, w, mask=[0.7]),
                 [blend_poses(item(a, i), shared, w[i], mask=[0.7]) for i in range(n)])
    unit_scale = Transforms(a.translation, a.rotation, np.ones_like(a.scale))
    for convention in ("local", "threejs", "blender_combine"):
        assert_items(make_additive(a, shared, convention=convention),
                     [make_additive(item(a, i), shared, convention=convention)
                      for i in range(n)])
        # scale deltas of 1 (the lanes) and others (a power: the scalar path)
        for delta in (make_additive(a, b, convention=convention),
                      make_additive(unit_scale, item(unit_scale, 5), convention=convention)):
            for weight in (w, 3.0 * w - 1.0):  # some outside [0, 1]: the scalar path
                assert_items(apply_additive(b, delta, weight, convention=convention),
                             [apply_additive(item(b, i), item(delta, i), weight[i],
                                             convention=convention) for i in range(n)])


def test_long_poses_name_the_first_bad_item():
    rng = np.random.default_rng(7)
    a, b, w = long_poses(300, rng)
    for k in (0, 13, 150, 299):
        bad = Transforms(b.translation.copy(), b.rotation, b.scale)
        bad.translation[k, 0, 2] = np.inf
        with pytest.raises(ValueError, match=rf"blend_poses: b.translation at index \({k}, 0\)"):
            blend_poses(a, bad, w)
        with pytest.raises(ValueError,
                           match=rf"make_additive: reference.translation at index \({k}, 0\)"):
            make_additive(a, bad)
        with pytest.raises(ValueError,
                           match=rf"apply_additive: delta.translation at index \({k}, 0\)"):
            apply_additive(a, bad, w)


def test_blend_space_arguments_get_the_methods_names():
    import os
    import warnings

    from animcore.gltf import load_scene

    data = os.path.join(os.path.dirname(__file__), "data", "gltf")
    fox = load_scene(os.path.join(data, "Fox", "Fox.glb"))
    skin = load_scene(os.path.join(data, "SimpleSkin", "SimpleSkin.gltf"))
    survey, walk = fox.clip("Survey"), fox.clip("Walk")
    space = BlendSpace([0.0, 1.0], [survey, walk])
    for scene in (None, fox):
        for t, error, text in (("x", ValueError, r"t must be real numbers"),
                               ([[1.0], [1.0, 2.0]], ValueError, r"t is a ragged nested"),
                               (10**400, OverflowError, r"t is an integer of 401 digits"),
                               ([0.5, np.nan], ValueError, r"t at index \(1,\) is nan")):
            with pytest.raises(error, match=rf"^BlendSpace.sample: {text}"):
                space.sample(0.5, t, scene=scene)
        with pytest.raises(ValueError, match=r"^BlendSpace.sample: parameters is nan"):
            space.sample(np.nan, 0.5, scene=scene)
        with pytest.raises(ValueError, match=r"^BlendSpace.sample: parameters must be real "
                                             r"numbers"):
            space.sample("fast", 0.5, scene=scene)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            # synchronized: clip i at t d_i / D, the ratio first where t d_i overflows
            total = 0.5 * survey.duration + 0.5 * walk.duration
            got = space.sample(0.5, 1e308, scene=scene, sync=True)
            times = 1e308 * (survey.duration / total), 1e308 * walk.duration / total
            if scene is None:
                a, b = survey.sample(times[0]), walk.sample(times[1])
                key = next(k for k in got if k[1] == "translation")
                np.testing.assert_array_equal(got[key], 0.5 * a[key] + 0.5 * b[key])
            else:
                expected = blend_many([fox.pose(survey, times[0]), fox.pose(walk, times[1])],
                                      [0.5, 0.5])
                for x, y in zip(got, expected):
                    np.testing.assert_array_equal(x, y)
            with pytest.raises(OverflowError, match=r"^BlendSpace.sample: t is 1.7e\+308: with "
                                                    r"sync=True clips\[0\] plays at"):
                space.sample(0.5, 1.7e308, scene=scene, sync=True)
    with pytest.raises(ValueError, match=r"^BlendSpace.weights: parameters must be real numbers"):
        space.weights("fast")
    with pytest.raises(ValueError, match=r"^BlendSpace.sample: clips\[0\] is a str \(without "
                                         r"scene=, every clip needs a sample method"):
        BlendSpace([0.0, 1.0], ["a", "b"]).sample(0.5, 0.1)
    with pytest.raises(ValueError, match=r"^BlendSpace.sample: clip .* animates node"):
        space.sample(0.5, 0.1, scene=skin)
    with pytest.raises(ValueError, match=r"^BlendSpace.sample: scene must be a Scene, got str$"):
        space.sample(0.5, 0.1, scene="fox")
