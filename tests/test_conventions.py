"""Conventions every public function shares: any float64 layout is accepted,
including views that are neither contiguous nor aligned (a view into a byte
buffer at an odd offset), with the same result as a plain array."""
import numpy as np
import pytest

import animcore


def unaligned(values):
    """A copy of `values` as a float64 view at an odd byte offset (not aligned)."""
    values = np.asarray(values, dtype=np.float64)
    raw = bytearray(values.nbytes + 1)
    view = np.frombuffer(raw, dtype=np.float64, count=values.size, offset=1)
    view = view.reshape(values.shape)
    assert not view.flags.aligned
    view[...] = values
    return view


U = np.array([0.0, 0.25, 0.5, 1.0])
CASES = {
    "hermite": (lambda x: animcore.hermite(0.0, 10.0, 2.0, 0.0, 2.0, x).position, U),
    "Curve": (lambda x: animcore.Curve([0, 1, 2], [0, 1, 0])(x), U),
    "Curve keys": (lambda x: animcore.Curve(x, [0, 1, 0, 2])(0.3), U),
    "ease": (lambda x: animcore.ease("smoothstep", x), U),
    "CubicBezier": (lambda x: animcore.CubicBezier(0.25, 0.1, 0.25, 1.0)(x), U),
    "quat_slerp": (lambda x: animcore.quat_slerp([0, 0, 0, 1], [0, 0, 1, 0], x), U),
    "quat_normalize": (lambda x: animcore.quat_normalize(x), np.array([[0, 0, 1.0, 1.0]])),
    "bounce": (lambda x: animcore.bounce(x, (0.0, 0.0), (0.0, 1.0), 0.5),
               np.array([[1.0, -2.0], [0.5, 3.0]])),
    "LoopTrack.delta": (lambda x: animcore.LoopTrack([0, 1], [0, 2]).delta(0.0, x), U),
    "SnapshotTimeline.sample_many": (
        lambda x: animcore.SnapshotTimeline(1).sample_many(x).position, U),
}


@pytest.mark.parametrize("name", CASES)
def test_unaligned_input_gives_the_same_result(name):
    call, values = CASES[name]
    np.testing.assert_array_equal(call(unaligned(values)), call(values.copy()))


# -- the error contract: the function, the argument, the value, what was expected

def _projectiles(**options):
    return animcore.advance_projectiles([0.0, 1.0], [1.0, 0.0], 0.1, 0.1, [0.0, 0.0],
                                        [0.0, 1.0], [0.0, 0.0], 0.5, **options)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: animcore.hermite(0, 1, 0, 0, 1, [1, [2, 3]]), ValueError,
     r"^hermite: elapsed is a ragged nested sequence \(its rows have different lengths\)"),
    (lambda: animcore.quat_slerp([[0, 0, 0, 1], [0, 1]], [0, 0, 0, 1], 0.5), ValueError,
     r"^quat_slerp: q0 is a ragged nested sequence"),
    (lambda: animcore.hermite(0, 1, 0, 0, 1, 10**400), OverflowError,
     r"^hermite: elapsed is an integer of 401 digits \(must be representable as float64"),
    (lambda: animcore.hermite(0, 1, 0, 0, 1, [0, 10**400]), OverflowError,
     r"^hermite: elapsed at index \(1,\) is an integer of 401 digits"),
    (lambda: animcore.hermite(0, 1, 0, 0, 1, [0.5, None]), ValueError,
     r"^hermite: elapsed must be real numbers, got None at index \(1,\)"),
    (lambda: animcore.HermiteSegment(10**400, 1, 0, 0, 1), OverflowError,
     r"^HermiteSegment: start is an integer of 401 digits"),
    (lambda: _projectiles(max_bounces=-10**10), ValueError,
     r"^advance_projectiles: max_bounces is -10000000000 \(must be >= 0\)"),
    (lambda: animcore.SnapshotBuffer(2**63), ValueError,
     r"^SnapshotBuffer: entities is 9223372036854775808 \(must be <= 9223372036854775807\)"),
    (lambda: animcore.SnapshotBuffer(10**9), MemoryError,
     r"^SnapshotBuffer: entities is 1000000000 \(out of memory\)"),
    (lambda: animcore.SnapshotTimeline(capacity=0), ValueError,
     r"^SnapshotTimeline: capacity is 0 \(must lie in \[1, 16777216\]\)"),
    (lambda: animcore.hermite(0, 1, 0, 0, 1, 2.5), ValueError,
     r"^hermite: elapsed is 2.5 \(must lie in \[0, duration=1\]\)"),
    (lambda: animcore.hermite(0, 1, 0, 0, 1, [0, 1, 2.5], workers=0), ValueError,
     r"^hermite: workers is 0 \(must be None, a positive count"),
])
def test_error_contract(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_integers_beyond_int64_are_real_numbers():
    """2**70 is a real number float64 represents; it is taken, not rejected."""
    position = animcore.hermite(2**70, 0.0, 0.0, 0.0, 1.0, 0.0).position
    assert position == float(2**70)


# -- one of each numeric: every domain shares the slerp and the cycle fold

@pytest.mark.parametrize("scale", [1.0, 1e-150, 1e150])
def test_quat_slerp_is_the_snapshot_slerp(scale):
    """Snapshot playback interpolates rotations with quat_slerp itself: the
    same result to the last bit, for any (non-unit, extreme) pushed value."""
    rng = np.random.default_rng(7)
    q0, q1 = rng.normal(size=(2, 4)) * scale
    timeline = animcore.SnapshotTimeline(1, rotations=True)
    timeline.push(0, 0, 0.0, q0)
    timeline.push(8, 0, 0.0, q1)
    ticks = np.linspace(0.0, 8.0, 97)
    alpha = (ticks - 0.0) / (8.0 - 0.0)
    np.testing.assert_array_equal(timeline.sample_many(ticks).rotation,
                                  animcore.quat_slerp(q0, q1, alpha))
    n = 500
    many0, many1 = rng.normal(size=(2, n, 4)) * scale
    buffer = animcore.SnapshotBuffer(n, 1, rotations=True)
    buffer.push(np.arange(n), 0, 0, np.zeros((n, 1)), many0)
    buffer.push(np.arange(n), 8, 0, np.zeros((n, 1)), many1)
    np.testing.assert_array_equal(buffer.sample(3.0).rotation,
                                  animcore.quat_slerp(many0, many1, 3.0 / 8.0))


@pytest.mark.parametrize("mode", ["cycle", "oscillate"])
def test_curve_and_rotation_curve_fold_alike_far_away(mode):
    """A yaw track keyed as angles (Curve) and as rotations about z
    (RotationCurve) plays the same angle, also 3.3e13 s (a million years)
    away, where different folds of t into the keys disagree by 4e-3 s."""
    times, angles = np.array([0.0, 1.0, 2.5]), np.array([0.1, 0.7, 0.4])
    curve = animcore.Curve(times, angles, interpolation="linear", before=mode, after=mode)
    rotations = np.stack([np.zeros(3), np.zeros(3), np.sin(angles / 2), np.cos(angles / 2)], -1)
    rotation = animcore.RotationCurve(times, rotations, before=mode, after=mode)
    t = np.concatenate([3.3e13 + np.linspace(0.0, 5.0, 41), -3.3e13 - np.linspace(0.0, 5.0, 41)])
    q = rotation(t)
    np.testing.assert_allclose(2.0 * np.arctan2(q[:, 2], q[:, 3]), curve(t), rtol=0, atol=1e-12)
