"""glTF scenes on real files (tests/data/gltf, see SOURCES.md there): nodes, skins,
world and joint matrices against pygltflib's reading of the same files composed by a
plain loop (tests/reference.py), KHR_animation_pointer, errors="skip"."""
import copy
import json
import pathlib
import pickle

import numpy as np
import pytest

from animcore import gltf
from reference import gltf_spec_sample, gltf_world, pygltf_accessor, pygltf_document

DATA = pathlib.Path(__file__).resolve().parent / "data" / "gltf"
RIGS = ["Fox/Fox.glb", "CesiumMan/CesiumMan.gltf", "RiggedSimple/RiggedSimple.gltf",
        "SimpleSkin/SimpleSkin.gltf", "Animation_Skin/Animation_Skin_09.gltf"]
POINTER = DATA / "24_animation_pointer" / "24_animation_pointer.gltf"


def animated(doc, animation, t):
    """The node values an animation sets at times t, from pygltflib's reading of
    its samplers evaluated as the glTF specification writes them (not animcore's
    sampling); a later channel on the same target wins, as in the file."""
    values = {}
    for channel in animation.channels:
        path = channel.target.path
        if path == "weights" or channel.target.node is None:
            continue
        sampler = animation.samplers[channel.sampler]
        values[(channel.target.node, path)] = gltf_spec_sample(
            pygltf_accessor(doc, sampler.input)[:, 0], pygltf_accessor(doc, sampler.output),
            sampler.interpolation, t, rotation=path == "rotation")
    return values


@pytest.mark.parametrize("name", RIGS)
def test_world_and_joint_matrices_match_the_specification(name):
    path = DATA / name
    scene, doc = gltf.load_scene(path), pygltf_document(path)
    assert len(scene.nodes) == len(doc.nodes) and len(scene.skins) == len(doc.skins)
    assert len(scene.clips) == len(doc.animations)
    for clip, animation in zip(scene.clips, doc.animations):
        t = np.linspace(-0.1, clip.duration + 0.1, 9).reshape(3, 3)
        expected = gltf_world(doc, animated(doc, animation, t), t.shape)
        world = scene.world(clip, t)
        assert world.shape == (3, 3, len(doc.nodes), 4, 4)
        np.testing.assert_allclose(world, expected, rtol=0, atol=1e-12 * max(1, np.abs(expected).max()))
        for skin, spec in zip(scene.skins, doc.skins):
            ibm = pygltf_accessor(doc, spec.inverseBindMatrices).reshape(-1, 4, 4).transpose(0, 2, 1)
            np.testing.assert_array_equal(skin.inverse_bind_matrices, ibm)
            mesh_node = next(i for i, n in enumerate(doc.nodes) if n.skin == skin.index)
            joint = (np.linalg.inv(expected[..., mesh_node, None, :, :])
                     @ expected[..., spec.joints, :, :] @ ibm)
            np.testing.assert_allclose(skin.joint_matrices(scene, clip, t), joint, rtol=0,
                                       atol=1e-9)


@pytest.mark.parametrize("name", ["Fox/Fox.glb", "CesiumMan/CesiumMan.gltf"])
def test_rest_pose_is_the_bind_pose_of_artists_rigs(name):
    # Both rigs were bound in their rest pose: every joint matrix is the identity
    # up to the float32 precision of the stored matrices.
    scene = gltf.load_scene(DATA / name)
    matrices = scene.skins[0].joint_matrices(scene)
    np.testing.assert_allclose(matrices, np.broadcast_to(np.eye(4), matrices.shape), atol=2e-5)


