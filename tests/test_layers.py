"""LayerStack against Blender's NLA (tests/data/nla_blender.json, recorded from
bpy by tests/fixtures/record_nla.py), and the stack's own rules."""
import json
import os
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from animcore.blender import layers_from_nla
from animcore.layers import Layer, LayerStack, Track

DATA = os.path.join(os.path.dirname(__file__), "data", "nla_blender.json")


KEY_DEFAULTS = {"easing": "AUTO", "back": 1.70158, "amplitude": 0.8, "period": 4.1}


def namespace(value, fcurves_api="layers"):
    """bpy-like attribute objects from the recorded description."""
    if isinstance(value, dict) and "keys" in value:  # an F-curve
        points = [SimpleNamespace(co=k[0:2], handle_left=k[2:4], handle_right=k[4:6],
                                  interpolation=k[6], handle_left_type=k[7],
                                  handle_right_type=k[8], **KEY_DEFAULTS)
                  for k in value["keys"]]
        rest = {k: v for k, v in value.items() if k != "keys"}
        return SimpleNamespace(keyframe_points=points, **rest)
    if isinstance(value, dict):
        if "fcurves" in value and "name" in value and "frame_start" not in value:
            # an action: Blender 5's channel bags or the older fcurves list
            curves = [namespace(f) for f in value["fcurves"]]
            if fcurves_api == "layers":
                bag = SimpleNamespace(fcurves=curves)
                strip = SimpleNamespace(channelbags=[bag])
                return SimpleNamespace(name=value["name"],
                                       layers=[SimpleNamespace(strips=[strip])])
            return SimpleNamespace(name=value["name"], fcurves=curves)
        return SimpleNamespace(**{k: namespace(v, fcurves_api) for k, v in value.items()})
    if isinstance(value, list):
        return [namespace(v, fcurves_api) for v in value]
    return value


with open(DATA) as _f:
    RECORDED = json.load(_f)


@pytest.mark.parametrize("case", range(len(RECORDED["cases"])))
def test_matches_blender(case):
    data = RECORDED["cases"][case]
    frames = np.array(RECORDED["frames"])
    ad = namespace(data["animation_data"], "layers" if case % 2 else "fcurves")
    stack = layers_from_nla(ad)
    for path, values in data["values"].items():
        expected = np.array(values)
        for index in range(expected.shape[1]):
            if not stack.animates(path, index):  # Blender leaves the value as it was
                np.testing.assert_allclose(expected[:, index], RECORDED["static"][path][index],
                                           rtol=1e-7)
                continue
            got = stack.evaluate(path, index, frames)
            span = max(np.ptp(expected[:, index]), 1.0)
            bad = np.flatnonzero(np.abs(got - expected[:, index]) > 1e-5 * span)
            assert bad.size == 0, (path, index, frames[bad[:5]], got[bad[:5]],
                                   expected[bad[:5], index])


# ------------------------------------------------------------------ poses

FOX = os.path.join(os.path.dirname(__file__), "data", "gltf", "Fox", "Fox.glb")


