"""Baking many files without Dask: `python -m animcore bake FILES... --out DIR
--workers N`, one output per clip written atomically, and the manifest."""
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from animcore import bake, cli, gltf

DATA = pathlib.Path(__file__).resolve().parent / "data" / "gltf"
ROOT = str(pathlib.Path(__file__).resolve().parent.parent)


def run(*args):
    return subprocess.run([sys.executable, "-m", "animcore", "bake", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def refused(capsys, *args):
    """The exit status and stderr of `animcore bake ARGS` for a refusal, which
    stops before any work: run in this process (the command itself is run as
    a program by the tests above)."""
    with pytest.raises(SystemExit) as stop:
        cli.main(["bake", *map(str, args)])
    return stop.value.code, capsys.readouterr().err


def files_below(folder):
    """Every file below ``folder``, as ``/``-separated paths relative to it."""
    return sorted(str(p.relative_to(folder).as_posix())
                  for p in pathlib.Path(folder).rglob("*") if p.is_file())


def folder_with_a_broken_file(tmp_path):
    folder = tmp_path / "clips"
    folder.mkdir()
    for suffix in (".gltf", ".bin"):
        shutil.copy(DATA / "Animation_NodeMisc" / ("Animation_NodeMisc_07" + suffix), folder)
    shutil.copy(DATA / "Fox" / "Fox.glb", folder)
    (folder / "broken.glb").write_bytes(b"glTF\x02\x00\x00\x00\x0c\x00\x00\x00")
    return folder


def test_workers_bake_each_clip_to_its_own_file_with_a_manifest(tmp_path):
    folder = folder_with_a_broken_file(tmp_path)
    out = tmp_path / "out"
    result = run(folder, "--out", out, "--workers", 2, "--fps", 10, "--progress", "never")
    assert result.returncode == 1  # one file failed
    rows = bake.read_manifest(out)
    assert [(r.file, r.clip) for r in rows] == [
        (str(folder / "Animation_NodeMisc_07.gltf"), name)
        for name in [c.name for c in gltf.load(folder / "Animation_NodeMisc_07.gltf")]
    ] + [(str(folder / "Fox.glb"), name) for name in ("Survey", "Walk", "Run")] + [
        (str(folder / "broken.glb"), "")]
    assert rows[-1].error.startswith(f"{folder / 'broken.glb'}: ") and rows[-1].output == ""
    assert f"failed: {folder / 'broken.glb'}: " in result.stdout
    assert "baked 5 clip(s) from 2 of 3 file(s) at 10 fps" in result.stdout
    assert files_below(out) == sorted([r.output for r in rows[:-1]] + ["keys.csv",
                                                                     "manifest.csv"])
    for row in rows[:-1]:
        clip = next(c for c in gltf.load(row.file) if c.name == row.clip)
        expected = bake.bake([clip], 10)
        with np.load(out / row.output) as saved:
            assert sorted(saved.files) == sorted(expected)
            for key in expected:
                np.testing.assert_array_equal(saved[key], expected[key])
        assert row.frames == len(expected[f"{clip.name}/time"]) and not row.error


def test_local_processes_and_one_process_give_the_same_outputs(tmp_path):
    pattern = str(DATA / "Animation_Node" / "*.gltf")
    one = bake.bake_local([pattern], tmp_path / "one", fps=12, workers=1)
    two = bake.bake_local([pattern], tmp_path / "two", fps=12, workers=2)
    assert one == two and len(one) == 6 and not any(r.error for r in one)
    for row in one:
        with np.load(tmp_path / "one" / row.output) as a, np.load(tmp_path / "two" / row.output) as b:
            assert all(np.array_equal(a[k], b[k]) for k in a.files)


def test_one_input_keeps_the_single_file_bake(tmp_path):
    target = tmp_path / "fox.npz"
    result = run(DATA / "Fox" / "Fox.glb", "--out", target, "--clip", "Walk")
    assert result.returncode == 0, result.stderr
    walk = next(c for c in gltf.load(DATA / "Fox" / "Fox.glb") if c.name == "Walk")
    assert result.stdout.startswith(f"baked 1 clip(s), {len(walk.channels)} channel(s)")
    with np.load(target) as saved:
        assert "Walk/time" in saved.files


def test_same_file_names_in_different_folders_get_distinct_outputs(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        for suffix in (".gltf", ".bin"):
            shutil.copy(DATA / "Animation_Node" / ("Animation_Node_00" + suffix), tmp_path / name)
    rows = bake.bake_local([tmp_path / "a", tmp_path / "b"], tmp_path / "out", workers=1)
    assert [r.output for r in rows] == ["a/Animation_Node_00.gltf/animation0.npz",
                                        "b/Animation_Node_00.gltf/animation0.npz"]


def test_a_pattern_that_matches_nothing_is_a_failed_row(tmp_path):
    rows = bake.bake_local([tmp_path / "none*.gltf"], tmp_path / "out", workers=1)
    assert len(rows) == 1 and "No such file" in rows[0].error


def test_several_inputs_need_an_output_folder(tmp_path, capsys):
    status, stderr = refused(capsys, DATA / "Fox" / "Fox.glb",
                             DATA / "Animation_Node" / "Animation_Node_00.gltf")
    assert status == 2
    assert "bake: several inputs (or --workers, --scheduler) need --out DIR" in stderr


def test_an_output_file_for_several_inputs_is_refused(tmp_path, capsys):
    status, stderr = refused(capsys, DATA / "Fox" / "Fox.glb",
                             DATA / "Animation_Node" / "Animation_Node_00.gltf",
                             "--out", tmp_path / "all.npz")
    assert status == 2 and "need --out DIR" in stderr
    assert not (tmp_path / "all.npz").exists()


def test_an_output_folder_that_is_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "taken").write_text("")
    status, stderr = refused(capsys, DATA / "Fox" / "Fox.glb", "--workers", 1,
                             "--out", tmp_path / "taken")
    assert status == 2
    assert f"bake: --out {str(tmp_path / 'taken')!r} exists and is not a folder" in stderr


def test_zero_workers_is_refused(tmp_path, capsys):
    status, stderr = refused(capsys, DATA / "Fox" / "Fox.glb", "--workers", 0, "--out", tmp_path)
    assert status == 2 and "bake: --workers is 0 (must be >= 1)" in stderr
    assert list(tmp_path.iterdir()) == []


def test_zero_workers_is_refused_by_the_function(tmp_path):
    with pytest.raises(ValueError, match=r"^bake: workers is 0 \(must be >= 1\)$"):
        bake.bake_local([DATA], tmp_path, workers=0)


def test_an_interrupted_write_leaves_no_file(tmp_path):
    def write(target):
        pathlib.Path(target).write_bytes(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        bake.write_atomic(str(tmp_path / "clip.npz"), write, "job")
    assert os.listdir(tmp_path) == []


def test_temporary_files_of_a_job_are_removed(tmp_path):
    for name in (".a.npz.job1.77.part", ".b.npz.job2.78.part", "c.npz"):
        (tmp_path / name).write_text("")
    assert bake.remove_parts(str(tmp_path), "job1") == 1
    assert sorted(os.listdir(tmp_path)) == [".b.npz.job2.78.part", "c.npz"]


def test_without_dask_bake_many_says_how_to_install_it(monkeypatch, tmp_path):
    import animcore.dask

    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"^animcore\.dask needs distributed, which is not "
                                          r"installed: pip install 'animcore\[dask\]'"):
        animcore.dask.bake_many([DATA], tmp_path)


# -- the single-file options, BVH and USD inputs ------------------------------------

BVH = pathlib.Path(__file__).resolve().parent / "data" / "bvh"
USD = pathlib.Path(__file__).resolve().parent / "data" / "usd" / "walker.usda"
FOX = DATA / "Fox" / "Fox.glb"
POINTER = DATA / "24_animation_pointer" / "24_animation_pointer.gltf"


def single_file_bake(tmp_path, file, clip, *options):
    """What `python -m animcore bake FILE --clip CLIP OPTIONS --out X.npz` writes."""
    from animcore import cli

    target = tmp_path / "single" / f"{pathlib.Path(file).stem}.{clip}.npz"
    target.parent.mkdir(exist_ok=True)
    assert cli.main(["bake", str(file), "--clip", clip, *options, "--out", str(target)]) == 0
    with np.load(target) as saved:
        return {key: saved[key] for key in saved.files}


def assert_same_bytes(saved_path, expected):
    with np.load(saved_path) as saved:
        assert sorted(saved.files) == sorted(expected)
        for key, value in expected.items():
            assert saved[key].dtype == value.dtype and saved[key].shape == value.shape
            assert saved[key].tobytes() == value.tobytes(), key


def test_world_nodes_and_root_motion_are_forwarded_like_the_single_file_bake(tmp_path, capsys):
    files = [FOX, BVH / "bvh_test2.bvh"]
    world = bake.bake_local(files, tmp_path / "world", fps=12, workers=2, world=True)
    assert [(r.file, r.clip) for r in world] == [(str(FOX), c) for c in ("Survey", "Walk", "Run")] \
        + [(str(files[1]), "bvh_test2")]
    for row in world:
        expected = single_file_bake(tmp_path, row.file, row.clip, "--fps", "12", "--world")
        assert any(key.endswith("/world_rotation") for key in expected)
        assert_same_bytes(tmp_path / "world" / row.output, expected)
        assert row.channels == len(expected) - 1 and not row.error
    picked = bake.bake_local([FOX], tmp_path / "nodes", fps=10, workers=1, clip="Walk",
                             world=True, nodes=["b_Hip_01", 1])
    assert_same_bytes(tmp_path / "nodes" / picked[0].output, single_file_bake(
        tmp_path, FOX, "Walk", "--fps", "10", "--world", "--nodes", "b_Hip_01", "1"))
    assert picked[0].channels == 6  # two nodes, three world quantities each
    root = bake.bake_local([FOX], tmp_path / "root", fps=30, workers=1, clip="Run",
                           root_motion="b_Hip_01")
    assert_same_bytes(tmp_path / "root" / root[0].output, single_file_bake(
        tmp_path, FOX, "Run", "--root-motion", "b_Hip_01"))


def test_a_joint_a_file_does_not_have_is_a_failed_row_of_that_file(tmp_path):
    rows = bake.bake_local([BVH / "bvh_test2.bvh", FOX], tmp_path, fps=10, workers=1,
                           clip="Walk", root_motion="b_Hip_01")
    assert rows[0] == bake.BakeRow(str(BVH / "bvh_test2.bvh"), "", 0, 0, "",
                                   "no clip named 'Walk'")
    rows = bake.bake_local([BVH / "bvh_test2.bvh"], tmp_path, fps=10, workers=1,
                           root_motion="b_Hip_01")
    assert [(r.clip, r.output, r.error) for r in rows] == [
        ("bvh_test2", "", "bake: --root-motion: extract_root_motion: joint 'b_Hip_01' not in "
                          "the scene; closest: 'Hips'")]


def test_strict_fails_a_file_with_channels_that_are_not_baked(tmp_path):
    rows = bake.bake_local([POINTER, FOX], tmp_path / "strict", workers=1, strict=True)
    assert rows[0].file == str(POINTER) and rows[0].output == ""
    assert rows[0].error.startswith("not baked (strict): clip 'AllAnimatedProperties' has 47 "
                                    "channel(s) animcore does not bake (")
    assert [r.clip for r in rows[1:]] == ["Survey", "Walk", "Run"] and not any(
        r.error for r in rows[1:])
    lenient = bake.bake_local([POINTER], tmp_path / "lenient", workers=1)
    assert lenient[0].output and not lenient[0].error
    assert not (tmp_path / "strict" / lenient[0].output).exists()


def test_the_command_forwards_the_single_file_options_to_many_files(tmp_path, capsys):
    from animcore import bvh, cli

    out = tmp_path / "out"
    assert cli.main(["bake", str(FOX), str(BVH / "bvh_test2.bvh"), "--out", str(out),
                     "--workers", "2", "--world", "--nodes", "0", "--progress", "never"]) == 0
    first = {str(FOX): gltf.load_scene(FOX).nodes[0].name,
             str(BVH / "bvh_test2.bvh"): bvh.load(BVH / "bvh_test2.bvh").nodes[0].name}
    rows = bake.read_manifest(out)
    assert len(rows) == 4
    for row in rows:
        with np.load(out / row.output) as saved:
            assert saved.files == [f"{row.clip}/time"] + [
                f"{row.clip}/{first[row.file]}/world_{p}"
                for p in ("translation", "rotation", "scale")]
    capsys.readouterr()
    assert cli.main(["bake", str(POINTER), str(FOX), "--out", str(tmp_path / "strict"),
                     "--workers", "1", "--strict"]) == 1
    assert f"failed: {POINTER}: not baked (strict)" in capsys.readouterr().out


def test_the_command_refuses_nodes_without_world_for_many_files(tmp_path, capsys):
    from animcore import cli

    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bake", str(FOX), str(BVH / "bvh_test2.bvh"), "--out", str(tmp_path),
                  "--nodes", "0"])
    assert exit_info.value.code == 2
    assert "bake: --nodes needs --world" in capsys.readouterr().err


