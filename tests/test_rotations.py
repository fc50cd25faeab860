import math
import threading
import warnings


import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.spatial.transform import Rotation, Slerp

from animcore import (RotationCurve, quat_conjugate, quat_from_axis_angle, quat_from_euler,
                      quat_from_matrix, quat_from_rotvec, quat_multiply, quat_nlerp,
                      quat_normalize, quat_rotate, quat_slerp, quat_to_euler, quat_to_matrix,
                      quat_to_rotvec)

from reference import (gltf_cubic_rotation, hemisphere_chain, quat_components_product,
                       quat_product_matrix)

RNG = np.random.default_rng(7)


def random_quats(n, rng=RNG):
    return Rotation.random(n, random_state=rng).as_quat()


def same_rotation(a, b, atol=1e-12):
    """q and -q are the same rotation."""
    a, b = np.asarray(a), np.asarray(b)
    sign = np.where(np.sum(a * b, axis=-1, keepdims=True) < 0, -1.0, 1.0)
    np.testing.assert_allclose(a, sign * b, rtol=0, atol=atol)


# -- helpers against scipy and the matrix form --------------------------------------

def test_multiply_matches_matrix_form_and_scipy():
    a, b = RNG.normal(size=(50, 4)), RNG.normal(size=(50, 4))
    np.testing.assert_allclose(quat_multiply(a, b), quat_product_matrix(a, b), atol=1e-14)
    ua, ub = random_quats(50), random_quats(50)
    same_rotation(quat_multiply(ua, ub), (Rotation.from_quat(ua) * Rotation.from_quat(ub)).as_quat())


def product_in_c_order(a, b):
    """a * b with the operations of the C helper in its order, so with its bits."""
    a, b = (np.moveaxis(np.asarray(x, float), -1, 0) for x in (a, b))
    return np.stack(quat_components_product(a, b), -1)


def test_long_products_stream_exact_values_at_every_alignment():
    # 40,003 products (1.3 MB) take the path that streams its stores past the
    # caches, whose cache lines join two result vectors: every start of the
    # output within a line, neighbours left alone, the same bits as in order.
    n = 40_003
    a, b = RNG.normal(size=(n, 4)), RNG.normal(size=(n, 4))
    expected = product_in_c_order(a, b)
    np.testing.assert_array_equal(quat_multiply(a, b), expected)
    np.testing.assert_array_equal(quat_multiply(a, b, workers=2), expected)
    for offset in range(8):
        buffer = np.full(4 * n + 16, -7.0)
        out = buffer[offset:offset + 4 * n].reshape(n, 4)
        assert quat_multiply(a, b, out=out) is out
        np.testing.assert_array_equal(out, expected)
        assert (buffer[:offset] == -7.0).all() and (buffer[offset + 4 * n:] == -7.0).all()
    # a bad value at the end of a long run: the first is named, out untouched
    a[n - 1, 2] = np.nan
    out = np.full((n, 4), 3.0)
    with pytest.raises(ValueError, match=r"quat_multiply: a at index \(40002,\) is nan"):
        quat_multiply(a, b, out=out)
    assert (out == 3.0).all()
    with pytest.raises(ValueError, match=r"a at index \(40002,\)"):
        quat_multiply(a, b)


def test_products_keep_the_c_order_bits_with_signed_zeros_and_a_shared_factor():
    # every path (lanes of 8 or 4, one item at a time) does the C helper's
    # operations in its order: the same bits, the signs of zeros included
    values = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e-300, -3e150])
    rng = np.random.default_rng(11)
    a = rng.choice(values, size=(1003, 4))
    b = rng.choice(values, size=(1003, 4))
    for x, y in ((a, b), (a[:1], b), (a, b[5:6]), (a[::2], b[::2])):
        got, expected = quat_multiply(x, y), product_in_c_order(x, y)
        assert np.array_equal(got, expected) and np.array_equal(np.signbit(got),
                                                                np.signbit(expected))


def test_multiply_identities():
    a, b, c = random_quats(20), random_quats(20), random_quats(20)
    np.testing.assert_allclose(quat_multiply(quat_multiply(a, b), c),
                               quat_multiply(a, quat_multiply(b, c)), atol=1e-15)
    np.testing.assert_allclose(quat_multiply(a, [0, 0, 0, 1]), a, atol=0)
    np.testing.assert_allclose(quat_multiply(a, quat_conjugate(a)),
                               np.tile([0, 0, 0, 1.0], (20, 1)), atol=1e-15)


def test_conjugate_and_normalize():
    q = RNG.normal(size=(10, 4)) * 3
    np.testing.assert_array_equal(quat_conjugate(q), q * [-1, -1, -1, 1])
    u = quat_normalize(q)
    np.testing.assert_allclose(np.linalg.norm(u, axis=-1), 1.0, atol=1e-15)
    np.testing.assert_allclose(u, q / np.linalg.norm(q, axis=-1, keepdims=True), atol=1e-15)
    # no overflow or underflow for extreme but finite components
    np.testing.assert_allclose(quat_normalize([1e300, 1e300, 0, 0]), [2**-0.5, 2**-0.5, 0, 0])
    # (the subnormals stored for 3e-320 and 4e-320 are 6072 and 8096 units: exactly 3 : 4)
    np.testing.assert_allclose(quat_normalize([0, 0, 3e-320, 4e-320]), [0, 0, 0.6, 0.8],
                               rtol=0, atol=1e-16)


def test_from_axis_angle_matches_scipy():
    axis = RNG.normal(size=(30, 3))
    angle = RNG.uniform(-7, 7, 30)
    unit = axis / np.linalg.norm(axis, axis=1, keepdims=True)
    expected = Rotation.from_rotvec(unit * angle[:, None]).as_quat()
    same_rotation(quat_from_axis_angle(axis, angle), expected)
    np.testing.assert_allclose(quat_from_axis_angle([0, 0, 1], 0.0), [0, 0, 0, 1])


def test_rotate_matches_scipy():
    q = RNG.normal(size=(40, 4)) * 2  # not unit: the rotation q / |q| is applied
    v = RNG.normal(size=(40, 3))
    expected = Rotation.from_quat(q).apply(v)  # scipy normalizes too
    np.testing.assert_allclose(quat_rotate(q, v), expected, atol=1e-13)
    np.testing.assert_allclose(quat_rotate(quat_from_axis_angle([0, 0, 1], np.pi / 2), [1, 0, 0]),
                               [0, 1, 0], atol=1e-15)


def unit_in_c_order(q):
    """q made unit with ac_normalize's operations in their order."""
    q = np.asarray(q, float)
    scaled = q / np.abs(q).max(axis=-1, keepdims=True)
    total = scaled[..., 0] * scaled[..., 0]
    for k in range(1, 4):
        total = total + scaled[..., k] * scaled[..., k]
    return scaled / np.sqrt(total)[..., None]


def matrix_in_c_order(q):
    """quat_to_matrix with the C helpers' operations in their order."""
    x, y, z, w = np.moveaxis(unit_in_c_order(q), -1, 0)
    s = 2.0 / (x * x + y * y + z * z + w * w)
    xs, ys, zs = x * s, y * s, z * s
    wx, wy, wz, xx, xy, xz = w * xs, w * ys, w * zs, x * xs, x * ys, x * zs
    yy, yz, zz = y * ys, y * zs, z * zs
    rows = [[1.0 - (yy + zz), xy - wz, xz + wy], [xy + wz, 1.0 - (xx + zz), yz - wx],
            [xz - wy, yz + wx, 1.0 - (xx + yy)]]
    return np.stack([np.stack(row, -1) for row in rows], -2)


def rotation_in_c_order(q, v):
    """quat_rotate with the C helpers' operations in their order (q made unit
    as ac_normalize makes it), so with their bits."""
    v = np.asarray(v, float)
    x, y, z, w = np.moveaxis(unit_in_c_order(q), -1, 0)
    vx, vy, vz = np.moveaxis(v, -1, 0)
    tx, ty, tz = 2.0 * (y * vz - z * vy), 2.0 * (z * vx - x * vz), 2.0 * (x * vy - y * vx)
    return np.stack([vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz),
                     vz + w * tz + (x * ty - y * tx)], -1)


def test_long_rotations_keep_the_c_order_bits_and_name_a_late_bad_value():
    rng = np.random.default_rng(12)
    q, v = rng.normal(size=(10_007, 4)) * 3.0, rng.normal(size=(10_007, 3))
    q[::7, 1] = -0.0
    np.testing.assert_array_equal(quat_rotate(q, v), rotation_in_c_order(q, v))
    q[9_999] = 0.0
    out = np.full((10_007, 3), 5.0)
    with pytest.raises(ValueError, match=r"quat_rotate: .*index \(9999,\)"):
        quat_rotate(q, v, out=out)
    assert (out == 5.0).all()


@pytest.mark.parametrize("kernel, expected", [(quat_normalize, unit_in_c_order),
                                              (quat_to_matrix, matrix_in_c_order)])
def test_unit_quaternion_kernels_keep_the_c_order_bits_and_name_a_late_bad_value(kernel,
                                                                                 expected):
    rng = np.random.default_rng(13)
    q = rng.normal(size=(5_003, 4)) * 10.0 ** rng.integers(-150, 150, (5_003, 1))
    q[::5, 2] = -0.0
    got, want = kernel(q), expected(q)
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want))
    q[4_321, 3] = np.inf
    out = np.full(got.shape, 5.0)
    with pytest.raises(ValueError, match=r"index \(4321,\)"):
        kernel(q, out=out)
    assert (out == 5.0).all()


# -- slerp and nlerp ----------------------------------------------------------------

def test_slerp_matches_scipy_slerp():
    q0, q1 = random_quats(200), random_quats(200)
    t = RNG.uniform(0, 1, 200)
    got = quat_slerp(q0, q1, t)
    for i in range(0, 200, 7):
        slerp = Slerp([0.0, 1.0], Rotation.from_quat([q0[i], q1[i]]))
        same_rotation(got[i], slerp([t[i]]).as_quat()[0], atol=1e-12)


def test_slerp_endpoints_unit_norm_and_double_cover():
    q0, q1 = random_quats(100), random_quats(100)
    same_rotation(quat_slerp(q0, q1, 0.0), q0, atol=1e-15)
    same_rotation(quat_slerp(q0, q1, 1.0), q1, atol=1e-15)
    t = RNG.uniform(0, 1, 100)
    r = quat_slerp(q0, q1, t)
    np.testing.assert_allclose(np.linalg.norm(r, axis=1), 1.0, atol=1e-15)
    # q and -q are the same rotation: the same (shortest) arc either way
    np.testing.assert_allclose(quat_slerp(q0, -q1, t), r, atol=1e-15)
    same_rotation(quat_slerp(-q0, q1, t), r, atol=1e-15)


def test_slerp_constant_angular_speed():
    q0, q1 = random_quats(1)[0], random_quats(1)[0]
    t = np.linspace(0, 1, 101)
    r = quat_slerp(q0, q1, t)
    angles = (Rotation.from_quat(r) * Rotation.from_quat(q0).inv()).magnitude()
    total = (Rotation.from_quat(q1) * Rotation.from_quat(q0).inv()).magnitude()
    np.testing.assert_allclose(angles, t * total, atol=1e-12)


