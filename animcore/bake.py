"""``python -m animcore bake``: sample glTF clips on a frame grid and save them.

A ``.bvh`` file (motion capture) is baked the same way, its one clip named
after the file. ``--world`` bakes world transforms instead of the channels,
``--root-motion JOINT`` extracts a joint's ground motion first (see
:func:`add_rig_options`).

Every channel of every clip (or of one named clip) is evaluated at the frames
``0, 1/fps, 2/fps, ...`` up to the clip's duration, the last frame placed
exactly at the duration so that the final pose is always included (see
:func:`frame_times`).

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
    cell is empty where a clip does not animate that channel. Each number is
    the shortest decimal text that reads back to the precision it is stored
    in: channel values at float32, glTF's precision (a float32 key of 0.04 is
    ``0.04``, not its float64 expansion ``0.03999999910593033``), times at
    float64 (``1/30`` frames are
    ``0.03333333333333333``) unless a time is exactly a float32 key time (the
    clip's end). No negative zeros.
"""
from __future__ import annotations

import csv
import math
import os
import sys
import time

import numpy as np

from .gltf import Clip

__all__ = ["bake", "frame_times", "write_csv", "write_npz"]

_COMPONENTS = {"translation": "xyz", "scale": "xyz", "rotation": "xyzw",
               "world_translation": "xyz", "world_rotation": "xyzw", "world_scale": "xyz",
               "yaw": ["angle"]}
_BLOCK = 1 << 16  # frames per evaluation call, so long clips report progress
MAX_FRAMES = 100_000_000  # per clip: more is a mistyped --fps, not an animation


def _check_fps(fps: float) -> None:
    if not (math.isfinite(fps) and fps > 0):
        raise ValueError(f"bake: fps is {fps!r} (must be a finite number > 0)")


def frame_times(duration: float, fps: float) -> np.ndarray:
    """Frame times in seconds: ``k / fps`` for ``k = 0 .. n - 1``, then ``duration``
    itself as frame ``n``, where ``n = ceil(duration * fps)``.

    glTF stores key times as float32, so a 0.4 s clip lasts 0.4000000060 s; a
    product within a relative 1e-6 of an integer counts as that integer
    (0.4 s at 30 fps is 13 frames, not 14 with a last one 2e-7 frames later).
    The last frame is always the clip's end, so the final pose is baked exactly.
    """
    _check_fps(fps)
    if not (math.isfinite(duration) and duration >= 0):
        raise ValueError(f"bake: duration is {duration!r} (must be a finite number >= 0)")
    frames = duration * fps
    if not frames <= MAX_FRAMES:  # before allocating: also catches an infinite product
        raise ValueError(f"bake: {duration:g} s at fps={fps:g} would be {frames:.4g} frames "
                         f"(at most {MAX_FRAMES:,} per clip; lower the fps)")
    nearest = round(frames)
    last = nearest if abs(frames - nearest) <= 1e-6 * max(1.0, frames) else math.ceil(frames)
    grid = np.arange(last + 1, dtype=np.float64) / fps
    grid[-1] = duration
    return grid


class Progress:
    """A one-line progress bar on a stream (stderr). ``mode``: "always",
    "never", or "auto" (shown on a terminal once a job has run 0.5 s)."""

    def __init__(self, total: int, mode: str = "auto", stream=None, label: str = "bake",
                 unit: str = "channel frames"):
        self.total, self.mode, self.label, self.unit = max(int(total), 1), mode, label, unit
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
                          f"{100 * fraction:3.0f}% ({self.done}/{self.total} {self.unit})")
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
    grids = []
    for clip in clips:  # every grid's size is checked before any channel is sampled
        try:
            grids.append(frame_times(clip.duration, fps))
        except ValueError as error:
            raise ValueError(f"bake: clip {clip.name!r}: "
                             f"{str(error).replace('bake: ', '', 1)}") from None
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
    """Save baked arrays with ``numpy.savez_compressed`` under their keys, to
    ``path`` exactly (numpy would append ``.npz`` to a name such as ``X.NPZ``)."""
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)


def _columns(clips):
    columns = {}
    for clip in clips:
        for channel in clip.channels:
            base = f"{channel.target}/{channel.path}"
            names = _COMPONENTS.get(channel.path) or [str(i) for i in range(channel.width)]
            for i, name in enumerate(names):
                columns.setdefault(f"{base}/{name}", (base, i))
    return columns


