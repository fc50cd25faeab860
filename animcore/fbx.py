"""FBX import: nodes, rest pose, skins and animation curves as the file stores them.

``load(path)`` reads binary FBX (versions 6100 to 7700) and ASCII FBX into a
:class:`FbxScene`, the project's :class:`Scene` with the FBX transform of
every node. The record tree is parsed in C (``ac_fbx_parse``); this module
gives it meaning.

Conventions
-----------
- **Time** is the file's own time in seconds: FBX ticks / 46,186,158,000. A
  stack that starts at frame 1 of 24 fps has its first key at t = 1/24; each
  clip's ``start`` and ``stop`` are its stack's LocalStart and LocalStop.
- **Names** drop the ``Model::`` prefix; in file order, a name already taken
  gets the first free ``.1``, ``.2``, ... suffix (a file's own ``arm.1``
  counts as taken).
- **Transforms**: each node's local matrix is FBX's (column vectors)
  ``T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1``
  with ``R`` the Euler rotation in the node's RotationOrder (``"xyz"`` turns
  about x first, as FBX and Maya do) and the pre- and post-rotations in XYZ.
  Inherit types: RSrs (1) multiplies matrices, RrSs (0) composes rotation
  and scale separately (the parent's world scale applies along the child's
  axes) and Rrs (2) leaves out the parent's local scale except on the
  child's translation (Maya's segment scale compensation).
- **Units and axes**: channel values stay in the file's units and axes;
  one conversion (the file's UnitScaleFactor to ``units``, its Up, Front and
  Coord axes with their signs to ``up="y"``: X right, Y up, Z front; or
  ``up="z"``: X right, Z up, -Y front) sits above the roots, so that
  :meth:`FbxScene.world` is in the requested frame. It is
  ``FbxScene.conversion`` (4x4).
- **Channels**: a translation, rotation or scale channel keeps FBX's three
  component curves (``Channel.curves``: :class:`FbxCurve` per X, Y, Z, or
  None where the file has no curve and the component holds its default).
  ``Channel.sample(t)`` gives the composed value: a translation or scale
  vector, or the quaternion ``(x, y, z, w)`` of the node's whole local
  rotation ``Rpre * R(order) * Rpost^-1``. Stacks with several layers
  combine them per component as MotionBuilder does for translation
  (override and override passthrough: ``v + w (layer - v)``, additive:
  ``v + w layer``, weights in [0, 1] from the file's percent), each over
  what lies below it: the base layer's values, or the node's own where the
  base layer leaves the channel; a muted layer is not evaluated.
  ``Clip.layers`` lists each layer's name, weight, mode and channels.
- **Curves**: every key's time, value, interpolation (constant, constant
  next, linear, cubic), tangent mode, slopes and weights are kept; cubic
  segments are Bezier curves in time and value whose handles are the stored
  slopes (per second) at the stored weights (1/3 of the segment when the
  key is not weighted), as Maya and MotionBuilder evaluate them; the stored
  slopes are those the DCC computed for auto, TCB, clamped and user
  tangents. Pre/post extrapolation: constant, repetition, mirror
  repetition, relative repetition and keep slope; a finite repeat count
  (``FbxCurve.repetitions``) stops the repetitions after that many key
  spans, holding the value the last one ends with (a count of 0 holds the
  end key's value).
- **Skins** come from Deformer Skin / SubDeformer Cluster: the linked
  joints and, as inverse bind matrices, the clusters' ``Transform`` (on
  Maya, MotionBuilder and Blender exports ``BindPose(joint) @ Transform =
  BindPose(mesh)``, ``TransformLink`` being the joint's bind pose); the
  skinned mesh node has ``Node.skin`` and is ``Skin.skeleton``. Geometric
  (mesh-only) transforms are ``FbxScene.geometric``, not part of the node
  matrices: ``FbxScene.geometry_world`` places the geometry.
- **Blend shapes**: each mesh node's BlendShapeChannels (or FBX 7.1 Shapes)
  give ``Node.weights`` and ``Node.target_names``, one per target shape;
  animated DeformPercent is a ``"weights"`` channel. A channel with one
  shape at full weight 100 is one target named after the channel, weighing
  DeformPercent / 100. A channel with in-between shapes (its FullWeights,
  in percent, one per shape in connection order) is one target per shape,
  named after the shape, weighted as Maya interpolates in-betweens: with
  the channel's weight ``w`` (DeformPercent / 100) placed among the sorted
  full weights and 0 (the base mesh), the two neighbours around ``w`` share
  it linearly (``(w_hi - w) / (w_hi - w_lo)`` and ``(w - w_lo) / (w_hi -
  w_lo)``) and every other shape weighs 0; past the first or last full
  weight the outermost pair extrapolates linearly (the base's share is
  dropped). Full weights must be finite, and shares must stay within the
  doubles: otherwise an FbxError (rest weights) or an OverflowError
  (sampled weights).
- What is not read (other animated properties: visibility, camera roll,
  custom attributes) is listed in ``Clip.unsupported``.
- **glTF out**: :meth:`FbxScene.for_gltf` (used by :func:`animcore.save`)
  keeps curves as glTF keys where glTF expresses them exactly (step,
  linear, unweighted cubic) and samples the rest on a stated grid, with a
  report of each channel's and each clip's largest deviation.
"""
from __future__ import annotations

import itertools
import math
import os
import zlib
from dataclasses import dataclass, field, replace
from typing import NamedTuple, Optional, Union

import numpy as np

from . import _core
from ._arrays import choice, frozen_copy, positive_number
from ._objects import ByValue, PicklableError
from .curves import Curve
from .model import (Channel, Clip, Node, Scene, Skin, Unsupported, _keyed_channel,
                    _query_times, _quote, frame_times)
from .rotations import (quat_conjugate, quat_from_euler, quat_from_matrix, quat_multiply,
                        quat_to_matrix)
from .skeleton import Transforms, _decompose

__all__ = ["FbxError", "FbxCurve", "FbxChannel", "FbxClip", "FbxScene", "GltfExportRow",
           "load", "load_bytes", "TICKS_PER_SECOND"]

TICKS_PER_SECOND = 46186158000

_RECORD_DTYPE = np.dtype([("parent", "<i8"), ("name_offset", "<u8"), ("name_length", "<u8"),
                          ("first_property", "<u8"), ("property_count", "<u8"),
                          ("location", "<u8")])
_ARRAY_TYPES = {"f": "<f4", "d": "<f8", "l": "<i8", "i": "<i4", "b": "u1"}
_ORDERS = ("xyz", "xzy", "yzx", "yxz", "zxy", "zyx")
_SCALAR_TYPES = np.zeros(256, dtype=bool)  # property types the binding gives as values
_SCALAR_TYPES[list(b"YCILFDSW")] = True


def _property_dtype() -> np.dtype:
    record_size, property_size, offsets = _core._fbx_layout()
    assert record_size == _RECORD_DTYPE.itemsize
    return np.dtype({"names": ["type", "encoding", "offset", "length", "count", "ivalue",
                               "dvalue"],
                     "formats": ["S1", "<u4", "<u8", "<u8", "<u8", "<i8", "<f8"],
                     "offsets": list(offsets), "itemsize": property_size})


class FbxError(PicklableError, ValueError):
    """A malformed FBX file: ``location`` is the byte offset (binary) or line
    (ASCII) and the record path, ``detail`` says why."""

    def __init__(self, source: str, location: str, detail: str):
        self.source, self.location, self.detail = source, location, detail
        where = ": ".join(part for part in (source, location) if part)
        super().__init__(f"fbx.load: {where}: {detail}" if where else f"fbx.load: {detail}")


# ------------------------------------------------------------------- records

class _Record:
    """One record of a file's table (a view: its values and children are
    read from the table when asked for)."""

    __slots__ = ("file", "index", "name")

    def __init__(self, file, index, name):
        self.file, self.index, self.name = file, index, name

    @property
    def values(self) -> list:
        return self.file.values(self.index)

    @property
    def children(self) -> list:
        return self.file.children(self.index)

    @property
    def location(self) -> int:
        return int(self.file.records["location"][self.index])

    @property
    def parent(self):
        p = self.file.parents[self.index]
        return self.file.record(p) if p >= 0 else None

    def child(self, name):
        f = self.file
        names = f.names
        for c in f.child_indices(self.index):
            if names[c] == name:
                return f.record(c)
        return None

    def path(self) -> str:
        f, parts, i = self.file, [], self.index
        while i >= 0:
            parts.append(f.names[i])
            i = f.parents[i]
        return "/".join(reversed(parts))


class _File:
    """The record table of one file and how to report a place in it.

    The C parse gives the table as arrays; records are views of it
    (:class:`_Record`), made when first asked for. Numbers and strings are
    turned into Python values in one pass, arrays when their record's values
    are first read (deflated arrays are inflated, and so checked, here)."""

    def __init__(self, data: bytes, source: str):
        self.source = source
        parsed = _core._fbx_parse(data)
        if parsed[0] is None:
            _, offset, line, path, message = parsed
            path = path.decode("utf-8", "replace")
            message = message.decode("utf-8", "replace")
            where = f"line {line}" if line else f"byte {offset}"
            raise FbxError(source, f"{where} ({path})" if path else where, message)
        self.version, self.ascii, records, properties, numbers = parsed
        # names, numbers and strings as Python values in one pass in C; raw bytes
        # and arrays (None there) when their record's values are first read
        self.names, values, self.name_ids, distinct = _core._fbx_texts(data, records,
                                                                       properties)
        self.name_codes = {name: code for code, name in enumerate(distinct)}
        self.record_table = records  # (the bytes _fbx_block reads)
        records = records.view(_RECORD_DTYPE)
        self.property_table = properties  # (the bytes ac_fbx_gather reads)
        properties = properties.view(_property_dtype())
        self.data, self.numbers = data, numbers
        count = len(records)
        parents = records["parent"].astype(np.intp)
        firsts = records["first_property"].astype(np.intp)
        counts = records["property_count"].astype(np.intp)
        # (read item by item as Python ints, not turned into lists of every record's)
        self.parents, self.firsts, self.counts = (memoryview(parents), memoryview(firsts),
                                                  memoryview(counts))
        self.table = (parents, firsts, counts)  # the same as arrays
        self.records = records  # (a record's location is read from here when asked for)
        # children in file order: the records sorted by parent (roots first)
        order = np.argsort(parents, kind="stable")
        starts = np.zeros(count + 2, dtype=np.intp)
        np.cumsum(np.bincount(parents + 1, minlength=count + 1), out=starts[1:])
        self._order = memoryview(order)
        self._starts = memoryview(starts)
        self._views = {}  # record index -> its view, made when first asked for
        self._children = {}
        self.properties = properties
        kind = properties["type"]
        other = np.flatnonzero(~_SCALAR_TYPES[kind.view(np.uint8)])
        holder = np.repeat(np.arange(count), counts)  # the record of each value
        if len(holder) != len(properties) or not np.array_equal(firsts,
                                                                np.cumsum(counts) - counts):
            holder = np.empty(len(properties), dtype=np.intp)  # (values not in record order)
            holder[np.repeat(firsts - np.cumsum(counts) + counts, counts) +
                   np.arange(int(counts.sum()))] = np.repeat(np.arange(count), counts)
        self.holder = holder
        self._values = values
        self._pending = set(holder[other].tolist())  # records with values still None
        deflated = other[properties["encoding"][other] == 1]
        for i, r in zip(deflated.tolist(), holder[deflated].tolist()):
            values[i] = self._value(i, r)
        if self.ascii:
            header = self.find("FBXHeaderExtension")
            self.version = _child_value(header, "FBXVersion", 0, int) if header is not None \
                else 0

    def release(self) -> None:
        """Drops the record views made so far (each refers back to this
        table): once a reader is done, the table and its views are freed as
        soon as nothing refers to them, without waiting for the cycle
        collector (views asked for later are made afresh)."""
        self._views = {}
        self._children = {}

    def record(self, index: int) -> _Record:
        view = self._views.get(index)
        if view is None:
            view = self._views[index] = _Record(self, index, self.names[index])
        return view

    def child_indices(self, index: int) -> list:
        """The indices of a record's children (-1: the top-level records)."""
        return self._order[self._starts[index + 1]:self._starts[index + 2]].tolist()

    def children(self, index: int) -> list:
        out = self._children.get(index)
        if out is None:
            record = self.record
            out = self._children[index] = [record(c) for c in self.child_indices(index)]
        return list(out)

    @property
    def roots(self) -> list:
        return self.children(-1)

    def values(self, index: int) -> list:
        first = self.firsts[index]
        if index in self._pending:
            values = self._values
            for i in range(first, first + self.counts[index]):
                if values[i] is None:
                    values[i] = self._value(i, index)
            self._pending.discard(index)
        return self._values[first:first + self.counts[index]]

    def read(self, function, *args):
        """``function(*args)`` of a C reader of the value list (``_fbx_block``,
        ``_fbx_objects``, ...), called again after reading the values of the
        records it lists when it gives a list of records (arrays or raw bytes
        not read yet)."""
        out = function(*args)
        if isinstance(out, list) and out:
            for i in out:
                self.values(i)
            out = function(*args)
        return out

    def where(self, record: _Record) -> str:
        unit = "line" if self.ascii else "byte"
        return f"{unit} {record.location} ({record.path()})"

    def error(self, record: _Record, detail: str) -> FbxError:
        return FbxError(self.source, self.where(record), detail)

    def find(self, name):
        names = self.names
        for i in self.child_indices(-1):
            if names[i] == name:
                return self.record(i)
        return None

    def array(self, i: int) -> np.ndarray:
        """The array of property ``i`` (an array property) as the file stores
        it: a view of the file's bytes, or of its inflated copy."""
        value = self._values[i]
        if value is None:
            value = self._values[i] = self._value(i, int(self.holder[i]))
        return value

    def _value(self, i, index):
        kind, encoding, start, length, count, ivalue, dvalue = self.properties[i].tolist()
        if kind == b"R":
            return bytes(self.data[start:start + length])
        if encoding == 2:  # ASCII numbers
            return self.numbers[start:start + count]
        kind = kind.decode()
        dtype = np.dtype(_ARRAY_TYPES[kind])
        stored = length
        if encoding == 0:
            return np.frombuffer(self.data, dtype, count, start)
        expected = count * dtype.itemsize
        inflater = zlib.decompressobj()
        try:
            raw = inflater.decompress(self.data[start:start + stored], expected + 1)
        except zlib.error as exc:
            raise self.error(self.record(index),
                             f"deflated array of {count} '{kind}' values at byte "
                             f"{start}: {exc}") from None
        if len(raw) != expected or not inflater.eof:
            raise self.error(self.record(index),
                             f"deflated array at byte {start} holds "
                             f"{'more than' if len(raw) > expected else len(raw)} "
                             f"bytes, not the {expected} of its {count} values")
        return np.frombuffer(raw, dtype, count)


def _object_name(text: str) -> str:
    """'hip\\x00\\x01Model' (binary) or 'Model::hip' (ASCII) -> 'hip'."""
    if "\x00\x01" in text:
        return text.split("\x00\x01", 1)[0]
    if "::" in text:
        return text.split("::", 1)[1]
    return text


def _properties(record: _Record, base: dict | None = None, wanted=None) -> dict:
    """{name: [values]} of a Properties70 / Properties60 block over ``base``
    (only the names in the set ``wanted`` when it is given), read in C
    (``_fbx_block``) once the values it needs are read."""
    props = dict(base) if base else {}
    if record is None:
        return props
    f = record.file
    names = f.names
    blocks = [None, None]  # the first Properties70 and Properties60 child
    for c in f.child_indices(record.index):
        name = names[c]
        if name == "Properties70":
            if blocks[0] is None:
                blocks[0] = c
        elif name == "Properties60":
            if blocks[1] is None:
                blocks[1] = c
    for b, entry, skip in ((blocks[0], "P", 4), (blocks[1], "Property", 3)):
        if b is None:
            continue
        code = f.name_codes.get(entry)
        if code is None:  # no record has that name
            continue
        f.read(_core._fbx_block, f.record_table, f.name_ids, f._values, b, code, skip, props,
               wanted)
    return props


