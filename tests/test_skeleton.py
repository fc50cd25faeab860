import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.spatial.transform import Rotation

import animcore
from animcore import Skeleton, decompose

from reference import products_in_order, trs_matrix, world_loop

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
    rest = world_loop(PARENTS, trs_matrix(t, r / np.linalg.norm(r, axis=-1, keepdims=True), s))
    np.testing.assert_allclose(skeleton.world(), rest, atol=1e-12)


def test_world_of_an_arm_by_hand():
    arm = Skeleton([-1, 0, 1], translation=[[0, 0, 0], [1, 0, 0], [1, 0, 0]])
    bend = Rotation.from_euler("z", 90, degrees=True).as_quat()
    world = arm.world(rotation=[bend, bend, [0, 0, 0, 1]])
    np.testing.assert_allclose(world[:, :3, 3], [[0, 0, 0], [0, 1, 0], [-1, 1, 0]], atol=1e-15)


def test_rotations_may_be_scipy_rotations():
    rotation = Rotation.random(len(PARENTS), random_state=5)
    skeleton = Skeleton(PARENTS, rotation=rotation)
    np.testing.assert_array_equal(skeleton.rest.rotation, rotation.as_quat())
    np.testing.assert_array_equal(Skeleton(PARENTS).world(rotation=rotation), skeleton.world())


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
    ([1, 2, 0], r"Skeleton: parents at index \(\d,\) is \d(\.0)? \(makes joint \d its own ancestor"),
    ([-1, 0, 3, 2], r"parents at index \((2,\) is 3|3,\) is 2)(\.0)? \(makes joint [23] its own ancestor"),
    ([-1, 5], r"parents at index \(1,\) is 5(\.0)? \(must be -1 \(a root\) or a joint index in \[0, 2\)"),
    ([-1, -2], r"parents at index \(1,\) is -2(\.0)? "),
    ([0], r"parents at index \(0,\) is 0(\.0)? \(makes joint 0 its own ancestor"),
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
    with pytest.raises(ValueError, match=r"decompose: matrix (at index \(\) )?is .*last row"):
        decompose(np.ones((4, 4)))
    with pytest.raises(KeyError, match="no joint named 'x'"):
        skeleton.index("x")


def test_extreme_finite_rotations_are_normalized_without_overflow():
    skeleton = Skeleton([-1, 0], translation=[[0, 0, 0], [1, 0, 0]])
    quarter = Rotation.from_euler("z", 90, degrees=True).as_quat()
    expected = skeleton.world(rotation=[quarter, [0, 0, 0, 1]])
    for factor in (1e-200, 1e200, 1e-310):
        np.testing.assert_allclose(skeleton.world(rotation=[quarter * factor, [0, 0, 0, 1]]),
                                   expected, atol=1e-15)


def test_world_batch_mixing_ordinary_and_extreme_poses():
    # Poses whose rotations need rescaling (tiny or huge quaternions) or that
    # fail sit between ordinary ones: each pose's world is bitwise the one it
    # gets alone, matches the plain loop, and the first bad pose is reported.
    skeleton = Skeleton(PARENTS)
    t, r, s = random_pose((9,), len(PARENTS))
    r[2, 3] *= 1e-200
    r[5, 0] *= 1e200
    r[6] *= 1e-170  # every |q|^2 underflows
    r[8, 1] *= 1e-157  # |q|^2 a subnormal (was refused as a zero quaternion)
    r[8, 2] *= 1e-160
    r[8, 3] = [3e-320, -1e-320, 0.0, 2e-320]  # subnormal components
    world = skeleton.world(t, r, s)
    for i in range(9):
        np.testing.assert_array_equal(world[i], skeleton.world(t[i], r[i], s[i]))
    unit = r / np.max(np.abs(r), axis=-1, keepdims=True)  # scipy takes no 1e-170 norms
    np.testing.assert_allclose(world, world_loop(PARENTS, trs_matrix(t, unit, s)), atol=1e-12)
    t[7, 4, 1] = np.nan
    s[4, 2], s[4, 5] = 1e200, 1e200  # joint 5 (child of 2) overflows, joints before it do not
    with pytest.raises(OverflowError, match=r"Skeleton.world: world at index \(4, 5\) is"):
        skeleton.world(t, r, s)
    s[4, 2], s[4, 5] = 1.0, 1.0
    with pytest.raises(ValueError, match=r"Skeleton.world: translation at index \(7, 4\) is nan"):
        skeleton.world(t, r, s)


