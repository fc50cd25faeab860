"""glTF 2.0 animation import and export.

:func:`load` reads the animations of a ``.gltf`` file (with external ``.bin``
buffers or base64 data URIs) or a ``.glb`` file and returns one :class:`Clip`
per animation; :func:`load_scene` also reads the nodes, scenes and skins as
a :class:`Scene` that poses them (forward kinematics, joint matrices), and
:func:`save` writes clips back. Each animated node property becomes a :class:`Channel` whose
``curve`` evaluates it with the semantics of the glTF 2.0 specification
(Appendix C, animation sampler interpolation):

- ``STEP``: the value of the last key at or before ``t``;
- ``LINEAR``: linear interpolation, shortest-arc slerp for rotations;
- ``CUBICSPLINE``: each key stores an in-tangent, a value and an out-tangent,
  in that order. The tangents are per second, so a segment of ``td`` seconds
  uses ``td * tangent`` in the Hermite basis (the step that loaders forget).
  Rotations are normalized after interpolation;
- before the first key and after the last the value is held (clamp).

The container (JSON, GLB chunks, buffers, buffer views) is read by a small
dependency-free reader; accessors, including byte strides, sparse storage and
normalized integer components, are decoded into float64 NumPy arrays here.
(A container library such as pygltflib would save only the GLB chunk split
and the data-URI decoding, about forty lines, while adding a dependency whose
errors on malformed input are KeyErrors or struct errors without a JSON
location; every field animcore reads is checked here instead.)
A malformed file raises :class:`GltfError`, a :class:`ValueError` whose
message names the file and the JSON location at fault, for example::

    walk.gltf: animations[0].samplers[2].output: accessor 7 has 9 elements,
    expected 4 keys x 3

Node and morph-weight values are returned as they are stored: translation in
the file's units (metres for conforming files), rotation as unit quaternions
``(x, y, z, w)``, scale as factors, weights as morph-target weights.
"""
from __future__ import annotations

import base64
import binascii
import collections
import json
import math
import os
import re
import stat
import struct
import sys
import typing
import urllib.parse
import warnings
from dataclasses import replace

import numpy as np

from ._arrays import choice, positive_number
from ._objects import PicklableError
from .model import (PATHS, Channel, Clip, Node, ReadError, Scene, Skin, Unsupported,
                    _make_curve, _quote, _read_keys, frame_times)
from .skeleton import _decompose

if typing.TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

__all__ = ["Channel", "Clip", "GltfError", "GltfWarning", "Node", "PATHS", "Scene", "Skin",
           "Unsupported", "load", "load_bytes", "load_sample", "load_scene", "sample_path", "save"]

INTERPOLATIONS = ("LINEAR", "STEP", "CUBICSPLINE")

# componentType -> (name, little-endian dtype, divisor of normalized values)
_COMPONENTS = {
    5120: ("BYTE", "<i1", 127.0),
    5121: ("UNSIGNED_BYTE", "<u1", 255.0),
    5122: ("SHORT", "<i2", 32767.0),
    5123: ("UNSIGNED_SHORT", "<u2", 65535.0),
    5125: ("UNSIGNED_INT", "<u4", None),
    5126: ("FLOAT", "<f4", None),
}
_TYPES = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_OUTPUT_TYPES = {"translation": "VEC3", "rotation": "VEC4", "scale": "VEC3", "weights": "SCALAR"}
_SPARSE_INDEX_TYPES = (5121, 5123, 5125)
_COMPRESSED_VIEWS = ("EXT_meshopt_compression", "KHR_meshopt_compression")

_GLB_MAGIC = 0x46546C67  # b"glTF"
_CHUNK_JSON = 0x4E4F534A  # b"JSON"
_CHUNK_BIN = 0x004E4942  # b"BIN\0"

_SAMPLE = "sample.gltf"
_FLOAT_MAX = int(np.finfo(np.float64).max)


class GltfError(ReadError):
    """A malformed glTF file. ``location`` is the JSON path at fault (for
    example ``animations[0].samplers[2].output``) and ``detail`` says why."""


class GltfWarning(PicklableError, UserWarning):
    """Part of a glTF file was left out (``errors="skip"``) and why."""


class _Fault(Exception):
    """Raised inside the reader; load() turns it into a GltfError with the file name."""

    def __init__(self, location: str, detail: str):
        super().__init__(location, detail)
        self.location, self.detail = location, detail


# ---------------------------------------------------------------- JSON fields

_REQUIRED = object()


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {_quote(value)}"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _join(location: str, key: str) -> str:
    return f"{location}.{key}" if location else key


def _field(obj, key: str, location: str, kind: str, default=_REQUIRED):
    """``obj[key]`` checked against a JSON kind, or a _Fault naming ``location.key``.

    kinds: "index" (integer >= 0), "count" (integer >= 1), "int", "bool",
    "str", "list", "dict", "number" (finite)."""
    if not isinstance(obj, dict):
        raise _Fault(location, f"must be a JSON object, got {_json_type(obj)}")
    where = _join(location, key)
    if key not in obj:
        if default is _REQUIRED:
            raise _Fault(where, "missing (required by glTF 2.0)")
        return default
    value = obj[key]
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if kind in ("index", "count", "int"):
        # JSON writers sometimes emit 3.0 for 3; accept integral floats.
        if isinstance(value, float) and value.is_integer():
            value, is_int = int(value), True
        if not is_int:
            raise _Fault(where, f"must be an integer, got {_json_type(value)}")
        if kind == "index" and value < 0:
            raise _Fault(where, f"must be >= 0, got {value}")
        if kind == "count" and value < 1:
            raise _Fault(where, f"must be >= 1, got {value}")
        return value
    expected = {"bool": (bool, "a boolean"), "str": (str, "a string"),
                "list": (list, "an array"), "dict": (dict, "an object")}
    if kind in expected:
        types, name = expected[kind]
        if not isinstance(value, types):
            raise _Fault(where, f"must be {name}, got {_json_type(value)}")
        return value
    if kind == "number":
        if is_int and abs(value) > _FLOAT_MAX:
            raise _Fault(where, "must be a finite number, got an integer beyond the "
                                "float64 range")
        if not (is_int or isinstance(value, float)) or not math.isfinite(value):
            raise _Fault(where, f"must be a finite number, got {_json_type(value)}")
        return value
    raise AssertionError(kind)


def _item(doc: dict, collection: str, index: int, referrer: str):
    """``doc[collection][index]`` as an object, or a _Fault at the referrer."""
    items = _field(doc, collection, "", "list", [])
    if index >= len(items):
        raise _Fault(referrer, f"index {index} out of range (the file has {len(items)} "
                               f"{collection})")
    item = items[index]
    if not isinstance(item, dict):
        raise _Fault(f"{collection}[{index}]", f"must be a JSON object, got {_json_type(item)}")
    return item


# ---------------------------------------------------------------- container

class _FileBytes:
    """Bytes [start, stop) of an open file, read when asked for (:func:`_window`).
    A .glb file is read this way: its binary chunk, most of the file, is then
    read accessor by accessor through one reused buffer instead of into a copy
    of the whole file. Slices are windows of the same file."""

    def __init__(self, stream, start: int, stop: int, scratch: list):
        # scratch: [bytearray], the buffer every window of the file reads into
        self._stream, self._start, self._stop, self._scratch = stream, start, stop, scratch

    @classmethod
    def of(cls, stream) -> "_FileBytes":
        return cls(stream, 0, os.fstat(stream.fileno()).st_size, [bytearray()])

    def __len__(self) -> int:
        return self._stop - self._start

    def __getitem__(self, key: slice) -> "_FileBytes":
        start, stop, _ = key.indices(len(self))
        return _FileBytes(self._stream, self._start + start, self._start + max(start, stop),
                          self._scratch)

    def read(self, start: int, stop: int) -> memoryview:
        """Bytes [start, stop) of the window, valid until the next read."""
        start, stop, _ = slice(start, stop).indices(len(self))
        n = max(0, stop - start)
        if len(self._scratch[0]) < n:
            self._scratch[0] = bytearray(n)
        view = memoryview(self._scratch[0])[:n]
        self._stream.seek(self._start + start)
        done = 0
        while done < n:
            got = self._stream.readinto(view[done:])
            if not got:
                raise _Fault("", f"the file ended at byte {self._start + start + done} "
                                 "while it was read (it changed meanwhile)")
            done += got
        return view


