"""The key model of Curve: per-segment interpolation, weighted Bezier handles,
eased segments, natural tangents, sloped extrapolation and sides, against
independent references (scipy, Bernstein forms solved with brentq, Penner's
equations written out in tests/reference.py)."""
import numpy as np
import pytest
from scipy.interpolate import CubicSpline

from animcore import CubicBezier, Curve, Ease, easing_kinds
from reference import bezier_2d, css_cubic_bezier, hermite_bezier, penner


def central(c, t, d, h=1e-5, **kw):
    """Central difference of derivative d - 1 of curve c at t."""
    return (c.evaluate(t + h, d - 1, **kw) - c.evaluate(t - h, d - 1, **kw)) / (2 * h)


def handle_points(times, values, vin, vout, w_in, w_out):
    """Absolute Bezier control points of every segment, with Blender's rule:
    a handle longer in time than its segment is scaled back along itself."""
    times = np.asarray(times, float)
    out_pts, in_pts = [None] * len(times), [None] * len(times)
    for i in range(len(times) - 1):
        T = times[i + 1] - times[i]
        wo, wi = min(w_out[i], 1.0), min(w_in[i + 1], 1.0)
        out_pts[i] = (times[i] + wo * T, values[i] + vout[i] * wo * T)
        in_pts[i + 1] = (times[i + 1] - wi * T, values[i + 1] - vin[i + 1] * wi * T)
    return out_pts, in_pts


# -- weighted Bezier ---------------------------------------------------------------

def test_bezier_weights_against_bernstein_reference():
    rng = np.random.default_rng(3)
    times = np.cumsum(rng.uniform(0.2, 2.0, 12))
    values = rng.normal(0, 3, 12)
    vin, vout = rng.normal(0, 4, 12), rng.normal(0, 4, 12)
    w_in, w_out = rng.uniform(0.0, 1.4, 12), rng.uniform(0.0, 1.4, 12)  # some scaled back
    c = Curve(times, values, interpolation="bezier", in_velocities=vin, out_velocities=vout,
              in_weights=w_in, out_weights=w_out)
    t = np.r_[rng.uniform(times[0], times[-1], 400), times[:-1]]
    out_pts, in_pts = handle_points(times, values, vin, vout, w_in, w_out)
    expected = bezier_2d(times, values, out_pts, in_pts, t)
    np.testing.assert_allclose(c(t), expected, rtol=0, atol=1e-11)
    # any order of the queries gives the same bits
    perm = rng.permutation(t.size)
    np.testing.assert_array_equal(c(t[perm]), c(t)[perm])
    # handle weights without an interpolation name make bezier segments
    unnamed = Curve(times, values, in_velocities=vin, out_velocities=vout, in_weights=w_in,
                    out_weights=w_out)
    assert unnamed.interpolation == "bezier"
    np.testing.assert_array_equal(unnamed(t), c(t))


@pytest.mark.parametrize("w_out, w_in", [
    (0.0, 0.0), (1.0, 1.0),      # dx/ds = 0 at both ends
    (0.95, 0.95), (0.999, 0.9),  # handles that cross in time: a near-flat middle
    (0.0, 1.0), (1e-9, 0.999),   # all of the time change at one end
])
def test_bezier_time_solve_within_1e_12_in_time(w_out, w_in):
    # the value at t is the reference's value at a time within 1e-12 of t, even
    # where time barely moves with the curve parameter (a vertical tangent)
    times, values = np.array([0.0, 1.0, 1.5]), np.array([0.0, 1.0, -1.0])
    vin, vout = np.array([0.0, 4.0, 0.0]), np.array([-3.0, 2.0, 0.0])
    w_in_k, w_out_k = np.array([1 / 3, w_in, 0.7]), np.array([w_out, 0.2, 1 / 3])
    c = Curve(times, values, interpolation="bezier", in_velocities=vin, out_velocities=vout,
              in_weights=w_in_k, out_weights=w_out_k)
    t = np.r_[np.linspace(0.0, 1.5, 301)[:-1], np.linspace(0.0, 1e-6, 20), 1.0 - 1e-9]
    out_pts, in_pts = handle_points(times, values, vin, vout, w_in_k, w_out_k)
    before = bezier_2d(times, values, out_pts, in_pts, np.maximum(t - 1e-12, 0.0))
    after = bezier_2d(times, values, out_pts, in_pts, t + 1e-12)
    got = c(t)
    assert np.all(got >= np.minimum(before, after) - 1e-13)
    assert np.all(got <= np.maximum(before, after) + 1e-13)
    perm = np.random.default_rng(0).permutation(t.size)  # the scalar path: same bits
    np.testing.assert_array_equal(c(t[perm]), got[perm])


def test_bezier_time_solve_within_1e_12_in_time_exactly():
    # Every segment's value handles sit at 1/3 and 2/3 of its value change, so
    # the value is linear in the curve parameter s and gives s back; the time
    # at that s, from the handle points in exact rational arithmetic, lies
    # within 1e-12 of t times the duration. Handles of every adversarial kind:
    # near-vertical time (1e-9), crossing in time with a flat spot (1, 1) or
    # nearly (0.95), all of the time change at one end, and random ones; dense
    # queries where time barely moves; sorted (in lanes) and reversed (one
    # query at a time) giving the same bits.
    from fractions import Fraction
    rng = np.random.default_rng(31)
    weights = [(1e-9, 1e-9), (1e-9, 0.999), (0.95, 0.95), (1.0, 1.0), (0.999, 0.9),
               (1.0, 1e-6), (1 / 3, 1 / 3)] + [tuple(w) for w in rng.uniform(0.01, 1.0, (13, 2))]
    n = len(weights)
    times = 10.0 + np.r_[0.0, np.cumsum(rng.uniform(0.1, 3.0, n))]
    values = rng.choice([-1.0, 1.0], n + 1) * rng.uniform(0.5, 3.0, n + 1)
    values[::2] = 0.0  # small values, so the value gives s back to 1e-15
    left, right = np.zeros((n + 1, 2)), np.zeros((n + 1, 2))
    left[0], right[n] = (times[0] - 1.0, values[0]), (times[n] + 1.0, values[n])
    for j, (wo, wi) in enumerate(weights):
        T, dv = times[j + 1] - times[j], values[j + 1] - values[j]
        right[j] = (times[j] + wo * T, values[j] + dv / 3)
        left[j + 1] = (times[j + 1] - wi * T, values[j] + 2 * dv / 3)
    c = Curve.from_handles(times, values, left, right)
    u = np.unique(np.r_[np.linspace(0.0, 1.0, 120)[:-1], np.linspace(0.0, 1e-6, 12),
                        0.5 + np.linspace(-1e-6, 1e-6, 12), 1.0 - np.linspace(1e-9, 1e-6, 12)])
    t = np.concatenate([times[j] + u * (times[j + 1] - times[j]) for j in range(n)])
    t = t[t < times[-1]]
    got = c(t)
    assert_same_bits(got, c(t[::-1])[::-1])
    q = lambda x: Fraction(float(x))  # noqa: E731
    worst = 0.0
    for x, y in zip(t, got):
        j = int(np.searchsorted(times, x, side="right")) - 1
        t0, t1, x1, x2 = q(times[j]), q(times[j + 1]), q(right[j][0]), q(left[j + 1][0])
        s = (q(y) - q(values[j])) / (q(values[j + 1]) - q(values[j]))
        r = 1 - s
        time = r**3 * t0 + 3 * r * r * s * x1 + 3 * r * s * s * x2 + s**3 * t1
        worst = max(worst, float(abs(time - q(x)) / (t1 - t0)))
    assert worst <= 1e-12, worst