def test_fox_nodes_skin_and_pose():
    scene = gltf.load_scene(DATA / "Fox" / "Fox.glb")
    doc = json.loads(pygltf_document(DATA / "Fox" / "Fox.glb").to_json())
    assert [c.name for c in scene.clips] == ["Survey", "Walk", "Run"]
    assert scene.scenes == (tuple(doc["scenes"][0]["nodes"]),) and scene.scene == 0
    skin = scene.skins[0]
    assert list(skin.joints) == doc["skins"][0]["joints"] and skin.skeleton == 2
    for node, raw in zip(scene.nodes, doc["nodes"]):
        assert node.name == raw.get("name") and node.children == tuple(raw.get("children", []))
        for child in node.children:
            assert scene.nodes[child].parent == node.index
        np.testing.assert_array_equal(node.translation, raw.get("translation", [0, 0, 0]))
    fox = scene.nodes[scene.node_index("fox")]
    assert fox.mesh == 0 and fox.skin == 0
    walk = scene.clip("Walk")
    t = np.array([0.0, 0.25, 0.5])
    pose = scene.pose(walk, t)
    assert pose.rotation.shape == (3, len(scene.nodes), 4)
    animated_nodes = {c.node for c in walk.channels if c.path == "rotation"}
    for node in scene.nodes:  # untouched properties keep the node's values
        if node.index not in animated_nodes:
            np.testing.assert_array_equal(pose.rotation[:, node.index], np.broadcast_to(node.rotation, (3, 4)))
        np.testing.assert_array_equal(pose.scale[:, node.index], np.broadcast_to(node.scale, (3, 3)))
    channel = walk.channels[0]
    np.testing.assert_array_equal(pose[("translation", "rotation", "scale").index(channel.path)][:, channel.node],
                                  channel.sample(t))
    np.testing.assert_array_equal(scene.world(walk, 0.5, nodes=["fox"]), scene.world(walk, 0.5)[[fox.index]])
    np.testing.assert_array_equal(scene.world(), scene.world(None, 0.0))


def test_animation_pointer_channels():
    scene = gltf.load_scene(POINTER)
    (clip,) = scene.clips
    doc = pygltf_document(POINTER)
    pointers = [c.target.extensions["KHR_animation_pointer"]["pointer"]
                for c in doc.animations[0].channels]
    node_pointers = [p for p in pointers if p.startswith("/nodes/") and
                     p.rsplit("/", 1)[1] in ("translation", "rotation", "scale", "weights")]
    assert len(clip.channels) == len(node_pointers) == 23
    assert len(clip.unsupported) == len(pointers) - 23 == 47
    assert [u.pointer for u in clip.unsupported] == [p for p in pointers if p not in node_pointers]
    # Each channel is the pointer's node and path, with the sampler's keys.
    for channel, pointer in zip(clip.channels, node_pointers):
        assert pointer == f"/nodes/{channel.node}/{channel.path}"
    sampler_of = {p: c.sampler for p, c in zip(pointers, doc.animations[0].channels)}
    for channel, pointer in zip(clip.channels, node_pointers):
        sampler = doc.animations[0].samplers[sampler_of[pointer]]
        np.testing.assert_allclose(channel.times, pygltf_accessor(doc, sampler.input)[:, 0])
        if channel.interpolation == "LINEAR" and channel.path != "weights":
            keys = pygltf_accessor(doc, sampler.output)
            np.testing.assert_allclose(channel.sample(channel.times), keys / np.linalg.norm(
                keys, axis=1, keepdims=True) if channel.path == "rotation" else keys, atol=1e-7)
    colour = clip.unsupported[0]
    assert colour.pointer == "/extensions/KHR_lights_punctual/lights/0/color"
    assert colour.keys == len(pygltf_accessor(doc, doc.animations[0].samplers[
        sampler_of[colour.pointer]].input))
    assert len(gltf.load(POINTER)[0].channels) == 23


def test_channels_without_a_target_node_are_kept_as_unsupported(tmp_path):
    def edit(doc):
        doc["animations"][0]["channels"].append(
            {"sampler": 0, "target": {"path": "rotation", "extensions": {"EXT_other": {}}}})
    clip = gltf.load(_edited(tmp_path, edit))[0]
    assert len(clip.channels) == 1
    assert clip.unsupported == (gltf.Unsupported(None, len(clip.channels[0].times)),)


