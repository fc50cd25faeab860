"""Keyframe reduction and ACL's object-space error.

References: a plain NumPy re-derivation of ACL's metric from the world
matrices; dense evaluation of the original curves (20 points per key
interval and 10^4 random times) for the bound."""

import pathlib
import pickle

import numpy as np
import pytest

import animcore
from animcore.reduce import clip_error, reduce_clip, reduce_keys

DATA = pathlib.Path(__file__).resolve().parent / "data"
WALK = DATA / "bvh" / "cmu_12_01_walk.bvh"
CESIUM = DATA / "gltf" / "CesiumMan" / "CesiumMan.gltf"


def dense_times(times, rng, extra=10_000):
    u = np.arange(20) / 20
    grid = (times[:-1, None] + u * np.diff(times)[:, None]).reshape(-1)
    return np.concatenate([grid, times, rng.uniform(times[0], times[-1], extra)])


def reference_clip_error(scene, a, b, t, shell):
    """Six virtual points per node, transformed by 4x4 world matrices."""
    points = np.concatenate([np.eye(3), -np.eye(3)]) * shell
    homogeneous = np.concatenate([points, np.ones((6, 1))], axis=1)  # (6, 4)
    wa = scene.world(a, t) @ homogeneous.T  # (..., J, 4, 6)
    wb = scene.world(b, t) @ homogeneous.T
    return np.linalg.norm(wa[..., :3, :] - wb[..., :3, :], axis=-2).max(axis=-1)


def walk():
    scene = animcore.bvh.load(str(WALK))
    return scene, scene.clips[0]


def test_clip_error_matches_reference_and_is_zero_on_itself():
    scene, clip = walk()
    t = np.linspace(0, clip.duration, 7)
    assert clip_error(scene, clip, clip, t, shell=3.0).max() == 0.0
    got = clip_error(scene, clip, None, t.reshape(7, 1), shell=3.0)
    assert got.shape == (7, 1, len(scene.nodes))
    np.testing.assert_allclose(got[:, 0], reference_clip_error(scene, clip, None, t, 3.0),
                               rtol=1e-12, atol=1e-9)


def test_reduce_keys_linear_corners():
    times = np.arange(11.0)
    values = np.array([0, 1, 2, 3, 4, 5, 4, 3, 2, 1, 0], dtype=float)
    curve = animcore.Curve(times, np.stack([values, 2 * values], -1), interpolation="linear")
    reduced = reduce_keys(curve, 1e-6)
    np.testing.assert_array_equal(reduced.times, [0, 5, 10])
    t = np.linspace(0, 10, 1001)
    np.testing.assert_allclose(reduced(t), curve(t), atol=1e-12)
    assert isinstance(reduced, animcore.Curve)
    assert pickle.loads(pickle.dumps(reduced)) == reduced


def test_reduce_keys_step():
    times = np.arange(8.0)
    curve = animcore.Curve(times, [0, 0, 0, 1, 1, 1, 1, 2], interpolation="step")
    reduced = reduce_keys(curve, 1e-9)
    np.testing.assert_array_equal(reduced.times, [0, 3, 7])
    t = np.linspace(-1, 8, 901)
    np.testing.assert_array_equal(reduced(t), curve(t))


@pytest.mark.parametrize("interpolation", ["auto", "linear", "cubic"])
def test_reduce_keys_dense_bound_on_a_cubic_curve(interpolation):
    rng = np.random.default_rng(0)
    times = np.linspace(0, 4, 121)
    values = np.stack([np.sin(2 * times), np.cos(3 * times) + 0.01 * rng.normal(size=121)], -1)
    curve = animcore.Curve(times, values)
    tol = 2e-3
    reduced = reduce_keys(curve, tol, interpolation=interpolation)
    assert len(reduced) < len(curve)
    t = dense_times(times, rng)
    assert np.abs(reduced(t) - curve(t)).max() <= tol
    if interpolation == "auto":
        assert len(reduced) <= len(reduce_keys(curve, tol, interpolation="linear"))


def test_reduce_keys_rotation_curve():
    times = np.linspace(0, 2, 61)
    angle = np.sin(times) * 2
    q = animcore.quat_from_axis_angle([0.0, 0.6, 0.8], angle)
    curve = animcore.RotationCurve(times, q)
    reduced = reduce_keys(curve, 1e-3)
    assert len(reduced.times) < 61
    t = dense_times(times, np.random.default_rng(1))
    dot = np.abs(np.sum(reduced(t) * curve(t), -1))
    assert (2 * np.arccos(np.minimum(dot, 1.0))).max() <= 1e-3


def test_reduce_clip_bound_holds_on_the_walk():
    scene, clip = walk()
    tol, shell = 0.01, 3.0  # the BVH is in centimetres: 1e-4 m and a 3 cm shell
    reduced = reduce_clip(scene, clip, tol, shell=shell)
    before = sum(len(c.times) for c in clip.channels)
    after = sum(len(c.times) for c in reduced.channels)
    assert after < before
    frames = np.unique(np.concatenate([c.times for c in clip.channels]))
    t = dense_times(frames, np.random.default_rng(2))
    assert clip_error(scene, clip, reduced, t, shell=shell).max() <= tol


def test_reduce_clip_gltf_in_metres():
    scene = animcore.gltf.load_scene(str(CESIUM))
    clip = scene.clips[0]
    reduced = reduce_clip(scene, clip)
    assert sum(len(c.times) for c in reduced.channels) < sum(len(c.times) for c in clip.channels)
    frames = np.unique(np.concatenate([c.times for c in clip.channels]))
    t = dense_times(frames, np.random.default_rng(3))
    assert clip_error(scene, clip, reduced, t).max() <= 1e-4


def test_bad_input():
    curve = animcore.Curve([0, 1, 2], [0, 1, 0])
    with pytest.raises(ValueError, match=r"reduce_keys: tolerance is 0.0 \(must be finite and > 0\)"):
        reduce_keys(curve, 0)
    with pytest.raises(ValueError, match=r"reduce_keys: tolerance is nan"):
        reduce_keys(curve, float("nan"))
    with pytest.raises(ValueError, match="reduce_keys: interpolation is 'bezier'"):
        reduce_keys(curve, 1e-3, interpolation="bezier")
    with pytest.raises(ValueError, match="reduce_keys: curve must be a Curve or RotationCurve"):
        reduce_keys([1, 2], 1e-3)
    scene, clip = walk()
    with pytest.raises(ValueError, match=r"clip_error: shell is -1.0"):
        clip_error(scene, clip, clip, 0.0, shell=-1)
    with pytest.raises(ValueError, match=r"clip_error: t at index \(1,\) is nan"):
        clip_error(scene, clip, clip, [0.0, np.nan])
    with pytest.raises(ValueError, match="reduce_clip: tolerance is -0.1"):
        reduce_clip(scene, clip, -0.1)
    small = animcore.gltf.Scene(scene.nodes[:3], ((0,),), 0, (), ())
    with pytest.raises(ValueError, match=r"reduce_clip: clip 'cmu_12_01_walk' animates node \d+, "
                                         r"but the scene has 3 nodes"):
        reduce_clip(small, clip)
    with pytest.raises(ValueError, match=r"clip_error: clip_b animates node \d+, but the scene "
                                         r"has 3 nodes"):
        clip_error(small, None, clip, 0.0)
