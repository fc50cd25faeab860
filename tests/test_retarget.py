"""Retargeting and mirroring: invariants on the shared CMU walk (identity,
a rest-pose rewrite with every joint frame rotated, done here in plain
NumPy, a uniformly scaled copy), mirror twice, name presets and pairs."""
import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

import animcore as ac
from animcore.gltf import Node, Scene
from animcore.retarget import match_joints, mirror, mirror_pairs, retarget

from reference import quat_components_product

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def walk():
    scene = ac.bvh.load(DATA / "bvh" / "cmu_12_01_walk.bvh")
    clip = scene.clips[0]
    times = np.unique(np.concatenate([c.times for c in clip.channels]))[::7]
    return scene, clip, times


def qmul(a, b):
    """Hamilton product in plain NumPy (x, y, z, w)."""
    a, b = (np.moveaxis(np.asarray(x, float), -1, 0) for x in (a, b))
    return np.stack(quat_components_product(a, b), -1)


def qconj(q):
    return q * np.array([-1, -1, -1, 1.0])


def qrot(q, v):
    u, w = q[..., :3], q[..., 3:]
    t = 2 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def same_rotations(a, b, atol):
    """Equal as rotations (q and -q alike)."""
    d = np.abs(np.sum(a * b, -1))
    np.testing.assert_allclose(d, 1, atol=atol)


def positions(scene, clip, times):
    return scene.world(clip, times)[..., :3, 3]


def rig_size(scene):
    p = scene.world(None, 0.0)[:, :3, 3]
    return float(np.ptp(p, axis=0).max())


def rotated_frames(scene, seed=0):
    """The same rest shape with every joint frame turned by a random R_j:
    local rotation R_parent^-1 q R_j, local translation R_parent^-1 t."""
    rng = np.random.default_rng(seed)
    r = rng.normal(size=(len(scene.nodes), 4))
    r /= np.linalg.norm(r, axis=-1, keepdims=True)
    nodes = []
    for n in scene.nodes:
        rp = r[n.parent] if n.parent >= 0 else np.array([0, 0, 0, 1.0])
        nodes.append(dataclasses.replace(
            n, rotation=qmul(qconj(rp), qmul(n.rotation, r[n.index])),
            translation=qrot(qconj(rp), n.translation), matrix=None))
    return dataclasses.replace(scene, nodes=tuple(nodes), clips=())


@pytest.mark.parametrize("call, func, argument", [
    (lambda w: retarget(1, 0, w), "retarget", "source"),
    (lambda w: retarget(w, 0, "rig.glb"), "retarget", "target"),
    (lambda w: mirror([w], 0), "mirror", "scene"),
    (lambda w: mirror_pairs(None), "mirror_pairs", "scene"),
    (lambda w: match_joints(w, {}), "match_joints", "target"),
    (lambda w: ac.ik_two_bone_clip(w.clips, 0, "a", "b", "c", [0, 0, 0]), "ik_two_bone_clip",
     "scene"),
    (lambda w: ac.extract_root_motion(1.5, 0, "Hips"), "extract_root_motion", "scene"),
    (lambda w: ac.reduce_clip(w.nodes, 0, 1e-3), "reduce_clip", "scene"),
])
def test_an_operation_given_something_else_than_a_scene_names_it(walk, call, func, argument):
    # (each one's first use of the scene raised AttributeError: 'int' object has no
    # attribute 'clip')
    with pytest.raises(ValueError, match=rf"^{func}: {argument} must be a Scene, got \w+$"):
        call(walk[0])


def test_retarget_onto_itself_is_identity(walk):
    scene, clip, times = walk
    out = retarget(scene, clip, scene)
    want = scene.pose(clip, times)
    got = scene.pose(out, times)
    same_rotations(got.rotation, want.rotation, 1e-12)
    np.testing.assert_allclose(got.translation, want.translation, atol=1e-12 * rig_size(scene))
    np.testing.assert_allclose(positions(scene, out, times), positions(scene, clip, times),
                               atol=1e-12 * rig_size(scene))