def test_pose_on_the_fox_against_scipy():
    from scipy.spatial.transform import Rotation

    from animcore.gltf import load_scene

    scene = load_scene(FOX)
    walk, survey = scene.clip("Walk"), scene.clip("Survey")
    d = walk.duration
    stack = LayerStack([
        Track([Layer(walk, frame_start=0.0, frame_end=3 * d, action_frame_start=0.0,
                     action_frame_end=d, repeat=3.0)]),
        Track([Layer(survey, mode="ADD", influence=0.5, use_influence=True,
                     frame_start=0.0, frame_end=survey.duration)]),
    ])
    t = np.linspace(0.0, 3 * d, 40)
    got = stack.pose(scene, t)
    rest = scene.pose(None, 0.0)
    walk_t = np.where(np.isclose(t, 3 * d), d, np.fmod(t, d))
    lower = scene.pose(walk, walk_t)
    top = scene.pose(survey, t)
    n = len(scene.nodes)
    r_rest = Rotation.from_quat(np.tile(rest.rotation, (len(t), 1, 1)).reshape(-1, 4))
    delta = r_rest.inv() * Rotation.from_quat(top.rotation.reshape(-1, 4))
    expected = Rotation.from_quat(lower.rotation.reshape(-1, 4)) * \
        Rotation.from_rotvec(0.5 * delta.as_rotvec())
    d_abs = np.abs(np.einsum("...i,...i->...", got.rotation.reshape(-1, 4),
                             expected.as_quat()))
    np.testing.assert_allclose(d_abs, 1.0, atol=1e-9)
    np.testing.assert_allclose(got.translation,
                               lower.translation + 0.5 * (top.translation - rest.translation),
                               atol=1e-9)
    np.testing.assert_allclose(got.scale, lower.scale * (top.scale / rest.scale) ** 0.5,
                               rtol=1e-9)
    assert got.rotation.shape == (40, n, 4)


def test_pose_replace_blend_in():
    from animcore.gltf import load_scene

    scene = load_scene(FOX)
    walk, run = scene.clip("Walk"), scene.clip("Run")
    stack = LayerStack([Track([Layer(walk, frame_start=0.0, frame_end=walk.duration)]),
                        Track([Layer(run, frame_start=0.2, frame_end=0.2 + run.duration,
                                     action_frame_start=0.0, action_frame_end=run.duration,
                                     blend_in=0.4, use_influence=False)])])
    t = np.array([0.1, 0.4, 0.7])
    got = stack.pose(scene, t)
    lower = scene.pose(walk, t)
    top = scene.pose(run, t - 0.2)
    # the strip's weight: 0 before it starts, then blend_in's ramp (t - 0.2) / 0.4, then 1
    w = np.array([0.0, 0.5, 1.0])[:, None, None]
    np.testing.assert_allclose(got.translation, (1 - w) * lower.translation + w * top.translation,
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(got.translation[0], lower.translation[0], rtol=0, atol=1e-12)
    # at the ends of the ramp the rotations are the clips' own (q and -q alike)
    same = np.abs(np.sum(got.rotation[[0, 2]] * np.stack([lower.rotation[0], top.rotation[2]]),
                         axis=-1))
    np.testing.assert_allclose(same, 1.0, rtol=0, atol=1e-9)


# ------------------------------------------------------------------ errors

def _curve_layer(**kw):
    return Layer({("location", 0): lambda t: np.asarray(t) * 2.0}, **kw)


def test_unknown_names_suggest():
    with pytest.raises(ValueError, match=r"Layer: mode is 'COMBIN' .*did you mean 'COMBINE'"):
        _curve_layer(mode="COMBIN")
    with pytest.raises(ValueError, match=r"Layer: extrapolation is 'HOLDFORWARD!' .*"
                                         r"'HOLD_FORWARD'"):
        _curve_layer(extrapolation="HOLDFORWARD!")


def test_bad_layers_and_tracks():
    with pytest.raises(ValueError, match=r"Layer: frame_end is 0.0 \(must not be before "
                                         r"frame_start=1.0\)"):
        _curve_layer(frame_start=1.0, frame_end=0.0)
    with pytest.raises(ValueError, match=r"Layer: blend_in is nan"):
        _curve_layer(blend_in=float("nan"))
    with pytest.raises(ValueError, match=r"Layer: influence is inf"):
        _curve_layer(influence=float("inf"))
    with pytest.raises(ValueError, match=r"Track: layers\[1\] starts at 0.5, before "
                                         r"layers\[0\] ends"):
        Track([_curve_layer(frame_end=1.0), _curve_layer(frame_start=0.5, frame_end=2.0)])
    with pytest.raises(ValueError, match=r"LayerStack: tracks\[0\] is a list"):
        LayerStack([[_curve_layer()]])


def test_bad_evaluate_arguments():
    stack = LayerStack([Track([_curve_layer()])])
    with pytest.raises(ValueError, match=r"LayerStack.evaluate: frames at index \(1,\) is nan"):
        stack.evaluate("location", 0, [0.0, np.nan])
    with pytest.raises(ValueError, match=r"LayerStack.evaluate: index is 3 \(must be in "
                                         r"\[0, 3\) for 'location'\)"):
        stack.evaluate("location", 3, [0.0])


def test_pose_refuses_multiply():
    from animcore.gltf import load_scene

    scene = load_scene(FOX)
    stack = LayerStack([Track([Layer(scene.clip("Walk"), mode="MULTIPLY")])])
    with pytest.raises(ValueError, match=r"LayerStack.pose: layer '' mode is 'MULTIPLY'"):
        stack.pose(scene, [0.5])
    with pytest.raises(ValueError, match=r"LayerStack.pose: t at index \(1,\) is inf"):
        stack.pose(scene, [0.5, np.inf])


def test_evaluate_simple_stack_and_repr():
    # one layer: REPLACE at full influence over a default of 0 is the source
    # at the mapped time (scale 2: half speed)
    layer = _curve_layer(frame_start=10.0, frame_end=14.0, action_frame_start=0.0,
                         action_frame_end=2.0, scale=2.0)
    stack = LayerStack([Track([layer], name="base")])
    np.testing.assert_allclose(stack.evaluate("location", 0, [10.0, 11.0, 12.0, 14.0]),
                               [0.0, 1.0, 2.0, 4.0])
    assert "1 tracks" in repr(stack) and "REPLACE" in repr(layer) and "base" in repr(stack.tracks[0])
    assert stack.animates("location", 0) and not stack.animates("location", 1)


def test_live_blender_stacks():
    """Random stacks built in a live Blender, read from its AnimData."""
    pytest.importorskip("bpy", reason="bpy (Blender as a Python module) is not installed; "
                                      "pip install bpy 'numpy<2' into Python 3.11 to run this")
    import random
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "fixtures"))
    import record_nla

    rng = random.Random(7)
    frames = np.arange(-10.0, 50.0, 0.75)
    for i in range(6):
        obj = record_nla.build_case(rng, 100 + i)
        values = record_nla.record(obj, frames)
        stack = layers_from_nla(obj.animation_data)
        for path, recorded in values.items():
            expected = np.array(recorded, dtype=np.float64)
            for index in range(expected.shape[1]):
                if not stack.animates(path, index):
                    continue
                got = stack.evaluate(path, index, frames)
                span = max(np.nanmax(expected[:, index]) - np.nanmin(expected[:, index]), 1.0)
                np.testing.assert_allclose(got, expected[:, index], atol=1e-5 * span, rtol=0)


