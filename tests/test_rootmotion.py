import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.spatial.transform import Rotation

import animcore
from animcore import LoopTrack, RootDelta, RootMotionCursor, RootPose

from reference import (_yaw_matrix, loop_catmull_rom_spline, loop_integrate, turning_delta,
                       turning_pose)

ARTICLE_TIMES = [0.0, 0.25, 0.75, 1.0]
ARTICLE_POSITIONS = [0.0, 0.2, 1.7, 2.0]


@pytest.fixture
def walk():
    return LoopTrack(ARTICLE_TIMES, ARTICLE_POSITIONS)


def square(T=1.0, interpolation="linear"):
    """+90 degrees about y and 1 m forward (along z) per cycle."""
    return LoopTrack([0.0, T], [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]], rotations=[0.0, np.pi / 2],
                     interpolation=interpolation)


# -- article 001's figures ------------------------------------------------------

def test_article_figures(walk):
    assert walk.duration == 1.0 and walk.stride == 2.0
    assert walk.delta(0.9, 1.1) == pytest.approx(0.2, abs=1e-9)
    assert walk.delta(0.9, 3.1) == pytest.approx(4.2, abs=1e-9)
    assert walk.delta(1.1, 0.9) == pytest.approx(-0.2, abs=1e-9)
    cycle, phase = walk.split(-0.1)
    assert cycle == -1 and phase == pytest.approx(0.9, abs=1e-12)
    assert walk.sample(0.9) == pytest.approx(1.88, abs=1e-12)
    assert walk.sample(0.1) == pytest.approx(0.08, abs=1e-12)


def test_naive_phase_difference_regression(walk):
    # Subtracting the two phases' samples walks the character back 1.8 m.
    naive = walk.sample(0.1) - walk.sample(0.9)
    assert naive == pytest.approx(-1.8, abs=1e-9)
    assert walk.delta(0.9, 1.1) != pytest.approx(naive)
    # and remembering only "a wrap happened" cannot tell one cycle from three
    assert walk.delta(0.9, 3.1) - walk.delta(0.9, 1.1) == pytest.approx(2 * walk.stride)


def test_split_and_sample_edges(walk):
    cycle, phase = walk.split([0.0, 1.0, -1.0, 2.5, -2.5, -1e-300])
    np.testing.assert_array_equal(cycle, [0, 1, -1, 2, -3, 0])
    np.testing.assert_allclose(phase, [0, 0, 0, 0.5, 0.5, 0.0], atol=1e-15)
    assert cycle.dtype == np.int64
    assert np.all((phase >= 0) & (phase < 1))
    assert walk.sample(1.0) - walk.sample(0.0) == pytest.approx(walk.stride)
    np.testing.assert_allclose(walk.sample(np.array(ARTICLE_TIMES)), ARTICLE_POSITIONS, atol=1e-15)


def test_whole_cycles_zero_interval_and_seam(walk):
    assert walk.delta(0.3, 0.3) == 0.0
    assert walk.delta(0.0, 5.0) == pytest.approx(10.0, abs=1e-12)
    assert walk.delta(-3.0, 0.0) == pytest.approx(6.0, abs=1e-12)
    # both sides of the seam: position is continuous
    eps = 1e-9
    assert walk.delta(1.0 - eps, 1.0 + eps) == pytest.approx(2 * eps * 1.0, abs=1e-12)


# -- the 25,921-pair sweep against piecewise integration ------------------------------

def test_article_sweep(walk):
    ends = np.arange(161) / 16.0 - 5.0
    t0, t1 = ends[:, None], ends[None, :]
    got = walk.delta(t0, t1)
    assert got.size == 25921
    expected = loop_integrate(ARTICLE_TIMES, ARTICLE_POSITIONS, t0, t1)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    mid = 0.5 * (t0 + t1)
    np.testing.assert_allclose(walk.delta(t0, mid) + walk.delta(mid, t1), got, rtol=0, atol=1e-9)
    np.testing.assert_allclose(walk.delta(t1, t0), -got, rtol=0, atol=1e-12)


def _random_track(rng, channels=None):
    k = int(rng.integers(2, 12))
    gaps = rng.uniform(0.01, 1.0, k - 1) ** 2 + 1e-3  # uneven spacing
    times = np.concatenate([[0.0], np.cumsum(gaps)])
    shape = (k,) if channels is None else (k, channels)
    positions = rng.normal(size=shape) * rng.uniform(0.1, 10)
    return times, positions


@pytest.mark.parametrize("seed", range(8))
def test_random_tracks_against_integration(seed):
    rng = np.random.default_rng(seed)
    channels = None if seed % 3 == 0 else int(rng.integers(1, 5))
    times, positions = _random_track(rng, channels)
    track = LoopTrack(times, positions)
    T = times[-1]
    t0 = rng.uniform(-6 * T, 6 * T, 400)
    t1 = rng.uniform(-6 * T, 6 * T, 400)
    t1[:50] = t0[:50] + rng.uniform(-0.01, 0.01, 50) * T  # short frames, often across a seam
    got = track.delta(t0, t1)
    expected = loop_integrate(times, positions, t0, t1)
    scale = np.abs(positions).max() + 1
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * scale)
    mid = 0.5 * (t0 + t1)
    np.testing.assert_allclose(track.delta(t0, mid) + track.delta(mid, t1), got, rtol=0,
                               atol=1e-9 * scale)


# -- cubic interpolation --------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_cubic_against_unrolled_scipy_spline(seed):
    rng = np.random.default_rng(100 + seed)
    times, positions = _random_track(rng, 2 if seed % 2 else None)
    track = LoopTrack(times, positions, interpolation="cubic")
    T = times[-1]
    spline = loop_catmull_rom_spline(times, positions, (-4, 4))
    t0 = rng.uniform(-3 * T, 3 * T, 300)
    t1 = rng.uniform(-3 * T, 3 * T, 300)
    scale = np.abs(positions).max() + 1
    np.testing.assert_allclose(track.delta(t0, t1), spline(t1) - spline(t0), rtol=0, atol=1e-9 * scale)