def test_retarget_to_rotated_joint_frames_keeps_world_positions(walk):
    scene, clip, times = walk
    other = rotated_frames(scene)
    np.testing.assert_allclose(positions(other, None, 0.0), positions(scene, None, 0.0),
                               atol=1e-12 * rig_size(scene))  # the same rest shape
    out = retarget(scene, clip, other)
    np.testing.assert_allclose(positions(other, out, times), positions(scene, clip, times),
                               atol=1e-9 * rig_size(scene))
    # and back again
    back = retarget(other, out, scene)
    np.testing.assert_allclose(positions(scene, back, times), positions(scene, clip, times),
                               atol=1e-9 * rig_size(scene))


@pytest.mark.parametrize("factor", [0.01, 2.5])
def test_retarget_to_scaled_copy_scales_positions(walk, factor):
    scene, clip, times = walk
    nodes = tuple(dataclasses.replace(n, translation=n.translation * factor, matrix=None)
                  for n in scene.nodes)
    scaled = dataclasses.replace(scene, nodes=nodes, clips=())
    out = retarget(scene, clip, scaled)
    np.testing.assert_allclose(positions(scaled, out, times),
                               factor * positions(scene, clip, times),
                               atol=1e-9 * factor * rig_size(scene))
    plain = retarget(scene, clip, scaled, scale_root=False)
    moved = positions(scaled, plain, times)[:, 0] - positions(scaled, None, 0.0)[0]
    np.testing.assert_allclose(moved, positions(scene, clip, times)[:, 0]
                               - positions(scene, None, 0.0)[0], atol=1e-9 * rig_size(scene))


def test_retarget_unmapped_joints_stay_at_rest(walk):
    scene, clip, times = walk
    out = retarget(scene, clip, scene, mapping={"Hips": "Hips", "LeftUpLeg": "LeftUpLeg"})
    assert {c.node_name for c in out.channels} == {"Hips", "LeftUpLeg"}
    pose = scene.pose(out, times)
    rest = scene.skeleton.rest.rotation
    j = scene.node_index("RightUpLeg")
    np.testing.assert_array_equal(pose.rotation[:, j], np.broadcast_to(rest[j], (len(times), 4)))


def test_retarget_one_source_joint_drives_several(walk):
    scene, clip, times = walk
    with pytest.warns(UserWarning, match=r"^retarget: the source root 'Hips' drives no target "
                                         r"joint, so the target keeps its rest translation"):
        out = retarget(scene, clip, scene, mapping={"LeftUpLeg": "LeftUpLeg",
                                                    "RightUpLeg": "LeftUpLeg"})
    w = scene.world(out, times)
    rest = ac.decompose(scene.world(None, 0.0)).rotation
    world = ac.decompose(w).rotation
    d_left = qmul(world[:, scene.node_index("LeftUpLeg")], qconj(rest[scene.node_index("LeftUpLeg")]))
    d_right = qmul(world[:, scene.node_index("RightUpLeg")], qconj(rest[scene.node_index("RightUpLeg")]))
    same_rotations(d_left, d_right, 1e-12)


def test_retarget_refuses_a_mapping_that_pairs_nothing(walk):
    # CMU's names against CesiumMan's: auto matched none, and the clip was empty
    scene, clip, _ = walk
    man = ac.load(DATA / "gltf" / "CesiumMan" / "CesiumMan.gltf")
    assert match_joints(scene, man, "auto") == {}
    with pytest.raises(ValueError, match=r"^retarget: mapping='auto' pair no joints of the two "
                                         r"rigs; pass mapping as a dict"):
        retarget(scene, clip, man, mapping="auto")
    with pytest.raises(ValueError, match=r"^retarget: equal names pair no joints"):
        retarget(scene, clip, man)


def renamed(scene, names):
    nodes = tuple(dataclasses.replace(n, name=names.get(n.name, n.name)) for n in scene.nodes)
    return dataclasses.replace(scene, nodes=nodes, clips=())


