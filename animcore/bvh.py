"""Biovision hierarchy (BVH) motion capture import.

:func:`load` reads a ``.bvh`` file into a :class:`animcore.model.Scene` with
one clip, so that BVH and glTF rigs are posed, baked and turned into root
motion the same way:

- every ``ROOT`` and ``JOINT`` is a node whose rest translation is its
  ``OFFSET``; an ``End Site`` is a node named ``<parent>_end`` (no channels),
  so that the tips of the limbs can be drawn;
- rotation channels, in the order the file lists them for each joint, are
  rotations about the joint's rotating frame (``CHANNELS 3 Zrotation
  Xrotation Yrotation`` is ``Rz @ Rx @ Ry``, scipy's intrinsic ``"ZXY"``), in
  degrees, converted to unit quaternions ``(x, y, z, w)``;
- position channels give the joint's translation on their axes (replacing
  the offset there; the roots of common files have a zero offset);
- frame ``k`` is at ``k * frame_time`` seconds; the clip interpolates
  linearly between frames (slerp for rotations).

A malformed file raises :class:`BvhError`, a ``ValueError`` naming the file
and the line, for example ``walk.bvh:12: OFFSET needs 3 numbers, got 2``;
quotes from the file are cut to about 80 characters. The reader is lenient on
layout as Blender's and three.js's are (blank lines anywhere, CRLF, tabs, rows
beyond the ``Frames:`` count, which are dropped with a :class:`BvhWarning`)
and strict on everything that changes values. Two joints of the same name (or
a joint named like an End Site, ``<parent>_end``) keep distinct names: the
later one gets the first free ``.1``, ``.2``, ... suffix, with a
:class:`BvhWarning` saying which.
"""
from __future__ import annotations

import math
import os
import re
import warnings

import numpy as np

from . import model
from ._objects import PicklableError
from .model import _quote
from .rotations import quat_from_axis_angle, quat_from_euler, quat_multiply

__all__ = ["BvhError", "BvhWarning", "load"]

# Deeper hierarchies are refused (BvhError) instead of running out of stack.
MAX_DEPTH = 256
_COUNT = re.compile(r"[0-9]{1,9}")  # ASCII digits only, and a sane count


class BvhWarning(PicklableError, UserWarning):
    """Data a BVH file holds that the reader dropped or renamed."""

_POSITIONS = {"Xposition": 0, "Yposition": 1, "Zposition": 2}
_ROTATIONS = {"Xrotation": 0, "Yrotation": 1, "Zrotation": 2}


class BvhError(PicklableError, ValueError):
    """A malformed BVH file: ``source``, 1-based ``line`` and ``detail``."""

    def __init__(self, source: str, line: int, detail: str):
        self.source, self.line, self.detail = source, line, detail
        super().__init__(f"{source}:{line}: {detail}")


class _Joint:
    def __init__(self, name, parent, line):
        self.name, self.parent, self.line = name, parent, line
        self.offset = None
        self.channels: list[str] = []
        self.children: list[int] = []