def test_slerp_nearly_equal_and_nearly_opposite():
    q0 = quat_normalize([0.1, 0.2, 0.3, 0.9])
    tiny = quat_multiply(quat_from_axis_angle([1, 2, 3], 2e-13), q0)
    r = quat_slerp(q0, tiny, 0.5)
    expected = quat_multiply(quat_from_axis_angle([1, 2, 3], 1e-13), q0)
    np.testing.assert_allclose(r, expected, atol=1e-16)
    # -q0 perturbed: the same rotation as q0 up to 2e-13 rad; no blow-up
    r = quat_slerp(q0, -tiny, np.linspace(0, 1, 11))
    assert np.all(np.isfinite(r))
    same_rotation(r, np.tile(q0, (11, 1)), atol=1e-12)
    # a half turn apart (q0 . q1 = 0): well defined, constant speed
    q1 = quat_multiply(quat_from_axis_angle([0, 1, 0], np.pi), q0)
    mid = quat_slerp(q0, q1, 0.5)
    angle = (Rotation.from_quat(mid) * Rotation.from_quat(q0).inv()).magnitude()
    assert angle == pytest.approx(np.pi / 2, abs=1e-12)


def test_nlerp_same_arc():
    q0, q1 = random_quats(50), random_quats(50)
    t = RNG.uniform(0, 1, 50)
    n = quat_nlerp(q0, q1, t)
    np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1.0, atol=1e-15)
    same_rotation(quat_nlerp(q0, q1, 0.0), q0, atol=1e-15)
    same_rotation(quat_nlerp(q0, q1, 1.0), q1, atol=1e-15)
    # on the great circle: n is a combination of q0 and the shortest-arc q1
    sign = np.where(np.sum(q0 * q1, axis=1) < 0, -1.0, 1.0)[:, None]
    basis = np.stack([q0, sign * q1], axis=2)
    coef, *_ = np.linalg.lstsq(basis[0], n[0], rcond=None)
    np.testing.assert_allclose(basis[0] @ coef, n[0], atol=1e-14)
    assert np.all(coef >= 0)
    np.testing.assert_allclose(quat_nlerp(q0, -q1, t), n, atol=1e-15)


# -- arrays: broadcasting, out=, errors --------------------------------------------

def test_broadcasting_leading_axes():
    q0 = random_quats(3)[:, None, :]  # (3, 1, 4)
    q1 = random_quats(5)  # (5, 4)
    t = np.linspace(0, 1, 5)  # (5,)
    r = quat_slerp(q0, q1, t)
    assert r.shape == (3, 5, 4)
    np.testing.assert_allclose(r[2, 4], quat_slerp(q0[2, 0], q1[4], t[4]), atol=0)
    assert quat_rotate(q1, [1.0, 0, 0]).shape == (5, 3)
    assert quat_from_axis_angle([0, 0, 1], np.zeros((2, 3))).shape == (2, 3, 4)
    assert quat_multiply([0, 0, 0, 1], np.empty((0, 4))).shape == (0, 4)
    assert quat_slerp(np.empty((0, 4)), [0, 0, 0, 1], 0.5).shape == (0, 4)


def test_out_semantics():
    q0, q1 = random_quats(4), random_quats(4)
    out = np.empty((4, 4))
    keep = q0.copy()
    assert quat_slerp(q0, q1, 0.3, out=out) is out
    np.testing.assert_array_equal(out, quat_slerp(q0, q1, 0.3))
    np.testing.assert_array_equal(q0, keep)
    bad = q1.copy()
    bad[2] = 0.0
    sentinel = np.full((4, 4), -7.0)
    with pytest.raises(ValueError):
        quat_slerp(q0, bad, 0.3, out=sentinel)
    np.testing.assert_array_equal(sentinel, -7.0)
    with pytest.raises(ValueError, match=r"quat_rotate: out\[0\] has shape \(4, 4\), expected \(4, 3\)"):
        quat_rotate(q0, [1, 0, 0], out=out)
    product = quat_multiply(q0, q1)
    assert quat_multiply(q0, q1, out=q0) is q0  # may alias an input
    np.testing.assert_array_equal(q0, product)


@pytest.mark.parametrize("call, exc_match", [
    (lambda: quat_normalize([[0, 0, 0, 1], [0, 0, 0, 0]]),
     r"quat_normalize: \|q\| at index \(1,\) is 0.0 \(must be > 0: a zero quaternion is no rotation\)"),
    (lambda: quat_slerp([0, 0, 0, 1], [[0, 0, 0, 1], [0, 0, 0, 0.0]], 0.5),
     r"quat_slerp: \|q1\| at index \(1,\) is 0.0"),
    (lambda: quat_nlerp([0, 0, 0, 0], [0, 0, 0, 1], 0.5), r"quat_nlerp: \|q0\| is 0.0"),
    (lambda: quat_rotate(np.zeros((2, 2, 4)), [1, 0, 0]), r"quat_rotate: \|q\| at index \(0, 0\) is 0.0"),
    (lambda: quat_slerp([0, 0, 0, 1], [0, 0, 1, 0], [0.5, 1.5]),
     r"quat_slerp: t at index \(1,\) is 1.5 \(must lie in \[0, 1\]\)"),
    (lambda: quat_slerp([0, 0, 0, 1], [0, 0, 1, 0], np.nan), r"quat_slerp: t is nan \(must be finite\)"),
    (lambda: quat_multiply([np.nan, 0, 0, 1], [0, 0, 0, 1]), r"quat_multiply: a is nan \(must be finite\)"),
    (lambda: quat_multiply([0, 0, 0, 1], [[0, 0, 0, 1], [0, np.inf, 0, 1]]), r"quat_multiply: b at index \(1,\) is inf"),
    (lambda: quat_conjugate([0, 0, -np.inf, 1]), r"quat_conjugate: q is -inf"),
    (lambda: quat_from_axis_angle([0, 0, 0], 1.0), r"quat_from_axis_angle: \|axis\| is 0.0 \(must be > 0"),
    (lambda: quat_from_axis_angle([0, 0, 1], [0.0, np.nan]), r"quat_from_axis_angle: angle at index \(1,\) is nan"),
    (lambda: quat_from_axis_angle([0, np.nan, 1], 0.0), r"quat_from_axis_angle: axis is nan"),
    (lambda: quat_rotate([0, 0, 0, 1], [1, np.nan, 0]), r"quat_rotate: v is nan"),
    (lambda: quat_multiply([1e300, 0, 0, 1e300], [1e300, 0, 0, 1e300]), r"quat_multiply: product is"),
    (lambda: quat_multiply([0, 0, 1], [0, 0, 0, 1]), r"quat_multiply: a must hold quaternions \(x, y, z, w\) on its last axis of length 4, got shape \(3,\)"),
    (lambda: quat_rotate([0, 0, 0, 1], [1, 0, 0, 0]), r"quat_rotate: v must hold vectors \(x, y, z\)"),
    (lambda: quat_slerp(np.zeros((2, 4)) + [0, 0, 0, 1], np.zeros((3, 4)) + 1, 0.5), r"quat_slerp: cannot broadcast q0 \(2, 4\), q1 \(3, 4\)"),
    (lambda: quat_normalize(["a", "b", "c", "d"]), r"quat_normalize: q must be real numbers"),
])
def test_bad_input(call, exc_match):
    with pytest.raises((ValueError, OverflowError), match=exc_match):
        call()


def test_overflow_is_overflow_error():
    with pytest.raises(OverflowError, match=r"^quat_multiply: product is inf \(is not "
                                            r"representable although the inputs are finite\)"):
        quat_multiply([1e300, 0, 0, 1e300], [1e300, 0, 0, 1e300])


@given(st.data())
def test_shapes_dtypes_views(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=2, min_side=0, max_side=3))
    s0, s1, st_ = shapes.input_shapes
    elements = st.floats(-2, 2).filter(lambda x: abs(x) > 0.1)
    q0 = data.draw(hnp.arrays(np.float64, s0 + (4,), elements=elements))
    q1 = data.draw(hnp.arrays(np.float32, s1 + (4,), elements=st.floats(
        -2, 2, width=32).filter(lambda x: abs(x) > 0.1)))
    t = data.draw(hnp.arrays(np.float64, st_, elements=st.floats(0, 1)))
    r = quat_slerp(q0[..., ::-1][..., ::-1], q1, t)  # a strided view and float32
    assert r.shape == shapes.result_shape + (4,)
    if r.size:
        np.testing.assert_allclose(np.linalg.norm(r, axis=-1), 1.0, atol=1e-14)
        b0, b1, bt = np.broadcast_arrays(q0, q1.astype(float), t[..., None])
        one = quat_slerp(b0.reshape(-1, 4)[0], b1.reshape(-1, 4)[0], bt.reshape(-1, 4)[0, 0])
        np.testing.assert_allclose(r.reshape(-1, 4)[0], one, atol=1e-15)


# -- RotationCurve -----------------------------------------------------------------

def uneven_keys(k=6, rng=RNG):
    times = np.cumsum(rng.uniform(0.1, 1.5, k))
    return times, random_quats(k, rng)


def test_linear_curve_matches_scipy_slerp():
    times, keys = uneven_keys(8)
    curve = RotationCurve(times, keys)
    t = np.sort(RNG.uniform(times[0], times[-1], 300))
    same_rotation(curve.evaluate(t), Slerp(times, Rotation.from_quat(keys))(t).as_quat(), atol=1e-12)


def test_linear_curve_of_keys_of_any_length_is_quat_slerp_of_its_unit_keys():
    """Inside a segment a linear RotationCurve is quat_slerp of its two keys
    made unit, bit for bit up to the sign the curve gives each key (its
    hemisphere continuity), for keys of lengths 1e-150 to 1e150 and more
    keys than one block of the construction's loops."""
    rng = np.random.default_rng(11)
    k, n = 700, 3000
    keys = rng.normal(size=(k, 4))
    size = rng.random(k)
    keys[size < 0.1] *= 1e-150
    keys[(size > 0.1) & (size < 0.2)] *= 1e150
    keys[(size > 0.2) & (size < 0.3)] *= 3.7
    times = np.cumsum(rng.uniform(0.01, 1.0, k))
    j = rng.integers(0, k - 1, n)
    t = times[j] + rng.random(n) * (times[j + 1] - times[j])
    t = np.where(t < times[j + 1], t, times[j])  # (a time rounded up to the next key)
    got = RotationCurve(times, keys, interpolation="linear")(t)
    unit = quat_normalize(keys)
    expected = quat_slerp(unit[j], unit[j + 1], (t - times[j]) / (times[j + 1] - times[j]))
    sign = np.where(np.sum(got * expected, axis=-1) < 0, -1.0, 1.0)[:, None]
    np.testing.assert_array_equal((sign * expected).view(np.uint64), got.view(np.uint64))


def test_linear_angular_velocity_exact():
    times, keys = uneven_keys(8)
    curve = RotationCurve(times, keys)
    t = (times[:-1] + times[1:]) / 2
    rel = Rotation.from_quat(keys[1:]) * Rotation.from_quat(keys[:-1]).inv()
    expected = rel.as_rotvec() / np.diff(times)[:, None]  # axis * angle / interval
    np.testing.assert_allclose(curve.angular_velocity(t), expected, atol=1e-12)
    # constant across a segment, and equal to finite differences of evaluate
    inside = np.linspace(times[2] + 0.01, times[3] - 0.01, 5)
    np.testing.assert_allclose(curve.angular_velocity(inside), np.tile(expected[2], (5, 1)), atol=1e-12)
    h = 1e-6
    fd = (Rotation.from_quat(curve(t + h)) * Rotation.from_quat(curve(t - h)).inv()).as_rotvec() / (2 * h)
    np.testing.assert_allclose(curve.angular_velocity(t), fd, atol=1e-6)
    # at a key the right-hand segment wins; clamped outside: 0
    np.testing.assert_allclose(curve.angular_velocity(times[3]), expected[3], atol=1e-12)
    np.testing.assert_array_equal(curve.angular_velocity([times[0] - 1, times[-1] + 1]), 0.0)


