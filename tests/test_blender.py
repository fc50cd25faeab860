"""animcore.blender against Blender itself.

tests/data/blender_fcurves.json holds F-curves built with Blender 5.0.1's own
Python module (bpy) by tests/data/make_blender_fixtures.py and Blender's
fcurve.evaluate at many frames. Blender computes in float32, so values must
agree to 1e-5 of the larger of the curve's value range and the value itself
(the worst case seen is 2.4e-6). At a cycle seam after the keys Blender takes
the value where the cycle ends: there the curve is read on its left side.
"""
import json
import pathlib
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

from animcore import Curve
from animcore.blender import curve_from_fcurve, curve_from_keyframes

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "blender_fcurves.json").read_text())
ARGS = ("interpolation", "easing", "handle_left_type", "handle_right_type", "extrapolation",
        "auto_smoothing", "back", "amplitude", "period", "handle_left", "handle_right",
        "cycles")
TOLERANCE = 1e-5


def blender_side(curve, frames, last_frame):
    """The curve read as Blender reads it at seams (see the module docstring)."""
    return np.where(frames >= last_frame, curve(frames, side="left"), curve(frames))


def check_case(curve, case):
    frames, expected = np.array(case["frames"]), np.array(case["values"])
    got = blender_side(curve, frames, case["co"][-1][0])
    scale = np.maximum(np.ptp(np.array(case["co"])[:, 1]) or 1.0, np.abs(expected))
    err = np.abs(got - expected) / scale
    assert err.max() <= TOLERANCE, (f"worst at frame {frames[err.argmax()]}: animcore "
                                    f"{got[err.argmax()]!r}, Blender {expected[err.argmax()]!r}")


def test_fixture_records_the_tool():
    assert DATA["version"] == "5.0.1" and len(DATA["cases"]) > 100


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["name"] for c in DATA["cases"]])
def test_matches_blender(case):
    kwargs = {k: case[k] for k in ARGS if case.get(k) is not None}
    check_case(curve_from_keyframes(case["co"], **kwargs), case)


def test_given_handles_as_blender_stored_them():
    # recompute_handles=False with Blender's own handles gives the same curves
    for case in DATA["cases"][::7]:
        kwargs = {k: case[k] for k in ARGS if case.get(k) is not None}
        kwargs.update(handle_left=case["blender_handle_left"],
                      handle_right=case["blender_handle_right"], recompute_handles=False)
        check_case(curve_from_keyframes(case["co"], **kwargs), case)


def test_fps_converts_frames_to_seconds():
    case = next(c for c in DATA["cases"] if c.get("cycles") and c["auto_smoothing"] == "NONE")
    kwargs = {k: case[k] for k in ARGS if case.get(k) is not None}
    frames_curve = curve_from_keyframes(case["co"], **kwargs)
    seconds = curve_from_keyframes(case["co"], fps=24, **kwargs)
    f = np.linspace(-20, 60, 57)
    np.testing.assert_allclose(seconds(f / 24), frames_curve(f), atol=1e-12)
    np.testing.assert_allclose(seconds.evaluate(f / 24, 1), 24 * frames_curve.evaluate(f, 1),
                               atol=1e-9)


