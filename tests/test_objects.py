"""Every public object pickles (protocol 5 with out-of-band buffers), copies and
compares by value; stateful objects continue exactly after a round trip; every
exception unpickles with its message and attributes, also across processes."""
import copy
import inspect
import multiprocessing
import pathlib
import pickle
import types

import numpy as np
import pytest

import animcore
from animcore import bvh, fbx, gltf, usd
from animcore._objects import ByValue, PicklableError

H = np.sqrt(0.5)


def cubic_rotations():
    # deliberately not unit: "cubic" splines the keys as given
    return animcore.RotationCurve([0, 1, 2.5], [[0, 0, 0, 2], [0, 0, H, H], [0, 1, 0, 1]],
                                  interpolation="cubic",
                                  in_tangents=[[0, 0, 0.1, 0], [0, 0, 0.2, 0], [0.1, 0, 0, 0]],
                                  out_tangents=[[0, 0, 0.3, 0], [0, 0.1, 0, 0], [0, 0, 0, 0]],
                                  after="oscillate")


def cursor():
    track = animcore.LoopTrack([0, 0.4, 1], [[0, 0, 0], [0.3, 0, 0.5], [1, 0, 1]],
                               rotations=[0.0, 0.4, 1.2])
    c = animcore.RootMotionCursor(track, [[0.1, 2.7], [-3.2, 5.0]])
    c.advance([0.37, 1.9])
    return c


