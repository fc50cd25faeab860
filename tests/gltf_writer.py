"""Writes small glTF 2.0 files for the tests: .gltf with a data URI or an
external .bin, and .glb. Values are encoded with plain NumPy and struct,
independently of animcore's reader, and the layout options (byte offsets,
strides with padding bytes, sparse storage, integer components) let the tests
exercise every decoding path."""
from __future__ import annotations

import base64
import copy
import json
import pathlib
import struct

import numpy as np

FLOAT, BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT, UNSIGNED_INT = 5126, 5120, 5121, 5122, 5123, 5125
DTYPES = {BYTE: "<i1", UNSIGNED_BYTE: "<u1", SHORT: "<i2", UNSIGNED_SHORT: "<u2",
          UNSIGNED_INT: "<u4", FLOAT: "<f4"}
WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
JUNK = 0xAB  # filler between strided elements and before offsets


class Builder:
    """Accumulates a glTF document and its single binary buffer."""

    def __init__(self):
        self.doc = {"asset": {"version": "2.0", "generator": "animcore test writer"},
                    "buffers": [], "bufferViews": [], "accessors": [], "nodes": [],
                    "animations": []}
        self.blob = bytearray()

    # -- binary data
    def view(self, data: bytes, stride=None) -> int:
        while len(self.blob) % 4:
            self.blob.append(0)
        entry = {"buffer": 0, "byteOffset": len(self.blob), "byteLength": len(data)}
        if stride is not None:
            entry["byteStride"] = stride
        self.blob += data
        self.doc["bufferViews"].append(entry)
        return len(self.doc["bufferViews"]) - 1

    def accessor(self, values, type="SCALAR", component=FLOAT, *, normalized=False,
                 stride=None, offset=0, sparse=None, with_view=True, count=None) -> int:
        """An accessor holding ``values`` (stored as given in ``component``).

        stride: bytes between elements (padding filled with junk);
        offset: junk bytes before the first element (accessor byteOffset);
        sparse: (indices, values[, index_component]) stored in the sparse block;
        with_view=False: no bufferView (zeros, then sparse), ``count`` required.
        """
        width = WIDTHS[type]
        dtype = np.dtype(DTYPES[component])
        entry = {"componentType": component, "type": type}
        if normalized:
            entry["normalized"] = True
        if with_view:
            array = np.asarray(values).astype(dtype).reshape(-1, width)
            element = width * dtype.itemsize
            step = stride or element
            data = bytearray([JUNK]) * offset
            for row in array:
                chunk = row.tobytes()
                data += chunk + bytes([JUNK]) * (step - element)
            entry["bufferView"] = self.view(bytes(data), stride)
            if offset:
                entry["byteOffset"] = offset
            entry["count"] = len(array)
        else:
            entry["count"] = count
        if sparse is not None:
            indices, sparse_values = sparse[0], sparse[1]
            index_component = sparse[2] if len(sparse) > 2 else UNSIGNED_SHORT
            indices = np.asarray(indices).astype(DTYPES[index_component])
            sparse_values = np.asarray(sparse_values).astype(dtype).reshape(-1, width)
            entry["sparse"] = {
                "count": len(indices),
                "indices": {"bufferView": self.view(indices.tobytes()),
                            "componentType": index_component},
                "values": {"bufferView": self.view(sparse_values.tobytes())},
            }
        self.doc["accessors"].append(entry)
        return len(self.doc["accessors"]) - 1

    # -- scene and animation
    def node(self, name=None, **extra) -> int:
        entry = dict(extra)
        if name is not None:
            entry["name"] = name
        self.doc["nodes"].append(entry)
        return len(self.doc["nodes"]) - 1

    def morph_mesh(self, targets: int) -> int:
        """A one-triangle mesh with ``targets`` morph targets."""
        positions = self.accessor(np.eye(3), "VEC3")
        target = {"POSITION": self.accessor(np.eye(3) * 0.1, "VEC3")}
        mesh = {"primitives": [{"attributes": {"POSITION": positions},
                                "targets": [dict(target) for _ in range(targets)]}]}
        self.doc.setdefault("meshes", []).append(mesh)
        return len(self.doc["meshes"]) - 1

    def animation(self, channels, name=None) -> int:
        """channels: (node, path, times, output, interpolation) with float data,
        or (node, path, input_accessor, output_accessor, interpolation) with ints."""
        samplers, entries = [], []
        for node, path, times, output, interpolation in channels:
            if not isinstance(times, int):
                times = self.accessor(np.asarray(times, np.float64), "SCALAR")
            if not isinstance(output, int):
                kind = {"translation": "VEC3", "scale": "VEC3", "rotation": "VEC4",
                        "weights": "SCALAR"}[path]
                output = self.accessor(np.asarray(output, np.float64), kind)
            sampler = {"input": times, "output": output}
            if interpolation is not None:
                sampler["interpolation"] = interpolation
            samplers.append(sampler)
            entries.append({"sampler": len(samplers) - 1,
                            "target": {"node": node, "path": path}})
        entry = {"channels": entries, "samplers": samplers}
        if name is not None:
            entry["name"] = name
        self.doc["animations"].append(entry)
        return len(self.doc["animations"]) - 1

    # -- output
    def document(self, uri=None) -> dict:
        doc = copy.deepcopy(self.doc)
        buffer = {"byteLength": len(self.blob)}
        if uri is not None:
            buffer["uri"] = uri
        doc["buffers"] = [buffer]
        return doc

    def write_gltf(self, path, *, external=None, doc=None) -> pathlib.Path:
        """A .gltf file; the buffer is a data URI, or the file named ``external``
        next to it."""
        path = pathlib.Path(path)
        if external is None:
            uri = "data:application/octet-stream;base64," + base64.b64encode(bytes(self.blob)).decode()
        else:
            (path.parent / external).write_bytes(bytes(self.blob))
            uri = external.replace(" ", "%20")
        if doc is None:
            doc = self.document(uri)
        path.write_text(json.dumps(doc, indent=1))
        return path

    def glb_bytes(self, doc=None) -> bytes:
        return glb(self.document() if doc is None else doc, bytes(self.blob))

    def write_glb(self, path, doc=None) -> pathlib.Path:
        path = pathlib.Path(path)
        path.write_bytes(self.glb_bytes(doc))
        return path