@pytest.mark.parametrize("preset, names", [
    ("mixamo", {"Hips": "mixamorig:Hips", "LeftUpLeg": "mixamorig:LeftUpLeg",
                "LeftLeg": "mixamorig:LeftLeg", "LowerBack": "mixamorig:Spine",
                "Spine": "mixamorig:Spine1", "RightArm": "mixamorig:RightArm"}),
    ("unreal", {"Hips": "pelvis", "LeftUpLeg": "thigh_l", "LeftLeg": "calf_l",
                "LowerBack": "spine_01", "Spine": "spine_02", "RightArm": "upperarm_r"}),
    ("smpl", {"Hips": "pelvis", "LeftUpLeg": "left_hip", "LeftLeg": "left_knee",
              "LowerBack": "spine1", "Spine": "spine2", "RightArm": "right_shoulder"}),
])
def test_auto_mapping_presets(walk, preset, names):
    scene, clip, times = walk
    # keep only the renamed joints' names distinctive: others get neutral names
    others = {n.name: f"joint{n.index}" for n in scene.nodes if n.name not in names}
    target = renamed(scene, {**others, **names})
    pairs = match_joints(scene, target, "auto")
    for cmu, other in names.items():
        assert pairs[other] == cmu
    out, used = retarget(scene, clip, target, mapping="auto", return_mapping=True)
    assert used == pairs
    j = target.node_index(names["LeftLeg"])
    want = scene.world(clip, times)[:, scene.node_index("LeftLeg"), :3, :3]
    got = target.world(out, times)[:, j, :3, :3]
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_auto_mapping_reads_equal_names_through_each_rig_s_preset(walk):
    # bvh_test2 reads as SMPL, whose RightShoulder is the upper arm: CMU's
    # RightShoulder (a collar bone) once drove it, and CMU's arms drove nothing
    scene, _, _ = walk
    target = ac.load(DATA / "bvh" / "bvh_test2.bvh")
    pairs = match_joints(scene, target, "auto")
    for side in ("Right", "Left"):
        assert pairs[f"{side}Shoulder"] == f"{side}Arm"
        assert pairs[f"{side}Collar"] == f"{side}Shoulder"
    assert pairs["Hips"] == "Hips"


def test_none_mapping_pairs_equal_names(walk):
    scene, _, _ = walk
    assert match_joints(scene, scene, None) == {n.name: n.name for n in scene.nodes}


def test_retarget_bad_input(walk):
    scene, clip, _ = walk
    with pytest.raises(ValueError, match=r"retarget: mapping\['LeftLeg'\] names source joint "
                                         r"'LeftLag', which the source rig does not have; "
                                         r"closest: 'LeftLeg'"):
        retarget(scene, clip, scene, mapping={"LeftLeg": "LeftLag"})
    with pytest.raises(ValueError, match=r"retarget: mapping\['Lefleg'\] names target joint "
                                         r"'Lefleg'.*closest: 'LeftLeg'"):
        retarget(scene, clip, scene, mapping={"Lefleg": "LeftLeg"})
    with pytest.raises(ValueError, match=r"retarget: mapping is 'fuzzy'"):
        retarget(scene, clip, scene, mapping="fuzzy")
    with pytest.raises(ValueError, match=r"retarget: root 'Hipz' not in the scene; "
                                         r"closest: 'Hips'"):
        retarget(scene, clip, scene, root="Hipz")
    for index in (-1, 99):  # (an AttributeError, from the closest-names hint)
        with pytest.raises(ValueError, match=rf"^retarget: root {index} is not a node index in "
                                             rf"\[0, {len(scene.nodes)}\) nor a node name$"):
            retarget(scene, clip, scene, root=index)
    with pytest.raises(ValueError, match=r"retarget: root 'Hips' drives no target joint"):
        retarget(scene, clip, scene, mapping={"Spine": "Spine"}, root="Hips")
    with pytest.raises(ValueError, match=r"retarget: up_axis is 3"):
        retarget(scene, clip, scene, up_axis=3)


# ------------------------------------------------------------------ mirror

