import copy
import pickle

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import animcore
from animcore import Skeleton, decompose

from reference import trs_matrix, world_loop

RNG = np.random.default_rng(12)
# Parents listed after their children, two trees.
PARENTS = [3, -1, 1, 1, 3, 2, -1, 6]


def random_pose(lead, joints, rng=RNG, uniform=False):
    t = rng.normal(size=lead + (joints, 3))
    r = rng.normal(size=lead + (joints, 4))  # not unit: the skeleton normalizes
    s = rng.uniform(0.5, 2.0, size=lead + (joints, 1 if uniform else 3))
    return t, r, np.broadcast_to(s, lead + (joints, 3)).copy()


def test_world_matches_a_plain_loop_over_the_hierarchy():
    skeleton = Skeleton(PARENTS)
    t, r, s = random_pose((5, 2), len(PARENTS))
    world = skeleton.world(t, r, s)
    assert world.shape == (5, 2, 8, 4, 4)
    unit = r / np.linalg.norm(r, axis=-1, keepdims=True)
    np.testing.assert_allclose(world, world_loop(PARENTS, trs_matrix(t, unit, s)),
                               rtol=0, atol=1e-12)


def test_world_uses_the_rest_pose_for_missing_properties_and_broadcasts():
    t, r, s = random_pose((), len(PARENTS))
    skeleton = Skeleton(PARENTS, t, r, s)
    rotations = RNG.normal(size=(4, 1, len(PARENTS), 4))
    scales = RNG.uniform(0.5, 2, size=(3, len(PARENTS), 3))
    world = skeleton.world(rotation=rotations, scale=scales)
    assert world.shape == (4, 3, len(PARENTS), 4, 4)
    unit = rotations / np.linalg.norm(rotations, axis=-1, keepdims=True)
    expected = world_loop(PARENTS, trs_matrix(t, unit, scales))
    np.testing.assert_allclose(world, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(skeleton.world(), world_loop(PARENTS, trs_matrix(t, r / np.linalg.norm(r, axis=-1, keepdims=True), s)), atol=1e-12)


def test_world_of_an_arm_by_hand():
    arm = Skeleton([-1, 0, 1], translation=[[0, 0, 0], [1, 0, 0], [1, 0, 0]])
    bend = Rotation.from_euler("z", 90, degrees=True).as_quat()
    world = arm.world(rotation=[bend, bend, [0, 0, 0, 1]])
    np.testing.assert_allclose(world[:, :3, 3], [[0, 0, 0], [0, 1, 0], [-1, 1, 0]], atol=1e-15)


def test_local_inverts_world():
    skeleton = Skeleton(PARENTS)
    t, r, s = random_pose((6,), len(PARENTS), uniform=True)
    world = skeleton.world(t, r, s)
    local = skeleton.local(world)
    np.testing.assert_allclose(local.translation, t, atol=1e-12)
    np.testing.assert_allclose(local.scale, s, atol=1e-12)
    unit = r / np.linalg.norm(r, axis=-1, keepdims=True)
    np.testing.assert_allclose(np.abs(np.sum(local.rotation * unit, axis=-1)), 1, atol=1e-12)
    np.testing.assert_allclose(skeleton.world(*local), world, atol=1e-12)


def test_world_transforms_where_the_scales_allow_it():
    skeleton = Skeleton([-1, 0])
    t, r, s = random_pose((3,), 2, uniform=True)
    trs = skeleton.world_transforms(t, r, s)
    np.testing.assert_allclose(trs.scale[:, 1], s[:, 0] * s[:, 1], atol=1e-12)
    np.testing.assert_allclose(trs.translation, skeleton.world(t, r, s)[..., :3, 3], atol=1e-12)
    sheared = [[1, 1, 1], [3, 1, 1]]  # non-uniform parent scale above a rotated child
    with pytest.raises(ValueError, match=r"Skeleton.world_transforms: matrix at index \(1,\) is .*sheared"):
        skeleton.world_transforms(rotation=[[0, 0, 0, 1], [0, 0, 0.3, 1]], scale=sheared[::-1])


def test_decompose_mirror_and_matches_scipy():
    m = np.eye(4)
    m[:3, :3] = Rotation.from_rotvec([0.1, 0.2, 0.3]).as_matrix() * [-2, 3, 4]
    m[:3, 3] = [1, 2, 3]
    trs = decompose(m)
    np.testing.assert_allclose(trs.scale, [-2, 3, 4], atol=1e-14)
    np.testing.assert_allclose(trs_matrix(trs.translation, trs.rotation, trs.scale), m,
                               atol=1e-14)


@pytest.mark.parametrize("parents, message", [
    ([1, 2, 0], r"Skeleton: parents at index \(\d,\) is \d.0 \(makes joint \d its own ancestor"),
    ([-1, 0, 3, 2], r"parents at index \((2,\) is 3|3,\) is 2).0 \(makes joint [23] its own ancestor"),
    ([-1, 5], r"parents at index \(1,\) is 5.0 \(must be -1 \(a root\) or a joint index in \[0, 2\)"),
    ([-1, -2], r"parents at index \(1,\) is -2.0"),
    ([0], r"parents at index \(0,\) is 0.0 \(makes joint 0 its own ancestor"),
])
def test_bad_parents(parents, message):
    with pytest.raises(ValueError, match=message):
        Skeleton(parents)


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"Skeleton: parents must have shape \(J,\)"):
        Skeleton([[0]])
    with pytest.raises(ValueError, match=r"Skeleton: parents must be integers"):
        Skeleton([-1, 0.5])
    with pytest.raises(ValueError, match=r"Skeleton: translation must have shape \(2, 3\)"):
        Skeleton([-1, 0], translation=np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"Skeleton: names must be 2 strings"):
        Skeleton([-1, 0], names=["a"])
    with pytest.raises(ValueError, match=r"Skeleton: \|rotation\| at index \(1,\) is 0.0"):
        Skeleton([-1, 0], rotation=[[0, 0, 0, 1], [0, 0, 0, 0]])
    skeleton = Skeleton([-1, 0])
    with pytest.raises(ValueError, match=r"Skeleton.world: rotation must have shape \(\.\.\., 2, 4\)"):
        skeleton.world(rotation=np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"Skeleton.world: cannot broadcast"):
        skeleton.world(np.zeros((3, 2, 3)), np.ones((4, 2, 4)))
    with pytest.raises(ValueError, match=r"Skeleton.world: translation at index \(1, 0\) is nan"):
        skeleton.world(np.array([[[0, 0, 0]] * 2, [[np.nan, 0, 0], [0, 0, 0]]]))
    with pytest.raises(ValueError, match=r"Skeleton.world: scale at index \(1,\) is inf"):
        skeleton.world(scale=[[1, 1, 1], [1, np.inf, 1]])
    with pytest.raises(OverflowError, match=r"Skeleton.world: world at index \(1,\) is inf"):
        skeleton.world(translation=[[1e308, 0, 0], [1e308, 0, 0]])
    with pytest.raises(ValueError, match=r"Skeleton.local: world must have shape"):
        skeleton.local(np.zeros((3, 4, 4)))
    singular = np.zeros((2, 4, 4))
    singular[:, 3, 3] = 1
    with pytest.raises(ValueError, match=r"Skeleton.local: world at index \(0,\) is 0.0 \(must be invertible"):
        skeleton.local(singular)
    with pytest.raises(ValueError, match=r"decompose: matrix at index \(\) .*last row"):
        decompose(np.ones((4, 4)))
    with pytest.raises(KeyError, match="no joint named 'x'"):
        skeleton.index("x")