def _broken_copy(tmp_path):
    """SimpleSkin with a second animation whose sampler output has the wrong count."""
    doc = json.loads((DATA / "SimpleSkin" / "SimpleSkin.gltf").read_text())
    bad = copy.deepcopy(doc["animations"][0])
    bad["name"] = "broken"
    bad["samplers"][0]["output"] = bad["samplers"][0]["input"]  # SCALAR, not VEC4
    doc["animations"].insert(0, bad)
    path = tmp_path / "broken.gltf"
    path.write_text(json.dumps(doc))
    return path


def test_errors_skip_reports_the_bad_animation_and_loads_the_rest(tmp_path):
    path = _broken_copy(tmp_path)
    with pytest.raises(gltf.GltfError, match=r"broken.gltf: animations\[0\].samplers\[0\].output: "
                                             r"accessor \d+ has type SCALAR, expected VEC4"):
        gltf.load_scene(path)
    with pytest.warns(gltf.GltfWarning, match=r"animations\[0\].*\(animation skipped\)"):
        scene = gltf.load_scene(path, errors="skip")
    assert [c.name for c in scene.clips] == ["animation1"]
    assert len(scene.skipped) == 1 and "animations[0]" in str(scene.skipped[0])
    with pytest.warns(gltf.GltfWarning):
        assert len(gltf.load(path, errors="skip")) == 1
    with pytest.raises(ValueError, match=r"load: errors is 'ignore' \(must be one of 'raise', 'skip'\)"):
        gltf.load(path, errors="ignore")


def _edited(tmp_path, edit, name="SimpleSkin/SimpleSkin.gltf"):
    doc = json.loads((DATA / name).read_text())
    edit(doc)
    path = tmp_path / "edited.gltf"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["skins"][0]["joints"].append(0),
     r"skins\[0\].inverseBindMatrices: accessor \d+ has 2 elements, expected 3 matrices \(one per joint\)"),
    (lambda d: d["skins"][0]["joints"].append(7),
     r"skins\[0\].joints\[2\]: must be a node index in \[0, 3\)"),
    (lambda d: (d["nodes"][0].update(children=[]), d["nodes"][2].update(children=[1])),
     r"nodes: the children lists form a cycle \(.*makes joint [12] its own ancestor"),
    (lambda d: d["nodes"][0]["children"].append(2),
     r"nodes\[1\].children\[0\]: node 2 already has parent 0 \(a node has at most one parent"),
    (lambda d: d["nodes"][1].update(matrix=[1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]),
     r"nodes\[1\].matrix: cannot be posed: .*sheared"),
    (lambda d: d["nodes"][1].update(rotation=[0, 0, 0, 0]), r"nodes\[1\].rotation: is a zero quaternion"),
    (lambda d: d.update(scene=3), r"scene: index 3 out of range"),
    (lambda d: d["nodes"][0].update(weights=["a"]), r"nodes\[0\].weights: must be finite numbers"),
])
def test_malformed_scenes(tmp_path, edit, message):
    with pytest.raises(gltf.GltfError, match=message):
        gltf.load_scene(_edited(tmp_path, edit))


def test_lookup_errors():
    scene = gltf.load_scene(DATA / "Fox" / "Fox.glb")
    with pytest.raises(KeyError, match="no clip named 'Jump' \\(available: 'Survey', 'Walk', 'Run'\\)"):
        scene.clip("Jump")
    with pytest.raises(KeyError, match=r"^Scene.node_index: node 'tail' not in the scene; its "
                                       r"nodes are 'root', 'fox', .*\(26 in all\)$"):
        scene.node_index("tail")
    with pytest.raises(ValueError, match=r"Scene.world: nodes 99 is not a node index in \[0, 26\)"):
        scene.world(nodes=[99])
    with pytest.raises(ValueError, match=r"Scene.pose: t at index \(1,\) is nan"):
        scene.pose("Walk", [0.0, np.nan])
    lonely = gltf.Skin(5, None, np.array([3]), np.eye(4)[None])  # no node uses it
    np.testing.assert_array_equal(lonely.joint_matrices(scene, "Walk", 0.2),
                                  scene.world("Walk", 0.2)[[3]])
    with pytest.raises(ValueError, match="Skin.joint_matrices: node 'tail' not in the scene"):
        lonely.joint_matrices(scene, node="tail")


