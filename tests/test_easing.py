import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import animcore
from animcore import (EASING_KINDS, CubicBezier, Ease, Easing, Steps, as_easing, ease,
                      ease_inverse, easing_kinds)

from reference import css_cubic_bezier, css_steps, penner

MONOTONE = easing_kinds(monotone=True)
U = np.concatenate([np.linspace(0.0, 1.0, 201), [1 / 2.75, 2 / 2.75, 2.5 / 2.75, 0.5 - 1e-12]])


# -- article 004, section 4.4 ---------------------------------------------------

def test_smoothstep_rate_article_figures():
    rate = ease("smoothstep", [0.25, 0.5, 0.75], derivative=1)
    np.testing.assert_allclose(rate, [1.125, 1.5, 1.125], rtol=0, atol=1e-15)
    assert ease("smoothstep", 0.0, derivative=1) == 0.0 == ease("smoothstep", 1.0, derivative=1)


def test_smoothstep_same_pose_at_midpoint_only():
    # s(0.5) = 0.5 = u: the eased and linear paths meet there and nowhere else inside
    u = np.array([0.25, 0.5, 0.75])
    s = ease("smoothstep", u)
    assert s[1] == 0.5 and s[0] != 0.25 and s[2] != 0.75
    np.testing.assert_allclose(s, u * u * (3 - 2 * u), atol=1e-16)


def test_kind_list():
    assert len(EASING_KINDS) == 3 + 10 * 3
    assert EASING_KINDS[:3] == ("linear", "smoothstep", "smootherstep")
    for family in ("quad", "cubic", "quart", "quint", "sine", "expo", "circ", "back", "elastic",
                   "bounce"):
        for suffix in ("_in", "_out", "_in_out"):
            assert family + suffix in EASING_KINDS
    assert set(MONOTONE) | set(easing_kinds(monotone=False)) == set(EASING_KINDS)
    assert not any(k.startswith(("back", "elastic", "bounce")) for k in MONOTONE)
    assert animcore.easing_kinds() == EASING_KINDS


# -- against Penner's original equations ---------------------------------------------

@pytest.mark.parametrize("kind", EASING_KINDS)
def test_matches_penner_equations(kind):
    np.testing.assert_allclose(ease(kind, U), penner(kind, U), rtol=0, atol=1e-14)


@pytest.mark.parametrize("kind", EASING_KINDS)
def test_exact_endpoints(kind):
    s = ease(kind, [0.0, 1.0])
    assert s[0] == 0.0 and s[1] == 1.0


def test_documented_endpoint_adjustments():
    # Penner's expo_in returns b at t = 0 although its formula gives 2^-10 there.
    assert ease("expo_in", 0.0) == 0.0
    assert ease("expo_in", 1e-300) == pytest.approx(2.0**-10)
    assert ease("expo_out", 1.0) == 1.0
    assert 1.0 - ease("expo_out", 1.0 - 1e-16) == pytest.approx(2.0**-10)
    assert ease("elastic_in", 0.0) == 0.0 and ease("elastic_out", 1.0) == 1.0


def test_back_overshoot_constant():
    # back_in's minimum is at u = 2s / (3(s + 1)), where it dips by about 10%.
    s = 1.70158
    u = 2 * s / (3 * (s + 1))
    assert ease("back_in", u, derivative=1) == pytest.approx(0.0, abs=1e-15)
    assert ease("back_in", u) == pytest.approx(-0.100004, abs=1e-6)


def _knots(kind):
    """Where a kind's derivative jumps or blows up: excluded from finite differences."""
    base = [1 / 2.75, 2 / 2.75, 2.5 / 2.75] if kind.startswith("bounce") else []
    if kind.endswith("_in_out"):
        base = [k / 2 for k in base] + [0.5 + k / 2 for k in base] + [0.5 - k / 2 for k in base]
        base += [1 - k for k in base] + [0.5]  # the halves meet with a curvature jump
    else:
        base += [1 - k for k in base]
    return np.array(base + [0.0, 1.0])


@pytest.mark.parametrize("kind", EASING_KINDS)
def test_derivative_matches_central_differences(kind):
    h = 1e-6
    u = np.linspace(0.02, 0.98, 193)
    keep = np.min(np.abs(u[:, None] - _knots(kind)[None, :]), axis=1) > 0.02 \
        if kind.startswith("circ") else \
        np.min(np.abs(u[:, None] - _knots(kind)[None, :]), axis=1) > 1e-4
    u = u[keep]
    fd = (penner(kind, u + h) - penner(kind, u - h)) / (2 * h)
    np.testing.assert_allclose(ease(kind, u, derivative=1), fd, rtol=1e-6, atol=1e-6)


def test_circ_vertical_tangents_are_infinite():
    assert ease("circ_in", 1.0, derivative=1) == np.inf
    assert ease("circ_out", 0.0, derivative=1) == np.inf
    assert ease("circ_in_out", 0.5, derivative=1) == np.inf


# -- CSS cubic-bezier -----------------------------------------------------------------

