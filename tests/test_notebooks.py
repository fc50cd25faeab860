"""Executes every notebook in notebooks/ so that none can rot."""
import os
import pathlib

import pytest

import animcore

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # The kernel imports the same animcore as this test run.
    package_root = str(pathlib.Path(animcore.__file__).resolve().parent.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])))
    notebook = nbformat.read(path, as_version=4)
    for module in notebook.metadata.get("animcore", {}).get("requires", []):
        pytest.importorskip(module, reason=f"{path.name} needs {module} (animcore[test])")
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for cell in notebook.cells if cell.cell_type == "code"
              for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors


def test_there_are_notebooks():
    assert NOTEBOOKS