def _properties_of(f: _File, rows: list, base: dict | None = None, wanted=None) -> list:
    """:func:`_properties` of many records (``rows``: record indices) at
    once: their first Properties70 and Properties60 blocks found together,
    the entries of each kind of block read in one C call (``_fbx_blocks``)."""
    if not rows:
        return []
    found = _first_children(f, rows, ("Properties70", "Properties60"))
    if found is None:  # (a record given twice)
        return [_properties(f.record(r), base, wanted) for r in rows]
    props = [dict(base) if base else {} for _ in rows]
    for k, (entry, skip) in enumerate((("P", 4), ("Property", 3))):
        code = f.name_codes.get(entry)
        blocks = found[:, k].tolist()
        if code is None or max(blocks) < 0:  # no record has that name, or no such block
            continue
        f.read(_core._fbx_blocks, f.record_table, f.name_ids, f._values, blocks, code, skip,
               props, wanted)
    return props


def _scalars_of(f: _File, rows: list, names: tuple) -> np.ndarray:
    """``(len(rows), len(names))`` float64: ``_scalar(_properties(record),
    name, 0.0)`` of each record (``rows``: record indices) and name, read in
    C (``_fbx_block_numbers``) without a dict or list per record; the
    records whose values there are not plain numbers through
    :func:`_properties`."""
    found = _first_children(f, rows, ("Properties70", "Properties60")) if rows else None
    if found is None:
        odd, numbers = range(len(rows)), np.zeros((len(rows), len(names)))
    else:
        codes = f.name_codes
        numbers, odd = _core._fbx_block_numbers(
            f.record_table, f.name_ids, f._values, (found[:, 0].tolist(), found[:, 1].tolist()),
            (codes.get("P", -1), codes.get("Property", -1)), (4, 3), names)
    for k in odd:
        props = _properties(f.record(rows[k]))
        numbers[k] = [_scalar(props, name, 0.0) for name in names]
    return numbers


def _child_value(record: _Record, name: str, default, kind=float):
    """The first value of the child record ``name`` as ``kind``, or
    ``default`` without one; an FbxError at the child when ``kind`` does not
    take it (a name where a number is, a NaN for a count)."""
    child = record.child(name)
    if child is None or not child.values:
        return default
    value = child.values[0]
    try:
        return kind(value)
    except (TypeError, ValueError, OverflowError):
        shown = _quote(value, 40) if isinstance(value, str) else repr(value)[:40]
        raise record.file.error(child, f"is {shown} (must be "
                                       f"{'a whole number' if kind is int else 'a number'})"
                                ) from None


def _vec(props: dict, name: str, default) -> np.ndarray:
    """A 3-vector property; its default when the file does not hold three
    numbers there (as :func:`_scalar`)."""
    v = props.get(name)
    if v is None or len(v) < 3 or not all(isinstance(x, (int, float)) for x in v[:3]):
        return np.array(default, dtype=np.float64)
    return np.array([float(x) for x in v[:3]], dtype=np.float64)


def _record_text(record: _Record) -> str:
    """A record's first value, a name or a kind: an FbxError unless a string."""
    value = record.values[0]
    if not isinstance(value, str):
        raise record.file.error(record, f"is named {repr(value)[:40]} (must be a string)")
    return value


def _scalar(props: dict, name: str, default):
    v = props.get(name)
    if not v:
        return default
    try:
        return type(default)(v[0])
    except (TypeError, ValueError, OverflowError):  # (int of an infinity)
        return default


# ---------------------------------------------------------------- rotations

def _euler_quat(angles_deg: np.ndarray, order: str) -> np.ndarray:
    """Quaternions of FBX Euler angles (X, Y, Z degrees, any leading shape):
    ``order`` "xyz" turns about x first, then y, then z (fixed axes)."""
    angles = np.asarray(angles_deg, dtype=np.float64)
    picked = angles[..., ["xyz".index(a) for a in order]]
    return quat_from_euler(order, picked, degrees=True)


def _node_rotation(angles_deg, order: str, pre: np.ndarray, post: np.ndarray) -> np.ndarray:
    """A node's whole local rotation ``Rpre * R(order) * Rpost^-1`` (quaternions)."""
    return quat_multiply(quat_multiply(pre, _euler_quat(angles_deg, order)),
                         quat_conjugate(post))


# -------------------------------------------------------------------- curves

# KeyAttrFlags bits (FBX SDK's FbxAnimCurveDef)
_CONSTANT, _LINEAR, _CUBIC = 0x2, 0x4, 0x8
_CONSTANT_NEXT = 0x100
_TANGENT_BITS = ((0x4000 | 0x2000, "clamped_progressive"), (0x2000, "time_independent"),
                 (0x1000, "clamped"), (0x900, "auto_break"), (0xC00, "break"),
                 (0x800, "generic_break"), (0x400, "user"), (0x200, "tcb"), (0x100, "auto"))
# (the weight bits, 0x01000000 and 0x02000000, are read in C: ac_fbx_key_attributes)
_VELOCITY_RIGHT, _VELOCITY_NEXT_LEFT = 0x10000000, 0x20000000
_EXTRAPOLATIONS = {67: "constant", 82: "repetition", 77: "mirror_repetition",
                   75: "keep_slope", 65: "relative_repetition"}
_CURVE_EXTRAPOLATION = {"constant": "clamp", "repetition": "cycle",
                        "mirror_repetition": "oscillate", "keep_slope": "linear",
                        "relative_repetition": "cycle_offset"}


_REPEATING = ("repetition", "mirror_repetition", "relative_repetition")
_SEGMENT_KINDS = {"constant": "step", "constant_next": "step", "linear": "linear",
                  "cubic": "bezier"}  # Curve's name of the segment after a key


def _tangent_mode(flags: int) -> str:
    for bits, name in _TANGENT_BITS:
        if flags & bits == bits:
            return name
    return "auto" if flags & _CUBIC else "none"