def test_linear_curve_is_quat_slerp_of_its_keys():
    keys = quat_normalize(random_quats(2))
    curve = RotationCurve([1.0, 3.0], keys)
    t = np.linspace(1.0, 3.0, 41)[:-1]
    np.testing.assert_array_equal(curve(t), quat_slerp(keys[0], keys[1], (t - 1.0) / 2.0))


@pytest.mark.parametrize("scale", ["unit", "mixed"])
def test_long_linear_curve_is_quat_slerp_of_each_segment(scale):
    # a long curve makes its keys in vector lanes where the CPU has them; keys
    # of extreme lengths take the scalar path: both give quat_slerp's bits
    # for each pair of keys, up to the sign continuity puts on the pair
    rng = np.random.default_rng(17)
    k = 203
    times = np.cumsum(rng.uniform(0.01, 1.0, k))
    keys = random_quats(k, rng)
    if scale == "mixed":
        keys *= rng.choice([1e-200, 1e-3, 1.0, 1e150], size=(k, 1))
    curve = RotationCurve(times, keys)
    j = rng.integers(0, k - 1, 500)
    u = rng.uniform(0.0, 1.0, 500)
    t = times[j] + u * (times[j + 1] - times[j])
    u = (t - times[j]) / (times[j + 1] - times[j])  # the u the curve computes
    units = quat_normalize(keys)
    expected = quat_slerp(units[j], units[j + 1], u)
    got = curve(t)
    same = np.all(got == expected, axis=1) | np.all(got == -expected, axis=1)
    assert same.all(), np.flatnonzero(~same)[:5]

def test_linear_takes_shortest_arc_between_keys():
    q = quat_from_axis_angle([0, 0, 1], np.radians(170))
    curve = RotationCurve([0.0, 1.0], [[0, 0, 0, 1], -q])  # -q stored: same rotation
    angle = Rotation.from_quat(curve(0.5)).magnitude()
    assert angle == pytest.approx(np.radians(85), abs=1e-12)
    np.testing.assert_allclose(np.linalg.norm(curve.angular_velocity(0.5)), np.radians(170), atol=1e-12)


def test_step_curve():
    times, keys = np.array([0.0, 1.0, 2.5]), random_quats(3)
    curve = RotationCurve(times, keys, interpolation="step")
    got = curve.evaluate([-1.0, 0.0, 0.5, 0.999, 1.0, 2.0, 2.5, 9.0])
    expected = hemisphere_chain(keys)[[0, 0, 0, 0, 1, 1, 2, 2]]  # sign-continuous keys
    np.testing.assert_allclose(got, expected, atol=1e-15)
    np.testing.assert_array_equal(curve.angular_velocity([0.5, 1.7]), 0.0)


def gltf_cubic_keys(k=5, rng=RNG):
    times, keys = uneven_keys(k, rng)
    keys[1:] *= np.where(np.sum(keys[1:] * keys[:-1], axis=1) < 0, -1.0, 1.0)[:, None]
    tin, tout = rng.normal(size=(k, 4)) * 0.3, rng.normal(size=(k, 4)) * 0.3
    return times, keys, tin, tout


def test_cubic_curve_matches_gltf_formula():
    times, keys, tin, tout = gltf_cubic_keys()
    curve = RotationCurve(times, keys, interpolation="cubic", in_tangents=tin, out_tangents=tout)
    t = np.linspace(times[0], times[-1], 97)
    np.testing.assert_allclose(curve(t), gltf_cubic_rotation(times, tin, keys, tout, t), atol=1e-13)
    # the tangents are per second: a curve with the time axis stretched by 2
    # and tangents halved is the same spline played half as fast
    slow = RotationCurve(2 * times, keys, interpolation="cubic", in_tangents=tin / 2, out_tangents=tout / 2)
    np.testing.assert_allclose(slow(2 * t), curve(t), atol=1e-13)
    np.testing.assert_allclose(slow.angular_velocity(2 * t), curve.angular_velocity(t) / 2, atol=1e-12)


def test_cubic_by_hand():
    # One segment of 2 s from identity to a quarter turn about z, with out/in
    # tangents (per second) of (0, 0, 0.1, 0): at s = 1/2 the spec's formula
    # gives p = 0.5 p0 + 0.5 p1 + 2 * (1/8 m0 - 1/8 m1) = 0.5 (p0 + p1).
    p1 = np.array([0, 0, np.sin(np.pi / 4), np.cos(np.pi / 4)])
    m = np.array([0, 0, 0.1, 0.0])
    curve = RotationCurve([0.0, 2.0], [[0, 0, 0, 1], p1], interpolation="cubic",
                          in_tangents=[m, m], out_tangents=[m, m])
    p = 0.5 * (np.array([0, 0, 0, 1.0]) + p1)
    np.testing.assert_allclose(curve(1.0), p / np.linalg.norm(p), atol=1e-15)
    # at s = 1/4: h10 = 9/64, h11 = -3/64, so the tangent term is 2 * (6/64) * m
    s = 0.25
    q = (2 * s**3 - 3 * s**2 + 1) * np.array([0, 0, 0, 1.0]) + (-2 * s**3 + 3 * s**2) * p1 + 2 * (6 / 64) * m
    np.testing.assert_allclose(curve(0.5), q / np.linalg.norm(q), atol=1e-15)


def test_cubic_angular_velocity_matches_finite_differences():
    times, keys, tin, tout = gltf_cubic_keys()
    curve = RotationCurve(times, keys, interpolation="cubic", in_tangents=tin, out_tangents=tout)
    t = np.linspace(times[0] + 0.01, times[-1] - 0.01, 50)
    t = t[np.min(np.abs(t[:, None] - times[None, :]), axis=1) > 1e-3]  # tangents may jump at keys
    h = 1e-6
    fd = (Rotation.from_quat(curve(t + h)) * Rotation.from_quat(curve(t - h)).inv()).as_rotvec() / (2 * h)
    np.testing.assert_allclose(curve.angular_velocity(t), fd, atol=1e-6)


def test_from_gltf():
    times, keys, tin, tout = gltf_cubic_keys(4)
    packed = np.stack([tin, keys, tout], axis=1).reshape(-1)  # K triplets, flat as in a buffer
    curve = RotationCurve.from_gltf(times, packed, "CUBICSPLINE")
    direct = RotationCurve(times, keys, interpolation="cubic", in_tangents=tin, out_tangents=tout)
    t = np.linspace(times[0] - 0.5, times[-1] + 0.5, 40)
    np.testing.assert_array_equal(curve(t), direct(t))
    np.testing.assert_array_equal(curve.in_tangents, tin)
    lin = RotationCurve.from_gltf(times, keys.reshape(-1), "LINEAR")
    np.testing.assert_array_equal(lin(t), RotationCurve(times, keys)(t))
    assert RotationCurve.from_gltf(times, keys, "STEP").interpolation == "step"
    with pytest.raises(ValueError, match=r"from_gltf: output has 16 values, expected 4 keys x 3 x 4 = 48 for CUBICSPLINE"):
        RotationCurve.from_gltf(times, keys, "CUBICSPLINE")
    assert RotationCurve.from_gltf(times, keys, "linear").interpolation == "linear"
    with pytest.raises(ValueError, match=r"^RotationCurve.from_gltf: interpolation is 'lineer' \(must be one of 'STEP', 'LINEAR', 'CUBICSPLINE'; did you mean 'LINEAR'\?\)"):
        RotationCurve.from_gltf(times, keys, "lineer")


@pytest.mark.parametrize("interpolation", ["step", "linear", "cubic"])
def test_a_curve_checks_its_keys_when_made_and_builds_its_c_curve_when_first_sampled(
        interpolation):
    times, keys = uneven_keys(5)
    tangents = {} if interpolation != "cubic" else dict(in_tangents=np.zeros((5, 4)),
                                                        out_tangents=np.zeros((5, 4)))
    bad = keys.copy()
    bad[3] = 0.0
    with pytest.raises(ValueError, match=r"^RotationCurve: \|quaternions\| at index \(3,\) is 0.0"):
        RotationCurve(times, bad, interpolation=interpolation, **tangents)
    curve = RotationCurve(times, keys, interpolation=interpolation, **tangents)
    assert curve._capsule is None  # (a reader's curve costs its checks until sampled)
    # the caller's arrays are copied when made: changing them later changes nothing
    expected = RotationCurve(times.copy(), keys.copy(), interpolation=interpolation,
                             **tangents)(times)
    times[:] = np.arange(5.0)
    keys[:] = [0.0, 0.0, 0.0, 1.0]
    np.testing.assert_array_equal(curve(curve.times), expected)
    assert curve._capsule is not None
    # the arrays the C curve reads in place stay read-only for good
    for array in (curve.times, curve._given, curve.in_tangents):
        if array is not None:
            with pytest.raises(ValueError, match="WRITEABLE"):
                array.flags.writeable = True


