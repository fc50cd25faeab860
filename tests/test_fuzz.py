"""Bounded fuzzing runs of the glTF reader (fuzz/fuzz_gltf.py): any input loads
and samples finite, or raises GltfError; nothing else, no warning, no hang."""
import os
import pathlib
import subprocess
import sys

import pytest

import animcore

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "fuzz"))
import fuzz_gltf  # noqa: E402


def test_seeds_load():
    from animcore import gltf

    for name, data in fuzz_gltf.seeds().items():
        clips = gltf.load_bytes(data, name=name)
        assert name == "empty.gltf" or clips


@pytest.mark.parametrize("seed", [1, 2])
def test_pure_python_mutation_run(seed):
    runs, seconds = fuzz_gltf.mutation_run(1500, seed)
    assert runs == 1500


def test_the_contract_check_catches_a_broken_reader(monkeypatch):
    from animcore import gltf

    def broken(data, **kwargs):
        raise KeyError("accessors")
    monkeypatch.setattr(gltf, "load_bytes", broken)
    with pytest.raises(AssertionError, match="KeyError"):
        fuzz_gltf.mutation_run(1, 0)


def _atheris_run(folder, harness, *options):
    """3000 coverage-guided runs of a harness of fuzz/ (in a folder of its
    own: the corpus it writes, any crash's input), or None without atheris."""
    import importlib.util

    if importlib.util.find_spec("atheris") is None:
        return None
    return subprocess.run(
        [sys.executable, str(ROOT / "fuzz" / harness), "-runs=3000", "-seed=1", *options,
         "-rss_limit_mb=1024", "-timeout=10", f"-artifact_prefix={folder}/",
         str(folder / "corpus")], cwd=ROOT, capture_output=True, text=True, timeout=300)


BACKGROUND_JOBS = {
    "atheris-gltf": lambda folder: _atheris_run(folder, "fuzz_gltf.py",
                                                f"-dict={ROOT / 'fuzz' / 'gltf.dict'}"),
    "atheris-compressed": lambda folder: _atheris_run(folder, "fuzz_compressed.py"),
}


@pytest.mark.parametrize("job", ["atheris-gltf", "atheris-compressed"])
def test_atheris_bounded_run(background, job):
    pytest.importorskip("atheris", reason="atheris is not installed (pip install -e '.[fuzz]')")
    result = background.result(job)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Done 3000 runs" in result.stderr
    assert sorted(p.name for p in (background.folder / job / "corpus").iterdir())


def test_the_harness_fuzzes_this_checkout():
    code = "import fuzz_gltf, animcore; print(animcore.__file__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "fuzz", capture_output=True,
                         text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "fuzz")}).stdout
    # this checkout when it is built in place, else the animcore installed (a wheel)
    built = any(p.suffix in (".so", ".pyd") for p in (ROOT / "animcore").glob("_core.*"))
    expected = ROOT / "animcore" if built else pathlib.Path(animcore.__file__).resolve().parent
    assert out.startswith(str(expected)), out


# ------------------------------------------------- BVH, USD, from_dict, pickled states
# Bounded, deterministic mutation runs of the harnesses in fuzz/ (each checks its
# seed corpus first); a broken contract saves the input under tmp_path and fails.

import json  # noqa: E402
import pickle  # noqa: E402

import numpy as np  # noqa: E402

import fuzz_bvh  # noqa: E402
import fuzz_from_dict  # noqa: E402
import fuzz_pickle  # noqa: E402
import fuzz_usd  # noqa: E402
import harness  # noqa: E402

import animcore as ac  # noqa: E402
from animcore import _objects  # noqa: E402