def _window(data, start: int, stop: int):
    """Bytes [start, stop) of bytes, a memoryview or a _FileBytes, as a buffer."""
    return data.read(start, stop) if isinstance(data, _FileBytes) else data[start:stop]


def _viewed(data):
    """A memoryview of bytes (slices of it are views, not copies), or the _FileBytes."""
    return data if isinstance(data, _FileBytes) else memoryview(data)


def _is_glb(head, source: str) -> bool:
    """Whether a file that starts with ``head`` (its first 4 bytes) is read as GLB."""
    return bytes(head) == b"glTF" or source.lower().endswith(".glb")


def _parse_glb(data) -> tuple[dict, bytes | None]:
    """The JSON document and the BIN chunk of a GLB container (bytes or a
    _FileBytes, whose BIN chunk is then a _FileBytes too)."""
    if len(data) < 12:
        raise _Fault("GLB header", f"file has {len(data)} bytes, a GLB header needs 12")
    magic, version, length = struct.unpack_from("<III", _window(data, 0, 12))
    if magic != _GLB_MAGIC:
        raise _Fault("GLB header", f"magic is {bytes(_window(data, 0, 4))!r}, expected b'glTF'")
    if version != 2:
        raise _Fault("GLB header", f"version is {version}, expected 2")
    if length > len(data):
        raise _Fault("GLB header", f"declares {length} bytes but the file has {len(data)} "
                                   f"(truncated)")
    # Views, not copies, of the chunks (the binary one is most of the file); bytes
    # after the declared length are not part of it.
    data = _viewed(data)[:length]
    offset, chunks = 12, []
    while offset < length:
        name = f"GLB chunk {len(chunks)}"
        if offset + 8 > length:
            raise _Fault(name, f"header at byte {offset} is cut off by the end of the file "
                               f"(truncated)")
        size, kind = struct.unpack_from("<II", _window(data, offset, offset + 8))
        if offset + 8 + size > length:
            raise _Fault(name, f"declares {size} bytes at byte {offset + 8} but only "
                               f"{length - offset - 8} remain (truncated)")
        chunks.append((kind, data[offset + 8:offset + 8 + size]))
        offset += 8 + size
    if not chunks or chunks[0][0] != _CHUNK_JSON:
        kind = chunks[0][0] if chunks else None
        raise _Fault("GLB chunk 0", "missing" if kind is None else
                     f"type is 0x{kind:08X}, the first chunk must be JSON (0x4E4F534A)")
    binary = None
    if len(chunks) > 1:
        if chunks[1][0] == _CHUNK_BIN:
            binary = chunks[1][1]
        # Chunks of other types are extensions' business and are skipped.
    text = chunks[0][1]
    return _parse_json(bytes(_window(text, 0, len(text))), "GLB chunk 0"), binary


