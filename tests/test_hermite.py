import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.interpolate import CubicHermiteSpline

import animcore
from animcore import HermiteSegment, hermite, tangent_to_velocity, velocity_to_tangent

from reference import cubic, hermite_bezier


# -- article 000's figures ---------------------------------------------------

def test_two_second_segment():
    s = hermite(0, 10, 2, 0, 2, [0.0, 1.0, 2.0])
    np.testing.assert_allclose(s.position, [0.0, 5.5, 10.0], atol=1e-12)
    np.testing.assert_allclose(s.velocity, [2.0, 7.0, 0.0], atol=1e-12)


def test_missing_duration_regression():
    # Using the per-second velocity as the tangent is the same as dividing it by T.
    wrong = HermiteSegment(0, 10, 1, 0, 2)
    assert wrong.evaluate(1.0).position == pytest.approx(5.25, abs=1e-9)
    assert wrong.evaluate(0.0).velocity == pytest.approx(1.0, abs=1e-9)
    right = HermiteSegment(0, 10, 2, 0, 2)
    assert right.evaluate(1.0).position != pytest.approx(5.25)


def test_overshoot():
    assert hermite(0, 1, 6, -6, 1, 0.5).position == pytest.approx(2.0, abs=1e-12)


def test_constant_curve():
    s = hermite(3.5, 3.5, 0, 0, 4, np.linspace(0, 4, 9))
    np.testing.assert_array_equal(s.position, 3.5)
    np.testing.assert_array_equal(s.velocity, 0.0)


# -- the 20,200-point sweep --------------------------------------------------

def _sweep_inputs():
    a, b, T = np.meshgrid(np.arange(-2, 3), np.arange(-2, 3), np.arange(1, 9), indexing="ij")
    a, b, T = (x.reshape(-1, 1).astype(float) for x in (a, b, T))
    t = T * np.linspace(0.0, 1.0, 101)
    p0, v0 = cubic(a, b, 0.0)
    p1, v1 = cubic(a, b, T)
    return a, b, T, t, p0, p1, v0, v1


def test_polynomial_sweep_one_call():
    a, b, T, t, p0, p1, v0, v1 = _sweep_inputs()
    s = hermite(p0, p1, v0, v1, T, t)  # (200, 1) keys against (200, 101) times
    x, v = cubic(a, b, t)
    assert s.position.size == 20200
    np.testing.assert_allclose(s.position, x, rtol=0, atol=1e-9)
    np.testing.assert_allclose(s.velocity, v, rtol=0, atol=1e-9)


def test_polynomial_sweep_per_segment():
    a, b, T, t, p0, p1, v0, v1 = _sweep_inputs()
    for i in range(len(T)):
        seg = HermiteSegment(p0[i, 0], p1[i, 0], v0[i, 0], v1[i, 0], T[i, 0])
        s = seg.evaluate(t[i])
        x, v = cubic(a[i, 0], b[i, 0], t[i])
        np.testing.assert_allclose(s.position, x, rtol=0, atol=1e-9)
        np.testing.assert_allclose(s.velocity, v, rtol=0, atol=1e-9)


# -- independent references --------------------------------------------------

def test_matches_scipy_cubic_hermite_spline():
    rng = np.random.default_rng(1)
    for _ in range(50):
        p, v = rng.normal(size=2) * 10, rng.normal(size=2) * 10
        T = rng.uniform(0.05, 20)
        t = np.sort(rng.uniform(0, T, 64))
        spline = CubicHermiteSpline([0.0, T], p, v)
        s = hermite(p[0], p[1], v[0], v[1], T, t)
        np.testing.assert_allclose(s.position, spline(t), rtol=1e-12, atol=1e-12 * 20)
        np.testing.assert_allclose(s.velocity, spline(t, 1), rtol=1e-12, atol=1e-11 * 20)


