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

from .curves import Curve
from .easing import CubicBezier, ease
from .hermite import hermite
from .rotations import quat_slerp


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


def bench_curves(scale: float, repeats: int) -> list[Comparison]:
    """1,000 keys (uneven spacing), 10^6 query times, against scipy's
    CubicHermiteSpline (same keys and per-second velocities) and numpy.interp."""
    try:
        from scipy.interpolate import CubicHermiteSpline
    except ImportError:
        raise ImportError("bench curves compares against scipy, which is not installed: "
                          "pip install scipy (or animcore[bench])") from None

    rng = np.random.default_rng(0)
    keys, n = 1000, max(1, int(10**6 * scale))
    times = np.cumsum(rng.uniform(0.5, 1.5, keys))
    values, velocities = rng.normal(size=(2, keys))
    values16, velocities16 = rng.normal(size=(2, keys, 16))
    queries = np.sort(rng.uniform(times[0], times[-1], n))
    shuffled = rng.permutation(queries)

    cubic = Curve(times, values, velocities=velocities)
    spline = CubicHermiteSpline(times, values, velocities)
    cubic16 = Curve(times, values16, velocities=velocities16)
    spline16 = CubicHermiteSpline(times, values16, velocities16)
    linear = Curve(times, values, interpolation="linear")
    return [
        compare("curves cubic, 1 channel, sorted t", n, lambda: cubic(queries),
                "scipy CubicHermiteSpline", lambda: spline(queries), repeats, target=3),
        compare("curves cubic, 16 channels, sorted t", n * 16, lambda: cubic16(queries),
                "scipy CubicHermiteSpline y (K, 16)", lambda: spline16(queries), repeats,
                target=3),
        compare("curves linear, 1 channel, sorted t", n, lambda: linear(queries),
                "numpy.interp", lambda: np.interp(queries, times, values), repeats,
                target=1),
        compare("curves cubic, 1 channel, unsorted t", n, lambda: cubic(shuffled),
                "scipy CubicHermiteSpline", lambda: spline(shuffled), repeats, target=2),
    ]


def numpy_cubic_in_out(u):
    """Penner's cubic_in_out in plain NumPy, the baseline of `ease`."""
    v = 1.0 - u
    return np.where(u < 0.5, 4.0 * u * u * u, 1.0 - 4.0 * v * v * v)


def numpy_cubic_bezier(x1, y1, x2, y2, u, tol=1e-12, iterations=8):
    """CSS cubic-bezier by a vectorized Newton solve of x(t) = u in plain NumPy
    (no bisection fallback, so it does less than animcore's solver)."""
    cx = 3.0 * x1
    bx = 3.0 * (x2 - x1) - cx
    ax = 1.0 - cx - bx
    cy = 3.0 * y1
    by = 3.0 * (y2 - y1) - cy
    ay = 1.0 - cy - by
    t = u.copy()
    for _ in range(iterations):
        e = ((ax * t + bx) * t + cx) * t - u
        if np.max(np.abs(e)) <= tol:
            break
        d = (3.0 * ax * t + 2.0 * bx) * t + cx
        t -= e / np.where(d == 0.0, 1.0, d)
        np.clip(t, 0.0, 1.0, out=t)
    return ((ay * t + by) * t + cy) * t


def bench_easing(scale: float, repeats: int) -> list[Comparison]:
    n = max(1, int(10**7 * scale))
    u = np.random.default_rng(0).uniform(0.0, 1.0, n)
    curve = CubicBezier(0.25, 0.1, 0.25, 1.0)
    return [
        compare("easing ease(\"cubic_in_out\", u)", n, lambda: ease("cubic_in_out", u),
                "same formula in plain NumPy", lambda: numpy_cubic_in_out(u), repeats, target=4),
        compare("easing CubicBezier(.25, .1, .25, 1)(u)", n, lambda: curve(u),
                "vectorized NumPy Newton solve", lambda: numpy_cubic_bezier(0.25, 0.1, 0.25, 1.0, u),
                repeats, target=4),
    ]


def numpy_slerp(q0, q1, t):
    """Shortest-arc slerp of (N, 4) quaternions in plain NumPy, the baseline
    of `quat_slerp` (normalizes its inputs as quat_slerp does)."""
    q0 = q0 / np.linalg.norm(q0, axis=-1, keepdims=True)
    q1 = q1 / np.linalg.norm(q1, axis=-1, keepdims=True)
    d = np.einsum("...i,...i->...", q0, q1)
    q1 = np.where(d[..., None] < 0.0, -q1, q1)
    d = np.abs(d)
    theta = np.arccos(np.minimum(d, 1.0))
    s = np.sin(theta)
    small = s < 1e-12
    safe = np.where(small, 1.0, s)
    w0 = np.where(small, 1.0 - t, np.sin((1.0 - t) * theta) / safe)
    w1 = np.where(small, t, np.sin(t * theta) / safe)
    r = w0[..., None] * q0 + w1[..., None] * q1
    return r / np.linalg.norm(r, axis=-1, keepdims=True)


def bench_rotations(scale: float, repeats: int) -> list[Comparison]:
    n = max(1, int(10**6 * scale))
    rng = np.random.default_rng(0)
    q0, q1 = rng.normal(size=(n, 4)), rng.normal(size=(n, 4))
    t = rng.uniform(0.0, 1.0, n)
    return [
        compare("rotations quat_slerp(q0, q1, t)", n, lambda: quat_slerp(q0, q1, t),
                "shortest-arc slerp in plain NumPy", lambda: numpy_slerp(q0, q1, t),
                repeats, target=3),
    ]


# One entry per domain: name -> function(scale, repeats) returning comparisons.
CASES = {
    "hermite": bench_hermite,
    "curves": bench_curves,
    "easing": bench_easing,
    "rotations": bench_rotations,
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
