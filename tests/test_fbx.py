"""FBX import on the shared real files (tests/data/fbx, see SOURCES.md there):
world matrices against the ufbx reader (fixture recorded by
tests/fixtures/record_fbx.py), FBX 6 against FBX 7 versions of the same
curves, conventions (time, names, units and axes), and hostile input."""
import json
import pathlib
import pickle
import struct
import warnings
import zlib

import numpy as np
import pytest

import animcore
from animcore import fbx
from animcore.rotations import quat_to_matrix

DATA = pathlib.Path(__file__).resolve().parent / "data"
FILES = DATA / "fbx"
FIXTURE = np.load(DATA / "fbx_ufbx.npz")
META = json.loads(str(FIXTURE["meta"]))
NAMES = sorted(META["files"])


def rig_size(matrices):
    positions = matrices[..., :3, 3].reshape(-1, 3)
    return max(1.0, float(np.ptp(positions, axis=0).max()))


def in_file_frame(scene, world):
    return (np.linalg.inv(scene.conversion) @ world)[..., :3, :]


def reference_order(scene, info):
    names = [n.name for n in scene.nodes]
    assert sorted(names) == sorted(info["names"])
    return [names.index(n) for n in info["names"]]


@pytest.mark.parametrize("name", NAMES)
def test_rest_pose_matches_ufbx(name):
    info = META["files"][name]
    scene = fbx.load(FILES / name)
    order = reference_order(scene, info)
    expected = FIXTURE[f"{name}/rest"]
    world = in_file_frame(scene, scene.world(None, 0.0))[order]
    np.testing.assert_allclose(world, expected, rtol=0, atol=1e-9 * rig_size(expected))
    parents = [scene.nodes[i].parent for i in order]
    assert [order.index(p) if p >= 0 else -1 for p in parents] == info["parents"]


# ufbx's coordinate axes: +X, -X, +Y, -Y, +Z, -Z
UFBX_AXES = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1.0]])


@pytest.mark.parametrize("name", NAMES)
def test_conversion_matches_ufbx_units_and_axes(name):
    # the conversion takes the file's right, up and front axes, at its unit,
    # to metres with X right, Y up, Z front (cube.fbx, FBX 6, is in inches:
    # its settings were once missed)
    info = META["files"][name]
    scene = fbx.load(FILES / name)
    basis = np.column_stack([UFBX_AXES[a] for a in info["axes"]])
    np.testing.assert_allclose(scene.conversion[:3, :3] @ basis,
                               info["unit_meters"] * np.eye(3), rtol=1e-15, atol=0)


def test_fbx6_settings_under_objects_set_the_conversion():
    text = (FILES / "maya_anim_interpolation_6100_ascii.fbx").read_text()
    edited = text.replace('"UnitScaleFactor", "double", "",1', '"UnitScaleFactor", "double", "",100') \
        .replace('"UpAxis", "int", "",1', '"UpAxis", "int", "",2') \
        .replace('"FrontAxis", "int", "",2', '"FrontAxis", "int", "",1') \
        .replace('"FrontAxisSign", "int", "",1', '"FrontAxisSign", "int", "",-1')
    assert edited.count("UnitScaleFactor\", \"double\", \"\",100") == 1
    scene = fbx.load_bytes(edited.encode())
    # metres, Z up, -Y front: the file's z goes to y and its -y to z
    want = np.eye(4)
    want[:3, :3] = [[1, 0, 0], [0, 0, 1], [0, -1, 0]]
    np.testing.assert_array_equal(scene.conversion, want)


@pytest.mark.parametrize("name", NAMES)
def test_world_transforms_decompose_into_what_rebuilds_them(name):
    """bake --world, retarget, mirror and IK decompose world matrices: the float32
    noise of real files (MotionBuilder's scales a dozen units off 1, composed down
    to a fingertip) is no shear, and the TRS rebuilds each matrix."""
    from scipy.spatial.transform import Rotation

    scene = fbx.load(FILES / name)
    for clip in [c for c in scene.clips if c.channels] or [None]:
        t = np.linspace(clip.start, clip.stop, 25) if clip is not None else np.zeros(1)
        world = scene.world(clip, t)
        trs = animcore.decompose(world)
        turn = Rotation.from_quat(trs.rotation.reshape(-1, 4)).as_matrix()
        rebuilt = turn.reshape(world.shape[:-2] + (3, 3)) * trs.scale[..., None, :]
        scale = np.abs(world[..., :3, :3]).max()
        np.testing.assert_allclose(rebuilt, world[..., :3, :3], rtol=0, atol=1e-5 * scale)
        np.testing.assert_array_equal(trs.translation, world[..., :3, 3])


def test_joint_matrices_of_a_skin_over_every_node_use_fbx_world():
    """A skin whose joints are every node in order (no mesh node) is posed by
    the FBX formula (pivots, offsets), as every other skin is."""
    import dataclasses

    from animcore.model import Skin

    scene = fbx.load(FILES / "maya_pivots_7500_binary.fbx")
    bind = np.linalg.inv(scene.world(None, 0.0))  # (1, 4, 4): node 0 at rest
    skin = Skin(0, "all", np.array([0]), bind, None)
    skinned = dataclasses.replace(scene, skins=(skin,))
    t = np.linspace(scene.clips[0].start, scene.clips[0].stop, 7)
    np.testing.assert_allclose(skin.joint_matrices(skinned, 0, t),
                               skinned.world(0, t) @ bind, rtol=0, atol=1e-12)


def test_bake_samples_the_stack_from_its_start_to_its_stop(tmp_path):
    """A Maya stack starting at frame 1 bakes frames 1..20 (the file's own time),
    not frames 0..19; --world bakes the FBX world (pivots, units, axes)."""
    from animcore import bake, cli

    src = FILES / "maya_game_sausage_7500_binary_wiggle.fbx"
    scene = fbx.load(src)
    clip = scene.clips[0]
    assert clip.start == pytest.approx(1 / 24) and clip.stop == pytest.approx(20 / 24)
    frames = np.arange(1, 21) / 24
    np.testing.assert_allclose(clip.frames(24), frames, rtol=0, atol=1e-15)
    out = tmp_path / "wiggle.npz"
    assert cli.main(["bake", str(src), "--fps", "24", "--out", str(out)]) == 0
    with np.load(out) as baked:
        times = baked[bake.array_key(clip.name)]
        np.testing.assert_allclose(times, frames, rtol=0, atol=1e-15)
        for channel in clip.channels:
            key = bake.array_key(clip.name, channel.target, channel.path)
            np.testing.assert_array_equal(baked[key], channel.sample(times))
    out = tmp_path / "world.npz"
    assert cli.main(["bake", str(src), "--fps", "24", "--world", "--out", str(out)]) == 0
    world = scene.world(clip, frames)
    with np.load(out) as baked:
        for j, node in enumerate(scene.nodes):
            np.testing.assert_allclose(
                baked[bake.array_key(clip.name, node.name, "world_translation")],
                world[:, j, :3, 3], rtol=0, atol=1e-12)
    track, in_place = animcore.extract_root_motion(scene, clip, "joint1", fps=24)
    np.testing.assert_allclose(track.times, frames - frames[0], rtol=0, atol=1e-15)
    assert (in_place.start, in_place.stop) == (clip.start, clip.stop)
    # its glTF form starts at 0, as glTF clips do, and lasts to the stack's stop
    _, (written,), _ = scene.for_gltf()
    assert written.duration == clip.stop


@pytest.mark.parametrize("name", [n for n in NAMES if META["files"][n]["stacks"]])
def test_animated_world_matches_ufbx(name):
    info = META["files"][name]
    scene = fbx.load(FILES / name)
    order = reference_order(scene, info)
    assert len(scene.clips) == len(info["stacks"])
    for i, (clip, stack) in enumerate(zip(scene.clips, info["stacks"])):
        assert clip.name == stack["name"]
        assert clip.start == pytest.approx(stack["begin"], abs=1e-12)
        assert clip.stop == pytest.approx(stack["end"], abs=1e-12)
        expected = FIXTURE[f"{name}/stack{i}"]
        world = in_file_frame(scene, scene.world(clip, np.array(stack["times"])))[:, order]
        # ufbx keeps tangents and weights in float32: 1e-5 of the rig size
        np.testing.assert_allclose(world, expected, rtol=0, atol=1e-5 * rig_size(expected))


BLENDER = json.loads((DATA / "fbx_blender.json").read_text())
BLENDER_READ = sorted(n for n, rec in BLENDER["files"].items() if "error" not in rec)


def blender_exact(scene, clip, t):
    """(frames, nodes) mask of where Blender's import is exact, picked from the
    file's own keys: its importer evaluates a node's curves at the union of the
    node's key times, interpolating linearly between keys, so a world position
    is exact where every curve of the node and of its ancestors has a key. It
    does not reproduce RrSs scale inheritance (inherit type 0): nodes below one
    are left out, as are meshes bound to a skin (Blender parents them to the
    armature at their bind pose)."""
    keyed = np.ones((len(t), len(scene.nodes)), bool)
    for channel in clip.channels if clip is not None else ():
        for curve in channel.curves:
            if curve is not None and len(curve.times) > 1:
                keyed[:, channel.node] &= np.isclose(t[:, None], curve.times, rtol=0,
                                                     atol=1e-7).any(axis=1)
    exact = keyed.copy()
    parents = scene.skeleton.parents
    for i, node in enumerate(scene.nodes):
        exact[:, i] &= node.skin is None
        j = i
        while parents[j] >= 0:
            exact[:, i] &= keyed[:, parents[j]] & (scene.pivots[j].inherit != 0)
            j = parents[j]
    return exact


@pytest.mark.parametrize("name", BLENDER_READ)
def test_world_positions_match_blenders_import(name):
    """Every node's world position at key times equals Blender 5.0.1's FBX import
    (tests/fixtures/record_fbx_blender.py), in Blender's frame (metres, Z up)."""
    record = BLENDER["files"][name]
    scene = fbx.load(FILES / name, up="z")
    if record["stacks"]:  # Blender names its actions "object|stack" or "object|stack|layer"
        (clip,) = [c for c in scene.clips if any(s == c.name or s.startswith(c.name + "|")
                                                  for s in record["stacks"])]
    else:
        clip = None
    # an "Armature" object is Blender's own: the parent it gives root bones
    names = [n for n in record["names"] if n != "Armature"]
    columns = [record["names"].index(n) for n in names]
    nodes = [scene.node_index(n) for n in names]
    t = np.array(record["frames"]) / record["fps"]
    expected = np.array(record["positions"])[:, columns]
    world = np.broadcast_to(scene.world(clip, t)[..., :3, 3], (len(t), len(scene.nodes), 3))
    world = world[:, nodes]
    exact = blender_exact(scene, clip, t)[:, nodes]
    assert exact.any()  # something is compared
    size = max(1.0, float(np.ptp(expected.reshape(-1, 3), axis=0).max()))
    # Blender keeps float32: 1e-5 of the rig size, as for ufbx
    np.testing.assert_allclose(world[exact], expected[exact], rtol=0, atol=1e-5 * size)


