"""Fuzzing of the BVH reader: ``animcore.bvh.load`` on arbitrary bytes.

The contract under test: any file either loads, and then its clip's world
matrices sample to finite values (or a ValueError), or raises ``BvhError``
(a ValueError naming the file and line); never another exception, a
RuntimeWarning (a ``BvhWarning`` for dropped rows or renamed joints is
documented), a hang or an allocation by the counts the file claims.

Plain, deterministic run (the test suite runs a short one)::

    python fuzz/fuzz_bvh.py --mutate 5000 --seed 1

Coverage-guided, with atheris, seeded from fuzz/corpus/bvh::

    python fuzz/fuzz_bvh.py -max_total_time=60 -dict=fuzz/bvh.dict fuzz/work/bvh

A failing input is saved (fuzz/failures/bvh/, or $ANIMCORE_FUZZ_FAILURES) and
replays with ``python fuzz/fuzz_bvh.py FILE``.
"""
from __future__ import annotations

import os
import random
import sys
import tempfile
import warnings

import harness

NAME = "bvh"
DICTIONARY = str(harness.HERE / "bvh.dict")
# words that change what the reader does, for the mutations (and atheris's -dict)
WORDS = [b"HIERARCHY", b"ROOT", b"JOINT", b"End Site", b"OFFSET", b"CHANNELS", b"MOTION",
         b"Frames:", b"Frame Time:", b"{", b"}", b"Xposition", b"Yposition", b"Zposition",
         b"Xrotation", b"Yrotation", b"Zrotation", b"\r\n", b"\t", b"1e308", b"-1e308",
         b"5e-324", b"nan", b"inf", b"999999999", b"0", b"-0", b"\xef\xbb\xbf", b"\xff",
         b"\xd9\xa3", b"3333333", b"{\n{\n{\n{\n"]


def seeds() -> dict[str, bytes]:
    """The committed corpus fuzz/corpus/bvh."""
    return harness.corpus_files(NAME)


def check(data: bytes) -> None:
    """One file: loads and samples finite, or is a BvhError. Anything else raises."""
    import numpy as np

    from animcore import bvh

    handle, path = tempfile.mkstemp(suffix=".bvh")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bvh.BvhWarning)  # documented
            try:
                scene = bvh.load(path)
            except bvh.BvhError:
                return
    finally:
        os.unlink(path)
    for clip in scene.clips:
        try:
            world = scene.world(clip, np.array([0.0, clip.duration / 2, clip.duration]))
        except (ValueError, OverflowError):
            continue
        assert np.isfinite(world).all(), f"non-finite world matrices of clip {clip.name!r}"


def mutate(data: bytes, pool: list[bytes], rng: random.Random) -> bytes:
    """Line and word edits (mostly), or byte edits."""
    if rng.random() < 0.3:
        return harness.mutate_bytes(data, pool, rng)
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        roll = rng.random()
        words = lines[i].split()
        if roll < 0.4 and words:
            j = rng.randrange(len(words))
            words[j] = rng.choice(WORDS + [str(rng.choice([0, 1, 2, 3, 7, 10**9])).encode()])
            lines[i] = b" ".join(words)
        elif roll < 0.55:
            del lines[i]
        elif roll < 0.7:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif roll < 0.85:
            other = rng.choice(pool).split(b"\n")
            k = rng.randrange(len(other))
            lines[i:i] = other[k:k + rng.randint(1, 6)]
        else:
            lines.insert(i, rng.choice(WORDS))
    return b"\n".join(lines)


def mutation_run(count: int, seed: int = 0) -> tuple[int, float]:
    return harness.mutation_run(NAME, check, seeds(), mutate, count, seed, ".bvh")


if __name__ == "__main__":
    harness.main(NAME, sys.argv, check, seeds, mutate, ".bvh", DICTIONARY)