@pytest.mark.parametrize("kwargs, match", [
    ({"co": [[0, 1, 2]]}, r"curve_from_keyframes: co has shape \(1, 3\), expected \(K, 2\)"),
    ({"co": [[0, 1], [0, 2]]}, r"co at index \(1, 0\) is 0.0 \(frames must increase"),
    ({"co": [[0, 1], [np.nan, 2]]}, r"co at index \(1, 0\) is nan \(must be finite\)"),
    ({"interpolation": "SMOOTH"}, r"interpolation at index \(0,\) is 'SMOOTH' \(must be one of 'CONSTANT'"),
    ({"interpolation": ["LINEAR"]}, r"interpolation has 1 entries, expected one per key \(2\)"),
    ({"easing": "IN"}, r"easing at index \(0,\) is 'IN'"),
    ({"handle_left_type": "AUTOMATIC"}, r"handle_left_type at index \(0,\) is 'AUTOMATIC'"),
    ({"back": [1.0, np.inf]}, r"back at index \(1,\) is inf \(must be finite\)"),
    ({"extrapolation": "CYCLIC"}, r"extrapolation is 'CYCLIC' \(must be 'CONSTANT' or 'LINEAR'\)"),
    ({"auto_smoothing": "SMOOTH"}, r"auto_smoothing is 'SMOOTH'"),
    ({"cycles": ("REPEAT",)}, r"cycles is \('REPEAT',\) \(must be None or \(mode_before, mode_after\)"),
    ({"fps": 0}, r"fps is 0 \(must be a finite number > 0 whose reciprocal is finite\)"),
    ({"handle_left_type": "FREE"}, r"handle_left is needed for 'FREE' keys \(key 0 has no handle\)"),
    ({"recompute_handles": False}, r"handle_left is needed for recompute_handles=False"),
    ({"handle_left": [[0, 0]], "handle_right": [[1, 0], [2, 1]]}, r"handle_left has shape \(1, 2\), expected \(2, 2\)"),
    ({"handle_left": [[0, 0], [1.5, 1]], "handle_right": [[1, 0], [2, 1]], "recompute_handles": False}, r"handle_left at index \(1, 0\) is 1.5 \(a handle may not lie on the other side"),
    ({"handle_left": [[0, 0], [1, 3]], "handle_right": [[0.5, 0], [2, 1]], "recompute_handles": False}, r"handle_left at index \(1,\) is a vertical handle"),
])
def test_bad_input(kwargs, match):
    args = {"co": [[0, 0], [1, 1]], **kwargs}
    with pytest.raises(ValueError, match=match):
        curve_from_keyframes(**args)


# ---- the rules of tests/data/blender_rules.json (make_blender_rules_fixtures.py) ----

RULES = json.loads((pathlib.Path(__file__).parent / "data" / "blender_rules.json").read_text())
RULE_ARGS = ARGS + ("select_left_handle",)
# Blender returns float32 values: agreement to 2e-6 of the larger of the value
# range and the value (the worst case seen is 9e-7)
RULE_TOLERANCE = 2e-6


def rule_error(case, **options):
    """The worst relative difference from Blender over a case's frames, read
    as Blender reads them: a float32 frame, the left side at and after the
    last key (where a cycle ends)."""
    kwargs = {k: case[k] for k in RULE_ARGS if case.get(k) is not None}
    curve = curve_from_keyframes(case["co"], **{**kwargs, **options})
    frames = np.array(case["frames"]).astype(np.float32).astype(np.float64)
    expected = np.array(case["values"])
    got = blender_side(curve, frames, float(np.float32(case["co"][-1][0])))
    scale = np.maximum(np.ptp(np.array(case["co"])[:, 1]) or 1.0, np.abs(expected))
    err = np.abs(got - expected) / scale
    return err.max(), (frames[err.argmax()], got[err.argmax()], expected[err.argmax()])


def test_rule_fixture_records_the_tool():
    rules = [c["rule"] for c in RULES["cases"]]
    assert RULES["version"] == "5.0.1"
    assert all(rules.count(r) >= 30 for r in ("constant_seam", "aligned", "short", "float32"))


@pytest.mark.parametrize("case", RULES["cases"], ids=[c["name"] for c in RULES["cases"]])
def test_matches_blender_rules(case):
    err, (frame, got, expected) = rule_error(case)
    assert err <= RULE_TOLERANCE, f"worst at frame {frame}: animcore {got!r}, Blender {expected!r}"


def test_the_rules_are_what_the_fixture_checks():
    # each rule left out makes its cases fail: the fixture can tell
    def worst(rule, **options):
        return max(rule_error(c, **options)[0] for c in RULES["cases"] if c["rule"] == rule)

    assert worst("float32", float32=False) > 1e-4
    assert worst("aligned", select_left_handle=True) > 0.1
    assert worst("short", select_left_handle=True, float32=False) > RULE_TOLERANCE