def _value_text(values: np.ndarray) -> list[list[str]]:
    """Rows of channel values as the shortest text that reads back to the same
    float32 (the precision glTF stores), with no negative zeros."""
    narrow = values.astype(np.float32) + np.float32(0.0)  # + 0: -0.0 becomes 0.0
    return [[str(x) for x in row] for row in narrow]  # numpy's str is the shortest


def _time_text(grid: np.ndarray) -> list[str]:
    """Frame times as the shortest text that reads back to the same float64, or to
    the same float32 for a time that is exactly one (the clip's end, a key time)."""
    narrow = grid.astype(np.float32) + np.float32(0.0)
    return [str(n) if float(n) == t else repr(t + 0.0)
            for t, n in zip(grid.tolist(), narrow)]


def write_csv(path, clips: list[Clip], arrays: dict[str, np.ndarray], *,
              progress: str = "never", stream=None) -> None:
    """Save baked arrays in the CSV layout described in this module."""
    columns = _columns(clips)
    bar = Progress(sum(len(arrays[f"{c.name}/time"]) for c in clips), progress, stream,
                   label="write", unit="rows")
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["clip", "frame", "time", *columns])
        for clip in clips:
            grid = arrays[f"{clip.name}/time"]
            table = np.full((len(grid), len(columns)), np.nan)
            missing = []
            for j, (base, i) in enumerate(columns.values()):
                key = f"{clip.name}/{base}"
                if key in arrays:
                    table[:, j] = arrays[key][:, i]
                else:
                    missing.append(j)
            times = _time_text(grid)
            for start in range(0, len(grid), 4096):
                block = _value_text(table[start:start + 4096])
                rows = []
                for frame, cells in enumerate(block, start):
                    for j in missing:
                        cells[j] = ""
                    rows.append([clip.name, frame, times[frame], *cells])
                writer.writerows(rows)
                bar.update(len(rows))
    bar.close()


def summary(clips, arrays, fps, source) -> list[str]:
    """A table of the baked channels: frames, first and last values."""
    def fmt(row):
        return "(" + ", ".join(f"{v + 0.0:.4g}" for v in row) + ")"  # + 0.0: no "-0"

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


def add_rig_options(parser) -> None:
    """The bake options for rigs: world transforms, root motion, strictness."""
    parser.add_argument("--world", action="store_true",
                        help="bake the world-space translation, rotation and scale of every "
                             "node (or of --nodes) instead of the animated channels: keys "
                             "'<clip>/<node>/world_translation' etc.")
    parser.add_argument("--nodes", nargs="+", default=None, metavar="NAME",
                        help="with --world: only these nodes (names or indices)")
    parser.add_argument("--root-motion", default=None, metavar="JOINT",
                        help="extract the ground-plane motion and turn of JOINT (y up): baked "
                             "as '<clip>/root_motion/translation' and '.../yaw', the clip "
                             "keeping JOINT in place")
    parser.add_argument("--strict", action="store_true",
                        help="exit with status 1 when a clip has channels animcore does not "
                             "bake (KHR_animation_pointer to materials, lights, cameras)")


class _Baked:
    """A baked quantity that is not a channel of the file (a world transform, the
    root motion): what the summary and the CSV writer need to know of it."""

    def __init__(self, target, path, width, interpolation):
        self.target, self.path, self.width, self.interpolation = target, path, width, interpolation


def _unsupported_report(clips) -> list[str]:
    lines = []
    for clip in clips:
        if clip.unsupported:
            pointers = sorted({str(u.pointer) for u in clip.unsupported})
            shown = ", ".join(pointers[:3]) + (", ..." if len(pointers) > 3 else "")
            lines.append(f"bake: warning: clip {clip.name!r} has {len(clip.unsupported)} "
                         f"channel(s) animcore does not bake ({shown})")
    return lines


