"""Cleanup: Euler filter, quaternion continuity, smoothing, foot contacts.

References: scipy.signal for the filters, a plain NumPy loop for the Euler
filter, and round trips through quat_from_euler / quat_to_euler."""

import warnings

import numpy as np
import pytest

import animcore
from animcore import euler_filter, foot_contacts, quat_continuous, smooth
from animcore.rotations import quat_from_axis_angle, quat_from_euler, quat_to_euler
from reference import hemisphere_chain

ORDERS = ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "XYX", "XZX", "YXY", "YZY", "ZXZ", "ZYZ"]
ORDERS += [o.lower() for o in ORDERS]


def reference_euler_filter(angles, order):
    """Frame by frame in Python: both triplets, each moved by whole turns."""
    proper = order[0].lower() == order[2].lower()
    out = np.array(angles, dtype=float)
    for i in range(1, len(out)):
        a, p = np.asarray(angles[i], dtype=float), out[i - 1]
        other = np.array([a[0] + np.pi, (0 if proper else np.pi) - a[1], a[2] + np.pi])
        best = None
        for cand in (a.copy(), other):
            cand = cand + 2 * np.pi * np.round((p - cand) / (2 * np.pi))
            d = np.abs(cand - p).sum()
            if best is None or d < best[0]:
                best = (d, cand)
        out[i] = best[1]
    return out


@pytest.mark.parametrize("order", ORDERS)
def test_euler_filter_same_rotation_small_steps(order):
    rng = np.random.default_rng(1)
    angles = rng.uniform(-np.pi, np.pi, (300, 3))
    filtered = euler_filter(angles, order)
    dots = np.abs(np.sum(quat_from_euler(order, angles) * quat_from_euler(order, filtered), -1))
    np.testing.assert_allclose(dots, 1.0, atol=1e-12)
    assert np.abs(np.diff(filtered, axis=0)).max() <= np.pi + 1e-12
    np.testing.assert_allclose(filtered, reference_euler_filter(angles, order), atol=1e-12)


@pytest.mark.parametrize("order", ORDERS)
def test_euler_filter_recovers_a_continuous_path(order):
    # a smooth path that starts inside the principal ranges and wanders out
    t = np.linspace(0, 1, 400)[:, None]
    middle = 0.3 if order[0].lower() != order[2].lower() else 1.2
    path = np.hstack([0.2 + 9 * t, middle + 0.2 * np.sin(6 * t), -0.4 - 7 * t])
    folded = quat_to_euler(quat_from_euler(order, path), order)
    assert np.abs(np.diff(folded, axis=0)).max() > np.pi  # the flips to undo
    np.testing.assert_allclose(euler_filter(folded, order), path, atol=1e-9)


def test_euler_filter_batches_and_empty():
    rng = np.random.default_rng(2)
    angles = rng.uniform(-4, 4, (2, 3, 50, 3))
    out = euler_filter(angles, "zxy")
    for i in range(2):
        for j in range(3):
            np.testing.assert_array_equal(out[i, j], euler_filter(angles[i, j], "zxy"))
    assert euler_filter(np.zeros((0, 3))).shape == (0, 3)
    view = angles[:, :, ::2]
    np.testing.assert_array_equal(euler_filter(view), euler_filter(view.copy()))


def test_euler_filter_bad_input():
    bad = np.zeros((4, 3))
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"euler_filter: angles at index \(2,\) is nan"):
        euler_filter(bad)
    with pytest.raises(ValueError, match=r"euler_filter: order is 'XYY'"):
        euler_filter(np.zeros((4, 3)), "XYY")
    with pytest.raises(ValueError, match=r"euler_filter: angles must have shape \(\.\.\., N, 3\)"):
        euler_filter(np.zeros((4, 4)))