@pytest.mark.parametrize("keyword, u, expected", [
    ("ease", 0.5, 0.802403388),
    ("ease-in", 0.5, 0.315356813),
    ("ease-in-out", 0.25, 0.129161931),
])
def test_css_keywords(keyword, u, expected):
    assert CubicBezier.keyword(keyword)(u) == pytest.approx(expected, abs=1e-9)


def test_css_keyword_table():
    assert CubicBezier.keyword("ease") == CubicBezier(0.25, 0.1, 0.25, 1.0)
    assert CubicBezier.keyword("ease-out") == CubicBezier(0.0, 0.0, 0.58, 1.0)
    u = np.linspace(0, 1, 11)
    np.testing.assert_allclose(CubicBezier.keyword("linear")(u), u, atol=1e-12)
    with pytest.raises(ValueError, match=r"^CubicBezier.keyword: name is 'ease-inn' \(must be one of .*; did you mean 'ease-in'"):
        CubicBezier.keyword("ease-inn")


@pytest.mark.parametrize("points", [
    (0.25, 0.1, 0.25, 1.0), (0.42, 0.0, 1.0, 1.0), (0.0, 0.0, 0.58, 1.0),
    (0.68, -0.55, 0.265, 1.55), (1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 1.0, 0.0), (0.9, 2.0, 0.1, -1.0),
    (0.0, 0.0, 0.0, 0.0), (1.0, 1.0, 1.0, 1.0),
])
def test_cubic_bezier_matches_root_finding_reference(points):
    # 1,201 values: long enough for the kernel's vectorized table + Newton path
    u = np.concatenate([np.linspace(0, 1, 101), np.random.default_rng(3).uniform(0, 1, 1100)])
    curve = CubicBezier(*points)
    expected = css_cubic_bezier(*points, u)
    np.testing.assert_allclose(curve(u), expected, rtol=0, atol=1e-10)
    short = np.array([curve(x) for x in u[:60]])  # the scalar path agrees
    np.testing.assert_allclose(short, expected[:60], rtol=0, atol=1e-10)
    rate = curve(u, derivative=1)
    np.testing.assert_allclose(rate[:60], [curve(x, derivative=1) for x in u[:60]],
                               rtol=1e-9, atol=1e-9)


def test_cubic_bezier_solves_x_to_1e_12():
    # With y = x on the curve (y1 = x1, y2 = x2) the result is x(t) itself.
    u = np.random.default_rng(4).uniform(0, 1, 10000)
    for x1, x2 in [(0.25, 0.25), (1.0, 0.0), (0.9, 0.05), (0.0, 1.0)]:
        assert np.max(np.abs(CubicBezier(x1, x1, x2, x2)(u) - u)) <= 1e-12


@pytest.mark.parametrize("points", [(0.25, 0.1, 0.25, 1.0), (0.68, -0.55, 0.265, 1.55),
                                    (0.3, 0.9, 0.7, 0.1)])
def test_cubic_bezier_derivative(points):
    h = 1e-6
    u = np.linspace(0.01, 0.99, 99)
    curve = CubicBezier(*points)
    fd = (css_cubic_bezier(*points, u + h) - css_cubic_bezier(*points, u - h)) / (2 * h)
    np.testing.assert_allclose(curve(u, derivative=1), fd, rtol=1e-5, atol=1e-6)


def test_cubic_bezier_derivative_at_stalls():
    # x1 = y1 = 0: both speeds vanish at t = 0; the limit is y''/x'' = y2 / x2.
    assert CubicBezier(0.0, 0.0, 0.5, 0.25)(0.0, derivative=1) == pytest.approx(0.5)
    # x1 = 0, y1 > 0: vertical tangent at the start
    assert CubicBezier(0.0, 0.5, 0.5, 1.0)(0.0, derivative=1) == np.inf
    assert CubicBezier(0.5, 0.5, 0.5, 0.5)(0.5, derivative=1) == pytest.approx(1.0)


def test_cubic_bezier_properties_and_repr():
    curve = CubicBezier(0.25, 0.1, 0.25, 1)
    assert (curve.x1, curve.y1, curve.x2, curve.y2) == (0.25, 0.1, 0.25, 1.0)
    assert repr(curve) == "CubicBezier(0.25, 0.1, 0.25, 1.0)"
    assert curve.monotone and not CubicBezier(0.68, -0.55, 0.265, 1.55).monotone
    assert hash(curve) == hash(CubicBezier(0.25, 0.1, 0.25, 1.0))
    assert curve.ease(0.5) == curve(0.5) == ease(curve, 0.5)


@pytest.mark.parametrize("args, match", [
    ((-0.1, 0, 1, 1), r"CubicBezier: x1 is -0.1 \(must lie in \[0, 1\]"),
    ((0, 0, 1.5, 1), r"CubicBezier: x2 is 1.5"),
    ((0, np.nan, 1, 1), r"CubicBezier: y1 is nan \(must be finite\)"),
    ((0, 0, 1, np.inf), r"CubicBezier: y2 is inf"),
    ((0, "a", 1, 1), r"CubicBezier: y1 must be a real number"),
])
def test_cubic_bezier_bad_points(args, match):
    with pytest.raises(ValueError, match=match):
        CubicBezier(*args)