def test_mirror_twice_is_identity_and_keeps_lengths(walk):
    scene, clip, times = walk
    once = mirror(scene, clip)
    twice = mirror(scene, once)
    same_rotations(scene.pose(twice, times).rotation, scene.pose(clip, times).rotation, 1e-12)
    np.testing.assert_allclose(positions(scene, twice, times), positions(scene, clip, times),
                               atol=1e-12 * rig_size(scene))
    p = positions(scene, once, times)
    q = positions(scene, clip, times)
    parents = [n.parent for n in scene.nodes]
    for j, parent in enumerate(parents):
        if parent >= 0:
            np.testing.assert_allclose(np.linalg.norm(p[:, j] - p[:, parent], axis=-1),
                                       np.linalg.norm(q[:, j] - q[:, parent], axis=-1),
                                       atol=1e-12 * rig_size(scene))


def symmetric_rig():
    """Hips at x = 0 with two three-bone legs, mirror images in x, and a clip
    turning and moving everything."""
    def node(i, name, parent, t, r=(0, 0, 0, 1.0)):
        return Node(i, name, parent, (), np.array(t, float), np.array(r, float), np.ones(3))
    rng = np.random.default_rng(3)
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    qm = q * np.array([1, -1, -1, 1])  # the rest rotation reflected across x = 0
    nodes = [node(0, "Hips", -1, (0, 1, 0)),
             node(1, "LeftUpLeg", 0, (0.2, 0, 0), q), node(2, "LeftLeg", 1, (0.1, -0.5, 0.05)),
             node(3, "LeftFoot", 2, (0.02, -0.4, 0.1)),
             node(4, "RightUpLeg", 0, (-0.2, 0, 0), qm), node(5, "RightLeg", 4, (0.1, -0.5, 0.05)),
             node(6, "RightFoot", 5, (0.02, -0.4, 0.1))]
    # the right leg's local offsets are expressed in its reflected frame
    for i in (5, 6):
        nodes[i] = dataclasses.replace(nodes[i], translation=nodes[i].translation * [-1, 1, 1])
    times = np.linspace(0, 1, 11)
    channels = []
    for j in range(7):
        rot = rng.normal(size=(11, 4))
        rot /= np.linalg.norm(rot, axis=-1, keepdims=True)
        channels.append(ac.gltf.Channel.from_curve(
            j, "rotation", ac.RotationCurve(times, rot, interpolation="linear"),
            node_name=nodes[j].name))
    channels.append(ac.gltf.Channel.from_curve(
        0, "translation", ac.Curve(times, rng.normal(size=(11, 3)), interpolation="linear"),
        node_name="Hips"))
    clip = ac.gltf.Clip("moves", 1.0, tuple(channels))
    return Scene(tuple(nodes), ((0,),), 0, (), (clip,)), clip, times


def test_mirror_reflects_every_top_node_the_clip_translates():
    # robot.fbx animates an aim and a target null beside the rig: the aim's
    # 0.36 m once stayed at rest, and mirroring twice missed it by 0.38 m
    scene = ac.load(DATA / "fbx" / "robot.fbx")
    clip = scene.clips[0]
    t = clip.key_times()
    world = scene.world(clip, t)[..., :3, 3]
    rest = scene.world(None, 0.0)[..., :3, 3]
    tops = sorted({c.node for c in clip.channels
                   if c.path == "translation" and scene.nodes[c.node].parent < 0})
    names = [scene.nodes[j].name for j in tops]
    assert {"aim", "target"} <= set(names)
    once = mirror(scene, clip)
    twice = mirror(scene, once)
    x = np.array([-1.0, 1, 1])
    size = np.ptp(rest, axis=0).max()
    for j, name in zip(tops, names):
        partner = scene.node_index(ac.mirror_pairs(scene)[name])
        want = rest[j] + (world[:, partner] - rest[partner]) * x
        np.testing.assert_allclose(scene.world(once, t)[:, j, :3, 3], want, atol=1e-9 * size)
        np.testing.assert_allclose(scene.world(twice, t)[:, j, :3, 3], world[:, j],
                                   atol=1e-9 * size)