def _parse_json(data: bytes, where: str) -> dict:
    try:
        text = data.decode("utf-8-sig")
        doc = json.loads(text)
    except UnicodeDecodeError as error:
        raise _Fault(where, f"is not UTF-8 text ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise _Fault(where, f"is not valid JSON ({error.msg} at line {error.lineno} "
                            f"column {error.colno})") from None
    except RecursionError:
        raise _Fault(where, "is not valid JSON (nested too deeply)") from None
    except ValueError as error:  # an integer literal past Python's digit limit
        raise _Fault(where, f"is not valid JSON ({error})") from None
    if not isinstance(doc, dict):
        raise _Fault(where, f"must be a JSON object, got {_json_type(doc)}")
    return doc


class _Reader:
    """Buffers, buffer views and accessors of one document, decoded on demand."""

    def __init__(self, doc: dict, base_dir: str | None, binary: bytes | None,
                 root: str | None = None, held: int = 0):
        # base_dir: where relative URIs resolve; root: the folder they must stay in
        # (None: anywhere the process can read). held: the bytes of the file and of
        # the external buffers read so far, which bound the implicit zeros of
        # accessors without a bufferView (16 per byte).
        self.doc, self.base_dir, self.binary, self.root = doc, base_dir, binary, root
        self.held = held
        self._buffers: dict[int, memoryview] = {}
        self._accessors: dict[int, np.ndarray] = {}
        self.checked_times: set[int] = set()  # input accessors found valid key times

    @property
    def zeros_budget(self) -> int:
        return max(1 << 20, 16 * self.held)

    def buffer(self, index: int, referrer: str) -> memoryview:
        if index in self._buffers:
            return self._buffers[index]
        buffer = _item(self.doc, "buffers", index, referrer)
        location = f"buffers[{index}]"
        length = _field(buffer, "byteLength", location, "count")
        uri = _field(buffer, "uri", location, "str", None)
        if uri is None:
            if self.binary is None or index != 0:
                raise _Fault(_join(location, "uri"), "missing (only the first buffer of a "
                             ".glb file may omit it to use the binary chunk)")
            data = self.binary
            source = "the GLB binary chunk"
        elif uri.startswith("data:"):
            header, comma, payload = uri.partition(",")
            if not comma or not header.endswith(";base64"):
                raise _Fault(_join(location, "uri"), "is a data URI without ';base64,' "
                             "(only base64 data URIs are supported)")
            try:
                data = base64.b64decode(payload, validate=True)
            except (binascii.Error, ValueError) as error:
                raise _Fault(_join(location, "uri"), f"is not valid base64 ({error})") from None
            source = "the data URI"
        else:
            data = self._external(uri, length, _join(location, "uri"))
            source = repr(uri)
            self.held += len(data)
        if len(data) < length:
            raise _Fault(_join(location, "byteLength"), f"is {length} but {source} has only "
                         f"{len(data)} bytes (truncated)")
        view = _viewed(data)[:length]
        self._buffers[index] = view
        return view

    def _external(self, uri: str, length: int, location: str) -> bytes:
        """At most ``length`` bytes of the regular file named by a relative URI.
        Messages quote the URI, never the resolved path."""
        if self.base_dir is None:
            raise _Fault(location, f"refers to the external file {uri!r}, "
                         "which cannot be resolved for data read from memory")
        name = urllib.parse.unquote(uri)
        if "\0" in name:
            raise _Fault(location, f"{uri!r} contains a NUL character")
        path = os.path.realpath(os.path.join(self.base_dir, name))
        if self.root is not None:
            root = os.path.realpath(self.root)
            try:
                inside = os.path.commonpath([root, path]) == root
            except ValueError:  # another drive (Windows)
                inside = False
            if not inside:
                raise _Fault(location, f"{uri!r} lies outside the folder the file may read "
                             "from (pass base_dir= a wider folder or allow_outside=True)")
        # O_NONBLOCK: opening a FIFO must not wait for a writer.
        flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(path, flags)
        except (OSError, ValueError) as error:
            raise _Fault(location, f"cannot read {uri!r} "
                         f"({getattr(error, 'strerror', None) or error})") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise _Fault(location, f"{uri!r} is not a regular file")
            with os.fdopen(fd, "rb", closefd=False) as stream:
                # never more than the buffer declares, nor than the file holds (a
                # declared 2^40 bytes was asked of the allocator before the read)
                return stream.read(min(length, info.st_size))
        except OSError as error:
            raise _Fault(location, f"cannot read {uri!r} ({error.strerror or error})") from None
        finally:
            os.close(fd)

    def view(self, index: int, referrer: str) -> tuple[memoryview, int | None]:
        view = _item(self.doc, "bufferViews", index, referrer)
        location = f"bufferViews[{index}]"
        extensions = _field(view, "extensions", location, "dict", {})
        for name in _COMPRESSED_VIEWS:
            if name in extensions:
                raise _Fault(_join(location, "extensions"), f"the data is compressed with "
                             f"{name}, which animcore does not decode (decompress the file "
                             "first, e.g. with gltfpack -noq or gltf-transform)")
        buffer_index = _field(view, "buffer", location, "index")
        offset = _field(view, "byteOffset", location, "index", 0)
        length = _field(view, "byteLength", location, "count")
        stride = _field(view, "byteStride", location, "int", None)
        if stride is not None and not (4 <= stride <= 252 and stride % 4 == 0):
            raise _Fault(_join(location, "byteStride"), f"is {stride} (must be a multiple of "
                         f"4 in [4, 252])")
        data = self.buffer(buffer_index, _join(location, "buffer"))
        if offset + length > len(data):
            raise _Fault(location, f"byteOffset {offset} + byteLength {length} = "
                         f"{offset + length} exceeds the {len(data)} bytes of "
                         f"buffers[{buffer_index}]")
        return data[offset:offset + length], stride

    def accessor(self, index: int, referrer: str, expected_type: str, count: int | None = None,
                 expected: str = "") -> np.ndarray:
        """Accessor ``index`` as float64 of shape (count, components).

        ``count``, when the caller knows it (``expected`` says why), is checked
        before anything is allocated. Without it, an accessor stored without a
        bufferView may declare at most one element more than its sparse block
        stores, so that the file's own bytes bound what it can make the reader
        allocate."""
        accessor = _item(self.doc, "accessors", index, referrer)
        location = f"accessors[{index}]"
        kind = _field(accessor, "type", location, "str")
        if kind not in _TYPES:
            raise _Fault(_join(location, "type"), f"{kind!r} is not a glTF accessor type "
                         f"({', '.join(_TYPES)})")
        if kind != expected_type:
            raise _Fault(referrer, f"accessor {index} has type {kind}, expected {expected_type}")
        declared = _field(accessor, "count", location, "count")
        if count is not None and declared != count:
            raise _Fault(referrer, f"accessor {index} has {declared} elements, expected "
                         f"{expected}")
        if index not in self._accessors:
            try:
                with np.errstate(all="ignore"):  # NaN payloads are reported by the callers
                    self._accessors[index] = self._decode(accessor, location, _TYPES[kind],
                                                          count is not None)
            except _Fault as fault:  # say which sampler needed the faulty data
                raise _Fault(fault.location, f"{fault.detail} (read for {referrer})") from None
        return self._accessors[index]

    def _decode(self, accessor: dict, location: str, width: int, fixed: bool) -> np.ndarray:
        component = _field(accessor, "componentType", location, "int")
        if component not in _COMPONENTS:
            raise _Fault(_join(location, "componentType"), f"{component} is not a glTF "
                         "component type (5120, 5121, 5122, 5123, 5125 or 5126)")
        _, dtype, divisor = _COMPONENTS[component]
        dtype = np.dtype(dtype)
        normalized = _field(accessor, "normalized", location, "bool", False)
        if normalized and divisor is None:
            raise _Fault(_join(location, "normalized"), f"is true for {_COMPONENTS[component][0]}"
                         " components (allowed only for BYTE, UNSIGNED_BYTE, SHORT and "
                         "UNSIGNED_SHORT)")
        count = _field(accessor, "count", location, "count")
        element = width * dtype.itemsize
        view_index = _field(accessor, "bufferView", location, "index", None)
        if view_index is None:
            sparse = _field(accessor, "sparse", location, "dict", None)
            stored = 0 if sparse is None else _field(sparse, "count", _join(location, "sparse"),
                                                     "count")
            if not fixed and count > stored + 1:  # zeros the file does not hold
                raise _Fault(_join(location, "count"), f"is {count} without a bufferView, but "
                             f"the sparse block stores only {stored} elements (at most "
                             f"{stored + 1} accepted when nothing else fixes the count)")
            if count * width > self.zeros_budget:  # keys x morph targets, both from the file
                raise _Fault(_join(location, "count"), f"is {count} without a bufferView: "
                             f"{count * width} implicit zeros, more than the "
                             f"{self.zeros_budget} a file of {self.held} bytes may ask for")
            values = np.zeros((count, width))  # all zeros unless sparse says otherwise
        else:
            data, stride = self.view(view_index, _join(location, "bufferView"))
            offset = _field(accessor, "byteOffset", location, "index", 0)
            step = element if stride is None else stride
            if step < element:
                raise _Fault(f"bufferViews[{view_index}].byteStride", f"is {step}, smaller "
                             f"than the {element}-byte elements of {location}")
            needed = offset + step * (count - 1) + element
            if needed > len(data):
                raise _Fault(location, f"needs {needed} bytes of bufferViews[{view_index}] "
                             f"(byteOffset {offset}, {count} elements of {element} bytes, "
                             f"stride {step}) but it has {len(data)}")
            values = np.ndarray((count, width), dtype=dtype,
                                buffer=_window(data, offset, needed),
                                strides=(step, dtype.itemsize)).astype(np.float64)
        sparse = _field(accessor, "sparse", location, "dict", None)
        if sparse is not None:  # stored components convert to float64 exactly
            self._apply_sparse(values, sparse, _join(location, "sparse"), count, width, dtype)
        if normalized:
            values /= divisor
            if dtype.kind == "i":
                np.maximum(values, -1.0, out=values)
        values.flags.writeable = False  # shared by every sampler that uses the accessor
        return values

    def _apply_sparse(self, values, sparse, location, count, width, dtype):
        """Writes the sparse substitutions into ``values`` (float64, count x width);
        ``dtype`` is the accessor's stored component type."""
        n = _field(sparse, "count", location, "count")
        if n > count:
            raise _Fault(_join(location, "count"), f"is {n}, more than the accessor's "
                         f"count {count}")
        indices_location = _join(location, "indices")
        indices_spec = _field(sparse, "indices", location, "dict")
        index_type = _field(indices_spec, "componentType", indices_location, "int")
        if index_type not in _SPARSE_INDEX_TYPES:
            raise _Fault(_join(indices_location, "componentType"), f"is {index_type} (sparse "
                         "indices must be 5121, 5123 or 5125)")
        indices = self._packed(indices_spec, indices_location,
                               np.dtype(_COMPONENTS[index_type][1]), n).astype(np.int64)
        steps = np.diff(indices)
        if steps.size and np.any(steps <= 0):
            j = int(np.argmax(steps <= 0)) + 1
            raise _Fault(indices_location, f"must be strictly increasing (index {indices[j]} "
                         f"at position {j} after {indices[j - 1]})")
        if indices[-1] >= count:
            j = int(np.argmax(indices >= count))
            raise _Fault(indices_location, f"index {indices[j]} at position {j} is out of "
                         f"range for an accessor of count {count}")
        values_location = _join(location, "values")
        values_spec = _field(sparse, "values", location, "dict")
        values[indices] = self._packed(values_spec, values_location, dtype,
                                       n * width).reshape(n, width)

    def _packed(self, spec, location, dtype, n):
        """n tightly packed items of a sparse indices/values block (of a .glb
        read from its file: a view of the one read buffer, which the caller
        copies before the next read)."""
        view_index = _field(spec, "bufferView", location, "index")
        offset = _field(spec, "byteOffset", location, "index", 0)
        data, stride = self.view(view_index, _join(location, "bufferView"))
        if stride is not None:
            raise _Fault(f"bufferViews[{view_index}].byteStride", "must not be defined for "
                         f"sparse data ({location})")
        needed = offset + n * dtype.itemsize
        if needed > len(data):
            raise _Fault(location, f"needs {needed} bytes of bufferViews[{view_index}] "
                         f"(byteOffset {offset}, {n} items of {dtype.itemsize} bytes) but it "
                         f"has {len(data)}")
        return np.frombuffer(_window(data, offset, needed), dtype=dtype, count=n)


# ---------------------------------------------------------------- clips

def _morph_targets(doc: dict, node: dict, node_location: str) -> int | None:
    """Number of morph targets of the node's mesh, or None if it cannot be told."""
    mesh_index = _field(node, "mesh", node_location, "index", None)
    if mesh_index is None:
        weights = _field(node, "weights", node_location, "list", None)
        return None if weights is None else len(weights)
    mesh = _item(doc, "meshes", mesh_index, _join(node_location, "mesh"))
    mesh_location = f"meshes[{mesh_index}]"
    weights = _field(mesh, "weights", mesh_location, "list", None)
    if weights is not None:
        return len(weights)
    primitives = _field(mesh, "primitives", mesh_location, "list", [])
    if primitives:
        targets = _field(primitives[0], "targets", f"{mesh_location}.primitives[0]", "list",
                         None)
        if targets is not None:
            return len(targets)
    return None


def _check_times(times: np.ndarray, location: str, index: int) -> None:
    bad = ~np.isfinite(times)
    if bad.any():
        k = int(np.argmax(bad))
        raise _Fault(location, f"accessor {index} key time {k} is {times[k]:.17g} (must be finite)")
    if times[0] < 0:
        raise _Fault(location, f"accessor {index} key time 0 is {times[0]:.17g} "
                     "(must be >= 0)")
    steps = np.diff(times)
    if steps.size and np.any(steps <= 0):
        k = int(np.argmax(steps <= 0)) + 1
        raise _Fault(location, f"accessor {index} key times must be strictly increasing "
                     f"(time[{k}]={times[k]:.17g} after time[{k - 1}]={times[k - 1]:.17g})")


def _check_finite(values: np.ndarray, location: str, index: int) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = np.unravel_index(int(np.argmax(bad)), values.shape)
        raise _Fault(location, f"accessor {index} element {row} component {col} is "
                     f"{values[row, col]:.17g} (must be finite)")


def _channel(doc, reader, samplers, animation_location, channel_location, channel,
             unique: set):
    """The Channel (or Unsupported) of a channel; ``unique``: the node names
    no other node shares."""
    sampler_index = _field(channel, "sampler", channel_location, "index")
    if sampler_index >= len(samplers):
        raise _Fault(_join(channel_location, "sampler"), f"index {sampler_index} out of "
                     f"range ({animation_location} has {len(samplers)} samplers)")
    target_location = _join(channel_location, "target")
    target = _field(channel, "target", channel_location, "dict")
    path = _field(target, "path", target_location, "str")
    node_index = _field(target, "node", target_location, "index", None)
    if node_index is None:
        node_index, path, pointer = _pointer_target(target, target_location, path)
        if node_index is None:  # kept, with its key count, for the clip to report
            return _unsupported(reader, samplers[sampler_index], pointer,
                                f"{animation_location}.samplers[{sampler_index}]")
    if path not in PATHS:
        raise _Fault(_join(target_location, "path"), f"{path!r} is not one of translation, "
                     "rotation, scale, weights")
    node = _item(doc, "nodes", node_index, _join(target_location, "node"))
    node_location = f"nodes[{node_index}]"
    node_name = _field(node, "name", node_location, "str", None)

    location = f"{animation_location}.samplers[{sampler_index}]"
    sampler = samplers[sampler_index]
    interpolation = _field(sampler, "interpolation", location, "str", "LINEAR")
    if interpolation not in INTERPOLATIONS:
        raise _Fault(_join(location, "interpolation"), f"{interpolation!r} is not LINEAR, "
                     "STEP or CUBICSPLINE")
    input_location, output_location = _join(location, "input"), _join(location, "output")
    input_index = _field(sampler, "input", location, "index")
    output_index = _field(sampler, "output", location, "index")
    times = reader.accessor(input_index, input_location, "SCALAR")[:, 0]
    per_key = 3 if interpolation == "CUBICSPLINE" else 1
    # Samplers often share their key times. The curve checks what _check_times
    # checks but the sign of the first time; the file's own messages are found
    # only when the curve fails (see _explain below).
    check_times = input_index not in reader.checked_times
    if check_times and len(times) and times[0] < 0:
        _check_times(times, input_location, input_index)

    try:
        width, output = _output(doc, reader, node, node_index, node_location, target_location,
                                path, output_index, output_location, len(times), per_key)
    except Exception:  # a fault in the key times is named first, as it always was
        if check_times:
            _check_times(times, input_location, input_index)
        raise
    values = output.reshape(len(times) * per_key, width) if path == "weights" else output
    try:  # the reader's own arrays: a rotation curve keeps them without copies
        curve = _make_curve(times, values, interpolation, path, copy=False)
    except Exception as error:
        # the file's own checks name the fault as they always did; the curve's
        # (which check all they check: finite, increasing, non-zero keys) follow
        _explain(times if check_times else None, input_location, input_index, output,
                 output_location, output_index, path, per_key)
        if isinstance(error, ValueError):
            raise _Fault(location, str(error)) from None
        raise
    reader.checked_times.add(input_index)
    if interpolation != "CUBICSPLINE":
        # the keys the curve reads in place, as read-only views that keep it alive
        times, values = _read_keys(curve)
    else:  # (the output holds the tangents too, which the curve does not read)
        times = curve.times
    # A name is the key when it is unique and cannot be read as another node's index.
    name_ok = node_name in unique and not (node_name.isdigit() and node_name != str(node_index))
    return Channel(node_index, node_name, path, interpolation, width, times, values, curve,
                   node_name if name_ok else node_index)


def _output(doc, reader, node, node_index: int, node_location: str, target_location: str,
            path: str, output_index: int, output_location: str, keys: int, per_key: int):
    """(width, output accessor) of a sampler of ``keys`` key times. The
    element count of the output follows from the keys and the width the node
    allows; it is checked before the output is decoded (allocated)."""
    width = PATHS[path]
    expected = f"{keys} keys" + (" x 3" if per_key == 3 else "")
    if path == "weights":
        width = _morph_targets(doc, node, node_location)
        if width == 0:
            raise _Fault(_join(target_location, "node"), f"node {node_index} has no morph "
                         "targets for a weights channel")
    if width is None:  # no mesh to tell: the stored output must divide evenly
        output = reader.accessor(output_index, output_location, "SCALAR")
        rows = len(output)
        if rows % (keys * per_key):
            raise _Fault(output_location, f"accessor {output_index} has {rows} elements, "
                         f"expected a multiple of {expected} (one per morph weight)")
        width = rows // (keys * per_key)
    else:
        what = f"{expected} x {width} morph weights" if path == "weights" else expected
        output = reader.accessor(output_index, output_location, _OUTPUT_TYPES[path],
                                 keys * per_key * (width if path == "weights" else 1), what)
    return width, output


def _explain(times, input_location: str, input_index: int, output: np.ndarray,
             output_location: str, output_index: int, path: str, per_key: int) -> None:
    """The checks of a sampler's arrays, in the order that names the first
    fault: key times (unless already found valid: None), finite output,
    non-zero rotation keys. Run when its curve could not be built: the curve
    checks the same properties of a valid file once, in C."""
    if times is not None:
        _check_times(times, input_location, input_index)
    _check_finite(output, output_location, output_index)
    if path == "rotation":
        key_values = output[1::3] if per_key == 3 else output
        zero = np.einsum("ij,ij->i", key_values, key_values) == 0  # squares: 0 iff all 0
        if zero.any():
            k = int(np.argmax(zero))
            raise _Fault(output_location, f"accessor {output_index} rotation key {k} is a "
                         "zero quaternion")


def _clips(doc: dict, reader: _Reader, skipped: list | None = None) -> list[Clip]:
    """The clips of a document; with a list ``skipped``, an animation that
    fails is appended to it as a _Fault and the others are still read."""
    asset = _field(doc, "asset", "", "dict")
    version = _field(asset, "version", "asset", "str")
    if not version.split(".")[0] == "2":
        raise _Fault("asset.version", f"is {version!r}, expected glTF 2.x")
    nodes = _field(doc, "nodes", "", "list", [])
    names = [n.get("name") if isinstance(n, dict) else None for n in nodes]
    counts = collections.Counter(name for name in names if isinstance(name, str))
    unique = {name for name, count in counts.items() if count == 1}
    animations = _field(doc, "animations", "", "list", [])
    clips, used = [], set()
    for a, animation in enumerate(animations):
        try:
            clips.append(_clip(doc, reader, a, animation, used, unique))
        except _Fault as fault:
            if skipped is None:
                raise
            skipped.append(fault)
    return clips


def _clip(doc: dict, reader: _Reader, a: int, animation, used: set, unique: set) -> Clip:
    location = f"animations[{a}]"
    channels = _field(animation, "channels", location, "list")
    samplers = _field(animation, "samplers", location, "list")
    if not channels:
        raise _Fault(_join(location, "channels"), "is empty (an animation needs at least "
                     "one channel)")
    if not samplers:
        raise _Fault(_join(location, "samplers"), "is empty (an animation needs at least "
                     "one sampler)")
    for s, sampler in enumerate(samplers):
        if not isinstance(sampler, dict):
            raise _Fault(f"{location}.samplers[{s}]", "must be a JSON object, got "
                         f"{_json_type(sampler)}")
    name = _field(animation, "name", location, "str", None) or f"animation{a}"
    while name in used:
        name = f"{name}#{a}"
    used.add(name)
    built, seen, unsupported = [], {}, []
    for c, channel in enumerate(channels):
        channel_location = f"{location}.channels[{c}]"
        result = _channel(doc, reader, samplers, location, channel_location, channel, unique)
        if isinstance(result, Unsupported):
            unsupported.append(result)
            continue
        key = (result.node, result.path)
        if key in seen:
            raise _Fault(channel_location, f"animates {result.path} of node {result.node}, "
                         f"already animated by channels[{seen[key]}]")
        seen[key] = c
        built.append(result)
    duration = max((float(ch.times[-1]) for ch in built), default=0.0)
    return Clip(name, duration, tuple(built), tuple(unsupported))


def _load(data, base_dir: str | None, source: str, root: str | None = None,
          errors: str = "raise", scene: bool = False):
    """The clips of a file (or its Scene, with scene=True)."""
    choice("load", "errors", errors, ("raise", "skip"))
    skipped = [] if errors == "skip" else None
    try:
        if isinstance(data, _FileBytes) or _is_glb(data[:4], source):
            doc, binary = _parse_glb(data)
        else:
            doc, binary = _parse_json(data, "JSON"), None
        reader = _Reader(doc, base_dir, binary, root, len(data))
        clips = _clips(doc, reader, skipped)
        result = _scene(doc, reader, clips) if scene else clips
    except _Fault as fault:
        raise GltfError(source, fault.location, fault.detail) from None
    errors_found = tuple(GltfError(source, f.location, f.detail) for f in skipped or ())
    for error in errors_found:
        warnings.warn(f"{error} (animation skipped)", GltfWarning, stacklevel=3)
    if scene:
        result = replace(result, skipped=errors_found)
    return result


def load(path, *, base_dir=None, allow_outside: bool = False,
         errors: str = "raise") -> list[Clip]:
    """Read the animations of a glTF 2.0 file.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.gltf`` file (JSON; buffers as base64 data URIs or external files
        relative to it) or a ``.glb`` file (binary container; recognized by its
        magic bytes).
    base_dir : str or os.PathLike, optional
        The folder that external buffer URIs may read from. URIs are resolved
        relative to the file's folder, and by default they must stay inside
        it: an absolute path, ``../`` or a symbolic link leading elsewhere is
        a :class:`GltfError`. Pass a folder that contains the file's folder
        (a project root, say) to let files share buffers above them.
    allow_outside : bool, default False
        Let URIs name any file the process can read. Only for trusted files.

    Untrusted files are safe to load: external buffers are read only from
    regular files (not devices, FIFOs or sockets) and never beyond the
    ``byteLength`` they declare, and what a file can make the loader allocate
    is bounded by what it holds (the bytes of its buffers, the morph targets
    of its meshes). Error messages quote URIs as written, never resolved paths.

    Returns
    -------
    list of Clip
        One per animation, in file order. Unnamed animations are called
        ``"animation<i>"``; a repeated name gets ``"#<i>"`` appended.
        Channels without a target node (defined by extensions, or
        ``KHR_animation_pointer`` to anything but a node's translation,
        rotation, scale or weights) are listed in ``clip.unsupported``.
        Key values of any component type are decoded for any path, normalized
        or not, so quantized files (KHR_mesh_quantization) load as well.
        Buffer views compressed with EXT_meshopt_compression are reported as
        an error rather than decoded.

    Raises
    ------
    GltfError
        (a ValueError) for a malformed file, naming the file and the JSON
        location: wrong GLB magic, version or chunks, truncated buffers,
        out-of-range indices, missing or mistyped fields, unknown
        interpolation, key times not strictly increasing, accessors of the
        wrong type or element count, non-finite values, external buffers that
        cannot be read, are not regular files or lie outside ``base_dir``.
    OSError
        If ``path`` itself cannot be read.

    With ``errors="skip"``, an animation that fails to read is left out with
    a :class:`GltfWarning` naming the file, the location and the reason, and
    the others are returned; the default ``"raise"`` fails on the first.

    Examples
    --------
    >>> clips = load_sample()
    >>> [c.name for c in clips]
    ['walk', 'blink']
    """
    return _load_file(path, base_dir, allow_outside, errors)


def _load_file(path, base_dir, allow_outside: bool, errors: str, scene: bool = False):
    """load or load_scene of a path. A .glb file is read as it is decoded
    (_FileBytes); a .gltf file whole."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    root = None if allow_outside else folder if base_dir is None else os.fspath(base_dir)
    with open(path, "rb") as stream:
        if _is_glb(stream.read(4), path):
            data = _FileBytes.of(stream)
        else:
            stream.seek(0)
            data = stream.read()
        return _load(data, folder, path, root, errors, scene)


def load_bytes(data: bytes, *, base_dir=None, name: str = "<bytes>",
               allow_outside: bool = False) -> list[Clip]:
    """:func:`load` for the contents of a file already in memory (``.gltf``
    JSON text or ``.glb`` bytes). External buffer URIs are resolved relative
    to ``base_dir`` and must stay inside it unless ``allow_outside`` is true;
    without ``base_dir`` they are an error. ``name`` stands for the file in
    error messages."""
    base = None if base_dir is None else os.fspath(base_dir)
    return _load(bytes(data), base, name, None if allow_outside else base)


def sample_path() -> "Traversable":
    """The built-in sample file as an ``importlib.resources`` Traversable."""
    from importlib.resources import files

    return files("animcore").joinpath("data", _SAMPLE)


def load_sample() -> list[Clip]:
    """The clips of the small glTF sample shipped with animcore.

    ``walk`` (1.5 s): ``root`` translation LINEAR on uneven key times,
    ``spine`` rotation CUBICSPLINE, ``hips`` rotation LINEAR, ``hand`` scale
    STEP, ``face`` two morph weights LINEAR. ``blink`` (0.4 s): ``face``
    weights CUBICSPLINE.
    """
    return _load(sample_path().read_bytes(), None, f"animcore/data/{_SAMPLE}")


# ---------------------------------------------------------------- pointers

_NODE_POINTER = re.compile(r"/nodes/(0|[1-9][0-9]*)/(translation|rotation|scale|weights)")


def _pointer_target(target: dict, location: str, path: str):
    """(node, path, pointer) of a channel without ``target.node``: a
    KHR_animation_pointer to a node property gives its node and path; any
    other target gives node None and the pointer (None when the target is
    defined by another extension)."""
    extensions = _field(target, "extensions", location, "dict", {})
    if path != "pointer" or "KHR_animation_pointer" not in extensions:
        return None, path, None
    where = _join(_join(location, "extensions"), "KHR_animation_pointer")
    spec = _field(extensions, "KHR_animation_pointer", _join(location, "extensions"), "dict")
    pointer = _field(spec, "pointer", where, "str")
    match = _NODE_POINTER.fullmatch(pointer)
    if match is None:
        return None, None, pointer
    return int(match.group(1)), match.group(2), pointer


def _unsupported(reader, sampler: dict, pointer, location: str) -> Unsupported:
    index = _field(sampler, "input", location, "index")
    keys = len(reader.accessor(index, _join(location, "input"), "SCALAR"))
    return Unsupported(pointer, keys)


# ---------------------------------------------------------------- scenes

_IDENTITY = np.eye(4)


def _node_transform(node: dict, location: str):
    """(translation, rotation, scale, matrix or None) of a node's rest transform."""
    matrix = _field(node, "matrix", location, "list", None)
    if matrix is not None:
        where = _join(location, "matrix")
        if len(matrix) != 16 or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                        and math.isfinite(v) for v in matrix):
            raise _Fault(where, "must be 16 finite numbers")
        m = np.reshape(np.asarray(matrix, dtype=np.float64), (4, 4)).T  # stored column-major
        try:
            trs = _decompose("load_scene", m)
        except ValueError as error:
            raise _Fault(where, f"cannot be posed: {error}") from None
        return (*trs, m)  # (a Node keeps read-only copies)
    values = []
    for key, default in (("translation", (0.0, 0.0, 0.0)), ("rotation", (0.0, 0.0, 0.0, 1.0)),
                         ("scale", (1.0, 1.0, 1.0))):
        value = _field(node, key, location, "list", None)
        if value is None:
            value = default
        elif len(value) != len(default) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                for v in value):
            raise _Fault(_join(location, key), f"must be {len(default)} finite numbers")
        values.append(value)
    t, r, s = values
    norm = math.sqrt(sum(v * v for v in r))
    if norm == 0:
        raise _Fault(_join(location, "rotation"), "is a zero quaternion")
    return t, [v / norm for v in r], s, None