@dataclass(frozen=True, eq=False)
class FbxCurve(ByValue):
    """One FBX animation curve, exactly as stored.

    ``times`` (seconds), ``values``, per key ``interpolation`` (of the
    segment that starts at the key: "constant", "constant_next", "linear",
    "cubic"), ``tangent_modes`` ("auto", "tcb", "user", "break",
    "auto_break", "clamped", "clamped_progressive", "time_independent",
    "generic_break" or "none"), ``right_slopes`` and ``next_left_slopes``
    (per second, as stored: for auto and TCB keys they are parameters, not
    slopes), ``right_weights`` and ``next_left_weights`` (fractions of the
    segment, 1/3 where the key is not weighted) and the extrapolations
    ``pre`` and ``post`` with their ``repetitions`` (-1: unbounded).
    ``in_slopes`` and ``out_slopes`` are the slopes (per second) the curve
    is evaluated with on each side of each key (see :func:`_key_slopes`).
    Calling it evaluates it at times ``t`` (seconds).
    """

    times: np.ndarray = field(repr=False)
    values: np.ndarray = field(repr=False)
    interpolation: tuple = field(repr=False)
    tangent_modes: tuple = field(repr=False)
    right_slopes: np.ndarray = field(repr=False)
    next_left_slopes: np.ndarray = field(repr=False)
    right_weights: np.ndarray = field(repr=False)
    next_left_weights: np.ndarray = field(repr=False)
    pre: str = "constant"
    post: str = "constant"
    repetitions: tuple = (-1, -1)
    default: float = 0.0
    in_slopes: Union[np.ndarray, None] = field(default=None, repr=False)
    out_slopes: Union[np.ndarray, None] = field(default=None, repr=False)

    def _state(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @classmethod
    def _from_state(cls, state):
        return cls(**state)

    def __getattr__(self, name: str):
        # the key arrays a reader leaves to be made when first read (see _read_curves):
        # views of its columns, at the curve's place in them
        index = _LAZY_KEY_COLUMNS.get(name)
        state = self.__dict__
        columns = state.get("_columns") if index is not None else None
        if columns is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        start = state["_start"]
        value = columns[index][start:start + len(state["times"])]
        self.__dict__[name] = value
        return value

    @property
    def curve(self):
        """The evaluator: an :class:`animcore.Curve` with one segment per
        pair of keys (step, linear or weighted Bezier)."""
        cached = self.__dict__.get("_curve")
        if cached is None:
            cached = self._build()
            object.__setattr__(self, "_curve", cached)
        return cached

    def _build(self):
        if len(self.times) == 1:
            return None
        return _joined([self])

    def held_after(self) -> tuple:
        """(before, after): the times past which a finite repetition count
        holds the curve (None where it repeats forever or does not repeat).
        ``n`` repetitions end ``n`` key spans past the end key; from there
        the value of the last repetition's end holds (0: the end key's)."""
        held = self.__dict__.get("_held")
        if held is None:
            span = float(self.times[-1] - self.times[0])
            sides = ((self.pre, self.repetitions[0], self.times[0], -1),
                     (self.post, self.repetitions[1], self.times[-1], 1))
            held = tuple(float(end) + sign * count * span
                         if mode in _REPEATING and count >= 0 else None
                         for mode, count, end, sign in sides)
            object.__setattr__(self, "_held", held)
        return held

    def __call__(self, t) -> np.ndarray:
        t = _query_times("FbxCurve", t)
        if len(self.times) == 1:
            return np.full(t.shape, float(self.values[0]))
        values = np.asarray(self.curve(t), dtype=np.float64).reshape(t.shape)
        before, after = self.held_after()
        for past, limit, side in ((before is not None and t < before, before, "right"),
                                  (after is not None and t > after, after, "left")):
            if np.any(past):  # the end of the last repetition holds
                values = np.where(past, float(self.curve(limit, side=side)), values)
        # (the last key's kind has no segment after it)
        nexts = [i for i, kind in enumerate(self.interpolation[:-1]) if kind == "constant_next"]
        for i in nexts:  # held at the next key's value inside the segment
            inside = (t > self.times[i]) & (t < self.times[i + 1])
            values = np.where(inside, self.values[i + 1], values)
        return values

    def __len__(self) -> int:
        return len(self.times)

    def __repr__(self) -> str:
        kinds = sorted(set(self.interpolation))
        return (f"FbxCurve(keys={len(self.times)}, interpolation={kinds}, pre={self.pre!r}, "
                f"post={self.post!r})")


# FbxCurve fields a reader may leave to be made when first read: their columns in
# the reader's (times, values, right slopes, next-left slopes, right weights,
# next-left weights, in slopes, out slopes)
_LAZY_KEY_COLUMNS = {"values": 1, "right_slopes": 2, "next_left_slopes": 3, "right_weights": 4,
                     "next_left_weights": 5, "in_slopes": 6, "out_slopes": 7}
# (no class attributes for the fields with defaults that may be left so: their
# lookup then reaches FbxCurve.__getattr__; __init__ keeps the defaults)
del FbxCurve.in_slopes, FbxCurve.out_slopes


def _curve_parts(f: _File, record: _Record) -> tuple:
    """The checked arrays of an AnimationCurve record (FBX 7): key times
    (seconds), values, attribute flags, attribute data ``(A, 4)`` float32,
    attribute reference counts, and default, pre, post, repetitions."""
    def array(name, required=True):
        r = record.child(name)
        if r is None or not r.values:
            if required:
                raise f.error(record, f"animation curve without {name}")
            return None
        v = r.values[0]
        if not isinstance(v, np.ndarray):
            v = np.array([x for x in r.values if isinstance(x, (int, float))])
        return v

    default = _child_value(record, "Default", 0.0)
    ticks = array("KeyTime")
    values = array("KeyValueFloat", required=False)
    if values is None:
        values = array("KeyValueDouble")
    ticks = np.asarray(ticks)
    if ticks.dtype.kind == "f":
        ticks = np.rint(ticks)
    ticks = _whole_numbers(f, record, "KeyTime", ticks)
    k = len(ticks)
    if len(values) != k:
        raise f.error(record, f"{k} key times but {len(values)} values")
    if k == 0:
        raise f.error(record, "animation curve without keys")
    times = ticks.astype(np.int64) / TICKS_PER_SECOND
    _increasing_keys(f, record, times)
    with np.errstate(invalid="ignore"):  # (a float32 signalling NaN is refused below)
        values = np.asarray(values, dtype=np.float64)
    _finite_numbers(f, record, "key value", values)
    flags = array("KeyAttrFlags", required=False)
    data = array("KeyAttrDataFloat", required=False)
    counts = array("KeyAttrRefCount", required=False)
    if flags is None or counts is None or data is None:
        flags, data, counts = np.array([_CUBIC | 0x100]), np.zeros(4), np.array([k])
    flags = _whole_numbers(f, record, "KeyAttrFlags", flags) & 0xFFFFFFFF
    counts = _whole_numbers(f, record, "KeyAttrRefCount", counts)
    data = np.asarray(data)
    if len(counts) != len(flags) or len(data) != 4 * len(flags) or np.any(counts < 0) or \
            int(counts.sum()) != k:
        raise f.error(record, f"key attributes ({len(flags)} flags, {len(data)} data, "
                              f"reference counts summing to {int(counts.sum())}) do not "
                              f"describe {k} keys")
    with np.errstate(over="ignore"):  # (beyond float32: infinite, as float32 files hold it)
        raw = np.asarray(data, dtype=np.float32).reshape(-1, 4)
    return (times, values, flags, raw, counts, default) + _extrapolations(record)


def _finite_numbers(f: _File, record: _Record, name: str, numbers: np.ndarray) -> None:
    """An FbxError at the first of the numbers ``name`` read from ``record``
    (a curve's key times or values, a channel's full weights) that is NaN or
    infinite."""
    if not np.all(np.isfinite(numbers)):
        i = int(np.argmax(~np.isfinite(numbers)))
        raise f.error(record, f"{name} at index {i} is {float(numbers[i])!r} (must be finite)")


def _increasing_keys(f: _File, record: _Record, times: np.ndarray) -> None:
    """An FbxError at the first key time (seconds) that does not follow the
    one before it."""
    if np.any(np.diff(times) <= 0):
        i = int(np.argmax(np.diff(times) <= 0)) + 1
        raise f.error(record, f"key time at index {i} ({float(times[i])!r} s) does not "
                              f"follow the previous one ({float(times[i - 1])!r} s)")


def _whole_numbers(f: _File, record: _Record, name: str, values) -> np.ndarray:
    """An array of whole numbers as int64 (fractions dropped); an FbxError at
    the first that is NaN, infinite or beyond int64."""
    values = np.asarray(values)
    if values.dtype.kind == "f":
        outside = ~(np.abs(values) < 2.0**63)  # (NaN included)
        if np.any(outside):
            i = int(np.argmax(outside))
            raise f.error(record, f"{name} at index {i} is {float(values[i])!r} (must be a "
                                  f"whole number below 2^63 in magnitude)")
    return values.astype(np.int64)


def _extrapolations(record: _Record) -> tuple:
    """An AnimationCurve's pre and post extrapolation modes and repetition
    counts (-1: unbounded)."""
    pre, post, reps = "constant", "constant", [-1, -1]
    for side, name in ((0, "Pre-Extrapolation"), (1, "Post-Extrapolation")):
        r = record.child(name)
        if r is None:
            continue
        kind = r.child("Type")
        code = kind.values[0] if kind is not None and kind.values else 67
        if isinstance(code, str):
            code = ord(code[0]) if code else 67
        elif not (isinstance(code, (int, float)) and math.isfinite(code)):
            raise record.file.error(kind, f"is {repr(code)[:40]} (must be a mode's letter "
                                          f"or its code)")
        mode = _EXTRAPOLATIONS.get(int(code), "constant")
        if side == 0:
            pre = mode
        else:
            post = mode
        reps[side] = _child_value(r, "Repetition", reps[side], int)
    return pre, post, tuple(reps)


_CURVE_ARRAYS = ("KeyTime", "KeyValueFloat", "KeyAttrFlags", "KeyAttrDataFloat",
                 "KeyAttrRefCount")
_CURVE_TYPES = ((b"l", b"d"), (b"f",), (b"i",), (b"f",), (b"i",))


def _gather(f: _File, props: np.ndarray, kind: bytes) -> np.ndarray:
    """The raw arrays of binary properties ``props`` (all of type ``kind``),
    one after the other in one array."""
    joined = _core._fbx_gather(f.data, f.property_table, props.astype(np.int64))
    return np.frombuffer(joined, np.dtype(_ARRAY_TYPES[kind.decode()]))


def _first_children(f: _File, rows: list, names: tuple):
    """``(R, len(names))`` record indices: each record's (``rows``: record
    indices) first child of each name (in file order), -1 where it has
    none; None when the records repeat."""
    index = np.array(rows, dtype=np.intp)
    parents = f.table[0]
    row = np.full(len(parents) + 1, -1, dtype=np.intp)
    row[index] = np.arange(len(index))
    if not np.array_equal(row[index], np.arange(len(index))):  # a record given twice
        return None
    # each record's parent's row: -1 for a record that is no child of the records
    # (a top-level record's parent, -1, reads the spare last item)
    rows = row[parents]
    inside = np.flatnonzero(rows >= 0)  # the children of the records, in file order
    inside_ids = f.name_ids[inside]
    found = np.full((len(index), len(names)), -1, dtype=np.intp)
    codes = f.name_codes
    for k, name in enumerate(names):
        code = codes.get(name)
        if code is None:
            continue
        children = inside[inside_ids == code]  # in file order
        owners, first = np.unique(rows[children], return_index=True)
        found[owners, k] = children[first]
    return found


def _curve_parts_together(f: _File, rows: list):
    """What :func:`_curve_parts` gives for each record (``rows``: record
    indices), concatenated: (times,
    values, flags, raw, counts, key counts, attribute counts, [(default,
    pre, post, repetitions)]), the arrays of all the binary curves read at once; None
    where a curve is not the common binary form (or breaks a rule), which
    :func:`_curve_parts` then reads (and reports) one by one."""
    if f.ascii or not rows:
        return None
    firsts, counts, table = f.firsts, f.counts, f.properties
    found = _first_children(f, rows, _CURVE_ARRAYS + ("Default", "Pre-Extrapolation",
                                                         "Post-Extrapolation"))
    if found is None or np.any(found[:, :len(_CURVE_ARRAYS)] < 0):
        return None
    arrays_found = found[:, :len(_CURVE_ARRAYS)]
    if np.any(f.table[2][arrays_found] == 0):
        return None
    slots = f.table[1][arrays_found].T
    values, pending = f._values, f._pending
    try:
        defaults = [0.0 if d < 0 or not counts[d] else
                    float(f.values(d)[0] if d in pending else values[firsts[d]])
                    for d in found[:, len(_CURVE_ARRAYS)].tolist()]
        extrapolated = (found[:, len(_CURVE_ARRAYS) + 1:] >= 0).any(axis=1).tolist()
        ends = [_extrapolations(f.record(r)) if e else ("constant", "constant", (-1, -1))
                for r, e in zip(rows, extrapolated)]
    except (TypeError, ValueError):
        return None
    arrays = []
    for k, props in enumerate(slots):
        props = np.array(props, dtype=np.intp)
        kinds = table["type"][props]
        if not (np.all(kinds == kinds[0]) and kinds[0] in _CURVE_TYPES[k] and
                np.all(table["encoding"][props] == 0)):
            return None
        arrays.append((_gather(f, props, kinds[0]), table["count"][props].astype(np.intp)))
    (ticks, k), (values, kv), (flags, kf), (data, kd), (refs, kr) = arrays
    if not (np.array_equal(k, kv) and np.all(k > 0) and np.all(kf > 0) and
            np.array_equal(kr, kf) and np.array_equal(kd, 4 * kf)):
        return None
    if ticks.dtype.kind == "f":
        if not np.all(np.abs(ticks) < 2.0**63):  # (NaN included: _whole_numbers names it)
            return None
        ticks = np.rint(ticks).astype(np.int64)
    times = ticks.astype(np.int64) / TICKS_PER_SECOND
    with np.errstate(invalid="ignore"):  # (a float32 signalling NaN is refused below)
        values = np.asarray(values, dtype=np.float64)
    starts = np.cumsum(k) - k
    steps = np.diff(times)
    inside = np.ones(len(steps), dtype=bool)
    inside[starts[1:] - 1] = False
    flags = flags.astype(np.int64) & 0xFFFFFFFF
    refs = refs.astype(np.int64)
    if np.any(steps[inside] <= 0) or not np.all(np.isfinite(values)) or np.any(refs < 0) or \
            not np.array_equal(np.add.reduceat(refs, np.cumsum(kf) - kf), k):
        return None
    raw = np.asarray(data, dtype=np.float32).reshape(-1, 4)
    return times, values, flags, raw, refs, k, kf, [(d,) + e for d, e in zip(defaults, ends)]


def _read_curves(f: _File, rows: list) -> list:
    """AnimationCurve records (FBX 7; ``rows``: their indices) as FbxCurves,
    their keys decoded together: each record is checked in turn, then the
    keys of all of them are one set of arrays (the curves' arrays are
    read-only views of it)."""
    together = _curve_parts_together(f, rows)
    if together is None:
        parts = [_curve_parts(f, f.record(r)) for r in rows]
        if not parts:
            return []
        times, values, flags, raw, counts = (np.concatenate([p[i] for p in parts])
                                             for i in range(5))
        sizes = np.array([len(p[0]) for p in parts])
        groups = np.array([len(p[2]) for p in parts])
        parts = [p[5:] for p in parts]
    else:
        times, values, flags, raw, counts, sizes, groups, parts = together
    ends = np.cumsum(sizes)
    starts = ends - sizes
    # each attribute group's flags, slopes and weights (two 4-digit decimal fixed-point
    # numbers packed in the third float) for each of its keys, in C
    key_flags, right_s, left_s, right_w, left_w, key_data = _core._fbx_key_attributes(
        np.ascontiguousarray(flags, dtype=np.int64), np.ascontiguousarray(raw, dtype=np.float32),
        np.ascontiguousarray(counts, dtype=np.int64), len(times))
    # per key tuples of the segment kinds and tangent modes, one per distinct
    # run of attribute groups (curves keyed alike share them)
    flag_list = flags.tolist()
    named = {fl: _key_kind(fl) for fl in set(flag_list)}
    group_ends = np.cumsum(groups).tolist()
    runs = counts.tolist()
    # a run's key: the bytes of its groups' (flags, count) pairs
    blob = np.column_stack([flags, counts]).astype(np.int64).tobytes()

    def per_key(a, b):
        return tuple(tuple(itertools.chain.from_iterable(
            itertools.repeat(named[flag_list[j]][side], runs[j]) for j in range(a, b)))
            for side in (0, 1))
    in_slopes, out_slopes = _key_slopes(times, values, key_flags, key_data, right_w, left_w,
                                        starts)
    columns = (times, values, right_s, left_s, right_w, left_w, in_slopes, out_slopes)
    for c in columns:
        c.flags.writeable = False
    # FbxCurve(...) without the dataclass' __init__, which sets the fields one by one:
    # key times shared by the curves whose times are the same bytes, per-key kinds by
    # those keyed alike; values, slopes and weights are views made when first read
    # (FbxCurve.__getattr__), from where the curve's keys are in the columns
    return _core._fbx_curves(FbxCurve, columns, times, starts.tolist(), ends.tolist(),
                             group_ends, blob, per_key, parts)


def _new(cls, fields: dict):
    """``cls(**fields)`` (every field given) without the dataclass'
    ``__init__``, which sets them one by one: a reader makes hundreds."""
    made = object.__new__(cls)
    made.__dict__.update(fields)
    return made


def _key_kind(flags: int) -> tuple:
    """(segment kind, tangent mode) of a key's attribute flags."""
    kind = ("constant_next" if flags & _CONSTANT and flags & _CONSTANT_NEXT else
            "constant" if flags & _CONSTANT else "linear" if flags & _LINEAR else "cubic")
    return kind, _tangent_mode(flags) if kind == "cubic" else "none"


def _joined(curves: list) -> Union[Curve, None]:
    """One :class:`Curve` evaluating FbxCurves (of two keys or more) side by
    side: one column each (one curve: 1-D values). None when they do not
    share key times, segment kinds and extrapolations, or hold constant-next
    keys (held at the next value, see :meth:`FbxCurve.__call__`)."""
    first = curves[0]
    if len(curves) > 1 and ("constant_next" in first.interpolation or any(
            c.interpolation != first.interpolation or c.pre != first.pre or
            c.post != first.post or not np.array_equal(c.times, first.times)
            for c in curves[1:]) or any(c.held_after() != (None, None) for c in curves)):
        return None
    return _join_columns(curves)


def _join_columns(curves: list) -> Curve:
    """:func:`_joined` of curves known to join."""
    first = curves[0]
    times = first.times
    kinds = [_SEGMENT_KINDS[kind] for kind in first.interpolation[:-1]]
    columns = first.__dict__.get("_columns")
    if columns is not None and all(c.__dict__.get("_columns") is columns for c in curves):
        # curves read together: (keys, curves) gathered from the reader's columns at once
        keys = np.arange(len(times))[:, None] + np.array([c.__dict__["_start"] for c in curves])
        values, in_v, out_v, out_w, next_w = (columns[k][keys] for k in (1, 6, 7, 4, 5))
    else:
        values, in_v, out_v, out_w, next_w = (
            np.ascontiguousarray(np.array([getattr(c, name) for c in curves],
                                          dtype=np.float64).T)
            for name in
            ("values", "in_slopes", "out_slopes", "right_weights", "next_left_weights"))
    # keep-slope extrapolation follows the end segment (linear or cubic)
    for v, end, a, b in ((in_v, 0, 0, 1), (out_v, -1, -2, -1)):
        if kinds[end] == "linear":
            v[end] = (values[b] - values[a]) / (times[b] - times[a])
        elif kinds[end] == "step":
            v[end] = 0.0
    in_w = np.full(values.shape, 1.0 / 3.0)
    in_w[1:] = next_w[:-1]
    out_w[-1] = 1.0 / 3.0
    arrays = [values, np.where(np.isfinite(in_v), in_v, 0.0),
              np.where(np.isfinite(out_v), out_v, 0.0), np.clip(in_w, 1e-4, 1.0),
              np.clip(out_w, 1e-4, 1.0)]
    if len(curves) == 1:
        arrays = [a[:, 0] for a in arrays]
    extrapolation = {"before": _CURVE_EXTRAPOLATION[first.pre],
                     "after": _CURVE_EXTRAPOLATION[first.post]}
    if "bezier" not in kinds:
        return Curve(times, arrays[0], interpolation=kinds, **extrapolation)
    return Curve(times, arrays[0], interpolation=kinds, in_velocities=arrays[1],
                 out_velocities=arrays[2], in_weights=arrays[3], out_weights=arrays[4],
                 **extrapolation)


def _read_curve(f: _File, record: _Record) -> FbxCurve:
    """An AnimationCurve record (FBX 7) as an FbxCurve."""
    return _read_curves(f, [record.index])[0]


_TIME_INDEPENDENT, _CLAMP_PROGRESSIVE = 0x2000, 0x4000
_USER = 0x400


def _key_slopes(times, values, flags, data, right_w, left_w, starts=(0,)):
    """Per-key (in, out) slopes of curves (each one's times strictly
    increasing; ``starts`` are the indices of their first keys in the
    arrays) from the key flags and attribute data ``(K, >= 2)`` (a third
    column, TCB bias, read for TCB keys), over all keys at once in C
    (``ac_tangents_fbx``, as MotionBuilder and Maya give them and the ufbx
    reader reproduces them): user and break tangents as stored; auto
    tangents solved from the neighbours (the stored slopes are the auto
    bias); TCB from tension, continuity and bias (Kochanek-Bartels); linear
    segments along their chord; constant segments flat. A key's in-slope is
    the next-left slope of the key before it."""
    k = len(times)
    d = np.asarray(data, dtype=np.float64).reshape(k, -1)
    if d.shape[1] != 3:
        d = np.concatenate([d[:, :3], np.zeros((k, max(0, 3 - d.shape[1])))], axis=1)
    first = np.zeros(k, dtype=np.uint8)
    first[np.asarray(starts, dtype=np.intp)] = 1
    as_keys = (lambda a: np.ascontiguousarray(a, dtype=np.float64))
    return _core._tangents_fbx(as_keys(times), as_keys(values),
                               np.ascontiguousarray(flags, dtype=np.int64), as_keys(d),
                               as_keys(right_w), as_keys(left_w), first)


# ------------------------------------------------------------------- channels

class _SharedJoint:
    """Component curves of several channels that share key times, segment
    kinds and extrapolations, evaluated together: one :class:`Curve` with a
    column per curve (see :func:`_joined`), built when first evaluated. The
    channels of a clip are sampled at the same times one after the other,
    so the last evaluation is kept and each channel takes its columns."""

    def __init__(self, curves: list):
        self.curves, self._curve, self._last = curves, None, None

    def values(self, t: np.ndarray) -> np.ndarray:
        """Every column at ``t`` (``t.shape + (curves,)``; kept: read only)."""
        last = self._last
        if last is None or last[0].shape != t.shape or not np.array_equal(last[0], t):
            if self._curve is None:  # (the curves were grouped as joining: see _joinable)
                self._curve = _join_columns(self.curves)
            values = np.asarray(self._curve(t), dtype=np.float64).reshape(
                t.shape + (len(self.curves),))
            last = self._last = (np.array(t), values)
        return last[1]

    def columns(self, t: np.ndarray, start: int, stop: int) -> np.ndarray:
        # (a copy: the kept values stay as they are)
        return self.values(t)[..., start:stop].copy()


class _JointColumns:
    """A channel layer's columns ``start:stop`` of a :class:`_SharedJoint`,
    called as the layer's own joined curve would be."""

    __slots__ = ("shared", "start", "stop")

    def __init__(self, shared: _SharedJoint, start: int, stop: int):
        self.shared, self.start, self.stop = shared, start, stop

    def __call__(self, t) -> np.ndarray:
        return self.shared.columns(np.asarray(t, dtype=np.float64), self.start, self.stop)


def _joinable(curves, seen=None):
    """Whether a layer's component curves are one joined Curve (the
    conditions of :meth:`_Composed._joints` and :func:`_joined`): the key
    of the set of curves they join with, None when they do not join, and
    False when their key times are equal but not the same bytes (0.0 and
    -0.0: they join, on their own). ``seen`` (a dict kept by the caller
    while the curves live) keeps what was found of each tuple of segment
    kinds and each array of key times met before."""
    if len(curves) < 2:
        return None
    first = curves[0]
    if first is None:
        return None
    times, kinds, pre, post = first.times, first.interpolation, first.pre, first.post
    if seen is None:
        seen = {}
    stepped = seen.get(id(kinds))
    if stepped is None:
        stepped = seen[id(kinds)] = "constant_next" in kinds
    if len(times) < 2 or stepped:
        return None
    same = True  # (all the same array of key times)
    for c in curves:
        if c is None or len(c.times) < 2 or not (
                (c.interpolation is kinds or c.interpolation == kinds) and c.pre == pre and
                c.post == post):
            return None
        if c.times is not times:
            same = False
    if (pre in _REPEATING or post in _REPEATING) and any(
            c.held_after() != (None, None) for c in curves):
        return None
    stamp = seen.get(id(times))
    if stamp is None:
        stamp = seen[id(times)] = times.tobytes()
    if not same and any(c.times is not times and c.times.tobytes() != stamp
                        for c in curves[1:]):
        return False if all(np.array_equal(c.times, times) for c in curves) else None
    return stamp, kinds, pre, post


def _share_joints(channels) -> None:
    """Gives the layers of a clip's channels whose curves join (see
    :func:`_joinable`) columns of shared joined curves, one per set of key
    times, segment kinds and extrapolations, in place of a joined curve
    each (the same values, from one evaluation instead of one per channel)."""
    groups: dict = {}
    places = []
    seen: dict = {}  # (see _joinable: the channels keep the curves alive meanwhile)
    for channel in channels:
        composed = channel.curve
        if not isinstance(composed, _Composed):
            continue
        keys = [_joinable(curves, seen) for _, _, curves, _ in composed.layers]
        if False in keys:  # a layer joins on its own: the channel joins its layers itself
            continue
        for index, key in enumerate(keys):
            if key is None:
                continue
            curves = composed.layers[index][2]
            group = groups.setdefault(key, [])
            places.append((composed, index, key, len(group), len(group) + len(curves)))
            group.extend(curves)
    shared = {key: _SharedJoint(curves) for key, curves in groups.items()}
    for composed, index, key, start, stop in places:
        joints = getattr(composed, "_joint_curves", None)
        if joints is None:
            joints = composed._joint_curves = [None] * len(composed.layers)
        joints[index] = _JointColumns(shared[key], start, stop)


class _PoseBatch:
    """The translation, rotation and scale channels of a clip whose one layer
    is columns of a :class:`_SharedJoint` (see :func:`_share_joints`),
    sampled together for :meth:`Scene.pose`, which samples every channel of
    a clip at the same times one after the other: each shared curve is
    evaluated once and the Euler angles of all the rotation channels of one
    rotation order become quaternions in one call; the values at the last
    times are kept and each channel takes its own. The numbers are those of
    each channel's own evaluation (:meth:`_Composed.__call__`): every step
    is elementwise."""

    def __init__(self, paths: list, joints: list, orders: list, pre: list, post: list):
        # per channel: its path, its layer's _JointColumns, rotation order, pre and
        # post rotations; the rotation channels grouped by order, with their pre and
        # post rotations stacked
        self.joints = joints
        groups: dict = {}
        for k, (path, order) in enumerate(zip(paths, orders)):
            if path == "rotation":
                groups.setdefault(order, []).append(k)
        self.rotations = [(order, ks, np.array([pre[k] for k in ks]),
                           np.array([post[k] for k in ks])) for order, ks in groups.items()]
        self._last = None

    def values(self, t: np.ndarray) -> list:
        """Each channel's value at ``t`` (``t.shape + (3 or 4,)``, kept: read only)."""
        last = self._last
        if last is not None and last[0].shape == t.shape and (
                last[0].tobytes() == t.tobytes() if t.size <= 4096 else
                np.array_equal(last[0], t)):
            return last[1]
        shared_values: dict = {}
        out = []
        for joint in self.joints:
            shared = joint.shared
            full = shared_values.get(id(shared))
            if full is None:
                full = shared_values[id(shared)] = shared.values(t)
            out.append(full[..., joint.start:joint.stop])  # (views of the kept values)
        for order, ks, pre, post in self.rotations:  # _node_rotation of each group at once
            angles = np.stack([out[k] for k in ks], axis=-2)
            q = _node_rotation(angles, order, pre, post)
            for j, k in enumerate(ks):
                out[k] = q[..., j, :]
        self._last = (np.array(t), out)
        return out


def _batch_poses(channels) -> None:
    """Gives the channels that :class:`_PoseBatch` samples their batch (after
    :func:`_share_joints`)."""
    paths, joints_, orders, pre, post, members = [], [], [], [], [], []
    for channel in channels:
        composed = channel.curve
        if not isinstance(composed, _Composed) or len(composed.layers) != 1 or \
                composed.path not in ("translation", "rotation", "scale"):
            continue
        joints = getattr(composed, "_joint_curves", None)
        if not joints or not isinstance(joints[0], _JointColumns):
            continue
        paths.append(composed.path)
        joints_.append(joints[0])
        orders.append(composed.order)
        pre.append(composed.pre)
        post.append(composed.post)
        members.append(channel)
    if members:
        batch = _PoseBatch(paths, joints_, orders, pre, post)
        for k, channel in enumerate(members):
            state = channel.__dict__
            state["_batch"], state["_batch_index"] = batch, k


def _layered(layers, values):
    """Per-layer values (``values``, in stack order) combined as MotionBuilder
    combines a stack's layers: the first as it is, then each over what lies
    below it, override (and override passthrough) ``v + w (layer - v)``,
    additive ``v + w layer`` (``layers``: ``(weight, mode, curves,
    defaults)``; a channel that the stack's base layer leaves starts from a
    layer of the node's own values, :func:`_own_layer`). None without layers."""
    value = None
    for index, ((weight, mode, _, _), layer) in enumerate(zip(layers, values)):
        if index == 0:
            value = layer
        elif mode == "additive":
            value = value + weight * layer
        else:
            value = value + weight * (layer - value)
    return value


def _own_layer(values) -> tuple:
    """A layer of a node's own values, without curves: what lies under the
    layers of a channel that the stack's base layer does not animate."""
    values = np.array(values, dtype=np.float64)
    return (1.0, "override", (None,) * len(values), values)


class _Composed(ByValue):
    """The callable a channel samples: its layers' component curves combined
    per component, then turned into the channel's value."""

    # (no __dict__: a reader makes one per channel; _joint_curves: see _joints)
    __slots__ = ("path", "layers", "defaults", "order", "pre", "post", "inbetweens",
                 "_joint_curves")

    def __init__(self, path, layers, defaults, order, pre, post, inbetweens=None):
        self.path, self.layers, self.defaults = path, tuple(layers), defaults
        self.order, self.pre, self.post = order, pre, post
        self.inbetweens = inbetweens  # of a weights channel's blend shape channels

    _fields = (("path", "layers", "defaults", "order", "pre", "post"), ("inbetweens",))

    def _state(self) -> dict:
        return {"path": self.path, "layers": self.layers, "defaults": self.defaults,
                "order": self.order, "pre": self.pre, "post": self.post,
                "inbetweens": self.inbetweens}

    @classmethod
    def _from_state(cls, state: dict) -> "_Composed":
        return cls(**state)

    def _joints(self) -> list:
        """Per layer, one Curve for all its components when they can share
        one (see :func:`_joined`), else None: one evaluation instead of one
        per component, built once."""
        joints = getattr(self, "_joint_curves", None)
        if joints is None:
            joints = [_joined(list(curves)) if len(curves) > 1 and all(
                c is not None and len(c) > 1 for c in curves) else None
                for _, _, curves, _ in self.layers]
            self._joint_curves = joints
        return joints

    def components(self, t: np.ndarray) -> np.ndarray:
        width = len(self.defaults)
        joints = self._joints()

        def layer_values(index, curves, defaults):
            if joints[index] is not None:
                return np.asarray(joints[index](t), dtype=np.float64).reshape(t.shape + (width,))
            layer = np.empty(t.shape + (width,))
            for c in range(width):
                layer[..., c] = curves[c](t) if curves[c] is not None else defaults[c]
            return layer

        value = _layered(self.layers, [layer_values(i, curves, defaults)
                                       for i, (_, _, curves, defaults) in enumerate(self.layers)])
        if value is None:  # (the defaults without a layer)
            value = np.broadcast_to(self.defaults, t.shape + (width,)).copy()
        return value

    def __call__(self, t) -> np.ndarray:
        t = np.asarray(t, dtype=np.float64)
        value = self.components(t)
        if self.path == "weights":  # DeformPercent
            return _target_weights(value / 100.0, self.inbetweens)
        if self.path != "rotation":
            return value
        return _node_rotation(value, self.order, self.pre, self.post)


@dataclass(frozen=True, eq=False)
class FbxChannel(Channel):
    """A channel whose components are FBX curves (see the module notes).

    ``curves`` are the first layer's X, Y, Z curves (None for a component
    without one); ``order`` is the rotation order of a rotation channel.
    """

    curves: tuple = field(default=(None, None, None), repr=False)
    order: str = "xyz"

    def _sample_into(self, t: np.ndarray, target: np.ndarray) -> None:
        state = self.__dict__
        batch = state.get("_batch")  # (see _PoseBatch)
        if batch is None:
            super()._sample_into(t, target)
        else:
            target[...] = batch.values(t)[state["_batch_index"]]

    def components(self, t) -> np.ndarray:
        """The combined component values (Euler degrees for rotation) at ``t``."""
        t = _query_times("FbxChannel.components", t)
        return self.curve.components(t)

    def __repr__(self) -> str:
        keys = [0 if c is None else len(c) for c in self.curves]
        return (f"FbxChannel(node={self.node}, node_name={self.node_name!r}, "
                f"path={self.path!r}, keys={keys})")


@dataclass(frozen=True, eq=False)
class FbxClip(Clip):
    """An FBX animation stack: ``start`` and ``stop`` (seconds, the stack's
    LocalStart and LocalStop), and its ``layers`` as
    ``(name, weight, blend mode, channels)`` tuples."""

    start: float = 0.0
    stop: float = 0.0
    layers: tuple = field(default=(), repr=False)

    def frames(self, fps: float, *, func: str = "FbxClip.frames") -> np.ndarray:
        """The stack's frames at ``fps``: from ``start`` to ``stop`` (the file's
        own time, as the channels take it)."""
        return self.start + frame_times(self.duration, fps, func=func)

    def __repr__(self) -> str:
        return (f"FbxClip(name={self.name!r}, start={self.start:.6g}, stop={self.stop:.6g}, "
                f"channels={len(self.channels)}, layers={len(self.layers)})")


# ----------------------------------------------------------------- transforms

@dataclass(frozen=True, eq=False)
class _Pivots(ByValue):
    rotation_offset: np.ndarray
    rotation_pivot: np.ndarray
    scaling_offset: np.ndarray
    scaling_pivot: np.ndarray
    pre: np.ndarray    # quaternion
    post: np.ndarray   # quaternion
    order: str
    inherit: int
    euler: np.ndarray  # the static Lcl Rotation (degrees)

    def _state(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @classmethod
    def _from_state(cls, state: dict) -> "_Pivots":
        return cls(**state)


_PIVOT_FIELDS = tuple(_Pivots.__dataclass_fields__)
_NO_PIVOTS = _Pivots(*(np.zeros(3),) * 4, np.array([0.0, 0, 0, 1]), np.array([0.0, 0, 0, 1]),
                    "xyz", 1, np.zeros(3))


def _pivot_turn(pv: _Pivots, rot, s) -> np.ndarray:
    """The part of a local matrix's translation that turns with the node,
    for rotation matrices ``rot`` and scales ``s``: rot (Soff + Sp - Rp - s Sp)
    (the rest, Roff + Rp, is a constant)."""
    shape = np.broadcast_shapes(np.shape(rot)[:-2], np.shape(s)[:-1])
    inner = pv.scaling_offset + pv.scaling_pivot - pv.rotation_pivot - \
        np.asarray(s) * pv.scaling_pivot
    return np.einsum("...ij,...j->...i", rot, np.broadcast_to(inner, shape + (3,)))


def _local_matrices(pv: _Pivots, t, q, s) -> np.ndarray:
    """FBX local matrices for translation t, whole rotation quaternion q
    (Rpre R Rpost^-1) and scale s (leading shapes broadcast)."""
    rot = quat_to_matrix(q)
    shape = np.broadcast_shapes(np.shape(t)[:-1], np.shape(q)[:-1], np.shape(s)[:-1])
    m = np.zeros(shape + (4, 4))
    m[..., :3, :3] = rot * np.asarray(s)[..., None, :]
    m[..., :3, 3] = np.asarray(t) + pv.rotation_offset + pv.rotation_pivot + \
        _pivot_turn(pv, rot, s)
    m[..., 3, 3] = 1.0
    return m


def _axis_conversion(settings: dict, units: str, up: str) -> np.ndarray:
    """The 4x4 taking the file's frame and unit to the requested ones."""
    def axis(name, sign, default, default_sign):
        a = _scalar(settings, name, default)
        sgn = _scalar(settings, sign, default_sign)
        v = np.zeros(3)
        v[a if a in (0, 1, 2) else default] = -1.0 if sgn < 0 else 1.0
        return v

    file_basis = np.column_stack([axis("CoordAxis", "CoordAxisSign", 0, 1),
                                  axis("UpAxis", "UpAxisSign", 1, 1),
                                  axis("FrontAxis", "FrontAxisSign", 2, 1)])
    if abs(np.linalg.det(file_basis)) < 0.5:  # repeated axes: Maya's default frame
        file_basis = np.eye(3)
    target = np.eye(3) if up == "y" else np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])
    # target columns: right, up, front in the target frame
    rotation = target @ file_basis.T
    centimetres = _scalar(settings, "UnitScaleFactor", 1.0)
    scale = centimetres * _UNITS[units]
    m = np.eye(4)
    m[:3, :3] = rotation * scale
    return m


