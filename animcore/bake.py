"""``python -m animcore bake``: sample glTF clips on a frame grid and save them.

A ``.bvh`` file (motion capture) is baked the same way, its one clip named
after the file, and so is a ``.usd``, ``.usda``, ``.usdc`` or ``.usdz`` file
(its UsdSkel animation, see :func:`animcore.usd.load`, or for a stage without
a Skeleton its animated xformOps as one clip named after the file; needs ``pip
install 'animcore[usd]'``): the reader is picked by the file's extension (see
:func:`load_input`). ``--world`` bakes world transforms instead of the channels,
``--root-motion JOINT`` extracts a joint's ground motion first (see
:func:`add_rig_options`).

Every channel of every clip (or of one named clip) is evaluated at the frames
``0, 1/fps, 2/fps, ...`` up to the clip's duration, the last frame placed
exactly at the duration so that the final pose is always included (see
:func:`frame_times`); an FBX clip's frames run from its stack's start to its
stop, in the file's own time (:meth:`animcore.fbx.FbxClip.frames`).

Output formats, chosen by the extension of ``--out``:

``.npz``
    One float64 array per channel, keyed ``"<clip>/<target>/<path>"`` with
    shape ``(frames, width)``, plus ``"<clip>/time"`` of shape ``(frames,)``.
    ``target`` is the node name, or the node index for unnamed nodes.
``.csv``
    One row per frame of each clip, comma separated, with a header:
    ``clip,frame,time,`` then one column per channel component named
    ``<target>/<path>/<component>`` (the ``clip`` cells hold ``<clip>`` as
    in the keys; components ``x,y,z`` for translation and
    scale, ``x,y,z,w`` for rotation, ``0..W-1`` for morph weights). When
    several clips are baked the columns are the union of their channels and a
    cell is empty where a clip does not animate that channel. Each number is
    the shortest decimal text that reads back to the precision it is stored
    in: channel values at float32, glTF's precision (a float32 key of 0.04 is
    ``0.04``, not its float64 expansion ``0.03999999910593033``), times at
    float64 (``1/30`` frames are
    ``0.03333333333333333``) unless a time is exactly a float32 key time (the
    clip's end). No negative zeros.

Names in keys and columns are escaped so that no two arrays or columns can
share a key, whatever the names hold (see :func:`array_key`): in ``<clip>``
and ``<path>`` the characters ``%``, ``/``, ``\\``, control characters
(NUL, newlines, ...) and unpaired surrogates become ``%XX``, the percent
encoding of their UTF-8 bytes; in ``<target>`` the same except ``/``, which
stays (a USD prim or joint path reads as itself). Names without those
characters are unchanged. As neither ``<clip>`` nor ``<path>`` then holds a
``/``, a key splits back into its names at its first and its last ``/``
(:func:`split_key`), so distinct names give distinct keys: clip ``c`` with
node ``n/x`` is ``c/n/x/rotation``, clip ``c/n`` with node ``x`` is
``c%2Fn/x/rotation``, and ``"<clip>/time"`` (one ``/``) is never a channel's
key (at least two).
"""
from __future__ import annotations

import collections
import contextlib
import csv
import dataclasses
import glob
import importlib
import math
import os
import re
import sys
import time
import unicodedata
import urllib.parse
from typing import Callable, NamedTuple, Union

import numpy as np

from ._arrays import integer
from .files import READERS
from .model import MAX_FRAMES  # noqa: F401 (bake.MAX_FRAMES)
from .model import Channel, Clip, _check_fps, extract_root_motion, frame_times
from .skeleton import decompose

__all__ = ["BakeRow", "array_key", "bake", "bake_local", "frame_times", "read_manifest",
           "split_key", "write_csv", "write_npz"]

_COMPONENTS = {"translation": "xyz", "scale": "xyz", "rotation": "xyzw",
               "world_translation": "xyz", "world_rotation": "xyzw", "world_scale": "xyz",
               "yaw": ["angle"]}
_BLOCK = 1 << 16  # frames per evaluation call, so long clips report progress
# Frames per clip a bake makes without being asked for more (``max_frames=``,
# ``--max-frames``): 1,000,000 frames is 9 hours at 30 fps, 8 MB per channel
# component. A clip with more keys than a quarter of that justifies a grid of
# four frames per key.
DEFAULT_MAX_FRAMES = 1_000_000
#: What ``progress=`` takes: "auto", "always", "never", or ``progress(done, total)``.
ProgressOption = Union[str, Callable[[int, int], object]]