def _scene(doc: dict, reader: _Reader, clips: list) -> Scene:
    raw_nodes = _field(doc, "nodes", "", "list", [])
    count = len(raw_nodes)
    parents = [-1] * count
    children_of = []
    for i, node in enumerate(raw_nodes):
        location = f"nodes[{i}]"
        children = _field(node, "children", location, "list", [])
        for c, child in enumerate(children):
            where = f"{location}.children[{c}]"
            if not isinstance(child, int) or isinstance(child, bool) or not 0 <= child < count:
                raise _Fault(where, f"must be a node index in [0, {count}), got "
                                    f"{_json_type(child)}")
            if parents[child] != -1 or child == i:
                raise _Fault(where, f"node {child} already has parent {parents[child]} (a "
                                    "node has at most one parent)" if child != i else
                             f"node {i} cannot be its own child")
            parents[child] = i
        children_of.append(tuple(children))
    nodes = []
    for i, node in enumerate(raw_nodes):
        location = f"nodes[{i}]"
        t, r, s, matrix = _node_transform(node, location)
        mesh = _field(node, "mesh", location, "index", None)
        skin = _field(node, "skin", location, "index", None)
        weights = _field(node, "weights", location, "list", None)
        names = None
        if mesh is not None:
            mesh_doc = _item(doc, "meshes", mesh, _join(location, "mesh"))
            if weights is None:
                weights = _field(mesh_doc, "weights", f"meshes[{mesh}]", "list", None)
            extras = mesh_doc.get("extras")
            if isinstance(extras, dict) and isinstance(extras.get("targetNames"), list):
                names = tuple(str(n) for n in extras["targetNames"])
        if weights is None:
            width = _morph_targets(doc, node, location)
            weights = [0.0] * width if width else None
        if weights is not None:
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                       and math.isfinite(v) for v in weights):
                raise _Fault(_join(location, "weights"), "must be finite numbers (the node's "
                             "or its mesh's default morph weights)")
        if skin is not None:
            _item(doc, "skins", skin, _join(location, "skin"))
        nodes.append(Node(i, _field(node, "name", location, "str", None), parents[i],
                          children_of[i], t, r, s, matrix, mesh, skin, weights, names))
    scenes = []
    for k, scene in enumerate(_field(doc, "scenes", "", "list", [])):
        roots = _field(scene, "nodes", f"scenes[{k}]", "list", [])
        for r_i, root in enumerate(roots):
            if not isinstance(root, int) or isinstance(root, bool) or not 0 <= root < count:
                raise _Fault(f"scenes[{k}].nodes[{r_i}]", f"must be a node index in "
                                                          f"[0, {count})")
        scenes.append(tuple(roots))
    default = _field(doc, "scene", "", "index", None)
    if default is not None and default >= len(scenes):
        raise _Fault("scene", f"index {default} out of range (the file has {len(scenes)} "
                              "scenes)")
    skins = []
    for k, skin in enumerate(_field(doc, "skins", "", "list", [])):
        location = f"skins[{k}]"
        joints = _field(skin, "joints", location, "list")
        for j, joint in enumerate(joints):
            if not isinstance(joint, int) or isinstance(joint, bool) or not 0 <= joint < count:
                raise _Fault(f"{location}.joints[{j}]", f"must be a node index in [0, {count})")
        ibm_index = _field(skin, "inverseBindMatrices", location, "index", None)
        if ibm_index is None:
            ibm = np.broadcast_to(_IDENTITY, (len(joints), 4, 4))
        else:
            where = _join(location, "inverseBindMatrices")
            stored = reader.accessor(ibm_index, where, "MAT4", len(joints),
                                     f"{len(joints)} matrices (one per joint)")
            _check_finite(stored, where, ibm_index)
            ibm = stored.reshape(-1, 4, 4).transpose(0, 2, 1)  # column-major
        root = _field(skin, "skeleton", location, "index", None)
        if root is not None and root >= count:
            raise _Fault(_join(location, "skeleton"), f"index {root} out of range (the file "
                                                      f"has {count} nodes)")
        # (a Skin keeps read-only copies of its joints and matrices)
        skins.append(Skin(k, _field(skin, "name", location, "str", None), joints, ibm,
                          root))
    result = Scene(tuple(nodes), tuple(scenes), default, tuple(skins), tuple(clips))
    try:
        result.skeleton  # validates the hierarchy (no cycles) once, here
    except ValueError as error:
        raise _Fault("nodes", f"the children lists form a cycle ({error})") from None
    return result