# ------------------------------------------------------------------ the error contract

FIELDS = ("blend_in", "blend_out", "frame_start", "frame_end", "action_frame_start",
          "action_frame_end", "repeat", "scale", "influence")


@pytest.mark.parametrize("name", FIELDS)
def test_layer_numeric_fields_are_checked(name):
    for value, error, text in (("a", ValueError, r"must be a real number, got 'a'"),
                               (np.array([1.0, 2.0]), ValueError, r"must be a real number"),
                               (float("nan"), ValueError, r"is nan \(must be finite"),
                               (-float("inf"), ValueError, r"is -inf \(must be finite"),
                               (10**400, OverflowError, r"is an integer of 401 digits")):
        with pytest.raises(error, match=rf"^Layer: {name} {text}"):
            _curve_layer(**{name: value})
    layer = _curve_layer(**{name: np.float32(0.5) if name != "frame_end" else 2})
    assert type(getattr(layer, name)) is float


def test_layer_source_kind_is_checked():
    with pytest.raises(ValueError, match=r"^Layer: source is a str \(must be a mapping "):
        Layer("Walk")
    with pytest.raises(ValueError, match=r"^Layer: source\[\('location', 0\)\] is a float "
                                         r"\(must be a curve"):
        Layer({("location", 0): 1.0})


