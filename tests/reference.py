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
