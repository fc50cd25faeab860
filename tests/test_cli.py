import csv
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import animcore
from animcore import bake, bench, cli, demo, gltf

from gltf_writer import Builder

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run(*args, **kwargs):
    """`python -m animcore ARGS` on this checkout's package."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(pathlib.Path(animcore.__file__).resolve().parent.parent),
                      os.environ.get("PYTHONPATH")])))
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([sys.executable, "-m", "animcore", *map(str, args)],
                          text=True, env=env, **kwargs)


def in_process(capsys, *args):
    """The exit status, stdout and stderr of `python -m animcore ARGS` run in
    this process, for what the command answers before it does any work (the
    tests that run it as a program cover the program itself)."""
    try:
        status = cli.main(list(map(str, args)), prog="python -m animcore")
    except SystemExit as stop:
        status = stop.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def refused(capsys, *args):
    """The exit status and stderr of `python -m animcore ARGS` for options the
    parser refuses."""
    status, _, err = in_process(capsys, *args)
    return status, err


def test_demo_prints_the_reference_values():
    lines = []
    demo.run(write=lines.append)
    text = "\n".join(lines)
    assert "hermite T=2 p=(0,10) v=(2,0): x(1)=5.5 v(0)=2 v(1)=7 | without xT: x(1)=5.25 v(0)=1" in text
    assert "x(0.5)=2 " in text


def test_python_m_animcore_demo():
    result = subprocess.run([sys.executable, "-m", "animcore", "demo"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "x(1)=5.5" in result.stdout


def test_bench_runs_every_case_at_small_scale():
    # Speed is reported by `python -m animcore bench`, not asserted here: this
    # only checks that every case runs and compares against its baseline.
    lines = []
    results = bench.run(scale=1e-4, repeats=1, write=lines.append)
    skipped = [line for line in lines if " skipped: " in line]  # a peer library absent
    # (or, outside a clone, the repository's files a case reads)
    ran = {r.kernel.split()[0] for r in results} | {line.split()[0] for line in skipped}
    assert ran >= set(bench.CASES)
    assert all(r.seconds > 0 and r.baseline_seconds > 0 for r in results)
    budgets = [line for line in lines if "| budget " in line]  # absolute time budgets
    assert budgets and all(" ms " in line for line in budgets)
    memory = [line for line in lines if " peak " in line and " MB |" in line]  # peak memory
    assert memory and all("target <= " in line for line in memory)
    assert len(lines) == len(results) + len(skipped) + len(budgets) + len(memory) + 1


def test_bench_rejects_unknown_case(capsys):
    status, stderr = refused(capsys, "bench", "nope")
    assert status == 2 and "unknown case" in stderr


def test_readme_example_prints_what_its_comments_say():
    import contextlib
    import io
    import pathlib
    import re

    readme = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {})
    # "print(...)  # 5.5 2.0   (a naive ...)": the numbers before any "(" or ":"
    claimed = [re.findall(r"-?\d+(?:\.\d+)?", re.split(r"[(:]", line.split("#")[1])[0])
               for line in code.splitlines() if line.startswith("print(")]
    shown = [line.split() for line in printed.getvalue().splitlines()]
    assert len(shown) == len(claimed)
    for got, want in zip(shown, claimed):
        for g, w in zip(got, want):
            assert float(g) == pytest.approx(float(w), abs=1e-12)


def test_version(capsys):
    status, stdout, _ = in_process(capsys, "--version")
    assert status == 0
    tomllib = pytest.importorskip("tomllib")
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert stdout.strip() == f"python -m animcore {version}" == \
        f"python -m animcore {animcore.__version__}"


def test_console_script_names_itself_animcore(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["/usr/local/bin/animcore", "--help"])
    with pytest.raises(SystemExit) as exit:
        cli.main()
    assert exit.value.code == 0
    assert capsys.readouterr().out.startswith("usage: animcore ")
    tomllib = pytest.importorskip("tomllib")
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"animcore": "animcore.cli:main"}


@pytest.mark.parametrize("args, message", [
    (["bake", "--out", "x.json"], "--out must end in .npz or .csv, got 'x.json'"),
    (["bake", "--fps", "fast"], "argument --fps: invalid float value: 'fast'"),
    (["bake", "--fps", "0"], "fps is 0.0 (must be a finite number > 0)"),
    (["bake", "--nodes", "hips"], "--nodes needs --world"),
])
def test_bake_argument_errors_show_the_bake_usage(args, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, stderr = refused(capsys, *args)
    assert status == 2
    assert stderr.startswith("usage: python -m animcore bake ")
    assert stderr.endswith(f"\npython -m animcore bake: error: {message}\n")


@pytest.mark.parametrize("args, message", [
    (["--clip", "run"], "no clip named 'run' (available: 'walk', 'blink')"),
    (["missing.glb"], "[Errno 2] No such file or directory: 'missing.glb'"),
    (["--world", "--nodes", "nope"], "--nodes: Scene.node_index: node 'nope' not in the scene; "
                                     "its nodes are 'root', 'hips', 'spine', 'hand', 'face'"),
    (["--root-motion", "nope"], "--root-motion: extract_root_motion: joint 'nope' not in the "
                                "scene; its nodes are 'root', 'hips', 'spine', 'hand', 'face'"),
    (["empty"], "'empty' holds no file to bake (.gltf, .glb, .bvh, .fbx, .usd, .usda, .usdc, "
                ".usdz)"),
    (["empty", "--out", "baked"], "'empty' holds no file to bake (.gltf, .glb, .bvh, .fbx, "
                                  ".usd, .usda, .usdc, .usdz)"),
])
def test_bake_data_errors_are_one_line_without_the_usage(args, message, tmp_path, capsys,
                                                         monkeypatch):
    # the options are right; the file (the built-in sample here) does not fit them
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    status, stderr = refused(capsys, "bake", *args)
    assert (status, stderr) == (1, f"python -m animcore bake: error: {message}\n")


def test_a_folder_or_pattern_holding_one_file_bakes_as_that_file(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "one").mkdir()
    shutil.copy(gltf.sample_path(), tmp_path / "one" / "walk.gltf")
    status, direct, _ = in_process(capsys, "bake", "one/walk.gltf")
    assert status == 0 and direct.startswith("one/walk.gltf at 30 fps")
    for given in ("one", "one/*.gltf"):
        assert in_process(capsys, "bake", given) == (0, direct, "")
    assert in_process(capsys, "bake", "one", "--out", "one.npz")[0] == 0
    with np.load(tmp_path / "one.npz") as saved:
        assert "walk/time" in saved.files
    # an output folder still asks for the many-file layout
    assert in_process(capsys, "bake", "one", "--out", "baked")[0] == 0
    assert (tmp_path / "baked" / "manifest.csv").exists()


@pytest.mark.parametrize("command", [["demo"], ["bake"], ["bench", "--list"]])
def test_closed_pipe_ends_quietly(command):
    # `animcore demo | head -1`, made deterministic: the reader is gone before we write
    read, write = os.pipe()
    os.close(read)
    try:
        result = run(*command, stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert result.stderr == ""
    assert result.returncode == 1  # what CPython itself exits with on EPIPE


def test_bake_checks_the_frame_count_before_allocating(tmp_path, capsys):
    status, _, stderr = in_process(capsys, "bake", "--fps", "1e9", "--out", tmp_path / "o.npz")
    assert status == 1
    assert ("python -m animcore bake: error: clip 'walk': 1.5 s at fps=1e+09 would be 1.5e+09 frames, more than its "
            "4 key(s) and max_frames=1,000,000 justify") in stderr
    assert "Traceback" not in stderr and not (tmp_path / "o.npz").exists()


@pytest.mark.parametrize("fps", [1e9, 1e308])
def test_frame_times_refuses_huge_grids(fps):
    with pytest.raises(ValueError, match=r"^frame_times: 2 s at fps=1e\+\d+ would be (2e\+\d+|inf) frames "
                                         r"\(at most 100,000,000 per clip; lower the fps\)"):
        bake.frame_times(2.0, fps)
    assert len(bake.frame_times(2.0, bake.MAX_FRAMES / 2.0 / 1000)) == 100_001


@pytest.mark.parametrize("args, message", [
    (["--repeats", "0"], "argument --repeats: 0 (must be an integer >= 1)"),
    (["--repeats", "-3"], "argument --repeats: -3 (must be an integer >= 1)"),
    (["--repeats", "2.5"], "argument --repeats: '2.5' is not an integer"),
    (["--scale", "nan"], "argument --scale: nan (must be a finite number > 0)"),
    (["--scale", "-1"], "argument --scale: -1 (must be a finite number > 0)"),
    (["--scale", "0"], "argument --scale: 0 (must be a finite number > 0)"),
    (["--scale", "inf"], "argument --scale: inf (must be a finite number > 0)"),
    (["--scale", "big"], "argument --scale: 'big' is not a number"),
])
def test_bench_rejects_bad_options(args, message, capsys):
    status, stderr = refused(capsys, "bench", *args)
    assert status == 2
    assert stderr.startswith("usage: python -m animcore bench ")
    assert f"python -m animcore bench: error: {message}" in stderr


def test_bench_lists_its_cases(capsys):
    status, stdout, _ = in_process(capsys, "bench", "--list")
    assert status == 0 and stdout.split() == list(bench.CASES)
    status, stdout, _ = in_process(capsys, "bench", "--help")
    assert status == 0 and all(name in " ".join(stdout.split()) for name in bench.CASES)


def _significant_digits(text):
    mantissa = re.split("[eE]", text)[0].replace("-", "").replace(".", "")
    return max(1, len(mantissa.strip("0")))


def _fewest_float32_digits(value):
    # independent of numpy's shortest repr: try 1, 2, ... significant digits
    return next(p for p in range(1, 10) if np.float32(float(f"{value:.{p}g}")) == value)


def test_csv_writes_the_shortest_text_of_the_stored_precision(tmp_path):
    b = Builder()
    keys = np.float32([[0.04, -0.0, 1e-7], [0.3, 2.0 / 3.0, -12345.678]])
    b.animation([(b.node("n"), "translation", [0, 0.4], keys, "STEP")], name="c")
    clips = gltf.load_bytes(b.glb_bytes())
    arrays = bake.bake(clips, 30)
    bake.write_csv(tmp_path / "o.csv", clips, arrays)
    rows = list(csv.reader((tmp_path / "o.csv").read_text().splitlines()))[1:]
    times = [r[2] for r in rows]
    assert times[1] == repr(1 / 30) and times[-1] == "0.4"  # float64 grid; float32 end key
    assert float(np.float32(float(times[-1]))) == clips[0].duration
    cells = [cell for r in rows for cell in r[3:]]
    assert "-0.0" not in cells and rows[0][3:] == ["0.04", "0.0", "1e-07"]
    values = arrays["c/n/translation"].astype(np.float32).ravel()
    for cell, value in zip(cells, values):
        assert np.float32(float(cell)) == value  # reads back to the stored float32
        assert _significant_digits(cell) == _fewest_float32_digits(value), cell


def test_running_from_an_unbuilt_source_tree_says_what_to_do(tmp_path):
    """`python -m animcore` from a clone's root, animcore installed elsewhere."""
    shutil.copytree(ROOT / "animcore", tmp_path / "animcore",
                    ignore=shutil.ignore_patterns("_core.*", "__pycache__"))
    shutil.copy(ROOT / "setup.py", tmp_path)
    installed = pathlib.Path(animcore.__file__).resolve().parent.parent
    # an editable install's import hook would find the extension: leave it out
    script = ("import runpy, sys\n"
              "sys.meta_path[:] = [f for f in sys.meta_path\n"
              "                    if '__editable__' not in getattr(f, '__module__', '')]\n"
              "sys.argv = ['animcore', '--version']\n"
              "runpy.run_module('animcore', run_name='__main__', alter_sys=True)\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                            text=True, env=dict(os.environ, PYTHONPATH=str(installed)))
    assert result.returncode == 1
    assert "circular import" not in result.stderr
    assert (f"animcore is being imported from its source tree {tmp_path.resolve()}"
            f"{os.sep}animcore, where the C extension animcore._core has not been built. "
            f"The installed animcore in {installed}{os.sep}animcore is hidden by it") \
        in result.stderr
    assert "run from another directory" in result.stderr


PACKAGE_TEXT = (sorted(ROOT.glob("animcore/*.py")) + sorted(ROOT.glob("notebooks/*.ipynb"))
                + [ROOT / "README.md", ROOT / "docs" / "README.md"])


@pytest.mark.parametrize("path", PACKAGE_TEXT, ids=[str(p.relative_to(ROOT)) for p in PACKAGE_TEXT])
def test_package_text_describes_the_behaviour_itself(path):
    """Help, docstrings and notebooks stand alone: no outside document is cited."""
    text = path.read_text(encoding="utf-8")
    found = re.findall(r"(?i)\barticles?\b|\bissue'?s?\b|section \d+\.\d+", text)
    assert not found, found


def test_enum_results_print_as_names():
    from animcore import PushResult, SampleMode

    timeline = animcore.SnapshotTimeline()
    pushed = timeline.push(100, 0, 1.0)
    timeline.push(102, 0, 3.0)
    late = timeline.push(101, 0, 2.0)
    sampled = timeline.sample(101.0)
    assert f"{pushed} {late} {sampled.mode}" == "ACCEPTED OUT_OF_ORDER INTERPOLATE"
    assert str(SampleMode.SEGMENT_CUT) == f"{SampleMode.SEGMENT_CUT}" == "SEGMENT_CUT"
    assert f"{PushResult.OUT_OF_ORDER:>14}" == "  OUT_OF_ORDER"
    assert f"{SampleMode.EXTRAPOLATE:d}" == "5" and SampleMode.EXTRAPOLATE == 5  # still ints
    assert repr(SampleMode.EMPTY) == "<SampleMode.EMPTY: 0>"


def test_bench_below_full_scale_does_not_call_a_target_missed():
    slow = bench.Comparison("kernel", 10, 2.0, "baseline", 1.0, target=8)
    fast = bench.Comparison("kernel", 10, 1.0, "baseline", 9.0, target=8)
    assert slow.line().endswith("target >= 8x MISSED")
    assert slow.line(scale=1.0).endswith("target >= 8x MISSED")
    assert slow.line(scale=0.01).endswith("target >= 8x n/a at this scale")
    assert fast.line(scale=0.01).endswith("target >= 8x ok")
    lines = []
    bench.run(["hermite"], scale=1e-4, repeats=1, write=lines.append)
    assert "targets are for --scale 1" in lines[0]
    assert not any("MISSED" in line for line in lines)


def test_commands_print_warnings_as_one_line(tmp_path):
    """A library warning (here save's: channels glTF does not hold) reads as the
    commands' own warnings, without Python's file, line and source."""
    src = ROOT / "tests" / "data" / "fbx" / "maya_game_sausage_7500_binary_wiggle.fbx"
    result = run("reduce", src, tmp_path / "out.glb", "--tolerance", "1e-3")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines and all(line.startswith("reduce: warning: save: ") for line in lines), lines
    assert "GltfWarning" not in result.stderr and ".py:" not in result.stderr


def test_bake_reads_every_format_animcore_load_reads(tmp_path):
    """One table of readers: an FBX file bakes through the FBX reader, and its
    baked channels are the clip's own samples on the frame grid."""
    from animcore import files
    src = ROOT / "tests" / "data" / "fbx" / "maya_anim_interpolation_7700_binary.fbx"
    assert set(bake.INPUT_SUFFIXES) == set(files.READERS)
    out = tmp_path / "baked.npz"
    result = run("bake", src, "--out", out, "--fps", 24)
    assert result.returncode == 0, result.stderr
    scene = animcore.load(src)
    clip = scene.clips[0]
    with np.load(out) as arrays:
        times = arrays[bake.array_key(clip.name)]
        for channel in clip.channels:
            key = bake.array_key(clip.name, channel.target, channel.path)
            np.testing.assert_allclose(arrays[key],
                                       channel.sample(times).reshape(len(times), -1),
                                       rtol=1e-12, atol=1e-12)


def test_bench_fbx_survives_a_crash_of_ufbx(monkeypatch):
    """ufbx (an alpha wheel) is timed in a process of its own: when that
    process dies, the fbx case reports it as skipped and the run goes on."""
    import importlib.util
    import signal

    if not (ROOT / bench.FBX_MOCAP).is_file():
        pytest.skip("the mocap file is in a clone of the repository only")
    if importlib.util.find_spec("ufbx") is None:
        pytest.skip("ufbx is not installed")
    monkeypatch.setattr(bench, "_UFBX_TIMING", "import os\nos.abort()\n")
    rows = bench.bench_fbx(1e-4, 1)
    assert len(rows) == 2 and isinstance(rows[1], bench.Skipped)
    assert f"(signal {int(signal.SIGABRT)})" in rows[1].reason
    assert " skipped: " in rows[1].line()


def test_a_bench_child_process_that_crashes_or_prints_nothing_is_a_reason():
    import signal

    crashed = bench._child_numbers("probe", "import os\nos.abort()\n")
    assert isinstance(crashed, str) and f"(signal {int(signal.SIGABRT)})" in crashed
    assert "printed no numbers" in bench._child_numbers("probe", "print('hello')")
    assert bench._child_numbers("probe", "import sys\nprint(sys.argv[1], 2.5)", 7) == [7.0, 2.5]


def test_an_unknown_option_is_said_by_its_command(capsys):
    """An option no parser knows is reported by the command it was given to,
    with that command's usage (it was the top-level parser's, which lists no
    options of the command)."""
    for command, *args in (("bake",), ("reduce", "in.glb", "out.glb"), ("demo",)):
        status, err = refused(capsys, command, *args, "--no-such-option")
        assert status == 2
        assert f"python -m animcore {command}: error: unrecognized arguments: " \
               "--no-such-option" in err
        assert err.startswith(f"usage: python -m animcore {command} ")