def test_track_and_stack_arguments_are_checked():
    with pytest.raises(ValueError, match=r"^Track: layers\[0\] is a int \(must be a Layer\)"):
        Track([1, 2])
    with pytest.raises(ValueError, match=r"^Track: layers is a int \(must be a sequence of "
                                         r"Layer\)"):
        Track(5)
    with pytest.raises(ValueError, match=r"^LayerStack: action is a int \(must be a Layer or "
                                         r"None\)"):
        LayerStack([], action=5)
    with pytest.raises(ValueError, match=r"^LayerStack: tracks is a int \(must be a sequence "
                                         r"of Track\)"):
        LayerStack(5)
    with pytest.raises(ValueError, match=r"^LayerStack: defaults is a list \(must be a mapping "):
        LayerStack([], defaults=[1, 2])
    with pytest.raises(ValueError, match=r"^LayerStack: defaults\['\[\"p\"\]'\] must be real "
                                         r"numbers, got an array of dtype <U1"):
        LayerStack([], defaults={'["p"]': "a"})
    with pytest.raises(ValueError, match=r"^LayerStack: defaults\['scale'\] at index \(1,\) is "
                                         r"nan \(must be finite\)"):
        LayerStack([], defaults={"scale": [1.0, np.nan, 1.0]})
    with pytest.raises(ValueError, match=r"^LayerStack: defaults\['scale'\] has shape \(2,\) "
                                         r"\(must be one value or 3\)"):
        LayerStack([], defaults={"scale": [1.0, 2.0]})


def test_pose_needs_clip_layers_of_the_scene():
    from animcore.gltf import load_scene

    fox = load_scene(FOX)
    skin = load_scene(os.path.join(os.path.dirname(FOX), "..", "SimpleSkin", "SimpleSkin.gltf"))
    stack = LayerStack([Track([_curve_layer(name="curves")])])
    with pytest.raises(ValueError, match=r"^LayerStack.pose: layer 'curves' holds channel "
                                         r"curves; pose reads Clip layers \(use evaluate for "
                                         r"channels\)"):
        stack.pose(fox, 0.1)
    with pytest.raises(ValueError, match=r"^LayerStack.pose: layer 'action' holds channel "):
        LayerStack([], action=_curve_layer(name="action")).pose(fox, 0.1)
    with pytest.raises(ValueError, match=r"^LayerStack.pose: clip .* animates node"):
        LayerStack([Track([Layer(fox.clips[0])])]).pose(skin, 0.1)
    with pytest.raises(ValueError, match=r"^LayerStack.pose: scene must be a Scene, got str"):
        LayerStack([Track([Layer(fox.clips[0])])]).pose("fox", 0.1)


def _fox():
    from animcore.gltf import load_scene

    return load_scene(FOX)


def test_time_arguments_get_the_methods_names():
    stack = LayerStack([Track([_curve_layer()])])
    fox = _fox()
    clips = LayerStack([Track([Layer(fox.clips[0])])])
    for call, name in ((lambda t: stack.evaluate("location", 0, t), "LayerStack.evaluate: frames"),
                       (lambda t: clips.pose(fox, t), "LayerStack.pose: t")):
        with pytest.raises(ValueError, match=rf"^{name} must be real numbers, got an array of "
                                             r"dtype <U1"):
            call("x")
        with pytest.raises(ValueError, match=rf"^{name} is a ragged nested sequence"):
            call([[1.0], [1.0, 2.0]])
        with pytest.raises(OverflowError, match=rf"^{name} is an integer of 401 digits"):
            call(10**400)
        with pytest.raises(ValueError, match=rf"^{name} at index \(1,\) is nan"):
            call([0.5, np.nan])