def test_cubic_is_c1_across_the_seam():
    track = LoopTrack([0.0, 0.3, 0.5, 1.2], [0.0, 1.0, 0.5, 3.0], interpolation="cubic")
    T, h = track.duration, 1e-6
    # velocity just before and just after the seam, by central differences of delta
    before = track.delta(T - 2 * h, T - h) / h
    after = track.delta(T + h, T + 2 * h) / h
    assert before == pytest.approx(after, abs=1e-4)
    # with linear keys the seam has the article's velocity jump
    lin = LoopTrack([0.0, 0.3, 0.5, 1.2], [0.0, 1.0, 0.5, 3.0])
    assert abs(lin.delta(T - 2 * h, T - h) / h - lin.delta(T + h, T + 2 * h) / h) > 0.2


def test_cubic_reproduces_keys_and_stride():
    times, positions = [0.0, 0.4, 1.0], [[0.0, 1.0], [2.0, 0.0], [3.0, 1.0]]
    track = LoopTrack(times, positions, interpolation="cubic")
    np.testing.assert_allclose(track.sample(np.array(times) / 1.0), positions, atol=1e-12)
    np.testing.assert_allclose(track.delta(0, 1), [3.0, 0.0], atol=1e-12)


# -- turning loops ----------------------------------------------------------------

def test_square_walk():
    T = 1.0
    track = square(T)
    d = track.delta(0.0, 4 * T)
    assert isinstance(d, RootDelta)
    np.testing.assert_allclose(d.translation, 0.0, atol=1e-9)
    assert abs(d.rotation) <= 1e-9
    half = track.delta(0.5 * T, 2.5 * T)
    assert abs(abs(half.rotation) - np.pi) <= 1e-9
    one = track.delta(0.0, T)
    np.testing.assert_allclose(one.translation, [0, 0, 1], atol=1e-12)
    assert one.rotation == pytest.approx(np.pi / 2)
    two = track.delta(0.0, 2 * T)
    np.testing.assert_allclose(two.translation, [1, 0, 1], atol=1e-12)
    # a million cycles later: still closed form, and 4 divides 10^6
    far = track.delta(0.0, 1e6 * T)
    np.testing.assert_allclose(far.translation, 0.0, atol=1e-8)
    # the naive straight-line stride would put it 4 m away after 4 cycles
    assert np.linalg.norm(4 * (track.sample(1.0).position - track.sample(0.0).position)) == pytest.approx(4.0)


def test_square_walk_quaternions_and_planar_yaw():
    h = np.pi / 4
    q = LoopTrack([0.0, 2.0], [[0, 0, 0], [0, 0, 1.0]],
                  rotations=[[0, 0, 0, 1.0], [0, np.sin(h), 0, np.cos(h)]])
    d = q.delta(0.0, 8.0)
    np.testing.assert_allclose(d.translation, 0.0, atol=1e-9)
    assert abs(abs(d.rotation[3]) - 1) <= 1e-9
    half = q.delta(1.0, 5.0)
    assert abs(half.rotation[3]) <= 1e-9 and abs(abs(half.rotation[1]) - 1) <= 1e-9
    planar = LoopTrack([0.0, 1.0], [[0.0, 0.0], [1.0, 0.0]], rotations=[0.0, np.pi / 2])
    np.testing.assert_allclose(planar.delta(0, 1).translation, [1, 0], atol=1e-12)
    np.testing.assert_allclose(planar.delta(0, 2).translation, [1, 1], atol=1e-12)
    np.testing.assert_allclose(planar.delta(0, 4).translation, [0, 0], atol=1e-9)


def _check_rigid(track, times, positions, rotations, t0, t1, up_axis=1, atol=1e-9):
    d = track.delta(t0, t1)
    for i in range(len(t0)):
        M = turning_delta(times, positions, rotations, t0[i], t1[i], up_axis)
        np.testing.assert_allclose(d.translation[i], M[: positions.shape[1], 3], atol=atol)
        if np.ndim(rotations) == 1:
            R = _yaw_matrix(d.rotation[i], up_axis, positions.shape[1] == 2)
        else:
            R = Rotation.from_quat(d.rotation[i]).as_matrix()
            assert d.rotation[i][3] >= 0
        np.testing.assert_allclose(R, M[:3, :3], atol=atol)


@pytest.mark.parametrize("seed", range(6))
def test_random_yaw_clips_against_per_cycle_composition(seed):
    rng = np.random.default_rng(200 + seed)
    channels = 2 if seed % 3 == 0 else 3
    up_axis = int(rng.integers(0, 3))
    times, positions = _random_track(rng, channels)
    yaw = np.cumsum(rng.normal(size=len(times)))
    track = LoopTrack(times, positions, rotations=yaw, up_axis=up_axis)
    T = times[-1]
    t0 = rng.uniform(-5 * T, 5 * T, 40)
    t1 = rng.uniform(-5 * T, 5 * T, 40)
    _check_rigid(track, times, positions, yaw, t0, t1, up_axis)


@pytest.mark.parametrize("seed", range(6))
def test_random_quaternion_clips_against_per_cycle_composition(seed):
    rng = np.random.default_rng(300 + seed)
    times, positions = _random_track(rng, 3)
    quats = Rotation.random(len(times), random_state=seed).as_quat()
    track = LoopTrack(times, positions, rotations=quats)
    T = times[-1]
    t0 = rng.uniform(-5 * T, 5 * T, 40)
    t1 = rng.uniform(-5 * T, 5 * T, 40)
    _check_rigid(track, times, positions, quats, t0, t1)


def _compose(a, b, kind):
    """Rigid composition a * b of RootDelta-like (translation, rotation) pairs."""
    if kind == "yaw":
        Ra = _yaw_matrix(a.rotation, 1, False)
        return Ra @ b.translation + a.translation, a.rotation + b.rotation
    ra = Rotation.from_quat(a.rotation)
    return ra.apply(b.translation) + a.translation, (ra * Rotation.from_quat(b.rotation)).as_quat()


