"""The format-free data model (animcore.model): old pickles, names, lookups,
load/save dispatch, and the checks that keep clips on the rig they belong to."""
import os
import pickle
import re

import numpy as np
import pytest

import animcore
from animcore import gltf, model
from reference import products_in_order

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
RIGGED = os.path.join(DATA, "gltf", "RiggedSimple", "RiggedSimple.gltf")


# -- pickles written before the classes moved out of gltf.py ---------------------

def test_pickles_written_when_the_classes_lived_in_gltf_still_load(numpy2_pickles):
    # Recorded by tests/data/make_model_pickle.py with the code of commit 8c1076c,
    # where these classes were animcore.gltf.Channel and so on.
    with open(os.path.join(DATA, "model_pickle_v0.pkl"), "rb") as stream:
        data = stream.read()
    assert b"animcore.gltf" in data and b"animcore.model" not in data
    old = pickle.loads(data)
    fresh = {"sample": gltf.load_scene(gltf.sample_path()), "rigged": gltf.load_scene(RIGGED)}
    for key, scene in fresh.items():
        assert type(old[key]) is model.Scene
        assert old[key] == scene
        for clip in scene.clips:
            t = np.linspace(0.0, clip.duration, 7)
            np.testing.assert_array_equal(old[key].world(clip.name, t), scene.world(clip, t))
    assert old["unsupported"] == model.Unsupported("/x", 3)


def test_the_old_names_are_the_model_classes():
    for name in ("Channel", "Clip", "Node", "Skin", "Scene", "Unsupported"):
        assert getattr(gltf, name) is getattr(model, name)
    from animcore import bake

    assert bake.frame_times is model.frame_times
    assert animcore.extract_root_motion is model.extract_root_motion
    assert issubclass(gltf.GltfError, model.ReadError)


# -- names and lookups -------------------------------------------------------------

def rig(*names):
    """A chain of nodes with these names (None for an unnamed node)."""
    nodes = tuple(model.Node(i, name, i - 1, (i + 1,) if i + 1 < len(names) else (),
                             [0.0, float(i > 0), 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0])
                  for i, name in enumerate(names))
    return model.Scene(nodes, (), None, (), ())


@pytest.mark.parametrize("field, value, message", [
    ("nodes", "nodes", r"Scene: nodes is 'nodes' \(must be a tuple of Node\)"),
    ("clips", ("walk",), r"Scene: clips at index \(0,\) is a str \(must be a Clip\)"),
    ("skins", (None,), r"Scene: skins at index \(0,\) is a NoneType \(must be a Skin\)"),
    ("skipped", (KeyError("x"),), r"Scene: skipped at index \(0,\) is a KeyError "
                                  r"\(must be a ReadError\)"),
])
def test_a_scene_made_of_the_wrong_parts_is_a_value_error_naming_the_part(field, value,
                                                                          message):
    # fuzz/fuzz_pickle.py (atheris) found a pickle that called Scene with strings: the
    # scene was made, and its repr raised AttributeError
    fields = {"nodes": rig("a").nodes, "scenes": ((0,),), "scene": 0, "skins": (),
              "clips": ()}
    with pytest.raises(ValueError, match=message):
        model.Scene(**{**fields, field: value})
    # lists are taken as the tuples they stand for
    scene = model.Scene(list(fields["nodes"]), ((0,),), 0, [], [])
    assert scene == model.Scene(**fields) and isinstance(scene.nodes, tuple)


def test_model_values_check_their_fields_as_they_are_made():
    # fuzz/fuzz_pickle.py (atheris) found a pickle that called Channel with node='node':
    # the channel was made, and its own pickle did not load back
    times, output = np.array([0.0, 1.0]), np.zeros((2, 3))
    with pytest.raises(ValueError, match=r"Channel: node is 'node' \(must be a int\)"):
        model.Channel("node", None, "translation", "LINEAR", 3, times, output, None)
    with pytest.raises(ValueError, match=r"Channel: node is True \(must be a int\)"):
        model.Channel(True, None, "translation", "LINEAR", 3, times, output, None)
    with pytest.raises(ValueError, match=r"Channel: times is array\(\['a'\].* \(must be a "
                                         r"real array\)"):
        model.Channel(0, None, "translation", "LINEAR", 3, np.array(["a"]), output, None)
    with pytest.raises(ValueError, match=r"Clip: duration is inf \(must be a finite number\)"):
        model.Clip("walk", np.inf, ())
    with pytest.raises(ValueError, match=r"Node: parent is '0' \(must be a int\)"):
        model.Node(1, "arm", "0", (), [0, 0, 0], [0, 0, 0, 1], [1, 1, 1])
    # NumPy integers and floats are numbers, lists of numbers arrays (as the readers pass them)
    assert model.Channel(np.int64(0), None, "translation", "LINEAR", 3, times, output,
                         None).node == 0
    assert model.Clip("walk", np.float32(1.5), ()).duration == 1.5