def test_pose_names_the_layer_whose_influence_leaves_the_double_range():
    fox = _fox()
    stack = LayerStack([Track([Layer(fox.clips[0], mode="ADD", influence=1e308, name="big")])])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(OverflowError, match=r"^LayerStack.pose: layer 'big' \(ADD\): .*"
                                                r"beyond the float64 range"):
            stack.pose(fox, 0.5)


def test_evaluate_beyond_the_float32_and_double_ranges():
    """Frames are float32, as Blender's: beyond its range an OverflowError; a
    source time, or a value, beyond the double range one naming the layer."""
    from animcore import Curve

    curve = Curve([0, 1], [0, 1])
    stack = LayerStack([Track([Layer({("location", 0): curve})])])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(OverflowError, match=r"^LayerStack.evaluate: frames is 1e\+308 "
                                                r"\(must be representable as float32"):
            stack.evaluate("location", 0, 1e308)
        with pytest.raises(OverflowError, match=r"^LayerStack.evaluate: frames at index \(1,\) "
                                                r"is 1e\+39 \(must be representable as float32"):
            stack.evaluate("location", 0, [0.0, 1e39])
        # a source range beyond float32: the offset from action_frame_start is still right
        far = LayerStack([Track([Layer({("location", 0): curve}, action_frame_end=1e300,
                                       name="far")])])
        assert far.evaluate("location", 0, 0.5) == curve(0.5)
        with pytest.raises(OverflowError, match=r"^LayerStack.evaluate: layer 'far': its frames "
                                                r".* not representable"):
            far.evaluate("location", 0, 1.0)  # its end: action_frame_end itself
        big = {("location", 0): Curve([0, 1], [1e300, 2e300]),
               ("scale", 0): Curve([0, 1], [1e300, 2e300])}
        for mode, path, influence in (("ADD", "location", 1e10), ("SUBTRACT", "location", 1e10),
                                      ("MULTIPLY", "location", 1.0),
                                      ("REPLACE", "location", 1e10),
                                      ("COMBINE", "scale", 2.0), ("COMBINE", "location", 1e10)):
            layers = [Track([Layer(big, name="base")]),
                      Track([Layer(big, mode=mode, influence=influence, name="top")])]
            with pytest.raises(OverflowError, match=rf"^LayerStack.evaluate: layer 'top' "
                                                    rf"\({mode}\) gives {path}\[0\] beyond the "
                                                    rf"float64 range at frame 0.5"):
                LayerStack(layers).evaluate(path, 0, [0.5, 0.75])


def test_curves_of_a_layer_that_misbehave_name_the_layer():
    """A keyed influence or a channel's curve that gives values of the wrong
    shape, no numbers, non-finite numbers or an error of its own."""
    from animcore import Curve

    frames = [0.1, 0.2, 0.3]
    for influence, error, text in (
            (lambda c: [1.0, 1.0], ValueError,
             r"influence gives shape \(2,\) for 3 frames \(must give one value per frame\)"),
            (lambda c: ["a"] * len(c), ValueError, r"influence must be real numbers"),
            (lambda c: np.where(c > 0.15, np.nan, 0.5), ValueError,
             r"influence is nan at frame 0.2"),
            (Curve([0, 0.15], [0, 1], after="error"), ValueError,
             r"influence: Curve: .*")):
        stack = LayerStack([Track([_curve_layer(influence=influence, name="keyed")])])
        with pytest.raises(error, match=rf"^LayerStack.evaluate: layer 'keyed' {text}"):
            stack.evaluate("location", 0, frames)
    fox = _fox()
    stack = LayerStack([Track([Layer(fox.clips[0], influence=lambda c: [1.0, 1.0],
                                     name="keyed")])])
    with pytest.raises(ValueError, match=r"^LayerStack.pose: layer 'keyed' influence gives shape "
                                         r"\(2,\) for 3 frames"):
        stack.pose(fox, frames)
    source = Layer({("location", 0): lambda t: [1.0, 2.0]}, name="src")
    with pytest.raises(ValueError, match=r"^LayerStack.evaluate: layer 'src' curve \('location', "
                                         r"0\) gives shape \(2,\) for 3 source times"):
        LayerStack([Track([source])]).evaluate("location", 0, frames)
    # one value for every frame (a scalar, a list of one) is that value at each
    for one in (lambda c: 0.5, lambda c: [0.5]):
        np.testing.assert_array_equal(
            LayerStack([Track([_curve_layer(influence=one)])]).evaluate("location", 0, frames),
            LayerStack([Track([_curve_layer(influence=0.5)])]).evaluate("location", 0, frames))
    keyed = LayerStack([Track([Layer(fox.clips[0], influence=lambda c: [1.0])])])
    constant = LayerStack([Track([Layer(fox.clips[0])])])
    for a, b in zip(keyed.pose(fox, frames), constant.pose(fox, frames)):
        np.testing.assert_array_equal(a, b)