@pytest.fixture
def failures(tmp_path, monkeypatch):
    monkeypatch.setenv("ANIMCORE_FUZZ_FAILURES", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("module, count", [(fuzz_bvh, 1200), (fuzz_from_dict, 1500),
                                           (fuzz_pickle, 1200)])
def test_bounded_mutation_runs_keep_the_contract(module, count, failures):
    runs, seconds = module.mutation_run(count, seed=1)
    assert runs == count + len(module.seeds())
    assert not list(failures.iterdir())


def test_bounded_usd_mutation_run(failures):
    if not fuzz_usd.available():
        pytest.skip("OpenUSD's bindings are not installed (pip install usd-core)")
    runs, seconds = fuzz_usd.mutation_run(600, seed=1)
    assert runs == 600 + len(fuzz_usd.seeds())
    assert not list(failures.iterdir())


def test_a_broken_contract_saves_the_input(failures, monkeypatch):
    from animcore import bvh

    def broken(path):
        raise IndexError("list index out of range")
    monkeypatch.setattr(bvh, "load", broken)
    with pytest.raises(AssertionError, match="IndexError") as caught:
        fuzz_bvh.mutation_run(0)
    saved = list(failures.iterdir())
    assert len(saved) == 1 and str(saved[0]) in str(caught.value)
    assert saved[0].read_bytes() in fuzz_bvh.seeds().values()


def test_the_pickle_check_catches_a_broken_restore(failures, monkeypatch):
    def broken(cls, state):
        raise KeyError("times")
    monkeypatch.setattr(ac.Curve, "_from_state", classmethod(broken))
    with pytest.raises(AssertionError, match="KeyError"):
        fuzz_pickle.mutation_run(0)


def test_the_pickle_check_hands_numpy_no_object_array_state():
    # atheris found a pickled LoopTrack whose positions were an object array of 15 items
    # in a (8, 3) shape: NumPy's ndarray.__setstate__ crashed the process on it
    import pickle

    import numpy as np

    with pytest.raises(pickle.UnpicklingError, match="an object array's state"):
        fuzz_pickle.load(pickle.dumps(np.array([1.0, 2.0], dtype=object)))
    np.testing.assert_array_equal(fuzz_pickle.load(pickle.dumps(np.array([1.0, 2.0]))),
                                  [1.0, 2.0])


def test_the_pickle_mutator_reads_no_pickle_that_claims_more_than_it_holds():
    # atheris's runs grew to 2-4 GB: the mutator unpickled a 1 KB input whose BYTEARRAY8
    # claimed 4 GB, which the unpickler allocates before it reads
    import pickle

    claims = b"\x80\x05\x96" + (2**32).to_bytes(8, "little") + b"abc."
    assert not fuzz_pickle._readable(claims)
    assert fuzz_pickle._readable(pickle.dumps(bytearray(b"abc"), protocol=5))


def test_seed_corpora_are_committed():
    for name in ("bvh", "usd", "from_dict", "pickle"):
        assert harness.corpus_files(name), name
    # the from_dict corpus is what to_dict() writes today
    assert {k: json.loads(v) for k, v in harness.corpus_files("from_dict").items()} == {
        f"{k}.json": json.loads(json.dumps(v)) for k, v in fuzz_from_dict.documents().items()}


# -- regressions: inputs the harnesses found ------------------------------------------

def _restore(cls, state):
    """What unpickling a tampered state does."""
    return pickle.loads(pickle.dumps(_Tampered(cls, state)))


class _Tampered:
    def __init__(self, cls, state):
        self.cls, self.state = cls, state

    def __reduce__(self):
        return (_objects._restore, (self.cls, self.state))


def _state(obj):
    return dict(obj._state())


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.pop("times"), r"Curve: a pickled state lacks 'times'"),
    (lambda s: s.update(extra=1), r"Curve: a pickled state has the unknown key 'extra'"),
    (lambda s: s.update(ease=1.5), r"Curve: ease is 1.5 \(must be None or an Easing"),
    (lambda s: s.update(ease="sine_in"), r"Curve: ease is 'sine_in'"),
    (lambda s: s.update(remaps=True), r"Curve: remaps is True"),
    (lambda s: s.update(remaps=("x",)), r"Curve: remaps at index \(0,\) is 'x'"),
    (lambda s: s.update(tangents=3), r"Curve: tangents is 3"),
    (lambda s: s.update(given=(1.0,)), r"Curve: a pickled state's given velocities"),
    (lambda s: s.update(long_handles="yes"), r"Curve: long_handles is 'yes'"),
    (lambda s: s.update(auto_smoothing=3), r"Curve: auto_smoothing is 3"),
])
def test_tampered_curve_states_are_value_errors(edit, message):
    state = _state(ac.Curve([0, 1, 2], [0, 1, 0]))
    edit(state)
    with pytest.raises(ValueError, match=message):
        _restore(ac.Curve, state)


def test_tampered_states_of_other_classes_are_value_errors():
    track = ac.LoopTrack([0, 1], [[0, 0, 0], [1, 0, 0]])
    cursor = ac.RootMotionCursor(track, 0.5)
    with pytest.raises(ValueError, match=r"RootMotionCursor: cycle at index \(\) is nan"):
        _restore(ac.RootMotionCursor, {**_state(cursor), "cycle": np.array(np.nan)})
    with pytest.raises(ValueError, match=r"RootMotionCursor: a pickled state's cycle is "
                                         r"\{\}"):
        _restore(ac.RootMotionCursor, {**_state(cursor), "cycle": {}})
    with pytest.raises(ValueError, match=r"RootMotionCursor: a pickled state's phase"):
        _restore(ac.RootMotionCursor, {**_state(cursor), "phase": np.array(1j)})
    buffer = ac.SnapshotBuffer(1, 1)
    with pytest.raises(ValueError, match=r"SnapshotBuffer: a pickled state's core is a list"):
        _restore(ac.SnapshotBuffer, {**_state(buffer), "core": [1]})
    with pytest.raises(ValueError, match=r"Steps: a pickled state has the unknown key 'times'"):
        _restore(ac.Steps, {"n": 2, "position": "end", "times": 1})
    with pytest.raises(ValueError, match=r"Ease: variant is \['x'\]"):
        _restore(ac.Ease, {**_state(ac.Ease("back_in")), "variant": ["x"]})
    with pytest.raises(ValueError, match=r"Skeleton: a pickled state's parents"):
        _restore(ac.Skeleton, {**_state(ac.Skeleton([-1, 0])),
                               "parents": np.array([-1.0, 1e300])})
    with pytest.raises(ValueError, match=r"unpickling: <class 'int'> is not an animcore"):
        _restore(int, {})
    with pytest.raises(ValueError, match=r"Curve: a pickled state must be a dict, got list"):
        _restore(ac.Curve, [])
    with pytest.raises(ValueError, match=r"restored from \(class, state\), got 1"):
        _objects._restore(ac.Curve)