def test_threads_sampling_a_curve_first_get_the_one_result():
    times, keys = uneven_keys(64)
    t = np.linspace(times[0], times[-1], 200_001)
    expected = RotationCurve(times, keys)(t)
    for _ in range(5):
        curve, results = RotationCurve(times, keys), [None, None]

        def sample(k):
            results[k] = curve(t)

        threads = [threading.Thread(target=sample, args=(k,)) for k in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for result in results:
            np.testing.assert_array_equal(result, expected)


def test_extrapolation_modes():
    times, keys = uneven_keys(4)
    T = times[-1] - times[0]
    inside = np.linspace(times[0], times[-1], 13)[1:-1]
    cyc = RotationCurve(times, keys, before="cycle", after="cycle")
    same_rotation(cyc(inside + 3 * T), cyc(inside), atol=1e-12)
    np.testing.assert_allclose(cyc(inside - 2 * T), cyc(inside), atol=1e-12)
    np.testing.assert_allclose(cyc.angular_velocity(inside + T), cyc.angular_velocity(inside), atol=1e-12)
    osc = RotationCurve(times, keys, after="oscillate", before="oscillate")
    mirrored = times[0] + times[-1] - inside
    np.testing.assert_allclose(osc(inside + T), osc(mirrored), atol=1e-12)
    np.testing.assert_allclose(osc.angular_velocity(inside + T), -osc.angular_velocity(mirrored), atol=1e-12)
    np.testing.assert_allclose(osc(inside - 2 * T), osc(inside), atol=1e-12)
    clamp = RotationCurve(times, keys)
    np.testing.assert_allclose(clamp([times[0] - 5, times[-1] + 5]),
                               hemisphere_chain(keys)[[0, -1]], atol=1e-15)
    err = RotationCurve(times, keys, after="error")
    # the message of every key track (Curve's too)
    with pytest.raises(ValueError, match=r"^RotationCurve: t at index \(1,\) is .* \(must lie in \[.*\].*after.*'error'"):
        err([times[0], times[-1] + 0.1])
    np.testing.assert_allclose(err(times[0] - 1), keys[0], atol=1e-15)  # before is still clamp


def test_sorted_unsorted_and_single_key():
    times, keys = uneven_keys(10)
    curve = RotationCurve(times, keys)
    t = RNG.uniform(times[0] - 1, times[-1] + 1, 500)
    order = np.argsort(t)
    np.testing.assert_array_equal(curve(t)[order], curve(t[order]))
    np.testing.assert_array_equal(curve(t[order][::-1]), curve(t[order])[::-1])
    one = RotationCurve([2.0], [[0, 0, 0, 2.0]])
    np.testing.assert_array_equal(one([-1.0, 2.0, 9.0]), np.tile([0, 0, 0, 1.0], (3, 1)))
    np.testing.assert_array_equal(one.angular_velocity(3.0), [0, 0, 0])


def test_curve_shapes_out_and_properties():
    times, keys = uneven_keys(3)
    curve = RotationCurve(times, keys * 3.0)
    np.testing.assert_allclose(curve.quaternions, hemisphere_chain(keys), atol=1e-15)
    assert curve.evaluate(np.zeros((2, 5))).shape == (2, 5, 4)
    assert curve.angular_velocity(1.0).shape == (3,)
    assert curve(np.empty(0)).shape == (0, 4)
    out = np.full((2, 4), 9.0)
    assert curve.evaluate([times[0], times[1]], out=out) is out
    with pytest.raises(ValueError, match=r"^RotationCurve.evaluate: t at index \(1,\) is nan"):
        curve.evaluate([times[0], np.nan], out=out)
    np.testing.assert_allclose(out, hemisphere_chain(keys)[:2], atol=1e-15)  # untouched
    assert curve.duration == pytest.approx(times[-1] - times[0])
    assert "3 keys" in repr(curve) and "interpolation='linear'" in repr(curve)
    with pytest.raises(ValueError, match="read-only"):
        curve.times[0] = 5.0


@pytest.mark.parametrize("kwargs, match", [
    (dict(times=[0.0, 1.0, 1.0], quaternions=np.tile([0, 0, 0, 1.0], (3, 1))),
     r"^RotationCurve: times at index \(2,\) is 1.0, which equals times\[1\] = 1.0: key times must be sorted in strictly increasing order \(reorder every key array with order = np.argsort\(times"),
    (dict(times=[0.0, np.nan], quaternions=np.tile([0, 0, 0, 1.0], (2, 1))),
     r"RotationCurve: times at index \(1,\) is nan \(must be finite\)"),
    (dict(times=[0.0, 1.0], quaternions=[[0, 0, 0, 1.0], [0, 0, 0, 0]]),
     r"RotationCurve: \|quaternions\| at index \(1,\) is 0.0"),
    (dict(times=[0.0, 1.0], quaternions=[[0, 0, 0, 1.0], [0, np.nan, 0, 1]]),
     r"RotationCurve: quaternions at index \(1,\) is nan"),
    (dict(times=[0.0, 1.0], quaternions=[[0, 0, 0, 1.0]]),
     r"RotationCurve: quaternions must have shape \(2, 4\)"),
    (dict(times=[], quaternions=np.empty((0, 4))), r"RotationCurve: times must be a 1-D array of at least one"),
    (dict(times=[0.0, 1.0], quaternions=np.tile([0, 0, 0, 1.0], (2, 1)), interpolation="cubic"),
     r"RotationCurve: in_tangents are required for interpolation='cubic'"),
    (dict(times=[0.0, 1.0], quaternions=np.tile([0, 0, 0, 1.0], (2, 1)), in_tangents=np.zeros((2, 4))),
     r"RotationCurve: in_tangents are only used with interpolation='cubic'"),
    (dict(times=[0.0, 1.0], quaternions=np.tile([0, 0, 0, 1.0], (2, 1)), interpolation="cubic",
          in_tangents=np.zeros((2, 4)), out_tangents=[[0, 0, 0, 0], [0, np.inf, 0, 0]]),
     r"RotationCurve: out_tangents at index \(1,\) is inf \(must be finite\)"),
    (dict(times=[0.0, 1e300], quaternions=np.tile([0, 0, 0, 1.0], (2, 1)), interpolation="cubic",
          in_tangents=np.zeros((2, 4)), out_tangents=[[0, 0, 1e300, 0], [0, 0, 0, 0]]),
     r"RotationCurve: out_tangents at index \(0,\) is inf \(is not representable"),
    (dict(times=[0.0, 1e300], quaternions=np.tile([0, 0, 0, 1.0], (2, 1)), interpolation="cubic",
          in_tangents=[[0, 0, 0, 0], [0, 0, 1e300, 0]], out_tangents=np.zeros((2, 4))),
     r"RotationCurve: in_tangents at index \(1,\) is inf \(is not representable"),
    (dict(times=[0.0, 1.0], quaternions=np.tile([0, 0, 0, 1.0], (2, 1)), interpolation="bezier"),
     r"^RotationCurve: interpolation is 'bezier' \(must be one of 'step', 'linear', 'cubic'; did you mean 'cubic'\?"),
    (dict(times=[0.0, 1.0], quaternions=np.tile([0, 0, 0, 1.0], (2, 1)), after="offset"),
     r"^RotationCurve: after is 'offset' \(must be one of 'clamp', 'linear', 'cycle', "
     r"'oscillate', 'error': 'cycle_offset' does not apply to a RotationCurve\)$"),
    (dict(times=[[0.0, 1.0]], quaternions=np.tile([0, 0, 0, 1.0], (2, 1))), r"times must be a 1-D array"),
])
def test_curve_bad_input(kwargs, match):
    with pytest.raises((ValueError, OverflowError), match=match):
        RotationCurve(**kwargs)


def test_curve_bad_times():
    curve = RotationCurve([0.0, 1.0], [[0, 0, 0, 1.0], [0, 0, 1, 0]])
    with pytest.raises(ValueError, match=r"RotationCurve.angular_velocity: t at index \(0, 1\) is inf \(must be finite\)"):
        curve.angular_velocity([[0.5, np.inf]])
    with pytest.raises(ValueError, match=r"RotationCurve.evaluate: t must be real numbers"):
        curve.evaluate("x")


def test_cubic_through_zero_is_an_error():
    # tangents that carry the spline exactly through 0 halfway
    curve = RotationCurve([0.0, 1.0], [[0, 0, 0, 1.0], [0, 0, 0, -1.0]], interpolation="cubic",
                          in_tangents=np.zeros((2, 4)), out_tangents=np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"RotationCurve.evaluate: t is 0.5 \(is where the cubic spline passes through the zero quaternion"):
        curve.evaluate(0.5)


def test_slerp_long_inputs_fast_and_careful_paths_agree():
    # Long inputs run in blocks on a vectorized path; a block holding an
    # extreme (but finite) length is redone on the careful scalar path.
    q0, q1 = random_quats(3000), random_quats(3000)
    t = RNG.uniform(0, 1, 3000)
    fast = quat_slerp(q0, q1, t)
    scaled = q1.copy()
    scaled[1700] *= 1e120  # the same rotation, outside the fast path's range
    careful = quat_slerp(q0, scaled, t)
    np.testing.assert_allclose(careful, fast, rtol=0, atol=2e-15)
    others = np.arange(3000) != 1700  # one formula on both paths: the rest agree bit for bit
    np.testing.assert_array_equal(careful[others], fast[others])
    np.testing.assert_array_equal(quat_slerp(q0[1699:1702], q1[1699:1702], t[1699:1702]),
                                  fast[1699:1702])  # and do not depend on the block's length
    np.testing.assert_allclose(quat_slerp(q0[0], q1, t), quat_slerp(np.tile(q0[0], (3000, 1)), q1, t),
                               rtol=0, atol=0)  # shared q0 (strided) equals the contiguous layout
    for i in range(0, 3000, 101):
        slerp = Slerp([0.0, 1.0], Rotation.from_quat([q0[i], q1[i]]))
        same_rotation(fast[i], slerp([t[i]]).as_quat()[0], atol=1e-12)
    bad = q1.copy()
    bad[2345] = 0.0
    with pytest.raises(ValueError, match=r"quat_slerp: \|q1\| at index \(2345,\) is 0.0"):
        quat_slerp(q0, bad, t)
    t_bad = t.copy()
    t_bad[2999] = -0.25
    with pytest.raises(ValueError, match=r"quat_slerp: t at index \(2999,\) is -0.25"):
        quat_slerp(q0, q1, t_bad)


def test_docstring_examples():
    import doctest

    import animcore.rotations
    result = doctest.testmod(animcore.rotations)
    assert result.attempted > 10 and result.failed == 0


@given(st.data())
def test_multiply_and_rotate_broadcast_like_ufuncs(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, min_side=0, max_side=3))
    elements = st.floats(-3, 3).filter(lambda x: abs(x) > 0.2)
    a = data.draw(hnp.arrays(np.float64, shapes.input_shapes[0] + (4,), elements=elements))
    b = data.draw(hnp.arrays(np.float64, shapes.input_shapes[1] + (4,), elements=elements))
    v = data.draw(hnp.arrays(np.float64, shapes.input_shapes[1] + (3,), elements=st.floats(-5, 5)))
    product = quat_multiply(a, b)
    assert product.shape == shapes.result_shape + (4,)
    np.testing.assert_allclose(product, quat_product_matrix(a, b), atol=1e-12)
    rotated = quat_rotate(a, v)
    assert rotated.shape == shapes.result_shape + (3,)
    if rotated.size:
        qa, vv = np.broadcast_arrays(a, v[..., :1])[0], np.broadcast_arrays(a[..., :3], v)[1]
        # copies: scipy writes into its inputs' normalized views, broadcast ones warn
        expected = Rotation.from_quat(qa.reshape(-1, 4).copy()).apply(vv.reshape(-1, 3).copy())
        np.testing.assert_allclose(rotated.reshape(-1, 3), expected, atol=1e-12)


# -- sign continuity ------------------------------------------------------------------------

def signed_keys(k, rng):
    """Random rotations stored with random signs (q and -q: the same rotation)."""
    keys = quat_normalize(random_quats(k, rng))
    return keys * rng.choice([-1.0, 1.0], size=(k, 1))


@pytest.mark.parametrize("interpolation", ["linear", "step"])
def test_results_are_sign_continuous_along_the_curve(interpolation):
    rng = np.random.default_rng(14)
    times = np.cumsum(rng.uniform(0.2, 1.0, 12))
    keys = signed_keys(12, rng)
    curve = RotationCurve(times, keys, interpolation=interpolation)
    t = np.linspace(times[0], times[-1], 4001)
    q = curve(t)
    dots = np.sum(q[1:] * q[:-1], axis=1)
    assert dots.min() > (0.0 if interpolation == "step" else 0.9)
    # at each key the result continues the segment that arrives there
    before = curve(np.nextafter(times[1:], -np.inf))
    at = curve(times[1:])
    assert np.sum(before * at, axis=1).min() > 0.0
    # and every result is the rotation of the keys it was made from
    same_rotation(curve(times), keys, atol=1e-12)
    np.testing.assert_allclose(curve(times), hemisphere_chain(keys), atol=1e-15)