@pytest.mark.parametrize("kind", ["yaw", "quaternion"])
def test_rigid_reverse_and_additivity(kind):
    rng = np.random.default_rng(7)
    times, positions = _random_track(rng, 3)
    rotations = (np.cumsum(rng.normal(size=len(times))) if kind == "yaw"
                 else Rotation.random(len(times), random_state=3).as_quat())
    track = LoopTrack(times, positions, rotations=rotations)
    T = times[-1]
    for a, b, c in rng.uniform(-7 * T, 7 * T, (20, 3)):
        ab, bc, ac = track.delta(a, b), track.delta(b, c), track.delta(a, c)
        t, r = _compose(ab, bc, kind)
        np.testing.assert_allclose(t, ac.translation, atol=1e-9)
        if kind == "yaw":
            assert np.cos(r - ac.rotation) == pytest.approx(1.0, abs=1e-12)
        else:
            assert abs(np.dot(r, ac.rotation)) == pytest.approx(1.0, abs=1e-12)
        ba = track.delta(b, a)
        t, r = _compose(ab, ba, kind)
        np.testing.assert_allclose(t, 0.0, atol=1e-9)


def test_turning_sample_is_world_pose():
    rng = np.random.default_rng(11)
    times, positions = _random_track(rng, 3)
    quats = Rotation.random(len(times), random_state=5).as_quat()
    track = LoopTrack(times, positions, rotations=quats)
    u = rng.uniform(0, 1, 20)
    pose = track.sample(u)
    assert isinstance(pose, RootPose)
    for i in range(20):
        M = turning_pose(times, positions, quats, u[i] * times[-1])
        np.testing.assert_allclose(pose.position[i], M[:3, 3], atol=1e-9)
        np.testing.assert_allclose(Rotation.from_quat(pose.rotation[i]).as_matrix(), M[:3, :3], atol=1e-9)
    yaw = LoopTrack([0, 1, 2], [[0, 0], [1, 0], [1, 1]], rotations=[0.5, 1.0, 2.0])
    np.testing.assert_allclose(yaw.sample([0.0, 0.5, 1.0]).position, [[0, 0], [1, 0], [1, 1]], atol=1e-12)
    np.testing.assert_allclose(yaw.sample([0.0, 0.25, 1.0]).rotation, [0.5, 0.75, 2.0], atol=1e-12)


def test_cubic_turning_loop_is_c1_across_the_seam():
    track = LoopTrack([0.0, 0.4, 1.0], [[0, 0, 0], [0.3, 0, 0.5], [0.2, 0, 1.0]],
                      rotations=[0.0, 0.4, 1.0], interpolation="cubic")
    h = 1e-6
    # velocity in the root frame at the seam, seen from the frame just before it
    before = track.delta(1.0 - h, 1.0).translation / h
    after = track.delta(1.0 - h, 1.0 + h).translation / h - before
    np.testing.assert_allclose(before, after, atol=1e-4)


# -- cursors ---------------------------------------------------------------------

def test_cursor_article_frames(walk):
    cursor = RootMotionCursor(walk, 0.9)
    assert cursor.advance(0.2) == pytest.approx(0.2, abs=1e-9)
    assert cursor.advance_to(3.1) == pytest.approx(4.0, abs=1e-9)
    assert cursor.advance(-2.2) == pytest.approx(-4.2, abs=1e-9)
    assert int(cursor.cycle) == 0 and float(cursor.phase) == pytest.approx(0.9)
    assert float(cursor.time) == pytest.approx(0.9)


def test_a_cursor_time_beyond_the_doubles_is_an_overflow_error():
    # found by fuzz/fuzz_pickle.py: a restored cursor 2^61 cycles into a track
    # of 1e300 s gave inf with a RuntimeWarning
    import pickle
    cursor = RootMotionCursor(square(T=1e300), [0.5e300, 1.5e300])
    function, (cls, state) = cursor.__reduce_ex__(pickle.HIGHEST_PROTOCOL)[:2]
    state = dict(state, cycle=np.array([1, 2**61]))
    far = function(cls, state)
    with pytest.raises(OverflowError, match=r"^RootMotionCursor.time: the cursor at index "
                                            r"\(1,\) is at cycle 2305843009213693952 of a "
                                            r"1e\+300 s track: its time is beyond the double "
                                            r"range$"):
        far.time
    np.testing.assert_array_equal(far.cycle, [1, 2**61])  # the state itself is whole
    assert pickle.loads(pickle.dumps(far)) == far
    np.testing.assert_array_equal(cursor.time, [0.5e300, 1.5e300])


def test_cursor_reset_emits_nothing(walk):
    cursor = RootMotionCursor(walk, 0.0)
    cursor.advance(0.5)
    assert cursor.reset(100.25) is None
    assert float(cursor.time) == pytest.approx(100.25)
    assert cursor.advance(0.0) == 0.0
    assert cursor.advance(0.5) == pytest.approx(walk.delta(100.25, 100.75), abs=1e-12)
    cursor.reset()
    assert float(cursor.time) == 0.0


def test_cursor_long_run_precision():
    # 10^5 frames at 1/60 s from a clock already 10^7 frames in: the cursor keeps
    # an integer cycle and a bounded phase, so late frames are as exact as early
    # ones (the C tests run the full 10^7 frames).
    track = LoopTrack([0, 0.25, 0.75, 1.0], [0, 0.2, 1.7, 2.0])
    start = 1e7 / 60
    dt = np.full(1000, 1 / 60)
    cursor = RootMotionCursor(track, np.full(1000, start))
    total = np.zeros(1000)
    for _ in range(100):
        total += cursor.advance(dt)
    expected = track.delta(start, start + 100 / 60)
    np.testing.assert_allclose(total, expected, rtol=1e-9)
    np.testing.assert_allclose(cursor.time, start + 100 / 60, rtol=1e-12)


def test_cursor_many_steps_sum_to_closed_form():
    track = LoopTrack([0, 0.3, 0.7, 1.1], [0, 0.5, 1.2, 2.5])
    cursor = RootMotionCursor(track, 0.0)
    total = 0.0
    for _ in range(20000):
        total += float(cursor.advance(1 / 60))
    expected = float(track.delta(0.0, 20000 / 60))
    assert total == pytest.approx(expected, rel=1e-9)


