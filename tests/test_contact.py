import numpy as np
import pytest
from hypothesis import given
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
    naive = np.array([-0.5 * -3.0, 4.0])  # flip and damp the world x-velocity
    np.testing.assert_array_equal(naive, [1.5, 4.0])
    assert naive[0] - 2.0 < 0  # still approaching the wall: the bug
    v = bounce([-3.0, 4.0], [2.0, 0.0], [1.0, 0.0], 0.5)
    assert not np.allclose(v, naive)


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
    with pytest.raises(OverflowError):
        bounce([[-1.7e308, 0.0]] * 3, [0.0, 0.0], [1.0, 0.0], 1.0, out=out)
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
     r"bounce: velocity at index \(\) is nan \(must be finite\)"),
    (([-3, 4], [2, np.inf], [1, 0], 0.5), {}, ValueError,
     r"bounce: surface_velocity at index \(\) is inf \(must be finite\)"),
    (([-3, 4], [2, 0], [np.nan, 0], 0.5), {}, ValueError,
     r"bounce: normal at index \(\) is nan \(must be finite\)"),
    (([-3, 4], [2, 0], [1, 0], np.nan), {}, ValueError,
     r"bounce: restitution at index \(\) is nan \(must be finite\)"),
    (([-3, 4], [2, 0], [1, 0], -0.1), {}, ValueError,
     r"bounce: restitution at index \(\) is -0.1 \(must lie in \[0, 1\]\)"),
    (([-3, 4], [2, 0], [1, 0], 1.1), {}, ValueError,
     r"bounce: restitution at index \(\) is 1.1 \(must lie in \[0, 1\]\)"),
    (([-3, 4], [2, 0], [1, 1e-5], 0.5), {}, ValueError,
     r"bounce: normal \. normal at index \(\) is 1.0000000001 \(must lie within 1e-12 of 1"),
    (([-3, 4], [2, 0], [2, 0], 0.5), {}, ValueError, r"normal \. normal at index \(\) is 4.0"),
    (([[-3, 4]] * 3, [2, 0], [[1, 0], [0, 1], [0, 0]], 0.5), {}, ValueError,
     r"bounce: normal \. normal at index \(2,\) is 0.0"),
    (([-3, 4], [2, 0], [1, 0], 0.5), {"friction": -1.0}, ValueError,
     r"bounce: friction at index \(\) is -1.0 \(must be >= 0\)"),
    (([-3, 4], [2, 0], [1, 0], 0.5), {"friction": np.inf}, ValueError,
     r"bounce: friction at index \(\) is inf \(must be finite\)"),
    (([-3, 4], [2, 0], [1, 0], 0.5), {"threshold": -2.0}, ValueError,
     r"bounce: threshold at index \(\) is -2.0 \(must be >= 0\)"),
    (([-3, 4], [2, 0], [1, 0], 0.5), {"threshold": np.nan}, ValueError,
     r"bounce: threshold at index \(\) is nan \(must be finite\)"),
    (([1e308, 0], [-1e308, 0], [1, 0], 0.5), {}, OverflowError,
     r"bounce: velocity - surface_velocity at index \(\) is inf \(is not representable"),
    (([1.5e308, 1.5e308], [0, 0], [S, S], 0.5), {}, OverflowError,
     r"bounce: \(velocity - surface_velocity\) \. normal at index \(\) is inf"),
    (([-1.7e308, 0], [0, 0], [1, 0], 1.0), {}, OverflowError,
     r"bounce: result at index \(\) is inf \(is not representable although the inputs are finite\)"),
    (([-3, 4, 0, 1], [2, 0, 0, 0], [1, 0, 0, 0], 0.5), {}, ValueError,
     r"bounce: velocity must have shape \(\.\.\., 2\) or \(\.\.\., 3\), got shape \(4,\)"),
    ((3.0, [2, 0], [1, 0], 0.5), {}, ValueError, r"velocity must have shape .* got shape \(\)"),
    (([-3, 4], [2, 0, 0], [1, 0], 0.5), {}, ValueError,
     r"bounce: surface_velocity has 3 components, expected 2"),
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
    (([np.nan, 0], 1.0, [1, 0]), ValueError, r"contact_point_velocity: linear_velocity at index \(\) is nan"),
    (([0, 0], np.inf, [1, 0]), ValueError, r"contact_point_velocity: angular_velocity at index \(\) is inf"),
    (([0, 0], 1.0, [[1, 0], [np.nan, 0]]), ValueError, r"contact_point_velocity: offset at index \(1,\) is nan"),
    (([0, 0], 1e308, [1e10, 0]), OverflowError, r"contact_point_velocity: result at index \(\) is inf"),
    (([0, 0, 0], 1.0, [1, 0, 0]), ValueError, r"angular_velocity must have shape \(\.\.\., 3\) in 3-D"),
    (([0, 0, 0], [1.0, 0, 0], [1, 0]), ValueError, r"offset has 2 components, expected 3"),
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
    (dict(max_bounces=-1), ValueError, r"advance_projectiles: max_bounces at index \(\) is -1.0 \(must be >= 0\)"),
    (dict(max_bounces=1.5), ValueError, r"max_bounces must be an integer"),
    (dict(max_bounces=4097), ValueError,
     r"advance_projectiles: max_bounces is 4097 \(must lie in \[0, 4096\]\)"),
    (dict(max_bounces=10**9), ValueError, r"max_bounces is 1000000000 \(must lie in"),
    (dict(position=[[0.0, 0.0, 0.0]], velocity=[[0.0, 0.0, 0.0]]), ValueError,
     r"plane_point has 2 components, expected 3"),
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


def test_contact_point_velocity_out_untouched_on_error():
    out = np.full((2, 2), 3.0)
    with pytest.raises(ValueError, match=r"angular_velocity at index \(1,\) is nan"):
        contact_point_velocity([0.0, 0.0], [1.0, np.nan], [1.0, 0.0], out=out)
    np.testing.assert_array_equal(out, 3.0)


@pytest.mark.parametrize("count", [1, 3, 4, 5, 1001, 150_001])  # the last one streams
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


def test_shared_parameters_are_checked_on_large_batches():
    v = np.tile([[-3.0, 4.0, 0.0]], (9, 1))
    with pytest.raises(ValueError, match=r"bounce: restitution at index \(0,\) is 1.5"):
        bounce(v, [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], 1.5)
    with pytest.raises(ValueError, match=r"bounce: threshold at index \(0,\) is -1.0"):
        bounce(v, [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], 0.5, threshold=-1.0)
    with pytest.raises(ValueError, match=r"bounce: threshold at index \(0,\) is -1.0"):
        bounce(v, np.zeros((9, 3)), np.tile([1.0, 0.0, 0.0], (9, 1)), 0.5, threshold=-1.0)


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
