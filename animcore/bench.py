"""`python -m animcore bench`: every kernel against its baseline in one run.

Each case times the animcore call and a baseline doing the same job (plain
NumPy, scipy where it applies, a memory copy of the same bytes) in the same
process (the ufbx wheel, an alpha, in a process of its own), takes the median
of several repeats after a warm-up, and prints the throughput and the speed
ratio next to the ratio each kernel must reach.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .bake import frame_times
from .contact import Body, advance_projectiles, bounce, collide
from .curves import Curve
from .easing import CubicBezier, ease
from .hermite import hermite
from .rootmotion import LoopTrack, RootMotionCursor
from .rotations import quat_multiply, quat_normalize, quat_rotate, quat_slerp, quat_to_euler
from .skeleton import Skeleton
from .snapshot import SnapshotBuffer, SnapshotTimeline


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

    def line(self, scale: float = 1.0) -> str:
        """The comparison as one line of the table. A target is set for the
        full problem size: below ``scale`` 1 a missed target is "n/a at this
        scale" (fixed costs weigh more on small problems), not MISSED."""
        rate = self.items / self.seconds / 1e6
        target = ""
        if self.target is not None:
            verdict = "ok" if self.ratio >= self.target else (
                "MISSED" if scale >= 1 else "n/a at this scale")
            target = f"  target >= {self.target:g}x {verdict}"
        return (f"{self.kernel:<44} {self.items:>10,d} items {self.seconds * 1e3:9.2f} ms "
                f"{rate:9.1f} M/s | {self.baseline:<34} {self.baseline_seconds * 1e3:9.2f} ms "
                f"| {self.ratio:6.2f}x{target}")


@dataclass
class Skipped:
    """A comparison that could not run (its peer library is absent), and why."""
    kernel: str
    reason: str

    def line(self, scale: float = 1.0) -> str:
        return f"{self.kernel:<44} skipped: {self.reason}"


@dataclass
class Budget:
    """A time against an absolute budget (a target stated in seconds, not as a
    ratio): ``seconds`` measured, ``budget`` allowed, both at full size."""
    kernel: str
    items: int
    seconds: float
    budget: float

    def line(self, scale: float = 1.0) -> str:
        verdict = ("ok" if self.seconds <= self.budget
                   else "MISSED" if scale >= 1 else "n/a at this scale")
        return (f"{self.kernel:<44} {self.items:>10,d} items {self.seconds * 1e3:9.2f} ms "
                f"| budget {self.budget * 1e3:.0f} ms {verdict}")


@dataclass
class Memory:
    """Peak memory against a budget stated as a multiple of the data's size:
    ``peak`` bytes above what the interpreter held before, ``data`` the bytes
    read and written, at most ``limit`` times them."""
    kernel: str
    peak: int
    data: int
    limit: float

    def line(self, scale: float = 1.0) -> str:
        ratio = self.peak / self.data
        verdict = ("ok" if ratio <= self.limit
                   else "MISSED" if scale >= 1 else "n/a at this scale")
        return (f"{self.kernel:<44} peak {self.peak / 1e6:8.0f} MB | file + output "
                f"{self.data / 1e6:.0f} MB | {ratio:5.2f}x  target <= {self.limit:g}x {verdict}")


def compare(kernel, items, fn, baseline, baseline_fn, repeats, target=None,
            calls: int = 1) -> Comparison:
    """fn against baseline_fn, timed in turn (see interleaved_medians)."""
    ours, theirs = interleaved_medians([fn, baseline_fn], repeats, calls)
    return Comparison(kernel, items, ours, baseline, theirs, target)


def interleaved_medians(fns, repeats: int, calls: int = 1) -> list[float]:
    """Median seconds of each function, timed in turn, one repeat of each
    (after one warm-up each): on a machine shared with other work, a change of
    load during the run then weighs on every function alike instead of on
    whichever ran through it. A repeat times ``calls`` calls in a row and
    counts their mean, as timeit does: a call of a microsecond or two is
    otherwise measured together with the clock's reads and the caches the
    other function left behind."""
    for fn in fns:
        fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for spent, fn in zip(times, fns):
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            spent.append((time.perf_counter() - start) / calls)
    return [statistics.median(spent) for spent in times]


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
    """Scalar keys on 10^7 elapsed times: against the formula in plain NumPy,
    and against the memory bound, copying the same bytes (elapsed into two
    outputs): into fresh outputs, which the baseline allocates too, and into
    the caller's (out=). Within 1.5x of the copy: a ratio >= 0.67."""
    n = max(1, int(10**7 * scale))
    elapsed = np.random.default_rng(0).uniform(0.0, 2.0, n)
    outputs = (np.empty(n), np.empty(n))

    def run():
        return hermite(0.0, 10.0, 2.0, 0.0, 2.0, elapsed)

    def run_out():
        return hermite(0.0, 10.0, 2.0, 0.0, 2.0, elapsed, out=outputs)

    def copy_fresh():
        position, velocity = np.empty(n), np.empty(n)
        np.copyto(position, elapsed)
        np.copyto(velocity, elapsed)
        return position, velocity

    def copy_out():
        np.copyto(outputs[0], elapsed)
        np.copyto(outputs[1], elapsed)

    return [
        compare("hermite (scalar keys, 1-D elapsed)", n, run,
                "same formula in plain NumPy", lambda: numpy_hermite(0.0, 10.0, 2.0, 0.0, 2.0, elapsed),
                repeats, target=8),
        compare("hermite (scalar keys, 1-D elapsed)", n, run,
                "np.empty x2 + np.copyto of elapsed", copy_fresh, repeats, target=0.67),
        compare("hermite (scalar keys, 1-D elapsed, out=)", n, run_out,
                "np.copyto of elapsed into 2 outputs", copy_out, repeats, target=0.67),
    ]


def bench_curves(scale: float, repeats: int) -> list[Comparison]:
    """1,000 keys (uneven spacing), 10^6 query times, against scipy's
    CubicHermiteSpline (same keys and per-second velocities) and numpy.interp;
    and out= against the same call into fresh outputs: no slower (>= 0.9x),
    since the curve proves the call succeeds without evaluating it twice. The
    proof reads every t before out is written, so where the evaluation itself
    is about a read of t and a write of out (sorted queries, one channel) that
    read is a third of the work: >= 0.67x there."""
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
    out = np.empty(n)
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
        compare("curves cubic, 1 channel, sorted t, out=", n, lambda: cubic(queries, out=out),
                "the same call into a fresh array", lambda: cubic(queries), repeats,
                target=0.67),
        compare("curves cubic, 1 channel, unsorted t, out=", n,
                lambda: cubic(shuffled, out=out), "the same call into a fresh array",
                lambda: cubic(shuffled), repeats, target=0.9),
    ]


# ---- keyframes ----

def numpy_bezier_track(times, values, x1, y1, x2, y2, queries, iterations=8):
    """Weighted Bezier segments in vectorized NumPy: the segment by
    searchsorted, Newton iterations (from s = u, clipped to [0, 1]) on the
    time cubic, then the value cubic. x1, x2 are each segment's normalized
    handle times, y1, y2 its handle values."""
    i = np.clip(np.searchsorted(times, queries, side="right") - 1, 0, times.size - 2)
    t0, T = times[i], times[i + 1] - times[i]
    u = (queries - t0) / T
    a1, a2 = x1[i], x2[i]
    cx, bx, ax = 3 * a1, 3 * (a2 - 2 * a1), 1 + 3 * (a1 - a2)
    s = u.copy()
    for _ in range(iterations):
        f = ((ax * s + bx) * s + cx) * s - u
        d = (3 * ax * s + 2 * bx) * s + cx
        s = np.clip(s - f / np.where(d == 0, 1.0, d), 0.0, 1.0)
    p0, p1, q1, q2 = values[i], values[i + 1], y1[i], y2[i]
    return ((1 - s) ** 3 * p0 + 3 * (1 - s) ** 2 * s * q1 + 3 * (1 - s) * s * s * q2
            + s ** 3 * p1)


def bench_keyframes(scale: float, repeats: int) -> list[Comparison]:
    """1,000 keys, 10^6 sorted queries: weighted Bezier against a vectorized
    NumPy solve; mixed segment kinds, ease= and remap_time against the plain
    cubic curve (ratios: plain / variant)."""
    rng = np.random.default_rng(1)
    keys, n = 1000, max(1, int(10**6 * scale))
    times = np.cumsum(rng.uniform(0.5, 1.5, keys))
    values, velocities = rng.normal(size=(2, keys))
    w_in, w_out = rng.uniform(0.05, 0.95, (2, keys))
    queries = np.sort(rng.uniform(times[0], times[-1], n))
    bezier = Curve(times, values, interpolation="bezier", velocities=velocities,
                   in_weights=w_in, out_weights=w_out)
    T = np.diff(times)
    x1, x2 = np.minimum(w_out[:-1], 1.0), 1.0 - np.minimum(w_in[1:], 1.0)
    y1 = values[:-1] + velocities[:-1] * x1 * T
    y2 = values[1:] - velocities[1:] * (1.0 - x2) * T
    cubic = Curve(times, values, velocities=velocities)
    kinds = ["step", "linear", "cubic", "bezier", "quad_in_out"]
    mixed = Curve(times, values, velocities=velocities, in_weights=w_in, out_weights=w_out,
                  interpolation=[kinds[j % 5] for j in range(keys - 1)])
    eased = Curve(times, values, velocities=velocities, ease="smoothstep")
    remapped = cubic.remap_time("smoothstep")
    # one scalar call at a time, as a script calls per key or per frame
    calls, xp, fp = 1000, np.array([0.0, 2.0]), np.array([0.0, 10.0])
    keyed = Curve(times[:8], values[:8], interpolation="bezier", velocities=velocities[:8],
                  in_weights=w_in[:8], out_weights=w_out[:8], ease="smoothstep")
    at = np.float64(times[3] + 0.25)

    def interp_calls():
        for _ in range(calls):
            np.interp(1.0, xp, fp)

    def keyed_calls():
        for _ in range(calls):
            keyed(4.25)

    def numpy_scalar_calls():
        for _ in range(calls):
            cubic(at)

    return [
        compare("keyframes bezier, random weights, sorted t", n, lambda: bezier(queries),
                "NumPy: Newton on time, then value", lambda: numpy_bezier_track(
                    times, values, x1, y1, x2, y2, queries), repeats, target=2),
        compare("keyframes mixed step/linear/cubic/bezier/eased", n, lambda: mixed(queries),
                "the all-cubic curve", lambda: cubic(queries), repeats, target=1 / 1.5),
        compare("keyframes cubic with ease='smoothstep'", n, lambda: eased(queries),
                "the plain cubic curve", lambda: cubic(queries), repeats, target=0.5),
        compare("keyframes cubic .remap_time('smoothstep')", n, lambda: remapped(queries),
                "the plain cubic curve", lambda: cubic(queries), repeats, target=0.5),
        compare("keyframes Curve(t), bezier + ease=, float t", calls, keyed_calls,
                "np.interp on a scalar", interp_calls, repeats, target=1 / 1.5),
        compare("keyframes Curve(t), cubic, np.float64 t", calls, numpy_scalar_calls,
                "np.interp on a scalar", interp_calls, repeats, target=1 / 1.5),
    ]


# ---- curve construction ----