def test_joint_names_are_one_string_per_node_and_fill_the_skeleton():
    scene = rig("mixamorig:Hips", None, "mixamorig:Spine", None)
    assert scene.joint_names == ("mixamorig:Hips", "node1", "mixamorig:Spine", "node3")
    assert scene.skeleton.names == scene.joint_names
    assert scene.node_index("node3") == 3 and scene.node_index("mixamorig:Spine") == 2
    bvh = animcore.load(os.path.join(DATA, "bvh", "bvh_test1.bvh"))
    assert bvh.skeleton.names[0] == "Hips" and None not in bvh.skeleton.names
    assert gltf.load_scene(gltf.sample_path()).skeleton.names[:3] == ("root", "hips", "spine")


def test_a_missing_name_is_a_value_error_naming_the_function_argument_and_closest_names():
    scene = rig("mixamorig:Hips", "mixamorig:Spine", "Neck")
    with pytest.raises(ValueError, match=r"^Scene.node_index: node 'Hips' not in the scene; "
                                         r"closest: 'mixamorig:Hips'$"):
        scene.node_index("Hips")
    with pytest.raises(KeyError, match=r"^Scene.node_index: node 'nek' not in the scene; "
                                       r"closest: 'Neck'$"):
        scene.node_index("nek")  # also a KeyError, as before
    with pytest.raises(ValueError, match=r"^Scene.node_index: node 'Tail' not in the scene; its "
                                         r"nodes are 'mixamorig:Hips', 'mixamorig:Spine', "
                                         r"'Neck'$"):
        scene.node_index("Tail")
    with pytest.raises(ValueError, match=r"^Scene.node_index: node 3 is not a node index in "
                                         r"\[0, 3\) nor a node name$"):
        scene.node_index(3)
    with pytest.raises(ValueError, match=r"^Scene.node_index: node 'Neck' names 2 nodes of the "
                                         r"scene \(1, 2\); pass an index$"):
        rig("Hips", "Neck", "Neck").node_index("Neck")


def test_extract_root_motion_names_itself_and_its_argument():
    scene = gltf.load_scene(os.path.join(DATA, "gltf", "Fox", "Fox.glb"))
    with pytest.raises(ValueError, match=r"^extract_root_motion: joint 'Hip_01' not in the "
                                         r"scene; closest: 'b_Hip_01'$"):
        animcore.extract_root_motion(scene, "Walk", "Hip_01")


# -- load and save by suffix -----------------------------------------------------------

def test_load_picks_the_reader_by_suffix_and_always_returns_a_scene():
    scene = animcore.load(gltf.sample_path())
    assert scene == gltf.load_scene(gltf.sample_path())
    assert [c.name for c in scene.clips] == [c.name for c in gltf.load(gltf.sample_path())]
    path = os.path.join(DATA, "bvh", "bvh_test1.bvh")
    assert animcore.load(path) == animcore.bvh.load(path)
    upper = os.path.join(DATA, "gltf", "Fox", "Fox.glb")
    assert animcore.load(upper, errors="skip") == gltf.load_scene(upper)


def test_load_refuses_an_unknown_suffix_or_option():
    with pytest.raises(ValueError, match=r"^load: path 'walk.abc' has suffix '.abc', which no "
                                         r"reader takes \(known: .bvh, .fbx, .glb, .gltf, .usd, "
                                         r".usda, .usdc, .usdz\)$"):
        animcore.load("walk.abc")
    with pytest.raises(ValueError, match=r"suffix '\(none\)'"):
        animcore.load("walk")
    with pytest.raises(ValueError, match=r"^load: .*'errors'.* \(the .bvh reader is "
                                         r"animcore.bvh.load\)$"):
        animcore.load(os.path.join(DATA, "bvh", "bvh_test1.bvh"), errors="skip")


