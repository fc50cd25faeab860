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
