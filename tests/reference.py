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
