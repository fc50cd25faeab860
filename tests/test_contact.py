import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from animcore import advance_projectiles, bounce, contact_point_velocity

from reference import bounce_components, cross_point_velocity, small_step_projectiles

WALL = dict(surface_velocity=[2.0, 0.0], normal=[1.0, 0.0])


# -- article 002's figures -----------------------------------------------------

def test_moving_wall_article_case():
    v = bounce([-3.0, 4.0], [2.0, 0.0], [1.0, 0.0], 0.5)
    np.testing.assert_allclose(v, [4.5, 4.0], rtol=0, atol=1e-15)
    # relative normal speed after: +2.5 = -e * (-5)
    assert v[0] - 2.0 == pytest.approx(2.5, abs=1e-15)


def test_naive_world_reflection_regression():
    # Flipping and damping the world x-velocity gives (1.5, 4), which still
    # approaches the wall (1.5 - 2 < 0): the bug. bounce must leave it.
    v = bounce([-3.0, 4.0], [2.0, 0.0], [1.0, 0.0], 0.5)
    assert v[0] - 2.0 > 0
    assert not np.allclose(v, [1.5, 4.0])


def test_world_positive_but_approaching():
    # Moving right, but the wall moves right faster: relative normal speed -1.
    np.testing.assert_allclose(bounce([1.0, 4.0], **WALL, restitution=0.5), [2.5, 4.0],
                               rtol=0, atol=1e-15)


def test_separating_contacts_unchanged_and_idempotent():
    first = bounce([-3.0, 4.0], **WALL, restitution=0.5)
    again = bounce(first, **WALL, restitution=0.5)
    np.testing.assert_array_equal(again, first)
    sliding = np.array([2.0, -7.0])  # relative normal speed exactly 0
    np.testing.assert_array_equal(bounce(sliding, **WALL, restitution=0.5), sliding)
    leaving = np.array([[3.0, 1.0], [10.0, -2.0]])
    np.testing.assert_array_equal(bounce(leaving, **WALL, restitution=1.0), leaving)


def test_world_kinetic_energy_may_rise():
    before = np.array([-3.0, 4.0])
    after = bounce(before, **WALL, restitution=0.5)
    assert 0.5 * before @ before == pytest.approx(12.5)
    assert 0.5 * after @ after == pytest.approx(18.125)


def test_e_zero_matches_the_wall_normal_speed():
    v = bounce([-3.0, 4.0], **WALL, restitution=0.0)
    np.testing.assert_allclose(v, [2.0, 4.0], atol=1e-15)  # tangent kept, not glued


def test_static_wall_and_restitution_endpoints():
    np.testing.assert_allclose(bounce([-3.0, 4.0], [0, 0], [1, 0], 1.0), [3.0, 4.0])
    np.testing.assert_allclose(bounce([-3.0, 4.0], [0, 0], [1, 0], 0.0), [0.0, 4.0])


def test_tangentially_moving_wall_does_not_drag_without_friction():
    for belt in ([0.0, 5.0], [0.0, -100.0]):
        np.testing.assert_allclose(bounce([-3.0, 4.0], belt, [1.0, 0.0], 0.5), [1.5, 4.0])


# -- the 10,000-sample check, as one vectorized call ------------------------------

def _samples(dim, count=10_000, seed=2):
    rng = np.random.default_rng(seed)
    if dim == 2:
        angle = rng.uniform(0, 2 * np.pi, count)
        n = np.stack([np.cos(angle), np.sin(angle)], axis=1)
        t = np.stack([-np.sin(angle), np.cos(angle)], axis=1)
        boost = np.array([17.0, -23.0])
    else:
        n = rng.normal(size=(count, 3))
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        t = np.cross(n, rng.normal(size=(count, 3)))
        t /= np.linalg.norm(t, axis=1, keepdims=True)
        boost = np.array([17.0, -23.0, 5.5])
    approach = -rng.uniform(0.01, 20.0, count)   # normal speed, < 0
    tangential = rng.uniform(-20.0, 20.0, count)
    u = rng.uniform(-15.0, 15.0, (count, dim))
    e = rng.uniform(0.0, 1.0, count)
    v = u + approach[:, None] * n + tangential[:, None] * t
    return v, u, n, t, e, approach, tangential, boost


@pytest.mark.parametrize("dim", [2, 3])
def test_ten_thousand_samples_in_one_call(dim):
    v, u, n, t, e, approach, tangential, boost = _samples(dim)
    # Base and boosted samples stacked: one call of shape (2, 10000, dim).
    out = bounce(np.stack([v, v + boost]), np.stack([u, u + boost]), n, e)
    base, boosted = out
    scale = np.abs(v).max(axis=1) + np.abs(u).max(axis=1) + np.abs(boost).max()
    rel = base - u
    normal_law = np.abs(np.einsum("ik,ik->i", rel, n) + e * approach) / scale
    tangent = np.abs(np.einsum("ik,ik->i", rel, t) - tangential) / scale
    boost_err = np.abs(boosted - boost - base).max(axis=1) / scale
    # relative to |v| + |u| + |boost|
    assert normal_law.max() <= 1e-12, normal_law.max()
    assert tangent.max() <= 1e-12, tangent.max()
    assert boost_err.max() <= 1e-12, boost_err.max()
    np.testing.assert_allclose(base, bounce_components(v, u, n, e), rtol=0,
                               atol=1e-12 * scale.max())


def test_naive_reflection_fails_the_boost_check():
    v, u, n, _, e, _, _, boost = _samples(2, 1000)
    def naive(v):
        s = np.einsum("ik,ik->i", v, n)
        return v - ((1 + e) * np.minimum(s, 0))[:, None] * n
    assert np.abs(naive(v + boost) - boost - naive(v)).max() > 1.0
    assert np.abs(bounce(v + boost, u + boost, n, e) - boost - bounce(v, u, n, e)).max() < 1e-12


# -- rotating surfaces --------------------------------------------------------------

def test_contact_point_velocity_2d_and_3d():
    np.testing.assert_allclose(contact_point_velocity([0.0, 0.0], 2.0, [1.0, 0.0]), [0.0, 2.0])
    np.testing.assert_allclose(contact_point_velocity([1.0, 0.0], 1.0, [0.0, 1.0]), [0.0, 0.0])
    np.testing.assert_allclose(contact_point_velocity([0, 0, 0], [0, 0, 2.0], [1.0, 0, 0]),
                               [0.0, 2.0, 0.0])
    rng = np.random.default_rng(3)
    lin, ang, off = rng.normal(size=(3, 50, 3))
    np.testing.assert_allclose(contact_point_velocity(lin, ang, off),
                               cross_point_velocity(lin, ang, off), rtol=1e-14, atol=1e-14)
    lin2, off2, ang2 = rng.normal(size=(50, 2)), rng.normal(size=(50, 2)), rng.normal(size=50)
    np.testing.assert_allclose(contact_point_velocity(lin2, ang2, off2),
                               cross_point_velocity(lin2, ang2, off2), rtol=1e-14, atol=1e-14)


def test_contact_point_velocity_out_untouched_whichever_item_overflows():
    """out= is written only once a first pass proved the call succeeds; that
    pass must see every item (37: eight parts and a rest), wherever the
    overflowing one lies."""
    rng = np.random.default_rng(5)
    lin, ang, off = rng.normal(size=(3, 37, 3))
    for i in range(37):
        far = off.copy()
        far[i] = 1e300
        out = np.full((37, 3), 7.0)
        with pytest.raises(OverflowError,
                           match=rf"^contact_point_velocity: .* index \({i},\)"):
            contact_point_velocity(lin, ang * 1e300, far, out=out)
        assert (out == 7.0).all(), i
    out = np.full((37, 3), 7.0)
    assert contact_point_velocity(lin, ang, off, out=out) is out
    np.testing.assert_array_equal(out, contact_point_velocity(lin, ang, off))


@pytest.mark.parametrize("friction", [0.0, 0.4])
def test_bounce_out_untouched_whichever_normal_is_off_unit_length(friction):
    """bounce with out= writes only once a first pass proved every contact
    valid; that pass must see every one (37: eight parts and a rest)."""
    rng = np.random.default_rng(8)
    v, u, n = rng.normal(size=(3, 37, 3))
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    for i in range(37):
        bent = n.copy()
        bent[i] *= 1.001
        out = np.full((37, 3), 7.0)
        with pytest.raises(ValueError, match=rf"^bounce: .* index \({i},\)"):
            bounce(v, u, bent, 0.5, friction=friction, out=out)
        assert (out == 7.0).all(), i
    out = np.full((37, 3), 7.0)
    assert bounce(v, u, n, 0.5, friction=friction, out=out) is out
    np.testing.assert_array_equal(out, bounce(v, u, n, 0.5, friction=friction))


def test_contact_point_velocity_broadcasting_and_out():
    offsets = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    out = np.empty((2, 3, 2))
    got = contact_point_velocity([0.0, 0.0], np.array([[1.0], [2.0]]), offsets, out=out)
    assert got is out
    np.testing.assert_allclose(out[1], [[0, 2], [-2, 0], [0, -2]], atol=1e-15)


def test_ball_off_a_spinning_paddle():
    # A paddle spinning at 3 rad/s about its center; the ball hits 0.5 m out.
    center_velocity, omega, offset = np.array([0.0, 0.0]), 3.0, np.array([0.5, 0.0])
    u = contact_point_velocity(center_velocity, omega, offset)  # (0, 1.5)
    n = np.array([0.0, 1.0])
    v = bounce([0.0, -4.0], u, n, 0.5)
    assert (v - u) @ n == pytest.approx(0.5 * 5.5)
    # Using the center velocity instead forgets the rim's 1.5 m/s.
    assert bounce([0.0, -4.0], center_velocity, n, 0.5)[1] == pytest.approx(2.0)
    assert v[1] == pytest.approx(1.5 + 2.75)


def test_one_moving_wall_is_the_per_contact_result_bit_for_bit():
    # One surface velocity for all contacts (a moving wall) and the same
    # velocity given per contact take different loops; they agree to the bit,
    # at every alignment of the output and with the careful pass on a failure.
    rng = np.random.default_rng(5)
    v, n = rng.normal(0.0, 5.0, (1003, 3)), rng.normal(size=(1003, 3))
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    wall = np.array([2.0, -1.0, 0.5])
    per_contact = np.ascontiguousarray(np.broadcast_to(wall, v.shape))
    for start in range(4):
        got = bounce(v[start:], wall, n[start:], 0.5)
        np.testing.assert_array_equal(got, bounce(v[start:], per_contact[start:], n[start:], 0.5))
        np.testing.assert_allclose(got, bounce_components(v[start:], wall, n[start:], 0.5),
                                   rtol=0, atol=1e-12)
    n[700] *= 1.1
    with pytest.raises(ValueError, match=r"bounce: normal . normal at index \(700,\)"):
        bounce(v, wall, n, 0.5)


# -- friction ---------------------------------------------------------------------------

def test_friction_zero_is_exactly_the_article():
    v, u, n, _, e, _, _, _ = _samples(3, 2000)
    np.testing.assert_array_equal(bounce(v, u, n, e, friction=0.0), bounce(v, u, n, e))
    np.testing.assert_array_equal(bounce(v, u, n, e, friction=np.zeros(2000)), bounce(v, u, n, e))


def test_coulomb_friction_bounds_the_tangential_change():
    # impulse (1 + e)|s| = 4.5, friction 0.1 removes 0.45 of the 4 m/s tangent
    np.testing.assert_allclose(bounce([-3.0, 4.0], [0, 0], [1, 0], 0.5, friction=0.1),
                               [1.5, 3.55], atol=1e-15)
    # a large coefficient stops the tangent, never reverses it
    np.testing.assert_allclose(bounce([-3.0, 4.0], [0, 0], [1, 0], 0.5, friction=10.0),
                               [1.5, 0.0], atol=1e-15)


def test_friction_drags_toward_a_conveyor():
    belt = np.array([0.0, 5.0])
    v = bounce([-3.0, 4.0], belt, [1.0, 0.0], 0.5, friction=10.0)
    np.testing.assert_allclose(v, [1.5, 5.0], atol=1e-15)  # carried at the belt's speed
    v = bounce([-3.0, 4.0], belt, [1.0, 0.0], 0.5, friction=0.1)
    np.testing.assert_allclose(v, [1.5, 4.45], atol=1e-15)


def test_friction_keeps_the_tangent_direction_in_3d():
    rng = np.random.default_rng(4)
    v, u, n, _, e, _, _, _ = _samples(3, 500)
    mu = rng.uniform(0, 2, 500)
    got = bounce(v, u, n, e, friction=mu)
    np.testing.assert_allclose(got, bounce_components(v, u, n, e, mu), rtol=1e-12, atol=1e-11)
    before = (v - u) - np.einsum("ik,ik->i", v - u, n)[:, None] * n
    after = (got - u) - np.einsum("ik,ik->i", got - u, n)[:, None] * n
    length = np.linalg.norm(after, axis=1)
    assert np.all(length <= np.linalg.norm(before, axis=1) + 1e-12)
    moving = length > 1e-9
    assert np.all(np.einsum("ik,ik->i", after[moving], before[moving]) > 0)  # never reversed


def test_friction_leaves_separating_contacts_alone():
    np.testing.assert_array_equal(bounce([3.0, 4.0], [0, 0], [1, 0], 0.5, friction=5.0), [3.0, 4.0])


# -- threshold ------------------------------------------------------------------------------

def test_threshold_switches_restitution_off_for_slow_contacts():
    # approach speed 5 m/s relative to the wall
    np.testing.assert_allclose(bounce([-3.0, 4.0], **WALL, restitution=0.5, threshold=4.0),
                               [4.5, 4.0])
    np.testing.assert_allclose(bounce([-3.0, 4.0], **WALL, restitution=0.5, threshold=6.0),
                               [2.0, 4.0])
    # "exceeds": at exactly the threshold the contact is inelastic
    np.testing.assert_allclose(bounce([-3.0, 4.0], **WALL, restitution=0.5, threshold=5.0),
                               [2.0, 4.0])


def test_threshold_zero_is_exactly_the_article_and_friction_uses_effective_e():
    v, u, n, _, e, _, _, _ = _samples(2, 1000)
    np.testing.assert_array_equal(bounce(v, u, n, e, threshold=0.0), bounce(v, u, n, e))
    # below the threshold the normal impulse is |s| (e' = 0): friction 0.1 takes 0.3
    np.testing.assert_allclose(
        bounce([-3.0, 4.0], [0, 0], [1, 0], 0.5, friction=0.1, threshold=10.0), [0.0, 3.7])


def test_threshold_and_friction_against_reference():
    rng = np.random.default_rng(5)
    v, u, n, _, e, _, _, _ = _samples(3, 2000)
    mu, thr = rng.uniform(0, 1, 2000), rng.uniform(0, 15, 2000)
    np.testing.assert_allclose(bounce(v, u, n, e, friction=mu, threshold=thr),
                               bounce_components(v, u, n, e, mu, thr), rtol=1e-12, atol=1e-11)


# -- arrays: broadcasting, dtypes, layout, out= --------------------------------------------

