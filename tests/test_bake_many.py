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


def run(*args):
    # from the tests' folder: run from a source tree whose extension is not
    # built in place (an sdist's), `python -m` would import that tree
    return subprocess.run([sys.executable, "-m", "animcore", "bake", *map(str, args)],
                          capture_output=True, text=True, cwd=DATA.parent.parent, timeout=120)


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
    # the line names the file once (the manifest's error starts with it)
    assert f"failed: {folder / 'broken.glb'}: {rows[-1].error[len(str(folder / 'broken.glb')) + 2:]}\n" \
        in result.stdout
    assert result.stdout.count(str(folder / "broken.glb")) == 1
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
    assert_same_bytes(target, bake.bake([walk], 30.0))  # the default rate: 30 fps


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
    assert "bake: error: several inputs (or --workers, --scheduler) need --out DIR" in stderr


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
    assert f"bake: error: --out {str(tmp_path / 'taken')!r} exists and is not a folder" \
        in stderr


def test_workers_start_forked_before_python_3_12_and_from_a_fork_server_after():
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods:
        assert bake.start_method((3, 11)) == "fork"
    if "forkserver" in methods:  # (3.12+ warns that a fork of a process with threads may deadlock)
        assert bake.start_method((3, 12)) == bake.start_method((3, 14)) == "forkserver"


def test_workers_started_from_a_fork_server_bake_as_this_process(tmp_path, monkeypatch):
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork server on this platform")
    monkeypatch.setattr(bake, "start_method", lambda: "forkserver")  # (Python 3.12+'s choice)
    from multiprocessing import forkserver

    # the application's preload list is its own: the bake leaves it as it is
    monkeypatch.setattr(forkserver._forkserver, "_preload_modules", ["__main__", "json"])
    source = DATA / "Fox" / "Fox.glb"
    inputs = [tmp_path / "a.glb", tmp_path / "b.glb"]  # two files: two processes
    for path in inputs:
        shutil.copy(source, path)
    out = tmp_path / "out"
    rows = bake.bake_local([str(p) for p in inputs], str(out), fps=10, workers=2)
    assert [r.clip for r in rows] == ["Survey", "Walk", "Run"] * 2
    assert not any(r.error for r in rows)
    for row, clip in zip(rows, gltf.load(source) * 2):
        expected = bake.bake([clip], 10)
        with np.load(out / row.output) as saved:
            for key in expected:
                np.testing.assert_array_equal(saved[key], expected[key])
    assert forkserver._forkserver._preload_modules == ["__main__", "json"]


def test_zero_workers_is_refused(tmp_path, capsys):
    status, stderr = refused(capsys, DATA / "Fox" / "Fox.glb", "--workers", 0, "--out", tmp_path)
    assert status == 2 and "bake: error: --workers is 0 (must be >= 1)" in stderr
    assert list(tmp_path.iterdir()) == []


def test_zero_workers_is_refused_by_the_function(tmp_path):
    with pytest.raises(ValueError, match=r"^bake: workers is 0 \(must be >= 1\)$"):
        bake.bake_local([DATA], tmp_path, workers=0)
    for workers in (np.nan, "2", 2.5):
        with pytest.raises(ValueError, match=r"^bake: workers must be an integer"):
            bake.bake_local([DATA], tmp_path, workers=workers)
    with pytest.raises(ValueError, match=r"^bake: nodes is 3.0 \(must be a non-empty list"):
        bake.bake_local([DATA], tmp_path, world=True, nodes=3.0)
    with pytest.raises(ValueError, match=r"^bake: format is array"):
        bake.bake_local([DATA], tmp_path, format=np.array(["npz", "csv"]))
    assert list(tmp_path.iterdir()) == []


def test_no_more_processes_than_batches(tmp_path, monkeypatch):
    """workers=2**40 on one file starts one process, not 2**40 (each a fork)."""
    import concurrent.futures
    started = []

    class Counted(concurrent.futures.ProcessPoolExecutor):
        def __init__(self, workers, **kwargs):
            started.append(workers)
            super().__init__(workers, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Counted)
    rows = bake.bake_local([DATA / "Fox" / "Fox.glb"], tmp_path, workers=2**40)
    assert started == [] and [r.error for r in rows] == ["", "", ""]
    rows = bake.bake_local([DATA / "Fox" / "Fox.glb", DATA / "SimpleSkin" / "SimpleSkin.gltf"],
                           tmp_path / "two", workers=2**40)
    assert started == [2] and not any(r.error for r in rows)


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
    assert "bake: error: --nodes needs --world" in capsys.readouterr().err


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


