"""Fuzzing of compressed clips: ``CompressedClip.from_bytes`` on arbitrary bytes.

The contract under test: any input either loads, and then samples to finite
values of the right shapes (unit rotations) at times inside and outside its
samples, or raises ``ValueError`` naming ``CompressedClip.from_bytes`` and a
byte offset; never another exception, a warning, a crash, a hang or a large
allocation (the C core checks every size against the data before reading).

Coverage-guided, with atheris (``pip install -e '.[fuzz]'``), for a bounded
time (the command line of fuzz/harness.py)::

    python fuzz/fuzz_compressed.py -max_total_time=60 fuzz/corpus_compressed

Without atheris, a seeded pure-Python mutation run (byte flips, header and
track-table field edits, truncation, splices) checks the same contract; the
test suite runs a short one::

    python fuzz/fuzz_compressed.py --mutate 2000 --seed 1
"""
from __future__ import annotations

import pathlib
import random
import re
import struct
import sys
import warnings

HERE = pathlib.Path(__file__).resolve().parent

import harness  # noqa: E402  (beside this file: it puts a built checkout on the path)

NAME = "compressed"
_MESSAGE = re.compile(r"^CompressedClip\.from_bytes: data at byte \d+ is ")


def seeds() -> dict[str, bytes]:
    """Small valid layouts covering every track kind, rebuilt components,
    0-bit components and a short last segment: a two-joint clip written by
    compress, and hand-built layouts of versions 2 and 1."""
    import numpy as np

    import animcore

    nodes = (animcore.Node(0, "root", -1, (1,), np.zeros(3), np.array([0, 0, 0, 1.0]),
                           np.ones(3)),
             animcore.Node(1, "arm", 0, (), np.array([0.0, 1.0, 0.0]),
                           np.array([0, 0, 0, 1.0]), np.ones(3)))
    times = np.linspace(0.0, 1.0, 9)
    angle = np.sin(3 * times)
    rotation = np.stack([np.zeros(9), np.zeros(9), np.sin(angle / 2), np.cos(angle / 2)], -1)
    channels = (animcore.Channel.from_curve(0, "translation",
                                            animcore.Curve(times, np.stack([times] * 3, -1),
                                                           interpolation="linear")),
                animcore.Channel.from_curve(1, "rotation", animcore.RotationCurve(times, rotation)))
    clip = animcore.Clip("seed", 1.0, channels)
    scene = animcore.Scene(nodes, ((0,),), 0, (), (clip,))
    out = {"compressed.accc": animcore.compress(scene, clip, 1e-3).to_bytes()}
    out["kinds.accc"] = kinds_v2()
    out["kinds_v1.accc"] = kinds_v1()
    return out


def kinds_v2() -> bytes:
    """Layout version 2 by hand: one node with a constant translation, an
    animated rotation rebuilding x and a default scale; 3 samples in
    segments of 2 (the last one shorter), a 0-bit component."""
    header = struct.pack("<4sHHIIdd", b"ACCC", 2, 2, 1, 3, 0.0, 30.0)
    table = bytes([1, 2 | 1 << 2, 0])
    clip = struct.pack("<3f", 1.0, 2.0, 3.0) + struct.pack("<6f", 0, 1, 0, 0.5, 0, 0.1)
    first = struct.pack("<H6B", 3 | 0 << 5 | 2 << 10, 0, 255, 10, 20, 0, 255)
    first += bytes([0b10111001, 0b00000010])  # 2 samples x (3 + 0 + 2) bits
    second = struct.pack("<H6B", 1 | 1 << 5 | 1 << 10, 0, 255, 0, 255, 0, 255) + bytes([0b101])
    offsets = struct.pack("<2I", 0, len(first))
    return header + table + clip + offsets + first + second


def kinds_v1() -> bytes:
    """Layout version 1 (still read) by hand: one track of each kind on one
    node, a rotation rebuilding x, 3 bits, 2 samples."""
    header = struct.pack("<4sHHIIdd", b"ACCC", 1, 0, 1, 2, 0.0, 30.0)
    table = struct.pack("<4B4B4B", 1, 0, 0, 0, 2, 3, 1, 0, 0, 0, 0, 0)
    data = struct.pack("<3f", 1.0, 2.0, 3.0) + struct.pack("<6f", 0, 1, 0, 0.5, 0, 0.1)
    data += bytes([0b10111001, 0b00110010, 0b00000000])  # 2 samples x 3 components x 3 bits
    return header + table + data