def test_scene_pickles_copies_and_compares_by_value():
    scene = gltf.load_scene(DATA / "Fox" / "Fox.glb")
    for clone in (pickle.loads(pickle.dumps(scene)), copy.deepcopy(scene), copy.copy(scene)):
        assert clone == scene
        np.testing.assert_array_equal(clone.world("Run", [0.1, 0.4]), scene.world("Run", [0.1, 0.4]))
    node, skin = (pickle.loads(pickle.dumps(x)) for x in (scene.nodes[3], scene.skins[0]))
    assert node == scene.nodes[3] and skin == scene.skins[0]
    assert not node.rotation.flags.writeable and not skin.inverse_bind_matrices.flags.writeable
    assert scene.nodes[3] != scene.nodes[4]
    other = gltf.load_scene(DATA / "CesiumMan" / "CesiumMan.gltf")
    assert scene != other


# -- export -------------------------------------------------------------------------

import animcore  # noqa: E402


@pytest.mark.parametrize("name, embed", [("out.gltf", True), ("out.gltf", False), ("out.glb", True)])
def test_save_then_load_gives_the_same_samplers_and_pygltflib_reads_them(tmp_path, name, embed):
    clips = gltf.load_sample()  # STEP, LINEAR, CUBICSPLINE, morph weights
    path = tmp_path / name
    gltf.save(path, clips, embed=embed)
    assert (tmp_path / "out.bin").exists() == (not embed and name.endswith(".gltf"))
    back = gltf.load(path)
    assert [c.name for c in back] == [c.name for c in clips]
    t = np.linspace(-0.2, 1.7, 41)
    for a, b in zip(clips, back):
        assert a.duration == b.duration
        for ca, cb in zip(a.channels, b.channels):
            assert (ca.node, ca.path, ca.interpolation, ca.width, ca.target) == \
                (cb.node, cb.path, cb.interpolation, cb.width, cb.target)
            np.testing.assert_array_equal(cb.times, ca.times)
            np.testing.assert_array_equal(cb.output, ca.output)
            np.testing.assert_array_equal(cb.sample(t), ca.sample(t))
    doc = pygltf_document(path)
    assert len(doc.animations) == len(clips)
    for clip, animation in zip(clips, doc.animations):
        for channel, entry in zip(clip.channels, animation.channels):
            sampler = animation.samplers[entry.sampler]
            assert (entry.target.node, entry.target.path) == (channel.node, channel.path)
            assert sampler.interpolation == channel.interpolation
            times = doc.accessors[sampler.input]
            assert times.min == [channel.times.min()] and times.max == [channel.times.max()]
            np.testing.assert_array_equal(pygltf_accessor(doc, sampler.input)[:, 0], channel.times)
            np.testing.assert_array_equal(pygltf_accessor(doc, sampler.output).reshape(channel.output.shape),
                                          channel.output)


def test_save_a_rig_with_its_scene(tmp_path):
    scene = gltf.load_scene(DATA / "Fox" / "Fox.glb")
    gltf.save(tmp_path / "fox.glb", scene.clips, scene=scene)
    back = gltf.load_scene(tmp_path / "fox.glb")
    assert [n.name for n in back.nodes] == [n.name for n in scene.nodes]
    assert [n.children for n in back.nodes] == [n.children for n in scene.nodes]
    assert back.skins == scene.skins and back.scenes == scene.scenes
    t = np.linspace(0, 1.2, 7)
    for clip in scene.clips:
        np.testing.assert_array_equal(back.world(clip.name, t), scene.world(clip, t))