def assert_same_bits(a, b):
    """Equal bit for bit (signed zeros included)."""
    np.testing.assert_array_equal(np.ascontiguousarray(a).view(np.int64),
                                  np.ascontiguousarray(b).view(np.int64))


@pytest.mark.parametrize("channels", [1, 3])
def test_sorted_runs_give_the_bits_of_one_query_at_a_time(channels):
    # sorted queries go segment by segment through the vectorized runs (of
    # every length, a partial last group of lanes included, and with near-flat
    # spots of time where the fast guess misses and the bracketed solve takes
    # over); reversed queries go one at a time through the scalar path
    rng = np.random.default_rng(21)
    keys = 40
    times = np.cumsum(rng.uniform(0.2, 2.0, keys))
    values = rng.normal(0, 3, (keys, channels))
    values[rng.random(keys) < 0.3] = -0.0  # signed zeros, flat step and linear segments
    vin, vout = rng.normal(0, 4, (2, keys, channels))
    w_in, w_out = rng.choice([0.0, 1e-9, 0.05, 1 / 3, 0.7, 0.95, 0.999, 1.0], (2, keys, channels))
    kinds = ["bezier", "bezier", "quad_in_out", "step", "smoothstep", "cubic_in", "linear", "cubic"]
    curves = [Curve(times, values, interpolation="bezier", in_velocities=vin,
                    out_velocities=vout, in_weights=w_in, out_weights=w_out),
              Curve(times, values, interpolation=[kinds[j % 8] for j in range(keys - 1)],
                    in_velocities=vin, out_velocities=vout, in_weights=w_in, out_weights=w_out)]
    # 0 to about 60 queries per segment
    counts = rng.integers(0, 60, keys - 1)
    t = np.sort(np.concatenate([rng.uniform(times[j], times[j + 1], counts[j])
                                for j in range(keys - 1)]))
    for c in curves:
        for d in range(3):
            assert_same_bits(c.evaluate(t, d), c.evaluate(t[::-1], d)[::-1])
    # eased times (per segment, or of the whole clip) evaluated in blocks
    # against one query at a time, on both sides
    cubic = Curve(times, values, in_velocities=vin, out_velocities=vout)
    for c in (Curve(times, values, in_velocities=vin, out_velocities=vout, ease="smoothstep"),
              cubic.remap_time("quad_in_out"), cubic.remap_time("cubic_out").remap_time("quad_in")):
        for side in ("right", "left"):
            assert_same_bits(c.evaluate(t, side=side),
                                 np.array([c.evaluate(x, side=side) for x in t]))


@pytest.mark.parametrize("interpolation", ["bezier", "linear", "cubic", "quad_in_out"])
def test_segment_too_short_for_its_inverse_duration(interpolation):
    # 1 / 1e-310 overflows: the segment divides by its duration instead, so a
    # flat segment is flat, with rates 0, sorted or not (it was NaN, an error)
    kw = {"cubic": {"velocities": [0.0] * 3},
          "bezier": {"velocities": [0.0] * 3, "out_weights": [0.5] * 3}}.get(interpolation, {})
    c = Curve([0.0, 1e-310, 1.0], [0.0, 0.0, 2.0], interpolation=interpolation, **kw)
    t = np.linspace(0.0, 1e-310, 20)[:-1]
    for derivative in (0, 1, 2):
        np.testing.assert_array_equal(c(t, derivative), 0.0)
        np.testing.assert_array_equal(c(t[::-1], derivative), 0.0)
        assert c(t[3], derivative) == 0.0


def test_bezier_weight_one_third_is_hermite_exactly():
    rng = np.random.default_rng(4)
    times, values = np.cumsum(rng.uniform(0.1, 1, 9)), rng.normal(size=(9, 2))
    v = rng.normal(size=(9, 2))
    t = np.linspace(times[0] - 1, times[-1] + 1, 301)
    a = Curve(times, values, velocities=v, before="linear", after="linear")
    b = Curve(times, values, interpolation="bezier", velocities=v, in_weights=np.full(9, 1 / 3),
              before="linear", after="linear")
    for d in range(3):
        np.testing.assert_array_equal(a.evaluate(t, d), b.evaluate(t, d))


def test_handle_longer_than_segment_is_scaled_back_along_itself():
    # weight 2.5 behaves as weight 1 with the same slope (Blender's correct_bezpart)
    kw = dict(interpolation="bezier", in_velocities=[0, -3], out_velocities=[2, 0])
    long = Curve([0, 2], [0, 1], out_weights=[2.5, 1 / 3], **kw)
    one = Curve([0, 2], [0, 1], out_weights=[1.0, 1 / 3], **kw)
    t = np.linspace(0, 2, 101)
    np.testing.assert_array_equal(long(t), one(t))
    assert np.all(np.diff(one(np.linspace(0, 2, 5))) != 0)


def test_from_handles_matches_its_control_points():
    times, values = [0.0, 1.0, 3.0], [0.0, 2.0, 1.0]
    left = [[-0.3, 0.3], [0.4, 2.5], [2.0, 0.0]]
    right = [[0.5, 1.0], [1.9, 1.55], [4.0, 2.0]]
    c = Curve.from_handles(times, values, left, right, before="linear", after="linear")
    t = np.linspace(0, 3, 61)
    expected = bezier_2d(times, values, [tuple(r) for r in right], [tuple(p) for p in left], t)
    np.testing.assert_allclose(c(t), expected, atol=1e-12)
    # linear extrapolation follows the outer handles
    assert c(-1.0) == pytest.approx(1.0)  # slope (0 - 0.3) / (0 - -0.3) = -1
    assert c.evaluate(5.0, 1) == pytest.approx((2.0 - 1.0) / (4.0 - 3.0))
    assert c.evaluate(-2.0, 1) == pytest.approx(-1.0)


@pytest.mark.parametrize("left, right, match", [
    ([[0.5, 0], [0.5, 1]], [[0.5, 0], [1.5, 1]], r"left at index \(0,\) has time 0.5 \(a left handle may not lie after its key"),
    ([[-1, 0], [0.5, 1]], [[-0.5, 0], [1.5, 1]], r"right at index \(0,\) has time -0.5 \(a right handle may not lie before"),
    ([[-1, 0], [1, 0.5]], [[0.5, 0], [1.5, 1]], r"left at index \(1,\) is a vertical handle"),
    ([[-1, 0]], [[0.5, 0], [1.5, 1]], r"left has shape \(1, 2\), expected \(2, 2\)"),
])
def test_from_handles_bad_input(left, right, match):
    with pytest.raises(ValueError, match=match):
        Curve.from_handles([0, 1], [0, 1], left, right)