def test_combine_normalizes_quaternions_as_blender():
    """Blender's normalize_qt: a zero quaternion becomes (0, 1, 0, 0) (w first),
    others their direction at any scale (no underflow or overflow)."""
    from animcore import Curve

    def quaternion(values, **options):
        return Layer({("rotation_quaternion", k): Curve([0, 1], [v, v])
                      for k, v in enumerate(values)}, **options)

    def evaluate(*layers):
        stack = LayerStack([Track([layer]) for layer in layers])
        return np.array([stack.evaluate("rotation_quaternion", k, 0.5) for k in range(4)])

    half = [np.cos(np.pi / 4), np.sin(np.pi / 4), 0.0, 0.0]  # (0, 1, 0, 0) to the power 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(evaluate(quaternion([0, 0, 0, 0], mode="COMBINE",
                                                       influence=0.5)), half, atol=1e-15)
        np.testing.assert_allclose(  # a zero quaternion below
            evaluate(quaternion([0, 0, 0, 0]), quaternion([1, 0, 0, 0], mode="COMBINE")),
            [0, 1, 0, 0], atol=1e-15)
        for scale in (1e-200, 1e-320, 1e200, 1e308):
            np.testing.assert_allclose(
                evaluate(quaternion([scale, scale, 0, 0], mode="COMBINE", influence=1.0)),
                [np.sqrt(0.5), np.sqrt(0.5), 0, 0], atol=1e-15)


def test_custom_property_indices_evaluate_only_that_channel():
    from animcore import Curve

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert LayerStack([]).evaluate('["p"]', 10**12, 0.5) == 0.0
        assert LayerStack([], defaults={'["p"]': 2.0}).evaluate('["p"]', np.int64(2**62),
                                                                  0.5) == 2.0
        far = Layer({('["p"]', 10**12): Curve([0, 1], [3, 3])})
        assert LayerStack([Track([far])]).evaluate('["p"]', 10**12, [0.5]) == [3.0]
        stack = LayerStack([], defaults={'["p"]': [1.0, 2.0, 3.0]})  # one per index
        assert [stack.evaluate('["p"]', k, 0.5) for k in range(3)] == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match=r"^LayerStack.evaluate: defaults\['\[\"p\"\]'\] has 3 "
                                         r"values \(no index 5\)"):
        stack.evaluate('["p"]', 5, 0.5)
    with pytest.raises(ValueError, match=r"^LayerStack.evaluate: index is -1 \(must be >= 0 for "
                                         r"'\[\"p\"\]'\)"):
        stack.evaluate('["p"]', -1, 0.5)
    with pytest.raises(ValueError, match=r"^LayerStack.evaluate: index is 1.0 \(must be in "
                                         r"\[0, 3\) for 'location'\)"):
        stack.evaluate("location", 1.0, 0.5)
