"""Builds and runs the C core's own tests (csrc/tests) under AddressSanitizer
and UndefinedBehaviorSanitizer, through `make test`, the command engine users
run. It starts in the background when collection ends (see conftest.py); each
test file is then its own pytest test, so a failure names its file."""
import pathlib
import re
import shutil
import subprocess

import pytest

CSRC = pathlib.Path(__file__).resolve().parent.parent / "csrc"
C_TESTS = sorted(CSRC.glob("tests/test_*.c"))
JOBS = "-j1"  # one compiler at a time: the build runs beside the tests (see conftest.py)


def _make_test(folder):
    """Every test file built against one sanitized core and run; -k goes on
    past a failing file, and the output comes a file at a time. The build is
    csrc/build, as `make test` makes it: a later run compiles only what
    changed (the compiles took 40 of a 2-core host's 120 s)."""
    return subprocess.run(["make", "-k", "-C", str(CSRC), JOBS, "--output-sync=target", "test"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=600)


BACKGROUND_JOBS = {"c-tests": _make_test}


@pytest.fixture(scope="module")
def make_test(background):
    if not (shutil.which("make") and (shutil.which("cc") or shutil.which("gcc"))):
        pytest.skip("no C compiler or make on this machine: the C tests need both")
    return background.result("c-tests")


def test_there_are_c_tests():
    assert C_TESTS


@pytest.mark.slow
@pytest.mark.parametrize("source", C_TESTS, ids=[p.stem for p in C_TESTS])
def test_c_core_under_sanitizers(source, make_test):
    # the file ran to its end and reported its checks
    passed = [line for line in make_test.stdout.splitlines()
              if line.startswith(f"{source.stem}: ") and line.endswith(" checks passed")]
    assert passed, make_test.stdout


@pytest.mark.slow
def test_make_test_passes(make_test):
    assert make_test.returncode == 0, make_test.stdout


def _longest_detail(text: str) -> int:
    """The characters of an ac_fail message (its adjacent literals joined)
    with every conversion at its longest: %zu 20, %d 11, %.15g 23, %s 20."""
    widths = [(r"%(?:zu|llu|lld)", 20), (r"%[diu]", 11), (r"%(?:\.\d+)?g", 23), (r"%s", 20)]
    for pattern, width in widths:
        text = re.sub(pattern, "x" * width, text)
    return len(text.replace("%%", "%"))


def test_every_error_detail_fits_its_buffer():
    size = int(re.search(r"#define AC_DETAIL_SIZE (\d+)", (CSRC / "animcore.h").read_text())[1])
    found = 0
    for source in CSRC.glob("*.c"):
        for call in re.finditer(r"ac_fail\w*\((.*?)\);", source.read_text(), re.S):
            literals = re.findall(r'"((?:[^"\\]|\\.)*)"', call[1])
            # (a ternary's literals, joined, count as one longer message: an upper bound)
            if literals:
                found += 1
                assert _longest_detail("".join(literals)) < size, (source.name, literals)
    assert found > 100  # (the scan finds the core's messages)


def test_core_includes_no_python():
    for source in list(CSRC.glob("*.c")) + list(CSRC.glob("*.h")):
        text = source.read_text()
        assert "Python.h" not in text and "numpy/" not in text, source
