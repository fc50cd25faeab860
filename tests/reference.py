"""Independent references for the tests, written in plain NumPy.

They derive the expected values by other routes than the kernels (Bezier
control points instead of the Hermite basis, analytic polynomials, piecewise
integration) so that a shared mistake cannot pass unnoticed.
"""
import numpy as np
import scipy.optimize


def hermite_bezier(p0, p1, v0, v1, duration, elapsed):
    """Hermite segment via its Bezier form and de Casteljau's algorithm.

    Per-second velocities v become control points p0 + v*T/3 and p1 - v*T/3;
    the derivative of a cubic Bezier is 3 * (quadratic Bezier of differences),
    divided by T to go from d/du to d/dt.
    """
    p0, p1, v0, v1, T, t = np.broadcast_arrays(*map(np.asarray, (p0, p1, v0, v1, duration, elapsed)))
    c = [p0, p0 + v0 * T / 3.0, p1 - v1 * T / 3.0, p1]
    u = t / T
    lerp = lambda a, b: a + (b - a) * u  # noqa: E731
    q = [lerp(c[0], c[1]), lerp(c[1], c[2]), lerp(c[2], c[3])]
    r = [lerp(q[0], q[1]), lerp(q[1], q[2])]
    position = lerp(r[0], r[1])
    velocity = 3.0 * (r[1] - r[0]) / T
    return position, velocity


def cubic(a, b, t):
    """f(t) = a t^3 + b t^2 + 2 t - 3 and its derivative (article 000's sweep)."""
    return a * t**3 + b * t**2 + 2 * t - 3, 3 * a * t**2 + 2 * b * t + 2


# ---- curve ----

def piecewise_hermite(times, values, in_velocities, out_velocities, t):
    """A multi-key Hermite track evaluated through `hermite_bezier`, segment by
    segment, with the segment found by numpy.searchsorted (t inside the keys)."""
    times = np.asarray(times, float)
    values, vin, vout = (np.asarray(a, float) for a in (values, in_velocities, out_velocities))
    t = np.asarray(t, float)
    j = np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2)
    T = times[j + 1] - times[j]
    if values.ndim == 2:
        T, elapsed = T[..., None], (t - times[j])[..., None]
    else:
        elapsed = t - times[j]
    return hermite_bezier(values[j], values[j + 1], vout[j], vin[j + 1], T, elapsed)


def catmull_rom_velocities(times, values):
    """Time-aware Catmull-Rom key velocities, written as a weighted average of
    the two neighbouring segment slopes (weights h0/(h0+h1) and h1/(h0+h1));
    end keys take their segment's slope."""
    times = np.asarray(times, float)
    values = np.asarray(values, float)
    h = np.diff(times)
    d = np.diff(values, axis=0) / (h if values.ndim == 1 else h[:, None])
    v = np.empty_like(values)
    v[0], v[-1] = d[0], d[-1]
    w0 = h[:-1] / (h[:-1] + h[1:])
    w1 = h[1:] / (h[:-1] + h[1:])
    if values.ndim == 2:
        w0, w1 = w0[:, None], w1[:, None]
    v[1:-1] = w0 * d[:-1] + w1 * d[1:]
    return v


def uniform_catmull_rom_velocities(times, values):
    """Legacy Catmull-Rom: the tangent (v[i+1] - v[i-1]) / 2 per unit u on both
    sides, divided by each side's own segment duration (in, out)."""
    times = np.asarray(times, float)
    values = np.asarray(values, float)
    m = np.empty_like(values)
    m[1:-1] = (values[2:] - values[:-2]) / 2.0
    m[0], m[-1] = values[1] - values[0], values[-1] - values[-2]
    h = np.diff(times)
    h_in = np.r_[h[0], h]
    h_out = np.r_[h, h[-1]]
    if values.ndim == 2:
        h_in, h_out = h_in[:, None], h_out[:, None]
    return m / h_in, m / h_out


# ---- snapshot ----

def hemisphere_chain(keys):
    """Unit keys each negated, if needed, to lie in the hemisphere of the one
    before (a loop over keys, as a DCC's quaternion "sign fix" does)."""
    out = [np.asarray(keys[0], float) / np.linalg.norm(keys[0])]
    for q in keys[1:]:
        q = np.asarray(q, float) / np.linalg.norm(q)
        out.append(-q if np.dot(out[-1], q) < 0 else q)
    return np.array(out)