def test_save_writes_gltf_that_loads_back(tmp_path):
    scene = animcore.load(os.path.join(DATA, "bvh", "bvh_test1.bvh"))
    animcore.save(tmp_path / "rig.glb", scene)
    back = animcore.load(tmp_path / "rig.glb")
    assert back.joint_names == scene.joint_names
    clip = scene.clips[0]
    t = np.linspace(0.0, clip.duration, 9)
    # glTF stores float32: the rig's world matrices agree to float32 precision
    np.testing.assert_allclose(back.world(0, t), scene.world(clip, t), rtol=0, atol=1e-4)
    animcore.save(tmp_path / "none.gltf", scene, clips=[])
    assert animcore.load(tmp_path / "none.gltf").clips == ()
    with pytest.raises(ValueError, match=r"^save: scene must be a Scene, got list$"):
        animcore.save(tmp_path / "x.glb", [clip])


# -- every documented module after `import animcore`, lazily -------------------------

def test_modules_are_attributes_of_the_package_and_load_on_first_use():
    import subprocess
    import sys

    code = ("import sys, animcore\n"
            "lazy = ['bake', 'blender', 'bvh', 'dask', 'files', 'gltf', 'model', 'usd']\n"
            "print(sorted(m for m in lazy if 'animcore.' + m in sys.modules and m != 'model'))\n"
            "print([getattr(animcore, m).__name__ for m in lazy])\n"
            "print(animcore.load.__module__, animcore.Scene.__module__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=os.path.dirname(os.path.dirname(animcore.__file__)))
    loaded, names, where = out.stdout.splitlines()
    assert loaded == "[]"
    assert names == str([f"animcore.{m}" for m in
                         ["bake", "blender", "bvh", "dask", "files", "gltf", "model", "usd"]])
    assert where == "animcore.files animcore.model"
    with pytest.raises(AttributeError, match="module 'animcore' has no attribute 'gltff'"):
        animcore.gltff
    assert {"blender", "load", "Scene"} <= set(dir(animcore))


# -- clips stay with their rig, and apart from each other ------------------------------

def test_pose_refuses_a_clip_of_another_rig_naming_clip_and_node():
    fox = gltf.load_scene(os.path.join(DATA, "gltf", "Fox", "Fox.glb"))
    bvh = animcore.load(os.path.join(DATA, "bvh", "bvh_test1.bvh"))
    clip = bvh.clips[0]
    first = clip.channels[0]
    with pytest.raises(ValueError, match=rf"^Scene.pose: clip 'bvh_test1' animates node "
                                         rf"'Hips' \(index {first.node}\), which the scene "
                                         rf"does not have there \(its node {first.node} is "
                                         rf"'{fox.nodes[first.node].name}'\)$"):
        fox.pose(clip, 0.1)
    with pytest.raises(ValueError, match=r"^Scene.world: clip 'bvh_test1' animates node 'Hips'"):
        fox.world(clip, 0.1)
    # the same names at other indices: the hint says where the node is
    from dataclasses import replace

    nodes = list(bvh.nodes)
    second = nodes[1].name
    nodes[0], nodes[1] = replace(nodes[0], name=second), replace(nodes[1], name="Hips")
    with pytest.raises(ValueError, match=rf"its node 0 is '{second}'\); the scene has 'Hips' "
                                         r"at index 1: the clip belongs to another rig$"):
        replace(bvh, nodes=tuple(nodes)).pose(clip, 0.1)
    bvh.pose(clip, 0.1)  # its own rig
    unnamed = [replace(n, name=None) for n in bvh.nodes]  # no names: matched by index
    np.testing.assert_array_equal(replace(bvh, nodes=tuple(unnamed)).world(clip, 0.1),
                                  bvh.world(clip, 0.1))


def test_bake_refuses_two_clips_of_the_same_name():
    from animcore import bake

    a = animcore.load(os.path.join(DATA, "bvh", "bvh_test1.bvh")).clips[0]
    b = animcore.load(os.path.join(DATA, "bvh", "bvh_test2.bvh")).clips[0]
    from dataclasses import replace

    b = replace(b, name=a.name)
    with pytest.raises(ValueError, match=r"^bake: clips at index 0 and 1 are both named "
                                         r"'bvh_test1' \(their arrays would share keys; "
                                         r"rename one\)$"):
        bake.bake([a, b], 30)
    arrays = bake.bake([a, replace(b, name="other")], 30)
    assert "other/time" in arrays and "bvh_test1/time" in arrays


def test_load_reads_fbx_through_the_same_dispatcher():
    from animcore import fbx

    path = os.path.join(DATA, "fbx", "maya_pivots_7500_binary.fbx")
    scene = animcore.load(path)
    assert isinstance(scene, animcore.Scene)
    direct = fbx.load(path)
    assert scene.joint_names == direct.joint_names
    t = np.linspace(0.0, 1.0, 5)
    clip = scene.clips[0] if scene.clips else None
    np.testing.assert_array_equal(scene.world(clip, t), direct.world(clip, t))


# -- a clip sampled into poses in one C call -------------------------------------

def _scenes_with_clips():
    """(name, scene) of the glTF, BVH and USD files of tests/data that animate
    their nodes (USD when usd-core is installed)."""
    found = []
    for folder, suffixes in (("gltf", (".gltf", ".glb")), ("bvh", (".bvh",)),
                             ("usd", (".usda",))):
        for root, _, files in os.walk(os.path.join(DATA, folder)):
            for name in sorted(files):
                if name.endswith(suffixes):
                    found.append(os.path.join(root, name))
    scenes = []
    for path in found:
        try:
            scene = animcore.load(path)
        except ImportError:  # a USD file without usd-core
            continue
        except ValueError as error:  # a file some tests read in parts (xforms.usda: ops,
            if "has no rig" not in str(error):  # no rig); any other failure is one
                raise
            continue
        if any(c.path != "weights" for clip in scene.clips for c in clip.channels):
            scenes.append((os.path.relpath(path, DATA), scene))
    return scenes


_SCENES = _scenes_with_clips()


def _pose_channel_by_channel(scene, clip, t):
    """The reference: the rest pose, then each channel's own curve evaluated
    on its own and written over its node's values, in channel order."""
    pose = [np.array(np.broadcast_to(value, t.shape + value.shape))
            for value in scene.skeleton.rest]
    for channel in clip.channels:
        if channel.path in ("translation", "rotation", "scale"):
            part = pose[("translation", "rotation", "scale").index(channel.path)]
            part[..., channel.node, :] = channel.curve(t)
    return pose


def _same_bits(a, b):
    return np.array_equal(a, b) and np.array_equal(np.signbit(a), np.signbit(b))


def test_the_test_data_has_gltf_bvh_and_usd_scenes_to_sample():
    kinds = {name.split(os.sep)[0] for name, _ in _SCENES}
    assert {"gltf", "bvh"} <= kinds
    try:
        import pxr  # noqa: F401
    except ImportError:
        return
    assert "usd" in kinds


@pytest.mark.parametrize("name, scene", _SCENES, ids=[name for name, _ in _SCENES])
def test_pose_samples_every_clip_as_its_channels_do_one_by_one(name, scene):
    for clip in scene.clips:
        end = clip.duration
        keys = clip.key_times()
        for t in (np.linspace(-0.25, end + 0.25, 97),          # before, inside, after
                  keys,                                       # every key time itself
                  np.arange(0.0, end, 1 / 60.0),              # a frame grid
                  np.array([end, 0.0, end / 3, end / 3, -1.0]),  # unsorted, repeated
                  np.linspace(0.0, end, 12).reshape(3, 4),    # any shape
                  np.zeros(0), np.float64(end / 2)):
            pose = scene.pose(clip, t)
            for got, expected in zip(pose, _pose_channel_by_channel(scene, clip, np.asarray(t))):
                assert got.shape == expected.shape
                assert _same_bits(got, expected), (name, clip.name, t)


def test_pose_of_mixed_segment_kinds_and_linear_rotations_has_the_curves_bits():
    # step, linear and cubic segments of 3-channel curves and linear rotation
    # curves, many nodes sharing key times and a few not, at thousands of
    # sorted times: the one-call sampler's blocks give each curve's own bits
    rng = np.random.default_rng(21)
    times = np.cumsum(rng.uniform(0.01, 0.2, 70))
    kinds = ["step", "linear", "cubic"]
    nodes, channels = [], []
    for j in range(12):
        keys = times if j % 4 else np.sort(rng.uniform(0.0, 8.0, 40))
        nodes.append(model.Node(j, f"n{j}", -1, (), np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0]),
                                np.ones(3)))
        move = animcore.Curve(keys, rng.normal(size=(keys.size, 3)),
                              velocities=rng.normal(size=(keys.size, 3)),
                              interpolation=[kinds[k % 3] for k in range(keys.size - 1)])
        turn = animcore.RotationCurve(keys, rng.normal(size=(keys.size, 4)),
                                      interpolation="linear")
        size = animcore.Curve(keys, rng.uniform(0.5, 2.0, (keys.size, 3)), interpolation="linear")
        for path, curve in (("translation", move), ("rotation", turn), ("scale", size)):
            channels.append(model.Channel.from_curve(j, path, curve, node_name=f"n{j}"))
    clip = model.Clip("mixed", float(times[-1]), tuple(channels))
    scene = model.Scene(tuple(nodes), (tuple(range(12)),), 0, (), (clip,))
    t = np.sort(np.concatenate([rng.uniform(-0.5, 9.0, 3001), times]))
    for got, expected in zip(scene.pose(clip, t), _pose_channel_by_channel(scene, clip, t)):
        assert _same_bits(got, expected)