def test_broadcast_one_wall_many_projectiles():
    v = np.array([[-3.0, 4.0], [1.0, 4.0], [5.0, 0.0]])
    got = bounce(v, [2.0, 0.0], [1.0, 0.0], [[0.5], [0.0]])
    assert got.shape == (2, 3, 2)
    np.testing.assert_allclose(got[0], [[4.5, 4.0], [2.5, 4.0], [5.0, 0.0]])
    np.testing.assert_allclose(got[1], [[2.0, 4.0], [2.0, 4.0], [5.0, 0.0]])


@given(st.data())
def test_broadcasting_matches_reference(data):
    dim = data.draw(st.sampled_from([2, 3]))
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=6, max_dims=3, min_side=0,
                                                         max_side=3))
    lead = shapes.input_shapes
    floats = st.floats(-50, 50)
    v = data.draw(hnp.arrays(np.float64, lead[0] + (dim,), elements=floats))
    u = data.draw(hnp.arrays(np.float64, lead[1] + (dim,), elements=floats))
    raw = data.draw(hnp.arrays(np.float64, lead[2] + (dim,), elements=st.floats(0.1, 1)))
    n = raw / np.sqrt(np.sum(raw * raw, axis=-1, keepdims=True))
    e = data.draw(hnp.arrays(np.float64, lead[3], elements=st.floats(0, 1)))
    mu = data.draw(hnp.arrays(np.float64, lead[4], elements=st.floats(0, 2)))
    thr = data.draw(hnp.arrays(np.float64, lead[5], elements=st.floats(0, 5)))
    got = bounce(v, u, n, e, friction=mu, threshold=thr)
    assert got.shape == shapes.result_shape + (dim,)
    np.testing.assert_allclose(got, bounce_components(v, u, n, e, mu, thr), rtol=1e-9, atol=1e-9)


@given(st.sampled_from([np.float32, np.float64, np.int64]), st.integers(0, 6))
def test_dtypes_and_views(dtype, count):
    rng = np.random.default_rng(count)
    v = (rng.normal(size=(count, 4)) * 10).astype(dtype)[:, ::2]   # non-contiguous (count, 2)
    got = bounce(v, [1, 0], np.tile([[0.0, 1.0]], (count, 1))[::-1], 0.5)
    expected = bounce(np.ascontiguousarray(v, dtype=np.float64), [1.0, 0.0], [0.0, 1.0], 0.5)
    np.testing.assert_array_equal(got, expected.reshape(count, 2))


def test_empty_in_empty_out():
    assert bounce(np.empty((0, 3)), [0, 0, 0], [0, 0, 1], 0.5).shape == (0, 3)
    assert contact_point_velocity(np.empty((0, 2)), np.empty(0), [1.0, 0.0]).shape == (0, 2)


def test_result_is_out_and_input_not_modified():
    v = np.array([[-3.0, 4.0], [1.0, 4.0]])
    keep = v.copy()
    out = np.empty((2, 2))
    got = bounce(v, [2.0, 0.0], [1.0, 0.0], 0.5, out=out)
    assert got is out
    np.testing.assert_allclose(out, [[4.5, 4.0], [2.5, 4.0]])
    np.testing.assert_array_equal(v, keep)
    bounce(v, [2.0, 0.0], [1.0, 0.0], 0.5, out=v)  # out may alias an input
    np.testing.assert_allclose(v, [[4.5, 4.0], [2.5, 4.0]])


def test_out_untouched_on_error():
    out = np.full((3, 2), -7.0)
    with pytest.raises(ValueError, match=r"bounce: restitution at index \(2,\) is 1.5"):
        bounce([[-3.0, 4.0]] * 3, [2.0, 0.0], [1.0, 0.0], [0.5, 0.5, 1.5], out=out)
    np.testing.assert_array_equal(out, -7.0)
    # v' = 2 u - v = 3e308
    with pytest.raises(OverflowError, match=r"bounce: result at index \(0,\) is inf"):
        bounce([[-1e308, 0.0]] * 3, [1e308, 0.0], [1.0, 0.0], 1.0, out=out)
    np.testing.assert_array_equal(out, -7.0)


@pytest.mark.parametrize("out, match", [
    (np.empty(2), r"bounce: out\[0\] has shape \(2,\), expected \(1, 2\)"),
    (np.empty((1, 2), dtype=int), r"out\[0\] has dtype int64"),
    ([[0.0, 0.0]], r"out must be a tuple of 1 arrays"),
])
def test_bad_out(out, match):
    with pytest.raises(ValueError, match=match):
        bounce([[-3.0, 4.0]], [2.0, 0.0], [1.0, 0.0], 0.5, out=out)


# -- every bad-input branch of bounce ---------------------------------------------------------

S = 0.5 ** 0.5


