import math
import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import animcore
from animcore import (PushResult, SampleMode, SampleResult, SnapshotBuffer, SnapshotTimeline,
                      Snapshots)

from reference import SnapshotModel, quat_power_slerp

ACCEPTED, OUT_OF_ORDER, INVALID = PushResult
ARTICLE = [(100, 0, 0.0), (102, 0, 2.0), (104, 1, 102.0), (106, 1, 104.0)]


def article_timeline(**kwargs):
    tl = SnapshotTimeline(**kwargs)
    for tick, segment, x in ARTICLE:
        assert tl.push(tick, segment, x) is ACCEPTED
    return tl


def state(obj, entity=None):
    """Everything observable about a timeline or one buffer slot."""
    snaps = obj.snapshots() if entity is None else obj.snapshots(entity)
    extra = (obj.pending,) if entity is None else (obj.generation(entity),)
    return tuple(None if a is None else np.array(a).tolist() for a in snaps) + extra


# -- article 003's figures -------------------------------------------------------

def test_article_interpolation():
    r = article_timeline().sample(101.5)
    assert r == SampleResult(1.5, None, SampleMode.INTERPOLATE, 100, 102)
    assert f"{r.position:.2f}" == "1.50"


def test_article_teleport_is_cut_not_ghost():
    r = article_timeline().sample(103.0)
    assert r.mode is SampleMode.SEGMENT_CUT
    assert r.position == 102.0 and (r.left_tick, r.right_tick) == (102, 104)
    # the naive interpolator's ghost position, as a regression
    naive = np.interp(103.0, [t for t, _, _ in ARTICLE], [x for _, _, x in ARTICLE])
    assert naive == 52.0 and r.position != naive


def test_article_late_snapshot_rejected_and_timeline_kept():
    tl = article_timeline()
    before = state(tl)
    assert tl.push(102, 0, 50.0) is OUT_OF_ORDER
    assert tl.push(102, 1, 50.0) is OUT_OF_ORDER
    assert state(tl) == before
    assert tl.sample(103).position == 102.0
    assert tl.sample(103).mode is SampleMode.SEGMENT_CUT


def test_empty_hold_oldest_hold_latest():
    tl = SnapshotTimeline()
    assert tl.sample(5) == SampleResult(0.0, None, SampleMode.EMPTY, 0, 0)
    tl = article_timeline()
    assert tl.sample(99) == SampleResult(0.0, None, SampleMode.HOLD_OLDEST, 100, 100)
    assert tl.sample(100) == SampleResult(0.0, None, SampleMode.HOLD_OLDEST, 100, 100)
    assert tl.sample(-1e300) .mode is SampleMode.HOLD_OLDEST
    assert tl.sample(106.5) == SampleResult(104.0, None, SampleMode.HOLD_LATEST, 106, 106)
    assert tl.sample(1e300).mode is SampleMode.HOLD_LATEST


def test_render_ticks_on_snapshots():
    tl = article_timeline()
    # (left, right]: a render tick on a snapshot belongs to the span ending there
    assert tl.sample(102) == SampleResult(2.0, None, SampleMode.INTERPOLATE, 100, 102)
    assert tl.sample(104) == SampleResult(102.0, None, SampleMode.SEGMENT_CUT, 102, 104)
    assert tl.sample(106) == SampleResult(104.0, None, SampleMode.INTERPOLATE, 104, 106)


def test_single_snapshot():
    tl = SnapshotTimeline(max_extrapolation=5)
    tl.push(7, 0, 3.0)
    assert tl.sample(6).mode is SampleMode.HOLD_OLDEST
    assert tl.sample(7).mode is SampleMode.HOLD_OLDEST
    assert tl.sample(8) == SampleResult(3.0, None, SampleMode.HOLD_LATEST, 7, 7)


def test_sample_many_matches_sample():
    tl = article_timeline()
    ticks = np.array([[99, 100.5, 101.5], [103, 105, 107]])
    r = tl.sample_many(ticks)
    assert r.position.shape == r.mode.shape == r.left_tick.shape == (2, 3)
    assert r.mode.dtype == np.uint8 and r.left_tick.dtype == np.int64 and r.rotation is None
    for idx in np.ndindex(ticks.shape):
        one = tl.sample(float(ticks[idx]))
        assert (r.position[idx], r.mode[idx], r.left_tick[idx], r.right_tick[idx]) == \
            (one.position, one.mode, one.left_tick, one.right_tick)
    empty = tl.sample_many(np.empty((0, 2)))
    assert empty.position.shape == (0, 2)


def test_vector_positions():
    tl = SnapshotTimeline(3)
    tl.push(0, 0, [0.0, 0.0, 0.0])
    tl.push(4, 0, np.array([4.0, -8.0, 2.0]))
    r = tl.sample(1)
    np.testing.assert_array_equal(r.position, [1.0, -2.0, 0.5])
    assert tl.sample_many([1, 2]).position.shape == (2, 3)
    assert tl.snapshots().position.shape == (2, 3)


# -- push rules ------------------------------------------------------------------

@pytest.mark.parametrize("tick, segment, x, expected", [
    (108, 1, np.nan, INVALID),
    (108, 1, np.inf, INVALID),
    (108, -1, 1.0, INVALID),
    (108, 0, 1.0, INVALID),           # segment lower than the newest
    (106, 1, 1.0, OUT_OF_ORDER),      # same tick
    (105, 2, 1.0, OUT_OF_ORDER),
    (100, 0, 1.0, OUT_OF_ORDER),      # late and lower segment: the tick is checked first
    (90, 1, np.nan, INVALID),         # bad data is checked before the tick
    (107, 1, 1.0, ACCEPTED),
    (107, 5, 1.0, ACCEPTED),          # segments may jump by more than one
    (2**32 - 1, 1, 1.0, ACCEPTED),
])
def test_push_rules(tick, segment, x, expected):
    tl = article_timeline()
    before = state(tl)
    assert tl.push(tick, segment, x) is expected
    if expected is not ACCEPTED:
        assert state(tl) == before


def test_push_many_in_order():
    tl = SnapshotTimeline()
    codes = tl.push_many([1, 3, 2, 5, 5, 7], [0, 0, 0, 1, 1, 0], [0, 1, 2, 3, np.nan, 4])
    assert codes.dtype == np.uint8
    # (5, nan): bad data is INVALID before its repeated tick is looked at
    assert codes.tolist() == [ACCEPTED, ACCEPTED, OUT_OF_ORDER, ACCEPTED, INVALID, INVALID]
    assert tl.snapshots().tick.tolist() == [1, 3, 5]
    assert tl.push_many([], [], np.empty(0)).shape == (0,)


def test_push_accepts_integer_valued_floats_and_numpy_scalars():
    tl = SnapshotTimeline()
    assert tl.push(np.uint32(5), np.int8(0), np.float32(1.5)) is ACCEPTED
    assert tl.push(6.0, 0, 2) is ACCEPTED
    assert tl.push(np.array(7), np.array(0), np.array([3.0])) is ACCEPTED
    assert tl.snapshots().tick.tolist() == [5, 6, 7]


# -- eviction ----------------------------------------------------------------------