MAYA = json.loads((FILES / "maya_tables.json").read_text())


# The 7700 file packs the first key's tangent weight as 2021 ten-thousandths,
# where the 6100 file writes it as a float, 0.20212021 (2021/9999): the table
# agrees with the first to its printed digits and the second to 1e-4.
@pytest.mark.parametrize("name, rtol", [("maya_anim_interpolation_7700_binary.fbx", 5e-6),
                                        ("maya_anim_interpolation_6100_ascii.fbx", 1e-4)])
def test_curve_values_match_mayas_table(name, rtol):
    """Cubic, linear, constant and constant-next keys as Maya evaluates them
    (a table printed to 6 significant digits)."""
    table = MAYA["maya_anim_interpolation"]
    shift = {"-": -0.001, "+": 0.001}
    t = np.array([float(str(f).rstrip("+-")) / table["fps"] + shift.get(str(f)[-1], 0.0)
                  for f, _ in table["frames_values"]])
    expected = np.array([v for _, v in table["frames_values"]])
    scene = fbx.load(FILES / name)
    x = scene.clips[0].channel("pCube1", "translation").sample(t)[:, 0]
    np.testing.assert_allclose(x, expected, rtol=rtol, atol=1e-6)
    np.testing.assert_array_equal(x[10:], expected[10:])  # linear and constant: exact


def test_extrapolation_matches_mayas_exported_cube():
    """Maya's OBJ exports of the animated unit cube at frames past the keys of
    its curves (their repeat, mirror, relative repeat and slope extrapolations):
    the vertices are the node's world matrix applied to the cube's corners."""
    table = MAYA["maya_extrapolate_cube"]
    corners = np.array([(-1, -1, 1), (1, -1, 1), (-1, 1, 1), (1, 1, 1),
                        (-1, 1, -1), (1, 1, -1), (-1, -1, -1), (1, -1, -1)]) * 0.5
    scene = fbx.load(FILES / "maya_extrapolate_cube_7700_binary.fbx")
    clip = scene.clips[0]
    for frame, vertices in table["vertices"].items():
        t = int(frame) / table["fps"]
        assert t > min(c.times[-1] for ch in clip.channels for c in ch.curves)
        world = in_file_frame(scene, scene.world(clip, t))[scene.node_index("pCube1")]
        vertices = np.array(vertices)
        # printed to 6 decimals of a centimetre
        np.testing.assert_allclose(corners @ world[:, :3].T + world[:, 3], vertices, rtol=0,
                                   atol=2e-6)


def test_blender_reads_the_binary_files_it_supports():
    """The recorded import covers every binary FBX 7100+ without in-between
    shapes; the others are the importer's documented refusals."""
    refused = {n: rec["error"] for n, rec in BLENDER["files"].items() if "error" in rec}
    assert len(BLENDER_READ) == 15
    for name, error in refused.items():
        assert ("ASCII" in error or "6100" in error or "in-between" in error), (name, error)


@pytest.mark.parametrize("name", ["maya_blend_inbetween_7500_binary.fbx",
                                  "maya_blend_shape_cube_7100_ascii.fbx"])
def test_blend_shape_weights_match_ufbx(name):
    """One weight per target: a channel's DeformPercent / 100, or for a channel
    with in-between shapes (the 7500 file: full weights 50/100 and -49.9/-24.9/
    100, driven from -100% to 200%) each shape's share as ufbx interpolates it."""
    stack = META["files"][name]["stacks"][0]
    scene = fbx.load(FILES / name)
    (node,) = [n for n in scene.nodes if n.weights is not None]
    weights = scene.weights(scene.clips[0], np.array(stack["times"]))[node.index]
    expected = np.array([[shapes[target] if target in shapes else
                          channels[stack["blend_names"].index(target)]
                          for target in node.target_names]
                         for shapes, channels in zip(stack["shape_weights"],
                                                     stack["blend_weights"])])
    np.testing.assert_allclose(weights, expected, rtol=1e-5, atol=1e-6)  # ufbx: float32
    # the rest weights are the file's DeformPercent, expanded the same way
    rest = scene.weights(None)[node.index]
    assert rest.shape == (len(node.target_names),)
    np.testing.assert_allclose(node.weights, rest)


@pytest.mark.parametrize("full_weights", ['*0 {\n a: \n}', "100", '"abc"'])
def test_a_blend_shape_channel_without_usable_full_weights_is_one_target(full_weights):
    """A BlendShapeChannel whose FullWeights are empty, a lone number for no
    shape, or not numbers has no in-betweens: one target named after the
    channel, weighing DeformPercent / 100 (not an IndexError or TypeError)."""
    text = ASCII_HEADER + """Objects:  {
    Geometry: 10, "Geometry::body", "Mesh" {
    }
    Model: 1, "Model::body", "Mesh" {
    }
    Deformer: 20, "Deformer::blend", "BlendShape" {
    }
    Deformer: 30, "SubDeformer::smile", "BlendShapeChannel" {
        Properties70:  {
            P: "DeformPercent", "Number", "", "A",50
        }
        FullWeights: %s
    }
}
Connections:  {
    C: "OO",1,0
    C: "OO",10,1
    C: "OO",20,10
    C: "OO",30,20
}
""" % full_weights
    (node,) = fbx.load_bytes(text.encode()).nodes
    assert node.target_names == ("smile",)
    np.testing.assert_array_equal(node.weights, [0.5])


def _inbetween_channel(full_weights: str, percent: float) -> bytes:
    """A mesh with one BlendShapeChannel of two in-between shapes."""
    return (ASCII_HEADER + """Objects:  {
    Geometry: 10, "Geometry::body", "Mesh" {
    }
    Geometry: 40, "Geometry::smile_half", "Shape" {
    }
    Geometry: 41, "Geometry::smile_full", "Shape" {
    }
    Model: 1, "Model::body", "Mesh" {
    }
    Deformer: 20, "Deformer::blend", "BlendShape" {
    }
    Deformer: 30, "SubDeformer::smile", "BlendShapeChannel" {
        Properties70:  {
            P: "DeformPercent", "Number", "", "A",%r
        }
        FullWeights: *2 {
            a: %s
        }
    }
}
Connections:  {
    C: "OO",1,0
    C: "OO",10,1
    C: "OO",20,10
    C: "OO",30,20
    C: "OO",40,30
    C: "OO",41,30
}
""" % (percent, full_weights)).encode()


def test_in_between_weights_share_a_channel_weight_and_refuse_what_overflows():
    # Maya's rule (see the module notes): 75 % lies between the shapes at 50 and 100
    (node,) = fbx.load_bytes(_inbetween_channel("50,100", 75.0)).nodes
    assert node.target_names == ("smile_half", "smile_full")
    np.testing.assert_allclose(node.weights, [0.5, 0.5])
    # below the first full weight the base and the first shape extrapolate, so
    # full weights 1e-307 % apart turn -50 % into a share beyond the doubles
    with pytest.raises(fbx.FbxError, match=r"\(Objects/Deformer\): the in-between weights of "
                                           r"DeformPercent -50 overflow"):
        fbx.load_bytes(_inbetween_channel("1e-307,100", -50.0))
    with pytest.raises(fbx.FbxError, match=r"FullWeights\): FullWeights at index 1 is inf "
                                           r"\(must be finite\)"):
        fbx.load_bytes(_inbetween_channel("50,1e400", 75.0))  # (read as inf)


def test_fbx6_and_fbx7_files_of_the_same_curves_agree():
    """The 6100 ASCII key lists (doubles) and the 7700 binary curves (float32)
    of the same Maya scene: different readers of different layouts."""
    old = fbx.load(FILES / "maya_anim_interpolation_6100_ascii.fbx")
    new = fbx.load(FILES / "maya_anim_interpolation_7700_binary.fbx")
    t = np.linspace(-0.5, 4.5, 501)
    for channel in old.clips[0].channels:
        other = new.clips[0].channel(channel.node_name, channel.path)
        scale = np.abs(other.sample(t)).max()
        # FBX 7 keeps weights as 4-digit fixed point (0.2021 for 6100's 0.20212...)
        np.testing.assert_allclose(channel.sample(t), other.sample(t), atol=2e-5 * scale)
        for a, b in zip(channel.curves, other.curves):
            if a is not None:
                np.testing.assert_allclose(a.times, b.times, atol=1e-12)
                np.testing.assert_allclose(a.values, b.values, atol=1e-6 * scale)
                assert a.interpolation == b.interpolation


def test_curves_are_the_files_keys():
    """Channel.curves hold the file's key times (ticks / 46186158000) and values
    (float32), read here independently from the raw 7700 binary records."""
    scene = fbx.load(FILES / "maya_anim_interpolation_7700_binary.fbx")
    curve = scene.clips[0].channel("pCube1", "translation").curves[0]
    raw = (FILES / "maya_anim_interpolation_7700_binary.fbx").read_bytes()
    at = raw.index(b"KeyTime")
    count, encoding, length = struct.unpack_from("<III", raw, at + 8)
    assert raw[at + 7:at + 8] == b"l"
    data = raw[at + 20:at + 20 + length]
    ticks = np.frombuffer(zlib.decompress(data) if encoding else data, "<i8", count)
    np.testing.assert_array_equal(curve.times, ticks / 46186158000)
    assert curve.times[0] == 0 and curve.interpolation[:4] == ("cubic", "linear", "constant",
                                                               "constant_next")


def test_the_last_keys_kind_does_not_index_past_the_keys():
    # fuzz/fuzz_fbx.py (atheris) found a last key flagged constant-next raising an
    # IndexError: the last key has no segment after it, so its kind changes nothing
    import dataclasses

    curve = fbx.load(FILES / "maya_anim_interpolation_7700_binary.fbx").clips[0].channel(
        "pCube1", "translation").curves[0]
    edited = dataclasses.replace(curve, interpolation=curve.interpolation[:-1]
                                 + ("constant_next",))
    t = np.linspace(curve.times[0] - 1.0, curve.times[-1] + 1.0, 301)
    np.testing.assert_array_equal(edited(t), curve(t))


def test_time_is_file_time():
    scene = fbx.load(FILES / "maya_extrapolate_cube_7700_binary.fbx")
    clip = scene.clips[0]
    assert clip.start == pytest.approx(1 / 24) and clip.stop == pytest.approx(5.0)
    first = min(c.times[0] for ch in clip.channels for c in ch.curves if c is not None)
    assert first == pytest.approx(1 / 24, abs=1e-12)