@pytest.mark.parametrize("options, message", [
    (dict(fps=0.0), r"^bake: fps is 0\.0 \(must be a finite number > 0\)$"),
    (dict(fps="30x"), r"^bake: fps must be a real number, got '30x'$"),
    (dict(max_frames=0), r"^bake: max_frames is 0 \(must be an integer >= 1\)$"),
    (dict(format="json"), r"^bake: format is 'json' \(must be 'npz' or 'csv'\)$"),
    (dict(nodes=["fox"]), r"^bake: nodes needs world=True$"),
    (dict(world=True, nodes="fox"), r"^bake: nodes is 'fox' \(must be a non-empty list of "
                                    r"node names or indices\)$"),
    (dict(world=True, nodes=[]), r"^bake: nodes is \[\] \(must be a non-empty list"),
    (dict(root_motion=["hips"]), r"^bake: root_motion is \['hips'\] \(must be a joint name "
                                 r"or index\)$"),
])
def test_bad_options_are_refused_before_any_file_is_read(tmp_path, options, message):
    with pytest.raises(ValueError, match=message):
        bake.bake_local([tmp_path / "missing.gltf"], tmp_path / "out", **options)
    assert not (tmp_path / "out").exists()


def test_bvh_files_bake_with_the_outputs_and_rows_of_gltf_ones(tmp_path):
    from animcore import bvh

    rows = bake.bake_local([BVH, FOX], tmp_path, fps=24, workers=2)
    names = sorted(p.name for p in BVH.glob("*.bvh"))
    assert [pathlib.Path(r.file).name for r in rows] == names + ["Fox.glb"] * 3
    for row in rows[:len(names)]:
        (clip,) = bvh.load(row.file).clips
        expected = bake.bake([clip], 24)  # the channels sampled on the frame grid
        assert (row.clip, row.output) == (clip.name, f"bvh/{clip.name}.bvh/{clip.name}.npz")
        assert row.frames == len(bake.frame_times(clip.duration, 24))
        assert row.channels == len(clip.channels) and not row.error
        assert_same_bytes(tmp_path / row.output, expected)
    csv_rows = bake.bake_local([BVH / "bvh_test2.bvh"], tmp_path / "csv", fps=24, workers=1,
                               format="csv")
    header = (tmp_path / "csv" / csv_rows[0].output).read_text().splitlines()[0]
    assert header.startswith("clip,frame,time,Hips/translation/x,")