def test_eviction_keeps_newest_and_holds_oldest_retained():
    tl = SnapshotTimeline(capacity=4)
    codes = tl.push_many(np.arange(10) * 2, 0, np.arange(10.0))
    assert (codes == ACCEPTED).all() and len(tl) == 4
    assert tl.snapshots().tick.tolist() == [12, 14, 16, 18]
    # older render ticks than the oldest retained snapshot: hold it
    assert tl.sample(3) == SampleResult(6.0, None, SampleMode.HOLD_OLDEST, 12, 12)
    assert tl.sample(13).position == 6.5
    # order is checked against the newest, not the evicted ones
    assert tl.push(15, 0, 0.0) is OUT_OF_ORDER
    assert tl.push(19, 0, 0.0) is ACCEPTED


def test_capacity_one():
    tl = SnapshotTimeline(capacity=1, max_extrapolation=10)
    tl.push(1, 0, 1.0)
    tl.push(2, 0, 2.0)
    assert len(tl) == 1
    assert tl.sample(0).position == 2.0 and tl.sample(5).mode is SampleMode.HOLD_LATEST


def test_eviction_ring_wraps_many_times():
    tl, model = SnapshotTimeline(capacity=5), SnapshotModel(capacity=5)
    for k in range(23):
        seg = k // 4
        assert tl.push(3 * k, seg, float(k)) == model.push(3 * k, seg, [float(k)])
    for t in np.arange(40, 70, 0.5):
        r, (pos, _, mode, left, right) = tl.sample(t), model.sample(t)
        assert (r.mode, r.left_tick, r.right_tick) == (mode, left, right)
        assert r.position == pytest.approx(pos[0], abs=1e-12)


# -- extrapolation -------------------------------------------------------------------

def test_extrapolation_bounded_then_held():
    tl = SnapshotTimeline(max_extrapolation=3)
    tl.push(0, 0, 0.0)
    tl.push(2, 0, 2.0)
    assert tl.sample(3) == SampleResult(3.0, None, SampleMode.EXTRAPOLATE, 0, 2)
    assert tl.sample(5) == SampleResult(5.0, None, SampleMode.EXTRAPOLATE, 0, 2)
    # past the limit: the value reached at the limit is held
    assert tl.sample(5.5) == SampleResult(5.0, None, SampleMode.HOLD_LATEST, 0, 2)
    assert tl.sample(1e9) == SampleResult(5.0, None, SampleMode.HOLD_LATEST, 0, 2)
    assert tl.sample(1.0).mode is SampleMode.INTERPOLATE


def test_no_extrapolation_across_a_cut():
    tl = article_timeline(max_extrapolation=4)
    assert tl.sample(108) == SampleResult(106.0, None, SampleMode.EXTRAPOLATE, 104, 106)
    tl.push(108, 2, 500.0)  # teleport: the newest segment has one snapshot
    assert tl.sample(110) == SampleResult(500.0, None, SampleMode.HOLD_LATEST, 108, 108)
    tl.push(110, 2, 501.0)
    assert tl.sample(111).position == 501.5


def test_extrapolation_default_off():
    assert article_timeline().sample(107).mode is SampleMode.HOLD_LATEST


def test_unrepresentable_extrapolation_holds():
    tl = SnapshotTimeline(max_extrapolation=100)
    tl.push(0, 0, -1.7e308)
    tl.push(1, 0, 1.7e308)
    r = tl.sample(50)
    assert r == SampleResult(1.7e308, None, SampleMode.HOLD_LATEST, 1, 1)
    mid = tl.sample(0.5)  # the difference overflows; interpolation stays finite
    assert mid.mode is SampleMode.INTERPOLATE and math.isfinite(mid.position)
    assert mid.position == pytest.approx(0.0, abs=1e293)


# -- reorder window ------------------------------------------------------------------

def test_reorder_window_releases_in_tick_order():
    tl = SnapshotTimeline(reorder_window=4)
    assert tl.push(10, 0, 10.0) is ACCEPTED
    assert tl.push(14, 0, 14.0) is ACCEPTED   # 10 released: 14 is 4 ahead
    assert tl.snapshots().tick.tolist() == [10] and tl.pending == 1
    assert tl.push(12, 0, 12.0) is ACCEPTED   # late, but within the window
    assert tl.push(12, 0, 12.0) is OUT_OF_ORDER  # a duplicate of a waiting tick
    assert tl.push(16, 0, 16.0) is ACCEPTED   # releases 12
    assert tl.snapshots().tick.tolist() == [10, 12]
    assert tl.push(11, 0, 11.0) is OUT_OF_ORDER  # older than what was released
    assert tl.push(13, 0, 13.0) is ACCEPTED   # waits: 16 is only 3 ahead
    assert tl.snapshots().tick.tolist() == [10, 12] and tl.pending == 3
    assert tl.sample(15).mode is SampleMode.HOLD_LATEST  # waiting ones are not sampled
    assert tl.flush() == 3 and tl.pending == 0
    assert tl.snapshots().tick.tolist() == [10, 12, 13, 14, 16]
    assert tl.sample(15).position == 15.0
    assert tl.push(15, 0, 0.0) is OUT_OF_ORDER
    assert tl.flush() == 0


def test_reorder_window_segment_order():
    tl = SnapshotTimeline(reorder_window=10)
    tl.push(10, 1, 0.0)
    tl.push(14, 3, 0.0)
    before = state(tl)
    assert tl.push(12, 0, 0.0) is INVALID  # lower than the snapshot before it
    assert tl.push(12, 4, 0.0) is INVALID  # higher than the snapshot after it
    assert state(tl) == before
    assert tl.push(12, 2, 0.0) is ACCEPTED
    tl.flush()
    assert tl.snapshots().segment.tolist() == [1, 2, 3]


def test_reorder_window_teleport_across_reordering():
    """Article scenario sent out of order: with W = 2 the timeline is rebuilt
    exactly; without a window the late snapshot is lost."""
    order = [ARTICLE[i] for i in (0, 2, 1, 3)]
    with_window, without = SnapshotTimeline(reorder_window=2), SnapshotTimeline()
    for tick, seg, x in order:
        with_window.push(tick, seg, x)
        without.push(tick, seg, x)
    with_window.flush()
    assert with_window.snapshots().tick.tolist() == [100, 102, 104, 106]
    assert with_window.sample(101.5).position == 1.5
    assert with_window.sample(103).position == 102.0
    assert without.snapshots().tick.tolist() == [100, 104, 106]
    assert without.sample(103).mode is SampleMode.SEGMENT_CUT  # still no ghost


def test_zero_window_is_the_article():
    a, b = article_timeline(), article_timeline(reorder_window=0)
    assert b.pending == 0 and b.flush() == 0
    assert state(a) == state(b)


# -- random sequences against the plain-Python model ---------------------------------

