"""Builds and runs the C core's own tests (csrc/tests) under AddressSanitizer
and UndefinedBehaviorSanitizer, through the same Makefile engine users run.

The sanitized core is compiled once (in parallel) and linked into one binary
per test file; each binary is then its own pytest test, so progress shows."""
import os
import pathlib
import shutil
import subprocess

import pytest

CSRC = pathlib.Path(__file__).resolve().parent.parent / "csrc"
C_TESTS = sorted(CSRC.glob("tests/test_*.c"))
JOBS = f"-j{os.cpu_count() or 2}"


def _need_toolchain():
    if not (shutil.which("make") and (shutil.which("cc") or shutil.which("gcc"))):
        pytest.skip("no C compiler or make on this machine: the C tests need both")


@pytest.fixture(scope="module")
def sanitized_binaries(tmp_path_factory):
    _need_toolchain()
    build = tmp_path_factory.mktemp("csan")
    result = subprocess.run(["make", "-C", str(CSRC), JOBS, f"BUILD={build}", "tests"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return build


def test_there_are_c_tests():
    assert C_TESTS


@pytest.mark.slow
@pytest.mark.parametrize("source", C_TESTS, ids=[p.stem for p in C_TESTS])
def test_c_core_under_sanitizers(source, sanitized_binaries):
    result = subprocess.run([str(sanitized_binaries / source.stem)], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    # the file ran to its end and reported its checks
    assert result.stdout.startswith(f"{source.stem}: ") and "checks passed" in result.stdout


@pytest.mark.slow
def test_make_test_runs_every_c_test(sanitized_binaries):
    """`make test`, the engine users' command, runs every test file (here on the
    binaries already built, so nothing is compiled twice)."""
    result = subprocess.run(["make", "-s", "-C", str(CSRC), JOBS, "--output-sync=target",
                             f"BUILD={sanitized_binaries}", "test"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    for source in C_TESTS:
        assert f"{source.stem}: " in result.stdout


def test_core_library_builds_alone(tmp_path):
    _need_toolchain()
    result = subprocess.run(["make", "-C", str(CSRC), JOBS, f"BUILD={tmp_path}"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "libanimcore.a").stat().st_size > 0


def test_core_includes_no_python():
    for source in list(CSRC.glob("*.c")) + list(CSRC.glob("*.h")):
        text = source.read_text()
        assert "Python.h" not in text and "numpy/" not in text, source
