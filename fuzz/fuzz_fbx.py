"""Fuzzing of the FBX reader: ``animcore.fbx.load_bytes`` on arbitrary bytes.

The contract under test: any input either loads, and then every clip's
world matrices sample to finite values or a ValueError, or raises
``FbxError``; never another exception, a crash, a hang or a large allocation.

Coverage-guided, with atheris (``pip install atheris``), seeded with the
small shared FBX files in tests/data/fbx::

    python fuzz/fuzz_fbx.py -max_total_time=60 fuzz/corpus_fbx

Without atheris, a seeded pure-Python mutation run (byte flips, truncations,
splices of the seed files) checks the same contract::

    python fuzz/fuzz_fbx.py --mutate 2000 --seed 1
"""
from __future__ import annotations

import pathlib
import random
import sys

HERE = pathlib.Path(__file__).resolve().parent
if any((HERE.parent / "animcore").glob("_core.*")):  # this checkout, when built in place
    sys.path.insert(0, str(HERE.parent))  # (else the installed animcore)

SEEDS = ["maya_cube_6100_binary.fbx", "maya_game_sausage_7500_binary_wiggle.fbx",
         "maya_scale_no_inherit_7700_ascii.fbx", "maya_anim_interpolation_6100_ascii.fbx",
         "maya_blend_inbetween_7500_binary.fbx"]


def seeds() -> list[bytes]:
    folder = HERE.parent / "tests" / "data" / "fbx"
    return [(folder / name).read_bytes() for name in SEEDS]


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
        except ValueError:
            continue
        assert world.shape[-2:] == (4, 4)


def mutate(data: bytes, rng: random.Random, pool: list[bytes]) -> bytes:
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


def run_mutations(count: int, seed: int) -> int:
    rng = random.Random(seed)
    pool = seeds()
    for _ in range(count):
        check(mutate(rng.choice(pool), rng, pool))
    return count


def main(argv: list[str]) -> None:
    if "--mutate" in argv:
        count = int(argv[argv.index("--mutate") + 1])
        seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 0
        print(f"fuzz_fbx: {run_mutations(count, seed)} mutated inputs kept the contract")
        return
    import atheris

    with atheris.instrument_imports():
        import animcore.fbx  # noqa: F401
    corpus = [a for a in argv[1:] if not a.startswith("-")]
    if corpus:
        folder = pathlib.Path(corpus[0])
        folder.mkdir(parents=True, exist_ok=True)
        if not any(folder.iterdir()):
            for name, data in zip(SEEDS, seeds()):
                (folder / name).write_bytes(data)
    atheris.Setup(argv, lambda data: check(bytes(data)))
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