_UNITS = {"m": 0.01, "cm": 1.0, "mm": 10.0}


@dataclass(frozen=True, eq=False)
class FbxScene(Scene):
    """A :class:`Scene` read from FBX, with each node's FBX transform.

    ``world(clip, t)`` evaluates FBX's transform formula and inherit types
    over the hierarchy and applies ``conversion`` (file frame and unit to the
    requested ones) above the roots. ``node_types`` are the FBX model types
    (``"LimbNode"``, ``"Null"``, ``"Mesh"``, ...). ``version`` is the file's
    FBX version.
    """

    node_types: tuple = ()
    conversion: np.ndarray = field(default_factory=lambda: np.eye(4), repr=False)
    pivots: tuple = field(default=(), repr=False)
    version: int = 0
    geometric: Union[np.ndarray, None] = field(default=None, repr=False)

    def geometry_world(self, clip=None, t=0.0) -> np.ndarray:
        """Where each node's geometry is: ``world(clip, t) @ geometric``
        (``t.shape + (N, 4, 4)``). ``geometric`` holds each node's geometric
        transform (GeometricTranslation x GeometricRotation, XYZ order, x
        GeometricScaling), which moves a mesh's vertices and not its
        children; identity for every node when it is None (older pickles)."""
        world = self._world("FbxScene.geometry_world", clip, t)
        return world if self.geometric is None else world @ self.geometric

    @property
    def joint_names(self) -> list:
        """The node names, in node order."""
        return [n.name for n in self.nodes]

    def world(self, clip=None, t=0.0, *, nodes=None, workers: Optional[int] = None) -> np.ndarray:
        """World matrices ``t.shape + (N, 4, 4)`` (row-major, column vectors)
        in the requested units and axes; ``clip`` None is the rest pose.
        ``workers`` as :meth:`Scene.world`'s; it changes nothing for an FBX
        clip, whose curves are sampled one by one."""
        world = self._world("FbxScene.world", clip, t, workers)
        if nodes is not None:
            world = world[..., [self.node_index(n, func="FbxScene.world", argument="nodes")
                                for n in nodes], :, :]
        return world

    def _world(self, func: str, clip, t, workers=None) -> np.ndarray:
        """:meth:`world` of every node, with errors naming ``func`` (the public caller)."""
        t = _query_times(func, t)
        pose = self._pose(func, clip, t, workers)
        count = len(self.nodes)
        world = np.zeros(t.shape + (count, 4, 4))
        with np.errstate(over="ignore", invalid="ignore"):  # (an overflow is raised below)
            locals_ = self._local_matrices(pose)
            steps = self._world_steps() if locals_ is not None else None
            if steps is None:
                self._world_nodes(world, pose, locals_, self.skeleton.order)
            else:  # one level of the hierarchy after the other, its RSrs nodes at once
                for depth, (joined, parents, others) in enumerate(steps):
                    if len(joined):
                        above = self.conversion if depth == 0 else world[..., parents, :, :]
                        world[..., joined, :, :] = above @ locals_[..., joined, :, :]
                    self._world_nodes(world, pose, locals_, others)
        if not np.isfinite(world).all():
            at = np.argwhere(~np.isfinite(world))[0]
            raise OverflowError(f"{func}: the world matrix of node "
                                f"{self.nodes[at[-3]].name!r} at index {tuple(at[:-3].tolist())} "
                                f"is not representable (its transforms multiply past the "
                                f"double range)")
        return world

    @property
    def _root_frame(self) -> np.ndarray:
        return self.conversion

    def _local_transforms(self, func: str, node: int, local: np.ndarray) -> Transforms:
        """Scene._local_transforms through the node's pivots and offsets
        (_local_matrices inverted): the rotation is the whole one (Rpre R
        Rpost^-1), as a plain rotation channel of this scene poses it."""
        trs = _decompose(func, local)
        pv = self.pivots[node]
        translation = trs.translation - pv.rotation_offset - pv.rotation_pivot - \
            _pivot_turn(pv, quat_to_matrix(trs.rotation), trs.scale)
        return Transforms(translation, trs.rotation, trs.scale)

    def _world_steps(self):
        """The levels of the hierarchy (roots first) as ``(nodes, their
        parents, other nodes)``: the nodes that are roots (level 0) or
        inherit RSrs (the product of their parent's world and their local
        matrix, taken for all of them at once) and the other nodes of the
        level; None when the skeleton's order does not put parents first."""
        steps = self.__dict__.get("_world_steps_plan")
        if steps is None:
            depth: dict = {}
            levels: dict = {}
            for i in self.skeleton.order.tolist():
                p = self.nodes[i].parent
                if p >= 0 and p not in depth:
                    return None
                depth[i] = 0 if p < 0 else depth[p] + 1
                levels.setdefault(depth[i], []).append(i)
            steps = []
            for level in range(len(levels)):
                members = levels[level]
                joined = [i for i in members if level == 0 or self.pivots[i].inherit == 1]
                others = [i for i in members if level != 0 and self.pivots[i].inherit != 1]
                steps.append((np.array(joined, dtype=np.intp),
                              np.array([self.nodes[i].parent for i in joined], dtype=np.intp),
                              others))
            object.__setattr__(self, "_world_steps_plan", steps)
        return steps

    def _world_nodes(self, world, pose, locals_, order) -> None:
        """The world matrices of the nodes ``order`` (in that order, their
        parents' already in ``world``) into ``world``."""
        t_shape = world.shape[:-3]
        for i in order:
            node = self.nodes[i]
            pv = self.pivots[i]
            local = locals_[..., i, :, :] if locals_ is not None else _local_matrices(
                pv, pose.translation[..., i, :], pose.rotation[..., i, :], pose.scale[..., i, :])
            p = node.parent
            if p < 0:
                world[..., i, :, :] = self.conversion @ local
            else:
                parent = world[..., p, :, :]
                if pv.inherit == 1:
                    world[..., i, :, :] = parent @ local
                elif pv.inherit == 2:
                    unscale = np.zeros(t_shape + (4, 4))
                    ps = pose.scale[..., p, :]
                    # a zero scale has no inverse: that axis is not compensated (as
                    # _componentwise takes a zero scale's axis as it is)
                    unscale[..., :3, :3] = np.eye(3) / np.where(ps == 0, 1.0, ps)[..., None, :]
                    unscale[..., 3, 3] = 1.0
                    adjusted = local.copy()
                    adjusted[..., :3, :3] = (unscale @ local)[..., :3, :3]
                    world[..., i, :, :] = parent @ adjusted
                else:
                    world[..., i, :, :] = _componentwise(parent, local)

    def _local_matrices(self, pose):
        """Every node's local matrix at the times of ``pose`` (``t.shape +
        (N, 4, 4)``), or None when the scene's pivots are not one per node."""
        stacked = self.__dict__.get("_stacked_pivots")
        if stacked is None:
            if len(self.pivots) != len(self.nodes) or not self.pivots:
                return None
            try:
                offsets = [np.array([getattr(pv, name) for pv in self.pivots], dtype=np.float64)
                           for name in ("rotation_offset", "rotation_pivot", "scaling_offset",
                                        "scaling_pivot")]
            except (TypeError, ValueError):
                return None
            if any(a.shape != (len(self.nodes), 3) for a in offsets):
                return None
            stacked = _Pivots(*offsets, None, None, "xyz", 1, None)
            object.__setattr__(self, "_stacked_pivots", stacked)
        return _local_matrices(stacked, pose.translation, pose.rotation, pose.scale)

    def _state(self) -> dict:
        state = super()._state()
        state.update(node_types=self.node_types, conversion=self.conversion,
                     pivots=self.pivots, version=self.version, geometric=self.geometric)
        return state

    @classmethod
    def _from_state(cls, state: dict) -> "FbxScene":
        return cls(state["nodes"], state["scenes"], state["scene"], state["skins"],
                   tuple(state["clips"]), (), state["node_types"], state["conversion"],
                   state["pivots"], state["version"], state.get("geometric"))

    def for_gltf(self, clips=None, *, fps: float = 30.0) -> tuple:
        """This scene as glTF can hold it: ``(scene, clips, report)``.

        ``scene`` is a plain :class:`Scene` whose nodes are the FBX nodes
        (same indices, rest transforms as translation, rotation, scale) under
        one more root, ``"fbx_axes_and_units"`` (the last node: ``conversion``
        as a transform), so that its ``world`` equals :meth:`world`. Each clip
        (default: every clip with channels; clips without channels are left
        out) keeps its curves as glTF keys where glTF expresses them exactly:
        all-step curves as STEP, all-linear as LINEAR, linear and cubic
        unweighted Bezier curves as CUBICSPLINE with per-key in/out tangents
        (on the union of the X, Y, Z and layers' key times: a cubic split at
        another component's key is still exact). Other channels are sampled
        as LINEAR keys on the grid of frames at ``fps`` over the clip's span
        plus every key time: Euler rotation curves that are not all steps
        (their composed quaternion is not a glTF sampler), weighted tangents,
        constant-next keys, steps mixed with other segments, non-constant
        extrapolation inside the clip, and every channel of a node with
        pivots or offsets or with a scale inheritance (RrSs, Rrs under a
        non-uniform parent scale) that glTF lacks, or with plain channels
        that are not FBX curves (what :func:`animcore.retarget`,
        :func:`animcore.ik_two_bone_clip` or :func:`animcore.extract_root_motion`
        write; then translation, rotation and scale of its local matrix; a
        plain weights channel is written as it is). ``report`` has one
        :class:`GltfExportRow` per written channel with its largest
        deviation. :func:`animcore.save` uses this for an FbxScene.
        """
        return _for_gltf(self, clips, positive_number("FbxScene.for_gltf", "fps", fps))

    def __repr__(self):
        return (f"FbxScene({len(self.nodes)} nodes, {len(self.skins)} skin(s), "
                f"clips={[c.name for c in self.clips]}, version={self.version})")