def quat_components_product(a, b):
    """a * b from the components (x, y, z, w) of each, scalars or arrays, with
    the C helper's operations in its order."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def quat_power_slerp(a, b, t):
    """Shortest-arc slerp as a * (a^-1 b)^t through the axis-angle power of the
    relative rotation (another route than the 4-D sine weights); t may exceed
    1 (extrapolation)."""
    import math
    inv = (-a[0], -a[1], -a[2], a[3])
    r = quat_components_product(inv, b)
    if r[3] < 0:  # q and -q: take the short way round
        r = tuple(-c for c in r)
    s = math.sqrt(r[0] ** 2 + r[1] ** 2 + r[2] ** 2)
    half = math.atan2(s, r[3])
    if s == 0.0:
        p = (0.0, 0.0, 0.0, 1.0)
    else:
        k = math.sin(t * half) / s
        p = (r[0] * k, r[1] * k, r[2] * k, math.cos(t * half))
    q = quat_components_product(a, p)
    n = math.sqrt(sum(c * c for c in q))
    return tuple(c / n for c in q)


class SnapshotModel:
    """The snapshot rules of article 003 and issue 7 in plain Python, kept as
    simply as possible: the whole accepted history in a list (the ring's
    capacity only limits which of it sampling sees), the article's linear
    scan for sampling, and a dict as the reorder receive buffer."""

    EMPTY, HOLD_OLDEST, INTERPOLATE, HOLD_LATEST, SEGMENT_CUT, EXTRAPOLATE = range(6)
    ACCEPTED, OUT_OF_ORDER, INVALID = range(3)

    def __init__(self, dim=1, capacity=64, rotations=False, max_extrapolation=0.0,
                 reorder_window=0):
        self.dim, self.capacity, self.rotations = dim, capacity, rotations
        self.max_extrapolation, self.window = float(max_extrapolation), reorder_window
        self.history = []   # accepted (tick, segment, position, rotation), tick order
        self.pending = {}   # tick -> snapshot, waiting for release
        self.newest_received = None
        self.generation = 0

    def _valid(self, segment, position, rotation):
        import math
        if segment < 0 or not all(math.isfinite(x) for x in position):
            return None
        if not self.rotations:
            return (0.0, 0.0, 0.0, 1.0)
        if not all(math.isfinite(x) for x in rotation):
            return None
        m = max(abs(x) for x in rotation)
        if m == 0.0:
            return None
        scaled = [x / m for x in rotation]
        n = math.sqrt(sum(x * x for x in scaled))
        return tuple(x / n for x in scaled)

    def push(self, tick, segment, position, rotation=None, generation=0):
        position = tuple(float(x) for x in np.atleast_1d(position))
        q = self._valid(segment, position, rotation)
        if q is None or generation < self.generation:
            return self.INVALID
        snap = (int(tick), int(segment), position, q)
        if generation > self.generation:
            self.generation, self.history = generation, [snap]
            return self.ACCEPTED
        if self.history and tick <= self.history[-1][0]:
            return self.OUT_OF_ORDER
        if self.window == 0:
            if self.history and segment < self.history[-1][1]:
                return self.INVALID
            self.history.append(snap)
            return self.ACCEPTED
        if tick in self.pending:
            return self.OUT_OF_ORDER
        earlier = [s for s in list(self.pending.values()) + self.history[-1:] if s[0] < tick]
        later = [s for s in self.pending.values() if s[0] > tick]
        if earlier and segment < max(earlier)[1]:
            return self.INVALID
        if later and segment > min(later)[1]:
            return self.INVALID
        self.pending[tick] = snap
        self.newest_received = max(tick, self.newest_received or 0)
        for t in sorted(self.pending):
            if t + self.window <= self.newest_received:
                self.history.append(self.pending.pop(t))
        return self.ACCEPTED

    def flush(self):
        count = len(self.pending)
        for t in sorted(self.pending):
            self.history.append(self.pending.pop(t))
        return count

    def retained(self):
        return self.history[-self.capacity:]

    def sample(self, t):
        """(position tuple, rotation tuple, mode, left_tick, right_tick)."""
        import math
        snaps = self.retained()
        if not snaps:
            return (0.0,) * self.dim, (0.0, 0.0, 0.0, 1.0), self.EMPTY, 0, 0
        if t <= snaps[0][0]:
            s = snaps[0]
            return s[2], s[3], self.HOLD_OLDEST, s[0], s[0]
        for left, right in zip(snaps, snaps[1:]):
            if t > right[0]:
                continue
            if left[1] != right[1]:
                return right[2], right[3], self.SEGMENT_CUT, left[0], right[0]
            alpha = (t - left[0]) / (right[0] - left[0])
            pos = tuple(a + (b - a) * alpha for a, b in zip(left[2], right[2]))
            return pos, quat_power_slerp(left[3], right[3], alpha), self.INTERPOLATE, left[0], right[0]
        last = snaps[-1]
        hold = last[2], last[3], self.HOLD_LATEST, last[0], last[0]
        if self.max_extrapolation <= 0 or len(snaps) < 2 or snaps[-2][1] != last[1]:
            return hold
        prev = snaps[-2]
        ahead = min(t - last[0], self.max_extrapolation)
        f = ahead / (last[0] - prev[0])
        pos = tuple(b + (b - a) * f for a, b in zip(prev[2], last[2]))
        if not all(math.isfinite(x) for x in pos):
            return hold
        mode = self.EXTRAPOLATE if t - last[0] <= self.max_extrapolation else self.HOLD_LATEST
        return pos, quat_power_slerp(prev[3], last[3], 1.0 + f), mode, prev[0], last[0]


# ---- rootmotion ----

def loop_integrate(times, positions, t0, t1):
    """Root motion of a looping, linearly keyed track by piecewise integration.

    For every cycle c and every key segment j, the part of the interval
    [min(t0, t1), max(t0, t1)] that overlaps the segment's unrolled time span
    [c T + times[j], c T + times[j+1]] contributes overlap duration x segment
    speed; the sum is negated for reverse intervals. No phases, no floor.
    Returns shape broadcast(t0, t1) + positions.shape[1:].
    """
    times = np.asarray(times, float)
    positions = np.asarray(positions, float)
    t0, t1 = np.broadcast_arrays(np.asarray(t0, float), np.asarray(t1, float))
    lo, hi = np.minimum(t0, t1), np.maximum(t0, t1)
    T = times[-1]
    speed = np.diff(positions, axis=0) / np.diff(times).reshape((-1,) + (1,) * (positions.ndim - 1))
    tail = positions.shape[1:]
    total = np.zeros(t0.shape + tail)
    if t0.size == 0:
        return total
    first = int(np.floor(lo.min() / T)) - 1
    last = int(np.floor(hi.max() / T)) + 1
    for c in range(first, last + 1):
        for j in range(len(times) - 1):
            a, b = c * T + times[j], c * T + times[j + 1]
            overlap = np.clip(np.minimum(hi, b) - np.maximum(lo, a), 0.0, None)
            total += overlap.reshape(overlap.shape + (1,) * len(tail)) * speed[j]
    sign = np.where(t1 >= t0, 1.0, -1.0)
    return total * sign.reshape(sign.shape + (1,) * len(tail))


def loop_catmull_rom_spline(times, positions, cycles):
    """An unrolled cubic looping track as a scipy CubicHermiteSpline over the
    given range of cycles: the keys are repeated cycle after cycle (shifted by
    the stride), and each key's velocity is the time-aware Catmull-Rom slope of
    its neighbours on that unrolled sequence, so the seam is handled by simply
    having neighbours there."""
    from scipy.interpolate import CubicHermiteSpline
    times = np.asarray(times, float)
    positions = np.asarray(positions, float)
    T = times[-1]
    D = positions[-1] - positions[0]
    first, last = cycles
    ut, up = [], []
    for c in range(first - 1, last + 2):
        ut.append(c * T + times[:-1])
        up.append(positions[:-1] + c * D)
    ut = np.concatenate(ut)
    up = np.concatenate(up)
    v = np.empty_like(up)
    v[1:-1] = (up[2:] - up[:-2]) / (ut[2:] - ut[:-2]).reshape((-1,) + (1,) * (up.ndim - 1))
    v[0], v[-1] = v[1], v[-2]  # never used: the ends lie a cycle outside the range
    return CubicHermiteSpline(ut, up, v, axis=0)


def _yaw_matrix(angle, up_axis, planar):
    from scipy.spatial.transform import Rotation
    axis = np.zeros(3)
    axis[2 if planar else up_axis] = 1.0
    return Rotation.from_rotvec(angle * axis).as_matrix()


def turning_pose(times, positions, rotations, t_local, up_axis=1):
    """4x4 homogeneous root pose P at clip time t_local in [0, T] of a turning
    track with linear positions: yaw angles (K,) interpolated linearly (scipy
    rotation about the up axis), or quaternions (K, 4) interpolated by scipy's
    Slerp. 2-D positions are the x-y plane of a z-up frame."""
    from scipy.spatial.transform import Rotation, Slerp
    times = np.asarray(times, float)
    positions = np.asarray(positions, float)
    rotations = np.asarray(rotations, float)
    planar = positions.shape[1] == 2
    p = np.array([np.interp(t_local, times, positions[:, c]) for c in range(positions.shape[1])])
    if rotations.ndim == 1:
        R = _yaw_matrix(np.interp(t_local, times, rotations), up_axis, planar)
    else:
        R = Slerp(times, Rotation.from_quat(rotations))([t_local]).as_matrix()[0]
    M = np.eye(4)
    M[:3, :3] = R
    M[: p.size, 3] = p
    return M


def turning_delta(times, positions, rotations, t0, t1, up_axis=1):
    """Rigid root motion F(t0)^-1 F(t1) by composing one cycle at a time:
    F(t) = C C ... C (k factors, or C^-1 for k < 0) P(0)^-1 P(t - kT).
    Returns (4x4 matrix, yaw angle turned or None)."""
    T = float(times[-1])
    P0 = turning_pose(times, positions, rotations, 0.0, up_axis)
    C = np.linalg.inv(P0) @ turning_pose(times, positions, rotations, T, up_axis)

    def F(t):
        k = int(np.floor(t / T))
        M = np.eye(4)
        step = C if k >= 0 else np.linalg.inv(C)
        for _ in range(abs(k)):
            M = M @ step
        return M @ np.linalg.inv(P0) @ turning_pose(times, positions, rotations, t - k * T, up_axis)

    return np.linalg.inv(F(t0)) @ F(t1)


# ---- ease ----
# Robert Penner's easing equations transcribed literally in their original
# (t, b, c, d) form, one scalar at a time, then vectorized: a different route
# from the kernels' rearranged polynomials and their endpoint handling.

import math  # noqa: E402

_PENNER_S = 1.70158


def _penner(name, t, b=0.0, c=1.0, d=1.0):  # noqa: C901 - one branch per equation
    pi = math.pi
    if name == "linear":
        return c * t / d + b
    if name == "smoothstep":
        x = t / d
        return c * (3 * x**2 - 2 * x**3) + b
    if name == "smootherstep":
        x = t / d
        return c * (6 * x**5 - 15 * x**4 + 10 * x**3) + b
    if name == "quad_in":
        t /= d
        return c * t * t + b
    if name == "quad_out":
        t /= d
        return -c * t * (t - 2) + b
    if name == "quad_in_out":
        t /= d / 2
        if t < 1:
            return c / 2 * t * t + b
        t -= 1
        return -c / 2 * (t * (t - 2) - 1) + b
    if name == "cubic_in":
        t /= d
        return c * t**3 + b
    if name == "cubic_out":
        t = t / d - 1
        return c * (t**3 + 1) + b
    if name == "cubic_in_out":
        t /= d / 2
        if t < 1:
            return c / 2 * t**3 + b
        t -= 2
        return c / 2 * (t**3 + 2) + b
    if name == "quart_in":
        t /= d
        return c * t**4 + b
    if name == "quart_out":
        t = t / d - 1
        return -c * (t**4 - 1) + b
    if name == "quart_in_out":
        t /= d / 2
        if t < 1:
            return c / 2 * t**4 + b
        t -= 2
        return -c / 2 * (t**4 - 2) + b
    if name == "quint_in":
        t /= d
        return c * t**5 + b
    if name == "quint_out":
        t = t / d - 1
        return c * (t**5 + 1) + b
    if name == "quint_in_out":
        t /= d / 2
        if t < 1:
            return c / 2 * t**5 + b
        t -= 2
        return c / 2 * (t**5 + 2) + b
    if name == "sine_in":
        return -c * math.cos(t / d * (pi / 2)) + c + b
    if name == "sine_out":
        return c * math.sin(t / d * (pi / 2)) + b
    if name == "sine_in_out":
        return -c / 2 * (math.cos(pi * t / d) - 1) + b
    if name == "expo_in":
        return b if t == 0 else c * 2 ** (10 * (t / d - 1)) + b
    if name == "expo_out":
        return b + c if t == d else c * (-(2 ** (-10 * t / d)) + 1) + b
    if name == "expo_in_out":
        if t == 0:
            return b
        if t == d:
            return b + c
        t /= d / 2
        if t < 1:
            return c / 2 * 2 ** (10 * (t - 1)) + b
        t -= 1
        return c / 2 * (-(2 ** (-10 * t)) + 2) + b
    if name == "circ_in":
        t /= d
        return -c * (math.sqrt(1 - t * t) - 1) + b
    if name == "circ_out":
        t = t / d - 1
        return c * math.sqrt(1 - t * t) + b
    if name == "circ_in_out":
        t /= d / 2
        if t < 1:
            return -c / 2 * (math.sqrt(1 - t * t) - 1) + b
        t -= 2
        return c / 2 * (math.sqrt(1 - t * t) + 1) + b
    if name == "back_in":
        s = _PENNER_S
        t /= d
        return c * t * t * ((s + 1) * t - s) + b
    if name == "back_out":
        s = _PENNER_S
        t = t / d - 1
        return c * (t * t * ((s + 1) * t + s) + 1) + b
    if name == "back_in_out":
        s = _PENNER_S * 1.525
        t /= d / 2
        if t < 1:
            return c / 2 * (t * t * ((s + 1) * t - s)) + b
        t -= 2
        return c / 2 * (t * t * ((s + 1) * t + s) + 2) + b
    if name in ("elastic_in", "elastic_out"):
        if t == 0:
            return b
        t /= d
        if t == 1:
            return b + c
        p = d * 0.3
        a = c
        s = p / 4
        if name == "elastic_in":
            t -= 1
            return -(a * 2 ** (10 * t) * math.sin((t * d - s) * (2 * pi) / p)) + b
        return a * 2 ** (-10 * t) * math.sin((t * d - s) * (2 * pi) / p) + c + b
    if name == "elastic_in_out":
        if t == 0:
            return b
        t /= d / 2
        if t == 2:
            return b + c
        p = d * (0.3 * 1.5)
        a = c
        s = p / 4
        if t < 1:
            t -= 1
            return -0.5 * (a * 2 ** (10 * t) * math.sin((t * d - s) * (2 * pi) / p)) + b
        t -= 1
        return a * 2 ** (-10 * t) * math.sin((t * d - s) * (2 * pi) / p) * 0.5 + c + b
    if name == "bounce_out":
        t /= d
        if t < 1 / 2.75:
            return c * (7.5625 * t * t) + b
        if t < 2 / 2.75:
            t -= 1.5 / 2.75
            return c * (7.5625 * t * t + 0.75) + b
        if t < 2.5 / 2.75:
            t -= 2.25 / 2.75
            return c * (7.5625 * t * t + 0.9375) + b
        t -= 2.625 / 2.75
        return c * (7.5625 * t * t + 0.984375) + b
    if name == "bounce_in":
        return c - _penner("bounce_out", d - t, 0.0, c, d) + b
    if name == "bounce_in_out":
        if t < d / 2:
            return _penner("bounce_in", t * 2, 0.0, c, d) * 0.5 + b
        return _penner("bounce_out", t * 2 - d, 0.0, c, d) * 0.5 + c * 0.5 + b
    raise KeyError(name)


def penner(name, u):
    """Penner's equation `name` at normalized times u (b=0, c=1, d=1)."""
    return np.vectorize(lambda x: _penner(name, float(x)), otypes=[float])(u)


