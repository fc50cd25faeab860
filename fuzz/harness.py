"""What the fuzz harnesses of fuzz/ share: the bounded mutation loop, saving a
failing input, JSON-tree mutation and the atheris entry point.

Each harness (``fuzz_bvh.py``, ``fuzz_usd.py``, ``fuzz_from_dict.py``,
``fuzz_pickle.py``) defines ``check(data: bytes)`` -- the contract on one input,
which returns when the input loads (and evaluates) or is refused with the
documented error, and raises anything else -- ``seeds()`` and ``mutate(data,
pool, rng)``. This module runs them:

- :func:`mutation_run` ``count`` inputs mutated from the seeds by
  ``random.Random(seed)``: deterministic, no atheris needed (the test suite
  runs short ones). The first input that breaks the contract is written to
  ``failures`` (``$ANIMCORE_FUZZ_FAILURES``, default ``fuzz/failures/<name>``)
  and reported by an AssertionError naming the file;
- :func:`main` the command line: ``--mutate N [--seed S]``, ``--write-seeds
  DIR``, a saved input's path to replay it, or atheris (libFuzzer options and a
  corpus folder, seeded when empty from ``fuzz/corpus/<name>``, or from the
  harness's seeds where there is none).
"""
from __future__ import annotations

import copy
import hashlib
import os
import pathlib
import random
import shutil
import sys
import time
import warnings
from typing import Callable

HERE = pathlib.Path(__file__).resolve().parent
# this checkout when its extension is built in place (not its _core.pyi stub alone)
if any(p.suffix in (".so", ".pyd") for p in (HERE.parent / "animcore").glob("_core.*")):
    sys.path.insert(0, str(HERE.parent))  # (else the installed animcore)

CORPUS = HERE / "corpus"

# JSON-like values that readers and constructors meet in hostile input
HOSTILE = [0, -1, 1, 2, 3, True, False, None, 0.5, -0.0, 1e308, -1e308, 5e-324, 1e-310,
           float("nan"), float("inf"), -float("inf"), 2**63, -2**63 - 1, 10**400, "", "x",
           "cubic", "linear", "step", "bezier", "auto", "explicit", "cycle", "quad_in",
           "\x00", "é", [], {}, [0], [1, 2], [[0, 1]], [None], {"type": "Curve"},
           {"type": "Ease", "kind": "back_in"}, {"type": "CubicBezier", "points": [0, 0, 1, 1]},
           {"type": "Steps", "n": 2, "position": "end"}]


def corpus_files(name: str) -> dict[str, bytes]:
    """The committed seed corpus ``fuzz/corpus/<name>/*``."""
    folder = CORPUS / name
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def mutate_tree(tree, rng: random.Random, values=HOSTILE, edits: int = 0):
    """A deep copy of a JSON-like tree (dicts, lists, tuples) with 1 to 3 edits
    somewhere: a value replaced by a hostile one, a dict key deleted or added,
    a list item dropped or duplicated, a subtree swapped for another."""
    tree = copy.deepcopy(tree)
    for _ in range(edits or rng.randint(1, 3)):
        tree = _edit(tree, rng, values)
    return tree


def _edit(tree, rng, values):
    if not isinstance(tree, (dict, list)) or not tree or rng.random() < 0.15:
        return copy.deepcopy(rng.choice(values))
    key = rng.choice(list(tree)) if isinstance(tree, dict) else rng.randrange(len(tree))
    roll = rng.random()
    if roll < 0.6:
        tree[key] = _edit(tree[key], rng, values)
    elif roll < 0.7:
        del tree[key]
    elif roll < 0.8 and isinstance(tree, dict):
        # (a copy: edits of the tree must not reach the shared hostile values)
        tree[rng.choice(["extra", "type", "times", "values", key + "_"])] = copy.deepcopy(
            rng.choice(values))
    elif roll < 0.9 and isinstance(tree, list):
        tree.insert(key, copy.deepcopy(tree[key]))
    else:
        tree[key] = copy.deepcopy(rng.choice(values))
    return tree


