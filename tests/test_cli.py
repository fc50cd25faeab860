import subprocess
import sys

import pytest

from animcore import bench, demo


def test_demo_prints_article_figures():
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
    assert {r.kernel.split()[0] for r in results} >= set(bench.CASES)
    assert all(r.seconds > 0 and r.baseline_seconds > 0 for r in results)
    assert len(lines) == len(results) + 1


def test_bench_rejects_unknown_case():
    result = subprocess.run([sys.executable, "-m", "animcore", "bench", "nope"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "unknown case" in result.stderr


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