def test_constant_last_segment_at_the_last_key_and_seams():
    # issue #28: keys (0, 0), (10, 1), CONSTANT, Cycles REPEAT: Blender gives 1.0
    # at frame 10 (fcm_cycles_time maps a seam to the last key, whose value holds)
    frames = [0.0, 5.0, 10.0, 15.0, 20.0, 30.0, -10.0, -5.0]
    blender = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0]
    curve = curve_from_keyframes([(0, 0), (10, 1)], interpolation="CONSTANT",
                                 cycles=("REPEAT", "REPEAT"))
    np.testing.assert_array_equal(blender_side(curve, np.array(frames), 10.0), blender)
    # without cycles both sides give the last key's value there
    held = curve_from_keyframes([(0, 0), (10, 1)], interpolation="CONSTANT")
    assert held(10.0) == held(10.0, side="left") == 1.0
    assert held(9.999) == 0.0 and held(10.0, 1, side="left") == 0.0
    # the offset of REPEAT_OFFSET applies to the seam's key value
    offset = curve_from_keyframes([(0, 0), (10, 1)], interpolation="CONSTANT",
                                  cycles=("REPEAT_OFFSET", "REPEAT_OFFSET"))
    assert offset(20.0, side="left") == 2.0 and offset(-10.0) == -1.0


def test_float32_handles_far_along_the_extrapolation():
    # keys 7/256 frame apart, AUTO handles, LINEAR extrapolation: the slope of
    # the outer handle comes from float32 handles; float64 handles differ by
    # far more than float32 rounding of the result, 5000 frames out
    co = [(0.0, 0.0), (7 / 256, 1.0), (14 / 256, -0.5)]
    kwargs = dict(handle_left_type="AUTO", handle_right_type="AUTO", extrapolation="LINEAR")
    f32 = curve_from_keyframes(co, **kwargs)(-5000.0)
    f64 = curve_from_keyframes(co, float32=False, **kwargs)(-5000.0)
    # the outer handle's slope, derived by hand in float32 steps
    one = np.float32(7 / 256)
    tvec = np.float32(np.float32(1.0) / one) + np.float32(np.float32(1.0) / one)  # (1/dt) * 2
    length = np.float32(np.float32(2.0) * np.float32(2.5614))  # tvec[0] * 2.5614
    q = np.float32(one / length)
    handle = (np.float32(0.0 + np.float32(np.float32(2.0) * -q)),
              np.float32(0.0 + np.float32(tvec * -q)))
    slope = (0.0 - float(handle[1])) / (0.0 - float(handle[0]))
    assert f32 == pytest.approx(-5000.0 * slope, rel=1e-12)
    assert f32 != f64  # (the fixture's float32 cases differ by up to 3e-4 of the value)


@pytest.mark.parametrize("kwargs, match", [
    ({"cycles": 5}, r"curve_from_keyframes: cycles is 5 \(must be None or \(mode_before, mode_after\)"),
    ({"cycles": [["REPEAT"], "NONE"]}, r"curve_from_keyframes: cycles is \[\['REPEAT'\], 'NONE'\]"),
    ({"fps": "abc"}, r"curve_from_keyframes: fps is 'abc' \(must be a finite number > 0\)"),
    ({"fps": 10**400}, r"curve_from_keyframes: fps is an integer of 401 digits \(must be a finite number > 0"),
    ({"fps": 5e-324}, r"curve_from_keyframes: fps is 5e-324 \(must be a finite number > 0 whose reciprocal is finite\)"),
    ({"fps": float("nan")}, r"curve_from_keyframes: fps is nan"),
    ({"fps": True}, r"curve_from_keyframes: fps is True"),
    ({"fps": 1e-300, "co": [[0, 0], [1e10, 1]]}, r"curve_from_keyframes: fps is 1e-300 \(the key frames 0.0 to 10000000000.0 in seconds"),
    ({"select_left_handle": [True]}, r"curve_from_keyframes: select_left_handle is \[True\] \(must be a bool or a sequence of 2 bools"),
    ({"select_left_handle": "yes"}, r"curve_from_keyframes: select_left_handle is 'yes'"),
    ({"float32": 1}, r"curve_from_keyframes: float32 is 1 \(must be True or False\)"),
    ({"co": [[0, 0], [1, 1e39]]}, r"curve_from_keyframes: co at index \(1, 1\) is 1e\+39 \(beyond float32"),
    ({"co": [[1, 0], [1 + 1e-12, 1]]}, r"curve_from_keyframes: co at index \(1, 0\) is 1.000000000001 \(frames must differ in float32"),
    ({"co": [[0.1, 0], [0.1 + 1e-12, 1]]}, r"curve_from_keyframes: co at index \(1, 0\) is 0.10000000000100001 \(frames must differ in float32"),
])
def test_bad_options_are_value_errors_without_warnings(kwargs, match):
    args = {"co": [[0, 0], [1, 1]], **kwargs}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=match):
            curve_from_keyframes(**args)