def test_pose_takes_curves_the_core_does_not_sample_and_repeated_channels_in_order():
    scene = animcore.load(RIGGED)
    clip = scene.clips[0]
    t = np.linspace(-0.1, clip.duration + 0.1, 41)
    first = next(c for c in clip.channels if c.path == "translation")
    curve = first.curve
    eased = animcore.Curve(curve.times, curve.values, interpolation="linear", ease="quad_in_out")
    shifted = curve.with_values(curve.values + 1.0)
    for added in ([eased], [shifted], [eased, shifted], [shifted, eased]):
        extra = tuple(model.Channel.from_curve(first.node, "translation", c,
                                               node_name=first.node_name) for c in added)
        edited = model.Clip(clip.name, clip.duration, clip.channels + extra)
        for got, expected in zip(scene.pose(edited, t),
                                 _pose_channel_by_channel(scene, edited, t)):
            assert _same_bits(got, expected)
        # the last channel of the node's translation wins, as in file order
        assert _same_bits(scene.pose(edited, t).translation[:, first.node], added[-1](t))


@pytest.mark.parametrize("name, scene", [(n, s) for n, s in _SCENES if s.skins],
                         ids=[n for n, s in _SCENES if s.skins])
def test_joint_matrices_are_world_times_inverse_bind(name, scene):
    for skin in scene.skins:
        clip = scene.clips[0]
        t = np.linspace(0.0, clip.duration, 7)
        world = scene.world(clip, t)
        users = [n.index for n in scene.nodes if n.skin == skin.index]
        expected = products_in_order(world[..., skin.joints, :, :], skin.inverse_bind_matrices)
        by_blas = world[..., skin.joints, :, :] @ skin.inverse_bind_matrices
        if users:
            mesh_inverse = np.linalg.inv(world[..., users[0], :, :])[..., None, :, :]
            expected = products_in_order(mesh_inverse, expected)
            by_blas = mesh_inverse @ by_blas
        got = skin.joint_matrices(scene, clip, t)
        assert _same_bits(got, expected)
        # NumPy's @ (the BLAS, fused multiply-adds or not) within rounding
        scale = np.abs(by_blas).max()
        np.testing.assert_allclose(got, by_blas, rtol=0, atol=1e-14 * scale)