# -- CSS steps ------------------------------------------------------------------------

@pytest.mark.parametrize("position", ["jump-start", "jump-end", "jump-none", "jump-both"])
@pytest.mark.parametrize("n", [2, 3, 5])
def test_steps_match_css(position, n):
    u = np.concatenate([np.linspace(0, 1, 61), np.arange(n + 1) / n])
    np.testing.assert_array_equal(Steps(n, position)(u), css_steps(n, position, u))
    np.testing.assert_array_equal(Steps(n, position)(u, derivative=1), 0.0)


def test_steps_css_examples():
    np.testing.assert_array_equal(Steps(4)([0.0, 0.24, 0.25, 0.99, 1.0]),
                                  [0.0, 0.0, 0.25, 0.75, 1.0])
    assert Steps(1, "start")(0.0) == 1.0 and Steps(1, "end")(0.999) == 0.0
    np.testing.assert_allclose(Steps(3, "jump-none")([0.0, 0.4, 0.7, 1.0]), [0, 0.5, 1, 1])
    assert Steps(2, "jump-both")(0.0) == pytest.approx(1 / 3)
    assert Steps(4) == Steps(4, "jump-end") and Steps(4, "start") == Steps(4, "jump-start")
    assert repr(Steps(3, "jump-none")) == "Steps(3, position='jump-none')"
    assert Steps(3).n == 3 and Steps(3).position == "end"


@pytest.mark.parametrize("args, match", [
    ((0,), r"Steps: n is 0 \(must be >= 1\)"),
    ((1, "jump-none"), r"Steps: n is 1 \(must be >= 2 for jump-none\)"),
    ((2.5,), r"Steps: n must be an integer, got 2.5"),
    ((True,), r"Steps: n must be an integer"),
    ((2**40,), r"Steps: n is 1099511627776 \(must be <= 2\*\*31\)"),
    ((2, "middle"), r"Steps: position is 'middle' \(must be one of"),
])
def test_steps_bad_arguments(args, match):
    with pytest.raises(ValueError, match=match):
        Steps(*args)


def test_steps_bad_u():
    with pytest.raises(ValueError, match=r"Steps: u at index \(1,\) is 2.0 \(must lie in \[0, 1\]\)"):
        Steps(2)([0.5, 2.0])
    with pytest.raises(ValueError, match=r"Steps: u at index \(0,\) is nan"):
        Steps(2)([np.nan], derivative=1)


