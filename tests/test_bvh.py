"""BVH import on real motion capture files (tests/data/bvh, see SOURCES.md there),
checked against a line-by-line reading with scipy's Euler rotations
(tests/reference.py), and every malformed-file branch."""
import pathlib

import numpy as np
import pytest

import animcore
from animcore import bvh
from reference import bvh_world_positions, quat_power_slerp

DATA = pathlib.Path(__file__).resolve().parent / "data" / "bvh"
# frames, "Frame Time:" as written, joints (End Sites aside)
FILES = {"cmu_12_01_walk.bvh": (524, 0.0083333, 31), "bvh_test1.bvh": (75, 0.033333, 24),
         "bvh_test2.bvh": (61, 0.008333, 23)}


@pytest.mark.parametrize("name", FILES)
def test_world_positions_match_the_file_read_with_scipy(name):
    frames, frame_time, joints = FILES[name]
    scene = bvh.load(DATA / name)
    (clip,) = scene.clips
    assert clip.name == name[:-4]
    real = [n.index for n in scene.nodes if not n.name.endswith("_end")]
    assert len(real) == joints
    times = clip.channels[0].times
    assert len(times) == frames
    np.testing.assert_allclose(times, np.arange(frames) * frame_time, rtol=0, atol=1e-15)
    picks = [0, 1, frames // 2, frames - 1]
    world = scene.world(clip, times[picks])[:, real][..., :3, 3]
    expected = bvh_world_positions(DATA / name, picks)
    np.testing.assert_allclose(world, expected, rtol=0, atol=1e-9 * np.abs(expected).max())


def test_mixed_rotation_orders_and_hierarchy():
    scene = bvh.load(DATA / "bvh_test1.bvh")
    hips = scene.nodes[0]
    assert hips.name == "Hips" and hips.parent == -1 and scene.scenes == ((0,),)
    spine = scene.nodes[hips.children[0]]
    assert spine.name == "Spine" and spine.parent == 0
    np.testing.assert_array_equal(spine.translation, [0, 0, 4.45284])
    ends = [n for n in scene.nodes if n.name.endswith("_end")]
    assert ends and all(not n.children and scene.nodes[n.parent].name + "_end" == n.name for n in ends)
    (clip,) = scene.clips
    t = clip.channels[0].times[3]
    translation = clip.sample(t)[("Hips", "translation")]
    np.testing.assert_allclose(translation, scene.pose(clip, t).translation[0])
    # Frames are keys: halfway between two frames is the slerp of their rotations.
    q0, q1 = (clip.channel("Spine", "rotation").sample(clip.channels[0].times[k]) for k in (3, 4))
    half = clip.channel("Spine", "rotation").sample(clip.channels[0].times[3:5].mean())
    np.testing.assert_allclose(half, quat_power_slerp(q0, q1, 0.5), atol=1e-12)


def test_cmu_walk_root_motion():
    scene = bvh.load(DATA / "cmu_12_01_walk.bvh")
    track, in_place = animcore.extract_root_motion(scene, 0, "Hips")
    world = scene.world(scene.clips[0], [0.0, scene.clips[0].duration])[:, 0]
    np.testing.assert_allclose(track.stride[[0, 2]], world[1, [0, 2], 3] - world[0, [0, 2], 3],
                               atol=1e-9)
    assert np.hypot(*track.stride[[0, 2]]) > 10  # it walks: the stride is not zero
    np.testing.assert_allclose(scene.world(in_place, track.times)[:, 0, [0, 2], 3], 0, atol=1e-9)


GOOD = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Chest
  {
    OFFSET 0 5 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 3 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.5
0 0 0 0 0 0 0 0 0
1 0 0 90 0 0 0 0 0
"""


def _file(tmp_path, text):
    path = tmp_path / "clip.bvh"
    path.write_text(text)
    return path


def test_small_file_by_hand(tmp_path):
    scene = bvh.load(_file(tmp_path, GOOD))
    assert [n.name for n in scene.nodes] == ["Hips", "Chest", "Chest_end"]
    world = scene.world(0, [0.0, 0.5])
    np.testing.assert_allclose(world[:, 2, :3, 3], [[0, 8, 0], [-7, 0, 0]], atol=1e-12)
    # the hips turn 90 degrees about z: the chest (5 up) points along -x
    np.testing.assert_allclose(world[1, 1, :3, 3], [-4, 0, 0], atol=1e-12)


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.replace("HIERARCHY", "HIERARCHIE"), r":1: a BVH file starts with HIERARCHY, got 'HIERARCHIE'"),
    (lambda s: s.replace("OFFSET 0 5 0", "OFFSET 0 5"), r":9: OFFSET must be a number, got 'CHANNELS'"),
    (lambda s: s.replace("OFFSET 0 5 0", "OFFSET 0 five 0"), r":8: OFFSET must be a number, got 'five'"),
    (lambda s: s.replace("OFFSET 0 5 0", "OFFSET 0 nan 0"), r":8: OFFSET must be finite, got 'nan'"),
    (lambda s: s.replace("3 Zrotation Xrotation Yrotation", "3 Zrotation Xrotation Wrotation"),
     r":9: 'Wrotation' is not a BVH channel"),
    (lambda s: s.replace("3 Zrotation Xrotation Yrotation", "3 Zrotation Xrotation Xrotation"),
     r":9: channel Xrotation appears twice for Chest"),
    (lambda s: s.replace("CHANNELS 3", "CHANNELS three"), r":9: CHANNELS needs a count from 0 to 6, got 'three'"),
    (lambda s: s.replace("JOINT Chest\n  {", "JOINT Chest\n  ["), r":7: expected '\{' after Chest, got '\['"),
    (lambda s: s.replace("    OFFSET 0 5 0\n", ""), r":\d+: Chest has no OFFSET"),
    (lambda s: s.replace("End Site", "End Point"), r":10: expected 'End Site', got 'End Point'"),
    (lambda s: s.replace("      OFFSET 0 3 0", "      OFFSET 0 3 0 CHANNELS 1 Xrotation"),
     r":12: an End Site has no CHANNELS"),
    (lambda s: s.replace("  JOINT Chest", "  BONE Chest"), r":6: unexpected 'BONE' in Hips"),
    (lambda s: s.replace("}\nMOTION", "MOTION"), r":\d+: unexpected end of the hierarchy, expected '\}'"),
    (lambda s: s.split("MOTION")[0], r":\d+: the file has no MOTION section"),
    (lambda s: s.replace("Frames: 2", "Frames: two"), r":17: expected 'Frames: <count>' \(at most 9 digits\), got 'Frames: two'"),
    (lambda s: s.replace("Frame Time: 0.5", "Frame Time: -1"), r":18: the frame time must be a number > 0, got '-1'"),
    (lambda s: s.replace("Frame Time: 0.5", "Frame Rate: 2"), r":18: expected 'Frame Time: <seconds>'"),
    (lambda s: s.replace("1 0 0 90 0 0 0 0 0", "1 0 0 90 0 0 0 0"), r":20: frame 1 has 8 values, the channels need 9"),
    (lambda s: s.replace("1 0 0 90 0 0 0 0 0", "1 0 0 ninety 0 0 0 0 0"), r":20: frame 1: 'ninety' is not a number"),
    (lambda s: s.replace("1 0 0 90 0 0 0 0 0", "1 0 0 inf 0 0 0 0 0"), r":20: frame 1: value 3 is 'inf' \(must be finite\)"),
    (lambda s: s.replace("Frames: 2", "Frames: 3"), r":20: the file has 2 frames, 'Frames:' says 3"),
    (lambda s: s.replace("Frames: 2", "Frames: ²"), r":17: expected 'Frames: <count>'"),
    (lambda s: s.replace("Frames: 2", "Frames: " + "9" * 5000), r":17: expected 'Frames: <count>' \(at most 9 digits\), got 'Frames: 9{72}\.\.\.'"),
    (lambda s: s.replace("CHANNELS 3", "CHANNELS ³"), r":9: CHANNELS needs a count from 0 to 6, got '³'"),
    (lambda s: s.replace("CHANNELS 3", "CHANNELS " + "1" * 5000), r":9: CHANNELS needs a count"),
    (lambda s: s.replace("Frame Time: 0.5", "Frame Time: 1e308").replace("Frames: 2", "Frames: 3") + "0 " * 9 + "\n",
     r":18: the frame time 1e308 times 2 frames is not a finite duration"),
    (lambda s: s.replace("Frame Time: 0.5", "Frame Time: 5e-324"), r":18: the frame time 5e-324 is too small|:18: Hips: "),
    (lambda s: s.replace("OFFSET 0 5 0", "OFFSET 0 " + "x" * 3000 + " 0"), r":8: OFFSET must be a number, got 'x{80}\.\.\.'$"),
    (lambda s: s.replace("ROOT Hips", "ROOT {"), r":2: expected a joint name, got '\{'"),
])
def test_malformed_files_name_the_line(tmp_path, edit, message):
    with pytest.raises(bvh.BvhError, match=r"clip.bvh" + message):
        bvh.load(_file(tmp_path, edit(GOOD)))


def test_blank_lines_crlf_tabs_and_an_extra_frame_row_load_as_blender_and_threejs_do(tmp_path):
    plain = bvh.load(_file(tmp_path, GOOD))
    loose = (GOOD.replace("MOTION\n", "MOTION\n\n").replace("Frames: 2\n", "Frames:\t2\n\n")
             .replace("0 0 0 0 0 0 0 0 0\n", "0\t0 0 0 0 0 0 0 0\n\n").replace("\n", "\r\n")
             + "9 9 9 9 9 9 9 9 9\r\n")
    with pytest.warns(bvh.BvhWarning, match=r"clip.bvh:\d+: 1 frame row\(s\) beyond the 2 .* dropped"):
        scene = bvh.load(_file(tmp_path, loose))
    for a, b in zip(plain.clips[0].channels, scene.clips[0].channels):
        np.testing.assert_array_equal(a.output, b.output)
        np.testing.assert_array_equal(a.times, b.times)


def test_a_huge_frames_count_with_few_rows_is_refused_without_allocating(tmp_path):
    import tracemalloc
    text = GOOD.replace("Frames: 2", "Frames: 999999999")
    tracemalloc.start()
    try:
        with pytest.raises(bvh.BvhError, match=r"the file has 2 frames, 'Frames:' says 999999999"):
            bvh.load(_file(tmp_path, text))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10**7


def test_duplicate_joint_names_and_end_site_like_names_keep_every_channel(tmp_path):
    text = GOOD.replace("JOINT Chest\n  {\n    OFFSET 0 5 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n    End Site",
                        "JOINT Chest\n  {\n    OFFSET 0 5 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
                        "    JOINT Chest\n    {\n      OFFSET 0 1 0\n      CHANNELS 1 Zrotation\n"
                        "      End Site\n      {\n        OFFSET 0 1 0\n      }\n    }\n"
                        "    JOINT Chest_end\n    {\n      OFFSET 0 2 0\n      CHANNELS 1 Xrotation\n"
                        "      End Site\n      {\n        OFFSET 0 1 0\n      }\n    }\n    End Site")
    text = text.replace("0 0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0 0 10 20").replace(
        "1 0 0 90 0 0 0 0 0", "1 0 0 90 0 0 0 0 0 30 40")
    with pytest.warns(bvh.BvhWarning) as caught:
        scene = bvh.load(_file(tmp_path, text))
    assert [str(w.message).split(": ", 1)[1] for w in caught] == [
        "a second joint named 'Chest' is named 'Chest.1'",
        "an End Site named like the joint 'Chest_end' is named 'Chest_end.1'"]
    names = [n.name for n in scene.nodes]
    assert len(set(names)) == len(names)
    assert names[:4] == ["Hips", "Chest", "Chest.1", "Chest.1_end"]
    assert "Chest_end" in names and "Chest_end.1" in names
    clip = scene.clips[0]
    rotations = [c.node_name for c in clip.channels if c.path == "rotation"]
    assert rotations == ["Hips", "Chest", "Chest.1", "Chest_end"]
    # each joint keeps its own channel through a bake: the second Chest turns
    # 10 then 30 degrees about z, Chest_end 20 then 40 about x (rows above)
    from animcore import bake
    baked = bake.bake([clip], 2.0)
    half = np.radians([10, 30]) / 2
    np.testing.assert_allclose(baked["clip/Chest.1/rotation"],
                               [[0, 0, np.sin(a), np.cos(a)] for a in half], atol=1e-12)
    half = np.radians([20, 40]) / 2
    np.testing.assert_allclose(baked["clip/Chest_end/rotation"],
                               [[np.sin(a), 0, 0, np.cos(a)] for a in half], atol=1e-12)
    np.testing.assert_allclose(baked["clip/Chest/rotation"], [[0, 0, 0, 1]] * 2, atol=1e-12)
    np.testing.assert_allclose(baked["clip/Hips/rotation"][1], [0, 0, np.sin(np.pi / 4),
                                                                np.cos(np.pi / 4)], atol=1e-12)


def test_deep_hierarchy_non_utf8_and_gltf_are_bvh_errors(tmp_path):
    deep = "HIERARCHY\n" + "ROOT a\n{\nOFFSET 0 0 0\n" + "JOINT a\n{\nOFFSET 0 0 0\n" * 3000
    with pytest.raises(bvh.BvhError, match=r"clip.bvh:\d+: the hierarchy is deeper than 256"):
        bvh.load(_file(tmp_path, deep))
    path = tmp_path / "clip.bvh"
    path.write_bytes(GOOD.encode().replace(b"Chest", b"Ch\xffst"))
    with pytest.raises(bvh.BvhError, match=r"clip.bvh:6: not UTF-8 text at byte \d+"):
        bvh.load(path)
    path = tmp_path / "Fox.glb"
    path.write_bytes(b"glTF\x02\x00\x00\x00" + bytes(range(256)))
    with pytest.raises(bvh.BvhError, match=r"Fox.glb:1: this is a glTF file, not BVH"):
        bvh.load(path)


def test_error_is_a_value_error_with_its_parts_and_pickles(tmp_path):
    import pickle

    with pytest.raises(ValueError) as info:
        bvh.load(_file(tmp_path, GOOD.replace("Frames: 2", "Frames: 3")))
    assert info.value.line == 20 and info.value.source.endswith("clip.bvh")
    clone = pickle.loads(pickle.dumps(info.value))
    assert str(clone) == str(info.value) and clone.line == 20


def test_bake_a_bvh_file(tmp_path):
    from animcore import bake, cli

    out = tmp_path / "mocap.npz"
    assert cli.main(["bake", str(DATA / "bvh_test2.bvh"), "--fps", "60", "--out", str(out)]) == 0
    scene = bvh.load(DATA / "bvh_test2.bvh")
    grid = bake.frame_times(scene.clips[0].duration, 60)
    with np.load(out) as baked:
        np.testing.assert_array_equal(baked["bvh_test2/time"], grid)
        np.testing.assert_allclose(baked["bvh_test2/Hips/rotation"],
                                   scene.clips[0].channel("Hips", "rotation").sample(grid))
    assert cli.main(["bake", str(DATA / "bvh_test2.bvh"), "--world", "--nodes", "Head",
                     "--out", str(tmp_path / "w.npz")]) == 0
    # only the node asked for, at its world position on the grid
    with np.load(tmp_path / "w.npz") as baked:
        assert {k.split("/")[1] for k in baked.files if k != "bvh_test2/time"} == {"Head"}
        times = baked["bvh_test2/time"]
        head = scene.node_index("Head")
        np.testing.assert_allclose(baked["bvh_test2/Head/world_translation"],
                                   scene.world(scene.clips[0], times)[:, head, :3, 3],
                                   rtol=0, atol=1e-12)