def random_stream(rng, n, dim, rotations, tick_span=6):
    tick = rng.integers(0, 1000)
    seg = 0
    for _ in range(n):
        tick = max(0, tick + int(rng.integers(-tick_span // 2, tick_span)))
        if rng.random() < 0.15:
            seg += int(rng.integers(1, 3))
        s = seg - int(rng.random() < 0.05) if seg else seg - int(rng.random() < 0.03)
        pos = rng.normal(0, 10, dim)
        if rng.random() < 0.03:
            pos[rng.integers(dim)] = rng.choice([np.nan, np.inf])
        rot = rng.normal(size=4) if rotations else None
        if rotations and rng.random() < 0.03:
            rot = np.zeros(4)
        yield tick, s, pos, rot


def check_sample(got, want, dim, rotations):
    pos, rot, mode, left, right = want
    assert (int(got.mode), int(got.left_tick), int(got.right_tick)) == (mode, left, right)
    np.testing.assert_allclose(np.atleast_1d(got.position), pos, rtol=1e-12, atol=1e-9)
    if rotations:
        np.testing.assert_allclose(got.rotation, rot, rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_random_sequences_against_model(seed):
    rng = np.random.default_rng(seed)
    dim = int(rng.integers(1, 4))
    kwargs = dict(capacity=int(rng.integers(1, 9)), rotations=bool(rng.integers(2)),
                  max_extrapolation=float(rng.choice([0, 0, 1.5, 4])),
                  reorder_window=int(rng.choice([0, 0, 1, 3])))
    tl, model = SnapshotTimeline(dim, **kwargs), SnapshotModel(dim, **kwargs)
    for i, (tick, seg, pos, rot) in enumerate(random_stream(rng, 120, dim, kwargs["rotations"])):
        p = pos if dim > 1 else float(pos[0])
        assert tl.push(tick, seg, p, rot) == model.push(tick, seg, pos, rot), i
        if i % 7 == 0:
            newest = model.history[-1][0] if model.history else 1000
            for t in np.concatenate([rng.uniform(newest - 12, newest + 6, 6), [newest, newest - 1]]):
                check_sample(tl.sample(float(t)), model.sample(float(t)), dim, kwargs["rotations"])
        if i % 40 == 39:
            assert tl.flush() == model.flush()
        assert len(tl) == len(model.retained()) and tl.pending == len(model.pending)


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(-1, 3), st.floats(-1e6, 1e6)),
                max_size=30),
       st.integers(1, 6), st.sampled_from([0, 2.5]), st.integers(0, 3),
       st.lists(st.floats(-5, 50), min_size=1, max_size=10))
def test_property_against_model(pushes, capacity, extrapolation, window, ticks):
    tl = SnapshotTimeline(capacity=capacity, max_extrapolation=extrapolation,
                          reorder_window=window)
    model = SnapshotModel(1, capacity, False, extrapolation, window)
    for tick, seg, x in pushes:
        assert tl.push(tick, seg, x) == model.push(tick, seg, [x])
    for t in ticks:
        check_sample(tl.sample(t), model.sample(t), 1, False)


# -- rotations -------------------------------------------------------------------------

def axis_angle(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.append(axis * math.sin(angle / 2), math.cos(angle / 2))


def test_rotation_shortest_arc_q_and_minus_q():
    a, b = axis_angle([0, 0, 1], 0.0), axis_angle([0, 0, 1], math.radians(90))
    plus, minus = SnapshotTimeline(rotations=True), SnapshotTimeline(rotations=True)
    for tl, q in ((plus, b), (minus, -b)):
        tl.push(0, 0, 0.0, a)
        tl.push(10, 0, 1.0, q)
    for t in (2.5, 5.0, 7.5):
        r1, r2 = plus.sample(t).rotation, minus.sample(t).rotation
        want = axis_angle([0, 0, 1], math.radians(90) * t / 10)
        # the same rotation either way (up to sign), along the 90 degree arc
        assert abs(abs(np.dot(r1, r2)) - 1) < 1e-12
        assert abs(abs(np.dot(r1, want)) - 1) < 1e-12


def test_rotation_slerp_against_scipy():
    Rotation = pytest.importorskip("scipy.spatial.transform").Rotation
    Slerp = pytest.importorskip("scipy.spatial.transform").Slerp
    rng = np.random.default_rng(5)
    qs = Rotation.random(6, random_state=7).as_quat()  # (x, y, z, w)
    tl = SnapshotTimeline(rotations=True)
    tl.push_many(np.arange(6) * 4, 0, np.zeros(6), qs * rng.uniform(0.5, 3, (6, 1)))
    t = rng.uniform(0, 20, 50)
    got = Rotation.from_quat(tl.sample_many(t).rotation)
    want = Slerp(np.arange(6) * 4.0, Rotation.from_quat(qs))(t)
    assert np.all((got.inv() * want).magnitude() < 1e-9)


def test_scipy_rotations_accepted():
    Rotation = pytest.importorskip("scipy.spatial.transform").Rotation
    rot = Rotation.random(3, random_state=4)
    a, b = SnapshotTimeline(rotations=True), SnapshotTimeline(rotations=True)
    a.push_many([0, 2, 4], 0, np.zeros(3), rot)
    b.push_many([0, 2, 4], 0, np.zeros(3), rot.as_quat())
    assert a.push(6, 0, 0.0, rot[0]) is ACCEPTED
    b.push(6, 0, 0.0, rot[0].as_quat())
    t = np.linspace(0, 6, 13)
    np.testing.assert_array_equal(a.sample_many(t).rotation, b.sample_many(t).rotation)
    buffer = SnapshotBuffer(2, 1, rotations=True)
    buffer.push([0, 1], [0, 0], [0, 0], np.zeros(2), rot[:2])
    np.testing.assert_allclose(buffer.sample(0.0).rotation, rot[:2].as_quat(), atol=1e-15)


def test_rotations_stored_normalized_and_validated():
    tl = SnapshotTimeline(rotations=True, max_extrapolation=2)
    assert tl.push(0, 0, 0.0, [0, 0, 0, 2.0]) is ACCEPTED
    np.testing.assert_array_equal(tl.snapshots().rotation, [[0, 0, 0, 1.0]])
    before = state(tl)
    for bad in ([0, 0, 0, 0.0], [np.nan, 0, 0, 1], [0, np.inf, 0, 1]):
        assert tl.push(1, 0, 0.0, bad) is INVALID
    assert state(tl) == before
    assert tl.push(1, 0, 0.0, [1e-300, 0, 0, 0]) is ACCEPTED  # tiny but a direction
    assert tl.push(2, 0, 0.0, [0, 1e300, 0, 1e300]) is ACCEPTED
    np.testing.assert_allclose(tl.snapshots().rotation[-1], [0, 2**-0.5, 0, 2**-0.5])
    assert tl.sample(-1).rotation.tolist() == [0, 0, 0, 1.0]
    assert SnapshotTimeline(rotations=True).sample(0).rotation.tolist() == [0, 0, 0, 1.0]


def test_rotation_extrapolation_continues_the_arc():
    tl = SnapshotTimeline(rotations=True, max_extrapolation=4)
    tl.push(0, 0, 0.0, axis_angle([1, 0, 0], 0.0))
    tl.push(2, 0, 0.0, axis_angle([1, 0, 0], 0.2))
    r = tl.sample(4)
    assert r.mode is SampleMode.EXTRAPOLATE
    assert abs(abs(np.dot(r.rotation, axis_angle([1, 0, 0], 0.4))) - 1) < 1e-12
    np.testing.assert_allclose(np.abs(r.rotation), np.abs(quat_power_slerp(
        axis_angle([1, 0, 0], 0.0), axis_angle([1, 0, 0], 0.2), 2.0)), atol=1e-12)


# -- the batched buffer ------------------------------------------------------------------

def test_buffer_article_two_entities():
    buf = SnapshotBuffer(2, dim=1)
    for tick, seg, x in ARTICLE:
        codes = buf.push([0, 1], tick, [seg, 0], [[x], [x + 1]])
        assert codes.tolist() == [ACCEPTED, ACCEPTED]
    r = buf.sample(103)
    assert r.position.shape == (2, 1) and r.rotation is None
    assert r.position[:, 0].tolist() == [102.0, 53.0]
    assert r.mode.tolist() == [SampleMode.SEGMENT_CUT, SampleMode.INTERPOLATE]
    assert r.left_tick.tolist() == [102, 102] and r.right_tick.tolist() == [104, 104]
    assert buf.push(0, 102, 0, [50.0]) is OUT_OF_ORDER
    assert buf.sample(103).position[0, 0] == 102.0


def test_buffer_equals_per_entity_timelines():
    rng = np.random.default_rng(11)
    entities, dim = 7, 3
    kwargs = dict(capacity=5, rotations=True, max_extrapolation=3)
    buf = SnapshotBuffer(entities, dim, **kwargs)
    tls = [SnapshotTimeline(dim, **kwargs) for _ in range(entities)]
    for _ in range(40):
        n = int(rng.integers(0, 12))
        ent = rng.integers(0, entities, n)  # repeats apply in order
        tick = rng.integers(0, 60, n) + _ * 3
        seg = rng.integers(0, 3, n) + _ // 8
        pos = rng.normal(size=(n, dim))
        pos[rng.random(n) < 0.05, 0] = np.nan
        rot = rng.normal(size=(n, 4))
        codes = buf.push(ent, tick, seg, pos, rot)
        want = [tls[e].push(int(t), int(s), p, q) for e, t, s, p, q in zip(ent, tick, seg, pos, rot)]
        assert codes.tolist() == want
        for t in rng.uniform(0, 200, 3):
            got = buf.sample(t)
            for e in range(entities):
                one = tls[e].sample(t)
                assert got.mode[e] == one.mode and got.left_tick[e] == one.left_tick
                assert got.right_tick[e] == one.right_tick
                np.testing.assert_array_equal(got.position[e], one.position)
                np.testing.assert_array_equal(got.rotation[e], one.rotation)
    np.testing.assert_array_equal(buf.counts, [len(tl) for tl in tls])


def test_buffer_same_entity_twice_in_one_call():
    buf = SnapshotBuffer(2, 1)
    codes = buf.push([0, 0, 0, 1], [5, 7, 6, 6], 0, [1.0, 2.0, 3.0, 4.0])
    assert codes.tolist() == [ACCEPTED, ACCEPTED, OUT_OF_ORDER, ACCEPTED]
    assert buf.snapshots(0).tick.tolist() == [5, 7]


def test_buffer_generations():
    buf = SnapshotBuffer(2, 1, capacity=4)
    buf.push(0, [10, 12], 3, [1.0, 2.0])
    before = state(buf, 0)
    assert buf.push(0, 20, 5, [np.nan], generation=1) is INVALID  # rejected: no reset
    assert state(buf, 0) == before
    # a re-used network id: the new owner starts over, even at lower ticks and segments
    assert buf.push(0, 1, 0, [100.0], generation=1) is ACCEPTED
    assert buf.generation(0) == 1 and buf.snapshots(0).tick.tolist() == [1]
    assert buf.push(0, 50, 9, [0.0], generation=0) is INVALID  # the old owner, late
    assert buf.push(0, 1, 0, [0.0], generation=1) is OUT_OF_ORDER
    assert buf.push(0, 3, 0, [102.0], generation=1) is ACCEPTED
    assert buf.sample(2).position[0, 0] == 101.0
    assert buf.generation(1) == 0 and buf.counts.tolist() == [2, 0]
    # per-item generations in one call, applied in order
    codes = buf.push([1, 1, 1], [5, 6, 1], 0, [[0.0]] * 3, generation=[0, 0, 2])
    assert codes.tolist() == [ACCEPTED, ACCEPTED, ACCEPTED] and buf.counts[1] == 1


def test_buffer_empty_and_zero_entities():
    buf = SnapshotBuffer(3, rotations=True)
    r = buf.sample(0)
    assert r.mode.tolist() == [SampleMode.EMPTY] * 3
    np.testing.assert_array_equal(r.position, 0.0)
    np.testing.assert_array_equal(r.rotation, [[0, 0, 0, 1.0]] * 3)
    none = SnapshotBuffer(0)
    assert none.sample(1.0).position.shape == (0, 3)
    assert none.push([], [], [], np.empty((0, 3))).shape == (0,)


def test_buffer_sample_out():
    buf = SnapshotBuffer(2, 2, rotations=True)
    buf.push([0, 1], 4, 0, [[1, 2], [3, 4]], [0, 0, 0, 1])
    out = (np.empty((2, 2)), np.empty((2, 4)), np.empty(2, np.uint8), np.empty(2, np.int64),
           np.empty(2, np.int64))
    r = buf.sample(5.0, out=out)
    assert all(a is b for a, b in zip(r, out))
    np.testing.assert_array_equal(out[0], [[1, 2], [3, 4]])
    kept = [a.copy() for a in out]
    with pytest.raises(ValueError, match=r"render_tick is nan"):
        buf.sample(np.nan, out=out)
    for a, b in zip(out, kept):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("out, match", [
    ((np.empty((2, 2)),), r"out must be a tuple of 5 arrays"),
    ((np.empty((2, 3)), None, np.empty(2, np.uint8), np.empty(2, np.int64), np.empty(2, np.int64)),
     r"^SnapshotBuffer.sample: out\[0\] has shape \(2, 3\), expected \(2, 2\)$"),
    ((np.empty((2, 2)), np.empty((2, 4)), np.empty(2, np.uint8), np.empty(2, np.int64),
      np.empty(2, np.int64)), r"out\[1\] must be None without rotations"),
    ((np.empty((2, 2)), None, np.empty(2), np.empty(2, np.int64), np.empty(2, np.int64)),
     r"^SnapshotBuffer.sample: out\[2\] has dtype float64, expected an integer dtype that "
     r"holds every uint8 value$"),
    ((np.empty((2, 2)), None, np.empty(2, np.uint8), np.empty(2, np.int16), np.empty(2, np.int64)),
     r"^SnapshotBuffer.sample: out\[3\] has dtype int16, expected an integer dtype that holds "
     r"every int64 value$"),  # (a tick of 100000 wrapped to -31072)
    ((np.empty((2, 2)), None, [0, 0], np.empty(2, np.int64), np.empty(2, np.int64)),
     r"^SnapshotBuffer.sample: out\[2\] must be a numpy array, got list$"),
    ((np.empty((4, 2))[::2], None, np.empty(2, np.uint8), np.empty(2, np.float64),
      np.empty(2, np.int64)), r"^SnapshotBuffer.sample: out\[3\] has dtype float64, expected an "
                              r"integer dtype that holds every int64 value$"),
])
def test_buffer_bad_out(out, match):
    buf = SnapshotBuffer(2, 2)
    with pytest.raises(ValueError, match=match):
        buf.sample(0.0, out=out)


def test_buffer_sample_out_any_layout():
    """Strided, misaligned and float32/wider integer outputs are written like
    any other function's out=, and left untouched on error."""
    buf = SnapshotBuffer(2, 2, rotations=True)
    buf.push([0, 1], 4, 0, [[1, 2], [3, 4]], [0, 0, 0, 1])
    expected = buf.sample(5.0)
    raw = bytearray(2 * 4 * 8 + 1)
    misaligned = np.frombuffer(raw, np.float64, count=8, offset=1).reshape(2, 4)
    out = (np.zeros((2, 4))[:, ::2], misaligned, np.zeros(2, np.int16),
           np.zeros((2, 3), np.int64)[:, 1], np.zeros((2, 2), np.int64)[:, 0])
    assert not misaligned.flags.aligned
    r = buf.sample(5.0, out=out)
    assert all(a is b for a, b in zip(r, out))
    for a, b in zip(out, expected):
        np.testing.assert_array_equal(a, b)
    kept = [a.copy() for a in out]
    with pytest.raises(ValueError, match=r"SnapshotBuffer.sample: render_tick is nan"):
        buf.sample(np.nan, out=out)
    for a, b in zip(out, kept):
        np.testing.assert_array_equal(a, b)
    position = np.zeros((2, 2), np.float32)
    buf.sample(5.0, out=(position, np.zeros((2, 4)), np.zeros(2, np.uint8),
                         np.zeros(2, np.int64), np.zeros(2, np.int64)))
    np.testing.assert_array_equal(position, expected.position.astype(np.float32))


def test_sample_out_indices_and_fresh_entries():
    """out= of a sample is five arrays whatever the object: the binding's
    messages name the caller's index, with or without rotations, and a None
    entry (the rotation's, without rotations) gets a fresh array."""
    tl = SnapshotTimeline(2)
    tl.push(0, 0, [0.0, 1.0])
    ticks = np.array([0.0, 1.0, 2.0])
    out = (np.empty((3, 2)), None, np.empty(3, np.uint8), np.empty(2, np.int64),
           np.empty(3, np.int64))
    with pytest.raises(ValueError, match=r"^SnapshotTimeline.sample_many: out\[3\] has shape "
                                         r"\(2,\), expected \(3,\)$"):
        tl.sample_many(ticks, out=out)
    with pytest.raises(ValueError, match=r"^SnapshotTimeline.sample_many: out must be a tuple "
                                         r"of 5 arrays \(position, rotation or None, mode"):
        tl.sample_many(ticks, out=list(out))
    buf = SnapshotBuffer(2, 2, rotations=True)
    buf.push([0, 1], 4, 0, [[1, 2], [3, 4]], [0, 0, 0, 1])
    expected = buf.sample(5.0)
    with pytest.raises(ValueError, match=r"^SnapshotBuffer.sample: out\[1\] has shape \(2, 3\), "
                                         r"expected \(2, 4\)$"):
        buf.sample(5.0, out=(None, np.empty((2, 3)), None, None, None))
    position = np.empty((2, 2))
    got = buf.sample(5.0, out=(position, None, None, None, None))
    assert got.position is position
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)


def test_buffer_readonly_out():
    buf = SnapshotBuffer(2, 2)
    ro = np.empty(2, np.int64)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"out\[4\] is read-only"):
        buf.sample(0.0, out=(np.empty((2, 2)), None, np.empty(2, np.uint8), np.empty(2, np.int64), ro))


