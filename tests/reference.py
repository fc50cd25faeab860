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
