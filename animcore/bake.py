"""``python -m animcore bake``: sample glTF clips on a frame grid and save them.

Every channel of every clip (or of one named clip) is evaluated at the frames
``0, 1/fps, ..., ceil(duration * fps) / fps``, the last frame clamped to the
clip's duration so that the final pose is always included.

Output formats, chosen by the extension of ``--out``:

``.npz``
    One float64 array per channel, keyed ``"<clip>/<target>/<path>"`` with
    shape ``(frames, width)``, plus ``"<clip>/time"`` of shape ``(frames,)``.
    ``target`` is the node name, or the node index for unnamed nodes.
``.csv``
    One row per frame of each clip, comma separated, with a header:
    ``clip,frame,time,`` then one column per channel component named
    ``<target>/<path>/<component>`` (components ``x,y,z`` for translation and
    scale, ``x,y,z,w`` for rotation, ``0..W-1`` for morph weights). When
    several clips are baked the columns are the union of their channels and a
    cell is empty where a clip does not animate that channel. Numbers are
    written with 17 significant digits, so they read back exactly.
"""
from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

from .gltf import Clip

__all__ = ["bake", "frame_times", "write_csv", "write_npz"]

_COMPONENTS = {"translation": "xyz", "scale": "xyz", "rotation": "xyzw"}
_BLOCK = 1 << 16  # frames per evaluation call, so long clips report progress


def frame_times(duration: float, fps: float) -> np.ndarray:
    """Frame times in seconds: ``k / fps`` for ``k = 0 .. ceil(duration * fps)``,
    the last one clamped to ``duration``. A product within 1e-9 frames of an
    integer counts as that integer (``0.1 s * 30 fps`` is 3 frames, not 4)."""
    if not (math.isfinite(fps) and fps > 0):
        raise ValueError(f"bake: fps is {fps!r} (must be a finite number > 0)")
    frames = duration * fps
    last = int(round(frames)) if abs(frames - round(frames)) <= 1e-9 else math.ceil(frames)
    return np.minimum(np.arange(last + 1, dtype=np.float64) / fps, duration)


class Progress:
    """A one-line progress bar on a stream (stderr). ``mode``: "always",
    "never", or "auto" (shown on a terminal once a job has run 0.5 s)."""

    def __init__(self, total: int, mode: str = "auto", stream=None, label: str = "bake"):
        self.total, self.mode, self.label = max(int(total), 1), mode, label
        self.stream = sys.stderr if stream is None else stream
        self.done, self.start, self.shown = 0, time.perf_counter(), False
        tty = getattr(self.stream, "isatty", lambda: False)()
        self.enabled = mode == "always" or (mode == "auto" and tty)

    def update(self, amount: int) -> None:
        self.done = min(self.done + amount, self.total)
        if not self.enabled:
            return
        if self.mode == "auto" and not self.shown and time.perf_counter() - self.start < 0.5:
            return
        self._draw()

    def _draw(self) -> None:
        fraction = self.done / self.total
        filled = int(round(30 * fraction))
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                          f"{100 * fraction:3.0f}% ({self.done}/{self.total} channel frames)")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.enabled and (self.shown or self.mode == "always"):
            self.done = self.total
            self._draw()
            self.stream.write("\n")
            self.stream.flush()


def bake(clips: list[Clip], fps: float, *, progress: str = "never",
         stream=None) -> dict[str, np.ndarray]:
    """Sample every channel of ``clips`` on the frame grid of ``fps``.

    Returns
    -------
    dict
        ``"<clip>/time"`` -> (frames,) seconds and ``"<clip>/<target>/<path>"``
        -> (frames, width) values, in clip and channel order.
    """
    grids = [frame_times(clip.duration, fps) for clip in clips]
    total = sum(len(grid) * len(clip.channels) for clip, grid in zip(clips, grids))
    bar = Progress(total, progress, stream)
    arrays: dict[str, np.ndarray] = {}
    for clip, grid in zip(clips, grids):
        arrays[f"{clip.name}/time"] = grid
        for channel in clip.channels:
            values = np.empty((len(grid), channel.width))
            for start in range(0, len(grid), _BLOCK):
                block = grid[start:start + _BLOCK]
                values[start:start + len(block)] = channel.sample(block)
                bar.update(len(block))
            arrays[f"{clip.name}/{channel.target}/{channel.path}"] = values
    bar.close()
    return arrays