def test_last_key_in_the_other_hemisphere_does_not_flip():
    # the built-in sample's hips: a small turn back to the identity stored as -identity
    quarter_deg = quat_from_axis_angle([0, 1, 0], -np.radians(2))
    curve = RotationCurve([0.0, 1.5], [quarter_deg, [0, 0, 0, -1.0]])
    just_before, at = curve([1.5 - 1e-9, 1.5])
    assert np.dot(just_before, at) > 0.999999
    np.testing.assert_allclose(at, [0, 0, 0, 1.0], atol=1e-15)


def test_cycle_seams_are_sign_continuous():
    half = quat_from_axis_angle([0, 0, 1], np.pi / 2)
    # a full turn about z: the last key is the first rotation in the other hemisphere
    keys = [[0, 0, 0, 1.0], half, [0, 0, 1, 0], quat_multiply(half, [0, 0, 1, 0])]
    keys.append([0, 0, 0, -1.0])
    curve = RotationCurve([0, 1, 2, 3, 4], keys, after="cycle", before="cycle")
    t = np.linspace(-9, 13, 8801)
    q = curve(t)
    assert np.sum(q[1:] * q[:-1], axis=1).min() > 0.99
    # odd cycles are the negation of the base cycle, even ones equal it
    inside = np.linspace(0.1, 3.9, 7)
    np.testing.assert_allclose(curve(inside + 4), -curve(inside), atol=1e-12)
    np.testing.assert_allclose(curve(inside + 8), curve(inside), atol=1e-12)
    np.testing.assert_allclose(curve.angular_velocity(inside + 4), curve.angular_velocity(inside),
                               atol=1e-12)


def test_bake_rotations_are_sign_continuous_across_frames():
    from animcore.bake import bake
    from animcore.gltf import load_sample
    arrays = bake(load_sample(), 30.0)
    rotations = [k for k in arrays if k.endswith("/rotation")]
    assert "walk/hips/rotation" in rotations
    for key in rotations:
        q = arrays[key]
        assert np.sum(q[1:] * q[:-1], axis=1).min() > 0.99, key
    np.testing.assert_allclose(arrays["walk/hips/rotation"][45], [0, 0, 0, 1.0], atol=1e-12)


# -- quaternion input: scipy rotations, one near-unit rule ------------------------------------

def test_scipy_rotation_accepted_wherever_quaternions_are_taken():
    rot = Rotation.from_euler("xyz", RNG.uniform(-3, 3, (4, 3)))
    q = rot.as_quat()
    v = RNG.normal(size=(4, 3))
    np.testing.assert_array_equal(quat_rotate(rot, v), quat_rotate(q, v))
    np.testing.assert_array_equal(quat_multiply(rot, rot), quat_multiply(q, q))
    np.testing.assert_array_equal(quat_slerp(rot[0], rot[1], 0.3), quat_slerp(q[0], q[1], 0.3))
    np.testing.assert_array_equal(quat_normalize(rot), quat_normalize(q))
    times = [0.0, 1.0, 2.0, 3.0]
    t = np.linspace(0, 3, 13)
    np.testing.assert_array_equal(RotationCurve(times, rot)(t), RotationCurve(times, q)(t))
    same_rotation(RotationCurve(times, rot)(t), Slerp(times, rot)(t).as_quat(), atol=1e-12)


def test_near_unit_quaternions_are_normalized_everywhere():
    typed = np.array([0, 0.7071, 0, 0.7071])  # length 0.99998
    exact = typed / np.linalg.norm(typed)
    np.testing.assert_allclose(quat_normalize(typed), exact, atol=1e-16)
    np.testing.assert_allclose(quat_slerp(typed, typed, 0.5), exact, atol=1e-15)
    curve = RotationCurve([0, 1], [[0, 0, 0, 1.0], typed])
    np.testing.assert_allclose(curve(1.0), exact, atol=1e-15)
    from animcore import LoopTrack
    track = LoopTrack([0, 1], np.zeros((2, 3)), rotations=[[0, 0, 0, 1.0], typed])
    np.testing.assert_allclose(track.delta(0.0, 1.0).rotation, exact, atol=1e-12)
    with pytest.raises(ValueError, match=r"^LoopTrack: rotations at index \(1, 0\) is 0.0 "
                                         r"\(starts quaternion 1, of length 0 \(must be in"):
        LoopTrack([0, 1], np.zeros((2, 3)), rotations=[[0, 0, 0, 1.0], [0, 0, 0, 0]])


# -- keys, JSON --------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    {}, {"interpolation": "step", "before": "cycle", "after": "oscillate"},
    {"interpolation": "cubic", "in_tangents": RNG.normal(size=(4, 4)) * 0.2,
     "out_tangents": RNG.normal(size=(4, 4)) * 0.2, "after": "error"},
])
def test_rotation_curve_to_dict_round_trips_through_json(kwargs):
    import json
    times, keys = uneven_keys(4)
    keys = keys * np.array([[1.0], [-2.0], [0.5], [1.0]])  # not unit, mixed signs
    if kwargs.get("interpolation") == "cubic":
        keys = hemisphere_chain(keys)
    curve = RotationCurve(times, keys, **kwargs)
    again = RotationCurve.from_dict(json.loads(json.dumps(curve.to_dict())))
    t = np.linspace(times[0] - (0 if "after" in kwargs and kwargs["after"] == "error" else 1),
                    times[-1], 50)
    np.testing.assert_array_equal(again(t), curve(t))
    assert repr(again) == repr(curve) and len(again) == len(curve) == 4
    (t0, q0, tin, _), *_ = list(curve)
    assert t0 == times[0] and np.array_equal(q0, curve.quaternions[0])
    assert (tin is None) == (kwargs.get("interpolation") != "cubic")


def test_rotation_curve_options_accept_tool_words():
    c = RotationCurve([0, 1], [[0, 0, 0, 1.0], [0, 0, 1, 0]], interpolation="slerp",
                      before="constant", after="loop")
    assert (c.interpolation, c.before, c.after) == ("linear", "clamp", "cycle")
    with pytest.raises(ValueError, match=r"^RotationCurve: after is 'cylce' \(must be one of "
                                         r"'clamp', 'linear', 'cycle', 'oscillate', 'error'; did you mean "
                                         r"'cycle'\?\)"):
        RotationCurve([0, 1], [[0, 0, 0, 1.0], [0, 0, 1, 0]], after="cylce")
    with pytest.raises(ValueError, match=r"^RotationCurve: times at index \(1,\) is 0.5, which "
                                         r"is less than times\[0\] = 1.0"):
        RotationCurve([1.0, 0.5], [[0, 0, 0, 1.0], [0, 0, 1, 0]])


# -- conversions against scipy ------------------------------------------------------

SEQUENCES = ["xyz", "xzy", "yxz", "yzx", "zxy", "zyx", "xyx", "xzx", "yxy", "yzy", "zxz", "zyz"]


@pytest.mark.parametrize("seq", SEQUENCES + [s.upper() for s in SEQUENCES])
def test_euler_matches_scipy_in_every_order(seq):
    q = RNG.normal(size=(200, 4))  # not unit: normalized first, as Rotation.from_quat does
    expected = Rotation.from_quat(q).as_euler(seq)
    np.testing.assert_allclose(quat_to_euler(q, seq), expected, rtol=0, atol=1e-13)
    angles = RNG.uniform(-np.pi, np.pi, size=(200, 3))
    np.testing.assert_allclose(quat_from_euler(seq, angles),
                               Rotation.from_euler(seq, angles).as_quat(), rtol=0, atol=1e-15)
    np.testing.assert_allclose(quat_from_euler(seq, np.rad2deg(angles), degrees=True),
                               Rotation.from_euler(seq, angles).as_quat(), rtol=0, atol=1e-15)


_atan2 = np.frompyfunc(math.atan2, 2, 1)  # the libm's (np.arctan2 may use its own)
_hypot = np.frompyfunc(math.hypot, 2, 1)


def euler_with_libm_atan2(q, seq):
    """Bernardes and Ehrmann's three angles of unit q with the libm's atan2
    and hypot, as scipy combines them away from the gimbal lock."""
    extrinsic = seq.islower()
    axes = ["xyz".index(c) for c in seq.lower()]
    i, j, k = (axes[0], axes[1], axes[2]) if extrinsic else (axes[2], axes[1], axes[0])
    symmetric = i == k
    if symmetric:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2
    if symmetric:
        a, b, c, d = q[:, 3], q[:, i], q[:, j], q[:, k] * sign
    else:
        a, b, c, d = q[:, 3] - q[:, j], q[:, i] + q[:, k] * sign, q[:, j] + q[:, 3], \
            q[:, k] * sign - q[:, i]
    half_sum, half_diff = _atan2(b, a).astype(float), _atan2(d, c).astype(float)
    middle = 2 * _atan2(_hypot(c, d), _hypot(a, b)).astype(float)
    outer, third = half_sum - half_diff, half_sum + half_diff
    if not symmetric:
        third, middle = third * sign, middle - np.pi / 2
    angles = np.stack([outer, middle, third] if extrinsic else [third, middle, outer], axis=1)
    return (angles + np.pi) % (2 * np.pi) - np.pi


@pytest.mark.parametrize("seq", ["xyz", "ZXY", "zxz", "YXY"])
def test_euler_angles_are_within_ulps_of_libm_atan2_on_every_path(seq):
    # the vector lanes (8 items at a time) and the scalar items after them
    # compute atan2 from a series: within a few ulp of the libm's, with its
    # signs (an axis quaternion's -0 and +0 give -pi and pi)
    q = RNG.normal(size=(20_003, 4))  # made unit by quat_to_euler as by quat_normalize
    axes = np.eye(4)
    specials = np.concatenate([axes, -axes, np.where(axes == 0, -0.0, axes),
                               np.where(axes == 0, -0.0, -axes)])
    q = np.concatenate([q, specials, specials[:5]])
    got = quat_to_euler(q, seq)
    expected = euler_with_libm_atan2(quat_normalize(q[:20_003]), seq)  # (not at the lock)
    difference = np.abs(got[:20_003] - expected)
    difference = np.minimum(difference, 2 * np.pi - difference)  # pi and -pi alike here
    assert difference.max() <= 8 * np.spacing(np.pi)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Gimbal lock detected", UserWarning)  # (scipy's)
        lock = Rotation.from_quat(specials).as_euler(seq)
    np.testing.assert_array_equal(got[20_003:20_003 + len(specials)], lock)
    for n in (1, 7, 9, 20_003 + 5):  # as many lanes, and scalar items after them
        np.testing.assert_array_equal(quat_to_euler(q[-n:], seq), got[-n:])


@pytest.mark.parametrize("seq", ["zyx", "ZXZ", "xyz", "YXY"])
def test_euler_at_the_gimbal_lock_matches_scipy(seq):
    middle = 0.0 if seq[0].lower() == seq[2].lower() else np.pi / 2
    angles = np.array([[0.4, middle, 0.0], [-1.1, -middle if middle else np.pi, 0.0]])
    q = Rotation.from_euler(seq, angles).as_quat()
    with pytest.warns(UserWarning, match="Gimbal lock"):
        expected = Rotation.from_quat(q).as_euler(seq)
    np.testing.assert_allclose(quat_to_euler(q, seq), expected, rtol=0, atol=1e-7)
    same_rotation(quat_from_euler(seq, quat_to_euler(q, seq)), q, atol=1e-7)


