"""`python -m animcore bench`: every kernel against its baseline in one run.

Each case times the animcore call and a baseline doing the same job (plain
NumPy, scipy where it applies, a memory copy of the same bytes) in the same
process, takes the median of several repeats after a warm-up, and prints the
throughput and the speed ratio next to the target its issue sets.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .hermite import hermite
from .rootmotion import LoopTrack, RootMotionCursor


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up: caches, page faults, lazy imports
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@dataclass
class Comparison:
    kernel: str
    items: int
    seconds: float
    baseline: str
    baseline_seconds: float
    target: float | None = None  # required ratio baseline_seconds / seconds

    @property
    def ratio(self) -> float:
        return self.baseline_seconds / self.seconds

    def line(self) -> str:
        rate = self.items / self.seconds / 1e6
        target = "" if self.target is None else (
            f"  target >= {self.target:g}x {'ok' if self.ratio >= self.target else 'MISSED'}")
        return (f"{self.kernel:<44} {self.items:>10,d} items {self.seconds * 1e3:9.2f} ms "
                f"{rate:9.1f} M/s | {self.baseline:<34} {self.baseline_seconds * 1e3:9.2f} ms "
                f"| {self.ratio:6.2f}x{target}")


def compare(kernel, items, fn, baseline, baseline_fn, repeats, target=None) -> Comparison:
    return Comparison(kernel, items, median_seconds(fn, repeats), baseline,
                      median_seconds(baseline_fn, repeats), target)


def numpy_hermite(p0, p1, v0, v1, duration, elapsed):
    """The Hermite formula in plain NumPy, the baseline of `hermite`."""
    m0, m1 = duration * v0, duration * v1
    u = elapsed / duration
    u2 = u * u
    u3 = u2 * u
    position = (2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * m0 \
        + (-2 * u3 + 3 * u2) * p1 + (u3 - u2) * m1
    velocity = ((6 * u2 - 6 * u) * p0 + (3 * u2 - 4 * u + 1) * m0
                + (-6 * u2 + 6 * u) * p1 + (3 * u2 - 2 * u) * m1) / duration
    return position, velocity


def bench_hermite(scale: float, repeats: int) -> list[Comparison]:
    n = max(1, int(10**7 * scale))
    elapsed = np.random.default_rng(0).uniform(0.0, 2.0, n)
    copies = (np.empty(n), np.empty(n))

    def run():
        return hermite(0.0, 10.0, 2.0, 0.0, 2.0, elapsed)

    def copy_bytes():
        np.copyto(copies[0], elapsed)
        np.copyto(copies[1], elapsed)

    return [
        compare("hermite (scalar keys, 1-D elapsed)", n, run,
                "same formula in plain NumPy", lambda: numpy_hermite(0.0, 10.0, 2.0, 0.0, 2.0, elapsed),
                repeats, target=8),
        compare("hermite (scalar keys, 1-D elapsed)", n, run,
                "np.copyto of input into 2 outputs", copy_bytes, repeats),
    ]


def numpy_loop_delta(times, positions, t0, t1):
    """Root motion of a looping linear track in plain NumPy: np.floor splits the
    times, np.interp samples the phases; the baseline of `LoopTrack.delta`."""
    T = times[-1]
    stride = positions[-1] - positions[0]
    x0, x1 = t0 / T, t1 / T
    k0, k1 = np.floor(x0), np.floor(x1)
    u0, u1 = x0 - k0, x1 - k1
    return (k1 - k0) * stride + (np.interp(u1 * T, times, positions)
                                 - np.interp(u0 * T, times, positions))


class NumpyCursors:
    """Playback cursors (int64 cycle, phase) advanced in plain NumPy: the
    baseline of `RootMotionCursor.advance`."""

    def __init__(self, times, positions, start):
        self.times, self.positions = times, positions
        x = start / times[-1]
        self.cycle = np.floor(x).astype(np.int64)
        self.phase = x - self.cycle

    def advance(self, dt):
        T = self.times[-1]
        x = self.phase + dt / T
        dk = np.floor(x)
        u = x - dk
        motion = dk * (self.positions[-1] - self.positions[0]) + (
            np.interp(u * T, self.times, self.positions)
            - np.interp(self.phase * T, self.times, self.positions))
        self.cycle += dk.astype(np.int64)
        self.phase = u
        return motion


def bench_rootmotion(scale: float, repeats: int) -> list[Comparison]:
    rng = np.random.default_rng(0)
    keys = 30
    times = np.concatenate([[0.0], np.sort(rng.uniform(0.0, 1.2, keys - 2)), [1.2]])
    positions = np.cumsum(np.concatenate([[0.0], rng.uniform(0.01, 0.2, keys - 1)]))
    track = LoopTrack(times, positions)
    n = max(1, int(10**7 * scale))
    t0 = rng.uniform(-50.0, 50.0, n)
    t1 = t0 + rng.uniform(-3.0, 3.0, n)
    m = max(1, int(10**6 * scale))
    start = rng.uniform(0.0, 1000.0, m)
    cursors = RootMotionCursor(track, start)
    baseline = NumpyCursors(times, positions, start)
    dt = 1.0 / 60.0
    return [
        compare("rootmotion LoopTrack.delta (30 keys)", n, lambda: track.delta(t0, t1),
                "np.floor + np.interp in plain NumPy", lambda: numpy_loop_delta(times, positions, t0, t1),
                repeats, target=8),
        compare("rootmotion RootMotionCursor.advance", m, lambda: cursors.advance(dt),
                "int64 cycle + phase in plain NumPy", lambda: baseline.advance(dt),
                repeats, target=5),
    ]


# One entry per domain: name -> function(scale, repeats) returning comparisons.
CASES = {
    "hermite": bench_hermite,
    "rootmotion": bench_rootmotion,
}


def run(names=None, scale: float = 1.0, repeats: int = 5, write=print) -> list[Comparison]:
    unknown = set(names or ()) - CASES.keys()
    if unknown:
        raise ValueError(f"bench: unknown case(s) {sorted(unknown)}; known: {sorted(CASES)}")
    results = []
    write(f"animcore bench: median of {repeats} repeats, numpy {np.__version__}")
    for name, case in CASES.items():
        if names and name not in names:
            continue
        for comparison in case(scale, repeats):
            write(comparison.line())
            results.append(comparison)
    return results
