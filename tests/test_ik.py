"""IK solvers against a plain-NumPy re-derivation (law of cosines, Rodrigues'
formula, rotation matrices) and hand-worked scenarios in the manner of
ozz-animation's two-bone and aim tests (pole on either side, twist, weight
0, 0.5, 1, aligned and degenerate chains)."""
from pathlib import Path

import numpy as np
import pytest

import animcore as ac

DATA = Path(__file__).parent / "data"
SQ = np.sqrt(0.5)


# ----------------------------------------------------------- references

def qmat(q):
    """Rotation matrices of unit quaternions (x, y, z, w), by the textbook formula."""
    q = np.asarray(q, float)
    x, y, z, w = np.moveaxis(q, -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def rot(q, v):
    return np.einsum("...ij,...j->...i", qmat(q), v)


def rodrigues(axis, angle, v):
    """v turned by `angle` about unit `axis` (right-hand rule)."""
    axis = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
    c, s = np.cos(angle)[..., None], np.sin(angle)[..., None]
    return (v * c + np.cross(axis, v) * s
            + axis * np.sum(axis * v, -1, keepdims=True) * (1 - c))


def solved(s, m, e, rs, rm):
    """Mid and end after the corrections (mid correction after the start's)."""
    mf = s + rot(rs, m - s)
    ef = mf + rot(rm, rot(rs, e - m))
    return mf, ef


def reference_positions(s, m, e, t, p, soften=1.0):
    """Where mid and end belong: the end on the start-target line at the
    (softened, clamped) reach, the mid by the law of cosines in the pole's
    half plane."""
    l1 = np.linalg.norm(m - s, axis=-1)
    l2 = np.linalg.norm(e - m, axis=-1)
    length = l1 + l2
    d = t - s
    dist = np.linalg.norm(d, axis=-1)
    a = d / dist[..., None]
    da = soften * length
    ds = length - da
    with np.errstate(divide="ignore", invalid="ignore"):
        soft = da + ds * (1 - np.exp(-(dist - da) / ds))
    r = np.where((dist > da) & (ds > 0), soft, dist)
    r = np.clip(r, np.abs(l1 - l2), length)
    cos_alpha = np.clip((l1**2 + r**2 - l2**2) / (2 * l1 * r), -1, 1)
    pp = (p - s) - np.sum((p - s) * a, -1, keepdims=True) * a
    b = pp / np.linalg.norm(pp, axis=-1, keepdims=True)
    mid = s + l1[..., None] * (cos_alpha[..., None] * a
                               + np.sqrt(1 - cos_alpha**2)[..., None] * b)
    return mid, s + r[..., None] * a


def random_chains(n, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(n, 3))
    m = s + rng.normal(size=(n, 3))
    e = m + rng.normal(size=(n, 3))
    p = s + rng.normal(size=(n, 3)) * 3
    return rng, s, m, e, p


# ----------------------------------------------------------- two-bone

def test_two_bone_reaches_reachable_targets_law_of_cosines():
    rng, s, m, e, p = random_chains(500)
    l1 = np.linalg.norm(m - s, axis=-1)
    l2 = np.linalg.norm(e - m, axis=-1)
    direction = rng.normal(size=(500, 3))
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    dist = np.abs(l1 - l2) + rng.uniform(0.05, 0.95, 500) * (l1 + l2 - np.abs(l1 - l2))
    t = s + dist[:, None] * direction
    rs, rm, reached = ac.ik_two_bone(s, m, e, t, p)
    assert reached.dtype == bool and reached.all()
    mf, ef = solved(s, m, e, rs, rm)
    scale = (l1 + l2)[:, None]
    np.testing.assert_allclose((ef - t) / scale, 0, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(mf - s, axis=-1), l1, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(ef - mf, axis=-1), l2, rtol=1e-12)
    want_mid, _ = reference_positions(s, m, e, t, p)
    np.testing.assert_allclose((mf - want_mid) / scale, 0, atol=1e-8)
    np.testing.assert_allclose(np.linalg.norm(rs, axis=-1), 1, atol=1e-14)


def test_two_bone_reaches_full_reach_targets_of_nearly_straight_chains():
    # a walk's leg at full stride (CMU 12_01, frame 170): the chain all but
    # straight and the target at L1 + L2; the roll toward the pole once tilted
    # off the target line and left the end 1.2e-5 of the chain away
    s = np.array([1.8190590860439866, 14.874071370348268, -2.3751450766036646])
    m = np.array([1.2580558727005065, 9.272035509251705, -4.3117815493074])
    e = np.array([0.5022154686247602, 1.7244274090054628, -6.921007360283511])
    pole = np.array([-7.602529634291153, 24.07362831080635, 7.298554938776525])
    far = np.array([-4.592750160682235, 18.029494262059938, -14.385311015634734])
    length = np.linalg.norm(m - s) + np.linalg.norm(e - m)
    # and random nearly straight chains, each target at full reach or just inside
    rng = np.random.default_rng(7)
    bend = rng.normal(size=(200, 3)) * 1e-7
    s2 = rng.normal(size=(200, 3))
    axis = rng.normal(size=(200, 3))
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    m2 = s2 + axis + bend
    e2 = m2 + 0.7 * axis
    l1, l2 = np.linalg.norm(m2 - s2, axis=-1), np.linalg.norm(e2 - m2, axis=-1)
    direction = rng.normal(size=(200, 3))
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    inside = np.where(np.arange(200) % 2, 1 - 1e-9, 1.0)
    t2 = s2 + ((l1 + l2) * inside)[:, None] * direction
    p2 = s2 + rng.normal(size=(200, 3))
    for s_, m_, e_, t_, p_, scale in ((s, m, e, far, pole, length),
                                      (s2, m2, e2, t2, p2, (l1 + l2)[:, None])):
        rs, rm, reached = ac.ik_two_bone(s_, m_, e_, t_, p_)
        _, ef = solved(s_, m_, e_, rs, rm)
        np.testing.assert_allclose((ef - t_) / scale, 0, atol=1e-9)
        assert np.all(reached)


def test_two_bone_mid_on_pole_side_of_the_plane():
    rng, s, m, e, p = random_chains(300, seed=1)
    t = s + rng.normal(size=(300, 3))
    rs, rm, _ = ac.ik_two_bone(s, m, e, t, p)
    mf, _ = solved(s, m, e, rs, rm)
    n = np.cross(t - s, p - s)  # normal of the (start, target, pole) plane
    in_plane = np.sum((mf - s) * n, -1) / (np.linalg.norm(n, axis=-1) * np.linalg.norm(mf - s, axis=-1))
    np.testing.assert_allclose(in_plane, 0, atol=1e-9)
    a = (t - s) / np.linalg.norm(t - s, axis=-1, keepdims=True)
    side_mid = (mf - s) - np.sum((mf - s) * a, -1, keepdims=True) * a
    side_pole = (p - s) - np.sum((p - s) * a, -1, keepdims=True) * a
    assert (np.sum(side_mid * side_pole, -1) >= -1e-12).all()


def test_two_bone_unreachable_target_extends_straight():
    _, s, m, e, p = random_chains(100, seed=2)
    length = np.linalg.norm(m - s, axis=-1) + np.linalg.norm(e - m, axis=-1)
    t = s + (m - s) * 10 + 5 * length[:, None]
    rs, rm, reached = ac.ik_two_bone(s, m, e, t, p)
    assert not reached.any()
    mf, ef = solved(s, m, e, rs, rm)
    a = (t - s) / np.linalg.norm(t - s, axis=-1, keepdims=True)
    np.testing.assert_allclose((ef - s) / length[:, None], a, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(np.cross(mf - s, a), axis=-1) / length, 0, atol=1e-12)


def test_two_bone_weights_zero_half_one():
    _, s, m, e, p = random_chains(50, seed=3)
    t = (s + e) / 2 + 0.1
    rs0, rm0, _ = ac.ik_two_bone(s, m, e, t, p, weight=0.0)
    assert (rs0 == [0, 0, 0, 1]).all() and (rm0 == [0, 0, 0, 1]).all()
    rs1, rm1, _ = ac.ik_two_bone(s, m, e, t, p, weight=1.0)
    rsh, rmh, _ = ac.ik_two_bone(s, m, e, t, p, weight=0.5)
    # half the weight: the same axis, half the angle
    for full, half in ((rs1, rsh), (rm1, rmh)):
        full = full * np.where(full[:, 3:] < 0, -1.0, 1.0)
        half = half * np.where(half[:, 3:] < 0, -1.0, 1.0)
        angle_full = 2 * np.arctan2(np.linalg.norm(full[:, :3], axis=-1), full[:, 3])
        angle_half = 2 * np.arctan2(np.linalg.norm(half[:, :3], axis=-1), half[:, 3])
        np.testing.assert_allclose(angle_half, angle_full / 2, atol=1e-9)
        turning = angle_full > 1e-6
        axis_full = full[turning, :3] / np.linalg.norm(full[turning, :3], axis=-1, keepdims=True)
        axis_half = half[turning, :3] / np.linalg.norm(half[turning, :3], axis=-1, keepdims=True)
        np.testing.assert_allclose(axis_half, axis_full, atol=1e-9)


def test_two_bone_soften_reaches_below_threshold_and_is_monotone():
    s, m, e, p = np.zeros(3), np.array([0, 1.0, 0]), np.array([1.0, 1, 0]), np.array([0, 0, 1.0])
    dist = np.linspace(0.1, 3.0, 400)
    t = dist[:, None] * np.array([1, 0.5, 0.2]) / np.linalg.norm([1, 0.5, 0.2])
    for soften in (0.0, 0.5, 0.8, 1.0):
        rs, rm, reached = ac.ik_two_bone(s, m, e, t, p, soften=soften)
        _, ef = solved(s, m, e, rs, rm)
        r = np.linalg.norm(ef - s, axis=-1)
        assert (np.diff(r) >= -1e-12).all()
        assert (r <= dist + 1e-12).all()
        near = dist < soften * 2
        np.testing.assert_allclose(r[near], dist[near], atol=1e-12)
        assert reached[near].all()
        _, want = reference_positions(s, m, e, t, p, soften)
        np.testing.assert_allclose(ef, want, atol=1e-12)


def test_two_bone_twist_right_hand_rule():
    _, s, m, e, p = random_chains(100, seed=4)
    t = (s + e) / 2
    twist = np.linspace(-3, 3, 100)
    rs0, rm0, _ = ac.ik_two_bone(s, m, e, t, p)
    rs, rm, _ = ac.ik_two_bone(s, m, e, t, p, twist=twist)
    m0, e0 = solved(s, m, e, rs0, rm0)
    mt, et = solved(s, m, e, rs, rm)
    np.testing.assert_allclose(mt - s, rodrigues(t - s, twist, m0 - s), atol=1e-12)
    np.testing.assert_allclose(et, e0, atol=1e-12)


# ozz-style scenarios on the chain (0,0,0) -> (0,1,0) -> (1,1,0), worked by hand
S, M, E = np.zeros(3), np.array([0.0, 1, 0]), np.array([1.0, 1, 0])


@pytest.mark.parametrize("pole, twist, mid", [
    ((-1, 1, 0), 0.0, (0, 1, 0)),               # already there: identity
    ((-3, 3, 0), 0.0, (0, 1, 0)),
    ((1, -1, 0), 0.0, (1, 0, 0)),               # pole on the other side
    ((0, 0, 1), 0.0, (0.5, 0.5, SQ)),           # pole out of the plane
    ((0, 0, -1), 0.0, (0.5, 0.5, -SQ)),
    ((-1, 1, 0), np.pi / 2, (0.5, 0.5, SQ)),    # twist +90 degrees about (1, 1, 0)
    ((-1, 1, 0), -np.pi / 2, (0.5, 0.5, -SQ)),
])
def test_two_bone_scenarios(pole, twist, mid):
    rs, rm, reached = ac.ik_two_bone(S, M, E, E, pole, twist=twist)
    mf, ef = solved(S, M, E, rs, rm)
    assert reached
    np.testing.assert_allclose(mf, mid, atol=1e-12)
    np.testing.assert_allclose(ef, E, atol=1e-12)
    if mid == (0, 1, 0):
        np.testing.assert_allclose(np.abs(rs[3]), 1, atol=1e-15)
        np.testing.assert_allclose(np.abs(rm[3]), 1, atol=1e-15)


def test_two_bone_scenario_targets():
    # a target nearer: the knee folds; reach by the law of cosines
    t = np.array([0.5, 0.5, 0.0])
    rs, rm, reached = ac.ik_two_bone(S, M, E, t, (-1, 1, 0))
    mf, ef = solved(S, M, E, rs, rm)
    assert reached
    np.testing.assert_allclose(ef, t, atol=1e-12)
    # |mid| = 1 and |mid - t| = 1, on the (-1, 1) side: mid = t/2 + sqrt(1 - 1/8) (-1, 1)/sqrt2
    want = t / 2 + np.sqrt(1 - 0.125) * np.array([-SQ, SQ, 0])
    np.testing.assert_allclose(mf, want, atol=1e-12)


@pytest.mark.parametrize("case", ["zero_bone", "zero_second", "target_at_start",
                                  "pole_on_line", "pole_at_start", "aligned_chain",
                                  "aligned_target_behind", "folded", "all_equal"])
def test_two_bone_degenerate_input_finite_and_defined(case):
    s, m, e, t, p = np.zeros(3), np.array([0, 1.0, 0]), np.array([1.0, 1, 0]), np.array([1, 0.5, 0]), np.array([0, 0, 1.0])
    if case == "zero_bone":
        m = s.copy()
    elif case == "zero_second":
        e = m.copy()
    elif case == "target_at_start":
        t = s.copy()
    elif case == "pole_on_line":
        p = t * 3
    elif case == "pole_at_start":
        p = s.copy()
    elif case == "aligned_chain":
        m, e, t, p = np.array([1.0, 0, 0]), np.array([2.0, 0, 0]), np.array([1.5, 0, 0]), np.array([5.0, 0, 0])
    elif case == "aligned_target_behind":
        m, e, t = np.array([1.0, 0, 0]), np.array([2.0, 0, 0]), np.array([-1.5, 0, 0])
    elif case == "folded":
        m, e = np.array([1.0, 0, 0]), np.array([0.0, 0, 0])
    elif case == "all_equal":
        s = m = e = t = p = np.ones(3)
    rs, rm, reached = ac.ik_two_bone(s, m, e, t, p)
    assert np.isfinite(rs).all() and np.isfinite(rm).all()
    np.testing.assert_allclose(np.linalg.norm(rs), 1, atol=1e-14)
    mf, ef = solved(s, m, e, rs, rm)
    np.testing.assert_allclose(np.linalg.norm(mf - s), np.linalg.norm(m - s), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(ef - mf), np.linalg.norm(e - m), atol=1e-12)
    if case in ("zero_bone", "zero_second", "all_equal"):
        assert (rs == [0, 0, 0, 1]).all() and (rm == [0, 0, 0, 1]).all()
    if case in ("pole_on_line", "pole_at_start", "aligned_chain", "aligned_target_behind"):
        assert reached
        np.testing.assert_allclose(ef, t, atol=1e-12)
    if case == "target_at_start":  # as near as the bones allow: |L1 - L2| = 0
        np.testing.assert_allclose(ef, s, atol=1e-12)


def test_two_bone_broadcasting_and_out():
    _, s, m, e, p = random_chains(4, seed=5)
    t = np.random.default_rng(6).normal(size=(5, 1, 3))
    rs, rm, reached = ac.ik_two_bone(s, m, e, t, p, weight=[[0.5]] * 5)
    assert rs.shape == (5, 4, 4) and reached.shape == (5, 4)
    for i in range(5):
        one = ac.ik_two_bone(s[1], m[1], e[1], t[i, 0], p[1], weight=0.5)
        np.testing.assert_array_equal(rs[i, 1], one.rotation_start)
        np.testing.assert_array_equal(rm[i, 1], one.rotation_mid)
    out = (np.empty((5, 4, 4)), np.empty((5, 4, 4)))
    got = ac.ik_two_bone(s, m, e, t, p, weight=0.5, out=out)
    assert got.rotation_start is out[0] and got.rotation_mid is out[1]
    np.testing.assert_array_equal(out[0], rs)
    bad_t = t.copy()
    bad_t[3, 0, 1] = np.nan
    before = out[0].copy()
    with pytest.raises(ValueError, match=r"ik_two_bone: target at index \(3, 0\) is nan"):
        ac.ik_two_bone(s, m, e, bad_t, p, out=out)
    np.testing.assert_array_equal(out[0], before)
    empty = ac.ik_two_bone(np.zeros((0, 3)), m[0], e[0], t[0, 0], p[0])
    assert empty.rotation_start.shape == (0, 4)
    # a flags array beside a None or a list (an AttributeError once), untouched
    flags = np.ones((5, 4), dtype=bool)
    for first in (None, [0.0] * 80):
        with pytest.raises(ValueError, match=r"^ik_two_bone: out\[0\] must be a numpy array "
                                             r"when out\[2\] receives the flags"):
            ac.ik_two_bone(s, m, e, t, p, out=(first, out[1], flags))
        with pytest.raises(ValueError, match=r"^ik_chain: out\[0\] must be a numpy array "
                                             r"when out\[1\] receives the flags"):
            ac.ik_chain(np.zeros((5, 3, 3)), np.ones((5, 3)), out=(first, flags[:, 0]))
    assert flags.all()
    np.testing.assert_array_equal(out[0], before)


@pytest.mark.parametrize("kwargs, match", [
    (dict(weight=1.5), r"ik_two_bone: weight is 1.5 \(must lie in \[0, 1\]\)"),
    (dict(weight=[1, -0.5]), r"ik_two_bone: weight at index \(1,\) is -0.5"),
    (dict(soften=2.0), r"ik_two_bone: soften is 2.0 \(must lie in \[0, 1\]\)"),
    (dict(twist=np.inf), r"ik_two_bone: twist is inf \(must be finite\)"),
    (dict(pole=[0, np.nan, 0]), r"ik_two_bone: pole is nan"),
    (dict(start=[np.nan, 0, 0]), r"ik_two_bone: start is nan"),
    (dict(mid=[0, np.inf, 0]), r"ik_two_bone: mid is inf"),
    (dict(end=[0, 0, -np.inf]), r"ik_two_bone: end is -inf"),
])
def test_two_bone_bad_input(kwargs, match):
    args = dict(start=S, mid=M, end=E, target=E, pole=(0, 0, 1))
    for name in ("start", "mid", "end", "target", "pole"):
        if name in kwargs:
            args[name] = kwargs.pop(name)
    with pytest.raises(ValueError, match=match):
        ac.ik_two_bone(**args, **kwargs)


def test_two_bone_shape_errors():
    with pytest.raises(ValueError, match=r"^ik_two_bone: start must hold vectors \(x, y, z\) on "
                                         r"its last axis of length 3, got shape \(4,\)$"):
        ac.ik_two_bone(np.zeros(4), M, E, E, (0, 0, 1))
    with pytest.raises(ValueError, match=r"^ik_two_bone: cannot broadcast start \(2, 3\), mid "
                                         r"\(3,\), end \(3,\), target \(3, 3\)"):
        ac.ik_two_bone(np.zeros((2, 3)), M, E, np.zeros((3, 3)), (0, 0, 1))


def test_two_bone_input_not_modified():
    _, s, m, e, p = random_chains(10, seed=7)
    copies = [a.copy() for a in (s, m, e, p)]
    ac.ik_two_bone(s, m, e, s + 1, p)
    for a, c in zip((s, m, e, p), copies):
        np.testing.assert_array_equal(a, c)


# ----------------------------------------------------------- aim

def random_matrices(n, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    mats = np.zeros((n, 4, 4))
    mats[:, :3, :3] = qmat(q) * rng.uniform(0.5, 2, (n, 1, 1))
    mats[:, :3, 3] = rng.normal(size=(n, 3))
    mats[:, 3, 3] = 1
    return rng, mats


def test_aim_points_forward_at_target_and_up_to_pole():
    rng, mats = random_matrices(200, 8)
    forward, up = np.array([0.0, 0, 2]), np.array([0.0, 1, 0])
    target = rng.normal(size=(200, 3)) * 3
    pole = rng.normal(size=(200, 3)) * 3
    q = ac.ik_aim(mats, forward, up, target, pole)
    pos = mats[:, :3, 3]
    fw = rot(q, mats[:, :3, :3] @ forward)
    want = (target - pos) / np.linalg.norm(target - pos, axis=-1, keepdims=True)
    np.testing.assert_allclose(fw / np.linalg.norm(fw, axis=-1, keepdims=True), want, atol=1e-12)
    uw = rot(q, mats[:, :3, :3] @ up)
    n = np.cross(want, pole - pos)  # up lies in the (aim, pole) plane, on the pole's side
    uperp = uw - np.sum(uw * want, -1, keepdims=True) * want
    uperp /= np.linalg.norm(uperp, axis=-1, keepdims=True)
    np.testing.assert_allclose(np.sum(uperp * n, -1) / np.linalg.norm(n, axis=-1), 0, atol=1e-9)
    pperp = (pole - pos) - np.sum((pole - pos) * want, -1, keepdims=True) * want
    assert (np.sum(uperp * pperp, -1) > 0).all()


def test_aim_without_pole_is_shortest_arc_and_weights():
    rng, mats = random_matrices(50, 9)
    target = rng.normal(size=(50, 3)) * 3
    q = ac.ik_aim(mats, [1, 0, 0], [0, 1, 0], target)
    fw = mats[:, :3, 0] / np.linalg.norm(mats[:, :3, 0], axis=-1, keepdims=True)
    want = target - mats[:, :3, 3]
    want /= np.linalg.norm(want, axis=-1, keepdims=True)
    axis = np.cross(fw, want)
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    angle = np.arccos(np.clip(np.sum(fw * want, -1), -1, 1))
    np.testing.assert_allclose(q[:, :3] * np.sign(q[:, 3:]), axis * np.sin(angle / 2)[:, None], atol=1e-9)
    q0 = ac.ik_aim(mats, [1, 0, 0], [0, 1, 0], target, weight=0)
    assert (q0 == [0, 0, 0, 1]).all()
    at_joint = ac.ik_aim(np.eye(4), [1, 0, 0], [0, 1, 0], [0, 0, 0], [0, 1, 0])
    assert (at_joint == [0, 0, 0, 1]).all()


def test_aim_bad_input():
    with pytest.raises(ValueError, match=r"ik_aim: forward is 0.0 \(must not be zero\)"):
        ac.ik_aim(np.eye(4), [0, 0, 0], [0, 1, 0], [1, 1, 1])
    with pytest.raises(ValueError, match=r"ik_aim: joint_world is 0.0 \(its linear part maps forward to zero\)"):
        ac.ik_aim(np.diag([0.0, 1, 1, 1]), [1, 0, 0], [0, 1, 0], [1, 1, 1])
    with pytest.raises(ValueError, match=r"ik_aim: target at index \(1,\) is nan"):
        ac.ik_aim(np.eye(4), [1, 0, 0], [0, 1, 0], [[1, 1, 1], [np.nan, 0, 0]])
    with pytest.raises(ValueError, match=r"ik_aim: weight is 2"):
        ac.ik_aim(np.eye(4), [1, 0, 0], [0, 1, 0], [1, 1, 1], weight=2)
    with pytest.raises(ValueError, match=r"ik_aim: pole is inf"):
        ac.ik_aim(np.eye(4), [1, 0, 0], [0, 1, 0], [1, 1, 1], [np.inf, 0, 0])
    with pytest.raises(ValueError, match=r"ik_aim: up is nan"):
        ac.ik_aim(np.eye(4), [1, 0, 0], [np.nan, 1, 0], [1, 1, 1])


# ----------------------------------------------------------- chains

def random_chain(n, k, seed):
    rng = np.random.default_rng(seed)
    steps = rng.normal(size=(n, k - 1, 3))
    positions = np.concatenate([rng.normal(size=(n, 1, 3)), steps], axis=1).cumsum(axis=1)
    lengths = np.linalg.norm(steps, axis=-1)
    direction = rng.normal(size=(n, 3))
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    target = positions[:, 0] + direction * rng.uniform(0.2, 0.8, (n, 1)) * lengths.sum(-1, keepdims=True)
    return positions, lengths, target


@pytest.mark.parametrize("method", ["fabrik", "ccd"])
def test_chain_reaches_and_keeps_lengths(method):
    positions, lengths, target = random_chain(100, 5, 10)
    res = ac.ik_chain(positions, target, method=method, max_iterations=2000, tolerance=1e-8)
    assert res.converged.all()
    np.testing.assert_allclose(np.linalg.norm(res.positions[:, -1] - target, axis=-1), 0, atol=1e-8)
    np.testing.assert_allclose(np.linalg.norm(np.diff(res.positions, axis=1), axis=-1), lengths, rtol=1e-12)
    np.testing.assert_array_equal(res.positions[:, 0], positions[:, 0])


@pytest.mark.parametrize("method", ["fabrik", "ccd"])
def test_chain_meets_targets_at_full_reach(method):
    # targets at the chain's full length, to the last bit: FABRIK's passes
    # near them only as 1 / passes (1e6 passes once left 2e-6)
    positions, lengths, _ = random_chain(40, 5, seed=11)
    rng = np.random.default_rng(12)
    direction = rng.normal(size=(40, 3))
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    total = lengths.sum(-1)
    target = positions[:, 0] + direction * (total * np.where(np.arange(40) % 2, 1 - 1e-15, 1.0))[:, None]
    result = ac.ik_chain(positions, target, tolerance=1e-6, method=method)
    assert result.converged.all()
    np.testing.assert_array_less(np.linalg.norm(result.positions[:, -1] - target, axis=-1), 1e-6)
    np.testing.assert_allclose(np.linalg.norm(np.diff(result.positions, axis=1), axis=-1), lengths,
                               rtol=1e-12)


def test_chain_unreachable_straight_and_not_converged():
    positions, lengths, _ = random_chain(20, 4, 11)
    target = positions[:, 0] + 10 * lengths.sum(-1, keepdims=True) * np.array([0, 0, 1.0])
    res = ac.ik_chain(positions, target)
    assert not res.converged.any()
    d = np.diff(res.positions, axis=1) / lengths[..., None]
    np.testing.assert_allclose(d, np.broadcast_to([0, 0, 1.0], d.shape), atol=1e-12)


def test_chain_iteration_bound_reported():
    positions, _, target = random_chain(50, 6, 12)
    few = ac.ik_chain(positions, target, max_iterations=1, tolerance=1e-12)
    assert not few.converged.all()
    none = ac.ik_chain(positions, target, max_iterations=0)
    np.testing.assert_array_equal(none.positions, positions)


@pytest.mark.parametrize("method", ["fabrik", "ccd"])
def test_chain_cone_limits_hold(method):
    positions, lengths, target = random_chain(50, 5, 13)
    positions = positions[:, :1] + np.linspace(0, 1, 5)[None, :, None] * np.array([4.0, 0, 0])
    lengths = np.ones((50, 4))
    limit = 0.4
    res = ac.ik_chain(positions, target, method=method, limits=np.full(5, limit), max_iterations=50)
    seg = np.diff(res.positions, axis=1)
    seg /= np.linalg.norm(seg, axis=-1, keepdims=True)
    bend = np.arccos(np.clip(np.sum(seg[:, 1:] * seg[:, :-1], -1), -1, 1))
    assert (bend <= limit + 1e-9).all()
    np.testing.assert_allclose(np.linalg.norm(np.diff(res.positions, axis=1), axis=-1), lengths, rtol=1e-12)


def test_chain_bad_input():
    p = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0.0]])
    with pytest.raises(ValueError, match=r"ik_chain: method is 'jacobian' \(must be one of 'fabrik', 'ccd'\)"):
        ac.ik_chain(p, [1, 1, 0], method="jacobian")
    with pytest.raises(ValueError, match=r"ik_chain: tolerance is 0.0 \(must be a finite number > 0\)"):
        ac.ik_chain(p, [1, 1, 0], tolerance=0)
    with pytest.raises(ValueError, match=r"ik_chain: max_iterations is -1 \(must be >= 0\)"):
        ac.ik_chain(p, [1, 1, 0], max_iterations=-1)
    with pytest.raises(ValueError, match=r"ik_chain: positions has shape \(3,\)"):
        ac.ik_chain(p[0], [1, 1, 0])
    with pytest.raises(ValueError, match=r"ik_chain: target at index \(1,\) is nan"):
        ac.ik_chain(p, [[1, 1, 0], [np.nan, 0, 0]])
    # positions and limits are named by their joint, in a batch by chain and joint
    with pytest.raises(ValueError, match=r"ik_chain: positions at index \(2,\) is inf"):
        ac.ik_chain(p + [[0, 0, 0], [0, 0, 0], [np.inf, 0, 0]], [1, 1, 0])
    with pytest.raises(ValueError, match=r"ik_chain: limits at index \(1,\) is 4.0 \(must lie in "
                                         r"\[0, pi\]\)"):
        ac.ik_chain(p, [1, 1, 0], limits=[0, 4, 0])
    batch = np.repeat(p[None], 4, axis=0)
    batch[2, 1, 0] = np.nan
    with pytest.raises(ValueError, match=r"ik_chain: positions at index \(2, 1\) is nan"):
        ac.ik_chain(batch, [1, 1, 0])
    limits = np.zeros((4, 3))
    limits[3, 2] = -1.0
    with pytest.raises(ValueError, match=r"ik_chain: limits at index \(3, 2\) is -1.0"):
        ac.ik_chain(np.repeat(p[None], 4, axis=0), [1, 1, 0], limits=limits)