def test_matrix_and_rotvec_match_scipy_and_round_trip():
    q = random_quats(300)
    q[:3] = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1e-9]]  # half turns: the hard cases
    m = quat_to_matrix(q)
    np.testing.assert_allclose(m, Rotation.from_quat(q).as_matrix(), rtol=0, atol=1e-15)
    same_rotation(quat_from_matrix(m), q, atol=1e-15)
    same_rotation(quat_from_matrix(m), Rotation.from_matrix(m).as_quat(), atol=1e-15)
    v = quat_to_rotvec(q)
    np.testing.assert_allclose(v, Rotation.from_quat(q).as_rotvec(), rtol=0, atol=1e-14)
    np.testing.assert_allclose(quat_to_rotvec(q, degrees=True),
                               Rotation.from_quat(q).as_rotvec(degrees=True), atol=1e-12)
    small = RNG.normal(size=(50, 3)) * 1e-5
    for rotvec in (v, small, np.zeros((1, 3))):
        np.testing.assert_allclose(quat_from_rotvec(rotvec), Rotation.from_rotvec(rotvec).as_quat(),
                                   rtol=0, atol=1e-15)
    same_rotation(quat_from_rotvec(v), q, atol=1e-14)


def test_a_scaled_matrix_is_no_rotation_and_an_overflowing_rotvec_is_an_error():
    # Shepperd's method reads a matrix as a rotation (1 + trace): a scale gave
    # another rotation (or NaN near the double range) without a word
    q = random_quats(8)
    m = quat_to_matrix(q)
    float32 = m.astype(np.float32).astype(np.float64)  # a little off: accepted
    same_rotation(quat_from_matrix(float32), Rotation.from_matrix(float32).as_quat(), atol=1e-6)
    for scale in (2.0, 1e100, 1.5e308):
        out = np.full((8, 4), 7.0)
        bad = m.copy()
        bad[5] *= scale
        with pytest.raises(ValueError, match=r"^quat_from_matrix: matrix at index \(5,\) is "
                                             r"\S+ \(column \d's length, which must be 1 "
                                             r"within 0.0005 for a rotation") as error:
            quat_from_matrix(bad, out=out)
        length = float(str(error.value).split(" is ")[1].split(" ")[0])
        assert length == pytest.approx(scale, rel=1e-15)
        np.testing.assert_array_equal(out, 7.0)  # untouched
    # |rotvec| beyond the double range, its components finite: no angle to turn by
    out = np.full((2, 4), 7.0)
    with pytest.raises(OverflowError, match=r"^quat_from_rotvec: rotvec at index \(1,\) is inf"):
        quat_from_rotvec([[0.0, 0.0, 1.0], [-1e308, 0.27, -1.67e308]], out=out)
    np.testing.assert_array_equal(out, 7.0)
    with pytest.raises(OverflowError, match=r"^quat_from_rotvec: rotvec at index \(1,\) is inf"):
        quat_from_rotvec([[0.0, 0.0, 1.0], [-1e308, 0.27, -1.67e308]])


def test_conversions_broadcast_take_any_layout_and_fill_out():
    q = random_quats(24).reshape(2, 3, 4, 4)
    assert quat_to_matrix(q).shape == (2, 3, 4, 3, 3)
    assert quat_to_euler(q[:, ::2], "xyz").shape == (2, 2, 4, 3)
    np.testing.assert_array_equal(quat_to_euler(q[:, ::2], "xyz"),
                                  quat_to_euler(q[:, ::2].copy(), "xyz"))
    assert quat_to_matrix([0, 0, 0, 1]).shape == (3, 3)
    assert quat_from_rotvec(np.zeros((0, 3))).shape == (0, 4)
    out = np.zeros((2, 3, 4, 3))
    assert quat_to_rotvec(q, out=out) is out
    np.testing.assert_array_equal(out, quat_to_rotvec(q))
    out = np.zeros((2, 3, 4, 3))
    assert quat_to_euler(q, "ZYX", degrees=True, out=out) is out
    np.testing.assert_allclose(out, Rotation.from_quat(q.reshape(-1, 4)).as_euler(
        "ZYX", degrees=True).reshape(out.shape), atol=1e-11)
    before = q.copy()
    quat_from_matrix(quat_to_matrix(q))
    np.testing.assert_array_equal(q, before)


def test_conversions_take_scipy_rotations():
    rotation = Rotation.random(5, random_state=3)
    np.testing.assert_array_equal(quat_to_euler(rotation, "ZXY"),
                                  quat_to_euler(rotation.as_quat(), "ZXY"))
    np.testing.assert_array_equal(quat_to_matrix(rotation), quat_to_matrix(rotation.as_quat()))
    np.testing.assert_array_equal(quat_to_rotvec(rotation), quat_to_rotvec(rotation.as_quat()))


def test_conversion_errors():
    with pytest.raises(ValueError, match=r"quat_to_euler: seq is 'xxy' \(must be 3 axes"):
        quat_to_euler([0, 0, 0, 1], "xxy")
    with pytest.raises(ValueError, match=r"quat_from_euler: seq is 'xYz'"):
        quat_from_euler("xYz", [0, 0, 0])
    with pytest.raises(ValueError, match=r"quat_from_euler: seq is 'xy'"):
        quat_from_euler("xy", [0, 0, 0])
    with pytest.raises(ValueError, match=r"quat_to_matrix: \|q\| at index \(1,\) is 0.0"):
        quat_to_matrix([[0, 0, 0, 1], [0, 0, 0, 0]])
    with pytest.raises(ValueError, match=r"quat_to_euler: q (at index \(\) )?is nan"):
        quat_to_euler([0, np.nan, 0, 1], "xyz")
    with pytest.raises(ValueError, match=r"quat_to_rotvec: \|q\| at index \(0,\) is 0.0"):
        quat_to_rotvec([[0, 0, 0, 0]])
    with pytest.raises(ValueError, match=r"quat_from_matrix: det\(matrix\) at index \(0,\) is -1.0"):
        quat_from_matrix([np.diag([-1.0, 1.0, 1.0])])
    with pytest.raises(ValueError, match=r"quat_from_matrix: matrix (at index \(\) )?is inf"):
        quat_from_matrix(np.diag([np.inf, 1.0, 1.0]))
    with pytest.raises(ValueError, match=r"quat_from_matrix: matrix must have shape \(\.\.\., 3, 3\)"):
        quat_from_matrix(np.eye(4))
    with pytest.raises(ValueError, match=r"quat_from_rotvec: rotvec (at index \(\) )?is nan"):
        quat_from_rotvec([np.nan, 0, 0])
    with pytest.raises(ValueError, match=r"quat_from_euler: angles at index \(1,\) is inf"):
        quat_from_euler("xyz", [[0, 0, 0], [0, np.inf, 0]])
    with pytest.raises(ValueError, match=r"quat_from_euler: angles must have shape \(\.\.\., 3\)"):
        quat_from_euler("xyz", [0, 0])
    out = np.full((2, 3), 5.0)
    with pytest.raises(ValueError, match=r"^quat_to_rotvec: \|q\| at index \(1,\) is 0.0"):
        quat_to_rotvec([[0, 0, 0, 1], [0, 0, 0, 0]], out=out)
    np.testing.assert_array_equal(out, 5.0)


# -- long inputs: the vector lanes against the scalar path and the references ---------------

def long_operands(n, rng):
    """Quaternions and vectors of many sizes and signs, zeros of both signs,
    and a few lengths outside the lanes' range (those blocks take the scalar
    path again)."""
    q0, q1 = rng.normal(size=(n, 4)), rng.normal(size=(n, 4))
    q1 *= 10.0 ** rng.integers(-40, 40, size=(n, 1))
    q0[::7, 1], q0[::11, 2] = 0.0, -0.0
    q1[::97] *= 1e-170  # extreme: normalized exactly, on the scalar path
    v = rng.normal(size=(n, 3)) * 10.0 ** rng.integers(-30, 30, size=(n, 1))
    t = rng.uniform(0.0, 1.0, n)
    t[::9], t[::10] = 0.0, 1.0
    return q0, q1, v, t


LONG = {
    "quat_multiply": lambda q0, q1, v, t: (q0, q1),
    "quat_normalize": lambda q0, q1, v, t: (q1,),
    "quat_rotate": lambda q0, q1, v, t: (q1, v),
    "quat_slerp": lambda q0, q1, v, t: (q0, q1, t),
    "quat_nlerp": lambda q0, q1, v, t: (q0, q1, t),
}
FUNCS = {"quat_multiply": quat_multiply, "quat_normalize": quat_normalize,
         "quat_rotate": quat_rotate, "quat_slerp": quat_slerp, "quat_nlerp": quat_nlerp}


@pytest.mark.parametrize("name", sorted(LONG))
@pytest.mark.parametrize("n", [9, 203, 1030])
def test_long_inputs_equal_the_scalar_path_bit_for_bit(name, n):
    # Fewer than 8 items always take the scalar path: item by item, it is the reference.
    rng = np.random.default_rng(n)
    args = LONG[name](*long_operands(n, rng))
    fn = FUNCS[name]
    whole = fn(*args)
    one_by_one = np.array([fn(*(a[i] for a in args)) for i in range(n)])
    np.testing.assert_array_equal(whole, one_by_one)
    if len(args) == 1:
        return
    # one operand shared by all items (broadcast, read with step 0)
    shared = fn(args[0][3], *args[1:])
    np.testing.assert_array_equal(shared, np.array([fn(args[0][3], *(a[i] for a in args[1:]))
                                                    for i in range(n)]))


def test_long_inputs_match_the_references():
    q0, q1, v, t = long_operands(2000, np.random.default_rng(5))
    scale = np.abs(q0).max(1, keepdims=True) * np.abs(q1).max(1, keepdims=True)
    assert np.all(np.abs(quat_multiply(q0, q1) - quat_product_matrix(q0, q1)) <= 1e-14 * scale)
    # scipy's norm underflows for the 1e-170 lengths: it is given them scaled up
    r0 = Rotation.from_quat(q0)
    r1 = Rotation.from_quat(q1 / np.abs(q1).max(1, keepdims=True))
    got = quat_rotate(q1, v)
    assert np.all(np.abs(got - r1.apply(v)) <= 1e-14 * np.abs(v).max(1, keepdims=True))
    np.testing.assert_allclose(quat_normalize(q1), r1.as_quat(), rtol=0, atol=1e-15)
    nl = (1 - t)[:, None] * r0.as_quat() + (t * np.sign(np.sum(r0.as_quat() * r1.as_quat(), 1)))[:, None] * r1.as_quat()
    np.testing.assert_allclose(quat_nlerp(q0, q1, t), nl / np.linalg.norm(nl, axis=1, keepdims=True),
                               rtol=0, atol=1e-15)
    got = quat_slerp(q0, q1, t)
    for i in range(0, 2000, 37):
        expected = Slerp([0.0, 1.0], Rotation.concatenate([r0[i], r1[i]]))([t[i]]).as_quat()[0]
        same_rotation(got[i], expected, atol=1e-12)