def timeline():
    tl = animcore.SnapshotTimeline(2, capacity=4, rotations=True, max_extrapolation=3,
                                   reorder_window=4)
    for i, tick in enumerate([10, 14, 12, 13, 19, 16, 21]):
        tl.push(tick, i // 3, [i, 2.0 * i], [0, 0, np.sin(0.1 * i), np.cos(0.1 * i)])
    assert tl.pending > 0
    return tl


def buffer():
    buf = animcore.SnapshotBuffer(3, dim=2, capacity=3, rotations=True, max_extrapolation=2)
    for i in range(8):
        buf.push([0, 1, 2], 10 * i + np.array([0, 1, 2]), i // 3, np.full((3, 2), i * 1.5),
                 [[0, 0, 0.1 * i, 1]] * 3, generation=[0, int(i > 5), 0])
    return buf


def layer(slope, **options):
    """A layer animating location.x with a curve of many keys (its arrays
    outweigh the layer's field names in a pickle)."""
    times = np.linspace(0.0, 1.0, 200)
    curve = animcore.Curve(times, slope * np.sin(3 * times))
    return animcore.Layer({("location", 0): curve}, mode="ADD", blend_in=0.5, frame_start=-1.0,
                          frame_end=3.0, action_frame_start=0.0, action_frame_end=1.0,
                          repeat=2.0, scale=2.0, **options)


def blend_space(method):
    points = np.random.default_rng(3).uniform(-1, 1, (24, 2))
    return animcore.BlendSpace(points, list(range(24)), method=method)


# Each public class: a factory of two different instances with non-trivial content.
DATA = pathlib.Path(__file__).resolve().parent / "data" / "gltf"
FOX, SKIN = DATA / "Fox" / "Fox.glb", DATA / "SimpleSkin" / "SimpleSkin.gltf"

def _compressed(rate):
    """A one-node compressed clip: a constant translation, a 3-bit rotation (x rebuilt)."""
    import struct

    header = struct.pack("<4sHHIIdd", b"ACCC", 1, 0, 1, 2, 0.0, rate)
    table = struct.pack("<12B", 1, 0, 0, 0, 2, 3, 1, 0, 0, 0, 0, 0)
    data = struct.pack("<3f", 1.0, 2.0, 3.0) + struct.pack("<6f", 0, 1, 0, 0.5, 0, 0.1)
    return animcore.CompressedClip.from_bytes(header + table + data + bytes([185, 50, 0]))


EXAMPLES = {
    animcore.CompressedClip: (lambda: _compressed(30.0), lambda: _compressed(24.0)),
    animcore.HermiteSegment: (lambda: animcore.HermiteSegment(0.0, 10.0, 2.0, 0.0, 2.0),
                              lambda: animcore.HermiteSegment(0.0, 10.0, 2.0, 0.5, 2.0)),
    animcore.Curve: (
        lambda: animcore.Curve([0, 1, 2, 3], [[0, 1], [60, 2], [60, 5], [0, 1]],
                               tangents="pchip", after="cycle_offset",
                               ease=animcore.CubicBezier(0.25, 0.1, 0.25, 1.0)
                               ).remap_time("smoothstep"),
        lambda: animcore.Curve([0, 1, 2, 3], [[0, 1], [60, 2], [60, 5], [0, 1]],
                               tangents="pchip", after="cycle_offset",
                               ease=animcore.CubicBezier(0.25, 0.1, 0.25, 1.0))),
    animcore.CurveDerivative: (
        lambda: EXAMPLES[animcore.Curve][0]().derivative(),
        lambda: EXAMPLES[animcore.Curve][1]().derivative(2)),
    animcore.RotationCurve: (cubic_rotations,
                             lambda: animcore.RotationCurve([0, 1], [[0, 0, 0, 1], [0, 0, H, H]])),
    animcore.Ease: (lambda: animcore.Ease("back_in_out"), lambda: animcore.Ease("smoothstep")),
    animcore.CubicBezier: (lambda: animcore.CubicBezier(0.42, 0.0, 0.58, 1.0),
                           lambda: animcore.CubicBezier(0.42, 0.0, 0.58, 1.5)),
    animcore.Steps: (lambda: animcore.Steps(3, "jump-both"), lambda: animcore.Steps(3)),
    animcore.LoopTrack: (
        lambda: animcore.LoopTrack([0, 0.5, 1], [[0, 0, 0], [0.2, 0, 1], [0, 0, 2]],
                                   interpolation="cubic",
                                   rotations=[[0, 0, 0, 1], [0, H, 0, H], [0, 1, 0, 0]]),
        lambda: animcore.LoopTrack([0, 0.5, 1], [[0, 0, 0], [0.2, 0, 1], [0, 0, 2]])),
    animcore.RootMotionCursor: (cursor, lambda: animcore.RootMotionCursor(cursor().track,
                                                                          [[0.1, 2.7],
                                                                           [-3.2, 5.0]])),
    animcore.SnapshotTimeline: (timeline, lambda: animcore.SnapshotTimeline(2, capacity=4,
                                                                            rotations=True)),
    animcore.SnapshotBuffer: (buffer, lambda: animcore.SnapshotBuffer(3, dim=2, capacity=3,
                                                                      rotations=True)),
    gltf.Clip: (lambda: gltf.load_sample()[0], lambda: gltf.load_sample()[1]),
    gltf.Channel: (lambda: gltf.load_sample()[0].channels[1],
                   lambda: gltf.load_sample()[0].channels[2]),
    animcore.Skeleton: (lambda: animcore.Skeleton([-1, 0, 1, 1], names=["hips", "spine", "l", "r"]),
                        lambda: animcore.Skeleton([-1, 0, 0, 1], names=["hips", "spine", "l", "r"])),
    gltf.Scene: (lambda: gltf.load_scene(FOX), lambda: gltf.load_scene(SKIN)),
    gltf.Node: (lambda: gltf.load_scene(FOX).nodes[3], lambda: gltf.load_scene(FOX).nodes[4]),
    gltf.Skin: (lambda: gltf.load_scene(FOX).skins[0], lambda: gltf.load_scene(SKIN).skins[0]),
    gltf.Unsupported: (lambda: gltf.Unsupported("/materials/0/emissiveFactor", 3),
                       lambda: gltf.Unsupported("/materials/0/emissiveFactor", 4)),
    animcore.Layer: (lambda: layer(2.0), lambda: layer(3.0)),
    animcore.Track: (lambda: animcore.Track([layer(2.0)], name="t"),
                     lambda: animcore.Track([layer(2.0)], mute=True)),
    animcore.LayerStack: (lambda: animcore.LayerStack([animcore.Track([layer(2.0)])],
                                                      action=layer(1.0, time_map=False)),
                          lambda: animcore.LayerStack([animcore.Track([layer(2.0)])])),
    animcore.BlendSpace: (lambda: blend_space("barycentric"),
                          lambda: blend_space("gradient_band")),
}

T = np.linspace(-1.0, 4.0, 37)


def behaviour(obj):
    """What the object computes, as arrays; stateful objects are advanced."""
    if isinstance(obj, animcore.Curve):
        return [obj.evaluate(T), obj.evaluate(T, 1)]
    if isinstance(obj, animcore.CurveDerivative):
        return [obj(T), obj(T, side="left")]
    if isinstance(obj, animcore.RotationCurve):
        return [obj.evaluate(T), obj.angular_velocity(T)]
    if isinstance(obj, animcore.HermiteSegment):
        return list(obj.evaluate(np.linspace(0, 2, 9)))
    if isinstance(obj, animcore.Easing):
        u = np.linspace(0, 1, 11)
        return [obj(u), obj(u, derivative=1)]
    if isinstance(obj, animcore.LoopTrack):
        return list(obj.delta(T[:, None], 3 * T))
    if isinstance(obj, animcore.RootMotionCursor):
        return [np.asarray(x) for dt in (0.3, -2.2, 7.9) for x in obj.advance(dt)]
    if isinstance(obj, animcore.SnapshotTimeline):
        obj.push(23, 3, [1.0, -1.0], [0, 1, 0, 0])
        return [x for x in obj.sample_many(np.linspace(5, 30, 51)) if x is not None]
    if isinstance(obj, animcore.SnapshotBuffer):
        obj.push([2, 0], [95, 71], [3, 2], [[1.0, 2.0], [3.0, 4.0]], [[0, 0, 1, 0]] * 2)
        return [x for t in (50.5, 70.25, 94.0, 97.0) for x in obj.sample(t)]
    if isinstance(obj, gltf.Clip):
        return list(obj.sample(T).values())
    if isinstance(obj, gltf.Channel):
        return [obj.sample(T)]
    if isinstance(obj, animcore.Skeleton):
        pose = np.zeros((4, 3)), np.tile([0.0, 0.0, np.sin(0.3), np.cos(0.3)], (4, 1))
        return [obj.world(pose[0] + 1.0, pose[1], np.ones((4, 3)))]
    if isinstance(obj, gltf.Scene):
        return [obj.world(obj.clips[0] if obj.clips else None, T[:5])]
    if isinstance(obj, gltf.Skin):
        return [obj.joints, obj.inverse_bind_matrices]
    if isinstance(obj, gltf.Node):
        return [x for x in (obj.translation, obj.rotation, obj.scale) if x is not None]
    if isinstance(obj, gltf.Unsupported):
        return [np.asarray(obj.keys)]
    if isinstance(obj, animcore.Layer):
        return [animcore.LayerStack([animcore.Track([obj])]).evaluate("location", 0, T)]
    if isinstance(obj, animcore.Track):
        return [animcore.LayerStack([obj]).evaluate("location", 0, T)]
    if isinstance(obj, animcore.LayerStack):
        return [obj.evaluate("location", 0, T)]
    if isinstance(obj, animcore.CompressedClip):
        return [*obj.sample(T), np.frombuffer(obj.to_bytes(), np.uint8)]
    if isinstance(obj, animcore.BlendSpace):
        return [obj.weights(np.stack([T, T[::-1]], -1))]
    raise AssertionError(type(obj))


def assert_same_behaviour(a, b):
    first, second = behaviour(a), behaviour(b)
    assert len(first) == len(second)
    for x, y in zip(first, second):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes()  # bit for bit


def public_classes():
    found = set()
    for module in (animcore, gltf):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and not issubclass(obj, BaseException):
                found.add(obj)
    return found


# Result types: tuples and enums, which pickle and copy as such.
RESULTS = {cls for cls in public_classes() if issubclass(cls, (tuple, int))}


def test_every_public_class_is_covered():
    assert public_classes() - RESULTS - {animcore.Easing} == set(EXAMPLES)
    for cls in EXAMPLES:
        assert issubclass(cls, ByValue)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
@pytest.mark.parametrize("cls", EXAMPLES, ids=lambda c: c.__name__)
def test_pickle_round_trip_behaves_the_same(cls, protocol):
    original = EXAMPLES[cls][0]()
    restored = pickle.loads(pickle.dumps(original, protocol))
    assert type(restored) is cls and restored is not original
    assert restored == original and not restored != original
    assert_same_behaviour(original, restored)


def _array_bytes(value, seen=None) -> int:
    """The bytes of the distinct arrays in a value's state, nested states too."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return value.nbytes if value.dtype != object else 0
    if isinstance(value, dict):
        return sum(_array_bytes(v, seen) for v in value.values())
    if isinstance(value, (tuple, list)):
        return sum(_array_bytes(v, seen) for v in value)
    if hasattr(value, "_state"):
        return _array_bytes(value._state(), seen)
    return 0


@pytest.mark.parametrize("cls", EXAMPLES, ids=lambda c: c.__name__)
def test_protocol_5_sends_arrays_out_of_band(cls):
    original = EXAMPLES[cls][0]()
    buffers = []
    data = pickle.dumps(original, 5, buffer_callback=buffers.append)
    scalar_only = cls in (animcore.HermiteSegment, animcore.Ease, animcore.CubicBezier,
                          animcore.Steps, gltf.Unsupported)
    assert (len(buffers) == 0) == scalar_only
    if not scalar_only:
        out_of_band = sum(memoryview(b).nbytes for b in buffers)
        # every array of the state (each object once) travels out of band
        assert out_of_band >= _array_bytes(original) > 0
        with pytest.raises(pickle.UnpicklingError):
            pickle.loads(data)  # the arrays are not in the stream
    restored = pickle.loads(data, buffers=buffers)
    assert restored == original
    assert_same_behaviour(original, restored)


@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy], ids=["copy", "deepcopy"])
@pytest.mark.parametrize("cls", EXAMPLES, ids=lambda c: c.__name__)
def test_copies_are_equal_and_independent(cls, how):
    original = EXAMPLES[cls][0]()
    duplicate = how(original)
    assert duplicate == original and duplicate is not original
    before = pickle.dumps(original)
    behaviour(duplicate)  # advances a stateful copy ...
    assert pickle.dumps(original) == before  # ... and not the original
    assert_same_behaviour(EXAMPLES[cls][0](), how(EXAMPLES[cls][0]()))


@pytest.mark.parametrize("cls", EXAMPLES, ids=lambda c: c.__name__)
def test_equality_is_by_value(cls):
    make, other = EXAMPLES[cls]
    a, b, c = make(), make(), other()
    assert a is not b and a == b  # built twice: equal
    assert a != c and not a == c  # one value differs
    assert a != "something else" and a != 1


def test_transforms_compare_by_value():
    # a tuple of arrays: its own comparison asked each array for one truth value
    def pose(scale):
        return animcore.Transforms(np.zeros((2, 3)), np.tile([0, 0, 0, 1.0], (2, 1)),
                                   np.full((2, 3), scale))

    a = pose(1.0)
    assert a == pose(1.0) and not a != pose(1.0)
    assert a == pickle.loads(pickle.dumps(a, 5))
    assert a != pose(2.0) and not a == pose(2.0)
    assert a != (1, 2) and a != "pose" and a != a[:2]
    assert a != animcore.Transforms(a.translation[:1], a.rotation[:1], a.scale[:1])
    nan = pose(np.nan)  # NaN equals NaN in the same place, as for every object
    assert nan == pickle.loads(pickle.dumps(nan, 5)) and nan != a
    with pytest.raises(TypeError, match=r"unhashable"):
        hash(a)


def test_objects_holding_arrays_are_not_hashable_but_easings_are():
    with pytest.raises(TypeError, match=r"^unhashable type: 'Curve'$"):
        hash(EXAMPLES[animcore.Curve][0]())
    assert len({animcore.Ease("smoothstep"), pickle.loads(pickle.dumps(animcore.Ease("smoothstep")))}) == 1


def test_result_tuples_and_enums_pickle():
    for value in (animcore.hermite(0.0, 10.0, 2.0, 0.0, 2.0, [0.0, 1.0]),
                  animcore.SnapshotTimeline().sample(3.0), animcore.PushResult.INVALID,
                  EXAMPLES[animcore.Curve][1]().key_slopes()):
        restored = pickle.loads(pickle.dumps(value, 5))
        assert type(restored) is type(value)
        for x, y in zip(value if isinstance(value, tuple) else [value],
                        restored if isinstance(value, tuple) else [restored]):
            np.testing.assert_array_equal(np.asarray(x, dtype=object), np.asarray(y, dtype=object))


def test_curve_state_restores_explicit_and_jump_curves():
    for curve in (animcore.Curve([0, 1, 1, 2], [0, 1, 5, 6], jumps=True, tangents="clamped"),
                  animcore.Curve([0, 1, 3], [0, 2, 1], in_velocities=[1, 0, 2],
                                 out_velocities=[3, -1, 0], before="linear"),
                  animcore.Curve([0, 1, 3], [0, 2, 1]).stretched(1.5, keep="shape"),
                  animcore.Curve([0, 2], [1, 3], interpolation="step")):
        restored = pickle.loads(pickle.dumps(curve, 5))
        assert restored == curve and restored.tangents == curve.tangents
        assert_same_behaviour(curve, restored)


# -- stateful objects side by side -------------------------------------------------

def test_snapshot_buffer_restored_mid_stream_continues_bit_for_bit():
    rng = np.random.default_rng(7)
    original = animcore.SnapshotBuffer(5, dim=3, capacity=4, rotations=True,
                                       max_extrapolation=2.5)
    restored = None
    for step in range(40):
        if step == 17:
            restored = pickle.loads(pickle.dumps(original, 5))
        entities = rng.permutation(5)[:3]
        ticks = 3 * step + rng.integers(0, 3, 3)
        segments = np.full(3, step // 6)
        positions = rng.normal(size=(3, 3)) * 10
        rotations = rng.normal(size=(3, 4))
        generation = (step > 30) & (entities == 2)
        codes = [buf.push(entities, ticks, segments, positions, rotations,
                          generation=generation.astype(int))
                 for buf in [original] + ([restored] if restored is not None else [])]
        if restored is not None:
            np.testing.assert_array_equal(codes[1], codes[0])
        if restored is not None:
            for t in 3 * step + np.array([-9.5, -4.0, -0.25, 0.0, 1.5, 4.0]):
                for x, y in zip(original.sample(t), restored.sample(t)):
                    assert x.tobytes() == y.tobytes()
            np.testing.assert_array_equal(original.counts, restored.counts)
            assert original == restored
    assert restored.generation(2) == original.generation(2) == 1


def test_snapshot_timeline_restored_with_waiting_snapshots_releases_them_alike():
    original = animcore.SnapshotTimeline(1, capacity=5, max_extrapolation=2, reorder_window=3)
    pushes = [(100, 0, 0.0), (103, 0, 3.0), (101, 0, 1.0), (105, 1, 50.0), (104, 0, 4.0),
              (102, 0, 2.0), (109, 1, 54.0), (107, 1, 52.0), (103, 0, 9.0), (112, 2, 0.0)]
    for tick, segment, x in pushes[:5]:
        original.push(tick, segment, x)
    assert original.pending == 3
    restored = copy.deepcopy(original)
    assert restored.pending == 3 and len(restored) == len(original)
    for tick, segment, x in pushes[5:]:
        assert restored.push(tick, segment, x) == original.push(tick, segment, x)
        ticks = np.linspace(95, 115, 81)
        for a, b in zip(original.sample_many(ticks), restored.sample_many(ticks)):
            if a is not None:
                assert a.tobytes() == b.tobytes()
    assert restored.flush() == original.flush()
    assert restored == original


def test_root_motion_cursor_restored_continues_bit_for_bit():
    original = cursor()
    restored = pickle.loads(pickle.dumps(original, 5))
    assert restored.track == original.track and restored.track is not original.track
    for dt in (0.1, 1e-9, -3.3, 250.0, 0.77):
        for a, b in zip(original.advance(dt), restored.advance(dt)):
            assert a.tobytes() == b.tobytes()
    np.testing.assert_array_equal(original.cycle, restored.cycle)
    assert original.phase.tobytes() == restored.phase.tobytes()


def test_cursors_sharing_a_track_still_share_it_after_pickling():
    track = animcore.LoopTrack([0, 1], [0, 2])
    a, b = pickle.loads(pickle.dumps([animcore.RootMotionCursor(track, 0.5),
                                      animcore.RootMotionCursor(track, 1.5)]))
    assert a.track is b.track


# -- restoring bad states ------------------------------------------------------------

def buffer_state():
    return buffer()._state()


def test_snapshot_state_of_another_size_is_refused():
    state = buffer_state()
    state["core"] = state["core"][:-8]
    with pytest.raises(ValueError, match=r"^SnapshotBuffer: state at index \(0,\) is \d+\.0 "
                                         r"\(is not the size of this object's state\)"):
        animcore.SnapshotBuffer._from_state(state)


def test_snapshot_state_of_another_kind_is_refused():
    state = timeline()._state()
    with pytest.raises(ValueError, match=r"SnapshotTimeline: state (at index \(\) )?.*"
                                         r"is not the size"):
        animcore.SnapshotTimeline._from_state({**state, "reorder_window": 5})
    core = state["core"].copy()
    core[:8] = 0
    with pytest.raises(ValueError, match=r"is not a snapshot timeline state of this byte order"):
        animcore.SnapshotTimeline._from_state({**state, "core": core})


def test_snapshot_state_with_another_config_is_refused():
    state = buffer_state()
    with pytest.raises(ValueError, match=r"SnapshotBuffer: state at index \(0,\) is 3\.0 "
                                         r"\(has another entities, dim, capacity, rotations or "
                                         r"max_extrapolation than this object\)"):
        animcore.SnapshotBuffer._from_state({**state, "max_extrapolation": 1.0})


def test_snapshot_state_with_an_entity_count_beyond_capacity_is_refused():
    state = buffer_state()
    core = state["core"].copy()
    core.view(np.uint64)[6 + 2] = 4  # entity 2's count, capacity 3
    with pytest.raises(ValueError, match=r"SnapshotBuffer: state at index \(2,\) is 4\.0 "
                                         r"\(an entity's count exceeds the capacity\)"):
        animcore.SnapshotBuffer._from_state({**state, "core": core})


def test_snapshot_state_with_unordered_ticks_is_refused():
    state = buffer_state()
    core = state["core"].copy()
    words = core.view(np.int64)
    words[6 + 6 + 3 * 2 + 0] = words[6 + 6 + 3 * 1 + 0]  # entity 0: slot 2 tick = slot 1's
    with pytest.raises(ValueError, match=r"state at index \(0,\) .*\(an entity's ticks are not "
                                         r"increasing 32-bit ticks\)"):
        animcore.SnapshotBuffer._from_state({**state, "core": core})


def test_snapshot_state_with_a_non_finite_position_is_refused():
    state = buffer_state()
    core = state["core"].copy()
    core.view(np.float64)[6 + 6 + 9 + 9 + 2 * (3 * 0 + 0) + 1] = np.inf
    with pytest.raises(ValueError, match=r"state at index \(0,\) is inf \(an entity's position "
                                         r"is not finite\)"):
        animcore.SnapshotBuffer._from_state({**state, "core": core})


def test_a_refused_state_leaves_the_object_as_it_was():
    target = buffer()
    before = target._state()["core"].copy()
    bad = buffer_state()["core"].copy()
    bad.view(np.uint64)[6 + 3 + 1] = np.uint64(2**63)  # a negative generation
    with pytest.raises(ValueError, match=r"generation is negative"):
        animcore._core._snapshot_state_set("SnapshotBuffer", target._handle, bad)
    np.testing.assert_array_equal(target._state()["core"], before)


def test_cursor_state_with_a_phase_outside_the_cycle_is_refused():
    state = cursor()._state()
    phase = state["phase"].copy()
    phase[1, 0] = 1.0
    with pytest.raises(ValueError, match=r"^RootMotionCursor: phase at index \(1, 0\) is 1\.0 "
                                         r"\(must lie in \[0, 1\)\)"):
        animcore.RootMotionCursor._from_state({**state, "phase": phase})


def test_cursor_state_with_mismatched_arrays_is_refused():
    state = cursor()._state()
    with pytest.raises(ValueError, match=r"^RootMotionCursor: cycle of shape \(2,\) and phase "
                                         r"of shape \(2, 2\) differ"):
        animcore.RootMotionCursor._from_state({**state, "cycle": np.zeros(2)})


def test_cursor_state_without_a_track_is_refused():
    state = cursor()._state()
    with pytest.raises(ValueError, match=r"^RootMotionCursor: track must be a LoopTrack, got "
                                         r"Curve"):
        animcore.RootMotionCursor._from_state({**state, "track": animcore.Curve([0], [1])})


# -- exceptions ----------------------------------------------------------------------

def animcore_exceptions():
    found = set()
    for module in [animcore] + [m for m in vars(animcore).values()
                                if isinstance(m, types.ModuleType)
                                and m.__name__.startswith("animcore.")]:
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, BaseException)
                    and obj.__module__.startswith("animcore") and not name.startswith("_")):
                found.add(obj)
    return found


ERRORS = {
    bvh.BvhError: lambda: bvh.BvhError("walk.bvh", 12, "expected 6 channel values, got 5"),
    bvh.BvhWarning: lambda: bvh.BvhWarning("walk.bvh:30: 1 frame row(s) beyond the 2 'Frames:' says are dropped"),
    gltf.GltfWarning: lambda: gltf.GltfWarning("walk.gltf: animations[1] skipped: no channels"),
    gltf.GltfError: lambda: gltf.GltfError("walk.gltf", "animations[0].samplers[2].output",
                                           "accessor 7 has 9 elements, expected 4 keys x 3"),
    animcore.model.ReadError: lambda: animcore.model.ReadError("walk.usda", "line 3",
                                                               "expected a number"),
    animcore.model.NodeLookupError: lambda: animcore.model.NodeLookupError(
        "extract_root_motion: joint 'Hips' not in the scene; closest: 'mixamorig:Hips'"),
    fbx.FbxError: lambda: fbx.FbxError("walk.fbx", "byte 4912 (Objects)", "record ends at 15110"),
    usd.UsdError: lambda: usd.UsdError("walk.usda", "/World/Cube.xformOp:translateX",
                                       "has non-finite values (sample 3)"),
    usd.UsdWarning: lambda: usd.UsdWarning("walk.usda: /World/Cube.xformOp:translateX: "
                                           "has non-finite values (sample 3) (skipped)"),
}


def test_every_exception_class_has_an_example():
    assert animcore_exceptions() == set(ERRORS)
    for cls in ERRORS:
        assert issubclass(cls, PicklableError)


@pytest.mark.parametrize("cls", ERRORS, ids=lambda c: c.__name__)
def test_exceptions_round_trip_with_message_and_attributes(cls):
    error = ERRORS[cls]()
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        restored = pickle.loads(pickle.dumps(error, protocol))
        assert type(restored) is cls
        assert str(restored) == str(error) and restored.args == error.args
        assert vars(restored) == vars(error)
    assert str(copy.deepcopy(error)) == str(error)


def test_a_raised_gltf_error_round_trips():
    with pytest.raises(gltf.GltfError) as caught:
        gltf.load_bytes(b'{"asset": {"version": "2.0"}, "animations": 3}', name="bad.gltf")
    restored = pickle.loads(pickle.dumps(caught.value))
    assert str(restored) == str(caught.value) and restored.source == "bad.gltf"
    assert restored.location == caught.value.location and restored.detail


# -- across processes ----------------------------------------------------------------

def make_curve(k):
    return animcore.Curve(np.arange(k), np.arange(k) ** 2, tangents="pchip")


def load_broken(_):
    return gltf.load_bytes(b'{"asset": {"version": "2.0"}, "animations": 3}', name="bad.gltf")


def test_a_pool_returns_curves_and_propagates_gltf_errors():
    from animcore.bake import start_method

    with multiprocessing.get_context(start_method()).Pool(1) as pool:
        curve = pool.apply_async(make_curve, (5,)).get(timeout=30)
        assert curve == make_curve(5)
        assert_same_behaviour(curve, make_curve(5))
        with pytest.raises(gltf.GltfError, match=r"^bad\.gltf: animations: "):
            pool.apply_async(load_broken, (0,)).get(timeout=30)
        # the pool still works after the error
        assert pool.apply_async(make_curve, (3,)).get(timeout=30) == make_curve(3)


# -- property tests ------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

pushes = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 4), st.floats(-1e3, 1e3),
                            st.sampled_from([[0, 0, 0, 1], [0, 1, 0, 1], [1, 0, 0, 0],
                                             [0, 0, 0, 0]])),
                  max_size=25)


@settings(max_examples=30)
@given(pushes, st.integers(0, 25), st.integers(1, 6), st.integers(0, 5),
       st.sampled_from([0.0, 1.5]))
def test_a_timeline_pickled_anywhere_in_a_stream_continues_alike(stream, split, capacity,
                                                                window, extrapolation):
    original = animcore.SnapshotTimeline(1, capacity=capacity, rotations=True,
                                         max_extrapolation=extrapolation,
                                         reorder_window=window)
    restored = None
    ticks = np.linspace(-1, 65, 45)
    for i in range(len(stream) + 1):
        if i == min(split, len(stream)):
            restored = pickle.loads(pickle.dumps(original, 5))
            assert restored == original
        if restored is not None:
            for a, b in zip(original.sample_many(ticks), restored.sample_many(ticks)):
                assert a.tobytes() == b.tobytes()
        if i == len(stream):
            break
        tick, segment, x, q = stream[i]
        result = original.push(tick, segment, x, q)
        if restored is not None:
            assert restored.push(tick, segment, x, q) == result
    assert restored.flush() == original.flush() and restored == original


@settings(max_examples=30)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=8),
       st.sampled_from(["step", "linear", "cubic"]),
       st.sampled_from(["catmull_rom", "catmull_rom_uniform", "pchip", "clamped", "flat"]),
       st.sampled_from(["clamp", "linear", "cycle", "cycle_offset", "oscillate"]))
def test_any_curve_pickles_to_one_that_evaluates_bit_for_bit(values, interpolation, tangents,
                                                            after):
    times = np.cumsum(np.r_[0.0, np.linspace(0.5, 1.5, len(values) - 1)])
    curve = animcore.Curve(times, values, interpolation=interpolation, tangents=tangents,
                           after=after)
    restored = pickle.loads(pickle.dumps(curve, 5))
    assert restored == curve
    t = np.linspace(-2, times[-1] + 5, 41)
    assert restored(t).tobytes() == curve(t).tobytes()
    assert restored.evaluate(t, 1).tobytes() == curve.evaluate(t, 1).tobytes()




def _cursor_readers(probe):
    """The ways to read a cursor's whole state: copies, a pickle round trip, ==."""
    return {"copy": copy.copy, "deepcopy": copy.deepcopy,
            "pickle": lambda c: pickle.loads(pickle.dumps(c)), "==": lambda c: c == probe,
            "repr": repr}


def test_copies_pickles_and_comparisons_of_an_advancing_cursor_see_only_states_it_had(
        monkeypatch):
    # dt = 0.3 of a 1 s loop: the unrolled times are multiples of 0.3, so a pair read
    # half before and half after a move (the new cycle with the old phase, or the
    # reverse) is one whole cycle away from every state the cursor passes through
    import sys
    import threading

    import animcore._objects as objects

    track = animcore.LoopTrack([0, 1], [0, 1])
    seen = []
    compare = objects.same_value

    def recording(a, b):  # the state == read from the cursor (the left operand)
        if isinstance(a, dict) and "phase" in a:
            seen.append((int(a["cycle"]), float(a["phase"])))
        return compare(a, b)

    monkeypatch.setattr(objects, "same_value", recording)
    readers = list(_cursor_readers(animcore.RootMotionCursor(track, 0.0)).values())[:4]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        for _ in range(3):  # the threads fall into step differently from round to round
            cursor = animcore.RootMotionCursor(track, 0.0)
            had = {(0, 0.0)}
            done = threading.Event()

            def advance():
                for _ in range(10**6):  # bounded; stopped when the reads are done
                    if done.is_set():
                        break
                    cursor.advance(0.3)
                    had.add((int(cursor.cycle), float(cursor.phase)))  # the only writer

            thread = threading.Thread(target=advance)
            thread.start()
            start = len(seen)
            try:
                for k in range(1500):
                    result = readers[k % 4](cursor)
                    if k % 4 != 3:
                        seen.append((int(result.cycle), float(result.phase)))
            finally:
                done.set()
                thread.join()
            assert len(had) > 100
            torn = [state for state in seen[start:] if state not in had]
            assert not torn, f"{len(torn)} of 1500 reads, e.g. {torn[:3]}"
    finally:
        sys.setswitchinterval(interval)


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle", "==", "repr"])
def test_reading_a_cursor_waits_for_a_move_in_progress(how):
    import threading

    track = animcore.LoopTrack([0, 1], [0, 1])
    cursor = animcore.RootMotionCursor(track, 0.5)
    read = _cursor_readers(animcore.RootMotionCursor(track, 0.5))[how]
    finished = threading.Event()
    thread = threading.Thread(target=lambda: (read(cursor), finished.set()))
    with cursor._lock:  # as a move holds it from reading the state to committing it
        thread.start()
        assert not finished.wait(0.2), f"{how} read the state without the lock"
    thread.join(5)
    assert finished.is_set()


def test_a_state_with_nan_equals_its_copy():
    # a flat circ_in segment's key velocity is NaN (an infinite rate times no change):
    # fuzz/fuzz_from_dict.py (atheris) found such curves unequal to their own round trip
    curve = animcore.Curve([0, 1, 2], [0, 0, 1], interpolation="circ_in")
    assert np.isnan(curve.in_velocities[1])
    assert copy.deepcopy(curve) == curve
    assert pickle.loads(pickle.dumps(curve)) == curve
    assert animcore.Curve.from_dict(curve.to_dict()) == curve
    assert curve != animcore.Curve([0, 1, 2], [0, 0, 2], interpolation="circ_in")