def test_buffer_broadcasting_and_noncontiguous_input():
    buf, ref = SnapshotBuffer(4, 2), SnapshotBuffer(4, 2)
    pos = np.arange(16.0).reshape(4, 4)[:, ::2]  # non-contiguous view
    ticks = np.array([9, 9, 9, 9, 9, 9], dtype=np.int16)[::2]
    codes = buf.push(np.arange(3), ticks, np.int8(1), pos[:3])
    assert codes.tolist() == [ACCEPTED] * 3
    ref.push([0, 1, 2], [9, 9, 9], [1, 1, 1], np.ascontiguousarray(pos[:3]))
    np.testing.assert_array_equal(buf.sample(9).position, ref.sample(9).position)
    assert buf.push(3, 1, 0, [1.0, 2.0]) is ACCEPTED  # one position for one entity


def test_inputs_not_modified():
    ent, tick, seg = np.array([0, 1]), np.array([3, 4]), np.array([0, 0])
    pos, rot = np.array([[np.nan, 1.0], [2.0, 3.0]]), np.array([[0, 0, 0, 5.0], [0, 0, 3.0, 0]])
    keep = [a.copy() for a in (ent, tick, seg, pos, rot)]
    SnapshotBuffer(2, 2, rotations=True).push(ent, tick, seg, pos, rot)
    for a, b in zip((ent, tick, seg, pos, rot), keep):
        np.testing.assert_array_equal(a, b)
    t = np.array([1.0, 2.0])
    SnapshotTimeline().sample_many(t)
    assert t.tolist() == [1.0, 2.0]