def test_matches_bezier_reference_on_random_arrays():
    rng = np.random.default_rng(2)
    n = 1000
    p0, p1, v0, v1 = rng.normal(size=(4, n)) * 5
    T = rng.uniform(0.1, 5, n)
    t = T * rng.uniform(0, 1, n)
    s = hermite(p0, p1, v0, v1, T, t)
    x, v = hermite_bezier(p0, p1, v0, v1, T, t)
    np.testing.assert_allclose(s.position, x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s.velocity, v, rtol=1e-12, atol=1e-11)


def test_velocity_is_per_second_central_difference():
    h = 1e-6
    t = np.linspace(h, 3.0 - h, 200)
    s = hermite(-1.0, 4.0, 3.0, -2.0, 3.0, t)
    fd = (hermite(-1.0, 4.0, 3.0, -2.0, 3.0, t + h).position
          - hermite(-1.0, 4.0, 3.0, -2.0, 3.0, t - h).position) / (2 * h)
    np.testing.assert_allclose(s.velocity, fd, atol=1e-6)


# -- time stretch ------------------------------------------------------------

def test_stretch_keep_velocity_rebuilds_tangents():
    seg = HermiteSegment(0, 10, 2, 0, 2)
    longer = seg.stretched(2.0, keep="velocity")
    assert longer.duration == 4.0
    assert longer.start_velocity == 2.0 and longer.start_tangent == 8.0
    assert longer.evaluate(0.0).velocity == pytest.approx(2.0)
    # a different shape: the midpoint moves
    assert longer.evaluate(2.0).position != pytest.approx(seg.evaluate(1.0).position)


def test_stretch_keep_shape_is_slower_playback():
    seg = HermiteSegment(0, 10, 2, 0, 2)
    slower = seg.stretched(2.0, keep="shape")
    assert slower.start_tangent == seg.start_tangent
    t = np.linspace(0, 2, 11)
    np.testing.assert_allclose(slower.evaluate(2 * t).position, seg.evaluate(t).position, atol=1e-12)
    np.testing.assert_allclose(slower.evaluate(2 * t).velocity, seg.evaluate(t).velocity / 2, atol=1e-12)


@pytest.mark.parametrize("factor", [0, -1, np.inf, np.nan])
def test_stretch_bad_factor(factor):
    with pytest.raises(ValueError, match=r"HermiteSegment.stretched: factor is"):
        HermiteSegment(0, 1, 0, 0, 1).stretched(factor)


def test_stretch_bad_keep():
    with pytest.raises(ValueError, match=r"HermiteSegment.stretched: keep is 'speed'"):
        HermiteSegment(0, 1, 0, 0, 1).stretched(2, keep="speed")


def test_stretch_factor_not_a_number():
    with pytest.raises(ValueError, match=r"HermiteSegment.stretched: factor must be a real number, got 'x'"):
        HermiteSegment(0, 1, 0, 0, 1).stretched("x")


def test_segment_properties_and_repr():
    seg = HermiteSegment(1, 2, 3, 4, 0.5)
    assert (seg.start, seg.end, seg.start_velocity, seg.end_velocity, seg.duration) == (1, 2, 3, 4, 0.5)
    assert (seg.start_tangent, seg.end_tangent) == (1.5, 2.0)
    assert "duration=0.5" in repr(seg)
    np.testing.assert_array_equal(seg(np.array([0.25])).position, seg.evaluate([0.25]).position)


# -- arrays: broadcasting, dtypes, layout, out= -------------------------------

def test_vector_keys_broadcast_against_column_of_times():
    p0, p1 = np.array([0.0, 1.0, 2.0]), np.array([3.0, -1.0, 5.0])
    t = np.linspace(0, 2, 7)[:, None]
    s = hermite(p0, p1, 0.0, [1.0, 2.0, 3.0], 2.0, t)
    assert s.position.shape == (7, 3)
    x, v = hermite_bezier(p0, p1, 0.0, np.array([1.0, 2.0, 3.0]), 2.0, t)
    np.testing.assert_allclose(s.position, x, atol=1e-12)
    np.testing.assert_allclose(s.velocity, v, atol=1e-12)


def test_int_and_float32_inputs_become_float64():
    s = hermite(np.int32(0), 10, np.float32(2), 0, 2, np.array([1], dtype=np.float32))
    assert s.position.dtype == np.float64 and s.position[0] == 5.5