def load_scene(path, *, base_dir=None, allow_outside: bool = False,
               errors: str = "raise") -> Scene:
    """Read the nodes, scenes, skins and animations of a glTF 2.0 file.

    Same files, errors, ``base_dir``, ``allow_outside`` and ``errors=`` as
    :func:`load`; the clips are those
    :func:`load` returns. ``KHR_animation_pointer`` channels that point at
    a node's translation, rotation, scale or weights are ordinary channels;
    other pointers are listed in each clip's ``unsupported``.

    >>> scene = load_scene(sample_path())
    >>> [n.name for n in scene.nodes][:3]
    ['root', 'hips', 'spine']
    """
    return _load_file(path, base_dir, allow_outside, errors, scene=True)


# ---------------------------------------------------------------- export

class _Writer:
    """A glTF document and its one binary buffer, built accessor by accessor."""

    def __init__(self):
        self.doc = {"asset": {"version": "2.0", "generator": "animcore"},
                    "buffers": [], "bufferViews": [], "accessors": []}
        self.blob = bytearray()
        self._inputs: dict[bytes, int] = {}
        self._point = None  # the accessors of placeholder meshes
        self._skinning = None

    def accessor(self, values: np.ndarray, kind: str, *, bounds: bool = False,
                 what: str = "a value", dtype: str = "<f4") -> int:
        """An accessor of ``values`` as float32 (``dtype`` "u1": unsigned
        bytes, a skin's JOINTS_0) in a buffer view of its own."""
        values = np.asarray(values, dtype=np.float64)
        _check_stored("save", what, values)
        data = np.ascontiguousarray(values, dtype=dtype)
        while len(self.blob) % 4:
            self.blob.append(0)
        self.doc["bufferViews"].append({"buffer": 0, "byteOffset": len(self.blob),
                                        "byteLength": data.nbytes})
        self.blob += data.tobytes()
        entry = {"bufferView": len(self.doc["bufferViews"]) - 1,
                 "componentType": 5126 if dtype == "<f4" else 5121,
                 "count": int(data.shape[0]), "type": kind}
        if bounds:  # required for animation inputs
            entry["min"] = [float(v) for v in data.reshape(len(data), -1).min(axis=0)]
            entry["max"] = [float(v) for v in data.reshape(len(data), -1).max(axis=0)]
        self.doc["accessors"].append(entry)
        return len(self.doc["accessors"]) - 1

    def times(self, times: np.ndarray, what: str) -> int:
        stored = _save_times(times, what)
        key = stored.tobytes()
        if key not in self._inputs:  # samplers with the same key times share one accessor
            self._inputs[key] = self.accessor(stored, "SCALAR", bounds=True, what=what)
        return self._inputs[key]

    def placeholder_mesh(self, targets: int, weights, names, skinned: bool) -> int:
        """A mesh that carries ``targets`` morph targets and, when
        ``skinned``, the skinning attributes, and nothing else: one point at
        the origin, every target a zero displacement of it, bound to the
        skin's first joint (glTF lets only a node with a mesh have morph
        weights or a skin, and a skinned mesh needs JOINTS_0 and WEIGHTS_0;
        animcore writes no geometry)."""
        if self._point is None:
            self._point = self.accessor(np.zeros((1, 3)), "VEC3", bounds=True)
        attributes = {"POSITION": self._point}
        if skinned:
            if self._skinning is None:
                self._skinning = (self.accessor(np.zeros((1, 4)), "VEC4", dtype="u1"),
                                  self.accessor(np.eye(4)[:1], "VEC4"))
            attributes["JOINTS_0"], attributes["WEIGHTS_0"] = self._skinning
        primitive = {"attributes": attributes, "mode": 0}
        if targets:
            primitive["targets"] = [{"POSITION": self._point} for _ in range(targets)]
        mesh = {"primitives": [primitive]}
        if weights is not None:
            mesh["weights"] = [float(w) for w in weights]
        if names is not None:
            mesh["extras"] = {"targetNames": [str(n) for n in names]}
        self.doc.setdefault("meshes", []).append(mesh)
        return len(self.doc["meshes"]) - 1


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _index_text(values: np.ndarray, flat: int) -> str:
    index = np.unravel_index(flat, values.shape)
    return "(" + ", ".join(str(int(i)) for i in index) + ("," if len(index) == 1 else "") + ")"


