"""Fuzzing of the FBX reader: ``animcore.fbx.load_bytes`` on arbitrary bytes.

The contract under test: any input either loads, and then every clip's
world matrices sample to finite values or a ValueError (an OverflowError
where they leave the double range), or raises
``FbxError``; never another exception, a crash, a hang or a large allocation.

Coverage-guided, with atheris (``pip install atheris``), seeded with the
small shared FBX files in tests/data/fbx::

    python fuzz/fuzz_fbx.py -max_total_time=60 fuzz/corpus_fbx

Without atheris, a seeded pure-Python mutation run (byte flips, truncations,
splices of the seed files, and in ASCII files a token replaced by an array,
a number or a string of the wrong kind) checks the same contract::

    python fuzz/fuzz_fbx.py --mutate 2000 --seed 1
"""
from __future__ import annotations

import pathlib
import random
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent

import harness  # noqa: E402  (beside this file: it puts a built checkout on the path)

SEEDS = ["maya_cube_6100_binary.fbx", "maya_game_sausage_7500_binary_wiggle.fbx",
         "maya_scale_no_inherit_7700_ascii.fbx", "maya_anim_interpolation_6100_ascii.fbx",
         "maya_blend_inbetween_7500_binary.fbx"]


NAME = "fbx"


def seeds() -> dict[str, bytes]:
    folder = HERE.parent / "tests" / "data" / "fbx"
    return {name: (folder / name).read_bytes() for name in SEEDS}


def check(data: bytes) -> None:
    """One input against the contract (raises AssertionError or the unexpected error)."""
    import numpy as np

    from animcore import fbx

    try:
        scene = fbx.load_bytes(data)
    except fbx.FbxError:
        return
    for clip in scene.clips:
        try:
            world = scene.world(clip, np.array([clip.start, clip.stop]))
        except (ValueError, OverflowError):
            continue
        assert world.shape[-2:] == (4, 4) and np.isfinite(world).all()


# What an ASCII file's token may become: arrays (empty, of numbers, of
# strings), numbers and strings of the wrong kind, extremes and the names the
# reader looks for.
ASCII_TOKENS = [b'*2 {\n a: 1,2\n}', b'*0 {\n a: \n}', b'*3 {\n a: "a","b","c"\n}', b'"x"',
                b'""', b'7', b'-1', b'0', b'1e999', b'-1e999', b'1e-320', b'L',
                b'9223372036854775807', b'"Model::x"', b'"Transform"', b'"T"', b'"X"', b'"OP"']
ASCII_TOKEN = re.compile(rb'"[^"\n]*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\b[A-Za-z_]\w*\b')


def mutate(data: bytes, pool: list[bytes], rng: random.Random) -> bytes:
    if data.startswith(b"; FBX") and rng.random() < 0.5:  # a token of an ASCII file replaced
        spans = [m.span() for m in ASCII_TOKEN.finditer(data)]
        if spans:
            start, end = rng.choice(spans)
            return data[:start] + rng.choice(ASCII_TOKENS) + data[end:]
    b = bytearray(data)
    kind = rng.randrange(4)
    if kind == 0 or len(b) < 64:
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif kind == 1:
        del b[rng.randrange(len(b)):]
    elif kind == 2:
        other = rng.choice(pool)
        at, start = rng.randrange(len(b)), rng.randrange(len(other))
        b[at:at + 64] = other[start:start + 64]
    else:
        at = rng.randrange(len(b) - 4)
        b[at:at + 4] = rng.choice([b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\x7f\xff\xff\xff"])
    return bytes(b)


def mutation_run(count: int, seed: int = 0) -> tuple[int, float]:
    """The seeds, then ``count`` mutated inputs; returns (inputs, seconds)."""
    return harness.mutation_run(NAME, check, seeds(), mutate, count, seed, ".fbx")


if __name__ == "__main__":
    harness.main(NAME, sys.argv, check, seeds, mutate, ".fbx")
