"""glTF import and the bake command, on files written by the tests themselves
(tests/gltf_writer.py), checked against Appendix C of the glTF 2.0
specification as re-derived query by query in tests/reference.py."""
import base64
import copy
import csv
import importlib.resources
import json
import math
import os
import pathlib
import re
import struct
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import animcore
from animcore import Channel, Clip, RotationCurve, bake, gltf
from gltf_writer import (BYTE, FLOAT, SHORT, UNSIGNED_BYTE, UNSIGNED_INT, UNSIGNED_SHORT,
                         Builder, axis_angle, glb, sample_builder)
from reference import gltf_spec_sample

ROOT = pathlib.Path(__file__).resolve().parent.parent
F32 = lambda x: np.asarray(x, np.float32).astype(np.float64)  # noqa: E731  stored precision
TIMES = [0.0, 0.1, 0.35, 1.0, 1.15]  # uneven key spacing
QUERIES = np.concatenate([[-0.5], np.linspace(0, 1.15, 47), TIMES, [0.2500001, 1.149999, 3.0]])
WIDTH = {"translation": 3, "rotation": 4, "scale": 3, "weights": 2}


def keys_for(path, interpolation, rng):
    """Random key output for a path (rows per key x width), quaternions unit."""
    k, w = len(TIMES), WIDTH[path]
    per = 3 if interpolation == "CUBICSPLINE" else 1
    out = rng.normal(size=(k, per, w))
    if path == "rotation":
        q = rng.normal(size=(k, 4))
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        out[:, per // 2] = q
        if per == 3:
            out[:, [0, 2]] *= 0.3
    return out.reshape(k * per, w)


def write(builder, tmp_path, kind):
    if kind == "datauri":
        return builder.write_gltf(tmp_path / "anim.gltf")
    if kind == "external":
        return builder.write_gltf(tmp_path / "anim.gltf", external="keys data.bin")
    return builder.write_glb(tmp_path / "anim.glb")


# ------------------------------------------------------------ values vs the spec

@pytest.mark.parametrize("kind", ["datauri", "external", "glb"])
@pytest.mark.parametrize("interpolation", ["STEP", "LINEAR", "CUBICSPLINE"])
def test_every_path_and_interpolation_matches_the_spec(tmp_path, kind, interpolation):
    rng = np.random.default_rng(hash((kind, interpolation)) % 2**32)
    b = Builder()
    b.morph_mesh(2)
    nodes = {p: b.node(p, **({"mesh": 0} if p == "weights" else {})) for p in WIDTH}
    outputs = {p: keys_for(p, interpolation, rng) for p in WIDTH}
    b.animation([(nodes[p], p, TIMES, outputs[p].ravel() if p == "weights" else outputs[p],
                  interpolation) for p in WIDTH], name="all")
    (clip,) = gltf.load(write(b, tmp_path, kind))
    assert clip.name == "all" and clip.duration == pytest.approx(1.15)
    sampled = clip.sample(QUERIES)
    assert list(sampled) == [(p, p) for p in WIDTH]
    for path in WIDTH:
        expected = gltf_spec_sample(F32(TIMES), F32(outputs[path]), interpolation, QUERIES,
                                    rotation=path == "rotation")
        got = sampled[(path, path)]
        assert got.shape == (len(QUERIES), WIDTH[path])
        if path == "rotation":  # q and -q are the same rotation
            got = got * np.sign(np.sum(got * expected, axis=1, keepdims=True))
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9, err_msg=path)


def test_hand_computed_values():
    # LINEAR keys 0, 2, 6 at t = 0, 1, 3: t = 2 is halfway through the second segment.
    # CUBICSPLINE one segment of 2 s from 0 to 1, out-tangent 1/s, in-tangent 0:
    # p(s=0.5) = 0.5*0 + 2*(1/8)*1 + 0.5*1 + 0 = 0.75 (0.625 if the tangent is not
    # scaled by the 2-second key interval). STEP holds the key at or before t.
    b = Builder()
    n = b.node("n")
    m = b.node("m")
    s = b.node("s")
    b.animation([
        (n, "translation", [0, 1, 3], [[0, 0, 0], [2, 0, 0], [6, 0, 0]], "LINEAR"),
        (m, "translation", [0, 2], [[0, 0, 0], [0, 0, 0], [1, 0, 0],
                                     [0, 0, 0], [1, 0, 0], [0, 0, 0]], "CUBICSPLINE"),
        (s, "scale", [0, 1, 3], [[1, 1, 1], [2, 2, 2], [3, 3, 3]], "STEP"),
    ])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    values = clip.sample([2.0, 1.0, 0.999, 5.0])
    assert values[("n", "translation")][0, 0] == pytest.approx(4.0, abs=1e-15)
    assert values[("m", "translation")][1, 0] == pytest.approx(0.75, abs=1e-15)
    np.testing.assert_array_equal(values[("s", "scale")][:, 0], [2, 2, 1, 3])
    assert clip.duration == 3.0 and clip.name == "animation0"