def _check_stored(func: str, what: str, values: np.ndarray) -> None:
    """Values that glTF's float32 accessors hold as finite numbers (what load reads)."""
    if not values.size:
        return
    bad = ~np.isfinite(values)
    if bad.any():
        k = int(np.argmax(bad))
        raise ValueError(f"{func}: {what} at index {_index_text(values, k)} is "
                         f"{float(values.reshape(-1)[k])!r} (must be finite)")
    big = np.abs(values) > _FLOAT32_MAX
    if big.any():
        k = int(np.argmax(big))
        raise OverflowError(f"{func}: a value does not fit in glTF's float32: {what} at index "
                            f"{_index_text(values, k)} is {float(values.reshape(-1)[k])!r} "
                            f"(largest float32 {_FLOAT32_MAX:.8g})")


def _save_times(times, what: str) -> np.ndarray:
    """Key times as glTF stores them (float32), refused as load refuses them:
    at least one, finite, >= 0, within float32 and strictly increasing once
    rounded to float32."""
    times = np.asarray(times, dtype=np.float64)
    if times.ndim != 1 or times.size == 0:
        raise ValueError(f"save: {what} must be one or more key times, got shape {times.shape}")
    outside = ~((times >= 0.0) & (times <= _FLOAT32_MAX))  # (NaN included)
    if outside.any():
        k = int(np.argmax(outside))
        t = float(times[k])
        why = ("must be finite" if not math.isfinite(t) else "must be >= 0" if t < 0 else
               f"must be at most {_FLOAT32_MAX:.8g}, the largest float32")
        raise ValueError(f"save: {what} at index ({k},) is {t!r} ({why})")
    stored = times.astype("<f4")
    steps = np.diff(stored) <= 0
    if steps.any():
        k = int(np.argmax(steps)) + 1
        if stored[k] == stored[k - 1] and times[k] > times[k - 1]:
            raise ValueError(f"save: key times {float(times[k - 1])!r} and {float(times[k])!r} "
                             f"are equal in glTF's float32 ({what} at index ({k},))")
        raise ValueError(f"save: {what} at index ({k},) is {float(times[k])!r} (must be "
                         f"greater than the key time before it, {float(times[k - 1])!r})")
    return stored


