"""Builds and runs the C core's own tests (csrc/tests) under AddressSanitizer
and UndefinedBehaviorSanitizer, through the same Makefile engine users run."""
import pathlib
import shutil
import subprocess

import pytest

CSRC = pathlib.Path(__file__).resolve().parent.parent / "csrc"


def test_c_core_under_sanitizers(tmp_path):
    if not (shutil.which("make") and (shutil.which("cc") or shutil.which("gcc"))):
        pytest.skip("no C compiler or make on this machine: the C tests need both")
    result = subprocess.run(["make", "-C", str(CSRC), f"BUILD={tmp_path}", "test"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    tests = sorted(CSRC.glob("tests/test_*.c"))
    assert tests
    for test in tests:  # every C test file ran and reported its checks
        assert f"{test.stem}: " in result.stdout and "checks passed" in result.stdout


def test_core_library_builds_alone(tmp_path):
    if not (shutil.which("make") and (shutil.which("cc") or shutil.which("gcc"))):
        pytest.skip("no C compiler or make on this machine")
    result = subprocess.run(["make", "-C", str(CSRC), f"BUILD={tmp_path}"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "libanimcore.a").stat().st_size > 0


def test_core_includes_no_python():
    for source in list(CSRC.glob("*.c")) + list(CSRC.glob("*.h")):
        text = source.read_text()
        assert "Python.h" not in text and "numpy/" not in text, source