def test_quat_continuous():
    rng = np.random.default_rng(3)
    q = rng.normal(size=(100, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    out = quat_continuous(q)
    assert (np.sum(out[1:] * out[:-1], -1) >= 0).all()
    # whole keys negated (not components), each into the hemisphere of the one before
    np.testing.assert_allclose(out, hemisphere_chain(q), rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match=r"quat_continuous: q at index \(1,\) is inf"):
        quat_continuous([[0, 0, 0, 1], [np.inf, 0, 0, 1]])
    # unit, as documented, and a zero quaternion named (once passed through)
    scaled = quat_continuous(q * rng.uniform(0.1, 10.0, (100, 1)))
    np.testing.assert_allclose(scaled, hemisphere_chain(q), rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match=r"^quat_continuous: \|q\| at index \(1,\) is 0.0"):
        quat_continuous([[0, 0, 0, 1.0], [0, 0, 0, 0], [0, 0, 0, -2]])
    # a scipy Rotation, as every quaternion argument
    from scipy.spatial.transform import Rotation
    np.testing.assert_array_equal(quat_continuous(Rotation.from_quat(q)),
                                  quat_continuous(Rotation.from_quat(q).as_quat()))


@pytest.mark.parametrize("order", [1, 2, 3, 5])
def test_smooth_butterworth_equals_scipy(order):
    signal = pytest.importorskip("scipy.signal")
    rng = np.random.default_rng(4)
    x = np.cumsum(rng.normal(size=(120, 2, 3)), axis=0)
    expected = signal.filtfilt(*signal.butter(order, 5.0, fs=30.0), x, axis=0)
    np.testing.assert_allclose(smooth(x, 30.0, cutoff=5.0, order=order), expected,
                               atol=1e-9 * np.abs(x).max())


def test_smooth_near_the_double_range_equals_scipy_scaled():
    # the filters are linear: values near 1e308 smooth as the same values in
    # units of 2^1000 do (scipy's own padding 2 x0 - x overflowed in ours once)
    signal = pytest.importorskip("scipy.signal")
    rng = np.random.default_rng(6)
    x = np.cumsum(rng.normal(size=(80, 3)), axis=0)
    x = x / np.abs(x).max() * 1.5
    big = x * 2.0 ** 1022  # up to 1.5 * 2^1022, about 6.7e307
    expected = signal.filtfilt(*signal.butter(2, 5.0, fs=30.0), x, axis=0) * 2.0 ** 1022
    np.testing.assert_allclose(smooth(big, 30.0, cutoff=5.0), expected,
                               rtol=0, atol=1e-9 * np.abs(big).max())
    expected = signal.savgol_filter(x, 7, 2, axis=0) * 2.0 ** 1022
    np.testing.assert_allclose(smooth(big, 30.0, method="savgol", window=7, order=2), expected,
                               rtol=0, atol=1e-9 * np.abs(big).max())
    # a constant keeps its value to the filter's rounding (its gain at 0 Hz is
    # 1 within a few ulps; the bits differ between NumPy 1 and 2): not NaN or inf
    np.testing.assert_allclose(smooth(np.full(50, 1e308), 30.0, cutoff=5.0), 1e308, rtol=1e-14)


@pytest.mark.parametrize("method", ["butterworth", "savgol"])
def test_smooth_gives_the_same_bits_for_any_memory_layout(method):
    # (the savgol fit was a BLAS product, whose order of summation followed the layout)
    v = np.cumsum(np.random.default_rng(1).normal(size=(40, 3)), axis=0)
    options = dict(cutoff=5.0) if method == "butterworth" else dict(window=7, order=2)
    base = smooth(v, 30.0, method=method, **options)
    for layout in (np.asfortranarray(v), np.repeat(v, 2, axis=0)[::2], v[::-1][::-1]):
        np.testing.assert_array_equal(smooth(layout, 30.0, method=method, **options), base)


@pytest.mark.parametrize("window,order", [(5, 2), (9, 3), (7, 0), (11, 4)])
def test_smooth_savgol_equals_scipy(window, order):
    signal = pytest.importorskip("scipy.signal")
    rng = np.random.default_rng(5)
    x = np.cumsum(rng.normal(size=(60, 4)), axis=0)
    expected = signal.savgol_filter(x, window, order, axis=0)
    np.testing.assert_allclose(smooth(x, 30, method="savgol", window=window, order=order),
                               expected, atol=1e-9 * np.abs(x).max())


@pytest.mark.parametrize("frames,window", [(21, 21), (20, 19), (9, 1)])
def test_smooth_savgol_window_as_long_as_the_series(frames, window):
    # the two edge fits are of the same (whole) window: both halves written
    signal = pytest.importorskip("scipy.signal")
    x = np.cumsum(np.random.default_rng(7).normal(size=(frames, 3)), axis=0)
    order = min(4, window - 1)
    np.testing.assert_allclose(smooth(x, 30, method="savgol", window=window, order=order),
                               signal.savgol_filter(x, window, order, axis=0),
                               atol=1e-9 * np.abs(x).max())


@pytest.mark.parametrize("method", ["butterworth", "savgol"])
def test_smooth_rotations_on_the_sphere(method):
    # a turn about one axis (past pi, with sign flips) smooths as its angle
    rng = np.random.default_rng(6)
    angle = np.linspace(0, 5, 90) + 0.05 * rng.normal(size=90)
    axis = np.array([1.0, 2.0, 2.0]) / 3.0
    q = quat_from_axis_angle(axis, angle)
    q[::3] *= -1
    kw = dict(cutoff=4.0) if method == "butterworth" else dict(window=9, order=2)
    got = smooth(q, 30, method=method, rotation=True, **kw)
    # the angle smoothed by scipy (order 2, smooth's default), turned back into a quaternion
    signal = pytest.importorskip("scipy.signal")
    if method == "butterworth":
        smoothed = signal.filtfilt(*signal.butter(2, 4.0, fs=30.0), angle)
    else:
        smoothed = signal.savgol_filter(angle, 9, 2)
    expected = np.c_[np.outer(np.sin(smoothed / 2), axis), np.cos(smoothed / 2)]
    np.testing.assert_allclose(np.abs(np.sum(got * expected, -1)), 1.0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(got, axis=-1), 1.0, atol=1e-12)
    # quaternions of any finite length smooth as their unit ones (made unit first)
    lengths = np.exp(rng.uniform(-600, 600, size=(90, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaled = smooth(q * lengths, 30, method=method, rotation=True, **kw)
    np.testing.assert_allclose(np.abs(np.sum(scaled * expected, -1)), 1.0, atol=1e-12)


def test_smooth_bad_input():
    x = np.zeros((40, 3))
    with pytest.raises(ValueError, match="smooth: method is 'gauss'"):
        smooth(x, 30, method="gauss", cutoff=3)
    with pytest.raises(ValueError, match=r"smooth: cutoff is 20.0 \(must lie in \(0, fps/2=15\)\)"):
        smooth(x, 30, cutoff=20.0)
    with pytest.raises(ValueError, match="smooth: method 'butterworth' needs cutoff"):
        smooth(x, 30)
    with pytest.raises(ValueError, match="smooth: fps is -1.0"):
        smooth(x, -1, cutoff=3)
    with pytest.raises(ValueError, match="smooth: window is 4"):
        smooth(x, 30, method="savgol", window=4)
    with pytest.raises(ValueError, match="smooth: method 'savgol' needs window"):
        smooth(x, 30, method="savgol")
    with pytest.raises(ValueError, match="smooth: values has 5 frames"):
        smooth(x[:5], 30, cutoff=3)
    bad = x.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match=r"smooth: values at index \(7, 2\) is nan"):
        smooth(bad, 30, cutoff=3)
    with pytest.raises(ValueError, match="smooth: rotation=True needs quaternions"):
        smooth(x, 30, cutoff=3, rotation=True)
    turns = np.tile([0.0, 0.0, 0.0, 1.0], (40, 1))
    turns[3] = 0.0
    with pytest.raises(ValueError, match=r"smooth: \|q\| at index \(3,\) is 0.0"):
        smooth(turns, 30, cutoff=3, rotation=True)
    # a cutoff so low that the filter's poles are 1 in double precision (scipy's
    # filtfilt raises LinAlgError there)
    with pytest.raises(ValueError, match=r"smooth: cutoff is 1e-08 Hz at fps=30: .* no steady "
                                         r"state"):
        smooth(np.random.default_rng(0).normal(size=(40, 3)), 30, cutoff=1e-8)


def test_foot_contacts():
    fps = 30.0
    t = np.arange(60) / fps
    foot = np.zeros((60, 2, 3))
    foot[:, 0, 0] = np.where(t < 1, 0.0, (t - 1) * 1.0)  # still, then 1 m/s
    foot[:, 1, 1] = 0.2 + 0.0 * t                       # still but high
    foot[30:32, 1, 0] = [0.0, 0.0]
    contact = foot_contacts(foot, fps)
    speed = np.linalg.norm(np.gradient(foot, 1 / fps, axis=0), axis=-1)
    np.testing.assert_array_equal(contact, speed < 0.15)
    with_height = foot_contacts(foot, fps, height=0.1)
    assert with_height[:, 1].sum() == 0 and with_height[:29, 0].all()
    # a pause of 3 slow frames (central speeds 0.5, 0, 0.5) is dropped with min_frames=4
    blip = np.zeros((10, 1, 3))
    blip[:, 0, 0] = np.cumsum([0, 1, 1, 1, 0, 0, 1, 1, 1, 1]) * 1.0
    assert foot_contacts(blip, 1.0, velocity=0.6)[:, 0].tolist() == [0, 0, 0, 1, 1, 1, 0, 0, 0, 0]
    assert foot_contacts(blip, 1.0, velocity=0.6, min_frames=3).sum() == 3
    assert foot_contacts(blip, 1.0, velocity=0.6, min_frames=4).sum() == 0


def test_foot_contacts_bad_input():
    with pytest.raises(ValueError, match=r"foot_contacts: positions must have shape \(N, F, 3\)"):
        foot_contacts(np.zeros((5, 3)), 30)
    bad = np.zeros((5, 1, 3))
    bad[3, 0, 1] = np.nan
    with pytest.raises(ValueError, match=r"foot_contacts: positions at index \(3, 0, 1\) is nan"):
        foot_contacts(bad, 30)
    with pytest.raises(ValueError, match="foot_contacts: fps is 0.0"):
        foot_contacts(np.zeros((5, 1, 3)), 0)
    with pytest.raises(ValueError, match="foot_contacts: up is 3"):
        foot_contacts(np.zeros((5, 1, 3)), 30, up=3)


def test_exported():
    assert animcore.euler_filter is euler_filter and animcore.smooth is smooth
