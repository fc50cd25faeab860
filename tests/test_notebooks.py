"""Executes every notebook in notebooks/ so that none can rot, and checks that
the repository keeps them without outputs and their figures rendered in docs/."""
import importlib.util
import json
import pathlib

import pytest

# The notebooks run in a thread of a test process, and starting their kernel imports
# IPython: imported here, at collection, no test meets it half-imported in sys.modules
# (matplotlib reads sys.modules["IPython"] without importing it).
try:
    import IPython  # noqa: F401
except ImportError:
    pass

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
    """Every runnable notebook, one kernel at a time: they run beside the
    tests (see conftest.py), which a second kernel slowed more than it gained.
    Two probe notebooks in ``folder`` run last in the same kernel: the first
    defines a name and draws a figure, the second must find neither."""
    import nbformat

    runnable = [path for path in NOTEBOOKS if _missing_requirement(path) is None]
    probes = []
    for name, source in PROBES.items():
        probes.append(folder / f"{name}.ipynb")
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)]),
                       probes[-1])
    return _render().execute_all(runnable + probes, workers=1)


PROBES = {
    "probe_defines": "import matplotlib.pyplot as plt\nleft_behind = plt.figure()",
    "probe_finds": "import os, sys\nprint(os.getcwd(), 'left_behind' in dir(),\n"
                   "      sys.modules['matplotlib.pyplot'].get_fignums())",
}


BACKGROUND_JOBS = {"notebooks": _execute_runnable}


@pytest.fixture(scope="module")
def executed(background):
    pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    return background.result("notebooks")


@pytest.mark.slow
def test_notebooks_sharing_a_kernel_start_from_an_empty_namespace(executed):
    """The notebooks run in turn in one kernel (docs/render.py): a name or a
    figure one leaves behind is not there for the next, whose working folder
    is its own."""
    probes = {path.stem: (path, notebook) for path, notebook in executed.items()
              if path.stem.startswith("probe_")}
    for path, notebook in probes.values():
        assert not isinstance(notebook, BaseException), notebook
    path, notebook = probes["probe_finds"]
    printed = "".join(output["text"] for output in notebook.cells[0].outputs
                      if output["output_type"] == "stream")
    assert printed == f"{path.parent} False []\n"


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
    figures = render.figures(notebook)
    committed = sorted((ROOT / "docs" / "figures").glob(f"{path.stem}-*.png"))
    assert len(committed) == len(figures), (
        f"{path.name} draws {len(figures)} figure(s), docs/figures has {len(committed)}: "
        f"run python docs/render.py {path.stem}")
    gallery = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    names = [render.figure_name(path.stem, i) for i in range(len(figures))]
    for name in names:
        assert f"(figures/{name})" in gallery
    drawn_with = {_matplotlib_of((ROOT / "docs" / "figures" / name).read_bytes())
                  for name in names}
    matplotlib = pytest.importorskip("matplotlib")
    running = ".".join(matplotlib.__version__.split(".")[:2])
    if drawn_with - {running}:
        pytest.skip(f"{path.name} runs and draws its {len(figures)} figure(s); docs/figures "
                    f"were drawn with matplotlib {', '.join(sorted(drawn_with))}, whose text "
                    f"and layout this matplotlib {running} renders differently: pixels are "
                    f"compared with that version")
    for index, ((_, png), name) in enumerate(zip(figures, names)):
        difference = _image_difference(png, (ROOT / "docs" / "figures" / name).read_bytes())
        assert difference <= FIGURE_TOLERANCE, (
            f"{path.name} figure {index + 1} differs from docs/figures/{name} on "
            f"{difference:.1%} of its pixels: run python docs/render.py {path.stem}")


def _matplotlib_of(png: bytes) -> str:
    """The matplotlib version (major.minor) that wrote a PNG: its Software text."""
    import io
    import re

    from PIL import Image

    text = Image.open(io.BytesIO(png)).info.get("Software", "")
    found = re.search(r"Matplotlib version(\d+)\.(\d+)", text)
    return f"{found[1]}.{found[2]}" if found else "unknown"


# Fonts and anti-aliasing move a few pixels between matplotlib versions; a changed
# curve, axis range or legend moves many more.
FIGURE_TOLERANCE = 0.05


def _image_difference(drawn: bytes, committed: bytes) -> float:
    """The fraction of the drawn (not white) pixels of either image whose colour
    differs by more than 1/8 in any channel (1.0 when the sizes differ): thin
    lines count as much as the white around them does not."""
    import io

    image = pytest.importorskip("matplotlib.image")
    a = image.imread(io.BytesIO(drawn), format="png")
    b = image.imread(io.BytesIO(committed), format="png")
    if a.shape != b.shape:
        return 1.0
    a, b = a[..., :3], b[..., :3]
    ink = (a < 0.95).any(axis=-1) | (b < 0.95).any(axis=-1)
    changed = (abs(a - b) > 0.125).any(axis=-1)
    return float(changed.sum() / max(int(ink.sum()), 1))


def test_image_difference_sees_a_changed_figure():
    """The comparison is not blind: a shifted line is a large difference, the same
    figure is none."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import io

    from matplotlib.figure import Figure

    def draw(offset):
        figure = Figure(figsize=(4, 3), dpi=80)
        figure.add_subplot().plot([0, 1, 2], [0, 1 + offset, 0], linewidth=3)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        return buffer.getvalue()

    assert _image_difference(draw(0), draw(0)) == 0.0
    assert _image_difference(draw(0), draw(0.5)) > FIGURE_TOLERANCE


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