def _node_entries(scene, clips):
    """glTF nodes, scenes and the default scene from a Scene, or made up from the
    clips' node indices and names."""
    if scene is not None:
        nodes = []
        for node in scene.nodes:
            entry = {}
            if node.name is not None:
                entry["name"] = node.name
            if node.children:
                entry["children"] = list(node.children)
            if node.matrix is not None:
                entry["matrix"] = [float(v) for v in node.matrix.T.reshape(-1)]
            else:
                for key, default in (("translation", (0, 0, 0)), ("rotation", (0, 0, 0, 1)),
                                     ("scale", (1, 1, 1))):
                    value = getattr(node, key)
                    if not np.array_equal(value, default):
                        entry[key] = [float(v) for v in value]
            nodes.append(entry)
        scenes = [{"nodes": list(roots)} for roots in scene.scenes]
        return nodes, scenes or [{"nodes": [n.index for n in scene.nodes if n.parent < 0]}], \
            scene.scene if scene.scene is not None else 0
    names = {}
    for clip in clips:
        for channel in clip.channels:
            if channel.node_name is not None:
                names.setdefault(channel.node, channel.node_name)
    count = 1 + max((c.node for clip in clips for c in clip.channels), default=-1)
    nodes = [{"name": names[i]} if i in names else {} for i in range(count)]
    return nodes, [{"nodes": list(range(count))}], 0


def _document(clips, scene, fps) -> _Writer:
    writer = _Writer()
    nodes, scenes, default = _node_entries(scene, clips)
    writer.doc.update(nodes=nodes, scenes=scenes, scene=default)
    if scene is not None and scene.skins:
        skins = []
        for skin in scene.skins:
            entry = {"joints": [int(j) for j in skin.joints],
                     "inverseBindMatrices": writer.accessor(
                         skin.inverse_bind_matrices.transpose(0, 2, 1).reshape(-1, 16), "MAT4")}
            if skin.skeleton is not None:
                entry["skeleton"] = skin.skeleton
            if skin.name is not None:
                entry["name"] = skin.name
            skins.append(entry)
        writer.doc["skins"] = skins
    animations = []
    morphs = _morph_widths(clips, scene, len(nodes))
    for k, clip in enumerate(clips):
        samplers, channels, seen = [], [], {}
        for c, channel in enumerate(clip.channels):
            if not 0 <= channel.node < len(nodes):
                raise ValueError(f"save: clip {clip.name!r} channel {c} animates node "
                                 f"{channel.node}, but the scene has {len(nodes)} nodes")
            if (channel.node, channel.path) in seen:  # load refuses a target used twice
                raise ValueError(f"save: clip {clip.name!r} channel {c} animates "
                                 f"{channel.path} of node {channel.node}, already animated by "
                                 f"channel {seen[channel.node, channel.path]}")
            seen[channel.node, channel.path] = c
            what = f"clips[{k}] ({clip.name!r}) channel {c} ({channel.path} of node {channel.node})"
            interpolation, times, output = channel.interpolation, channel.times, channel.output
            if interpolation is None or output is None:
                if fps is None:
                    raise ValueError(
                        f"save: clip {clip.name!r} channel {c} ({channel.path} of node "
                        f"{channel.target!r}) is a curve glTF cannot express (easing, a time "
                        "remap, jumps or Bezier handles, which a Curve has by default; "
                        "interpolation='cubic' is glTF's CUBICSPLINE); pass fps= to write "
                        "it as LINEAR samples")
                times = frame_times(clip.duration, fps, func="save")
                output = channel._sample(times)
                interpolation = "LINEAR"
            kind = {"translation": "VEC3", "rotation": "VEC4", "scale": "VEC3",
                    "weights": "SCALAR"}[channel.path]
            output = np.asarray(output, dtype=np.float64)
            if channel.path == "weights" and output.shape[-1] != morphs[channel.node]:
                raise ValueError(f"save: {what} has {output.shape[-1]} morph weights, but node "
                                 f"{channel.node} has {morphs[channel.node]} morph targets")
            _check_stored("save", f"{what} output", output)
            if channel.path == "rotation":  # load refuses a key that is 0 in float32
                keys = output.astype(np.float32)
                keys = keys[1::3] if interpolation == "CUBICSPLINE" else keys
                zero = ~keys.any(axis=-1)
                if zero.any():
                    z = int(np.argmax(zero))
                    raise ValueError(f"save: {what} output at key {z} is "
                                     f"{keys[z].astype(float).tolist()!r} in glTF's float32 "
                                     "(must not be a zero quaternion)")
            sampler = {"input": writer.times(times, f"{what} times"),
                       "output": writer.accessor(output.reshape(-1) if kind == "SCALAR"
                                                 else output, kind, what=f"{what} output"),
                       "interpolation": interpolation}
            samplers.append(sampler)
            channels.append({"sampler": len(samplers) - 1,
                             "target": {"node": int(channel.node), "path": channel.path}})
        if clip.unsupported:
            warnings.warn(f"save: clip {clip.name!r} has {len(clip.unsupported)} channel(s) "
                          "animcore does not evaluate (e.g. "
                          f"{str(clip.unsupported[0])!r}); they are not written",
                          GltfWarning, stacklevel=4)
        if not channels:
            raise ValueError(f"save: clip {clip.name!r} has no channels (glTF animations need "
                             "at least one)")
        animation = {"channels": channels, "samplers": samplers}
        if isinstance(clip.name, str):
            animation["name"] = clip.name
        animations.append(animation)
    writer.doc["animations"] = animations
    skinned = {n.index: n.skin for n in scene.nodes if n.skin is not None} \
        if scene is not None else {}
    # only a node with a mesh has morph weights or a skin
    for node in sorted(set(morphs) | set(skinned)):
        entry = nodes[node]
        known = scene.nodes[node] if scene is not None else None
        weights = known.weights if known is not None and node in morphs else None
        names = known.target_names if known is not None and node in morphs else None
        entry["mesh"] = writer.placeholder_mesh(morphs.get(node, 0), weights, names,
                                                node in skinned)
        if node in skinned:
            entry["skin"] = int(skinned[node])
    return writer


