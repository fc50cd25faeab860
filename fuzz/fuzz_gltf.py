"""Fuzzing of the glTF reader: ``animcore.gltf.load_bytes`` on arbitrary bytes.

The contract under test: any input either loads, and then every channel
samples to finite values, or raises ``GltfError``; never another exception,
a warning, a hang or a large allocation.

Coverage-guided, with atheris (``pip install -e '.[fuzz]'``), for a bounded
time, seeding ``fuzz/corpus`` first if it is empty::

    python fuzz/fuzz_gltf.py -max_total_time=60 -dict=fuzz/gltf.dict fuzz/corpus

Any libFuzzer option works (``-runs=N``, ``-rss_limit_mb=512``, ``-jobs``...);
a crashing input is written as ``crash-*`` and replays with
``python fuzz/fuzz_gltf.py crash-<hash>``.

Without atheris, a seeded pure-Python mutation run (byte flips, splices, JSON
value replacement) checks the same contract; the test suite runs a short one::

    python fuzz/fuzz_gltf.py --mutate 20000 --seed 1
"""
from __future__ import annotations

import copy
import json
import os
import pathlib
import random
import sys
import time
import warnings

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the independent glTF writer of the tests
sys.path.insert(0, str(HERE))
import harness  # noqa: E402  (beside this file: it also puts a built checkout on the path)


def seeds() -> dict[str, bytes]:
    """Small valid files covering every decoding path: data URIs and GLB,
    sparse, strided, normalized and integer components, all interpolations."""
    import numpy as np
    from gltf_writer import (BYTE, SHORT, UNSIGNED_BYTE, UNSIGNED_SHORT, Builder, axis_angle,
                             sample_builder)

    out = {}
    sample = sample_builder()
    out["sample.glb"] = sample.glb_bytes()
    out["sample.gltf"] = json.dumps(sample.document(
        "data:application/octet-stream;base64," + __import__("base64").b64encode(
            bytes(sample.blob)).decode())).encode()

    b = Builder()
    b.morph_mesh(2)
    face = b.node("face", mesh=0)
    arm = b.node("arm")
    times = b.accessor([0.0, 0.5, 1.0, 2.0], stride=8, offset=4)
    rotations = np.array([axis_angle([0, 0, 1], a) for a in (0, 90, 180, 270)])
    b.animation([
        (arm, "rotation", times, b.accessor(np.round(rotations * 32767), "VEC4", SHORT,
                                            normalized=True), "LINEAR"),
        (arm, "translation", times, b.accessor(np.arange(12.0).reshape(4, 3), "VEC3", BYTE,
                                               stride=4), "STEP"),
        (arm, "scale", times, b.accessor(None, "VEC3", with_view=False, count=4,
                                         sparse=([1, 3], [[1, 2, 3], [4, 5, 6]])), "LINEAR"),
        (face, "weights", [0.0, 1.0], b.accessor([0, 255, 128, 0], "SCALAR", UNSIGNED_BYTE,
                                                 normalized=True), "LINEAR"),
    ], name="quantized")
    b.animation([(arm, "translation", [0.0, 1.0],
                  b.accessor(np.arange(18.0).reshape(6, 3), "VEC3", UNSIGNED_SHORT,
                             sparse=([0, 5], [[9, 9, 9], [1, 1, 1]], UNSIGNED_BYTE)),
                  "CUBICSPLINE")], name="cubic")
    out["quantized.glb"] = b.glb_bytes()
    out["empty.gltf"] = b'{"asset": {"version": "2.0"}}'
    return out


