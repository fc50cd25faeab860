"""Pose blending against scipy's rotations and plain NumPy; the additive
identities; ozz's N-way blend rules; every bad-input branch."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from animcore import Transforms
from animcore.blend import (apply_additive, blend_many, blend_poses, make_additive,
                            quat_power)


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
    half = quat_power(d, 0.5)
    np.testing.assert_allclose(half, [0, 0, np.sin(angle / 4), np.cos(angle / 4)], atol=1e-15)
    ident = Transforms(np.zeros((1, 3)), np.array([[0, 0, 0, 1.0]]), np.ones((1, 3)))
    delta = Transforms(np.zeros((1, 3)), d[None], np.ones((1, 3)))
    blender = apply_additive(ident, delta, 0.5, convention="blender_combine").rotation[0]
    local = apply_additive(ident, delta, 0.5).rotation[0]
    np.testing.assert_allclose(blender, half, atol=1e-15)
    same_rotation(local, np.array([0, 0, -np.sin(np.pi / 8), np.cos(np.pi / 8)]), 1e-14)


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
    apply_additive(a, b, 1.0)  # a mirror applies whole
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