def _componentwise(parent: np.ndarray, local: np.ndarray) -> np.ndarray:
    """RrSs: the parent's world rotation and scale compose with the child's
    separately (scale along the child's axes, no shear)."""
    lin = parent[..., :3, :3]
    scale = np.linalg.norm(lin, axis=-2)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        det = np.linalg.det(lin)  # (only its sign: LAPACK's LU warns of a subnormal pivot)
    scale = scale * np.where(det < 0, -1.0, 1.0)[..., None] ** np.array([1, 0, 0])
    rot = lin / np.where(scale == 0, 1.0, scale)[..., None, :]
    out = np.empty(np.broadcast_shapes(parent.shape, local.shape))
    out[..., :3, :3] = rot @ local[..., :3, :3] * scale[..., None, :]
    out[..., :3, 3] = np.einsum("...ij,...j->...i", parent[..., :3, :3],
                                local[..., :3, 3]) + parent[..., :3, 3]
    out[..., 3, :] = (0.0, 0.0, 0.0, 1.0)
    return out


# --------------------------------------------------------------- glTF export

class GltfExportRow(NamedTuple):
    """How one channel of an FBX clip went to glTF (see :meth:`FbxScene.for_gltf`).

    ``clip`` and ``node`` are names, ``path`` the glTF path; ``interpolation``
    the glTF sampler written; ``fps`` None when the channel is the file's
    keys (exact to float32 rounding), else the frame rate of the grid it was
    sampled on (frames from the clip's start to its stop, plus every key
    time); ``keys`` the sampler's key count; ``deviation`` the largest
    difference between the written sampler and the FBX channel, in the
    channel's own units (file units for translation, radians of rotation
    angle, scale factor, morph weight), measured at 8 points per interval of
    the grid. ``reason`` says why a channel was sampled ("" when keyed).

    Rows with ``path`` "world" give, per clip (``clip`` "" for the rest
    pose), the largest distance between a node's world position in the
    written scene and in the FBX scene (output units), on the same check
    grid: it includes what no channel shows, such as the shear that FBX's
    RrSs inheritance makes under a non-uniform parent scale and no glTF
    node holds.
    """

    clip: str
    node: str
    path: str
    interpolation: str
    fps: Union[float, None]
    keys: int
    deviation: float
    reason: str


def _plain_inheritance(scene, pose, world, i) -> bool:
    """Whether glTF's parent @ local gives node ``i``'s FBX world at the
    times of ``pose`` and ``world``: inherit type RSrs, a root, or a parent
    whose world scale (RrSs) or local scale (Rrs) is uniform there."""
    pv, parent = scene.pivots[i], scene.nodes[i].parent
    if pv.inherit == 1 or parent < 0:
        return True
    if pv.inherit == 2:
        return bool(np.allclose(pose.scale[..., parent, :], 1.0, rtol=0, atol=1e-12))
    lin = world[..., parent, :3, :3]
    norms = np.linalg.norm(lin, axis=-2)
    return bool(np.allclose(norms, norms[..., :1], rtol=1e-12, atol=0))


def _has_pivots(pv) -> bool:
    return any(np.any(v != 0) for v in (pv.rotation_offset, pv.rotation_pivot,
                                        pv.scaling_offset, pv.scaling_pivot))


def _keyed_reason(channel, clip) -> str:
    """Why the FBX channel's layers are not glTF keys ("" when they are)."""
    if getattr(channel.curve, "inbetweens", None) is not None:
        return "in-between targets (piecewise linear in the channel's weight)"
    curves = [c for _, _, comps, _ in channel.curve.layers for c in comps if c is not None]
    kinds = {k for c in curves for k in c.interpolation[:-1]}
    if "constant_next" in kinds:
        return "constant-next keys"
    if channel.path == "rotation" and kinds - {"constant"}:
        return "Euler rotation curves (their quaternion is no glTF sampler)"
    if "constant" in kinds and kinds - {"constant"}:
        return "step segments mixed with others"
    for c in curves:
        cubic = np.array([k == "cubic" for k in c.interpolation[:-1]], dtype=bool)
        if np.any(c.right_weights[:-1][cubic] != 1.0 / 3.0) or \
                np.any(c.next_left_weights[:-1][cubic] != 1.0 / 3.0):
            return "weighted tangents"
        if np.any(~np.isfinite(c.in_slopes)) or np.any(~np.isfinite(c.out_slopes)):
            return "non-finite tangents"
        if (c.times[0] > clip.start and c.pre != "constant") or \
                (c.times[-1] < clip.stop and c.post != "constant"):
            return f"{c.pre}/{c.post} extrapolation inside the clip"
    if np.any(channel.times < 0):
        return "key times before 0"
    return ""


def _composed_slopes(channel, t, side) -> np.ndarray:
    """The time derivative of an FBX vector channel (layers combined as
    :class:`_Composed` combines them) on one side of ``t``."""
    def layer_slopes(comps):
        layer = np.zeros(t.shape + (len(comps),))
        for c, curve in enumerate(comps):
            if curve is not None and curve.curve is not None:
                layer[:, c] = curve.curve(t, 1, side=side)
        return layer

    layers = channel.curve.layers
    slope = _layered(layers, (layer_slopes(comps) for _, _, comps, _ in layers))
    return slope / 100.0 if channel.path == "weights" else slope


def _grid(clip, fps, times) -> np.ndarray:
    """Frames at ``fps`` over the clip's span (and the keys' span), plus the key
    times, none before 0, distinct in float32."""
    span = clip.frames(1.0, func="FbxScene.for_gltf")  # (its first and last: start and stop)
    start, stop = float(span[0]), float(span[-1])
    lo = max(0.0, min(start, float(times[0]) if len(times) else start))
    hi = max(lo, stop, float(times[-1]) if len(times) else lo)
    grid = np.concatenate([lo + frame_times(hi - lo, fps, func="FbxScene.for_gltf"),
                           times[times >= 0]])
    grid = np.unique(grid)
    keep = np.concatenate([[True], np.diff(grid.astype(np.float32)) > 0])
    return grid[keep]


def _deviation(path, exact, written) -> float:
    if not len(exact):
        return 0.0
    if path == "rotation":
        dot = np.abs(np.sum(exact * written, axis=-1)) / (
            np.linalg.norm(exact, axis=-1) * np.linalg.norm(written, axis=-1))
        return float(np.max(2.0 * np.arccos(np.clip(dot, -1.0, 1.0))))
    return float(np.max(np.abs(exact - written)))


def _dense(grid) -> np.ndarray:
    """8 points per interval of ``grid`` (and its ends); an interval of one
    float32 step (where a sampled jump is, and where no float32 time lies)
    only its ends."""
    if len(grid) < 2:
        return np.asarray(grid, dtype=np.float64)
    u = np.arange(8) / 8.0
    step = np.diff(grid)
    tiny = step <= 2.0 * np.spacing(np.abs(grid[1:]).astype(np.float32)).astype(np.float64)
    inner = grid[:-1, None] + u * np.where(tiny, 0.0, step)[:, None]
    inner = np.where(tiny[:, None] & (u > 0), np.nan, inner).reshape(-1)
    return np.append(inner[np.isfinite(inner)], grid[-1])


