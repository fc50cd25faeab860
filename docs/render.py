"""Executes every notebook in notebooks/ and writes its figures to docs/figures/,
with docs/README.md as the gallery that links them, so the figures can be seen
without running anything. The notebooks themselves stay without outputs.

    python docs/render.py            # all notebooks
    python docs/render.py hermite    # only notebooks/hermite.ipynb
"""
from __future__ import annotations

import base64
import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
DOCS = ROOT / "docs"
FIGURES = DOCS / "figures"
# the notebook kernels draw with the inline backend, whatever this shell says
INLINE = "module://matplotlib_inline.backend_inline"


def execute(path: pathlib.Path, timeout: int = 600):
    """The notebook at ``path`` executed in a fresh kernel that imports the
    animcore this process imports (this checkout once built, or an installed
    package); raises on the first cell that fails."""
    return execute_all([path], timeout=timeout)[path]


def execute_all(paths, *, workers: int = 1, timeout: int = 600) -> dict:
    """{path: executed notebook, or the exception its run raised}, running
    ``workers`` kernels at a time (kernels mostly wait: 2 suit 2 cores).

    A kernel runs its notebooks in turn: before each one, its working folder
    becomes the notebook's, its namespace is emptied (``%reset -f``: a name a
    notebook forgets to define or import stays undefined) and its figures are
    closed. Starting a kernel and importing NumPy, matplotlib and animcore
    again took 2 of the 4 s a notebook ran on a 2-core host. (No notebook
    changes settings outside its namespace, such as matplotlib's rcParams.)"""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import jupyter_client
    import nbclient
    import nbformat

    # the kernels import the animcore this process imports (never an unbuilt source
    # tree that shadows an installed one) and draw inline
    import animcore
    package_root = str(pathlib.Path(animcore.__file__).resolve().parent.parent)
    env = {**os.environ, "MPLBACKEND": INLINE, "PYTHONPATH": os.pathsep.join(
        filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    local = threading.local()
    kernels = []

    def run(path):
        if getattr(local, "kernel", None) is None:  # one kernel per worker thread
            local.kernel = jupyter_client.KernelManager(kernel_name="python3")
            kernels.append(local.kernel)
            local.kernel.start_kernel(env=env)
        fresh = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
            f"import os, sys\nos.chdir({str(path.parent)!r})\n"
            "if 'matplotlib.pyplot' in sys.modules:\n"
            "    sys.modules['matplotlib.pyplot'].close('all')\n"
            "%reset -f")])
        notebook = nbformat.read(path, as_version=4)
        for cells in (fresh, notebook):
            client = nbclient.NotebookClient(cells, km=local.kernel, timeout=timeout)
            try:
                client.execute()
            finally:  # the kernel keeps running; the client's channels close
                if client.kc is not None:
                    client.kc.stop_channels()
        return notebook

    try:
        with ThreadPoolExecutor(max(1, workers)) as pool:
            futures = {path: pool.submit(run, path) for path in paths}
    finally:
        for kernel in kernels:
            kernel.shutdown_kernel(now=True)
    results = {path: future.exception() or future.result() for path, future in futures.items()}
    if len(paths) == 1 and isinstance(results[paths[0]], BaseException):
        raise results[paths[0]]
    return results


def figures(notebook) -> list[tuple[str, bytes]]:
    """(caption, PNG bytes) of every figure, in order; the caption is the
    heading of the section the figure is in."""
    found, heading = [], ""
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            titles = re.findall(r"^#+\s*(.+)$", cell.source, re.M)
            heading = titles[-1].strip() if titles else heading
            continue
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" in data:
                found.append((heading, base64.b64decode(data["image/png"])))
    return found


def title(notebook, path: pathlib.Path) -> str:
    for cell in notebook.cells:
        match = re.search(r"^#\s+(.+)$", cell.source, re.M) if cell.cell_type == "markdown" else None
        if match:
            return match.group(1).strip()
    return path.stem


def figure_name(stem: str, index: int) -> str:
    return f"{stem}-{index + 1}.png"


def render(paths) -> dict[str, list[str]]:
    """Executes ``paths`` and writes their figures; returns {stem: [lines]} of
    their gallery sections."""
    FIGURES.mkdir(parents=True, exist_ok=True)
    sections = {}
    executed = execute_all(paths, workers=2)
    for path in paths:
        notebook = executed[path]
        if isinstance(notebook, BaseException):
            raise notebook
        for old in FIGURES.glob(f"{path.stem}-*.png"):
            old.unlink()
        lines = [f"## {title(notebook, path)}", "",
                 f"From [`notebooks/{path.name}`](../notebooks/{path.name}).", ""]
        for index, (caption, png) in enumerate(figures(notebook)):
            name = figure_name(path.stem, index)
            (FIGURES / name).write_bytes(png)
            lines += [f"**{caption}**" if caption else "", "", f"![{caption}](figures/{name})", ""]
        sections[path.stem] = lines
        print(f"{path.name}: {len(figures(notebook))} figure(s)")
    return sections


def write_gallery(sections: dict[str, list[str]]) -> None:
    """docs/README.md: one section per notebook, kept for notebooks not re-run."""
    gallery = DOCS / "README.md"
    old = gallery.read_text(encoding="utf-8") if gallery.exists() else ""
    kept = {m.group(1): m.group(0) for m in re.finditer(
        r"<!-- notebook (\S+) -->\n.*?(?=<!-- notebook |\Z)", old, re.S)}
    head = ["# Figures", "",
            "Every figure of the notebooks in `notebooks/`, rendered by `python docs/render.py`",
            "(which executes them; the notebooks are stored without outputs). Open a notebook to",
            "run and change the code behind a figure.", ""]
    intro = old.find("## How the code is organized")  # written by hand: kept as it is
    if intro >= 0:
        head.append(old[intro:old.find("<!-- notebook ", intro)].rstrip() + "\n")
    body = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        if path.stem in sections:
            body.append(f"<!-- notebook {path.stem} -->\n" + "\n".join(sections[path.stem]) + "\n")
        elif path.stem in kept:
            body.append(kept[path.stem])
    gallery.write_text("\n".join(head) + "\n" + "".join(body).rstrip() + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    paths = sorted(NOTEBOOKS.glob("*.ipynb"))
    if argv:
        paths = [p for p in paths if p.stem in argv]
        unknown = set(argv) - {p.stem for p in paths}
        if unknown:
            print(f"render: no notebook named {sorted(unknown)}", file=sys.stderr)
            return 2
    write_gallery(render(paths))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
