"""FBX import on the shared real files (tests/data/fbx, see SOURCES.md there):
world matrices against the ufbx reader (fixture recorded by
tests/fixtures/record_fbx.py), FBX 6 against FBX 7 versions of the same
curves, conventions (time, names, units and axes), and hostile input."""
import json
import pathlib
import pickle
import struct
import zlib

import numpy as np
import pytest

import animcore
from animcore import fbx
from animcore.rotations import quat_from_euler, quat_to_matrix

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


@pytest.mark.parametrize("name", ["maya_blend_inbetween_7500_binary.fbx",
                                  "maya_blend_shape_cube_7100_ascii.fbx"])
def test_blend_shape_weights_match_ufbx(name):
    stack = META["files"][name]["stacks"][0]
    scene = fbx.load(FILES / name)
    (node,) = [n for n in scene.nodes if n.weights is not None]
    assert list(node.target_names) == stack["blend_names"]
    weights = scene.weights(scene.clips[0], np.array(stack["times"]))[node.index]
    np.testing.assert_allclose(weights, stack["blend_weights"], atol=1e-6)


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


def test_bad_ascii_names_line():
    text = ASCII_HEADER + "Objects:  {\n    Model: 1, \"Model::a\n"
    with pytest.raises(fbx.FbxError, match=r"line 6 \(Objects/Model\): string without"):
        fbx.load_bytes(text.encode())


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


def test_bad_curve_times():
    text = ASCII_HEADER + """Objects:  {
    AnimationCurve: 5, "AnimCurve::", "" {
        KeyTime: *2 {
            a: 10,5
        }
        KeyValueFloat: *2 {
            a: 0,1
        }
    }
}
"""
    with pytest.raises(fbx.FbxError, match=r"AnimationCurve\): key time at index 1"):
        fbx._read_curve(fbx._File(text.encode(), "x"), fbx._File(text.encode(), "x")
                        .find("Objects").children[0])


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
                                           ({"errors": "skip"}, "errors is 'skip'")])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        fbx.load_bytes(SMALL, **kwargs)


def test_not_fbx():
    with pytest.raises(fbx.FbxError, match="line 1"):
        fbx.load_bytes(b"\x89PNG\r\n")