def _for_gltf(scene, clips, fps) -> tuple:
    count = len(scene.nodes)
    nodes = []
    for node in scene.nodes:
        local = node.matrix
        children = node.children
        nodes.append(Node(node.index, node.name, node.parent if node.parent >= 0 else count,
                          children, local[:3, 3].copy(), node.rotation, node.scale, None,
                          node.mesh, node.skin, node.weights, node.target_names))
    rest_world = scene.world(None, np.zeros(1))
    rest_pose = scene.pose(None, np.zeros(1))
    for i in range(count):  # a rest pose whose inheritance glTF lacks: its nearest TRS
        if not _plain_inheritance(scene, rest_pose, rest_world, i):
            trs = _nearest_trs(_parent_inverse(scene, rest_world, i) @ rest_world[:, i])
            nodes[i] = replace(nodes[i], translation=trs[0][0], rotation=trs[1][0],
                               scale=trs[2][0])
    roots = tuple(n.index for n in scene.nodes if n.parent < 0)
    conversion = np.asarray(scene.conversion)
    scale = float(np.cbrt(abs(np.linalg.det(conversion[:3, :3]))))
    nodes.append(Node(count, "fbx_axes_and_units", -1, roots, conversion[:3, 3].copy(),
                      quat_from_matrix(conversion[:3, :3] / scale), np.full(3, scale),
                      None))
    out_clips, report, worlds = [], [], []
    chosen = scene.clips if clips is None else clips
    for clip in ([chosen] if isinstance(chosen, Clip) else list(chosen)):
        if not clip.channels:
            continue
        keyed_times = np.unique(np.concatenate([c.times for c in clip.channels]))
        grid = _grid(clip, fps, keyed_times)
        check = _dense(grid)
        animated = {c.node for c in clip.channels if c.path != "weights"}
        fbx_world = scene.world(clip, check)
        fbx_pose = scene.pose(clip, check)
        # plain channels (retarget's, IK's, extract_root_motion's) have no FBX
        # curves to keep: their nodes are written from their local matrices,
        # as those with pivots are
        plain = {c.node for c in clip.channels
                 if c.path != "weights" and not isinstance(c, FbxChannel)}
        special = plain | {i for i in range(count) if (i in animated and _has_pivots(
            scene.pivots[i])) or not _plain_inheritance(scene, fbx_pose, fbx_world, i)}
        channels = []
        for channel in clip.channels:
            i, path = channel.node, channel.path
            if not isinstance(channel, FbxChannel):
                if path == "weights":  # a glTF channel already
                    channels.append(channel)
                    report.append(GltfExportRow(clip.name, channel.node_name, path,
                                                channel.interpolation, None,
                                                len(channel.times), 0.0, ""))
                continue
            reason = ("pivots or offsets" if _has_pivots(scene.pivots[i]) else
                      "scale inheritance glTF does not have") \
                if i in special and path != "weights" else _keyed_reason(channel, clip)
            if not reason:
                times = np.asarray(channel.times, dtype=np.float64)
                if not len(times):  # curve nodes without curves: their constant value
                    times = np.array([max(0.0, clip.start)])
                kinds = {k for _, _, comps, _ in channel.curve.layers for c in comps
                         if c is not None for k in c.interpolation[:-1]}
                values = channel.sample(times)
                if kinds <= {"constant"}:
                    interpolation, output = "STEP", values
                elif kinds <= {"linear"}:
                    interpolation, output = "LINEAR", values
                else:
                    interpolation = "CUBICSPLINE"
                    left = _composed_slopes(channel, times, "left")
                    right = _composed_slopes(channel, times, "right")
                    output = np.stack([left, values, right], axis=1).reshape(-1, values.shape[1])
                written = _keyed_channel(i, channel.node_name, path, times, output,
                                         interpolation)
                exact = channel.sample(check)
                report.append(GltfExportRow(clip.name, channel.node_name, path, interpolation,
                                            None, len(times),
                                            _deviation(path, exact, written.sample(check)), ""))
                channels.append(written)
                continue
            if i in special:
                continue  # written below from the node's local matrices
            own = _jump_grid(channel, grid)
            values = channel.sample(own)
            if path == "rotation":
                values = _same_hemisphere(values)
            written = _keyed_channel(i, channel.node_name, path, own, values, "LINEAR")
            own_check = _dense(own)
            report.append(GltfExportRow(clip.name, channel.node_name, path, "LINEAR", fps,
                                        len(own), _deviation(path, channel.sample(own_check),
                                                             written.sample(own_check)),
                                        reason))
            channels.append(written)
        if special:
            grid_world = scene.world(clip, grid)
            for i in sorted(special):
                pv, name = scene.pivots[i], scene.nodes[i].name
                reason = ("pivots or offsets" if _has_pivots(pv) else
                          "channels that are not FBX curves" if i in plain else
                          "scale inheritance glTF does not have")
                # the local TRS glTF needs below the parent's world (its world's nearest
                # TRS where FBX's inheritance gives a shear no TRS holds)
                exact = [_nearest_trs(_parent_inverse(scene, w, i) @ w[:, i])
                         for w in (grid_world, fbx_world)]
                for k, path in enumerate(("translation", "rotation", "scale")):
                    values = exact[0][k]
                    if path == "rotation":
                        values = _same_hemisphere(values)
                    written = _keyed_channel(i, name, path, grid, values, "LINEAR")
                    report.append(GltfExportRow(
                        clip.name, name, path, "LINEAR", fps, len(grid),
                        _deviation(path, exact[1][k], written.sample(check)), reason))
                    channels.append(written)
        # a glTF clip starts at 0 and lasts to its last key (as gltf.load reads it
        # back), here the stack's stop or beyond
        last = max((float(c.times[-1]) for c in channels), default=0.0)
        out_clips.append(Clip(clip.name, last, tuple(channels), clip.unsupported))
        worlds.append((clip, out_clips[-1], check, fbx_world))
    out = Scene(tuple(nodes), ((count,),), 0, scene.skins, tuple(out_clips))
    error = out.world(None, np.zeros(1))[..., :count, :3, 3] - rest_world[..., :3, 3]
    report.append(GltfExportRow("", "", "world", "", None, 1,
                                float(np.max(np.linalg.norm(error, axis=-1), initial=0.0)),
                                "rest pose world positions of every node"))
    for clip, written, check, fbx_world in worlds:  # the whole rig, in the output units
        error = out.world(written, check)[..., :count, :3, 3] - fbx_world[..., :3, 3]
        report.append(GltfExportRow(clip.name, "", "world", "", fps, len(check),
                                    float(np.max(np.linalg.norm(error, axis=-1))),
                                    "world positions of every node"))
    return out, tuple(out_clips), tuple(report)


def _parent_inverse(scene, world, i) -> np.ndarray:
    """The inverse of node ``i``'s parent world (the axis and unit conversion
    for a root), per time."""
    parent = scene.nodes[i].parent
    return np.linalg.inv(world[:, parent] if parent >= 0 else scene.conversion)


def _nearest_trs(m) -> tuple:
    """Translation, rotation and scale of matrices ``(T, 4, 4)``: the polar
    decomposition's rotation (a column negated on a mirror) and the scales
    along its axes; exact for matrices without shear."""
    lin = m[:, :3, :3]
    u, _, vt = np.linalg.svd(lin)
    rot = u @ vt
    mirror = np.linalg.det(rot) < 0
    rot[mirror, :, 0] *= -1.0
    scale = np.einsum("tji,tji->ti", rot, lin)
    return m[:, :3, 3].copy(), quat_from_matrix(rot), scale


def _jump_grid(channel, grid) -> np.ndarray:
    """``grid`` plus, around each key of a step segment, the float32 times
    just before and after it (so a LINEAR sampler jumps within one float32
    step, as the FBX curve does at the key)."""
    keys = [np.zeros(0)]
    for _, _, comps, _ in channel.curve.layers:
        for c in comps:
            if c is None:
                continue
            steps = np.flatnonzero([k.startswith("constant") for k in c.interpolation[:-1]])
            keys += [c.times[steps], c.times[steps + 1]]
            period = c.times[-1] - c.times[0]
            if period > 0 and (c.pre not in ("constant", "keep_slope") or
                               c.post not in ("constant", "keep_slope")):
                # the seams of repeated cycles, where a curve whose ends differ jumps
                k = np.arange(np.floor((grid[0] - c.times[0]) / period),
                              np.ceil((grid[-1] - c.times[0]) / period) + 1)
                keys.append(c.times[0] + k * period)
    keys = np.concatenate(keys)
    if not keys.size:
        return grid
    k32 = keys.astype(np.float32)
    near = np.concatenate([np.nextafter(k32, np.float32(-np.inf)),
                           np.nextafter(k32, np.float32(np.inf))]).astype(np.float64)
    near = near[(near >= grid[0]) & (near <= grid[-1])]
    out = np.unique(np.concatenate([grid, near]))
    keep = np.concatenate([[True], np.diff(out.astype(np.float32)) > 0])
    return out[keep]


def _same_hemisphere(q: np.ndarray) -> np.ndarray:
    """Quaternion samples with each one's sign flipped to lie within 90
    degrees of the one before (so that glTF's slerp takes the short way)."""
    q = np.array(q, dtype=np.float64)
    flip = np.sum(q[1:] * q[:-1], axis=-1) < 0
    sign = np.concatenate([[1.0], np.where(np.cumsum(flip) % 2, -1.0, 1.0)])
    return q * sign[:, None]


# ---------------------------------------------------------------------- scene

class _LazyMap:
    """A read-only mapping over the keys of the dict ``_keys``, whose values
    the subclass's ``_make`` makes of ``_keys[key]`` (kept in ``_made``)
    when first asked for."""

    __slots__ = ("_keys", "_made")

    def _make(self, j):
        raise NotImplementedError

    def get(self, key, default=None):
        out = self._made.get(key)
        if out is None:
            j = self._keys.get(key)
            if j is None:
                return default
            out = self._made[key] = self._make(j)
        return out

    def __getitem__(self, key):
        out = self.get(key)
        if out is None:
            raise KeyError(key)
        return out

    def __contains__(self, key) -> bool:
        return key in self._keys

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def items(self) -> list:
        return [(key, self[key]) for key in self._keys]

    def values(self) -> list:
        return [self[key] for key in self._keys]


class _Links(_LazyMap):
    """One side of a file's connections: child -> [(parent, property or
    None)] (or parent -> [(child, property or None)]), in file order, as
    ``_fbx_connections`` chains them (``_keys``: each object's first link);
    each object's list is made when first asked for (a reader asks for few
    of them)."""

    __slots__ = ("_next", "_others", "_properties")

    def __init__(self, heads: dict, nexts: list, others: list, properties: list):
        self._keys, self._next, self._others = heads, nexts, others
        self._properties, self._made = properties, {}

    def _make(self, j) -> list:
        others, properties, nexts = self._others, self._properties, self._next
        out = []
        while j >= 0:
            out.append((others[j], properties[j]))
            j = nexts[j]
        return out

    def labelled(self, key, kinds=None, kind=None) -> list:
        """The links of ``key`` with a property, as :meth:`get` gives them
        (only those to objects of ``kind`` when it is given, ``kinds``
        mapping ids to kinds), made afresh and not kept."""
        out = []
        j = self._keys.get(key)
        if j is None:
            return out
        others, properties, nexts = self._others, self._properties, self._next
        while j >= 0:
            prop = properties[j]
            if prop:
                other = others[j]
                if kind is None or kinds.get(other) == kind:
                    out.append((other, prop))
            j = nexts[j]
        return out


class _Entries(_LazyMap):
    """id -> (record, name, subtype) of a file's objects (see
    :class:`_Objects`; ``_keys``: id -> its record's index), each made when
    first asked for."""

    __slots__ = ("_file",)

    def __init__(self, f: _File, records: dict):
        self._file, self._keys, self._made = f, records, {}

    def _make(self, i) -> tuple:
        f = self._file
        count = f.counts[i]
        v = f.values(i)
        if isinstance(v[0], int):
            name, sub = v[1] if count > 1 else "", v[2] if count > 2 else ""
        else:
            name, sub = v[0], v[1] if count > 1 else ""
        return f.record(i), _object_name(str(name)), str(sub)


def _array_id(f: _File, block: _Record, count: int) -> Exception:
    """The FbxError at the first child of ``block`` (Objects, Connections)
    whose first ``count`` values hold an array where ids (numbers or names)
    are; a TypeError when none does."""
    for child in block.children:
        if any(isinstance(v, np.ndarray) for v in child.values[:count]):
            return f.error(child, "holds an array where an id (a number or a name) is "
                                  "expected")
    return TypeError(f"{block.name}: an id that is not a number or a name")


class _Objects:
    """Objects and connections of a file (FBX 7 ids or FBX 6 names), read
    in C (``_fbx_objects``, ``_fbx_connections``): ``order`` (the ids in
    file order), ``kinds`` (id -> the object's record name), ``by_id`` (id
    -> (record, name, subtype)), ``parents`` (child -> [(parent, property
    or None)]) and ``children`` (parent -> [(child, property or None)]);
    the tuples and lists are made for the ids asked for."""

    def __init__(self, f: _File):
        self.file = f
        self.order: list = []
        self.records: dict = {}  # id -> its record's index
        values = f._values
        objects = f.find("Objects")
        if objects is not None:
            try:
                self.order, self.records = f.read(_core._fbx_objects, f.record_table, values,
                                                  objects.index)
            except TypeError:  # (an id no dict takes)
                raise _array_id(f, objects, 1) from None
        names = f.names
        self.kinds: dict = {oid: names[i] for oid, i in self.records.items()}
        self.by_id = _Entries(f, self.records)
        self.parents = self.children = _Links({}, [], [], [])
        connections = f.find("Connections")
        codes = {f.name_codes[n] for n in ("C", "Connect") if n in f.name_codes}
        if connections is not None and codes:
            try:
                read = f.read(_core._fbx_connections, f.record_table, f.name_ids, values,
                              connections.index, codes)
            except TypeError:
                raise _array_id(f, connections, 3) from None
            kids, parents, properties, parent_heads, parent_next, child_heads, child_next = read
            self.parents = _Links(parent_heads, parent_next, parents, properties)
            self.children = _Links(child_heads, child_next, kids, properties)

    def kind(self, oid):
        return self.kinds.get(oid)

    def record(self, oid) -> _Record:
        """The record of object ``oid``."""
        return self.file.record(self.records[oid])


def _templates(f: _File) -> dict:
    """{(object type, template class): properties} from Definitions."""
    out = {}
    definitions = f.find("Definitions")
    for t in (definitions.children if definitions is not None else ()):
        if t.name != "ObjectType" or not t.values:
            continue
        for p in t.children:
            if p.name == "PropertyTemplate" and p.values:
                out[_record_text(t)] = _properties(p)
    return out


def _unique_names(names: list) -> list:
    """Names made unique in file order: a name already taken gets the first
    free ``.1``, ``.2``, ... suffix (``a, a.1, a`` -> ``a, a.1, a.2``)."""
    taken: set = set()
    out = []
    for name in names:
        unique, k = name, 0
        while unique in taken:
            k += 1
            unique = f"{name}.{k}"
        taken.add(unique)
        out.append(unique)
    return out


def _matrix16(record, f: _File) -> np.ndarray:
    v = record.values[0] if record.values and isinstance(record.values[0], np.ndarray) else \
        np.array([x for x in record.values if isinstance(x, (int, float))], dtype=np.float64)
    if len(v) != 16:
        raise f.error(record, f"a matrix holds {len(v)} values (must be 16)")
    return np.asarray(v, dtype=np.float64).reshape(4, 4).T  # stored column by column