@pytest.mark.parametrize("poses", [1, 7, 8, 19])
@pytest.mark.parametrize("joints", [5, 40])  # 40: the lanes' scratch off the stack
@pytest.mark.parametrize("per_pose", [False, True])
def test_skinning_is_world_times_bind_bit_for_bit(poses, joints, per_pose):
    # Lanes (8 poses at a time) and the scalar path (the rest, and poses with
    # tiny rotations) make the same bits as the world matrices and their
    # products in order; zeros of both signs in bind keep their signs.
    rng = np.random.default_rng(joints * 100 + poses)
    parents = [-1] + [int(rng.integers(0, j)) for j in range(1, joints)]
    skeleton = Skeleton(parents)
    t, r, s = random_pose((poses,), joints, rng)
    r[poses // 2, joints // 2] *= 1e-170  # |q|^2 underflows: the scalar path
    bind = rng.normal(size=((poses,) if per_pose else ()) + (joints, 4, 4))
    bind[..., 1, 2] = -0.0
    bind[..., 3, :] = [0.0, -0.0, 0.0, 1.0]
    got = skeleton.skinning(t, r, s, bind=bind)
    world = skeleton.world(t, r, s)
    expected = products_in_order(world, bind)
    assert got.shape == (poses, joints, 4, 4)
    assert got.tobytes() == expected.tobytes()
    np.testing.assert_allclose(got, world @ bind, rtol=0, atol=1e-13 * np.abs(expected).max())
    out = np.empty_like(got)
    assert skeleton.skinning(t, r, s, bind=bind, out=out) is out
    assert out.tobytes() == got.tobytes()


def test_skinning_broadcasts_and_defaults_to_the_rest_pose():
    t, r, s = random_pose((), len(PARENTS))
    skeleton = Skeleton(PARENTS, t, r, s)
    bind = RNG.normal(size=(len(PARENTS), 4, 4))
    rest = skeleton.skinning(bind=bind)
    assert rest.tobytes() == products_in_order(skeleton.world(), bind).tobytes()
    moved = random_pose((3, 1), len(PARENTS))[1]
    got = skeleton.skinning(rotation=moved, bind=bind[None, None])
    assert got.shape == (3, 1, len(PARENTS), 4, 4)
    assert got.tobytes() == products_in_order(skeleton.world(rotation=moved), bind).tobytes()


def test_skinning_errors_name_the_pose_and_joint_and_leave_out_untouched():
    skeleton = Skeleton(PARENTS)
    t, r, s = random_pose((10,), len(PARENTS))
    bind = np.broadcast_to(RNG.normal(size=(len(PARENTS), 4, 4)), (10, len(PARENTS), 4, 4)).copy()
    out = np.zeros((10, len(PARENTS), 4, 4))
    bad = bind.copy()
    bad[9, 2, 1, 1] = np.nan
    with pytest.raises(ValueError, match=r"Skeleton.skinning: bind at index \(9, 2\) is nan"):
        skeleton.skinning(t, r, s, bind=bad, out=out)
    huge = bind.copy()
    huge[4, 5, 3, 0], t[4, 5, 0] = 1e300, 1e300  # world[4, 5] is finite, its product is not
    with pytest.raises(OverflowError,
                       match=r"Skeleton.skinning: product at index \(4, 5\) is"):
        skeleton.skinning(t, r, s, bind=huge, out=out)
    t[4, 5, 0] = 0.0
    r[6, 3] = 0.0
    with pytest.raises(ValueError, match=r"Skeleton.skinning: \|rotation\| at index \(6, 3\)"):
        skeleton.skinning(t, r, s, bind=bind, out=out)
    assert not out.any()


def _world_alone(skeleton, t, r, s, i):
    """Pose i by itself (one pose takes the scalar path): its world, or the
    error it raises with the index it would have among all the poses."""
    try:
        return skeleton.world(t[i:i + 1], r[i:i + 1], s[i:i + 1])[0]
    except (ValueError, OverflowError) as e:
        return type(e), str(e).replace("at index (0, ", f"at index ({i}, ")


def _check_against_each_pose(skeleton, t, r, s):
    alone = [_world_alone(skeleton, t, r, s, i) for i in range(len(t))]
    failed = [a for a in alone if isinstance(a, tuple)]
    if failed:  # the first bad pose is named, as pose by pose
        with pytest.raises(failed[0][0]) as e:
            skeleton.world(t, r, s)
        assert str(e.value) == failed[0][1]
    else:
        world = skeleton.world(t, r, s)
        assert world.tobytes() == np.stack(alone).tobytes()


@pytest.mark.parametrize("poses", [8, 9, 23, 64, 101])
def test_many_poses_give_the_bits_and_the_errors_of_each_pose_alone(poses):
    # Many poses go through vector lanes, AC_LANES at a time where the CPU has
    # AVX-512F; one pose alone takes the scalar path, the definition.
    rng = np.random.default_rng(poses)
    tree = [-1] + [int(rng.integers(-1, j)) for j in range(1, 37)]  # a few roots
    at = rng.permutation(len(tree))  # joints renumbered: parents listed anywhere
    parents = [-1] * len(tree)
    for j, p in enumerate(tree):
        parents[at[j]] = -1 if p < 0 else int(at[p])
    skeleton = Skeleton(parents)
    t, r, s = random_pose((poses,), len(parents), rng)
    s *= rng.choice([-1.0, 1.0], size=s.shape)  # mirrors
    s[rng.random(s.shape) < 0.02] = 0.0
    _check_against_each_pose(skeleton, t, r, s)
    # tiny and huge rotations: those poses need the careful path
    r2 = r.copy()
    r2[1, 3] *= 1e-170
    r2[poses - 1, 0] *= 1e160
    r2[poses // 2, 7] *= 1e-300
    _check_against_each_pose(skeleton, t, r2, s)
    # rest translations and scales, shared by every pose (a step of 0)
    world = skeleton.world(rotation=r)
    for i in range(0, poses, 5):
        assert world[i].tobytes() == skeleton.world(rotation=r[i]).tobytes()
    # a world that overflows, then non-finite and zero inputs: the first bad pose
    # (by pose, then by joint index) is named, whatever the lanes saw
    s3 = s.copy()
    s3[poses - 1, 0], s3[poses - 1, 1:] = 1e300, 1e300
    _check_against_each_pose(skeleton, t, r2, s3)
    for name, value in (("t", np.nan), ("r", np.inf), ("s", -np.inf), ("r", 0.0)):
        t4, r4, s4 = t.copy(), r2.copy(), s3.copy()
        a = {"t": t4, "r": r4, "s": s4}[name]
        i = poses - 1 - poses // 3
        if name == "r" and value == 0.0:
            a[i, 30] = 0.0
        else:
            a[i, 30, 1] = value
        a[i, 31, 0] = value  # a later joint too: the first by index is named
        _check_against_each_pose(skeleton, t4, r4, s4)


@settings(max_examples=30)
@given(lead=hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3),
       seed=st.integers(0, 2**31), contiguous_input=st.booleans(), dtype=st.sampled_from(["f4", "f8"]))
def test_world_property_against_the_loop(lead, seed, contiguous_input, dtype):
    rng = np.random.default_rng(seed)
    skeleton = Skeleton(PARENTS)
    t, r, s = random_pose(tuple(lead), len(PARENTS), rng)
    t, r, s = (a.astype(dtype) for a in (t, r, s))
    if not contiguous_input:  # every other joint-pose of a larger array
        t = np.repeat(t, 2, axis=-1)[..., ::2]
    world = skeleton.world(t, r, s)
    assert world.shape == tuple(lead) + (len(PARENTS), 4, 4)
    r64 = r.astype(float)
    unit = r64 / np.linalg.norm(r64, axis=-1, keepdims=True)
    np.testing.assert_allclose(world, world_loop(PARENTS, trs_matrix(t, unit, s)), atol=1e-9)


def test_workers_give_the_same_bits_and_the_same_error():
    skeleton = Skeleton(PARENTS)
    t, r, s = random_pose((7, 5), len(PARENTS))
    serial = skeleton.world(t, r, s)
    for workers in (2, 3, -1):
        np.testing.assert_array_equal(skeleton.world(t, r, s, workers=workers), serial)
    np.testing.assert_array_equal(skeleton.world(t[0], r, workers=2), skeleton.world(t[0], r))
    r[6, 4] = 0.0  # every joint of one pose: the first by index is named
    r[6, 2, 5] = np.nan
    with pytest.raises(ValueError, match=r"rotation at index \(6, 2, 5\) is nan"):
        skeleton.world(t, r, s, workers=4)
    with pytest.raises(ValueError, match=r"Skeleton.world: workers is 0 \(must be None, a "
                                         r"positive count, or -k for all but k - 1 of the"):
        skeleton.world(t, workers=0)
    with pytest.raises(ValueError, match=r"Skeleton.world: workers must be None or an integer"):
        skeleton.world(t, workers=1.5)


@pytest.mark.parametrize("workers", [True, np.True_, np.False_, 1.0, np.float64(2.0), "2"])
def test_workers_that_are_not_integers_are_refused(workers):
    # (NumPy 1's bools have __index__: they were read as 1 and 0)
    skeleton = Skeleton(PARENTS)
    with pytest.raises(ValueError, match=r"^Skeleton.world: workers must be None or an integer"):
        skeleton.world(workers=workers)


def test_an_error_reading_workers_is_raised_as_it_is():
    class Failing:
        def __index__(self):
            raise MemoryError("from __index__")

    with pytest.raises(MemoryError, match="from __index__"):
        Skeleton(PARENTS).world(workers=Failing())


@pytest.mark.parametrize("workers", [np.int64(2), np.int8(-1), -2, 2**80])
def test_workers_are_read_alike_by_every_function(workers):
    # one reading of workers= (scipy.fft's: -k for all but k - 1 cores; any
    # integer, NumPy's too), by the skeleton and the quaternion kernels alike
    skeleton = Skeleton(PARENTS)
    t, r, s = random_pose((7, 5), len(PARENTS))
    np.testing.assert_array_equal(skeleton.world(t, r, s, workers=workers),
                                  skeleton.world(t, r, s))
    np.testing.assert_array_equal(animcore.quat_normalize(r, workers=workers),
                                  animcore.quat_normalize(r))


def test_out_receives_the_result_and_is_untouched_on_error():
    skeleton = Skeleton([-1, 0])
    out = np.full((3, 2, 4, 4), 7.0)
    assert skeleton.world(scale=np.full((3, 2, 3), 2.0), out=out) is out
    np.testing.assert_array_equal(out[:, 1, :3, :3], np.broadcast_to(np.eye(3) * 4, (3, 3, 3)))
    before = out.copy()
    bad = np.ones((3, 2, 3))
    bad[2, 1, 0] = np.nan
    with pytest.raises(ValueError, match=r"^Skeleton.world: scale at index \(2, 1\) is nan"):
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


# -- root motion from rigs ------------------------------------------------------------

import pathlib  # noqa: E402

from animcore import extract_root_motion, gltf  # noqa: E402
from gltf_writer import Builder  # noqa: E402
from reference import turning_delta, turning_pose  # noqa: E402

FOX = pathlib.Path(__file__).resolve().parent / "data" / "gltf" / "Fox" / "Fox.glb"


def _composed(track, mode, times, up_axis=1):
    """The track's pose at each key time as a 4x4 matrix, through scipy."""
    pose = track.sample(times / track.duration)
    m = np.zeros(times.shape + (4, 4))
    if mode == "ground":
        axis = np.zeros(3)
        axis[up_axis] = 1
        m[:, :3, :3] = Rotation.from_rotvec(pose.rotation[:, None] * axis).as_matrix()
    else:
        m[:, :3, :3] = Rotation.from_quat(pose.rotation).as_matrix()
    m[:, :3, 3] = pose.position
    m[:, 3, 3] = 1
    return m


@pytest.mark.parametrize("mode", ["ground", "full"])
@pytest.mark.parametrize("name", ["Walk", "Run"])
def test_fox_root_motion_recomposes_the_original_world_transforms(name, mode):
    scene = gltf.load_scene(FOX)
    hips = scene.node_index("b_Hip_01")
    track, in_place = extract_root_motion(scene, name, "b_Hip_01", mode=mode)
    clip = scene.clip(name)
    assert track.duration == clip.duration and track.times[0] == 0
    hip_keys = clip.channel(hips, "translation").times
    assert set(hip_keys) <= set(track.times)
    t = track.times
    before, after = scene.world(clip, t)[:, hips], scene.world(in_place, t)[:, hips]
    scale = np.abs(before).max()
    np.testing.assert_allclose(_composed(track, mode, t) @ after, before, rtol=0, atol=1e-9 * scale)
    if mode == "ground":  # in place: no ground motion and no turn left; height kept
        np.testing.assert_allclose(after[:, [0, 2], 3], 0, atol=1e-9 * scale)
        np.testing.assert_allclose(after[:, 1, 3], before[:, 1, 3], rtol=0, atol=1e-9 * scale)
        twist = 2 * np.arctan2(Rotation.from_matrix(after[:, :3, :3]).as_quat()[:, 1],
                               Rotation.from_matrix(after[:, :3, :3]).as_quat()[:, 3])
        np.testing.assert_allclose(np.sin(twist), 0, atol=1e-9)
    else:
        np.testing.assert_allclose(after[:, :3, 3], 0, atol=1e-9 * scale)
    # the Fox walks and runs on the spot: each cycle ends where it started
    np.testing.assert_allclose(track.stride, 0, atol=1e-9 * scale)
    others = [c for c in clip.channels if c.node != hips]
    assert all(a is b for a, b in zip([c for c in in_place.channels if c.node != hips], others))


def _walker(tmp_path):
    """A hips joint under a root: forward 1 m per 1.2 s cycle along z with a bob,
    turning 30 degrees about y per cycle, with a sway about x."""
    b = Builder()
    b.node("root", children=[1], translation=[0.5, 0.0, -2.0])
    b.node("hips")
    times = np.linspace(0, 1.2, 13)
    u = times / 1.2
    position = np.stack([0.05 * np.sin(2 * np.pi * u), 0.9 + 0.03 * np.cos(4 * np.pi * u), u], axis=1)
    turn = Rotation.from_euler("y", 30 * u[:, None], degrees=True)
    sway = Rotation.from_euler("x", 5 * np.sin(2 * np.pi * u)[:, None], degrees=True)
    b.animation([(1, "translation", times, position, "LINEAR"),
                 (1, "rotation", times, (turn * sway).as_quat(), "LINEAR")], name="walk")
    return gltf.load_scene(b.write_gltf(tmp_path / "walker.gltf"))


def test_turning_walker_gives_exact_deltas_across_cycles(tmp_path):
    scene = _walker(tmp_path)
    track, in_place = extract_root_motion(scene, "walk", "hips")
    clip = scene.clip("walk")
    world = scene.world(clip, track.times)[:, 1]
    np.testing.assert_allclose(track.positions[:, [0, 2]], world[:, [0, 2], 3], atol=1e-12)
    np.testing.assert_allclose(track.rotations[-1] - track.rotations[0], np.deg2rad(30), atol=1e-6)
    expected = turning_delta(track.times, track.positions, track.rotations, 0.9, 4.3)
    delta = track.delta(0.9, 4.3)
    np.testing.assert_allclose(delta.translation, expected[:3, 3], atol=1e-9)
    np.testing.assert_allclose(delta.rotation, np.arctan2(expected[0, 2], expected[2, 2]), atol=1e-9)
    np.testing.assert_allclose(
        np.stack([turning_pose(track.times, track.positions, track.rotations, t) for t in track.times])
        @ scene.world(in_place, track.times)[:, 1], world, atol=1e-9)
    frames, _ = extract_root_motion(scene, "walk", "hips", fps=24)
    # ceil(1.2000000477 s x 24) = 29 frame steps after 0, the last one at the end
    assert len(frames.times) == 30 and frames.times[-1] == clip.duration


def test_root_motion_errors(tmp_path):
    scene = _walker(tmp_path)
    with pytest.raises(ValueError, match=r"extract_root_motion: mode is 'air' \(must be one of 'ground', 'full'\)"):
        extract_root_motion(scene, "walk", "hips", mode="air")
    with pytest.raises(ValueError, match=r"extract_root_motion: up_axis is 3 \(must be 0, 1 or 2\)"):
        extract_root_motion(scene, "walk", "hips", up_axis=3)
    with pytest.raises(ValueError, match="^extract_root_motion: joint 'tail' not in the scene"):
        extract_root_motion(scene, "walk", "tail")
    with pytest.raises(ValueError, match=r"extract_root_motion: fps is 0.0 \(must be a finite number > 0\)"):
        extract_root_motion(scene, "walk", "hips", fps=0)
    with pytest.raises(KeyError, match="no clip named 'run'"):
        extract_root_motion(scene, "run", "hips")


# -- the error contract of joint lookups and world transforms --------------------------

def test_index_and_children_name_the_method_and_refuse_what_is_not_a_joint():
    from animcore.model import NodeLookupError

    skeleton = Skeleton([-1, 0, 1], names=["Hips", "Spine", "Neck"])
    assert skeleton.index("Spine") == 1 and skeleton.index(np.int64(2)) == 2
    assert list(skeleton.children("Hips")) == [1] and list(skeleton.children(np.uint8(1))) == [2]
    for method in ("index", "children"):
        call = getattr(skeleton, method)
        with pytest.raises(NodeLookupError, match=rf"^Skeleton.{method}: no joint named 'Nek'; "
                                                  r"did you mean 'Neck'\?$"):
            call("Nek")
        with pytest.raises(NodeLookupError, match=rf"^Skeleton.{method}: joint index 3 is out "
                                                  r"of range \[0, 3\)$"):
            call(3)
        with pytest.raises(KeyError, match=rf"^Skeleton.{method}: joint index -1 is out"):
            call(-1)  # also a KeyError, as before
        for bad in (1.7, 1.0, np.nan, np.inf, None, True, np.float64(1), [1]):
            with pytest.raises(ValueError, match=rf"^Skeleton.{method}: joint must be a joint "
                                                 r"name or an integer index, got "):
                call(bad)
    with pytest.raises(NodeLookupError, match=r"^Skeleton.index: no joint named 'Hips' \(the "
                                              r"skeleton has no names\)$"):
        Skeleton([-1]).index("Hips")


def test_world_transforms_name_themselves():
    skeleton = Skeleton([-1, 0])
    with pytest.raises(ValueError, match=r"^Skeleton.world_transforms: translation at index "
                                         r"\(1,\) is nan"):
        skeleton.world_transforms(translation=[[0, 0, 0], [np.nan, 0, 0]])
    with pytest.raises(OverflowError, match=r"^Skeleton.world_transforms: world at index \(1,\) "
                                            r"is inf"):
        skeleton.world_transforms(translation=[[1e308, 0, 0], [1e308, 0, 0]])
    with pytest.raises(ValueError, match=r"^Skeleton.world_transforms: matrix at index \(1,\) "
                                         r"is .* \(is sheared"):
        skeleton.world_transforms(rotation=[[0, 0, 0, 1], [0, 0, 0.4, 1]],
                                  scale=[[1, 2, 1], [1, 1, 1]])