@pytest.mark.parametrize("kwargs, match", [
    ({"interpolation": "ELASTIC", "period": 1e308, "fps": 1e-3},
     r"curve_from_keyframes: period at index \(0,\) is 1e\+308 frames, beyond the double range"),
    ({"recompute_handles": False, "float32": False, "handle_left_type": "FREE",
      "handle_right_type": "FREE", "handle_left": [[-1, 0], [0.5, 1]],
      "handle_right": [[1e-300, 1e308], [2, 1]]},
     r"curve_from_keyframes: handle_right at index \(0,\) is \[1e-300, 1e\+308\]: its slope"),
])
def test_parameters_beyond_the_double_range_are_overflow_errors(kwargs, match):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (was: a RuntimeWarning, then inf)
        with pytest.raises(OverflowError, match=match):
            curve_from_keyframes([[0, 0], [1, 1]], **kwargs)


def test_float32_off_keeps_float64_keys():
    curve = curve_from_keyframes([[1, 0], [1 + 1e-12, 0.1]], float32=False)
    assert curve.times[1] == 1 + 1e-12 and curve.values[1] == 0.1
    assert curve_from_keyframes([[0, 0], [1, 0.1]]).values[1] == float(np.float32(0.1))


def test_blender_curves_pickle_and_copy():
    import copy
    import pickle

    for interpolation in ("CONSTANT", "ELASTIC", ["CONSTANT", "BACK", "BEZIER"]):
        curve = curve_from_keyframes([(0, 0), (10, 1), (20, -1)], interpolation=interpolation,
                                     cycles=("REPEAT", "MIRROR"))
        for other in (pickle.loads(pickle.dumps(curve)), copy.deepcopy(curve)):
            assert other == curve
            np.testing.assert_array_equal(other([5.0, 10.0, 20.0, 40.0], side="left"),
                                          curve([5.0, 10.0, 20.0, 40.0], side="left"))


def test_live_bpy_when_installed():
    bpy = pytest.importorskip("bpy", reason="bpy (Blender as a Python module) is not installed; "
                                            "pip install bpy into Python 3.11 to run this test")
    obj = bpy.data.objects.new("animcore_live", None)
    act = bpy.data.actions.new("animcore_live")
    obj.animation_data_create()
    obj.animation_data.action = act
    fc = act.fcurve_ensure_for_datablock(obj, "location", index=1)
    for f, v in [(1, 0.0), (7, 3.0), (9, -1.0), (20, 2.0)]:
        fc.keyframe_points.insert(f, v)
    fc.keyframe_points[1].interpolation = "ELASTIC"
    fc.keyframe_points[2].handle_right_type = "VECTOR"
    fc.extrapolation = "LINEAR"
    fc.modifiers.new("CYCLES").mode_before = "MIRROR"
    fc.update()
    curve = curve_from_fcurve(fc)
    frames = np.linspace(-30, 60, 301)
    expected = np.array([fc.evaluate(f) for f in frames])
    got = blender_side(curve, frames, 20.0)
    np.testing.assert_allclose(got, expected, atol=TOLERANCE * max(5.0, np.abs(expected).max()))