def test_mirror_symmetric_rig_gives_partners_reflected():
    scene, clip, times = symmetric_rig()
    # the rest pose is symmetric
    rest = positions(scene, None, 0.0)
    np.testing.assert_allclose(rest[[4, 5, 6]], rest[[1, 2, 3]] * [-1, 1, 1], atol=1e-15)
    out = mirror(scene, clip)
    got = positions(scene, out, times)
    want = positions(scene, clip, times)[:, [0, 4, 5, 6, 1, 2, 3]] * [-1, 1, 1]
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_mirror_pairs_side_letters_between_separators_with_indices():
    # CesiumMan's legs, leg_joint_L_1 to _5: mirrored each onto itself once
    scene = ac.load(DATA / "gltf" / "CesiumMan" / "CesiumMan.gltf")
    pairs = mirror_pairs(scene)
    legs = [n for n in scene.joint_names if n.startswith("leg_joint_L_")]
    assert len(legs) >= 4
    for name in legs:
        assert pairs[name] == name.replace("_L_", "_R_")
        assert pairs[pairs[name]] == name


@pytest.mark.parametrize("left, right", [
    ("LeftArm", "RightArm"), ("L_hand", "R_hand"), ("hand.L", "hand.R"), ("foot_l", "foot_r"),
    ("LHipJoint", "RHipJoint"), ("b_LeftLeg01_015", "b_RightLeg01_019"),
    ("upperarm_left", "upperarm_right"), ("leg_joint_L_1", "leg_joint_R_1"), ("thigh.L.001", "thigh.R.001"),
])
def test_mirror_pairs_patterns(left, right):
    nodes = tuple(Node(i, n, -1, (), np.zeros(3), np.array([0, 0, 0, 1.0]), np.ones(3))
                  for i, n in enumerate([left, right, "Spine", "Lamp"]))
    scene = Scene(nodes, ((0, 1, 2, 3),), 0, (), ())
    pairs = mirror_pairs(scene)
    assert pairs[left] == right and pairs[right] == left
    assert pairs["Spine"] == "Spine" and pairs["Lamp"] == "Lamp"


def test_mirror_axis_and_bad_input(walk):
    scene, clip, times = walk
    twice = mirror(scene, mirror(scene, clip, axis="z"), axis="z")
    np.testing.assert_allclose(positions(scene, twice, times), positions(scene, clip, times),
                               atol=1e-12 * rig_size(scene))
    with pytest.raises(ValueError, match=r"mirror: axis is 'w'"):
        mirror(scene, clip, axis="w")
    with pytest.raises(ValueError, match=r"mirror: pairs\['LeftLeg'\] names joint 'RightLag'.*"
                                         r"closest: 'RightLeg'"):
        mirror(scene, clip, pairs={"LeftLeg": "RightLag"})
    with pytest.raises(ValueError, match=r"mirror: pairs is 'manual'"):
        mirror(scene, clip, pairs="manual")


@pytest.fixture(scope="module")
def fox():
    scene = ac.gltf.load_scene(DATA / "gltf" / "Fox" / "Fox.glb")
    clip = scene.clip("Walk")
    times = ac.ik_clip_times(clip)[::3]
    return scene, clip, times


def test_fox_retarget_invariants(fox):
    scene, clip, times = fox
    same = retarget(scene, clip, scene)
    np.testing.assert_allclose(positions(scene, same, times), positions(scene, clip, times),
                               atol=1e-12 * rig_size(scene))
    other = rotated_frames(scene, seed=5)
    out = retarget(scene, clip, other)
    np.testing.assert_allclose(positions(other, out, times), positions(scene, clip, times),
                               atol=1e-9 * rig_size(scene))


def test_fox_mirror_pairs_and_twice(fox):
    scene, clip, times = fox
    pairs = mirror_pairs(scene)
    assert pairs["b_LeftLeg01_015"] == "b_RightLeg01_019"
    assert pairs["b_RightLeg01_019"] == "b_LeftLeg01_015"
    assert pairs["b_Spine01_02"] == "b_Spine01_02"
    twice = mirror(scene, mirror(scene, clip))
    np.testing.assert_allclose(positions(scene, twice, times), positions(scene, clip, times),
                               atol=1e-12 * rig_size(scene))