def _morph_widths(clips, scene, count: int) -> dict:
    """The morph target count of every node that has morph weights (a weights
    channel, or default weights in the scene): the count all of them agree on."""
    widths, sources = {}, {}

    def note(node, width, source):
        if node in widths and widths[node] != width:
            raise ValueError(f"save: {source} gives node {node} {width} morph weights, but "
                             f"{sources[node]} gives it {widths[node]}")
        widths.setdefault(node, width)
        sources.setdefault(node, source)

    if scene is not None:
        for node in scene.nodes:
            if node.weights is not None and len(node.weights):
                _check_stored("save", f"scene.nodes[{node.index}].weights",
                              np.asarray(node.weights, dtype=np.float64))
                note(node.index, len(node.weights), f"scene.nodes[{node.index}].weights")
    for clip in clips:
        for c, channel in enumerate(clip.channels):
            if channel.path == "weights" and 0 <= channel.node < count:
                width = np.shape(channel.output)[-1] if channel.output is not None \
                    else channel.width
                if width == 0:
                    raise ValueError(f"save: clip {clip.name!r} channel {c} animates 0 morph "
                                     f"weights of node {channel.node}")
                note(channel.node, width, f"clip {clip.name!r} channel {c}")
    return widths


def _glb_bytes(doc: dict, blob: bytes) -> bytes:
    """A .glb file: the JSON chunk and the binary chunk, each padded to 4 bytes."""
    text = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 4)
    binary = blob + b"\0" * (-len(blob) % 4)
    data = struct.pack("<III", _GLB_MAGIC, 2, 12 + 8 + len(text) + 8 + len(binary))
    data += struct.pack("<II", len(text), _CHUNK_JSON) + text
    return data + struct.pack("<II", len(binary), _CHUNK_BIN) + binary


def _loads_back(doc: dict, blob: bytes, path: str) -> None:
    """What save writes, read back by load's own checks before anything is
    written: a ValueError naming the first thing load would refuse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # e.g. float32 overflow in a read
            _load(_glb_bytes(dict(doc, buffers=[{"byteLength": len(blob)}]), blob), None, path,
                  None, "raise", scene=True)
    except (GltfError, RuntimeWarning) as error:
        raise ValueError(f"save: the file would not load back: {error}") from None


def save(path, clips, *, scene=None, fps=None, embed: bool = True) -> None:
    """Write clips to a glTF 2.0 file: ``.gltf`` (JSON) or ``.glb`` (binary).

    Parameters
    ----------
    path : str or os.PathLike
        Ends in ``.gltf`` or ``.glb``.
    clips : Clip or sequence of Clip
        The animations. Channels keep their glTF samplers (STEP, LINEAR,
        CUBICSPLINE with per-second tangents), so ``load(save(...))`` gives
        the same values (to glTF's float32 precision; exactly for clips read
        from glTF). Channels made with :meth:`Channel.from_curve` from curves
        glTF cannot express (easing, time remaps, jumps, Bezier handles: a
        ``Curve``'s default tangents, Blender's auto-clamped ones, are Bezier
        handles; cubic Hermite curves, ``interpolation="cubic"``, are glTF's
        CUBICSPLINE, and so are curves of linear and cubic segments mixed, as
        :func:`animcore.reduce_clip` makes them, a linear segment's velocities
        its slope; a step segment among others has no glTF form) are written
        as LINEAR samples on the frame grid of
        ``fps`` (as ``bake``), or rejected with a ValueError when ``fps`` is
        None.
    scene : Scene, optional
        The nodes (names, hierarchy, rest transforms), scenes and skins to
        write; meshes are not written. Without it, one node per animated node
        index, named after the channels' nodes. glTF allows morph weights only
        on a node with a mesh: a node with morph weights (a ``weights``
        channel, or default weights in ``scene``) gets a placeholder mesh that
        carries its morph targets (one point, zero displacements) with its
        default weights and target names, so the weights load back; a node
        that a skin is applied to keeps its skin, on such a mesh bound to the
        skin's first joint, so that :meth:`Skin.joint_matrices` (relative to
        that node) is the same after loading back.
    fps : float, optional
        The frame rate for curves glTF cannot express.
    embed : bool
        ``.gltf`` only: the buffer as a base64 data URI (True) or a ``.bin``
        file beside it with the same stem (False).

    Raises
    ------
    ValueError
        Before anything is written, for whatever :func:`load` would refuse
        in the file: a bad path extension, a clip without channels, a channel
        of a node the scene does not have or a target animated twice, key
        times that are negative, not finite, beyond float32's range, not
        increasing or that float32 cannot tell apart, values that are not
        finite, a rotation key that is zero in float32, morph weight counts
        that disagree, an inexpressible curve without ``fps``. The message
        names the clip, the channel, the index and the value.
    OverflowError
        A value beyond float32's range.
    """
    path = os.fspath(path)
    extension = os.path.splitext(path)[1].lower()
    if extension not in (".gltf", ".glb"):
        raise ValueError(f"save: path must end in .gltf or .glb, got {path!r}")
    if fps is not None:
        fps = positive_number("save", "fps", fps)
    clips = [clips] if isinstance(clips, Clip) else list(clips)
    for clip in clips:
        if not isinstance(clip, Clip):
            raise ValueError(f"save: clips must be Clip objects, got {type(clip).__name__}")
    writer = _document(clips, scene, fps)
    doc, blob = writer.doc, bytes(writer.blob)
    _loads_back(doc, blob, path)
    buffer = {"byteLength": len(blob)}
    if extension == ".glb":
        doc["buffers"] = [buffer]
        with open(path, "wb") as stream:
            stream.write(_glb_bytes(doc, blob))
        return
    if embed:
        buffer["uri"] = "data:application/octet-stream;base64," + \
            base64.b64encode(blob).decode("ascii")
    else:
        name = os.path.splitext(os.path.basename(path))[0] + ".bin"
        buffer["uri"] = urllib.parse.quote(name)
        with open(os.path.join(os.path.dirname(os.path.abspath(path)), name), "wb") as stream:
            stream.write(blob)
    doc["buffers"] = [buffer]
    with open(path, "w", encoding="utf-8") as stream:
        json.dump(doc, stream, indent=1)
