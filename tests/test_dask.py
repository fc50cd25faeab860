"""animcore.dask on a real distributed.LocalCluster (worker processes on the
loopback interface; marked slow): baking the glTF assets in tests/data/gltf, a
worker killed mid-job, a malformed file, and lazy chunk-wise evaluation of dask
arrays."""
import io
import os
import pathlib
import pickle
import shutil
import signal
import threading
import time

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="dask is not installed: pip install "
                                              "'animcore[dask]' (part of animcore[test])")
distributed = pytest.importorskip("distributed", reason="distributed is not installed: pip "
                                                        "install 'animcore[dask]'")

import animcore  # noqa: E402
from animcore import bake, cli, gltf  # noqa: E402
from animcore.dask import apply, bake_many, local_cluster  # noqa: E402

DATA = pathlib.Path(__file__).resolve().parent / "data" / "gltf"
BVH = pathlib.Path(__file__).resolve().parent / "data" / "bvh"
USD = pathlib.Path(__file__).resolve().parent / "data" / "usd" / "walker.usda"
ASSETS = sorted(str(p) for p in DATA.rglob("*") if p.suffix in (".gltf", ".glb"))


@pytest.fixture(scope="module")
def client():
    with local_cluster(2) as cluster, distributed.Client(cluster) as c:
        yield c


def reference(path, fps):
    """The clips of one file baked in this process, keyed by clip name."""
    return {clip.name: bake.bake([clip], fps) for clip in gltf.load(path)}


def assert_complete(rows, out_dir, fps):
    """Every row's output holds exactly what a bake in this process gives, no
    other output or temporary file is in the folder, and the manifest on disk
    holds the rows."""
    outputs = {row.output for row in rows if not row.error}
    below = [p.relative_to(out_dir).as_posix() for p in pathlib.Path(out_dir).rglob("*")
             if p.is_file()]
    assert outputs == {name for name in below if name.endswith(".npz")}
    assert [name for name in below if name.rsplit("/", 1)[-1].startswith(".")] == []
    assert bake.read_manifest(out_dir) == rows
    cache = {}
    for row in rows:
        if row.error:
            continue
        if row.file not in cache:
            cache[row.file] = reference(row.file, fps)
        expected = cache[row.file][row.clip]
        with np.load(os.path.join(out_dir, row.output)) as saved:
            assert sorted(saved.files) == sorted(expected)
            for key, value in expected.items():
                np.testing.assert_array_equal(saved[key], value)
        assert row.frames == len(expected[f"{row.clip}/time"])
        assert row.channels == len(expected) - 1


@pytest.mark.slow  # a LocalCluster of worker processes
def test_the_assets_bake_on_the_cluster(client, tmp_path):
    rows = bake_many([str(DATA / "**" / "*.gl*")], tmp_path, fps=24, client=client,
                     progress="never")
    assert [row.file for row in rows if not row.error] and not any(row.error for row in rows)
    assert sorted({row.file for row in rows}) == ASSETS
    assert len(rows) == sum(len(gltf.load(path)) for path in ASSETS)
    assert {row.clip for row in rows if row.file.endswith("Fox.glb")} == {"Survey", "Walk",
                                                                          "Run"}
    assert_complete(rows, tmp_path, 24)


@pytest.mark.slow  # a LocalCluster of worker processes
def test_a_malformed_file_is_one_failed_row(client, tmp_path):
    folder = tmp_path / "clips"
    folder.mkdir()
    for name in ("Animation_Node_00", "Animation_Node_04"):
        for suffix in (".gltf", ".bin"):
            shutil.copy(DATA / "Animation_Node" / (name + suffix), folder)
    shutil.copy(DATA / "Fox" / "Fox.glb", folder)
    (folder / "broken.gltf").write_text('{"asset": {"version": "2.0"}, "animations": [{"')
    out = tmp_path / "out"
    bar = io.StringIO()
    rows = bake_many([folder], out, fps=30, client=client, batch=1, progress="always",
                     stream=bar)
    assert bar.getvalue().endswith("] 100% (4/4 files)\n")
    assert bar.getvalue().count("\r") <= 4  # at most one draw per file
    failed = [row for row in rows if row.error]
    assert len(failed) == 1
    assert failed[0].file == str(folder / "broken.gltf")
    assert failed[0].error.startswith(f"{folder / 'broken.gltf'}: ")
    assert (failed[0].clip, failed[0].frames, failed[0].output) == ("", 0, "")
    assert len(rows) == 1 + 1 + 1 + 3
    assert_complete(rows, out, 30)