def _read_scene(f: _File, units: str, up: str, errors: str) -> FbxScene:
    objects = _Objects(f)
    templates = _templates(f)
    settings_record = f.find("GlobalSettings")
    settings = _properties(settings_record)
    top = f.find("Objects")
    if not settings and top is not None:  # FBX 6: the settings are a record of Objects, with no id
        for c in f.child_indices(top.index):
            if f.names[c] == "GlobalSettings":
                settings_record = f.record(c)
                settings = _properties(settings_record)
                break
    factor = _scalar(settings, "UnitScaleFactor", 1.0)
    if not (math.isfinite(factor) and factor > 0.0):
        raise f.error(settings_record, f"property 'UnitScaleFactor' is {factor!r} (must be a "
                                       f"finite number > 0)")
    conversion = _axis_conversion(settings, units, up)
    model_ids = [oid for oid in objects.order if objects.kinds.get(oid) == "Model"]
    index_of = {oid: i for i, oid in enumerate(model_ids)}
    names = _unique_names([objects.by_id[oid][1] for oid in model_ids])
    # (only what _node_transforms reads)
    model_template = {k: v for k, v in templates.get("Model", {}).items()
                      if k in _MODEL_PROPERTIES}
    nodes, pivots, types = [], [], []
    parents = []
    model_rows = [objects.records[oid] for oid in model_ids]
    props_of = _properties_of(f, model_rows, model_template, _MODEL_PROPERTIES)
    for i, oid in enumerate(model_ids):
        sub = objects.by_id[oid][2]
        parent = -1
        for p, prop in objects.parents.get(oid, ()):
            if prop is None and p in index_of:
                parent = index_of[p]
                break
        parents.append(parent)
        types.append(sub)
    children = [[] for _ in model_ids]
    for i, p in enumerate(parents):
        if p >= 0:
            children[p].append(i)
    try:  # every node at once; one by one where that meets an extreme number
        with np.errstate(all="raise"):
            nodes, pivots, geometric = _node_transforms(props_of, names, parents, children)
    except (ValueError, FloatingPointError):
        _finite_properties(f, model_rows, props_of)  # (a NaN or infinity is an FbxError)
        nodes, pivots, geometric = _node_transforms_one_by_one(props_of, names, parents,
                                                               children)
    if not (np.isfinite(geometric).all() and
            np.isfinite(np.stack([n.matrix for n in nodes] or [np.eye(4)])).all()):
        _finite_properties(f, model_rows, props_of)
    blends = _blend_channels(objects, index_of)
    for node, entries in blends.items():
        weights = np.array([e[2] for e in entries]) / 100.0  # DeformPercent
        try:
            targets = _target_weights(weights, _inbetweens(entries))
        except _WeightOverflow as error:  # (named after the channel's record)
            record = objects.by_id[entries[error.channel][0][0]][0]
            raise record.file.error(record, str(error)) from None
        nodes[node] = replace(nodes[node], weights=targets, target_names=_target_names(entries))
    skins = _read_skins(f, objects, index_of)
    for skin in skins:  # the mesh a skin deforms (kept in Skin.skeleton until the model has a field)
        if skin.skeleton is not None:
            nodes[skin.skeleton] = replace(nodes[skin.skeleton], skin=skin.index)
    clips = _read_clips(f, objects, index_of, nodes, pivots, templates, blends)
    if f.version < 7000:
        clips = _read_takes(f, objects, index_of, nodes, pivots)
    roots = tuple(i for i, p in enumerate(parents) if p < 0)
    return FbxScene(tuple(nodes), (roots,), 0 if nodes else None, tuple(skins), tuple(clips),
                    (), tuple(types), frozen_copy(conversion), tuple(pivots), int(f.version),
                    frozen_copy(np.reshape(geometric, (-1, 4, 4))))


# the Model properties the node transforms are made of
_MODEL_PROPERTIES = frozenset((
    "RotationOrder", "PreRotation", "PostRotation", "RotationOffset", "RotationPivot",
    "ScalingOffset", "ScalingPivot", "InheritType", "Lcl Translation", "Lcl Rotation",
    "Lcl Scaling", "GeometricTranslation", "GeometricRotation", "GeometricScaling"))


def _finite_properties(f: _File, rows: list, props_of: list) -> None:
    """An FbxError at the first Model record (``rows``: record indices) whose
    transform properties hold a NaN or an infinity; nothing when none does."""
    for row, props in zip(rows, props_of):
        for name, values in props.items():
            for x in values[:3] if isinstance(values, (list, tuple)) else ():
                if isinstance(x, float) and not math.isfinite(x):
                    raise f.error(f.record(row), f"property {name!r} holds {x!r} (must be "
                                                 f"finite)")


def _node_transforms_one_by_one(props_of, names, parents, children) -> tuple:
    """(nodes, pivots, geometric matrices) of the Model nodes' properties."""
    nodes, pivots, geometric = [], [], []
    for i, props in enumerate(props_of):
        order_code = _scalar(props, "RotationOrder", 0)
        order = _ORDERS[order_code] if 0 <= order_code < 6 else "xyz"
        pre = _euler_quat(_vec(props, "PreRotation", (0, 0, 0)), "xyz")
        post = _euler_quat(_vec(props, "PostRotation", (0, 0, 0)), "xyz")
        pv = _Pivots(_vec(props, "RotationOffset", (0, 0, 0)),
                     _vec(props, "RotationPivot", (0, 0, 0)),
                     _vec(props, "ScalingOffset", (0, 0, 0)),
                     _vec(props, "ScalingPivot", (0, 0, 0)), pre, post, order,
                     _scalar(props, "InheritType", 0), _vec(props, "Lcl Rotation", (0, 0, 0)))
        geometric.append(_local_matrices(
            _NO_PIVOTS, _vec(props, "GeometricTranslation", (0, 0, 0)),
            _euler_quat(_vec(props, "GeometricRotation", (0, 0, 0)), "xyz"),
            _vec(props, "GeometricScaling", (1, 1, 1))))
        rotation = _node_rotation(pv.euler, order, pre, post)
        translation = _vec(props, "Lcl Translation", (0, 0, 0))
        scale = _vec(props, "Lcl Scaling", (1, 1, 1))
        matrix = _local_matrices(pv, translation, rotation, scale)
        nodes.append(Node(i, names[i], parents[i], tuple(children[i]), translation, rotation,
                          scale, matrix))
        pivots.append(pv)
    return nodes, pivots, geometric


def _node_transforms(props_of, names, parents, children) -> tuple:
    """:func:`_node_transforms_one_by_one`, each step over every node at
    once (the same numbers: the steps are elementwise)."""
    count = len(props_of)
    if not count:
        return [], [], []

    number = (int, float)

    def column(name, default):  # _vec of every node, as one array
        rows = []
        append = rows.append
        for props in props_of:
            v = props.get(name)
            if v is None or len(v) < 3:
                append(default)
                continue
            x, y, z = v[0], v[1], v[2]
            if type(x) is float and type(y) is float and type(z) is float:
                append((x, y, z))  # (the common case: float() would give them back)
            elif isinstance(x, number) and isinstance(y, number) and isinstance(z, number):
                append((float(x), float(y), float(z)))
            else:
                append(default)
        return frozen_copy(rows).reshape(count, 3)

    def frozen(q):
        q.flags.writeable = False
        return q

    orders = []
    for props in props_of:
        order_code = _scalar(props, "RotationOrder", 0)
        orders.append(_ORDERS[order_code] if 0 <= order_code < 6 else "xyz")
    pre = frozen(_euler_quat(column("PreRotation", (0, 0, 0)), "xyz"))
    post = frozen(_euler_quat(column("PostRotation", (0, 0, 0)), "xyz"))
    offsets = [column(name, (0, 0, 0)) for name in ("RotationOffset", "RotationPivot",
                                                     "ScalingOffset", "ScalingPivot")]
    euler = column("Lcl Rotation", (0, 0, 0))
    geometric = _local_matrices(
        _NO_PIVOTS, column("GeometricTranslation", (0, 0, 0)),
        _euler_quat(column("GeometricRotation", (0, 0, 0)), "xyz"),
        column("GeometricScaling", (1, 1, 1)))
    turn = np.empty((count, 4))
    for order in dict.fromkeys(orders):
        rows = np.array([o == order for o in orders])
        turn[rows] = _euler_quat(euler[rows], order)
    rotation = frozen(quat_multiply(quat_multiply(pre, turn), quat_conjugate(post)))
    translation = column("Lcl Translation", (0, 0, 0))
    scale = column("Lcl Scaling", (1, 1, 1))
    inherit = [_scalar(props, "InheritType", 0) for props in props_of]
    every = _Pivots(*offsets, pre, post, "xyz", 1, euler)
    matrix = frozen(_local_matrices(every, translation, rotation, scale))
    pivots = [_new(_Pivots, dict(zip(_PIVOT_FIELDS, row)))  # _Pivots(*row)
              for row in zip(*offsets, pre, post, orders, inherit, euler)]
    nodes = [Node(i, names[i], parents[i], tuple(children[i]), translation[i], rotation[i],
                  scale[i], matrix[i]) for i in range(count)]
    return nodes, pivots, list(geometric)


def _read_skins(f: _File, objects: _Objects, index_of: dict) -> list:
    skins = []
    for oid in objects.order:
        if objects.kinds[oid] != "Deformer":
            continue
        r, name, sub = objects.by_id[oid]
        if sub != "Skin":
            continue
        joints, inverse_binds = [], []
        for child, prop in objects.children.get(oid, ()):
            entry = objects.by_id.get(child)
            if entry is None or entry[2] != "Cluster":
                continue
            cluster = entry[0]
            link = [c for c, _ in objects.children.get(child, ()) if c in index_of]
            if not link:
                continue
            transform = cluster.child("Transform")
            mesh_bind = _matrix16(transform, f) if transform is not None else np.eye(4)
            joints.append(index_of[link[0]])
            # Maya, MotionBuilder and Blender write the cluster's Transform as the map from
            # the mesh to the joint at bind time: BindPose(joint) @ Transform = BindPose(mesh)
            # on the shared files, TransformLink being BindPose(joint).
            inverse_binds.append(mesh_bind)
        if joints:
            # FBX 7: Model <- Geometry <- Skin; FBX 6 keeps the geometry in the Model
            meshes = [index_of[m] for g, _ in objects.parents.get(oid, ())
                      for m, _ in [(g, None)] + objects.parents.get(g, []) if m in index_of]
            skins.append(Skin(len(skins), name, np.array(joints), np.array(inverse_binds),
                              meshes[0] if meshes else None))
    return skins


_PATHS = {"Lcl Translation": "translation", "Lcl Rotation": "rotation",
          "Lcl Scaling": "scale"}


def _blend_channels(objects: _Objects, index_of: dict) -> dict:
    """{mesh node: [((target id, property), name, percent, in-betweens)]} of
    its blend shape channels in file order: Model <- Geometry <- Deformer
    BlendShape <- SubDeformer BlendShapeChannel (its DeformPercent), or FBX
    7.1's Shape records inside the Geometry (a Geometry property of the
    shape's name). ``in-betweens`` is None for a channel with one shape at
    full weight 100, else ((shape name, full weight / 100), ...)."""
    out: dict = {}
    for oid in objects.order:
        if objects.kinds[oid] not in ("Deformer", "Geometry"):
            continue
        r, name, sub = objects.by_id[oid]
        if r.name == "Deformer" and sub == "BlendShapeChannel":
            percent = _scalar(_properties(r), "DeformPercent", 0.0)
            shapes = [objects.by_id[c][1] for c, prop in objects.children.get(oid, ())
                      if prop is None and objects.kinds.get(c) == "Geometry"]
            full = _child_value(r, "FullWeights", None, _full_weights)
            if full is not None:
                _finite_numbers(r.file, r.child("FullWeights"), "FullWeights", full)
            inbetweens = None
            if full is not None and len(full) == len(shapes) and (
                    len(shapes) > 1 or (shapes and full[0] != 100.0)):
                inbetweens = tuple(zip(shapes, (full / 100.0).tolist()))
            for blend, _ in objects.parents.get(oid, ()):
                for geometry, _ in objects.parents.get(blend, ()):
                    for model, _ in objects.parents.get(geometry, ()):
                        if model in index_of:
                            out.setdefault(index_of[model], []).append(
                                ((oid, "DeformPercent"), name, percent, inbetweens))
        elif r.name == "Geometry":
            shapes = [_record_text(c) for c in r.children
                      if c.name == "Shape" and c.values]
            props = _properties(r)
            for model, _ in objects.parents.get(oid, ()):
                if model in index_of:
                    for shape in shapes:
                        out.setdefault(index_of[model], []).append(
                            ((oid, shape), shape, _scalar(props, shape, 0.0), None))
    return out


def _full_weights(value):
    """A FullWeights value as a float64 vector; None (as if absent) when it
    is not numbers."""
    try:
        return np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        return None


def _inbetweens(entries):
    """Each channel's in-between shapes (None for a plain channel), or None
    when no channel has any: what :func:`_target_weights` expands."""
    shapes = tuple(entry[3] for entry in entries)
    return None if all(s is None for s in shapes) else shapes


def _target_names(entries) -> tuple:
    """One name per target: a channel's own, or its in-between shapes'."""
    return tuple(n for _, name, _, shapes in entries
                 for n in ([name] if shapes is None else [s for s, _ in shapes]))


class _WeightOverflow(OverflowError):
    """In-between target weights that overflow, and the blend shape channel
    (its index among the node's) whose weight they share."""

    def __init__(self, channel: int, message: str):
        super().__init__(message)
        self.channel = channel


def _target_weights(weights: np.ndarray, inbetweens) -> np.ndarray:
    """Channel weights (..., channels) to target weights (..., targets): a
    plain channel's weight as it is, an in-between channel's shared between
    the two full weights around it (see the module notes). ``inbetweens``
    is :func:`_inbetweens` of the channels."""
    if inbetweens is None:
        return weights
    columns = []
    for c, shapes in enumerate(inbetweens):
        w = weights[..., c]
        if shapes is None:
            columns.append(w[..., None])
            continue
        points = np.array([f for _, f in shapes] + [0.0])  # the base mesh at 0
        rank = np.argsort(points, kind="stable")
        ordered = points[rank]
        # the segment around w; outside the points, the outermost one
        hi = np.clip(np.searchsorted(ordered, w, side="right"), 1, len(points) - 1)
        lo = hi - 1
        width = ordered[hi] - ordered[lo]
        with np.errstate(over="ignore", invalid="ignore"):
            share = np.divide(w - ordered[lo], width, out=np.zeros(w.shape), where=width != 0)
        if not np.isfinite(share).all():  # far outside full weights very close together
            at = np.unravel_index(int(np.argmin(np.isfinite(share))), share.shape)
            raise _WeightOverflow(c, f"the in-between weights of DeformPercent "
                                f"{100 * w[at]:.17g} overflow (its shape's full weights "
                                f"{100 * ordered[lo][at]:.17g} and {100 * ordered[hi][at]:.17g} "
                                f"extrapolated)")
        shares = np.zeros(w.shape + (len(points),))
        np.put_along_axis(shares, lo[..., None], (1.0 - share)[..., None], axis=-1)
        np.put_along_axis(shares, hi[..., None], share[..., None], axis=-1)
        per_shape = np.empty_like(shares)
        per_shape[..., rank] = shares  # back to the shapes' order, the base last
        per_shape = per_shape[..., :-1]
        columns.append(per_shape)
    return np.concatenate(columns, axis=-1)


def _key_times(layers) -> np.ndarray:
    """The sorted union of the key times of the layers' curves."""
    times = [c.times for _, _, comps, _ in layers for c in comps if c is not None]
    if times:
        first = stamp = times[0]
        for t in times:  # (the same array, or the same bytes)
            if t is not first:
                if stamp is first:
                    stamp = first.tobytes()
                if t.tobytes() != stamp:
                    break
        else:  # the union of one increasing set of times
            if first.dtype == np.float64 and not first.flags.writeable:
                return first  # (read-only already: shared, not copied)
            return frozen_copy(first)
    return frozen_copy(np.unique(np.concatenate(times)) if times else [])


def _transform_channel(node: int, path: str, layers: list, nodes: list,
                       pivots: list, over_own: bool = False) -> FbxChannel:
    """The translation, rotation or scale channel of a node from its layers
    ``(weight, mode, (X, Y, Z curves), defaults)`` (FBX 7 stacks and FBX 6
    takes alike), over the node's own values when ``over_own`` (the stack's
    base layer does not animate it)."""
    pv, rest = pivots[node], nodes[node]
    base = (rest.translation if path == "translation" else rest.scale if path == "scale"
            else pv.euler)
    layers = [_own_layer(base)] + list(layers) if over_own else layers
    composed = _Composed(path, layers, base, pv.order, pv.pre, pv.post)
    return _new(FbxChannel, dict(node=node, node_name=rest.name, path=path, interpolation=None,
                                 width=4 if path == "rotation" else 3, times=_key_times(layers),
                                 output=None, curve=composed, target=rest.name,
                                 curves=layers[0][2], order=pv.order))