def test_one_usd_file_without_usd_core_is_an_error_saying_how_to_install_it(
        monkeypatch, capsys):
    from animcore import cli

    monkeypatch.setitem(sys.modules, "pxr", None)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bake", str(USD)])
    assert exit_info.value.code == 1
    assert capsys.readouterr().err.startswith(
        "python -m animcore bake: error: animcore.usd needs OpenUSD's Python bindings: pip "
        "install 'animcore[usd]'")


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
    assert status == 1 and "would be 1e+08 frames" in stderr and "Traceback" not in stderr
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


def test_globs_give_files_and_a_final_double_star_every_file_below(tmp_path):
    folder = tmp_path / "clips"
    (folder / "sub" / "deeper").mkdir(parents=True)
    for place in (folder, folder / "sub", folder / "sub" / "deeper"):
        shutil.copy(DATA / "Fox" / "Fox.glb", place)
    everything = [str(folder / "Fox.glb"), str(folder / "sub" / "Fox.glb"),
                  str(folder / "sub" / "deeper" / "Fox.glb")]
    assert bake.expand_inputs([str(folder / "**")]) == everything
    # a folder a pattern matches is no input (it was a failed row: IsADirectoryError)
    assert bake.expand_inputs([str(folder / "*")]) == everything[:1]


def test_a_file_whose_name_reads_as_a_pattern_is_that_file(tmp_path):
    # take[1].glb once baked take1.glb, the other file its name matches as a glob
    literal = tmp_path / "take[1].glb"
    shutil.copy(DATA / "Fox" / "Fox.glb", literal)
    shutil.copy(DATA / "Fox" / "Fox.glb", tmp_path / "take1.glb")
    assert bake.expand_inputs([str(literal)]) == [str(literal)]
    # a pattern still matches when no file has its name
    assert bake.expand_inputs([str(tmp_path / "take[12].glb")]) == [str(tmp_path / "take1.glb")]


# -- one bad file never fails a batch ---------------------------------------------

def tiny_clip_file(path, clips, nodes=("n",)):
    """A .gltf file whose clip ``name`` moves node ``nodes[node]`` from x = v
    (t = 0) to x = v + 1 (t = 1), linearly, for each ``name: (node, v)``:
    baked at 2 fps, x is v, v + 0.5, v + 1."""
    from gltf_writer import Builder

    b = Builder()
    indices = [b.node(name) for name in nodes]
    for name, (node, v) in clips.items():
        b.animation([(indices[node], "translation", [0.0, 1.0],
                      [[v, 0.0, 0.0], [v + 1.0, 0.0, 0.0]], "LINEAR")], name=name)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return b.write_gltf(path)


def moved(v):
    """What a clip of tiny_clip_file bakes to at 2 fps: its translation."""
    return np.array([[v, 0.0, 0.0], [v + 0.5, 0.0, 0.0], [v + 1.0, 0.0, 0.0]])


RAISED = {"recursion": RecursionError("maximum recursion depth exceeded"),
          "attribute": AttributeError("'dict' object has no attribute 'clips'"),
          "type": TypeError("unhashable type: 'list'"),
          "key": KeyError("accessors")}


def raising_reader(original):
    """load_input, except for files named after a RAISED entry, for which it
    raises that exception (and for "tf" USD's own error, where usd-core is
    installed), as a reader with a bug would."""
    def load_input(path, **options):
        stem = pathlib.Path(str(path)).stem
        if stem in RAISED:
            raise RAISED[stem]
        if stem == "tf":
            from pxr import Tf
            Tf.RaiseRuntimeError("a stage USD cannot compose")
        return original(path, **options)
    return load_input