# -- bad input: a ValueError, and nothing changed ------------------------------------------

@pytest.mark.parametrize("args, match", [
    ((-1, 0, 1.0), r"SnapshotTimeline.push: tick is -1 \(must be an integer in \[0, 4294967295\]\)"),
    ((2**32, 0, 1.0), r"tick is 4294967296\b"),
    ((2**70, 0, 1.0), r"tick is 1180591620717411303424 \(must fit in int64\)"),
    ((1.5, 0, 1.0), r"SnapshotTimeline.push: tick is 1.5 \(must be an integer\)"),
    ((np.nan, 0, 1.0), r"tick is nan \(must be an integer\)"),
    (("7", 0, 1.0), r"tick must be integers, got an array of dtype <U1"),
    ((200, 0.5, 1.0), r"segment is 0.5 \(must be an integer\)"),
    ((200, 1, [1.0, 2.0]), r"one snapshot expected, got arrays of shape \(2,\); use push_many"),
    ((200, 1, [[1.0, 2.0]]), r"one snapshot expected, got arrays of shape \(1, 2\)"),
    ((200, 1, "x"), r"position must be real numbers"),
    ((200, 1, 1.0, [0, 0, 0, 1]), r"rotation given, but created with rotations=False"),
    (([200, 201], 1, 1.0), r"tick must be a single value; use push_many"),
])
def test_timeline_push_bad_input(args, match):
    tl = article_timeline()
    before = state(tl)
    with pytest.raises(ValueError, match=match):
        tl.push(*args)
    assert state(tl) == before


_Q = np.array([0.0, 0.0, 0.0, 1.0])