@pytest.mark.parametrize("args, kwargs, exc, match", [
    (([np.nan, 4], [2, 0], [1, 0], 0.5), {}, ValueError,
     r"bounce: velocity is nan \(must be finite\)"),
    (([-3, 4], [2, np.inf], [1, 0], 0.5), {}, ValueError,
     r"bounce: surface_velocity is inf \(must be finite\)"),
    (([-3, 4], [2, 0], [np.nan, 0], 0.5), {}, ValueError,
     r"bounce: normal is nan \(must be finite\)"),
    (([-3, 4], [2, 0], [1, 0], np.nan), {}, ValueError,
     r"bounce: restitution is nan \(must be finite\)"),
    (([-3, 4], [2, 0], [1, 0], -0.1), {}, ValueError,
     r"bounce: restitution is -0.1 \(must lie in \[0, 1\]\)"),
    (([-3, 4], [2, 0], [1, 0], 1.1), {}, ValueError,
     r"bounce: restitution is 1.1 \(must lie in \[0, 1\]\)"),
    (([-3, 4], [2, 0], [1, 1e-5], 0.5), {}, ValueError,
     r"bounce: normal \. normal is 1.0000000001 \(must lie within 1e-12 of 1"),
    (([-3, 4], [2, 0], [2, 0], 0.5), {}, ValueError, r"normal \. normal is 4.0"),
    (([[-3, 4]] * 3, [2, 0], [[1, 0], [0, 1], [0, 0]], 0.5), {}, ValueError,
     r"bounce: normal \. normal at index \(2,\) is 0.0"),
    (([-3, 4], [2, 0], [1, 0], 0.5), {"friction": -1.0}, ValueError,
     r"bounce: friction is -1.0 \(must be >= 0\)"),
    (([-3, 4], [2, 0], [1, 0], 0.5), {"friction": np.inf}, ValueError,
     r"bounce: friction is inf \(must be finite\)"),
    (([-3, 4], [2, 0], [1, 0], 0.5), {"threshold": -2.0}, ValueError,
     r"bounce: threshold is -2.0 \(must be >= 0\)"),
    (([-3, 4], [2, 0], [1, 0], 0.5), {"threshold": np.nan}, ValueError,
     r"bounce: threshold is nan \(must be finite\)"),
    (([-1e308, 0], [1e308, 0], [1, 0], 1.0), {}, OverflowError,
     r"bounce: result is inf \(is not representable although the inputs are finite\)"),
    (([-3, 4, 0, 1], [2, 0, 0, 0], [1, 0, 0, 0], 0.5), {}, ValueError,
     r"bounce: velocity must have shape \(\.\.\., 2\) or \(\.\.\., 3\), got shape \(4,\)"),
    ((3.0, [2, 0], [1, 0], 0.5), {}, ValueError, r"velocity must have shape .* got shape \(\)"),
    (([-3, 4], [2, 0, 0], [1, 0], 0.5), {}, ValueError,
     r"bounce: surface_velocity has 3 components, and velocity has 2 \(the vectors must "
     r"all be 2-D or all 3-D\)"),
    (([[-3, 4]] * 3, [2, 0], [1, 0], [0.5, 0.5]), {}, ValueError,
     r"bounce: cannot broadcast the leading axes of .*velocity \(3,\).*restitution \(2,\)"),
    (([-3, 4], [2, 0], [1, 0], "x"), {}, ValueError, r"bounce: restitution must be real numbers"),
])
def test_bounce_bad_input(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        bounce(*args, **kwargs)


def test_unit_tolerance_is_1e_12():
    bounce([-3, 4], [2, 0], [1 + 4e-13, 0], 0.5)  # n.n - 1 = 8e-13: accepted
    with pytest.raises(ValueError, match=r"normal \. normal"):
        bounce([-3, 4], [2, 0], [1 + 6e-13, 0], 0.5)


def test_tangential_speed_beyond_1e154_with_friction():
    # |w_t|^2 overflows; the length is still found, and the result is exact.
    v = bounce([-1.0, 1e200], [0.0, 0.0], [1.0, 0.0], 1.0, friction=0.5)
    np.testing.assert_allclose(v, [1.0, 1e200])
    v = bounce([-1e199, 1e200], [0.0, 0.0], [1.0, 0.0], 1.0, friction=0.5)
    np.testing.assert_allclose(v, [1e199, 1e200 - 1e199])


@pytest.mark.parametrize("args, exc, match", [
    (([np.nan, 0], 1.0, [1, 0]), ValueError, r"contact_point_velocity: linear_velocity is nan"),
    (([0, 0], np.inf, [1, 0]), ValueError, r"contact_point_velocity: angular_velocity is inf"),
    (([0, 0], 1.0, [[1, 0], [np.nan, 0]]), ValueError, r"contact_point_velocity: offset at index \(1,\) is nan"),
    (([0, 0], 1e308, [1e10, 0]), OverflowError, r"contact_point_velocity: result is inf"),
    (([0, 0, 0], 1.0, [1, 0, 0]), ValueError, r"angular_velocity must have shape \(\.\.\., 3\) in 3-D"),
    (([0, 0, 0], [1.0, 0, 0], [1, 0]), ValueError, r"offset has 2 components, and linear_velocity has 3"),
])
def test_contact_point_velocity_bad_input(args, exc, match):
    with pytest.raises(exc, match=match):
        contact_point_velocity(*args)


# -- advance_projectiles ------------------------------------------------------------------------

def _one(position, velocity, radius, dt, point, normal, plane_velocity, e, **kw):
    r = advance_projectiles([position], [velocity], radius, dt, [point], [normal],
                            [plane_velocity], e, **kw)
    return r.position[0], r.velocity[0], int(r.bounces[0])


def test_single_bounce_static_wall():
    p, v, b = _one([0.0, 0.0], [-10.0, 1.0], 0.5, 1.0, [-3.0, 0.0], [1.0, 0.0], [0.0, 0.0], 1.0)
    # contact at x = -2.5 after 0.25 s, then 0.75 s at (+10, 1)
    np.testing.assert_allclose(p, [5.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(v, [10.0, 1.0])
    assert b == 1


def test_single_bounce_moving_wall():
    # The wall at x = -3 moves right at 2 m/s; the sphere flies left at 10 m/s.
    p, v, b = _one([0.0, 0.0], [-10.0, 0.0], 0.5, 1.0, [-3.0, 0.0], [1.0, 0.0], [2.0, 0.0], 0.5)
    t_hit = 2.5 / 12.0
    v_after = 2.0 + 0.5 * 12.0  # the article's law: relative +6 m/s
    x_hit = -10.0 * t_hit
    np.testing.assert_allclose(v, [v_after, 0.0], atol=1e-12)
    np.testing.assert_allclose(p, [x_hit + v_after * (1.0 - t_hit), 0.0], atol=1e-12)
    assert b == 1
    # the wall-frame distance at the end is radius + the relative escape
    wall_x = -3.0 + 2.0 * 1.0
    assert p[0] - wall_x == pytest.approx(0.5 + 6.0 * (1.0 - t_hit))


def test_friction_and_restitution_per_plane():
    r = advance_projectiles([[0.0, 0.0], [0.0, 0.0]], [[-10.0, 4.0], [10.0, 4.0]], 0.0, 0.15,
                            [[-1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [-1.0, 0.0]], [0.0, 0.0],
                            [1.0, 0.5], friction=[0.0, 0.1])
    np.testing.assert_allclose(r.velocity, [[10.0, 4.0], [-5.0, 4.0 - 0.1 * 15.0]])
    np.testing.assert_array_equal(r.bounces, [1, 1])


def test_two_approaching_walls_against_small_steps():
    # Walls at x = -1 and x = +1 closing at 0.5 m/s each; spheres between them.
    rng = np.random.default_rng(7)
    n = 60
    pos = np.column_stack([rng.uniform(-0.5, 0.5, n), rng.uniform(-1, 1, n)])
    vel = np.column_stack([rng.uniform(-8, 8, n), rng.uniform(-2, 2, n)])
    planes = ([[-1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [-1.0, 0.0]], [[0.5, 0.0], [-0.5, 0.0]])
    got = advance_projectiles(pos, vel, 0.1, 0.5, *planes, 0.9)
    ref_p, ref_v, ref_b = small_step_projectiles(pos, vel, 0.1, 0.5, *planes, 0.9,
                                                 substeps=20000)
    np.testing.assert_array_equal(got.bounces, ref_b)
    np.testing.assert_allclose(got.velocity, ref_v, rtol=0, atol=1e-9)
    np.testing.assert_allclose(got.position, ref_p, rtol=0, atol=5e-3)
    # nobody left the shrinking gap
    assert np.all(np.abs(got.position[:, 0]) <= 0.75 - 0.1 + 1e-12)
    # each bounce off an approaching wall adds 2 * 0.9-ish to the speed
    assert np.all(np.abs(got.velocity[:, 0]) >= np.abs(vel[:, 0]) * 0.9 ** ref_b - 1e-12)


def test_box_with_moving_walls_and_friction_against_small_steps():
    rng = np.random.default_rng(8)
    n = 80
    pos = rng.uniform(-0.8, 0.8, (n, 3))
    vel = rng.normal(0, 4, (n, 3))
    s = 0.5 ** 0.5
    normal = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [s, 0, s]])
    point = np.array([[-1, 0, 0], [1, 0, 0], [0, -1, 0], [0, 1, 0], [0, 0, -1], [0, 0, -1.2]])
    plane_velocity = np.zeros((6, 3))
    plane_velocity[1] = (-1.0, 0.3, 0.0)
    plane_velocity[4] = (0.0, 0.0, 0.5)
    got = advance_projectiles(pos, vel, 0.05, 0.25, point, normal, plane_velocity, 0.7,
                              friction=0.2)
    ref_p, ref_v, ref_b = small_step_projectiles(pos, vel, 0.05, 0.25, point, normal,
                                                 plane_velocity, 0.7, friction=0.2,
                                                 substeps=10000)
    same = got.bounces == ref_b
    assert same.mean() > 0.95  # near-simultaneous contacts may be taken in either order
    np.testing.assert_allclose(got.position[same], ref_p[same], rtol=0, atol=1e-2)
    np.testing.assert_allclose(got.velocity[same], ref_v[same], rtol=0, atol=1e-2)
    assert got.bounces.max() >= 2


def test_corner_two_planes_in_one_step():
    r = advance_projectiles([[0.0, 0.0]], [[-10.0, -10.0]], 0.0, 1.0,
                            [[-1.0, 0.0], [0.0, -2.0]], [[1.0, 0.0], [0.0, 1.0]],
                            [0.0, 0.0], 1.0)
    # x hits at t = 0.1, y at t = 0.2: both flipped
    np.testing.assert_allclose(r.position[0], [-1.0 + 10.0 * 0.9, -2.0 + 10.0 * 0.8],
                               atol=1e-12)
    np.testing.assert_allclose(r.velocity[0], [10.0, 10.0])
    assert r.bounces[0] == 2


def test_corner_exact_diagonal_hits_both_at_once():
    r = advance_projectiles([[0.0, 0.0]], [[-10.0, -10.0]], 0.0, 1.0,
                            [[-1.0, 0.0], [0.0, -1.0]], [[1.0, 0.0], [0.0, 1.0]],
                            [0.0, 0.0], 1.0)
    np.testing.assert_allclose(r.position[0], [8.0, 8.0], atol=1e-12)
    np.testing.assert_allclose(r.velocity[0], [10.0, 10.0])
    assert r.bounces[0] == 2


@pytest.mark.parametrize("speed", [1e3, 1e6, 1e9, 1e12])
def test_very_fast_spheres_never_tunnel(speed):
    rng = np.random.default_rng(9)
    direction = rng.normal(size=(200, 2))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    pos = rng.uniform(-0.5, 0.5, (200, 2))
    normal = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    point = -normal  # the box [-1, 1]^2
    r = advance_projectiles(pos, direction * speed, 0.1, 1.0, point, normal, [0.0, 0.0], 1.0,
                            max_bounces=8)
    dist = r.position @ normal.T + 1.0
    assert np.all(dist >= 0.1 - 1e-9 * max(1.0, speed * 1e-6))
    assert np.all(np.isfinite(r.position))
    # speeds are preserved by e = 1 (while bounces last)
    np.testing.assert_allclose(np.linalg.norm(r.velocity, axis=1), speed, rtol=1e-12)


def test_single_very_fast_sphere_against_one_wall():
    p, v, b = _one([0.0, 0.0], [-1e15, 0.0], 0.5, 1.0, [-1.0, 0.0], [1.0, 0.0], [0.0, 0.0], 0.5)
    assert b == 1 and v[0] == 5e14
    assert p[0] >= -0.5


def test_max_bounces_exhausted_stops_at_the_contact():
    # Parallel walls 2 m apart, a point at 1000 m/s: hundreds of contacts per step.
    normal = [[1.0, 0.0], [-1.0, 0.0]]
    point = [[-1.0, 0.0], [1.0, 0.0]]
    r = advance_projectiles([[0.0, 0.0]], [[1000.0, 0.0]], 0.0, 1.0, point, normal,
                            [0.0, 0.0], 1.0, max_bounces=3)
    # contacts at x = 1, -1, 1 resolved; the 4th, at x = -1, is where it stops
    np.testing.assert_allclose(r.position[0], [-1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(r.velocity[0], [-1000.0, 0.0])  # left unresolved
    assert r.bounces[0] == 3
    # the next step resolves it at once
    r2 = advance_projectiles(r.position, r.velocity, 0.0, 0.0, point, normal, [0.0, 0.0], 1.0)
    np.testing.assert_allclose(r2.velocity[0], [1000.0, 0.0])
    assert r2.bounces[0] == 1


def test_max_bounces_zero_and_exhausted_against_a_moving_wall():
    p, v, b = _one([0.0, 0.0], [-10.0, 0.0], 0.0, 1.0, [-1.0, 0.0], [1.0, 0.0], [0.5, 0.0], 1.0,
                   max_bounces=0)
    # contact at t = 1/10.5, then carried by the wall for the rest of the step
    np.testing.assert_allclose(p, [-1.0 + 0.5 * 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(v, [-10.0, 0.0])
    assert b == 0


def test_wedge_closing_in_runs_out_of_bounces_without_crossing():
    normal = [[1.0, 0.0], [-1.0, 0.0]]
    point = [[-1.0, 0.0], [1.0, 0.0]]
    velocity = [[1.0, 0.0], [-1.0, 0.0]]  # they would meet at t = 1
    r = advance_projectiles([[0.0, 0.0]], [[3.0, 0.0]], 0.0, 0.9, point, normal, velocity, 1.0,
                            max_bounces=50)
    gap_left, gap_right = r.position[0, 0] - (-0.1), 0.1 - r.position[0, 0]
    assert gap_left >= -1e-12 and gap_right >= -1e-12


def test_spheres_already_touching():
    wall = ([[0.0, 0.0]], [[1.0, 0.0]], [[0.0, 0.0]])
    r = advance_projectiles([[0.5, 0.0], [0.5, 0.0], [0.3, 0.0], [-0.2, 0.0]],
                            [[-1.0, 2.0], [1.0, 2.0], [-1.0, 0.0], [-1.0, 0.0]],
                            0.5, 1.0, *wall, 0.5)
    # touching and approaching: bounced at t = 0
    np.testing.assert_allclose(r.velocity[0], [0.5, 2.0])
    np.testing.assert_allclose(r.position[0], [1.0, 2.0])
    # touching and leaving: untouched
    np.testing.assert_allclose(r.position[1], [1.5, 2.0])
    # penetrating with the center in front: bounced at once, not pushed out
    np.testing.assert_allclose(r.velocity[2], [0.5, 0.0])
    np.testing.assert_allclose(r.position[2], [0.8, 0.0])
    # center behind the plane: one-sided, ignored
    np.testing.assert_allclose(r.position[3], [-1.2, 0.0])
    np.testing.assert_array_equal(r.bounces, [1, 0, 1, 0])


def test_sliding_along_a_plane_is_not_a_contact():
    s = 0.5 ** 0.5
    n = np.array([s, s])
    rng = np.random.default_rng(10)
    along = np.array([-s, s]) * rng.uniform(-5, 5, (100, 1))
    start = n * 0.25 + np.array([-s, s]) * rng.uniform(-1, 1, (100, 1))
    r = advance_projectiles(start, along, 0.25, 1.0, [0.0, 0.0], n, [0.0, 0.0], 0.0,
                            max_bounces=0)
    np.testing.assert_allclose(r.position, start + along, atol=1e-12)
    np.testing.assert_array_equal(r.bounces, 0)
    # e = 0 against a wall: one contact, then it slides
    r = advance_projectiles([[0.0, 1.0]], [[-3.0, 2.0]], 0.5, 1.0, [[-1.0, 0.0]], [[1.0, 0.0]],
                            [0.0, 0.0], 0.0)
    np.testing.assert_allclose(r.velocity[0], [0.0, 2.0])
    np.testing.assert_allclose(r.position[0], [-0.5, 3.0], atol=1e-12)
    assert r.bounces[0] == 1


def test_zero_dt():
    pos = np.array([[0.0, 0.0], [0.0, 3.0]])
    vel = np.array([[-10.0, 1.0], [5.0, 5.0]])
    r = advance_projectiles(pos, vel, 0.5, 0.0, [-3.0, 0.0], [1.0, 0.0], [0.0, 0.0], 1.0)
    np.testing.assert_array_equal(r.position, pos)
    np.testing.assert_array_equal(r.velocity, vel)
    np.testing.assert_array_equal(r.bounces, [0, 0])


def test_no_planes_and_no_spheres():
    r = advance_projectiles([[1.0, 2.0, 3.0]], [[1.0, 1.0, 1.0]], 0.1, 2.0,
                            np.empty((0, 3)), np.empty((0, 3)), np.empty((0, 3)), 0.5)
    np.testing.assert_allclose(r.position, [[3.0, 4.0, 5.0]])
    r = advance_projectiles(np.empty((0, 2)), np.empty((0, 2)), 0.1, 1.0, [0.0, 0.0],
                            [1.0, 0.0], [0.0, 0.0], 0.5)
    assert r.position.shape == (0, 2) and r.bounces.shape == (0,)


def test_inputs_not_modified_and_per_sphere_parameters():
    pos = np.array([[0.0, 0.0], [0.0, 0.0]])
    vel = np.array([[-10.0, 0.0], [-10.0, 0.0]])
    keep = pos.copy(), vel.copy()
    r = advance_projectiles(pos, vel, [0.5, 0.0], [1.0, 0.5], [-3.0, 0.0], [1.0, 0.0],
                            [0.0, 0.0], [[1.0], [0.0]])
    np.testing.assert_array_equal(pos, keep[0])
    np.testing.assert_array_equal(vel, keep[1])
    np.testing.assert_allclose(r.position, [[5.0, 0.0], [-3.0, 0.0]])
    np.testing.assert_allclose(r.velocity, [[10.0, 0.0], [0.0, 0.0]])
    assert r.position.flags.c_contiguous and r.position is not pos


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(position=[[np.nan, 0.0]]), ValueError,
     r"advance_projectiles: position at index \(0,\) is nan \(must be finite\)"),
    (dict(velocity=[[0.0, np.inf]]), ValueError, r"velocity at index \(0,\) is inf"),
    (dict(radius=-1.0), ValueError, r"radius at index \(0,\) is -1.0 \(must be >= 0\)"),
    (dict(radius=np.nan), ValueError, r"radius at index \(0,\) is nan \(must be finite\)"),
    (dict(dt=-0.5), ValueError, r"dt at index \(0,\) is -0.5 \(must be >= 0\)"),
    (dict(dt=np.inf), ValueError, r"dt at index \(0,\) is inf"),
    (dict(plane_point=[[0.0, 0.0], [np.nan, 0.0]]), ValueError,
     r"advance_projectiles: plane_point at index \(1,\) is nan"),
    (dict(plane_normal=[[1.0, 0.0], [np.inf, 0.0]]), ValueError, r"plane_normal at index \(1,\) is inf"),
    (dict(plane_normal=[[1.0, 0.0], [1.0, 1.0]]), ValueError,
     r"plane_normal \. plane_normal at index \(1,\) is 2.0 \(must lie within 1e-12 of 1"),
    (dict(plane_velocity=[[0.0, 0.0], [0.0, np.nan]]), ValueError, r"plane_velocity at index \(1,\) is nan"),
    (dict(restitution=[0.5, 1.5]), ValueError,
     r"advance_projectiles: restitution at index \(0, 1\) is 1.5 \(must lie in \[0, 1\]\)"),
    (dict(restitution=-0.5), ValueError, r"restitution at index \(0, 0\) is -0.5"),
    (dict(friction=[[0.0, -1.0]]), ValueError, r"friction at index \(0, 1\) is -1.0 \(must be >= 0\)"),
    (dict(max_bounces=-1), ValueError, r"advance_projectiles: max_bounces is -1 \(must be >= 0\)"),
    (dict(max_bounces=1.5), ValueError, r"max_bounces must be an integer"),
    (dict(max_bounces=4097), ValueError,
     r"advance_projectiles: max_bounces is 4097 \(must lie in \[0, 4096\]\)"),
    (dict(max_bounces=10**9), ValueError, r"max_bounces is 1000000000 \(must lie in"),
    (dict(position=[[0.0, 0.0, 0.0]], velocity=[[0.0, 0.0, 0.0]]), ValueError,
     r"plane_point has 2 components, and position has 3"),
    (dict(plane_point=np.zeros((2, 2, 2))), ValueError, r"planes must have shape \(M, 2\)"),
    (dict(restitution=[0.5, 0.5, 0.5]), ValueError, r"restitution of shape \(3,\) does not broadcast"),
    (dict(position=[[1e308, 0.0]], velocity=[[1e308, 0.0]]), OverflowError,
     r"advance_projectiles: position at index \(0,\) is inf"),
    (dict(position=[[1e308, 0.0]], plane_point=[[-1e308, 0.0], [1.0, 0.0]]), OverflowError,
     r"advance_projectiles: position at index \(0,\) is 1e\+308 \(is too far from a plane"),
])
def test_advance_bad_input(kwargs, exc, match):
    args = dict(position=[[0.0, 0.0]], velocity=[[1.0, 0.0]], radius=0.1, dt=1.0,
                plane_point=[[-1.0, 0.0], [1.0, 0.0]], plane_normal=[[1.0, 0.0], [-1.0, 0.0]],
                plane_velocity=[[0.0, 0.0], [0.0, 0.0]], restitution=0.5)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        advance_projectiles(**args)


def test_demo_lines():
    from animcore import demo
    lines = demo.contact_lines()
    assert "(4.5,4) | naive world reflection: (1.5,4)" in lines[0]
    assert "(2.5,4)" in lines[1] and "12.5 J -> 18.125 J" in lines[1]
    assert "x=-0.9 after 8 bounces" in lines[2]


def _spheres_between_walls(shape):
    rng = np.random.default_rng(21)
    args = dict(position=rng.uniform(-0.5, 0.5, shape + (2,)),
                velocity=rng.normal(0.0, 1.0, shape + (2,)), radius=np.full(shape, 0.1),
                dt=0.3, plane_point=[[-1.0, 0.0], [1.0, 0.0], [0.0, -1.0]],
                plane_normal=np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]]),
                plane_velocity=[0.0, 0.0], restitution=np.full(shape + (3,), 0.5))
    return args


@pytest.mark.parametrize("shape, workers", [((2, 3), None), ((5000,), None), ((5000,), 2)])
@pytest.mark.parametrize("name, at, value, match", [
    ("radius", (-1,), -1.0, r"radius at index {sphere} is -1.0 \(must be >= 0\)"),
    ("velocity", (-1, 0), np.nan, r"velocity at index {sphere} is nan \(must be finite\)"),
    ("plane_normal", (2,), [0.0, 2.0], r"plane_normal \. plane_normal at index \(2,\) is 4.0"),
    ("restitution", (-1, 1), 1.5, r"restitution at index {pair} is 1.5 \(must lie in"),
])
def test_advance_errors_name_the_sphere_the_plane_or_the_pair(shape, workers, name, at, value,
                                                              match):
    # the last sphere but one (in a later block and thread for 5,000 spheres)
    args = _spheres_between_walls(shape)
    sphere = np.unravel_index(int(np.prod(shape)) - 2, shape)
    where = at if name == "plane_normal" else sphere + at[1:]
    args[name][where] = value
    text = match.format(sphere=re.escape(str(tuple(int(k) for k in sphere))),
                        pair=re.escape(str(tuple(int(k) for k in sphere) + (1,))))
    with pytest.raises(ValueError, match=r"^advance_projectiles: " + text):
        advance_projectiles(**args, workers=workers)


_BAD = {"radius": (-1.0, r"radius at index \({0},\) is -1.0"),
        "dt": (np.inf, r"dt at index \({0},\) is inf"),
        "restitution": (2.0, r"restitution at index \({0}, 1\) is 2.0"),
        "friction": (-1.0, r"friction at index \({0}, 1\) is -1.0"),
        "inverse_inertia": (-3.0, r"inverse_inertia at index \({0},\) is -3.0")}


@pytest.mark.parametrize("workers", [None, 2])
@pytest.mark.parametrize("first, later", [("restitution", "radius"), ("inverse_inertia", "dt"),
                                          ("friction", "restitution"),
                                          ("inverse_inertia", "friction")])
def test_advance_reports_the_first_bad_sphere_whatever_its_kind(first, later, workers):
    args = _spheres_between_walls((5000,))
    args.update(friction=np.zeros((5000, 3)), inverse_inertia=np.full(5000, 2.0),
                dt=np.full(5000, 0.3))
    # the later one in the same block of spheres on one thread (in another chunk on two)
    for name, sphere in ((first, 70), (later, 1000)):
        where = (sphere, 1) if args[name].ndim == 2 else sphere
        args[name][where] = _BAD[name][0]
    with pytest.raises(ValueError, match="^advance_projectiles: " + _BAD[first][1].format(70)):
        advance_projectiles(**args, workers=workers)


def test_advance_sphere_shapes_and_pair_parameters():
    rng = np.random.default_rng(11)
    pos = rng.uniform(-0.5, 0.5, (2, 3, 2))
    vel = rng.normal(0, 5, (2, 3, 2))
    point = [[-1.0, 0.0], [1.0, 0.0], [0.0, -1.0]]
    normal = [[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]]
    e = rng.uniform(0, 1, (2, 3, 3))     # one per (sphere, plane) pair
    mu = rng.uniform(0, 1, (3,))         # one per plane
    radius = rng.uniform(0, 0.2, (3,))   # broadcasts over the sphere axes
    got = advance_projectiles(pos, vel, radius, 0.3, point, normal, [0.0, 0.0], e, friction=mu)
    assert got.position.shape == (2, 3, 2) and got.bounces.shape == (2, 3)
    flat = advance_projectiles(pos.reshape(6, 2), vel.reshape(6, 2), np.tile(radius, 2), 0.3,
                               point, normal, [0.0, 0.0], e.reshape(6, 3), friction=mu)
    np.testing.assert_array_equal(got.position.reshape(6, 2), flat.position)
    np.testing.assert_array_equal(got.velocity.reshape(6, 2), flat.velocity)
    # one sphere at a time gives the same answers
    for i in range(6):
        one = advance_projectiles(pos.reshape(6, 2)[i], vel.reshape(6, 2)[i],
                                  np.tile(radius, 2)[i], 0.3, point, normal, [0.0, 0.0],
                                  e.reshape(6, 3)[i], friction=mu)
        np.testing.assert_array_equal(one.position, flat.position[i])
        assert one.bounces == flat.bounces[i]


def test_advance_many_spheres_cross_block_boundaries():
    # more spheres than one internal block, with a per-sphere restitution
    rng = np.random.default_rng(12)
    n = 1000
    pos = rng.uniform(-0.9, 0.9, (n, 3))
    vel = rng.normal(0, 10, (n, 3))
    e = rng.uniform(0, 1, (n, 1))
    normal = np.vstack([np.eye(3), -np.eye(3)])
    point = -normal
    got = advance_projectiles(pos, vel, 0.05, 0.4, point, normal, np.zeros(3), e)
    for i in rng.choice(n, 25, replace=False):
        one = advance_projectiles(pos[i], vel[i], 0.05, 0.4, point, normal, np.zeros(3), e[i])
        np.testing.assert_array_equal(one.position, got.position[i])
        np.testing.assert_array_equal(one.velocity, got.velocity[i])
    assert np.all(np.abs(got.position) <= 0.95 + 1e-12)


def test_advance_many_shared_planes_wider_than_a_block():
    # 1,506 planes (4,518 values, more than one block of scratch holds) shared
    # by 3,000 spheres: the box's six walls and far planes no sphere reaches
    rng = np.random.default_rng(13)
    n, far = 3000, 1500
    pos = rng.uniform(-0.9, 0.9, (n, 3))
    vel = rng.normal(0, 10, (n, 3))
    away = rng.normal(size=(far, 3))
    away /= np.linalg.norm(away, axis=1, keepdims=True)
    normal = np.vstack([np.eye(3), -np.eye(3), away])
    point = np.vstack([-np.eye(3), np.eye(3), -1000.0 * away])
    got = advance_projectiles(pos, vel, 0.05, 0.4, point, normal, np.zeros(3), 0.7)
    box = advance_projectiles(pos, vel, 0.05, 0.4, point[:6], normal[:6], np.zeros(3), 0.7)
    np.testing.assert_array_equal(got.bounces, box.bounces)
    for i in rng.choice(n, 10, replace=False):
        one = advance_projectiles(pos[i], vel[i], 0.05, 0.4, point, normal, np.zeros(3), 0.7)
        np.testing.assert_array_equal(one.position, got.position[i])
        np.testing.assert_array_equal(one.velocity, got.velocity[i])
    np.testing.assert_allclose(got.position, box.position, rtol=0, atol=1e-12)


def test_contact_point_velocity_out_untouched_on_error():
    out = np.full((2, 2), 3.0)
    with pytest.raises(ValueError, match=r"angular_velocity at index \(1,\) is nan"):
        contact_point_velocity([0.0, 0.0], [1.0, np.nan], [1.0, 0.0], out=out)
    np.testing.assert_array_equal(out, 3.0)


@pytest.mark.parametrize("count", [1, 3, 5, 8, 16, 1001, 150_001])  # lanes of 8, and the rest
def test_batch_layout_agrees_bitwise_with_the_general_loop(count):
    rng = np.random.default_rng(count)
    v = rng.normal(0, 10, (count, 3))
    u = rng.normal(0, 3, (count, 3))
    n = rng.normal(size=(count, 3))
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    # the law's edges on axis normals: approach speed exactly the threshold,
    # just above it, sliding (s = +0 and -0), separating, signed zeros
    edges = [([-2.0, 1.0, 0.0], [0.0, 0.0, 0.0]), ([-2.5, 1.0, 0.0], [-0.5, 0.0, 0.0]),
             ([-2.0 - 2**-51, 0.0, 3.0], [0.0, 0.0, 0.0]), ([0.0, 4.0, -1.0], [0.0, 0.0, 0.0]),
             ([-0.0, 4.0, -1.0], [0.0, 0.0, 0.0]), ([1.0, -0.0, 0.0], [2.0, 0.0, 0.0]),
             ([5.0, 1.0, 1.0], [1.0, 0.0, 0.0]), ([-0.0, -0.0, -0.0], [0.0, 0.0, 0.0])]
    for i, (vi, ui) in zip(range(0, count, 3), edges):
        v[i], u[i], n[i] = vi, ui, [1.0, 0.0, 0.0]
    fast = bounce(v, u, n, 0.7, threshold=2.0)    # one restitution and threshold
    slow = bounce(v, u, n, np.full(count, 0.7), threshold=np.full(count, 2.0))
    np.testing.assert_array_equal(fast, slow)
    np.testing.assert_array_equal(fast.view(np.uint64), slow.view(np.uint64))  # signs of 0
    np.testing.assert_allclose(fast, bounce_components(v, u, n, 0.7, threshold=2.0),
                               rtol=1e-13, atol=1e-13)
    n[count // 2] *= 1.0 + 1e-9
    with pytest.raises(ValueError, match=rf"normal \. normal at index \({count // 2},\)"):
        bounce(v, u, n, 0.7)


@pytest.mark.parametrize("count", [9, 16])  # with and without elements past the lanes
def test_shared_parameters_are_checked_on_large_batches(count):
    v = np.tile([[-3.0, 4.0, 0.0]], (count, 1))
    with pytest.raises(ValueError, match=r"bounce: restitution at index \(0,\) is 1.5"):
        bounce(v, [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], 1.5)
    with pytest.raises(ValueError, match=r"bounce: threshold at index \(0,\) is -1.0"):
        bounce(v, [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], 0.5, threshold=-1.0)
    with pytest.raises(ValueError, match=r"bounce: threshold at index \(0,\) is -1.0"):
        bounce(v, np.zeros((count, 3)), np.tile([1.0, 0.0, 0.0], (count, 1)), 0.5,
               threshold=-1.0)
    with pytest.raises(ValueError, match=r"bounce: restitution at index \(0,\) is nan"):
        bounce(v, np.zeros((count, 3)), np.tile([1.0, 0.0, 0.0], (count, 1)), np.nan)


@given(st.integers(0, 2**32 - 1), st.sampled_from([2, 3]), st.floats(1e-3, 1e4))
def test_no_tunnelling_property(seed, dim, speed):
    # A random convex cell (a rotated box, some walls moving out) and random
    # spheres inside it: every sphere ends at least its radius inside.
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.normal(size=(dim, dim)))
    normal = np.vstack([q, -q])
    point = -normal * rng.uniform(1.0, 2.0, (2 * dim, 1))
    plane_velocity = -normal * rng.uniform(0, 1, (2 * dim, 1))   # moving outwards or still
    n = 40
    radius = rng.uniform(0, 0.2, n)
    pos = rng.uniform(-0.3, 0.3, (n, dim))
    vel = rng.normal(size=(n, dim)) * speed
    e = rng.uniform(0, 1, n)[:, None]
    r = advance_projectiles(pos, vel, radius, 0.5, point, normal, plane_velocity, e,
                            friction=rng.uniform(0, 1), max_bounces=4096)
    q_end = point + plane_velocity * 0.5
    dist = np.einsum("ik,jk->ij", r.position, normal) - np.sum(q_end * normal, axis=1)
    slack = 1e-9 * (1 + speed)
    assert np.all(dist >= radius[:, None] - slack)


# -- collide: two moving rigid bodies ----------------------------------------------------------

from animcore import Body, Collision, collide  # noqa: E402

from reference import rigid_contacts  # noqa: E402


def _random_tensors(rng, count, spread=1.0):
    """World inverse inertia tensors R diag R^T, symmetrized."""
    q, _ = np.linalg.qr(rng.normal(size=(count, 3, 3)))
    diag = rng.uniform(0.2, 3.0, (count, 3)) * spread
    t = np.einsum("nij,nj,nkj->nik", q, diag, q)
    return 0.5 * (t + np.swapaxes(t, 1, 2))


def _scene(dim, count=300, seed=20, tensor=False, centred=False):
    """Random approaching and separating contacts between two dynamic bodies.
    `centred`: both arms along the normal (discs, spheres)."""
    rng = np.random.default_rng(seed)
    n = rng.normal(size=(count, dim))
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    p = rng.uniform(-2, 2, (count, dim))
    spin = (lambda: rng.normal(0, 2, count)) if dim == 2 else (lambda: rng.normal(0, 2, (count, 3)))
    if centred:
        ca = p + n * rng.uniform(0.2, 1.5, (count, 1))
        cb = p - n * rng.uniform(0.2, 1.5, (count, 1))
    else:
        ca, cb = p + rng.normal(0, 1, (count, dim)), p + rng.normal(0, 1, (count, dim))
    if tensor and dim == 3:
        ia, ib = _random_tensors(rng, count), _random_tensors(rng, count)
    else:
        ia, ib = rng.uniform(0.1, 3.0, count), rng.uniform(0.1, 3.0, count)
    a = dict(v=rng.normal(0, 5, (count, dim)), w=spin(), m=rng.uniform(0.1, 2.0, count), I=ia, c=ca)
    b = dict(v=rng.normal(0, 5, (count, dim)), w=spin(), m=rng.uniform(0.1, 2.0, count), I=ib, c=cb)
    e = rng.uniform(0, 1, count)
    return a, b, n, p, e


def _bodies(a, b):
    return (Body(a["v"], a["m"], a["I"], a["w"], a["c"]),
            Body(b["v"], b["m"], b["I"], b["w"], b["c"]))


def _relative(dim, r, a, b, p):
    """Relative contact velocity after the contact, from a collide result."""
    from reference import cross_point_velocity
    ua = cross_point_velocity(r.velocity_a, r.angular_velocity_a, p - a["c"])
    ub = cross_point_velocity(r.velocity_b, r.angular_velocity_b, p - b["c"])
    return ua - ub


def _before(a, b, p):
    from reference import cross_point_velocity
    return cross_point_velocity(a["v"], a["w"], p - a["c"]) - cross_point_velocity(b["v"], b["w"], p - b["c"])


@pytest.mark.parametrize("dim, tensor, centred, mu", [
    (2, False, False, 0.0), (2, False, False, 0.3), (2, False, False, 5.0),
    (3, False, False, 0.0), (3, False, True, 0.3), (3, False, False, 0.3),
    (3, False, True, 5.0), (3, True, False, 0.0), (3, True, False, 0.3)])
def test_collide_against_the_impulse_system(dim, tensor, centred, mu):
    a, b, n, p, e = _scene(dim, 200 if dim == 2 else 100, seed=21 + dim, tensor=tensor,
                           centred=centred)
    got = collide(*_bodies(a, b), n, p, e, friction=mu, threshold=0.5)
    want = rigid_contacts(a, b, n, p, e, mu, 0.5)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-9)