def test_vectorized_cursors_equal_scalar_ones():
    rng = np.random.default_rng(3)
    times, positions = _random_track(rng, 3)
    for rotations in (None, np.cumsum(rng.normal(size=len(times))),
                      Rotation.random(len(times), random_state=1).as_quat()):
        track = LoopTrack(times, positions, rotations=rotations)
        start = rng.uniform(-10, 10, (3, 4))
        many = RootMotionCursor(track, start)
        single = [RootMotionCursor(track, s) for s in start.ravel()]
        for step in range(5):
            dt = rng.uniform(-2, 2, (3, 4))
            if step == 3:
                got = many.advance_to(start + dt)
                each = [c.advance_to(s) for c, s in zip(single, (start + dt).ravel())]
            else:
                got = many.advance(dt)
                each = [c.advance(d) for c, d in zip(single, dt.ravel())]
            if rotations is None:
                np.testing.assert_array_equal(got.reshape(12, 3), np.array(each))
            else:
                np.testing.assert_array_equal(got.translation.reshape(12, 3),
                                              np.array([e.translation for e in each]))
                np.testing.assert_array_equal(got.rotation.reshape(12, -1),
                                              np.array([e.rotation for e in each]).reshape(12, -1))
        np.testing.assert_array_equal(many.cycle.ravel(), [int(c.cycle) for c in single])


def test_cursor_matches_delta_for_turning_tracks():
    track = square()
    cursor = RootMotionCursor(track, [0.0, 0.5])
    got = cursor.advance([4.0, 2.0])
    np.testing.assert_allclose(got.translation[0], 0.0, atol=1e-9)
    assert abs(abs(got.rotation[1]) - np.pi) <= 1e-9
    assert cursor.shape == (2,)


def test_cursor_broadcasts_dt():
    track = LoopTrack([0, 1.0], [[0, 0], [1, 2]])
    cursor = RootMotionCursor(track, np.zeros((2, 3)))
    out = cursor.advance(0.5)
    assert out.shape == (2, 3, 2)
    np.testing.assert_allclose(out, np.broadcast_to([0.5, 1.0], (2, 3, 2)))
    out2 = cursor.advance([0.5, 1.0, 1.5])
    np.testing.assert_allclose(out2[..., 0], np.broadcast_to([0.5, 1.0, 1.5], (2, 3)))