def _layer_ids(objects: _Objects, sid) -> list:
    """A stack's AnimationLayer ids in file order."""
    kinds = objects.kinds
    ids = [c for c, p in objects.children.get(sid, ()) if kinds.get(c) == "AnimationLayer"]
    return sorted(ids, key=objects.order.index)


def _curve_ids(objects: _Objects, cn) -> list:
    """(AnimationCurve id, property) of an AnimationCurveNode."""
    return objects.children.labelled(cn, objects.kinds, "AnimationCurve")


def _read_clips(f, objects, index_of, nodes, pivots, templates, blends=None) -> list:
    clips = []
    layer_template = templates.get("AnimationLayer", {})
    stack_template = templates.get("AnimationStack", {})
    kinds = objects.kinds
    stacks = [sid for sid in objects.order if kinds.get(sid) == "AnimationStack"]
    # every curve the stacks use, read once and decoded together
    children = objects.children
    curve_ids = {cn: _curve_ids(objects, cn)
                 for sid in stacks for lid in _layer_ids(objects, sid)
                 for cn, _ in children.get(lid, ()) if kinds.get(cn) == "AnimationCurveNode"}
    used = list(dict.fromkeys(c for ids in curve_ids.values() for c, _ in ids))
    read = dict(zip(used, _read_curves(f, [objects.records[c] for c in used])))
    # each curve node's d|X, d|Y, d|Z (the values of the components without a curve)
    node_defaults = dict(zip(curve_ids, _scalars_of(f, [objects.records[cn] for cn in curve_ids],
                                                    ("d|X", "d|Y", "d|Z"))))
    blend_slot = {entry[0]: (node, i) for node, entries in (blends or {}).items()
                  for i, entry in enumerate(entries)}
    for sid in stacks:
        stack, stack_name, _ = objects.by_id[sid]
        sprops = _properties(stack, stack_template)
        start = _scalar(sprops, "LocalStart", 0) / TICKS_PER_SECOND
        stop = _scalar(sprops, "LocalStop", 0) / TICKS_PER_SECOND
        unsupported = []
        per_target: dict = {}
        based = set()  # the channels the stack's base layer animates
        layer_info = []
        weight_layers: dict = {}
        layer_ids = _layer_ids(objects, sid)
        for lid in layer_ids:
            layer, layer_name, _ = objects.by_id[lid]
            lprops = _properties(layer, layer_template)
            weight = _scalar(lprops, "Weight", 100.0) / 100.0
            mode = {0: "additive", 1: "override", 2: "override_passthrough"}.get(
                _scalar(lprops, "BlendMode", 0), "additive")
            if _scalar(lprops, "Mute", 0):  # (MotionBuilder evaluates no muted layer)
                layer_info.append((layer_name, weight, mode, ()))
                continue
            layer_channels = []
            for cn, _ in objects.children.get(lid, ()):
                if kinds.get(cn) != "AnimationCurveNode":
                    continue
                curves = {prop: read[c] for c, prop in curve_ids[cn]}
                targets = objects.parents.labelled(cn)
                for target, prop in targets:
                    if (target, prop) in blend_slot:
                        node, slot = blend_slot[(target, prop)]
                        cprops = _properties(objects.record(cn))
                        weight_layers.setdefault(node, {}).setdefault(lid, (weight, mode, {}))[
                            2][slot] = (curves.get(f"d|{prop}"),
                                        _scalar(cprops, f"d|{prop}", 0.0))
                        layer_channels.append((node, "weights"))
                    elif target in index_of and prop in _PATHS:
                        comps = (curves.get("d|X"), curves.get("d|Y"), curves.get("d|Z"))
                        defaults = node_defaults[cn].copy()
                        key = (index_of[target], _PATHS[prop])
                        if lid == layer_ids[0]:
                            based.add(key)
                        per_target.setdefault(key, []).append((weight, mode, comps, defaults))
                        layer_channels.append(key)
                    else:
                        owner = objects.by_id.get(target)
                        label = f"{owner[1] if owner else target}.{prop}"
                        unsupported.append(Unsupported(label, sum(len(c) for c in
                                                                  curves.values())))
            layer_info.append((layer_name, weight, mode, tuple(layer_channels)))
        channels = [_transform_channel(node, path, layers, nodes, pivots,
                                       (node, path) not in based)
                    for (node, path), layers in per_target.items()]
        for node, per_layer in weight_layers.items():
            rest = nodes[node]
            base = np.array([entry[2] for entry in blends[node]])  # DeformPercent per channel
            layers = [] if layer_ids[0] in per_layer else [_own_layer(base)]
            for weight, mode, slots in per_layer.values():
                comps = tuple(slots.get(i, (None, 0.0))[0] for i in range(len(base)))
                defaults = np.array([slots[i][1] if i in slots else base[i]
                                     for i in range(len(base))])
                layers.append((weight, mode, comps, defaults))
            composed = _Composed("weights", layers, base, "xyz", None, None,
                                 _inbetweens(blends[node]))
            channels.append(FbxChannel(node, rest.name, "weights", None, len(rest.weights),
                                       _key_times(layers), None, composed, rest.name,
                                       layers[0][2]))
        _share_joints(channels)
        _batch_poses(channels)
        clips.append(FbxClip(stack_name, stop - start, tuple(channels), tuple(unsupported),
                             start, stop, tuple(layer_info)))
    return clips


# ------------------------------------------------------------- FBX 6 takes

def _token(value):
    """A value of an FBX 6 key list: numbers as they are, characters (bare
    words in ASCII, bytes in binary) as their code."""
    if isinstance(value, str):
        return ord(value[0]) if value else 0
    return value


def _take_keys(f: _File, record: _Record) -> Union[tuple, None]:
    """The checked keys of an FBX 6 Channel record with Key / Default (None
    without keys): per key time, value, mode 'U' (cubic: a slope mode with
    its numbers, then weight modes), 'L' (linear) or 'C' (constant); as
    (times, values, interpolation, tangent modes, flags, right slopes,
    next-left slopes, right weights, next-left weights, default), the
    flags those of the FBX 7 key with the same slopes."""
    default = _child_value(record, "Default", 0.0)
    keys = record.child("Key")
    if keys is None:
        return None
    stream = []
    for v in keys.values:
        if isinstance(v, np.ndarray):
            stream.extend(v.tolist())
        else:
            stream.append(_token(v))
    key_version = _child_value(record, "KeyVer", 4005, int)
    count = _child_value(record, "KeyCount", None, int)
    at = 0

    def take(n):
        nonlocal at
        if at + n > len(stream):
            raise f.error(keys, f"key list ends inside key {len(times)} (at value {at})")
        out = stream[at:at + n]
        at += n
        return out

    times, values, kinds, right, left, wr, wl, auto = [], [], [], [], [], [], [], []
    while at < len(stream) and (count is None or len(times) < count):
        tick, value, mode = take(3)
        slope_r = slope_l = 0.0
        weight_r = weight_l = 1.0 / 3.0
        is_auto = False
        if mode == ord("U"):
            kinds.append("cubic")
            slope_mode = take(1)[0]
            weights = 1
            if slope_mode in (ord("s"), ord("b")):
                slope_r, slope_l = take(2)
                weights = 0 if key_version == 4003 else 1
            elif slope_mode == ord("a"):
                is_auto = True
                weights = 0 if key_version <= 4004 else 1
            elif slope_mode in (ord("p"), ord("q")):
                is_auto = True
                take(2)
                weights = 1 if key_version <= 4004 else 2
            elif slope_mode == ord("t"):
                is_auto = True
                take(3)
                weights = 0
            elif slope_mode == ord("d"):
                is_auto = True
                take(1)
            else:
                raise f.error(keys, f"unknown slope mode {slope_mode!r} at key {len(times)}")
            for _ in range(weights):
                w = take(1)[0]
                if w == ord("a"):
                    weight_r, weight_l = take(2)
                elif w == ord("l"):
                    weight_l = take(1)[0]
                elif w == ord("r"):
                    weight_r = take(1)[0]
                elif w not in (ord("n"), ord("c")):
                    raise f.error(keys, f"unknown weight mode {w!r} at key {len(times)}")
        elif mode == ord("L"):
            kinds.append("linear")
        elif mode == ord("C"):
            nxt = take(1)[0] if key_version >= 4004 else 0
            kinds.append("constant_next" if nxt == ord("n") else "constant")
        else:
            raise f.error(keys, f"unknown key mode {mode!r} at key {len(times)}")
        times.append(float(tick) / TICKS_PER_SECOND)
        values.append(float(value))
        right.append(float(slope_r))
        left.append(float(slope_l))
        wr.append(float(weight_r))
        wl.append(float(weight_l))
        auto.append(is_auto)
    if not times:
        return None
    if at != len(stream) or (count is not None and len(times) != count):
        raise f.error(keys, f"key list of {len(stream)} values holds {len(times)} keys, "
                            f"not the {count} of KeyCount")
    times_a, values_a = np.array(times), np.array(values)
    _finite_numbers(f, keys, "key time", times_a)
    _finite_numbers(f, keys, "key value", values_a)
    _increasing_keys(f, keys, times_a)
    codes = {"cubic": _CUBIC | _USER, "linear": _LINEAR, "constant": _CONSTANT,
             "constant_next": _CONSTANT | _CONSTANT_NEXT}
    # auto keys as FBX 7's time-independent, clamped progressive ones (no bias)
    flags = np.array([_CUBIC | _CLAMP_PROGRESSIVE | _TIME_INDEPENDENT if a else codes[kind]
                      for kind, a in zip(kinds, auto)], dtype=np.int64)
    linear = np.flatnonzero(flags[:-1] == _LINEAR)
    right, left = np.array(right), np.array(left)
    with np.errstate(over="ignore"):
        right[linear] = left[linear] = np.diff(values_a)[linear] / np.diff(times_a)[linear]
    modes = tuple(("auto" if a else "user") if kind == "cubic" else "none"
                  for kind, a in zip(kinds, auto))
    return (times_a, values_a, tuple(kinds), modes, flags, right, left, np.array(wr),
            np.array(wl), default)


def _take_curves_of(keys: list) -> list:
    """FbxCurves of the keys of FBX 6 channels (see :func:`_take_keys`), their
    slopes decoded together (the curves' arrays are read-only views)."""
    if not keys:
        return []
    times, values, flags, right, left, wr, wl = (np.concatenate([k[i] for k in keys])
                                                 for i in (0, 1, 4, 5, 6, 7, 8))
    sizes = np.array([len(k[0]) for k in keys])
    ends = np.cumsum(sizes)
    starts = ends - sizes
    in_s, out_s = _key_slopes(times, values, flags, np.column_stack([right, left]), wr, wl,
                              starts)
    in_s[starts] = out_s[starts]  # an FBX 6 first key has no stored left slope: its right one
    columns = (times, values, right, left, wr, wl, in_s, out_s)
    for c in columns:
        c.flags.writeable = False
    curves = []
    for k, a, b in zip(keys, starts.tolist(), ends.tolist()):
        t, v, r, l, w_r, w_l, i, o = (c[a:b] for c in columns)
        curves.append(FbxCurve(t, v, k[2], k[3], r, l, w_r, w_l, "constant", "constant",
                               (-1, -1), k[9], i, o))
    return curves


def _read_takes(f, objects, index_of, nodes, pivots) -> list:
    """FBX 6 animation: each Take one clip, Model > Channel "Transform" >
    Channel T/R/S > Channel X/Y/Z curves."""
    takes = f.find("Takes")
    clips = []
    by_text = {str(oid): index for oid, index in index_of.items()}
    by_name = {}
    for oid, index in index_of.items():
        by_name.setdefault(objects.by_id[oid][1], index)
    for take in (takes.children if takes is not None else ()):
        if take.name != "Take" or not take.values:
            continue
        span = take.child("LocalTime")
        start = stop = 0.0
        if span is not None and len(span.values) >= 2:
            if not all(isinstance(v, (int, float)) for v in span.values[:2]):
                raise f.error(span, f"is {span.values[:2]!r} (must be two times in ticks)")
            start, stop = (float(v) / TICKS_PER_SECOND for v in span.values[:2])
        unsupported = []
        pending, targets = [], []  # the take's keys, decoded together below
        for model in take.children:
            if model.name != "Model" or not model.values:
                continue
            text = str(model.values[0])
            node = by_text.get(text, by_name.get(_object_name(text)))
            for channel in model.children:
                if channel.name != "Channel" or not channel.values:
                    continue
                kind = _record_text(channel)
                parts = [c for c in channel.children if c.name == "Channel" and c.values] \
                    if kind == "Transform" else []
                if node is None or kind != "Transform":
                    found = [k for k in _take_channel_keys(f, channel) if k is not None]
                    if found:
                        unsupported.append(Unsupported(f"{_object_name(text)}.{kind}",
                                                       sum(len(k[0]) for k in found)))
                    continue
                for part in parts:
                    path = {"T": "translation", "R": "rotation", "S": "scale"}.get(
                        _record_text(part))
                    if path is None:
                        continue
                    comps = []
                    defaults = []
                    for axis in "XYZ":
                        sub = [c for c in part.children if c.name == "Channel" and
                               c.values and _record_text(c) == axis]
                        keys = _take_keys(f, sub[0]) if sub else None
                        comps.append(None if keys is None else len(pending))
                        if keys is not None:
                            pending.append(keys)
                        defaults.append(_child_value(sub[0], "Default", 0.0) if sub else 0.0)
                    if any(c is not None for c in comps):
                        targets.append((node, path, comps, np.array(defaults)))
        decoded = _take_curves_of(pending)
        channels = []
        for node, path, comps, defaults in targets:
            curves = tuple(None if c is None else decoded[c] for c in comps)
            channels.append(_transform_channel(node, path, [(1.0, "override", curves, defaults)],
                                               nodes, pivots))
        _share_joints(channels)
        _batch_poses(channels)
        clips.append(FbxClip(str(take.values[0]), stop - start, tuple(channels),
                             tuple(unsupported), start, stop,
                             (("BaseLayer", 1.0, "override",
                               tuple((c.node, c.path) for c in channels)),)))
    return clips


def _take_channel_keys(f, channel):
    """The keys (see :func:`_take_keys`) of a Channel record and the
    Channel records inside it."""
    if channel.child("Key") is not None:
        return [_take_keys(f, channel)]
    out = []
    for c in channel.children:
        if c.name == "Channel":
            out.extend(_take_channel_keys(f, c))
    return out


# ----------------------------------------------------------------------- load

def load_bytes(data: bytes, *, units: str = "m", up: str = "y", errors: str = "raise",
               name: str = "<bytes>") -> FbxScene:
    """An FBX file's content as an :class:`FbxScene` (see :func:`load`)."""
    choice("fbx.load", "units", units, sorted(_UNITS))
    choice("fbx.load", "up", up, ("y", "z"))
    choice("fbx.load", "errors", errors, ("raise",))
    f = _File(bytes(data), name)
    try:
        return _read_scene(f, units, up, errors)
    finally:
        f.release()


def load(path, *, units: str = "m", up: str = "y", errors: str = "raise") -> FbxScene:
    """Read an FBX file (binary 6100-7700 or ASCII).

    Parameters
    ----------
    path : str or os.PathLike
    units : {"m", "cm", "mm"}
        Unit of :meth:`FbxScene.world` (channel values stay in the file's).
    up : {"y", "z"}
        ``"y"``: X right, Y up, Z front (glTF, Maya); ``"z"``: X right, Z up,
        -Y front (Blender).
    errors : {"raise"}
        A malformed file raises :class:`FbxError`.

    Returns
    -------
    FbxScene
        Nodes (names without ``Model::``, duplicates suffixed ``.1``,
        ``.2``), skins and one :class:`FbxClip` per animation stack.
    """
    with open(os.fspath(path), "rb") as fh:
        data = fh.read()
    return load_bytes(data, units=units, up=up, errors=errors, name=os.fspath(path))