@pytest.mark.parametrize("args, match", [
    ((5, 0, np.zeros((2, 3)), _Q), r"^SnapshotTimeline.push: one snapshot expected, got arrays "
                                   r"of shape \(2,\); use push_many$"),
    ((5, 0, np.zeros(3), np.tile(_Q, (2, 1))), r"one snapshot expected, got arrays of shape \(2,\)"),
    ((5, 0, np.zeros((1, 3)), _Q), r"one snapshot expected, got arrays of shape \(1,\)"),
    ((5, 0, np.zeros(2), _Q), r"^SnapshotTimeline.push: position must have a last axis of "
                              r"length 3, got shape \(2,\)$"),
    ((5, 0, np.zeros(3), np.zeros(3)), r"rotation must have a last axis of length 4, got shape"),
    ((2**32, 0, np.zeros(3), _Q), r"^SnapshotTimeline.push: tick is 4294967296 \(must be an "
                                  r"integer in \[0, 4294967295\]\)$"),
    ((np.array([5, 6]), 0, np.zeros(3), _Q), r"^SnapshotTimeline.push: tick must be a single "
                                             r"value; use push_many$"),
    ((5, [0, 0], np.zeros(3), _Q), r"segment must be a single value; use push_many"),
    ((5, 0, np.zeros(3), None), r"SnapshotTimeline.push: rotation is required"),
])
def test_timeline_push_bad_arrays(args, match):
    """Array arguments of a single push go to the binding as they are; what it
    refuses reads as from the shapes, and nothing changes."""
    tl = SnapshotTimeline(3, rotations=True)
    tl.push(1, 0, np.ones(3), _Q)
    before = state(tl)
    with pytest.raises(ValueError, match=match):
        tl.push(*args)
    assert state(tl) == before


@pytest.mark.parametrize("args, match", [
    ((5, 0, np.zeros((2, 3))), r"^SnapshotTimeline.push: one snapshot expected, got arrays of "
                               r"shape \(2,\); use push_many$"),
    ((5, 0, np.zeros(4)), r"position must have a last axis of length 3, got shape \(4,\)$"),
    ((-1, 0, np.zeros(3)), r"^SnapshotTimeline.push: tick is -1 \(must be an integer in"),
    ((5, 0, np.zeros(3), _Q), r"rotation given, but created with rotations=False"),
])
def test_timeline_push_bad_arrays_without_rotations(args, match):
    tl = SnapshotTimeline(3)
    tl.push(1, 0, np.ones(3))
    before = state(tl)
    with pytest.raises(ValueError, match=match):
        tl.push(*args)
    assert state(tl) == before


def test_timeline_push_many_bad_input_applies_nothing():
    tl = article_timeline()
    before = state(tl)
    with pytest.raises(ValueError, match=r"push_many: tick at index \(2,\) is 4294967296\b"):
        tl.push_many([200, 201, 2**32], 1, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"push_many: tick at index \(1,\) is 2.5"):
        tl.push_many([200, 2.5], 1, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"cannot broadcast tick \(3,\), segment \(2,\)"):
        tl.push_many([200, 201, 202], [1, 1], [1.0, 2.0, 3.0])
    assert state(tl) == before


def test_vector_position_shape():
    tl = SnapshotTimeline(3)
    with pytest.raises(ValueError, match=r"position must have a last axis of length 3, got shape \(2,\)"):
        tl.push(1, 0, [1.0, 2.0])
    assert len(tl) == 0


def test_rotation_required():
    tl = SnapshotTimeline(rotations=True)
    with pytest.raises(ValueError, match=r"SnapshotTimeline.push: rotation is required"):
        tl.push(1, 0, 1.0)
    with pytest.raises(ValueError, match=r"rotation must have a last axis of length 4, got shape \(3,\)"):
        tl.push(1, 0, 1.0, [0, 0, 1])
    assert len(tl) == 0


@pytest.mark.parametrize("args, kwargs, match", [
    ((5, 0, 0, [1.0, 2.0, 3.0]), {}, r"SnapshotBuffer.push: entity is 5 \(must lie in \[0, entities=3\)\)"),
    (([0, 1, -1], 0, 0, [1.0, 2.0, 3.0]), {}, r"entity at index \(2,\) is -1\b"),
    (([0, 1], [5, -5], 0, [1.0, 2.0, 3.0]), {}, r"SnapshotBuffer.push: tick at index \(1,\) is -5\b"),
    (([0, 1], 5, 0, [1.0, 2.0]), {}, r"position must have a last axis of length 3"),
    (([0, 1], 5, 0, np.ones((3, 3))), {}, r"cannot broadcast entity \(2,\).*position \(3,\)"),
    (([0.5], 5, 0, [1.0, 2.0, 3.0]), {}, r"entity at index \(0,\) is 0.5 \(must be an integer\)"),
    (([0], 5, 0, [1.0, 2.0, 3.0]), {"generation": 1.5}, r"generation is 1.5"),
    (([0], 5, 0, [1.0, 2.0, 3.0]), {"rotation": [0, 0, 0, 1]}, r"rotation given"),
])
def test_buffer_push_bad_input_applies_nothing(args, kwargs, match):
    buf = SnapshotBuffer(3)
    buf.push([0, 1, 2], 1, 0, np.zeros((3, 3)))
    before = [state(buf, e) for e in range(3)]
    with pytest.raises(ValueError, match=match):
        buf.push(*args, **kwargs)
    assert [state(buf, e) for e in range(3)] == before


def test_buffer_rotation_required_applies_nothing():
    buf = SnapshotBuffer(2, 1, rotations=True)
    buf.push([0, 1], 1, 0, [[0.0], [1.0]], [0, 0, 0, 1])
    before = [state(buf, e) for e in range(2)]
    with pytest.raises(ValueError, match=r"SnapshotBuffer.push: rotation is required \(created "
                                         r"with rotations=True\)"):
        buf.push([0, 1], 2, 0, [[0.0], [1.0]])
    with pytest.raises(ValueError, match=r"rotation must have a last axis of length 4, got "
                                         r"shape \(2, 3\)"):
        buf.push([0, 1], 2, 0, [[0.0], [1.0]], np.zeros((2, 3)))
    assert [state(buf, e) for e in range(2)] == before


@pytest.mark.parametrize("call, match", [
    (lambda tl: tl.sample(np.nan), r"SnapshotTimeline.sample: render_tick is nan \(must be finite\)"),
    (lambda tl: tl.sample(np.inf), r"render_tick is inf"),
    (lambda tl: tl.sample([1.0]), r"render_tick must be a single value; use sample_many"),
    (lambda tl: tl.sample("a"), r"render_tick must be real numbers"),
    (lambda tl: tl.sample_many([[1.0, 2.0], [np.nan, 3.0]]),
     r"SnapshotTimeline.sample_many: render_tick at index \(1, 0\) is nan"),
])
def test_sample_bad_input(call, match):
    tl = article_timeline()
    before = state(tl)
    with pytest.raises(ValueError, match=match):
        call(tl)
    assert state(tl) == before


def test_buffer_sample_bad_input():
    buf = SnapshotBuffer(2)
    with pytest.raises(ValueError, match=r"SnapshotBuffer.sample: render_tick is -inf"):
        buf.sample(-np.inf)
    with pytest.raises(ValueError, match=r"render_tick must be a single value, got shape \(2,\)"):
        buf.sample([1.0, 2.0])