def test_tampered_scene_states_are_value_errors():
    scene = fuzz_pickle.objects()["scene"]
    state = _state(scene)
    clip = state["clips"][0]
    with pytest.raises(ValueError, match=r"Clip: a pickled state's duration is 'x'"):
        _restore(type(clip), {**_state(clip), "duration": "x"})
    # (the parts' kinds are checked as the scene is made, restored or not)
    with pytest.raises(ValueError, match=r"Scene: clips at index \(0,\) is a list \(must be "
                                         r"a Clip\)"):
        _restore(ac.model.Scene, {**state, "clips": ([],)})
    node = state["nodes"][1]
    moved = _restore(type(node), {**_state(node), "parent": 7})
    with pytest.raises(ValueError, match=r"Scene: a pickled state's node 1 \('arm'\) has index "
                                         r"1, parent 7"):
        _restore(ac.model.Scene, {**state, "nodes": (state["nodes"][0], moved)})
    channel = clip.channels[0]
    odd = _restore(type(channel), {**_state(channel), "path": "\x00"})
    with pytest.raises(ValueError, match=r"Scene: a pickled state's clip 'walk' animates"):
        _restore(ac.model.Scene, {**state, "clips": (_restore(type(clip), {
            **_state(clip), "channels": (odd,)}),)})
    with pytest.raises(ValueError, match=r"Scene: a pickled state's skipped is"):
        _restore(ac.model.Scene, {**state, "skipped": 2.5})


@pytest.mark.parametrize("field, value, message", [
    ("tangents", 3, r"Curve.from_dict: tangents is 3"),
    ("tangents", [1, 2, 3], r"Curve.from_dict: tangents at index \(0,\) is 1"),
    ("remaps", 3, r"Curve.from_dict: remaps is 3"),
    ("remaps", [3], r"Curve.from_dict: remaps at index \(0,\) is 3"),
    ("remaps", [{"type": "Curve"}], r"Curve.from_dict: remaps at index \(0,\): .*lacks 'times'"),
    ("ease", 3, r"Curve.from_dict: ease is 3"),
    ("ease", {"type": "CubicBezier", "points": 3}, r"Curve.from_dict: ease: points is 3"),
    ("interpolation", [1, 2], r"Curve.from_dict: interpolation at index \(0,\) is 1"),
    ("auto_smoothing", 3, r"Curve.from_dict: auto_smoothing is 3"),
    ("long_handles", "x", r"Curve.from_dict: long_handles is 'x'"),
])
def test_curve_from_dict_names_the_field_and_value(field, value, message):
    data = ac.Curve([0, 1, 2], [0, 1, 0]).to_dict()
    data[field] = value
    with pytest.raises(ValueError, match=message):
        ac.Curve.from_dict(data)


@pytest.mark.parametrize("tangents", [3, 2.5, {"a": 1}])
def test_curve_tangents_of_the_wrong_kind(tangents):
    with pytest.raises(ValueError, match=r"Curve: tangents is "):
        ac.Curve([0, 1, 2], [0, 1, 0], tangents=tangents)


def test_loop_track_repr_of_huge_strides_has_no_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = repr(ac.LoopTrack([0, 1], [[-1e308, 0, 0], [0, 0.1 + 0.2, 0]]))
    assert "stride=[1e+308, 0.3, 0.0]" in text


class _BadDtypeState:
    """Pickles as a copied float64 dtype given a state NumPy never writes."""

    def __reduce__(self):
        import numpy as np
        return (np.dtype, ("f8", False, True), (3, "<", None, -1, -1, 0))


def test_the_pickle_harness_keeps_numpys_dtype_crash_out(tmp_path):
    # NumPy (2.4) crashes the process when a copied dtype's __setstate__ gets
    # this state (found by fuzz_pickle --mutate 1000000 --seed 31337): the
    # harness refuses it as the pickle machinery's business. In a process of its
    # own, so that a regression fails this test instead of the whole run.
    import pickle
    path = tmp_path / "dtype.pkl"
    path.write_bytes(pickle.dumps(_BadDtypeState(), protocol=5))
    result = subprocess.run([sys.executable, str(ROOT / "fuzz" / "fuzz_pickle.py"), str(path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "kept the contract" in result.stdout
