"""Numbers at the limits: extreme but finite inputs (1e308, 1e-310, spans wider
than DBL_MAX, mixed magnitudes) give the representable result, or an
OverflowError / ValueError naming the argument; never NaN, infinity,
uninitialised memory or a RuntimeWarning. References are computed here by
other routes (exact fmod, Bernstein form, scipy, limits taken by hand)."""
import math
import warnings

import numpy as np
import pytest

import animcore as ac
from reference import turning_delta

BIG, TINY = 1e308, 1e-310
Q90 = [0.0, 0.0, math.sqrt(0.5), math.sqrt(0.5)]  # 90 degrees about z


@pytest.fixture(autouse=True)
def warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# ------------------------------------------------------------ rotation curves

@pytest.mark.parametrize("component", [1e-170, 1e-300, 1e200, 1e308])
def test_one_key_rotation_curve_normalizes_any_magnitude(component):
    curve = ac.RotationCurve([0.0], [[component] * 4], interpolation="cubic",
                             in_tangents=np.zeros((1, 4)), out_tangents=np.zeros((1, 4)))
    for _ in range(3):  # uninitialised memory would change from call to call
        np.testing.assert_array_equal(curve.evaluate([0.0, 1.0]), np.full((2, 4), 0.5))


@pytest.mark.parametrize("scale", [1e-170, 1e200])
def test_cubic_rotation_curve_with_keys_of_any_magnitude(scale):
    times, keys = [0.0, 1.0], np.array([[0, 0, 0, 1.0], Q90])
    zeros = np.zeros((2, 4))
    unit = ac.RotationCurve(times, keys, interpolation="cubic", in_tangents=zeros,
                            out_tangents=zeros)
    scaled = ac.RotationCurve(times, keys * scale, interpolation="cubic", in_tangents=zeros,
                              out_tangents=zeros)
    t = np.linspace(0, 1, 7)
    np.testing.assert_allclose(scaled.evaluate(t), unit.evaluate(t), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(scaled.angular_velocity(t), unit.angular_velocity(t),
                               rtol=1e-12, atol=1e-14)


def test_rotation_curve_cycle_at_huge_times():
    period = 0.3
    curve = ac.RotationCurve([0.0, period], [[0, 0, 0, 1.0], Q90], after="cycle")
    for t in (1.7e308, 1e300, 12345.678):
        local = math.fmod(t, period)  # exact
        np.testing.assert_array_equal(curve.evaluate([t]), curve.evaluate([local]))
    oscillating = ac.RotationCurve([0.0, period], [[0, 0, 0, 1.0], Q90], after="oscillate")
    t = 1.7e308
    local = math.fmod(t, period)
    odd = math.fmod(t, 2 * period) >= period
    expected = oscillating.evaluate([period - local if odd else local])
    np.testing.assert_array_equal(oscillating.evaluate([t]), expected)


def test_rotation_curve_keys_more_than_dbl_max_apart():
    curve = ac.RotationCurve([-BIG, BIG], [[0, 0, 0, 1.0], Q90])
    half = [0, 0, math.sin(math.pi / 8), math.cos(math.pi / 8)]  # 45 degrees about z
    np.testing.assert_allclose(curve.evaluate([0.0, BIG, 1.5e308, -BIG]),
                               [half, Q90, Q90, [0, 0, 0, 1]], atol=1e-15)


def test_angular_velocity_of_keys_too_close_is_an_overflow_error():
    curve = ac.RotationCurve([0.0, TINY], [[0, 0, 0, 1.0], Q90])
    with pytest.raises(OverflowError, match=r"RotationCurve.angular_velocity: angular_velocity "
                                            r"at index \(0,\) is inf"):
        curve.angular_velocity([TINY / 2])
    np.testing.assert_allclose(curve.evaluate([TINY]), [Q90])  # the rotation itself is fine


# ------------------------------------------------------------------- curves

def test_linear_curve_over_keys_more_than_dbl_max_apart():
    curve = ac.Curve([-BIG, BIG], [0, 1], interpolation="linear")
    np.testing.assert_allclose(curve([0.0, -BIG, BIG, 5e307, -5e307]),
                               [0.5, 0, 1, 0.75, 0.25], rtol=1e-15, atol=0)
    assert curve.evaluate([0.0], 1)[0] == pytest.approx(1 / 2e308, rel=1e-12)


def test_cubic_curve_over_keys_more_than_dbl_max_apart():
    # p(u) = 3u^2 - 2u^3 on flat keys: the same shape over any span
    curve = ac.Curve([-BIG, BIG], [0, 1], tangents="flat")
    u = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(curve((2 * u - 1) * BIG),
                               3 * u**2 - 2 * u**3, rtol=1e-15, atol=1e-16)


@pytest.mark.parametrize("mode", ["cycle", "oscillate", "cycle_offset"])
def test_curve_cycles_at_huge_times(mode):
    period = 0.3
    curve = ac.Curve([0.0, period], [0.0, 0.0 if mode == "cycle_offset" else 1.0],
                     interpolation="linear", after=mode)
    t = 1.7e308
    local = math.fmod(t, period)
    odd = math.fmod(t, 2 * period) >= period
    if mode == "oscillate" and odd:
        local = period - local
    expected = 0.0 if mode == "cycle_offset" else local / period
    assert curve([t])[0] == pytest.approx(expected, rel=1e-12)


def test_cycle_offset_that_overflows_is_an_overflow_error():
    curve = ac.Curve([0.0, 0.3], [0.0, 1.0], interpolation="linear", after="cycle_offset")
    with pytest.raises(OverflowError, match=r"value at index \(0,\) is inf"):
        curve([1.7e308])


def h(s):  # flat cubic from 0 to 1 over a unit span
    return 3 * s**2 - 2 * s**3


@pytest.mark.parametrize("build, velocity", [
    (lambda: ac.Curve([0, 1], [0, 1], tangents="flat", ease="circ_out"), [6.0, 0.0]),
    (lambda: ac.Curve([0, 1], [0, 1], tangents="flat").remap_time("circ_out"), [6.0, 0.0]),
    (lambda: ac.Curve([0, 2], [0, 1], tangents="flat", ease="circ_out"), [3.0, 0.0]),
    (lambda: ac.Curve([0, 1], [0, 1], tangents="flat", ease="circ_in"), [0.0, 6.0]),
    (lambda: ac.Curve([0, 2], [0, 1], tangents="flat", ease=ac.CubicBezier(0, 0.5, 0.5, 1)),
     [2.25, 0.0]),
])
def test_velocity_where_the_easing_rate_is_infinite_is_the_limit(build, velocity):
    curve = build()
    got = curve.evaluate([curve.times[0], curve.times[-1]], 1)
    np.testing.assert_allclose(got, velocity, rtol=1e-12, atol=1e-12)
    # the limit of the velocity next to the ends, evaluated by the curve itself
    eps = 1e-7 * (curve.times[-1] - curve.times[0])
    near = curve.evaluate([curve.times[0] + eps, curve.times[-1] - eps], 1)
    np.testing.assert_allclose(near, velocity, rtol=1e-3, atol=1e-3)


def test_circ_out_velocity_matches_a_difference_quotient():
    curve = ac.Curve([0, 1], [0, 1], tangents="flat", ease="circ_out")
    t = 1e-14
    s = math.sqrt(t * (2 - t))  # circ_out, 1 - sqrt(1 - u)^2 without cancellation
    assert curve.evaluate([0.0], 1)[0] == pytest.approx(h(s) / t, rel=1e-6)


def test_key_slopes_where_the_easing_rate_is_infinite():
    curve = ac.Curve([0, 1, 3], [0, 1, 0], tangents="flat", ease="circ_out")
    slopes = curve.key_slopes()
    # leaving key 1 at rest, circ_out: acceleration (6 / 2^2) times the span 2
    np.testing.assert_allclose([slopes.left[0], slopes.right[0]], [0.0, -3.0])
    assert slopes.right[0] == pytest.approx(curve.evaluate([1.0 + 1e-9], 1)[0], rel=1e-3)
    moving = ac.Curve([0, 1, 3], [0, 1, 3], ease="circ_out")
    with pytest.raises(OverflowError, match="Curve.key_slopes: right slope at index"):
        moving.key_slopes()


def test_moving_curve_under_an_infinite_easing_rate_is_an_overflow_error():
    curve = ac.Curve([0, 2], [0, 1], interpolation="linear", ease="circ_out")
    with pytest.raises(OverflowError, match=r"Curve.evaluate: velocity at index \(0,\) is not "
                                            r"representable: the time remap's rate is infinite"):
        curve.evaluate([0.0], 1)


def test_overshoot_of_huge_values_is_found():
    unit = ac.Curve([0, 1, 2, 3], [0, 1, -1, 0]).overshoot()
    huge = ac.Curve([0, 1, 2, 3], [0, 1e200, -1e200, 0]).overshoot()
    np.testing.assert_allclose(huge.high, unit.high * 1e200, rtol=1e-14)
    np.testing.assert_allclose(huge.overshoot, unit.overshoot * 1e200, rtol=1e-12)
    np.testing.assert_array_equal(huge.time_high, unit.time_high)
    # against dense sampling of the curve itself
    curve = ac.Curve([0, 1, 2, 3], [0, 1e200, -1e200, 0])
    sampled = curve(np.linspace(0, 1, 20001)).max()
    assert huge.high[0] == pytest.approx(sampled, rel=1e-8)
    assert huge.high[0] > 1e200


def test_stretched_beyond_the_double_range_is_an_overflow_error():
    with pytest.raises(OverflowError, match="Curve.stretched"):
        ac.Curve([0, 1, 2], [0, 1, 0]).stretched(1e308)
    with pytest.raises(OverflowError, match=r"Curve.stretched: factor=1e\+308 moves key 2"):
        ac.Curve([0, 1, 2], [0, 1, 0], interpolation="linear").stretched(1e308)


def test_eased_curve_over_an_overflowing_span():
    curve = ac.Curve([-BIG, BIG], [0, 1], interpolation="linear", ease="quad_in")
    np.testing.assert_allclose(curve([0.0, -BIG, BIG]), [0.25, 0, 1], rtol=1e-15, atol=0)
    remapped = ac.Curve([-BIG, BIG], [0, 1], interpolation="linear").remap_time("quad_in")
    np.testing.assert_allclose(remapped([0.0, 5e307]), [0.25, 0.5625], rtol=1e-15)


def test_cubic_bezier_with_huge_control_values():
    # x(0.5) = 0.5 for x1 = 0.25, x2 = 0.75; y(0.5) = 3 (1/2)^3 y2 + (1/2)^3 (Bernstein form)
    assert ac.CubicBezier(0.25, 0, 0.75, BIG)(0.5) == pytest.approx(3.75e307, rel=1e-14)
    assert ac.CubicBezier(0.25, -BIG, 0.75, BIG)(0.5) == pytest.approx(0.5, abs=1e292)
    u = np.linspace(0, 1, 9)[1:-1]
    for y1, y2 in ((0, 2e300), (-1e300, 1e307), (0.3, 0.9)):
        np.testing.assert_allclose(ac.CubicBezier(0.25, y1, 0.75, y2)(u),
                                   _bezier_y(u, 0.25, y1, 0.75, y2), rtol=1e-10, atol=1e-12)


def _bezier_y(u, x1, y1, x2, y2):
    """y at x = u by bisection on the Bernstein form (values may be huge)."""
    out = []
    for x in np.atleast_1d(u):
        lo, hi = 0.0, 1.0
        for _ in range(200):
            t = 0.5 * (lo + hi)
            s = 1 - t
            if 3 * s * s * t * x1 + 3 * s * t * t * x2 + t**3 < x:
                lo = t
            else:
                hi = t
        t = 0.5 * (lo + hi)
        s = 1 - t
        out.append(3 * (s * t) * (s * y1 + t * y2) + t**3)
    return np.array(out)


# ------------------------------------------------------------- root motion

def test_loop_delta_that_overflows_is_an_overflow_error():
    track = ac.LoopTrack([0, 1], [0, BIG])
    assert track.delta(0, 0.5) == 5e307
    with pytest.raises(OverflowError, match=r"LoopTrack.delta: translation at index \(\) is inf"):
        track.delta(0, 2.5)


def test_cursor_advance_that_overflows_raises_and_keeps_the_cursor():
    cursor = ac.RootMotionCursor(ac.LoopTrack([0, 1], [0, BIG]), 0.25)
    with pytest.raises(OverflowError, match="RootMotionCursor.advance: translation"):
        cursor.advance(2.5)
    assert cursor.time == 0.25
    assert cursor.advance(0.25) == pytest.approx(0.25 * BIG)


def test_huge_yaw_angles_turn_by_their_exact_value():
    times, positions, yaw = [0.0, 1.0], [[0.0, 0.0], [1.0, 0.5]], [0.0, BIG]
    track = ac.LoopTrack(times, positions, rotations=yaw)
    # one cycle: turn by 1e308 rad (cos and sin reduce it exactly), move by (1, 0.5)
    c, s = math.cos(BIG), math.sin(BIG)
    cycle = np.array([[c, -s, 1.0], [s, c, 0.5], [0, 0, 1]])
    small = ac.LoopTrack(times, positions, rotations=[0.0, 0.3])
    for cycles in (1, 2, 3):
        delta = track.delta(0.0, float(cycles))
        expected = np.linalg.matrix_power(cycle, cycles)
        np.testing.assert_allclose(delta.translation, expected[:2, 2], atol=1e-9)
        angle = math.atan2(expected[1, 0], expected[0, 0])
        assert math.cos(delta.rotation - angle) == pytest.approx(1.0, abs=1e-12)
        # the convention, checked against scipy on an ordinary angle
        reference = turning_delta(times, positions, [0.0, 0.3], 0.0, float(cycles))
        np.testing.assert_allclose(small.delta(0.0, float(cycles)).translation,
                                   reference[:2, 3], atol=1e-12)


def test_yaw_angles_whose_difference_overflows_are_rejected():
    with pytest.raises(ValueError, match=r"LoopTrack: rotations at index \(1,\) is 1e\+308 "
                                         r"\(must differ from the previous and first key"):
        ac.LoopTrack([0, 1], [[0, 0], [1, 1]], rotations=[-BIG, BIG])


# ---------------------------------------------------------------- snapshots

def test_float16_tick_pushes_without_a_warning():
    timeline = ac.SnapshotTimeline()
    assert timeline.push(np.float16(2), 0, 1.0) == ac.PushResult.ACCEPTED
    with pytest.raises(ValueError, match=r"tick at index \(\) is 2.5 \(must be an integer\)"):
        timeline.push(np.float16(2.5), 0, 1.0)
