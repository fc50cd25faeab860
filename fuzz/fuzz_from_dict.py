"""Fuzzing of ``Curve.from_dict``, ``LoopTrack.from_dict`` and
``RotationCurve.from_dict`` on mutated JSON documents.

The contract under test: a JSON object either builds a track -- which then
evaluates (or raises ValueError/OverflowError, as any track may for extreme
values), and whose ``to_dict()`` builds it again -- or is refused with a
ValueError (an OverflowError for numbers float64 cannot hold, as every
constructor); never
KeyError, TypeError, AttributeError, a warning, or a track whose
``to_dict()`` fails.

Plain, deterministic run (the test suite runs a short one)::

    python fuzz/fuzz_from_dict.py --mutate 5000 --seed 1

Coverage-guided, with atheris (inputs are JSON text), seeded from
fuzz/corpus/from_dict::

    python fuzz/fuzz_from_dict.py -max_total_time=60 fuzz/work/from_dict

A failing input is saved as JSON (fuzz/failures/from_dict/, or
$ANIMCORE_FUZZ_FAILURES) and replays with ``python fuzz/fuzz_from_dict.py FILE``.
"""
from __future__ import annotations

import json
import random
import sys

import harness

NAME = "from_dict"


def documents() -> dict[str, dict]:
    """``to_dict()`` of tracks covering every field: per-segment easings,
    weights, slopes, remaps, Blender's and OpenUSD's tangents, jumps, loop
    tracks with yaw and quaternion rotations."""
    import animcore as ac

    out = {
        "curve_cubic": ac.Curve([0, 1, 2.5], [[0, 1], [2, 0], [1, 1]], after="cycle",
                                tangents="catmull_rom"),
        "curve_explicit": ac.Curve([0, 1, 1, 2], [0, 1, 3, 2], in_velocities=[1, 0, 0, 2],
                                   out_velocities=[1, 2, 0, 2], jumps=True,
                                   before="linear", after="cycle_offset"),
        "curve_blender": ac.Curve([0, 1, 2, 4], [0, 1, 0, 2], interpolation="bezier",
                                  tangents=["auto", "auto_clamped", "vector", "auto"],
                                  auto_smoothing="cont_accel"),
        "curve_auto_ease": ac.Curve([0, 1, 2], [0, 1, 0], tangents="auto_ease"),
        "curve_eased": ac.Curve([0, 1, 2, 3], [0, 1, 0, 1], interpolation=[
            "quad_in", ac.Ease("back_out", overshoot=2.0), ac.CubicBezier(0.2, 0, 0.8, 1)],
            ease=ac.Ease("elastic_in", amplitude=1.2, period=0.3)),
        "curve_remapped": ac.Curve([0, 1, 2], [0, 1, 0], interpolation="linear").remap_time(
            "sine_in_out").remap_time(ac.Curve([0, 2], [0, 2], interpolation="linear")),
        "curve_weights": ac.Curve([0, 1, 2], [0, 1, 0], interpolation="bezier",
                                  velocities=[0, 1, 0], in_weights=[0.3, 0.5, 0.2],
                                  out_weights=[0.2, 0.4, 0.3], before="sloped",
                                  before_slope=1.5, after="sloped", after_slope=-1.0),
        "curve_step": ac.Curve([0.0], [3.0], interpolation="step"),
        "loop_linear": ac.LoopTrack([0, 0.5, 1], [[0, 0, 0], [0.5, 0, 0.1], [1, 0, 0]]),
        "loop_yaw": ac.LoopTrack([0, 0.5, 1], [[0, 0, 0], [0.5, 0, 0.1], [1, 0, 0]],
                                 rotations=[0, 0.3, 0.5], interpolation="cubic", up_axis=2),
        "loop_quat": ac.LoopTrack([0, 1], [[0, 0, 0], [1, 0, 0]],
                                  rotations=[[0, 0, 0, 1], [0, 0.6, 0, 0.8]], max_cycles=100),
        "rotation": ac.RotationCurve([0, 1, 2], [[0, 0, 0, 1], [0, 0, 0.6, 0.8],
                                                 [0.6, 0, 0, 0.8]], after="oscillate"),
    }
    return {name: track.to_dict() for name, track in out.items()}


def seeds() -> dict[str, bytes]:
    """The committed corpus (fuzz/corpus/from_dict), or the documents above."""
    if (harness.CORPUS / NAME).is_dir():
        return harness.corpus_files(NAME)
    return {f"{name}.json": json.dumps(doc).encode() for name, doc in documents().items()}


def _readers():
    import animcore as ac
    return {"Curve": ac.Curve, "LoopTrack": ac.LoopTrack, "RotationCurve": ac.RotationCurve}


def check(data: bytes) -> None:
    """One JSON document through every from_dict: builds a working track or
    raises ValueError (OverflowError for a Curve); anything else raises."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):  # not JSON: the json module's business
        return
    for kind, cls in _readers().items():
        try:
            track = cls.from_dict(document)
        except (ValueError, OverflowError):  # (OverflowError: a number float64 cannot
            continue                          # hold, or a velocity computed from them)
        exercise(track)


def exercise(track) -> None:
    """Evaluates a track built from a document and round-trips it."""
    import numpy as np

    import animcore as ac

    data = track.to_dict()
    again = type(track).from_dict(json.loads(json.dumps(data)))
    assert again == track or _has_nan(data), f"{type(track).__name__} round trip differs"
    repr(track)
    try:
        if isinstance(track, ac.LoopTrack):
            track.delta(0.0, 0.7 * track.duration)
            track.sample(0.3)
            return
        t0, t1 = float(track.times[0]), float(track.times[-1])
        t = np.array([t0, (t0 + t1) / 2, t1, t1 + 1.0, t0 - 1.0])
        if isinstance(track, ac.Curve):
            for order in (0, 1, 2):
                values = track.evaluate(t, order)
                assert not np.isnan(values).any(), f"evaluates to NaN: {values}"
            track.key_slopes()
        else:
            track.evaluate(t)
            track.angular_velocity(t)
    except (ValueError, OverflowError):
        pass


def _has_nan(data) -> bool:
    return "NaN" in json.dumps(data)


def mutate(data: bytes, pool: list[bytes], rng: random.Random) -> bytes:
    """Structural edits of the JSON (mostly), or byte edits of its text."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        document = None
    if document is None or rng.random() < 0.1:
        return harness.mutate_bytes(data, pool, rng)
    if rng.random() < 0.1:  # a field of another document
        other = json.loads(rng.choice(pool))
        if isinstance(document, dict) and isinstance(other, dict) and other:
            key = rng.choice(list(other))
            document[key] = other[key]
            return json.dumps(document).encode()
    return json.dumps(harness.mutate_tree(document, rng)).encode()


def mutation_run(count: int, seed: int = 0) -> tuple[int, float]:
    return harness.mutation_run(NAME, check, seeds(), mutate, count, seed, ".json")


if __name__ == "__main__":
    harness.main(NAME, sys.argv, check, seeds, mutate, ".json")