# -- inverses --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", MONOTONE)
def test_inverse_round_trip_s(kind):
    s = np.linspace(0, 1, 401)
    u = ease_inverse(kind, s)
    assert np.all((u >= 0) & (u <= 1))
    back = ease(kind, u)
    if kind.startswith("expo"):  # values inside expo's end jumps are reached at that end
        jump = 2.0**-10 if kind != "expo_in_out" else 2.0**-11
        inside = (s > 0) & (s < jump) | (s < 1) & (s > 1 - jump)
        np.testing.assert_array_equal(u[inside & (s < 0.5)], 0.0)
        np.testing.assert_array_equal(u[inside & (s > 0.5)], 1.0)
        s, back = s[~inside], back[~inside]
    np.testing.assert_allclose(back, s, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", MONOTONE)
def test_inverse_round_trip_u(kind):
    u = np.linspace(0.05, 0.95, 91)
    u = u[np.abs(u - 0.5) > 0.01] if kind.endswith("in_out") else u
    # where the rate is small the inverse is ill-conditioned: tolerance ~ eps / rate
    rate = ease(kind, u, derivative=1)
    tol = 1e-13 / np.minimum(rate, 1.0) + 1e-13
    assert np.all(np.abs(ease_inverse(kind, ease(kind, u)) - u) <= tol)


def test_inverse_closed_form_values():
    assert ease_inverse("smoothstep", 0.5) == 0.5
    assert ease_inverse("quad_in", 0.25) == 0.5
    assert ease_inverse("linear", 0.3) == 0.3
    assert ease_inverse("sine_in_out", 0.5) == pytest.approx(0.5, abs=1e-15)
    assert ease_inverse("smootherstep", 0.10351562500000001) == pytest.approx(0.25, abs=1e-12)


@pytest.mark.parametrize("kind", easing_kinds(monotone=False))
def test_inverse_refuses_non_monotone_kinds(kind):
    with pytest.raises(ValueError, match=rf"ease_inverse: kind '{kind}' is not monotone"):
        ease_inverse(kind, 0.5)


def test_inverse_of_objects():
    curve = CubicBezier(0.25, 0.1, 0.25, 1.0)
    s = np.linspace(0, 1, 101)
    np.testing.assert_allclose(curve(curve.inverse(s)), s, atol=1e-11)
    np.testing.assert_allclose(ease_inverse(curve, s), curve.inverse(s))
    np.testing.assert_allclose(ease_inverse(Ease("cubic_in"), s), ease_inverse("cubic_in", s))
    with pytest.raises(ValueError, match=r"ease_inverse: CubicBezier\(0.68, -0.55.*not monotone"):
        ease_inverse(CubicBezier(0.68, -0.55, 0.265, 1.55), 0.5)
    with pytest.raises(ValueError, match=r"Steps.inverse: Steps\(4.*piecewise constant"):
        Steps(4).inverse(0.5)
    with pytest.raises(ValueError, match=r"Ease.inverse: kind 'bounce_out' is not monotone"):
        Ease("bounce_out").inverse(0.5)


def test_inverse_bad_s():
    with pytest.raises(ValueError, match=r"ease_inverse: s at index \(1, 0\) is -0.5 \(must lie in \[0, 1\]\)"):
        ease_inverse("quad_in", [[0.1], [-0.5]])
    with pytest.raises(ValueError, match=r"ease_inverse: s is inf \(must be finite\)"):
        ease_inverse("smootherstep", np.inf)
    with pytest.raises(ValueError, match=r"ease_inverse: unknown easing kind 'quad'"):
        ease_inverse("quad", 0.5)


# -- names and objects are interchangeable ----------------------------------------------

def test_names_and_objects_interchangeable():
    u = np.linspace(0, 1, 17)
    for kind in EASING_KINDS:
        obj = as_easing(kind)
        assert isinstance(obj, Easing) and obj == Ease(kind) and obj.name == kind
        np.testing.assert_array_equal(ease(obj, u), ease(kind, u))
        np.testing.assert_array_equal(obj(u, derivative=1), ease(kind, u, derivative=1))
    curve = CubicBezier(0.42, 0, 0.58, 1)
    assert as_easing(curve) is curve
    np.testing.assert_array_equal(ease(curve, u, derivative=1), curve(u, derivative=1))
    np.testing.assert_array_equal(ease(Steps(3), u), Steps(3)(u))
    assert repr(Ease("quad_in")) == "Ease('quad_in')" and Ease("quad_in").monotone


@pytest.mark.parametrize("bad", [3, None, "cubic", object()])
def test_bad_easing(bad):
    with pytest.raises(ValueError, match=r"^ease: (unknown easing kind|easing must be a name)"):
        ease(bad, 0.5)


def test_a_parameterized_ease_names_itself_in_out_errors():
    # (its curve's evaluation named Curve.evaluate)
    u = np.linspace(0, 1, 5)
    with pytest.raises(ValueError, match=r"^Ease: out\[0\] has shape \(5, 1\), expected \(5,\)$"):
        Ease("back_in", overshoot=2.0)(u, out=np.zeros((5, 1)))
    with pytest.raises(ValueError, match=r"^ease: out\[0\] has dtype int64, expected a float"):
        ease(Ease("elastic_out", amplitude=1.5, period=0.4), u, out=np.zeros(5, np.int64))


def test_object_error_names_the_public_call():
    with pytest.raises(ValueError, match=r"^ease: u at index \(0,\) is 2.0"):
        ease(CubicBezier(0.25, 0.1, 0.25, 1.0), [2.0])
    with pytest.raises(ValueError, match=r"^CubicBezier: u at index \(0,\) is 2.0"):
        CubicBezier(0.25, 0.1, 0.25, 1.0)([2.0])
    with pytest.raises(ValueError, match=r"^Ease: u is -1.0"):
        Ease("sine_in")(-1.0)
    with pytest.raises(ValueError, match=r"Ease: unknown easing kind 'sin_in'"):
        Ease("sin_in")


# -- arrays, errors, out= --------------------------------------------------------------------

@pytest.mark.parametrize("u, match", [
    ([0.0, 0.5, 1.5], r"ease: u at index \(2,\) is 1.5 \(must lie in \[0, 1\]\)"),
    ([[0.0], [-1e-300]], r"ease: u at index \(1, 0\) is -1e-300 \(must lie in \[0, 1\]\)"),
    (np.nan, r"ease: u is nan \(must be finite\)"),
    ([0.2, -np.inf], r"ease: u at index \(1,\) is -inf \(must be finite\)"),
    (["a"], r"ease: u must be real numbers"),
    (1j, r"ease: u must be real numbers"),
])
@pytest.mark.parametrize("derivative", [0, 1])
def test_bad_u(u, match, derivative):
    with pytest.raises(ValueError, match=match):
        ease("cubic_in_out", u, derivative=derivative)


@pytest.mark.parametrize("easing", ["quad_in", CubicBezier(0.25, 0.1, 0.25, 1.0), Steps(3)])
def test_out_semantics(easing):
    u = np.linspace(0, 1, 7)
    keep = u.copy()
    out = np.empty(7)
    assert ease(easing, u, out=out) is out
    np.testing.assert_array_equal(out, ease(easing, u))
    np.testing.assert_array_equal(u, keep)  # input not modified
    assert ease(easing, u, out=u) is u  # out may alias the input
    np.testing.assert_array_equal(u, out)
    sentinel = np.full(3, -7.0)
    with pytest.raises(ValueError):
        ease(easing, [0.1, 0.2, 3.0], out=sentinel)
    np.testing.assert_array_equal(sentinel, -7.0)  # untouched on error
    f32 = np.zeros(7, dtype=np.float32)
    assert ease(easing, keep, out=f32) is f32
    np.testing.assert_array_equal(f32, ease(easing, keep).astype(np.float32))


@pytest.mark.parametrize("out, match", [
    (np.empty(4), r"ease: out\[0\] has shape \(4,\), expected \(3,\)"),
    (np.empty(3, dtype=int), r"ease: out\[0\] has dtype int64"),
    ([0, 0, 0], r"ease: out must be a tuple of 1 arrays"),
])
def test_bad_out(out, match):
    with pytest.raises(ValueError, match=match):
        ease("quad_in", [0.0, 0.5, 1.0], out=out)


def test_inverse_out():
    out = np.full(2, 5.0)
    assert ease_inverse("quad_in", [0.25, 1.0], out=out) is out
    np.testing.assert_array_equal(out, [0.5, 1.0])
    with pytest.raises(ValueError):
        ease_inverse("quad_in", [0.25, 2.0], out=out)
    np.testing.assert_array_equal(out, [0.5, 1.0])



# out= is written by one evaluation when every value is proven to lie in
# [0, 1], by a validation pass and then the evaluation otherwise; either way
# the bits of a fresh call, and out as it was on an error.
OUT_EASINGS = {
    "ease": (lambda u, out=None: ease("sine_in_out", u, out=out), "ease", "u"),
    "Ease rate": (lambda u, out=None: Ease("elastic_out")(u, derivative=1, out=out), "Ease", "u"),
    "Ease.inverse": (lambda s, out=None: Ease("expo_in_out").inverse(s, out=out),
                     "Ease.inverse", "s"),
    "CubicBezier": (lambda u, out=None: CubicBezier(0.3, -0.4, 0.6, 1.5)(u, out=out),
                    "CubicBezier", "u"),
    "CubicBezier rate": (lambda u, out=None: CubicBezier(0.3, -0.4, 0.6, 1.5)(
        u, derivative=1, out=out), "CubicBezier", "u"),
    "Steps": (lambda u, out=None: Steps(4, "jump-both")(u, out=out), "Steps", "u"),
}


@pytest.mark.parametrize("name", OUT_EASINGS)
def test_out_gives_the_bits_of_a_fresh_call(name):
    call = OUT_EASINGS[name][0]
    u = np.r_[0.0, 1.0, 0.5, np.random.default_rng(0).uniform(0.0, 1.0, 10_000)]
    out = np.full(u.shape, -7.0)
    assert call(u, out=out) is out
    np.testing.assert_array_equal(out, call(u))


@pytest.mark.parametrize("name", OUT_EASINGS)
@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("bad, message", [(np.nan, r"is nan \(must be finite\)"),
                                          (-1e-300, r"is -1e-300 \(must lie in \[0, 1\]\)"),
                                          (1.5, r"is 1.5 \(must lie in \[0, 1\]\)")])
def test_out_untouched_and_the_same_error_on_a_bad_value(name, where, bad, message):
    call, func, arg = OUT_EASINGS[name]
    n = 10_000  # several blocks of the binding's walk
    u = np.linspace(0.0, 1.0, n)
    i = {"first": 0, "middle": n // 2, "last": n - 1}[where]
    u[i] = bad
    with pytest.raises(ValueError) as fresh:
        call(u)
    out = np.full(n, -7.0)
    with pytest.raises(ValueError, match=rf"^{func}: {arg} at index \({i},\) {message}$") as e:
        call(u, out=out)
    assert str(e.value) == str(fresh.value)
    np.testing.assert_array_equal(out, -7.0)


def test_scalars_and_empty():
    assert np.ndim(ease("quad_in", 0.5)) == 0 and ease("quad_in", 0.5) == 0.25
    assert ease("quad_in", np.empty((0, 3))).shape == (0, 3)
    assert CubicBezier(0.1, 0.2, 0.3, 0.4)(np.empty(0), derivative=1).shape == (0,)
    assert ease_inverse("smootherstep", np.empty((2, 0))).shape == (2, 0)
    assert Steps(2)(np.empty(0)).shape == (0,)


easings = st.one_of(st.sampled_from(EASING_KINDS),
                    st.sampled_from([CubicBezier(0.25, 0.1, 0.25, 1.0), Steps(4, "jump-both"),
                                     CubicBezier(0.7, -0.4, 0.2, 1.4)]))


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
                  elements=st.floats(0, 1)),
       easings, st.sampled_from([np.float32, np.float64, np.int8]), st.sampled_from([0, 1]))