def css_cubic_bezier(x1, y1, x2, y2, u):
    """CSS cubic-bezier by root finding on the Bernstein form with scipy's
    brentq (no Newton, no power basis), one u at a time."""
    from scipy.optimize import brentq

    def bern(p1, p2, t):
        return 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t * t * p2 + t**3

    def one(x):
        if x in (0.0, 1.0):
            return x
        t = brentq(lambda t: bern(x1, x2, t) - x, 0.0, 1.0, xtol=1e-15, rtol=1e-15)
        return bern(y1, y2, t)

    return np.vectorize(one, otypes=[float])(u)


def css_steps(n, position, u):
    """CSS steps() from the specification's wording: the output after the
    k-th jump is k / (number of jumps)."""
    u = np.asarray(u, dtype=float)
    jumps = {"jump-start": n, "jump-end": n, "jump-none": n - 1, "jump-both": n + 1}[position]
    k = np.floor(u * n) + (position in ("jump-start", "jump-both"))
    return np.minimum(k, jumps) / jumps


# ---- quat ----
# Quaternions (x, y, z, w) by other routes than the kernels: the product as a
# 4x4 matrix acting on the right operand, the glTF specification's own cubic
# spline formula, and scipy.spatial.transform where it does the same job.

def quat_product_matrix(a, b):
    """a * b as L(a) @ b, L the left-multiplication matrix of a."""
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    x, y, z, w = np.moveaxis(a, -1, 0)
    L = np.stack([
        np.stack([w, -z, y, x], -1),
        np.stack([z, w, -x, y], -1),
        np.stack([-y, x, w, z], -1),
        np.stack([-x, -y, -z, w], -1),
    ], -2)
    return np.einsum("...ij,...j->...i", L, b)