def library_with_bad_files(folder):
    """Good files, real malformed ones and files the raising reader refuses."""
    tiny_clip_file(folder / "good1.gltf", {"c": (0, 1.0)})
    for stem in [*RAISED, "tf"]:
        tiny_clip_file(folder / f"{stem}.gltf", {"c": (0, 2.0)})
    (folder / "broken.glb").write_bytes(b"glTF\x02\x00\x00\x00\x0c\x00\x00\x00")
    (folder / "broken.bvh").write_text("HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0\n")
    tiny_clip_file(folder / "good2.gltf", {"c": (0, 3.0)})


def assert_bad_files_are_rows(rows, folder, out):
    by_file = {pathlib.Path(r.file).name: r for r in rows}
    assert len(by_file) == len(rows) == 4 + len(RAISED) + 1
    for stem, error in RAISED.items():
        row = by_file[f"{stem}.gltf"]
        assert (row.clip, row.output) == ("", "")
        assert row.error == f"{type(error).__name__}: {error}"
    tf = by_file["tf.gltf"].error
    try:
        import pxr  # noqa: F401
        assert tf.startswith("ErrorException: ") and "a stage USD cannot compose" in tf
    except ImportError:
        assert tf == "ModuleNotFoundError: No module named 'pxr'"
    assert by_file["broken.glb"].error.startswith(f"{folder / 'broken.glb'}: GLB")
    assert by_file["broken.bvh"].error.startswith(f"{folder / 'broken.bvh'}:4: ")
    for name, v in (("good1.gltf", 1.0), ("good2.gltf", 3.0)):
        row = by_file[name]
        assert not row.error and row.output == f"{name}/c.npz"
        with np.load(out / row.output) as saved:
            np.testing.assert_array_equal(saved["c/n/translation"], moved(v))
    assert bake.read_manifest(out) == rows


def test_any_exception_a_file_raises_is_its_row_and_the_batch_goes_on(tmp_path, monkeypatch):
    folder = tmp_path / "lib"
    library_with_bad_files(folder)
    monkeypatch.setattr(bake, "load_input", raising_reader(bake.load_input))
    rows = bake.bake_local([folder], tmp_path / "out", fps=2, workers=1)
    assert_bad_files_are_rows(rows, folder, tmp_path / "out")
    # the command reports them and exits 1
    status = cli.main(["bake", str(folder), "--out", str(tmp_path / "cli"), "--fps", "2",
                       "--workers", "1", "--progress", "never"])
    assert status == 1 and bake.read_manifest(tmp_path / "cli") == rows


def test_a_clip_that_raises_is_its_row_and_the_files_other_clips_are_baked(tmp_path,
                                                                           monkeypatch):
    tiny_clip_file(tmp_path / "two.gltf", {"walk": (0, 1.0), "run": (0, 5.0)})
    original = bake.bake_clips

    def bake_clips(scene, clips, *args, **kwargs):
        if clips[0].name == "walk":
            raise TypeError("cannot bake this")
        return original(scene, clips, *args, **kwargs)

    monkeypatch.setattr(bake, "bake_clips", bake_clips)
    rows = bake.bake_local([tmp_path / "two.gltf"], tmp_path / "out", fps=2, workers=1)
    assert [(r.clip, r.output, r.error) for r in rows] == [
        ("walk", "", "TypeError: cannot bake this"), ("run", "two.gltf/run.npz", "")]
    with np.load(tmp_path / "out" / "two.gltf" / "run.npz") as saved:
        np.testing.assert_array_equal(saved["run/n/translation"], moved(5.0))


@pytest.mark.parametrize("stop", [MemoryError, KeyboardInterrupt, SystemExit])
def test_the_process_own_failures_stop_the_run(tmp_path, monkeypatch, stop):
    tiny_clip_file(tmp_path / "a.gltf", {"c": (0, 1.0)})

    def load_input(path, **options):
        raise stop()

    monkeypatch.setattr(bake, "load_input", load_input)
    with pytest.raises(stop):
        bake.bake_local([tmp_path / "a.gltf"], tmp_path / "out", workers=1)
    assert not (tmp_path / "out" / bake.MANIFEST).exists()


# -- names that cannot collide -----------------------------------------------------

