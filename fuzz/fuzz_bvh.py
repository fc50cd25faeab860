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
    harness.check_world(scene)


def _edit_word(line: bytes, rng: random.Random) -> bytes | None:
    words = line.split()
    if not words:
        return None
    words[rng.randrange(len(words))] = rng.choice(
        WORDS + [str(rng.choice([0, 1, 2, 3, 7, 10**9])).encode()])
    return b" ".join(words)


def mutate(data: bytes, pool: list[bytes], rng: random.Random) -> bytes:
    """Line and word edits (mostly), or byte edits."""
    if rng.random() < 0.3:
        return harness.mutate_bytes(data, pool, rng)
    return harness.mutate_lines(data, pool, rng, _edit_word)


def mutation_run(count: int, seed: int = 0) -> tuple[int, float]:
    return harness.mutation_run(NAME, check, seeds(), mutate, count, seed, ".bvh")


if __name__ == "__main__":
    harness.main(NAME, sys.argv, check, seeds, mutate, ".bvh", DICTIONARY)
