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

from .contact import advance_projectiles, bounce
from .hermite import hermite


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


def numpy_bounce(velocity, surface_velocity, normal, restitution):
    """The bounce formula in plain NumPy, the baseline of `bounce`."""
    w = velocity - surface_velocity
    s = np.einsum("...k,...k->...", w, normal)
    k = np.where(s < 0.0, (1.0 + restitution) * s, 0.0)
    return velocity - k[..., None] * normal


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


def bench_contact(scale: float, repeats: int) -> list[Comparison]:
    n = max(1, int(10**7 * scale))
    rng = np.random.default_rng(0)
    velocity = rng.normal(0.0, 5.0, (n, 3))
    surface = rng.normal(0.0, 1.0, (n, 3))
    normal = rng.normal(size=(n, 3))
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    normal /= np.sqrt(np.einsum("ik,ik->i", normal, normal))[:, None]  # |n.n - 1| ~ 1e-16
    wall = np.array([2.0, 0.0, -1.0])
    comparisons = [
        compare("contact bounce (3-D, v, u, n per contact)", n,
                lambda: bounce(velocity, surface, normal, 0.5),
                "same formula in plain NumPy",
                lambda: numpy_bounce(velocity, surface, normal, 0.5), repeats, target=5),
        compare("contact bounce (3-D, one moving wall's u)", n,
                lambda: bounce(velocity, wall, normal, 0.5),
                "same formula in plain NumPy",
                lambda: numpy_bounce(velocity, wall, normal, 0.5), repeats, target=5),
    ]
    del velocity, surface, normal
    m = max(1, int(10**5 * scale))
    scene = projectile_scene(m)
    comparisons.append(
        compare("contact advance_projectiles (3-D, 8 planes)", m,
                lambda: advance_projectiles(*scene, 0.8, friction=0.1),
                "plain NumPy, a pass per bounce",
                lambda: numpy_advance_projectiles(*scene, 0.8, 0.1), repeats, target=10))
    return comparisons


# One entry per domain: name -> function(scale, repeats) returning comparisons.
CASES = {
    "hermite": bench_hermite,
    "contact": bench_contact,
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