def test_cursor_error_changes_nothing(walk):
    cursor = RootMotionCursor(walk, [0.1, 0.2, 0.3])
    before = (cursor.cycle, cursor.phase)
    out = np.full(3, 7.0)
    with pytest.raises(ValueError, match=r"RootMotionCursor.advance: dt at index \(2,\) is nan \(must be finite\)"):
        cursor.advance([0.1, 0.1, np.nan], out=out)
    np.testing.assert_array_equal(cursor.cycle, before[0])
    np.testing.assert_array_equal(cursor.phase, before[1])
    np.testing.assert_array_equal(out, 7.0)
    with pytest.raises(ValueError, match=r"advance_to: t at index \(0,\) is 2000000.0 \(must satisfy \|t/duration\| <= max_cycles=1000000"):
        cursor.advance_to([2e6, 0, 0])
    with pytest.raises(ValueError, match=r"dt at index \(1,\) is -10000000.0"):
        cursor.advance([0, -1e7, 0])
    with pytest.raises(ValueError, match=r"dt of shape \(2,\) does not broadcast to the cursors' shape \(3,\)"):
        cursor.advance([1, 2])
    with pytest.raises(ValueError, match=r"reset: time of shape \(4,\) does not broadcast"):
        cursor.reset([1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"RootMotionCursor.reset: time at index \(1,\) is inf"):
        cursor.reset([1, np.inf, 3])
    np.testing.assert_array_equal(cursor.phase, before[1])
    with pytest.raises(ValueError, match=r"RootMotionCursor: track must be a LoopTrack"):
        RootMotionCursor("walk")
    with pytest.raises(ValueError, match=r"RootMotionCursor: time is nan"):
        RootMotionCursor(walk, np.nan)
    with pytest.raises(ValueError, match=r"RootMotionCursor: time at index \(1,\) is -5000000.0 \(must satisfy \|time/duration\| <= max_cycles=1000000"):
        RootMotionCursor(walk, [0, -5e6])


def test_cursor_cycle_overflow():
    track = LoopTrack([0, 1.0], [0, 1.0], max_cycles=2.0**50)
    cursor = RootMotionCursor(track, 2.0**50)
    for _ in range(6):
        cursor.advance(2.0**50)
    cursor.advance(2.0**50 - 1)  # 2^53 - 1 cycles: still exact
    assert int(cursor.cycle) == 2**53 - 1
    with pytest.raises(OverflowError, match=r"RootMotionCursor.advance: dt is 2.0 \(moves the cursor beyond 2\^53 cycles"):
        cursor.advance(2.0)
    assert int(cursor.cycle) == 2**53 - 1


# -- arrays: broadcasting, dtypes, out=, empty ---------------------------------------

def test_delta_broadcasting_and_channels():
    track = LoopTrack([0, 0.5, 1.0], [[0, 0, 0], [1, 0, 2], [2, 0, 1]])
    d = track.delta(np.zeros((4, 1)), np.linspace(0, 3, 5))
    assert d.shape == (4, 5, 3)
    np.testing.assert_allclose(d[0, -1], [6, 0, 3])
    assert LoopTrack([0, 1], [[0], [2]]).delta(0, 1).shape == (1,)


def test_empty_in_empty_out(walk):
    assert walk.delta(np.empty((0, 2)), 1.0).shape == (0, 2)
    assert square().delta(np.empty(0), 1.0).rotation.shape == (0,)
    cycle, phase = walk.split(np.empty((2, 0)))
    assert cycle.shape == phase.shape == (2, 0)
    assert walk.sample(np.empty(0)).shape == (0,)
    cursor = RootMotionCursor(walk, np.empty(0))
    assert cursor.advance(1.0).shape == (0,)


def test_result_is_out_and_out_untouched_on_error(walk):
    out = np.empty(3)
    assert walk.delta([0.9, 0.9, 1.1], [1.1, 3.1, 0.9], out=out) is out
    np.testing.assert_allclose(out, [0.2, 4.2, -0.2], atol=1e-12)
    out[:] = 5.0
    with pytest.raises(ValueError, match=r"LoopTrack.delta: t0 at index \(1,\) is inf"):
        walk.delta([0.9, np.inf, 1.1], 1.0, out=out)
    np.testing.assert_array_equal(out, 5.0)
    track = square()
    out2 = (np.empty((2, 3)), np.empty(2))
    d = track.delta([0, 0], [1, 2], out=out2)
    assert d.translation is out2[0] and d.rotation is out2[1]
    cursor = RootMotionCursor(walk, 0.0)
    o = np.empty(())
    assert cursor.advance(0.5, out=o) is o
    assert float(o) == pytest.approx(0.2 + 0.25 / 0.5 * 1.5, abs=1e-12)  # keys 0.25 and 0.75



# out= is written by one evaluation when the times are proven valid and the
# track's deltas bounded, by a validation pass and then the evaluation
# otherwise; either way the bits of a fresh call, and out as it was on error.
def _fill(out, value=-7.0):
    for o in out if isinstance(out, tuple) else (out,):
        o.fill(value)
    return out


def _untouched(out):
    for o in out if isinstance(out, tuple) else (out,):
        np.testing.assert_array_equal(o, -7.0)


def _outs(result):
    if isinstance(result, np.ndarray):
        return _fill(np.empty(result.shape))
    return _fill(tuple(np.empty(r.shape) for r in result))


OUT_TRACKS = {
    "linear": lambda: LoopTrack(ARTICLE_TIMES, ARTICLE_POSITIONS),
    "cubic, 2 channels": lambda: LoopTrack(ARTICLE_TIMES, np.c_[ARTICLE_POSITIONS, ARTICLE_TIMES],
                                           interpolation="cubic"),
    "turning": square,
}


@pytest.mark.parametrize("name", OUT_TRACKS)
def test_out_gives_the_bits_of_a_fresh_call(name):
    track, rng = OUT_TRACKS[name](), np.random.default_rng(2)
    t0 = rng.uniform(-50.0, 50.0, 5000)
    for args in ((t0, t0 + rng.uniform(-3.0, 3.0, t0.size)), (t0, 1.25), (rng.uniform(0, 1, 5000),)):
        call = track.delta if len(args) == 2 else track.sample
        fresh = call(*args)
        out = _outs(fresh)
        got = call(*args, out=out)
        for g, o, f in zip(*(x if isinstance(x, tuple) else (x,) for x in (got, out, fresh))):
            assert g is o
            np.testing.assert_array_equal(o, f)


@pytest.mark.parametrize("name", ["linear", "turning"])
@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("call, bad, message", [
    ("delta t0", np.nan, r"t0 at index \({i},\) is nan \(must be finite\)"),
    ("delta t1", -np.inf, r"t1 at index \({i},\) is -inf \(must be finite\)"),
    ("delta t1", 3e6, r"t1 at index \({i},\) is 3000000.0 \(must satisfy \|t1/duration\| <= "
                      r"max_cycles=1000000 with duration=1\)"),
    ("sample", 1.5, r"phase at index \({i},\) is 1.5 \(must lie in \[0, 1\]\)"),
    ("sample", np.nan, r"phase at index \({i},\) is nan \(must be finite\)"),
])
def test_out_untouched_and_the_same_error_on_a_bad_time(name, where, call, bad, message):
    track, n = OUT_TRACKS[name](), 6000
    t = np.linspace(0.0, 1.0, n)
    i = {"first": 0, "middle": n // 2, "last": n - 1}[where]
    bad_t = t.copy()
    bad_t[i] = bad
    args = {"delta t0": (bad_t, t), "delta t1": (t, bad_t), "sample": (bad_t,)}[call]
    method = track.sample if call == "sample" else track.delta
    out = _outs(method(*(t for _ in args)))
    with pytest.raises(ValueError) as fresh:
        method(*args)
    with pytest.raises(ValueError, match="^LoopTrack.%s: %s$" % (method.__name__,
                                                                 message.format(i=i))) as e:
        method(*args, out=out)
    assert str(e.value) == str(fresh.value)
    _untouched(out)



@pytest.mark.parametrize("name", OUT_TRACKS)
@pytest.mark.parametrize("move", ["advance", "advance_to"])
def test_cursor_out_gives_the_bits_of_a_fresh_call(name, move):
    import copy
    track, rng = OUT_TRACKS[name](), np.random.default_rng(3)
    cursor = RootMotionCursor(track, rng.uniform(-1e3, 1e3, 5000))
    twin = copy.deepcopy(cursor)
    value = rng.uniform(-2.0, 2.0, 5000) + (rng.uniform(-50, 50, 5000) if move == "advance_to"
                                             else 0.0)
    fresh = getattr(twin, move)(value)
    out = _outs(fresh)
    got = getattr(cursor, move)(value, out=out)
    for g, o, f in zip(*(x if isinstance(x, tuple) else (x,) for x in (got, out, fresh))):
        assert g is o
        np.testing.assert_array_equal(o, f)
    assert cursor == twin  # the same state after the move


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("move, bad, message", [
    ("advance", np.nan, r"dt at index \({i},\) is nan \(must be finite\)"),
    ("advance", 2e6, r"dt at index \({i},\) is 2000000.0 \(must satisfy \|dt/duration\| <= "
                     r"max_cycles=1000000 with duration=1\)"),
    ("advance_to", -np.inf, r"t at index \({i},\) is -inf \(must be finite\)"),
])
def test_cursor_out_untouched_and_the_same_error_on_a_bad_value(where, move, bad, message):
    import copy
    n = 6000
    cursor = RootMotionCursor(OUT_TRACKS["linear"](), np.linspace(0.0, 3.0, n))
    before = copy.deepcopy(cursor)
    value = np.full(n, 0.25)
    i = {"first": 0, "middle": n // 2, "last": n - 1}[where]
    value[i] = bad
    with pytest.raises(ValueError) as fresh:
        getattr(cursor, move)(value)
    out = _fill(np.empty(n))
    func = "RootMotionCursor." + move
    with pytest.raises(ValueError, match="^%s: %s$" % (func, message.format(i=i))) as e:
        getattr(cursor, move)(value, out=out)
    assert str(e.value) == str(fresh.value)
    _untouched(out)
    assert cursor == before  # nothing moved


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_out_untouched_when_a_delta_overflows(where):
    # 1e300 per cycle: 5e8 cycles, within max_cycles, is beyond the double range
    track, n = LoopTrack([0.0, 1.0], [0.0, 1e300], max_cycles=1e9), 6000
    t0, t1 = np.zeros(n), np.full(n, 0.5)
    i = {"first": 0, "middle": n // 2, "last": n - 1}[where]
    t1[i] = 5e8
    assert np.isfinite(track.delta(0.0, 0.5)) and np.isfinite(track.delta(0.0, 1e6))
    out = _fill(np.empty(n))
    with pytest.raises(OverflowError, match=rf"^LoopTrack.delta: translation at index \({i},\) "
                                            r"is inf \(is not representable"):
        track.delta(t0, t1, out=out)
    _untouched(out)


@pytest.mark.parametrize("out, match", [
    (np.empty(4), r"out\[0\] has shape \(4,\), expected \(3,\)"),
    ((np.empty(3), np.empty(3)), r"out must be a tuple of 1 arrays"),
    (np.empty(3, dtype=int), r"out\[0\] has dtype int64"),
])
def test_bad_out(walk, out, match):
    with pytest.raises(ValueError, match=match):
        walk.delta([0, 1, 2], 0.5, out=out)


def test_bad_out_turning():
    with pytest.raises(ValueError, match=r"out must be a tuple of 2 arrays \(translation, rotation\)"):
        square().delta(0, 1, out=np.empty(3))
    with pytest.raises(ValueError, match=r"rotation: out\[0\] has shape \(4,\), expected \(\)"):
        square().delta(0, 1, out=(np.empty(3), np.empty(4)))


def test_input_not_modified(walk):
    t0 = np.linspace(-3, 3, 11)
    keep = t0.copy()
    walk.delta(t0, 1.0)
    walk.split(t0)
    RootMotionCursor(walk, t0).advance(t0)
    np.testing.assert_array_equal(t0, keep)
    times, positions = np.array(ARTICLE_TIMES), np.array(ARTICLE_POSITIONS)
    track = LoopTrack(times, positions)
    positions[1] = 99.0  # the track owns a copy
    assert track.sample(0.25) == pytest.approx(0.2)
    with pytest.raises(ValueError, match="read-only"):
        track.positions[0] = 1.0


@given(st.data())
def test_broadcasting_matches_reference(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, min_side=0, max_side=4))
    t0 = data.draw(hnp.arrays(np.float64, shapes.input_shapes[0], elements=st.floats(-20, 20)))
    t1 = data.draw(hnp.arrays(np.float64, shapes.input_shapes[1], elements=st.floats(-20, 20)))
    track = LoopTrack(ARTICLE_TIMES, ARTICLE_POSITIONS)
    got = track.delta(t0, t1)
    assert np.shape(got) == shapes.result_shape
    np.testing.assert_allclose(got, loop_integrate(ARTICLE_TIMES, ARTICLE_POSITIONS, t0, t1), atol=1e-9)


@given(hnp.arrays(np.float64, hnp.array_shapes(max_dims=2, max_side=6), elements=st.floats(-9, 9)),
       st.sampled_from([np.float32, np.float64, np.int64]))
def test_dtypes_and_views(t, dtype):
    track = LoopTrack(ARTICLE_TIMES, ARTICLE_POSITIONS)
    view = t.astype(dtype)[..., ::-1]
    expected = track.delta(np.ascontiguousarray(view, dtype=np.float64), 0.25)
    np.testing.assert_array_equal(track.delta(view, 0.25), expected)


# -- every bad-input branch ------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    (dict(times=[[0, 1]], positions=[0, 1]), r"LoopTrack: times must have shape \(K,\), got \(1, 2\)"),
    (dict(times=[0], positions=[0]), r"LoopTrack: times must hold at least 2 keys, got 1"),
    (dict(times=[0, 1], positions=[0, 1, 2]), r"LoopTrack: positions must have shape \(2,\) or \(2, C\), got \(3,\)"),
    (dict(times=[0, 1], positions=np.empty((2, 0))), r"LoopTrack: positions must have at least 1 channel"),
    (dict(times=[0, 1], positions=[0, 1], interpolation="cubc"), r"^LoopTrack: interpolation is 'cubc' \(must be one of 'linear', 'cubic'; did you mean 'cubic'\?\)"),
    (dict(times=[0, 1], positions=[0, 1], up_axis=3), r"LoopTrack: up_axis is 3 \(must be 0, 1 or 2\)"),
    (dict(times=[0, 1], positions=[0, 1], up_axis=1.0), r"LoopTrack: up_axis must be an integer"),
    (dict(times=[0, 1], positions=[0, 1], max_cycles=0), r"LoopTrack: max_cycles is 0.0 \(must lie in \(0, 2\^50\]\)"),
    (dict(times=[0, 1], positions=[0, 1], max_cycles=np.inf), r"max_cycles is inf"),
    (dict(times=[0, 1], positions=[0, 1], max_cycles="x"), r"max_cycles must be a real number"),
    (dict(times=[0, 1], positions=[0, 1], rotations=[0, 1]), r"yaw rotations need positions of shape \(2, 2\) \(ground plane\) or \(2, 3\)"),
    (dict(times=[0, 1], positions=np.zeros((2, 4)), rotations=[0, 1]), r"yaw rotations need positions"),
    (dict(times=[0, 1], positions=np.zeros((2, 2)), rotations=[[0, 0, 0, 1]] * 2), r"quaternion rotations need positions of shape \(2, 3\), got \(2, 2\)"),
    (dict(times=[0, 1], positions=np.zeros((2, 3)), rotations=np.zeros((2, 3))), r"rotations must have shape \(2,\) \(yaw angles\) or \(2, 4\)"),
    (dict(times=[0, 1], positions=["a", "b"]), r"LoopTrack: positions must be real numbers"),
    (dict(times=[0.5, 1], positions=[0, 1]), r"LoopTrack: times at index \(0,\) is 0.5 \(must be 0: the clip starts at time 0\)"),
    (dict(times=[0, 1, 1], positions=[0, 1, 2]), r"^LoopTrack: times at index \(2,\) is 1.0, which equals times\[1\] = 1.0: key times must be sorted in strictly increasing order \(reorder every key array with order = np.argsort\(times"),
    (dict(times=[0, np.nan], positions=[0, 1]), r"LoopTrack: times at index \(1,\) is nan \(must be finite\)"),
    (dict(times=[0, 1], positions=[[0, 1], [np.inf, 0]]), r"LoopTrack: positions at index \(1, 0\) is inf \(must be finite\)"),
    (dict(times=[0, 1], positions=np.zeros((2, 2)), rotations=[0, np.nan]), r"LoopTrack: rotations at index \(1,\) is nan"),
    (dict(times=[0, 1], positions=np.zeros((2, 3)), rotations=[[0, 0, 0, 1], [0, 0, np.nan, 1]]), r"LoopTrack: rotations at index \(1, 2\) is nan"),
    (dict(times=[0, 1], positions=np.zeros((2, 3)), rotations=[[0, 0, 0, 1], [0, 0, 0, 0]]), r"^LoopTrack: rotations at index \(1, 0\) is 0.0 \(starts quaternion 1, of length 0 \(must be in \[1e-150, 1e150\]: it is normalized\)"),
])
def test_bad_track(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LoopTrack(**kwargs)


def test_track_overflow():
    with pytest.raises(OverflowError, match=r"LoopTrack: positions .* not representable"):
        LoopTrack([0, 1e-300, 1], [0, 1e300, 0], interpolation="cubic")


@pytest.mark.parametrize("call, match", [
    (lambda w: w.split([0, np.nan]), r"LoopTrack.split: t at index \(1,\) is nan \(must be finite\)"),
    (lambda w: w.split(1e6 + 1), r"LoopTrack.split: t is 1000001.0 \(must satisfy \|t/duration\| <= max_cycles=1000000 with duration=1\)"),
    (lambda w: w.split(-np.inf), r"t is -inf"),
    (lambda w: w.sample([0.5, 1.5]), r"LoopTrack.sample: phase at index \(1,\) is 1.5 \(must lie in \[0, 1\]\)"),
    (lambda w: w.sample(-0.1), r"phase is -0.1"),
    (lambda w: w.sample(np.nan), r"phase is nan \(must be finite\)"),
    (lambda w: w.delta([[0], [np.inf]], [0, 1]), r"LoopTrack.delta: t0 at index \(1, 0\) is inf \(must be finite\)"),
    (lambda w: w.delta(0, [0, -2e6]), r"LoopTrack.delta: t1 at index \(1,\) is -2000000.0 \(must satisfy"),
    (lambda w: w.delta([0, 1], [0, 1, 2]), r"LoopTrack.delta: cannot broadcast"),
    (lambda w: w.delta("a", 1), r"LoopTrack.delta: t0 must be real numbers"),
    (lambda w: w.split(1j), r"LoopTrack.split: t must be real numbers"),
])
def test_bad_calls(walk, call, match):
    with pytest.raises(ValueError, match=match):
        call(walk)


def test_max_cycles_is_respected():
    track = LoopTrack([0, 2.0], [0, 1.0], max_cycles=10)
    assert track.delta(-20.0, 20.0) == pytest.approx(20.0)
    with pytest.raises(ValueError, match=r"max_cycles=10 with duration=2"):
        track.delta(0, 20.5)


def test_properties_and_repr(walk):
    assert walk.channels == 1 and walk.rotation_kind == "none" and walk.interpolation == "linear"
    assert walk.up_axis == 1 and walk.max_cycles == 1e6 and walk.rotations is None
    np.testing.assert_array_equal(walk.times, ARTICLE_TIMES)
    assert "4 keys" in repr(walk) and "stride=2.0" in repr(walk)
    assert "rotations=yaw" in repr(square())
    assert walk(0.9, 1.1) == walk.delta(0.9, 1.1)
    cursor = RootMotionCursor(walk, 2.5)
    assert "cycle=2" in repr(cursor) and "phase=0.5" in repr(cursor)
    assert cursor.track is walk


@given(st.data())
def test_cursors_of_any_shape_match_delta(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    start = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-50, 50)))
    dt_shape = data.draw(hnp.broadcastable_shapes(shape, max_dims=len(shape), min_side=0))
    assume(np.broadcast_shapes(dt_shape, shape) == shape)
    dt = data.draw(hnp.arrays(np.float64, dt_shape, elements=st.floats(-5, 5)))
    track = LoopTrack(ARTICLE_TIMES, np.column_stack([ARTICLE_POSITIONS, ARTICLE_TIMES]))
    cursor = RootMotionCursor(track, start)
    got = cursor.advance(dt)
    assert got.shape == shape + (2,)
    np.testing.assert_allclose(got, track.delta(start, start + dt), rtol=0, atol=1e-9)
    np.testing.assert_allclose(cursor.time, np.broadcast_to(start + dt, shape), rtol=0, atol=1e-9)