def gltf_cubic_rotation(times, in_tangents, values, out_tangents, t):
    """glTF 2.0 Appendix C cubic spline, written as the specification states
    it (t_d = t[k+1] - t[k], tangents times t_d), then normalized. One t at a
    time; t within the keys."""
    times = np.asarray(times, float)
    result = []
    for tc in np.atleast_1d(t):
        k = min(max(np.searchsorted(times, tc, side="right") - 1, 0), len(times) - 2)
        td = times[k + 1] - times[k]
        s = (tc - times[k]) / td
        p = ((2 * s**3 - 3 * s**2 + 1) * values[k] + td * (s**3 - 2 * s**2 + s) * out_tangents[k]
             + (-2 * s**3 + 3 * s**2) * values[k + 1] + td * (s**3 - s**2) * in_tangents[k + 1])
        result.append(p / np.linalg.norm(p))
    return np.array(result)


# ---- contact ----

def bounce_components(v, u, n, e, friction=0.0, threshold=0.0):
    """Contact response by splitting the relative velocity into its normal and
    tangential parts, scaling each, and adding the surface velocity back:
    w = v - u, w_n = (w . n) n, w_t = w - w_n; an approaching contact
    (w . n < 0) gets w' = -e' w_n + w_t * max(0, 1 - mu (1 + e') |w . n| / |w_t|),
    e' = e when the approach speed exceeds the threshold, else 0; v' = u + w'."""
    v, u, n = (np.asarray(x, dtype=float) for x in (v, u, n))
    e, friction, threshold = (np.asarray(x, dtype=float)[..., None] for x in (e, friction, threshold))
    w = v - u
    wn_len = np.sum(w * n, axis=-1, keepdims=True)
    w_n = wn_len * n
    w_t = w - w_n
    e_eff = np.where(-wn_len > threshold, e, 0.0)
    normal_change = (1.0 + e_eff) * np.abs(wn_len)
    t_len = np.sqrt(np.sum(w_t * w_t, axis=-1, keepdims=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = np.where(t_len > 0, np.clip(1.0 - friction * normal_change / t_len, 0.0, 1.0), 0.0)
    w_after = -e_eff * w_n + keep * w_t
    return np.where(wn_len < 0, u + w_after, v)


def cross_point_velocity(linear, angular, offset):
    """v + omega x r with np.cross; 2-D vectors are embedded in the xy-plane."""
    linear, angular, offset = (np.asarray(x, dtype=float) for x in (linear, angular, offset))
    if offset.shape[-1] == 2:
        w3 = np.zeros(angular.shape + (3,))
        w3[..., 2] = angular
        r3 = np.concatenate([offset, np.zeros(offset.shape[:-1] + (1,))], axis=-1)
        return linear + np.cross(w3, r3)[..., :2]
    return linear + np.cross(angular, offset)


def small_step_projectiles(position, velocity, radius, dt, plane_point, plane_normal,
                           plane_velocity, restitution, friction=0.0, substeps=20000):
    """Spheres against moving planes by brute-force time stepping: move every
    sphere by dt / substeps, then bounce it off any plane it started in front
    of, now touches (distance <= radius) and approaches. First-order accurate:
    positions are off by about speed * dt / substeps per contact."""
    p = np.array(position, dtype=float)
    v = np.array(velocity, dtype=float)
    q0 = np.asarray(plane_point, dtype=float)
    nrm = np.asarray(plane_normal, dtype=float)
    u = np.asarray(plane_velocity, dtype=float)
    h = dt / substeps
    front = np.einsum("ik,jk->ij", p, nrm) - np.sum(q0 * nrm, axis=1) >= 0
    bounces = np.zeros(len(p), dtype=int)
    for step in range(1, substeps + 1):
        p = p + v * h
        q = q0 + u * (step * h)
        dist = np.einsum("ik,jk->ij", p, nrm) - np.sum(q * nrm, axis=1)
        approach = np.einsum("ik,jk->ij", v, nrm) - np.sum(u * nrm, axis=1)
        touching = front & (dist <= radius) & (approach < 0)
        for j in range(len(nrm)):
            hit = touching[:, j]
            if hit.any():
                v[hit] = bounce_components(v[hit], u[j], nrm[j], restitution, friction)
                bounces[hit] += 1
                # re-evaluate approach for the remaining planes of this step
                touching[hit] &= (np.einsum("ik,jk->ij", v[hit], nrm)
                                  - np.sum(u * nrm, axis=1)) < 0
    return p, v, bounces



def _as3(x, dim):
    """2-D vectors embedded in the xy-plane; 3-D vectors as they are."""
    x = np.asarray(x, dtype=float)
    return np.append(x, 0.0) if dim == 2 else x


def _inverse_inertia3(inertia, dim):
    """A 3x3 world inverse inertia: a scalar times the identity, or the tensor.
    (In 2-D only the zz entry acts on in-plane motion.)"""
    inertia = np.asarray(inertia, dtype=float)
    return inertia * np.eye(3) if inertia.ndim == 0 else inertia


def rigid_contact(a, b, n, p, e, friction=0.0, threshold=0.0):
    """One contact between two rigid bodies, derived from the impulse system.

    `a` and `b` are dicts with v, w (scalar in 2-D), m (inverse mass), I
    (inverse inertia, scalar or 3x3) and c (center). Everything is embedded
    in 3-D with np.cross. The effective mass K is measured column by column
    by applying unit impulses to the bodies (not from a closed form), and
    the impulse solves K j = target with np.linalg.solve:
    - stick: j makes the relative contact velocity exactly -e' s n;
    - slip (when stick needs more than friction * j_n): in 2-D the friction
      impulse is +-friction * j_n along the tangent, the sign chosen so that
      it opposes the tangential velocity that remains; in 3-D its direction
      is the root (scipy's brentq over the angle in the tangent plane) of
      "the remaining slip is antiparallel to the friction impulse".
    Returns (va, wa, vb, wb, jn, jt) in the input dimension."""
    n = np.asarray(n, dtype=float)
    dim = n.shape[-1]
    p3 = _as3(p, dim)
    bodies = []
    for body in (a, b):
        w = np.asarray(body["w"], dtype=float)
        w3 = np.array([0.0, 0.0, float(w)]) if dim == 2 else w
        bodies.append(dict(v=_as3(body["v"], dim), w=w3, m=float(body["m"]),
                           I=_inverse_inertia3(body["I"], dim), r=p3 - _as3(body["c"], dim)))
    A, B = bodies

    def point_velocity(x):
        return x["v"] + np.cross(x["w"], x["r"])

    def change(x, j):  # velocity changes of a body receiving impulse j
        dv = x["m"] * j
        dw = x["I"] @ np.cross(x["r"], j)
        if dim == 2:
            dw = np.array([0.0, 0.0, dw[2]])
        return dv, dw

    def relative_change(j):
        dva, dwa = change(A, j)
        dvb, dwb = change(B, -j)
        return (dva + np.cross(dwa, A["r"])) - (dvb + np.cross(dwb, B["r"]))

    axes = np.eye(3)[:dim]
    K = np.array([relative_change(ax)[:dim] for ax in axes]).T
    w = (point_velocity(A) - point_velocity(B))[:dim]
    s = w @ n
    j = np.zeros(dim)
    if s < 0:
        e_eff = e if -s > threshold else 0.0
        dn = -(1.0 + e_eff) * s
        wt = w - s * n
        if A["m"] + B["m"] == 0.0:
            kn = n @ K @ n
            j = dn / kn * n if kn > 0 else j
        else:
            stick = np.linalg.solve(K, -e_eff * s * n - w)
            jn_s = stick @ n
            if np.linalg.norm(stick - jn_s * n) <= friction * jn_s:
                j = stick
            elif dim == 2:
                t = np.array([-n[1], n[0]])
                for sign in (1.0, -1.0):
                    d = n + sign * friction * t
                    jn = dn / (n @ K @ d)
                    after = (w + K @ (jn * d)) @ t
                    if jn >= 0 and sign * after <= 0:
                        j = jn * d
                        break
                else:
                    raise AssertionError("no consistent slip")
            else:
                # friction along d(theta) in the tangent plane; the remaining
                # slip must be antiparallel to d: a root of its cross product
                t1 = np.cross(n, wt if np.linalg.norm(wt) > 0 else np.eye(3)[np.argmin(abs(n))])
                t1 /= np.linalg.norm(t1)
                t2 = np.cross(n, t1)

                def slip_after(theta):
                    d = np.cos(theta) * t1 + np.sin(theta) * t2
                    jn = dn / (n @ K @ (n + friction * d))
                    after = w + K @ (jn * (n + friction * d))
                    return d, jn, after - (after @ n) * n

                def misalignment(theta):
                    d, _, at = slip_after(theta)
                    return np.cross(at, d) @ n

                grid = np.linspace(-np.pi, np.pi, 73)
                f = [misalignment(x) for x in grid]
                for lo, hi, flo, fhi in zip(grid, grid[1:], f, f[1:]):
                    if flo * fhi <= 0:
                        theta = scipy.optimize.brentq(misalignment, lo, hi, xtol=1e-15)
                        d, jn, at = slip_after(theta)
                        if jn >= 0 and at @ d < 0:
                            j = jn * (n + friction * d)
                            break
                else:
                    raise AssertionError("no consistent slip direction")
    dva, dwa = change(A, _as3(j, dim))
    dvb, dwb = change(B, -_as3(j, dim))
    wa, wb = A["w"] + dwa, B["w"] + dwb
    if dim == 2:
        wa, wb = wa[2], wb[2]
    jn = j @ n
    return ((A["v"] + dva)[:dim], wa, (B["v"] + dvb)[:dim], wb, jn, j - jn * n)


def rigid_contacts(a, b, n, p, e, friction=0.0, threshold=0.0):
    """rigid_contact over the first axis of every array in a, b, n, p
    (e, friction and threshold scalars or per contact)."""
    count = len(n)
    pick = lambda x, i: np.asarray(x)[i] if np.ndim(x) and len(np.asarray(x)) == count else x
    rows = [rigid_contact({k: pick(v, i) for k, v in a.items()},
                          {k: pick(v, i) for k, v in b.items()}, n[i], p[i], pick(e, i),
                          pick(friction, i), pick(threshold, i)) for i in range(count)]
    return tuple(np.array(col) for col in zip(*rows))


def rigid_contact_exact(a, b, n, p, e, friction=0.0, threshold=0.0):
    """rigid_contact's law in exact rational arithmetic (fractions), for
    inputs at any magnitude: inverse masses and inertias from 1e-308 to
    1e308 make the effective mass K as ill-conditioned as they like, and
    nothing here rounds or overflows.

    The normal is an axis (+-e_k), so that the tangent plane has an exact
    orthonormal basis (t1, t2). Sticking and 2-D slipping impulses are
    rational. A slipping 3-D contact's friction direction d is irrational:
    it is found from the tangential effective mass S (K's Schur complement)
    as the direction of (S + m I)^-1 c, m bisected in exact arithmetic on a
    rational function, and d is then rounded to 2^-bits; the result is
    checked against the law itself (the slip that remains is antiparallel to
    d, to 2^-bits/2 of the velocities). Bodies as for rigid_contact (I a scalar or a 3x3
    tensor; w a scalar in 2-D). Returns Fractions (va, wa, vb, wb, jn, jt):
    vectors as lists, wa and wb scalars in 2-D."""
    from fractions import Fraction as F
    bits = 160
    dim = len(n)
    n = [F(x) for x in n]
    assert sorted(abs(x) for x in n) == [0] * (dim - 1) + [1], "the normal must be an axis"

    def vec3(x):
        x = [F(float(c)) for c in np.ravel(x)]
        return x + [F(0)] * (3 - len(x))

    def cross(u, v):
        return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]

    def dot(u, v):
        return sum(x * y for x, y in zip(u, v))

    def matvec(m, v):
        return [dot(row, v) for row in m]

    p3 = vec3(p)
    bodies = []
    for body in (a, b):
        inertia = np.asarray(body["I"], dtype=float)
        if inertia.ndim == 0:
            inertia = float(inertia) * np.eye(3)
        w = np.ravel(np.asarray(body["w"], dtype=float))
        bodies.append(dict(v=vec3(body["v"]), w=vec3([0.0, 0.0, w[0]] if dim == 2 else w),
                           m=F(float(body["m"])),
                           I=[[F(float(x)) for x in row] for row in inertia],
                           r=[pc - cc for pc, cc in zip(p3, vec3(body["c"]))]))
    A, B = bodies

    def change(x, j):  # (dv, dw) of a body receiving the impulse j
        dw = matvec(x["I"], cross(x["r"], j))
        if dim == 2:
            dw = [F(0), F(0), dw[2]]
        return [x["m"] * c for c in j], dw

    def point_change(j):  # change of a's contact-point velocity minus b's
        dva, dwa = change(A, j)
        dvb, dwb = change(B, [-c for c in j])
        ua, ub = cross(dwa, A["r"]), cross(dwb, B["r"])
        return [dva[k] + ua[k] - dvb[k] - ub[k] for k in range(3)]

    axes = [[F(int(i == k)) for i in range(3)] for k in range(dim)]
    K = [[point_change(axes[c])[r] for c in range(dim)] for r in range(dim)]
    Kv = lambda v: [dot(K[r], v) for r in range(dim)]  # noqa: E731
    ua = [A["v"][k] + c for k, c in enumerate(cross(A["w"], A["r"]))]
    ub = [B["v"][k] + c for k, c in enumerate(cross(B["w"], B["r"]))]
    w = [ua[k] - ub[k] for k in range(dim)]
    s = dot(w, n)
    j = [F(0)] * dim
    mu = F(float(friction))
    if s < 0:
        e_eff = F(float(e)) if -s > F(float(threshold)) else F(0)
        dn = -(1 + e_eff) * s

        def along(d):  # the impulse j_n d with n . K j = dn
            kn = dot(n, Kv(d))
            return [dn / kn * c for c in d]

        def remaining_slip(j):
            after = [w[k] + c for k, c in enumerate(Kv(j))]
            normal = dot(after, n)
            return [after[k] - normal * n[k] for k in range(dim)]

        if A["m"] + B["m"] == 0:
            kn = dot(n, Kv(n))
            j = [dn / kn * c for c in n] if kn > 0 else j
        else:
            target = [-e_eff * s * n[k] - w[k] for k in range(dim)]
            stick = _exact_solve(K, target)
            jn = dot(stick, n)
            jt = [stick[k] - jn * n[k] for k in range(dim)]
            if dot(jt, jt) <= (mu * jn) ** 2 and jn >= 0:
                j = stick
            elif mu == 0:
                j = along(n)
            else:
                tangents = [ax for ax in axes if dot(ax, n) == 0]
                if dim == 2:
                    for sign in (1, -1):
                        d = [n[k] + sign * mu * tangents[0][k] for k in range(dim)]
                        j = along(d)
                        if dot(j, n) >= 0 and sign * dot(remaining_slip(j), tangents[0]) <= 0:
                            break
                    else:
                        raise AssertionError("no consistent slip")
                else:
                    j = _exact_slip_3d(K, Kv, n, w, dn, mu, tangents, remaining_slip, bits)
    j3 = j + [F(0)] * (3 - dim)
    dva, dwa = change(A, j3)
    dvb, dwb = change(B, [-c for c in j3])
    wa = [A["w"][k] + dwa[k] for k in range(3)]
    wb = [B["w"][k] + dwb[k] for k in range(3)]
    jn = dot(j, n)
    return ([A["v"][k] + dva[k] for k in range(dim)], wa[2] if dim == 2 else wa,
            [B["v"][k] + dvb[k] for k in range(dim)], wb[2] if dim == 2 else wb, jn,
            [j[k] - jn * n[k] for k in range(dim)])


def _exact_sqrt(x, bits):
    """sqrt(x) for a Fraction x >= 0, to within 2^-bits of its size."""
    from fractions import Fraction as F
    if x == 0:
        return F(0)
    shift = bits + max(0, (x.denominator.bit_length() - x.numerator.bit_length()) // 2 + 2)
    return F(math.isqrt((x.numerator << (2 * shift)) // x.denominator), 1 << shift)


def _exact_slip_3d(K, Kv, n, w, dn, mu, tangents, remaining_slip, bits):
    """The slipping 3-D impulse of rigid_contact_exact. With a = n.K n,
    q = T^T K n, S = T^T K T - q q^T / a and c = T^T w + q dn / a in the
    tangent basis T = (t1, t2), the friction impulse -rho u leaves the slip
    c - rho S u, antiparallel to it when u runs along v(m) = (S + m I)^-1 c;
    Coulomb's bound and the normal law give a |v| = mu (dn + q . v), that is
    a^2 |v|^2 = mu^2 (dn + q . v)^2 with dn + q . v > 0: rational in m,
    bisected exactly."""
    from fractions import Fraction as F

    def dot(u, v):
        return sum(x * y for x, y in zip(u, v))

    a = dot(n, Kv(n))
    q = [dot(t, Kv(n)) for t in tangents]
    S = [[dot(ti, Kv(tj)) - q[i] * q[k] / a for k, tj in enumerate(tangents)]
         for i, ti in enumerate(tangents)]
    c = [dot(t, w) + q[i] * dn / a for i, t in enumerate(tangents)]

    def v_of(m):
        s00, s01, s11 = S[0][0] + m, S[0][1], S[1][1] + m
        det = s00 * s11 - s01 * s01
        return [(s11 * c[0] - s01 * c[1]) / det, (s00 * c[1] - s01 * c[0]) / det]

    def excess(m):  # > 0 while a |v| > mu (dn + q . v): the slip left exceeds
        v = v_of(m)  # what Coulomb's impulse removes
        bound = dn + dot(q, v)
        return 1 if bound <= 0 else a * a * dot(v, v) - mu * mu * bound ** 2

    low, high = -5000, 5000  # the power of two below the root, then the root
    while high - low > 1:
        mid = (low + high) // 2
        if excess(F(2) ** mid) > 0:
            low = mid
        else:
            high = mid
    lo, hi = F(2) ** low, F(2) ** high
    for _ in range(bits + 40):
        mid = (lo + hi) / 2
        if excess(mid) > 0:
            lo = mid
        else:
            hi = mid
    v = v_of((lo + hi) / 2)
    size = _exact_sqrt(dot(v, v), bits)
    d = [-(v[0] * tangents[0][k] + v[1] * tangents[1][k]) / size for k in range(3)]
    dd = [n[k] + mu * d[k] for k in range(3)]
    j = [dn / dot(n, Kv(dd)) * x for x in dd]
    rest = remaining_slip(j)
    across = [rest[1] * d[2] - rest[2] * d[1], rest[2] * d[0] - rest[0] * d[2],
              rest[0] * d[1] - rest[1] * d[0]]
    assert dot(j, n) >= 0 and dot(rest, d) <= 0, "no consistent slip direction"
    scale = dot(w, w) + dot(Kv(j), Kv(j))  # (the slip left may cancel all but a trace)
    assert dot(across, across) <= scale * F(1, 1 << bits), "slip not antiparallel"
    return j


def _exact_solve(K, y):
    """K x = y by Gaussian elimination in exact arithmetic (K square, nonsingular)."""
    size = len(y)
    m = [list(row) + [y[r]] for r, row in enumerate(K)]
    for c in range(size):
        pivot = next(r for r in range(c, size) if m[r][c] != 0)
        m[c], m[pivot] = m[pivot], m[c]
        for r in range(size):
            if r != c and m[r][c] != 0:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * yv for x, yv in zip(m[r], m[c])]
    return [m[r][size] / m[r][r] for r in range(size)]

# ---- gltf ----

def gltf_spec_sample(times, output, interpolation, t, rotation=False):
    """One glTF sampler evaluated query by query as Appendix C of the glTF 2.0
    specification writes it: find k with t_k <= t < t_k+1, s = (t - t_k) / t_d,
    STEP -> v_k; LINEAR -> (1 - s) v_k + s v_k+1, or for rotations
    a = arccos(|q_k . q_k+1|), q = sin(a(1 - s))/sin(a) q_k + sign(q_k . q_k+1)
    sin(a s)/sin(a) q_k+1; CUBICSPLINE -> (2s^3 - 3s^2 + 1) v_k
    + t_d (s^3 - 2s^2 + s) b_k + (-2s^3 + 3s^2) v_k+1 + t_d (s^3 - s^2) a_k+1 with
    output rows (a_k, v_k, b_k) per key. Outside the keys the end value holds.
    Rotations are returned normalized."""
    times = np.asarray(times, dtype=float)
    output = np.asarray(output, dtype=float)
    output = output.reshape(len(output), -1)
    if interpolation == "CUBICSPLINE":
        a, v, b = output[0::3], output[1::3], output[2::3]
    else:
        v = output
    queries = np.asarray(t, dtype=float)
    result = []
    for tc in queries.ravel():
        if tc <= times[0]:
            r = v[0]
        elif tc >= times[-1]:
            r = v[-1]
        else:
            k = int(np.nonzero(times <= tc)[0][-1])
            td = times[k + 1] - times[k]
            s = (tc - times[k]) / td
            if interpolation == "STEP":
                r = v[k]
            elif interpolation == "LINEAR" and rotation:
                q0 = v[k] / np.linalg.norm(v[k])
                q1 = v[k + 1] / np.linalg.norm(v[k + 1])
                d = float(np.dot(q0, q1))
                angle = np.arccos(min(abs(d), 1.0))
                sign = 1.0 if d >= 0 else -1.0
                if angle < 1e-9:
                    r = (1 - s) * q0 + s * sign * q1
                else:
                    r = (np.sin(angle * (1 - s)) * q0 + sign * np.sin(angle * s) * q1) / np.sin(angle)
            elif interpolation == "LINEAR":
                r = (1 - s) * v[k] + s * v[k + 1]
            else:
                s2, s3 = s * s, s * s * s
                r = ((2 * s3 - 3 * s2 + 1) * v[k] + td * (s3 - 2 * s2 + s) * b[k]
                     + (-2 * s3 + 3 * s2) * v[k + 1] + td * (s3 - s2) * a[k + 1])
        r = np.array(r, dtype=float)
        if rotation:
            r = r / np.linalg.norm(r)
        result.append(r)
    return np.array(result).reshape(queries.shape + (output.shape[1],))


def bezier_2d(key_times, key_values, out_points, in_points, t):
    """Value of a 2-D cubic Bezier track in (time, value) at times t: the
    segment holding t (numpy.searchsorted), its Bernstein time polynomial
    solved for the curve parameter with scipy's brentq, then the Bernstein
    value polynomial. out_points[i] / in_points[i+1] are the (time, value)
    control points of segment i. One channel, t inside the keys."""
    from scipy.optimize import brentq

    def bern(p0, p1, p2, p3, s):
        return (1 - s) ** 3 * p0 + 3 * (1 - s) ** 2 * s * p1 + 3 * (1 - s) * s * s * p2 + s**3 * p3

    def one(x):
        i = min(max(int(np.searchsorted(key_times, x, side="right")) - 1, 0), len(key_times) - 2)
        t0, t1 = key_times[i], key_times[i + 1]
        xs = (t0, out_points[i][0], in_points[i + 1][0], t1)
        ys = (key_values[i], out_points[i][1], in_points[i + 1][1], key_values[i + 1])
        if x <= t0:
            return ys[0]
        if x >= t1:
            return ys[3]
        s = brentq(lambda s: bern(*xs, s) - x, 0.0, 1.0, xtol=1e-15, rtol=1e-15)
        return bern(*ys, s)

    return np.vectorize(one, otypes=[float])(t)


# ---- skeletons ----

def trs_matrix(translation, rotation, scale):
    """4x4 matrices T R S from translation (..., 3), quaternion (..., 4) and scale
    (..., 3), through scipy's rotation matrix (not animcore's)."""
    from scipy.spatial.transform import Rotation

    translation, rotation, scale = (np.asarray(a, float) for a in (translation, rotation, scale))
    lead = np.broadcast_shapes(translation.shape[:-1], rotation.shape[:-1], scale.shape[:-1])
    quats = np.array(np.broadcast_to(rotation, lead + (4,))).reshape(-1, 4)
    r = Rotation.from_quat(quats).as_matrix() if quats.size else np.zeros((0, 3, 3))
    m = np.zeros(lead + (4, 4))
    m[..., :3, :3] = r.reshape(lead + (3, 3)) * np.broadcast_to(scale, lead + (3,))[..., None, :]
    m[..., :3, 3] = np.broadcast_to(translation, lead + (3,))
    m[..., 3, 3] = 1.0
    return m


def products_in_order(a, b):
    """a @ b with each element's four products summed in order k = 0..3
    (NumPy's elementwise operations: no fused multiply-add)."""
    out = a[..., :, 0, None] * b[..., None, 0, :]
    for k in range(1, 4):
        out = out + a[..., :, k, None] * b[..., None, k, :]
    return out


def world_loop(parents, local):
    """World matrices by a plain loop over poses and joints: each joint's parent
    is resolved recursively (memoized), so no evaluation order is needed."""
    parents = list(parents)
    local = np.asarray(local, float)
    lead = local.shape[:-3]
    flat = local.reshape((-1,) + local.shape[-3:])
    out = np.empty_like(flat)
    for p in range(flat.shape[0]):
        done = {}

        def world(j):
            if j not in done:
                done[j] = flat[p, j] if parents[j] < 0 else world(parents[j]) @ flat[p, j]
            return done[j]

        for j in range(len(parents)):
            out[p, j] = world(j)
    return out.reshape(lead + local.shape[-3:])


# ---- glTF scenes, read with pygltflib (not animcore's reader) ----

def pygltf_document(path):
    """The file read by pygltflib, with the bytes of its buffers in `doc.blobs`."""
    import base64
    import pathlib

    import pygltflib

    doc = pygltflib.GLTF2().load(str(path))
    doc.blobs = []
    for buffer in doc.buffers:
        if buffer.uri is None:
            doc.blobs.append(doc.binary_blob())
        elif buffer.uri.startswith("data:"):
            doc.blobs.append(base64.b64decode(buffer.uri.partition(",")[2]))
        else:
            doc.blobs.append((pathlib.Path(path).parent / buffer.uri).read_bytes())
    return doc


def pygltf_accessor(doc, index):
    """A tightly packed float accessor as (count, components) float64."""
    accessor = doc.accessors[index]
    view = doc.bufferViews[accessor.bufferView]
    width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}[accessor.type]
    assert accessor.componentType == 5126 and view.byteStride in (None, 4 * width)
    start = (view.byteOffset or 0) + (accessor.byteOffset or 0)
    data = np.frombuffer(doc.blobs[view.buffer], dtype="<f4", count=accessor.count * width,
                         offset=start)
    return data.reshape(accessor.count, width).astype(np.float64)


def gltf_world(doc, animated, shape):
    """World matrices (shape + (N, 4, 4)) of every node of a pygltflib document:
    local matrices from each node's matrix (column-major in the file) or its
    TRS, where `animated[(node, path)]` (arrays of shape + (width,)) replaces
    the rest value, composed by `world_loop`."""
    count = len(doc.nodes)
    parents = [-1] * count
    for i, node in enumerate(doc.nodes):
        for child in node.children or []:
            parents[child] = i
    local = np.empty(shape + (count, 4, 4))
    for i, node in enumerate(doc.nodes):
        if node.matrix is not None and not any((i, p) in animated for p in
                                               ("translation", "rotation", "scale")):
            local[..., i, :, :] = np.asarray(node.matrix, float).reshape(4, 4).T
            continue
        rest = {"translation": node.translation or [0, 0, 0],
                "rotation": node.rotation or [0, 0, 0, 1], "scale": node.scale or [1, 1, 1]}
        if node.matrix is not None:  # animated although it has a matrix: its decomposition
            from scipy.spatial.transform import Rotation

            m = np.asarray(node.matrix, float).reshape(4, 4).T
            s = np.linalg.norm(m[:3, :3], axis=0)
            rest = {"translation": m[:3, 3], "rotation": Rotation.from_matrix(m[:3, :3] / s).as_quat(),
                    "scale": s}
        values = {p: np.broadcast_to(animated.get((i, p), np.asarray(rest[p], float)),
                                     shape + (len(rest[p]),)) for p in rest}
        local[..., i, :, :] = trs_matrix(values["translation"], values["rotation"], values["scale"])
    return world_loop(parents, local)


# ---- BVH ----

def bvh_world_positions(path, frames):
    """World positions (len(frames), J, 3) of the ROOT/JOINT nodes of a BVH file
    (End Sites left out), by a line-by-line reading of the file and scipy's
    intrinsic Euler rotations in each joint's channel order, composed as 4x4
    matrices down the hierarchy."""
    from scipy.spatial.transform import Rotation

    with open(path) as stream:  # (closed: an open file left is a ResourceWarning)
        lines = [line.split() for line in stream]
    joints, stack, i = [], [], 0
    while lines[i][:1] != ["MOTION"]:
        words = lines[i]
        if words[:1] in (["ROOT"], ["JOINT"]):
            joints.append({"parent": stack[-1] if stack else -1, "channels": []})
            stack.append(len(joints) - 1)
            site = False
        elif words[:1] == ["End"]:
            site = True
        elif words[:1] == ["OFFSET"] and not site:
            joints[stack[-1]]["offset"] = np.array(words[1:4], float)
        elif words[:1] == ["CHANNELS"]:
            joints[stack[-1]]["channels"] = words[2:]
        elif words[:1] == ["}"]:
            if site:
                site = False
            else:
                stack.pop()
        i += 1
    motion = np.array([list(map(float, w)) for w in lines[i + 3:] if w])
    out = np.zeros((len(frames), len(joints), 3))
    for f, frame in enumerate(frames):
        values, column, world = motion[frame], 0, []
        for joint in joints:
            names = joint["channels"]
            data = dict(zip(names, values[column:column + len(names)]))
            column += len(names)
            local = np.eye(4)
            local[:3, 3] = joint["offset"]
            for axis, name in enumerate(("Xposition", "Yposition", "Zposition")):
                if name in data:
                    local[axis, 3] = data[name]
            order = "".join(n[0] for n in names if n.endswith("rotation"))
            if order:
                angles = [data[f"{a}rotation"] for a in order]
                local[:3, :3] = Rotation.from_euler(order.upper(), angles, degrees=True).as_matrix()
            world.append(local if joint["parent"] < 0 else world[joint["parent"]] @ local)
            out[f, len(world) - 1] = world[-1][:3, 3]
    return out
