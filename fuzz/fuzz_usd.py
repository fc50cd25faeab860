"""Fuzzing of the USD reader: ``animcore.usd.load`` on USD ASCII (.usda) text.

The contract under test: any .usda file either loads, and then its clips'
world matrices sample to finite values (or a ValueError), or raises the
reader's UsdError (a ValueError naming the file and the prim, attribute or
line) or OSError; never another exception (a bare ValueError or
OverflowError, IndexError, TypeError, LinAlgError, UnicodeDecodeError,
pxr's Tf.ErrorException) or a warning other than the documented
UsdWarning. Needs OpenUSD's bindings (``pip
install usd-core``); without them the run is skipped.

Plain, deterministic run (the test suite runs a short one)::

    python fuzz/fuzz_usd.py --mutate 2000 --seed 1

Coverage-guided, with atheris, seeded from fuzz/corpus/usd::

    python fuzz/fuzz_usd.py -max_total_time=60 fuzz/work/usd

A failing input is saved (fuzz/failures/usd/, or $ANIMCORE_FUZZ_FAILURES) and
replays with ``python fuzz/fuzz_usd.py FILE``.
"""
from __future__ import annotations

import os
import random
import re
import sys
import tempfile
import warnings

import harness

NAME = "usd"
# values that change what the reader does
WORDS = [b"0", b"-1", b"1e308", b"-1e308", b"5e-324", b"nan", b"inf", b"-inf", b"1e400",
         b"()", b"[]", b"(0, 0, 0)", b"(1, 0, 0, 0)", b"(0, 0, 0, 0)", b"[0]", b"[-1]",
         b'["a"]', b'"/World"', b"</World>", b"timeCodesPerSecond = 0",
         b"timeCodesPerSecond = -24", b"startTimeCode = 1e308", b"endTimeCode = -1",
         b"xformOp:translate", b"xformOp:orient", b"xformOp:transform", b"!invert!",
         b"( (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1) )", b"{ 0: (0, 0, 0) }",
         b"{}", b"Skeleton", b"SkelAnimation", b"Xform", b"skel:animationSource",
         # properties that hold no value where one is read
         b"rel ", b".connect = </World>", b".timeSamples = { 0: </World> }", b"@a.usd@"]
_NUMBER = re.compile(rb"-?[0-9]+(\.[0-9]+)?(e-?[0-9]+)?")


def available() -> bool:
    try:
        import pxr  # noqa: F401
    except ImportError:
        return False
    return True


def seeds() -> dict[str, bytes]:
    """The committed corpus fuzz/corpus/usd."""
    return harness.corpus_files(NAME)


def check(data: bytes) -> None:
    """One .usda file: loads and samples finite, or raises UsdError/OSError."""
    import numpy as np

    from animcore import usd

    handle, path = tempfile.mkstemp(suffix=".usda")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", usd.UsdWarning)  # documented
            try:
                scene = usd.load(path)
            except (usd.UsdError, OSError):
                return
    finally:
        os.unlink(path)
    if isinstance(scene, dict):  # a stage without a Skeleton: its animated xformOps
        for key, curve in scene.items():
            t = np.array([curve.times[0], curve.times[-1]])
            try:
                values = curve(t)
            except (ValueError, OverflowError):
                continue
            assert np.isfinite(values).all(), f"non-finite values of {key}"
        return
    harness.check_world(scene)


def _edit_number(line: bytes, rng: random.Random) -> bytes | None:
    """A number replaced by a hostile one, or a word by a keyword."""
    numbers = list(_NUMBER.finditer(line))
    if numbers and rng.random() < 0.75:
        m = rng.choice(numbers)
        return line[:m.start()] + rng.choice(WORDS[:9]) + line[m.end():]
    words = line.split(b" ")
    words[rng.randrange(len(words))] = rng.choice(WORDS)
    return b" ".join(words)


def mutate(data: bytes, pool: list[bytes], rng: random.Random) -> bytes:
    """Edits of numbers, lines and words (mostly), or byte edits."""
    if rng.random() < 0.15:
        return harness.mutate_bytes(data, pool, rng)
    return harness.mutate_lines(data, pool, rng, _edit_number)


def mutation_run(count: int, seed: int = 0) -> tuple[int, float]:
    return harness.mutation_run(NAME, check, seeds(), mutate, count, seed, ".usda")


if __name__ == "__main__":
    if not available() and "--mutate" in sys.argv:
        print("fuzz_usd: OpenUSD's bindings are not installed (pip install usd-core): skipped")
        sys.exit(0)
    harness.main(NAME, sys.argv, check, seeds, mutate, ".usda")