# ----------------------------------------------------------- whole clips

def test_two_bone_clip_locks_a_foot_on_the_cmu_walk():
    from pathlib import Path
    scene = ac.bvh.load(Path(__file__).parent / "data" / "bvh" / "cmu_12_01_walk.bvh")
    clip = scene.clips[0]
    times = ac.ik_clip_times(clip)
    world = scene.world(clip, times)
    hip, knee, foot = (scene.node_index(n) for n in ("LeftUpLeg", "LeftLeg", "LeftFoot"))
    # hold the foot where it is at the first frame, raised a little: reachable throughout
    # the first tenth of the walk
    frames = len(times) // 10
    target = world[0, foot, :3, 3] + [0, 2.0, 0]
    locked = ac.ik_two_bone_clip(scene, clip, "LeftUpLeg", "LeftLeg", "LeftFoot", target)
    after = scene.world(locked, times)
    size = np.ptp(world[0, :, :3, 3], axis=0).max()
    np.testing.assert_allclose(after[:frames, foot, :3, 3], np.broadcast_to(target, (frames, 3)),
                               atol=1e-9 * size)
    # the rest of the body is untouched; the leg keeps its bone lengths
    others = [j for j in range(len(scene.nodes)) if j not in range(hip, hip + 5)]
    np.testing.assert_allclose(after[:, others], world[:, others], atol=1e-9 * size)
    for a, b in ((hip, knee), (knee, foot)):
        np.testing.assert_allclose(np.linalg.norm(after[:, a, :3, 3] - after[:, b, :3, 3], axis=-1),
                                   np.linalg.norm(world[:, a, :3, 3] - world[:, b, :3, 3], axis=-1),
                                   rtol=1e-12)
    # weight 0 gives the clip's poses back
    same = ac.ik_two_bone_clip(scene, clip, "LeftUpLeg", "LeftLeg", "LeftFoot", target, weight=0)
    np.testing.assert_allclose(scene.world(same, times), world, atol=1e-9 * size)
    with pytest.raises(ValueError, match=r"^ik_two_bone_clip: mid 'LeftKnee' not in the scene; closest: "):
        ac.ik_two_bone_clip(scene, clip, "LeftUpLeg", "LeftKnee", "LeftFoot", target)
    with pytest.raises(ValueError, match=r"ik_two_bone_clip: 'LeftLeg', 'LeftUpLeg', 'LeftFoot' "
                                         r"is not a chain"):
        ac.ik_two_bone_clip(scene, clip, "LeftLeg", "LeftUpLeg", "LeftFoot", target)
    with pytest.raises(ValueError, match=r"ik_two_bone_clip: cannot broadcast"):
        ac.ik_two_bone_clip(scene, clip, "LeftUpLeg", "LeftLeg", "LeftFoot", np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"ik_two_bone_clip: target, pole"):
        ac.ik_two_bone_clip(scene, clip, "LeftUpLeg", "LeftLeg", "LeftFoot", np.zeros((2, 1, 3)))


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e-20, 1e20, 1e150, 1e300])
def test_two_bone_scale_invariant_at_extreme_sizes(scale):
    _, s, m, e, p = random_chains(20, seed=14)
    t = (s + e) / 2 + 0.3
    want = ac.ik_two_bone(s, m, e, t, p)
    got = ac.ik_two_bone(s * scale, m * scale, e * scale, t * scale, p * scale)
    np.testing.assert_allclose(got.rotation_start, want.rotation_start, atol=1e-12)
    np.testing.assert_allclose(got.rotation_mid, want.rotation_mid, atol=1e-12)
    np.testing.assert_array_equal(got.reached, want.reached)