def test_shapes_dtypes_views(u, easing, dtype, derivative):
    view = u.astype(dtype)[..., ::-1] if u.ndim else u.astype(dtype)
    expected = ease(easing, np.ascontiguousarray(view, dtype=np.float64), derivative=derivative)
    got = ease(easing, view, derivative=derivative)
    assert np.shape(got) == view.shape
    np.testing.assert_array_equal(got, expected)
    if isinstance(easing, str) and view.size and not derivative:
        u64 = view.astype(np.float64)
        atol = 1e-14
        if easing.startswith("circ"):  # Penner's sqrt(1 - t^2) cancels near a vertical
            # tangent, off by about eps / sqrt(d) a distance d from it (u = 1e-12: 1.6e-11)
            tangent = {"circ_in": 1.0, "circ_out": 0.0, "circ_in_out": 0.5}[easing]
            atol = 1e-14 + 1e-15 / np.sqrt(np.maximum(np.abs(u64 - tangent), 1e-300))
        np.testing.assert_array_less(np.abs(got - penner(easing, u64)), atol)


@given(hnp.arrays(np.float64, st.integers(0, 30), elements=st.floats(0, 1)),
       st.sampled_from(MONOTONE))
def test_inverse_property(s, kind):
    u = ease_inverse(kind, s)
    assert u.shape == s.shape and np.all((u >= 0) & (u <= 1))
    # monotone: a larger value is never reached earlier
    order = np.argsort(s, kind="stable")
    assert np.all(np.diff(u[order]) >= -1e-15)