CURVE_MODES = {"REPEAT": "cycle", "REPEAT_OFFSET": "cycle_offset", "MIRROR": "oscillate"}


@pytest.mark.parametrize("case", [c for c in DATA["cases"] if c["interpolation"] == "BEZIER"
                                  and isinstance(c["handle_left_type"], str)
                                  and c["handle_left_type"] != "FREE"
                                  and (c.get("cycles") or ["REPEAT"])[0] != "NONE"],
                         ids=lambda c: c["name"])
def test_curve_tangent_policies_match_blender(case):
    # the same rules as Curve tangent policies, on times and values alone
    co = np.array(case["co"])
    extrap = "clamp" if case["extrapolation"] == "CONSTANT" else "linear"
    modes = [CURVE_MODES[m] for m in case["cycles"]] if case.get("cycles") else [extrap] * 2
    curve = Curve(co[:, 0], co[:, 1], interpolation="bezier",
                  tangents=case["handle_left_type"].lower(),
                  auto_smoothing=case["auto_smoothing"].lower(), before=modes[0],
                  after=modes[1])
    check_case(curve, case)


def _default_settings(case):
    """Whether Blender made the case's keys with its defaults for new keys:
    BEZIER interpolation, AUTO_CLAMPED handles, auto smoothing None."""
    return (case["interpolation"] == "BEZIER" and case["handle_left_type"] == "AUTO_CLAMPED"
            and case["handle_right_type"] == "AUTO_CLAMPED"
            and case["auto_smoothing"] == "NONE")


@pytest.mark.parametrize("case", [c for c in DATA["cases"] if _default_settings(c)],
                         ids=lambda c: c["name"])
def test_default_curve_is_blenders_default_keys(case):
    # Curve(times, values) with no options against the F-curve Blender evaluated for
    # the same keys (frames read as seconds); Blender's constant extrapolation is
    # the default "clamp", its LINEAR extrapolation and Cycles modes are named
    co = np.array(case["co"])
    extrap = "clamp" if case["extrapolation"] == "CONSTANT" else "linear"
    modes = ([CURVE_MODES.get(m, extrap) for m in case["cycles"]] if case.get("cycles")
             else [extrap] * 2)
    options = {} if modes == ["clamp", "clamp"] else {"before": modes[0], "after": modes[1]}
    curve = Curve(co[:, 0], co[:, 1], **options)
    assert (curve.interpolation, curve.tangents) == ("bezier", "auto_clamped")
    check_case(curve, case)
    # no segment leaves its keys' range (auto-clamped handles never pass a neighbour)
    segments = curve.overshoot()
    assert segments.overshoot.max() <= 1e-12 * np.ptp(co[:, 1])


def test_the_default_cases_are_in_the_fixture():
    defaults = [c for c in DATA["cases"] if _default_settings(c)]
    assert sum(c["extrapolation"] == "CONSTANT" and not c.get("cycles") for c in defaults) >= 4
    assert len(defaults) >= 12


@pytest.mark.parametrize("times, values, match", [
    ([0, 1, 1], [0, 1, 2], r"Curve: times at index \(2,\) is 1.0 \(equals the previous time \(a jump needs jumps=True\)\)"),
    ([0, 2, 1], [0, 1, 2], r"Curve: times at index \(2,\) is 1.0, which is less than times\[1\] = 2.0"),
    ([0, 1, 2], [0, np.nan, 2], r"Curve: values at index \(1,\) is nan \(must be finite\)"),
])
def test_curve_tangent_policy_key_errors(times, values, match):
    with pytest.raises(ValueError, match=match):
        Curve(times, values, interpolation="bezier", tangents="auto_clamped")