def test_save_keeps_the_node_a_skin_is_applied_to(tmp_path):
    # CesiumMan's skin is applied to a mesh node under a Z-up turn: joint
    # matrices are relative to that node, and were relative to the skeleton's
    # space once the link was lost on the way through save
    scene = gltf.load_scene(DATA / "CesiumMan" / "CesiumMan.gltf")
    skinned = [n.index for n in scene.nodes if n.skin is not None]
    assert skinned
    gltf.save(tmp_path / "man.glb", scene.clips, scene=scene)
    back = gltf.load_scene(tmp_path / "man.glb")
    assert [(n.index, n.skin) for n in back.nodes if n.skin is not None] == \
        [(i, scene.nodes[i].skin) for i in skinned]
    t = np.linspace(0, 2, 9)
    world = scene.world(scene.clips[0], t)
    skin = scene.skins[0]
    # the glTF joint matrix: inverse(world[mesh node]) @ world[joint] @ inverse bind
    want = np.linalg.inv(world[:, skinned[0]])[:, None] @ world[:, skin.joints] \
        @ skin.inverse_bind_matrices
    got = back.skins[0].joint_matrices(back, back.clips[0], t)
    np.testing.assert_allclose(got, want, atol=1e-12)
    # a skinned mesh's primitives need JOINTS_0 and WEIGHTS_0 (glTF 2.0, 3.7.3.3)
    doc = pygltf_document(tmp_path / "man.glb")
    node = doc.nodes[skinned[0]]
    attributes = doc.meshes[node.mesh].primitives[0].attributes
    joints = doc.accessors[attributes.JOINTS_0]
    assert (joints.componentType, joints.type, joints.count) == (5121, "VEC4", 1)
    np.testing.assert_array_equal(pygltf_accessor(doc, attributes.WEIGHTS_0), [[1, 0, 0, 0]])


def test_save_keeps_the_keys_of_linear_and_cubic_segments_mixed(tmp_path):
    # reduce_clip's curves mix linear and cubic segments: glTF's CUBICSPLINE
    # holds them, a linear segment's velocities at both ends its slope
    times = np.array([0.0, 0.4, 1.0, 1.5, 2.0])
    values = np.array([[0, 0, 0], [1, 2, 0], [0, 1, 1], [2, 0, 1], [1, 1, 1.0]])
    mixed = animcore.Curve(times, values, interpolation=("linear", "cubic", "cubic", "linear"),
                           velocities=np.array([[1, 0, 0], [0, 1, 0], [2, 0, 1], [0, 0, 3],
                                                [1, 1, 1.0]]))
    channel = gltf.Channel.from_curve(0, "translation", mixed, node_name="hips")
    assert channel.interpolation == "CUBICSPLINE"
    gltf.save(tmp_path / "mixed.glb", gltf.Clip("mixed", 2.0, (channel,)))
    back = gltf.load(tmp_path / "mixed.glb")[0].channels[0]
    np.testing.assert_array_equal(back.times, times.astype(np.float32))  # every key kept
    t = np.linspace(0, 2, 401)
    # the file evaluated by the specification's formula, against the curve itself
    doc = pygltf_document(tmp_path / "mixed.glb")
    sampler = doc.animations[0].samplers[0]
    output = pygltf_accessor(doc, sampler.output)
    want = mixed(t)
    np.testing.assert_allclose(gltf_spec_sample(times, output, "CUBICSPLINE", t), want, atol=2e-6)
    np.testing.assert_allclose(back.sample(t), want, atol=2e-6)
    line = (t > 0) & (t < 0.4)  # the first segment is the straight line between its keys
    np.testing.assert_allclose(back.sample(t[line]), values[0] + np.outer(t[line] / 0.4,
                                                                          values[1] - values[0]),
                               atol=2e-6)