def test_rotation_channel_is_pre_rotation_euler_inverse_post():
    scene = fbx.load(FILES / "maya_post_rotate_order_7500_binary.fbx")
    clip = scene.clips[0]
    for channel in (c for c in clip.channels if c.path == "rotation"):
        t = np.linspace(clip.start, clip.stop, 7)
        euler = channel.components(t)
        pivots = scene.pivots[channel.node]
        order = pivots.order
        # independent: matrices about fixed axes, first letter first
        def axis_matrix(axis, degrees):
            c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
            i = "xyz".index(axis)
            m = np.tile(np.eye(3), degrees.shape + (1, 1))
            j, k = [a for a in range(3) if a != i]
            m[..., j, j] = c
            m[..., k, k] = c
            m[..., j, k] = -s
            m[..., k, j] = s
            return m
        r = np.tile(np.eye(3), (len(t), 1, 1))
        for axis in order:
            r = axis_matrix(axis, euler[:, "xyz".index(axis)]) @ r
        pre = quat_to_matrix(pivots.pre)
        post = quat_to_matrix(pivots.post)
        expected = pre @ r @ post.T
        np.testing.assert_allclose(quat_to_matrix(channel.sample(t)), expected, atol=1e-12)


def test_names_drop_the_prefix_and_duplicates_are_numbered():
    text = ASCII_HEADER + """Objects:  {
    Model: 1, "Model::arm", "LimbNode" {
    }
    Model: 2, "Model::arm", "LimbNode" {
    }
    Model: 3, "Model::arm", "Null" {
    }
}
Connections:  {
    C: "OO",1,0
    C: "OO",2,1
    C: "OO",3,2
}
"""
    scene = fbx.load_bytes(text.encode())
    assert scene.joint_names == ["arm", "arm.1", "arm.2"]
    # a file's own "arm.1" is taken like any name: the next duplicate skips it
    scene = fbx.load_bytes(text.replace('"Model::arm", "Null"', '"Model::arm.1", "Null"')
                           .replace('Model: 2, "Model::arm"', 'Model: 2, "Model::arm.1"')
                           .encode())
    assert scene.joint_names == ["arm", "arm.1", "arm.1.1"]
    names = ["a", "a.1", "a", "a"]
    assert fbx._unique_names(names) == ["a", "a.1", "a.2", "a.3"]
    assert [n.parent for n in scene.nodes] == [-1, 0, 1]
    assert scene.node_types == ("LimbNode", "LimbNode", "Null")
    assert scene.clips == ()


ASCII_HEADER = """; FBX 7.4.0 project file
FBXHeaderExtension:  {
    FBXVersion: 7400
}
"""


TICKS = 46186158000


def layered_file(layers, base=(1.0, 2.0, 3.0)) -> bytes:
    """An ASCII FBX 7.4 file: node 'n' at Lcl Translation ``base`` and one
    stack (0 to 1 s) of ``layers``: (weight percent, BlendMode, mute, the X
    curve's (times, values) or None), each with linear keys."""
    objects = [f'''    Model: 1, "Model::n", "Null" {{
        Properties70:  {{
            P: "Lcl Translation", "Lcl Translation", "", "A",{base[0]},{base[1]},{base[2]}
        }}
    }}
    AnimationStack: 2, "AnimStack::take", "" {{
        Properties70:  {{
            P: "LocalStart", "KTime", "Time", "",0
            P: "LocalStop", "KTime", "Time", "",{TICKS}
        }}
    }}
''']
    links = ['    C: "OO",1,0']
    for i, (weight, mode, mute, curve) in enumerate(layers):
        layer = 10 + i
        objects.append(f'''    AnimationLayer: {layer}, "AnimLayer::L{i}", "" {{
        Properties70:  {{
            P: "Weight", "Number", "", "A",{weight}
            P: "BlendMode", "enum", "", "",{mode}
            P: "Mute", "bool", "", "",{int(mute)}
        }}
    }}
''')
        links.append(f'    C: "OO",{layer},2')
        if curve is None:
            continue
        times, values = curve
        node, key = 20 + i, 30 + i
        objects.append(f'''    AnimationCurveNode: {node}, "AnimCurveNode::T", "" {{
        Properties70:  {{
            P: "d|X", "Number", "", "A",{base[0]}
            P: "d|Y", "Number", "", "A",{base[1]}
            P: "d|Z", "Number", "", "A",{base[2]}
        }}
    }}
    AnimationCurve: {key}, "AnimCurve::", "" {{
        KeyTime: *{len(times)} {{
            a: {",".join(str(round(t * TICKS)) for t in times)}
        }}
        KeyValueFloat: *{len(values)} {{
            a: {",".join(str(float(v)) for v in values)}
        }}
        KeyAttrFlags: *1 {{
            a: 4
        }}
        KeyAttrDataFloat: *4 {{
            a: 0,0,0,0
        }}
        KeyAttrRefCount: *1 {{
            a: {len(times)}
        }}
    }}
''')
        links += [f'    C: "OO",{node},{layer}', f'    C: "OP",{node},1, "Lcl Translation"',
                  f'    C: "OP",{key},{node}, "d|X"']
    return (ASCII_HEADER + "Objects:  {\n" + "".join(objects) + "}\nConnections:  {\n"
            + "\n".join(links) + "\n}\n").encode()


@pytest.mark.parametrize("layers, want", [
    # base animated, then override 50 % and additive 40 %: v + w (l - v), then v + w l
    ([(100, 0, 0, ([0, 1], [0, 10])), (50, 1, 0, ([0, 1], [4, 8])), (40, 0, 0, ([0, 1], [1, 3]))],
     lambda t: (10 * t + 0.5 * ((4 + 4 * t) - 10 * t)) + 0.4 * (1 + 2 * t)),
    # the base layer leaves the channel: an override 50 % over the node's own X (1)
    ([(100, 0, 0, None), (50, 1, 0, ([0, 1], [4, 8]))], lambda t: 1 + 0.5 * ((4 + 4 * t) - 1)),
    # an additive 40 % over the node's own X
    ([(100, 0, 0, None), (40, 0, 0, ([0, 1], [1, 3]))], lambda t: 1 + 0.4 * (1 + 2 * t)),
    # override passthrough (BlendMode 2) combines as an override
    ([(100, 0, 0, ([0, 1], [0, 10])), (50, 2, 0, ([0, 1], [4, 8]))],
     lambda t: 10 * t + 0.5 * ((4 + 4 * t) - 10 * t)),
    # a muted layer is not evaluated
    ([(100, 0, 0, ([0, 1], [0, 10])), (100, 1, 1, ([0, 1], [4, 8]))], lambda t: 10 * t),
], ids=["over-then-add", "override-over-rest", "additive-over-rest", "passthrough", "muted"])
def test_layers_combine_as_motionbuilder_combines_them(layers, want):
    # each case once combined otherwise: the first layer with curves was taken
    # as the base whatever its weight and mode, passthrough added, mute ignored
    scene = fbx.load_bytes(layered_file(layers), units="cm")
    (clip,) = scene.clips
    t = np.linspace(0, 1, 5)
    got = clip.channels[0].sample(t)
    np.testing.assert_allclose(got[:, 0], want(t), rtol=0, atol=1e-6)


def settings(up, up_sign, front, front_sign, coord, coord_sign, unit):
    return ASCII_HEADER + f"""GlobalSettings:  {{
    Properties70:  {{
        P: "UpAxis", "int", "Integer", "",{up}
        P: "UpAxisSign", "int", "Integer", "",{up_sign}
        P: "FrontAxis", "int", "Integer", "",{front}
        P: "FrontAxisSign", "int", "Integer", "",{front_sign}
        P: "CoordAxis", "int", "Integer", "",{coord}
        P: "CoordAxisSign", "int", "Integer", "",{coord_sign}
        P: "UnitScaleFactor", "double", "Number", "",{unit}
    }}
}}
Objects:  {{
    Model: 1, "Model::a", "Null" {{
        Properties70:  {{
            P: "Lcl Translation", "Lcl Translation", "", "A",1,2,3
        }}
    }}
}}
Connections:  {{
    C: "OO",1,0
}}
"""


@pytest.mark.parametrize("unit", ["0", "-1", "1e999"])
def test_a_unit_scale_that_is_not_finite_and_positive_is_an_fbx_error(unit):
    # found by fuzz/fuzz_fbx.py (atheris): an infinite factor warned (inf * 0) and gave NaN
    with pytest.raises(fbx.FbxError, match=r"line 5 \(GlobalSettings\): property "
                                           r"'UnitScaleFactor' is .* \(must be a finite "
                                           r"number > 0\)"):
        fbx.load_bytes(settings(1, 1, 2, 1, 0, 1, unit).encode())