def test_two_bone_unrepresentable_bones_overflow():
    with pytest.raises(OverflowError, match=r"ik_two_bone: mid is 1e\+308 \(the chain's bones "
                                            r"are too long to represent\)"):
        ac.ik_two_bone([-1e308, 0, 0], [1e308, 0, 0], [0, 0, 0], [1, 1, 1], [0, 0, 1])
    with pytest.raises(OverflowError, match=r"ik_two_bone: target is 1\.5e\+308 \(target or pole"):
        ac.ik_two_bone([-1e308, 0, 0], [-1e308, 1, 0], [-1e308, 2, 0], [1.5e308, 0, 0], [0, 0, 1])


def test_two_bone_clip_names_an_unknown_clip():
    scene = ac.bvh.load(DATA / "bvh" / "cmu_12_01_walk.bvh")
    from animcore.model import NodeLookupError

    with pytest.raises(NodeLookupError, match=r"^ik_two_bone_clip: clip 7 is neither a clip "
                                              r"name nor an index in \[0, 1\)$"):
        ac.ik_two_bone_clip(scene, 7, "LeftUpLeg", "LeftLeg", "LeftFoot", [0, 1, 0])
    with pytest.raises(ValueError, match=r"^ik_two_bone_clip: no clip named 'run'"):
        ac.ik_two_bone_clip(scene, "run", "LeftUpLeg", "LeftLeg", "LeftFoot", [0, 1, 0])