def test_noncontiguous_input():
    t = np.linspace(0, 2, 40)[::3]
    keys = np.array([[0.0, 10.0]] * len(t))
    s = hermite(keys[:, 0], keys[:, 1], 2, 0, 2, t)
    np.testing.assert_array_equal(s.position, hermite(0, 10, 2, 0, 2, t.copy()).position)


def test_misaligned_input():
    # a float64 view into a byte buffer at an odd offset: contiguous, not aligned
    buf = np.zeros(3 * 8 + 1, np.uint8)
    t = np.frombuffer(buf.data, np.float64, 3, 1)
    t[...] = [0.0, 1.0, 2.0]
    assert not t.flags.aligned
    s = hermite(0, 10, 2, 0, 2, t)
    np.testing.assert_allclose(s.position, [0.0, 5.5, 10.0], atol=1e-12)
    np.testing.assert_array_equal(velocity_to_tangent(t, 2.0), [0.0, 2.0, 4.0])


def test_segment_evaluate_out():
    seg = HermiteSegment(0, 10, 2, 0, 2)
    out = (np.full(2, -1.0), np.full(2, -2.0))
    s = seg.evaluate([0.0, 1.0], out=out)
    assert s.position is out[0] and s.velocity is out[1]
    np.testing.assert_allclose(out[0], [0.0, 5.5], atol=1e-12)
    np.testing.assert_allclose(out[1], [2.0, 7.0], atol=1e-12)
    with pytest.raises(ValueError, match=r"HermiteSegment.evaluate: elapsed at index \(0,\) is -1.0"):
        seg.evaluate([-1.0, 1.0], out=out)
    np.testing.assert_allclose(out[0], [0.0, 5.5], atol=1e-12)


def test_empty_in_empty_out():
    s = hermite(0, 1, 0, 0, 1, np.empty((0, 3)))
    assert s.position.shape == (0, 3) and s.velocity.shape == (0, 3)


def test_scalar_in_scalar_out():
    s = hermite(0, 10, 2, 0, 2, 1.0)
    assert np.ndim(s.position) == 0 and float(s.position) == 5.5


def test_result_is_out():
    t = np.linspace(0, 2, 5)
    out = (np.empty(5), np.empty(5))
    s = hermite(0, 10, 2, 0, 2, t, out=out)
    assert s.position is out[0] and s.velocity is out[1]
    np.testing.assert_array_equal(out[0], hermite(0, 10, 2, 0, 2, t).position)


def test_out_untouched_on_error():
    t = np.array([0.0, 1.0, 2.5, 1.0])
    out = (np.full(4, -7.0), np.full(4, -8.0))
    with pytest.raises(ValueError, match=r"^hermite: elapsed at index \(2,\) is 2.5 "):
        hermite(0, 10, 2, 0, 2, t, out=out)
    np.testing.assert_array_equal(out[0], -7.0)
    np.testing.assert_array_equal(out[1], -8.0)


def test_out_untouched_whichever_element_is_out_of_range():
    # The check before writing out reads elapsed as eight parts side by side
    # and a tail (43 = 8 x 5 + 3): a bad value anywhere is found and named.
    t = np.linspace(0.0, 2.0, 43)
    out = (np.full(43, -7.0), np.full(43, -8.0))
    for i in range(43):
        bad = t.copy()
        bad[i] = np.nan if i % 2 else 2.0 + 1e-9
        with pytest.raises(ValueError, match=rf"^hermite: elapsed at index \({i},\) is "):
            hermite(0.0, 10.0, 2.0, 0.0, 2.0, bad, out=out)
        assert (out[0] == -7.0).all() and (out[1] == -8.0).all()