def test_vector_property_that_is_not_three_numbers_holds_its_default():
    # a mutated file from fuzz/fuzz_fbx.py (--mutate 3000 --seed 11) once raised a bare
    # ValueError here instead of loading or raising FbxError
    text = ASCII_HEADER + """Objects:  {
    Model: 1, "Model::hip", "LimbNode" {
        Properties70:  {
            P: "Lcl Translation", "Lcl Translation", "", "A", "Vector", 2, 3
            P: "Lcl Scaling", "Lcl Scaling", "", "A", 4, 5, 6
        }
    }
}
"""
    node = fbx.load_bytes(text.encode()).nodes[0]
    np.testing.assert_array_equal(node.translation, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(node.scale, [4.0, 5.0, 6.0])


@pytest.mark.parametrize("value", ["1e999", "-1e999"])
@pytest.mark.parametrize("name", ["Lcl Translation", "GeometricRotation", "PreRotation",
                                  "RotationPivot"])
def test_a_transform_property_that_is_not_finite_is_an_fbx_error(name, value):
    # fuzz/fuzz_fbx.py (atheris) found a NaN in GeometricRotation raising a bare
    # ValueError from quat_from_euler, and one in a pivot loading as NaN matrices
    text = ASCII_HEADER + f"""Objects:  {{
    Model: 1, "Model::hip", "LimbNode" {{
        Properties70:  {{
            P: "{name}", "Vector3D", "Vector", "",0,{value},0
        }}
    }}
}}
"""
    with pytest.raises(fbx.FbxError, match=rf"line 6 \(Objects/Model\): property '{name}' "
                                           rf"holds -?inf \(must be finite\)"):
        fbx.load_bytes(text.encode())


def test_world_matrices_beyond_the_double_range_are_an_overflow_error():
    # the fuzz contract: finite world matrices or an error, never a RuntimeWarning
    # (here millimetres, 10 to a centimetre, take a translation near the largest double past it)
    text = ASCII_HEADER + """Objects:  {
    Model: 1, "Model::hip", "LimbNode" {
        Properties70:  {
            P: "Lcl Translation", "Lcl Translation", "", "A",1e308,0,0
        }
    }
}
"""
    scene = fbx.load_bytes(text.encode(), units="mm")
    with pytest.raises(OverflowError, match=r"FbxScene.world: the world matrix of node "
                                            r"'hip' at index \(\) is not representable"):
        scene.world()


def test_a_zero_parent_scale_is_not_compensated_on_its_axis():
    # Rrs (InheritType 2) divides by the parent's scale: fuzz/fuzz_fbx.py found a zero
    # one giving a RuntimeWarning and NaN world matrices
    text = ASCII_HEADER + """Objects:  {
    Model: 1, "Model::hip", "LimbNode" {
        Properties70:  {
            P: "Lcl Scaling", "Lcl Scaling", "", "A",0,2,1
        }
    }
    Model: 2, "Model::knee", "LimbNode" {
        Properties70:  {
            P: "Lcl Translation", "Lcl Translation", "", "A",1,1,1
            P: "InheritType", "enum", "", "",2
        }
    }
}
Connections:  {
    C: "OO",2,1
}
"""
    scene = fbx.load_bytes(text.encode(), units="cm")
    world = scene.world()  # (pytest makes the RuntimeWarning of a division by zero an error)
    hip, knee = world
    # the child's rotation and scale are compensated on y (1 / 2), not on the zero
    # x scale (no inverse); its position stays in the parent's scaled frame
    local = scene.nodes[1].matrix.copy()
    local[:3, :3] = np.diag([1.0, 0.5, 1.0]) @ local[:3, :3]
    expected = hip @ local
    np.testing.assert_array_equal(knee, expected)
    assert np.all(np.isfinite(world))


def test_a_parent_with_a_subnormal_scale_composes_componentwise_without_warnings():
    # fuzz/fuzz_fbx.py (atheris) found a turned parent whose world matrix held a subnormal
    # number: LAPACK's determinant (RrSs, InheritType 0, takes its sign) warned of a
    # division by zero; the world matrices are finite, and so no error either
    text = ASCII_HEADER + """Objects:  {
    Model: 1, "Model::hip", "LimbNode" {
        Properties70:  {
            P: "Lcl Rotation", "Lcl Rotation", "", "A",0,0,90
            P: "Lcl Scaling", "Lcl Scaling", "", "A",1e-320,1,1
        }
    }
    Model: 2, "Model::knee", "LimbNode" {
        Properties70:  {
            P: "Lcl Translation", "Lcl Translation", "", "A",1,1,1
        }
    }
}
Connections:  {
    C: "OO",2,1
}
"""
    scene = fbx.load_bytes(text.encode(), units="cm")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hip, knee = scene.world()
    # the knee keeps no rotation or scale of its own: its frame is the hip's
    np.testing.assert_allclose(knee[:3, :3], hip[:3, :3], rtol=0, atol=1e-15)
    np.testing.assert_allclose(knee[:3, 3], hip[:3, :3] @ [1.0, 1.0, 1.0] + hip[:3, 3],
                               rtol=0, atol=1e-15)


@pytest.mark.parametrize("up", ["y", "z"])
def test_units_and_axes(up):
    # Blender's frame: Z up, -Y front, X right, in metres (UnitScaleFactor 100)
    scene = fbx.load_bytes(settings(2, 1, 1, -1, 0, 1, 100.0).encode(), up=up)
    position = scene.world(None, 0.0)[0, :3, 3]
    # the point (1, 2, 3) m: right 1, front -2, up 3
    expected = [1.0, 3.0, -2.0] if up == "y" else [1.0, 2.0, 3.0]
    np.testing.assert_allclose(position, expected, atol=1e-12)
    maya = fbx.load_bytes(settings(1, 1, 2, 1, 0, 1, 1.0).encode(), units="cm")
    np.testing.assert_allclose(maya.world(None, 0.0)[0, :3, 3], [1, 2, 3], atol=1e-12)


def test_skins_inverse_bind_matrices_from_transform_link():
    scene = fbx.load(FILES / "maya_transformed_skin_7700_binary.fbx")
    assert len(scene.skins) == 1
    skin = scene.skins[0]
    mesh = [n.index for n in scene.nodes if n.skin == 0]
    assert len(mesh) == 1 and scene.node_types[mesh[0]] == "Mesh"
    # the file's BindPose: world matrices of the joints and the mesh at bind time
    tree = fbx._File((FILES / "maya_transformed_skin_7700_binary.fbx").read_bytes(), "x")
    objects = fbx._Objects(tree)
    model_ids = [oid for oid in objects.order if objects.kind(oid) == "Model"]
    pose = {}
    for oid in objects.order:
        record = objects.by_id[oid][0]
        if record.name == "Pose":
            for entry in record.children:
                if entry.name == "PoseNode":
                    node = model_ids.index(entry.child("Node").values[0])
                    pose[node] = np.asarray(entry.child("Matrix").values[0]).reshape(4, 4).T
    for joint, inverse_bind in zip(skin.joints, skin.inverse_bind_matrices):
        np.testing.assert_allclose(pose[joint] @ inverse_bind, pose[mesh[0]], atol=1e-9)


def test_fbx6_skin_is_the_fbx7_skin():
    """FBX 6 keeps a mesh's geometry (and its skin deformer) in the Model."""
    old = fbx.load(FILES / "maya_transformed_skin_6100_ascii.fbx")
    new = fbx.load(FILES / "maya_transformed_skin_7700_binary.fbx")
    assert [n.skin for n in old.nodes] == [n.skin for n in new.nodes] == [0, None, None, None]
    (a,), (b,) = old.skins, new.skins
    assert a.skeleton == b.skeleton == old.node_index("pCube1")
    np.testing.assert_array_equal(a.joints, b.joints)
    np.testing.assert_allclose(a.inverse_bind_matrices, b.inverse_bind_matrices, atol=1e-12)


def test_pickle_and_repr():
    scene = fbx.load(FILES / "maya_game_sausage_7500_binary_wiggle.fbx")
    copy = pickle.loads(pickle.dumps(scene))
    assert copy == scene and copy.clips[0] == scene.clips[0]
    t = np.linspace(0, 1, 5)
    np.testing.assert_array_equal(copy.world(copy.clips[0], t), scene.world(scene.clips[0], t))
    assert "FbxScene(" in repr(scene) and len(repr(scene)) < 300
    assert "FbxClip(" in repr(scene.clips[0])
    assert "FbxCurve(keys=" in repr(scene.clips[0].channels[0].curves[0])
    error = fbx.FbxError("a.fbx", "byte 3", "why")
    again = pickle.loads(pickle.dumps(error))
    assert str(again) == str(error) and isinstance(again, ValueError)


# ------------------------------------------------------------- bad input

SMALL = (FILES / "maya_cube_6100_binary.fbx").read_bytes()
SMALL7 = (FILES / "maya_game_sausage_7500_binary_wiggle.fbx").read_bytes()


def test_truncated_binary_names_byte_and_path():
    with pytest.raises(fbx.FbxError, match=r"fbx.load: <bytes>: byte \d+ \(.*\): "):
        fbx.load_bytes(SMALL7[:len(SMALL7) // 2])


def _top_level_ends(data: bytes) -> list:
    """Where each top-level record of a binary FBX ends (read here with
    struct, from the record headers' end offsets)."""
    version = struct.unpack_from("<I", data, 23)[0]
    wide = version >= 7500
    at, ends = 27, []
    while True:
        end = struct.unpack_from("<Q" if wide else "<I", data, at)[0]
        if end == 0:
            return ends
        ends.append(end)
        at = end


@pytest.mark.parametrize("data", [SMALL, SMALL7], ids=["6100", "7500"])
def test_a_binary_cut_at_a_record_s_end_is_an_fbx_error(data):
    # a file cut after its Objects, say, once loaded its nodes without their
    # connections and its clip without channels
    ends = _top_level_ends(data)
    assert len(ends) > 5
    for end in ends:
        with pytest.raises(fbx.FbxError, match=r"the file ends before the top-level list's "
                                               r"null record \(it is cut short\)"):
            fbx.load_bytes(data[:end])


@pytest.mark.parametrize("text", [b"", b"\n  \n", b"; FBX 7.4.0 project file\n"])
def test_an_empty_file_is_an_fbx_error(tmp_path, text):
    path = tmp_path / "empty.fbx"
    path.write_bytes(text)
    with pytest.raises(fbx.FbxError, match=r"no records \(an empty file\)"):
        animcore.load(path)


def test_bad_ascii_names_line():
    text = ASCII_HEADER + "Objects:  {\n    Model: 1, \"Model::a\n"
    with pytest.raises(fbx.FbxError, match=r"line 6 \(Objects/Model\): string without"):
        fbx.load_bytes(text.encode())


@pytest.mark.parametrize("value", ["x", "1e999", '"v7"'])
def test_an_ascii_version_that_is_no_whole_number_is_an_fbx_error(value):
    # (a mutated file raised a bare ValueError or OverflowError from int())
    text = f"; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n    FBXVersion: {value}\n}}\n"
    with pytest.raises(fbx.FbxError, match=r"line 3 \(FBXHeaderExtension/FBXVersion\): is "
                                           r".* \(must be a whole number\)"):
        fbx.load_bytes(text.encode())


def test_an_fbx6_take_span_that_is_not_two_times_is_an_fbx_error():
    # found by fuzz/fuzz_fbx.py (atheris): a bare ValueError from float()
    text = (FILES / "maya_anim_interpolation_6100_ascii.fbx").read_text()
    assert "LocalTime: 0,92372316000" in text
    text = text.replace("LocalTime: 0,92372316000", "LocalTime: 0,L", 1)
    with pytest.raises(fbx.FbxError, match=r"\(Takes/Take/LocalTime\): is \[0, 'L'\] \(must "
                                           r"be two times in ticks\)"):
        fbx.load_bytes(text.encode())


@pytest.mark.parametrize("old, new, what", [("Key: 0,0,U", "Key: 1e999,0,U", "key time"),
                                            ("Key: 0,0,U", "Key: 0,-1e999,U", "key value")])
def test_an_fbx6_key_that_is_not_finite_is_an_fbx_error(old, new, what):
    # found by fuzz/fuzz_fbx.py (atheris): a RuntimeWarning (inf - inf) before the error
    text = (FILES / "maya_anim_interpolation_6100_ascii.fbx").read_text()
    assert old in text
    with pytest.raises(fbx.FbxError, match=rf"/Channel/Key\): {what} at index 0 is -?inf "
                                           rf"\(must be finite\)"):
        fbx.load_bytes(text.replace(old, new, 1).encode())


@pytest.mark.parametrize("child, value, what", [("Default", "p", "a number"),
                                                  ("KeyCount", "x", "a whole number")])
def test_an_fbx6_channel_value_of_the_wrong_kind_is_an_fbx_error(child, value, what):
    # found by fuzz/fuzz_fbx.py (atheris): a bare ValueError from float()
    text = (FILES / "maya_anim_interpolation_6100_ascii.fbx").read_text()
    start = text.index(f"{child}: ", text.index("Takes:"))
    end = text.index("\n", start)
    text = text[:start] + f"{child}: {value}" + text[end:]
    with pytest.raises(fbx.FbxError, match=rf"/Channel/{child}\): is '?{value}'? \(must be "
                                           rf"{what}\)"):
        fbx.load_bytes(text.encode())


@pytest.mark.parametrize("old, new, place", [
    ('Channel: "X" {', 'Channel: *2 {\n a: 0.5,1\n} {', "Takes/Take/Model/Channel/Channel/Channel"),
    ('Channel: "T" {', "Channel: 7 {", "Takes/Take/Model/Channel/Channel"),
    ('ObjectType: "Model" {', "ObjectType: *1 {\n a: 2\n} {", "Definitions/ObjectType")])
def test_a_record_named_by_a_number_is_an_fbx_error(old, new, place):
    # found by fuzz/fuzz_fbx.py --mutate: a ValueError from comparing an array
    name = ("maya_blend_shape_cube_7100_ascii.fbx" if "ObjectType" in old else
            "maya_anim_interpolation_6100_ascii.fbx")
    text = (FILES / name).read_text()
    assert old in text
    with pytest.raises(fbx.FbxError, match=rf"\({place}\): is named .{{1,40}} \(must be a "
                                           rf"string\)"):
        fbx.load_bytes(text.replace(old, new, 1).encode())


@pytest.mark.parametrize("objects, connections, line", [
    ('Model: *2 {\n a: 1,2\n}, "Model::hip", "LimbNode" {\n}\n', "", r"line 6 \(Objects/Model\)"),
    ('Model: 1, "Model::hip", "LimbNode" {\n}\nModel: 2, "Model::knee", "LimbNode" {\n}\n',
     'C: "OO",2,*2 {\n a: 1,2\n}\n', r"line 12 \(Connections/C\)")])
def test_an_id_that_is_an_array_is_an_fbx_error(objects, connections, line):
    # found by fuzz/fuzz_fbx.py (atheris): a TypeError from the dict of ids
    text = (ASCII_HEADER + "Objects:  {\n" + objects + "}\nConnections:  {\n" + connections
            + "}\n")
    with pytest.raises(fbx.FbxError, match=line + ": holds an array where an id"):
        fbx.load_bytes(text.encode())


@pytest.mark.parametrize("link", ['*2 {\n a: 1,2\n},2,1,"Lcl Rotation"',
                                  '"OP",2,1,*0 {\n a: \n}', '"OP",2,1,*2 {\n a: 1,2\n}'])
def test_a_connection_whose_kind_or_property_is_an_array_is_a_plain_link(link):
    # found by a mutation run of the ASCII files: a bare ValueError from comparing
    # the array with "OP", or from its truth value
    text = (ASCII_HEADER + 'Objects:  {\nModel: 1, "Model::hip", "LimbNode" {\n}\n'
            'Model: 2, "Model::knee", "LimbNode" {\n}\n}\nConnections:  {\n'
            'C: "OO",1,0\nC: ' + link + '\n}\n')
    scene = fbx.load_bytes(text.encode())
    assert list(scene.joint_names) == ["hip", "knee"]
    assert [node.parent for node in scene.nodes] == [-1, 0]


def test_corrupt_deflate_array():
    data = bytearray(SMALL7)
    at = data.index(b"Normalsd") + len(b"Normals")
    count, encoding, length = struct.unpack_from("<III", data, at + 1)
    assert encoding == 1  # deflated in this file
    data[at + 13:at + 13 + length] = b"\xff" * length
    with pytest.raises(fbx.FbxError, match=r"LayerElementNormal/Normals\): deflated array"):
        fbx.load_bytes(bytes(data))


def test_deflate_bomb_is_refused_before_inflating():
    data = bytearray(SMALL7)
    at = data.index(b"Normalsd") + len(b"Normals")
    struct.pack_into("<I", data, at + 1, 0xFFFFFFF0)
    with pytest.raises(fbx.FbxError, match="array"):
        fbx.load_bytes(bytes(data))


def test_nesting_too_deep():
    text = ASCII_HEADER + "A: {\n" * 100 + "}\n" * 100
    with pytest.raises(fbx.FbxError, match="nested more than 64"):
        fbx.load_bytes(text.encode())


@pytest.mark.parametrize("times, message", [
    ("10,5", r"key time at index 1 \(1.08.*e-10 s\) does not follow the previous one"),
    # (cast to garbage with a RuntimeWarning before)
    ("1e999,5.0", r"KeyTime at index 0 is inf \(must be a whole number")])
def test_bad_curve_times(times, message):
    text = ASCII_HEADER + f"""Objects:  {{
    AnimationCurve: 5, "AnimCurve::", "" {{
        KeyTime: *2 {{
            a: {times}
        }}
        KeyValueFloat: *2 {{
            a: 0,1
        }}
    }}
}}
"""
    f = fbx._File(text.encode(), "x")
    with pytest.raises(fbx.FbxError, match=r"AnimationCurve\): " + message):
        fbx._read_curve(f, f.find("Objects").children[0])


def test_a_signalling_nan_key_value_is_an_fbx_error_without_a_warning():
    # found by fuzz/fuzz_fbx.py (atheris): widening a float32 signalling NaN to float64
    # warned (RuntimeWarning: invalid value) before the error
    raw = bytearray(SMALL7)
    at = raw.index(b"KeyValueFloat")  # (7500: 4-byte record header fields; a raw array)
    assert raw[at + 13:at + 14] == b"f"
    count, encoding, _ = struct.unpack_from("<III", raw, at + 14)
    assert encoding == 0 and count > 3
    struct.pack_into("<I", raw, at + 26 + 4 * 3, 0x7FA00000)  # value 3: a signalling NaN
    with pytest.raises(fbx.FbxError, match=r"\(Objects/AnimationCurve\): key value at "
                                           r"index 3 is nan \(must be finite\)"):
        fbx.load_bytes(bytes(raw))


@pytest.mark.parametrize("original", [SMALL, SMALL7], ids=["6100", "7500"])
def test_random_mutations_raise_fbx_error_only(original):
    rng = np.random.default_rng(7)
    for _ in range(150):
        data = bytearray(original)
        for _ in range(rng.integers(1, 4)):
            data[rng.integers(27, len(data))] = rng.integers(0, 256)
        try:
            fbx.load_bytes(bytes(data))
        except fbx.FbxError:
            pass


def test_fuzz_harness_short_run():
    import importlib.util

    import sys

    folder = pathlib.Path(__file__).resolve().parent.parent / "fuzz"
    sys.path.insert(0, str(folder))  # the harness imports fuzz/harness.py beside it
    spec = importlib.util.spec_from_file_location("fuzz_fbx", folder / "fuzz_fbx.py")
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    assert fuzz.mutation_run(300, seed=2)[0] == 300 + len(fuzz.SEEDS)


@pytest.mark.parametrize("kwargs, match", [({"units": "km"}, "units is 'km'"),
                                           ({"up": "x"}, "up is 'x'"),
                                           ({"errors": "skip"}, "errors is 'skip'"),
                                           ({"units": np.array([1.0, 2.0])}, "units is array"),
                                           ({"up": np.array([1.0, 2.0])}, "up is array")])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match="^fbx.load: " + match):
        fbx.load_bytes(SMALL, **kwargs)


def test_bad_times_and_rates_name_the_method():
    scene = fbx.load(FILES / "maya_anim_interpolation_7700_binary.fbx")
    clip = scene.clips[0]
    curve = clip.channels[0].curves[0]
    with pytest.raises(ValueError, match=r"^FbxCurve: t at index \(1,\) is nan"):
        curve([0.0, np.nan])
    with pytest.raises(ValueError, match=r"^FbxCurve: t must be real numbers"):
        curve("x")
    with pytest.raises(OverflowError, match=r"^FbxCurve: t is an integer of 401 digits"):
        curve(10**400)
    with pytest.raises(ValueError, match=r"^FbxScene.geometry_world: t is inf"):
        scene.geometry_world(clip, np.inf)
    with pytest.raises(KeyError, match=r"FbxScene.geometry_world: no clip named 'nope'"):
        scene.geometry_world("nope", 0.0)
    with pytest.raises(ValueError, match=r"^FbxScene.world: nodes"):
        scene.world(clip, 0.0, nodes=["nope"])
    for fps, error in (("x", ValueError), (np.nan, ValueError), (10**400, OverflowError)):
        with pytest.raises(error, match=r"^FbxScene.for_gltf: fps"):
            scene.for_gltf(fps=fps)
        with pytest.raises(error, match=r"^save: fps"):
            animcore.save("never-written.glb", scene, fps=fps)


def test_not_fbx():
    with pytest.raises(fbx.FbxError, match="line 1"):
        fbx.load_bytes(b"\x89PNG\r\n")


# ------------------------------------------------------------ glTF export

@pytest.fixture(scope="module")
def saved_as_gltf(tmp_path_factory):
    """_saved of a file, made once for the module's tests (scenes are
    immutable)."""
    folder, made = tmp_path_factory.mktemp("saved"), {}

    def of(name):
        if name not in made:
            made[name] = _saved(name, folder)
        return made[name]
    return of


def _saved(name, tmp_path):
    """An FBX file saved by animcore.save and read back by the glTF reader."""
    import warnings

    from animcore import gltf
    scene = fbx.load(FILES / name)
    out = tmp_path / (name + ".glb")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = animcore.save(out, scene)
    return scene, gltf.load_scene(out), report


def _query_times(clip, rng):
    keys = np.unique(np.concatenate([c.times for c in clip.channels]))
    lo = max(0.0, min(clip.start, keys[0]))
    hi = max(clip.stop, keys[-1])
    return np.concatenate([keys[keys >= 0], rng.uniform(lo, hi, 40)])


@pytest.mark.parametrize("name", NAMES)
def test_saved_gltf_world_matches_fbx_world(name, saved_as_gltf):
    """save -> glTF reader -> Scene.world equals the FBX reader's world at key
    times and random times, within the deviation the report states for the
    clip (plus float32 rounding: glTF stores times and values as float32)."""
    scene, saved, report = saved_as_gltf(name)
    animated = [c for c in scene.clips if c.channels]
    assert [c.name for c in saved.clips] == [c.name for c in animated]
    assert saved.joint_names[:len(scene.nodes)] == tuple(scene.joint_names) or \
        list(saved.joint_names[:len(scene.nodes)]) == scene.joint_names
    rng = np.random.default_rng(29)
    count = len(scene.nodes)
    rest = scene.world(None, 0.0)
    (row,) = [r for r in report if r.clip == "" and r.path == "world"]
    error = np.linalg.norm(saved.world(None, 0.0)[:count, :3, 3] - rest[:, :3, 3], axis=-1)
    assert error.max() <= 1.25 * row.deviation + 2e-6 * rig_size(rest)
    if name != "motionbuilder_sausage_rrss_7700_binary.fbx":  # RrSs under scale 2, 1, 1
        np.testing.assert_allclose(saved.world(None, 0.0)[:count], rest, rtol=0,
                                   atol=2e-6 * rig_size(rest))
    for clip, written in zip(animated, saved.clips):
        (row,) = [r for r in report if r.clip == clip.name and r.path == "world"]
        # times as glTF holds them (float32), where a reader evaluates it
        t = _query_times(clip, rng).astype(np.float32).astype(np.float64)
        got = saved.world(written, t)[:, :count]
        # float32 key times move a jump (a step, a cycle seam) and a key's own value by
        # up to 1e-7 s: the FBX world at t, within 1e-6 s of it, or at a key that close
        keys = np.unique(np.concatenate([c.times for c in clip.channels]))
        nearest = keys[np.argmin(np.abs(t[:, None] - keys[None, :]), axis=1)]
        snapped = np.where(np.abs(nearest - t) < 1e-6, nearest, t)
        errors = []
        for moved in (t, t - 1e-6, t + 1e-6, snapped):
            expected = scene.world(clip, moved)
            errors.append(np.linalg.norm(got[..., :3, 3] - expected[..., :3, 3],
                                         axis=-1).max(axis=-1))
        size = rig_size(expected)
        error = np.min(errors, axis=0).max()
        assert error <= 1.25 * row.deviation + 2e-6 * size, (clip.name, error, row)
        if all(r.fps is None for r in report if r.clip == clip.name and r.path != "world"):
            assert row.deviation <= 1e-9 * size  # every channel kept as keys


@pytest.mark.parametrize("name", [n for n in NAMES if META["files"][n]["stacks"]])
def test_keyed_channels_are_exact_to_float32(name, saved_as_gltf):
    """Channels the report lists as keys (no grid) give the FBX channel's
    values at any time, to float32 rounding of values and key times."""
    scene, saved, report = saved_as_gltf(name)
    rng = np.random.default_rng(7)
    for clip, written in zip([c for c in scene.clips if c.channels], saved.clips):
        for row in (r for r in report if r.clip == clip.name and r.fps is None and
                    r.path != "world"):
            source = clip.channel(row.node, row.path)
            channel = written.channel(row.node, row.path)
            assert channel.interpolation == row.interpolation
            t = _query_times(clip, rng)
            # away from steps' jumps, where float32 key times move the jump
            step = t[:, None] - source.times[None, :]
            t = t[np.all(np.abs(step) > 1e-6, axis=1)] if row.interpolation == "STEP" else t
            a, b = source.sample(t), channel.sample(t)
            if row.path == "rotation":
                b = b * np.sign(np.sum(a * b, axis=-1))[:, None]
            scale = max(1.0, float(np.abs(a).max()))
            np.testing.assert_allclose(b, a, rtol=0, atol=2e-6 * scale, err_msg=str(row))
            assert row.deviation <= 1e-9 * scale


def test_save_keeps_cubic_blend_shape_curves_and_samples_euler_rotations(saved_as_gltf):
    _, _, report = saved_as_gltf("maya_blend_shape_cube_7100_ascii.fbx")
    (row,) = [r for r in report if r.path == "weights"]
    assert row.interpolation == "CUBICSPLINE" and row.fps is None and row.reason == ""
    _, _, report = saved_as_gltf("walk.fbx")
    rotations = [r for r in report if r.path == "rotation"]
    assert rotations and all(r.fps == 30.0 and r.interpolation == "LINEAR" and
                             "Euler" in r.reason for r in rotations)
    weighted = [r for r in report if r.reason == "weighted tangents"]
    assert weighted and all(r.deviation > 0 for r in weighted)


@pytest.mark.filterwarnings("ignore:.*animcore does not evaluate")
def test_save_warns_with_the_largest_deviation(tmp_path):
    from animcore import gltf
    scene = fbx.load(FILES / "walk.fbx")
    with pytest.warns(gltf.GltfWarning, match=r"sampled at 60 fps.*rotation [0-9.e-]+ "):
        report = animcore.save(tmp_path / "walk.gltf", scene, fps=60)
    assert {r.fps for r in report if r.reason and r.path != "world"} == {60.0}
    with pytest.raises(ValueError, match="fps"):
        scene.for_gltf(fps=0)


# ------------------------------------------------------------------ layers

def _linear_curve(oid, values):
    """An ASCII AnimationCurve of two linear keys at 0 s and 1 s."""
    return f"""    AnimationCurve: {oid}, "AnimCurve::", "" {{
        KeyTime: *2 {{
            a: 0,46186158000
        }}
        KeyValueFloat: *2 {{
            a: {values}
        }}
        KeyAttrFlags: *1 {{
            a: 4
        }}
        KeyAttrDataFloat: *4 {{
            a: 0,0,0,0
        }}
        KeyAttrRefCount: *1 {{
            a: 2
        }}
    }}
"""


LAYERED = ASCII_HEADER + """Objects:  {
    Model: 1, "Model::hip", "Null" {
    }
    AnimationStack: 10, "AnimStack::Take", "" {
        Properties70:  {
            P: "LocalStop", "KTime", "Time", "",46186158000
        }
    }
    AnimationLayer: 20, "AnimLayer::Base", "" {
    }
    AnimationLayer: 21, "AnimLayer::Over", "" {
        Properties70:  {
            P: "Weight", "Number", "", "A",50
            P: "BlendMode", "enum", "", "",1
        }
    }
    AnimationLayer: 22, "AnimLayer::Add", "" {
        Properties70:  {
            P: "Weight", "Number", "", "A",25
            P: "BlendMode", "enum", "", "",0
        }
    }
    AnimationCurveNode: 30, "AnimCurveNode::T", "" {
    }
    AnimationCurveNode: 31, "AnimCurveNode::T", "" {
    }
    AnimationCurveNode: 32, "AnimCurveNode::T", "" {
    }
""" + _linear_curve(40, "0,10") + _linear_curve(41, "20,0") + _linear_curve(42, "4,4") \
    + """}
Connections:  {
    C: "OO",1,0
    C: "OO",20,10
    C: "OO",21,10
    C: "OO",22,10
    C: "OO",30,20
    C: "OO",31,21
    C: "OO",32,22
    C: "OP",30,1,"Lcl Translation"
    C: "OP",31,1,"Lcl Translation"
    C: "OP",32,1,"Lcl Translation"
    C: "OP",40,30,"d|X"
    C: "OP",41,31,"d|X"
    C: "OP",42,32,"d|X"
}
"""


def test_override_and_additive_layers_with_weights_below_one(tmp_path):
    """MotionBuilder's layer blending, derived by hand: base 10 t; an override
    layer 20 - 20 t at 50 % gives 0.5 * 10 t + 0.5 * (20 - 20 t) = 10 - 5 t;
    an additive layer 4 at 25 % adds 1: x(t) = 11 - 5 t. Saved as glTF, the
    three linear layers are one LINEAR sampler with the same values."""
    scene = fbx.load_bytes(LAYERED.encode())
    (clip,) = scene.clips
    assert [(name, weight, mode) for name, weight, mode, _ in clip.layers] == [
        ("Base", 1.0, "additive"), ("Over", 0.5, "override"), ("Add", 0.25, "additive")]
    t = np.array([0.0, 0.25, 0.5, 1.0])
    x = clip.channel("hip", "translation").sample(t)[:, 0]
    np.testing.assert_allclose(x, 11.0 - 5.0 * t, rtol=0, atol=1e-12)
    # world: centimetres (no UnitScaleFactor) to metres
    np.testing.assert_allclose(scene.world(clip, t)[:, 0, 0, 3], (11.0 - 5.0 * t) / 100,
                               atol=1e-14)
    from animcore import gltf
    with pytest.warns(gltf.GltfWarning, match="world positions"):  # a layered node's world
        report = animcore.save(tmp_path / "layers.glb", scene)
    (row,) = [r for r in report if r.path == "translation"]
    assert row.interpolation == "LINEAR" and row.fps is None
    saved = gltf.load_scene(tmp_path / "layers.glb")
    np.testing.assert_allclose(saved.world(saved.clips[0], t)[:, 0, 0, 3],
                               (11.0 - 5.0 * t) / 100, atol=1e-7)


def test_extrapolation_repeat_counts_are_read():
    """Every curve of the Maya extrapolation file stores Repetition -1
    (unbounded; counted here in the raw bytes); a finite count written in an
    ASCII file is read as it stands."""
    raw = (FILES / "maya_extrapolate_cube_7700_binary.fbx").read_bytes()
    at, counts = 0, []
    while (at := raw.find(b"\x0aRepetitionI", at) + 1) > 0:
        counts.append(struct.unpack_from("<i", raw, at + 11)[0])
    scene = fbx.load(FILES / "maya_extrapolate_cube_7700_binary.fbx")
    curves = [c for ch in scene.clips[0].channels for c in ch.curves if c is not None]
    assert counts and set(counts) == {-1}
    assert all(c.repetitions == (-1, -1) for c in curves)
    text = LAYERED.replace('''            a: 2
        }
    }
    AnimationCurve: 41''', '''            a: 2
        }
        Post-Extrapolation:  {
            Type: 82
            Repetition: 3
        }
    }
    AnimationCurve: 41''')
    curve = fbx.load_bytes(text.encode()).clips[0].channel("hip", "translation").curves[0]
    assert curve.post == "repetition" and curve.repetitions == (-1, 3)


def test_a_stack_time_that_is_no_whole_number_of_ticks_is_taken_as_absent():
    # found by fuzz/fuzz_fbx.py (atheris): int() of an infinity raised OverflowError; a
    # property that is not what it should be holds its default, as elsewhere (_scalar)
    old = 'P: "LocalStop", "KTime", "Time", "",46186158000'
    assert old in LAYERED
    clip = fbx.load_bytes(LAYERED.replace(old, old + '\n            P: "LocalStart", "KTime", '
                                                    '"Time", "",1e999', 1).encode()).clips[0]
    assert (clip.start, clip.stop) == (0.0, 1.0)


@pytest.mark.parametrize("old, new, message", [
    ("KeyAttrFlags: *1 {\n            a: 4", "KeyAttrFlags: *1 {\n            a: 1e999",
     r"AnimationCurve\): KeyAttrFlags at index 0 is inf \(must be a whole number"),
    ("KeyAttrRefCount: *1 {\n            a: 2", "KeyAttrRefCount: *1 {\n            a: -1e999",
     r"AnimationCurve\): KeyAttrRefCount at index 0 is -inf \(must be a whole number"),
    ("            a: 2\n        }\n    }\n    AnimationCurve: 41",
     "            a: 2\n        }\n        Post-Extrapolation:  {\n            Type: 1e999\n"
     "        }\n    }\n    AnimationCurve: 41",
     r"Post-Extrapolation/Type\): is inf \(must be a mode's letter or its code\)"),
    ("            a: 2\n        }\n    }\n    AnimationCurve: 41",
     "            a: 2\n        }\n        Post-Extrapolation:  {\n            Type: 82\n"
     "            Repetition: \"x\"\n        }\n    }\n    AnimationCurve: 41",
     r"Post-Extrapolation/Repetition\): is 'x' \(must be a whole number\)")])
def test_curve_attributes_of_the_wrong_kind_are_fbx_errors(old, new, message):
    # found by fuzz/fuzz_fbx.py (atheris): casts that warned and gave garbage, or raised
    # a bare ValueError
    assert old in LAYERED
    with pytest.raises(fbx.FbxError, match=message):
        fbx.load_bytes(LAYERED.replace(old, new, 1).encode())


@pytest.mark.parametrize("mode, count, expected", [
    # keys (0, 0) and (1, 1): repetitions end `count` key spans past the end key
    ("repetition", 2, {2.5: 0.5, 2.999: 0.999, 3.5: 1.0, 50.0: 1.0}),
    ("relative_repetition", 2, {2.5: 2.5, 3.5: 3.0, 50.0: 3.0}),
    ("mirror_repetition", 1, {1.25: 0.75, 1.999: 0.001, 2.5: 0.0, 9.0: 0.0}),
    ("mirror_repetition", 2, {2.5: 0.5, 3.5: 1.0}),
    ("repetition", 0, {1.5: 1.0}),
    ("repetition", -1, {3.5: 0.5, 50.25: 0.25}),  # unbounded
])
def test_finite_repeat_counts_hold_the_last_repetition(mode, count, expected):
    from dataclasses import replace

    scene = fbx.load_bytes(LAYERED.encode())
    curve = scene.clips[0].channel("hip", "translation").curves[0]
    line = replace(curve, times=np.array([0.0, 1.0]), values=np.array([0.0, 1.0]),
                   interpolation=("linear", "linear"), tangent_modes=("none", "none"),
                   right_slopes=np.zeros(2), next_left_slopes=np.zeros(2),
                   right_weights=np.full(2, 1 / 3), next_left_weights=np.full(2, 1 / 3),
                   in_slopes=np.ones(2), out_slopes=np.ones(2), pre=mode, post=mode,
                   repetitions=(count, count))
    t = np.array(list(expected))
    np.testing.assert_allclose(line(t), list(expected.values()), atol=1e-12)
    # before the first key, the same rule mirrored in time
    if mode == "repetition" and count == 2:
        np.testing.assert_allclose(line(np.array([-1.5, -2.0, -2.5, -40.0])),
                                   [0.5, 0.0, 0.0, 0.0], atol=1e-12)
    if mode == "relative_repetition" and count == 2:
        np.testing.assert_allclose(line(np.array([-1.5, -2.5, -40.0])), [-1.5, -2.0, -2.0],
                                   atol=1e-12)


def test_geometric_transforms_move_the_geometry_not_the_children():
    """GeometricTranslation x GeometricRotation (XYZ) x GeometricScaling sits
    after the node's world matrix and is not inherited."""
    from scipy.spatial.transform import Rotation

    text = ASCII_HEADER + """Objects:  {
    Model: 1, "Model::body", "Mesh" {
        Properties70:  {
            P: "Lcl Translation", "Lcl Translation", "", "A",1,2,3
            P: "GeometricTranslation", "Vector3D", "Vector", "",10,0,-4
            P: "GeometricRotation", "Vector3D", "Vector", "",30,-45,60
            P: "GeometricScaling", "Vector3D", "Vector", "",2,3,0.5
        }
    }
    Model: 2, "Model::child", "Null" {
        Properties70:  {
            P: "Lcl Translation", "Lcl Translation", "", "A",0,1,0
        }
    }
}
Connections:  {
    C: "OO",1,0
    C: "OO",2,1
}
"""
    scene = fbx.load_bytes(text.encode(), units="cm")
    geometric = np.eye(4)
    geometric[:3, :3] = Rotation.from_euler("xyz", [30, -45, 60], degrees=True).as_matrix() \
        @ np.diag([2, 3, 0.5])
    geometric[:3, 3] = [10, 0, -4]
    np.testing.assert_allclose(scene.geometric[0], geometric, atol=1e-14)
    np.testing.assert_array_equal(scene.geometric[1], np.eye(4))
    world = scene.world(None, [0.0, 1.0])
    np.testing.assert_allclose(world[..., 1, :3, 3], [[1, 3, 3]] * 2, atol=1e-14)  # not moved
    placed = scene.geometry_world(None, [0.0, 1.0])
    np.testing.assert_allclose(placed[..., 0, :, :], world[..., 0, :, :] @ geometric, atol=1e-13)
    assert pickle.loads(pickle.dumps(scene)) == scene


# ------------------------------------------------------------- the record table

@pytest.mark.parametrize("name", ["walk.fbx", "maya_anim_interpolation_7700_binary.fbx",
                                  "maya_extrapolate_cube_7700_binary.fbx"])
def test_curves_read_together_are_the_curves_read_one_by_one(name):
    tree = fbx._File((FILES / name).read_bytes(), name)
    objects = fbx._Objects(tree)
    records = [r for r, _, _ in objects.by_id.values() if r.name == "AnimationCurve"]
    together = fbx._curve_parts_together(tree, [r.index for r in records])
    assert together is not None
    parts = [fbx._curve_parts(tree, r) for r in records]
    for i in range(5):
        np.testing.assert_array_equal(together[i], np.concatenate([p[i] for p in parts]))
    np.testing.assert_array_equal(together[5], [len(p[0]) for p in parts])
    np.testing.assert_array_equal(together[6], [len(p[2]) for p in parts])
    assert together[7] == [p[5:] for p in parts]


def test_record_values_match_a_plain_reading_of_the_file():
    data = (FILES / "maya_cube_6100_binary.fbx").read_bytes()
    tree = fbx._File(data, "x")
    header = tree.find("FBXHeaderExtension")
    assert header.child("FBXHeaderVersion").values == [1003]
    creator = header.child("Creator").values[0]  # the first Creator record of the file
    at = data.index(b"Creator") + len(b"Creator")
    assert data[at] == ord("S")
    length = struct.unpack_from("<I", data, at + 1)[0]
    assert creator == data[at + 5:at + 5 + length].decode()
    assert header.child("FBXHeaderVersion").parent.path() == "FBXHeaderExtension"


def test_fbx_texts_refuses_spans_outside_the_data():
    data = (FILES / "cube.fbx").read_bytes()
    _, _, records, properties, _ = animcore._core._fbx_parse(data)
    with pytest.raises(ValueError, match="_fbx_texts: text of .* leaves the"):
        animcore._core._fbx_texts(data[:100], records, properties)
    with pytest.raises(ValueError, match="_fbx_texts: tables are not whole"):
        animcore._core._fbx_texts(data, records[:-1], properties)


def test_fbx_gather_joins_raw_arrays_and_refuses_other_properties():
    """_fbx_gather: the stored bytes of raw binary arrays, one after the other
    (compared with slices of the file), and a ValueError naming the index
    for a property that is no raw array or lies outside the table."""
    data = (FILES / "walk.fbx").read_bytes()
    _, _, _, properties, _ = animcore._core._fbx_parse(data)
    table = properties.view(fbx._property_dtype())
    raw = np.flatnonzero(np.isin(table["type"], [b"d", b"f", b"i", b"l"]) &
                         (table["encoding"] == 0))
    assert len(raw) >= 2
    picked = raw[[0, -1, 0]].astype(np.int64)
    expected = b"".join(data[int(table["offset"][i]):int(table["offset"][i] + table["length"][i])]
                        for i in picked)
    assert animcore._core._fbx_gather(data, properties, picked) == expected
    scalar = np.flatnonzero(table["type"] == b"I")[:1].astype(np.int64)
    with pytest.raises(ValueError, match="_fbx_gather: indices at index 0 .*raw binary array"):
        animcore._core._fbx_gather(data, properties, scalar)
    with pytest.raises(ValueError, match="_fbx_gather: indices at index 1 "):
        animcore._core._fbx_gather(data, properties, np.array([raw[0], len(table)]))


def test_fbx_block_reads_property_entries_as_the_python_reader_does():
    """_fbx_block: a Properties70 block's entries as lists of their values
    after the name and types (compared with the records' own values); no
    entry, and the record to read first, when a value is still unread
    (None); a ValueError for a block outside the table."""
    f = fbx._File((FILES / "walk.fbx").read_bytes(), "walk.fbx")
    block = next(r for r in range(len(f.names)) if f.names[r] == "Properties70")
    code = f.name_codes["P"]
    props = {}
    assert animcore._core._fbx_block(f.record_table, f.name_ids, f._values, block, code, 4,
                                     props) == []
    entries = [f.values(p) for p in f.child_indices(block) if f.names[p] == "P"]
    assert props and props == {v[0]: v[4:] for v in entries}
    values = list(f._values)
    entry = f.child_indices(block)[0]
    values[f.firsts[entry] + 4] = None
    props = {}
    assert animcore._core._fbx_block(f.record_table, f.name_ids, values, block, code, 4,
                                     props) == [entry] and props == {}
    with pytest.raises(ValueError, match="_fbx_block: block -1 is not a record"):
        animcore._core._fbx_block(f.record_table, f.name_ids, values, -1, code, 4, {})


def test_fbx_connections_reads_the_connection_records():
    """_fbx_connections: each C record (kind, child, parent[, property]) in
    both directions (chained per object, in file order), property only for
    "OP" (re-derived from the records' values); the records to read first
    when a value is still unread."""
    f = fbx._File((FILES / "walk.fbx").read_bytes(), "walk.fbx")
    block = f.find("Connections").index
    codes = {f.name_codes["C"]}
    kids, parent_ids, props, parent_heads, parent_next, child_heads, child_next = \
        animcore._core._fbx_connections(f.record_table, f.name_ids, f._values, block, codes)
    # (the links as the reader's per-object lists)
    parents = dict(fbx._Links(parent_heads, parent_next, parent_ids, props).items())
    children = dict(fbx._Links(child_heads, child_next, kids, props).items())
    expected_parents, expected_children = {}, {}
    for c in f.child_indices(block):
        v = f.values(c)
        prop = v[3] if len(v) > 3 and v[0] == "OP" else None
        expected_parents.setdefault(v[1], []).append((v[2], prop))
        expected_children.setdefault(v[2], []).append((v[1], prop))
    assert parents == expected_parents and children == expected_children
    links = fbx._Links(child_heads, child_next, kids, props)
    kinds = {oid: "odd" if k % 2 else "even" for k, oid in enumerate(expected_parents)}
    for key, pairs in expected_children.items():  # (the links with a property)
        assert links.labelled(key) == [(o, p) for o, p in pairs if p]
        assert links.labelled(key, kinds, "odd") == [(o, p) for o, p in pairs
                                                     if p and kinds.get(o) == "odd"]
    assert any(p is not None for pairs in parents.values() for _, p in pairs)
    values = list(f._values)
    last = f.child_indices(block)[-1]
    values[f.firsts[last] + 2] = None
    assert animcore._core._fbx_connections(f.record_table, f.name_ids, values, block,
                                           codes) == [last]


def test_fbx_objects_lists_the_objects_records():
    """_fbx_objects: each child of Objects with values, its first value the
    id (re-derived from the records' values), in file order; the records to
    read first when a first value is still unread."""
    f = fbx._File((FILES / "walk.fbx").read_bytes(), "walk.fbx")
    block = f.find("Objects").index
    order, records = animcore._core._fbx_objects(f.record_table, f._values, block)
    expected = [(f.values(c)[0], c) for c in f.child_indices(block) if f.counts[c]]
    assert len(expected) > 1000
    assert order == [oid for oid, _ in expected] and records == dict(expected)
    values = list(f._values)
    last = f.child_indices(block)[-1]
    values[f.firsts[last]] = None
    assert animcore._core._fbx_objects(f.record_table, values, block) == [last]


def test_fbx_curves_makes_the_curves_of_the_columns():
    """_fbx_curves: each curve's key times are its span of the times (one
    array for equal bytes), its kinds what kinds_of gives for its groups
    (asked once per distinct run), its ends from parts; a span outside the
    columns is a ValueError."""
    times = np.array([0.0, 1.0, 0.0, 1.0, 0.0, 2.0])
    times.flags.writeable = False
    blob = np.array([[8, 2], [8, 2], [4, 2]], dtype=np.int64).tobytes()
    asked = []

    def kinds_of(a, b):
        asked.append((a, b))
        return (("k",) * (b - a), ("m",) * (b - a))

    parts = [(0.5, "constant", "repetition", (-1, 2)), (0.0, "constant", "constant", (-1, -1)),
             (1.0, "keep_slope", "constant", (-1, -1))]
    columns = (times,)
    curves = animcore._core._fbx_curves(fbx.FbxCurve, columns, times, [0, 2, 4], [2, 4, 6],
                                        [1, 2, 3], blob, kinds_of, parts)
    assert [type(c) for c in curves] == [fbx.FbxCurve] * 3
    assert curves[0].times is curves[1].times and curves[2].times is not curves[0].times
    assert curves[2].times.tolist() == [0.0, 2.0]
    assert asked == [(0, 1), (2, 3)]
    assert curves[0].interpolation is curves[1].interpolation == ("k",)
    for c, (default, pre, post, repetitions), start in zip(curves, parts, [0, 2, 4]):
        assert (c.default, c.pre, c.post, c.repetitions) == (default, pre, post, repetitions)
        assert c.__dict__["_columns"] is columns and c.__dict__["_start"] == start
    with pytest.raises(ValueError, match="curve 1's keys 2:7"):
        animcore._core._fbx_curves(fbx.FbxCurve, columns, times, [0, 2], [2, 7], [1, 2],
                                   blob, kinds_of, parts[:2])


def test_fbx_key_attributes_repeats_each_group_over_its_keys():
    """_fbx_key_attributes: per key its group's flags, first two floats (as
    float64) and the weights packed in the third (re-derived with NumPy from
    the file's attribute groups); counts that do not sum to the keys are a
    ValueError naming the group."""
    f = fbx._File((FILES / "maya_anim_interpolation_7700_binary.fbx").read_bytes(), "x")
    objects = fbx._Objects(f)
    records = [objects.record(c) for c in objects.order if objects.kinds[c] == "AnimationCurve"]
    _, _, flags, raw, counts, keys, _, _ = fbx._curve_parts_together(
        f, [r.index for r in records])
    out = animcore._core._fbx_key_attributes(flags, raw, counts, int(keys.sum()))
    group = np.repeat(np.arange(len(flags)), counts)
    bits = raw[group, 2].view(np.uint32).astype(np.int64)
    expected = (flags[group], raw[group, 0].astype(np.float64), raw[group, 1].astype(np.float64),
                np.where(flags[group] & 0x01000000, (bits & 0xFFFF) * 0.0001, 1 / 3),
                np.where(flags[group] & 0x02000000, (bits >> 16) * 0.0001, 1 / 3),
                raw[group, :3].astype(np.float64))
    for got, want in zip(out, expected):
        np.testing.assert_array_equal(got, want)
    assert np.any(expected[3] != 1 / 3)  # (the file has weighted keys)
    wrong = counts.copy()
    wrong[1] = -1
    with pytest.raises(ValueError, match="counts at index 1 is -1"):
        animcore._core._fbx_key_attributes(flags, raw, wrong, int(keys.sum()))


def test_fbx_blocks_reads_many_blocks_as_fbx_block_reads_each():
    """_fbx_blocks (through _properties_of): the properties of many records
    at once are those _properties reads record by record, also with a base
    and a wanted set; a value still unread names its record and touches no
    dict."""
    f = fbx._File((FILES / "walk.fbx").read_bytes(), "walk.fbx")
    objects = fbx._Objects(f)
    rows = [objects.records[o] for o in objects.order
            if objects.kinds[o] in ("Model", "AnimationCurveNode", "AnimationStack")]
    assert len(rows) > 300
    expected = [fbx._properties(f.record(r)) for r in rows]
    assert fbx._properties_of(f, rows) == expected and any(len(e) > 3 for e in expected)
    base, wanted = {"Lcl Scaling": [1.0, 1.0, 1.0], "x": [0]}, {"Lcl Scaling", "Lcl Rotation"}
    assert fbx._properties_of(f, rows, base, wanted) == [
        fbx._properties(f.record(r), base, wanted) for r in rows]
    block = next(c for c in f.child_indices(rows[0]) if f.names[c] == "Properties70")
    entry = next(c for c in f.child_indices(block) if f.counts[c] > 4)
    values = list(f._values)
    values[f.firsts[entry] + 4] = None
    props = [{} for _ in rows]
    blocks = [block] + [-1] * (len(rows) - 1)
    assert animcore._core._fbx_blocks(f.record_table, f.name_ids, values, blocks,
                                      f.name_codes["P"], 4, props) == [entry]
    assert props == [{}] * len(rows)


def test_fbx_block_numbers_are_the_scalars_of_the_properties():
    """_fbx_block_numbers (through _scalars_of): each record's number per
    name is _scalar of its _properties (0.0 without the entry), for curve
    nodes and models; an entry whose value is no plain number (a str, a
    value not read yet) sends its record to the odd list."""
    f = fbx._File((FILES / "walk.fbx").read_bytes(), "walk.fbx")
    objects = fbx._Objects(f)
    rows = [objects.records[o] for o in objects.order
            if objects.kinds[o] in ("Model", "AnimationCurveNode")]
    names = ("d|X", "d|Y", "d|Z", "Lcl Translation", "RotationOrder", "InheritType", "none")
    expected = [[fbx._scalar(fbx._properties(f.record(r)), n, 0.0) for n in names] for r in rows]
    got = fbx._scalars_of(f, rows, names)
    np.testing.assert_array_equal(got, expected)
    assert np.any(got[:, 0] != 0) and np.any(got[:, 3] != 0)
    found = fbx._first_children(f, rows, ("Properties70", "Properties60"))
    blocks = (found[:, 0].tolist(), found[:, 1].tolist())
    codes = (f.name_codes["P"], f.name_codes.get("Property", -1))
    entry = next(c for c in f.child_indices(blocks[0][0])
                 if f.counts[c] > 4 and f._values[f.firsts[c]] == "Lcl Translation")
    for odd in ("1.5", None):
        values = list(f._values)
        values[f.firsts[entry] + 4] = odd
        numbers, odd_rows = animcore._core._fbx_block_numbers(
            f.record_table, f.name_ids, values, blocks, codes, (4, 3), names)
        assert odd_rows == [0]
        np.testing.assert_array_equal(numbers[1:], expected[1:])


def test_properties_and_connections_with_array_values_are_read():
    """A property or connection record holding an array (read from the file
    when first needed): the entries and links around it are read as usual,
    and a vector property that is an array holds its default."""
    text = ASCII_HEADER + """Objects:  {
    Model: 1, "Model::a", "Null" {
        Properties70:  {
            P: "Lcl Translation", "Lcl Translation", "", "A",1,2,3
            P: "Lcl Scaling", "Lcl Scaling", "", "A", *3 { a: 4,5,6 }
        }
    }
    Model: 2, "Model::b", "Null" {
        Properties70:  {
            P: "Lcl Translation", "Lcl Translation", "", "A",7,8,9
        }
    }
}
Connections:  {
    C: "OO",1,0
    C: "OO",2,1, *1 { a: 5 }
}
"""
    scene = fbx.load_bytes(text.encode(), units="cm")
    assert [n.name for n in scene.nodes] == ["a", "b"]
    assert [n.parent for n in scene.nodes] == [-1, 0]
    np.testing.assert_array_equal(scene.nodes[0].translation, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(scene.nodes[0].scale, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(scene.world(None, 0.0)[1, :3, 3], [8.0, 10.0, 12.0])


@pytest.mark.parametrize("name, joint", [("walk.fbx", "Hips"),
                                         ("maya_pivots_7500_binary.fbx", "pCube1")])
def test_root_motion_channels_are_read_through_the_fbx_transform(name, joint):
    """extract_root_motion writes the joint's channels as the FBX scene reads
    them (file units, through the node's pivots and what is above the roots):
    the track's motion composed with the new clip's world of the joint is the
    original world at every key time (its contract), rebuilt here from the
    track's samples."""
    scene = fbx.load(FILES / name)
    clip = scene.clips[0]
    track, in_place = animcore.extract_root_motion(scene, clip, joint)
    pose = track.sample(track.times / track.duration)
    c, s = np.cos(pose.rotation), np.sin(pose.rotation)
    motion = np.zeros((len(c), 4, 4))  # a turn about y by the yaw, then the position
    motion[:, 0, 0], motion[:, 0, 2], motion[:, 2, 0], motion[:, 2, 2] = c, s, -s, c
    motion[:, 1, 1] = motion[:, 3, 3] = 1.0
    motion[:, :3, 3] = pose.position
    t = clip.frames(1.0)[0] + track.times
    j = scene.node_index(joint)
    expected = scene.world(clip, t)[:, j]
    np.testing.assert_allclose(motion @ scene.world(in_place, t)[:, j], expected, rtol=0,
                               atol=1e-9 * np.abs(expected).max())


def _operated(scene, clip, which):
    """The clip after an operation that writes plain channels into it."""
    if which == "extract_root_motion":
        return animcore.extract_root_motion(scene, clip, "Hips")[1]
    if which == "ik_two_bone_clip":
        times = animcore.ik_clip_times(clip)
        world = scene.world(clip, times)
        hip, knee, foot = (scene.node_index(n) for n in ("LeftUpLeg", "LeftLeg", "LeftFoot"))
        target = world[:, foot, :3, 3] + 0.1 * (world[:, hip, :3, 3] - world[:, foot, :3, 3])
        return animcore.ik_two_bone_clip(scene, clip, hip, knee, foot, target)
    run = fbx.load(FILES / "run.fbx")
    return animcore.retarget(run, run.clips[0], scene)  # a plain Clip


@pytest.mark.parametrize("which", ["extract_root_motion", "ik_two_bone_clip", "retarget"])
def test_save_writes_the_plain_channels_an_operation_put_into_an_fbx_clip(tmp_path, which):
    """An FBX clip edited by an operation (or one made for the FBX rig) holds
    plain channels beside its FBX curves: save writes their nodes from the
    local matrices, and the glTF file's world is the FBX scene's (to float32)."""
    scene = fbx.load(FILES / "walk.fbx")
    clip = _operated(scene, scene.clips[0], which)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (the sampled channels, reported)
        animcore.save(tmp_path / "out.glb", scene, clips=[clip])
    written = animcore.load(tmp_path / "out.glb")
    t = clip.frames(30)
    expected = scene.world(clip, t)[..., :3, 3]
    np.testing.assert_allclose(written.world(written.clips[0], t)[:, :len(scene.nodes), :3, 3],
                               expected, rtol=0, atol=1e-6 * np.abs(expected).max())