def test_collide_3d_off_centre_tensor_friction_law():
    # Anisotropic, off-centre, slipping: restitution exact, |j_t| = mu j_n,
    # and friction exactly opposite the slip that remains.
    a, b, n, p, e = _scene(3, 300, seed=30, tensor=True)
    mu = 0.2
    r = collide(*_bodies(a, b), n, p, e, friction=mu)
    w0, w1 = _before(a, b, p), _relative(3, r, a, b, p)
    s0 = np.einsum("ik,ik->i", w0, n)
    approach = s0 < 0
    np.testing.assert_allclose(np.einsum("ik,ik->i", w1, n)[approach], -e[approach] * s0[approach],
                               atol=1e-10)
    jt = np.linalg.norm(r.tangent_impulse, axis=1)
    wt1 = w1 - np.einsum("ik,ik->i", w1, n)[:, None] * n
    slips = approach & (np.linalg.norm(wt1, axis=1) > 1e-9)
    assert slips.sum() > 100
    np.testing.assert_allclose(jt[slips], mu * r.normal_impulse[slips], rtol=1e-12)
    sticks = approach & ~slips
    assert np.all(jt[sticks] <= mu * r.normal_impulse[sticks] * (1 + 1e-12))
    cos = np.einsum("ik,ik->i", r.tangent_impulse[slips], wt1[slips]) / (
        jt[slips] * np.linalg.norm(wt1[slips], axis=1))
    np.testing.assert_allclose(cos, -1.0, atol=1e-12)


@pytest.mark.parametrize("dim", [2, 3])
def test_collide_point_mass_against_kinematic_is_bounce_bit_for_bit(dim):
    rng = np.random.default_rng(40 + dim)
    count = 2000
    v, u, n, _, e, _, _, _ = _samples(dim, count, seed=41)
    p = rng.normal(size=(count, dim))
    cb = p + rng.normal(size=(count, dim))
    wb = rng.normal(size=count) if dim == 2 else rng.normal(size=(count, 3))
    mu, thr = rng.uniform(0, 1, count), rng.uniform(0, 5, count)
    ma = rng.uniform(0.1, 3, count)
    surface = contact_point_velocity(u, wb, p - cb)
    for kwargs in ({}, dict(friction=mu, threshold=thr)):
        r = collide(Body(v, ma, center=rng.normal(size=(count, dim))), Body(u, 0.0, 0.0, wb, cb),
                    n, p, e, **kwargs)
        expected = bounce(v, surface, n, e, **kwargs)
        np.testing.assert_array_equal(r.velocity_a.view(np.uint64), expected.view(np.uint64))
        np.testing.assert_array_equal(r.velocity_b, np.broadcast_to(u, (count, dim)))
        np.testing.assert_array_equal(r.angular_velocity_b, wb)
        np.testing.assert_allclose(ma[:, None] * (r.normal_impulse[:, None] * n + r.tangent_impulse),
                                   expected - v, rtol=1e-12, atol=1e-12)
    # the general law, a hair away from the point mass, agrees to rounding
    r = collide(Body(v, ma, 1e-300, center=p), Body(u, 0.0, 0.0, wb, cb), n, p, e, friction=mu)
    np.testing.assert_allclose(r.velocity_a, bounce(v, surface, n, e, friction=mu), rtol=1e-12,
                               atol=1e-11)