@pytest.mark.parametrize("call, message", [
    (lambda a, b, v, t: quat_multiply(a, b), r"quat_multiply: b at index \(1234,\) is inf \(must be finite\)"),
    (lambda a, b, v, t: quat_rotate(b, v), r"quat_rotate: q at index \(1234,\) is inf \(must be finite\)"),
    (lambda a, b, v, t: quat_rotate(a, b[:, :3]), r"quat_rotate: v at index \(1234,\) is inf \(must be finite\)"),
    (lambda a, b, v, t: quat_slerp(a, b, t), r"quat_slerp: q1 at index \(1234,\) is inf \(must be finite\)"),
    (lambda a, b, v, t: quat_nlerp(a, b, t), r"quat_nlerp: q1 at index \(1234,\) is inf \(must be finite\)"),
    (lambda a, b, v, t: quat_normalize(b), r"quat_normalize: q at index \(1234,\) is inf \(must be finite\)"),
    (lambda a, b, v, t: quat_nlerp(a, a, np.where(np.arange(3000) == 1234, 1.5, t)),
     r"quat_nlerp: t at index \(1234,\) is 1.5 \(must lie in \[0, 1\]\)"),
    (lambda a, b, v, t: quat_rotate(np.where(np.isfinite(b), b, 0.0) * (np.arange(3000) != 1234)[:, None], v),
     r"quat_rotate: \|q\| at index \(1234,\) is 0.0 \(must be > 0"),
])
def test_long_inputs_report_the_first_bad_item(call, message):
    rng = np.random.default_rng(3)
    a, b, v = rng.normal(size=(3000, 4)), rng.normal(size=(3000, 4)), rng.normal(size=(3000, 3))
    t = rng.uniform(0, 1, 3000)
    b[1234, 2] = v[1234, 1] = np.inf
    b[2900, 0] = v[2900, 0] = np.nan  # a later one is not the one reported
    with pytest.raises(ValueError, match=message):
        call(a, b, v, t)


def test_long_products_that_overflow_are_an_overflow_error():
    a = np.tile([1e200, 1e200, 0.0, 0.0], (3000, 1))
    b = np.tile([0.0, 0.0, 0.0, 1.0], (3000, 1))
    b[1500] = [1e200, 0, 0, 0]
    with pytest.raises(OverflowError, match=r"quat_multiply: product at index \(1500,\) is -inf"):
        quat_multiply(a, b)


@pytest.mark.parametrize("workers", [1, 2])
def test_long_products_into_out_are_written_in_place_or_untouched_on_overflow(workers):
    # Components within 2^510 prove every product finite before any write;
    # beyond that, the products are computed once more (into scratch first).
    rng = np.random.default_rng(8)
    a, b = rng.normal(size=(70_000, 4)), rng.normal(size=(70_000, 4))
    a[40_000] = [1e300, 0.0, 0.0, 0.0]  # beyond 2^510, its product still representable
    out = np.full(a.shape, -7.0)
    assert quat_multiply(a, b, out=out, workers=workers) is out
    np.testing.assert_array_equal(out, quat_multiply(a, b))
    for i in (0, 997, 40_000, 69_999):  # item by item: the scalar path
        np.testing.assert_array_equal(out[i], quat_multiply(a[i], b[i]))
    np.testing.assert_allclose(out, quat_product_matrix(a, b), rtol=1e-14, atol=1e-14)
    for x, y in ((a[3], b), (a, b[7]), (a[40_000], b)):  # one operand shared by all items
        np.testing.assert_array_equal(quat_multiply(x, y, out=out, workers=workers),
                                      quat_multiply(x, y))
    a[50_000], b[50_000] = [1e300, 1e300, 0.0, 0.0], [1e300, 0.0, 0.0, 0.0]  # 1e600
    b[60_000, 2] = np.nan  # a later failure is not the one reported
    kept = np.full(a.shape, -7.0)
    with pytest.raises(OverflowError, match=r"^quat_multiply: product at index \(50000,\) is -inf"):
        quat_multiply(a, b, out=kept, workers=workers)
    assert (kept == -7.0).all()


# -- one key track: the sides, derivative and option words of every track class -------

def segment_rates(times, keys):
    """Angular velocity of each linear segment from scipy: axis * angle / interval."""
    rel = Rotation.from_quat(keys[1:]) * Rotation.from_quat(keys[:-1]).inv()
    return rel.as_rotvec() / np.diff(times)[:, None]


def test_rotation_curve_sides_at_keys_seams_and_mirrored_keys():
    times, keys = uneven_keys(6)
    rates, chain = segment_rates(times, keys), hemisphere_chain(keys)
    inner = times[1:-1]
    clamp = RotationCurve(times, keys)
    # at an interior key the right side is the segment after it, the left the one before
    np.testing.assert_allclose(clamp.evaluate(inner, 1), rates[1:], atol=1e-12)
    np.testing.assert_allclose(clamp.evaluate(inner, 1, side="left"), rates[:-1], atol=1e-12)
    np.testing.assert_allclose(clamp(inner, side="left"), chain[1:-1], atol=1e-15)
    same_rotation(clamp(inner), keys[1:-1])
    # the last key: right is the extrapolation (held: 0), left the last segment
    last = times[-1]
    np.testing.assert_array_equal(clamp.angular_velocity(last), 0.0)
    np.testing.assert_allclose(clamp.angular_velocity(last, side="left"), rates[-1], atol=1e-12)
    first = times[0]
    np.testing.assert_allclose(clamp.angular_velocity(first), rates[0], atol=1e-12)
    np.testing.assert_array_equal(clamp.angular_velocity(first, side="left"), 0.0)
    # a cycle seam: right is the next cycle's start, left the end of this one
    cyc = RotationCurve(times, keys, before="cycle", after="cycle")
    same_rotation(cyc(last), keys[0])
    same_rotation(cyc(last, side="left"), keys[-1])
    np.testing.assert_allclose(cyc.angular_velocity(last), rates[0], atol=1e-12)
    np.testing.assert_allclose(cyc.angular_velocity(last, side="left"), rates[-1], atol=1e-12)
    np.testing.assert_allclose(cyc.angular_velocity(first, side="left"), rates[-1], atol=1e-12)
    # the mirror image of key j after the last key: time runs backwards there, so the
    # right side (later in clip time) is the segment before key j, negated (key times
    # in binary fractions, so that the mirror images are exact)
    times = np.array([0.0, 0.5, 1.25, 2.0, 2.75, 3.5])
    rates = segment_rates(times, keys)
    inner, last = times[1:-1], times[-1]
    osc = RotationCurve(times, keys, after="oscillate")
    mirrored = last + (last - inner)
    np.testing.assert_allclose(osc.evaluate(mirrored, 1), -rates[:-1], atol=1e-12)
    np.testing.assert_allclose(osc.evaluate(mirrored, 1, side="left"), -rates[1:], atol=1e-12)
    same_rotation(osc(mirrored), keys[1:-1])


def test_step_rotation_curve_left_side_is_the_key_before():
    times, keys = uneven_keys(5)
    chain = hemisphere_chain(keys)
    step = RotationCurve(times, keys, interpolation="step")
    np.testing.assert_allclose(step.quaternions, chain, atol=1e-15)
    np.testing.assert_array_equal(step(times[1:-1]), step.quaternions[1:-1])
    np.testing.assert_array_equal(step(times[1:-1], side="left"), step.quaternions[:-2])
    np.testing.assert_array_equal(step(times[-1]), step.quaternions[-1])  # held
    np.testing.assert_array_equal(step.angular_velocity(times, side="left"), 0.0)


def test_rotation_curve_derivative_sample_and_out():
    times, keys = uneven_keys(7)
    curve = RotationCurve(times, keys, after="oscillate")
    t = np.sort(RNG.uniform(times[0] - 1, times[-1] + 4, 200)).reshape(20, 10)
    np.testing.assert_array_equal(curve.evaluate(t, 1), curve.angular_velocity(t))
    np.testing.assert_array_equal(curve.evaluate(t, derivative=0), curve(t))
    rotation, omega = curve.sample(t, side="left")
    np.testing.assert_array_equal(rotation, curve(t, side="left"))
    np.testing.assert_array_equal(omega, curve.angular_velocity(t, side="left"))
    out = (np.empty((20, 10, 4)), np.empty((20, 10, 3)))
    got = curve.sample(t, out=out)
    assert got.rotation is out[0] and got.angular_velocity is out[1]
    np.testing.assert_array_equal(out[0], curve(t))
    same = np.empty((20, 10, 3))
    assert curve.evaluate(t, 1, out=same) is same
    np.testing.assert_array_equal(same, curve.angular_velocity(t))
    np.testing.assert_array_equal(out[1], curve.angular_velocity(t))


@pytest.mark.parametrize("call, match", [
    (lambda c: c.evaluate(0.5, 2), r"^RotationCurve.evaluate: derivative is 2 \(must be 0 or 1: "
                                   r"rotations \(0\) and angular velocities \(1\)\)$"),
    (lambda c: c.evaluate(0.5, True), r"^RotationCurve.evaluate: derivative is True"),
    (lambda c: c.evaluate(0.5, side="up"), r"^RotationCurve.evaluate: side is 'up' \(must be one "
                                           r"of 'right', 'left'\)$"),
    (lambda c: c.angular_velocity(0.5, side="middle"), r"^RotationCurve.angular_velocity: side "
                                                       r"is 'middle'"),
    (lambda c: c.sample(0.5, out=np.empty(4)), r"^RotationCurve.sample: out must be a tuple of 2 "
                                               r"arrays$"),
    (lambda c: c.sample([0.5, 0.6], out=(np.empty((2, 4)), np.empty((3, 3)))),
     r"^RotationCurve.sample: out\[1\] has shape \(3, 3\), expected \(2, 3\)$"),
])
def test_rotation_curve_evaluate_bad_input(call, match):
    curve = RotationCurve([0.0, 1.0], [[0, 0, 0, 1.0], [0, 0, 1.0, 0]])
    with pytest.raises(ValueError, match=match):
        call(curve)


def test_sample_out_untouched_on_error():
    curve = RotationCurve([0.0, 1.0], [[0, 0, 0, 1.0], [0, 0, 1.0, 0]], after="error")
    out = (np.full((2, 4), 7.0), np.full((2, 3), 7.0))
    with pytest.raises(ValueError, match=r"^RotationCurve.sample: t at index \(1,\) is 2.0"):
        curve.sample([0.5, 2.0], out=out)
    assert (out[0] == 7).all() and (out[1] == 7).all()


@pytest.mark.parametrize("interpolation", ["step", "linear", "cubic"])
@pytest.mark.parametrize("extrapolation", ["clamp", "linear", "cycle", "oscillate", "error"])
def test_curve_out_matches_fresh_results_and_stays_untouched_on_error(interpolation,
                                                                     extrapolation):
    # With out=, times shown safe by a cheap check (step and linear curves,
    # times inside the keys or where nothing beyond them can fail) are
    # evaluated once; the rest take the validating pass. Both give the
    # fresh results bit for bit, and an error leaves out as it was.
    times, keys = uneven_keys(6)
    tangents = {} if interpolation != "cubic" else dict(
        in_tangents=0.1 * RNG.standard_normal((6, 4)), out_tangents=0.1 * RNG.standard_normal((6, 4)))
    curve = RotationCurve(times, keys, interpolation=interpolation, before=extrapolation,
                          after=extrapolation, **tangents)
    t = np.sort(RNG.uniform(times[0], times[-1], 300))
    if extrapolation != "error":
        t = np.concatenate([t, [times[0] - 1.5, times[-1] + 2.5]])
    for derivative, width in ((0, 4), (1, 3)):
        for side in ("right", "left"):
            out = np.empty(t.shape + (width,))
            assert curve.evaluate(t, derivative, side=side, out=out) is out
            np.testing.assert_array_equal(out, curve.evaluate(t, derivative, side=side))
            out[:] = 7.0
            with pytest.raises(ValueError, match=r"t at index \(1,\) is nan"):
                curve.evaluate(np.array([times[1], np.nan]), derivative, side=side,
                               out=out[:2])
            assert (out == 7.0).all()