@pytest.mark.parametrize("kind", easing_kinds(monotone=True))
def test_inverse_stays_in_unit_interval_near_the_ends(kind):
    # 1 - cbrt(1 - 2^-52) rounds below 0 unless the kernel clamps
    s = np.array([0.0, 2.0**-52, 1e-300, 1.0 - 2.0**-53, 1.0])
    u = ease_inverse(kind, s)
    assert ((u >= 0.0) & (u <= 1.0)).all(), u


# -- rates at the ends: the one-sided limits -----------------------------------------------

def one_sided_limit(f, end):
    """The limit of df/du as u -> end from inside [0, 1], from values only:
    differences at distances h and 4h inside, extrapolated to the end for an
    error that shrinks like sqrt(h) (a Bezier whose speeds both vanish) or
    faster (never touching f(end) itself, where an easing may jump). Returns
    inf (with the sign of the slope) where the differences keep growing."""
    inward = 1.0 if end == 0.0 else -1.0
    h = 1e-8

    def slope(h):
        a, b = end + inward * h, end + inward * 2 * h
        return (f(b) - f(a)) / (b - a)

    near, far = slope(h), slope(4 * h)
    if abs(slope(h / 100)) > 5 * abs(near) > 1e3:
        return np.copysign(np.inf, near)
    return 2 * near - far


@pytest.mark.parametrize("end", [0.0, 1.0])
@pytest.mark.parametrize("kind", EASING_KINDS)
def test_every_kind_rate_at_the_ends_is_the_one_sided_limit(kind, end):
    expected = one_sided_limit(lambda u: float(penner(kind, np.array(u))), end)
    got = float(ease(kind, end, derivative=1))
    if np.isinf(expected):
        assert got == expected
    else:
        assert got == pytest.approx(expected, rel=1e-4, abs=1e-6)
    if abs(expected) < 1e-6:  # a vanishing rate is exactly zero, not an ulp off or -0.0
        assert got == 0.0 and np.copysign(1.0, got) == 1.0


BEZIER_POINTS = [
    (0.42, 0.0, 1.0, 1.0), (0.0, 0.0, 0.58, 1.0), (0.25, 0.1, 0.25, 1.0), (0.42, 0.0, 0.58, 1.0),
    (0.3, 0.8, 1.0, 1.0), (0.0, 0.0, 0.3, 0.8), (1.0, 0.3, 1.0, 0.7), (0.0, 0.5, 0.0, 0.5),
    (1.0, 0.0, 1.0, 0.0), (0.0, 0.0, 0.0, 0.0), (1.0, 1.0, 1.0, 1.0), (0.0, 1.0, 1.0, 0.0),
    (0.2, 1.5, 0.8, -0.5), (0.68, -0.55, 0.265, 1.55), (1.0, -0.4, 1.0, 1.3), (0.5, 0.5, 0.5, 0.5),
]


@pytest.mark.parametrize("end", [0.0, 1.0])
@pytest.mark.parametrize("points", BEZIER_POINTS)
def test_cubic_bezier_rate_at_the_ends_is_the_one_sided_limit(points, end):
    expected = one_sided_limit(lambda u: float(css_cubic_bezier(*points, np.array([u]))[0]), end)
    curve = CubicBezier(*points)
    got = float(curve(end, derivative=1))
    # the vectorized path (large arrays) agrees at the ends
    many = curve(np.r_[end, np.linspace(0, 1, 3001)], derivative=1)
    assert many[0] == got
    if np.isinf(expected):
        assert got == expected
    else:
        assert got == pytest.approx(expected, rel=1e-4, abs=1e-6)