class _Parser:
    def __init__(self, text: str, source: str):
        self.source = source
        self.tokens = []  # (token, line number)
        self.lines = text.splitlines()
        self.motion_line = None
        self.names: set[str] = set()  # every ROOT/JOINT name in the file
        self.renamed: list[tuple[str, str, int, bool]] = []
        for number, line in enumerate(self.lines, 1):
            words = line.split()
            if words and words[0] == "MOTION":
                self.motion_line = number
                break
            self.tokens.extend((w, number) for w in words)
        for k, (word, _) in enumerate(self.tokens[:-1]):
            if word in ("ROOT", "JOINT"):
                self.names.add(self.tokens[k + 1][0])
        self.used: set[str] = set()
        self.pos = 0
        self.joints: list[_Joint] = []

    def fail(self, line, detail):
        raise BvhError(self.source, line, detail)

    def next(self, what):
        if self.pos >= len(self.tokens):
            last = self.tokens[-1][1] if self.tokens else 1
            self.fail(self.motion_line or last, f"unexpected end of the hierarchy, expected {what}")
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def number(self, what):
        token, line = self.next(what)
        try:
            value = float(token)
        except ValueError:
            self.fail(line, f"{what} must be a number, got {_quote(token)}")
        if not math.isfinite(value):
            self.fail(line, f"{what} must be finite, got {_quote(token)}")
        return value

    def hierarchy(self):
        token, line = self.next("HIERARCHY")
        if token != "HIERARCHY":
            self.fail(line, f"a BVH file starts with HIERARCHY, got {_quote(token)}")
        while self.pos < len(self.tokens):
            token, line = self.next("ROOT")
            if token != "ROOT":
                self.fail(line, f"expected ROOT or MOTION, got {_quote(token)}")
            self.joint(-1, line, depth=0)
        if not self.joints:
            self.fail(line, "the hierarchy has no ROOT")
        if self.motion_line is None:
            self.fail(len(self.lines), "the file has no MOTION section")

    def unique(self, name, line, reserved):
        """`name`, or its first free `.k` suffix if an earlier joint has it (or,
        for an End Site, if any joint of the file has it)."""
        if name in self.used or (reserved and name in self.names):
            base, k = name, 1
            while f"{base}.{k}" in self.used or f"{base}.{k}" in self.names:
                k += 1
            name = f"{base}.{k}"
            self.renamed.append((base, name, line, reserved))
        self.used.add(name)
        return name

    def joint(self, parent, line, depth, end=False):
        if depth > MAX_DEPTH:
            self.fail(line, f"the hierarchy is deeper than {MAX_DEPTH} joints")
        if end:
            token, name_line = self.next("Site")
            if token != "Site":
                self.fail(name_line, f"expected 'End Site', got {_quote('End ' + token)}")
            name = self.unique(f"{self.joints[parent].name}_end", name_line, True)
        else:
            name, name_line = self.next("a joint name")
            if name in ("{", "}"):
                self.fail(name_line, f"expected a joint name, got {name!r}")
            name = self.unique(name, name_line, False)
        index = len(self.joints)
        joint = _Joint(name, parent, line)
        self.joints.append(joint)
        if parent >= 0:
            self.joints[parent].children.append(index)
        token, brace_line = self.next("'{'")
        if token != "{":
            self.fail(brace_line, f"expected '{{' after {name}, got {_quote(token)}")
        while True:
            token, line = self.next("'}'")
            if token == "}":
                break
            if token == "OFFSET":
                joint.offset = [self.number("OFFSET") for _ in range(3)]
            elif token == "CHANNELS":
                if end:
                    self.fail(line, "an End Site has no CHANNELS")
                count_token, _ = self.next("a channel count")
                if not _COUNT.fullmatch(count_token) or int(count_token) > 6:
                    self.fail(line, f"CHANNELS needs a count from 0 to 6, got {_quote(count_token)}")
                for _ in range(int(count_token)):
                    channel, channel_line = self.next("a channel name")
                    if channel not in _POSITIONS and channel not in _ROTATIONS:
                        self.fail(channel_line, f"{_quote(channel)} is not a BVH channel (Xposition, "
                                                "Yposition, Zposition, Xrotation, Yrotation, "
                                                "Zrotation)")
                    if channel in joint.channels:
                        self.fail(channel_line, f"channel {channel} appears twice for {name}")
                    joint.channels.append(channel)
            elif token == "JOINT" and not end:
                self.joint(index, line, depth + 1)
            elif token == "End" and not end:
                self.joint(index, line, depth + 1, end=True)
            else:
                self.fail(line, f"unexpected {_quote(token)} in {name}")
        if joint.offset is None:
            self.fail(line, f"{name} has no OFFSET")

    def motion(self):
        # "Frames:" and "Frame Time:" are the next two non-blank lines after MOTION
        header = [(n, line) for n, line in enumerate(self.lines[self.motion_line:],
                                                      self.motion_line + 1) if line.strip()][:2]
        if len(header) < 2:
            self.fail(self.motion_line, "MOTION needs 'Frames:' and 'Frame Time:' lines")
        (frames_line, text), (time_line, time_text) = header
        words = text.split()
        if len(words) != 2 or words[0] != "Frames:" or not _COUNT.fullmatch(words[1]):
            self.fail(frames_line, f"expected 'Frames: <count>' (at most 9 digits), "
                                   f"got {_quote(text.strip())}")
        frames = int(words[1])
        words = time_text.split()
        if len(words) != 3 or words[:2] != ["Frame", "Time:"]:
            self.fail(time_line, "expected 'Frame Time: <seconds>', got "
                                 f"{_quote(time_text.strip())}")
        try:
            frame_time = float(words[2])
        except ValueError:
            frame_time = math.nan
        if not (math.isfinite(frame_time) and frame_time > 0):
            self.fail(time_line, f"the frame time must be a number > 0, got {_quote(words[2])}")
        if frames > 1 and not math.isfinite(frame_time * (frames - 1)):
            self.fail(time_line, f"the frame time {words[2]} times {frames - 1} frames is not "
                                 "a finite duration")
        self.time_line = time_line
        width = sum(len(j.channels) for j in self.joints)
        rows = [(n, line) for n, line in enumerate(self.lines[time_line:], time_line + 1)
                if line.strip()]
        if len(rows) < frames:
            self.fail(len(self.lines), f"the file has {len(rows)} frames, 'Frames:' says {frames}")
        if len(rows) > frames:  # as Blender and three.js: the count rules, the rest is dropped
            warnings.warn(f"{self.source}:{rows[frames][0]}: {len(rows) - frames} frame row(s) "
                          f"beyond the {frames} 'Frames:' says are dropped", BvhWarning,
                          stacklevel=4)
            rows = rows[:frames]
        # allocated by the rows present, never by the count the file claims
        values = np.empty((len(rows), width))
        for k, (number, line) in enumerate(rows):
            words = line.split()
            if len(words) != width:
                self.fail(number, f"frame {k} has {len(words)} values, the channels need {width}")
            try:
                values[k] = [float(w) for w in words]
            except ValueError:
                bad = next(w for w in words if not _is_float(w))
                self.fail(number, f"frame {k}: {_quote(bad)} is not a number")
            if not np.all(np.isfinite(values[k])):
                column = int(np.argmax(~np.isfinite(values[k])))
                self.fail(number, f"frame {k}: value {column} is {_quote(words[column])} "
                                  "(must be finite)")
        return frame_time, values


