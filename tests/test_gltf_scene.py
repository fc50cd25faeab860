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
from reference import gltf_world, pygltf_accessor, pygltf_document

DATA = pathlib.Path(__file__).resolve().parent / "data" / "gltf"
RIGS = ["Fox/Fox.glb", "CesiumMan/CesiumMan.gltf", "RiggedSimple/RiggedSimple.gltf",
        "SimpleSkin/SimpleSkin.gltf", "Animation_Skin/Animation_Skin_09.gltf"]
POINTER = DATA / "24_animation_pointer" / "24_animation_pointer.gltf"


def animated(clip, t):
    return {(c.node, c.path): c.sample(t) for c in clip.channels if c.path != "weights"}


@pytest.mark.parametrize("name", RIGS)
def test_world_and_joint_matrices_match_the_specification(name):
    path = DATA / name
    scene, doc = gltf.load_scene(path), pygltf_document(path)
    assert len(scene.nodes) == len(doc.nodes) and len(scene.skins) == len(doc.skins)
    for clip in scene.clips:
        t = np.linspace(-0.1, clip.duration + 0.1, 9).reshape(3, 3)
        expected = gltf_world(doc, animated(clip, t), t.shape)
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
     r"skins\[0\].inverseBindMatrices: accessor \d+ has 2 matrices, expected 3 \(one per joint\)"),
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
])
def test_malformed_scenes(tmp_path, edit, message):
    with pytest.raises(gltf.GltfError, match=message):
        gltf.load_scene(_edited(tmp_path, edit))


def test_lookup_errors():
    scene = gltf.load_scene(DATA / "Fox" / "Fox.glb")
    with pytest.raises(KeyError, match="no clip named 'Jump' \\(available: 'Survey', 'Walk', 'Run'\\)"):
        scene.clip("Jump")
    with pytest.raises(KeyError, match="no node named 'tail'"):
        scene.node_index("tail")
    with pytest.raises(KeyError, match=r"node 99 is not a node index in \[0, 26\)"):
        scene.world(nodes=[99])
    with pytest.raises(ValueError, match=r"Scene.pose: t at index \(1,\) is nan"):
        scene.pose("Walk", [0.0, np.nan])
    lonely = gltf.Skin(5, None, np.array([0]), np.eye(4)[None])
    with pytest.raises(ValueError, match="Skin.joint_matrices: no node uses skin 5; pass node="):
        lonely.joint_matrices(scene)


def test_scene_pickles_copies_and_compares_by_value():
    scene = gltf.load_scene(DATA / "Fox" / "Fox.glb")
    for clone in (pickle.loads(pickle.dumps(scene)), copy.deepcopy(scene), copy.copy(scene)):
        assert clone == scene
        np.testing.assert_array_equal(clone.world("Run", [0.1, 0.4]), scene.world("Run", [0.1, 0.4]))
    assert pickle.loads(pickle.dumps(scene.nodes[3])) == scene.nodes[3]
    assert pickle.loads(pickle.dumps(scene.skins[0])) == scene.skins[0]
    assert scene.nodes[3] != scene.nodes[4]
    other = gltf.load_scene(DATA / "CesiumMan" / "CesiumMan.gltf")
    assert scene != other
