"""Bounded fuzzing runs of the glTF reader (fuzz/fuzz_gltf.py): any input loads
and samples finite, or raises GltfError; nothing else, no warning, no hang."""
import pathlib
import subprocess
import sys

import pytest

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


def test_atheris_bounded_run(tmp_path):
    pytest.importorskip("atheris", reason="atheris is not installed (pip install -e '.[fuzz]')")
    corpus = tmp_path / "corpus"
    result = subprocess.run(
        [sys.executable, str(ROOT / "fuzz" / "fuzz_gltf.py"), "-runs=3000", "-seed=1",
         f"-dict={ROOT / 'fuzz' / 'gltf.dict'}",
         "-rss_limit_mb=1024", "-timeout=10", f"-artifact_prefix={tmp_path}/", str(corpus)],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Done 3000 runs" in result.stderr
    assert sorted(p.name for p in corpus.iterdir())  # the seed corpus was written


def test_the_harness_fuzzes_this_checkout():
    code = "import fuzz_gltf, animcore; print(animcore.__file__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "fuzz", capture_output=True,
                         text=True, timeout=60, env={"PYTHONPATH": str(ROOT / "fuzz")}).stdout
    assert out.startswith(str(ROOT / "animcore"))