def check(data: bytes) -> None:
    """One input: loads and samples finite unit rotations, or is the ValueError
    of the contract. Anything else raises."""
    import numpy as np

    from animcore import CompressedClip

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning is a bug
        try:
            clip = CompressedClip.from_bytes(data)
        except ValueError as error:
            if not _MESSAGE.match(str(error)):
                raise AssertionError(f"error message off the contract: {error}") from None
            return
        end = clip.start + clip.duration
        t = np.array([clip.start - 1.0, clip.start, (clip.start + end) / 2, end, end + 1.0])
        t = t[np.isfinite(t)]
        pose = clip.sample(t)
        for name, values, width in zip(("translation", "rotation", "scale"), pose, (3, 4, 3)):
            if values.shape != t.shape + (clip.nodes, width):
                raise AssertionError(f"{name} has shape {values.shape}")
        # finite float32 ranges cannot overflow float64 arithmetic: any
        # non-finite value is a bug
        if not all(np.all(np.isfinite(v)) for v in pose):
            raise AssertionError(f"non-finite sample in {data[:64]!r}...")
        norms = np.linalg.norm(pose.rotation, axis=-1)
        if norms.size and not np.allclose(norms, 1.0, atol=1e-9):
            raise AssertionError(f"rotations not unit: {norms.min()} .. {norms.max()}")


# ---------------------------------------------------------------- pure-Python mutation

_FIELDS = [(4, "<H"), (6, "<H"), (8, "<I"), (12, "<I"), (16, "<d"), (24, "<d")]
_VALUES = [0, 1, 2, 3, 16, 24, 25, 255, 65535, 2**20, 2**20 + 1, 2**28, 2**32 - 1]
_FLOATS = [0.0, -0.0, -1.0, 1e-300, 1e300, float("inf"), float("nan"), 30.0]
_ENTRIES = [0, 1, 2, 3, 4, 6, 10, 14, 16, 24, 25, 255]
_BIT_COUNTS = [0, 24, 25, 31, 24 | 24 << 5 | 24 << 10, 25 << 10, 1 << 15, 0xFFFF]


def _segment_fields(data: bytearray) -> list[tuple[int, str]]:
    """Where a version 2 layout's segment offsets and segment bit counts lie
    (as far as the bytes go), for targeted edits."""
    if len(data) < 32 or int.from_bytes(data[4:6], "little") != 2:
        return []
    length = int.from_bytes(data[6:8], "little")
    nodes = int.from_bytes(data[8:12], "little")
    samples = int.from_bytes(data[12:16], "little")
    if not length or nodes > 1000 or len(data) < 32 + 3 * nodes:
        return []
    kinds = [b & 3 for b in data[32:32 + 3 * nodes]]
    at = 32 + 3 * nodes + sum(24 if k == 2 else (16 if i % 3 == 1 else 12) if k == 1 else 0
                              for i, k in enumerate(kinds))
    segments = min(-(-samples // length), 64)
    fields = [(at + 4 * g, "<I") for g in range(segments)]
    area = at + 4 * segments
    if area + 4 <= len(data):
        start = area + int.from_bytes(data[at:at + 4], "little")
        fields += [(start + 8 * a, "<H") for a in range(kinds.count(2))]
    return [(f, fmt) for f, fmt in fields if f + struct.calcsize(fmt) <= len(data)]


def mutate(data: bytes, corpus: list[bytes], rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        if op < 0.2 and len(out) >= 32:  # a header field
            at, fmt = rng.choice(_FIELDS)
            value = rng.choice(_FLOATS if fmt == "<d" else _VALUES)
            try:
                struct.pack_into(fmt, out, at, value)
            except struct.error:
                pass
        elif op < 0.35 and len(out) > 32:  # a track-table entry
            entry = 4 if out[4:6] == b"\x01\x00" else 1
            nodes = min(int.from_bytes(out[8:12], "little"), (len(out) - 32) // (3 * entry))
            if nodes:
                out[32 + rng.randrange(3 * entry * nodes)] = rng.choice(_ENTRIES)
        elif op < 0.5 and (fields := _segment_fields(out)):  # a segment offset or bit count
            at, fmt = rng.choice(fields)
            if fmt == "<H":
                value = rng.choice(_BIT_COUNTS)
            else:
                value = int.from_bytes(out[at:at + 4], "little") + rng.choice([-1, 1, 8, 2**31])
                value = rng.choice([value % 2**32, 0, 2**32 - 1])
            struct.pack_into(fmt, out, at, value)
        elif op < 0.62 and out:
            del out[rng.randrange(len(out)):]
        elif op < 0.85 and out:
            out[rng.randrange(len(out))] = rng.randrange(256)
        else:
            other = rng.choice(corpus)
            i = rng.randrange(len(out) + 1)
            j = rng.randrange(len(other) + 1)
            out[i:i] = other[j:j + rng.randint(1, 32)]
    return bytes(out)


def mutation_run(executions: int, seed: int = 0) -> tuple[int, float]:
    """The seeds, then ``executions`` mutated inputs; returns (inputs, seconds).
    Raises on the first input that breaks the contract, naming it."""
    return harness.mutation_run(NAME, check, seeds(), mutate, executions, seed, ".accc")


if __name__ == "__main__":
    harness.main(NAME, sys.argv, check, seeds, mutate, ".accc")