@pytest.mark.parametrize("dim, tensor", [(2, False), (3, False), (3, True)])
def test_collide_conserves_momentum_and_angular_momentum_about_the_point(dim, tensor):
    a, b, n, p, e = _scene(dim, 300, seed=50, tensor=tensor)
    r = collide(*_bodies(a, b), n, p, e, friction=0.4)
    ma, mb = 1 / a["m"][:, None], 1 / b["m"][:, None]
    momentum0 = ma * a["v"] + mb * b["v"]
    momentum1 = ma * r.velocity_a + mb * r.velocity_b
    scale = np.abs(momentum0).max()
    np.testing.assert_allclose(momentum1, momentum0, rtol=0, atol=1e-12 * scale)

    def angular(v, w, m, inv_i, c):
        arm = c - p   # center relative to the contact point
        if dim == 2:
            return w / inv_i + m[:, 0] * (arm[:, 0] * v[:, 1] - arm[:, 1] * v[:, 0])
        spin = np.linalg.solve(inv_i, w[..., None])[..., 0] if tensor else w / inv_i[:, None]
        return spin + m * np.cross(arm, v)
    l0 = angular(a["v"], a["w"], ma, a["I"], a["c"]) + angular(b["v"], b["w"], mb, b["I"], b["c"])
    l1 = (angular(r.velocity_a, r.angular_velocity_a, ma, a["I"], a["c"])
          + angular(r.velocity_b, r.angular_velocity_b, mb, b["I"], b["c"]))
    np.testing.assert_allclose(l1, l0, rtol=0, atol=1e-11 * np.abs(l0).max())


@pytest.mark.parametrize("dim, tensor", [(2, False), (3, True)])
def test_collide_restitution_law_at_the_contact_point(dim, tensor):
    a, b, n, p, e = _scene(dim, 400, seed=60, tensor=tensor)
    for mu, thr in ((0.0, 0.0), (0.7, 0.0), (0.3, 2.0)):
        r = collide(*_bodies(a, b), n, p, e, friction=mu, threshold=thr)
        w0, w1 = _before(a, b, p), _relative(dim, r, a, b, p)
        s0, s1 = np.einsum("ik,ik->i", w0, n), np.einsum("ik,ik->i", w1, n)
        approach = s0 < 0
        assert 100 < approach.sum() < 400
        e_eff = np.where(-s0 > thr, e, 0.0)
        np.testing.assert_allclose(s1[approach], -e_eff[approach] * s0[approach], rtol=0,
                                   atol=1e-12 * 50)
        assert np.all(r.normal_impulse[approach] > 0)
        # separating contacts: nothing happens
        assert np.all(r.normal_impulse[~approach] == 0)
        np.testing.assert_array_equal(r.velocity_a[~approach], a["v"][~approach])
        np.testing.assert_array_equal(r.angular_velocity_b[~approach], b["w"][~approach])


@pytest.mark.parametrize("dim, centred, tensor", [(2, False, False), (3, True, False),
                                                  (3, False, True)])
def test_collide_friction_sticks_slips_and_never_reverses(dim, centred, tensor):
    a, b, n, p, e = _scene(dim, 400, seed=70, centred=centred, tensor=tensor)
    w0 = _before(a, b, p)
    s0 = np.einsum("ik,ik->i", w0, n)
    wt0 = w0 - s0[:, None] * n
    approach = s0 < 0
    for mu in (0.05, 0.3, 1.0, 100.0):
        r = collide(*_bodies(a, b), n, p, e, friction=mu)
        w1 = _relative(dim, r, a, b, p)
        wt1 = w1 - np.einsum("ik,ik->i", w1, n)[:, None] * n
        slip = np.linalg.norm(wt1, axis=1)
        jt = np.linalg.norm(r.tangent_impulse, axis=1)
        assert np.all(jt <= mu * r.normal_impulse * (1 + 1e-12) + 1e-15)
        sliding = approach & (slip > 1e-9)
        # slipping: the bound is reached, friction opposes the remaining slip
        np.testing.assert_allclose(jt[sliding], mu * r.normal_impulse[sliding], rtol=1e-10)
        cos = np.einsum("ik,ik->i", r.tangent_impulse[sliding], wt1[sliding]) / (jt * slip)[sliding]
        np.testing.assert_allclose(cos, -1.0, atol=1e-9)
        if centred:  # isotropic: the slip keeps its direction, never reversed
            assert np.all(np.einsum("ik,ik->i", wt1[sliding], wt0[sliding]) > 0)
        # friction never reverses the slip the contact would leave without it
        # (off-centre arms couple the normal impulse into the slip)
        free = _relative(dim, collide(*_bodies(a, b), n, p, e), a, b, p)
        wt_free = free - np.einsum("ik,ik->i", free, n)[:, None] * n
        assert np.all(np.einsum("ik,ik->i", wt1[sliding], wt_free[sliding]) > 0)
        assert np.all(slip[approach] <= np.linalg.norm(wt_free, axis=1)[approach] + 1e-12)
        # sticks wherever the impulse that stops the slip is within the bound
        # (that impulse does not depend on the coefficient)
        stick = collide(*_bodies(a, b), n, p, e, friction=1e12)
        ratio = np.divide(np.linalg.norm(stick.tangent_impulse, axis=1), stick.normal_impulse,
                          out=np.full(len(n), np.inf), where=approach)
        allowed = approach & (ratio < mu * (1 - 1e-9))
        assert allowed.sum() > 0 and not np.any(sliding & allowed)
        np.testing.assert_allclose(wt1[allowed], 0.0, atol=1e-10)
        for got, want in zip(r, stick):
            np.testing.assert_allclose(got[allowed], want[allowed], rtol=1e-12, atol=1e-12)
        assert np.all(ratio[sliding] > mu * (1 - 1e-9))


def _kinetic(dim, v, w, m, inv_i):
    linear = 0.5 * np.einsum("ik,ik->i", v, v) / m
    if dim == 2:
        return linear + 0.5 * w * w / inv_i
    if inv_i.ndim == 3:
        return linear + 0.5 * np.einsum("ik,ik->i", w, np.linalg.solve(inv_i, w[..., None])[..., 0])
    return linear + 0.5 * np.einsum("ik,ik->i", w, w) / inv_i


@pytest.mark.parametrize("dim, tensor", [(2, False), (3, False), (3, True)])
def test_collide_energy_never_rises_frictionless_or_centred(dim, tensor):
    for centred, mu in ((False, 0.0), (True, 0.0), (True, 0.5), (True, 100.0)):
        a, b, n, p, e = _scene(dim, 400, seed=80, tensor=tensor and not centred, centred=centred)
        r = collide(*_bodies(a, b), n, p, e, friction=mu)
        before = _kinetic(dim, a["v"], a["w"], a["m"], a["I"]) + _kinetic(dim, b["v"], b["w"], b["m"], b["I"])
        after = (_kinetic(dim, r.velocity_a, r.angular_velocity_a, a["m"], a["I"])
                 + _kinetic(dim, r.velocity_b, r.angular_velocity_b, b["m"], b["I"]))
        assert np.all(after <= before * (1 + 1e-12))
        # e = 1 and no friction: energy kept
    a, b, n, p, _ = _scene(dim, 200, seed=81, tensor=tensor)
    r = collide(*_bodies(a, b), n, p, 1.0)
    before = _kinetic(dim, a["v"], a["w"], a["m"], a["I"]) + _kinetic(dim, b["v"], b["w"], b["m"], b["I"])
    after = (_kinetic(dim, r.velocity_a, r.angular_velocity_a, a["m"], a["I"])
             + _kinetic(dim, r.velocity_b, r.angular_velocity_b, b["m"], b["I"]))
    np.testing.assert_allclose(after, before, rtol=1e-11)


def test_collide_off_centre_friction_can_gain_energy():
    # Newton's restitution on the normal speed after friction: a documented
    # gain for off-centre frictional contacts (Bullet's solver shows the same)
    a, b, n, p, e = _scene(2, 2000, seed=90)
    r = collide(*_bodies(a, b), n, p, 1.0, friction=0.8)
    before = _kinetic(2, a["v"], a["w"], a["m"], a["I"]) + _kinetic(2, b["v"], b["w"], b["m"], b["I"])
    after = (_kinetic(2, r.velocity_a, r.angular_velocity_a, a["m"], a["I"])
             + _kinetic(2, r.velocity_b, r.angular_velocity_b, b["m"], b["I"]))
    gain = after - before
    assert gain.max() > 1e-3 * before[gain.argmax()]
    # inelastic and sticking: never a gain
    sticky = collide(*_bodies(a, b), n, p, 0.0, friction=1e9)
    after = (_kinetic(2, sticky.velocity_a, sticky.angular_velocity_a, a["m"], a["I"])
             + _kinetic(2, sticky.velocity_b, sticky.angular_velocity_b, b["m"], b["I"]))
    assert np.all(after <= before * (1 + 1e-12))
    # and the same contacts, frictionless, never gain
    r0 = collide(*_bodies(a, b), n, p, 1.0)
    after0 = (_kinetic(2, r0.velocity_a, r0.angular_velocity_a, a["m"], a["I"])
              + _kinetic(2, r0.velocity_b, r0.angular_velocity_b, b["m"], b["I"]))
    np.testing.assert_allclose(after0, before, rtol=1e-11)


@pytest.mark.parametrize("dim, tensor", [(2, False), (3, True)])
def test_collide_frame_boost_invariance(dim, tensor):
    a, b, n, p, e = _scene(dim, 300, seed=100, tensor=tensor)
    boost = np.array([17.0, -23.0, 5.5])[:dim]
    base = collide(*_bodies(a, b), n, p, e, friction=0.4, threshold=1.0)
    a2, b2 = dict(a, v=a["v"] + boost), dict(b, v=b["v"] + boost)
    moved = collide(*_bodies(a2, b2), n, p, e, friction=0.4, threshold=1.0)
    np.testing.assert_allclose(moved.velocity_a - boost, base.velocity_a, atol=1e-11)
    np.testing.assert_allclose(moved.velocity_b - boost, base.velocity_b, atol=1e-11)
    np.testing.assert_allclose(moved.angular_velocity_a, base.angular_velocity_a, atol=1e-11)
    np.testing.assert_allclose(moved.normal_impulse, base.normal_impulse, atol=1e-11)
    np.testing.assert_allclose(moved.tangent_impulse, base.tangent_impulse, atol=1e-11)
    # translating the whole scene changes nothing either
    shift = np.array([100.0, -40.0, 3.0])[:dim]
    a3, b3 = dict(a, c=a["c"] + shift), dict(b, c=b["c"] + shift)
    shifted = collide(*_bodies(a3, b3), n, p + shift, e, friction=0.4, threshold=1.0)
    np.testing.assert_allclose(shifted.velocity_a, base.velocity_a, atol=1e-10)


def test_collide_equal_discs_exchange_velocities_and_different_masses():
    r = collide(Body([-1.0, 0.0], 1.0, center=[0.5, 0.0]), Body([1.0, 0.0], 1.0, center=[-0.5, 0.0]),
                [1.0, 0.0], [0.0, 0.0], 1.0)
    np.testing.assert_array_equal(r.velocity_a, [1.0, 0.0])
    np.testing.assert_array_equal(r.velocity_b, [-1.0, 0.0])
    assert r.normal_impulse == 2.0
    # 1 kg at -2 m/s hits 3 kg at rest, e = 1: textbook 1-D elastic result
    r = collide(Body([-2.0, 0.0, 0.0], 1.0), Body([0.0, 0.0, 0.0], 1 / 3), [1.0, 0.0, 0.0],
                [0.0, 0.0, 0.0], 1.0)
    np.testing.assert_allclose(r.velocity_a, [1.0, 0.0, 0.0], rtol=1e-15)
    np.testing.assert_allclose(r.velocity_b, [-1.0, 0.0, 0.0], rtol=1e-15)


def test_collide_ball_starts_to_roll():
    # A solid sphere (I = 2/5 m R^2) sliding at 3 m/s lands on the ground with
    # enough friction: it leaves rolling, v = 5/7 of the slide, omega = -v / R
    radius = 0.5
    r = collide(Body([3.0, -1.0, 0.0], 1.0, 2.5 / radius**2, center=[0.0, radius, 0.0]),
                Body([0.0, 0.0, 0.0]), [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], 0.0, friction=1.0)
    np.testing.assert_allclose(r.velocity_a, [15 / 7, 0.0, 0.0], rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(r.angular_velocity_a, [0.0, 0.0, -15 / 7 / radius], rtol=1e-14)
    # a disc in 2-D: 2/3 of the slide
    r = collide(Body([3.0, -1.0], 1.0, 2.0 / radius**2, center=[0.0, radius]), Body([0.0, 0.0]),
                [0.0, 1.0], [0.0, 0.0], 0.0, friction=1.0)
    np.testing.assert_allclose(r.velocity_a, [2.0, 0.0], rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(r.angular_velocity_a, -2.0 / radius, rtol=1e-14)


def test_collide_driven_kinematic_body_and_static_pair():
    # a kinematic paddle spinning about its center: it keeps its motion, and
    # the ball's energy may rise (the paddle is driven from outside)
    r = collide(Body([0.0, -4.0], 1.0, 2.0 / 0.1**2, center=[0.5, 0.1]),
                Body([0.0, 0.0], 0.0, 0.0, 3.0, [0.0, 0.0]), [0.0, 1.0], [0.5, 0.0], 1.0,
                friction=0.3)
    assert r.angular_velocity_b == 3.0 and np.all(r.velocity_b == 0.0)
    # (by hand) the rim moves at 3 * 0.5 = 1.5 m/s up, the ball arrives at 5.5 m/s
    # relative and leaves at 1.5 + 5.5 = 7 m/s (no slip: the arm is along n)
    np.testing.assert_allclose(r.velocity_a, [0.0, 7.0], rtol=0, atol=1e-12)
    assert r.normal_impulse == pytest.approx(11.0, rel=1e-14)
    # two kinematic bodies: nothing moves, no impulse
    r = collide(Body([1.0, 0.0]), Body([-1.0, 0.0]), [1.0, 0.0], [0.0, 0.0], 0.5)
    assert r.normal_impulse == 0.0 and r.velocity_a[0] == 1.0 and r.velocity_b[0] == -1.0
    # pinned wheels (no translation, free rotation): frictionless. Approaching
    # and slipping, (1, -1) relative at the point: arms (1, -1) and (-1, 0) give
    # n.K.n = 1 + 1, so j = 2 * 1 / 2 = 1 and the spins become 1 + 1, -2 + 1 (by hand)
    r = collide(Body([0.0, 0.0], 0.0, 1.0, 1.0, [0.0, 1.0]), Body([0.0, 0.0], 0.0, 1.0, -2.0, [2.0, 0.0]),
                [0.0, 1.0], [1.0, 0.0], 1.0, friction=1.0)
    np.testing.assert_array_equal(r.tangent_impulse, 0.0)
    assert r.normal_impulse == pytest.approx(1.0, rel=1e-14)
    assert r.angular_velocity_a == pytest.approx(2.0, rel=1e-14)
    assert r.angular_velocity_b == pytest.approx(-1.0, rel=1e-14)
    np.testing.assert_array_equal(np.r_[r.velocity_a, r.velocity_b], 0.0)


@settings(max_examples=25)
@given(st.data())
def test_collide_broadcasting_matches_one_at_a_time(data):
    dim = data.draw(st.sampled_from([2, 3]))
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=4, max_dims=2, min_side=0,
                                                         max_side=3))
    lead = shapes.input_shapes
    floats = st.floats(-10, 10)
    va = data.draw(hnp.arrays(np.float64, lead[0] + (dim,), elements=floats))
    vb = data.draw(hnp.arrays(np.float64, lead[1] + (dim,), elements=floats))
    ma = data.draw(hnp.arrays(np.float64, lead[2], elements=st.floats(0, 3)))
    e = data.draw(hnp.arrays(np.float64, lead[3], elements=st.floats(0, 1)))
    n = np.eye(dim)[1]
    got = collide(Body(va, ma, 0.5, None, -n), Body(vb, 1.0, 0.5, None, n), n, np.zeros(dim), e,
                  friction=0.3)
    shape = shapes.result_shape
    assert got.velocity_a.shape == shape + (dim,) and got.normal_impulse.shape == shape
    assert got.angular_velocity_a.shape == (shape if dim == 2 else shape + (3,))
    full = [np.broadcast_to(x, shape + x.shape[len(l):]) for x, l in
            ((va, lead[0]), (vb, lead[1]), (ma, lead[2]), (e, lead[3]))]
    for idx in np.ndindex(*shape):
        one = collide(Body(full[0][idx], full[2][idx], 0.5, None, -n), Body(full[1][idx], 1.0, 0.5, None, n),
                      n, np.zeros(dim), full[3][idx], friction=0.3)
        np.testing.assert_array_equal(got.velocity_a[idx], one.velocity_a)
        np.testing.assert_array_equal(got.tangent_impulse[idx], one.tangent_impulse)