def test_keys_of_names_with_slashes_and_control_characters_never_collide(tmp_path):
    # clip "c" moves node "n/x"; clip "c/n" moves node "x": both were "c/n/x/translation"
    path = tiny_clip_file(tmp_path / "slash.gltf", {"c": (0, 1.0), "c/n": (1, 2.0)},
                          nodes=("n/x", "x"))
    arrays = bake.bake(gltf.load(path), 2)
    assert sorted(arrays) == ["c%2Fn/time", "c%2Fn/x/translation", "c/n/x/translation",
                              "c/time"]
    np.testing.assert_array_equal(arrays["c/n/x/translation"], moved(1.0))
    np.testing.assert_array_equal(arrays["c%2Fn/x/translation"], moved(2.0))
    # a NUL ends a zip member's name: "a\0b" and "a\0c" were both members "a/..."
    names = {"a\0b": 1.0, "a\0c": 2.0, "a%00b": 3.0, "tab\there": 4.0, "line\nfeed": 5.0,
             "back\\slash": 6.0, "%": 7.0}
    path = tiny_clip_file(tmp_path / "odd.gltf", {n: (0, v) for n, v in names.items()},
                          nodes=("node\0/%",))
    arrays = bake.bake(gltf.load(path), 2)
    bake.write_npz(tmp_path / "odd.npz", arrays)
    expected = {"a%00b": 1.0, "a%00c": 2.0, "a%2500b": 3.0, "tab%09here": 4.0,
                "line%0Afeed": 5.0, "back%5Cslash": 6.0, "%25": 7.0}
    with np.load(tmp_path / "odd.npz") as saved:
        assert sorted(saved.files) == sorted(
            [f"{c}/time" for c in expected] + [f"{c}/node%00/%25/translation" for c in expected])
        for clip, v in expected.items():
            np.testing.assert_array_equal(saved[f"{clip}/node%00/%25/translation"], moved(v))
    for key in arrays:
        clip, target, path = bake.split_key(key)
        assert clip in names and target in (None, "node\0/%")
        assert bake.array_key(clip, target, path) == key


@pytest.mark.parametrize("names", [
    ["c", "c/n", "n/x", "x", "time"], ["%", "%25", "%2F", "/", ""], ["\0", "\x00\x00", "\ud800", "a\\b"],
])
def test_array_keys_are_distinct_for_every_combination_of_names(names):
    combos = [(c, t, p) for c in names for t in [None, *names] for p in names
              if t is not None or p == "time"]
    keys = [bake.array_key(*combo) for combo in combos]
    assert len(set(keys)) == len(keys)
    assert all("\0" not in key and "\\" not in key for key in keys)
    assert [bake.split_key(key) for key in keys] == combos


def test_output_files_never_collide(tmp_path):
    lib = tmp_path / "lib"
    # x/a and y/a were a and a-2, the latter also the name of a real a-2
    tiny_clip_file(lib / "x" / "a.gltf", {"c": (0, 1.0)})
    tiny_clip_file(lib / "y" / "a.gltf", {"c": (0, 2.0)})
    tiny_clip_file(lib / "x" / "a-2.gltf", {"c": (0, 3.0)})
    # p.q + clip r and p + clip q.r were both p.q.r.npz
    tiny_clip_file(lib / "p.q.gltf", {"r": (0, 4.0)})
    tiny_clip_file(lib / "p.gltf", {"q.r": (0, 5.0)})
    # clip names that differ in case only, or hold separators, or name a device
    tiny_clip_file(lib / "odd.gltf", {"Walk": (0, 6.0), "walk": (0, 7.0), "../up": (0, 8.0),
                                      ".hidden": (0, 9.0), "CON": (0, 10.0), "a:b?": (0, 11.0),
                                      "%": (0, 13.0)})
    rows = bake.bake_local([lib / "**" / "*.gltf"], tmp_path / "out", fps=2, workers=1)
    expected = {("x/a.gltf", "c"): ("x/a.gltf/c.npz", 1.0),
                ("y/a.gltf", "c"): ("y/a.gltf/c.npz", 2.0),
                ("x/a-2.gltf", "c"): ("x/a-2.gltf/c.npz", 3.0),
                ("p.q.gltf", "r"): ("p.q.gltf/r.npz", 4.0),
                ("p.gltf", "q.r"): ("p.gltf/q.r.npz", 5.0),
                ("odd.gltf", "Walk"): ("odd.gltf/Walk.npz", 6.0),
                ("odd.gltf", "walk"): ("odd.gltf/walk.1.npz", 7.0),
                ("odd.gltf", "../up"): ("odd.gltf/%2E.%2Fup.npz", 8.0),
                ("odd.gltf", ".hidden"): ("odd.gltf/%2Ehidden.npz", 9.0),
                ("odd.gltf", "CON"): ("odd.gltf/%43ON.npz", 10.0),
                ("odd.gltf", "a:b?"): ("odd.gltf/a%3Ab%3F.npz", 11.0),
                ("odd.gltf", "%"): ("odd.gltf/%25.npz", 13.0)}
    got = {(pathlib.Path(r.file).relative_to(lib).as_posix(), r.clip): r for r in rows}
    assert {k: r.output for k, r in got.items()} == {k: o for k, (o, _) in expected.items()}
    assert files_below(tmp_path / "out") == sorted(
        [o for o, _ in expected.values()] + ["keys.csv", "manifest.csv"])
    for (file, clip), (output, v) in expected.items():
        with np.load(tmp_path / "out" / output) as saved:
            key = clip.replace("%", "%25").replace("/", "%2F")
            np.testing.assert_array_equal(saved[f"{key}/n/translation"], moved(v))
    # a name no reader gives (glTF names an unnamed animation "animation<i>")
    assert bake.output_name("") == "%" and bake.output_name("%") == "%25"