def bench_construction(scale: float, repeats: int) -> list[Comparison]:
    """10^5 keys: Curve(times, values, velocities=...) against scipy's
    CubicHermiteSpline construction on the same keys (>= 1x), and the same
    Curve with a per-segment list of interpolation names (step, linear,
    cubic, bezier, quad_in_out at random) against the plain construction
    (at most 3x its time: >= 0.33x)."""
    n = max(int(100_000 * scale), 16)
    rng = np.random.default_rng(26)
    times = np.cumsum(rng.random(n) + 0.1)
    values, velocities = np.sin(times), np.cos(times)
    kinds = np.array(["step", "linear", "cubic", "bezier", "quad_in_out"])
    names = kinds[rng.integers(0, kinds.size, n - 1)].tolist()
    rows = []
    try:
        from scipy.interpolate import CubicHermiteSpline
    except ImportError:  # pragma: no cover - scipy is a test dependency
        CubicHermiteSpline = None
    if CubicHermiteSpline is not None:
        rows.append(compare("construction Curve(t, v, velocities=)", n,
                            lambda: Curve(times, values, velocities=velocities),
                            "scipy CubicHermiteSpline(...) build",
                            lambda: CubicHermiteSpline(times, values, velocities), repeats,
                            target=1.0))
    rows.append(compare("construction ... interpolation=[names]", n,
                        lambda: Curve(times, values, velocities=velocities,
                                      interpolation=names),
                        "the same Curve, one interpolation",
                        lambda: Curve(times, values, velocities=velocities), repeats,
                        target=1 / 3))
    return rows


# ---- snapshot ----

def _snapshot_stream(entities: int, snapshots: int, seed: int = 0):
    """A server stream: every entity sends one snapshot every 2 ticks (with a
    per-entity phase), walks at a random velocity and teleports (a new
    segment, a jump of 100 m) in about one snapshot out of eight."""
    rng = np.random.default_rng(seed)
    phase = rng.integers(0, 2, entities)
    ticks = phase[None, :] + 2 * np.arange(snapshots)[:, None]          # (S, E)
    teleport = rng.random((snapshots, entities)) < 0.125
    teleport[0] = False
    segments = np.cumsum(teleport, axis=0)
    steps = rng.normal(0.0, 0.5, (snapshots, entities, 3)) + 100.0 * teleport[..., None]
    positions = np.cumsum(steps, axis=0)
    return ticks, segments, positions


def numpy_snapshot_sample(keys, offsets, ticks, segments, positions, render_tick):
    """The sampling rules in plain NumPy over (E, C) tick rows sorted oldest
    first: one np.searchsorted over all rows (keys = ticks + a per-row offset,
    flattened), then gathers and np.where for holds and segment cuts."""
    entities, capacity = ticks.shape
    rows = np.arange(entities)
    i = np.searchsorted(keys, render_tick + offsets, side="left") - rows * capacity
    right = np.clip(i, 1, capacity - 1)
    left = right - 1
    t_left, t_right = ticks[rows, left], ticks[rows, right]
    p_left, p_right = positions[rows, left], positions[rows, right]
    alpha = (render_tick - t_left) / (t_right - t_left)
    position = p_left + (p_right - p_left) * alpha[:, None]
    cut = segments[rows, left] != segments[rows, right]
    oldest, newest = i <= 0, i >= capacity
    position = np.where(cut[:, None], p_right, position)
    position = np.where(oldest[:, None], positions[:, 0], position)
    position = np.where(newest[:, None], positions[:, -1], position)
    mode = np.select([oldest, newest, cut], [1, 3, 4], 2).astype(np.uint8)
    left_tick = np.where(oldest, ticks[:, 0], np.where(newest, ticks[:, -1], t_left))
    right_tick = np.where(oldest, ticks[:, 0], np.where(newest, ticks[:, -1], t_right))
    return position, mode, left_tick, right_tick