def glb(doc: dict, binary: bytes | None) -> bytes:
    """A GLB container: 12-byte header, JSON chunk padded with spaces, BIN
    chunk padded with zeros."""
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    chunks = struct.pack("<II", len(text), 0x4E4F534A) + text
    if binary is not None:
        binary = binary + b"\0" * (-len(binary) % 4)
        chunks += struct.pack("<II", len(binary), 0x004E4942) + binary
    return struct.pack("<III", 0x46546C67, 2, 12 + len(chunks)) + chunks


def axis_angle(axis, degrees):
    """Unit quaternion (x, y, z, w) of a rotation about ``axis``."""
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    half = np.radians(degrees) / 2
    return np.append(axis * np.sin(half), np.cos(half))


def sample_builder() -> Builder:
    """The built-in sample shipped as animcore/data/sample.gltf.

    Regenerate with ``python tests/gltf_writer.py animcore/data/sample.gltf``.
    """
    b = Builder()
    face_mesh = b.morph_mesh(2)
    root = b.node("root", children=[1, 4])
    hips = b.node("hips", children=[2])
    spine = b.node("spine", children=[3])
    hand = b.node("hand")
    face = b.node("face", mesh=face_mesh)
    # walk: uneven key times on every channel
    hips_keys = np.array([axis_angle([0, 1, 0], a) for a in (0, 30, -30, 0)])
    hips_keys[3] *= -1  # q and -q are the same rotation: slerp must take the short arc
    spine_values = np.array([axis_angle([1, 0, 0], a) for a in (0, 20, 0)])
    spine_tangents = np.array([[0, 0, 0, 0], [0.05, 0, 0, -0.005], [0, 0, 0, 0]])
    spine_output = np.stack([-spine_tangents, spine_values, spine_tangents], axis=1)
    spine_output[0, 0] = spine_output[2, 2] = 0  # unused end tangents
    spine_output[1, 0] = [0.3, 0, 0, -0.02]      # in-tangent (per second)
    spine_output[1, 2] = [-0.1, 0, 0, 0.01]      # out-tangent (per second)
    spine_output[0, 2] = [0.4, 0, 0, 0.0]
    spine_output[2, 0] = [-0.4, 0, 0, 0.0]
    b.animation([
        (root, "translation", [0.0, 0.25, 0.7, 1.5],
         [[0, 0, 0], [0.3, 0.05, 0], [0.8, 0, 0], [1.6, 0, 0]], "LINEAR"),
        (hips, "rotation", [0.0, 0.5, 1.0, 1.5], hips_keys, "LINEAR"),
        (spine, "rotation", [0.0, 0.6, 1.5], spine_output.reshape(-1, 4), "CUBICSPLINE"),
        (hand, "scale", [0.0, 0.4, 0.9, 1.2],
         [[1, 1, 1], [1.2, 1.2, 1.2], [0.9, 0.9, 0.9], [1, 1, 1]], "STEP"),
        (face, "weights", [0.0, 0.3, 1.5], [0, 0, 1, 0.5, 0, 1], "LINEAR"),
    ], name="walk")
    blink_output = np.array([[0, 0], [0, 0], [6, 0],       # key 0: in, value, out
                             [0, 0], [1, 0.25], [0, 0],    # key 1
                             [-4, 0], [0, 0], [0, 0]])     # key 2
    b.animation([(face, "weights", [0.0, 0.15, 0.4], blink_output.ravel(), "CUBICSPLINE")],
                name="blink")
    return b


if __name__ == "__main__":
    import sys

    sample_builder().write_gltf(sys.argv[1])
