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
