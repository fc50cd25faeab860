"""Explains the one import failure newcomers meet: running Python from a clone's
root, where the source folder ``animcore/`` (without a built extension) shadows
the installed package."""
from __future__ import annotations

import importlib.machinery
import os
import sys


def shadowing_message(package_dir: str) -> str | None:
    """The explanation when ``package_dir`` is an unbuilt source tree, else None."""
    package_dir = os.path.realpath(package_dir)
    root = os.path.dirname(package_dir)
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    built = any(name.startswith("_core.") and name.endswith(suffixes)
                for name in os.listdir(package_dir))
    if built or not os.path.exists(os.path.join(root, "setup.py")):
        return None
    elsewhere = [p for p in sys.path if os.path.realpath(p or os.curdir) != root]
    spec = importlib.machinery.PathFinder.find_spec("animcore", elsewhere)
    installed = (f"The installed animcore in {os.path.dirname(spec.origin)} is hidden by it, "
                 f"because Python looks in the current directory first. "
                 if spec is not None and spec.origin else "")
    return (f"animcore is being imported from its source tree {package_dir}, where the C "
            f"extension animcore._core has not been built. {installed}Either run from "
            f"another directory (cd elsewhere), or build the extension in this clone: "
            f"python -m pip install -e {root}")