def alive(pid):
    """Whether process pid runs (a zombie waiting to be reaped does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


@pytest.mark.slow  # a LocalCluster of worker processes
def test_a_worker_killed_mid_job_still_gives_every_output_and_no_partial_one(client, tmp_path):
    for i in range(3):  # three copies of the assets: several tasks per worker
        shutil.copytree(DATA, tmp_path / f"copy{i}")
    inputs = [str(tmp_path / f"copy{i}" / "**" / "*.gl*") for i in range(3)]
    out = tmp_path / "out"
    victim = next(iter(client.run(os.getpid).values()))
    killed = threading.Event()

    def kill_once_outputs_appear():
        while not killed.is_set():
            try:
                started = any(name.endswith(".npz") for _, _, names in os.walk(out)
                              for name in names)
            except FileNotFoundError:
                started = False
            if started:
                os.kill(victim, signal.SIGKILL)
                killed.set()
            time.sleep(0.001)

    threading.Thread(target=kill_once_outputs_appear, daemon=True).start()
    rows = bake_many(inputs, out, fps=120, client=client, batch=2, progress="never")
    assert killed.is_set()  # during the job: some outputs were written, others not yet
    assert not alive(victim)  # the worker really died
    assert not any(row.error for row in rows)
    assert len({row.output for row in rows}) == len(rows) == 3 * sum(
        len(gltf.load(path)) for path in ASSETS)
    assert_complete(rows, out, 120)


def single_file_bake(tmp_path, file, clip, *options):
    """What `python -m animcore bake FILE --clip CLIP OPTIONS --out X.npz` writes."""
    target = tmp_path / "single.npz"
    assert cli.main(["bake", str(file), "--clip", clip, *options, "--out", str(target)]) == 0
    with np.load(target) as saved:
        return {key: saved[key] for key in saved.files}


@pytest.mark.slow  # a LocalCluster of worker processes
def test_world_bakes_on_the_cluster_exactly_as_the_single_file_bake_does(client, tmp_path):
    files = [DATA / "Fox" / "Fox.glb", BVH / "bvh_test2.bvh"]
    try:
        import pxr  # noqa: F401
        files.append(USD)  # read by the workers too: the same environment
    except ImportError:
        pass  # tests/test_bake_many.py checks the failed row that says what to install
    rows = bake_many(files, tmp_path / "out", fps=12, client=client, world=True,
                     progress="never")
    assert [pathlib.Path(r.file).name for r in rows] == ["Fox.glb"] * 3 + ["bvh_test2.bvh"] + [
        USD.name] * (len(files) == 3)
    for row in rows:
        assert not row.error
        expected = single_file_bake(tmp_path, row.file, row.clip, "--fps", "12", "--world")
        with np.load(tmp_path / "out" / row.output) as saved:
            assert sorted(saved.files) == sorted(expected)
            for key, value in expected.items():
                assert saved[key].dtype == value.dtype and saved[key].shape == value.shape
                assert saved[key].tobytes() == value.tobytes(), key
        assert any(key.endswith("/world_translation") for key in expected)


def test_bake_many_refuses_bad_options_before_reading_any_file(tmp_path):
    with pytest.raises(ValueError, match=r"^bake_many: nodes needs world=True$"):
        bake_many([tmp_path / "missing.gltf"], tmp_path / "out", nodes=["hips"])
    with pytest.raises(ValueError, match=r"^bake_many: format is 'usd' \(must be 'npz' or "
                                         r"'csv'\)$"):
        bake_many([tmp_path / "missing.gltf"], tmp_path / "out", format="usd")
    assert not (tmp_path / "out").exists()


def test_the_command_line_names_a_scheduler_address_it_cannot_use(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        cli.main(["bake", str(DATA / "Fox" / "Fox.glb"), "--out", str(tmp_path / "out"),
                  "--scheduler", "bogus", "--progress", "never"])
    err = capsys.readouterr().err
    assert stopped.value.code == 1 and "Traceback" not in err
    assert "bake: error: --scheduler 'bogus': " in err


@pytest.mark.slow  # a LocalCluster of worker processes
def test_the_command_line_bakes_on_a_running_scheduler(client, tmp_path, capsys):
    status = cli.main(["bake", str(DATA / "Animation_Node" / "*.gltf"),
                       str(DATA / "Fox" / "Fox.glb"), "--out", str(tmp_path), "--scheduler",
                       client.scheduler.address, "--progress", "never"])
    assert status == 0
    assert capsys.readouterr().out.strip() == (f"baked 9 clip(s) from 7 of 7 file(s) at 30 fps "
                                               f"-> {tmp_path} (manifest.csv)")
    assert_complete(bake.read_manifest(tmp_path), tmp_path, 30)


def _patch_reader(dask_worker=None):
    """Makes load_input raise as a reader with a bug would (see
    tests/test_bake_many.py), in the process this runs in."""
    import test_bake_many
    if not hasattr(bake, "_tested_load_input"):
        bake._tested_load_input = bake.load_input
        bake.load_input = test_bake_many.raising_reader(bake.load_input)


def _unpatch_reader(dask_worker=None):
    if hasattr(bake, "_tested_load_input"):
        bake.load_input = bake._tested_load_input
        del bake._tested_load_input


@pytest.mark.slow  # a LocalCluster of worker processes
def test_any_exception_a_file_raises_on_a_worker_is_its_row(client, tmp_path):
    """RecursionError, AttributeError, TypeError, KeyError, USD's
    Tf.ErrorException: the file's row; the other files of the same task
    (one task here) are baked and reported ok."""
    from test_bake_many import assert_bad_files_are_rows, library_with_bad_files

    folder = tmp_path / "lib"
    library_with_bad_files(folder)
    client.run(_patch_reader)
    try:
        calls = []
        rows = bake_many([folder], tmp_path / "out", fps=2, client=client, batch=100,
                         progress=lambda done, total: calls.append((done, total)))
    finally:
        client.run(_unpatch_reader)
    assert_bad_files_are_rows(rows, folder, tmp_path / "out")
    assert calls[-1] == (len(rows), len(rows)) and len(calls) <= len(rows)


# -- dask arrays -----------------------------------------------------------------------

CURVE = animcore.Curve([0, 1, 2, 3], [[0, 1], [60, 2], [60, 5], [0, 1]], tangents="pchip")


def same(lazy, eager):
    computed = lazy.compute(scheduler="sync") if hasattr(lazy, "compute") else lazy
    eager = np.asarray(eager)
    assert computed.shape == eager.shape and computed.dtype == eager.dtype
    assert computed.tobytes() == eager.tobytes()


def test_apply_evaluates_a_curve_chunk_by_chunk():
    t = da.from_array(np.linspace(-1, 4, 1001), chunks=250)
    lazy = apply(CURVE.evaluate, t, derivative=1)
    assert isinstance(lazy, da.Array) and lazy.chunks == (t.chunks[0], (2,))
    same(lazy, CURVE.evaluate(np.linspace(-1, 4, 1001), 1))
    scalar = apply(CURVE.evaluate, da.from_array(np.array(1.25)))
    assert scalar.shape == (2,)
    same(scalar, CURVE.evaluate(1.25))


def test_apply_broadcasts_across_chunks():
    t0 = da.from_array(np.linspace(0, 1, 6).reshape(6, 1), chunks=(4, 1))
    t1 = da.from_array(np.linspace(-3, 9, 10), chunks=3)
    track = animcore.LoopTrack([0, 0.25, 0.75, 1], [0, 0.2, 1.7, 2])
    lazy = apply(track.delta, t0, t1)
    assert lazy.shape == (6, 10) and lazy.chunks == ((4, 2), (3, 3, 3, 1))
    same(lazy, track.delta(np.linspace(0, 1, 6).reshape(6, 1), np.linspace(-3, 9, 10)))


def test_apply_keeps_item_axes_whole_and_returns_named_tuples():
    rng = np.random.default_rng(3)
    q0, q1 = rng.normal(size=(2, 7, 4))
    t = rng.uniform(size=(5, 7))
    lazy = apply(animcore.quat_slerp, da.from_array(q0, chunks=(3, 2)), q1,
                 da.from_array(t, chunks=(2, 3)), trailing=(1, 1, 0))
    assert lazy.chunks == ((2, 2, 1), (3, 3, 1), (4,))
    same(lazy, animcore.quat_slerp(q0, q1, t))
    sample = apply(animcore.hermite, 0.0, 10.0, 2.0, [0.0, 1.0],
                   2.0, da.from_array(np.linspace(0, 2, 9).reshape(9, 1), chunks=4))
    assert type(sample) is animcore.HermiteSample
    eager = animcore.hermite(0.0, 10.0, 2.0, [0.0, 1.0], 2.0, np.linspace(0, 2, 9).reshape(9, 1))
    same(sample.position, eager.position)
    same(sample.velocity, eager.velocity)


def test_apply_gives_the_motion_of_cursors_without_moving_them():
    track = animcore.LoopTrack([0, 0.4, 1], [[0, 0, 0], [0.3, 0, 0.5], [1, 0, 1]],
                               rotations=[0.0, 0.4, 1.2])
    cursor = animcore.RootMotionCursor(track, np.linspace(-2, 30, 50))
    dt = da.from_array(np.linspace(0.1, 9.0, 50), chunks=16)
    lazy = apply(cursor.advance, dt)
    assert type(lazy) is animcore.RootDelta and lazy.translation.chunks[0] == (16, 16, 16, 2)
    before = pickle.dumps(cursor)
    translation, rotation = (x.compute(scheduler="sync") for x in lazy)
    assert pickle.dumps(cursor) == before  # not moved
    eager = cursor.advance(np.linspace(0.1, 9.0, 50))
    same(translation, eager.translation)
    same(rotation, eager.rotation)


def test_apply_to_a_cursor_needs_one_argument_of_its_shape():
    cursor = animcore.RootMotionCursor(animcore.LoopTrack([0, 1], [0, 2]), np.zeros(4))
    with pytest.raises(ValueError, match=r"^apply: RootMotionCursor\.advance: argument of "
                                         r"shape \(5,\) does not broadcast to the cursors' "
                                         r"shape \(4,\)$"):
        apply(cursor.advance, da.ones(5))


@pytest.mark.slow  # a LocalCluster of worker processes
def test_apply_runs_on_the_cluster_with_the_object_sent_by_value(client):
    rotations = animcore.RotationCurve([0, 1, 2], [[0, 0, 0, 1], [0, 0, 1, 1], [0, 1, 0, 0]],
                                       after="cycle")
    t = da.from_array(np.linspace(0, 7, 400), chunks=100)
    lazy = apply(rotations.angular_velocity, t)
    same(client.compute(lazy).result(timeout=30),
         rotations.angular_velocity(np.linspace(0, 7, 400)))


def test_apply_errors_name_the_index_in_the_whole_array():
    t = np.linspace(0, 3, 40).reshape(8, 5)
    t[6, 3] = np.nan
    with pytest.raises(ValueError, match=r"^Curve\.evaluate: t at index \(6, 3\) is nan "
                                         r"\(must be finite\)$"):
        apply(CURVE.evaluate, da.from_array(t, chunks=(3, 2))).compute(scheduler="sync")
    elapsed = np.zeros((2, 9))
    elapsed[1, 7] = 2.5
    with pytest.raises(ValueError, match=r"^hermite: elapsed at index \(1, 7\) is 2\.5 "
                                         r"\(must lie in \[0, duration=2\]\)$"):
        apply(animcore.hermite, 0.0, 1.0, 0.0, 0.0, [[2.0]],
              da.from_array(elapsed, chunks=(1, 2))).position.compute(scheduler="sync")


def test_apply_rejects_trailing_of_another_length():
    with pytest.raises(ValueError, match=r"^apply: trailing has 2 entries for 3 arguments$"):
        apply(animcore.quat_slerp, [0, 0, 0, 1], [0, 0, 1, 0], 0.5, trailing=(1, 1))


def test_apply_rejects_more_trailing_axes_than_an_argument_has():
    with pytest.raises(ValueError, match=r"^apply: trailing\[0\] is 2 for an argument of 1 "
                                         r"axes$"):
        apply(animcore.quat_normalize, da.ones(4, chunks=2), trailing=2)


def test_apply_needs_an_array():
    with pytest.raises(ValueError, match=r"^apply: give at least one array argument$"):
        apply(CURVE.evaluate, 0.5)


def test_apply_rejects_shapes_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"^apply: cannot broadcast the leading shapes \(3,\), "
                                         r"\(4,\) of .*LoopTrack\.delta's array arguments"):
        apply(animcore.LoopTrack([0, 1], [0, 2]).delta, da.ones(3, chunks=2), da.ones(4))


@pytest.mark.slow  # a LocalCluster of worker processes
def test_the_local_cluster_keeps_its_bookkeeping_quiet_in_every_process(client):
    """The settings of QUIET reach the scheduler, the nannies and the forked
    workers (they are read when each server starts, in its own process)."""
    from animcore.dask import QUIET

    def intervals(dask_worker=None, dask_scheduler=None):
        import dask

        server = dask_worker or dask_scheduler
        return ({name: server.periodic_callbacks[name].callback_time
                 for name in ("tick", "monitor")},
                dask.config.get("distributed.worker.profile.enabled"),
                getattr(server, "memory_manager", None) and
                server.periodic_callbacks["memory_monitor"].callback_time)

    quiet = {"tick": 1000, "monitor": 2000}
    assert QUIET["distributed.admin.tick.interval"] == "1s"
    workers = client.run(intervals)
    assert len(workers) == 2
    assert all(w == (quiet, False, 500) for w in workers.values()), workers
    assert client.run_on_scheduler(intervals)[0] == quiet
    cluster = client.cluster
    for nanny in cluster.workers.values():
        assert {name: nanny.periodic_callbacks[name].callback_time
                for name in ("tick", "monitor", "memory_monitor")} == {**quiet,
                                                                      "memory_monitor": 500}


@pytest.mark.slow  # a LocalCluster of worker processes
def test_with_another_client_open_its_own_cluster_is_followed_on_its_own_loop(
        client, tmp_path, monkeypatch):
    """A client already open in the process (the fixture's) stays the default
    one; bake_many's own cluster must still follow its futures on its own
    client's event loop, not on the default client's (which would notice them
    finishing only when something else wakes it)."""
    followed = []
    real = distributed.as_completed

    def spy(futures, *args, **kwargs):
        followed.append((real(futures, *args, **kwargs), futures[0].client))
        return followed[-1][0]

    monkeypatch.setattr(distributed, "as_completed", spy)
    assert distributed.default_client() is client
    rows = bake_many([DATA / "Animation_Node" / "Animation_Node_0[12].gltf"], tmp_path,
                     fps=15, workers=1, progress="never")
    assert_complete(rows, tmp_path, 15)
    assert len(followed) == 1
    tracker, owner = followed[0]
    assert owner is not client and tracker.loop is owner.loop


@pytest.mark.slow  # a LocalCluster of worker processes
def test_without_a_client_a_local_cluster_bakes_and_is_closed(tmp_path, monkeypatch):
    started = []
    real = distributed.LocalCluster

    def spy(*args, **kwargs):
        started.append(real(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(distributed, "LocalCluster", spy)
    rows = bake_many([DATA / "Animation_Node" / "Animation_Node_0[12].gltf"], tmp_path,
                     fps=15, workers=1, progress="never")
    assert [row.clip for row in rows] == ["animation0", "animation0"]
    assert_complete(rows, tmp_path, 15)
    assert len(started) == 1 and started[0].scheduler_address.startswith("tcp://127.0.0.1:")
    assert started[0].status.name == "closed"


@pytest.mark.slow  # a LocalCluster of worker processes
def test_its_own_cluster_stops_the_workers_heartbeats_before_it_closes(tmp_path, monkeypatch):
    """A worker that closes while a heartbeat is connecting to the scheduler
    logs that heartbeat's failure, a traceback after a bake that succeeded;
    bake_many stops the heartbeats of its own cluster's workers first."""
    heartbeats = []
    real = distributed.Client.close

    def spy(self, *args, **kwargs):
        if self.status == "running":
            heartbeats.append(self.run(
                lambda dask_worker: dask_worker.periodic_callbacks["heartbeat"].is_running()))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(distributed.Client, "close", spy)
    rows = bake_many([DATA / "Animation_Node" / "Animation_Node_0[12].gltf"], tmp_path,
                     fps=15, workers=1, progress="never")
    assert_complete(rows, tmp_path, 15)
    assert len(heartbeats) == 1 and list(heartbeats[0].values()) == [False]
