"""Baking many files without Dask: `python -m animcore bake FILES... --out DIR
--workers N`, one output per clip written atomically, and the manifest."""
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from animcore import bake, gltf

DATA = pathlib.Path(__file__).resolve().parent / "data" / "gltf"
ROOT = str(pathlib.Path(__file__).resolve().parent.parent)


def run(*args):
    return subprocess.run([sys.executable, "-m", "animcore", "bake", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


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
    assert sorted(os.listdir(out)) == sorted([r.output for r in rows[:-1]] + ["manifest.csv"])
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
    assert [r.output for r in rows] == ["Animation_Node_00.animation0.npz",
                                        "Animation_Node_00-2.animation0.npz"]


def test_a_pattern_that_matches_nothing_is_a_failed_row(tmp_path):
    rows = bake.bake_local([tmp_path / "none*.gltf"], tmp_path / "out", workers=1)
    assert len(rows) == 1 and "No such file" in rows[0].error


def test_several_inputs_need_an_output_folder(tmp_path):
    result = run(DATA / "Fox" / "Fox.glb", DATA / "Animation_Node" / "Animation_Node_00.gltf")
    assert result.returncode == 2
    assert "bake: several inputs (or --workers, --scheduler) need --out DIR" in result.stderr


def test_an_output_file_for_several_inputs_is_refused(tmp_path):
    result = run(DATA / "Fox" / "Fox.glb", DATA / "Animation_Node" / "Animation_Node_00.gltf",
                 "--out", tmp_path / "all.npz")
    assert result.returncode == 2 and "need --out DIR" in result.stderr


def test_an_output_folder_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "taken").write_text("")
    result = run(DATA / "Fox" / "Fox.glb", "--workers", 1, "--out", tmp_path / "taken")
    assert result.returncode == 2
    assert f"bake: --out {str(tmp_path / 'taken')!r} exists and is not a folder" in result.stderr


def test_zero_workers_is_refused(tmp_path):
    result = run(DATA / "Fox" / "Fox.glb", "--workers", 0, "--out", tmp_path)
    assert result.returncode == 2 and "bake: --workers is 0 (must be >= 1)" in result.stderr


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
