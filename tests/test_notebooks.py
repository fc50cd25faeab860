"""Executes every notebook in notebooks/ so that none can rot, and checks that
the repository keeps them without outputs and their figures rendered in docs/."""
import importlib.util
import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _render():
    spec = importlib.util.spec_from_file_location("docs_render", ROOT / "docs" / "render.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _missing_requirement(path):
    metadata = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    for module in metadata.get("animcore", {}).get("requires", []):
        if importlib.util.find_spec(module) is None:
            return module
    return None


def _execute_runnable(folder):
    """Every runnable notebook, two kernels at a time (they mostly wait)."""
    runnable = [path for path in NOTEBOOKS if _missing_requirement(path) is None]
    return _render().execute_all(runnable, workers=2)


BACKGROUND_JOBS = {"notebooks": _execute_runnable}


@pytest.fixture(scope="module")
def executed(background):
    pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    return background.result("notebooks")


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_and_its_figures_are_in_the_docs(path, executed):
    missing = _missing_requirement(path)
    if missing:
        pytest.skip(f"{path.name} needs {missing} (animcore[test])")
    render = _render()
    notebook = executed[path]
    if isinstance(notebook, BaseException):  # CellExecutionError names the failing cell
        raise notebook
    drawn = len(render.figures(notebook))
    committed = sorted((ROOT / "docs" / "figures").glob(f"{path.stem}-*.png"))
    assert len(committed) == drawn, (
        f"{path.name} draws {drawn} figure(s), docs/figures has {len(committed)}: "
        f"run python docs/render.py {path.stem}")
    gallery = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    for index in range(drawn):
        assert f"(figures/{render.figure_name(path.stem, index)})" in gallery


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path):
    """Output-free notebooks merge cleanly; their figures live in docs/figures."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for index, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None, \
                f"{path.name} cell {index} has outputs: clear them (the docs hold the figures)"


def test_there_are_notebooks():
    assert NOTEBOOKS