def test_the_manifest_says_which_name_went_to_which_output_and_key(tmp_path):
    import csv

    path = tiny_clip_file(tmp_path / "in" / "f.gltf", {"c/n": (0, 1.0), "c": (1, 2.0)},
                          nodes=("x", "n/x"))
    bake.bake_local([path], tmp_path / "out", fps=2, workers=1)
    with open(tmp_path / "out" / "keys.csv", newline="") as handle:
        table = list(csv.reader(handle))
    assert table == [["file", "clip", "node", "path", "output", "key"],
                     [str(path), "c/n", "", "time", "f.gltf/c%2Fn.npz", "c%2Fn/time"],
                     [str(path), "c/n", "x", "translation", "f.gltf/c%2Fn.npz",
                      "c%2Fn/x/translation"],
                     [str(path), "c", "", "time", "f.gltf/c.npz", "c/time"],
                     [str(path), "c", "n/x", "translation", "f.gltf/c.npz",
                      "c/n/x/translation"]]
    for _, clip, node, _, output, key in table[1:]:
        with np.load(tmp_path / "out" / output) as saved:
            assert key in saved.files
    # the CSV layout: the columns are named by the same rule
    rows = bake.bake_local([path], tmp_path / "csv", fps=2, workers=1, format="csv")
    assert [r.keys for r in rows] == [(("", "time", "time"), ("x", "translation", "x/translation")),
                                      (("", "time", "time"),
                                       ("n/x", "translation", "n/x/translation"))]
    lines = (tmp_path / "csv" / "f.gltf" / "c%2Fn.csv").read_text().splitlines()
    assert lines[0] == "clip,frame,time,x/translation/x,x/translation/y,x/translation/z"
    assert lines[1] == "c%2Fn,0,0.0,1.0,0.0,0.0"


def test_world_keys_of_nodes_sharing_a_name_are_their_indices(tmp_path):
    path = tiny_clip_file(tmp_path / "twins.gltf", {"c": (0, 1.0)}, nodes=("b", "b", "2"))
    rows = bake.bake_local([path], tmp_path / "out", fps=2, workers=1, world=True)
    with np.load(tmp_path / "out" / rows[0].output) as saved:
        assert sorted(saved.files) == ["c/0/world_rotation", "c/0/world_scale",
                                       "c/0/world_translation", "c/1/world_rotation",
                                       "c/1/world_scale", "c/1/world_translation",
                                       "c/2/world_rotation", "c/2/world_scale",
                                       "c/2/world_translation", "c/time"]
        np.testing.assert_array_equal(saved["c/0/world_translation"], moved(1.0))
        np.testing.assert_array_equal(saved["c/1/world_translation"], np.zeros((3, 3)))


# -- progress ----------------------------------------------------------------------