def _with_a_strict_rotation(scene):
    """(clip, its first rotation curve with after='error', the clip with that
    curve added last)."""
    clip = scene.clips[0]
    first = next(c for c in clip.channels if c.path == "rotation")
    strict = animcore.RotationCurve(first.curve.times, first.curve.quaternions, after="error")
    edited = model.Clip(clip.name, clip.duration, clip.channels + (
        model.Channel.from_curve(first.node, "rotation", strict, node_name=first.node_name),))
    return clip, strict, edited


def test_pose_raises_the_error_of_the_curve_that_fails():
    scene = animcore.load(RIGGED)
    clip, strict, edited = _with_a_strict_rotation(scene)
    t = np.array([0.0, clip.duration, clip.duration + 1.0])
    with pytest.raises(ValueError) as expected:
        strict(t)
    with pytest.raises(ValueError, match=re.escape(str(expected.value))):
        scene.pose(edited, t)


@pytest.mark.parametrize("name, scene", _SCENES, ids=[name for name, _ in _SCENES])
def test_workers_give_the_same_poses_bit_for_bit(name, scene):
    # 3000 times: enough work that the times are shared by two threads
    clip = scene.clips[0]
    t = np.linspace(-0.25, clip.duration + 0.25, 3000)
    serial = scene.pose(clip, t)
    for workers in (2, -1):
        for got, expected in zip(scene.pose(clip, t, workers=workers), serial):
            assert _same_bits(got, expected)
    few = t[::10]
    assert _same_bits(scene.world(clip, few, workers=2), scene.world(clip, few))
    for skin in scene.skins:
        assert _same_bits(skin.joint_matrices(scene, clip, few, workers=2),
                          skin.joint_matrices(scene, clip, few))


