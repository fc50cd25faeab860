"""Independent references for the tests, written in plain NumPy.

They derive the expected values by other routes than the kernels (Bezier
control points instead of the Hermite basis, analytic polynomials, piecewise
integration) so that a shared mistake cannot pass unnoticed.
"""
import numpy as np


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

def _quat_mul(a, b):
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
    r = _quat_mul(inv, b)
    if r[3] < 0:  # q and -q: take the short way round
        r = tuple(-c for c in r)
    s = math.sqrt(r[0] ** 2 + r[1] ** 2 + r[2] ** 2)
    half = math.atan2(s, r[3])
    if s == 0.0:
        p = (0.0, 0.0, 0.0, 1.0)
    else:
        k = math.sin(t * half) / s
        p = (r[0] * k, r[1] * k, r[2] * k, math.cos(t * half))
    q = _quat_mul(a, p)
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
