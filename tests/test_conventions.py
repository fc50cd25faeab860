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
    "quat_to_euler": (lambda x: animcore.quat_to_euler(x, "ZYX"), np.array([[0, 0.3, 1.0, 1.0]])),
    "quat_from_matrix": (lambda x: animcore.quat_from_matrix(x), np.eye(3)[None]),
    "Skeleton.world": (lambda x: animcore.Skeleton([-1, 0]).world(x),
                       np.array([[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]])),
    "SnapshotTimeline.sample_many": (
        lambda x: animcore.SnapshotTimeline(1).sample_many(x).position, U),
}


@pytest.mark.parametrize("name", CASES)
def test_unaligned_input_gives_the_same_result(name):
    call, values = CASES[name]
    np.testing.assert_array_equal(call(unaligned(values)), call(values.copy()))