def test_save_curves_glTF_can_and_cannot_express(tmp_path):
    cubic = animcore.Curve([0, 0.5, 2], [[0, 0, 0], [1, 2, 0], [0, 1, 1]],
                           in_velocities=np.ones((3, 3)), out_velocities=-np.ones((3, 3)))
    turn = animcore.RotationCurve([0, 1], [[0, 0, 0, 1], [0, 0.5 ** 0.5, 0, 0.5 ** 0.5]])
    eased = animcore.Curve([0, 1, 2], [[1, 1, 1], [2, 2, 2], [1, 1, 1]], interpolation="linear",
                           ease="smoothstep")
    channels = [gltf.Channel.from_curve(0, "translation", cubic, node_name="hips"),
                gltf.Channel.from_curve(0, "rotation", turn, node_name="hips"),
                gltf.Channel.from_curve(1, "scale", eased)]
    assert [c.interpolation for c in channels] == ["CUBICSPLINE", "LINEAR", None]
    clip = gltf.Clip("moves", 2.0, tuple(channels))
    with pytest.raises(ValueError, match=r"save: clip 'moves' channel 2 \(scale of node 1\) is a curve "
                                         r"glTF cannot express .*pass fps="):
        gltf.save(tmp_path / "x.gltf", clip)
    gltf.save(tmp_path / "x.gltf", clip, fps=10)
    back = gltf.load(tmp_path / "x.gltf")[0]
    t = np.linspace(0, 2, 33)
    f32 = lambda a: np.asarray(a, np.float32).astype(float)  # noqa: E731
    np.testing.assert_allclose(back.channels[0].sample(t), cubic(t), atol=1e-6)
    np.testing.assert_array_equal(back.channels[0].output, f32(channels[0].output))
    np.testing.assert_allclose(back.channels[1].sample(t), turn(t), atol=1e-7)
    frames = np.arange(21) / 10
    assert back.channels[2].interpolation == "LINEAR"
    np.testing.assert_allclose(back.channels[2].times, frames, atol=1e-7)
    np.testing.assert_allclose(back.channels[2].sample(frames), eased(frames), atol=1e-6)


def test_save_a_default_curve_samples_it(tmp_path):
    # a Curve's default tangents are Blender's Bezier handles, which no glTF sampler
    # (Hermite, handles a third of the segment) reproduces: written as samples;
    # interpolation="cubic" is written as CUBICSPLINE keys
    keys = ([0, 1, 2, 3], [[0, 0, 0], [1, 2, 0], [1, 2, 0], [0, 1, 1]])
    default, hermite = animcore.Curve(*keys), animcore.Curve(*keys, interpolation="cubic")
    channels = (gltf.Channel.from_curve(0, "translation", default),
                gltf.Channel.from_curve(0, "scale", hermite))
    assert [c.interpolation for c in channels] == [None, "CUBICSPLINE"]
    clip = gltf.Clip("hold", 3.0, channels)
    with pytest.raises(ValueError, match=r"^save: clip 'hold' channel 0 \(translation of node 0\) "
                                         r"is a curve glTF cannot express \(easing, a time remap, "
                                         r"jumps or Bezier handles, which a Curve has by default; "
                                         r"interpolation='cubic' is glTF's CUBICSPLINE\); pass fps="):
        gltf.save(tmp_path / "x.gltf", clip)
    gltf.save(tmp_path / "x.gltf", clip, fps=30)
    back = gltf.load(tmp_path / "x.gltf")[0]
    frames = np.arange(91) / 30
    assert [c.interpolation for c in back.channels] == ["LINEAR", "CUBICSPLINE"]
    np.testing.assert_allclose(back.channels[0].sample(frames), default(frames), atol=1e-6)
    np.testing.assert_allclose(back.channels[1].sample(frames), hermite(frames), atol=1e-6)


def test_save_a_bvh_clip(tmp_path):
    scene = animcore.bvh.load(pathlib.Path(__file__).parent / "data" / "bvh" / "bvh_test2.bvh")
    gltf.save(tmp_path / "mocap.glb", scene.clips, scene=scene)
    back = gltf.load_scene(tmp_path / "mocap.glb")
    times = scene.clips[0].channels[0].times[:5]
    np.testing.assert_allclose(back.world(0, times), scene.world(0, times), atol=1e-4)