def test_collide_dtypes_views_tuples_and_empty():
    v = (np.arange(12.0).reshape(3, 4) - 6)[:, ::2]     # non-contiguous (3, 2)
    got = collide((v.astype(np.float32), 1), {"velocity": [0, 0], "inverse_mass": 2},
                  [0, 1], [0, 0], 1)
    want = collide(Body(np.ascontiguousarray(v.astype(np.float32), dtype=float), 1.0),
                   Body([0.0, 0.0], 2.0), [0.0, 1.0], [0.0, 0.0], 1.0)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    empty = collide(Body(np.empty((0, 3)), 1.0), Body([0.0, 0.0, 0.0]), [0, 0, 1.0], [0, 0, 0.0], 0.5)
    assert empty.velocity_a.shape == (0, 3) and empty.normal_impulse.shape == (0,)
    assert empty.angular_velocity_a.shape == (0, 3)


def test_collide_result_is_out_and_untouched_on_error():
    a = Body([[-3.0, 4.0], [1.0, 4.0]], 1.0, 1.0, 0.0, [0.0, 1.0])
    b = Body([2.0, 0.0], 0.5, 1.0, 0.0, [0.0, -1.0])
    out = tuple(np.full(s, -7.0) for s in ((2, 2), (2,), (2, 2), (2,), (2,), (2, 2)))
    got = collide(a, b, [0.0, 1.0], [0.0, 0.0], 0.5, out=out)
    assert all(g is o for g, o in zip(got, out))
    want = collide(a, b, [0.0, 1.0], [0.0, 0.0], 0.5)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    out = tuple(np.full(s, -7.0) for s in ((2, 2), (2,), (2, 2), (2,), (2,), (2, 2)))
    with pytest.raises(ValueError, match=r"collide: restitution at index \(1,\) is 1.5"):
        collide(a, b, [0.0, 1.0], [0.0, 0.0], [0.5, 1.5], out=out)
    assert all(np.all(o == -7.0) for o in out)
    with pytest.raises(ValueError, match=r"collide: out\[1\] has shape \(2, 2\), expected \(2,\)"):
        collide(a, b, [0.0, 1.0], [0.0, 0.0], 0.5, out=(out[0],) * 6)
    with pytest.raises(ValueError, match=r"collide: out must be a tuple of 6 arrays"):
        collide(a, b, [0.0, 1.0], [0.0, 0.0], 0.5, out=out[0])


def _sym(*rows):
    return np.array(rows, dtype=float)


GOOD_A = dict(velocity=[-1.0, 0.0, 0.0], inverse_mass=1.0, inverse_inertia=1.0,
              angular_velocity=[0.0, 0.0, 0.0], center=[1.0, 0.0, 0.0])
GOOD_B = dict(velocity=[1.0, 0.0, 0.0], inverse_mass=1.0, inverse_inertia=1.0,
              angular_velocity=[0.0, 0.0, 0.0], center=[-1.0, 0.0, 0.0])


@pytest.mark.parametrize("a, b, contact, exc, match", [
    (dict(velocity=[np.nan, 0, 0]), {}, {}, ValueError,
     r"collide: a.velocity is nan \(must be finite\)"),
    (dict(angular_velocity=[0, np.inf, 0]), {}, {}, ValueError,
     r"collide: a.angular_velocity is inf \(must be finite\)"),
    (dict(inverse_mass=-1.0), {}, {}, ValueError,
     r"collide: a.inverse_mass is -1.0 \(must be >= 0\)"),
    (dict(inverse_mass=np.inf), {}, {}, ValueError, r"a.inverse_mass is inf"),
    (dict(inverse_inertia=-0.5), {}, {}, ValueError,
     r"collide: a.inverse_inertia is -0.5 \(must be >= 0\)"),
    (dict(inverse_inertia=_sym([1, 0, 0], [0, np.nan, 0], [0, 0, 1])), {}, {}, ValueError,
     r"a.inverse_inertia is nan \(must be finite\)"),
    (dict(inverse_inertia=_sym([1, 0, 0], [0, -1, 0], [0, 0, 1])), {}, {}, ValueError,
     r"a.inverse_inertia is -1.0 \(is a diagonal entry: must be >= 0"),
    (dict(inverse_inertia=_sym([1, 0.5, 0], [0, 1, 0], [0, 0, 1])), {}, {}, ValueError,
     r"a.inverse_inertia is 0.5 \(is T\[0\]\[1\] - T\[1\]\[0\]: the tensor must be symmetric"),
    (dict(inverse_inertia=_sym([1, 2, 0], [2, 1, 0], [0, 0, 1])), {}, {}, ValueError,
     r"a.inverse_inertia is -3.0 \(is a principal minor .*positive semi-definite"),
    (dict(inverse_inertia=_sym([0, 1, 0], [1, 0, 0], [0, 0, 0])), {}, {}, ValueError,
     r"a.inverse_inertia is 1.0 \(is off the zero diagonal"),
    (dict(center=[0, 0, np.nan]), {}, {}, ValueError, r"collide: a.center is nan"),
    ({}, dict(velocity=[0, 0, np.inf]), {}, ValueError, r"collide: b.velocity is inf"),
    ({}, dict(inverse_mass=-2.0), {}, ValueError, r"collide: b.inverse_mass is -2.0"),
    ({}, dict(inverse_inertia=_sym([1, 0, 0], [0, 1, 0], [0, 0, -1e-3])), {}, ValueError,
     r"collide: b.inverse_inertia is -0.001"),
    ({}, dict(center=[np.nan, 0, 0]), {}, ValueError, r"collide: b.center is nan"),
    ({}, {}, dict(normal=[np.nan, 0, 0]), ValueError, r"collide: normal is nan"),
    ({}, {}, dict(point=[0, np.inf, 0]), ValueError, r"collide: point is inf"),
    ({}, {}, dict(restitution=1.5), ValueError,
     r"collide: restitution is 1.5 \(must lie in \[0, 1\]\)"),
    ({}, {}, dict(restitution=np.nan), ValueError, r"collide: restitution is nan"),
    ({}, {}, dict(normal=[1, 1e-5, 0]), ValueError,
     r"collide: normal \. normal is 1.0000000001 \(must lie within 1e-12 of 1"),
    ({}, {}, dict(friction=-0.1), ValueError, r"collide: friction is -0.1 \(must be >= 0\)"),
    ({}, {}, dict(threshold=-1.0), ValueError, r"collide: threshold is -1.0 \(must be >= 0\)"),
    ({}, {}, dict(threshold=np.inf), ValueError, r"collide: threshold is inf \(must be finite\)"),
    (dict(velocity=[-1e308, 0, 0], inverse_inertia=0.0),  # a kinematic b: 3e308 after
     dict(velocity=[1e308, 0, 0], inverse_mass=0.0, inverse_inertia=0.0),
     dict(restitution=1.0), OverflowError,
     r"collide: velocity_a is inf \(is not representable although the inputs are finite\)"),
    (dict(inverse_mass=1e-308, inverse_inertia=0.0),  # j = 3 / 1e-308 kg m/s
     dict(inverse_mass=0.0, inverse_inertia=0.0), {}, OverflowError,
     r"collide: normal_impulse is inf \(is not representable"),
    (dict(angular_velocity=1.0), {}, {}, ValueError,
     r"collide: a.angular_velocity must have shape \(\.\.\., 3\) in 3-D, got shape \(\)"),
    (dict(center=[0.0, 0.0]), {}, {}, ValueError, r"collide: a.center has 2 components, and a.velocity has 3"),
    (dict(velocity=[[-1.0, 0, 0]] * 3), {}, dict(restitution=[0.5, 0.5]), ValueError,
     r"collide: cannot broadcast the leading axes of .*a.velocity \(3,\).*restitution \(2,\)"),
    (dict(inverse_mass="heavy"), {}, {}, ValueError, r"collide: a.inverse_mass must be real numbers"),
])
def test_collide_bad_input(a, b, contact, exc, match):
    args = dict(normal=[1.0, 0.0, 0.0], point=[0.0, 0.0, 0.0], restitution=0.5)
    args.update(contact)
    with pytest.raises(exc, match=match):
        collide(Body(**dict(GOOD_A, **a)), Body(**dict(GOOD_B, **b)), **args)


def test_collide_error_index_and_not_a_body():
    with pytest.raises(ValueError, match=r"collide: b.inverse_mass at index \(1, 0\) is -1.0"):
        collide(Body([[[-1.0, 0.0]]] * 2, 1.0), Body([1.0, 0.0], [[0.5], [-1.0]]), [1.0, 0.0],
                [0.0, 0.0], 0.5)
    with pytest.raises(ValueError, match=r"collide: a must be a Body .* got list"):
        collide([1.0, 0.0], Body([0.0, 0.0]), [1.0, 0.0], [0.0, 0.0], 0.5)


# -- collide against pymunk (Chipmunk2D) and pybullet (Bullet) ----------------------------------

import json  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402

DATA = pathlib.Path(__file__).parent / "data"


def _engine_contact(record):
    """collide's arguments for a contact an engine resolved, and the engine's
    velocities after it. a is the ball. The engines' arms run from each body's
    center to that body's own contact point; b's center is moved by the gap
    between the two points so that its arm is the engine's. Restitution and
    friction combine as both engines do: the product of the two materials'."""
    ball, other = record["ball"], record["other"]
    normal = np.array(record["normal"])
    mine, theirs = ("point_a", "point_b") if record["a"] == "ball" else ("point_b", "point_a")
    if record["normal_from"] == "a to b" and record["a"] == "ball":
        normal = -normal   # collide's normal points from b to the ball
    point, point_other = np.array(record[mine]), np.array(record[theirs])
    before = record["before"]
    bodies = [Body(before[name]["velocity"], record[name]["inverse_mass"],
                   record[name]["inverse_moment"], before[name]["angular_velocity"],
                   np.array(before[name]["center"]) + shift)
              for name, shift in (("ball", 0.0), ("other", point - point_other))]
    e = ball["restitution"] * other["restitution"]
    mu = min(ball["friction"] * other["friction"], 10.0)   # Bullet clamps at 10
    return bodies, normal, point, e, mu


def _compare_with_engine(records, atol):
    worst = 0.0
    for record in records:
        (a, b), normal, point, e, mu = _engine_contact(record)
        r = collide(a, b, normal, point, e, friction=mu)
        for name, velocity, spin in (("ball", r.velocity_a, r.angular_velocity_a),
                                     ("other", r.velocity_b, r.angular_velocity_b)):
            after = record[name]["after"]
            scale = 1.0 + np.abs(after["velocity"]).max()
            np.testing.assert_allclose(velocity, after["velocity"], rtol=0, atol=atol * scale,
                                       err_msg=f"{record['scene']}: {name}")
            np.testing.assert_allclose(spin, after["angular_velocity"], rtol=0, atol=atol * scale,
                                       err_msg=f"{record['scene']}: {name}")
            worst = max(worst, np.abs(velocity - after["velocity"]).max() / scale)
    return worst


def _fixture(name):
    return json.loads((DATA / f"contact_{name}.json").read_text())


def test_collide_matches_pymunk_fixtures(capsys):
    data = _fixture("pymunk")
    assert {r["scene"] for r in data["records"]} == {"static box", "translating box",
                                                      "rotating box", "two balls"}
    worst = _compare_with_engine(data["records"], 1e-9)
    with capsys.disabled():
        print(f"\ncollide vs pymunk {data['version']} (Chipmunk {data['chipmunk'][:5]}), "
              f"{len(data['records'])} contacts: worst velocity error {worst:.2g}")


def test_collide_matches_pybullet_fixtures(capsys):
    data = _fixture("pybullet")
    assert {r["scene"] for r in data["records"]} == {"static box", "translating box",
                                                      "rotating box", "two balls"}
    worst = _compare_with_engine(data["records"], 1e-9)
    with capsys.disabled():
        print(f"\ncollide vs pybullet {data['package_version']}, {len(data['records'])} "
              f"contacts: worst velocity error {worst:.2g}")


def test_point_mass_bounce_misses_the_spinning_ball():
    # the kinematic-surface law without the ball's inertia misses most of the
    # frictional contacts with a static box
    records = [r for r in _fixture("pybullet")["records"] if r["scene"] == "static box"]
    misses = 0
    for record in records:
        (a, b), normal, point, e, mu = _engine_contact(record)
        v = bounce(a.velocity, [0.0, 0.0, 0.0], normal, e, friction=mu)
        misses += not np.allclose(v, record["ball"]["after"]["velocity"], atol=1e-6)
    assert misses > len(records) // 2


def _live(tool):
    pytest.importorskip(tool, reason=f"{tool} is not installed (fixtures under tests/data are "
                                     f"used instead)")
    sys.path.insert(0, str(DATA))
    try:
        import make_contact_fixtures
    finally:
        sys.path.remove(str(DATA))
    return make_contact_fixtures


def test_collide_matches_pymunk_live():
    records = _live("pymunk").pymunk_records(count=3, seed=11)["records"]
    _compare_with_engine(records, 1e-9)


def test_collide_matches_pybullet_live():
    records = _live("pybullet").pybullet_records(count=3, seed=12)["records"]
    _compare_with_engine(records, 1e-9)


# -- advance_projectiles: spin and events -------------------------------------------------------

