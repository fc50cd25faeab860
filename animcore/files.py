"""Any supported file in, glTF out: :func:`load` picks the reader by the file's suffix.

Every reader returns the same :class:`animcore.model.Scene` (nodes, skins,
clips), so what works on a glTF rig works on a BVH or USD one. A new format
is a module with a ``load(path, **options) -> Scene`` function and one line
in :data:`READERS`.
"""
from __future__ import annotations

import importlib
import os

from ._arrays import positive_number
from .model import Scene, _scene_argument

__all__ = ["READERS", "load", "save"]

# suffix -> (animcore module, function returning a Scene). A new format: one line here.
READERS = {
    ".gltf": ("gltf", "load_scene"),
    ".glb": ("gltf", "load_scene"),
    ".bvh": ("bvh", "load"),
    ".fbx": ("fbx", "load"),
    ".usd": ("usd", "load"),
    ".usda": ("usd", "load"),
    ".usdc": ("usd", "load"),
    ".usdz": ("usd", "load"),
}


def load(path, **options) -> Scene:
    """Read a rig and its animations from any supported file.

    Parameters
    ----------
    path : str or os.PathLike
        The file; its suffix (any case) picks the reader: ``.gltf``/``.glb``
        (:func:`animcore.gltf.load_scene`), ``.bvh`` (:func:`animcore.bvh.load`),
        ``.fbx`` (:func:`animcore.fbx.load`),
        ``.usd``/``.usda``/``.usdc``/``.usdz`` (:func:`animcore.usd.load`,
        needs usd-core).
    **options
        Passed to that reader (for glTF ``base_dir``, ``allow_outside``,
        ``errors``; for USD ``interpolation``).

    Returns
    -------
    Scene
        The nodes, skins and clips (``scene.clips``) of the file.

    Raises
    ------
    ValueError
        An unknown suffix (the message lists the known ones), an option the
        reader does not take, a malformed file (the reader's error, a
        ValueError naming the file), or a USD stage without a UsdSkel rig
        (read its animated xformOps with :func:`animcore.usd.load`).

    Examples
    --------
    >>> import animcore
    >>> scene = animcore.load(animcore.gltf.sample_path())
    >>> [c.name for c in scene.clips]
    ['walk', 'blink']
    """
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in READERS:
        known = ", ".join(sorted(READERS))
        raise ValueError(f"load: path {path!r} has suffix {suffix or '(none)'!r}, "
                         f"which no reader takes (known: {known})")
    module_name, function = READERS[suffix]
    reader = getattr(importlib.import_module(f"animcore.{module_name}"), function)
    try:
        scene = reader(path, **options)
    except TypeError as error:
        if "unexpected keyword argument" not in str(error):
            raise
        raise ValueError(f"load: {error} (the {suffix} reader is "
                         f"animcore.{module_name}.{function})") from None
    if not isinstance(scene, Scene):
        raise ValueError(f"load: {path!r} has no rig (no UsdSkel Skeleton); read its "
                         f"animated xformOps with animcore.{module_name}.{function}")
    return scene


def save(path, scene: Scene, clips=None, **options):
    """Write a scene's rig and clips as glTF 2.0 (``.gltf`` or ``.glb``).

    ``clips`` (default: ``scene.clips``) picks what to write; ``options``
    (``fps``, ``embed``) go to :func:`animcore.gltf.save`, which documents
    what glTF can hold. ``load(path)`` reads the file back.

    A scene read from FBX (:class:`animcore.fbx.FbxScene`) is first turned
    into what glTF holds by :meth:`~animcore.fbx.FbxScene.for_gltf`
    (``fps``, default 30, is the grid of the channels glTF cannot express
    as keys); clips without channels are left out. Then ``save`` returns
    that report (a tuple of :class:`animcore.fbx.GltfExportRow`: clip, node,
    path, sampler, grid, keys, largest deviation, reason) and, when a
    channel was sampled, warns (``GltfWarning``) with the count of sampled
    channels and the largest deviation of each path. For other scenes it
    returns None.
    """
    from . import gltf

    _scene_argument("save", "scene", scene)
    convert = getattr(scene, "for_gltf", None)
    if convert is None:
        gltf.save(path, scene.clips if clips is None else clips, scene=scene, **options)
        return None
    fps = options.pop("fps", None)
    fps = 30.0 if fps is None else positive_number("save", "fps", fps)
    plain, chosen, report = convert(clips, fps=fps)
    gltf.save(path, chosen, scene=plain, **options)
    sampled = [row for row in report if row.fps is not None]
    if sampled:
        worst = {}
        for row in sampled:
            if row.deviation >= worst.get(row.path, (-1.0, None))[0]:
                worst[row.path] = (row.deviation, row)
        text = "; ".join(f"{path} {dev:.3g} ({row.clip!r} {row.node!r}, {row.reason})"
                         for path, (dev, row) in sorted(worst.items()))
        import warnings
        warnings.warn(f"save: {len(sampled)} FBX channel(s) glTF cannot express as keys were "
                      f"sampled at {sampled[0].fps:g} fps plus their key times; largest "
                      f"deviation per path: {text}", gltf.GltfWarning, stacklevel=2)
    return report
