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


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_and_its_figures_are_in_the_docs(path):
    pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    metadata = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    for module in metadata.get("animcore", {}).get("requires", []):
        pytest.importorskip(module, reason=f"{path.name} needs {module} (animcore[test])")
    render = _render()
    notebook = render.execute(path)  # raises CellExecutionError on the first failing cell
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