def test_advance_ball_lands_and_rolls():
    # a solid ball (default inverse inertia 2.5 / r^2) lands sliding at 3 m/s on
    # a rough floor: it leaves rolling at 15/7 m/s, omega = -v / r
    r = advance_projectiles([[0.0, 1.0, 0.0]], [[3.0, -2.0, 0.0]], 0.5, 1.0, [0.0, 0.0, 0.0],
                            [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], 0.0, friction=1.0,
                            angular_velocity=[0.0, 0.0, 0.0])
    np.testing.assert_allclose(r.velocity[0], [15 / 7, 0.0, 0.0], rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(r.angular_velocity[0], [0.0, 0.0, -15 / 7 / 0.5], rtol=1e-14)
    # the point mass keeps sliding (friction stops it only in the normal impulse's bound)
    plain = advance_projectiles([[0.0, 1.0, 0.0]], [[3.0, -2.0, 0.0]], 0.5, 1.0, [0.0, 0.0, 0.0],
                                [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], 0.0, friction=1.0)
    np.testing.assert_allclose(plain.velocity[0], [1.0, 0.0, 0.0], atol=1e-15)
    assert plain.angular_velocity is None and plain.events is None
    # backspin sends a ball back after landing
    r = advance_projectiles([[0.0, 1.0]], [[1.0, -2.0]], 0.5, 1.0, [0.0, 0.0], [0.0, 1.0],
                            [0.0, 0.0], 0.0, friction=5.0, angular_velocity=[12.0])
    assert r.velocity[0, 0] < 0 and r.angular_velocity.shape == (1,)
    # the step unpacks as before and keeps its spin through pickling
    import pickle
    position, velocity, bounces = r
    again = pickle.loads(pickle.dumps(r))
    np.testing.assert_array_equal(again.angular_velocity, r.angular_velocity)
    assert again.events is None and again.bounces[0] == bounces[0] == 1


def test_advance_spin_contact_is_collide_against_the_plane():
    rng = np.random.default_rng(13)
    n_spheres = 50
    pos = np.column_stack([rng.uniform(-1, 1, n_spheres), rng.uniform(0.5, 1.5, n_spheres),
                           rng.uniform(-1, 1, n_spheres)])
    vel = rng.normal(0, 3, (n_spheres, 3)) - [0.0, 6.0, 0.0]
    spin = rng.normal(0, 5, (n_spheres, 3))
    radius, inv_i = rng.uniform(0.1, 0.4, n_spheres), rng.uniform(0.5, 30, n_spheres)
    floor_v = np.array([0.7, 0.0, -0.3])
    r = advance_projectiles(pos, vel, radius, 0.3, [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], floor_v,
                            0.6, friction=0.4, angular_velocity=spin, inverse_inertia=inv_i,
                            max_bounces=1, events=True)
    hit = r.bounces == 1
    assert hit.sum() > 20
    t = r.events.time[hit, 0]
    centre = pos[hit] + vel[hit] * t[:, None]
    point = centre - radius[hit, None] * [0.0, 1.0, 0.0]
    want = collide(Body(vel[hit], 1.0, inv_i[hit], spin[hit], centre), Body(floor_v), [0.0, 1.0, 0.0],
                   point, 0.6, friction=0.4)
    np.testing.assert_allclose(r.velocity[hit], want.velocity_a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.angular_velocity[hit], want.angular_velocity_a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.events.normal_impulse[hit, 0], want.normal_impulse, rtol=1e-12)
    np.testing.assert_allclose(r.events.tangent_impulse[hit, 0], want.tangent_impulse,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(r.angular_velocity[~hit], spin[~hit])


def test_advance_events_between_two_walls():
    normal = [[1.0, 0.0], [-1.0, 0.0]]
    point = [[-1.0, 0.0], [1.0, 0.0]]
    r = advance_projectiles([[0.0, 0.0], [0.0, 5.0]], [[4.0, 1.0], [0.0, 1.0]], 0.0, 1.0, point,
                            normal, [0.0, 0.0], 0.5, max_bounces=3, events=True)
    # contacts at x = 1 (t = 0.25), x = -1 (t = 0.25 + 2 / 2 = 1.25 > 1): one
    np.testing.assert_array_equal(r.bounces, [1, 0])
    np.testing.assert_array_equal(r.events.plane, [[1, -1, -1], [-1, -1, -1]])
    np.testing.assert_allclose(r.events.time[0], [0.25, 0.0, 0.0])
    np.testing.assert_allclose(r.events.normal_impulse[0], [6.0, 0.0, 0.0])  # (1 + e) 4 m/s
    np.testing.assert_array_equal(r.events.tangent_impulse, 0.0)
    assert r.events.plane.dtype == np.intc and r.events.tangent_impulse.shape == (2, 3, 2)
    # more bounces than slots never happens: slots are max_bounces
    r = advance_projectiles([[0.0, 0.0]], [[1000.0, 0.0]], 0.0, 1.0, point, normal, [0.0, 0.0],
                            1.0, max_bounces=4, events=True)
    np.testing.assert_array_equal(r.events.plane[0], [1, 0, 1, 0])
    np.testing.assert_allclose(r.events.time[0], [0.001, 0.003, 0.005, 0.007], rtol=1e-12)
    np.testing.assert_allclose(r.events.normal_impulse[0], 2000.0)


def test_advance_events_and_zero_spin_keep_the_plain_results():
    rng = np.random.default_rng(14)
    pos = rng.uniform(-0.9, 0.9, (600, 3))
    vel = rng.normal(0, 10, (600, 3))
    normal = np.vstack([np.eye(3), -np.eye(3)])
    args = (pos, vel, 0.05, 0.4, -normal, normal, np.zeros(3), rng.uniform(0, 1, (600, 1)))
    plain = advance_projectiles(*args, friction=0.3)
    for kwargs in (dict(events=True), dict(inverse_inertia=0.0, angular_velocity=np.zeros(3))):
        other = advance_projectiles(*args, friction=0.3, **kwargs)
        np.testing.assert_array_equal(other.position, plain.position)
        np.testing.assert_array_equal(other.velocity, plain.velocity)
        np.testing.assert_array_equal(other.bounces, plain.bounces)
    w0 = rng.normal(size=(600, 3))
    spun = advance_projectiles(*args, friction=0.3, angular_velocity=w0, events=True)
    assert not np.array_equal(spun.velocity, plain.velocity)
    # spheres across blocks: each alone gives the same answer
    for i in rng.choice(600, 10, replace=False):
        one = advance_projectiles(pos[i], vel[i], 0.05, 0.4, -normal, normal, np.zeros(3),
                                  args[-1][i], friction=0.3, angular_velocity=w0[i], events=True)
        np.testing.assert_array_equal(one.position, spun.position[i])
        np.testing.assert_array_equal(one.velocity, spun.velocity[i])
        np.testing.assert_array_equal(one.angular_velocity, spun.angular_velocity[i])
        for got, want in zip(one.events, spun.events):
            np.testing.assert_array_equal(got, want[i])
    step = advance_projectiles(*args, friction=0.3, events=True)
    assert np.all((step.events.plane >= 0).sum(axis=-1) == step.bounces)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(angular_velocity=[np.nan]), ValueError,
     r"advance_projectiles: angular_velocity at index \(0,\) is nan \(must be finite\)"),
    (dict(angular_velocity=[0.0], inverse_inertia=-1.0), ValueError,
     r"advance_projectiles: inverse_inertia at index \(0,\) is -1.0 \(must be >= 0\)"),
    (dict(inverse_inertia=np.inf), ValueError, r"inverse_inertia at index \(0,\) is inf"),
    (dict(angular_velocity=[1.0, 2.0, 3.0]), ValueError,
     r"advance_projectiles: angular_velocity of shape \(3,\) does not broadcast to \(1,\)"),
    (dict(radius=1e-200, angular_velocity=[0.0]), OverflowError,
     r"advance_projectiles: inverse_inertia at index \(0,\) is inf \(the default 2.0 / radius\*\*2"),
    (dict(inverse_inertia=[1.0, 2.0]), ValueError,
     r"advance_projectiles: inverse_inertia of shape \(2,\) does not broadcast to \(1,\)"),
])
def test_advance_spin_bad_input(kwargs, exc, match):
    args = dict(position=[[0.0, 0.0]], velocity=[[1.0, 0.0]], radius=0.1, dt=1.0,
                plane_point=[[-1.0, 0.0], [1.0, 0.0]], plane_normal=[[1.0, 0.0], [-1.0, 0.0]],
                plane_velocity=[[0.0, 0.0], [0.0, 0.0]], restitution=0.5)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        advance_projectiles(**args)


def test_collide_unaligned_inputs_not_modified_and_docstring_examples():
    import doctest

    import animcore.contact
    raw = bytearray(6 * 8 + 1)
    v = np.frombuffer(raw, dtype=np.float64, count=6, offset=1).reshape(3, 2)
    v[...] = [[-1.0, 0.5], [2.0, -3.0], [0.0, -1.0]]
    keep = v.copy()
    got = collide(Body(v, 1.0, 2.0, 0.0, [0.0, 1.0]), Body([0.0, 0.0], 0.5, 1.0, 1.0, [0.0, -1.0]),
                  [0.0, 1.0], [0.0, 0.0], 0.5, friction=0.2)
    want = collide(Body(keep.copy(), 1.0, 2.0, 0.0, [0.0, 1.0]),
                   Body([0.0, 0.0], 0.5, 1.0, 1.0, [0.0, -1.0]), [0.0, 1.0], [0.0, 0.0], 0.5,
                   friction=0.2)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(v, keep)
    result = doctest.testmod(animcore.contact)
    assert result.failed == 0 and result.attempted >= 4


EXTREMES = [1e308, -1e308, 1.7e308, -1.7e308, 1e-310, -1e-310, 5e-324, 1e154, -1e154,
            1e-154, 0.0, 0.5, -0.5, 1.0, -1.0, 3.0]


@settings(max_examples=60, deadline=None, database=None)
@given(st.data())
def test_collide_and_spin_at_extreme_finite_inputs(data):
    # finite results, or a ValueError / OverflowError naming the function:
    # never NaN, infinity or a RuntimeWarning
    import warnings
    number = st.sampled_from(EXTREMES)
    dim = data.draw(st.sampled_from([2, 3]))
    vec = lambda k: data.draw(st.lists(number, min_size=k, max_size=k))
    spin = (lambda: data.draw(number)) if dim == 2 else (lambda: vec(3))
    inertia = (lambda: abs(data.draw(number))) if dim == 2 else (
        lambda: data.draw(st.one_of(number.map(abs), st.lists(number.map(abs), min_size=3,
                                                              max_size=3).map(np.diag))))
    normal = np.eye(dim)[data.draw(st.integers(0, dim - 1))] * data.draw(st.sampled_from([1, -1]))
    a = Body(vec(dim), abs(data.draw(number)), inertia(), spin(), vec(dim))
    b = Body(vec(dim), abs(data.draw(number)), inertia(), spin(), vec(dim))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for call in (lambda: collide(a, b, normal, vec(dim), 0.5, friction=abs(data.draw(number))),
                     lambda: advance_projectiles(vec(dim), vec(dim), abs(data.draw(number)), 1.0,
                                                 vec(dim), normal, vec(dim), 0.5, friction=0.5,
                                                 angular_velocity=spin(), events=True)):
            try:
                result = call()
            except (OverflowError, ValueError) as error:
                assert "collide" in str(error) or "advance_projectiles" in str(error)
                continue
            arrays = list(result) if isinstance(result, Collision) else [
                *result, result.angular_velocity, *result.events]
            for array in arrays:
                array = np.asarray(array)
                assert array.dtype.kind != "f" or np.all(np.isfinite(array)), (a, b, array)


def test_advance_in_place_on_its_inputs_in_any_layout_without_a_copy():
    import tracemalloc
    rng = np.random.default_rng(5)
    pos, vel = rng.uniform(-0.5, 0.5, (3000, 2)), rng.normal(0, 5, (3000, 2))
    planes = ([[-1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [-1.0, 0.0]], [0.0, 0.0])
    expected = advance_projectiles(pos, vel, 0.05, 0.3, *planes, 0.7)
    assert expected.bounces.any()
    for layout in (np.copy, lambda a: np.repeat(a, 2, axis=0)[::2]):
        p, v, b = layout(pos), layout(vel), np.zeros(3000, np.intc)
        step = advance_projectiles(p, v, 0.05, 0.3, *planes, 0.7, out=(p, v, b))
        assert step.position is p and step.velocity is v and step.bounces is b
        np.testing.assert_array_equal(p, expected.position)
        np.testing.assert_array_equal(v, expected.velocity)
        np.testing.assert_array_equal(b, expected.bounces)
    p, v, b = pos.copy(), vel.copy(), np.zeros(3000, np.intc)
    tracemalloc.start()
    try:
        advance_projectiles(p, v, 0.05, 0.3, *planes, 0.7, out=(p, v, b))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < p.nbytes  # no copy of either input (each would be p.nbytes)


def test_advance_refuses_a_bounce_count_out_that_cannot_hold_every_count():
    # an int8 out received 1000 bounces as -24; an unsigned one was refused as
    # "expected an integer dtype"
    pos, vel = [[0.0, 0.5]], [[0.0, 100.0]]
    planes = ([[0, 0.0], [0, 1.0]], [[0, 1.0], [0, -1.0]], [[0, 0.0], [0, 0.0]])
    fresh = advance_projectiles(pos, vel, 1.0, 0.01, *planes, 1.0, max_bounces=1000)
    for dtype in (np.int8, np.int16, np.uint32):
        out = (np.zeros((1, 2)), np.zeros((1, 2)), np.full(1, 7, dtype))
        with pytest.raises(ValueError, match=rf"^advance_projectiles: out\[2\] has dtype "
                                             rf"{np.dtype(dtype)}, expected an integer dtype "
                                             rf"that holds every int32 value$"):
            advance_projectiles(pos, vel, 1.0, 0.01, *planes, 1.0, max_bounces=1000, out=out)
        assert (out[0] == 0).all() and out[2][0] == 7
    out = (np.zeros((1, 2)), np.zeros((1, 2)), np.zeros(1, np.int64))
    advance_projectiles(pos, vel, 1.0, 0.01, *planes, 1.0, max_bounces=1000, out=out)
    np.testing.assert_array_equal(out[2], fresh.bounces)


def test_advance_workers_give_identical_results_and_errors():
    from animcore.bench import projectile_scene
    scene = projectile_scene(3000, seed=4)
    one = advance_projectiles(*scene, 0.8, friction=0.1, angular_velocity=[0.0, 0.0, 1.0],
                              events=True)
    two = advance_projectiles(*scene, 0.8, friction=0.1, angular_velocity=[0.0, 0.0, 1.0],
                              events=True, workers=2)
    for a, b in zip(list(one) + [one.angular_velocity, *one.events],
                    list(two) + [two.angular_velocity, *two.events]):
        np.testing.assert_array_equal(a, b)
    radius = np.full(3000, 0.2)
    radius[[2500, 2900]] = -1.0  # the first bad sphere is named, whatever the split
    for workers in (1, 2, -1):
        with pytest.raises(ValueError, match=r"advance_projectiles: radius at index \(2500,\) "
                                             r"is -1.0"):
            advance_projectiles(scene[0], scene[1], radius, *scene[3:], 0.8, workers=workers)


@pytest.mark.parametrize("name", ["_advance", "_advance_spin", "_advance_events",
                                  "_advance_spin_events", "_bounce2", "_bounce3"])
def test_core_stub_spells_out_the_arguments_the_entry_point_takes(name):
    import ast
    import pathlib

    from animcore import _core
    stub = ast.parse((pathlib.Path(_core.__file__).parent / "_core.pyi").read_text())
    declared = name  # a variant is declared as the kernel whose arguments it shares
    for node in stub.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == [name]:
            declared = node.value.id
    (function,) = [node for node in stub.body
                   if isinstance(node, ast.FunctionDef) and node.name == declared]
    assert function.args.vararg is None and function.args.kwarg is None
    stubbed = [a.arg for a in function.args.args]
    signature = getattr(_core, name).__doc__.split(" -> ")[0]
    documented = re.sub(r"\(dim, planes, max_bounces\)", "context",
                        signature[len(name) + 1:-1]).split(", ")
    assert stubbed == documented


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("mu", [0.0, 0.3])
@pytest.mark.parametrize("scale", [1e200, 1e-200, 1e300, 1e-300, 2.0**1000, 2.0**-1000])
def test_collide_friction_scales_with_the_inverse_masses(dim, mu, scale):
    """Scaling every inverse mass and inertia by k scales the impulses by 1/k
    and leaves the velocities: friction neither appears nor vanishes."""
    n, p = [0.0, 1.0, 0.0][:dim], [0.1, 0.0, 0.2][:dim]
    spin_a, spin_b = ([0.1, 0.2, 0.3], [0.0, 0.0, 0.0]) if dim == 3 else (0.2, 0.0)

    def run(k):
        a = Body([1.0, -2.0, 0.5][:dim], 1.0 * k, 0.5 * k, spin_a, [0.0, 1.0, 0.0][:dim])
        b = Body([0.0] * dim, 2.0 * k, 0.25 * k, spin_b, [0.0, -1.0, 0.0][:dim])
        return collide(a, b, n, p, 0.5, friction=mu)

    ref, got = run(1.0), run(scale)
    if mu == 0.0:
        assert np.all(ref.tangent_impulse == 0.0)
    else:
        assert np.linalg.norm(ref.tangent_impulse) > 0.1
    np.testing.assert_allclose(got.tangent_impulse * scale, ref.tangent_impulse,
                               rtol=1e-12, atol=0)
    np.testing.assert_allclose(got.normal_impulse * scale, ref.normal_impulse, rtol=1e-12)
    for field in ("velocity_a", "angular_velocity_a", "velocity_b", "angular_velocity_b"):
        np.testing.assert_allclose(getattr(got, field), getattr(ref, field), rtol=1e-12,
                                   atol=1e-15)


# -- results that exist although an intermediate overflows (#27 item 11) -----------

@pytest.mark.parametrize("v, u, n, e, mu, expected", [
    # v' = v - (1 + e) s n: the impulse 2e308 overflows, the result does not
    ([0, -1e308, 0], [0, 0, 0], [0, 1, 0], 1.0, 0.0, [0, 1e308, 0]),
    ([-1.7e308, 0], [0, 0], [1, 0], 1.0, 0.0, [1.7e308, 0]),
    # separating (s > 0) although v - u and s overflow: v is kept
    ([1e308, 0], [-1e308, 0], [1, 0], 0.5, 0.0, [1e308, 0]),
    ([1.5e308, 1.5e308], [0, 0], [S, S], 0.5, 0.3, [1.5e308, 1.5e308]),
    # w = (2e308, -1e308), s = -1e308: impulse 1.5e308, |wt| = 2e308 loses 0.75e308
    ([1e308, -1e308], [-1e308, 0], [0, 1], 0.5, 0.5, [0.25e308, 0.5e308]),
])
def test_bounce_returns_results_that_exist_when_an_intermediate_overflows(v, u, n, e, mu,
                                                                           expected):
    got = bounce(v, u, n, e, friction=mu)
    np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)