def test_save_errors(tmp_path):
    clips = gltf.load_sample()
    with pytest.raises(ValueError, match=r"save: path must end in .gltf or .glb, got '.*x.fbx'"):
        gltf.save(tmp_path / "x.fbx", clips)
    with pytest.raises(ValueError, match=r"save: clips must be Clip objects, got str"):
        gltf.save(tmp_path / "x.gltf", ["walk"])
    with pytest.raises(ValueError, match=r"save: fps is -1.0 \(must be a finite number > 0\)"):
        gltf.save(tmp_path / "x.gltf", clips, fps=-1)
    small = gltf.load_scene(DATA / "SimpleSkin" / "SimpleSkin.gltf")
    with pytest.raises(ValueError, match=r"save: clip 'walk' channel 3 animates node 3, but the scene has 3 nodes"):
        gltf.save(tmp_path / "x.gltf", clips, scene=small)
    with pytest.raises(ValueError, match=r"save: clip 'empty' has no channels"):
        gltf.save(tmp_path / "x.gltf", gltf.Clip("empty", 0.0, ()))
    big = gltf.Channel.from_curve(0, "translation", animcore.Curve([0, 1], [[0, 0, 0], [1e39, 0, 0]],
                                                                   interpolation="cubic"))
    with pytest.raises(OverflowError, match=r"save: a value does not fit in glTF's float32"):
        gltf.save(tmp_path / "x.gltf", gltf.Clip("big", 1.0, (big,)))
    close = gltf.Channel.from_curve(0, "scale", animcore.Curve([0, 1, 1 + 1e-12], np.ones((3, 3)),
                                                               interpolation="cubic"))
    with pytest.raises(ValueError, match=r"save: key times 1.0 and 1.000000000001 are equal in glTF's float32"):
        gltf.save(tmp_path / "x.gltf", gltf.Clip("close", 1.0, (close,)))
    with pytest.raises(ValueError, match=r"Channel.from_curve: a rotation channel needs a RotationCurve, got Curve"):
        gltf.Channel.from_curve(0, "rotation", animcore.Curve([0, 1], [[0, 0, 0, 1]] * 2))
    with pytest.raises(ValueError, match=r"Channel.from_curve: a scale curve needs 3 channels, got 2"):
        gltf.Channel.from_curve(0, "scale", animcore.Curve([0, 1], [[0, 0]] * 2))
    pointer = gltf.load(POINTER)
    with pytest.warns(gltf.GltfWarning, match=r"47 channel\(s\) animcore does not evaluate"):
        gltf.save(tmp_path / "p.glb", pointer)
    # a channel whose target another extension defines has no pointer: said in words
    moved = gltf.Channel.from_curve(0, "translation", animcore.Curve([0, 1], np.zeros((2, 3)),
                                                                     interpolation="linear"))
    other = gltf.Clip("other", 1.0, (moved,), (animcore.model.Unsupported(None, 5),))
    with pytest.warns(gltf.GltfWarning, match=r"does not evaluate \(e.g. 'a target another "
                                              r"extension defines'\)"):
        gltf.save(tmp_path / "o.glb", other)


# -- bake --world / --root-motion / --strict ---------------------------------------

from scipy.spatial.transform import Rotation  # noqa: E402

from animcore import bake as bake_module  # noqa: E402
from animcore import cli  # noqa: E402

FOX = DATA / "Fox" / "Fox.glb"


def test_bake_world_transforms_of_chosen_nodes(tmp_path, capsys):
    out = tmp_path / "world.npz"
    assert cli.main(["bake", str(FOX), "--world", "--nodes", "b_Hip_01", "1", "--clip", "Walk",
                     "--fps", "12", "--out", str(out)]) == 0
    scene = gltf.load_scene(FOX)
    grid = bake_module.frame_times(scene.clip("Walk").duration, 12)
    with np.load(out) as baked:
        assert sorted(baked.files) == sorted(["Walk/time"] + [
            f"Walk/{n}/world_{p}" for n in ("b_Hip_01", "fox") for p in ("translation", "rotation", "scale")])
        world = scene.world("Walk", grid)[:, scene.node_index("b_Hip_01")]
        np.testing.assert_allclose(baked["Walk/b_Hip_01/world_translation"], world[:, :3, 3], atol=1e-9)
        rotation = Rotation.from_quat(baked["Walk/b_Hip_01/world_rotation"]).as_matrix()
        np.testing.assert_allclose(rotation * baked["Walk/b_Hip_01/world_scale"][:, None, :],
                                   world[:, :3, :3], atol=1e-9)
    csv_out = tmp_path / "world.csv"
    assert cli.main(["bake", str(FOX), "--world", "--nodes", "fox", "--clip", "Run", "--out",
                     str(csv_out)]) == 0
    header = csv_out.read_text().splitlines()[0].split(",")
    assert header[3:7] == ["fox/world_translation/x", "fox/world_translation/y",
                           "fox/world_translation/z", "fox/world_rotation/x"]