def test_two_bone_clip_names_itself_in_the_errors_of_what_it_calls():
    import dataclasses

    scene = ac.bvh.load(DATA / "bvh" / "cmu_12_01_walk.bvh")
    survey = ac.load(DATA / "gltf" / "Fox" / "Fox.glb").clip("Survey")
    with pytest.raises(ValueError, match=r"^ik_two_bone_clip: clip 'Survey' animates node "
                                         r"'b_Head_05' \(index 8\), which the scene does not "
                                         r"have there"):
        ac.ik_two_bone_clip(scene, survey, "LeftUpLeg", "LeftLeg", "LeftFoot", [0, 1, 0])
    nodes = list(scene.nodes)
    nodes[3] = dataclasses.replace(nodes[3], scale=np.zeros(3))
    flat = dataclasses.replace(scene, nodes=tuple(nodes))
    with pytest.raises(ValueError, match=r"^ik_two_bone_clip: matrix at index \(0, 3\) is 0.0 "
                                         r"\(has a zero column 0"):
        ac.ik_two_bone_clip(flat, 0, "LeftUpLeg", "LeftLeg", "LeftFoot", [0, 1, 0])


def _chain(translations):
    """Three nodes in a chain at these local translations, the first one turning
    a quarter about z over a 1 s clip."""
    from animcore.model import Channel, Clip, Node, Scene

    nodes = tuple(Node(i, f"j{i}", i - 1, (i + 1,) if i < 2 else (), t, [0, 0, 0, 1.0],
                       [1.0, 1, 1]) for i, t in enumerate(translations))
    turn = ac.RotationCurve([0.0, 1.0], [[0, 0, 0, 1.0], [0, 0, SQ, SQ]], interpolation="linear")
    clip = Clip("turn", 1.0, (Channel.from_curve(0, "rotation", turn, node_name="j0"),))
    return Scene(nodes, ((0,),), 0, (), (clip,))