def mutate_bytes(data: bytes, pool: list[bytes], rng: random.Random) -> bytes:
    """Byte-level edits: flips, deletions, insertions, splices from the pool."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        if not out:
            out.extend(rng.choice(pool)[:64])
            continue
        op, i = rng.random(), rng.randrange(len(out))
        if op < 0.4:
            out[i] = rng.randrange(256)
        elif op < 0.6:
            del out[i:i + rng.randint(1, 16)]
        elif op < 0.75:
            out[i:i] = rng.randbytes(rng.randint(1, 8))
        else:
            other = rng.choice(pool)
            j = rng.randrange(len(other)) if other else 0
            out[i:i] = other[j:j + rng.randint(1, 80)]
    return bytes(out)


def mutate_lines(data: bytes, pool: list[bytes], rng: random.Random,
                 edit_line: Callable[[bytes, random.Random], bytes | None]) -> bytes:
    """Line edits of a text format: ``edit_line(line, rng)`` (the format's own
    edit of a word or number, None to skip it; chosen 45% of the time), or a line
    deleted, duplicated, or spliced in from another seed."""
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 3)):
        if not lines:  # (every line deleted)
            break
        i = rng.randrange(len(lines))
        roll = rng.random()
        edited = edit_line(lines[i], rng) if roll < 0.45 else None
        if edited is not None:
            lines[i] = edited
        elif roll < 0.65:
            del lines[i]
        elif roll < 0.8:
            lines.insert(i, lines[rng.randrange(len(lines))])
        else:
            other = rng.choice(pool).split(b"\n")
            k = rng.randrange(len(other))
            lines[i:i] = other[k:k + rng.randint(1, 8)]
    return b"\n".join(lines)


def check_world(scene) -> None:
    """Every clip of a loaded scene at its start, middle and end: finite world
    matrices, or the documented ValueError / OverflowError."""
    import numpy as np

    for clip in scene.clips:
        try:
            world = scene.world(clip, np.array([0.0, clip.duration / 2, clip.duration]))
        except (ValueError, OverflowError):
            continue
        assert np.isfinite(world).all(), f"non-finite world matrices of clip {clip.name!r}"


def failures_folder(name: str) -> pathlib.Path:
    return pathlib.Path(os.environ.get("ANIMCORE_FUZZ_FAILURES", HERE / "failures" / name))


def save_failure(name: str, data: bytes, suffix: str = "") -> pathlib.Path:
    """Writes a failing input (named by its hash) and returns its path."""
    folder = failures_folder(name)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"failure-{hashlib.sha1(data).hexdigest()[:16]}{suffix}"
    path.write_bytes(data)
    return path


def checked(name: str, check: Callable[[bytes], None], data: bytes, suffix: str = "",
            where: str = "") -> None:
    """``check(data)`` with warnings as errors; a broken contract saves the input
    and raises an AssertionError naming the file and the error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a RuntimeWarning is a bug too
            check(data)
    except Exception as error:  # anything check() lets through breaks the contract
        path = save_failure(name, data, suffix)
        raise AssertionError(f"{name}: {where}input {path} ({len(data)} bytes, "
                             f"{data[:160]!r}...) broke the contract: "
                             f"{type(error).__name__}: {error}") from error


def mutation_run(name: str, check, seeds: dict[str, bytes], mutate, count: int, seed: int = 0,
                 suffix: str = "") -> tuple[int, float]:
    """Checks every seed, then ``count`` mutated inputs drawn with
    ``random.Random(seed)``; returns (inputs checked, seconds)."""
    rng = random.Random(seed)
    pool = list(seeds.values())
    start = time.perf_counter()
    for data in pool:
        checked(name, check, data, suffix, "seed ")
    for n in range(count):
        data = mutate(rng.choice(pool), pool, rng)
        checked(name, check, data, suffix, f"mutation {n} of seed {seed}: ")
    return len(pool) + count, time.perf_counter() - start


def main(name: str, argv: list[str], check, seeds: Callable[[], dict[str, bytes]], mutate,
         suffix: str = "", dictionary: str | None = None) -> None:
    """The command line shared by the harnesses (see the module documentation)."""
    if "--mutate" in argv:
        count = int(argv[argv.index("--mutate") + 1])
        seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 0
        runs, seconds = mutation_run(name, check, seeds(), mutate, count, seed, suffix)
        print(f"{name}: {runs} inputs in {seconds:.1f} s kept the contract")
        return
    if "--write-seeds" in argv:
        folder = pathlib.Path(argv[argv.index("--write-seeds") + 1])
        folder.mkdir(parents=True, exist_ok=True)
        for file, data in seeds().items():
            (folder / file).write_bytes(data)
        return
    files = [a for a in argv[1:] if not a.startswith("-")]
    if files and all(os.path.isfile(f) for f in files):  # replay saved inputs
        for f in files:
            checked(name, check, pathlib.Path(f).read_bytes(), suffix)
            print(f"{f}: kept the contract")
        return
    import atheris

    with atheris.instrument_imports(include=["animcore"]):
        import animcore  # noqa: F401  instrumented for coverage
    seeded = seeds()  # (made once: a harness's seeds may take a while)
    for folder in files:  # an empty corpus starts from the stored one, else from the seeds
        os.makedirs(folder, exist_ok=True)
        if not os.listdir(folder) and (CORPUS / name).is_dir():
            for p in (CORPUS / name).iterdir():
                shutil.copy(p, folder)
        elif not os.listdir(folder):
            for file, data in seeded.items():
                pathlib.Path(folder, file).write_bytes(data)

    def one_input(data: bytes) -> None:
        checked(name, check, bytes(data), suffix)

    pool = list(seeded.values())

    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)  # half ours (structure-aware), half libFuzzer's
        if rng.random() < 0.5:
            mutated = mutate(bytes(data), pool, rng)
            if len(mutated) <= max_size:
                return mutated
        return atheris.Mutate(data, max_size)

    options = list(argv) + ([f"-dict={dictionary}"] if dictionary and not any(
        a.startswith("-dict=") for a in argv) else [])
    atheris.Setup(options, one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()