def _rig_arrays(scene, clips, fps, world, nodes, root_motion, fail):
    """Baked arrays and the clips describing them, for --world / --root-motion."""
    from .skeleton import extract_root_motion

    arrays, described = {}, []
    for clip in clips:
        grid = frame_times(clip.duration, fps)
        arrays[f"{clip.name}/time"] = grid
        extra = []
        if root_motion is not None:
            try:
                track, clip = extract_root_motion(scene, clip, root_motion)
            except (KeyError, ValueError) as error:
                fail(f"bake: --root-motion: {error.args[0] if error.args else error}")
            pose = track.sample(np.minimum(grid / track.duration, 1.0))
            arrays[f"{clip.name}/root_motion/translation"] = pose.position
            arrays[f"{clip.name}/root_motion/yaw"] = pose.rotation[:, None]
            extra = [_Baked("root_motion", "translation", 3, "root"),
                     _Baked("root_motion", "yaw", 1, "root")]
        if world:
            try:
                picked = [scene.node_index(_node_key(n)) for n in nodes] if nodes else \
                    list(range(len(scene.nodes)))
            except KeyError as error:
                fail(f"bake: --nodes: {error.args[0]}")
            try:
                trs = scene.skeleton.world_transforms(*scene.pose(clip, grid))
            except ValueError as error:
                fail(f"bake: --world: {error}")
            channels = []
            for j in picked:
                node = scene.nodes[j]
                target = node.name if node.name is not None else j
                for path, values in zip(("world_translation", "world_rotation", "world_scale"),
                                        trs):
                    arrays[f"{clip.name}/{target}/{path}"] = values[:, j]
                    channels.append(_Baked(target, path, values.shape[-1], "world"))
        else:
            channels = list(clip.channels)
            for key, value in bake([clip], fps).items():
                arrays[key] = value
        described.append(Clip(clip.name, clip.duration, tuple(channels + extra)))
    return arrays, described


def _node_key(name: str):
    return int(name) if name.isdigit() else name


def run(file, fps: float, clip_name, out, progress: str, fail, write=print, *,
        world: bool = False, nodes=None, root_motion=None, strict: bool = False,
        warn=None) -> int:
    """The ``bake`` command; ``fail(message)`` reports a usage error (exit 2).
    Returns the exit status: 1 with ``strict`` when a clip has channels that
    are not baked, else 0."""
    from . import gltf

    warn = warn or (lambda line: print(line, file=sys.stderr))
    if nodes and not world:
        fail("bake: --nodes needs --world")
    extension = None if out is None else os.path.splitext(out)[1].lower()
    if out is not None and extension not in (".npz", ".csv"):
        fail(f"bake: --out must end in .npz or .csv, got {out!r}")
    try:
        _check_fps(fps)
    except ValueError as error:
        fail(str(error))
    is_bvh = file is not None and file.lower().endswith(".bvh")
    rig = world or root_motion is not None or is_bvh
    try:
        if is_bvh:
            from . import bvh
            scene = bvh.load(file)
            clips = list(scene.clips)
        elif rig:
            scene = gltf.load_scene(file if file is not None else gltf.sample_path())
            clips = list(scene.clips)
        else:
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
    report = _unsupported_report(clips)
    for line in report:
        warn(line)
    if report and strict:
        warn("bake: --strict: not baking a file with channels animcore does not bake")
        return 1
    try:
        if world or root_motion is not None:
            arrays, clips = _rig_arrays(scene, clips, fps, world, nodes, root_motion, fail)
        else:
            arrays = bake(clips, fps, progress=progress)
    except ValueError as error:  # a frame grid too large to allocate
        fail(str(error))
    except MemoryError:
        frames = sum(clip.duration for clip in clips) * fps
        fail(f"bake: not enough memory for {frames:.4g} frames at fps={fps:g}: lower --fps "
             f"or bake one --clip")
    source = file if file is not None else "the built-in sample"
    if out is None:
        for line in summary(clips, arrays, fps, source):
            write(line)
        return 0
    try:
        if extension == ".npz":
            write_npz(out, arrays)
        else:
            write_csv(out, clips, arrays, progress=progress)
    except OSError as error:
        fail(f"bake: cannot write {out!r} ({error.strerror or error})")
    channels = sum(len(c.channels) for c in clips)
    frames = sum(len(arrays[f"{c.name}/time"]) for c in clips)
    write(f"baked {len(clips)} clip(s), {channels} channel(s), {frames} frame(s) at "
          f"{fps:g} fps from {source} -> {out}")
    return 0