# -- per-segment interpolation and eased segments ------------------------------------

def test_mixed_segments_each_follow_their_kind():
    times, values = [0.0, 1.0, 2.0, 4.0, 5.0, 6.0], [0.0, 2.0, 1.0, 3.0, -1.0, 0.5]
    kinds = ["constant", "linear", "cubic", "quad_in_out", CubicBezier(0.25, 0.1, 0.25, 1.0)]
    c = Curve(times, values, interpolation=kinds, tangents="flat")
    assert c.interpolation == tuple(kinds)
    u = np.linspace(0, 1, 11)[:-1]
    np.testing.assert_array_equal(c(0 + u), 0.0)
    np.testing.assert_allclose(c(1 + u), 2.0 - u, atol=1e-15)
    # flat tangents on the cubic segment: the smoothstep path
    np.testing.assert_allclose(c(2 + 2 * u), 1.0 + 2.0 * (3 * u**2 - 2 * u**3), atol=1e-14)
    np.testing.assert_allclose(c(4 + u), 3.0 - 4.0 * penner("quad_in_out", u), atol=1e-14)
    np.testing.assert_allclose(c(5 + u), -1.0 + 1.5 * css_cubic_bezier(0.25, 0.1, 0.25, 1.0, u),
                               atol=1e-12)
    # sides of the step: arriving at key 1 the step holds 0, leaving it the line starts at 2
    assert c(1.0, side="left") == 0.0 and c(1.0) == 2.0


def test_per_segment_entries_are_read_once_and_kept():
    # equal entries that are different objects, as list(np.array(...)) makes them
    names = np.array(["step", "linear", "quad_in_out", "cubic"])[[0, 1, 2, 3, 1, 2, 0]].tolist()
    times, values = np.arange(8.0), np.sin(np.arange(8.0))
    c = Curve(times, values, interpolation=names)
    expected = tuple(names)
    names[0] = "cubic"  # the caller's list changes; the curve keeps what it was given
    assert c.interpolation == expected and c.to_dict()["interpolation"] == list(expected)
    one_by_one = Curve(times, values, interpolation=list(expected))
    q = np.linspace(-1, 9, 101)
    np.testing.assert_array_equal(c(q), one_by_one(q))


def test_distinct_entries_are_those_a_dict_keeps():
    from animcore import _core
    items = ["linear", "".join(["lin", "ear"]), "cubic", 1, 1.0, True, None, 2.5, "é",
             "e\u0301", ("a", 1), ("a", 1), float("nan")]
    distinct, places = _core._distinct(items)
    keys = dict.fromkeys(items)  # the reference: a dict's keys, first appearance first
    assert len(distinct) == len(keys) and all(d is k for d, k in zip(distinct, keys))
    index = {key: i for i, key in enumerate(keys)}
    assert places.tolist() == [index[item] for item in items]
    assert _core._distinct(["linear", ["not", "hashable"]]) is None