@pytest.mark.parametrize("keys, message", [
    ((0.0, 10.0, 2.0, 0.0, 2.0), None),                       # ordinary
    ((0.0, 1e308, 0.0, 0.0, 2.0), None),                      # near overflow, valid
    ((0.0, 1e308, 0.0, 0.0, 0.5), r"velocity at index \(\d+,\) is"),   # overflows
    ((0.0, 10.0, 2.0, 0.0, 1.5), r"elapsed at index \(2500,\) is 1\.5000"),  # out of range
])
def test_out_single_pass_and_fallback(keys, message):
    # With out=, inputs shown valid by a cheap check are evaluated once; the
    # others (an error, or keys within a factor 8 of overflow) take the
    # validating pass: the same results as fresh outputs, out untouched on error.
    t = np.linspace(0.0, 1.8, 3001)
    out = (np.full(t.shape, -7.0), np.full(t.shape, -8.0))
    if message:
        with pytest.raises((ValueError, OverflowError), match=message):
            hermite(*keys, t, out=out)
        assert (out[0] == -7.0).all() and (out[1] == -8.0).all()
        return
    fresh = hermite(*keys, t)
    s = hermite(*keys, t, out=out, workers=2)
    assert s.position is out[0]
    np.testing.assert_array_equal(out[0], fresh.position)
    np.testing.assert_array_equal(out[1], fresh.velocity)
    want = hermite_bezier(*keys, t)
    np.testing.assert_allclose(out[0], want[0], rtol=1e-12, atol=1e-12 * abs(keys[1]))


@pytest.mark.parametrize("workers", [1, 2])
def test_out_on_many_elements_reports_the_first_failure_and_writes_in_place(workers):
    # Enough elements for the check to run in chunks (and on two threads):
    # a late failure found first must not hide an earlier one.
    t = np.linspace(0.0, 2.0, 400_001)
    out = (np.full(t.shape, -7.0), np.full(t.shape, -8.0))
    bad = t.copy()
    bad[[1234, 390_000]] = [2.5, 3.0]
    with pytest.raises(ValueError, match=r"^hermite: elapsed at index \(1234,\) is 2\.5 "):
        hermite(0.0, 10.0, 2.0, 0.0, 2.0, bad, out=out, workers=workers)
    assert (out[0] == -7.0).all() and (out[1] == -8.0).all()
    s = hermite(0.0, 10.0, 2.0, 0.0, 2.0, t, out=out, workers=workers)
    assert s.position is out[0] and s.velocity is out[1]
    want = hermite_bezier(0.0, 10.0, 2.0, 0.0, 2.0, t)
    np.testing.assert_allclose(out[0], want[0], rtol=1e-12, atol=1e-11)
    np.testing.assert_allclose(out[1], want[1], rtol=1e-12, atol=1e-11)
    fresh = hermite(0.0, 10.0, 2.0, 0.0, 2.0, t[::-1].copy()[::-1], workers=1)
    np.testing.assert_array_equal(out[0], fresh.position)
    np.testing.assert_array_equal(out[1], fresh.velocity)


def test_input_not_modified():
    t = np.linspace(0, 2, 11)
    keep = t.copy()
    hermite(0, 10, 2, 0, 2, t, out=(t, np.empty_like(t)))  # out may even alias an input
    np.testing.assert_array_equal(hermite(0, 10, 2, 0, 2, keep).position, t)
    t2 = np.linspace(0, 2, 11)
    hermite(0, 10, 2, 0, 2, t2)
    np.testing.assert_array_equal(t2, keep)


@pytest.mark.parametrize("out, match", [
    ((np.empty(3),), r"out must be a tuple of 2 arrays"),
    ((np.empty(3), np.empty(4)), r"out\[1\] has shape \(4,\), expected \(3,\)"),
    ((np.empty(3), np.empty(3, dtype=int)), r"out\[1\] has dtype int64"),
    ((np.empty(3), [0, 0, 0]), r"out\[1\] must be a numpy array"),
])
def test_bad_out(out, match):
    with pytest.raises(ValueError, match=match):
        hermite(0, 1, 0, 0, 1, [0.0, 0.5, 1.0], out=out)


def test_readonly_out():
    ro = np.empty(3)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"out\[0\] is read-only"):
        hermite(0, 1, 0, 0, 1, [0.0, 0.5, 1.0], out=(ro, np.empty(3)))