@pytest.mark.parametrize("kwargs, match", [
    ({"tangents": "auto", "interpolation": "cubic"}, r"Curve: tangents='auto' sets Blender's handles, of free time length: it needs 'bezier' segments"),
    ({"tangents": ["auto", "spline"], "interpolation": "bezier"}, r"Curve: tangents at index \(1,\) is 'spline'"),
    ({"tangents": ["auto"], "interpolation": "bezier"}, r"Curve: tangents has 1 entries, expected one per key \(2\)"),
    ({"tangents": "auto", "interpolation": "bezier", "auto_smoothing": "smooth"}, r"Curve: auto_smoothing is 'smooth'"),
    ({"tangents": "pchip", "auto_smoothing": "none"}, r"Curve: auto_smoothing applies to the tangents 'auto', 'auto_clamped' and 'vector', not 'pchip'"),
    ({"tangents": "free", "interpolation": "bezier"}, r"Curve: 'free' keys keep given handles"),
])
def test_curve_tangent_policy_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Curve([0, 1], [0, 1], **kwargs)


# ---- properties of the rules, on random keys ----

_keys = st.lists(st.tuples(st.floats(0.05, 20), st.floats(-100, 100)), min_size=2, max_size=9)


def _co(pairs):
    return np.c_[np.cumsum([p[0] for p in pairs]), [p[1] for p in pairs]]


@given(_keys, st.sampled_from(["NONE", "CONT_ACCEL"]))
def test_auto_clamped_never_passes_its_keys(pairs, smoothing):
    # Blender's promise for auto-clamped keys under constant extrapolation:
    # each segment stays between the values of its two keys
    co = _co(pairs)
    curve = curve_from_keyframes(co, auto_smoothing=smoothing, float32=False)
    for (t0, v0), (t1, v1) in zip(co[:-1], co[1:]):
        values = curve(np.linspace(t0, t1, 41))
        span = 1e-9 * max(1.0, abs(v0), abs(v1))
        assert values.min() >= min(v0, v1) - span and values.max() <= max(v0, v1) + span


@given(_keys)
def test_vector_handles_point_a_third_of_the_way(pairs):
    co = _co(pairs)
    curve = curve_from_keyframes(co, handle_left_type="VECTOR", handle_right_type="VECTOR",
                                 float32=False)
    # each segment is then the straight line between its keys
    for (t0, v0), (t1, v1) in zip(co[:-1], co[1:]):
        t = np.linspace(t0, t1, 9)
        np.testing.assert_allclose(curve(t), v0 + (t - t0) / (t1 - t0) * (v1 - v0),
                                   atol=1e-9 * max(1.0, abs(v0), abs(v1)))


def test_tangents_binding_checks_its_arrays():
    from animcore import _core

    co = np.array([[0.0, 0.0], [1.0, 1.0]])
    types = np.array([3, 3], np.uint8)
    with pytest.raises(ValueError, match=r"f: keys must have shape \(K, 2\)"):
        _core._tangents_blender("f", co[0], types, types, 0, co, co)
    with pytest.raises(ValueError, match=r"f: left must have shape \(2, 2\)"):
        _core._tangents_blender("f", co, types, types, 0, co[:1], co)
    with pytest.raises(ValueError, match=r"f: handle types must have 2 entries"):
        _core._tangents_blender("f", co, types[:1], types, 0, co, co)
    with pytest.raises(ValueError, match=r"f: left_types at index \(1,\) is 7 \(must be an "
                                         r"ac_handle_type\)"):
        _core._tangents_blender("f", co, np.array([3, 7], np.uint8), types, 0, co, co)
    with pytest.raises(ValueError, match=r"f: keys at index \(1, 0\) is 0.0 \(must be > the previous "
                                         r"time 0\)"):
        _core._tangents_blender("f", np.zeros((2, 2)), types, types, 0, co, co)
    with pytest.raises(ValueError, match=r"f: values must have shape \(2,\) or \(2, C\)"):
        _core._tangents_auto_ease("f", np.array([0.0, 1.0]), np.array([0.0]))