def test_more_bad_arguments(walk):
    cursor = RootMotionCursor(walk, [0.0, 0.5])
    with pytest.raises(ValueError, match=r"RootMotionCursor.advance: dt must be real numbers"):
        cursor.advance("x")
    with pytest.raises(ValueError, match=r"RootMotionCursor.advance_to: out\[0\] has shape \(3,\), expected \(2,\)"):
        cursor.advance_to(1.0, out=np.empty(3))
    with pytest.raises(ValueError, match=r"LoopTrack: rotations must be real numbers"):
        LoopTrack([0, 1], np.zeros((2, 2)), rotations=["a", "b"])
    with pytest.raises(ValueError, match=r"LoopTrack.sample: phase must be real numbers"):
        walk.sample(None)
    np.testing.assert_array_equal(cursor.phase, [0.0, 0.5])



def test_public_api():
    for name in ["LoopTrack", "RootDelta", "RootMotionCursor", "RootPose"]:
        assert name in animcore.__all__ and getattr(animcore, name).__doc__


# -- JSON, scipy rotations, tool words ----------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    dict(times=[0, 0.25, 0.75, 1], positions=[0, 0.2, 1.7, 2]),
    dict(times=[0, 0.5, 1.2], positions=[[0, 0, 0], [0.1, 0, 0.5], [0.2, 0, 1.1]],
         interpolation="cubic", rotations=[0.0, 0.3, 0.5], up_axis=1, max_cycles=1e4),
    dict(times=[0, 0.5, 1.0], positions=np.zeros((3, 3)) + [[0], [1], [2]],
         rotations=[[0, 0, 0, 1.0], [0, 0.1, 0, 1.0], [0, 0.2, 0, 0.98]]),
])
def test_loop_track_to_dict_round_trips_through_json(kwargs):
    import json
    track = LoopTrack(**kwargs)
    again = LoopTrack.from_dict(json.loads(json.dumps(track.to_dict())))
    assert repr(again) == repr(track) and len(again) == len(track) == len(kwargs["times"])
    t0, t1 = np.linspace(-3, 2, 11), np.linspace(0.3, 7, 11)
    a, b = track.delta(t0, t1), again.delta(t0, t1)
    for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match=r"^LoopTrack.from_dict: data has unknown field "
                                         r"'rotation'; did you mean 'rotations'\?"):
        LoopTrack.from_dict(dict(track.to_dict(), rotation=[0, 0, 0]))