def test_ease_in_rate_at_one():
    # ease-in arrives at the rate y''(1) / x''(1) = (1 - y1) / (1 - x1) = 1 / 0.58
    assert float(CubicBezier(0.42, 0, 1, 1)(1.0, derivative=1)) == pytest.approx(1 / 0.58,
                                                                                    rel=1e-15)
    assert float(ease("ease-in", 1.0, derivative=1)) == pytest.approx(1 / 0.58, rel=1e-15)


# -- derivative is an integer order ---------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda d: ease("quad_in", 0.5, derivative=d),
    lambda d: ease(CubicBezier(0.25, 0.1, 0.25, 1.0), 0.5, derivative=d),
    lambda d: Ease("quad_in")(0.5, derivative=d),
    lambda d: Steps(3).ease(0.5, derivative=d),
])
def test_derivative_is_an_integer_order(call):
    assert float(call(np.int64(0))) == float(call(0))
    with pytest.raises(ValueError, match=r"derivative is True \(must be an integer order, 0 or 1\)"):
        call(True)
    with pytest.raises(ValueError, match=r"derivative is False \(must be an integer order"):
        call(False)
    with pytest.raises(ValueError, match=r"derivative is 1.0 \(must be an integer order"):
        call(1.0)
    with pytest.raises(ValueError, match=r"derivative is 2 \(must be 0 or 1: an easing gives its "
                                         r"value and rate only\)"):
        call(2)


def test_derivative_error_names_the_call():
    with pytest.raises(ValueError, match=r"^ease: derivative is 2"):
        ease("quad_in", 0.5, derivative=2)
    with pytest.raises(ValueError, match=r"^CubicBezier: derivative is -1"):
        CubicBezier(0.25, 0.1, 0.25, 1.0)(0.5, derivative=-1)


# -- names users bring -------------------------------------------------------------------------

@pytest.mark.parametrize("name, points", [
    ("ease", (0.25, 0.1, 0.25, 1.0)), ("ease-in", (0.42, 0.0, 1.0, 1.0)),
    ("ease-out", (0.0, 0.0, 0.58, 1.0)), ("ease-in-out", (0.42, 0.0, 0.58, 1.0)),
])
def test_css_names_wherever_an_easing_is_accepted(name, points):
    u = np.linspace(0, 1, 9)
    expected = css_cubic_bezier(*points, u)  # CSS Easing Level 1's control points
    assert as_easing(name) == CubicBezier(*points)
    np.testing.assert_allclose(ease(name, u), expected, atol=1e-9)
    np.testing.assert_allclose(ease_inverse(name, expected), u, atol=1e-9)
    from animcore import Curve
    curve = Curve([0, 1], [0, 10], interpolation="linear")
    np.testing.assert_allclose(Curve([0, 1], [0, 10], interpolation="linear", ease=name)(u),
                               10 * expected, atol=1e-8)
    np.testing.assert_allclose(curve.remap_time(name)(u), 10 * expected, atol=1e-8)


def test_css_linear_and_steps_keywords():
    u = np.linspace(0, 1, 9)
    np.testing.assert_array_equal(ease("linear", u), u)
    assert as_easing("step-start") == Steps(1, "jump-start")
    assert as_easing("step-end") == Steps(1, "jump-end")


@pytest.mark.parametrize("spelling, kind", [
    ("easeInOutCubic", "cubic_in_out"), ("easeOutSine", "sine_out"), ("InQuad", "quad_in"),
    ("smooth_step", "smoothstep"), ("Bounce-Out", "bounce_out"), ("QUINT_IN_OUT", "quint_in_out"),
])
def test_tool_spellings_of_kinds(spelling, kind):
    assert as_easing(spelling) == Ease(kind)
    u = np.linspace(0, 1, 5)
    np.testing.assert_array_equal(ease(spelling, u, derivative=1), ease(kind, u, derivative=1))


def test_unknown_name_suggests_the_closest_with_one_prefix():
    with pytest.raises(ValueError, match=r"^ease: unknown easing kind 'smoothstpe'; did you mean "
                                         r"'smoothstep' or 'smootherstep'\? \(easing_kinds\(\) "
                                         r"lists the 33 kinds") as info:
        ease("smoothstpe", 0.5)
    assert "quad_in_out" not in str(info.value)  # no wall of names
    from animcore import Curve
    with pytest.raises(ValueError, match=r"^Curve: unknown easing kind 'smoth_step'; did you "
                                         r"mean 'smoothstep'"):
        Curve([0, 1], [0, 1], ease="smoth_step")
    with pytest.raises(ValueError, match=r"^Ease: unknown easing kind 'ease-in' \(easing_kinds"
                                         r"\(\) .* through as_easing\(name\)"):
        Ease("ease-in")
    with pytest.raises(ValueError, match=r"^Steps: position is 'jump-ned' \(must be one of .*; "
                                         r"did you mean 'jump-end'"):
        Steps(2, "jump-ned")


# -- one easing library: every path gives the same bits (#26) -------------------

AGREE_U = np.concatenate([np.linspace(0.0, 1.0, 1001),
                          np.random.default_rng(26).random(2000),
                          [1 / 2.75, 2 / 2.75, 2.5 / 2.75, 0.5 - 1e-12, 0.5 + 1e-12, 1e-300]])