def test_a_malformed_bvh_file_is_one_failed_row(tmp_path):
    broken = tmp_path / "broken.bvh"
    broken.write_text("HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0\n")
    rows = bake.bake_local([broken, BVH / "bvh_test2.bvh"], tmp_path / "out", workers=1)
    assert rows[0].file == str(broken) and rows[0].output == ""
    assert rows[0].error.startswith(str(broken)) and rows[1].output and not rows[1].error


def test_a_usd_file_without_usd_core_is_a_failed_row_saying_how_to_install_it(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setitem(sys.modules, "pxr", None)  # as if usd-core were not installed
    rows = bake.bake_local([USD, FOX], tmp_path, workers=1, clip="Walk")
    assert rows[0] == bake.BakeRow(
        str(USD), "", 0, 0, "", "ImportError: animcore.usd needs OpenUSD's Python bindings: "
                                "pip install 'animcore[usd]' (the usd-core package)")
    assert rows[1].output == "gltf/Fox/Fox.glb/Walk.npz" and not rows[1].error


def test_a_usd_file_bakes_its_skeleton_animation(tmp_path):
    pytest.importorskip("pxr", reason="usd-core is not installed: pip install 'animcore[usd]'")
    from animcore import usd

    rows = bake.bake_local([USD], tmp_path, fps=24, workers=1)
    (clip,) = usd.load(USD).clips
    assert [(r.file, r.clip, r.output, r.error) for r in rows] == [
        (str(USD), clip.name, f"walker.usda/{clip.name}.npz", "")]
    assert_same_bytes(tmp_path / rows[0].output, bake.bake([clip], 24))
    world = bake.bake_local([USD], tmp_path / "world", fps=24, workers=1, world=True)
    assert_same_bytes(tmp_path / "world" / world[0].output,
                      single_file_bake(tmp_path, USD, clip.name, "--fps", "24", "--world"))


def test_a_usd_stage_without_a_skeleton_bakes_its_xform_ops_as_usd_evaluates_them(tmp_path):
    pytest.importorskip("pxr", reason="usd-core is not installed: pip install 'animcore[usd]'")
    import json

    from test_usd import usd_matrices

    from animcore import usd

    xforms = USD.parent / "xforms.usda"
    recorded = json.loads((USD.parent / "xforms_expected.json").read_text())
    # the folder holds a rigged and an unrigged stage: each bakes to its own file
    rows = bake.bake_local([USD.parent], tmp_path, fps=30, workers=1)
    assert sorted((r.file, r.clip, r.error) for r in rows) == [
        (str(USD), usd.load(USD).clips[0].name, ""), (str(xforms), "xforms", "")]
    (row,) = [r for r in rows if r.file == str(xforms)]
    with np.load(tmp_path / row.output) as saved:
        baked = {key: saved[key] for key in saved.files}
    # at 30 fps frame k is time code k (timeCodesPerSecond = 30), which USD recorded
    codes = np.array(recorded["time_codes"])
    frames = np.round(baked["xforms/time"] * recorded["time_codes_per_second"])
    rows_at = np.searchsorted(codes, frames)
    assert np.array_equal(codes[rows_at], frames) and frames[-1] == 40
    animated = {name: entry for name, entry in recorded["attributes"].items()
                if entry["time_samples"] or entry["spline"]}
    assert sorted(baked) == sorted(["xforms/time"] + [
        "xforms/" + name.replace(".", "/") for name in animated])
    for name, entry in animated.items():
        got = baked["xforms/" + name.replace(".", "/")]
        expected = np.array(entry["linear"])[rows_at]
        if entry["op_type"] == "TypeOrient":  # q and -q are the same rotation
            got = got * np.sign(np.sum(got * expected, axis=1))[:, None]
        if entry["op_type"] == "TypeTransform":  # USD's row-vector matrices
            expected = usd_matrices(expected.reshape(-1, 4, 4)).reshape(-1, 16)
        np.testing.assert_allclose(got, expected, rtol=0, atol=2e-6 * max(
            1.0, np.abs(expected).max()), err_msg=name)


def test_a_usd_stage_without_a_skeleton_has_no_rig_for_world_transforms(tmp_path):
    pytest.importorskip("pxr", reason="usd-core is not installed: pip install 'animcore[usd]'")
    xforms = USD.parent / "xforms.usda"
    (row,) = bake.bake_local([xforms], tmp_path, fps=30, workers=1, world=True)
    assert row.output == "" and str(xforms) in row.error
    assert "without a Skeleton has no rig for --world" in row.error


@pytest.mark.parametrize("files, workers", [(1260, 2), (7, 2), (1, 4), (500, 3), (0, 2)])
def test_tasks_shrink_towards_the_end_and_cover_every_file_once(files, workers):
    sizes = bake.batch_sizes(files, workers)
    assert sum(sizes) == files and all(1 <= s <= 50 for s in sizes)
    assert sizes == sorted(sizes, reverse=True)
    if files:
        assert sizes[-1] == 1 and sizes[0] == min(50, -(-files // (4 * workers)))
    names = [f"f{i}.gltf" for i in range(files)]
    work = bake.batches(names, names, sizes)
    assert [len(jobs) for jobs in work] == sizes
    assert [file for jobs in work for file, _, _ in jobs] == names
    assert [len(jobs) for jobs in bake.batches(names, names, 4)] == \
        [4] * (files // 4) + [files % 4] * (files % 4 > 0)


def test_one_usd_file_without_usd_core_is_a_usage_error_saying_how_to_install_it(
        monkeypatch, capsys):
    from animcore import cli

    monkeypatch.setitem(sys.modules, "pxr", None)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bake", str(USD)])
    assert exit_info.value.code == 2
    assert "bake: animcore.usd needs OpenUSD's Python bindings: pip install 'animcore[usd]'" \
        in capsys.readouterr().err


BOMB = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 3 Xposition Yposition Zposition
}
MOTION
Frames: 2
Frame Time: 3333333
0 0 0
1 1 1
"""


def test_a_frame_grid_the_input_does_not_justify_is_refused_before_allocating(tmp_path, capsys):
    import tracemalloc
    from animcore import bvh
    path = tmp_path / "bomb.bvh"
    path.write_text(BOMB)
    clips = list(bvh.load(path).clips)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"bake: clip 'bomb': 3\.33333e\+06 s at fps=30 would "
                                             r"be 1e\+08 frames, more than its 2 key\(s\) and "
                                             r"max_frames=1,000,000 justify"):
            bake.bake(clips, 30.0)
        assert tracemalloc.get_traced_memory()[1] < 10**7
    finally:
        tracemalloc.stop()
    # raisable: a larger limit bakes (here at a rate that keeps the test small)
    assert len(bake.bake(clips, 1e-3, max_frames=5000)["bomb/time"]) == 3335
    with pytest.raises(ValueError, match=r"bake: max_frames is 0 \(must be an integer >= 1\)"):
        bake.bake(clips, 30.0, max_frames=0)
    # the command line and the many-file bake refuse it the same way
    status, stderr = refused(capsys, path, "--out", tmp_path / "o.npz")
    assert status == 2 and "would be 1e+08 frames" in stderr and "Traceback" not in stderr
    rows = bake.bake_local([path], tmp_path / "out", workers=1)
    assert rows[0].error.startswith("bake: clip 'bomb': ") and not rows[0].output
    rows = bake.bake_local([path], tmp_path / "out", workers=1, fps=1e-3, max_frames=5000)
    assert not rows[0].error and rows[0].frames == 3335


def test_a_double_star_glob_over_self_links_ends_and_bakes_each_real_file_once(tmp_path):
    folder = tmp_path / "clips"
    (folder / "deep").mkdir(parents=True)
    shutil.copy(DATA / "Fox" / "Fox.glb", folder / "deep")
    for name in ("self1", "self2"):
        os.symlink(".", folder / name)
    os.symlink("..", folder / "deep" / "up")
    files = bake.expand_inputs([str(folder / "**" / "*.glb")])
    assert files == [str(folder / "deep" / "Fox.glb")]