@given(st.data())
def test_broadcasting_matches_reference(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=6, max_dims=3, min_side=0, max_side=4))
    ranges = [(-5, 5), (-5, 5), (-5, 5), (-5, 5), (0.1, 4), (0, 1)]
    args = [data.draw(hnp.arrays(np.float64, shape, elements=st.floats(lo, hi)))
            for shape, (lo, hi) in zip(shapes.input_shapes, ranges)]
    args[5] = args[5] * args[4]  # elapsed as a fraction of duration
    s = hermite(*args)
    x, v = hermite_bezier(*args)
    assert s.position.shape == s.velocity.shape == shapes.result_shape
    np.testing.assert_allclose(s.position, x, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(s.velocity, v, rtol=1e-9, atol=1e-8)


@given(hnp.arrays(np.float64, hnp.array_shapes(max_dims=2, max_side=6), elements=st.floats(0, 2)),
       st.sampled_from([np.float32, np.float64, np.int64]))
def test_dtypes_and_views(t, dtype):
    view = t.astype(dtype)[..., ::-1]  # non-contiguous reversed view
    expected = hermite(0.0, 10.0, 2.0, 0.0, 2.0, np.ascontiguousarray(view, dtype=np.float64))
    got = hermite(0, 10, 2, 0, 2, view)
    np.testing.assert_array_equal(got.position, expected.position)


# -- every bad-input branch ----------------------------------------------------

@pytest.mark.parametrize("args, exc, match", [
    ((np.nan, 1, 0, 0, 1, 0), ValueError, r"hermite: start is nan \(must be finite\)"),
    ((0, np.inf, 0, 0, 1, 0), ValueError, r"hermite: end is inf \(must be finite\)"),
    ((0, 1, np.nan, 0, 1, 0), ValueError, r"hermite: start_velocity is nan"),
    ((0, 1, 0, -np.inf, 1, 0), ValueError, r"hermite: end_velocity is -inf"),
    ((0, 1, 0, 0, np.nan, 0), ValueError, r"hermite: duration is nan \(must be finite\)"),
    ((0, 1, 0, 0, 0, 0), ValueError, r"hermite: duration is 0.0 \(must be > 0\)"),
    ((0, 1, 0, 0, -2, 0), ValueError, r"hermite: duration is -2.0 \(must be > 0\)"),
    ((0, 1, 1e308, 0, 2, 0), OverflowError, r"hermite: start_velocity is 1e\+308 \(times duration=2 gives a tangent"),
    ((0, 1, 0, -1e308, 2, 0), OverflowError, r"hermite: end_velocity is -1e\+308"),
    ((0, 1, 0, 0, 1, np.nan), ValueError, r"hermite: elapsed is nan \(must be finite\)"),
    ((0, 10, 2, 0, 2, [0, 1, 2.5]), ValueError, r"hermite: elapsed at index \(2,\) is 2.5 \(must lie in \[0, duration=2\]\)"),
    ((0, 10, 2, 0, 2, [[0], [-0.5]]), ValueError, r"hermite: elapsed at index \(1, 0\) is -0.5"),
    ((1.7e308, 1.7e308, 1e308, 0, 1, 0.5), OverflowError, r"hermite: position is inf \(is not representable"),
    ((0, 1e300, 0, 0, 1e-10, 0.5e-10), OverflowError, r"hermite: velocity is inf"),
    ((0, 1, 0, 0, 1, "a"), ValueError, r"hermite: elapsed must be real numbers"),
    ((0, 1, 0, 0, 1, 1j), ValueError, r"hermite: elapsed must be real numbers"),
    ((0, [1, 2], 0, 0, 1, [0, 0.5, 1]), ValueError, r"hermite: cannot broadcast .*end \(2,\).*elapsed \(3,\)"),
])
def test_bad_input(args, exc, match):
    with pytest.raises(exc, match=match):
        hermite(*args)


def test_error_index_is_in_broadcast_shape():
    duration = np.array([[1.0], [2.0], [-3.0]])
    with pytest.raises(ValueError, match=r"duration at index \(2, 0\) is -3.0"):
        hermite(0, 1, 0, 0, duration, [0.0, 0.5])


def test_segment_bad_input():
    with pytest.raises(ValueError, match=r"HermiteSegment: duration is 0.0 \(must be > 0\)"):
        HermiteSegment(0, 1, 0, 0, 0)
    with pytest.raises(ValueError, match=r"HermiteSegment: start is nan"):
        HermiteSegment(np.nan, 1, 0, 0, 1)
    with pytest.raises(OverflowError, match=r"HermiteSegment: end_velocity"):
        HermiteSegment(0, 1, 0, 1e308, 10)
    with pytest.raises(ValueError, match=r"HermiteSegment: start must be a real number"):
        HermiteSegment("x", 1, 0, 0, 1)
    with pytest.raises(ValueError, match=r"HermiteSegment.evaluate: elapsed at index \(1,\) is 1.5"):
        HermiteSegment(0, 1, 0, 0, 1).evaluate([0.5, 1.5])


# -- velocity <-> tangent --------------------------------------------------------

def test_conversions():
    np.testing.assert_array_equal(velocity_to_tangent([2.0, -1.0], [2.0, 4.0]), [4.0, -4.0])
    np.testing.assert_array_equal(tangent_to_velocity([4.0, -4.0], [2.0, 4.0]), [2.0, -1.0])
    assert velocity_to_tangent(2, 2) == 4.0
    out = np.empty(2)
    assert velocity_to_tangent([1.0, 2.0], 3.0, out=out) is out
    np.testing.assert_array_equal(out, [3.0, 6.0])


def test_conversion_errors():
    out = np.full(2, 9.0)
    with pytest.raises(ValueError, match=r"velocity_to_tangent: duration at index \(1,\) is -1.0 \(must be > 0\)"):
        velocity_to_tangent([1.0, 2.0], [1.0, -1.0], out=out)
    np.testing.assert_array_equal(out, 9.0)
    with pytest.raises(ValueError, match=r"tangent_to_velocity: tangent at index \(0,\) is nan"):
        tangent_to_velocity([np.nan], 1.0)
    with pytest.raises(OverflowError, match=r"tangent_to_velocity: tangent is 1.0 \(gives a velocity"):
        tangent_to_velocity(1.0, 1e-310)
    with pytest.raises(OverflowError, match=r"velocity_to_tangent: velocity"):
        velocity_to_tangent(1e308, 10.0)


def test_public_api():
    for name in animcore.__all__:
        assert getattr(animcore, name).__doc__, name


def test_every_module_s_docstring_examples_run():
    # (NumPy 2 prints a scalar as np.float64(5.5): the examples print Python
    # floats where they show scalars, so they read the same on NumPy 1 and 2)
    import doctest
    import importlib
    import pkgutil

    attempted = 0
    for info in pkgutil.iter_modules(animcore.__path__):
        if info.name == "__main__":
            continue
        result = doctest.testmod(importlib.import_module(f"animcore.{info.name}"))
        assert result.failed == 0, info.name
        attempted += result.attempted
    assert attempted > 80


def test_every_public_method_and_property_of_a_public_class_has_a_docstring():
    import inspect

    missing = []
    for name in animcore.__all__:
        owner = getattr(animcore, name)
        if not inspect.isclass(owner):
            continue
        for attribute, value in vars(owner).items():
            if attribute.startswith("_"):
                continue
            if isinstance(value, property):  # (its doc=, or its getter's)
                if not value.__doc__:
                    missing.append(f"{name}.{attribute}")
                continue
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if callable(value) and not inspect.isclass(value) and not value.__doc__:
                missing.append(f"{name}.{attribute}")
    assert not missing


def test_a_size_one_array_is_not_a_number():
    """NumPy 1.x converts a size-1 array to a float with a DeprecationWarning
    (NumPy 2 refuses it): the segment refuses it on either."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"^HermiteSegment: start_velocity must be a real "
                                             r"number, got array\(\[2\.\]\)"):
            HermiteSegment(0.0, 1.0, np.array([2.0]), 0.0, 1.0)