def test_workers_raise_the_error_of_the_curve_that_fails():
    scene = animcore.load(RIGGED)
    clip, strict, edited = _with_a_strict_rotation(scene)
    t = np.append(np.linspace(0.0, clip.duration, 3000), clip.duration + 1.0)
    with pytest.raises(ValueError) as expected:
        strict(t)
    for call in (lambda: scene.pose(edited, t, workers=2),
                 lambda: scene.world(edited, t, workers=2),
                 lambda: scene.skins[0].joint_matrices(scene, edited, t, workers=2)):
        with pytest.raises(ValueError, match=re.escape(str(expected.value))):
            call()
    fbx = animcore.load(os.path.join(DATA, "fbx", "walk.fbx"))  # (its curves sampled in Python)
    for func, call in (("Scene.pose", lambda w: scene.pose(clip, t, workers=w)),
                       ("Scene.pose", lambda w: scene.pose(None, t, workers=w)),
                       ("Scene.pose", lambda w: fbx.pose(fbx.clips[0], t, workers=w)),
                       ("FbxScene.world", lambda w: fbx.world(fbx.clips[0], t, workers=w)),
                       ("Scene.world", lambda w: scene.world(clip, t, workers=w)),
                       ("Skin.joint_matrices",
                        lambda w: scene.skins[0].joint_matrices(scene, clip, t, workers=w))):
        with pytest.raises(ValueError, match=rf"^{func}: workers is 0 \(must be None"):
            call(0)
        with pytest.raises(ValueError, match=rf"^{func}: workers must be None or an integer"):
            call(1.5)


# -- the error contract of clip lookups, posing and skinning ---------------------------

BVH1 = os.path.join(DATA, "bvh", "bvh_test1.bvh")
WALK = os.path.join(DATA, "bvh", "cmu_12_01_walk.bvh")


def _mutated(scene, index, **fields):
    """The scene with fields of node ``index`` replaced."""
    from dataclasses import replace

    nodes = list(scene.nodes)
    nodes[index] = replace(nodes[index], **fields)
    return replace(scene, nodes=tuple(nodes))


def _lookup_error(match):
    """A clip or node that the scene does not have: a ValueError (bad input)
    that is a KeyError too, as before."""
    return pytest.raises(model.NodeLookupError, match=match)


def test_an_unknown_clip_is_a_value_error_and_a_key_error_naming_the_caller():
    scene = animcore.load(BVH1)
    rigged = animcore.load(RIGGED)
    calls = {
        "Scene.clip": lambda clip: scene.clip(clip),
        "Scene.world": lambda clip: scene.world(clip, 0.0),
        "Scene.pose": lambda clip: scene.pose(clip, 0.0),
        "Scene.weights": lambda clip: scene.weights(clip, 0.0),
        "Skin.joint_matrices": lambda clip: rigged.skins[0].joint_matrices(rigged, clip),
        "extract_root_motion": lambda clip: animcore.extract_root_motion(scene, clip, 0),
    }
    for name, call in calls.items():
        with _lookup_error(rf"^{re.escape(name)}: no clip named 'nope' \(available: "):
            call("nope")
        with _lookup_error(rf"^{re.escape(name)}: clip 5 is neither a clip name nor an index "
                           r"in \[0, 1\)$"):
            call(5)
    for bad in (True, 1.0, None):
        with pytest.raises(ValueError, match=r"^Scene.clip: clip .* is neither"):
            scene.clip(bad)
    with pytest.raises(KeyError):  # `except KeyError` callers keep working
        scene.clip("nope")


def test_joint_matrices_and_world_name_themselves_and_their_arguments():
    rigged = animcore.load(RIGGED)
    skin = rigged.skins[0]
    with pytest.raises(ValueError, match=r"^Skin.joint_matrices: t is nan \(must be finite\)$"):
        skin.joint_matrices(rigged, 0, np.nan)
    with pytest.raises(ValueError, match=r"^Skin.joint_matrices: t at index \(1,\) is inf"):
        skin.joint_matrices(rigged, None, [0.0, np.inf])
    big = _mutated(rigged, 1, scale=[1e200] * 3)
    far = model.Clip("far", 1.0, (model.Channel.from_curve(
        4, "translation", animcore.Curve([0.0, 1.0], [[0, 0, 1e200]] * 2, interpolation="linear"),
        node_name="Bone.001"),))
    with pytest.raises(OverflowError, match=r"^Skin.joint_matrices: world at index \(0, 4\) is "
                                            r"inf"):
        big.skins[0].joint_matrices(big, far, [0.5, 0.5])
    scene = animcore.load(BVH1)
    for nodes in (0, np.int64(2), np.array(1), "Hips", 3.5):
        with pytest.raises(ValueError, match=r"^Scene.world: nodes must be a sequence of node "
                                             r"names or indices, got "):
            scene.world(0, 0.0, nodes=nodes)
    with _lookup_error(r"^Scene.world: nodes 'Hipz' not in the scene; closest: 'Hips'$"):
        scene.world(0, 0.0, nodes=["Hipz"])
    np.testing.assert_array_equal(scene.world(0, [0.0, 0.1], nodes=np.array([2, 0])),
                                  scene.world(0, [0.0, 0.1])[:, [2, 0]])
    np.testing.assert_array_equal(scene.world(0, 0.1, nodes=("Hips",)),
                                  scene.world(0, 0.1)[[0]])