def _bits(x):
    return np.ascontiguousarray(x, dtype=np.float64).view(np.int64)


def _unit_curve(overshoots=True, **options):
    # linear on both sides: the unit segment continued, so an overshooting easing's
    # eased time outside [0, 1] still reads as that time (v = t exactly there)
    ends = "linear" if overshoots else "clamp"
    return animcore.Curve([0.0, 1.0], [0.0, 1.0], before=ends, after=ends, **options)


@pytest.mark.parametrize("kind", EASING_KINDS)
def test_ease_segment_and_remap_agree_to_the_bit(kind):
    expected = _bits(ease(kind, AGREE_U))
    segment = _unit_curve(interpolation="linear", ease=kind)(AGREE_U)
    remapped = _unit_curve(interpolation="linear").remap_time(kind)(AGREE_U)
    # a monotone kind keeps its eased times inside the keys; its own extrapolation
    # may have an infinite slope (circ_in), so it holds the ends
    interpolated = _unit_curve(kind not in MONOTONE, interpolation=kind)(AGREE_U)
    for name, got in (("ease=", segment), ("remap_time", remapped),
                      ("interpolation=", interpolated)):
        bad = np.flatnonzero(_bits(got) != expected)
        assert bad.size == 0, (f"{kind} {name}: {bad.size} points differ, first u = "
                               f"{AGREE_U[bad[0]]!r}")


@pytest.mark.parametrize("kind", EASING_KINDS)
def test_ease_rate_matches_segment_velocity(kind):
    u = AGREE_U[(AGREE_U > 0) & (AGREE_U < 1)]
    rate = ease(kind, u, derivative=1)
    u, rate = u[np.abs(rate) < 1e6], rate[np.abs(rate) < 1e6]  # not at vertical tangents
    velocity = _unit_curve(kind not in MONOTONE, interpolation=kind).evaluate(u, 1)
    np.testing.assert_allclose(velocity, rate, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("points", [(0.25, 0.1, 0.25, 1.0), (0.42, 0.0, 0.58, 1.0),
                                    (0.0, 0.0, 1.0, 1.0), (0.9, -0.5, 0.1, 1.5),
                                    (1.0, 0.0, 0.0, 1.0)])
def test_cubic_bezier_equals_the_segment_it_eases(points):
    easing = CubicBezier(*points)
    expected = _bits(easing(AGREE_U))
    for got in (_unit_curve(interpolation=easing)(AGREE_U),
                _unit_curve(interpolation="linear", ease=easing)(AGREE_U),
                _unit_curve(interpolation="linear").remap_time(easing)(AGREE_U)):
        bad = np.flatnonzero(_bits(got) != expected)
        assert bad.size == 0, f"{bad.size} points differ, first u = {AGREE_U[bad[0]]!r}"


@pytest.mark.parametrize("options", [dict(interpolation="linear", ease="quad_in_out"),
                                     dict(interpolation="cubic", ease="elastic_out"),
                                     dict(interpolation="sine_in_out"),
                                     dict(interpolation=CubicBezier(0.25, 0.1, 0.25, 1.0)),
                                     dict(interpolation=["back_out", "linear", "bounce_in"])])
@pytest.mark.parametrize("mode", ["cycle", "oscillate"])
def test_eased_cycle_fold_is_exact(options, mode):
    # period 4 (a power of two) and times on a 1/64 grid: t + k * period is exact
    # (oscillate repeats every second cycle mirrored: shift by whole pairs of cycles)
    curve = animcore.Curve([0.0, 0.5, 1.75, 4.0], [0.0, 1.0, 3.0, -2.0], before=mode,
                           after=mode, **options)
    period = 4.0 if mode == "cycle" else 8.0
    t = np.linspace(0.0, 4.0, 257)
    base = curve(t)
    for k in (1, 3, 1000, 2 ** 20 + 1, 10 ** 9, -(10 ** 9)):
        shifted = curve(t + k * period)
        bad = np.flatnonzero(_bits(shifted) != _bits(base))
        assert bad.size == 0, f"k = {k}: t = {t[bad[0]]} differs"
    inner = t[(t > 0.0) & (t < 4.0)]  # the seams' velocities depend on the side
    velocity = curve.evaluate(inner, 1)
    for k in (1, 1000, 10 ** 9):
        assert np.array_equal(_bits(curve.evaluate(inner + k * period, 1)), _bits(velocity)), k


def test_eased_cycle_offset_fold_is_exact():
    curve = animcore.Curve([0.0, 0.5, 1.75, 4.0], [0.0, 1.0, 3.0, -2.0], before="cycle_offset",
                           after="cycle_offset", interpolation="linear", ease="quad_in_out")
    t = np.linspace(0.0, 4.0, 257)
    base = curve(t)
    for k in (1, 1000, 10 ** 9):
        # each cycle shifts by last - first = -2 (exact: k * 2 and the sums are exact here)
        np.testing.assert_array_equal(curve(t + k * 4.0), base - 2.0 * k)