def test_out_receives_the_result_and_is_untouched_on_error():
    skeleton = Skeleton([-1, 0])
    out = np.full((3, 2, 4, 4), 7.0)
    assert skeleton.world(scale=np.full((3, 2, 3), 2.0), out=out) is out
    np.testing.assert_array_equal(out[:, 1, :3, :3], np.broadcast_to(np.eye(3) * 4, (3, 3, 3)))
    before = out.copy()
    bad = np.ones((3, 2, 3))
    bad[2, 1, 0] = np.nan
    with pytest.raises(ValueError):
        skeleton.world(scale=bad, out=out)
    np.testing.assert_array_equal(out, before)


def test_inputs_not_modified_and_empty_poses():
    skeleton = Skeleton(PARENTS)
    t, r, s = random_pose((2,), len(PARENTS))
    copies = [a.copy() for a in (t, r, s)]
    skeleton.world(t[:, ::1], r, s)
    for a, b in zip((t, r, s), copies):
        np.testing.assert_array_equal(a, b)
    assert skeleton.world(np.zeros((0, len(PARENTS), 3))).shape == (0, len(PARENTS), 4, 4)
    assert Skeleton([]).world().shape == (0, 4, 4)


def test_pickle_copy_and_equality_by_value():
    t, r, s = random_pose((), 3)
    skeleton = Skeleton([-1, 0, 0], t, r, s, names=["hips", "l", "r"])
    for clone in (pickle.loads(pickle.dumps(skeleton)), copy.copy(skeleton), copy.deepcopy(skeleton)):
        assert clone == skeleton
        np.testing.assert_array_equal(clone.world(), skeleton.world())
    assert skeleton != Skeleton([-1, 0, 0], t, r, s)
    assert skeleton != Skeleton([-1, 0, 1], t, r, s, names=["hips", "l", "r"])
    assert list(skeleton.children("hips")) == [1, 2]
    assert list(Skeleton(PARENTS).order).index(3) < list(Skeleton(PARENTS).order).index(0)


def test_top_level_names():
    assert animcore.Skeleton is Skeleton


def test_docstring_examples():
    import doctest

    import animcore.skeleton

    assert doctest.testmod(animcore.skeleton).failed == 0