def test_bake_root_motion(tmp_path):
    out = tmp_path / "root.npz"
    assert cli.main(["bake", str(FOX), "--root-motion", "b_Hip_01", "--clip", "Run", "--fps", "30",
                     "--out", str(out)]) == 0
    scene = gltf.load_scene(FOX)
    track, in_place = animcore.extract_root_motion(scene, "Run", "b_Hip_01")
    grid = bake_module.frame_times(track.duration, 30)
    with np.load(out) as baked:
        np.testing.assert_allclose(baked["Run/root_motion/translation"],
                                   track.sample(grid / track.duration).position, atol=1e-12)
        assert baked["Run/root_motion/yaw"].shape == (len(grid), 1)
        np.testing.assert_allclose(baked["Run/b_Hip_01/translation"],
                                   in_place.channel("b_Hip_01", "translation").sample(grid))
    # the joint by its index, as --nodes takes them
    hip = str(scene.node_index("b_Hip_01"))
    assert cli.main(["bake", str(FOX), "--root-motion", hip, "--clip", "Run", "--fps", "30",
                     "--out", str(tmp_path / "by_index.npz")]) == 0
    with np.load(out) as by_name, np.load(tmp_path / "by_index.npz") as by_index:
        assert sorted(by_name) == sorted(by_index)
        for key in by_name:
            np.testing.assert_array_equal(by_name[key], by_index[key])


def test_bake_to_one_file_leaves_no_partial_file(tmp_path, monkeypatch, capsys):
    """A write that fails (a full disk) leaves the earlier output as it was and
    no partial file: the output is renamed into place once whole."""
    out = tmp_path / "fox.npz"
    out.write_bytes(b"earlier")

    def half(path, arrays):
        pathlib.Path(path).write_bytes(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bake_module, "write_npz", half)
    with pytest.raises(SystemExit) as stopped:
        cli.main(["bake", str(FOX), "--clip", "Walk", "--out", str(out)])
    assert stopped.value.code == 1 and "No space left on device" in capsys.readouterr().err
    assert out.read_bytes() == b"earlier" and sorted(tmp_path.iterdir()) == [out]


def test_bake_reports_unsupported_channels_and_strict_fails(tmp_path, capsys):
    assert cli.main(["bake", str(POINTER), "--out", str(tmp_path / "p.npz")]) == 0
    err = capsys.readouterr().err
    assert "bake: warning: clip 'AllAnimatedProperties' has 47 channel(s) animcore does not bake" in err
    with pytest.raises(SystemExit) as stopped:
        cli.main(["bake", str(POINTER), "--strict", "--out", str(tmp_path / "q.npz")])
    assert stopped.value.code == 1 and not (tmp_path / "q.npz").exists()
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        "bake: error: --strict: not baking a file with channels animcore does not bake")
    assert cli.main(["bake", str(FOX), "--strict", "--clip", "Walk", "--out", str(tmp_path / "f.npz")]) == 0


def test_bake_says_when_the_file_was_read_as_a_node_name(capsys):
    # --nodes takes every word after it: the file given after them is no FILE
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bake", "--world", "--nodes", "0", str(FOX)])
    assert exit_info.value.code == 2
    assert "bake: error: FILE was read as a --nodes name: give the files before --nodes" in \
        capsys.readouterr().err


@pytest.mark.parametrize("args, status, message", [
    (["--nodes", "fox"], 2, "bake: error: --nodes needs --world"),
    (["--world", "--nodes", "tail"], 1,
     "bake: error: --nodes: Scene.node_index: node 'tail' not in the scene"),
    (["--root-motion", "tail"], 1,
     "bake: error: --root-motion: extract_root_motion: joint 'tail' not in the scene"),
])
def test_bake_rig_option_errors(capsys, args, status, message):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bake", str(FOX), *args])
    assert exit_info.value.code == status and message in capsys.readouterr().err