def test_curve_out_with_keys_too_close_for_their_turn():
    # Keys 1e-309 s apart turn a quarter turn each at an infinite rate: the
    # rotations exist, the angular velocities do not, nor does the turn on at
    # that rate beyond the first key ("linear"), even at the key itself.
    keys = [[0, 0, 0, 1.0], [0, 0, np.sin(np.pi / 4), np.cos(np.pi / 4)], [0, 0, 1.0, 0]]
    curve = RotationCurve([0.0, 1e-309, 2e-309], keys, before="linear")
    out = np.full((1, 4), 7.0)
    np.testing.assert_array_equal(curve.evaluate([1.5e-309], out=out), curve([1.5e-309]))
    out[:] = 7.0
    with pytest.raises(OverflowError, match=r"^RotationCurve.evaluate: rotation at index \(0,\) "
                                            r"is \S+ \(is not representable"):
        curve.evaluate([0.0], side="left", out=out)
    assert (out == 7.0).all()
    omega = np.full((1, 3), 7.0)
    with pytest.raises(OverflowError, match=r"^RotationCurve.evaluate: angular_velocity at index "
                                            r"\(0,\) is \S+ \(is not representable"):
        curve.evaluate([1.5e-309], 1, out=omega)
    assert (omega == 7.0).all()


def test_track_classes_share_one_vocabulary():
    from animcore import Curve, LoopTrack
    from animcore._options import EXTRAPOLATIONS, INTERPOLATIONS, SIDES
    times = [0.0, 0.5, 1.0]
    rotation = RotationCurve(times, random_quats(3), interpolation="lerp", before="hold",
                             after="pingpong")
    curve = Curve(times, [0.0, 1.0, 0.5], interpolation="lerp", before="hold", after="pingpong")
    loop = LoopTrack(times, [0.0, 1.0, 2.0], interpolation="lerp")
    assert (rotation.interpolation, rotation.before, rotation.after) == \
        (curve.interpolation, curve.before, curve.after) == ("linear", "clamp", "oscillate")
    assert loop.interpolation == "linear"
    # the defaults follow one rule: the interpolation the usual source stores (samplers
    # of rotations and root tracks; keys an animator sets in Blender for a Curve)
    assert RotationCurve(times, random_quats(3)).interpolation == "linear"
    assert LoopTrack(times, [0.0, 1.0, 2.0]).interpolation == "linear"
    assert Curve(times, [0.0, 1.0, 0.5]).interpolation == "bezier"
    assert set(INTERPOLATIONS) == {"step", "linear", "cubic"} and set(SIDES) == {"right", "left"}
    assert {"clamp", "linear", "cycle", "oscillate", "error"} < set(EXTRAPOLATIONS)
    # a name of the shared set that a class has no use for says so
    with pytest.raises(ValueError, match=r"^RotationCurve: before is 'cycle_offset' \(must be one "
                                         r"of 'clamp', 'linear', 'cycle', 'oscillate', 'error': "
                                         r"'cycle_offset' does not apply to a RotationCurve\)$"):
        RotationCurve(times, random_quats(3), before="cycle_offset")
    with pytest.raises(ValueError, match=r"^RotationCurve: after is 'Sloped' \(must be one of "
                                         r"'clamp', 'linear', 'cycle', 'oscillate', 'error': "
                                         r"'sloped' does "
                                         r"not apply to a RotationCurve\)$"):
        RotationCurve(times, random_quats(3), after="Sloped")
    with pytest.raises(ValueError, match=r"^LoopTrack: interpolation is 'constant' \(must be one "
                                         r"of 'linear', 'cubic': 'step' does not apply to a "
                                         r"LoopTrack\)$"):
        LoopTrack(times, [0.0, 1.0, 2.0], interpolation="constant")


@pytest.mark.parametrize("interpolation", ["linear", "cubic", "step"])
def test_linear_extrapolation_keeps_turning_at_the_end_rate(interpolation):
    times, keys = uneven_keys(5)
    tangents = {} if interpolation != "cubic" else dict(
        in_tangents=RNG.normal(0, 0.3, (5, 4)), out_tangents=RNG.normal(0, 0.3, (5, 4)))
    curve = RotationCurve(times, keys, interpolation=interpolation, before="extend",
                          after="linear", **tangents)
    first, last = times[0], times[-1]
    w0 = curve.angular_velocity(first)  # the rates on the keys' inner sides
    w1 = curve.angular_velocity(last, side="left")
    q0, q1 = curve(first), curve.quaternions[-1] if interpolation != "cubic" else \
        quat_normalize(keys[-1])
    before, after = first - np.array([0.5, 2.0, 7.0]), last + np.array([0.25, 1.0, 9.0])
    # scipy: the end rotation followed by the turn rotvec = omega * dt (parent frame)
    expect0 = (Rotation.from_rotvec(np.outer(before - first, w0)) * Rotation.from_quat(q0))
    expect1 = (Rotation.from_rotvec(np.outer(after - last, w1)) * Rotation.from_quat(q1))
    same_rotation(curve(before), expect0.as_quat(), atol=1e-12)
    same_rotation(curve(after), expect1.as_quat(), atol=1e-12)
    np.testing.assert_allclose(curve.angular_velocity(after), np.tile(w1, (3, 1)), atol=0)
    np.testing.assert_allclose(curve.angular_velocity(before), np.tile(w0, (3, 1)), atol=0)
    # continuous at the end key, and for linear the end segment's slerp continued
    assert np.dot(curve(last + 1e-9), q1) > 1 - 1e-12
    if interpolation == "linear":
        k = curve.quaternions
        u = (after - times[-2]) / (last - times[-2])
        rel = Rotation.from_quat(k[-1]) * Rotation.from_quat(k[-2]).inv()
        along = Rotation.from_rotvec(np.outer(u, rel.as_rotvec())) * Rotation.from_quat(k[-2])
        same_rotation(curve(after), along.as_quat(), atol=1e-11)
    if interpolation == "step":
        np.testing.assert_array_equal(curve(after), np.tile(curve.quaternions[-1], (3, 1)))


def test_linear_extrapolation_overflow():
    curve = RotationCurve([0.0, 1e-300], [[0, 0, 0, 1.0], [0, 0, 1.0, 0]], after="linear")
    with pytest.raises(OverflowError, match=r"^RotationCurve: rotation at index \(1,\) is inf"):
        curve([0.0, 1e10])


@given(st.lists(st.floats(-12.0, 15.0), min_size=1, max_size=40),
       st.sampled_from(["clamp", "linear", "cycle", "oscillate"]))
def test_side_matters_only_at_keys_and_seams(ts, mode):
    times = np.array([0.0, 0.5, 1.25, 2.0, 3.5])
    keys = Rotation.from_rotvec([[0, 0, 0], [0, 0.4, 0], [0.3, 0.4, 0], [0.3, 0, 1], [1, 0, 1]])
    curve = RotationCurve(times, keys, before=mode, after=mode)
    t = np.array(ts)
    span = times[-1] - times[0]
    images = (times[None, :] + span * np.arange(-5, 6)[:, None]).ravel()  # keys of every cycle
    mirrored = (2 * times[-1] - times[None, :] + 2 * span * np.arange(-5, 6)[:, None]).ravel()
    near = np.min(np.abs(t[:, None] - np.r_[images, mirrored][None, :]), axis=1) < 1e-9
    t = t[~near]
    np.testing.assert_array_equal(curve(t, side="left"), curve(t))
    np.testing.assert_array_equal(curve.angular_velocity(t, side="left"), curve.angular_velocity(t))
    order = np.argsort(t, kind="stable")  # the sorted runs give the per-query bits
    np.testing.assert_array_equal(curve(t[order]), curve(t)[order])


def _spoiled(x, i, value):
    """x with item i set to value (none when i is None)."""
    y = np.array(x, dtype=float)
    if i is not None:
        y[i] = value
    return y


_ITEMS = 37  # eight parts of 4 items and 5 more: the check reads each part side by side
_RNG = np.random.default_rng(11)
_QS, _Q1S = _RNG.normal(size=(2, _ITEMS, 4))
_VS, _TS = _RNG.normal(size=(_ITEMS, 3)), _RNG.uniform(size=_ITEMS)
_MS = quat_to_matrix(_QS)
# each kernel with out=, and its inputs with item i spoiled (and the error's argument)
_ONE_BAD_ITEM = {
    "quat_multiply": (4, lambda i, out: quat_multiply(_QS, _spoiled(_Q1S, i, np.inf), out=out)),
    "quat_conjugate": (4, lambda i, out: quat_conjugate(_spoiled(_QS, i, np.nan), out=out)),
    "quat_normalize": (4, lambda i, out: quat_normalize(_spoiled(_QS, i, 0.0), out=out)),
    "quat_to_matrix": (9, lambda i, out: quat_to_matrix(_spoiled(_QS, i, 0.0), out=out)),
    "quat_to_rotvec": (3, lambda i, out: quat_to_rotvec(_spoiled(_QS, i, 0.0), out=out)),
    "quat_to_euler": (3, lambda i, out: quat_to_euler(_spoiled(_QS, i, -np.inf), "zyx",
                                                      out=out)),
    "quat_from_euler": (4, lambda i, out: quat_from_euler("XYZ", _spoiled(_VS, i, np.nan),
                                                          out=out)),
    "quat_from_rotvec": (4, lambda i, out: quat_from_rotvec(_spoiled(_VS, i, np.inf), out=out)),
    "quat_from_matrix": (4, lambda i, out: quat_from_matrix(_spoiled(_MS, i, -_MS[i]), out=out)),
    "quat_from_axis_angle": (4, lambda i, out: quat_from_axis_angle(_spoiled(_VS, i, 0.0), _TS,
                                                                    out=out)),
    "quat_rotate": (3, lambda i, out: quat_rotate(_QS, _spoiled(_VS, i, np.nan), out=out)),
    "quat_slerp": (4, lambda i, out: quat_slerp(_QS, _Q1S, _spoiled(_TS, i, 1.5), out=out)),
    "quat_nlerp": (4, lambda i, out: quat_nlerp(_spoiled(_QS, i, 0.0), _Q1S, _TS, out=out)),
}


@pytest.mark.parametrize("name", _ONE_BAD_ITEM)
def test_out_untouched_whichever_item_is_bad(name):
    """With out=, a first pass proves the call will succeed before anything
    is written: it must see every item, wherever the bad one lies. Where it
    vouches, out= holds the results of a fresh call."""
    width, call = _ONE_BAD_ITEM[name]
    shape = (_ITEMS, 3, 3) if width == 9 else (_ITEMS, width)
    for i in range(_ITEMS):
        out = np.full(shape, 7.0)
        with pytest.raises(ValueError, match=rf"^{name}: .* at index \({i},\)"):
            call(i, out)
        assert (out == 7.0).all(), i
    out = np.full(shape, 7.0)
    assert call(None, out) is out
    np.testing.assert_array_equal(out, call(None, None))