# ------------------------------------------------------------------ the error contract

def test_an_unknown_clip_is_a_value_error_and_a_key_error_naming_the_caller(walk):
    scene, _, _ = walk
    from animcore.model import NodeLookupError

    for name, call in (("retarget", lambda clip: retarget(scene, clip, scene)),
                       ("mirror", lambda clip: mirror(scene, clip))):
        with pytest.raises(NodeLookupError, match=rf"^{name}: clip 5 is neither a clip name "
                                                  r"nor an index in \[0, 1\)$"):
            call(5)
        with pytest.raises(ValueError, match=rf"^{name}: no clip named 'run' \(available: "
                                             r"'cmu_12_01_walk'\)$"):
            call("run")
        with pytest.raises(KeyError, match=rf"^{name}: no clip named 'run'"):
            call("run")


@pytest.mark.parametrize("bad", [1.0, True, np.array(1), np.float64(2.0), 3, -1, "y", None])
def test_retarget_takes_an_integer_up_axis(walk, bad):
    scene, clip, _ = walk
    with pytest.raises(ValueError, match=rf"^retarget: up_axis "
                                         rf"(is {re.escape(repr(bad))} \(must be 0, 1 or 2\)|"
                                         rf"must be an integer, got {re.escape(repr(bad))})$"):
        retarget(scene, clip, scene, up_axis=bad)
    same = retarget(scene, clip, scene, up_axis=np.int64(1))
    expected = retarget(scene, clip, scene)
    for a, b in zip(same.channels, expected.channels):
        np.testing.assert_array_equal(a.output, b.output)


def test_joint_names_must_be_strings(walk):
    scene, clip, _ = walk
    for call, prefix, what in (
            (lambda m: match_joints(scene, scene, m), "match_joints", "mapping"),
            (lambda m: retarget(scene, clip, scene, mapping=m), "retarget", "mapping"),
            (lambda m: mirror(scene, clip, pairs=m), "mirror", "pairs")):
        with pytest.raises(ValueError, match=rf"^{prefix}: {what}\[1\] names joint 1, which is "
                                             r"not a name \(joint names are strings\)$"):
            call({1: "Hips"})
        with pytest.raises(ValueError, match=rf"^{prefix}: {what}\['Hips'\] names joint "
                                             r"b'Spine', which is not a name"):
            call({"Hips": b"Spine"})


def test_match_joints_names_itself(walk):
    scene, _, _ = walk
    with pytest.raises(ValueError, match=r"^match_joints: mapping\['Lefleg'\] names target "
                                         r"joint 'Lefleg', which the target rig does not have"):
        match_joints(scene, scene, {"Lefleg": "LeftLeg"})
    with pytest.raises(ValueError, match=r"^match_joints: mapping is 'fuzzy' \(must be None, "):
        match_joints(scene, scene, "fuzzy")


def _mutated(scene, index, **fields):
    nodes = list(scene.nodes)
    nodes[index] = dataclasses.replace(nodes[index], **fields)
    return dataclasses.replace(scene, nodes=tuple(nodes))


def test_retarget_and_mirror_name_themselves_in_the_errors_of_what_they_call(walk):
    scene, clip, _ = walk
    survey = ac.load(DATA / "gltf" / "Fox" / "Fox.glb").clip("Survey")
    flat = _mutated(scene, 3, scale=np.zeros(3))
    for name, call in (("retarget", lambda s, c: retarget(s, c, s)),
                       ("mirror", lambda s, c: mirror(s, c))):
        with pytest.raises(ValueError, match=rf"^{name}: clip 'Survey' animates node "
                                             r"'b_Head_05' \(index 8\), which the scene does "
                                             r"not have there"):
            call(scene, survey)
        with pytest.raises(ValueError, match=rf"^{name}: matrix at index \(0, 3\) is 0.0 \(has "
                                             r"a zero column 0"):
            call(flat, clip)
    # the target rig's rest pose
    with pytest.raises(ValueError, match=r"^retarget: matrix at index \(3,\) is 0.0 \(has a "
                                         r"zero column 0"):
        retarget(scene, clip, flat)