def test_loop_track_takes_scipy_rotations():
    from scipy.spatial.transform import Rotation
    rot = Rotation.from_euler("y", [[0.0], [0.4], [0.9]])
    positions = [[0, 0, 0], [0, 0, 1], [0.3, 0, 2]]
    a = LoopTrack([0, 0.5, 1], positions, rotations=rot).delta(0.2, 2.7)
    b = LoopTrack([0, 0.5, 1], positions, rotations=rot.as_quat()).delta(0.2, 2.7)
    np.testing.assert_array_equal(a.translation, b.translation)
    np.testing.assert_array_equal(a.rotation, b.rotation)


def test_loop_track_unsorted_times_and_tool_words():
    with pytest.raises(ValueError, match=r"^LoopTrack: times at index \(2,\) is 0.25, which is "
                                         r"less than times\[1\] = 0.5: key times must be sorted"):
        LoopTrack([0, 0.5, 0.25, 1], [0, 1, 2, 3])
    assert LoopTrack([0, 1], [0, 1], interpolation="LERP").interpolation == "linear"


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_cursor_out_untouched_when_the_motion_overflows(where):
    import copy
    n = 6000
    cursor = RootMotionCursor(LoopTrack([0.0, 1.0], [0.0, 1e300], max_cycles=1e9), np.zeros(n))
    before = copy.deepcopy(cursor)
    dt = np.full(n, 0.5)
    i = {"first": 0, "middle": n // 2, "last": n - 1}[where]
    dt[i] = 5e8
    out = _fill(np.empty(n))
    with pytest.raises(OverflowError, match=rf"^RootMotionCursor.advance: translation at index "
                                            rf"\({i},\) is inf \(is not representable"):
        cursor.advance(dt, out=out)
    _untouched(out)
    assert cursor == before


# -- the error contract: every message names the method called ---------------------------

@pytest.mark.parametrize("call, match", [
    (lambda w, out: w.delta(np.zeros(2), np.zeros(3), out=out[0]),
     r"^LoopTrack.delta: cannot broadcast t0 \(2,\), t1 \(3,\) together$"),
    (lambda w, out: w.delta([[0], [0, 1]], 0, out=out[0]),
     r"^LoopTrack.delta: t0 is a ragged nested sequence"),
    (lambda w, out: w.sample([[0], [0, 1]], out=out[0]),
     r"^LoopTrack.sample: phase is a ragged nested sequence"),
    (lambda w, out: square().delta(np.zeros(2), np.zeros(3), out=out),
     r"^LoopTrack.delta: cannot broadcast t0 \(2,\), t1 \(3,\) together$"),
])
def test_out_with_inputs_that_do_not_broadcast(walk, call, match):
    out = (np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match=match):
        call(walk, out)
    np.testing.assert_array_equal(out, 0)


def test_max_cycles_beyond_the_double_range_is_named():
    with pytest.raises(OverflowError, match=r"^LoopTrack: max_cycles is an integer of 401 digits "
                                            r"\(must be representable as float64"):
        LoopTrack([0, 1], [0, 1], max_cycles=10**400)
    with pytest.raises(ValueError, match=r"^LoopTrack: max_cycles must be a real number, got "
                                         r"'x'$"):
        LoopTrack([0, 1], [0, 1], max_cycles="x")


def test_an_empty_cursor_array_shows_in_html():
    cursor = RootMotionCursor(LoopTrack([0, 1], [0, 1]), np.zeros((0, 3)))
    html = cursor._repr_html_()
    assert "shape (0, 3)" in html and "cycles" not in html
    assert "cycles" in RootMotionCursor(LoopTrack([0, 1], [0, 1]), [0.5, 2.5])._repr_html_()


@pytest.mark.parametrize("data, kind, match", [
    (dict(times=[0], positions=[0]), ValueError, r"times must hold at least 2 keys, got 1"),
    (dict(times=[0, 1], positions=[0, 1], up_axis=1.0), ValueError,
     r"up_axis must be an integer, got 1.0"),
    (dict(times=[0, 1], positions=[0, 1], interpolation="step"), ValueError,
     r"interpolation is 'step'"),
    (dict(times=[0, 1], positions=[0, 1], max_cycles=10**400), OverflowError,
     r"max_cycles is an integer of 401 digits"),
])
def test_from_dict_names_itself(data, kind, match):
    with pytest.raises(kind, match=rf"^LoopTrack.from_dict: {match}"):
        LoopTrack.from_dict({"type": "LoopTrack", **data})