def bench_snapshot(scale: float, repeats: int) -> list[Comparison]:
    entities, capacity = max(2, int(100_000 * scale)), 32
    subset = min(entities, 10_000)  # the Python loops are timed on this many, then scaled
    factor = entities / subset
    ticks, segments, positions = _snapshot_stream(entities, capacity)
    buffer = SnapshotBuffer(entities, 3, capacity=capacity)
    everyone = np.arange(entities)
    for k in range(capacity):
        buffer.push(everyone, ticks[k], segments[k], positions[k])
    timelines = []
    for e in range(subset):
        timeline = SnapshotTimeline(3, capacity=capacity)
        timeline.push_many(ticks[:, e], segments[:, e], positions[:, e])
        timelines.append(timeline)
    render_tick = 2 * capacity - 5.5  # an interpolation delay of a few ticks

    # plain-NumPy layout: rows sorted oldest first, search keys kept up to date
    rows_ticks = np.ascontiguousarray(ticks.T, dtype=np.float64)
    rows_segments = np.ascontiguousarray(segments.T)
    rows_positions = np.ascontiguousarray(positions.transpose(1, 0, 2))
    span = float(rows_ticks.max() + 2)
    offsets = np.arange(entities) * span
    keys = (rows_ticks + offsets[:, None]).ravel()
    out = (np.empty((entities, 3)), None, np.empty(entities, np.uint8),
           np.empty(entities, np.int64), np.empty(entities, np.int64))

    def sample():
        return buffer.sample(render_tick, out=out)

    def loop_sample():
        for timeline in timelines:
            timeline.sample(render_tick)

    # one new snapshot per entity per call, with ticks that keep advancing
    clock = [int(ticks.max()) + 2]
    step = np.random.default_rng(1).normal(0.0, 0.5, (entities, 3))
    same_segment = segments[-1]

    def push():
        clock[0] += 2
        buffer.push(everyone, clock[0], same_segment, step)

    def loop_push():
        clock[0] += 2
        tick = clock[0]
        for e, timeline in enumerate(timelines):
            timeline.push(tick, same_segment[e], step[e])

    # the C and NumPy samplers agree before anything is timed
    got = buffer.sample(render_tick)
    want = numpy_snapshot_sample(keys, offsets, rows_ticks, rows_segments, rows_positions,
                                 render_tick)
    assert np.array_equal(got.mode, want[1]) and np.allclose(got.position, want[0])

    # The same job when the entities joined at different times, so that their
    # rings wrap at different places: the steady state of a real stream, which
    # must stay within 1.5x of the aligned case (a ratio >= 0.67).
    long_ticks, long_segments, long_positions = _snapshot_stream(entities, 2 * capacity, seed=2)
    joined = np.random.default_rng(3).integers(0, capacity + 1, entities)
    staggered = SnapshotBuffer(entities, 3, capacity=capacity)
    for k in range(2 * capacity):
        who = np.flatnonzero(joined <= k)
        staggered.push(who, long_ticks[k, who], long_segments[k, who] - long_segments[0, who],
                       long_positions[k, who])
    late_tick = 4 * capacity - 5.5
    late_rows = [np.ascontiguousarray(a[capacity:].swapaxes(0, 1)) for a in
                 (long_ticks.astype(np.float64), long_segments - long_segments[0],
                  long_positions)]
    late_keys = (late_rows[0] + offsets[:, None]).ravel()
    got = staggered.sample(late_tick)
    want = numpy_snapshot_sample(late_keys, offsets, *late_rows, late_tick)
    assert np.array_equal(got.mode, want[1]) and np.allclose(got.position, want[0])

    loop_sample_seconds = median_seconds(loop_sample, max(1, repeats // 2)) * factor
    loop_push_seconds = median_seconds(loop_push, max(1, repeats // 2)) * factor
    label = f" ({subset:,d} timed, x{factor:g})" if factor != 1 else ""
    results = [
        compare(f"snapshot SnapshotBuffer.sample ({capacity}/entity)", entities, sample,
                "searchsorted + gathers in NumPy",
                lambda: numpy_snapshot_sample(keys, offsets, rows_ticks, rows_segments,
                                              rows_positions, render_tick),
                repeats, target=2),
        Comparison(f"snapshot SnapshotBuffer.sample ({capacity}/entity)", entities,
                   median_seconds(sample, repeats), "Python loop of timeline.sample" + label,
                   loop_sample_seconds, target=50),
        compare("snapshot SnapshotBuffer.sample (staggered rings)", entities,
                lambda: staggered.sample(late_tick, out=out), "searchsorted + gathers in NumPy",
                lambda: numpy_snapshot_sample(late_keys, offsets, *late_rows, late_tick), repeats),
        compare("snapshot SnapshotBuffer.sample (staggered rings)", entities,
                lambda: staggered.sample(late_tick, out=out), "the aligned rings' sample",
                sample, repeats, target=0.67),
        Comparison("snapshot SnapshotBuffer.push (1/entity)", entities,
                   median_seconds(push, repeats), "Python loop of timeline.push" + label,
                   loop_push_seconds, target=20),
        _bench_single_push(max(100, int(10_000 * scale)), capacity, repeats),
    ]
    return results


def _bench_single_push(pushes: int, capacity: int, repeats: int) -> Comparison:
    """One SnapshotTimeline.push per call, as a per-frame script makes them,
    against the same pushes straight into the binding's entry point: what the
    public API adds to a call. Within 3x of it: a ratio >= 0.33."""
    from . import _core
    public, bare = (SnapshotTimeline(3, capacity=capacity) for _ in range(2))
    position = np.array([1.0, 2.0, 3.0])
    clock = {"public": 0, "bare": 0}

    def public_pushes():
        start = clock["public"]
        for tick in range(start, start + pushes):
            public.push(tick, 0, position)
        clock["public"] += pushes

    def bare_pushes():
        start, context = clock["bare"], bare._usual_context
        for tick in range(start, start + pushes):
            _core._snapshot_timeline_push("SnapshotTimeline.push", context, tick, 0, position,
                                          None, None)
        clock["bare"] += pushes

    ours, theirs = interleaved_medians([public_pushes, bare_pushes], repeats)
    assert public == bare  # the same snapshots, whichever way they came in
    return Comparison("snapshot SnapshotTimeline.push (single)", pushes, ours,
                      "the same pushes into _core", theirs, target=0.33)


# ---- rootmotion ----

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
    out = np.empty(n)
    return [
        compare("rootmotion LoopTrack.delta (30 keys)", n, lambda: track.delta(t0, t1),
                "np.floor + np.interp in plain NumPy", lambda: numpy_loop_delta(times, positions, t0, t1),
                repeats, target=8),
        # times within max_cycles prove the call succeeds: out= evaluates once
        compare("rootmotion LoopTrack.delta (30 keys), out=", n,
                lambda: track.delta(t0, t1, out=out), "the same call into a fresh array",
                lambda: track.delta(t0, t1), repeats, target=0.9),
        compare("rootmotion RootMotionCursor.advance", m, lambda: cursors.advance(dt),
                "int64 cycle + phase in plain NumPy", lambda: baseline.advance(dt),
                repeats, target=5),
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
    """10^7 values against plain NumPy; and out= against the same call into a
    fresh array: no slower (>= 0.9x), since every u in [0, 1] proves the call
    succeeds without evaluating it twice."""
    n = max(1, int(10**7 * scale))
    u = np.random.default_rng(0).uniform(0.0, 1.0, n)
    curve = CubicBezier(0.25, 0.1, 0.25, 1.0)
    out = np.empty(n)
    return [
        compare("easing ease(\"cubic_in_out\", u)", n, lambda: ease("cubic_in_out", u),
                "same formula in plain NumPy", lambda: numpy_cubic_in_out(u), repeats, target=4),
        compare("easing CubicBezier(.25, .1, .25, 1)(u)", n, lambda: curve(u),
                "vectorized NumPy Newton solve", lambda: numpy_cubic_bezier(0.25, 0.1, 0.25, 1.0, u),
                repeats, target=4),
        compare("easing CubicBezier(.25, .1, .25, 1)(u, out=)", n, lambda: curve(u, out=out),
                "the same call into a fresh array", lambda: curve(u), repeats, target=0.9),
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


def bench_rotations(scale: float, repeats: int) -> list:
    """The quaternion kernels against plain NumPy and the libraries a user would
    pick instead: numpy-quaternion (its quaternion arrays built beforehand, as
    a user of it keeps them) and scipy's Rotation (built beforehand and
    reused). A peer that is not installed is skipped with the reason."""
    n = max(1, int(10**6 * scale))
    rng = np.random.default_rng(0)
    q0, q1 = rng.normal(size=(n, 4)), rng.normal(size=(n, 4))
    t = rng.uniform(0.0, 1.0, n)
    v = rng.normal(size=(n, 3))
    slerps = np.empty_like(q0)
    products = np.empty_like(q0)
    rows: list = [
        compare("rotations quat_slerp(q0, q1, t)", n, lambda: quat_slerp(q0, q1, t),
                "shortest-arc slerp in plain NumPy", lambda: numpy_slerp(q0, q1, t),
                repeats, target=3),
        # out= first reads the inputs once to prove the call succeeds
        compare("rotations quat_slerp(q0, q1, t, out=)", n,
                lambda: quat_slerp(q0, q1, t, out=slerps), "the same call into a fresh array",
                lambda: quat_slerp(q0, q1, t), repeats),
    ]
    try:
        import quaternion  # numpy-quaternion: (w, x, y, z) order
    except ImportError:
        rows.append(Skipped("rotations vs numpy-quaternion",
                            "numpy-quaternion is not installed: pip install numpy-quaternion "
                            "(or animcore[bench])"))
    else:
        wxyz = [3, 0, 1, 2]
        p0, p1 = quaternion.as_quat_array(q0[:, wxyz]), quaternion.as_quat_array(q1[:, wxyz])
        u0 = quaternion.as_quat_array(quat_normalize(q0)[:, wxyz])
        u1 = quaternion.as_quat_array(quat_normalize(q1)[:, wxyz])
        pout = np.empty_like(p0)
        rows += [
            compare("rotations quat_multiply(a, b)", n, lambda: quat_multiply(q0, q1),
                    "numpy-quaternion a * b", lambda: p0 * p1, repeats, target=1.5),
            # the bytes moved by ordinary stores: streaming them must beat that
            compare("rotations quat_multiply(a, b)", n, lambda: quat_multiply(q0, q1),
                    "np.add(a, b): the same bytes moved", lambda: np.add(q0, q1), repeats,
                    target=1.3),
            # out= proves the call succeeds before the caller's array is written
            compare("rotations quat_multiply(a, b, out=)", n,
                    lambda: quat_multiply(q0, q1, out=products),
                    "numpy-quaternion np.multiply(a, b, out=)",
                    lambda: np.multiply(p0, p1, out=pout), repeats, target=1),
            compare("rotations quat_multiply(a, b, workers=-1)", n,
                    lambda: quat_multiply(q0, q1, workers=-1), "numpy-quaternion a * b",
                    lambda: p0 * p1, repeats),
            compare("rotations quat_slerp(q0, q1, t)", n,
                    lambda: quat_slerp(q0, q1, t), "numpy-quaternion slerp_vectorized",
                    lambda: np.slerp_vectorized(u0, u1, t), repeats, target=4),
        ]
    try:
        from scipy.spatial.transform import Rotation
    except ImportError:
        rows.append(Skipped("rotations vs scipy Rotation",
                            "scipy is not installed: pip install scipy (or animcore[bench])"))
    else:
        rotation = Rotation.from_quat(q0)
        rows.append(compare("rotations quat_rotate(q, v)", n, lambda: quat_rotate(q0, v),
                            "scipy Rotation.apply (prebuilt)", lambda: rotation.apply(v),
                            repeats, target=3))
        # the sequences of BVH channels (intrinsic) and FBX's default (extrinsic)
        for seq in ("ZXY", "xyz"):
            rows.append(compare(f"rotations quat_to_euler(q, {seq!r})", n,
                                lambda seq=seq: quat_to_euler(q0, seq),
                                f"scipy Rotation.as_euler({seq!r}) (prebuilt)",
                                lambda seq=seq: rotation.as_euler(seq), repeats, target=1))
    return rows


def bench_rotation_curve(scale: float, repeats: int) -> list[Comparison]:
    """A linear RotationCurve of 1,000 keys (uneven spacing) at 10^6 sorted
    times, against quat_slerp on as many random pairs (its own slerp, so the
    ratio is what the track adds: lookup, extrapolation, binding) and against
    scipy's Slerp on the same keys and times; and with out=, against the same
    call into a fresh array (the check that proves success before out is
    written reads t only, so out= evaluates once)."""
    try:
        from scipy.spatial.transform import Rotation, Slerp
    except ImportError:
        raise ImportError("bench rotation_curve compares against scipy, which is not "
                          "installed: pip install scipy (or animcore[bench])") from None
    from .rotations import RotationCurve

    rng = np.random.default_rng(0)
    keys, n = 1000, max(1, int(10**6 * scale))
    times = np.cumsum(rng.uniform(0.5, 1.5, keys))
    quats = rng.normal(size=(keys, 4))
    queries = np.sort(rng.uniform(times[0], times[-1], n))
    q0, q1 = rng.normal(size=(n, 4)), rng.normal(size=(n, 4))
    u = rng.uniform(0.0, 1.0, n)
    curve = RotationCurve(times, quats)
    slerp = Slerp(times, Rotation.from_quat(quats))
    out = np.empty((n, 4))
    return [
        compare("rotation_curve linear, 1,000 keys, sorted t", n,
                lambda: curve.evaluate(queries), "quat_slerp on as many pairs",
                lambda: quat_slerp(q0, q1, u), repeats, target=1 / 1.3),
        compare("rotation_curve linear, 1,000 keys, sorted t", n,
                lambda: curve.evaluate(queries), "scipy Slerp, same keys and t",
                lambda: slerp(queries).as_quat(), repeats, target=8),
        compare("rotation_curve linear, 1,000 keys, sorted t, out=", n,
                lambda: curve.evaluate(queries, out=out), "the same call into a fresh array",
                lambda: curve.evaluate(queries), repeats, target=0.9),
    ]


def numpy_bounce(velocity, surface_velocity, normal, restitution):
    """The bounce formula in plain NumPy, the baseline of `bounce`."""
    w = velocity - surface_velocity
    s = np.einsum("...k,...k->...", w, normal)
    k = np.where(s < 0.0, (1.0 + restitution) * s, 0.0)
    return velocity - k[..., None] * normal


def numpy_bounce_friction(velocity, surface_velocity, normal, restitution, friction):
    """The bounce formula with Coulomb friction in plain NumPy, the baseline of
    `bounce(..., friction=)`."""
    w = velocity - surface_velocity
    s = np.einsum("...k,...k->...", w, normal)
    impulse = np.where(s < 0.0, -(1.0 + restitution) * s, 0.0)
    tangent = w - s[..., None] * normal
    length = np.sqrt(np.einsum("...k,...k->...", tangent, tangent))
    jt = friction * impulse
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(jt < length, jt / length, np.where(jt > 0.0, 1.0, 0.0))
    return velocity + impulse[..., None] * normal - f[..., None] * tangent


def numpy_advance_projectiles(position, velocity, radius, dt, plane_point, plane_normal,
                              plane_velocity, restitution, friction, max_bounces=8):
    """Continuous stepping of N spheres against M moving planes in plain NumPy,
    the baseline of `advance_projectiles`: vectorized over the spheres still
    moving, one pass per bounce. Scalar radius, dt, restitution and friction."""
    p, v = position.copy(), velocity.copy()
    n = len(p)
    t = np.zeros(n)
    bounces = np.zeros(n, dtype=np.intc)
    qn = np.einsum("mk,mk->m", plane_point, plane_normal)
    un = np.einsum("mk,mk->m", plane_velocity, plane_normal)
    uabs = np.abs(plane_velocity).sum(1)
    front = p @ plane_normal.T - qn >= 0.0
    active = np.arange(n)
    for _ in range(max_bounces + 1):
        if active.size == 0:
            break
        pa, va, ta = p[active], v[active], t[active]
        dist = pa @ plane_normal.T - qn - ta[:, None] * un
        s = va @ plane_normal.T - un
        tol = 8 * np.finfo(float).eps * (np.abs(va).sum(1)[:, None] + uabs)
        approach = front[active] & (s < -tol)
        with np.errstate(divide="ignore", invalid="ignore"):
            toi = ta[:, None] + np.maximum(dist - radius, 0.0) / -s
        toi = np.where(approach, toi, np.inf)
        j = toi.argmin(1)
        tmin = toi[np.arange(active.size), j]
        hit = tmin <= dt
        tend = np.where(hit, tmin, dt)
        p[active] = pa + va * (tend - ta)[:, None]
        t[active] = tend
        active, j = active[hit], j[hit]
        nrm, u = plane_normal[j], plane_velocity[j]
        w = v[active] - u
        sj = np.einsum("ik,ik->i", w, nrm)
        impulse = -(1.0 + restitution) * np.minimum(sj, 0.0)
        wt = w - sj[:, None] * nrm
        length = np.sqrt(np.einsum("ik,ik->i", wt, wt))
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(friction * impulse < length, friction * impulse / length, 1.0)
        v[active] += impulse[:, None] * nrm - f[:, None] * wt
        bounces[active] += 1
    if active.size:  # out of bounces: ride the last surface, unresolved
        p[active] += plane_velocity[j] * (dt - t[active])[:, None]
    return p, v, bounces


def numpy_collide(va, wa, ma, ia, ca, vb, wb, mb, ib, cb, normal, point, restitution, friction):
    """collide's law for 3-D bodies with scalar inverse inertia in plain NumPy,
    the baseline of `collide`: the effective mass K per contact, the sticking
    impulse from np.linalg.solve, Coulomb's bound, the slipping impulse."""
    ra, rb = point - ca, point - cb
    w = (va + np.cross(wa, ra)) - (vb + np.cross(wb, rb))
    s = np.einsum("ik,ik->i", w, normal)
    eye = np.eye(3)
    K = ((ma + mb)[:, None, None] * eye
         + ia[:, None, None] * (np.einsum("ik,ik->i", ra, ra)[:, None, None] * eye
                                - ra[:, :, None] * ra[:, None, :])
         + ib[:, None, None] * (np.einsum("ik,ik->i", rb, rb)[:, None, None] * eye
                                - rb[:, :, None] * rb[:, None, :]))
    dn = np.where(s < 0.0, -(1.0 + restitution) * s, 0.0)
    target = dn[:, None] * normal - (w - s[:, None] * normal)
    stick = np.linalg.solve(K, target[..., None])[..., 0]
    jn = np.einsum("ik,ik->i", stick, normal)
    jt = stick - jn[:, None] * normal
    length = np.sqrt(np.einsum("ik,ik->i", jt, jt))
    slips = length > friction * jn
    with np.errstate(divide="ignore", invalid="ignore"):
        d = normal + friction * jt / length[:, None]
        kd = np.einsum("ik,ikl,il->i", normal, K, d)
        slip = (dn / kd)[:, None] * d
    j = np.where((slips & (s < 0.0))[:, None], slip, np.where((s < 0.0)[:, None], stick, 0.0))
    return (va + ma[:, None] * j, wa + ia[:, None] * np.cross(ra, j),
            vb - mb[:, None] * j, wb - ib[:, None] * np.cross(rb, j))


def sphere_pairs(n, seed=0):
    """n contacts between two dynamic spheres of random sizes and masses."""
    rng = np.random.default_rng(seed)
    normal = rng.normal(size=(n, 3))
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    point = rng.uniform(-10, 10, (n, 3))
    radius_a, radius_b = rng.uniform(0.1, 1, (2, n))
    mass_a, mass_b = rng.uniform(0.5, 5, (2, n))
    a = dict(va=rng.normal(0, 5, (n, 3)), wa=rng.normal(0, 3, (n, 3)), ma=1 / mass_a,
             ia=2.5 / (mass_a * radius_a**2), ca=point + radius_a[:, None] * normal)
    b = dict(vb=rng.normal(0, 5, (n, 3)), wb=rng.normal(0, 3, (n, 3)), mb=1 / mass_b,
             ib=2.5 / (mass_b * radius_b**2), cb=point - radius_b[:, None] * normal)
    return a, b, normal, point


def projectile_scene(n, seed=0):
    """Spheres in a box of 6 walls and 2 slanted planes, two of them moving."""
    rng = np.random.default_rng(seed)
    s = 0.5 ** 0.5
    normal = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1],
                       [s, s, 0], [0, -s, s]], dtype=float)
    point = np.array([[-10, 0, 0], [10, 0, 0], [0, -10, 0], [0, 10, 0], [0, 0, -10],
                      [0, 0, 10], [-7, -7, 0], [0, 7, -7]], dtype=float)
    plane_velocity = np.zeros((8, 3))
    plane_velocity[1] = (-3.0, 0.0, 0.0)  # the +x wall closes in
    plane_velocity[4] = (0.5, 0.0, 1.0)   # the floor rises and slides
    radius = 0.2
    position = rng.uniform(-9.5, 9.5, (n, 3))
    inside = np.einsum("nk,mk->nm", position, normal) - np.einsum("mk,mk->m", point, normal)
    position = position[(inside >= radius).all(1)]
    while len(position) < n:
        extra = rng.uniform(-9.5, 9.5, (n, 3))
        d = np.einsum("nk,mk->nm", extra, normal) - np.einsum("mk,mk->m", point, normal)
        position = np.concatenate([position, extra[(d >= radius).all(1)]])
    position = np.ascontiguousarray(position[:n])
    velocity = rng.normal(0.0, 20.0, (n, 3))
    return position, velocity, radius, 0.5, point, normal, plane_velocity


def _bench_bounce(scale: float, repeats: int) -> list[Comparison]:
    n = max(1, int(10**7 * scale))
    rng = np.random.default_rng(0)
    velocity = rng.normal(0.0, 5.0, (n, 3))
    surface = rng.normal(0.0, 1.0, (n, 3))
    normal = rng.normal(size=(n, 3))
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    normal /= np.sqrt(np.einsum("ik,ik->i", normal, normal))[:, None]  # |n.n - 1| ~ 1e-16
    wall = np.array([2.0, 0.0, -1.0])

    def copy_bytes():  # its inputs into a fresh output, as bounce reads and allocates
        result = np.empty_like(velocity)
        for a in (velocity, surface, normal):
            np.copyto(result, a)
        return result

    # the lanes (one restitution) against the general loop (the same values per
    # contact: the same results bit for bit), on batches that stay in cache
    k = max(1, int(2 * 10**4 * scale))
    few = [a[:k].copy() for a in (velocity, surface, normal)]
    each = np.full(k, 0.5)

    def calls(restitution):
        for _ in range(50):
            bounce(*few, restitution)

    return [
        compare("contact bounce (3-D, 50 x 20,000 in cache) lanes", 50 * k,
                lambda: calls(0.5), "general loop (restitution per contact)",
                lambda: calls(each), repeats, target=1.3),
        compare("contact bounce (3-D, v, u, n per contact)", n,
                lambda: bounce(velocity, surface, normal, 0.5),
                "same formula in plain NumPy",
                lambda: numpy_bounce(velocity, surface, normal, 0.5), repeats, target=5),
        compare("contact bounce (3-D, v, u, n per contact)", n,
                lambda: bounce(velocity, surface, normal, 0.5),
                "np.copyto of v, u, n into a fresh out", copy_bytes, repeats, target=0.5),
        compare("contact bounce (3-D, one moving wall's u)", n,
                lambda: bounce(velocity, wall, normal, 0.5),
                "same formula in plain NumPy",
                lambda: numpy_bounce(velocity, wall, normal, 0.5), repeats, target=5),
        compare("contact bounce (3-D, v, u, n per contact) friction", n,
                lambda: bounce(velocity, surface, normal, 0.5, friction=0.3),
                "same formula in plain NumPy",
                lambda: numpy_bounce_friction(velocity, surface, normal, 0.5, 0.3), repeats,
                target=5),
    ]


def _bench_collide(scale: float, repeats: int) -> list[Comparison]:
    k = max(1, int(10**6 * scale))
    a, b, normal, point = sphere_pairs(k)
    body_a = Body(a["va"], a["ma"], a["ia"], a["wa"], a["ca"])
    body_b = Body(b["vb"], b["mb"], b["ib"], b["wb"], b["cb"])
    return [compare("contact collide (3-D, two dynamic spheres)", k,
                    lambda: collide(body_a, body_b, normal, point, 0.5, friction=0.3),
                    "same law in plain NumPy",
                    lambda: numpy_collide(**a, **b, normal=normal, point=point,
                                          restitution=0.5, friction=0.3), repeats, target=5)]


def _bench_advance(scale: float, repeats: int) -> list[Comparison]:
    m = max(1, int(10**5 * scale))
    scene = projectile_scene(m)
    # workers= first: the baseline's matrix products leave BLAS threads
    # spinning on the other cores for a while after each call
    threads = compare("contact advance_projectiles (3-D, 8 planes) workers=-1", m,
                      lambda: advance_projectiles(*scene, 0.8, friction=0.1, workers=-1),
                      "workers=1", lambda: advance_projectiles(*scene, 0.8, friction=0.1),
                      repeats)
    return [
        compare("contact advance_projectiles (3-D, 8 planes)", m,
                lambda: advance_projectiles(*scene, 0.8, friction=0.1),
                "plain NumPy, a pass per bounce",
                lambda: numpy_advance_projectiles(*scene, 0.8, 0.1), repeats, target=10),
        threads,
    ]


def bench_contact(scale: float, repeats: int) -> list[Comparison]:
    # one function per group, so that each group's arrays are freed before the next
    return (_bench_bounce(scale, repeats) + _bench_collide(scale, repeats)
            + _bench_advance(scale, repeats))


def bench_binding(scale: float, repeats: int) -> list[Comparison]:
    """What the declared binding costs: a partial broadcast against the same
    call on pre-broadcast arrays (target: within 1.3x, a ratio >= 0.77),
    scalar calls against np.interp on a scalar (within 1.5x, >= 0.67), and
    workers=-1 against workers=1 on 10^7 elements, into fresh outputs and
    into the caller's."""
    n = max(1, int(10**6 * scale))
    rng = np.random.default_rng(0)
    keys, elapsed = np.array([0.0, 1.0, 2.0]), rng.uniform(0.0, 2.0, (n, 1))
    full = [np.ascontiguousarray(np.broadcast_to(x, (n, 3)))
            for x in (keys, keys + 10.0, np.ones(3), np.zeros(3), np.full(3, 2.0), elapsed)]
    big = rng.uniform(0.0, 2.0, max(1, int(10**7 * scale)))
    outputs = (np.empty_like(big), np.empty_like(big))
    calls = 1000
    xp, fp = np.array([0.0, 2.0]), np.array([0.0, 10.0])
    curve = Curve([0, 1, 2, 3], [0, 60, 60, 0])
    walk = LoopTrack([0, 0.25, 0.75, 1], [0, 0.2, 1.7, 2])

    def interp_calls():
        for _ in range(calls):
            np.interp(1.0, xp, fp)

    def hermite_calls():
        for _ in range(calls):
            hermite(0.0, 10.0, 2.0, 0.0, 2.0, 1.0)

    def curve_calls():
        for _ in range(calls):
            curve(1.5)

    def delta_calls():
        for _ in range(calls):
            walk.delta(0.9, 1.1)

    scalar = "np.interp on a scalar"
    return [
        compare("binding hermite keys (3,), elapsed (N,1)", 3 * n,
                lambda: hermite(keys, keys + 10.0, 1.0, 0.0, 2.0, elapsed),
                "hermite on pre-broadcast (N, 3) arrays", lambda: hermite(*full), repeats,
                target=0.77),
        compare("binding hermite on Python scalars", calls, hermite_calls, scalar, interp_calls,
                repeats, target=0.67),
        compare("binding Curve(t) on a scalar", calls, curve_calls, scalar, interp_calls, repeats,
                target=0.67),
        compare("binding LoopTrack.delta on scalars", calls, delta_calls, scalar, interp_calls,
                repeats, target=0.67),
        compare("binding hermite 10^7, workers=-1", big.size,
                lambda: hermite(0.0, 10.0, 2.0, 0.0, 2.0, big, workers=-1),
                "the same call, workers=1",
                lambda: hermite(0.0, 10.0, 2.0, 0.0, 2.0, big, workers=1), repeats, target=1.7),
        # the same into outputs written before: without the page faults of
        # fresh outputs (the system zeroes each new page at its first touch,
        # work that need not scale with the threads)
        compare("binding hermite 10^7 out=, workers=-1", big.size,
                lambda: hermite(0.0, 10.0, 2.0, 0.0, 2.0, big, out=outputs, workers=-1),
                "the same call, workers=1",
                lambda: hermite(0.0, 10.0, 2.0, 0.0, 2.0, big, out=outputs, workers=1), repeats),
    ]


# A 24-joint humanoid hierarchy (pelvis, legs, spine, arms, head).
HUMANOID_PARENTS = [-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18,
                    19, 20, 21]


def numpy_skeleton_world(parents, translation, rotation, scale):
    """Forward kinematics in plain NumPy: batched local matrices, then the
    hierarchy level by level with batched 4x4 products."""
    parents = np.asarray(parents)
    q = rotation / np.linalg.norm(rotation, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    local = np.zeros(translation.shape[:-1] + (4, 4))
    local[..., 0, 0] = 1 - 2 * (y * y + z * z)
    local[..., 0, 1] = 2 * (x * y - w * z)
    local[..., 0, 2] = 2 * (x * z + w * y)
    local[..., 1, 0] = 2 * (x * y + w * z)
    local[..., 1, 1] = 1 - 2 * (x * x + z * z)
    local[..., 1, 2] = 2 * (y * z - w * x)
    local[..., 2, 0] = 2 * (x * z - w * y)
    local[..., 2, 1] = 2 * (y * z + w * x)
    local[..., 2, 2] = 1 - 2 * (x * x + y * y)
    local[..., :3, :3] *= scale[..., None, :]
    local[..., :3, 3] = translation
    local[..., 3, 3] = 1.0
    depth = np.where(parents < 0, 0, -1)
    while (depth < 0).any():  # parents in any order: settle one level per pass
        known = (depth < 0) & (parents >= 0)
        known[known] = depth[parents[known]] >= 0
        depth[known] = depth[parents[known]] + 1
    world = np.empty_like(local)
    for level in range(depth.max() + 1):
        joints = np.flatnonzero(depth == level)
        if level == 0:
            world[:, joints] = local[:, joints]
        else:
            world[:, joints] = world[:, parents[joints]] @ local[:, joints]
    return world


def bench_skeleton(scale: float, repeats: int) -> list[Comparison]:
    n = max(1, int(10**5 * scale))
    joints = len(HUMANOID_PARENTS)
    rng = np.random.default_rng(0)
    t = rng.normal(size=(n, joints, 3))
    r = rng.normal(size=(n, joints, 4))
    r /= np.linalg.norm(r, axis=-1, keepdims=True)
    s = rng.uniform(0.9, 1.1, size=(n, joints, 3))
    skeleton = Skeleton(HUMANOID_PARENTS)
    return [
        compare(f"skeleton world ({joints} joints, per joint-pose)", n * joints,
                lambda: skeleton.world(t, r, s),
                "NumPy level by level, batched 4x4",
                lambda: numpy_skeleton_world(HUMANOID_PARENTS, t, r, s), repeats, target=10),
    ]


def numpy_euler_filter(angles, proper):
    """The Euler filter in NumPy: which triplet each frame takes depends only
    on the previous frame's pick, so both answers are computed for every
    frame at once and only the two-state chain is walked; np.unwrap then
    removes the whole turns."""
    other = np.stack([angles[:, 0] + np.pi, (0.0 if proper else np.pi) - angles[:, 1],
                      angles[:, 2] + np.pi], axis=-1)
    cands = (angles, other)

    def dist(a, b):
        d = np.remainder(a - b + np.pi, 2 * np.pi) - np.pi
        return np.abs(d).sum(-1)

    # take_other[s][i]: frame i picks the other triplet when frame i-1 picked s
    take_other = [dist(cands[1][1:], cands[s][:-1]) < dist(cands[0][1:], cands[s][:-1])
                  for s in (0, 1)]
    t0, t1 = take_other[0].tolist(), take_other[1].tolist()
    state, picks = 0, [0]
    for i in range(len(t0)):
        state = t1[i] if state else t0[i]
        picks.append(state)
    chosen = np.where(np.array(picks, dtype=bool)[:, None], other, angles)
    return np.unwrap(chosen, axis=0)


def bench_cleanup(scale: float, repeats: int) -> list[Comparison]:
    from .cleanup import euler_filter

    n = max(2, int(10**6 * scale))
    rng = np.random.default_rng(0)
    angles = np.cumsum(rng.normal(scale=0.3, size=(n, 3)), axis=0)
    angles = np.remainder(angles + np.pi, 2 * np.pi) - np.pi
    return [
        compare("cleanup euler_filter (XYZ, per frame)", n, lambda: euler_filter(angles, "XYZ"),
                "NumPy two-state chain + np.unwrap",
                lambda: numpy_euler_filter(angles, False), repeats, target=5),
    ]


FOX = "tests/data/gltf/Fox/Fox.glb"


def bench_rig(scale: float, repeats: int) -> list[Comparison]:
    """Scene.pose + world of the Fox's three clips at 60 fps (a clone of the
    repository has the file), against the same pose and NumPy forward kinematics."""
    import pathlib

    from . import gltf

    path = pathlib.Path(__file__).resolve().parent.parent / FOX
    if not path.is_file():
        raise ImportError(f"the Fox rig ({FOX}) is in a clone of the repository only")
    scene = gltf.load_scene(path)
    parents = [n.parent for n in scene.nodes]
    grids = [frame_times(c.duration, 60.0) for c in scene.clips]  # as bake samples them
    frames = sum(len(g) for g in grids)

    def ours():
        return [scene.world(c, g) for c, g in zip(scene.clips, grids)]

    def baseline():
        return [numpy_skeleton_world(parents, *scene.pose(c, g)) for c, g in zip(scene.clips, grids)]

    poses = [scene.pose(c, g) for c, g in zip(scene.clips, grids)]
    return [compare(f"rig Fox pose + world (3 clips, 60 fps, {len(parents)} nodes)",
                    frames * len(parents), ours, "same pose, NumPy level by level", baseline,
                    repeats),
            compare("rig Fox world of sampled poses", frames * len(parents),
                    lambda: [scene.skeleton.world(*p) for p in poses],
                    "NumPy level by level, batched 4x4",
                    lambda: [numpy_skeleton_world(parents, *p) for p in poses], repeats)]


def _rig_data(joints: int, frames: int) -> tuple:
    """A random rig of ``joints`` joints animated over ``frames`` frames at 30
    fps, every joint translated, rotated and scaled: (parents, rest
    translations, translations, rotations (x, y, z, w), scales), the animated
    values in the precisions UsdSkel stores them in (float, float, half)."""
    rng = np.random.default_rng(2)
    parents = [-1] + [int(rng.integers(0, j)) for j in range(1, joints)]
    rest = rng.normal(size=(joints, 3))
    moves = rng.normal(size=(frames, joints, 3)).astype(np.float32)
    turns = rng.normal(size=(frames, joints, 4))
    turns = (turns / np.linalg.norm(turns, axis=-1, keepdims=True)).astype(np.float32)
    sizes = rng.uniform(0.9, 1.1, size=(frames, joints, 3)).astype(np.float16)
    return parents, rest, moves, turns, sizes


def _rig_scene(joints: int, frames: int):
    """The rig of :func:`_rig_data` as a Scene built in memory (the rig that
    :func:`_usdskel_rig` writes, usd-core or not), with a skin of every joint
    bound at the rest pose."""
    from . import model
    from .rotations import RotationCurve

    parents, rest, moves, turns, sizes = _rig_data(joints, frames)
    times = np.arange(frames) / 30.0
    children: list = [[] for _ in parents]
    for j, p in enumerate(parents[1:], 1):
        children[p].append(j)
    nodes, channels = [], []
    for j, p in enumerate(parents):
        nodes.append(model.Node(j, f"j{j}", p, tuple(children[j]), rest[j].copy(),
                                np.array([0.0, 0.0, 0.0, 1.0]), np.ones(3)))
        for path, curve in (("translation", Curve(times, moves[:, j].astype(np.float64),
                                                  interpolation="linear")),
                            ("rotation", RotationCurve(times, turns[:, j].astype(np.float64),
                                                       interpolation="linear")),
                            ("scale", Curve(times, sizes[:, j].astype(np.float64),
                                            interpolation="linear"))):
            channels.append(model.Channel.from_curve(j, path, curve, node_name=f"j{j}"))
    bind = np.repeat(np.eye(4)[None], joints, axis=0)
    bind[:, :3, 3] = -rest
    skin = model.Skin(0, "rig", np.arange(joints), bind)
    clip = model.Clip("rig", float(times[-1]), tuple(channels))
    return model.Scene(tuple(nodes), ((0,),), 0, (skin,), (clip,))


def _usdskel_rig(folder: str, joints: int, frames: int):
    """The rig of :func:`_rig_data` written as a UsdSkel stage: returns its
    path, or None when usd-core is not installed."""
    parents, rest, moves, turns, sizes = _rig_data(joints, frames)
    paths: list = []
    for j, p in enumerate(parents):
        paths.append(f"j{j}" if p < 0 else f"{paths[p]}/j{j}")
    try:
        from pxr import Gf, Usd, UsdSkel, Vt
    except ImportError:
        return None
    import os

    path = os.path.join(folder, "rig.usdc")
    stage = Usd.Stage.CreateNew(path)
    stage.SetTimeCodesPerSecond(30)
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(frames - 1)
    UsdSkel.Root.Define(stage, "/Rig")
    skeleton = UsdSkel.Skeleton.Define(stage, "/Rig/Skel")
    skeleton.CreateJointsAttr(Vt.TokenArray(paths))
    matrices = Vt.Matrix4dArray([Gf.Matrix4d(1).SetTranslate(Gf.Vec3d(*map(float, r)))
                                 for r in rest])
    skeleton.CreateRestTransformsAttr(matrices)
    skeleton.CreateBindTransformsAttr(matrices)
    animation = UsdSkel.Animation.Define(stage, "/Rig/Skel/Anim")
    animation.CreateJointsAttr(Vt.TokenArray(paths))
    translations = animation.CreateTranslationsAttr()
    rotations = animation.CreateRotationsAttr()
    scales = animation.CreateScalesAttr()
    for f in range(frames):
        translations.Set(Vt.Vec3fArray.FromNumpy(moves[f]), f)
        rotations.Set(Vt.QuatfArray([Gf.Quatf(float(q[3]), *map(float, q[:3]))
                                     for q in turns[f]]), f)
        scales.Set(Vt.Vec3hArray.FromNumpy(sizes[f]), f)
    UsdSkel.BindingAPI.Apply(skeleton.GetPrim()).CreateAnimationSourceRel().SetTargets(
        [animation.GetPath()])
    stage.GetRootLayer().Save()
    return path


def bench_usdskel(scale: float, repeats: int) -> list:
    """A 200-joint rig over 500 frames: Scene.world and Skin.joint_matrices
    against the same poses composed and skinned in batched NumPy (a rig
    built in memory), and, with usd-core installed, usd.load + Scene.world
    and Skin.joint_matrices of the rig as a UsdSkel stage against OpenUSD's
    own C++ queries, asked frame by frame as UsdSkel is."""
    import tempfile

    from . import usd

    joints, frames = 200, max(2, int(500 * scale))
    t = np.arange(frames) / 30.0
    items = frames * joints
    rows = _rig_numpy_rows(_rig_scene(joints, frames), t, repeats)
    with tempfile.TemporaryDirectory() as folder:
        path = _usdskel_rig(folder, joints, frames)
        if path is None:
            return [Skipped("usdskel against UsdSkel", "usd-core is not installed (pip install "
                                                       "'animcore[usd]')")] + rows
        from pxr import Usd, UsdGeom, UsdSkel

        def open_query():
            stage = Usd.Stage.Open(path)
            cache = UsdSkel.Cache()
            cache.Populate(UsdSkel.Root(stage.GetPrimAtPath("/Rig")),
                           Usd.TraverseInstanceProxies())
            return stage, cache.GetSkelQuery(UsdSkel.Skeleton(stage.GetPrimAtPath("/Rig/Skel")))

        stage, query = open_query()  # kept alive for the per-frame rows
        codes = range(frames)
        scene = usd.load(path)
        clip, skin = scene.clips[0], scene.skins[0]

        def theirs_loaded():
            _, q = open_query()
            return [q.ComputeJointWorldTransforms(UsdGeom.XformCache(c)) for c in codes]

        def ours_loaded():
            loaded = usd.load(path)
            return loaded.world(loaded.clips[0], t)

        return [
            compare(f"usdskel Scene.world ({joints} joints, {frames} frames)", items,
                    lambda: scene.world(clip, t), "UsdSkel ComputeJointWorldTransforms/frame",
                    lambda: [query.ComputeJointWorldTransforms(UsdGeom.XformCache(c))
                             for c in codes], repeats, target=3),
            compare("usdskel Skin.joint_matrices", items,
                    lambda: skin.joint_matrices(scene, clip, t),
                    "UsdSkel ComputeSkinningTransforms/frame",
                    lambda: [query.ComputeSkinningTransforms(c) for c in codes], repeats,
                    target=2),
            # on every core (UsdSkel's calls are one thread's, frame by frame)
            compare("usdskel Scene.world(workers=-1)", items,
                    lambda: scene.world(clip, t, workers=-1),
                    "UsdSkel ComputeJointWorldTransforms/frame",
                    lambda: [query.ComputeJointWorldTransforms(UsdGeom.XformCache(c))
                             for c in codes], repeats),
            compare("usdskel Skin.joint_matrices(workers=-1)", items,
                    lambda: skin.joint_matrices(scene, clip, t, workers=-1),
                    "UsdSkel ComputeSkinningTransforms/frame",
                    lambda: [query.ComputeSkinningTransforms(c) for c in codes], repeats),
            compare("usdskel usd.load + Scene.world", items, ours_loaded,
                    "Stage.Open + UsdSkel.Cache + queries", theirs_loaded,
                    max(1, min(repeats, 3)), target=1),
        ] + rows


def _rig_numpy_rows(scene, t: np.ndarray, repeats: int) -> list:
    """Scene.world, Skeleton.world and Skin.joint_matrices of the scene's
    first clip against batched NumPy doing the same work."""
    clip, skin = scene.clips[0], scene.skins[0]
    parents = scene.skeleton.parents
    pose = scene.pose(clip, t)
    items = t.size * len(parents)
    return [
        compare("usdskel Scene.world", items, lambda: scene.world(clip, t),
                "Scene.pose + NumPy level by level",
                lambda: numpy_skeleton_world(parents, *scene.pose(clip, t)), repeats),
        compare("usdskel world of sampled poses", items, lambda: scene.skeleton.world(*pose),
                "NumPy level by level, batched 4x4",
                lambda: numpy_skeleton_world(parents, *pose), repeats),
        compare("usdskel Skin.joint_matrices", items,
                lambda: skin.joint_matrices(scene, clip, t),
                "Scene.pose + NumPy level by level, @ bind",
                lambda: numpy_skeleton_world(parents, *scene.pose(clip, t))
                @ skin.inverse_bind_matrices, repeats),
    ]


FBX_MOCAP = "tests/data/fbx/walk.fbx"


def bench_fbx(scale: float, repeats: int) -> list:
    """animcore.fbx.load of the 1 MB mocap walk (a clone of the repository has
    it) plus the world matrices of its clip at 30 fps, in bytes per second,
    against ufbx's load + bake when the ufbx wheel is installed (timed in a
    process of its own, see :func:`_ufbx_seconds`), and against the C record
    parse alone (the share of the time spent in Python)."""
    import pathlib

    from . import _core, fbx

    path = pathlib.Path(__file__).resolve().parent.parent / FBX_MOCAP
    if not path.is_file():
        raise ImportError(f"the mocap file ({FBX_MOCAP}) is in a clone of the repository only")
    data = path.read_bytes()

    def ours():
        scene = fbx.load_bytes(data)
        clip = scene.clips[0]
        return scene.world(clip, np.arange(clip.start, clip.stop, 1 / 30))

    rows = [compare(f"fbx load + world {path.name} (bytes)", len(data), ours,
                    "C record parse only", lambda: _core._fbx_parse(data), repeats)]
    theirs = _ufbx_seconds(path, repeats)
    if isinstance(theirs, str):
        rows.append(Skipped("fbx load + bake vs ufbx", theirs))
        return rows
    rows.append(Comparison(f"fbx load + world {path.name} (bytes)", len(data), rows[0].seconds,
                           "ufbx load + bake", theirs, target=1.0))
    return rows


_UFBX_TIMING = """\
import statistics, sys, time
import ufbx
data = open(sys.argv[1], "rb").read()
def run():
    scene = ufbx.load_memory(data)
    return ufbx.bake_anim(scene, scene.anim_stacks[0].anim)
run()
spent = []
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    run()
    spent.append(time.perf_counter() - start)
print(statistics.median(spent))
"""


def _child_numbers(what: str, script: str, *args) -> list | str:
    """The numbers that ``script`` prints, run by this Python in a process of
    its own (``args`` its argv), or a string saying why there are none (the
    process crashed, failed, took over 600 s or printed something else)."""
    import subprocess
    import sys

    try:
        result = subprocess.run([sys.executable, "-c", script, *map(str, args)],
                                capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return f"the {what} process did not finish in 600 s"
    if result.returncode != 0:
        how = (f"signal {-result.returncode}" if result.returncode < 0 else
               f"exit status {result.returncode}")
        last = result.stderr.strip().splitlines()[-1:] or [""]
        return f"the {what} process failed ({how}) {last[0]}".strip()
    try:
        numbers = [float(x) for x in result.stdout.split()]
    except ValueError:
        numbers = []
    return numbers or f"the {what} process printed no numbers ({result.stdout.strip()!r})"


def _ufbx_seconds(path, repeats: int):
    """The median seconds of ufbx's load + bake of the file at ``path`` (one
    warm-up, then ``repeats`` timed runs), timed in a process of its own: the
    ufbx wheel is alpha, and a crash there must not take this process (the
    bench, or the test run calling it) down with it. A string says why there
    is no time (ufbx not installed, or its process failed)."""
    import importlib.util

    if importlib.util.find_spec("ufbx") is None:
        return "ufbx is not installed"
    numbers = _child_numbers("ufbx", _UFBX_TIMING, path, max(1, repeats))
    if isinstance(numbers, str):
        return numbers
    seconds = numbers[-1]
    return seconds if seconds > 0 else f"the ufbx process timed {seconds!r} s"


def _fbx_long_clip(data: bytes, repeat: int) -> bytes:
    """A binary FBX 7400 file with the records of ``data`` (a binary FBX 7
    file), every animation curve's keys repeated ``repeat`` times one after
    the other (a clip ``repeat`` times as long): a large file of the kind
    mocap libraries hold. Arrays are written raw (not deflated)."""
    import struct

    from . import fbx

    f = fbx._File(data, "long clip")
    kinds = f.properties["type"].tolist()
    offsets, lengths = f.properties["offset"].tolist(), f.properties["length"].tolist()
    curves = {r for r in range(len(f.names)) if f.names[r] == "AnimationCurve"}
    scalar = {b"Y": "<h", b"C": "<B", b"I": "<i", b"F": "<f", b"D": "<d", b"L": "<q"}

    def value(i: int, longer: bool, name: str) -> bytes:
        kind = kinds[i]
        if kind in scalar:
            return kind + struct.pack(scalar[kind], f._values[i])
        if kind in (b"S", b"R"):
            start, length = offsets[i], lengths[i]
            return kind + struct.pack("<I", length) + data[start:start + length]
        array = np.asarray(f.array(i))
        if longer and name == "KeyTime":
            span = int(array[-1] - array[0]) + int(array[-1] - array[-2] if len(array) > 1 else 1)
            array = (array[None, :] + span * np.arange(repeat)[:, None]).reshape(-1)
        elif longer and name in ("KeyValueFloat", "KeyValueDouble"):
            array = np.tile(array, repeat)
        elif longer and name == "KeyAttrRefCount":
            array = array * repeat
        raw = array.astype(array.dtype.newbyteorder("<")).tobytes()
        return kind + struct.pack("<III", len(array), 0, len(raw)) + raw

    def record(r: int, at: int, longer: bool) -> bytes:
        name = f.names[r].encode("ascii")
        first, count = f.firsts[r], f.counts[r]
        props = b"".join(value(i, longer, f.names[r]) for i in range(first, first + count))
        at += 13 + len(name) + len(props)
        body = []
        children = f.child_indices(r)
        for c in children:
            body.append(record(c, at, r in curves))
            at += len(body[-1])
        if children:
            body.append(bytes(13))
            at += 13
        return b"".join([struct.pack("<IIIB", at, count, len(props), len(name)), name, props,
                         *body])

    out = [b"Kaydara FBX Binary  \x00\x1a\x00" + struct.pack("<I", 7400)]
    at = len(out[0])
    for r in f.child_indices(-1):
        out.append(record(r, at, False))
        at += len(out[-1])
    return b"".join(out) + bytes(13)


def bench_fbx_large(scale: float, repeats: int) -> list:
    """animcore.fbx.load of a large binary file (the mocap walk with each
    curve's keys repeated: about 24 MB at scale 1), in bytes per second,
    against the C record parse alone and the budget of 20 MB/s."""
    import pathlib

    from . import _core, fbx

    path = pathlib.Path(__file__).resolve().parent.parent / FBX_MOCAP
    if not path.is_file():
        raise ImportError(f"the mocap file ({FBX_MOCAP}) is in a clone of the repository only")
    data = _fbx_long_clip(path.read_bytes(), max(1, int(64 * scale)))
    rows = [compare(f"fbx_large load {len(data) / 1e6:.1f} MB binary (bytes)", len(data),
                    lambda: fbx.load_bytes(data), "C record parse only",
                    lambda: _core._fbx_parse(data), max(1, min(repeats, 3)))]
    rows.append(Budget("fbx_large load at 20 MB/s (bytes)", len(data),
                       rows[0].seconds, len(data) / 20e6))
    return rows


def _bake_library(folder: str, clips: int) -> tuple[list[str], int]:
    """Folders of hard links to the repository's glTF test assets (the built-in
    sample outside a checkout), repeated until they hold ``clips`` clips.
    Returns their glob patterns and the number of clips."""
    import os
    import pathlib

    from . import gltf

    assets = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "gltf"
    files = sorted(p for p in assets.rglob("*") if p.suffix in (".gltf", ".glb", ".bin"))
    if not files:
        files = [pathlib.Path(str(gltf.sample_path()))]
    per_copy = sum(len(gltf.load(p)) for p in files if p.suffix != ".bin")
    copies = max(1, -(-clips // per_copy))
    for i in range(copies):
        for path in files:
            target = pathlib.Path(folder, f"copy{i}", path.relative_to(path.parents[1]))
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(path, target)
            except OSError:  # another file system: copy
                target.write_bytes(path.read_bytes())
    return ([os.path.join(folder, f"copy{i}", "**", "*.gl*") for i in range(copies)],
            copies * per_copy)


def _cluster_process(workers: int):
    """A :func:`animcore.dask.local_cluster` running in a process of its own, as
    a cluster reached with ``--scheduler`` does: its scheduler and nannies
    share neither this process's interpreter lock nor its event loop. Returns
    the process (it closes the cluster and exits once a line is written to
    its stdin: see :func:`_close_cluster_process`) and the scheduler's address."""
    import os
    import pathlib
    import subprocess
    import sys

    root = str(pathlib.Path(__file__).resolve().parent.parent)
    path = os.environ.get("PYTHONPATH")
    env = dict(os.environ, PYTHONPATH=root if not path else root + os.pathsep + path)
    code = ("import sys\n"
            "from animcore.dask import local_cluster\n"
            f"with local_cluster({workers}) as cluster:\n"
            "    print(cluster.scheduler_address, flush=True)\n"
            "    sys.stdin.readline()\n")
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env=env)
    address = process.stdout.readline().strip()
    if not address:
        process.wait()
        raise RuntimeError("bench: the cluster process exited before it started")
    return process, address


def _close_cluster_process(process) -> None:
    """Asks the process of :func:`_cluster_process` to close its cluster (by a
    line, not the end of its stdin: processes forked from this one since it
    started hold the pipe open too) and waits for it."""
    import subprocess

    try:
        process.stdin.write("close\n")
        process.stdin.close()
        process.wait(timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        process.kill()
        process.wait()


# bake --workers 2 in a fresh interpreter, which then prints the largest
# resident size (KB) of its pool's workers: in this process RUSAGE_CHILDREN
# would also count every process the run has started before, and workers
# forked from a process that has grown through the other cases.
_POOL_PEAK_SCRIPT = """
import resource, sys
from multiprocessing import forkserver
from animcore.bake import bake_local
bake_local(sys.argv[2:], sys.argv[1], workers=2)
# (workers started by a fork server, Python 3.12+, are its children: they
# count here once it has stopped and been waited for)
getattr(forkserver._forkserver, "_stop", lambda: None)()
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def bench_bake(scale: float, repeats: int) -> list[Comparison]:
    """2,000 clips (the test assets repeated) baked to one .npz per clip with
    two local workers against one process, same run: local processes
    (``bake --workers 2``, which forks its workers inside the timed call) and
    ``bake_many`` on two Dask workers, both end to end (its own LocalCluster
    started and closed inside the timed call, as the process pool is) and on
    a running cluster (as with ``--scheduler``: a LocalCluster started
    beforehand in a process of its own). Every path is timed once per
    repeat, in turn. Dask is left out of small runs (under 200 clips). Peak
    memory: the largest resident size of the pool's workers (a run of its
    own, in a fresh interpreter), and of each Dask worker of the running
    cluster."""
    import resource
    import shutil
    import tempfile

    from .bake import bake_local

    clips = max(20, int(2000 * scale))
    folder = tempfile.mkdtemp(prefix="animcore-bench-")
    try:
        inputs, n = _bake_library(folder + "/in", clips)
        out = folder + "/out"

        def one_process():
            shutil.rmtree(out, ignore_errors=True)
            return bake_local(inputs, out, workers=1)

        def processes():
            shutil.rmtree(out, ignore_errors=True)
            return bake_local(inputs, out, workers=2)

        peak = _child_numbers("bake --workers 2", _POOL_PEAK_SCRIPT, out, *inputs)
        pool_peak = f"{peak[0] / 1024:.0f}" if isinstance(peak, list) else "unknown"
        try:
            import distributed

            from .dask import bake_many
        except ImportError:
            distributed = None
        if distributed is None or n < 200:
            baseline, seconds = interleaved_medians([one_process, processes], repeats)
            return [Comparison(f"bake --workers 2 ({n} clips, peak {pool_peak} MB/worker)",
                               n, seconds, "one process", baseline, 1.7)]
        cluster, address = _cluster_process(2)
        try:
            with distributed.Client(address) as client:
                def on_dask():
                    shutil.rmtree(out, ignore_errors=True)
                    return bake_many(inputs, out, workers=2, progress="never")

                def on_running_dask():
                    shutil.rmtree(out, ignore_errors=True)
                    return bake_many(inputs, out, client=client, progress="never")

                baseline, pool, dask, running = interleaved_medians(
                    [one_process, processes, on_dask, on_running_dask], repeats)
                peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        finally:
            _close_cluster_process(cluster)
        peaks = ", ".join(f"{p / 1024:.0f}" for p in peaks.values())
        return [
            Comparison(f"bake --workers 2 ({n} clips, peak {pool_peak} MB/worker)", n,
                       pool, "one process", baseline, 1.7),
            Comparison("bake_many, 2 Dask workers started in the call", n, dask,
                       "one process", baseline, 1.7),
            Comparison(f"bake_many, running 2-worker cluster (peak {peaks} MB)", n, running,
                       "one process", baseline, 1.7),
        ]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _write_animation_glb(path: str, nodes: int, keys: int, seed: int = 0) -> int:
    """A .glb of ``nodes`` nodes, each with LINEAR translation, rotation and
    scale channels of ``keys`` float32 keys on one shared time accessor, written
    with json and struct alone. Returns its size in bytes."""
    import json
    import struct

    rng = np.random.default_rng(seed)
    blob, views, accessors = bytearray(), [], []

    def add(values, kind: str, bounds: bool = False) -> int:
        data = np.ascontiguousarray(values, dtype="<f4")
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": data.nbytes})
        blob.extend(data.tobytes())  # float32 sizes keep every offset 4-aligned
        accessor = {"bufferView": len(views) - 1, "componentType": 5126,
                    "count": len(data), "type": kind}
        if bounds:
            accessor.update(min=[float(data.min())], max=[float(data.max())])
        accessors.append(accessor)
        return len(accessors) - 1

    times = add(np.arange(keys) / 30.0, "SCALAR", bounds=True)
    samplers, channels = [], []
    for n in range(nodes):
        q = rng.normal(size=(keys, 4))
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        for path_name, values, kind in (("translation", rng.normal(size=(keys, 3)), "VEC3"),
                                        ("rotation", q, "VEC4"),
                                        ("scale", 1.0 + 0.1 * rng.random((keys, 3)), "VEC3")):
            samplers.append({"input": times, "output": add(values, kind),
                             "interpolation": "LINEAR"})
            channels.append({"sampler": len(samplers) - 1,
                             "target": {"node": n, "path": path_name}})
    doc = {"asset": {"version": "2.0"}, "nodes": [{"name": f"joint{n}"} for n in range(nodes)],
           "buffers": [{"byteLength": len(blob)}], "bufferViews": views,
           "accessors": accessors,
           "animations": [{"name": "take", "samplers": samplers, "channels": channels}]}
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    size = 12 + 8 + len(text) + 8 + len(blob)
    with open(path, "wb") as stream:
        stream.write(struct.pack("<III", 0x46546C67, 2, size))
        stream.write(struct.pack("<II", len(text), 0x4E4F534A) + text)
        stream.write(struct.pack("<II", len(blob), 0x004E4942))
        stream.write(blob)
    return size


def trivial_glb_reader(path: str) -> list:
    """The least a reader does: the JSON chunk parsed, every accessor viewed with
    np.frombuffer and copied to float64 (tightly packed float32 accessors only)."""
    import json
    import struct

    with open(path, "rb") as stream:
        data = stream.read()
    length = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + length])
    binary = memoryview(data)[20 + length + 8:]
    widths = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
    arrays = []
    for accessor in doc["accessors"]:
        view = doc["bufferViews"][accessor["bufferView"]]
        offset = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
        arrays.append(np.frombuffer(binary, "<f4", accessor["count"] * widths[accessor["type"]],
                                    offset).astype(np.float64))
    return arrays


def bench_ingest(scale: float, repeats: int) -> list[Comparison]:
    """gltf.load of a large .glb (100 nodes x 3 LINEAR channels x 20,000 keys at
    scale 1, about 80 MB) against the trivial reader of the same file."""
    import os
    import tempfile

    from . import gltf

    nodes, keys = 100, max(2, int(20_000 * scale))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "ingest.glb")
        size = _write_animation_glb(path, nodes, keys)
        runs = max(1, min(repeats, 3))  # seconds per run at full scale

        def load_and_sample():
            # a rotation curve builds its slerp form when first sampled: this
            # row shows the load with that cost paid
            for clip in gltf.load(path):
                for channel in clip.channels:
                    channel.sample(0.0)

        return [compare(f"ingest gltf.load .glb ({size / 1e6:.1f} MB, {nodes}x3 ch)",
                        nodes * 3 * keys, lambda: gltf.load(path),
                        "json + np.frombuffer, float64 copies", lambda: trivial_glb_reader(path),
                        runs, target=0.5),
                compare("ingest gltf.load + one sample per channel", nodes * 3 * keys,
                        load_and_sample, "json + np.frombuffer, float64 copies",
                        lambda: trivial_glb_reader(path), runs),
                _ingest_peak(path, size)]


# gltf.load + bake.bake at 30 fps in a fresh interpreter: the peak resident
# size above the one after the imports. VmHWM, the high-water mark of this
# process's own memory (ru_maxrss would count the parent's, which exec keeps).
_PEAK_SCRIPT = """
import sys
from animcore import bake, gltf
def high_water():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
base = high_water()
arrays = bake.bake(gltf.load(sys.argv[1]), 30.0)
print(high_water() - base, sum(a.nbytes for a in arrays.values()))
"""


def _ingest_peak(path: str, size: int):
    """The peak memory of loading and baking the ingest file, against 3x the
    file's bytes and the baked arrays' bytes (Linux: read from /proc)."""
    import os

    kernel = "ingest gltf.load + bake 30 fps, peak memory"
    if not os.path.exists("/proc/self/status"):
        return Skipped(kernel, "the peak is read from /proc/self/status (Linux)")
    numbers = _child_numbers("gltf.load + bake", _PEAK_SCRIPT, path)
    if isinstance(numbers, str) or len(numbers) != 2:
        return Skipped(kernel, numbers if isinstance(numbers, str) else f"printed {numbers}")
    peak, output = (int(x) for x in numbers)
    return Memory(kernel, peak, size + output, 3.0)


def numpy_two_bone(start, mid, end, target, pole):
    """Two-bone IK in plain NumPy over (N, 3) arrays, the baseline of
    `ik_two_bone`: the end on the start-target line at the clamped reach, the
    mid by the law of cosines in the pole's half plane, then two shortest-arc
    corrections (start bone onto the new mid, second bone onto the new end)."""
    def unit(v):
        return v / np.linalg.norm(v, axis=-1, keepdims=True)

    def from_to(u, v):
        q = np.concatenate([np.cross(u, v), 1.0 + np.sum(u * v, -1, keepdims=True)], -1)
        return unit(q)

    def rotate(q, v):
        u, w = q[..., :3], q[..., 3:]
        t = 2.0 * np.cross(u, v)
        return v + w * t + np.cross(u, t)

    l1 = np.linalg.norm(mid - start, axis=-1)
    l2 = np.linalg.norm(end - mid, axis=-1)
    d = target - start
    a = unit(d)
    r = np.clip(np.linalg.norm(d, axis=-1), np.abs(l1 - l2), l1 + l2)
    cos_a = np.clip((l1 * l1 + r * r - l2 * l2) / (2.0 * l1 * r), -1.0, 1.0)
    ps = pole - start
    b = unit(ps - np.sum(ps * a, -1, keepdims=True) * a)
    new_mid = l1[:, None] * (cos_a[:, None] * a + np.sqrt(1.0 - cos_a * cos_a)[:, None] * b)
    rotation_start = from_to(unit(mid - start), unit(new_mid))
    bone = rotate(rotation_start, end - mid)
    rotation_mid = from_to(unit(bone), unit(r[:, None] * a - new_mid))
    return rotation_start, rotation_mid


def bench_ik(scale: float, repeats: int) -> list[Comparison]:
    """ik_two_bone on 10^6 random chains against the same solve in plain NumPy."""
    from .ik import ik_two_bone

    n = max(1, int(10**6 * scale))
    rng = np.random.default_rng(0)
    start = rng.normal(size=(n, 3))
    mid = start + rng.normal(size=(n, 3))
    end = mid + rng.normal(size=(n, 3))
    target = start + rng.normal(size=(n, 3))
    pole = start + rng.normal(size=(n, 3))
    # the same solve one configuration at a time (as a per-pose loop in
    # Python would call it), timed on a slice and scaled to n items
    part = min(n, 2000)

    def per_item():
        for i in range(part):
            numpy_two_bone(start[i:i + 1], mid[i:i + 1], end[i:i + 1], target[i:i + 1],
                           pole[i:i + 1])

    ours, theirs = interleaved_medians(
        [lambda: ik_two_bone(start, mid, end, target, pole), per_item], repeats)
    return [
        # the target's baseline is the per-item solve (below); this row is for information
        compare("ik ik_two_bone(start, mid, end, target, pole)", n,
                lambda: ik_two_bone(start, mid, end, target, pole),
                "law-of-cosines solve in plain NumPy",
                lambda: numpy_two_bone(start, mid, end, target, pole), repeats),
        Comparison("ik ik_two_bone(start, mid, end, target, pole)", n, ours,
                   f"the NumPy solve per item ({part:,} timed)", theirs * n / part, 10),
        _bench_retarget(scale, repeats),
    ]


def _bench_retarget(scale: float, repeats: int) -> Budget:
    """retarget of a 1-minute 30 fps clip (every joint rotated, the root
    translated) between two 60-joint rigs of different proportions, within a
    budget of 100 ms."""
    from .model import Channel, Clip, Node, Scene
    from .retarget import retarget
    from .rotations import RotationCurve

    joints, frames = 60, max(2, int(1800 * scale))
    rng = np.random.default_rng(1)
    parents = [-1] + [int(rng.integers(0, j)) for j in range(1, joints)]

    def rig(size, clips=()):
        nodes = tuple(Node(j, f"joint{j}", parents[j],
                           tuple(c for c in range(joints) if parents[c] == j),
                           size * (np.array([0.0, 0.1, 0.02]) if j else np.array([0.0, 1.0, 0.0])),
                           np.array([0.0, 0.0, 0.0, 1.0]), np.ones(3)) for j in range(joints))
        return Scene(nodes, ((0,),), 0, (), clips)

    t = np.arange(frames) / 30.0
    channels = []
    for j in range(joints):
        q = rng.normal(size=(frames, 4)) * 0.05 + [0.0, 0.0, 0.0, 1.0]
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        channels.append(Channel(j, f"joint{j}", "rotation", "linear", 4, t, q,
                                RotationCurve(t, q), f"joint{j}"))
    root = rng.normal(size=(frames, 3)) * 0.01 + [0.0, 1.0, 0.0]
    channels.append(Channel(0, "joint0", "translation", "linear", 3, t, root,
                            Curve(t, root, interpolation="linear"), "joint0"))
    clip = Clip("take", float(t[-1]), tuple(channels))
    source, target = rig(1.0, (clip,)), rig(1.3)
    seconds = median_seconds(lambda: retarget(source, clip, target), max(1, min(repeats, 5)))
    return Budget(f"ik retarget ({frames} frames x {joints} joints)", frames * joints, seconds,
                  0.1)


# One entry per domain: name -> function(scale, repeats) returning comparisons.
def numpy_blend_poses(a, b, w):
    """blend_poses in plain NumPy: lerp of translation and scale, the
    shortest-arc slerp (numpy_slerp) of rotation."""
    ww = w[..., None]
    return ((1.0 - ww) * a[0] + ww * b[0], numpy_slerp(a[1], b[1], w),
            (1.0 - ww) * a[2] + ww * b[2])


def bench_blend(scale: float, repeats: int) -> list[Comparison]:
    """blend_poses on 10^6 joint poses (1,000 frames of 1,000 joints)
    against the same formulas in plain NumPy."""
    from .blend import blend_poses
    from .skeleton import Transforms

    n = max(1, int(10**6 * scale))
    rng = np.random.default_rng(0)

    def pose():
        q = rng.normal(size=(n, 4))
        q /= np.linalg.norm(q, axis=-1, keepdims=True)
        return Transforms(rng.normal(size=(n, 3)), q, rng.uniform(0.5, 2.0, (n, 3)))

    a, b, w = pose(), pose(), rng.uniform(0.0, 1.0, n)
    return [
        compare("blend blend_poses(a, b, w)", n, lambda: blend_poses(a, b, w),
                "lerp + shortest-arc slerp in NumPy", lambda: numpy_blend_poses(a, b, w),
                repeats, target=5),
    ] + _bench_layer_pose(scale, repeats)


def _numpy_quat_mul(a, b):
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz],
                    axis=-1)


def _bench_layer_pose(scale: float, repeats: int) -> list[Comparison]:
    """LayerStack.pose of three layers on the Fox (walk, a run blended in,
    an additive survey) against the three clips sampled by Scene.pose and
    blended with the same formulas in NumPy."""
    import pathlib

    from . import gltf
    from .layers import Layer, LayerStack, Track

    path = pathlib.Path(__file__).resolve().parent.parent / FOX
    if not path.is_file():
        return []
    scene = gltf.load_scene(path)
    walk, run, survey = (scene.clip(n) for n in ("Walk", "Run", "Survey"))
    frames = max(2, int(1000 * scale))
    t = np.linspace(0.0, walk.duration, frames)
    stack = LayerStack([
        Track([Layer(walk, frame_start=0.0, frame_end=walk.duration)]),
        Track([Layer(run, influence=0.4, frame_start=0.0, frame_end=walk.duration,
                     action_frame_start=0.0, action_frame_end=walk.duration)]),
        Track([Layer(survey, mode="ADD", influence=0.5, frame_start=0.0,
                     frame_end=walk.duration, action_frame_start=0.0,
                     action_frame_end=walk.duration)])])
    rest = scene.pose(None, 0.0)

    def baseline():
        lower = scene.pose(walk, t)
        top = scene.pose(run, t)
        w = np.full(t.shape + (1,), 0.4)
        mixed = numpy_blend_poses(tuple(a.reshape(-1, a.shape[-1]) for a in lower),
                                  tuple(a.reshape(-1, a.shape[-1]) for a in top),
                                  np.full(lower.rotation[..., 0].size, 0.4))
        add = scene.pose(survey, t)
        inv = rest.rotation * np.array([-1.0, -1.0, -1.0, 1.0])
        delta = _numpy_quat_mul(inv, add.rotation).reshape(-1, 4)
        ident = np.tile([0.0, 0.0, 0.0, 1.0], (len(delta), 1))
        half = numpy_slerp(ident, delta, np.full(len(delta), 0.5))
        return (mixed[0] + 0.5 * (add.translation - rest.translation).reshape(-1, 3),
                _numpy_quat_mul(mixed[1], half),
                mixed[2] * ((add.scale / rest.scale).reshape(-1, 3)) ** w.reshape(-1)[:1])

    nodes = len(scene.nodes)
    return [compare(f"blend LayerStack.pose (3 layers, Fox, {frames} frames)", frames * nodes,
                    lambda: stack.pose(scene, t), "Scene.pose x3 + NumPy blends", baseline,
                    repeats, target=3)]


@dataclass
class Ratio(Comparison):
    """A measured size ratio (compression) against its target: ``items`` raw
    bytes, ``compressed`` bytes, ``seconds`` the time compression took."""
    compressed: int = 1
    error: float = 0.0

    @property
    def ratio(self) -> float:
        return self.items / self.compressed

    def line(self, scale: float = 1.0) -> str:
        verdict = ("ok" if self.ratio >= self.target
                   else "MISSED" if scale >= 1 else "n/a at this scale")
        return (f"{self.kernel:<44} {self.items:>10,d} raw bytes -> {self.compressed:,d} "
                f"in {self.seconds:.2f} s (max error {self.error:.3g} m) | {self.ratio:6.2f}:1"
                f"  target >= {self.target:g}:1 {verdict}")


# metres per unit of the shared BVH clips (see tests/test_reduce.py)
BVH_UNITS = {"cmu_12_01_walk.bvh": 0.0254 / 0.45, "bvh_test2.bvh": 0.01, "bvh_test1.bvh": 0.0254}


def bench_compress(scale: float, repeats: int) -> list:
    """compress at 0.1 mm and a 3 cm shell (ACL's default) on the shared
    motion-capture clips: the ratio in ACL's units, and the decompression of
    one pose (CompressedClip.sample) against Scene.pose on the clip."""
    import pathlib

    from .files import load
    from .reduce import compress

    folder = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "bvh"
    if not folder.is_dir():
        raise ImportError("the BVH clips (tests/data/bvh) are in a clone of the repository only")
    rows: list = []
    for name, unit in BVH_UNITS.items():
        scene = load(str(folder / name)) if scale >= 1 else _first_frames(folder / name, scale)
        clip = scene.clips[0]
        start = time.perf_counter()
        packed = compress(scene, clip, 1e-4 / unit, shell=0.03 / unit)
        seconds = time.perf_counter() - start
        rows.append(Ratio(f"compress ratio {name}", packed.raw_nbytes, seconds,
                          "raw: 10 float32 per node per frame", seconds, 10.0,
                          packed.nbytes, packed.error * unit))
        if name.startswith("cmu"):
            t = clip.duration * 0.37
            rows.append(compare(f"compress sample one pose ({packed.nodes} nodes)", packed.nodes,
                                lambda: packed.sample(t), "Scene.pose on the clip",
                                lambda: scene.pose(clip, t), max(repeats, 5) * 4, target=10,
                                calls=100))
            rows.append(_bench_reduce_minute(scene, clip, unit, scale, repeats))
    return rows


def _first_frames(path, scale: float):
    """The scene of a BVH file cut to its first frames (``scale`` of them, at
    least 8), for a small run."""
    import os
    import tempfile

    from .files import load

    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Frames:"))
    frames = max(8, int(int(lines[at].split()[1]) * scale))
    lines[at] = f"Frames: {frames}"
    with tempfile.TemporaryDirectory() as folder:
        cut = os.path.join(folder, path.name)
        with open(cut, "w") as file:
            file.write("\n".join(lines[:at + 2 + frames]) + "\n")
        return load(cut)


def _bench_reduce_minute(scene, clip, unit: float, scale: float, repeats: int) -> Budget:
    """reduce_clip at 0.1 mm and a 3 cm shell of a 1-minute 30 fps capture
    (the walk looped and sampled at 30 fps: every channel keyed on every
    frame), within a budget of 2 s."""
    import dataclasses

    from .model import Channel, Clip
    from .reduce import reduce_clip
    from .rotations import RotationCurve

    frames = max(2, int(1800 * scale))
    t = np.arange(frames) / 30.0
    looped = t % clip.duration
    channels = []
    for c in clip.channels:
        v = c.sample(looped).reshape(frames, -1)
        curve = (RotationCurve(t, v) if c.path == "rotation"
                 else Curve(t, v, interpolation="linear"))
        channels.append(Channel(c.node, c.node_name, c.path, "linear", c.width, t, v, curve,
                                c.target))
    minute = Clip(f"{clip.name} (1 min)", float(t[-1]), tuple(channels))
    rig = dataclasses.replace(scene, clips=(minute,))
    seconds = median_seconds(
        lambda: reduce_clip(rig, minute, 1e-4 / unit, shell=0.03 / unit), max(1, min(repeats, 3)))
    return Budget(f"reduce reduce_clip ({frames} frames x {len(scene.nodes)} nodes)",
                  frames * len(scene.nodes), seconds, 2.0)


CASES = {
    "hermite": bench_hermite,
    "curves": bench_curves,
    "keyframes": bench_keyframes,
    "construction": bench_construction,
    "easing": bench_easing,
    "rotations": bench_rotations,
    "rotation_curve": bench_rotation_curve,
    "rootmotion": bench_rootmotion,
    "contact": bench_contact,
    "snapshot": bench_snapshot,
    "binding": bench_binding,
    "skeleton": bench_skeleton,
    "rig": bench_rig,
    "usdskel": bench_usdskel,
    "fbx": bench_fbx,
    "fbx_large": bench_fbx_large,
    "bake": bench_bake,
    "ingest": bench_ingest,
    "blend": bench_blend,
    "ik": bench_ik,
    "cleanup": bench_cleanup,
    "compress": bench_compress,
}


def run(names=None, scale: float = 1.0, repeats: int = 5, write=print) -> list[Comparison]:
    unknown = set(names or ()) - CASES.keys()
    if unknown:
        raise ValueError(f"bench: unknown case(s) {sorted(unknown)}; known: {sorted(CASES)}")
    results = []
    write(f"animcore bench: median of {repeats} repeats, numpy {np.__version__}" + (
        f", --scale {scale:g} (targets are for --scale 1)" if scale != 1 else ""))
    for name, case in CASES.items():
        if names and name not in names:
            continue
        try:
            comparisons = case(scale, repeats)
        except ImportError as error:  # a baseline library (scipy) is not installed
            write(f"{name:<44} skipped: {error}")
            continue
        for comparison in comparisons:
            write(comparison.line(scale))
            if isinstance(comparison, Comparison):
                results.append(comparison)
    return results