@pytest.mark.parametrize("kind", easing_kinds())
def test_eased_segment_is_penner_on_the_value(kind):
    u = np.linspace(0, 1, 41)
    c = Curve([2.0, 4.0], [1.0, -3.0], interpolation=kind)
    np.testing.assert_allclose(c(2.0 + 2.0 * u), 1.0 - 4.0 * penner(kind, u), rtol=0,
                               atol=1e-12)
    # every kind matches its Ease object
    np.testing.assert_allclose(c(2.0 + 2.0 * u), 1.0 - 4.0 * Ease(kind)(u), rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", ["step", "linear", "cubic", "bezier", *easing_kinds()])
def test_derivatives_against_central_differences(kind):
    times, values = [0.0, 1.0, 2.5, 3.0], [0.0, 2.0, -1.0, 0.5]
    kw = {"in_weights": [0.3, 0.6, 0.2, 0.3], "out_weights": [0.5, 0.1, 0.9, 0.3]} \
        if kind == "bezier" else {}
    c = Curve(times, values, interpolation=kind, **kw)
    # away from the keys and from the kinks of bounce and the in_out midpoints
    t = np.array([0.17, 0.33, 0.71, 1.23, 1.61, 2.11, 2.62, 2.93])
    for d in (1, 2):
        expected = central(c, t, d)
        scale = max(1.0, float(np.abs(expected).max()))
        np.testing.assert_allclose(c.evaluate(t, d), expected, rtol=0, atol=2e-5 * scale)


def test_key_velocities_of_non_cubic_segments():
    c = Curve([0, 1, 2, 3], [0, 2, 2, 5], interpolation=["linear", "step", "quad_in"])
    np.testing.assert_allclose(c.out_velocities, [2.0, 0.0, 0.0, 6.0])
    np.testing.assert_allclose(c.in_velocities, [2.0, 2.0, 0.0, 6.0])


# -- natural tangents -----------------------------------------------------------------

def test_natural_equals_scipy_cubic_spline():
    rng = np.random.default_rng(8)
    times = np.cumsum(rng.uniform(0.1, 2.0, 15))
    values = rng.normal(size=(15, 3))
    c = Curve(times, values, tangents="natural")
    ref = CubicSpline(times, values, bc_type="natural")
    t = rng.uniform(times[0], times[-1], 500)
    for d in range(3):
        scale = max(1.0, float(np.abs(ref(t, d)).max()))
        np.testing.assert_allclose(c.evaluate(t, d), ref(t, d), rtol=0, atol=1e-12 * scale)
    two = Curve([0, 2], [1, 5], tangents="natural")  # two keys: the line
    assert two(1.0) == pytest.approx(3.0)


# -- extrapolation and sides ------------------------------------------------------------

def test_sloped_and_outer_handle_extrapolation():
    c = Curve([0, 1, 2], [0, 1, 0], before="sloped", before_slope=2.0, after="sloped",
              after_slope=-0.5)
    np.testing.assert_allclose(c([-1.0, 4.0]), [-2.0, -1.0])
    np.testing.assert_allclose(c.evaluate([-1.0, 4.0], 1), [2.0, -0.5])
    # "linear" follows the outer sides: in_velocities[0] and out_velocities[-1]
    b = Curve([0, 1, 2], [0, 1, 0], in_velocities=[5, 0, -1], out_velocities=[1, 0, 7],
              before="linear", after="linear")
    np.testing.assert_allclose(b([-1.0, 3.0]), [-5.0, 7.0])
    m = Curve([0, 1], [[0, 1], [1, 1]], after="sloped", after_slope=[1.0, -1.0])
    np.testing.assert_allclose(m(2.0), [2.0, 0.0])


def test_sides_at_keys_jumps_seams_and_mirrors():
    lin = dict(interpolation="linear")
    c = Curve([0, 1, 1, 2], [0, 1, 5, 6], jumps=True, **lin)
    assert c(1.0) == 5.0 and c(1.0, side="left") == 1.0
    # the last key: right is the extrapolation, left the last segment
    k = Curve([0, 1, 2], [0, 2, 3], **lin)
    assert k.evaluate(2.0, 1) == 0.0 and k.evaluate(2.0, 1, side="left") == 1.0
    assert k.evaluate(0.0, 1) == 2.0 and k.evaluate(0.0, 1, side="left") == 0.0
    # a cycle seam: right starts the next cycle, left ends this one
    cyc = Curve([0, 1, 2], [0, 2, 3], after="cycle", before="cycle", **lin)
    assert cyc(4.0) == 0.0 and cyc(4.0, side="left") == 3.0
    assert cyc.evaluate(4.0, 1) == 2.0 and cyc.evaluate(4.0, 1, side="left") == 1.0
    assert cyc(0.0, side="left") == 3.0
    off = Curve([0, 1, 2], [0, 2, 3], after="cycle_offset", **lin)
    assert off(4.0) == 6.0 and off(4.0, side="left") == 6.0
    # oscillate: in a mirrored cycle the mirror of key 1 (t = 3) follows the same rule
    osc = Curve([0, 1, 2], [0, 2, 3], after="oscillate", **lin)
    assert osc.evaluate(3.0, 1) == -2.0 and osc.evaluate(3.0, 1, side="left") == -1.0
    assert osc.evaluate(2.0, 1) == -1.0 and osc.evaluate(2.0, 1, side="left") == 1.0
    # a jump at the first and last key (two values at one time)
    e = Curve([0, 0, 1, 1], [9, 0, 1, 7], jumps=True, **lin)
    assert e(0.0) == 0.0 and e(0.0, side="left") == 9.0 and e(-1.0) == 9.0
    assert e(1.0) == 7.0 and e(1.0, side="left") == 1.0 and e(0.5) == 0.5


def test_sides_sorted_unsorted_agree():
    rng = np.random.default_rng(5)
    times = np.cumsum(rng.uniform(0.2, 1, 8))
    c = Curve(times, rng.normal(size=8), interpolation=["quad_in_out", "bezier", "linear",
                                                       "step", "back_out", "cubic_out",
                                                       "sine_in"],
              out_weights=rng.uniform(0.1, 0.9, 8), before="oscillate", after="cycle_offset")
    t = np.sort(np.r_[rng.uniform(times[0] - 9, times[-1] + 9, 500), times])
    for side in ("right", "left"):
        for d in range(3):
            np.testing.assert_array_equal(c.evaluate(t[::-1], d, side=side),
                                          c.evaluate(t, d, side=side)[::-1])


# -- errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    ({"interpolation": ["linear"]}, r"Curve: interpolation has 1 entries, expected one per segment \(2 for 3 keys\)"),
    ({"interpolation": ["linear", "smooth"]}, r"Curve: interpolation at index \(1,\) is 'smooth' \(must be one of step"),
    ({"interpolation": "linear", "in_weights": [0.3] * 3}, r"Curve: in_weights apply only to 'bezier' segments"),
    ({"interpolation": "bezier", "out_weights": [0.3, -0.1, 0.3]}, r"Curve: out_weights at index \(1,\) is -0.1 \(must be >= 0"),
    ({"interpolation": "bezier", "out_weights": [0.3, np.nan, 0.3]}, r"Curve: out_weights at index \(1,\) is nan \(must be finite\)"),
    ({"before_slope": 1.0}, r"Curve: before_slope is given but before='clamp' does not use it"),
    ({"after": "sloped"}, r"Curve: after='sloped' needs after_slope"),
    ({"after": "sloped", "after_slope": [1.0, 2.0]}, r"Curve: after_slope has shape \(2,\), expected \(\) or \(1,\)"),
    ({"after": "sloped", "after_slope": np.inf}, r"Curve: after_slope at index \(0,\) is inf"),
])
def test_bad_key_model(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Curve([0, 1, 2], [0, 1, 0], **kwargs)


def test_bad_side():
    with pytest.raises(ValueError, match=r"Curve.evaluate: side is 'up' \(must be one of 'right', 'left'\)"):
        Curve([0, 1], [0, 1]).evaluate(0.5, side="up")


# -- easing parameters ----------------------------------------------------------------------

def penner_back_in(u, s):
    return u * u * ((s + 1) * u - s)


def penner_amplitude(a, p):
    """Penner's a / p rule: (amplitude, phase shift s) of his elastic equations."""
    if a < 1:
        return 1.0, p / 4
    return a, p / (2 * np.pi) * np.arcsin(1 / a)


def penner_elastic_out(u, a, p):
    """Penner's easeOutElastic with b = 0, c = 1, d = 1."""
    u = np.asarray(u, float)
    a, s = penner_amplitude(a, p)
    out = a * 2 ** (-10 * u) * np.sin((u - s) * (2 * np.pi) / p) + 1
    return np.where(u == 0, 0.0, np.where(u == 1, 1.0, out))


def penner_elastic_in(u, a, p):
    """Penner's easeInElastic with b = 0, c = 1, d = 1."""
    u = np.asarray(u, float)
    a, s = penner_amplitude(a, p)
    out = -(a * 2 ** (10 * (u - 1)) * np.sin((u - 1 - s) * (2 * np.pi) / p))
    return np.where(u == 0, 0.0, np.where(u == 1, 1.0, out))


def test_ease_parameters_follow_penner():
    u = np.linspace(0, 1, 51)
    np.testing.assert_allclose(Ease("back_in", overshoot=3.0)(u), penner_back_in(u, 3.0),
                               atol=1e-14)
    np.testing.assert_allclose(Ease("back_out", overshoot=0.5)(u),
                               1 - penner_back_in(1 - u, 0.5), atol=1e-14)
    for a, p in ((1.5, 0.4), (0.5, 0.25), (1.0, 0.3)):
        np.testing.assert_allclose(Ease("elastic_out", amplitude=a, period=p)(u),
                                   penner_elastic_out(u, a, p), atol=1e-13)
    # explicit default values give the plain kind
    np.testing.assert_allclose(Ease("elastic_out", amplitude=1.0, period=0.3)(u),
                               Ease("elastic_out")(u), atol=1e-13)
    # rates against central differences
    e = Ease("back_in_out", overshoot=2.2)
    x = np.linspace(0.05, 0.95, 18)  # off the midpoint, where the rate has a corner
    np.testing.assert_allclose(e(x, derivative=1), (e(x + 1e-6) - e(x - 1e-6)) / 2e-6,
                               atol=1e-6)


def test_ease_blender_variants():
    u = np.linspace(0, 1, 21)
    scale = 1 / (1 - 2.0 ** -10)
    np.testing.assert_allclose(Ease("expo_in", variant="blender")(u),
                               np.where(u == 0, 0, (2 ** (10 * (u - 1)) - 2.0 ** -10) * scale),
                               atol=1e-15)
    # above the change Blender's elastic is Penner's; below it is damped
    np.testing.assert_allclose(Ease("elastic_in", amplitude=2.0, period=0.3, variant="blender")(u),
                               penner_elastic_in(u, 2.0, 0.3), atol=1e-13)
    np.testing.assert_allclose(Ease("elastic_in", amplitude=2.0, period=0.3)(u),
                               penner_elastic_in(u, 2.0, 0.3), atol=1e-13)
    damped = Ease("elastic_out", amplitude=0.5, period=0.3, variant="blender")(u)
    plain = Ease("elastic_out", amplitude=0.5, period=0.3)(u)
    far = u > 0.075 + 1e-9  # beyond a quarter period of the start: half the swing
    np.testing.assert_allclose((damped - 1)[far], 0.5 * (plain - 1)[far], atol=1e-14)


@pytest.mark.parametrize("args, kwargs, match", [
    (("quad_in",), {"overshoot": 2.0}, r"Ease: overshoot applies to the back kinds, not 'quad_in'"),
    (("back_in",), {"amplitude": 2.0}, r"Ease: amplitude applies to the elastic kinds, not 'back_in'"),
    (("elastic_in",), {"period": 0.0}, r"Ease: period is 0.0 \(must be a finite number > 0\)"),
    (("elastic_in",), {"amplitude": -1.0}, r"Ease: amplitude is -1.0 \(must be finite and >= 0\)"),
    (("back_in",), {"overshoot": np.inf}, r"Ease: overshoot is inf \(must be finite\)"),
    (("quad_in",), {"variant": "maya"}, r"Ease: variant is 'maya' \(must be one of 'penner', 'blender'\)"),
])
def test_bad_ease_parameters(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        Ease(*args, **kwargs)


# -- time remaps in the core ----------------------------------------------------------------

def remapped_reference(curve, plain, ease, remap, t):
    """Clip time -> curve time in NumPy (whole-clip remap, then per-segment
    ease inside the keys), then the plain curve at that time."""
    times = curve.times
    lo, hi = times[0], times[-1]
    tau = np.array(t, float)
    inside = (tau >= lo) & (tau <= hi)
    if remap is not None:
        tau = np.where(inside, lo + remap(np.clip((tau - lo) / (hi - lo), 0, 1)) * (hi - lo), tau)
    if ease is not None:
        i = np.clip(np.searchsorted(times, tau, side="right") - 1, 0, times.size - 2)
        T = times[i + 1] - times[i]
        u = np.clip((tau - times[i]) / T, 0, 1)
        tau = np.where(inside, times[i] + ease(u) * T, tau)
    return plain(tau)


@pytest.mark.parametrize("ease, remap", [
    ("smoothstep", None), (None, "cubic_in_out"), ("sine_in_out", "quad_out"),
    (CubicBezier(0.42, 0.0, 0.58, 1.0), None), (None, CubicBezier(0.3, 0.1, 0.2, 1.0)),
])
def test_remaps_in_the_core(ease, remap):
    times, values = [0.0, 1.0, 2.5, 4.0], [[0.0, 1.0], [2.0, 0.0], [-1.0, 3.0], [0.5, 1.0]]
    plain = Curve(times, values, tangents="natural")
    curve = Curve(times, values, tangents="natural", ease=ease)
    if remap is not None:
        curve = curve.remap_time(remap)
    as_ease = lambda e: None if e is None else (Ease(e) if isinstance(e, str) else e)  # noqa: E731
    t = np.linspace(-0.5, 4.5, 201)
    np.testing.assert_allclose(curve(t), remapped_reference(curve, plain, as_ease(ease),
                                                            as_ease(remap), t), atol=1e-12)
    x = np.array([0.3, 0.77, 1.4, 2.2, 3.1, 3.6])  # away from the keys' kinks
    for d in (1, 2):
        expected = central(curve, x, d, h=1e-5)
        np.testing.assert_allclose(curve.evaluate(x, d), expected, rtol=1e-5,
                                   atol=1e-5 * max(1.0, np.abs(expected).max()))


@pytest.mark.parametrize("ease", ["smoothstep", "back_in_out", CubicBezier(0.42, 0.0, 0.58, 1.0)])
def test_segment_ease_inside_the_keys_any_channels_and_order(ease):
    # sorted times inside the keys, left and right sides, one to 1100 channels
    # (derivative 2 works through its velocity scratch in blocks of queries)
    rng = np.random.default_rng(8)
    times = np.cumsum(rng.uniform(0.3, 1.0, 8))
    values = rng.normal(size=8)
    one = Curve(times, values, ease=ease)
    t = np.sort(np.r_[rng.uniform(times[0], times[-1], 400), times[1:]])  # the last key too
    plain = Curve(times, values)
    as_ease = Ease(ease) if isinstance(ease, str) else ease
    np.testing.assert_allclose(one(t), remapped_reference(one, plain, as_ease, None, t),
                               atol=1e-12)
    perm = rng.permutation(t.size)  # shuffled times take the general path: same bits
    for side in ("right", "left"):
        for d in (0, 1, 2):
            expected = one.evaluate(t, d, side=side)
            np.testing.assert_array_equal(one.evaluate(t[perm], d, side=side), expected[perm])
            for C in (6, 1100):
                wide = Curve(times, np.repeat(values[:, None], C, axis=1), ease=ease)
                np.testing.assert_array_equal(wide.evaluate(t[:60], d, side=side),
                                              np.repeat(expected[:60, None], C, axis=1))


def test_ease_pickles_and_compares_by_value():
    import copy
    import pickle

    for e in (Ease("quad_in"), Ease("back_in", overshoot=2.5),
              Ease("elastic_out", amplitude=1.5, period=0.4, variant="blender")):
        again = pickle.loads(pickle.dumps(e))
        assert again == e and hash(again) == hash(e) and copy.copy(e) == e
        np.testing.assert_array_equal(again(np.linspace(0, 1, 9)), e(np.linspace(0, 1, 9)))
    assert Ease("back_in", overshoot=2.5) != Ease("back_in")


def test_long_handles_as_openusd_uses_them():
    # the rule animcore.usd uses: weights above 1 kept while time runs forwards
    def build(w_out, w_in):
        c = Curve.__new__(Curve)
        c._build("Curve", [0, 1], [0, 1], "bezier", None, None, [0, 0], [2, 0],
                 "clamp", "clamp", False, in_weights=[0.3, w_in], out_weights=[w_out, 0.3],
                 long_handles=True)
        return c

    t = np.linspace(0, 1, 41)
    out_pts, in_pts = [(1.2, 2.4), None], [None, (0.7, 1.0)]  # x1 = 1.2 reaches past the key
    np.testing.assert_allclose(build(1.2, 0.3)(t), bezier_2d([0, 1], [0, 1], out_pts, in_pts, t),
                               atol=1e-12)
    with pytest.raises(ValueError, match=r"out_weights at index \(0,\) is 1.5 \(with "
                                         r"in_weights\[1\]=1.5 makes segment 0's time go "
                                         r"backwards"):
        build(1.5, 1.5)
    # a slower playback of the same curve keeps the handles that reach past a key
    slower = build(1.2, 0.3).stretched(2.0, keep="shape")
    np.testing.assert_allclose(slower(2 * t), build(1.2, 0.3)(t), atol=1e-12)


def test_stretched_keeps_per_segment_kinds():
    times, values = [0.0, 1.0, 2.5, 4.0], [0.0, 2.0, -1.0, 0.5]
    c = Curve(times, values, interpolation=["bezier", "quad_out", "cubic"],
              out_weights=[0.6, 0.2, 0.3, 0.3], after="sloped", after_slope=2.0)
    s = c.stretched(2.0, keep="shape")
    t = np.linspace(-1, 6, 57)
    np.testing.assert_allclose(s(2 * t), c(t), atol=1e-12)
    np.testing.assert_allclose(s.evaluate(2 * t, 1), c.evaluate(t, 1) / 2, atol=1e-12)
    assert s.interpolation == c.interpolation


def test_bezier_and_eased_segments_need_a_representable_duration():
    with pytest.raises(ValueError, match=r"Curve: times at index \(1,\) is 1e\+308 \(is more than "
                                         r"DBL_MAX after the previous key: segment 0 needs step, "
                                         r"linear or cubic interpolation\)$"):
        Curve([-1e308, 1e308], [0, 1], interpolation="bezier", out_weights=[0.5, 0.5])
    assert Curve([-1e308, 1e308], [0, 1], interpolation="linear")(0.0) == pytest.approx(0.5)


KEYED_ROUND_TRIPS = [
    lambda: Curve([0, 1, 2, 3], [0, 1, 0, 2],
                  interpolation=["linear", "bezier", Ease("back_in", overshoot=3.0)],
                  velocities=[1, 0, 0, 1], out_weights=[0.5] * 4, after="sloped",
                  after_slope=2.0),
    lambda: Curve([0, 1, 2, 3], [[0, 1], [1, 0], [0, 3], [2, 2]], interpolation="bezier",
                  tangents="auto", auto_smoothing="cont_accel"),
    lambda: Curve([0, 1, 2, 3], [0, 1, 0, 2], interpolation="bezier", before="cycle",
                  after="cycle", tangents=["auto", "vector", "auto_ease", "auto_clamped"]),
    lambda: Curve([0, 1, 2, 3], [0, 1, 0, 2], tangents="auto_ease", before="sloped",
                  before_slope=-1.0),
    lambda: Curve([0, 1, 2], [0, 1, 0], interpolation=Ease("elastic_out", amplitude=2.0,
                                                           period=0.5, variant="blender")),
    lambda: Curve.from_handles([0, 1, 2], [0, 1, 0], [[-0.5, 0], [0.2, 1], [1.5, 0]],
                               [[0.9, 0], [1.9, 1], [2.5, 0]]),
]


@pytest.mark.parametrize("make", KEYED_ROUND_TRIPS)
def test_keyed_curves_round_trip_through_json(make):
    import json
    c = make()
    text = json.dumps(c.to_dict())
    d = Curve.from_dict(json.loads(text))
    assert d == c and repr(d) == repr(c)
    t = np.linspace(-1, 4, 81)
    np.testing.assert_array_equal(d(t), c(t))
    np.testing.assert_array_equal(d.evaluate(t, 1), c.evaluate(t, 1))
    assert json.dumps(d.to_dict()) == text
    new = np.asarray(c.values) * 2 + 1  # the restored curve edits like the original
    if c.tangents != "explicit":
        np.testing.assert_array_equal(d.with_values(new)(t), c.with_values(new)(t))


def test_easing_parameters_survive_json():
    from animcore.easing import easing_from_data, easing_to_data
    for e in (Ease("back_in", overshoot=3.0), Ease("elastic_out", amplitude=2.0, period=0.5),
              Ease("expo_in", variant="blender"), Ease("quad_in")):
        again = easing_from_data(easing_to_data(e))
        assert again == e
        u = np.linspace(0, 1, 11)
        np.testing.assert_array_equal(again(u), e(u))
    assert easing_to_data(Ease("quad_in")) == {"type": "Ease", "kind": "quad_in"}


TIMES, VALUES = [0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 0.0, 2.0]
QUERIES = np.linspace(-1, 4, 101)


def test_edits_keep_weights_and_extrapolation_slopes():
    options = dict(interpolation="bezier", velocities=[1, 0, 0, 1],
                   in_weights=[0.1, 0.2, 0.3, 0.4], out_weights=[0.5, 0.6, 0.2, 0.1],
                   after="sloped", after_slope=2.0)
    c = Curve(TIMES, VALUES, **options)
    np.testing.assert_array_equal(c.with_values([0, 2, 0, 2])(QUERIES),
                                  Curve(TIMES, [0, 2, 0, 2], **options)(QUERIES))
    # a new key gets handles of 1/3; the others keep theirs
    inserted = Curve([0, 1, 1.5, 2, 3], [0, 1, 0.5, 0, 2], interpolation="bezier",
                     velocities=[1, 0, 0, 0, 1], in_weights=[0.1, 0.2, 1 / 3, 0.3, 0.4],
                     out_weights=[0.5, 0.6, 1 / 3, 0.2, 0.1], after="sloped", after_slope=2.0)
    np.testing.assert_array_equal(c.with_key(1.5, 0.5, velocity=0.0)(QUERIES),
                                  inserted(QUERIES))
    removed = Curve([0, 2, 3], [0, 0, 2], interpolation="bezier", velocities=[1, 0, 1],
                    in_weights=[0.1, 0.3, 0.4], out_weights=[0.5, 0.2, 0.1], after="sloped",
                    after_slope=2.0)
    np.testing.assert_array_equal(c.without_key(1)(QUERIES), removed(QUERIES))


@pytest.mark.parametrize("edit, kinds, times, values, velocities", [
    (lambda c: c.with_key(1.5, 0.5, velocity=3.0), ["step", "linear", "linear", "cubic"],
     [0, 1, 1.5, 2, 3], [0, 1, 0.5, 0, 2], [1, 0, 3, 0, 1]),
    (lambda c: c.with_key(-1.0, 0.5, velocity=3.0), ["step", "step", "linear", "cubic"],
     [-1, 0, 1, 2, 3], [0.5, 0, 1, 0, 2], [3, 1, 0, 0, 1]),
    (lambda c: c.with_key(4.0, 0.5, velocity=3.0), ["step", "linear", "cubic", "cubic"],
     [0, 1, 2, 3, 4], [0, 1, 0, 2, 0.5], [1, 0, 0, 1, 3]),
    (lambda c: c.with_key(2.0, 5.0, velocity=3.0), ["step", "linear", "cubic"],
     [0, 1, 2, 3], [0, 1, 5, 2], [1, 0, 3, 1]),
    (lambda c: c.without_key(0), ["linear", "cubic"], [1, 2, 3], [1, 0, 2], [0, 0, 1]),
    (lambda c: c.without_key(1), ["step", "cubic"], [0, 2, 3], [0, 0, 2], [1, 0, 1]),
    (lambda c: c.without_key(3), ["step", "linear"], [0, 1, 2], [0, 1, 0], None),
])
def test_edits_move_per_segment_kinds_as_the_tools_store_them(edit, kinds, times, values,
                                                              velocities):
    """A segment's kind lives on its left key: a new key splits its segment
    and both halves keep the kind; a removed key's segments merge into the
    left one (velocities stay only while a cubic segment uses them)."""
    c = Curve(TIMES, VALUES, interpolation=["step", "linear", "cubic"], velocities=[1, 0, 0, 1])
    edited = edit(c)
    assert edited.interpolation == tuple(kinds)
    expected = Curve(times, values, interpolation=kinds, velocities=velocities)
    np.testing.assert_array_equal(edited(QUERIES), expected(QUERIES))
    np.testing.assert_array_equal(edited.evaluate(QUERIES, 1), expected.evaluate(QUERIES, 1))


@pytest.mark.parametrize("policy", ["auto", "auto_clamped", "vector"])
@pytest.mark.parametrize("smoothing", [None, "cont_accel"])
def test_edits_compute_the_tools_handles_again(policy, smoothing):
    def build(times, values):
        return Curve(times, values, interpolation="bezier", tangents=policy,
                     auto_smoothing=smoothing)

    c = build(TIMES, VALUES)
    for edited, expected in ((c.with_values([0, 2, 0, 2]), build(TIMES, [0, 2, 0, 2])),
                             (c.with_key(1.5, 0.5), build([0, 1, 1.5, 2, 3], [0, 1, 0.5, 0, 2])),
                             (c.without_key(1), build([0, 2, 3], [0, 0, 2]))):
        assert edited.tangents == policy
        np.testing.assert_array_equal(edited(QUERIES), expected(QUERIES))
        np.testing.assert_array_equal(edited.evaluate(QUERIES, 1), expected.evaluate(QUERIES, 1))


def test_edits_of_per_key_policies():
    policies = ["auto", "vector", "auto_clamped", "auto"]
    c = Curve(TIMES, VALUES, interpolation="bezier", tangents=policies)
    np.testing.assert_array_equal(
        c.with_values([0, 2, 0, 2])(QUERIES),
        Curve(TIMES, [0, 2, 0, 2], interpolation="bezier", tangents=policies)(QUERIES))
    removed = c.without_key(1)
    assert removed.tangents == ("auto", "auto_clamped", "auto")
    np.testing.assert_array_equal(removed(QUERIES), Curve(
        [0, 2, 3], [0, 0, 2], interpolation="bezier", tangents=removed.tangents)(QUERIES))
    with pytest.raises(ValueError, match=r"^Curve.with_key: this curve's tangents are given per "
                                         r"key, so a new key needs its own"):
        c.with_key(1.5, 0.5)


def test_keyed_curves_pickle_copy_and_compare_by_value():
    import copy
    import pickle

    t = np.linspace(-1.5, 4.5, 2001)
    curves = [
        Curve([0, 1, 2, 3], [0.0, 2.0, -1.0, 0.5],
              interpolation=("bezier", Ease("back_out", overshoot=2.5), "bezier"),
              in_weights=[0.2, 0.7, 0.1, 0.4], out_weights=[0.6, 0.3, 0.9, 0.25],
              before="sloped", before_slope=-1.25, after="sloped", after_slope=0.75),
        Curve([0, 1, 2, 3], [[0.0, 1.0], [2.0, 0.0], [-1.0, 3.0], [0.5, 1.0]],
              interpolation=("step", CubicBezier(0.3, 0.1, 0.2, 1.4),
                             Ease("elastic_out", amplitude=1.5, period=0.2,
                                  variant="blender")),
              before="sloped", before_slope=[1.0, -2.0], after="oscillate"),
        Curve([0, 1, 2, 4], [0.0, 3.0, 1.0, 2.0], interpolation="bezier",
              tangents="auto_clamped", auto_smoothing="cont_accel", after="cycle_offset"),
        Curve([0, 1, 1, 3], [0.0, 1.0, 4.0, 2.0], jumps=True, tangents="natural",
              ease=Ease("expo_in_out", variant="blender")).remap_time(CubicBezier(0.4, 0, 0.2, 1)),
    ]
    for curve in curves:
        for again in (pickle.loads(pickle.dumps(curve, protocol=5)), copy.deepcopy(curve),
                      copy.copy(curve)):
            assert again == curve and type(again) is Curve
            assert again.tangents == curve.tangents and again.interpolation == curve.interpolation
            for derivative in (0, 1, 2):
                for side in ("right", "left"):
                    np.testing.assert_array_equal(again.evaluate(t, derivative, side=side),
                                                  curve.evaluate(t, derivative, side=side))
    assert curves[0] != Curve([0, 1, 2, 3], [0.0, 2.0, -1.0, 0.5],
                              interpolation=("bezier", Ease("back_out"), "bezier"),
                              in_weights=[0.2, 0.7, 0.1, 0.4], out_weights=[0.6, 0.3, 0.9, 0.25],
                              before="sloped", before_slope=-1.25, after="sloped",
                              after_slope=0.75)
    e = Ease("elastic_in_out", amplitude=2.0, period=0.5, variant="blender")
    again = pickle.loads(pickle.dumps(e))
    assert again == e and again._params == e._params
    u = np.linspace(0, 1, 513)
    np.testing.assert_array_equal(again(u, derivative=1), e(u, derivative=1))


def test_errors_summarize_a_long_per_segment_interpolation():
    with pytest.raises(ValueError, match=r"^Curve: velocities apply only to cubic and bezier "
                                         r"segments, and interpolation=per segment \(step x998, "
                                         r"linear x1\) has none$"):
        Curve(np.arange(1000.0), np.zeros(1000), interpolation=["step"] * 998 + ["linear"],
              velocities=np.zeros(1000))


# ---- per-segment interpolation names (issue #26) ----

def _segment_reference(name, t0, t1, p0, p1, v0, v1, t):
    """One segment re-derived in NumPy from its name: a step holds p0, linear
    interpolates, cubic and bezier (handles of 1/3: Hermite, in its Bezier
    form) use the key velocities, an easing kind is Penner's shape on the
    value."""
    T = t1 - t0
    u = (t - t0) / T
    word = name.lower().replace("-", "").replace("_", "").replace(" ", "")
    if word in ("step", "constant", "stepped", "hold"):
        return np.full_like(u, p0)
    if word in ("linear", "lerp"):
        return p0 + u * (p1 - p0)
    if word in ("cubic", "bezier", "hermite", "spline", "cubicspline"):
        return hermite_bezier(p0, p1, v0, v1, T, t - t0)[0]
    return p0 + (p1 - p0) * penner(name, u)


def _fresh(name):
    """A str of the same text that is not the same object (as a file reader
    or NumPy's tolist makes them)."""
    return "".join(list(name))


@pytest.mark.parametrize("form", ["list", "fresh", "tuple", "array"])
def test_per_segment_names_give_each_segment_its_own_interpolation(form):
    rng = np.random.default_rng(7)
    pool = ["step", "linear", "cubic", "bezier", "quad_in_out", "sine_in", "Constant",
            "LERP", "cubic-spline", "back_out"]
    k = 400
    times = np.cumsum(rng.random(k) + 0.2)
    values, velocities = rng.normal(size=k), rng.normal(size=k)
    names = [pool[i] for i in rng.integers(0, len(pool), k - 1)]
    given = {"list": names, "fresh": [_fresh(n) for n in names], "tuple": tuple(names),
             "array": np.array(names)}[form]
    c = Curve(times, values, velocities=velocities, interpolation=given)
    u = np.linspace(0.0, 1.0, 7)[:-1]  # inside each segment (its right side at the start)
    t = (times[:-1, None] + u[None, :] * np.diff(times)[:, None])
    expected = np.stack([_segment_reference(names[j], times[j], times[j + 1], values[j],
                                            values[j + 1], velocities[j], velocities[j + 1],
                                            t[j]) for j in range(k - 1)])
    np.testing.assert_allclose(c(t.ravel()).reshape(t.shape), expected, rtol=0, atol=1e-12)
    # the curve keeps the names as given
    assert list(c.interpolation) == list(names)


def test_per_segment_names_match_a_two_key_curve_per_segment():
    names = ["cubic", "step", "quad_in_out", "linear", "bezier", "quad_in_out", "step", "cubic"]
    times = np.array([0.0, 0.5, 1.5, 1.75, 3.0, 3.5, 5.0, 5.25, 6.0])
    values = np.array([0.0, 2.0, -1.0, 0.5, 0.25, 3.0, -2.0, 1.0, 0.0])
    velocities = np.array([1.0, -2.0, 0.5, 0.0, 3.0, -1.0, 0.25, 2.0, -0.5])
    c = Curve(times, values, velocities=velocities, interpolation=[_fresh(n) for n in names])
    for j, name in enumerate(names):
        t = np.linspace(times[j], times[j + 1], 9)[:-1]
        keyed = name in ("cubic", "bezier")  # (the others set their own velocities)
        one = Curve(times[j:j + 2], values[j:j + 2],
                    velocities=velocities[j:j + 2] if keyed else None, interpolation=name)
        np.testing.assert_array_equal(c(t), one(t))


@pytest.mark.parametrize("names", [("lerp", "hermite", "LINEAR", "spline"),
                                   ("linear", "cubic", "linear", "cubic")])
def test_per_segment_lines_and_cubics_by_any_name_have_a_gltf_form(names):
    # linear and cubic segments mixed, spelled as the other tools spell them,
    # are glTF's CUBICSPLINE keys, as the canonical names are (the glTF
    # sampler evaluated on its own: Hermite segments of the written tangents)
    from animcore.model import Channel
    times = np.array([0.0, 0.5, 1.25, 2.0, 3.0])
    values = np.array([0.0, 2.0, -1.0, 0.5, 0.25])
    velocities = np.array([1.0, -2.0, 0.5, 0.0, 3.0])
    curve = Curve(times, values, velocities=velocities, interpolation=list(names))
    channel = Channel.from_curve(0, "weights", curve)
    assert channel.interpolation == "CUBICSPLINE"
    triplets = channel.output.reshape(len(times), 3)
    t = np.linspace(0.0, 3.0, 241)
    seg = np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2)
    h = times[seg + 1] - times[seg]
    u = (t - times[seg]) / h
    p0, p1 = triplets[seg, 1], triplets[seg + 1, 1]
    m0, m1 = h * triplets[seg, 2], h * triplets[seg + 1, 0]
    hermite = ((2 * u**3 - 3 * u**2 + 1) * p0 + (u**3 - 2 * u**2 + u) * m0
               + (-2 * u**3 + 3 * u**2) * p1 + (u**3 - u**2) * m1)
    np.testing.assert_allclose(curve(t).ravel(), hermite, rtol=0, atol=1e-12)


@pytest.mark.parametrize("names", [["cubic", "linear", "linear"], ["hermite", "linear", "linear"],
                                   ["Cubic", "lerp", "lerp"]])
def test_an_edit_keeps_the_velocities_of_cubic_segments_by_any_name(names):
    # removing key 2 merges two linear segments; the cubic one keeps its
    # given velocities (a Hermite segment evaluated here on its own)
    t, v, vel = [0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 0.0, 2.0], [0.0, 5.0, -5.0, 0.0]
    edited = Curve(t, v, velocities=vel, interpolation=names).without_key(2)
    assert edited.tangents == "explicit"
    u = 0.5
    hermite = (2 * u**3 - 3 * u**2 + 1) * 0.0 + (u**3 - 2 * u**2 + u) * 0.0 \
        + (-2 * u**3 + 3 * u**2) * 1.0 + (u**3 - u**2) * 5.0
    assert edited(0.5) == pytest.approx(hermite, abs=1e-15)


@pytest.mark.parametrize("bad, where", [("smooth", 5), ("", 0), ("linears", 9), (3.5, 7),
                                        (None, 2), ("quad_inn", 9)])
def test_a_bad_name_in_a_per_segment_list_names_its_first_index(bad, where):
    names = [_fresh(n) for n in ["step", "linear", "cubic", "quad_in_out"] * 3][:10]
    names[where] = bad
    if where < 9:
        names[9] = bad  # the first one is reported
    times = np.arange(11.0)
    with pytest.raises(ValueError) as info:
        Curve(times, np.sin(times), interpolation=names)
    message = str(info.value)
    assert message.startswith("Curve: interpolation at index ")
    assert f"at index ({where},) is {bad!r} (must be one of" in message


def _assert_distinct_like_dict(items):
    """_distinct's distinct items and places are a dict's keys (first
    appearance first) and each item's place among them."""
    from animcore import _core
    distinct, places = _core._distinct(items)
    keys = dict.fromkeys(items)
    assert distinct == list(keys)
    index = {key: i for i, key in enumerate(keys)}
    assert places.tolist() == [index[item] for item in items]


def test_many_distinct_entries_and_str_subclasses_keep_their_places():
    # more distinct texts than the quick pass keeps, and items that are not
    # exact strs, are placed as a dict would take them as keys
    class Name(str):
        pass

    kinds = easing_kinds()[:24] + ("step", "linear", "cubic")
    rng = np.random.default_rng(3)
    items = [_fresh(kinds[i]) for i in rng.integers(0, len(kinds), 500)]
    items[250] = Name(items[250])
    _assert_distinct_like_dict(items)
    times = np.linspace(0.0, 10.0, 501)
    c = Curve(times, np.cos(times), interpolation=items)
    one_by_one = Curve(times, np.cos(times), interpolation=[str(i) for i in items])
    q = np.linspace(0.0, 10.0, 2001)
    np.testing.assert_array_equal(c(q), one_by_one(q))


def test_distinct_texts_whose_hashes_share_low_bits_stay_distinct():
    words = [f"kind{i}" for i in range(2000)]
    by_low = {}
    for w in words:
        by_low.setdefault(hash(w) & 0xFFFF, []).append(w)
    pair = next(ws for ws in by_low.values() if len(ws) > 1)[:2]  # (a birthday pair)
    items = [_fresh(pair[i % 2]) for i in range(50)] + ["step", _fresh(pair[0]), "step"]
    _assert_distinct_like_dict(items)
