"""Packaging: the sdist carries what its tests need, a source install without a
compiler says what to install, and built extensions carry no debug info."""
import os
import pathlib
import subprocess
import sys
import tarfile

import pytest

import animcore

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _setup_py(*args, env=None):
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip("pyproject.toml needs setuptools>=77 (pip install '.[test]' brings it)")
    return subprocess.run([sys.executable, "setup.py", *args], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=300)


def test_sdist_has_what_its_tests_need(tmp_path):
    result = _setup_py("-q", "egg_info", "--egg-base", str(tmp_path), "sdist", "-d", str(tmp_path))
    assert result.returncode == 0, result.stderr
    (archive,) = tmp_path.glob("animcore-*.tar.gz")
    with tarfile.open(archive) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    wanted = {"tests/conftest.py", "tests/reference.py", "tests/gltf_writer.py",
              "csrc/Makefile", "csrc/animcore.h", "animcore/data/sample.gltf", "MANIFEST.in"}
    wanted |= {str(p.relative_to(ROOT)) for p in ROOT.glob("csrc/tests/*.[ch]")}
    wanted |= {str(p.relative_to(ROOT)) for p in ROOT.glob("notebooks/*.ipynb")}
    wanted |= {str(p.relative_to(ROOT)) for p in ROOT.glob("tests/test_*.py")}
    assert not wanted - names
    assert not [n for n in names if n.endswith((".pyc", ".so", ".o"))]


def test_build_without_compiler_says_what_to_install(tmp_path):
    result = _setup_py("build", "-b", str(tmp_path), env={"CC": str(tmp_path / "no-such-cc")})
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "no C compiler was found" in output and "apt-get install gcc python3-dev" in output
    # the data folder is declared, so setuptools has nothing to warn about
    assert "animcore.data" not in output and "Package would be ignored" not in output


def test_extension_is_built_without_debug_info():
    core = pathlib.Path(animcore._core.__file__)
    data = core.read_bytes()
    if not data.startswith(b"\x7fELF"):
        pytest.skip("the debug-section check reads ELF files (Linux)")
    assert b".debug_info" not in data, f"{core} carries debug info: rebuild it"