# Characters escaped in the names of keys: the separator "/" (kept in node
# names), the escape "%", "\\" (a path separator to zip readers on Windows),
# control characters (a NUL ends a zip member's name) and unpaired surrogates
# (no UTF-8 form).
_UNSAFE_NAME = re.compile(r"[%/\\\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_UNSAFE_TARGET = re.compile(r"[%\\\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _percent(name: str, unsafe) -> str:
    """``name`` with each character ``unsafe`` matches as ``%XX`` per UTF-8 byte."""
    return unsafe.sub(lambda m: "".join(f"%{b:02X}" for b in
                                        m.group().encode("utf-8", "surrogatepass")), name)


def _clip_key(clip) -> str:
    return _percent(str(clip), _UNSAFE_NAME)


def _channel_key(target, path) -> str:
    return f"{_percent(str(target), _UNSAFE_TARGET)}/{_percent(str(path), _UNSAFE_NAME)}"


def array_key(clip, target=None, path: str = "time") -> str:
    """The key of a baked array: ``"<clip>/<target>/<path>"`` for a channel,
    ``"<clip>/time"`` (no ``target``) for a clip's frame times, with the
    names escaped as the module describes (``array_key("c/n", "x",
    "rotation") == "c%2Fn/x/rotation"``). ``target`` is a node name or index."""
    if target is None:
        return f"{_clip_key(clip)}/{_percent(str(path), _UNSAFE_NAME)}"
    return f"{_clip_key(clip)}/{_channel_key(target, path)}"


def split_key(key: str) -> tuple:
    """``(clip, target, path)`` of a key that :func:`array_key` made, its names
    unescaped; ``target`` is None for ``"<clip>/time"`` and a string (the
    digits, for a node index) otherwise."""
    def unescape(text):
        return urllib.parse.unquote(text, errors="surrogatepass")

    clip, _, rest = key.partition("/")
    if "/" not in rest:
        return unescape(clip), None, unescape(rest)
    target, _, path = rest.rpartition("/")
    return unescape(clip), unescape(target), unescape(path)


def check_frames(func: str, clips, fps: float, max_frames=None) -> None:
    """Refuses, before anything is allocated, a bad ``fps`` or ``max_frames``
    and a clip whose grid at ``fps`` would have more frames than the input
    justifies: more than ``max_frames`` (default :data:`DEFAULT_MAX_FRAMES`)
    and more than four per key of its densest channel. With no clips, checks
    the options alone."""
    _check_fps(fps)
    limit = DEFAULT_MAX_FRAMES if max_frames is None else max_frames
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise ValueError(f"{func}: max_frames is {max_frames!r} (must be an integer >= 1)")
    for clip in clips:
        keys = max((len(c.times) for c in clip.channels if hasattr(c, "times")), default=0)
        allowed = max(int(limit), 4 * keys)
        frames = clip.duration * fps
        if not frames <= allowed:  # also catches an infinite or NaN product
            raise ValueError(f"{func}: clip {clip.name!r}: {clip.duration:g} s at fps={fps:g} "
                             f"would be {frames:.4g} frames, more than its {keys} key(s) and "
                             f"max_frames={limit:,} justify (raise max_frames / --max-frames "
                             "to bake it)")


class Progress:
    """Progress of a job of ``total`` units (channel frames, rows, files).

    ``mode`` is one of:

    ``"auto"``
        once the job has run 0.5 s, a `tqdm <https://tqdm.github.io>`_ bar
        from ``tqdm.auto`` (a widget in Jupyter) when tqdm is installed and
        the job runs in a notebook or ``stream`` (stderr) is a terminal;
        without tqdm, a one-line bar on a terminal; else nothing;
    ``"always"``
        the one-line bar on ``stream``, terminal or not;
    ``"never"``
        nothing;
    a callable
        ``progress(done, total)``, called as the job advances and once at the
        end with ``done == total``.

    However large the job, it is reported at most :attr:`STEPS` times plus
    once at the end (each report is at least ``total / STEPS`` units after
    the previous one), and a bar is redrawn at most every
    :attr:`INTERVAL` seconds.
    """

    STEPS = 200
    INTERVAL = 0.25  # seconds between redraws of a bar

    def __init__(self, total: int, mode: ProgressOption = "auto", stream=None,
                 label: str = "bake", unit: str = "channel frames"):
        check_progress(label, mode)
        self.total, self.mode, self.label, self.unit = max(int(total), 0), mode, label, unit
        self.stream = sys.stderr if stream is None else stream
        self.done = self.reported = 0
        self.start = self.drawn = time.perf_counter()
        self.shown = False
        self.bar = None  # a tqdm bar
        self.step = max(self.total / self.STEPS, 1)
        tty = getattr(self.stream, "isatty", lambda: False)()
        if callable(mode):
            self.enabled = True
        elif mode == "auto":
            self.bar = _tqdm_bar(self.total, self.stream, tty, label, unit)
            self.enabled = self.bar is not None or tty
        else:
            self.enabled = mode == "always"

    def update(self, amount: int) -> None:
        """Adds ``amount`` units done; reports when due."""
        self.done = min(self.done + amount, self.total)
        if not self.enabled or self.done - self.reported < self.step:
            return
        if callable(self.mode):
            self._report()
            return
        now = time.perf_counter()
        if now - self.drawn < self.INTERVAL or (
                self.bar is None and self.mode == "auto" and not self.shown
                and now - self.start < 0.5):
            return
        self.drawn = now
        self._report()

    def _report(self) -> None:
        if callable(self.mode):
            self.mode(self.done, self.total)
        elif self.bar is not None:
            self.bar.update(self.done - self.reported)
        else:
            fraction = self.done / max(self.total, 1)
            filled = int(round(30 * fraction))
            self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                              f"{100 * fraction:3.0f}% ({self.done}/{self.total} {self.unit})")
            self.stream.flush()
        self.reported, self.shown = self.done, True

    def close(self) -> None:
        """Reports the end (``done == total``), once."""
        if not self.enabled:
            return
        self.done = self.total
        if callable(self.mode):
            if self.reported != self.total or not self.shown:
                self._report()
        elif self.bar is not None:
            self._report()
            self.bar.close()
        elif self.shown or self.mode == "always":
            self._report()
            self.stream.write("\n")
            self.stream.flush()
        self.enabled = False


def check_progress(func: str, progress) -> None:
    """Refuses a ``progress`` that is not a mode of :class:`Progress` or a callable."""
    if not (callable(progress) or (isinstance(progress, str)
                                   and progress in ("auto", "always", "never"))):
        raise ValueError(f"{func}: progress is {progress!r} (must be 'auto', 'always', "
                         "'never' or a callable progress(done, total))")


def _tqdm_bar(total: int, stream, tty: bool, label: str, unit: str):
    """A ``tqdm.auto`` bar for ``progress="auto"``, or None: without tqdm, or
    outside a notebook when ``stream`` is not a terminal."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    notebook = any(c.__module__ == "tqdm.notebook" for c in tqdm.__mro__)
    if not (tty or notebook):
        return None
    options = dict(total=total, desc=label, unit=" " + unit, file=stream,
                   mininterval=Progress.INTERVAL)
    try:  # shown once the job has run 0.5 s, as the plain bar is
        return tqdm(delay=0.5, **options)
    except TypeError:  # a tqdm older than 4.58
        return tqdm(**options)


def bake(clips: list[Clip], fps: float, *, progress: ProgressOption = "never",
         stream=None, max_frames=None) -> dict[str, np.ndarray]:
    """Sample every channel of ``clips`` on the frame grid of ``fps``.

    ``progress`` is ``"never"``, ``"auto"``, ``"always"`` or a callable
    ``progress(done, total)`` counting channel frames (see :class:`Progress`);
    ``stream`` is where a bar is drawn (stderr).

    A clip whose grid would have more than ``max_frames`` frames (default
    :data:`DEFAULT_MAX_FRAMES`, or four per key where the clip has more keys)
    is refused with a ValueError before anything is allocated.

    Returns
    -------
    dict
        ``"<clip>/time"`` -> (frames,) seconds and ``"<clip>/<target>/<path>"``
        -> (frames, width) values, in clip and channel order, the names in the
        keys escaped so that no two keys are equal (see :func:`array_key`:
        ``%``, ``/`` outside the node name, ``\\`` and control characters
        become ``%XX``; other names are unchanged). Two clips of
        the same name (from two files, say) are a ValueError: their keys would
        mix (rename one with ``dataclasses.replace(clip, name=...)``).
    """
    first = {}
    for i, clip in enumerate(clips):
        j = first.setdefault(clip.name, i)
        if j != i:
            raise ValueError(f"bake: clips at index {j} and {i} are both named {clip.name!r} "
                             "(their arrays would share keys; rename one)")
    check_frames("bake", clips, fps, max_frames)
    grids = []
    for clip in clips:  # every grid's size is checked before any channel is sampled
        try:
            grids.append(clip.frames(fps, func="bake"))
        except ValueError as error:
            raise ValueError(f"bake: clip {clip.name!r}: "
                             f"{str(error).replace('bake: ', '', 1)}") from None
    total = sum(len(grid) * len(clip.channels) for clip, grid in zip(clips, grids))
    bar = Progress(total, progress, stream)
    arrays: dict[str, np.ndarray] = {}
    for clip, grid in zip(clips, grids):
        arrays[array_key(clip.name)] = grid
        for channel in clip.channels:
            values = np.empty((len(grid), channel.width))
            for start in range(0, len(grid), _BLOCK):
                block = grid[start:start + _BLOCK]
                values[start:start + len(block)] = channel.sample(block)
                bar.update(len(block))
            arrays[array_key(clip.name, channel.target, channel.path)] = values
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
            base = _channel_key(channel.target, channel.path)
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
              progress: ProgressOption = "never", stream=None) -> None:
    """Save baked arrays in the CSV layout described in this module."""
    columns = _columns(clips)
    bar = Progress(sum(len(arrays[array_key(c.name)]) for c in clips), progress, stream,
                   label="write", unit="rows")
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["clip", "frame", "time", *columns])
        for clip in clips:
            grid = arrays[array_key(clip.name)]
            table = np.full((len(grid), len(columns)), np.nan)
            missing = []
            for j, (base, i) in enumerate(columns.values()):
                key = f"{_clip_key(clip.name)}/{base}"
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
                    rows.append([_clip_key(clip.name), frame, times[frame], *cells])
                writer.writerows(rows)
                bar.update(len(rows))
    bar.close()


def summary(clips, arrays, fps, source) -> list[str]:
    """A table of the baked channels: frames, first and last values."""
    def fmt(row):
        return "(" + ", ".join(f"{v + 0.0:.4g}" for v in row) + ")"  # + 0.0: no "-0"

    lines = [f"{source} at {fps:g} fps (pass --out FILE.npz or FILE.csv to save):"]
    for clip in clips:
        grid = arrays[array_key(clip.name)]
        lines.append(f"  clip {clip.name!r}: {clip.duration:g} s, {len(grid)} frames")
        for channel in clip.channels:
            values = arrays[array_key(clip.name, channel.target, channel.path)]
            name = _channel_key(channel.target, channel.path)
            kind = channel.interpolation or "curve"  # None: no glTF sampler form (a spline)
            lines.append(f"    {name:<20} {kind:<11} "
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
                        help="extract the ground-plane motion and turn of JOINT (a name, or "
                             "an index when all digits; y up): baked as "
                             "'<clip>/root_motion/translation' and '.../yaw', the clip "
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
            pointers = sorted({str(u) for u in clip.unsupported})
            shown = ", ".join(pointers[:3]) + (", ..." if len(pointers) > 3 else "")
            lines.append(f"bake: warning: clip {clip.name!r} has {len(clip.unsupported)} "
                         f"channel(s) animcore does not bake ({shown})")
    return lines


def _rig_arrays(scene, clips, fps, world, nodes, root_motion, fail, max_frames=None):
    """Baked arrays and the clips describing them, for --world / --root-motion."""
    arrays, described = {}, []
    for clip in clips:
        grid = clip.frames(fps, func="bake")
        time_key = array_key(clip.name)
        arrays[time_key] = grid
        extra = []
        if root_motion is not None:
            try:
                track, clip = extract_root_motion(scene, clip, _node_key(root_motion))
            except (KeyError, ValueError) as error:
                fail(f"bake: --root-motion: {error.args[0] if error.args else error}")
            pose = track.sample(np.minimum((grid - grid[0]) / track.duration, 1.0))
            arrays[array_key(clip.name, "root_motion", "translation")] = pose.position
            arrays[array_key(clip.name, "root_motion", "yaw")] = pose.rotation[:, None]
            extra = [_Baked("root_motion", "translation", 3, "root"),
                     _Baked("root_motion", "yaw", 1, "root")]
        if world:
            try:
                picked = [scene.node_index(_node_key(n)) for n in nodes] if nodes else \
                    list(range(len(scene.nodes)))
            except KeyError as error:
                fail(f"bake: --nodes: {error.args[0]}")
            try:
                # the scene's own world (FbxScene: FBX's transform formula, in its units)
                trs = decompose(scene.world(clip, grid))
            except (ValueError, OverflowError) as error:
                fail(f"bake: --world: {error}")
            channels = []
            names = [node.name for node in scene.nodes]
            counts = collections.Counter(names)
            for j in dict.fromkeys(picked):  # a node given twice is baked once
                # as a channel's target: the name, unless another node has it too
                # or it is the digits of another node's index, else the index
                name = names[j]
                target = name if (name is not None and counts[name] == 1 and not (
                    name.isdigit() and name != str(j))) else j
                for path, values in zip(("world_translation", "world_rotation", "world_scale"),
                                        trs):
                    arrays[array_key(clip.name, target, path)] = values[:, j]
                    channels.append(_Baked(target, path, values.shape[-1], "world"))
        else:
            channels = list(clip.channels)
            for key, value in bake([clip], fps, max_frames=max_frames).items():
                if key in arrays and key != time_key:  # a node named root_motion
                    fail(f"bake: --root-motion: a node named 'root_motion' has the key "
                         f"{key!r} of the root motion")
                arrays[key] = value
        described.append(Clip(clip.name, clip.duration, tuple(channels + extra)))
    return arrays, described


def _node_key(name):
    """A node given on the command line (--nodes, --root-motion): an index when
    it is all digits."""
    return int(name) if isinstance(name, str) and name.isdigit() else name


# every suffix animcore.load reads (one table for both: animcore.files.READERS)
INPUT_SUFFIXES = tuple(READERS)


def _xform_clip(path, curves: dict) -> Clip:
    """One clip, named after the file, of the animated xformOps that
    :func:`animcore.usd.load` reads from a stage without a Skeleton: a channel
    per op, its target the prim's path and its path the op's name, so that the
    op ``/World/Cube.xformOp:translate`` bakes to
    ``"<clip>//World/Cube/xformOp:translate"`` (the op's own values: degrees
    for ``rotateXYZ``-style ops, x, y, z, w for ``orient``, 16 matrix numbers
    for ``transform``)."""
    channels, prims = [], {}
    for attribute, curve in curves.items():
        prim, _, op = attribute.rpartition(".")
        channels.append(Channel._of_curve(prims.setdefault(prim, len(prims)), prim, op, curve))
    duration = max((float(c.times[-1]) for c in channels), default=0.0)
    name = os.path.splitext(os.path.basename(str(path)))[0]
    return Clip(name, duration, tuple(channels))


def load_input(path, *, scene: bool = False):
    """``(scene, clips)`` of a file, read by the reader its extension names in
    :data:`animcore.files.READERS` (:func:`animcore.bvh.load`,
    :func:`animcore.fbx.load`, :func:`animcore.usd.load`), glTF otherwise. ``scene`` is
    None for a glTF file unless ``scene=True`` (reading only the clips is
    cheaper, and enough without ``--world`` or ``--root-motion``).

    A USD stage without a Skeleton gives no scene and one clip of its
    animated xformOps (see :func:`_xform_clip`); with ``scene=True`` it is a
    ValueError naming the file (there is no rig to pose).

    Raises what the reader raises: ValueError (a malformed file), OSError,
    ImportError (USD without ``usd-core``)."""
    from . import gltf

    lower = str(path).lower()  # a path, a str or the sample's Traversable
    module = READERS.get(os.path.splitext(lower)[1], ("gltf",))[0]
    if module == "gltf":
        if not scene:
            return None, list(gltf.load(path))
        loaded = gltf.load_scene(path)
    elif module == "usd":
        from . import usd
        loaded = usd.load(path)
        if isinstance(loaded, dict):  # no Skeleton: the stage's animated xformOps
            if scene:
                raise ValueError(f"{path}: a USD stage without a Skeleton has no rig for "
                                 "--world, --root-motion or --reduce (its animated xformOps "
                                 "bake without them)")
            return None, [_xform_clip(path, loaded)]
    else:  # the other readers return a Scene: BVH, FBX
        loaded = importlib.import_module(f".{module}", __package__).load(path)
    return loaded, list(loaded.clips)


def bake_clips(scene, clips, fps: float, fail, *, world: bool = False, nodes=None,
               root_motion=None, max_frames=None):
    """``(arrays, described clips)`` of ``clips``: their channels sampled on the
    frame grid, or with ``world`` / ``root_motion`` (which need the ``scene``)
    the rig's world transforms and root motion. ``fail(message)`` reports an
    option the scene does not fit (a node it does not have) and must raise.
    The one bake behind the single-file and the many-file commands."""
    if world or root_motion is not None:
        check_frames("bake", clips, fps, max_frames)  # every clip, before the first is baked
        return _rig_arrays(scene, clips, fps, world, nodes, root_motion, fail, max_frames)
    return bake(clips, fps, max_frames=max_frames), list(clips)


def run(file, fps: float, clip_name, out, progress: str, fail, write=print, *,
        world: bool = False, nodes=None, root_motion=None, strict: bool = False,
        warn=None, max_frames=None, error=None, reduce=None) -> int:
    """The ``bake`` command; ``reduce`` (a tolerance in scene units, or None)
    first reduces every clip with :func:`animcore.reduce_clip` (shell 0.03)
    and reports the keys kept (a scene read from FBX is reduced and baked in
    its glTF form, ``FbxScene.for_gltf`` at ``fps``). ``fail(message)``
    reports a usage error (an option that is wrong whatever the file: exit
    2), ``error(message)`` one of the data (a file that does not read, a clip
    or node it does not have: exit 1; default ``fail``); both must raise
    (``strict`` with channels that are not baked is one of the data). Returns
    0."""
    from . import gltf

    warn = warn or (lambda line: print(line, file=sys.stderr))
    error = error or fail
    if nodes and not world:
        fail("bake: --nodes needs --world")
    extension = None if out is None else os.path.splitext(out)[1].lower()
    if out is not None and extension not in (".npz", ".csv"):
        fail(f"bake: --out must end in .npz or .csv, got {out!r}")
    try:
        check_frames("bake", [], fps, max_frames)
    except ValueError as failure:
        fail(str(failure))
    try:
        scene, clips = load_input(file if file is not None else gltf.sample_path(),
                                  scene=world or root_motion is not None or reduce is not None)
    except (ValueError, OSError, ImportError) as failure:
        error(f"bake: {failure}")
    if clip_name is not None:
        chosen = [c for c in clips if c.name == clip_name]
        if not chosen:
            available = ", ".join(repr(c.name) for c in clips) or "none"
            error(f"bake: no clip named {clip_name!r} (available: {available})")
        clips = chosen
    if not clips:
        error(f"bake: {file} has no animations")
    if reduce is not None:
        from .reduce import reduce_report
        try:  # (the grids' sizes, before an FBX's glTF form is sampled on one)
            check_frames("bake", clips, fps, max_frames)
        except ValueError as failure:
            error(str(failure))
        stacks = {c.name: c for c in clips}
        try:
            lines, scene, clips = reduce_report(dataclasses.replace(scene, clips=tuple(clips)),
                                                reduce, 0.03, fps=fps)
        except (ValueError, OverflowError) as failure:
            error(f"bake: --reduce: {failure}")
        except MemoryError:
            error(f"bake: --reduce: not enough memory at fps={fps:g}: lower --fps")
        if not clips:  # (an FBX clip without channels has no glTF form)
            error(f"bake: --reduce: {file} has no animated channels to reduce")
        for line in lines:
            warn(line)
        clips = [_on_stack(c, stacks[c.name]) for c in clips]
    report = _unsupported_report(clips)
    for line in report:
        warn(line)
    if report and strict:
        error("bake: --strict: not baking a file with channels animcore does not bake")
    try:
        if world or root_motion is not None:
            arrays, clips = bake_clips(scene, clips, fps, error, world=world, nodes=nodes,
                                       root_motion=root_motion, max_frames=max_frames)
        else:
            arrays = bake(clips, fps, progress=progress, max_frames=max_frames)
    except ValueError as failure:  # a frame grid too large to allocate
        error(str(failure))
    except MemoryError:
        frames = sum(clip.duration for clip in clips) * fps
        error(f"bake: not enough memory for {frames:.4g} frames at fps={fps:g}: lower --fps "
              f"or bake one --clip")
    source = file if file is not None else "the built-in sample"
    if out is None:
        for line in summary(clips, arrays, fps, source):
            write(line)
        return 0
    try:  # (renamed into place once whole: a failed write leaves no partial file)
        if extension == ".npz":
            write_atomic(out, lambda temporary: write_npz(temporary, arrays), "bake")
        else:
            write_atomic(out, lambda temporary: write_csv(temporary, clips, arrays,
                                                          progress=progress), "bake")
    except OSError as failure:
        error(f"bake: cannot write {out!r} ({failure.strerror or failure})")
    channels = sum(len(c.channels) for c in clips)
    frames = sum(len(arrays[array_key(c.name)]) for c in clips)
    write(f"baked {len(clips)} clip(s), {channels} channel(s), {frames} frame(s) at "
          f"{fps:g} fps from {source} -> {out}")
    return 0


def _on_stack(reduced: Clip, original: Clip) -> Clip:
    """A reduced clip baked on the frames of the clip it reduces: an FBX clip's
    glTF form lasts to its last key from time 0, where the stack that bake
    samples without --reduce has its own start and stop."""
    from .fbx import FbxClip

    if not isinstance(original, FbxClip):
        return reduced  # (the same span: from 0 to the last key)
    return dataclasses.replace(original, channels=reduced.channels,
                               unsupported=reduced.unsupported, layers=())


# -- many files: one output per clip, written atomically, and a manifest ------------

MANIFEST = "manifest.csv"
KEYS = "keys.csv"  # the manifest's table of array keys


class BakeRow(NamedTuple):
    """One manifest row: a clip baked to ``output`` (its path in the output
    folder, ``/``-separated), or a file that failed (``clip`` and ``output``
    empty, ``error`` says why: the message of a ValueError, else the
    exception's type and message). ``keys``: ``(node, path, key)`` for each
    array of the output, ``key`` its key in the ``.npz`` (the column prefix
    in a ``.csv``, ``time`` for the time column); ``node`` is the node's name
    or index as text, empty for the frame times (``path`` ``time``)."""

    file: str
    clip: str
    frames: int
    channels: int
    output: str
    error: str
    keys: tuple = ()


def expand_inputs(patterns) -> list[str]:
    """Input files from paths, glob patterns and folders (their glTF, BVH and
    USD files, sorted: see :data:`INPUT_SUFFIXES`), in the order given, each
    once. A path that names an existing file is that file, even when it reads
    as a pattern (``take[1].bvh``); a pattern that matches nothing is kept as
    it is, so that it is reported as a failed file."""
    files: list[str] = []
    seen: set[str] = set()  # a list's `in` would make thousands of files quadratic
    for pattern in [os.fspath(p) for p in patterns]:
        if os.path.isdir(pattern):
            matches = sorted(os.path.join(pattern, name) for name in os.listdir(pattern)
                             if name.lower().endswith(INPUT_SUFFIXES))
        elif glob.has_magic(pattern) and not os.path.isfile(pattern):
            matches = _glob_once(pattern) or [pattern]
        else:
            matches = [pattern]
        for match in matches:
            real = os.path.realpath(match)  # a file reached by two links is baked once
            if real not in seen:
                seen.add(real)
                files.append(match)
    return files


def _pattern_regex(pattern: str):
    """A glob pattern as a regular expression over '/'-separated paths: ``*``,
    ``?`` and ``[...]`` stay inside one component, ``**`` spans any number."""
    parts = []
    components = pattern.replace(os.sep, "/").split("/")
    for k, component in enumerate(components):
        if component == "**":  # (a last one: every file below)
            parts.append("(?:[^/]+/)*[^/]+/" if k == len(components) - 1 else "(?:[^/]+/)*")
            continue
        out, i = "", 0
        while i < len(component):
            c = component[i]
            if c == "*":
                out += "[^/]*"
            elif c == "?":
                out += "[^/]"
            elif c == "[" and "]" in component[i + 2:] or c == "[" and component[i + 1:i + 2] == "]":
                end = component.index("]", i + 2)
                body = component[i + 1:end]
                out += "[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]"
                i = end
            else:
                out += re.escape(c)
            i += 1
        parts.append(out + "/")
    return re.compile("".join(parts)[:-1] + r"\Z", re.S)


def _glob_once(pattern: str) -> list[str]:
    """The files a glob pattern matches, sorted, walking each real directory
    once: a directory link seen before (a link to an ancestor, two links to
    one folder) is not followed again, so ``**`` ends on any tree."""
    parts = pattern.replace(os.sep, "/").split("/")
    fixed = next(i for i, part in enumerate(parts) if glob.has_magic(part))
    root = "/".join(parts[:fixed]) or ("/" if pattern.startswith("/") else ".")
    if "**" not in parts:  # (files: a folder it matches is no input)
        return sorted(p for p in glob.glob(pattern) if os.path.isfile(p))
    regex = _pattern_regex(pattern if fixed or pattern.startswith("/") else "./" + pattern)
    visited, found = set(), []
    for folder, dirs, names in os.walk(root, followlinks=True):
        real = os.path.realpath(folder)
        if real in visited:
            dirs[:] = []
            continue
        visited.add(real)
        dirs.sort()
        for name in names + dirs:
            path = os.path.join(folder, name)
            if regex.match(path.replace(os.sep, "/")) and os.path.isfile(path):
                found.append(path if fixed or pattern.startswith("/") else path[2:])
    return sorted(found)


def _fold(name: str) -> str:
    """What a case-insensitive or normalizing file system (Windows, macOS)
    compares of a name."""
    return unicodedata.normalize("NFC", name).casefold()


def _unique(name: str, taken: set) -> str:
    """``name``, or its first free ``.1``, ``.2``, ... suffix when a name
    ``taken`` already folds to the same (see :func:`_fold`); then taken."""
    unique, k = name, 0
    while _fold(unique) in taken:
        k += 1
        unique = f"{name}.{k}"
    taken.add(_fold(unique))
    return unique


def plan_outputs(files) -> list[str]:
    """The output folder of each input file, relative to the output folder and
    ``/``-separated: the file's path relative to the deepest folder that holds
    every input, file name and extension included (``x/a.glb`` and ``y/a.glb``
    bake into ``x/a.glb/`` and ``y/a.glb/``). Names that a case-insensitive
    file system would confuse with an earlier one in the same folder (or, at
    the top, with ``manifest.csv`` and ``keys.csv``) take the first free
    ``.1``, ``.2``, ... suffix, so that no two files share a folder."""
    absolute = [os.path.abspath(os.fspath(f)) for f in files]
    try:
        root = os.path.commonpath([os.path.dirname(a) for a in absolute]) if absolute else ""
    except ValueError:  # files on several drives: the drive is the first folder
        root = None
    taken: dict[tuple, set] = {(): {_fold(MANIFEST), _fold(KEYS)}}
    named: dict[tuple, str] = {}  # (output folder, input name) -> output name
    prefixes = []
    for path in absolute:
        if root is None:
            drive, rest = os.path.splitdrive(path)
            parts = [drive.strip(":\\/") or "root"] + rest.strip(os.sep).split(os.sep)
        else:
            parts = os.path.relpath(path, root).split(os.sep)
        folder: tuple = ()
        for part in parts:
            if (folder, part) not in named:
                named[folder, part] = _unique(part, taken.setdefault(folder, set()))
            folder += (named[folder, part],)
        prefixes.append("/".join(folder))
    return prefixes


# Characters a clip's output file name escapes besides those of keys: the
# ones Windows refuses in names.
_UNSAFE_FILE = re.compile(r'[%/\\\x00-\x1f\x7f-\x9f\ud800-\udfff<>:"|?*]')
_DEVICES = re.compile(r"(CON|PRN|AUX|NUL|COM\d|LPT\d)(\.|$)", re.I)


def output_name(clip: str) -> str:
    """A clip's output file name without the extension: the name with ``%``,
    ``/``, ``\\``, ``<>:"|?*``, control characters and unpaired surrogates
    percent-encoded (``%XX`` per UTF-8 byte), and a leading ``.`` or space,
    or the first letter of a Windows device name (``CON``, ``NUL.x``), too;
    the empty name is ``%``. Distinct names give distinct file names (``%``
    itself is encoded)."""
    name = _percent(str(clip), _UNSAFE_FILE)
    if name[:1] in (".", " ") or _DEVICES.match(name):
        name = f"%{ord(name[0]):02X}{name[1:]}"
    return name or "%"  # no other name gives a lone "%"


def write_atomic(path: str, write, token: str, suffix: str = "") -> None:
    """``write(temporary_path)``, then rename it to ``path``: a reader (or a
    process killed while writing) never leaves a partial ``path``. Temporary
    files are ``.<name>.<token>.<pid>.part`` beside it (see :func:`remove_parts`),
    then ``suffix`` (for a writer that reads the format off the name)."""
    folder, name = os.path.split(path)
    temporary = os.path.join(folder, f".{name}.{token}.{os.getpid()}.part{suffix}")
    try:
        write(temporary)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise


def remove_parts(out_dir: str, token: str) -> int:
    """Removes the temporary files that killed processes of job ``token`` left
    in ``out_dir`` and its folders; returns how many."""
    removed = 0
    for folder, _, names in os.walk(out_dir):
        for name in names:
            if name.startswith(".") and f".{token}." in name and name.endswith(".part"):
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(folder, name))
                    removed += 1
    return removed


def check_options(func: str, fps: float, format: str = "npz", *, world: bool = False,
                  nodes=None, root_motion=None, max_frames=None, progress="never",
                  workers=None) -> None:
    """The options of a many-file bake, checked before any file is read."""
    check_frames(func, [], fps, max_frames)
    check_progress(func, progress)
    if workers is not None:
        integer(func, "workers", workers, 1)
    if not (isinstance(format, str) and format in ("npz", "csv")):
        raise ValueError(f"{func}: format is {format!r} (must be 'npz' or 'csv')")
    if nodes is not None and not world:
        raise ValueError(f"{func}: nodes needs world=True")
    listed = isinstance(nodes, (list, tuple)) or getattr(nodes, "ndim", None) == 1
    if nodes is not None and not (listed and len(nodes)):
        raise ValueError(f"{func}: nodes is {nodes!r} (must be a non-empty list of node "
                         f"names or indices)")
    if root_motion is not None and not isinstance(root_motion, (str, int)):
        raise ValueError(f"{func}: root_motion is {root_motion!r} (must be a joint name "
                         f"or index)")


def _raise(message: str):
    raise ValueError(message)


def _error_text(error: BaseException) -> str:
    """A failure as a manifest row says it: a ValueError's message (the
    readers' and bake's errors name the file and the place), else the
    exception's type and message."""
    if isinstance(error, ValueError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _without_file(message: str, file: str) -> str:
    """A row's error without the file it starts with (a reader's errors name
    the file read, as given or absolute), for a line that names it already."""
    for name in (file, os.path.abspath(file)):
        if message.startswith(name + ": "):
            return message[len(name) + 2:]
    return message


def failed_rows(files, error: BaseException) -> list[BakeRow]:
    """One failed :class:`BakeRow` per file of ``files``, saying ``error``
    (see :func:`_error_text`): a file, or a batch whose task failed as a whole."""
    return [BakeRow(f, "", 0, 0, "", _error_text(error)) for f in files]


def bake_file(file: str, prefix: str, out_dir: str, fps: float, *, clip=None,
              format: str = "npz", token: str = "bake", path=None, world: bool = False,
              nodes=None, root_motion=None, strict: bool = False,
              max_frames=None) -> list[BakeRow]:
    """Bakes every clip of one glTF, BVH, FBX or USD file (or the one named
    ``clip``) into the folder ``out_dir/<prefix>`` (see :func:`plan_outputs`),
    one ``<clip>.<format>`` per clip (its name escaped by
    :func:`output_name`; names a case-insensitive file system would confuse
    take the first free ``.1``, ``.2``, ... suffix), each written atomically,
    with the options of ``python -m animcore bake`` for one file (``world``,
    ``nodes``, ``root_motion``, ``strict``), so that each output holds what
    that command writes for the clip. Returns one :class:`BakeRow` per clip,
    or a single failed row: errors are data here, whatever their type, so
    that one bad file never stops a batch; only ``MemoryError`` outside the
    bake of a clip, ``KeyboardInterrupt`` and ``SystemExit`` (the process's
    own failures) propagate. ``file`` is the name reported in the rows;
    ``path`` the one opened (default: ``file``)."""
    try:
        return _bake_file(file, prefix, out_dir, fps, clip, format, token,
                          file if path is None else path, strict,
                          dict(world=world, nodes=nodes, root_motion=root_motion,
                               max_frames=max_frames))
    except MemoryError:
        raise
    except Exception as error:  # a reader's or the file's failure, whatever its type
        return failed_rows([file], error)


def _bake_file(file, prefix, out_dir, fps, clip, format, token, path, strict, rig):
    scene, clips = load_input(path, scene=rig["world"] or rig["root_motion"] is not None)
    if clip is not None:
        clips = [c for c in clips if c.name == clip]
        if not clips:
            return [BakeRow(file, "", 0, 0, "", f"no clip named {clip!r}")]
    if not clips:
        return [BakeRow(file, "", 0, 0, "", "has no animations")]
    report = _unsupported_report(clips)
    if report and strict:
        return [BakeRow(file, "", 0, 0, "", "not baked (strict): " + "; ".join(
            line.replace("bake: warning: ", "", 1) for line in report))]
    folder = os.path.join(out_dir, *prefix.split("/"))
    rows, taken = [], set()
    for c in clips:
        output = f"{prefix}/{_unique(output_name(c.name), taken)}.{format}"
        try:
            arrays, described = bake_clips(scene, [c], fps, _raise, **rig)
            os.makedirs(folder, exist_ok=True)
            target = os.path.join(out_dir, *output.split("/"))
            if format == "npz":
                write_atomic(target, lambda temporary: write_npz(temporary, arrays), token)
            else:
                write_atomic(target, lambda temporary: write_csv(temporary, described, arrays),
                             token)
        except MemoryError:
            rows.append(BakeRow(file, c.name, 0, len(c.channels), "",
                                f"not enough memory for {c.duration * fps:.4g} frames at "
                                f"fps={fps:g}"))
            continue
        except Exception as error:  # this clip's failure; the file's other clips go on
            rows.append(BakeRow(file, c.name, 0, len(c.channels), "", _error_text(error)))
            continue
        # the .npz keys are array_key's; a .csv's column prefixes drop the "<clip>/"
        clip_part = f"{_clip_key(c.name)}/" if format == "npz" else ""
        keys = [(str(ch.target), ch.path, clip_part + _channel_key(ch.target, ch.path))
                for ch in described[0].channels]
        rows.append(BakeRow(file, c.name, len(arrays[array_key(c.name)]),
                            len(described[0].channels), output, "",
                            (("", "time", clip_part + "time"), *keys)))
    return rows


def bake_batch(jobs, out_dir: str, fps: float, **options) -> list[BakeRow]:
    """:func:`bake_file` for each ``(file, path, prefix)`` of a batch (the unit
    of work sent to a worker process), with the same ``options``."""
    return [row for file, path, prefix in jobs
            for row in bake_file(file, prefix, out_dir, fps, path=path, **options)]


def batches(files, prefixes, sizes) -> list[list[tuple[str, str, str]]]:
    """``(file, absolute path, prefix)`` jobs in batches: of ``sizes`` files
    each (an int), or of the given sizes in turn (see :func:`batch_sizes`)."""
    jobs = [(f, os.path.abspath(f), p) for f, p in zip(files, prefixes)]
    if isinstance(sizes, int):
        sizes = [sizes] * math.ceil(len(jobs) / sizes)
    work, start = [], 0
    for size in sizes:
        if start < len(jobs):
            work.append(jobs[start:start + size])
        start += size
    return work


def batch_sizes(files: int, workers: int, largest: int = 50) -> list[int]:
    """Files per task, task by task: a quarter of an even share of the files
    still left, at most ``largest`` (a lost worker loses little). Tasks shrink
    towards the end (the last ones are single files), so the workers finish
    together instead of one waiting for another's last large batch."""
    sizes, left = [], files
    while left > 0:
        sizes.append(max(1, min(largest, math.ceil(left / (4 * max(1, workers))))))
        left -= sizes[-1]
    return sizes


def write_manifest(out_dir: str, rows, token: str = "bake") -> str:
    """Writes the rows to ``out_dir/manifest.csv``, one per row (the fields
    of :class:`BakeRow` but ``keys``), and their keys to ``out_dir/keys.csv``,
    one per array: ``file, clip, node, path, output, key`` (the input file,
    the clip's and the node's names as they are in the file, and the output
    and the key they went to). Both are written atomically; returns the
    manifest's path."""
    path = os.path.join(out_dir, MANIFEST)

    def table(header, records):
        def write(target):
            with open(target, "w", newline="", encoding="utf-8",
                      errors="surrogatepass") as handle:
                writer = csv.writer(handle, lineterminator="\n")
                writer.writerow(header)
                writer.writerows(records)
        return write

    write_atomic(os.path.join(out_dir, KEYS), table(
        ["file", "clip", "node", "path", "output", "key"],
        [(r.file, r.clip, node, p, r.output, key) for r in rows for node, p, key in r.keys]),
        token)
    write_atomic(path, table(BakeRow._fields[:-1], [r[:-1] for r in rows]), token)
    return path


def read_manifest(out_dir: str) -> list[BakeRow]:
    """The rows of ``out_dir/manifest.csv``, with their keys from ``keys.csv``
    (when the folder has one)."""
    def table(name):
        with open(os.path.join(out_dir, name), newline="", encoding="utf-8",
                  errors="surrogatepass") as handle:
            reader = csv.reader(handle)
            next(reader)
            return list(reader)

    keys: dict = {}
    if os.path.exists(os.path.join(out_dir, KEYS)):
        for file, _, node, path, output, key in table(KEYS):
            keys.setdefault((file, output), []).append((node, path, key))
    return [BakeRow(f, c, int(n), int(k), o, e, tuple(keys.get((f, o), ())) if o else ())
            for f, c, n, k, o, e in table(MANIFEST)]


def bake_local(patterns, out_dir, *, fps: float = 30.0, workers: int | None = None,
               clip=None, format: str = "npz", world: bool = False, nodes=None,
               root_motion=None, strict: bool = False,
               progress: ProgressOption = "never", stream=None,
               max_frames=None) -> list[BakeRow]:
    """Bakes many files with ``workers`` local processes (default: one per
    core; 1 bakes in this process), without Dask. Same options, outputs and
    manifest as :func:`animcore.dask.bake_many`. How the processes start,
    and what a script that calls this needs: :func:`start_method`."""
    import concurrent.futures
    import multiprocessing
    import uuid

    files = expand_inputs(patterns)
    check_options("bake", fps, format, world=world, nodes=nodes, root_motion=root_motion,
                  max_frames=max_frames, progress=progress, workers=workers)
    workers = (os.cpu_count() or 1) if workers is None else int(workers)
    os.makedirs(out_dir, exist_ok=True)
    token = uuid.uuid4().hex[:12]
    work = batches(files, plan_outputs(files), batch_sizes(len(files), workers))
    workers = min(workers, len(work))  # (a fork per process: none without a batch)
    bar = Progress(len(files), progress, stream, unit="files")
    done: dict[int, list[BakeRow]] = {}
    options = dict(clip=clip, format=format, token=token, world=world, nodes=nodes,
                   root_motion=root_motion, strict=strict, max_frames=max_frames)
    if workers <= 1:
        for i, jobs in enumerate(work):
            done[i] = bake_batch(jobs, out_dir, fps, **options)
            bar.update(len(jobs))
    else:
        context = multiprocessing.get_context(start_method())
        with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
            futures = {pool.submit(bake_batch, jobs, out_dir, fps, **options): i
                       for i, jobs in enumerate(work)}
            for future in concurrent.futures.as_completed(futures):
                i = futures[future]
                try:
                    done[i] = future.result()
                except Exception as error:  # a crashed worker: its files failed
                    done[i] = failed_rows([f for f, _, _ in work[i]], error)
                bar.update(len(work[i]))
    bar.close()
    rows = [row for i in range(len(work)) for row in done[i]]
    remove_parts(out_dir, token)
    write_manifest(out_dir, rows, token)
    return rows


def start_method(version: tuple = sys.version_info[:2]) -> Union[str, None]:
    """How worker processes start (bake_local's, and on Linux animcore.dask's
    cluster's): forked from this process before Python 3.12, so that a
    worker needs no fresh interpreter to bake; from 3.12 on, which warns
    that forking a process that runs threads (a BLAS's, a cluster's event
    loop) may deadlock the child, forked from a server process that has
    none ("forkserver"); where neither exists, the platform's default
    (fresh interpreters).

    With a fork server, as with fresh interpreters, a worker imports the
    main script again: a script that starts workers keeps its top-level
    work under ``if __name__ == "__main__":`` (``python -m animcore bake``
    and notebooks need nothing)."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    if version < (3, 12) and "fork" in methods:
        return "fork"
    return "forkserver" if "forkserver" in methods else None


def is_many(patterns, workers=None, scheduler=None, out=None) -> bool:
    """Whether the command line asks for the many-file bake: several inputs,
    ``--workers`` or ``--scheduler``, or a pattern or folder unless it holds
    exactly one file and ``--out`` is not a folder (None, ``.npz`` or
    ``.csv``): one file bakes as a single file, however it is named."""
    if len(patterns) > 1 or workers is not None or scheduler is not None:
        return True
    if not any(glob.has_magic(p) or os.path.isdir(p) for p in patterns):
        return False
    if out is not None and os.path.splitext(out)[1].lower() not in (".npz", ".csv"):
        return True
    return len(expand_inputs(patterns)) != 1


def run_many(patterns, fps: float, clip_name, out, progress: str, fail, *, workers=None,
             scheduler=None, write=print, world: bool = False, nodes=None,
             root_motion=None, strict: bool = False, bake_many=None,
             max_frames=None, error=None) -> int:
    """The ``bake`` command for several inputs, ``--workers`` or ``--scheduler``:
    one output per clip in the folder ``out`` and its manifest, each baked
    with the single-file options (``--world``, ``--nodes``, ``--root-motion``,
    ``--strict``). With ``scheduler``, ``bake_many`` is the function that bakes
    on that cluster (:func:`animcore.dask.bake_many`). ``fail`` and ``error``
    report usage and data errors as for :func:`run`. Returns the exit status:
    1 when a file failed."""
    error = error or fail
    if nodes and not world:
        fail("bake: --nodes needs --world")
    if len(patterns) == 1 and not expand_inputs(patterns):  # (a folder without inputs)
        error(f"bake: {os.fspath(patterns[0])!r} holds no file to bake "
              f"({', '.join(INPUT_SUFFIXES)})")
    if out is None or os.path.splitext(out)[1].lower() in (".npz", ".csv"):
        fail("bake: several inputs (or --workers, --scheduler) need --out DIR, a folder "
             "that receives a folder per input with one .npz per clip, manifest.csv and "
             "keys.csv")
    if os.path.exists(out) and not os.path.isdir(out):
        fail(f"bake: --out {out!r} exists and is not a folder")
    if workers is not None and workers < 1:
        fail(f"bake: --workers is {workers} (must be >= 1)")
    try:
        check_frames("bake", [], fps, max_frames)
    except ValueError as failure:
        fail(str(failure))
    options = dict(fps=fps, clip=clip_name, world=world, nodes=nodes,
                   root_motion=root_motion, strict=strict, progress=progress,
                   max_frames=max_frames)
    if scheduler is not None:
        try:  # bake_many: animcore.dask's, passed in by the command (dask builds on bake)
            rows = bake_many(patterns, out, client=scheduler, **options)
        except ImportError as failure:
            error(f"bake: {failure}")
        except (OSError, ValueError) as failure:  # (an address that is wrong or not there)
            error(f"bake: --scheduler {scheduler!r}: {failure}")
    else:
        rows = bake_local(patterns, out, workers=workers, **options)
    failed = [row for row in rows if row.error]
    for row in failed:
        write(f"failed: {row.file}: {_without_file(row.error, row.file)}")
    baked = [row for row in rows if not row.error]
    files = len({row.file for row in rows})
    write(f"baked {len(baked)} clip(s) from {files - len({r.file for r in failed})} of "
          f"{files} file(s) at {fps:g} fps -> {out} ({MANIFEST})")
    return 1 if failed else 0