def test_joint_matrices_name_a_mesh_node_whose_world_has_no_inverse():
    rigged = animcore.load(RIGGED)
    flat = _mutated(rigged, 0, scale=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"^Skin.joint_matrices: the world matrix of mesh node "
                                         r"2 \('Cylinder'\) is singular \(it has no inverse\)$"):
        flat.skins[0].joint_matrices(flat)
    squashed = model.Clip("squashed", 1.0, (model.Channel.from_curve(
        1, "scale", animcore.Curve([0.0, 1.0], [[1, 1, 1], [1, 0, 1]], interpolation="linear"),
        node_name="Armature"),))
    with pytest.raises(ValueError, match=r"^Skin.joint_matrices: the world matrix of mesh node "
                                         r"2 \('Cylinder'\) at index \(2,\) is singular"):
        rigged.skins[0].joint_matrices(rigged, squashed, [0.0, 0.5, 1.0])
    with pytest.raises(ValueError, match=r"^Skin.joint_matrices: the world matrix of mesh node 1 "
                                         r"\('Armature'\) is singular"):
        rigged.skins[0].joint_matrices(rigged, squashed, 1.0, node="Armature")
    tiny = _mutated(rigged, 1, scale=[1e-310, 1.0, 1.0])
    with pytest.raises(OverflowError, match=r"^Skin.joint_matrices: the world matrix of mesh "
                                            r"node 2 \('Cylinder'\) has an inverse beyond the "
                                            r"double range$"):
        tiny.skins[0].joint_matrices(tiny)


@pytest.mark.parametrize("bad", [1.0, True, np.array(1), np.float64(2.0), 3, -1, "y", None])
def test_extract_root_motion_takes_an_integer_up_axis(bad):
    walk = animcore.bvh.load(WALK)
    with pytest.raises(ValueError, match=rf"^extract_root_motion: up_axis "
                                         rf"(is {re.escape(repr(bad))} \(must be 0, 1 or 2\)|"
                                         rf"must be an integer, got {re.escape(repr(bad))})$"):
        animcore.extract_root_motion(walk, 0, "Hips", up_axis=bad)
    track, _ = animcore.extract_root_motion(walk, 0, "Hips", up_axis=np.int8(2))
    assert track.up_axis == 2 and type(track.up_axis) is int


def test_joint_matrices_of_an_fbx_scene_use_its_own_world_and_name_themselves():
    scene = animcore.load(os.path.join(DATA, "fbx", "maya_transformed_skin_7700_binary.fbx"))
    skin = scene.skins[0]
    clip = scene.clips[0]
    t = np.linspace(0.0, clip.duration, 5)
    world = scene.world(clip, t)  # FBX's transform formula, not the plain node hierarchy
    assert not np.array_equal(world, scene.skeleton.world(*scene.pose(clip, t)))
    mesh = [n.index for n in scene.nodes if n.skin == skin.index][0]
    expected = products_in_order(np.linalg.inv(world[..., mesh, :, :])[..., None, :, :],
                                 products_in_order(world[..., skin.joints, :, :],
                                                   skin.inverse_bind_matrices))
    assert _same_bits(skin.joint_matrices(scene, clip, t), expected)
    with pytest.raises(ValueError, match=r"^Skin.joint_matrices: t at index \(1,\) is nan"):
        skin.joint_matrices(scene, clip, [0.0, np.nan])


def test_extract_root_motion_names_itself_in_the_errors_of_what_it_calls():
    scene = animcore.load(BVH1)
    far = _mutated(scene, 22, translation=[1e308, 0, 0])
    with pytest.raises(OverflowError, match=r"^extract_root_motion: the root track of joint "
                                            rf"'{scene.joint_names[22]}': positions at index "
                                            r"\(0, 0\) is "):
        animcore.extract_root_motion(far, 0, 22)
    fox = animcore.load(os.path.join(DATA, "gltf", "Fox", "Fox.glb"))
    with pytest.raises(ValueError, match=r"^extract_root_motion: clip 'Survey' animates node "
                                         r"'b_Head_05' \(index 8\), which the scene does not "
                                         r"have there"):
        animcore.extract_root_motion(animcore.load(WALK), fox.clip("Survey"), "Hips")
    flat = _mutated(scene, 0, scale=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"^extract_root_motion: matrix at index \(0,\) is 0.0 "
                                         r"\(has a zero column 0"):
        animcore.extract_root_motion(flat, 0, 1)