def test_two_bone_clip_default_pole_of_joints_near_the_double_range():
    import warnings

    scene = _chain([[1e308, 0, 0], [0, 1, 0], [0.5, 1, 0]])
    times = ac.ik_clip_times(scene.clips[0])
    world = scene.world(0, times)
    s, m, e = (world[:, j, :3, 3] for j in range(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (s + e) / 2 overflowed, with a RuntimeWarning
        got = ac.ik_two_bone_clip(scene, 0, 0, 1, 2, [1e308, 1, 1])
        pole = m + (m - (s / 2 + e / 2))
        assert np.isfinite(pole).all()
        given = ac.ik_two_bone_clip(scene, 0, 0, 1, 2, [1e308, 1, 1], pole=pole)
        for a, b in zip(got.channels, given.channels):
            np.testing.assert_array_equal(a.output, b.output)
        # bones of a representable length, but a default pole beyond the double range
        far = _chain([[1e308, 0, 0], [5e307, 0, 0], [-5e307, 1, 0]])
        with pytest.raises(OverflowError, match=r"^ik_two_bone_clip: the default pole \(the "
                                                r"mid joint pushed away from the start-end "
                                                r"midpoint; give pole=\) at index \(0,\) is "
                                                r"beyond the double range$"):
            ac.ik_two_bone_clip(far, 0, 0, 1, 2, [1e308, 1, 1])


def test_two_bone_clip_from_a_root_under_the_requested_axes():
    """Loaded Z up, an FBX scene puts a turn above its roots: a chain that
    starts at the root (the hips) still reaches the target, the root's new
    rotation taken under that turn."""
    scene = ac.fbx.load(DATA / "fbx" / "walk.fbx", up="z")
    clip = scene.clips[0]
    start, mid, end = (scene.node_index(n) for n in ("Hips", "LeftUpLeg", "LeftLeg"))
    times = ac.ik_clip_times(clip)
    world = scene.world(clip, times)
    # a tenth of the way from the knee towards the hips: within reach
    target = world[:, end, :3, 3] + 0.1 * (world[:, start, :3, 3] - world[:, end, :3, 3])
    solved = ac.ik_two_bone_clip(scene, clip, start, mid, end, target)
    np.testing.assert_allclose(scene.world(solved, times)[:, end, :3, 3], target, rtol=0,
                               atol=1e-6)


def test_two_bone_clip_through_a_joint_with_a_negative_scale():
    """A mid joint with scale (-1, -1, -1) mirrors its world matrix: its new
    local rotation takes the signs of its own scale in, and the end still
    reaches the target."""
    from animcore.gltf import Clip, Node, Scene

    nodes = (Node(0, "A", -1, (1,), np.zeros(3), np.array([0, 0, 0, 1.0]), np.ones(3)),
             Node(1, "B", 0, (2,), np.array([0, 1.0, 0]), np.array([0, 0, 0, 1.0]),
                  -np.ones(3)),
             Node(2, "C", 1, (), np.array([0.3, 1.0, 0]), np.array([0, 0, 0, 1.0]), np.ones(3)))
    times = np.array([0.0, 1.0])
    turn = ac.quat_from_axis_angle([[0, 0, 1], [0, 0, 1]], [0.1, 0.3])
    clip = Clip("turn", 1.0, (ac.Channel.from_curve(0, "rotation", ac.RotationCurve(times, turn),
                                                   node_name="A"),))
    scene = Scene(nodes, ((0,),), 0, (), (clip,))
    t = ac.ik_clip_times(clip)
    world = scene.world(clip, t)
    target = world[:, 2, :3, 3] + 0.1 * (world[:, 0, :3, 3] - world[:, 2, :3, 3])
    solved = ac.ik_two_bone_clip(scene, clip, 0, 1, 2, target)
    np.testing.assert_allclose(scene.world(solved, t)[:, 2, :3, 3], target, rtol=0, atol=1e-12)