def write_seeds(directory: pathlib.Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in seeds().items():
        (directory / name).write_bytes(data)


def check(data: bytes) -> None:
    """One input: loads and samples finite, or is a GltfError. Anything else raises."""
    import numpy as np
    from animcore import gltf

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning is a bug
        try:
            clips = gltf.load_bytes(data)
        except gltf.GltfError:
            return
        for clip in clips:
            t = np.array([-1.0, 0.0, clip.duration / 3, clip.duration, clip.duration + 1])
            for (target, path), values in clip.sample(t).items():
                if not np.all(np.isfinite(values)):
                    raise AssertionError(f"{clip.name} {target} {path}: non-finite sample "
                                         f"{values}")


# ---------------------------------------------------------------- pure-Python mutation

_VALUES = [0, -1, 1, 3, 255, 65536, 2**31, 2**32 + 1, 2**40, 10**30, 0.5, -0.0, 1e308, 1e-310,
           None, True, "", "x", "../x", "/dev/zero", "a%00", "VEC4", "CUBICSPLINE",
           "data:application/octet-stream;base64,AAAA", [], {}, [0, 1]]


def _mutate_json(doc, rng: random.Random):
    """Replaces or deletes one value somewhere in a JSON document, in place."""
    node, path = doc, []
    while isinstance(node, (dict, list)) and node and rng.random() < 0.8:
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        path.append((node, key))
        node = node[key]
    if not path:
        return
    parent, key = path[-1]
    if isinstance(parent, dict) and rng.random() < 0.2:
        del parent[key]
    else:
        parent[key] = copy.deepcopy(rng.choice(_VALUES))


def _mutate_structure(data: bytes, rng: random.Random) -> bytes | None:
    """The JSON of a .gltf, or of a GLB's JSON chunk, with a few values edited
    (None if the JSON does not parse)."""
    from gltf_writer import glb

    try:
        if data[:4] == b"glTF":
            size = int.from_bytes(data[12:16], "little")
            doc = json.loads(data[20:20 + size])
            binary_start = 20 + size + 8
            binary = data[binary_start:] if len(data) > binary_start else None
        else:
            doc, binary = json.loads(data), None
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict):
        return None
    for _ in range(rng.randint(1, 3)):
        _mutate_json(doc, rng)
    return glb(doc, binary) if data[:4] == b"glTF" else json.dumps(doc).encode()


def mutate(data: bytes, corpus: list[bytes], rng: random.Random) -> bytes:
    if rng.random() < 0.35:
        mutated = _mutate_structure(data, rng)
        if mutated is not None:
            return mutated
    return harness.mutate_bytes(data, corpus, rng)


def mutation_run(executions: int, seed: int = 0) -> tuple[int, float]:
    """``executions`` mutated inputs from the seeds; returns (executions, seconds).
    Raises on the first input that breaks the contract, naming it."""
    rng = random.Random(seed)
    corpus = list(seeds().values())
    start = time.perf_counter()
    for n in range(executions):
        data = mutate(rng.choice(corpus), corpus, rng)
        try:
            check(data)
        except Exception as error:
            raise AssertionError(f"input {n} of seed {seed} ({len(data)} bytes, "
                                 f"{data[:200]!r}...) broke the contract: "
                                 f"{type(error).__name__}: {error}") from error
    return executions, time.perf_counter() - start


# ---------------------------------------------------------------- atheris

def atheris_main(argv: list[str]) -> None:
    import atheris

    with atheris.instrument_imports(include=["animcore"]):
        from animcore import gltf  # noqa: F401  instrumented for coverage

    for arg in argv[1:]:
        if not arg.startswith("-") and os.path.isdir(arg) and not os.listdir(arg):
            write_seeds(pathlib.Path(arg))
    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        # half structural (JSON-aware) edits, half libFuzzer's own byte mutations
        rng = random.Random(seed)
        if rng.random() < 0.5:
            mutated = _mutate_structure(data, rng)
            if mutated is not None and len(mutated) <= max_size:
                return mutated
        return atheris.Mutate(data, max_size)

    atheris.Setup(argv, lambda data: check(bytes(data)), custom_mutator=custom_mutator)
    atheris.Fuzz()


def main(argv: list[str]) -> None:
    if "--mutate" in argv:
        n = int(argv[argv.index("--mutate") + 1])
        seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 0
        runs, seconds = mutation_run(n, seed)
        print(f"{runs} mutated inputs in {seconds:.1f} s, no contract violation")
        return
    if "--write-seeds" in argv:
        write_seeds(pathlib.Path(argv[argv.index("--write-seeds") + 1]))
        return
    for arg in argv[1:]:  # a corpus folder named but not there yet
        if not arg.startswith("-") and not os.path.exists(arg) and not arg.startswith("crash-"):
            os.makedirs(arg)
    atheris_main(argv)


if __name__ == "__main__":
    main(sys.argv)