@pytest.mark.parametrize("make, match", [
    (lambda: SnapshotTimeline(0), r"SnapshotTimeline: dim is 0 \(must lie in \[1, 1024\]\)"),
    (lambda: SnapshotTimeline(capacity=0), r"capacity is 0 \(must lie in \[1, 16777216\]\)"),
    (lambda: SnapshotTimeline(capacity=2**25), r"capacity is 33554432\b"),
    (lambda: SnapshotTimeline(max_extrapolation=-1), r"max_extrapolation is -1.0 \(must be finite and >= 0\)"),
    (lambda: SnapshotTimeline(max_extrapolation=np.nan), r"max_extrapolation is nan"),
    (lambda: SnapshotTimeline(max_extrapolation="x"), r"max_extrapolation must be a real number"),
    (lambda: SnapshotTimeline(reorder_window=70000), r"reorder_window is 70000\b \(must lie in \[0, 65536\]\)"),
    (lambda: SnapshotTimeline(reorder_window=-1), r"SnapshotTimeline: reorder_window is -1 \(must be >= 0\)"),
    (lambda: SnapshotTimeline(dim=1.5), r"SnapshotTimeline: dim must be an integer, got 1.5"),
    (lambda: SnapshotBuffer(-1), r"SnapshotBuffer: entities is -1 \(must be >= 0\)"),
    (lambda: SnapshotBuffer(3, 2000), r"SnapshotBuffer: dim is 2000\b"),
    (lambda: SnapshotBuffer(2**62, 3), r"SnapshotBuffer: entities is 4611686018427387904 \(needs more memory"),
])
def test_constructor_bad_input(make, match):
    with pytest.raises((ValueError, MemoryError), match=match):
        make()


def test_buffer_snapshots_bad_entity():
    with pytest.raises(ValueError, match=r"SnapshotBuffer.snapshots: entity is 3 \(must lie in \[0, entities=3\)\)"):
        SnapshotBuffer(3).snapshots(3)


def test_concurrent_sampling_and_pushing_is_safe():
    buf = SnapshotBuffer(20000, 3)
    ent = np.arange(20000)
    errors, refused = [], []

    def sampler():
        for _ in range(20):
            try:
                buf.sample(5.0)
            except RuntimeError as error:  # refused while a push runs without the GIL
                refused.append(str(error))

    thread = threading.Thread(target=sampler)
    thread.start()
    applied = []
    for k in range(20):
        try:
            buf.push(ent, k, 0, np.full((20000, 3), float(k)))
            applied.append(k)
        except RuntimeError as error:  # refused while another thread samples
            errors.append(str(error))
    thread.join()
    assert all("another thread is sampling" in e for e in errors)
    assert all("another thread is pushing" in e for e in refused)
    # a refused push applies nothing; every other one is whole, for every entity
    assert len(applied) + len(errors) == 20
    assert (buf.push(ent, 20, 0, np.full((20000, 3), 20.0)) == ACCEPTED).all()
    applied.append(20)
    np.testing.assert_array_equal(buf.counts, len(applied))
    assert buf.snapshots(0).tick.tolist() == buf.snapshots(19999).tick.tolist() == applied
    last = buf.sample(float(applied[-1]))
    np.testing.assert_array_equal(last.position, float(applied[-1]))


class _Unreadable(Exception):
    pass


@pytest.mark.parametrize("many", [False, True])
@pytest.mark.parametrize("rotations", [False, True])
def test_push_holds_the_object_only_once_its_arguments_are_read(rotations, many):
    """A push whose position is slow to convert, or cannot be converted, does
    not hold the timeline meanwhile: another thread samples and pushes it, and
    after the failure it works as before, from any thread."""
    tl = SnapshotTimeline(3, rotations=rotations)
    q = [[0.0, 0.0, 0.0, 1.0]] if rotations else []
    entered, go = threading.Event(), threading.Event()

    class Slow:
        def __array__(self, dtype=None, copy=None):
            entered.set()
            go.wait(10)
            return np.array([[4.0, 0.0, 0.0]] if many else [4.0, 0.0, 0.0])

    class Broken:
        def __array__(self, dtype=None, copy=None):
            raise _Unreadable("cannot be read")

    def push(tick, position):
        if many:
            return tl.push_many([tick], 0, position, [q[0]] if q else None)[0]
        return tl.push(tick, 0, position, *q)

    results = []
    worker = threading.Thread(target=lambda: results.append(push(4, Slow())))
    worker.start()
    try:
        assert entered.wait(10)
        assert tl.push(2, 0, [2.0, 0.0, 0.0], *q) is PushResult.ACCEPTED
        assert tl.sample(2).position.tolist() == [2.0, 0.0, 0.0]
    finally:
        go.set()
        worker.join(10)
    assert results == [PushResult.ACCEPTED]
    assert tl.snapshots().tick.tolist() == [2, 4]
    with pytest.raises(_Unreadable):
        push(6, Broken())
    other = []
    thread = threading.Thread(target=lambda: other.append(tl.push(6, 0, [6.0, 0.0, 0.0], *q)))
    thread.start()
    thread.join(10)
    assert other == [PushResult.ACCEPTED]
    assert push(8, [[8.0, 0.0, 0.0]] if many else [8.0, 0.0, 0.0]) == PushResult.ACCEPTED
    assert tl.sample(7).position.tolist() == [7.0, 0.0, 0.0]


# -- misc --------------------------------------------------------------------------------

def test_reprs_and_properties():
    tl = article_timeline(max_extrapolation=2.5, reorder_window=0)
    assert repr(tl) == ("SnapshotTimeline(dim=1, capacity=64, rotations=False, "
                        "max_extrapolation=2.5, reorder_window=0) with 4 snapshots, 0 pending")
    assert (tl.dim, tl.capacity, tl.rotations, tl.max_extrapolation, tl.reorder_window) == \
        (1, 64, False, 2.5, 0)
    buf = SnapshotBuffer(5, rotations=True)
    assert repr(buf) == ("SnapshotBuffer(entities=5, dim=3, capacity=32, rotations=True, "
                         "max_extrapolation=0)")
    assert (len(buf), buf.entities, buf.dim, buf.capacity, buf.rotations) == (5, 5, 3, 32, True)
    assert isinstance(tl.snapshots(), Snapshots)
    assert PushResult.ACCEPTED == 0 and SampleMode.EXTRAPOLATE == 5


def test_public_names():
    for name in ("PushResult", "SampleMode", "SampleResult", "SnapshotBuffer",
                 "SnapshotTimeline", "Snapshots"):
        assert name in animcore.__all__ and getattr(animcore, name).__doc__