def _is_float(word):
    try:
        float(word)
        return True
    except ValueError:
        return False


def _rotations(channels, degrees):
    """Quaternions (F, 4) of rotations about the rotating frame in the listed order."""
    axes = "".join("XYZ"[_ROTATIONS[c]] for c in channels)
    if len(axes) == 3 and axes[0] != axes[1] and axes[1] != axes[2]:
        return quat_from_euler(axes, degrees, degrees=True)
    q = np.zeros(degrees.shape[:1] + (4,))
    q[:, 3] = 1.0
    for k, axis in enumerate(axes):  # intrinsic: each later turn on the right
        unit = np.zeros(3)
        unit["XYZ".index(axis)] = 1.0
        q = quat_multiply(q, quat_from_axis_angle(unit, np.deg2rad(degrees[:, k])))
    return q


def load(path) -> "model.Scene":
    """Read a BVH file as a :class:`animcore.model.Scene` with one clip.

    The clip is named after the file (without extension); its channels are
    keyed by joint name (``clip.sample(t)[("Hips", "rotation")]``), one
    translation channel per joint with position channels and one rotation
    channel per joint with rotation channels, linear between frames.

    Raises
    ------
    BvhError
        (a ValueError) naming the file and line: a missing or misplaced
        keyword or brace, an OFFSET without 3 numbers, an unknown channel, a
        frame count, frame time or frame row that does not match.
    OSError
        If the file cannot be read.
    """
    path = os.fspath(path)
    with open(path, "rb") as stream:
        data = stream.read()
    if data[:4] == b"glTF" or data.lstrip()[:1] == b"{":
        raise BvhError(path, 1, "this is a glTF file, not BVH: read it with animcore.gltf.load")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise BvhError(path, line, f"not UTF-8 text at byte {error.start} "
                                   f"({data[error.start:error.start + 8]!r}...): "
                                   "is this a BVH file?") from None
    parser = _Parser(text, path)
    parser.hierarchy()
    frame_time, values = parser.motion()
    for base, name, line, end in parser.renamed:
        what = f"an End Site named like the joint {base!r}" if end else \
            f"a second joint named {base!r}"
        warnings.warn(f"{path}:{line}: {what} is named {name!r}", BvhWarning, stacklevel=2)
    joints = parser.joints
    frames = len(values)
    times = np.arange(frames) * frame_time
    if frames > 1 and not np.all(np.diff(times) > 0):
        raise BvhError(path, parser.time_line, f"the frame time {frame_time!r} is too small to "
                                               "tell frames apart")
    nodes, channels, column = [], [], 0
    for index, joint in enumerate(joints):
        block = values[:, column:column + len(joint.channels)]
        column += len(joint.channels)
        offset = np.array(joint.offset, dtype=np.float64)
        rest_rotation = np.array([0.0, 0.0, 0.0, 1.0])
        try:
            _joint_channels(index, joint, block, offset, times, channels)
        except (ValueError, OverflowError) as error:  # a curve refusing the file's frames
            raise BvhError(path, parser.time_line, f"{joint.name}: {error}") from None
        nodes.append(model.Node(index, joint.name, joint.parent, tuple(joint.children), offset,
                                rest_rotation, (1.0, 1.0, 1.0)))
    name = os.path.splitext(os.path.basename(path))[0]
    duration = float(times[-1]) if frames else 0.0
    clip = model.Clip(name, duration, tuple(channels))
    roots = tuple(j for j, joint in enumerate(joints) if joint.parent < 0)
    return model.Scene(tuple(nodes), (roots,), 0, (), (clip,))


def _joint_channels(index, joint, block, offset, times, channels):
    """Appends the joint's translation and rotation channels (if it has any)."""
    frames = len(times)
    position = [c for c in joint.channels if c in _POSITIONS]
    rotation = [c for c in joint.channels if c in _ROTATIONS]
    if position and frames:
        translation = np.tile(offset, (frames, 1))
        for c in position:
            translation[:, _POSITIONS[c]] = block[:, joint.channels.index(c)]
        channels.append(model._keyed_channel(index, joint.name, "translation", times,
                                             translation))
    if rotation and frames:
        degrees = block[:, [joint.channels.index(c) for c in rotation]]
        channels.append(model._keyed_channel(index, joint.name, "rotation", times,
                                             _rotations(rotation, degrees)))