def test_extract_root_motion_near_the_double_range_raises_named_errors_not_warnings():
    import warnings

    rigged = animcore.load(RIGGED)
    tiny = _mutated(rigged, 1, scale=[1e-310, 1.0, 1.0])
    far = _mutated(rigged, 1, translation=[1.7e308, -1.0, 1.7e308])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (NumPy's inverse and products gave RuntimeWarnings)
        with pytest.raises(OverflowError, match=r"^extract_root_motion: the world matrix of the "
                                                r"joint's parent 1 \('Armature'\) at index "
                                                r"\(0,\) has an inverse beyond the double "
                                                r"range$"):
            animcore.extract_root_motion(tiny, 0, 2)
        with pytest.raises(OverflowError, match=r"^extract_root_motion: joint 'Bone.001' "
                                                r"without the root motion at index \(4,\) is "
                                                r"beyond the double range$"):
            animcore.extract_root_motion(far, 0, 4, mode="full")
        track, _ = animcore.extract_root_motion(far, 0, 4)  # ground: representable
        assert np.isfinite(track.positions).all()


# -- the frame grid --------------------------------------------------------------------

@pytest.mark.parametrize("duration, fps, kind, message", [
    (np.nan, 30, ValueError, r"duration is nan \(must be a finite number >= 0\)"),
    (-1.0, 30, ValueError, r"duration is -1.0 \(must be a finite number >= 0\)"),
    ("1s", 30, ValueError, r"duration must be a real number, got '1s'"),
    (10**400, 30, OverflowError, r"duration is an integer of 401 digits \(must be "
                                 r"representable as float64"),
    (1.0, 0, ValueError, r"fps is 0.0 \(must be a finite number > 0\)"),
    (1.0, "30x", ValueError, r"fps must be a real number, got '30x'"),
    (1.0, 10**400, OverflowError, r"fps is an integer of 401 digits"),
    (2.0, 1e9, ValueError, r"2 s at fps=1e\+09 would be 2e\+09 frames \(at most 100,000,000 "
                           r"per clip; lower the fps\)"),
])
def test_frame_times_names_itself_or_its_caller(duration, fps, kind, message):
    with pytest.raises(kind, match=rf"^frame_times: {message}"):
        model.frame_times(duration, fps)
    with pytest.raises(kind, match=rf"^caller: {message}"):
        model.frame_times(duration, fps, func="caller")


def test_frame_times_of_a_clip_shorter_than_a_frame_are_its_start_and_end():
    for duration, fps in ((1.0, 1e-7), (1e-300, 1e-300), (1e-9, 30.0), (5e-324, 1e-310),
                          (3e-7, 1.0)):
        grid = model.frame_times(duration, fps)
        assert grid.tolist() == [0.0, duration], (duration, fps)
    assert model.frame_times(0.0, 1e-7).tolist() == [0.0]
    # a product within a relative 1e-6 of an integer still counts as that integer
    assert len(model.frame_times(float(np.float32(0.4)), 30)) == 13
    walk = animcore.bvh.load(WALK)
    track, _ = animcore.extract_root_motion(walk, 0, "Hips", fps=1e-7)
    assert track.times.tolist() == [0.0, walk.clips[0].duration]
    with pytest.raises(ValueError, match=r"^extract_root_motion: 4.35832 s at fps=1e\+09 would be "
                                         r"4.358e\+09 frames \(at most 100,000,000 per clip; "
                                         r"lower the fps\)$"):
        animcore.extract_root_motion(walk, 0, "Hips", fps=1e9)


def test_inverses_whose_sum_alone_overflows_are_returned():
    matrices = np.stack([np.diag([1e-308, 1e-308, 1e-308, 1.0]), np.eye(4)])
    inverse = model._inverse("f", "the matrix", matrices)
    np.testing.assert_array_equal(inverse, np.linalg.inv(matrices))
    with pytest.raises(ValueError, match=r"^f: the matrix at index \(1,\) is singular"):
        model._inverse("f", "the matrix", np.stack([np.eye(4), np.zeros((4, 4))]))