def _sliding_chain():
    """Three nodes in a chain whose root rests at x = -1e308 and a clip that
    moves it to x = +1e308 (its offset from rest is beyond the double range)."""
    nodes = tuple(Node(i, f"j{i}", i - 1, (i + 1,) if i < 2 else (), np.array(t, float),
                       np.array([0, 0, 0, 1.0]), np.ones(3))
                  for i, t in enumerate([[-1e308, 0, 0], [0, 1, 0], [0.5, 1, 0]]))
    times = np.array([0.0, 1.0])
    slide = ac.Curve(times, [[1e308, 0, 0], [1e308, 2, 0]], interpolation="linear")
    clip = ac.gltf.Clip("slide", 1.0, (ac.gltf.Channel.from_curve(0, "translation", slide,
                                                                  node_name="j0"),))
    return Scene(nodes, ((0,),), 0, (), (clip,)), clip, times


def test_root_offsets_beyond_the_double_range_are_carried_by_halves():
    import warnings

    scene, clip, times = _sliding_chain()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (posed - rest) overflowed, with RuntimeWarnings
        same = retarget(scene, clip, scene)
        np.testing.assert_array_equal(scene.pose(same, times).translation[:, 0],
                                      [[1e308, 0, 0], [1e308, 2, 0]])
        flipped = mirror(scene, clip, axis="y")  # y reflected about the rest's y = 0
        np.testing.assert_array_equal(scene.pose(flipped, times).translation[:, 0],
                                      [[1e308, 0, 0], [1e308, -2, 0]])
        # reflected across x = 0: 2 * rest - posed = -3e308
        with pytest.raises(OverflowError, match=r"^mirror: the root's world position at index "
                                                r"\(0,\) is beyond the double range$"):
            mirror(scene, clip)