def test_a_progress_callable_is_called_a_bounded_number_of_times_and_at_the_end(tmp_path):
    files = 600
    for i in range(files):
        tiny_clip_file(tmp_path / "lib" / f"f{i:03d}.gltf", {"c": (0, float(i))})
    calls = []
    rows = bake.bake_local([tmp_path / "lib"], tmp_path / "out", fps=2, workers=1,
                           progress=lambda done, total: calls.append((done, total)))
    assert len(rows) == files and not any(r.error for r in rows)
    assert calls[-1] == (files, files) and calls.count((files, files)) == 1
    assert 10 <= len(calls) <= 201  # some progress, at most a few hundred reports
    assert all(total == files for _, total in calls)
    assert [done for done, _ in calls] == sorted({done for done, _ in calls})


def test_bake_reports_progress_in_channel_frames_to_a_callable(tmp_path):
    path = tiny_clip_file(tmp_path / "a.gltf", {"c": (0, 1.0)})
    calls = []
    bake.bake(gltf.load(path), 2, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(3, 3)]
    calls = []
    bake.bake([], 2, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 0)]  # an empty job still ends


def test_progress_bars_redraw_a_bounded_number_of_times():
    import io

    stream = io.StringIO()
    bar = bake.Progress(100_000, "always", stream, unit="files")
    for _ in range(100_000):
        bar.update(1)
    bar.close()
    text = stream.getvalue()
    assert text.count("\r") <= bake.Progress.STEPS + 1
    assert text.endswith("] 100% (100000/100000 files)\n")


def test_auto_progress_uses_tqdm_when_installed_and_a_plain_bar_otherwise(monkeypatch):
    import io
    import types

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    made = []

    class FakeTqdm:  # records how it is driven
        def __init__(self, **options):
            self.options, self.updates, self.closed = options, [], False
            made.append(self)

        def update(self, n):
            self.updates.append(n)

        def close(self):
            self.closed = True

    monkeypatch.setitem(sys.modules, "tqdm.auto", types.SimpleNamespace(tqdm=FakeTqdm))
    bar = bake.Progress(1000, "auto", Terminal(), unit="files")
    for _ in range(1000):
        bar.update(1)
    bar.close()
    (fake,) = made
    assert fake.options["total"] == 1000 and fake.closed and sum(fake.updates) == 1000
    assert len(fake.updates) <= bake.Progress.STEPS + 1
    # off a terminal (a log file, a pipe) and outside a notebook: no bar
    bake.Progress(10, "auto", io.StringIO()).close()
    assert len(made) == 1
    # without tqdm: the plain bar, on a terminal only
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    terminal = Terminal()
    bar = bake.Progress(10, "auto", terminal, unit="files")
    bar.update(10)
    bar.close()
    assert terminal.getvalue() == ""  # a job shorter than 0.5 s shows nothing
    bar = bake.Progress(10, "auto", terminal, unit="files")
    bar.start -= 1.0  # as if it had run a second
    bar.drawn -= 1.0
    bar.update(10)
    bar.close()
    assert terminal.getvalue().endswith("] 100% (10/10 files)\n")


def test_auto_progress_draws_a_real_tqdm_bar_on_a_terminal():
    pytest.importorskip("tqdm", reason="tqdm is not installed (progress falls back to a "
                                       "plain bar)")
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    import time

    quick = Terminal()
    bar = bake.Progress(500, "auto", quick, label="bake", unit="files")
    for _ in range(500):
        bar.update(1)
    bar.close()
    assert quick.getvalue() == ""  # a job shorter than 0.5 s shows no bar
    terminal = Terminal()
    bar = bake.Progress(500, "auto", terminal, label="bake", unit="files")
    for i in range(500):
        bar.update(1)
        if i == 250:
            time.sleep(0.6)
    bar.close()
    text = terminal.getvalue()
    assert "bake: 100%" in text and "500/500" in text
    assert text.count("\r") <= bake.Progress.STEPS + 2


def test_a_bad_progress_is_refused_before_any_file_is_read(tmp_path):
    with pytest.raises(ValueError, match=r"^bake: progress is 'sometimes' \(must be 'auto', "
                                         r"'always', 'never' or a callable"):
        bake.bake_local([tmp_path / "missing.gltf"], tmp_path / "out", progress="sometimes")
    assert not (tmp_path / "out").exists()