@pytest.mark.parametrize("mu", [0.0, 0.4])
def test_a_scaled_contact_leaves_the_other_contacts_bits_alone(mu):
    rng = np.random.default_rng(27)
    v, u = rng.normal(size=(2, 40, 3))
    n = rng.normal(size=(40, 3))
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    alone = bounce(v, u, n, 0.5, friction=mu)
    v[17], u[17], n[17] = [0.0, -1e308, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]
    together = bounce(v, u, n, 0.5, friction=mu)
    keep = np.arange(40) != 17
    np.testing.assert_array_equal(together[keep], alone[keep])
    np.testing.assert_allclose(together[17], [0.0, 0.5e308, 0.0], rtol=1e-15)


def test_advance_projectiles_bounces_a_sphere_whose_impulse_overflows():
    # v = -1.7e308 hits the wall x = 0 after 0.4 / 1.7e308 s and leaves at +1.7e308
    kw = dict(plane_point=[[0.0, 0.0]], plane_normal=[[1.0, 0.0]],
              plane_velocity=[[0.0, 0.0]], restitution=1.0)
    dt, hit = 1e-308, 0.4 / 1.7e308
    for extra in ({}, dict(angular_velocity=[0.0], inverse_inertia=2.5)):
        step = advance_projectiles([[0.5, 0.0]], [[-1.7e308, 0.0]], 0.1, dt, **kw, **extra)
        np.testing.assert_allclose(step.velocity, [[1.7e308, 0.0]], rtol=1e-15)
        np.testing.assert_allclose(step.position, [[0.1 + 1.7e308 * (dt - hit), 0.0]],
                                   rtol=1e-12)
        assert step.bounces.tolist() == [1]
    # recorded, the impulse per unit mass is 3.4e308: that value does not exist
    with pytest.raises(OverflowError, match=r"advance_projectiles: normal_impulse at index "
                                            r"\(0,\) is inf \(is not representable in event 0"):
        advance_projectiles([[0.5, 0.0]], [[-1.7e308, 0.0]], 0.1, dt, **kw, events=True)


def _in_line(va, vb, ma, mb, e):
    """Two bodies in line along x (no arms), exactly with fractions: the closed
    form of the 1-D impulse j = (1 + e) (-s) / (ma + mb)."""
    from fractions import Fraction as F
    va, vb, ma, mb, e = map(F, (va, vb, ma, mb, e))
    s = va - vb
    j = (1 + e) * -s / (ma + mb) if s < 0 else F(0)
    return va + ma * j, vb - mb * j, j


MASSES = [0.0, 1e-308, 1e-200, 1.0, 1e200, 1e308]


@pytest.mark.parametrize("speed", [1.0, 1e-300, 1e308])
@pytest.mark.parametrize("ma", MASSES)
@pytest.mark.parametrize("mb", MASSES)
def test_collide_in_line_matches_the_exact_closed_form_at_any_masses(ma, mb, speed):
    if ma == mb == 0.0:
        return  # two kinematic bodies: no impulse, tested elsewhere
    exact = _in_line(-speed, speed, ma, mb, 0.5)
    try:
        want = [float(x) for x in exact]  # OverflowError: the result does not exist
    except OverflowError:
        want = None
    a, b = Body([-speed, 0.0, 0.0], ma), Body([speed, 0.0, 0.0], mb)
    if want is None:
        with pytest.raises(OverflowError, match=r"^collide: (velocity_a|velocity_b|"
                                                r"normal_impulse) is -?inf"):
            collide(a, b, [1.0, 0.0, 0.0], [0.0, 0.0, 0.0], 0.5)
        return
    got = collide(a, b, [1.0, 0.0, 0.0], [0.0, 0.0, 0.0], 0.5)
    tiny = 4 * 2.0**-1074  # subnormal results: a few of their units
    np.testing.assert_allclose(got.velocity_a, [want[0], 0, 0], rtol=1e-14, atol=tiny)
    np.testing.assert_allclose(got.velocity_b, [want[1], 0, 0], rtol=1e-14, atol=tiny)
    np.testing.assert_allclose(got.normal_impulse, want[2], rtol=1e-14, atol=tiny)
    np.testing.assert_array_equal(got.tangent_impulse, 0.0)


# -- ill-conditioned effective masses (#27 item 11) -----------------------------------------
# A body that turns far more easily than it translates (inverse inertia 1e12..1e308 per
# unit inverse mass) hit off its arm: K = m I + i |r|^2 (I - u u^T) is stiff across the arm
# and soft along it, and formed in world axes its soft entry drowns in the rounding of the
# stiff ones. The results are of ordinary size; they are checked against the law in exact
# rational arithmetic (reference.rigid_contact_exact).

from reference import rigid_contact_exact  # noqa: E402


def _collide_exactly(a, b, n, p, e, mu):
    """(collide's result, the exact one as floats, each field's scale): a velocity's scale
    is its size before plus its change, an impulse's its size."""
    got = collide(Body(a["v"], a["m"], a["I"], a["w"], a["c"]),
                  Body(b["v"], b["m"], b["I"], b["w"], b["c"]), n, p, e, friction=mu)
    want = [np.array([float(x) for x in np.ravel(v)])
            for v in rigid_contact_exact(a, b, n, p, e, friction=mu)]
    before = [a["v"], a["w"], b["v"], b["w"]]
    scales = [np.abs(np.ravel(x)).max() + np.abs(w - np.ravel(x)).max()
              for x, w in zip(before, want[:4])]
    impulse = np.abs(want[4]).max() + np.abs(want[5]).max()
    return got, want, scales + [impulse, impulse]


def _assert_close_to_exact(got, want, scales, rtol=1e-13):
    for name, g, w, scale in zip(Collision._fields, got, want, scales):
        err = np.abs(np.ravel(g) - w).max()
        assert err <= rtol * scale, f"{name}: {np.ravel(g)} vs exact {w} (scale {scale:.3g})"


@pytest.mark.parametrize("inertia", [1e12, 1e17, 1e100, 1e308, 1.7e308])
@pytest.mark.parametrize("dim, arm", [(3, [1.0, 1.0, 0.0]), (3, [10.0, 0.0, 0.0]),
                                      (3, [3.0, 1e-3, 0.5]), (2, [1.0, 1.0]), (2, [7.0, 0.1])])
@pytest.mark.parametrize("mu", [0.0, 0.5, 5.0])
def test_collide_a_body_that_turns_easily_hit_off_its_arm(inertia, dim, arm, mu):
    # was "velocity_a is nan" from 1e16 on, and silently off (1.5002 for 1.5) at 1e12
    a = dict(v=[1.0, -1.0, 0.3][:dim], w=[0.0] if dim == 2 else [0.0, 0.0, 0.0], m=1.0,
             I=inertia, c=[-x for x in arm])
    b = dict(v=[0.0] * dim, w=[0.0] if dim == 2 else [0.0, 0.0, 0.0], m=0.0, I=0.0,
             c=[0.0] * dim)
    n, p = [0.0, 1.0, 0.0][:dim], [0.0] * dim
    got, want, scales = _collide_exactly(a, b, n, p, 0.5, mu)
    _assert_close_to_exact(got, want, scales)
    assert np.all(np.abs(got.velocity_a) < 10) and np.all(np.abs(got.angular_velocity_a) < 10)


def test_collide_in_line_with_a_body_that_turns_easily_is_the_mass_law():
    # a diagonal normal along the arm: the rotation takes no part, j = (1 + e) 1 / m
    s = np.sqrt(0.5)
    for inertia in (1e12, 1e17, 1e308):
        r = collide(Body([-s, -s, 0.0], 1.0, inertia, [0.0, 0.0, 0.0], [-1.0, -1.0, 0.0]),
                    Body([0.0, 0.0, 0.0]), [s, s, 0.0], [0.0, 0.0, 0.0], 0.5)
        np.testing.assert_allclose(r.normal_impulse, 1.5, rtol=1e-13)
        np.testing.assert_allclose(r.velocity_a, [0.5 * s, 0.5 * s, 0.0], rtol=1e-13,
                                   atol=1e-15)


def _ill_conditioned(rng, dim, tensor):
    """A random contact whose inverse masses, inertias and arms span the double range
    (velocities of comparable sizes): the normal an axis, so the exact law is rational."""
    log = lambda lo, hi: 10.0 ** rng.uniform(lo, hi)  # noqa: E731
    n = np.zeros(dim)
    n[rng.integers(dim)] = rng.choice([-1.0, 1.0])
    p = rng.normal(0, 1, dim)
    speed = log(-100, 100)

    def body():
        if tensor:
            q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
            inertia = q @ np.diag(rng.uniform(0.05, 3, 3)) @ q.T * log(-300, 300)
            inertia = 0.5 * (inertia + inertia.T)
            if rng.uniform() < 0.3:  # turns about one or two principal axes only
                inertia = np.diag(rng.uniform(0.5, 1, 3) * (rng.uniform(size=3) < 0.6)) * log(-300, 300)
        else:
            inertia = rng.choice([0.0, log(-308, 308)])
        arm = rng.normal(0, 1, dim) * log(-50, 50)
        spin = rng.normal(0, 1) if dim == 2 else rng.normal(0, 1, 3)
        return dict(v=rng.normal(0, 1, dim) * speed, w=spin * speed / np.linalg.norm(arm),
                    m=rng.choice([0.0, 1.0, log(-308, 308)]), I=inertia, c=p - arm)

    a, b = body(), body()
    if a["m"] + b["m"] == 0.0 and rng.uniform() < 0.7:
        a["m"] = 1.0
    if rng.uniform() < 0.2:  # a sphere: its arm along the normal
        a["c"] = p - n * log(-3, 3)
    return a, b, n, p, rng.uniform(), rng.choice([0.0, 0.3, 5.0])


@pytest.mark.parametrize("dim, tensor", [(2, False), (3, False), (3, True)])
def test_collide_matches_exact_arithmetic_across_the_double_range(dim, tensor):
    rng = np.random.default_rng(2700 + dim + tensor)
    checked = 0
    for _ in range(24):
        a, b, n, p, e, mu = _ill_conditioned(rng, dim, tensor)
        try:
            got, want, scales = _collide_exactly(a, b, n, p, e, mu)
        except OverflowError as error:  # then the exact result must not exist either
            assert str(error).startswith("collide: ")
            exact = rigid_contact_exact(a, b, n, p, e, friction=mu)
            with pytest.raises(OverflowError):
                [float(x) for v in exact for x in np.ravel(v)]
            continue
        _assert_close_to_exact(got, want, scales, rtol=1e-12)
        checked += 1
    assert checked >= 20


def test_collide_a_result_beyond_the_double_range_is_still_an_overflow_error():
    # the spin i (r x j) = 1e308 * 1e-10 * 2e12 ... is 2e310: it does not exist
    a = dict(v=[0.0, -1e300, 0.0], w=[0.0, 0.0, 0.0], m=1.0, I=1e308, c=[-1e-10, 0.0, 0.0])
    b = dict(v=[0.0, 0.0, 0.0], w=[0.0, 0.0, 0.0], m=0.0, I=0.0, c=[0.0, 0.0, 0.0])
    with pytest.raises(OverflowError):
        [float(x) for v in rigid_contact_exact(a, b, [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], 1.0,
                                               friction=0.5) for x in np.ravel(v)]
    with pytest.raises(OverflowError, match=r"^collide: angular_velocity_a is inf \(is not "
                                            r"representable although the inputs are finite\)"):
        collide(Body(a["v"], 1.0, 1e308, a["w"], a["c"]), Body([0.0, 0.0, 0.0]),
                [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], 1.0, friction=0.5)


@pytest.mark.parametrize("dim", [2, 3])
def test_an_ill_conditioned_contact_leaves_the_other_contacts_bits_alone(dim):
    a, b, n, p, e = _scene(dim, 50, seed=27)
    alone = collide(*_bodies(a, b), n, p, e, friction=0.4)
    a["I"] = a["I"].copy()
    a["I"][17] = 1e300
    together = collide(*_bodies(a, b), n, p, e, friction=0.4)
    keep = np.arange(50) != 17
    for field in Collision._fields:
        np.testing.assert_array_equal(getattr(together, field)[keep],
                                      getattr(alone, field)[keep])
        assert np.all(np.isfinite(getattr(together, field)))