def test_cubic_rotation_with_exactly_unit_keys_matches_the_spec():
    h = 0.5
    values = np.array([[0, 0, 0, 1], [h, h, h, h], [1, 0, 0, 0]], float)
    tangents = np.array([[0.25, -0.5, 0, 0.125], [1, 0, -0.25, 0.5], [0, 0.75, 0.5, -1]])
    output = np.stack([-tangents, values, tangents * 0.5], axis=1).reshape(-1, 4)
    times = [0.0, 0.75, 2.0]
    b = Builder()
    b.animation([(b.node("r"), "rotation", times, output, "CUBICSPLINE")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    t = np.linspace(-0.25, 2.25, 41)
    expected = gltf_spec_sample(times, output, "CUBICSPLINE", t, rotation=True)
    np.testing.assert_allclose(clip.sample(t)[("r", "rotation")], expected, atol=1e-12)


def test_slerp_takes_the_short_arc_and_holds_outside():
    q0, q1 = axis_angle([0, 0, 1], 10), -axis_angle([0, 0, 1], 50)  # -q1: same rotation
    b = Builder()
    b.animation([(b.node("r"), "rotation", [0.5, 1.5], [q0, q1], "LINEAR")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    got = clip.channel("r", "rotation").sample([0.0, 1.0, 2.0])
    expected = np.array([axis_angle([0, 0, 1], a) for a in (10, 30, 50)])
    got = got * np.sign(np.sum(got * expected, axis=1, keepdims=True))
    np.testing.assert_allclose(got, expected, atol=1e-7)  # keys stored as float32


def test_sample_shape_and_channel_lookup():
    clips = gltf.load_sample()
    walk = clips[0]
    t = np.linspace(0, 1.5, 6).reshape(2, 3)
    out = walk.sample(t)
    assert out[("hips", "rotation")].shape == (2, 3, 4)
    assert out[("face", "weights")].shape == (2, 3, 2)
    assert walk.channel(2, "rotation").node_name == "spine"
    with pytest.raises(KeyError, match="no scale channel for node 'face'"):
        walk.channel("face", "scale")
    assert repr(walk) == "Clip(name='walk', duration=1.5, channels=5)"
    assert "interpolation='CUBICSPLINE'" in repr(walk.channel("spine", "rotation"))


# ------------------------------------------------------------ accessor decoding

NORMALIZED = [  # component, stored integers, value per the spec's equations
    (BYTE, [-128, -127, 0, 64, 127], lambda c: np.maximum(c / 127.0, -1.0)),
    (UNSIGNED_BYTE, [0, 1, 128, 255, 17], lambda c: c / 255.0),
    (SHORT, [-32768, -32767, 0, 1000, 32767], lambda c: np.maximum(c / 32767.0, -1.0)),
    (UNSIGNED_SHORT, [0, 1, 40000, 65535, 7], lambda c: c / 65535.0),
]


@pytest.mark.parametrize("component, stored, decode", NORMALIZED, ids=lambda v: str(v)[:6])
def test_normalized_components(component, stored, decode):
    b = Builder()
    times = b.accessor(np.arange(5, dtype=float) / 4, "SCALAR")
    out = b.accessor(stored, "SCALAR", component, normalized=True)
    b.animation([(b.node("f"), "weights", times, out, "LINEAR")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    ch = clip.channels[0]
    expected = decode(np.asarray(stored, float))
    np.testing.assert_array_equal(ch.output[:, 0], expected)
    np.testing.assert_allclose(ch.sample(np.arange(5) / 4)[:, 0], expected, atol=1e-15)


@pytest.mark.parametrize("component", [BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT, UNSIGNED_INT])
def test_integer_components_without_normalization_are_their_values(component):
    b = Builder()
    stored = [0, 3, 100, 7]
    b.animation([(b.node("f"), "weights", b.accessor([0, 1, 2, 3.5], "SCALAR"),
                  b.accessor(stored, "SCALAR", component), "STEP")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    np.testing.assert_array_equal(clip.channels[0].output[:, 0], stored)


def test_normalized_rotation_matches_the_spec():
    q = np.array([axis_angle([1, 2, 3], a) for a in (0, 70, 160)])
    stored = np.round(q * 32767).astype(np.int16)
    b = Builder()
    out = b.accessor(stored, "VEC4", SHORT, normalized=True)
    b.animation([(b.node("r"), "rotation", b.accessor([0, 0.3, 1.0]), out, "LINEAR")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    t = np.linspace(0, 1, 21)
    expected = gltf_spec_sample([0, F32(0.3), 1.0], stored / 32767.0, "LINEAR", t, rotation=True)
    got = clip.sample(t)[("r", "rotation")]
    got = got * np.sign(np.sum(got * expected, axis=1, keepdims=True))
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_byte_stride_and_offsets():
    values = np.arange(12, dtype=float).reshape(4, 3) + 0.5
    b = Builder()
    times = b.accessor([0, 1, 2, 4], "SCALAR", stride=8, offset=4)
    out = b.accessor(values, "VEC3", stride=20, offset=8)
    b.animation([(b.node("n"), "translation", times, out, "LINEAR")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    ch = clip.channels[0]
    np.testing.assert_array_equal(ch.times, [0, 1, 2, 4])
    np.testing.assert_array_equal(ch.output, values)
    np.testing.assert_allclose(ch.sample(3.0), (values[2] + values[3]) / 2)


def test_two_accessors_interleaved_in_one_view():
    b = Builder()
    values = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    scale = np.array([[7, 8, 9], [10, 11, 12]], np.float32)
    data = np.hstack([values, scale]).tobytes()
    view = b.view(data, stride=24)
    b.doc["accessors"] += [
        {"bufferView": view, "componentType": FLOAT, "count": 2, "type": "VEC3"},
        {"bufferView": view, "byteOffset": 12, "componentType": FLOAT, "count": 2, "type": "VEC3"}]
    times = b.accessor([0, 1])
    n = b.node("n")
    b.animation([(n, "translation", times, 0, "LINEAR"), (n, "scale", times, 1, "LINEAR")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    np.testing.assert_array_equal(clip.channels[0].output, values)
    np.testing.assert_array_equal(clip.channels[1].output, scale)


@pytest.mark.parametrize("index_component", [UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT])
@pytest.mark.parametrize("with_view", [True, False])
def test_sparse_accessors(index_component, with_view):
    base = np.arange(15, dtype=float).reshape(5, 3)
    replaced = np.array([[-1, -2, -3], [9, 9, 9]], float)
    expected = base.copy() if with_view else np.zeros((5, 3))
    expected[[1, 4]] = replaced
    b = Builder()
    out = b.accessor(base, "VEC3", sparse=([1, 4], replaced, index_component),
                     with_view=with_view, count=5)
    b.animation([(b.node("n"), "translation", TIMES, out, "STEP")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    np.testing.assert_array_equal(clip.channels[0].output, expected)
    np.testing.assert_array_equal(clip.sample(clip.channels[0].times)[("n", "translation")],
                                  expected)


def test_sparse_input_times():
    b = Builder()
    times = b.accessor([0, 1, 2, 3], sparse=([2], [2.5]))
    b.animation([(b.node("n"), "scale", times, [[1] * 3, [2] * 3, [3] * 3, [4] * 3], "LINEAR")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    np.testing.assert_array_equal(clip.channels[0].times, [0, 1, 2.5, 3])


def test_weights_width_from_mesh_weights_or_output():
    b = Builder()
    b.doc["meshes"] = [{"primitives": [], "weights": [0, 0, 0]}]
    a = b.node("a", mesh=0)
    c = b.node("c")  # no mesh: 6 values over 2 keys means 3 weights
    b.animation([(a, "weights", [0, 1], np.arange(6.0), "LINEAR"),
                 (c, "weights", [0, 1], np.arange(6.0), "LINEAR")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    assert [ch.width for ch in clip.channels] == [3, 3]
    np.testing.assert_array_equal(clip.channels[1].sample(0.5), [1.5, 2.5, 3.5])


def test_names_targets_and_skipped_channels():
    b = Builder()
    x, y1, y2, anon, digits = b.node("x"), b.node("y"), b.node("y"), b.node(), b.node("3")
    ch = [(n, "scale", [0, 1], [[1] * 3, [2] * 3], None) for n in (x, y1, y2, anon, digits)]
    b.animation(ch, name="same")
    b.animation(ch[:1], name="same")
    b.animation(ch[:1])
    b.doc["animations"][2]["channels"].append({"sampler": 0, "target": {"path": "pointer"}})
    clips = gltf.load_bytes(b.glb_bytes())
    assert [c.name for c in clips] == ["same", "same#1", "animation2"]
    assert [c.target for c in clips[0].channels] == ["x", 1, 2, 3, 4]
    assert [c.node_name for c in clips[0].channels] == ["x", "y", "y", None, "3"]
    assert len(clips[2].channels) == 1
    assert clips[0].channels[0].interpolation == "LINEAR"  # the default


def test_no_animations_is_an_empty_list(tmp_path):
    path = tmp_path / "empty.gltf"
    path.write_text(json.dumps({"asset": {"version": "2.0"}}))
    assert gltf.load(path) == []


def test_input_file_not_modified(tmp_path):
    path = sample_builder().write_glb(tmp_path / "s.glb")
    before = path.read_bytes()
    gltf.load(str(path))
    assert path.read_bytes() == before


# ------------------------------------------------------------ malformed files

def good():
    b = Builder()
    b.morph_mesh(2)
    t, f = b.node("t"), b.node("f", mesh=0)
    b.animation([(t, "translation", [0, 1, 2], [[0, 0, 0], [1, 1, 1], [2, 2, 2]], "LINEAR"),
                 (f, "weights", [0, 1, 2], np.arange(6.0), "STEP")], name="a")
    return b


def data_uri(blob):
    return "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()


def set_in(doc, path, value):
    *head, last = path
    target = doc
    for key in head:
        target = target[key]
    if value is DELETE:
        del target[last]
    else:
        target[last] = value
    return doc


DELETE = object()
A0 = ("animations", 0)
S0 = A0 + ("samplers", 0)
# accessors of good(): 0 positions, 1 morph target, 2 times, 3 translation, 4 times, 5 weights
JSON_CASES = [
    (("asset",), DELETE, "asset: missing (required by glTF 2.0)"),
    (("asset", "version"), "1.0", "asset.version: is '1.0', expected glTF 2.x"),
    (("animations",), {}, "animations: must be an array, got an object"),
    (A0 + ("channels",), [], "animations[0].channels: is empty"),
    (A0 + ("samplers",), DELETE, "animations[0].samplers: missing"),
    (A0 + ("samplers", 1), 5, "animations[0].samplers[1]: must be a JSON object, got the number 5"),
    (A0 + ("channels", 0, "sampler"), 7,
     "animations[0].channels[0].sampler: index 7 out of range (animations[0] has 2 samplers)"),
    (A0 + ("channels", 0, "sampler"), -1, "animations[0].channels[0].sampler: must be >= 0, got -1"),
    (A0 + ("channels", 0, "sampler"), "0", "animations[0].channels[0].sampler: must be an "
                                           "integer, got the string '0'"),
    (A0 + ("channels", 0, "target"), DELETE, "animations[0].channels[0].target: missing"),
    (A0 + ("channels", 0, "target", "path"), "color",
     "animations[0].channels[0].target.path: 'color' is not one of translation, rotation"),
    (A0 + ("channels", 0, "target", "node"), 9,
     "animations[0].channels[0].target.node: index 9 out of range (the file has 2 nodes)"),
    (("meshes", 0, "primitives", 0, "targets"), [],
     "animations[0].channels[1].target.node: node 1 has no morph targets for a weights channel"),
    (A0 + ("channels", 1, "target", "path"), "translation",
     "animations[0].samplers[1].output: accessor 5 has type SCALAR, expected VEC3"),
    (A0 + ("channels", 1, "target", "path"), "rotation",
     "animations[0].samplers[1].output: accessor 5 has type SCALAR, expected VEC4"),
    (S0 + ("interpolation",), "BEZIER",
     "animations[0].samplers[0].interpolation: 'BEZIER' is not LINEAR, STEP or CUBICSPLINE"),
    (S0 + ("interpolation",), "CUBICSPLINE",
     "animations[0].samplers[0].output: accessor 3 has 3 elements, expected 3 keys x 3"),
    (S0 + ("input",), DELETE, "animations[0].samplers[0].input: missing"),
    (S0 + ("output",), 99,
     "animations[0].samplers[0].output: index 99 out of range (the file has 6 accessors)"),
    (S0 + ("input",), 3, "animations[0].samplers[0].input: accessor 3 has type VEC3, expected SCALAR"),
    (S0 + ("input",), 5, "animations[0].samplers[0].output: accessor 3 has 3 elements, "
                         "expected 6 keys"),
    (A0 + ("samplers", 1, "output"), 4, "animations[0].samplers[1].output: accessor 4 has 3 "
                                        "elements, expected 3 keys x 2 morph weights"),
    (("accessors", 3, "type"), "VEC5", "accessors[3].type: 'VEC5' is not a glTF accessor type"),
    (("accessors", 3, "componentType"), 5124,
     "accessors[3].componentType: 5124 is not a glTF component type"),
    (("accessors", 3, "componentType"), DELETE, "accessors[3].componentType: missing"),
    (("accessors", 3, "normalized"), True,
     "accessors[3].normalized: is true for FLOAT components"),
    (("accessors", 3, "normalized"), 1, "accessors[3].normalized: must be a boolean"),
    (("accessors", 3, "count"), 0, "accessors[3].count: must be >= 1, got 0"),
    (("accessors", 2, "count"), 4, "accessors[2]: needs 16 bytes of bufferViews[2] (byteOffset 0, "
                                   "4 elements of 4 bytes, stride 4) but it has 12"),
    (("accessors", 3, "count"), 4, "animations[0].samplers[0].output: accessor 3 has 4 elements, "
                                   "expected 3 keys"),
    (("accessors", 3, "byteOffset"), 4, "accessors[3]: needs 40 bytes of bufferViews[3]"),
    (("accessors", 3, "bufferView"), 40,
     "accessors[3].bufferView: index 40 out of range (the file has 6 bufferViews)"),
    (("accessors", 2), [], "accessors[2]: must be a JSON object, got an array"),
    (("bufferViews", 3, "byteStride"), 6, "bufferViews[3].byteStride: is 6 (must be a multiple of 4"),
    (("bufferViews", 3, "byteStride"), 8, "bufferViews[3].byteStride: is 8, smaller than the "
                                          "12-byte elements of accessors[3]"),
    (("bufferViews", 3, "byteLength"), 10**6, "bufferViews[3]: byteOffset 84 + byteLength "
                                              "1000000 = 1000084 exceeds the 156 bytes of buffers[0]"),
    (("bufferViews", 3, "buffer"), 1,
     "bufferViews[3].buffer: index 1 out of range (the file has 1 buffers)"),
    (("buffers", 0, "byteLength"), 10**6, "buffers[0].byteLength: is 1000000 but the data URI "
                                          "has only 156 bytes (truncated)"),
    (("buffers", 0, "uri"), "data:application/octet-stream;base64,@@@",
     "buffers[0].uri: is not valid base64"),
    (("buffers", 0, "uri"), "data:text/plain,hello",
     "buffers[0].uri: is a data URI without ';base64,'"),
    (("buffers", 0, "uri"), "missing.bin", "buffers[0].uri: cannot read "),
    (("buffers", 0, "uri"), DELETE, "buffers[0].uri: missing (only the first buffer of a .glb"),
    (("nodes",), [{}], "animations[0].channels[1].target.node: index 1 out of range "
                       "(the file has 1 nodes)"),
    (("meshes", 0, "primitives", 0, "targets"), 3,
     "meshes[0].primitives[0].targets: must be an array, got the number 3"),
]


@pytest.mark.parametrize("where, value, message", JSON_CASES,
                         ids=[f"{'.'.join(map(str, c[0]))}={c[1] if c[1] is not DELETE else 'del'}"
                              for c in JSON_CASES])
def test_malformed_json_is_a_located_value_error(tmp_path, where, value, message):
    b = good()
    doc = set_in(b.document(data_uri(b.blob)), where, value)
    path = tmp_path / "bad.gltf"
    path.write_text(json.dumps(doc))
    with pytest.raises(gltf.GltfError, match=re.escape(f"{path}: {message}")) as info:
        gltf.load(path)
    assert info.value.location == message.split(":")[0]


def test_the_good_file_of_the_malformed_cases_loads(tmp_path):
    b = good()
    assert len(gltf.load(b.write_gltf(tmp_path / "ok.gltf"))[0].channels) == 2
    assert len(gltf.load(b.write_glb(tmp_path / "ok.glb"))[0].channels) == 2


def with_times(times, component=FLOAT):
    b = Builder()
    t = b.accessor(times, "SCALAR", component)
    b.animation([(b.node("n"), "scale", t, b.accessor(np.zeros((len(times), 3)), "VEC3"),
                  "STEP")])
    return b


@pytest.mark.parametrize("times, message", [
    ([0, 1, 1, 2], "key times must be strictly increasing (time[2]=1 after time[1]=1)"),
    ([0, 2, 1], "key times must be strictly increasing (time[2]=1 after time[1]=2)"),
    ([-1, 0], "key time 0 is -1 (must be >= 0)"),
    ([0, np.nan], "key time 1 is nan (must be finite)"),
    ([0, np.inf], "key time 1 is inf (must be finite)"),
])
def test_bad_key_times(times, message):
    with pytest.raises(ValueError, match=re.escape(
            f"animations[0].samplers[0].input: accessor 0 {message}")):
        gltf.load_bytes(with_times(times).glb_bytes())


def test_non_finite_output_and_zero_quaternion():
    b = Builder()
    b.animation([(b.node("n"), "scale", [0, 1], [[1, 1, 1], [1, np.inf, 1]], "LINEAR")])
    with pytest.raises(ValueError, match=re.escape(
            "animations[0].samplers[0].output: accessor 1 element 1 component 1 is inf")):
        gltf.load_bytes(b.glb_bytes())
    b = Builder()
    b.animation([(b.node("n"), "rotation", [0, 1], [[0, 0, 0, 1], [0, 0, 0, 0]], "LINEAR")])
    with pytest.raises(ValueError, match=re.escape(
            "animations[0].samplers[0].output: accessor 1 rotation key 1 is a zero quaternion")):
        gltf.load_bytes(b.glb_bytes())


def test_duplicate_target():
    b = Builder()
    n = b.node("n")
    b.animation([(n, "scale", [0, 1], [[1] * 3, [2] * 3], "LINEAR")] * 2)
    with pytest.raises(ValueError, match=re.escape(
            "animations[0].channels[1]: animates scale of node 0, already animated by channels[0]")):
        gltf.load_bytes(b.glb_bytes())


def sparse_builder(indices, count=3, index_component=UNSIGNED_SHORT):
    b = Builder()
    times = b.accessor(np.arange(count, dtype=float))
    out = b.accessor(np.ones((count, 3)), "VEC3",
                     sparse=(indices, np.zeros((len(indices), 3)), index_component))
    b.animation([(b.node("n"), "scale", times, out, "STEP")])
    return b


@pytest.mark.parametrize("change, message", [
    (lambda s: None, None),
    (lambda s: s["indices"].update(componentType=FLOAT),
     "accessors[1].sparse.indices.componentType: is 5126 (sparse indices must be 5121, 5123 or 5125)"),
    (lambda s: s.update(count=4), "accessors[1].sparse.count: is 4, more than the accessor's count 3"),
    (lambda s: s.update(count=3), "accessors[1].sparse.indices: needs 6 bytes of bufferViews[2]"),
    (lambda s: s["values"].update(byteOffset=4), "accessors[1].sparse.values: needs 28 bytes"),
    (lambda s: s.pop("values"), "accessors[1].sparse.values: missing"),
    (lambda s: s["indices"].pop("bufferView"), "accessors[1].sparse.indices.bufferView: missing"),
])
def test_bad_sparse_blocks(change, message):
    b = sparse_builder([0, 2])
    doc = b.document()
    change(doc["accessors"][1]["sparse"])
    if message is None:
        assert gltf.load_bytes(glb(doc, bytes(b.blob)))
        return
    with pytest.raises(ValueError, match=re.escape(message)):
        gltf.load_bytes(glb(doc, bytes(b.blob)))


@pytest.mark.parametrize("indices, message", [
    ([2, 1], "indices: must be strictly increasing (index 1 at position 1 after 2)"),
    ([1, 1], "indices: must be strictly increasing (index 1 at position 1 after 1)"),
    ([0, 3], "indices: index 3 at position 1 is out of range for an accessor of count 3"),
])
def test_bad_sparse_indices(indices, message):
    with pytest.raises(ValueError, match=re.escape(f"accessors[1].sparse.{message}")):
        gltf.load_bytes(sparse_builder(indices).glb_bytes())


def test_huge_accessor_without_buffer_view_is_rejected():
    b = Builder()
    b.animation([(b.node("n"), "scale", b.accessor(None, with_view=False, count=2**40,
                                                   sparse=([0], [1.0], UNSIGNED_INT)),
                  b.accessor(np.ones((2, 3)), "VEC3"), "STEP")])
    with pytest.raises(ValueError, match=re.escape(
            "accessors[0].count: is 1099511627776 without a bufferView, but the sparse block "
            "stores only 1 elements (at most 2 accepted when nothing else fixes the count) "
            "(read for animations[0].samplers[0].input)")):
        gltf.load_bytes(b.glb_bytes())


def test_sparse_key_times_without_buffer_view_load():
    b = Builder()  # times 0, 0.5, 1, 2: the first zero is implicit
    times = b.accessor(None, with_view=False, count=4, sparse=([1, 2, 3], [0.5, 1, 2]))
    b.animation([(b.node("n"), "scale", times, np.ones((4, 3)), "LINEAR")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    np.testing.assert_array_equal(clip.channels[0].times, [0, 0.5, 1, 2])


def viewless_weights(count, mesh_targets=None):
    """A file whose weights output has no bufferView and declares ``count`` elements."""
    b = Builder()
    extra = {}
    if mesh_targets is not None:
        b.morph_mesh(mesh_targets)
        extra["mesh"] = 0
    node = b.node("face", **extra)
    output = b.accessor(None, with_view=False, count=count)
    b.animation([(node, "weights", [0, 1], output, "LINEAR")])
    return b.glb_bytes()


def test_viewless_weights_of_a_node_without_mesh_are_bounded_by_the_file():
    data = viewless_weights(2**20)  # would be 2**19 zero weights per key
    assert len(data) < 600
    with pytest.raises(gltf.GltfError, match=re.escape(
            "accessors[0].count: is 1048576 without a bufferView, but the sparse block stores "
            "only 0 elements (at most 1 accepted when nothing else fixes the count) (read for "
            "animations[0].samplers[0].output)")):
        gltf.load_bytes(data)


def test_viewless_weights_count_is_checked_against_the_mesh_before_decoding():
    import tracemalloc

    data = viewless_weights(2**26, mesh_targets=2)  # under 1 kB, asking for 512 MiB
    tracemalloc.start()
    try:
        with pytest.raises(gltf.GltfError, match=re.escape(
                "animations[0].samplers[0].output: accessor 2 has 67108864 elements, "
                "expected 2 keys x 2 morph weights")):
            gltf.load_bytes(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    # the same layout with the count the mesh allows loads, as zeros
    (clip,) = gltf.load_bytes(viewless_weights(4, mesh_targets=2))
    np.testing.assert_array_equal(clip.channels[0].sample([0, 0.5]), np.zeros((2, 2)))


def test_implicit_zeros_are_bounded_by_the_size_of_the_file():
    # the mesh allows 3000 weights and the file 2000 keys: 6 million zeros from
    # a file of a few tens of kilobytes
    b = Builder()
    b.doc["meshes"] = [{"primitives": [], "weights": [0] * 3000}]
    node = b.node("face", mesh=0)
    keys = 2000
    output = b.accessor(None, with_view=False, count=keys * 3000)
    b.animation([(node, "weights", np.arange(keys, dtype=float), output, "STEP")])
    data = b.glb_bytes()
    with pytest.raises(gltf.GltfError, match=re.escape(
            f"accessors[0].count: is 6000000 without a bufferView: 6000000 implicit zeros, "
            f"more than the {max(2**20, 16 * len(data))} a file of {len(data)} bytes may ask "
            f"for (read for animations[0].samplers[0].output)")):
        gltf.load_bytes(data)


def test_decoding_never_allocates_much_more_than_the_file_holds():
    import tracemalloc

    data = sample_builder().glb_bytes()
    rng = np.random.default_rng(7)
    doc = json.loads(data[20:20 + struct.unpack_from("<I", data, 12)[0]])
    tracemalloc.start()
    try:
        for _ in range(200):  # random counts on every accessor
            damaged = copy.deepcopy(doc)
            for accessor in damaged["accessors"]:
                accessor["count"] = int(rng.choice([1, 2, 3, 4, 2**16, 2**26, 2**40]))
                if rng.random() < 0.3:
                    accessor.pop("bufferView", None)
            try:
                gltf.load_bytes(glb(damaged, bytes(sample_builder().blob)))
            except gltf.GltfError:
                pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * len(data) + (1 << 20)


def test_sparse_view_with_stride_is_rejected():
    b = sparse_builder([0, 2])
    b.doc["bufferViews"][2]["byteStride"] = 4
    with pytest.raises(ValueError, match=re.escape(
            "bufferViews[2].byteStride: must not be defined for sparse data (accessors[1].sparse.indices)")):
        gltf.load_bytes(b.glb_bytes())


GLB = good().glb_bytes()


@pytest.mark.parametrize("data, message", [
    (b"", "GLB header: file has 0 bytes, a GLB header needs 12"),
    (b"glTF\x02\x00", "GLB header: file has 6 bytes"),
    (b"GLTF" + GLB[4:], "GLB header: magic is b'GLTF', expected b'glTF'"),
    (GLB[:4] + struct.pack("<I", 1) + GLB[8:], "GLB header: version is 1, expected 2"),
    (GLB[:-4], f"GLB header: declares {len(GLB)} bytes but the file has {len(GLB) - 4} (truncated)"),
    (GLB[:8] + struct.pack("<I", len(GLB) + 4) + GLB[12:] + b"\0" * 4,
     f"GLB chunk 2: header at byte {len(GLB)} is cut off by the end of the file (truncated)"),
    (GLB[:8] + struct.pack("<I", 12) + GLB[12:], "GLB chunk 0: missing"),
    (GLB[:12] + struct.pack("<I", 10**6) + GLB[16:], "GLB chunk 0: declares 1000000 bytes"),
    (GLB[:16] + b"BIN\0" + GLB[20:], "GLB chunk 0: type is 0x004E4942, the first chunk must be JSON"),
    (GLB[:20] + b"[" + GLB[21:], "GLB chunk 0: is not valid JSON"),
    (GLB[:20] + b"\xff" + GLB[21:], "GLB chunk 0: is not UTF-8 text"),
])
def test_malformed_glb_container(tmp_path, data, message):
    path = tmp_path / "x.glb"
    path.write_bytes(data)
    with pytest.raises(gltf.GltfError, match=re.escape(f"{path}: {message}")):
        gltf.load(path)


def test_zero_size_extra_glb_chunk_is_fine(tmp_path):
    # only a cut-off chunk is an error (see the truncated header case above)
    path = tmp_path / "x.glb"
    path.write_bytes(GLB[:8] + struct.pack("<I", len(GLB) + 8) + GLB[12:] + b"\0" * 8)
    assert [c.name for c in gltf.load(path)] == ["a"]


def test_glb_without_bin_chunk_and_buffer_without_uri():
    doc = good().document()
    with pytest.raises(ValueError, match=re.escape("buffers[0].uri: missing")):
        gltf.load_bytes(glb(doc, None))


def test_glb_bin_chunk_shorter_than_the_buffer():
    b = good()
    doc = b.document()
    with pytest.raises(ValueError, match=re.escape(
            "buffers[0].byteLength: is 156 but the GLB binary chunk has only 100 bytes (truncated)")):
        gltf.load_bytes(glb(doc, bytes(b.blob[:100])))


@pytest.mark.parametrize("text, message", [
    ("{", "JSON: is not valid JSON (Expecting property name enclosed in double quotes at line 1"),
    ("[1, 2]", "JSON: must be a JSON object, got an array"),
    ("[" * 100000, "JSON: is not valid JSON"),
])
def test_malformed_json_text(tmp_path, text, message):
    path = tmp_path / "x.gltf"
    path.write_text(text)
    with pytest.raises(gltf.GltfError, match=re.escape(message)):
        gltf.load(path)


def test_compressed_buffer_view_is_a_clear_error():
    b = good()
    b.doc["bufferViews"][3]["extensions"] = {"EXT_meshopt_compression": {"buffer": 0}}
    with pytest.raises(ValueError, match=re.escape(
            "bufferViews[3].extensions: the data is compressed with EXT_meshopt_compression, "
            "which animcore does not decode (decompress the file first, e.g. with gltfpack "
            "-noq or gltf-transform) (read for animations[0].samplers[0].output)")):
        gltf.load_bytes(b.glb_bytes())


def test_external_buffer_in_memory_is_a_clear_error():
    doc = good().document("data.bin")
    with pytest.raises(ValueError, match="refers to the external file 'data.bin', which cannot"):
        gltf.load_bytes(json.dumps(doc).encode())


def external(tmp_path, uri, blob_at=None):
    """good() as tmp_path/art/a.gltf whose buffer URI is ``uri``; the buffer's
    bytes are written to ``blob_at`` (a path) if given."""
    b = good()
    folder = tmp_path / "art"
    folder.mkdir(exist_ok=True)
    if blob_at is not None:
        pathlib.Path(blob_at).write_bytes(bytes(b.blob))
    path = folder / "a.gltf"
    path.write_text(json.dumps(b.document(uri)))
    return path


def test_external_buffer_reads_only_byte_length_bytes(tmp_path):
    path = external(tmp_path, "a.bin", tmp_path / "art" / "a.bin")
    with open(tmp_path / "art" / "a.bin", "ab") as stream:
        stream.write(b"\xff" * 10**6)  # trailing bytes beyond byteLength are not read
    (clip,) = gltf.load(path)
    np.testing.assert_array_equal(clip.sample(1.0)[("t", "translation")], [1, 1, 1])


@pytest.mark.skipif(sys.platform == "win32", reason="needs resource.setrlimit (POSIX)")
@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="AddressSanitizer's shadow memory needs more address space than "
                           "the limit leaves (.ci/sanitized)")
def test_external_buffer_declaring_more_than_the_file_holds_allocates_nothing_for_it(tmp_path):
    # a byteLength of 2^40 beside a small file: the read once asked the
    # allocator for 2^40 bytes first (a MemoryError; 3 GiB of address space)
    path = external(tmp_path, "a.bin", tmp_path / "art" / "a.bin")
    doc = json.loads(path.read_text())
    doc["buffers"][0]["byteLength"] = 2**40
    path.write_text(json.dumps(doc))
    code = ("import resource, sys; from animcore import gltf\n"
            "resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))\n"
            "try: gltf.load(sys.argv[1])\n"
            "except gltf.GltfError as e: print(e)\n")
    result = subprocess.run([sys.executable, "-c", code, str(path)], timeout=60,
                            capture_output=True, text=True)
    assert "buffers[0].byteLength: is 1099511627776 but 'a.bin' has only" in result.stdout, \
        result.stderr


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_external_buffer_from_a_device_is_rejected(tmp_path):
    path = external(tmp_path, "/dev/zero")
    with pytest.raises(gltf.GltfError, match=re.escape("buffers[0].uri: '/dev/zero' is not a "
                                                       "regular file")):
        gltf.load(path, allow_outside=True)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
def test_external_buffer_from_a_fifo_neither_blocks_nor_loads(tmp_path):
    path = external(tmp_path, "pipe.bin")
    os.mkfifo(tmp_path / "art" / "pipe.bin")
    code = ("import sys; from animcore import gltf\n"
            "try: gltf.load(sys.argv[1])\n"
            "except gltf.GltfError as e: print(e)\n")
    result = subprocess.run([sys.executable, "-c", code, str(path)], cwd=tmp_path, timeout=30,
                            capture_output=True, text=True)
    assert "buffers[0].uri: 'pipe.bin' is not a regular file" in result.stdout, result.stderr


@pytest.mark.parametrize("uri", ["../secret.bin", "%2E%2E/secret.bin", "sub/../../secret.bin",
                                 "ABSOLUTE"])
def test_external_uri_outside_the_folder_is_rejected_by_default(tmp_path, uri):
    secret = tmp_path / "secret.bin"
    if uri == "ABSOLUTE":
        uri = str(secret)
    path = external(tmp_path, uri, secret)
    with pytest.raises(gltf.GltfError) as info:
        gltf.load(path)
    message = str(info.value)
    assert f"buffers[0].uri: {uri!r} lies outside the folder the file may read from (pass " \
           "base_dir= a wider folder or allow_outside=True)" in message
    assert str(secret) not in message.replace(repr(uri), "")  # no resolved path leaks
    # a wider base_dir, or allow_outside, reads it
    for kwargs in ({"base_dir": tmp_path}, {"allow_outside": True}):
        (clip,) = gltf.load(path, **kwargs)
        assert clip.name == "a"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_symbolic_link_leaving_the_folder_is_rejected(tmp_path):
    path = external(tmp_path, "link.bin", tmp_path / "secret.bin")
    os.symlink(tmp_path / "secret.bin", tmp_path / "art" / "link.bin")
    with pytest.raises(gltf.GltfError, match=re.escape("'link.bin' lies outside the folder")):
        gltf.load(path)
    assert gltf.load(path, base_dir=tmp_path)[0].name == "a"


def test_load_bytes_confines_uris_to_its_base_dir(tmp_path):
    path = external(tmp_path, "../secret.bin", tmp_path / "secret.bin")
    with pytest.raises(gltf.GltfError, match=re.escape("'../secret.bin' lies outside")):
        gltf.load_bytes(path.read_bytes(), base_dir=path.parent)
    assert gltf.load_bytes(path.read_bytes(), base_dir=path.parent, allow_outside=True)


@pytest.mark.parametrize("uri", ["a%00.bin", "a\x00.bin"])
def test_nul_in_an_external_uri_is_a_gltf_error(tmp_path, uri):
    path = external(tmp_path, uri)
    with pytest.raises(gltf.GltfError, match=re.escape(f"buffers[0].uri: {uri!r} contains a "
                                                       "NUL character")):
        gltf.load(path)


def test_missing_external_buffer_quotes_the_uri_not_the_path(tmp_path):
    path = external(tmp_path, "gone.bin")
    with pytest.raises(gltf.GltfError) as info:
        gltf.load(path)
    assert str(info.value).endswith("buffers[0].uri: cannot read 'gone.bin' (No such file or "
                                    "directory) (read for animations[0].samplers[0].input)")


def test_integer_literal_beyond_the_digit_limit_is_a_gltf_error():
    text = json.dumps(good().document(data_uri(good().blob))).replace(
        '"count": 3', '"count": ' + "9" * 5000, 1)
    with pytest.raises(gltf.GltfError, match=re.escape("<bytes>: JSON: is not valid JSON "
                                                       "(Exceeds the limit")):
        gltf.load_bytes(text.encode())


def test_signaling_nan_in_a_float_accessor_is_a_silent_gltf_error():
    b = good()
    doc = b.document()
    blob = bytearray(b.blob)
    start = doc["bufferViews"][3]["byteOffset"]
    blob[start + 4:start + 8] = struct.pack("<I", 0x7FA00000)  # signaling NaN payload
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(gltf.GltfError, match=re.escape(
                "animations[0].samplers[0].output: accessor 3 element 0 component 1 is nan "
                "(must be finite)")):
            gltf.load_bytes(glb(doc, bytes(blob)))


def test_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        gltf.load(tmp_path / "nope.gltf")


def test_every_truncation_of_a_glb_is_a_value_error():
    data = sample_builder().glb_bytes()
    for n in range(0, len(data), 7):
        with pytest.raises(gltf.GltfError):
            gltf.load_bytes(data[:n])


JUNK = st.one_of(st.none(), st.booleans(), st.integers(-3, 2**40), st.floats(allow_nan=True),
                 st.text(max_size=3), st.just([]), st.just({}), st.just([0, 1]))


def json_paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from json_paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from json_paths(v, prefix + (i,))


SAMPLE_DOC = sample_builder().document()
SAMPLE_BLOB = bytes(sample_builder().blob)
SAMPLE_PATHS = [p for p in json_paths(SAMPLE_DOC) if p]


@settings(max_examples=150)
@given(st.lists(st.tuples(st.sampled_from(SAMPLE_PATHS), JUNK), min_size=1, max_size=3))
def test_random_json_damage_is_a_value_error_or_loads(changes):
    doc = copy.deepcopy(SAMPLE_DOC)
    for where, value in changes:
        try:
            # a copy: st.just() hands out one shared object, which a later change could
            # otherwise write into (even into itself)
            set_in(doc, where, copy.deepcopy(value))
        except (KeyError, IndexError, TypeError):
            pass  # an earlier change removed the parent
    try:
        gltf.load_bytes(glb(doc, SAMPLE_BLOB))
    except gltf.GltfError:
        pass


@settings(max_examples=100)
@given(st.integers(0, len(GLB) - 1), st.integers(0, 255))
def test_random_byte_damage_is_a_value_error_or_loads(position, byte):
    data = bytearray(GLB)
    data[position] = byte
    try:
        gltf.load_bytes(bytes(data))
    except gltf.GltfError:
        pass


# ------------------------------------------------------------ the built-in sample

def test_sample_ships_with_the_package():
    resource = importlib.resources.files("animcore").joinpath("data", "sample.gltf")
    assert resource.is_file() and resource == gltf.sample_path()
    text = (ROOT / "pyproject.toml").read_text()
    block = text.split("[tool.setuptools.package-data]", 1)[1]
    assert re.search(r'"animcore\.data"\s*=\s*\[[^\]]*"\*"', block)


def test_sample_is_what_the_writer_generates():
    shipped = json.loads(gltf.sample_path().read_text())
    b = sample_builder()
    assert shipped["animations"] == b.doc["animations"]
    clips = gltf.load_sample()
    assert [c.name for c in clips] == ["walk", "blink"]
    walk = clips[0]
    assert walk.duration == 1.5
    assert [(c.target, c.path, c.interpolation) for c in walk.channels] == [
        ("root", "translation", "LINEAR"), ("hips", "rotation", "LINEAR"),
        ("spine", "rotation", "CUBICSPLINE"), ("hand", "scale", "STEP"),
        ("face", "weights", "LINEAR")]
    t = np.linspace(-0.1, 1.6, 50)
    for ch in walk.channels + clips[1].channels:
        expected = gltf_spec_sample(ch.times, ch.output, ch.interpolation, t,
                                    rotation=ch.path == "rotation")
        got = ch.sample(t)
        if ch.path == "rotation":
            got = got * np.sign(np.sum(got * expected, axis=1, keepdims=True))
        np.testing.assert_allclose(got, expected, atol=1e-12)


# ------------------------------------------------------------ bake

@pytest.mark.parametrize("duration, fps, expected", [
    (1.5, 30, np.arange(46) / 30),
    (0.1, 30, np.append(np.arange(3) / 30, 0.1)),
    (float(np.float32(0.4)), 30, np.append(np.arange(12) / 30, float(np.float32(0.4)))),
    (float(np.float32(0.1)) * 3, 10, np.append(np.arange(3) / 10, float(np.float32(0.1)) * 3)),
    (1.51, 30, np.append(np.arange(46) / 30, 1.51)),
    (0.0, 24, [0.0]),
    (1.0, 0.75, [0.0, 1.0]),
])
def test_frame_grid(duration, fps, expected):
    grid = bake.frame_times(duration, fps)
    np.testing.assert_array_equal(grid, expected)
    assert grid[-1] == duration and np.all(np.diff(grid) > 0)


@pytest.mark.parametrize("fps", [0, -1, np.inf, np.nan])
def test_frame_grid_rejects_bad_fps(fps):
    with pytest.raises(ValueError, match=r"^frame_times: fps is .* \(must be a finite number > 0\)"):
        bake.frame_times(1.0, fps)


def run_cli(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(pathlib.Path(animcore.__file__).resolve().parent.parent),
                      os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "animcore", "bake", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, env=env)


def test_bake_npz_end_to_end(tmp_path):
    b = Builder()
    n = b.node("n")
    b.animation([(n, "translation", [0, 0.25, 1.0], [[0, 0, 0], [1, 2, 3], [-1, 0, 5]],
                  "LINEAR")], name="move")
    b.animation([(n, "scale", [0, 0.5], [[1] * 3, [2] * 3], "STEP")], name="pop")
    src = b.write_glb(tmp_path / "in.glb")
    result = run_cli(src, "--fps", 10, "--out", tmp_path / "o.npz")
    assert result.returncode == 0, result.stderr
    assert "baked 2 clip(s), 2 channel(s), 17 frame(s) at 10 fps" in result.stdout
    with np.load(tmp_path / "o.npz") as z:
        assert sorted(z.files) == ["move/n/translation", "move/time", "pop/n/scale", "pop/time"]
        np.testing.assert_allclose(z["move/time"], np.arange(11) / 10, atol=1e-15)
        expected = gltf_spec_sample([0, 0.25, 1.0], [[0, 0, 0], [1, 2, 3], [-1, 0, 5]],
                                    "LINEAR", np.arange(11) / 10)
        np.testing.assert_allclose(z["move/n/translation"], expected, atol=1e-12)
        np.testing.assert_array_equal(z["pop/n/scale"], [[1] * 3] * 5 + [[2] * 3])


def test_bake_csv_layout(tmp_path):
    out = tmp_path / "o.csv"
    result = run_cli("--fps", 20, "--out", out)
    assert result.returncode == 0, result.stderr
    rows = list(csv.reader(out.open()))
    header = rows[0]
    assert header[:6] == ["clip", "frame", "time", "root/translation/x", "root/translation/y",
                          "root/translation/z"]
    assert "hips/rotation/w" in header and "face/weights/1" in header
    walk = [r for r in rows[1:] if r[0] == "walk"]
    blink = [r for r in rows[1:] if r[0] == "blink"]
    assert len(walk) == 31 and len(blink) == 9
    clips = {c.name: c for c in gltf.load_sample()}
    t = np.array([float(r[2]) for r in walk])
    np.testing.assert_allclose(t, np.arange(31) / 20, atol=1e-15)
    for target, path in [("root", "translation"), ("hips", "rotation"), ("face", "weights")]:
        cols = [i for i, h in enumerate(header) if h.startswith(f"{target}/{path}/")]
        got = np.array([[float(r[i]) for i in cols] for r in walk])
        # values are written at float32, the precision glTF stores
        np.testing.assert_array_equal(got.astype(np.float32),
                                      clips["walk"].channel(target, path).sample(t).astype(np.float32))
    col = header.index("root/translation/x")
    assert all(r[col] == "" for r in blink)  # blink does not move the root


def test_bake_default_sample_without_file(tmp_path):
    result = run_cli("--out", "baked.npz", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "from the built-in sample" in result.stdout
    with np.load(tmp_path / "baked.npz") as z:
        assert z["walk/hips/rotation"].shape == (46, 4)
        assert z["blink/face/weights"].shape == (13, 2)


def test_bake_writes_to_the_named_file_whatever_the_case_of_its_extension(tmp_path):
    result = run_cli("--out", "Baked.NPZ", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Baked.NPZ"]
    with np.load(tmp_path / "Baked.NPZ") as z:
        assert z["walk/hips/rotation"].shape == (46, 4)


def test_bake_without_out_prints_a_summary(tmp_path):
    result = run_cli(cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "clip 'walk': 1.5 s, 46 frames" in result.stdout
    assert "root/translation" in result.stdout and "last (1.6, 0, 0)" in result.stdout
    assert list(tmp_path.iterdir()) == []


def test_bake_progress_bar(tmp_path):
    result = run_cli("--fps", 240, "--clip", "walk", "--progress", "always",
                     "--out", tmp_path / "o.npz")
    assert result.returncode == 0, result.stderr
    assert "100% (1805/1805 channel frames)" in result.stderr
    result = run_cli("--fps", 10, "--progress", "always", "--out", tmp_path / "o.csv")
    assert "write [" in result.stderr and "100% (21/21 rows)" in result.stderr
    assert run_cli("--out", tmp_path / "o.npz").stderr == ""  # not a terminal: no bar


@pytest.mark.parametrize("args, status, message", [
    (["--clip", "run", "--out", "x.npz"], 1, "no clip named 'run' (available: 'walk', 'blink')"),
    (["--out", "x.json"], 2, "--out must end in .npz or .csv, got 'x.json'"),
    (["--fps", "0", "--out", "x.npz"], 2, "fps is 0.0 (must be a finite number > 0)"),
    (["nope.glb", "--out", "x.npz"], 1, "[Errno 2] No such file or directory"),
    (["--fps", "fast"], 2, "argument --fps: invalid float value: 'fast'"),
])
def test_bake_errors_exit_2_for_arguments_and_1_for_data(tmp_path, args, status, message):
    result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == status
    assert f"bake: error: {message}" in result.stderr
    assert result.stderr.startswith("usage: ") == (status == 2)
    assert not (tmp_path / "x.npz").exists()


@pytest.mark.parametrize("name", ["o.npz", "o.csv"])
def test_bake_unwritable_out_exits_1(tmp_path, name):
    out = tmp_path / "missing dir" / name
    result = run_cli("--out", out, cwd=tmp_path)
    assert result.returncode == 1
    assert f"bake: error: cannot write {str(out)!r} (No such file or directory)" in result.stderr


def test_bake_malformed_file_names_the_location(tmp_path):
    path = tmp_path / "bad.gltf"
    doc = good().document("data:application/octet-stream;base64,")
    doc["animations"][0]["samplers"][0]["interpolation"] = "BEZIER"
    path.write_text(json.dumps(doc))
    result = run_cli(path, "--out", tmp_path / "o.npz")
    assert result.returncode == 1
    assert "animations[0].samplers[0].interpolation: 'BEZIER' is not LINEAR" in result.stderr


def test_demo_lines_show_the_per_second_tangent_rule():
    from animcore import demo

    (line,) = demo.gltf_lines()
    assert "w(mid)=0.6125 | tangent not scaled by td: w(mid)=1.25" in line
    # 0.6125 = 1/2 + td * 6 / 8 with td = 0.15 s (Appendix C), checked by the reference:
    blink = gltf.load_sample()[1].channels[0]
    mid = (blink.times[0] + blink.times[1]) / 2
    assert gltf_spec_sample(blink.times, blink.output, "CUBICSPLINE", mid)[0] == pytest.approx(
        0.6125, abs=1e-7)


def test_bake_csv_quotes_names_and_reads_back(tmp_path):
    b = Builder()
    b.animation([(b.node('arm, "left"'), "scale", [0, 0.1], [[1] * 3, [2] * 3], "LINEAR")],
                name="a,b")
    clips = gltf.load_bytes(b.glb_bytes())
    arrays = bake.bake(clips, 20)
    bake.write_csv(tmp_path / "o.csv", clips, arrays)
    rows = list(csv.reader((tmp_path / "o.csv").open()))
    assert rows[0][3] == 'arm, "left"/scale/x'
    assert [r[0] for r in rows[1:]] == ["a,b"] * 3
    np.testing.assert_array_equal(np.float32([float(r[3]) for r in rows[1:]]),
                                  arrays['a,b/arm, "left"/scale'][:, 0].astype(np.float32))


def test_bake_file_without_animations(tmp_path):
    path = tmp_path / "still.gltf"
    path.write_text(json.dumps({"asset": {"version": "2.0"}}))
    result = run_cli(path, "--out", tmp_path / "o.npz")
    assert result.returncode == 1 and "has no animations" in result.stderr


def test_decoded_keys_are_read_only_and_shared_accessors_decode_once():
    b = Builder()
    times = b.accessor([0, 1])
    n, m = b.node("n"), b.node("m")
    b.animation([(n, "scale", times, [[1] * 3, [2] * 3], "LINEAR"),
                 (m, "scale", times, [[3] * 3, [4] * 3], "LINEAR")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    a, c = clip.channels
    assert np.shares_memory(a.times, c.times)
    with pytest.raises(ValueError, match="read-only"):
        a.times[0] = 5
    with pytest.raises(ValueError, match="read-only"):
        a.output[0, 0] = 5
    # the curves read these arrays in place: no one can make them writeable
    for array in (a.times, a.output, a.curve.times, a.curve.values):
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.flags.writeable = True


@settings(max_examples=40)
@given(st.lists(st.integers(0, 4), min_size=0, max_size=3),
       st.sampled_from([np.float64, np.float32, np.int64]), st.booleans())
def test_sample_any_shape_dtype_and_layout(shape, dtype, strided):
    walk = gltf.load_sample()[0]
    rng = np.random.default_rng(len(shape))
    t = rng.uniform(-0.5, 2.0, size=[2 * n if strided else n for n in shape]).astype(dtype)
    if strided:
        t = t[tuple(slice(None, None, 2) for _ in shape)]
    before = t.copy()
    got = walk.sample(t)
    assert np.array_equal(t, before)
    for ch in walk.channels:
        value = got[(ch.target, ch.path)]
        assert value.shape == t.shape + (ch.width,)
        if t.size:
            rotation = ch.path == "rotation"
            expected = gltf_spec_sample(ch.times, ch.output, ch.interpolation, t.astype(float),
                                        rotation=rotation)
            if rotation:  # q and -q are the same rotation
                value = value * np.sign(np.sum(value * expected, axis=-1, keepdims=True))
            np.testing.assert_allclose(value, expected, atol=1e-12)


@pytest.mark.parametrize("func", ["Clip.sample", "Channel.sample"])
def test_sample_rejects_non_finite_times(func):
    walk = gltf.load_sample()[0]
    sample = walk.sample if func == "Clip.sample" else walk.channels[0].sample
    with pytest.raises(ValueError, match=re.escape(f"{func}: t at index (1, 0) is nan (must be finite)")):
        sample([[0.0], [np.nan]])
    with pytest.raises(ValueError, match=re.escape(f"{func}: t must be real numbers")):
        sample(["a"])


@settings(max_examples=60, derandomize=True)
@given(st.integers(1, 6), st.sampled_from(["STEP", "LINEAR", "CUBICSPLINE"]),
       st.sampled_from(list(WIDTH)), st.integers(0, 2**32 - 1))
def test_random_samplers_match_the_spec(keys, interpolation, path, seed):
    rng = np.random.default_rng(seed)
    times = np.cumsum(rng.uniform(0.01, 1.0, keys)) - 0.005
    per = 3 if interpolation == "CUBICSPLINE" else 1
    output = rng.normal(size=(keys * per, WIDTH[path]))
    if path == "rotation":
        output *= 0.3  # tangents small enough that the interpolated norm stays well above 0
        output[per // 2::per] /= np.linalg.norm(output[per // 2::per], axis=1, keepdims=True)
        output[per // 2::per] = F32(output[per // 2::per])
        output[per // 2::per] /= np.linalg.norm(output[per // 2::per], axis=1, keepdims=True)
    b = Builder()
    b.animation([(b.node("n"), path, times, output.ravel() if path == "weights" else output,
                  interpolation)])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    ch = clip.channels[0]
    assert ch.width == WIDTH[path] and clip.duration == F32(times[-1])
    t = np.concatenate([rng.uniform(-0.5, times[-1] + 0.5, 30), ch.times])
    expected = gltf_spec_sample(ch.times, ch.output, interpolation, t, rotation=path == "rotation")
    got = ch.sample(t)
    if path == "rotation":
        got = got * np.sign(np.sum(got * expected, axis=1, keepdims=True))
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)


def test_quantized_translation_and_scale():
    # KHR_mesh_quantization stores node animation as (normalized) integers too.
    b = Builder()
    n = b.node("n")
    times = b.accessor([0.0, 2.0])
    b.animation([(n, "translation", times, b.accessor([[1, -2, 3], [300, 0, -300]], "VEC3", SHORT),
                  "LINEAR"),
                 (n, "scale", times, b.accessor([[255, 0, 51], [0, 255, 102]], "VEC3",
                                                UNSIGNED_BYTE, normalized=True), "LINEAR")])
    (clip,) = gltf.load_bytes(b.glb_bytes())
    got = clip.sample(1.0)
    np.testing.assert_allclose(got[("n", "translation")], [150.5, -1, -148.5], atol=1e-12)
    np.testing.assert_allclose(got[("n", "scale")], [0.5, 0.5, 0.3], atol=1e-12)



def test_missing_channel_lists_what_the_clip_animates():
    walk = gltf.load_sample()[0]
    with pytest.raises(KeyError, match=r"clip 'walk' has no rotation channel for node 'hip'; "
                                       r"did you mean 'hips'\? \(it animates 'root': "
                                       r"translation; 'hips': rotation; 'spine': rotation; "
                                       r"'hand': scale; 'face': weights\)"):
        walk.channel("hip", "rotation")


def test_clip_to_dataframe():
    pd = pytest.importorskip("pandas")
    walk = gltf.load_sample()[0]
    t = np.linspace(0, 1.5, 7)
    frame = walk.to_dataframe(t)
    assert isinstance(frame, pd.DataFrame) and frame.index.name == "time"
    np.testing.assert_array_equal(frame.index.to_numpy(), t)
    assert list(frame.columns[:4]) == ["root/translation/x", "root/translation/y",
                                       "root/translation/z", "hips/rotation/x"]
    assert "face/weights/1" in frame.columns
    for channel in walk.channels:
        parts = {"translation": "xyz", "scale": "xyz", "rotation": "xyzw"}.get(channel.path)
        parts = parts or [str(i) for i in range(channel.width)]
        expected = gltf_spec_sample(channel.times, channel.output, channel.interpolation, t,
                                    rotation=channel.path == "rotation")
        got = frame[[f"{channel.target}/{channel.path}/{p}" for p in parts]].to_numpy()
        if channel.path == "rotation":  # q and -q: the same rotation
            expected = expected * np.where(np.sum(got * expected, 1) < 0, -1.0, 1.0)[:, None]
        np.testing.assert_allclose(got, expected, atol=1e-6)
    with pytest.raises(ValueError, match=r"^Clip.to_dataframe: t must be a 1-D array"):
        walk.to_dataframe([[0.0]])


def test_clip_to_dataframe_without_pandas(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"^Clip.to_dataframe needs pandas, which is not "
                                          r"installed: pip install pandas"):
        gltf.load_sample()[0].to_dataframe([0.0])


# -- save refuses what load refuses; every file it writes loads back (#27 item 14) -----

from dataclasses import replace as _replace  # noqa: E402


def _moving(times, values=None, path="translation"):
    values = np.zeros((len(times), 3)) if values is None else values
    # (a cubic Hermite curve is a CUBICSPLINE sampler, written as keys)
    curve = animcore.Curve(times, values, interpolation="cubic") if path != "rotation" else \
        animcore.RotationCurve(times, values)
    return gltf.Channel.from_curve(0, path, curve, node_name="hips")


@pytest.mark.parametrize("times, match", [
    ([-0.5, 1.0], r"^save: clips\[0\] \('c'\) channel 0 \(translation of node 0\) times at "
                  r"index \(0,\) is -0.5 \(must be >= 0\)$"),
    ([0.0, 3.5e38], r"^save: clips\[0\] \('c'\) channel 0 \(translation of node 0\) times at "
                    r"index \(1,\) is 3.5e\+38 \(must be at most 3.4028235e\+38, the largest "
                    r"float32\)$"),
])
def test_save_refuses_key_times_load_refuses(tmp_path, times, match):
    clip = gltf.Clip("c", float(times[-1]), (_moving(times),))
    with pytest.raises(ValueError, match=match):
        gltf.save(tmp_path / "c.gltf", clip)
    assert not (tmp_path / "c.gltf").exists()


def test_save_refuses_times_that_do_not_increase_and_values_that_are_not_finite(tmp_path):
    good = _moving([0.0, 0.5, 1.0])
    backwards = _replace(good, times=np.array([0.0, 0.5, 0.25]))
    with pytest.raises(ValueError, match=r"^save: clips\[0\] \('c'\) channel 0 \(translation of "
                                         r"node 0\) times at index \(2,\) is 0.25 \(must be "
                                         r"greater than the key time before it, 0.5\)$"):
        gltf.save(tmp_path / "c.gltf", gltf.Clip("c", 1.0, (backwards,)))
    output = good.output.copy()
    output[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"^save: clips\[0\] \('c'\) channel 0 \(translation of "
                                         r"node 0\) output at index \(1, 2\) is nan \(must be "
                                         r"finite\)$"):
        gltf.save(tmp_path / "c.gltf", gltf.Clip("c", 1.0, (_replace(good, output=output),)))
    output[1, 2] = 1e39  # finite, but inf in float32
    with pytest.raises(OverflowError, match=r"^save: a value does not fit in glTF's float32: "
                                            r"clips\[0\] .* output at index \(1, 2\) is 1e\+39"):
        gltf.save(tmp_path / "c.gltf", gltf.Clip("c", 1.0, (_replace(good, output=output),)))
    assert not (tmp_path / "c.gltf").exists()


def test_save_refuses_a_rotation_key_that_is_zero_in_float32(tmp_path):
    turn = _moving([0.0, 1.0], [[0, 0, 0, 1], [0, 0, 0, 1]], path="rotation")
    tiny = _replace(turn, output=np.array([[0, 0, 0, 1], [1e-46, 0, 0, 0]]))
    with pytest.raises(ValueError, match=r"^save: clips\[0\] \('c'\) channel 0 \(rotation of "
                                         r"node 0\) output at key 1 is \[0.0, 0.0, 0.0, 0.0\] in "
                                         r"glTF's float32 \(must not be a zero quaternion\)$"):
        gltf.save(tmp_path / "c.gltf", gltf.Clip("c", 1.0, (tiny,)))


def test_save_writes_a_cubic_rotation_curves_keys_as_given(tmp_path):
    # glTF splines a CUBICSPLINE rotation's stored values and normalizes only the
    # result (Appendix C): a key of length 2 weighs twice in the spline
    q = np.array([[0, 0, 0, 2.0], [0, 0, math.sqrt(0.5), math.sqrt(0.5)]])
    tangents = np.zeros((2, 4))
    curve = RotationCurve([0.0, 1.0], q, interpolation="cubic", in_tangents=tangents,
                          out_tangents=tangents)
    v = 0.5 * q[0] + 0.5 * q[1]  # at t = 0.5 both Hermite weights are 1/2
    expected = v / np.linalg.norm(v)
    path = tmp_path / "cubic.gltf"
    gltf.save(path, Clip("a", 1.0, (Channel.from_curve(0, "rotation", curve),)))
    back = gltf.load(path)[0].channels[0].curve
    np.testing.assert_allclose(curve(0.5), expected, atol=1e-15)
    np.testing.assert_allclose(back(0.5), expected, atol=1e-7)  # (float32 in the file)


def test_save_refuses_a_target_animated_twice(tmp_path):
    one = _moving([0.0, 1.0])
    with pytest.raises(ValueError, match=r"^save: clip 'c' channel 1 animates translation of "
                                         r"node 0, already animated by channel 0$"):
        gltf.save(tmp_path / "c.gltf", gltf.Clip("c", 1.0, (one, one)))


def test_save_checks_what_it_writes_against_load(tmp_path):
    # a sheared node matrix: nothing in save refuses it by itself, load does
    scene = gltf.load_scene(gltf.sample_path())
    shear = np.eye(4)
    shear[0, 1] = 0.5
    nodes = list(scene.nodes)
    nodes[2] = _replace(nodes[2], matrix=shear)
    with pytest.raises(ValueError, match=r"^save: the file would not load back: .*c.glb: "
                                         r"nodes\[2\].matrix: cannot be posed"):
        gltf.save(tmp_path / "c.glb", scene.clips, scene=_replace(scene, nodes=tuple(nodes)))
    assert not (tmp_path / "c.glb").exists()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.one_of(st.floats(-1e39, 1e39), st.sampled_from([np.nan, np.inf, 3.5e38])),
                min_size=1, max_size=5),
       st.lists(st.one_of(st.floats(-1e39, 1e39), st.sampled_from([np.nan, -np.inf])),
                min_size=1, max_size=5))
def test_every_file_save_writes_loads_back(tmp_path_factory, times, values):
    times = np.array(times)
    channel = _moving([0.0, 1.0])
    channel = _replace(channel, times=times,
                       output=np.resize(np.array(values), (len(times), 3)))
    path = tmp_path_factory.mktemp("save") / "c.glb"
    try:
        gltf.save(path, gltf.Clip("c", 1.0, (channel,)))
    except (ValueError, OverflowError) as error:
        assert str(error).startswith("save: ")
        assert not path.exists()
        return
    back = gltf.load(path)[0].channels[0]
    np.testing.assert_array_equal(back.times, times.astype(np.float32))


def _document(path):
    data = pathlib.Path(path).read_bytes()
    length = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + length])


@pytest.mark.parametrize("with_scene", [False, True])
def test_morph_weights_are_written_on_a_node_with_a_mesh_that_carries_the_targets(
        tmp_path, with_scene):
    scene = gltf.load_scene(gltf.sample_path())  # node 4 'face': 2 morph weights
    face = _replace(scene.nodes[4], weights=np.array([0.25, 0.5]), target_names=("a", "b"))
    scene = _replace(scene, nodes=scene.nodes[:4] + (face,))
    path = tmp_path / "w.glb"
    gltf.save(path, scene.clips, scene=scene if with_scene else None)
    doc = _document(path)
    # the glTF 2.0 rules: a node whose morph weights are animated has a mesh, whose
    # primitives have that many targets (each with an attribute the primitive has)
    for animation in doc["animations"]:
        for channel in animation["channels"]:
            if channel["target"]["path"] == "weights":
                mesh = doc["meshes"][doc["nodes"][channel["target"]["node"]]["mesh"]]
                for primitive in mesh["primitives"]:
                    assert len(primitive["targets"]) == 2
                    for target in primitive["targets"]:
                        assert set(target) <= set(primitive["attributes"])
                position = doc["accessors"][mesh["primitives"][0]["attributes"]["POSITION"]]
                assert "min" in position and "max" in position  # required for POSITION
    assert [("mesh" in node) for node in doc["nodes"]] == [False] * 4 + [True]
    back = gltf.load_scene(path)
    assert back.nodes[4].mesh is not None
    if with_scene:
        np.testing.assert_array_equal(back.nodes[4].weights, [0.25, 0.5])
        assert back.nodes[4].target_names == ("a", "b")
    t = np.linspace(0, 1.5, 13)
    for a, b in zip(scene.clips, back.clips):
        np.testing.assert_array_equal(b.sample(t)[("face", "weights")],
                                      a.sample(t)[("face", "weights")])


def test_morph_weight_counts_that_disagree_are_refused(tmp_path):
    scene = gltf.load_scene(gltf.sample_path())
    face = _replace(scene.nodes[4], weights=np.array([0.0, 0.0, 0.0]))
    with pytest.raises(ValueError, match=r"^save: clip 'walk' channel 4 gives node 4 2 morph "
                                         r"weights, but scene.nodes\[4\].weights gives it 3$"):
        gltf.save(tmp_path / "w.glb", scene.clips,
                  scene=_replace(scene, nodes=scene.nodes[:4] + (face,)))


def test_a_node_matrix_rounded_to_float32_loads(tmp_path):
    # a rotation written as float32 (what exporters store) is not orthonormal to 1e-9
    from scipy.spatial.transform import Rotation
    scene = gltf.load_scene(gltf.sample_path())
    turn = Rotation.from_rotvec([0.3, 1.1, -0.7])
    matrix = np.eye(4)
    matrix[:3, :3] = turn.as_matrix().astype(np.float32)
    matrix[:3, 3] = [0.1, 0.2, 0.3]
    nodes = list(scene.nodes)
    nodes[1] = _replace(nodes[1], matrix=matrix)
    gltf.save(tmp_path / "m.glb", scene.clips, scene=_replace(scene, nodes=tuple(nodes)))
    back = gltf.load_scene(tmp_path / "m.glb").nodes[1]
    np.testing.assert_array_equal(back.matrix, matrix)
    assert abs(abs(np.dot(back.rotation, turn.as_quat())) - 1) < 1e-12
    np.testing.assert_allclose(back.scale, 1.0, atol=1e-6)