def test_mirror_of_a_rest_pose_near_the_double_range_warns_not():
    import warnings

    rigged = ac.load(DATA / "gltf" / "RiggedSimple" / "RiggedSimple.gltf")
    far = _mutated(rigged, 4, translation=[-1e308, 1e308, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(OverflowError, match=r"^mirror: the root's world position at index "
                                                r"\(0,\) is beyond the double range$"):
            mirror(far, 0)


def test_hip_heights_near_the_double_range_scale_the_root_without_warnings():
    import warnings

    # the toe 1.5e308 below the hips, at -0.5e308
    nodes = (Node(0, "Hips", -1, (1,), np.array([0, 1e308, 0.0]), np.array([0, 0, 0, 1.0]),
                  np.ones(3)),
             Node(1, "Toe", 0, (), np.array([0, -1.5e308, 0.0]), np.array([0, 0, 0, 1.0]),
                  np.ones(3)))
    times = np.array([0.0, 1.0])
    walk = ac.Curve(times, [[0, 1e308, 0], [1, 1e308, 0]], interpolation="linear")
    clip = ac.gltf.Clip("walk", 1.0, (ac.gltf.Channel.from_curve(0, "translation", walk,
                                                                 node_name="Hips"),))
    scene = Scene(nodes, ((0,),), 0, (), (clip,))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (a hip height near the double range)
        same = retarget(scene, clip, scene)
    np.testing.assert_array_equal(scene.pose(same, times).translation[:, 0],
                                  [[0, 1e308, 0], [1, 1e308, 0]])


def test_fbx_captures_carry_the_hips_in_the_file_units():
    """A MotionBuilder capture translates its cameras too: the root is the hips
    (the translated node with the most descendants), and its translation goes
    into the FBX channel in the file's units (centimetres) so that the scene's
    own world (metres, FBX's formula) puts it where the rule says: the target's
    rest position plus the source's offset from its rest (scale_root off), and
    for mirror that offset reflected across x."""
    run, walk = ac.load(DATA / "fbx" / "run.fbx"), ac.load(DATA / "fbx" / "walk.fbx")
    clip = run.clips[0]
    t = clip.key_times()[:50]
    hips_run, hips_walk = run.node_index("Hips"), walk.node_index("Hips")
    rest_run, rest_walk = run.world()[hips_run, :3, 3], walk.world()[hips_walk, :3, 3]
    offset = run.world(clip, t)[:, hips_run, :3, 3] - rest_run
    carried = retarget(run, clip, walk, scale_root=False)
    assert [c.node_name for c in carried.channels if c.path == "translation"] == ["Hips"]
    np.testing.assert_allclose(walk.world(carried, t)[:, hips_walk, :3, 3], rest_walk + offset,
                               rtol=0, atol=1e-12)
    flipped = mirror(run, clip)
    np.testing.assert_allclose(run.world(flipped, t)[:, hips_run, :3, 3],
                               rest_run + offset * [-1.0, 1.0, 1.0], rtol=0, atol=1e-12)
    # scaled by the ratio of the hips' rest heights above the lowest joint below
    # them (not above the cameras and lights elsewhere in the files)

    def height(scene, hips):
        below, grown = {hips}, True
        while grown:
            more = {n.index for n in scene.nodes if n.parent in below} - below
            below, grown = below | more, bool(more)
        rest = scene.world()[:, :3, 3]
        return rest[hips, 1] - rest[sorted(below), 1].min()

    ratio = height(walk, hips_walk) / height(run, hips_run)
    assert 0.9 < ratio < 1.1  # the same performer's rig
    np.testing.assert_allclose(walk.world(retarget(run, clip, walk), t)[:, hips_walk, :3, 3],
                               rest_walk + ratio * offset, rtol=0, atol=1e-12)


def test_fbx_roots_are_posed_under_the_requested_axes():
    """Loaded Z up, an FBX scene puts a turn above its roots: a clip carried
    onto its own rig gives back the source's world rotations (to the float32
    keys' rounding) and the hips' positions, the root's rotation taken under
    that turn."""
    run = ac.fbx.load(DATA / "fbx" / "run.fbx", up="z")
    clip = run.clips[0]
    t = clip.key_times()[:30]
    expected, got = run.world(clip, t), run.world(retarget(run, clip, run), t)
    joints = [run.node_index(n) for n in ("Hips", "Spine", "Head", "LeftFoot")]
    np.testing.assert_allclose(got[:, joints, :3, :3], expected[:, joints, :3, :3], rtol=0,
                               atol=1e-8)
    hips = joints[0]
    np.testing.assert_allclose(got[:, hips, :3, 3], expected[:, hips, :3, 3], rtol=0, atol=1e-12)


def test_joints_with_a_negative_scale_keep_their_world_rotation():
    """Six of walk.fbx's "Nub" end joints (right fingers, left toe) have scale
    (-1, -1, -1): their world matrices mirror, which a rotation carries only
    with the sign matrices of the node and its parent. Carried onto its own
    rig, every joint's world linear part is the source's."""
    walk = ac.load(DATA / "fbx" / "walk.fbx")
    clip = walk.clips[0]
    t = clip.key_times()[:30]
    nubs = [j for j, name in enumerate(walk.joint_names) if name.endswith("Nub")
            and (walk.pose(None, 0.0).scale[j] < 0).all()]
    assert len(nubs) == 6
    expected, got = walk.world(clip, t), walk.world(retarget(walk, clip, walk), t)
    rotated = sorted({c.node for c in clip.channels if c.path == "rotation"})
    assert set(nubs) <= set(rotated)
    # relative to the file's cm-to-m scale: the keys are float32, and the source
    # animates scales near 1 that a retarget keeps at rest (a mirror is off by 2)
    scale = np.abs(expected[:, rotated, :3, :3]).max()
    np.testing.assert_allclose(got[:, rotated, :3, :3], expected[:, rotated, :3, :3], rtol=0,
                               atol=1e-5 * scale)