def test_buffer_deep_history_and_staggered_rings_against_model():
    rng = np.random.default_rng(21)
    entities, capacity = 6, 16
    buf = SnapshotBuffer(entities, 2, capacity=capacity, max_extrapolation=2)
    models = [SnapshotModel(2, capacity, False, 2.0) for _ in range(entities)]
    for k in range(60):
        who = np.flatnonzero(rng.random(entities) < 0.3 + 0.1 * np.arange(entities))
        tick = 3 * k + rng.integers(0, 3, len(who))
        seg = k // 9 + (np.arange(len(who)) % 2)
        pos = rng.normal(size=(len(who), 2))
        codes = buf.push(who, tick, seg, pos)
        assert codes.tolist() == [models[e].push(int(t), int(s), p)
                                  for e, t, s, p in zip(who, tick, seg, pos)]
    for t in np.linspace(90, 190, 101):
        got = buf.sample(t)
        for e in range(entities):
            check_sample(SampleResult(got.position[e], None, got.mode[e], got.left_tick[e],
                                      got.right_tick[e]), models[e].sample(t), 2, False)


@given(st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                        np.uint64, np.float32, np.float64]),
       st.sampled_from([(4,), (2, 2), (1, 4)]))
def test_buffer_integer_dtypes_and_shapes(dtype, shape):
    buf, ref = SnapshotBuffer(4, 1), SnapshotBuffer(4, 1)
    entity = np.arange(4).reshape(shape).astype(dtype)
    tick = (np.arange(4) * 3 + 1).reshape(shape).astype(dtype)
    codes = buf.push(entity, tick, dtype(0), np.ones(shape + (1,), np.float32))
    assert codes.shape == shape and (codes == ACCEPTED).all()
    ref.push([0, 1, 2, 3], [1, 4, 7, 10], [0, 0, 0, 0], np.ones((4, 1)))
    for a, b in zip(buf.sample(5.0), ref.sample(5.0)):
        if a is not None:
            np.testing.assert_array_equal(a, b)


def test_buffer_staggered_rings_rotations_and_generations_against_model():
    # Entities join at different times, some are re-used (a new generation),
    # so their rings wrap at different slots; the newest snapshots and the
    # older history (render ticks further back) are both sampled, with
    # rotations and extrapolation, and a restored copy samples bit for bit.
    import pickle

    rng = np.random.default_rng(22)
    entities, capacity, dim = 9, 6, 3
    buf = SnapshotBuffer(entities, dim, capacity=capacity, rotations=True, max_extrapolation=3)
    models = [SnapshotModel(dim, capacity, True, 3.0) for _ in range(entities)]
    generation, segment = np.zeros(entities, np.int64), np.zeros(entities, np.int64)
    for k in range(50):
        who = np.flatnonzero(np.arange(entities) <= k // 3)
        reset = who[rng.random(len(who)) < 0.03]
        generation[reset] += 1
        tick = 2 * k + rng.integers(0, 2, len(who))
        segment[who] += rng.random(len(who)) < 0.15  # teleports
        seg = segment[who]
        pos, rot = rng.normal(size=(len(who), dim)), rng.normal(size=(len(who), 4))
        codes = buf.push(who, tick, seg, pos, rot, generation=generation[who])
        assert codes.tolist() == [models[e].push(int(t), int(s), p, q, int(g)) for e, t, s, p, q, g
                                  in zip(who, tick, seg, pos, rot, generation[who])]
    copy = pickle.loads(pickle.dumps(buf))
    modes = set()
    for t in np.concatenate([np.linspace(70, 105, 71), [0.0, 98.0, 99.0]]):
        got, again = buf.sample(t), copy.sample(t)
        for a, b in zip(got, again):
            np.testing.assert_array_equal(a, b)
        modes.update(got.mode.tolist())
        for e in range(entities):
            check_sample(SampleResult(got.position[e], got.rotation[e], got.mode[e],
                                      got.left_tick[e], got.right_tick[e]),
                         models[e].sample(t), dim, True)
    assert modes == set(range(1, 6))  # every mode but EMPTY


# -- integers read exactly, pushes checked whole ---------------------------------------------

def test_segments_and_generations_beyond_2_53_round_trip_exactly():
    big = 2**60 + 1
    assert float(big) == float(big - 1)  # float64 could not tell them apart
    tl = SnapshotTimeline()
    assert tl.push(0, big - 1, 0.0) is ACCEPTED
    assert tl.push_many([2, 4], np.array([big, big], dtype=np.int64), [2.0, 3.0]).tolist() == \
        [ACCEPTED, ACCEPTED]
    assert tl.snapshots().segment.tolist() == [big - 1, big, big]
    assert tl.sample(1.0).mode == SampleMode.SEGMENT_CUT  # not one segment: no interpolation
    assert tl.sample(3.0).mode == SampleMode.INTERPOLATE
    buf = SnapshotBuffer(2, 1)
    generation = np.array([2**62 + 3, 2**53 + 1], dtype=np.uint64)  # read exactly too
    buf.push([0, 1], 5, [big, 2**53 + 1], [[1.0], [2.0]], generation=generation)
    assert [buf.generation(e) for e in (0, 1)] == [2**62 + 3, 2**53 + 1]
    assert buf.snapshots(0).segment.tolist() == [big]
    assert buf.push(0, 6, big, [1.0], generation=2**62 + 2) == PushResult.INVALID  # lower
    assert buf.push(0, 6, big, [1.0], generation=2**62 + 3) is ACCEPTED
    with pytest.raises(ValueError, match=r"SnapshotBuffer.push: generation at index \(0,\) is "
                                         r"18446744073709551615 \(must fit in int64\)"):
        buf.push([0], 7, 0, [1.0], generation=np.array([2**64 - 1], dtype=np.uint64))


def test_pushes_over_many_blocks_apply_in_order_or_not_at_all():
    n = 10_000  # several of the binding's blocks
    entity = np.arange(n) % 3
    tick = 2 * np.arange(n) // 3 + 1
    position = np.arange(3.0 * n).reshape(n, 3)
    whole, one_by_one = SnapshotBuffer(3, capacity=8), SnapshotBuffer(3, capacity=8)
    codes = whole.push(entity, tick, np.arange(n) // 4000, position)
    for i in range(n):
        assert one_by_one.push(entity[i], tick[i], i // 4000, position[i]) == codes[i]
    assert whole == one_by_one
    before = [state(whole, e) for e in range(3)]
    late = tick + 2 * n
    late[-1] = 2**32  # the last push is bad: none is applied
    with pytest.raises(ValueError, match=rf"SnapshotBuffer.push: tick at index \({n - 1},\) is "
                                         r"4294967296 \(must be an integer in"):
        whole.push(entity, late, 3, position)
    assert [state(whole, e) for e in range(3)] == before
    timeline = SnapshotTimeline(3, capacity=8)
    with pytest.raises(ValueError, match=rf"push_many: tick at index \({n - 1},\) is 4294967296"):
        timeline.push_many(late, 0, position)
    assert len(timeline) == 0


def test_buffer_sample_workers_give_identical_results():
    n = 30_000
    buf = SnapshotBuffer(n, 2, rotations=True)
    rng = np.random.default_rng(8)
    for k in range(3):
        buf.push(np.arange(n), 2 * k, rng.integers(0, 2, n) + k, rng.normal(size=(n, 2)),
                 rng.normal(size=(n, 4)))
    one, two = buf.sample(2.5), buf.sample(2.5, workers=2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match=r"SnapshotBuffer.sample: workers is 0"):
        buf.sample(2.5, workers=0)