def write_npz(path, arrays: dict[str, np.ndarray]) -> None:
    """Save baked arrays with ``numpy.savez_compressed`` under their keys."""
    np.savez_compressed(path, **arrays)


def _columns(clips):
    columns = {}
    for clip in clips:
        for channel in clip.channels:
            base = f"{channel.target}/{channel.path}"
            names = _COMPONENTS.get(channel.path) or [str(i) for i in range(channel.width)]
            for i, name in enumerate(names):
                columns.setdefault(f"{base}/{name}", (base, i))
    return columns


def write_csv(path, clips: list[Clip], arrays: dict[str, np.ndarray]) -> None:
    """Save baked arrays in the CSV layout described in this module."""
    columns = _columns(clips)
    with open(path, "w", newline="", encoding="utf-8") as stream:
        stream.write(",".join(["clip", "frame", "time", *columns]) + "\n")
        for clip in clips:
            grid = arrays[f"{clip.name}/time"]
            cells = [np.full(len(grid), "", dtype=object) for _ in columns]
            for j, (base, i) in enumerate(columns.values()):
                key = f"{clip.name}/{base}"
                if key in arrays:
                    cells[j] = [f"{v:.17g}" for v in arrays[key][:, i]]
            name = _csv_field(clip.name)
            for frame, t in enumerate(grid):
                row = [name, str(frame), f"{t:.17g}", *(c[frame] for c in cells)]
                stream.write(",".join(row) + "\n")


def _csv_field(text: str) -> str:
    if any(ch in text for ch in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def summary(clips, arrays, fps, source) -> list[str]:
    """A table of the baked channels: frames, first and last values."""
    def fmt(row):
        return "(" + ", ".join(f"{v:.4g}" for v in row) + ")"

    lines = [f"{source} at {fps:g} fps (pass --out FILE.npz or FILE.csv to save):"]
    for clip in clips:
        grid = arrays[f"{clip.name}/time"]
        lines.append(f"  clip {clip.name!r}: {clip.duration:g} s, {len(grid)} frames")
        for channel in clip.channels:
            values = arrays[f"{clip.name}/{channel.target}/{channel.path}"]
            name = f"{channel.target}/{channel.path}"
            lines.append(f"    {name:<20} {channel.interpolation:<11} "
                         f"first {fmt(values[0])}  last {fmt(values[-1])}")
    return lines


def run(file, fps: float, clip_name, out, progress: str, fail, write=print) -> None:
    """The ``bake`` command; ``fail(message)`` reports a usage error (exit 2)."""
    from . import gltf

    extension = None if out is None else os.path.splitext(out)[1].lower()
    if out is not None and extension not in (".npz", ".csv"):
        fail(f"bake: --out must end in .npz or .csv, got {out!r}")
    try:
        frame_times(0.0, fps)
    except ValueError as error:
        fail(str(error))
    try:
        clips = gltf.load(file) if file is not None else gltf.load_sample()
    except (ValueError, OSError) as error:
        fail(f"bake: {error}")
    if clip_name is not None:
        chosen = [c for c in clips if c.name == clip_name]
        if not chosen:
            available = ", ".join(repr(c.name) for c in clips) or "none"
            fail(f"bake: no clip named {clip_name!r} (available: {available})")
        clips = chosen
    if not clips:
        fail(f"bake: {file} has no animations")
    arrays = bake(clips, fps, progress=progress)
    source = file if file is not None else "the built-in sample"
    if out is None:
        for line in summary(clips, arrays, fps, source):
            write(line)
        return
    try:
        if extension == ".npz":
            write_npz(out, arrays)
        else:
            write_csv(out, clips, arrays)
    except OSError as error:
        fail(f"bake: cannot write {out!r} ({error.strerror or error})")
    channels = sum(len(c.channels) for c in clips)
    frames = sum(len(arrays[f"{c.name}/time"]) for c in clips)
    write(f"baked {len(clips)} clip(s), {channels} channel(s), {frames} frame(s) at "
          f"{fps:g} fps from {source} -> {out}")
